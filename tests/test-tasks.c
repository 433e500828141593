/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * Tasks: the two task stores (bounds, eviction, refusal, time to live,
 * atomic files, restart), the handler's cancellable fired by tasks/cancel,
 * a full store refusing a task, results that survive a restart of
 * snodo-demo --task-store=file, and a flood of tasks against the memory
 * store, whose memory must stay bounded.
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <snodo/snodo.h>

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

#define TIMEOUT_MS 10000
#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}," \
                    "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}"

static JsonNode *
record (const char *id,
        const char *status,
        gsize       padding)
{
  g_autofree char *pad = g_strnfill (padding, 'x');
  g_autofree char *json = g_strdup_printf ("{\"taskId\":\"%s\",\"status\":\"%s\",\"pad\":\"%s\"}", id, status, pad);

  return snodo_test_parse (json);
}

static gboolean
save (SnodoTaskStore *store,
      const char     *id,
      const char     *status,
      gsize           padding,
      GError        **error)
{
  g_autoptr(JsonNode) node = record (id, status, padding);

  return snodo_task_store_save (store, id, node, g_get_real_time () + (gint64) G_USEC_PER_SEC * 3600, error);
}

static const char *
loaded_status (SnodoTaskStore *store,
               const char     *id)
{
  g_autoptr(JsonNode) node = snodo_task_store_load (store, id);
  static char status[32];

  if (node == NULL)
    return NULL;
  g_strlcpy (status, json_object_get_string_member (json_node_get_object (node), "status"), sizeof status);
  return status;
}

/* Full of running tasks: refused; a finished one is evicted first, the
 * oldest first. */
static void
check_count_bound (SnodoTaskStore *store)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (save (store, "a", "working", 10, NULL));
  g_assert_true (save (store, "b", "working", 10, NULL));
  g_assert_true (save (store, "c", "working", 10, NULL));
  g_assert_false (save (store, "d", "working", 10, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  /* Updating a kept task is not adding one. */
  g_assert_true (save (store, "b", "completed", 10, NULL));
  g_assert_true (save (store, "a", "completed", 10, NULL));
  g_assert_true (save (store, "d", "working", 10, NULL));
  /* a and b finished; a was stored first. */
  g_assert_null (loaded_status (store, "a"));
  g_assert_cmpstr (loaded_status (store, "b"), ==, "completed");
  g_assert_cmpstr (loaded_status (store, "c"), ==, "working");
  g_assert_cmpstr (loaded_status (store, "d"), ==, "working");
  snodo_task_store_remove (store, "d");
  g_assert_null (loaded_status (store, "d"));
}

static void
test_memory_count (void)
{
  g_autoptr(SnodoTaskStore) store = snodo_task_store_new_memory (3, 0);

  check_count_bound (store);
}

static void
test_memory_bytes_and_ttl (void)
{
  g_autoptr(SnodoTaskStore) store = snodo_task_store_new_memory (0, 1000);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) old = record ("old", "completed", 10);

  g_assert_true (save (store, "big", "working", 600, NULL));
  g_assert_false (save (store, "big2", "working", 600, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  g_assert_true (save (store, "big", "completed", 600, NULL));
  g_assert_true (save (store, "big2", "working", 600, NULL));
  g_assert_null (loaded_status (store, "big"));

  /* Never kept past its time to live. */
  g_assert_true (snodo_task_store_save (store, "old", old, g_get_real_time () - 1, NULL));
  g_assert_null (loaded_status (store, "old"));
}

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("snodo-tasks-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_dir (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_dir (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
test_file_store (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoTaskStore) store = snodo_task_store_new_file (dir, 3, 0, &error);
  g_autoptr(SnodoTaskStore) again = NULL;
  g_autoptr(GDir) listing = NULL;
  g_autoptr(JsonNode) evil = record ("x", "working", 1);
  const char *name;
  guint n = 0;

  g_assert_no_error (error);
  check_count_bound (store);

  /* Ids that are not names of files in the directory are not taken. */
  g_assert_false (snodo_task_store_save (store, "../escape", evil, g_get_real_time () + G_USEC_PER_SEC, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (snodo_task_store_load (store, "../escape"));

  /* One whole JSON file a task, no temporary file left. */
  listing = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *text = NULL;
      g_autoptr(JsonNode) node = NULL;

      g_assert_true (g_str_has_suffix (name, ".json"));
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      node = snodo_test_parse (text);
      g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
      n++;
    }
  g_assert_cmpuint (n, ==, 2);

  /* Another store on the directory (the application started again): the
   * finished task is there; the one that was running failed with it. */
  g_clear_object (&store);
  again = snodo_task_store_new_file (dir, 3, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (loaded_status (again, "b"), ==, "completed");
  g_assert_cmpstr (loaded_status (again, "c"), ==, "failed");
  g_assert_null (loaded_status (again, "a"));

  remove_dir (dir);
}

/* tasks/cancel reaches the handler's cancellable. */

typedef struct
{
  gboolean   cancelled;
  gboolean   started;
  GPtrArray *invocations;
} Waiting;

static void
cancelled_cb (GCancellable *cancellable,
              gpointer      data)
{
  Waiting *waiting = data;

  waiting->cancelled = TRUE;
}

static void
waiting_cb (SnodoInvocation *invocation,
            gpointer         user_data)
{
  Waiting *waiting = user_data;

  g_assert_true (snodo_invocation_is_task (invocation));
  g_ptr_array_add (waiting->invocations, invocation);
  if (waiting->invocations->len == 1)
    g_cancellable_connect (snodo_invocation_get_cancellable (invocation), G_CALLBACK (cancelled_cb), waiting, NULL);
  waiting->started = TRUE;
}

static void
plain_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  snodo_invocation_return_text (invocation, snodo_invocation_is_task (invocation) ? "task" : "plain");
}

static JsonNode *
call (SnodoTestPipe *pipe,
      const char    *tool,
      const char    *meta)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                                           "\"params\":{\"name\":\"%s\",\"arguments\":{},%s}}\n",
                                           pipe->next_id++, tool, meta);

  snodo_test_pipe_write (pipe, line);
  return snodo_test_pipe_read (pipe);
}

static char *
create_task (SnodoTestPipe *pipe,
             const char    *tool,
             gint64        *error_code)
{
  g_autoptr(JsonNode) answer = call (pipe, tool, MODERN_META);
  JsonObject *result;

  *error_code = test_message_get_error_code (answer);
  if (*error_code != 0)
    return NULL;
  result = json_object_get_object_member (json_node_get_object (answer), "result");
  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "task");
  return g_strdup (json_object_get_string_member (result, "taskId"));
}

