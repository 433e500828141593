/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Black-box tests, through real pipes, of handlers that misbehave: every
 * admitted request gets exactly one answer, and the end of input never
 * waits for ever. The server is snodo-faulty-server (and, for handlers
 * written in Python and JavaScript, tests/faulty-server.py and .js). */

#include "config.h"

#include <string.h>

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

/* Generous bounds: a loaded 2-core machine must pass. */
#define ANSWER_TIMEOUT 10000

#define spawn_faulty(...) test_process_spawn_program ("SNODO_FAULTY_SERVER", __VA_ARGS__)

#define call(process, id, tool, arguments) \
  test_process_call_tool ((process), (id), (tool), (arguments), ANSWER_TIMEOUT)

/* Sends a tools/call without waiting for its answer. */
static void
send_call (TestProcess *server,
           gint64       id,
           const char  *tool,
           const char  *arguments)
{
  g_autofree char *line = test_tool_call (id, tool, arguments);

  test_process_send (server, line);
}

static const char *
error_message (JsonNode *message)
{
  JsonObject *error = json_object_get_object_member (json_node_get_object (message), "error");

  return json_object_get_string_member (error, "message");
}

/* Still serving: an echo comes back. */
static void
assert_alive (TestProcess *server,
              gint64       id)
{
  g_autoptr(JsonNode) echo = call (server, id, "echo", "{\"text\":\"alive\"}");

  g_assert_nonnull (echo);
  g_assert_cmpstr (test_message_get_text (echo), ==, "alive");
}

/* Closes the input; the server must exit 0 within @bound_ms, with nothing
 * more written. Returns how long it took. */
static gint64
assert_clean_exit (TestProcess *server,
                   guint        bound_ms)
{
  g_autoptr(JsonNode) rest = NULL;
  gint64 start = g_get_monotonic_time ();
  gint64 elapsed;

  test_process_close_stdin (server);
  rest = test_process_read (server, bound_ms);
  if (rest != NULL)
    g_error ("unexpected output after the end of input: %s", test_process_get_last_line (server));
  g_assert_cmpint (test_process_wait (server, bound_ms), ==, 0);
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_assert_cmpint (elapsed, <, bound_ms);
  return elapsed;
}

static void
test_dropped (void)
{
  TestProcess *server = spawn_faulty (NULL);
  g_autoptr(JsonNode) answer = NULL;
  g_autofree char *err = NULL;
  gint64 elapsed;

  g_test_summary ("A handler that lets go of its invocation without answering: -32603 at once, a warning");

  test_process_initialize (server, "2025-11-25");
  answer = call (server, 1, "drop", "{}");
  g_assert_nonnull (answer);
  g_assert_cmpint (test_message_get_error_code (answer), ==, -32603);
  assert_alive (server, 2);
  elapsed = assert_clean_exit (server, ANSWER_TIMEOUT);
  g_test_message ("exit %" G_GINT64_FORMAT " ms after the end of input", elapsed);
  err = test_process_dup_stderr (server);
  g_assert_nonnull (strstr (err, "WARNING"));
  g_assert_nonnull (strstr (err, "released its invocation without answering"));
  g_assert_nonnull (strstr (err, "drop"));
  test_process_free (server);
}

static void
test_bad_answer (void)
{
  TestProcess *server = spawn_faulty (NULL);
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *err = NULL;

  g_test_summary ("return_text (NULL) and a result that is not an object still answer, with -32603");

  test_process_initialize (server, "2025-11-25");
  answer = call (server, 1, "bad-answer", "{}");
  g_assert_nonnull (answer);
  g_assert_cmpint (test_message_get_error_code (answer), ==, -32603);
  json = call (server, 2, "bad-json", "{}");
  g_assert_nonnull (json);
  g_assert_cmpint (test_message_get_error_code (json), ==, -32603);
  g_assert_nonnull (strstr (error_message (json), "must be a JSON object"));
  assert_alive (server, 3);
  assert_clean_exit (server, ANSWER_TIMEOUT);
  err = test_process_dup_stderr (server);
  g_assert_nonnull (strstr (err, "CRITICAL"));
  g_assert_nonnull (strstr (err, "text != NULL"));
  test_process_free (server);
}

static void
test_deadline (void)
{
  TestProcess *server = spawn_faulty ("--handler-timeout", "300", NULL);
  g_autoptr(JsonNode) hang = NULL;
  g_autoptr(JsonNode) late = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autofree char *err = NULL;
  gint64 start, elapsed;

  g_test_summary ("handler-timeout: -32603 when the time is up; the late answer is dropped quietly");

  test_process_initialize (server, "2025-11-25");
  start = g_get_monotonic_time ();
  hang = call (server, 1, "hang", "{}");
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_assert_nonnull (hang);
  g_assert_cmpint (test_message_get_error_code (hang), ==, -32603);
  g_assert_nonnull (strstr (error_message (hang), "did not answer within 300 ms"));
  g_test_message ("deadline of 300 ms answered after %" G_GINT64_FORMAT " ms", elapsed);
  g_assert_cmpint (elapsed, >=, 250);

  /* Answers at 800 ms, after its deadline: one answer only, the error. */
  late = call (server, 2, "late", "{\"ms\":800}");
  g_assert_nonnull (late);
  g_assert_cmpint (test_message_get_error_code (late), ==, -32603);
  g_usleep (1000 * G_TIME_SPAN_MILLISECOND);
  assert_alive (server, 3);

  /* A blocking handler on its thread: answered at the deadline too. */
  again = call (server, 4, "block", "{\"ms\":1500}");
  g_assert_nonnull (again);
  g_assert_cmpint (test_message_get_error_code (again), ==, -32603);

  assert_clean_exit (server, ANSWER_TIMEOUT);
  err = test_process_dup_stderr (server);
  g_assert_null (strstr (err, "CRITICAL"));
  g_assert_null (strstr (err, "answered twice"));
  test_process_free (server);
}

