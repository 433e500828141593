/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy URL | -- COMMAND [ARG…]: an MCP server on standard input
 * and output that forwards what its client says to another server, at URL
 * (Streamable HTTP) or started with COMMAND (stdio), and what that server
 * says back.
 *
 * The messages are forwarded as they are, not understood: a request of
 * any method, the server's own too, goes through SnodoClient's
 * snodo_client_forward_async() with its params untouched (its 2026-07-28
 * envelope, its progress token), and its answer comes back whole (a result
 * of any type, input_required too, or an error with its data). The proxy
 * only steps in where the two connections differ:
 *
 * - the remote connection is set up by SnodoClient, in the era the local
 *   client chose with its first message: initialize (the version it asks,
 *   its capabilities), answered with what the server answered; or a
 *   request with the 2026-07-28 envelope;
 * - ids: each side's requests keep their own ids on each connection, and
 *   notifications/cancelled names the request on the other connection;
 * - what the server asks of the client in the initialize era
 *   (elicitation/create, sampling/createMessage, roots/list) is asked of
 *   the local client under an id of the proxy's, and its answer handed
 *   back.
 *
 * When the server speaks only the other era, snodo-proxy-eras.c maps
 * between the two.
 *
 * At the end of standard input the requests in flight are answered, the
 * remote connection is closed (a child server ends with it, and never
 * outlives the proxy: SnodoClient sees to that), and the proxy exits. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <snodo/snodo.h>

#ifdef G_OS_UNIX
# include <signal.h>
# include <glib-unix.h>
# include <gio/gunixinputstream.h>
# include <gio/gunixoutputstream.h>
#elif defined(G_OS_WIN32)
# include "snodo-stdio-win32-private.h"
#endif

#include "snodo-cli.h"
#include "snodo-proxy.h"

static void proxy_read (Proxy *proxy);
static void proxy_connect (Proxy *proxy, SnodoProtocolVersion version, JsonObject *capabilities);


void
forward_free (Forward *forward)
{
  g_free (forward->key);
  g_free (forward->method);
  json_node_unref (forward->id);
  g_object_unref (forward->cancellable);
  g_free (forward);
}

/* The key of a JSON-RPC id, which tells 1 from "1"; NULL when @id is no
 * usable id. */
char *
proxy_id_key (JsonNode *id)
{
  if (id == NULL || JSON_NODE_TYPE (id) != JSON_NODE_VALUE)
    return NULL;
  if (json_node_get_value_type (id) == G_TYPE_STRING)
    return g_strconcat ("s:", json_node_get_string (id), NULL);
  if (json_node_get_value_type (id) == G_TYPE_INT64)
    return g_strdup_printf ("i:%" G_GINT64_FORMAT, json_node_get_int (id));
  return NULL;
}

JsonObject *
object_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* Writing to the local client. */

static void
proxy_written_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Proxy *proxy = user_data;
  g_autoptr(GError) error = NULL;
  GBytes *line;

  proxy->writing = FALSE;
  line = g_queue_pop_head (&proxy->out);
  g_bytes_unref (line);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      /* The local client is gone: nothing more can reach it. */
      g_printerr ("snodo: %s\n", error->message);
      proxy->status = 1;
      proxy->output_failed = TRUE;
      g_queue_clear_full (&proxy->out, (GDestroyNotify) g_bytes_unref);
      proxy->eof = TRUE;
    }
  else if (!g_queue_is_empty (&proxy->out))
    {
      GBytes *next = g_queue_peek_head (&proxy->out);

      proxy->writing = TRUE;
      g_output_stream_write_all_async (proxy->output, g_bytes_get_data (next, NULL), g_bytes_get_size (next),
                                       G_PRIORITY_DEFAULT, NULL, proxy_written_cb, proxy);
      return;
    }
  proxy_maybe_finish (proxy);
}

/* Sends @message (taken) to the local client, as one line. */
void
proxy_send (Proxy      *proxy,
            JsonObject *message)
{
  g_autoptr(JsonObject) owned = message;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  GBytes *line;

  if (proxy->output_failed)
    return;
  if (proxy->sink != NULL)
    {
      proxy->sink (proxy->front, g_steal_pointer (&owned));
      return;
    }
  json_node_set_object (node, owned);
  json_generator_set_root (generator, node);
  json_generator_to_gstring (generator, text);
  g_string_append_c (text, '\n');
  line = g_string_free_to_bytes (g_steal_pointer (&text));
  g_queue_push_tail (&proxy->out, line);
  if (!proxy->writing)
    {
      proxy->writing = TRUE;
      g_output_stream_write_all_async (proxy->output, g_bytes_get_data (line, NULL), g_bytes_get_size (line),
                                       G_PRIORITY_DEFAULT, NULL, proxy_written_cb, proxy);
    }
}

