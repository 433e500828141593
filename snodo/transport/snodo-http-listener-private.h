/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/*
 * The sockets under a SnodoHttpTransport: the listening socket (TCP over
 * IPv4 or IPv6, or a Unix socket; made with a real backlog, or inherited)
 * and every accepted connection (with TLS when given a certificate), handed to a SoupServer with
 * soup_server_accept_iostream(). Connections are kept alive between
 * requests, closed when the client closes its end, when they have been
 * idle for too long, and bounded in number.
 *
 * Everything happens on one main context, the SoupServer's.
 */

typedef struct _SnodoHttpListener SnodoHttpListener;

/* The backlog of the listening socket. The kernel caps it at
 * net.core.somaxconn (4096 on current Linux). */
#define SNODO_HTTP_LISTEN_BACKLOG 4096

/* A client left its connection (@remote: its address, as libsoup gives
 * it back for its messages) while an exchange held it. */
typedef void (*SnodoHttpListenerHangupFunc) (GSocketAddress *remote,
                                             gpointer        user_data);

SnodoHttpListener *snodo_http_listener_new              (SoupServer         *soup,
                                                         GMainContext       *context);
gboolean           snodo_http_listener_listen           (SnodoHttpListener  *self,
                                                         GSocketAddress     *address,
                                                         GError            **error);
gboolean           snodo_http_listener_listen_socket    (SnodoHttpListener  *self,
                                                         GSocket            *socket,
                                                         GError            **error);
void               snodo_http_listener_set_unix_access  (SnodoHttpListener  *self,
                                                         guint               mode,
                                                         const char         *group);
GSocketAddress    *snodo_http_listener_get_address      (SnodoHttpListener  *self);
void               snodo_http_listener_set_tls_certificate
                                                        (SnodoHttpListener  *self,
                                                         GTlsCertificate    *certificate);
void               snodo_http_listener_set_idle_timeout (SnodoHttpListener  *self,
                                                         guint               seconds);
void               snodo_http_listener_set_read_timeout (SnodoHttpListener  *self,
                                                         guint               seconds);
void               snodo_http_listener_set_max_connections
                                                        (SnodoHttpListener  *self,
                                                         guint               max_connections);
GSocket           *snodo_http_listener_get_socket       (SnodoHttpListener  *self,
                                                         SoupServerMessage  *msg);
void               snodo_http_listener_hold             (SnodoHttpListener  *self,
                                                         SoupServerMessage  *msg);
void               snodo_http_listener_release          (SnodoHttpListener  *self,
                                                         SoupServerMessage  *msg);
void               snodo_http_listener_set_hangup_func (SnodoHttpListener  *self,
                                                         SnodoHttpListenerHangupFunc func,
                                                         gpointer            user_data);
guint              snodo_http_listener_get_n_connections
                                                        (SnodoHttpListener  *self);
void               snodo_http_listener_stop             (SnodoHttpListener  *self);
void               snodo_http_listener_free             (SnodoHttpListener  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoHttpListener, snodo_http_listener_free)

/* snodo-http-unix-path.c: the path of a Unix socket the listener makes. */
gboolean           snodo_http_unix_path_prepare         (const char         *path,
                                                         GError            **error);
gboolean           snodo_http_unix_path_set_access      (const char         *path,
                                                         guint               mode,
                                                         const char         *group,
                                                         GError            **error);

/* For tests (SnodoHttpTransport is declared in snodo-http-transport.h). */
struct _SnodoHttpTransport;
guint              snodo_http_transport_get_n_connections
                                                        (struct _SnodoHttpTransport *self);

G_END_DECLS
