/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* OAuth 2.0 Token Introspection (RFC 7662) for SnodoHttpAuthorization: a
 * token that no validate-token handler took is POSTed to the authorization
 * server's introspection endpoint, and its answer accepts, refuses or fails
 * the SnodoAuthRequest (see snodo-http-auth-private.h).
 *
 * The answers of active tokens are kept in a small cache keyed by the
 * SHA-256 of the token (never the token), each for at most
 * INTROSPECTION_CACHE_SECONDS and never past the token's exp; when the
 * cache is full the entry kept the longest goes. Refusals are not kept: a
 * token that was just issued is accepted at once.
 *
 * Runs on the transport's context; a SnodoIntrospection is shared by the
 * checks under way (a reference each), which outlive a new configuration
 * of the authorization harmlessly. */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-http-auth-private.h"
#include "snodo-wire-private.h"

/* The largest introspection answer read; a larger one is an error. */
#define INTROSPECTION_MAX_BYTES (64 * 1024)

struct _SnodoIntrospection
{
  /* Immutable; owned. */
  char        *endpoint;
  /* "Basic base64(id:secret)", the client's credentials: never logged,
   * wiped when freed. */
  char        *basic;

  /* Made on first use, on the transport's context. */
  SoupSession *session;
  /* SHA-256 of a token (hex) -> CacheEntry; the entries in order of
   * insertion in `order` (the oldest at its head). */
  GHashTable  *cache;
  GQueue       order;
};

typedef struct
{
  GList   link;
  char   *key;
  char   *principal;
  char  **scopes;
  /* g_get_monotonic_time() past which it is not used. */
  gint64  expires;
} CacheEntry;

static void
cache_entry_free (gpointer data)
{
  CacheEntry *entry = data;

  g_free (entry->key);
  g_free (entry->principal);
  g_strfreev (entry->scopes);
  g_free (entry);
}

static void
wipe_free (char *secret)
{
  if (secret != NULL)
    memset (secret, 0, strlen (secret));
  g_free (secret);
}

/* RFC 6749 §2.3.1: the client id and secret are form-encoded before they
 * go into the Basic credentials. */
static char *
form_escape (const char *value)
{
  return g_uri_escape_string (value, NULL, FALSE);
}

SnodoIntrospection *
snodo_introspection_new (const char *endpoint,
                         const char *client_id,
                         const char *client_secret)
{
  SnodoIntrospection *self = g_atomic_rc_box_new0 (SnodoIntrospection);
  g_autofree char *id = form_escape (client_id);
  char *pass = form_escape (client_secret);
  char *pair = g_strconcat (id, ":", pass, NULL);
  g_autofree char *encoded = g_base64_encode ((const guchar *) pair, strlen (pair));

  self->endpoint = g_strdup (endpoint);
  self->basic = g_strconcat ("Basic ", encoded, NULL);
  memset (encoded, 0, strlen (encoded));
  wipe_free (pass);
  wipe_free (pair);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, cache_entry_free);
  return self;
}

static void
snodo_introspection_clear (gpointer data)
{
  SnodoIntrospection *self = data;

  g_free (self->endpoint);
  wipe_free (self->basic);
  g_clear_object (&self->session);
  /* The entries hold their links of `order`. */
  g_hash_table_unref (self->cache);
}

SnodoIntrospection *
snodo_introspection_ref (SnodoIntrospection *self)
{
  return g_atomic_rc_box_acquire (self);
}

void
snodo_introspection_unref (SnodoIntrospection *self)
{
  g_atomic_rc_box_release_full (self, snodo_introspection_clear);
}

const char *
snodo_introspection_get_endpoint (SnodoIntrospection *self)
{
  return self->endpoint;
}

