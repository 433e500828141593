/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#ifdef G_OS_UNIX
# include <fcntl.h>
# include <signal.h>
# include <unistd.h>
# include <glib-unix.h>
# include <gio/gunixsocketaddress.h>
#endif
#ifdef G_OS_WIN32
# include <windows.h>
#endif

#include "snodo-features.h"
#include "snodo-application-binding.h"
#include "snodo-app-private.h"
#include "snodo-base-private.h"
#include "snodo-stdio-transport.h"
#include "snodo-telemetry.h"
#if SNODO_HAS_HTTP_TRANSPORT
# include "snodo-http-transport.h"
#endif

/**
 * SnodoApplicationBinding:
 *
 * Serves a [class@Snodo.Server] from any [class@Gio.Application] when its
 * command line asks for it.
 *
 * Applications subclass `GtkApplication` or `AdwApplication`, so Snodo
 * attaches to an application instead of being its class. One call,
 * [ctor@Snodo.ApplicationBinding.new], adds the option group `mcp` to the
 * application (listed by `--help-mcp` and `--help-all`):
 *
 * - `--mcp-stdio`: serve on standard input and output. GLib's log messages
 *   go to standard error, and standard output is protected (see
 *   [property@Snodo.StdioTransport:protect-stdout]): what the application
 *   prints with `g_print()` goes to standard error, never into the
 *   protocol.
 * - `--mcp-http[=[ADDRESS:]PORT]`: serve Streamable HTTP on ADDRESS (by
 *   default 127.0.0.1; an IPv6 address goes in brackets) and PORT (by
 *   default 0, any free port). The endpoint's URL is printed on standard
 *   output (on standard error if `--mcp-stdio` is given too).
 * - `--mcp-unix=PATH`: serve HTTP on a Unix socket made at PATH, printed as
 *   `http+unix://PATH/mcp`; `--mcp-unix-mode=MODE` and
 *   `--mcp-unix-group=GROUP` set its permissions.
 * - a listening socket passed by the service manager (socket activation:
 *   `LISTEN_PID` and `LISTEN_FDS`, one socket) is served over HTTP too.
 * - `--mcp-tls-certificate=FILE` and `--mcp-tls-key=FILE` serve HTTPS;
 *   `--mcp-allowed-hosts=LIST` and `--mcp-allowed-origins=LIST` (separated
 *   by commas) set [property@Snodo.HttpTransport:allowed-hosts] and
 *   [property@Snodo.HttpTransport:allowed-origins].
 * - `--print-server-json`: print the server's `server.json` (see
 *   [method@Snodo.Server.dup_server_json] and
 *   [property@Snodo.ApplicationBinding:registry-name]) and exit.
 *
 * Without any of them the application runs as it always does, and serves
 * nothing. With one, the options are handled in
 * [signal@Gio.Application::handle-local-options] (after the application's
 * own handlers, which may add the same keys to the options dictionary to
 * ask for serving themselves, as `mcp-stdio` with the type `b` or
 * `mcp-http` with the type `s`), then the application goes on as usual
 * (`activate` or `command-line`) while it serves: it is held
 * ([method@Gio.Application.hold]) as long as a transport is open and
 * released when it closes, so a service without a window ends when its
 * client goes away. SIGINT and SIGTERM (on Windows, Ctrl+C, Ctrl+Break and
 * the closing of the console) close every transport cleanly: the requests
 * in progress are answered first. Wrong options end the application with
 * the status 2, an address that cannot be listened on with 3, a failure of
 * its standard output while serving with
 * [property@Snodo.ApplicationBinding:exit-status] 1, which the application
 * returns from `main()`:
 *
 * ```c
 * #include <snodo/snodo.h>
 *
 * static void
 * activate_cb (GApplication *app,
 *              gpointer      user_data)
 * {
 *   // open the window
 * }
 *
 * int
 * main (int   argc,
 *       char *argv[])
 * {
 *   g_autoptr(GApplication) app = g_application_new ("org.example.Notes", G_APPLICATION_DEFAULT_FLAGS);
 *   g_autoptr(SnodoServer) server = snodo_server_new ("notes", "1.0");
 *   g_autoptr(SnodoApplicationBinding) binding = NULL;
 *   int status;
 *
 *   // add tools and resources to server
 *   g_signal_connect (app, "activate", G_CALLBACK (activate_cb), NULL);
 *   binding = snodo_application_binding_new (app, server);
 *   status = g_application_run (app, argc, argv);
 *   return status != 0 ? status : snodo_application_binding_get_exit_status (binding);
 * }
 * ```
 *
 * In Python, an application that is an MCP server first: it serves on
 * standard input and output unless an option asks for HTTP
 * ([property@Snodo.ApplicationBinding:stdio-by-default]):
 *
 * ```python
 * import sys
 *
 * import gi
 * gi.require_version('Gio', '2.0')
 * gi.require_version('Snodo', '1')
 * from gi.repository import Gio, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 * tool = Snodo.Tool.new('echo', 'Returns its text')
 * tool.set_input_schema({'type': 'object', 'properties': {'text': {'type': 'string'}},
 *                        'required': ['text']})
 * server.add_tool(tool, lambda inv: inv.return_text(inv.get_arguments()['text']))
 *
 * app = Gio.Application(application_id='org.example.MyApp')
 * app.connect('activate', lambda app: None)
 * binding = Snodo.ApplicationBinding.new(app, server)
 * binding.set_stdio_by_default(True)
 * status = app.run(sys.argv)
 * sys.exit(status or binding.get_exit_status())
 * ```
 *
 * and in JavaScript:
 *
 * ```js
 * import Gio from 'gi://Gio';
 * import Snodo from 'gi://Snodo?version=1';
 * import System from 'system';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 * const tool = Snodo.Tool.new('echo', 'Returns its text');
 * tool.set_input_schema({type: 'object', properties: {text: {type: 'string'}}, required: ['text']});
 * server.add_tool(tool, invocation => invocation.get_arguments().text);
 *
 * const app = new Gio.Application({application_id: 'org.example.MyApp'});
 * app.connect('activate', () => {});
 * const binding = Snodo.ApplicationBinding.new(app, server);
 * binding.set_stdio_by_default(true);
 * const status = app.run([System.programInvocationName, ...ARGV]);
 * System.exit(status || binding.get_exit_status());
 * ```
 *
 * **Serving from the running instance.** On Unix, when the application is
 * unique (no %G_APPLICATION_NON_UNIQUE) and already running, `app
 * --mcp-stdio` does not serve on its own: it hands its standard input and
 * output to the primary instance over the session bus, which serves them
 * with its live state (the window the user has open), and waits until that
 * connection ends; its exit status is then the connection's. GLib's own
 * forwarding of command lines cannot carry MCP (it forwards standard input
 * only, and output as text). Elsewhere, or with
 * %G_APPLICATION_NON_UNIQUE, or with an HTTP option as well, the new
 * process serves on its own.
 *
 * The binding lives as long as the application (it keeps itself on it), and
 * everything happens on the main context.
 */

