/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The HTTP+SSE transport of 2024-11-05 (snodo-client-legacy-sse.c), which
 * snodo-client-http.c falls back to. Private. */

#pragma once

#include <libsoup/soup.h>

#include "snodo-client-private.h"

G_BEGIN_DECLS

typedef struct _SnodoClientLegacy SnodoClientLegacy;

/* Opens the GET stream at @uri and POSTs @line (the initialize of @key,
 * which the server @refused at @uri) to the endpoint it names; when no
 * stream or endpoint comes, the request fails with @refused. */
SnodoClientLegacy *snodo_client_legacy_new  (SnodoClient       *self,
                                             SoupSession       *session,
                                             GUri              *uri,
                                             GBytes            *line,
                                             const char        *key,
                                             const GError      *refused);
/* POSTs @line (taken) to the endpoint, once known; a refusal fails the
 * request of @key (nullable). */
void               snodo_client_legacy_post (SnodoClientLegacy *legacy,
                                             GBytes            *line,
                                             const char        *key);
/* Ends the stream and every POST. */
void               snodo_client_legacy_stop (SnodoClientLegacy *legacy);
void               snodo_client_legacy_free (SnodoClientLegacy *legacy);

/* snodo-client-http.c: the fallback of @self's HTTP side, or NULL. */
SnodoClientLegacy *snodo_client_http_get_legacy (SnodoClient *self);

G_END_DECLS
