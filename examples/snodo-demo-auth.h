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
/* Protects @transport as the options say (and adds the tool whoami to
 * @server); FALSE, with one line on standard error, when they are wrong. */
gboolean demo_auth_setup  (GApplicationCommandLine *command_line,
                           GVariantDict            *options,
                           SnodoServer             *server,
                           SnodoHttpTransport      *transport);
#endif

G_END_DECLS
