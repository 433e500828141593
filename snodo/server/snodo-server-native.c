/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Whether a tool's handler is native code (snodo_server_add_tool()). */

#define _GNU_SOURCE
#include "config.h"

#include <string.h>
#ifdef HAVE_DLADDR
# include <dlfcn.h>
#endif

#include "snodo-base-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"

/* Whether @func is a function of a loaded program or library, as a C
 * handler is, rather than a closure that a language binding (PyGObject,
 * GJS) made at run time through libffi: such a handler must run on the
 * main context, never on a worker thread. */
gboolean
snodo_server_handler_is_native (SnodoToolFunc func)
{
#ifdef HAVE_DLADDR
  Dl_info info;

  if (dladdr ((gpointer) func, &info) == 0 || info.dli_fname == NULL)
    return FALSE;
  if (strstr (info.dli_fname, "libffi") != NULL)
    return FALSE;
#elif defined(G_OS_WIN32)
  g_autofree char *module = snodo_win32_module_of_address ((gconstpointer) func);

  if (module == NULL)
    return FALSE;
  if (strstr (module, "libffi") != NULL)
    return FALSE;
#endif
  return TRUE;
}
