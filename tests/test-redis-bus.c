/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoRedisBus against a real redis-server on a free loopback port: each
 * message once in every process, the publisher's own copy dropped; what
 * happens while Redis stalls (a bounded backlog, then drops) and while it
 * is gone (local delivery only, nothing queued, connected again after). A
 * missing redis-server skips, except under CI (CI set), where it fails. */

#include "config.h"

#include <signal.h>
#include <string.h>
#ifdef __linux__
# include <sys/prctl.h>
#endif

#include <glib/gstdio.h>
#include <snodo/snodo.h>

#include "snodo-test-util.h"

/* Generous bounds: a loaded 2-core machine must pass. */
#define CONNECT_TIMEOUT 20000
#define MESSAGE_TIMEOUT 10000

typedef struct
{
  GSubprocess *redis;
  char        *program;
  char        *dir;
  guint16      port;
  char        *url;
} Redis;

/* What one bus delivered. */
typedef struct
{
  /* The small ones, as strings. */
  GPtrArray *messages;
  /* How many of 64 KiB. */
  guint      n_big;
} Received;

#define BIG_BYTES (64 * 1024)

static void
message_cb (SnodoBus *bus,
            GBytes   *message,
            Received *received)
{
  if (g_bytes_get_size (message) == BIG_BYTES)
    received->n_big++;
  else
    g_ptr_array_add (received->messages, g_strndup (g_bytes_get_data (message, NULL), g_bytes_get_size (message)));
}

static guint
count (Received   *received,
       const char *text)
{
  guint n = 0;

  for (guint i = 0; i < received->messages->len; i++)
    n += g_str_equal (g_ptr_array_index (received->messages, i), text);
  return n;
}

static guint16
free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (socket, address, TRUE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

#ifdef __linux__
static void
redis_child_setup (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}
#endif

static void
redis_start (Redis *redis)
{
  g_autofree char *port = g_strdup_printf ("%u", redis->port);
  g_autoptr(GError) error = NULL;
  gint64 deadline = g_get_monotonic_time () + CONNECT_TIMEOUT * G_TIME_SPAN_MILLISECOND;

  g_autofree char *log = g_build_filename (redis->dir, "redis.log", NULL);
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                      G_SUBPROCESS_FLAGS_STDERR_SILENCE);

#ifdef __linux__
  /* Never outlives a test that failed. */
  g_subprocess_launcher_set_child_setup (launcher, redis_child_setup, NULL, NULL);
#endif
  redis->redis = g_subprocess_launcher_spawn (launcher, &error,
                                              redis->program, "--port", port, "--bind", "127.0.0.1",
                                              "--save", "", "--appendonly", "no", "--dir", redis->dir,
                                              "--logfile", log, "--daemonize", "no", NULL);
  g_assert_no_error (error);
  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(GSocketClient) client = g_socket_client_new ();
      g_autoptr(GSocketConnection) connection = g_socket_client_connect_to_host (client, "127.0.0.1", redis->port,
                                                                                 NULL, NULL);
      if (connection != NULL)
        return;
      g_usleep (50 * 1000);
    }
  g_error ("redis-server did not listen on port %u", redis->port);
}

static void
redis_stop (Redis *redis)
{
  if (redis->redis == NULL)
    return;
  g_subprocess_send_signal (redis->redis, SIGCONT);
  g_subprocess_send_signal (redis->redis, SIGTERM);
  g_subprocess_wait (redis->redis, NULL, NULL);
  g_clear_object (&redis->redis);
}

