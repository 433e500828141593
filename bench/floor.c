/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * floor: what the pieces every GLib MCP server's request is made of cost
 * on this machine, each alone, in nanoseconds.
 *
 * A request served by snodo (and by any library that gives handlers GLib
 * types) needs at least: a turn of the main loop that wakes it, an object
 * for the request (a GObject), and its arguments as a JsonObject (here:
 * one string member, as the echo tool's). This program
 * times each of those in a loop, warm, one thread, so that the latency
 * row of the benchmark can be read against them. It links GLib,
 * GObject and json-glib only, not snodo.
 *
 *   _build-bench/floor [-n ITERATIONS]
 *
 * Prints one line per piece: the median over 7 runs of N iterations. The
 * main-loop turn includes its poll() (with a zero timeout, as a source is
 * ready), the system call every turn makes.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib-object.h>
#include <json-glib/json-glib.h>

#define RUNS 7

G_DECLARE_FINAL_TYPE (FloorObject, floor_object, FLOOR, OBJECT, GObject)

struct _FloorObject
{
  GObject parent_instance;
  char *text;
};

G_DEFINE_FINAL_TYPE (FloorObject, floor_object, G_TYPE_OBJECT)

static void
floor_object_finalize (GObject *object)
{
  g_free (FLOOR_OBJECT (object)->text);
  G_OBJECT_CLASS (floor_object_parent_class)->finalize (object);
}

static void
floor_object_class_init (FloorObjectClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = floor_object_finalize;
}

static void
floor_object_init (FloorObject *self)
{
}

static volatile gsize sink;

static void
piece_gobject (void)
{
  FloorObject *object = g_object_new (floor_object_get_type (), NULL);

  sink += GPOINTER_TO_SIZE (object);
  g_object_unref (object);
}

static void
piece_json_object (void)
{
  JsonObject *object = json_object_new ();
  JsonNode *node;

  json_object_set_member (object, "text", json_node_init_string (json_node_alloc (), "00001234 sixteen"));
  node = json_object_get_member (object, "text");
  sink += strlen (json_node_get_string (node));
  json_object_unref (object);
}

/* A turn of the main loop that finds one source ready and dispatches
 * it, with as many other sources attached as a stdio server keeps. */
static GMainContext *context;

static gboolean
always_ready (GSource *source,
              gint    *timeout)
{
  *timeout = 0;
  return TRUE;
}

static gboolean
never_ready (GSource *source,
             gint    *timeout)
{
  *timeout = -1;
  return FALSE;
}

static gboolean
count_dispatch (GSource     *source,
                GSourceFunc  callback,
                gpointer     user_data)
{
  sink++;
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs ready_funcs = { always_ready, NULL, count_dispatch, NULL, NULL, NULL };
static GSourceFuncs idle_funcs = { never_ready, NULL, count_dispatch, NULL, NULL, NULL };

static void
piece_main_loop_turn (void)
{
  g_main_context_iteration (context, FALSE);
}

static double
time_piece (void   (*piece) (void),
            guint    n)
{
  double runs[RUNS];

  for (int r = 0; r < RUNS; r++)
    {
      gint64 start = g_get_monotonic_time ();

      for (guint i = 0; i < n; i++)
        piece ();
      runs[r] = (g_get_monotonic_time () - start) * 1000.0 / n;
    }
  /* The median. */
  for (int i = 0; i < RUNS; i++)
    for (int j = i + 1; j < RUNS; j++)
      if (runs[j] < runs[i])
        {
          double t = runs[i];
          runs[i] = runs[j];
          runs[j] = t;
        }
  return runs[RUNS / 2];
}

int
main (int    argc,
      char **argv)
{
  guint n = 200000;
  GSource *ready;

  if (argc == 3 && strcmp (argv[1], "-n") == 0)
    n = (guint) strtoul (argv[2], NULL, 10);
  else if (argc != 1)
    {
      fprintf (stderr, "usage: %s [-n ITERATIONS]\n", argv[0]);
      return 2;
    }

  context = g_main_context_new ();
  ready = g_source_new (&ready_funcs, sizeof (GSource));
  g_source_attach (ready, context);
  /* The stdio server's others: input watch, executor, report, deadlines,
   * signals, and the application's. */
  for (int i = 0; i < 6; i++)
    {
      GSource *other = g_source_new (&idle_funcs, sizeof (GSource));

      g_source_attach (other, context);
      g_source_unref (other);
    }

  printf ("GObject new + unref (a final type, no properties): %.0f ns\n", time_piece (piece_gobject, n));
  printf ("JsonObject of one string member: build, look up, free: %.0f ns\n", time_piece (piece_json_object, n));
  printf ("a main-loop turn dispatching one ready source of 7: %.0f ns\n", time_piece (piece_main_loop_turn, n));

  g_source_destroy (ready);
  g_source_unref (ready);
  g_main_context_unref (context);
  return 0;
}
