/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"

#include <string.h>

#include "snodo-json-private.h"
#include "snodo-request-state-private.h"

/* 2027-01-15T08:00:00Z, a whole millisecond. */
#define NOW_US  G_GINT64_CONSTANT (1800000000000000)
#define TTL_US  (10 * G_TIME_SPAN_MINUTE)

#define STATE_ALPHABET "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."

static const char base_params[] =
  "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true}}";

static JsonObject *
object_from (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  if (json == NULL)
    return NULL;

  node = snodo_json_parse (json, strlen (json), &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

static gboolean
objects_equal (JsonObject *a,
               JsonObject *b)
{
  g_autoptr(JsonNode) na = json_node_init_object (json_node_alloc (), a);
  g_autoptr(JsonNode) nb = json_node_init_object (json_node_alloc (), b);

  return snodo_test_json_equal (na, nb);
}

static SnodoRequestStateKey *
key_from_byte (guint8 fill,
               gsize  len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) secret = NULL;
  guint8 *data = g_malloc (len);
  SnodoRequestStateKey *key;

  memset (data, fill, len);
  secret = g_bytes_new_take (data, len);
  key = snodo_request_state_key_new (secret, &error);
  g_assert_no_error (error);
  g_assert_nonnull (key);
  return key;
}

static char *
seal_ok (SnodoRequestStateKey *key,
         const char           *method,
         const char           *params_json,
         const char           *answers_json,
         gint64                now_us,
         gint64                ttl_us)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = object_from (params_json);
  g_autoptr(JsonObject) answers = object_from (answers_json);
  char *state;

  state = snodo_request_state_seal (key, method, params, answers, NULL, now_us, ttl_us, &error);
  g_assert_no_error (error);
  g_assert_nonnull (state);
  g_assert_cmpuint (strlen (state), <=, SNODO_REQUEST_STATE_MAX_BYTES);
  return state;
}

static JsonObject *
open_ok (SnodoRequestStateKey *key,
         const char           *state,
         const char           *method,
         const char           *params_json,
         gint64                now_us)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = object_from (params_json);
  JsonObject *answers;

  answers = snodo_request_state_open (key, state, method, params, now_us, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (answers);
  return answers;
}

/* Asserts that opening fails with INVALID_PARAMS and, when @part is not
 * NULL, with a message containing it. */
static void
open_fails (SnodoRequestStateKey *key,
            const char           *state,
            const char           *method,
            const char           *params_json,
            gint64                now_us,
            const char           *part)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) params = object_from (params_json);
  g_autoptr(JsonObject) answers = NULL;

  answers = snodo_request_state_open (key, state, method, params, now_us, NULL, &error);
  if (answers != NULL)
    g_error ("state \"%.200s\" for %s %s unexpectedly opened", state, method, params_json);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
  if (part != NULL && strstr (error->message, part) == NULL)
    g_error ("message \"%s\" lacks \"%s\" (state \"%.200s\")", error->message, part, state);
}

/* The format, written out independently of the module: what a holder of
 * @secret would issue for @payload. */
static char *
forge (guint8      fill,
       const char *payload)
{
  g_autofree char *encoded = NULL;
  g_autofree char *mac_text = NULL;
  guint8 secret[32];
  guint8 mac_key[32];
  guint8 mac[32];
  gsize len = sizeof mac_key;
  GHmac *hmac;

  memset (secret, fill, sizeof secret);
  hmac = g_hmac_new (G_CHECKSUM_SHA256, secret, sizeof secret);
  g_hmac_update (hmac, (const guchar *) "Snodo request state v1", -1);
  g_hmac_get_digest (hmac, mac_key, &len);
  g_hmac_unref (hmac);

  encoded = g_base64_encode ((const guchar *) payload, strlen (payload));
  g_strdelimit (encoded, "+", '-');
  g_strdelimit (encoded, "/", '_');
  g_strdelimit (encoded, "=", '\0');

  hmac = g_hmac_new (G_CHECKSUM_SHA256, mac_key, sizeof mac_key);
  g_hmac_update (hmac, (const guchar *) encoded, -1);
  len = sizeof mac;
  g_hmac_get_digest (hmac, mac, &len);
  g_hmac_unref (hmac);

  mac_text = g_base64_encode (mac, sizeof mac);
  g_strdelimit (mac_text, "+", '-');
  g_strdelimit (mac_text, "/", '_');
  g_strdelimit (mac_text, "=", '\0');

  return g_strconcat (encoded, ".", mac_text, NULL);
}

