/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The pure parts of SnodoClientOAuth's sign-in: challenges, well-known
 * URLs, PKCE, scopes, which URIs may be spoken to. No I/O. */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "snodo-client-oauth-private.h"

#include "snodo-protocol-private.h"

static void
replace_string (char       **where,
                const char  *value)
{
  g_free (*where);
  *where = g_strdup (value);
}

static const char *
skip_space (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == ',')
    p++;
  return p;
}

gboolean
snodo_oauth_parse_challenge (const char          *header,
                             SnodoOAuthChallenge *challenge)
{
  const char *p;

  memset (challenge, 0, sizeof *challenge);
  if (header == NULL)
    return FALSE;
  /* The Bearer challenge, among others maybe. */
  for (p = header; *p != '\0'; p++)
    {
      if ((p == header || p[-1] == ' ' || p[-1] == ',') &&
          g_ascii_strncasecmp (p, "Bearer", 6) == 0 &&
          (p[6] == ' ' || p[6] == '\0'))
        break;
    }
  if (*p == '\0')
    return FALSE;
  p = skip_space (p + 6);
  while (*p != '\0')
    {
      const char *name = p;
      gsize name_len;
      g_autoptr(GString) value = g_string_new (NULL);

      while (*p != '\0' && *p != '=' && *p != ' ' && *p != ',')
        p++;
      name_len = p - name;
      while (*p == ' ')
        p++;
      if (*p != '=')
        break;   /* The next scheme. */
      p++;
      while (*p == ' ')
        p++;
      if (*p == '"')
        {
          p++;
          while (*p != '\0' && *p != '"')
            {
              if (*p == '\\' && p[1] != '\0')
                p++;
              g_string_append_c (value, *p++);
            }
          if (*p == '"')
            p++;
        }
      else
        {
          while (*p != '\0' && *p != ',' && *p != ' ')
            g_string_append_c (value, *p++);
        }
      if (name_len == strlen ("resource_metadata") && g_ascii_strncasecmp (name, "resource_metadata", name_len) == 0)
        replace_string (&challenge->resource_metadata, value->str);
      else if (name_len == strlen ("scope") && g_ascii_strncasecmp (name, "scope", name_len) == 0)
        replace_string (&challenge->scope, value->str);
      else if (name_len == strlen ("error") && g_ascii_strncasecmp (name, "error", name_len) == 0)
        replace_string (&challenge->error, value->str);
      p = skip_space (p);
    }
  return TRUE;
}

void
snodo_oauth_challenge_clear (SnodoOAuthChallenge *challenge)
{
  g_clear_pointer (&challenge->resource_metadata, g_free);
  g_clear_pointer (&challenge->scope, g_free);
  g_clear_pointer (&challenge->error, g_free);
}

static void
builder_take (GStrvBuilder *builder,
              char         *value)
{
  g_strv_builder_add (builder, value);
  g_free (value);
}

/* scheme://host[:port] followed by @path. */
char *
snodo_oauth_origin_with_path (GUri       *uri,
                  const char *path)
{
  return g_uri_join (G_URI_FLAGS_ENCODED, g_uri_get_scheme (uri), NULL, g_uri_get_host (uri),
                     g_uri_get_port (uri), path, NULL, NULL);
}

/* The path of @uri without a trailing slash ("" for the root). */
char *
snodo_oauth_trimmed_path (GUri *uri)
{
  char *path = g_strdup (g_uri_get_path (uri));
  gsize len = strlen (path);

  while (len > 0 && path[len - 1] == '/')
    path[--len] = '\0';
  return path;
}

GStrv
snodo_oauth_resource_metadata_urls (const char *server_uri)
{
  g_autoptr(GUri) uri = g_uri_parse (server_uri, G_URI_FLAGS_ENCODED, NULL);
  g_autoptr(GStrvBuilder) urls = g_strv_builder_new ();
  g_autofree char *path = NULL;

  if (uri == NULL)
    return g_strv_builder_end (urls);
  path = snodo_oauth_trimmed_path (uri);
  if (path[0] != '\0')
    {
      g_autofree char *well_known = g_strconcat ("/.well-known/oauth-protected-resource", path, NULL);

      builder_take (urls, snodo_oauth_origin_with_path (uri, well_known));
    }
  builder_take (urls, snodo_oauth_origin_with_path (uri, "/.well-known/oauth-protected-resource"));
  return g_strv_builder_end (urls);
}

