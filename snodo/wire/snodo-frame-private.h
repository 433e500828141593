/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-json-private.h"

G_BEGIN_DECLS

/*
 * Decoding one received message (a line without its '\n', or an HTTP body)
 * and encoding the messages the server sends. Pure: no I/O, no state.
 *
 * Decoding rules, in order:
 *  - a trailing '\r' is removed; an empty line (or only JSON white space) is
 *    IGNORE;
 *  - invalid UTF-8 or unparseable JSON: ERROR -32700, id null;
 *  - valid JSON that is not an object (array, number, string, ...): ERROR
 *    -32600, id null;
 *  - an object's "id", when present, must be a string or an integer
 *    (MCP forbids null); an id that is present but of another type makes the
 *    message ERROR -32600 with id null;
 *  - "jsonrpc" must be the string "2.0";
 *  - with "method" (a non-empty string) and a valid id: REQUEST; without id:
 *    NOTIFICATION;
 *  - without "method", with a valid id and exactly one of "result" (an
 *    object) or "error" (an object with an integer "code"): RESPONSE;
 *  - "params", when present, must be an object;
 *  - anything else is ERROR -32600, with the id when it was valid, id null
 *    otherwise; except that a message with no id but a "method" member (a
 *    notification, however malformed) is DROP: notifications are never
 *    answered; and that a message with neither "method" nor "result" nor
 *    "error" is answered with id null whatever its id (it is no request),
 *    the id's key left in response_key: a caller with a request of that
 *    id in progress takes it for a malformed response, and drops it.
 */

typedef enum
{
  SNODO_FRAME_IGNORE,
  SNODO_FRAME_REQUEST,
  SNODO_FRAME_NOTIFICATION,
  SNODO_FRAME_RESPONSE,
  SNODO_FRAME_ERROR,
  SNODO_FRAME_DROP,
} SnodoFrameKind;

typedef struct
{
  SnodoFrameKind  kind;
  /* The whole message object: from snodo_frame_decode() for REQUEST,
   * NOTIFICATION and RESPONSE; from snodo_frame_decode_deferring() for
   * RESPONSE only (its "jsonrpc", "id", "result", "error" and "params"),
   * which leaves a request's or notification's root object unbuilt.
   * Owned. */
  JsonNode       *message;
  /* "method" (REQUEST, NOTIFICATION): borrowed from message or
   * method_node (snodo_frame_decode()), else (a request or notification
   * decoded without building its root object) a static string for the
   * methods of MCP, or method_copy. */
  const char     *method;
  char           *method_copy;
  /* "params" object, borrowed from params_node; NULL when absent. */
  JsonObject     *params;
  /* The nodes of "method" and "params" (REQUEST, NOTIFICATION, RESPONSE;
   * NULL when absent; method_node also when the root object was not
   * built). A reference: with message set they are members of it, else
   * they have no parent. Owned. */
  JsonNode       *method_node;
  JsonNode       *params_node;
  /* snodo_frame_decode_lazy(): params (an object) was not built: its
   * members are here (params and params_node are NULL until
   * snodo_frame_get_params() builds it). */
  gboolean        params_unbuilt;
  SnodoJsonMembers params_members;
  /* A copy of "id" (REQUEST, RESPONSE, and ERROR when it was readable);
   * NULL means the error answer carries "id": null. Owned. */
  JsonNode       *id;
  /* snodo_frame_id_key (id) when id is set. Owned. */
  char           *key;
  /* ERROR of a message with a valid id but no "method", "result" or
   * "error": the key of that id (id and key are NULL). A caller awaiting
   * an answer to a request of its own of this id drops the message (a
   * malformed response) instead of answering it. Owned. */
  char           *response_key;
  /* ERROR: the code and message to answer with. DROP: error_message says
   * why, for logging only (error_code is 0). Owned. */
  int             error_code;
  char           *error_message;
  /* A string of the message holds U+0000, which handlers cannot be given
   * (json-glib strings end at NUL): REQUEST, NOTIFICATION, RESPONSE. */
  gboolean        has_nul;
  /* snodo_frame_decode_deferring(): the JSON text of the member of the
   * message's params that was not built (an object; a null node holds its
   * place), NUL-terminated; NULL when there was none. REQUEST,
   * NOTIFICATION, RESPONSE. Owned. */
  char           *deferred;
  gsize           deferred_len;
  /* Where the members of deferred are, as the reader found them. */
  SnodoJsonSpans  deferred_spans;
  /* An estimate of the bytes the decoded message holds in memory (its
   * tree and deferred text), counted by the reader as it built them: what
   * a request costs while it is answered. REQUEST, NOTIFICATION,
   * RESPONSE. */
  gsize           size;
} SnodoFrame;

