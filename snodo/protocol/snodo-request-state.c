/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <gio/gio.h>

#ifdef G_OS_UNIX
# include <errno.h>
# include <fcntl.h>
# include <unistd.h>
# ifdef HAVE_GETRANDOM
#  include <sys/random.h>
# endif
#endif

#ifdef G_OS_WIN32
# include <windows.h>
# include <bcrypt.h>
#endif

#include "snodo-base-private.h"
#include "snodo-request-state-private.h"
#include "snodo-wire-private.h"

/*
 * Everything here is pure except reading the system's random source once per
 * random key. Every operation works on its own GHmac/GChecksum, and a key is
 * never written after construction, so keys are shared between threads
 * freely. Objects given by the caller are only read (json-glib's reference
 * counts are not atomic, so not even a reference is taken on them).
 */

#define MAC_BYTES       32
/* base64url without padding of MAC_BYTES bytes. */
#define MAC_TEXT_LEN    43
#define FORMAT_VERSION  1
#define DERIVE_LABEL    "Snodo request state v1"

struct _SnodoRequestStateKey
{
  /* HMAC-SHA256 (secret, DERIVE_LABEL). Written once in
   * snodo_request_state_key_new_from_secret(), then only read, from any
   * thread; wiped when the last reference goes. The box is a GAtomicRcBox. */
  guint8 mac_key[MAC_BYTES];
};

typedef struct
{
  /* A frame of the canonical writer. Exactly one of object and array is
   * set, borrowed from the tree being written. names holds the member names
   * of object, sorted, borrowed from object; NULL for an array. */
  JsonObject *object;
  JsonArray  *array;
  GPtrArray  *names;
  guint       index;
  guint       length;
} CanonicalFrame;

/* Zeroes @len bytes in a way the compiler may not drop as a dead store. */
static void
snodo_request_state_wipe (gpointer data,
                          gsize    len)
{
  volatile guint8 *p = data;

  while (len-- > 0)
    *p++ = 0;
}

#ifdef G_OS_UNIX
static gboolean
snodo_request_state_read_urandom (guint8  *buf,
                                  gsize    len,
                                  GError **error)
{
  gsize done = 0;
  int saved_errno;
  int fd;

  do
    fd = open ("/dev/urandom", O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);

  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Could not open the system random source: %s"),
                   g_strerror (saved_errno));
      return FALSE;
    }

  while (done < len)
    {
      ssize_t n = read (fd, buf + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          saved_errno = n < 0 ? errno : EIO;
          close (fd);
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                       _("Could not read the system random source: %s"),
                       g_strerror (saved_errno));
          return FALSE;
        }
      done += (gsize) n;
    }

  close (fd);
  return TRUE;
}
#endif

/* Fills @buf from the operating system's CSPRNG (never from g_random). */
static gboolean
snodo_request_state_fill_random (guint8  *buf,
                                 gsize    len,
                                 GError **error)
{
#if defined(G_OS_WIN32)
  NTSTATUS status;

  status = BCryptGenRandom (NULL, buf, (ULONG) len, BCRYPT_USE_SYSTEM_PREFERRED_RNG);
  if (!BCRYPT_SUCCESS (status))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not read the system random source: "
                     "BCryptGenRandom failed with 0x%08lx"),
                   (unsigned long) status);
      return FALSE;
    }
  return TRUE;
#elif defined(G_OS_UNIX) && defined(HAVE_GETRANDOM)
  gsize done = 0;

  while (done < len)
    {
      /* Blocks only until the kernel's pool is first initialised. */
      ssize_t n = getrandom (buf + done, len - done, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == ENOSYS || errno == EPERM))
        /* An old kernel, or a sandbox that filters the system call. */
        return snodo_request_state_read_urandom (buf, len, error);
      if (n <= 0)
        {
          int saved_errno = n < 0 ? errno : EIO;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                       _("Could not read the system random source: %s"),
                       g_strerror (saved_errno));
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
#elif defined(G_OS_UNIX)
  return snodo_request_state_read_urandom (buf, len, error);
