/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoMemoryEventStore on its own: ids, replay, streams kept apart,
 * bounds in events and bytes, forgetting a stream. */

#include "config.h"

#include <string.h>

#include "snodo-event-store.h"

typedef struct
{
  GPtrArray *ids;
  GString   *text;
} Replay;

static void
replay_cb (const char *event_id,
           GBytes     *message,
           gpointer    user_data)
{
  Replay *replay = user_data;
  gsize len;
  const char *data = g_bytes_get_data (message, &len);

  g_ptr_array_add (replay->ids, g_strdup (event_id));
  g_string_append_len (replay->text, data, len);
  g_string_append_c (replay->text, ';');
}

static char *
store (SnodoEventStore *self,
       const char      *stream_id,
       const char      *text)
{
  g_autoptr(GBytes) message = g_bytes_new (text, strlen (text));

  return snodo_event_store_store_event (self, stream_id, message);
}

static void
test_replay (void)
{
  g_autoptr(SnodoMemoryEventStore) memory = snodo_memory_event_store_new ();
  SnodoEventStore *self = SNODO_EVENT_STORE (memory);
  g_autofree char *a1 = store (self, "a", "a1");
  g_autofree char *b1 = store (self, "b", "b1");
  g_autofree char *marker = store (self, "a", "");
  g_autofree char *a2 = store (self, "a", "a2");
  g_autofree char *a3 = store (self, "a", "a3");
  g_autofree char *stream = NULL;
  Replay replay = { g_ptr_array_new_with_free_func (g_free), g_string_new (NULL) };

  g_test_summary ("Ids are unique; replay gives the later events of the same stream, in order, "
                  "markers left out; an unknown id replays nothing");

  g_assert_cmpstr (a1, !=, b1);
  g_assert_cmpstr (a2, !=, a3);
  stream = snodo_event_store_get_stream_id (self, b1);
  g_assert_cmpstr (stream, ==, "b");
  g_assert_null (snodo_event_store_get_stream_id (self, "no-such-id"));

  g_assert_true (snodo_event_store_replay_after (self, a1, replay_cb, &replay));
  g_assert_cmpstr (replay.text->str, ==, "a2;a3;");
  g_assert_cmpuint (replay.ids->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (replay.ids, 0), ==, a2);
  g_string_truncate (replay.text, 0);
  g_assert_true (snodo_event_store_replay_after (self, marker, replay_cb, &replay));
  g_assert_cmpstr (replay.text->str, ==, "a2;a3;");
  g_string_truncate (replay.text, 0);
  g_assert_true (snodo_event_store_replay_after (self, a3, replay_cb, &replay));
  g_assert_cmpstr (replay.text->str, ==, "");
  g_assert_false (snodo_event_store_replay_after (self, "12345", replay_cb, &replay));
  g_assert_cmpstr (replay.text->str, ==, "");

  snodo_event_store_forget_stream (self, "a");
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (memory), ==, 1);
  g_assert_null (snodo_event_store_get_stream_id (self, a2));
  g_ptr_array_unref (replay.ids);
  g_string_free (replay.text, TRUE);
}

static void
test_bounds (void)
{
  g_autoptr(SnodoMemoryEventStore) memory = snodo_memory_event_store_new ();
  SnodoEventStore *self = SNODO_EVENT_STORE (memory);
  g_autofree char *first = NULL;
  g_autofree char *big = g_strnfill (10000, 'x');
  g_autofree char *last = NULL;
  g_autofree char *kept = NULL;

  g_test_summary ("The store keeps at most max-events and max-bytes, dropping the oldest first");

  g_assert_cmpuint (snodo_memory_event_store_get_max_events (memory), ==, 1024);
  g_assert_cmpuint (snodo_memory_event_store_get_max_bytes (memory), ==, 8 * 1024 * 1024);
  snodo_memory_event_store_set_max_events (memory, 10);
  first = store (self, "s", "first");
  for (guint i = 0; i < 20; i++)
    g_free (store (self, "s", "more"));
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (memory), ==, 10);
  g_assert_null (snodo_event_store_get_stream_id (self, first));

  snodo_memory_event_store_set_max_events (memory, 1000);
  snodo_memory_event_store_set_max_bytes (memory, 50000);
  for (guint i = 0; i < 20; i++)
    {
      g_free (last);
      last = store (self, "s", big);
    }
  /* 10,000 bytes of message and some bookkeeping each: four fit. */
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (memory), ==, 4);
  kept = snodo_event_store_get_stream_id (self, last);
  g_assert_cmpstr (kept, ==, "s");
  snodo_memory_event_store_set_max_bytes (memory, 0);
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (memory), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/event-store/replay", test_replay);
  g_test_add_func ("/snodo/event-store/bounds", test_bounds);

  return g_test_run ();
}