/* FALSE (the test skipped or failed) if there is no redis-server. */
static gboolean
redis_set_up (Redis *redis)
{
  g_autoptr(GError) error = NULL;
  const char *ci = g_getenv ("CI");

  redis->program = g_find_program_in_path ("redis-server");
  if (redis->program == NULL)
    {
      if (ci != NULL && *ci != '\0' && !g_str_equal (ci, "false") && !g_str_equal (ci, "0"))
        {
          g_test_message ("CI is set, so this may not be skipped: redis-server is not installed");
          g_test_fail ();
        }
      else
        g_test_skip ("redis-server is not installed");
      return FALSE;
    }
  redis->dir = g_dir_make_tmp ("snodo-redis-XXXXXX", &error);
  g_assert_no_error (error);
  redis->port = free_port ();
  redis->url = g_strdup_printf ("redis://127.0.0.1:%u", redis->port);
  redis_start (redis);
  return TRUE;
}

static void
redis_tear_down (Redis *redis)
{
  redis_stop (redis);
  if (redis->dir != NULL)
    {
      g_autofree char *dump = g_build_filename (redis->dir, "dump.rdb", NULL);
      g_autofree char *log = g_build_filename (redis->dir, "redis.log", NULL);

      g_remove (dump);
      g_remove (log);
      g_rmdir (redis->dir);
    }
  g_free (redis->dir);
  g_free (redis->url);
  g_free (redis->program);
}

static gboolean connected_flag;

static void
connected_cb (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  connected_flag = snodo_redis_bus_get_connected (SNODO_REDIS_BUS (object));
}

