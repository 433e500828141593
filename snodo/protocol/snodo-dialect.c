/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-dialect-private.h"
#include "snodo-wire-private.h"

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
  { "initialize", SNODO_METHOD_INITIALIZE, 0, SNODO_NEEDS_NOTHING },
  { "ping", SNODO_METHOD_PING, 0, SNODO_NEEDS_NOTHING },
  { "logging/setLevel", SNODO_METHOD_LOGGING_SET_LEVEL, 0, SNODO_NEEDS_NOTHING },
  { "tools/list", SNODO_METHOD_TOOLS_LIST, 0, SNODO_NEEDS_NOTHING },
  { "tools/call", SNODO_METHOD_TOOLS_CALL, SNODO_METHOD_FLAGS_TOOL_CALL, SNODO_NEEDS_NOTHING },
  { "resources/list", SNODO_METHOD_RESOURCES_LIST, 0, SNODO_NEEDS_RESOURCES },
  { "resources/templates/list", SNODO_METHOD_RESOURCES_TEMPLATES_LIST, 0, SNODO_NEEDS_RESOURCES },
  { "resources/read", SNODO_METHOD_RESOURCES_READ, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_RESOURCES },
  { "resources/subscribe", SNODO_METHOD_RESOURCES_SUBSCRIBE, 0, SNODO_NEEDS_RESOURCES },
  { "resources/unsubscribe", SNODO_METHOD_RESOURCES_UNSUBSCRIBE, 0, SNODO_NEEDS_RESOURCES },
  { "prompts/list", SNODO_METHOD_PROMPTS_LIST, 0, SNODO_NEEDS_PROMPTS },
  { "prompts/get", SNODO_METHOD_PROMPTS_GET, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_PROMPTS },
  { "completion/complete", SNODO_METHOD_COMPLETION_COMPLETE, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_COMPLETIONS },
  { "tasks/get", SNODO_METHOD_TASKS_GET, 0, SNODO_NEEDS_TASKS },
  { "tasks/result", SNODO_METHOD_TASKS_RESULT, 0, SNODO_NEEDS_TASKS },
  { "tasks/list", SNODO_METHOD_TASKS_LIST, 0, SNODO_NEEDS_TASKS },
  { "tasks/cancel", SNODO_METHOD_TASKS_CANCEL, 0, SNODO_NEEDS_TASKS },
  { NULL, 0, 0, SNODO_NEEDS_NOTHING },
};

static const SnodoMethod modern_methods[] = {
  { "server/discover", SNODO_METHOD_DISCOVER, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_NOTHING },
  { "tools/list", SNODO_METHOD_TOOLS_LIST, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_NOTHING },
  { "tools/call", SNODO_METHOD_TOOLS_CALL, SNODO_METHOD_FLAGS_TOOL_CALL | SNODO_METHOD_FLAGS_INPUT, SNODO_NEEDS_NOTHING },
  { "resources/list", SNODO_METHOD_RESOURCES_LIST, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_RESOURCES },
  { "resources/templates/list", SNODO_METHOD_RESOURCES_TEMPLATES_LIST, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_RESOURCES },
  { "resources/read", SNODO_METHOD_RESOURCES_READ, SNODO_METHOD_FLAGS_CACHEABLE | SNODO_METHOD_FLAGS_INPUT | SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_RESOURCES },
  { "prompts/list", SNODO_METHOD_PROMPTS_LIST, SNODO_METHOD_FLAGS_CACHEABLE, SNODO_NEEDS_PROMPTS },
  { "prompts/get", SNODO_METHOD_PROMPTS_GET, SNODO_METHOD_FLAGS_INPUT | SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_PROMPTS },
  { "completion/complete", SNODO_METHOD_COMPLETION_COMPLETE, SNODO_METHOD_FLAGS_HANDLER, SNODO_NEEDS_COMPLETIONS },
  { "subscriptions/listen", SNODO_METHOD_SUBSCRIPTIONS_LISTEN, 0, SNODO_NEEDS_NOTHING },
  { "tasks/get", SNODO_METHOD_TASKS_GET, 0, SNODO_NEEDS_TASKS },
  { "tasks/update", SNODO_METHOD_TASKS_UPDATE, 0, SNODO_NEEDS_TASKS },
  { "tasks/cancel", SNODO_METHOD_TASKS_CANCEL, 0, SNODO_NEEDS_TASKS },
  { NULL, 0, 0, SNODO_NEEDS_NOTHING },
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

/* The method, if it exists in this version. A method behind a capability
 * the server does not advertise does not exist either, which the server
 * checks by the method's needs. */
const SnodoMethod *
snodo_dialect_lookup (const SnodoDialect *self,
                      const char         *method)
{
  for (const SnodoMethod *m = self->methods; m->name != NULL; m++)
    if (m->name[0] == method[0] && strcmp (m->name, method) == 0)
      return m;
  return NULL;
}

SnodoProtocolVersion
snodo_protocol_versions_oldest_legacy (guint versions)
{
  for (SnodoProtocolVersion v = SNODO_PROTOCOL_VERSION_2025_06_18; v <= SNODO_PROTOCOL_VERSION_2025_11_25; v++)
    if (snodo_protocol_versions_contain (versions, v))
      return v;
  return SNODO_PROTOCOL_VERSION_UNKNOWN;
}

JsonNode *
snodo_protocol_versions_dup_modern (guint versions)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (SnodoProtocolVersion v = SNODO_PROTOCOL_VERSION_2026_07_28; v <= SNODO_PROTOCOL_VERSION_2026_07_28; v++)
    if (snodo_protocol_versions_contain (versions, v))
      json_array_add_string_element (array, snodo_protocol_version_to_string (v));
  json_node_take_array (node, array);
  return node;
}