#else
# error "No random source for this platform"
#endif
}

static void
snodo_request_state_key_clear (gpointer data)
{
  SnodoRequestStateKey *self = data;

  snodo_request_state_wipe (self->mac_key, sizeof self->mac_key);
}

static SnodoRequestStateKey *
snodo_request_state_key_new_from_secret (const guint8 *secret,
                                         gsize         len)
{
  SnodoRequestStateKey *self = g_atomic_rc_box_new0 (SnodoRequestStateKey);
  GHmac *hmac = g_hmac_new (G_CHECKSUM_SHA256, secret, len);
  gsize digest_len = sizeof self->mac_key;

  g_hmac_update (hmac, (const guchar *) DERIVE_LABEL, strlen (DERIVE_LABEL));
  g_hmac_get_digest (hmac, self->mac_key, &digest_len);
  g_hmac_unref (hmac);
  g_assert (digest_len == MAC_BYTES);

  return self;
}

/* base64url (RFC 4648 section 5) without padding. */
static char *
snodo_request_state_base64url_encode (const guint8 *data,
                                      gsize         len)
{
  char *text = g_base64_encode (data, len);
  char *p;

  for (p = text; *p != '\0' && *p != '='; p++)
    {
      if (*p == '+')
        *p = '-';
      else if (*p == '/')
        *p = '_';
    }
  *p = '\0';

  return text;
}

static gboolean
snodo_request_state_is_base64url (const char *text,
                                  gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (text[i]) && text[i] != '-' && text[i] != '_')
      return FALSE;
  return TRUE;
}

/* Decodes @len characters already checked with
 * snodo_request_state_is_base64url(); NULL when the length is impossible. */
static guint8 *
snodo_request_state_base64url_decode (const char *text,
                                      gsize       len,
                                      gsize      *out_len)
{
  g_autofree char *standard = NULL;
  gsize i;

  if (len % 4 == 1)
    return NULL;

  standard = g_malloc (len + 3);
  for (i = 0; i < len; i++)
    {
      if (text[i] == '-')
        standard[i] = '+';
      else if (text[i] == '_')
        standard[i] = '/';
      else
        standard[i] = text[i];
    }
  while (i % 4 != 0)
    standard[i++] = '=';
  standard[i] = '\0';

  return g_base64_decode (standard, out_len);
}

/* The base64url text of the MAC of the first @len bytes of @payload. */
static void
snodo_request_state_mac (SnodoRequestStateKey *key,
                         const char           *payload,
                         gsize                 len,
                         char                  out[MAC_TEXT_LEN + 1])
{
  g_autofree char *text = NULL;
  guint8 digest[MAC_BYTES];
  gsize digest_len = sizeof digest;
  GHmac *hmac;

  hmac = g_hmac_new (G_CHECKSUM_SHA256, key->mac_key, sizeof key->mac_key);
  g_hmac_update (hmac, (const guchar *) payload, len);
  g_hmac_get_digest (hmac, digest, &digest_len);
  g_hmac_unref (hmac);

  text = snodo_request_state_base64url_encode (digest, sizeof digest);
  g_assert (strlen (text) == MAC_TEXT_LEN);
  memcpy (out, text, MAC_TEXT_LEN + 1);
}

/* Compares two strings of @len bytes in a time that does not depend on
 * where they differ. */
static gboolean
snodo_request_state_equal_constant_time (const char *a,
                                         const char *b,
                                         gsize       len)
{
  guint8 diff = 0;

  for (gsize i = 0; i < len; i++)
    diff |= (guint8) (a[i] ^ b[i]);

  return diff == 0;
}

