/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Request and answer hooks: order, refusal, annotations, what an answer
 * hook sees, removal, the thread they run on, and that observing hooks
 * change nothing on the wire. In process, through a SnodoStdioTransport
 * over pipes, in both eras. */

#include "config.h"

#include <string.h>

#include "snodo.h"

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

typedef struct
{
  SnodoTestPipe pipe;
  gboolean      modern;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  snodo_test_pipe_set_up (&fixture->pipe);
  fixture->modern = GPOINTER_TO_INT (data);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_pipe_tear_down (&fixture->pipe);
}

static JsonNode *
fixture_call (Fixture    *fixture,
              const char *method,
              const char *params)
{
  return snodo_test_pipe_call (&fixture->pipe, fixture->modern, method, params);
}

static void
text_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "ok");
}

/* An initialize first in the 2025 era. */
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

/* What the hooks and handlers did, in order. */
typedef struct
{
  GString *log;
  GThread *thread;
  gboolean wrong_thread;
} Log;

static void
log_add (Log        *log,
         const char *what)
{
  if (g_thread_self () != log->thread)
    {
      log->wrong_thread = TRUE;
      g_test_message ("%s on another thread", what);
    }
  g_string_append_printf (log->log, "%s%s", log->log->len ? " " : "", what);
}

static void
request_hook_a (SnodoInvocation *invocation,
                gpointer         user_data)
{
  g_autofree char *what = g_strdup_printf ("a:%s:%s", snodo_invocation_get_method (invocation),
                                           snodo_invocation_get_name (invocation) ? snodo_invocation_get_name (invocation) : "-");

  log_add (user_data, what);
}

static void
request_hook_b (SnodoInvocation *invocation,
                gpointer         user_data)
{
  log_add (user_data, "b");
}

static void
answer_hook_a (SnodoInvocation *invocation,
               JsonNode        *answer,
               gpointer         user_data)
{
  JsonObject *object = json_node_get_object (answer);
  g_autofree char *what = g_strdup_printf ("A:%s:%s", snodo_invocation_get_method (invocation),
                                           json_object_has_member (object, "result") ? "result" : "error");

  g_assert_true (json_node_is_immutable (answer));
  log_add (user_data, what);
}

static void
answer_hook_b (SnodoInvocation *invocation,
               JsonNode        *answer,
               gpointer         user_data)
{
  log_add (user_data, "B");
}

static void
logged_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  Log *log = user_data;

  /* Hooks run on the server's context; the handler, maybe not. */
  g_string_append (log->log, log->log->len ? " handler" : "handler");
  snodo_invocation_return_text (invocation, "ok");
}

static void
log_init (Log *log)
{
  log->log = g_string_new (NULL);
  log->thread = g_thread_self ();
}

static void
test_order (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
  g_autoptr(JsonNode) answer = NULL;
  Log log = { 0, };

  g_test_summary ("Hooks run in the order they were installed: request hooks before the handler, "
                  "answer hooks after it");

  log_init (&log);
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, logged_cb, &log, NULL, NULL));
  fixture_start (fixture);
  g_assert_cmpuint (snodo_server_add_answer_hook (fixture->pipe.server, answer_hook_a, &log, NULL), !=, 0);
  g_assert_cmpuint (snodo_server_add_request_hook (fixture->pipe.server, request_hook_a, &log, NULL), !=, 0);
  g_assert_cmpuint (snodo_server_add_request_hook (fixture->pipe.server, request_hook_b, &log, NULL), !=, 0);
  g_assert_cmpuint (snodo_server_add_answer_hook (fixture->pipe.server, answer_hook_b, &log, NULL), !=, 0);

  answer = fixture_call (fixture, "tools/call", "\"name\":\"t\",\"arguments\":{}");
  snodo_test_get_result (answer);
  g_clear_pointer (&answer, json_node_unref);
  answer = fixture_call (fixture, "tools/list", NULL);
  snodo_test_get_result (answer);

  g_assert_cmpstr (log.log->str, ==, "a:tools/call:t b handler A:tools/call:result B a:tools/list:- b A:tools/list:result B");
  g_assert_false (log.wrong_thread);
  g_string_free (log.log, TRUE);
}

