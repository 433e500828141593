/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Authorization on the request path of the HTTP transport (see
 * snodo-http-auth-private.h and SnodoHttpAuthorization): the bearer token
 * of each request and the wait for its check, the challenges of 401 and
 * 403, the protected resource metadata document (RFC 9728), and which
 * principal a session belongs to.
 *
 * A request's check holds the message (paused), the transport and the
 * SnodoAuthRequest until the application answers or validation-timeout
 * passes, whichever is first; then the request is answered or routed as
 * if it had just come (snodo_http_transport_route()), carrying what the
 * check found (snodo_http_auth_get()). */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-http-auth-private.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport-private.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/* The longest token looked at; a longer one is refused unread. */
#define MAX_TOKEN_BYTES 16384

static GQuark auth_quark;

/* One request waiting for the check of its token. */
typedef struct
{
  /* In the transport's auth_checks. */
  GList               link;
  SnodoHttpTransport *transport;
  SoupServerMessage  *msg;
  SnodoAuthRequest   *request;
  GSource            *timeout_source;
  gulong              finished_id;
  /* libsoup is done with the message (the client left). */
  guint               finished : 1;
  guint               timed_out : 1;
} Check;

static void
check_free (Check *check)
{
  g_queue_unlink (&check->transport->auth_checks, &check->link);
  g_clear_pointer (&check->timeout_source, snodo_source_destroy_and_unref);
  if (check->finished_id != 0)
    g_signal_handler_disconnect (check->msg, check->finished_id);
  if (check->transport->listener != NULL && !check->finished)
    snodo_http_listener_release (check->transport->listener, check->msg);
  g_object_unref (check->msg);
  g_object_unref (check->request);
  g_object_unref (check->transport);
  g_free (check);
}

/* Appends ` name="value"` (RFC 9110 quoted-string; control characters
 * dropped) to a challenge. */
static void
append_param (GString    *challenge,
              const char *name,
              const char *value)
{
  /* The first parameter follows the scheme, "Bearer". */
  if (challenge->len > strlen ("Bearer"))
    g_string_append_c (challenge, ',');
  g_string_append_printf (challenge, " %s=\"", name);
  for (const char *p = value; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20 || *p == 0x7f)
        continue;
      if (*p == '"' || *p == '\\')
        g_string_append_c (challenge, '\\');
      g_string_append_c (challenge, *p);
    }
  g_string_append_c (challenge, '"');
}

/* The resource identifier the request names: the one configured, or the
 * endpoint's URL from the request's Host. */
static char *
dup_resource (SnodoHttpTransport *self,
              SoupServerMessage  *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *host = soup_message_headers_get_one (headers, "Host");
  const char *scheme = self->tls_certificate != NULL ? "https" : "http";

  if (self->authorization->resource != NULL)
    return g_strdup (self->authorization->resource);
  if (host == NULL || *host == '\0')
    {
      GUri *uri = soup_server_message_get_uri (msg);

      return g_strdup_printf ("%s://%s%s", scheme, g_uri_get_host (uri) ? g_uri_get_host (uri) : "localhost",
                              self->path);
    }
  return g_strdup_printf ("%s://%s%s", scheme, host, self->path);
}

/* Where the metadata of @resource is (RFC 9728 §3.1): the well-known
 * path goes between the authority and the path. */
static char *
dup_metadata_url (const char *resource)
{
  g_autoptr(GUri) uri = g_uri_parse (resource, G_URI_FLAGS_NONE, NULL);
  g_autoptr(GUri) url = NULL;
  g_autofree char *path = NULL;
  const char *resource_path;

  if (uri == NULL)
    return g_strdup (resource);
  resource_path = g_uri_get_path (uri);
  if (g_str_equal (resource_path, "/"))
    resource_path = "";
  path = g_strconcat (SNODO_WELL_KNOWN_RESOURCE, resource_path, NULL);
  url = g_uri_build (G_URI_FLAGS_NONE, g_uri_get_scheme (uri), NULL, g_uri_get_host (uri),
                     g_uri_get_port (uri), path, NULL, NULL);
  return g_uri_to_string (url);
}

