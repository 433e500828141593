/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Token introspection (RFC 7662) of SnodoHttpAuthorization: a transport
 * whose tokens are checked at a fake introspection endpoint (a SoupServer
 * in this process), both through real sockets. Active and inactive tokens,
 * the audience, expiry, the scopes a handler sees, an endpoint that fails
 * (503, never 401), and the cache (a hit, and its bound); and snodo-demo
 * --token-introspection as a real process against the same endpoint. */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "snodo-http-authorization.h"
#include "snodo-http-transport.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-tool.h"

#define ENVELOPE "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define ECHO "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":" \
             "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}"

#define CLIENT_ID     "the resource"
#define CLIENT_SECRET "s3cret:with/odd chars"

/* What the fake endpoint does. */
typedef enum
{
  ENDPOINT_ANSWER,
  ENDPOINT_ERROR,
  ENDPOINT_HUGE,
  ENDPOINT_NOT_JSON,
  ENDPOINT_HANG,
} EndpointMode;

typedef struct
{
  SnodoServer            *server;
  SnodoHttpTransport     *transport;
  SnodoHttpAuthorization *authorization;
  SoupSession            *session;
  char                   *uri;
  /* The audience of the fake endpoint's tokens: uri, or a snodo-demo's. */
  const char             *audience;

  /* The fake introspection endpoint. */
  SoupServer             *endpoint;
  char                   *endpoint_uri;
  EndpointMode            endpoint_mode;
  guint                   n_introspections;
  /* Requests whose client authentication was wrong, or that were not a
   * form with token and token_type_hint=access_token. */
  guint                   n_bad_introspections;

  /* What the tool's handler saw. */
  char                   *seen_principal;
  char                  **seen_scopes;
  /* The body of the last answer. */
  char                   *body;
} Fixture;

/* ---- The fake introspection endpoint ------------------------------------ */

/* The answer for @token: a JSON object (without the braces' closing part
 * decided here), or NULL for {"active":false}. */
static char *
answer_for (Fixture    *fixture,
            const char *token)
{
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;

  if (g_str_equal (token, "good"))
    return g_strdup_printf ("{\"active\":true,\"sub\":\"ada\",\"client_id\":\"cli\",\"aud\":\"%s\","
                            "\"scope\":\"read  write\",\"exp\":%" G_GINT64_FORMAT ",\"token_type\":\"Bearer\"}",
                            fixture->audience, now + 3600);
  if (g_str_equal (token, "aud-array"))
    return g_strdup_printf ("{\"active\":true,\"username\":\"bob\",\"aud\":[\"https://other.example/mcp\",\"%s/\"],"
                            "\"scope\":\"read\"}", fixture->audience);
  if (g_str_equal (token, "client-only"))
    return g_strdup_printf ("{\"active\":true,\"client_id\":\"service\",\"aud\":\"%s\"}", fixture->audience);
  if (g_str_equal (token, "other-audience"))
    return g_strdup ("{\"active\":true,\"sub\":\"ada\",\"aud\":\"https://other.example/mcp\",\"scope\":\"read\"}");
  if (g_str_equal (token, "no-audience"))
    return g_strdup ("{\"active\":true,\"sub\":\"ada\",\"scope\":\"read\"}");
  if (g_str_equal (token, "expired"))
    return g_strdup_printf ("{\"active\":true,\"sub\":\"ada\",\"aud\":\"%s\",\"exp\":%" G_GINT64_FORMAT "}",
                            fixture->audience, now - 5);
  if (g_str_equal (token, "refresh"))
    return g_strdup_printf ("{\"active\":true,\"sub\":\"ada\",\"aud\":\"%s\",\"token_type\":\"refresh_token\"}",
                            fixture->audience);
  if (g_str_has_prefix (token, "many-"))
    return g_strdup_printf ("{\"active\":true,\"sub\":\"%s\",\"aud\":\"%s\"}", token, fixture->audience);
  /* "inactive", and any other. */
  return NULL;
}

