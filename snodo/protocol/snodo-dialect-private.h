/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-protocol-version.h"
#include "snodo-request-state-private.h"
#include "snodo-wire-private.h"

G_BEGIN_DECLS

/*
 * A dialect is what one protocol version means on the wire: which methods
 * exist and how results are shaped. It is a constant table, not an object;
 * the server picks one per request in snodo_dialect_select(), the one place
 * where the version is decided, from the same inputs on every transport:
 * the decoded message, its headers, the versions served and what the
 * connection settled before. The protocol layer knows no server: the
 * tables name methods by identifier, which the server maps to its handlers,
 * and the encoders are given what a result says of the server (SnodoStamp).
 */

/* The header a transport attaches once a version was negotiated; HTTP
 * requests carry it as a real header. Names in headers are lower case. */
#define SNODO_HEADER_PROTOCOL_VERSION "mcp-protocol-version"

typedef struct _SnodoDialect SnodoDialect;

/* The methods of every version, by identifier: the server serves each with
 * a handler of its own table, indexed by these. */
typedef enum
{
  SNODO_METHOD_INITIALIZE,
  SNODO_METHOD_PING,
  SNODO_METHOD_DISCOVER,
  SNODO_METHOD_LOGGING_SET_LEVEL,
  SNODO_METHOD_TOOLS_LIST,
  SNODO_METHOD_TOOLS_CALL,
  SNODO_METHOD_RESOURCES_LIST,
  SNODO_METHOD_RESOURCES_TEMPLATES_LIST,
  SNODO_METHOD_RESOURCES_READ,
  SNODO_METHOD_RESOURCES_SUBSCRIBE,
  SNODO_METHOD_RESOURCES_UNSUBSCRIBE,
  SNODO_METHOD_PROMPTS_LIST,
  SNODO_METHOD_PROMPTS_GET,
  SNODO_METHOD_COMPLETION_COMPLETE,
  SNODO_METHOD_SUBSCRIPTIONS_LISTEN,
  /* Tasks: 2025-11-25 core (get, result, list, cancel), 2026-07-28 the
   * io.modelcontextprotocol/tasks extension (get, update, cancel). */
  SNODO_METHOD_TASKS_GET,
  SNODO_METHOD_TASKS_RESULT,
  SNODO_METHOD_TASKS_LIST,
  SNODO_METHOD_TASKS_UPDATE,
  SNODO_METHOD_TASKS_CANCEL,
  SNODO_N_METHODS,
} SnodoMethodId;

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
 * exist (-32601): the server checks it against what it offers. */
typedef enum
{
  SNODO_NEEDS_NOTHING,
  SNODO_NEEDS_RESOURCES,
  SNODO_NEEDS_PROMPTS,
  SNODO_NEEDS_COMPLETIONS,
  /* The server serves tasks (snodo_server_enable_tasks()). */
  SNODO_NEEDS_TASKS,
} SnodoNeeds;

