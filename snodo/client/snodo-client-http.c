/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient over Streamable HTTP, with libsoup: every message of the
 * client is one POST (an exchange), whose answer is one JSON message or
 * an event stream (snodo-client-sse.c) of messages ending with the
 * result; what the server sends goes to snodo_client_receive() of
 * snodo-client-connection.c as if it had come on a line.
 *
 * 2026-07-28: every request carries MCP-Protocol-Version, Mcp-Method and
 * (tools/call, prompts/get, resources/read) Mcp-Name; abandoning a
 * request closes its answer. The initialize era: the session id of the
 * initialize answer goes on every later request, the GET stream carries
 * the server's own messages, a stream that breaks before its result is
 * resumed with Last-Event-ID when the server gave event ids, and closing
 * the client DELETEs the session. Every answer and event is bounded by
 * max-line-bytes; a request by request-timeout, everything else by a
 * deadline of its own. See snodo-client-private.h. */

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "snodo-client-private.h"
#include "snodo-client-legacy-sse.h"
#include "snodo-client-oauth-private.h"

#include "snodo-base-private.h"
#include "snodo-wire-private.h"

#define HTTP_READ_SIZE            65536
/* How often a broken stream is resumed or reopened, one after another. */
#define HTTP_MAX_ATTEMPTS         5
/* The wait before resuming when the server gave no retry field, and the
 * most a retry field may make the client wait. */
#define HTTP_DEFAULT_RETRY_MS     500
#define HTTP_MAX_RETRY_MS         10000
/* The deadline of what no request timeout bounds: a notification, a
 * response, the DELETE at the end. */
#define HTTP_DEADLINE_MS          30000
/* How often one message signs in again (a 401 or 403 each time). */
#define HTTP_MAX_SIGN_INS         3

struct _SnodoClientHttp
{
  SoupSession *session;
  GUri *uri;
  /* The initialize era's session, from the initialize answer. Owned. */
  char *session_id;
  /* The live exchanges (Exchange). */
  GList *exchanges;
  /* 2026-07-28: a tool's name → the arguments that go in Mcp-Param-*
   * headers, as pairs (header name, property) in a GStrv, from tools/list.
   * Owned. */
  GHashTable *tool_params;
  /* The initialize era: the server ended the session (404), and the
   * client is starting another; the POSTs that wait for it (Exchange),
   * to send again in the new session. */
  gboolean reinitializing;
  GList *replay;
  /* A server that refused the initialize POST and speaks the HTTP+SSE
   * transport of 2024-11-05 instead (snodo-client-legacy-sse.c). Owned. */
  SnodoClientLegacy *legacy;
};

typedef enum
{
  EXCHANGE_POST,
  /* The initialize era's GET stream. */
  EXCHANGE_LISTEN,
  /* A GET with Last-Event-ID for the answer of a POST that broke. */
  EXCHANGE_RESUME,
} ExchangeKind;

typedef struct
{
  /* A reference: an exchange keeps the client alive. */
  SnodoClient *client;
  ExchangeKind kind;
  /* The request whose result is awaited (its frame key) and its method,
   * or NULL. Owned. */
  char *key;
  char *method;
  SoupMessage *message;
  GCancellable *cancellable;
  GInputStream *body;
  gboolean sse;
  SnodoSseParser parser;
  GByteArray *json;
  /* Resumptions or reopenings in a row. */
  guint attempts;
  /* The wait before the next attempt, or the deadline; NULL else. Owned. */
  GSource *timer;
  /* A POST's body, to send it again in a new session, and whether it
   * was sent again already. Owned. */
  GBytes *line;
  gboolean replayed;
  /* The session the POST was sent in, or NULL. Owned. */
  char *session;
  /* A POST's era and parameters, to send it again after signing in
   * (snodo-client-oauth.c), and how often it did. Owned. */
  gboolean stateless;
  JsonObject *params;
  guint sign_ins;
  guint sign_in_status;
} Exchange;

static void exchange_start (Exchange *exchange);

static gboolean
is_stateless (SnodoClient *self)
{
  return snodo_protocol_version_is_stateless (self->protocol_version);
}

SnodoClientHttp *
snodo_client_http_new (SnodoClient  *self,
                       GError      **error)
{
  SnodoClientHttp *http;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GSocketConnectable) connectable = NULL;
  const char *scheme;

  uri = g_uri_parse (self->uri, G_URI_FLAGS_ENCODED, error);
  if (uri == NULL)
    {
      g_prefix_error (error, _("%s is not a URI: "), self->uri);
      return NULL;
    }
  scheme = g_uri_get_scheme (uri);
  if (g_ascii_strcasecmp (scheme, "http+unix") == 0)
    {
      g_autoptr(GUri) through = NULL;

      /* snodo-client-unix.c */
      if (!snodo_client_http_unix_uri (self->uri, &through, &connectable, error))
        {
          g_prefix_error (error, "%s: ", self->uri);
          return NULL;
        }
      g_uri_unref (uri);
      uri = g_steal_pointer (&through);
    }
  else if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s is not an http, https or http+unix URI"), self->uri);
      return NULL;
    }

  if (g_uri_get_path (uri)[0] == '\0')
    {
      /* http://host:port is its root: the request line needs a path. */
      GUri *rooted = soup_uri_copy (uri, SOUP_URI_PATH, "/", SOUP_URI_NONE);

      g_uri_unref (uri);
      uri = rooted;
    }

  http = g_new0 (SnodoClientHttp, 1);
  http->uri = g_steal_pointer (&uri);
  http->tool_params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_strfreev);
  /* An answer streamed is a connection held: the GET stream and a few
   * requests at once each have one. */
  http->session = soup_session_new_with_options ("user-agent", "snodo/" PACKAGE_VERSION,
                                                 "max-conns-per-host", 16,
                                                 "max-conns", 32,
                                                 /* NULL but for a Unix socket */
                                                 "remote-connectable", connectable,
                                                 NULL);
  if (self->tls_database != NULL)
    soup_session_set_tls_database (http->session, self->tls_database);
  return http;
}

