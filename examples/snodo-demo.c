/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * snodo-demo: an MCP server on standard input and output, with a few tools
 * whose behaviour other programs (the test suite, the benchmarks) rely on:
 *
 *   echo  {text: string}   one text content equal to text
 *   add   {a, b: number}   the sum as text, and structuredContent {"sum": …}
 *   sleep {ms: integer}    waits on a timer (no thread held), cancellable,
 *                          then the text "slept <ms>"
 *   fail  {}               a tool result with isError: true
 *   blob  {bytes: integer} one text content of exactly that many characters
 *   progress {steps: integer} reports progress at each step (one every
 *                          20 ms), then, 100 ms after the last, the text
 *                          "done <steps> steps"
 *   ask   {question?: string} asks the user to confirm (an elicitation in
 *                          2025, input_required in 2026-07-28 with the
 *                          input request named confirm), then the text
 *                          "confirmed", "not confirmed", "declined" or
 *                          "cancelled"
 *   log   {level: string, text: string} sends text as a log message
 *                          (notifications/message, logger "snodo-demo") at
 *                          that level (debug … emergency) if the client
 *                          wants messages of it, then the text "logged", or
 *                          "filtered" if nothing was sent
 *   toggle {}              adds the tool extra if it is not there, else
 *                          removes it, so that clients are told the list of
 *                          tools changed; then the text "added extra" or
 *                          "removed extra". A test device: the list of tools
 *                          is shared by every client of the process
 *   extra {}               (only while toggled on) the text "extra"
 *   touch {uri: string}    announces that the resource uri changed
 *                          (notifications/resources/updated to subscribers
 *                          of either era), then the text "touched <uri>";
 *                          a test device like toggle
 *   version {}             the protocol version the call is served under,
 *                          as text ("2025-06-18", "2025-11-25" or
 *                          "2026-07-28")
 *   chart {values: number[]} an MCP App: the text "<n> values, total <t>"
 *                          and structuredContent {"values": …, "total": …},
 *                          which clients that support MCP Apps draw as bars
 *                          in its view, ui://snodo-demo/chart (see below)
 *
 * With --task-store=memory|file, the server serves tasks (both eras) and
 * has the tool job, a long job that runs as a task: see
 * snodo-demo-tasks.c. Over HTTP it has the tool interrupt, which closes
 * its answer's stream half-way (SEP-1699): see snodo-demo-interrupt.c.
 *
 * A tool that has not answered within --handler-timeout (120000 ms by
 * default; 0 for no limit) is answered with error -32603 and cancelled.
 *
 * It exits 0 after the end of input once every answer is written, or after
 * SIGINT/SIGTERM; and 1, with one line on standard error, when the output
 * fails or a write takes longer than --write-timeout; 3 when it cannot
 * listen where asked (a port taken, a live server on the --http-unix path).
 */

#include "config.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>
#include <snodo/snodo.h>

#include "snodo-demo-auth.h"
#include "snodo-demo-interrupt.h"
#include "snodo-demo-reload.h"
#include "snodo-demo-tasks.h"

#ifdef G_OS_UNIX
# include <fcntl.h>
# include <unistd.h>
# include <glib-unix.h>
#endif

#define BLOB_MAX_BYTES (64 * 1024 * 1024)
/* The exit status when it cannot listen where it was asked to. */
#define DEMO_EXIT_CANNOT_LISTEN 3
#define SLEEP_MAX_MS (24 * 60 * 60 * 1000)

typedef struct
{
  /* Not owned: main()'s. */
  SnodoServer            *server;
  /* Owned: the options, for the HTTP transport's limits. */
  GVariantDict           *options;
  /* The limits of the options, checked. */
  guint64                 write_timeout;
  guint64                 max_line_bytes;
  guint64                 max_streams;
  gint32                  max_running;
  gint32                  max_queued;
  gint64                  max_live_bytes;
#if SNODO_HAS_HTTP_TRANSPORT
  /* Owned, nullable: what --bearer-token-file and its options ask for. */
  SnodoHttpAuthorization *authorization;
  DemoAuth               *auth;
  /* Owned, nullable: SIGHUP's reloading, while HTTP is served. */
  DemoReload             *reload;
#endif
} Demo;

/* Reads an argument of a JSON number type; integers and doubles both count. */
static gboolean
get_number (JsonObject *arguments,
            const char *name,
            JsonNode  **out)
{
  JsonNode *node = json_object_get_member (arguments, name);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return FALSE;
  *out = node;
  return TRUE;
}

static gboolean
get_integer (JsonObject *arguments,
             const char *name,
             gint64      min,
             gint64      max,
             gint64     *out)
{
  JsonNode *node = NULL;
  double value;

  if (!get_number (arguments, name, &node))
    return FALSE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    *out = json_node_get_int (node);
  else
    {
      /* 5.0 is an integer in JSON Schema. */
      value = json_node_get_double (node);
      if (value != (double) (gint64) value)
        return FALSE;
      *out = (gint64) value;
    }
  return *out >= min && *out <= max;
}

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  JsonNode *text = json_object_get_member (arguments, "text");

  if (text == NULL || !JSON_NODE_HOLDS_VALUE (text) ||
      json_node_get_value_type (text) != G_TYPE_STRING)
    snodo_invocation_return_tool_error (invocation, "echo: \"text\" must be a string");
  else
    snodo_invocation_return_text (invocation, json_node_get_string (text));
}

static void
add_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  JsonNode *a = NULL;
  JsonNode *b = NULL;
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object;
  JsonObject *structured;
  JsonArray *content;
  JsonObject *block;
  g_autofree char *text = NULL;
  gint64 ia, ib;

  if (!get_number (arguments, "a", &a) || !get_number (arguments, "b", &b))
    {
      snodo_invocation_return_tool_error (invocation, "add: \"a\" and \"b\" must be numbers");
      return;
    }

  structured = json_object_new ();
  ia = JSON_NODE_HOLDS_VALUE (a) && json_node_get_value_type (a) == G_TYPE_INT64 ? json_node_get_int (a) : 0;
  ib = JSON_NODE_HOLDS_VALUE (b) && json_node_get_value_type (b) == G_TYPE_INT64 ? json_node_get_int (b) : 0;
  if (json_node_get_value_type (a) == G_TYPE_INT64 &&
      json_node_get_value_type (b) == G_TYPE_INT64 &&
      !(ib > 0 && ia > G_MAXINT64 - ib) && !(ib < 0 && ia < G_MININT64 - ib))
    {
      json_object_set_int_member (structured, "sum", ia + ib);
      text = g_strdup_printf ("%" G_GINT64_FORMAT, ia + ib);
    }
  else
    {
      double sum = json_node_get_double (a) + json_node_get_double (b);
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];

      if (!isfinite (sum))
        {
          json_object_unref (structured);
          snodo_invocation_return_tool_error (invocation, "add: the sum is not a finite number");
          return;
        }
      json_object_set_double_member (structured, "sum", sum);
      text = g_strdup (g_ascii_dtostr (buffer, sizeof buffer, sum));
    }

  object = json_object_new ();
  content = json_array_new ();
  block = json_object_new ();
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, block);
  json_object_set_array_member (object, "content", content);
  json_object_set_object_member (object, "structuredContent", structured);
  result = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (result, object);
  snodo_invocation_return_result (invocation, result);
}

