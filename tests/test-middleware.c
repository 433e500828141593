/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Middlewares around handlers (timing, answering themselves, retrying,
 * caching, order, method filters, deadlines, one answer) and the answer
 * that answer hooks and middlewares are given (SnodoAnswer). Through a
 * SnodoStdioTransport over pipes, in both eras; the answer's reading of a
 * line also as a unit. */

#include "config.h"

#include <string.h>

#include "snodo.h"

#include "snodo-answer-private.h"
#include "snodo-test-util.h"

typedef struct
{
  SnodoTestPipe pipe;
  gboolean      modern;
  GString      *log;
  guint         flaky_calls;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  snodo_test_pipe_set_up (&fixture->pipe);
  fixture->modern = GPOINTER_TO_INT (data);
  fixture->log = g_string_new (NULL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_pipe_tear_down (&fixture->pipe);
  g_string_free (fixture->log, TRUE);
}

static void
log_add (Fixture    *fixture,
         const char *what)
{
  g_string_append_printf (fixture->log, "%s%s", fixture->log->len ? " " : "", what);
}

static JsonNode *
fixture_call (Fixture    *fixture,
              const char *method,
              const char *params)
{
  return snodo_test_pipe_call (&fixture->pipe, fixture->modern, method, params);
}

static void
fixture_start (Fixture *fixture)
{
  g_autoptr(JsonNode) answer = NULL;

  if (fixture->modern)
    return;
  answer = fixture_call (fixture, "initialize",
                         "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                         "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
  snodo_test_get_result (answer);
}

/* The next line is the answer to a tools/list: no answer was written twice. */
static void
fixture_assert_one_answer_each (Fixture *fixture)
{
  g_autoptr(JsonNode) answer = fixture_call (fixture, "tools/list", NULL);

  snodo_test_get_result (answer);
}

static char *
call_text (Fixture    *fixture,
           const char *params)
{
  g_autoptr(JsonNode) answer = fixture_call (fixture, "tools/call", params);

  return snodo_test_first_text (snodo_test_get_result (answer));
}

static JsonObject *
call_error (Fixture    *fixture,
            const char *method,
            const char *params)
{
  g_autoptr(JsonNode) answer = fixture_call (fixture, method, params);
  JsonObject *object = json_node_get_object (answer);

  g_assert_true (json_object_has_member (object, "error"));
  return json_object_ref (json_object_get_object_member (object, "error"));
}

/* Handlers. */

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  Fixture *fixture = user_data;
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  log_add (fixture, "handler");
  snodo_invocation_return_text (invocation, json_object_get_string_member_with_default (arguments, "text", ""));
}

static gboolean
late_cb (gpointer user_data)
{
  snodo_invocation_return_text (user_data, "late");
  return G_SOURCE_REMOVE;
}

/* Answers after 50 ms, on the context. */
static void
slow_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  log_add (user_data, "handler");
  g_timeout_add (50, late_cb, invocation);
}

/* Fails (a JSON-RPC error) every other call, the first included. */
static void
flaky_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  Fixture *fixture = user_data;

  log_add (fixture, "handler");
  if (fixture->flaky_calls++ % 2 == 0)
    snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, -32050, "Flaky: try again");
  else
    snodo_invocation_return_text (invocation, "ok");
}

static void
add_tool (Fixture       *fixture,
          const char    *name,
          SnodoToolFunc  func)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new (name, NULL);

  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, func, fixture, NULL, NULL));
}

/* Middlewares. */

typedef struct
{
  Fixture *fixture;
  gint64   started;
  gint64  *elapsed;
} Timing;

static void
timed_cb (SnodoMiddlewareNext *next,
          SnodoInvocation     *invocation,
          SnodoAnswer         *answer,
          gpointer             user_data)
{
  Timing *timing = user_data;

  *timing->elapsed = g_get_monotonic_time () - timing->started;
  log_add (timing->fixture, snodo_answer_is_error (answer) ? "timed:error" : "timed:result");
  snodo_invocation_return_answer (invocation, answer);
}

static void
timing_middleware (SnodoInvocation     *invocation,
                   SnodoMiddlewareNext *next,
                   gpointer             user_data)
{
  Timing *timing = g_new0 (Timing, 1);

  timing->fixture = user_data;
  timing->started = g_get_monotonic_time ();
  timing->elapsed = g_object_get_data (G_OBJECT (timing->fixture->pipe.server), "elapsed");
  snodo_middleware_next_call (next, invocation, timed_cb, timing, g_free);
}