typedef struct
{
  gboolean  stdio;
  gboolean  print_server_json;
  char     *http;
  char     *unix_path;
  char     *unix_mode;
  char     *unix_group;
  char     *tls_certificate;
  char     *tls_key;
  char     *allowed_hosts;
  char     *allowed_origins;
  GSocket  *socket;
} Options;

static void
options_clear (Options *options)
{
  g_free (options->http);
  g_free (options->unix_path);
  g_free (options->unix_mode);
  g_free (options->unix_group);
  g_free (options->tls_certificate);
  g_free (options->tls_key);
  g_free (options->allowed_hosts);
  g_free (options->allowed_origins);
  g_clear_object (&options->socket);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

G_DEFINE_FINAL_TYPE (SnodoApplicationBinding, snodo_application_binding, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_APPLICATION,
  PROP_SERVER,
  PROP_REGISTRY_NAME,
  PROP_EXIT_STATUS,
  PROP_SERVING,
  PROP_STDIO_BY_DEFAULT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  PREPARE_TRANSPORT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GQuark binding_quark;

static int snodo_application_binding_handle_local_options_cb (GApplication            *application,
                                                              GVariantDict            *dict,
                                                              SnodoApplicationBinding *self);

/* The name messages start with. */
static const char *
snodo_application_binding_name (void)
{
  return g_get_prgname () != NULL ? g_get_prgname () : "snodo";
}

#if SNODO_HAS_HTTP_TRANSPORT
static gboolean
snodo_application_binding_http_option_cb (const char  *name,
                                          const char  *value,
                                          gpointer     data,
                                          GError     **error)
{
  SnodoApplicationBinding *self = data;

  g_free (self->opt_http);
  self->opt_http = g_strdup (value != NULL ? value : "");
  return TRUE;
}
#endif

static void
snodo_application_binding_add_options (SnodoApplicationBinding *self)
{
  GOptionEntry entries[] = {
    { "mcp-stdio", 0, 0, G_OPTION_ARG_NONE, &self->opt_stdio,
      N_("Serve MCP on standard input and output"), NULL },
#if SNODO_HAS_HTTP_TRANSPORT
    { "mcp-http", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
      (gpointer) snodo_application_binding_http_option_cb,
      N_("Serve MCP over HTTP on ADDRESS (default 127.0.0.1) and PORT (default 0: any free port); "
         "the URL is printed"), N_("[ADDRESS:]PORT") },
    { "mcp-unix", 0, 0, G_OPTION_ARG_FILENAME, &self->opt_unix,
      N_("Serve MCP over HTTP on a Unix socket made at PATH"), N_("PATH") },
    { "mcp-unix-mode", 0, 0, G_OPTION_ARG_STRING, &self->opt_unix_mode,
      N_("Give the --mcp-unix socket this octal mode, such as 0660"), N_("MODE") },
    { "mcp-unix-group", 0, 0, G_OPTION_ARG_STRING, &self->opt_unix_group,
      N_("Give the --mcp-unix socket this group"), N_("GROUP") },
    { "mcp-tls-certificate", 0, 0, G_OPTION_ARG_FILENAME, &self->opt_tls_certificate,
      N_("Serve HTTPS with the certificate (chain) in this PEM file"), N_("FILE") },
    { "mcp-tls-key", 0, 0, G_OPTION_ARG_FILENAME, &self->opt_tls_key,
      N_("The private key of --mcp-tls-certificate, a PEM file"), N_("FILE") },
    { "mcp-allowed-hosts", 0, 0, G_OPTION_ARG_STRING, &self->opt_allowed_hosts,
      N_("The Host names HTTP requests may use, separated by commas (default: the loopback names)"), N_("LIST") },
    { "mcp-allowed-origins", 0, 0, G_OPTION_ARG_STRING, &self->opt_allowed_origins,
      N_("The Origins HTTP requests may come from, separated by commas (default: the loopback origins)"),
      N_("LIST") },
#endif
    { "print-server-json", 0, 0, G_OPTION_ARG_NONE, &self->opt_print_server_json,
      N_("Print the MCP server's server.json for the MCP Registry and exit"), NULL },
    { NULL }
  };
  GOptionGroup *group = g_option_group_new ("mcp", _("MCP server options:"), _("Show the MCP server options"),
                                            self, NULL);

  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_group_add_entries (group, entries);
  g_application_add_option_group (self->application, group);
}

/* The value of @key: the options dictionary's if it has one (a string, a
 * byte string, or a boolean, TRUE counting as ""), else what the option
 * group parsed. The key is removed from the dictionary, so that it does not
 * travel further. */
static char *
snodo_application_binding_take_string (GVariantDict *dict,
                                       const char   *key,
                                       const char   *parsed)
{
  g_autoptr(GVariant) value = g_variant_dict_lookup_value (dict, key, NULL);

  if (value == NULL)
    return g_strdup (parsed);
  g_variant_dict_remove (dict, key);
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    return g_variant_dup_string (value, NULL);
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BYTESTRING))
    return g_variant_dup_bytestring (value, NULL);
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN) && g_variant_get_boolean (value))
    return g_strdup ("");
  return NULL;
}

