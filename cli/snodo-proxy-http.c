/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy --http [ADDRESS:]PORT -- COMMAND [ARG…]: a server of
 * standard input and output offered over Streamable HTTP.
 *
 * The HTTP side is the library's: a SnodoHttpTransport (sessions, streams,
 * TLS, Unix socket, allowed hosts and origins, bearer tokens, limits) in
 * front of a forwarding SnodoServer (snodo_server_set_forward_func()),
 * which hands every request over as it came. Behind it, the proxy of
 * snodo-proxy.c, one per child server, its "local client" being this file
 * instead of standard input and output:
 *
 * - each HTTP session of the initialize era has a child of its own, started
 *   by its initialize (with the client's version and capabilities) and
 *   ended with the session (DELETE, expiry, the proxy's end);
 * - 2026-07-28 requests, which belong to no session, go to a pool of at
 *   most --pool-size children, each to the one with the fewest requests in
 *   flight;
 * - when a child speaks only the other era, snodo-proxy-eras.c maps.
 *
 * Each request is given to its proxy under an id of this file's (the ids
 * of several clients meet on a pooled child); answers, and the
 * notifications of a request (progress, subscriptions), go back with its
 * invocation; the rest of what a child says goes to the session. */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>
#include <snodo/snodo.h>

#ifdef G_OS_UNIX
# include <signal.h>
# include <glib-unix.h>
# include <gio/gunixsocketaddress.h>
#endif

#include "snodo-cli.h"
#include "snodo-proxy.h"

#if SNODO_HAS_HTTP_TRANSPORT

#define FRONT_KEY "snodo-proxy-front"
#define TOKEN_FILE_MAX_BYTES 65536

typedef struct _HttpProxy HttpProxy;

/* One child, with the proxy that speaks to it. */
typedef struct
{
  HttpProxy    *http;
  Proxy        *proxy;
  /* The session it serves, or NULL in the pool. Owned. */
  SnodoSession *session;
  /* The requests in flight: id key of the proxy ("i:N") -> Pending. */
  GHashTable   *pending;
  gint64        next_id;
  gboolean      ended;
} Front;

typedef struct
{
  Front           *front;
  char            *key;
  /* Owned until answered. */
  SnodoInvocation *invocation;
  GSource         *cancel_source;
} Pending;

struct _HttpProxy
{
  GApplication       *app;
  GVariantDict       *options;
  GStrv               argv;
  SnodoServer        *server;
  SnodoHttpTransport *transport;
  /* Every Front alive. */
  GPtrArray          *fronts;
  /* The Fronts of 2026-07-28 requests, at most pool_size. */
  GPtrArray          *pool;
  guint               pool_size;
  /* Accepted bearer tokens: token -> principal and scopes, or NULL. */
  GHashTable         *tokens;
  gboolean            ending;
  gboolean            closed;
  gboolean            released;
};

static void front_end (Front *front);

/* ---- Requests in flight ------------------------------------------------- */

static void
pending_free (Pending *pending)
{
  if (pending->cancel_source != NULL)
    {
      g_source_destroy (pending->cancel_source);
      g_source_unref (pending->cancel_source);
    }
  if (pending->invocation != NULL)
    {
      g_autoptr(JsonObject) answer = json_object_new ();
      JsonObject *error = json_object_new ();

      json_object_set_int_member (error, "code", -32603);
      json_object_set_string_member (error, "message", "The server behind the proxy is gone");
      json_object_set_object_member (answer, "error", error);
      snodo_invocation_return_forwarded (g_steal_pointer (&pending->invocation), answer);
    }
  g_free (pending->key);
  g_free (pending);
}

static JsonNode *
int_node (gint64 value)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_int (node, value);
  return node;
}

/* The client gave the request up: the child is told, and nothing is
 * answered (the invocation, cancelled, sends nothing). */
static gboolean
pending_cancelled_cb (GCancellable *cancellable,
                      gpointer      user_data)
{
  Pending *pending = user_data;
  Front *front = pending->front;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *message = message_new (NULL);
  JsonObject *params = json_object_new ();
  gint64 n = g_ascii_strtoll (pending->key + 2, NULL, 10);

  json_object_set_string_member (message, "method", "notifications/cancelled");
  json_object_set_member (params, "requestId", int_node (n));
  json_object_set_object_member (message, "params", params);
  json_node_take_object (node, message);
  g_clear_pointer (&pending->cancel_source, g_source_unref);
  g_hash_table_remove (front->pending, pending->key);
  proxy_dispatch (front->proxy, node);
  return G_SOURCE_REMOVE;
}

