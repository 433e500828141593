/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <gio/gunixsocketaddress.h>
#include <hiredis/hiredis.h>

#include "snodo-base-private.h"
#include "snodo-redis-bus.h"

/**
 * SnodoRedisBus:
 *
 * A [iface@Snodo.Bus] through Redis publish/subscribe: what one process
 * publishes reaches every process whose bus has the same Redis server and
 * channel. Give one to [method@Snodo.Server.set_bus] in each instance of a
 * server behind a load balancer, so that a change made on one instance is
 * announced to the clients of all.
 *
 * The bus keeps two connections to Redis, one subscribed to the channel and
 * one that publishes; it speaks RESP itself, with hiredis's reader and
 * command encoder, over GIO sockets on the main context it was made on, so
 * that resolving the name, connecting (10 seconds at most) and every read and
 * write are asynchronous.
 *
 * Delivery is best effort, as Redis publish/subscribe is:
 *
 * - a message is delivered in this process at once, when it is published,
 *   and in the others when Redis passes it on; the copy Redis sends back to
 *   the publishing process is recognised (each bus tags what it publishes
 *   with a random origin) and not delivered again;
 * - while the publishing connection is down, or while more than 1 MiB waits
 *   to be written to it, a message reaches this process only: it is counted
 *   in [property@Snodo.RedisBus:n-dropped], never queued;
 * - a connection that fails or closes is made again after a delay that
 *   doubles from 100 ms up to 10 s, and is back to 100 ms once Redis
 *   answered; messages published elsewhere while the subscribing
 *   connection was down are lost.
 *
 * A URL is `redis://HOST[:PORT]` (port 6379 by default; an IPv6 address in
 * brackets; `redis://:PASSWORD@HOST` or `redis://USER:PASSWORD@HOST` sends
 * `AUTH` first; a path, such as a database number, is ignored, as
 * publish/subscribe does not depend on it) or `unix:PATH` for a Unix socket.
 * TLS is not supported.
 *
 * Since: 0.1
 */

/* What may wait to be written on a connection, besides the write in
 * progress. */
#define REDIS_MAX_PENDING_BYTES (1024 * 1024)
/* The largest message delivered from Redis; larger ones are skipped. */
#define REDIS_MAX_MESSAGE_BYTES (1024 * 1024)
#define REDIS_CONNECT_TIMEOUT_S 10
#define REDIS_BACKOFF_MIN_MS    100
#define REDIS_BACKOFF_MAX_MS    10000

typedef struct _Link Link;

/* One connection to Redis, from the attempt to connect until it fails or
 * the bus goes. Shared by the asynchronous operations in progress on it,
 * which find @link NULL once it was let go. */
typedef struct
{
  /* The link it serves, or NULL once detached. Not owned. */
  Link              *link;
  GCancellable      *cancellable;
  GSocketConnection *connection;
  redisReader       *reader;
  /* Bytes not yet written, and the write in progress. */
  GByteArray        *out;
  GBytes            *writing;
  char               buffer[16384];
} Conn;

struct _Link
{
  SnodoRedisBus *bus;
  gboolean       subscriber;
  /* The connection, or NULL while waiting to connect again. Owned. */
  Conn          *conn;
  /* Connected (and, for the subscriber, subscribed). */
  gboolean       ready;
  GSource       *retry_source;
  guint          backoff_ms;
  /* Whether its failure was already reported since it last worked. */
  gboolean       reported;
};

struct _SnodoRedisBus
{
  GObject             parent_instance;

  char               *url;
  char               *channel;
  /* Where to connect, and the password to send, if any. */
  GSocketConnectable *address;
  char               *user;
  char               *password;
  /* Random; prefixes what this bus publishes. */
  char                origin[33];
  GMainContext       *context;
  Link                subscriber;
  Link                publisher;
  guint64             n_dropped;
};

static void snodo_redis_bus_iface_init (SnodoBusInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoRedisBus, snodo_redis_bus, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_BUS, snodo_redis_bus_iface_init))

