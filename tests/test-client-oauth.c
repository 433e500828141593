/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClientOAuth: the pure parts (challenges, well-known URLs, PKCE,
 * scopes, which URIs may be spoken to), then sign-ins through real
 * sockets: a SnodoServer whose HTTP transport validates tokens, a fake
 * authorization server (a SoupServer of the test that redirects at once,
 * as a browser that has a session would), and a "browser" that follows
 * the authorization URL's redirects to the client's loopback listener. */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "snodo-client-oauth-private.h"
#include "snodo-client.h"
#include "snodo-http-authorization.h"
#include "snodo-http-transport.h"
#include "snodo-auth-request.h"
#include "snodo-invocation.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-tool.h"

/* ---- Pure parts ---------------------------------------------------------- */

static void
test_challenge (void)
{
  g_auto(SnodoOAuthChallenge) challenge = { NULL, };

  g_assert_false (snodo_oauth_parse_challenge (NULL, &challenge));
  g_assert_false (snodo_oauth_parse_challenge ("Basic realm=\"x\"", &challenge));

  g_assert_true (snodo_oauth_parse_challenge ("Bearer resource_metadata=\"https://a.example/.well-known/"
                                              "oauth-protected-resource/mcp\", scope=\"read write\"",
                                              &challenge));
  g_assert_cmpstr (challenge.resource_metadata, ==, "https://a.example/.well-known/oauth-protected-resource/mcp");
  g_assert_cmpstr (challenge.scope, ==, "read write");
  g_assert_null (challenge.error);
  snodo_oauth_challenge_clear (&challenge);

  /* Another scheme first, unquoted values, an escaped quote. */
  g_assert_true (snodo_oauth_parse_challenge ("Basic realm=\"a, b\", Bearer error=insufficient_scope, "
                                              "scope=\"a \\\"b\\\"\",resource_metadata=https://x/y",
                                              &challenge));
  g_assert_cmpstr (challenge.error, ==, "insufficient_scope");
  g_assert_cmpstr (challenge.scope, ==, "a \"b\"");
  g_assert_cmpstr (challenge.resource_metadata, ==, "https://x/y");
  snodo_oauth_challenge_clear (&challenge);

  /* A Bearer challenge followed by another scheme's. */
  g_assert_true (snodo_oauth_parse_challenge ("bearer scope=\"s\", DPoP algs=\"ES256\"", &challenge));
  g_assert_cmpstr (challenge.scope, ==, "s");
  g_assert_null (challenge.resource_metadata);
}

static void
assert_strv (GStrv               got,
             const char * const *want)
{
  g_assert_cmpuint (g_strv_length (got), ==, g_strv_length ((GStrv) want));
  for (guint i = 0; want[i] != NULL; i++)
    g_assert_cmpstr (got[i], ==, want[i]);
}

static void
test_urls (void)
{
  g_auto(GStrv) prm = snodo_oauth_resource_metadata_urls ("https://mcp.example:8443/tenant/mcp/?x=1");
  g_auto(GStrv) prm_root = snodo_oauth_resource_metadata_urls ("https://mcp.example");
  g_auto(GStrv) as = snodo_oauth_server_metadata_urls ("https://auth.example");
  g_auto(GStrv) as_path = snodo_oauth_server_metadata_urls ("https://auth.example/tenant1/");
  static const char * const want_prm[] = {
    "https://mcp.example:8443/.well-known/oauth-protected-resource/tenant/mcp",
    "https://mcp.example:8443/.well-known/oauth-protected-resource",
    NULL,
  };
  static const char * const want_prm_root[] = {
    "https://mcp.example/.well-known/oauth-protected-resource",
    NULL,
  };
  static const char * const want_as[] = {
    "https://auth.example/.well-known/oauth-authorization-server",
    "https://auth.example/.well-known/openid-configuration",
    NULL,
  };
  static const char * const want_as_path[] = {
    "https://auth.example/.well-known/oauth-authorization-server/tenant1",
    "https://auth.example/.well-known/openid-configuration/tenant1",
    "https://auth.example/tenant1/.well-known/openid-configuration",
    NULL,
  };

  g_test_summary ("RFC 9728 path-aware then root; RFC 8414 then OpenID Connect, with path insertion "
                  "then appending, in the MCP specification's order");
  assert_strv (prm, want_prm);
  assert_strv (prm_root, want_prm_root);
  assert_strv (as, want_as);
  assert_strv (as_path, want_as_path);
}

