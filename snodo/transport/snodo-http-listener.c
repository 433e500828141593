/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#ifdef G_OS_UNIX
# include <unistd.h>
# include <sys/socket.h>
# include <netinet/in.h>
# include <netinet/tcp.h>
# include <sys/resource.h>
# ifndef HAVE_SOCK_CLOEXEC
#  include <fcntl.h>
# endif
#endif
#ifdef G_OS_WIN32
# include <gio/gnetworking.h>
#endif

#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-http-framing-private.h"
#include "snodo-http-listener-private.h"

/*
 * Why the transport accepts its own connections
 *
 * A SoupServer that listens by itself (soup_server_listen_local()) gives
 * its socket GLib's default backlog of 10, so a burst of more than about
 * ten simultaneous connects overflows the accept queue and the clients
 * wait for SYN retransmissions (1, 3, 7 s). It accepts one connection per
 * main-loop iteration, and stops accepting for good after one failed
 * accept (EMFILE).
 *
 * Kept-alive connections have a worse problem on libsoup before 3.3: when
 * a client closes a connection between two requests, libsoup reads the end
 * of the stream, ends the request it was waiting for, and forgets the
 * connection without closing it. The socket stays in CLOSE_WAIT and its
 * descriptor and libsoup's connection object are never freed. A server
 * that keeps connections alive there leaks one of each per client
 * connection; the transport used to answer every request with
 * `Connection: close` instead, and every request paid for a TCP connect.
 *
 * So the transport listens on a socket of its own, accepts connections
 * itself, and hands each one to libsoup as a stream
 * (soup_server_accept_iostream()). The stream's input hides that
 * libsoup bug: on libsoup before 3.3, the end of the stream between two
 * requests reads first as one newline, then as the end. libsoup then sees
 * a request that started and was cut short, which it handles correctly:
 * it drops the connection, and the stream's close lets the transport
 * forget it. Nothing reaches a handler (a lone newline is not a request),
 * and the socket's sending side is shut first, so that libsoup's 400 never
 * reaches a client that only half-closed. The end of the stream in the
 * middle of a request is left alone: libsoup handles that itself.
 *
 * With that, the transport can time idle connections out (it shuts the
 * socket down, and libsoup sees the end of the stream), give each request
 * a deadline from its first byte to the end of its body (libsoup has
 * none: a client sending a byte a second would hold its connection for
 * as long as it liked), and bound their
 * number (the oldest idle connection makes room for a new one; when none
 * is idle, new clients wait in the backlog).
 *
 * The listening socket may be TCP (IPv4 or IPv6) or a Unix socket, made
 * here or inherited; everything above applies to each. With a
 * certificate, the listener wraps each connection in TLS and shakes hands
 * before libsoup gets it (libsoup would do so only on sockets it accepts
 * itself); a connection shaking hands is counted like any other, and
 * its handshake has the read deadline of a request. A
 * client's end of a TLS connection without close_notify ends it as the
 * end of a TCP stream does.
 *
 * libsoup keeps a connection alive only while the SoupServer has a
 * listener of its own, so it gets one that never has a connection: one end
 * of a socket pair whose other end stays silent.
 */

/* At most this many accepts per wakeup, so that a flood of connects does
 * not starve the requests of connected clients. */
#define ACCEPT_BATCH 64
/* After a failed accept (out of descriptors), wait this long. */
#define ACCEPT_RETRY_MS 100
/* A connection idle for less than this is not closed to make room. */
#define RECLAIM_MIN_IDLE_USEC (G_USEC_PER_SEC / 2)
/* At max-connections, with clients waiting, look for room this often. */
#define RECLAIM_RETRY_MS 250
/* The descriptors kept for everything but connections: the listening
 * socket, the standard streams, the main loops' wakeups, the files the
 * process reads and writes (a token file, a task store, logs), and the
 * accept itself. The connections are bounded by the soft limit of open
 * files less this (half the limit when it is under twice this). */
#define DESCRIPTOR_RESERVE 64

typedef struct _Connection Connection;

/* One accepted connection, from accept until libsoup closes it. */
struct _Connection
{
  SnodoHttpListener *listener;
  /* Owned; libsoup holds its own reference. */
  struct _SnodoHttpStream *stream;
  /* The connected socket (owned). */
  GSocket           *socket;
  /* The client's address (owned): libsoup hands this very object back
   * through soup_server_message_get_remote_address(), which makes it the
   * key from a message to its connection. */
  GSocketAddress    *remote;
  /* When the last request started or the last held exchange ended
   * (monotonic time). */
  gint64             last_active;
  /* When the first byte of the request being read came (monotonic
   * time), or 0 when no request is being read; over TLS, also when the
   * handshake started. */
  gint64             reading_since;
  /* Exchanges in progress (held by the transport). */
  guint              n_held;
  /* The TLS handshake in progress (TLS only), until libsoup gets the
   * connection. */
  struct _Handshake *handshake;
  /* Over TLS, while an exchange is held: reads ahead of libsoup to notice
   * a client that leaves (see connection_read_ahead_cb()), or NULL. */
  GSource           *ahead_source;
  /* The connection speaks TLS. */
  guint              tls : 1;
  /* Shut down by the listener; libsoup has yet to notice. */
  guint              closing : 1;
  /* No byte of a request was read since the last request ended (or since
   * accept): libsoup waits for the next one. */
  guint              between_requests : 1;
  /* A malformed chunked body was answered 400: the connection ends once
   * the client stops sending (snodo-http-framing.c). */
  guint              refused : 1;
  /* The framing of the requests read, to notice malformed chunks. */
  SnodoHttpFraming   framing;
};

/* ---- The stream's input: the end of the stream as a cut-short request --- */

#define SNODO_TYPE_HTTP_INPUT_STREAM (snodo_http_input_stream_get_type ())
G_DECLARE_FINAL_TYPE (SnodoHttpInputStream, snodo_http_input_stream, SNODO, HTTP_INPUT_STREAM, GFilterInputStream)

struct _SnodoHttpInputStream
{
  GFilterInputStream parent_instance;

  /* The connection's record, until it goes (then NULL). */
  Connection        *connection;
  /* libsoup before 3.3: the end of the stream between two requests reads
   * first as a newline. */
  guint              eof_as_newline : 1;
  /* The newline was read. */
  guint              gave_newline : 1;
  /* Read from the base ahead of libsoup (owned), served first; and the
   * end of the stream, read ahead. */
  GByteArray        *ahead;
  guint              ahead_eof : 1;
};

static void snodo_http_input_stream_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoHttpInputStream, snodo_http_input_stream, G_TYPE_FILTER_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      snodo_http_input_stream_pollable_init))

static gssize
snodo_http_input_stream_filter (SnodoHttpInputStream *self,
                                gssize                n,
                                void                 *buffer,
                                gsize                 count)
{
  Connection *connection = self->connection;

  if (connection == NULL)
    return n;
  if (n > 0)
    {
      /* The first byte of a request starts its read deadline. */
      if (connection->between_requests && connection->reading_since == 0)
        connection->reading_since = g_get_monotonic_time ();
      connection->between_requests = FALSE;
      return n;
    }
  if (n == 0 && count > 0 && self->eof_as_newline && !self->gave_newline && connection->between_requests)
    {
      /* Whatever libsoup answers to the newline must not reach a client
       * that only half-closed its end: nothing is owed to it. */
      g_socket_shutdown (connection->socket, FALSE, TRUE, NULL);
      self->gave_newline = TRUE;
      ((char *) buffer)[0] = '\n';
      return 1;
    }
  return n;
}

