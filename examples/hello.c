/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * hello: the smallest useful MCP server in C, on standard input and output.
 *
 *   greet {name: string}  the text "Hello, <name>!"
 *   about {}              one line about this server
 *
 * Run it and type (or pipe) JSON-RPC lines, one message per line; it exits
 * 0 at the end of input, once every answer is written. A 2026-07-28 request
 * needs no initialize:
 *
 *   echo '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",
 *     "arguments":{"name":"Ada"},"_meta":{"io.modelcontextprotocol/protocolVersion":
 *     "2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' | ./hello
 *
 * (as one line).
 */

#include <signal.h>

#include <snodo/snodo.h>

/* The arguments greet takes, as a JSON Schema. */
static const char greet_schema[] =
  "{"
  "  \"type\": \"object\","
  "  \"properties\": {"
  "    \"name\": {\"type\": \"string\", \"description\": \"Who to greet\"}"
  "  },"
  "  \"required\": [\"name\"]"
  "}";

typedef struct
{
  GMainLoop *loop;
  int        status;
} Hello;

static void
greet_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  /* The server has checked the arguments against the tool's input schema
   * before calling us: "name" is there and is a string. */
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  const char *name = json_object_get_string_member (arguments, "name");
  g_autofree char *text = g_strdup_printf ("Hello, %s!", name);

  snodo_invocation_return_text (invocation, text);
}

static void
about_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  snodo_invocation_return_text (invocation,
                                "A hello server written in C with Snodo " SNODO_VERSION_S);
}

static void
closed_cb (SnodoStdioTransport *transport,
           const GError        *error,
           Hello               *hello)
{
  /* NULL after the end of input; an error when the output failed. */
  if (error != NULL)
    {
      g_printerr ("hello: %s\n", error->message);
      hello->status = 1;
    }
  g_main_loop_quit (hello->loop);
}

static SnodoServer *
hello_server_new (void)
{
  SnodoServer *server = snodo_server_new ("hello-c", "1.0");
  g_autoptr(SnodoTool) greet = snodo_tool_new ("greet", "Greets someone by name");
  g_autoptr(SnodoTool) about = snodo_tool_new ("about", "Says what this server is");
  g_autoptr(GError) error = NULL;

  if (!snodo_tool_set_input_schema_from_string (greet, greet_schema, &error) ||
      !snodo_server_add_tool (server, greet, greet_cb, NULL, NULL, &error) ||
      !snodo_server_add_tool (server, about, about_cb, NULL, NULL, &error))
    g_error ("hello: %s", error->message);

  return server;
}

int
main (void)
{
  g_autoptr(SnodoServer) server = NULL;
  g_autoptr(SnodoStdioTransport) transport = NULL;
  Hello hello = { NULL, 0 };

  /* Standard output carries the protocol: logs go to standard error, and a
   * reader that goes away is an output error, not a killed process. */
  snodo_stdio_transport_log_to_stderr ();
#ifdef SIGPIPE
  signal (SIGPIPE, SIG_IGN);
#endif

  hello.loop = g_main_loop_new (NULL, FALSE);
  server = hello_server_new ();
  transport = snodo_stdio_transport_new_for_stdio (server);
  g_signal_connect (transport, "closed", G_CALLBACK (closed_cb), &hello);
  snodo_stdio_transport_start (transport);
  g_main_loop_run (hello.loop);

  g_main_loop_unref (hello.loop);
  return hello.status;
}