void      snodo_frame_decode             (const char  *data,
                                          gsize        len,
                                          SnodoFrame  *frame);
/* The same, except that the member @deferred of params, when it is an
 * object, is not built: it is checked as thoroughly (the frame is the same
 * kind, with the same errors), and left as text in frame->deferred; and
 * that a request's or notification's root object is not built either
 * (message is NULL; method, params, id and key are the same). */
void      snodo_frame_decode_deferring   (const char  *data,
                                          gsize        len,
                                          const char  *deferred,
                                          SnodoFrame  *frame);
/* The same again, except that params, when it is an object of few
 * members, is not built either (frame->params_unbuilt). */
void      snodo_frame_decode_lazy        (const char  *data,
                                          gsize        len,
                                          const char  *deferred,
                                          SnodoFrame  *frame);
/* snodo_frame_decode_deferring() (@lazy FALSE) or snodo_frame_decode_lazy()
 * (TRUE) of a text the caller owns and has no further use for: it is
 * written over while it is read, and what it holds afterwards is
 * unspecified. A long string is then copied once into its node, not
 * twice (see snodo_json_parse_top()). */
void      snodo_frame_decode_in_place    (char        *data,
                                          gsize        len,
                                          const char  *deferred,
                                          gboolean     lazy,
                                          SnodoFrame  *frame);
/* params (built now if it was not); NULL when absent. */
JsonObject *snodo_frame_get_params       (SnodoFrame  *frame);
/* The member @name of params, built or not; NULL when absent. */
JsonNode  *snodo_frame_get_param         (SnodoFrame  *frame,
                                          const char  *name);
void      snodo_frame_clear              (SnodoFrame  *frame);

/* "i:<n>" for an integer id, "s:<string>" for a string id, NULL otherwise.
 * String and integer ids with the same text are different ids. */
char     *snodo_frame_id_key             (JsonNode    *id);

/* Encoders: each returns one complete line, ending with '\n'. @id NULL
 * writes "id": null. @result and @params are not modified. */
GBytes   *snodo_frame_encode_result      (JsonNode    *id,
                                          JsonNode    *result);
GBytes   *snodo_frame_encode_result_tail   (JsonNode           *id,
                                            JsonNode           *result,
                                            const char         *tail);
GBytes   *snodo_frame_encode_result_shaped (JsonNode           *id,
                                           JsonNode           *result,
                                           const char * const *drop,
                                           JsonObject         *extra);
GBytes   *snodo_frame_encode_error       (JsonNode    *id,
                                          int          code,
                                          const char  *message,
                                          JsonNode    *data);
GBytes   *snodo_frame_encode_notification (const char *method,
                                          JsonNode    *params);
GBytes   *snodo_frame_encode_request     (JsonNode    *id,
                                          const char  *method,
                                          JsonNode    *params);

/* For an encoder that writes a result's JSON text itself: the envelope up
 * to the result, with room for @reserve bytes of line (so that the caller
 * can spare it growing), then (after the caller appended the result) its
 * end. */
GString  *snodo_frame_begin_result       (JsonNode    *id,
                                          gsize        reserve);
GBytes   *snodo_frame_end_result         (GString     *out);
/* The same in @out, a GString of the caller's (not from g_string_new()):
 * begin gives it a buffer of @size bytes (grown as needed), end makes that
 * buffer the line. */
void      snodo_frame_begin_result_in    (GString     *out,
                                          JsonNode    *id,
                                          gsize        size);
GBytes   *snodo_frame_end_result_in      (GString     *out);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SnodoFrame, snodo_frame_clear)

G_END_DECLS
