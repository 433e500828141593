/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-connection-private.h"
#include "snodo-frame-private.h"
#include "snodo-invocation.h"
#include "snodo-protocol-version.h"
#include "snodo-server.h"

G_BEGIN_DECLS

/*
 * A dialect is what one protocol version means on the wire: which methods
 * exist and how results are shaped. It is a constant table, not an object;
 * SnodoServer picks one per request in snodo_dialect_select(), the one place
 * where the version is decided, from the same inputs on every transport:
 * the decoded message and its headers.
 */

typedef struct _SnodoDialect SnodoDialect;

/* Serves one request; runs as work admitted by the executor. It answers
 * through the invocation, now or later. */
typedef void (*SnodoMethodFunc) (SnodoServer     *server,
                                 SnodoInvocation *invocation);

typedef enum
{
  SNODO_METHOD_FLAGS_NONE = 0,
  /* tools/call: the tool's handler is the method, and decides the kind of
   * work (it may run on a worker thread). */
  SNODO_METHOD_FLAGS_TOOL_CALL = 1 << 0,
  /* The result may be cached (2026-07-28: ttlMs and cacheScope). */
  SNODO_METHOD_FLAGS_CACHEABLE = 1 << 1,
  /* The method may answer input_required (2026-07-28). */
  SNODO_METHOD_FLAGS_INPUT = 1 << 2,
  /* An application's handler answers (the server's handler-timeout
   * applies); tools/call decides by its tool. */
  SNODO_METHOD_FLAGS_HANDLER = 1 << 3,
} SnodoMethodFlags;

/* The server capability a method needs; without it the method does not
 * exist (-32601). */
typedef enum
{
  SNODO_NEEDS_NOTHING,
  SNODO_NEEDS_RESOURCES,
  SNODO_NEEDS_PROMPTS,
  SNODO_NEEDS_COMPLETIONS,
} SnodoNeeds;

typedef struct
{
  const char       *name;
  /* NULL for SNODO_METHOD_FLAGS_TOOL_CALL. */
  SnodoMethodFunc   func;
  SnodoMethodFlags  flags;
  SnodoNeeds        needs;
} SnodoMethod;

struct _SnodoDialect
{
  SnodoProtocolVersion  version;
  /* 2026-07-28: every request carries its own envelope; results carry
   * resultType and serverInfo. */
  gboolean              stateless;
  /* NULL-terminated by name. */
  const SnodoMethod    *methods;
};

/* What snodo_dialect_select() decided. On failure, the error to answer
 * with (data may be NULL). */
typedef struct
{
  const SnodoDialect *dialect;
  int                 error_code;
  char               *error_message;
  JsonNode           *error_data;
} SnodoSelection;

void                snodo_selection_clear         (SnodoSelection       *selection);

const SnodoDialect *snodo_dialect_for_version     (SnodoProtocolVersion  version);
const SnodoMethod  *snodo_dialect_lookup          (const SnodoDialect   *self,
                                                   SnodoServer          *server,
                                                   const char           *method);
gboolean            snodo_dialect_select          (SnodoServer          *server,
                                                   SnodoConnection      *connection,
                                                   SnodoFrame           *frame,
                                                   GHashTable           *headers,
                                                   SnodoSelection       *selection);

/* The envelope of a 2026-07-28 request: params._meta, when it claims the
 * modern protocol (has the protocol version key); else NULL. */
JsonObject         *snodo_dialect_get_envelope    (JsonObject           *params);

/* Encodes the answer to a request in this dialect's shape. */
GBytes             *snodo_dialect_encode_result   (const SnodoDialect   *self,
                                                   SnodoServer          *server,
                                                   const SnodoMethod    *method,
                                                   JsonNode             *id,
                                                   JsonNode             *result);
/* The same for a CallToolResult of one text block (isError when
 * @is_error), written without building it. */
GBytes             *snodo_dialect_encode_text_result (const SnodoDialect *self,
                                                      SnodoServer        *server,
                                                      const SnodoMethod  *method,
                                                      JsonNode           *id,
                                                      const char         *text,
                                                      gboolean            is_error);
/* A CallToolResult of one text block (isError when @is_error), as a tree,
 * and the line snodo_frame_encode_result_tail() writes for it with @tail
 * (or snodo_frame_encode_result() with @tail NULL), without the tree. */
JsonNode           *snodo_text_result_new         (const char           *text,
                                                   gboolean              is_error);
GBytes             *snodo_text_result_encode      (JsonNode             *id,
                                                   const char           *text,
                                                   gboolean              is_error,
                                                   const char           *tail);
GBytes             *snodo_dialect_encode_error    (const SnodoDialect   *self,
                                                   JsonNode             *id,
                                                   int                   code,
                                                   const char           *message,
                                                   JsonNode             *data);

/* What one connection (a stdio connection, an HTTP session, a listen
 * request) may subscribe to: so many resource URIs, each at most so long. */
#define SNODO_MAX_RESOURCE_SUBSCRIPTIONS 1000
#define SNODO_MAX_SUBSCRIBED_URI_BYTES   8192

#define SNODO_META_PROTOCOL_VERSION     "io.modelcontextprotocol/protocolVersion"
#define SNODO_META_CLIENT_CAPABILITIES  "io.modelcontextprotocol/clientCapabilities"
#define SNODO_META_CLIENT_INFO          "io.modelcontextprotocol/clientInfo"
#define SNODO_META_LOG_LEVEL            "io.modelcontextprotocol/logLevel"
#define SNODO_META_SERVER_INFO          "io.modelcontextprotocol/serverInfo"
#define SNODO_META_SUBSCRIPTION_ID      "io.modelcontextprotocol/subscriptionId"

/* The methods, implemented by SnodoServer. */
void snodo_server_method_initialize          (SnodoServer     *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_ping                (SnodoServer     *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_discover            (SnodoServer     *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_logging_set_level   (SnodoServer     *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_tools_list          (SnodoServer     *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_resources_subscribe (SnodoServer     *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_resources_unsubscribe (SnodoServer   *server,
                                              SnodoInvocation *invocation);
void snodo_server_method_subscriptions_listen (SnodoServer    *server,
                                              SnodoInvocation *invocation);

G_END_DECLS
