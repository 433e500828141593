/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-dialect-private.h"
#include "snodo-private.h"

/*
 * The protocol versions as tables, in the spirit of libsoup's HTTP/1 and
 * HTTP/2 backends: which methods exist, and how a result is shaped.
 *
 * 2025-06-18 and 2025-11-25 (the initialize era) share their methods; their
 * differences (icons, -32042) are few enough to be asked of the invocation's
 * version where they matter. 2026-07-28 removes the handshake, ping,
 * logging/setLevel and resources/subscribe, adds server/discover and
 * subscriptions/listen, and shapes every result.
 */

static const SnodoMethod legacy_methods[] = {
  { "initialize", snodo_server_method_initialize, 0, SNODO_NEEDS_NOTHING },
  { "ping", snodo_server_method_ping, 0, SNODO_NEEDS_NOTHING },
  { "logging/setLevel", snodo_server_method_logging_set_level, 0, SNODO_NEEDS_NOTHING },
  { "tools/list", snodo_server_method_tools_list, 0, SNODO_NEEDS_NOTHING },
  { "tools/call", NULL, SNODO_METHOD_FLAGS_TOOL_CALL, SNODO_NEEDS_NOTHING },
  { "resources/list", snodo_server_method_resources_list, 0, SNODO_NEEDS_RESOURCES },
  { "resources/templates/list", snodo_server_method_resources_templates_list, 0, SNODO_NEEDS_RESOURCES },
  { "resources/read", snodo_server_method_resources_read, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_RESOURCES },
  { "resources/subscribe", snodo_server_method_resources_subscribe, 0, SNODO_NEEDS_RESOURCES },
  { "resources/unsubscribe", snodo_server_method_resources_unsubscribe, 0, SNODO_NEEDS_RESOURCES },
  { "prompts/list", snodo_server_method_prompts_list, 0, SNODO_NEEDS_PROMPTS },
  { "prompts/get", snodo_server_method_prompts_get, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_PROMPTS },
  { "completion/complete", snodo_server_method_completion_complete, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_COMPLETIONS },
  { NULL, NULL, 0, SNODO_NEEDS_NOTHING },
};

static const SnodoMethod modern_methods[] = {
  { "server/discover", snodo_server_method_discover, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_NOTHING },
  { "tools/list", snodo_server_method_tools_list, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_NOTHING },
  { "tools/call", NULL, SNODO_METHOD_FLAGS_TOOL_CALL | SNODO_METHOD_FLAGS_INPUT, SNODO_NEEDS_NOTHING },
  { "resources/list", snodo_server_method_resources_list, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_RESOURCES },
  { "resources/templates/list", snodo_server_method_resources_templates_list, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_RESOURCES },
  { "resources/read", snodo_server_method_resources_read, SNODO_METHOD_FLAGS_CACHEABLE | SNODO_METHOD_FLAGS_INPUT | SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_RESOURCES },
  { "prompts/list", snodo_server_method_prompts_list, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_PROMPTS },
  { "prompts/get", snodo_server_method_prompts_get, SNODO_METHOD_FLAGS_INPUT | SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_PROMPTS },
  { "completion/complete", snodo_server_method_completion_complete, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_COMPLETIONS },
  { "subscriptions/listen", snodo_server_method_subscriptions_listen, 0, SNODO_NEEDS_NOTHING },
  { NULL, NULL, 0, SNODO_NEEDS_NOTHING },
};

static const SnodoDialect dialect_2025_06_18 = {
  .version = SNODO_PROTOCOL_VERSION_2025_06_18,
  .stateless = FALSE,
  .methods = legacy_methods,
};

static const SnodoDialect dialect_2025_11_25 = {
  .version = SNODO_PROTOCOL_VERSION_2025_11_25,
  .stateless = FALSE,
  .methods = legacy_methods,
};

static const SnodoDialect dialect_2026_07_28 = {
  .version = SNODO_PROTOCOL_VERSION_2026_07_28,
  .stateless = TRUE,
  .methods = modern_methods,
};

void
snodo_selection_clear (SnodoSelection *selection)
{
  g_clear_pointer (&selection->error_message, g_free);
  g_clear_pointer (&selection->error_data, json_node_unref);
  selection->dialect = NULL;
  selection->error_code = 0;
}