typedef struct
{
  SnodoInvocation *invocation;
  gint64           ms;
  GSource         *timer;
  GSource         *cancelled;
} Sleep;

static void
sleep_finish (Sleep   *sleep,
              gboolean cancelled)
{
  g_source_destroy (sleep->timer);
  g_source_destroy (sleep->cancelled);
  g_source_unref (sleep->timer);
  g_source_unref (sleep->cancelled);

  if (cancelled)
    snodo_invocation_return_tool_error (sleep->invocation, "sleep: cancelled");
  else
    {
      g_autofree char *text = g_strdup_printf ("slept %" G_GINT64_FORMAT, sleep->ms);

      snodo_invocation_return_text (sleep->invocation, text);
    }
  g_free (sleep);
}

static gboolean
sleep_timer_cb (gpointer data)
{
  sleep_finish (data, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
sleep_cancelled_cb (GCancellable *cancellable,
                    gpointer      data)
{
  sleep_finish (data, TRUE);
  return G_SOURCE_REMOVE;
}

static void
sleep_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  GMainContext *context = g_main_context_get_thread_default ();
  Sleep *sleep;
  gint64 ms;

  if (!get_integer (arguments, "ms", 0, SLEEP_MAX_MS, &ms))
    {
      snodo_invocation_return_tool_error (invocation,
                                          "sleep: \"ms\" must be an integer from 0 to 86400000");
      return;
    }

  /* A timer on the main context: waiting holds no thread. */
  sleep = g_new0 (Sleep, 1);
  sleep->invocation = invocation;
  sleep->ms = ms;
  sleep->timer = g_timeout_source_new ((guint) ms);
  g_source_set_callback (sleep->timer, sleep_timer_cb, sleep, NULL);
  sleep->cancelled = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));
  g_source_set_callback (sleep->cancelled, G_SOURCE_FUNC (sleep_cancelled_cb), sleep, NULL);
  g_source_attach (sleep->timer, context);
  g_source_attach (sleep->cancelled, context);
}

static void
fail_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_tool_error (invocation, "fail: this tool always fails");
}

static void
blob_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autofree char *text = NULL;
  gint64 bytes;

  if (!get_integer (arguments, "bytes", 0, BLOB_MAX_BYTES, &bytes))
    {
      snodo_invocation_return_tool_error (invocation,
                                          "blob: \"bytes\" must be an integer from 0 to 67108864");
      return;
    }

  text = g_malloc (bytes + 1);
  for (gint64 i = 0; i < bytes; i++)
    text[i] = alphabet[i % (sizeof alphabet - 1)];
  text[bytes] = '\0';
  snodo_invocation_return_text (invocation, text);
}

typedef struct
{
  SnodoInvocation *invocation;
  gint64           steps;
  gint64           done;
  /* Periods waited after the last report. */
  guint            grace;
  GSource         *timer;
  GSource         *cancelled;
} Progress;

static void
progress_finish (Progress *progress,
                 gboolean  cancelled)
{
  g_source_destroy (progress->timer);
  g_source_destroy (progress->cancelled);
  g_source_unref (progress->timer);
  g_source_unref (progress->cancelled);

  if (cancelled)
    snodo_invocation_return_tool_error (progress->invocation, "progress: cancelled");
  else
    {
      g_autofree char *text = g_strdup_printf ("done %" G_GINT64_FORMAT " steps", progress->steps);

      snodo_invocation_return_text (progress->invocation, text);
    }
  g_free (progress);
}

static gboolean
progress_step_cb (gpointer data)
{
  Progress *progress = data;
  g_autofree char *message = NULL;

  /* The answer comes five periods (100 ms) after the last report, not
   * right behind it: the TypeScript SDK clients (v1 and v2) drop or reorder
   * a progress report that they read in the same chunk as the answer, and
   * lines that wait together are written together. */
  if (progress->done == progress->steps)
    {
      if (++progress->grace < 5)
        return G_SOURCE_CONTINUE;
      progress_finish (progress, FALSE);
      return G_SOURCE_REMOVE;
    }

  progress->done++;
  message = g_strdup_printf ("step %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT, progress->done, progress->steps);
  snodo_invocation_report_progress (progress->invocation, progress->done, progress->steps, message);
  return G_SOURCE_CONTINUE;
}

static gboolean
progress_cancelled_cb (GCancellable *cancellable,
                       gpointer      data)
{
  progress_finish (data, TRUE);
  return G_SOURCE_REMOVE;
}

static void
progress_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  GMainContext *context = g_main_context_get_thread_default ();
  Progress *progress;
  gint64 steps;

  if (!get_integer (arguments, "steps", 1, 1000, &steps))
    {
      snodo_invocation_return_tool_error (invocation, "progress: \"steps\" must be an integer from 1 to 1000");
      return;
    }

  progress = g_new0 (Progress, 1);
  progress->invocation = invocation;
  progress->steps = steps;
  progress->timer = g_timeout_source_new (20);
  g_source_set_callback (progress->timer, progress_step_cb, progress, NULL);
  progress->cancelled = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));
  g_source_set_callback (progress->cancelled, G_SOURCE_FUNC (progress_cancelled_cb), progress, NULL);
  g_source_attach (progress->timer, context);
  g_source_attach (progress->cancelled, context);
}

static void
ask_answered_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *object_answer;
  JsonNode *action;
  JsonNode *content;
  const char *text = "cancelled";

  answer = snodo_invocation_request_input_finish (invocation, result, &error);
  if (answer == NULL)
    {
      /* Any error, including the input_required of 2026-07-28 (the request
       * will come back with the answer; nothing more is sent now). */
      snodo_invocation_return_gerror (invocation, error);
      return;
    }

  if (!JSON_NODE_HOLDS_OBJECT (answer))
    {
      snodo_invocation_return_tool_error (invocation, "ask: the client's answer is not an object");
      return;
    }
  object_answer = json_node_get_object (answer);
  action = json_object_get_member (object_answer, "action");
  content = json_object_get_member (object_answer, "content");
  if (action != NULL && JSON_NODE_HOLDS_VALUE (action) && json_node_get_value_type (action) == G_TYPE_STRING)
    {
      const char *value = json_node_get_string (action);

      if (g_str_equal (value, "accept"))
        {
          JsonNode *confirm = NULL;

          if (content != NULL && JSON_NODE_HOLDS_OBJECT (content))
            confirm = json_object_get_member (json_node_get_object (content), "confirm");
          text = (confirm != NULL && JSON_NODE_HOLDS_VALUE (confirm) &&
                  json_node_get_value_type (confirm) == G_TYPE_BOOLEAN &&
                  json_node_get_boolean (confirm)) ? "confirmed" : "not confirmed";
        }
      else if (g_str_equal (value, "decline"))
        text = "declined";
    }
  snodo_invocation_return_text (invocation, text);
}

