/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-description.h"
#include "snodo-error.h"
#include "snodo-prompt.h"
#include "snodo-protocol-private.h"
#include "snodo-resource.h"
#include "snodo-resource-template.h"
#include "snodo-wire-private.h"

/*
 * The catalog: resources, resource templates and prompts in the order they
 * were registered (every list is deterministic), and the completion
 * handler. Everything here runs on the server's main context: registration,
 * and the lookups of the server's methods. Handlers answer later from any
 * thread; what they use of an entry stays alive through a reference their
 * request holds (snodo_catalog_entry_ref()).
 */

#define DEFAULT_PAGE_SIZE 100
/* Longer than any cursor snodo_cursor_encode() makes. */
#define CURSOR_MAX_LENGTH 256
struct _SnodoCatalogEntry
{
  gatomicrefcount   ref_count;
  /* The SnodoResource, SnodoResourceTemplate or SnodoPrompt; NULL for the
   * completion handler. Owned; immutable while registered. */
  SnodoDescription *description;
  /* Templates only: the parsed URI template. Owned. */
  SnodoUriTemplate *pattern;
  SnodoCatalogFunc  func;
  gpointer          user_data;
  GDestroyNotify    destroy;
};

typedef SnodoCatalogEntry Entry;

typedef struct
{
  /* Entry, in the order they were added; owns a reference to each. */
  GPtrArray  *order;
  /* The entry's key (borrowed from its object: URI, URI template or
   * name) -> Entry (borrowed from order). */
  GHashTable *index;
} List;

struct _SnodoCatalog
{
  List         resources;
  List         templates;
  List         prompts;
  /* NULL when no completion handler is set. Owned. */
  Entry       *completion;
  guint        page_size;
  /* The extensions advertised, as the capability's object: identifier ->
   * settings object, in the order they were added. Owned. */
  JsonObject  *extensions;
};

typedef JsonObject *(*ToJsonFunc) (SnodoDescription *description,
                                   gboolean          with_icons);

/* ---- Entries and lists ----------------------------------------------- */

static Entry *
entry_new (gpointer          description,
           SnodoCatalogFunc  func,
           gpointer          user_data,
           GDestroyNotify    destroy)
{
  Entry *entry = g_new0 (Entry, 1);

  g_atomic_ref_count_init (&entry->ref_count);
  entry->description = description != NULL ? g_object_ref (description) : NULL;
  entry->func = func;
  entry->user_data = user_data;
  entry->destroy = destroy;
  return entry;
}

SnodoCatalogEntry *
snodo_catalog_entry_ref (SnodoCatalogEntry *entry)
{
  g_atomic_ref_count_inc (&entry->ref_count);
  return entry;
}

/* May run on any thread: the last reference can be a request's. */
void
snodo_catalog_entry_unref (SnodoCatalogEntry *entry)
{
  if (!g_atomic_ref_count_dec (&entry->ref_count))
    return;
  if (entry->destroy != NULL)
    entry->destroy (entry->user_data);
  g_clear_object (&entry->description);
  g_clear_pointer (&entry->pattern, snodo_uri_template_free);
  g_free (entry);
}

SnodoDescription *
snodo_catalog_entry_get_description (SnodoCatalogEntry *entry)
{
  return entry->description;
}

SnodoCatalogFunc
snodo_catalog_entry_get_func (SnodoCatalogEntry *entry,
                              gpointer          *user_data)
{
  *user_data = entry->user_data;
  return entry->func;
}

static void
list_init (List *list)
{
  list->order = g_ptr_array_new_with_free_func ((GDestroyNotify) snodo_catalog_entry_unref);
  list->index = g_hash_table_new (g_str_hash, g_str_equal);
}

static void
list_clear (List *list)
{
  g_clear_pointer (&list->index, g_hash_table_unref);
  g_clear_pointer (&list->order, g_ptr_array_unref);
}

static void
list_add (List       *list,
          const char *key,
          Entry      *entry)
{
  g_hash_table_insert (list->index, (gpointer) key, entry);
  g_ptr_array_add (list->order, entry);
}

static gboolean
list_remove (List       *list,
             const char *key)
{
  Entry *entry = g_hash_table_lookup (list->index, key);

  if (entry == NULL)
    return FALSE;
  g_hash_table_remove (list->index, key);
  g_ptr_array_remove (list->order, entry);
  return TRUE;
}

