/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

typedef struct
{
  SnodoConnection *connection;
  char            *related;
  GBytes          *line;
  SnodoSendFunc    func;
  gpointer         user_data;
  GError          *error;
} SendState;

static void
send_state_free (SendState *state)
{
  g_clear_pointer (&state->connection, snodo_connection_unref);
  g_clear_pointer (&state->line, g_bytes_unref);
  g_clear_pointer (&state->related, g_free);
  g_clear_error (&state->error);
  g_free (state);
}

/* A request this server sent to a client (2025 era). */
typedef struct
{
  SnodoConnection *connection;
  /* How long the client may take to answer, in milliseconds. */
  guint            timeout;
  /* The key of the client request this one is made for. */
  char            *related;
  GTask           *task;
  char            *method;
  JsonNode        *params;
  JsonNode        *id;
  char            *key;
  GCancellable    *cancellable;
  GSource         *timeout_source;
  GSource         *cancel_source;
} Outgoing;

struct _SnodoDeadline
{
  /* Monotonic time, in microseconds. */
  gint64             ready_time;
  /* Not referenced: the target removes its deadline before it goes away. */
  GObject           *target;
  SnodoDeadlineFunc  func;
  GList              link;
};

typedef struct
{
  GSource          source;
  SnodoConnection *connection;
} DeadlineSource;

/* Entry: on the connection's context, at (or after) the earliest deadline
 * it was armed for. Fires every deadline that passed, each with a strong
 * reference to its target, then arms itself for the next one. */
static gboolean
deadline_source_dispatch (GSource     *source,
                          GSourceFunc  callback,
                          gpointer     user_data)
{
  SnodoConnection *self = ((DeadlineSource *) source)->connection;
  g_autoptr(GArray) due = g_array_new (FALSE, FALSE, sizeof (SnodoDeadline));
  gint64 now = g_source_get_time (source);
  SnodoDeadline *deadline;

  g_mutex_lock (&self->deadline_lock);
  while ((deadline = g_queue_peek_head (&self->deadlines)) != NULL && deadline->ready_time <= now)
    {
      g_queue_unlink (&self->deadlines, &deadline->link);
      /* Its target is alive: it removes its deadline, under this lock,
       * before it goes. Copied, as the target may free it from now on. */
      g_object_ref (deadline->target);
      g_array_append_val (due, *deadline);
    }
  g_source_set_ready_time (source, deadline != NULL ? deadline->ready_time : -1);
  g_mutex_unlock (&self->deadline_lock);

  for (guint i = 0; i < due->len; i++)
    {
      SnodoDeadline *fired = &g_array_index (due, SnodoDeadline, i);

      fired->func (fired->target);
      g_object_unref (fired->target);
    }

  return G_SOURCE_CONTINUE;
}

static GSourceFuncs deadline_source_funcs = {
  .dispatch = deadline_source_dispatch,
};

/* Calls @func with @target at @ready_time (monotonic, µs) on the
 * connection's context, unless the deadline is removed first. @target must
 * remove it (snodo_connection_remove_deadline()) before it is finalized,
 * and frees it that way once it fired too. Any thread. */
SnodoDeadline *
snodo_connection_add_deadline (SnodoConnection   *self,
                               gint64             ready_time,
                               GObject           *target,
                               SnodoDeadlineFunc  func)
{
  SnodoDeadline *deadline = g_new0 (SnodoDeadline, 1);
  GList *after;

  deadline->ready_time = ready_time;
  deadline->target = target;
  deadline->func = func;
  deadline->link.data = deadline;

  g_mutex_lock (&self->deadline_lock);
  if (self->deadline_source == NULL)
    {
      self->deadline_source = g_source_new (&deadline_source_funcs, sizeof (DeadlineSource));
      ((DeadlineSource *) self->deadline_source)->connection = self;
      g_source_set_static_name (self->deadline_source, "[snodo] connection deadlines");
      g_source_attach (self->deadline_source, self->context);
    }
  /* Usually the latest of all: look from the end. */
  for (after = self->deadlines.tail; after != NULL; after = after->prev)
    if (((SnodoDeadline *) after->data)->ready_time <= ready_time)
      break;
  if (after != NULL)
    g_queue_insert_after_link (&self->deadlines, after, &deadline->link);
  else
    g_queue_push_head_link (&self->deadlines, &deadline->link);
  /* Woken only when this one is earlier than what it waits for. */
  if (g_source_get_ready_time (self->deadline_source) < 0 ||
      g_source_get_ready_time (self->deadline_source) > ready_time)
    g_source_set_ready_time (self->deadline_source, ready_time);
  g_mutex_unlock (&self->deadline_lock);

  return deadline;
}

