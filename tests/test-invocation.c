/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * Tool results as they reach the wire: snodo_invocation_return_structured(),
 * the empty content list that completes a result without one, and
 * snodo_invocation_get_answered(). A server is served in-process over a
 * pair of pipes; the requests are written at once, the input is closed,
 * and the answers are read after the transport has closed.
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>

#include "snodo-test-util.h"

#define TIMEOUT_MS 20000

#define LEGACY_INIT \
  "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"," \
  "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n" \
  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"

#define MODERN_META \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* What the "ask" tool saw: whether params were sealed before and after
 * it asked for input. */
static gboolean ask_sealed_before;
static gboolean ask_sealed_after;

static void
ask_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (SNODO_INVOCATION (object), result, &error);

  /* Answered with input_required in the handler's place; answering
   * still hands the handler's reference back (nothing more is sent). */
  g_assert_null (answer);
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED);
  snodo_invocation_return_gerror (SNODO_INVOCATION (object), error);
}

/* What the handler of a tool returns, by the tool's name. */
static void
answer_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  const char *name = snodo_invocation_get_name (invocation);
  g_autoptr(JsonNode) node = NULL;
  gboolean *answered_before = user_data;

  *answered_before = snodo_invocation_get_answered (invocation);

  if (g_str_equal (name, "ask"))
    {
      g_autoptr(JsonNode) params = snodo_test_parse ("{\"message\":\"Sure?\",\"requestedSchema\":"
                                                     "{\"type\":\"object\",\"properties\":{}}}");

      ask_sealed_before = json_node_is_immutable (snodo_invocation_get_params (invocation));
      snodo_invocation_request_input_async (invocation, "confirm", "elicitation/create", params, NULL,
                                            ask_done_cb, NULL);
      ask_sealed_after = json_node_is_immutable (snodo_invocation_get_params (invocation));
      return;
    }

  if (g_str_equal (name, "object"))
    node = snodo_test_parse ("{\"n\":1,\"s\":\"é\\n\",\"list\":[true,null]}");
  else if (g_str_equal (name, "array"))
    node = snodo_test_parse ("[1,2.5,\"three\"]");
  else if (g_str_equal (name, "mismatch"))
    node = snodo_test_parse ("{\"n\":\"not a number\"}");

  if (node != NULL)
    {
      g_object_ref (invocation);
      snodo_invocation_return_structured (invocation, node);
      g_assert_true (snodo_invocation_get_answered (invocation));
      g_object_unref (invocation);
    }
  else if (g_str_equal (name, "bare"))
    {
      g_autoptr(GError) error = NULL;

      snodo_invocation_return_result_from_string (invocation, "{\"structuredContent\":{\"n\":2}}", &error);
      g_assert_no_error (error);
    }
  else
    g_assert_not_reached ();
}

typedef struct
{
  SnodoServer *server;
  gboolean     answered_before;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  static const char *names[] = { "object", "array", "mismatch", "bare", "ask" };

  fixture->server = snodo_server_new ("test", "1");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(SnodoTool) tool = snodo_tool_new (names[i], NULL);
      g_autoptr(GError) error = NULL;

      if (g_str_equal (names[i], "mismatch") || g_str_equal (names[i], "object"))
        {
          g_assert_true (snodo_tool_set_output_schema_from_string (tool,
              "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}",
              &error));
          g_assert_no_error (error);
        }
      g_assert_true (snodo_server_add_tool (fixture->server, tool, answer_cb, &fixture->answered_before,
                                            NULL, &error));
      g_assert_no_error (error);
    }
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  /* Work that ended drops its references from the main context. */
  for (guint i = 0; i < 50; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
  g_assert_finalize_object (fixture->server);
}

static void
closed_cb (SnodoStdioTransport *transport,
           const GError        *error,
           gboolean            *closed)
{
  g_assert_no_error ((GError *) error);
  *closed = TRUE;
}

/* Serves @requests (lines) on a fresh transport; returns the answers by id
 * (the id as a string). */