/* The client's tls-database changed: HTTPS trusts it from now on. */
void
snodo_client_http_set_tls_database (SnodoClient *self)
{
  GTlsDatabase *database = self->tls_database;

  if (database == NULL)
    database = g_tls_backend_get_default_database (g_tls_backend_get_default ());
  soup_session_set_tls_database (self->http->session, database);
  if (database != self->tls_database)
    g_clear_object (&database);
}

/* What was wrong with a server's certificate that was not accepted. */
static GError *
certificate_error (SnodoClient          *self,
                   GTlsCertificateFlags  flags)
{
  static const struct
  {
    GTlsCertificateFlags flag;
    const char *reason;
  } reasons[] = {
    { G_TLS_CERTIFICATE_UNKNOWN_CA, N_("no certificate authority the client trusts signed it") },
    { G_TLS_CERTIFICATE_BAD_IDENTITY, N_("it does not name the host of the URL") },
    { G_TLS_CERTIFICATE_NOT_ACTIVATED, N_("it is not valid yet") },
    { G_TLS_CERTIFICATE_EXPIRED, N_("it has expired") },
    { G_TLS_CERTIFICATE_REVOKED, N_("it was revoked") },
    { G_TLS_CERTIFICATE_INSECURE, N_("its algorithm is insecure") },
  };
  g_autoptr(GString) why = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (flags & reasons[i].flag)
      g_string_append_printf (why, "%s%s", why->len > 0 ? "; " : "", _(reasons[i].reason));
  if (why->len == 0)
    g_string_append (why, _("it could not be checked"));
  return g_error_new (G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE,
                      _("The TLS certificate of the server at %s is not trusted: %s"), self->uri, why->str);
}

void
snodo_client_http_free (SnodoClientHttp *http)
{
  /* Every exchange holds a reference on the client: none is left. */
  g_list_free (g_steal_pointer (&http->exchanges));
  g_clear_pointer (&http->legacy, snodo_client_legacy_free);
  g_clear_object (&http->session);
  g_clear_pointer (&http->uri, g_uri_unref);
  g_clear_pointer (&http->session_id, g_free);
  g_clear_pointer (&http->tool_params, g_hash_table_unref);
  g_free (http);
}

/* Headers. */

/* A header value as the 2026-07-28 headers carry it: as it is when it is
 * plain visible ASCII (inner spaces allowed), else base64 in the
 * sentinel. */
static char *
header_value_encode (const char *value)
{
  gsize len = strlen (value);
  gboolean plain = len > 0 && value[0] != ' ' && value[len - 1] != ' ' &&
                   !g_str_has_prefix (value, "=?base64?");

  for (gsize i = 0; plain && i < len; i++)
    if ((guchar) value[i] < 0x20 || (guchar) value[i] > 0x7e)
      plain = FALSE;
  if (plain)
    return g_strdup (value);
  {
    g_autofree char *encoded = g_base64_encode ((const guchar *) value, len);

    return g_strconcat ("=?base64?", encoded, "?=", NULL);
  }
}

/* Tools whose arguments travel in headers. */

static gboolean
is_token (const char *name)
{
  if (*name == '\0')
    return FALSE;
  for (const char *c = name; *c != '\0'; c++)
    if (!g_ascii_isalnum (*c) && strchr ("!#$%&'*+-.^_`|~", *c) == NULL)
      return FALSE;
  return TRUE;
}

/* The pairs (header, property) of the top-level properties of @tool's
 * input schema marked x-mcp-header; NULL (and @valid FALSE) when a mark
 * breaks the rules: not a token, used twice, on a type other than
 * string, integer or boolean. */
static GStrv
tool_param_headers (JsonObject *tool,
                    gboolean   *valid)
{
  JsonNode *schema = json_object_get_member (tool, "inputSchema");
  JsonNode *properties;
  g_autoptr(GStrvBuilder) pairs = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonObjectIter iter;
  const char *property;
  JsonNode *member;
  gboolean any = FALSE;

  *valid = TRUE;
  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return NULL;
  properties = json_object_get_member (json_node_get_object (schema), "properties");
  if (properties == NULL || !JSON_NODE_HOLDS_OBJECT (properties))
    return NULL;
  json_object_iter_init (&iter, json_node_get_object (properties));
  while (json_object_iter_next (&iter, &property, &member))
    {
      JsonNode *mark;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (member))
        continue;
      mark = json_object_get_member (json_node_get_object (member), "x-mcp-header");
      if (mark == NULL)
        continue;
      type = snodo_json_object_get_string (json_node_get_object (member), "type");
      if (!snodo_json_node_is_string (mark) || !is_token (json_node_get_string (mark)) ||
          type == NULL || (!g_str_equal (type, "string") && !g_str_equal (type, "integer") &&
                           !g_str_equal (type, "boolean")) ||
          !g_hash_table_add (seen, g_ascii_strdown (json_node_get_string (mark), -1)))
        {
          *valid = FALSE;
          return NULL;
        }
      g_strv_builder_add (pairs, json_node_get_string (mark));
      g_strv_builder_add (pairs, property);
      any = TRUE;
    }
  return any ? g_strv_builder_end (pairs) : NULL;
}