JsonObject *
message_new (JsonNode *id)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "jsonrpc", "2.0");
  if (id != NULL)
    json_object_set_member (message, "id", json_node_copy (id));
  return message;
}

void
proxy_send_error (Proxy      *proxy,
                  JsonNode   *id,
                  int         code,
                  const char *text,
                  JsonObject *data)
{
  JsonObject *message = message_new (NULL);
  JsonObject *error = json_object_new ();

  if (id != NULL)
    json_object_set_member (message, "id", json_node_copy (id));
  else
    json_object_set_null_member (message, "id");
  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", text);
  if (data != NULL)
    json_object_set_object_member (error, "data", data);
  json_object_set_object_member (message, "error", error);
  proxy_send (proxy, message);
}

/* The end. */

static void
proxy_release (Proxy *proxy)
{
  if (proxy->released)
    return;
  proxy->released = TRUE;
  if (proxy->released_func != NULL)
    proxy->released_func (proxy->front);
  else
    g_application_release (proxy->app);
}

static void
proxy_closed_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Proxy *proxy = user_data;

  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_clear_object (&proxy->client);
  proxy_maybe_finish (proxy);
}

/* Once standard input has ended and every request of the local client is
 * answered: closes the remote connection, writes what is left, and lets
 * the program end. */
void
proxy_maybe_finish (Proxy *proxy)
{
  GHashTableIter iter;
  gpointer value;

  if (!proxy->eof)
    return;
  /* Nobody is left to answer what the server asks: a request in flight
   * that waits for it may then end. */
  if (g_hash_table_size (proxy->asks) > 0)
    {
      g_autoptr(GPtrArray) asks = g_ptr_array_new_with_free_func (g_object_unref);

      /* Answering may end a request, and bring the proxy back here. */
      g_hash_table_iter_init (&iter, proxy->asks);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_ptr_array_add (asks, g_object_ref (value));
      g_hash_table_remove_all (proxy->asks);
      for (guint i = 0; i < asks->len; i++)
        if (!snodo_server_request_is_answered (g_ptr_array_index (asks, i)))
          snodo_server_request_return_error (g_ptr_array_index (asks, i), -32603, "The client of the proxy has gone");
    }
  if (proxy->state == PROXY_CONNECTING || g_hash_table_size (proxy->forwards) > 0)
    return;
  if (!proxy->finishing)
    {
      proxy->finishing = TRUE;
      proxy_mapped_finish (proxy);
      if (proxy->client != NULL)
        {
          snodo_client_close_async (proxy->client, NULL, proxy_closed_cb, proxy);
          return;
        }
    }
  if (proxy->client == NULL && !proxy->writing && g_queue_is_empty (&proxy->out))
    proxy_release (proxy);
}

/* The remote side. */

/* The request of the local client that @object's member @name names by
 * the id it was forwarded with, or NULL. */
static Forward *
lookup_forward (Proxy      *proxy,
                JsonObject *object,
                const char *name)
{
  const char *key = string_member (object, name);

  return key != NULL ? g_hash_table_lookup (proxy->forwards, key) : NULL;
}

