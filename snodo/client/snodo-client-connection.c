/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient's connection: the lines read from the server, cut by the
 * wire layer's framer and decoded by its frame module, and those written
 * to it by its bounded writer with a deadline; the table of pending
 * requests with their timeouts and cancellation; the answers, the
 * notifications (emitted as signals) and the server's own requests; and
 * the end of the connection. See snodo-client-private.h for how this file
 * relates to the others. */

#include "config.h"

#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-features.h"
#include "snodo-wire-private.h"

#define CLIENT_READ_SIZE        65536

/* One request in the pending table. */
typedef struct
{
  /* The client, not referenced: the table belongs to it. */
  SnodoClient *client;
  char *key;
  gint64 id;
  char *method;
  /* The request's task; its result is a JsonObject. Owned. */
  GTask *task;
  /* The request-timeout timer, or NULL. Owned. */
  GSource *timeout;
  /* The caller's cancellable, connected while pending. Owned. */
  GCancellable *cancellable;
  gulong cancelled_id;
  /* The params as sent, for a retry with input (2026-07-28) or after a
   * URL elicitation (-32042). Owned. */
  JsonObject *params;
  gboolean envelope;
  /* The request's span (snodo-client-trace.c), or NULL. */
  SnodoSpan *span;
  /* Forwarded as it is (snodo_client_forward_async()): no envelope or
   * progress token added, and the task's result is the whole answer, a
   * result of any type or an error. Its id is the caller's string, which
   * never equals the client's own integer ids. */
  gboolean raw;
  char *raw_id;
} Pending;

static void snodo_client_pump (SnodoClient *self);

static guint request_progress_signal;

void
snodo_client_install_progress_signal (GObjectClass *klass)
{
  /**
   * SnodoClient::request-progress:
   * @self: the client
   * @request: the request the progress is about, as it was sent: its
   *   `id` (also its `progressToken`), `method` and `params`
   * @progress: the progress so far
   * @total: the total to reach, or -1 when the server did not say
   * @message: (nullable): what the server said about it
   *
   * Emitted in the client's main context for every progress notification
   * of a pending request, with that request, so that an application with
   * several requests in flight tells which one progressed: by the tool's
   * `name` and `arguments` in its `params`, for instance. The detail is
   * the request's method: `request-progress::tools/call`. In 2026-07-28 a
   * request answered with `input_required` is sent again, with another
   * id, and the same `params` plus the answers.
   *
   * [signal@Snodo.Client::progress] is emitted right after it, with the
   * method alone.
   *
   * Since: 0.1
   */
  request_progress_signal =
    g_signal_new ("request-progress",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 4,
                  JSON_TYPE_OBJECT, G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_STRING);
}

static void
pending_free (Pending *pending)
{
  if (pending->cancelled_id != 0)
    g_cancellable_disconnect (pending->cancellable, pending->cancelled_id);
  g_clear_object (&pending->cancellable);
  g_clear_pointer (&pending->timeout, snodo_source_destroy_and_unref);
  g_clear_object (&pending->task);
  g_clear_pointer (&pending->params, json_object_unref);
  if (G_UNLIKELY (pending->span != NULL))
    snodo_client_trace_response (g_steal_pointer (&pending->span), NULL, "cancelled");
  g_free (pending->method);
  g_free (pending->raw_id);
  g_free (pending->key);
  g_free (pending);
}

/* Writing. */

/* Whether anything can still be sent: not after a failure or close. */
static gboolean
snodo_client_can_send (SnodoClient *self)
{
  if (self->http != NULL)
    return self->state != STATE_CLOSED;
  return self->writer != NULL;
}

/* Entry: any state but after a failure. Sends @line (taken): queued for
 * the writer, or POSTed over HTTP, where a request (@key and @method), a
 * notification (@method) and a response (neither) differ. */
