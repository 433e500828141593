/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-client.h"
#include "snodo-server-request.h"
#include "snodo-telemetry-private.h"
#include "snodo-wire-private.h"

G_BEGIN_DECLS

/*
 * SnodoClient's instance, shared by the files of the client folder and
 * nothing else. Everything runs on the client's context.
 *
 * - snodo-client.c: the object, its properties and public API, the
 *   spawning of a server and the end of it (close_async() and the
 *   server that never outlives the client).
 * - snodo-client-handshake.c: connect_async(), the negotiation of the
 *   protocol version (server/discover, then initialize), and what the
 *   client says of itself (clientInfo, the 2026-07-28 envelope).
 * - snodo-client-connection.c: reading with the line framer, writing
 *   with the writer, the pending requests with their timeouts and
 *   cancellation, what the server sends (answers, notifications and their
 *   signals, its requests), and the end of the connection
 *   (snodo_client_stop()).
 * - snodo-client-methods.c: the requests of each server feature, made
 *   with snodo_client_start_request().
 * - snodo-client-input.c: what the server asks of the application
 *   (SnodoServerRequest, the server-request signal): its requests in the
 *   initialize era, the input_required round trip of 2026-07-28.
 * - snodo-client-tasks.c: tasks (tools/call as a task, tasks/get,
 *   the wait for a result, tasks/cancel, tasks/list, task-status).
 * - snodo-client-listen.c: a subscriptions/listen over HTTP sent again
 *   when its stream is lost.
 * - snodo-client-http.c: Streamable HTTP instead of a stream pair (a POST
 *   a message, the answers in JSON or SSE, the session and the GET stream
 *   of the initialize era, resumption, DELETE at the end), over
 *   snodo-client-sse.c, which cuts an event stream into events.
 */

typedef struct _SnodoClientHttp SnodoClientHttp;

typedef enum
{
  STATE_NEW,
  STATE_CONNECTING,
  STATE_READY,
  STATE_CLOSED,
} ClientState;

struct _SnodoClient
{
  GObject parent_instance;

  /* The thread-default context at init: every source of the client is
   * attached to it and every task completes in it. Owned. */
  GMainContext *context;

  /* The server's output and input (construct-only, or the subprocess's
   * pipes). Owned. */
  GInputStream *input;
  GOutputStream *output;

  /* The command that starts the server (construct-only), and the server
   * it started; NULL for a stream pair. Owned. */
  char **argv;
  GSubprocess *subprocess;

  /* Streamable HTTP instead of streams: the endpoint (construct-only),
   * the application's own headers (lowercased name → value), and the
   * HTTP side of the connection (snodo-client-http.c). NULL else. Owned. */
  char *uri;
  GHashTable *http_headers;
  /* The certificate authorities HTTPS trusts, or NULL for the system's.
   * Owned. */
  GTlsDatabase *tls_database;
  /* The sign-in the HTTP side consults (snodo-client-oauth.c), or NULL.
   * Owned. */
  struct _SnodoClientOAuth *oauth;
  SnodoClientHttp *http;

  ClientState state;
  SnodoProtocolVersion pinned_version;
  SnodoProtocolVersion protocol_version;

  /* What the handshake learnt; NULL before it. Owned. */
  JsonObject *server_info;
  JsonObject *server_capabilities;
  char *instructions;

  guint write_timeout;
  guint64 max_line_bytes;
  guint request_timeout;
  /* The capabilities the client declares, or NULL. Owned. */
  JsonObject *capabilities;

  /* The level of the log messages asked for, or NULL. Owned. */
  char *log_level;

  /* Reading: one read in flight while reading is TRUE, which holds a
   * reference on the client. The cancellable stops it (close, failure). */
  SnodoLineFramer *framer;
  GCancellable *read_cancellable;
  gboolean reading;

  /* Writing: lines waiting (GBytes), the batch the writer is writing (or
   * NULL), and the timer bounding that write. Owned. */
  SnodoWriter *writer;
  GQueue out;
  GPtrArray *in_flight;
  GSource *write_deadline;

  /* Requests awaiting their answer: the id's frame key ("i:<n>") → Pending.
   * Owned, on the context only. */
  GHashTable *pending;
  gint64 next_id;
};

/* snodo-client.c */
enum
{
  SIGNAL_PROGRESS,
  SIGNAL_LOG_MESSAGE,
  SIGNAL_NOTIFICATION,
  SIGNAL_CLOSED,
  N_SIGNALS
};

/* The signals of the class, emitted by snodo-client-connection.c. */
extern guint snodo_client_signals[N_SIGNALS];

JsonObject *snodo_client_copy_params       (JsonObject           *params);
/* The end of the handshake: sets what it learnt (and notifies it); the
 * client is ready. */
