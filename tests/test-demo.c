/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Black-box tests of snodo-demo through real pipes. */

#include "config.h"

#include <signal.h>
#include <string.h>

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

/* Generous bounds: a loaded 2-core machine must pass. */
#define ANSWER_TIMEOUT 10000

#define spawn_demo(...) test_process_spawn_program ("SNODO_DEMO", __VA_ARGS__)

#define call(process, id, tool, arguments) \
  test_process_call_tool ((process), (id), (tool), (arguments), ANSWER_TIMEOUT)

static void
test_scripted_exchange (void)
{
  TestProcess *demo = spawn_demo (NULL);
  g_autoptr(JsonNode) init = NULL;
  g_autoptr(JsonNode) list = NULL;
  g_autoptr(JsonNode) echo = NULL;
  g_autoptr(JsonNode) add = NULL;
  g_autoptr(JsonNode) fail = NULL;
  g_autoptr(JsonNode) unknown = NULL;
  g_autoptr(JsonNode) ping = NULL;
  g_autoptr(JsonNode) blob = NULL;
  JsonObject *result;
  JsonArray *tools;

  g_test_summary ("initialize, tools/list and every demo tool answer as the contract says");

  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                           "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  init = test_process_read_id (demo, 1, ANSWER_TIMEOUT);
  g_assert_nonnull (init);
  result = json_object_get_object_member (json_node_get_object (init), "result");
  g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, "2025-06-18");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "serverInfo"), "name"),
                   ==, "snodo-demo");
  g_assert_true (json_object_has_member (json_object_get_object_member (result, "capabilities"), "tools"));
  /* A legacy result carries nothing of 2026-07-28. */
  g_assert_false (json_object_has_member (result, "resultType"));
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
  list = test_process_read_id (demo, 2, ANSWER_TIMEOUT);
  g_assert_nonnull (list);
  tools = json_object_get_array_member (json_object_get_object_member (json_node_get_object (list), "result"), "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 12);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 11), "name"), ==, "chart");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "name"), ==, "echo");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 4), "name"), ==, "blob");

  echo = call (demo, 3, "echo", "{\"text\":\"h\\u00e9llo \\\"w\\\"\\norld end\"}");
  g_assert_nonnull (echo);
  g_assert_cmpstr (test_message_get_text (echo), ==, "h\xc3\xa9llo \"w\"\norld end");
  {
    /* A string with U+0000 cannot reach a handler (json-glib strings end
     * at NUL): -32602, and the server goes on. */
    g_autoptr(JsonNode) nul = call (demo, 30, "echo", "{\"text\":\"cut \\u0000 here\"}");

    g_assert_nonnull (nul);
    g_assert_cmpint (test_message_get_error_code (nul), ==, -32602);
  }

  add = call (demo, 4, "add", "{\"a\":2,\"b\":40}");
  g_assert_nonnull (add);
  g_assert_cmpstr (test_message_get_text (add), ==, "42");
  result = json_object_get_object_member (json_node_get_object (add), "result");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (result, "structuredContent"), "sum"), ==, 42);

  fail = call (demo, 5, "fail", "{}");
  g_assert_nonnull (fail);
  g_assert_true (test_message_is_tool_error (fail));

  unknown = call (demo, 6, "no-such-tool", "{}");
  g_assert_nonnull (unknown);
  g_assert_cmpint (test_message_get_error_code (unknown), ==, -32602);

  blob = call (demo, 7, "blob", "{\"bytes\":100000}");
  g_assert_nonnull (blob);
  g_assert_cmpuint (strlen (test_message_get_text (blob)), ==, 100000);

  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
  ping = test_process_read_id (demo, 8, ANSWER_TIMEOUT);
  g_assert_nonnull (ping);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (json_node_get_object (ping), "result")), ==, 0);

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_unknown_version (void)
{
  TestProcess *demo = spawn_demo (NULL);
  g_autoptr(JsonNode) init = NULL;
  JsonObject *result;

  g_test_summary ("An unknown requested version is answered with the latest served one");

  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                           "{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  init = test_process_read_id (demo, 1, ANSWER_TIMEOUT);
  g_assert_nonnull (init);
  result = json_object_get_object_member (json_node_get_object (init), "result");
  g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, "2025-11-25");
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_icons_by_version (void)
{
  static const struct {
    const char *version;
    gboolean    icons;
  } cases[] = {
    { "2025-06-18", FALSE },
    { "2025-11-25", TRUE },
  };

  g_test_summary ("Tool icons are sent from 2025-11-25 on, and not to a 2025-06-18 client");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TestProcess *demo = spawn_demo (NULL);
      g_autoptr(JsonNode) list = NULL;
      JsonObject *echo;

      test_process_initialize (demo, cases[i].version);
      test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
      list = test_process_read_id (demo, 1, ANSWER_TIMEOUT);
      g_assert_nonnull (list);
      echo = json_array_get_object_element (
               json_object_get_array_member (json_object_get_object_member (json_node_get_object (list), "result"),
                                             "tools"), 0);
      g_assert_cmpstr (json_object_get_string_member (echo, "name"), ==, "echo");
      g_assert_cmpint (json_object_has_member (echo, "icons"), ==, cases[i].icons);
      test_process_close_stdin (demo);
      g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
      test_process_free (demo);
    }
}