static void
proxy_notification_cb (SnodoClient *client,
                       const char  *method,
                       JsonObject  *params,
                       Proxy       *proxy)
{
  JsonObject *message;
  g_autoptr(JsonNode) copy = NULL;
  JsonObject *meta;
  Forward *forward;

  if (params != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), params);

      copy = json_node_copy (node);
    }
  /* A request of the local client is named by the id it was forwarded
   * with (its key), which is put back as the local client's own. */
  if (g_str_equal (method, "notifications/cancelled"))
    {
      forward = lookup_forward (proxy, copy != NULL ? json_node_get_object (copy) : NULL, "requestId");
      /* Else the server cancels a request of its own, by an id the local
       * client never saw: what it asked is answered anyway, and ignored. */
      if (forward == NULL)
        return;
      json_object_set_member (json_node_get_object (copy), "requestId", json_node_copy (forward->id));
    }
  if (proxy->mapped && !proxy_mapped_notification (proxy, method, copy != NULL ? json_node_get_object (copy) : NULL))
    return;
  meta = copy != NULL ? object_member (json_node_get_object (copy), "_meta") : NULL;
  forward = lookup_forward (proxy, meta, SUBSCRIPTION_KEY);
  if (forward != NULL)
    json_object_set_member (meta, SUBSCRIPTION_KEY, json_node_copy (forward->id));

  message = message_new (NULL);
  json_object_set_string_member (message, "method", method);
  if (copy != NULL && json_object_get_size (json_node_get_object (copy)) > 0)
    json_object_set_member (message, "params", g_steal_pointer (&copy));
  proxy_send (proxy, message);
}

static gboolean
proxy_server_request_cb (SnodoClient        *client,
                         SnodoServerRequest *request,
                         Proxy              *proxy)
{
  g_autoptr(JsonNode) id = json_node_new (JSON_NODE_VALUE);
  JsonObject *message;
  JsonObject *params = snodo_server_request_get_params (request);

  /* A 2026-07-28 client is never asked: its server's question is refused,
   * as by a client that does not handle it. */
  if (proxy->eof || proxy->local_modern)
    return FALSE;
  json_node_set_int (id, ++proxy->next_ask);
  message = message_new (id);
  json_object_set_string_member (message, "method", snodo_server_request_get_method (request));
  if (params != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), params);

      json_object_set_member (message, "params", json_node_copy (node));
    }
  g_hash_table_insert (proxy->asks, proxy_id_key (id), g_object_ref (request));
  proxy_send (proxy, message);
  return TRUE;
}

static void
proxy_gone (Proxy        *proxy,
            const GError *error)
{
  proxy->state = PROXY_GONE;
  g_clear_error (&proxy->gone);
  proxy->gone = g_error_copy (error);
}

static void
proxy_client_closed_cb (SnodoClient  *client,
                        const GError *error,
                        Proxy        *proxy)
{
  g_autoptr(GError) closed = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, "The server closed the connection");

  if (error != NULL)
    g_printerr ("snodo: %s\n", error->message);
  else
    g_printerr ("snodo: the server closed the connection\n");
  proxy->status = 1;
  proxy_gone (proxy, error != NULL ? error : closed);
  /* The local client learns it from the end of the proxy's output. */
  proxy->eof = TRUE;
  proxy_maybe_finish (proxy);
}

static gboolean
proxy_make_client (Proxy   *proxy,
                   GError **error)
{
  g_autoptr(SnodoClient) client = NULL;

  if (proxy->uri != NULL)
    client = snodo_client_new_for_uri (proxy->uri, error);
  else
    client = snodo_client_new_for_argv ((const char * const *) proxy->argv, error);
  if (client == NULL)
    return FALSE;
  /* The local client times its requests out itself, and cancels them. */
  snodo_client_set_request_timeout (client, 0);
  if (!snodo_cli_apply_client_options (client, proxy->options, error))
    return FALSE;
  /* A server at a URL that wants OAuth is signed in to as by snodo call
   * --http, unless the command line brings its own authorization. */
  if (proxy->uri != NULL && !snodo_cli_has_own_authorization (proxy->options) &&
      !snodo_cli_set_up_oauth (client, proxy->options, error))
    return FALSE;
  g_signal_connect (client, "notification", G_CALLBACK (proxy_notification_cb), proxy);
  g_signal_connect (client, "server-request", G_CALLBACK (proxy_server_request_cb), proxy);
  g_signal_connect (client, "closed", G_CALLBACK (proxy_client_closed_cb), proxy);
  proxy->client = g_steal_pointer (&client);
  return TRUE;
}

/* What the local client is answered when the remote connection is gone
 * or could not be made. */
static void
proxy_refuse (Proxy    *proxy,
              JsonNode *id)
{
  g_autofree char *text = g_strdup_printf ("The proxy has no connection to the server: %s",
                                           proxy->gone != NULL ? proxy->gone->message : "closed");

  proxy_send_error (proxy, id, -32603, text, NULL);
}

static void
proxy_discarded_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_object_unref (source);
}