static void
test_pkce (void)
{
  g_autofree char *challenge = snodo_oauth_pkce_challenge ("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
  g_autofree char *a = snodo_oauth_random_string (48, NULL);
  g_autofree char *b = snodo_oauth_random_string (48, NULL);

  g_test_summary ("The S256 challenge of RFC 7636's appendix B; verifiers are 64 base64url characters, "
                  "never the same twice");
  g_assert_cmpstr (challenge, ==, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  g_assert_cmpuint (strlen (a), ==, 64);
  g_assert_cmpstr (a, !=, b);
  for (const char *p = a; *p != '\0'; p++)
    g_assert_true (g_ascii_isalnum (*p) || *p == '-' || *p == '_');
}

static void
test_checks (void)
{
  g_autofree char *all = snodo_oauth_scope_union ("read write", "write admin read");

  g_assert_true (snodo_oauth_resource_matches ("https://a.example/mcp", "https://a.example/mcp"));
  g_assert_true (snodo_oauth_resource_matches ("https://a.example", "https://a.example/mcp"));
  g_assert_true (snodo_oauth_resource_matches ("https://A.example/", "https://a.example/mcp/"));
  g_assert_false (snodo_oauth_resource_matches ("https://evil.example/mcp", "https://a.example/mcp"));
  g_assert_false (snodo_oauth_resource_matches ("https://a.example/mc", "https://a.example/mcp"));
  g_assert_false (snodo_oauth_resource_matches ("http://a.example/mcp", "https://a.example/mcp"));
  g_assert_false (snodo_oauth_resource_matches ("https://a.example:444/mcp", "https://a.example/mcp"));
  g_assert_false (snodo_oauth_resource_matches ("https://a.example/mcp#x", "https://a.example/mcp"));

  g_assert_true (snodo_oauth_uri_is_allowed ("https://auth.example/"));
  g_assert_true (snodo_oauth_uri_is_allowed ("http://127.0.0.1:9/"));
  g_assert_true (snodo_oauth_uri_is_allowed ("http://localhost:9/"));
  g_assert_true (snodo_oauth_uri_is_allowed ("http://[::1]:9/"));
  g_assert_false (snodo_oauth_uri_is_allowed ("http://auth.example/"));
  g_assert_false (snodo_oauth_uri_is_allowed ("http://127.example/"));
  g_assert_false (snodo_oauth_uri_is_allowed ("ftp://auth.example/"));

  g_assert_cmpstr (all, ==, "read write admin");
  g_assert_true (snodo_oauth_scope_contains ("read write", "write"));
  g_assert_false (snodo_oauth_scope_contains ("read", "read write"));
}

/* ---- Sign-ins ------------------------------------------------------------ */

typedef struct
{
  /* The MCP server. */
  SnodoServer *server;
  SnodoHttpTransport *transport;
  SnodoHttpAuthorization *authorization;
  char *uri;
  /* The fake authorization server, and what it saw. */
  SoupServer *as;
  char *as_uri;
  /* token → its scopes (a string). */
  GHashTable *tokens;
  guint n_registrations;
  guint n_authorizations;
  guint n_token_requests;
  guint n_refreshes;
  char *last_scope;
  char *last_resource;
  char *last_challenge;
  char *verifier_ok;
  gint64 expires_in;
  gboolean wrong_state;
  /* The browser. */
  SoupSession *browser;
  char *state_dir;
} Fixture;

static void
browsed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, NULL);
}

