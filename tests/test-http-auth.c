/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Authorization of the HTTP transport: snodo-demo --bearer-token-file as a
 * real process through real sockets (the challenges, the metadata, scopes,
 * sessions bound to their principal), and the validate-token hook of the
 * library in process (an answer that comes later, from a thread, never,
 * or from nobody). */

#include "config.h"

#include <signal.h>
#ifdef __linux__
# include <sys/prctl.h>
#endif
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
#define WHOAMI_2026 "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":" \
                    "{\"name\":\"whoami\",\"arguments\":{}," ENVELOPE "}}"
#define INITIALIZE "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" \
                   "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                   "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}"
#define WHOAMI_2025 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":" \
                    "{\"name\":\"whoami\",\"arguments\":{}}}"

#define LIST_2025 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{}}"

/* ---- A client ------------------------------------------------------------ */

typedef struct
{
  guint               status;
  char               *body;
  SoupMessageHeaders *headers;
} Reply;

static void
reply_clear (Reply *reply)
{
  g_clear_pointer (&reply->body, g_free);
  g_clear_pointer (&reply->headers, soup_message_headers_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Reply, reply_clear)

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

/* Sends @method to @uri with @body (nullable) and the header pairs that
 * follow (NULL-terminated), and waits for the whole answer. A 2026-07-28
 * tools/call gets its standard headers from its body's name. */
static void
send_request (SoupSession *session,
              const char  *method,
              const char  *uri,
              const char  *body,
              Reply       *reply,
              ...)
{
  g_autoptr(SoupMessage) msg = soup_message_new (method, uri);
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  ReadState state = { 0, };
  const char *name;
  va_list args;

  g_assert_nonnull (msg);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));

      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
      if (strstr (body, "2026-07-28") != NULL)
        {
          soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
          soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
          soup_message_headers_replace (headers, "Mcp-Name", strstr (body, "whoami") ? "whoami" : "echo");
        }
    }
  va_start (args, reply);
  while ((name = va_arg (args, const char *)) != NULL)
    soup_message_headers_replace (headers, name, va_arg (args, const char *));
  va_end (args);

  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 20000));
  g_assert_no_error (state.error);
  reply->status = soup_message_get_status (msg);
  reply->body = g_strndup (g_bytes_get_data (state.bytes, NULL), g_bytes_get_size (state.bytes));
  reply->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  g_bytes_unref (state.bytes);
}

/* The member @name of the Bearer challenge of @reply, or NULL. A simple
 * reader for what the transport writes (no commas inside values). */
static char *
challenge_param (Reply      *reply,
                 const char *name)
{
  const char *challenge = soup_message_headers_get_one (reply->headers, "WWW-Authenticate");
  g_autofree char *pattern = NULL;
  const char *start;
  const char *end;

  g_assert_nonnull (challenge);
  g_assert_true (g_str_has_prefix (challenge, "Bearer "));
  pattern = g_strdup_printf (" %s=\"", name);
  start = strstr (challenge, pattern);
  if (start == NULL)
    return NULL;
  start += strlen (pattern);
  end = strchr (start, '"');
  g_assert_nonnull (end);
  return g_strndup (start, end - start);
}

/* The JSON-RPC error code of @reply's body. */
static gint64
error_code (Reply *reply)
{
  g_autoptr(JsonNode) node = snodo_test_parse (reply->body);
  JsonObject *error = json_object_get_object_member (json_node_get_object (node), "error");

  g_assert_nonnull (error);
  return json_object_get_int_member (error, "code");
}

/* structuredContent.principal of a whoami answer (a JSON body). */
static char *
whoami_principal (Reply *reply)
{
  g_autoptr(JsonNode) node = snodo_test_parse (reply->body);
  JsonObject *result = json_object_get_object_member (json_node_get_object (node), "result");
  JsonObject *structured;

  g_assert_nonnull (result);
  structured = json_object_get_object_member (result, "structuredContent");
  g_assert_nonnull (structured);
  return g_strdup (json_object_get_string_member (structured, "principal"));
}

/* ---- snodo-demo --bearer-token-file -------------------------------------- */

typedef struct
{
  char        *tmpdir;
  char        *tokens;
  GSubprocess *process;
  char        *uri;
  /* scheme://host:port */
  char        *origin;
  SoupSession *session;
} Demo;

typedef struct
{
  char    *line;
  GError  *error;
  gboolean done;
} LineState;

static void
read_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  LineState *state = user_data;

  state->line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result, NULL,
                                                      &state->error);
  state->done = TRUE;
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *done = TRUE;
}

#ifdef __linux__
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}
#endif