static JsonObject *
task_request (SnodoTestPipe *pipe,
              const char    *method,
              const char    *task_id)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\","
                                           "\"params\":{\"taskId\":\"%s\"," MODERN_META "}}\n",
                                           pipe->next_id++, method, task_id);
  g_autoptr(JsonNode) answer = NULL;

  snodo_test_pipe_write (pipe, line);
  answer = snodo_test_pipe_read (pipe);
  g_assert_cmpint (test_message_get_error_code (answer), ==, 0);
  return json_object_ref (json_object_get_object_member (json_node_get_object (answer), "result"));
}

/* Counts the answers the hooks see that are tasks. */
static void
task_answer_hook (SnodoInvocation *invocation,
                  JsonNode        *answer,
                  gpointer         user_data)
{
  guint *tasks_seen = user_data;
  JsonNode *result = json_object_get_member (json_node_get_object (answer), "result");

  if (result != NULL && g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (result),
                                                                               "resultType", ""), "task") == 0)
    (*tasks_seen)++;
}

static void
test_cancel_reaches_handler (void)
{
  guint tasks_seen = 0;
  SnodoTestPipe pipe;
  Waiting waiting = { 0, };
  g_autoptr(SnodoTool) tool = snodo_tool_new ("wait", "Waits until cancelled");
  g_autoptr(SnodoTool) plain = snodo_tool_new ("plain", "Says whether it is a task");
  g_autoptr(SnodoTaskStore) store = snodo_task_store_new_memory (2, 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *id2 = NULL;
  g_autofree char *id3 = NULL;
  g_autofree char *id4 = NULL;
  g_autoptr(JsonObject) ack = NULL;
  g_autoptr(JsonObject) got = NULL;
  g_autoptr(JsonNode) plain_answer = NULL;
  gint64 code = 0;

  waiting.invocations = g_ptr_array_new ();
  snodo_test_pipe_set_up (&pipe);
  g_assert_true (snodo_server_enable_tasks (pipe.server, store, &error));
  g_assert_false (snodo_server_enable_tasks (pipe.server, NULL, NULL));
  snodo_tool_set_task_support (tool, SNODO_TASK_SUPPORT_REQUIRED);
  g_assert_true (snodo_server_add_tool (pipe.server, tool, waiting_cb, &waiting, NULL, &error));
  g_object_set (plain, "task-support", SNODO_TASK_SUPPORT_OPTIONAL, NULL);
  g_assert_true (snodo_server_add_tool (pipe.server, plain, plain_cb, NULL, NULL, &error));
  snodo_server_add_answer_hook (pipe.server, task_answer_hook, &tasks_seen, NULL);

  /* The same handler, as a plain call when the client cannot take a
   * task. */
  plain_answer = call (&pipe, "plain", "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                                       "\"io.modelcontextprotocol/clientCapabilities\":{}}");
  g_assert_cmpstr (test_message_get_text (plain_answer), ==, "plain");

  id = create_task (&pipe, "wait", &code);
  g_assert_nonnull (id);
  /* Answer hooks see the task as the answer written. */
  g_assert_cmpuint (tasks_seen, ==, 1);
  g_assert_true (snodo_test_wait_for (&waiting.started, TIMEOUT_MS));
  ack = task_request (&pipe, "tasks/cancel", id);
  g_assert_false (json_object_has_member (ack, "taskId"));
  g_assert_true (snodo_test_wait_for (&waiting.cancelled, TIMEOUT_MS));
  got = task_request (&pipe, "tasks/get", id);
  g_assert_cmpstr (json_object_get_string_member (got, "status"), ==, "cancelled");
  /* The handler answers after all; the answer goes nowhere. */
  snodo_invocation_return_text (g_ptr_array_index (waiting.invocations, 0), "too late");
  g_clear_pointer (&got, json_object_unref);
  got = task_request (&pipe, "tasks/get", id);
  g_assert_cmpstr (json_object_get_string_member (got, "status"), ==, "cancelled");

  /* Two running tasks fill the store (the cancelled one is forgotten to
   * make room); a third is refused with -32010. */
  waiting.started = FALSE;
  id2 = create_task (&pipe, "wait", &code);
  g_assert_nonnull (id2);
  g_assert_true (snodo_test_wait_for (&waiting.started, TIMEOUT_MS));
  waiting.started = FALSE;
  id3 = create_task (&pipe, "wait", &code);
  g_assert_nonnull (id3);
  g_assert_true (snodo_test_wait_for (&waiting.started, TIMEOUT_MS));
  id4 = create_task (&pipe, "wait", &code);
  g_assert_null (id4);
  g_assert_cmpint (code, ==, -32010);

  /* Answered, they complete, and their results are kept. */
  snodo_invocation_return_text (g_ptr_array_index (waiting.invocations, 1), "second");
  snodo_invocation_return_text (g_ptr_array_index (waiting.invocations, 2), "third");
  for (guint i = 0; i < 100; i++)
    {
      g_clear_pointer (&got, json_object_unref);
      got = task_request (&pipe, "tasks/get", id3);
      if (g_str_equal (json_object_get_string_member (got, "status"), "completed"))
        break;
      g_usleep (10 * 1000);
    }
  g_assert_cmpstr (json_object_get_string_member (got, "status"), ==, "completed");
  g_assert_true (json_object_has_member (got, "result"));

  snodo_test_pipe_tear_down (&pipe);
  g_ptr_array_unref (waiting.invocations);
}

/* 2025-11-25: tasks/list shows a client the tasks made on its own
 * connection only, as task ids are all that guards a task. */

static void
initialize_legacy (SnodoTestPipe *pipe)
{
  g_autoptr(JsonNode) answer = NULL;

  snodo_test_pipe_write (pipe, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                               "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n");
  answer = snodo_test_pipe_read (pipe);
  g_assert_cmpint (test_message_get_error_code (answer), ==, 0);
  snodo_test_pipe_write (pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
}

/* A legacy task of tool plain; the status notification and the answer
 * come in either order. */
static char *
legacy_task (SnodoTestPipe *pipe)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                                           "\"params\":{\"name\":\"plain\",\"arguments\":{},\"task\":{}}}\n",
                                           pipe->next_id++);

  snodo_test_pipe_write (pipe, line);
  for (;;)
    {
      g_autoptr(JsonNode) message = snodo_test_pipe_read (pipe);
      JsonObject *object = json_node_get_object (message);

      if (json_object_has_member (object, "result"))
        return g_strdup (json_object_get_string_member (
          json_object_get_object_member (json_object_get_object_member (object, "result"), "task"), "taskId"));
    }
}