static gboolean
authorize_cb (gpointer          oauth,
              const char       *url,
              Fixture          *fixture)
{
  g_autoptr(SoupMessage) message = soup_message_new ("GET", url);

  g_assert_nonnull (message);
  soup_session_send_and_read_async (fixture->browser, message, G_PRIORITY_DEFAULT, NULL, browsed_cb, NULL);
  return TRUE;
}

static void
json_reply (SoupServerMessage *message,
            guint              status,
            const char        *json)
{
  soup_server_message_set_status (message, status, NULL);
  soup_server_message_set_response (message, "application/json", SOUP_MEMORY_COPY, json, strlen (json));
}

static void
as_metadata_cb (SoupServer        *server,
                SoupServerMessage *message,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  Fixture *fixture = user_data;
  g_autofree char *json = g_strdup_printf ("{\"issuer\":\"%s\",\"authorization_endpoint\":\"%s/authorize\","
                                           "\"token_endpoint\":\"%s/token\",\"registration_endpoint\":\"%s/register\","
                                           "\"code_challenge_methods_supported\":[\"S256\"],"
                                           "\"token_endpoint_auth_methods_supported\":[\"none\"]}",
                                           fixture->as_uri, fixture->as_uri, fixture->as_uri, fixture->as_uri);

  json_reply (message, SOUP_STATUS_OK, json);
}

static void
as_register_cb (SoupServer        *server,
                SoupServerMessage *message,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  Fixture *fixture = user_data;
  SoupMessageBody *body = soup_server_message_get_request_body (message);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr(JsonNode) node = json_from_string (g_bytes_get_data (bytes, NULL), NULL);
  JsonObject *request = json_node_get_object (node);

  fixture->n_registrations++;
  g_assert_cmpstr (json_object_get_string_member (request, "application_type"), ==, "native");
  g_assert_true (g_str_has_prefix (json_array_get_string_element (json_object_get_array_member (request, "redirect_uris"), 0),
                                   "http://127.0.0.1:"));
  json_reply (message, SOUP_STATUS_CREATED, "{\"client_id\":\"registered\",\"token_endpoint_auth_method\":\"none\"}");
}

static void
as_authorize_cb (SoupServer        *server,
                 SoupServerMessage *message,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  Fixture *fixture = user_data;
  g_autoptr(GHashTable) params = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *encoded = NULL;
  g_autofree char *location = NULL;

  fixture->n_authorizations++;
  g_assert_cmpstr (g_hash_table_lookup (query, "response_type"), ==, "code");
  g_assert_cmpstr (g_hash_table_lookup (query, "code_challenge_method"), ==, "S256");
  g_assert_cmpstr (g_hash_table_lookup (query, "client_id"), ==, "registered");
  g_free (fixture->last_scope);
  fixture->last_scope = g_strdup (g_hash_table_lookup (query, "scope"));
  g_free (fixture->last_resource);
  fixture->last_resource = g_strdup (g_hash_table_lookup (query, "resource"));
  g_free (fixture->last_challenge);
  fixture->last_challenge = g_strdup (g_hash_table_lookup (query, "code_challenge"));

  g_hash_table_insert (params, (char *) "code", (char *) "the-code");
  g_hash_table_insert (params, (char *) "state",
                       fixture->wrong_state ? (char *) "forged" : g_hash_table_lookup (query, "state"));
  g_hash_table_insert (params, (char *) "iss", fixture->as_uri);
  encoded = soup_form_encode_hash (params);
  location = g_strconcat (g_hash_table_lookup (query, "redirect_uri"), "?", encoded, NULL);
  soup_server_message_set_redirect (message, SOUP_STATUS_FOUND, location);
}

