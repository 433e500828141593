/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-invocation.h"
#include "snodo-tool.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SnodoToolFunc:
 * @invocation: (transfer full): the call to answer
 * @user_data: the data given to [method@Snodo.Server.add_tool]
 *
 * Handles one call of a tool. The handler answers by calling one of the
 * `snodo_invocation_return_*()` functions exactly once, now or later, from any
 * thread.
 *
 * Since: 1.0
 */
typedef void (*SnodoToolFunc) (SnodoInvocation *invocation,
                               gpointer         user_data);

#define SNODO_TYPE_SERVER (snodo_server_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoServer, snodo_server, SNODO, SERVER, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoServer *snodo_server_new              (const char     *name,
                                            const char     *version);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_server_get_name         (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_server_get_version      (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_server_get_title        (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_title        (SnodoServer    *self,
                                            const char     *title);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_server_get_instructions (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_instructions (SnodoServer    *self,
                                            const char     *instructions);
SNODO_AVAILABLE_IN_ALL
const char * const *snodo_server_get_protocol_versions (SnodoServer        *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_protocol_versions (SnodoServer        *self,
                                                 const char * const *versions);
SNODO_AVAILABLE_IN_ALL
guint        snodo_server_get_cache_ttl    (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_cache_ttl    (SnodoServer    *self,
                                            guint           cache_ttl);
SNODO_AVAILABLE_IN_ALL
guint        snodo_server_get_request_timeout (SnodoServer *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_request_timeout (SnodoServer *self,
                                               guint        request_timeout);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_set_request_state_secret (SnodoServer  *self,
                                                    GBytes       *secret,
                                                    GError      **error);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_notify_tools_changed     (SnodoServer  *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_notify_prompts_changed   (SnodoServer  *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_notify_resources_changed (SnodoServer  *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_notify_resource_updated  (SnodoServer  *self,
                                                    const char   *uri);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_tool         (SnodoServer    *self,
                                            SnodoTool      *tool,
                                            SnodoToolFunc   func,
                                            gpointer        user_data,
                                            GDestroyNotify  destroy,
                                            GError        **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_tool      (SnodoServer    *self,
                                            const char     *name);
SNODO_AVAILABLE_IN_ALL
SnodoTool   *snodo_server_lookup_tool      (SnodoServer    *self,
                                            const char     *name);

G_END_DECLS
