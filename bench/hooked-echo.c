/* hooked-echo: the echo tool of snodo-demo over stdio, with or without one
 * request hook and one answer hook, to measure what installed hooks cost
 * (bench/hooks-cost).
 *
 *   hooked-echo            no hook installed
 *   hooked-echo --hooks    one request hook (reads the method and the tool
 *                          name, counts echo calls) and one answer hook
 *                          given the answer as a tree (counts answers that
 *                          carry an error)
 *   hooked-echo --view-hooks   the same request hook, and the same answer
 *                          hook given a SnodoAnswer (the line)
 *   hooked-echo --middleware   one middleware on tools/call that passes
 *                          the call on and the answer back
 *
 * Built by bench/hooks-cost against the library of a build directory.
 */

#include <signal.h>
#include <string.h>

#include <snodo/snodo.h>

static guint64 echo_calls;
static guint64 error_answers;

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
request_hook (SnodoInvocation *invocation,
              gpointer         user_data)
{
  const char *name = snodo_invocation_get_name (invocation);

  if (g_str_equal (snodo_invocation_get_method (invocation), "tools/call") &&
      name != NULL && g_str_equal (name, "echo"))
    echo_calls++;
}

static void
answer_hook (SnodoInvocation *invocation,
             JsonNode        *answer,
             gpointer         user_data)
{
  if (JSON_NODE_HOLDS_OBJECT (answer) &&
      json_object_has_member (json_node_get_object (answer), "error"))
    error_answers++;
}

static void
answer_view_hook (SnodoInvocation *invocation,
                  SnodoAnswer     *answer,
                  gpointer         user_data)
{
  if (snodo_answer_is_error (answer))
    error_answers++;
}

static void
passed_cb (SnodoMiddlewareNext *next,
           SnodoInvocation     *invocation,
           SnodoAnswer         *answer,
           gpointer             user_data)
{
  snodo_invocation_return_answer (invocation, answer);
}

static void
pass_middleware (SnodoInvocation     *invocation,
                 SnodoMiddlewareNext *next,
                 gpointer             user_data)
{
  snodo_middleware_next_call (next, invocation, passed_cb, NULL, NULL);
}

static void
closed_cb (SnodoStdioTransport *transport,
           const GError        *error,
           GMainLoop           *loop)
{
  g_main_loop_quit (loop);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(SnodoServer) server = snodo_server_new ("hooked-echo", "1.0");
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", "Returns its text unchanged");
  g_autoptr(SnodoStdioTransport) transport = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;

  g_log_writer_default_set_use_stderr (TRUE);
  signal (SIGPIPE, SIG_IGN);

  if (!snodo_tool_set_input_schema_from_string (echo,
                                                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
                                                &error) ||
      !snodo_server_add_tool (server, echo, echo_cb, NULL, NULL, &error))
    g_error ("hooked-echo: %s", error->message);

  if (argc > 1 && strcmp (argv[1], "--hooks") == 0)
    {
      snodo_server_add_request_hook (server, request_hook, NULL, NULL);
      snodo_server_add_answer_hook (server, answer_hook, NULL, NULL);
    }
  else if (argc > 1 && strcmp (argv[1], "--view-hooks") == 0)
    {
      snodo_server_add_request_hook (server, request_hook, NULL, NULL);
      snodo_server_add_answer_view_hook (server, answer_view_hook, NULL, NULL);
    }
  else if (argc > 1 && strcmp (argv[1], "--middleware") == 0)
    snodo_server_add_middleware (server, "tools/call", pass_middleware, NULL, NULL);

  transport = snodo_stdio_transport_new_for_stdio (server);
  g_signal_connect (transport, "closed", G_CALLBACK (closed_cb), loop);
  snodo_stdio_transport_start (transport);
  g_main_loop_run (loop);

  g_printerr ("hooked-echo: %" G_GUINT64_FORMAT " echo calls seen by the request hook, "
              "%" G_GUINT64_FORMAT " error answers seen by the answer hook\n",
              echo_calls, error_answers);
  return 0;
}
