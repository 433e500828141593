/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo servers [--config FORMAT] [ID…]: the applications that offer MCP
 * (introspection/discovery.md). Installed: the desktop files of
 * XDG_DATA_DIRS whose Implements= names io.snodo.Mcp, with the command of
 * their [X-Snodo Mcp] group. Running: the names on the session bus that
 * export io.snodo.Mcp at their object path. Lists them, or prints a client
 * configuration of them in one of the forms of data/mcp-clients/. */

#include "config.h"

#include <stdio.h>
#include <string.h>

#ifdef HAVE_GIO_DESKTOP_APP_INFO
# include <gio/gdesktopappinfo.h>
#endif
#include <snodo/snodo.h>

#include "snodo-cli.h"

#define MCP_INTERFACE "io.snodo.Mcp"
#define MCP_GROUP "X-Snodo Mcp"
/* How long a running application has to answer. */
#define BUS_TIMEOUT_MS 2000

typedef struct
{
  char    *id;          /* the desktop file's id without .desktop, or the bus name */
  char    *name;        /* nullable: the application's name */
  GStrv    command;     /* nullable: serves MCP on standard input and output */
  char    *bus_name;    /* nullable */
  gboolean installed;
  gboolean activatable; /* the bus starts it (DBusActivatable=true) */
  gboolean running;
} Server;

static void
server_free (gpointer data)
{
  Server *server = data;

  g_free (server->id);
  g_free (server->name);
  g_strfreev (server->command);
  g_free (server->bus_name);
  g_free (server);
}

static Server *
servers_find_bus_name (GPtrArray  *servers,
                       const char *bus_name)
{
  for (guint i = 0; i < servers->len; i++)
    {
      Server *server = g_ptr_array_index (servers, i);

      if (g_strcmp0 (server->bus_name, bus_name) == 0)
        return server;
    }
  return NULL;
}

#ifdef HAVE_GIO_DESKTOP_APP_INFO
/* The command of an [X-Snodo Mcp] Exec= line: inside Flatpak (the exported
 * desktop file says X-Flatpak=APP-ID), run in the sandbox with flatpak run. */
static GStrv
servers_command (const char  *exec,
                 const char  *flatpak,
                 GError     **error)
{
  g_auto(GStrv) argv = NULL;
  GStrvBuilder *builder;
  GStrv command;

  if (!g_shell_parse_argv (exec, NULL, &argv, error))
    return NULL;
  if (flatpak == NULL)
    return g_steal_pointer (&argv);
  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, "flatpak");
  g_strv_builder_add (builder, "run");
  {
    g_autofree char *option = g_strconcat ("--command=", argv[0], NULL);

    g_strv_builder_add (builder, option);
  }
  g_strv_builder_add (builder, flatpak);
  for (guint i = 1; argv[i] != NULL; i++)
    g_strv_builder_add (builder, argv[i]);
  command = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return command;
}
static void
servers_add_installed (GPtrArray *servers)
{
  GList *apps = g_desktop_app_info_get_implementations (MCP_INTERFACE);

  for (GList *l = apps; l != NULL; l = l->next)
    {
      GDesktopAppInfo *info = l->data;
      const char *filename = g_desktop_app_info_get_filename (info);
      const char *id = g_app_info_get_id (G_APP_INFO (info));
      g_autoptr(GKeyFile) keys = g_key_file_new ();
      g_autoptr(GError) error = NULL;
      g_autofree char *exec = NULL;
      g_autofree char *flatpak = NULL;
      Server *server;

      if (filename == NULL || id == NULL || !g_key_file_load_from_file (keys, filename, G_KEY_FILE_NONE, &error))
        {
          g_printerr ("snodo: %s: %s\n", filename != NULL ? filename : "?",
                      error != NULL ? error->message : "no file");
          continue;
        }
      server = g_new0 (Server, 1);
      server->id = g_str_has_suffix (id, ".desktop") ? g_strndup (id, strlen (id) - strlen (".desktop"))
                                                     : g_strdup (id);
      server->name = g_strdup (g_app_info_get_name (G_APP_INFO (info)));
      server->installed = TRUE;
      server->activatable = g_desktop_app_info_get_boolean (info, "DBusActivatable");
      server->bus_name = g_key_file_get_string (keys, MCP_GROUP, "BusName", NULL);
      if (server->bus_name == NULL && server->activatable)
        server->bus_name = g_strdup (server->id);
      exec = g_key_file_get_string (keys, MCP_GROUP, "Exec", NULL);
      flatpak = g_key_file_get_string (keys, G_KEY_FILE_DESKTOP_GROUP, "X-Flatpak", NULL);
      if (exec != NULL)
        {
          server->command = servers_command (exec, flatpak, &error);
          if (server->command == NULL)
            g_printerr ("snodo: %s: [%s] Exec: %s\n", filename, MCP_GROUP, error->message);
        }
      g_ptr_array_add (servers, server);
    }
  g_list_free_full (apps, g_object_unref);
}
#endif

