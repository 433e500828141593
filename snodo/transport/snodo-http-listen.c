/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Where SnodoHttpTransport listens: on the loopback interface, any
 * address, a Unix socket or an inherited socket, with the transport's own
 * SoupServer and listener (snodo-http-listener.c), with TLS when it has a
 * certificate; or attached to an application's SoupServer. And what it
 * then tells of itself: its port and URI; and the accessors of the limits
 * the listener applies to connections.
 * snodo-http-transport-private.h says which file holds what. */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport.h"
#include "snodo-http-transport-private.h"

/* The listener saw a client leave a connection that its exchanges cannot
 * watch themselves (TLS): they end, as when they see it go. */
static void
snodo_http_transport_client_left_cb (GSocketAddress *remote,
                                     gpointer        user_data)
{
  SnodoHttpTransport *self = user_data;
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->exchanges);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (soup_server_message_get_remote_address (((Exchange *) value)->msg) == remote)
      g_ptr_array_add (gone, value);
  for (guint i = 0; i < gone->len; i++)
    snodo_http_exchange_abort (g_ptr_array_index (gone, i));
}

/* Listens on @address, or on @socket (one of them), with the transport's
 * own SoupServer. */
static gboolean
snodo_http_transport_start (SnodoHttpTransport  *self,
                            GSocketAddress      *address,
                            GSocket             *socket,
                            GError             **error)
{
  if (self->server == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                           _("The transport has no server to serve (its “server” property)"));
      return FALSE;
    }
  if (self->tls_certificate != NULL && !g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_set_error_literal (error, G_TLS_ERROR, G_TLS_ERROR_UNAVAILABLE,
                           _("TLS is not available: GIO has no TLS backend (glib-networking)"));
      return FALSE;
    }

  self->soup = g_object_new (SOUP_TYPE_SERVER, NULL);
  soup_server_add_early_handler (self->soup, self->path, snodo_http_transport_early_cb, self, NULL);
  soup_server_add_handler (self->soup, self->path, snodo_http_transport_handler_cb, self, NULL);
  snodo_http_auth_add_handlers (self);
  g_signal_connect (self->soup, "request-finished", G_CALLBACK (snodo_http_exchange_finished_cb), self);
  g_signal_connect (self->soup, "request-aborted", G_CALLBACK (snodo_http_exchange_finished_cb), self);
  /* The transport's own listening socket, with a real backlog, and its own
   * management of kept-alive connections (see snodo-http-listener.c). */
  self->listener = snodo_http_listener_new (self->soup, self->context);
  snodo_http_listener_set_idle_timeout (self->listener, self->connection_idle_timeout);
  snodo_http_listener_set_read_timeout (self->listener, self->request_read_timeout);
  snodo_http_listener_set_max_connections (self->listener, self->max_connections);
  snodo_http_listener_set_tls_certificate (self->listener, self->tls_certificate);
  snodo_http_listener_set_hangup_func (self->listener, snodo_http_transport_client_left_cb, self);
  snodo_http_listener_set_unix_access (self->listener, self->unix_socket_mode, self->unix_socket_group);
  if (address != NULL ? !snodo_http_listener_listen (self->listener, address, error)
                      : !snodo_http_listener_listen_socket (self->listener, socket, error))
    {
      g_clear_pointer (&self->listener, snodo_http_listener_free);
      soup_server_disconnect (self->soup);
      g_clear_object (&self->soup);
      return FALSE;
    }

  self->local_address = snodo_http_listener_get_address (self->listener);
  if (G_IS_INET_SOCKET_ADDRESS (self->local_address))
    self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (self->local_address));
  self->check_host = TRUE;
  self->state = STATE_LISTENING;
  self->holds_self = TRUE;
  g_object_ref (self);
  snodo_http_transport_arm_sweep (self);
  return TRUE;
}

