/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * Authorization of the HTTP transport, shared by its files:
 *
 *   snodo-http-authorization.c  SnodoHttpAuthorization: what the application
 *                               configures (the metadata, the scopes), and
 *                               its validate-token signal
 *   snodo-auth-request.c        SnodoAuthRequest: one token to check, which
 *                               the application completes
 *   snodo-http-auth.c           the request path: the bearer token of each
 *                               request, the wait for its check (bounded by
 *                               validation-timeout), the 401/403 challenges,
 *                               the metadata document, the principal of a
 *                               session
 *
 * Everything but accept()/refuse() runs on the transport's context.
 */

#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-auth-request.h"
#include "snodo-http-authorization.h"
#include "snodo-server-private.h"

G_BEGIN_DECLS

#define SNODO_WELL_KNOWN_RESOURCE "/.well-known/oauth-protected-resource"

struct _SnodoHttpAuthorization
{
  GObject       parent_instance;

  /* All owned; nullable unless said. Read on the transport's context. */
  char         *resource;
  char        **authorization_servers;
  char        **scopes_supported;
  /* Never NULL (an empty array). */
  char        **required_scopes;
  char         *resource_name;
  char         *resource_documentation;
  /* Seconds a token's check may take before the request is answered 503. */
  guint         validation_timeout;
  /* Tool name -> the scopes it needs (a strv). */
  GHashTable   *tool_scopes;
};

typedef void (*SnodoAuthRequestFunc) (SnodoAuthRequest *request,
                                      gpointer          user_data);

/* snodo-auth-request.c */
SnodoAuthRequest *snodo_auth_request_new      (const char           *token,
                                               const char           *resource,
                                               GMainContext         *context,
                                               SnodoAuthRequestFunc  func,
                                               gpointer              user_data);
gboolean          snodo_auth_request_abandon  (SnodoAuthRequest     *self);
SnodoAuthInfo    *snodo_auth_request_dup_info (SnodoAuthRequest     *self,
                                               const char          **description);

/* snodo-http-authorization.c: emits validate-token; FALSE if no handler
 * took the request. */
gboolean          snodo_http_authorization_emit_validate (SnodoHttpAuthorization *self,
                                                          SnodoAuthRequest       *request);

G_END_DECLS