/* org.example.Notes → /org/example/Notes, as GApplication does. */
static char *
servers_object_path (const char *bus_name)
{
  g_autoptr(GString) path = g_string_new ("/");

  for (const char *c = bus_name; *c != '\0'; c++)
    g_string_append_c (path, *c == '.' ? '/' : *c == '-' ? '_' : *c);
  return g_string_free (g_steal_pointer (&path), FALSE);
}

typedef struct
{
  GPtrArray *servers;
  char      *bus_name;
  guint     *pending;
} Probe;

static void
servers_probed_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Probe *probe = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);

  if (reply != NULL)
    {
      g_autoptr(GVariant) boxed = NULL;
      Server *server = servers_find_bus_name (probe->servers, probe->bus_name);

      if (server == NULL)
        {
          server = g_new0 (Server, 1);
          server->id = g_strdup (probe->bus_name);
          server->bus_name = g_strdup (probe->bus_name);
          g_ptr_array_add (probe->servers, server);
        }
      server->running = TRUE;
      g_variant_get (reply, "(v)", &boxed);
      if (server->command == NULL && g_variant_is_of_type (boxed, G_VARIANT_TYPE_STRING_ARRAY) &&
          g_variant_n_children (boxed) > 0)
        server->command = g_variant_dup_strv (boxed, NULL);
    }
  (*probe->pending)--;
  g_free (probe->bus_name);
  g_free (probe);
}

/* Asks every well-known name of the session bus, at once, for the
 * io.snodo.Mcp interface, without starting anyone. */
static void
servers_add_running (GPtrArray *servers)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr(GVariant) names = NULL;
  g_autoptr(GVariantIter) iter = NULL;
  const char *name;
  guint pending = 0;

  if (bus == NULL)
    return;
  names = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "ListNames", NULL, G_VARIANT_TYPE ("(as)"),
                                       G_DBUS_CALL_FLAGS_NONE, BUS_TIMEOUT_MS, NULL, NULL);
  if (names == NULL)
    return;
  g_variant_get (names, "(as)", &iter);
  while (g_variant_iter_next (iter, "&s", &name))
    {
      g_autofree char *path = NULL;
      Probe *probe;

      if (name[0] == ':' || g_str_equal (name, "org.freedesktop.DBus"))
        continue;
      path = servers_object_path (name);
      probe = g_new0 (Probe, 1);
      probe->servers = servers;
      probe->bus_name = g_strdup (name);
      probe->pending = &pending;
      pending++;
      g_dbus_connection_call (bus, name, path, "org.freedesktop.DBus.Properties", "Get",
                              g_variant_new ("(ss)", MCP_INTERFACE, "StdioCommand"), G_VARIANT_TYPE ("(v)"),
                              G_DBUS_CALL_FLAGS_NO_AUTO_START, BUS_TIMEOUT_MS, NULL, servers_probed_cb, probe);
    }
  /* A command-line program's own context, not a library's caller's. */
  while (pending > 0)
    g_main_context_iteration (NULL, TRUE);
}

static int
servers_compare (gconstpointer a,
                 gconstpointer b)
{
  const Server *x = *(const Server * const *) a;
  const Server *y = *(const Server * const *) b;

  return strcmp (x->id, y->id);
}

