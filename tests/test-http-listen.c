/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Where the HTTP transport listens (IPv4 and IPv6 addresses, a Unix
 * socket, an inherited socket, TLS), a transport mounted in an
 * application's own SoupServer, and who may talk to it (Host, Origin). */

#include "config.h"

#include <errno.h>
#include <grp.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "snodo-http-listener-private.h"
#include "snodo-http-transport.h"
#include "snodo-invocation.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-tool.h"

#define ENVELOPE "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define ECHO_BODY(text) "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":" \
                        "{\"name\":\"echo\",\"arguments\":{\"text\":\"" text "\"}," ENVELOPE "}}"

typedef struct
{
  SnodoServer        *server;
  SnodoHttpTransport *transport;
  SoupSession        *session;
  char               *tmpdir;
  /* The wait tool was called, and cancelled. */
  gboolean            wait_started;
  gboolean            wait_cancelled;
} Fixture;

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  snodo_invocation_return_text (invocation, json_object_get_string_member_with_default (arguments, "text", ""));
}

/* wait {}: answers only when cancelled, and says so. */
static gboolean
wait_tool_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  SnodoInvocation *invocation = user_data;
  Fixture *fixture = g_object_get_data (G_OBJECT (invocation), "fixture");

  fixture->wait_cancelled = TRUE;
  snodo_invocation_return_text (invocation, "cancelled");
  return G_SOURCE_REMOVE;
}

static void
wait_tool_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  GSource *source = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));

  g_object_set_data (G_OBJECT (invocation), "fixture", user_data);
  ((Fixture *) user_data)->wait_started = TRUE;
  g_source_set_callback (source, G_SOURCE_FUNC (wait_tool_cancelled_cb), invocation, NULL);
  g_source_attach (source, NULL);
  g_source_unref (source);
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", NULL);
  g_autoptr(SnodoTool) wait = snodo_tool_new ("wait", NULL);
  g_autoptr(GError) error = NULL;

  fixture->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (fixture->server, echo, echo_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->server, wait, wait_tool_cb, fixture, NULL, NULL));
  fixture->transport = snodo_http_transport_new (fixture->server);
  fixture->session = soup_session_new_with_options ("max-conns", 1, "max-conns-per-host", 1, NULL);
  fixture->tmpdir = g_dir_make_tmp ("snodo-listen-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  *done = TRUE;
}

static void
close_transport (Fixture *fixture)
{
  gboolean done = FALSE;

  snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 10000));
  g_assert_finalize_object (g_steal_pointer (&fixture->transport));
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  if (fixture->transport != NULL)
    close_transport (fixture);
  g_clear_object (&fixture->session);
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_clear_object (&fixture->server);
  g_rmdir (fixture->tmpdir);
  g_clear_pointer (&fixture->tmpdir, g_free);
}

/* ---- A client ------------------------------------------------------------ */

typedef struct
{
  GBytes  *bytes;
  GError  *error;
  gboolean done;
  gboolean finished;
} ReadState;

static void
finished_cb (SoupMessage *msg,
             gpointer     user_data)
{
  ReadState *state = user_data;

  state->finished = TRUE;
}

static void
send_and_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ReadState *state = user_data;

  state->bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &state->error);
  state->done = TRUE;
}

static gboolean
accept_any_certificate_cb (SoupMessage          *msg,
                           GTlsCertificate      *certificate,
                           GTlsCertificateFlags  errors,
                           gpointer              user_data)
{
  return TRUE;
}

/* POSTs a 2026-07-28 echo of @text to @uri, with @host and @origin
 * headers unless NULL; returns the status, and the body in *out_body. */
static guint
post_echo (SoupSession  *session,
           const char   *uri,
           const char   *host,
           const char   *origin,
           char        **out_body,
           guint64      *out_connection)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) body = g_bytes_new_static (ECHO_BODY ("hello"), strlen (ECHO_BODY ("hello")));
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  ReadState state = { 0, };

  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
  soup_message_headers_replace (headers, "Mcp-Name", "echo");
  if (host != NULL)
    soup_message_headers_replace (headers, "Host", host);
  if (origin != NULL)
    soup_message_headers_replace (headers, "Origin", origin);
  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  /* Else libsoup sends every POST on a new connection. */
  soup_message_add_flags (msg, SOUP_MESSAGE_IDEMPOTENT);
  /* The test certificate is its own issuer. */
  g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any_certificate_cb), NULL);
  /* The session's connection is free for the next request from then on. */
  g_signal_connect (msg, "finished", G_CALLBACK (finished_cb), &state);

  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_true (snodo_test_wait_for (&state.finished, 10000));
  if (out_body != NULL)
    *out_body = g_strndup (g_bytes_get_data (state.bytes, NULL), g_bytes_get_size (state.bytes));
  if (out_connection != NULL)
    *out_connection = soup_message_get_connection_id (msg);
  g_bytes_unref (state.bytes);
  return soup_message_get_status (msg);
}

/* Two echoes, answered on the same connection (the session makes one at
 * a time: a second would be a new one). */
static void
assert_echo_served (SoupSession *session,
                    const char  *uri)
{
  guint64 first = 0, second = 0;

  for (int i = 0; i < 2; i++)
    {
      g_autofree char *body = NULL;

      g_assert_cmpuint (post_echo (session, uri, NULL, NULL, &body, i == 0 ? &first : &second), ==,
                        SOUP_STATUS_OK);
      g_assert_nonnull (strstr (body, "\"text\":\"hello\""));
    }
  g_assert_cmpuint (first, !=, 0);
  g_assert_cmpuint (first, ==, second);
}

/* Runs the main context until the transport has @n connections open. */
static gboolean
wait_for_connections (SnodoHttpTransport *transport,
                      guint               n,
                      guint               timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (snodo_http_transport_get_n_connections (transport) != n)
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (500);
    }
  return TRUE;
}

