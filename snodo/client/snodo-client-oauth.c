/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <libsoup/soup.h>

#include "snodo-client-oauth.h"
#include "snodo-client-oauth-private.h"
#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-wire-private.h"

/**
 * SnodoClientOAuth:
 *
 * OAuth 2.1 sign-in for a [class@Snodo.Client] over HTTP.
 *
 * Given to a client with [method@Snodo.Client.set_oauth], it answers the
 * server's HTTP 401 by signing in as the MCP authorization specification
 * says, for servers of both protocol eras:
 *
 * - discovery: the `resource_metadata` of the `WWW-Authenticate`
 *   challenge, else the RFC 9728 well-known URLs (path-aware, then root);
 *   the resource it names checked against the server's URI; the
 *   authorization server's RFC 8414 metadata, else OpenID Connect
 *   discovery, its `issuer` checked;
 * - registration: the client id (and secret) set with
 *   [method@Snodo.ClientOAuth.set_client], else one kept from before for
 *   the same authorization server, else a Client ID Metadata Document
 *   URL ([method@Snodo.ClientOAuth.set_client_metadata_url]) when the
 *   server supports them, else RFC 7591 dynamic registration;
 * - the authorization code grant with PKCE (S256), `state` and `iss`
 *   checked and the RFC 8707 `resource` parameter, redirected to a
 *   listener on 127.0.0.1 whose port is kept with the registration (so a
 *   kept registration goes on matching); or, for machines, the client
 *   credentials grant ([method@Snodo.ClientOAuth.set_client_credentials]);
 * - tokens refreshed before they expire and on a 401; on a 403 with
 *   `insufficient_scope`, a new sign-in for the union of the scopes,
 *   once per scope that it adds.
 *
 * The URL where the user signs in is handed out with
 * [signal@Snodo.ClientOAuth::authorize]: by default it opens in the
 * user's browser; an application with its own web view handles the
 * signal, returns %TRUE, and hands the redirect back with
 * [method@Snodo.ClientOAuth.complete_authorization].
 *
 * Authorization servers are only spoken to over HTTPS, or plain HTTP on
 * this machine. Tokens are never logged.
 *
 * With a [iface@Snodo.CredentialStore] (see
 * [func@Snodo.CredentialStore.new_default]), what a sign-in gets is
 * stored per server and used by the next process; one sign-in per server
 * runs at a time across processes. Without one, it lives as long as this
 * object.
 *
 * The work of a sign-in runs in a worker thread; the signal and every
 * result come in the thread-default main context of the object's
 * creation.
 */

struct _SnodoClientOAuth
{
  GObject parent_instance;

  /* The thread-default context at init: the signal's and results'. */
  GMainContext *context;
  /* Cancelled in dispose: stops a sign-in. */
  GCancellable *cancellable;

  /* Configuration; each owned, nullable. */
  char *client_id;
  char *client_secret;
  char *client_metadata_url;
  char *scope;
  gboolean client_credentials;
  gboolean open_browser;
  guint redirect_port;
  SnodoCredentialStore *store;

  /* What is known of the server: registration, tokens (see
   * snodo-client-oauth-flow.c for its members). Owned; NULL before the
   * first sign-in or lookup. */
  JsonObject *state;
  /* Whether the stored state was looked up. */
  gboolean prepared;
  /* The sign-in in flight, or NULL, and the tasks that wait for it. */
  SnodoOAuthFlow *flow;
  GPtrArray *waiting;
};

G_DEFINE_FINAL_TYPE (SnodoClientOAuth, snodo_client_oauth, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CLIENT_ID,
  PROP_CLIENT_METADATA_URL,
  PROP_CLIENT_CREDENTIALS,
  PROP_SCOPE,
  PROP_REDIRECT_PORT,
  PROP_OPEN_BROWSER,
  PROP_STORE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_AUTHORIZE,
  N_OAUTH_SIGNALS
};

static guint signals[N_OAUTH_SIGNALS];

