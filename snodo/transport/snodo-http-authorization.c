/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <gio/gio.h>

#include "snodo-base-private.h"
#include "snodo-http-auth-private.h"
#include "snodo-http-authorization.h"
#include "snodo-http-transport-private.h"

/**
 * SnodoHttpAuthorization:
 *
 * Protects a [class@Snodo.HttpTransport] with OAuth 2 bearer tokens, as
 * the MCP authorization specification asks of an HTTP server (the
 * resource server's side: tokens come from an authorization server that
 * the application names, never from Snodo).
 *
 * Given to a transport with [method@Snodo.HttpTransport.set_authorization]
 * before it listens, it makes every request of the endpoint (POST, GET and
 * DELETE, in every protocol version) carry an `Authorization: Bearer`
 * header:
 *
 * - Without one, the request is answered 401 with
 *   `WWW-Authenticate: Bearer resource_metadata="…"` (and `scope="…"`, the
 *   [property@Snodo.HttpAuthorization:required-scopes], when there are
 *   any), which tells the client where the protected resource metadata is.
 * - With one, [signal@Snodo.HttpAuthorization::validate-token] is emitted
 *   with a [class@Snodo.AuthRequest] that the application completes, at
 *   once or later: refused, the request is answered 401 with
 *   `error="invalid_token"`; accepted with too few scopes, 403 with
 *   `error="insufficient_scope"` and the scopes needed; accepted, it is
 *   served, and its handler finds the principal and scopes on its
 *   invocation ([method@Snodo.Invocation.get_principal],
 *   [method@Snodo.Invocation.get_scopes]). No check may hold a request for
 *   longer than [property@Snodo.HttpAuthorization:validation-timeout]
 *   seconds (then 503).
 * - A session of the initialize era belongs to the principal whose token
 *   started it: a request that carries its `Mcp-Session-Id` with a token
 *   of another principal is answered 404, as if the session did not exist
 *   (it does not, for that principal).
 *
 * The answers are the transport's other HTTP errors: a JSON-RPC error
 * body with code -32600 (-32603 for 503), with the request's id when the
 * body was read.
 *
 * The protected resource metadata (RFC 9728) is served, to anyone, at
 * `/.well-known/oauth-protected-resource` and at the same path followed by
 * the endpoint's path (`/.well-known/oauth-protected-resource/mcp`), which
 * is the URL the challenges give. It holds `resource`,
 * `authorization_servers`, `scopes_supported`,
 * `bearer_methods_supported` (`["header"]`: a token anywhere else is not
 * looked at), `resource_name` and `resource_documentation`, as set here.
 *
 * Tokens are never logged. A token is checked for every request; an
 * application whose check is costly keeps its own cache.
 *
 * Instead of a handler, the authorization server can check the tokens:
 * with [method@Snodo.HttpAuthorization.set_introspection], a token that no
 * handler takes is sent to its introspection endpoint (RFC 7662), which
 * says whether it is active, for whom, with which scopes and for which
 * audience; Snodo keeps the answers a short while.
 *
 * In Python (the answer may as well come later, from a callback):
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * authorization = Snodo.HttpAuthorization.new()
 * authorization.set_authorization_servers(['https://auth.example.com'])
 * tokens = {'example-token': ('ada', ['mcp:tools'])}
 *
 * def validate(authorization, request):
 *     entry = tokens.get(request.get_token())
 *     if entry is None:
 *         request.refuse('unknown token')
 *     else:
 *         request.accept(*entry)
 *     return True
 *
 * authorization.connect('validate-token', validate)
 * transport = Snodo.HttpTransport.new(server)
 * transport.set_authorization(authorization)
 * transport.listen_local(0)
 * print(transport.dup_uri(), flush=True)
 * GLib.MainLoop().run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 *
 * const authorization = Snodo.HttpAuthorization.new();
 * authorization.set_authorization_servers(['https://auth.example.com']);
 * const tokens = new Map([['example-token', ['ada', ['mcp:tools']]]]);
 * authorization.connect('validate-token', (self, request) => {
 *     const entry = tokens.get(request.get_token());
 *     if (entry === undefined)
 *         request.refuse('unknown token');
 *     else
 *         request.accept(...entry);
 *     return true;
 * });
 * const transport = Snodo.HttpTransport.new(server);
 * transport.set_authorization(authorization);
 * transport.listen_local(0);
 * print(transport.dup_uri());
 * new GLib.MainLoop(null, false).run();
 * ```
 *
 * A handler reads who calls with [method@Snodo.Invocation.get_principal].
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (SnodoHttpAuthorization, snodo_http_authorization, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_RESOURCE,
  PROP_AUTHORIZATION_SERVERS,
  PROP_SCOPES_SUPPORTED,
  PROP_REQUIRED_SCOPES,
  PROP_RESOURCE_NAME,
  PROP_RESOURCE_DOCUMENTATION,
  PROP_VALIDATION_TIMEOUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_VALIDATE_TOKEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Replaces *@field with a copy of @value; FALSE if they were equal. */