static void
demo_setup (Demo          *demo,
            gconstpointer  data)
{
  static const char tokens[] =
    "# The tokens of the tests: TOKEN PRINCIPAL SCOPE...\n"
    "tok-alice alice mcp:read mcp:tools\n"
    "\n"
    "tok-bob\tbob mcp:read\n"
    "tok-carol carol\n";
  const char *path = g_getenv ("SNODO_DEMO");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  LineState state = { 0, };

  g_assert_nonnull (path);
  demo->tmpdir = g_dir_make_tmp ("snodo-auth-XXXXXX", &error);
  g_assert_no_error (error);
  demo->tokens = g_build_filename (demo->tmpdir, "tokens", NULL);
  g_assert_true (g_file_set_contents (demo->tokens, tokens, -1, &error));
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
#ifdef __linux__
  /* A failed assertion must not leave the server running. */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
#endif
  demo->process = g_subprocess_launcher_spawn (launcher, &error, path, "--http=0",
                                               "--bearer-token-file", demo->tokens,
                                               "--authorization-server=https://auth.example.com",
                                               "--required-scopes=mcp:read", "--tool-scope=whoami:mcp:tools",
                                               NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (demo->process));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL, read_line_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_true (g_str_has_prefix (state.line, "http://127.0.0.1:"));
  g_assert_true (g_str_has_suffix (state.line, "/mcp"));
  demo->uri = state.line;
  demo->origin = g_strndup (demo->uri, strlen (demo->uri) - strlen ("/mcp"));
  demo->session = soup_session_new ();
}

static void
demo_teardown (Demo          *demo,
               gconstpointer  data)
{
  gboolean exited = FALSE;

  g_clear_object (&demo->session);
  g_subprocess_send_signal (demo->process, SIGTERM);
  g_subprocess_wait_async (demo->process, NULL, wait_cb, &exited);
  g_assert_true (snodo_test_wait_for (&exited, 10000));
  g_assert_true (g_subprocess_get_if_exited (demo->process));
  g_assert_cmpint (g_subprocess_get_exit_status (demo->process), ==, 0);
  g_clear_object (&demo->process);
  g_unlink (demo->tokens);
  g_rmdir (demo->tmpdir);
  g_free (demo->tokens);
  g_free (demo->tmpdir);
  g_free (demo->uri);
  g_free (demo->origin);
}

static void
test_demo_challenge (Demo          *demo,
                     gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  g_auto(Reply) root = { 0, };
  g_auto(Reply) other = { 0, };
  g_autofree char *metadata_url = NULL;
  g_autofree char *expected_url = g_strconcat (demo->origin, "/.well-known/oauth-protected-resource/mcp", NULL);
  g_autofree char *scope = NULL;
  g_autofree char *root_url = g_strconcat (demo->origin, "/.well-known/oauth-protected-resource", NULL);
  g_autofree char *other_url = g_strconcat (demo->origin, "/.well-known/oauth-protected-resource/other", NULL);
  g_autoptr(JsonNode) expected = NULL;
  g_autoptr(JsonNode) document = NULL;
  g_autofree char *expected_text = NULL;

  g_test_summary ("Without a token: 401 whose challenge names the scope and the metadata URL, which "
                  "serves the RFC 9728 document (also at the root well-known path), unprotected");

  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_UNAUTHORIZED);
  g_assert_cmpint (error_code (&reply), ==, -32600);
  metadata_url = challenge_param (&reply, "resource_metadata");
  g_assert_cmpstr (metadata_url, ==, expected_url);
  scope = challenge_param (&reply, "scope");
  g_assert_cmpstr (scope, ==, "mcp:read");
  /* No token was presented: no error code (RFC 6750 §3.1). */
  g_assert_null (challenge_param (&reply, "error"));
  reply_clear (&reply);

  send_request (demo->session, "GET", metadata_url, NULL, &reply, NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  g_assert_cmpstr (soup_message_headers_get_content_type (reply.headers, NULL), ==, "application/json");
  expected_text = g_strdup_printf ("{\"resource\":\"%s\",\"authorization_servers\":[\"https://auth.example.com\"],"
                                   "\"scopes_supported\":[\"mcp:read\",\"mcp:tools\"],"
                                   "\"bearer_methods_supported\":[\"header\"],\"resource_name\":\"Snodo demo\"}",
                                   demo->uri);
  expected = snodo_test_parse (expected_text);
  document = snodo_test_parse (reply.body);
  g_assert_true (snodo_test_json_equal (document, expected));

  send_request (demo->session, "GET", root_url, NULL, &root, NULL);
  g_assert_cmpuint (root.status, ==, SOUP_STATUS_OK);
  g_assert_cmpstr (root.body, ==, reply.body);
  send_request (demo->session, "GET", other_url, NULL, &other, NULL);
  g_assert_cmpuint (other.status, ==, SOUP_STATUS_NOT_FOUND);
}