/* One request written by hand on @socket (non-blocking); runs the main
 * context until the whole answer (with a Content-Length) has come. */
static char *
raw_exchange (GSocket    *socket,
              const char *host)
{
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: %s\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              host, strlen (ECHO_BODY ("raw")), ECHO_BODY ("raw"));
  g_autoptr(GString) in = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_assert_cmpint (g_socket_send (socket, request, strlen (request), NULL, NULL), ==, (gssize) strlen (request));
  while (g_get_monotonic_time () < deadline)
    {
      char buf[4096];
      const char *end;
      gssize n;

      g_main_context_iteration (NULL, FALSE);
      n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);
      if (n == 0)
        return NULL;
      if (n < 0)
        {
          g_usleep (500);
          continue;
        }
      g_string_append_len (in, buf, n);
      end = strstr (in->str, "\r\n\r\n");
      if (end != NULL)
        {
          const char *length = strstr (in->str, "Content-Length: ");

          g_assert_nonnull (length);
          if (in->len >= (gsize) (end + 4 - in->str) + g_ascii_strtoull (length + 16, NULL, 10))
            return g_string_free (g_steal_pointer (&in), FALSE);
        }
    }
  g_assert_not_reached ();
}

/* ---- Where it listens ---------------------------------------------------- */

/* Whether a socket can be bound to ::1. */
static gboolean
has_ipv6_loopback (void)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("::1", 0);
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV6, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);

  return socket != NULL && g_socket_bind (socket, address, FALSE, NULL);
}

static void
test_listen_ipv6 (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("::1", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;

  g_test_summary ("A client reaches the transport over IPv6 loopback, on a kept-alive connection");

  if (!has_ipv6_loopback ())
    {
      g_test_skip ("This machine has no IPv6 loopback address (::1)");
      return;
    }
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (snodo_http_transport_get_port (fixture->transport), >, 0);
  uri = snodo_http_transport_dup_uri (fixture->transport);
  g_assert_true (g_str_has_prefix (uri, "http://[::1]:"));
  g_assert_true (g_str_has_suffix (uri, "/mcp"));
  assert_echo_served (fixture->session, uri);
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), ==, 1);
}

static void
test_listen_any (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("0.0.0.0", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;

  g_test_summary ("On every interface, the URI names the loopback interface, where a local client "
                  "reaches the transport");

  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (fixture->transport);
  g_assert_true (g_str_has_prefix (uri, "http://127.0.0.1:"));
  assert_echo_served (fixture->session, uri);
}

static void
test_listen_unix (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->tmpdir, "mcp.sock", NULL);
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr(GSocketAddress) taken = g_unix_socket_address_new (path);
  g_autoptr(SnodoHttpTransport) second = snodo_http_transport_new (fixture->server);
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GError) error = NULL;
  GSocket *socket;
  char *answer;

  g_test_summary ("A client reaches the transport over a Unix socket, on a kept-alive connection "
                  "that closes when the client closes it; the socket's path goes with the transport");

  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (snodo_http_transport_get_port (fixture->transport), ==, 0);
  g_assert_null (snodo_http_transport_dup_uri (fixture->transport));

  /* The path is taken. */
  g_assert_false (snodo_http_transport_listen (second, taken, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
  g_assert_no_error (error);
  socket = g_socket_connection_get_socket (connection);
  g_socket_set_blocking (socket, FALSE);
  for (int round = 0; round < 2; round++)
    {
      answer = raw_exchange (socket, "localhost");
      g_assert_nonnull (answer);
      g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
      g_assert_nonnull (strstr (answer, "\"text\":\"raw\""));
      g_assert_null (strstr (answer, "Connection: close"));
      g_free (answer);
    }
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), ==, 1);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  g_assert_true (wait_for_connections (fixture->transport, 0, 2000));

  close_transport (fixture);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Whether a process of uid 65534 whose groups are @gid alone (or none,
 * with -1) may connect to the Unix socket at @path: a child drops root
 * and tries. Only for root. */
static gboolean
can_connect_as (const char *path,
                gid_t       gid)
{
  struct sockaddr_un address = { .sun_family = AF_UNIX };
  int status = 0;
  pid_t child;

  g_assert_cmpuint (strlen (path), <, sizeof address.sun_path);
  strcpy (address.sun_path, path);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      gid_t groups[1] = { gid };
      int fd;

      if (setgroups (gid == (gid_t) -1 ? 0 : 1, groups) != 0 ||
          setgid (gid == (gid_t) -1 ? 65534 : gid) != 0 || setuid (65534) != 0)
        _exit (3);
      fd = socket (AF_UNIX, SOCK_STREAM, 0);
      if (connect (fd, (struct sockaddr *) &address, sizeof address) == 0)
        _exit (0);
      _exit (errno == EACCES ? 1 : 2);
    }
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), <=, 1);
  return WEXITSTATUS (status) == 0;
}

