/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-internal.h"
#include "snodo-invocation-private.h"
#include "snodo-catalog-private.h"
#include "snodo-protocol-private.h"
#include "snodo-resource.h"
#include "snodo-resource-template.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/*
 * The answers of a SnodoInvocation: the snodo_invocation_return_*()
 * family, each of which answers once and takes the invocation's reference.
 * A result is shaped by the request's dialect (snodo-dialect.c) and sent
 * through snodo_invocation_finish(); the rest of the invocation is in
 * snodo-invocation.c.
 */

/* Like g_return_if_fail() for the arguments of a return_*() function:
 * the request still gets an answer (error -32603), and the reference the
 * caller gave is taken, so that a wrong answer never leaves the request
 * unanswered. */
#define snodo_invocation_return_if_fail(self, expr)                              \
  G_STMT_START {                                                                 \
    if (G_LIKELY (expr)) { } else                                                \
      {                                                                          \
        g_return_if_fail_warning (G_LOG_DOMAIN, G_STRFUNC, #expr);               \
        snodo_invocation_end ((self), _("Internal error: the handler answered "  \
                                        "with invalid arguments"));              \
        g_object_unref (self);                                                   \
        return;                                                                  \
      }                                                                          \
  } G_STMT_END

/* The cache hint of the resource or template a resources/read invocation
 * reads (its cache-ttl and cache-scope): FALSE when it has none. */
static gboolean
get_entry_cache_hint (SnodoInvocation *self,
                      guint           *ttl_ms,
                      SnodoCacheScope *scope)
{
  SnodoCatalogEntry *entry = snodo_invocation_get_catalog_entry (self);
  SnodoDescription *description = entry != NULL ? snodo_catalog_entry_get_description (entry) : NULL;
  int ttl = -1;

  if (SNODO_IS_RESOURCE (description))
    {
      ttl = snodo_resource_get_cache_ttl (SNODO_RESOURCE (description));
      *scope = snodo_resource_get_cache_scope (SNODO_RESOURCE (description));
    }
  else if (SNODO_IS_RESOURCE_TEMPLATE (description))
    {
      ttl = snodo_resource_template_get_cache_ttl (SNODO_RESOURCE_TEMPLATE (description));
      *scope = snodo_resource_template_get_cache_scope (SNODO_RESOURCE_TEMPLATE (description));
    }
  *ttl_ms = ttl >= 0 ? (guint) ttl : 0;
  return ttl >= 0;
}

/* In 2026-07-28, @result with the cache hint of what it answers: that of
 * the resource or template read, else that of its method on the server
 * (snodo_server_set_cache_hint()); NULL when there is none, when it is not
 * a complete result or when it says ttlMs or cacheScope itself (the
 * dialect adds the server-wide hint). */
static JsonNode *
dup_with_cache_hint (SnodoInvocation *self,
                     JsonNode        *result)
{
  JsonObject *object = json_node_get_object (result);
  const char *result_type = snodo_json_object_get_string (object, "resultType");
  JsonObject *copy;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  SnodoCacheScope scope;
  guint ttl_ms;

  if (snodo_invocation_get_protocol_version (self) != SNODO_PROTOCOL_VERSION_2026_07_28 ||
      self->method_entry == NULL || !(self->method_entry->flags & SNODO_METHOD_FLAGS_CACHEABLE) ||
      (result_type != NULL && !g_str_equal (result_type, "complete")) ||
      json_object_has_member (object, "ttlMs") || json_object_has_member (object, "cacheScope") ||
      (!(self->method_entry->id == SNODO_METHOD_RESOURCES_READ &&
         get_entry_cache_hint (self, &ttl_ms, &scope)) &&
       !snodo_server_get_cache_hint (self->server, self->method_entry->id, &ttl_ms, &scope)))
    return NULL;

  copy = json_object_new ();
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    json_object_set_member (copy, name, json_node_copy (member));
  json_object_set_int_member (copy, "ttlMs", ttl_ms);
  json_object_set_string_member (copy, "cacheScope", scope == SNODO_CACHE_SCOPE_PUBLIC ? "public" : "private");
  return json_node_init_object (json_node_alloc (), copy);
}

/**
 * snodo_invocation_return_result:
 * @self: (transfer full): an invocation
 * @result: the result object (for a tool, a `CallToolResult`)
 *
 * Answers the request with @result. @result is not modified; it may be
 * sealed. Callable from any thread, once.
 *
 * A `_meta` object in @result is sent with it, in every protocol version;
 * in 2026-07-28 the server adds its `io.modelcontextprotocol/serverInfo`
 * to it (replacing a member of that name) and keeps the rest.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_result (SnodoInvocation *self,
                                JsonNode        *result)
{
  g_autoptr(JsonNode) hinted = NULL;
  g_autoptr(GBytes) line = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->server != NULL);  /* made bare, for no request */
  snodo_invocation_return_if_fail (self, result != NULL && JSON_NODE_HOLDS_OBJECT (result));

  if (!snodo_invocation_claim (self))
    return;

  /* A tool with an output schema must return structuredContent that fits
   * it (unless it failed): a result that does not is the tool's fault, and
   * goes out as a failed result rather than as a broken promise. */
  if (self->output_schema != NULL)
    {
      JsonObject *object = json_node_get_object (result);
      JsonNode *structured = json_object_get_member (object, "structuredContent");
      JsonNode *is_error = json_object_get_member (object, "isError");
      g_autoptr(GError) error = NULL;
      gboolean failed = is_error != NULL && JSON_NODE_HOLDS_VALUE (is_error) &&
                        json_node_get_value_type (is_error) == G_TYPE_BOOLEAN &&
                        json_node_get_boolean (is_error);

      if (!failed && structured == NULL)
        g_set_error_literal (&error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                             _("there is none"));
      else if (!failed)
        snodo_schema_validate (self->output_schema, structured, &error);

      if (error != NULL)
        {
          g_autofree char *text = g_strdup_printf (_("The tool %s answered with structuredContent that does not "
                                                     "match its output schema: %s"), self->name, error->message);

          g_warning ("%s", text);
          line = snodo_dialect_encode_text_result (self->dialect, self->method_entry, self->stamp,
                                                   self->id, text, TRUE);
          snodo_invocation_finish (self, line);
          return;
        }
    }

  hinted = dup_with_cache_hint (self, result);
  line = snodo_dialect_encode_result (self->dialect, self->method_entry, self->stamp,
                                      self->id, hinted != NULL ? hinted : result);
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_return_result_from_string:
 * @self: (transfer full): an invocation
 * @json: the result object as JSON text
 * @error: return location for an error
 *
 * Answers the request with the result object written as JSON, which is
 * convenient from C. If @json is not a JSON object, @error is set and the
 * request is answered with error -32603 all the same: it is never left
 * without an answer.
 *
 * Returns: %TRUE if the request was answered with @json
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_return_result_from_string (SnodoInvocation  *self,
                                            const char       *json,
                                            GError          **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);

  if (json == NULL)
    {
      g_return_if_fail_warning (G_LOG_DOMAIN, G_STRFUNC, "json != NULL");
      g_set_error_literal (&local_error, SNODO_ERROR, SNODO_ERROR_FAILED, _("A result must be a JSON object"));
    }
  else if ((node = snodo_json_parse (json, strlen (json), &local_error)) != NULL &&
           !JSON_NODE_HOLDS_OBJECT (node))
    g_set_error_literal (&local_error, SNODO_ERROR, SNODO_ERROR_FAILED, _("A result must be a JSON object"));

  if (local_error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Internal error: the handler answered with an invalid result: %s"),
                                                  local_error->message);

      snodo_invocation_end (self, message);
      g_object_unref (self);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  snodo_invocation_return_result (self, node);
  return TRUE;
}

