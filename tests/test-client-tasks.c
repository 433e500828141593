/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient's tasks API against snodo-demo --task-store=memory (its
 * tool job), through real pipes (stdio) and a real socket (HTTP), in
 * 2025-11-25 and 2026-07-28: a call as a task, tasks/get, the wait for the
 * result with the task's question answered by the application, the status
 * notifications, tasks/cancel and tasks/list; and 2025-06-18, which has no
 * tasks. */

#include "config.h"

#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  gboolean http;
  SnodoProtocolVersion version;
} Case;

typedef struct
{
  GSubprocess *demo;
  char *uri;
  SnodoClient *client;
  /* The application's answers to the task's question. */
  guint asked;
  /* The task-status signals: the statuses seen of the task followed. */
  char *followed;
  GPtrArray *statuses;
  gboolean followed_ended;
} Fixture;

static gboolean
server_request_cb (SnodoClient        *client,
                   SnodoServerRequest *request,
                   gpointer            user_data)
{
  Fixture *fixture = user_data;
  g_autoptr(JsonObject) answer = snodo_test_parse_object ("{\"action\":\"accept\",\"content\":{\"continue\":true}}");

  g_assert_cmpstr (snodo_server_request_get_method (request), ==, "elicitation/create");
  fixture->asked++;
  snodo_server_request_return_result (request, answer);
  return TRUE;
}