static void
test_round_trip (void)
{
  static const char answers_json[] =
    "{\"confirm\":{\"action\":\"accept\",\"content\":{\"name\":\"Zo\\u00e9 \\ud83d\\ude00\","
    "\"count\":3,\"ratio\":1.5,\"big\":-9223372036854775808,\"nul\":\"a\\u0000b\","
    "\"tricky\":\"\\\"\\\\\\n\\t/\"}},"
    "\"roots\":{\"roots\":[{\"uri\":\"file:///srv\",\"name\":\"srv\"},{\"uri\":\"file:///tmp\"}]},"
    "\"declined\":{\"action\":\"decline\"}}";
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) expected = object_from (answers_json);
  g_autoptr(JsonObject) answers = NULL;
  g_autoptr(JsonObject) empty = NULL;
  g_autofree char *state = NULL;
  g_autofree char *empty_state = NULL;
  JsonObject *content;

  g_test_summary ("The answers sealed into a state come back equal, with their types");

  state = seal_ok (key, "tools/call", base_params, answers_json, NOW_US, TTL_US);
  g_assert_cmpuint (strspn (state, STATE_ALPHABET), ==, strlen (state));
  g_assert_nonnull (strchr (state, '.'));
  g_assert_true (strchr (state, '.') == strrchr (state, '.'));

  answers = open_ok (key, state, "tools/call", base_params, NOW_US + 1);
  g_assert_true (objects_equal (answers, expected));
  g_assert_false (answers == expected);

  content = json_object_get_object_member (json_object_get_object_member (answers, "confirm"),
                                           "content");
  g_assert_cmpuint (json_node_get_value_type (json_object_get_member (content, "count")),
                    ==, G_TYPE_INT64);
  g_assert_cmpuint (json_node_get_value_type (json_object_get_member (content, "ratio")),
                    ==, G_TYPE_DOUBLE);
  g_assert_cmpint (json_object_get_int_member (content, "big"), ==, G_MININT64);
  g_assert_cmpstr (json_object_get_string_member (content, "nul"), ==, "a\xc0\x80" "b");

  /* No answers yet: an empty object comes back. */
  empty_state = seal_ok (key, "prompts/get", NULL, NULL, NOW_US, TTL_US);
  empty = open_ok (key, empty_state, "prompts/get", NULL, NOW_US);
  g_assert_cmpuint (json_object_get_size (empty), ==, 0);
}

static void
test_format (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(GString) payload = g_string_new (NULL);
  g_autofree char *state = NULL;
  g_autofree char *forged = NULL;
  g_autofree char *digest = NULL;
  g_autofree char *with_v2 = NULL;
  g_autofree char *wrong_digest = NULL;
  const char *params =
    "{\"name\":\"t\",\"arguments\":{\"b\":[2,1.5,\"x\"],\"a\":1},\"_meta\":{\"p\":1}}";
  static const char *const malformed[] = {
    "not json",
    "[]",
    "1",
    "{}",
    "{\"v\":\"1\",\"m\":\"tools/call\",\"d\":\"00\",\"exp\":1,\"a\":{}}",
    "{\"v\":1.0,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":1,\"a\":{}}",
    "{\"v\":1,\"d\":\"00\",\"exp\":9000000000000,\"a\":{}}",
    "{\"v\":1,\"m\":7,\"d\":\"00\",\"exp\":9000000000000,\"a\":{}}",
    "{\"v\":1,\"m\":\"tools/call\",\"exp\":9000000000000,\"a\":{}}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"a\":{}}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":\"9000000000000\",\"a\":{}}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":-1,\"a\":{}}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":9223372036854775807,\"a\":{}}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":9000000000000}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":9000000000000,\"a\":[]}",
    "{\"v\":1,\"m\":\"tools/call\",\"d\":\"00\",\"exp\":9000000000000,\"a\":null}",
  };

  g_test_summary ("A state is base64url(payload).base64url(HMAC-SHA256(key, that)), with the "
                  "key derived from the secret; the payload is canonical JSON; a state with a "
                  "valid MAC but an unknown version or shape is refused");

  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256,
                                          "{\"arguments\":{\"a\":1,\"b\":[2,1.5,\"x\"]},"
                                          "\"name\":\"t\"}",
                                          -1);
  g_string_append_printf (payload,
                          "{\"a\":{\"k\":{\"action\":\"accept\",\"content\":{\"x\":1,\"y\":2}}},"
                          "\"d\":\"%s\",\"exp\":%" G_GINT64_FORMAT ",\"m\":\"tools/call\","
                          "\"q\":[],\"v\":1}",
                          digest, (NOW_US + TTL_US) / 1000);

  state = seal_ok (key, "tools/call", params,
                   "{\"k\":{\"content\":{\"y\":2,\"x\":1},\"action\":\"accept\"}}",
                   NOW_US, TTL_US);
  forged = forge (0x42, payload->str);
  g_assert_cmpstr (state, ==, forged);

  for (gsize i = 0; i < G_N_ELEMENTS (malformed); i++)
    {
      g_autofree char *bad = forge (0x42, malformed[i]);

      g_test_message ("payload %s", malformed[i]);
      open_fails (key, bad, "tools/call", params, NOW_US, "malformed");
    }

  with_v2 = forge (0x42, "{\"v\":2,\"anything\":true}");
  open_fails (key, with_v2, "tools/call", params, NOW_US, "version");

  wrong_digest = forge (0x42, "{\"a\":{},\"d\":\"00\",\"exp\":9000000000000,"
                              "\"m\":\"tools/call\",\"v\":1}");
  open_fails (key, wrong_digest, "tools/call", params, NOW_US, "other parameters");
}