SnodoProtocolVersion
snodo_protocol_negotiate (guint       versions,
                          const char *requested)
{
  SnodoProtocolVersion version = snodo_protocol_version_from_string (requested);

  if (!snodo_protocol_version_is_stateless (version) && snodo_protocol_versions_contain (versions, version))
    return version;

  version = SNODO_PROTOCOL_VERSION_UNKNOWN;
  for (SnodoProtocolVersion v = SNODO_PROTOCOL_VERSION_2025_06_18; v <= SNODO_PROTOCOL_VERSION_2025_11_25; v++)
    if (snodo_protocol_versions_contain (versions, v))
      version = v;
  return version;
}

static const char * const log_level_names[] = {
  "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
};

int
snodo_log_level_from_string (const char *string)
{
  if (string == NULL)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (log_level_names); i++)
    if (g_str_equal (string, log_level_names[i]))
      return (int) i;
  return -1;
}

const char *
snodo_log_level_to_string (guint level)
{
  if (level >= G_N_ELEMENTS (log_level_names))
    return "emergency";
  return log_level_names[level];
}

JsonObject *
snodo_implementation_new (const char *name,
                          const char *version,
                          const char *title)
{
  JsonObject *info = json_object_new ();

  json_object_set_string_member (info, "name", name);
  json_object_set_string_member (info, "version", version);
  if (title != NULL)
    json_object_set_string_member (info, "title", title);
  return info;
}

struct _SnodoStamp
{
  gatomicrefcount       ref_count;
  /* The serverInfo (an Implementation object), sealed. */
  JsonNode             *info;
  guint                 cache_ttl;
  SnodoRequestStateKey *key;
  /* The members every plain complete result ends with, as JSON text
   * without the braces of their object: `"resultType":"complete",
   * "_meta":{…serverInfo…}`, and for a cacheable method [1] then
   * `,"ttlMs":…,"cacheScope":"private"`. */
  char                 *tail[2];
};

static char *
stamp_write_tail (SnodoStamp *self,
                  gboolean    cacheable)
{
  g_autoptr(JsonObject) object = json_object_new ();
  JsonObject *meta = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  json_object_set_string_member (object, "resultType", "complete");
  json_object_set_member (meta, SNODO_META_SERVER_INFO, json_node_copy (self->info));
  json_object_set_object_member (object, "_meta", meta);
  if (cacheable)
    {
      json_object_set_int_member (object, "ttlMs", self->cache_ttl);
      json_object_set_string_member (object, "cacheScope", "private");
    }
  node = json_node_init_object (json_node_alloc (), object);
  text = snodo_json_to_string (node, &len);
  /* Without the braces of the object. */
  return g_strndup (text + 1, len - 2);
}