static void
snodo_client_send_message (SnodoClient *self,
                           GBytes      *line,
                           const char  *key,
                           const char  *method,
                           JsonObject  *params,
                           gboolean     stateless)
{
  if (!snodo_client_can_send (self))
    {
      g_bytes_unref (line);
      return;
    }
#if SNODO_HAS_HTTP_TRANSPORT
  if (self->http != NULL)
    {
      snodo_client_http_post (self, line, key, method, params, stateless);
      return;
    }
#endif
  g_queue_push_tail (&self->out, line);
  snodo_client_pump (self);
}

static void
snodo_client_send_line (SnodoClient *self,
                        GBytes      *line)
{
  snodo_client_send_message (self, line, NULL, NULL, NULL, FALSE);
}

static void
snodo_client_write_done (SnodoClient  *self,
                         const GError *error)
{
  g_clear_pointer (&self->write_deadline, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->in_flight, g_ptr_array_unref);
  if (error != NULL)
    {
      g_autoptr(GError) copy = g_error_copy (error);

      g_prefix_error (&copy, "%s", _("Writing to the server failed: "));
      snodo_client_fail (self, copy);
      return;
    }
  snodo_client_pump (self);
}

static void
snodo_client_write_done_cb (const GError *error,
                            gpointer      user_data)
{
  snodo_client_write_done (user_data, error);
}

static gboolean
snodo_client_write_timeout_cb (gpointer user_data)
{
  SnodoClient *self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->write_deadline, g_source_unref);
  error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       _("Writing to the server took longer than %u ms"),
                       self->write_timeout);
  snodo_client_fail (self, error);
  return G_SOURCE_REMOVE;
}

/* Entry: any state. Starts the next write when none is in flight; a write
 * that finishes at once is followed by the next one in this loop. */
static void
snodo_client_pump (SnodoClient *self)
{
  while (self->writer != NULL && self->in_flight == NULL && !g_queue_is_empty (&self->out))
    {
      g_autoptr(GError) error = NULL;

      self->in_flight = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
      while (!g_queue_is_empty (&self->out))
        g_ptr_array_add (self->in_flight, g_queue_pop_head (&self->out));

      switch (snodo_writer_write (self->writer, self->in_flight,
                                  snodo_client_write_done_cb, self, &error))
        {
        case SNODO_WRITER_PENDING:
          self->write_deadline = g_timeout_source_new (self->write_timeout);
          g_source_set_static_name (self->write_deadline, "[snodo] client write deadline");
          g_source_set_callback (self->write_deadline, snodo_client_write_timeout_cb, self, NULL);
          g_source_attach (self->write_deadline, self->context);
          return;

        case SNODO_WRITER_FAILED:
          snodo_client_write_done (self, error);
          return;

        case SNODO_WRITER_DONE:
        default:
          g_clear_pointer (&self->in_flight, g_ptr_array_unref);
          break;
        }
    }
}

void
snodo_client_send_notification (SnodoClient *self,
                                const char  *method,
                                JsonObject  *params)
{
  g_autoptr(JsonNode) node = NULL;

  if (params != NULL)
    node = snodo_json_node_take_object (json_object_ref (params));
  snodo_client_send_message (self, snodo_frame_encode_notification (method, node),
                             NULL, method, params, FALSE);
}

/* Requests. */

static Pending *
snodo_client_take_pending (SnodoClient *self,
                           const char  *key)
{
  gpointer stolen_key = NULL;
  gpointer value = NULL;

  if (!g_hash_table_steal_extended (self->pending, key, &stolen_key, &value))
    return NULL;
  g_free (stolen_key);
  return value;
}

/* Tells the server that the request of @pending is abandoned. */
static void
snodo_client_send_cancelled (SnodoClient *self,
                             Pending     *pending,
                             const char  *reason)
{
  g_autoptr(JsonObject) params = json_object_new ();

  if (!snodo_client_can_send (self) || g_str_equal (pending->method, "initialize"))
    return;
  /* Over HTTP the answer is closed: in 2026-07-28 that is the
   * cancellation; before, the server sends nothing more on it, and the
   * notification follows. */
#if SNODO_HAS_HTTP_TRANSPORT
  if (self->http != NULL)
    {
      snodo_client_http_abandon (self, pending->key);
      if (snodo_protocol_version_is_stateless (self->protocol_version))
        return;
    }
#endif
  if (pending->raw_id != NULL)
    json_object_set_string_member (params, "requestId", pending->raw_id);
  else
    json_object_set_int_member (params, "requestId", pending->id);
  json_object_set_string_member (params, "reason", reason);
  snodo_client_send_notification (self, "notifications/cancelled", params);
}

