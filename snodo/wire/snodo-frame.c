/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-frame-private.h"
#include "snodo-json-private.h"

/* Decoding */

static gboolean
snodo_frame_is_blank (const char *data,
                      gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (data[i] != ' ' && data[i] != '\t' && data[i] != '\r' && data[i] != '\n')
      return FALSE;
  return TRUE;
}

static gboolean
snodo_frame_is_integer (JsonNode *node)
{
  return node != NULL &&
         JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_INT64;
}

static void
snodo_frame_set_error (SnodoFrame *frame,
                       int         code,
                       char       *message)
{
  frame->kind = SNODO_FRAME_ERROR;
  frame->error_code = code;
  frame->error_message = message;
}

/* Checks the shape of a message whose "id" is valid or absent, from its
 * members of these names (NULL when absent). Returns NULL when it is fine,
 * else what is wrong (to be prefixed). */
static const char *
snodo_frame_check_shape (gboolean  jsonrpc_ok,
                         gboolean  has_method,
                         gboolean  method_ok,
                         JsonNode *params,
                         JsonNode *result,
                         JsonNode *error,
                         gboolean  has_id)
{
  if (!jsonrpc_ok)
    return _("\"jsonrpc\" must be \"2.0\"");

  if (has_method)
    {
      if (!method_ok)
        return _("\"method\" must be a non-empty string");
    }
  else
    {
      if (!has_id)
        {
          if (result != NULL || error != NULL)
            return _("a response must have an \"id\"");
          return _("\"method\" is missing");
        }

      if (result != NULL && error != NULL)
        return _("a response must not have both \"result\" and \"error\"");
      if (result == NULL && error == NULL)
        return _("\"method\" is missing");

      if (result != NULL && !JSON_NODE_HOLDS_OBJECT (result))
        return _("\"result\" must be an object");

      if (error != NULL &&
          (!JSON_NODE_HOLDS_OBJECT (error) ||
           !snodo_frame_is_integer (json_object_get_member (json_node_get_object (error),
                                                            "code"))))
        return _("\"error\" must be an object with an integer \"code\"");
    }

  if (params != NULL && !JSON_NODE_HOLDS_OBJECT (params))
    return _("\"params\" must be an object");

  return NULL;
}

/* The members of the message the frame is decided by, borrowed from its
 * root object or (decoded without building it) owned. */
typedef struct
{
  JsonNode *nodes[SNODO_JSON_TOP_N_MEMBERS];
  gboolean  owned;
} FrameMembers;

