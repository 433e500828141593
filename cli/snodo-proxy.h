/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy: what snodo-proxy.c (the forwarding) and snodo-proxy-eras.c
 * (the mapping between eras) share. */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <snodo/snodo.h>

G_BEGIN_DECLS

/* The longest line of the local client that is read: the library's
 * default for a server's line. */
#define PROXY_MAX_LINE_BYTES 2000000
#define PROXY_READ_SIZE 65536

/* The envelope key that marks a 2026-07-28 request. */
#define PROXY_VERSION_KEY "io.modelcontextprotocol/protocolVersion"
#define PROXY_CAPABILITIES_KEY "io.modelcontextprotocol/clientCapabilities"
#define SUBSCRIPTION_KEY "io.modelcontextprotocol/subscriptionId"

typedef enum
{
  /* No remote connection yet: the first message decides its era. */
  PROXY_NEW,
  PROXY_CONNECTING,
  PROXY_READY,
  /* The remote connection ended or could not be made. */
  PROXY_GONE,
} ProxyState;

typedef struct
{
  GApplication *app;
  /* How to reach the remote server: a URL, or a command. Owned. */
  char *uri;
  GStrv argv;
  /* Applied to each client made (headers, TLS, timeout). Owned. */
  GVariantDict *options;
  SnodoClient *client;
  ProxyState state;
  /* Why the remote connection is gone (PROXY_GONE). Owned. */
  GError *gone;

  GInputStream *input;
  /* What has been read of the line being read (at most
   * PROXY_MAX_LINE_BYTES), and whether the rest of a line too long is
   * being dropped. Owned. */
  GByteArray *pending;
  gboolean dropping;
  GOutputStream *output;
  /* Lines waiting for the writer (GBytes), one write at a time. */
  GQueue out;
  gboolean writing;
  /* Writing to the local client failed: nothing more is written. */
  gboolean output_failed;

  /* The local client's messages received while connecting (JsonNode). */
  GQueue waiting;
  /* The id of the local client's initialize, answered once connected. */
  JsonNode *initialize_id;
  /* The local client's requests in flight: id key -> Forward. */
  GHashTable *forwards;
  /* The server's requests asked of the local client: id key ->
   * SnodoServerRequest (a reference). */
  GHashTable *asks;
  gint64 next_ask;

  /* The era of each side. When the server does not speak the local
   * client's, the other side speaks the server's and the proxy maps
   * between them (see "Between eras"). */
  gboolean local_modern;
  SnodoProtocolVersion local_version;
  JsonObject *local_capabilities;
  gboolean retried;
  gboolean mapped;
  /* Mapped, an initialize-era client: the proxy's own subscription to the
   * server's list changes, which that client gets unasked. */
  GCancellable *listen_cancellable;
  /* Mapped, a 2026-07-28 client: its subscriptions/listen requests, each
   * answered only at its end: id key -> Listen. */
  GHashTable *listens;

  /* Serving over HTTP (snodo-proxy-http.c): where the messages for the
   * local client go instead of standard output (@message taken), what is
   * done at the end instead of releasing the application, and for whom. */
  void (*sink) (gpointer    front,
                JsonObject *message);
  void (*released_func) (gpointer front);
  gpointer front;

  /* Standard input ended: no more reading; finish once all is answered. */
  gboolean eof;
  gboolean finishing;
  gboolean released;
  int status;
} Proxy;

typedef struct
{
  Proxy *proxy;
  char *key;
  JsonNode *id;
  char *method;
  GCancellable *cancellable;
} Forward;

typedef struct
{
  JsonNode *id;
  gboolean tools;
  gboolean prompts;
  gboolean resources;
  GStrv uris;
} Listen;

/* snodo-proxy.c */
char       *proxy_id_key       (JsonNode   *id);
JsonObject *object_member      (JsonObject *object,
                                const char *name);
const char *string_member      (JsonObject *object,
                                const char *name);
JsonObject *message_new        (JsonNode   *id);
/* Sends @message (taken) to the local client, as one line. */
void        proxy_send         (Proxy      *proxy,
                                JsonObject *message);
void        proxy_send_error   (Proxy      *proxy,
                                JsonNode   *id,
                                int         code,
                                const char *text,
                                JsonObject *data);
void        proxy_maybe_finish (Proxy      *proxy);
void        proxy_dispatch     (Proxy      *proxy,
                                JsonNode   *node);
void        proxy_free         (Proxy      *proxy);
void        forward_free       (Forward    *forward);

/* snodo-proxy-http.c */
int         snodo_cli_proxy_http (GApplication *app,
                                  GVariantDict *options,
                                  char        **argv);
void        snodo_cli_proxy_http_clear (void);
Forward    *proxy_forward_new  (Proxy      *proxy,
                                JsonNode   *id,
                                const char *method);
void        proxy_forwarded_cb (GObject      *source,
                                GAsyncResult *result,
                                gpointer      user_data);

/* snodo-proxy-eras.c */
void        listen_free                (Listen     *listen);
void        proxy_mapped_start         (Proxy      *proxy);
void        proxy_mapped_finish        (Proxy      *proxy);
gboolean    proxy_mapped_notification  (Proxy      *proxy,
                                        const char *method,
                                        JsonObject *params);
void        proxy_mapped_answer        (Proxy      *proxy,
                                        Forward    *forward,
                                        JsonObject *message);
void        proxy_mapped_request       (Proxy      *proxy,
                                        JsonNode   *id,
                                        const char *method,
                                        JsonObject *params);

G_END_DECLS