static void
test_bad_input (void)
{
  TestProcess *demo = spawn_demo (NULL);
  static const struct {
    const char *line;
    gint64      code;
  } cases[] = {
    { "this is not json", -32700 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", -32700 },
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600 },
    { "42", -32600 },
    { "\"a string\"", -32600 },
    { "{'jsonrpc':'2.0','id':1,'method':'ping'}", -32700 },
    { "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", -32600 },
  };

  g_test_summary ("Garbage is answered with -32700/-32600 and id null; the next line is served");

  test_process_initialize (demo, "2025-11-25");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) answer = NULL;

      test_process_send (demo, cases[i].line);
      answer = test_process_read (demo, ANSWER_TIMEOUT);
      g_assert_nonnull (answer);
      g_assert_cmpint (test_message_get_error_code (answer), ==, cases[i].code);
      g_assert_true (test_message_id_is_null (answer));
    }

  /* Invalid UTF-8 is a parse error, never silently replaced. */
  {
    g_autoptr(JsonNode) answer = NULL;

    test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{\"text\":\"\xff\xfe\"}}}");
    answer = test_process_read (demo, ANSWER_TIMEOUT);
    g_assert_nonnull (answer);
    g_assert_cmpint (test_message_get_error_code (answer), ==, -32700);
    g_assert_true (test_message_id_is_null (answer));
  }

  /* A request (it has a method) with a readable id and a bad shape gets
   * -32600 with that id; without a method it is no request: id null. */
  {
    g_autoptr(JsonNode) answer = NULL;
    g_autoptr(JsonNode) no_method = NULL;

    test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\",\"params\":[]}");
    answer = test_process_read (demo, ANSWER_TIMEOUT);
    g_assert_nonnull (answer);
    g_assert_cmpint (test_message_get_error_code (answer), ==, -32600);
    g_assert_cmpint (test_message_get_id (answer), ==, 10);

    test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":10}");
    no_method = test_process_read (demo, ANSWER_TIMEOUT);
    g_assert_nonnull (no_method);
    g_assert_cmpint (test_message_get_error_code (no_method), ==, -32600);
    g_assert_true (test_message_id_is_null (no_method));
  }

  /* Notifications are never answered, malformed or unknown; blank lines and
   * CRLF are fine; an unknown method is -32601. */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}");
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[1]}");
  test_process_send (demo, "");
  test_process_send (demo, "   ");
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"no/such/method\"}\r\n");
  {
    g_autoptr(JsonNode) answer = test_process_read (demo, ANSWER_TIMEOUT);

    g_assert_nonnull (answer);
    g_assert_cmpint (test_message_get_id (answer), ==, 11);
    g_assert_cmpint (test_message_get_error_code (answer), ==, -32601);
  }

  /* A last line without a newline is served at end of input. */
  {
    g_autofree char *line = test_tool_call (12, "echo", "{\"text\":\"last\"}");
    g_autoptr(JsonNode) answer = NULL;

    test_process_send_bytes (demo, line, strlen (line));
    test_process_close_stdin (demo);
    answer = test_process_read (demo, ANSWER_TIMEOUT);
    g_assert_nonnull (answer);
    g_assert_cmpint (test_message_get_id (answer), ==, 12);
    g_assert_cmpstr (test_message_get_text (answer), ==, "last");
  }

  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_huge_line (void)
{
  TestProcess *demo = spawn_demo (NULL);
  const gsize total = 64 * 1024 * 1024;
  const gsize chunk_size = 64 * 1024;
  g_autofree char *chunk = g_malloc (chunk_size);
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(JsonNode) echo = NULL;
  gint64 before_kb, peak_kb;

  g_test_summary ("A 64 MiB line is answered -32600 (id null) with bounded memory, "
                  "and the next request is served");

  test_process_initialize (demo, "2025-11-25");
  before_kb = test_process_status_kb (demo, "VmHWM");
  g_assert_cmpint (before_kb, >, 0);

  memcpy (chunk, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"", 89);
  memset (chunk + 89, 'x', chunk_size - 89);
  test_process_send_bytes (demo, chunk, chunk_size);
  memset (chunk, 'x', 89);
  for (gsize sent = chunk_size; sent < total; sent += chunk_size)
    test_process_send_bytes (demo, chunk, chunk_size);
  test_process_send (demo, "\"}}}");

  answer = test_process_read (demo, 60000);
  g_assert_nonnull (answer);
  g_assert_cmpint (test_message_get_error_code (answer), ==, -32600);
  g_assert_true (test_message_id_is_null (answer));

  echo = call (demo, 2, "echo", "{\"text\":\"after\"}");
  g_assert_nonnull (echo);
  g_assert_cmpstr (test_message_get_text (echo), ==, "after");

  peak_kb = test_process_status_kb (demo, "VmHWM");
  g_test_message ("peak resident memory: %" G_GINT64_FORMAT " kB before, %" G_GINT64_FORMAT
                  " kB after a 64 MiB line (limit 2000000 bytes)", before_kb, peak_kb);
  /* The limit (2 MB) plus a read buffer, and some slack for the allocator:
   * nowhere near the line's 64 MiB. */
  g_assert_cmpint (peak_kb - before_kb, <, 8 * 1024);

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

/* A tools/call echo line of exactly @size bytes, newline included. */
static char *
padded_echo_line (gint64 id,
                  gsize  size)
{
  g_autofree char *head = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT
                                           ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                                           "\"arguments\":{\"text\":\"", id);
  const char *tail = "\"}}}\n";
  gsize fill = size - strlen (head) - strlen (tail);
  GString *line = g_string_new (head);

  for (gsize i = 0; i < fill; i++)
    g_string_append_c (line, 'y');
  g_string_append (line, tail);
  g_assert_cmpuint (line->len, ==, size);
  return g_string_free (line, FALSE);
}

