/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * The insides of SnodoHttpTransport, shared by its files and by nothing
 * else. From the request in:
 *
 *   snodo-http-transport.c  the object: its properties, the routing of
 *                           each request by its method
 *   snodo-http-listen.c     where it listens (or attaching to an
 *                           application's SoupServer), its port and URI,
 *                           and the limits its listener applies to
 *                           connections (idle and read timeouts, count)
 *   snodo-http-close.c      closing: the exchanges end, then the peers
 *   snodo-http-post.c       a POST: its body, the checks of its headers, the
 *                           era it belongs to, its dispatch to the server
 *   snodo-http-decode.c     a large body, decoded off the main loop after
 *                           its share of max-live-bytes is taken
 *   snodo-http-session.c    peers, what the server sees as a connection (a
 *                           session of the initialize era, or one stateless
 *                           request); the table of sessions, their GET
 *                           stream and DELETE, the end of idle sessions
 *   snodo-http-exchange.c   answering one HTTP request: at once, with one
 *                           JSON body, or with an event stream (keep-alive,
 *                           write timeouts, a client that leaves)
 *   snodo-http-resume.c     resumable streams of sessions (their GET
 *                           stream, the event streams answering POSTs):
 *                           events kept in the event store, Last-Event-ID,
 *                           priming events, closing a stream (SEP-1699)
 *   snodo-http-auth.c       bearer tokens, when the application set an
 *                           authorization (snodo-http-auth-private.h)
 *
 * They stand on snodo-http-rules.c (the rules of Streamable HTTP that need
 * no socket) and snodo-http-listener.c (the sockets). Everything runs on
 * the transport's context.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "snodo-event-store.h"
#include "snodo-executor.h"
#include "snodo-http-auth-private.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-transport.h"
#include "snodo-server.h"
#include "snodo-server-private.h"

G_BEGIN_DECLS

#define SESSION_HEADER "Mcp-Session-Id"

typedef enum
{
  STATE_NEW,
  STATE_LISTENING,
  /* close_async(): subscriptions end, streams finish. */
  STATE_CLOSING,
  STATE_CLOSED,
} State;

typedef enum
{
  /* Paused, nothing sent yet: the answer may still be a JSON body. */
  EXCHANGE_WAITING,
  /* Headers of a text/event-stream are out; lines go as events. */
  EXCHANGE_STREAMING,
  /* The last byte is handed to libsoup; waiting for "finished". */
  EXCHANGE_DONE,
} ExchangeState;

typedef struct _Peer Peer;
typedef struct _BodyBudget BodyBudget;

typedef struct
{
  GBytes        *line;
  SnodoSendFunc  func;
  gpointer       user_data;
  /* The SSE id of the event, or NULL; with an empty line, a priming
   * event (snodo-http-resume.c). */
  char          *event_id;
} PendingSend;

/* One HTTP request being answered: a POSTed request, or a session's GET
 * stream. Freed on the message's "finished". */
typedef struct
{
  SnodoHttpTransport *transport;
  /* Owned by the exchange until it ends; the peer outlives the exchange. */
  Peer               *peer;
  SoupServerMessage  *msg;
  /* The key of the client request, NULL for a session's GET stream. */
  char               *key;
  ExchangeState       state;
  /* Always a stream: subscriptions/listen, GET. */
  guint               stream_only : 1;
  /* The answer is queued: the stream ends after it. */
  guint               answer_queued : 1;
  /* initialize: the answer tells whether the session lives. */
  guint               is_initialize : 1;
  /* Closing the stream cancels the request (2026-07-28). */
  guint               cancel_on_close : 1;
  /* Ended by the transport or the client, not by the answer. */
  guint               aborted : 1;
  /* It writes the resumable stream of its request's answer (a POST, or a
   * GET that resumed it): snodo-http-resume.c hears when it goes. */
  guint               resumable : 1;
  /* Lines waiting for their turn (PendingSend), and their size. */
  GQueue              pending;
  gsize               pending_bytes;
  /* The line handed to libsoup and not yet written, or NULL. An entry
   * with a NULL line is a keep-alive comment. */
  PendingSend        *in_flight;
  GSource            *write_timeout_source;
  /* While a write is blocked (the socket is full): watches for the socket
   * taking bytes again, or NULL. */
  GSource            *writable_source;
  GSource            *keepalive_source;
  /* Ends a resumable GET stream after get-stream-lifetime, or NULL. */
  GSource            *lifetime_source;
  /* Watches the socket while waiting, to notice a client that left. */
  GSource            *hangup_source;
  /* Until then, the exchange's place in the transport's hangup_waiting
   * (data is the exchange; linked while hangup_queued), and since when it
   * waits (monotonic time). */
  GList               hangup_link;
  gint64              waiting_since;
  guint               hangup_queued : 1;
  /* Connected for a stream only; the end of the exchange comes through
   * the server's request-finished/aborted (see snodo_http_exchange_new()). */
  gulong              wrote_chunk_id;
  /* A large JSON answer being written: its bytes, held against the
   * transport executor's max-live-bytes until the exchange ends; or 0. */
  guint64             held_bytes;
  /* A subscriptions/listen or GET stream counted against max-streams:
   * its client's address (owned), or NULL. */
  char               *stream_address;
} Exchange;

/* What the server sees as a connection: a session (initialize era) or one
 * stateless request. */
struct _Peer
{
  SnodoHttpTransport *transport;
  SnodoConnection    *connection;
  /* The identity of the peer's work in the executor; kept until the
   * executor holds no work of it. */
  GObject            *owner;
  /* The executor of its work (borrowed from the transport): the
   * transport's, or its stream executor for a subscriptions/listen. */
  SnodoExecutor      *executor;
  /* key -> Exchange (borrowed; the exchange removes itself). */
  GHashTable         *exchanges;
  /* The session's GET stream, or NULL. */
  Exchange           *standalone;
  /* NULL for a stateless peer. */
  char               *session_id;
  /* The version initialize negotiated, or NULL. */
  char               *protocol_version;
  /* The principal whose token started the session (owned), or NULL
   * without authorization. */
  char               *principal;
  /* When the session last had a request (monotonic time). */
  gint64              last_active;
  /* The resumable answer streams of its requests (snodo-http-resume.c):
   * key -> RequestStream (owned) of the requests not yet answered, NULL
   * before the first; the event-store ids of the streams of answered
   * requests, kept so that their events can be forgotten, oldest first
   * and only the newest few (owned); the number of the next stream. */
  GHashTable         *request_streams;
  GQueue              answered_streams;
  guint64             next_stream;
  /* A stateless peer ends with its one exchange. */
  guint               stateless : 1;
  guint               ended : 1;
};

struct _SnodoHttpTransport
{
  GObject          parent_instance;

  /* Construct-only, owned. */
  SnodoServer     *server;
  SnodoExecutor   *executor;
  char            *path;
  /* The context the transport was created in; everything is touched there. */
  GMainContext    *context;

  /* Owned, from listen_local() and the other listen functions; or the
   * application's, from attach() (a reference). */
  SoupServer      *soup;
  /* Owned, from listen_local(): the listening socket and the connections
   * handed to soup. */
  SnodoHttpListener *listener;
  guint16          port;
  /* Owned, from listen*(): the address listened on, for dup_uri(). */
  GSocketAddress  *local_address;
  /* Connections speak TLS with it, or NULL (owned). */
  GTlsCertificate *tls_certificate;
  /* A Unix socket made by listen() gets this mode (0: the umask's) and
   * group (NULL: the process's; owned). */
  guint            unix_socket_mode;
  char            *unix_socket_group;
  /* Host headers must name an allowed host (allowed_hosts). */
  guint            check_host : 1;
  /* soup is the application's, from attach(): the transport has its
   * handlers there, and no listener. */
  guint            mounted : 1;
  /* From listen_local() until closed: the transport holds a reference to
   * itself, as a started stdio transport does. */
  guint            holds_self : 1;

  State            state;
  /* session id -> Peer (owned). */
  GHashTable      *sessions;
  /* Stateless peers (owned), each ending with its exchange. */
  GPtrArray       *stateless;
  /* SoupServerMessage -> its live Exchange (borrowed; each removes
   * itself when freed). */
  GHashTable      *exchanges;

  guint64          max_body_bytes;
  guint            write_timeout;
  /* NULL: only the loopback origins. */
  char           **allowed_origins;
  /* NULL: only the loopback names and the addresses listened on. */
  char           **allowed_hosts;
  /* Seconds a session may stay idle; 0 for ever. */
  guint            session_idle_timeout;
  /* The most sessions at once; a new one beyond is refused (503). */
  guint            max_sessions;
  guint            connection_idle_timeout;
  /* Seconds from a request's first byte to its end; 0: no limit. */
  guint            request_read_timeout;
  guint            max_connections;
  /* Bytes of messages waiting to be written to one stream, beyond which
   * the stream ends. */
  guint64          max_stream_bytes;
  /* The most subscriptions/listen and GET streams at once, and from one
   * client address; how many there are, and per address (address ->
   * count, as a pointer). */
  guint            max_streams;
  guint            max_streams_per_address;
  guint            n_streams;
  GHashTable      *streams_per_address;
  /* The bytes of request bodies being received, on all connections
   * (owned, shared with the bodies' reservations), and their bound. */
  BodyBudget      *body_budget;
  guint64          max_bodies_bytes;
  /* Bearer tokens are required, or NULL (owned; set before listening);
   * the requests waiting for the check of their token (snodo-http-auth.c). */
  SnodoHttpAuthorization *authorization;
  GQueue           auth_checks;
  /* The requests whose body is being decoded off the main loop
   * (snodo-http-decode.c). */
  GQueue           decodes;
  /* Starts the session ids issued, with a dot; NULL for none (owned). */
  char            *instance_id;
  /* Resumable GET streams of sessions (snodo-http-resume.c): where their
   * events are kept (owned, or NULL: not resumable), the retry field of
   * their priming event (ms) and how long they stay open (s, 0: until
   * the client leaves). */
  SnodoEventStore *event_store;
  guint            stream_retry;
  guint            get_stream_lifetime;
  /* Runs subscriptions/listen (owned): a listen lasts as long as its
   * stream, and must not hold a slot of the executor that admits work.
   * max-streams bounds it instead. */
  SnodoExecutor   *stream_executor;
  /* Ends idle sessions, while listening. */
  GSource         *sweep_source;
  /* Exchanges waiting for their answer without a socket watch yet,
   * oldest first (their hangup_link), and the timer that gives them one
   * once they have waited HANGUP_WATCH_DELAY_MS: one timer for all,
   * running only while some wait, rather than one per request. */
  GQueue           hangup_waiting;
  GSource         *hangup_tick_source;

  /* close_async() calls waiting (GTask), and the grace timer. */
  GPtrArray       *close_tasks;
  GSource         *close_timeout_source;
};

/* snodo-http-transport.c */

void      snodo_http_transport_handler_cb           (SoupServer         *server,
                                                     SoupServerMessage  *msg,
                                                     const char         *path,
                                                     GHashTable         *query,
                                                     gpointer            user_data);

void      snodo_http_transport_route                (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg);

/* snodo-http-listen.c */

gboolean  snodo_http_transport_host_allowed         (SnodoHttpTransport *self,
                                                     const char         *host);

/* snodo-http-close.c */

void      snodo_http_transport_check_closed         (SnodoHttpTransport *self);

/* snodo-http-post.c */

void      snodo_http_transport_early_cb             (SoupServer         *server,
                                                     SoupServerMessage  *msg,
                                                     const char         *path,
                                                     GHashTable         *query,
                                                     gpointer            user_data);
void      snodo_http_transport_handle_post          (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg);
void      snodo_http_transport_serve_post           (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg,
                                                     SnodoFrame         *frame,
                                                     gsize               len);
void      snodo_http_transport_release_body         (SoupServerMessage  *msg);

/* snodo-http-decode.c: bodies of at least this many bytes are decoded off
 * the main loop. */
#define SNODO_HTTP_DECODE_OFF_LOOP_BYTES (64 * 1024)

void      snodo_http_decode_start                   (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg,
                                                     GBytes             *text,
                                                     gboolean            writable);
void      snodo_http_decode_stop                    (SnodoHttpTransport *self);
BodyBudget *snodo_http_body_budget_new              (void);
void      snodo_http_body_budget_unref              (BodyBudget         *budget);

/* snodo-http-session.c */

Peer     *snodo_http_peer_new                       (SnodoHttpTransport *self,
                                                     gboolean            stateless);
Peer     *snodo_http_peer_new_full                  (SnodoHttpTransport *self,
                                                     gboolean            stateless,
                                                     SnodoExecutor      *executor);
void      snodo_http_peer_free                      (Peer               *peer);
void      snodo_http_peer_end                       (Peer               *peer,
                                                     gboolean            graceful);
void      snodo_http_transport_handle_get_or_delete (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg,
                                                     gboolean            is_get);
void      snodo_http_transport_arm_sweep            (SnodoHttpTransport *self);
gboolean  snodo_http_transport_evict_idle_session   (SnodoHttpTransport *self);

/* snodo-http-exchange.c */

GSocket  *snodo_http_transport_get_socket           (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg);
void      snodo_http_send_fail_later                (GMainContext       *context,
                                                     SnodoSendFunc       func,
                                                     gpointer            user_data,
                                                     const GError       *error);
void      snodo_http_reply_error                    (SoupServerMessage  *msg,
                                                     guint               status,
                                                     JsonNode           *id,
                                                     int                 code,
                                                     const char         *message);
void      snodo_http_reply_status                   (SoupServerMessage  *msg,
                                                     guint               status);
void      snodo_http_reply_method_not_allowed       (SoupServerMessage  *msg,
                                                     const char         *allow);
Exchange *snodo_http_exchange_new                   (SnodoHttpTransport *self,
                                                     Peer               *peer,
                                                     SoupServerMessage  *msg,
                                                     const char         *key);
void      snodo_http_exchange_free                  (Exchange           *ex);
void      snodo_http_exchange_finished_cb           (SoupServer         *server,
                                                     SoupServerMessage  *msg,
                                                     gpointer            user_data);
void      snodo_http_exchange_send                  (Exchange           *ex,
                                                     GBytes             *line,
                                                     SnodoSendFunc       func,
                                                     gpointer            user_data);
void      snodo_http_exchange_send_event            (Exchange           *ex,
                                                     const char         *event_id,
                                                     GBytes             *line,
                                                     SnodoSendFunc       func,
                                                     gpointer            user_data);
void      snodo_http_exchange_start_stream          (Exchange           *ex);
void      snodo_http_exchange_finish                (Exchange           *ex);
void      snodo_http_exchange_watch_hangup          (Exchange           *ex);
void      snodo_http_exchange_end                   (Exchange           *ex,
                                                     guint               status);
void      snodo_http_exchange_abort                 (Exchange           *ex);
gboolean  snodo_http_transport_admit_stream         (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg,
                                                     JsonNode           *id);
void      snodo_http_exchange_count_stream          (Exchange           *ex);

/* snodo-http-listen.c: the properties of where it listens (the mode and
 * group of a Unix socket), installed from @first_id on. */
void      snodo_http_transport_install_listen_properties (GObjectClass       *klass,
                                                          guint               first_id);
gboolean  snodo_http_transport_listen_get_property  (SnodoHttpTransport *self,
                                                     guint               id,
                                                     GValue             *value);
gboolean  snodo_http_transport_listen_set_property  (SnodoHttpTransport *self,
                                                     guint               id,
                                                     const GValue       *value);

/* snodo-http-auth.c */

gboolean  snodo_http_transport_authorize            (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg);
SnodoAuthInfo *snodo_http_auth_get                  (SoupServerMessage  *msg);
gboolean  snodo_http_auth_check_tool                (SnodoHttpTransport *self,
                                                     SoupServerMessage  *msg,
                                                     SnodoFrame         *frame);
gboolean  snodo_http_auth_owns_session              (Peer               *peer,
                                                     SoupServerMessage  *msg);
void      snodo_http_auth_bind                      (Peer               *peer,
                                                     SoupServerMessage  *msg);
void      snodo_http_auth_add_handlers              (SnodoHttpTransport *self);
void      snodo_http_auth_stop                      (SnodoHttpTransport *self);
/* snodo-http-resume.c: resumable streams of sessions, their GET stream
 * and the answers to their requests. The properties are installed after
 * the transport's own, from @first_id on; returns the next free id. */
guint     snodo_http_transport_install_resume_properties (GObjectClass       *klass,
                                                          guint               first_id);
gboolean  snodo_http_transport_resume_get_property  (SnodoHttpTransport *self,
                                                     guint               id,
                                                     GValue             *value);
gboolean  snodo_http_transport_resume_set_property  (SnodoHttpTransport *self,
                                                     guint               id,
                                                     const GValue       *value);
gboolean  snodo_http_resume_send                    (Peer               *peer,
                                                     const char         *related,
                                                     GBytes             *line,
                                                     SnodoSendFunc       func,
                                                     gpointer            user_data);
gboolean  snodo_http_resume_check                   (Peer               *peer,
                                                     SoupServerMessage  *msg,
                                                     char              **last_event_id);
void      snodo_http_resume_begin                   (Peer               *peer,
                                                     const char         *last_event_id);
void      snodo_http_resume_forget                  (Peer               *peer);
gboolean  snodo_http_resume_send_related            (Peer               *peer,
                                                     const char         *related,
                                                     GBytes             *line,
                                                     SnodoSendFunc       func,
                                                     gpointer            user_data);
gboolean  snodo_http_resume_has_request             (Peer               *peer,
                                                     const char         *key);
void      snodo_http_resume_close_stream            (gpointer            transport,
                                                     const char         *related);
void      snodo_http_resume_exchange_gone           (Exchange           *ex);

/* For tests: the executor of subscriptions/listen. */
SnodoExecutor *snodo_http_transport_get_stream_executor (SnodoHttpTransport *self);

G_END_DECLS
