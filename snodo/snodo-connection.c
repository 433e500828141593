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
