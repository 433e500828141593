/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: a 2026-07-28 subscriptions/listen over HTTP that outlives
 * its stream. The server keeps no subscription across connections, and a
 * lost stream ends one with no answer: the client then sends the listen
 * request again (a new id, so a new subscriptionId), after a short wait
 * that grows while the server cannot be reached, until the caller cancels
 * it, the server ends it or refuses it, or the client closes. */

#include "config.h"

#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-features.h"

/* The wait before listening again, doubled after each attempt that got
 * no acknowledgement, up to the maximum; and how many such attempts in a
 * row are made before giving up. */
#define LISTEN_RETRY_FIRST_MS 100
#define LISTEN_RETRY_MAX_MS 5000
#define LISTEN_MAX_ATTEMPTS 10

typedef struct
{
  JsonObject *params;
  guint attempts;
  guint wait_ms;
  gulong acknowledged_id;
  GSource *timer;
  gulong cancelled_id;
} Listen;

static void
listen_free (Listen *listen)
{
  json_object_unref (listen->params);
  g_assert (listen->timer == NULL);
  g_free (listen);
}

static void listen_send (GTask *task);

/* The subscription stands: a later loss starts counting again. */
static void
listen_acknowledged_cb (SnodoClient *self,
                        const char  *method,
                        JsonObject  *params,
                        gpointer     user_data)
{
  Listen *listen = user_data;

  listen->attempts = 0;
  listen->wait_ms = LISTEN_RETRY_FIRST_MS;
}

static void
listen_finish (GTask *task)
{
  SnodoClient *self = g_task_get_source_object (task);
  Listen *listen = g_task_get_task_data (task);

  g_clear_signal_handler (&listen->acknowledged_id, self);
}

static gboolean
listen_retry_cb (gpointer user_data)
{
  GTask *task = user_data;
  Listen *listen = g_task_get_task_data (task);

  g_clear_pointer (&listen->timer, g_source_unref);
  g_cancellable_disconnect (g_task_get_cancellable (task), listen->cancelled_id);
  listen->cancelled_id = 0;
  listen_send (task);
  return G_SOURCE_REMOVE;
}

static gboolean
listen_cancelled_idle_cb (gpointer user_data)
{
  GTask *task = user_data;
  Listen *listen = g_task_get_task_data (task);

  if (listen->timer == NULL)
    return G_SOURCE_REMOVE;  /* the retry ran first */
  g_source_destroy (listen->timer);
  g_clear_pointer (&listen->timer, g_source_unref);
  listen->cancelled_id = 0;
  listen_finish (task);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           _("The request %s was cancelled"), "subscriptions/listen");
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Any thread: back to the client's context. */
static void
listen_cancelled_cb (GCancellable *cancellable,
                     gpointer      user_data)
{
  GTask *task = user_data;
  SnodoClient *self = g_task_get_source_object (task);
  GSource *source = g_idle_source_new ();

  g_source_set_static_name (source, "[snodo] client listen cancelled");
  g_source_set_callback (source, listen_cancelled_idle_cb, g_object_ref (task), g_object_unref);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

/* Whether @error is the loss of the stream or of the server (to listen
 * again), not an answer of the server, a cancellation or the end of the
 * client. */
static gboolean
listen_lost (SnodoClient  *self,
             const GError *error)
{
  if (self->state != STATE_READY || error->domain != G_IO_ERROR)
    return FALSE;
  return !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
         !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED) &&
         !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED) &&
         !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED) &&
         !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) &&
         !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
}

static void
listen_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  SnodoClient *self = SNODO_CLIENT (source);
  GTask *task = user_data;
  Listen *listen = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  JsonObject *answer;
  GError *error = NULL;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer != NULL)
    {
      /* The server ended it. */
      listen_finish (task);
      g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  if (!listen_lost (self, error) || ++listen->attempts >= LISTEN_MAX_ATTEMPTS ||
      (cancellable != NULL && g_cancellable_is_cancelled (cancellable)))
    {
      listen_finish (task);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  g_debug ("The subscription's stream was lost (%s); listening again in %u ms",
           error->message, listen->wait_ms);
  g_error_free (error);
  listen->timer = g_timeout_source_new (listen->wait_ms);
  listen->wait_ms = MIN (listen->wait_ms * 2, LISTEN_RETRY_MAX_MS);
  g_source_set_static_name (listen->timer, "[snodo] client listen again");
  g_source_set_callback (listen->timer, listen_retry_cb, task, NULL);
  g_source_attach (listen->timer, self->context);
  if (cancellable != NULL)
    listen->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (listen_cancelled_cb), task, NULL);
}

static void
listen_send (GTask *task)
{
  SnodoClient *self = g_task_get_source_object (task);
  Listen *listen = g_task_get_task_data (task);

  /* A subscription lasts: no timeout. */
  snodo_client_send_request (self, "subscriptions/listen", snodo_client_copy_params (listen->params), TRUE, 0,
                             g_task_get_cancellable (task), g_task_new (self, NULL, listen_done_cb, task));
}

void
snodo_client_listen_again (SnodoClient  *self,
                           JsonObject   *params,
                           GCancellable *cancellable,
                           GTask        *task)
{
  Listen *listen = g_new0 (Listen, 1);

  listen->params = params;
  listen->wait_ms = LISTEN_RETRY_FIRST_MS;
  g_task_set_task_data (task, listen, (GDestroyNotify) listen_free);
  listen->acknowledged_id = g_signal_connect (self, "notification::notifications/subscriptions/acknowledged",
                                              G_CALLBACK (listen_acknowledged_cb), listen);
  listen_send (task);
}