static gboolean
snodo_client_oauth_real_authorize (SnodoClientOAuth *self,
                                   const char       *url)
{
  g_autoptr(GError) error = NULL;

  if (!self->open_browser)
    return FALSE;
  if (!g_app_info_launch_default_for_uri (url, NULL, &error))
    {
      g_debug ("Opening a browser for the sign-in failed: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

static void
snodo_client_oauth_dispose (GObject *object)
{
  SnodoClientOAuth *self = SNODO_CLIENT_OAUTH (object);

  g_cancellable_cancel (self->cancellable);
  if (self->waiting != NULL && self->waiting->len > 0)
    {
      g_autoptr(GPtrArray) waiting = g_steal_pointer (&self->waiting);

      self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < waiting->len; i++)
        g_task_return_new_error (waiting->pdata[i], G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                 _("The sign-in was abandoned"));
    }
  g_clear_pointer (&self->flow, snodo_oauth_flow_unref);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (snodo_client_oauth_parent_class)->dispose (object);
}

static void
snodo_client_oauth_finalize (GObject *object)
{
  SnodoClientOAuth *self = SNODO_CLIENT_OAUTH (object);

  g_free (self->client_id);
  g_free (self->client_secret);
  g_free (self->client_metadata_url);
  g_free (self->scope);
  g_clear_pointer (&self->state, json_object_unref);
  g_clear_pointer (&self->waiting, g_ptr_array_unref);
  g_clear_object (&self->cancellable);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (snodo_client_oauth_parent_class)->finalize (object);
}

static void
snodo_client_oauth_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  SnodoClientOAuth *self = SNODO_CLIENT_OAUTH (object);

  switch (prop_id)
    {
    case PROP_CLIENT_ID:
      g_value_set_string (value, self->client_id);
      break;
    case PROP_CLIENT_METADATA_URL:
      g_value_set_string (value, self->client_metadata_url);
      break;
    case PROP_CLIENT_CREDENTIALS:
      g_value_set_boolean (value, self->client_credentials);
      break;
    case PROP_SCOPE:
      g_value_set_string (value, self->scope);
      break;
    case PROP_REDIRECT_PORT:
      g_value_set_uint (value, self->redirect_port);
      break;
    case PROP_OPEN_BROWSER:
      g_value_set_boolean (value, self->open_browser);
      break;
    case PROP_STORE:
      g_value_set_object (value, self->store);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_client_oauth_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  SnodoClientOAuth *self = SNODO_CLIENT_OAUTH (object);

  switch (prop_id)
    {
    case PROP_CLIENT_ID:
      snodo_client_oauth_set_client (self, g_value_get_string (value), self->client_secret);
      break;
    case PROP_CLIENT_METADATA_URL:
      snodo_client_oauth_set_client_metadata_url (self, g_value_get_string (value));
      break;
    case PROP_CLIENT_CREDENTIALS:
      snodo_client_oauth_set_client_credentials (self, g_value_get_boolean (value));
      break;
    case PROP_SCOPE:
      snodo_client_oauth_set_scope (self, g_value_get_string (value));
      break;
    case PROP_REDIRECT_PORT:
      snodo_client_oauth_set_redirect_port (self, g_value_get_uint (value));
      break;
    case PROP_OPEN_BROWSER:
      snodo_client_oauth_set_open_browser (self, g_value_get_boolean (value));
      break;
    case PROP_STORE:
      snodo_client_oauth_set_store (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_client_oauth_class_init (SnodoClientOAuthClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = snodo_client_oauth_dispose;
  object_class->finalize = snodo_client_oauth_finalize;
  object_class->get_property = snodo_client_oauth_get_property;
  object_class->set_property = snodo_client_oauth_set_property;

  /**
   * SnodoClientOAuth:client-id: (getter get_client_id)
   *
   * A client id registered beforehand with the authorization server, or
   * %NULL to register (or use a Client ID Metadata Document).
   */
  properties[PROP_CLIENT_ID] =
    g_param_spec_string ("client-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SnodoClientOAuth:client-metadata-url: (getter get_client_metadata_url) (setter set_client_metadata_url)
   *
   * The HTTPS URL of this client's Client ID Metadata Document, used as
   * its client id by authorization servers that support them, or %NULL.
   */
  properties[PROP_CLIENT_METADATA_URL] =
    g_param_spec_string ("client-metadata-url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SnodoClientOAuth:client-credentials: (getter get_client_credentials) (setter set_client_credentials)
   *
   * Whether to use the client credentials grant (a machine, with a
   * client id and secret, and no user) instead of the authorization code.
   */
  properties[PROP_CLIENT_CREDENTIALS] =
    g_param_spec_boolean ("client-credentials", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SnodoClientOAuth:scope: (getter get_scope) (setter set_scope)
   *
   * Scopes (space-separated) to ask for besides those the server's
   * challenge or metadata names, or %NULL.
   */
  properties[PROP_SCOPE] =
    g_param_spec_string ("scope", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SnodoClientOAuth:redirect-port: (getter get_redirect_port) (setter set_redirect_port)
   *
   * The port of the loopback redirect listener on 127.0.0.1, or 0 for
   * the one kept with the registration (a free one the first time).
   */
  properties[PROP_REDIRECT_PORT] =
    g_param_spec_uint ("redirect-port", NULL, NULL, 0, G_MAXUINT16, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SnodoClientOAuth:open-browser: (getter get_open_browser) (setter set_open_browser)
   *
   * Whether the default handler of [signal@Snodo.ClientOAuth::authorize]
   * opens the URL in the user's browser.
   */
  properties[PROP_OPEN_BROWSER] =
    g_param_spec_boolean ("open-browser", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * SnodoClientOAuth:store: (getter get_store) (setter set_store)
   *
   * Where registrations and tokens are kept between processes, or %NULL
   * to keep them only in this object.
   */
  properties[PROP_STORE] =
    g_param_spec_object ("store", NULL, NULL, SNODO_TYPE_CREDENTIAL_STORE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SnodoClientOAuth::authorize:
   * @self: the object
   * @url: the URL where the user signs in
   *
   * Emitted, in the object's main context, when the user must sign in.
   * The default handler opens @url in the user's browser when
   * [property@Snodo.ClientOAuth:open-browser] is set. A handler that
   * takes care of @url itself (shows it, or loads it in its own web
   * view, handing the redirect to
   * [method@Snodo.ClientOAuth.complete_authorization]) returns %TRUE.
   * When nothing does, the sign-in fails.
   *
   * Returns: %TRUE to stop other handlers
   */
  signals[SIGNAL_AUTHORIZE] =
    g_signal_new_class_handler ("authorize", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                G_CALLBACK (snodo_client_oauth_real_authorize),
                                g_signal_accumulator_true_handled, NULL, NULL,
                                G_TYPE_BOOLEAN, 1, G_TYPE_STRING);
}

static void
snodo_client_oauth_init (SnodoClientOAuth *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->cancellable = g_cancellable_new ();
  self->open_browser = TRUE;
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
}

/* Internal API. */

gboolean
snodo_client_oauth_emit_authorize (SnodoClientOAuth *self,
                                   const char       *url)
{
  gboolean handled = FALSE;

  g_signal_emit (self, signals[SIGNAL_AUTHORIZE], 0, url, &handled);
  return handled;
}

char *
snodo_client_oauth_dup_access_token (SnodoClientOAuth *self)
{
  return self->state != NULL ? g_strdup (snodo_json_object_get_string (self->state, "access_token")) : NULL;
}

gboolean
snodo_client_oauth_wants_prepare (SnodoClientOAuth *self)
{
  gint64 expires;

  if (self->flow != NULL)
    return TRUE;
  if (!self->prepared)
    {
      if (self->store != NULL)
        return TRUE;
      self->prepared = TRUE;
    }
  if (self->state == NULL || snodo_json_object_get_string (self->state, "access_token") == NULL)
    return FALSE;
  expires = json_object_get_int_member_with_default (self->state, "expires_at", 0);
  return expires != 0 && expires - 60 <= g_get_real_time () / G_USEC_PER_SEC &&
         snodo_json_object_get_string (self->state, "refresh_token") != NULL;
}

static void
flow_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GWeakRef *ref = user_data;
  g_autoptr(SnodoClientOAuth) self = g_weak_ref_get (ref);
  SnodoOAuthFlow *flow = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) waiting = NULL;

  g_weak_ref_clear (ref);
  g_free (ref);
  if (self == NULL || self->flow != flow)
    return;
  if (g_task_propagate_boolean (G_TASK (result), &error) && flow->result != NULL)
    {
      g_clear_pointer (&self->state, json_object_unref);
      self->state = json_object_ref (flow->result);
    }
  if (flow->reason == SNODO_OAUTH_PREPARE)
    self->prepared = TRUE;
  g_clear_pointer (&self->flow, snodo_oauth_flow_unref);
  waiting = g_steal_pointer (&self->waiting);
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiting->len; i++)
    {
      if (error != NULL)
        g_task_return_error (waiting->pdata[i], g_error_copy (error));
      else
        g_task_return_boolean (waiting->pdata[i], TRUE);
    }
}

static void
flow_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;

  if (snodo_oauth_flow_run (task_data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, _("The sign-in failed"));
}

void
snodo_client_oauth_authorize_async (SnodoClientOAuth    *self,
                                    const char          *server_uri,
                                    SnodoOAuthReason     reason,
                                    const char          *www_authenticate,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) worker = NULL;
  SnodoOAuthFlow *flow;
  GWeakRef *ref;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_client_oauth_authorize_async);
  g_task_set_name (task, G_STRFUNC);
  g_ptr_array_add (self->waiting, g_steal_pointer (&task));
  /* One sign-in at a time: the others wait for it. */
  if (self->flow != NULL)
    return;

  flow = snodo_oauth_flow_new ();
  flow->reason = reason;
  flow->server_uri = g_strdup (server_uri);
  flow->www_authenticate = g_strdup (www_authenticate);
  flow->client_id = g_strdup (self->client_id);
  flow->client_secret = g_strdup (self->client_secret);
  flow->client_metadata_url = g_strdup (self->client_metadata_url);
  flow->scope = g_strdup (self->scope);
  flow->client_credentials = self->client_credentials;
  flow->redirect_port = self->redirect_port;
  flow->store = self->store != NULL ? g_object_ref (self->store) : NULL;
  if (self->state != NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(JsonNode) copy = NULL;

      json_node_set_object (node, self->state);
      copy = json_node_copy (node);
      flow->state = json_object_ref (json_node_get_object (copy));
    }
  flow->client_context = g_main_context_ref (self->context);
  g_weak_ref_set (&flow->oauth, self);
  self->flow = flow;

  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  worker = g_task_new (NULL, self->cancellable, flow_done_cb, ref);
  g_task_set_source_tag (worker, snodo_client_oauth_authorize_async);
  g_task_set_name (worker, "[snodo] OAuth sign-in");
  g_task_set_task_data (worker, snodo_oauth_flow_ref (flow), (GDestroyNotify) snodo_oauth_flow_unref);
  g_task_run_in_thread (worker, flow_thread);
}

/* Stops the sign-in in flight: those waiting for it fail. */
void
snodo_client_oauth_abandon (SnodoClientOAuth *self)
{
  if (self->flow == NULL)
    return;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

gboolean
snodo_client_oauth_authorize_finish (SnodoClientOAuth  *self,
                                     GAsyncResult      *result,
                                     GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Public API. */

/**
 * snodo_client_oauth_new:
 *
 * Creates sign-in for a client, which keeps what it gets in memory only
 * until a store is set ([method@Snodo.ClientOAuth.set_store]).
 *
 * Returns: (transfer full): a new [class@Snodo.ClientOAuth]
 */
SnodoClientOAuth *
snodo_client_oauth_new (void)
{
  return g_object_new (SNODO_TYPE_CLIENT_OAUTH, NULL);
}

static void
replace (char       **where,
         const char  *value)
{
  char *copy = g_strdup (value);

  g_free (*where);
  *where = copy;
}

/**
 * snodo_client_oauth_set_client:
 * @self: a [class@Snodo.ClientOAuth]
 * @client_id: (nullable): the client id registered beforehand, or %NULL
 * @client_secret: (nullable): its secret, or %NULL for a public client
 *
 * Sets the client's registration at the authorization server, when it
 * was made beforehand. It is used for the client credentials grant too.
 */
void
snodo_client_oauth_set_client (SnodoClientOAuth *self,
                               const char       *client_id,
                               const char       *client_secret)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));

  replace (&self->client_secret, client_secret);
  if (g_strcmp0 (self->client_id, client_id) == 0)
    return;
  replace (&self->client_id, client_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLIENT_ID]);
}

/**
 * snodo_client_oauth_get_client_id: (get-property client-id)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets the client id registered beforehand.
 *
 * Returns: (nullable): the client id registered beforehand
 */
const char *
snodo_client_oauth_get_client_id (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), NULL);

  return self->client_id;
}

/**
 * snodo_client_oauth_set_client_metadata_url: (set-property client-metadata-url)
 * @self: a [class@Snodo.ClientOAuth]
 * @url: (nullable): an HTTPS URL, or %NULL
 *
 * Sets the URL of the client's Client ID Metadata Document.
 */
void
snodo_client_oauth_set_client_metadata_url (SnodoClientOAuth *self,
                                            const char       *url)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));

  if (g_strcmp0 (self->client_metadata_url, url) == 0)
    return;
  replace (&self->client_metadata_url, url);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLIENT_METADATA_URL]);
}

