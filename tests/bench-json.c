/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * Micro-benchmark of the JSON work done for every request: reading a
 * tools/call request, checking its arguments against the tool's schema,
 * sealing it, and writing the answer, for a 16-byte and a 10 KiB text.
 * Built with the tests but not run by `meson test`:
 *
 *   _build/tests/bench-json [--runs N] [--text-bytes N] [--filter WORD] [--batch N]
 *
 * Each figure is the median over the runs of the mean time of one
 * operation in a batch, in microseconds. The last lines time a few GLib
 * primitives on the 10 KiB text for comparison.
 */

#include "config.h"

#include <string.h>

#include "snodo-json-private.h"
#include "snodo-schema-private.h"

static const char *echo_schema =
  "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}";

static int n_runs = 7;
static const char *filter = NULL;

typedef void (*BenchFunc) (gpointer data,
                           guint    i);

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The median over n_runs of the mean time of one call in a batch of
 * @batch calls, in microseconds. @setup (optional) runs untimed before
 * each batch. */
static void
bench (const char *name,
       guint       batch,
       BenchFunc   setup,
       BenchFunc   func,
       gpointer    data)
{
  g_autofree double *times = g_new0 (double, n_runs);

  if (filter != NULL && strstr (name, filter) == NULL)
    return;

  for (int run = 0; run < n_runs; run++)
    {
      gint64 start;

      if (setup != NULL)
        setup (data, batch);
      start = g_get_monotonic_time ();
      for (guint i = 0; i < batch; i++)
        func (data, i);
      times[run] = (double) (g_get_monotonic_time () - start) / batch;
    }

  qsort (times, n_runs, sizeof (double), compare_doubles);
  g_print ("%-34s %9.3f us/op  (min %.3f, max %.3f)\n", name, times[n_runs / 2], times[0], times[n_runs - 1]);
}

typedef struct
{
  char      *request;
  gsize      request_len;
  JsonNode  *answer;
  JsonNode  *schema;
  JsonNode  *arguments;
  char      *text;
  gsize      text_len;
  /* Trees read ahead for the sealing benchmark. */
  JsonNode **trees;
  guint      n_trees;
} Case;

static volatile gsize sink;

static void
parse_cb (gpointer data,
          guint    i)
{
  Case *c = data;
  JsonNode *node = snodo_json_parse (c->request, c->request_len, NULL);

  g_assert (node != NULL);
  json_node_unref (node);
}

static void
write_cb (gpointer data,
          guint    i)
{
  Case *c = data;
  GBytes *line = snodo_json_to_line (c->answer);

  sink += g_bytes_get_size (line);
  g_bytes_unref (line);
}

static void
validate_cb (gpointer data,
             guint    i)
{
  Case *c = data;

  if (!snodo_schema_validate (c->schema, c->arguments, NULL))
    g_assert_not_reached ();
}

static void
parse_trees_cb (gpointer data,
                guint    batch)
{
  Case *c = data;

  for (guint i = 0; i < c->n_trees; i++)
    g_clear_pointer (&c->trees[i], json_node_unref);
  g_free (c->trees);
  c->trees = g_new0 (JsonNode *, batch);
  c->n_trees = batch;
  for (guint i = 0; i < batch; i++)
    c->trees[i] = snodo_json_parse (c->request, c->request_len, NULL);
}

static void
seal_cb (gpointer data,
         guint    i)
{
  Case *c = data;

  json_node_seal (c->trees[i]);
}

static void
utf8_validate_cb (gpointer data,
                  guint    i)
{
  Case *c = data;

  if (!g_utf8_validate_len (c->text, c->text_len, NULL))
    g_assert_not_reached ();
}

static void
utf8_strlen_cb (gpointer data,
                guint    i)
{
  Case *c = data;

  sink += g_utf8_strlen (c->text, c->text_len);
}

static void
str_hash_cb (gpointer data,
             guint    i)
{
  Case *c = data;

  sink += g_str_hash (c->text);
}

static void
memchr_cb (gpointer data,
           guint    i)
{
  Case *c = data;

  sink += memchr (c->text, '"', c->text_len) == NULL;
}