gboolean
snodo_introspection_endpoint_is_allowed (const char  *endpoint,
                                         GError     **error)
{
  g_autoptr(GUri) uri = g_uri_parse (endpoint, G_URI_FLAGS_ENCODED, NULL);
  g_autoptr(GInetAddress) address = NULL;
  const char *host;

  if (uri == NULL || g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0' ||
      g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("The introspection endpoint %s is not an absolute URL without a fragment"), endpoint);
      return FALSE;
    }
  if (g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0)
    return TRUE;
  host = g_uri_get_host (uri);
  if (g_ascii_strcasecmp (g_uri_get_scheme (uri), "http") == 0)
    {
      /* Plain HTTP only to this machine: the token and the secret travel. */
      if (g_ascii_strcasecmp (host, "localhost") == 0)
        return TRUE;
      address = g_inet_address_new_from_string (host);
      if (address != NULL && g_inet_address_get_is_loopback (address))
        return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
               _("The introspection endpoint %s is neither HTTPS nor on this machine"), endpoint);
  return FALSE;
}

/* ---- The cache ------------------------------------------------------------ */

static char *
token_key (const char *token)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, token, -1);
}

static void
cache_remove (SnodoIntrospection *self,
              CacheEntry         *entry)
{
  g_queue_unlink (&self->order, &entry->link);
  g_hash_table_remove (self->cache, entry->key);
}

static void
cache_add (SnodoIntrospection *self,
           char               *key,
           const char         *principal,
           const char * const *scopes,
           gint64              expires)
{
  CacheEntry *entry = g_hash_table_lookup (self->cache, key);
  gint64 now = g_get_monotonic_time ();

  if (entry != NULL)
    cache_remove (self, entry);
  /* Full: the entries past their time go first, then the oldest. */
  if (g_hash_table_size (self->cache) >= SNODO_INTROSPECTION_CACHE_MAX)
    for (GList *l = self->order.head; l != NULL;)
      {
        CacheEntry *old = l->data;

        l = l->next;
        if (old->expires <= now)
          cache_remove (self, old);
      }
  while (g_hash_table_size (self->cache) >= SNODO_INTROSPECTION_CACHE_MAX && self->order.head != NULL)
    cache_remove (self, self->order.head->data);
  entry = g_new0 (CacheEntry, 1);
  entry->link.data = entry;
  entry->key = key;
  entry->principal = g_strdup (principal);
  entry->scopes = g_strdupv ((char **) scopes);
  entry->expires = expires;
  g_queue_push_tail_link (&self->order, &entry->link);
  g_hash_table_insert (self->cache, entry->key, entry);
}

/* ---- The answer ----------------------------------------------------------- */

/* Whether @aud names @resource: the same string, or the same but for a
 * trailing slash ("https://mcp.example.com" and "https://mcp.example.com/"
 * are one URL). */
static gboolean
audience_matches (const char *aud,
                  const char *resource)
{
  gsize a = strlen (aud);
  gsize r = strlen (resource);

  if (a > 0 && aud[a - 1] == '/')
    a--;
  if (r > 0 && resource[r - 1] == '/')
    r--;
  return a == r && strncmp (aud, resource, a) == 0;
}

/* Whether the `aud` of @answer (a string or an array of strings) holds
 * @resource. */
static gboolean
answer_has_audience (JsonObject *answer,
                     const char *resource)
{
  JsonNode *node = json_object_get_member (answer, "aud");

  if (snodo_json_node_is_string (node))
    return audience_matches (json_node_get_string (node), resource);
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *item = json_array_get_element (array, i);

          if (snodo_json_node_is_string (item) && audience_matches (json_node_get_string (item), resource))
            return TRUE;
        }
    }
  return FALSE;
}

/* The number member @name of @answer in *@value; FALSE if absent or not a
 * number. */
static gboolean
answer_get_time (JsonObject *answer,
                 const char *name,
                 gint64     *value)
{
  JsonNode *node = json_object_get_member (answer, name);

  if (!snodo_json_node_is_number (node))
    return FALSE;
  *value = (gint64) json_node_get_double (node);
  return TRUE;
}

/* Completes @request from the introspection answer @answer: accepted
 * (and cached under @key), or refused with why. */
