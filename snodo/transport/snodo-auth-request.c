/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "snodo-auth-request.h"
#include "snodo-base-private.h"
#include "snodo-http-auth-private.h"

/**
 * SnodoAuthRequest:
 *
 * A bearer token to be checked: what
 * [signal@Snodo.HttpAuthorization::validate-token] hands the application
 * for each HTTP request that carries one. The application checks the token
 * ([method@Snodo.AuthRequest.get_token]) however it likes (a table, a JWT
 * signature, an introspection request to its authorization server; it
 * should also check that the token was issued for
 * [method@Snodo.AuthRequest.get_resource]), at once or later, and
 * completes the request exactly once with [method@Snodo.AuthRequest.accept]
 * (who the token speaks for, and its scopes) or
 * [method@Snodo.AuthRequest.refuse] (HTTP 401 with `invalid_token`).
 *
 * Both may be called from any thread; the HTTP request goes on from the
 * transport's context, never from inside the call. An answer that comes
 * after [property@Snodo.HttpAuthorization:validation-timeout] (the HTTP
 * request has been answered 503 by then, and
 * [method@Snodo.AuthRequest.get_cancellable] cancelled) or after the client
 * left is ignored.
 *
 * [class@Snodo.HttpAuthorization] shows a handler in Python and JavaScript.
 *
 * Since: 0.1
 */

struct _SnodoAuthRequest
{
  GObject               parent_instance;

  /* Construct-time, immutable; owned. Never logged. */
  char                 *token;
  char                 *resource;
  GCancellable         *cancellable;
  /* Where done_func is called (owned). */
  GMainContext         *context;
  SnodoAuthRequestFunc  done_func;
  gpointer              done_data;

  /* Protects what follows: accept() and refuse() may come from any thread. */
  GMutex                lock;
  /* The application answered (or the transport gave up: abandoned). */
  guint                 completed : 1;
  guint                 abandoned : 1;
  guint                 accepted : 1;
  /* The check could not be made (failed, not refused). */
  guint                 failed : 1;
  char                 *principal;
  char                **scopes;
  char                 *description;
};

G_DEFINE_FINAL_TYPE (SnodoAuthRequest, snodo_auth_request, G_TYPE_OBJECT)

static void
snodo_auth_request_finalize (GObject *object)
{
  SnodoAuthRequest *self = SNODO_AUTH_REQUEST (object);

  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  g_free (self->resource);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->principal);
  g_strfreev (self->scopes);
  g_free (self->description);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (snodo_auth_request_parent_class)->finalize (object);
}

static void
snodo_auth_request_class_init (SnodoAuthRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_auth_request_finalize;
}

static void
snodo_auth_request_init (SnodoAuthRequest *self)
{
  g_mutex_init (&self->lock);
  self->cancellable = g_cancellable_new ();
}

/* Made by the transport: @func is called once on @context, after the
 * application completed the request (never from inside accept/refuse). */
SnodoAuthRequest *
snodo_auth_request_new (const char           *token,
                        const char           *resource,
                        GMainContext         *context,
                        SnodoAuthRequestFunc  func,
                        gpointer              user_data)
{
  SnodoAuthRequest *self = g_object_new (SNODO_TYPE_AUTH_REQUEST, NULL);

  self->token = g_strdup (token);
  self->resource = g_strdup (resource);
  self->context = g_main_context_ref (context);
  self->done_func = func;
  self->done_data = user_data;
  return self;
}

static gboolean
snodo_auth_request_done_cb (gpointer user_data)
{
  SnodoAuthRequest *self = user_data;

  self->done_func (self, self->done_data);
  return G_SOURCE_REMOVE;
}

/* Called with the lock held: whether the request may still be answered.
 * Unlocks when it may not. */
static gboolean
snodo_auth_request_open_locked (SnodoAuthRequest *self)
{
  gboolean abandoned;

  if (!self->completed)
    return TRUE;
  abandoned = self->abandoned;
  g_mutex_unlock (&self->lock);
  /* Late after the timeout or a client that left: not a mistake of the
   * application. */
  if (!abandoned)
    g_critical ("A SnodoAuthRequest was accepted or refused twice");
  return FALSE;
}

/* After the answer was taken: the transport hears of it on its context. */
static void
snodo_auth_request_post_done (SnodoAuthRequest *self)
{
  GSource *source;

  /* Made by a binding's bare constructor: nobody waits for the answer. */
  if (self->done_func == NULL)
    return;
  source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] auth request done");
  g_source_set_callback (source, snodo_auth_request_done_cb, g_object_ref (self), g_object_unref);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

/* On the context: the transport gives up waiting (the timeout, a client
 * that left). TRUE if the application had not answered: nothing more
 * comes from it. */
gboolean
snodo_auth_request_abandon (SnodoAuthRequest *self)
{
  gboolean was_open;

  g_mutex_lock (&self->lock);
  was_open = !self->completed;
  self->completed = TRUE;
  self->abandoned = TRUE;
  g_mutex_unlock (&self->lock);
  g_cancellable_cancel (self->cancellable);
  return was_open;
}

/* On the context, in done_func: the answer. NULL if refused, with
 * @description the application's words (nullable). */
SnodoAuthInfo *
snodo_auth_request_dup_info (SnodoAuthRequest  *self,
                             const char       **description)
{
  SnodoAuthInfo *info = NULL;

  g_mutex_lock (&self->lock);
  if (self->accepted)
    info = snodo_auth_info_new (self->principal, (const char * const *) self->scopes);
  if (description != NULL)
    *description = self->description;
  g_mutex_unlock (&self->lock);
  return info;
}

