/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-event-store.h"
#include "snodo-executor.h"
#include "snodo-server.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_HTTP_TRANSPORT (snodo_http_transport_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoHttpTransport, snodo_http_transport, SNODO, HTTP_TRANSPORT, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoHttpTransport  *snodo_http_transport_new                 (SnodoServer          *server);
SNODO_AVAILABLE_IN_ALL
SnodoServer         *snodo_http_transport_get_server          (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
SnodoExecutor       *snodo_http_transport_get_executor        (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_http_transport_get_path            (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
guint64              snodo_http_transport_get_max_body_bytes  (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_body_bytes  (SnodoHttpTransport   *self,
                                                               guint64               max_body_bytes);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_write_timeout   (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_write_timeout   (SnodoHttpTransport   *self,
                                                               guint                 write_timeout);
SNODO_AVAILABLE_IN_ALL
const char * const  *snodo_http_transport_get_allowed_origins (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_allowed_origins (SnodoHttpTransport   *self,
                                                               const char * const   *allowed_origins);
SNODO_AVAILABLE_IN_ALL
const char * const  *snodo_http_transport_get_allowed_hosts   (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_allowed_hosts   (SnodoHttpTransport   *self,
                                                               const char * const   *allowed_hosts);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_session_idle_timeout
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_session_idle_timeout
                                                              (SnodoHttpTransport   *self,
                                                               guint                 session_idle_timeout);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_max_sessions    (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_sessions    (SnodoHttpTransport   *self,
                                                               guint                 max_sessions);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_connection_idle_timeout
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_connection_idle_timeout
                                                              (SnodoHttpTransport   *self,
                                                               guint                 connection_idle_timeout);
SNODO_AVAILABLE_IN_ALL
SnodoEventStore     *snodo_http_transport_get_event_store     (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_event_store     (SnodoHttpTransport   *self,
                                                               SnodoEventStore      *store);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_stream_retry    (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_stream_retry    (SnodoHttpTransport   *self,
                                                               guint                 stream_retry);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_get_stream_lifetime
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_get_stream_lifetime
                                                              (SnodoHttpTransport   *self,
                                                               guint                 get_stream_lifetime);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_request_read_timeout
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_request_read_timeout
                                                              (SnodoHttpTransport   *self,
                                                               guint                 request_read_timeout);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_unix_socket_mode (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_unix_socket_mode (SnodoHttpTransport   *self,
                                                                guint                 mode);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_http_transport_get_unix_socket_group (SnodoHttpTransport  *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_unix_socket_group (SnodoHttpTransport  *self,
                                                                 const char          *group);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_max_connections (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_connections (SnodoHttpTransport   *self,
                                                               guint                 max_connections);
SNODO_AVAILABLE_IN_ALL
guint64              snodo_http_transport_get_max_stream_bytes
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_stream_bytes
                                                              (SnodoHttpTransport   *self,
                                                               guint64               max_stream_bytes);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_max_streams     (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_streams     (SnodoHttpTransport   *self,
                                                               guint                 max_streams);
SNODO_AVAILABLE_IN_ALL
guint                snodo_http_transport_get_max_streams_per_address
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_streams_per_address
                                                              (SnodoHttpTransport   *self,
                                                               guint                 max_streams_per_address);
SNODO_AVAILABLE_IN_ALL
guint64              snodo_http_transport_get_max_bodies_bytes
                                                              (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_max_bodies_bytes
                                                              (SnodoHttpTransport   *self,
                                                               guint64               max_bodies_bytes);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_http_transport_listen_local        (SnodoHttpTransport   *self,
                                                               guint16               port,
                                                               GError              **error);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_http_transport_listen              (SnodoHttpTransport   *self,
                                                               GSocketAddress       *address,
                                                               GError              **error);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_http_transport_listen_socket       (SnodoHttpTransport   *self,
                                                               GSocket              *socket,
                                                               GError              **error);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_http_transport_attach              (SnodoHttpTransport   *self,
                                                               SoupServer           *soup_server,
                                                               GError              **error);
SNODO_AVAILABLE_IN_ALL
GTlsCertificate     *snodo_http_transport_get_tls_certificate (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_tls_certificate (SnodoHttpTransport   *self,
                                                               GTlsCertificate      *certificate);
/**
 * SNODO_HTTP_INSTANCE_ID_MAX:
 *
 * The longest [property@Snodo.HttpTransport:instance-id], in bytes.
 *
 * Since: 0.1
 */
#define SNODO_HTTP_INSTANCE_ID_MAX 32

SNODO_AVAILABLE_IN_ALL
gboolean             snodo_http_transport_instance_id_is_valid
                                                              (const char           *instance_id);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_http_transport_get_instance_id     (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_set_instance_id     (SnodoHttpTransport   *self,
                                                               const char           *instance_id);
SNODO_AVAILABLE_IN_ALL
guint16              snodo_http_transport_get_port            (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
GSocketAddress      *snodo_http_transport_parse_address       (const char           *text,
                                                               GError              **error);
SNODO_AVAILABLE_IN_ALL
char                *snodo_http_transport_dup_uri             (SnodoHttpTransport   *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_http_transport_close_async         (SnodoHttpTransport   *self,
                                                               GCancellable         *cancellable,
                                                               GAsyncReadyCallback   callback,
                                                               gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_http_transport_close_finish        (SnodoHttpTransport   *self,
                                                               GAsyncResult         *result,
                                                               GError              **error);

G_END_DECLS
