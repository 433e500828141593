/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-resource.h"
#include "snodo-description.h"
#include "snodo-description-private.h"
#include "snodo-enum-types.h"

/**
 * SnodoResource:
 *
 * The description of a resource a [class@Snodo.Server] offers: a piece of
 * context named by a URI, such as a file or a document. The handler that
 * reads it is given to [method@Snodo.Server.add_resource].
 *
 * A resource's description must not change while it is registered; to
 * change it, remove the resource and add it again (clients are told of the
 * change).
 *
 * ```c
 * g_autoptr(SnodoResource) resource = snodo_resource_new ("app://notes/today", "today");
 *
 * snodo_resource_set_mime_type (resource, "text/markdown");
 * snodo_server_add_resource (server, resource, read_notes_cb, NULL, NULL, NULL);
 * ```
 *
 * From Python, a function is enough: [method@Snodo.Server.add_resource]
 * with what it returns as the content (see the Python and JavaScript page):
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 *
 * @server.resource('app://readme', mime_type='text/markdown')
 * def readme() -> str:
 *     """The read-me."""
 *     return '# My app'
 *
 *
 * server.run()
 * ```
 *
 * and from JavaScript:
 *
 * ```js
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 * server.resource('app://readme', {name: 'readme', mimeType: 'text/markdown'}, () => '# My app');
 * server.run();
 * ```
 *
 * The explicit form, in Python:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * readme = Snodo.Resource.new('app://readme', 'readme')
 * readme.set_mime_type('text/markdown')
 * server.add_resource(readme, lambda invocation: invocation.return_resource_text(
 *     None, 'text/markdown', '# My app'))
 *
 * transport = Snodo.StdioTransport.new_for_stdio(server)
 * loop = GLib.MainLoop()
 * transport.connect('closed', lambda *_: loop.quit())
 * transport.start()
 * loop.run()
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
 * const readme = Snodo.Resource.new('app://readme', 'readme');
 * readme.set_mime_type('text/markdown');
 * server.add_resource(readme, invocation =>
 *     invocation.return_resource_text(null, 'text/markdown', '# My app'));
 *
 * const transport = Snodo.StdioTransport.new_for_stdio(server);
 * const loop = new GLib.MainLoop(null, false);
 * transport.connect('closed', () => loop.quit());
 * transport.start();
 * loop.run();
 * ```
 *
 * Since: 0.1
 */

struct _SnodoResource
{
  SnodoDescription  parent_instance;

  /* Construct-only. */
  char             *uri;
  /* Nullable. */
  char             *mime_type;
  /* In bytes; -1 when unknown. */
  gint64            size;
  /* Sealed; a JSON object, or NULL. Checked when the resource is added to
   * a server. */
  JsonNode         *annotations;
  /* resources/read in 2026-07-28: ttlMs, or -1 for the server's. */
  int               cache_ttl;
  SnodoCacheScope   cache_scope;
};

G_DEFINE_FINAL_TYPE (SnodoResource, snodo_resource, SNODO_TYPE_DESCRIPTION)

enum {
  PROP_0,
  PROP_URI,
  PROP_MIME_TYPE,
  PROP_SIZE,
  PROP_ANNOTATIONS,
  PROP_CACHE_TTL,
  PROP_CACHE_SCOPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
snodo_resource_finalize (GObject *object)
{
  SnodoResource *self = SNODO_RESOURCE (object);

  g_clear_pointer (&self->uri, g_free);
  g_clear_pointer (&self->mime_type, g_free);
  g_clear_pointer (&self->annotations, json_node_unref);

  G_OBJECT_CLASS (snodo_resource_parent_class)->finalize (object);
}

static void
snodo_resource_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  SnodoResource *self = SNODO_RESOURCE (object);