/* Answers with a CallToolResult of one text block. Without an output
 * schema to check, the answer is written straight from @text, as
 * snodo_dialect_encode_result() would write snodo_text_result_new(): the
 * usual answer of a tool costs no JSON tree. */
static void
snodo_invocation_return_text_result (SnodoInvocation *self,
                                     const char      *text,
                                     gboolean         is_error)
{
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GBytes) line = NULL;

  if (self->output_schema != NULL || self->server == NULL)
    {
      result = snodo_text_result_new (text, is_error);
      snodo_invocation_return_result (self, result);
      return;
    }

  if (!snodo_invocation_claim (self))
    return;
  line = snodo_dialect_encode_text_result (self->dialect, self->method_entry, self->stamp,
                                           self->id, text, is_error);
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_return_text:
 * @self: (transfer full): an invocation
 * @text: the text
 *
 * Answers a tool call with one text content block.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_text (SnodoInvocation *self,
                              const char      *text)
{
  g_return_if_fail (SNODO_IS_INVOCATION (self));
  snodo_invocation_return_if_fail (self, text != NULL);

  snodo_invocation_return_text_result (self, text, FALSE);
}

/**
 * snodo_invocation_return_tool_error:
 * @self: (transfer full): an invocation
 * @message: what went wrong, for the model to read
 *
 * Answers a tool call with a failed result: one text content block and
 * `isError: true`. A tool's failure is not a protocol error.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_tool_error (SnodoInvocation *self,
                                    const char      *message)
{
  g_return_if_fail (SNODO_IS_INVOCATION (self));
  snodo_invocation_return_if_fail (self, message != NULL);

  snodo_invocation_return_text_result (self, message, TRUE);
}

/**
 * snodo_invocation_return_gerror:
 * @self: (transfer full): an invocation
 * @error: the error
 *
 * Answers the request with an error. An error of the [error@Snodo.RpcError]
 * domain becomes a JSON-RPC error with that code. %SNODO_ERROR_INPUT_REQUIRED
 * from [method@Snodo.Invocation.request_input_finish] sends nothing: the
 * request was answered already. Any other error, for a
 * tool call, becomes a failed tool result (`isError: true`) carrying its
 * message; for other requests, error -32603.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_gerror (SnodoInvocation *self,
                                const GError    *error)
{
  g_autoptr(GBytes) line = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->server != NULL);  /* made bare, for no request */
  snodo_invocation_return_if_fail (self, error != NULL);

  /* The request was answered with input_required already. */
  if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED))
    {
      g_object_unref (self);
      return;
    }

  if (self->tool_call &&
      (error->domain != SNODO_RPC_ERROR ||
       (!self->dialect->stateless && error->code == SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY)))
    {
      snodo_invocation_return_tool_error (self, error->message);
      return;
    }

  if (!snodo_invocation_claim (self))
    return;

  {
    int code = error->domain == SNODO_RPC_ERROR ? error->code : SNODO_RPC_ERROR_INTERNAL_ERROR;
    g_autoptr(JsonNode) data = NULL;

    if (code == SNODO_RPC_ERROR_RESOURCE_NOT_FOUND && self->dialect->stateless)
      {
        JsonObject *object = json_object_new ();
        JsonNode *uri = snodo_invocation_get_param (self, "uri");

        if (uri != NULL)
          json_object_set_member (object, "uri", json_node_copy (uri));
        data = json_node_init_object (json_node_alloc (), object);
        json_object_unref (object);
      }
    else if (code == SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY)
      {
        JsonObject *object = json_object_new ();

        g_mutex_lock (&self->lock);
        if (self->required_capabilities != NULL)
          json_object_set_object_member (object, "requiredCapabilities",
                                         json_object_ref (self->required_capabilities));
        g_mutex_unlock (&self->lock);
        data = json_node_init_object (json_node_alloc (), object);
        json_object_unref (object);
      }

    line = snodo_dialect_encode_error (self->dialect, self->id, code, error->message, data);
  }
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_return_error_literal:
 * @self: (transfer full): an invocation
 * @domain: the error domain
 * @code: the error code
 * @message: the error message
 *
 * Like [method@Snodo.Invocation.return_gerror], from its parts.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_error_literal (SnodoInvocation *self,
                                       GQuark           domain,
                                       int              code,
                                       const char      *message)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  snodo_invocation_return_if_fail (self, message != NULL);

  error = g_error_new_literal (domain, code, message);
  snodo_invocation_return_gerror (self, error);
}

