/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-private.h"

/* A placeholder until resources, prompts and completion land: an empty
 * catalog. */

struct _SnodoCatalog
{
  SnodoServer *server;
};

SnodoCatalog *
snodo_catalog_new (SnodoServer *server)
{
  SnodoCatalog *self = g_new0 (SnodoCatalog, 1);

  self->server = server;
  return self;
}

void
snodo_catalog_free (SnodoCatalog *self)
{
  g_free (self);
}

void
snodo_catalog_add_capabilities (SnodoCatalog *self,
                                JsonObject   *capabilities)
{
}