static void
test_timing (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *text = NULL;
  gint64 elapsed = -1;

  g_test_summary ("A middleware times a call: it passes the request on, receives the handler's "
                  "answer when it is made (50 ms later), and passes it back unchanged");

  add_tool (fixture, "slow", slow_cb);
  g_object_set_data (G_OBJECT (fixture->pipe.server), "elapsed", &elapsed);
  snodo_server_add_middleware (fixture->pipe.server, NULL, timing_middleware, fixture, NULL);
  /* initialize passes through it too (2025-11-25). */
  fixture_start (fixture);
  g_assert_cmpstr (fixture->log->str, ==, fixture->modern ? "" : "timed:result");
  g_string_truncate (fixture->log, 0);

  text = call_text (fixture, "\"name\":\"slow\",\"arguments\":{}");
  g_assert_cmpstr (text, ==, "late");
  g_assert_cmpint (elapsed, >=, 45 * G_TIME_SPAN_MILLISECOND);
  g_assert_cmpstr (fixture->log->str, ==, "handler timed:result");
  fixture_assert_one_answer_each (fixture);
  /* tools/list went through it too (NULL: every method). */
  g_assert_cmpstr (fixture->log->str, ==, "handler timed:result timed:result");
}

/* Answers "cached" for the tool "cached" itself; passes the rest on. */
static void
passed_cb (SnodoMiddlewareNext *next,
           SnodoInvocation     *invocation,
           SnodoAnswer         *answer,
           gpointer             user_data)
{
  snodo_invocation_return_answer (invocation, answer);
}

static void
short_middleware (SnodoInvocation     *invocation,
                  SnodoMiddlewareNext *next,
                  gpointer             user_data)
{
  if (g_strcmp0 (snodo_invocation_get_name (invocation), "cached") == 0)
    snodo_invocation_return_text (invocation, "from the middleware");
  else if (g_strcmp0 (snodo_invocation_get_name (invocation), "refused") == 0)
    snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, -32040, "Refused by the middleware");
  else
    snodo_middleware_next_call (next, invocation, passed_cb, NULL, NULL);
}

static void
test_short_circuit (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *text = NULL;
  g_autofree char *other = NULL;
  g_autoptr(JsonObject) error = NULL;

  g_test_summary ("A middleware answers itself: the handler does not run, and the client gets "
                  "the middleware's result or error; other calls pass through");

  add_tool (fixture, "cached", echo_cb);
  add_tool (fixture, "refused", echo_cb);
  add_tool (fixture, "echo", echo_cb);
  fixture_start (fixture);
  snodo_server_add_middleware (fixture->pipe.server, "tools/call", short_middleware, NULL, NULL);

  text = call_text (fixture, "\"name\":\"cached\",\"arguments\":{\"text\":\"x\"}");
  g_assert_cmpstr (text, ==, "from the middleware");
  error = call_error (fixture, "tools/call", "\"name\":\"refused\",\"arguments\":{}");
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32040);
  g_assert_cmpstr (fixture->log->str, ==, "");
  other = call_text (fixture, "\"name\":\"echo\",\"arguments\":{\"text\":\"through\"}");
  g_assert_cmpstr (other, ==, "through");
  g_assert_cmpstr (fixture->log->str, ==, "handler");
  fixture_assert_one_answer_each (fixture);
}

/* Retries once an answer that is a JSON-RPC error. */
static void
retried_cb (SnodoMiddlewareNext *next,
            SnodoInvocation     *invocation,
            SnodoAnswer         *answer,
            gpointer             user_data)
{
  Fixture *fixture = user_data;

  if (snodo_answer_is_error (answer) && !g_object_get_data (G_OBJECT (invocation), "retried"))
    {
      log_add (fixture, "retry");
      g_object_set_data (G_OBJECT (invocation), "retried", GINT_TO_POINTER (TRUE));
      snodo_middleware_next_call (next, invocation, retried_cb, fixture, NULL);
      return;
    }
  snodo_invocation_return_answer (invocation, answer);
}

static void
retry_middleware (SnodoInvocation     *invocation,
                  SnodoMiddlewareNext *next,
                  gpointer             user_data)
{
  snodo_middleware_next_call (next, invocation, retried_cb, user_data, NULL);
}

