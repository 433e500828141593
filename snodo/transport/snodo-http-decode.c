/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A large POST body, decoded off the main loop. A body of a few MB can
 * hold a million values, and building their tree takes tens of
 * milliseconds: on the main loop, a flood of them would hold every other
 * client's answer behind it. So a body of at least
 * SNODO_HTTP_DECODE_OFF_LOOP_BYTES is decoded on a worker thread, its
 * message paused meanwhile; its request then goes on from the main loop
 * (snodo_http_transport_serve_post()).
 *
 * Before anything is built, a quick pass over the text gives a lower bound
 * of what the tree will hold; that and the body are taken from the
 * executor's max-live-bytes at once, and given back when the request is
 * submitted (which takes what it really holds). A body that does not fit
 * is refused then (503, -32010, with its id when the pass found it): a
 * refused request costs its refusal, not its tree. */

#include "config.h"

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-executor-private.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-transport-private.h"
#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"

/* Threads that decode, for all transports: as many as there are
 * processors (at most 4). More would not decode faster, and each would
 * have an arena of malloc's of its own to keep. */
#define MAX_DECODE_THREADS 4

/* Ids longer than this are not read for a refusal (it goes with a null
 * id): a real one is a few bytes. */
#define MAX_ID_TEXT 256

typedef struct
{
  /* In the transport's decodes (data is the Decode). */
  GList               link;
  SnodoHttpTransport *transport;
  SoupServerMessage  *msg;
  SnodoExecutor      *executor;
  /* The body: NULL once its request has its tree. */
  GBytes             *text;
  gsize               text_len;
  /* text is the Decode's alone, and may be written over as it is read. */
  gboolean            writable;
  gulong              finished_id;
  /* libsoup is done with the message (the client left). */
  guint               finished : 1;
  /* Answered already, by the transport closing. */
  guint               stopped : 1;

  /* Set by the thread, read once it returned. */
  guint               refused : 1;
  /* Bytes of max-live-bytes taken, given back when the request is
   * submitted or refused. */
  guint64             reserved;
  JsonNode           *id;
  SnodoFrame          frame;
} Decode;

static void
decode_free (Decode *decode)
{
  SnodoHttpTransport *self = decode->transport;

  g_queue_unlink (&self->decodes, &decode->link);
  if (decode->reserved > 0)
    snodo_executor_release_live_bytes (decode->executor, decode->reserved);
  if (decode->finished_id != 0)
    g_signal_handler_disconnect (decode->msg, decode->finished_id);
  if (self->listener != NULL && !decode->finished)
    snodo_http_listener_release (self->listener, decode->msg);
  /* The body, and a tree that was not handed on, go now. */
  snodo_memory_give_back (decode->text_len + decode->frame.size);
  snodo_frame_clear (&decode->frame);
  g_clear_pointer (&decode->id, json_node_unref);
  g_clear_pointer (&decode->text, g_bytes_unref);
  g_object_unref (decode->executor);
  g_object_unref (decode->msg);
  g_object_unref (decode->transport);
  g_free (decode);
}

static void
decode_finished_cb (SoupServerMessage *msg,
                    gpointer           user_data)
{
  Decode *decode = user_data;

  decode->finished = TRUE;
  if (decode->transport->listener != NULL)
    snodo_http_listener_release (decode->transport->listener, msg);
  g_signal_handler_disconnect (msg, decode->finished_id);
  decode->finished_id = 0;
}

/* On a worker thread: touches nothing but the Decode's text, executor
 * (thread-safe) and results. */
static void
decode_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Decode *decode = task_data;
  gsize len;
  const char *data = g_bytes_get_data (decode->text, &len);
  const char *id_text;
  gsize id_len;
  guint64 cost = len + snodo_json_text_estimate (data, len, &id_text, &id_len);

  if (!snodo_executor_reserve_live_bytes (decode->executor, cost))
    {
      decode->refused = TRUE;
      if (id_text != NULL && id_len > 0 && id_len <= MAX_ID_TEXT)
        {
          g_autoptr(JsonNode) id = snodo_json_parse (id_text, id_len, NULL);
          g_autofree char *key = id != NULL ? snodo_frame_id_key (id) : NULL;

          if (key != NULL)
            decode->id = g_steal_pointer (&id);
        }
      g_task_return_boolean (task, TRUE);
      return;
    }
  decode->reserved = cost;
  if (decode->writable)
    snodo_dialect_decode_in_place ((char *) data, len, FALSE, &decode->frame);
  else
    snodo_dialect_decode (data, len, &decode->frame);
  g_task_return_boolean (task, TRUE);
}