static void
proxy_connected_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Proxy *proxy = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) initialize_id = g_steal_pointer (&proxy->initialize_id);
  GQueue waiting = G_QUEUE_INIT;
  SnodoClient *failed = NULL;
  JsonNode *node;

  if (!snodo_client_connect_finish (SNODO_CLIENT (source), result, &error) &&
      !proxy->retried && (initialize_id != NULL || proxy->local_modern))
    {
      /* Perhaps the server speaks only the other era: the other side is
       * set up in it, and the proxy maps. */
      g_debug ("Setting up the other side failed (%s); trying the other era", error->message);
      proxy->retried = TRUE;
      failed = g_steal_pointer (&proxy->client);
      g_signal_handlers_disconnect_by_data (failed, proxy);
      snodo_client_close_async (failed, NULL, proxy_discarded_cb, NULL);
      proxy->initialize_id = g_steal_pointer (&initialize_id);
      proxy->state = PROXY_NEW;
      proxy->mapped = TRUE;
      proxy_connect (proxy, proxy->local_modern ? SNODO_PROTOCOL_VERSION_UNKNOWN : SNODO_PROTOCOL_VERSION_2026_07_28,
                     proxy->local_capabilities);
      if (proxy->state == PROXY_CONNECTING)
        return;
      initialize_id = g_steal_pointer (&proxy->initialize_id);
      failed = NULL;
      proxy->mapped = FALSE;
    }
  if (error != NULL)
    {
      g_printerr ("snodo: %s\n", error->message);
      proxy_gone (proxy, error);
      proxy->mapped = FALSE;
      /* Ended; the client's next first message tries again, as a 2026-07-28
       * client whose server/discover failed may send initialize. */
      failed = g_steal_pointer (&proxy->client);
      g_signal_handlers_disconnect_by_data (failed, proxy);
      snodo_client_close_async (failed, NULL, proxy_discarded_cb, NULL);
    }
  else
    {
      proxy->state = PROXY_READY;
      if (proxy->mapped)
        proxy_mapped_start (proxy);
    }

  if (initialize_id != NULL)
    {
      if (proxy->state == PROXY_READY)
        {
          JsonObject *message = message_new (initialize_id);
          JsonObject *answer = json_object_new ();
          JsonObject *info = snodo_client_get_server_info (proxy->client);
          JsonObject *capabilities = snodo_client_get_server_capabilities (proxy->client);
          g_autoptr(JsonNode) capabilities_copy = NULL;
          const char *instructions = snodo_client_get_instructions (proxy->client);

          json_object_set_string_member (answer, "protocolVersion",
                                         snodo_protocol_version_to_string (proxy->mapped ? proxy->local_version
                                                                           : snodo_client_get_protocol_version (proxy->client)));
          if (capabilities != NULL)
            {
              g_autoptr(JsonNode) original = json_node_init_object (json_node_alloc (), capabilities);

              capabilities_copy = json_node_copy (original);
            }
          else
            capabilities_copy = json_node_init_object (json_node_alloc (), json_object_new ());
          /* Resources are not subscribed to through a server of 2026-07-28. */
          if (proxy->mapped && object_member (json_node_get_object (capabilities_copy), "resources") != NULL)
            json_object_remove_member (object_member (json_node_get_object (capabilities_copy), "resources"), "subscribe");
          json_object_set_member (answer, "capabilities", g_steal_pointer (&capabilities_copy));
          json_object_set_object_member (answer, "serverInfo",
                                         info != NULL ? json_object_ref (info) : json_object_new ());
          if (instructions != NULL)
            json_object_set_string_member (answer, "instructions", instructions);
          json_object_set_object_member (message, "result", answer);
          proxy_send (proxy, message);
        }
      else
        proxy_refuse (proxy, initialize_id);
    }

  /* What came meanwhile, in order. */
  waiting = proxy->waiting;
  g_queue_init (&proxy->waiting);
  while ((node = g_queue_pop_head (&waiting)) != NULL)
    {
      proxy_dispatch (proxy, node);
      json_node_unref (node);
    }
  if (failed != NULL)
    proxy->state = PROXY_NEW;
  proxy_maybe_finish (proxy);
}

/* Entry: PROXY_NEW. Connects in the era of @version (UNKNOWN: the
 * client's own negotiation), declaring @capabilities. */