void        snodo_client_set_agreed        (SnodoClient          *self,
                                            SnodoProtocolVersion  version,
                                            JsonObject           *capabilities,
                                            JsonObject           *server_info,
                                            const char           *instructions);

/* snodo-client-handshake.c */
void        snodo_client_add_envelope      (SnodoClient          *self,
                                            JsonObject           *params);
/* The initialize era: logging/setLevel with log-level, when agreed and the
 * server logs; nothing otherwise. */
void        snodo_client_send_log_level    (SnodoClient          *self);

/* The initialize era over HTTP, when the server ended the session: a new
 * initialize with the version spoken, then notifications/initialized. */
void        snodo_client_reinitialize_async  (SnodoClient        *self,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
gboolean    snodo_client_reinitialize_finish (SnodoClient        *self,
                                              GAsyncResult       *result,
                                              GError            **error);

/* snodo-client-connection.c */
void        snodo_client_install_progress_signal (GObjectClass   *klass);
/* Entry: any state. Starts reading (once; a read holds a reference). */
void        snodo_client_read              (SnodoClient          *self);
void        snodo_client_send_notification (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params);
void        snodo_client_send_request      (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params,
                                            gboolean              envelope,
                                            guint                 timeout_ms,
                                            GCancellable         *cancellable,
                                            GTask                *task);
void        snodo_client_start_request     (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params,
                                            GCancellable         *cancellable,
                                            GTask                *task);
void        snodo_client_start_raw_request (SnodoClient          *self,
                                            const char           *id,
                                            const char           *method,
                                            JsonObject           *params,
                                            GCancellable         *cancellable,
                                            GTask                *task);
void        snodo_client_stop              (SnodoClient          *self,
                                            const GError         *error);
/* One message of the server, whole (an HTTP body or an SSE event's data). */
void        snodo_client_receive           (SnodoClient          *self,
                                            const char           *data,
                                            gsize                 len);
gboolean    snodo_client_is_pending        (SnodoClient          *self,
                                            const char           *key);
/* Fails the pending request of @key with a copy of @error; FALSE when
 * none is pending. */
gboolean    snodo_client_fail_request      (SnodoClient          *self,
                                            const char           *key,
                                            const GError         *error);

/* Sends a response to the server's request @id: @result, or the error
 * @code and @message when @result is NULL. */
void        snodo_client_send_response     (SnodoClient          *self,
                                            JsonNode             *id,
                                            JsonObject           *result,
                                            int                   code,
                                            const char           *message);

/* snodo-client-input.c */
void        snodo_client_install_input_signal (GObjectClass      *klass);
JsonObject *snodo_client_dup_capabilities  (SnodoClient          *self);
void        snodo_client_handle_server_request (SnodoClient      *self,
                                            const char           *method,
                                            JsonNode             *id,
                                            JsonObject           *params);
void        snodo_client_input_required    (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params,
                                            GCancellable         *cancellable,
                                            GTask                *task,
                                            JsonObject           *result);

/* A -32042 answer (2025-11-25) to @method with @params (as sent): asks
 * the application to visit each of @elicitations, then sends the request
 * again once all are accepted; completes @task (taken). */
void        snodo_client_url_required      (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params,
                                            GCancellable         *cancellable,
                                            GTask                *task,
                                            JsonArray            *elicitations,
                                            const char           *message);

/* The method and params (%NULL for none) of @requests' input request
 * @key (2026-07-28 inputRequests); FALSE when it is not a request, with
 * *@error set unless it was already. */
gboolean    snodo_client_input_request_get (JsonObject           *requests,
                                            const char           *key,
                                            const char          **method,
                                            JsonObject          **params,
                                            GError              **error);

/* Gives @request to the application (the server-request signal); refuses
 * it when nobody takes it. */
void        snodo_client_ask               (SnodoClient          *self,
                                            SnodoServerRequest   *request);

/* snodo-client-methods.c: a GTask of the client's for a public async
 * function (@source_tag, named @name), and its result checked and taken
 * for the matching finish function. */
GTask      *snodo_client_task_new          (SnodoClient          *self,
                                            gpointer              source_tag,
                                            const char           *name,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
gpointer    snodo_client_task_finish       (SnodoClient          *self,
                                            GAsyncResult         *result,
                                            gpointer              source_tag,
                                            GError              **error);

/* snodo-client-methods.c: every page of @method, the items of @member;
 * with @uri (not %NULL) in each page's params too. */
void        snodo_client_list_async        (SnodoClient          *self,
                                            const char           *method,
                                            const char           *member,
                                            const char           *uri,
                                            gpointer              source_tag,
                                            const char           *name,
                                            GCancellable         *cancellable,
                                            GAsyncReadyCallback   callback,
                                            gpointer              user_data);
JsonArray  *snodo_client_list_finish       (SnodoClient          *self,
                                            GAsyncResult         *result,
                                            gpointer              source_tag,
                                            GError              **error);

/* snodo-client-tasks.c */
void        snodo_client_install_task_signal (GObjectClass       *klass);
/* Emits task-status for a notification of a task's status. */
void        snodo_client_task_notification (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params);
/* 2026-07-28: declares the tasks extension in @params' _meta (the
 * envelope keeps it). */
void        snodo_client_add_tasks_extension (SnodoClient        *self,
                                              JsonObject         *params);

/* snodo-server-request.c */
typedef void (*SnodoServerRequestFunc) (SnodoServerRequest *request,
                                        JsonObject         *result,
                                        int                 code,
                                        const char         *message,
                                        gpointer            user_data);

SnodoServerRequest *snodo_server_request_new (const char             *method,
                                              JsonObject             *params,
                                              SnodoServerRequestFunc  func,
                                              gpointer                user_data);

/* snodo-client-connection.c: a failure of the connection, which ends it
 * (the closed signal). */
void        snodo_client_fail              (SnodoClient          *self,
                                            const GError         *error);

/* snodo-client-http.c */
SnodoClientHttp *snodo_client_http_new     (SnodoClient          *self,
                                            GError              **error);
void        snodo_client_http_free         (SnodoClientHttp      *http);
void        snodo_client_http_set_tls_database (SnodoClient      *self);
/* POSTs @line (taken): a request (@key and @method set; @params for its
 * Mcp-Name; @stateless: the 2026-07-28 headers), a notification (@method
 * only) or a response (neither). */
void        snodo_client_http_post         (SnodoClient          *self,
                                            GBytes               *line,
                                            const char           *key,
                                            const char           *method,
                                            JsonObject           *params,
                                            gboolean              stateless);
/* 2026-07-28: learns from a page of tools/list which arguments of each
 * tool go in Mcp-Param-* headers, and leaves out (removes from @tools)
 * the tools whose marks break the rules. */
void        snodo_client_http_learn_tools  (SnodoClient          *self,
                                            JsonArray            *tools);
/* 2026-07-28: abandons the request of @key by closing its answer. */
void        snodo_client_http_abandon      (SnodoClient          *self,
                                            const char           *key);
/* The initialize era: opens the GET stream of the server's messages. */
void        snodo_client_http_listen       (SnodoClient          *self);
/* Ends every exchange. */
void        snodo_client_http_stop         (SnodoClient          *self);
/* Ends the session (DELETE) if there is one, then completes @task (taken). */
void        snodo_client_http_close        (SnodoClient          *self,
                                            GTask                *task);

/* snodo-client-listen.c: subscriptions/listen with @params (taken, the
 * envelope not added) over HTTP, sent again while its stream is lost;
 * completes @task (taken). */
void        snodo_client_listen_again      (SnodoClient          *self,
                                            JsonObject           *params,
                                            GCancellable         *cancellable,
                                            GTask                *task);

/* snodo-client-unix.c: for an http+unix:// @uri, the http:// URI to ask
 * and the socket to connect to; FALSE with @error for a bad one. */
gboolean    snodo_client_http_unix_uri     (const char           *uri,
                                            GUri                **http_uri,
                                            GSocketConnectable  **connectable,
                                            GError              **error);

/* snodo-client-sse.c */
typedef gboolean (*SnodoSseEventFunc) (const char *event,
                                       const char *data,
                                       gsize       len,
                                       const char *last_event_id,
                                       gpointer    user_data);

typedef struct
{
  GByteArray *line;
  GString *data;
  gboolean has_data;
  char *event;
  /* The stream's last event id (kept across events), or NULL. */
  char *last_event_id;
  /* The stream's retry field, or -1. */
  gint64 retry_ms;
  gsize max_bytes;
  gboolean after_cr;
  gboolean at_start;
} SnodoSseParser;

void        snodo_sse_parser_init          (SnodoSseParser       *parser,
                                            gsize                 max_bytes);
void        snodo_sse_parser_clear         (SnodoSseParser       *parser);
gboolean    snodo_sse_parser_push          (SnodoSseParser       *parser,
                                            const char           *chunk,
                                            gsize                 len,
                                            SnodoSseEventFunc     func,
                                            gpointer              user_data,
                                            GError              **error);

/* Trace context and spans (snodo-client-trace.c). */
SnodoSpan  *snodo_client_trace_request     (SnodoClient          *self,
                                            const char           *method,
                                            JsonObject           *params,
                                            gint64                id);
void        snodo_client_trace_response    (SnodoSpan            *span,
                                            JsonObject           *message,
                                            const char           *no_answer_type);
SnodoSpan  *snodo_client_trace_server_request (const char        *method,
                                               JsonObject        *params);

G_END_DECLS
