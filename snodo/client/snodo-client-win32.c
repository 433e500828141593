/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A spawned server ends with its client's process, on Windows.
 *
 * One Job Object for the whole process, with
 * JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, and its only handle never closed:
 * when the process ends, however it ends, the system closes the handle and
 * kills every process in the job. Each server is assigned to it as soon as
 * it is spawned; the processes it starts in turn are in the job too. */

#include "config.h"

#include <windows.h>

#include "snodo-client-win32-private.h"

static HANDLE
client_job (void)
{
  static gsize job = 0;

  if (g_once_init_enter (&job))
    {
      JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0, };
      HANDLE handle = CreateJobObjectW (NULL, NULL);

      if (handle != NULL)
        {
          limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
          if (!SetInformationJobObject (handle, JobObjectExtendedLimitInformation, &limits, sizeof limits))
            {
              CloseHandle (handle);
              handle = NULL;
            }
        }
      /* 1, not NULL, marks "tried and failed" for g_once_init_leave(). */
      g_once_init_leave (&job, handle != NULL ? (gsize) handle : 1);
    }
  return job == 1 ? NULL : (HANDLE) job;
}

gboolean
snodo_client_win32_tie_to_job (GSubprocess *subprocess)
{
  const char *identifier = g_subprocess_get_identifier (subprocess);
  HANDLE job = client_job ();
  HANDLE process;
  gboolean tied;

  if (job == NULL || identifier == NULL)
    {
      g_warning ("The server will not end with this process: no job object (%lu)",
                 (unsigned long) GetLastError ());
      return FALSE;
    }
  process = OpenProcess (PROCESS_SET_QUOTA | PROCESS_TERMINATE, FALSE,
                         (DWORD) g_ascii_strtoull (identifier, NULL, 10));
  if (process == NULL)
    return FALSE;   /* already gone */
  tied = AssignProcessToJobObject (job, process);
  if (!tied)
    g_warning ("The server will not end with this process: its job object refused it (%lu)",
               (unsigned long) GetLastError ());
  CloseHandle (process);
  return tied;
}