static void connection_refuse (Connection *connection);
static GMainContext *snodo_http_listener_get_context (SnodoHttpListener *self);

/* An error ending the stream between two requests (the client reset the
 * connection: it closed with an answer not yet read) is the end of the
 * stream too, and libsoup before 3.3 forgets the connection on it just
 * the same: it reads as the newline first. And the bytes read are
 * followed for a malformed chunked body, refused here with a 400. */
static gssize
snodo_http_input_stream_filter_error (SnodoHttpInputStream  *self,
                                      gssize                 n,
                                      void                  *buffer,
                                      gsize                  count,
                                      GError               **error)
{
  Connection *connection = self->connection;

  if (n < 0 && connection != NULL && self->eof_as_newline && !self->gave_newline &&
      connection->between_requests && count > 0 && error != NULL && *error != NULL &&
      !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      g_debug ("An HTTP client reset its connection: %s", (*error)->message);
      g_clear_error (error);
      n = 0;
    }
  n = snodo_http_input_stream_filter (self, n, buffer, count);
  if (n > 0 && connection != NULL && !connection->refused && !self->gave_newline &&
      !snodo_http_framing_feed (&connection->framing, buffer, n))
    {
      /* libsoup would misread it: refused here, and libsoup gets an
       * error, which ends the message without an answer of its own. */
      connection_refuse (connection);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Malformed chunked body");
      return -1;
    }
  return n;
}

static GInputStream *
snodo_http_input_stream_get_base (gpointer stream)
{
  return g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));
}

/* What was read ahead, if anything: the bytes first, then the end of the
 * stream. FALSE when nothing was. */
static gboolean
snodo_http_input_stream_take_ahead (SnodoHttpInputStream *self,
                                    void                 *buffer,
                                    gsize                 count,
                                    gssize               *out_n)
{
  if (self->ahead->len > 0 && count > 0)
    {
      gsize n = MIN (count, self->ahead->len);

      memcpy (buffer, self->ahead->data, n);
      g_byte_array_remove_range (self->ahead, 0, n);
      *out_n = n;
      return TRUE;
    }
  if (self->ahead_eof)
    {
      *out_n = 0;
      return TRUE;
    }
  return FALSE;
}

static gssize
snodo_http_input_stream_read (GInputStream  *stream,
                              void          *buffer,
                              gsize          count,
                              GCancellable  *cancellable,
                              GError       **error)
{
  SnodoHttpInputStream *self = SNODO_HTTP_INPUT_STREAM (stream);
  gssize n;

  if (!snodo_http_input_stream_take_ahead (self, buffer, count, &n))
    n = g_input_stream_read (snodo_http_input_stream_get_base (stream), buffer, count, cancellable, error);
  return snodo_http_input_stream_filter_error (self, n, buffer, count, error);
}

static gboolean
snodo_http_input_stream_can_poll (GPollableInputStream *stream)
{
  GInputStream *base = snodo_http_input_stream_get_base (stream);

  return G_IS_POLLABLE_INPUT_STREAM (base) && g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (base));
}

static gboolean
snodo_http_input_stream_is_readable (GPollableInputStream *stream)
{
  SnodoHttpInputStream *self = SNODO_HTTP_INPUT_STREAM (stream);

  return self->ahead->len > 0 || self->ahead_eof ||
         g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (snodo_http_input_stream_get_base (stream)));
}

/* The base stream's own source, not one wrapped around it: libsoup wraps
 * it in its own already, and every level of nesting costs the main loop
 * wakeups each time the source is dispatched or destroyed. (Its callback
 * would get the base stream; libsoup never sets one on it.) */
static GSource *
snodo_http_input_stream_create_source (GPollableInputStream *stream,
                                       GCancellable         *cancellable)
{
  SnodoHttpInputStream *self = SNODO_HTTP_INPUT_STREAM (stream);
  GPollableInputStream *base = G_POLLABLE_INPUT_STREAM (snodo_http_input_stream_get_base (stream));

  /* Something read ahead: readable now. */
  if (self->ahead->len > 0 || self->ahead_eof)
    {
      g_autoptr(GSource) now = g_timeout_source_new (0);

      return g_pollable_source_new_full (stream, now, cancellable);
    }
  return g_pollable_input_stream_create_source (base, cancellable);
}

static gssize
snodo_http_input_stream_read_nonblocking (GPollableInputStream  *stream,
                                          void                  *buffer,
                                          gsize                  count,
                                          GError               **error)
{
  SnodoHttpInputStream *self = SNODO_HTTP_INPUT_STREAM (stream);
  GPollableInputStream *base = G_POLLABLE_INPUT_STREAM (snodo_http_input_stream_get_base (stream));
  gssize n;

  if (!snodo_http_input_stream_take_ahead (self, buffer, count, &n))
    n = g_pollable_input_stream_read_nonblocking (base, buffer, count, NULL, error);
  return snodo_http_input_stream_filter_error (self, n, buffer, count, error);
}

static void
snodo_http_input_stream_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->can_poll = snodo_http_input_stream_can_poll;
  iface->is_readable = snodo_http_input_stream_is_readable;
  iface->create_source = snodo_http_input_stream_create_source;
  iface->read_nonblocking = snodo_http_input_stream_read_nonblocking;
}

static void
snodo_http_input_stream_finalize (GObject *object)
{
  SnodoHttpInputStream *self = SNODO_HTTP_INPUT_STREAM (object);

  g_clear_pointer (&self->ahead, g_byte_array_unref);

  G_OBJECT_CLASS (snodo_http_input_stream_parent_class)->finalize (object);
}

static void
snodo_http_input_stream_class_init (SnodoHttpInputStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *input_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = snodo_http_input_stream_finalize;
  input_class->read_fn = snodo_http_input_stream_read;
}

static void
snodo_http_input_stream_init (SnodoHttpInputStream *self)
{
  self->ahead = g_byte_array_new ();
}

/* ---- The stream's output: a response's headers leave with its body ------ */

/*
 * libsoup writes a response's header block and its body in two writes, so
 * every answer took two send() calls and two packets (the sockets have
 * TCP_NODELAY), and woke the client twice. The header block of a response
 * whose body follows (a Content-Length above 0: libsoup has the whole body
 * before it writes the headers) is held back and leaves in one sendmsg()
 * with the body's first bytes. Anything else goes straight through; a
 * flush sends what is held.
 */

#define SNODO_TYPE_HTTP_OUTPUT_STREAM (snodo_http_output_stream_get_type ())
G_DECLARE_FINAL_TYPE (SnodoHttpOutputStream, snodo_http_output_stream, SNODO, HTTP_OUTPUT_STREAM, GFilterOutputStream)

