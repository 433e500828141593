/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Keeping GLib's log messages off standard output, which carries the
 * protocol. */

#include "config.h"

#include <stdio.h>

#include "snodo-stdio-transport.h"

#ifdef G_OS_WIN32
/* g_log_writer_default_set_use_stderr() works only before the first thread
 * is created, and on Windows GIO's DLL starts a thread pool as it loads,
 * before main(): the call always fails there. This writer does what GLib's
 * default writer does, to standard error. */
static GLogWriterOutput
log_writer_stderr (GLogLevelFlags   log_level,
                   const GLogField *fields,
                   gsize            n_fields,
                   gpointer         user_data)
{
  const char *domain = NULL;
  g_autofree char *text = NULL;

  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0)
      domain = fields[i].value;
  if (g_log_writer_default_would_drop (log_level, domain))
    return G_LOG_WRITER_HANDLED;
  text = g_log_writer_format_fields (log_level, fields, n_fields, FALSE);
  fprintf (stderr, "%s\n", text);
  fflush (stderr);
  return G_LOG_WRITER_HANDLED;
}
#endif

/**
 * snodo_stdio_transport_log_to_stderr:
 *
 * Sends every message of GLib's structured log (`g_debug()`, `g_info()`,
 * `g_message()`, warnings) to standard error, never to standard output:
 * for a program whose standard output carries the protocol. GLib's default
 * writer sends debug and informational messages to standard output.
 *
 * Call it early in `main()`, before anything logs or starts a thread; a
 * second call does nothing. On Unix this is
 * `g_log_writer_default_set_use_stderr (TRUE)`, which GLib refuses once a
 * thread exists; on Windows, where that call cannot work (a thread always
 * exists before `main()`), it installs a log writer of its own.
 *
 * Since: 0.1
 */
void
snodo_stdio_transport_log_to_stderr (void)
{
  static gsize installed = 0;

  /* Once: a second call, after threads exist, would fail on Unix. */
  if (g_once_init_enter (&installed))
    {
#ifdef G_OS_WIN32
      g_log_set_writer_func (log_writer_stderr, NULL, NULL);
#else
      g_log_writer_default_set_use_stderr (TRUE);
#endif
      g_once_init_leave (&installed, 1);
    }
}
