/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-bus.h"
#include "snodo-server.h"
#include "snodo-server-private.h"
#include "snodo-tool.h"

G_BEGIN_DECLS

/*
 * Inside the server folder: what the files of SnodoServer (see the top of
 * snodo-server.c) ask of the object that snodo-server.c keeps.
 */

/* The server's serverInfo (an Implementation object), new. */
JsonObject   *snodo_server_dup_info              (SnodoServer *self);
/* The versions served, as a set (see snodo_protocol_versions_contain()). */
guint         snodo_server_get_enabled_versions  (SnodoServer *self);
/* The tools, in the order they were added: tools/list is deterministic. */
guint         snodo_server_get_n_tools           (SnodoServer *self);
SnodoTool    *snodo_server_get_nth_tool          (SnodoServer *self,
                                                  guint        i);
/* The server's catalog, snodo_server_get_catalog(), is in
 * snodo-server-methods.h with the methods that use it most. */
/* The connections being served (SnodoConnection), on the main context. */
GPtrArray    *snodo_server_get_connections       (SnodoServer *self);

/* Whether a connection that keeps @n_kept resource subscriptions may
 * subscribe to @uri too (snodo-server-sessions.c): NULL if so, else why
 * not. */
char         *snodo_server_subscription_refusal  (const char  *uri,
                                                  guint        n_kept,
                                                  gboolean     kept);

/* Hooks (snodo-server-hooks.c), in the order they were installed; NULL
 * when there are none, so that a server without hooks tests one pointer per
 * request. Replaced, never changed, so that a hook may remove hooks while
 * they run; touched on the server's context only, except that answers on
 * other threads read whether answer is NULL (atomic). */
typedef struct
{
  GPtrArray *request;
  GPtrArray *answer;
  /* Middlewares (snodo-server-middleware.c), outermost first. */
  GPtrArray *middleware;
  guint      last_id;
} SnodoServerHooks;

/* One installed hook or middleware; shared by the arrays that hold it
 * (GRcBox), and freed (its user data released) once the last has let
 * go. */
typedef struct
{
  guint          id;
  gpointer       func;
  gpointer       user_data;
  GDestroyNotify destroy;
  /* An answer hook given a SnodoAnswer rather than a tree. */
  gboolean       view;
  /* A middleware (counted in snodo_server_middlewares while it lives),
   * and its method, or NULL for all. */
  gboolean       middleware;
  char          *method;
} SnodoServerHook;

void          snodo_server_hook_unref            (SnodoServerHook  *hook);
/* Whether @func is native code, which may run on a worker thread, rather
 * than a closure of a language binding (snodo-server-native.c). */
gboolean      snodo_server_handler_is_native     (SnodoToolFunc    func);
/* Frees what the server's hooks hold. */
void          snodo_server_hooks_clear           (SnodoServerHooks *hooks);
/* Installs @hook at the end of *@hooks (taking it) and gives it an id. */
guint         snodo_server_hooks_add             (SnodoServer      *self,
                                                  GPtrArray       **hooks,
                                                  SnodoServerHook  *hook);
/* How many middlewares are installed in the process, on any server: a
 * request tests this before it looks for its server's. */
extern gint   snodo_server_middlewares;
/* Runs @invocation through the middlewares that apply to its method, then
 * @handler (snodo-server-middleware.c); without any, @handler alone. The
 * middlewares run on the connection's context, each in a turn of its own,
 * @handler in a thread of its own when @in_thread. */
void          snodo_server_run_middleware        (SnodoServer     *self,
                                                  SnodoInvocation *invocation,
                                                  gboolean         in_thread,
                                                  void           (*handler) (gpointer         data,
                                                                             SnodoInvocation *invocation),
                                                  gpointer         data,
                                                  gpointer       (*data_ref) (gpointer data),
                                                  GDestroyNotify   data_unref);

/* The server's hooks (snodo-server.c). */
SnodoServerHooks *snodo_server_get_hooks         (SnodoServer     *self);
/* The request hooks see @invocation in turn, until one refuses it: TRUE
 * if it was refused (and answered). */
gboolean      snodo_server_run_request_hooks     (SnodoServer     *self,
                                                  SnodoInvocation *invocation);
/* Whether any answer hook is installed (from any thread), and the answer
 * hooks run on @line, on the server's context. */
gboolean      snodo_server_has_answer_hooks      (SnodoServer     *self);
void          snodo_server_run_answer_hooks      (SnodoServer     *self,
                                                  SnodoInvocation *invocation,
                                                  GBytes          *line);