static gboolean
snodo_client_request_timeout_cb (gpointer user_data)
{
  Pending *pending = user_data;
  SnodoClient *self = pending->client;

  g_clear_pointer (&pending->timeout, g_source_unref);
  pending = snodo_client_take_pending (self, pending->key);
  snodo_client_send_cancelled (self, pending, "timed out");
  g_task_return_new_error (pending->task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           _("The server did not answer %s in time"), pending->method);
  pending_free (pending);
  return G_SOURCE_REMOVE;
}

typedef struct
{
  SnodoClient *client;
  char *key;
} CancelData;

static void
cancel_data_free (CancelData *data)
{
  g_object_unref (data->client);
  g_free (data->key);
  g_free (data);
}

/* On the client's context. */
static gboolean
snodo_client_cancel_cb (gpointer user_data)
{
  CancelData *data = user_data;
  SnodoClient *self = data->client;
  Pending *pending;

  pending = snodo_client_take_pending (self, data->key);
  if (pending == NULL)
    return G_SOURCE_REMOVE;
  snodo_client_send_cancelled (self, pending, "cancelled by the client");
  g_task_return_new_error (pending->task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           _("The request %s was cancelled"), pending->method);
  pending_free (pending);
  return G_SOURCE_REMOVE;
}

/* In whichever thread cancelled: hands over to the client's context. */
static void
snodo_client_cancelled_cb (GCancellable *cancellable,
                           gpointer      user_data)
{
  Pending *pending = user_data;
  CancelData *data = g_new0 (CancelData, 1);
  g_autoptr(GSource) source = g_idle_source_new ();

  data->client = g_object_ref (pending->client);
  data->key = g_strdup (pending->key);
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] client cancel");
  g_source_set_callback (source, snodo_client_cancel_cb, data, (GDestroyNotify) cancel_data_free);
  g_source_attach (source, pending->client->context);
}

/* Sends @method with @params (taken; NULL for none) and completes @task
 * (taken) with the result's JsonObject, or with the whole answer when
 * @raw. @timeout_ms 0: none. */