const SnodoDialect *
snodo_dialect_for_version (SnodoProtocolVersion version)
{
  switch (version)
    {
    case SNODO_PROTOCOL_VERSION_2025_06_18:
      return &dialect_2025_06_18;
    case SNODO_PROTOCOL_VERSION_2025_11_25:
      return &dialect_2025_11_25;
    case SNODO_PROTOCOL_VERSION_2026_07_28:
      return &dialect_2026_07_28;
    case SNODO_PROTOCOL_VERSION_UNKNOWN:
    default:
      return NULL;
    }
}

static gboolean
server_has (SnodoServer *server,
            SnodoNeeds   needs)
{
  SnodoCatalog *catalog = snodo_server_get_catalog (server);

  switch (needs)
    {
    case SNODO_NEEDS_RESOURCES:
      return snodo_catalog_has_resources (catalog);
    case SNODO_NEEDS_PROMPTS:
      return snodo_catalog_has_prompts (catalog);
    case SNODO_NEEDS_COMPLETIONS:
      return snodo_catalog_has_completion (catalog);
    case SNODO_NEEDS_NOTHING:
    default:
      return TRUE;
    }
}

/* The method, if it exists in this version and the server offers what it
 * needs; a method behind a capability the server does not advertise does
 * not exist. */
const SnodoMethod *
snodo_dialect_lookup (const SnodoDialect *self,
                      SnodoServer        *server,
                      const char         *method)
{
  for (const SnodoMethod *m = self->methods; m->name != NULL; m++)
    if (g_str_equal (m->name, method))
      return server_has (server, m->needs) ? m : NULL;
  return NULL;
}

JsonObject *
snodo_dialect_get_envelope (JsonObject *params)
{
  JsonNode *meta;
  JsonObject *object;

  if (params == NULL)
    return NULL;
  meta = json_object_get_member (params, "_meta");
  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT (meta))
    return NULL;
  object = json_node_get_object (meta);
  return json_object_has_member (object, SNODO_META_PROTOCOL_VERSION) ? object : NULL;
}

static gboolean
fail (SnodoSelection *selection,
      int             code,
      JsonNode       *data,
      const char     *format,
      ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (SnodoSelection *selection,
      int             code,
      JsonNode       *data,
      const char     *format,
      ...)
{
  va_list args;

  va_start (args, format);
  selection->dialect = NULL;
  selection->error_code = code;
  selection->error_message = g_strdup_vprintf (format, args);
  selection->error_data = data;
  va_end (args);
  return FALSE;
}

/* -32022, naming the versions served in the 2026-07-28 way. */
static gboolean
fail_unsupported (SnodoSelection *selection,
                  SnodoServer    *server,
                  const char     *requested)
{
  JsonObject *data = json_object_new ();
  JsonNode *node;

  json_object_set_member (data, "supported", snodo_server_dup_supported_modern (server));
  json_object_set_string_member (data, "requested", requested != NULL ? requested : "");
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, data);
  return fail (selection, SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION, node,
               _("Unsupported protocol version: %s"), requested != NULL ? requested : "");
}

