/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * snodo-demo --http: the tool interrupt, for clients that resume a
 * request's event stream (SSE polling, SEP-1699 of 2025-11-25).
 *
 *   interrupt {ms?: integer}
 *                          reports progress 1 of 2, closes the stream
 *                          that carries its answer while it goes on
 *                          (snodo_invocation_close_stream(): over a
 *                          2025-11-25 session, the client comes back
 *                          with Last-Event-ID), waits ms milliseconds
 *                          (default 2000, at most 600000), reports
 *                          progress 2 of 2, and 100 ms later answers the
 *                          text "interrupted" if its stream was closed,
 *                          else "not interrupted" (2025-06-18,
 *                          2026-07-28). Cancellable.
 */

#include "config.h"

#include <snodo/snodo.h>

#include "snodo-demo-interrupt.h"

#define INTERRUPT_DEFAULT_MS 2000
#define INTERRUPT_MAX_MS     600000
/* Between the last report and the answer: the TypeScript SDK clients drop
 * a report read in the same chunk as the answer. */
#define INTERRUPT_GRACE_MS   100

typedef struct
{
  SnodoInvocation *invocation;
  gboolean         closed;
  /* 0: waiting ms; 1: the grace after the last report. */
  guint            phase;
  GSource         *timer;
  GSource         *cancelled;
} Interrupt;

static void
interrupt_finish (Interrupt *interrupt,
                  gboolean   cancelled)
{
  g_source_destroy (interrupt->timer);
  g_source_destroy (interrupt->cancelled);
  g_source_unref (interrupt->timer);
  g_source_unref (interrupt->cancelled);

  if (cancelled)
    snodo_invocation_return_tool_error (interrupt->invocation, "interrupt: cancelled");
  else
    snodo_invocation_return_text (interrupt->invocation, interrupt->closed ? "interrupted" : "not interrupted");
  g_free (interrupt);
}

static gboolean
interrupt_timer_cb (gpointer data)
{
  Interrupt *interrupt = data;

  if (interrupt->phase == 0)
    {
      GMainContext *context = g_source_get_context (interrupt->timer);

      interrupt->phase = 1;
      snodo_invocation_report_progress (interrupt->invocation, 2, 2, "after the interruption");
      g_source_unref (interrupt->timer);
      interrupt->timer = g_timeout_source_new (INTERRUPT_GRACE_MS);
      g_source_set_callback (interrupt->timer, interrupt_timer_cb, interrupt, NULL);
      g_source_attach (interrupt->timer, context);
      return G_SOURCE_REMOVE;
    }
  interrupt_finish (interrupt, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
interrupt_cancelled_cb (GCancellable *cancellable,
                        gpointer      data)
{
  interrupt_finish (data, TRUE);
  return G_SOURCE_REMOVE;
}

static void
interrupt_cb (SnodoInvocation *invocation,
              gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  GMainContext *context = g_main_context_get_thread_default ();
  Interrupt *interrupt;
  gint64 ms = INTERRUPT_DEFAULT_MS;

  if (json_object_has_member (arguments, "ms"))
    {
      JsonNode *node = json_object_get_member (arguments, "ms");

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
          json_node_get_int (node) < 0 || json_node_get_int (node) > INTERRUPT_MAX_MS)
        {
          snodo_invocation_return_tool_error (invocation,
                                              "interrupt: \"ms\" must be an integer from 0 to 600000");
          return;
        }
      ms = json_node_get_int (node);
    }

  interrupt = g_new0 (Interrupt, 1);
  interrupt->invocation = invocation;
  snodo_invocation_report_progress (invocation, 1, 2, "before the interruption");
  interrupt->closed = snodo_invocation_close_stream (invocation);

  interrupt->timer = g_timeout_source_new ((guint) ms);
  g_source_set_callback (interrupt->timer, interrupt_timer_cb, interrupt, NULL);
  interrupt->cancelled = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));
  g_source_set_callback (interrupt->cancelled, G_SOURCE_FUNC (interrupt_cancelled_cb), interrupt, NULL);
  g_source_attach (interrupt->timer, context);
  g_source_attach (interrupt->cancelled, context);
}

void
demo_add_interrupt (SnodoServer *server)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("interrupt",
                                              "Closes the stream of its answer half-way (SEP-1699), then answers");
  g_autoptr(GError) error = NULL;

  if (!snodo_tool_set_input_schema_from_string (tool,
                                                "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
                                                "\"minimum\":0,\"maximum\":600000}}}",
                                                &error))
    g_error ("interrupt: %s", error->message);
  snodo_server_add_tool (server, tool, interrupt_cb, NULL, NULL, NULL);
}