static void
endpoint_cb (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  Fixture *fixture = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  const char *authorization = soup_message_headers_get_one (headers, "Authorization");
  const char *content_type = soup_message_headers_get_content_type (headers, NULL);
  gboolean authenticated = FALSE;
  g_autoptr(GHashTable) form = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  char *answer;

  fixture->n_introspections++;
  /* libsoup before 3.3 leaks a kept-alive connection that its client
   * closes (see snodo-http-listener.c): one connection a request. */
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
  /* RFC 6749 §2.3.1: Basic with the form-encoded id and secret. */
  if (authorization != NULL && g_str_has_prefix (authorization, "Basic "))
    {
      gsize len = 0;
      g_autofree guchar *decoded = g_base64_decode (authorization + 6, &len);
      g_autofree char *pair = g_strndup ((const char *) decoded, len);
      char *colon = strchr (pair, ':');

      if (colon != NULL)
        {
          g_autofree char *id = NULL;
          g_autofree char *secret = NULL;

          *colon = '\0';
          g_strdelimit (pair, "+", ' ');
          g_strdelimit (colon + 1, "+", ' ');
          id = g_uri_unescape_string (pair, NULL);
          secret = g_uri_unescape_string (colon + 1, NULL);
          authenticated = g_strcmp0 (id, CLIENT_ID) == 0 && g_strcmp0 (secret, CLIENT_SECRET) == 0;
        }
    }
  bytes = soup_message_body_flatten (body);
  text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  form = soup_form_decode (text);
  if (!g_str_equal (soup_server_message_get_method (msg), "POST") ||
      !authenticated ||
      g_strcmp0 (content_type, "application/x-www-form-urlencoded") != 0 ||
      g_hash_table_lookup (form, "token") == NULL ||
      g_strcmp0 (g_hash_table_lookup (form, "token_type_hint"), "access_token") != 0)
    {
      fixture->n_bad_introspections++;
      soup_server_message_set_status (msg, SOUP_STATUS_UNAUTHORIZED, NULL);
      return;
    }

  switch (fixture->endpoint_mode)
    {
    case ENDPOINT_ERROR:
      soup_server_message_set_status (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, NULL);
      return;
    case ENDPOINT_HUGE:
      {
        gsize len = 200 * 1024;
        char *huge = g_malloc (len);

        memset (huge, ' ', len);
        huge[0] = '{';
        memcpy (huge + len - 16, "\"active\":false}", 15);
        huge[len - 1] = ' ';
        soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
        soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, huge, len);
        return;
      }
    case ENDPOINT_HANG:
      /* Never answered (until the endpoint goes). */
      soup_server_message_pause (msg);
      return;
    case ENDPOINT_NOT_JSON:
      soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
      soup_server_message_set_response (msg, "text/html", SOUP_MEMORY_STATIC, "<html>", 6);
      return;
    case ENDPOINT_ANSWER:
    default:
      break;
    }
  answer = answer_for (fixture, g_hash_table_lookup (form, "token"));
  if (answer == NULL)
    answer = g_strdup ("{\"active\":false}");
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, answer, strlen (answer));
}

/* ---- A transport checking its tokens there ------------------------------ */

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  Fixture *fixture = user_data;

  g_free (fixture->seen_principal);
  fixture->seen_principal = g_strdup (snodo_invocation_get_principal (invocation));
  g_strfreev (fixture->seen_scopes);
  fixture->seen_scopes = g_strdupv ((char **) snodo_invocation_get_scopes (invocation));
  snodo_invocation_return_text (invocation, "ok");
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", NULL);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fixture->endpoint = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->endpoint, "/introspect", endpoint_cb, fixture, NULL);
  g_assert_true (soup_server_listen_local (fixture->endpoint, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (fixture->endpoint);
  g_assert_nonnull (uris);
  fixture->endpoint_uri = g_strdup_printf ("http://127.0.0.1:%d/introspect", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  fixture->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (fixture->server, echo, echo_cb, fixture, NULL, NULL));
  fixture->transport = snodo_http_transport_new (fixture->server);
  fixture->authorization = snodo_http_authorization_new ();
  snodo_http_authorization_set_validation_timeout (fixture->authorization, 5);
  g_assert_true (snodo_http_authorization_set_introspection (fixture->authorization, fixture->endpoint_uri,
                                                             CLIENT_ID, CLIENT_SECRET, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (snodo_http_authorization_get_introspection_endpoint (fixture->authorization), ==,
                   fixture->endpoint_uri);
  snodo_http_transport_set_authorization (fixture->transport, fixture->authorization);
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  fixture->uri = snodo_http_transport_dup_uri (fixture->transport);
  fixture->audience = fixture->uri;
  fixture->session = soup_session_new ();
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  *done = TRUE;
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  g_clear_object (&fixture->session);
  snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 10000));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (fixture->transport);
  g_assert_finalize_object (fixture->authorization);
  g_clear_object (&fixture->server);
  if (fixture->endpoint != NULL)
    {
      /* The introspection's connections closed with the authorization:
       * the endpoint hears of it before it goes. */
      gboolean never = FALSE;

      snodo_test_wait_for (&never, 200);
      g_assert_finalize_object (fixture->endpoint);
    }
  g_free (fixture->endpoint_uri);
  g_free (fixture->uri);
  g_free (fixture->seen_principal);
  g_strfreev (fixture->seen_scopes);
  g_free (fixture->body);
}

typedef struct
{
  GBytes  *bytes;
  GError  *error;
  gboolean done;
} ReadState;

static void
send_and_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ReadState *state = user_data;

  state->bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &state->error);
  state->done = TRUE;
}