static void
ask_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  JsonNode *question = json_object_get_member (arguments, "question");
  g_autofree char *params = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) message = NULL;
  g_autofree char *message_json = NULL;

  message = json_node_init_string (json_node_alloc (),
                                   question != NULL && JSON_NODE_HOLDS_VALUE (question) &&
                                   json_node_get_value_type (question) == G_TYPE_STRING
                                   ? json_node_get_string (question) : "Do you confirm?");
  message_json = json_to_string (message, FALSE);
  params = g_strdup_printf ("{\"message\":%s,\"requestedSchema\":{\"type\":\"object\","
                            "\"properties\":{\"confirm\":{\"type\":\"boolean\",\"title\":\"Confirm\"}},"
                            "\"required\":[\"confirm\"]}}", message_json);
  node = json_from_string (params, NULL);
  snodo_invocation_request_input_async (invocation, "confirm", "elicitation/create", node,
                                        NULL, ask_answered_cb, NULL);
}

static void
log_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  JsonNode *level = json_object_get_member (arguments, "level");
  JsonNode *text = json_object_get_member (arguments, "text");
  g_autoptr(GEnumClass) levels = g_type_class_ref (SNODO_TYPE_LOG_LEVEL);
  GEnumValue *value = NULL;

  if (level != NULL && JSON_NODE_HOLDS_VALUE (level) && json_node_get_value_type (level) == G_TYPE_STRING)
    value = g_enum_get_value_by_nick (levels, json_node_get_string (level));
  if (value == NULL || text == NULL || !JSON_NODE_HOLDS_VALUE (text) ||
      json_node_get_value_type (text) != G_TYPE_STRING)
    {
      snodo_invocation_return_tool_error (invocation,
                                          "log: \"level\" must be a log level and \"text\" a string");
      return;
    }

  if (snodo_invocation_log_text (invocation, value->value, "snodo-demo", json_node_get_string (text)))
    snodo_invocation_return_text (invocation, "logged");
  else
    snodo_invocation_return_text (invocation, "filtered");
}

static void
extra_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "extra");
}

static void
toggle_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  SnodoServer *server = user_data;
  g_autoptr(SnodoTool) tool = NULL;
  g_autoptr(GError) error = NULL;

  if (snodo_server_remove_tool (server, "extra"))
    {
      snodo_invocation_return_text (invocation, "removed extra");
      return;
    }

  tool = snodo_tool_new ("extra", "Exists while toggled on");
  if (!snodo_server_add_tool (server, tool, extra_cb, NULL, NULL, &error))
    {
      snodo_invocation_return_tool_error (invocation, error->message);
      return;
    }
  snodo_invocation_return_text (invocation, "added extra");
}

static void
touch_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  SnodoServer *server = user_data;
  JsonNode *uri = json_object_get_member (snodo_invocation_get_arguments (invocation), "uri");
  g_autofree char *text = NULL;

  if (uri == NULL || !JSON_NODE_HOLDS_VALUE (uri) || json_node_get_value_type (uri) != G_TYPE_STRING)
    {
      snodo_invocation_return_tool_error (invocation, "touch: \"uri\" must be a string");
      return;
    }
  snodo_server_notify_resource_updated (server, json_node_get_string (uri));
  text = g_strdup_printf ("touched %s", json_node_get_string (uri));
  snodo_invocation_return_text (invocation, text);
}

static void
version_cb (SnodoInvocation *invocation,
            gpointer         user_data)
{
  snodo_invocation_return_text (invocation,
                                snodo_protocol_version_to_string (snodo_invocation_get_protocol_version (invocation)));
}

static void
chart_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  JsonArray *values = json_object_get_array_member (snodo_invocation_get_arguments (invocation), "values");
  g_autoptr(JsonNode) result = NULL;
  g_autofree char *text = NULL;
  JsonObject *structured = json_object_new ();
  JsonObject *object = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *block = json_object_new ();
  double total = 0;
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  /* The input schema holds them to numbers. */
  for (guint i = 0; i < json_array_get_length (values); i++)
    total += json_node_get_double (json_array_get_element (values, i));

  /* Said in text too, for clients that show no view. */
  text = g_strdup_printf ("%u values, total %s", json_array_get_length (values),
                          g_ascii_formatd (number, sizeof number, "%g", total));
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, block);
  json_object_set_array_member (object, "content", content);
  json_object_set_array_member (structured, "values", json_array_ref (values));
  json_object_set_double_member (structured, "total", total);
  json_object_set_object_member (object, "structuredContent", structured);
  result = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (result, object);
  snodo_invocation_return_result (invocation, result);
}

typedef struct
{
  const char    *name;
  const char    *description;
  const char    *input_schema;
  const char    *output_schema;
  SnodoToolFunc  func;
} DemoTool;

static const DemoTool demo_tools[] = {
  { "echo", "Returns its text unchanged",
    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
    NULL, echo_cb },
  { "add", "Adds two numbers",
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
    "{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}},\"required\":[\"sum\"]}",
    add_cb },
  { "sleep", "Waits for ms milliseconds, then says so",
    "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"ms\"]}",
    NULL, sleep_cb },
  { "fail", "Always fails",
    "{\"type\":\"object\",\"properties\":{}}",
    NULL, fail_cb },
  { "blob", "Returns a text of exactly bytes characters",
    "{\"type\":\"object\",\"properties\":{\"bytes\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"bytes\"]}",
    NULL, blob_cb },
  { "progress", "Reports progress at each of its steps",
    "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}},\"required\":[\"steps\"]}",
    NULL, progress_cb },
  { "ask", "Asks the user to confirm",
    "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}}}",
    NULL, ask_cb },
  { "log", "Sends a log message at a level",
    "{\"type\":\"object\",\"properties\":{\"level\":{\"type\":\"string\",\"enum\":[\"debug\",\"info\",\"notice\","
    "\"warning\",\"error\",\"critical\",\"alert\",\"emergency\"]},\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"level\",\"text\"]}",
    NULL, log_cb },
  { "toggle", "Adds the tool extra, or removes it",
    "{\"type\":\"object\",\"properties\":{}}",
    NULL, toggle_cb },
  { "touch", "Tells subscribers that a resource changed",
    "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\"}},\"required\":[\"uri\"]}",
    NULL, touch_cb },
  { "version", "Returns the protocol version the call is served under",
    "{\"type\":\"object\",\"properties\":{}}",
    NULL, version_cb },
  { "chart", "Draws its values as a bar chart, and says how many and their total",
    "{\"type\":\"object\",\"properties\":{\"values\":{\"type\":\"array\",\"items\":{\"type\":\"number\"},"
    "\"minItems\":1,\"maxItems\":100}},\"required\":[\"values\"]}",
    "{\"type\":\"object\",\"properties\":{\"values\":{\"type\":\"array\"},\"total\":{\"type\":\"number\"}},"
    "\"required\":[\"values\",\"total\"]}",
    chart_cb },
};