/* Answers @msg @status with a Bearer challenge: @error (nullable) and its
 * @description (nullable), the scopes needed (@scopes, nullable), and the
 * metadata URL. */
static void
reply_challenge (SnodoHttpTransport *self,
                 SoupServerMessage  *msg,
                 guint               status,
                 JsonNode           *id,
                 const char         *error,
                 const char         *description,
                 const char * const *scopes,
                 const char         *message)
{
  g_autofree char *resource = dup_resource (self, msg);
  g_autofree char *metadata = dup_metadata_url (resource);
  g_autoptr(GString) challenge = g_string_new ("Bearer");

  if (error != NULL)
    append_param (challenge, "error", error);
  if (description != NULL)
    append_param (challenge, "error_description", description);
  if (scopes != NULL && scopes[0] != NULL)
    {
      g_autofree char *joined = g_strjoinv (" ", (char **) scopes);

      append_param (challenge, "scope", joined);
    }
  append_param (challenge, "resource_metadata", metadata);
  snodo_http_reply_error (msg, status, id, SNODO_RPC_ERROR_INVALID_REQUEST, message);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "WWW-Authenticate",
                                challenge->str);
}

/* The scopes @info lacks of @needed and @more (both nullable); NULL if none. */
static GPtrArray *
missing_scopes (SnodoAuthInfo      *info,
                const char * const *needed,
                const char * const *more)
{
  GPtrArray *missing = NULL;
  const char * const *lists[] = { needed, more };

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
      if (!snodo_auth_info_has_scope (info, lists[l][i]))
        {
          if (missing == NULL)
            missing = g_ptr_array_new ();
          g_ptr_array_add (missing, (gpointer) lists[l][i]);
        }
  return missing;
}

/* All of @needed and @more, for the scope of a 403: what the request
 * needs, not only what is missing, so that a client asking for exactly
 * that keeps what it had. */
static char **
join_scopes (const char * const *needed,
             const char * const *more)
{
  GPtrArray *all = g_ptr_array_new ();
  const char * const *lists[] = { needed, more };

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
      if (!g_ptr_array_find_with_equal_func (all, lists[l][i], g_str_equal, NULL))
        g_ptr_array_add (all, g_strdup (lists[l][i]));
  g_ptr_array_add (all, NULL);
  return (char **) g_ptr_array_free (all, FALSE);
}

static void
reply_insufficient_scope (SnodoHttpTransport *self,
                          SoupServerMessage  *msg,
                          JsonNode           *id,
                          const char * const *more)
{
  g_auto(GStrv) scopes = join_scopes ((const char * const *) self->authorization->required_scopes, more);

  reply_challenge (self, msg, SOUP_STATUS_FORBIDDEN, id, "insufficient_scope", NULL,
                   (const char * const *) scopes,
                   _("Forbidden: the bearer token lacks a scope this request needs"));
}

/* RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" /
 * "+" / "/" ) *"=" */
static gboolean
token_is_valid (const char *token)
{
  const char *p = token;

  if (strlen (token) > MAX_TOKEN_BYTES)
    return FALSE;
  while (*p != '\0' && (g_ascii_isalnum (*p) || strchr ("-._~+/", *p) != NULL))
    p++;
  if (p == token)
    return FALSE;
  while (*p == '=')
    p++;
  return *p == '\0';
}

static void check_done_cb (SnodoAuthRequest *request,
                           gpointer          user_data);

static void
check_finished_cb (SoupServerMessage *msg,
                   gpointer           user_data)
{
  Check *check = user_data;

  /* The client left: the answer is no longer wanted. */
  check->finished = TRUE;
  if (check->transport->listener != NULL)
    snodo_http_listener_release (check->transport->listener, check->msg);
  g_signal_handler_disconnect (msg, check->finished_id);
  check->finished_id = 0;
  if (snodo_auth_request_abandon (check->request))
    check_done_cb (check->request, check);
}