static void
test_demo_refused (Demo          *demo,
                   gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  g_autofree char *error = NULL;
  g_autofree char *metadata_url = NULL;

  g_test_summary ("An unknown token: 401 invalid_token with the metadata URL; a malformed one: 400 "
                  "invalid_request; a scheme other than Bearer: the plain 401");

  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, "Authorization", "Bearer tok-mallory", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_UNAUTHORIZED);
  error = challenge_param (&reply, "error");
  g_assert_cmpstr (error, ==, "invalid_token");
  metadata_url = challenge_param (&reply, "resource_metadata");
  g_assert_true (g_str_has_suffix (metadata_url, "/.well-known/oauth-protected-resource/mcp"));
  /* Never echoed back. */
  g_assert_null (strstr (reply.body, "mallory"));
  g_assert_null (strstr (soup_message_headers_get_one (reply.headers, "WWW-Authenticate"), "mallory"));
  reply_clear (&reply);
  g_clear_pointer (&error, g_free);

  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, "Authorization", "Bearer tok alice", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_BAD_REQUEST);
  error = challenge_param (&reply, "error");
  g_assert_cmpstr (error, ==, "invalid_request");
  reply_clear (&reply);
  g_clear_pointer (&error, g_free);

  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, "Authorization", "Basic dG9rOmFsaWNl", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_UNAUTHORIZED);
  g_assert_null (challenge_param (&reply, "error"));
}

static void
test_demo_scopes (Demo          *demo,
                  gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  g_autofree char *error = NULL;
  g_autofree char *scope = NULL;
  g_autofree char *principal = NULL;
  g_autofree char *metadata_url = NULL;

  g_test_summary ("2026-07-28: a token without the tool's scope gets 403 insufficient_scope naming every "
                  "scope the call needs; one without the server's required scope too; a good token is "
                  "served and the handler sees its principal");

  /* bob has mcp:read, not mcp:tools, which whoami needs. */
  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, "Authorization", "Bearer tok-bob", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_FORBIDDEN);
  error = challenge_param (&reply, "error");
  g_assert_cmpstr (error, ==, "insufficient_scope");
  scope = challenge_param (&reply, "scope");
  g_assert_cmpstr (scope, ==, "mcp:read mcp:tools");
  metadata_url = challenge_param (&reply, "resource_metadata");
  g_assert_true (g_str_has_suffix (metadata_url, "/.well-known/oauth-protected-resource/mcp"));
  /* The request's id, as in the transport's other errors. */
  g_assert_nonnull (strstr (reply.body, "\"id\":7"));
  reply_clear (&reply);
  g_clear_pointer (&error, g_free);
  g_clear_pointer (&scope, g_free);

  /* carol has no scope at all: not even the server's mcp:read. */
  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, "Authorization", "Bearer tok-carol", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_FORBIDDEN);
  error = challenge_param (&reply, "error");
  g_assert_cmpstr (error, ==, "insufficient_scope");
  scope = challenge_param (&reply, "scope");
  g_assert_cmpstr (scope, ==, "mcp:read");
  reply_clear (&reply);

  send_request (demo->session, "POST", demo->uri, WHOAMI_2026, &reply, "Authorization", "Bearer tok-alice", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  principal = whoami_principal (&reply);
  g_assert_cmpstr (principal, ==, "alice");
  g_assert_nonnull (strstr (reply.body, "\"scopes\":[\"mcp:read\",\"mcp:tools\"]"));
}

#define ASK_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                 "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

static void
test_demo_request_state (Demo          *demo,
                         gconstpointer  data)
{
  g_auto(Reply) asked = { 0, };
  g_auto(Reply) stolen = { 0, };
  g_auto(Reply) answered = { 0, };
  g_autoptr(JsonNode) first = NULL;
  g_autofree char *retry = NULL;
  const char *state;

  g_test_summary ("A requestState issued to one principal is refused to another (-32602), "
                  "and still completes the call for its own");

  send_request (demo->session, "POST", demo->uri,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                "{\"name\":\"ask\",\"arguments\":{}," ASK_META "}}",
                &asked, "Authorization", "Bearer tok-alice", "Mcp-Name", "ask", NULL);
  g_assert_cmpuint (asked.status, ==, SOUP_STATUS_OK);
  first = snodo_test_parse (asked.body);
  state = json_object_get_string_member (json_object_get_object_member (json_node_get_object (first), "result"),
                                         "requestState");
  g_assert_nonnull (state);

  retry = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                           "{\"name\":\"ask\",\"arguments\":{},\"inputResponses\":{\"confirm\":"
                           "{\"action\":\"accept\",\"content\":{\"confirm\":true}}},"
                           "\"requestState\":\"%s\"," ASK_META "}}", state);
  /* bob's token is good for ask (it needs no scope of its own). */
  send_request (demo->session, "POST", demo->uri, retry, &stolen,
                "Authorization", "Bearer tok-bob", "Mcp-Name", "ask", NULL);
  g_assert_nonnull (strstr (stolen.body, "-32602"));
  g_assert_nonnull (strstr (stolen.body, "another principal"));
  g_assert_null (strstr (stolen.body, "confirmed"));

  send_request (demo->session, "POST", demo->uri, retry, &answered,
                "Authorization", "Bearer tok-alice", "Mcp-Name", "ask", NULL);
  g_assert_cmpuint (answered.status, ==, SOUP_STATUS_OK);
  g_assert_nonnull (strstr (answered.body, "\"text\":\"confirmed\""));
}