static void demo_add_catalog (SnodoServer *server);

/* When the demo started, for demo/info. */
static gint64 demo_started;

/* demo/info, the demo's own method: no params; its version, how long it
 * has run and the protocol version of the request. */
static void
demo_info_cb (SnodoInvocation *invocation,
              gpointer         user_data)
{
  g_autoptr(JsonNode) result = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "version", SNODO_VERSION_S);
  json_object_set_double_member (object, "uptime", (g_get_monotonic_time () - demo_started) / (double) G_USEC_PER_SEC);
  json_object_set_string_member (object, "protocolVersion",
                                 snodo_protocol_version_to_string (snodo_invocation_get_protocol_version (invocation)));
  json_node_take_object (result, object);
  snodo_invocation_return_result (invocation, result);
}

static SnodoServer *
demo_server_new (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("snodo-demo", SNODO_VERSION_S);

  snodo_server_set_title (server, "Snodo demo");
  snodo_server_set_instructions (server,
                                 "A demonstration server: the tools echo, add, sleep, fail, blob, progress, ask, log, "
                                 "toggle, touch, version and chart (an MCP App, with the view ui://snodo-demo/chart), "
                                 "the resource demo://readme, the template demo://echo/{text} and the prompt greet.");

  {
    g_autoptr(JsonNode) icons = json_from_string ("[{\"src\":\"data:image/svg+xml;base64,"
                                                  "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=\","
                                                  "\"mimeType\":\"image/svg+xml\",\"sizes\":[\"any\"]}]",
                                                  NULL);
    g_autoptr(JsonNode) no_params = json_from_string ("{\"type\":\"object\",\"properties\":{},"
                                                      "\"additionalProperties\":false}", NULL);
    g_autoptr(GError) error = NULL;

    snodo_server_set_description (server, "A demonstration of Snodo: tools, resources, prompts and tasks");
    snodo_server_set_website_url (server, "https://github.com/snodo/snodo");
    snodo_server_set_icons (server, icons);
    demo_started = g_get_monotonic_time ();
    if (!snodo_server_add_method (server, "demo/info", no_params, demo_info_cb, NULL, NULL, &error))
      g_error ("demo/info: %s", error->message);
  }

  for (guint i = 0; i < G_N_ELEMENTS (demo_tools); i++)
    {
      const DemoTool *t = &demo_tools[i];
      g_autoptr(SnodoTool) tool = snodo_tool_new (t->name, t->description);
      g_autoptr(GError) error = NULL;

      if (!snodo_tool_set_input_schema_from_string (tool, t->input_schema, &error))
        g_error ("%s: %s", t->name, error->message);
      if (t->output_schema != NULL &&
          !snodo_tool_set_output_schema_from_string (tool, t->output_schema, &error))
        g_error ("%s: %s", t->name, error->message);
      if (g_str_equal (t->name, "echo"))
        {
          /* Shown by clients of 2025-11-25 and later. */
          g_autoptr(JsonNode) icons = json_from_string ("[{\"src\":\"data:image/svg+xml;base64,"
                                                        "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=\","
                                                        "\"mimeType\":\"image/svg+xml\",\"sizes\":[\"any\"]}]",
                                                        NULL);

          snodo_tool_set_icons (tool, icons);
        }
      /* The server outlives its tools: toggle borrows it. */
      if (!snodo_server_add_tool (server, tool, t->func, server, NULL, &error))
        g_error ("%s: %s", t->name, error->message);
    }
  demo_add_catalog (server);

  return g_steal_pointer (&server);
}

#if SNODO_HAS_HTTP_TRANSPORT
/* Whether the service manager passed this process a socket (socket
 * activation), which the binding serves over HTTP. */
static gboolean
demo_socket_passed (void)
{
#ifdef G_OS_UNIX
  const char *pid_text = g_getenv ("LISTEN_PID");
  guint64 pid = 0;

  return pid_text != NULL && g_getenv ("LISTEN_FDS") != NULL &&
         g_ascii_string_to_unsigned (pid_text, 10, 1, G_MAXINT, &pid, NULL) && (pid_t) pid == getpid ();
#else
  return FALSE;
#endif
}

/* The HTTP transport the binding made, before it listens: the demo's limits,
 * authorization and reloading (SIGHUP reloads the tokens and the
 * certificate: snodo-demo-reload.c). */
static void
demo_prepare_http (Demo               *demo,
                   SnodoHttpTransport *transport)
{
  const char *number = NULL;
  const char *instance_id = NULL;
  const char *certificate_file = NULL;
  const char *key_file = NULL;

  demo_add_interrupt (demo->server);
  snodo_http_transport_set_write_timeout (transport, (guint) demo->write_timeout);
  snodo_http_transport_set_max_body_bytes (transport, demo->max_line_bytes);
  /* Bodies of the largest size accepted are received, if one at a time. */
  if (snodo_http_transport_get_max_bodies_bytes (transport) < demo->max_line_bytes)
    snodo_http_transport_set_max_bodies_bytes (transport, demo->max_line_bytes);
  /* Checked before. Every client of a demo may come from one address (the
   * loopback): its bound follows max-streams unless given. */
  if (g_variant_dict_lookup (demo->options, "max-streams", "&s", &number))
    {
      snodo_http_transport_set_max_streams (transport, (guint) g_ascii_strtoull (number, NULL, 10));
      snodo_http_transport_set_max_streams_per_address (transport, (guint) g_ascii_strtoull (number, NULL, 10));
    }
  if (g_variant_dict_lookup (demo->options, "max-streams-per-address", "&s", &number))
    snodo_http_transport_set_max_streams_per_address (transport, (guint) g_ascii_strtoull (number, NULL, 10));
  if (g_variant_dict_lookup (demo->options, "get-stream-lifetime", "&s", &number))
    snodo_http_transport_set_get_stream_lifetime (transport, (guint) g_ascii_strtoull (number, NULL, 10));
  if (g_variant_dict_lookup (demo->options, "stream-retry", "&s", &number))
    snodo_http_transport_set_stream_retry (transport, (guint) g_ascii_strtoull (number, NULL, 10));
  if (g_variant_dict_lookup (demo->options, "instance-id", "&s", &instance_id))
    snodo_http_transport_set_instance_id (transport, instance_id);
  if (demo->authorization != NULL)
    snodo_http_transport_set_authorization (transport, demo->authorization);

  g_variant_dict_lookup (demo->options, "tls-certificate", "^&ay", &certificate_file);
  g_variant_dict_lookup (demo->options, "tls-key", "^&ay", &key_file);
  demo->reload = demo_reload_new (transport, g_steal_pointer (&demo->auth), certificate_file, key_file);
}

