/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-private.h"

typedef struct
{
  SnodoConnection *connection;
  char            *related;
  GBytes          *line;
  SnodoSendFunc    func;
  gpointer         user_data;
  GError          *error;
} SendState;

static void
send_state_free (SendState *state)
{
  g_clear_pointer (&state->connection, snodo_connection_unref);
  g_clear_pointer (&state->line, g_bytes_unref);
  g_clear_pointer (&state->related, g_free);
  g_clear_error (&state->error);
  g_free (state);
}

struct _SnodoDeadline
{
  /* Monotonic time, in microseconds. */
  gint64             ready_time;
  /* Not referenced: the target removes its deadline before it goes away. */
  GObject           *target;
  SnodoDeadlineFunc  func;
  GList              link;
};

typedef struct
{
  GSource          source;
  SnodoConnection *connection;
} DeadlineSource;

/* Entry: on the connection's context, at (or after) the earliest deadline
 * it was armed for. Fires every deadline that passed, each with a strong
 * reference to its target, then arms itself for the next one. */
static gboolean
deadline_source_dispatch (GSource     *source,
                          GSourceFunc  callback,
                          gpointer     user_data)
{
  SnodoConnection *self = ((DeadlineSource *) source)->connection;
  g_autoptr(GArray) due = g_array_new (FALSE, FALSE, sizeof (SnodoDeadline));
  gint64 now = g_source_get_time (source);
  SnodoDeadline *deadline;

  g_mutex_lock (&self->deadline_lock);
  while ((deadline = g_queue_peek_head (&self->deadlines)) != NULL && deadline->ready_time <= now)
    {
      g_queue_unlink (&self->deadlines, &deadline->link);
      /* Its target is alive: it removes its deadline, under this lock,
       * before it goes. Copied, as the target may free it from now on. */
      g_object_ref (deadline->target);
      g_array_append_val (due, *deadline);
    }
  g_source_set_ready_time (source, deadline != NULL ? deadline->ready_time : -1);
  g_mutex_unlock (&self->deadline_lock);

  for (guint i = 0; i < due->len; i++)
    {
      SnodoDeadline *fired = &g_array_index (due, SnodoDeadline, i);

      fired->func (fired->target);
      g_object_unref (fired->target);
    }

  return G_SOURCE_CONTINUE;
}

static GSourceFuncs deadline_source_funcs = {
  .dispatch = deadline_source_dispatch,
};

/* Calls @func with @target at @ready_time (monotonic, µs) on the
 * connection's context, unless the deadline is removed first. @target must
 * remove it (snodo_connection_remove_deadline()) before it is finalized,
 * and frees it that way once it fired too. Any thread. */
SnodoDeadline *
snodo_connection_add_deadline (SnodoConnection   *self,
                               gint64             ready_time,
                               GObject           *target,
                               SnodoDeadlineFunc  func)
{
  SnodoDeadline *deadline = g_new0 (SnodoDeadline, 1);
  GList *after;

  deadline->ready_time = ready_time;
  deadline->target = target;
  deadline->func = func;
  deadline->link.data = deadline;

  g_mutex_lock (&self->deadline_lock);
  if (self->deadline_source == NULL)
    {
      self->deadline_source = g_source_new (&deadline_source_funcs, sizeof (DeadlineSource));
      ((DeadlineSource *) self->deadline_source)->connection = self;
      g_source_set_static_name (self->deadline_source, "[snodo] handler deadlines");
      g_source_attach (self->deadline_source, self->context);
    }
  /* Usually the latest of all: look from the end. */
  for (after = self->deadlines.tail; after != NULL; after = after->prev)
    if (((SnodoDeadline *) after->data)->ready_time <= ready_time)
      break;
  if (after != NULL)
    g_queue_insert_after_link (&self->deadlines, after, &deadline->link);
  else
    g_queue_push_head_link (&self->deadlines, &deadline->link);
  /* Woken only when this one is earlier than what it waits for. */
  if (g_source_get_ready_time (self->deadline_source) < 0 ||
      g_source_get_ready_time (self->deadline_source) > ready_time)
    g_source_set_ready_time (self->deadline_source, ready_time);
  g_mutex_unlock (&self->deadline_lock);

  return deadline;
}

/* Removes and frees @deadline, fired or not. Any thread. */
void
snodo_connection_remove_deadline (SnodoConnection *self,
                                  SnodoDeadline   *deadline)
{
  g_mutex_lock (&self->deadline_lock);
  if (deadline->link.prev != NULL || deadline->link.next != NULL || self->deadlines.head == &deadline->link)
    g_queue_unlink (&self->deadlines, &deadline->link);
  g_mutex_unlock (&self->deadline_lock);
  g_free (deadline);
}

SnodoConnection *
snodo_connection_new (const SnodoConnectionVTable *vtable,
                      gpointer                     transport,
                      GObject                     *owner,
                      SnodoExecutor               *executor,
                      GMainContext                *context)
{
  SnodoConnection *self = g_new0 (SnodoConnection, 1);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  g_mutex_init (&self->deadline_lock);
  self->vtable = vtable;
  self->transport = transport;
  self->owner = owner;
  self->executor = g_object_ref (executor);
  self->context = g_main_context_ref (context);
  self->persistent = TRUE;
  self->resource_subscriptions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->outgoing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->subscriptions = g_ptr_array_new ();
  self->next_outgoing_id = 1;
  return self;
}