/* Removes and frees @deadline, fired or not. Any thread. */
void
snodo_connection_remove_deadline (SnodoConnection *self,
                                  SnodoDeadline   *deadline)
{
  g_mutex_lock (&self->deadline_lock);
  if (deadline->link.prev != NULL || deadline->link.next != NULL || self->deadlines.head == &deadline->link)
    g_queue_unlink (&self->deadlines, &deadline->link);
  g_mutex_unlock (&self->deadline_lock);
  g_free (deadline);
}

SnodoConnection *
snodo_connection_new (const SnodoConnectionVTable *vtable,
                      gpointer                     transport,
                      GObject                     *owner,
                      SnodoExecutor               *executor,
                      GMainContext                *context)
{
  SnodoConnection *self = g_new0 (SnodoConnection, 1);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  g_mutex_init (&self->deadline_lock);
  self->vtable = vtable;
  self->transport = transport;
  self->owner = owner;
  self->executor = g_object_ref (executor);
  self->context = g_main_context_ref (context);
  self->persistent = TRUE;
  self->resource_subscriptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->outgoing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->subscriptions = g_ptr_array_new ();
  self->next_outgoing_id = 1;
  return self;
}

SnodoConnection *
snodo_connection_ref (SnodoConnection *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
snodo_connection_unref (SnodoConnection *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_mutex_clear (&self->lock);
  g_warn_if_fail (g_queue_is_empty (&self->deadlines));
  g_clear_pointer (&self->deadline_source, snodo_source_destroy_and_unref);
  g_mutex_clear (&self->deadline_lock);
  g_clear_pointer (&self->client_capabilities, json_object_unref);
  g_clear_pointer (&self->resource_subscriptions, g_hash_table_unref);
  g_clear_pointer (&self->outgoing, g_hash_table_unref);
  g_clear_pointer (&self->subscriptions, g_ptr_array_unref);
  g_clear_pointer (&self->auth, snodo_auth_info_unref);
  g_clear_object (&self->executor);
  g_clear_object (&self->stream_executor);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self);
}

void
snodo_connection_set_persistent (SnodoConnection *self,
                                 gboolean         persistent)
{
  self->persistent = !!persistent;
}

void
snodo_connection_set_stream_executor (SnodoConnection *self,
                                      SnodoExecutor   *executor)
{
  g_set_object (&self->stream_executor, executor);
}

void
snodo_connection_set_streams_resumable (SnodoConnection *self,
                                        gboolean         resumable)
{
  self->streams_resumable = !!resumable;
}

/* Called by the transport, on the context, when it goes away or ends. */
void
snodo_connection_detach (SnodoConnection *self)
{
  g_mutex_lock (&self->lock);
  self->transport = NULL;
  g_mutex_unlock (&self->lock);
}

static gboolean
snodo_connection_send_cb (gpointer data)
{
  SendState *state = data;
  SnodoConnection *self = state->connection;
  gpointer transport;

  /* Only the context detaches, so the transport cannot go away between this
   * check and the call below. */
  g_mutex_lock (&self->lock);
  transport = self->transport;
  g_mutex_unlock (&self->lock);

  /* Counted out before the transport sees the line, so that a transport
   * draining its output finds it either here or in its own queue. */
  g_atomic_int_dec_and_test (&self->n_in_transit);

  if (transport == NULL)
    {
      state->error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                          _("The connection is closed"));
      if (state->func != NULL)
        state->func (state->error, state->user_data);
      return G_SOURCE_REMOVE;
    }

  self->vtable->send (transport, state->related, g_steal_pointer (&state->line), state->func, state->user_data);
  return G_SOURCE_REMOVE;
}

/*
 * Hands @line to the transport on the connection's context. @func is called
 * there once, after the line was written or could not be. Safe from any
 * thread; never calls @func synchronously (the transport's send does not
 * either).
 */
void
snodo_connection_send (SnodoConnection *self,
                       GBytes          *line,
                       SnodoSendFunc    func,
                       gpointer         user_data)
{
  snodo_connection_send_related (self, NULL, line, func, user_data);
}

/* Like snodo_connection_send(), for a line that belongs to the client
 * request whose key is @related. */
