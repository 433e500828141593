/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

#include "snodo-demo-auth.h"

G_BEGIN_DECLS

#if SNODO_HAS_HTTP_TRANSPORT
typedef struct _DemoReload DemoReload;

/* From now on SIGHUP reads @auth's token file (nullable; taken) and the
 * certificate in @certificate_file and @key_file (nullable) again, and
 * @transport serves with them. */
DemoReload *demo_reload_new  (SnodoHttpTransport *transport,
                              DemoAuth           *auth,
                              const char         *certificate_file,
                              const char         *key_file);
void        demo_reload_free (DemoReload         *reload);
#endif

G_END_DECLS
