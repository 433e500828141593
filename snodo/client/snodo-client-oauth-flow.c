/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* One OAuth 2.1 sign-in of SnodoClientOAuth, run from start to end in a
 * worker thread with blocking HTTP on a session of its own (nothing here
 * touches the client's context except through g_main_context_invoke):
 *
 *   discovery      the challenge's resource_metadata, else RFC 9728's
 *                  path-aware then root well-known URL; the resource
 *                  checked against the server's URI; the authorization
 *                  server's RFC 8414 metadata, else OpenID Connect's, in
 *                  the specification's order, its issuer checked;
 *   registration   pre-registered, else a stored one of the same issuer,
 *                  else a Client ID Metadata Document URL when the server
 *                  supports it, else RFC 7591 dynamic registration;
 *   grant          authorization code with PKCE S256, state and iss
 *                  checked, RFC 8707 resource, a loopback redirect on
 *                  127.0.0.1 whose port is kept with the registration; or
 *                  client credentials; refresh when possible.
 *
 * Tokens are never logged. With a store, one sign-in runs at a time per
 * server across processes (a lock file), and what it gets is stored. */

#include "config.h"

#include <string.h>

#include <glib.h>
#ifdef G_OS_UNIX
# include <errno.h>
# include <fcntl.h>
# include <unistd.h>
#endif

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "snodo-client-oauth-private.h"

#include "snodo-base-private.h"
#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"

/* How long a sign-in waits for the browser to come back. */
#define FLOW_REDIRECT_TIMEOUT_S  300
/* A token this close to its end is refreshed before it is used. */
#define FLOW_EXPIRY_MARGIN_S     60
#define FLOW_HTTP_TIMEOUT_S      30

/* The flow. */

SnodoOAuthFlow *
snodo_oauth_flow_new (void)
{
  SnodoOAuthFlow *flow = g_atomic_rc_box_new0 (SnodoOAuthFlow);

  g_mutex_init (&flow->lock);
  g_weak_ref_init (&flow->oauth, NULL);
  return flow;
}

SnodoOAuthFlow *
snodo_oauth_flow_ref (SnodoOAuthFlow *flow)
{
  return g_atomic_rc_box_acquire (flow);
}

static void
snodo_oauth_flow_clear (gpointer data)
{
  SnodoOAuthFlow *flow = data;

  g_free (flow->server_uri);
  g_free (flow->www_authenticate);
  g_free (flow->client_id);
  g_free (flow->client_secret);
  g_free (flow->client_metadata_url);
  g_free (flow->scope);
  g_clear_object (&flow->store);
  g_clear_pointer (&flow->state, json_object_unref);
  g_clear_pointer (&flow->client_context, g_main_context_unref);
  g_weak_ref_clear (&flow->oauth);
  g_free (flow->redirect);
  g_clear_pointer (&flow->flow_context, g_main_context_unref);
  g_clear_pointer (&flow->result, json_object_unref);
  g_mutex_clear (&flow->lock);
}

void
snodo_oauth_flow_unref (SnodoOAuthFlow *flow)
{
  g_atomic_rc_box_release_full (flow, snodo_oauth_flow_clear);
}

void
snodo_oauth_flow_unhandled (SnodoOAuthFlow *flow)
{
  g_autoptr(GMainContext) context = NULL;

  g_mutex_lock (&flow->lock);
  flow->unhandled = TRUE;
  if (flow->flow_context != NULL)
    context = g_main_context_ref (flow->flow_context);
  g_mutex_unlock (&flow->lock);
  if (context != NULL)
    g_main_context_wakeup (context);
}

void
snodo_oauth_flow_redirect (SnodoOAuthFlow *flow,
                           const char     *uri)
{
  g_autoptr(GMainContext) context = NULL;

  g_mutex_lock (&flow->lock);
  if (flow->redirect == NULL)
    flow->redirect = g_strdup (uri);
  if (flow->flow_context != NULL)
    context = g_main_context_ref (flow->flow_context);
  g_mutex_unlock (&flow->lock);
  if (context != NULL)
    g_main_context_wakeup (context);
}

/* What one sign-in works with, in its thread. */
typedef struct
{
  SnodoOAuthFlow *flow;
  GCancellable *cancellable;
  SoupSession *session;
  /* The state being built: a copy of the flow's. Owned. */
  JsonObject *state;
  /* The authorization server's metadata, or NULL. Owned. */
  JsonObject *metadata;
  /* Whether @metadata is the 2025-03-26 default endpoints, for a
   * server that published none. */
  gboolean default_endpoints;
  /* The loopback redirect listener, or NULL. Owned. */
  SoupServer *listener;
} Run;

static JsonObject *
object_copy (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) copy = NULL;

  json_node_set_object (node, object);
  copy = json_node_copy (node);
  return json_object_ref (json_node_get_object (copy));
}

static char *
object_text (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return json_to_string (node, FALSE);
}

static const char *
state_get (Run        *run,
           const char *name)
{
  return snodo_json_object_get_string (run->state, name);
}

static void
state_set (Run        *run,
           const char *name,
           const char *value)
{
  if (value != NULL)
    json_object_set_string_member (run->state, name, value);
  else if (json_object_has_member (run->state, name))
    json_object_remove_member (run->state, name);
}