static void
proxy_connect (Proxy                *proxy,
               SnodoProtocolVersion  version,
               JsonObject           *capabilities)
{
  g_autoptr(GError) error = NULL;

  if (!proxy_make_client (proxy, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      proxy_gone (proxy, error);
      return;
    }
  if (version != SNODO_PROTOCOL_VERSION_UNKNOWN)
    snodo_client_set_pinned_version (proxy->client, version);
  if (capabilities != NULL)
    snodo_client_set_capabilities (proxy->client, capabilities);
  proxy->state = PROXY_CONNECTING;
  snodo_client_connect_async (proxy->client, NULL, proxy_connected_cb, proxy);
}

/* The local side. */

void
proxy_forwarded_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Forward *forward = user_data;
  Proxy *proxy = forward->proxy;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;

  answer = snodo_client_forward_finish (SNODO_CLIENT (source), result, &error);
  if (answer != NULL)
    {
      JsonObject *message = message_new (forward->id);
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, answer);
      while (json_object_iter_next (&iter, &name, &member))
        json_object_set_member (message, name, json_node_copy (member));
      if (proxy->mapped)
        proxy_mapped_answer (proxy, forward, message);
      proxy_send (proxy, message);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    /* A cancelled request is not answered: its client gave it up. */
    proxy_send_error (proxy, forward->id, -32603, error->message, NULL);
  g_hash_table_remove (proxy->forwards, forward->key);
  proxy_maybe_finish (proxy);
}

/* A request of the local client in flight, or NULL when its id is no
 * good (and it has been answered so). */
Forward *
proxy_forward_new (Proxy      *proxy,
                   JsonNode   *id,
                   const char *method)
{
  g_autofree char *key = proxy_id_key (id);
  Forward *forward;

  if (key == NULL)
    {
      proxy_send_error (proxy, NULL, -32600, "The request's id is neither a string nor an integer", NULL);
      return NULL;
    }
  if (g_hash_table_contains (proxy->forwards, key) ||
      (proxy->listens != NULL && g_hash_table_contains (proxy->listens, key)))
    {
      proxy_send_error (proxy, id, -32600, "A request with this id is already in flight", NULL);
      return NULL;
    }
  forward = g_new0 (Forward, 1);
  forward->proxy = proxy;
  forward->key = g_steal_pointer (&key);
  forward->id = json_node_copy (id);
  forward->method = g_strdup (method);
  forward->cancellable = g_cancellable_new ();
  g_hash_table_insert (proxy->forwards, forward->key, forward);
  return forward;
}

static void
proxy_forward (Proxy      *proxy,
               JsonNode   *id,
               const char *method,
               JsonObject *params)
{
  Forward *forward = proxy_forward_new (proxy, id, method);

  if (forward == NULL)
    return;
  snodo_client_forward_async (proxy->client, forward->key, method, params, forward->cancellable, proxy_forwarded_cb, forward);
}

static void
proxy_request (Proxy      *proxy,
               JsonNode   *node,
               JsonNode   *id,
               const char *method,
               JsonObject *params)
{
  JsonObject *meta = object_member (params, "_meta");

  switch (proxy->state)
    {
    case PROXY_NEW:
      if (g_str_equal (method, "initialize"))
        {
          const char *asked = string_member (params, "protocolVersion");
          SnodoProtocolVersion version = asked != NULL ? snodo_protocol_version_from_string (asked)
                                                       : SNODO_PROTOCOL_VERSION_UNKNOWN;

          /* The version asked if it is of the initialize era; else the
           * newest of that era, which a server would answer with. */
          if (version == SNODO_PROTOCOL_VERSION_UNKNOWN || snodo_protocol_version_is_stateless (version))
            version = SNODO_PROTOCOL_VERSION_2025_11_25;
          proxy->initialize_id = json_node_copy (id);
          proxy->local_version = version;
          if (object_member (params, "capabilities") != NULL)
            proxy->local_capabilities = json_object_ref (object_member (params, "capabilities"));
          proxy_connect (proxy, version, proxy->local_capabilities);
          if (proxy->state == PROXY_GONE)
            {
              g_autoptr(JsonNode) initialize_id = g_steal_pointer (&proxy->initialize_id);

              proxy_refuse (proxy, initialize_id);
            }
          return;
        }
      if (g_str_equal (method, "ping"))
        {
          JsonObject *message = message_new (id);

          json_object_set_object_member (message, "result", json_object_new ());
          proxy_send (proxy, message);
          return;
        }
      if (string_member (meta, PROXY_VERSION_KEY) != NULL)
        {
          proxy->local_modern = TRUE;
          if (object_member (meta, PROXY_CAPABILITIES_KEY) != NULL)
            proxy->local_capabilities = json_object_ref (object_member (meta, PROXY_CAPABILITIES_KEY));
          proxy_connect (proxy, SNODO_PROTOCOL_VERSION_2026_07_28, proxy->local_capabilities);
        }
      else
        {
          proxy->retried = TRUE;
          proxy_connect (proxy, SNODO_PROTOCOL_VERSION_UNKNOWN, NULL);
        }
      if (proxy->state == PROXY_CONNECTING)
        g_queue_push_tail (&proxy->waiting, json_node_ref (node));
      else
        proxy_refuse (proxy, id);
      return;

    case PROXY_CONNECTING:
      g_queue_push_tail (&proxy->waiting, json_node_ref (node));
      return;

    case PROXY_READY:
      if (g_str_equal (method, "initialize"))
        {
          proxy_send_error (proxy, id, -32600, "The connection is already initialized", NULL);
          return;
        }
      if (proxy->mapped)
        proxy_mapped_request (proxy, id, method, params);
      else
        proxy_forward (proxy, id, method, params);
      return;

    case PROXY_GONE:
    default:
      proxy_refuse (proxy, id);
      return;
    }
}