static gboolean
check_timeout_cb (gpointer user_data)
{
  Check *check = user_data;

  g_clear_pointer (&check->timeout_source, snodo_source_destroy_and_unref);
  if (snodo_auth_request_abandon (check->request))
    {
      check->timed_out = TRUE;
      check_done_cb (check->request, check);
    }
  return G_SOURCE_REMOVE;
}

/* On the context, once: the application answered, or the wait ended. */
static void
check_done_cb (SnodoAuthRequest *request,
               gpointer          user_data)
{
  Check *check = user_data;
  SnodoHttpTransport *self = check->transport;
  SoupServerMessage *msg = check->msg;
  g_autoptr(SnodoAuthInfo) info = NULL;
  g_autoptr(GPtrArray) missing = NULL;
  const char *description = NULL;

  /* The client left. (A paused message whose connection libsoup drops,
   * as soup_server_disconnect() does, never hears of it: the transport
   * ends its checks before that, in snodo_http_auth_stop().) */
  if (check->finished)
    {
      check_free (check);
      return;
    }
  soup_server_message_unpause (msg);

  if (check->timed_out)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, NULL, SNODO_RPC_ERROR_INTERNAL_ERROR,
                              _("Service unavailable: the bearer token could not be checked in time"));
      check_free (check);
      return;
    }

  if (snodo_auth_request_get_failed (request))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, NULL, SNODO_RPC_ERROR_INTERNAL_ERROR,
                              _("Service unavailable: the bearer token could not be checked"));
      check_free (check);
      return;
    }

  info = snodo_auth_request_dup_info (request, &description);
  if (info == NULL)
    reply_challenge (self, msg, SOUP_STATUS_UNAUTHORIZED, NULL, "invalid_token", description,
                     (const char * const *) self->authorization->required_scopes,
                     _("Unauthorized: the bearer token was refused"));
  else if ((missing = missing_scopes (info, (const char * const *) self->authorization->required_scopes, NULL)))
    reply_insufficient_scope (self, msg, NULL, NULL);
  else if (self->state != STATE_LISTENING)
    snodo_http_reply_status (msg, SOUP_STATUS_SERVICE_UNAVAILABLE);
  else
    {
      g_object_set_qdata_full (G_OBJECT (msg), auth_quark, g_steal_pointer (&info),
                               (GDestroyNotify) snodo_auth_info_unref);
      snodo_http_transport_route (self, msg);
    }
  check_free (check);
}

/* Before routing a request of the endpoint: TRUE to route it now (no
 * authorization); otherwise it has been answered (401, 400), or waits for
 * the check of its token and is routed (or answered) when it ends. */
gboolean
snodo_http_transport_authorize (SnodoHttpTransport *self,
                                SoupServerMessage  *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *authorization;
  g_autofree char *resource = NULL;
  Check *check;

  if (self->authorization == NULL)
    return TRUE;
  if (auth_quark == 0)
    auth_quark = g_quark_from_static_string ("snodo-http-auth");

  authorization = snodo_http_get_request_header (headers, "Authorization");
  if (authorization == SNODO_HTTP_HEADER_REPEATED)
    {
      reply_challenge (self, msg, SOUP_STATUS_BAD_REQUEST, NULL, "invalid_request", NULL, NULL,
                       _("Bad request: the Authorization header is given more than once"));
      return FALSE;
    }
  /* No credentials, or not a bearer token: the plain challenge. */
  if (authorization == NULL || g_ascii_strncasecmp (authorization, "Bearer ", 7) != 0)
    {
      reply_challenge (self, msg, SOUP_STATUS_UNAUTHORIZED, NULL, NULL, NULL,
                       (const char * const *) self->authorization->required_scopes,
                       _("Unauthorized: a bearer token is required"));
      return FALSE;
    }
  authorization += 7;
  while (*authorization == ' ')
    authorization++;
  if (!token_is_valid (authorization))
    {
      reply_challenge (self, msg, SOUP_STATUS_BAD_REQUEST, NULL, "invalid_request", NULL, NULL,
                       _("Bad request: the bearer token is malformed"));
      return FALSE;
    }

  resource = dup_resource (self, msg);
  check = g_new0 (Check, 1);
  check->link.data = check;
  g_queue_push_tail_link (&self->auth_checks, &check->link);
  check->transport = g_object_ref (self);
  check->msg = g_object_ref (msg);
  check->request = snodo_auth_request_new (authorization, resource, self->context, check_done_cb, check);
  check->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (check_finished_cb), check);
  check->timeout_source = g_timeout_source_new (self->authorization->validation_timeout * 1000);
  g_source_set_static_name (check->timeout_source, "[snodo] http auth timeout");
  g_source_set_callback (check->timeout_source, check_timeout_cb, check, NULL);
  g_source_attach (check->timeout_source, self->context);
  /* Its connection is busy, not idle, while the token is checked. */
  if (self->listener != NULL)
    snodo_http_listener_hold (self->listener, msg);
  soup_server_message_pause (msg);

  /* A token no handler takes goes to the introspection endpoint; without
   * one, it fails closed: a token nobody checks is refused. */
  if (!snodo_http_authorization_emit_validate (self->authorization, check->request) &&
      !snodo_auth_request_get_completed (check->request))
    {
      if (self->authorization->introspection != NULL)
        snodo_introspection_check (self->authorization->introspection, check->request,
                                   self->authorization->validation_timeout);
      else
        snodo_auth_request_refuse (check->request, NULL);
    }
  return FALSE;
}