/* ---- Checking descriptions ------------------------------------------- */

static gboolean
is_string_array (JsonNode *node)
{
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!snodo_json_node_is_string (element))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_annotations (JsonNode    *annotations,
                   const char  *owner,
                   GError     **error)
{
  JsonObject *object;
  JsonNode *audience;
  JsonNode *priority;
  JsonNode *last_modified;
  const char *why = NULL;

  if (annotations == NULL)
    return TRUE;

  object = json_node_get_object (annotations);
  audience = json_object_get_member (object, "audience");
  priority = json_object_get_member (object, "priority");
  last_modified = json_object_get_member (object, "lastModified");

  if (audience != NULL)
    {
      if (!is_string_array (audience))
        why = _("“audience” must be an array of “user” and “assistant”");
      else
        for (guint i = 0; i < json_array_get_length (json_node_get_array (audience)); i++)
          {
            const char *role = json_array_get_string_element (json_node_get_array (audience), i);

            if (!g_str_equal (role, "user") && !g_str_equal (role, "assistant"))
              why = _("“audience” must be an array of “user” and “assistant”");
          }
    }
  if (priority != NULL)
    {
      double value = snodo_json_node_is_number (priority) ? json_node_get_double (priority) : -1;

      if (!(value >= 0 && value <= 1))
        why = _("“priority” must be a number from 0 to 1");
    }
  if (last_modified != NULL)
    {
      g_autoptr(GDateTime) date = NULL;

      if (snodo_json_node_is_string (last_modified))
        date = g_date_time_new_from_iso8601 (json_node_get_string (last_modified), NULL);
      if (date == NULL)
        why = _("“lastModified” must be an ISO 8601 date and time with a time zone");
    }

  if (why != NULL)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The annotations of “%s” are not valid: %s"), owner, why);
      return FALSE;
    }
  return TRUE;
}

gboolean
snodo_catalog_check_icons (JsonNode    *icons,
                           const char  *owner,
                           GError     **error)
{
  JsonArray *array;
  const char *why = NULL;

  if (icons == NULL)
    return TRUE;

  array = json_node_get_array (icons);
  for (guint i = 0; i < json_array_get_length (array) && why == NULL; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *icon = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      JsonNode *mime_type;
      JsonNode *sizes;
      JsonNode *theme;
      const char *src;

      if (icon == NULL)
        {
          why = _("every icon must be a JSON object");
          break;
        }
      src = snodo_json_object_get_string (icon, "src");
      mime_type = json_object_get_member (icon, "mimeType");
      sizes = json_object_get_member (icon, "sizes");
      theme = json_object_get_member (icon, "theme");

      if (src == NULL || !g_uri_is_valid (src, G_URI_FLAGS_NONE, NULL))
        why = _("“src” must be an absolute URI");
      else if (mime_type != NULL && snodo_json_object_get_string (icon, "mimeType") == NULL)
        why = _("“mimeType” must be a string");
      else if (sizes != NULL && !is_string_array (sizes))
        why = _("“sizes” must be an array of strings");
      else if (theme != NULL && g_strcmp0 (snodo_json_object_get_string (icon, "theme"), "light") != 0 &&
               g_strcmp0 (snodo_json_object_get_string (icon, "theme"), "dark") != 0)
        why = _("“theme” must be “light” or “dark”");
    }

  if (why != NULL)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The icons of “%s” are not valid: %s"), owner, why);
      return FALSE;
    }
  return TRUE;
}

/* ---- Names of _meta keys and extensions ------------------------------- */

/* A label of a prefix: a letter, then letters, digits and hyphens, ending
 * with a letter or a digit. */
static gboolean
is_label (const char *start,
          gsize       len)
{
  if (len == 0 || !g_ascii_isalpha (start[0]) || !g_ascii_isalnum (start[len - 1]))
    return FALSE;
  for (gsize i = 1; i + 1 < len; i++)
    if (!g_ascii_isalnum (start[i]) && start[i] != '-')
      return FALSE;
  return TRUE;
}