typedef struct
{
  const char       *name;
  SnodoMethodId     id;
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

/* Which era a connection speaks: decided by its first real request. Only a
 * connection that carries many requests (stdio) settles one. */
typedef enum
{
  SNODO_ERA_UNDECIDED,
  /* initialize succeeded: 2025-06-18 or 2025-11-25. */
  SNODO_ERA_LEGACY,
  /* A request with the 2026-07-28 envelope was served. */
  SNODO_ERA_MODERN,
} SnodoEra;

/* A set of protocol versions (those a server serves), as bits
 * 1 << SnodoProtocolVersion. */
static inline gboolean
snodo_protocol_versions_contain (guint                versions,
                                 SnodoProtocolVersion version)
{
  return version != SNODO_PROTOCOL_VERSION_UNKNOWN && (versions & (1u << version)) != 0;
}

/* The oldest version of the initialize era in @versions, or UNKNOWN. */
SnodoProtocolVersion snodo_protocol_versions_oldest_legacy (guint       versions);
/* The versions of the stateless era in @versions, as a JSON array: what
 * server/discover lists and -32022 names. The initialize era's versions
 * are left out, as a client would then send them in a 2026-07-28
 * envelope. */
JsonNode            *snodo_protocol_versions_dup_modern    (guint       versions);
/* The version initialize answers with: @requested when it is of the
 * initialize era and in @versions, else the latest one of that era in
 * @versions (UNKNOWN if none); the client decides whether to go on. */
SnodoProtocolVersion snodo_protocol_negotiate              (guint       versions,
                                                            const char *requested);

/* The MCP log levels (those of RFC 5424), in the order of SnodoLogLevel:
 * the level of a name, or -1; the name of a level. */
int                  snodo_log_level_from_string           (const char *string);
const char          *snodo_log_level_to_string             (guint       level);

/*
 * What a 2026-07-28 exchange says of the server that serves it: its
 * serverInfo and cache TTL, which every plain complete result ends with
 * (written once, as JSON text, when the stamp is made), and the key that
 * seals its requestState. Made by the server for what it is at the time
 * and replaced when that changes; immutable, so any thread may use it.
 */
typedef struct _SnodoStamp SnodoStamp;

SnodoStamp           *snodo_stamp_new                     (const char *name,
                                                           const char *version,
                                                           const char *title,
                                                           guint       cache_ttl,
                                                           SnodoRequestStateKey *key);
/* The same with the whole serverInfo, which it takes. */
SnodoStamp           *snodo_stamp_new_with_info           (JsonObject *info,
                                                           guint       cache_ttl,
                                                           SnodoRequestStateKey *key);
SnodoStamp           *snodo_stamp_ref                     (SnodoStamp *self);
void                  snodo_stamp_unref                   (SnodoStamp *self);
/* The key, or NULL when the server has none. */
SnodoRequestStateKey *snodo_stamp_get_request_state_key   (SnodoStamp *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoStamp, snodo_stamp_unref)

/* An Implementation object (serverInfo): name, version and title when not
 * NULL. */
JsonObject           *snodo_implementation_new            (const char *name,
                                                           const char *version,
                                                           const char *title);

/*
 * The `_meta` of a request's params. The transports decode every message
 * with snodo_dialect_decode(), which leaves `_meta` as text when it is an
 * object (a null node holds its place in params), and the protocol reads
 * from that text the few members it needs: a 2026-07-28 envelope is read on
 * every request and rarely looked at whole. A handler that asks for params
 * gets `_meta` built then (snodo_request_meta_parse()).
 */
#define SNODO_META "_meta"

typedef struct
{
  /* The JSON text of params._meta when it is an object, else NULL. Owned. */
  char       *text;
  gsize       len;
  /* text was cut out of params at decoding: a null node holds its place. */
  gboolean    deferred;
  /* The JSON text of these members' values, within text; NULL when
   * absent (the last one of a name, as in a tree). */
  const char *version;
  gsize       version_len;
  const char *capabilities;
  gsize       capabilities_len;
  const char *log_level;
  gsize       log_level_len;
  const char *progress_token;
  gsize       progress_token_len;
  /* W3C trace context: the text of the strings, without quotes, when
   * they are strings without escapes; else NULL. */
  const char *traceparent;
  gsize       traceparent_len;
  const char *tracestate;
  gsize       tracestate_len;
} SnodoRequestMeta;

/* snodo_frame_decode_deferring() with `_meta` deferred. */
void         snodo_dialect_decode                  (const char             *data,
                                                    gsize                   len,
                                                    SnodoFrame             *frame);
/* snodo_frame_decode_lazy() with `_meta` deferred: params is built when
 * someone asks for it whole (snodo_frame_get_params()). */
void         snodo_dialect_decode_lazy             (const char             *data,
                                                    gsize                   len,
                                                    SnodoFrame             *frame);
/* One of the two above (@lazy: the second) of a text the caller owns and
 * has no further use for: written over while it is read
 * (snodo_frame_decode_in_place()). */
void         snodo_dialect_decode_in_place         (char                   *data,
                                                    gsize                   len,
                                                    gboolean                lazy,
                                                    SnodoFrame             *frame);
/* Reads the _meta of @frame's params: takes frame->deferred, or writes the
 * text of a _meta object the frame built. */
void         snodo_request_meta_init               (SnodoRequestMeta       *meta,
                                                    SnodoFrame             *frame);
void         snodo_request_meta_clear              (SnodoRequestMeta       *meta);
/* Moves @src to @dest (cleared before), leaving @src empty. */
void         snodo_request_meta_move               (SnodoRequestMeta       *dest,
                                                    SnodoRequestMeta       *src);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SnodoRequestMeta, snodo_request_meta_clear)

/* Whether it is a 2026-07-28 envelope: it has the protocol version key. */
gboolean     snodo_request_meta_is_envelope        (const SnodoRequestMeta *meta);
/* The level of the logLevel member, or -1 when it is absent or not a
 * level. */
int          snodo_request_meta_get_log_level      (const SnodoRequestMeta *meta);
/* progressToken when it is a string or an integer, else NULL. */
JsonNode    *snodo_request_meta_dup_progress_token (const SnodoRequestMeta *meta);
/* The client capabilities object, or NULL when it is absent or not an
 * object; newly built. */
JsonObject  *snodo_request_meta_dup_capabilities   (const SnodoRequestMeta *meta);
/* The whole _meta object, newly built: what params held before decoding
 * left it out. */
JsonNode    *snodo_request_meta_parse              (const SnodoRequestMeta *meta);
/* Whether @frame's request carries a 2026-07-28 envelope, without taking
 * anything from it. */
gboolean     snodo_dialect_has_envelope            (SnodoFrame             *frame);

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
/* The method of this version named @method, or NULL; whether the server
 * offers what it needs is the server's to check. */
const SnodoMethod  *snodo_dialect_lookup          (const SnodoDialect   *self,
                                                   const char           *method);
/* Decides the dialect of a request (see snodo-dialect.c) from @frame and
 * its @meta, the value of its SNODO_HEADER_PROTOCOL_VERSION header or NULL, the versions
 * served, and what its connection settled: @era (UNDECIDED for a
 * connection of one request) and, in the initialize era, @legacy_version.
 * Settling the era after the request is the server's. */
gboolean            snodo_dialect_select          (SnodoFrame           *frame,
                                                   const SnodoRequestMeta *meta,
                                                   const char           *header,
                                                   guint                 versions,
                                                   SnodoEra              era,
                                                   SnodoProtocolVersion  legacy_version,
                                                   SnodoSelection       *selection);

/* Encodes the answer to a request of @method in this dialect's shape;
 * @stamp may be NULL unless the dialect is stateless. */
GBytes             *snodo_dialect_encode_result   (const SnodoDialect   *self,
                                                   const SnodoMethod    *method,
                                                   SnodoStamp           *stamp,
                                                   JsonNode             *id,
                                                   JsonNode             *result);
/* The same for a CallToolResult of one text block (isError when
 * @is_error), written without building it. */
GBytes             *snodo_dialect_encode_text_result (const SnodoDialect *self,
                                                      const SnodoMethod  *method,
                                                      SnodoStamp         *stamp,
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

G_END_DECLS