static JsonNode *
progress_token (SnodoInvocation *invocation)
{
  JsonNode *params = snodo_invocation_get_params (invocation);
  JsonObject *meta = params != NULL ? object_member (json_node_get_object (params), "_meta") : NULL;

  return meta != NULL ? json_object_get_member (meta, "progressToken") : NULL;
}

/* ---- What the child says, for the client ------------------------------- */

static Pending *
front_lookup (Front    *front,
              JsonNode *id)
{
  g_autofree char *key = proxy_id_key (id);

  return key != NULL ? g_hash_table_lookup (front->pending, key) : NULL;
}

typedef struct
{
  Front    *front;
  JsonNode *id;
} Ask;

static void
front_answer_ask (Front      *front,
                  JsonNode   *id,
                  JsonObject *result,
                  GError     *error)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *message = message_new (id);

  if (result != NULL)
    json_object_set_object_member (message, "result", json_object_ref (result));
  else
    {
      JsonObject *object = json_object_new ();

      json_object_set_int_member (object, "code", -32603);
      json_object_set_string_member (object, "message", error->message);
      json_object_set_object_member (message, "error", object);
    }
  json_node_take_object (node, message);
  proxy_dispatch (front->proxy, node);
}

static void
ask_free (Ask *ask)
{
  json_node_unref (ask->id);
  g_free (ask);
}

static void
front_asked_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Ask *ask = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;

  if (SNODO_IS_SESSION (source))
    answer = snodo_session_request_finish (SNODO_SESSION (source), result, &error);
  else
    {
      g_autoptr(JsonNode) node = snodo_invocation_request_input_finish (SNODO_INVOCATION (source), result, &error);

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        answer = json_node_dup_object (node);
      else if (node != NULL)
        g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "The client's answer is not an object");
    }
  /* A front that ended answered what its child asked already. */
  if (!ask->front->ended)
    front_answer_ask (ask->front, ask->id, answer, error);
  ask_free (ask);
}

/* A request of the child for the client (initialize era): with the
 * client's request in flight the newest, on its stream; else on the
 * session's. */
static void
front_ask (Front      *front,
           JsonObject *message)
{
  const char *method = string_member (message, "method");
  JsonObject *params = object_member (message, "params");
  Ask *ask = g_new0 (Ask, 1);
  GHashTableIter iter;
  gpointer value;
  Pending *newest = NULL;

  ask->front = front;
  ask->id = json_node_copy (json_object_get_member (message, "id"));
  g_hash_table_iter_init (&iter, front->pending);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Pending *pending = value;

      if (newest == NULL || strlen (pending->key) > strlen (newest->key) ||
          (strlen (pending->key) == strlen (newest->key) && strcmp (pending->key, newest->key) > 0))
        newest = pending;
    }
  if (newest != NULL)
    {
      g_autoptr(JsonNode) node = params != NULL ? json_node_init_object (json_node_alloc (), params) : NULL;

      snodo_invocation_request_input_async (newest->invocation, "snodo-proxy", method, node, NULL,
                                            front_asked_cb, ask);
    }
  else if (front->session != NULL)
    snodo_session_request_async (front->session, method, params, NULL, front_asked_cb, ask);
  else
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                                     "The client of the proxy cannot be asked");

      front_answer_ask (front, ask->id, NULL, error);
      ask_free (ask);
    }
}