enum {
  PROP_0,
  PROP_URL,
  PROP_CHANNEL,
  PROP_CONNECTED,
  PROP_N_DROPPED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void link_connect (Link *link);
static void conn_read (Conn *conn);

/* ---- Connections ---------------------------------------------------------- */

static Conn *
conn_new (Link *link)
{
  Conn *conn = g_rc_box_new0 (Conn);

  conn->link = link;
  conn->cancellable = g_cancellable_new ();
  conn->out = g_byte_array_new ();
  return conn;
}

static void
conn_clear (Conn *conn)
{
  g_clear_object (&conn->cancellable);
  g_clear_object (&conn->connection);
  g_clear_pointer (&conn->reader, redisReaderFree);
  g_clear_pointer (&conn->out, g_byte_array_unref);
  g_clear_pointer (&conn->writing, g_bytes_unref);
}

static Conn *
conn_ref (Conn *conn)
{
  return g_rc_box_acquire (conn);
}

static void
conn_unref (Conn *conn)
{
  g_rc_box_release_full (conn, (GDestroyNotify) conn_clear);
}

/* Lets the link's connection go: what is in progress on it is cancelled. */
static void
link_drop_conn (Link *link)
{
  Conn *conn = g_steal_pointer (&link->conn);

  if (conn == NULL)
    return;
  conn->link = NULL;
  g_cancellable_cancel (conn->cancellable);
  if (conn->connection != NULL)
    g_io_stream_close (G_IO_STREAM (conn->connection), NULL, NULL);
  conn_unref (conn);
}

static void
link_set_ready (Link     *link,
                gboolean  ready)
{
  SnodoRedisBus *self = link->bus;
  gboolean was_connected = self->subscriber.ready && self->publisher.ready;

  link->ready = ready;
  if (ready)
    {
      link->backoff_ms = REDIS_BACKOFF_MIN_MS;
      if (link->reported)
        g_message ("Redis bus %s: connected again", self->url);
      link->reported = FALSE;
    }
  if (was_connected != (self->subscriber.ready && self->publisher.ready))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTED]);
}

static gboolean
link_retry_cb (gpointer user_data)
{
  Link *link = user_data;

  g_clear_pointer (&link->retry_source, g_source_unref);
  link_connect (link);
  return G_SOURCE_REMOVE;
}

/* The link's connection failed or closed: it is made again later. */
static void
link_fail (Link       *link,
           const char *why)
{
  /* An outage is no programming error: a message, not a warning (which
   * G_DEBUG=fatal-warnings would make fatal), once until it works again. */
  if (!link->reported)
    g_message ("Redis bus %s: %s (connecting again, every %u s at most)",
               link->bus->url, why, REDIS_BACKOFF_MAX_MS / 1000);
  else
    g_debug ("Redis bus %s: %s", link->bus->url, why);
  link->reported = TRUE;
  link_drop_conn (link);
  link_set_ready (link, FALSE);

  g_assert (link->retry_source == NULL);
  link->retry_source = g_timeout_source_new (link->backoff_ms);
  g_source_set_callback (link->retry_source, link_retry_cb, link, NULL);
  g_source_attach (link->retry_source, link->bus->context);
  link->backoff_ms = MIN (link->backoff_ms * 2, REDIS_BACKOFF_MAX_MS);
}

static void
conn_write_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Conn *conn = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      if (conn->link != NULL)
        link_fail (conn->link, error->message);
      conn_unref (conn);
      return;
    }
  g_clear_pointer (&conn->writing, g_bytes_unref);
  if (conn->link != NULL && conn->out->len > 0)
    {
      GOutputStream *output = g_io_stream_get_output_stream (G_IO_STREAM (conn->connection));

      conn->writing = g_byte_array_free_to_bytes (g_steal_pointer (&conn->out));
      conn->out = g_byte_array_new ();
      g_output_stream_write_all_async (output, g_bytes_get_data (conn->writing, NULL),
                                       g_bytes_get_size (conn->writing), G_PRIORITY_DEFAULT,
                                       conn->cancellable, conn_write_cb, conn_ref (conn));
    }
  conn_unref (conn);
}