static void
snodo_invocation_return_object (SnodoInvocation *self,
                                JsonObject      *object)
{
  g_autoptr(JsonNode) result = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (result, object);
  snodo_invocation_return_result (self, result);
}

static void
snodo_invocation_return_contents (SnodoInvocation *self,
                                  const char      *uri,
                                  const char      *mime_type,
                                  const char      *member,
                                  const char      *value)
{
  JsonObject *object = json_object_new ();
  JsonArray *contents = json_array_new ();
  JsonObject *content = json_object_new ();

  json_object_set_string_member (content, "uri", uri != NULL ? uri : snodo_invocation_get_uri (self));
  if (mime_type != NULL)
    json_object_set_string_member (content, "mimeType", mime_type);
  json_object_set_string_member (content, member, value);
  json_array_add_object_element (contents, content);
  json_object_set_array_member (object, "contents", contents);
  snodo_invocation_return_object (self, object);
}

/**
 * snodo_invocation_return_resource_text:
 * @self: (transfer full): an invocation
 * @uri: (nullable): the URI of the content, or %NULL for the URI that was
 *   read
 * @mime_type: (nullable): the MIME type of the content
 * @text: the content
 *
 * Answers a `resources/read` request with one text content. To answer with
 * several contents, build the result and use
 * [method@Snodo.Invocation.return_result].
 *
 * Since: 0.1
 */
