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
 *   snodo-http-introspect.c     token introspection (RFC 7662): the check of
 *                               a token no handler took, at the authorization
 *                               server, and the cache of its answers
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

/* The introspection cache: at most this many tokens, each kept at most
 * this many seconds (and never past its exp). */
#define SNODO_INTROSPECTION_CACHE_MAX     256
#define SNODO_INTROSPECTION_CACHE_SECONDS 60

typedef struct _SnodoIntrospection SnodoIntrospection;

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
  /* Token introspection, or NULL. Owned. */
  SnodoIntrospection *introspection;
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
/* The check could not be made (the introspection endpoint failed): the
 * request is answered 503, not 401. */
void              snodo_auth_request_fail     (SnodoAuthRequest     *self);
gboolean          snodo_auth_request_get_failed (SnodoAuthRequest   *self);

/* snodo-http-authorization.c: emits validate-token; FALSE if no handler
 * took the request. */
gboolean          snodo_http_authorization_emit_validate (SnodoHttpAuthorization *self,
                                                          SnodoAuthRequest       *request);

/* snodo-http-introspect.c */
SnodoIntrospection *snodo_introspection_new       (const char          *endpoint,
                                                   const char          *client_id,
                                                   const char          *client_secret);
SnodoIntrospection *snodo_introspection_ref       (SnodoIntrospection  *self);
void                snodo_introspection_unref     (SnodoIntrospection  *self);
const char         *snodo_introspection_get_endpoint  (SnodoIntrospection *self);
/* Whether @endpoint may be an introspection endpoint: https, or http to
 * this machine. */
gboolean            snodo_introspection_endpoint_is_allowed (const char  *endpoint,
                                                             GError     **error);
/* Completes @request (accept, refuse, or fail) from the cache or from the
 * endpoint's answer, later; @timeout is the validation timeout, seconds. */
void                snodo_introspection_check     (SnodoIntrospection  *self,
                                                   SnodoAuthRequest    *request,
                                                   guint                timeout);

G_END_DECLS