static void
task_status_cb (SnodoClient *client,
                JsonObject  *task,
                gpointer     user_data)
{
  Fixture *fixture = user_data;
  const char *status = json_object_get_string_member_with_default (task, "status", "");

  g_assert_false (json_object_has_member (task, "_meta"));
  if (g_strcmp0 (json_object_get_string_member_with_default (task, "taskId", NULL), fixture->followed) != 0)
    return;
  g_ptr_array_add (fixture->statuses, g_strdup (status));
  if (g_str_equal (status, "completed") || g_str_equal (status, "failed") || g_str_equal (status, "cancelled"))
    fixture->followed_ended = TRUE;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  const Case *test_case = data;
  const char *extra[] = { "--task-store=memory", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"elicitation\":{}}");

  if (test_case->http)
    {
      fixture->demo = snodo_test_demo_http_start (extra, &fixture->uri);
      fixture->client = snodo_client_new_for_uri (fixture->uri, &error);
    }
  else
    {
      const char *argv[] = { g_getenv ("SNODO_DEMO"), "--task-store=memory", NULL };

      g_assert_nonnull (argv[0]);
      fixture->client = snodo_client_new_for_argv (argv, &error);
    }
  g_assert_no_error (error);
  snodo_client_set_pinned_version (fixture->client, test_case->version);
  snodo_client_set_capabilities (fixture->client, capabilities);
  g_signal_connect (fixture->client, "server-request::elicitation/create", G_CALLBACK (server_request_cb), fixture);
  g_signal_connect (fixture->client, "task-status", G_CALLBACK (task_status_cb), fixture);
  fixture->statuses = g_ptr_array_new_with_free_func (g_free);

  snodo_client_connect_async (fixture->client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_connect_finish (fixture->client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (fixture->client), ==, test_case->version);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_close_client (fixture->client);
  g_clear_object (&fixture->client);
  if (fixture->demo != NULL)
    snodo_test_demo_stop (fixture->demo);
  g_clear_object (&fixture->demo);
  g_clear_pointer (&fixture->uri, g_free);
  g_clear_pointer (&fixture->followed, g_free);
  g_clear_pointer (&fixture->statuses, g_ptr_array_unref);
}

static JsonObject *
call_as_task (SnodoClient *client,
              const char  *arguments)
{
  g_autoptr(JsonObject) args = snodo_test_parse_object (arguments);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *task;

  snodo_client_call_tool_as_task_async (client, "job", args, 0, NULL, snodo_test_store_result_cb, &result);
  task = snodo_client_call_tool_as_task_finish (client, snodo_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (task);
  g_assert_true (json_object_has_member (task, "taskId"));
  g_assert_false (json_object_has_member (task, "resultType"));
  return task;
}

static JsonObject *
get_task (SnodoClient *client,
          const char  *task_id,
          GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  snodo_client_get_task_async (client, task_id, NULL, snodo_test_store_result_cb, &result);
  return snodo_client_get_task_finish (client, snodo_test_wait_result (&result), error);
}

static JsonObject *
get_task_result (SnodoClient *client,
                 const char  *task_id,
                 GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  snodo_client_get_task_result_async (client, task_id, NULL, snodo_test_store_result_cb, &result);
  return snodo_client_get_task_result_finish (client, snodo_test_wait_result (&result), error);
}

static gboolean
has_status (GPtrArray  *statuses,
            const char *status)
{
  for (guint i = 0; i < statuses->len; i++)
    if (g_str_equal (g_ptr_array_index (statuses, i), status))
      return TRUE;
  return FALSE;
}

/* A task that asks half-way, answered by the application, then its result. */
static void
test_result (Fixture       *fixture,
             gconstpointer  data)
{
  const Case *test_case = data;
  gboolean modern = test_case->version == SNODO_PROTOCOL_VERSION_2026_07_28;
  g_autoptr(JsonObject) task = NULL;
  g_autoptr(JsonObject) now = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *task_id;
  const char *status;

  task = call_as_task (fixture->client, "{\"steps\":2,\"step_ms\":300}");
  task_id = json_object_get_string_member (task, "taskId");
  g_assert_cmpstr (json_object_get_string_member (task, "status"), ==, "working");
  /* Each era names the poll interval its way. */
  g_assert_true (json_object_has_member (task, modern ? "pollIntervalMs" : "pollInterval"));
  g_assert_false (json_object_has_member (task, modern ? "pollInterval" : "pollIntervalMs"));
  fixture->followed = g_strdup (task_id);

  now = get_task (fixture->client, task_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (now, "taskId"), ==, task_id);
  status = json_object_get_string_member (now, "status");
  g_assert_true (g_str_equal (status, "working") || g_str_equal (status, "input_required"));

  result = get_task_result (fixture->client, task_id, &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (result);
  /* The question was answered "go on": all the steps ran. */
  g_assert_cmpstr (text, ==, "job done: 2 steps");
  g_assert_cmpuint (fixture->asked, ==, 1);
  g_assert_false (json_object_has_member (result, "resultType"));

  g_clear_pointer (&now, json_object_unref);
  now = get_task (fixture->client, task_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (now, "status"), ==, "completed");

  if (!modern)
    {
      /* 2025-11-25 tells of every change unasked. */
      g_assert_true (snodo_test_wait_for (&fixture->followed_ended, 10000));
      g_assert_true (has_status (fixture->statuses, "input_required"));
      g_assert_true (has_status (fixture->statuses, "completed"));
    }
  else
    /* 2026-07-28 tells only a subscription that named the task. */
    g_assert_cmpuint (fixture->statuses->len, ==, 0);

  g_clear_pointer (&now, json_object_unref);
  now = get_task (fixture->client, "no-such-task", &error);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_assert_null (now);
}

/* 2026-07-28: notifications/tasks on a subscription naming the task. */
static void
test_listen (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(JsonObject) task = NULL;
  g_autoptr(JsonObject) notifications = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) listened = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *filter = NULL;
  g_autofree char *text = NULL;

  task = call_as_task (fixture->client, "{\"steps\":3,\"step_ms\":700,\"ask\":false}");
  fixture->followed = g_strdup (json_object_get_string_member (task, "taskId"));
  filter = g_strdup_printf ("{\"taskIds\":[\"%s\"]}", fixture->followed);
  notifications = snodo_test_parse_object (filter);
  snodo_client_listen_async (fixture->client, notifications, cancellable, snodo_test_store_result_cb, &listened);

  g_assert_true (snodo_test_wait_for (&fixture->followed_ended, 15000));
  g_assert_cmpstr (g_ptr_array_index (fixture->statuses, fixture->statuses->len - 1), ==, "completed");

  g_cancellable_cancel (cancellable);
  g_assert_null (snodo_client_listen_finish (fixture->client, snodo_test_wait_result (&listened), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  result = get_task_result (fixture->client, fixture->followed, &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (result);
  g_assert_cmpstr (text, ==, "job done: 3 steps");
  g_assert_cmpuint (fixture->asked, ==, 0);
}

/* tasks/cancel, and tasks/list where it exists. */
static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  const Case *test_case = data;
  gboolean modern = test_case->version == SNODO_PROTOCOL_VERSION_2026_07_28;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) now = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(JsonArray) tasks = NULL;
  g_autoptr(GAsyncResult) cancelled = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GError) error = NULL;
  const char *task_id;

  first = call_as_task (fixture->client, "{\"steps\":100,\"step_ms\":60000}");
  second = call_as_task (fixture->client, "{\"steps\":100,\"step_ms\":60000}");
  task_id = json_object_get_string_member (first, "taskId");
  g_assert_cmpstr (task_id, !=, json_object_get_string_member (second, "taskId"));

  snodo_client_cancel_task_async (fixture->client, task_id, NULL, snodo_test_store_result_cb, &cancelled);
  g_assert_true (snodo_client_cancel_task_finish (fixture->client, snodo_test_wait_result (&cancelled), &error));
  g_assert_no_error (error);

  now = get_task (fixture->client, task_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (now, "status"), ==, "cancelled");

  result = get_task_result (fixture->client, task_id, &error);
  g_assert_null (result);
  g_assert_nonnull (error);
  if (modern)
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  snodo_client_list_tasks_async (fixture->client, NULL, snodo_test_store_result_cb, &listed);
  tasks = snodo_client_list_tasks_finish (fixture->client, snodo_test_wait_result (&listed), &error);
  if (modern)
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_null (tasks);
      g_clear_error (&error);
    }
  else
    {
      gboolean found_first = FALSE, found_second = FALSE;

      g_assert_no_error (error);
      for (guint i = 0; i < json_array_get_length (tasks); i++)
        {
          JsonObject *listed_task = json_array_get_object_element (tasks, i);
          const char *id = json_object_get_string_member (listed_task, "taskId");

          found_first |= g_str_equal (id, task_id);
          found_second |= g_str_equal (id, json_object_get_string_member (second, "taskId"));
        }
      g_assert_true (found_first);
      g_assert_true (found_second);
    }

  /* The other one is still running; cancel it so that the demo ends fast. */
  g_clear_object (&cancelled);
  snodo_client_cancel_task_async (fixture->client, json_object_get_string_member (second, "taskId"), NULL,
                                  snodo_test_store_result_cb, &cancelled);
  g_assert_true (snodo_client_cancel_task_finish (fixture->client, snodo_test_wait_result (&cancelled), &error));
  g_assert_no_error (error);
}

/* Capabilities that declare the tasks extension (or, in 2025-11-25, the
 * tasks capability) for every request: a plain call still gets the tool's
 * result, not a task it would not wait for. */
static void
test_plain_call (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object (
    "{\"elicitation\":{},\"tasks\":{\"requests\":{\"tools\":{\"call\":{}}}},"
    "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}");
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"steps\":2,\"step_ms\":1,\"ask\":false}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;

  snodo_client_set_capabilities (fixture->client, capabilities);
  snodo_client_call_tool_async (fixture->client, "job", args, NULL, snodo_test_store_result_cb, &result);
  answer = snodo_client_call_tool_finish (fixture->client, snodo_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (answer);
  g_assert_false (json_object_has_member (answer, "task"));
  g_assert_true (json_object_has_member (answer, "content"));
  g_assert_false (json_object_get_boolean_member_with_default (answer, "isError", FALSE));
}

/* 2025-06-18 has no tasks. */
static void
test_no_tasks (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"steps\":1,\"step_ms\":1,\"ask\":false}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) got = NULL;
  g_autoptr(GError) error = NULL;

  snodo_client_call_tool_as_task_async (fixture->client, "job", args, 0, NULL, snodo_test_store_result_cb, &result);
  g_assert_null (snodo_client_call_tool_as_task_finish (fixture->client, snodo_test_wait_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  snodo_client_get_task_async (fixture->client, "x", NULL, snodo_test_store_result_cb, &got);
  g_assert_null (snodo_client_get_task_finish (fixture->client, snodo_test_wait_result (&got), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
}

static const Case cases[] = {
  { FALSE, SNODO_PROTOCOL_VERSION_2025_11_25 },
  { FALSE, SNODO_PROTOCOL_VERSION_2026_07_28 },
  { TRUE, SNODO_PROTOCOL_VERSION_2025_11_25 },
  { TRUE, SNODO_PROTOCOL_VERSION_2026_07_28 },
};

int
main (int   argc,
      char *argv[])
{
  static const Case old_stdio = { FALSE, SNODO_PROTOCOL_VERSION_2025_06_18 };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *transport = cases[i].http ? "http" : "stdio";
      const char *version = snodo_protocol_version_to_string (cases[i].version);
      g_autofree char *result_path = g_strdup_printf ("/client-tasks/%s/%s/result", transport, version);
      g_autofree char *cancel_path = g_strdup_printf ("/client-tasks/%s/%s/cancel", transport, version);

      g_test_add (result_path, Fixture, &cases[i], fixture_set_up, test_result, fixture_tear_down);
      g_test_add (cancel_path, Fixture, &cases[i], fixture_set_up, test_cancel, fixture_tear_down);
      {
        g_autofree char *plain_path = g_strdup_printf ("/client-tasks/%s/%s/plain-call", transport, version);

        g_test_add (plain_path, Fixture, &cases[i], fixture_set_up, test_plain_call, fixture_tear_down);
      }
      if (cases[i].version == SNODO_PROTOCOL_VERSION_2026_07_28)
        {
          g_autofree char *listen_path = g_strdup_printf ("/client-tasks/%s/%s/listen", transport, version);

          g_test_add (listen_path, Fixture, &cases[i], fixture_set_up, test_listen, fixture_tear_down);
        }
    }
  g_test_add ("/client-tasks/stdio/2025-06-18/none", Fixture, &old_stdio, fixture_set_up, test_no_tasks,
              fixture_tear_down);

  return g_test_run ();
}