static void
state_forget_tokens (Run *run)
{
  state_set (run, "access_token", NULL);
  state_set (run, "refresh_token", NULL);
  if (json_object_has_member (run->state, "expires_at"))
    json_object_remove_member (run->state, "expires_at");
}

static void
state_forget_registration (Run *run)
{
  static const char * const names[] = {
    "client_id", "client_secret", "token_endpoint_auth_method", "redirect_uri", "registration",
    "issuer", "token_endpoint", "requested_scope", "scope",
  };

  state_forget_tokens (run);
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    state_set (run, names[i], NULL);
}

/* A JSON object at @url: NULL with *status set when the answer is no
 * success or no object; NULL with @error when it could not be asked. */
static JsonObject *
http_json (Run          *run,
           SoupMessage  *message,
           guint        *status,
           GError      **error)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonNode) node = NULL;

  body = soup_session_send_and_read (run->session, message, run->cancellable, error);
  if (body == NULL)
    return NULL;
  *status = soup_message_get_status (message);
  node = json_from_string (g_bytes_get_size (body) > 0 ? (const char *) g_bytes_get_data (body, NULL) : "null", NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

static JsonObject *
fetch_metadata (Run         *run,
                const char  *url,
                GError     **error)
{
  g_autoptr(SoupMessage) message = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) local = NULL;
  guint status = 0;

  if (!snodo_oauth_uri_is_allowed (url))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("%s is neither HTTPS nor on this machine"), url);
      return NULL;
    }
  message = soup_message_new ("GET", url);
  if (message == NULL)
    return NULL;
  soup_message_headers_replace (soup_message_get_request_headers (message), "Accept", "application/json");
  object = http_json (run, message, &status, &local);
  if (local != NULL)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_debug ("OAuth metadata at %s: %s", url, local->message);
      return NULL;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    return NULL;
  return g_steal_pointer (&object);
}

static char *
form_escape (const char *text)
{
  return g_uri_escape_string (text, NULL, FALSE);
}

/* A POST to the token endpoint with @form, the client authenticated as
 * its registration says; the token answer goes into the state. */
static gboolean
token_request (Run         *run,
               GHashTable  *form,
               GError     **error)
{
  const char *endpoint = state_get (run, "token_endpoint");
  const char *method = state_get (run, "token_endpoint_auth_method");
  const char *client_id = state_get (run, "client_id");
  const char *secret = state_get (run, "client_secret");
  g_autoptr(SoupMessage) message = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *body = NULL;
  const char *access;
  const char *type;
  const char *refresh;
  guint status = 0;

  if (endpoint == NULL || !snodo_oauth_uri_is_allowed (endpoint))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The token endpoint %s is neither HTTPS nor on this machine"),
                   endpoint != NULL ? endpoint : "(none)");
      return FALSE;
    }
  if (g_strcmp0 (method, "client_secret_basic") == 0 && secret != NULL)
    {
      g_autofree char *id = form_escape (client_id);
      g_autofree char *pass = form_escape (secret);
      g_autofree char *pair = g_strconcat (id, ":", pass, NULL);
      g_autofree char *encoded = g_base64_encode ((const guchar *) pair, strlen (pair));
      g_autofree char *header = g_strconcat ("Basic ", encoded, NULL);

      message = soup_message_new ("POST", endpoint);
      if (message == NULL)
        return FALSE;
      soup_message_headers_replace (soup_message_get_request_headers (message), "Authorization", header);
    }
  else
    {
      message = soup_message_new ("POST", endpoint);
      if (message == NULL)
        return FALSE;
      if (client_id != NULL)
        g_hash_table_replace (form, (char *) "client_id", (char *) client_id);
      if (g_strcmp0 (method, "client_secret_post") == 0 && secret != NULL)
        g_hash_table_replace (form, (char *) "client_secret", (char *) secret);
    }
  body = soup_form_encode_hash (form);
  soup_message_headers_replace (soup_message_get_request_headers (message), "Accept", "application/json");
  soup_message_set_request_body_from_bytes (message, SOUP_FORM_MIME_TYPE_URLENCODED,
                                            g_bytes_new_take (g_steal_pointer (&body), strlen (body)));
  answer = http_json (run, message, &status, error);
  if (answer == NULL && (error == NULL || *error != NULL))
    return FALSE;
  if (!SOUP_STATUS_IS_SUCCESSFUL (status) || answer == NULL)
    {
      const char *code = answer != NULL ? snodo_json_object_get_string (answer, "error") : NULL;
      const char *description = answer != NULL ? snodo_json_object_get_string (answer, "error_description") : NULL;

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The authorization server refused the token request (HTTP %u %s%s%s)"), status,
                   code != NULL ? code : "", description != NULL ? ": " : "",
                   description != NULL ? description : "");
      return FALSE;
    }
  access = snodo_json_object_get_string (answer, "access_token");
  type = snodo_json_object_get_string (answer, "token_type");
  if (access == NULL || (type != NULL && g_ascii_strcasecmp (type, "bearer") != 0))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The authorization server's token answer has no bearer access token"));
      return FALSE;
    }
  state_set (run, "access_token", access);
  /* A refresh answer without a refresh token keeps the old one. */
  refresh = snodo_json_object_get_string (answer, "refresh_token");
  if (refresh != NULL)
    state_set (run, "refresh_token", refresh);
  if (json_object_has_member (answer, "expires_in") &&
      snodo_json_node_is_number (json_object_get_member (answer, "expires_in")))
    json_object_set_int_member (run->state, "expires_at",
                                g_get_real_time () / G_USEC_PER_SEC +
                                json_object_get_int_member (answer, "expires_in"));
  else if (json_object_has_member (run->state, "expires_at"))
    json_object_remove_member (run->state, "expires_at");
  if (snodo_json_object_get_string (answer, "scope") != NULL)
    state_set (run, "scope", snodo_json_object_get_string (answer, "scope"));
  return TRUE;
}

