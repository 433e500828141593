/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "snodo-base-private.h"
#include "snodo-variant-schema-private.h"
#include "snodo-wire-private.h"

/* The mapping of introspection/actions.md. Each of the three walks follows
 * the type's first character; a type deeper than this is refused rather
 * than walked. */
#define MAX_DEPTH 64

/* ---- The schema of a type ---------------------------------------------- */

static JsonNode *
schema_integer (gint64 minimum,
                gint64 maximum)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", "integer");
  json_object_set_int_member (object, "minimum", minimum);
  json_object_set_int_member (object, "maximum", maximum);
  return snodo_json_node_take_object (object);
}

static JsonNode *
schema_typed (const char *type)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  return snodo_json_node_take_object (object);
}

static JsonNode *
schema_of (const GVariantType  *type,
           guint                depth,
           GError             **error)
{
  g_autofree char *text = g_variant_type_dup_string (type);
  JsonObject *object;

  if (depth > MAX_DEPTH)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("Type “%s” is nested too deeply"), text);
      return NULL;
    }
  if (!g_variant_type_is_definite (type))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("Type “%s” is not a definite type"), text);
      return NULL;
    }

  switch (text[0])
    {
    case 'b':
      return schema_typed ("boolean");
    case 'y':
      return schema_integer (0, G_MAXUINT8);
    case 'n':
      return schema_integer (G_MININT16, G_MAXINT16);
    case 'q':
      return schema_integer (0, G_MAXUINT16);
    case 'i':
      return schema_integer (G_MININT32, G_MAXINT32);
    case 'u':
      return schema_integer (0, G_MAXUINT32);
    case 'x':
      return schema_integer (-SNODO_VARIANT_MAX_SAFE_INTEGER, SNODO_VARIANT_MAX_SAFE_INTEGER);
    case 't':
      return schema_integer (0, SNODO_VARIANT_MAX_SAFE_INTEGER);
    case 'd':
      return schema_typed ("number");
    case 's':
      return schema_typed ("string");
    case 'o':
      object = json_object_new ();
      json_object_set_string_member (object, "type", "string");
      json_object_set_string_member (object, "description", "A D-Bus object path");
      json_object_set_string_member (object, "pattern", "^/([A-Za-z0-9_]+(/[A-Za-z0-9_]+)*)?$");
      return snodo_json_node_take_object (object);
    case 'g':
      object = json_object_new ();
      json_object_set_string_member (object, "type", "string");
      json_object_set_string_member (object, "description", "A D-Bus type signature");
      return snodo_json_node_take_object (object);
    case 'a':
      {
        const GVariantType *element = g_variant_type_element (type);
        JsonNode *inner;

        if (g_variant_type_equal (element, G_VARIANT_TYPE_BYTE))
          {
            object = json_object_new ();
            json_object_set_string_member (object, "type", "string");
            json_object_set_string_member (object, "contentEncoding", "base64");
            return snodo_json_node_take_object (object);
          }
        if (g_variant_type_is_dict_entry (element))
          {
            const GVariantType *key = g_variant_type_key (element);

            inner = schema_of (g_variant_type_value (element), depth + 1, error);
            if (inner == NULL)
              return NULL;
            object = json_object_new ();
            json_object_set_string_member (object, "type", "object");
            json_object_set_member (object, "additionalProperties", inner);
            /* Keys that are not strings are written as GVariant text
             * (42, true, 1.5). */
            if (!g_variant_type_equal (key, G_VARIANT_TYPE_STRING) &&
                !g_variant_type_equal (key, G_VARIANT_TYPE_OBJECT_PATH) &&
                !g_variant_type_equal (key, G_VARIANT_TYPE_SIGNATURE))
              {
                g_autofree char *key_text = g_variant_type_dup_string (key);

                if (strchr ("vh", key_text[0]) != NULL)
                  {
                    g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                                 _("Type “%s” has no JSON Schema"), text);
                    json_object_unref (object);
                    return NULL;
                  }
                {
                  JsonObject *names = json_object_new ();
                  g_autofree char *about = g_strdup_printf ("A key of type %s, in GVariant text", key_text);

                  json_object_set_string_member (names, "type", "string");
                  json_object_set_string_member (names, "description", about);
                  json_object_set_object_member (object, "propertyNames", names);
                }
              }
            return snodo_json_node_take_object (object);
          }
        inner = schema_of (element, depth + 1, error);
        if (inner == NULL)
          return NULL;
        object = json_object_new ();
        json_object_set_string_member (object, "type", "array");
        json_object_set_member (object, "items", inner);
        return snodo_json_node_take_object (object);
      }
    case '(':
      {
        JsonArray *items = json_array_new ();
        gsize n = g_variant_type_n_items (type);

        for (const GVariantType *item = g_variant_type_first (type); item != NULL;
             item = g_variant_type_next (item))
          {
            JsonNode *inner = schema_of (item, depth + 1, error);

            if (inner == NULL)
              {
                json_array_unref (items);
                return NULL;
              }
            json_array_add_element (items, inner);
          }
        object = json_object_new ();
        json_object_set_string_member (object, "type", "array");
        json_object_set_array_member (object, "prefixItems", items);
        /* minItems and maxItems bound the length; not "items": false,
         * which a checker that does not know prefixItems would apply to
         * every item. */
        json_object_set_int_member (object, "minItems", (gint64) n);
        json_object_set_int_member (object, "maxItems", (gint64) n);
        return snodo_json_node_take_object (object);
      }
    case 'm':
      {
        const GVariantType *element = g_variant_type_element (type);
        JsonArray *any_of;
        JsonNode *inner;

        if (g_variant_type_is_maybe (element))
          {
            g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                         _("Type “%s” has no JSON Schema: null cannot tell its levels apart"), text);
            return NULL;
          }
        inner = schema_of (element, depth + 1, error);
        if (inner == NULL)
          return NULL;
        any_of = json_array_new ();
        json_array_add_element (any_of, inner);
        json_array_add_element (any_of, schema_typed ("null"));
        object = json_object_new ();
        json_object_set_array_member (object, "anyOf", any_of);
        return snodo_json_node_take_object (object);
      }
    default:
      /* 'v' (any type), 'h' (a file descriptor, meaningless to a
       * peer), a dict entry outside an array. */
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("Type “%s” has no JSON Schema"), text);
      return NULL;
    }
}