/* The check could not be made: like refuse(), but the HTTP request is
 * answered 503 (a client that signed in again would be no better off). */
void
snodo_auth_request_fail (SnodoAuthRequest *self)
{
  g_mutex_lock (&self->lock);
  if (self->completed)
    {
      g_mutex_unlock (&self->lock);
      return;
    }
  self->completed = TRUE;
  self->failed = TRUE;
  g_mutex_unlock (&self->lock);
  snodo_auth_request_post_done (self);
}

gboolean
snodo_auth_request_get_failed (SnodoAuthRequest *self)
{
  gboolean failed;

  g_mutex_lock (&self->lock);
  failed = self->failed;
  g_mutex_unlock (&self->lock);
  return failed;
}

/**
 * snodo_auth_request_get_token:
 * @self: an auth request
 *
 * Gets the bearer token the client sent (the credentials of its
 * `Authorization: Bearer` header). Snodo never logs it; neither should
 * the application.
 *
 * Returns: the token
 *
 * Since: 0.1
 */
const char *
snodo_auth_request_get_token (SnodoAuthRequest *self)
{
  g_return_val_if_fail (SNODO_IS_AUTH_REQUEST (self), NULL);

  return self->token;
}

/**
 * snodo_auth_request_get_resource:
 * @self: an auth request
 *
 * Gets the resource the token is presented to: the `resource` of the
 * protected resource metadata ([property@Snodo.HttpAuthorization:resource],
 * or the URL of the endpoint as the client named it). MCP requires a
 * server to accept only tokens issued for it: compare this with the
 * token's audience.
 *
 * Returns: the resource identifier, a URL
 *
 * Since: 0.1
 */
const char *
snodo_auth_request_get_resource (SnodoAuthRequest *self)
{
  g_return_val_if_fail (SNODO_IS_AUTH_REQUEST (self), NULL);

  return self->resource;
}

/**
 * snodo_auth_request_get_cancellable:
 * @self: an auth request
 *
 * Gets a cancellable that is cancelled when the answer is no longer
 * wanted: [property@Snodo.HttpAuthorization:validation-timeout] passed,
 * the client left, or the transport closed. Work started for the request
 * (an introspection request) may be given it.
 *
 * Returns: (transfer none): the cancellable
 *
 * Since: 0.1
 */
GCancellable *
snodo_auth_request_get_cancellable (SnodoAuthRequest *self)
{
  g_return_val_if_fail (SNODO_IS_AUTH_REQUEST (self), NULL);

  return self->cancellable;
}

/**
 * snodo_auth_request_accept:
 * @self: an auth request
 * @principal: who the token speaks for (a user or client id); handlers see
 *   it as [method@Snodo.Invocation.get_principal]
 * @scopes: (array zero-terminated=1) (nullable): the scopes the token
 *   grants, or %NULL for none
 *
 * Accepts the token. The request is then served if @scopes hold every
 * scope it needs ([property@Snodo.HttpAuthorization:required-scopes], and
 * for `tools/call` those of the tool,
 * [method@Snodo.HttpAuthorization.require_tool_scopes]), and answered 403
 * with `insufficient_scope` otherwise.
 *
 * A request of a session of the initialize era is served only if
 * @principal is the one the session was started by.
 *
 * May be called from any thread, once per request (or not at all after the
 * request was refused).
 *
 * Since: 0.1
 */
void
snodo_auth_request_accept (SnodoAuthRequest   *self,
                           const char         *principal,
                           const char * const *scopes)
{
  static const char * const none[] = { NULL };

  g_return_if_fail (SNODO_IS_AUTH_REQUEST (self));
  g_return_if_fail (principal != NULL);

  g_mutex_lock (&self->lock);
  if (!snodo_auth_request_open_locked (self))
    return;
  self->completed = TRUE;
  self->accepted = TRUE;
  self->principal = g_strdup (principal);
  self->scopes = g_strdupv ((char **) (scopes != NULL ? scopes : none));
  g_mutex_unlock (&self->lock);
  snodo_auth_request_post_done (self);
}

/**
 * snodo_auth_request_refuse:
 * @self: an auth request
 * @description: (nullable): why, for the client (it goes in the
 *   `error_description` of the `WWW-Authenticate` challenge), or %NULL
 *
 * Refuses the token (unknown, expired, revoked, issued for another
 * resource): the request is answered 401, with `error="invalid_token"`
 * and the URL of the protected resource metadata.
 *
 * May be called from any thread, once per request.
 *
 * Since: 0.1
 */
void
snodo_auth_request_refuse (SnodoAuthRequest *self,
                           const char       *description)
{
  g_return_if_fail (SNODO_IS_AUTH_REQUEST (self));

  g_mutex_lock (&self->lock);
  if (!snodo_auth_request_open_locked (self))
    return;
  self->completed = TRUE;
  self->description = g_strdup (description);
  g_mutex_unlock (&self->lock);
  snodo_auth_request_post_done (self);
}

/**
 * snodo_auth_request_get_completed:
 * @self: an auth request
 *
 * Whether the request has been accepted or refused, or given up on by the
 * transport.
 *
 * Returns: %TRUE once completed
 *
 * Since: 0.1
 */
gboolean
snodo_auth_request_get_completed (SnodoAuthRequest *self)
{
  gboolean completed;

  g_return_val_if_fail (SNODO_IS_AUTH_REQUEST (self), FALSE);

  g_mutex_lock (&self->lock);
  completed = self->completed;
  g_mutex_unlock (&self->lock);
  return completed;
}