static gboolean
replace_str (char       **field,
             const char  *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static gboolean
replace_strv (char               ***field,
              const char * const   *value,
              gboolean              never_null)
{
  static const char * const none[] = { NULL };

  if (value == NULL && never_null)
    value = none;
  if (*field == NULL && value == NULL)
    return FALSE;
  if (*field != NULL && value != NULL && g_strv_equal ((const char * const *) *field, value))
    return FALSE;
  g_strfreev (*field);
  *field = g_strdupv ((char **) value);
  return TRUE;
}

static void
snodo_http_authorization_finalize (GObject *object)
{
  SnodoHttpAuthorization *self = SNODO_HTTP_AUTHORIZATION (object);

  g_free (self->resource);
  g_strfreev (self->authorization_servers);
  g_strfreev (self->scopes_supported);
  g_strfreev (self->required_scopes);
  g_free (self->resource_name);
  g_free (self->resource_documentation);
  g_hash_table_unref (self->tool_scopes);
  g_clear_pointer (&self->introspection, snodo_introspection_unref);

  G_OBJECT_CLASS (snodo_http_authorization_parent_class)->finalize (object);
}

static void
snodo_http_authorization_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  SnodoHttpAuthorization *self = SNODO_HTTP_AUTHORIZATION (object);

  switch (prop_id)
    {
    case PROP_RESOURCE:
      g_value_set_string (value, self->resource);
      break;
    case PROP_AUTHORIZATION_SERVERS:
      g_value_set_boxed (value, self->authorization_servers);
      break;
    case PROP_SCOPES_SUPPORTED:
      g_value_set_boxed (value, self->scopes_supported);
      break;
    case PROP_REQUIRED_SCOPES:
      g_value_set_boxed (value, self->required_scopes);
      break;
    case PROP_RESOURCE_NAME:
      g_value_set_string (value, self->resource_name);
      break;
    case PROP_RESOURCE_DOCUMENTATION:
      g_value_set_string (value, self->resource_documentation);
      break;
    case PROP_VALIDATION_TIMEOUT:
      g_value_set_uint (value, self->validation_timeout);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_http_authorization_set_property (GObject      *object,
                                       guint         prop_id,
                                       const GValue *value,
                                       GParamSpec   *pspec)
{
  SnodoHttpAuthorization *self = SNODO_HTTP_AUTHORIZATION (object);

  switch (prop_id)
    {
    case PROP_RESOURCE:
      snodo_http_authorization_set_resource (self, g_value_get_string (value));
      break;
    case PROP_AUTHORIZATION_SERVERS:
      snodo_http_authorization_set_authorization_servers (self, g_value_get_boxed (value));
      break;
    case PROP_SCOPES_SUPPORTED:
      snodo_http_authorization_set_scopes_supported (self, g_value_get_boxed (value));
      break;
    case PROP_REQUIRED_SCOPES:
      snodo_http_authorization_set_required_scopes (self, g_value_get_boxed (value));
      break;
    case PROP_RESOURCE_NAME:
      snodo_http_authorization_set_resource_name (self, g_value_get_string (value));
      break;
    case PROP_RESOURCE_DOCUMENTATION:
      snodo_http_authorization_set_resource_documentation (self, g_value_get_string (value));
      break;
    case PROP_VALIDATION_TIMEOUT:
      snodo_http_authorization_set_validation_timeout (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_http_authorization_class_init (SnodoHttpAuthorizationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_http_authorization_finalize;
  object_class->get_property = snodo_http_authorization_get_property;
  object_class->set_property = snodo_http_authorization_set_property;

  /**
   * SnodoHttpAuthorization:resource: (getter get_resource) (setter set_resource)
   *
   * The resource identifier of the endpoint (RFC 8707, RFC 9728): its
   * canonical URL, such as `https://mcp.example.com/mcp`, which clients
   * name when they ask the authorization server for a token, and which the
   * metadata document's `resource` holds. The challenges point to the
   * metadata at the URL RFC 9728 derives from it
   * (`https://mcp.example.com/.well-known/oauth-protected-resource/mcp`);
   * a proxy in front of the transport must forward that path unchanged.
   *
   * %NULL (the default): the URL of the endpoint as each request names it
   * (`http` or `https`, its `Host` header, and
   * [property@Snodo.HttpTransport:path]). Behind a proxy, or whenever the
   * tokens' audience is fixed, set it.
   *
   * Since: 0.1
   */
  properties[PROP_RESOURCE] =
    g_param_spec_string ("resource", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpAuthorization:authorization-servers: (getter get_authorization_servers) (setter set_authorization_servers)
   *
   * The issuer URLs of the authorization servers whose tokens the
   * application accepts: the metadata document's `authorization_servers`,
   * where clients go to get a token. MCP requires at least one.
   *
   * Since: 0.1
   */
  properties[PROP_AUTHORIZATION_SERVERS] =
    g_param_spec_boxed ("authorization-servers", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpAuthorization:scopes-supported: (getter get_scopes_supported) (setter set_scopes_supported)
   *
   * The metadata document's `scopes_supported`: the scopes a client may
   * ask for (omitted when %NULL).
   *
   * Since: 0.1
   */
  properties[PROP_SCOPES_SUPPORTED] =
    g_param_spec_boxed ("scopes-supported", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpAuthorization:required-scopes: (getter get_required_scopes) (setter set_required_scopes)
   *
   * Scopes every request needs (none by default): a token accepted
   * without one of them is answered 403 `insufficient_scope`. The 401
   * challenges name them in `scope`, the scopes a client should ask for.
   *
   * Since: 0.1
   */
  properties[PROP_REQUIRED_SCOPES] =
    g_param_spec_boxed ("required-scopes", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpAuthorization:resource-name: (getter get_resource_name) (setter set_resource_name)
   *
   * The metadata document's `resource_name`, a name for people, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_RESOURCE_NAME] =
    g_param_spec_string ("resource-name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpAuthorization:resource-documentation: (getter get_resource_documentation) (setter set_resource_documentation)
   *
   * The metadata document's `resource_documentation`, a URL of
   * documentation for developers, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_RESOURCE_DOCUMENTATION] =
    g_param_spec_string ("resource-documentation", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpAuthorization:validation-timeout: (getter get_validation_timeout) (setter set_validation_timeout)
   *
   * Seconds the check of a token may take, from the emission of
   * [signal@Snodo.HttpAuthorization::validate-token] to the application's
   * answer. Past it, the request is answered 503 (error -32603), the
   * [class@Snodo.AuthRequest]'s cancellable is cancelled and a late answer
   * is ignored. At least 1; the default is 10.
   *
   * Since: 0.1
   */
  properties[PROP_VALIDATION_TIMEOUT] =
    g_param_spec_uint ("validation-timeout", NULL, NULL,
                       1, 3600, 10,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SnodoHttpAuthorization::validate-token:
   * @self: the authorization
   * @request: the token to check
   *
   * A request carries a bearer token: the handler checks it and completes
   * @request with [method@Snodo.AuthRequest.accept] or
   * [method@Snodo.AuthRequest.refuse], now or later (it keeps a reference
   * to @request until then), and returns %TRUE.
   *
   * If no handler returns %TRUE and none completed @request, the token is
   * checked at the introspection endpoint when
   * [method@Snodo.HttpAuthorization.set_introspection] named one, and
   * refused otherwise: a transport whose application forgot to check
   * tokens lets nobody in.
   *
   * Emitted on the transport's context (the thread-default main context
   * where it was made).
   *
   * Returns: %TRUE if the handler took @request
   *
   * Since: 0.1
   */
  signals[SIGNAL_VALIDATE_TOKEN] =
    g_signal_new ("validate-token",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  g_signal_accumulator_true_handled, NULL,
                  NULL,
                  G_TYPE_BOOLEAN, 1, SNODO_TYPE_AUTH_REQUEST);
}

static void
snodo_http_authorization_init (SnodoHttpAuthorization *self)
{
  self->required_scopes = g_new0 (char *, 1);
  self->validation_timeout = 10;
  self->tool_scopes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_strfreev);
}

gboolean
snodo_http_authorization_emit_validate (SnodoHttpAuthorization *self,
                                        SnodoAuthRequest       *request)
{
  gboolean handled = FALSE;

  g_signal_emit (self, signals[SIGNAL_VALIDATE_TOKEN], 0, request, &handled);
  return handled;
}

/**
 * snodo_http_authorization_new:
 *
 * Creates an authorization to give to a transport with
 * [method@Snodo.HttpTransport.set_authorization]. Connect to
 * [signal@Snodo.HttpAuthorization::validate-token] (or call
 * [method@Snodo.HttpAuthorization.set_introspection]) and set
 * [property@Snodo.HttpAuthorization:authorization-servers].
 *
 * Returns: (transfer full): a new authorization
 *
 * Since: 0.1
 */
SnodoHttpAuthorization *
snodo_http_authorization_new (void)
{
  return g_object_new (SNODO_TYPE_HTTP_AUTHORIZATION, NULL);
}

/**
 * snodo_http_authorization_get_resource: (get-property resource)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:resource].
 *
 * Returns: (nullable): the resource identifier, or %NULL for the URL each
 *   request names
 *
 * Since: 0.1
 */
const char *
snodo_http_authorization_get_resource (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return self->resource;
}

/**
 * snodo_http_authorization_set_resource: (set-property resource)
 * @self: an authorization
 * @resource: (nullable): an absolute `http` or `https` URL without a
 *   fragment, or %NULL
 *
 * Sets [property@Snodo.HttpAuthorization:resource].
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_resource (SnodoHttpAuthorization *self,
                                       const char             *resource)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));

  if (resource != NULL)
    {
      g_autoptr(GUri) uri = g_uri_parse (resource, G_URI_FLAGS_NONE, NULL);

      g_return_if_fail (uri != NULL && g_uri_get_host (uri) != NULL && g_uri_get_fragment (uri) == NULL);
      g_return_if_fail (g_str_equal (g_uri_get_scheme (uri), "http") ||
                        g_str_equal (g_uri_get_scheme (uri), "https"));
    }
  if (replace_str (&self->resource, resource))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESOURCE]);
}

/**
 * snodo_http_authorization_get_authorization_servers: (get-property authorization-servers)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:authorization-servers].
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the issuer URLs
 *
 * Since: 0.1
 */
const char * const *
snodo_http_authorization_get_authorization_servers (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return (const char * const *) self->authorization_servers;
}

/**
 * snodo_http_authorization_set_authorization_servers: (set-property authorization-servers)
 * @self: an authorization
 * @authorization_servers: (array zero-terminated=1) (nullable): issuer URLs
 *
 * Sets [property@Snodo.HttpAuthorization:authorization-servers].
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_authorization_servers (SnodoHttpAuthorization *self,
                                                    const char * const     *authorization_servers)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));

  if (replace_strv (&self->authorization_servers, authorization_servers, FALSE))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTHORIZATION_SERVERS]);
}

/**
 * snodo_http_authorization_get_scopes_supported: (get-property scopes-supported)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:scopes-supported].
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the scopes
 *
 * Since: 0.1
 */
const char * const *
snodo_http_authorization_get_scopes_supported (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return (const char * const *) self->scopes_supported;
}

/**
 * snodo_http_authorization_set_scopes_supported: (set-property scopes-supported)
 * @self: an authorization
 * @scopes_supported: (array zero-terminated=1) (nullable): scopes
 *
 * Sets [property@Snodo.HttpAuthorization:scopes-supported].
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_scopes_supported (SnodoHttpAuthorization *self,
                                               const char * const     *scopes_supported)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));

  if (replace_strv (&self->scopes_supported, scopes_supported, FALSE))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCOPES_SUPPORTED]);
}

/**
 * snodo_http_authorization_get_required_scopes: (get-property required-scopes)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:required-scopes].
 *
 * Returns: (transfer none) (array zero-terminated=1): the scopes, possibly none
 *
 * Since: 0.1
 */
const char * const *
snodo_http_authorization_get_required_scopes (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return (const char * const *) self->required_scopes;
}

/**
 * snodo_http_authorization_set_required_scopes: (set-property required-scopes)
 * @self: an authorization
 * @required_scopes: (array zero-terminated=1) (nullable): scopes, or %NULL
 *   for none
 *
 * Sets [property@Snodo.HttpAuthorization:required-scopes].
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_required_scopes (SnodoHttpAuthorization *self,
                                              const char * const     *required_scopes)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));

  if (replace_strv (&self->required_scopes, required_scopes, TRUE))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REQUIRED_SCOPES]);
}

/**
 * snodo_http_authorization_get_resource_name: (get-property resource-name)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:resource-name].
 *
 * Returns: (nullable): the name
 *
 * Since: 0.1
 */
const char *
snodo_http_authorization_get_resource_name (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return self->resource_name;
}

/**
 * snodo_http_authorization_set_resource_name: (set-property resource-name)
 * @self: an authorization
 * @resource_name: (nullable): a name for people
 *
 * Sets [property@Snodo.HttpAuthorization:resource-name].
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_resource_name (SnodoHttpAuthorization *self,
                                            const char             *resource_name)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));

  if (replace_str (&self->resource_name, resource_name))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESOURCE_NAME]);
}

/**
 * snodo_http_authorization_get_resource_documentation: (get-property resource-documentation)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:resource-documentation].
 *
 * Returns: (nullable): the URL
 *
 * Since: 0.1
 */
const char *
snodo_http_authorization_get_resource_documentation (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return self->resource_documentation;
}

/**
 * snodo_http_authorization_set_resource_documentation: (set-property resource-documentation)
 * @self: an authorization
 * @resource_documentation: (nullable): a URL
 *
 * Sets [property@Snodo.HttpAuthorization:resource-documentation].
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_resource_documentation (SnodoHttpAuthorization *self,
                                                     const char             *resource_documentation)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));

  if (replace_str (&self->resource_documentation, resource_documentation))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESOURCE_DOCUMENTATION]);
}

/**
 * snodo_http_authorization_get_validation_timeout: (get-property validation-timeout)
 * @self: an authorization
 *
 * Gets [property@Snodo.HttpAuthorization:validation-timeout].
 *
 * Returns: seconds
 *
 * Since: 0.1
 */
guint
snodo_http_authorization_get_validation_timeout (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), 0);

  return self->validation_timeout;
}

/**
 * snodo_http_authorization_set_validation_timeout: (set-property validation-timeout)
 * @self: an authorization
 * @validation_timeout: seconds, 1 to 3600
 *
 * Sets [property@Snodo.HttpAuthorization:validation-timeout]; checks
 * already waiting keep theirs.
 *
 * Since: 0.1
 */
void
snodo_http_authorization_set_validation_timeout (SnodoHttpAuthorization *self,
                                                 guint                   validation_timeout)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));
  g_return_if_fail (validation_timeout >= 1 && validation_timeout <= 3600);

  if (self->validation_timeout == validation_timeout)
    return;
  self->validation_timeout = validation_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALIDATION_TIMEOUT]);
}

/**
 * snodo_http_authorization_set_introspection:
 * @self: an authorization
 * @endpoint: (nullable): the URL of the authorization server's token
 *   introspection endpoint (its metadata's `introspection_endpoint`), or
 *   %NULL for none (the default)
 * @client_id: (nullable): the client id of this resource server at the
 *   authorization server (needed with @endpoint)
 * @client_secret: (nullable): its client secret (needed with @endpoint)
 * @error: return location for a #GError
 *
 * Has the authorization server check the tokens that no handler of
 * [signal@Snodo.HttpAuthorization::validate-token] takes, by OAuth 2.0
 * Token Introspection (RFC 7662): the token is POSTed to @endpoint
 * (`token` and `token_type_hint=access_token`, form-encoded), the resource
 * server authenticating as a confidential client with HTTP Basic
 * (`client_secret_basic`). The token is accepted if the answer says it is
 * `active`, and:
 *
 * - its `aud` (a string or an array) holds the resource identifier
 *   ([method@Snodo.AuthRequest.get_resource]: the
 *   [property@Snodo.HttpAuthorization:resource], or the endpoint's URL as
 *   the request names it), as MCP requires of a server. A trailing slash
 *   is not a difference (`https://mcp.example.com` is
 *   `https://mcp.example.com/`); an answer without `aud` is refused, so
 *   the authorization server must support resource indicators (RFC 8707)
 *   or give its tokens that audience otherwise;
 * - its `exp` (if any) is still to come and its `nbf` (if any) has passed;
 * - its `token_type` (if any) is `Bearer` (or `access_token`), not a
 *   refresh token.
 *
 * The principal is the answer's `sub`, or else its `username`, or else
 * its `client_id`; the scopes are its `scope`, split at spaces. A token
 * that is not accepted is refused (401 `invalid_token`). An endpoint that
 * cannot be reached, does not answer 200 with a JSON object (of at most 64
 * KiB) or takes longer than
 * [property@Snodo.HttpAuthorization:validation-timeout] fails the request
 * with 503, not 401 (the client's token may be good: signing in again would
 * not help), and a message is logged that names the endpoint.
 *
 * The answers for active tokens are kept, keyed by a hash of the token,
 * for 60 seconds at most (never past their `exp`), 256 tokens at most: a
 * revoked token may still be accepted that long. Tokens and the secret are
 * never logged; the secret is never sent anywhere but @endpoint, which
 * must be `https`, or `http` to this machine (a loopback address or
 * `localhost`); redirects are not followed.
 *
 * Call it before the transport listens, or on its context: the checks run
 * there (those under way when it changes finish with what they had).
 *
 * Returns: %TRUE, or %FALSE with @error set when @endpoint is not an
 *   allowed URL
 *
 * Since: 0.1
 */
gboolean
snodo_http_authorization_set_introspection (SnodoHttpAuthorization  *self,
                                            const char              *endpoint,
                                            const char              *client_id,
                                            const char              *client_secret,
                                            GError                 **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), FALSE);
  g_return_val_if_fail (endpoint == NULL || (client_id != NULL && client_secret != NULL), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (endpoint != NULL && !snodo_introspection_endpoint_is_allowed (endpoint, error))
    return FALSE;
  g_clear_pointer (&self->introspection, snodo_introspection_unref);
  if (endpoint != NULL)
    self->introspection = snodo_introspection_new (endpoint, client_id, client_secret);
  return TRUE;
}

/**
 * snodo_http_authorization_get_introspection_endpoint:
 * @self: an authorization
 *
 * Gets the introspection endpoint that
 * [method@Snodo.HttpAuthorization.set_introspection] set.
 *
 * Returns: (nullable): its URL, or %NULL for none
 *
 * Since: 0.1
 */
const char *
snodo_http_authorization_get_introspection_endpoint (SnodoHttpAuthorization *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);

  return self->introspection != NULL ? snodo_introspection_get_endpoint (self->introspection) : NULL;
}

