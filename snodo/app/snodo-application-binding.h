/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-server.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_APPLICATION_BINDING (snodo_application_binding_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoApplicationBinding, snodo_application_binding, SNODO, APPLICATION_BINDING, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoApplicationBinding *snodo_application_binding_new               (GApplication            *application,
                                                                      SnodoServer             *server);
SNODO_AVAILABLE_IN_ALL
GApplication            *snodo_application_binding_get_application   (SnodoApplicationBinding *self);
SNODO_AVAILABLE_IN_ALL
SnodoServer             *snodo_application_binding_get_server        (SnodoApplicationBinding *self);
SNODO_AVAILABLE_IN_ALL
const char              *snodo_application_binding_get_registry_name (SnodoApplicationBinding *self);
SNODO_AVAILABLE_IN_ALL
void                     snodo_application_binding_set_registry_name (SnodoApplicationBinding *self,
                                                                      const char              *registry_name);
SNODO_AVAILABLE_IN_ALL
gboolean                 snodo_application_binding_get_stdio_by_default (SnodoApplicationBinding *self);
SNODO_AVAILABLE_IN_ALL
void                     snodo_application_binding_set_stdio_by_default (SnodoApplicationBinding *self,
                                                                         gboolean                 stdio_by_default);
SNODO_AVAILABLE_IN_ALL
int                      snodo_application_binding_get_exit_status   (SnodoApplicationBinding *self);
SNODO_AVAILABLE_IN_ALL
gboolean                 snodo_application_binding_get_serving       (SnodoApplicationBinding *self);
SNODO_AVAILABLE_IN_ALL
void                     snodo_application_binding_close             (SnodoApplicationBinding *self);

G_END_DECLS