SnodoStamp *
snodo_stamp_new (const char           *name,
                 const char           *version,
                 const char           *title,
                 guint                 cache_ttl,
                 SnodoRequestStateKey *key)
{
  return snodo_stamp_new_with_info (snodo_implementation_new (name, version, title), cache_ttl, key);
}

SnodoStamp *
snodo_stamp_new_with_info (JsonObject           *info,
                           guint                 cache_ttl,
                           SnodoRequestStateKey *key)
{
  SnodoStamp *self = g_new0 (SnodoStamp, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->info = json_node_init_object (json_node_alloc (), info);
  json_object_unref (info);
  json_node_seal (self->info);
  self->cache_ttl = cache_ttl;
  self->key = key != NULL ? snodo_request_state_key_ref (key) : NULL;
  self->tail[0] = stamp_write_tail (self, FALSE);
  self->tail[1] = stamp_write_tail (self, TRUE);
  return self;
}

SnodoStamp *
snodo_stamp_ref (SnodoStamp *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
snodo_stamp_unref (SnodoStamp *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_clear_pointer (&self->info, json_node_unref);
  g_clear_pointer (&self->key, snodo_request_state_key_unref);
  g_free (self->tail[0]);
  g_free (self->tail[1]);
  g_free (self);
}

SnodoRequestStateKey *
snodo_stamp_get_request_state_key (SnodoStamp *self)
{
  return self->key;
}

void
snodo_dialect_decode (const char *data,
                      gsize       len,
                      SnodoFrame *frame)
{
  snodo_frame_decode_deferring (data, len, SNODO_META, frame);
}

void
snodo_dialect_decode_lazy (const char *data,
                           gsize       len,
                           SnodoFrame *frame)
{
  snodo_frame_decode_lazy (data, len, SNODO_META, frame);
}

void
snodo_dialect_decode_in_place (char       *data,
                               gsize       len,
                               gboolean    lazy,
                               SnodoFrame *frame)
{
  snodo_frame_decode_in_place (data, len, SNODO_META, lazy, frame);
}

/* Notes the member @name (its JSON text, with the quotes) of meta->text
 * when it is one of those the protocol reads. */
static void
request_meta_note (SnodoRequestMeta *meta,
                   const char       *name,
                   gsize             name_len,
                   const char       *value,
                   gsize             value_len,
                   gboolean          no_escapes)
{
#define IS_NAME(literal) \
  (name_len == sizeof (literal) + 1 && memcmp (name + 1, literal, sizeof (literal) - 1) == 0)

  if (!no_escapes && memchr (name + 1, '\\', name_len - 2) != NULL)
    {
      /* A name with escapes: read as a tree would be. */
      g_autofree char *plain = snodo_json_text_dup_string (name, name_len);

      if (g_str_equal (plain, SNODO_META_PROTOCOL_VERSION))
        name = "\"" SNODO_META_PROTOCOL_VERSION "\"";
      else if (g_str_equal (plain, SNODO_META_CLIENT_CAPABILITIES))
        name = "\"" SNODO_META_CLIENT_CAPABILITIES "\"";
      else if (g_str_equal (plain, SNODO_META_LOG_LEVEL))
        name = "\"" SNODO_META_LOG_LEVEL "\"";
      else if (g_str_equal (plain, "progressToken"))
        name = "\"progressToken\"";
      else
        return;
      name_len = strlen (name);
    }

  if (IS_NAME (SNODO_META_PROTOCOL_VERSION))
    {
      meta->version = value;
      meta->version_len = value_len;
    }
  else if (IS_NAME (SNODO_META_CLIENT_CAPABILITIES))
    {
      meta->capabilities = value;
      meta->capabilities_len = value_len;
    }
  else if (IS_NAME (SNODO_META_LOG_LEVEL))
    {
      meta->log_level = value;
      meta->log_level_len = value_len;
    }
  else if (IS_NAME ("progressToken"))
    {
      meta->progress_token = value;
      meta->progress_token_len = value_len;
    }
  else if (IS_NAME ("traceparent") || IS_NAME ("tracestate"))
    {
      /* Printable ASCII only, which needs no escape: a string with one
       * is no trace context and is left alone. */
      gboolean plain_string = value_len >= 2 && value[0] == '"' && value[value_len - 1] == '"' &&
                              memchr (value, '\\', value_len) == NULL;

      const char *text = plain_string ? value + 1 : NULL;
      gsize text_len = plain_string ? value_len - 2 : 0;

      if (IS_NAME ("traceparent"))
        {
          meta->traceparent = text;
          meta->traceparent_len = text_len;
        }
      else
        {
          meta->tracestate = text;
          meta->tracestate_len = text_len;
        }
    }

#undef IS_NAME
}

/* Finds the members the protocol reads in meta->text: where the reader
 * noted them when it checked the text (@spans, when not NULL and
 * complete), else by reading the text again. */
static void
request_meta_scan (SnodoRequestMeta     *meta,
                   const SnodoJsonSpans *spans)
{
  SnodoJsonMemberIter iter;
  const char *name;
  const char *value;
  gsize name_len;
  gsize value_len;

  if (spans != NULL && spans->complete)
    {
      for (guint i = 0; i < spans->n; i++)
        {
          const SnodoJsonSpan *span = &spans->spans[i];

          request_meta_note (meta, meta->text + span->name, span->name_len,
                             meta->text + span->value, span->value_len, spans->plain);
        }
      return;
    }

  snodo_json_member_iter_init (&iter, meta->text, meta->len);
  while (snodo_json_member_iter_next (&iter, &name, &name_len, &value, &value_len))
    request_meta_note (meta, name, name_len, value, value_len, FALSE);
}

void
snodo_request_meta_init (SnodoRequestMeta *meta,
                         SnodoFrame       *frame)
{
  memset (meta, 0, sizeof *meta);

  if (frame->deferred != NULL)
    {
      meta->text = g_steal_pointer (&frame->deferred);
      meta->len = frame->deferred_len;
      meta->deferred = TRUE;
      frame->deferred_len = 0;
      request_meta_scan (meta, &frame->deferred_spans);
      frame->deferred_spans.complete = FALSE;
    }
  else
    {
      JsonNode *node = snodo_frame_get_param (frame, SNODO_META);

      /* Decoded without deferring (or a _meta that is no object). */
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        return;
      meta->text = snodo_json_to_string (node, &meta->len);
      request_meta_scan (meta, NULL);
    }
}

void
snodo_request_meta_clear (SnodoRequestMeta *meta)
{
  g_free (meta->text);
  memset (meta, 0, sizeof *meta);
}

void
snodo_request_meta_move (SnodoRequestMeta *dest,
                         SnodoRequestMeta *src)
{
  *dest = *src;
  memset (src, 0, sizeof *src);
}

gboolean
snodo_request_meta_is_envelope (const SnodoRequestMeta *meta)
{
  return meta->version != NULL;
}

int
snodo_request_meta_get_log_level (const SnodoRequestMeta *meta)
{
  if (meta->log_level == NULL)
    return -1;
  for (guint i = 0; i < G_N_ELEMENTS (log_level_names); i++)
    if (snodo_json_text_equal_string (meta->log_level, meta->log_level_len, log_level_names[i]))
      return (int) i;
  return -1;
}

JsonNode *
snodo_request_meta_dup_progress_token (const SnodoRequestMeta *meta)
{
  JsonNode *token;

  if (meta->progress_token == NULL)
    return NULL;
  token = snodo_json_parse (meta->progress_token, meta->progress_token_len, NULL);
  if (token != NULL && JSON_NODE_HOLDS_VALUE (token) &&
      (json_node_get_value_type (token) == G_TYPE_STRING ||
       json_node_get_value_type (token) == G_TYPE_INT64))
    return token;
  g_clear_pointer (&token, json_node_unref);
  return NULL;
}

JsonObject *
snodo_request_meta_dup_capabilities (const SnodoRequestMeta *meta)
{
  g_autoptr(JsonNode) node = NULL;

  if (meta->capabilities == NULL || meta->capabilities[0] != '{')
    return NULL;
  node = snodo_json_parse (meta->capabilities, meta->capabilities_len, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

JsonNode *
snodo_request_meta_parse (const SnodoRequestMeta *meta)
{
  if (meta->text == NULL)
    return NULL;
  return snodo_json_parse (meta->text, meta->len, NULL);
}

gboolean
snodo_dialect_has_envelope (SnodoFrame *frame)
{
  SnodoRequestMeta meta = { 0, };
  gboolean envelope;

  if (frame->deferred != NULL)
    {
      meta.text = frame->deferred;
      meta.len = frame->deferred_len;
      request_meta_scan (&meta, &frame->deferred_spans);
      return snodo_request_meta_is_envelope (&meta);
    }
  snodo_request_meta_init (&meta, frame);
  envelope = snodo_request_meta_is_envelope (&meta);
  snodo_request_meta_clear (&meta);
  return envelope;
}

/* The version the envelope names, if it is one of those known. */
static SnodoProtocolVersion
request_meta_get_version (const SnodoRequestMeta *meta)
{
  /* Newest first: the version such requests carry. */
  for (SnodoProtocolVersion v = SNODO_PROTOCOL_VERSION_2026_07_28; v >= SNODO_PROTOCOL_VERSION_2025_06_18; v--)
    if (snodo_json_text_equal_string (meta->version, meta->version_len, snodo_protocol_version_to_string (v)))
      return v;
  return SNODO_PROTOCOL_VERSION_UNKNOWN;
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
                  guint           versions,
                  const char     *requested)
{
  JsonObject *data = json_object_new ();
  JsonNode *node;

  json_object_set_member (data, "supported", snodo_protocol_versions_dup_modern (versions));
  json_object_set_string_member (data, "requested", requested != NULL ? requested : "");
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, data);
  return fail (selection, SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION, node,
               _("Unsupported protocol version: %s"), requested != NULL ? requested : "");
}

/* Entry: a request carrying the 2026-07-28 envelope. */
static gboolean
select_modern (const SnodoRequestMeta *meta,
               const char             *header,
               guint                   versions,
               SnodoEra                era,
               SnodoProtocolVersion    legacy_version,
               SnodoSelection         *selection)
{
  SnodoProtocolVersion version;

  if (era == SNODO_ERA_LEGACY)
    return fail (selection, SNODO_RPC_ERROR_INVALID_REQUEST, NULL,
                 _("Invalid request: this connection was initialized for protocol version %s; "
                   "requests with a 2026-07-28 envelope are not served on it"),
                 snodo_protocol_version_to_string (legacy_version));

  if (!snodo_json_text_is_string (meta->version, meta->version_len))
    return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                 _("Invalid params: _meta[\"%s\"] must be a string"), SNODO_META_PROTOCOL_VERSION);

  /* The header is checked against the body before the version itself. */
  if (header != NULL && !snodo_json_text_equal_string (meta->version, meta->version_len, header))
    {
      g_autofree char *version_string = snodo_json_text_dup_string (meta->version, meta->version_len);

      return fail (selection, SNODO_RPC_ERROR_HEADER_MISMATCH, NULL,
                   _("Header mismatch: the %s header says %s but _meta says %s"),
                   SNODO_HEADER_PROTOCOL_VERSION, header, version_string);
    }

  if (meta->capabilities == NULL || meta->capabilities[0] != '{')
    return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                 _("Invalid params: _meta[\"%s\"] must be an object"), SNODO_META_CLIENT_CAPABILITIES);

  if (meta->log_level != NULL && snodo_request_meta_get_log_level (meta) < 0)
    return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                 _("Invalid params: _meta[\"%s\"] is not a log level"), SNODO_META_LOG_LEVEL);

  version = request_meta_get_version (meta);
  if (!snodo_protocol_version_is_stateless (version) || !snodo_protocol_versions_contain (versions, version))
    {
      g_autofree char *version_string = snodo_json_text_dup_string (meta->version, meta->version_len);

      return fail_unsupported (selection, versions, version_string);
    }

  selection->dialect = snodo_dialect_for_version (version);
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
snodo_dialect_select (SnodoFrame             *frame,
                      const SnodoRequestMeta *meta,
                      const char             *header,
                      guint                   versions,
                      SnodoEra                era,
                      SnodoProtocolVersion    legacy_version,
                      SnodoSelection         *selection)
{
  gboolean modern_enabled;
  SnodoProtocolVersion version;

  modern_enabled = snodo_protocol_versions_contain (versions, SNODO_PROTOCOL_VERSION_2026_07_28);

  if (modern_enabled && snodo_request_meta_is_envelope (meta))
    return select_modern (meta, header, versions, era, legacy_version, selection);

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
          !snodo_protocol_versions_contain (versions, version))
        return fail (selection, SNODO_RPC_ERROR_INVALID_REQUEST, NULL,
                     _("Invalid request: unsupported protocol version in the %s header: %s"),
                     SNODO_HEADER_PROTOCOL_VERSION, header);
      selection->dialect = snodo_dialect_for_version (version);
      return TRUE;
    }

  version = snodo_protocol_versions_oldest_legacy (versions);
  if (era == SNODO_ERA_MODERN || version == SNODO_PROTOCOL_VERSION_UNKNOWN)
    {
      if (g_str_equal (frame->method, "initialize"))
        return fail_unsupported (selection, versions, snodo_json_object_get_string (snodo_frame_get_params (frame),
                                                                                    "protocolVersion"));
      return fail (selection, SNODO_RPC_ERROR_INVALID_PARAMS, NULL,
                   _("Invalid params: a 2026-07-28 request must carry _meta[\"%s\"] and _meta[\"%s\"]"),
                   SNODO_META_PROTOCOL_VERSION, SNODO_META_CLIENT_CAPABILITIES);
    }

  if (era == SNODO_ERA_LEGACY)
    version = legacy_version;
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
static const char *
stamp_get_tail (SnodoStamp        *stamp,
                const SnodoMethod *method)
{
  return stamp->tail[method != NULL && (method->flags & SNODO_METHOD_FLAGS_CACHEABLE)];
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
                             const SnodoMethod  *method,
                             SnodoStamp         *stamp,
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
   * the server, written once in its stamp. */
  if (!json_object_has_member (object, "resultType") && !json_object_has_member (object, "_meta") &&
      !json_object_has_member (object, "ttlMs") && !json_object_has_member (object, "cacheScope") &&
      !lacks_content (method, object, "complete"))
    return snodo_frame_encode_result_tail (id, result, stamp_get_tail (stamp, method));

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
  json_object_set_member (meta, SNODO_META_SERVER_INFO, json_node_copy (stamp->info));
  json_object_set_object_member (extra, "_meta", meta);

  if (method != NULL && (method->flags & SNODO_METHOD_FLAGS_CACHEABLE) &&
      g_str_equal (result_type, "complete"))
    {
      if (!json_object_has_member (object, "ttlMs"))
        json_object_set_int_member (extra, "ttlMs", stamp->cache_ttl);
      if (!json_object_has_member (object, "cacheScope"))
        json_object_set_string_member (extra, "cacheScope", "private");
    }

  return snodo_frame_encode_result_shaped (id, result, NULL, extra);
}