static void
take_answer (SnodoIntrospection *self,
             SnodoAuthRequest   *request,
             char               *key,
             JsonObject         *answer)
{
  JsonNode *active = json_object_get_member (answer, "active");
  const char *resource = snodo_auth_request_get_resource (request);
  const char *token_type = snodo_json_object_get_string (answer, "token_type");
  const char *principal;
  const char *scope;
  g_auto(GStrv) scopes = NULL;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  gint64 exp = 0;
  gint64 nbf = 0;
  gint64 lifetime = SNODO_INTROSPECTION_CACHE_SECONDS;
  gboolean has_exp;

  if (active == NULL || !JSON_NODE_HOLDS_VALUE (active) ||
      json_node_get_value_type (active) != G_TYPE_BOOLEAN || !json_node_get_boolean (active))
    {
      snodo_auth_request_refuse (request, "The token is not active");
      g_free (key);
      return;
    }
  /* A refresh token is not a bearer token. */
  if (token_type != NULL && g_ascii_strcasecmp (token_type, "Bearer") != 0 &&
      g_ascii_strcasecmp (token_type, "access_token") != 0)
    {
      snodo_auth_request_refuse (request, "The token is not an access token");
      g_free (key);
      return;
    }
  /* MCP: a server accepts only the tokens issued for it. */
  if (!answer_has_audience (answer, resource))
    {
      snodo_auth_request_refuse (request, "The token was not issued for this resource");
      g_free (key);
      return;
    }
  has_exp = answer_get_time (answer, "exp", &exp);
  if ((has_exp && exp <= now) || (answer_get_time (answer, "nbf", &nbf) && nbf > now))
    {
      snodo_auth_request_refuse (request, "The token has expired or is not valid yet");
      g_free (key);
      return;
    }
  principal = snodo_json_object_get_string (answer, "sub");
  if (principal == NULL || *principal == '\0')
    principal = snodo_json_object_get_string (answer, "username");
  if (principal == NULL || *principal == '\0')
    principal = snodo_json_object_get_string (answer, "client_id");
  if (principal == NULL || *principal == '\0')
    {
      snodo_auth_request_refuse (request, "The token names nobody");
      g_free (key);
      return;
    }
  scope = snodo_json_object_get_string (answer, "scope");
  if (scope != NULL)
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) words = g_strsplit (scope, " ", -1);

      for (guint i = 0; words[i] != NULL; i++)
        if (words[i][0] != '\0')
          g_strv_builder_add (builder, words[i]);
      scopes = g_strv_builder_end (builder);
    }
  else
    scopes = g_new0 (char *, 1);

  if (has_exp && exp - now < lifetime)
    lifetime = exp - now;
  cache_add (self, key, principal, (const char * const *) scopes,
             g_get_monotonic_time () + lifetime * G_USEC_PER_SEC);
  snodo_auth_request_accept (request, principal, (const char * const *) scopes);
}

/* ---- The exchange --------------------------------------------------------- */

typedef struct
{
  SnodoIntrospection *self;
  SnodoAuthRequest   *request;
  SoupMessage        *msg;
  GInputStream       *stream;
  GByteArray         *body;
  char               *key;
} Exchange;

static void
exchange_free (Exchange *exchange)
{
  snodo_introspection_unref (exchange->self);
  g_object_unref (exchange->request);
  g_object_unref (exchange->msg);
  g_clear_object (&exchange->stream);
  g_byte_array_unref (exchange->body);
  g_free (exchange->key);
  g_free (exchange);
}

/* The endpoint could not answer: the request fails (503), and the
 * application's log says why (never with the token or the secret). A
 * cancelled exchange (the check was given up) says nothing. */
static void
exchange_fail (Exchange     *exchange,
               const GError *error,
               const char   *why)
{
  if (error != NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      exchange_free (exchange);
      return;
    }
  g_message (_("Could not check a bearer token at the introspection endpoint %s: %s"),
             exchange->self->endpoint, error != NULL ? error->message : why);
  snodo_auth_request_fail (exchange->request);
  exchange_free (exchange);
}

