/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * A server process driven through real pipes: the test writes to its
 * standard input and reads newline-delimited JSON from its standard output.
 * Every wait is bounded; a bound that runs out fails the test.
 */

typedef struct _TestProcess TestProcess;

TestProcess *test_process_spawn         (const char * const *argv);
/* Spawns the program named by the environment variable @program_variable
 * (set by the build) with the options that follow, NULL-terminated. */
TestProcess *test_process_spawn_program (const char   *program_variable,
                                         const char   *first_option,
                                         ...);
/* Sends tools/call for @tool and reads its answer. */
JsonNode    *test_process_call_tool     (TestProcess  *self,
                                         gint64        id,
                                         const char   *tool,
                                         const char   *arguments_json,
                                         guint         timeout_ms);
void         test_process_free          (TestProcess  *self);
GPid         test_process_get_pid       (TestProcess  *self);
void         test_process_send          (TestProcess  *self,
                                         const char   *line);
void         test_process_send_bytes    (TestProcess  *self,
                                         const void   *data,
                                         gsize         len);
void         test_process_close_stdin   (TestProcess  *self);
void         test_process_close_stdout  (TestProcess  *self);
/* The next line of output, raw and without its newline; NULL at end of
 * output, or after @timeout_ms (then *@timed_out is set). */
char        *test_process_read_line     (TestProcess  *self,
                                         guint         timeout_ms,
                                         gboolean     *timed_out);
/* The next message, or NULL at end of output or after @timeout_ms. */
JsonNode    *test_process_read          (TestProcess  *self,
                                         guint         timeout_ms);
/* Reads messages until one with this integer id arrives. */
JsonNode    *test_process_read_id       (TestProcess  *self,
                                         gint64        id,
                                         guint         timeout_ms);
/* The raw text of the last message returned by the read functions. */
const char  *test_process_get_last_line (TestProcess *self);
/* Waits for the process to exit; returns its exit status, -1 on timeout. */
int          test_process_wait          (TestProcess  *self,
                                         guint         timeout_ms);
/* Everything the process wrote to standard error so far (after exit: all). */
char        *test_process_dup_stderr    (TestProcess  *self);
/* Reads and returns all of the remaining standard output, raw. */
GBytes      *test_process_read_rest     (TestProcess  *self,
                                         guint         timeout_ms);
/* A field of /proc/PID/status in kB (e.g. "VmHWM"), or -1. */
gint64       test_process_status_kb     (TestProcess  *self,
                                         const char   *field);
void         test_process_initialize    (TestProcess  *self,
                                         const char   *version);

/* Shortcuts to read a result. */
gint64       test_message_get_id        (JsonNode     *message);
gint64       test_message_get_error_code (JsonNode    *message);
gboolean     test_message_id_is_null    (JsonNode     *message);
const char  *test_message_get_text      (JsonNode     *message);
gboolean     test_message_is_tool_error (JsonNode     *message);
char        *test_tool_call             (gint64        id,
                                         const char   *tool,
                                         const char   *arguments_json);

G_END_DECLS