static void
as_token_cb (SoupServer        *server,
             SoupServerMessage *message,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  Fixture *fixture = user_data;
  SoupMessageBody *body = soup_server_message_get_request_body (message);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_autoptr(GHashTable) form = soup_form_decode (text);
  const char *grant = g_hash_table_lookup (form, "grant_type");
  g_autofree char *token = NULL;
  g_autofree char *json = NULL;
  const char *scope;

  fixture->n_token_requests++;
  g_assert_cmpstr (g_hash_table_lookup (form, "resource"), ==, fixture->uri);
  if (g_strcmp0 (grant, "authorization_code") == 0)
    {
      g_autofree char *challenge = snodo_oauth_pkce_challenge (g_hash_table_lookup (form, "code_verifier"));

      g_assert_cmpstr (g_hash_table_lookup (form, "code"), ==, "the-code");
      g_assert_cmpstr (challenge, ==, fixture->last_challenge);
      scope = fixture->last_scope;
    }
  else
    {
      g_assert_cmpstr (grant, ==, "refresh_token");
      g_assert_true (g_str_has_prefix (g_hash_table_lookup (form, "refresh_token"), "refresh-"));
      fixture->n_refreshes++;
      scope = fixture->last_scope;
    }
  token = g_strdup_printf ("token-%u", fixture->n_token_requests);
  g_hash_table_insert (fixture->tokens, g_strdup (token), g_strdup (scope != NULL ? scope : ""));
  json = g_strdup_printf ("{\"access_token\":\"%s\",\"token_type\":\"Bearer\",\"expires_in\":%" G_GINT64_FORMAT ","
                          "\"refresh_token\":\"refresh-%u\"}", token, fixture->expires_in, fixture->n_token_requests);
  json_reply (message, SOUP_STATUS_OK, json);
}

static gboolean
validate_cb (SnodoHttpAuthorization *authorization,
             SnodoAuthRequest       *request,
             Fixture                *fixture)
{
  const char *scopes = g_hash_table_lookup (fixture->tokens, snodo_auth_request_get_token (request));
  g_auto(GStrv) granted = NULL;

  if (scopes == NULL)
    {
      snodo_auth_request_refuse (request, NULL);
      return TRUE;
    }
  granted = g_strsplit (scopes, " ", -1);
  snodo_auth_request_accept (request, "user", (const char * const *) granted);
  return TRUE;
}

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "echoed");
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", NULL);
  g_autoptr(SnodoTool) write = snodo_tool_new ("write", NULL);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSList) uris = NULL;
  static const char * const required[] = { "read", NULL };
  static const char * const write_scopes[] = { "write", NULL };
  const char *servers[2] = { NULL, NULL };

  fixture->tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  fixture->expires_in = 3600;
  fixture->browser = soup_session_new ();
  fixture->state_dir = g_dir_make_tmp ("snodo-oauth-XXXXXX", &error);
  g_assert_no_error (error);

  fixture->as = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->as, "/.well-known/oauth-authorization-server", as_metadata_cb, fixture, NULL);
  soup_server_add_handler (fixture->as, "/register", as_register_cb, fixture, NULL);
  soup_server_add_handler (fixture->as, "/authorize", as_authorize_cb, fixture, NULL);
  soup_server_add_handler (fixture->as, "/token", as_token_cb, fixture, NULL);
  g_assert_true (soup_server_listen_local (fixture->as, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  uris = soup_server_get_uris (fixture->as);
  fixture->as_uri = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);

  fixture->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (fixture->server, echo, echo_cb, fixture, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->server, write, echo_cb, fixture, NULL, NULL));
  fixture->transport = snodo_http_transport_new (fixture->server);
  fixture->authorization = snodo_http_authorization_new ();
  servers[0] = data != NULL ? data : fixture->as_uri;
  snodo_http_authorization_set_authorization_servers (fixture->authorization, servers);
  snodo_http_authorization_set_required_scopes (fixture->authorization, required);
  snodo_http_authorization_require_tool_scopes (fixture->authorization, "write", write_scopes);
  g_signal_connect (fixture->authorization, "validate-token", G_CALLBACK (validate_cb), fixture);
  snodo_http_transport_set_authorization (fixture->transport, fixture->authorization);
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  fixture->uri = snodo_http_transport_dup_uri (fixture->transport);
}