struct _SnodoHttpOutputStream
{
  GFilterOutputStream  parent_instance;

  /* A header block waiting for its body (owned; empty when none). */
  GByteArray          *held;
};

static void snodo_http_output_stream_pollable_init (GPollableOutputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoHttpOutputStream, snodo_http_output_stream, G_TYPE_FILTER_OUTPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_OUTPUT_STREAM,
                                                      snodo_http_output_stream_pollable_init))

static GOutputStream *
snodo_http_output_stream_get_base (gpointer stream)
{
  return g_filter_output_stream_get_base_stream (G_FILTER_OUTPUT_STREAM (stream));
}

/* Whether @data is a response's whole header block announcing a body. */
static gboolean
is_header_block_with_body (const char *data,
                           gsize       len)
{
  static const char length[] = "\r\nContent-Length: ";
  const char *p;

  if (len < 16 || memcmp (data, "HTTP/1.", 7) != 0 || memcmp (data + len - 4, "\r\n\r\n", 4) != 0)
    return FALSE;
  p = g_strstr_len (data, len, length);
  return p != NULL && p[sizeof length - 1] >= '1' && p[sizeof length - 1] <= '9';
}

static gssize
snodo_http_output_stream_write_nonblocking (GPollableOutputStream  *stream,
                                            const void             *buffer,
                                            gsize                   count,
                                            GError                **error)
{
  SnodoHttpOutputStream *self = SNODO_HTTP_OUTPUT_STREAM (stream);
  GPollableOutputStream *base = G_POLLABLE_OUTPUT_STREAM (snodo_http_output_stream_get_base (stream));
  GOutputVector vectors[2];
  GPollableReturn result;
  gsize written = 0;

  if (self->held->len == 0)
    {
      if (is_header_block_with_body (buffer, count))
        {
          g_byte_array_append (self->held, buffer, count);
          return count;
        }
      return g_pollable_output_stream_write_nonblocking (base, buffer, count, NULL, error);
    }

  vectors[0].buffer = self->held->data;
  vectors[0].size = self->held->len;
  vectors[1].buffer = buffer;
  vectors[1].size = count;
  result = g_pollable_output_stream_writev_nonblocking (base, vectors, G_N_ELEMENTS (vectors), &written,
                                                        NULL, error);
  if (result == G_POLLABLE_RETURN_FAILED)
    return -1;
  if (result == G_POLLABLE_RETURN_OK && written > self->held->len)
    {
      written -= self->held->len;
      g_byte_array_set_size (self->held, 0);
      return written;
    }
  /* Not even past the headers: libsoup waits until the socket is writable
   * and writes the body again. */
  if (result == G_POLLABLE_RETURN_OK)
    g_byte_array_remove_range (self->held, 0, written);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK, g_strerror (EAGAIN));
  return -1;
}

static gssize
snodo_http_output_stream_write (GOutputStream  *stream,
                                const void     *buffer,
                                gsize           count,
                                GCancellable   *cancellable,
                                GError        **error)
{
  SnodoHttpOutputStream *self = SNODO_HTTP_OUTPUT_STREAM (stream);
  GOutputStream *base = snodo_http_output_stream_get_base (stream);

  if (self->held->len > 0)
    {
      if (!g_output_stream_write_all (base, self->held->data, self->held->len, NULL, cancellable, error))
        return -1;
      g_byte_array_set_size (self->held, 0);
    }
  return g_output_stream_write (base, buffer, count, cancellable, error);
}

/* Sends what is held without blocking the main loop: a client that does
 * not read loses its response. */
static gboolean
snodo_http_output_stream_flush (GOutputStream  *stream,
                                GCancellable   *cancellable,
                                GError        **error)
{
  SnodoHttpOutputStream *self = SNODO_HTTP_OUTPUT_STREAM (stream);
  GOutputStream *base = snodo_http_output_stream_get_base (stream);

  while (self->held->len > 0)
    {
      gssize n = g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (base), self->held->data,
                                                             self->held->len, cancellable, error);

      if (n < 0)
        return FALSE;
      g_byte_array_remove_range (self->held, 0, n);
    }
  return g_output_stream_flush (base, cancellable, error);
}

static gboolean
snodo_http_output_stream_can_poll (GPollableOutputStream *stream)
{
  GOutputStream *base = snodo_http_output_stream_get_base (stream);

  return G_IS_POLLABLE_OUTPUT_STREAM (base) && g_pollable_output_stream_can_poll (G_POLLABLE_OUTPUT_STREAM (base));
}

static gboolean
snodo_http_output_stream_is_writable (GPollableOutputStream *stream)
{
  return g_pollable_output_stream_is_writable (G_POLLABLE_OUTPUT_STREAM (snodo_http_output_stream_get_base (stream)));
}

/* The base's own source, as for the input. */
static GSource *
snodo_http_output_stream_create_source (GPollableOutputStream *stream,
                                        GCancellable          *cancellable)
{
  GPollableOutputStream *base = G_POLLABLE_OUTPUT_STREAM (snodo_http_output_stream_get_base (stream));

  return g_pollable_output_stream_create_source (base, cancellable);
}

static void
snodo_http_output_stream_pollable_init (GPollableOutputStreamInterface *iface)
{
  iface->can_poll = snodo_http_output_stream_can_poll;
  iface->is_writable = snodo_http_output_stream_is_writable;
  iface->create_source = snodo_http_output_stream_create_source;
  iface->write_nonblocking = snodo_http_output_stream_write_nonblocking;
}

static void
snodo_http_output_stream_finalize (GObject *object)
{
  SnodoHttpOutputStream *self = SNODO_HTTP_OUTPUT_STREAM (object);

  g_clear_pointer (&self->held, g_byte_array_unref);

  G_OBJECT_CLASS (snodo_http_output_stream_parent_class)->finalize (object);
}

static void
snodo_http_output_stream_class_init (SnodoHttpOutputStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GOutputStreamClass *output_class = G_OUTPUT_STREAM_CLASS (klass);

  object_class->finalize = snodo_http_output_stream_finalize;
  output_class->write_fn = snodo_http_output_stream_write;
  output_class->flush = snodo_http_output_stream_flush;
}

static void
snodo_http_output_stream_init (SnodoHttpOutputStream *self)
{
  self->held = g_byte_array_new ();
}

/* ---- The stream libsoup gets: closing it closes the connection ---------- */

#define SNODO_TYPE_HTTP_STREAM (snodo_http_stream_get_type ())
G_DECLARE_FINAL_TYPE (SnodoHttpStream, snodo_http_stream, SNODO, HTTP_STREAM, GIOStream)

struct _SnodoHttpStream
{
  GIOStream     parent_instance;

  /* The accepted GSocketConnection (owned). */
  GIOStream    *base;
  /* A SnodoHttpInputStream over the base's input (owned). */
  GInputStream *input;
  /* A SnodoHttpOutputStream over the base's output (owned). */
  GOutputStream *output;
  /* The transport's record of the connection, until the stream is closed
   * or the listener goes (then NULL). */
  Connection   *connection;
};

G_DEFINE_FINAL_TYPE (SnodoHttpStream, snodo_http_stream, G_TYPE_IO_STREAM)

