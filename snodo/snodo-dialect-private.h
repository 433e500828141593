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
  /* NULL-terminated by name. */
  const SnodoMethod    *methods;
};

const SnodoDialect *snodo_dialect_for_version (SnodoProtocolVersion  version);
const SnodoMethod  *snodo_dialect_lookup      (const SnodoDialect   *self,
                                               const char           *method);
const SnodoDialect *snodo_dialect_select      (SnodoServer          *server,
                                               SnodoConnection      *connection,
                                               SnodoFrame           *frame,
                                               GHashTable           *headers,
                                               GError              **error);

/* The methods, implemented by SnodoServer. */
void snodo_server_method_initialize (SnodoServer     *server,
                                     SnodoInvocation *invocation);
void snodo_server_method_ping       (SnodoServer     *server,
                                     SnodoInvocation *invocation);
void snodo_server_method_tools_list (SnodoServer     *server,
                                     SnodoInvocation *invocation);

G_END_DECLS