static GPtrArray *
legacy_list (SnodoTestPipe *pipe)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tasks/list\"}\n",
                                           pipe->next_id++);
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);

  snodo_test_pipe_write (pipe, line);
  for (;;)
    {
      g_autoptr(JsonNode) message = snodo_test_pipe_read (pipe);
      JsonObject *object = json_node_get_object (message);
      JsonArray *tasks;

      if (!json_object_has_member (object, "result"))
        continue;  /* a status notification */
      tasks = json_object_get_array_member (json_object_get_object_member (object, "result"), "tasks");
      for (guint i = 0; i < json_array_get_length (tasks); i++)
        g_ptr_array_add (ids, g_strdup (json_object_get_string_member (json_array_get_object_element (tasks, i),
                                                                       "taskId")));
      return ids;
    }
}

/* The message of the error answering @method for @task_id, or NULL when it
 * was answered with a result. */
static char *
legacy_error_message (SnodoTestPipe *pipe,
                      const char    *method,
                      const char    *task_id)
{
  gint64 id = pipe->next_id++;
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\","
                                           "\"params\":{\"taskId\":\"%s\"}}\n", id, method, task_id);

  snodo_test_pipe_write (pipe, line);
  for (;;)
    {
      g_autoptr(JsonNode) message = snodo_test_pipe_read (pipe);
      JsonObject *object = json_node_get_object (message);

      if (!json_object_has_member (object, "id") || json_object_get_int_member (object, "id") != id)
        continue;  /* a status notification */
      if (!json_object_has_member (object, "error"))
        return NULL;
      g_assert_cmpint (test_message_get_error_code (message), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
      return g_strdup (json_object_get_string_member (json_object_get_object_member (object, "error"), "message"));
    }
}

