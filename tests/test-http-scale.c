/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* More than one instance serving the same clients: snodo-demo processes
 * sharing a request-state secret, and the instance tag of session ids.
 * Loopback only; every wait is bounded. */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "snodo-http-transport.h"
#include "snodo-server.h"
#include "snodo-test-peer.h"
#include "snodo-test-util.h"

/* Generous bounds: a loaded 2-core machine must pass. */
#define ANSWER_TIMEOUT 20000

#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

/* ---- Demo processes -------------------------------------------------------- */

/* A snodo-demo serving HTTP on a free loopback port with the options that
 * follow (NULL-terminated); *@uri is where. */
static TestProcess *
spawn_http_demo (char       **uri,
                 const char  *first_option,
                 ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *program = g_getenv ("SNODO_DEMO");
  TestProcess *demo;
  gboolean timed_out = FALSE;
  va_list args;

  g_assert_nonnull (program);
  g_ptr_array_add (argv, (gpointer) program);
  g_ptr_array_add (argv, (gpointer) "--http=0");
  va_start (args, first_option);
  for (const char *option = first_option; option != NULL; option = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) option);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  demo = test_process_spawn ((const char * const *) argv->pdata);
  *uri = test_process_read_line (demo, ANSWER_TIMEOUT, &timed_out);
  g_assert_false (timed_out);
  g_assert_nonnull (*uri);
  g_assert_true (g_str_has_prefix (*uri, "http://127.0.0.1:"));
  return demo;
}

/* Writes @len bytes of @data to a new file in @dir; its path. */
static char *
write_file (const char *dir,
            const char *name,
            const char *data,
            gssize      len)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, &error));
  g_assert_no_error (error);
  return path;
}

/* POSTs @body to @uri as a 2026-07-28 tools/call of @tool; the answer's
 * body, parsed, and its status in *@status. */
static JsonNode *
post_call (SoupSession *session,
           const char  *uri,
           const char  *tool,
           const char  *body,
           guint       *status)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) answer = NULL;
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  g_autofree char *text = NULL;

  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
  soup_message_headers_replace (headers, "Mcp-Name", tool);
  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  answer = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  *status = soup_message_get_status (msg);
  text = g_strndup (g_bytes_get_data (answer, NULL), g_bytes_get_size (answer));
  return snodo_test_parse (text);
}

/* Asks the demo at @first, which answers input_required, then retries with
 * the state it issued and an answer on @second; the retry's answer, and its
 * status in *@status. */
static JsonNode *
ask_then_retry (SoupSession *session,
                const char  *first,
                const char  *second,
                guint       *status)
{
  g_autoptr(JsonNode) asked = NULL;
  g_autofree char *retry = NULL;
  JsonObject *result;
  const char *state;

  asked = post_call (session, first, "ask",
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"ask\",\"arguments\":{\"question\":\"Go on?\"}," META "}}",
                     status);
  g_assert_cmpuint (*status, ==, 200);
  result = json_object_get_object_member (json_node_get_object (asked), "result");
  g_assert_nonnull (result);
  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "input_required");
  g_assert_true (json_object_has_member (json_object_get_object_member (result, "inputRequests"), "confirm"));
  state = json_object_get_string_member (result, "requestState");
  g_assert_nonnull (state);

  retry = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                           "{\"name\":\"ask\",\"arguments\":{\"question\":\"Go on?\"},"
                           "\"inputResponses\":{\"confirm\":{\"action\":\"accept\","
                           "\"content\":{\"confirm\":true}}},"
                           "\"requestState\":\"%s\"," META "}}", state);
  return post_call (session, second, "ask", retry, status);
}

/* ---- The request-state secret ---------------------------------------------- */