static void
proxy_notification (Proxy      *proxy,
                    JsonNode   *node,
                    const char *method,
                    JsonObject *params)
{
  /* SnodoClient said it itself, after its own initialize. */
  if (g_str_equal (method, "notifications/initialized"))
    return;
  if (proxy->state == PROXY_CONNECTING)
    {
      g_queue_push_tail (&proxy->waiting, json_node_ref (node));
      return;
    }
  if (g_str_equal (method, "notifications/cancelled"))
    {
      g_autofree char *key = proxy_id_key (params != NULL ? json_object_get_member (params, "requestId") : NULL);
      Forward *forward = key != NULL ? g_hash_table_lookup (proxy->forwards, key) : NULL;

      /* SnodoClient tells the server, by its own id (on HTTP in
       * 2026-07-28: by closing the answer's stream). */
      if (forward != NULL)
        g_cancellable_cancel (forward->cancellable);
      else if (key != NULL && proxy->listens != NULL)
        g_hash_table_remove (proxy->listens, key);
      return;
    }
  /* Roots have no list changes in 2026-07-28. */
  if (proxy->mapped && !proxy->local_modern && g_str_equal (method, "notifications/roots/list_changed"))
    return;
  if (proxy->state == PROXY_READY)
    snodo_client_notify (proxy->client, method, params);
}

static void
proxy_response (Proxy      *proxy,
                JsonNode   *id,
                JsonObject *message)
{
  g_autofree char *key = proxy_id_key (id);
  g_autofree char *stored_key = NULL;
  g_autoptr(SnodoServerRequest) request = NULL;
  JsonObject *error;

  /* Stolen, the table's key is ours to free. */
  if (key == NULL ||
      !g_hash_table_steal_extended (proxy->asks, key, (gpointer *) &stored_key, (gpointer *) &request))
    return;
  error = object_member (message, "error");
  if (error != NULL)
    {
      JsonNode *code = json_object_get_member (error, "code");
      const char *text = string_member (error, "message");

      snodo_server_request_return_error (request,
                                         code != NULL && JSON_NODE_TYPE (code) == JSON_NODE_VALUE
                                         ? (int) json_node_get_int (code) : -32603,
                                         text != NULL ? text : "Unknown error");
    }
  else
    {
      JsonObject *result = object_member (message, "result");
      g_autoptr(JsonObject) empty = NULL;

      if (result == NULL)
        result = empty = json_object_new ();
      snodo_server_request_return_result (request, result);
    }
}