static void
test_exact_limit (void)
{
  TestProcess *demo = spawn_demo ("--max-line-bytes=1000", NULL);
  g_autofree char *exact = padded_echo_line (1, 1000);
  g_autofree char *over = padded_echo_line (2, 1001);
  g_autoptr(JsonNode) served = NULL;
  g_autoptr(JsonNode) refused = NULL;
  g_autoptr(JsonNode) after = NULL;

  g_test_summary ("A line of exactly max-line-bytes (newline included) is served; one byte more is not");

  test_process_send (demo, exact);
  served = test_process_read (demo, ANSWER_TIMEOUT);
  g_assert_nonnull (served);
  g_assert_cmpint (test_message_get_id (served), ==, 1);
  {
    gsize fill = 0;

    for (const char *p = exact; *p; p++)
      fill += (*p == 'y');
    g_assert_cmpuint (strlen (test_message_get_text (served)), ==, fill);
  }

  test_process_send (demo, over);
  refused = test_process_read (demo, ANSWER_TIMEOUT);
  g_assert_nonnull (refused);
  g_assert_cmpint (test_message_get_error_code (refused), ==, -32600);
  g_assert_true (test_message_id_is_null (refused));

  after = call (demo, 3, "echo", "{\"text\":\"next\"}");
  g_assert_nonnull (after);
  g_assert_cmpstr (test_message_get_text (after), ==, "next");

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_concurrent_sleeps (void)
{
  TestProcess *demo = spawn_demo (NULL);
  gboolean seen[22] = { FALSE, };
  gint64 start, elapsed;
  guint answers = 0;
  gint64 first_id = 0;

  g_test_summary ("20 concurrent 500 ms sleeps and an echo: the echo comes back first and "
                  "all finish in about 0.5 s");

  test_process_initialize (demo, "2025-11-25");
  start = g_get_monotonic_time ();
  for (gint64 id = 1; id <= 20; id++)
    {
      g_autofree char *line = test_tool_call (id, "sleep", "{\"ms\":500}");

      test_process_send (demo, line);
    }
  {
    g_autofree char *line = test_tool_call (21, "echo", "{\"text\":\"quick\"}");

    test_process_send (demo, line);
  }

  while (answers < 21)
    {
      g_autoptr(JsonNode) answer = test_process_read (demo, ANSWER_TIMEOUT);
      gint64 id;

      g_assert_nonnull (answer);
      id = test_message_get_id (answer);
      g_assert_cmpint (id, >=, 1);
      g_assert_cmpint (id, <=, 21);
      g_assert_false (seen[id]);
      seen[id] = TRUE;
      if (answers == 0)
        first_id = id;
      if (id <= 20)
        g_assert_cmpstr (test_message_get_text (answer), ==, "slept 500");
      answers++;
    }
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_test_message ("20 x 500 ms sleeps + echo: %" G_GINT64_FORMAT " ms wall time", elapsed);

  g_assert_cmpint (first_id, ==, 21);
  /* Serially they would take 10 s. */
  g_assert_cmpint (elapsed, >=, 480);
  g_assert_cmpint (elapsed, <, 3000);

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_eof_drain (void)
{
  TestProcess *demo = spawn_demo (NULL);
  guint answers = 0;

  g_test_summary ("End of input with work in flight: every answer arrives, then exit 0");

  test_process_initialize (demo, "2025-11-25");
  for (gint64 id = 1; id <= 5; id++)
    {
      g_autofree char *line = test_tool_call (id, "sleep", "{\"ms\":300}");

      test_process_send (demo, line);
    }
  test_process_close_stdin (demo);

  for (;;)
    {
      g_autoptr(JsonNode) answer = test_process_read (demo, ANSWER_TIMEOUT);

      if (answer == NULL)
        break;
      g_assert_cmpstr (test_message_get_text (answer), ==, "slept 300");
      answers++;
    }
  g_assert_cmpuint (answers, ==, 5);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_cancel (void)
{
  TestProcess *demo = spawn_demo (NULL);
  g_autoptr(JsonNode) echo = NULL;
  g_autoptr(JsonNode) rest = NULL;
  gint64 start, elapsed;

  g_test_summary ("A cancelled request gets no answer, and its work stops at once");

  test_process_initialize (demo, "2025-11-25");
  start = g_get_monotonic_time ();
  {
    g_autofree char *line = test_tool_call (1, "sleep", "{\"ms\":5000}");

    test_process_send (demo, line);
  }
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                           "\"params\":{\"requestId\":1,\"reason\":\"test\"}}");
  echo = call (demo, 2, "echo", "{\"text\":\"still here\"}");
  g_assert_nonnull (echo);
  g_assert_cmpstr (test_message_get_text (echo), ==, "still here");

  test_process_close_stdin (demo);
  rest = test_process_read (demo, ANSWER_TIMEOUT);
  g_assert_null (rest);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_test_message ("cancelled 5 s sleep; exit after %" G_GINT64_FORMAT " ms", elapsed);
  g_assert_cmpint (elapsed, <, 4000);
  test_process_free (demo);
}

/* Reads every message until the answer of @id with a result, the
 * messages before it kept in @seen. */
static JsonNode *
read_until_result (TestProcess *demo,
                   gint64       id,
                   GPtrArray   *seen)
{
  for (;;)
    {
      JsonNode *message = test_process_read (demo, ANSWER_TIMEOUT);
      JsonObject *object;

      g_assert_nonnull (message);
      object = json_node_get_object (message);
      if (test_message_get_id (message) == id && json_object_has_member (object, "result"))
        return message;
      g_ptr_array_add (seen, message);
    }
}

static void
test_id_only (void)
{
  TestProcess *demo = spawn_demo (NULL);
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(JsonNode) init = NULL;
  g_autoptr(JsonNode) elicit = NULL;
  g_autoptr(JsonNode) ask = NULL;
  g_autoptr(JsonNode) sleep = NULL;
  g_autoptr(JsonNode) rest = NULL;
  guint n_null = 0;

  g_test_summary ("A message with an id but no method, result or error is no request: "
                  "with the id of a request of the server's in progress it is a malformed "
                  "response, dropped; else it is answered -32600 with id null, never with "
                  "its id (the id of a request of the client's in progress gets one answer)");

  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  init = test_process_read_id (demo, 0, ANSWER_TIMEOUT);
  g_assert_nonnull (init);
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

  /* The client's request 1 in progress, and the server's own request 1. */
  {
    g_autofree char *line = test_tool_call (1, "sleep", "{\"ms\":1500}");

    test_process_send (demo, line);
  }
  {
    g_autofree char *line = test_tool_call (2, "ask", "{}");

    test_process_send (demo, line);
  }
  elicit = test_process_read (demo, ANSWER_TIMEOUT);
  g_assert_nonnull (elicit);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (elicit), "method"),
                   ==, "elicitation/create");
  g_assert_cmpint (test_message_get_id (elicit), ==, 1);

  /* Malformed answers to the server's request 1: dropped. */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1}");
  test_process_send (demo, "{\"id\":1}");
  /* Of no request of the server's: -32600 with id null, twice. */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":77}");
  test_process_send (demo, "{\"id\":\"x\"}");
  /* The real answer. */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
                           "{\"action\":\"accept\",\"content\":{\"confirm\":true}}}");
  ask = read_until_result (demo, 2, seen);
  g_assert_cmpstr (test_message_get_text (ask), ==, "confirmed");

  /* Answered now: the same shapes are no response of anything, answered
   * with id null, while the client's request 1 is still in progress. */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1}");
  test_process_send (demo, "{\"id\":1}");

  sleep = read_until_result (demo, 1, seen);
  g_assert_false (test_message_is_tool_error (sleep));

  test_process_close_stdin (demo);
  for (;;)
    {
      JsonNode *message = test_process_read (demo, ANSWER_TIMEOUT);

      if (message == NULL)
        break;
      g_ptr_array_add (seen, message);
    }
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);

  for (guint i = 0; i < seen->len; i++)
    {
      JsonNode *message = g_ptr_array_index (seen, i);
      g_autofree char *text = json_to_string (message, FALSE);

      g_test_message ("also seen: %s", text);
      /* Nothing but the one answer of each request carries its id. */
      g_assert_true (test_message_id_is_null (message));
      g_assert_cmpint (test_message_get_error_code (message), ==, -32600);
      n_null++;
    }
  g_assert_cmpuint (n_null, ==, 4);
  test_process_free (demo);
}

