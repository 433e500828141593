/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-description.h"
#include "snodo-description-private.h"

/**
 * SnodoDescription:
 *
 * What the descriptions of the things a [class@Snodo.Server] offers have
 * in common: [class@Snodo.Tool], [class@Snodo.Resource],
 * [class@Snodo.ResourceTemplate] and [class@Snodo.Prompt] each have a
 * name, a human-readable title, a description for the model to read,
 * icons, and metadata for the client ([property@Snodo.Description:meta],
 * sent as `_meta`). Each type keeps its own accessors for the first four
 * as well, so code can use either; the base serves code that handles any
 * kind of description.
 *
 * The type is abstract: make a tool, resource, resource template or
 * prompt instead.
 *
 * ```c
 * static void
 * brand (SnodoDescription *description)
 * {
 *   g_autofree char *title = g_strdup_printf ("Notes: %s",
 *                                             snodo_description_get_name (description));
 *
 *   snodo_description_set_title (description, title);
 * }
 * ```
 *
 * In Python:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * def brand(description):
 *     description.set_title('Notes: ' + description.get_name())
 *
 * tool = Snodo.Tool.new('today', 'Lists the notes of the day')
 * readme = Snodo.Resource.new('app://readme', 'readme')
 * for description in (tool, readme):
 *     brand(description)
 * server.add_tool(tool, lambda invocation: invocation.return_text('No notes'))
 * server.add_resource(readme, lambda invocation: invocation.return_resource_text(
 *     None, 'text/plain', 'Notes'))
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
 * const brand = description => description.set_title(`Notes: ${description.get_name()}`);
 *
 * const tool = Snodo.Tool.new('today', 'Lists the notes of the day');
 * const readme = Snodo.Resource.new('app://readme', 'readme');
 * for (const description of [tool, readme])
 *     brand(description);
 * server.add_tool(tool, invocation => invocation.return_text('No notes'));
 * server.add_resource(readme, invocation =>
 *     invocation.return_resource_text(null, 'text/plain', 'Notes'));
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

typedef struct
{
  /* Construct-only. */
  char     *name;
  /* Nullable. */
  char     *title;
  char     *description;
  /* A sealed JSON array, or NULL; checked when the description is added
   * to a server. */
  JsonNode *icons;
  /* A sealed JSON object, or NULL; its keys are checked when the
   * description is added to a server. */
  JsonNode *meta;
} SnodoDescriptionPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (SnodoDescription, snodo_description, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_TITLE,
  PROP_DESCRIPTION,
  PROP_ICONS,
  PROP_META,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

gboolean
snodo_description_replace_string (char       **field,
                                  const char  *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

gboolean
snodo_description_replace_json (JsonNode **field,
                                JsonNode  *value)
{
  if (*field == value || (*field != NULL && value != NULL && json_node_equal (*field, value)))
    return FALSE;
  g_clear_pointer (field, json_node_unref);
  if (value != NULL)
    {
      *field = json_node_copy (value);
      json_node_seal (*field);
    }
  return TRUE;
}

static void
snodo_description_finalize (GObject *object)
{
  SnodoDescriptionPrivate *priv =
    snodo_description_get_instance_private (SNODO_DESCRIPTION (object));

  g_clear_pointer (&priv->name, g_free);
  g_clear_pointer (&priv->title, g_free);
  g_clear_pointer (&priv->description, g_free);
  g_clear_pointer (&priv->icons, json_node_unref);
  g_clear_pointer (&priv->meta, json_node_unref);

  G_OBJECT_CLASS (snodo_description_parent_class)->finalize (object);
}

static void
snodo_description_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  SnodoDescriptionPrivate *priv =
    snodo_description_get_instance_private (SNODO_DESCRIPTION (object));

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    case PROP_TITLE:
      g_value_set_string (value, priv->title);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, priv->description);
      break;
    case PROP_ICONS:
      g_value_set_boxed (value, priv->icons);
      break;
    case PROP_META:
      g_value_set_boxed (value, priv->meta);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_description_set_property (GObject      *object,
                                guint         prop_id,
                                const GValue *value,
                                GParamSpec   *pspec)
{
  SnodoDescription *self = SNODO_DESCRIPTION (object);
  SnodoDescriptionPrivate *priv = snodo_description_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      priv->name = g_value_dup_string (value);
      break;
    case PROP_TITLE:
      snodo_description_set_title (self, g_value_get_string (value));
      break;
    case PROP_DESCRIPTION:
      snodo_description_set_description (self, g_value_get_string (value));
      break;
    case PROP_ICONS:
      snodo_description_set_icons (self, g_value_get_boxed (value));
      break;
    case PROP_META:
      snodo_description_set_meta (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_description_class_init (SnodoDescriptionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_description_finalize;
  object_class->get_property = snodo_description_get_property;
  object_class->set_property = snodo_description_set_property;

  /**
   * SnodoDescription:name: (getter get_name)
   *
   * The name of what is described. Tools, prompts, resources and resource
   * templates must have one. A tool's or prompt's is unique within a
   * server, and a tool's has 1 to 128 characters of `A-Z a-z 0-9 _ . -`,
   * as MCP recommends; a resource is known by its URI and a template by
   * its URI template instead.
   *
   * Since: 0.1
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoDescription:title: (getter get_title) (setter set_title)
   *
   * A human-readable name, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoDescription:description: (getter get_description) (setter set_description)
   *
   * What a tool does, a resource holds, or a prompt is for, for the model
   * to read, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoDescription:icons: (getter get_icons) (setter set_icons)
   *
   * Icons, as a JSON array of objects with `src` (an `https:` or `data:`
   * URI) and optionally `mimeType`, `sizes` (an array of strings such as
   * `"48x48"` or `"any"`) and `theme` (`"light"` or `"dark"`), or %NULL.
   * They are checked when the description is added to a server, and sent
   * from protocol version 2025-11-25 on.
   *
   * Since: 0.1
   */
  properties[PROP_ICONS] =
    g_param_spec_boxed ("icons", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoDescription:meta: (getter get_meta) (setter set_meta)
   *
   * Metadata for the client, as a JSON object, or %NULL: sent as the
   * `_meta` member of the description in `tools/list`, `resources/list`,
   * `resources/templates/list` and `prompts/list`, in every protocol
   * version. Extensions read their part of it there; MCP Apps, for
   * instance, links a tool to its view with `_meta.ui.resourceUri` (see
   * [method@Snodo.Server.add_app]).
   *
   * Its keys are checked when the description is added to a server, as
   * MCP names them: an optional prefix of dot-separated labels (each
   * starting with a letter and ending with a letter or digit, with letters,
   * digits and hyphens between) and a slash, then a name that starts and
   * ends with a letter or digit, with letters, digits, hyphens, underscores
   * and dots between, such as `com.example/build` or `ui`. Prefixes that
   * MCP reserves for itself (a second label `modelcontextprotocol` or
   * `mcp`, as in `io.modelcontextprotocol/`, or any label but the last, as
   * protocol version 2025-06-18 reserves them) are refused: they are the
   * protocol's, not the application's. What is under a key is not checked.
   *
   * Since: 0.1
   */
  properties[PROP_META] =
    g_param_spec_boxed ("meta", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_description_init (SnodoDescription *self)
{
}

/**
 * snodo_description_get_name:
 * @self: a description
 *
 * Gets the name of what is described.
 *
 * Returns: (transfer none) (nullable): the name, %NULL only when the
 *   description was made without one
 *
 * Since: 0.1
 */
const char *
snodo_description_get_name (SnodoDescription *self)
{
  SnodoDescriptionPrivate *priv;

  g_return_val_if_fail (SNODO_IS_DESCRIPTION (self), NULL);

  priv = snodo_description_get_instance_private (self);
  return priv->name;
}

/**
 * snodo_description_get_title:
 * @self: a description
 *
 * Gets the human-readable title.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 0.1
 */
const char *
snodo_description_get_title (SnodoDescription *self)
{
  SnodoDescriptionPrivate *priv;

  g_return_val_if_fail (SNODO_IS_DESCRIPTION (self), NULL);

  priv = snodo_description_get_instance_private (self);
  return priv->title;
}

/**
 * snodo_description_set_title:
 * @self: a description
 * @title: (nullable): the title
 *
 * Sets the human-readable title.
 *
 * Since: 0.1
 */
void
snodo_description_set_title (SnodoDescription *self,
                             const char       *title)
{
  SnodoDescriptionPrivate *priv;

  g_return_if_fail (SNODO_IS_DESCRIPTION (self));

  priv = snodo_description_get_instance_private (self);
  if (snodo_description_replace_string (&priv->title, title))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

/**
 * snodo_description_get_description:
 * @self: a description
 *
 * Gets the description for the model to read.
 *
 * Returns: (transfer none) (nullable): the description
 *
 * Since: 0.1
 */
const char *
snodo_description_get_description (SnodoDescription *self)
{
  SnodoDescriptionPrivate *priv;

  g_return_val_if_fail (SNODO_IS_DESCRIPTION (self), NULL);

  priv = snodo_description_get_instance_private (self);
  return priv->description;
}

/**
 * snodo_description_set_description:
 * @self: a description
 * @description: (nullable): the description
 *
 * Sets the description for the model to read.
 *
 * Since: 0.1
 */
void
snodo_description_set_description (SnodoDescription *self,
                                   const char       *description)
{
  SnodoDescriptionPrivate *priv;

  g_return_if_fail (SNODO_IS_DESCRIPTION (self));

  priv = snodo_description_get_instance_private (self);
  if (snodo_description_replace_string (&priv->description, description))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
}

/**
 * snodo_description_get_icons:
 * @self: a description
 *
 * Gets the icons.
 *
 * Returns: (transfer none) (nullable): the icons, a sealed JSON array
 *
 * Since: 0.1
 */
JsonNode *
snodo_description_get_icons (SnodoDescription *self)
{
  SnodoDescriptionPrivate *priv;

  g_return_val_if_fail (SNODO_IS_DESCRIPTION (self), NULL);

  priv = snodo_description_get_instance_private (self);
  return priv->icons;
}

/**
 * snodo_description_set_icons:
 * @self: a description
 * @icons: (nullable): a JSON array of icon objects, or %NULL
 *
 * Sets the icons (see [property@Snodo.Description:icons]). A copy is kept.
 *
 * Since: 0.1
 */
void
snodo_description_set_icons (SnodoDescription *self,
                             JsonNode         *icons)
{
  SnodoDescriptionPrivate *priv;

  g_return_if_fail (SNODO_IS_DESCRIPTION (self));
  g_return_if_fail (icons == NULL || JSON_NODE_HOLDS_ARRAY (icons));

  priv = snodo_description_get_instance_private (self);
  if (snodo_description_replace_json (&priv->icons, icons))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ICONS]);
}

/**
 * snodo_description_get_meta:
 * @self: a description
 *
 * Gets the metadata sent as `_meta` (see [property@Snodo.Description:meta]).
 *
 * Returns: (transfer none) (nullable): the metadata, a sealed JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_description_get_meta (SnodoDescription *self)
{
  SnodoDescriptionPrivate *priv;

  g_return_val_if_fail (SNODO_IS_DESCRIPTION (self), NULL);

  priv = snodo_description_get_instance_private (self);
  return priv->meta;
}

/**
 * snodo_description_set_meta:
 * @self: a description
 * @meta: (nullable): a JSON object, or %NULL for none
 *
 * Sets the metadata sent as `_meta` (see
 * [property@Snodo.Description:meta]). A copy is kept. Like the rest of a
 * description, it should not change while the description is registered,
 * as clients are not told of the change: remove the description and add
 * it again instead.
 *
 * Since: 0.1
 */
void
snodo_description_set_meta (SnodoDescription *self,
                            JsonNode         *meta)
{
  SnodoDescriptionPrivate *priv;

  g_return_if_fail (SNODO_IS_DESCRIPTION (self));
  g_return_if_fail (meta == NULL || JSON_NODE_HOLDS_OBJECT (meta));

  priv = snodo_description_get_instance_private (self);
  if (snodo_description_replace_json (&priv->meta, meta))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_META]);
}