static char *
servers_join_command (GStrv command)
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (command == NULL)
    return g_strdup ("-");
  for (guint i = 0; command[i] != NULL; i++)
    {
      gboolean plain = command[i][0] != '\0';
      g_autofree char *quoted = NULL;

      for (const char *c = command[i]; *c != '\0' && plain; c++)
        plain = g_ascii_isalnum (*c) || strchr ("_/.,:=+@%-", *c) != NULL;
      quoted = plain ? g_strdup (command[i]) : g_shell_quote (command[i]);

      g_string_append_printf (text, "%s%s", i > 0 ? " " : "", quoted);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
servers_print_list (GPtrArray *servers)
{
  for (guint i = 0; i < servers->len; i++)
    {
      Server *server = g_ptr_array_index (servers, i);
      g_autoptr(GString) state = g_string_new (NULL);
      g_autofree char *command = servers_join_command (server->command);

      if (server->installed)
        g_string_append (state, "installed");
      if (server->activatable)
        g_string_append (state, state->len > 0 ? ",activatable" : "activatable");
      if (server->running)
        g_string_append (state, state->len > 0 ? ",running" : "running");
      g_print ("%s\t%s\t%s\t%s\n", server->id, state->str, server->name != NULL ? server->name : server->id,
               command);
    }
}

/* The configuration of @servers in @format: claude-desktop (mcpServers,
 * command and args), mcp-servers (the same with "type": "stdio") or
 * vscode (servers, with "type"). */
static gboolean
servers_print_config (GPtrArray   *servers,
                      const char  *format,
                      GError     **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  gboolean typed;

  if (g_str_equal (format, "claude-desktop"))
    typed = FALSE;
  else if (g_str_equal (format, "mcp-servers") || g_str_equal (format, "vscode"))
    typed = TRUE;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "unknown configuration format “%s” (claude-desktop, mcp-servers or vscode)", format);
      return FALSE;
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, g_str_equal (format, "vscode") ? "servers" : "mcpServers");
  json_builder_begin_object (builder);
  for (guint i = 0; i < servers->len; i++)
    {
      Server *server = g_ptr_array_index (servers, i);

      if (server->command == NULL)
        {
          g_printerr ("snodo: %s has no command that serves MCP on standard input and output\n", server->id);
          continue;
        }
      json_builder_set_member_name (builder, server->id);
      json_builder_begin_object (builder);
      if (typed)
        {
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "stdio");
        }
      json_builder_set_member_name (builder, "command");
      json_builder_add_string_value (builder, server->command[0]);
      json_builder_set_member_name (builder, "args");
      json_builder_begin_array (builder);
      for (guint j = 1; server->command[j] != NULL; j++)
        json_builder_add_string_value (builder, server->command[j]);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
  return TRUE;
}

int
snodo_cli_servers (const char  *config,
                   int          argc,
                   char       **argv)
{
  g_autoptr(GPtrArray) servers = g_ptr_array_new_with_free_func (server_free);
  g_autoptr(GPtrArray) chosen = NULL;
  g_autoptr(GError) error = NULL;

  if (config != NULL && !g_str_equal (config, "claude-desktop") && !g_str_equal (config, "mcp-servers") &&
      !g_str_equal (config, "vscode"))
    {
      g_printerr ("snodo: unknown configuration format “%s” (claude-desktop, mcp-servers or vscode)\n", config);
      return 2;
    }

#ifdef HAVE_GIO_DESKTOP_APP_INFO
  servers_add_installed (servers);
#endif
  servers_add_running (servers);
  g_ptr_array_sort (servers, servers_compare);

  if (argc > 0)
    {
      chosen = g_ptr_array_new ();
      for (int i = 0; i < argc; i++)
        {
          Server *found = NULL;

          for (guint j = 0; j < servers->len && found == NULL; j++)
            {
              Server *server = g_ptr_array_index (servers, j);

              if (g_str_equal (server->id, argv[i]) || g_strcmp0 (server->bus_name, argv[i]) == 0)
                found = server;
            }
          if (found == NULL)
            {
              g_printerr ("snodo: no installed or running application “%s” offers MCP\n", argv[i]);
              return 1;
            }
          g_ptr_array_add (chosen, found);
        }
    }

  if (config == NULL)
    {
      servers_print_list (chosen != NULL ? chosen : servers);
      return 0;
    }
  if (!servers_print_config (chosen != NULL ? chosen : servers, config, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return 2;
    }
  return 0;
}
