/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

G_BEGIN_DECLS

#if SNODO_HAS_HTTP_TRANSPORT
/* The option entries of the demo's authorization. */
extern const GOptionEntry demo_auth_entries[];

/* Whether an option of the authorization is given. */
gboolean demo_auth_wanted (GVariantDict            *options);
/* The bearer tokens of --bearer-token-file, which a reload reads again. */
typedef struct _DemoAuth DemoAuth;

/* The authorization the options ask for (and adds the tool whoami to
 * @server), in *@out_authorization, with *@out_auth set to its tokens (both
 * left alone without --bearer-token-file); FALSE, with one line on standard
 * error, when they are wrong. */
gboolean    demo_auth_setup    (GVariantDict             *options,
                                SnodoServer              *server,
                                SnodoHttpAuthorization  **out_authorization,
                                DemoAuth                **out_auth);
/* Reads the token file again: a new table of tokens, or NULL with @error
 * set; demo_auth_replace() makes it the one requests are checked with. */
GHashTable *demo_auth_read     (DemoAuth                 *auth,
                                GError                  **error);
void        demo_auth_replace  (DemoAuth                 *auth,
                                GHashTable               *tokens);
const char *demo_auth_get_file (DemoAuth                 *auth);
void        demo_auth_free     (DemoAuth                 *auth);
#endif

G_END_DECLS
