/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SnodoClient         SnodoClient;
typedef struct _SnodoExecutor       SnodoExecutor;
typedef struct _SnodoInvocation     SnodoInvocation;
typedef struct _SnodoServer         SnodoServer;
typedef struct _SnodoSession        SnodoSession;
typedef struct _SnodoStdioTransport SnodoStdioTransport;
typedef struct _SnodoTool           SnodoTool;
typedef struct _SnodoWork           SnodoWork;

typedef struct _SnodoPrompt           SnodoPrompt;
typedef struct _SnodoResource         SnodoResource;
typedef struct _SnodoResourceTemplate SnodoResourceTemplate;

G_END_DECLS