void
snodo_client_http_learn_tools (SnodoClient *self,
                               JsonArray   *tools)
{
  guint i = 0;

  while (i < json_array_get_length (tools))
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *tool = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *name = tool != NULL ? snodo_json_object_get_string (tool, "name") : NULL;
      gboolean valid;
      GStrv pairs;

      if (name == NULL)
        {
          i++;
          continue;
        }
      pairs = tool_param_headers (tool, &valid);
      if (!valid)
        {
          /* A client over HTTP leaves such a tool out. */
          g_debug ("The tool %s marks an argument x-mcp-header against the rules: left out", name);
          g_hash_table_remove (self->http->tool_params, name);
          json_array_remove_element (tools, i);
          continue;
        }
      if (pairs != NULL)
        g_hash_table_replace (self->http->tool_params, g_strdup (name), pairs);
      else
        g_hash_table_remove (self->http->tool_params, name);
      i++;
    }
}

/* The Mcp-Param-* headers of a tools/call of a tool tools/list described. */
static void
set_param_headers (SnodoClient        *self,
                   SoupMessageHeaders *headers,
                   JsonObject         *params)
{
  const char *name = snodo_json_object_get_string (params, "name");
  JsonNode *arguments = json_object_get_member (params, "arguments");
  GStrv pairs = name != NULL ? g_hash_table_lookup (self->http->tool_params, name) : NULL;

  if (pairs == NULL || arguments == NULL || !JSON_NODE_HOLDS_OBJECT (arguments))
    return;
  for (guint i = 0; pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
    {
      JsonNode *value = json_object_get_member (json_node_get_object (arguments), pairs[i + 1]);
      g_autofree char *text = NULL;
      g_autofree char *encoded = NULL;
      g_autofree char *header = NULL;

      if (value == NULL || !JSON_NODE_HOLDS_VALUE (value))
        continue;
      switch (json_node_get_value_type (value))
        {
        case G_TYPE_STRING:
          text = g_strdup (json_node_get_string (value));
          break;
        case G_TYPE_BOOLEAN:
          text = g_strdup (json_node_get_boolean (value) ? "true" : "false");
          break;
        case G_TYPE_INT64:
          text = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (value));
          break;
        case G_TYPE_DOUBLE:
          {
            char buffer[G_ASCII_DTOSTR_BUF_SIZE];

            text = g_strdup (g_ascii_dtostr (buffer, sizeof buffer, json_node_get_double (value)));
          }
          break;
        default:
          continue;
        }
      encoded = header_value_encode (text);
      header = g_strconcat ("Mcp-Param-", pairs[i], NULL);
      soup_message_headers_replace (headers, header, encoded);
    }
}

static void
exchange_set_headers (Exchange   *exchange,
                      gboolean    stateless,
                      JsonObject *params)
{
  SnodoClient *self = exchange->client;
  SoupMessageHeaders *headers = soup_message_get_request_headers (exchange->message);
  GHashTableIter iter;
  gpointer name;
  gpointer value;

  if (exchange->kind == EXCHANGE_POST)
    soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  else
    soup_message_headers_replace (headers, "Accept", "text/event-stream");

  if (stateless)
    {
      JsonNode *meta = params != NULL ? json_object_get_member (params, "_meta") : NULL;
      const char *version = meta != NULL && JSON_NODE_HOLDS_OBJECT (meta)
                            ? snodo_json_object_get_string (json_node_get_object (meta),
                                                            "io.modelcontextprotocol/protocolVersion")
                            : NULL;

      /* The version the body claims: a request forwarded as it is
       * (snodo_client_forward_async()) keeps its own. */
      if (version == NULL || !g_str_is_ascii (version) || strpbrk (version, "\r\n") != NULL)
        version = snodo_protocol_version_to_string (SNODO_PROTOCOL_VERSION_2026_07_28);
      soup_message_headers_replace (headers, "MCP-Protocol-Version", version);
      if (exchange->method != NULL)
        {
          const char *name_member = NULL;

          soup_message_headers_replace (headers, "Mcp-Method", exchange->method);
          if (g_str_equal (exchange->method, "tools/call") || g_str_equal (exchange->method, "prompts/get"))
            name_member = "name";
          else if (g_str_equal (exchange->method, "resources/read"))
            name_member = "uri";
          /* The tasks extension routes its requests by task. */
          else if (g_str_has_prefix (exchange->method, "tasks/"))
            name_member = "taskId";
          if (name_member != NULL && params != NULL &&
              snodo_json_object_get_string (params, name_member) != NULL)
            {
              g_autofree char *encoded = header_value_encode (snodo_json_object_get_string (params, name_member));

              soup_message_headers_replace (headers, "Mcp-Name", encoded);
            }
          if (g_str_equal (exchange->method, "tools/call") && params != NULL)
            set_param_headers (self, headers, params);
        }
    }
  else
    {
      if (self->protocol_version != SNODO_PROTOCOL_VERSION_UNKNOWN)
        soup_message_headers_replace (headers, "MCP-Protocol-Version",
                                      snodo_protocol_version_to_string (self->protocol_version));
      if (self->http->session_id != NULL)
        soup_message_headers_replace (headers, "Mcp-Session-Id", self->http->session_id);
      g_free (exchange->session);
      exchange->session = g_strdup (self->http->session_id);
    }

  if (exchange->kind == EXCHANGE_RESUME || exchange->kind == EXCHANGE_LISTEN)
    {
      if (exchange->parser.last_event_id != NULL)
        soup_message_headers_replace (headers, "Last-Event-ID", exchange->parser.last_event_id);
    }

  if (self->oauth != NULL)
    {
      g_autofree char *token = snodo_client_oauth_dup_access_token (self->oauth);

      if (token != NULL)
        {
          g_autofree char *bearer = g_strconcat ("Bearer ", token, NULL);

          soup_message_headers_replace (headers, "Authorization", bearer);
        }
    }

  /* The application's own, Authorization among them, last: they win. */
  g_hash_table_iter_init (&iter, self->http_headers);
  while (g_hash_table_iter_next (&iter, &name, &value))
    soup_message_headers_replace (headers, name, value);
}

