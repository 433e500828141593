/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-server.h"
#include "snodo-wire-private.h"

G_BEGIN_DECLS

/*
 * The rules of Streamable HTTP that need no socket: what a line the server
 * sends is, which HTTP status an error gets, and the checks of request
 * headers. Pure, so that they can be tested on their own.
 */

/* Returns the value of the request header @name, NULL when it is absent,
 * or SNODO_HTTP_HEADER_REPEATED when the request has it more than once. */
typedef const char *(*SnodoHttpHeaderFunc) (gpointer    data,
                                            const char *name);

/* What a SnodoHttpHeaderFunc returns for a header given more than once:
 * the checks refuse it (a proxy that reads the first copy and a server that
 * reads the last would see different requests). */
extern const char snodo_http_header_repeated[];
#define SNODO_HTTP_HEADER_REPEATED snodo_http_header_repeated

const char *snodo_http_get_request_header       (gpointer             data,
                                                 const char          *name);

gboolean    snodo_http_line_is_response         (GBytes              *line,
                                                 int                 *code);
guint       snodo_http_status_for_code          (int                  code);
gboolean    snodo_http_accepts                  (const char          *accept,
                                                 const char          *type);
gboolean    snodo_http_host_is_loopback         (const char          *host);
gboolean    snodo_http_host_header_is_loopback  (const char          *value);
gboolean    snodo_http_host_header_allowed      (const char          *value,
                                                 const char * const  *allowed);
gboolean    snodo_http_origin_is_loopback       (const char          *origin);
char       *snodo_http_decode_header_value      (const char          *value,
                                                 gboolean            *invalid);
const char *snodo_http_params_string            (JsonObject          *params,
                                                 const char          *name);
gboolean    snodo_http_param_matches            (const char          *header,
                                                 JsonNode            *value);
char       *snodo_http_check_param_headers      (SnodoServer         *server,
                                                 SnodoHttpHeaderFunc  header_func,
                                                 gpointer             header_data,
                                                 SnodoFrame          *frame);
char       *snodo_http_check_standard_headers   (SnodoServer         *server,
                                                 SnodoHttpHeaderFunc  header_func,
                                                 gpointer             header_data,
                                                 SnodoFrame          *frame);

G_END_DECLS
