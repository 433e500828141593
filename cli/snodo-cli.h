/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <snodo/snodo.h>

/* snodo actions BUS-NAME [OBJECT-PATH], with @argv its arguments after
 * "actions"; the exit status (0: serving, @app held until the client
 * leaves). */
int snodo_cli_actions (GApplication *app,
                       int           argc,
                       char        **argv);

/* snodo-elicit.c: whether standard input is a terminal; and answering
 * the server's elicitation/create there (declares the capability). */
gboolean snodo_cli_stdin_is_terminal (void);
void     snodo_cli_elicit_install    (SnodoClient *client);
