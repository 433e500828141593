/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* What Windows offers in place of the Unix calls Snodo uses. */

#include "config.h"

#include <windows.h>

#include "snodo-win32-private.h"

char *
snodo_win32_module_of_address (gconstpointer address)
{
  HMODULE module = NULL;
  wchar_t path[MAX_PATH + 1];
  DWORD len;

  if (!GetModuleHandleExW (GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                           (LPCWSTR) address, &module))
    return NULL;
  len = GetModuleFileNameW (module, path, MAX_PATH);
  if (len == 0 || len >= MAX_PATH)
    return NULL;
  path[len] = 0;
  return g_utf16_to_utf8 ((const gunichar2 *) path, -1, NULL, NULL, NULL);
}