SnodoConnection *
snodo_connection_ref (SnodoConnection *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
snodo_connection_unref (SnodoConnection *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_mutex_clear (&self->lock);
  g_warn_if_fail (g_queue_is_empty (&self->deadlines));
  g_clear_pointer (&self->deadline_source, snodo_source_destroy_and_unref);
  g_mutex_clear (&self->deadline_lock);
  g_clear_pointer (&self->client_capabilities, json_object_unref);
  g_clear_pointer (&self->resource_subscriptions, g_hash_table_unref);
  g_clear_pointer (&self->outgoing, g_hash_table_unref);
  g_clear_pointer (&self->subscriptions, g_ptr_array_unref);
  g_clear_object (&self->executor);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self);
}

/* Called by the transport, on the context, when it goes away or ends. */
void
snodo_connection_detach (SnodoConnection *self)
{
  g_mutex_lock (&self->lock);
  self->transport = NULL;
  g_mutex_unlock (&self->lock);
}

static gboolean
snodo_connection_send_cb (gpointer data)
{
  SendState *state = data;
  SnodoConnection *self = state->connection;
  gpointer transport;

  /* Only the context detaches, so the transport cannot go away between this
   * check and the call below. */
  g_mutex_lock (&self->lock);
  transport = self->transport;
  g_mutex_unlock (&self->lock);

  /* Counted out before the transport sees the line, so that a transport
   * draining its output finds it either here or in its own queue. */
  g_atomic_int_dec_and_test (&self->n_in_transit);

  if (transport == NULL)
    {
      state->error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                          _("The connection is closed"));
      if (state->func != NULL)
        state->func (state->error, state->user_data);
      return G_SOURCE_REMOVE;
    }

  self->vtable->send (transport, state->related, g_steal_pointer (&state->line), state->func, state->user_data);
  return G_SOURCE_REMOVE;
}

/*
 * Hands @line to the transport on the connection's context. @func is called
 * there once, after the line was written or could not be. Safe from any
 * thread; never calls @func synchronously (the transport's send does not
 * either).
 */
void
snodo_connection_send (SnodoConnection *self,
                       GBytes          *line,
                       SnodoSendFunc    func,
                       gpointer         user_data)
{
  snodo_connection_send_related (self, NULL, line, func, user_data);
}

/* Like snodo_connection_send(), for a line that belongs to the client
 * request whose key is @related. */
void
snodo_connection_send_related (SnodoConnection *self,
                               const char      *related,
                               GBytes          *line,
                               SnodoSendFunc    func,
                               gpointer         user_data)
{
  SendState *state;
  GSource *source;

  /* On the connection's own thread the line goes to the transport at
   * once: the transport only queues it, so this is not re-entrant for the
   * caller, and it saves a main-loop iteration on every answer. */
  if (g_main_context_is_owner (self->context))
    {
      gpointer transport;

      g_mutex_lock (&self->lock);
      transport = self->transport;
      g_mutex_unlock (&self->lock);
      if (transport != NULL)
        {
          self->vtable->send (transport, related, g_bytes_ref (line), func, user_data);
          return;
        }
    }

  state = g_new0 (SendState, 1);
  g_atomic_int_inc (&self->n_in_transit);
  state->connection = snodo_connection_ref (self);
  state->related = g_strdup (related);
  state->line = g_bytes_ref (line);
  state->func = func;
  state->user_data = user_data;

  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] connection send");
  g_source_set_callback (source, snodo_connection_send_cb, state, (GDestroyNotify) send_state_free);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

/* Sends handed to snodo_connection_send() that have not reached the
 * transport yet. */
guint
snodo_connection_get_n_in_transit (SnodoConnection *self)
{
  return (guint) g_atomic_int_get (&self->n_in_transit);
}

/* On the context: an initialize result negotiating @version is about to be
 * sent; the transport records it. */
void
snodo_connection_negotiated (SnodoConnection      *self,
                             SnodoProtocolVersion  version)
{
  gpointer transport;

  g_mutex_lock (&self->lock);
  transport = self->transport;
  g_mutex_unlock (&self->lock);

  if (transport != NULL && self->vtable->negotiated != NULL)
    self->vtable->negotiated (transport, version);
}

/* The client's capabilities from initialize, or NULL. Any thread. */
JsonObject *
snodo_connection_dup_client_capabilities (SnodoConnection *self)
{
  JsonObject *capabilities;

  g_mutex_lock (&self->lock);
  capabilities = self->client_capabilities ? json_object_ref (self->client_capabilities) : NULL;
  g_mutex_unlock (&self->lock);
  return capabilities;
}

void
snodo_connection_set_client_capabilities (SnodoConnection *self,
                                          JsonObject      *capabilities)
{
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->client_capabilities, json_object_unref);
  if (capabilities != NULL)
    {
      self->client_capabilities = json_object_ref (capabilities);
      json_object_seal (self->client_capabilities);
    }
  g_mutex_unlock (&self->lock);
}