static void
test_list_own (void)
{
  SnodoTestPipe a, b;
  g_autoptr(SnodoTool) plain = snodo_tool_new ("plain", "Says whether it is a task");
  g_autoptr(GError) error = NULL;
  g_autofree char *mine = NULL;
  g_autofree char *theirs = NULL;
  g_autoptr(GPtrArray) listed_a = NULL;
  g_autoptr(GPtrArray) listed_b = NULL;

  snodo_test_pipe_set_up (&a);
  snodo_test_pipe_set_up_for (&b, a.server);
  g_assert_true (snodo_server_enable_tasks (a.server, NULL, &error));
  snodo_tool_set_task_support (plain, SNODO_TASK_SUPPORT_OPTIONAL);
  g_assert_true (snodo_server_add_tool (a.server, plain, plain_cb, NULL, NULL, &error));
  initialize_legacy (&a);
  initialize_legacy (&b);

  mine = legacy_task (&a);
  theirs = legacy_task (&b);
  listed_a = legacy_list (&a);
  listed_b = legacy_list (&b);
  g_assert_cmpuint (listed_a->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (listed_a, 0), ==, mine);
  g_assert_cmpuint (listed_b->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (listed_b, 0), ==, theirs);

  /* A task belongs to its connection: the other one is told there is no
   * such task, in the words it gets for an id that never existed. */
  {
    const char *methods[] = { "tasks/get", "tasks/result", "tasks/cancel", NULL };

    for (guint i = 0; methods[i] != NULL; i++)
      {
        g_autofree char *message = legacy_error_message (&b, methods[i], mine);
        g_autofree char *unknown = legacy_error_message (&b, methods[i], "00000000000000000000000000000000");
        g_autofree char *expected = g_strdup_printf ("Invalid params: no task %s", mine);

        g_assert_cmpstr (message, ==, expected);
        g_assert_cmpstr (unknown, ==, "Invalid params: no task 00000000000000000000000000000000");
      }
    /* Its own connection still reaches it. */
    g_assert_null (legacy_error_message (&a, "tasks/get", mine));
  }

  /* Nor does a 2026-07-28 listener hear of it. */
  {
    SnodoTestPipe c;
    g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"sub\",\"method\":\"subscriptions/listen\","
                                             "\"params\":{\"notifications\":{\"taskIds\":[\"%s\"]}," MODERN_META "}}\n",
                                             mine);
    g_autoptr(JsonNode) ack = NULL;
    JsonObject *params;

    snodo_test_pipe_set_up_for (&c, a.server);
    snodo_test_pipe_write (&c, line);
    ack = snodo_test_pipe_read (&c);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (ack), "method"), ==,
                     "notifications/subscriptions/acknowledged");
    params = json_object_get_object_member (json_node_get_object (ack), "params");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                        json_object_get_object_member (params, "notifications"), "taskIds")), ==, 0);
    snodo_test_pipe_close (&c);
  }

  snodo_test_pipe_close (&b);
  snodo_test_pipe_tear_down (&a);
}

