/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A libFuzzer target for the requestState of multi round-trip requests.
 * The first byte of the input picks what the rest is:
 *
 *  0. a state a client sent: opened against a fixed key, it must fail
 *     cleanly (nobody without the key makes one that opens);
 *  1. a payload, which this target signs with the same key as the library
 *     would (tests/fuzz/README.md), so that what the library does after the
 *     MAC check is reached too: it opens or fails cleanly, never crashes;
 *  2. the params of a request, as JSON (an object, whose "a" member, when
 *     an object, is the answers): sealed and opened again, the answers
 *     must come back equal; the state must keep to its alphabet and limit;
 *     and the state must not open after it expired, for another method, for
 *     other params, or once altered, while it must open for the same params
 *     in another member order or with _meta added.
 */

#include "config.h"

#include <string.h>

#include "snodo-error.h"
#include "snodo-json-private.h"
#include "snodo-request-state-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

#define NOW_US  G_GINT64_CONSTANT (1800000000000000)
#define TTL_US  G_GINT64_CONSTANT (600000000)
#define METHOD  "tools/call"

static const char secret[] = "a fixed secret for fuzzing, 32 bytes or more";

static SnodoRequestStateKey *
get_key (void)
{
  static SnodoRequestStateKey *key;

  if (key == NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static (secret, sizeof secret - 1);

      key = snodo_request_state_key_new (bytes, NULL);
      g_assert (key != NULL);
    }
  return key;
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

/* payload "." MAC, as the format in snodo-request-state-private.h says. */
static char *
sign (const guint8 *payload,
      gsize         len)
{
  static const char label[] = "Snodo request state v1";
  g_autofree char *encoded = base64url (payload, len);
  g_autofree char *mac_text = NULL;
  guint8 mac_key[32];
  guint8 mac[32];
  gsize digest_len = sizeof mac_key;
  GHmac *hmac;

  hmac = g_hmac_new (G_CHECKSUM_SHA256, (const guchar *) secret, sizeof secret - 1);
  g_hmac_update (hmac, (const guchar *) label, strlen (label));
  g_hmac_get_digest (hmac, mac_key, &digest_len);
  g_hmac_unref (hmac);

  digest_len = sizeof mac;
  hmac = g_hmac_new (G_CHECKSUM_SHA256, mac_key, sizeof mac_key);
  g_hmac_update (hmac, (const guchar *) encoded, strlen (encoded));
  g_hmac_get_digest (hmac, mac, &digest_len);
  g_hmac_unref (hmac);

  mac_text = base64url (mac, sizeof mac);
  return g_strconcat (encoded, ".", mac_text, NULL);
}

static void
open_fails (const char *state,
            const char *method,
            JsonObject *params,
            gint64      now_us)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answers = NULL;

  answers = snodo_request_state_open (get_key (), state, method, params, now_us, NULL, &error);
  g_assert (answers == NULL);
  g_assert (error != NULL && error->domain == SNODO_RPC_ERROR &&
            error->code == SNODO_RPC_ERROR_INVALID_PARAMS);
}

static void
open_gives (const char *state,
            JsonObject *params,
            JsonObject *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answers = NULL;
  g_autoptr(JsonNode) a = NULL;
  g_autoptr(JsonNode) b = NULL;

  answers = snodo_request_state_open (get_key (), state, METHOD, params, NOW_US, NULL, &error);
  g_assert (error == NULL);
  g_assert (answers != NULL);
  a = json_node_init_object (json_node_alloc (), answers);
  b = json_node_init_object (json_node_alloc (), expected);
  g_assert (json_node_equal (a, b));
}

/* @params with its members in the reverse order, and maybe _meta added. */
static JsonObject *
reshuffle (JsonObject *params,
           gboolean    add_meta)
{
  JsonObject *copy = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (params);

  members = g_list_reverse (members);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data, json_node_copy (json_object_get_member (params, l->data)));
  if (add_meta)
    json_object_set_object_member (copy, "_meta", json_object_new ());
  return copy;
}

static void
round_trip (const guint8 *data,
            gsize         size)
{
  g_autoptr(JsonNode) root = snodo_json_parse ((const char *) data, size, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answers = NULL;
  g_autoptr(JsonObject) reversed = NULL;
  g_autoptr(JsonObject) with_meta = NULL;
  g_autoptr(JsonObject) other = NULL;
  g_autofree char *state = NULL;
  JsonObject *params;
  JsonNode *a;
  gsize len;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  params = json_node_get_object (root);
  a = json_object_get_member (params, "a");
  answers = (a != NULL && JSON_NODE_HOLDS_OBJECT (a)) ? json_object_ref (json_node_get_object (a))
                                                      : json_object_new ();

  state = snodo_request_state_seal (get_key (), METHOD, params, answers, NULL, NOW_US, TTL_US, &error);
  if (state == NULL)
    {
      /* Only answers too large to carry are refused. */
      g_assert (error != NULL && error->code == SNODO_RPC_ERROR_INVALID_PARAMS);
      return;
    }
  len = strlen (state);
  g_assert (len <= SNODO_REQUEST_STATE_MAX_BYTES);
  g_assert (strspn (state, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") == len);
  g_assert (strchr (state, '.') == strrchr (state, '.'));

  open_gives (state, params, answers);
  reversed = reshuffle (params, FALSE);
  open_gives (state, reversed, answers);
  with_meta = reshuffle (params, TRUE);
  open_gives (state, with_meta, answers);

  open_fails (state, METHOD, params, NOW_US + TTL_US);
  open_fails (state, "prompts/get", params, NOW_US);
  other = reshuffle (params, FALSE);
  json_object_set_boolean_member (other, "fuzz-other", TRUE);
  open_fails (state, METHOD, other, NOW_US);

  /* Altered anywhere, payload or MAC. */
  for (gsize i = 0; i < len; i += 1 + len / 8)
    {
      char saved = state[i];

      if (saved == '.')
        continue;
      state[i] = saved == 'A' ? 'B' : 'A';
      open_fails (state, METHOD, params, NOW_US);
      state[i] = saved;
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  if (size < 1)
    return 0;

  switch (data[0] % 3)
    {
    case 0:
      {
        g_autofree char *state = g_strndup ((const char *) data + 1, size - 1);

        open_fails (state, METHOD, NULL, NOW_US);
        break;
      }

    case 1:
      {
        g_autofree char *state = sign (data + 1, size - 1);
        g_autoptr(JsonObject) answers = NULL;
        g_autoptr(GError) error = NULL;

        answers = snodo_request_state_open (get_key (), state, METHOD, NULL, NOW_US, NULL, &error);
        g_assert ((answers == NULL) != (error == NULL));
        break;
      }

    default:
      round_trip (data + 1, size - 1);
      break;
    }
  return 0;
}