static void connection_closed (Connection *connection);

static GInputStream *
snodo_http_stream_get_input_stream (GIOStream *stream)
{
  return SNODO_HTTP_STREAM (stream)->input;
}

static GOutputStream *
snodo_http_stream_get_output_stream (GIOStream *stream)
{
  return SNODO_HTTP_STREAM (stream)->output;
}

/* libsoup closes the stream when it is done with the connection; it does
 * so on the server's context. */
static gboolean
snodo_http_stream_close (GIOStream     *stream,
                         GCancellable  *cancellable,
                         GError       **error)
{
  SnodoHttpStream *self = SNODO_HTTP_STREAM (stream);
  Connection *connection = g_steal_pointer (&self->connection);

  if (connection != NULL && connection->refused)
    {
      /* Not at once: what the client still sends would reset the
       * connection, and its 400 with it. */
      snodo_http_framing_linger (self->base, snodo_http_listener_get_context (connection->listener));
      connection_closed (connection);
      return TRUE;
    }
  if (connection != NULL)
    connection_closed (connection);
  return g_io_stream_close (self->base, cancellable, error);
}

static void
snodo_http_stream_finalize (GObject *object)
{
  SnodoHttpStream *self = SNODO_HTTP_STREAM (object);

  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->base);

  G_OBJECT_CLASS (snodo_http_stream_parent_class)->finalize (object);
}

/* A malformed chunked body: 400, and the sending side shut. */
static void
connection_refuse (Connection *connection)
{
  g_debug ("An HTTP client sent a malformed chunked body");
  connection->refused = TRUE;
  snodo_http_framing_refuse (connection->stream->base);
  g_socket_shutdown (connection->socket, FALSE, TRUE, NULL);
}

static void
snodo_http_stream_class_init (SnodoHttpStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GIOStreamClass *stream_class = G_IO_STREAM_CLASS (klass);

  object_class->finalize = snodo_http_stream_finalize;
  stream_class->get_input_stream = snodo_http_stream_get_input_stream;
  stream_class->get_output_stream = snodo_http_stream_get_output_stream;
  stream_class->close_fn = snodo_http_stream_close;
}

static void
snodo_http_stream_init (SnodoHttpStream *self)
{
}

static SnodoHttpStream *
snodo_http_stream_new (GIOStream *base,
                       gboolean   eof_as_newline)
{
  SnodoHttpStream *self = g_object_new (SNODO_TYPE_HTTP_STREAM, NULL);
  SnodoHttpInputStream *input = g_object_new (SNODO_TYPE_HTTP_INPUT_STREAM,
                                              "base-stream", g_io_stream_get_input_stream (base),
                                              "close-base-stream", FALSE,
                                              NULL);

  input->eof_as_newline = eof_as_newline;
  self->base = g_object_ref (base);
  self->input = G_INPUT_STREAM (input);
  self->output = g_object_new (SNODO_TYPE_HTTP_OUTPUT_STREAM,
                               "base-stream", g_io_stream_get_output_stream (base),
                               "close-base-stream", FALSE,
                               NULL);
  return self;
}

/* ---- The listener -------------------------------------------------------- */

struct _SnodoHttpListener
{
  /* Owned; the server the connections are handed to. */
  SoupServer   *soup;
  /* The context everything happens in (owned). */
  GMainContext *context;
  /* The listening socket (owned), NULL before listen() or
   * listen_socket(). */
  GSocket      *socket;
  /* The path of the Unix socket the listener made itself, removed when it
   * stops; or NULL. */
  char         *unix_path;
  /* The mode (0: the umask's) and group (NULL: the process's) a Unix
   * socket made here gets (owned). */
  guint         unix_mode;
  char         *unix_group;
  /* Connections speak TLS with this certificate, or NULL (owned). */
  GTlsCertificate *tls_certificate;
  /* libsoup's own listener: a socket pair, of which no end ever speaks. */
  GSocket      *placeholder[2];
  /* Watches the listening socket while accepting, or NULL. */
  GSource      *accept_source;
  /* Waits after a failed accept, or NULL. */
  GSource      *retry_source;
  /* Closes idle connections while there are connections, or NULL. */
  GSource      *sweep_source;
  /* remote address -> Connection (owned). */
  GHashTable   *connections;
  guint         idle_timeout;
  /* Seconds from a request's first byte to its whole head and body, or
   * 0 for no limit. */
  guint         read_timeout;
  guint         max_connections;
  /* The soft limit of open files when listening began, or 0 when
   * unbounded: it bounds the connections too (see DESCRIPTOR_RESERVE). */
  guint         descriptor_limit;
  /* Told when a client leaves a connection whose exchanges cannot see it
   * from the socket (TLS). */
  SnodoHttpListenerHangupFunc hangup_func;
  gpointer      hangup_data;
  gulong        request_started_id;
  gulong        request_read_id;
  gulong        request_finished_id;
  gulong        request_aborted_id;
  /* The end of the stream reads as a newline first (libsoup < 3.3). */
  guint         eof_as_newline : 1;
  /* stop() was called: accept no more. */
  guint         stopped : 1;
};

static void snodo_http_listener_arm_accept (SnodoHttpListener *self);
static gboolean snodo_http_listener_retry_cb (gpointer user_data);

/* The most connections kept open at once: max-connections, less when the
 * descriptors would run out first. */
static guint
snodo_http_listener_get_bound (SnodoHttpListener *self)
{
  guint bound;

  if (self->descriptor_limit == 0)
    return self->max_connections;
  if (self->descriptor_limit > 2 * DESCRIPTOR_RESERVE)
    bound = self->descriptor_limit - DESCRIPTOR_RESERVE;
  else
    bound = MAX (self->descriptor_limit / 2, 1);
  return MIN (self->max_connections, bound);
}

/* Says in the log when the descriptors bound the connections below
 * max-connections. */
static void
snodo_http_listener_log_bound (SnodoHttpListener *self)
{
  guint bound = snodo_http_listener_get_bound (self);

  if (bound >= self->max_connections)
    return;
  g_message (_("HTTP connections are limited to %u, not %u (max-connections): the soft limit "
               "of open files is %u, and %u descriptors are kept for the rest (raise the limit, "
               "e.g. with LimitNOFILE= in a systemd unit, to serve more)"),
             bound, self->max_connections, self->descriptor_limit,
             self->descriptor_limit - bound);
}

/* The soft limit of open files, or 0 when it is unknown or unbounded. */
static guint
snodo_http_listener_get_descriptor_limit (void)
{
#ifdef G_OS_UNIX
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= G_MAXUINT)
    return 0;
  return (guint) limit.rlim_cur;
#else
  return 0;
#endif
}

static GMainContext *
snodo_http_listener_get_context (SnodoHttpListener *self)
{
  return self->context;
}

/* A TLS handshake before libsoup gets the connection. The connection
 * forgets it (and cancels it) if it goes first. */
typedef struct _Handshake
{
  Connection   *connection;
  GCancellable *cancellable;
} Handshake;