/* POSTs a tools/call of @tool (without arguments) to @uri with @token;
 * the status, the body in fixture->body, and the challenge's error in
 * *@challenge_error (nullable; NULL without one). */
static guint
call_tool (Fixture     *fixture,
           const char  *uri,
           const char  *tool,
           const char  *token,
           char       **challenge_error)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  g_autofree char *text = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"%s\",\"arguments\":{}," ENVELOPE "}}", tool);
  g_autoptr(GBytes) body = g_bytes_new (text, strlen (text));
  g_autofree char *authorization = g_strconcat ("Bearer ", token, NULL);
  ReadState state = { 0, };
  const char *challenge;

  g_clear_pointer (&fixture->seen_principal, g_free);
  g_clear_pointer (&fixture->seen_scopes, g_strfreev);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
  soup_message_headers_replace (headers, "Mcp-Name", tool);
  soup_message_headers_replace (headers, "Authorization", authorization);
  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  soup_session_send_and_read_async (fixture->session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 20000));
  g_assert_no_error (state.error);
  g_free (fixture->body);
  fixture->body = g_strndup (g_bytes_get_data (state.bytes, NULL), g_bytes_get_size (state.bytes));
  g_bytes_unref (state.bytes);

  challenge = soup_message_headers_get_one (soup_message_get_response_headers (msg), "WWW-Authenticate");
  if (challenge_error != NULL)
    {
      const char *start = challenge != NULL ? strstr (challenge, " error=\"") : NULL;

      *challenge_error = NULL;
      if (start != NULL)
        {
          start += strlen (" error=\"");
          *challenge_error = g_strndup (start, strchr (start, '"') - start);
        }
    }
  return soup_message_get_status (msg);
}

static guint
call_echo (Fixture     *fixture,
           const char  *token,
           char       **challenge_error)
{
  return call_tool (fixture, fixture->uri, "echo", token, challenge_error);
}

/* Asserts that @token is refused: 401 invalid_token, nothing served. */
static void
assert_refused (Fixture    *fixture,
                const char *token)
{
  g_autofree char *error = NULL;

  g_assert_cmpuint (call_echo (fixture, token, &error), ==, SOUP_STATUS_UNAUTHORIZED);
  g_assert_cmpstr (error, ==, "invalid_token");
  g_assert_null (fixture->seen_principal);
}

/* ---- The tests ----------------------------------------------------------- */