static gboolean
label_is_mcp (const char *start,
              gsize       len)
{
  return (len == 3 && g_ascii_strncasecmp (start, "mcp", 3) == 0) ||
         (len == 20 && g_ascii_strncasecmp (start, "modelcontextprotocol", 20) == 0);
}

/* Checks the prefix of @len bytes at @prefix (without its slash): valid
 * labels; *@reserved tells whether MCP keeps it for itself: its second
 * label is "modelcontextprotocol" or "mcp" (2025-11-25 on), or any label
 * but the last is (as 2025-06-18 words it). */
static gboolean
check_prefix (const char *prefix,
              gsize       len,
              gboolean   *reserved)
{
  const char *end = prefix + len;
  const char *label = prefix;
  guint n = 0;

  *reserved = FALSE;
  while (TRUE)
    {
      const char *dot = memchr (label, '.', end - label);
      gsize label_len = (dot != NULL ? dot : end) - label;

      if (!is_label (label, label_len))
        return FALSE;
      if (label_is_mcp (label, label_len) && (n == 1 || dot != NULL))
        *reserved = TRUE;
      n++;
      if (dot == NULL)
        return TRUE;
      label = dot + 1;
    }
}

/* A name: empty, or starting and ending with a letter or digit, with
 * letters, digits, '-', '_' and '.' between. */
static gboolean
is_name (const char *name)
{
  gsize len = strlen (name);

  if (len == 0)
    return TRUE;
  if (!g_ascii_isalnum (name[0]) || !g_ascii_isalnum (name[len - 1]))
    return FALSE;
  for (gsize i = 1; i + 1 < len; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '-' && name[i] != '_' && name[i] != '.')
      return FALSE;
  return TRUE;
}

/* Splits @key as MCP names _meta keys: [prefix "/"] name. *@reserved:
 * whether the prefix is one MCP keeps; *@has_prefix: whether there is
 * one. FALSE if the key is not well formed. */
static gboolean
check_key (const char *key,
           gboolean   *has_prefix,
           gboolean   *reserved)
{
  const char *slash = strchr (key, '/');

  *has_prefix = slash != NULL;
  *reserved = FALSE;
  if (slash == NULL)
    return is_name (key);
  return check_prefix (key, slash - key, reserved) && is_name (slash + 1);
}

gboolean
snodo_catalog_check_meta (JsonNode    *meta,
                          const char  *owner,
                          GError     **error)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *member;

  if (meta == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (meta))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The _meta of “%s” is not valid: it must be a JSON object"), owner);
      return FALSE;
    }

  json_object_iter_init (&iter, json_node_get_object (meta));
  while (json_object_iter_next (&iter, &key, &member))
    {
      gboolean has_prefix, reserved;

      if (!check_key (key, &has_prefix, &reserved))
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                       _("The _meta of “%s” is not valid: “%s” is not a valid key (an optional prefix such as "
                         "“com.example/”, then a name of letters, digits, “-”, “_” and “.” that starts and ends "
                         "with a letter or digit)"), owner, key);
          return FALSE;
        }
      if (reserved)
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                       _("The _meta of “%s” is not valid: the prefix of “%s” is reserved for MCP itself"),
                       owner, key);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
snodo_catalog_check_extension_name (const char  *name,
                                    GError     **error)
{
  gboolean has_prefix, reserved;

  if (!check_key (name, &has_prefix, &reserved) || !has_prefix || g_str_has_suffix (name, "/"))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("“%s” is not a valid extension identifier: it must be a prefix of dot-separated labels, "
                     "a slash and a name, such as “com.example/my-extension”"), name);
      return FALSE;
    }
  return TRUE;
}

/* ---- Describing ------------------------------------------------------- */

static void
set_optional_string (JsonObject *object,
                     const char *name,
                     const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
}

static void
set_optional_node (JsonObject *object,
                   const char *name,
                   JsonNode   *value)
{
  if (value != NULL)
    json_object_set_member (object, name, json_node_copy (value));
}

/* What every description has: its name, title and description, after the
 * URI or URI template that comes first. */
static void
add_names (JsonObject       *json,
           SnodoDescription *description)
{
  json_object_set_string_member (json, "name", snodo_description_get_name (description));
  set_optional_string (json, "title", snodo_description_get_title (description));
  set_optional_string (json, "description", snodo_description_get_description (description));
}