/**
 * snodo_client_oauth_get_client_metadata_url: (get-property client-metadata-url)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets the URL of the client's Client ID Metadata Document.
 *
 * Returns: (nullable): the URL of the client's Client ID Metadata Document
 */
const char *
snodo_client_oauth_get_client_metadata_url (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), NULL);

  return self->client_metadata_url;
}

/**
 * snodo_client_oauth_set_client_credentials: (set-property client-credentials)
 * @self: a [class@Snodo.ClientOAuth]
 * @client_credentials: whether to use the client credentials grant
 *
 * Makes the client sign in as itself, with the client id and secret of
 * [method@Snodo.ClientOAuth.set_client], and no user or browser.
 */
void
snodo_client_oauth_set_client_credentials (SnodoClientOAuth *self,
                                           gboolean          client_credentials)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));

  client_credentials = !!client_credentials;
  if (self->client_credentials == client_credentials)
    return;
  self->client_credentials = client_credentials;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLIENT_CREDENTIALS]);
}

/**
 * snodo_client_oauth_get_client_credentials: (get-property client-credentials)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets whether the client signs in as itself.
 *
 * Returns: whether the client credentials grant is used
 */
gboolean
snodo_client_oauth_get_client_credentials (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), FALSE);

  return self->client_credentials;
}

