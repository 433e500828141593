/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The application layer's private part: the binding's structure, shared by
 * snodo-application-binding.c (the options, serving in this process) and
 * snodo-application-remote.c (handing standard input and output to the
 * primary instance, and serving what another instance hands over). */

#pragma once

#ifndef GETTEXT_PACKAGE
# error "config.h must be included before snodo-app-private.h"
#endif

#include <gio/gio.h>

#include "snodo-application-binding.h"
#include "snodo-stdio-transport.h"

G_BEGIN_DECLS

/* The D-Bus interface the binding exports on the application's object path
 * in the primary instance, and the exit status of a failed hand-over. */
#define SNODO_APPLICATION_INTERFACE "org.snodo.Application1"

struct _SnodoApplicationBinding
{
  GObject           parent_instance;

  /* Weak: the application owns the binding (object data), not the other
   * way round. NULL once it is finalized. */
  GApplication     *application;
  /* Owned: what is served. */
  SnodoServer      *server;
  /* Owned, nullable: the name for --print-server-json. */
  char             *registry_name;
  /* Serve on standard input and output unless HTTP is asked for. */
  gboolean          stdio_by_default;

  /* What the option group parsed (its entries point here); read, merged
   * with the options dictionary, in handle-local-options. */
  gboolean          opt_stdio;
  gboolean          opt_print_server_json;
  char             *opt_http;           /* "" for --mcp-http without a value */
  char             *opt_unix;
  char             *opt_unix_mode;
  char             *opt_unix_group;
  char             *opt_tls_certificate;
  char             *opt_tls_key;
  char             *opt_allowed_hosts;
  char             *opt_allowed_origins;

  /* Owned: the transports open now (SnodoStdioTransport, and
   * SnodoHttpTransport where built), each holding the application once. */
  GPtrArray        *transports;
  /* SIGINT and SIGTERM (or the console's handler on Windows) while
   * something is served. */
  guint             sigint_id;
  guint             sigterm_id;
  /* 0 so far; 1 once the process's own standard output failed. */
  int               exit_status;

  /* In the primary instance: the connection and registration id of the
   * exported interface, or NULL and 0. */
  GDBusConnection  *connection;
  guint             registration_id;
};

/* snodo-application-binding.c */
void      snodo_application_binding_track       (SnodoApplicationBinding *self,
                                                 GObject                 *transport);
void      snodo_application_binding_untrack     (SnodoApplicationBinding *self,
                                                 GObject                 *transport);

/* snodo-application-remote.c: Unix only; elsewhere they do nothing. */
gboolean  snodo_application_binding_hand_over   (SnodoApplicationBinding *self,
                                                 int                     *out_status);
void      snodo_application_binding_export      (SnodoApplicationBinding *self);
void      snodo_application_binding_unexport    (SnodoApplicationBinding *self);

G_END_DECLS