/* The demo's HTTP options, given to the binding under its names (--http=PORT
 * and --http-address=ADDR make --mcp-http=ADDR:PORT), and checked; FALSE,
 * having said why, when they are wrong. */
static gboolean
demo_http_options (Demo         *demo,
                   GVariantDict *options)
{
  static const char *const same[][2] = {
    { "http-unix", "mcp-unix" }, { "http-unix-mode", "mcp-unix-mode" }, { "http-unix-group", "mcp-unix-group" },
    { "tls-certificate", "mcp-tls-certificate" }, { "tls-key", "mcp-tls-key" },
    { "allowed-hosts", "mcp-allowed-hosts" }, { "allowed-origins", "mcp-allowed-origins" },
  };
  const char *port_string = NULL;
  const char *address_string = NULL;
  const char *instance_id = NULL;
  guint64 port = 0;
  gboolean http;

  g_variant_dict_lookup (options, "http", "&s", &port_string);
  g_variant_dict_lookup (options, "http-address", "&s", &address_string);
  if (address_string != NULL && port_string == NULL)
    {
      g_printerr ("snodo-demo: --http-address needs --http=PORT\n");
      return FALSE;
    }
  if (port_string != NULL)
    {
      g_autofree char *where = NULL;

      /* A string: GApplication drops an integer option whose value is 0. */
      if (!g_ascii_string_to_unsigned (port_string, 10, 0, G_MAXUINT16, &port, NULL))
        {
          g_printerr ("snodo-demo: --http needs a port from 0 to 65535\n");
          return FALSE;
        }
      if (address_string == NULL)
        where = g_strdup_printf ("127.0.0.1:%u", (guint) port);
      else if (strchr (address_string, ':') != NULL)
        where = g_strdup_printf ("[%s]:%u", address_string, (guint) port);
      else
        where = g_strdup_printf ("%s:%u", address_string, (guint) port);
      g_variant_dict_insert (options, "mcp-http", "s", where);
    }
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      g_autoptr(GVariant) value = g_variant_dict_lookup_value (options, same[i][0], NULL);

      if (value != NULL)
        g_variant_dict_insert_value (options, same[i][1], value);
    }

  http = port_string != NULL || g_variant_dict_contains (options, "http-unix") || demo_socket_passed ();
  if (g_variant_dict_lookup (options, "instance-id", "&s", &instance_id) &&
      !snodo_http_transport_instance_id_is_valid (instance_id))
    {
      g_printerr ("snodo-demo: --instance-id needs 1 to %u letters, digits and “-”, not “%s”\n",
                  (guint) SNODO_HTTP_INSTANCE_ID_MAX, instance_id);
      return FALSE;
    }
  if (!http && (instance_id != NULL || demo_auth_wanted (options)))
    {
      g_printerr ("snodo-demo: --instance-id and --bearer-token-file are for HTTP: they need --http or "
                  "--http-unix\n");
      return FALSE;
    }
  return !http || demo_auth_setup (options, demo->server, &demo->authorization, &demo->auth);
}
#endif

/* A transport the binding made, before it starts: the demo's limits. */
static void
demo_prepare_transport_cb (SnodoApplicationBinding *binding,
                           GObject                 *transport,
                           Demo                    *demo)
{
  SnodoExecutor *executor;

#if SNODO_HAS_HTTP_TRANSPORT
  if (SNODO_IS_HTTP_TRANSPORT (transport))
    {
      demo_prepare_http (demo, SNODO_HTTP_TRANSPORT (transport));
      executor = snodo_http_transport_get_executor (SNODO_HTTP_TRANSPORT (transport));
    }
  else
#endif
    {
      SnodoStdioTransport *stdio = SNODO_STDIO_TRANSPORT (transport);

      snodo_stdio_transport_set_write_timeout (stdio, (guint) demo->write_timeout);
      snodo_stdio_transport_set_max_line_bytes (stdio, demo->max_line_bytes);
      snodo_stdio_transport_set_max_streams (stdio, (guint) demo->max_streams);
      executor = snodo_stdio_transport_get_executor (stdio);
    }
  if (demo->max_running > 0)
    snodo_executor_set_max_running (executor, (guint) demo->max_running);
  if (demo->max_queued >= 0)
    snodo_executor_set_max_queued (executor, (guint) demo->max_queued);
  if (demo->max_live_bytes >= 0)
    snodo_executor_set_max_live_bytes (executor, (guint64) demo->max_live_bytes);
}

/* Serves the skills of --skills-dir, if given (the Skills extension). */
static gboolean
demo_add_skills (GVariantDict *options,
                 SnodoServer  *server)
{
  const char *dir = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_variant_dict_lookup (options, "skills-dir", "^&ay", &dir))
    return TRUE;
  file = g_file_new_for_commandline_arg (dir);
  if (!snodo_server_add_skills_directory (server, file, NULL, &error))
    {
      g_printerr ("snodo-demo: --skills-dir: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The most a --request-state-secret-file may hold: a secret, not a file
 * read by mistake. */
#define DEMO_SECRET_MAX_BYTES 4096

/* Gives @server the secret in --request-state-secret-file, if given: the
 * file's bytes, less one final line ending, at least 32 of them. */
static gboolean
demo_set_secret (GVariantDict            *options,
                 SnodoServer             *server)
{
  const char *file = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *display = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) secret = NULL;
  gsize len = 0;

  if (!g_variant_dict_lookup (options, "request-state-secret-file", "^&ay", &file))
    return TRUE;
  display = g_filename_display_name (file);
  if (!g_file_get_contents (file, &contents, &len, &error))
    {
      g_printerr ("snodo-demo: --request-state-secret-file: %s\n",
                                           error->message);
      return FALSE;
    }
  if (len > DEMO_SECRET_MAX_BYTES)
    {
      g_printerr ("snodo-demo: --request-state-secret-file: “%s” has more than %u bytes: "
                                           "it is not a secret\n", display, (guint) DEMO_SECRET_MAX_BYTES);
      return FALSE;
    }
  if (len > 0 && contents[len - 1] == '\n')
    len--;
  if (len > 0 && contents[len - 1] == '\r')
    len--;
  secret = g_bytes_new (contents, len);
  memset (contents, 0, len);
  if (!snodo_server_set_request_state_secret (server, secret, &error))
    {
      g_printerr ("snodo-demo: --request-state-secret-file: “%s”: %s\n",
                                           display, error->message);
      return FALSE;
    }
  return TRUE;
}

/* Reads the option @name, if given, as a whole number from @min to @max. */
static gboolean
demo_get_number (GVariantDict            *options,
                 const char              *name,
                 guint64                  min,
                 guint64                  max,
                 guint64                 *out)
{
  const char *text = NULL;

  if (!g_variant_dict_lookup (options, name, "&s", &text))
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, min, max, out, NULL))
    {
      g_printerr ("snodo-demo: --%s needs a whole number from %" G_GUINT64_FORMAT
                                           " to %" G_GUINT64_FORMAT ", not “%s”\n",
                                           name, min, max, text);
      return FALSE;
    }
  return TRUE;
}