static int
snodo_request_state_compare_names (gconstpointer a,
                                   gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
snodo_request_state_is_round_member (const char *name)
{
  return strcmp (name, "_meta") == 0 ||
         strcmp (name, "inputResponses") == 0 ||
         strcmp (name, "requestState") == 0;
}

static void
snodo_request_state_append_scalar (GString  *out,
                                   JsonNode *node)
{
  g_autofree char *text = NULL;
  gsize len = 0;

  text = snodo_json_to_string (node, &len);
  g_string_append_len (out, text, len);
}

/* A member name, escaped exactly as the JSON writer escapes strings. */
static void
snodo_request_state_append_name (GString    *out,
                                 const char *name)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), name);

  snodo_request_state_append_scalar (out, node);
}

/* Writes '{' and pushes a frame, or writes "{}" for a missing object. With
 * @skip_round_members, leaves out the members that change between rounds. */
static void
snodo_request_state_push_object (GString    *out,
                                 GArray     *stack,
                                 JsonObject *object,
                                 gboolean    skip_round_members)
{
  g_autoptr(GList) members = NULL;
  CanonicalFrame frame = { 0, };

  if (object == NULL)
    {
      g_string_append_len (out, "{}", 2);
      return;
    }

  frame.object = object;
  frame.names = g_ptr_array_new ();
  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    if (!skip_round_members || !snodo_request_state_is_round_member (l->data))
      g_ptr_array_add (frame.names, l->data);
  g_ptr_array_sort (frame.names, snodo_request_state_compare_names);
  frame.length = frame.names->len;

  g_string_append_c (out, '{');
  g_array_append_val (stack, frame);
}

static void
snodo_request_state_push_node (GString  *out,
                               GArray   *stack,
                               JsonNode *node)
{
  CanonicalFrame frame = { 0, };

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      snodo_request_state_push_object (out, stack, json_node_get_object (node), FALSE);
      break;

    case JSON_NODE_ARRAY:
      frame.array = json_node_get_array (node);
      if (frame.array == NULL)
        {
          g_string_append_len (out, "[]", 2);
          break;
        }
      frame.length = json_array_get_length (frame.array);
      g_string_append_c (out, '[');
      g_array_append_val (stack, frame);
      break;

    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      snodo_request_state_append_scalar (out, node);
      break;
    }
}

/* Appends the canonical form of @object to @out. Like the JSON writer it
 * keeps its own stack, so the depth of the tree never reaches the C stack. */
static void
snodo_request_state_append_canonical (GString    *out,
                                      JsonObject *object,
                                      gboolean    skip_round_members)
{
  g_autoptr(GArray) stack = g_array_sized_new (FALSE, FALSE, sizeof (CanonicalFrame), 16);

  snodo_request_state_push_object (out, stack, object, skip_round_members);

  while (stack->len > 0)
    {
      CanonicalFrame *top = &g_array_index (stack, CanonicalFrame, stack->len - 1);
      JsonNode *child;

      if (top->index == top->length)
        {
          g_string_append_c (out, top->names != NULL ? '}' : ']');
          g_clear_pointer (&top->names, g_ptr_array_unref);
          g_array_set_size (stack, stack->len - 1);
          continue;
        }

      if (top->index > 0)
        g_string_append_c (out, ',');

      if (top->names != NULL)
        {
          const char *name = g_ptr_array_index (top->names, top->index);

          snodo_request_state_append_name (out, name);
          g_string_append_c (out, ':');
          child = json_object_get_member (top->object, name);
        }
      else
        child = json_array_get_element (top->array, top->index);
      top->index++;

      /* This may grow the stack and move top; it is not used after. */
      snodo_request_state_push_node (out, stack, child);
    }
}

/* The lower-case hex SHA-256 of the canonical params, without the members
 * that change between rounds. */
static char *
snodo_request_state_digest (JsonObject *params)
{
  g_autoptr(GString) canonical = g_string_sized_new (256);

  snodo_request_state_append_canonical (canonical, params, TRUE);
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                      (const guchar *) canonical->str, canonical->len);
}

/* The length of @text, or @max + 1 when it is longer than @max, without
 * reading past the first byte beyond @max. */
static gsize
snodo_request_state_bounded_strlen (const char *text,
                                    gsize       max)
{
  gsize len = 0;

  while (len <= max && text[len] != '\0')
    len++;
  return len;
}