static gboolean
refresh (Run     *run,
         GError **error)
{
  g_autoptr(GHashTable) form = g_hash_table_new (g_str_hash, g_str_equal);

  g_hash_table_insert (form, (char *) "grant_type", (char *) "refresh_token");
  g_hash_table_insert (form, (char *) "refresh_token", (char *) state_get (run, "refresh_token"));
  if (state_get (run, "resource") != NULL)
    g_hash_table_insert (form, (char *) "resource", (char *) state_get (run, "resource"));
  return token_request (run, form, error);
}

/* The metadata's list @name holds @value (FALSE when there is none). */
static gboolean
metadata_lists (JsonObject *metadata,
                const char *name,
                const char *value)
{
  JsonNode *node = metadata != NULL ? json_object_get_member (metadata, name) : NULL;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (element), value))
        return TRUE;
    }
  return FALSE;
}

static char *
metadata_joined (JsonObject *metadata,
                 const char *name)
{
  JsonNode *node = metadata != NULL ? json_object_get_member (metadata, name) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) strv = NULL;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        g_strv_builder_add (builder, json_node_get_string (element));
    }
  strv = g_strv_builder_end (builder);
  return strv[0] != NULL ? g_strjoinv (" ", strv) : NULL;
}

/* Discovery: the resource, the authorization server and its metadata
 * into the state; the scopes the resource lists into @resource_scopes. */
static gboolean
discover (Run                  *run,
          SnodoOAuthChallenge  *challenge,
          char                **resource_scopes,
          GError              **error)
{
  SnodoOAuthFlow *flow = run->flow;
  g_autoptr(JsonObject) prm = NULL;
  g_auto(GStrv) urls = NULL;
  g_autofree char *issuer = NULL;
  g_autoptr(GUri) server = NULL;

  /* The challenge's URL, when it names one, is the only one. */
  if (challenge->resource_metadata != NULL)
    {
      prm = fetch_metadata (run, challenge->resource_metadata, error);
      if (error != NULL && *error != NULL)
        return FALSE;
      if (prm == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("Could not read the resource metadata at %s"), challenge->resource_metadata);
          return FALSE;
        }
    }
  urls = snodo_oauth_resource_metadata_urls (flow->server_uri);
  for (guint i = 0; prm == NULL && urls[i] != NULL; i++)
    {
      prm = fetch_metadata (run, urls[i], error);
      if (error != NULL && *error != NULL)
        return FALSE;
    }

  if (prm != NULL)
    {
      const char *resource = snodo_json_object_get_string (prm, "resource");
      JsonNode *servers = json_object_get_member (prm, "authorization_servers");
      JsonNode *first = NULL;

      if (resource == NULL || !snodo_oauth_resource_matches (resource, flow->server_uri))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       _("The protected resource metadata of %s names another resource, %s"),
                       flow->server_uri, resource != NULL ? resource : "(none)");
          return FALSE;
        }
      if (servers != NULL && JSON_NODE_HOLDS_ARRAY (servers) && json_array_get_length (json_node_get_array (servers)) > 0)
        first = json_array_get_element (json_node_get_array (servers), 0);
      if (first == NULL || !JSON_NODE_HOLDS_VALUE (first) || json_node_get_value_type (first) != G_TYPE_STRING)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The protected resource metadata of %s names no authorization server"),
                       flow->server_uri);
          return FALSE;
        }
      issuer = g_strdup (json_node_get_string (first));
      state_set (run, "resource", resource);
      *resource_scopes = metadata_joined (prm, "scopes_supported");
    }
  else
    {
      /* 2025-03-26: the authorization server is the server's origin. */
      server = g_uri_parse (flow->server_uri, G_URI_FLAGS_ENCODED, NULL);
      if (server == NULL)
        return FALSE;
      issuer = snodo_oauth_origin_with_path (server, "");
      state_set (run, "resource", flow->server_uri);
    }

  if (!snodo_oauth_uri_is_allowed (issuer))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The authorization server %s is neither HTTPS nor on this machine"), issuer);
      return FALSE;
    }
  /* Another authorization server: nothing of the old one is used. */
  if (state_get (run, "issuer") != NULL && !g_str_equal (state_get (run, "issuer"), issuer))
    state_forget_registration (run);
  state_set (run, "issuer", issuer);

  g_clear_pointer (&urls, g_strfreev);
  urls = snodo_oauth_server_metadata_urls (issuer);
  for (guint i = 0; run->metadata == NULL && urls[i] != NULL; i++)
    {
      run->metadata = fetch_metadata (run, urls[i], error);
      if (error != NULL && *error != NULL)
        return FALSE;
    }
  if (run->metadata != NULL)
    {
      const char *endpoint;

      /* 2025-03-26, without resource metadata, had no issuer to check
       * against: the metadata's is the one. */
      if (prm == NULL && snodo_json_object_get_string (run->metadata, "issuer") != NULL)
        state_set (run, "issuer", snodo_json_object_get_string (run->metadata, "issuer"));
      else if (g_strcmp0 (snodo_json_object_get_string (run->metadata, "issuer"), issuer) != 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       _("The metadata of the authorization server %s names another issuer"), issuer);
          return FALSE;
        }
      endpoint = snodo_json_object_get_string (run->metadata, "token_endpoint");
      if (endpoint == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The authorization server %s has no token endpoint"), issuer);
          return FALSE;
        }
      state_set (run, "token_endpoint", endpoint);
    }
  else if (prm == NULL)
    {
      /* 2025-03-26 servers without metadata: the default endpoints. */
      g_autoptr(JsonObject) defaults = json_object_new ();
      g_autofree char *authorize = snodo_oauth_origin_with_path (server, "/authorize");
      g_autofree char *token = snodo_oauth_origin_with_path (server, "/token");
      g_autofree char *registration = snodo_oauth_origin_with_path (server, "/register");

      json_object_set_string_member (defaults, "issuer", issuer);
      json_object_set_string_member (defaults, "authorization_endpoint", authorize);
      json_object_set_string_member (defaults, "token_endpoint", token);
      json_object_set_string_member (defaults, "registration_endpoint", registration);
      run->metadata = g_steal_pointer (&defaults);
      run->default_endpoints = TRUE;
      state_set (run, "token_endpoint", token);
    }
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The authorization server %s publishes no metadata"), issuer);
      return FALSE;
    }
  return TRUE;
}