static void
test_retry (Fixture       *fixture,
            gconstpointer  data)
{
  g_autofree char *text = NULL;

  g_test_summary ("A middleware retries a failing handler once: the handler runs twice, the client "
                  "gets one answer, the second one");

  add_tool (fixture, "flaky", flaky_cb);
  fixture_start (fixture);
  snodo_server_add_middleware (fixture->pipe.server, "tools/call", retry_middleware, fixture, NULL);

  text = call_text (fixture, "\"name\":\"flaky\",\"arguments\":{}");
  g_assert_cmpstr (text, ==, "ok");
  g_assert_cmpstr (fixture->log->str, ==, "handler retry handler");
  fixture_assert_one_answer_each (fixture);
}

/* Logs "NAME>" going in and "<NAME" coming out. */
typedef struct
{
  Fixture    *fixture;
  const char *name;
} Named;

static void
named_done_cb (SnodoMiddlewareNext *next,
               SnodoInvocation     *invocation,
               SnodoAnswer         *answer,
               gpointer             user_data)
{
  Named *named = user_data;
  g_autofree char *what = g_strdup_printf ("<%s", named->name);

  log_add (named->fixture, what);
  snodo_invocation_return_answer (invocation, answer);
}

static void
named_middleware (SnodoInvocation     *invocation,
                  SnodoMiddlewareNext *next,
                  gpointer             user_data)
{
  Named *named = user_data;
  g_autofree char *what = g_strdup_printf ("%s>", named->name);

  log_add (named->fixture, what);
  snodo_middleware_next_call (next, invocation, named_done_cb, named, NULL);
}

static void
test_order (Fixture       *fixture,
            gconstpointer  data)
{
  Named a = { fixture, "a" }, b = { fixture, "b" }, c = { fixture, "c" };
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) list = NULL;
  guint id_c;

  g_test_summary ("Middlewares run in the order they were installed, the first outermost; one "
                  "given a method sees only that method's requests; a removed one no more");

  add_tool (fixture, "echo", echo_cb);
  fixture_start (fixture);
  snodo_server_add_middleware (fixture->pipe.server, NULL, named_middleware, &a, NULL);
  snodo_server_add_middleware (fixture->pipe.server, "tools/call", named_middleware, &b, NULL);
  id_c = snodo_server_add_middleware (fixture->pipe.server, "tools/list", named_middleware, &c, NULL);

  text = call_text (fixture, "\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}");
  g_assert_cmpstr (text, ==, "x");
  g_assert_cmpstr (fixture->log->str, ==, "a> b> handler <b <a");

  g_string_truncate (fixture->log, 0);
  list = fixture_call (fixture, "tools/list", NULL);
  snodo_test_get_result (list);
  g_assert_cmpstr (fixture->log->str, ==, "a> c> <c <a");

  g_string_truncate (fixture->log, 0);
  g_assert_true (snodo_server_remove_hook (fixture->pipe.server, id_c));
  g_clear_pointer (&list, json_node_unref);
  list = fixture_call (fixture, "tools/list", NULL);
  snodo_test_get_result (list);
  g_assert_cmpstr (fixture->log->str, ==, "a> <a");
}

/* Keeps the first answer to "echo" and answers later calls with it. */
static void
cache_done_cb (SnodoMiddlewareNext *next,
               SnodoInvocation     *invocation,
               SnodoAnswer         *answer,
               gpointer             user_data)
{
  SnodoAnswer **cache = user_data;

  g_clear_pointer (cache, snodo_answer_unref);
  *cache = snodo_answer_ref (answer);
  snodo_invocation_return_answer (invocation, answer);
}

static void
cache_middleware (SnodoInvocation     *invocation,
                  SnodoMiddlewareNext *next,
                  gpointer             user_data)
{
  SnodoAnswer **cache = user_data;

  if (*cache != NULL)
    snodo_invocation_return_answer (invocation, *cache);
  else
    snodo_middleware_next_call (next, invocation, cache_done_cb, cache, NULL);
}

static void
test_cache (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(SnodoAnswer) cache = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  g_test_summary ("A middleware answers a later request with an earlier answer it kept: the "
                  "client gets it with the later request's id, and the handler runs once");

  add_tool (fixture, "echo", echo_cb);
  fixture_start (fixture);
  snodo_server_add_middleware (fixture->pipe.server, "tools/call", cache_middleware, &cache, NULL);

  first = call_text (fixture, "\"name\":\"echo\",\"arguments\":{\"text\":\"kept\"}");
  /* snodo_test_pipe_call() checks the answer's id. */
  second = call_text (fixture, "\"name\":\"echo\",\"arguments\":{\"text\":\"other\"}");
  g_assert_cmpstr (first, ==, "kept");
  g_assert_cmpstr (second, ==, "kept");
  g_assert_cmpstr (fixture->log->str, ==, "handler");
  fixture_assert_one_answer_each (fixture);
}