static void
test_demo_session (Demo          *demo,
                   gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  g_autofree char *session_id = NULL;
  g_autofree char *principal = NULL;

  g_test_summary ("2025-11-25: a session belongs to the principal whose token started it; another "
                  "principal's token with its id gets 404 on POST, GET and DELETE, no token 401; its own "
                  "principal is served and ends it");

  send_request (demo->session, "POST", demo->uri, INITIALIZE, &reply, NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_UNAUTHORIZED);
  reply_clear (&reply);

  send_request (demo->session, "POST", demo->uri, INITIALIZE, &reply, "Authorization", "Bearer tok-alice", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  session_id = g_strdup (soup_message_headers_get_one (reply.headers, "Mcp-Session-Id"));
  g_assert_nonnull (session_id);
  reply_clear (&reply);

  send_request (demo->session, "POST", demo->uri, WHOAMI_2025, &reply, "Authorization", "Bearer tok-alice",
                "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  principal = whoami_principal (&reply);
  g_assert_cmpstr (principal, ==, "alice");
  reply_clear (&reply);

  /* bob's token is good (and enough for tools/list), but the session is
   * alice's. */
  send_request (demo->session, "POST", demo->uri, LIST_2025, &reply, "Authorization", "Bearer tok-bob",
                "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_NOT_FOUND);
  g_assert_cmpint (error_code (&reply), ==, -32600);
  reply_clear (&reply);
  send_request (demo->session, "GET", demo->uri, NULL, &reply, "Authorization", "Bearer tok-bob",
                "Accept", "text/event-stream", "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25",
                NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_NOT_FOUND);
  reply_clear (&reply);
  send_request (demo->session, "DELETE", demo->uri, NULL, &reply, "Authorization", "Bearer tok-bob",
                "Mcp-Session-Id", session_id, NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_NOT_FOUND);
  reply_clear (&reply);
  send_request (demo->session, "DELETE", demo->uri, NULL, &reply, "Mcp-Session-Id", session_id, NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_UNAUTHORIZED);
  reply_clear (&reply);

  /* Still alice's, untouched by bob's DELETE. */
  send_request (demo->session, "DELETE", demo->uri, NULL, &reply, "Authorization", "Bearer tok-alice",
                "Mcp-Session-Id", session_id, NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  reply_clear (&reply);
  send_request (demo->session, "POST", demo->uri, WHOAMI_2025, &reply, "Authorization", "Bearer tok-alice",
                "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_NOT_FOUND);
}

/* whoami with @token, in @session_id (2025-11-25) or stateless
 * (2026-07-28 when NULL): the principal, or NULL when refused. */
static char *
demo_whoami (SoupSession *session,
             const char  *uri,
             const char  *token,
             const char  *session_id)
{
  g_auto(Reply) reply = { 0, };
  g_autofree char *authorization = g_strconcat ("Bearer ", token, NULL);

  if (session_id != NULL)
    send_request (session, "POST", uri, WHOAMI_2025, &reply, "Authorization", authorization,
                  "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL);
  else
    send_request (session, "POST", uri, WHOAMI_2026, &reply, "Authorization", authorization, NULL);
  if (reply.status == SOUP_STATUS_UNAUTHORIZED)
    return NULL;
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  return whoami_principal (&reply);
}

/* Sends SIGHUP to @process and reads the line it logs on @err. */
static char *
demo_hangup (GSubprocess      *process,
             GDataInputStream *err)
{
  LineState state = { 0, };

  g_subprocess_send_signal (process, SIGHUP);
  g_data_input_stream_read_line_async (err, G_PRIORITY_DEFAULT, NULL, read_line_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_nonnull (state.line);
  g_test_message ("%s", state.line);
  return state.line;
}

static void
test_demo_reload (void)
{
  const char *path = g_getenv ("SNODO_DEMO");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GDataInputStream) err = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(GError) error = NULL;
  g_auto(Reply) reply = { 0, };
  g_autofree char *tmpdir = NULL;
  g_autofree char *tokens = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *principal = NULL;
  g_autofree char *line = NULL;
  g_autofree char *rest = NULL;
  LineState state = { 0, };
  gboolean exited = FALSE;

  g_test_summary ("SIGHUP makes snodo-demo read its token file again: a token added is accepted, one "
                  "taken out refused, a 2025 session started before is kept, the process goes on, and "
                  "it logs one line; a broken file is refused and the previous tokens kept");

  g_assert_nonnull (path);
  tmpdir = g_dir_make_tmp ("snodo-auth-XXXXXX", &error);
  g_assert_no_error (error);
  tokens = g_build_filename (tmpdir, "tokens", NULL);
  g_assert_true (g_file_set_contents (tokens, "tok-alice alice mcp:read mcp:tools\ntok-bob bob mcp:read\n", -1,
                                      &error));
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
#ifdef __linux__
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
#endif
  process = g_subprocess_launcher_spawn (launcher, &error, path, "--http=0", "--bearer-token-file", tokens,
                                         "--authorization-server=https://auth.example.com", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (process));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL, read_line_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_true (g_str_has_prefix (state.line, "http://127.0.0.1:"));

  /* alice's 2025 session, started before the reload. */
  send_request (session, "POST", state.line, INITIALIZE, &reply, "Authorization", "Bearer tok-alice", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  session_id = g_strdup (soup_message_headers_get_one (reply.headers, "Mcp-Session-Id"));
  g_assert_nonnull (session_id);
  g_assert_null (demo_whoami (session, state.line, "tok-dave", NULL));

  /* dave is added, bob taken out. */
  g_assert_true (g_file_set_contents (tokens, "tok-alice alice mcp:read mcp:tools\ntok-dave dave mcp:read\n", -1,
                                      &error));
  line = demo_hangup (process, err);
  g_assert_true (g_str_has_prefix (line, "snodo-demo: SIGHUP: reloaded 2 bearer tokens from "));
  g_assert_null (strstr (line, "tok-"));
  g_clear_pointer (&line, g_free);
  principal = demo_whoami (session, state.line, "tok-dave", NULL);
  g_assert_cmpstr (principal, ==, "dave");
  g_clear_pointer (&principal, g_free);
  g_assert_null (demo_whoami (session, state.line, "tok-bob", NULL));
  principal = demo_whoami (session, state.line, "tok-alice", session_id);
  g_assert_cmpstr (principal, ==, "alice");
  g_clear_pointer (&principal, g_free);

  /* A file that does not read changes nothing. */
  g_assert_true (g_file_set_contents (tokens, "tok-erin\n", -1, &error));
  line = demo_hangup (process, err);
  g_assert_true (g_str_has_prefix (line, "snodo-demo: SIGHUP: not reloaded, still serving as before: "));
  g_assert_nonnull (strstr (line, "line 1: a token needs a principal"));
  g_assert_null (strstr (line, "tok-"));
  principal = demo_whoami (session, state.line, "tok-dave", NULL);
  g_assert_cmpstr (principal, ==, "dave");
  g_clear_pointer (&principal, g_free);
  principal = demo_whoami (session, state.line, "tok-alice", session_id);
  g_assert_cmpstr (principal, ==, "alice");

  /* Still serving: SIGTERM ends it, cleanly, with nothing more logged. */
  g_assert_nonnull (g_subprocess_get_identifier (process));
  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait_async (process, NULL, wait_cb, &exited);
  g_assert_true (snodo_test_wait_for (&exited, 10000));
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  rest = g_data_input_stream_read_line (err, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (rest);

  g_free (state.line);
  g_unlink (tokens);
  g_rmdir (tmpdir);
}

static void
test_demo_options (void)
{
  const char *path = g_getenv ("SNODO_DEMO");
  g_autofree char *tmpdir = NULL;
  g_autofree char *bad = NULL;
  g_autoptr(GError) error = NULL;
  struct
  {
    const char *contents;
    const char *option;
    const char *message;
  } cases[] = {
    { "secret-token-1\n", NULL, "line 1: a token needs a principal" },
    { "# nothing\n\n", NULL, "has no token" },
    { "secret-token-1 a\nsecret-token-1 b\n", NULL, "line 2: the token is given twice" },
    { "secret-token-1 a\n", "--tool-scope=whoami", "--tool-scope needs TOOL:SCOPE" },
    { "secret-token-1 a\n", "--resource=ftp://x/mcp", "--resource needs an http or https URL" },
    { "secret-token-1 a\n", "--resource=http://x/mcp", "--bearer-token-file needs --authorization-server" },
  };

  g_test_summary ("snodo-demo refuses a bad token file or option with one line on stderr and exit 2, "
                  "never printing a token; the authorization options need --http");

  tmpdir = g_dir_make_tmp ("snodo-auth-XXXXXX", &error);
  g_assert_no_error (error);
  bad = g_build_filename (tmpdir, "tokens", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GSubprocess) process = NULL;
      g_autofree char *err = NULL;

      g_assert_true (g_file_set_contents (bad, cases[i].contents, -1, &error));
      /* The cases before the last have an authorization server. */
      process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                  path, "--http=0", "--bearer-token-file", bad, cases[i].option,
                                  i + 1 < G_N_ELEMENTS (cases) ? "--authorization-server=https://as.example" : NULL,
                                  NULL);
      g_assert_no_error (error);
      g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error));
      g_assert_no_error (error);
      g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 2);
      g_assert_nonnull (strstr (err, cases[i].message));
      g_assert_null (strstr (err, "secret-token"));
      g_assert_cmpint (strchr (err, '\n') - err + 1, ==, strlen (err));
    }

  {
    g_autoptr(GSubprocess) process = NULL;
    g_autofree char *err = NULL;

    process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                                path, "--bearer-token-file", bad, NULL);
    g_assert_no_error (error);
    g_assert_true (g_subprocess_communicate_utf8 (process, "", NULL, NULL, &err, &error));
    g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 2);
    g_assert_nonnull (strstr (err, "--bearer-token-file are for HTTP"));
  }
  g_unlink (bad);
  g_rmdir (tmpdir);
}

/* ---- The hook, in process ------------------------------------------------ */

typedef enum
{
  MODE_ACCEPT_LATER,
  MODE_ACCEPT_IN_THREAD,
  MODE_NEVER,
  MODE_NO_HANDLER,
  MODE_DECLINE,
} Mode;

typedef struct
{
  SnodoServer            *server;
  SnodoHttpTransport     *transport;
  SnodoHttpAuthorization *authorization;
  SoupSession            *session;
  char                   *uri;
  Mode                    mode;
  /* The request the handler kept (MODE_NEVER). */
  SnodoAuthRequest       *kept;
  gboolean                kept_cancelled;
  guint                   n_validations;
  /* What the tool's handler saw. */
  char                   *seen_principal;
  gboolean                seen_has_read;
  gboolean                seen_has_write;
} Hook;

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  Hook *hook = user_data;

  g_free (hook->seen_principal);
  hook->seen_principal = g_strdup (snodo_invocation_get_principal (invocation));
  hook->seen_has_read = snodo_invocation_has_scope (invocation, "read");
  hook->seen_has_write = snodo_invocation_has_scope (invocation, "write");
  snodo_invocation_return_text (invocation, "ok");
}