static JsonObject *
snodo_request_state_fail (GError     **error,
                          const char  *message)
{
  g_set_error_literal (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
  return NULL;
}

/* Returns the integer member @name of @object, or FALSE when it is missing
 * or is not an integer. */
static gboolean
snodo_request_state_get_int (JsonObject *object,
                             const char *name,
                             gint64     *out)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;

  *out = json_node_get_int (node);
  return TRUE;
}

static const char *
snodo_request_state_get_string (JsonObject *object,
                                const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

/**
 * snodo_request_state_key_new_random:
 * @error: return location for an error
 *
 * Creates a key from 32 bytes of the operating system's random source
 * (getrandom() or /dev/urandom, BCryptGenRandom() on Windows). States sealed
 * with it open only in this process.
 *
 * Returns: (transfer full) (nullable): a new key, or %NULL with @error set
 *   when the random source cannot be read
 */
SnodoRequestStateKey *
snodo_request_state_key_new_random (GError **error)
{
  SnodoRequestStateKey *self;
  guint8 secret[MAC_BYTES];

  if (!snodo_request_state_fill_random (secret, sizeof secret, error))
    return NULL;

  self = snodo_request_state_key_new_from_secret (secret, sizeof secret);
  snodo_request_state_wipe (secret, sizeof secret);

  return self;
}

/**
 * snodo_request_state_key_new:
 * @secret: an application secret of at least
 *   %SNODO_REQUEST_STATE_MIN_SECRET_BYTES bytes
 * @error: return location for an error
 *
 * Creates a key from a secret the application keeps, so that several
 * processes (behind a load balancer, or across a restart) open each other's
 * states. The secret should come from a CSPRNG; it is not kept.
 *
 * Returns: (transfer full) (nullable): a new key, or %NULL with
 *   %G_IO_ERROR_INVALID_ARGUMENT when @secret is too short
 */
SnodoRequestStateKey *
snodo_request_state_key_new (GBytes  *secret,
                             GError **error)
{
  gconstpointer data;
  gsize len = 0;

  g_return_val_if_fail (secret != NULL, NULL);

  data = g_bytes_get_data (secret, &len);
  if (len < SNODO_REQUEST_STATE_MIN_SECRET_BYTES)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("A request state secret must have at least %u bytes, not %lu"),
                   (guint) SNODO_REQUEST_STATE_MIN_SECRET_BYTES, (gulong) len);
      return NULL;
    }

  return snodo_request_state_key_new_from_secret (data, len);
}

SnodoRequestStateKey *
snodo_request_state_key_ref (SnodoRequestStateKey *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

void
snodo_request_state_key_unref (SnodoRequestStateKey *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, snodo_request_state_key_clear);
}

/**
 * snodo_request_state_seal:
 * @key: the key
 * @method: the method of the request ("tools/call", ...)
 * @params: (nullable): the params of the request; "_meta", "inputResponses"
 *   and "requestState" are ignored
 * @answers: (nullable): the answers collected so far (key of an input
 *   request -> the client's result for it); %NULL for none
 * @asked: (nullable) (array zero-terminated=1): the keys of the input
 *   requests of the round this state is issued with: the only answers the
 *   retry may add; %NULL or empty for none
 * @now_us: the current wall-clock time, g_get_real_time()
 * @ttl_us: how long the state stays valid, more than 0
 * @error: return location for an error
 *
 * Issues a request state for the next round of @method with @params. Only
 * reads @params and @answers, so they may be sealed or shared.
 *
 * Returns: (transfer full) (nullable): the state, or %NULL with
 *   %SNODO_RPC_ERROR_INVALID_PARAMS when it would be longer than
 *   %SNODO_REQUEST_STATE_MAX_BYTES (the answers, which come from the
 *   client, are the only part whose size is not bounded)
 */
