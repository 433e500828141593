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

/* snodo servers [--config FORMAT] [ID…], with @config the format or NULL
 * and @argv the IDs; the exit status. */
int snodo_cli_servers (const char  *config,
                       int          argc,
                       char       **argv);
/* snodo proxy URL | -- COMMAND [ARG…], with @argv its arguments after
 * "proxy" (snodo-proxy.c); the exit status (0: serving, @app held until
 * the local client leaves, then snodo_cli_proxy_status() says how it
 * ended). */
int snodo_cli_proxy        (GApplication *app,
                            GVariantDict *options,
                            int           argc,
                            char        **argv);
int snodo_cli_proxy_status (void);
/* snodo proxy --serve NAME=COMMAND|URL … (snodo-proxy-serve.c), likewise. */
int snodo_cli_proxy_serve        (GApplication *app,
                                  GVariantDict *options,
                                  int           argc,
                                  char        **argv);
int snodo_cli_proxy_serve_status (void);

/* --header, --bearer-token-file, --cacert (only with @http) and
 * --request-timeout (snodo-cli-options.c): checked, a usage error in
 * G_OPTION_ERROR; then applied to a client made. */
gboolean snodo_cli_check_client_options (GVariantDict  *options,
                                         gboolean       http,
                                         GError       **error);
gboolean snodo_cli_apply_client_options (SnodoClient   *client,
                                         GVariantDict  *options,
                                         GError       **error);
/* Whether the user gave the token (--bearer-token-file, or an
 * Authorization header); if not, the sign-in to an HTTP server: the
 * user's registrations and tokens kept in the user's store (or
 * --credentials-dir), the sign-in URL on standard error and in the
 * browser (snodo-cli-options.c). */
gboolean snodo_cli_has_own_authorization (GVariantDict  *options);
gboolean snodo_cli_set_up_oauth          (SnodoClient   *client,
                                          GVariantDict  *options,
                                          GError       **error);
/* snodo-elicit.c: whether standard input is a terminal; and answering
 * the server's elicitation/create there (declares the capability). */
gboolean snodo_cli_stdin_is_terminal (void);
void     snodo_cli_elicit_install    (SnodoClient *client);