static void
frame_members_clear (FrameMembers *members)
{
  if (members->owned)
    for (int i = 0; i < SNODO_JSON_TOP_N_MEMBERS; i++)
      g_clear_pointer (&members->nodes[i], json_node_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FrameMembers, frame_members_clear)

/* A node the frame keeps: borrowed members are referenced, owned ones
 * taken. */
static JsonNode *
frame_members_take (FrameMembers       *members,
                    SnodoJsonTopMember  which)
{
  JsonNode *node = members->nodes[which];

  if (node == NULL)
    return NULL;
  if (members->owned)
    {
      members->nodes[which] = NULL;
      return node;
    }
  return json_node_ref (node);
}

void
snodo_frame_decode (const char *data,
                    gsize       len,
                    SnodoFrame *frame)
{
  snodo_frame_decode_deferring (data, len, NULL, frame);
}

JsonObject *
snodo_frame_get_params (SnodoFrame *frame)
{
  if (frame->params_unbuilt)
    {
      frame->params_node = snodo_json_members_build (&frame->params_members);
      frame->params = json_node_get_object (frame->params_node);
      snodo_json_members_clear (&frame->params_members);
      frame->params_unbuilt = FALSE;
    }
  return frame->params;
}

JsonNode *
snodo_frame_get_param (SnodoFrame *frame,
                       const char *name)
{
  if (frame->params_unbuilt)
    return snodo_json_members_lookup (&frame->params_members, name);
  return frame->params != NULL ? json_object_get_member (frame->params, name) : NULL;
}

static void snodo_frame_decode_with (const char *data,
                                     gsize       len,
                                     gboolean    writable,
                                     const char *deferred,
                                     gboolean    lazy,
                                     SnodoFrame *frame);

void
snodo_frame_decode_deferring (const char *data,
                              gsize       len,
                              const char *deferred,
                              SnodoFrame *frame)
{
  snodo_frame_decode_with (data, len, FALSE, deferred, FALSE, frame);
}

void
snodo_frame_decode_in_place (char       *data,
                             gsize       len,
                             const char *deferred,
                             gboolean    lazy,
                             SnodoFrame *frame)
{
  g_return_if_fail (deferred != NULL);

  /* A shorter text has no string to build in place: read as any other. */
  snodo_frame_decode_with (data, len, len >= SNODO_JSON_PLACED_MIN_BYTES, deferred, lazy, frame);
}

void
snodo_frame_decode_lazy (const char *data,
                         gsize       len,
                         const char *deferred,
                         SnodoFrame *frame)
{
  g_return_if_fail (deferred != NULL);

  snodo_frame_decode_with (data, len, FALSE, deferred, TRUE, frame);
}

static void
snodo_frame_decode_with (const char *data,
                         gsize       len,
                         gboolean    writable,
                         const char *deferred,
                         gboolean    lazy,
                         SnodoFrame *frame)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(FrameMembers) members = { { NULL, }, FALSE };
  /* A string "method" that was not built (with deferred). */
  const char *method_str = NULL;
  g_autofree char *method_copy = NULL;
  JsonNode *id;
  JsonNode *method;
  gboolean has_method;
  gboolean method_ok;
  JsonNode *params;
  JsonNode *result;
  JsonNode *rpc_error;
  const char *problem;
  gsize deferred_offset = 0;
  gsize deferred_len = 0;
  gboolean parsed;
  gboolean jsonrpc_ok = FALSE;
  gboolean has_id;
  gboolean is_response;

  g_return_if_fail (data != NULL || len == 0);
  g_return_if_fail (frame != NULL);

  memset (frame, 0, sizeof *frame);
  frame->kind = SNODO_FRAME_IGNORE;

  if (len > 0 && data[len - 1] == '\r')
    len--;

  if (snodo_frame_is_blank (data, len))
    return;

  if (deferred != NULL)
    {
      /* The root object is not built: its members come apart. */
      members.owned = TRUE;
      parsed = snodo_json_parse_top (data, len, writable, deferred, &root, members.nodes, &jsonrpc_ok,
                                     &method_str, &method_copy,
                                     lazy ? &frame->params_members : NULL, &frame->params_unbuilt,
                                     &deferred_offset, &deferred_len, &frame->deferred_spans,
                                     &frame->has_nul, &frame->size,
                                     &error);
    }
  else
    {
      root = snodo_json_parse_full (data, len, &frame->has_nul, &frame->size, &error);
      parsed = root != NULL;
    }
  if (!parsed)
    {
      snodo_frame_set_error (frame, SNODO_RPC_ERROR_PARSE_ERROR,
                             g_strdup_printf (_("Parse error: %s"), error->message));
      return;
    }

  if (root != NULL && !JSON_NODE_HOLDS_OBJECT (root))
    {
      snodo_frame_set_error (frame, SNODO_RPC_ERROR_INVALID_REQUEST,
                             JSON_NODE_HOLDS_ARRAY (root)
                             ? g_strdup (_("Invalid request: batches are not supported"))
                             : g_strdup (_("Invalid request: a message must be an object")));
      return;
    }

  if (!members.owned)
    {
      JsonObject *object = json_node_get_object (root);

      members.nodes[SNODO_JSON_TOP_JSONRPC] = json_object_get_member (object, "jsonrpc");
      members.nodes[SNODO_JSON_TOP_ID] = json_object_get_member (object, "id");
      members.nodes[SNODO_JSON_TOP_METHOD] = json_object_get_member (object, "method");
      members.nodes[SNODO_JSON_TOP_PARAMS] = json_object_get_member (object, "params");
      members.nodes[SNODO_JSON_TOP_RESULT] = json_object_get_member (object, "result");
      members.nodes[SNODO_JSON_TOP_ERROR] = json_object_get_member (object, "error");
      jsonrpc_ok = snodo_json_node_is_string (members.nodes[SNODO_JSON_TOP_JSONRPC]) &&
                   strcmp (json_node_get_string (members.nodes[SNODO_JSON_TOP_JSONRPC]), "2.0") == 0;
    }

  id = members.nodes[SNODO_JSON_TOP_ID];
  method = members.nodes[SNODO_JSON_TOP_METHOD];
  params = members.nodes[SNODO_JSON_TOP_PARAMS];
  result = members.nodes[SNODO_JSON_TOP_RESULT];
  rpc_error = members.nodes[SNODO_JSON_TOP_ERROR];
  has_id = id != NULL;
  has_method = method != NULL || method_str != NULL;
  if (method_str != NULL)
    method_ok = method_str[0] != '\0';
  else
    method_ok = snodo_json_node_is_string (method) && json_node_get_string (method)[0] != '\0';
  /* No method, and a result or an error: a response, never answered,
   * however malformed (its id is the server's; an answer would reach the
   * client's own request of that id). */
  is_response = !has_method && (result != NULL || rpc_error != NULL);

  if (has_id && !snodo_json_node_is_string (id) && !snodo_frame_is_integer (id))
    {
      snodo_json_members_clear (&frame->params_members);
      frame->params_unbuilt = FALSE;
      if (is_response)
        {
          frame->kind = SNODO_FRAME_DROP;
          frame->error_message = g_strdup (_("Invalid response: \"id\" must be a string or an integer"));
          return;
        }
      snodo_frame_set_error (frame, SNODO_RPC_ERROR_INVALID_REQUEST,
                             g_strdup (_("Invalid request: \"id\" must be a string or an integer")));
      return;
    }

  /* params that is not built is an object. */
  problem = snodo_frame_check_shape (jsonrpc_ok, has_method, method_ok, params, result, rpc_error, has_id);
  if (problem != NULL || !has_method)
    {
      /* Not a request or a notification: it keeps no params apart. */
      if (frame->params_unbuilt && problem == NULL)
        params = members.nodes[SNODO_JSON_TOP_PARAMS] = snodo_json_members_build (&frame->params_members);
      snodo_json_members_clear (&frame->params_members);
      frame->params_unbuilt = FALSE;
    }
  if (problem != NULL)
    {
      char *message = g_strdup_printf (_("Invalid request: %s"), problem);

      if (is_response)
        {
          frame->kind = SNODO_FRAME_DROP;
          frame->error_message = g_strdup_printf (_("Invalid response: %s"), problem);
          g_free (message);
          return;
        }
      if (!has_id && has_method)
        {
          /* A notification, however malformed, is never answered; the
           * message is kept for logging. */
          frame->kind = SNODO_FRAME_DROP;
          frame->error_message = message;
          return;
        }

      snodo_frame_set_error (frame, SNODO_RPC_ERROR_INVALID_REQUEST, message);
      if (has_id && !has_method)
        {
          /* Neither a request nor a response: its id is nobody's to answer
           * (it may be the id of a request of the client's in progress, or
           * of one of ours: then it is a malformed response). */
          frame->response_key = snodo_frame_id_key (id);
        }
      else if (has_id)
        {
          frame->key = snodo_frame_id_key (id);
          frame->id = members.owned ? frame_members_take (&members, SNODO_JSON_TOP_ID) : json_node_copy (id);
        }
      return;
    }

  if (has_id)
    {
      frame->key = snodo_frame_id_key (id);
      frame->id = members.owned ? frame_members_take (&members, SNODO_JSON_TOP_ID) : json_node_copy (id);
    }

  frame->method_node = frame_members_take (&members, SNODO_JSON_TOP_METHOD);
  frame->params_node = frame_members_take (&members, SNODO_JSON_TOP_PARAMS);
  if (has_method)
    {
      frame->kind = has_id ? SNODO_FRAME_REQUEST : SNODO_FRAME_NOTIFICATION;
      if (method_str != NULL)
        {
          frame->method = method_str;
          frame->method_copy = g_steal_pointer (&method_copy);
        }
      else
        frame->method = json_node_get_string (frame->method_node);
      frame->params = params != NULL ? json_node_get_object (frame->params_node) : NULL;
    }
  else
    {
      frame->kind = SNODO_FRAME_RESPONSE;
      if (members.owned)
        {
          /* Those who read a response read its message. */
          JsonObject *object = json_object_new ();

          json_object_set_member (object, "jsonrpc", json_node_init_string (json_node_alloc (), "2.0"));
          json_object_set_member (object, "id", json_node_copy (frame->id));
          if (result != NULL)
            json_object_set_member (object, "result", frame_members_take (&members, SNODO_JSON_TOP_RESULT));
          if (rpc_error != NULL)
            json_object_set_member (object, "error", frame_members_take (&members, SNODO_JSON_TOP_ERROR));
          if (params != NULL)
            json_object_set_member (object, "params", json_node_ref (frame->params_node));
          root = snodo_json_node_take_object (object);
        }
    }

  if (deferred_len > 0)
    {
      frame->deferred = g_malloc (deferred_len + 1);
      memcpy (frame->deferred, data + deferred_offset, deferred_len);
      frame->deferred[deferred_len] = '\0';
      frame->deferred_len = deferred_len;
      frame->size += deferred_len + 1;
    }
  frame->message = g_steal_pointer (&root);
}