static GHashTable *
serve (Fixture    *fixture,
       const char *requests)
{
  g_autoptr(SnodoStdioTransport) transport = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GInputStream) answers = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  GHashTable *by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_node_unref);
  gboolean closed = FALSE;
  char *line;
  int in_fds[2];
  int out_fds[2];

  g_assert_true (g_unix_open_pipe (in_fds, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_open_pipe (out_fds, FD_CLOEXEC, NULL));
  input = g_unix_input_stream_new (in_fds[0], TRUE);
  output = g_unix_output_stream_new (out_fds[1], TRUE);
  answers = g_unix_input_stream_new (out_fds[0], TRUE);

  transport = snodo_stdio_transport_new (fixture->server, input, output);
  g_signal_connect (transport, "closed", G_CALLBACK (closed_cb), &closed);
  snodo_stdio_transport_start (transport);
  g_assert_cmpint (write (in_fds[1], requests, strlen (requests)), ==, (gssize) strlen (requests));
  close (in_fds[1]);
  g_assert_true (snodo_test_wait_for (&closed, TIMEOUT_MS));
  g_clear_object (&transport);
  g_output_stream_close (output, NULL, NULL);

  lines = g_data_input_stream_new (answers);
  while ((line = g_data_input_stream_read_line (lines, NULL, NULL, NULL)) != NULL)
    {
      JsonNode *answer = snodo_test_parse (line);
      JsonNode *id = json_object_get_member (json_node_get_object (answer), "id");

      g_hash_table_insert (by_id, g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (id)), answer);
      g_free (line);
    }
  return by_id;
}

static JsonObject *
result_of (GHashTable *answers,
           const char *id)
{
  JsonNode *answer = g_hash_table_lookup (answers, id);

  g_assert_nonnull (answer);
  g_assert_true (json_object_has_member (json_node_get_object (answer), "result"));
  return json_object_get_object_member (json_node_get_object (answer), "result");
}

/* The text of the only content block of @result, parsed as JSON. */
static JsonNode *
content_json (JsonObject *result)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  JsonObject *block;

  g_assert_cmpuint (json_array_get_length (content), ==, 1);
  block = json_array_get_object_element (content, 0);
  g_assert_cmpstr (json_object_get_string_member (block, "type"), ==, "text");
  return snodo_test_parse (json_object_get_string_member (block, "text"));
}

static void
assert_json (JsonNode   *actual,
             const char *expected)
{
  g_autoptr(JsonNode) want = snodo_test_parse (expected);

  if (!snodo_test_json_equal (actual, want))
    g_error ("got %s, expected %s", json_to_string (actual, FALSE), expected);
}

#define CALL(id, name, meta) \
  "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\"," \
  "\"arguments\":{}" meta "}}\n"

static void
test_structured_legacy (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GHashTable) answers = NULL;
  g_autoptr(JsonNode) text1 = NULL;
  g_autoptr(JsonNode) text2 = NULL;
  JsonObject *result;

  g_test_summary ("return_structured() sends structuredContent and the same JSON as text; "
                  "before 2026-07-28 a value that is not an object goes as text only");

  g_test_expect_message ("Snodo", G_LOG_LEVEL_WARNING, "The tool mismatch answered*");
  answers = serve (fixture,
                   LEGACY_INIT
                   CALL ("1", "object", "")
                   CALL ("2", "array", "")
                   CALL ("3", "mismatch", ""));
  g_test_assert_expected_messages ();

  g_assert_false (fixture->answered_before);

  result = result_of (answers, "1");
  assert_json (json_object_get_member (result, "structuredContent"),
               "{\"n\":1,\"s\":\"é\\n\",\"list\":[true,null]}");
  text1 = content_json (result);
  assert_json (text1, "{\"n\":1,\"s\":\"é\\n\",\"list\":[true,null]}");
  g_assert_false (json_object_has_member (result, "isError"));

  result = result_of (answers, "2");
  g_assert_false (json_object_has_member (result, "structuredContent"));
  text2 = content_json (result);
  assert_json (text2, "[1,2.5,\"three\"]");

  /* Against the output schema: a failed result that says why. */
  result = result_of (answers, "3");
  g_assert_true (json_object_get_boolean_member (result, "isError"));
  g_assert_false (json_object_has_member (result, "structuredContent"));
}

static void
test_structured_modern (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GHashTable) answers = serve (fixture,
                                         CALL ("1", "object", "," MODERN_META)
                                         CALL ("2", "array", "," MODERN_META));
  g_autoptr(JsonNode) text = NULL;
  JsonObject *result;

  g_test_summary ("In 2026-07-28 structuredContent may be any JSON value");

  result = result_of (answers, "1");
  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "complete");
  g_assert_true (json_object_has_member (result, "structuredContent"));

  result = result_of (answers, "2");
  assert_json (json_object_get_member (result, "structuredContent"), "[1,2.5,\"three\"]");
  text = content_json (result);
  assert_json (text, "[1,2.5,\"three\"]");
}

