/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * The tools of the conformance suite's tasks-* scenarios (the
 * io.modelcontextprotocol/tasks extension), with the names, arguments and
 * behaviour those scenarios call and check. Each handler is written as for
 * a plain call: Snodo runs it as a task.
 */

#include "config.h"

#include <snodo/snodo.h>

#include "snodo-conformance-tasks.h"

#define ASK_CONFIRM \
  "{\"message\":\"Delete the file?\",\"requestedSchema\":{\"type\":\"object\"," \
  "\"properties\":{\"confirm\":{\"type\":\"boolean\"}},\"required\":[\"confirm\"]}}"
#define ASK_NAME \
  "{\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\"," \
  "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}"

typedef void (*LaterFunc) (SnodoInvocation *invocation,
                           gboolean         cancelled);

/* Calls @func after @ms, or at once when the call is cancelled. */
typedef struct
{
  SnodoInvocation *invocation;
  LaterFunc        func;
  guint            source;
  gulong           cancelled_id;
} Later;

static void
later_end (Later    *later,
           gboolean  cancelled)
{
  GCancellable *cancellable = snodo_invocation_get_cancellable (later->invocation);

  g_clear_handle_id (&later->source, g_source_remove);
  g_cancellable_disconnect (cancellable, later->cancelled_id);
  later->func (later->invocation, cancelled);
  g_free (later);
}

static gboolean
later_timeout_cb (gpointer data)
{
  Later *later = data;

  later->source = 0;
  later_end (later, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
later_cancelled_idle_cb (gpointer data)
{
  later_end (data, TRUE);
  return G_SOURCE_REMOVE;
}

/* On the main context, where the handlers run (so the timeout cannot fire
 * once this ran); disconnecting is left to the idle, as doing it here
 * would deadlock. */
static void
later_cancelled_cb (GCancellable *cancellable,
                    gpointer      data)
{
  Later *later = data;

  g_clear_handle_id (&later->source, g_source_remove);
  g_idle_add (later_cancelled_idle_cb, later);
}

static void
later (SnodoInvocation *invocation,
       guint            ms,
       LaterFunc        func)
{
  Later *l = g_new0 (Later, 1);

  l->invocation = invocation;
  l->func = func;
  l->source = g_timeout_add (ms, later_timeout_cb, l);
  l->cancelled_id = g_cancellable_connect (snodo_invocation_get_cancellable (invocation),
                                           G_CALLBACK (later_cancelled_cb), l, NULL);
}

static const char *
arg_string (SnodoInvocation *invocation,
            const char      *name,
            const char      *fallback)
{
  JsonNode *node = json_object_get_member (snodo_invocation_get_arguments (invocation), name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fallback;
  return json_node_get_string (node);
}

static void
greet_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  g_autofree char *text = g_strdup_printf ("Hello, %s!", arg_string (invocation, "name", "World"));

  snodo_invocation_return_text (invocation, text);
}

static void
slow_compute_done (SnodoInvocation *invocation,
                   gboolean         cancelled)
{
  g_autofree char *text = NULL;

  if (cancelled)
    {
      snodo_invocation_return_tool_error (invocation, "cancelled");
      return;
    }
  text = g_strdup_printf ("Computed %s", arg_string (invocation, "label", "a result"));
  snodo_invocation_return_text (invocation, text);
}

static void
slow_compute_cb (SnodoInvocation *invocation,
                 gpointer         user_data)
{
  JsonNode *seconds = json_object_get_member (snodo_invocation_get_arguments (invocation), "seconds");
  double s = seconds != NULL && JSON_NODE_HOLDS_VALUE (seconds) ? json_node_get_double (seconds) : 0;

  if (s <= 0)
    slow_compute_done (invocation, FALSE);
  else
    later (invocation, (guint) (MIN (s, 3600) * 1000), slow_compute_done);
}

static void
failing_job_done (SnodoInvocation *invocation,
                  gboolean         cancelled)
{
  snodo_invocation_return_tool_error (invocation, "The job failed");
}

static void
failing_job_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  later (invocation, 1000, failing_job_done);
}

static void
protocol_error_done (SnodoInvocation *invocation,
                     gboolean         cancelled)
{
  snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                         "Internal error: the job crashed");
}

static void
protocol_error_job_cb (SnodoInvocation *invocation,
                       gpointer         user_data)
{
  later (invocation, 200, protocol_error_done);
}

static JsonObject *
finish_answer (SnodoInvocation *invocation,
               GAsyncResult    *result)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (invocation, result, &error);

  if (answer == NULL)
    {
      snodo_invocation_return_gerror (invocation, error);
      return NULL;
    }
  return json_object_ref (json_node_get_object (answer));
}