static void
test_secret_shared (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("snodo-scale-XXXXXX", &error);
  g_autofree char *secret_a = NULL;
  g_autofree char *secret_b = NULL;
  g_autofree char *option_a = NULL;
  g_autofree char *option_b = NULL;
  g_autofree char *uri_1 = NULL;
  g_autofree char *uri_2 = NULL;
  g_autofree char *uri_3 = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(JsonNode) answer = NULL;
  TestProcess *one, *two, *three;
  JsonObject *object;
  guint status = 0;

  g_test_summary ("Two snodo-demo instances given the same --request-state-secret-file open "
                  "each other's request states: an ask answered input_required by one is "
                  "completed on the other; an instance with another secret refuses the state "
                  "(400, -32602)");

  g_assert_no_error (error);
  /* A line ending after the secret, as an editor or echo leaves it, is
   * not part of it. */
  secret_a = write_file (dir, "a", "0123456789abcdef0123456789abcdef-one\n", -1);
  secret_b = write_file (dir, "b", "0123456789abcdef0123456789abcdef-two", -1);
  option_a = g_strconcat ("--request-state-secret-file=", secret_a, NULL);
  option_b = g_strconcat ("--request-state-secret-file=", secret_b, NULL);

  one = spawn_http_demo (&uri_1, option_a, NULL);
  two = spawn_http_demo (&uri_2, option_a, NULL);
  three = spawn_http_demo (&uri_3, option_b, NULL);
  g_assert_cmpstr (uri_1, !=, uri_2);

  for (guint i = 0; i < 2; i++)
    {
      answer = ask_then_retry (session, i == 0 ? uri_1 : uri_2, i == 0 ? uri_2 : uri_1, &status);
      g_assert_cmpuint (status, ==, 200);
      object = json_object_get_object_member (json_node_get_object (answer), "result");
      g_assert_nonnull (object);
      g_assert_cmpstr (json_object_get_string_member (object, "resultType"), ==, "complete");
      g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (
                                  json_object_get_array_member (object, "content"), 0), "text"),
                                "confirmed"));
      g_clear_pointer (&answer, json_node_unref);
    }

  answer = ask_then_retry (session, uri_1, uri_3, &status);
  g_assert_cmpuint (status, ==, 400);
  g_assert_cmpint (test_message_get_error_code (answer), ==, -32602);

  test_process_free (three);
  test_process_free (two);
  test_process_free (one);
  g_unlink (secret_a);
  g_unlink (secret_b);
  g_rmdir (dir);
}

static void
test_secret_bad_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("snodo-scale-XXXXXX", &error);
  g_autofree char *short_file = NULL;
  g_autofree char *large_file = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *large = g_strnfill (5000, 'x');
  const char *files[3];

  g_test_summary ("A --request-state-secret-file that is missing, shorter than 32 bytes or "
                  "too large to be a secret stops snodo-demo with status 2 and one line "
                  "on standard error");

  g_assert_no_error (error);
  short_file = write_file (dir, "short", "0123456789abcdef0123456789abcde\n", -1);
  large_file = write_file (dir, "large", large, -1);
  missing = g_build_filename (dir, "missing", NULL);
  files[0] = short_file;
  files[1] = large_file;
  files[2] = missing;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *option = g_strconcat ("--request-state-secret-file=", files[i], NULL);
      TestProcess *demo = test_process_spawn_program ("SNODO_DEMO", "--http=0", option, NULL);
      g_autofree char *text = NULL;

      g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 2);
      text = test_process_dup_stderr (demo);
      g_assert_true (g_str_has_prefix (text, "snodo-demo: --request-state-secret-file: "));
      /* One line. */
      g_assert_true (strchr (text, '\n') == text + strlen (text) - 1);
      if (i == 0)
        g_assert_nonnull (strstr (text, "32"));
      test_process_free (demo);
    }

  g_unlink (short_file);
  g_unlink (large_file);
  g_rmdir (dir);
}

/* ---- The instance tag of session ids -------------------------------------- */

static void
test_instance_id_property (void)
{
  static const char * const valid[] = { "a", "A-1", "node-7", "0123456789abcdef0123456789ABCDEF" };
  static const char * const invalid[] = { "", "a.b", "a b", "a_b", "é", "0123456789abcdef0123456789ABCDEFx",
                                          "a/b", "a\n" };
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(SnodoHttpTransport) transport = snodo_http_transport_new (server);
  g_autofree char *value = NULL;

  g_test_summary ("instance-id: letters, digits and '-', 1 to 32 of them; NULL by default");

  for (guint i = 0; i < G_N_ELEMENTS (valid); i++)
    g_assert_true (snodo_http_transport_instance_id_is_valid (valid[i]));
  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    g_assert_false (snodo_http_transport_instance_id_is_valid (invalid[i]));

  g_assert_null (snodo_http_transport_get_instance_id (transport));
  g_object_set (transport, "instance-id", "node-7", NULL);
  g_assert_cmpstr (snodo_http_transport_get_instance_id (transport), ==, "node-7");
  g_object_get (transport, "instance-id", &value, NULL);
  g_assert_cmpstr (value, ==, "node-7");
  snodo_http_transport_set_instance_id (transport, NULL);
  g_assert_null (snodo_http_transport_get_instance_id (transport));
}

/* A 2025-11-25 POST of @body to @uri on @session_id (or none): the
 * answer's status, and its Mcp-Session-Id in *@issued if asked. */
static guint
legacy_post (SoupSession *session,
             const char  *uri,
             const char  *session_id,
             const char  *body,
             char       **issued)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) answer = NULL;
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);

  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  if (session_id != NULL)
    {
      soup_message_headers_replace (headers, "Mcp-Session-Id", session_id);
      soup_message_headers_replace (headers, "MCP-Protocol-Version", "2025-11-25");
    }
  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  answer = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  if (issued != NULL)
    *issued = g_strdup (soup_message_headers_get_one (soup_message_get_response_headers (msg), "Mcp-Session-Id"));
  if (soup_message_get_status (msg) == SOUP_STATUS_NOT_FOUND)
    g_assert_nonnull (g_strstr_len (g_bytes_get_data (answer, NULL), g_bytes_get_size (answer),
                                    "Session not found"));
  return soup_message_get_status (msg);
}