/* Passes the call on and keeps the invocation, never answering. */
static void
hold_done_cb (SnodoMiddlewareNext *next,
              SnodoInvocation     *invocation,
              SnodoAnswer         *answer,
              gpointer             user_data)
{
  GPtrArray *held = user_data;

  g_ptr_array_add (held, invocation);
}

static void
hold_middleware (SnodoInvocation     *invocation,
                 SnodoMiddlewareNext *next,
                 gpointer             user_data)
{
  snodo_middleware_next_call (next, invocation, hold_done_cb, user_data, NULL);
}

static void
test_deadline (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GPtrArray) held = g_ptr_array_new ();
  g_autoptr(JsonObject) error = NULL;

  g_test_summary ("The request's deadline covers its middlewares: one that never answers gets the "
                  "client Snodo's -32603 at the deadline, and what it answers later is dropped");

  add_tool (fixture, "echo", echo_cb);
  fixture_start (fixture);
  snodo_server_set_handler_timeout (fixture->pipe.server, 100);
  snodo_server_add_middleware (fixture->pipe.server, "tools/call", hold_middleware, held, NULL);

  g_test_expect_message ("Snodo", G_LOG_LEVEL_WARNING, "*did not answer within 100 ms*");
  error = call_error (fixture, "tools/call", "\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}");
  g_test_assert_expected_messages ();
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, SNODO_RPC_ERROR_INTERNAL_ERROR);
  g_assert_cmpuint (held->len, ==, 1);
  /* A late answer: dropped, not written. */
  snodo_invocation_return_text (g_ptr_array_steal_index (held, 0), "too late");
  fixture_assert_one_answer_each (fixture);
}

/* Where things ran. */
typedef struct
{
  GThread *main;
  gboolean middleware_on_main;
  gboolean done_on_main;
  gboolean handler_on_main;
} Threads;

static void
threaded_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  Threads *threads = user_data;

  threads->handler_on_main = g_thread_self () == threads->main;
  snodo_invocation_return_text (invocation, "from a thread");
}

static void
threads_done_cb (SnodoMiddlewareNext *next,
                 SnodoInvocation     *invocation,
                 SnodoAnswer         *answer,
                 gpointer             user_data)
{
  Threads *threads = user_data;

  threads->done_on_main = g_thread_self () == threads->main;
  snodo_invocation_return_answer (invocation, answer);
}

static void
threads_middleware (SnodoInvocation     *invocation,
                    SnodoMiddlewareNext *next,
                    gpointer             user_data)
{
  Threads *threads = user_data;

  threads->middleware_on_main = g_thread_self () == threads->main;
  snodo_middleware_next_call (next, invocation, threads_done_cb, threads, NULL);
}

static void
test_thread (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("threaded", NULL);
  Threads threads = { g_thread_self (), FALSE, FALSE, TRUE };
  g_autofree char *text = NULL;

  g_test_summary ("Around a tool that runs in a thread, the middleware and what it receives run on "
                  "the server's context, the handler still on a worker thread");

  snodo_tool_set_run_in_thread (tool, TRUE);
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, threaded_cb, &threads, NULL, NULL));
  fixture_start (fixture);
  snodo_server_add_middleware (fixture->pipe.server, "tools/call", threads_middleware, &threads, NULL);

  text = call_text (fixture, "\"name\":\"threaded\",\"arguments\":{}");
  g_assert_cmpstr (text, ==, "from a thread");
  g_assert_true (threads.middleware_on_main);
  g_assert_true (threads.done_on_main);
  g_assert_false (threads.handler_on_main);
  fixture_assert_one_answer_each (fixture);
}

/* Answer hooks given a SnodoAnswer. */