  switch (prop_id)
    {
    case PROP_URI:
      g_value_set_string (value, self->uri);
      break;
    case PROP_MIME_TYPE:
      g_value_set_string (value, self->mime_type);
      break;
    case PROP_SIZE:
      g_value_set_int64 (value, self->size);
      break;
    case PROP_ANNOTATIONS:
      g_value_set_boxed (value, self->annotations);
      break;
    case PROP_CACHE_TTL:
      g_value_set_int (value, self->cache_ttl);
      break;
    case PROP_CACHE_SCOPE:
      g_value_set_enum (value, self->cache_scope);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_resource_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  SnodoResource *self = SNODO_RESOURCE (object);

  switch (prop_id)
    {
    case PROP_URI:
      self->uri = g_value_dup_string (value);
      break;
    case PROP_MIME_TYPE:
      snodo_resource_set_mime_type (self, g_value_get_string (value));
      break;
    case PROP_SIZE:
      snodo_resource_set_size (self, g_value_get_int64 (value));
      break;
    case PROP_ANNOTATIONS:
      snodo_resource_set_annotations (self, g_value_get_boxed (value));
      break;
    case PROP_CACHE_TTL:
      snodo_resource_set_cache_ttl (self, g_value_get_int (value));
      break;
    case PROP_CACHE_SCOPE:
      snodo_resource_set_cache_scope (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_resource_class_init (SnodoResourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_resource_finalize;
  object_class->get_property = snodo_resource_get_property;
  object_class->set_property = snodo_resource_set_property;

  /**
   * SnodoResource:uri: (getter get_uri)
   *
   * The resource's URI, unique within a server: an absolute URI such as
   * `file:///home/ada/notes.md` or `app://notes/today`.
   *
   * Since: 0.1
   */
  properties[PROP_URI] =
    g_param_spec_string ("uri", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResource:mime-type: (getter get_mime_type) (setter set_mime_type)
   *
   * The MIME type of the resource's content, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_MIME_TYPE] =
    g_param_spec_string ("mime-type", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResource:size: (getter get_size) (setter set_size)
   *
   * The size of the resource's content in bytes, or -1 when it is not known.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] =
    g_param_spec_int64 ("size", NULL, NULL, -1, G_MAXINT64, -1,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResource:annotations: (getter get_annotations) (setter set_annotations)
   *
   * Hints for the client, as a JSON object, or %NULL: `audience` (an array
   * of `"user"` and `"assistant"`), `priority` (a number from 0 to 1) and
   * `lastModified` (an ISO 8601 date and time). They are checked when the
   * resource is added to a server.
   *
   * Since: 0.1
   */
  properties[PROP_ANNOTATIONS] =
    g_param_spec_boxed ("annotations", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResource:cache-ttl: (getter get_cache_ttl) (setter set_cache_ttl)
   *
   * How long, in milliseconds, a 2026-07-28 client may reuse what
   * `resources/read` answers for the resource (its `ttlMs`; 0: not at all), or
   * -1, the default, for what the server says of every read
   * ([method@Snodo.Server.set_cache_hint], else
   * [property@Snodo.Server:cache-ttl]). A handler that sets `ttlMs` in its
   * result decides for itself.
   *
   * Since: 0.1
   */
  properties[PROP_CACHE_TTL] =
    g_param_spec_int ("cache-ttl", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResource:cache-scope: (getter get_cache_scope) (setter set_cache_scope)
   *
   * Who may reuse what `resources/read` answers for the resource (its
   * `cacheScope`), when [property@Snodo.Resource:cache-ttl] is not -1:
   * %SNODO_CACHE_SCOPE_PUBLIC only when the content is the same whoever
   * asks.
   *
   * Since: 0.1
   */
  properties[PROP_CACHE_SCOPE] =
    g_param_spec_enum ("cache-scope", NULL, NULL, SNODO_TYPE_CACHE_SCOPE, SNODO_CACHE_SCOPE_PRIVATE,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_resource_init (SnodoResource *self)
{
  self->cache_ttl = -1;
  self->size = -1;
}

/**
 * snodo_resource_new:
 * @uri: the resource's URI
 * @name: the resource's name
 *
 * Makes the description of a resource.
 *
 * Returns: (transfer full): a new resource
 *
 * Since: 0.1
 */
SnodoResource *
snodo_resource_new (const char *uri,
                    const char *name)
{
  g_return_val_if_fail (uri != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (SNODO_TYPE_RESOURCE,
                       "uri", uri,
                       "name", name,
                       NULL);
}

/**
 * snodo_resource_get_uri:
 * @self: a resource
 *
 * Gets the resource's URI.
 *
 * Returns: (transfer none): the URI
 *
 * Since: 0.1
 */
const char *
snodo_resource_get_uri (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return self->uri;
}

/**
 * snodo_resource_get_name:
 * @self: a resource
 *
 * Gets the resource's name.
 *
 * Returns: (transfer none): the name
 *
 * Since: 0.1
 */
const char *
snodo_resource_get_name (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return snodo_description_get_name (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_get_title:
 * @self: a resource
 *
 * Gets the resource's human-readable title.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 0.1
 */
const char *
snodo_resource_get_title (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return snodo_description_get_title (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_set_title:
 * @self: a resource
 * @title: (nullable): the title
 *
 * Sets the resource's human-readable title.
 *
 * Since: 0.1
 */
void
snodo_resource_set_title (SnodoResource *self,
                          const char    *title)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));

  snodo_description_set_title (SNODO_DESCRIPTION (self), title);
}

/**
 * snodo_resource_get_description:
 * @self: a resource
 *
 * Gets what the resource holds.
 *
 * Returns: (transfer none) (nullable): the description
 *
 * Since: 0.1
 */
const char *
snodo_resource_get_description (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return snodo_description_get_description (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_set_description:
 * @self: a resource
 * @description: (nullable): the description
 *
 * Sets what the resource holds.
 *
 * Since: 0.1
 */
void
snodo_resource_set_description (SnodoResource *self,
                                const char    *description)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));

  snodo_description_set_description (SNODO_DESCRIPTION (self), description);
}

/**
 * snodo_resource_get_mime_type:
 * @self: a resource
 *
 * Gets the MIME type of the resource's content.
 *
 * Returns: (transfer none) (nullable): the MIME type
 *
 * Since: 0.1
 */
const char *
snodo_resource_get_mime_type (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return self->mime_type;
}

/**
 * snodo_resource_set_mime_type:
 * @self: a resource
 * @mime_type: (nullable): the MIME type
 *
 * Sets the MIME type of the resource's content.
 *
 * Since: 0.1
 */
void
snodo_resource_set_mime_type (SnodoResource *self,
                              const char    *mime_type)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));

  if (snodo_description_replace_string (&self->mime_type, mime_type))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MIME_TYPE]);
}

/**
 * snodo_resource_get_size:
 * @self: a resource
 *
 * Gets the size of the resource's content.
 *
 * Returns: the size in bytes, or -1 when it is not known
 *
 * Since: 0.1
 */
gint64
snodo_resource_get_size (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), -1);
  return self->size;
}

/**
 * snodo_resource_set_size:
 * @self: a resource
 * @size: the size in bytes, or -1 when it is not known
 *
 * Sets the size of the resource's content.
 *
 * Since: 0.1
 */
void
snodo_resource_set_size (SnodoResource *self,
                         gint64         size)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));
  g_return_if_fail (size >= -1);

  if (self->size == size)
    return;
  self->size = size;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIZE]);
}