char *
snodo_request_state_seal (SnodoRequestStateKey  *key,
                          const char            *method,
                          JsonObject            *params,
                          JsonObject            *answers,
                          const char * const    *asked,
                          gint64                 now_us,
                          gint64                 ttl_us,
                          GError               **error)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GString) payload = NULL;
  g_autofree char *digest = NULL;
  g_autofree char *encoded = NULL;
  char mac[MAC_TEXT_LEN + 1];
  gint64 expiry_ms;
  gsize encoded_len;

  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (method != NULL, NULL);
  g_return_val_if_fail (now_us >= 0, NULL);
  g_return_val_if_fail (ttl_us > 0, NULL);

  if (ttl_us > G_MAXINT64 - now_us)
    expiry_ms = G_MAXINT64 / 1000;
  else
    expiry_ms = (now_us + ttl_us) / 1000;

  digest = snodo_request_state_digest (params);

  payload = g_string_sized_new (256);
  g_string_append (payload, "{\"a\":");
  snodo_request_state_append_canonical (payload, answers, FALSE);
  g_string_append_printf (payload, ",\"d\":\"%s\",\"exp\":%" G_GINT64_FORMAT ",\"m\":",
                          digest, expiry_ms);
  snodo_request_state_append_name (payload, method);
  g_string_append (payload, ",\"q\":[");
  names = g_ptr_array_new ();
  for (gsize i = 0; asked != NULL && asked[i] != NULL; i++)
    g_ptr_array_add (names, (gpointer) asked[i]);
  g_ptr_array_sort (names, snodo_request_state_compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      if (i > 0)
        g_string_append_c (payload, ',');
      snodo_request_state_append_name (payload, g_ptr_array_index (names, i));
    }
  g_string_append_printf (payload, "],\"v\":%d}", FORMAT_VERSION);

  /* Unpadded base64 of n bytes has ceil (4n / 3) characters. Check before
   * encoding, so that huge answers are not encoded only to be dropped. */
  encoded_len = payload->len / 3 * 4 + (payload->len % 3 == 0 ? 0 : payload->len % 3 + 1);
  if (payload->len > SNODO_REQUEST_STATE_MAX_BYTES ||
      encoded_len + 1 + MAC_TEXT_LEN > SNODO_REQUEST_STATE_MAX_BYTES)
    {
      g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                   _("The input responses are too large to carry in a request state "
                     "of at most %u bytes"),
                   (guint) SNODO_REQUEST_STATE_MAX_BYTES);
      return NULL;
    }

  encoded = snodo_request_state_base64url_encode ((const guint8 *) payload->str, payload->len);
  g_assert (strlen (encoded) == encoded_len);
  snodo_request_state_mac (key, encoded, encoded_len, mac);

  return g_strconcat (encoded, ".", mac, NULL);
}

/**
 * snodo_request_state_open:
 * @key: the key
 * @state: the "requestState" the client sent
 * @method: the method of the retried request
 * @params: (nullable): the params of the retried request
 * @now_us: the current wall-clock time, g_get_real_time()
 * @asked: (out) (optional) (transfer full) (nullable): the keys of the input
 *   requests @state was issued with, or %NULL when it does not say (a state
 *   sealed before the keys were recorded)
 * @error: return location for an error
 *
 * Checks that @state was sealed with @key (or a key from the same secret),
 * has not expired, and was issued for @method and for @params (up to member
 * order and the members that change between rounds), then returns the
 * answers carried in it.
 *
 * Returns: (transfer full) (nullable): a new object with the answers, or
 *   %NULL with %SNODO_RPC_ERROR_INVALID_PARAMS
 */