static gboolean
snodo_application_binding_take_boolean (GVariantDict *dict,
                                        const char   *key,
                                        gboolean      parsed)
{
  g_autoptr(GVariant) value = g_variant_dict_lookup_value (dict, key, G_VARIANT_TYPE_BOOLEAN);

  if (value == NULL)
    return parsed;
  g_variant_dict_remove (dict, key);
  return g_variant_get_boolean (value);
}

/* The listening socket the service manager passed (sd_listen_fds(3)):
 * LISTEN_PID names this process and LISTEN_FDS counts the descriptors from
 * 3 on. FALSE with @error set when they are there and unusable; TRUE with
 * *out_socket NULL when there are none. */
static gboolean
snodo_application_binding_take_listen_fds (GSocket **out_socket,
                                           GError  **error)
{
#ifdef G_OS_UNIX
  const char *pid_text = g_getenv ("LISTEN_PID");
  const char *fds_text = g_getenv ("LISTEN_FDS");
  guint64 pid = 0;
  guint64 n = 0;

  *out_socket = NULL;
  if (pid_text == NULL || fds_text == NULL ||
      !g_ascii_string_to_unsigned (pid_text, 10, 1, G_MAXINT, &pid, NULL) || (pid_t) pid != getpid ())
    return TRUE;
  /* Not for the processes this one would start. */
  g_unsetenv ("LISTEN_PID");
  g_unsetenv ("LISTEN_FDS");
  g_unsetenv ("LISTEN_FDNAMES");
  if (!g_ascii_string_to_unsigned (fds_text, 10, 0, G_MAXINT, &n, NULL) || n == 0)
    return TRUE;
  if (n > 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("LISTEN_FDS is %s: one socket can be served"), fds_text);
      return FALSE;
    }
  fcntl (3, F_SETFD, FD_CLOEXEC);
  *out_socket = g_socket_new_from_fd (3, error);
  return *out_socket != NULL;
#else
  *out_socket = NULL;
  return TRUE;
#endif
}

/* Reads the options from the group and @dict; FALSE, having said why on
 * standard error, when they are wrong. */
static gboolean
snodo_application_binding_read_options (SnodoApplicationBinding *self,
                                        GVariantDict            *dict,
                                        Options                 *o)
{
  g_autoptr(GError) error = NULL;
  const char *name = snodo_application_binding_name ();

  o->stdio = snodo_application_binding_take_boolean (dict, "mcp-stdio", self->opt_stdio);
  o->print_server_json = snodo_application_binding_take_boolean (dict, "print-server-json",
                                                                 self->opt_print_server_json);
  o->http = snodo_application_binding_take_string (dict, "mcp-http", self->opt_http);
  o->unix_path = snodo_application_binding_take_string (dict, "mcp-unix", self->opt_unix);
  o->unix_mode = snodo_application_binding_take_string (dict, "mcp-unix-mode", self->opt_unix_mode);
  o->unix_group = snodo_application_binding_take_string (dict, "mcp-unix-group", self->opt_unix_group);
  o->tls_certificate = snodo_application_binding_take_string (dict, "mcp-tls-certificate",
                                                              self->opt_tls_certificate);
  o->tls_key = snodo_application_binding_take_string (dict, "mcp-tls-key", self->opt_tls_key);
  o->allowed_hosts = snodo_application_binding_take_string (dict, "mcp-allowed-hosts", self->opt_allowed_hosts);
  o->allowed_origins = snodo_application_binding_take_string (dict, "mcp-allowed-origins",
                                                              self->opt_allowed_origins);
  if (o->print_server_json)
    return TRUE;

#if !SNODO_HAS_HTTP_TRANSPORT
  if (o->http != NULL || o->unix_path != NULL)
    {
      g_printerr (_("%s: this build of Snodo serves no HTTP\n"), name);
      return FALSE;
    }
#endif
  if (!snodo_application_binding_take_listen_fds (&o->socket, &error))
    {
      g_printerr ("%s: %s\n", name, error->message);
      return FALSE;
    }
  if (o->socket != NULL && (o->http != NULL || o->unix_path != NULL))
    {
      g_printerr (_("%s: a socket was passed (LISTEN_FDS): --mcp-http and --mcp-unix do not apply\n"), name);
      return FALSE;
    }
  if (o->http != NULL && o->unix_path != NULL)
    {
      g_printerr (_("%s: --mcp-http and --mcp-unix go one at a time\n"), name);
      return FALSE;
    }
  if (o->unix_path != NULL && o->unix_path[0] == '\0')
    {
      g_printerr (_("%s: --mcp-unix needs a path\n"), name);
      return FALSE;
    }
  if ((o->unix_mode != NULL || o->unix_group != NULL) && o->unix_path == NULL)
    {
      g_printerr (_("%s: --mcp-unix-mode and --mcp-unix-group go with --mcp-unix\n"), name);
      return FALSE;
    }
  if (o->unix_mode != NULL && !g_ascii_string_to_unsigned (o->unix_mode, 8, 1, 0777, NULL, NULL))
    {
      g_printerr (_("%s: --mcp-unix-mode needs an octal mode from 1 to 0777, such as 0660, not “%s”\n"),
                  name, o->unix_mode);
      return FALSE;
    }
  if (o->unix_group != NULL && o->unix_group[0] == '\0')
    {
      g_printerr (_("%s: --mcp-unix-group needs a group\n"), name);
      return FALSE;
    }
  if ((o->tls_certificate != NULL) != (o->tls_key != NULL))
    {
      g_printerr (_("%s: --mcp-tls-certificate and --mcp-tls-key go together\n"), name);
      return FALSE;
    }
  if ((o->tls_certificate != NULL || o->allowed_hosts != NULL || o->allowed_origins != NULL) &&
      o->http == NULL && o->unix_path == NULL && o->socket == NULL)
    {
      g_printerr (_("%s: --mcp-tls-certificate, --mcp-allowed-hosts and --mcp-allowed-origins are for HTTP: "
                    "they need --mcp-http or --mcp-unix\n"), name);
      return FALSE;
    }
  return TRUE;
}