/* Entry: a request carrying the 2026-07-28 envelope. */
static gboolean
select_modern (SnodoServer     *server,
               SnodoConnection *connection,
               SnodoFrame      *frame,
               JsonObject      *envelope,
               const char      *header,
               SnodoSelection  *selection)
{
  JsonNode *version_node = json_object_get_member (envelope, SNODO_META_PROTOCOL_VERSION);
  JsonNode *capabilities = json_object_get_member (envelope, SNODO_META_CLIENT_CAPABILITIES);
  const char *version;

  if (connection->persistent && connection->era == SNODO_ERA_LEGACY)
    return fail (selection, SNODO_RPC_ERROR_INVALID_REQUEST, NULL,
                 _("Invalid request: this connection was initialized for protocol version %s; "
                   "requests with a 2026-07-28 envelope are not served on it"),
                 snodo_protocol_version_to_string (connection->legacy_version));

  if (!JSON_NODE_HOLDS_VALUE (version_node) ||
      json_node_get_value_type (version_node) != G_TYPE_STRING)
    return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                 _("Invalid params: _meta[\"%s\"] must be a string"), SNODO_META_PROTOCOL_VERSION);
  version = json_node_get_string (version_node);

  /* The header is checked against the body before the version itself. */
  if (header != NULL && !g_str_equal (header, version))
    return fail (selection, SNODO_RPC_ERROR_HEADER_MISMATCH, NULL,
                 _("Header mismatch: the %s header says %s but _meta says %s"),
                 SNODO_HEADER_PROTOCOL_VERSION, header, version);

  if (capabilities == NULL || !JSON_NODE_HOLDS_OBJECT (capabilities))
    return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                 _("Invalid params: _meta[\"%s\"] must be an object"), SNODO_META_CLIENT_CAPABILITIES);

  if (json_object_has_member (envelope, SNODO_META_LOG_LEVEL) &&
      snodo_log_level_from_string (snodo_json_object_get_string (envelope, SNODO_META_LOG_LEVEL)) < 0)
    return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                 _("Invalid params: _meta[\"%s\"] is not a log level"), SNODO_META_LOG_LEVEL);

  if (!snodo_protocol_version_is_stateless (snodo_protocol_version_from_string (version)) ||
      !snodo_server_is_version_enabled (server, snodo_protocol_version_from_string (version)))
    return fail_unsupported (selection, server, version);

  selection->dialect = snodo_dialect_for_version (snodo_protocol_version_from_string (version));
  return TRUE;
}

/*
 * The one place where a request's protocol version is decided, from the
 * message and its headers, the same way for every transport.
 *
 * - A request whose params._meta has the protocol version key is a
 *   2026-07-28 request (when that version is enabled): its envelope is
 *   validated (-32602), an mcp-protocol-version header must agree with it
 *   (-32020, checked before support), and its version must be served
 *   (-32022). On a connection pinned to the initialize era it is refused
 *   (-32600).
 * - Otherwise the request is of the initialize era: the version of its
 *   mcp-protocol-version header (stamped by the stdio transport after
 *   initialize, or sent by an HTTP client), or, before any initialize, the
 *   oldest served version of that era, so that initialize itself and a
 *   lenient client's early requests are served. On a connection pinned to
 *   2026-07-28 (or a server that serves only 2026-07-28), initialize is
 *   answered -32022 naming the versions served, and other requests -32602
 *   for their missing envelope.
 *
 * When 2026-07-28 is disabled the envelope is no signal at all, as for a
 * server that never heard of it: a server/discover probe gets -32601, which
 * tells a 2026 client to fall back to initialize.
 */
gboolean
snodo_dialect_select (SnodoServer     *server,
                      SnodoConnection *connection,
                      SnodoFrame      *frame,
                      GHashTable      *headers,
                      SnodoSelection  *selection)
{
  const char *header = NULL;
  JsonObject *envelope;
  gboolean modern_enabled;
  SnodoProtocolVersion version;

  if (headers != NULL)
    header = g_hash_table_lookup (headers, SNODO_HEADER_PROTOCOL_VERSION);

  modern_enabled = snodo_server_is_version_enabled (server, SNODO_PROTOCOL_VERSION_2026_07_28);
  envelope = modern_enabled ? snodo_dialect_get_envelope (frame->params) : NULL;

  if (envelope != NULL)
    return select_modern (server, connection, frame, envelope, header, selection);

  /* The initialize era. */
  if (header != NULL)
    {
      version = snodo_protocol_version_from_string (header);
      /* An initialize under a 2026-07-28 header contradicts it. */
      if (snodo_protocol_version_is_stateless (version) && modern_enabled &&
          g_str_equal (frame->method, "initialize"))
        return fail (selection, SNODO_RPC_ERROR_HEADER_MISMATCH, NULL,
                     _("Header mismatch: initialize under the %s header %s"),
                     SNODO_HEADER_PROTOCOL_VERSION, header);
      if (snodo_protocol_version_is_stateless (version) && modern_enabled)
        return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                     _("Invalid params: a %s request must carry _meta[\"%s\"] and _meta[\"%s\"]"),
                     header, SNODO_META_PROTOCOL_VERSION, SNODO_META_CLIENT_CAPABILITIES);
      if (version == SNODO_PROTOCOL_VERSION_UNKNOWN || snodo_protocol_version_is_stateless (version) ||
          !snodo_server_is_version_enabled (server, version))
        return fail (selection, SNODO_RPC_ERROR_INVALID_REQUEST, NULL,
                     _("Invalid request: unsupported protocol version in the %s header: %s"),
                     SNODO_HEADER_PROTOCOL_VERSION, header);
      selection->dialect = snodo_dialect_for_version (version);
      return TRUE;
    }

  version = snodo_server_get_oldest_legacy (server);
  if ((connection->persistent && connection->era == SNODO_ERA_MODERN) ||
      version == SNODO_PROTOCOL_VERSION_UNKNOWN)
    {
      if (g_str_equal (frame->method, "initialize"))
        return fail_unsupported (selection, server, snodo_json_object_get_string (frame->params, "protocolVersion"));
      return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                   _("Invalid params: a 2026-07-28 request must carry _meta[\"%s\"] and _meta[\"%s\"]"),
                   SNODO_META_PROTOCOL_VERSION, SNODO_META_CLIENT_CAPABILITIES);
    }

  if (connection->era == SNODO_ERA_LEGACY)
    version = connection->legacy_version;
  selection->dialect = snodo_dialect_for_version (version);
  return TRUE;
}