void
snodo_connection_send_related (SnodoConnection *self,
                               const char      *related,
                               GBytes          *line,
                               SnodoSendFunc    func,
                               gpointer         user_data)
{
  SendState *state;
  GSource *source;

  /* On the connection's own thread the line goes to the transport at
   * once: the transport only queues it, so this is not re-entrant for the
   * caller, and it saves a main-loop iteration on every answer. */
  if (g_main_context_is_owner (self->context))
    {
      gpointer transport;

      g_mutex_lock (&self->lock);
      transport = self->transport;
      g_mutex_unlock (&self->lock);
      if (transport != NULL)
        {
          self->vtable->send (transport, related, g_bytes_ref (line), func, user_data);
          return;
        }
    }

  state = g_new0 (SendState, 1);
  g_atomic_int_inc (&self->n_in_transit);
  state->connection = snodo_connection_ref (self);
  state->related = g_strdup (related);
  state->line = g_bytes_ref (line);
  state->func = func;
  state->user_data = user_data;

  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] connection send");
  g_source_set_callback (source, snodo_connection_send_cb, state, (GDestroyNotify) send_state_free);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

typedef struct
{
  SnodoConnection *connection;
  char            *related;
} CloseState;

static void
close_state_free (CloseState *state)
{
  snodo_connection_unref (state->connection);
  g_free (state->related);
  g_free (state);
}

static gboolean
snodo_connection_close_stream_cb (gpointer data)
{
  CloseState *state = data;
  SnodoConnection *self = state->connection;
  gpointer transport;

  g_mutex_lock (&self->lock);
  transport = self->transport;
  g_mutex_unlock (&self->lock);
  if (transport != NULL)
    self->vtable->close_stream (transport, state->related);
  return G_SOURCE_REMOVE;
}

/* Asks the transport to close the stream that carries the answer of the
 * client request @related, after the lines sent for it so far: on the
 * context at once, as a send is, or from another thread by the same road
 * as the sends before it (an idle of the same priority), so that it comes
 * after them. FALSE when the connection's streams cannot be resumed. */
gboolean
snodo_connection_close_stream (SnodoConnection *self,
                               const char      *related)
{
  CloseState *state;
  GSource *source;

  if (!self->streams_resumable || self->vtable->close_stream == NULL)
    return FALSE;

  if (g_main_context_is_owner (self->context) && g_atomic_int_get (&self->n_in_transit) == 0)
    {
      gpointer transport;

      g_mutex_lock (&self->lock);
      transport = self->transport;
      g_mutex_unlock (&self->lock);
      if (transport != NULL)
        self->vtable->close_stream (transport, related);
      return TRUE;
    }

  state = g_new0 (CloseState, 1);
  state->connection = snodo_connection_ref (self);
  state->related = g_strdup (related);
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] connection close stream");
  g_source_set_callback (source, snodo_connection_close_stream_cb, state, (GDestroyNotify) close_state_free);
  g_source_attach (source, self->context);
  g_source_unref (source);
  return TRUE;
}

/* Sends handed to snodo_connection_send() that have not reached the
 * transport yet. */
guint
snodo_connection_get_n_in_transit (SnodoConnection *self)
{
  return (guint) g_atomic_int_get (&self->n_in_transit);
}

/* On the context: an initialize result negotiating @version is about to be
 * sent; the transport records it. */
void
snodo_connection_negotiated (SnodoConnection      *self,
                             SnodoProtocolVersion  version)
{
  gpointer transport;

  g_mutex_lock (&self->lock);
  transport = self->transport;
  g_mutex_unlock (&self->lock);

  if (transport != NULL && self->vtable->negotiated != NULL)
    self->vtable->negotiated (transport, version);
}

/* The client's capabilities from initialize, or NULL. Any thread. */
JsonObject *
snodo_connection_dup_client_capabilities (SnodoConnection *self)
{
  JsonObject *capabilities;

  g_mutex_lock (&self->lock);
  capabilities = self->client_capabilities ? json_object_ref (self->client_capabilities) : NULL;
  g_mutex_unlock (&self->lock);
  return capabilities;
}

void
snodo_connection_set_client_capabilities (SnodoConnection *self,
                                          JsonObject      *capabilities)
{
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->client_capabilities, json_object_unref);
  if (capabilities != NULL)
    {
      self->client_capabilities = json_object_ref (capabilities);
      json_object_seal (self->client_capabilities);
    }
  g_mutex_unlock (&self->lock);
}