#if SNODO_HAS_HTTP_TRANSPORT
/* --mcp-http's value: "", "PORT", "ADDRESS:PORT" or "[IPV6]:PORT". */
static GSocketAddress *
snodo_application_binding_parse_http (const char  *text,
                                      GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  GSocketAddress *address = snodo_http_transport_parse_address (text, &local_error);

  if (address == NULL)
    g_set_error (error, local_error->domain, local_error->code, "--mcp-http: %s", local_error->message);
  return address;
}

/* A list option, separated by commas, as a transport property. */
static void
snodo_application_binding_set_list (GObject    *transport,
                                    const char *property,
                                    const char *text)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) items = NULL;
  g_auto(GStrv) list = NULL;

  if (text == NULL)
    return;
  items = g_strsplit (text, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_strstrip (items[i]);
      if (items[i][0] != '\0')
        g_strv_builder_add (builder, items[i]);
    }
  list = g_strv_builder_end (builder);
  g_object_set (transport, property, list, NULL);
}

/* http+unix://PATH/mcp for a Unix socket, the endpoint's URI otherwise. */
static char *
snodo_application_binding_dup_where (SnodoHttpTransport *transport,
                                     GSocketAddress     *address,
                                     GSocket            *socket)
{
  g_autoptr(GSocketAddress) local = NULL;

  if (snodo_http_transport_get_port (transport) != 0)
    return snodo_http_transport_dup_uri (transport);
  local = socket != NULL ? g_socket_get_local_address (socket, NULL) : g_object_ref (address);
#ifdef G_OS_UNIX
  if (local != NULL && G_IS_UNIX_SOCKET_ADDRESS (local))
    {
      g_autofree char *path = g_uri_escape_string (g_unix_socket_address_get_path (G_UNIX_SOCKET_ADDRESS (local)),
                                                   NULL, FALSE);

      return g_strdup_printf ("http+unix://%s%s", path, snodo_http_transport_get_path (transport));
    }
#endif
  return snodo_http_transport_dup_uri (transport);
}

static void
snodo_application_binding_http_closed_cb (GObject      *object,
                                          GAsyncResult *result,
                                          gpointer      user_data)
{
  g_autoptr(SnodoApplicationBinding) self = user_data;

  snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL);
  snodo_application_binding_untrack (self, object);
}

/* Listens as @o says; the exit status if it cannot, else -1. */
static int
snodo_application_binding_serve_http (SnodoApplicationBinding *self,
                                      Options                 *o)
{
  g_autoptr(SnodoHttpTransport) transport = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  const char *name = snodo_application_binding_name ();
  gboolean listening;

  if (o->http != NULL)
    {
      address = snodo_application_binding_parse_http (o->http, &error);
      if (address == NULL)
        {
          g_printerr ("%s: %s\n", name, error->message);
          return 2;
        }
    }
#ifdef G_OS_UNIX
  else if (o->unix_path != NULL)
    address = g_unix_socket_address_new (o->unix_path);
#endif

  transport = snodo_http_transport_new (self->server);
  if (o->unix_mode != NULL)
    snodo_http_transport_set_unix_socket_mode (transport, (guint) g_ascii_strtoull (o->unix_mode, NULL, 8));
  if (o->unix_group != NULL)
    snodo_http_transport_set_unix_socket_group (transport, o->unix_group);
  if (o->tls_certificate != NULL)
    {
      g_autoptr(GTlsCertificate) certificate = g_tls_certificate_new_from_files (o->tls_certificate, o->tls_key,
                                                                                 &error);

      if (certificate == NULL)
        {
          g_printerr ("%s: %s\n", name, error->message);
          return 1;
        }
      snodo_http_transport_set_tls_certificate (transport, certificate);
    }
  snodo_application_binding_set_list (G_OBJECT (transport), "allowed-hosts", o->allowed_hosts);
  snodo_application_binding_set_list (G_OBJECT (transport), "allowed-origins", o->allowed_origins);
  g_signal_emit (self, signals[PREPARE_TRANSPORT], 0, transport);

  if (o->socket != NULL)
    listening = snodo_http_transport_listen_socket (transport, o->socket, &error);
  else if (address != NULL)
    listening = snodo_http_transport_listen (transport, address, &error);
  else
    {
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Unix sockets are not supported here"));
      listening = FALSE;
    }
  if (!listening)
    {
      /* A status of its own: a service manager can tell "not there" (the
       * port or socket is taken) from a failure while serving. */
      g_printerr ("%s: %s\n", name, error->message);
      return 3;
    }
  uri = snodo_application_binding_dup_where (transport, address, o->socket);
  if (o->stdio)
    g_printerr ("%s\n", uri);
  else
    g_print ("%s\n", uri);
  snodo_application_binding_track (self, G_OBJECT (transport));
  return -1;
}
#endif

