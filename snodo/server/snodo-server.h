/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-bus.h"
#include "snodo-answer.h"
#include "snodo-invocation.h"
#include "snodo-skill.h"
#include "snodo-middleware-next.h"
#include "snodo-task-store.h"
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
 * Since: 0.1
 */
typedef void (*SnodoToolFunc) (SnodoInvocation *invocation,
                               gpointer         user_data);

#define SNODO_TYPE_SERVER (snodo_server_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoServer, snodo_server, SNODO, SERVER, GObject)

/**
 * SnodoNotificationFunc:
 * @server: the server
 * @method: the notification's method
 * @params: (transfer none): its params (an empty object when it had none)
 * @user_data: the data given to [method@Snodo.Server.add_notification_handler]
 *
 * Handles a notification of a method of the application's own.
 */
typedef void (*SnodoNotificationFunc) (SnodoServer *server,
                                       const char  *method,
                                       JsonObject  *params,
                                       gpointer     user_data);

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
void         snodo_server_set_cache_hint   (SnodoServer    *self,
                                            const char     *method,
                                            int             ttl_ms,
                                            SnodoCacheScope scope);
SNODO_AVAILABLE_IN_ALL
guint        snodo_server_get_request_timeout (SnodoServer *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_request_timeout (SnodoServer *self,
                                               guint        request_timeout);
SNODO_AVAILABLE_IN_ALL
guint        snodo_server_get_handler_timeout (SnodoServer *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_handler_timeout (SnodoServer *self,
                                               guint        handler_timeout);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_set_request_state_secret (SnodoServer  *self,
                                                    GBytes       *secret,
                                                    GError      **error);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_bus                  (SnodoServer  *self,
                                                    SnodoBus     *bus);
SNODO_AVAILABLE_IN_ALL
SnodoBus    *snodo_server_get_bus                  (SnodoServer  *self);
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
gboolean     snodo_server_log                      (SnodoServer   *self,
                                                    SnodoLogLevel  level,
                                                    const char    *logger,
                                                    JsonNode      *data);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_method       (SnodoServer    *self,
                                            const char     *method,
                                            JsonNode       *params_schema,
                                            SnodoToolFunc   func,
                                            gpointer        user_data,
                                            GDestroyNotify  destroy,
                                            GError        **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_notification_handler (SnodoServer           *self,
                                                    const char            *method,
                                                    JsonNode              *params_schema,
                                                    SnodoNotificationFunc  func,
                                                    gpointer               user_data,
                                                    GDestroyNotify         destroy,
                                                    GError               **error);
/**
 * SnodoForwardFunc:
 * @invocation: (transfer full): the request to answer
 * @user_data: the data given to [method@Snodo.Server.set_forward_func]
 *
 * Answers any request of a forwarding server: see
 * [method@Snodo.Server.set_forward_func]. The request's method is
 * [method@Snodo.Invocation.get_method], its params as the client sent them
 * (the 2026-07-28 `_meta` envelope included)
 * [method@Snodo.Invocation.get_params]; it is answered with
 * [method@Snodo.Invocation.return_forwarded] or another
 * `snodo_invocation_return_*()` function, exactly once, now or later. It
 * is called on the server's main context.
 *
 * Since: 0.1
 */
typedef void (*SnodoForwardFunc) (SnodoInvocation *invocation,
                                  gpointer         user_data);

SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_forward_func (SnodoServer      *self,
                                            SnodoForwardFunc  func,
                                            gpointer          user_data,
                                            GDestroyNotify    destroy);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_server_get_description  (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_description  (SnodoServer    *self,
                                            const char     *description);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_server_get_website_url  (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_website_url  (SnodoServer    *self,
                                            const char     *website_url);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_server_get_icons        (SnodoServer    *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_icons        (SnodoServer    *self,
                                            JsonNode       *icons);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_server_dup_server_json  (SnodoServer    *self,
                                            const char     *registry_name,
                                            GError        **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_tool         (SnodoServer    *self,
                                            SnodoTool      *tool,
                                            SnodoToolFunc   func,
                                            gpointer        user_data,
                                            GDestroyNotify  destroy,
                                            GError        **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_tool_from_string (SnodoServer    *self,
                                                const char     *name,
                                                const char     *description,
                                                const char     *input_schema,
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

/**
 * SnodoResourceFunc:
 * @invocation: (transfer full): the read to answer
 * @user_data: the data given to [method@Snodo.Server.add_resource] or
 *   [method@Snodo.Server.add_resource_template]
 *
 * Reads a resource: answers a `resources/read` request, whose URI is
 * [method@Snodo.Invocation.get_uri] (and, for a template, whose variables
 * are [method@Snodo.Invocation.get_variables]), with
 * [method@Snodo.Invocation.return_resource_text],
 * [method@Snodo.Invocation.return_resource_blob],
 * [method@Snodo.Invocation.return_resource_not_found] or another
 * `snodo_invocation_return_*()` function, exactly once, now or later, from any
 * thread. It is called on the server's main context.
 *
 * Since: 0.1
 */
typedef void (*SnodoResourceFunc) (SnodoInvocation *invocation,
                                   gpointer         user_data);

/**
 * SnodoPromptFunc:
 * @invocation: (transfer full): the request to answer
 * @user_data: the data given to [method@Snodo.Server.add_prompt]
 *
 * Fills in a prompt: answers a `prompts/get` request, whose arguments (a
 * JSON object of strings, every required one present) are
 * [method@Snodo.Invocation.get_arguments], with
 * [method@Snodo.Invocation.return_prompt] or another
 * `snodo_invocation_return_*()` function, exactly once, now or later, from any
 * thread. It is called on the server's main context.
 *
 * Since: 0.1
 */
typedef void (*SnodoPromptFunc) (SnodoInvocation *invocation,
                                 gpointer         user_data);

/**
 * SnodoCompletionFunc:
 * @invocation: (transfer full): the request to answer
 * @user_data: the data given to [method@Snodo.Server.set_completion_func]
 *
 * Suggests values for an argument: answers a `completion/complete` request
 * with [method@Snodo.Invocation.return_completion] (an empty list when it
 * has nothing to suggest), exactly once, now or later, from any thread. The
 * request's `params` ([method@Snodo.Invocation.get_params]) hold `ref` (a
 * prompt, `{"type": "ref/prompt", "name": …}`, or a resource template,
 * `{"type": "ref/resource", "uri": …}`) and `argument` (`{"name": …,
 * "value": …}`, the text typed so far); the values of the other arguments,
 * when the client gives them, are [method@Snodo.Invocation.get_arguments].
 * It is called on the server's main context.
 *
 * Since: 0.1
 */
typedef void (*SnodoCompletionFunc) (SnodoInvocation *invocation,
                                     gpointer         user_data);

SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_resource               (SnodoServer            *self,
                                                      SnodoResource          *resource,
                                                      SnodoResourceFunc       func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy,
                                                      GError                **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_resource            (SnodoServer            *self,
                                                      const char             *uri);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_resource_template      (SnodoServer            *self,
                                                      SnodoResourceTemplate  *resource_template,
                                                      SnodoResourceFunc       func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy,
                                                      GError                **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_resource_template   (SnodoServer            *self,
                                                      const char             *uri_template);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_prompt                 (SnodoServer            *self,
                                                      SnodoPrompt            *prompt,
                                                      SnodoPromptFunc         func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy,
                                                      GError                **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_prompt              (SnodoServer            *self,
                                                      const char             *name);
SNODO_AVAILABLE_IN_ALL
void         snodo_server_set_completion_func        (SnodoServer            *self,
                                                      SnodoCompletionFunc     func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy);

SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_extension              (SnodoServer            *self,
                                                      const char             *name,
                                                      JsonNode               *settings,
                                                      GError                **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_extension           (SnodoServer            *self,
                                                      const char             *name);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_server_get_extension              (SnodoServer            *self,
                                                      const char             *name);

/**
 * SNODO_APP_EXTENSION:
 *
 * The identifier of the MCP Apps extension, `io.modelcontextprotocol/ui`,
 * which [method@Snodo.Server.add_app] advertises.
 *
 * Since: 0.1
 */
#define SNODO_APP_EXTENSION "io.modelcontextprotocol/ui"

/**
 * SNODO_APP_MIME_TYPE:
 *
 * The MIME type of the view of an MCP App, `text/html;profile=mcp-app`,
 * which [method@Snodo.Server.add_app] gives its resource.
 *
 * Since: 0.1
 */
#define SNODO_APP_MIME_TYPE "text/html;profile=mcp-app"

SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_skill                  (SnodoServer            *self,
                                                      SnodoSkill             *skill,
                                                      GError                **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_skill               (SnodoServer            *self,
                                                      const char             *uri);
SNODO_AVAILABLE_IN_ALL
SnodoSkill  *snodo_server_lookup_skill               (SnodoServer            *self,
                                                      const char             *uri);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_skills_directory       (SnodoServer            *self,
                                                      GFile                  *directory,
                                                      const char             *prefix,
                                                      GError                **error);

SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_add_app                    (SnodoServer            *self,
                                                      SnodoTool              *tool,
                                                      SnodoResource          *resource,
                                                      const char             *html,
                                                      JsonNode               *ui,
                                                      GError                **error);


/**
 * SnodoRequestHookFunc:
 * @invocation: (transfer none): the request, before it is admitted
 * @user_data: the data given to [method@Snodo.Server.add_request_hook]
 *
 * Sees one request before it is admitted, on the server's context (see
 * [method@Snodo.Server.add_request_hook]). The hook may read what the
 * invocation says of the request (its method, the tool's name, its params,
 * the protocol version), attach data with
 * [method@Snodo.Invocation.set_annotation], or refuse it with
 * [method@Snodo.Invocation.reject]. It must not answer it, keep it or block.
 *
 * Since: 0.1
 */
typedef void (*SnodoRequestHookFunc) (SnodoInvocation *invocation,
                                      gpointer         user_data);

/**
 * SnodoAnswerHookFunc:
 * @invocation: (transfer none): the request answered
 * @answer: (transfer none): the JSON-RPC answer about to be written, an
 *   object with `result` or `error`; sealed
 * @user_data: the data given to [method@Snodo.Server.add_answer_hook]
 *
 * Sees one answer before it is written, on the server's context (see
 * [method@Snodo.Server.add_answer_hook]). It must not keep @invocation or
 * block.
 *
 * Since: 0.1
 */
typedef void (*SnodoAnswerHookFunc) (SnodoInvocation *invocation,
                                     JsonNode        *answer,
                                     gpointer         user_data);

/**
 * SnodoAnswerViewHookFunc:
 * @invocation: (transfer none): the request answered
 * @answer: (transfer none): the JSON-RPC answer about to be written
 * @user_data: the data given to [method@Snodo.Server.add_answer_view_hook]
 *
 * Sees one answer before it is written, on the server's context (see
 * [method@Snodo.Server.add_answer_view_hook]). It must not keep
 * @invocation or block; it may keep @answer.
 *
 * Since: 0.1
 */
typedef void (*SnodoAnswerViewHookFunc) (SnodoInvocation *invocation,
                                         SnodoAnswer     *answer,
                                         gpointer         user_data);

SNODO_AVAILABLE_IN_ALL
guint        snodo_server_add_request_hook           (SnodoServer            *self,
                                                      SnodoRequestHookFunc    func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy);
SNODO_AVAILABLE_IN_ALL
guint        snodo_server_add_answer_hook            (SnodoServer            *self,
                                                      SnodoAnswerHookFunc     func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy);
SNODO_AVAILABLE_IN_ALL
guint        snodo_server_add_answer_view_hook       (SnodoServer            *self,
                                                      SnodoAnswerViewHookFunc func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy);
/**
 * SnodoMiddlewareFunc:
 * @invocation: (transfer full): the request, admitted, to answer or pass on
 * @next: (transfer none): what comes after the middleware: the next
 *   middleware, or the handler
 * @user_data: the data given to [method@Snodo.Server.add_middleware]
 *
 * Runs around the handler of a request (see
 * [method@Snodo.Server.add_middleware]): answers it, or passes it on with
 * [method@Snodo.MiddlewareNext.call], now or later.
 *
 * Since: 0.1
 */
typedef void (*SnodoMiddlewareFunc) (SnodoInvocation     *invocation,
                                     SnodoMiddlewareNext *next,
                                     gpointer             user_data);

SNODO_AVAILABLE_IN_ALL
guint        snodo_server_add_middleware             (SnodoServer            *self,
                                                      const char             *method,
                                                      SnodoMiddlewareFunc     func,
                                                      gpointer                user_data,
                                                      GDestroyNotify          destroy);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_remove_hook                (SnodoServer            *self,
                                                      guint                   id);

SNODO_AVAILABLE_IN_ALL
gboolean     snodo_server_enable_tasks               (SnodoServer            *self,
                                                      SnodoTaskStore         *store,
                                                      GError                **error);

G_END_DECLS
