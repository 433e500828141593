/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Black-box tests of the budget of admitted work (max-live-bytes), through
 * snodo-demo's pipes: large requests beyond it are refused, small ones
 * still pass, and the memory of the process stays bounded. */

#include "config.h"

#include <string.h>

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

/* Generous bounds: a loaded 2-core machine must pass. */
#define ANSWER_TIMEOUT 20000

/* A message of about 1,000,000 bytes whose arguments hold an array of
 * one-digit numbers: about 42 MB once decoded. */
#define BIG_BYTES 1000000

#define spawn_demo(...) test_process_spawn_program ("SNODO_DEMO", __VA_ARGS__)

static char *
big_sleep_call (gint64 id,
                guint  ms)
{
  g_autoptr(GString) arguments = g_string_sized_new (BIG_BYTES);

  g_string_append_printf (arguments, "{\"ms\":%u,\"pad\":[1", ms);
  while (arguments->len < BIG_BYTES)
    g_string_append (arguments, ",1");
  g_string_append (arguments, "]}");

  return test_tool_call (id, "sleep", arguments->str);
}

static void
test_budget (void)
{
  /* One big request fits, two do not. */
  TestProcess *demo = spawn_demo ("--max-live-bytes=60000000", NULL);
  const guint n_big = 8;
  gboolean was_refused[9] = { FALSE, };
  guint refused = 0;
  gboolean echoed = FALSE;
  gboolean admitted = FALSE;
  gint64 running = 0;
  gint64 next_id = n_big + 1;

  g_test_summary ("With a budget of 60 MB, of eight concurrent calls of 1 MB (about 42 MB "
                  "each once decoded) one runs and seven are refused at once with -32010, "
                  "a small call still passes, the budget is given back when the call ends, "
                  "and the memory of the server stays far below what the eight would hold");

  test_process_initialize (demo, "2025-11-25");

  /* Each sleeps a minute, far longer than decoding the eight can take on
   * a loaded machine: the one that runs still holds its bytes when the
   * others come, whatever the timing. */
  for (gint64 id = 1; id <= n_big; id++)
    {
      g_autofree char *line = big_sleep_call (id, 60000);

      test_process_send (demo, line);
    }
  {
    g_autofree char *line = test_tool_call (100, "echo", "{\"text\":\"small\"}");

    test_process_send (demo, line);
  }

  while (refused < n_big - 1 || !echoed)
    {
      g_autoptr(JsonNode) answer = test_process_read (demo, ANSWER_TIMEOUT);
      gint64 id;

      g_assert_nonnull (answer);
      id = test_message_get_id (answer);
      if (id == 100)
        {
          g_assert_cmpstr (test_message_get_text (answer), ==, "small");
          echoed = TRUE;
          continue;
        }
      g_assert_cmpint (id, >=, 1);
      g_assert_cmpint (id, <=, n_big);
      /* Refused at once, never answered otherwise: it sleeps a minute. */
      g_assert_cmpint (test_message_get_error_code (answer), ==, -32010);
      g_assert_false (was_refused[id]);
      was_refused[id] = TRUE;
      refused++;
    }
  for (gint64 id = 1; id <= n_big; id++)
    if (!was_refused[id])
      running = id;
  g_assert_cmpint (running, >, 0);

#ifndef __SANITIZE_ADDRESS__
  {
    gint64 peak_kb = test_process_status_kb (demo, "VmHWM");

    g_test_message ("peak RSS with a budget of 60 MB: %" G_GINT64_FORMAT " kB", peak_kb);
    /* The eight calls admitted together would hold about 340 MB. */
    if (peak_kb >= 0)
      g_assert_cmpint (peak_kb, <, 250 * 1024);
  }
#endif

  /* The budget is given back when the call that runs ends (here, once it
   * is cancelled): a big call is admitted again. Until the cancelled work
   * has finished it may still be refused, so it is tried again. */
  {
    g_autofree char *cancel = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                               "\"params\":{\"requestId\":%" G_GINT64_FORMAT "}}", running);

    test_process_send (demo, cancel);
  }
  for (guint attempt = 0; attempt < 100 && !admitted; attempt++)
    {
      g_autofree char *line = big_sleep_call (next_id, 10);
      g_autoptr(JsonNode) answer = NULL;

      test_process_send (demo, line);
      answer = test_process_read_id (demo, next_id, ANSWER_TIMEOUT);
      g_assert_nonnull (answer);
      next_id++;
      if (test_message_get_error_code (answer) == -32010)
        {
          g_usleep (100 * 1000);
          continue;
        }
      g_assert_cmpstr (test_message_get_text (answer), ==, "slept 10");
      admitted = TRUE;
    }
  g_assert_true (admitted);

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_default_budget (void)
{
  TestProcess *demo = spawn_demo (NULL);
  guint ok = 0;

  g_test_summary ("With the default budget, four concurrent 1 MB calls all run");

  test_process_initialize (demo, "2025-11-25");
  for (gint64 id = 1; id <= 4; id++)
    {
      g_autofree char *line = big_sleep_call (id, 200);

      test_process_send (demo, line);
    }
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(JsonNode) answer = test_process_read (demo, ANSWER_TIMEOUT);

      g_assert_nonnull (answer);
      g_assert_cmpint (test_message_get_error_code (answer), !=, -32010);
      g_assert_cmpstr (test_message_get_text (answer), ==, "slept 200");
      ok++;
    }
  g_assert_cmpuint (ok, ==, 4);

  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/live-bytes/budget", test_budget);
  g_test_add_func ("/snodo/live-bytes/default-budget", test_default_budget);

  return g_test_run ();
}