static void
test_subscription_limit (void)
{
  TestProcess *demo = spawn_demo (NULL);
  g_autoptr(GString) lines = g_string_new (NULL);
  g_autoptr(JsonNode) over = NULL;
  g_autoptr(JsonNode) again = NULL;

  g_test_summary ("One connection subscribes to at most 1000 resources; more is refused, the rest kept");

  test_process_initialize (demo, "2025-11-25");
  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (lines, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"resources/subscribe\","
                            "\"params\":{\"uri\":\"demo://r/%u\"}}\n", 100 + i, i);
  test_process_send_bytes (demo, lines->str, lines->len);
  for (guint i = 0; i < 1000; i++)
    {
      g_autoptr(JsonNode) answer = test_process_read (demo, ANSWER_TIMEOUT);

      g_assert_nonnull (answer);
      g_assert_cmpint (test_message_get_error_code (answer), ==, 0);
    }
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                           "\"params\":{\"uri\":\"demo://one-too-many\"}}");
  over = test_process_read_id (demo, 2, ANSWER_TIMEOUT);
  g_assert_nonnull (over);
  g_assert_cmpint (test_message_get_error_code (over), ==, -32602);
  /* One already kept may be subscribed again. */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
                           "\"params\":{\"uri\":\"demo://r/7\"}}");
  again = test_process_read_id (demo, 3, ANSWER_TIMEOUT);
  g_assert_nonnull (again);
  g_assert_cmpint (test_message_get_error_code (again), ==, 0);
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static void
send_listen (TestProcess *demo,
             gint64       id)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ","
                                           "\"method\":\"subscriptions/listen\",\"params\":{" MODERN_META ","
                                           "\"notifications\":{\"toolsListChanged\":true}}}", id);

  test_process_send (demo, line);
}