static void
snodo_client_send_request_full (SnodoClient  *self,
                                const char   *raw_id,
                                const char   *method,
                                JsonObject   *params,
                                gboolean      envelope,
                                gboolean      raw,
                                guint         timeout_ms,
                                GCancellable *cancellable,
                                GTask        *task)
{
  g_autoptr(JsonObject) owned_params = params;
  g_autoptr(JsonNode) id = NULL;
  g_autoptr(JsonNode) params_node = NULL;
  Pending *pending;

  if (self->state == STATE_CLOSED || !snodo_client_can_send (self))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED,
                               _("The connection to the server is closed"));
      g_object_unref (task);
      return;
    }
  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The request %s was cancelled"), method);
      g_object_unref (task);
      return;
    }

  pending = g_new0 (Pending, 1);
  pending->client = self;
  pending->id = self->next_id++;
  pending->method = g_strdup (method);
  pending->task = task;

  id = json_node_new (JSON_NODE_VALUE);
  if (raw_id != NULL)
    {
      pending->raw_id = g_strdup (raw_id);
      json_node_set_string (id, raw_id);
    }
  else
    json_node_set_int (id, pending->id);
  pending->key = snodo_frame_id_key (id);

  if (owned_params == NULL)
    owned_params = json_object_new ();
  if (envelope)
    snodo_client_add_envelope (self, owned_params);
  /* The request's id is its progress token: progress names the request.
   * A forwarded request keeps its sender's token. */
  if (!raw && !g_str_equal (method, "initialize") && !g_str_equal (method, "server/discover") &&
      !g_str_equal (method, "ping"))
    {
      JsonNode *meta;

      if (!json_object_has_member (owned_params, "_meta"))
        json_object_set_object_member (owned_params, "_meta", json_object_new ());
      /* A caller's _meta that is no object is sent as it is. */
      meta = json_object_get_member (owned_params, "_meta");
      if (JSON_NODE_HOLDS_OBJECT (meta))
        json_object_set_int_member (json_node_get_object (meta), "progressToken", pending->id);
    }
  pending->span = snodo_client_trace_request (self, method, owned_params, pending->id);
  pending->params = json_object_ref (owned_params);
  pending->envelope = envelope;
  pending->raw = raw;
  /* A legacy request without params sends none. */
  if (json_object_get_size (owned_params) > 0)
    params_node = snodo_json_node_take_object (json_object_ref (owned_params));

  if (timeout_ms > 0)
    {
      pending->timeout = g_timeout_source_new (timeout_ms);
      g_source_set_static_name (pending->timeout, "[snodo] client request timeout");
      g_source_set_callback (pending->timeout, snodo_client_request_timeout_cb, pending, NULL);
      g_source_attach (pending->timeout, self->context);
    }

  g_hash_table_insert (self->pending, g_strdup (pending->key), pending);

  if (cancellable != NULL)
    {
      pending->cancellable = g_object_ref (cancellable);
      pending->cancelled_id = g_cancellable_connect (cancellable,
                                                     G_CALLBACK (snodo_client_cancelled_cb),
                                                     pending, NULL);
    }

  snodo_client_send_message (self, snodo_frame_encode_request (id, method, params_node),
                             pending->key, method, owned_params,
                             raw ? snodo_protocol_version_is_stateless (self->protocol_version) : envelope);
}

void
snodo_client_send_request (SnodoClient  *self,
                           const char   *method,
                           JsonObject   *params,
                           gboolean      envelope,
                           guint         timeout_ms,
                           GCancellable *cancellable,
                           GTask        *task)
{
  snodo_client_send_request_full (self, NULL, method, params, envelope, FALSE, timeout_ms, cancellable, task);
}

/* Entry: any state. Sends a request of the connected client as it is
 * (see snodo_client_forward_async()) and completes @task (taken) with the
 * whole answer: an object holding `result` or `error`; @params is taken. */
void
snodo_client_start_raw_request (SnodoClient  *self,
                                const char   *id,
                                const char   *method,
                                JsonObject   *params,
                                GCancellable *cancellable,
                                GTask        *task)
{
  g_autoptr(JsonNode) id_node = json_node_init_string (json_node_alloc (), id);
  g_autofree char *id_key = snodo_frame_id_key (id_node);

  if (self->state != STATE_READY)
    {
      g_task_return_new_error (task, G_IO_ERROR,
                               self->state == STATE_CLOSED ? G_IO_ERROR_CLOSED : G_IO_ERROR_NOT_CONNECTED,
                               self->state == STATE_CLOSED ? _("The connection to the server is closed")
                                                           : _("The client is not connected"));
      g_object_unref (task);
      if (params != NULL)
        json_object_unref (params);
      return;
    }
  if (snodo_client_is_pending (self, id_key))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_EXISTS,
                               _("A request with the id %s is already in flight"), id);
      g_object_unref (task);
      if (params != NULL)
        json_object_unref (params);
      return;
    }
  snodo_client_send_request_full (self, id, method, params, FALSE, TRUE, self->request_timeout,
                                  cancellable, task);
}

/* Entry: any state. Sends a request of the connected client (the
 * envelope in 2026-07-28) and completes @task (taken) with its result
 * object; @params is taken. */
void
snodo_client_start_request (SnodoClient  *self,
                            const char   *method,
                            JsonObject   *params,
                            GCancellable *cancellable,
                            GTask        *task)
{
  if (self->state != STATE_READY)
    {
      g_task_return_new_error (task, G_IO_ERROR,
                               self->state == STATE_CLOSED ? G_IO_ERROR_CLOSED : G_IO_ERROR_NOT_CONNECTED,
                               self->state == STATE_CLOSED ? _("The connection to the server is closed")
                                                           : _("The client is not connected"));
      g_object_unref (task);
      if (params != NULL)
        json_object_unref (params);
      return;
    }
  snodo_client_send_request (self, method, params,
                             snodo_protocol_version_is_stateless (self->protocol_version),
                             self->request_timeout, cancellable, task);
}