static void
front_notify (Front      *front,
              JsonObject *message)
{
  const char *method = string_member (message, "method");
  JsonObject *params = object_member (message, "params");
  JsonObject *meta = object_member (params, "_meta");
  Pending *pending = NULL;

  /* The progress of a request goes with it. */
  if (g_str_equal (method, "notifications/progress") && params != NULL)
    {
      JsonNode *token = json_object_get_member (params, "progressToken");
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, front->pending);
      while (token != NULL && pending == NULL && g_hash_table_iter_next (&iter, NULL, &value))
        {
          JsonNode *own = progress_token (((Pending *) value)->invocation);

          if (own != NULL && json_node_equal (own, token))
            pending = value;
        }
    }
  /* So do those of a subscription, named by the client's own id again. */
  else if (meta != NULL && json_object_get_member (meta, SUBSCRIPTION_KEY) != NULL)
    {
      pending = front_lookup (front, json_object_get_member (meta, SUBSCRIPTION_KEY));
      if (pending == NULL)
        return;
      json_object_set_member (meta, SUBSCRIPTION_KEY, json_node_copy (snodo_invocation_get_id (pending->invocation)));
    }
  /* The child ends a request of the client: it is answered anyway. */
  else if (g_str_equal (method, "notifications/cancelled"))
    return;

  if (pending != NULL)
    snodo_invocation_notify (pending->invocation, method, params);
  else if (front->session != NULL)
    snodo_session_notify (front->session, method, params);
}

/* The proxy's message for its "local client" (taken). */
static void
front_sink (gpointer    data,
            JsonObject *message)
{
  g_autoptr(JsonObject) owned = message;
  Front *front = data;
  JsonNode *id = json_object_get_member (message, "id");

  if (string_member (message, "method") != NULL)
    {
      if (id != NULL)
        front_ask (front, message);
      else
        front_notify (front, message);
      return;
    }
  if (id != NULL && (json_object_has_member (message, "result") || json_object_has_member (message, "error")))
    {
      g_autofree char *key = proxy_id_key (id);
      /* The table's key is the pending's own. */
      char *stored = NULL;
      Pending *pending = NULL;

      if (key == NULL || !g_hash_table_steal_extended (front->pending, key, (gpointer *) &stored,
                                                       (gpointer *) &pending))
        return;
      json_object_remove_member (message, "jsonrpc");
      json_object_remove_member (message, "id");
      snodo_invocation_return_forwarded (g_steal_pointer (&pending->invocation), message);
      pending_free (pending);
    }
}

/* ---- Fronts ------------------------------------------------------------- */

static void http_proxy_maybe_release (HttpProxy *http);

static gboolean
front_free_cb (gpointer data)
{
  Front *front = data;
  HttpProxy *http = front->http;

  g_ptr_array_remove (http->fronts, front);
  proxy_free (front->proxy);
  g_clear_pointer (&front->pending, g_hash_table_unref);
  g_free (front);
  http_proxy_maybe_release (http);
  return G_SOURCE_REMOVE;
}

/* The proxy is done (its child ended): the front goes, once the proxy's
 * own code has returned. */
static void
front_released (gpointer data)
{
  Front *front = data;

  front->ended = TRUE;
  g_ptr_array_remove (front->http->pool, front);
  if (front->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (front->session, front);
      if (g_object_get_data (G_OBJECT (front->session), FRONT_KEY) == front)
        g_object_set_data (G_OBJECT (front->session), FRONT_KEY, NULL);
      g_clear_object (&front->session);
    }
  /* What is still in flight is answered with an error. */
  g_hash_table_remove_all (front->pending);
  g_idle_add (front_free_cb, front);
}

static void
front_session_closed_cb (SnodoSession *session,
                         Front        *front)
{
  front_end (front);
}

static void
front_session_notification_cb (SnodoSession *session,
                               const char   *method,
                               JsonObject   *params,
                               Front        *front)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *message = message_new (NULL);

  json_object_set_string_member (message, "method", method);
  json_object_set_object_member (message, "params", json_object_ref (params));
  json_node_take_object (node, message);
  proxy_dispatch (front->proxy, node);
}

static Front *
front_new (HttpProxy    *http,
           SnodoSession *session)
{
  Front *front = g_new0 (Front, 1);
  Proxy *proxy = g_new0 (Proxy, 1);

  front->http = http;
  front->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) pending_free);
  proxy->app = http->app;
  proxy->options = g_variant_dict_ref (http->options);
  proxy->argv = g_strdupv (http->argv);
  proxy->forwards = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) forward_free);
  proxy->asks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  proxy->listens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) listen_free);
  proxy->pending = g_byte_array_new ();
  proxy->sink = front_sink;
  proxy->released_func = front_released;
  proxy->front = front;
  front->proxy = proxy;
  if (session != NULL)
    {
      front->session = g_object_ref (session);
      g_object_set_data (G_OBJECT (session), FRONT_KEY, front);
      g_signal_connect (session, "closed", G_CALLBACK (front_session_closed_cb), front);
      g_signal_connect (session, "notification", G_CALLBACK (front_session_notification_cb), front);
    }
  g_ptr_array_add (http->fronts, front);
  return front;
}