/* The resource_metadata parameter of a WWW-Authenticate header, or NULL. */
static char *
resource_metadata (const char *header)
{
  const char *at;
  const char *start;
  const char *end;

  if (header == NULL)
    return NULL;
  for (at = header; (at = strstr (at, "resource_metadata")) != NULL; at++)
    {
      start = at + strlen ("resource_metadata");
      while (*start == ' ')
        start++;
      if (*start != '=')
        continue;
      start++;
      while (*start == ' ')
        start++;
      if (*start == '"')
        {
          start++;
          end = strchr (start, '"');
          if (end == NULL)
            return NULL;
        }
      else
        {
          end = start;
          while (*end != '\0' && *end != ',' && *end != ' ')
            end++;
        }
      return g_strndup (start, end - start);
    }
  return NULL;
}

/* Exchanges. */

static Exchange *
exchange_new (SnodoClient  *self,
              ExchangeKind  kind,
              const char   *key,
              const char   *method)
{
  Exchange *exchange = g_new0 (Exchange, 1);

  exchange->client = g_object_ref (self);
  exchange->kind = kind;
  exchange->key = g_strdup (key);
  exchange->method = g_strdup (method);
  snodo_sse_parser_init (&exchange->parser, (gsize) MIN (self->max_line_bytes, G_MAXSIZE / 2));
  self->http->exchanges = g_list_prepend (self->http->exchanges, exchange);
  return exchange;
}

/* Forgets the HTTP message of the exchange, to make another. */
static void
exchange_reset (Exchange *exchange)
{
  g_clear_pointer (&exchange->timer, snodo_source_destroy_and_unref);
  g_clear_object (&exchange->message);
  g_clear_object (&exchange->cancellable);
  g_clear_object (&exchange->body);
  g_clear_pointer (&exchange->json, g_byte_array_unref);
  exchange->sse = FALSE;
}

static void
exchange_free (Exchange *exchange)
{
  SnodoClient *self = exchange->client;

  if (self->http != NULL)
    self->http->exchanges = g_list_remove (self->http->exchanges, exchange);
  exchange_reset (exchange);
  snodo_sse_parser_clear (&exchange->parser);
  if (self->http != NULL)
    self->http->replay = g_list_remove (self->http->replay, exchange);
  g_clear_pointer (&exchange->line, g_bytes_unref);
  g_clear_pointer (&exchange->params, json_object_unref);
  g_free (exchange->session);
  g_free (exchange->key);
  g_free (exchange->method);
  g_object_unref (self);
  g_free (exchange);
}

static gboolean
exchange_deadline_cb (gpointer user_data)
{
  Exchange *exchange = user_data;

  g_clear_pointer (&exchange->timer, g_source_unref);
  g_debug ("An HTTP exchange with the server took longer than %u ms", HTTP_DEADLINE_MS);
  g_cancellable_cancel (exchange->cancellable);
  return G_SOURCE_REMOVE;
}

static gboolean
exchange_retry_cb (gpointer user_data)
{
  Exchange *exchange = user_data;

  g_clear_pointer (&exchange->timer, g_source_unref);
  exchange_start (exchange);
  return G_SOURCE_REMOVE;
}

/* A stream that ended or broke: resumed, reopened, or the end. */
static void
exchange_again (Exchange *exchange)
{
  SnodoClient *self = exchange->client;
  gint64 wait = exchange->parser.retry_ms >= 0 ? exchange->parser.retry_ms : HTTP_DEFAULT_RETRY_MS;

  exchange_reset (exchange);
  exchange->attempts++;
  exchange->timer = g_timeout_source_new ((guint) MIN (wait, HTTP_MAX_RETRY_MS));
  g_source_set_static_name (exchange->timer, "[snodo] client HTTP retry");
  g_source_set_callback (exchange->timer, exchange_retry_cb, exchange, NULL);
  g_source_attach (exchange->timer, self->context);
}

/* The end of an exchange's HTTP message: @error (nullable) is what went
 * wrong. A request still pending fails with it, or is resumed; the GET
 * stream is reopened. Frees @exchange unless it goes on. */