static gboolean
accept_later_cb (gpointer user_data)
{
  SnodoAuthRequest *request = user_data;
  static const char * const scopes[] = { "read", NULL };

  snodo_auth_request_accept (request, "later", scopes);
  return G_SOURCE_REMOVE;
}

static gpointer
accept_thread (gpointer user_data)
{
  g_autoptr(SnodoAuthRequest) request = user_data;
  static const char * const scopes[] = { "read", "write", NULL };

  g_usleep (20000);
  snodo_auth_request_accept (request, "threaded", scopes);
  return NULL;
}

static void
set_true (gboolean *flag)
{
  *flag = TRUE;
}

static gboolean
validate_cb (SnodoHttpAuthorization *authorization,
             SnodoAuthRequest       *request,
             Hook                   *hook)
{
  hook->n_validations++;
  g_assert_cmpstr (snodo_auth_request_get_token (request), ==, "t0ken");
  g_assert_cmpstr (snodo_auth_request_get_resource (request), ==, hook->uri);
  g_assert_false (snodo_auth_request_get_completed (request));
  switch (hook->mode)
    {
    case MODE_ACCEPT_LATER:
      g_timeout_add_full (G_PRIORITY_DEFAULT, 50, accept_later_cb, g_object_ref (request), g_object_unref);
      return TRUE;
    case MODE_ACCEPT_IN_THREAD:
      g_thread_unref (g_thread_new ("accept", accept_thread, g_object_ref (request)));
      return TRUE;
    case MODE_NEVER:
      g_set_object (&hook->kept, request);
      g_signal_connect_swapped (snodo_auth_request_get_cancellable (request), "cancelled",
                                G_CALLBACK (set_true), &hook->kept_cancelled);
      return TRUE;
    case MODE_DECLINE:
    case MODE_NO_HANDLER:
    default:
      return FALSE;
    }
}