/* What the check of @msg's token found, or NULL without authorization. */
SnodoAuthInfo *
snodo_http_auth_get (SoupServerMessage *msg)
{
  if (auth_quark == 0)
    return NULL;
  return g_object_get_qdata (G_OBJECT (msg), auth_quark);
}

/* Before @frame is dispatched: FALSE (and @msg answered 403) if it is a
 * tools/call of a tool that needs scopes its token lacks. */
gboolean
snodo_http_auth_check_tool (SnodoHttpTransport *self,
                            SoupServerMessage  *msg,
                            SnodoFrame         *frame)
{
  SnodoAuthInfo *info;
  const char * const *scopes;
  const char *name;
  JsonNode *name_node;
  g_autoptr(GPtrArray) missing = NULL;

  if (self->authorization == NULL || frame->kind != SNODO_FRAME_REQUEST ||
      g_hash_table_size (self->authorization->tool_scopes) == 0 ||
      !g_str_equal (frame->method, "tools/call"))
    return TRUE;
  /* Built or not (snodo_frame_decode_lazy()). */
  name_node = snodo_frame_get_param (frame, "name");
  name = name_node != NULL && JSON_NODE_HOLDS_VALUE (name_node) &&
         json_node_get_value_type (name_node) == G_TYPE_STRING ? json_node_get_string (name_node) : NULL;
  if (name == NULL ||
      (scopes = g_hash_table_lookup (self->authorization->tool_scopes, name)) == NULL)
    return TRUE;
  info = snodo_http_auth_get (msg);
  if (info == NULL || (missing = missing_scopes (info, scopes, NULL)) != NULL)
    {
      reply_insufficient_scope (self, msg, frame->id, scopes);
      return FALSE;
    }
  return TRUE;
}

/* Whether @msg may use the session @peer: its token's principal is the
 * one that started it. */
gboolean
snodo_http_auth_owns_session (Peer              *peer,
                              SoupServerMessage *msg)
{
  SnodoAuthInfo *info = snodo_http_auth_get (msg);

  return g_strcmp0 (peer->principal, info != NULL ? snodo_auth_info_get_principal (info) : NULL) == 0;
}

/* Before a message of @msg is dispatched on @peer: its requests' invocations
 * get what the check found; a new session belongs to its principal. */
void
snodo_http_auth_bind (Peer              *peer,
                      SoupServerMessage *msg)
{
  SnodoAuthInfo *info = snodo_http_auth_get (msg);

  if (info == NULL)
    return;
  if (peer->principal == NULL)
    peer->principal = g_strdup (snodo_auth_info_get_principal (info));
  snodo_connection_set_auth (peer->connection, info);
}

/* ---- The metadata document ---------------------------------------------- */