/* The icons and _meta come last; icons exist from 2025-11-25 on, _meta
 * in every version. */
static void
add_icons (JsonObject       *json,
           SnodoDescription *description,
           gboolean          with_icons)
{
  if (with_icons)
    set_optional_node (json, "icons", snodo_description_get_icons (description));
  set_optional_node (json, "_meta", snodo_description_get_meta (description));
}

static JsonObject *
resource_to_json (SnodoDescription *description,
                  gboolean          with_icons)
{
  SnodoResource *resource = SNODO_RESOURCE (description);
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "uri", snodo_resource_get_uri (resource));
  add_names (json, description);
  set_optional_string (json, "mimeType", snodo_resource_get_mime_type (resource));
  if (snodo_resource_get_size (resource) >= 0)
    json_object_set_int_member (json, "size", snodo_resource_get_size (resource));
  set_optional_node (json, "annotations", snodo_resource_get_annotations (resource));
  add_icons (json, description, with_icons);
  return json;
}

static JsonObject *
template_to_json (SnodoDescription *description,
                  gboolean          with_icons)
{
  SnodoResourceTemplate *template = SNODO_RESOURCE_TEMPLATE (description);
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "uriTemplate",
                                 snodo_resource_template_get_uri_template (template));
  add_names (json, description);
  set_optional_string (json, "mimeType", snodo_resource_template_get_mime_type (template));
  set_optional_node (json, "annotations", snodo_resource_template_get_annotations (template));
  add_icons (json, description, with_icons);
  return json;
}

static JsonObject *
prompt_to_json (SnodoDescription *description,
                gboolean          with_icons)
{
  JsonNode *arguments = snodo_prompt_get_arguments (SNODO_PROMPT (description));
  JsonObject *json = json_object_new ();

  add_names (json, description);
  if (json_array_get_length (json_node_get_array (arguments)) > 0)
    set_optional_node (json, "arguments", arguments);
  add_icons (json, description, with_icons);
  return json;
}

/* ---- The catalog ------------------------------------------------------ */

SnodoCatalog *
snodo_catalog_new (void)
{
  SnodoCatalog *self = g_new0 (SnodoCatalog, 1);

  list_init (&self->resources);
  list_init (&self->templates);
  list_init (&self->prompts);
  self->page_size = DEFAULT_PAGE_SIZE;
  self->extensions = json_object_new ();
  return self;
}

void
snodo_catalog_free (SnodoCatalog *self)
{
  list_clear (&self->resources);
  list_clear (&self->templates);
  list_clear (&self->prompts);
  g_clear_pointer (&self->completion, snodo_catalog_entry_unref);
  g_clear_pointer (&self->extensions, json_object_unref);
  g_free (self);
}

void
snodo_catalog_add_capabilities (SnodoCatalog *self,
                                JsonObject   *capabilities)
{
  if (snodo_catalog_has_resources (self))
    {
      JsonObject *resources = json_object_new ();

      json_object_set_boolean_member (resources, "subscribe", TRUE);
      json_object_set_boolean_member (resources, "listChanged", TRUE);
      json_object_set_object_member (capabilities, "resources", resources);
    }
  if (snodo_catalog_has_prompts (self))
    {
      JsonObject *prompts = json_object_new ();

      json_object_set_boolean_member (prompts, "listChanged", TRUE);
      json_object_set_object_member (capabilities, "prompts", prompts);
    }
  if (snodo_catalog_has_completion (self))
    json_object_set_object_member (capabilities, "completions", json_object_new ());
  if (json_object_get_size (self->extensions) > 0)
    {
      JsonObject *extensions = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *settings;

      /* The settings are sealed: their copies share them. */
      json_object_iter_init_ordered (&iter, self->extensions);
      while (json_object_iter_next_ordered (&iter, &name, &settings))
        json_object_set_member (extensions, name, json_node_copy (settings));
      json_object_set_object_member (capabilities, "extensions", extensions);
    }
}