/**
 * snodo_client_oauth_set_scope: (set-property scope)
 * @self: a [class@Snodo.ClientOAuth]
 * @scope: (nullable): space-separated scopes, or %NULL
 *
 * Sets scopes to ask for besides those the server names.
 */
void
snodo_client_oauth_set_scope (SnodoClientOAuth *self,
                              const char       *scope)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));

  if (g_strcmp0 (self->scope, scope) == 0)
    return;
  replace (&self->scope, scope);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCOPE]);
}

/**
 * snodo_client_oauth_get_scope: (get-property scope)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets the scopes asked for besides the server's.
 *
 * Returns: (nullable): the scopes asked for besides the server's
 */
const char *
snodo_client_oauth_get_scope (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), NULL);

  return self->scope;
}

/**
 * snodo_client_oauth_set_redirect_port: (set-property redirect-port)
 * @self: a [class@Snodo.ClientOAuth]
 * @port: a port of 127.0.0.1, or 0
 *
 * Sets the port of the loopback redirect listener.
 */
void
snodo_client_oauth_set_redirect_port (SnodoClientOAuth *self,
                                      guint             port)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));
  g_return_if_fail (port <= G_MAXUINT16);

  if (self->redirect_port == port)
    return;
  self->redirect_port = port;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REDIRECT_PORT]);
}