/* snodo-demo --task-store=file: results outlive the process. */

static char *
demo_call (TestProcess *demo,
           gint64       id,
           const char  *arguments)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                                           "\"params\":{\"name\":\"job\",\"arguments\":%s," MODERN_META "}}",
                                           id, arguments);
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *result;

  test_process_send (demo, line);
  answer = test_process_read_id (demo, id, TIMEOUT_MS);
  g_assert_nonnull (answer);
  result = json_object_get_object_member (json_node_get_object (answer), "result");
  g_assert_cmpstr (json_object_get_string_member (result, "resultType"), ==, "task");
  return g_strdup (json_object_get_string_member (result, "taskId"));
}

static JsonNode *
demo_get (TestProcess *demo,
          gint64       id,
          const char  *task_id)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tasks/get\","
                                           "\"params\":{\"taskId\":\"%s\"," MODERN_META "}}", id, task_id);

  test_process_send (demo, line);
  return test_process_read_id (demo, id, TIMEOUT_MS);
}

static void
demo_initialize_legacy (TestProcess *demo)
{
  g_autoptr(JsonNode) answer = NULL;

  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  answer = test_process_read_id (demo, 0, TIMEOUT_MS);
  g_assert_nonnull (answer);
  g_assert_cmpint (test_message_get_error_code (answer), ==, 0);
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static const char *
result_status (JsonNode *answer)
{
  JsonObject *result = json_object_get_object_member (json_node_get_object (answer), "result");

  return result != NULL ? json_object_get_string_member (result, "status") : NULL;
}

static void
test_restart (void)
{
  g_autofree char *state = make_dir ();
  g_autofree char *done = NULL;
  g_autofree char *running = NULL;
  TestProcess *demo;
  gint64 id = 1;
  gboolean completed = FALSE;

  g_setenv ("XDG_STATE_HOME", state, TRUE);
  demo = test_process_spawn_program ("SNODO_DEMO", "--task-store=file", NULL);
  done = demo_call (demo, id++, "{\"steps\":1,\"step_ms\":1,\"ask\":false}");
  running = demo_call (demo, id++, "{\"steps\":10,\"step_ms\":60000,\"ask\":false}");
  for (guint i = 0; i < 200 && !completed; i++)
    {
      g_autoptr(JsonNode) answer = demo_get (demo, id++, done);

      completed = g_strcmp0 (result_status (answer), "completed") == 0;
      if (!completed)
        g_usleep (50 * 1000);
    }
  g_assert_true (completed);
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, TIMEOUT_MS), ==, 0);
  test_process_free (demo);

  demo = test_process_spawn_program ("SNODO_DEMO", "--task-store=file", NULL);
  {
    g_autoptr(JsonNode) answer = demo_get (demo, 1, done);
    g_autoptr(JsonNode) lost = demo_get (demo, 2, running);
    JsonObject *result = json_object_get_object_member (json_node_get_object (answer), "result");

    JsonObject *inlined = json_object_get_object_member (result, "result");
    JsonArray *content = json_object_get_array_member (inlined, "content");

    g_assert_cmpstr (result_status (answer), ==, "completed");
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0), "text"),
                     ==, "job done: 1 steps");
    /* The task that ran when the process ended failed with it. */
    g_assert_cmpstr (result_status (lost), ==, "failed");
  }
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, TIMEOUT_MS), ==, 0);
  test_process_free (demo);
  g_unsetenv ("XDG_STATE_HOME");
  remove_dir (state);
}