void
snodo_frame_clear (SnodoFrame *frame)
{
  g_return_if_fail (frame != NULL);

  g_clear_pointer (&frame->method_node, json_node_unref);
  g_clear_pointer (&frame->method_copy, g_free);
  g_clear_pointer (&frame->params_node, json_node_unref);
  snodo_json_members_clear (&frame->params_members);
  g_clear_pointer (&frame->message, json_node_unref);
  g_clear_pointer (&frame->id, json_node_unref);
  g_clear_pointer (&frame->key, g_free);
  g_clear_pointer (&frame->response_key, g_free);
  g_clear_pointer (&frame->error_message, g_free);
  g_clear_pointer (&frame->deferred, g_free);
  memset (frame, 0, sizeof *frame);
  frame->kind = SNODO_FRAME_IGNORE;
}

/* Made for every request, without printf: it cost as much as the rest of
 * decoding an id. */
char *
snodo_frame_id_key (JsonNode *id)
{
  if (snodo_frame_is_integer (id))
    {
      char buf[32];
      char *p = buf + sizeof buf - 1;
      gint64 value = json_node_get_int (id);
      /* The magnitude, also for G_MININT64. */
      guint64 magnitude = value < 0 ? -(guint64) value : (guint64) value;

      *p = '\0';
      do
        {
          *--p = (char) ('0' + magnitude % 10);
          magnitude /= 10;
        }
      while (magnitude > 0);
      if (value < 0)
        *--p = '-';
      *--p = ':';
      *--p = 'i';
      /* The key and its NUL, without strncpy(). */
      return memcpy (g_malloc (buf + sizeof buf - p), p, buf + sizeof buf - p);
    }
  if (snodo_json_node_is_string (id))
    {
      const char *string = json_node_get_string (id);
      gsize len = strlen (string);
      char *key = g_malloc (len + 3);

      key[0] = 's';
      key[1] = ':';
      memcpy (key + 2, string, len + 1);
      return key;
    }
  return NULL;
}