/* The loopback redirect. */

static void
listener_cb (SoupServer        *server,
             SoupServerMessage *message,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  Run *run = user_data;
  g_autofree char *uri = g_uri_to_string (soup_server_message_get_uri (message));
  static const char page[] =
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Snodo</title></head>"
    "<body><p>The sign-in is complete: you may close this window.</p></body></html>";

  if (!g_str_equal (path, "/callback"))
    {
      soup_server_message_set_status (message, SOUP_STATUS_NOT_FOUND, NULL);
      return;
    }
  snodo_oauth_flow_redirect (run->flow, uri);
  soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (message, "text/html; charset=utf-8", SOUP_MEMORY_STATIC, page, strlen (page));
}

static gboolean
listen_loopback (Run     *run,
                 guint    port,
                 guint   *bound,
                 GError **error)
{
  g_autoptr(GSList) uris = NULL;

  g_clear_object (&run->listener);
  run->listener = soup_server_new ("server-header", "snodo", NULL);
  soup_server_add_handler (run->listener, NULL, listener_cb, run, NULL);
  if (!soup_server_listen_local (run->listener, port, SOUP_SERVER_LISTEN_IPV4_ONLY, error))
    {
      g_clear_object (&run->listener);
      return FALSE;
    }
  uris = soup_server_get_uris (run->listener);
  *bound = uris != NULL ? (guint) g_uri_get_port (uris->data) : port;
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);
  return TRUE;
}

/* Registration. */

static const char *
choose_auth_method (JsonObject *metadata,
                    gboolean    has_secret)
{
  JsonNode *node = metadata != NULL ? json_object_get_member (metadata, "token_endpoint_auth_methods_supported") : NULL;

  if (!has_secret)
    return "none";
  if (node == NULL || metadata_lists (metadata, "token_endpoint_auth_methods_supported", "client_secret_basic"))
    return "client_secret_basic";
  if (metadata_lists (metadata, "token_endpoint_auth_methods_supported", "client_secret_post"))
    return "client_secret_post";
  return "client_secret_basic";
}