/* A 2025-11-25 task belongs to the connection that made it: once the
 * process that made it has ended, no one reaches it, though its record is
 * still in the file store. */
static void
test_restart_legacy (void)
{
  g_autofree char *state = make_dir ();
  g_autofree char *task_id = NULL;
  TestProcess *demo;
  gboolean completed = FALSE;
  g_autoptr(JsonNode) answer = NULL;

  g_setenv ("XDG_STATE_HOME", state, TRUE);
  demo = test_process_spawn_program ("SNODO_DEMO", "--task-store=file", NULL);
  demo_initialize_legacy (demo);
  test_process_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"job\","
                           "\"arguments\":{\"steps\":1,\"step_ms\":1,\"ask\":false},\"task\":{}}}");
  answer = test_process_read_id (demo, 1, TIMEOUT_MS);
  g_assert_nonnull (answer);
  task_id = g_strdup (json_object_get_string_member (
    json_object_get_object_member (json_object_get_object_member (json_node_get_object (answer), "result"), "task"),
    "taskId"));
  g_assert_nonnull (task_id);
  for (gint64 id = 2; id < 200 && !completed; id++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tasks/get\","
                                               "\"params\":{\"taskId\":\"%s\"}}", id, task_id);
      g_autoptr(JsonNode) got = NULL;

      test_process_send (demo, line);
      got = test_process_read_id (demo, id, TIMEOUT_MS);
      completed = g_strcmp0 (result_status (got), "completed") == 0;
      if (!completed)
        g_usleep (50 * 1000);
    }
  g_assert_true (completed);
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, TIMEOUT_MS), ==, 0);
  test_process_free (demo);

  demo = test_process_spawn_program ("SNODO_DEMO", "--task-store=file", NULL);
  demo_initialize_legacy (demo);
  {
    g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/result\","
                                             "\"params\":{\"taskId\":\"%s\"}}", task_id);
    g_autoptr(JsonNode) refused = NULL;
    g_autoptr(JsonNode) modern = NULL;

    test_process_send (demo, line);
    refused = test_process_read_id (demo, 1, TIMEOUT_MS);
    g_assert_cmpint (test_message_get_error_code (refused), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
    test_process_close_stdin (demo);
    g_assert_cmpint (test_process_wait (demo, TIMEOUT_MS), ==, 0);
    test_process_free (demo);

    /* Nor through 2026-07-28, which has no session. */
    demo = test_process_spawn_program ("SNODO_DEMO", "--task-store=file", NULL);
    modern = demo_get (demo, 1, task_id);
    g_assert_cmpint (test_message_get_error_code (modern), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
  }
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, TIMEOUT_MS), ==, 0);
  test_process_free (demo);
  g_unsetenv ("XDG_STATE_HOME");
  remove_dir (state);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/tasks/memory-store/count", test_memory_count);
  g_test_add_func ("/snodo/tasks/memory-store/bytes-and-ttl", test_memory_bytes_and_ttl);
  g_test_add_func ("/snodo/tasks/file-store", test_file_store);
  g_test_add_func ("/snodo/tasks/cancel-reaches-handler", test_cancel_reaches_handler);
  g_test_add_func ("/snodo/tasks/list-own", test_list_own);
  g_test_add_func ("/snodo/tasks/restart", test_restart);
  g_test_add_func ("/snodo/tasks/restart-legacy", test_restart_legacy);

  return g_test_run ();
}