/**
 * snodo_http_transport_listen_local:
 * @self: a transport
 * @port: the TCP port, or 0 for any free one
 * @error: return location for an error
 *
 * Starts serving on the IPv4 loopback interface (127.0.0.1), never on
 * other interfaces. Requests whose `Host` header does not name the
 * loopback interface are refused (unless
 * [property@Snodo.HttpTransport:allowed-hosts] says otherwise), which
 * defeats DNS rebinding. Call it
 * once, and only one of the `listen` functions.
 *
 * From now until [method@Snodo.HttpTransport.close_async] has closed it,
 * the transport holds a reference to itself: it serves even when the
 * caller keeps none.
 *
 * Returns: %TRUE if the transport listens; %FALSE if it has no server or
 *   the port could not be used
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_listen_local (SnodoHttpTransport  *self,
                                   guint16              port,
                                   GError             **error)
{
  g_autoptr(GSocketAddress) address = NULL;

  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (self->state == STATE_NEW, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  address = g_inet_socket_address_new_from_string ("127.0.0.1", port);
  return snodo_http_transport_start (self, address, NULL, error);
}

/**
 * snodo_http_transport_listen:
 * @self: a transport
 * @address: where to listen: a [class@Gio.InetSocketAddress] (IPv4 or
 *   IPv6, port 0 for any free one) or a [class@Gio.UnixSocketAddress]
 *   naming a path
 * @error: return location for an error
 *
 * Starts serving on @address, on whatever interface it names: `0.0.0.0`
 * or `::` serve every interface (`::` also takes IPv4 where the system
 * allows), so this is the explicit choice to be reachable from elsewhere;
 * [method@Snodo.HttpTransport.listen_local] stays the loopback default.
 * The `Host` check still applies: set
 * [property@Snodo.HttpTransport:allowed-hosts] to the names clients use.
 *
 * A Unix socket's path must not exist yet, or hold a socket on which
 * nobody listens (left by a server that ended without removing it: it is
 * replaced). A socket a server listens on is refused with
 * %G_IO_ERROR_ADDRESS_IN_USE, a file that is not a socket with
 * %G_IO_ERROR_EXISTS; neither is touched. The transport removes its
 * socket when it closes. Who may connect to it is up to its mode and
 * group ([property@Snodo.HttpTransport:unix-socket-mode],
 * [property@Snodo.HttpTransport:unix-socket-group]; by default, those the
 * process's umask and group give) and to the permissions of its folder.
 *
 * Connections are kept alive and bounded as with
 * [method@Snodo.HttpTransport.listen_local], and speak TLS when
 * [property@Snodo.HttpTransport:tls-certificate] is set. Call it once, and
 * only one of the `listen` functions; the transport holds a reference to
 * itself until it has closed.
 *
 * Returns: %TRUE if the transport listens; %FALSE if it has no server, TLS
 *   is wanted and not available, or the address could not be used
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_listen (SnodoHttpTransport  *self,
                             GSocketAddress      *address,
                             GError             **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (G_IS_SOCKET_ADDRESS (address), FALSE);
  g_return_val_if_fail (self->state == STATE_NEW, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return snodo_http_transport_start (self, address, NULL, error);
}

/**
 * snodo_http_transport_listen_socket:
 * @self: a transport
 * @socket: a listening stream socket (TCP or Unix)
 * @error: return location for an error
 *
 * Starts serving on a socket that is already listening, such as one a
 * service manager opened (systemd's socket activation passes them from
 * descriptor 3 on, see `sd_listen_fds(3)`; make one with
 * g_socket_new_from_fd()). The transport takes a reference to @socket and
 * closes it when it closes. The socket keeps the backlog it was given.
 *
 * Otherwise as [method@Snodo.HttpTransport.listen].
 *
 * Returns: %TRUE if the transport listens; %FALSE if it has no server, TLS
 *   is wanted and not available, or @socket is not a listening stream
 *   socket
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_listen_socket (SnodoHttpTransport  *self,
                                    GSocket             *socket,
                                    GError             **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (G_IS_SOCKET (socket), FALSE);
  g_return_val_if_fail (self->state == STATE_NEW, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return snodo_http_transport_start (self, NULL, socket, error);
}

/**
 * snodo_http_transport_attach:
 * @self: a transport
 * @soup_server: a `SoupServer` of the application's
 * @error: return location for an error
 *
 * Serves the endpoint at [property@Snodo.HttpTransport:path] of
 * @soup_server, a server the application runs with handlers of its own,
 * instead of listening: the transport adds its handlers there (as
 * soup_server_add_handler() does) and removes them when it closes,
 * leaving the rest of the server alone. Paths under the endpoint's are
 * answered 404.
 *
 * Requests are served as on a socket of the transport's own: the same
 * checks (`Origin`, `Host`), limits (body size, sessions, write timeout)
 * and answers. The connections are the server's, though:
 * [property@Snodo.HttpTransport:connection-idle-timeout],
 * [property@Snodo.HttpTransport:max-connections],
 * [property@Snodo.HttpTransport:tls-certificate] and the backlog do not
 * apply (`soup_server_listen()` gives its sockets GLib's backlog of 10;
 * an application that expects bursts can listen on a socket it made with
 * `soup_server_listen_socket()`). libsoup before 3.3 forgets a kept-alive
 * connection that its client closes between two requests, without closing
 * it, so the transport answers with `Connection: close` there.
 *
 * The server must run on the main context the transport was created in.
 * Call it once, instead of the `listen` functions; the transport holds a
 * reference to itself until [method@Snodo.HttpTransport.close_async] has
 * closed it.
 *
 * Returns: %TRUE if the transport serves; %FALSE if it has no server
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_attach (SnodoHttpTransport  *self,
                             SoupServer          *soup_server,
                             GError             **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (SOUP_IS_SERVER (soup_server), FALSE);
  g_return_val_if_fail (self->state == STATE_NEW, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->server == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                           _("The transport has no server to serve (its “server” property)"));
      return FALSE;
    }

  self->soup = g_object_ref (soup_server);
  self->mounted = TRUE;
  soup_server_add_early_handler (self->soup, self->path, snodo_http_transport_early_cb, self, NULL);
  soup_server_add_handler (self->soup, self->path, snodo_http_transport_handler_cb, self, NULL);
  snodo_http_auth_add_handlers (self);
  g_signal_connect (self->soup, "request-finished", G_CALLBACK (snodo_http_exchange_finished_cb), self);
  g_signal_connect (self->soup, "request-aborted", G_CALLBACK (snodo_http_exchange_finished_cb), self);

  self->check_host = TRUE;
  self->state = STATE_LISTENING;
  self->holds_self = TRUE;
  g_object_ref (self);
  snodo_http_transport_arm_sweep (self);
  return TRUE;
}

/**
 * snodo_http_transport_get_port:
 * @self: a transport
 *
 * Gets the TCP port the transport listens on.
 *
 * Returns: the port, or 0 if the transport does not listen on TCP
 *
 * Since: 0.1
 */
