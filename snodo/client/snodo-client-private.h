/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* What the files of SnodoClient share: snodo-client.c is the object, the
 * connection and the handshake; snodo-client-methods.c the requests of
 * each server feature, made with snodo_client_start_request(). */

#pragma once

#include "snodo-client.h"

G_BEGIN_DECLS

void        snodo_client_start_request (SnodoClient  *self,
                                        const char   *method,
                                        JsonObject   *params,
                                        GCancellable *cancellable,
                                        GTask        *task);
JsonObject *snodo_client_copy_params   (JsonObject   *params);

G_END_DECLS