JsonNode *
snodo_variant_type_to_schema (const GVariantType  *type,
                              GError             **error)
{
  g_return_val_if_fail (type != NULL, NULL);

  return schema_of (type, 0, error);
}

/* ---- JSON to GVariant ---------------------------------------------------- */

static GVariant *
refuse (const char  *path,
        const char  *message,
        GError     **error)
{
  g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, "%s: %s",
               *path != '\0' ? path : "/", message);
  return NULL;
}

/* The integer @node holds, within [@minimum, @maximum]. */
static gboolean
integer_of (JsonNode    *node,
            gint64       minimum,
            gint64       maximum,
            const char  *path,
            gint64      *out,
            GError     **error)
{
  gint64 value;

  if (!snodo_json_node_is_number (node))
    {
      refuse (path, _("expected an integer"), error);
      return FALSE;
    }
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    value = json_node_get_int (node);
  else
    {
      double d = json_node_get_double (node);

      if (d != floor (d) || d < (double) minimum || d > (double) maximum)
        {
          refuse (path, d != floor (d) ? _("expected an integer") : _("is out of range"), error);
          return FALSE;
        }
      value = (gint64) d;
    }
  if (value < minimum || value > maximum)
    {
      g_autofree char *message = g_strdup_printf (_("%" G_GINT64_FORMAT " is out of range "
                                                    "[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]"),
                                                  value, minimum, maximum);
      refuse (path, message, error);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

static GVariant *
basic_from_string (const GVariantType  *type,
                   const char          *text,
                   const char          *path,
                   GError             **error)
{
  if (g_variant_type_equal (type, G_VARIANT_TYPE_STRING))
    return g_variant_new_string (text);
  if (g_variant_type_equal (type, G_VARIANT_TYPE_OBJECT_PATH))
    return g_variant_is_object_path (text) ? g_variant_new_object_path (text)
                                           : refuse (path, _("expected a D-Bus object path"), error);
  if (g_variant_type_equal (type, G_VARIANT_TYPE_SIGNATURE))
    return g_variant_is_signature (text) ? g_variant_new_signature (text)
                                         : refuse (path, _("expected a D-Bus type signature"), error);
  return NULL;
}

static GVariant *
from_json (const GVariantType  *type,
           JsonNode            *node,
           GString             *path,
           guint                depth,
           GError             **error)
{
  const char *code = g_variant_type_peek_string (type);
  gint64 integer;

  if (depth > MAX_DEPTH)
    return refuse (path->str, _("is nested too deeply"), error);

  switch (code[0])
    {
    case 'b':
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        return refuse (path->str, _("expected a boolean"), error);
      return g_variant_new_boolean (json_node_get_boolean (node));
    case 'y':
      return integer_of (node, 0, G_MAXUINT8, path->str, &integer, error) ? g_variant_new_byte ((guint8) integer) : NULL;
    case 'n':
      return integer_of (node, G_MININT16, G_MAXINT16, path->str, &integer, error) ? g_variant_new_int16 ((gint16) integer) : NULL;
    case 'q':
      return integer_of (node, 0, G_MAXUINT16, path->str, &integer, error) ? g_variant_new_uint16 ((guint16) integer) : NULL;
    case 'i':
      return integer_of (node, G_MININT32, G_MAXINT32, path->str, &integer, error) ? g_variant_new_int32 ((gint32) integer) : NULL;
    case 'u':
      return integer_of (node, 0, G_MAXUINT32, path->str, &integer, error) ? g_variant_new_uint32 ((guint32) integer) : NULL;
    case 'x':
      return integer_of (node, -SNODO_VARIANT_MAX_SAFE_INTEGER, SNODO_VARIANT_MAX_SAFE_INTEGER,
                         path->str, &integer, error) ? g_variant_new_int64 (integer) : NULL;
    case 't':
      return integer_of (node, 0, SNODO_VARIANT_MAX_SAFE_INTEGER,
                         path->str, &integer, error) ? g_variant_new_uint64 ((guint64) integer) : NULL;
    case 'd':
      if (!snodo_json_node_is_number (node))
        return refuse (path->str, _("expected a number"), error);
      return g_variant_new_double (json_node_get_value_type (node) == G_TYPE_INT64 ?
                                   (double) json_node_get_int (node) : json_node_get_double (node));
    case 's':
    case 'o':
    case 'g':
      if (!snodo_json_node_is_string (node))
        return refuse (path->str, _("expected a string"), error);
      return basic_from_string (type, json_node_get_string (node), path->str, error);
    case 'a':
      {
        const GVariantType *element = g_variant_type_element (type);
        g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (type);
        gsize length = path->len;

        if (g_variant_type_equal (element, G_VARIANT_TYPE_BYTE))
          {
            const char *text;
            gsize size = 0;
            guchar *bytes;
            gsize i;

            if (!snodo_json_node_is_string (node))
              return refuse (path->str, _("expected a base64 string"), error);
            text = json_node_get_string (node);
            for (i = 0; text[i] != '\0'; i++)
              if (!g_ascii_isalnum (text[i]) && strchr ("+/=", text[i]) == NULL)
                return refuse (path->str, _("expected a base64 string"), error);
            if (i % 4 != 0)
              return refuse (path->str, _("expected a base64 string"), error);
            bytes = g_base64_decode (text, &size);
            return g_variant_new_from_data (G_VARIANT_TYPE_BYTESTRING, bytes, size, TRUE, g_free, bytes);
          }
        if (g_variant_type_is_dict_entry (element))
          {
            const GVariantType *key_type = g_variant_type_key (element);
            const GVariantType *value_type = g_variant_type_value (element);
            JsonObjectIter iter;
            const char *name;
            JsonNode *member;

            if (!JSON_NODE_HOLDS_OBJECT (node))
              return refuse (path->str, _("expected an object"), error);
            json_object_iter_init (&iter, json_node_get_object (node));
            while (json_object_iter_next (&iter, &name, &member))
              {
                GVariant *key;
                GVariant *value;

                g_string_append_c (path, '/');
                g_string_append (path, name);
                /* @key is owned, not floating, either way. */
                key = basic_from_string (key_type, name, path->str, error);
                if (key != NULL)
                  g_variant_ref_sink (key);
                else if (error == NULL || *error == NULL)
                  {
                    g_autoptr(GError) local = NULL;

                    key = g_variant_parse (key_type, name, NULL, NULL, &local);
                    if (key == NULL)
                      return refuse (path->str, _("is not a key of the dictionary’s type"), error);
                  }
                if (key == NULL)
                  return NULL;
                value = from_json (value_type, member, path, depth + 1, error);
                if (value == NULL)
                  {
                    g_variant_unref (key);
                    return NULL;
                  }
                g_variant_builder_add_value (&builder, g_variant_new_dict_entry (key, value));
                g_variant_unref (key);
                g_string_truncate (path, length);
              }
            return g_variant_builder_end (&builder);
          }
        if (!JSON_NODE_HOLDS_ARRAY (node))
          return refuse (path->str, _("expected an array"), error);
        for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
          {
            GVariant *item;

            g_string_append_printf (path, "/%u", i);
            item = from_json (element, json_array_get_element (json_node_get_array (node), i),
                              path, depth + 1, error);
            if (item == NULL)
              return NULL;
            g_variant_builder_add_value (&builder, item);
            g_string_truncate (path, length);
          }
        return g_variant_builder_end (&builder);
      }
    case '(':
      {
        g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (type);
        gsize length = path->len;
        JsonArray *array;
        guint i = 0;

        if (!JSON_NODE_HOLDS_ARRAY (node))
          return refuse (path->str, _("expected an array"), error);
        array = json_node_get_array (node);
        if (json_array_get_length (array) != g_variant_type_n_items (type))
          {
            g_autofree char *message = g_strdup_printf (_("expected an array of %u items"),
                                                        (guint) g_variant_type_n_items (type));
            return refuse (path->str, message, error);
          }
        for (const GVariantType *item_type = g_variant_type_first (type); item_type != NULL;
             item_type = g_variant_type_next (item_type), i++)
          {
            GVariant *item;

            g_string_append_printf (path, "/%u", i);
            item = from_json (item_type, json_array_get_element (array, i), path, depth + 1, error);
            if (item == NULL)
              return NULL;
            g_variant_builder_add_value (&builder, item);
            g_string_truncate (path, length);
          }
        return g_variant_builder_end (&builder);
      }
    case 'm':
      {
        const GVariantType *element = g_variant_type_element (type);
        GVariant *inner;

        if (g_variant_type_is_maybe (element))
          return refuse (path->str, _("has a type with no JSON form"), error);
        if (JSON_NODE_HOLDS_NULL (node))
          return g_variant_new_maybe (element, NULL);
        inner = from_json (element, node, path, depth + 1, error);
        return inner != NULL ? g_variant_new_maybe (NULL, inner) : NULL;
      }
    default:
      return refuse (path->str, _("has a type with no JSON form"), error);
    }
}

GVariant *
snodo_variant_from_json (const GVariantType  *type,
                         JsonNode            *node,
                         const char          *path,
                         GError             **error)
{
  g_autoptr(GString) where = NULL;
  GVariant *value;

  g_return_val_if_fail (type != NULL, NULL);
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  where = g_string_new (path != NULL ? path : "");
  value = from_json (type, node, where, 0, error);
  return value != NULL ? g_variant_ref_sink (value) : NULL;
}

/* ---- GVariant to JSON ---------------------------------------------------- */

static JsonNode *
int_node (gint64 value)
{
  JsonNode *node = json_node_alloc ();

  json_node_init_int (node, value);
  return node;
}

static JsonNode *
to_json (GVariant  *value,
         guint      depth,
         GError   **error)
{
  const char *code = g_variant_get_type_string (value);
  JsonNode *node;

  if (depth > MAX_DEPTH)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The value is nested too deeply"));
      return NULL;
    }

  switch (code[0])
    {
    case 'b':
      return json_node_init_boolean (json_node_alloc (), g_variant_get_boolean (value));
    case 'y':
      return int_node (g_variant_get_byte (value));
    case 'n':
      return int_node (g_variant_get_int16 (value));
    case 'q':
      return int_node (g_variant_get_uint16 (value));
    case 'i':
      return int_node (g_variant_get_int32 (value));
    case 'u':
      return int_node (g_variant_get_uint32 (value));
    case 'x':
      return int_node (g_variant_get_int64 (value));
    case 't':
      if (g_variant_get_uint64 (value) > (guint64) G_MAXINT64)
        return json_node_init_double (json_node_alloc (), (double) g_variant_get_uint64 (value));
      return int_node ((gint64) g_variant_get_uint64 (value));
    case 'd':
      if (!isfinite (g_variant_get_double (value)))
        return json_node_init_null (json_node_alloc ());
      return json_node_init_double (json_node_alloc (), g_variant_get_double (value));
    case 's':
    case 'o':
    case 'g':
      return json_node_init_string (json_node_alloc (), g_variant_get_string (value, NULL));
    case 'v':
      {
        g_autoptr(GVariant) inner = g_variant_get_variant (value);

        return to_json (inner, depth + 1, error);
      }
    case 'm':
      {
        g_autoptr(GVariant) inner = g_variant_get_maybe (value);

        if (inner == NULL)
          return json_node_init_null (json_node_alloc ());
        return to_json (inner, depth + 1, error);
      }
    case 'a':
      if (code[1] == 'y')
        {
          gsize size = 0;
          gconstpointer data = g_variant_get_fixed_array (value, &size, 1);
          g_autofree char *text = g_base64_encode (data, size);

          return json_node_init_string (json_node_alloc (), text);
        }
      if (code[1] == '{')
        {
          JsonObject *object = json_object_new ();
          gsize n = g_variant_n_children (value);

          for (gsize i = 0; i < n; i++)
            {
              g_autoptr(GVariant) entry = g_variant_get_child_value (value, i);
              g_autoptr(GVariant) key = g_variant_get_child_value (entry, 0);
              g_autoptr(GVariant) member = g_variant_get_child_value (entry, 1);
              g_autofree char *name = NULL;
              JsonNode *inner;

              if (g_variant_is_of_type (key, G_VARIANT_TYPE_STRING) ||
                  g_variant_is_of_type (key, G_VARIANT_TYPE_OBJECT_PATH) ||
                  g_variant_is_of_type (key, G_VARIANT_TYPE_SIGNATURE))
                name = g_variant_dup_string (key, NULL);
              else if (g_variant_is_of_type (key, G_VARIANT_TYPE_HANDLE))
                {
                  json_object_unref (object);
                  g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("A file descriptor has no JSON form"));
                  return NULL;
                }
              else
                name = g_variant_print (key, FALSE);
              inner = to_json (member, depth + 1, error);
              if (inner == NULL)
                {
                  json_object_unref (object);
                  return NULL;
                }
              json_object_set_member (object, name, inner);
            }
          return snodo_json_node_take_object (object);
        }
      G_GNUC_FALLTHROUGH;
    case '(':
      {
        JsonArray *array = json_array_new ();
        gsize n = g_variant_n_children (value);

        for (gsize i = 0; i < n; i++)
          {
            g_autoptr(GVariant) child = g_variant_get_child_value (value, i);
            JsonNode *inner = to_json (child, depth + 1, error);

            if (inner == NULL)
              {
                json_array_unref (array);
                return NULL;
              }
            json_array_add_element (array, inner);
          }
        node = json_node_alloc ();
        json_node_init_array (node, array);
        json_array_unref (array);
        return node;
      }
    default:
      /* 'h', and a lone dict entry. */
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("A value of type “%s” has no JSON form"), code);
      return NULL;
    }
}

JsonNode *
snodo_variant_to_json (GVariant  *value,
                       GError   **error)
{
  g_return_val_if_fail (value != NULL, NULL);

  return to_json (value, 0, error);
}