static void
connection_free (gpointer data)
{
  Connection *connection = data;

  if (connection->handshake != NULL)
    {
      /* The handshake's callback closes its stream. */
      connection->handshake->connection = NULL;
      g_cancellable_cancel (connection->handshake->cancellable);
      connection->handshake = NULL;
    }
  g_clear_pointer (&connection->ahead_source, snodo_source_destroy_and_unref);
  if (connection->stream != NULL)
    {
      connection->stream->connection = NULL;
      SNODO_HTTP_INPUT_STREAM (connection->stream->input)->connection = NULL;
      g_clear_object (&connection->stream);
    }
  g_clear_object (&connection->socket);
  g_clear_object (&connection->remote);
  g_free (connection);
}

/* Shuts the socket down; libsoup reads the end of the stream, drops the
 * connection and closes its stream. */
static void
connection_shut (Connection *connection)
{
  if (connection->closing)
    return;
  connection->closing = TRUE;
  g_socket_shutdown (connection->socket, TRUE, TRUE, NULL);
}

/* From the stream's close: libsoup is done with the connection. */
static void
connection_closed (Connection *connection)
{
  SnodoHttpListener *self = connection->listener;

  /* connection_free() lets go of the stream (libsoup still holds it while
   * it closes) and of the back pointers to the connection. */
  g_hash_table_remove (self->connections, connection->remote);
  /* There is room again (and a descriptor free). */
  if (self->retry_source != NULL && g_hash_table_size (self->connections) < snodo_http_listener_get_bound (self))
    g_clear_pointer (&self->retry_source, snodo_source_destroy_and_unref);
  snodo_http_listener_arm_accept (self);
}

/* The most read ahead of libsoup on one connection; beyond it, the
 * connection is not watched until its exchanges end. */
#define READ_AHEAD_MAX (64 * 1024)

/*
 * Over TLS the exchanges cannot tell from the socket that their client
 * left: a client that closes cleanly sends a close_notify alert first, and
 * to a look at the socket that is data like any other. So while an
 * exchange holds a TLS connection (libsoup reads nothing then: it waits
 * for the answer, or writes a stream), the listener reads it itself,
 * keeps whatever comes for libsoup's next read, and tells the transport
 * when the stream ends.
 */
static gboolean
connection_read_ahead_cb (GObject  *stream,
                          gpointer  user_data)
{
  Connection *connection = user_data;
  SnodoHttpListener *self = connection->listener;
  SnodoHttpInputStream *input = SNODO_HTTP_INPUT_STREAM (connection->stream->input);
  GPollableInputStream *base = G_POLLABLE_INPUT_STREAM (snodo_http_input_stream_get_base (input));
  g_autoptr(GError) error = NULL;
  guint8 buffer[4096];
  gssize n;

  n = g_pollable_input_stream_read_nonblocking (base, buffer, sizeof buffer, NULL, &error);
  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return G_SOURCE_CONTINUE;
  if (n > 0)
    {
      g_byte_array_append (input->ahead, buffer, n);
      if (input->ahead->len < READ_AHEAD_MAX)
        return G_SOURCE_CONTINUE;
      g_clear_pointer (&connection->ahead_source, g_source_unref);
      return G_SOURCE_REMOVE;
    }

  /* The end of the stream, or an error that ends it. */
  input->ahead_eof = TRUE;
  g_clear_pointer (&connection->ahead_source, g_source_unref);
  g_debug ("An HTTPS client left its connection");
  if (self->hangup_func != NULL)
    self->hangup_func (connection->remote, self->hangup_data);
  return G_SOURCE_REMOVE;
}

static void
connection_read_ahead (Connection *connection)
{
  SnodoHttpInputStream *input = SNODO_HTTP_INPUT_STREAM (connection->stream->input);
  GInputStream *base = snodo_http_input_stream_get_base (input);

  if (connection->ahead_source != NULL || input->ahead_eof || input->ahead->len >= READ_AHEAD_MAX ||
      !G_IS_POLLABLE_INPUT_STREAM (base))
    return;
  connection->ahead_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (base), NULL);
  g_source_set_static_name (connection->ahead_source, "[snodo] https read ahead");
  g_source_set_callback (connection->ahead_source, G_SOURCE_FUNC (connection_read_ahead_cb), connection, NULL);
  g_source_attach (connection->ahead_source, connection->listener->context);
}

static Connection *
snodo_http_listener_lookup (SnodoHttpListener *self,
                            SoupServerMessage *msg)
{
  GSocketAddress *remote = soup_server_message_get_remote_address (msg);

  return remote != NULL ? g_hash_table_lookup (self->connections, remote) : NULL;
}

static void
snodo_http_listener_request_ended_cb (SoupServer        *soup,
                                      SoupServerMessage *msg,
                                      gpointer           user_data)
{
  Connection *connection = snodo_http_listener_lookup (user_data, msg);

  if (connection != NULL)
    {
      connection->between_requests = TRUE;
      connection->reading_since = 0;
    }
}

/* The request is read whole, head and body: its read deadline is met. */
static void
snodo_http_listener_request_read_cb (SoupServer        *soup,
                                     SoupServerMessage *msg,
                                     gpointer           user_data)
{
  Connection *connection = snodo_http_listener_lookup (user_data, msg);

  if (connection != NULL)
    connection->reading_since = 0;
}

static void
snodo_http_listener_request_started_cb (SoupServer        *soup,
                                        SoupServerMessage *msg,
                                        gpointer           user_data)
{
  Connection *connection = snodo_http_listener_lookup (user_data, msg);

  if (connection != NULL)
    connection->last_active = g_get_monotonic_time ();
}

/* Closes the connections idle for idle-timeout seconds, and those that
 * have been reading one request (or shaking hands) for read-timeout
 * seconds. */
static gboolean
snodo_http_listener_sweep_cb (gpointer user_data)
{
  SnodoHttpListener *self = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 limit = now - (gint64) self->idle_timeout * G_USEC_PER_SEC;
  gint64 read_limit = now - (gint64) self->read_timeout * G_USEC_PER_SEC;
  GHashTableIter iter;
  gpointer value;

  if (g_hash_table_size (self->connections) == 0)
    {
      g_clear_pointer (&self->sweep_source, g_source_unref);
      return G_SOURCE_REMOVE;
    }

  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Connection *connection = value;

      if (self->read_timeout > 0 && connection->reading_since != 0 && connection->reading_since < read_limit)
        {
          g_debug ("An HTTP client did not send its request within %u s", self->read_timeout);
          connection_shut (connection);
        }
      else if (self->idle_timeout > 0 && connection->n_held == 0 && connection->last_active < limit)
        connection_shut (connection);
    }
  return G_SOURCE_CONTINUE;
}

static void
snodo_http_listener_arm_sweep (SnodoHttpListener *self)
{
  guint shortest;
  guint interval;

  if (self->idle_timeout == 0)
    shortest = self->read_timeout;
  else if (self->read_timeout == 0)
    shortest = self->idle_timeout;
  else
    shortest = MIN (self->idle_timeout, self->read_timeout);
  if (self->sweep_source != NULL || shortest == 0 || g_hash_table_size (self->connections) == 0)
    return;
  /* Connections close between one and one and an eighth of the shorter
   * timeout after their deadline, at most 15 s late. */
  interval = CLAMP (shortest * 125, 100, 15000);
  self->sweep_source = g_timeout_source_new (interval);
  g_source_set_static_name (self->sweep_source, "[snodo] http idle connections");
  g_source_set_callback (self->sweep_source, snodo_http_listener_sweep_cb, self, NULL);
  g_source_attach (self->sweep_source, self->context);
}