void
proxy_dispatch (Proxy    *proxy,
                JsonNode *node)
{
  JsonObject *message = json_node_get_object (node);
  JsonNode *id = json_object_get_member (message, "id");
  const char *method = string_member (message, "method");
  JsonNode *params_node = json_object_get_member (message, "params");
  JsonObject *params = params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node)
                       ? json_node_get_object (params_node) : NULL;

  if (method != NULL && id != NULL)
    proxy_request (proxy, node, id, method, params);
  else if (method != NULL)
    proxy_notification (proxy, node, method, params);
  else if (id != NULL && (json_object_has_member (message, "result") || json_object_has_member (message, "error")))
    proxy_response (proxy, id, message);
  else
    proxy_send_error (proxy, id != NULL && JSON_NODE_TYPE (id) == JSON_NODE_VALUE ? id : NULL,
                      -32600, "Invalid Request", NULL);
}

static void
proxy_line (Proxy      *proxy,
            const char *line,
            gsize       length)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  if (length > 0 && line[length - 1] == '\r')
    length--;
  if (length == 0)
    return;
  if (!g_utf8_validate (line, length, NULL) || !json_parser_load_from_data (parser, line, length, &error))
    {
      proxy_send_error (proxy, NULL, -32700, "Parse error", NULL);
      return;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      proxy_send_error (proxy, NULL, -32600, "Invalid Request", NULL);
      return;
    }
  proxy_dispatch (proxy, root);
}

/* Cuts the lines out of what has been read. A line longer than the limit
 * is answered as too long and dropped as it comes, never held whole. */
static void
proxy_take_lines (Proxy *proxy)
{
  gsize start = 0;

  while (!proxy->eof || proxy->pending->len > start)
    {
      const guint8 *data = proxy->pending->data + start;
      gsize left = proxy->pending->len - start;
      const guint8 *newline = memchr (data, '\n', left);

      if (newline == NULL)
        {
          if (!proxy->eof)
            break;
          /* A last line without a newline at the end of input. */
          newline = data + left;
        }
      if (proxy->dropping)
        proxy->dropping = FALSE;
      else
        proxy_line (proxy, (const char *) data, newline - data);
      start += (newline - data) + (newline < data + left ? 1 : 0);
      if (proxy->pending->len <= start)
        break;
    }
  g_byte_array_remove_range (proxy->pending, 0, MIN (start, proxy->pending->len));
  if (proxy->pending->len >= PROXY_MAX_LINE_BYTES)
    {
      if (!proxy->dropping)
        proxy_send_error (proxy, NULL, -32600, "The message is too long", NULL);
      proxy->dropping = TRUE;
      g_byte_array_set_size (proxy->pending, 0);
    }
}

static void
proxy_read_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Proxy *proxy = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) chunk = NULL;

  chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (proxy->eof)
    return;
  if (chunk == NULL || g_bytes_get_size (chunk) == 0)
    {
      if (error != NULL)
        g_printerr ("snodo: %s\n", error->message);
      proxy->eof = TRUE;
      proxy_take_lines (proxy);
      proxy_maybe_finish (proxy);
      return;
    }
  g_byte_array_append (proxy->pending, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
  proxy_take_lines (proxy);
  if (!proxy->eof)
    proxy_read (proxy);
}

static void
proxy_read (Proxy *proxy)
{
  g_input_stream_read_bytes_async (proxy->input, PROXY_READ_SIZE, G_PRIORITY_DEFAULT, NULL, proxy_read_cb, proxy);
}

#ifdef G_OS_UNIX
/* SIGTERM and SIGINT end the proxy as the end of its input does, the
 * remote connection closed (a child server with it). */
static gboolean
proxy_signal_cb (gpointer user_data)
{
  Proxy *proxy = user_data;
  GHashTableIter iter;
  gpointer value;

  proxy->eof = TRUE;
  g_hash_table_iter_init (&iter, proxy->forwards);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_cancellable_cancel (((Forward *) value)->cancellable);
  proxy_maybe_finish (proxy);
  return G_SOURCE_CONTINUE;
}
#endif

static Proxy *the_proxy;

void
proxy_free (Proxy *proxy)
{
  g_clear_object (&proxy->client);
  g_clear_pointer (&proxy->pending, g_byte_array_unref);
  g_clear_object (&proxy->input);
  g_clear_object (&proxy->output);
  g_queue_clear_full (&proxy->out, (GDestroyNotify) g_bytes_unref);
  g_queue_clear_full (&proxy->waiting, (GDestroyNotify) json_node_unref);
  g_clear_pointer (&proxy->initialize_id, json_node_unref);
  g_clear_pointer (&proxy->forwards, g_hash_table_unref);
  g_clear_pointer (&proxy->asks, g_hash_table_unref);
  g_clear_pointer (&proxy->listens, g_hash_table_unref);
  g_clear_pointer (&proxy->local_capabilities, json_object_unref);
  g_clear_object (&proxy->listen_cancellable);
  g_clear_pointer (&proxy->options, g_variant_dict_unref);
  g_clear_error (&proxy->gone);
  g_strfreev (proxy->argv);
  g_free (proxy->uri);
  g_free (proxy);
}