#define INITIALIZE "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" \
                   "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                   "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define PING "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"

/* @session_id is @tag, a dot and 32 lowercase hexadecimal digits. */
static void
assert_tagged (const char *session_id,
               const char *tag)
{
  gsize len = strlen (tag);

  g_assert_nonnull (session_id);
  g_assert_true (strncmp (session_id, tag, len) == 0);
  g_assert_cmpint (session_id[len], ==, '.');
  g_assert_cmpuint (strlen (session_id + len + 1), ==, 32);
  for (const char *p = session_id + len + 1; *p != '\0'; p++)
    g_assert_true (g_ascii_isdigit (*p) || (*p >= 'a' && *p <= 'f'));
}

static void
test_instance_id_sessions (void)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autofree char *uri_a = NULL;
  g_autofree char *uri_b = NULL;
  g_autofree char *id_a = NULL;
  g_autofree char *id_b = NULL;
  g_autofree char *id_plain = NULL;
  g_autofree char *forged = NULL;
  g_autofree char *uri_plain = NULL;
  TestProcess *a, *b, *plain;

  g_test_summary ("snodo-demo --instance-id=ID issues session ids ID.<32 hex digits>; a session "
                  "id of another instance, or one with the tag changed, is an unknown session "
                  "(404); without the option ids are 32 hex digits as before");

  a = spawn_http_demo (&uri_a, "--instance-id=node-a", NULL);
  b = spawn_http_demo (&uri_b, "--instance-id=node-b", NULL);
  plain = spawn_http_demo (&uri_plain, NULL);

  g_assert_cmpuint (legacy_post (session, uri_a, NULL, INITIALIZE, &id_a), ==, 200);
  assert_tagged (id_a, "node-a");
  g_assert_cmpuint (legacy_post (session, uri_b, NULL, INITIALIZE, &id_b), ==, 200);
  assert_tagged (id_b, "node-b");
  g_assert_cmpuint (legacy_post (session, uri_plain, NULL, INITIALIZE, &id_plain), ==, 200);
  g_assert_nonnull (id_plain);
  g_assert_cmpuint (strlen (id_plain), ==, 32);
  g_assert_null (strchr (id_plain, '.'));

  g_assert_cmpuint (legacy_post (session, uri_a, id_a, PING, NULL), ==, 200);
  g_assert_cmpuint (legacy_post (session, uri_b, id_b, PING, NULL), ==, 200);
  /* Misrouted: the other instance does not know it. */
  g_assert_cmpuint (legacy_post (session, uri_b, id_a, PING, NULL), ==, 404);
  g_assert_cmpuint (legacy_post (session, uri_a, id_b, PING, NULL), ==, 404);
  /* The random part alone, or under another tag, is no session either. */
  g_assert_cmpuint (legacy_post (session, uri_a, id_a + strlen ("node-a."), PING, NULL), ==, 404);
  forged = g_strconcat ("node-b.", id_a + strlen ("node-a."), NULL);
  g_assert_cmpuint (legacy_post (session, uri_a, forged, PING, NULL), ==, 404);
  g_assert_cmpuint (legacy_post (session, uri_b, forged, PING, NULL), ==, 404);
  /* Still there. */
  g_assert_cmpuint (legacy_post (session, uri_a, id_a, PING, NULL), ==, 200);

  test_process_free (plain);
  test_process_free (b);
  test_process_free (a);
}

static void
test_instance_id_bad_option (void)
{
  static const char * const bad[] = { "--instance-id=", "--instance-id=a.b",
                                      "--instance-id=0123456789abcdef0123456789abcdef0" };

  g_test_summary ("A --instance-id outside the rule stops snodo-demo with status 2 and one line");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      TestProcess *demo = test_process_spawn_program ("SNODO_DEMO", "--http=0", bad[i], NULL);
      g_autofree char *text = NULL;

      g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 2);
      text = test_process_dup_stderr (demo);
      g_assert_true (g_str_has_prefix (text, "snodo-demo: --instance-id "));
      g_assert_true (strchr (text, '\n') == text + strlen (text) - 1);
      test_process_free (demo);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/http/scale/secret/shared", test_secret_shared);
  g_test_add_func ("/snodo/http/scale/secret/bad-file", test_secret_bad_file);

  g_test_add_func ("/snodo/http/scale/instance-id/property", test_instance_id_property);
  g_test_add_func ("/snodo/http/scale/instance-id/sessions", test_instance_id_sessions);
  g_test_add_func ("/snodo/http/scale/instance-id/bad-option", test_instance_id_bad_option);

  return g_test_run ();
}