guint16
snodo_http_transport_get_port (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->port;
}

/**
 * snodo_http_transport_parse_address:
 * @text: where to listen, as a command line says it: `PORT`,
 *   `ADDRESS:PORT` or `[IPV6]:PORT`
 * @error: return location for a #GError, or %NULL
 *
 * Parses where to listen as Snodo's programs take it (`snodo-demo --http`,
 * `--mcp-http` of [class@Snodo.ApplicationBinding], `snodo proxy --http`),
 * for [method@Snodo.HttpTransport.listen]. Without an address it is
 * `127.0.0.1`, the loopback interface; a port of 0, or none (`""`,
 * `ADDRESS:`), asks for a free one, which
 * [method@Snodo.HttpTransport.get_port] then tells.
 *
 * Returns: (transfer full) (nullable): the address, or %NULL with @error
 *   set (%G_IO_ERROR_INVALID_ARGUMENT, naming @text)
 *
 * Since: 0.1
 */
GSocketAddress *
snodo_http_transport_parse_address (const char  *text,
                                    GError     **error)
{
  g_autofree char *host = NULL;
  g_autoptr(GInetAddress) inet = NULL;
  const char *port_text = text;
  const char *colon;
  guint64 port = 0;

  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  colon = strrchr (text, ':');
  if (text[0] == '[')
    {
      const char *end = strchr (text, ']');

      if (end == NULL || end[1] != ':')
        goto bad;
      host = g_strndup (text + 1, end - text - 1);
      port_text = end + 2;
    }
  else if (colon != NULL)
    {
      if (strchr (text, ':') != colon)
        goto bad;
      host = g_strndup (text, colon - text);
      port_text = colon + 1;
    }
  if (port_text[0] != '\0' && !g_ascii_string_to_unsigned (port_text, 10, 0, G_MAXUINT16, &port, NULL))
    goto bad;
  inet = g_inet_address_new_from_string (host != NULL ? host : "127.0.0.1");
  if (inet == NULL)
    goto bad;
  return g_inet_socket_address_new (inet, (guint16) port);

bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               _("“%s” is not [ADDRESS:]PORT: a port from 0 to 65535 and an IPv4 or IPv6 address "
                 "(in brackets)"), text);
  return NULL;
}