/* Receiving. */

static void
snodo_client_handle_response (SnodoClient *self,
                              SnodoFrame  *frame)
{
  JsonObject *message = json_node_get_object (frame->message);
  Pending *pending;

  pending = snodo_client_take_pending (self, frame->key);
  if (pending == NULL)
    {
      /* Late: cancelled, timed out, or not ours. */
      g_debug ("A response to %s, which awaits none, is ignored", frame->key);
      return;
    }

  if (G_UNLIKELY (pending->span != NULL))
    snodo_client_trace_response (g_steal_pointer (&pending->span), message, NULL);
  if (pending->raw)
    {
      JsonObject *answer = json_object_new ();
      const char *member = json_object_has_member (message, "error") ? "error" : "result";
      JsonNode *node = json_object_get_member (message, member);

      if (node != NULL)
        json_object_set_member (answer, member, json_node_copy (node));
      else
        json_object_set_object_member (answer, "result", json_object_new ());
      g_task_return_pointer (pending->task, answer, (GDestroyNotify) json_object_unref);
      pending_free (pending);
      return;
    }

  if (json_object_has_member (message, "error"))
    {
      JsonObject *error = json_object_get_object_member (message, "error");
      const char *text = snodo_json_object_get_string (error, "message");
      int code = (int) json_object_get_int_member (error, "code");
      JsonNode *data = json_object_get_member (error, "data");
      g_autoptr(GString) supported = NULL;

      if (data != NULL && JSON_NODE_HOLDS_OBJECT (data) &&
          json_object_has_member (json_node_get_object (data), "supported") &&
          JSON_NODE_HOLDS_ARRAY (json_object_get_member (json_node_get_object (data), "supported")))
        {
          JsonArray *array = json_object_get_array_member (json_node_get_object (data), "supported");

          supported = g_string_new (NULL);
          for (guint i = 0; i < json_array_get_length (array); i++)
            {
              JsonNode *element = json_array_get_element (array, i);

              if (snodo_json_node_is_string (element))
                g_string_append_printf (supported, "%s%s", supported->len > 0 ? ", " : "",
                                        json_node_get_string (element));
            }
        }
      if (code == SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED && data != NULL && JSON_NODE_HOLDS_OBJECT (data) &&
          json_object_has_member (json_node_get_object (data), "elicitations") &&
          JSON_NODE_HOLDS_ARRAY (json_object_get_member (json_node_get_object (data), "elicitations")) &&
          !pending->envelope)
        snodo_client_url_required (self, pending->method, pending->params, pending->cancellable,
                                   g_steal_pointer (&pending->task),
                                   json_object_get_array_member (json_node_get_object (data), "elicitations"),
                                   text != NULL ? text : _("Unknown error"));
      else if (supported != NULL)
        g_task_return_new_error (pending->task, SNODO_RPC_ERROR, code,
                                 _("%s (the server supports %s)"),
                                 text != NULL ? text : _("Unknown error"), supported->str);
      else
        g_task_return_new_error (pending->task, SNODO_RPC_ERROR, code, "%s",
                                 text != NULL ? text : _("Unknown error"));
    }
  else
    {
      JsonObject *result = json_object_get_object_member (message, "result");
      const char *result_type = snodo_json_object_get_string (result, "resultType");

      if (result_type != NULL && g_str_equal (result_type, "input_required") && pending->envelope)
        snodo_client_input_required (self, pending->method, pending->params, pending->cancellable,
                                     g_steal_pointer (&pending->task), result);
      else if (result_type != NULL && !g_str_equal (result_type, "complete") &&
               !(g_str_equal (result_type, "task") &&
                 g_object_get_data (G_OBJECT (pending->task), "snodo-takes-task") != NULL))
        g_task_return_new_error (pending->task, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED,
                                 _("The server answered %s with a result of type %s, which this client does not handle"),
                                 pending->method, result_type);
      else
        g_task_return_pointer (pending->task, json_object_ref (result),
                               (GDestroyNotify) json_object_unref);
    }
  pending_free (pending);
}