/* The client is gone, or the proxy ends: the child is ended with its
 * proxy, what is in flight cancelled. */
static void
front_end (Front *front)
{
  Proxy *proxy = front->proxy;
  GHashTableIter iter;
  gpointer value;

  if (proxy->eof)
    return;
  proxy->eof = TRUE;
  g_hash_table_iter_init (&iter, proxy->forwards);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_cancellable_cancel (((Forward *) value)->cancellable);
  proxy_maybe_finish (proxy);
}

/* Hands @invocation to the proxy of @front, under an id of its own. */
static void
front_request (Front           *front,
               SnodoInvocation *invocation)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *message = message_new (NULL);
  JsonNode *params = snodo_invocation_get_params (invocation);
  Pending *pending = g_new0 (Pending, 1);
  gint64 n = ++front->next_id;

  pending->front = front;
  pending->key = g_strdup_printf ("i:%" G_GINT64_FORMAT, n);
  pending->invocation = invocation;
  pending->cancel_source = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));
  g_source_set_callback (pending->cancel_source, G_SOURCE_FUNC (pending_cancelled_cb), pending, NULL);
  g_source_attach (pending->cancel_source, NULL);
  g_hash_table_insert (front->pending, pending->key, pending);

  json_object_set_member (message, "id", int_node (n));
  json_object_set_string_member (message, "method", snodo_invocation_get_method (invocation));
  if (params != NULL && json_object_get_size (json_node_get_object (params)) > 0)
    json_object_set_member (message, "params", json_node_copy (params));
  json_node_take_object (node, message);
  proxy_dispatch (front->proxy, node);
}

/* The pooled child with the fewest requests in flight; a new one while
 * the pool is not full and each has some. */
static Front *
http_proxy_pick (HttpProxy *http)
{
  Front *best = NULL;

  /* A server that could not be started, or is gone, makes room: the next
   * request tries a new one. */
  for (guint i = http->pool->len; i > 0; i--)
    {
      Front *front = g_ptr_array_index (http->pool, i - 1);

      if (front->proxy->state == PROXY_GONE)
        {
          g_ptr_array_remove_index (http->pool, i - 1);
          front_end (front);
        }
    }
  for (guint i = 0; i < http->pool->len; i++)
    {
      Front *front = g_ptr_array_index (http->pool, i);

      if (best == NULL || g_hash_table_size (front->pending) < g_hash_table_size (best->pending))
        best = front;
    }
  if (best == NULL || (g_hash_table_size (best->pending) > 0 && http->pool->len < http->pool_size))
    {
      best = front_new (http, NULL);
      g_ptr_array_add (http->pool, best);
    }
  return best;
}

static void
refuse (SnodoInvocation *invocation,
        int              code,
        const char      *text)
{
  g_autoptr(JsonObject) answer = json_object_new ();
  JsonObject *error = json_object_new ();

  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", text);
  json_object_set_object_member (answer, "error", error);
  snodo_invocation_return_forwarded (invocation, answer);
}

static void
http_proxy_forward_cb (SnodoInvocation *invocation,
                       gpointer         user_data)
{
  HttpProxy *http = user_data;
  SnodoSession *session = snodo_invocation_get_session (invocation);
  const char *method = snodo_invocation_get_method (invocation);
  Front *front;

  if (http->ending)
    {
      refuse (invocation, -32603, "The proxy is ending");
      return;
    }
  if (snodo_protocol_version_is_stateless (snodo_invocation_get_protocol_version (invocation)))
    {
      front_request (http_proxy_pick (http), invocation);
      return;
    }
  front = g_object_get_data (G_OBJECT (session), FRONT_KEY);
  if (front == NULL && g_str_equal (method, "initialize"))
    front = front_new (http, session);
  if (front == NULL || front->ended)
    {
      refuse (invocation, -32603, "The server behind the proxy is gone: initialize a new session");
      return;
    }
  front_request (front, invocation);
}