gboolean
snodo_catalog_add_extension (SnodoCatalog  *self,
                             const char    *name,
                             JsonNode      *settings,
                             GError       **error)
{
  if (!snodo_catalog_check_extension_name (name, error))
    return FALSE;
  if (settings != NULL && !JSON_NODE_HOLDS_OBJECT (settings))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The settings of the extension “%s” must be a JSON object"), name);
      return FALSE;
    }
  if (json_object_has_member (self->extensions, name))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("The extension “%s” is already registered"), name);
      return FALSE;
    }

  if (settings != NULL)
    {
      JsonNode *copy = json_node_copy (settings);

      json_node_seal (copy);
      json_object_set_member (self->extensions, name, copy);
    }
  else
    {
      JsonNode *empty = snodo_json_node_take_object (json_object_new ());

      json_node_seal (empty);
      json_object_set_member (self->extensions, name, empty);
    }
  return TRUE;
}

gboolean
snodo_catalog_remove_extension (SnodoCatalog *self,
                                const char   *name)
{
  if (!json_object_has_member (self->extensions, name))
    return FALSE;
  json_object_remove_member (self->extensions, name);
  return TRUE;
}

JsonNode *
snodo_catalog_get_extension (SnodoCatalog *self,
                             const char   *name)
{
  return json_object_get_member (self->extensions, name);
}

gboolean
snodo_catalog_has_resources (SnodoCatalog *self)
{
  return self->resources.order->len > 0 || self->templates.order->len > 0;
}

gboolean
snodo_catalog_has_prompts (SnodoCatalog *self)
{
  return self->prompts.order->len > 0;
}

gboolean
snodo_catalog_has_completion (SnodoCatalog *self)
{
  return self->completion != NULL;
}

/* Checks the name that every resource and resource template must have
 * (made without one, with g_object_new() or a binding's bare constructor,
 * it is NULL). */
static gboolean
check_name (const char  *name,
            const char  *uri,
            GError     **error)
{
  if (name != NULL)
    return TRUE;
  g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
               _("“%s” needs a name (its “name” property)"), uri);
  return FALSE;
}

/* Refuses a description: @destroy is called at once, as when adding a
 * tool fails. */
static gboolean
refuse (gpointer        user_data,
        GDestroyNotify  destroy)
{
  if (destroy != NULL)
    destroy (user_data);
  return FALSE;
}

gboolean
snodo_catalog_add_resource (SnodoCatalog      *self,
                            SnodoResource     *resource,
                            SnodoCatalogFunc   func,
                            gpointer           user_data,
                            GDestroyNotify     destroy,
                            GError           **error)
{
  const char *uri = snodo_resource_get_uri (resource);

  if (uri == NULL)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A resource needs a URI (its “uri” property)"));
      return refuse (user_data, destroy);
    }
  if (!check_name (snodo_resource_get_name (resource), uri, error))
    return refuse (user_data, destroy);
  if (!g_uri_is_valid (uri, G_URI_FLAGS_NONE, NULL))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("“%s” is not a valid resource URI: it must be an absolute URI"), uri);
      return refuse (user_data, destroy);
    }
  if (!check_annotations (snodo_resource_get_annotations (resource), uri, error) ||
      !snodo_catalog_check_icons (snodo_resource_get_icons (resource), uri, error) ||
      !snodo_catalog_check_meta (snodo_description_get_meta (SNODO_DESCRIPTION (resource)), uri, error))
    return refuse (user_data, destroy);
  if (g_hash_table_contains (self->resources.index, uri))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("A resource with the URI “%s” is already registered"), uri);
      return refuse (user_data, destroy);
    }

  list_add (&self->resources, uri, entry_new (resource, func, user_data, destroy));
  return TRUE;
}

gboolean
snodo_catalog_remove_resource (SnodoCatalog *self,
                               const char   *uri)
{
  return list_remove (&self->resources, uri);
}