/* What snodo_dialect_encode_result() gives for snodo_text_result_new():
 * the result has content and none of 2026's members, so it is sent as it
 * is, with the stamp's tail in 2026-07-28. */
GBytes *
snodo_dialect_encode_text_result (const SnodoDialect *self,
                                  const SnodoMethod  *method,
                                  SnodoStamp         *stamp,
                                  JsonNode           *id,
                                  const char         *text,
                                  gboolean            is_error)
{
  return snodo_text_result_encode (id, text, is_error,
                                   self->stateless ? stamp_get_tail (stamp, method) : NULL);
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
  gsize text_len = text != NULL ? strlen (text) : 0;
  gsize tail_len = tail != NULL ? strlen (tail) : 0;
  GString out;

  /* Room for the whole line at once: the envelope (an id of up to 40
   * bytes), the content block and the text; only escapes make it grow. */
  snodo_frame_begin_result_in (&out, id, text_len + tail_len + 160);
  snodo_json_string_append_len (&out, "{\"content\":[{\"type\":\"text\",\"text\":", 34);
  snodo_json_append_string (&out, text != NULL ? text : "");
  if (is_error)
    snodo_json_string_append_len (&out, "}],\"isError\":true", 17);
  else
    snodo_json_string_append_len (&out, "}]", 2);
  if (tail != NULL)
    {
      g_string_append_c (&out, ',');
      snodo_json_string_append_len (&out, tail, tail_len);
    }
  g_string_append_c (&out, '}');
  return snodo_frame_end_result_in (&out);
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