static void
hook_setup (Hook          *hook,
            gconstpointer  data)
{
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", NULL);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GError) error = NULL;

  hook->mode = GPOINTER_TO_INT (data);
  hook->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (hook->server, echo, echo_cb, hook, NULL, NULL));
  hook->transport = snodo_http_transport_new (hook->server);
  hook->authorization = snodo_http_authorization_new ();
  snodo_http_authorization_set_validation_timeout (hook->authorization, 1);
  if (hook->mode != MODE_NO_HANDLER)
    g_signal_connect (hook->authorization, "validate-token", G_CALLBACK (validate_cb), hook);
  snodo_http_transport_set_authorization (hook->transport, hook->authorization);
  g_assert_true (snodo_http_transport_listen (hook->transport, address, &error));
  g_assert_no_error (error);
  hook->uri = snodo_http_transport_dup_uri (hook->transport);
  hook->session = soup_session_new ();
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
hook_teardown (Hook          *hook,
               gconstpointer  data)
{
  gboolean done = FALSE;

  g_clear_object (&hook->session);
  snodo_http_transport_close_async (hook->transport, NULL, close_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 10000));
  /* The checks waiting hold the transport: none may be left. */
  g_assert_finalize_object (hook->transport);
  g_clear_object (&hook->kept);
  g_assert_finalize_object (hook->authorization);
  g_clear_object (&hook->server);
  g_free (hook->uri);
  g_free (hook->seen_principal);
}