static void
transport_closed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  gboolean *done = user_data;

  snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL);
  *done = TRUE;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  snodo_http_transport_close_async (fixture->transport, NULL, transport_closed_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 10000));
  g_clear_object (&fixture->transport);
  g_clear_object (&fixture->authorization);
  g_clear_object (&fixture->server);
  g_clear_object (&fixture->as);
  g_clear_object (&fixture->browser);
  g_hash_table_unref (fixture->tokens);
  remove_tree (fixture->state_dir);
  g_free (fixture->state_dir);
  g_free (fixture->uri);
  g_free (fixture->as_uri);
  g_free (fixture->last_scope);
  g_free (fixture->last_resource);
  g_free (fixture->last_challenge);
}

typedef struct
{
  GAsyncResult *result;
} Wait;

static void
wait_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
}

static GAsyncResult *
wait_result (Wait *wait)
{
  while (wait->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return wait->result;
}

/* A client of the server, connected: NULL and @error when that failed. */
static SnodoClient *
try_client (Fixture              *fixture,
            SnodoProtocolVersion  version,
            SnodoClientOAuth     *oauth,
            GError              **error)
{
  g_autoptr(SnodoClient) client = snodo_client_new_for_uri (fixture->uri, error);
  Wait wait = { NULL };
  gboolean ok;

  g_assert_nonnull (client);
  snodo_client_set_pinned_version (client, version);
  snodo_client_oauth_set_open_browser (oauth, FALSE);
  g_signal_connect (oauth, "authorize", G_CALLBACK (authorize_cb), fixture);
  snodo_client_set_oauth (client, oauth);
  snodo_client_connect_async (client, NULL, wait_cb, &wait);
  ok = snodo_client_connect_finish (client, wait_result (&wait), error);
  g_object_unref (wait.result);
  return ok ? g_steal_pointer (&client) : NULL;
}

static SnodoClient *
make_client (Fixture              *fixture,
             SnodoProtocolVersion  version,
             SnodoClientOAuth     *oauth)
{
  g_autoptr(GError) error = NULL;
  SnodoClient *client = try_client (fixture, version, oauth, &error);

  g_assert_no_error (error);
  return client;
}

/* Calls @tool: NULL on success, else the error. */
static GError *
call (SnodoClient *client,
      const char  *tool)
{
  g_autoptr(JsonObject) arguments = json_object_new ();
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;
  Wait wait = { NULL };

  snodo_client_call_tool_async (client, tool, arguments, NULL, wait_cb, &wait);
  answer = snodo_client_call_tool_finish (client, wait_result (&wait), &error);
  g_object_unref (wait.result);
  if (answer != NULL)
    g_assert_false (json_object_get_boolean_member_with_default (answer, "isError", FALSE));
  return error;
}

static void
close_client (SnodoClient *client)
{
  Wait wait = { NULL };

  snodo_client_close_async (client, NULL, wait_cb, &wait);
  snodo_client_close_finish (client, wait_result (&wait), NULL);
  g_object_unref (wait.result);
}

static void
test_sign_in (Fixture       *fixture,
              gconstpointer  data)
{
  static const SnodoProtocolVersion versions[] = {
    SNODO_PROTOCOL_VERSION_2025_11_25, SNODO_PROTOCOL_VERSION_2026_07_28,
  };

  g_test_summary ("A server that answers 401: the client discovers the authorization server, registers, "
                  "signs in with PKCE and the resource, and its request then succeeds, in both eras");
  for (gsize i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      g_autoptr(SnodoClientOAuth) oauth = snodo_client_oauth_new ();
      g_autoptr(SnodoClient) client = make_client (fixture, versions[i], oauth);
      g_autoptr(GError) error = call (client, "echo");

      g_assert_no_error (error);
      g_assert_cmpuint (fixture->n_registrations, ==, i + 1);
      g_assert_cmpuint (fixture->n_authorizations, ==, i + 1);
      g_assert_cmpstr (fixture->last_scope, ==, "read");
      g_assert_cmpstr (fixture->last_resource, ==, fixture->uri);
      /* Signed in once for the whole client. */
      g_clear_error (&error);
      error = call (client, "echo");
      g_assert_no_error (error);
      g_assert_cmpuint (fixture->n_authorizations, ==, i + 1);
      close_client (client);
    }
}

static void
test_refresh (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(SnodoClientOAuth) oauth = snodo_client_oauth_new ();
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  guint refreshes;

  g_test_summary ("A token about to expire is refreshed before the next request, without a new sign-in; "
                  "a token the server forgot is refreshed on its 401");

  /* Tokens that expire within the client's margin (a minute). */
  fixture->expires_in = 30;
  client = make_client (fixture, SNODO_PROTOCOL_VERSION_2026_07_28, oauth);
  error = call (client, "echo");
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->n_authorizations, ==, 1);
  refreshes = fixture->n_refreshes;
  error = call (client, "echo");
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->n_refreshes, ==, refreshes + 1);
  g_assert_cmpuint (fixture->n_authorizations, ==, 1);

  fixture->expires_in = 3600;
  error = call (client, "echo");
  g_assert_no_error (error);
  refreshes = fixture->n_refreshes;
  error = call (client, "echo");
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->n_refreshes, ==, refreshes);

  g_hash_table_remove_all (fixture->tokens);
  error = call (client, "echo");
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->n_refreshes, ==, refreshes + 1);
  g_assert_cmpuint (fixture->n_authorizations, ==, 1);
  close_client (client);
}