static gboolean
register_dynamically (Run         *run,
                      const char  *redirect_uri,
                      GError     **error)
{
  const char *endpoint = snodo_json_object_get_string (run->metadata, "registration_endpoint");
  g_autoptr(JsonObject) request = json_object_new ();
  g_autoptr(JsonArray) redirects = json_array_new ();
  g_autoptr(JsonArray) grants = json_array_new ();
  g_autoptr(JsonArray) responses = json_array_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(SoupMessage) message = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *body = NULL;
  const char *requested;
  const char *client_id;
  const char *method;
  guint status = 0;

  if (endpoint == NULL || !snodo_oauth_uri_is_allowed (endpoint))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The authorization server %s offers no way to register this client: "
                     "set a client id"), state_get (run, "issuer"));
      return FALSE;
    }
  if (metadata_lists (run->metadata, "token_endpoint_auth_methods_supported", "none") ||
      json_object_get_member (run->metadata, "token_endpoint_auth_methods_supported") == NULL)
    requested = "none";
  else if (metadata_lists (run->metadata, "token_endpoint_auth_methods_supported", "client_secret_basic"))
    requested = "client_secret_basic";
  else
    requested = "client_secret_post";

  json_array_add_string_element (redirects, redirect_uri);
  json_array_add_string_element (grants, "authorization_code");
  json_array_add_string_element (grants, "refresh_token");
  json_array_add_string_element (responses, "code");
  json_object_set_string_member (request, "client_name", "Snodo");
  json_object_set_array_member (request, "redirect_uris", g_steal_pointer (&redirects));
  json_object_set_array_member (request, "grant_types", g_steal_pointer (&grants));
  json_object_set_array_member (request, "response_types", g_steal_pointer (&responses));
  json_object_set_string_member (request, "token_endpoint_auth_method", requested);
  json_object_set_string_member (request, "application_type", "native");
  json_node_set_object (node, request);
  body = json_to_string (node, FALSE);

  message = soup_message_new ("POST", endpoint);
  if (message == NULL)
    return FALSE;
  soup_message_headers_replace (soup_message_get_request_headers (message), "Accept", "application/json");
  soup_message_set_request_body_from_bytes (message, "application/json",
                                            g_bytes_new_take (g_steal_pointer (&body), strlen (body)));
  answer = http_json (run, message, &status, error);
  if (answer == NULL && error != NULL && *error != NULL)
    return FALSE;
  client_id = answer != NULL ? snodo_json_object_get_string (answer, "client_id") : NULL;
  if (!SOUP_STATUS_IS_SUCCESSFUL (status) || client_id == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The authorization server refused to register this client (HTTP %u)"), status);
      return FALSE;
    }
  state_set (run, "client_id", client_id);
  state_set (run, "client_secret", snodo_json_object_get_string (answer, "client_secret"));
  method = snodo_json_object_get_string (answer, "token_endpoint_auth_method");
  if (method == NULL)
    method = snodo_json_object_get_string (answer, "client_secret") != NULL ? "client_secret_basic" : "none";
  state_set (run, "token_endpoint_auth_method", method);
  state_set (run, "redirect_uri", redirect_uri);
  state_set (run, "registration", "dynamic");
  return TRUE;
}

/* The client's identity at the authorization server: configured, kept
 * from before, a metadata document, or registered now (which needs the
 * redirect URI, so the listener is up first). */
static gboolean
identify (Run     *run,
          GError **error)
{
  SnodoOAuthFlow *flow = run->flow;
  g_autofree char *redirect_uri = NULL;
  guint port = flow->redirect_port;
  guint bound = 0;

  if (!flow->client_credentials)
    {
      const char *stored = state_get (run, "redirect_uri");

      if (port == 0 && stored != NULL)
        {
          g_autoptr(GUri) uri = g_uri_parse (stored, G_URI_FLAGS_NONE, NULL);

          if (uri != NULL && g_uri_get_port (uri) > 0)
            port = (guint) g_uri_get_port (uri);
        }
      if (!listen_loopback (run, port, &bound, NULL))
        {
          /* The kept port is taken: another, and a new registration
           * when the old one named that port. */
          if (port == flow->redirect_port && port != 0)
            return listen_loopback (run, port, &bound, error);
          if (!listen_loopback (run, 0, &bound, error))
            return FALSE;
          if (g_strcmp0 (state_get (run, "registration"), "dynamic") == 0)
            {
              g_autofree char *issuer = g_strdup (state_get (run, "issuer"));

              state_forget_registration (run);
              state_set (run, "issuer", issuer);
            }
        }
      redirect_uri = g_strdup_printf ("http://127.0.0.1:%u/callback", bound);
    }

  if (flow->client_id != NULL)
    {
      state_set (run, "client_id", flow->client_id);
      state_set (run, "client_secret", flow->client_secret);
      state_set (run, "token_endpoint_auth_method",
                 choose_auth_method (run->metadata, flow->client_secret != NULL));
      state_set (run, "registration", "configured");
      state_set (run, "redirect_uri", redirect_uri);
      return TRUE;
    }
  if (state_get (run, "client_id") != NULL &&
      (redirect_uri == NULL || g_strcmp0 (state_get (run, "redirect_uri"), redirect_uri) == 0))
    return TRUE;
  if (flow->client_metadata_url != NULL &&
      json_object_has_member (run->metadata, "client_id_metadata_document_supported") &&
      json_object_get_boolean_member_with_default (run->metadata, "client_id_metadata_document_supported", FALSE))
    {
      state_set (run, "client_id", flow->client_metadata_url);
      state_set (run, "client_secret", NULL);
      state_set (run, "token_endpoint_auth_method", "none");
      state_set (run, "registration", "metadata-document");
      state_set (run, "redirect_uri", redirect_uri);
      return TRUE;
    }
  if (flow->client_credentials)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The client credentials grant needs a client id and secret"));
      return FALSE;
    }
  return register_dynamically (run, redirect_uri, error);
}

/* The authorization code grant. */

static void
emit_in_client_context (SnodoOAuthFlow *flow,
                        const char     *url);

static gboolean
wait_timeout_cb (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
wait_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  return G_SOURCE_CONTINUE;
}