static void
test_hook_accept (Hook          *hook,
                  gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}";

  g_test_summary ("The application accepts a token later (a timeout of its context) or from another "
                  "thread: the request is then served, its handler sees the principal and scopes");

  send_request (hook->session, "POST", hook->uri, body, &reply, "Authorization", "Bearer t0ken", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_OK);
  g_assert_cmpuint (hook->n_validations, ==, 1);
  if (hook->mode == MODE_ACCEPT_LATER)
    {
      g_assert_cmpstr (hook->seen_principal, ==, "later");
      g_assert_true (hook->seen_has_read);
      g_assert_false (hook->seen_has_write);
    }
  else
    {
      g_assert_cmpstr (hook->seen_principal, ==, "threaded");
      g_assert_true (hook->seen_has_read);
      g_assert_true (hook->seen_has_write);
    }
}

static void
test_hook_never (Hook          *hook,
                 gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}";
  static const char * const scopes[] = { "read", NULL };
  gint64 start = g_get_monotonic_time ();
  gint64 elapsed;

  g_test_summary ("A check that never completes holds its request for validation-timeout (1 s), then "
                  "503 -32603; the request's cancellable is cancelled and a late answer is ignored");

  send_request (hook->session, "POST", hook->uri, body, &reply, "Authorization", "Bearer t0ken", NULL);
  elapsed = g_get_monotonic_time () - start;
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_assert_cmpint (error_code (&reply), ==, -32603);
  g_assert_cmpint (elapsed, >=, 900 * 1000);
  g_assert_cmpint (elapsed, <, 10 * G_USEC_PER_SEC);
  g_assert_nonnull (hook->kept);
  g_assert_true (g_cancellable_is_cancelled (snodo_auth_request_get_cancellable (hook->kept)));
  g_assert_true (snodo_auth_request_get_completed (hook->kept));
  /* Too late: no critical, nothing served. */
  snodo_auth_request_accept (hook->kept, "late", scopes);
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (hook->seen_principal);
}