static void
test_asked (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) params = object_from ("{\"name\":\"ask\"}");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answers = NULL;
  g_autoptr(JsonObject) old_answers = NULL;
  g_autoptr(GString) payload = g_string_new (NULL);
  g_autofree char *state = NULL;
  g_autofree char *forged = NULL;
  g_autofree char *old = NULL;
  g_autofree char *digest = NULL;
  g_auto(GStrv) asked = NULL;
  g_auto(GStrv) old_asked = NULL;
  const char *keys[] = { "zeta", "alpha", "mid", NULL };
  static const char *const bad_questions[] = { "{}", "\"alpha\"", "[1]", "[\"a\",null]" };

  g_test_summary ("A state records the keys of the input requests it was issued with, "
                  "sorted, and gives them back; a state without them (an older build's) "
                  "opens with none; malformed keys are refused");

  state = snodo_request_state_seal (key, "tools/call", params, NULL, keys, NOW_US, TTL_US, &error);
  g_assert_no_error (error);

  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "{\"name\":\"ask\"}", -1);
  g_string_append_printf (payload,
                          "{\"a\":{},\"d\":\"%s\",\"exp\":%" G_GINT64_FORMAT ",\"m\":\"tools/call\","
                          "\"q\":[\"alpha\",\"mid\",\"zeta\"],\"v\":1}",
                          digest, (NOW_US + TTL_US) / 1000);
  forged = forge (0x42, payload->str);
  g_assert_cmpstr (state, ==, forged);

  answers = snodo_request_state_open (key, state, "tools/call", params, NOW_US, &asked, &error);
  g_assert_no_error (error);
  g_assert_nonnull (answers);
  g_assert_nonnull (asked);
  g_assert_cmpuint (g_strv_length (asked), ==, 3);
  g_assert_cmpstr (asked[0], ==, "alpha");
  g_assert_cmpstr (asked[1], ==, "mid");
  g_assert_cmpstr (asked[2], ==, "zeta");

  g_string_truncate (payload, 0);
  g_string_append_printf (payload,
                          "{\"a\":{\"k\":{}},\"d\":\"%s\",\"exp\":%" G_GINT64_FORMAT ","
                          "\"m\":\"tools/call\",\"v\":1}",
                          digest, (NOW_US + TTL_US) / 1000);
  old = forge (0x42, payload->str);
  old_answers = snodo_request_state_open (key, old, "tools/call", params, NOW_US, &old_asked, &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (old_answers, "k"));
  g_assert_null (old_asked);

  for (gsize i = 0; i < G_N_ELEMENTS (bad_questions); i++)
    {
      g_autofree char *bad = NULL;

      g_string_truncate (payload, 0);
      g_string_append_printf (payload,
                              "{\"a\":{},\"d\":\"%s\",\"exp\":%" G_GINT64_FORMAT ","
                              "\"m\":\"tools/call\",\"q\":%s,\"v\":1}",
                              digest, (NOW_US + TTL_US) / 1000, bad_questions[i]);
      bad = forge (0x42, payload->str);
      open_fails (key, bad, "tools/call", "{\"name\":\"ask\"}", NOW_US, "malformed");
    }
}