/**
 * snodo_http_authorization_require_tool_scopes:
 * @self: an authorization
 * @tool_name: the name of a tool
 * @scopes: (array zero-terminated=1) (nullable): the scopes a call of the
 *   tool needs, besides [property@Snodo.HttpAuthorization:required-scopes];
 *   %NULL or empty for none
 *
 * Makes `tools/call` of @tool_name need @scopes: a request whose token
 * lacks one of them is answered 403 with `error="insufficient_scope"` and
 * `scope` naming every scope the call needs, so that the client can ask
 * for them (a step-up). Its handler never runs.
 *
 * Since: 0.1
 */
void
snodo_http_authorization_require_tool_scopes (SnodoHttpAuthorization *self,
                                              const char             *tool_name,
                                              const char * const     *scopes)
{
  g_return_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self));
  g_return_if_fail (tool_name != NULL);

  if (scopes == NULL || scopes[0] == NULL)
    g_hash_table_remove (self->tool_scopes, tool_name);
  else
    g_hash_table_replace (self->tool_scopes, g_strdup (tool_name), g_strdupv ((char **) scopes));
}

/**
 * snodo_http_authorization_get_tool_scopes:
 * @self: an authorization
 * @tool_name: the name of a tool
 *
 * Gets what [method@Snodo.HttpAuthorization.require_tool_scopes] set for
 * @tool_name.
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the
 *   scopes, or %NULL for none
 *
 * Since: 0.1
 */