/* Waits until @bus is connected (or, @connected FALSE, not). */
static void
wait_connected (SnodoRedisBus *bus,
                gboolean       connected)
{
  gint64 deadline = g_get_monotonic_time () + CONNECT_TIMEOUT * G_TIME_SPAN_MILLISECOND;

  while (snodo_redis_bus_get_connected (bus) != connected && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (10 * 1000);
  g_assert_cmpint (snodo_redis_bus_get_connected (bus), ==, connected);
}

/* Iterates the main context until @received holds @n copies of @text, or
 * for @ms. */
static void
wait_for_count (Received   *received,
                const char *text,
                guint       n,
                guint       ms)
{
  gint64 deadline = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  while (count (received, text) < n && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (5 * 1000);
}

static void
publish (SnodoRedisBus *bus,
         const char    *text)
{
  g_autoptr(GBytes) message = g_bytes_new (text, strlen (text));

  snodo_bus_publish (SNODO_BUS (bus), message);
}

static void
test_redis_bus (void)
{
  Redis redis = { 0, };
  g_autoptr(SnodoRedisBus) one = NULL;
  g_autoptr(SnodoRedisBus) two = NULL;
  g_autoptr(GError) error = NULL;
  Received got_one = { g_ptr_array_new_with_free_func (g_free) };
  Received got_two = { g_ptr_array_new_with_free_func (g_free) };
  g_autofree char *big = NULL;
  guint64 dropped;

  g_test_summary ("Two SnodoRedisBus through a real redis-server: each message once in each process; "
                  "a stalled Redis bounds what waits; while Redis is gone, local delivery only, "
                  "nothing queued; connected again after");

  if (!redis_set_up (&redis))
    return;

  one = snodo_redis_bus_new (redis.url, "test", &error);
  g_assert_no_error (error);
  two = snodo_redis_bus_new (redis.url, "test", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (snodo_redis_bus_get_channel (one), ==, "test");
  g_signal_connect (one, "message", G_CALLBACK (message_cb), &got_one);
  g_signal_connect (two, "message", G_CALLBACK (message_cb), &got_two);
  g_signal_connect (one, "notify::connected", G_CALLBACK (connected_cb), NULL);
  wait_connected (one, TRUE);
  wait_connected (two, TRUE);
  g_assert_true (connected_flag);

  /* Once here, at once; once there; never twice. */
  publish (one, "hello");
  g_assert_cmpuint (count (&got_one, "hello"), ==, 1);
  wait_for_count (&got_two, "hello", 1, MESSAGE_TIMEOUT);
  g_assert_cmpuint (count (&got_two, "hello"), ==, 1);
  publish (two, "back");
  wait_for_count (&got_one, "back", 1, MESSAGE_TIMEOUT);
  wait_for_count (&got_one, "hello", 2, 500);
  wait_for_count (&got_two, "back", 2, 500);
  g_assert_cmpuint (count (&got_one, "hello"), ==, 1);
  g_assert_cmpuint (count (&got_one, "back"), ==, 1);
  g_assert_cmpuint (count (&got_two, "back"), ==, 1);
  g_assert_cmpuint (snodo_redis_bus_get_n_dropped (one), ==, 0);

  /* Redis stops reading: what waits is bounded, the rest is dropped
   * (and still delivered here). 128 MiB in 64 KiB messages: the 1 MiB of
   * the backlog, the write in progress and the loopback socket buffers
   * (up to ~10 MiB with Linux's defaults) hold a small part. */
  g_subprocess_send_signal (redis.redis, SIGSTOP);
  big = g_strnfill (BIG_BYTES, 'x');
  for (guint i = 0; i < 2048; i++)
    {
      publish (one, big);
      g_main_context_iteration (NULL, FALSE);
    }
  dropped = snodo_redis_bus_get_n_dropped (one);
  g_test_message ("Redis stopped: %" G_GUINT64_FORMAT " of 2048 messages of 64 KiB dropped", dropped);
  g_assert_cmpuint (dropped, >=, 2048 - 320);
  g_assert_cmpuint (got_one.n_big, ==, 2048);
  g_subprocess_send_signal (redis.redis, SIGCONT);
  /* Every message that was not dropped reaches the other bus, once (and
   * the backlog is drained before Redis goes away: a connection busy
   * reading it would notice its end late). */
  {
    gint64 deadline = g_get_monotonic_time () + CONNECT_TIMEOUT * G_TIME_SPAN_MILLISECOND;

    while (got_two.n_big < 2048 - dropped && g_get_monotonic_time () < deadline)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (5 * 1000);
    wait_for_count (&got_two, "never", 1, 300);
    g_assert_cmpuint (got_two.n_big, ==, 2048 - dropped);
  }

  /* Redis gone: delivered here only, counted, never queued. */
  redis_stop (&redis);
  wait_connected (one, FALSE);
  wait_connected (two, FALSE);
  dropped = snodo_redis_bus_get_n_dropped (one);
  publish (one, "lost");
  g_assert_cmpuint (count (&got_one, "lost"), ==, 1);
  g_assert_cmpuint (snodo_redis_bus_get_n_dropped (one), ==, dropped + 1);

  /* Back: connected again, and "lost" never arrives there. */
  redis_start (&redis);
  wait_connected (one, TRUE);
  wait_connected (two, TRUE);
  publish (one, "again");
  wait_for_count (&got_two, "again", 1, MESSAGE_TIMEOUT);
  g_assert_cmpuint (count (&got_two, "again"), ==, 1);
  g_assert_cmpuint (count (&got_two, "lost"), ==, 0);
  g_assert_cmpuint (count (&got_one, "again"), ==, 1);

  g_clear_object (&one);
  g_clear_object (&two);
  /* What was in progress on the connections ends without them. */
  for (guint i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE);
  redis_tear_down (&redis);
  g_ptr_array_unref (got_one.messages);
  g_ptr_array_unref (got_two.messages);
}

static void
test_redis_bus_url (void)
{
  static const char * const bad[] = { "", "http://127.0.0.1:6379", "redis://", "unix:", "127.0.0.1:6379" };

  g_test_summary ("snodo_redis_bus_new() refuses what is no redis:// or unix: URL");

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SnodoRedisBus) bus = snodo_redis_bus_new (bad[i], NULL, &error);

      g_assert_null (bus);
      g_assert_nonnull (error);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/redis-bus/url", test_redis_bus_url);
  g_test_add_func ("/snodo/redis-bus/real", test_redis_bus);

  return g_test_run ();
}