gboolean
snodo_catalog_add_resource_template (SnodoCatalog           *self,
                                     SnodoResourceTemplate  *resource_template,
                                     SnodoCatalogFunc        func,
                                     gpointer                user_data,
                                     GDestroyNotify          destroy,
                                     GError                **error)
{
  const char *uri_template = snodo_resource_template_get_uri_template (resource_template);
  JsonNode *annotations = snodo_resource_template_get_annotations (resource_template);
  JsonNode *icons = snodo_resource_template_get_icons (resource_template);
  g_autoptr(SnodoUriTemplate) pattern = NULL;
  Entry *entry;

  if (uri_template == NULL)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A resource template needs a URI template (its “uri-template” property)"));
      return refuse (user_data, destroy);
    }
  if (!check_name (snodo_resource_template_get_name (resource_template), uri_template, error))
    return refuse (user_data, destroy);
  pattern = snodo_uri_template_parse (uri_template, error);
  if (pattern == NULL ||
      !check_annotations (annotations, uri_template, error) ||
      !snodo_catalog_check_icons (icons, uri_template, error) ||
      !snodo_catalog_check_meta (snodo_description_get_meta (SNODO_DESCRIPTION (resource_template)),
                                 uri_template, error))
    return refuse (user_data, destroy);
  if (g_hash_table_contains (self->templates.index, uri_template))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("A resource template “%s” is already registered"), uri_template);
      return refuse (user_data, destroy);
    }

  entry = entry_new (resource_template, func, user_data, destroy);
  entry->pattern = g_steal_pointer (&pattern);
  list_add (&self->templates, uri_template, entry);
  return TRUE;
}

gboolean
snodo_catalog_remove_resource_template (SnodoCatalog *self,
                                        const char   *uri_template)
{
  return list_remove (&self->templates, uri_template);
}

gboolean
snodo_catalog_add_prompt (SnodoCatalog      *self,
                          SnodoPrompt       *prompt,
                          SnodoCatalogFunc   func,
                          gpointer           user_data,
                          GDestroyNotify     destroy,
                          GError           **error)
{
  const char *name = snodo_prompt_get_name (prompt);

  if (name == NULL)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A prompt needs a name (its “name” property)"));
      return refuse (user_data, destroy);
    }
  if (*name == '\0')
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A prompt's name must not be empty"));
      return refuse (user_data, destroy);
    }
  if (!snodo_catalog_check_icons (snodo_prompt_get_icons (prompt), name, error) ||
      !snodo_catalog_check_meta (snodo_description_get_meta (SNODO_DESCRIPTION (prompt)), name, error))
    return refuse (user_data, destroy);
  if (g_hash_table_contains (self->prompts.index, name))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("A prompt named “%s” is already registered"), name);
      return refuse (user_data, destroy);
    }

  list_add (&self->prompts, name, entry_new (prompt, func, user_data, destroy));
  return TRUE;
}

gboolean
snodo_catalog_remove_prompt (SnodoCatalog *self,
                             const char   *name)
{
  return list_remove (&self->prompts, name);
}

void
snodo_catalog_set_completion_func (SnodoCatalog     *self,
                                   SnodoCatalogFunc  func,
                                   gpointer          user_data,
                                   GDestroyNotify    destroy)
{
  g_clear_pointer (&self->completion, snodo_catalog_entry_unref);
  if (func != NULL)
    self->completion = entry_new (NULL, func, user_data, destroy);
  else if (destroy != NULL)
    destroy (user_data);
}

guint
snodo_catalog_get_page_size (SnodoCatalog *self)
{
  return self->page_size;
}

void
snodo_catalog_set_page_size (SnodoCatalog *self,
                             guint         page_size)
{
  g_return_if_fail (page_size > 0);

  self->page_size = page_size;
}

/* ---- Cursors and pages ------------------------------------------------ */

char *
snodo_cursor_encode (const char *list,
                     guint       offset)
{
  g_autofree char *text = g_strdup_printf ("%s:%u", list, offset);

  return g_base64_encode ((const guchar *) text, strlen (text));
}

/* Only the exact text snodo_cursor_encode() makes for @list is accepted:
 * the offset read from the cursor is encoded again and compared. */
gboolean
snodo_cursor_decode (const char  *list,
                     const char  *cursor,
                     guint       *offset,
                     GError     **error)
{
  g_autofree guchar *decoded = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  const char *colon;
  guint64 value = 0;
  gsize len = 0;

  if (*cursor == '\0')
    {
      *offset = 0;
      return TRUE;
    }

  if (strlen (cursor) <= CURSOR_MAX_LENGTH)
    {
      decoded = g_base64_decode (cursor, &len);
      text = g_strndup ((const char *) decoded, len);
      colon = strrchr (text, ':');
      if (colon != NULL &&
          g_ascii_string_to_unsigned (colon + 1, 10, 0, G_MAXUINT, &value, NULL))
        expected = snodo_cursor_encode (list, (guint) value);
    }

  if (expected == NULL || !g_str_equal (expected, cursor))
    {
      g_set_error_literal (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                           _("Invalid params: invalid cursor"));
      return FALSE;
    }
  *offset = (guint) value;
  return TRUE;
}