/* ---- Requests to the client (2025 era) -------------------------------- */

static void
outgoing_free (Outgoing *outgoing)
{
  g_clear_pointer (&outgoing->timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&outgoing->cancel_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&outgoing->connection, snodo_connection_unref);
  g_clear_object (&outgoing->task);
  g_clear_object (&outgoing->cancellable);
  g_clear_pointer (&outgoing->method, g_free);
  g_clear_pointer (&outgoing->related, g_free);
  g_clear_pointer (&outgoing->params, json_node_unref);
  g_clear_pointer (&outgoing->id, json_node_unref);
  g_clear_pointer (&outgoing->key, g_free);
  g_free (outgoing);
}

/* Takes @outgoing out of its connection's table; FALSE if it was gone. */
static gboolean
outgoing_take (Outgoing *outgoing)
{
  SnodoConnection *connection = outgoing->connection;
  gboolean found;

  if (outgoing->key == NULL)
    return TRUE;
  g_mutex_lock (&connection->lock);
  found = g_hash_table_lookup (connection->outgoing, outgoing->key) == outgoing;
  if (found)
    g_hash_table_remove (connection->outgoing, outgoing->key);
  g_mutex_unlock (&connection->lock);
  return found;
}

/* The request will not be answered: tells the client so, and fails. */
static void
outgoing_abandon (Outgoing   *outgoing,
                  GError     *error,
                  const char *reason)
{
  if (reason != NULL)
    {
      JsonObject *params = json_object_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GBytes) line = NULL;

      json_object_set_member (params, "requestId", json_node_copy (outgoing->id));
      json_object_set_string_member (params, "reason", reason);
      node = snodo_json_node_take_object (params);
      line = snodo_frame_encode_notification ("notifications/cancelled", node);
      snodo_connection_send_related (outgoing->connection, outgoing->related, line, NULL, NULL);
    }
  g_task_return_error (outgoing->task, error);
  outgoing_free (outgoing);
}

static gboolean
outgoing_timeout_cb (gpointer user_data)
{
  Outgoing *outgoing = user_data;

  g_clear_pointer (&outgoing->timeout_source, g_source_unref);
  if (!outgoing_take (outgoing))
    return G_SOURCE_REMOVE;
  outgoing_abandon (outgoing,
                    g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                 _("The client did not answer %s within %u ms"),
                                 outgoing->method, outgoing->timeout),
                    "timed out");
  return G_SOURCE_REMOVE;
}

static gboolean
outgoing_cancelled_cb (GCancellable *cancellable,
                       gpointer      user_data)
{
  Outgoing *outgoing = user_data;

  g_clear_pointer (&outgoing->cancel_source, g_source_unref);
  if (!outgoing_take (outgoing))
    return G_SOURCE_REMOVE;
  outgoing_abandon (outgoing,
                    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The request was cancelled")),
                    "cancelled");
  return G_SOURCE_REMOVE;
}

static gboolean
outgoing_start_cb (gpointer user_data)
{
  Outgoing *outgoing = user_data;
  SnodoConnection *connection = outgoing->connection;
  g_autoptr(GBytes) line = NULL;
  gboolean attached;

  g_mutex_lock (&connection->lock);
  attached = connection->transport != NULL && !connection->ending;
  if (attached)
    {
      outgoing->id = json_node_init_int (json_node_alloc (), connection->next_outgoing_id++);
      outgoing->key = snodo_frame_id_key (outgoing->id);
      g_hash_table_insert (connection->outgoing, g_strdup (outgoing->key), outgoing);
    }
  g_mutex_unlock (&connection->lock);

  if (!attached)
    {
      outgoing_abandon (outgoing,
                        g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The connection is closed")),
                        NULL);
      return G_SOURCE_REMOVE;
    }

  outgoing->timeout_source = g_timeout_source_new (outgoing->timeout);
  g_source_set_callback (outgoing->timeout_source, outgoing_timeout_cb, outgoing, NULL);
  g_source_attach (outgoing->timeout_source, connection->context);
  if (outgoing->cancellable != NULL)
    {
      outgoing->cancel_source = g_cancellable_source_new (outgoing->cancellable);
      g_source_set_callback (outgoing->cancel_source, G_SOURCE_FUNC (outgoing_cancelled_cb), outgoing, NULL);
      g_source_attach (outgoing->cancel_source, connection->context);
    }

  line = snodo_frame_encode_request (outgoing->id, outgoing->method, outgoing->params);
  snodo_connection_send_related (connection, outgoing->related, line, NULL, NULL);
  return G_SOURCE_REMOVE;
}