/* ---- Accepted bearer tokens --------------------------------------------- */

typedef struct
{
  char  *principal;
  GStrv  scopes;
} Token;

static void
token_free (Token *token)
{
  g_free (token->principal);
  g_strfreev (token->scopes);
  g_free (token);
}

/* TOKEN PRINCIPAL [SCOPE…] a line; blank lines and # comments skipped. */
static GHashTable *
read_tokens (const char  *file,
             GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GHashTable) tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) token_free);
  g_auto(GStrv) lines = NULL;
  gsize len = 0;

  if (!g_file_get_contents (file, &contents, &len, error))
    return NULL;
  if (len > TOKEN_FILE_MAX_BYTES || memchr (contents, '\0', len) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "--accept-bearer-token-file: not a token file (a NUL byte, or more than %u bytes)",
                   (guint) TOKEN_FILE_MAX_BYTES);
      return NULL;
    }
  lines = g_strsplit (contents, "\n", -1);
  memset (contents, 0, len);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = NULL;
      Token *token;

      g_strstrip (lines[i]);
      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      words = g_regex_split_simple ("[ \t]+", lines[i], 0, 0);
      if (g_strv_length (words) < 2)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "--accept-bearer-token-file: line %u needs TOKEN PRINCIPAL [SCOPE…]", i + 1);
          return NULL;
        }
      token = g_new0 (Token, 1);
      token->principal = g_strdup (words[1]);
      token->scopes = g_strdupv (words + 2);
      g_hash_table_replace (tokens, g_strdup (words[0]), token);
    }
  for (guint i = 0; lines[i] != NULL; i++)
    memset (lines[i], 0, strlen (lines[i]));
  return g_steal_pointer (&tokens);
}

static gboolean
validate_token_cb (SnodoHttpAuthorization *authorization,
                   SnodoAuthRequest       *request,
                   HttpProxy              *http)
{
  Token *token = g_hash_table_lookup (http->tokens, snodo_auth_request_get_token (request));

  if (token == NULL)
    snodo_auth_request_refuse (request, "unknown token");
  else
    snodo_auth_request_accept (request, token->principal, (const char * const *) token->scopes);
  return TRUE;
}

/* ---- Listening and the end ---------------------------------------------- */

static void
http_proxy_maybe_release (HttpProxy *http)
{
  if (!http->ending || !http->closed || http->fronts->len > 0 || http->released)
    return;
  http->released = TRUE;
  g_application_release (http->app);
}

#ifdef G_OS_UNIX
static void
http_proxy_closed_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  HttpProxy *http = user_data;

  snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (source), result, NULL);
  http->closed = TRUE;
  /* The sessions ended with the transport; the pool ends now. */
  while (http->pool->len > 0)
    {
      Front *front = g_ptr_array_steal_index (http->pool, 0);

      front_end (front);
    }
  for (guint i = 0; i < http->fronts->len; i++)
    front_end (g_ptr_array_index (http->fronts, i));
  http_proxy_maybe_release (http);
}

static gboolean
http_proxy_signal_cb (gpointer user_data)
{
  HttpProxy *http = user_data;

  if (http->ending)
    return G_SOURCE_CONTINUE;
  http->ending = TRUE;
  snodo_http_transport_close_async (http->transport, NULL, http_proxy_closed_cb, http);
  return G_SOURCE_CONTINUE;
}
#endif

static HttpProxy *the_http_proxy;

static void
set_list (SnodoHttpTransport *transport,
          const char         *property,
          const char         *text)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) items = g_strsplit (text, ",", -1);
  g_auto(GStrv) list = NULL;

  for (guint i = 0; items[i] != NULL; i++)
    {
      g_strstrip (items[i]);
      if (items[i][0] != '\0')
        g_strv_builder_add (builder, items[i]);
    }
  list = g_strv_builder_end (builder);
  g_object_set (transport, property, list, NULL);
}