static void
test_active (Fixture       *fixture,
             gconstpointer  data)
{
  g_test_summary ("An active token for this resource is accepted: the handler sees the principal (sub, "
                  "else username, else client_id) and the scopes (scope split at spaces); the "
                  "endpoint is asked with the client's Basic credentials and a form");

  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (fixture->seen_principal, ==, "ada");
  g_assert_nonnull (fixture->seen_scopes);
  g_assert_cmpstrv (fixture->seen_scopes, ((const char * const[]) { "read", "write", NULL }));

  /* aud an array, one of them this resource with a trailing slash. */
  g_assert_cmpuint (call_echo (fixture, "aud-array", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (fixture->seen_principal, ==, "bob");
  g_assert_cmpstrv (fixture->seen_scopes, ((const char * const[]) { "read", NULL }));

  g_assert_cmpuint (call_echo (fixture, "client-only", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (fixture->seen_principal, ==, "service");
  g_assert_cmpuint (g_strv_length (fixture->seen_scopes), ==, 0);

  g_assert_cmpuint (fixture->n_introspections, ==, 3);
  g_assert_cmpuint (fixture->n_bad_introspections, ==, 0);
}

static void
test_refused (Fixture       *fixture,
              gconstpointer  data)
{
  g_test_summary ("Refused with 401 invalid_token: an inactive token, one for another audience or "
                  "without one, an expired one, a refresh token; refusals are not cached");

  assert_refused (fixture, "inactive");
  assert_refused (fixture, "made-up");
  assert_refused (fixture, "other-audience");
  assert_refused (fixture, "no-audience");
  assert_refused (fixture, "expired");
  assert_refused (fixture, "refresh");
  g_assert_cmpuint (fixture->n_introspections, ==, 6);
  assert_refused (fixture, "inactive");
  g_assert_cmpuint (fixture->n_introspections, ==, 7);
  g_assert_cmpuint (fixture->n_bad_introspections, ==, 0);
}

static void
test_endpoint_fails (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *error = NULL;

  g_test_summary ("An introspection endpoint that answers an error, too much, not JSON, or that is "
                  "gone: 503 without a challenge, never 401 (which would make the client sign in "
                  "again), and a message names the endpoint");

  fixture->endpoint_mode = ENDPOINT_ERROR;
  g_test_expect_message ("Snodo", G_LOG_LEVEL_MESSAGE, "*introspection endpoint http://127.0.0.1:*500*");
  g_assert_cmpuint (call_echo (fixture, "good", &error), ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_test_assert_expected_messages ();
  g_assert_null (error);
  g_assert_null (fixture->seen_principal);

  fixture->endpoint_mode = ENDPOINT_HUGE;
  g_test_expect_message ("Snodo", G_LOG_LEVEL_MESSAGE, "*introspection endpoint*too large*");
  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_test_assert_expected_messages ();

  fixture->endpoint_mode = ENDPOINT_NOT_JSON;
  g_test_expect_message ("Snodo", G_LOG_LEVEL_MESSAGE, "*introspection endpoint*");
  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_test_assert_expected_messages ();

  /* Gone: nobody listens on its port any more. */
  soup_server_disconnect (fixture->endpoint);
  g_clear_object (&fixture->endpoint);
  g_test_expect_message ("Snodo", G_LOG_LEVEL_MESSAGE, "*introspection endpoint*");
  g_assert_cmpuint (call_echo (fixture, "good", &error), ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_test_assert_expected_messages ();
  g_assert_null (error);
  g_assert_null (fixture->seen_principal);
}

static void
test_endpoint_hangs (Fixture       *fixture,
                     gconstpointer  data)
{
  gint64 start;
  gint64 elapsed;

  g_test_summary ("An introspection endpoint that never answers: 503 after validation-timeout (1 s), "
                  "and the next request is checked again");

  snodo_http_authorization_set_validation_timeout (fixture->authorization, 1);
  fixture->endpoint_mode = ENDPOINT_HANG;
  start = g_get_monotonic_time ();
  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
  elapsed = g_get_monotonic_time () - start;
  g_assert_cmpint (elapsed, >=, 900 * 1000);
  g_assert_cmpint (elapsed, <, 10 * G_USEC_PER_SEC);
  g_assert_null (fixture->seen_principal);

  fixture->endpoint_mode = ENDPOINT_ANSWER;
  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (fixture->seen_principal, ==, "ada");
}

static void
test_cache (Fixture       *fixture,
            gconstpointer  data)
{
  g_test_summary ("An accepted token is introspected once for two requests; the cache holds 256 "
                  "tokens at most, the oldest going first");

  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (fixture->seen_principal, ==, "ada");
  g_assert_cmpstrv (fixture->seen_scopes, ((const char * const[]) { "read", "write", NULL }));
  g_assert_cmpuint (fixture->n_introspections, ==, 1);

  /* 256 more tokens: "good" was the oldest, it goes. */
  for (guint i = 0; i < 256; i++)
    {
      g_autofree char *token = g_strdup_printf ("many-%u", i);

      g_assert_cmpuint (call_echo (fixture, token, NULL), ==, SOUP_STATUS_OK);
    }
  g_assert_cmpuint (fixture->n_introspections, ==, 257);
  /* The newest is kept, */
  g_assert_cmpuint (call_echo (fixture, "many-255", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (fixture->seen_principal, ==, "many-255");
  g_assert_cmpuint (fixture->n_introspections, ==, 257);
  /* the oldest is asked about again. */
  g_assert_cmpuint (call_echo (fixture, "good", NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (fixture->n_introspections, ==, 258);
}

static void
test_endpoint_allowed (void)
{
  g_autoptr(SnodoHttpAuthorization) authorization = snodo_http_authorization_new ();
  g_autoptr(GError) error = NULL;

  g_test_summary ("The introspection endpoint is https, or http to this machine; anything else is an "
                  "error and leaves the setting alone");

  g_assert_true (snodo_http_authorization_set_introspection (authorization, "https://as.example.com/introspect",
                                                             "id", "secret", &error));
  g_assert_no_error (error);
  g_assert_true (snodo_http_authorization_set_introspection (authorization, "http://[::1]:8080/introspect",
                                                             "id", "secret", &error));
  g_assert_true (snodo_http_authorization_set_introspection (authorization, "http://localhost/introspect",
                                                             "id", "secret", &error));
  g_assert_false (snodo_http_authorization_set_introspection (authorization, "http://as.example.com/introspect",
                                                              "id", "secret", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_assert_false (snodo_http_authorization_set_introspection (authorization, "not a url", "id", "secret", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpstr (snodo_http_authorization_get_introspection_endpoint (authorization), ==,
                   "http://localhost/introspect");
  g_assert_true (snodo_http_authorization_set_introspection (authorization, NULL, NULL, NULL, &error));
  g_assert_null (snodo_http_authorization_get_introspection_endpoint (authorization));
}

/* ---- snodo-demo --token-introspection ------------------------------------ */

static void
test_demo (Fixture       *fixture,
           gconstpointer  data)
{
  g_autofree char *tmpdir = g_dir_make_tmp ("snodo-introspect-XXXXXX", NULL);
  g_autofree char *secret_file = g_build_filename (tmpdir, "secret", NULL);
  g_autofree char *endpoint_option = g_strconcat ("--token-introspection=", fixture->endpoint_uri, NULL);
  g_autofree char *secret_option = g_strconcat ("--introspection-client-secret-file=", secret_file, NULL);
  const char *args[] = { "--authorization-server=http://127.0.0.1:1", endpoint_option,
                         "--introspection-client-id=" CLIENT_ID, secret_option, NULL };
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *demo_uri = NULL;
  g_autofree char *error = NULL;
  JsonObject *structured;

  g_test_summary ("snodo-demo --token-introspection checks tokens at the endpoint with its client id and "
                  "the secret of its file: whoami answers the token's principal and scopes; a token "
                  "for another audience is refused; an endpoint that fails, 503");

  g_assert_true (g_file_set_contents (secret_file, CLIENT_SECRET "\n", -1, NULL));
  demo = snodo_test_demo_http_start (args, &demo_uri);
  fixture->audience = demo_uri;

  g_assert_cmpuint (call_tool (fixture, demo_uri, "whoami", "good", NULL), ==, SOUP_STATUS_OK);
  node = snodo_test_parse (fixture->body);
  structured = json_object_get_object_member (json_object_get_object_member (json_node_get_object (node),
                                                                             "result"), "structuredContent");
  g_assert_cmpstr (json_object_get_string_member (structured, "principal"), ==, "ada");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (structured, "scopes")), ==, 2);
  g_assert_cmpuint (fixture->n_introspections, ==, 1);
  g_assert_cmpuint (fixture->n_bad_introspections, ==, 0);

  /* Tokens for the in-process transport are not for the demo. */
  fixture->audience = fixture->uri;
  g_assert_cmpuint (call_tool (fixture, demo_uri, "whoami", "aud-array", &error), ==, SOUP_STATUS_UNAUTHORIZED);
  g_assert_cmpstr (error, ==, "invalid_token");
  g_clear_pointer (&error, g_free);
  g_assert_cmpuint (call_tool (fixture, demo_uri, "whoami", "inactive", &error), ==, SOUP_STATUS_UNAUTHORIZED);
  g_assert_cmpstr (error, ==, "invalid_token");
  g_clear_pointer (&error, g_free);

  fixture->endpoint_mode = ENDPOINT_ERROR;
  g_assert_cmpuint (call_tool (fixture, demo_uri, "whoami", "client-only", &error), ==,
                    SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_assert_null (error);

  snodo_test_demo_stop (demo);
  g_unlink (secret_file);
  g_rmdir (tmpdir);
}

static void
test_demo_options (void)
{
  const char *path = g_getenv ("SNODO_DEMO");
  g_autofree char *tmpdir = g_dir_make_tmp ("snodo-introspect-XXXXXX", NULL);
  g_autofree char *secret_file = g_build_filename (tmpdir, "secret", NULL);
  g_autofree char *empty_file = g_build_filename (tmpdir, "empty", NULL);
  g_autofree char *secret_option = g_strconcat ("--introspection-client-secret-file=", secret_file, NULL);
  g_autofree char *empty_option = g_strconcat ("--introspection-client-secret-file=", empty_file, NULL);
  struct
  {
    const char *options[3];
    const char *message;
  } cases[] = {
    { { "--token-introspection=https://as.example/introspect", "--introspection-client-id=x", NULL },
      "--token-introspection needs --introspection-client-id and --introspection-client-secret-file" },
    { { "--token-introspection=https://as.example/introspect", secret_option, NULL },
      "--token-introspection needs --introspection-client-id" },
    { { "--token-introspection=http://as.example/introspect", "--introspection-client-id=x", secret_option },
      "neither HTTPS nor on this machine" },
    { { "--token-introspection=https://as.example/introspect", "--introspection-client-id=x", empty_option },
      "holds no secret" },
    { { "--introspection-client-id=x", secret_option, NULL },
      "need --bearer-token-file or --token-introspection" },
  };

  g_test_summary ("snodo-demo refuses incomplete or unsafe introspection options with one line on stderr "
                  "and exit 2, never printing the secret");

  g_assert_true (g_file_set_contents (secret_file, "the-client-secret\n", -1, NULL));
  g_assert_true (g_file_set_contents (empty_file, "\n", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GSubprocess) process = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *err = NULL;

      process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                  path, "--http=0", "--authorization-server=https://as.example",
                                  cases[i].options[0], cases[i].options[1], cases[i].options[2], NULL);
      g_assert_no_error (error);
      g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error));
      g_assert_no_error (error);
      g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 2);
      g_assert_nonnull (strstr (err, cases[i].message));
      g_assert_null (strstr (err, "the-client-secret"));
      g_assert_cmpint (strchr (err, '\n') - err + 1, ==, strlen (err));
    }
  g_unlink (secret_file);
  g_unlink (empty_file);
  g_rmdir (tmpdir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/http/introspect/active", Fixture, NULL, fixture_setup, test_active, fixture_teardown);
  g_test_add ("/snodo/http/introspect/refused", Fixture, NULL, fixture_setup, test_refused, fixture_teardown);
  g_test_add ("/snodo/http/introspect/endpoint-fails", Fixture, NULL, fixture_setup, test_endpoint_fails,
              fixture_teardown);
  g_test_add ("/snodo/http/introspect/endpoint-hangs", Fixture, NULL, fixture_setup, test_endpoint_hangs,
              fixture_teardown);
  g_test_add ("/snodo/http/introspect/cache", Fixture, NULL, fixture_setup, test_cache, fixture_teardown);
  g_test_add ("/snodo/http/introspect/demo", Fixture, NULL, fixture_setup, test_demo, fixture_teardown);
  g_test_add_func ("/snodo/http/introspect/demo/options", test_demo_options);
  g_test_add_func ("/snodo/http/introspect/endpoint-allowed", test_endpoint_allowed);

  return g_test_run ();
}