static void
test_listen_unix_access (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->tmpdir, "mcp.sock", NULL);
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr(SnodoHttpTransport) unknown = snodo_http_transport_new (fixture->server);
  g_autoptr(GError) error = NULL;
  g_autofree char *group = NULL;
  g_autofree char *mode_text = NULL;
  gboolean as_root = geteuid () == 0;
  /* A group the test may give: as root any (a number no group has),
   * otherwise the process's own. */
  gid_t gid = as_root ? 54321 : getegid ();
  struct stat info;
  guint mode = 0;

  g_test_summary ("A Unix socket gets the mode and group of the transport's properties before it "
                  "accepts: a member of the group may connect, others may not; an unknown group fails");

  /* The folder lets anyone reach the socket: the socket's own mode
   * decides. */
  g_assert_cmpint (g_chmod (fixture->tmpdir, 0755), ==, 0);

  /* The default, where the umask decides: only the owner may connect. */
  if (as_root)
    {
      g_autoptr(SnodoHttpTransport) plain = snodo_http_transport_new (fixture->server);
      gboolean done = FALSE;
      mode_t old_umask = umask (022);

      g_assert_true (snodo_http_transport_listen (plain, address, &error));
      umask (old_umask);
      g_assert_no_error (error);
      g_assert_false (can_connect_as (path, gid));
      snodo_http_transport_close_async (plain, NULL, close_cb, &done);
      g_assert_true (snodo_test_wait_for (&done, 10000));
    }

  group = g_strdup_printf ("%u", (guint) gid);
  g_object_set (fixture->transport, "unix-socket-mode", 0660, "unix-socket-group", group, NULL);
  g_object_get (fixture->transport, "unix-socket-mode", &mode, NULL);
  g_assert_cmpuint (mode, ==, 0660);
  g_assert_cmpstr (snodo_http_transport_get_unix_socket_group (fixture->transport), ==, group);
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (path, &info), ==, 0);
  g_assert_true (S_ISSOCK (info.st_mode));
  mode_text = g_strdup_printf ("%04o", (guint) (info.st_mode & 07777));
  g_assert_cmpstr (mode_text, ==, "0660");
  g_assert_cmpuint (info.st_gid, ==, gid);
  if (as_root)
    {
      g_assert_true (can_connect_as (path, gid));
      g_assert_false (can_connect_as (path, (gid_t) -1));
    }
  close_transport (fixture);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* A group that does not exist: nothing is left at the path. */
  snodo_http_transport_set_unix_socket_group (unknown, "snodo-no-such-group");
  g_assert_false (snodo_http_transport_listen (unknown, address, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* A socket bound at @path, listening unless @stale; @stale: closed, its
 * file left behind as a crashed server leaves it. */
static GSocket *
bind_at (const char *path,
         gboolean    stale)
{
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr(GError) error = NULL;
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);

  g_assert_no_error (error);
  g_assert_true (g_socket_bind (socket, address, FALSE, &error));
  g_assert_true (g_socket_listen (socket, &error));
  g_assert_no_error (error);
  if (stale)
    g_socket_close (socket, NULL);
  return socket;
}

static void
test_listen_unix_stale (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->tmpdir, "mcp.sock", NULL);
  g_autofree char *other = g_build_filename (fixture->tmpdir, "other.sock", NULL);
  g_autofree char *file = g_build_filename (fixture->tmpdir, "notes.txt", NULL);
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr(GSocketAddress) other_address = g_unix_socket_address_new (other);
  g_autoptr(GSocketAddress) file_address = g_unix_socket_address_new (file);
  g_autoptr(SnodoHttpTransport) second = snodo_http_transport_new (fixture->server);
  g_autoptr(SnodoHttpTransport) third = snodo_http_transport_new (fixture->server);
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GSocket) stale = bind_at (path, TRUE);
  g_autoptr(GSocket) live = bind_at (other, FALSE);
  g_autoptr(GSocket) accepted = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  char *answer;

  g_test_summary ("The socket file of a server that is gone is replaced; a socket another server listens "
                  "on is refused (address in use) and keeps working; a file that is not a socket is refused "
                  "and left alone");

  /* Left behind: removed, and served. */
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
  g_assert_no_error (error);
  g_socket_set_blocking (g_socket_connection_get_socket (connection), FALSE);
  answer = raw_exchange (g_socket_connection_get_socket (connection), "localhost");
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  g_free (answer);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);

  /* Another server listens there: refused, its socket untouched. */
  g_assert_false (snodo_http_transport_listen (second, other_address, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE);
  g_assert_nonnull (strstr (error->message, other));
  g_clear_error (&error);
  g_clear_object (&connection);
  connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (other_address), NULL, &error);
  g_assert_no_error (error);
  accepted = g_socket_accept (live, NULL, &error);
  g_assert_no_error (error);

  /* Not a socket: refused, never removed. */
  g_assert_true (g_file_set_contents (file, "keep me\n", -1, &error));
  g_assert_false (snodo_http_transport_listen (third, file_address, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (file, &contents, NULL, &error));
  g_assert_cmpstr (contents, ==, "keep me\n");

  close_transport (fixture);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_socket_close (live, NULL);
  g_unlink (other);
  g_unlink (file);
}

static void
test_listen_socket (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GSocket) unbound = NULL;
  g_autoptr(GSocket) listening = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;

  g_test_summary ("A socket opened elsewhere is served if it listens, refused otherwise");

  unbound = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_assert_false (snodo_http_transport_listen_socket (fixture->transport, unbound, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  listening = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_true (g_socket_bind (listening, address, TRUE, &error));
  g_assert_true (g_socket_listen (listening, &error));
  g_assert_true (snodo_http_transport_listen_socket (fixture->transport, listening, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (fixture->transport);
  assert_echo_served (fixture->session, uri);
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), ==, 1);

  close_transport (fixture);
  g_assert_true (g_socket_is_closed (listening));
}

/* Reads one line of @stream within @timeout_ms, running the main context. */
typedef struct
{
  char    *line;
  GError  *error;
  gboolean done;
} LineState;

static void
read_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  LineState *state = user_data;

  state->line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, NULL,
                                                          &state->error);
  state->done = TRUE;
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *done = TRUE;
}