/* The next message, which must be the acknowledgement of listen @id. */
static void
assert_acknowledged (TestProcess *demo,
                     gint64       id)
{
  g_autoptr(JsonNode) ack = test_process_read (demo, ANSWER_TIMEOUT);
  g_autofree char *tag = g_strdup_printf ("\"io.modelcontextprotocol/subscriptionId\":%" G_GINT64_FORMAT, id);

  g_assert_nonnull (ack);
  if (strstr (test_process_get_last_line (demo), "notifications/subscriptions/acknowledged") == NULL)
    g_error ("Not an acknowledgement: %s", test_process_get_last_line (demo));
  g_assert_nonnull (strstr (test_process_get_last_line (demo), tag));
}

static void
test_listen_streams (void)
{
  TestProcess *demo = spawn_demo ("--max-running=8", "--max-queued=0", "--max-streams=10", NULL);
  g_autoptr(JsonNode) over = NULL;
  g_autoptr(JsonNode) duplicate = NULL;

  g_test_summary ("Over stdio a subscriptions/listen takes no slot of the executor: 8 listens with "
                  "--max-running=8 --max-queued=0 leave every call served; --max-streams bounds them "
                  "(-32010 beyond), a cancelled one makes room, and ids stay unique across both");

  for (gint64 id = 101; id <= 108; id++)
    {
      send_listen (demo, id);
      assert_acknowledged (demo, id);
    }
  for (gint64 id = 1; id <= 10; id++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":"
                                               "\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
                                               "{\"text\":\"hi\"}," MODERN_META "}}", id);
      g_autoptr(JsonNode) answer = NULL;

      test_process_send (demo, line);
      answer = test_process_read_id (demo, id, ANSWER_TIMEOUT);
      g_assert_nonnull (answer);
      g_assert_cmpint (test_message_get_error_code (answer), ==, 0);
      g_assert_cmpstr (test_message_get_text (answer), ==, "hi");
    }

  send_listen (demo, 109);
  assert_acknowledged (demo, 109);
  send_listen (demo, 110);
  assert_acknowledged (demo, 110);
  send_listen (demo, 111);
  over = test_process_read_id (demo, 111, ANSWER_TIMEOUT);
  g_assert_nonnull (over);
  g_assert_cmpint (test_message_get_error_code (over), ==, -32010);

  /* A cancelled subscription makes room (it ends without an answer). */
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                           "\"params\":{\"requestId\":101}}");
  for (gint64 id = 112;; id++)
    {
      g_autoptr(JsonNode) next = NULL;

      /* The cancelled one ends as soon as the server has run its end. */
      g_assert_cmpint (id, <, 200);
      send_listen (demo, id);
      next = test_process_read (demo, ANSWER_TIMEOUT);
      g_assert_nonnull (next);
      if (strstr (test_process_get_last_line (demo), "notifications/subscriptions/acknowledged") != NULL)
        break;
      g_assert_cmpint (test_message_get_error_code (next), ==, -32010);
      g_usleep (50000);
    }

  /* The id of a live subscription is taken for calls too. */
  {
    g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":"
                                             "\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
                                             "{\"text\":\"dup\"}," MODERN_META "}}");

    test_process_send (demo, line);
    duplicate = test_process_read_id (demo, 102, ANSWER_TIMEOUT);
    g_assert_nonnull (duplicate);
    g_assert_cmpint (test_message_get_error_code (duplicate), ==, -32600);
  }

  /* The end of input ends the subscriptions; the process exits. */
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_handler_timeout (void)
{
  TestProcess *demo = spawn_demo ("--handler-timeout", "200", NULL);
  g_autoptr(JsonNode) slept = NULL;
  g_autoptr(JsonNode) quick = NULL;

  g_test_summary ("--handler-timeout: a sleep longer than the limit is answered -32603 and cancelled");

  test_process_initialize (demo, "2025-11-25");
  slept = call (demo, 1, "sleep", "{\"ms\":3000}");
  g_assert_nonnull (slept);
  g_assert_cmpint (test_message_get_error_code (slept), ==, -32603);
  quick = call (demo, 2, "sleep", "{\"ms\":10}");
  g_assert_nonnull (quick);
  g_assert_cmpstr (test_message_get_text (quick), ==, "slept 10");
  test_process_close_stdin (demo);
  g_assert_null (test_process_read (demo, ANSWER_TIMEOUT));
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_overload (void)
{
  TestProcess *demo = spawn_demo ("--max-running=1", "--max-queued=1", NULL);
  g_autoptr(JsonNode) first = NULL;
  gint64 start, elapsed;
  guint sleeps = 0;

  g_test_summary ("When running and waiting slots are full, a request is answered at once with an error");

  start = g_get_monotonic_time ();
  for (gint64 id = 1; id <= 3; id++)
    {
      g_autofree char *line = test_tool_call (id, "sleep", "{\"ms\":1000}");

      test_process_send (demo, line);
    }

  first = test_process_read (demo, ANSWER_TIMEOUT);
  g_assert_nonnull (first);
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_assert_cmpint (test_message_get_id (first), ==, 3);
  g_assert_cmpint (test_message_get_error_code (first), ==, -32010);
  g_assert_cmpint (elapsed, <, 900);

  for (;;)
    {
      g_autoptr(JsonNode) answer = NULL;

      if (sleeps == 2)
        break;
      answer = test_process_read (demo, ANSWER_TIMEOUT);
      g_assert_nonnull (answer);
      g_assert_cmpstr (test_message_get_text (answer), ==, "slept 1000");
      sleeps++;
    }

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_options (void)
{
  static const char * const bad[] = {
    "--write-timeout=0", "--write-timeout=12abc", "--max-line-bytes=1",
    "--max-running=0", "--max-queued=-1",
  };

  g_test_summary ("Options are read strictly: a bad value exits 2 with a message; "
                  "--max-queued=0 is a real value");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      TestProcess *demo = spawn_demo (bad[i], NULL);
      g_autofree char *err = NULL;

      g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 2);
      err = test_process_dup_stderr (demo);
      g_assert_nonnull (strstr (err, "needs a whole number"));
      test_process_free (demo);
    }

  {
    TestProcess *demo = spawn_demo ("--max-running=1", "--max-queued=0", NULL);
    g_autoptr(JsonNode) refused = NULL;
    g_autoptr(JsonNode) slept = NULL;

    for (gint64 id = 1; id <= 2; id++)
      {
        g_autofree char *line = test_tool_call (id, "sleep", "{\"ms\":300}");

        test_process_send (demo, line);
      }
    refused = test_process_read (demo, ANSWER_TIMEOUT);
    g_assert_nonnull (refused);
    g_assert_cmpint (test_message_get_id (refused), ==, 2);
    g_assert_cmpint (test_message_get_error_code (refused), ==, -32010);
    slept = test_process_read (demo, ANSWER_TIMEOUT);
    g_assert_nonnull (slept);
    g_assert_cmpint (test_message_get_id (slept), ==, 1);
    test_process_close_stdin (demo);
    g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
    test_process_free (demo);
  }
}

