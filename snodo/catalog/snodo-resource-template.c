/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-base-private.h"

#include "snodo-resource-template.h"
#include "snodo-description.h"
#include "snodo-error.h"
#include "snodo-description-private.h"
#include "snodo-enum-types.h"
#include "snodo-protocol-private.h"

/**
 * SnodoResourceTemplate:
 *
 * The description of a family of resources a [class@Snodo.Server] offers,
 * named by a URI template such as `app://notes/{day}`. The handler that
 * reads them is given to [method@Snodo.Server.add_resource_template].
 *
 * Templates are those of RFC 6570, all four levels: `{name}`, reserved
 * `{+path}`, fragment `{#frag}`, label `{.ext}`, path segments `{/seg}`,
 * parameters `{;p}`, queries `{?q,page}` and `{&more}`, several variables
 * in an expression, prefixes `{name:3}` and explode `{seg*}`. Names are of
 * `A-Z a-z 0-9 _`, dots between them and percent escapes.
 *
 * A URI matches when its text equals the template's outside the
 * expressions and the expressions can stand for the rest; the handler
 * finds the values, percent-decoded, in
 * [method@Snodo.Invocation.get_variables]:
 *
 * - `{name}` stands for a non-empty run of characters without `/` (level
 *   1); `{+path}` and `{#frag}` for any run; `{.x}` and `{/x}` for one
 *   without `/`; `{;x}` without `/` or `;`; `{?x}` and `{&x}` without `&`
 *   or `#`.
 * - Variables may be missing: `app://search{?q,page}` matches
 *   `app://search?page=2` with only `page` among the variables. An
 *   expression without a leading character (`{name}`, `{+path}`) never
 *   stands for nothing, so its first variable is there and not empty.
 * - A variable without explode is a string, even when a list was expanded
 *   into it (`red,green,blue`). An exploded one is a JSON array of its
 *   items (`app://files{/seg*}` on `app://files/a/b` gives
 *   `["a", "b"]`; `{?id*}` on `?id=1&id=2` gives `["1", "2"]`), or a JSON
 *   object when its items are `name=value` pairs with other names
 *   (`{?filter*}` on `?kind=a&size=2`).
 * - When the URI can be split in several ways, the variables from left to
 *   right take the shortest values that let the rest match
 *   (`app://{a}.{b}` on `app://x.y.z`: `a` is `x`); a variable used twice
 *   must get the same value (or a prefix of it, for a prefix use).
 *
 * Matching takes time linear in the length of the URI, whatever the
 * template and URI. [method@Snodo.ResourceTemplate.expand] goes the other
 * way, from values to a URI, for clients and completion.
 *
 * A template's description must not change while it is registered; to
 * change it, remove the template and add it again (clients are told of the
 * change).
 *
 * ```c
 * g_autoptr(SnodoResourceTemplate) notes = NULL;
 *
 * notes = snodo_resource_template_new ("app://notes/{day}", "notes");
 *
 * snodo_resource_template_set_mime_type (notes, "text/markdown");
 * snodo_server_add_resource_template (server, notes, read_notes_cb, NULL, NULL, NULL);
 * ```
 *
 * From Python, a function whose parameters are the template's variables is
 * enough (see the Python and JavaScript page):
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 *
 * @server.resource('app://notes/{day}', mime_type='text/plain')
 * def notes(day: str) -> str:
 *     """The notes of a day."""
 *     return 'Notes of ' + day
 *
 *
 * server.run()
 * ```
 *
 * and from JavaScript, a function given the variables:
 *
 * ```js
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 * server.resource('app://notes/{day}', {name: 'notes', mimeType: 'text/plain'},
 *     ({day}) => `Notes of ${day}`);
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
 * notes = Snodo.ResourceTemplate.new('app://notes/{day}', 'notes')
 * notes.set_mime_type('text/plain')
 *
 * def read_notes(invocation):
 *     day = invocation.get_variables()['day']
 *     invocation.return_resource_text(None, 'text/plain', 'Notes of ' + day)
 *
 * server.add_resource_template(notes, read_notes)
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
 * const notes = Snodo.ResourceTemplate.new('app://notes/{day}', 'notes');
 * notes.set_mime_type('text/plain');
 * server.add_resource_template(notes, invocation => {
 *     const {day} = invocation.get_variables();
 *     invocation.return_resource_text(null, 'text/plain', `Notes of ${day}`);
 * });
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

struct _SnodoResourceTemplate
{
  SnodoDescription  parent_instance;

  /* Construct-only. */
  char             *uri_template;
  /* Nullable. */
  char             *mime_type;
  /* Sealed; a JSON object, or NULL. Checked when the template is added to
   * a server. */
  JsonNode         *annotations;
  /* resources/read in 2026-07-28: ttlMs, or -1 for the server's. */
  int               cache_ttl;
  SnodoCacheScope   cache_scope;
};