static void
test_listen_inherited (Fixture       *fixture,
                       gconstpointer  data)
{
  const char *demo = g_getenv ("SNODO_DEMO");
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GSocket) listening = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  LineState state = { 0, };
  gboolean exited = FALSE;

  g_test_summary ("snodo-demo serves the socket a service manager passes as descriptor 3 "
                  "(LISTEN_FDS, LISTEN_PID), on a kept-alive connection, and exits 0 on SIGTERM");

  g_assert_nonnull (demo);
  listening = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_true (g_socket_bind (listening, address, TRUE, &error));
  g_assert_true (g_socket_listen (listening, &error));
  g_assert_no_error (error);
  bound = g_socket_get_local_address (listening, &error);
  expected = g_strdup_printf ("http://127.0.0.1:%u/mcp",
                              g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_setenv (launcher, "LISTEN_FDS", "1", TRUE);
  g_subprocess_launcher_take_fd (launcher, dup (g_socket_get_fd (listening)), 3);
  /* LISTEN_PID must be the server's own: the shell's, which exec keeps. */
  process = g_subprocess_launcher_spawn (launcher, &error, "/bin/sh", "-c", "LISTEN_PID=$$; export LISTEN_PID; exec \"$0\"", demo, NULL);
  g_assert_no_error (error);
  /* The demo has its own copy now. */
  g_socket_close (listening, NULL);

  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL, read_line_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_cmpstr (state.line, ==, expected);
  g_free (state.line);

  assert_echo_served (fixture->session, expected);

  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait_async (process, NULL, wait_cb, &exited);
  g_assert_true (snodo_test_wait_for (&exited, 10000));
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
}

static void
test_listen_tls (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *cert_file = g_test_build_filename (G_TEST_DIST, "data", "tls", "test-cert.pem", NULL);
  g_autofree char *key_file = g_test_build_filename (G_TEST_DIST, "data", "tls", "test-key.pem", NULL);
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *plain = NULL;

#ifdef __SANITIZE_ADDRESS__
  /* LeakSanitizer (GCC 12, glibc 2.36) crashes at exit scanning the
   * thread-local storage of the GnuTLS that glib-networking loads at run
   * time ("Tracer caught signal 11" in a dlopen'd library's DTLS): the TLS
   * cases run in the plain build only. */
  g_test_skip ("LeakSanitizer cannot scan the TLS of GnuTLS loaded at run time");
  return;
#endif

  g_test_summary ("HTTPS with a certificate: a client is served on a kept-alive connection; a client "
                  "that speaks plain HTTP or never shakes hands is not served and its connection goes");

  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_test_skip ("GIO has no TLS backend (glib-networking is not installed)");
      return;
    }
  certificate = g_tls_certificate_new_from_files (cert_file, key_file, &error);
  g_assert_no_error (error);
  snodo_http_transport_set_tls_certificate (fixture->transport, certificate);
  g_assert_true (snodo_http_transport_get_tls_certificate (fixture->transport) == certificate);
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (fixture->transport);
  g_assert_true (g_str_has_prefix (uri, "https://127.0.0.1:"));

  assert_echo_served (fixture->session, uri);
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), ==, 1);
  /* A body over max-body-bytes is refused at once, in TLS like the rest
   * (it used to be written as plain text into the TLS stream). */
  snodo_http_transport_set_max_body_bytes (fixture->transport, 20);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, NULL, NULL), ==, 413);
  snodo_http_transport_set_max_body_bytes (fixture->transport, 2000000);
  g_assert_true (wait_for_connections (fixture->transport, 0, 5000));
  assert_echo_served (fixture->session, uri);
  /* A client that closes its kept-alive connection: the server closes its
   * end at once. */
  soup_session_abort (fixture->session);
  g_assert_true (wait_for_connections (fixture->transport, 0, 2000));
  /* Only the read deadline closes what follows. */
  snodo_http_transport_set_connection_idle_timeout (fixture->transport, 0);
  snodo_http_transport_set_request_read_timeout (fixture->transport, 1);

  /* Plain HTTP on the TLS port gets no answer. */
  plain = g_strdup_printf ("http://%s", uri + strlen ("https://"));
  {
    g_autoptr(SoupMessage) msg = soup_message_new ("POST", plain);
    ReadState state = { 0, };

    soup_session_send_and_read_async (fixture->session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
    g_assert_true (snodo_test_wait_for (&state.done, 10000));
    g_assert_nonnull (state.error);
    g_clear_error (&state.error);
    g_clear_pointer (&state.bytes, g_bytes_unref);
  }
  /* A client that never shakes hands is closed at the read deadline. */
  {
    g_autoptr(GSocketClient) client = g_socket_client_new ();
    g_autoptr(GSocketConnection) silent = NULL;
    guint16 port = snodo_http_transport_get_port (fixture->transport);

    gint64 start;

    silent = g_socket_client_connect_to_host (client, "127.0.0.1", port, NULL, &error);
    g_assert_no_error (error);
    g_assert_true (wait_for_connections (fixture->transport, 1, 2000));
    start = g_get_monotonic_time ();
    g_assert_true (wait_for_connections (fixture->transport, 0, 4000));
    g_assert_cmpint (g_get_monotonic_time () - start, >=, G_USEC_PER_SEC / 2);
  }
}

static gboolean
accept_any_tls_cb (GTlsConnection       *connection,
                   GTlsCertificate      *peer_cert,
                   GTlsCertificateFlags  errors,
                   gpointer              user_data)
{
  return TRUE;
}

static void
client_event_cb (GSocketClient      *client,
                 GSocketClientEvent  event,
                 GSocketConnectable *connectable,
                 GIOStream          *connection,
                 gpointer            user_data)
{
  if (event == G_SOCKET_CLIENT_TLS_HANDSHAKING)
    g_signal_connect (connection, "accept-certificate", G_CALLBACK (accept_any_tls_cb), NULL);
}

typedef struct
{
  GSocketConnection *connection;
  GError            *error;
  gboolean           done;
} ConnectState;

static void
connected_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ConnectState *state = user_data;

  state->connection = g_socket_client_connect_to_host_finish (G_SOCKET_CLIENT (object), result, &state->error);
  state->done = TRUE;
}