void
snodo_invocation_return_resource_text (SnodoInvocation *self,
                                       const char      *uri,
                                       const char      *mime_type,
                                       const char      *text)
{
  g_return_if_fail (SNODO_IS_INVOCATION (self));
  snodo_invocation_return_if_fail (self, uri != NULL || snodo_invocation_get_uri (self) != NULL);
  snodo_invocation_return_if_fail (self, text != NULL);

  snodo_invocation_return_contents (self, uri, mime_type, "text", text);
}

/**
 * snodo_invocation_return_resource_blob:
 * @self: (transfer full): an invocation
 * @uri: (nullable): the URI of the content, or %NULL for the URI that was
 *   read
 * @mime_type: (nullable): the MIME type of the content
 * @blob: the content
 *
 * Answers a `resources/read` request with one binary content, sent in
 * base64.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_resource_blob (SnodoInvocation *self,
                                       const char      *uri,
                                       const char      *mime_type,
                                       GBytes          *blob)
{
  g_autofree char *base64 = NULL;
  gconstpointer data;
  gsize size;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  snodo_invocation_return_if_fail (self, uri != NULL || snodo_invocation_get_uri (self) != NULL);
  snodo_invocation_return_if_fail (self, blob != NULL);

  data = g_bytes_get_data (blob, &size);
  base64 = g_base64_encode (data, size);
  snodo_invocation_return_contents (self, uri, mime_type, "blob", base64);
}

/**
 * snodo_invocation_return_resource_not_found:
 * @self: (transfer full): an invocation
 *
 * Answers a `resources/read` request with the error that the resource does
 * not exist: [error@Snodo.RpcError.RESOURCE_NOT_FOUND] with the message
 * “Resource not found: ” and the URI. Protocol versions that have no such
 * code get the one they use instead.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_resource_not_found (SnodoInvocation *self)
{
  g_autofree char *message = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));

  message = g_strdup_printf (_("Resource not found: %s"),
                             snodo_invocation_get_uri (self) != NULL ? snodo_invocation_get_uri (self) : "");
  snodo_invocation_return_error_literal (self, SNODO_RPC_ERROR, SNODO_RPC_ERROR_RESOURCE_NOT_FOUND, message);
}

/**
 * snodo_invocation_return_prompt:
 * @self: (transfer full): an invocation
 * @description: (nullable): a description of the filled-in prompt
 * @messages: a JSON array of messages, each `{"role": "user" or
 *   "assistant", "content": {…}}`
 *
 * Answers a `prompts/get` request. @messages is not modified.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_prompt (SnodoInvocation *self,
                                const char      *description,
                                JsonNode        *messages)
{
  JsonObject *object;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  snodo_invocation_return_if_fail (self, messages != NULL && JSON_NODE_HOLDS_ARRAY (messages));

  object = json_object_new ();
  if (description != NULL)
    json_object_set_string_member (object, "description", description);
  json_object_set_member (object, "messages", json_node_copy (messages));
  snodo_invocation_return_object (self, object);
}

/**
 * snodo_invocation_return_completion:
 * @self: (transfer full): an invocation
 * @values: (array zero-terminated=1) (nullable): the suggested values, best
 *   first
 * @total: how many values there are in all, or -1 when it is not known
 * @has_more: whether there are more values than @values
 *
 * Answers a `completion/complete` request. At most 100 values are sent;
 * when @values has more, the rest is left out and `hasMore` is set (and, if
 * @total is -1 and @has_more %FALSE, `total` is the length of @values).
 *
 * Since: 0.1
 */