static void
test_write_timeout (void)
{
  TestProcess *demo = spawn_demo ("--write-timeout=300", NULL);
  g_autofree char *err = NULL;
  g_autoptr(GBytes) out = NULL;
  const char *data;
  gsize len;
  int status;

  g_test_summary ("A reader that never reads: the write times out, the transport ends, "
                  "nothing is written after, exit status 1 with one line on stderr");

  {
    g_autofree char *blob = test_tool_call (1, "blob", "{\"bytes\":4000000}");
    g_autofree char *echo = test_tool_call (2, "echo", "{\"text\":\"after\"}");

    test_process_send (demo, blob);
    g_usleep (100 * 1000);
    test_process_send (demo, echo);
  }

  status = test_process_wait (demo, 20000);
  g_assert_cmpint (status, ==, 1);
  err = test_process_dup_stderr (demo);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "took longer than 300 ms"));
  g_assert_nonnull (strchr (err, '\n'));
  g_assert_null (strchr (strchr (err, '\n') + 1, '\n'));

  /* Only part of the blob's line made it into the pipe, and nothing after. */
  out = test_process_read_rest (demo, 5000);
  data = g_bytes_get_data (out, &len);
  g_test_message ("%" G_GSIZE_FORMAT " bytes reached the pipe", len);
  g_assert_cmpuint (len, >, 0);
  g_assert_cmpuint (len, <, 4000000);
  g_assert_null (memchr (data, '\n', len));
  g_assert_true (g_str_has_prefix (data, "{\"jsonrpc\":\"2.0\",\"id\":1,"));
  test_process_free (demo);
}