static void
test_listen_tls_read_deadline (Fixture       *fixture,
                               gconstpointer  data)
{
  static const char head[] = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  g_autofree char *cert_file = g_test_build_filename (G_TEST_DIST, "data", "tls", "test-cert.pem", NULL);
  g_autofree char *key_file = g_test_build_filename (G_TEST_DIST, "data", "tls", "test-key.pem", NULL);
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GError) error = NULL;
  ConnectState state = { 0, };
  GOutputStream *out;
  gint64 start;
  gboolean closed = FALSE;

#ifdef __SANITIZE_ADDRESS__
  /* See test_listen_tls(). */
  g_test_skip ("LeakSanitizer cannot scan the TLS of GnuTLS loaded at run time");
  return;
#endif

  g_test_summary ("Over TLS, a client that shakes hands and then sends its request a byte at a "
                  "time is closed at request-read-timeout, connection-idle-timeout being off");

  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_test_skip ("GIO has no TLS backend (glib-networking is not installed)");
      return;
    }
  certificate = g_tls_certificate_new_from_files (cert_file, key_file, &error);
  g_assert_no_error (error);
  snodo_http_transport_set_tls_certificate (fixture->transport, certificate);
  snodo_http_transport_set_connection_idle_timeout (fixture->transport, 0);
  snodo_http_transport_set_request_read_timeout (fixture->transport, 2);
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);

  g_socket_client_set_tls (client, TRUE);
  g_signal_connect (client, "event", G_CALLBACK (client_event_cb), NULL);
  g_socket_client_connect_to_host_async (client, "127.0.0.1", snodo_http_transport_get_port (fixture->transport),
                                         NULL, connected_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  out = g_io_stream_get_output_stream (G_IO_STREAM (state.connection));

  start = g_get_monotonic_time ();
  for (gsize i = 0; !closed; i = (i + 1) % (sizeof head - 1))
    {
      g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
      if (g_output_stream_write (out, head + i, 1, NULL, NULL) != 1)
        break;
      closed = wait_for_connections (fixture->transport, 0, 50);
    }
  /* Not before the deadline (the handshake's time counts too). */
  g_assert_cmpint (g_get_monotonic_time () - start, >=, G_USEC_PER_SEC);
  g_clear_object (&state.connection);
}

/* ---- Mounted in an application's server ---------------------------------- */

static void
hello_cb (SoupServer        *server,
          SoupServerMessage *msg,
          const char        *path,
          GHashTable        *query,
          gpointer           user_data)
{
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "hello", 5);
}

/* GETs @uri; returns the status, and the body in *out_body. */
static guint
get (SoupSession  *session,
     const char   *uri,
     char        **out_body)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", uri);
  ReadState state = { 0, };

  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  *out_body = g_strndup (g_bytes_get_data (state.bytes, NULL), g_bytes_get_size (state.bytes));
  g_bytes_unref (state.bytes);
  return soup_message_get_status (msg);
}

static void
test_mount (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(SoupServer) host = soup_server_new (NULL, NULL);
  g_autoptr(SnodoHttpTransport) transport = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) base = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *hello = NULL;
  g_autofree char *body = NULL;
  g_autofree char *big = NULL;
  GSList *uris;

  g_test_summary ("A transport attached to an application's SoupServer serves its path with the same "
                  "checks and limits, the application's handler its own, and closing leaves the "
                  "application's server serving");

  soup_server_add_handler (host, "/hello", hello_cb, NULL, NULL);
  g_assert_true (soup_server_listen_local (host, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (host);
  base = g_uri_ref (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  hello = g_strdup_printf ("http://127.0.0.1:%d/hello", g_uri_get_port (base));

  /* The fixture's transport is not used. */
  g_clear_object (&fixture->transport);
  transport = g_object_new (SNODO_TYPE_HTTP_TRANSPORT, "server", fixture->server, "path", "/api/mcp", NULL);
  g_assert_true (snodo_http_transport_attach (transport, host, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (transport);
  g_assert_cmpstr (uri, ==, (body = g_strdup_printf ("http://127.0.0.1:%d/api/mcp", g_uri_get_port (base))));
  g_clear_pointer (&body, g_free);

  /* Both are served. */
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, &body, NULL), ==, SOUP_STATUS_OK);
  g_assert_nonnull (strstr (body, "\"text\":\"hello\""));
  g_clear_pointer (&body, g_free);
  g_assert_cmpuint (get (fixture->session, hello, &body), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (body, ==, "hello");
  g_clear_pointer (&body, g_free);

  /* A session of the initialize era. */
  {
    static const char initialize[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                     "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    g_autoptr(SoupMessage) init = soup_message_new ("POST", uri);
    g_autoptr(GBytes) bytes = g_bytes_new_static (initialize, sizeof initialize - 1);
    ReadState state = { 0, };

    soup_message_headers_replace (soup_message_get_request_headers (init), "Accept",
                                  "application/json, text/event-stream");
    soup_message_set_request_body_from_bytes (init, "application/json", bytes);
    soup_session_send_and_read_async (fixture->session, init, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
    g_assert_true (snodo_test_wait_for (&state.done, 10000));
    g_assert_no_error (state.error);
    g_bytes_unref (state.bytes);
    g_assert_cmpuint (soup_message_get_status (init), ==, SOUP_STATUS_OK);
    g_assert_nonnull (soup_message_headers_get_one (soup_message_get_response_headers (init), "Mcp-Session-Id"));
  }

  /* The same checks and limits. */
  g_assert_cmpuint (post_echo (fixture->session, uri, "evil.example", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "https://evil.example", NULL, NULL), ==,
                    SOUP_STATUS_FORBIDDEN);
  snodo_http_transport_set_max_body_bytes (transport, 10);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, NULL, NULL), ==,
                    SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE);
  snodo_http_transport_set_max_body_bytes (transport, 2000000);
  big = g_strdup_printf ("%s/below", uri);
  g_assert_cmpuint (post_echo (fixture->session, big, NULL, NULL, NULL, NULL), ==, SOUP_STATUS_NOT_FOUND);

  /* libsoup before 3.3 would leak the connection of a client that closes
   * it between requests: the transport's answers end theirs. */
  msg = soup_message_new ("DELETE", uri);
  {
    ReadState state = { 0, };
    const char *connection;

    soup_session_send_and_read_async (fixture->session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
    g_assert_true (snodo_test_wait_for (&state.done, 10000));
    g_assert_no_error (state.error);
    g_bytes_unref (state.bytes);
    connection = soup_message_headers_get_one (soup_message_get_response_headers (msg), "Connection");
    if (soup_get_minor_version () < 3)
      g_assert_cmpstr (connection, ==, "close");
    else
      g_assert_null (connection);
  }
  {
    guint64 first = 0, second = 0;

    g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, NULL, &first), ==, SOUP_STATUS_OK);
    g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, NULL, &second), ==, SOUP_STATUS_OK);
    if (soup_get_minor_version () < 3)
      g_assert_cmpuint (first, !=, second);
    else
      g_assert_cmpuint (first, ==, second);
  }

  /* Closing takes the transport's handlers away, nothing else. */
  {
    gboolean done = FALSE;

    snodo_http_transport_close_async (transport, NULL, close_cb, &done);
    g_assert_true (snodo_test_wait_for (&done, 10000));
    g_assert_finalize_object (g_steal_pointer (&transport));
  }
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, NULL, NULL), ==, SOUP_STATUS_NOT_FOUND);
  g_assert_cmpuint (get (fixture->session, hello, &body), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (body, ==, "hello");
  soup_server_disconnect (host);
}