static Pending *
snodo_client_find_by_token (SnodoClient *self,
                            JsonNode    *token)
{
  g_autofree char *key = NULL;

  if (token == NULL || JSON_NODE_TYPE (token) != JSON_NODE_VALUE)
    return NULL;
  key = snodo_frame_id_key (token);
  if (key == NULL)
    return NULL;
  return g_hash_table_lookup (self->pending, key);
}

static void
snodo_client_handle_notification (SnodoClient *self,
                                  SnodoFrame  *frame)
{
  JsonObject *params = frame->params;
  g_autoptr(JsonObject) empty = NULL;

  if (params == NULL)
    params = empty = json_object_new ();

  if (g_str_equal (frame->method, "notifications/progress"))
    {
      Pending *pending = snodo_client_find_by_token (self, json_object_get_member (params, "progressToken"));
      JsonNode *progress = json_object_get_member (params, "progress");
      JsonNode *total = json_object_get_member (params, "total");

      if (pending != NULL && snodo_json_node_is_number (progress))
        {
          g_autoptr(JsonObject) request = json_object_new ();
          double value = json_node_get_double (progress);
          double goal = snodo_json_node_is_number (total) ? json_node_get_double (total) : -1.0;
          const char *message = snodo_json_object_get_string (params, "message");

          json_object_set_int_member (request, "id", pending->id);
          json_object_set_string_member (request, "method", pending->method);
          json_object_set_object_member (request, "params", json_object_ref (pending->params));
          g_signal_emit (self, request_progress_signal, g_quark_from_string (pending->method),
                         request, value, goal, message);
          /* A handler may have ended the request (cancelled it, closed
           * the client): the method is not the pending's any more. */
          g_signal_emit (self, snodo_client_signals[SIGNAL_PROGRESS], 0,
                         json_object_get_string_member (request, "method"), value, goal, message);
        }
    }
  else if (g_str_equal (frame->method, "notifications/message"))
    {
      const char *level = snodo_json_object_get_string (params, "level");

      if (level != NULL)
        g_signal_emit (self, snodo_client_signals[SIGNAL_LOG_MESSAGE], 0,
                       level,
                       snodo_json_object_get_string (params, "logger"),
                       json_object_get_member (params, "data"));
    }

  snodo_client_task_notification (self, frame->method, params);

  g_signal_emit (self, snodo_client_signals[SIGNAL_NOTIFICATION], g_quark_from_string (frame->method),
                 frame->method, params);
}

void
snodo_client_send_response (SnodoClient *self,
                            JsonNode    *id,
                            JsonObject  *result,
                            int          code,
                            const char  *message)
{
  if (result != NULL)
    {
      g_autoptr(JsonNode) node = snodo_json_node_take_object (json_object_ref (result));

      snodo_client_send_line (self, snodo_frame_encode_result (id, node));
    }
  else
    snodo_client_send_line (self, snodo_frame_encode_error (id, code, message, NULL));
}

/* A request of the server (initialize era): ping, or one for the
 * application (snodo-client-input.c). */
static void
snodo_client_handle_request (SnodoClient *self,
                             SnodoFrame  *frame)
{
  snodo_client_handle_server_request (self, frame->method, frame->id, frame->params);
}

static void
snodo_client_line_cb (SnodoLineFramerEvent  event,
                      const char           *line,
                      gsize                 len,
                      gpointer              user_data)
{
  SnodoClient *self = user_data;

  if (self->state == STATE_CLOSED)
    return;

  if (event == SNODO_LINE_FRAMER_OVERSIZED)
    {
      g_autoptr(GError) error = NULL;
      /* A string for the number: gettext cannot see through G_GUINT64_FORMAT. */
      g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, self->max_line_bytes);

      error = g_error_new (G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                           _("The server sent a message larger than %s bytes"), limit);
      snodo_client_fail (self, error);
      return;
    }

  snodo_client_receive (self, line, len);
}