static void
view_hook (SnodoInvocation *invocation,
           SnodoAnswer     *answer,
           gpointer         user_data)
{
  Fixture *fixture = user_data;
  g_autofree char *what = NULL;
  const char *line = snodo_answer_get_line (answer);
  JsonObject *tree = json_node_get_object (snodo_answer_get_tree (answer));

  g_assert_true (json_node_equal (snodo_answer_get_id (answer), json_object_get_member (tree, "id")));
  g_assert_cmpint (snodo_answer_is_error (answer), ==, json_object_has_member (tree, "error"));
  g_assert_null (strchr (line, '\n'));
  g_assert_cmpuint (strlen (line) + 1, ==, g_bytes_get_size (snodo_answer_get_bytes (answer)));
  what = g_strdup_printf ("%s:%" G_GINT64_FORMAT, snodo_invocation_get_method (invocation),
                          snodo_answer_get_error_code (answer));
  log_add (fixture, what);
}

static void
tree_hook (SnodoInvocation *invocation,
           JsonNode        *answer,
           gpointer         user_data)
{
  log_add (user_data, json_object_has_member (json_node_get_object (answer), "error") ? "tree:error" : "tree:result");
}

static void
test_view_hook (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(JsonObject) error = NULL;
  g_autofree char *text = NULL;

  g_test_summary ("An answer hook given a SnodoAnswer reads the line, the id, whether it is an "
                  "error and its code, as the parsed answer says; hooks of both kinds run in order");

  add_tool (fixture, "flaky", flaky_cb);
  fixture_start (fixture);
  snodo_server_add_answer_view_hook (fixture->pipe.server, view_hook, fixture, NULL);
  snodo_server_add_answer_hook (fixture->pipe.server, tree_hook, fixture, NULL);

  error = call_error (fixture, "tools/call", "\"name\":\"flaky\",\"arguments\":{}");
  text = call_text (fixture, "\"name\":\"flaky\",\"arguments\":{}");
  g_assert_cmpstr (text, ==, "ok");
  g_assert_cmpstr (fixture->log->str, ==, "handler tools/call:-32050 tree:error handler tools/call:0 tree:result");
}

/* The line read as a unit, without a server. */
static void
test_answer_lines (void)
{
  const struct
  {
    const char *line;
    gboolean    is_error;
    gint64      code;
  } lines[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\\\"error\\\":\"}]}}\n", FALSE, 0 },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"}\",\"error\":{\"message\":\"x,}\\\\\",\"code\":-32001}}\n", TRUE, -32001 },
    { "{\"id\":{\"x\":[1,{\"error\":2}]},\"jsonrpc\":\"2.0\",\"error\":{\"code\":7,\"message\":\"m\"}}\n", TRUE, 7 },
    { " { \"jsonrpc\" : \"2.0\" , \"id\" : null , \"error\" : { \"data\" : [ \"}\" ] , \"code\" : -32700 } }\n", TRUE, -32700 },
    { "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}", FALSE, 0 },
  };

  g_test_summary ("SnodoAnswer reads error and code from the top level of a line, whatever the "
                  "strings and nested values before them hold");

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (lines[i].line, strlen (lines[i].line));
      g_autoptr(SnodoAnswer) answer = snodo_answer_new (bytes, NULL);
      JsonObject *tree;

      g_test_message ("%s", lines[i].line);
      g_assert_cmpint (snodo_answer_is_error (answer), ==, lines[i].is_error);
      g_assert_cmpint (snodo_answer_get_error_code (answer), ==, lines[i].code);
      tree = json_node_get_object (snodo_answer_get_tree (answer));
      g_assert_true (json_node_equal (snodo_answer_get_id (answer), json_object_get_member (tree, "id")));
      g_assert_cmpint (json_object_has_member (tree, "error"), ==, lines[i].is_error);
    }
}

int
main (int   argc,
      char *argv[])
{
  const struct
  {
    const char *era;
    gboolean    modern;
  } eras[] = { { "2025-11-25", FALSE }, { "2026-07-28", TRUE } };
  const struct
  {
    const char *name;
    void      (*func) (Fixture *, gconstpointer);
  } tests[] = {
    { "timing", test_timing },
    { "short-circuit", test_short_circuit },
    { "retry", test_retry },
    { "order", test_order },
    { "cache", test_cache },
    { "deadline", test_deadline },
    { "thread", test_thread },
    { "view-hook", test_view_hook },
  };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/middleware/answer-lines", test_answer_lines);
  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    for (guint j = 0; j < G_N_ELEMENTS (tests); j++)
      {
        g_autofree char *path = g_strdup_printf ("/middleware/%s/%s", eras[i].era, tests[j].name);

        g_test_add (path, Fixture, GINT_TO_POINTER (eras[i].modern), fixture_set_up, tests[j].func,
                    fixture_tear_down);
      }

  return g_test_run ();
}
