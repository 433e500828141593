/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-client-oauth.h"
#include "snodo-credential-store.h"

G_BEGIN_DECLS

/* The parameters of a Bearer challenge (WWW-Authenticate); each NULL
 * when absent. Owned. */
typedef struct
{
  char *resource_metadata;
  char *scope;
  char *error;
} SnodoOAuthChallenge;

gboolean   snodo_oauth_parse_challenge      (const char          *header,
                                             SnodoOAuthChallenge *challenge);
void       snodo_oauth_challenge_clear      (SnodoOAuthChallenge *challenge);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SnodoOAuthChallenge, snodo_oauth_challenge_clear)

GStrv      snodo_oauth_resource_metadata_urls (const char        *server_uri);
GStrv      snodo_oauth_server_metadata_urls (const char          *issuer);
char      *snodo_oauth_pkce_challenge       (const char          *verifier);
char      *snodo_oauth_random_string        (gsize                n_bytes,
                                             GError             **error);
gboolean   snodo_oauth_resource_matches     (const char          *resource,
                                             const char          *server_uri);
gboolean   snodo_oauth_uri_is_allowed       (const char          *uri);
char      *snodo_oauth_origin_with_path     (GUri                *uri,
                                             const char          *path);
char      *snodo_oauth_trimmed_path         (GUri                *uri);
char      *snodo_oauth_scope_union          (const char          *a,
                                             const char          *b);
gboolean   snodo_oauth_scope_contains       (const char          *have,
                                             const char          *want);

/* What a sign-in is for. */
typedef enum
{
  /* Before a request: the stored state, refreshed when about to expire. */
  SNODO_OAUTH_PREPARE,
  /* An HTTP 401. */
  SNODO_OAUTH_UNAUTHORIZED,
  /* An HTTP 403 insufficient_scope. */
  SNODO_OAUTH_STEP_UP,
} SnodoOAuthReason;

/* One sign-in, run in a worker thread (snodo-client-oauth-flow.c). Its
 * inputs are copies, set before it starts; its output (@state) is read
 * when it has finished. Reference counted (g_atomic_rc_box): the
 * application may hand in the redirect while the thread runs. */
typedef struct
{
  /* In. */
  SnodoOAuthReason reason;
  char *server_uri;
  char *www_authenticate;
  char *client_id;
  char *client_secret;
  char *client_metadata_url;
  char *scope;
  gboolean client_credentials;
  guint redirect_port;
  SnodoCredentialStore *store;
  /* The state the client had: what it knows of the server, its
   * registration and tokens; a copy, or NULL. */
  JsonObject *state;
  /* Where the authorization URL is handed out: the client's context and
   * the object (a reference, only touched in that context). */
  GMainContext *client_context;
  GWeakRef oauth;

  /* The redirect, under @lock: the URI an application handed in, and
   * the context of the thread to wake. */
  GMutex lock;
  char *redirect;
  gboolean unhandled;
  GMainContext *flow_context;

  /* Out: the new state, or NULL when unchanged. */
  JsonObject *result;
} SnodoOAuthFlow;

SnodoOAuthFlow *snodo_oauth_flow_new      (void);
SnodoOAuthFlow *snodo_oauth_flow_ref      (SnodoOAuthFlow *flow);
void            snodo_oauth_flow_unref    (SnodoOAuthFlow *flow);
gboolean        snodo_oauth_flow_run      (SnodoOAuthFlow *flow,
                                           GCancellable   *cancellable,
                                           GError        **error);
void            snodo_oauth_flow_redirect (SnodoOAuthFlow *flow,
                                           const char     *uri);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoOAuthFlow, snodo_oauth_flow_unref)

/* Emitted in the client's context by the flow (snodo-client-oauth.c):
 * FALSE when nothing took the URL. */
gboolean        snodo_client_oauth_emit_authorize (SnodoClientOAuth *self,
                                                   const char       *url);
void            snodo_oauth_flow_unhandled (SnodoOAuthFlow *flow);

/* The Secret Service store, with libsecret (snodo-credential-store-secret.c). */
SnodoCredentialStore *snodo_credential_store_new_secret (void);

/* Used by snodo-client-http.c. */
char           *snodo_client_oauth_dup_access_token (SnodoClientOAuth    *self);
gboolean        snodo_client_oauth_wants_prepare    (SnodoClientOAuth    *self);
void            snodo_client_oauth_authorize_async  (SnodoClientOAuth    *self,
                                                     const char          *server_uri,
                                                     SnodoOAuthReason     reason,
                                                     const char          *www_authenticate,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
void            snodo_client_oauth_abandon          (SnodoClientOAuth    *self);
gboolean        snodo_client_oauth_authorize_finish (SnodoClientOAuth    *self,
                                                     GAsyncResult        *result,
                                                     GError             **error);

G_END_DECLS