#if SNODO_HAS_REDIS_BUS
static void
demo_bus_connected_cb (SnodoRedisBus *bus,
                       GParamSpec    *pspec,
                       gpointer       user_data)
{
  /* On standard error, for whoever watches the instance (tests do). */
  g_printerr ("snodo-demo: the Redis bus %s is %s\n", snodo_redis_bus_get_url (bus),
              snodo_redis_bus_get_connected (bus) ? "connected" : "disconnected");
}
#endif

/* Gives @server the bus of --redis, if given: FALSE if it is no Redis
 * URL (said on standard error). */
static gboolean
demo_set_bus (GVariantDict            *options,
              SnodoServer             *server)
{
#if SNODO_HAS_REDIS_BUS
  const char *url = NULL;
  g_autoptr(SnodoRedisBus) bus = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_variant_dict_lookup (options, "redis", "&s", &url))
    return TRUE;
  bus = snodo_redis_bus_new (url, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("snodo-demo: --redis: %s\n", error->message);
      return FALSE;
    }
  g_signal_connect (bus, "notify::connected", G_CALLBACK (demo_bus_connected_cb), NULL);
  snodo_server_set_bus (server, SNODO_BUS (bus));
#endif
  return TRUE;
}

/* The demo's options, read and checked before the binding's (which serves
 * as they say): 2 when they are wrong. */
static int
demo_handle_local_options_cb (GApplication *app,
                              GVariantDict *options,
                              Demo         *demo)
{
  SnodoServer *server = demo->server;
  guint64 write_timeout = 5000;
  guint64 max_line_bytes = 2000000;
  guint64 value;
  guint64 request_timeout = 60000;
  /* Longer than request-timeout, so that a question to the user times out
   * first, and short enough that a stuck handler is noticed. */
  guint64 handler_timeout = 120000;
  const char *versions_text = NULL;
  g_auto(GStrv) versions = NULL;
  gint32 max_running = -1;
  gint32 max_queued = -1;
  gint64 max_live_bytes = -1;
  guint64 max_streams = 256;

  /* The numbers are string options, read strictly: GApplication drops an
   * integer option whose value is 0, and reads "12abc" as 12. */
  if (!demo_get_number (options, "write-timeout", 1, G_MAXUINT, &write_timeout) ||
      !demo_get_number (options, "max-line-bytes", 2, G_MAXSSIZE, &max_line_bytes))
    return 2;
  if (g_variant_dict_contains (options, "max-running"))
    {
      if (!demo_get_number (options, "max-running", 1, G_MAXINT32, &value))
        return 2;
      max_running = (gint32) value;
    }
  if (g_variant_dict_contains (options, "max-queued"))
    {
      if (!demo_get_number (options, "max-queued", 0, G_MAXINT32, &value))
        return 2;
      max_queued = (gint32) value;
    }
  if (g_variant_dict_contains (options, "max-live-bytes"))
    {
      if (!demo_get_number (options, "max-live-bytes", 0, G_MAXINT64, &value))
        return 2;
      max_live_bytes = (gint64) value;
    }
  if (g_variant_dict_contains (options, "max-streams") &&
      !demo_get_number (options, "max-streams", 1, G_MAXUINT, &max_streams))
    return 2;
  if (!demo_get_number (options, "max-streams-per-address", 1, G_MAXUINT, &value))
    return 2;
  if (!demo_get_number (options, "get-stream-lifetime", 0, G_MAXUINT / 1000, &value) ||
      !demo_get_number (options, "stream-retry", 0, G_MAXINT32, &value))
    return 2;
  if (!demo_get_number (options, "request-timeout", 1, G_MAXUINT, &request_timeout) ||
      !demo_get_number (options, "handler-timeout", 0, G_MAXINT, &handler_timeout))
    return 2;
  if (g_variant_dict_lookup (options, "protocol-versions", "&s", &versions_text))
    {
      versions = g_strsplit (versions_text, ",", -1);
      for (guint i = 0; versions[i] != NULL; i++)
        if (snodo_protocol_version_from_string (versions[i]) == SNODO_PROTOCOL_VERSION_UNKNOWN)
          {
            g_printerr ("snodo-demo: --protocol-versions: unknown version “%s”\n",
                                                 versions[i]);
            return 2;
          }
      if (versions[0] == NULL)
        {
          g_printerr ("snodo-demo: --protocol-versions needs a version\n");
          return 2;
        }
    }

  snodo_server_set_request_timeout (server, (guint) request_timeout);
  snodo_server_set_handler_timeout (server, (guint) handler_timeout);
  if (versions != NULL)
    snodo_server_set_protocol_versions (server, (const char * const *) versions);
  if (!demo_set_secret (options, server) ||
      !demo_set_bus (options, server) ||
      !demo_add_skills (options, server))
    return 2;
  {
    const char *task_store = NULL;
    g_autoptr(GError) error = NULL;

    if (g_variant_dict_lookup (options, "task-store", "&s", &task_store) &&
        !demo_add_tasks (server, task_store, &error))
      {
        g_printerr ("snodo-demo: --task-store: %s\n", error->message);
        return 2;
      }
  }
#if SNODO_HAS_HTTP_TRANSPORT
  if (!demo_http_options (demo, options))
    return 2;
#endif

  demo->options = g_variant_dict_ref (options);
  demo->write_timeout = write_timeout;
  demo->max_line_bytes = max_line_bytes;
  demo->max_streams = max_streams;
  demo->max_running = max_running;
  demo->max_queued = max_queued;
  demo->max_live_bytes = max_live_bytes;
  return -1;
}

static void
demo_activate_cb (GApplication *app,
                  gpointer      user_data)
{
  /* Nothing but serving, which the binding does. */
}