static char *
wait_for_redirect (Run     *run,
                   GError **error)
{
  SnodoOAuthFlow *flow = run->flow;
  g_autoptr(GSource) timeout = g_timeout_source_new_seconds (FLOW_REDIRECT_TIMEOUT_S);
  g_autoptr(GSource) cancelled = NULL;
  gboolean expired = FALSE;
  gboolean unhandled = FALSE;
  char *redirect = NULL;

  g_source_set_callback (timeout, wait_timeout_cb, &expired, NULL);
  g_source_attach (timeout, flow->flow_context);
  if (run->cancellable != NULL)
    {
      cancelled = g_cancellable_source_new (run->cancellable);
      g_source_set_callback (cancelled, G_SOURCE_FUNC (wait_cancelled_cb), NULL, NULL);
      g_source_attach (cancelled, flow->flow_context);
    }
  for (;;)
    {
      g_mutex_lock (&flow->lock);
      redirect = g_steal_pointer (&flow->redirect);
      unhandled = flow->unhandled;
      g_mutex_unlock (&flow->lock);
      if (redirect != NULL || expired || unhandled || g_cancellable_set_error_if_cancelled (run->cancellable, error))
        break;
      g_main_context_iteration (flow->flow_context, TRUE);
    }
  g_source_destroy (timeout);
  if (cancelled != NULL)
    g_source_destroy (cancelled);
  if (redirect == NULL && unhandled)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                 _("Signing in to %s needs a browser, and none could be opened"), flow->server_uri);
  else if (redirect == NULL && expired)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                 _("Nobody completed the sign-in within %u seconds"), FLOW_REDIRECT_TIMEOUT_S);
  return redirect;
}

static gboolean
authorize (Run         *run,
           const char  *scope,
           GError     **error)
{
  const char *endpoint = snodo_json_object_get_string (run->metadata, "authorization_endpoint");
  const char *issuer = state_get (run, "issuer");
  g_autofree char *verifier = NULL;
  g_autofree char *challenge = NULL;
  g_autofree char *state = NULL;
  g_autofree char *query = NULL;
  g_autofree char *url = NULL;
  g_autofree char *redirect = NULL;
  g_autoptr(GHashTable) params = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) answer = NULL;
  g_autoptr(GUri) redirected = NULL;
  g_autoptr(GHashTable) form = g_hash_table_new (g_str_hash, g_str_equal);
  const char *code;
  const char *iss;

  if (endpoint == NULL || !snodo_oauth_uri_is_allowed (endpoint))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The authorization endpoint %s is neither HTTPS nor on this machine"),
                   endpoint != NULL ? endpoint : "(none)");
      return FALSE;
    }
  verifier = snodo_oauth_random_string (48, error);
  state = snodo_oauth_random_string (24, error);
  if (verifier == NULL || state == NULL)
    return FALSE;
  challenge = snodo_oauth_pkce_challenge (verifier);

  g_hash_table_insert (params, (char *) "response_type", (char *) "code");
  g_hash_table_insert (params, (char *) "client_id", (char *) state_get (run, "client_id"));
  g_hash_table_insert (params, (char *) "redirect_uri", (char *) state_get (run, "redirect_uri"));
  g_hash_table_insert (params, (char *) "code_challenge", challenge);
  g_hash_table_insert (params, (char *) "code_challenge_method", (char *) "S256");
  g_hash_table_insert (params, (char *) "state", state);
  if (scope != NULL)
    g_hash_table_insert (params, (char *) "scope", (char *) scope);
  if (state_get (run, "resource") != NULL)
    g_hash_table_insert (params, (char *) "resource", (char *) state_get (run, "resource"));
  query = soup_form_encode_hash (params);
  url = g_strconcat (endpoint, strchr (endpoint, '?') != NULL ? "&" : "?", query, NULL);

  emit_in_client_context (run->flow, url);
  redirect = wait_for_redirect (run, error);
  if (redirect == NULL)
    return FALSE;

  redirected = g_uri_parse (redirect, G_URI_FLAGS_ENCODED, NULL);
  if (redirected != NULL && g_uri_get_query (redirected) != NULL)
    answer = soup_form_decode (g_uri_get_query (redirected));
  if (answer == NULL || g_strcmp0 (g_hash_table_lookup (answer, "state"), state) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The authorization answer does not carry the state of this sign-in"));
      return FALSE;
    }
  iss = g_hash_table_lookup (answer, "iss");
  if ((iss != NULL && g_strcmp0 (iss, issuer) != 0) ||
      (iss == NULL && json_object_get_boolean_member_with_default (run->metadata,
                                                                   "authorization_response_iss_parameter_supported",
                                                                   FALSE)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("The authorization answer does not come from the issuer %s"), issuer);
      return FALSE;
    }
  if (g_hash_table_lookup (answer, "error") != NULL)
    {
      const char *description = g_hash_table_lookup (answer, "error_description");

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, _("The sign-in was refused: %s%s%s"),
                   (const char *) g_hash_table_lookup (answer, "error"), description != NULL ? ": " : "",
                   description != NULL ? description : "");
      return FALSE;
    }
  code = g_hash_table_lookup (answer, "code");
  if (code == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The authorization answer has no code"));
      return FALSE;
    }

  g_hash_table_insert (form, (char *) "grant_type", (char *) "authorization_code");
  g_hash_table_insert (form, (char *) "code", (char *) code);
  g_hash_table_insert (form, (char *) "redirect_uri", (char *) state_get (run, "redirect_uri"));
  g_hash_table_insert (form, (char *) "code_verifier", verifier);
  if (state_get (run, "resource") != NULL)
    g_hash_table_insert (form, (char *) "resource", (char *) state_get (run, "resource"));
  state_forget_tokens (run);
  return token_request (run, form, error);
}