static void
test_member_order (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) answers = NULL;
  g_autofree char *state = NULL;

  g_test_summary ("The client may re-serialise params with its members in another order, "
                  "at any depth");

  state = seal_ok (key, "tools/call",
                   "{\"name\":\"t\","
                   "\"arguments\":{\"a\":1,\"b\":{\"x\":[{\"p\":1,\"q\":2}],\"y\":2}}}",
                   "{\"k\":{\"action\":\"cancel\"}}", NOW_US, TTL_US);
  answers = open_ok (key, state, "tools/call",
                     "{\"arguments\":{\"b\":{\"y\":2,\"x\":[{\"q\":2,\"p\":1}]},\"a\":1},"
                     "\"name\":\"t\"}",
                     NOW_US);
  g_assert_true (json_object_has_member (answers, "k"));
}

static void
test_changed_params (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) same = NULL;
  g_autofree char *state = NULL;
  static const char *const changed[] = {
    "{\"name\":\"lookup\",\"arguments\":{\"a\":2,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1.0,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\","
    "\"arguments\":{\"a\":\"1\",\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[2,1],\"c\":\"x\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2,3],\"c\":\"x\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"X\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":false,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":false}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null}}",
    "{\"name\":\"lookup\","
    "\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true,\"f\":0}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true,"
    "\"_meta\":{}}}",
    "{\"name\":\"Lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true}}",
    "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true},"
    "\"task\":{}}",
    "{\"name\":\"lookup\",\"arguments\":{}}",
    "{\"name\":\"lookup\"}",
    "{}",
    NULL,
  };

  g_test_summary ("Any change of a value in params, however small, makes the state unusable");

  state = seal_ok (key, "tools/call", base_params, "{}", NOW_US, TTL_US);
  same = open_ok (key, state, "tools/call", base_params, NOW_US);

  for (gsize i = 0; i < G_N_ELEMENTS (changed); i++)
    open_fails (key, state, "tools/call", changed[i], NOW_US, "other parameters");
}

static void
test_other_method (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autofree char *state = NULL;

  state = seal_ok (key, "tools/call", base_params, "{}", NOW_US, TTL_US);
  open_fails (key, state, "prompts/get", base_params, NOW_US, "another method");
  open_fails (key, state, "resources/read", base_params, NOW_US, "another method");
  open_fails (key, state, "tools/cal", base_params, NOW_US, "another method");
  open_fails (key, state, "", base_params, NOW_US, "another method");
}

static void
test_round_members (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autofree char *state = NULL;
  g_autofree char *state_with_meta = NULL;
  static const char retry[] =
    "{\"_meta\":{\"progressToken\":7},"
    "\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,\"e\":true},"
    "\"inputResponses\":{\"k\":{\"action\":\"accept\",\"content\":{\"ok\":true}}},"
    "\"requestState\":\"whatever the client echoed\"}";

  g_test_summary ("_meta, inputResponses and requestState differ between rounds and are not "
                  "part of the binding; only at the top level of params");

  state = seal_ok (key, "tools/call", base_params, "{}", NOW_US, TTL_US);
  first = open_ok (key, state, "tools/call", retry, NOW_US);

  state_with_meta = seal_ok (key, "tools/call", retry, "{}", NOW_US, TTL_US);
  second = open_ok (key, state_with_meta, "tools/call", base_params, NOW_US);

  open_fails (key, state, "tools/call",
              "{\"name\":\"lookup\",\"arguments\":{\"a\":1,\"b\":[1,2],\"c\":\"x\",\"d\":null,"
              "\"e\":true,\"requestState\":\"x\"}}",
              NOW_US, "other parameters");
}