static void
test_store (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(SnodoCredentialStore) store = snodo_credential_store_new_file (fixture->state_dir);
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint files = 0;

  g_test_summary ("A second client with the same file store reuses the registration and token, "
                  "kept in a file only the user may read");
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(SnodoClientOAuth) oauth = snodo_client_oauth_new ();
      g_autoptr(SnodoClient) client = NULL;
      g_autoptr(GError) error = NULL;

      snodo_client_oauth_set_store (oauth, store);
      client = make_client (fixture, SNODO_PROTOCOL_VERSION_2025_11_25, oauth);
      error = call (client, "echo");
      g_assert_no_error (error);
      g_assert_cmpuint (fixture->n_registrations, ==, 1);
      g_assert_cmpuint (fixture->n_authorizations, ==, 1);
      close_client (client);
    }
  dir = g_dir_open (fixture->state_dir, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (fixture->state_dir, name, NULL);
      g_autofree char *contents = NULL;
      GStatBuf buf;

      files++;
      g_assert_cmpint (g_stat (path, &buf), ==, 0);
#ifdef G_OS_UNIX
      g_assert_cmpint (buf.st_mode & 0777, ==, 0600);
#endif
      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      g_assert_nonnull (strstr (contents, "\"client_id\":\"registered\""));
    }
  g_assert_cmpuint (files, ==, 1);
}

static void
test_step_up (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(SnodoClientOAuth) oauth = snodo_client_oauth_new ();
  g_autoptr(SnodoClient) client = make_client (fixture, SNODO_PROTOCOL_VERSION_2026_07_28, oauth);
  g_autoptr(GError) error = NULL;

  g_test_summary ("A 403 insufficient_scope signs in again for the union of the scopes, once");
  error = call (client, "write");
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->n_authorizations, ==, 2);
  g_assert_cmpstr (fixture->last_scope, ==, "read write");
  error = call (client, "write");
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->n_authorizations, ==, 2);
  close_client (client);
}