static void
test_content_completed (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GHashTable) legacy = serve (fixture, LEGACY_INIT CALL ("1", "bare", ""));
  g_autoptr(GHashTable) modern = serve (fixture, CALL ("1", "bare", "," MODERN_META));
  JsonObject *result;

  g_test_summary ("A tool result without content (only structuredContent) is sent with "
                  "\"content\": [], which every version's CallToolResult requires");

  result = result_of (legacy, "1");
  assert_json (json_object_get_member (result, "content"), "[]");
  assert_json (json_object_get_member (result, "structuredContent"), "{\"n\":2}");

  result = result_of (modern, "1");
  assert_json (json_object_get_member (result, "content"), "[]");
  assert_json (json_object_get_member (result, "structuredContent"), "{\"n\":2}");
  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "complete");
}

static void
test_input_seals_params (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GHashTable) answers = NULL;
  JsonObject *result;

  g_test_summary ("The request is not sealed for its handler (sealing hashes every string in "
                  "json-glib 1.6); asking for input in 2026-07-28 seals params, which the "
                  "input_required answer then reads on the main context");

  answers = serve (fixture,
                   CALL ("1", "ask", ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                         "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"));

  g_assert_false (ask_sealed_before);
  g_assert_true (ask_sealed_after);
  result = result_of (answers, "1");
  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "input_required");
  g_assert_true (json_object_has_member (result, "requestState"));
}

static void
test_output_schema_from_string (void)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (snodo_tool_set_output_schema_from_string (tool, "{\"type\":\"object\"}", &error));
  g_assert_no_error (error);
  g_assert_nonnull (snodo_tool_get_output_schema (tool));

  g_assert_false (snodo_tool_set_output_schema_from_string (tool, "{\"type\":", &error));
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR);
  g_clear_error (&error);
  g_assert_nonnull (snodo_tool_get_output_schema (tool));

  g_assert_true (snodo_tool_set_output_schema_from_string (tool, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (snodo_tool_get_output_schema (tool));
}

/* "pair" asks for "first" and then "second", and answers with what both
 * said; with the argument "accept" true it takes answers it was not asked
 * for. */
static void pair_second_cb (GObject *object, GAsyncResult *result, gpointer user_data);

static const char *
pair_text (JsonNode *answer)
{
  JsonObject *content = json_object_get_object_member (json_node_get_object (answer), "content");

  return json_object_get_string_member (content, "text");
}

static void
pair_first_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) params = snodo_test_parse ("{\"message\":\"Second?\",\"requestedSchema\":"
                                                 "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}");
  JsonNode *answer = snodo_invocation_request_input_finish (invocation, result, &error);

  if (answer == NULL)
    {
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  snodo_invocation_request_input_async (invocation, "second", "elicitation/create", params, NULL,
                                        pair_second_cb, answer);
}

static void
pair_second_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(JsonNode) first = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) second = snodo_invocation_request_input_finish (invocation, result, &error);
  g_autofree char *text = NULL;

  if (second == NULL)
    {
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  text = g_strdup_printf ("%s+%s", pair_text (first), pair_text (second));
  snodo_invocation_return_text (invocation, text);
}

static void
pair_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  g_autoptr(JsonNode) params = snodo_test_parse ("{\"message\":\"First?\",\"requestedSchema\":"
                                                 "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}");
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  if (json_object_get_boolean_member_with_default (arguments, "accept", FALSE))
    snodo_invocation_set_accepts_unrequested_input (invocation, TRUE);
  snodo_invocation_request_input_async (invocation, "first", "elicitation/create", params, NULL,
                                        pair_first_cb, NULL);
}

#define PAIR_META \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
  "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"
#define ANSWER(key, text) \
  "\"" key "\":{\"action\":\"accept\",\"content\":{\"text\":\"" text "\"}}"

