/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo: talks to an MCP server from the command line, with SnodoClient.
 *
 *   snodo list [OPTION…] -- COMMAND [ARG…]
 *   snodo call [OPTION…] -- COMMAND [ARG…] METHOD [PARAMS-JSON]
 *   snodo actions BUS-NAME [OBJECT-PATH]
 *   snodo servers [--config FORMAT] [ID…]
 *
 * The server is started with COMMAND and ended when snodo is done. Results
 * go to standard output; an error is one line on standard error and the
 * exit status 1 (2 for a usage error). */

#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>
#include <snodo/snodo.h>

#include "snodo-cli.h"

typedef struct
{
  GApplication *app;
  SnodoClient *client;
  /* "list" or "call". */
  char *command;
  char *method;
  JsonObject *params;
  /* What list has yet to print, in order. */
  guint list_step;
  int status;
} Cli;

static void cli_close (Cli *cli);

static void
cli_fail (Cli          *cli,
          const GError *error)
{
  g_printerr ("snodo: %s\n", error->message);
  cli->status = 1;
  cli_close (cli);
}

static void
cli_closed_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Cli *cli = user_data;

  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_application_release (cli->app);
}

static void
cli_close (Cli *cli)
{
  snodo_client_close_async (cli->client, NULL, cli_closed_cb, cli);
}

static void
print_json (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (generator, TRUE);
  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

static void
cli_called_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Cli *cli = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonNode) node = NULL;

  answer = snodo_client_request_finish (SNODO_CLIENT (source), result, &error);
  if (answer == NULL)
    {
      cli_fail (cli, error);
      return;
    }
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, answer);
  print_json (node);
  cli_close (cli);
}

static const struct
{
  const char *capability;
  const char *title;
  const char *key;
  void (*start) (SnodoClient *, GCancellable *, GAsyncReadyCallback, gpointer);
  JsonArray *(*finish) (SnodoClient *, GAsyncResult *, GError **);
} list_steps[] = {
  { "tools", "Tools", "name", snodo_client_list_tools_async, snodo_client_list_tools_finish },
  { "resources", "Resources", "uri", snodo_client_list_resources_async, snodo_client_list_resources_finish },
  { "resources", "Resource templates", "uriTemplate", snodo_client_list_resource_templates_async,
    snodo_client_list_resource_templates_finish },
  { "prompts", "Prompts", "name", snodo_client_list_prompts_async, snodo_client_list_prompts_finish },
};

static void cli_list_next (Cli *cli);

static void
cli_listed_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Cli *cli = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) items = NULL;

  items = list_steps[cli->list_step].finish (SNODO_CLIENT (source), result, &error);
  if (items == NULL)
    {
      cli_fail (cli, error);
      return;
    }
  printf ("%s:\n", list_steps[cli->list_step].title);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *element = json_array_get_element (items, i);
      JsonObject *item = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *key = item != NULL ? json_object_get_string_member_with_default (item, list_steps[cli->list_step].key, "?") : "?";
      const char *description = item != NULL ? json_object_get_string_member_with_default (item, "description", NULL) : NULL;

      if (description != NULL)
        printf ("  %s  %s\n", key, description);
      else
        printf ("  %s\n", key);
    }
  cli->list_step++;
  cli_list_next (cli);
}

static void
cli_list_next (Cli *cli)
{
  JsonObject *capabilities = snodo_client_get_server_capabilities (cli->client);

  /* What the server does not offer is not asked for. */
  while (cli->list_step < G_N_ELEMENTS (list_steps) &&
         !json_object_has_member (capabilities, list_steps[cli->list_step].capability))
    cli->list_step++;
  if (cli->list_step == G_N_ELEMENTS (list_steps))
    {
      cli_close (cli);
      return;
    }
  list_steps[cli->list_step].start (cli->client, NULL, cli_listed_cb, cli);
}

static void
cli_connected_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Cli *cli = user_data;
  g_autoptr(GError) error = NULL;

  if (!snodo_client_connect_finish (SNODO_CLIENT (source), result, &error))
    {
      cli_fail (cli, error);
      return;
    }
  if (g_str_equal (cli->command, "list"))
    {
      JsonObject *info = snodo_client_get_server_info (cli->client);

      printf ("Server: %s %s (protocol %s)\n",
              info != NULL ? json_object_get_string_member_with_default (info, "name", "?") : "?",
              info != NULL ? json_object_get_string_member_with_default (info, "version", "") : "",
              snodo_protocol_version_to_string (snodo_client_get_protocol_version (cli->client)));
      cli_list_next (cli);
    }
  else
    snodo_client_request_async (cli->client, cli->method, cli->params, NULL, cli_called_cb, cli);
}

static int
usage_error (const char *message)
{
  g_printerr ("snodo: %s (see snodo --help)\n", message);
  return 2;
}