/**
 * snodo_client_oauth_get_redirect_port: (get-property redirect-port)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets the port set for the loopback redirect listener.
 *
 * Returns: the port set for the redirect listener, or 0
 */
guint
snodo_client_oauth_get_redirect_port (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), 0);

  return self->redirect_port;
}

/**
 * snodo_client_oauth_set_open_browser: (set-property open-browser)
 * @self: a [class@Snodo.ClientOAuth]
 * @open_browser: whether to open the user's browser
 *
 * Sets whether the sign-in URL opens in the user's browser by default.
 */
void
snodo_client_oauth_set_open_browser (SnodoClientOAuth *self,
                                     gboolean          open_browser)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));

  open_browser = !!open_browser;
  if (self->open_browser == open_browser)
    return;
  self->open_browser = open_browser;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPEN_BROWSER]);
}

/**
 * snodo_client_oauth_get_open_browser: (get-property open-browser)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets whether the sign-in URL opens in the user's browser.
 *
 * Returns: whether the sign-in URL opens in the user's browser
 */
gboolean
snodo_client_oauth_get_open_browser (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), FALSE);

  return self->open_browser;
}

/**
 * snodo_client_oauth_set_store: (set-property store)
 * @self: a [class@Snodo.ClientOAuth]
 * @store: (nullable): a credential store, or %NULL
 *
 * Sets where registrations and tokens are kept, per server.
 */