/* ---- Who may talk to it --------------------------------------------------- */

static void
test_allowed_hosts (Fixture       *fixture,
                    gconstpointer  data)
{
  static const char *const public_names[] = { "mcp.example.com", "api.example.com:8443", "[2001:db8::1]", NULL };
  static const char *const any[] = { "*", NULL };
  static const struct
  {
    const char *host;
    guint       status;
  } by_default[] = {
    { "localhost", SOUP_STATUS_OK },
    { "LOCALHOST:8080", SOUP_STATUS_OK },
    { "127.0.0.1:1", SOUP_STATUS_OK },
    { "[::1]:8080", SOUP_STATUS_OK },
    { "mcp.example.com", SOUP_STATUS_MISDIRECTED_REQUEST },
    { "127.0.0.1.evil.example", SOUP_STATUS_MISDIRECTED_REQUEST },
  }, listed[] = {
    { "mcp.example.com", SOUP_STATUS_OK },
    { "MCP.Example.COM:443", SOUP_STATUS_OK },
    { "api.example.com:8443", SOUP_STATUS_OK },
    { "[2001:db8::1]:80", SOUP_STATUS_OK },
    { "api.example.com", SOUP_STATUS_MISDIRECTED_REQUEST },
    { "api.example.com:9000", SOUP_STATUS_MISDIRECTED_REQUEST },
    { "evil.mcp.example.com", SOUP_STATUS_MISDIRECTED_REQUEST },
    { "mcp.example.com.evil", SOUP_STATUS_MISDIRECTED_REQUEST },
    /* The list replaces the default. */
    { "localhost", SOUP_STATUS_MISDIRECTED_REQUEST },
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;

  g_test_summary ("The Host names allowed: the loopback names by default, a list (with or without "
                  "ports) replacing them, or any; others are answered 421");

  g_assert_null (snodo_http_transport_get_allowed_hosts (fixture->transport));
  g_assert_true (snodo_http_transport_listen_local (fixture->transport, 0, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (fixture->transport);

  for (guint i = 0; i < G_N_ELEMENTS (by_default); i++)
    {
      g_test_message ("default, Host: %s", by_default[i].host);
      g_assert_cmpuint (post_echo (fixture->session, uri, by_default[i].host, NULL, NULL, NULL), ==,
                        by_default[i].status);
    }

  snodo_http_transport_set_allowed_hosts (fixture->transport, public_names);
  g_assert_true (g_strv_equal (snodo_http_transport_get_allowed_hosts (fixture->transport), public_names));
  for (guint i = 0; i < G_N_ELEMENTS (listed); i++)
    {
      g_test_message ("listed, Host: %s", listed[i].host);
      g_assert_cmpuint (post_echo (fixture->session, uri, listed[i].host, NULL, NULL, NULL), ==, listed[i].status);
    }

  g_object_set (fixture->transport, "allowed-hosts", any, NULL);
  g_assert_cmpuint (post_echo (fixture->session, uri, "anything.example:1", NULL, NULL, NULL), ==, SOUP_STATUS_OK);

  snodo_http_transport_set_allowed_hosts (fixture->transport, NULL);
  g_assert_cmpuint (post_echo (fixture->session, uri, "anything.example", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, uri, "localhost", NULL, NULL, NULL), ==, SOUP_STATUS_OK);
}

/* Whether a socket can be bound to 127.0.0.2 (all of 127/8 is loopback on
 * Linux; elsewhere only 127.0.0.1 may be). */
static gboolean
has_second_loopback (void)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.2", 0);
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);

  return socket != NULL && g_socket_bind (socket, address, FALSE, NULL);
}

static void
test_allowed_listened (Fixture       *fixture,
                       gconstpointer  data)
{
  static const char *const public_names[] = { "mcp.example.com", NULL };
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.2", 0);
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *host = NULL;
  g_autofree char *wrong_port = NULL;
  g_autofree char *answer = NULL;
  GSocket *socket;
  guint16 port;

  g_test_summary ("The address the transport listens on, with its port, is an allowed Host by "
                  "default: a request to the URI it gives is served; a refused Host is answered "
                  "421 Misdirected Request");

  if (!has_second_loopback ())
    {
      g_test_skip ("127.0.0.2 cannot be bound on this system");
      return;
    }
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  port = snodo_http_transport_get_port (fixture->transport);
  uri = snodo_http_transport_dup_uri (fixture->transport);
  host = g_strdup_printf ("127.0.0.2:%u", port);
  wrong_port = g_strdup_printf ("127.0.0.2:%u", port == 1 ? 2 : 1);
  g_assert_true (g_str_has_prefix (uri, "http://127.0.0.2:"));

  /* libsoup names the URI's host and port in Host. */
  assert_echo_served (fixture->session, uri);
  g_assert_cmpuint (post_echo (fixture->session, uri, host, NULL, NULL, NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, uri, "localhost", NULL, NULL, NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, uri, wrong_port, NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, uri, "127.0.0.2", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, uri, "127.0.0.3", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);

  /* The status line names its status. */
  g_clear_object (&address);
  address = g_inet_socket_address_new_from_string ("127.0.0.2", port);
  connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
  g_assert_no_error (error);
  socket = g_socket_connection_get_socket (connection);
  g_socket_set_blocking (socket, FALSE);
  answer = raw_exchange (socket, "evil.example");
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 421 Misdirected Request\r\n"));

  /* A list replaces the default, the address listened on too. */
  snodo_http_transport_set_allowed_hosts (fixture->transport, public_names);
  g_assert_cmpuint (post_echo (fixture->session, uri, host, NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, uri, "mcp.example.com", NULL, NULL, NULL), ==, SOUP_STATUS_OK);
}

static void
test_allowed_listened_demo (Fixture       *fixture,
                            gconstpointer  data)
{
  const char *demo = g_getenv ("SNODO_DEMO");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  LineState state = { 0, };
  gboolean exited = FALSE;

  g_test_summary ("snodo-demo --http 0 --http-address 127.0.0.2: a request to exactly the URL it "
                  "prints is served");

  if (!has_second_loopback ())
    {
      g_test_skip ("127.0.0.2 cannot be bound on this system");
      return;
    }
  g_assert_nonnull (demo);
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, demo, "--http", "0",
                              "--http-address", "127.0.0.2", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL, read_line_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_true (g_str_has_prefix (state.line, "http://127.0.0.2:"));
  g_assert_true (g_str_has_suffix (state.line, "/mcp"));

  g_assert_cmpuint (post_echo (fixture->session, state.line, NULL, NULL, NULL, NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, state.line, "evil.example", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_free (state.line);

  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait_async (process, NULL, wait_cb, &exited);
  g_assert_true (snodo_test_wait_for (&exited, 10000));
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
}

static void
test_allowed_origins (Fixture       *fixture,
                      gconstpointer  data)
{
  static const char *const app[] = { "https://app.example.com", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;

  g_test_summary ("The Origins allowed: the loopback origins by default, or a list replacing them; "
                  "others are answered 403, a request without Origin is served");

  g_assert_true (snodo_http_transport_listen_local (fixture->transport, 0, &error));
  uri = snodo_http_transport_dup_uri (fixture->transport);

  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "http://localhost:3000", NULL, NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "https://[::1]", NULL, NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "https://app.example.com", NULL, NULL), ==,
                    SOUP_STATUS_FORBIDDEN);

  snodo_http_transport_set_allowed_origins (fixture->transport, app);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "https://APP.example.com", NULL, NULL), ==,
                    SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "http://app.example.com", NULL, NULL), ==,
                    SOUP_STATUS_FORBIDDEN);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, "http://localhost:3000", NULL, NULL), ==,
                    SOUP_STATUS_FORBIDDEN);
  g_assert_cmpuint (post_echo (fixture->session, uri, NULL, NULL, NULL, NULL), ==, SOUP_STATUS_OK);
}