/**
 * snodo_http_transport_dup_uri:
 * @self: a transport
 *
 * Gets the URI of the MCP endpoint, such as `http://127.0.0.1:8080/mcp`
 * (`https` with a [property@Snodo.HttpTransport:tls-certificate]). On an
 * address of every interface (`0.0.0.0`, `::`), it names the loopback
 * interface of that family, where a client on the same machine reaches
 * the transport.
 *
 * Attached to an application's server, it is the endpoint on the first
 * address the server listens on.
 *
 * Returns: (transfer full) (nullable): the URI, or %NULL if the transport
 *   does not listen on TCP
 *
 * Since: 0.1
 */
char *
snodo_http_transport_dup_uri (SnodoHttpTransport *self)
{
  GInetAddress *inet;
  g_autofree char *host = NULL;

  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);

  if (self->mounted)
    {
      GSList *uris = soup_server_get_uris (self->soup);
      char *uri = NULL;

      if (uris != NULL)
        uri = g_uri_join (G_URI_FLAGS_NONE, g_uri_get_scheme (uris->data), NULL, g_uri_get_host (uris->data),
                          g_uri_get_port (uris->data), self->path, NULL, NULL);
      g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
      return uri;
    }
  if (self->port == 0 || !G_IS_INET_SOCKET_ADDRESS (self->local_address))
    return NULL;
  inet = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (self->local_address));
  if (g_inet_address_get_is_any (inet))
    host = g_strdup (g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6 ? "[::1]" : "127.0.0.1");
  else if (g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6)
    {
      g_autofree char *text = g_inet_address_to_string (inet);

      host = g_strdup_printf ("[%s]", text);
    }
  else
    host = g_inet_address_to_string (inet);
  return g_strdup_printf ("%s://%s:%u%s", self->tls_certificate != NULL ? "https" : "http", host, self->port,
                          self->path);
}

/* ---- Who may connect to a Unix socket ----------------------------------- */

enum {
  LISTEN_PROP_UNIX_SOCKET_MODE,
  LISTEN_PROP_UNIX_SOCKET_GROUP,
  LISTEN_N_PROPS
};

static guint listen_first_id;