void
snodo_client_receive (SnodoClient *self,
                      const char  *data,
                      gsize        len)
{
  g_auto(SnodoFrame) frame = { 0, };

  if (self->state == STATE_CLOSED)
    return;
  snodo_frame_decode (data, len, &frame);
  switch (frame.kind)
    {
    case SNODO_FRAME_RESPONSE:
      snodo_client_handle_response (self, &frame);
      break;

    case SNODO_FRAME_NOTIFICATION:
      snodo_client_handle_notification (self, &frame);
      break;

    case SNODO_FRAME_REQUEST:
      snodo_client_handle_request (self, &frame);
      break;

    case SNODO_FRAME_ERROR:
    case SNODO_FRAME_DROP:
      g_debug ("A message from the server is not one: %s", frame.error_message);
      break;

    case SNODO_FRAME_IGNORE:
    default:
      break;
    }
}

gboolean
snodo_client_is_pending (SnodoClient *self,
                         const char  *key)
{
  return key != NULL && g_hash_table_contains (self->pending, key);
}

gboolean
snodo_client_fail_request (SnodoClient  *self,
                           const char   *key,
                           const GError *error)
{
  Pending *pending = snodo_client_take_pending (self, key);

  if (pending == NULL)
    return FALSE;
  g_task_return_error (pending->task, g_error_copy (error));
  pending_free (pending);
  return TRUE;
}

static void
snodo_client_read_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(SnodoClient) self = user_data;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  self->reading = FALSE;
  if (self->state == STATE_CLOSED)
    return;
  if (bytes == NULL)
    {
      g_prefix_error (&error, "%s", _("Reading from the server failed: "));
      snodo_client_fail (self, error);
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      snodo_line_framer_finish (self->framer, snodo_client_line_cb, self);
      if (self->state != STATE_CLOSED)
        {
          error = g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The server closed its output"));
          snodo_client_fail (self, error);
        }
      return;
    }

  snodo_line_framer_push (self->framer, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                          snodo_client_line_cb, self);
  snodo_client_read (self);
}

void
snodo_client_read (SnodoClient *self)
{
  if (self->reading || self->state == STATE_CLOSED || self->http != NULL)
    return;
  self->reading = TRUE;
  g_input_stream_read_bytes_async (self->input, CLIENT_READ_SIZE, G_PRIORITY_DEFAULT,
                                   self->read_cancellable, snodo_client_read_cb,
                                   g_object_ref (self));
}

/* Entry: any state. Ends the connection: nothing more is written or read,
 * and every pending request fails with a copy of @error. */
void
snodo_client_stop (SnodoClient  *self,
                   const GError *error)
{
  g_autoptr(GList) values = NULL;
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  if (self->state == STATE_CLOSED)
    return;
  self->state = STATE_CLOSED;
  g_cancellable_cancel (self->read_cancellable);
  g_clear_pointer (&self->write_deadline, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->writer, snodo_writer_abandon);
  g_clear_pointer (&self->in_flight, g_ptr_array_unref);
  g_queue_clear_full (&self->out, (GDestroyNotify) g_bytes_unref);
#if SNODO_HAS_HTTP_TRANSPORT
  if (self->http != NULL)
    snodo_client_http_stop (self);
#endif

  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      values = g_list_prepend (values, value);
      g_hash_table_iter_steal (&iter);
      g_free (key);
    }
  for (GList *l = values; l != NULL; l = l->next)
    {
      Pending *pending = l->data;

      g_task_return_error (pending->task, g_error_copy (error));
      pending_free (pending);
    }
}

/* Entry: any state. A failure of the connection. */
void
snodo_client_fail (SnodoClient  *self,
                   const GError *error)
{
  if (self->state == STATE_CLOSED)
    return;
  g_object_ref (self);
  snodo_client_stop (self, error);
  g_signal_emit (self, snodo_client_signals[SIGNAL_CLOSED], 0, error);
  g_object_unref (self);
}