static JsonObject *
pair_call (SnodoTestPipe *pipe,
           const char    *accept,
           const char    *responses,
           const char    *state)
{
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) answer = NULL;
  g_autofree char *state_member = state != NULL ? g_strdup_printf (",\"requestState\":\"%s\"", state)
                                                : g_strdup ("");
  gint64 id = pipe->next_id++;

  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                          "\"params\":{\"name\":\"pair\",\"arguments\":{\"accept\":%s},"
                          "\"inputResponses\":{%s}%s," PAIR_META "}}\n",
                          id, accept, responses, state_member);
  snodo_test_pipe_write (pipe, line);
  answer = snodo_test_pipe_read (pipe);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (answer), "id"), ==, id);
  g_assert_true (json_object_has_member (json_node_get_object (answer), "result"));
  return json_object_ref (json_object_get_object_member (json_node_get_object (answer), "result"));
}

static void
assert_asks_only (JsonObject *result,
                  const char *key)
{
  JsonObject *requests = json_object_get_object_member (result, "inputRequests");

  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "input_required");
  g_assert_cmpuint (json_object_get_size (requests), ==, 1);
  g_assert_true (json_object_has_member (requests, key));
}

static void
test_unrequested_input (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(SnodoTool) tool = snodo_tool_new ("pair", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) strict = NULL;
  g_autoptr(JsonObject) strict_early = NULL;
  g_autoptr(JsonObject) taken = NULL;
  g_autoptr(JsonObject) done = NULL;
  g_autoptr(JsonObject) changed = NULL;
  g_autoptr(JsonObject) first_round = NULL;
  g_autofree char *state = NULL;
  g_autofree char *first_state = NULL;
  SnodoTestPipe pipe;

  g_test_summary ("2026-07-28: an answer the client sends without being asked counts only "
                  "when the handler accepts it; then it is carried in the state of later "
                  "rounds; answers to questions of later rounds, sent early with a state, "
                  "are ignored by default");

  g_assert_true (snodo_server_add_tool (server, tool, pair_cb, NULL, NULL, &error));
  snodo_test_pipe_set_up_for (&pipe, server);
  g_clear_object (&server);  /* the pipe's now, which checks it is finalized */

  /* By default, an answer without a state is ignored: asked again. */
  strict = pair_call (&pipe, "false", ANSWER ("first", "a"), NULL);
  assert_asks_only (strict, "first");
  first_state = g_strdup (json_object_get_string_member (strict, "requestState"));

  /* Nor can the answer of a later round come early with a state. */
  strict_early = pair_call (&pipe, "false", ANSWER ("first", "a") "," ANSWER ("second", "b"), first_state);
  assert_asks_only (strict_early, "second");

  /* A handler that accepts unrequested answers takes "first" at once,
   * and asks only for "second". */
  taken = pair_call (&pipe, "true", ANSWER ("first", "x"), NULL);
  assert_asks_only (taken, "second");
  state = g_strdup (json_object_get_string_member (taken, "requestState"));

  /* The state carries "first": the retry answers "second" alone. */
  done = pair_call (&pipe, "true", ANSWER ("second", "y"), state);
  g_assert_cmpstr (json_object_get_string_member (done, "resultType"), ==, "complete");
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (json_object_get_array_member (done, "content"), 0),
                     "text"), ==, "x+y");

  /* An answer of an earlier round cannot be changed by sending it again
   * under the strict rule: the state's "first" wins. */
  first_round = pair_call (&pipe, "false", ANSWER ("first", "a"), first_state);
  assert_asks_only (first_round, "second");
  changed = pair_call (&pipe, "false", ANSWER ("first", "changed") "," ANSWER ("second", "b"),
                       json_object_get_string_member (first_round, "requestState"));
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (json_object_get_array_member (changed, "content"), 0),
                     "text"), ==, "a+b");

  snodo_test_pipe_tear_down (&pipe);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/invocation/structured/legacy", Fixture, NULL,
              fixture_set_up, test_structured_legacy, fixture_tear_down);
  g_test_add ("/snodo/invocation/structured/modern", Fixture, NULL,
              fixture_set_up, test_structured_modern, fixture_tear_down);
  g_test_add ("/snodo/invocation/content-completed", Fixture, NULL,
              fixture_set_up, test_content_completed, fixture_tear_down);
  g_test_add ("/snodo/invocation/input-seals-params", Fixture, NULL,
              fixture_set_up, test_input_seals_params, fixture_tear_down);
  g_test_add_func ("/snodo/invocation/output-schema-from-string", test_output_schema_from_string);
  g_test_add_func ("/snodo/invocation/unrequested-input", test_unrequested_input);

  return g_test_run ();
}
