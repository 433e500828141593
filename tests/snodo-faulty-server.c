/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A stdio MCP server whose tools misbehave as application handlers do, for
 * the black-box tests of test-handlers.c:
 *
 *   echo  {text}     answers its text (the server is still alive)
 *   drop  {}         lets go of the invocation without answering
 *   bad-answer {}    answers with return_text (NULL)
 *   bad-json {}      answers with return_result_from_string ("[1]")
 *   hang  {}         keeps the invocation for ever, ignores cancellation
 *   late  {ms}       answers after ms milliseconds, ignoring cancellation
 *   block {ms}       run-in-thread: sleeps ms milliseconds on its worker
 *                    thread, ignoring cancellation, then answers
 *   slow  {}         like hang, with its own handler-timeout of 300 ms
 *
 * Options: --handler-timeout MS (the server's), --write-timeout MS.
 * Criticals are not fatal here, whatever G_DEBUG says: a wrong answer must
 * not kill the server.
 */

#include "config.h"

#include <stdlib.h>

#include <snodo/snodo.h>

static GPtrArray *kept;

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  JsonNode *text = json_object_get_member (snodo_invocation_get_arguments (invocation), "text");

  snodo_invocation_return_text (invocation, text != NULL ? json_node_get_string (text) : "");
}

static void
drop_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  g_object_unref (invocation);
}

static void
bad_answer_cb (SnodoInvocation *invocation,
               gpointer         user_data)
{
  snodo_invocation_return_text (invocation, NULL);
}

static void
bad_json_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  g_autoptr(GError) error = NULL;

  if (snodo_invocation_return_result_from_string (invocation, "[1]", &error))
    g_error ("a JSON array was taken for a result");
  g_printerr ("bad-json: %s\n", error->message);
}

static void
hang_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  g_ptr_array_add (kept, invocation);
}

static gint64
get_ms (SnodoInvocation *invocation)
{
  JsonNode *ms = json_object_get_member (snodo_invocation_get_arguments (invocation), "ms");

  return ms != NULL ? json_node_get_int (ms) : 0;
}

static gboolean
late_answer_cb (gpointer data)
{
  snodo_invocation_return_text (data, "late");
  return G_SOURCE_REMOVE;
}

static void
late_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  g_timeout_add ((guint) get_ms (invocation), late_answer_cb, invocation);
}

static void
block_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  g_usleep (get_ms (invocation) * 1000);
  snodo_invocation_return_text (invocation, "blocked");
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
  static const struct {
    const char    *name;
    SnodoToolFunc  func;
  } tools[] = {
    { "echo", echo_cb },
    { "drop", drop_cb },
    { "bad-answer", bad_answer_cb },
    { "bad-json", bad_json_cb },
    { "hang", hang_cb },
    { "late", late_cb },
    { "block", block_cb },
    { "slow", hang_cb },
  };
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(SnodoServer) server = snodo_server_new ("faulty", "1");
  g_autoptr(SnodoStdioTransport) transport = NULL;

  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  g_log_writer_default_set_use_stderr (TRUE);
  kept = g_ptr_array_new_with_free_func (g_object_unref);

  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (g_str_equal (argv[i], "--handler-timeout"))
        snodo_server_set_handler_timeout (server, (guint) atoi (argv[i + 1]));
    }

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_autoptr(SnodoTool) tool = snodo_tool_new (tools[i].name, tools[i].name);
      g_autoptr(GError) error = NULL;

      if (g_str_equal (tools[i].name, "block"))
        snodo_tool_set_run_in_thread (tool, TRUE);
      if (g_str_equal (tools[i].name, "slow"))
        snodo_tool_set_handler_timeout (tool, 300);
      if (!snodo_server_add_tool (server, tool, tools[i].func, NULL, NULL, &error))
        g_error ("%s", error->message);
    }

  transport = snodo_stdio_transport_new_for_stdio (server);
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (g_str_equal (argv[i], "--write-timeout"))
        snodo_stdio_transport_set_write_timeout (transport, (guint) atoi (argv[i + 1]));
    }
  g_signal_connect (transport, "closed", G_CALLBACK (closed_cb), loop);
  snodo_stdio_transport_start (transport);
  g_main_loop_run (loop);

  g_clear_pointer (&kept, g_ptr_array_unref);
  return 0;
}