static void
test_hook_close (Hook          *hook,
                 gconstpointer  data)
{
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}";
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", hook->uri);
  g_autoptr(GBytes) bytes = g_bytes_new_static (body, sizeof body - 1);
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  ReadState state = { 0, };
  gboolean closed = FALSE;
  gint64 start;

  g_test_summary ("Closing the transport while a token's check waits: the close completes, the waiting "
                  "request ends without being served (its client's connection goes), the check's "
                  "cancellable is cancelled, and the transport is finalized");

  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
  soup_message_headers_replace (headers, "Mcp-Name", "echo");
  soup_message_headers_replace (headers, "Authorization", "Bearer t0ken");
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  soup_session_send_and_read_async (hook->session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
  while (hook->kept == NULL)
    g_main_context_iteration (NULL, TRUE);

  start = g_get_monotonic_time ();
  snodo_http_transport_close_async (hook->transport, NULL, close_cb, &closed);
  g_assert_true (snodo_test_wait_for (&closed, 5000));
  g_assert_true (snodo_test_wait_for (&state.done, 5000));
  /* Well before validation-timeout (1 s) would have answered it. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 900 * 1000);
  g_assert_true (state.error != NULL || soup_message_get_status (msg) == SOUP_STATUS_SERVICE_UNAVAILABLE);
  g_clear_error (&state.error);
  g_clear_pointer (&state.bytes, g_bytes_unref);
  g_assert_true (snodo_test_wait_for (&hook->kept_cancelled, 5000));
  g_assert_null (hook->seen_principal);
}

static void
test_hook_client_leaves (Hook          *hook,
                         gconstpointer  data)
{
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}";
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", hook->uri);
  g_autoptr(GBytes) bytes = g_bytes_new_static (body, sizeof body - 1);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  ReadState state = { 0, };
  g_auto(Reply) reply = { 0, };

  g_test_summary ("A client that leaves while its token is checked: the check is given up (its "
                  "cancellable cancelled) by validation-timeout at the latest, nothing is served, "
                  "and the transport serves the next request");

  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
  soup_message_headers_replace (headers, "Mcp-Name", "echo");
  soup_message_headers_replace (headers, "Authorization", "Bearer t0ken");
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  soup_session_send_and_read_async (hook->session, msg, G_PRIORITY_DEFAULT, cancellable, send_and_read_cb,
                                    &state);
  while (hook->kept == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_cancellable_cancel (cancellable);
  soup_session_abort (hook->session);
  g_assert_true (snodo_test_wait_for (&state.done, 5000));
  g_clear_error (&state.error);
  g_assert_true (snodo_test_wait_for (&hook->kept_cancelled, 5000));
  g_assert_null (hook->seen_principal);

  /* The next request: its check never completes either, so 503. */
  g_clear_object (&hook->kept);
  send_request (hook->session, "POST", hook->uri, body, &reply, "Authorization", "Bearer t0ken", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_SERVICE_UNAVAILABLE);
}

static void
test_hook_unchecked (Hook          *hook,
                     gconstpointer  data)
{
  g_auto(Reply) reply = { 0, };
  g_autofree char *error = NULL;
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}";

  g_test_summary ("A token nobody takes (no handler, or every handler returns FALSE) is refused: 401 "
                  "invalid_token, nothing served");

  send_request (hook->session, "POST", hook->uri, body, &reply, "Authorization", "Bearer t0ken", NULL);
  g_assert_cmpuint (reply.status, ==, SOUP_STATUS_UNAUTHORIZED);
  error = challenge_param (&reply, "error");
  g_assert_cmpstr (error, ==, "invalid_token");
  g_assert_null (hook->seen_principal);
  g_assert_cmpuint (hook->n_validations, ==, hook->mode == MODE_DECLINE ? 1 : 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/http/auth/demo/challenge", Demo, NULL, demo_setup, test_demo_challenge, demo_teardown);
  g_test_add ("/snodo/http/auth/demo/refused", Demo, NULL, demo_setup, test_demo_refused, demo_teardown);
  g_test_add ("/snodo/http/auth/demo/scopes", Demo, NULL, demo_setup, test_demo_scopes, demo_teardown);
  g_test_add ("/snodo/http/auth/demo/session", Demo, NULL, demo_setup, test_demo_session, demo_teardown);
  g_test_add ("/snodo/http/auth/demo/request-state", Demo, NULL, demo_setup, test_demo_request_state,
              demo_teardown);
  g_test_add_func ("/snodo/http/auth/demo/options", test_demo_options);
  g_test_add_func ("/snodo/http/auth/demo/reload", test_demo_reload);
  g_test_add ("/snodo/http/auth/hook/later", Hook, GINT_TO_POINTER (MODE_ACCEPT_LATER), hook_setup,
              test_hook_accept, hook_teardown);
  g_test_add ("/snodo/http/auth/hook/thread", Hook, GINT_TO_POINTER (MODE_ACCEPT_IN_THREAD), hook_setup,
              test_hook_accept, hook_teardown);
  g_test_add ("/snodo/http/auth/hook/never", Hook, GINT_TO_POINTER (MODE_NEVER), hook_setup,
              test_hook_never, hook_teardown);
  g_test_add ("/snodo/http/auth/hook/close", Hook, GINT_TO_POINTER (MODE_NEVER), hook_setup,
              test_hook_close, hook_teardown);
  g_test_add ("/snodo/http/auth/hook/client-leaves", Hook, GINT_TO_POINTER (MODE_NEVER), hook_setup,
              test_hook_client_leaves, hook_teardown);
  g_test_add ("/snodo/http/auth/hook/no-handler", Hook, GINT_TO_POINTER (MODE_NO_HANDLER), hook_setup,
              test_hook_unchecked, hook_teardown);
  g_test_add ("/snodo/http/auth/hook/declined", Hook, GINT_TO_POINTER (MODE_DECLINE), hook_setup,
              test_hook_unchecked, hook_teardown);

  return g_test_run ();
}
