/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy --serve: what snodo-proxy-serve.c (the backends, serving
 * and the end) and snodo-proxy-serve-items.c (the calls and the front
 * catalog) share. */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <snodo/snodo.h>

G_BEGIN_DECLS

typedef struct _Serve Serve;

typedef enum
{
  BACKEND_STARTING,
  BACKEND_LISTING,
  BACKEND_READY,
  BACKEND_FAILED,
  BACKEND_CLOSED,
} BackendState;

typedef enum
{
  KIND_TOOLS,
  KIND_PROMPTS,
  KIND_RESOURCES,
  KIND_TEMPLATES,
  N_KINDS
} Kind;

typedef struct
{
  Serve *serve;
  char *name;
  char *uri;
  GStrv argv;
  SnodoClient *client;
  BackendState state;
  /* The lists still being asked for (BACKEND_LISTING). */
  guint listing;
  /* What the backend listed, by front name (tools, prompts) or URI
   * (resources, templates): the descriptions as it gave them, JsonNode.
   * Only those in the front catalog. */
  GHashTable *items[N_KINDS];
  /* A list asked for again while it was being listed. */
  gboolean relist[N_KINDS];
  gboolean listing_kind[N_KINDS];
  /* The calls in flight, by key: Call. */
  GHashTable *calls;
  /* What it listed last, for each kind (JsonArray, NULL for nothing). */
  JsonArray *listed[N_KINDS];
  /* The URIs it has that another backend has too, said once. */
  GHashTable *shadowed;
  /* Subscribed resources, so as not to subscribe twice, and to subscribe
   * again when it is started again. */
  GHashTable *subscribed;
  /* The version asked for. */
  SnodoProtocolVersion version;
  /* Restarts in a row, the one waiting, and since when it serves. */
  guint restarts;
  guint restart_id;
  gint64 ready_since;
} Backend;

struct _Serve
{
  GApplication *app;
  GVariantDict *options;
  GPtrArray *backends;
  SnodoServer *server;
  SnodoStdioTransport *transport;
  guint startup_id;
  guint64 next_call;
  /* Backends still to close at the end. */
  guint closing;
  gboolean ended;
  gboolean released;
  int status;
};

typedef struct
{
  Backend *backend;
  char *name;
} Item;

typedef struct
{
  Backend *backend;
  SnodoInvocation *invocation;
  char *key;
  char *method;
  GCancellable *cancellable;
  gulong cancelled_id;
  guint questions;
  gint64 started;
} Call;

typedef struct
{
  Backend *backend;
  SnodoServerRequest *request;
} Question;

/* snodo-proxy-serve.c */
void        serve_backend_fail         (Backend             *backend,
                                        const GError        *error);

/* snodo-proxy-serve-items.c */
const char *serve_string_member        (JsonObject          *object,
                                        const char          *name);
JsonNode   *serve_member               (JsonObject          *object,
                                        const char          *name);
void        serve_report               (Serve               *serve,
                                        SnodoLogLevel        level,
                                        const char          *name,
                                        const char          *text);
void        call_free                  (Call                *call);
void        serve_complete_cb          (SnodoInvocation     *invocation,
                                        gpointer             user_data);
void        serve_subscribe_middleware (SnodoInvocation     *invocation,
                                        SnodoMiddlewareNext *next,
                                        gpointer             user_data);
/* @backend lists @items (NULL: nothing, it failed) for @kind: the front
 * catalog is made to hold what the backends list. */
void        serve_backend_sync         (Backend             *backend,
                                        Kind                 kind,
                                        JsonArray           *items);

G_END_DECLS