G_DEFINE_FINAL_TYPE (SnodoResourceTemplate, snodo_resource_template, SNODO_TYPE_DESCRIPTION)

enum {
  PROP_0,
  PROP_URI_TEMPLATE,
  PROP_MIME_TYPE,
  PROP_ANNOTATIONS,
  PROP_CACHE_TTL,
  PROP_CACHE_SCOPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
snodo_resource_template_finalize (GObject *object)
{
  SnodoResourceTemplate *self = SNODO_RESOURCE_TEMPLATE (object);

  g_clear_pointer (&self->uri_template, g_free);
  g_clear_pointer (&self->mime_type, g_free);
  g_clear_pointer (&self->annotations, json_node_unref);

  G_OBJECT_CLASS (snodo_resource_template_parent_class)->finalize (object);
}

static void
snodo_resource_template_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  SnodoResourceTemplate *self = SNODO_RESOURCE_TEMPLATE (object);

  switch (prop_id)
    {
    case PROP_URI_TEMPLATE:
      g_value_set_string (value, self->uri_template);
      break;
    case PROP_MIME_TYPE:
      g_value_set_string (value, self->mime_type);
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
snodo_resource_template_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  SnodoResourceTemplate *self = SNODO_RESOURCE_TEMPLATE (object);

  switch (prop_id)
    {
    case PROP_URI_TEMPLATE:
      self->uri_template = g_value_dup_string (value);
      break;
    case PROP_MIME_TYPE:
      snodo_resource_template_set_mime_type (self, g_value_get_string (value));
      break;
    case PROP_ANNOTATIONS:
      snodo_resource_template_set_annotations (self, g_value_get_boxed (value));
      break;
    case PROP_CACHE_TTL:
      snodo_resource_template_set_cache_ttl (self, g_value_get_int (value));
      break;
    case PROP_CACHE_SCOPE:
      snodo_resource_template_set_cache_scope (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_resource_template_class_init (SnodoResourceTemplateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_resource_template_finalize;
  object_class->get_property = snodo_resource_template_get_property;
  object_class->set_property = snodo_resource_template_set_property;

  /**
   * SnodoResourceTemplate:uri-template: (getter get_uri_template)
   *
   * The URI template, unique within a server: RFC 6570, such as
   * `app://notes/{day}` or `app://search{?q,page}`. It is checked when the template is added to a
   * server.
   *
   * Since: 0.1
   */
  properties[PROP_URI_TEMPLATE] =
    g_param_spec_string ("uri-template", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResourceTemplate:mime-type: (getter get_mime_type) (setter set_mime_type)
   *
   * The MIME type of the template's resources, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_MIME_TYPE] =
    g_param_spec_string ("mime-type", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResourceTemplate:annotations: (getter get_annotations) (setter set_annotations)
   *
   * Hints for the client, as a JSON object, or %NULL: `audience` (an array
   * of `"user"` and `"assistant"`), `priority` (a number from 0 to 1) and
   * `lastModified` (an ISO 8601 date and time). They are checked when the
   * template is added to a server.
   *
   * Since: 0.1
   */
  properties[PROP_ANNOTATIONS] =
    g_param_spec_boxed ("annotations", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoResourceTemplate:cache-ttl: (getter get_cache_ttl) (setter set_cache_ttl)
   *
   * How long, in milliseconds, a 2026-07-28 client may reuse what
   * `resources/read` answers for the resources of the template (its `ttlMs`; 0: not at all), or
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
   * SnodoResourceTemplate:cache-scope: (getter get_cache_scope) (setter set_cache_scope)
   *
   * Who may reuse what `resources/read` answers for the resources of the template (its
   * `cacheScope`), when [property@Snodo.ResourceTemplate:cache-ttl] is not -1:
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
snodo_resource_template_init (SnodoResourceTemplate *self)
{
  self->cache_ttl = -1;
}

/**
 * snodo_resource_template_new:
 * @uri_template: the URI template
 * @name: the name of the template's resources
 *
 * Makes the description of a resource template.
 *
 * Returns: (transfer full): a new resource template
 *
 * Since: 0.1
 */
SnodoResourceTemplate *
snodo_resource_template_new (const char *uri_template,
                             const char *name)
{
  g_return_val_if_fail (uri_template != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (SNODO_TYPE_RESOURCE_TEMPLATE,
                       "uri-template", uri_template,
                       "name", name,
                       NULL);
}

/**
 * snodo_resource_template_get_uri_template:
 * @self: a resource template
 *
 * Gets the URI template.
 *
 * Returns: (transfer none): the URI template
 *
 * Since: 0.1
 */
const char *
snodo_resource_template_get_uri_template (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return self->uri_template;
}

/**
 * snodo_resource_template_expand:
 * @self: a resource template
 * @values: (nullable): the values of the template's variables
 *
 * Makes the URI of one of the template's resources, by RFC 6570 expansion
 * of its URI template: for instance to read a resource of a template a
 * server listed, or to offer completions. A value is a string, a number
 * or a boolean (its text), an array of those (a list) or an object of
 * those (a map, in its order); a missing member, `null`, an empty array
 * and an empty object are undefined, and an expression whose variables
 * are all undefined expands to nothing.
 *
 * ```c
 * g_autoptr(SnodoResourceTemplate) search = snodo_resource_template_new ("app://search{?q,page}", "search");
 * g_autoptr(JsonObject) values = json_object_new ();
 * g_autofree char *uri = NULL;
 *
 * json_object_set_string_member (values, "q", "red fish");
 * uri = snodo_resource_template_expand (search, values, NULL);
 * // app://search?q=red%20fish
 * ```
 *
 * From Python and JavaScript, @values is a dict or an object:
 * `search.expand({'q': 'red fish'})`.
 *
 * Returns: (transfer full): the URI, or %NULL with @error set
 *   (%SNODO_ERROR_INVALID_SCHEMA) when the URI template is not valid, a
 *   value is of another kind (such as a list of lists), or a list or map
 *   is given to a prefix `{name:3}`
 */
char *
snodo_resource_template_expand (SnodoResourceTemplate  *self,
                                JsonObject             *values,
                                GError                **error)
{
  g_autoptr(SnodoUriTemplate) template = NULL;

  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->uri_template == NULL)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A resource template needs a URI template (its “uri-template” property)"));
      return NULL;
    }
  template = snodo_uri_template_parse (self->uri_template, error);
  if (template == NULL)
    return NULL;
  return snodo_uri_template_expand (template, values, error);
}

/**
 * snodo_resource_template_get_name:
 * @self: a resource template
 *
 * Gets the template's name.
 *
 * Returns: (transfer none): the name
 *
 * Since: 0.1
 */
const char *
snodo_resource_template_get_name (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return snodo_description_get_name (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_template_get_title:
 * @self: a resource template
 *
 * Gets the template's human-readable title.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 0.1
 */
const char *
snodo_resource_template_get_title (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return snodo_description_get_title (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_template_set_title:
 * @self: a resource template
 * @title: (nullable): the title
 *
 * Sets the template's human-readable title.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_title (SnodoResourceTemplate *self,
                                   const char            *title)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));

  snodo_description_set_title (SNODO_DESCRIPTION (self), title);
}

/**
 * snodo_resource_template_get_description:
 * @self: a resource template
 *
 * Gets what the template's resources hold.
 *
 * Returns: (transfer none) (nullable): the description
 *
 * Since: 0.1
 */
const char *
snodo_resource_template_get_description (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return snodo_description_get_description (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_template_set_description:
 * @self: a resource template
 * @description: (nullable): the description
 *
 * Sets what the template's resources hold.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_description (SnodoResourceTemplate *self,
                                         const char            *description)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));

  snodo_description_set_description (SNODO_DESCRIPTION (self), description);
}

/**
 * snodo_resource_template_get_mime_type:
 * @self: a resource template
 *
 * Gets the MIME type of the template's resources.
 *
 * Returns: (transfer none) (nullable): the MIME type
 *
 * Since: 0.1
 */
const char *
snodo_resource_template_get_mime_type (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return self->mime_type;
}

/**
 * snodo_resource_template_set_mime_type:
 * @self: a resource template
 * @mime_type: (nullable): the MIME type
 *
 * Sets the MIME type of the template's resources.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_mime_type (SnodoResourceTemplate *self,
                                       const char            *mime_type)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));

  if (snodo_description_replace_string (&self->mime_type, mime_type))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MIME_TYPE]);
}

/**
 * snodo_resource_template_get_annotations:
 * @self: a resource template
 *
 * Gets the hints for the client.
 *
 * Returns: (transfer none) (nullable): the annotations, a sealed JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_resource_template_get_annotations (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return self->annotations;
}

/**
 * snodo_resource_template_set_annotations:
 * @self: a resource template
 * @annotations: (nullable): a JSON object, or %NULL
 *
 * Sets the hints for the client (see [property@Snodo.ResourceTemplate:annotations]).
 * A copy is kept.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_annotations (SnodoResourceTemplate *self,
                                         JsonNode              *annotations)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));
  g_return_if_fail (annotations == NULL || JSON_NODE_HOLDS_OBJECT (annotations));

  if (snodo_description_replace_json (&self->annotations, annotations))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANNOTATIONS]);
}

/**
 * snodo_resource_template_get_icons:
 * @self: a resource template
 *
 * Gets the template's icons.
 *
 * Returns: (transfer none) (nullable): the icons, a sealed JSON array
 *
 * Since: 0.1
 */
JsonNode *
snodo_resource_template_get_icons (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), NULL);
  return snodo_description_get_icons (SNODO_DESCRIPTION (self));
}

/**
 * snodo_resource_template_set_icons:
 * @self: a resource template
 * @icons: (nullable): a JSON array of icon objects, or %NULL
 *
 * Sets the template's icons (see [property@Snodo.Description:icons]). A copy is
 * kept.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_icons (SnodoResourceTemplate *self,
                                   JsonNode              *icons)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));

  snodo_description_set_icons (SNODO_DESCRIPTION (self), icons);
}

/**
 * snodo_resource_template_get_cache_ttl:
 * @self: a resource template
 *
 * Gets how long 2026-07-28 clients may reuse what `resources/read` answers
 * for the resources of the template.
 *
 * Returns: the time in milliseconds, or -1 for the server's
 *
 * Since: 0.1
 */
int
snodo_resource_template_get_cache_ttl (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), -1);
  return self->cache_ttl;
}

/**
 * snodo_resource_template_set_cache_ttl:
 * @self: a resource template
 * @cache_ttl: the time in milliseconds, or -1 for the server's
 *
 * Sets how long 2026-07-28 clients may reuse what `resources/read` answers
 * for the resources of the template.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_cache_ttl (SnodoResourceTemplate *self,
                                       int                    cache_ttl)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));
  g_return_if_fail (cache_ttl >= -1);

  if (self->cache_ttl == cache_ttl)
    return;
  self->cache_ttl = cache_ttl;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE_TTL]);
}

/**
 * snodo_resource_template_get_cache_scope:
 * @self: a resource template
 *
 * Gets who may reuse what `resources/read` answers for the resources of the template.
 *
 * Returns: the scope
 *
 * Since: 0.1
 */
SnodoCacheScope
snodo_resource_template_get_cache_scope (SnodoResourceTemplate *self)
{
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self), SNODO_CACHE_SCOPE_PRIVATE);
  return self->cache_scope;
}

/**
 * snodo_resource_template_set_cache_scope:
 * @self: a resource template
 * @cache_scope: the scope
 *
 * Sets who may reuse what `resources/read` answers for the resources of the template.
 *
 * Since: 0.1
 */
void
snodo_resource_template_set_cache_scope (SnodoResourceTemplate *self,
                                         SnodoCacheScope        cache_scope)
{
  g_return_if_fail (SNODO_IS_RESOURCE_TEMPLATE (self));
  g_return_if_fail (cache_scope == SNODO_CACHE_SCOPE_PRIVATE || cache_scope == SNODO_CACHE_SCOPE_PUBLIC);

  if (self->cache_scope == cache_scope)
    return;
  self->cache_scope = cache_scope;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE_SCOPE]);
}