static void
exchange_end (Exchange     *exchange,
              const GError *error)
{
  SnodoClient *self = exchange->client;

  if (self->state == STATE_CLOSED || self->http == NULL ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      exchange_free (exchange);
      return;
    }

  if (exchange->kind == EXCHANGE_LISTEN)
    {
      /* Reopened while the server keeps it up; a server without one
       * (405) or one that keeps failing is not asked again. */
      if (exchange->attempts + 1 < HTTP_MAX_ATTEMPTS &&
          !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
        {
          g_debug ("The server's GET stream ended (%s); reopening it",
                   error != NULL ? error->message : "closed");
          exchange_again (exchange);
          return;
        }
      exchange_free (exchange);
      return;
    }

  if (exchange->key != NULL && snodo_client_is_pending (self, exchange->key))
    {
      /* A stream that broke before the result, whose events had ids:
       * asked again from the last one (the initialize era). */
      if (exchange->sse && exchange->parser.last_event_id != NULL && !is_stateless (self) &&
          exchange->attempts + 1 < HTTP_MAX_ATTEMPTS && error == NULL)
        {
          g_debug ("The answer to %s broke after event %s; resuming it",
                   exchange->method, exchange->parser.last_event_id);
          exchange->kind = EXCHANGE_RESUME;
          exchange_again (exchange);
          return;
        }
      if (error != NULL)
        snodo_client_fail_request (self, exchange->key, error);
      else
        {
          g_autoptr(GError) lost = g_error_new (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                                                _("The server's answer to %s ended before its result"),
                                                exchange->method);

          snodo_client_fail_request (self, exchange->key, lost);
        }
    }
  else if (error != NULL && exchange->key == NULL)
    g_debug ("Sending to the server over HTTP failed: %s", error->message);
  exchange_free (exchange);
}

static gboolean
exchange_event_cb (const char *event,
                   const char *data,
                   gsize       len,
                   const char *last_event_id,
                   gpointer    user_data)
{
  Exchange *exchange = user_data;
  SnodoClient *self = exchange->client;

  /* The priming event of a stream has no data, and is not dispatched. */
  if (!g_str_equal (event, "message") || len == 0)
    return TRUE;
  exchange->attempts = 0;
  snodo_client_receive (self, data, len);
  if (self->state == STATE_CLOSED)
    return FALSE;
  /* The result is the last message of its stream. */
  if (exchange->key != NULL && !snodo_client_is_pending (self, exchange->key))
    return FALSE;
  return TRUE;
}

/* The error of an HTTP answer that is no JSON-RPC result: the JSON-RPC
 * error of its body, or its status. */
static GError *
exchange_status_error (Exchange *exchange,
                       guint     status)
{
  const char *reason = soup_message_get_reason_phrase (exchange->message);

  if (exchange->json != NULL && exchange->json->len > 0)
    {
      g_autofree char *text = g_strndup ((const char *) exchange->json->data, exchange->json->len);
      g_autoptr(JsonNode) node = json_from_string (text, NULL);
      JsonObject *object = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      JsonNode *error = object != NULL ? json_object_get_member (object, "error") : NULL;

      if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
        {
          JsonObject *rpc = json_node_get_object (error);
          const char *message = snodo_json_object_get_string (rpc, "message");
          JsonNode *code = json_object_get_member (rpc, "code");

          if (code != NULL && snodo_json_node_is_number (code))
            return g_error_new (SNODO_RPC_ERROR, (int) json_node_get_int (code),
                                _("%s (HTTP %u)"), message != NULL ? message : _("Unknown error"), status);
        }
    }
  return g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, _("The server answered %s with HTTP %u %s"),
                      exchange->method != NULL ? exchange->method : "a message", status,
                      reason != NULL ? reason : "");
}

static void
exchange_read_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Exchange *exchange = user_data;
  SnodoClient *self = exchange->client;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  guint status;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (bytes == NULL)
    {
      /* A broken stream, which may be resumed: not an error of its own. */
      if (exchange->sse && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_debug ("The server's event stream broke: %s", error->message);
          g_clear_error (&error);
        }
      exchange_end (exchange, error);
      return;
    }
  if (self->state == STATE_CLOSED)
    {
      exchange_free (exchange);
      return;
    }

  status = soup_message_get_status (exchange->message);
  if (g_bytes_get_size (bytes) == 0)
    {
      if (!exchange->sse)
        {
          if (exchange->json->len > 0)
            snodo_client_receive (self, (const char *) exchange->json->data, exchange->json->len);
          if (exchange->key != NULL && snodo_client_is_pending (self, exchange->key) &&
              self->state != STATE_CLOSED)
            error = exchange_status_error (exchange, status);
        }
      exchange_end (exchange, error);
      return;
    }

  if (exchange->sse)
    {
      if (!snodo_sse_parser_push (&exchange->parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  exchange_event_cb, exchange, &error))
        {
          /* Stopped: the result came, or an event was too large. */
          g_input_stream_close (exchange->body, NULL, NULL);
          exchange_end (exchange, error);
          return;
        }
    }
  else
    {
      if (exchange->json->len + g_bytes_get_size (bytes) > self->max_line_bytes)
        {
          g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, self->max_line_bytes);

          error = g_error_new (G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                               _("The server sent a message larger than %s bytes"), limit);
          g_input_stream_close (exchange->body, NULL, NULL);
          exchange_end (exchange, error);
          return;
        }
      g_byte_array_append (exchange->json, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
    }

  g_input_stream_read_bytes_async (exchange->body, HTTP_READ_SIZE, G_PRIORITY_DEFAULT,
                                   exchange->cancellable, exchange_read_cb, exchange);
}

static void http_replay_later (SnodoClient *self,
                               Exchange    *exchange);
static void exchange_post (Exchange   *exchange,
                           gboolean    stateless,
                           JsonObject *params);

/* Signed in again (or not) after a 401 or 403: the message goes again. */
static void
exchange_authorized_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  Exchange *exchange = user_data;
  g_autoptr(GError) error = NULL;

  if (!snodo_client_oauth_authorize_finish (SNODO_CLIENT_OAUTH (source), result, &error) ||
      g_cancellable_set_error_if_cancelled (exchange->cancellable, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, _("The server at %s needs authorization (HTTP %u), and signing in failed: "),
                        exchange->client->uri, exchange->sign_in_status);
      exchange_end (exchange, error);
      return;
    }
  exchange_reset (exchange);
  if (exchange->kind == EXCHANGE_POST)
    exchange_post (exchange, exchange->stateless, exchange->params);
  else
    exchange_start (exchange);
}

