/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-http-rules-private.h"
#include "snodo-server.h"
#include "snodo-tool.h"
#include "snodo-wire-private.h"

/*
 * What a line the server sends is, read from the encoder's fixed layout
 * ({"jsonrpc":"2.0","id":…,"result"|"error"|"method"…), with a full parse
 * for anything else. Returns TRUE for a response; *code is its error code,
 * or 0 for a result.
 */
gboolean
snodo_http_line_is_response (GBytes *line,
                             int    *code)
{
  static const char prefix[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  gsize len;
  const char *data = g_bytes_get_data (line, &len);
  const char *p, *end = data + len;
  g_auto(SnodoFrame) frame = { 0, };

  *code = 0;
  if (len > sizeof prefix && memcmp (data, prefix, sizeof prefix - 1) == 0)
    {
      p = data + sizeof prefix - 1;
      if (*p == '"')
        {
          for (p++; p < end && *p != '"'; p++)
            if (*p == '\\')
              p++;
          p++;
        }
      else
        while (p < end && (g_ascii_isdigit (*p) || *p == '-'))
          p++;
      if (p < end && (gsize) (end - p) > 10)
        {
          if (memcmp (p, ",\"result\":", 10) == 0)
            return TRUE;
          if (memcmp (p, ",\"method\":", 10) == 0)
            return FALSE;
          if ((gsize) (end - p) > 18 && memcmp (p, ",\"error\":{\"code\":", 17) == 0)
            {
              *code = (int) g_ascii_strtoll (p + 17, NULL, 10);
              return TRUE;
            }
        }
    }
  else if (len > 26 && memcmp (data, "{\"jsonrpc\":\"2.0\",\"method\":", 26) == 0)
    return FALSE;

  snodo_frame_decode (data, len, &frame);
  if (frame.kind != SNODO_FRAME_RESPONSE)
    return FALSE;
  {
    JsonObject *message = json_node_get_object (frame.message);
    JsonObject *error = json_object_has_member (message, "error")
      ? json_object_get_object_member (message, "error") : NULL;

    if (error != NULL)
      *code = (int) json_object_get_int_member (error, "code");
  }
  return TRUE;
}

/* The HTTP status of a 2026-07-28 error answer. */
guint
snodo_http_status_for_code (int code)
{
  switch (code)
    {
    case SNODO_RPC_ERROR_PARSE_ERROR:
    case SNODO_RPC_ERROR_INVALID_REQUEST:
    case SNODO_RPC_ERROR_INVALID_PARAMS:
    case SNODO_RPC_ERROR_HEADER_MISMATCH:
    case SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY:
    case SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION:
      return 400;
    case SNODO_RPC_ERROR_METHOD_NOT_FOUND:
      return 404;
    case SNODO_RPC_ERROR_SERVER_OVERLOADED:
      /* The spec leaves it open; 503 tells any HTTP client to retry later. */
      return 503;
    default:
      return 200;
    }
}

/* Does the Accept header list @type (or a wildcard covering it)? Read in
 * place, as every POST asks it twice: each comma-separated media range,
 * its parameters (";q=...") and surrounding blanks left out, is compared
 * with @type without regard to case; the range of every type and the
 * range of every subtype of @type's family cover it too. */
gboolean
snodo_http_accepts (const char *accept,
                    const char *type)
{
  gsize type_len = strlen (type);
  gsize family_len = strchr (type, '/') - type + 1;
  const char *p = accept;

  if (accept == NULL)
    return FALSE;
  while (*p != '\0')
    {
      const char *end = p + strcspn (p, ",");
      const char *stop = memchr (p, ';', end - p);
      const char *item = p;
      gsize len;

      if (stop == NULL)
        stop = end;
      while (item < stop && g_ascii_isspace (*item))
        item++;
      while (stop > item && g_ascii_isspace (stop[-1]))
        stop--;
      len = stop - item;

      if ((len == type_len && g_ascii_strncasecmp (item, type, len) == 0) ||
          (len == 3 && memcmp (item, "*/*", 3) == 0))
        return TRUE;
      if (len >= 2 && memcmp (stop - 2, "/*", 2) == 0 &&
          len >= family_len && g_ascii_strncasecmp (item, type, family_len) == 0)
        return TRUE;

      p = *end == ',' ? end + 1 : end;
    }
  return FALSE;
}

gboolean
snodo_http_host_is_loopback (const char *host)
{
  return g_ascii_strcasecmp (host, "localhost") == 0 ||
         g_str_equal (host, "127.0.0.1") ||
         g_str_equal (host, "::1") ||
         g_str_equal (host, "[::1]");
}

/* Splits a Host header into its host (an IPv6 address keeps its
 * brackets) and its port, or NULL; FALSE when it is not one. */
static gboolean
split_host_header (const char  *value,
                   char       **out_host,
                   const char **out_port)
{
  const char *colon;

  if (value[0] == '[')
    {
      const char *close = strchr (value, ']');

      if (close == NULL)
        return FALSE;
      colon = close[1] == ':' ? close + 1 : NULL;
      if (close[1] != '\0' && colon == NULL)
        return FALSE;
      *out_host = g_strndup (value, close - value + 1);
    }
  else
    {
      colon = strchr (value, ':');
      *out_host = colon ? g_strndup (value, colon - value) : g_strdup (value);
    }
  *out_port = colon != NULL ? colon + 1 : NULL;
  if (colon != NULL)
    for (const char *p = colon + 1; *p; p++)
      if (!g_ascii_isdigit (*p))
        {
          g_clear_pointer (out_host, g_free);
          return FALSE;
        }
  return TRUE;
}

/* A Host header: a loopback name, with an optional port. */
gboolean
snodo_http_host_header_is_loopback (const char *value)
{
  g_autofree char *host = NULL;
  const char *port;

  return split_host_header (value, &host, &port) && snodo_http_host_is_loopback (host);
}

/* A Host header against a list of hosts (NULL: the loopback names). An
 * entry is a name or address (IPv6 in brackets), compared without regard
 * to case, with any port; one with a port (`name:8443`) wants that port;
 * `*` is any host. */
gboolean
snodo_http_host_header_allowed (const char         *value,
                                const char * const *allowed)
{
  g_autofree char *host = NULL;
  const char *port;

  if (allowed == NULL)
    return snodo_http_host_header_is_loopback (value);
  if (!split_host_header (value, &host, &port))
    return FALSE;
  for (guint i = 0; allowed[i] != NULL; i++)
    {
      g_autofree char *entry_host = NULL;
      const char *entry_port;

      if (g_str_equal (allowed[i], "*"))
        return TRUE;
      if (!split_host_header (allowed[i], &entry_host, &entry_port))
        continue;
      if (g_ascii_strcasecmp (entry_host, host) == 0 &&
          (entry_port == NULL || (port != NULL && g_str_equal (entry_port, port))))
        return TRUE;
    }
  return FALSE;
}

/* Is @origin an http(s) origin on the loopback interface, any port? */
gboolean
snodo_http_origin_is_loopback (const char *origin)
{
  g_autoptr(GUri) uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  const char *scheme;

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
    return FALSE;
  if (g_uri_get_path (uri)[0] != '\0' && !g_str_equal (g_uri_get_path (uri), "/"))
    return FALSE;
  return snodo_http_host_is_loopback (g_uri_get_host (uri));
}

/* A standard header's value, base64 sentinel decoded. NULL with @invalid
 * set when it has characters a plain value may not have or does not
 * decode. */
char *
snodo_http_decode_header_value (const char *value,
                                gboolean   *invalid)
{
  gsize len = strlen (value);

  *invalid = FALSE;
  if (len >= 12 && g_str_has_prefix (value, "=?base64?") && g_str_has_suffix (value, "?="))
    {
      g_autofree char *encoded = g_strndup (value + 9, len - 11);
      g_autofree guchar *decoded = NULL;
      gsize decoded_len;

      for (const char *p = encoded; *p; p++)
        if (!g_ascii_isalnum (*p) && *p != '+' && *p != '/' && *p != '=')
          {
            *invalid = TRUE;
            return NULL;
          }
      decoded = g_base64_decode (encoded, &decoded_len);
      if (!g_utf8_validate ((const char *) decoded, decoded_len, NULL) ||
          memchr (decoded, '\0', decoded_len) != NULL)
        {
          *invalid = TRUE;
          return NULL;
        }
      return g_strndup ((const char *) decoded, decoded_len);
    }

  for (const char *p = value; *p; p++)
    if ((guchar) *p < 0x20 || (guchar) *p > 0x7e)
      {
        *invalid = TRUE;
        return NULL;
      }
  return g_strdup (value);
}

const char *
snodo_http_params_string (JsonObject *params,
                          const char *name)
{
  JsonNode *node = params ? json_object_get_member (params, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

const char snodo_http_header_repeated[] = "";

/* A SnodoHttpHeaderFunc on the SoupMessageHeaders @data. A header given
 * more than once is reported as such, never as its first or last copy. */
const char *
snodo_http_get_request_header (gpointer    data,
                               const char *name)
{
  SoupMessageHeadersIter iter;
  const char *header_name, *value, *found = NULL;

  soup_message_headers_iter_init (&iter, data);
  while (soup_message_headers_iter_next (&iter, &header_name, &value))
    if (g_ascii_strcasecmp (header_name, name) == 0)
      {
        if (found != NULL)
          return SNODO_HTTP_HEADER_REPEATED;
        found = value;
      }
  return found;
}

#define MAX_SAFE_INTEGER G_GINT64_CONSTANT (9007199254740991)

/* Whether @text is a number as JSON writes them; *@integral when it has
 * neither a fraction nor an exponent. */
static gboolean
is_json_number (const char *text,
                gboolean   *integral)
{
  const char *p = text;

  *integral = TRUE;
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    while (g_ascii_isdigit (*p))
      p++;
  else
    return FALSE;
  if (*p == '.')
    {
      *integral = FALSE;
      p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
    }
  if (*p == 'e' || *p == 'E')
    {
      *integral = FALSE;
      p++;
      if (*p == '+' || *p == '-')
        p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
    }
  return *p == '\0';
}

/* Does a decoded Mcp-Param-* header value say what @value says? Numbers
 * must be written as JSON writes them and are compared exactly, within
 * ±(2^53 − 1), the integers every client can carry. */
gboolean
snodo_http_param_matches (const char *header,
                          JsonNode   *value)
{
  GType type = json_node_get_value_type (value);
  gboolean integral;

  if (type == G_TYPE_STRING)
    return g_str_equal (header, json_node_get_string (value));
  if (type == G_TYPE_BOOLEAN)
    return g_str_equal (header, json_node_get_boolean (value) ? "true" : "false");
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return FALSE;
  if (!is_json_number (header, &integral))
    return FALSE;

  if (type == G_TYPE_INT64)
    {
      gint64 wanted = json_node_get_int (value);
      gint64 given;

      if (wanted > MAX_SAFE_INTEGER || wanted < -MAX_SAFE_INTEGER)
        return FALSE;
      if (integral)
        return g_ascii_string_to_signed (header, 10, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER, &given, NULL) &&
               given == wanted;
      /* 42.0 or 4.2e1: a double holds every safe integer exactly. */
      return g_ascii_strtod (header, NULL) == (double) wanted;
    }
  else
    {
      double wanted = json_node_get_double (value);
      double given = g_ascii_strtod (header, NULL);

      if (!(wanted >= (double) -MAX_SAFE_INTEGER && wanted <= (double) MAX_SAFE_INTEGER))
        return FALSE;
      return given == wanted;
    }
}

/* 2026-07-28 tools/call: every argument whose property in the tool's input
 * schema is marked "x-mcp-header" travels in an Mcp-Param-{Name} header
 * too, which must agree. NULL if they do, else why not. */
char *
snodo_http_check_param_headers (SnodoServer         *server,
                                SnodoHttpHeaderFunc  header_func,
                                gpointer             header_data,
                                SnodoFrame          *frame)
{
  const char *name = snodo_http_params_string (frame->params, "name");
  SnodoTool *tool = name ? snodo_server_lookup_tool (server, name) : NULL;
  JsonNode *schema = tool ? snodo_tool_get_input_schema (tool) : NULL;
  JsonNode *properties_node, *arguments_node;
  JsonObject *props, *arguments = NULL;
  JsonObjectIter iter;
  const char *property;
  JsonNode *member;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return NULL;
  properties_node = json_object_get_member (json_node_get_object (schema), "properties");
  if (properties_node == NULL || !JSON_NODE_HOLDS_OBJECT (properties_node))
    return NULL;
  props = json_node_get_object (properties_node);
  arguments_node = json_object_get_member (frame->params, "arguments");
  if (arguments_node != NULL && JSON_NODE_HOLDS_OBJECT (arguments_node))
    arguments = json_node_get_object (arguments_node);

  json_object_iter_init_ordered (&iter, props);
  while (json_object_iter_next_ordered (&iter, &property, &member))
    {
      const char *header_name;
      g_autofree char *full_name = NULL;
      g_autofree char *decoded = NULL;
      const char *header;
      JsonNode *value;
      gboolean invalid;

      if (!JSON_NODE_HOLDS_OBJECT (member))
        continue;
      header_name = snodo_http_params_string (json_node_get_object (member), "x-mcp-header");
      if (header_name == NULL || header_name[0] == '\0')
        continue;
      full_name = g_strconcat ("Mcp-Param-", header_name, NULL);
      header = header_func (header_data, full_name);
      if (header == SNODO_HTTP_HEADER_REPEATED)
        return g_strdup_printf (_("Header mismatch: the %s header is given more than once"), full_name);
      value = arguments ? json_object_get_member (arguments, property) : NULL;

      if (value == NULL || JSON_NODE_HOLDS_NULL (value))
        {
          if (header != NULL)
            return g_strdup_printf (_("Header mismatch: the %s header is present but the argument %s is not"),
                                    full_name, property);
          continue;
        }
      if (!JSON_NODE_HOLDS_VALUE (value))
        continue;
      if (header == NULL)
        return g_strdup_printf (_("Header mismatch: the %s header is missing"), full_name);
      decoded = snodo_http_decode_header_value (header, &invalid);
      if (invalid)
        return g_strdup_printf (_("Header mismatch: the %s header has invalid characters"), full_name);
      if (!snodo_http_param_matches (decoded, value))
        return g_strdup_printf (_("Header mismatch: the %s header disagrees with the argument %s"),
                                full_name, property);
    }
  return NULL;
}

char *
snodo_http_check_standard_headers (SnodoServer         *server,
                                   SnodoHttpHeaderFunc  header_func,
                                   gpointer             header_data,
                                   SnodoFrame          *frame)
{
  const char *method = header_func (header_data, "Mcp-Method");
  const char *name_header = header_func (header_data, "Mcp-Name");
  const char *body_name = NULL;
  gboolean named = FALSE, invalid;
  g_autofree char *decoded = NULL;

  if (method == SNODO_HTTP_HEADER_REPEATED)
    return g_strdup (_("Header mismatch: the Mcp-Method header is given more than once"));
  if (name_header == SNODO_HTTP_HEADER_REPEATED)
    return g_strdup (_("Header mismatch: the Mcp-Name header is given more than once"));
  if (method == NULL)
    return g_strdup (_("Header mismatch: the Mcp-Method header is missing"));
  decoded = snodo_http_decode_header_value (method, &invalid);
  if (invalid)
    return g_strdup (_("Header mismatch: the Mcp-Method header has invalid characters"));
  if (!g_str_equal (decoded, frame->method))
    return g_strdup_printf (_("Header mismatch: the Mcp-Method header says %s but the body says %s"),
                            decoded, frame->method);
  g_clear_pointer (&decoded, g_free);

  if (g_str_equal (frame->method, "tools/call") || g_str_equal (frame->method, "prompts/get"))
    {
      named = TRUE;
      body_name = snodo_http_params_string (frame->params, "name");
    }
  else if (g_str_equal (frame->method, "resources/read"))
    {
      named = TRUE;
      body_name = snodo_http_params_string (frame->params, "uri");
    }
  else if (g_str_equal (frame->method, "tasks/get") || g_str_equal (frame->method, "tasks/update") ||
           g_str_equal (frame->method, "tasks/cancel"))
    {
      /* The tasks extension names the task (SEP-2663). */
      named = TRUE;
      body_name = snodo_http_params_string (frame->params, "taskId");
    }
  if (!named)
    return NULL;

  if (name_header == NULL)
    {
      /* A body without the name is the server's to refuse (-32602). */
      if (body_name == NULL)
        return NULL;
      return g_strdup (_("Header mismatch: the Mcp-Name header is missing"));
    }
  decoded = snodo_http_decode_header_value (name_header, &invalid);
  if (invalid)
    return g_strdup (_("Header mismatch: the Mcp-Name header has invalid characters"));
  if (body_name == NULL || !g_str_equal (decoded, body_name))
    return g_strdup_printf (_("Header mismatch: the Mcp-Name header says %s but the body says %s"),
                            decoded, body_name ? body_name : "nothing");
  if (g_str_equal (frame->method, "tools/call"))
    return snodo_http_check_param_headers (server, header_func, header_data, frame);
  return NULL;
}