static void
test_allowed_demo (Fixture       *fixture,
                   gconstpointer  data)
{
  const char *demo = g_getenv ("SNODO_DEMO");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  LineState state = { 0, };
  gboolean exited = FALSE;

  g_test_summary ("snodo-demo --allowed-hosts and --allowed-origins: a reverse proxy's public name "
                  "and an application's origin are served, others refused");

  g_assert_nonnull (demo);
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, demo, "--http=0",
                              "--allowed-hosts=mcp.example.com, localhost",
                              "--allowed-origins=https://app.example.com", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  g_data_input_stream_read_line_async (out, G_PRIORITY_DEFAULT, NULL, read_line_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);
  g_assert_true (g_str_has_prefix (state.line, "http://127.0.0.1:"));

  g_assert_cmpuint (post_echo (fixture->session, state.line, "mcp.example.com", NULL, NULL, NULL), ==,
                    SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, state.line, "localhost:8080", NULL, NULL, NULL), ==,
                    SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, state.line, "127.0.0.1", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, state.line, "evil.example", NULL, NULL, NULL), ==,
                    SOUP_STATUS_MISDIRECTED_REQUEST);
  g_assert_cmpuint (post_echo (fixture->session, state.line, "mcp.example.com", "https://app.example.com", NULL,
                               NULL), ==, SOUP_STATUS_OK);
  g_assert_cmpuint (post_echo (fixture->session, state.line, "mcp.example.com", "http://localhost", NULL, NULL), ==,
                    SOUP_STATUS_FORBIDDEN);
  g_free (state.line);

  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait_async (process, NULL, wait_cb, &exited);
  g_assert_true (snodo_test_wait_for (&exited, 10000));
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
}

static void
test_listen_tls_client_leaves (Fixture       *fixture,
                               gconstpointer  data)
{
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"wait\",\"arguments\":{}," ENVELOPE "}}";
  g_autofree char *cert_file = g_test_build_filename (G_TEST_DIST, "data", "tls", "test-cert.pem", NULL);
  g_autofree char *key_file = g_test_build_filename (G_TEST_DIST, "data", "tls", "test-key.pem", NULL);
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GBytes) bytes = g_bytes_new_static (body, sizeof body - 1);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  SoupMessageHeaders *headers;
  ReadState state = { 0, };

