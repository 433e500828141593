/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

/* snodo actions BUS-NAME [OBJECT-PATH], with @argv its arguments after
 * "actions"; the exit status (0: serving, @app held until the client
 * leaves). */
int snodo_cli_actions (GApplication *app,
                       int           argc,
                       char        **argv);

/* snodo servers [--config FORMAT] [ID…], with @config the format or NULL
 * and @argv the IDs; the exit status. */
int snodo_cli_servers (const char  *config,
                       int          argc,
                       char       **argv);