const char * const *
snodo_http_authorization_get_tool_scopes (SnodoHttpAuthorization *self,
                                          const char             *tool_name)
{
  g_return_val_if_fail (SNODO_IS_HTTP_AUTHORIZATION (self), NULL);
  g_return_val_if_fail (tool_name != NULL, NULL);

  return g_hash_table_lookup (self->tool_scopes, tool_name);
}

/**
 * snodo_http_transport_set_authorization:
 * @self: a transport
 * @authorization: (nullable): the authorization of its requests, or %NULL
 *   for none (the default)
 *
 * Protects the transport's endpoint with bearer tokens, as
 * [class@Snodo.HttpAuthorization] describes, and serves its protected
 * resource metadata. Only before the transport listens or is attached.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_authorization (SnodoHttpTransport     *self,
                                        SnodoHttpAuthorization *authorization)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (authorization == NULL || SNODO_IS_HTTP_AUTHORIZATION (authorization));
  g_return_if_fail (self->state == STATE_NEW);

  g_set_object (&self->authorization, authorization);
}

/**
 * snodo_http_transport_get_authorization:
 * @self: a transport
 *
 * Gets what [method@Snodo.HttpTransport.set_authorization] set.
 *
 * Returns: (transfer none) (nullable): the authorization, or %NULL
 *
 * Since: 0.1
 */
SnodoHttpAuthorization *
snodo_http_transport_get_authorization (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);

  return self->authorization;
}