/* Writes what waits, unless a write is in progress (its end writes it). */
static void
conn_flush (Conn *conn)
{
  GOutputStream *output;

  if (conn->writing != NULL || conn->out->len == 0 || conn->connection == NULL)
    return;
  output = g_io_stream_get_output_stream (G_IO_STREAM (conn->connection));
  conn->writing = g_byte_array_free_to_bytes (g_steal_pointer (&conn->out));
  conn->out = g_byte_array_new ();
  g_output_stream_write_all_async (output, g_bytes_get_data (conn->writing, NULL),
                                   g_bytes_get_size (conn->writing), G_PRIORITY_DEFAULT,
                                   conn->cancellable, conn_write_cb, conn_ref (conn));
}

/* Queues a command on @conn: FALSE if it would wait behind more than
 * REDIS_MAX_PENDING_BYTES. */
static gboolean
conn_command (Conn        *conn,
              int          argc,
              const char **argv,
              const gsize *argvlen)
{
  char *command = NULL;
  int len = redisFormatCommandArgv (&command, argc, argv, argvlen);

  if (len < 0)
    return FALSE;
  if (conn->out->len + (gsize) len > REDIS_MAX_PENDING_BYTES)
    {
      redisFreeCommand (command);
      return FALSE;
    }
  g_byte_array_append (conn->out, (const guint8 *) command, len);
  redisFreeCommand (command);
  conn_flush (conn);
  return TRUE;
}

/* A message from the channel: delivered unless this bus published it. */
static void
snodo_redis_bus_receive (SnodoRedisBus *self,
                         const char    *data,
                         gsize          len)
{
  const char *newline = memchr (data, '\n', MIN (len, sizeof self->origin));
  g_autoptr(GBytes) message = NULL;

  if (newline == NULL)
    {
      g_debug ("Redis bus %s: skipped a message without an origin", self->url);
      return;
    }
  if ((gsize) (newline - data) == strlen (self->origin) &&
      memcmp (data, self->origin, newline - data) == 0)
    return;
  if (len > REDIS_MAX_MESSAGE_BYTES)
    {
      g_debug ("Redis bus %s: skipped a message of %" G_GSIZE_FORMAT " bytes", self->url, len);
      return;
    }
  message = g_bytes_new (newline + 1, len - (newline + 1 - data));
  snodo_bus_deliver (SNODO_BUS (self), message);
}

static gboolean
reply_is_string (redisReply *reply,
                 const char *str)
{
  return (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS) &&
         reply->len == strlen (str) && g_ascii_strncasecmp (reply->str, str, reply->len) == 0;
}

/* One reply on @link's connection: FALSE if the connection must go. */
static gboolean
link_handle_reply (Link       *link,
                   redisReply *reply)
{
  if (reply->type == REDIS_REPLY_ERROR)
    {
      g_autofree char *why = g_strdup_printf ("Redis answered an error: %.*s",
                                              (int) MIN (reply->len, 200), reply->str);

      link_fail (link, why);
      return FALSE;
    }
  if (!link->subscriber)
    {
      /* The number of receivers of a PUBLISH, or AUTH's OK. */
      if (!link->ready)
        link_set_ready (link, TRUE);
      return TRUE;
    }
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements < 3)
    return TRUE;
  if (reply_is_string (reply->element[0], "subscribe"))
    link_set_ready (link, TRUE);
  else if (reply_is_string (reply->element[0], "message") &&
           reply->element[2]->type == REDIS_REPLY_STRING)
    snodo_redis_bus_receive (link->bus, reply->element[2]->str, reply->element[2]->len);
  return TRUE;
}