static void
refuse_hook (SnodoInvocation *invocation,
             gpointer         user_data)
{
  if (g_strcmp0 (snodo_invocation_get_name (invocation), "secret") == 0)
    snodo_invocation_reject (invocation, -32001, "Not for you");
  else if (g_strcmp0 (snodo_invocation_get_method (invocation), "prompts/list") == 0)
    snodo_invocation_reject (invocation, SNODO_RPC_ERROR_INVALID_REQUEST, "Invalid request: no prompts today");
}

static void
test_reject (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(SnodoTool) secret = snodo_tool_new ("secret", NULL);
  g_autoptr(SnodoTool) open = snodo_tool_new ("open", NULL);
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *error;
  Log log = { 0, };

  g_test_summary ("A request hook refuses a request: it is answered with the hook's error, in the "
                  "request's era; no handler runs and the later hooks do not see it");

  log_init (&log);
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, secret, logged_cb, &log, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, open, logged_cb, &log, NULL, NULL));
  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, (SnodoPromptFunc) logged_cb, &log, NULL, NULL));
  fixture_start (fixture);
  snodo_server_add_request_hook (fixture->pipe.server, refuse_hook, NULL, NULL);
  snodo_server_add_request_hook (fixture->pipe.server, request_hook_b, &log, NULL);
  snodo_server_add_answer_hook (fixture->pipe.server, answer_hook_a, &log, NULL);

  answer = fixture_call (fixture, "tools/call", "\"name\":\"secret\",\"arguments\":{}");
  error = json_object_get_object_member (json_node_get_object (answer), "error");
  g_assert_nonnull (error);
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32001);
  g_assert_cmpstr (json_object_get_string_member (error, "message"), ==, "Not for you");
  g_clear_pointer (&answer, json_node_unref);

  answer = fixture_call (fixture, "prompts/list", NULL);
  g_assert_cmpint (test_message_get_error_code (answer), ==, SNODO_RPC_ERROR_INVALID_REQUEST);
  g_clear_pointer (&answer, json_node_unref);

  answer = fixture_call (fixture, "tools/call", "\"name\":\"open\",\"arguments\":{}");
  snodo_test_get_result (answer);
  g_clear_pointer (&answer, json_node_unref);

  /* The id of a refused request is free again. */
  fixture->pipe.next_id = 1;
  answer = fixture_call (fixture, "tools/call", "\"name\":\"open\",\"arguments\":{}");
  snodo_test_get_result (answer);

  g_assert_cmpstr (log.log->str, ==,
                   "A:tools/call:error A:prompts/list:error b handler A:tools/call:result b handler A:tools/call:result");
  g_string_free (log.log, TRUE);
}

static void
annotate_hook (SnodoInvocation *invocation,
               gpointer         user_data)
{
  g_autoptr(JsonNode) who = json_node_init_string (json_node_alloc (), "alice");

  snodo_invocation_set_annotation (invocation, "who", who);
  snodo_invocation_set_annotation (invocation, "gone", who);
  snodo_invocation_set_annotation (invocation, "gone", NULL);
}

static void
annotated_cb (SnodoInvocation *invocation,
              gpointer         user_data)
{
  JsonNode *who = snodo_invocation_get_annotation (invocation, "who");
  g_autofree char *text = NULL;

  g_assert_null (snodo_invocation_get_annotation (invocation, "gone"));
  g_assert_true (who == NULL || json_node_is_immutable (who));
  text = g_strdup_printf ("hello %s", who ? json_node_get_string (who) : "nobody");
  snodo_invocation_return_text (invocation, text);
}