static void
test_output_closed (void)
{
  TestProcess *demo = spawn_demo (NULL);
  g_autofree char *err = NULL;
  int status;

  g_test_summary ("A closed output is a terminal output error (not SIGPIPE): exit 1 with one line");

  /* The test holds the only read end of the pipe; closing it makes every
   * write fail with EPIPE. */
  test_process_close_stdout (demo);
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  status = test_process_wait (demo, ANSWER_TIMEOUT);
  err = test_process_dup_stderr (demo);
  g_test_message ("stderr: %s", err);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (err, "Could not write to the output"));
  test_process_free (demo);
}

static void
test_sigterm (void)
{
  TestProcess *demo = spawn_demo (NULL);

  g_test_summary ("SIGTERM and SIGINT close the server cleanly");

  test_process_initialize (demo, "2025-11-25");
  kill (test_process_get_pid (demo), SIGTERM);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);

  demo = spawn_demo (NULL);
  test_process_initialize (demo, "2025-11-25");
  kill (test_process_get_pid (demo), SIGINT);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/demo/scripted-exchange", test_scripted_exchange);
  g_test_add_func ("/snodo/demo/unknown-version", test_unknown_version);
  g_test_add_func ("/snodo/demo/icons-by-version", test_icons_by_version);
  g_test_add_func ("/snodo/demo/bad-input", test_bad_input);
  g_test_add_func ("/snodo/demo/huge-line", test_huge_line);
  g_test_add_func ("/snodo/demo/exact-limit", test_exact_limit);
  g_test_add_func ("/snodo/demo/concurrent-sleeps", test_concurrent_sleeps);
  g_test_add_func ("/snodo/demo/eof-drain", test_eof_drain);
  g_test_add_func ("/snodo/demo/cancel", test_cancel);
  g_test_add_func ("/snodo/demo/id-only", test_id_only);
  g_test_add_func ("/snodo/demo/overload", test_overload);
  g_test_add_func ("/snodo/demo/handler-timeout", test_handler_timeout);
  g_test_add_func ("/snodo/demo/subscription-limit", test_subscription_limit);
  g_test_add_func ("/snodo/demo/listen-streams", test_listen_streams);
  g_test_add_func ("/snodo/demo/options", test_options);
  g_test_add_func ("/snodo/demo/write-timeout", test_write_timeout);
  g_test_add_func ("/snodo/demo/output-closed", test_output_closed);
  g_test_add_func ("/snodo/demo/sigterm", test_sigterm);

  return g_test_run ();
}