/* A 401, or a 403 for want of a scope, with a sign-in to try: TRUE when
 * it started. */
static gboolean
exchange_sign_in (Exchange *exchange,
                  guint     status)
{
  SnodoClient *self = exchange->client;
  const char *header;
  g_auto(SnodoOAuthChallenge) challenge = { NULL, };
  SnodoOAuthReason reason = SNODO_OAUTH_UNAUTHORIZED;

  if (self->oauth == NULL || exchange->sign_ins >= HTTP_MAX_SIGN_INS)
    return FALSE;
  header = soup_message_headers_get_one (soup_message_get_response_headers (exchange->message), "WWW-Authenticate");
  if (status == SOUP_STATUS_FORBIDDEN)
    {
      if (!snodo_oauth_parse_challenge (header, &challenge) ||
          g_strcmp0 (challenge.error, "insufficient_scope") != 0)
        return FALSE;
      reason = SNODO_OAUTH_STEP_UP;
    }
  exchange->sign_ins++;
  exchange->sign_in_status = status;
  g_input_stream_close (exchange->body, NULL, NULL);
  g_clear_pointer (&exchange->timer, snodo_source_destroy_and_unref);
  snodo_client_oauth_authorize_async (self->oauth, self->uri, reason, header, exchange->cancellable,
                                      exchange_authorized_cb, exchange);
  return TRUE;
}

static void
exchange_sent_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Exchange *exchange = user_data;
  SnodoClient *self = exchange->client;
  SoupMessageHeaders *headers;
  g_autoptr(GError) error = NULL;
  const char *content_type;
  const char *session_id;
  guint status;

  exchange->body = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (exchange->body == NULL && g_error_matches (error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE))
    {
      g_clear_error (&error);
      error = certificate_error (self, soup_message_get_tls_peer_certificate_errors (exchange->message));
      exchange_end (exchange, error);
      return;
    }
  if (exchange->body == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, _("Could not reach the server at %s: "), self->uri);
      exchange_end (exchange, error);
      return;
    }
  if (self->state == STATE_CLOSED)
    {
      exchange_free (exchange);
      return;
    }

  status = soup_message_get_status (exchange->message);
  headers = soup_message_get_response_headers (exchange->message);
  content_type = soup_message_headers_get_content_type (headers, NULL);

  session_id = soup_message_headers_get_one (headers, "Mcp-Session-Id");
  if (session_id != NULL && self->http->session_id == NULL && !is_stateless (self) &&
      SOUP_STATUS_IS_SUCCESSFUL (status))
    self->http->session_id = g_strdup (session_id);

  if ((status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN) &&
      exchange_sign_in (exchange, status))
    return;
  if (status == SOUP_STATUS_UNAUTHORIZED)
    {
      g_autofree char *metadata = resource_metadata (soup_message_headers_get_one (headers, "WWW-Authenticate"));

      if (metadata != NULL)
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                             _("The server at %s needs authorization (HTTP 401); its resource metadata is at %s"),
                             self->uri, metadata);
      else
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                             _("The server at %s needs authorization (HTTP 401)"), self->uri);
      exchange_end (exchange, error);
      return;
    }
  if (status == SOUP_STATUS_FORBIDDEN)
    {
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                           _("The server at %s refused the request (HTTP 403)"), self->uri);
      exchange_end (exchange, error);
      return;
    }
  if (exchange->kind != EXCHANGE_POST && !SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      /* No GET stream here (405), or none any more. */
      error = g_error_new (G_IO_ERROR,
                           status == SOUP_STATUS_METHOD_NOT_ALLOWED ? G_IO_ERROR_NOT_SUPPORTED : G_IO_ERROR_FAILED,
                           _("The server answered GET with HTTP %u"), status);
      if (exchange->kind == EXCHANGE_RESUME)
        {
          /* The answer cannot be asked again: the request is lost. */
          snodo_client_fail_request (self, exchange->key, error);
        }
      exchange_end (exchange, error);
      return;
    }
  if ((status == SOUP_STATUS_BAD_REQUEST || status == SOUP_STATUS_NOT_FOUND ||
       status == SOUP_STATUS_METHOD_NOT_ALLOWED) &&
      exchange->kind == EXCHANGE_POST && g_strcmp0 (exchange->method, "initialize") == 0 &&
      self->state == STATE_CONNECTING && self->http->session_id == NULL && self->http->legacy == NULL &&
      snodo_client_is_pending (self, exchange->key))
    {
      /* A server of 2024-11-05's HTTP+SSE transport, maybe: its GET
       * stream names where the initialize goes. */
      g_input_stream_close (exchange->body, NULL, NULL);
      exchange->json = g_byte_array_new ();
      error = exchange_status_error (exchange, status);
      self->http->legacy = snodo_client_legacy_new (self, self->http->session, self->http->uri,
                                                    exchange->line, exchange->key, error);
      exchange_free (exchange);
      return;
    }
  if (status == SOUP_STATUS_NOT_FOUND && exchange->session != NULL && !is_stateless (self) &&
      exchange->kind == EXCHANGE_POST && exchange->method != NULL && !exchange->replayed &&
      !g_str_equal (exchange->method, "initialize"))
    {
      /* The session is over: this POST waits for the next one. */
      g_input_stream_close (exchange->body, NULL, NULL);
      exchange_reset (exchange);
      http_replay_later (self, exchange);
      return;
    }
  if (status == SOUP_STATUS_NOT_FOUND && exchange->session != NULL && !is_stateless (self))
    {
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                           _("The server ended the session %s (HTTP 404)"), exchange->session);
      exchange_end (exchange, error);
      return;
    }

  exchange->sse = SOUP_STATUS_IS_SUCCESSFUL (status) &&
                  g_strcmp0 (content_type, "text/event-stream") == 0;
  if (!exchange->sse)
    {
      if (status == SOUP_STATUS_ACCEPTED || status == SOUP_STATUS_NO_CONTENT)
        {
          if (exchange->key != NULL)
            error = exchange_status_error (exchange, status);
          g_input_stream_close (exchange->body, NULL, NULL);
          exchange_end (exchange, error);
          return;
        }
      exchange->json = g_byte_array_new ();
    }
  /* A request's answer is bounded by the request's timeout from now on;
   * the deadline bounded the rest. */
  if (exchange->key != NULL || exchange->kind == EXCHANGE_LISTEN)
    g_clear_pointer (&exchange->timer, snodo_source_destroy_and_unref);
  g_input_stream_read_bytes_async (exchange->body, HTTP_READ_SIZE, G_PRIORITY_DEFAULT,
                                   exchange->cancellable, exchange_read_cb, exchange);
}