static void
conn_read_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Conn *conn = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  void *reply = NULL;

  if (conn->link == NULL)
    goto out;
  if (n <= 0)
    {
      link_fail (conn->link, n < 0 ? error->message : "Redis closed the connection");
      goto out;
    }
  if (redisReaderFeed (conn->reader, conn->buffer, n) != REDIS_OK)
    {
      link_fail (conn->link, "the reply could not be read");
      goto out;
    }
  while (conn->link != NULL)
    {
      gboolean keep;

      if (redisReaderGetReply (conn->reader, &reply) != REDIS_OK)
        {
          link_fail (conn->link, "Redis sent something that is not RESP");
          goto out;
        }
      if (reply == NULL)
        break;
      keep = link_handle_reply (conn->link, reply);
      freeReplyObject (reply);
      if (!keep)
        goto out;
    }
  if (conn->link != NULL)
    conn_read (conn);

out:
  conn_unref (conn);
}

static void
conn_read (Conn *conn)
{
  GInputStream *input = g_io_stream_get_input_stream (G_IO_STREAM (conn->connection));

  g_input_stream_read_async (input, conn->buffer, sizeof conn->buffer, G_PRIORITY_DEFAULT,
                             conn->cancellable, conn_read_cb, conn_ref (conn));
}

static void
conn_connected_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Conn *conn = user_data;
  g_autoptr(GError) error = NULL;
  GSocketConnection *connection;
  SnodoRedisBus *self;

  connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, &error);
  if (conn->link == NULL)
    {
      g_clear_object (&connection);
      conn_unref (conn);
      return;
    }
  if (connection == NULL)
    {
      link_fail (conn->link, error->message);
      conn_unref (conn);
      return;
    }

  self = conn->link->bus;
  conn->connection = connection;
  /* The client's timeout bounds connecting only: a subscribed connection
   * is quiet for as long as nobody publishes. */
  g_socket_set_timeout (g_socket_connection_get_socket (connection), 0);
  conn->reader = redisReaderCreate ();
  if (self->password != NULL && self->user == NULL)
    conn_command (conn, 2, (const char *[]) { "AUTH", self->password },
                  (const gsize[]) { 4, strlen (self->password) });
  else if (self->password != NULL)
    conn_command (conn, 3, (const char *[]) { "AUTH", self->user, self->password },
                  (const gsize[]) { 4, strlen (self->user), strlen (self->password) });
  if (conn->link->subscriber)
    conn_command (conn, 2, (const char *[]) { "SUBSCRIBE", self->channel },
                  (const gsize[]) { 9, strlen (self->channel) });
  else
    {
      /* Publishing may begin; the first reply confirms it. */
      if (self->password == NULL)
        link_set_ready (conn->link, TRUE);
    }
  conn_read (conn);
  conn_unref (conn);
}

static void
link_connect (Link *link)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();

  g_assert (link->conn == NULL);
  link->conn = conn_new (link);
  g_socket_client_set_timeout (client, REDIS_CONNECT_TIMEOUT_S);
  g_main_context_push_thread_default (link->bus->context);
  g_socket_client_connect_async (client, link->bus->address, link->conn->cancellable,
                                 conn_connected_cb, conn_ref (link->conn));
  g_main_context_pop_thread_default (link->bus->context);
}

/* ---- The bus -------------------------------------------------------------- */

static void
snodo_redis_bus_publish (SnodoBus *bus,
                         GBytes   *message)
{
  SnodoRedisBus *self = SNODO_REDIS_BUS (bus);
  Link *link = &self->publisher;
  gsize len;
  const char *data = g_bytes_get_data (message, &len);
  g_autoptr(GByteArray) payload = NULL;
  gboolean sent = FALSE;

  g_object_ref (self);
  snodo_bus_deliver (bus, message);

  if (link->ready && link->conn != NULL)
    {
      payload = g_byte_array_sized_new (sizeof self->origin + len);
      g_byte_array_append (payload, (const guint8 *) self->origin, strlen (self->origin));
      g_byte_array_append (payload, (const guint8 *) "\n", 1);
      g_byte_array_append (payload, (const guint8 *) data, len);
      g_main_context_push_thread_default (self->context);
      sent = conn_command (link->conn, 3,
                           (const char *[]) { "PUBLISH", self->channel, (const char *) payload->data },
                           (const gsize[]) { 7, strlen (self->channel), payload->len });
      g_main_context_pop_thread_default (self->context);
    }
  if (!sent)
    {
      self->n_dropped++;
      g_debug ("Redis bus %s: a message reached this process only (%" G_GUINT64_FORMAT " so far)",
               self->url, self->n_dropped);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_DROPPED]);
    }
  g_object_unref (self);
}