static void
test_annotate (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("who", NULL);
  g_autoptr(JsonNode) answer = NULL;
  guint id;

  g_test_summary ("A request hook's annotations reach the handler, also on a worker thread");

  snodo_tool_set_run_in_thread (tool, TRUE);
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, annotated_cb, NULL, NULL, NULL));
  fixture_start (fixture);

  answer = fixture_call (fixture, "tools/call", "\"name\":\"who\",\"arguments\":{}");
  g_assert_cmpstr (test_message_get_text (answer), ==, "hello nobody");
  g_clear_pointer (&answer, json_node_unref);

  id = snodo_server_add_request_hook (fixture->pipe.server, annotate_hook, NULL, NULL);
  answer = fixture_call (fixture, "tools/call", "\"name\":\"who\",\"arguments\":{}");
  g_assert_cmpstr (test_message_get_text (answer), ==, "hello alice");
  g_assert_true (snodo_server_remove_hook (fixture->pipe.server, id));
}

typedef struct
{
  Log       log;
  JsonNode *answer;
  char     *version;
  char     *params;
} Seen;

static void
seen_request_hook (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  Seen *seen = user_data;

  g_free (seen->params);
  seen->params = json_to_string (snodo_invocation_get_params (invocation), FALSE);
  g_free (seen->version);
  seen->version = g_strdup (snodo_protocol_version_to_string (snodo_invocation_get_protocol_version (invocation)));
}

static void
seen_answer_hook (SnodoInvocation *invocation,
                  JsonNode        *answer,
                  gpointer         user_data)
{
  Seen *seen = user_data;

  log_add (&seen->log, snodo_invocation_get_name (invocation));
  g_clear_pointer (&seen->answer, json_node_unref);
  seen->answer = json_node_ref (answer);
}

static void
threaded_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  snodo_invocation_report_progress (invocation, 1, 2, NULL);
  snodo_invocation_return_text (invocation, "from a thread");
}

static void
test_answer (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("thread", NULL);
  g_autoptr(JsonNode) answer = NULL;
  Seen seen = { 0, };

  g_test_summary ("An answer hook sees the answer as written, on the server's context even when the "
                  "handler answers on a worker thread; a request hook sees params and version");

  log_init (&seen.log);
  snodo_tool_set_run_in_thread (tool, TRUE);
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, threaded_cb, NULL, NULL, NULL));
  fixture_start (fixture);
  snodo_server_add_request_hook (fixture->pipe.server, seen_request_hook, &seen, NULL);
  snodo_server_add_answer_hook (fixture->pipe.server, seen_answer_hook, &seen, NULL);

  answer = fixture_call (fixture, "tools/call", "\"name\":\"thread\",\"arguments\":{\"x\":1}");
  g_assert_cmpstr (test_message_get_text (answer), ==, "from a thread");
  g_assert_true (snodo_test_json_equal (answer, seen.answer));
  g_assert_cmpstr (seen.log.log->str, ==, "thread");
  g_assert_false (seen.log.wrong_thread);
  g_assert_cmpstr (seen.version, ==, fixture->modern ? "2026-07-28" : "2025-11-25");
  g_assert_nonnull (strstr (seen.params, "\"arguments\":{\"x\":1}"));

  g_clear_pointer (&seen.answer, json_node_unref);
  g_free (seen.version);
  g_free (seen.params);
  g_string_free (seen.log.log, TRUE);
}

typedef struct
{
  SnodoServer *server;
  guint        id;
  guint        runs;
} Once;

/* Removes itself while it runs. */
static void
once_hook (SnodoInvocation *invocation,
           gpointer         user_data)
{
  Once *once = user_data;

  once->runs++;
  g_assert_true (snodo_server_remove_hook (once->server, once->id));
}