static void
confirm_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(JsonObject) answer = finish_answer (invocation, result);
  g_autofree char *text = NULL;

  if (answer == NULL)
    return;
  text = g_strdup_printf ("%s %s", g_strcmp0 (json_object_get_string_member_with_default (answer, "action", ""),
                                              "accept") == 0 ? "Deleted" : "Kept",
                          arg_string (invocation, "filename", "the file"));
  snodo_invocation_return_text (invocation, text);
}

static void
confirm_delete_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  g_autoptr(JsonNode) params = json_from_string (ASK_CONFIRM, NULL);

  snodo_invocation_request_input_async (invocation, "confirm", "elicitation/create", params, NULL,
                                        confirm_cb, NULL);
}

static void
multi_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  guint *left = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (invocation, result, &error);

  if (--*left > 0)
    return;
  g_free (left);
  snodo_invocation_return_text (invocation, "Both inputs received");
}

static void
multi_input_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  g_autoptr(JsonNode) params = json_from_string (ASK_NAME, NULL);
  guint *left = g_new (guint, 1);

  *left = 2;
  snodo_invocation_request_input_async (invocation, "first", "elicitation/create", params, NULL, multi_cb, left);
  snodo_invocation_request_input_async (invocation, "second", "elicitation/create", params, NULL, multi_cb, left);
}

/* Gathers a name in an input_required round, then turns into a task for
 * the long part, which still has the name. */
static void
with_task_name_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(JsonObject) answer = finish_answer (invocation, result);
  JsonNode *content;
  const char *name = "someone";
  g_autofree char *text = NULL;

  if (answer == NULL)
    return;
  if (!snodo_invocation_is_task (invocation))
    {
      snodo_invocation_return_task (invocation);
      return;
    }
  content = json_object_get_member (answer, "content");
  if (content != NULL && JSON_NODE_HOLDS_OBJECT (content))
    name = json_object_get_string_member_with_default (json_node_get_object (content), "name", name);
  text = g_strdup_printf ("Hello, %s, from a task", name);
  snodo_invocation_return_text (invocation, text);
}

static void
tool_with_task_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  g_autoptr(JsonNode) params = json_from_string (ASK_NAME, NULL);

  snodo_invocation_request_input_async (invocation, "user_name", "elicitation/create", params, NULL,
                                        with_task_name_cb, NULL);
}

typedef struct
{
  const char       *name;
  const char       *description;
  const char       *input_schema;
  SnodoTaskSupport  support;
  SnodoToolFunc     func;
} TaskTool;

static const TaskTool task_tools[] = {
  { "greet", "Greets, at once", "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}",
    SNODO_TASK_SUPPORT_FORBIDDEN, greet_cb },
  { "slow_compute", "Computes for a number of seconds",
    "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\"},\"label\":{\"type\":\"string\"}}}",
    SNODO_TASK_SUPPORT_OPTIONAL, slow_compute_cb },
  { "failing_job", "Fails after a second", "{\"type\":\"object\",\"properties\":{}}",
    SNODO_TASK_SUPPORT_REQUIRED, failing_job_cb },
  { "protocol_error_job", "Ends in a protocol error", "{\"type\":\"object\",\"properties\":{}}",
    SNODO_TASK_SUPPORT_OPTIONAL, protocol_error_job_cb },
  { "confirm_delete", "Asks before deleting a file",
    "{\"type\":\"object\",\"properties\":{\"filename\":{\"type\":\"string\"}}}",
    SNODO_TASK_SUPPORT_OPTIONAL, confirm_delete_cb },
  { "multi_input", "Asks two questions at once", "{\"type\":\"object\",\"properties\":{}}",
    SNODO_TASK_SUPPORT_OPTIONAL, multi_input_cb },
  /* The handler decides when it becomes a task. */
  { "test_tool_with_task", "Asks for a name, then works on as a task", "{\"type\":\"object\",\"properties\":{}}",
    SNODO_TASK_SUPPORT_FORBIDDEN, tool_with_task_cb },
};

void
fixture_add_task_tools (SnodoServer *server)
{
  g_autoptr(GError) error = NULL;

  if (!snodo_server_enable_tasks (server, NULL, &error))
    g_error ("tasks: %s", error->message);
  for (guint i = 0; i < G_N_ELEMENTS (task_tools); i++)
    {
      const TaskTool *t = &task_tools[i];
      g_autoptr(SnodoTool) tool = snodo_tool_new (t->name, t->description);

      snodo_tool_set_task_support (tool, t->support);
      if (!snodo_tool_set_input_schema_from_string (tool, t->input_schema, &error) ||
          !snodo_server_add_tool (server, tool, t->func, NULL, NULL, &error))
        g_error ("%s: %s", t->name, error->message);
    }
}
