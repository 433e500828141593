/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Windows has no SIGINT or SIGTERM: Ctrl+C, Ctrl+Break and the closing of
 * the console call a handler on a thread of their own. It hands the stop to
 * the main context, where the server stops as it does on a signal; for the
 * closing of the console, after which Windows ends the process as soon as
 * the handler returns (or some seconds later), it waits for the process to
 * end on its own. */

#include "config.h"

#include <windows.h>

#include "snodo-demo-console.h"

/* Set before the handler is installed, then touched on the main context
 * only. */
static GSourceFunc stop_func;
static gpointer stop_data;

static gboolean
stop_cb (gpointer data)
{
  GSourceFunc func = g_steal_pointer (&stop_func);

  if (func != NULL)
    func (stop_data);
  return G_SOURCE_REMOVE;
}

static BOOL WINAPI
ctrl_cb (DWORD type)
{
  switch (type)
    {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
    case CTRL_CLOSE_EVENT:
      g_main_context_invoke (NULL, stop_cb, NULL);
      if (type == CTRL_CLOSE_EVENT)
        Sleep (10000);
      return TRUE;
    default:
      return FALSE;
    }
}

/* Calls @func with @data on the main context, once, on the first Ctrl+C,
 * Ctrl+Break or closing of the console. */
void
demo_console_stop_on_ctrl (GSourceFunc func,
                           gpointer    data)
{
  stop_func = func;
  stop_data = data;
  SetConsoleCtrlHandler (ctrl_cb, TRUE);
}
