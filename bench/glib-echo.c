/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * glib-echo: line-echo on GLib's main loop.
 *
 * The second baseline of the latency row. Like line-echo it answers every
 * line with itself, but it waits the way a GLib application does: one
 * g_unix_fd_add() watch on standard input, a main-loop iteration (prepare,
 * poll, check, dispatch) per wake-up, a non-blocking read per dispatch. No
 * JSON, no objects, no threads: the time one request takes on this program
 * is the least any server built on a GMainContext can answer in, and the
 * difference from line-echo is what the main loop itself costs.
 * `mcp-load --era raw` drives it.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib-unix.h>

static GString *pending;
static GMainLoop *loop;

static gboolean
write_all (const char *data,
           gsize       len)
{
  while (len > 0)
    {
      gssize n = write (STDOUT_FILENO, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      data += n;
      len -= n;
    }
  return TRUE;
}

static gboolean
readable_cb (int          fd,
             GIOCondition condition,
             gpointer     user_data)
{
  char chunk[65536];
  gssize n = read (fd, chunk, sizeof chunk);
  gsize done = 0;
  const char *newline;

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return G_SOURCE_CONTINUE;
  if (n <= 0)
    {
      g_main_loop_quit (loop);
      return G_SOURCE_REMOVE;
    }

  g_string_append_len (pending, chunk, n);
  /* Lines that came together are written together, as line-echo does. */
  newline = memrchr (pending->str, '\n', pending->len);
  if (newline != NULL)
    {
      done = newline - pending->str + 1;
      if (!write_all (pending->str, done))
        {
          g_main_loop_quit (loop);
          return G_SOURCE_REMOVE;
        }
      g_string_erase (pending, 0, done);
    }
  return G_SOURCE_CONTINUE;
}

int
main (void)
{
  pending = g_string_sized_new (1 << 16);
  if (!g_unix_set_fd_nonblocking (STDIN_FILENO, TRUE, NULL))
    return 1;
  loop = g_main_loop_new (NULL, FALSE);
  g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, readable_cb, NULL);
  g_main_loop_run (loop);
  g_main_loop_unref (loop);
  g_string_free (pending, TRUE);
  return 0;
}
