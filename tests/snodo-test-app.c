/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A GApplication with a SnodoApplicationBinding, for test-application.py
 * and test-application-remote.py. Its state is a counter:
 *
 *   count {}   adds one to the counter; the text is the new value
 *   get   {}   the counter, as text
 *   pid   {}   the process that serves the call, as text
 *   noisy {}   prints "noise" with g_print(), then the text "quiet"
 *
 * It prints "activated" when activated, "count=N" when the counter changes
 * and "serving=0|1" when the binding's serving changes, with g_print() (so
 * on standard error while it serves on standard output). --stay holds it
 * until SIGTERM, and prints "ready" once registered. The application id is
 * $SNODO_TEST_APP_ID (default org.snodo.TestApp); $SNODO_TEST_APP_NON_UNIQUE
 * makes it non-unique.
 */

#include "config.h"

#include <signal.h>

#include <snodo/snodo.h>
#ifdef G_OS_UNIX
# include <glib-unix.h>
# include <unistd.h>
#endif

static gint64 counter;
static gboolean stay;

static void
count_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, ++counter);

  g_print ("count=%s\n", text);
  snodo_invocation_return_text (invocation, text);
}

static void
get_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, counter);

  snodo_invocation_return_text (invocation, text);
}

static void
pid_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
#ifdef G_OS_UNIX
  g_autofree char *text = g_strdup_printf ("%d", (int) getpid ());
#else
  g_autofree char *text = g_strdup ("?");
#endif

  snodo_invocation_return_text (invocation, text);
}

static void
noisy_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  g_print ("noise\n");
  snodo_invocation_return_text (invocation, "quiet");
}

static void
activate_cb (GApplication *app,
             gpointer      user_data)
{
  g_print ("activated\n");
}

static void
serving_cb (SnodoApplicationBinding *binding,
            GParamSpec              *pspec,
            gpointer                 user_data)
{
  g_print ("serving=%d\n", snodo_application_binding_get_serving (binding));
}

#ifdef G_OS_UNIX
static gboolean
stop_cb (gpointer data)
{
  g_application_release (data);
  return G_SOURCE_REMOVE;
}
#endif

static int
handle_local_options_cb (GApplication *app,
                         GVariantDict *options,
                         gpointer      user_data)
{
  if (g_variant_dict_contains (options, "stay"))
    {
      g_application_hold (app);
#ifdef G_OS_UNIX
      g_unix_signal_add (SIGTERM, stop_cb, app);
#endif
      stay = TRUE;
    }
  return -1;
}

/* Registered: a second instance would find this one now. */
static void
startup_cb (GApplication *app,
            gpointer      user_data)
{
  if (stay)
    g_print ("ready\n");
}

int
main (int   argc,
      char *argv[])
{
  static const struct { const char *name; SnodoToolFunc func; } tools[] = {
    { "count", count_cb }, { "get", get_cb }, { "pid", pid_cb }, { "noisy", noisy_cb },
  };
  const char *id = g_getenv ("SNODO_TEST_APP_ID");
  g_autoptr(GApplication) app = NULL;
  g_autoptr(SnodoServer) server = snodo_server_new ("test-app", "1.0");
  g_autoptr(SnodoApplicationBinding) binding = NULL;
  int status;

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_autoptr(SnodoTool) tool = snodo_tool_new (tools[i].name, NULL);
      g_autoptr(GError) error = NULL;

      if (!snodo_server_add_tool (server, tool, tools[i].func, NULL, NULL, &error))
        g_error ("%s", error->message);
    }

  app = g_application_new (id != NULL ? id : "org.snodo.TestApp",
                           g_getenv ("SNODO_TEST_APP_NON_UNIQUE") != NULL ? G_APPLICATION_NON_UNIQUE
                                                                          : G_APPLICATION_DEFAULT_FLAGS);
  g_application_add_main_option (app, "stay", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE,
                                 "Stay until SIGTERM", NULL);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (handle_local_options_cb), NULL);
  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), NULL);
  g_signal_connect (app, "startup", G_CALLBACK (startup_cb), NULL);
  binding = snodo_application_binding_new (app, server);
  g_signal_connect (binding, "notify::serving", G_CALLBACK (serving_cb), NULL);

  status = g_application_run (app, argc, argv);
  return status != 0 ? status : snodo_application_binding_get_exit_status (binding);
}