/* Connecting fails with an HTTP 401 answered by a sign-in that fails:
 * the error of that. */
static GError *
failed_connect (Fixture              *fixture,
                SnodoProtocolVersion  version)
{
  g_autoptr(SnodoClientOAuth) oauth = snodo_client_oauth_new ();
  g_autoptr(SnodoClient) client = NULL;
  GError *error = NULL;

  client = try_client (fixture, version, oauth, &error);
  g_assert_null (client);
  g_assert_nonnull (error);
  return error;
}

static void
test_state_forged (Fixture       *fixture,
                   gconstpointer  data)
{
  g_test_summary ("A redirect whose state is not the sign-in's is refused: no token is asked for");
  fixture->wrong_state = TRUE;
  for (guint era = 0; era < 2; era++)
    {
      g_autoptr(GError) error = failed_connect (fixture, era == 0 ? SNODO_PROTOCOL_VERSION_2025_11_25
                                                                  : SNODO_PROTOCOL_VERSION_2026_07_28);

      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_assert_nonnull (strstr (error->message, "state"));
      g_assert_cmpuint (fixture->n_authorizations, ==, era + 1);
      g_assert_cmpuint (fixture->n_token_requests, ==, 0);
    }
}

static void
test_plain_http (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = failed_connect (fixture, SNODO_PROTOCOL_VERSION_2026_07_28);

  g_test_summary ("An authorization server on plain HTTP elsewhere than this machine is refused");
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (error->message, "neither HTTPS nor on this machine"));
  g_assert_cmpuint (fixture->n_authorizations, ==, 0);
}

/* ---- snodo call --http, as processes ------------------------------------ */

typedef struct
{
  Fixture *fixture;
  GSubprocess *process;
  GDataInputStream *err;
  GString *err_text;
  GMemoryOutputStream *out;
  gboolean err_done;
  gboolean out_done;
  gboolean exited;
} Cli;

static void
cli_err_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Cli *cli = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result,
                                                                      NULL, NULL);
  const char *at;

  if (line == NULL)
    {
      cli->err_done = TRUE;
      return;
    }
  g_string_append_printf (cli->err_text, "%s\n", line);
  /* The browser signs in at the URL it printed. */
  at = strstr (line, " at http");
  if (g_str_has_prefix (line, "snodo: sign in to ") && at != NULL)
    authorize_cb (NULL, at + strlen (" at "), cli->fixture);
  g_data_input_stream_read_line_async (cli->err, G_PRIORITY_DEFAULT, NULL, cli_err_cb, cli);
}

static void
cli_out_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Cli *cli = user_data;

  g_output_stream_splice_finish (G_OUTPUT_STREAM (source), result, NULL);
  cli->out_done = TRUE;
}

static void
cli_exited_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Cli *cli = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  cli->exited = TRUE;
}

static void
cli_start (Cli        *cli,
           Fixture    *fixture,
           const char *tool)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autofree char *params = g_strdup_printf ("{\"name\":\"%s\",\"arguments\":{}}", tool);
  g_autoptr(GError) error = NULL;

  memset (cli, 0, sizeof *cli);
  cli->fixture = fixture;
  g_subprocess_launcher_unsetenv (launcher, "DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "WAYLAND_DISPLAY");
  g_subprocess_launcher_setenv (launcher, "XDG_RUNTIME_DIR", fixture->state_dir, TRUE);
  cli->process = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("SNODO_CLI"), "call", "--http",
                                              fixture->uri, "--no-browser", "--credentials-dir",
                                              fixture->state_dir, "tools/call", params, NULL);
  g_assert_no_error (error);
  cli->err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (cli->process));
  cli->err_text = g_string_new (NULL);
  cli->out = G_MEMORY_OUTPUT_STREAM (g_memory_output_stream_new_resizable ());
  g_data_input_stream_read_line_async (cli->err, G_PRIORITY_DEFAULT, NULL, cli_err_cb, cli);
  g_output_stream_splice_async (G_OUTPUT_STREAM (cli->out), g_subprocess_get_stdout_pipe (cli->process),
                                G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT, NULL, cli_out_cb, cli);
  g_subprocess_wait_async (cli->process, NULL, cli_exited_cb, cli);
}