/* At max-connections: shuts the connection idle the longest, if one has
 * been idle a while, to make room for the clients waiting in the
 * backlog. */
static void
snodo_http_listener_reclaim (SnodoHttpListener *self)
{
  gint64 limit = g_get_monotonic_time () - RECLAIM_MIN_IDLE_USEC;
  Connection *oldest = NULL;
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Connection *connection = value;

      if (connection->closing)
        return;   /* room is already being made */
      if (connection->n_held == 0 && connection->last_active < limit &&
          (oldest == NULL || connection->last_active < oldest->last_active))
        oldest = connection;
    }
  if (oldest != NULL)
    connection_shut (oldest);
}

/* Hands @connection, whose stream is ready (@base, plain or TLS), to
 * libsoup. */
static void
snodo_http_listener_hand_over (SnodoHttpListener *self,
                               Connection        *connection,
                               GIOStream         *base,
                               GSocketAddress    *local)
{
  g_autoptr(GError) error = NULL;
  gboolean accepted;

  connection->stream = snodo_http_stream_new (base, self->eof_as_newline);
  connection->stream->connection = connection;
  SNODO_HTTP_INPUT_STREAM (connection->stream->input)->connection = connection;
  connection->between_requests = TRUE;
  connection->reading_since = 0;

  /* libsoup reads the first request at once; the stream's close removes
   * the connection again. */
  g_main_context_push_thread_default (self->context);
  accepted = soup_server_accept_iostream (self->soup, G_IO_STREAM (connection->stream), local, connection->remote,
                                          &error);
  g_main_context_pop_thread_default (self->context);
  if (!accepted)
    {
      /* Closing frees the connection and its reference on the stream:
       * keep the stream alive until its close returns. */
      g_autoptr(GIOStream) stream = g_object_ref (G_IO_STREAM (connection->stream));

      g_debug ("libsoup refused a connection: %s", error->message);
      g_io_stream_close (stream, NULL, NULL);
    }
}

static void
snodo_http_listener_handshake_cb (GObject      *object,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  Handshake *handshake = user_data;
  Connection *connection = handshake->connection;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;

  if (!g_tls_connection_handshake_finish (G_TLS_CONNECTION (object), result, &error) || connection == NULL ||
      (local = g_socket_get_local_address (connection->socket, &error)) == NULL)
    {
      if (error != NULL)
        g_debug ("TLS handshake with an HTTP client failed: %s", error->message);
      g_io_stream_close (G_IO_STREAM (object), NULL, NULL);
      if (connection != NULL)
        {
          connection->handshake = NULL;
          connection_closed (connection);
        }
    }
  else
    {
      connection->handshake = NULL;
      connection->last_active = g_get_monotonic_time ();
      snodo_http_listener_hand_over (connection->listener, connection, G_IO_STREAM (object), local);
    }
  g_object_unref (handshake->cancellable);
  g_free (handshake);
}

static gboolean
snodo_http_listener_accept_one (SnodoHttpListener *self,
                                GSocket           *socket)
{
  g_autoptr(GSocketConnection) base = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GIOStream) tls = NULL;
  g_autoptr(GError) error = NULL;
  Connection *connection;

  local = g_socket_get_local_address (socket, NULL);
  connection = g_new0 (Connection, 1);
  connection->listener = self;
  connection->socket = g_object_ref (socket);
  connection->remote = g_socket_get_remote_address (socket, NULL);
  if (local == NULL || connection->remote == NULL)
    {
      /* The client is already gone. */
      g_socket_close (socket, NULL);
      connection_free (connection);
      return FALSE;
    }
#if defined(G_OS_UNIX) || defined(G_OS_WIN32)
  if (g_socket_get_family (socket) != G_SOCKET_FAMILY_UNIX)
    g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
#endif
  base = g_socket_connection_factory_create_connection (socket);
  if (self->tls_certificate != NULL)
    {
      tls = g_tls_server_connection_new (G_IO_STREAM (base), self->tls_certificate, &error);
      if (tls == NULL)
        {
          g_debug ("Could not start TLS with an HTTP client: %s", error->message);
          g_io_stream_close (G_IO_STREAM (base), NULL, NULL);
          connection_free (connection);
          return FALSE;
        }
      /* A client that closes its end without a TLS close_notify has
       * ended the connection all the same, as over plain TCP. */
      g_tls_connection_set_require_close_notify (G_TLS_CONNECTION (tls), FALSE);
      connection->tls = TRUE;
    }
  connection->last_active = g_get_monotonic_time ();
  /* A handshake has the read deadline of a request. */
  if (tls != NULL)
    connection->reading_since = connection->last_active;
  g_hash_table_insert (self->connections, connection->remote, connection);

  if (tls != NULL)
    {
      /* Counted like any connection while it shakes hands: one that
       * does not finish within the read deadline is closed. */
      Handshake *handshake = g_new0 (Handshake, 1);

      handshake->connection = connection;
      handshake->cancellable = g_cancellable_new ();
      connection->handshake = handshake;
      g_main_context_push_thread_default (self->context);
      g_tls_connection_handshake_async (G_TLS_CONNECTION (tls), G_PRIORITY_DEFAULT, handshake->cancellable,
                                        snodo_http_listener_handshake_cb, handshake);
      g_main_context_pop_thread_default (self->context);
      return TRUE;
    }
  snodo_http_listener_hand_over (self, connection, G_IO_STREAM (base), local);
  return TRUE;
}

static gboolean
snodo_http_listener_retry_cb (gpointer user_data)
{
  SnodoHttpListener *self = user_data;

  g_clear_pointer (&self->retry_source, g_source_unref);
  snodo_http_listener_arm_accept (self);
  return G_SOURCE_REMOVE;
}

/* From the accept callback: stops watching the listening socket, and
 * looks again after @ms milliseconds. */
static void
snodo_http_listener_retry_later (SnodoHttpListener *self,
                                 guint              ms)
{
  g_clear_pointer (&self->accept_source, g_source_unref);
  g_clear_pointer (&self->retry_source, snodo_source_destroy_and_unref);
  self->retry_source = g_timeout_source_new (ms);
  g_source_set_static_name (self->retry_source, "[snodo] http accept retry");
  g_source_set_callback (self->retry_source, snodo_http_listener_retry_cb, self, NULL);
  g_source_attach (self->retry_source, self->context);
}