void
snodo_client_oauth_set_store (SnodoClientOAuth     *self,
                              SnodoCredentialStore *store)
{
  g_return_if_fail (SNODO_IS_CLIENT_OAUTH (self));
  g_return_if_fail (store == NULL || SNODO_IS_CREDENTIAL_STORE (store));

  if (!g_set_object (&self->store, store))
    return;
  self->prepared = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STORE]);
}

/**
 * snodo_client_oauth_get_store: (get-property store)
 * @self: a [class@Snodo.ClientOAuth]
 *
 * Gets where sign-ins are kept.
 *
 * Returns: (transfer none) (nullable): the credential store
 */
SnodoCredentialStore *
snodo_client_oauth_get_store (SnodoClientOAuth *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), NULL);

  return self->store;
}

/**
 * snodo_client_oauth_complete_authorization:
 * @self: a [class@Snodo.ClientOAuth]
 * @redirect_uri: the URI the authorization server redirected to
 *
 * Hands in the redirect of a sign-in whose URL an application loaded
 * itself (see [signal@Snodo.ClientOAuth::authorize]), for the client to
 * check and take the code from, as if the loopback listener had got it.
 *
 * Returns: %TRUE if a sign-in was waiting for it
 */
gboolean
snodo_client_oauth_complete_authorization (SnodoClientOAuth *self,
                                           const char       *redirect_uri)
{
  g_return_val_if_fail (SNODO_IS_CLIENT_OAUTH (self), FALSE);
  g_return_val_if_fail (redirect_uri != NULL, FALSE);

  if (self->flow == NULL)
    return FALSE;
  snodo_oauth_flow_redirect (self->flow, redirect_uri);
  return TRUE;
}

/**
 * snodo_client_set_oauth:
 * @client: a [class@Snodo.Client] over HTTP
 * @oauth: (nullable): sign-in for it, or %NULL
 *
 * Makes @client sign in with @oauth when the server asks for
 * authorization, and send the token it gets. An `Authorization` header
 * set with [method@Snodo.Client.set_http_header] wins over it. Set it
 * before connecting.
 */
void
snodo_client_set_oauth (SnodoClient      *client,
                        SnodoClientOAuth *oauth)
{
  g_return_if_fail (SNODO_IS_CLIENT (client));
  g_return_if_fail (oauth == NULL || SNODO_IS_CLIENT_OAUTH (oauth));

  g_set_object (&client->oauth, oauth);
}

/**
 * snodo_client_get_oauth:
 * @client: a [class@Snodo.Client]
 *
 * Gets the sign-in of @client, if any.
 *
 * Returns: (transfer none) (nullable): the client's sign-in
 */
SnodoClientOAuth *
snodo_client_get_oauth (SnodoClient *client)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (client), NULL);

  return client->oauth;
}