static void
test_tampered (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autofree char *state = NULL;
  gsize len;
  guint tried = 0;

  g_test_summary ("Changing, removing or adding any character anywhere in the payload or the "
                  "MAC makes the state unusable");

  state = seal_ok (key, "tools/call", base_params,
                   "{\"k\":{\"action\":\"accept\",\"content\":{\"admin\":false}}}", NOW_US, TTL_US);
  len = strlen (state);

  for (gsize i = 0; i < len; i++)
    {
      const char replacements[] = { (char) (state[i] ^ 0x01), (char) (state[i] ^ 0x20),
                                    state[i] == 'A' ? 'B' : 'A', '.', '=', '+' };

      for (gsize r = 0; r < G_N_ELEMENTS (replacements); r++)
        {
          g_autofree char *copy = g_strdup (state);

          if (replacements[r] == state[i] || replacements[r] == '\0')
            continue;
          copy[i] = replacements[r];
          open_fails (key, copy, "tools/call", base_params, NOW_US, NULL);
          tried++;
        }
    }

  for (gsize cut = 0; cut < len; cut++)
    {
      g_autofree char *copy = g_strndup (state, cut);

      open_fails (key, copy, "tools/call", base_params, NOW_US, NULL);
    }

  for (gsize i = 0; i <= len; i++)
    {
      g_autofree char *copy = g_strdup_printf ("%.*sA%s", (int) i, state, state + i);

      open_fails (key, copy, "tools/call", base_params, NOW_US, NULL);
    }

  g_assert_cmpuint (tried, >, 4 * len);
}

static void
test_other_key (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(SnodoRequestStateKey) same_secret = key_from_byte (0x42, 32);
  g_autoptr(SnodoRequestStateKey) other = key_from_byte (0x43, 32);
  g_autoptr(SnodoRequestStateKey) longer = key_from_byte (0x42, 33);
  g_autoptr(JsonObject) answers = NULL;
  g_autofree char *state = NULL;

  g_test_summary ("A state opens with any key made from the same secret (another process "
                  "behind a load balancer) and with no other");

  state = seal_ok (key, "tools/call", base_params, "{\"k\":{}}", NOW_US, TTL_US);
  answers = open_ok (same_secret, state, "tools/call", base_params, NOW_US);
  open_fails (other, state, "tools/call", base_params, NOW_US, "not issued by this server");
  open_fails (longer, state, "tools/call", base_params, NOW_US, "not issued by this server");
}

static void
test_expired (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) at_issue = NULL;
  g_autoptr(JsonObject) just_before = NULL;
  g_autoptr(JsonObject) skewed = NULL;
  g_autoptr(JsonObject) forever = NULL;
  g_autofree char *state = NULL;
  g_autofree char *long_lived = NULL;

  g_test_summary ("A state is valid from its issue until now_us + ttl_us, rounded down to the "
                  "millisecond, and not after");

  state = seal_ok (key, "tools/call", base_params, "{}", NOW_US, 60 * G_TIME_SPAN_SECOND);
  at_issue = open_ok (key, state, "tools/call", base_params, NOW_US);
  just_before = open_ok (key, state, "tools/call", base_params,
                         NOW_US + 60 * G_TIME_SPAN_SECOND - 1);
  /* Another machine's clock may be a little behind. */
  skewed = open_ok (key, state, "tools/call", base_params, NOW_US - 5 * G_TIME_SPAN_SECOND);

  open_fails (key, state, "tools/call", base_params, NOW_US + 60 * G_TIME_SPAN_SECOND, "expired");
  open_fails (key, state, "tools/call", base_params, NOW_US + G_TIME_SPAN_DAY, "expired");
  open_fails (key, state, "tools/call", base_params, G_MAXINT64, "expired");

  /* A huge ttl does not overflow into the past. */
  long_lived = seal_ok (key, "tools/call", base_params, "{}", NOW_US, G_MAXINT64);
  forever = open_ok (key, long_lived, "tools/call", base_params,
                     NOW_US + 100 * 365 * G_TIME_SPAN_DAY);
}

static JsonObject *
answers_with_text (gsize len)
{
  g_autoptr(JsonObject) content = json_object_new ();
  g_autoptr(JsonObject) result = json_object_new ();
  JsonObject *answers = json_object_new ();
  g_autofree char *text = g_malloc (len + 1);

  memset (text, 'z', len);
  text[len] = '\0';
  json_object_set_string_member (content, "text", text);
  json_object_set_string_member (result, "action", "accept");
  json_object_set_object_member (result, "content", g_steal_pointer (&content));
  json_object_set_object_member (answers, "k", g_steal_pointer (&result));
  return answers;
}