static void
exchange_finish (Exchange *exchange)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  guint status = soup_message_get_status (exchange->msg);
  JsonNode *root;

  if (status != SOUP_STATUS_OK)
    {
      g_autofree char *why = g_strdup_printf (_("it answered HTTP %u"), status);

      exchange_fail (exchange, NULL, why);
      return;
    }
  if (!json_parser_load_from_data (parser, (const char *) exchange->body->data, exchange->body->len, &error))
    {
      exchange_fail (exchange, error, NULL);
      return;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      exchange_fail (exchange, NULL, _("its answer is not a JSON object"));
      return;
    }
  take_answer (exchange->self, exchange->request, g_steal_pointer (&exchange->key), json_node_get_object (root));
  exchange_free (exchange);
}

static void read_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data);

static void
read_more (Exchange *exchange)
{
  g_input_stream_read_bytes_async (exchange->stream, 16384, G_PRIORITY_DEFAULT,
                                   snodo_auth_request_get_cancellable (exchange->request), read_cb, exchange);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Exchange *exchange = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);

  if (bytes == NULL)
    {
      exchange_fail (exchange, error, NULL);
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      exchange_finish (exchange);
      return;
    }
  if (exchange->body->len + g_bytes_get_size (bytes) > INTROSPECTION_MAX_BYTES)
    {
      exchange_fail (exchange, NULL, _("its answer is too large"));
      return;
    }
  g_byte_array_append (exchange->body, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  read_more (exchange);
}

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Exchange *exchange = user_data;
  g_autoptr(GError) error = NULL;

  exchange->stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (exchange->stream == NULL)
    {
      exchange_fail (exchange, error, NULL);
      return;
    }
  read_more (exchange);
}

void
snodo_introspection_check (SnodoIntrospection *self,
                           SnodoAuthRequest   *request,
                           guint               timeout)
{
  const char *token = snodo_auth_request_get_token (request);
  g_autofree char *key = token_key (token);
  CacheEntry *entry = g_hash_table_lookup (self->cache, key);
  Exchange *exchange;
  char *form;

  if (entry != NULL)
    {
      if (entry->expires > g_get_monotonic_time ())
        {
          snodo_auth_request_accept (request, entry->principal, (const char * const *) entry->scopes);
          return;
        }
      cache_remove (self, entry);
    }

  if (self->session == NULL)
    self->session = soup_session_new_with_options ("idle-timeout", 60, "user-agent", "snodo/" PACKAGE_VERSION,
                                                   NULL);
  /* The check's own timeout cancels it first; this bounds each read. */
  soup_session_set_timeout (self->session, timeout);
  exchange = g_new0 (Exchange, 1);
  exchange->self = snodo_introspection_ref (self);
  exchange->request = g_object_ref (request);
  exchange->body = g_byte_array_new ();
  exchange->key = g_steal_pointer (&key);
  form = soup_form_encode ("token", token, "token_type_hint", "access_token", NULL);
  exchange->msg = soup_message_new_from_encoded_form ("POST", self->endpoint, form);
  if (exchange->msg == NULL)
    {
      /* Checked when it was set; a fail-safe. */
      exchange->msg = soup_message_new ("POST", "http://localhost/");
      exchange_fail (exchange, NULL, _("its URL is not valid"));
      return;
    }
  soup_message_headers_replace (soup_message_get_request_headers (exchange->msg), "Authorization", self->basic);
  soup_message_headers_replace (soup_message_get_request_headers (exchange->msg), "Accept", "application/json");
  /* No redirect: the token and the secret go nowhere else. */
  soup_message_add_flags (exchange->msg, SOUP_MESSAGE_NO_REDIRECT);
  soup_session_send_async (self->session, exchange->msg, G_PRIORITY_DEFAULT,
                           snodo_auth_request_get_cancellable (request), send_cb, exchange);
}