void
snodo_http_transport_install_listen_properties (GObjectClass *klass,
                                                guint         first_id)
{
  listen_first_id = first_id;

  /**
   * SnodoHttpTransport:unix-socket-mode: (getter get_unix_socket_mode) (setter set_unix_socket_mode)
   *
   * The permission bits (such as `0660`) a Unix socket made by
   * [method@Snodo.HttpTransport.listen] gets before it accepts
   * connections: a client needs write permission on the socket to
   * connect. 0, the default, leaves those the process's umask gives
   * (`0755` under the usual umask `022`: only the owner may connect).
   * A reverse proxy that runs as another user needs `0660` and
   * [property@Snodo.HttpTransport:unix-socket-group], or `0666`. Set it
   * before listening; it applies to no other kind of socket.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + LISTEN_PROP_UNIX_SOCKET_MODE,
    g_param_spec_uint ("unix-socket-mode", NULL, NULL, 0, 07777, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoHttpTransport:unix-socket-group: (getter get_unix_socket_group) (setter set_unix_socket_group)
   *
   * The group (a name, or a number) a Unix socket made by
   * [method@Snodo.HttpTransport.listen] gets before it accepts
   * connections, such as the group a reverse proxy's workers run as
   * (`www-data` for nginx on Debian); with
   * [property@Snodo.HttpTransport:unix-socket-mode] `0660`, its members
   * may connect. %NULL, the default, leaves the process's group. The
   * process must be the group's member, or privileged; otherwise
   * listening fails. Set it before listening.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + LISTEN_PROP_UNIX_SOCKET_GROUP,
    g_param_spec_string ("unix-socket-group", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
}

gboolean
snodo_http_transport_listen_get_property (SnodoHttpTransport *self,
                                          guint               id,
                                          GValue             *value)
{
  switch (id - listen_first_id)
    {
    case LISTEN_PROP_UNIX_SOCKET_MODE:
      g_value_set_uint (value, self->unix_socket_mode);
      return TRUE;

    case LISTEN_PROP_UNIX_SOCKET_GROUP:
      g_value_set_string (value, self->unix_socket_group);
      return TRUE;

    default:
      return FALSE;
    }
}

gboolean
snodo_http_transport_listen_set_property (SnodoHttpTransport *self,
                                          guint               id,
                                          const GValue       *value)
{
  switch (id - listen_first_id)
    {
    case LISTEN_PROP_UNIX_SOCKET_MODE:
      snodo_http_transport_set_unix_socket_mode (self, g_value_get_uint (value));
      return TRUE;

    case LISTEN_PROP_UNIX_SOCKET_GROUP:
      snodo_http_transport_set_unix_socket_group (self, g_value_get_string (value));
      return TRUE;

    default:
      return FALSE;
    }
}

/**
 * snodo_http_transport_get_unix_socket_mode:
 * @self: a transport
 *
 * Gets the permission bits a Unix socket made by the transport gets.
 *
 * Returns: the mode, or 0 for the one the umask gives
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_unix_socket_mode (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->unix_socket_mode;
}

/**
 * snodo_http_transport_set_unix_socket_mode:
 * @self: a transport
 * @mode: the permission bits, such as `0660`, or 0 for the umask's
 *
 * Sets the permission bits a Unix socket made by the transport gets; see
 * [property@Snodo.HttpTransport:unix-socket-mode].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_unix_socket_mode (SnodoHttpTransport *self,
                                           guint               mode)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (mode <= 07777);

  if (self->unix_socket_mode == mode)
    return;
  self->unix_socket_mode = mode;
  g_object_notify (G_OBJECT (self), "unix-socket-mode");
}

/**
 * snodo_http_transport_get_unix_socket_group:
 * @self: a transport
 *
 * Gets the group a Unix socket made by the transport gets.
 *
 * Returns: (nullable): the group's name or number, or %NULL for the
 *   process's
 *
 * Since: 0.1
 */
const char *
snodo_http_transport_get_unix_socket_group (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->unix_socket_group;
}

/**
 * snodo_http_transport_set_unix_socket_group:
 * @self: a transport
 * @group: (nullable): a group's name or number, or %NULL for the
 *   process's
 *
 * Sets the group a Unix socket made by the transport gets; see
 * [property@Snodo.HttpTransport:unix-socket-group].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_unix_socket_group (SnodoHttpTransport *self,
                                            const char         *group)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));

  if (g_strcmp0 (self->unix_socket_group, group) == 0)
    return;
  g_free (self->unix_socket_group);
  self->unix_socket_group = g_strdup (group);
  g_object_notify (G_OBJECT (self), "unix-socket-group");
}

/* ---- Who may be named in Host ------------------------------------------ */

/* Adds the Host values that name @inet at @port: `ADDRESS:PORT`, and
 * `ADDRESS` alone when @port is the scheme's own. An address of every
 * interface names none. */
static void
add_listened_host (GStrvBuilder *hosts,
                   GInetAddress *inet,
                   guint         port,
                   gboolean      https)
{
  g_autofree char *text = NULL;
  g_autofree char *host = NULL;
  g_autofree char *with_port = NULL;

  if (inet == NULL || port == 0 || g_inet_address_get_is_any (inet))
    return;
  text = g_inet_address_to_string (inet);
  host = g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6 ? g_strdup_printf ("[%s]", text)
                                                                    : g_strdup (text);
  with_port = g_strdup_printf ("%s:%u", host, port);
  g_strv_builder_add (hosts, with_port);
  if (port == (https ? 443 : 80))
    g_strv_builder_add (hosts, host);
}

/* Does the Host header @host name this server? One of allowed-hosts when
 * it is set; by default a loopback name, or an address the transport
 * listens on with its port, as its URI names it (what a server prints
 * must work). */
gboolean
snodo_http_transport_host_allowed (SnodoHttpTransport *self,
                                   const char         *host)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) listened = NULL;

  if (self->allowed_hosts != NULL)
    return snodo_http_host_header_allowed (host, (const char * const *) self->allowed_hosts);
  if (snodo_http_host_header_is_loopback (host))
    return TRUE;

  builder = g_strv_builder_new ();
  if (self->mounted)
    {
      GSList *uris = soup_server_get_uris (self->soup);

      for (GSList *l = uris; l != NULL; l = l->next)
        {
          g_autoptr(GInetAddress) inet = g_inet_address_new_from_string (g_uri_get_host (l->data));

          add_listened_host (builder, inet, g_uri_get_port (l->data),
                             g_ascii_strcasecmp (g_uri_get_scheme (l->data), "https") == 0);
        }
      g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
    }
  else if (self->local_address != NULL && G_IS_INET_SOCKET_ADDRESS (self->local_address))
    add_listened_host (builder,
                       g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (self->local_address)),
                       self->port, self->tls_certificate != NULL);
  listened = g_strv_builder_end (builder);
  return listened[0] != NULL && snodo_http_host_header_allowed (host, (const char * const *) listened);
}