static gboolean
parse_count (GVariantDict *options,
             const char   *name,
             guint        *out,
             GError      **error)
{
  const char *text = NULL;
  guint64 value;

  if (!g_variant_dict_lookup (options, name, "&s", &text))
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT, &value, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s needs a number from 1, not “%s”",
                   name, text);
      return FALSE;
    }
  *out = (guint) value;
  return TRUE;
}

/* --token-introspection=@endpoint with --introspection-client-id and the
 * first line of --introspection-client-secret-file, which is wiped once
 * handed over and never printed. */
static gboolean
set_introspection (GVariantDict            *options,
                   SnodoHttpAuthorization  *authorization,
                   const char              *endpoint,
                   int                     *status,
                   GError                 **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *secret = NULL;
  const char *client_id = NULL;
  const char *secret_file = NULL;
  gsize len = 0;
  gboolean ok;

  if (!g_variant_dict_lookup (options, "introspection-client-id", "&s", &client_id) || client_id[0] == '\0' ||
      !g_variant_dict_lookup (options, "introspection-client-secret-file", "^&ay", &secret_file))
    {
      *status = 2;
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--token-introspection needs --introspection-client-id and "
                           "--introspection-client-secret-file");
      return FALSE;
    }
  if (!g_file_get_contents (secret_file, &secret, &len, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   "--introspection-client-secret-file: %s", local_error->message);
      return FALSE;
    }
  if (memchr (secret, '\0', len) == NULL)
    secret[strcspn (secret, "\r\n")] = '\0';
  else
    secret[0] = '\0';
  if (secret[0] == '\0')
    {
      g_autofree char *display = g_filename_display_name (secret_file);

      memset (secret, 0, len);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "--introspection-client-secret-file: “%s” holds no secret", display);
      return FALSE;
    }
  ok = snodo_http_authorization_set_introspection (authorization, endpoint, client_id, secret, &local_error);
  memset (secret, 0, len);
  if (!ok)
    {
      *status = 2;
      g_set_error (error, local_error->domain, local_error->code, "--token-introspection: %s", local_error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
http_proxy_set_up (HttpProxy *http,
                   int       *status,
                   GError   **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autofree char *uri = NULL;
  const char *where = NULL;
  const char *unix_path = NULL;
  const char *certificate_file = NULL;
  const char *key_file = NULL;
  const char *text = NULL;
  const char *token_file = NULL;
  const char *introspection = NULL;
  g_autofree const char **servers = NULL;
  guint max_sessions = 0;

  *status = 2;
  g_variant_dict_lookup (http->options, "http", "&s", &where);
  g_variant_dict_lookup (http->options, "http-unix", "^&ay", &unix_path);
  g_variant_dict_lookup (http->options, "tls-certificate", "^&ay", &certificate_file);
  g_variant_dict_lookup (http->options, "tls-key", "^&ay", &key_file);
  g_variant_dict_lookup (http->options, "accept-bearer-token-file", "^&ay", &token_file);
  g_variant_dict_lookup (http->options, "authorization-server", "^a&s", &servers);
  g_variant_dict_lookup (http->options, "token-introspection", "&s", &introspection);
  if ((where != NULL) == (unix_path != NULL))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "proxy serves over HTTP with --http [ADDRESS:]PORT or --http-unix PATH, one of them");
      return FALSE;
    }
  if ((certificate_file != NULL) != (key_file != NULL))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--tls-certificate and --tls-key go together");
      return FALSE;
    }
  if ((token_file != NULL || introspection != NULL) != (servers != NULL && servers[0] != NULL))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--accept-bearer-token-file or --token-introspection goes with --authorization-server: "
                           "the metadata must name where clients get tokens");
      return FALSE;
    }
  if (!parse_count (http->options, "max-sessions", &max_sessions, error) ||
      !parse_count (http->options, "pool-size", &http->pool_size, error))
    return FALSE;
  if (where != NULL)
    {
      g_autoptr(GError) local_error = NULL;

      address = snodo_http_transport_parse_address (where, &local_error);
      if (address == NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--http: %s", local_error->message);
          return FALSE;
        }
    }
  else
    {
#ifdef G_OS_UNIX
      address = g_unix_socket_address_new (unix_path);
#else
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "Unix sockets are not supported here");
      return FALSE;
