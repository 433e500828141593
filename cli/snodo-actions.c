/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo actions BUS-NAME [OBJECT-PATH]: serves the actions a running
 * application exports on the session bus (org.gtk.Actions) as MCP tools,
 * over standard input and output, through GDBusActionGroup. The
 * application needs no code of its own for it. */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <snodo/snodo.h>

#include "snodo-cli.h"

/* How long to wait for the application to describe its actions. */
#define DESCRIBE_TIMEOUT_S 10

typedef struct
{
  GApplication        *app;       /* held while serving */
  SnodoServer         *server;
  SnodoStdioTransport *transport; /* NULL until the actions are known */
  GActionGroup        *group;
  GHashTable          *waiting;   /* names the application listed, not yet described */
  gulong               added_id;
  guint                timeout_id;
} Actions;

static void
actions_free (Actions *actions)
{
  g_clear_signal_handler (&actions->added_id, actions->group);
  g_clear_handle_id (&actions->timeout_id, g_source_remove);
  g_clear_object (&actions->transport);
  g_clear_object (&actions->server);
  g_clear_object (&actions->group);
  g_clear_pointer (&actions->waiting, g_hash_table_unref);
  g_free (actions);
}

static void
actions_closed_cb (SnodoStdioTransport *transport,
                   const GError        *error,
                   gpointer             user_data)
{
  Actions *actions = user_data;
  GApplication *app = actions->app;

  g_signal_handlers_disconnect_by_data (transport, actions);
  actions_free (actions);
  g_application_release (app);
}

static void
actions_serve (Actions *actions)
{
  if (actions->transport != NULL)
    return;
  g_clear_signal_handler (&actions->added_id, actions->group);
  g_clear_handle_id (&actions->timeout_id, g_source_remove);
  actions->transport = snodo_stdio_transport_new_for_stdio (actions->server);
  g_signal_connect (actions->transport, "closed", G_CALLBACK (actions_closed_cb), actions);
  snodo_stdio_transport_start (actions->transport);
}

static void
actions_added_cb (GActionGroup *group,
                  const char   *name,
                  gpointer      user_data)
{
  Actions *actions = user_data;

  g_hash_table_remove (actions->waiting, name);
  if (g_hash_table_size (actions->waiting) == 0)
    actions_serve (actions);
}

static gboolean
actions_timeout_cb (gpointer user_data)
{
  Actions *actions = user_data;

  actions->timeout_id = 0;
  g_printerr ("snodo: the application did not describe all its actions; serving those it did\n");
  actions_serve (actions);
  return G_SOURCE_REMOVE;
}

/* "org.gnome.TextEditor" → "/org/gnome/TextEditor", as GApplication
 * exports its actions. */
static char *
actions_object_path (const char *bus_name)
{
  char *path = g_strconcat ("/", bus_name, NULL);

  for (char *c = path; *c != '\0'; c++)
    if (*c == '.')
      *c = '/';
    else if (*c == '-')
      *c = '_';
  return path;
}

int
snodo_cli_actions (GApplication *app,
                   int           argc,
                   char        **argv)
{
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree const char **names = NULL;
  Actions *actions;

  if (argc < 1 || argc > 2)
    {
      g_printerr ("snodo: actions needs a bus name and, if it is not the usual one, an object path "
                  "(see snodo --help)\n");
      return 2;
    }
  if (!g_dbus_is_name (argv[0]) || (argc == 2 && !g_variant_is_object_path (argv[1])))
    {
      g_printerr ("snodo: %s is not a bus name and object path\n", argc == 2 ? argv[1] : argv[0]);
      return 2;
    }
  path = argc == 2 ? g_strdup (argv[1]) : actions_object_path (argv[0]);

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus != NULL)
    reply = g_dbus_connection_call_sync (bus, argv[0], path, "org.gtk.Actions", "List", NULL,
                                         G_VARIANT_TYPE ("(as)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  if (reply == NULL)
    {
      g_printerr ("snodo: %s\n", error->message);
      return 1;
    }

  actions = g_new0 (Actions, 1);
  actions->app = app;
  actions->server = snodo_server_new (argv[0], "1");
  actions->group = G_ACTION_GROUP (g_dbus_action_group_get (bus, argv[0], path));
  actions->waiting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_variant_get (reply, "(^a&s)", &names);
  for (guint i = 0; names[i] != NULL; i++)
    g_hash_table_add (actions->waiting, g_strdup (names[i]));
  if (!snodo_server_add_action_group (actions->server, actions->group, "app", NULL, NULL, NULL, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      actions_free (actions);
      return 1;
    }
  g_application_hold (app);
  /* A GDBusActionGroup learns its actions when first asked, then tells of
   * each with action-added; serve once they are all known. */
  actions->added_id = g_signal_connect (actions->group, "action-added", G_CALLBACK (actions_added_cb), actions);
  g_strfreev (g_action_group_list_actions (actions->group));
  if (g_hash_table_size (actions->waiting) == 0)
    actions_serve (actions);
  else
    actions->timeout_id = g_timeout_add_seconds (DESCRIBE_TIMEOUT_S, actions_timeout_cb, actions);
  return 0;
}