int
snodo_cli_proxy_status (void)
{
  int status = the_proxy != NULL ? the_proxy->status : 0;

  g_clear_pointer (&the_proxy, proxy_free);
  snodo_cli_proxy_http_clear ();
  return status;
}

static int
proxy_usage_error (const char *message)
{
  g_printerr ("snodo: %s (see snodo --help)\n", message);
  return 2;
}

int
snodo_cli_proxy (GApplication *app,
                 GVariantDict *options,
                 int           argc,
                 char        **argv)
{
  g_autoptr(GError) error = NULL;
  Proxy *proxy;
  int i = 0;

  gboolean http;

  /* The option parser may have taken the "--" already: a first argument
   * that is no http or https URL starts the command. */
  if (i < argc && g_str_equal (argv[i], "--"))
    i++;
  if (i >= argc)
    return proxy_usage_error ("proxy needs a URL, or -- and a command to start the server with");
  /* The client's first message chooses the version. */
  if (g_variant_dict_contains (options, "protocol-version"))
    return proxy_usage_error ("--protocol-version does not go with proxy: the client's first message chooses the version");
  /* The other way round: the command's server offered over HTTP. */
  if (g_variant_dict_contains (options, "http") || g_variant_dict_contains (options, "http-unix"))
    {
      if (g_variant_dict_contains (options, "header") || g_variant_dict_contains (options, "bearer-token-file") ||
          g_variant_dict_contains (options, "cacert"))
        return proxy_usage_error ("--header, --bearer-token-file and --cacert are for a URL, not for proxy --http "
                                  "(it accepts tokens with --accept-bearer-token-file or --token-introspection)");
      if (g_str_has_prefix (argv[i], "http://") || g_str_has_prefix (argv[i], "https://"))
        return proxy_usage_error ("proxy --http serves a command's server: -- COMMAND [ARG…], not a URL");
      return snodo_cli_proxy_http (app, options, argv + i);
    }
  {
    static const char * const serving[] = { "tls-certificate", "tls-key", "allowed-hosts", "allowed-origins",
                                            "max-sessions", "pool-size", "accept-bearer-token-file",
                                            "token-introspection", "introspection-client-id",
                                            "introspection-client-secret-file", "authorization-server" };

    for (guint o = 0; o < G_N_ELEMENTS (serving); o++)
      if (g_variant_dict_contains (options, serving[o]))
        {
          g_autofree char *text = g_strdup_printf ("--%s goes with proxy --http or --http-unix", serving[o]);

          return proxy_usage_error (text);
        }
  }
  http = i == 0 && (g_str_has_prefix (argv[i], "http://") || g_str_has_prefix (argv[i], "https://"));
  if (http && argc != 1)
    return proxy_usage_error ("proxy URL goes without a command");
  if (!snodo_cli_check_client_options (options, http, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE) ? 2 : 1;
    }

  proxy = g_new0 (Proxy, 1);
  the_proxy = proxy;
  proxy->app = app;
  proxy->options = g_variant_dict_ref (options);
  if (http)
    proxy->uri = g_strdup (argv[0]);
  else
    proxy->argv = g_strdupv (argv + i);
  proxy->forwards = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) forward_free);
  proxy->asks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  proxy->listens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) listen_free);

#ifdef G_OS_UNIX
  proxy->input = g_unix_input_stream_new (0, FALSE);
  proxy->output = g_unix_output_stream_new (1, FALSE);
  g_unix_signal_add (SIGTERM, proxy_signal_cb, proxy);
  g_unix_signal_add (SIGINT, proxy_signal_cb, proxy);
#elif defined(G_OS_WIN32)
  proxy->input = snodo_win32_stdin_stream_new ();
  proxy->output = snodo_win32_stdout_stream_new ();
#else
# error "No standard input and output streams for this platform"
#endif
  proxy->pending = g_byte_array_new ();

  g_application_hold (app);
  proxy_read (proxy);
  return 0;
}
