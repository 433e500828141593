/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-auth-request.h"
#include "snodo-http-transport.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_HTTP_AUTHORIZATION (snodo_http_authorization_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoHttpAuthorization, snodo_http_authorization, SNODO, HTTP_AUTHORIZATION, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoHttpAuthorization *snodo_http_authorization_new        (void);
SNODO_AVAILABLE_IN_ALL
const char             *snodo_http_authorization_get_resource
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_resource
                                                            (SnodoHttpAuthorization *self,
                                                             const char             *resource);
SNODO_AVAILABLE_IN_ALL
const char * const     *snodo_http_authorization_get_authorization_servers
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_authorization_servers
                                                            (SnodoHttpAuthorization *self,
                                                             const char * const     *authorization_servers);
SNODO_AVAILABLE_IN_ALL
const char * const     *snodo_http_authorization_get_scopes_supported
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_scopes_supported
                                                            (SnodoHttpAuthorization *self,
                                                             const char * const     *scopes_supported);
SNODO_AVAILABLE_IN_ALL
const char * const     *snodo_http_authorization_get_required_scopes
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_required_scopes
                                                            (SnodoHttpAuthorization *self,
                                                             const char * const     *required_scopes);
SNODO_AVAILABLE_IN_ALL
const char             *snodo_http_authorization_get_resource_name
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_resource_name
                                                            (SnodoHttpAuthorization *self,
                                                             const char             *resource_name);
SNODO_AVAILABLE_IN_ALL
const char             *snodo_http_authorization_get_resource_documentation
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_resource_documentation
                                                            (SnodoHttpAuthorization *self,
                                                             const char             *resource_documentation);
SNODO_AVAILABLE_IN_ALL
guint                   snodo_http_authorization_get_validation_timeout
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_set_validation_timeout
                                                            (SnodoHttpAuthorization *self,
                                                             guint                   validation_timeout);
SNODO_AVAILABLE_IN_ALL
gboolean                snodo_http_authorization_set_introspection
                                                            (SnodoHttpAuthorization *self,
                                                             const char             *endpoint,
                                                             const char             *client_id,
                                                             const char             *client_secret,
                                                             GError                **error);
SNODO_AVAILABLE_IN_ALL
const char             *snodo_http_authorization_get_introspection_endpoint
                                                            (SnodoHttpAuthorization *self);
SNODO_AVAILABLE_IN_ALL
void                    snodo_http_authorization_require_tool_scopes
                                                            (SnodoHttpAuthorization *self,
                                                             const char             *tool_name,
                                                             const char * const     *scopes);
SNODO_AVAILABLE_IN_ALL
const char * const     *snodo_http_authorization_get_tool_scopes
                                                            (SnodoHttpAuthorization *self,
                                                             const char             *tool_name);

SNODO_AVAILABLE_IN_ALL
void                    snodo_http_transport_set_authorization
                                                            (SnodoHttpTransport     *self,
                                                             SnodoHttpAuthorization *authorization);
SNODO_AVAILABLE_IN_ALL
SnodoHttpAuthorization *snodo_http_transport_get_authorization
                                                            (SnodoHttpTransport     *self);

G_END_DECLS