/* Encoding: the envelope is written around the compact text of each part,
 * so that @result and @params are only read, never re-parented. */

static void
snodo_frame_append_node (GString  *out,
                         JsonNode *node)
{
  if (node == NULL)
    snodo_json_string_append_len (out, "null", 4);
  else
    snodo_json_append_node (out, node);
}

static void
snodo_frame_append_string (GString    *out,
                           const char *str)
{
  snodo_json_append_string (out, str != NULL ? str : "");
}

static GString *
snodo_frame_begin_sized (JsonNode *id,
                         gboolean  with_id,
                         gsize     reserve)
{
  GString *out = g_string_sized_new (reserve);

  snodo_json_string_append_len (out, "{\"jsonrpc\":\"2.0\"", 16);
  if (with_id)
    {
      snodo_json_string_append_len (out, ",\"id\":", 6);
      snodo_frame_append_node (out, id);
    }
  return out;
}

static GString *
snodo_frame_begin (JsonNode *id,
                   gboolean  with_id)
{
  return snodo_frame_begin_sized (id, with_id, 128);
}

static GBytes *
snodo_frame_end (GString *out)
{
  snodo_json_string_append_len (out, "}\n", 2);
  return g_string_free_to_bytes (out);
}

GBytes *
snodo_frame_encode_result (JsonNode *id,
                           JsonNode *result)
{
  GString *out = snodo_frame_begin (id, TRUE);

  snodo_json_string_append_len (out, ",\"result\":", 10);
  snodo_frame_append_node (out, result);
  return snodo_frame_end (out);
}

/* A result object with more members after its own: @tail is their JSON
 * text, without a leading comma (none of them may be in @result). */
GBytes *
snodo_frame_encode_result_tail (JsonNode   *id,
                                JsonNode   *result,
                                const char *tail)
{
  GString *out = snodo_frame_begin (id, TRUE);

  snodo_json_string_append_len (out, ",\"result\":", 10);
  /* Written in place, then reopened before its closing brace. */
  snodo_frame_append_node (out, result);
  g_assert (out->str[out->len - 1] == '}');
  g_string_truncate (out, out->len - 1);
  if (json_object_get_size (json_node_get_object (result)) > 0)
    g_string_append_c (out, ',');
  g_string_append (out, tail);
  g_string_append_c (out, '}');
  return snodo_frame_end (out);
}

