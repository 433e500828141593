/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The requestState of a multi round-trip request (protocol 2026-07-28).
 *
 * A server that needs input answers tools/call, prompts/get or
 * resources/read with an "input_required" result carrying an opaque
 * "requestState"; the client retries the same method with the same params
 * plus "inputResponses" and the state echoed. The server keeps no session,
 * so the answers collected in earlier rounds travel inside the state. The
 * state comes back from the client, so it is never trusted as sent: it is
 * authenticated with HMAC-SHA256, it expires, and it is bound to the method
 * and to the params of the request it was issued for.
 *
 * Format (only base64url characters and one '.'):
 *
 *   base64url(payload) "." base64url(HMAC-SHA256(mac_key, base64url(payload)))
 *
 * base64url is RFC 4648 section 5 without padding; the MAC covers the
 * encoded payload exactly as it appears in the state. The payload is JSON:
 *
 *   {"a":<answers>,"d":"<params digest>","exp":<expiry>,"m":"<method>",
 *    "q":[<keys asked>],"v":1}
 *
 *  - a: the answers object given to seal, returned by open;
 *  - d: lower-case hex SHA-256 of the canonical form of params;
 *  - exp: the expiry in milliseconds since the Unix epoch (an integer);
 *  - m: the method;
 *  - q: the keys of the input requests the state was issued with, sorted:
 *    the only answers a retry may add (absent from states of older builds,
 *    which open as "unknown");
 *  - v: the format version, 1.
 *
 * The canonical form of a JSON value is what snodo_json_to_string() writes
 * after sorting every object's members by name (byte order of their UTF-8),
 * at every depth. It ignores member order, which a client may change when it
 * re-serialises params, but not values: 1, 1.0 and "1" are three different
 * values. For the digest, the top-level members "_meta", "inputResponses" and
 * "requestState" of params are left out (they legitimately differ between
 * rounds); nested members of those names count. NULL params are {}.
 *
 * mac_key is not the secret itself: it is HMAC-SHA256(secret,
 * "Snodo request state v1"), so that an application may use its secret for
 * other purposes too without one use's MACs standing for another's.
 *
 * A state longer than SNODO_REQUEST_STATE_MAX_BYTES is never issued nor
 * opened. Times are wall-clock microseconds (g_get_real_time()), because
 * another process, maybe on another machine, may open the state.
 *
 * Errors of open are SNODO_RPC_ERROR_INVALID_PARAMS, one message per cause
 * (too long, malformed, not authentic, unsupported version, expired, other
 * method, other params). No input makes it emit a warning or a critical.
 * A key is immutable: any number of threads may use it at once.
 */

#define SNODO_REQUEST_STATE_MAX_BYTES         65536
#define SNODO_REQUEST_STATE_MIN_SECRET_BYTES  32

typedef struct _SnodoRequestStateKey SnodoRequestStateKey;

SnodoRequestStateKey *snodo_request_state_key_new_random (GError               **error);
SnodoRequestStateKey *snodo_request_state_key_new        (GBytes                *secret,
                                                          GError               **error);
SnodoRequestStateKey *snodo_request_state_key_ref        (SnodoRequestStateKey  *self);
void                  snodo_request_state_key_unref      (SnodoRequestStateKey  *self);

char                 *snodo_request_state_seal           (SnodoRequestStateKey  *key,
                                                          const char            *method,
                                                          JsonObject            *params,
                                                          JsonObject            *answers,
                                                          const char * const    *asked,
                                                          gint64                 now_us,
                                                          gint64                 ttl_us,
                                                          GError               **error);
JsonObject           *snodo_request_state_open           (SnodoRequestStateKey  *key,
                                                          const char            *state,
                                                          const char            *method,
                                                          JsonObject            *params,
                                                          gint64                 now_us,
                                                          GStrv                 *asked,
                                                          GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoRequestStateKey, snodo_request_state_key_unref)

gboolean              snodo_random_fill                  (guint8                *buf,
                                                          gsize                  len,
                                                          GError               **error);

G_END_DECLS