static void
add_strv (JsonBuilder        *builder,
          const char         *name,
          const char * const *values)
{
  if (values == NULL)
    return;
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; values[i] != NULL; i++)
    json_builder_add_string_value (builder, values[i]);
  json_builder_end_array (builder);
}

static void
snodo_http_auth_metadata_cb (SoupServer        *server,
                             SoupServerMessage *msg,
                             const char        *path,
                             GHashTable        *query,
                             gpointer           user_data)
{
  SnodoHttpTransport *self = user_data;
  SnodoHttpAuthorization *auth = self->authorization;
  const char *method = soup_server_message_get_method (msg);
  const char *host = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Host");
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *resource = NULL;
  g_autofree char *resource_path = NULL;
  g_autofree char *body = NULL;
  const char *suffix = path + strlen (SNODO_WELL_KNOWN_RESOURCE);
  SoupMessageHeaders *response_headers = soup_server_message_get_response_headers (msg);
  gsize len;

  if (self->check_host && host != NULL &&
      !snodo_http_transport_host_allowed (self, host))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_MISDIRECTED_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Misdirected request: the Host is not this server"));
      return;
    }

  resource = dup_resource (self, msg);
  {
    g_autoptr(GUri) uri = g_uri_parse (resource, G_URI_FLAGS_NONE, NULL);

    resource_path = g_strdup (uri != NULL ? g_uri_get_path (uri) : "");
  }
  /* The document of the root, of the endpoint's path, or of the
   * resource's path (when a proxy maps one onto the other). */
  if (*suffix != '\0' && !g_str_equal (suffix, self->path) && !g_str_equal (suffix, resource_path))
    {
      snodo_http_reply_status (msg, SOUP_STATUS_NOT_FOUND);
      return;
    }
  if (!g_str_equal (method, "GET") && !g_str_equal (method, "HEAD"))
    {
      snodo_http_reply_method_not_allowed (msg, "GET, HEAD");
      return;
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "resource");
  json_builder_add_string_value (builder, resource);
  add_strv (builder, "authorization_servers", (const char * const *) auth->authorization_servers);
  add_strv (builder, "scopes_supported", (const char * const *) auth->scopes_supported);
  {
    static const char * const header_only[] = { "header", NULL };

    add_strv (builder, "bearer_methods_supported", header_only);
  }
  if (auth->resource_name != NULL)
    {
      json_builder_set_member_name (builder, "resource_name");
      json_builder_add_string_value (builder, auth->resource_name);
    }
  if (auth->resource_documentation != NULL)
    {
      json_builder_set_member_name (builder, "resource_documentation");
      json_builder_add_string_value (builder, auth->resource_documentation);
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  body = json_to_string (root, FALSE);

  /* Public: a client in a browser reads it from another origin. */
  soup_message_headers_replace (response_headers, "Access-Control-Allow-Origin", "*");
  soup_message_headers_replace (response_headers, "Cache-Control", "max-age=3600");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  len = strlen (body);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, g_steal_pointer (&body), len);
}

/* While the transport serves its endpoint: the metadata too. */
void
snodo_http_auth_add_handlers (SnodoHttpTransport *self)
{
  if (self->authorization != NULL)
    soup_server_add_handler (self->soup, SNODO_WELL_KNOWN_RESOURCE, snodo_http_auth_metadata_cb, self, NULL);
}

/* The transport closes: the requests still waiting for their check are
 * answered 503 now, while their connections are there (their
 * SnodoAuthRequests are cancelled), and the metadata goes. */
void
snodo_http_auth_stop (SnodoHttpTransport *self)
{
  if (self->authorization == NULL)
    return;
  while (self->auth_checks.head != NULL)
    {
      Check *check = self->auth_checks.head->data;

      snodo_auth_request_abandon (check->request);
      if (!check->finished)
        {
          soup_server_message_unpause (check->msg);
          snodo_http_reply_status (check->msg, SOUP_STATUS_SERVICE_UNAVAILABLE);
        }
      check_free (check);
    }
  soup_server_remove_handler (self->soup, SNODO_WELL_KNOWN_RESOURCE);
}