/* Whether @object is a complete tools/call result without "content", which
 * every version's CallToolResult requires (strict clients reject a result
 * that has only structuredContent): it is then sent with an empty list.
 * @result_type is NULL before 2026-07-28, where every result is complete. */
static gboolean
lacks_content (const SnodoMethod *method,
               JsonObject        *object,
               const char        *result_type)
{
  return method != NULL && (method->flags & SNODO_METHOD_FLAGS_TOOL_CALL) &&
         (result_type == NULL || g_str_equal (result_type, "complete")) &&
         !json_object_has_member (object, "content");
}

/* The ending of a plain complete 2026-07-28 result of @method. */
static GRefString *
ref_modern_tail (SnodoServer       *server,
                 const SnodoMethod *method)
{
  return snodo_server_ref_modern_tail (server, method != NULL && (method->flags & SNODO_METHOD_FLAGS_CACHEABLE));
}

/*
 * 2026-07-28: every result has resultType (a handler's own value, such as
 * input_required, is kept) and serverInfo in _meta (merged with the
 * handler's _meta); complete results of cacheable methods have ttlMs and
 * cacheScope. The initialize era: none of these fields, whatever a handler
 * put there. In every version, a complete tools/call result has "content".
 */
GBytes *
snodo_dialect_encode_result (const SnodoDialect *self,
                             SnodoServer        *server,
                             const SnodoMethod  *method,
                             JsonNode           *id,
                             JsonNode           *result)
{
  static const char * const modern_only[] = { "resultType", "ttlMs", "cacheScope", NULL };
  g_autoptr(JsonObject) extra = NULL;
  JsonObject *object = json_node_get_object (result);
  JsonObject *meta;
  JsonNode *handler_meta;
  const char *result_type;

  if (!self->stateless)
    {
      if (lacks_content (method, object, NULL))
        {
          extra = json_object_new ();
          json_object_set_array_member (extra, "content", json_array_new ());
          return snodo_frame_encode_result_shaped (id, result, modern_only, extra);
        }
      for (guint i = 0; modern_only[i] != NULL; i++)
        if (json_object_has_member (object, modern_only[i]))
          return snodo_frame_encode_result_shaped (id, result, modern_only, NULL);
      return snodo_frame_encode_result (id, result);
    }

  /* The usual answer: a complete result of the handler's own, with
   * nothing of 2026's in it. Its ending is the same for every answer of
   * this server, made once. */
  if (!json_object_has_member (object, "resultType") && !json_object_has_member (object, "_meta") &&
      !json_object_has_member (object, "ttlMs") && !json_object_has_member (object, "cacheScope") &&
      !lacks_content (method, object, "complete"))
    {
      GRefString *tail = ref_modern_tail (server, method);
      GBytes *line = snodo_frame_encode_result_tail (id, result, tail);

      g_ref_string_release (tail);
      return line;
    }

  extra = json_object_new ();
  result_type = snodo_json_object_get_string (object, "resultType");
  if (result_type == NULL)
    result_type = "complete";
  json_object_set_string_member (extra, "resultType", result_type);
  if (lacks_content (method, object, result_type))
    json_object_set_array_member (extra, "content", json_array_new ());

  meta = json_object_new ();
  handler_meta = json_object_get_member (object, "_meta");
  if (handler_meta != NULL && JSON_NODE_HOLDS_OBJECT (handler_meta))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (handler_meta));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        json_object_set_member (meta, name, json_node_copy (member));
    }
  json_object_set_member (meta, SNODO_META_SERVER_INFO, snodo_json_node_take_object (snodo_server_dup_info (server)));
  json_object_set_object_member (extra, "_meta", meta);

  if (method != NULL && (method->flags & SNODO_METHOD_FLAGS_CACHEABLE) &&
      g_str_equal (result_type, "complete"))
    {
      if (!json_object_has_member (object, "ttlMs"))
        json_object_set_int_member (extra, "ttlMs", snodo_server_get_cache_ttl (server));
      if (!json_object_has_member (object, "cacheScope"))
        json_object_set_string_member (extra, "cacheScope", "private");
    }

  return snodo_frame_encode_result_shaped (id, result, NULL, extra);
}

