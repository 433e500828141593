/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"

#include <string.h>

#include "snodo-line-framer-private.h"

/* Events are recorded as text: "L:<content>" or "O:<len>", one per entry. */
typedef struct
{
  GPtrArray       *events;
  SnodoLineFramer *framer;
  /* The chunk being pushed, to check that lines inside it are not copied. */
  const guint8    *chunk;
  gsize            chunk_len;
  guint            in_place;
  guint            copied;
} Recorder;

static void
recorder_cb (SnodoLineFramerEvent  event,
             const char           *line,
             gsize                 len,
             gpointer              user_data)
{
  Recorder *rec = user_data;

  switch (event)
    {
    case SNODO_LINE_FRAMER_LINE:
      g_assert_nonnull (line);
      g_ptr_array_add (rec->events, g_strdup_printf ("L:%.*s", (int) len, line));
      if ((const guint8 *) line >= rec->chunk &&
          (const guint8 *) line + len <= rec->chunk + rec->chunk_len)
        rec->in_place++;
      else
        rec->copied++;
      break;
    case SNODO_LINE_FRAMER_OVERSIZED:
      g_assert_null (line);
      g_ptr_array_add (rec->events, g_strdup_printf ("O:%" G_GSIZE_FORMAT, len));
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
recorder_init (Recorder *rec)
{
  memset (rec, 0, sizeof *rec);
  rec->events = g_ptr_array_new_with_free_func (g_free);
}

static void
recorder_clear (Recorder *rec)
{
  g_clear_pointer (&rec->events, g_ptr_array_unref);
  g_clear_pointer (&rec->framer, snodo_line_framer_free);
}

static void
push (Recorder   *rec,
      const void *data,
      gsize       len)
{
  rec->chunk = data;
  rec->chunk_len = len;
  snodo_line_framer_push (rec->framer, data, len, recorder_cb, rec);
  rec->chunk = NULL;
  rec->chunk_len = 0;
  g_assert_cmpuint (snodo_line_framer_get_buffered (rec->framer), <,
                    snodo_line_framer_get_max_line_bytes (rec->framer));
}

static void
push_str (Recorder   *rec,
          const char *str)
{
  push (rec, str, strlen (str));
}

static void
finish (Recorder *rec)
{
  snodo_line_framer_finish (rec->framer, recorder_cb, rec);
  g_assert_cmpuint (snodo_line_framer_get_buffered (rec->framer), ==, 0);
}

static void
assert_events (GPtrArray          *events,
               const char * const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (events->len, n); i++)
    g_assert_cmpstr (g_ptr_array_index (events, i), ==, expected[i]);
  g_assert_cmpuint (events->len, ==, n);
}

typedef enum
{
  SPLIT_WHOLE,
  SPLIT_BYTES,
  SPLIT_RANDOM,
} Split;

/* Feeds @data to a new framer in chunks chosen by @split, copying each
 * chunk so that nothing outlives its push, then finishes. */
static GPtrArray *
run_split (const char *data,
           gsize       len,
           gsize       max_line_bytes,
           Split       split,
           guint32     seed)
{
  Recorder rec;
  GRand *rand = g_rand_new_with_seed (seed);
  gsize pos = 0;
  GPtrArray *events;

  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (max_line_bytes);

  while (pos < len)
    {
      gsize n;
      g_autofree guint8 *chunk = NULL;

      switch (split)
        {
        case SPLIT_WHOLE:
          n = len;
          break;
        case SPLIT_BYTES:
          n = 1;
          break;
        case SPLIT_RANDOM:
          n = g_rand_int_range (rand, 1, 40);
          break;
        default:
          g_assert_not_reached ();
        }
      n = MIN (n, len - pos);
      chunk = g_memdup2 (data + pos, n);
      push (&rec, chunk, n);
      pos += n;
    }
  finish (&rec);

  g_rand_free (rand);
  events = g_steal_pointer (&rec.events);
  recorder_clear (&rec);
  return events;
}

/* Asserts that every way of splitting @data gives @expected. */
static void
assert_splits (const char         *data,
               gsize               len,
               gsize               max_line_bytes,
               const char * const *expected)
{
  g_autoptr(GPtrArray) whole = run_split (data, len, max_line_bytes, SPLIT_WHOLE, 0);
  g_autoptr(GPtrArray) bytes = run_split (data, len, max_line_bytes, SPLIT_BYTES, 0);

  assert_events (whole, expected);
  assert_events (bytes, expected);
  for (guint32 seed = 1; seed <= 50; seed++)
    {
      g_autoptr(GPtrArray) random = run_split (data, len, max_line_bytes, SPLIT_RANDOM, seed);

      assert_events (random, expected);
    }
}

static void
test_lines (void)
{
  const char data[] = "{\"a\":1}\nsecond\r\n\n  \nlast";
  const char * const expected[] = {
    "L:{\"a\":1}", "L:second\r", "L:", "L:  ", "L:last", NULL
  };

  g_test_summary ("Lines come out without '\\n' (a '\\r' stays), empty lines "
                  "included, whatever the split");

  assert_splits (data, sizeof data - 1, 100, expected);
}

static void
test_splits (void)
{
  g_autoptr(GString) data = g_string_new (NULL);
  g_autoptr(GPtrArray) whole = NULL;
  g_autoptr(GPtrArray) bytes = NULL;
  GRand *rand = g_rand_new_with_seed (7);

  g_test_summary ("All at once, byte by byte and random chunks give the same "
                  "events, oversized lines included");

  for (guint i = 0; i < 300; i++)
    {
      guint n = g_rand_int_range (rand, 0, 40);

      for (guint j = 0; j < n; j++)
        g_string_append_c (data, "ab{}\" \r"[g_rand_int_range (rand, 0, 7)]);
      g_string_append_c (data, '\n');
    }
  g_string_append (data, "tail");

  whole = run_split (data->str, data->len, 24, SPLIT_WHOLE, 0);
  bytes = run_split (data->str, data->len, 24, SPLIT_BYTES, 0);
  g_assert_cmpuint (whole->len, ==, 301);
  g_ptr_array_add (whole, NULL);
  assert_events (bytes, (const char * const *) whole->pdata);
  for (guint32 seed = 1; seed <= 100; seed++)
    {
      g_autoptr(GPtrArray) random = run_split (data->str, data->len, 24, SPLIT_RANDOM, seed);

      assert_events (random, (const char * const *) whole->pdata);
    }

  g_rand_free (rand);
}

static void
test_exact_limit (void)
{
  const char exact[] = "1234567\nnext\n";
  const char over[] = "12345678\nnext\n";
  const char far_over[] = "123456789abcdef\nnext\n";
  const char * const exact_events[] = { "L:1234567", "L:next", NULL };
  const char * const over_events[] = { "O:8", "L:next", NULL };

  g_test_summary ("The newline counts: a line of exactly max_line_bytes with "
                  "its '\\n' is delivered, one byte more is one OVERSIZED "
                  "event and the next line is delivered normally");

  assert_splits (exact, sizeof exact - 1, 8, exact_events);
  assert_splits (over, sizeof over - 1, 8, over_events);
  assert_splits (far_over, sizeof far_over - 1, 8, over_events);
}

static void
test_oversized_dropped (void)
{
  Recorder rec;
  const char * const expected[] = { "L:a", "O:16", "L:ok", NULL };

  g_test_summary ("The rest of an oversized line is dropped as it arrives, "
                  "over many chunks, without being buffered");

  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (16);

  push_str (&rec, "a\n");
  for (guint i = 0; i < 1000; i++)
    {
      push_str (&rec, "xxxxxxxxxx");
      if (i >= 1)
        g_assert_cmpuint (snodo_line_framer_get_buffered (rec.framer), ==, 0);
    }
  push_str (&rec, "xx\nok\n");
  finish (&rec);

  assert_events (rec.events, expected);
  recorder_clear (&rec);
}

static void
test_huge_line (void)
{
  const gsize max = 2 * 1000 * 1000;
  const gsize chunk_len = 64 * 1024;
  const gsize total = 64 * 1024 * 1024;
  g_autofree guint8 *chunk = g_malloc (chunk_len);
  const char * const expected[] = { "O:2000000", "L:{}", NULL };
  Recorder rec;

  g_test_summary ("Pushing a 64 MiB line in 64 KiB chunks never buffers more "
                  "than max_line_bytes - 1 bytes");

  memset (chunk, 'a', chunk_len);
  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (max);

  for (gsize pushed = 0; pushed < total; pushed += chunk_len)
    {
      push (&rec, chunk, chunk_len);
      g_assert_cmpuint (snodo_line_framer_get_buffered (rec.framer), <=, max - 1);
    }
  push_str (&rec, "\n{}\n");
  finish (&rec);

  assert_events (rec.events, expected);
  recorder_clear (&rec);
}

static void
test_longest_line_buffered (void)
{
  const gsize max = 2 * 1000 * 1000;
  const gsize chunk_len = 64 * 1024;
  g_autofree guint8 *chunk = g_malloc (chunk_len);
  Recorder rec;
  gsize pushed = 0;

  g_test_summary ("A line of max_line_bytes - 1 bytes arriving in chunks is "
                  "held whole and delivered once its '\\n' arrives");

  memset (chunk, 'b', chunk_len);
  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (max);

  while (pushed < max - 1)
    {
      gsize n = MIN (chunk_len, max - 1 - pushed);

      push (&rec, chunk, n);
      pushed += n;
    }
  g_assert_cmpuint (snodo_line_framer_get_buffered (rec.framer), ==, max - 1);
  g_assert_cmpuint (rec.events->len, ==, 0);
  push_str (&rec, "\n");
  g_assert_cmpuint (rec.events->len, ==, 1);
  g_assert_cmpuint (strlen (g_ptr_array_index (rec.events, 0)), ==, 2 + max - 1);
  g_assert_cmpuint (rec.copied, ==, 1);

  recorder_clear (&rec);
}

static void
test_finish (void)
{
  const char * const tail[] = { "L:one", "L:two", NULL };
  const char * const no_tail[] = { "L:one", NULL };
  const char * const oversized_tail[] = { "L:one", "O:8", NULL };
  const char * const longest_tail[] = { "L:1234567", NULL };
  const char * const none[] = { NULL };

  g_test_summary ("At end of input a last line without '\\n' is delivered, "
                  "unless it is empty or the tail of an oversized line");

  assert_splits ("one\ntwo", 7, 8, tail);
  assert_splits ("one\n", 4, 8, no_tail);
  assert_splits ("one\n123456789abc", 16, 8, oversized_tail);
  assert_splits ("one\n12345678", 12, 8, oversized_tail);
  assert_splits ("1234567", 7, 8, longest_tail);
  assert_splits ("", 0, 8, none);
}

static void
test_reuse_after_finish (void)
{
  Recorder rec;
  const char * const expected[] = { "O:4", "L:ab", NULL };

  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (4);
  push_str (&rec, "abcdef");
  finish (&rec);
  push_str (&rec, "ab\n");
  finish (&rec);
  assert_events (rec.events, expected);
  recorder_clear (&rec);
}

static void
test_no_copy (void)
{
  Recorder rec;
  const char * const expected[] = { "L:first", "L:second", "L:third", "L:fourth", NULL };

  g_test_summary ("Lines complete inside one chunk are passed straight from "
                  "it; only a line spread over chunks is copied");

  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (100);
  push_str (&rec, "first\nsecond\nthi");
  g_assert_cmpuint (rec.in_place, ==, 2);
  g_assert_cmpuint (rec.copied, ==, 0);
  push_str (&rec, "rd\nfourth\n");
  g_assert_cmpuint (rec.in_place, ==, 3);
  g_assert_cmpuint (rec.copied, ==, 1);
  finish (&rec);
  assert_events (rec.events, expected);
  recorder_clear (&rec);
}

typedef struct
{
  SnodoLineFramer *framer;
  GPtrArray       *lines;
  /* What the framer buffered when each line was released. */
  GArray          *after_release;
} Releaser;

static void
releaser_cb (SnodoLineFramerEvent  event,
             const char           *line,
             gsize                 len,
             gpointer              user_data)
{
  Releaser *rel = user_data;
  gsize buffered;

  g_assert_cmpint (event, ==, SNODO_LINE_FRAMER_LINE);
  g_ptr_array_add (rel->lines, g_strndup (line, len));
  /* The line is the callback's to write over. */
  memset ((char *) line, '#', len);
  snodo_line_framer_release_line (rel->framer);
  buffered = snodo_line_framer_get_buffered (rel->framer);
  g_array_append_val (rel->after_release, buffered);
}

static void
test_release_line (void)
{
  Releaser rel = { 0, };
  g_autofree char *long_line = g_malloc (200000);
  guint8 chunk[] = "short\nspread";
  guint8 tail[] = " out\nnext\n";

  g_test_summary ("A line released from its callback is gone from the framer's buffer at once, "
                  "and what follows is framed as before");

  memset (long_line, 'x', 200000);
  rel.framer = snodo_line_framer_new (1000000);
  rel.lines = g_ptr_array_new_with_free_func (g_free);
  rel.after_release = g_array_new (FALSE, FALSE, sizeof (gsize));

  /* A long line, spread over two chunks: held in the framer's buffer. */
  snodo_line_framer_push (rel.framer, (const guint8 *) long_line, 150000, releaser_cb, &rel);
  g_assert_cmpuint (snodo_line_framer_get_buffered (rel.framer), ==, 150000);
  long_line[199999] = '\n';
  snodo_line_framer_push (rel.framer, (const guint8 *) long_line + 150000, 50000, releaser_cb, &rel);
  /* Lines inside one chunk, and one spread over two short chunks. */
  snodo_line_framer_push (rel.framer, chunk, sizeof chunk - 1, releaser_cb, &rel);
  snodo_line_framer_push (rel.framer, tail, sizeof tail - 1, releaser_cb, &rel);
  snodo_line_framer_finish (rel.framer, releaser_cb, &rel);

  g_assert_cmpuint (rel.lines->len, ==, 4);
  g_assert_cmpuint (strlen (rel.lines->pdata[0]), ==, 199999);
  g_assert_cmpuint (strspn (rel.lines->pdata[0], "x"), ==, 199999);
  g_assert_cmpstr (rel.lines->pdata[1], ==, "short");
  g_assert_cmpstr (rel.lines->pdata[2], ==, "spread out");
  g_assert_cmpstr (rel.lines->pdata[3], ==, "next");
  /* The long line's buffer is freed; a short one is kept for the next. */
  g_assert_cmpuint (g_array_index (rel.after_release, gsize, 0), ==, 0);
  g_assert_cmpuint (g_array_index (rel.after_release, gsize, 2), ==, 10);

  g_ptr_array_unref (rel.lines);
  g_array_unref (rel.after_release);
  snodo_line_framer_free (rel.framer);
}

static void
test_change_limit (void)
{
  Recorder rec;
  const char * const expected[] = {
    "O:4", "L:123456789", "O:4", "L:abc", "L:1234567", "O:3", NULL
  };

  g_test_summary ("A new max_line_bytes applies from the next line on, also "
                  "when set between lines");

  recorder_init (&rec);
  rec.framer = snodo_line_framer_new (10);
  g_assert_cmpuint (snodo_line_framer_get_max_line_bytes (rec.framer), ==, 10);
  snodo_line_framer_set_max_line_bytes (rec.framer, 4);
  push_str (&rec, "12345\n");
  snodo_line_framer_set_max_line_bytes (rec.framer, 10);
  push_str (&rec, "12345678");
  snodo_line_framer_set_max_line_bytes (rec.framer, 4);
  g_assert_cmpuint (snodo_line_framer_get_max_line_bytes (rec.framer), ==, 4);
  push_str (&rec, "9\n12345\nabc\n");
  snodo_line_framer_set_max_line_bytes (rec.framer, 8);
  push_str (&rec, "1234567\n");
  snodo_line_framer_set_max_line_bytes (rec.framer, 3);
  push_str (&rec, "abc\n");
  finish (&rec);
  assert_events (rec.events, expected);
  recorder_clear (&rec);
}

static void
test_limit_one (void)
{
  const char * const expected[] = { "L:", "O:1", "L:", NULL };

  assert_splits ("\nx\n\n", 4, 1, expected);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/framer/lines", test_lines);
  g_test_add_func ("/snodo/framer/splits", test_splits);
  g_test_add_func ("/snodo/framer/exact-limit", test_exact_limit);
  g_test_add_func ("/snodo/framer/oversized-dropped", test_oversized_dropped);
  g_test_add_func ("/snodo/framer/huge-line", test_huge_line);
  g_test_add_func ("/snodo/framer/longest-line-buffered", test_longest_line_buffered);
  g_test_add_func ("/snodo/framer/finish", test_finish);
  g_test_add_func ("/snodo/framer/reuse-after-finish", test_reuse_after_finish);
  g_test_add_func ("/snodo/framer/no-copy", test_no_copy);
  g_test_add_func ("/snodo/framer/release-line", test_release_line);
  g_test_add_func ("/snodo/framer/change-limit", test_change_limit);
  g_test_add_func ("/snodo/framer/limit-one", test_limit_one);

  return g_test_run ();
}