/* Waits for the process; asserts it printed the tool's result. */
static void
cli_finish (Cli *cli)
{
  g_autofree char *out = NULL;

  while (!cli->err_done || !cli->out_done || !cli->exited)
    g_main_context_iteration (NULL, TRUE);
  out = g_strndup (g_memory_output_stream_get_data (cli->out), g_memory_output_stream_get_data_size (cli->out));
  if (g_subprocess_get_exit_status (cli->process) != 0)
    g_printerr ("%s", cli->err_text->str);
  g_assert_cmpint (g_subprocess_get_exit_status (cli->process), ==, 0);
  g_assert_nonnull (strstr (out, "echoed"));
  g_clear_object (&cli->process);
  g_clear_object (&cli->err);
  g_clear_object (&cli->out);
  g_string_free (cli->err_text, TRUE);
}

static void
test_cli (Fixture       *fixture,
          gconstpointer  data)
{
  Cli first;
  Cli second;

  g_test_summary ("snodo call --http prints the sign-in URL, signs in when it is followed, and stores "
                  "the result: the next run does not sign in, nor does a run started at the same time");
  if (g_getenv ("SNODO_CLI") == NULL)
    {
      g_test_skip ("SNODO_CLI is not set");
      return;
    }
  cli_start (&first, fixture, "echo");
  cli_finish (&first);
  g_assert_cmpuint (fixture->n_authorizations, ==, 1);
  cli_start (&first, fixture, "echo");
  cli_finish (&first);
  g_assert_cmpuint (fixture->n_authorizations, ==, 1);

  /* Signed out at the server: two processes at once sign in once. */
  g_hash_table_remove_all (fixture->tokens);
  {
    g_autoptr(GDir) dir = g_dir_open (fixture->state_dir, 0, NULL);
    const char *name;

    while ((name = g_dir_read_name (dir)) != NULL)
      if (g_str_has_suffix (name, ".json"))
        {
          g_autofree char *path = g_build_filename (fixture->state_dir, name, NULL);

          g_unlink (path);
        }
  }
  cli_start (&first, fixture, "echo");
  cli_start (&second, fixture, "echo");
  cli_finish (&first);
  cli_finish (&second);
  g_assert_cmpuint (fixture->n_authorizations, ==, 2);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/client-oauth/challenge", test_challenge);
  g_test_add_func ("/snodo/client-oauth/urls", test_urls);
  g_test_add_func ("/snodo/client-oauth/pkce", test_pkce);
  g_test_add_func ("/snodo/client-oauth/checks", test_checks);
  g_test_add ("/snodo/client-oauth/sign-in", Fixture, NULL, fixture_setup, test_sign_in, fixture_teardown);
  g_test_add ("/snodo/client-oauth/refresh", Fixture, NULL, fixture_setup, test_refresh, fixture_teardown);
  g_test_add ("/snodo/client-oauth/store", Fixture, NULL, fixture_setup, test_store, fixture_teardown);
  g_test_add ("/snodo/client-oauth/step-up", Fixture, NULL, fixture_setup, test_step_up, fixture_teardown);
  g_test_add ("/snodo/client-oauth/state-forged", Fixture, NULL, fixture_setup, test_state_forged,
              fixture_teardown);
  g_test_add ("/snodo/client-oauth/cli", Fixture, NULL, fixture_setup, test_cli, fixture_teardown);
  g_test_add ("/snodo/client-oauth/plain-http", Fixture, "http://192.0.2.1/", fixture_setup, test_plain_http,
              fixture_teardown);
  return g_test_run ();
}