static int
command_line_cb (GApplication            *app,
                 GApplicationCommandLine *command_line,
                 Cli                     *cli)
{
  GVariantDict *options = g_application_command_line_get_options_dict (command_line);
  g_auto(GStrv) argv = NULL;
  g_autoptr(GPtrArray) server = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *version_string = NULL;
  const char *uri = NULL;
  int argc;
  int i;
  int end;

  argv = g_application_command_line_get_arguments (command_line, &argc);
  if (argc >= 2 && g_str_equal (argv[1], "actions"))
    return snodo_cli_actions (app, argc - 2, argv + 2);
  if (argc >= 2 && g_str_equal (argv[1], "servers"))
    {
      const char *config = NULL;

      g_variant_dict_lookup (options, "config", "&s", &config);
      return snodo_cli_servers (config, argc - 2, argv + 2);
    }
  if (argc >= 2 && g_str_equal (argv[1], "proxy") && g_variant_dict_contains (options, "serve"))
    return snodo_cli_proxy_serve (app, options, argc - 2, argv + 2);
  if (argc >= 2 && g_str_equal (argv[1], "proxy"))
    return snodo_cli_proxy (app, options, argc - 2, argv + 2);
  if (g_variant_dict_contains (options, "serve"))
    return usage_error ("--serve goes with proxy");
  if (argc < 2 || (!g_str_equal (argv[1], "list") && !g_str_equal (argv[1], "call")))
    return usage_error ("the first argument must be list, call, proxy, actions or servers");
  cli->command = g_strdup (argv[1]);

  g_variant_dict_lookup (options, "http", "&s", &uri);
  i = 2;
  if (i < argc && g_str_equal (argv[i], "--"))
    i++;
  end = argc;
  if (g_str_equal (cli->command, "call"))
    {
      /* METHOD [PARAMS-JSON] are the last arguments. */
      if (end - i >= (uri != NULL ? 2 : 3) && argv[end - 1][0] == '{')
        {
          g_autoptr(JsonNode) node = NULL;

          node = json_from_string (argv[end - 1], &error);
          if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
            {
              g_printerr ("snodo: the params are not a JSON object: %s\n",
                          error != NULL ? error->message : argv[end - 1]);
              return 1;
            }
          cli->params = json_node_dup_object (node);
          end--;
        }
      if (end - i < (uri != NULL ? 1 : 2))
        return usage_error (uri != NULL ? "call needs a method" : "call needs a command and a method");
      cli->method = g_strdup (argv[end - 1]);
      end--;
    }
  if (uri != NULL && end > i)
    return usage_error ("--http goes without a command");
  if (uri == NULL && end - i < 1)
    return usage_error ("no command to start the server with (or --http URL)");
  for (; i < end; i++)
    g_ptr_array_add (server, argv[i]);
  g_ptr_array_add (server, NULL);

  if (!snodo_cli_check_client_options (options, uri != NULL, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE) ? 2 : 1;
    }

  if (uri != NULL)
    cli->client = snodo_client_new_for_uri (uri, &error);
  else
    cli->client = snodo_client_new_for_argv ((const char * const *) server->pdata, &error);
  if (cli->client == NULL)
    {
      g_printerr ("snodo: %s\n", error->message);
      return 1;
    }
  if (!snodo_cli_apply_client_options (cli->client, options, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return 1;
    }
  /* Signing in, unless the user gave the token (a file, or an
   * Authorization header). */
  if (uri != NULL && !snodo_cli_has_own_authorization (options) &&
      !snodo_cli_set_up_oauth (cli->client, options, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return 1;
    }
  if (g_variant_dict_lookup (options, "protocol-version", "&s", &version_string))
    {
      SnodoProtocolVersion version = snodo_protocol_version_from_string (version_string);

      if (version == SNODO_PROTOCOL_VERSION_UNKNOWN)
        {
          g_printerr ("snodo: unknown protocol version %s (known: 2025-06-18, 2025-11-25, 2026-07-28)\n",
                      version_string);
          cli->status = 1;
          g_application_hold (app);
          cli_close (cli);
          return 0;
        }
      snodo_client_set_pinned_version (cli->client, version);
    }
  /* On a terminal the user answers the server's questions
   * (snodo-elicit.c); otherwise none is declared. */
  if (g_str_equal (cli->command, "call") && snodo_cli_stdin_is_terminal ())
    snodo_cli_elicit_install (cli->client);

  g_application_hold (app);
  snodo_client_connect_async (cli->client, NULL, cli_connected_cb, cli);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  static const GOptionEntry entries[] = {
    { "protocol-version", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Speak only this protocol version: 2025-06-18, 2025-11-25 or 2026-07-28 (default: the newest the server speaks)",
      "VERSION" },
    { "http", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Talk to the server at URL (http, https, or http+unix for a Unix socket) over Streamable HTTP instead of starting one; "
      "with proxy, serve over Streamable HTTP on [ADDRESS:]PORT instead (0: a free port)", "URL|[ADDRESS:]PORT" },
    { "header", 'H', 0, G_OPTION_ARG_STRING_ARRAY, NULL,
      "With --http, send this header with every request (repeatable)", "'NAME: VALUE'" },
    { "bearer-token-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With --http, send the token this file holds as Authorization: Bearer", "FILE" },
    { "cacert", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With an https URL, trust the certificate authorities in this PEM file instead of the system's", "FILE" },
    { "client-id", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With --http, sign in as this client, registered beforehand with the authorization server", "ID" },
    { "client-secret-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With --client-id, the client's secret is in this file", "FILE" },
    { "client-credentials", 0, 0, G_OPTION_ARG_NONE, NULL,
      "With --http, sign in as the client itself (no user, no browser): needs --client-id and --client-secret-file",
      NULL },
    { "no-browser", 0, 0, G_OPTION_ARG_NONE, NULL,
      "With --http, only print the sign-in URL, without opening a browser", NULL },
    { "credentials-dir", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With --http, keep sign-ins in files of this folder instead of the user's store", "DIR" },
    { "request-timeout", 0, 0, G_OPTION_ARG_STRING, NULL,
      "How long to wait for each answer, in milliseconds, or 0 for ever (default 60000)", "MS" },
    { "serve", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
      "With proxy, serve the server that COMMAND starts or that is at URL, its tools and prompts named NAME_… "
      "(repeatable: several servers behind one)", "NAME=COMMAND|URL" },
    { "http-unix", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With proxy, serve over HTTP on a Unix socket made at PATH instead of --http", "PATH" },
    { "tls-certificate", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With proxy --http, serve HTTPS with this certificate (a PEM file)", "FILE" },
    { "tls-key", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "The private key of --tls-certificate (a PEM file)", "FILE" },
    { "allowed-hosts", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With proxy --http, accept only these Host headers (separated by commas)", "LIST" },
    { "allowed-origins", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With proxy --http, accept only these Origin headers (separated by commas)", "LIST" },
    { "max-sessions", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With proxy --http, serve at most this many sessions (each has a server of its own)", "N" },
    { "pool-size", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With proxy --http, serve 2026-07-28 requests with at most this many servers (default 4)", "N" },
    { "accept-bearer-token-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "With proxy --http, accept only the bearer tokens of this file: TOKEN PRINCIPAL [SCOPE…] a line", "FILE" },
    { "token-introspection", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With proxy --http, accept the bearer tokens the authorization server says are active for this "
      "server, asked at this token introspection endpoint (RFC 7662)", "URL" },
    { "introspection-client-id", 0, 0, G_OPTION_ARG_STRING, NULL,
      "The client id the proxy asks --token-introspection as", "ID" },
    { "introspection-client-secret-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "The file whose first line is the secret of --introspection-client-id", "FILE" },
    { "authorization-server", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
      "With --accept-bearer-token-file or --token-introspection, where clients get tokens (repeatable)", "URL" },
    { "config", 0, 0, G_OPTION_ARG_STRING, NULL,
      "With servers, print a client configuration in FORMAT: claude-desktop, mcp-servers or vscode", "FORMAT" },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GApplication) app = NULL;
  Cli cli = { 0, };
  int status;

  setlocale (LC_ALL, "");
  /* Standard output holds results only. */
  snodo_stdio_transport_log_to_stderr ();

  app = g_application_new ("org.snodo.Cli", G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_COMMAND_LINE);
  g_application_set_option_context_parameter_string (app, "list|call [--http URL | -- COMMAND [ARG…]] [METHOD [PARAMS-JSON]] | proxy URL | proxy [--http [ADDRESS:]PORT] -- COMMAND [ARG…] | proxy --serve NAME=COMMAND|URL… | actions BUS-NAME [OBJECT-PATH] | servers [--config FORMAT] [ID…]");
  g_application_set_option_context_summary (app,
    "Talks to a Model Context Protocol server that COMMAND starts, or to one at URL.\n"
    "\n"
    "  list   prints the server's tools, resources, resource templates and prompts\n"
    "  call   sends METHOD with PARAMS-JSON (an object) and prints the result as JSON\n"
    "  proxy  serves, on standard input and output, the server at URL or that COMMAND starts:\n"
    "         every message is forwarded to it, and its answers, notifications and requests back;\n"
    "         with --serve, several servers behind one, their tools and prompts named NAME_…\n"
    "         with --http, serves the server that COMMAND starts over Streamable HTTP instead\n"
    "  actions  serves the actions of the application that owns BUS-NAME on the session bus\n"
    "           as an MCP server on standard input and output\n"
    "  servers  lists the installed and running applications that offer MCP, or prints\n"
    "           a client configuration of them with --config");
  g_application_add_main_option_entries (app, entries);
  cli.app = app;
  g_signal_connect (app, "command-line", G_CALLBACK (command_line_cb), &cli);

  status = g_application_run (app, argc, argv);
  if (status == 0)
    status = snodo_cli_proxy_status ();
  if (status == 0)
    status = snodo_cli_proxy_serve_status ();
  g_clear_object (&cli.client);
  snodo_telemetry_flush (2000);
  g_clear_pointer (&cli.params, json_object_unref);
  g_free (cli.method);
  g_free (cli.command);

  return status != 0 ? status : cli.status;
}