static gboolean
snodo_http_listener_accept_cb (GSocket      *listening,
                               GIOCondition  condition,
                               gpointer      user_data)
{
  SnodoHttpListener *self = user_data;

  for (guint i = 0; i < ACCEPT_BATCH; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GSocket) socket = NULL;

      if (g_hash_table_size (self->connections) >= snodo_http_listener_get_bound (self))
        {
          /* Clients wait in the backlog until a connection closes, or
           * until one has been idle long enough to make room. */
          snodo_http_listener_reclaim (self);
          snodo_http_listener_retry_later (self, RECLAIM_RETRY_MS);
          return G_SOURCE_REMOVE;
        }

      socket = g_socket_accept (listening, NULL, &error);
      if (socket == NULL)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            break;
          /* Out of file descriptors, most likely (the process holds more
           * than the reserve besides the connections): make room as at
           * max-connections, and try again shortly, rather than at once
           * and for ever. */
          g_debug ("Could not accept an HTTP connection: %s", error->message);
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES))
            snodo_http_listener_reclaim (self);
          snodo_http_listener_retry_later (self, ACCEPT_RETRY_MS);
          return G_SOURCE_REMOVE;
        }
      snodo_http_listener_accept_one (self, socket);
    }
  snodo_http_listener_arm_sweep (self);
  return G_SOURCE_CONTINUE;
}

/* Watches the listening socket, unless it is watched already, or
 * accepting waits (stopped, or a retry is due). */
static void
snodo_http_listener_arm_accept (SnodoHttpListener *self)
{
  if (self->socket == NULL || self->stopped || self->accept_source != NULL || self->retry_source != NULL)
    return;
  self->accept_source = g_socket_create_source (self->socket, G_IO_IN, NULL);
  g_source_set_static_name (self->accept_source, "[snodo] http accept");
  g_source_set_callback (self->accept_source, G_SOURCE_FUNC (snodo_http_listener_accept_cb), self, NULL);
  g_source_attach (self->accept_source, self->context);
}

SnodoHttpListener *
snodo_http_listener_new (SoupServer   *soup,
                         GMainContext *context)
{
  SnodoHttpListener *self = g_new0 (SnodoHttpListener, 1);

  self->soup = g_object_ref (soup);
  self->context = g_main_context_ref (context);
  self->connections = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, connection_free);
  self->idle_timeout = 60;
  self->read_timeout = 30;
  self->max_connections = 1024;
  self->eof_as_newline = soup_get_major_version () == 3 && soup_get_minor_version () < 3;
  self->request_started_id = g_signal_connect (soup, "request-started",
                                               G_CALLBACK (snodo_http_listener_request_started_cb), self);
  self->request_read_id = g_signal_connect (soup, "request-read",
                                            G_CALLBACK (snodo_http_listener_request_read_cb), self);
  self->request_finished_id = g_signal_connect (soup, "request-finished",
                                                G_CALLBACK (snodo_http_listener_request_ended_cb), self);
  self->request_aborted_id = g_signal_connect (soup, "request-aborted",
                                               G_CALLBACK (snodo_http_listener_request_ended_cb), self);
  return self;
}

/* Gives libsoup a listener that never has a connection: libsoup keeps a
 * connection alive only while it has a listener. */
static gboolean
snodo_http_listener_add_placeholder (SnodoHttpListener  *self,
                                     GError            **error)
{
#ifdef G_OS_UNIX
  int fds[2];

#ifdef HAVE_SOCK_CLOEXEC
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
#else
  /* Without SOCK_CLOEXEC the flag is set right after: a process spawned
   * by another thread in between would inherit the pair, which only
   * keeps it open. */
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, fds) != 0)
#endif
    {
      int saved = errno;

      g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (saved), g_strerror (saved));
      return FALSE;
    }
#ifndef HAVE_SOCK_CLOEXEC
  if (fcntl (fds[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl (fds[1], F_SETFD, FD_CLOEXEC) != 0)
    {
      int saved = errno;

      close (fds[0]);
      close (fds[1]);
      g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (saved), g_strerror (saved));
      return FALSE;
    }
#endif
  self->placeholder[0] = g_socket_new_from_fd (fds[0], error);
  if (self->placeholder[0] == NULL)
    {
      close (fds[0]);
      close (fds[1]);
      return FALSE;
    }
  self->placeholder[1] = g_socket_new_from_fd (fds[1], error);
  if (self->placeholder[1] == NULL)
    {
      close (fds[1]);
      return FALSE;
    }
  return soup_server_listen_socket (self->soup, self->placeholder[0], 0, error);
#elif defined(G_OS_WIN32)
  /* No socketpair(): a connected pair of loopback TCP sockets, whose
   * listening socket is closed at once. */
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any_port = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GSocket) listening = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                               G_SOCKET_PROTOCOL_TCP, error);

  if (listening == NULL || !g_socket_bind (listening, any_port, FALSE, error) ||
      !g_socket_listen (listening, error) ||
      (bound = g_socket_get_local_address (listening, error)) == NULL)
    return FALSE;
  self->placeholder[1] = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, error);
  if (self->placeholder[1] == NULL || !g_socket_connect (self->placeholder[1], bound, NULL, error))
    return FALSE;
  self->placeholder[0] = g_socket_accept (listening, NULL, error);
  if (self->placeholder[0] == NULL)
    return FALSE;
  g_socket_close (listening, NULL);
  return soup_server_listen_socket (self->soup, self->placeholder[0], 0, error);
#else
  /* Elsewhere libsoup accepts on the listening socket itself; connections
   * then close after each request (see the transport's handler), and
   * libsoup shakes hands. */
  if (self->tls_certificate != NULL)
    {
      g_object_set (self->soup, "tls-certificate", self->tls_certificate, NULL);
      return soup_server_listen_socket (self->soup, self->socket, SOUP_SERVER_LISTEN_HTTPS, error);
    }
  return soup_server_listen_socket (self->soup, self->socket, 0, error);
#endif
}

/* Starts accepting on @socket, a listening socket (taken). */
static gboolean
snodo_http_listener_start (SnodoHttpListener  *self,
                           GSocket            *socket,
                           GError            **error)
{
  g_socket_set_blocking (socket, FALSE);
  self->socket = g_object_ref (socket);
  self->descriptor_limit = snodo_http_listener_get_descriptor_limit ();
  snodo_http_listener_log_bound (self);
  if (!snodo_http_listener_add_placeholder (self, error))
    {
      g_clear_object (&self->socket);
      return FALSE;
    }
#if defined(G_OS_UNIX) || defined(G_OS_WIN32)
  snodo_http_listener_arm_accept (self);
#endif
  return TRUE;
}

/* Listens on @address: an IPv4 or IPv6 address and port (0: any free
 * one), or a Unix socket path, which must be free or hold a socket nobody
 * listens on (the listener removes it when it stops). */