#ifdef __SANITIZE_ADDRESS__
  /* LeakSanitizer (GCC 12, glibc 2.36) crashes at exit scanning the
   * thread-local storage of the GnuTLS that glib-networking loads at run
   * time ("Tracer caught signal 11" in a dlopen'd library's DTLS): the TLS
   * cases run in the plain build only. */
  g_test_skip ("LeakSanitizer cannot scan the TLS of GnuTLS loaded at run time");
  return;
#endif

  g_test_summary ("Over TLS, a client that closes its connection while its 2026-07-28 request waits "
                  "cancels the request, as over plain HTTP");

  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_test_skip ("GIO has no TLS backend (glib-networking is not installed)");
      return;
    }
  certificate = g_tls_certificate_new_from_files (cert_file, key_file, &error);
  g_assert_no_error (error);
  snodo_http_transport_set_tls_certificate (fixture->transport, certificate);
  g_assert_true (snodo_http_transport_listen (fixture->transport, address, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (fixture->transport);

  msg = soup_message_new ("POST", uri);
  headers = soup_message_get_request_headers (msg);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  soup_message_headers_replace (headers, "Mcp-Method", "tools/call");
  soup_message_headers_replace (headers, "Mcp-Name", "wait");
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any_certificate_cb), NULL);
  soup_session_send_and_read_async (fixture->session, msg, G_PRIORITY_DEFAULT, cancellable, send_and_read_cb,
                                    &state);
  g_assert_true (snodo_test_wait_for (&fixture->wait_started, 5000));

  /* The client closes its connection (with a TLS close_notify). */
  g_cancellable_cancel (cancellable);
  soup_session_abort (fixture->session);
  g_assert_true (snodo_test_wait_for (&fixture->wait_cancelled, 2000));
  g_assert_true (snodo_test_wait_for (&state.done, 2000));
  g_assert_nonnull (state.error);
  g_clear_error (&state.error);
  g_assert_true (wait_for_connections (fixture->transport, 0, 2000));
}

/* Where to listen, as the programs' --http and --mcp-http take it. */
static void
test_parse_address (void)
{
  static const struct { const char *text; const char *address; guint port; } good[] = {
    { "8080", "127.0.0.1", 8080 },
    { "0", "127.0.0.1", 0 },
    { "", "127.0.0.1", 0 },
    { "0.0.0.0:443", "0.0.0.0", 443 },
    { "127.0.0.1:", "127.0.0.1", 0 },
    { "[::1]:65535", "::1", 65535 },
    { "[::]:0", "::", 0 },
  };
  static const char * const bad[] = {
    "1.2.3", "::1:80", "[::1]80", "[::1", "localhost:80", "127.0.0.1:65536", "127.0.0.1:-1", "80x", "a:b:c",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GSocketAddress) address = snodo_http_transport_parse_address (good[i].text, &error);
      g_autofree char *host = NULL;

      g_assert_no_error (error);
      g_assert_true (G_IS_INET_SOCKET_ADDRESS (address));
      host = g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (address)));
      g_assert_cmpstr (host, ==, good[i].address);
      g_assert_cmpuint (g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address)), ==, good[i].port);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GSocketAddress) address = snodo_http_transport_parse_address (bad[i], &error);

      g_assert_null (address);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, bad[i]));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/http/listen/parse-address", test_parse_address);
  g_test_add ("/snodo/http/listen/ipv6", Fixture, NULL, fixture_setup, test_listen_ipv6, fixture_teardown);
  g_test_add ("/snodo/http/listen/any", Fixture, NULL, fixture_setup, test_listen_any, fixture_teardown);
  g_test_add ("/snodo/http/listen/unix", Fixture, NULL, fixture_setup, test_listen_unix, fixture_teardown);
  g_test_add ("/snodo/http/listen/unix-access", Fixture, NULL, fixture_setup, test_listen_unix_access,
              fixture_teardown);
  g_test_add ("/snodo/http/listen/unix-stale", Fixture, NULL, fixture_setup, test_listen_unix_stale,
              fixture_teardown);
  g_test_add ("/snodo/http/listen/socket", Fixture, NULL, fixture_setup, test_listen_socket, fixture_teardown);
  g_test_add ("/snodo/http/listen/inherited", Fixture, NULL, fixture_setup, test_listen_inherited,
              fixture_teardown);
  g_test_add ("/snodo/http/listen/tls", Fixture, NULL, fixture_setup, test_listen_tls, fixture_teardown);
  g_test_add ("/snodo/http/listen/tls-read-deadline", Fixture, NULL, fixture_setup, test_listen_tls_read_deadline,
              fixture_teardown);
  g_test_add ("/snodo/http/listen/tls-client-leaves", Fixture, NULL, fixture_setup, test_listen_tls_client_leaves,
              fixture_teardown);
  g_test_add ("/snodo/http/mount", Fixture, NULL, fixture_setup, test_mount, fixture_teardown);
  g_test_add ("/snodo/http/allowed/hosts", Fixture, NULL, fixture_setup, test_allowed_hosts, fixture_teardown);
  g_test_add ("/snodo/http/allowed/listened", Fixture, NULL, fixture_setup, test_allowed_listened,
              fixture_teardown);
  g_test_add ("/snodo/http/allowed/listened-demo", Fixture, NULL, fixture_setup, test_allowed_listened_demo,
              fixture_teardown);
  g_test_add ("/snodo/http/allowed/origins", Fixture, NULL, fixture_setup, test_allowed_origins, fixture_teardown);
  g_test_add ("/snodo/http/allowed/demo", Fixture, NULL, fixture_setup, test_allowed_demo, fixture_teardown);

  return g_test_run ();
}