#endif
    }

  *status = 1;
  http->server = snodo_server_new ("snodo-proxy", PACKAGE_VERSION);
  snodo_server_set_forward_func (http->server, http_proxy_forward_cb, http, NULL);
  http->transport = snodo_http_transport_new (http->server);
  if (max_sessions > 0)
    snodo_http_transport_set_max_sessions (http->transport, max_sessions);
  if (certificate_file != NULL)
    {
      g_autoptr(GTlsCertificate) certificate = g_tls_certificate_new_from_files (certificate_file, key_file, error);

      if (certificate == NULL)
        return FALSE;
      snodo_http_transport_set_tls_certificate (http->transport, certificate);
    }
  if (g_variant_dict_lookup (http->options, "allowed-hosts", "&s", &text))
    set_list (http->transport, "allowed-hosts", text);
  if (g_variant_dict_lookup (http->options, "allowed-origins", "&s", &text))
    set_list (http->transport, "allowed-origins", text);
  if (token_file != NULL || introspection != NULL)
    {
      g_autoptr(SnodoHttpAuthorization) authorization = snodo_http_authorization_new ();

      snodo_http_authorization_set_authorization_servers (authorization, servers);
      /* The file's tokens first; a token it does not have goes to the
       * introspection endpoint. */
      if (token_file != NULL)
        {
          http->tokens = read_tokens (token_file, error);
          if (http->tokens == NULL)
            return FALSE;
          g_signal_connect (authorization, "validate-token", G_CALLBACK (validate_token_cb), http);
        }
      if (introspection != NULL && !set_introspection (http->options, authorization, introspection, status, error))
        return FALSE;
      snodo_http_transport_set_authorization (http->transport, authorization);
    }

  if (!snodo_http_transport_listen (http->transport, address, error))
    {
      *status = 3;
      return FALSE;
    }
  if (where != NULL)
    uri = snodo_http_transport_dup_uri (http->transport);
  else
    {
      g_autofree char *path = g_uri_escape_string (unix_path, NULL, FALSE);

      uri = g_strdup_printf ("http+unix://%s%s", path, snodo_http_transport_get_path (http->transport));
    }
  /* The first line of standard output: where to connect. */
  g_print ("%s\n", uri);
  fflush (stdout);
  *status = 0;
  return TRUE;
}

static void
http_proxy_free (HttpProxy *http)
{
  g_clear_object (&http->transport);
  g_clear_object (&http->server);
  g_clear_pointer (&http->fronts, g_ptr_array_unref);
  g_clear_pointer (&http->pool, g_ptr_array_unref);
  g_clear_pointer (&http->tokens, g_hash_table_unref);
  g_clear_pointer (&http->options, g_variant_dict_unref);
  g_strfreev (http->argv);
  g_free (http);
}

void
snodo_cli_proxy_http_clear (void)
{
  g_clear_pointer (&the_http_proxy, http_proxy_free);
}

int
snodo_cli_proxy_http (GApplication *app,
                      GVariantDict *options,
                      char        **argv)
{
  g_autoptr(GError) error = NULL;
  HttpProxy *http = g_new0 (HttpProxy, 1);
  int status;

  http->app = app;
  http->options = g_variant_dict_ref (options);
  http->argv = g_strdupv (argv);
  http->fronts = g_ptr_array_new ();
  http->pool = g_ptr_array_new ();
  http->pool_size = 4;
  if (!http_proxy_set_up (http, &status, &error))
    {
      g_printerr ("snodo: %s%s\n", error->message, status == 2 ? " (see snodo --help)" : "");
      http_proxy_free (http);
      return status;
    }
  the_http_proxy = http;
#ifdef G_OS_UNIX
  g_unix_signal_add (SIGTERM, http_proxy_signal_cb, http);
  g_unix_signal_add (SIGINT, http_proxy_signal_cb, http);
#endif
  g_application_hold (app);
  return 0;
}

#else /* !SNODO_HAS_HTTP_TRANSPORT */

void
snodo_cli_proxy_http_clear (void)
{
}

int
snodo_cli_proxy_http (GApplication *app,
                      GVariantDict *options,
                      char        **argv)
{
  g_printerr ("snodo: proxy --http needs Snodo's HTTP transport, which this build lacks (-Dhttp=disabled)\n");
  return 1;
}

#endif
