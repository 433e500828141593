/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Who a request comes from: what a transport's authorization found
 * (SnodoAuthInfo), handed to the server through the connection the request
 * is dispatched on, and kept by the request's invocation for its handler. */

#include "config.h"

#include "snodo-connection-private.h"
#include "snodo-invocation-internal.h"
#include "snodo-server-private.h"

/* Immutable once made, so shared by reference between threads. */
struct _SnodoAuthInfo
{
  char  *principal;
  char **scopes;
};

static void
snodo_auth_info_clear (gpointer data)
{
  SnodoAuthInfo *self = data;

  g_free (self->principal);
  g_strfreev (self->scopes);
}

SnodoAuthInfo *
snodo_auth_info_new (const char         *principal,
                     const char * const *scopes)
{
  SnodoAuthInfo *self = g_atomic_rc_box_new0 (SnodoAuthInfo);
  static const char * const none[] = { NULL };

  self->principal = g_strdup (principal);
  self->scopes = g_strdupv ((char **) (scopes != NULL ? scopes : none));
  return self;
}

SnodoAuthInfo *
snodo_auth_info_ref (SnodoAuthInfo *self)
{
  return g_atomic_rc_box_acquire (self);
}

void
snodo_auth_info_unref (SnodoAuthInfo *self)
{
  g_atomic_rc_box_release_full (self, snodo_auth_info_clear);
}

const char *
snodo_auth_info_get_principal (SnodoAuthInfo *self)
{
  return self->principal;
}

const char * const *
snodo_auth_info_get_scopes (SnodoAuthInfo *self)
{
  return (const char * const *) self->scopes;
}

gboolean
snodo_auth_info_has_scope (SnodoAuthInfo *self,
                           const char    *scope)
{
  return g_strv_contains ((const char * const *) self->scopes, scope);
}

void
snodo_connection_set_auth (SnodoConnection *self,
                           SnodoAuthInfo   *auth)
{
  if (auth != NULL)
    snodo_auth_info_ref (auth);
  g_clear_pointer (&self->auth, snodo_auth_info_unref);
  self->auth = auth;
}

/**
 * snodo_invocation_get_principal:
 * @self: an invocation
 *
 * Gets who the request comes from: the principal the application's
 * [signal@Snodo.HttpAuthorization::validate-token] handler accepted the
 * request's bearer token for (see [method@Snodo.AuthRequest.accept]).
 * Requests of a transport without authorization (stdio, or HTTP without
 * [method@Snodo.HttpTransport.set_authorization]) have none.
 *
 * May be called from any thread.
 *
 * Returns: (nullable): the principal, or %NULL
 *
 * Since: 0.1
 */
const char *
snodo_invocation_get_principal (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  return self->auth != NULL ? self->auth->principal : NULL;
}

/**
 * snodo_invocation_get_scopes:
 * @self: an invocation
 *
 * Gets the scopes the request's bearer token was accepted with (see
 * [method@Snodo.AuthRequest.accept]): those of this very request, even on
 * a session whose earlier requests came with other tokens of the same
 * principal. Requests of a transport without authorization have none.
 *
 * May be called from any thread.
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   scopes, or %NULL without authorization
 *
 * Since: 0.1
 */
const char * const *
snodo_invocation_get_scopes (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  return self->auth != NULL ? (const char * const *) self->auth->scopes : NULL;
}

/**
 * snodo_invocation_has_scope:
 * @self: an invocation
 * @scope: a scope
 *
 * Whether the request's bearer token was accepted with @scope. Always
 * %FALSE for requests of a transport without authorization.
 *
 * May be called from any thread.
 *
 * Returns: %TRUE if @scope is among [method@Snodo.Invocation.get_scopes]
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_has_scope (SnodoInvocation *self,
                            const char      *scope)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);
  g_return_val_if_fail (scope != NULL, FALSE);

  return self->auth != NULL && snodo_auth_info_has_scope (self->auth, scope);
}