static void
decode_pool_func (gpointer data,
                  gpointer user_data)
{
  GTask *task = data;

  decode_thread (task, NULL, g_task_get_task_data (task), NULL);
  g_object_unref (task);
}

static GThreadPool *
decode_pool (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool))
    {
      GThreadPool *new_pool = g_thread_pool_new (decode_pool_func, NULL,
                                                 CLAMP ((int) g_get_num_processors (), 1, MAX_DECODE_THREADS),
                                                 FALSE, NULL);

      g_once_init_leave (&pool, new_pool);
    }
  return pool;
}

static void
decode_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Decode *decode = user_data;
  SnodoHttpTransport *self = decode->transport;
  SoupServerMessage *msg = decode->msg;
  gsize len = decode->text_len;

  if (decode->finished || decode->stopped)
    {
      decode_free (decode);
      return;
    }
  soup_server_message_unpause (msg);
  snodo_http_transport_release_body (msg);

  if (decode->refused)
    {
      guint64 max_live_bytes = snodo_executor_get_max_live_bytes (decode->executor);
      g_autofree char *limit = g_format_size_full (max_live_bytes, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *reason = g_strdup_printf (_("Too much work in progress: the admitted work would hold more than %s"),
                                                 limit);
      g_autofree char *message = g_strdup_printf (_("Server overloaded: %s"), reason);

      snodo_http_reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, decode->id,
                              SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
    }
  else if (self->state != STATE_LISTENING)
    snodo_http_reply_status (msg, SOUP_STATUS_SERVICE_UNAVAILABLE);
  else
    {
      /* Submitting takes what the request really holds. */
      snodo_executor_release_live_bytes (decode->executor, decode->reserved);
      decode->reserved = 0;
      /* The body goes before the request runs: beside its tree and its
       * answer, it would be a third copy of a large message. */
      g_clear_pointer (&decode->text, g_bytes_unref);
      snodo_http_transport_serve_post (self, msg, &decode->frame, len);
    }
  decode_free (decode);
}

/* Decodes @text, the body of @msg, off the main loop, then serves it (or
 * refuses it). @msg is paused until then. Takes @text; with @writable, no
 * one else holds it, and it is decoded in place, written over
 * (snodo_dialect_decode_in_place()). */
void
snodo_http_decode_start (SnodoHttpTransport *self,
                         SoupServerMessage  *msg,
                         GBytes             *text,
                         gboolean            writable)
{
  g_autoptr(GTask) task = NULL;
  Decode *decode = g_new0 (Decode, 1);

  decode->link.data = decode;
  decode->transport = g_object_ref (self);
  decode->msg = g_object_ref (msg);
  decode->executor = g_object_ref (self->executor);
  decode->text = text;
  decode->text_len = g_bytes_get_size (text);
  decode->writable = writable;
  g_queue_push_tail_link (&self->decodes, &decode->link);
  decode->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (decode_finished_cb), decode);
  /* Its connection is busy, not idle, while its body is decoded. */
  if (self->listener != NULL)
    snodo_http_listener_hold (self->listener, msg);
  soup_server_message_pause (msg);

  task = g_task_new (NULL, NULL, decode_done_cb, decode);
  g_task_set_source_tag (task, snodo_http_decode_start);
  g_task_set_task_data (task, decode, NULL);
  /* Its callback runs on this thread's context, once the pool returned. */
  g_thread_pool_push (decode_pool (), g_steal_pointer (&task), NULL);
}

/* The transport closes: the requests whose body is being decoded are
 * answered 503 now, while their connections are there; the threads
 * finish on their own, and their results are dropped. */
void
snodo_http_decode_stop (SnodoHttpTransport *self)
{
  for (GList *l = self->decodes.head; l != NULL; l = l->next)
    {
      Decode *decode = l->data;

      if (decode->stopped || decode->finished)
        continue;
      decode->stopped = TRUE;
      soup_server_message_unpause (decode->msg);
      snodo_http_reply_status (decode->msg, SOUP_STATUS_SERVICE_UNAVAILABLE);
    }
}