/* Before a message, the stored sign-in looked up or refreshed. */
static void
exchange_prepared_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  Exchange *exchange = user_data;
  SnodoClient *self = exchange->client;
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;

  if (!snodo_client_oauth_authorize_finish (SNODO_CLIENT_OAUTH (source), result, &error))
    g_debug ("Preparing the sign-in to %s: %s", self->uri, error->message);
  if (g_cancellable_is_cancelled (exchange->cancellable) || self->state == STATE_CLOSED)
    {
      g_autoptr(GError) cancelled = g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");

      exchange_end (exchange, cancelled);
      return;
    }
  token = snodo_client_oauth_dup_access_token (self->oauth);
  if (token != NULL && !g_hash_table_contains (self->http_headers, "Authorization"))
    {
      g_autofree char *value = g_strconcat ("Bearer ", token, NULL);

      soup_message_headers_replace (soup_message_get_request_headers (exchange->message), "Authorization", value);
    }
  soup_session_send_async (self->http->session, exchange->message, G_PRIORITY_DEFAULT,
                           exchange->cancellable, exchange_sent_cb, exchange);
}

static void
exchange_send (Exchange *exchange)
{
  SnodoClient *self = exchange->client;

  exchange->cancellable = g_cancellable_new ();
  /* What no request timeout bounds has a deadline; a request's own
   * timeout cancels it (snodo_client_http_abandon()). */
  if (exchange->key == NULL || exchange->kind != EXCHANGE_POST)
    {
      exchange->timer = g_timeout_source_new (HTTP_DEADLINE_MS);
      g_source_set_static_name (exchange->timer, "[snodo] client HTTP deadline");
      g_source_set_callback (exchange->timer, exchange_deadline_cb, exchange, NULL);
      g_source_attach (exchange->timer, self->context);
    }
  if (self->oauth != NULL && snodo_client_oauth_wants_prepare (self->oauth))
    {
      snodo_client_oauth_authorize_async (self->oauth, self->uri, SNODO_OAUTH_PREPARE, NULL, exchange->cancellable,
                                          exchange_prepared_cb, exchange);
      return;
    }
  soup_session_send_async (self->http->session, exchange->message, G_PRIORITY_DEFAULT,
                           exchange->cancellable, exchange_sent_cb, exchange);
}

/* A GET: the stream of the server, or the resumption of an answer. */
static void
exchange_start (Exchange *exchange)
{
  SnodoClient *self = exchange->client;

  if (self->state == STATE_CLOSED)
    {
      exchange_free (exchange);
      return;
    }
  exchange->message = soup_message_new_from_uri ("GET", self->http->uri);
  exchange_set_headers (exchange, FALSE, NULL);
  /* A new stream: its events are counted afresh, its last id kept. */
  {
    char *last = g_steal_pointer (&exchange->parser.last_event_id);
    gint64 retry = exchange->parser.retry_ms;

    snodo_sse_parser_clear (&exchange->parser);
    snodo_sse_parser_init (&exchange->parser, (gsize) MIN (self->max_line_bytes, G_MAXSIZE / 2));
    exchange->parser.last_event_id = last;
    exchange->parser.retry_ms = retry;
  }
  exchange_send (exchange);
}

/* Sends @exchange's POST (again), with the headers of now. */
static void
exchange_post (Exchange   *exchange,
               gboolean    stateless,
               JsonObject *params)
{
  exchange->stateless = stateless;
  if (params != NULL && exchange->params == NULL)
    exchange->params = json_object_ref (params);
  exchange->message = soup_message_new_from_uri ("POST", exchange->client->http->uri);
  exchange_set_headers (exchange, stateless, params);
  soup_message_set_request_body_from_bytes (exchange->message, "application/json", exchange->line);
  exchange_send (exchange);
}

static void
http_reinitialized_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  SnodoClient *self = SNODO_CLIENT (source);
  g_autoptr(GError) error = NULL;
  GList *replay;

  if (!snodo_client_reinitialize_finish (self, result, &error))
    g_debug ("A new session could not be started: %s", error->message);
  if (self->http == NULL || self->state == STATE_CLOSED)
    return;
  self->http->reinitializing = FALSE;
  replay = g_list_reverse (g_steal_pointer (&self->http->replay));
  for (GList *l = replay; l != NULL; l = l->next)
    {
      Exchange *exchange = l->data;

      if (exchange->key != NULL && !snodo_client_is_pending (self, exchange->key))
        exchange_free (exchange);
      else if (error != NULL)
        {
          g_autoptr(GError) ended = g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                 _("The server ended the session, and a new one could not be started: %s"),
                                                 error->message);

          if (exchange->key != NULL)
            snodo_client_fail_request (self, exchange->key, ended);
          exchange_free (exchange);
        }
      else
        {
          exchange->replayed = TRUE;
          exchange_post (exchange, FALSE, NULL);
        }
    }
  g_list_free (replay);
}