static void
test_oversized (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autoptr(JsonObject) params = object_from (base_params);
  g_autoptr(JsonObject) big = answers_with_text (47000);
  g_autoptr(JsonObject) too_big = answers_with_text (49000);
  g_autoptr(JsonObject) huge = answers_with_text (1 << 20);
  g_autoptr(JsonObject) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *state = NULL;
  g_autofree char *failed = NULL;
  g_autofree char *long_state = NULL;
  g_autofree char *max_state = NULL;

  g_test_summary ("No state longer than 64 KiB is issued or opened");

  state = snodo_request_state_seal (key, "tools/call", params, big, NULL, NOW_US, TTL_US, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (state), >, 60000);
  g_assert_cmpuint (strlen (state), <=, SNODO_REQUEST_STATE_MAX_BYTES);
  back = snodo_request_state_open (key, state, "tools/call", params, NOW_US, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (objects_equal (back, big));

  failed = snodo_request_state_seal (key, "tools/call", params, too_big, NULL, NOW_US, TTL_US, &error);
  g_assert_null (failed);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_error (&error);

  failed = snodo_request_state_seal (key, "tools/call", params, huge, NULL, NOW_US, TTL_US, &error);
  g_assert_null (failed);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_error (&error);

  /* A state one byte over the limit is refused before anything else; one
   * at the limit is only malformed. */
  long_state = g_strnfill (SNODO_REQUEST_STATE_MAX_BYTES + 1, 'A');
  open_fails (key, long_state, "tools/call", base_params, NOW_US, "too long");
  max_state = g_strnfill (SNODO_REQUEST_STATE_MAX_BYTES, 'A');
  open_fails (key, max_state, "tools/call", base_params, NOW_US, "malformed");
}

static void
test_garbage (void)
{
  g_autoptr(SnodoRequestStateKey) key = key_from_byte (0x42, 32);
  g_autofree char *valid = NULL;
  g_autofree char *padded = NULL;
  g_autofree char *spaced = NULL;
  g_autofree char *standard_alphabet = NULL;
  g_autofree char *doubled = NULL;
  g_autofree char *json_payload = NULL;
  g_autofree char *non_json = NULL;
  g_autofree char *huge_mac = NULL;
  g_autofree char *long_junk = NULL;
  g_autofree char *dots = NULL;
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  g_autofree char *base64_of_json = NULL;
  g_autofree char *base64_of_text = NULL;

  g_test_summary ("Hostile strings are refused with an error, never a crash or a critical");

  valid = seal_ok (key, "tools/call", base_params, "{}", NOW_US, TTL_US);
  padded = g_strconcat (valid, "=", NULL);
  spaced = g_strconcat (" ", valid, NULL);
  standard_alphabet = g_strdup (valid);
  g_strdelimit (standard_alphabet, "-", '+');
  g_strdelimit (standard_alphabet, "_", '/');
  if (strcmp (standard_alphabet, valid) == 0)
    standard_alphabet[0] = '+';
  doubled = g_strconcat (valid, ".", valid, NULL);
  base64_of_json = g_base64_encode ((const guchar *) "{\"v\":1}", 7);
  base64_of_text = g_base64_encode ((const guchar *) "hello, world", 12);
  json_payload = g_strconcat (base64_of_json, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", NULL);
  non_json = g_strconcat (base64_of_text, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", NULL);
  huge_mac = g_strnfill (40000, 'A');
  huge_mac[0] = 'x';
  huge_mac[1] = '.';
  long_junk = g_strnfill (SNODO_REQUEST_STATE_MAX_BYTES * 2, '\x7f');
  dots = g_strnfill (1000, '.');

  g_ptr_array_add (inputs, (gpointer) "");
  g_ptr_array_add (inputs, (gpointer) ".");
  g_ptr_array_add (inputs, (gpointer) "..");
  g_ptr_array_add (inputs, dots);
  g_ptr_array_add (inputs, (gpointer) "A");
  g_ptr_array_add (inputs, (gpointer) "A.");
  g_ptr_array_add (inputs, (gpointer) ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  g_ptr_array_add (inputs, (gpointer) "A.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  g_ptr_array_add (inputs, (gpointer) "AAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  g_ptr_array_add (inputs, (gpointer) "!!!!.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  g_ptr_array_add (inputs, (gpointer) "null");
  g_ptr_array_add (inputs, (gpointer) "{\"v\":1,\"m\":\"tools/call\"}");
  g_ptr_array_add (inputs, (gpointer) "e30.e30");
  g_ptr_array_add (inputs, (gpointer) "\xff\xfe\xfd.\xc3\x28");
  g_ptr_array_add (inputs, (gpointer) "\xc3\xa9t\xc3\xa9.\xc3\xa9t\xc3\xa9");
  g_ptr_array_add (inputs, (gpointer) "%00%2e%00");
  g_ptr_array_add (inputs, (gpointer) "\n\r\t.\x01\x02");
  g_ptr_array_add (inputs, (gpointer) "../../../../etc/passwd");
  g_ptr_array_add (inputs, json_payload);
  g_ptr_array_add (inputs, non_json);
  g_ptr_array_add (inputs, padded);
  g_ptr_array_add (inputs, spaced);
  g_ptr_array_add (inputs, standard_alphabet);
  g_ptr_array_add (inputs, doubled);
  g_ptr_array_add (inputs, huge_mac);
  g_ptr_array_add (inputs, long_junk);

  g_assert_cmpuint (inputs->len, >=, 15);
  for (guint i = 0; i < inputs->len; i++)
    {
      g_test_message ("input %u", i);
      open_fails (key, inputs->pdata[i], "tools/call", base_params, NOW_US, NULL);
    }

  /* Random strings of the state alphabet, and random bytes. */
  for (guint round = 0; round < 2000; round++)
    {
      static const char alphabet[] = STATE_ALPHABET;
      guint len = g_test_rand_int_range (0, 200);
      g_autofree char *text = g_malloc (len + 1);

      for (guint i = 0; i < len; i++)
        {
          if (round % 2 == 0)
            text[i] = alphabet[g_test_rand_int_range (0, sizeof alphabet - 1)];
          else
            text[i] = (char) g_test_rand_int_range (1, 256);
        }
      text[len] = '\0';
      open_fails (key, text, "tools/call", base_params, NOW_US, NULL);
    }
}

static void
test_random_keys (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoRequestStateKey) a = snodo_request_state_key_new_random (&error);
  g_autoptr(SnodoRequestStateKey) b = NULL;
  g_autoptr(JsonObject) answers = NULL;
  g_autofree char *state_a = NULL;
  g_autofree char *state_b = NULL;

  g_test_summary ("Two random keys differ: the same payload gets different MACs, and neither "
                  "opens the other's state");

  g_assert_no_error (error);
  g_assert_nonnull (a);
  b = snodo_request_state_key_new_random (&error);
  g_assert_no_error (error);
  g_assert_nonnull (b);

  state_a = seal_ok (a, "tools/call", base_params, "{}", NOW_US, TTL_US);
  state_b = seal_ok (b, "tools/call", base_params, "{}", NOW_US, TTL_US);
  g_assert_cmpstr (state_a, !=, state_b);
  /* Same payload, so the text before the '.' is the same. */
  g_assert_true (strncmp (state_a, state_b, strchr (state_a, '.') - state_a + 1) == 0);

  answers = open_ok (a, state_a, "tools/call", base_params, NOW_US);
  open_fails (b, state_a, "tools/call", base_params, NOW_US, "not issued by this server");
  open_fails (a, state_b, "tools/call", base_params, NOW_US, "not issued by this server");
}

static void
test_short_secret (void)
{
  static const gsize bad_lengths[] = { 0, 1, 16, 31 };

  g_test_summary ("An application secret must have at least 32 bytes");

  for (gsize i = 0; i < G_N_ELEMENTS (bad_lengths); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) secret = g_bytes_new_take (g_malloc0 (MAX (bad_lengths[i], 1)),
                                                   bad_lengths[i]);
      g_autoptr(SnodoRequestStateKey) key = snodo_request_state_key_new (secret, &error);

      g_assert_null (key);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    }

  /* 32 bytes and more are fine; ref and unref pair up. */
  {
    g_autoptr(SnodoRequestStateKey) key = key_from_byte (0, 32);
    g_autoptr(SnodoRequestStateKey) big = key_from_byte (7, 1000);
    SnodoRequestStateKey *again = snodo_request_state_key_ref (key);

    g_assert_true (again == key);
    snodo_request_state_key_unref (again);
    g_assert_nonnull (big);
  }
}

#define N_THREADS 8
#define N_ROUNDS  300

typedef struct
{
  SnodoRequestStateKey *key;
  /* Sealed, shared by every thread. */
  JsonNode             *params;
  guint                 index;
  gint                 *failures;
} ThreadData;

static gpointer
thread_func (gpointer user_data)
{
  ThreadData *data = user_data;
  JsonObject *params = json_node_get_object (data->params);

  for (guint round = 0; round < N_ROUNDS; round++)
    {
      g_autoptr(SnodoRequestStateKey) key = snodo_request_state_key_ref (data->key);
      g_autoptr(SnodoRequestStateKey) own = NULL;
      g_autoptr(JsonObject) answers = json_object_new ();
      g_autoptr(JsonObject) back = NULL;
      g_autoptr(JsonObject) tampered_back = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *state = NULL;

      json_object_set_int_member (answers, "thread", data->index);
      json_object_set_int_member (answers, "round", round);

      state = snodo_request_state_seal (key, "tools/call", params, answers, NULL, NOW_US, TTL_US, &error);
      if (state == NULL)
        {
          g_atomic_int_inc (data->failures);
          continue;
        }
      back = snodo_request_state_open (key, state, "tools/call", params, NOW_US, NULL, &error);
      if (back == NULL ||
          json_object_get_int_member (back, "thread") != data->index ||
          json_object_get_int_member (back, "round") != round)
        g_atomic_int_inc (data->failures);

      state[round % strlen (state)] ^= 0x01;
      tampered_back = snodo_request_state_open (key, state, "tools/call", params, NOW_US, NULL, NULL);
      if (tampered_back != NULL)
        g_atomic_int_inc (data->failures);

      if (round % 50 == 0)
        {
          own = snodo_request_state_key_new_random (NULL);
          if (own == NULL)
            g_atomic_int_inc (data->failures);
        }
    }

  return NULL;
}

static void
test_threads (void)
{
  g_autoptr(JsonObject) params = object_from (base_params);
  g_autoptr(JsonNode) params_node = json_node_init_object (json_node_alloc (), params);
  SnodoRequestStateKey *key = key_from_byte (0x42, 32);
  ThreadData data[N_THREADS];
  GThread *threads[N_THREADS];
  gint failures = 0;

  g_test_summary ("One key and one sealed params tree are used by several threads at once");

  json_node_seal (params_node);

  for (guint i = 0; i < N_THREADS; i++)
    {
      data[i].key = key;
      data[i].params = params_node;
      data[i].index = i;
      data[i].failures = &failures;
      threads[i] = g_thread_new ("request-state", thread_func, &data[i]);
    }

  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  g_assert_cmpint (g_atomic_int_get (&failures), ==, 0);
  snodo_request_state_key_unref (key);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/request-state/round-trip", test_round_trip);
  g_test_add_func ("/snodo/request-state/format", test_format);
  g_test_add_func ("/snodo/request-state/asked", test_asked);
  g_test_add_func ("/snodo/request-state/member-order", test_member_order);
  g_test_add_func ("/snodo/request-state/changed-params", test_changed_params);
  g_test_add_func ("/snodo/request-state/other-method", test_other_method);
  g_test_add_func ("/snodo/request-state/round-members", test_round_members);
  g_test_add_func ("/snodo/request-state/tampered", test_tampered);
  g_test_add_func ("/snodo/request-state/other-key", test_other_key);
  g_test_add_func ("/snodo/request-state/expired", test_expired);
  g_test_add_func ("/snodo/request-state/oversized", test_oversized);
  g_test_add_func ("/snodo/request-state/garbage", test_garbage);
  g_test_add_func ("/snodo/request-state/random-keys", test_random_keys);
  g_test_add_func ("/snodo/request-state/short-secret", test_short_secret);
  g_test_add_func ("/snodo/request-state/threads", test_threads);

  return g_test_run ();
}
