/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

G_BEGIN_DECLS

/* Parses @json strictly with json-glib, aborting the test on error. */
JsonNode *snodo_test_parse (const char *json);

/* Compares two JSON documents structurally (member order does not matter;
 * integer 1 and double 1.0 are equal). */
gboolean  snodo_test_json_equal (JsonNode *a,
                                 JsonNode *b);

/* Iterates the thread-default main context until *flag is TRUE or
 * @timeout_ms passed; returns *flag. */
gboolean  snodo_test_wait_for (const gboolean *flag,
                               guint           timeout_ms);

/*
 * A server served by a SnodoStdioTransport over pipes, with the test at the
 * other ends: it writes request lines and reads the answers, one line at a
 * time. The transport must close cleanly when the test closes its end.
 */
typedef struct
{
  SnodoServer         *server;
  SnodoStdioTransport *transport;
  /* The test's ends of the pipes. */
  int                  write_fd;
  GDataInputStream    *answers;
  /* The id of the next request (fixtures number their requests). */
  gint64               next_id;
  gboolean             closed;
} SnodoTestPipe;

/* A server "test" 1 and its started transport. */
void      snodo_test_pipe_set_up    (SnodoTestPipe *pipe);
/* The same for @server (a new one if NULL), which it references: several
 * connections to one server. */
void      snodo_test_pipe_set_up_for (SnodoTestPipe *pipe,
                                      SnodoServer   *server);
/* Closes the test's end and waits for the transport to close; the server
 * is only let go of. */
void      snodo_test_pipe_close     (SnodoTestPipe *pipe);
/* Closes the test's end, waits for the transport to close, and checks
 * that the server is finalized. */
void      snodo_test_pipe_tear_down (SnodoTestPipe *pipe);
/* Writes @line (a whole line, with its '\n'). */
void      snodo_test_pipe_write     (SnodoTestPipe *pipe,
                                     const char    *line);
/* Reads the next line the server writes, parsed; aborts the test after
 * 10 s. */
JsonNode *snodo_test_pipe_read      (SnodoTestPipe *pipe);
/* Sends request pipe->next_id of @method with @params (a JSON object's
 * members, without braces, or NULL), with the 2026-07-28 envelope when
 * @modern, and reads its answer (asserted to be that request's). */
JsonNode *snodo_test_pipe_call      (SnodoTestPipe *pipe,
                                     gboolean       modern,
                                     const char    *method,
                                     const char    *params);
/* The result object of @message (it must have one). */
JsonObject *snodo_test_get_result   (JsonNode      *message);

/* For the _async/_finish calls of tests: pass snodo_test_store_result_cb
 * with the address of a NULL GAsyncResult pointer (it takes a reference),
 * then snodo_test_wait_result() runs the default context until it is set. */
void          snodo_test_store_result_cb (GObject       *source,
                                          GAsyncResult  *result,
                                          gpointer       user_data);
GAsyncResult *snodo_test_wait_result     (GAsyncResult **slot);

/* The object @text holds (asserted), new. */
JsonObject   *snodo_test_parse_object    (const char    *text);
/* The text of the first content block of a tool result, new. */
char         *snodo_test_first_text      (JsonObject    *result);
/* Closes @client and asserts that it closed without an error. */
void          snodo_test_close_client    (SnodoClient   *client);

/* Starts $SNODO_DEMO --http=0 with @extra_args (NULL-terminated, or NULL
 * for none), and sets *@uri to the URL it prints (asserted http:// or
 * https://). */
GSubprocess  *snodo_test_demo_http_start (const char * const *extra_args,
                                          char              **uri);
/* Sends @demo SIGTERM and waits: it must exit with status 0. */
void          snodo_test_demo_stop       (GSubprocess   *demo);

/* Runs $SNODO_CLI with @args (NULL-terminated), sets *@out and *@err to
 * what it printed, and returns its exit status (it must exit, not be
 * killed by a signal). */
int           snodo_test_run_snodo       (const char * const  *args,
                                          char               **out,
                                          char               **err);

/* Makes a private certificate authority and a server certificate it
 * signs, for 127.0.0.1 and localhost, in @dir with openssl: ca.pem,
 * server.pem and server-key.pem. FALSE (the case skipped) when openssl
 * is missing, except under CI. */
gboolean      snodo_test_make_tls_files  (const char    *dir);
/* Removes @dir and the files in it. */
void          snodo_test_remove_dir      (const char    *dir);

G_END_DECLS