/* @exchange waits for a new session, which the first one to wait starts. */
static void
http_replay_later (SnodoClient *self,
                   Exchange    *exchange)
{
  /* Another POST of the old session saw its end first: the new one is
   * there already. */
  if (!self->http->reinitializing && self->http->session_id != NULL &&
      g_strcmp0 (exchange->session, self->http->session_id) != 0)
    {
      exchange->replayed = TRUE;
      exchange_post (exchange, FALSE, NULL);
      return;
    }
  self->http->replay = g_list_prepend (self->http->replay, exchange);
  if (self->http->reinitializing)
    return;
  g_debug ("The server ended the session %s; starting another", exchange->session);
  self->http->reinitializing = TRUE;
  g_clear_pointer (&self->http->session_id, g_free);
  snodo_client_reinitialize_async (self, http_reinitialized_cb, NULL);
}

void
snodo_client_http_post (SnodoClient *self,
                        GBytes      *line,
                        const char  *key,
                        const char  *method,
                        JsonObject  *params,
                        gboolean     stateless)
{
  Exchange *exchange;

  if (self->http->legacy != NULL)
    {
      snodo_client_legacy_post (self->http->legacy, line, key);
      return;
    }
  exchange = exchange_new (self, EXCHANGE_POST, key, method);
  exchange->line = line;
  /* While a new session starts, what is not its initialize waits. */
  if (self->http->reinitializing && method != NULL && !g_str_equal (method, "initialize") && !stateless)
    {
      self->http->replay = g_list_prepend (self->http->replay, exchange);
      return;
    }
  exchange_post (exchange, stateless, params);
}

void
snodo_client_http_abandon (SnodoClient *self,
                           const char  *key)
{
  for (GList *l = self->http->exchanges; l != NULL; l = l->next)
    {
      Exchange *exchange = l->data;

      if (g_strcmp0 (exchange->key, key) == 0 && exchange->cancellable != NULL)
        g_cancellable_cancel (exchange->cancellable);
    }
}

void
snodo_client_http_listen (SnodoClient *self)
{
  /* The HTTP+SSE transport has its stream already. */
  if (self->http->legacy != NULL)
    return;
  exchange_start (exchange_new (self, EXCHANGE_LISTEN, NULL, "GET"));
}

void
snodo_client_http_stop (SnodoClient *self)
{
  g_autoptr(GList) waiting = NULL;

  if (self->oauth != NULL)
    snodo_client_oauth_abandon (self->oauth);
  if (self->http->legacy != NULL)
    snodo_client_legacy_stop (self->http->legacy);
  for (GList *l = self->http->exchanges; l != NULL; l = l->next)
    {
      Exchange *exchange = l->data;

      /* One waiting to be tried again has nothing in flight. */
      if (exchange->message == NULL)
        waiting = g_list_prepend (waiting, exchange);
      else
        g_cancellable_cancel (exchange->cancellable);
    }
  for (GList *l = waiting; l != NULL; l = l->next)
    exchange_free (l->data);
}

SnodoClientLegacy *
snodo_client_http_get_legacy (SnodoClient *self)
{
  return self->http->legacy;
}

/* Closing: the DELETE of the session. */

static gboolean
close_deadline_cb (gpointer user_data)
{
  GCancellable *cancellable = user_data;

  g_cancellable_cancel (cancellable);
  return G_SOURCE_REMOVE;
}

static void
close_deleted_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GSource *deadline = g_task_get_task_data (task);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;

  g_source_destroy (deadline);
  body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  if (body == NULL)
    g_debug ("Ending the HTTP session: %s", error->message);
  g_task_return_boolean (task, TRUE);
}

void
snodo_client_http_close (SnodoClient *self,
                         GTask       *task)
{
  g_autoptr(SoupMessage) message = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GSource) deadline = NULL;
  GHashTableIter iter;
  gpointer name;
  gpointer value;

  if (self->http->session_id == NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  message = soup_message_new_from_uri ("DELETE", self->http->uri);
  soup_message_headers_replace (soup_message_get_request_headers (message), "Mcp-Session-Id",
                                self->http->session_id);
  if (self->protocol_version != SNODO_PROTOCOL_VERSION_UNKNOWN)
    soup_message_headers_replace (soup_message_get_request_headers (message), "MCP-Protocol-Version",
                                  snodo_protocol_version_to_string (self->protocol_version));
  g_hash_table_iter_init (&iter, self->http_headers);
  while (g_hash_table_iter_next (&iter, &name, &value))
    soup_message_headers_replace (soup_message_get_request_headers (message), name, value);
  g_clear_pointer (&self->http->session_id, g_free);

  cancellable = g_cancellable_new ();
  deadline = g_timeout_source_new (HTTP_DEADLINE_MS);
  g_source_set_static_name (deadline, "[snodo] client HTTP DELETE deadline");
  g_source_set_callback (deadline, close_deadline_cb, g_object_ref (cancellable), g_object_unref);
  g_source_attach (deadline, self->context);
  g_task_set_task_data (task, g_source_ref (deadline), (GDestroyNotify) g_source_unref);
  soup_session_send_and_read_async (self->http->session, message, G_PRIORITY_DEFAULT, cancellable,
                                    close_deleted_cb, task);
}