/* The server's bus (snodo-server-bus.c): NULL, or the bus and the
 * handler of its ::message. On the server's context. */
typedef struct
{
  SnodoBus *bus;
  gulong    handler;
} SnodoServerBus;

/* What serverInfo says of the server beyond name, version and title
 * (snodo-server-custom.c). On the server's context. */
typedef struct
{
  char     *description;
  char     *website_url;
  /* An array of Icon objects, or NULL. Sealed. */
  JsonNode *icons;
} SnodoServerIdentity;

SnodoServerIdentity *snodo_server_get_identity   (SnodoServer         *self);
void          snodo_server_identity_clear        (SnodoServerIdentity *identity);
/* Sets the identity's members on @info (an Implementation object). */
void          snodo_server_identity_add_to_info  (SnodoServerIdentity *identity,
                                                  JsonObject          *info);
/* Forgets what 2026-07-28 answers say of the server, after a change. */
void          snodo_server_clear_stamp           (SnodoServer         *self);

/* The application's own methods (snodo-server-custom.c): name ->
 * SnodoCustomMethod, each for a request or a notification; NULL until
 * one is added. Added on the server's context, never removed, so that an
 * invocation may point at one as long as the server lives. */
typedef struct _SnodoCustomMethod SnodoCustomMethod;

typedef struct
{
  GHashTable *requests;
  GHashTable *notifications;
  GMutex      lock;
} SnodoServerCustom;

SnodoServerCustom *snodo_server_get_custom       (SnodoServer         *self);
void          snodo_server_custom_clear          (SnodoServerCustom   *custom);
/* The request method an application added as @name, or NULL. */
SnodoCustomMethod *snodo_server_lookup_custom_method (SnodoServer     *self,
                                                      const char      *name);
const SnodoMethod *snodo_custom_method_get_method    (SnodoCustomMethod *method);
/* FALSE with a -32602 error when the params do not fit the schema. */
gboolean      snodo_custom_method_check_params   (SnodoCustomMethod   *method,
                                                  SnodoInvocation     *invocation,
                                                  GError             **error);
void          snodo_custom_method_run            (SnodoCustomMethod   *method,
                                                  SnodoInvocation     *invocation);
/* A method of an extension the library serves (snodo-server-skills.c),
 * whose name is MCP's: not checked as an application's would be. */
gboolean      snodo_server_add_builtin_method    (SnodoServer         *self,
                                                  const char          *method,
                                                  JsonNode            *params_schema,
                                                  SnodoToolFunc        func,
                                                  gpointer             user_data,
                                                  GDestroyNotify       destroy,
                                                  GError             **error);

/* The server's bus state (snodo-server.c). */
SnodoServerBus *snodo_server_get_bus_state       (SnodoServer     *self);
/* Lets the bus go (snodo-server-bus.c). */
void          snodo_server_clear_bus             (SnodoServer     *self);
/* Announces a change through the bus, or at once without one. */
void          snodo_server_publish_change        (SnodoServer     *self,
                                                  const char      *method,
                                                  const char      *uri);
/* Announces a change to this server's clients (snodo-server-sessions.c):
 * FALSE if @method is no change a server announces. */
gboolean      snodo_server_announce_change       (SnodoServer     *self,
                                                  const char      *method,
                                                  const char      *uri);

/* A forwarding server (snodo-server-forward.c): the application's
 * function that answers every request, or func NULL. */
typedef struct
{
  SnodoForwardFunc func;
  gpointer         user_data;
  GDestroyNotify   destroy;
} SnodoServerForward;

SnodoServerForward *snodo_server_get_forward     (SnodoServer     *self);
void          snodo_server_forward_clear         (SnodoServerForward *forward);
/* Hands @frame, a request of @dialect on @connection, to the forward
 * function, as admitted work; answers it with an error if it is refused. */
void          snodo_server_forward_request       (SnodoServer        *self,
                                                  SnodoConnection    *connection,
                                                  const SnodoDialect *dialect,
                                                  SnodoFrame         *frame,
                                                  SnodoRequestMeta   *meta,
                                                  gsize               cost);

/* The line of a log message (`notifications/message`) of @level, @logger
 * (nullable) and @data (copied); snodo-invocation.c. */
GBytes       *snodo_server_encode_log            (SnodoLogLevel       level,
                                                  const char         *logger,
                                                  JsonNode           *data);

G_END_DECLS