GStrv
snodo_oauth_server_metadata_urls (const char *issuer)
{
  g_autoptr(GUri) uri = g_uri_parse (issuer, G_URI_FLAGS_ENCODED, NULL);
  g_autoptr(GStrvBuilder) urls = g_strv_builder_new ();
  g_autofree char *path = NULL;

  if (uri == NULL)
    return g_strv_builder_end (urls);
  path = snodo_oauth_trimmed_path (uri);
  if (path[0] == '\0')
    {
      builder_take (urls, snodo_oauth_origin_with_path (uri, "/.well-known/oauth-authorization-server"));
      builder_take (urls, snodo_oauth_origin_with_path (uri, "/.well-known/openid-configuration"));
    }
  else
    {
      g_autofree char *oauth = g_strconcat ("/.well-known/oauth-authorization-server", path, NULL);
      g_autofree char *oidc = g_strconcat ("/.well-known/openid-configuration", path, NULL);
      g_autofree char *oidc_after = g_strconcat (path, "/.well-known/openid-configuration", NULL);

      builder_take (urls, snodo_oauth_origin_with_path (uri, oauth));
      builder_take (urls, snodo_oauth_origin_with_path (uri, oidc));
      builder_take (urls, snodo_oauth_origin_with_path (uri, oidc_after));
    }
  return g_strv_builder_end (urls);
}

static char *
base64url (const guint8 *data,
           gsize         len)
{
  char *text = g_base64_encode (data, len);
  char *p;

  for (p = text; *p != '\0'; p++)
    {
      if (*p == '+')
        *p = '-';
      else if (*p == '/')
        *p = '_';
      else if (*p == '=')
        {
          *p = '\0';
          break;
        }
    }
  return text;
}

char *
snodo_oauth_pkce_challenge (const char *verifier)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize len = sizeof digest;

  g_checksum_update (checksum, (const guchar *) verifier, strlen (verifier));
  g_checksum_get_digest (checksum, digest, &len);
  return base64url (digest, len);
}

char *
snodo_oauth_random_string (gsize    n_bytes,
                           GError **error)
{
  g_autofree guint8 *bytes = g_malloc (n_bytes);

  if (!snodo_random_fill (bytes, n_bytes, error))
    return NULL;
  return base64url (bytes, n_bytes);
}

gboolean
snodo_oauth_resource_matches (const char *resource,
                              const char *server_uri)
{
  g_autoptr(GUri) r = g_uri_parse (resource, G_URI_FLAGS_ENCODED, NULL);
  g_autoptr(GUri) s = g_uri_parse (server_uri, G_URI_FLAGS_ENCODED, NULL);
  g_autofree char *rpath = NULL;
  g_autofree char *spath = NULL;
  gsize len;

  if (r == NULL || s == NULL || g_uri_get_fragment (r) != NULL)
    return FALSE;
  if (g_ascii_strcasecmp (g_uri_get_scheme (r), g_uri_get_scheme (s)) != 0 ||
      g_uri_get_host (r) == NULL || g_uri_get_host (s) == NULL ||
      g_ascii_strcasecmp (g_uri_get_host (r), g_uri_get_host (s)) != 0 ||
      g_uri_get_port (r) != g_uri_get_port (s))
    return FALSE;
  /* The resource is the server, or a path above it. */
  rpath = snodo_oauth_trimmed_path (r);
  spath = snodo_oauth_trimmed_path (s);
  len = strlen (rpath);
  return strncmp (rpath, spath, len) == 0 && (spath[len] == '\0' || spath[len] == '/');
}

gboolean
snodo_oauth_uri_is_allowed (const char *uri)
{
  g_autoptr(GUri) parsed = g_uri_parse (uri, G_URI_FLAGS_ENCODED, NULL);
  g_autoptr(GInetAddress) address = NULL;
  const char *host;

  if (parsed == NULL || g_uri_get_host (parsed) == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (g_uri_get_scheme (parsed), "https") == 0)
    return TRUE;
  if (g_ascii_strcasecmp (g_uri_get_scheme (parsed), "http") != 0)
    return FALSE;
  /* Plain HTTP only to this machine. */
  host = g_uri_get_host (parsed);
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

char *
snodo_oauth_scope_union (const char *a,
                         const char *b)
{
  g_auto(GStrv) left = g_strsplit (a != NULL ? a : "", " ", -1);
  g_auto(GStrv) right = g_strsplit (b != NULL ? b : "", " ", -1);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  for (guint i = 0; left[i] != NULL; i++)
    if (left[i][0] != '\0' && !g_ptr_array_find_with_equal_func (all, left[i], g_str_equal, NULL))
      g_ptr_array_add (all, left[i]);
  for (guint i = 0; right[i] != NULL; i++)
    if (right[i][0] != '\0' && !g_ptr_array_find_with_equal_func (all, right[i], g_str_equal, NULL))
      g_ptr_array_add (all, right[i]);
  if (all->len == 0)
    return NULL;
  g_ptr_array_add (all, NULL);
  return g_strjoinv (" ", (char **) all->pdata);
}

gboolean
snodo_oauth_scope_contains (const char *have,
                            const char *want)
{
  g_auto(GStrv) held = g_strsplit (have != NULL ? have : "", " ", -1);
  g_auto(GStrv) wanted = g_strsplit (want != NULL ? want : "", " ", -1);

  for (guint i = 0; wanted[i] != NULL; i++)
    if (wanted[i][0] != '\0' && !g_strv_contains ((const char * const *) held, wanted[i]))
      return FALSE;
  return TRUE;
}