static gboolean
client_credentials (Run         *run,
                    const char  *scope,
                    GError     **error)
{
  g_autoptr(GHashTable) form = g_hash_table_new (g_str_hash, g_str_equal);

  g_hash_table_insert (form, (char *) "grant_type", (char *) "client_credentials");
  if (scope != NULL)
    g_hash_table_insert (form, (char *) "scope", (char *) scope);
  if (state_get (run, "resource") != NULL)
    g_hash_table_insert (form, (char *) "resource", (char *) state_get (run, "resource"));
  state_forget_tokens (run);
  return token_request (run, form, error);
}

/* The whole sign-in: what @reason asks, into run->state. */
static gboolean
sign_in (Run     *run,
         GError **error)
{
  SnodoOAuthFlow *flow = run->flow;
  g_auto(SnodoOAuthChallenge) challenge = { NULL, };
  g_autofree char *resource_scopes = NULL;
  g_autofree char *scope = NULL;
  g_autoptr(GError) refresh_error = NULL;
  const char *issuer_before = NULL;
  g_autofree char *issuer_kept = NULL;

  if (flow->reason == SNODO_OAUTH_PREPARE)
    {
      gint64 expires = json_object_get_int_member_with_default (run->state, "expires_at", 0);

      if (state_get (run, "access_token") != NULL && expires != 0 &&
          expires - FLOW_EXPIRY_MARGIN_S <= g_get_real_time () / G_USEC_PER_SEC)
        {
          if (state_get (run, "refresh_token") == NULL || !refresh (run, &refresh_error))
            {
              if (refresh_error != NULL)
                g_debug ("Refreshing the token of %s failed: %s", flow->server_uri, refresh_error->message);
              state_forget_tokens (run);
            }
        }
      return TRUE;
    }

  snodo_oauth_parse_challenge (flow->www_authenticate, &challenge);
  issuer_kept = g_strdup (state_get (run, "issuer"));
  issuer_before = issuer_kept;
  if (!discover (run, &challenge, &resource_scopes, error))
    return FALSE;

  if (!run->default_endpoints && !flow->client_credentials &&
      !metadata_lists (run->metadata, "code_challenge_methods_supported", "S256"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The authorization server %s does not support PKCE with S256"), state_get (run, "issuer"));
      return FALSE;
    }

  /* The scope: the challenge's, else the resource's; on a step-up, with
   * what was asked before, and only when that brings something new. */
  if (flow->reason == SNODO_OAUTH_STEP_UP)
    {
      const char *before = state_get (run, "requested_scope");

      if (challenge.scope == NULL || (before != NULL && snodo_oauth_scope_contains (before, challenge.scope)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       _("The server at %s wants a scope (%s) that signing in again would not add"),
                       flow->server_uri, challenge.scope != NULL ? challenge.scope : "");
          return FALSE;
        }
      scope = snodo_oauth_scope_union (before, challenge.scope);
    }
  else
    scope = g_strdup (challenge.scope != NULL ? challenge.scope : resource_scopes);
  if (flow->scope != NULL)
    {
      char *all = snodo_oauth_scope_union (scope, flow->scope);

      g_free (scope);
      scope = all;
    }
  /* A refresh token when the server offers one (SEP-2207). */
  if (scope != NULL && !flow->client_credentials &&
      metadata_lists (run->metadata, "scopes_supported", "offline_access"))
    {
      char *all = snodo_oauth_scope_union (scope, "offline_access");

      g_free (scope);
      scope = all;
    }

  /* A 401 with a refresh token of the same server: refreshed first. */
  if (flow->reason == SNODO_OAUTH_UNAUTHORIZED && state_get (run, "refresh_token") != NULL &&
      g_strcmp0 (issuer_before, state_get (run, "issuer")) == 0)
    {
      if (refresh (run, &refresh_error))
        return TRUE;
      g_debug ("Refreshing the token of %s failed: %s", flow->server_uri, refresh_error->message);
      state_forget_tokens (run);
    }

  if (!identify (run, error))
    return FALSE;
  state_set (run, "requested_scope", scope);
  if (flow->client_credentials)
    return client_credentials (run, scope, error);
  return authorize (run, scope, error);
}

/* The store, from this thread: its async calls completed on the flow's
 * context. */

typedef struct
{
  GAsyncResult *result;
} StoreWait;

static void
store_wait_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  StoreWait *wait = user_data;

  wait->result = g_object_ref (result);
}

