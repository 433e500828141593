/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The paths that differ between Linux and the other POSIX systems
 * (introspection/platforms.md), black-box: a server whose standard output
 * is a socket whose reader is gone, as Node and Electron clients give one
 * on macOS, and the sockets an HTTP listener makes, which a spawned program
 * must not inherit. Built with -Dportable=true these run the paths of the
 * systems without MSG_NOSIGNAL, sigtimedwait() and SOCK_CLOEXEC. */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <snodo/snodo.h>

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

/* A connected pair of AF_UNIX stream sockets, both close-on-exec (the
 * child gets its ends through the launcher, which dups them). */
static void
make_socketpair (int fds[2])
{
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, fds), ==, 0);
  g_assert_cmpint (fcntl (fds[0], F_SETFD, FD_CLOEXEC), ==, 0);
  g_assert_cmpint (fcntl (fds[1], F_SETFD, FD_CLOEXEC), ==, 0);
}

static void
send_line (GOutputStream *output,
           const char    *line)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_output_stream_write_all (output, line, strlen (line), NULL, NULL, &error));
  g_assert_true (g_output_stream_write_all (output, "\n", 1, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
test_socket_reader_gone (void)
{
  const char *program = g_getenv ("SNODO_FAULTY_SERVER");
  const char *argv[] = { program, NULL };
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) server = NULL;
  g_autoptr(GOutputStream) to_server = NULL;
  g_autoptr(GInputStream) from_server_raw = NULL;
  g_autoptr(GDataInputStream) from_server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *answer = NULL;
  int in[2], out[2];

  g_test_summary ("A server that leaves SIGPIPE at its default, its standard input and output "
                  "sockets, survives a client that stops reading: the output error ends it");

  g_assert_nonnull (program);
  make_socketpair (in);
  make_socketpair (out);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_take_stdin_fd (launcher, in[1]);
  g_subprocess_launcher_take_stdout_fd (launcher, out[1]);
  server = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  /* The launcher closes the child's ends once it has started. */
  g_clear_object (&launcher);
  /* Only now, for the test's own writes: the server must start with
   * SIGPIPE at its default. */
  signal (SIGPIPE, SIG_IGN);

  to_server = g_unix_output_stream_new (in[0], TRUE);
  from_server_raw = g_unix_input_stream_new (out[0], FALSE);
  from_server = g_data_input_stream_new (from_server_raw);

  send_line (to_server,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
             "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
  answer = g_data_input_stream_read_line (from_server, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (answer);
  g_assert_nonnull (strstr (answer, "\"result\""));
  send_line (to_server, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

  /* The reader goes: every answer from now on is written to a socket
   * nobody holds the other end of (EPIPE, and SIGPIPE unless kept from
   * the process). */
  g_clear_object (&from_server);
  g_clear_object (&from_server_raw);
  g_assert_cmpint (close (out[0]), ==, 0);

  for (gint64 id = 1; id <= 3; id++)
    {
      g_autofree char *line = test_tool_call (id, "echo", "{\"text\":\"nobody reads this\"}");

      /* The server may be gone already: the output error ends it. */
      if (!g_output_stream_write_all (to_server, line, strlen (line), NULL, NULL, NULL) ||
          !g_output_stream_write_all (to_server, "\n", 1, NULL, NULL, NULL))
        break;
    }
  g_output_stream_close (to_server, NULL, NULL);

  g_assert_true (g_subprocess_wait (server, NULL, &error));
  g_assert_no_error (error);
  if (g_subprocess_get_if_signaled (server))
    g_test_message ("the server was killed by signal %d", g_subprocess_get_term_sig (server));
  g_assert_false (g_subprocess_get_if_signaled (server));
  g_assert_true (g_subprocess_get_if_exited (server));
  g_assert_cmpint (g_subprocess_get_exit_status (server), ==, 0);
}

#if SNODO_HAS_HTTP_TRANSPORT
/* Every socket of the process but the standard ones is close-on-exec. */
static guint
count_inheritable_sockets (guint *sockets)
{
  guint inheritable = 0;

  *sockets = 0;
  for (int fd = 3; fd < 1024; fd++)
    {
      struct stat st;
      int flags;

      if (fstat (fd, &st) != 0 || !S_ISSOCK (st.st_mode))
        continue;
      (*sockets)++;
      flags = fcntl (fd, F_GETFD);
      g_assert_cmpint (flags, >=, 0);
      if ((flags & FD_CLOEXEC) == 0)
        {
          g_test_message ("socket %d is inherited by spawned programs", fd);
          inheritable++;
        }
    }
  return inheritable;
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  gboolean *closed = user_data;

  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  *closed = TRUE;
}

static void
test_listener_cloexec (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("portable", "1");
  g_autoptr(SnodoHttpTransport) transport = snodo_http_transport_new (server);
  g_autoptr(GError) error = NULL;
  gboolean closed = FALSE;
  guint before, after;

  g_test_summary ("The sockets an HTTP listener makes (its own and the pair it gives libsoup) "
                  "are not inherited by programs the process spawns");

  g_assert_cmpuint (count_inheritable_sockets (&before), ==, 0);
  g_assert_true (snodo_http_transport_listen_local (transport, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_inheritable_sockets (&after), ==, 0);
  /* The listening socket and the placeholder pair at least. */
  g_assert_cmpuint (after, >=, before + 3);
  snodo_http_transport_close_async (transport, NULL, close_cb, &closed);
  g_assert_true (snodo_test_wait_for (&closed, 10000));
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/portable/socket-reader-gone", test_socket_reader_gone);
#if SNODO_HAS_HTTP_TRANSPORT
  g_test_add_func ("/snodo/portable/listener-cloexec", test_listener_cloexec);
#endif

  return g_test_run ();
}