void
snodo_invocation_return_completion (SnodoInvocation    *self,
                                    const char * const *values,
                                    gint                total,
                                    gboolean            has_more)
{
  JsonObject *object;
  JsonObject *completion;
  JsonArray *array;
  guint n_values = values != NULL ? g_strv_length ((char **) values) : 0;
  guint n_sent = MIN (n_values, 100);

  g_return_if_fail (SNODO_IS_INVOCATION (self));

  array = json_array_sized_new (n_sent);
  for (guint i = 0; i < n_sent; i++)
    json_array_add_string_element (array, values[i]);

  if (n_sent < n_values)
    {
      if (total < 0 && !has_more)
        total = (gint) MIN (n_values, G_MAXINT);
      has_more = TRUE;
    }

  completion = json_object_new ();
  json_object_set_array_member (completion, "values", array);
  if (total >= 0)
    json_object_set_int_member (completion, "total", total);
  if (has_more)
    json_object_set_boolean_member (completion, "hasMore", TRUE);
  object = json_object_new ();
  json_object_set_object_member (object, "completion", completion);
  snodo_invocation_return_object (self, object);
}

/**
 * snodo_invocation_return_structured:
 * @self: (transfer full): an invocation
 * @structured: the structured result: a JSON object (from 2026-07-28, any
 *   JSON value)
 *
 * Answers a tool call with @structured as its `structuredContent`, and the
 * same JSON, serialized, as one text block in `content`, for clients that
 * do not read structured results (as the MCP specification recommends).
 * @structured is not modified.
 *
 * With an output schema ([method@Snodo.Tool.set_output_schema]),
 * @structured must fit it; if it does not, the call is answered with a
 * failed result that says so, as for [method@Snodo.Invocation.return_result].
 * Before 2026-07-28 `structuredContent` can only be an object: a value of
 * another kind is then sent as the text block alone.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_structured (SnodoInvocation *self,
                                    JsonNode        *structured)
{
  g_autoptr(JsonNode) result = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->server != NULL);  /* made bare, for no request */
  snodo_invocation_return_if_fail (self, structured != NULL);

  text = snodo_json_to_string (structured, NULL);
  result = snodo_text_result_new (text, FALSE);
  if (self->dialect->stateless || JSON_NODE_HOLDS_OBJECT (structured))
    json_object_set_member (json_node_get_object (result), "structuredContent",
                            json_node_copy (structured));
  snodo_invocation_return_result (self, result);
}