void
snodo_connection_request_input (SnodoConnection *connection,
                                const char      *related,
                                const char      *method,
                                JsonNode        *params,
                                GCancellable    *cancellable,
                                guint            timeout,
                                GTask           *task)
{
  Outgoing *outgoing = g_new0 (Outgoing, 1);
  GCancellable *task_cancellable = g_task_get_cancellable (task);

  outgoing->connection = snodo_connection_ref (connection);
  outgoing->timeout = timeout;
  outgoing->task = task;
  outgoing->related = g_strdup (related);
  outgoing->method = g_strdup (method);
  outgoing->params = params ? json_node_copy (params) : NULL;
  /* Either the caller's cancellable or the request's ends the wait. */
  if (task_cancellable != NULL && cancellable != NULL)
    {
      outgoing->cancellable = g_cancellable_new ();
      g_signal_connect_object (task_cancellable, "cancelled", G_CALLBACK (g_cancellable_cancel),
                               outgoing->cancellable, G_CONNECT_SWAPPED);
      g_signal_connect_object (cancellable, "cancelled", G_CALLBACK (g_cancellable_cancel),
                               outgoing->cancellable, G_CONNECT_SWAPPED);
      if (g_cancellable_is_cancelled (task_cancellable) || g_cancellable_is_cancelled (cancellable))
        g_cancellable_cancel (outgoing->cancellable);
    }
  else if (task_cancellable != NULL || cancellable != NULL)
    outgoing->cancellable = g_object_ref (task_cancellable ? task_cancellable : cancellable);

  g_main_context_invoke_full (connection->context, G_PRIORITY_DEFAULT, outgoing_start_cb, outgoing, NULL);
}

gboolean
snodo_connection_awaits (SnodoConnection *self,
                         const char      *key)
{
  gboolean found;

  g_return_val_if_fail (key != NULL, FALSE);

  g_mutex_lock (&self->lock);
  found = g_hash_table_contains (self->outgoing, key);
  g_mutex_unlock (&self->lock);
  return found;
}

/* On the context: a response from the client to one of our requests. */
void
snodo_connection_handle_response (SnodoConnection *connection,
                                  SnodoFrame      *frame)
{
  JsonObject *message = json_node_get_object (frame->message);
  Outgoing *outgoing;

  g_mutex_lock (&connection->lock);
  outgoing = frame->key ? g_hash_table_lookup (connection->outgoing, frame->key) : NULL;
  if (outgoing != NULL)
    g_hash_table_remove (connection->outgoing, frame->key);
  g_mutex_unlock (&connection->lock);

  if (outgoing == NULL)
    {
      g_debug ("Ignored a response to no request of ours (%s)", frame->key);
      return;
    }

  if (frame->has_nul)
    g_task_return_new_error (outgoing->task, SNODO_ERROR, SNODO_ERROR_CLIENT_ERROR,
                             _("The client answered %s with a string that holds U+0000"), outgoing->method);
  else if (json_object_has_member (message, "result"))
    g_task_return_pointer (outgoing->task, json_node_copy (json_object_get_member (message, "result")),
                           (GDestroyNotify) json_node_unref);
  else
    {
      JsonObject *error = json_object_get_object_member (message, "error");
      const char *text = snodo_json_object_get_string (error, "message");

      /* Not our protocol error: a handler that passes it on reports a
       * failure of its own (for a tool, a failed result). */
      g_task_return_new_error (outgoing->task, SNODO_ERROR, SNODO_ERROR_CLIENT_ERROR,
                               _("The client answered %s with error %d: %s"),
                               outgoing->method, (int) json_object_get_int_member (error, "code"),
                               text != NULL ? text : "");
    }
  outgoing_free (outgoing);
}

/* Fails every request the server sent on @connection that is unanswered. */
void
snodo_connection_fail_requests (SnodoConnection *connection,
                                const char      *message)
{
  g_autoptr(GList) pending = NULL;

  g_mutex_lock (&connection->lock);
  pending = g_hash_table_get_values (connection->outgoing);
  /* Frees the keys; the requests are ours to fail. */
  g_hash_table_remove_all (connection->outgoing);
  g_mutex_unlock (&connection->lock);
  for (GList *l = pending; l != NULL; l = l->next)
    outgoing_abandon (l->data, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, message), NULL);
}