static void
test_deadline_after_cancel (void)
{
  TestProcess *server = spawn_faulty ("--handler-timeout", "300", NULL);
  g_autoptr(JsonNode) next = NULL;

  g_test_summary ("A request the client cancelled gets no answer, not even when its deadline passes");

  test_process_initialize (server, "2025-11-25");
  send_call (server, 1, "hang", "{}");
  test_process_send (server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":1,\"reason\":\"test\"}}");
  /* Past the deadline, then the next message must be the echo's answer. */
  g_usleep (800 * G_TIME_SPAN_MILLISECOND);
  send_call (server, 2, "echo", "{\"text\":\"after\"}");
  next = test_process_read (server, ANSWER_TIMEOUT);
  g_assert_nonnull (next);
  g_assert_cmpint (test_message_get_id (next), ==, 2);
  assert_clean_exit (server, ANSWER_TIMEOUT);
  test_process_free (server);
}

static void
test_tool_deadline (void)
{
  TestProcess *server = spawn_faulty (NULL);
  g_autoptr(JsonNode) slow = NULL;

  g_test_summary ("A tool's own handler-timeout applies where the server has none");

  test_process_initialize (server, "2025-06-18");
  slow = call (server, 1, "slow", "{}");
  g_assert_nonnull (slow);
  g_assert_cmpint (test_message_get_error_code (slow), ==, -32603);
  g_assert_nonnull (strstr (error_message (slow), "300 ms"));
  assert_clean_exit (server, ANSWER_TIMEOUT);
  test_process_free (server);
}

static void
test_eof_after_cancel (gconstpointer data)
{
  const char *tool = data;
  TestProcess *server = spawn_faulty ("--write-timeout", "500", NULL);
  gint64 elapsed;

  g_test_summary ("EOF after a cancelled request whose handler never ends: closed within the write timeout");

  test_process_initialize (server, "2025-11-25");
  send_call (server, 1, tool, "{\"ms\":60000}");
  assert_alive (server, 2);
  test_process_send (server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                             "\"params\":{\"requestId\":1,\"reason\":\"test\"}}");
  elapsed = assert_clean_exit (server, 5000);
  g_test_message ("%s: exit %" G_GINT64_FORMAT " ms after the end of input (grace 500 ms)", tool, elapsed);
  g_assert_cmpint (elapsed, >=, 400);
  test_process_free (server);
}

static void
test_eof_waits_for_live_work (void)
{
  TestProcess *server = spawn_faulty (NULL);
  gboolean timed_out = FALSE;
  g_autofree char *line = NULL;

  g_test_summary ("EOF still waits for work that was not cancelled (no deadline set)");

  test_process_initialize (server, "2025-11-25");
  send_call (server, 1, "late", "{\"ms\":1500}");
  assert_alive (server, 2);
  test_process_close_stdin (server);
  /* The answer comes after EOF, at 1.5 s, then the process exits. */
  line = test_process_read_line (server, ANSWER_TIMEOUT, &timed_out);
  g_assert_false (timed_out);
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, "\"late\""));
  g_assert_cmpint (test_process_wait (server, ANSWER_TIMEOUT), ==, 0);
  test_process_free (server);
}

static void
test_reader_gone (void)
{
  TestProcess *server = spawn_faulty (NULL);
  g_autofree char *err = NULL;
  int status;

  g_test_summary ("A server that leaves SIGPIPE at its default survives a client that stops reading");

  test_process_initialize (server, "2025-11-25");
  test_process_close_stdout (server);
  for (gint64 id = 1; id <= 3; id++)
    {
      g_autofree char *line = test_tool_call (id, "echo", "{\"text\":\"nobody reads this\"}");

      test_process_send (server, line);
    }
  test_process_close_stdin (server);
  status = test_process_wait (server, ANSWER_TIMEOUT);
  err = test_process_dup_stderr (server);
  g_test_message ("exit status %d; standard error: %s", status, err);
  /* 141 would be SIGPIPE: the output error ends the transport instead. */
  g_assert_cmpint (status, ==, 0);
  test_process_free (server);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/handlers/dropped", test_dropped);
  g_test_add_func ("/snodo/handlers/bad-answer", test_bad_answer);
  g_test_add_func ("/snodo/handlers/deadline", test_deadline);
  g_test_add_func ("/snodo/handlers/tool-deadline", test_tool_deadline);
  g_test_add_func ("/snodo/handlers/deadline-after-cancel", test_deadline_after_cancel);
  g_test_add_data_func ("/snodo/handlers/eof-after-cancel/async", "hang", test_eof_after_cancel);
  g_test_add_data_func ("/snodo/handlers/eof-after-cancel/thread", "block", test_eof_after_cancel);
  g_test_add_func ("/snodo/handlers/eof-waits-for-live-work", test_eof_waits_for_live_work);
  g_test_add_func ("/snodo/handlers/reader-gone", test_reader_gone);

  return g_test_run ();
}