static void
snodo_application_binding_stdio_closed_cb (SnodoStdioTransport     *transport,
                                           const GError            *error,
                                           SnodoApplicationBinding *self)
{
  if (error != NULL)
    {
      g_printerr ("%s: %s\n", snodo_application_binding_name (), error->message);
      if (self->exit_status == 0)
        {
          self->exit_status = 1;
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXIT_STATUS]);
        }
    }
#ifdef G_OS_UNIX
  /* Standard output was the client's: what the application prints until
   * it exits still goes to standard error, not to a client that may read
   * on. */
  if (snodo_stdio_transport_get_protect_stdout (transport))
    dup2 (STDERR_FILENO, STDOUT_FILENO);
#endif
  snodo_application_binding_untrack (self, G_OBJECT (transport));
}

static void
snodo_application_binding_serve_stdio (SnodoApplicationBinding *self)
{
  g_autoptr(SnodoStdioTransport) transport = snodo_stdio_transport_new_for_stdio (self->server);

  g_signal_emit (self, signals[PREPARE_TRANSPORT], 0, transport);
  g_signal_connect_object (transport, "closed", G_CALLBACK (snodo_application_binding_stdio_closed_cb), self, 0);
  /* Protects standard output first: the handlers of notify::serving may
   * print. */
  snodo_stdio_transport_start (transport);
  snodo_application_binding_track (self, G_OBJECT (transport));
}

static int
snodo_application_binding_print_server_json (SnodoApplicationBinding *self)
{
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *derived = NULL;
  const char *registry_name = self->registry_name;
  const char *id = g_application_get_application_id (self->application);

  /* org.example.Notes: org.example/Notes. */
  if (registry_name == NULL && id != NULL && strrchr (id, '.') != NULL)
    {
      derived = g_strdup (id);
      *strrchr (derived, '.') = '/';
      registry_name = derived;
    }
  if (registry_name == NULL)
    {
      g_printerr (_("%s: --print-server-json: the application has no registry name\n"),
                  snodo_application_binding_name ());
      return 1;
    }
  json = snodo_server_dup_server_json (self->server, registry_name, &error);
  if (json == NULL)
    {
      g_printerr ("%s: --print-server-json: %s\n", snodo_application_binding_name (), error->message);
      return 1;
    }
  text = json_to_string (json, TRUE);
  g_print ("%s\n", text);
  return 0;
}

static int
snodo_application_binding_handle_local_options_cb (GApplication            *application,
                                                   GVariantDict            *dict,
                                                   SnodoApplicationBinding *self)
{
  g_auto(Options) o = { 0, };
  gboolean http;
  int status;

  if (!snodo_application_binding_read_options (self, dict, &o))
    return 2;
  if (o.print_server_json)
    return snodo_application_binding_print_server_json (self);
  http = o.http != NULL || o.unix_path != NULL || o.socket != NULL;
  if (!http && self->stdio_by_default)
    o.stdio = TRUE;
  if (!o.stdio && !http)
    return -1;

  if (o.stdio)
    {
      /* GLib writes debug and info messages to standard output by
       * default: here it carries the protocol. On Unix the transport
       * points standard output at standard error while it serves
       * (protect-stdout), which works whatever threads the application
       * started already, where GLib's switch to standard error would
       * not; elsewhere Snodo's own log writer does it. */
#ifndef G_OS_UNIX
      snodo_stdio_transport_log_to_stderr ();
#endif
      if (!http && snodo_application_binding_hand_over (self, &status))
        return status;
    }
#ifdef G_OS_UNIX
  /* A client that goes away must be an output error of its connection,
   * not a killed application. */
  signal (SIGPIPE, SIG_IGN);
#endif
#if SNODO_HAS_HTTP_TRANSPORT
  if (http && (status = snodo_application_binding_serve_http (self, &o)) >= 0)
    return status;
#endif
  if (o.stdio)
    snodo_application_binding_serve_stdio (self);
  return -1;
}

static void
snodo_application_binding_startup_cb (GApplication            *application,
                                      SnodoApplicationBinding *self)
{
  snodo_application_binding_export (self);
}

static void
snodo_application_binding_shutdown_cb (GApplication            *application,
                                       SnodoApplicationBinding *self)
{
  snodo_application_binding_unexport (self);
  /* The spans of the last requests, when they are exported
   * (snodo_telemetry_flush(): at once when they are not). */
  snodo_telemetry_flush (2000);
}

/* ---- Stopping on a signal ------------------------------------------------ */

