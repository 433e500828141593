/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The server's bus: the announcements of changes go out through it and
 * come back from it (snodo-bus.c says what a bus promises). The
 * announcing itself is snodo-server-sessions.c's. */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "snodo-bus.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-wire-private.h"

/* A message on the bus is a JSON object: {"method": METHOD} or, for
 * notifications/resources/updated, {"method": METHOD, "uri": URI}. A
 * message larger than this is no message of a server's. */
#define BUS_MAX_MESSAGE_BYTES (SNODO_MAX_SUBSCRIBED_URI_BYTES + 1024)

static void
bus_message_cb (SnodoBus *bus,
                GBytes   *message,
                gpointer  user_data)
{
  SnodoServer *self = user_data;
  gsize len;
  const char *data = g_bytes_get_data (message, &len);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  const char *method;
  const char *uri;

  if (len > BUS_MAX_MESSAGE_BYTES)
    {
      g_debug ("Ignored a message of %" G_GSIZE_FORMAT " bytes from the bus", len);
      return;
    }
  node = snodo_json_parse (data, len, &error);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_debug ("Ignored a message from the bus that is no JSON object: %s",
               error != NULL ? error->message : "another value");
      return;
    }
  object = json_node_get_object (node);
  method = snodo_json_object_get_string (object, "method");
  uri = snodo_json_object_get_string (object, "uri");
  if (method == NULL || !snodo_server_announce_change (self, method, uri))
    g_debug ("Ignored a message from the bus that announces no change");
}

void
snodo_server_clear_bus (SnodoServer *self)
{
  SnodoServerBus *state = snodo_server_get_bus_state (self);

  if (state->bus != NULL)
    g_clear_signal_handler (&state->handler, state->bus);
  g_clear_object (&state->bus);
}

/**
 * snodo_server_set_bus:
 * @self: a server
 * @bus: (nullable): the bus, or %NULL for none
 *
 * Makes the announcements of changes ([method@Snodo.Server.notify_tools_changed]
 * and the others, and those that adding or removing a tool, prompt or
 * resource makes) go through @bus, and announces what @bus delivers to
 * this server's clients. Servers that share a bus (a [class@Snodo.LocalBus]
 * in one process, a [class@Snodo.RedisBus] between processes) announce each
 * other's changes, each once. Without a bus, the default, a server
 * announces its changes to its own clients only.
 *
 * Call it on the server's main context, which must be the bus's.
 *
 * Since: 0.1
 */
void
snodo_server_set_bus (SnodoServer *self,
                      SnodoBus    *bus)
{
  SnodoServerBus *state;

  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (bus == NULL || SNODO_IS_BUS (bus));

  state = snodo_server_get_bus_state (self);
  if (state->bus == bus)
    return;
  snodo_server_clear_bus (self);
  if (bus != NULL)
    {
      state->bus = g_object_ref (bus);
      state->handler = g_signal_connect (bus, "message", G_CALLBACK (bus_message_cb), self);
    }
}

/**
 * snodo_server_get_bus:
 * @self: a server
 *
 * The bus set with [method@Snodo.Server.set_bus].
 *
 * Returns: (transfer none) (nullable): the bus, or %NULL
 *
 * Since: 0.1
 */
SnodoBus *
snodo_server_get_bus (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);

  return snodo_server_get_bus_state (self)->bus;
}

void
snodo_server_publish_change (SnodoServer *self,
                             const char  *method,
                             const char  *uri)
{
  SnodoServerBus *state = snodo_server_get_bus_state (self);
  JsonObject *object;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GBytes) message = NULL;
  char *text;
  gsize len;

  if (state->bus == NULL)
    {
      snodo_server_announce_change (self, method, uri);
      return;
    }

  object = json_object_new ();
  json_object_set_string_member (object, "method", method);
  if (uri != NULL)
    json_object_set_string_member (object, "uri", uri);
  node = snodo_json_node_take_object (object);
  text = snodo_json_to_string (node, &len);
  message = g_bytes_new_take (text, len);
  snodo_bus_publish (state->bus, message);
}