/* ---- The connections' limits, applied by the listener ---------------- */

/**
 * snodo_http_transport_get_connection_idle_timeout:
 * @self: a transport
 *
 * Gets how long a kept-alive connection may stay idle.
 *
 * Returns: the limit in seconds, or 0 for none
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_connection_idle_timeout (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->connection_idle_timeout;
}

/**
 * snodo_http_transport_set_connection_idle_timeout:
 * @self: a transport
 * @connection_idle_timeout: the limit in seconds, or 0 for none
 *
 * Sets how long a kept-alive connection may stay idle; see
 * [property@Snodo.HttpTransport:connection-idle-timeout].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_connection_idle_timeout (SnodoHttpTransport *self,
                                                  guint               connection_idle_timeout)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (connection_idle_timeout <= G_MAXUINT / 1000);

  if (self->connection_idle_timeout == connection_idle_timeout)
    return;
  self->connection_idle_timeout = connection_idle_timeout;
  if (self->listener != NULL)
    snodo_http_listener_set_idle_timeout (self->listener, connection_idle_timeout);
  g_object_notify (G_OBJECT (self), "connection-idle-timeout");
}

/**
 * snodo_http_transport_get_max_connections:
 * @self: a transport
 *
 * Gets the most client connections open at once.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_max_connections (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_connections;
}

/**
 * snodo_http_transport_set_max_connections:
 * @self: a transport
 * @max_connections: the limit, at least 1
 *
 * Sets the most client connections open at once; see
 * [property@Snodo.HttpTransport:max-connections].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_connections (SnodoHttpTransport *self,
                                          guint               max_connections)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_connections >= 1);

  if (self->max_connections == max_connections)
    return;
  self->max_connections = max_connections;
  if (self->listener != NULL)
    snodo_http_listener_set_max_connections (self->listener, max_connections);
  g_object_notify (G_OBJECT (self), "max-connections");
}

/**
 * snodo_http_transport_get_request_read_timeout:
 * @self: a transport
 *
 * Gets how long a client may take to send one request, head and body.
 *
 * Returns: the limit in seconds, or 0 for none
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_request_read_timeout (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->request_read_timeout;
}

/**
 * snodo_http_transport_set_request_read_timeout:
 * @self: a transport
 * @request_read_timeout: the limit in seconds, or 0 for none
 *
 * Sets how long a client may take to send one request, head and body;
 * see [property@Snodo.HttpTransport:request-read-timeout].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_request_read_timeout (SnodoHttpTransport *self,
                                               guint               request_read_timeout)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (request_read_timeout <= G_MAXUINT / 1000);

  if (self->request_read_timeout == request_read_timeout)
    return;
  self->request_read_timeout = request_read_timeout;
  if (self->listener != NULL)
    snodo_http_listener_set_read_timeout (self->listener, request_read_timeout);
  g_object_notify (G_OBJECT (self), "request-read-timeout");
}