gboolean
snodo_http_listener_listen (SnodoHttpListener  *self,
                            GSocketAddress     *address,
                            GError            **error)
{
  g_autoptr(GSocket) socket = NULL;
  GSocketFamily family = g_socket_address_get_family (address);
  const char *path = NULL;

  g_return_val_if_fail (self->socket == NULL, FALSE);

#ifdef G_OS_UNIX
  if (G_IS_UNIX_SOCKET_ADDRESS (address) &&
      g_unix_socket_address_get_address_type (G_UNIX_SOCKET_ADDRESS (address)) == G_UNIX_SOCKET_ADDRESS_PATH)
    path = g_unix_socket_address_get_path (G_UNIX_SOCKET_ADDRESS (address));
#endif
  /* A socket left by a server that is gone is removed; a live one, or
   * a file that is not a socket, is refused (snodo-http-unix-path.c). */
  if (path != NULL && !snodo_http_unix_path_prepare (path, error))
    return FALSE;
  socket = g_socket_new (family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  /* allow_reuse lets a TCP server restart at once on its port; it means
   * nothing to a Unix socket, whose path must be free. */
  if (socket == NULL || !g_socket_bind (socket, address, family != G_SOCKET_FAMILY_UNIX, error))
    return FALSE;
  g_socket_set_listen_backlog (socket, SNODO_HTTP_LISTEN_BACKLOG);
  /* Its mode and group before anyone can connect. */
  if ((path != NULL && !snodo_http_unix_path_set_access (path, self->unix_mode, self->unix_group, error)) ||
      !g_socket_listen (socket, error) || !snodo_http_listener_start (self, socket, error))
    {
      if (path != NULL)
        g_unlink (path);
      return FALSE;
    }
  self->unix_path = g_strdup (path);
  return TRUE;
}

/* Accepts on @socket, a listening stream socket opened by someone else
 * (inherited from a service manager, for example); it is closed when the
 * listener stops. Its backlog is whatever it was given. */
gboolean
snodo_http_listener_listen_socket (SnodoHttpListener  *self,
                                   GSocket            *socket,
                                   GError            **error)
{
  gint listening = 1;

  g_return_val_if_fail (self->socket == NULL, FALSE);

  if (g_socket_get_socket_type (socket) != G_SOCKET_TYPE_STREAM)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The socket to serve HTTP on is not a stream socket"));
      return FALSE;
    }
#if defined(G_OS_UNIX) && defined(SO_ACCEPTCONN)
  if (!g_socket_get_option (socket, SOL_SOCKET, SO_ACCEPTCONN, &listening, error))
    return FALSE;
#endif
  if (!listening)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("The socket to serve HTTP on is not listening"));
      return FALSE;
    }
  return snodo_http_listener_start (self, socket, error);
}

/* Before listen(): a Unix socket made at a path gets @mode unless 0, and
 * @group (a name or a number) unless NULL. */
void
snodo_http_listener_set_unix_access (SnodoHttpListener *self,
                                     guint              mode,
                                     const char        *group)
{
  self->unix_mode = mode;
  g_free (self->unix_group);
  self->unix_group = g_strdup (group);
}

/* The address the listener listens on (owned by the caller), or NULL. */
GSocketAddress *
snodo_http_listener_get_address (SnodoHttpListener *self)
{
  return self->socket != NULL ? g_socket_get_local_address (self->socket, NULL) : NULL;
}

/* Before listening: connections speak TLS with @certificate (or plain
 * HTTP with NULL). */
void
snodo_http_listener_set_tls_certificate (SnodoHttpListener *self,
                                         GTlsCertificate   *certificate)
{
  g_set_object (&self->tls_certificate, certificate);
}

void
snodo_http_listener_set_idle_timeout (SnodoHttpListener *self,
                                      guint              seconds)
{
  self->idle_timeout = seconds;
  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);
  snodo_http_listener_arm_sweep (self);
}

void
snodo_http_listener_set_read_timeout (SnodoHttpListener *self,
                                      guint              seconds)
{
  self->read_timeout = seconds;
  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);
  snodo_http_listener_arm_sweep (self);
}

void
snodo_http_listener_set_max_connections (SnodoHttpListener *self,
                                         guint              max_connections)
{
  self->max_connections = MAX (max_connections, 1);
  if (self->socket != NULL)
    snodo_http_listener_log_bound (self);
  snodo_http_listener_arm_accept (self);
}

/* The socket of @msg's connection, or NULL. */
GSocket *
snodo_http_listener_get_socket (SnodoHttpListener *self,
                                SoupServerMessage *msg)
{
  Connection *connection = snodo_http_listener_lookup (self, msg);

  if (connection != NULL)
    return connection->socket;
  return soup_server_message_get_socket (msg);
}

/* An exchange on @msg's connection is in progress: the connection is not
 * idle until the matching release(). */
void
snodo_http_listener_hold (SnodoHttpListener *self,
                          SoupServerMessage *msg)
{
  Connection *connection = snodo_http_listener_lookup (self, msg);

  if (connection == NULL)
    return;
  if (connection->n_held++ == 0 && connection->tls && connection->stream != NULL)
    connection_read_ahead (connection);
}

void
snodo_http_listener_release (SnodoHttpListener *self,
                             SoupServerMessage *msg)
{
  Connection *connection = snodo_http_listener_lookup (self, msg);

  if (connection != NULL && connection->n_held > 0)
    {
      if (--connection->n_held == 0)
        g_clear_pointer (&connection->ahead_source, snodo_source_destroy_and_unref);
      connection->last_active = g_get_monotonic_time ();
    }
}

void
snodo_http_listener_set_hangup_func (SnodoHttpListener           *self,
                                     SnodoHttpListenerHangupFunc  func,
                                     gpointer                     user_data)
{
  self->hangup_func = func;
  self->hangup_data = user_data;
}

guint
snodo_http_listener_get_n_connections (SnodoHttpListener *self)
{
  return g_hash_table_size (self->connections);
}

/* Accepts no more and closes the listening socket. The connections stay
 * until libsoup drops them (soup_server_disconnect()); those libsoup does
 * not have yet (TLS handshakes) are shut. */
void
snodo_http_listener_stop (SnodoHttpListener *self)
{
  GHashTableIter iter;
  gpointer value;

  self->stopped = TRUE;
  /* A connection still shaking hands would reach libsoup after that. */
  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((Connection *) value)->handshake != NULL)
      connection_shut (value);
  g_clear_pointer (&self->accept_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->retry_source, snodo_source_destroy_and_unref);
  if (self->socket != NULL)
    g_socket_close (self->socket, NULL);
  if (self->unix_path != NULL)
    {
      g_unlink (self->unix_path);
      g_clear_pointer (&self->unix_path, g_free);
    }
}

void
snodo_http_listener_free (SnodoHttpListener *self)
{
  GHashTableIter iter;
  gpointer value;

  snodo_http_listener_stop (self);
  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);
  g_clear_signal_handler (&self->request_started_id, self->soup);
  g_clear_signal_handler (&self->request_read_id, self->soup);
  g_clear_signal_handler (&self->request_finished_id, self->soup);
  g_clear_signal_handler (&self->request_aborted_id, self->soup);
  /* Whatever libsoup still holds is shut, so that it ends. */
  g_hash_table_iter_init (&iter, self->connections);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    connection_shut (value);
  g_hash_table_unref (self->connections);
  g_clear_object (&self->placeholder[0]);
  g_clear_object (&self->placeholder[1]);
  g_clear_object (&self->socket);
  g_clear_object (&self->tls_certificate);
  g_clear_pointer (&self->unix_group, g_free);
  g_clear_object (&self->soup);
  g_main_context_unref (self->context);
  g_free (self);
}