#ifdef G_OS_UNIX
static gboolean
snodo_application_binding_signal_cb (gpointer data)
{
  snodo_application_binding_close (data);
  return G_SOURCE_CONTINUE;
}
#endif

#ifdef G_OS_WIN32
/* Windows has no SIGINT or SIGTERM: Ctrl+C, Ctrl+Break and the closing of
 * the console call a handler on a thread of its own. It hands the stop to
 * the main context; for the closing of the console, after which Windows
 * ends the process as soon as the handler returns, it waits for the process
 * to end on its own. Set and read on the main context only. */
static SnodoApplicationBinding *console_binding;

static gboolean
snodo_application_binding_console_stop_cb (gpointer data)
{
  if (console_binding != NULL)
    snodo_application_binding_close (console_binding);
  return G_SOURCE_REMOVE;
}

static BOOL WINAPI
snodo_application_binding_console_cb (DWORD type)
{
  switch (type)
    {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
    case CTRL_CLOSE_EVENT:
      g_main_context_invoke (NULL, snodo_application_binding_console_stop_cb, NULL);
      if (type == CTRL_CLOSE_EVENT)
        Sleep (10000);
      return TRUE;
    default:
      return FALSE;
    }
}
#endif

static void
snodo_application_binding_watch_signals (SnodoApplicationBinding *self,
                                         gboolean                 watch)
{
#ifdef G_OS_UNIX
  if (watch && self->sigint_id == 0)
    {
      self->sigint_id = g_unix_signal_add (SIGINT, snodo_application_binding_signal_cb, self);
      self->sigterm_id = g_unix_signal_add (SIGTERM, snodo_application_binding_signal_cb, self);
    }
  else if (!watch)
    {
      g_clear_handle_id (&self->sigint_id, g_source_remove);
      g_clear_handle_id (&self->sigterm_id, g_source_remove);
    }
#endif
#ifdef G_OS_WIN32
  if (watch && console_binding == NULL)
    {
      console_binding = self;
      SetConsoleCtrlHandler (snodo_application_binding_console_cb, TRUE);
    }
  else if (!watch && console_binding == self)
    {
      SetConsoleCtrlHandler (snodo_application_binding_console_cb, FALSE);
      console_binding = NULL;
    }
#endif
}

/* Holds the application while @transport is open. */
void
snodo_application_binding_track (SnodoApplicationBinding *self,
                                 GObject                 *transport)
{
  g_ptr_array_add (self->transports, g_object_ref (transport));
  if (self->application != NULL)
    g_application_hold (self->application);
  if (self->transports->len == 1)
    {
      snodo_application_binding_watch_signals (self, TRUE);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVING]);
    }
}

/* @transport closed: the application is released. */
void
snodo_application_binding_untrack (SnodoApplicationBinding *self,
                                   GObject                 *transport)
{
  if (!g_ptr_array_remove (self->transports, transport))
    return;
  if (self->application != NULL)
    g_application_release (self->application);
  if (self->transports->len == 0)
    {
      snodo_application_binding_watch_signals (self, FALSE);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVING]);
    }
}

/* ---- The object ---------------------------------------------------------- */

static void
snodo_application_binding_dispose (GObject *object)
{
  SnodoApplicationBinding *self = SNODO_APPLICATION_BINDING (object);

  snodo_application_binding_watch_signals (self, FALSE);
  snodo_application_binding_unexport (self);
  if (self->application != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->application), (gpointer *) &self->application);
      self->application = NULL;
    }
  g_ptr_array_set_size (self->transports, 0);

  G_OBJECT_CLASS (snodo_application_binding_parent_class)->dispose (object);
}

static void
snodo_application_binding_finalize (GObject *object)
{
  SnodoApplicationBinding *self = SNODO_APPLICATION_BINDING (object);

  g_clear_object (&self->server);
  g_free (self->registry_name);
  g_free (self->opt_http);
  g_free (self->opt_unix);
  g_free (self->opt_unix_mode);
  g_free (self->opt_unix_group);
  g_free (self->opt_tls_certificate);
  g_free (self->opt_tls_key);
  g_free (self->opt_allowed_hosts);
  g_free (self->opt_allowed_origins);
  g_ptr_array_unref (self->transports);

  G_OBJECT_CLASS (snodo_application_binding_parent_class)->finalize (object);
}

static void
snodo_application_binding_constructed (GObject *object)
{
  SnodoApplicationBinding *self = SNODO_APPLICATION_BINDING (object);

  G_OBJECT_CLASS (snodo_application_binding_parent_class)->constructed (object);

  /* Made bare (without an application or a server, as bindings may):
   * attached to nothing, it serves nothing. */
  if (self->application == NULL || self->server == NULL)
    return;

  /* The application keeps the binding: the caller may drop its own
   * reference. */
  g_object_set_qdata_full (G_OBJECT (self->application), binding_quark, g_object_ref (self), g_object_unref);
  snodo_application_binding_add_options (self);
  g_signal_connect_object (self->application, "handle-local-options",
                           G_CALLBACK (snodo_application_binding_handle_local_options_cb), self, G_CONNECT_AFTER);
  g_signal_connect_object (self->application, "startup",
                           G_CALLBACK (snodo_application_binding_startup_cb), self, 0);
  g_signal_connect_object (self->application, "shutdown",
                           G_CALLBACK (snodo_application_binding_shutdown_cb), self, 0);
}