/* For an encoder of a layer above that writes the text of a result
 * itself: the envelope up to the result (`{"jsonrpc":"2.0","id":…,"result":`),
 * to which the caller appends one JSON value, and the end of the envelope
 * after it. */
GString *
snodo_frame_begin_result (JsonNode *id,
                          gsize     reserve)
{
  GString *out = snodo_frame_begin_sized (id, TRUE, MAX (reserve, 128));

  snodo_json_string_append_len (out, ",\"result\":", 10);
  return out;
}

GBytes *
snodo_frame_end_result (GString *out)
{
  return snodo_frame_end (out);
}

/* The same, in a GString of the caller's (on its stack, say), whose text
 * becomes the line without another allocation. */
void
snodo_frame_begin_result_in (GString  *out,
                             JsonNode *id,
                             gsize     size)
{
  out->allocated_len = MAX (size, 64);
  out->str = g_malloc (out->allocated_len);
  out->len = 0;
  out->str[0] = '\0';
  snodo_json_string_append_len (out, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
  snodo_frame_append_node (out, id);
  snodo_json_string_append_len (out, ",\"result\":", 10);
}

GBytes *
snodo_frame_end_result_in (GString *out)
{
  gsize len;

  snodo_json_string_append_len (out, "}\n", 2);
  len = out->len;
  out->len = 0;
  out->allocated_len = 0;
  return g_bytes_new_take (g_steal_pointer (&out->str), len);
}

GBytes *
snodo_frame_encode_error (JsonNode   *id,
                          int         code,
                          const char *message,
                          JsonNode   *data)
{
  GString *out = snodo_frame_begin (id, TRUE);

  g_string_append_printf (out, ",\"error\":{\"code\":%d,\"message\":", code);
  snodo_frame_append_string (out, message);
  if (data != NULL)
    {
      snodo_json_string_append_len (out, ",\"data\":", 8);
      snodo_frame_append_node (out, data);
    }
  g_string_append_c (out, '}');
  return snodo_frame_end (out);
}

GBytes *
snodo_frame_encode_notification (const char *method,
                                 JsonNode   *params)
{
  GString *out = snodo_frame_begin (NULL, FALSE);

  snodo_json_string_append_len (out, ",\"method\":", 10);
  snodo_frame_append_string (out, method);
  if (params != NULL)
    {
      snodo_json_string_append_len (out, ",\"params\":", 10);
      snodo_frame_append_node (out, params);
    }
  return snodo_frame_end (out);
}

GBytes *
snodo_frame_encode_request (JsonNode   *id,
                            const char *method,
                            JsonNode   *params)
{
  GString *out = snodo_frame_begin (id, TRUE);

  snodo_json_string_append_len (out, ",\"method\":", 10);
  snodo_frame_append_string (out, method);
  if (params != NULL)
    {
      snodo_json_string_append_len (out, ",\"params\":", 10);
      snodo_frame_append_node (out, params);
    }
  return snodo_frame_end (out);
}

static gboolean
name_in (const char         *name,
         const char * const *names)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (g_str_equal (name, names[i]))
      return TRUE;
  return FALSE;
}

/*
 * Like snodo_frame_encode_result(), but the top-level members of @result
 * named in @drop are left out, and the members of @extra are written after
 * the others, replacing members of the same name. @result is only read.
 */
GBytes *
snodo_frame_encode_result_shaped (JsonNode           *id,
                                  JsonNode           *result,
                                  const char * const *drop,
                                  JsonObject         *extra)
{
  GString *out = snodo_frame_begin (id, TRUE);
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  gboolean first = TRUE;

  snodo_json_string_append_len (out, ",\"result\":{", 11);

  json_object_iter_init_ordered (&iter, json_node_get_object (result));
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      if (name_in (name, drop) || (extra != NULL && json_object_has_member (extra, name)))
        continue;
      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      snodo_frame_append_string (out, name);
      g_string_append_c (out, ':');
      snodo_frame_append_node (out, member);
    }

  if (extra != NULL)
    {
      json_object_iter_init_ordered (&iter, extra);
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          if (!first)
            g_string_append_c (out, ',');
          first = FALSE;
          snodo_frame_append_string (out, name);
          g_string_append_c (out, ':');
          snodo_frame_append_node (out, member);
        }
    }

  g_string_append_c (out, '}');
  return snodo_frame_end (out);
}