static JsonObject *
store_lookup (Run        *run,
              const char *key)
{
  StoreWait wait = { NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *blob = NULL;
  g_autoptr(JsonNode) node = NULL;

  snodo_credential_store_lookup_async (run->flow->store, key, run->cancellable, store_wait_cb, &wait);
  while (wait.result == NULL)
    g_main_context_iteration (run->flow->flow_context, TRUE);
  blob = snodo_credential_store_lookup_finish (run->flow->store, wait.result, &error);
  g_object_unref (wait.result);
  if (error != NULL)
    g_debug ("Looking up the credentials of %s: %s", key, error->message);
  if (blob != NULL)
    node = json_from_string (blob, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

static void
store_save (Run        *run,
            const char *key)
{
  StoreWait wait = { NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *blob = NULL;

  json_node_set_object (node, run->state);
  blob = json_to_string (node, FALSE);
  snodo_credential_store_store_async (run->flow->store, key, blob, NULL, store_wait_cb, &wait);
  while (wait.result == NULL)
    g_main_context_iteration (run->flow->flow_context, TRUE);
  if (!snodo_credential_store_store_finish (run->flow->store, wait.result, &error))
    g_warning ("Could not store the credentials of %s: %s", key, error->message);
  g_object_unref (wait.result);
}

/* One sign-in per server at a time across processes: a lock on a file
 * of the user's runtime directory, held while the thread works. Where
 * POSIX record locks are missing (Windows), none: two processes may
 * then both sign in, and the last one's state is kept. */
static int
lock_server (const char *key)
{
#ifdef G_OS_UNIX
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  g_autofree char *dir = g_build_filename (g_get_user_runtime_dir (), "snodo", NULL);
  g_autofree char *name = g_strdup_printf ("oauth-%.32s.lock", hash);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  struct flock lock = { 0, };
  int fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    return -1;
  fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  while (fcntl (fd, F_SETLKW, &lock) < 0)
    {
      if (errno != EINTR)
        {
          g_close (fd, NULL);
          return -1;
        }
    }
  return fd;
#else
  return -1;
#endif
}

static void
unlock_server (int fd)
{
  if (fd >= 0)
    g_close (fd, NULL);
}

gboolean
snodo_oauth_flow_run (SnodoOAuthFlow *flow,
                      GCancellable   *cancellable,
                      GError        **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  Run run = { flow, cancellable, NULL, NULL, NULL, FALSE, NULL };
  g_autoptr(JsonObject) stored = NULL;
  g_autofree char *before = NULL;
  gboolean ok;
  int lock = -1;

  g_main_context_push_thread_default (context);
  g_mutex_lock (&flow->lock);
  flow->flow_context = g_main_context_ref (context);
  g_mutex_unlock (&flow->lock);

  run.session = soup_session_new_with_options ("timeout", FLOW_HTTP_TIMEOUT_S,
                                               "user-agent", "snodo-oauth",
                                               NULL);
  run.state = flow->state != NULL ? object_copy (flow->state) : json_object_new ();

  if (flow->store != NULL)
    {
      lock = lock_server (flow->server_uri);
      stored = store_lookup (&run, flow->server_uri);
    }
  if (stored != NULL &&
      (flow->state == NULL ||
       g_strcmp0 (snodo_json_object_get_string (stored, "access_token"), state_get (&run, "access_token")) != 0))
    {
      /* What is stored is newer than what the client had (it started, or
       * another process signed in meanwhile): used as it is, and
       * refreshed if it must. */
      json_object_unref (run.state);
      run.state = g_steal_pointer (&stored);
      if (flow->reason == SNODO_OAUTH_UNAUTHORIZED && state_get (&run, "access_token") != NULL)
        flow->reason = SNODO_OAUTH_PREPARE;
    }

  before = object_text (run.state);
  ok = sign_in (&run, error);
  if (ok)
    {
      g_autofree char *after = object_text (run.state);

      flow->result = json_object_ref (run.state);
      /* Stored when it changed (a lookup that found nothing stores
       * nothing). */
      if (flow->store != NULL && !g_str_equal (before, after))
        store_save (&run, flow->server_uri);
    }
  unlock_server (lock);

  g_clear_object (&run.listener);
  g_clear_object (&run.session);
  g_clear_pointer (&run.metadata, json_object_unref);
  g_clear_pointer (&run.state, json_object_unref);
  while (g_main_context_pending (context))
    g_main_context_iteration (context, FALSE);
  g_mutex_lock (&flow->lock);
  g_clear_pointer (&flow->flow_context, g_main_context_unref);
  g_mutex_unlock (&flow->lock);
  g_main_context_pop_thread_default (context);
  return ok;
}

/* Handing out the authorization URL, in the client's context. */

typedef struct
{
  SnodoOAuthFlow *flow;
  char *url;
} Emission;

static void
emission_free (gpointer data)
{
  Emission *emission = data;

  snodo_oauth_flow_unref (emission->flow);
  g_free (emission->url);
  g_free (emission);
}

static gboolean
emission_cb (gpointer user_data)
{
  Emission *emission = user_data;
  g_autoptr(SnodoClientOAuth) oauth = g_weak_ref_get (&emission->flow->oauth);

  if (oauth == NULL || !snodo_client_oauth_emit_authorize (oauth, emission->url))
    snodo_oauth_flow_unhandled (emission->flow);
  return G_SOURCE_REMOVE;
}

static void
emit_in_client_context (SnodoOAuthFlow *flow,
                        const char     *url)
{
  Emission *emission = g_new0 (Emission, 1);

  emission->flow = snodo_oauth_flow_ref (flow);
  emission->url = g_strdup (url);
  g_main_context_invoke_full (flow->client_context, G_PRIORITY_DEFAULT, emission_cb, emission, emission_free);
}