gboolean
snodo_catalog_paginate (SnodoCatalog  *self,
                        const char    *list,
                        JsonObject    *params,
                        guint          length,
                        guint         *start,
                        guint         *end,
                        char         **next_cursor,
                        GError       **error)
{
  JsonNode *cursor = params != NULL ? json_object_get_member (params, "cursor") : NULL;
  guint offset = 0;

  if (cursor != NULL && !JSON_NODE_HOLDS_NULL (cursor))
    {
      if (!snodo_json_node_is_string (cursor))
        {
          g_set_error_literal (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                               _("Invalid params: \"cursor\" must be a string"));
          return FALSE;
        }
      if (!snodo_cursor_decode (list, json_node_get_string (cursor), &offset, error))
        return FALSE;
      /* A cursor is only made for a page that has items; one past the end
       * was not made for this list as it is. */
      if (offset > 0 && offset >= length)
        {
          g_set_error_literal (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                               _("Invalid params: invalid cursor"));
          return FALSE;
        }
    }

  *start = offset;
  *end = length - offset > self->page_size ? offset + self->page_size : length;
  *next_cursor = *end < length ? snodo_cursor_encode (list, *end) : NULL;
  return TRUE;
}


/* ---- Finding entries --------------------------------------------------- */

SnodoCatalogEntry *
snodo_catalog_find_resource (SnodoCatalog  *self,
                             const char    *uri,
                             JsonObject   **variables)
{
  JsonObject *found = NULL;
  Entry *entry;

  entry = g_hash_table_lookup (self->resources.index, uri);
  for (guint i = 0; entry == NULL && i < self->templates.order->len; i++)
    {
      Entry *candidate = g_ptr_array_index (self->templates.order, i);

      found = snodo_uri_template_match (candidate->pattern, uri);
      if (found != NULL)
        entry = candidate;
    }

  if (entry == NULL)
    return NULL;
  if (found == NULL)
    found = json_object_new ();
  json_object_seal (found);
  *variables = found;
  return entry;
}

SnodoCatalogEntry *
snodo_catalog_find_prompt (SnodoCatalog *self,
                           const char   *name)
{
  return g_hash_table_lookup (self->prompts.index, name);
}

SnodoCatalogEntry *
snodo_catalog_get_completion (SnodoCatalog *self)
{
  return self->completion;
}

/* ---- Lists -------------------------------------------------------------- */

JsonNode *
snodo_catalog_list_page (SnodoCatalog      *self,
                         SnodoCatalogList   which,
                         JsonObject        *params,
                         gboolean           with_icons,
                         GError           **error)
{
  g_autofree char *next_cursor = NULL;
  const char *member;
  ToJsonFunc to_json;
  JsonObject *object;
  JsonArray *items;
  JsonNode *result;
  List *list;
  guint start, end;

  switch (which)
    {
    case SNODO_CATALOG_RESOURCES:
      list = &self->resources;
      member = "resources";
      to_json = resource_to_json;
      break;
    case SNODO_CATALOG_RESOURCE_TEMPLATES:
      list = &self->templates;
      member = "resourceTemplates";
      to_json = template_to_json;
      break;
    case SNODO_CATALOG_PROMPTS:
      list = &self->prompts;
      member = "prompts";
      to_json = prompt_to_json;
      break;
    default:
      g_return_val_if_reached (NULL);
    }

  if (!snodo_catalog_paginate (self, member, params, list->order->len,
                               &start, &end, &next_cursor, error))
    return NULL;

  items = json_array_sized_new (end - start);
  for (guint i = start; i < end; i++)
    {
      Entry *entry = g_ptr_array_index (list->order, i);

      json_array_add_object_element (items, to_json (entry->description, with_icons));
    }

  object = json_object_new ();
  json_object_set_array_member (object, member, items);
  if (next_cursor != NULL)
    json_object_set_string_member (object, "nextCursor", next_cursor);
  result = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (result, object);
  return result;
}
