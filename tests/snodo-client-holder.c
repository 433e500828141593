/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A process that holds a SnodoClient of a server it started, for the
 * tests of what happens to the server when the client's process dies:
 *
 *   snodo-client-holder [--connect] [--thread] -- COMMAND ARGS…
 *
 * It prints the server's pid on a line, once the server is started (and,
 * with --connect, connected), then waits to be killed. With --thread the
 * client is made in a thread that ends right after. */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <snodo/snodo.h>

static gboolean opt_connect;
static gboolean opt_thread;
/* The server's pid, read as soon as it started: with --thread it may be
 * gone before the thread is joined. */
static char *server_pid;

static gpointer
make_client (gpointer user_data)
{
  char **argv = user_data;
  g_autoptr(GError) error = NULL;
  SnodoClient *client;

  client = snodo_client_new_for_argv ((const char * const *) argv, &error);
  if (client == NULL)
    g_error ("%s", error->message);
  server_pid = g_strdup (g_subprocess_get_identifier (snodo_client_get_subprocess (client)));
  return client;
}

static void
connected_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  if (!snodo_client_connect_finish (SNODO_CLIENT (source), result, &error))
    g_error ("%s", error->message);
  *done = TRUE;
}

int
main (int   argc,
      char *argv[])
{
  static const GOptionEntry entries[] = {
    { "connect", 0, 0, G_OPTION_ARG_NONE, &opt_connect, "Connect to the server", NULL },
    { "thread", 0, 0, G_OPTION_ARG_NONE, &opt_thread, "Make the client in a thread that ends", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("-- COMMAND…");
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  SnodoClient *client;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc < 2)
    {
      g_printerr ("usage: snodo-client-holder [--connect] [--thread] -- COMMAND…\n");
      return 2;
    }

  /* GOption leaves "--" in place when no option comes before it. */
  if (argc > 2 && g_strcmp0 (argv[1], "--") == 0)
    {
      argv++;
      argc--;
    }
  if (opt_thread)
    client = g_thread_join (g_thread_new ("client-maker", make_client, argv + 1));
  else
    client = make_client (argv + 1);

  if (opt_connect)
    {
      gboolean done = FALSE;

      snodo_client_connect_async (client, NULL, connected_cb, &done);
      while (!done)
        g_main_context_iteration (NULL, TRUE);
    }

  printf ("%s\n", server_pid);
  fflush (stdout);
  g_main_loop_run (loop);
  return 0;
}