static void
snodo_redis_bus_iface_init (SnodoBusInterface *iface)
{
  iface->publish = snodo_redis_bus_publish;
}

static void
link_clear (Link *link)
{
  if (link->retry_source != NULL)
    {
      g_source_destroy (link->retry_source);
      g_clear_pointer (&link->retry_source, g_source_unref);
    }
  link_drop_conn (link);
}

static void
snodo_redis_bus_finalize (GObject *object)
{
  SnodoRedisBus *self = SNODO_REDIS_BUS (object);

  link_clear (&self->subscriber);
  link_clear (&self->publisher);
  g_clear_object (&self->address);
  g_clear_pointer (&self->url, g_free);
  g_clear_pointer (&self->channel, g_free);
  g_clear_pointer (&self->user, g_free);
  g_clear_pointer (&self->password, g_free);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (snodo_redis_bus_parent_class)->finalize (object);
}

static void
snodo_redis_bus_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  SnodoRedisBus *self = SNODO_REDIS_BUS (object);

  switch (prop_id)
    {
    case PROP_URL:
      g_value_set_string (value, self->url);
      break;
    case PROP_CHANNEL:
      g_value_set_string (value, self->channel);
      break;
    case PROP_CONNECTED:
      g_value_set_boolean (value, snodo_redis_bus_get_connected (self));
      break;
    case PROP_N_DROPPED:
      g_value_set_uint64 (value, self->n_dropped);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_redis_bus_class_init (SnodoRedisBusClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_redis_bus_finalize;
  object_class->get_property = snodo_redis_bus_get_property;

  /**
   * SnodoRedisBus:url:
   *
   * The Redis server, as given to [ctor@Snodo.RedisBus.new].
   *
   * Since: 0.1
   */
  properties[PROP_URL] =
    g_param_spec_string ("url", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoRedisBus:channel:
   *
   * The Redis channel the bus publishes on and listens to.
   *
   * Since: 0.1
   */
  properties[PROP_CHANNEL] =
    g_param_spec_string ("channel", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoRedisBus:connected:
   *
   * Whether both connections to Redis are up: the one that listens is
   * subscribed, the one that publishes is connected.
   *
   * Since: 0.1
   */
  properties[PROP_CONNECTED] =
    g_param_spec_boolean ("connected", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoRedisBus:n-dropped:
   *
   * How many messages published here reached this process only, because
   * Redis could not be reached or the connection fell behind.
   *
   * Since: 0.1
   */
  properties[PROP_N_DROPPED] =
    g_param_spec_uint64 ("n-dropped", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_redis_bus_init (SnodoRedisBus *self)
{
  for (guint i = 0; i < 4; i++)
    g_snprintf (self->origin + 8 * i, 9, "%08x", g_random_int ());
  self->context = g_main_context_ref_thread_default ();
  self->subscriber.bus = self;
  self->subscriber.subscriber = TRUE;
  self->subscriber.backoff_ms = REDIS_BACKOFF_MIN_MS;
  self->publisher.bus = self;
  self->publisher.backoff_ms = REDIS_BACKOFF_MIN_MS;
}

/* Reads @url into @self's address and credentials. */
static gboolean
snodo_redis_bus_parse_url (SnodoRedisBus  *self,
                           const char     *url,
                           GError        **error)
{
  g_autoptr(GUri) uri = NULL;
  const char *host;
  int port;

  if (g_str_has_prefix (url, "unix:"))
    {
      const char *path = url + strlen ("unix:");

      if (g_str_has_prefix (path, "//"))
        path += 2;
      if (*path == '\0')
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("“%s” names no socket: write unix:PATH"), url);
          return FALSE;
        }
      self->address = G_SOCKET_CONNECTABLE (g_unix_socket_address_new (path));
      return TRUE;
    }

  uri = g_uri_parse (url, G_URI_FLAGS_HAS_PASSWORD | G_URI_FLAGS_ENCODED_PATH, error);
  if (uri == NULL)
    return FALSE;
  host = g_uri_get_host (uri);
  if (g_strcmp0 (g_uri_get_scheme (uri), "redis") != 0 || host == NULL || *host == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is no Redis URL: write redis://HOST[:PORT] or unix:PATH"), url);
      return FALSE;
    }
  port = g_uri_get_port (uri);
  self->address = g_network_address_new (host, port > 0 ? port : 6379);
  if (g_uri_get_password (uri) != NULL)
    {
      self->password = g_strdup (g_uri_get_password (uri));
      if (g_uri_get_user (uri) != NULL && *g_uri_get_user (uri) != '\0')
        self->user = g_strdup (g_uri_get_user (uri));
    }
  return TRUE;
}

/**
 * snodo_redis_bus_new:
 * @url: the Redis server: `redis://HOST[:PORT]` or `unix:PATH`
 * @channel: (nullable): the channel, or %NULL for `snodo`
 *
 * Makes a bus through the Redis server at @url, on @channel; every
 * instance that serves the same clients must use the same server and
 * channel. It connects at once, and again whenever a connection fails (see
 * [class@Snodo.RedisBus]), on the thread-default main context, which is the
 * one it delivers on.
 *
 * Returns: (transfer full): a new [class@Snodo.RedisBus], or %NULL if
 *   @url is not a Redis URL
 *
 * Since: 0.1
 */
SnodoRedisBus *
snodo_redis_bus_new (const char  *url,
                     const char  *channel,
                     GError     **error)
{
  g_autoptr(SnodoRedisBus) self = NULL;

  g_return_val_if_fail (url != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (SNODO_TYPE_REDIS_BUS, NULL);
  if (!snodo_redis_bus_parse_url (self, url, error))
    return NULL;
  self->url = g_strdup (url);
  self->channel = g_strdup (channel != NULL ? channel : "snodo");
  link_connect (&self->subscriber);
  link_connect (&self->publisher);
  return g_steal_pointer (&self);
}

/**
 * snodo_redis_bus_get_url:
 * @self: a bus
 *
 * The Redis server, as given to [ctor@Snodo.RedisBus.new].
 *
 * Returns: the URL of the Redis server
 *
 * Since: 0.1
 */
const char *
snodo_redis_bus_get_url (SnodoRedisBus *self)
{
  g_return_val_if_fail (SNODO_IS_REDIS_BUS (self), NULL);
  return self->url;
}

/**
 * snodo_redis_bus_get_channel:
 * @self: a bus
 *
 * The Redis channel the bus publishes on and listens to.
 *
 * Returns: the channel
 *
 * Since: 0.1
 */
const char *
snodo_redis_bus_get_channel (SnodoRedisBus *self)
{
  g_return_val_if_fail (SNODO_IS_REDIS_BUS (self), NULL);
  return self->channel;
}

/**
 * snodo_redis_bus_get_connected:
 * @self: a bus
 *
 * Whether both connections to Redis are up: see
 * [property@Snodo.RedisBus:connected].
 *
 * Returns: whether both connections to Redis are up
 *
 * Since: 0.1
 */
gboolean
snodo_redis_bus_get_connected (SnodoRedisBus *self)
{
  g_return_val_if_fail (SNODO_IS_REDIS_BUS (self), FALSE);
  return self->subscriber.ready && self->publisher.ready;
}

/**
 * snodo_redis_bus_get_n_dropped:
 * @self: a bus
 *
 * How many messages published here reached this process only: see
 * [property@Snodo.RedisBus:n-dropped].
 *
 * Returns: how many messages published here reached this process only
 *
 * Since: 0.1
 */
guint64
snodo_redis_bus_get_n_dropped (SnodoRedisBus *self)
{
  g_return_val_if_fail (SNODO_IS_REDIS_BUS (self), 0);
  return self->n_dropped;
}