static void
case_init (Case       *c,
           const char *text)
{
  g_autoptr(JsonObject) arguments = json_object_new ();
  g_autoptr(JsonObject) block = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();
  g_autoptr(JsonObject) result = json_object_new ();
  g_autoptr(JsonObject) answer = json_object_new ();

  c->text = g_strdup (text);
  c->text_len = strlen (text);
  c->request = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\","
                                "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"%s\"}}}", text);
  c->request_len = strlen (c->request);

  json_object_set_string_member (arguments, "text", text);
  c->arguments = json_node_init_object (json_node_alloc (), arguments);

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, g_steal_pointer (&block));
  json_object_set_array_member (result, "content", g_steal_pointer (&content));
  json_object_set_string_member (answer, "jsonrpc", "2.0");
  json_object_set_int_member (answer, "id", 42);
  json_object_set_object_member (answer, "result", g_steal_pointer (&result));
  c->answer = json_node_init_object (json_node_alloc (), answer);

  c->schema = snodo_json_parse (echo_schema, strlen (echo_schema), NULL);
  g_assert (c->schema != NULL);
}

static void
case_clear (Case *c)
{
  for (guint i = 0; i < c->n_trees; i++)
    g_clear_pointer (&c->trees[i], json_node_unref);
  g_free (c->trees);
  g_free (c->request);
  g_free (c->text);
  json_node_unref (c->answer);
  json_node_unref (c->schema);
  json_node_unref (c->arguments);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("- time the JSON work of one request");
  g_autoptr(GError) error = NULL;
  int text_bytes = 10240;
  int batch = 0;
  GOptionEntry entries[] = {
    { "runs", 'r', 0, G_OPTION_ARG_INT, &n_runs, "Runs per figure (the median is shown)", "N" },
    { "text-bytes", 't', 0, G_OPTION_ARG_INT, &text_bytes, "Size of the large text (default 10240)", "N" },
    { "filter", 'f', 0, G_OPTION_ARG_STRING, &filter, "Only the figures whose name contains WORD", "WORD" },
    { "batch", 'b', 0, G_OPTION_ARG_INT, &batch, "Operations per batch (default 20000 for 16 B, 2000 for 10 KiB)", "N" },
    { NULL }
  };
  g_autofree char *large = NULL;
  struct {
    const char *label;
    const char *text;
    guint       batch;
  } sizes[2];

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  n_runs = MAX (n_runs, 1);
  text_bytes = MAX (text_bytes, 1);

  large = g_malloc (text_bytes + 1);
  memset (large, 'x', text_bytes);
  large[text_bytes] = '\0';

  sizes[0].label = "16 B";
  sizes[0].text = "xxxxxxxxxxxxxxxx";
  sizes[0].batch = 20000;
  sizes[1].label = "10 KiB";
  sizes[1].text = large;
  sizes[1].batch = 2000;
  if (text_bytes != 10240)
    sizes[1].label = "large";
  if (batch > 0)
    sizes[0].batch = sizes[1].batch = batch;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      Case c = { 0, };
      g_autofree char *name = NULL;

      case_init (&c, sizes[s].text);
      g_print ("-- text of %s: request %" G_GSIZE_FORMAT " bytes\n", sizes[s].label, c.request_len);

      bench ("parse request", sizes[s].batch, NULL, parse_cb, &c);
      bench ("write answer line", sizes[s].batch, NULL, write_cb, &c);
      bench ("validate arguments (schema)", sizes[s].batch, NULL, validate_cb, &c);
      bench ("seal parsed request", sizes[s].batch, parse_trees_cb, seal_cb, &c);
      if (s == 1)
        {
          bench ("g_utf8_validate_len (text)", sizes[s].batch, NULL, utf8_validate_cb, &c);
          bench ("g_utf8_strlen (text)", sizes[s].batch, NULL, utf8_strlen_cb, &c);
          bench ("g_str_hash (text)", sizes[s].batch, NULL, str_hash_cb, &c);
          bench ("memchr (text)", sizes[s].batch, NULL, memchr_cb, &c);
        }
      case_clear (&c);
    }

  return 0;
}
