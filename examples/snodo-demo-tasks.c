/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * snodo-demo --task-store=memory|file: tasks, and the tool job.
 *
 *   job {steps?: integer, step_ms?: integer, ask?: boolean}
 *                          a long job: steps steps (default 10, at most
 *                          1000) of step_ms milliseconds each (default
 *                          1000, at most 60000), reporting progress after
 *                          each; half-way, if ask (the default), it asks
 *                          the user whether to go on (input named
 *                          "continue"). Then the text "job done: <n>
 *                          steps", or "job stopped after <n> steps" when
 *                          the user did not accept. Cancellable at any
 *                          time. Its calls run as tasks when the client
 *                          can take one (task-support optional); the same
 *                          handler serves a plain call.
 *
 * "file" keeps the tasks in $XDG_STATE_HOME/snodo-demo/tasks, so that the
 * result of a finished task can be fetched after snodo-demo restarts.
 */

#include "config.h"

#include <snodo/snodo.h>

#include "snodo-demo-tasks.h"

typedef struct
{
  SnodoInvocation *invocation;
  guint            steps;
  guint            step_ms;
  gboolean         ask;
  guint            done;
  guint            source;
  gulong           cancelled_id;
  gboolean         asked;
} Job;

static void job_step (Job *job);

static void
job_end (Job        *job,
         const char *text)
{
  SnodoInvocation *invocation = job->invocation;

  g_clear_handle_id (&job->source, g_source_remove);
  g_cancellable_disconnect (snodo_invocation_get_cancellable (invocation), job->cancelled_id);
  g_free (job);
  if (text == NULL)
    snodo_invocation_return_tool_error (invocation, "The job was cancelled");
  else
    snodo_invocation_return_text (invocation, text);
}

static gboolean
job_cancelled_idle_cb (gpointer data)
{
  job_end (data, NULL);
  return G_SOURCE_REMOVE;
}

/* On the main context, where the handler runs. */
static void
job_cancelled_cb (GCancellable *cancellable,
                  gpointer      data)
{
  Job *job = data;

  g_clear_handle_id (&job->source, g_source_remove);
  /* An answer to the question may still come: it finds the job gone. */
  job->ask = FALSE;
  g_idle_add (job_cancelled_idle_cb, job);
}

static void
job_answered_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  Job *job = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (invocation, result, &error);
  JsonObject *object_answer;
  JsonNode *content;
  gboolean go_on = FALSE;

  if (answer == NULL)
    {
      if (g_cancellable_is_cancelled (snodo_invocation_get_cancellable (invocation)))
        return;  /* job_cancelled_cb ends it */
      g_clear_handle_id (&job->source, g_source_remove);
      g_cancellable_disconnect (snodo_invocation_get_cancellable (invocation), job->cancelled_id);
      g_free (job);
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  object_answer = json_node_get_object (answer);
  content = json_object_get_member (object_answer, "content");
  if (g_strcmp0 (json_object_get_string_member_with_default (object_answer, "action", ""), "accept") == 0)
    go_on = content == NULL || !JSON_NODE_HOLDS_OBJECT (content) ||
            json_object_get_boolean_member_with_default (json_node_get_object (content), "continue", TRUE);
  if (!go_on)
    {
      g_autofree char *text = g_strdup_printf ("job stopped after %u steps", job->done);

      job_end (job, text);
      return;
    }
  job_step (job);
}

static gboolean
job_timeout_cb (gpointer data)
{
  Job *job = data;

  job->source = 0;
  job->done++;
  snodo_invocation_report_progress (job->invocation, job->done, job->steps, "working");
  if (job->done >= job->steps)
    {
      g_autofree char *text = g_strdup_printf ("job done: %u steps", job->steps);

      job_end (job, text);
      return G_SOURCE_REMOVE;
    }
  if (job->ask && !job->asked && job->done * 2 >= job->steps)
    {
      g_autoptr(JsonNode) params = json_from_string ("{\"message\":\"The job is half done. Go on?\","
                                                     "\"requestedSchema\":{\"type\":\"object\",\"properties\":"
                                                     "{\"continue\":{\"type\":\"boolean\"}},"
                                                     "\"required\":[\"continue\"]}}", NULL);

      job->asked = TRUE;
      snodo_invocation_request_input_async (job->invocation, "continue", "elicitation/create", params, NULL,
                                            job_answered_cb, job);
      return G_SOURCE_REMOVE;
    }
  job_step (job);
  return G_SOURCE_REMOVE;
}

static void
job_step (Job *job)
{
  job->source = g_timeout_add (job->step_ms, job_timeout_cb, job);
}

static gint64
get_int (JsonObject *arguments,
         const char *name,
         gint64      fallback,
         gint64      max)
{
  JsonNode *node = json_object_get_member (arguments, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return fallback;
  return CLAMP (json_node_get_int (node), 1, max);
}

static void
job_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  Job *job = g_new0 (Job, 1);

  job->invocation = invocation;
  job->steps = (guint) get_int (arguments, "steps", 10, 1000);
  job->step_ms = (guint) get_int (arguments, "step_ms", 1000, 60000);
  job->ask = json_object_get_boolean_member_with_default (arguments, "ask", TRUE);
  job->cancelled_id = g_cancellable_connect (snodo_invocation_get_cancellable (invocation),
                                             G_CALLBACK (job_cancelled_cb), job, NULL);
  if (job->cancelled_id == 0)
    return;  /* cancelled already: job_cancelled_cb ran */
  job_step (job);
}

gboolean
demo_add_tasks (SnodoServer  *server,
                const char   *store_kind,
                GError      **error)
{
  g_autoptr(SnodoTaskStore) store = NULL;
  g_autoptr(SnodoTool) tool = snodo_tool_new ("job", "A long job in steps, with progress, that asks half-way "
                                              "whether to go on; it runs as a task when the client can take one");

  if (g_str_equal (store_kind, "file"))
    {
      store = snodo_task_store_new_for_application ("snodo-demo", error);
      if (store == NULL)
        return FALSE;
    }
  else if (!g_str_equal (store_kind, "memory"))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--task-store is memory or file, not “%s”", store_kind);
      return FALSE;
    }
  if (!snodo_server_enable_tasks (server, store, error))
    return FALSE;

  snodo_tool_set_task_support (tool, SNODO_TASK_SUPPORT_OPTIONAL);
  if (!snodo_tool_set_input_schema_from_string (tool,
                                                "{\"type\":\"object\",\"properties\":{"
                                                "\"steps\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},"
                                                "\"step_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":60000},"
                                                "\"ask\":{\"type\":\"boolean\"}}}",
                                                error))
    return FALSE;
  return snodo_server_add_tool (server, tool, job_cb, NULL, NULL, error);
}