int
main (int   argc,
      char *argv[])
{
  static const GOptionEntry entries[] = {
    { "write-timeout", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How long writing one message may take, in milliseconds (default 5000)", "MS" },
    { "max-line-bytes", 0, 0, G_OPTION_ARG_STRING, NULL,
      "The largest message accepted, in bytes, its newline included (default 2000000)", "N" },
    { "max-running", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How many requests may run at once (default 1024)", "N" },
    { "max-queued", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How many requests may wait for a slot (default 256)", "N" },
    { "max-live-bytes", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How many bytes the running and waiting requests may hold once decoded (default 268435456)", "N" },
    { "get-stream-lifetime", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Over HTTP, close a 2025-11-25 session's GET stream after this many seconds; the client comes back "
      "with Last-Event-ID (default 0: keep it open)", "S" },
    { "stream-retry", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Over HTTP, how long a client waits before it comes back to a closed GET stream, in milliseconds "
      "(default 1000)", "MS" },
    { "max-streams", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How many subscriptions/listen requests (and HTTP GET streams) may be open at once (default 256)", "N" },
    { "max-streams-per-address", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Over HTTP, how many of those may be open at once from one client address (default: --max-streams)", "N" },
    { "handler-timeout", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How long a tool may take to answer, in milliseconds, or 0 for no limit (default 120000)", "MS" },
    { "request-timeout", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How long to wait for the client to answer a request of the server, in milliseconds (default 60000)", "MS" },
    { "protocol-versions", 0, 0, G_OPTION_ARG_STRING, NULL,
      "The protocol versions to serve, separated by commas (default all: 2025-06-18,2025-11-25,2026-07-28)",
      "LIST" },
    { "task-store", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Serve tasks, and the tool job, keeping them in memory or in files under "
      "$XDG_STATE_HOME/snodo-demo/tasks (file), where results survive a restart", "memory|file" },
    { "skills-dir", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Serve the skills of DIR (DIR/NAME/SKILL.md and the files beside it), read again when they change", "DIR" },
    { "request-state-secret-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Protect the state of 2026-07-28 requests that need input with the secret in FILE "
      "(at least 32 bytes; the same for every instance serving the same clients)", "FILE" },
#if SNODO_HAS_REDIS_BUS
    { "redis", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Share change notifications with the other instances through the Redis server at URL "
      "(redis://HOST[:PORT] or unix:PATH)", "URL" },
#endif
#if SNODO_HAS_HTTP_TRANSPORT
    { "http", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Serve Streamable HTTP on 127.0.0.1:PORT instead of standard I/O (0: any free port; the URI is printed)", "PORT" },
    { "http-address", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Serve HTTP on this IPv4 or IPv6 address instead of 127.0.0.1 (0.0.0.0 or :: for every interface)", "ADDR" },
    { "http-unix", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Serve HTTP on a Unix socket made at PATH instead (one left by a server that is gone is replaced)", "PATH" },
    { "http-unix-mode", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Give the --http-unix socket this octal mode, such as 0660 (default: the umask's)", "MODE" },
    { "http-unix-group", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Give the --http-unix socket this group, such as the reverse proxy's (www-data)", "GROUP" },
    { "tls-certificate", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Serve HTTPS with the certificate (chain) in this PEM file", "FILE" },
    { "tls-key", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "The private key of --tls-certificate, a PEM file", "FILE" },
    { "allowed-hosts", 0, 0, G_OPTION_ARG_STRING, NULL,
      "The Host names HTTP requests may use, separated by commas (default: the loopback names)", "LIST" },
    { "allowed-origins", 0, 0, G_OPTION_ARG_STRING, NULL,
      "The Origins HTTP requests may come from, separated by commas (default: the loopback origins)", "LIST" },
    { "instance-id", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Start the HTTP session ids with ID and a dot, for a load balancer to route by "
      "(1 to 32 letters, digits and -)", "ID" },
#endif
    { NULL }
  };
  g_autoptr(GApplication) app = NULL;
  g_autoptr(SnodoServer) server = NULL;
  g_autoptr(SnodoApplicationBinding) binding = NULL;
  Demo demo = { 0, };
  int status;

  setlocale (LC_ALL, "");
  /* GLib writes debug and info messages to standard output by default;
   * here standard output is the protocol's. */
  snodo_stdio_transport_log_to_stderr ();
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  app = g_application_new ("org.snodo.Demo", G_APPLICATION_NON_UNIQUE);
  g_application_set_option_context_summary (app, "Serves a demonstration MCP server on standard input and output.");
  g_application_add_main_option_entries (app, entries);
#if SNODO_HAS_HTTP_TRANSPORT
  g_application_add_main_option_entries (app, demo_auth_entries);
#endif
  g_signal_connect (app, "handle-local-options", G_CALLBACK (demo_handle_local_options_cb), &demo);
  g_signal_connect (app, "activate", G_CALLBACK (demo_activate_cb), NULL);

  /* The binding serves: standard input and output unless an option asks
   * for HTTP, until their end or SIGINT/SIGTERM (the console's events on
   * Windows); it prints where it listens, and --print-server-json. */
  server = demo_server_new ();
  demo.server = server;
  binding = snodo_application_binding_new (app, server);
  snodo_application_binding_set_registry_name (binding, "io.github.snodo/snodo-demo");
  snodo_application_binding_set_stdio_by_default (binding, TRUE);
  g_signal_connect (binding, "prepare-transport", G_CALLBACK (demo_prepare_transport_cb), &demo);

  status = g_application_run (app, argc, argv);
#if SNODO_HAS_HTTP_TRANSPORT
  g_clear_pointer (&demo.reload, demo_reload_free);
  g_clear_pointer (&demo.auth, demo_auth_free);
  g_clear_object (&demo.authorization);
#endif
  g_clear_pointer (&demo.options, g_variant_dict_unref);
  /* The spans of the last requests, when they are exported. */
  snodo_telemetry_flush (2000);

  return status != 0 ? status : snodo_application_binding_get_exit_status (binding);
}

/*
 * Resources, prompts and completion, which the test suite relies on too:
 *
 *   demo://readme        resource, text/markdown: a few lines about snodo-demo
 *   demo://echo/{text}   template, text/plain: the decoded value of text
 *   greet {name}         prompt: one user message "Please greet <name> warmly."
 *   completion           for greet's name: the names of demo_names that start
 *                        with the typed text, ignoring case
 *   ui://snodo-demo/chart the view of the tool chart (MCP Apps,
 *                        text/html;profile=mcp-app): a page that draws the
 *                        values of the tool's result as bars
 */

static const char *const demo_names[] = { "Ada", "Alan", "Grace", "Linus", NULL };

static void
readme_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  snodo_invocation_return_resource_text (invocation, NULL, "text/markdown",
                                         "# snodo-demo\n\n"
                                         "A demonstration MCP server built with Snodo. It offers the tools "
                                         "echo, add, sleep, fail, blob, progress, ask, log, toggle, touch, version "
                                         "and chart, whose results clients that support MCP Apps draw in the view "
                                         "ui://snodo-demo/chart, this resource, the template demo://echo/{text} and "
                                         "the prompt greet.\n");
}

static void
echo_resource_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  JsonObject *variables = snodo_invocation_get_variables (invocation);

  snodo_invocation_return_resource_text (invocation, NULL, "text/plain",
                                         json_object_get_string_member (variables, "text"));
}

static void
greet_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autofree char *text = g_strdup_printf ("Please greet %s warmly.",
                                           json_object_get_string_member (arguments, "name"));
  g_autoptr(JsonNode) messages = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();
  JsonObject *message = json_object_new ();
  JsonObject *content = json_object_new ();

  json_object_set_string_member (content, "type", "text");
  json_object_set_string_member (content, "text", text);
  json_object_set_string_member (message, "role", "user");
  json_object_set_object_member (message, "content", content);
  json_array_add_object_element (array, message);
  json_node_take_array (messages, array);
  snodo_invocation_return_prompt (invocation, "A warm greeting", messages);
}

static void
complete_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  JsonObject *ref = json_object_get_object_member (params, "ref");
  JsonObject *argument = json_object_get_object_member (params, "argument");
  const char *value = json_object_get_string_member (argument, "value");
  g_autoptr(GPtrArray) values = g_ptr_array_new_null_terminated (0, NULL, TRUE);

  /* The library checked the shape of ref and argument. */
  if (g_str_equal (json_object_get_string_member (ref, "type"), "ref/prompt") &&
      g_str_equal (json_object_get_string_member (ref, "name"), "greet") &&
      g_str_equal (json_object_get_string_member (argument, "name"), "name"))
    {
      for (guint i = 0; demo_names[i] != NULL; i++)
        if (g_ascii_strncasecmp (demo_names[i], value, strlen (value)) == 0)
          g_ptr_array_add (values, (gpointer) demo_names[i]);
    }

  snodo_invocation_return_completion (invocation, (const char * const *) values->pdata,
                                      (gint) values->len, FALSE);
}

/* The view of chart. It speaks to the host that shows it by postMessage,
 * as MCP Apps describes: ui/initialize, then it draws every tool result
 * the host sends it. Inline script and style only, as the default policy
 * of a view allows. */
static const char demo_chart_html[] =
  "<!DOCTYPE html>\n"
  "<html lang=\"en\">\n"
  "<head>\n"
  "<meta charset=\"utf-8\">\n"
  "<title>snodo-demo chart</title>\n"
  "<style>\n"
  "body { font-family: var(--font-sans, sans-serif); margin: 8px; color: var(--color-text-primary, #222); }\n"
  ".bar { background: #3a7bd5; color: #fff; margin: 3px 0; padding: 2px 6px; white-space: nowrap;"
  " border-radius: 3px; min-width: 2em; }\n"
  "</style>\n"
  "</head>\n"
  "<body>\n"
  "<div id=\"chart\">Waiting for the values of the tool chart…</div>\n"
  "<script>\n"
  "let nextId = 1;\n"
  "const waiting = new Map();\n"
  "const post = message => window.parent.postMessage({jsonrpc: '2.0', ...message}, '*');\n"
  "function request(method, params) {\n"
  "  const id = nextId++;\n"
  "  post({id, method, params});\n"
  "  return new Promise(resolve => waiting.set(id, resolve));\n"
  "}\n"
  "function draw(result) {\n"
  "  const values = result?.structuredContent?.values ?? [];\n"
  "  const largest = Math.max(...values.map(Math.abs), 1e-9);\n"
  "  document.getElementById('chart').replaceChildren(...values.map(value => {\n"
  "    const bar = document.createElement('div');\n"
  "    bar.className = 'bar';\n"
  "    bar.style.width = `${Math.round(Math.abs(value) / largest * 90)}%`;\n"
  "    bar.textContent = String(value);\n"
  "    return bar;\n"
  "  }));\n"
  "  post({method: 'ui/notifications/size-changed',\n"
  "        params: {width: document.body.scrollWidth, height: document.body.scrollHeight + 16}});\n"
  "}\n"
  "window.addEventListener('message', event => {\n"
  "  const message = event.data;\n"
  "  if (message?.id !== undefined && waiting.has(message.id)) {\n"
  "    waiting.get(message.id)(message.result);\n"
  "    waiting.delete(message.id);\n"
  "  } else if (message?.method === 'ui/notifications/tool-result') {\n"
  "    draw(message.params);\n"
  "  }\n"
  "});\n"
  "request('ui/initialize', {protocolVersion: '2026-01-26', appCapabilities: {},\n"
  "                          appInfo: {name: 'snodo-demo chart', version: '1'}})\n"
  "  .then(() => post({method: 'ui/notifications/initialized'}));\n"
  "</script>\n"
  "</body>\n"
  "</html>\n";

static void
demo_add_app (SnodoServer *server)
{
  g_autoptr(SnodoResource) view = snodo_resource_new ("ui://snodo-demo/chart", "chart-view");
  g_autoptr(JsonNode) ui = json_from_string ("{\"prefersBorder\":true}", NULL);
  g_autoptr(GError) error = NULL;

  snodo_resource_set_title (view, "Chart of the tool chart");
  if (!snodo_server_add_app (server, snodo_server_lookup_tool (server, "chart"), view, demo_chart_html, ui, &error))
    g_error ("chart: %s", error->message);
}

static void
demo_add_catalog (SnodoServer *server)
{
  g_autoptr(SnodoResource) readme = snodo_resource_new ("demo://readme", "readme");
  g_autoptr(SnodoResourceTemplate) echo = snodo_resource_template_new ("demo://echo/{text}", "echo");
  g_autoptr(SnodoPrompt) greet = snodo_prompt_new ("greet", "Asks for a warm greeting");
  g_autoptr(GError) error = NULL;

  snodo_resource_set_title (readme, "About snodo-demo");
  snodo_resource_set_mime_type (readme, "text/markdown");
  if (!snodo_server_add_resource (server, readme, readme_cb, NULL, NULL, &error))
    g_error ("readme: %s", error->message);

  snodo_resource_template_set_description (echo, "Returns the text of its URI");
  snodo_resource_template_set_mime_type (echo, "text/plain");
  if (!snodo_server_add_resource_template (server, echo, echo_resource_cb, NULL, NULL, &error))
    g_error ("echo: %s", error->message);

  snodo_prompt_add_argument (greet, "name", "Who to greet", TRUE);
  if (!snodo_server_add_prompt (server, greet, greet_cb, NULL, NULL, &error))
    g_error ("greet: %s", error->message);

  snodo_server_set_completion_func (server, complete_cb, NULL, NULL);

  demo_add_app (server);
}