/**
 * snodo_resource_get_annotations:
 * @self: a resource
 *
 * Gets the hints for the client.
 *
 * Returns: (transfer none) (nullable): the annotations, a sealed JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_resource_get_annotations (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return self->annotations;
}

/**
 * snodo_resource_set_annotations:
 * @self: a resource
 * @annotations: (nullable): a JSON object, or %NULL
 *
 * Sets the hints for the client (see [property@Snodo.Resource:annotations]).
 * A copy is kept.
 *
 * Since: 0.1
 */
void
snodo_resource_set_annotations (SnodoResource *self,
                                JsonNode      *annotations)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));
  g_return_if_fail (annotations == NULL || JSON_NODE_HOLDS_OBJECT (annotations));

  if (snodo_description_replace_json (&self->annotations, annotations))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANNOTATIONS]);
}

/**
 * snodo_resource_get_icons:
 * @self: a resource
 *
 * Gets the resource's icons.
 *
 * Returns: (transfer none) (nullable): the icons, a sealed JSON array
 *
 * Since: 0.1
 */
JsonNode *
snodo_resource_get_icons (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), NULL);
  return snodo_description_get_icons (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_set_icons:
 * @self: a resource
 * @icons: (nullable): a JSON array of icon objects, or %NULL
 *
 * Sets the resource's icons (see [property@Snodo.Description:icons]). A copy is
 * kept.
 *
 * Since: 0.1
 */
void
snodo_resource_set_icons (SnodoResource *self,
                          JsonNode      *icons)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));

  snodo_description_set_icons (SNODO_DESCRIPTION (self), icons);
}

/**
 * snodo_resource_get_cache_ttl:
 * @self: a resource
 *
 * Gets how long 2026-07-28 clients may reuse what `resources/read` answers
 * for the resource.
 *
 * Returns: the time in milliseconds, or -1 for the server's
 *
 * Since: 0.1
 */
int
snodo_resource_get_cache_ttl (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), -1);
  return self->cache_ttl;
}

/**
 * snodo_resource_set_cache_ttl:
 * @self: a resource
 * @cache_ttl: the time in milliseconds, or -1 for the server's
 *
 * Sets how long 2026-07-28 clients may reuse what `resources/read` answers
 * for the resource.
 *
 * Since: 0.1
 */
void
snodo_resource_set_cache_ttl (SnodoResource *self,
                              int            cache_ttl)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));
  g_return_if_fail (cache_ttl >= -1);

  if (self->cache_ttl == cache_ttl)
    return;
  self->cache_ttl = cache_ttl;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE_TTL]);
}

/**
 * snodo_resource_get_cache_scope:
 * @self: a resource
 *
 * Gets who may reuse what `resources/read` answers for the resource.
 *
 * Returns: the scope
 *
 * Since: 0.1
 */
SnodoCacheScope
snodo_resource_get_cache_scope (SnodoResource *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE (self), SNODO_CACHE_SCOPE_PRIVATE);
  return self->cache_scope;
}

/**
 * snodo_resource_set_cache_scope:
 * @self: a resource
 * @cache_scope: the scope
 *
 * Sets who may reuse what `resources/read` answers for the resource.
 *
 * Since: 0.1
 */
void
snodo_resource_set_cache_scope (SnodoResource   *self,
                                SnodoCacheScope  cache_scope)
{
  g_return_if_fail (SNODO_IS_RESOURCE (self));
  g_return_if_fail (cache_scope == SNODO_CACHE_SCOPE_PRIVATE || cache_scope == SNODO_CACHE_SCOPE_PUBLIC);

  if (self->cache_scope == cache_scope)
    return;
  self->cache_scope = cache_scope;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE_SCOPE]);
}