/* What snodo_dialect_encode_result() gives for snodo_text_result_new():
 * the result has content and none of 2026's members, so it is sent as it
 * is, with the server's tail in 2026-07-28. */
GBytes *
snodo_dialect_encode_text_result (const SnodoDialect *self,
                                  SnodoServer        *server,
                                  const SnodoMethod  *method,
                                  JsonNode           *id,
                                  const char         *text,
                                  gboolean            is_error)
{
  GRefString *tail;
  GBytes *line;

  if (!self->stateless)
    return snodo_text_result_encode (id, text, is_error, NULL);

  tail = ref_modern_tail (server, method);
  line = snodo_text_result_encode (id, text, is_error, tail);
  g_ref_string_release (tail);
  return line;
}

/* A CallToolResult of one text block, failed when @is_error. */
JsonNode *
snodo_text_result_new (const char *text,
                       gboolean    is_error)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *block = json_object_new ();
  JsonNode *node;

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, block);
  json_object_set_array_member (result, "content", content);
  if (is_error)
    json_object_set_boolean_member (result, "isError", TRUE);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, result);
  return node;
}

/* The answer snodo_frame_encode_result_tail() gives for
 * snodo_text_result_new(), written without building the result:
 * `{"content":[{"type":"text","text":…}]` then `,"isError":true` and `,`
 * @tail when given. */
GBytes *
snodo_text_result_encode (JsonNode   *id,
                          const char *text,
                          gboolean    is_error,
                          const char *tail)
{
  GString *out = snodo_frame_begin_result (id);

  g_string_append_len (out, "{\"content\":[{\"type\":\"text\",\"text\":", 34);
  snodo_json_append_string (out, text != NULL ? text : "");
  g_string_append_len (out, "}]", 2);
  if (is_error)
    g_string_append_len (out, ",\"isError\":true", 15);
  if (tail != NULL)
    {
      g_string_append_c (out, ',');
      g_string_append (out, tail);
    }
  g_string_append_c (out, '}');
  return snodo_frame_end_result (out);
}

/*
 * Error codes by version: 2026-07-28 has no -32002 (a missing resource is
 * -32602) and no -32042; the initialize era has none of -32020..-32022,
 * which are then internal errors.
 */
GBytes *
snodo_dialect_encode_error (const SnodoDialect *self,
                            JsonNode           *id,
                            int                 code,
                            const char         *message,
                            JsonNode           *data)
{
  if (self != NULL && self->stateless)
    {
      if (code == SNODO_RPC_ERROR_RESOURCE_NOT_FOUND)
        code = SNODO_RPC_ERROR_INVALID_PARAMS;
      else if (code == SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED)
        code = SNODO_RPC_ERROR_INTERNAL_ERROR;
    }
  else
    {
      if (code == SNODO_RPC_ERROR_HEADER_MISMATCH ||
          code == SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY ||
          code == SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION)
        code = SNODO_RPC_ERROR_INTERNAL_ERROR;
      if (code == SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED && self != NULL &&
          self->version < SNODO_PROTOCOL_VERSION_2025_11_25)
        code = SNODO_RPC_ERROR_INTERNAL_ERROR;
    }
  return snodo_frame_encode_error (id, code, message, data);
}