JsonObject *
snodo_request_state_open (SnodoRequestStateKey  *key,
                          const char            *state,
                          const char            *method,
                          JsonObject            *params,
                          gint64                 now_us,
                          GStrv                 *asked,
                          GError               **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GStrvBuilder) keys = NULL;
  JsonNode *questions;
  g_autofree guint8 *decoded = NULL;
  g_autofree char *digest = NULL;
  char expected_mac[MAC_TEXT_LEN + 1];
  const char *dot;
  const char *mac;
  const char *sealed_method;
  const char *sealed_digest;
  JsonObject *object;
  JsonNode *answers;
  gsize decoded_len = 0;
  gsize payload_len;
  gsize len;
  gint64 version;
  gint64 expiry_ms;

  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (state != NULL, NULL);
  g_return_val_if_fail (method != NULL, NULL);

  if (asked != NULL)
    *asked = NULL;

  len = snodo_request_state_bounded_strlen (state, SNODO_REQUEST_STATE_MAX_BYTES);
  if (len > SNODO_REQUEST_STATE_MAX_BYTES)
    return snodo_request_state_fail (error, _("Invalid request state: it is too long"));

  /* Only the shape is checked before the MAC: nothing else of an
   * unauthenticated state is looked at. */
  dot = memchr (state, '.', len);
  if (dot == NULL)
    return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));
  payload_len = (gsize) (dot - state);
  mac = dot + 1;
  if (payload_len == 0 ||
      len - payload_len - 1 != MAC_TEXT_LEN ||
      !snodo_request_state_is_base64url (state, payload_len) ||
      !snodo_request_state_is_base64url (mac, MAC_TEXT_LEN))
    return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));

  /* Compared as text, so that no other spelling of the same MAC (base64
   * has spare bits in its last character) is accepted. */
  snodo_request_state_mac (key, state, payload_len, expected_mac);
  if (!snodo_request_state_equal_constant_time (expected_mac, mac, MAC_TEXT_LEN))
    return snodo_request_state_fail (error, _("Invalid request state: it was not issued by "
                                              "this server or was altered"));

  /* From here on the payload was written by a holder of the key. It is
   * still checked, so that another version of this format fails cleanly. */
  decoded = snodo_request_state_base64url_decode (state, payload_len, &decoded_len);
  if (decoded != NULL)
    root = snodo_json_parse ((const char *) decoded, decoded_len, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));
  object = json_node_get_object (root);

  if (!snodo_request_state_get_int (object, "v", &version))
    return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));
  if (version != FORMAT_VERSION)
    return snodo_request_state_fail (error, _("Invalid request state: its format version is "
                                              "not supported"));

  sealed_method = snodo_request_state_get_string (object, "m");
  sealed_digest = snodo_request_state_get_string (object, "d");
  answers = json_object_get_member (object, "a");
  if (sealed_method == NULL || sealed_digest == NULL ||
      answers == NULL || !JSON_NODE_HOLDS_OBJECT (answers) ||
      !snodo_request_state_get_int (object, "exp", &expiry_ms) ||
      expiry_ms < 0 || expiry_ms > G_MAXINT64 / 1000)
    return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));

  if (now_us >= expiry_ms * 1000)
    return snodo_request_state_fail (error, _("Invalid request state: it has expired"));

  if (strcmp (sealed_method, method) != 0)
    return snodo_request_state_fail (error, _("Invalid request state: it was issued for "
                                              "another method"));

  digest = snodo_request_state_digest (params);
  if (strcmp (sealed_digest, digest) != 0)
    return snodo_request_state_fail (error, _("Invalid request state: it was issued for "
                                              "other parameters"));

  /* "q", the keys asked, is absent from states sealed before it existed. */
  questions = json_object_get_member (object, "q");
  if (questions != NULL)
    {
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (questions))
        return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));
      array = json_node_get_array (questions);
      keys = g_strv_builder_new ();
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *key_node = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (key_node) ||
              json_node_get_value_type (key_node) != G_TYPE_STRING)
            return snodo_request_state_fail (error, _("Invalid request state: it is malformed"));
          g_strv_builder_add (keys, json_node_get_string (key_node));
        }
      if (asked != NULL)
        *asked = g_strv_builder_end (keys);
    }

  return json_object_ref (json_node_get_object (answers));
}

/* Fills @buf from the operating system's CSPRNG, for other unguessable
 * values (HTTP session ids). */
gboolean
snodo_random_fill (guint8  *buf,
                   gsize    len,
                   GError **error)
{
  return snodo_request_state_fill_random (buf, len, error);
}