static void
count_destroy (gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
count_hook (SnodoInvocation *invocation,
            gpointer         user_data)
{
  (*(guint *) user_data) += 10;
}

static void
count_answer_hook (SnodoInvocation *invocation,
                   JsonNode        *answer,
                   gpointer         user_data)
{
  count_hook (invocation, user_data);
}

static void
test_remove (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
  g_autoptr(JsonNode) answer = NULL;
  guint count = 0;
  guint request_id, answer_id;

  g_test_summary ("A removed hook runs no more and its data is released");

  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, text_cb, NULL, NULL, NULL));
  fixture_start (fixture);
  request_id = snodo_server_add_request_hook (fixture->pipe.server, count_hook, &count, count_destroy);
  answer_id = snodo_server_add_answer_hook (fixture->pipe.server, count_answer_hook, &count, count_destroy);
  g_assert_cmpuint (request_id, !=, answer_id);

  answer = fixture_call (fixture, "tools/call", "\"name\":\"t\",\"arguments\":{}");
  g_clear_pointer (&answer, json_node_unref);
  g_assert_cmpuint (count, ==, 20);

  g_assert_true (snodo_server_remove_hook (fixture->pipe.server, request_id));
  g_assert_cmpuint (count, ==, 21);
  g_assert_false (snodo_server_remove_hook (fixture->pipe.server, request_id));
  g_assert_false (snodo_server_remove_hook (fixture->pipe.server, 0));
  answer = fixture_call (fixture, "tools/call", "\"name\":\"t\",\"arguments\":{}");
  g_clear_pointer (&answer, json_node_unref);
  g_assert_cmpuint (count, ==, 31);

  g_assert_true (snodo_server_remove_hook (fixture->pipe.server, answer_id));
  g_assert_cmpuint (count, ==, 32);
  g_clear_pointer (&answer, json_node_unref);
  answer = fixture_call (fixture, "tools/call", "\"name\":\"t\",\"arguments\":{}");
  g_assert_cmpuint (count, ==, 32);

  {
    Once once = { fixture->pipe.server, 0, 0 };

    once.id = snodo_server_add_request_hook (fixture->pipe.server, once_hook, &once, NULL);
    for (guint i = 0; i < 2; i++)
      {
        g_clear_pointer (&answer, json_node_unref);
        answer = fixture_call (fixture, "tools/call", "\"name\":\"t\",\"arguments\":{}");
        snodo_test_get_result (answer);
      }
    g_assert_cmpuint (once.runs, ==, 1);
  }
}

static void
observe_request (SnodoInvocation *invocation,
                 gpointer         user_data)
{
}

static void
observe_answer (SnodoInvocation *invocation,
                JsonNode        *answer,
                gpointer         user_data)
{
}

static void
test_unchanged (Fixture       *fixture,
                gconstpointer  data)
{
  const char *calls[][2] = {
    { "tools/call", "\"name\":\"t\",\"arguments\":{}" },
    { "tools/call", "\"name\":\"missing\",\"arguments\":{}" },
    { "tools/list", NULL },
    { "nothing/here", NULL },
    { "ping", NULL },
  };
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  guint ids[2];

  g_test_summary ("Hooks that only observe change no answer");

  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, text_cb, NULL, NULL, NULL));
  fixture_start (fixture);
  for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
    g_ptr_array_add (before, fixture_call (fixture, calls[i][0], calls[i][1]));

  ids[0] = snodo_server_add_request_hook (fixture->pipe.server, observe_request, NULL, NULL);
  ids[1] = snodo_server_add_answer_hook (fixture->pipe.server, observe_answer, NULL, NULL);
  fixture->pipe.next_id -= G_N_ELEMENTS (calls);
  for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      g_autoptr(JsonNode) after = fixture_call (fixture, calls[i][0], calls[i][1]);

      g_assert_true (snodo_test_json_equal (g_ptr_array_index (before, i), after));
    }
  g_assert_true (snodo_server_remove_hook (fixture->pipe.server, ids[0]));
  g_assert_true (snodo_server_remove_hook (fixture->pipe.server, ids[1]));
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
    { "order", test_order },
    { "reject", test_reject },
    { "annotate", test_annotate },
    { "answer", test_answer },
    { "remove", test_remove },
    { "unchanged", test_unchanged },
  };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    for (guint j = 0; j < G_N_ELEMENTS (tests); j++)
      {
        g_autofree char *path = g_strdup_printf ("/hooks/%s/%s", eras[i].era, tests[j].name);

        g_test_add (path, Fixture, GINT_TO_POINTER (eras[i].modern), fixture_set_up, tests[j].func,
                    fixture_tear_down);
      }

  return g_test_run ();
}