static void
snodo_application_binding_get_property (GObject    *object,
                                        guint       prop_id,
                                        GValue     *value,
                                        GParamSpec *pspec)
{
  SnodoApplicationBinding *self = SNODO_APPLICATION_BINDING (object);

  switch (prop_id)
    {
    case PROP_APPLICATION:
      g_value_set_object (value, self->application);
      break;
    case PROP_SERVER:
      g_value_set_object (value, self->server);
      break;
    case PROP_REGISTRY_NAME:
      g_value_set_string (value, self->registry_name);
      break;
    case PROP_EXIT_STATUS:
      g_value_set_int (value, self->exit_status);
      break;
    case PROP_SERVING:
      g_value_set_boolean (value, snodo_application_binding_get_serving (self));
      break;
    case PROP_STDIO_BY_DEFAULT:
      g_value_set_boolean (value, self->stdio_by_default);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_application_binding_set_property (GObject      *object,
                                        guint         prop_id,
                                        const GValue *value,
                                        GParamSpec   *pspec)
{
  SnodoApplicationBinding *self = SNODO_APPLICATION_BINDING (object);

  switch (prop_id)
    {
    case PROP_APPLICATION:
      self->application = g_value_get_object (value);
      if (self->application != NULL)
        g_object_add_weak_pointer (G_OBJECT (self->application), (gpointer *) &self->application);
      break;
    case PROP_SERVER:
      self->server = g_value_dup_object (value);
      break;
    case PROP_REGISTRY_NAME:
      snodo_application_binding_set_registry_name (self, g_value_get_string (value));
      break;
    case PROP_STDIO_BY_DEFAULT:
      snodo_application_binding_set_stdio_by_default (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_application_binding_class_init (SnodoApplicationBindingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = snodo_application_binding_constructed;
  object_class->dispose = snodo_application_binding_dispose;
  object_class->finalize = snodo_application_binding_finalize;
  object_class->get_property = snodo_application_binding_get_property;
  object_class->set_property = snodo_application_binding_set_property;

  binding_quark = g_quark_from_static_string ("snodo-application-binding");

  /**
   * SnodoApplicationBinding:application: (getter get_application)
   *
   * The application the binding is attached to. It keeps the binding.
   */
  properties[PROP_APPLICATION] =
    g_param_spec_object ("application", NULL, NULL, G_TYPE_APPLICATION,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoApplicationBinding:server: (getter get_server)
   *
   * The server the application serves when asked to.
   */
  properties[PROP_SERVER] =
    g_param_spec_object ("server", NULL, NULL, SNODO_TYPE_SERVER,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoApplicationBinding:registry-name: (getter get_registry_name) (setter set_registry_name)
   *
   * The server's name in the MCP Registry, for `--print-server-json`,
   * such as `io.github.example/notes`. When %NULL, it is made from the
   * application's id: `org.example.Notes` gives `org.example/Notes`.
   */
  properties[PROP_REGISTRY_NAME] =
    g_param_spec_string ("registry-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoApplicationBinding:exit-status: (getter get_exit_status)
   *
   * How serving ended, for the application's exit status: 0, or 1 once
   * the transport on the process's standard input and output failed (its
   * output failed, or a write took longer than its write timeout). The
   * application returns it from `main()` when
   * [method@Gio.Application.run] returned 0.
   */
  properties[PROP_EXIT_STATUS] =
    g_param_spec_int ("exit-status", NULL, NULL, 0, G_MAXINT, 0,
                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoApplicationBinding:serving: (getter get_serving)
   *
   * Whether a transport is open: the process's standard input and output,
   * an HTTP endpoint, or a connection another instance handed over.
   */
  properties[PROP_SERVING] =
    g_param_spec_boolean ("serving", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoApplicationBinding:stdio-by-default: (getter get_stdio_by_default) (setter set_stdio_by_default)
   *
   * Whether to serve on standard input and output when no option asks for
   * HTTP, even without `--mcp-stdio`: for an application that is an MCP
   * server first, run as a command by its clients. By default it serves
   * only when asked.
   */
  properties[PROP_STDIO_BY_DEFAULT] =
    g_param_spec_boolean ("stdio-by-default", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SnodoApplicationBinding::prepare-transport:
   * @self: the binding
   * @transport: a [class@Snodo.StdioTransport] or a
   *   [class@Snodo.HttpTransport]
   *
   * Emitted on the main context when a transport has been made, before it
   * starts: the place to set its limits (its write timeout, its
   * executor's bounds, an HTTP transport's authorization). An HTTP
   * transport has its options (TLS, allowed hosts and origins) set
   * already.
   */
  signals[PREPARE_TRANSPORT] =
    g_signal_new ("prepare-transport",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  NULL, NULL,
                  NULL,
                  G_TYPE_NONE, 1, G_TYPE_OBJECT);
}

static void
snodo_application_binding_init (SnodoApplicationBinding *self)
{
  self->transports = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * snodo_application_binding_new:
 * @application: the application
 * @server: what it serves
 *
 * Attaches to @application: adds the option group `mcp` to it, and serves
 * @server when one of its options is given (see the class's
 * documentation). Call it before [method@Gio.Application.run], once per
 * application.
 *
 * The application keeps the binding as long as it lives; the reference
 * returned is the caller's, who may drop it at once.
 *
 * Returns: (transfer full): the binding
 */
SnodoApplicationBinding *
snodo_application_binding_new (GApplication *application,
                               SnodoServer  *server)
{
  g_return_val_if_fail (G_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (SNODO_IS_SERVER (server), NULL);
  g_return_val_if_fail (g_object_get_qdata (G_OBJECT (application),
                                            g_quark_from_static_string ("snodo-application-binding")) == NULL,
                        NULL);

  return g_object_new (SNODO_TYPE_APPLICATION_BINDING,
                       "application", application,
                       "server", server,
                       NULL);
}

/**
 * snodo_application_binding_get_application:
 * @self: a binding
 *
 * Gets the application the binding is attached to.
 *
 * Returns: (transfer none) (nullable): the application, or %NULL once it
 *   is finalized
 */
GApplication *
snodo_application_binding_get_application (SnodoApplicationBinding *self)
{
  g_return_val_if_fail (SNODO_IS_APPLICATION_BINDING (self), NULL);

  return self->application;
}

/**
 * snodo_application_binding_get_server:
 * @self: a binding
 *
 * Gets the server the application serves.
 *
 * Returns: (transfer none): the server
 */
SnodoServer *
snodo_application_binding_get_server (SnodoApplicationBinding *self)
{
  g_return_val_if_fail (SNODO_IS_APPLICATION_BINDING (self), NULL);

  return self->server;
}

/**
 * snodo_application_binding_get_registry_name:
 * @self: a binding
 *
 * Gets the name set for `--print-server-json`.
 *
 * Returns: (nullable): the name set for `--print-server-json`
 */
const char *
snodo_application_binding_get_registry_name (SnodoApplicationBinding *self)
{
  g_return_val_if_fail (SNODO_IS_APPLICATION_BINDING (self), NULL);

  return self->registry_name;
}

/**
 * snodo_application_binding_set_registry_name:
 * @self: a binding
 * @registry_name: (nullable): the server's name in the MCP Registry
 *
 * Sets the name `--print-server-json` prints the server under.
 */
void
snodo_application_binding_set_registry_name (SnodoApplicationBinding *self,
                                             const char              *registry_name)
{
  g_return_if_fail (SNODO_IS_APPLICATION_BINDING (self));

  if (g_strcmp0 (self->registry_name, registry_name) == 0)
    return;
  g_free (self->registry_name);
  self->registry_name = g_strdup (registry_name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REGISTRY_NAME]);
}

/**
 * snodo_application_binding_get_exit_status:
 * @self: a binding
 *
 * Gets how serving ended, for the application's exit status.
 *
 * Returns: 0, or 1 if serving on standard input and output failed
 */
int
snodo_application_binding_get_exit_status (SnodoApplicationBinding *self)
{
  g_return_val_if_fail (SNODO_IS_APPLICATION_BINDING (self), 1);

  return self->exit_status;
}

/**
 * snodo_application_binding_get_serving:
 * @self: a binding
 *
 * Gets whether a transport is open.
 *
 * Returns: whether a transport is open
 */
gboolean
snodo_application_binding_get_serving (SnodoApplicationBinding *self)
{
  g_return_val_if_fail (SNODO_IS_APPLICATION_BINDING (self), FALSE);

  return self->transports->len > 0;
}

/**
 * snodo_application_binding_close:
 * @self: a binding
 *
 * Closes every transport open, cleanly, as SIGINT and SIGTERM do: each
 * answers the requests in progress, then closes and releases the
 * application. An application calls it when it quits by itself (its last
 * window closed, say).
 */
void
snodo_application_binding_close (SnodoApplicationBinding *self)
{
  g_autoptr(GPtrArray) transports = NULL;

  g_return_if_fail (SNODO_IS_APPLICATION_BINDING (self));

  transports = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->transports->len; i++)
    g_ptr_array_add (transports, g_object_ref (g_ptr_array_index (self->transports, i)));
  for (guint i = 0; i < transports->len; i++)
    {
      GObject *transport = g_ptr_array_index (transports, i);

      if (SNODO_IS_STDIO_TRANSPORT (transport))
        snodo_stdio_transport_close_async (SNODO_STDIO_TRANSPORT (transport), NULL, NULL, NULL);
#if SNODO_HAS_HTTP_TRANSPORT
      else if (SNODO_IS_HTTP_TRANSPORT (transport) && g_object_get_data (transport, "snodo-closing") == NULL)
        {
          g_object_set_data (transport, "snodo-closing", GINT_TO_POINTER (TRUE));
          snodo_http_transport_close_async (SNODO_HTTP_TRANSPORT (transport), NULL,
                                            snodo_application_binding_http_closed_cb, g_object_ref (self));
        }
#endif
    }
}

/**
 * snodo_application_binding_get_stdio_by_default:
 * @self: a binding
 *
 * Gets whether the application serves on standard input and output when
 * no option asks for HTTP.
 *
 * Returns: whether it does
 */
gboolean
snodo_application_binding_get_stdio_by_default (SnodoApplicationBinding *self)
{
  g_return_val_if_fail (SNODO_IS_APPLICATION_BINDING (self), FALSE);

  return self->stdio_by_default;
}

/**
 * snodo_application_binding_set_stdio_by_default:
 * @self: a binding
 * @stdio_by_default: whether to serve on standard input and output when no
 *   option asks for HTTP
 *
 * Makes the application serve on standard input and output unless told
 * otherwise, as a command that is an MCP server does.
 */
void
snodo_application_binding_set_stdio_by_default (SnodoApplicationBinding *self,
                                                gboolean                 stdio_by_default)
{
  g_return_if_fail (SNODO_IS_APPLICATION_BINDING (self));

  stdio_by_default = !!stdio_by_default;
  if (self->stdio_by_default == stdio_by_default)
    return;
  self->stdio_by_default = stdio_by_default;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STDIO_BY_DEFAULT]);
}
