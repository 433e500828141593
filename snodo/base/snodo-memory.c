/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Giving memory back to the system after large frees. glibc's malloc keeps
 * what is freed in its arenas, for the process to reuse: after a flood of
 * large requests (trees of tens of MB each, built on worker threads, each
 * with an arena of its own) the resident set would stay near its peak.
 * Where malloc_trim() is there, it hands the free pages back, on a thread
 * of its own, a moment after the frees (so that a burst of them is one
 * trim), then a few times more as the burst settles: what is freed at its
 * end (less than makes a trim worth it, or not counted here, such as the
 * buffers of connections that close after their last answers) would
 * otherwise stay with the process. Elsewhere this does nothing. */

#include "config.h"

#include <glib.h>

#ifdef HAVE_MALLOC_TRIM
# include <malloc.h>
#endif

#include "snodo-base-private.h"

/* Bytes freed that make a trim worth it, how long after the frees it
 * comes, and the trims that follow a burst's last: how many, how far
 * apart. */
#define TRIM_AFTER_BYTES (16 * 1024 * 1024)
#define TRIM_DELAY_MS 100
#define TRIM_SETTLE_ROUNDS 4
#define TRIM_SETTLE_MS 500

#ifdef HAVE_MALLOC_TRIM
static GMutex trim_lock;
static guint64 trim_freed;
static gboolean trim_scheduled;

static gpointer
trim_thread (gpointer data)
{
  guint settling = 0;

  for (;;)
    {
      g_usleep ((settling > 0 ? TRIM_SETTLE_MS : TRIM_DELAY_MS) * 1000);
      g_mutex_lock (&trim_lock);
      trim_freed = 0;
      g_mutex_unlock (&trim_lock);

      malloc_trim (0);

      g_mutex_lock (&trim_lock);
      if (trim_freed >= TRIM_AFTER_BYTES)
        /* More was freed while trimming: once more, soon. */
        settling = 0;
      else if (settling < TRIM_SETTLE_ROUNDS)
        /* The burst is ending: again as it settles. */
        settling++;
      else
        {
          trim_scheduled = FALSE;
          g_mutex_unlock (&trim_lock);
          return NULL;
        }
      g_mutex_unlock (&trim_lock);
    }
}
#endif

/* @bytes (an estimate) were just freed, or are about to be. Any thread. */
void
snodo_memory_give_back (guint64 bytes)
{
#ifdef HAVE_MALLOC_TRIM
  gboolean start = FALSE;

  g_mutex_lock (&trim_lock);
  trim_freed += bytes;
  if (!trim_scheduled && trim_freed >= TRIM_AFTER_BYTES)
    start = trim_scheduled = TRUE;
  g_mutex_unlock (&trim_lock);

  if (start)
    {
      GThread *thread = g_thread_try_new ("snodo-trim", trim_thread, NULL, NULL);

      if (thread != NULL)
        g_thread_unref (thread);
      else
        {
          g_mutex_lock (&trim_lock);
          trim_scheduled = FALSE;
          g_mutex_unlock (&trim_lock);
        }
    }
#else
  (void) bytes;
#endif
}
