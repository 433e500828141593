/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoBus in one process: servers that share a SnodoLocalBus announce each
 * other's changes, each once; what a server publishes and what it makes of
 * what a bus delivers (a bus of the test's own). Between processes through
 * Redis: tests/test-deploy.py. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

/* ---- A bus that records what is published and delivers nothing itself ---- */

#define TEST_TYPE_RECORDING_BUS (test_recording_bus_get_type ())
G_DECLARE_FINAL_TYPE (TestRecordingBus, test_recording_bus, TEST, RECORDING_BUS, GObject)

struct _TestRecordingBus
{
  GObject    parent_instance;
  GPtrArray *published;
};

static void test_recording_bus_iface_init (SnodoBusInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestRecordingBus, test_recording_bus, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_BUS, test_recording_bus_iface_init))

static void
test_recording_bus_publish (SnodoBus *bus,
                            GBytes   *message)
{
  g_ptr_array_add (TEST_RECORDING_BUS (bus)->published, g_bytes_ref (message));
}

static void
test_recording_bus_iface_init (SnodoBusInterface *iface)
{
  iface->publish = test_recording_bus_publish;
}

static void
test_recording_bus_finalize (GObject *object)
{
  g_ptr_array_unref (TEST_RECORDING_BUS (object)->published);
  G_OBJECT_CLASS (test_recording_bus_parent_class)->finalize (object);
}

static void
test_recording_bus_class_init (TestRecordingBusClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_recording_bus_finalize;
}

static void
test_recording_bus_init (TestRecordingBus *self)
{
  self->published = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
}

/* ---- Clients over pipes ---------------------------------------------------- */

static void expect_nothing (SnodoTestPipe *pipe);

/* A 2025-11-25 client of a new server, initialized. */
static void
client_start (SnodoTestPipe *pipe)
{
  g_autoptr(JsonNode) answer = NULL;

  snodo_test_pipe_set_up (pipe);
  snodo_test_pipe_write (pipe, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                               "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n");
  answer = snodo_test_pipe_read (pipe);
  g_assert_true (json_object_has_member (json_node_get_object (answer), "result"));
  snodo_test_pipe_write (pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  pipe->next_id = 2;
  /* Once a ping is answered, the notification was read. */
  expect_nothing (pipe);
}

/* The next message is @method (with "uri" @uri in its params, if not
 * NULL). */
static void
expect_notification (SnodoTestPipe *pipe,
                     const char    *method,
                     const char    *uri)
{
  g_autoptr(JsonNode) message = snodo_test_pipe_read (pipe);
  JsonObject *object = json_node_get_object (message);

  g_assert_cmpstr (json_object_get_string_member_with_default (object, "method", "(none)"), ==, method);
  if (uri != NULL)
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "params"), "uri"),
                     ==, uri);
}

/* Nothing came before now: a ping is answered next. */
static void
expect_nothing (SnodoTestPipe *pipe)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"ping\"}\n",
                                           pipe->next_id);
  g_autoptr(JsonNode) answer = NULL;

  snodo_test_pipe_write (pipe, line);
  answer = snodo_test_pipe_read (pipe);
  g_assert_cmpint (test_message_get_id (answer), ==, pipe->next_id);
  pipe->next_id++;
}

/* ---- Tests ------------------------------------------------------------------ */

static void
test_local_bus_shared (void)
{
  SnodoTestPipe a = { 0, }, b = { 0, };
  g_autoptr(SnodoLocalBus) bus = snodo_local_bus_new ();
  static const char changed[] = "{\"method\":\"notifications/tools/list_changed\"}";
  g_autoptr(GBytes) message = g_bytes_new_static (changed, strlen (changed));

  g_test_summary ("Two servers sharing a SnodoLocalBus announce each other's changes to their "
                  "clients, each once, and their own too");

  client_start (&a);
  client_start (&b);
  g_assert_null (snodo_server_get_bus (a.server));
  snodo_server_set_bus (a.server, SNODO_BUS (bus));
  snodo_server_set_bus (b.server, SNODO_BUS (bus));
  g_assert_true (snodo_server_get_bus (a.server) == SNODO_BUS (bus));

  snodo_server_notify_tools_changed (a.server);
  expect_notification (&a, "notifications/tools/list_changed", NULL);
  expect_notification (&b, "notifications/tools/list_changed", NULL);
  expect_nothing (&a);
  expect_nothing (&b);

  snodo_server_notify_prompts_changed (b.server);
  expect_notification (&a, "notifications/prompts/list_changed", NULL);
  expect_notification (&b, "notifications/prompts/list_changed", NULL);
  expect_nothing (&a);
  expect_nothing (&b);

  /* Without the bus, b's changes stay with b. */
  snodo_server_set_bus (b.server, NULL);
  g_assert_null (snodo_server_get_bus (b.server));
  snodo_server_notify_resources_changed (b.server);
  expect_notification (&b, "notifications/resources/list_changed", NULL);
  expect_nothing (&a);
  expect_nothing (&b);

  snodo_test_pipe_tear_down (&a);
  snodo_test_pipe_tear_down (&b);
  /* The servers are gone; the bus is not, and delivers to nobody. */
  snodo_bus_publish (SNODO_BUS (bus), message);
}

static void
test_messages (void)
{
  SnodoTestPipe pipe = { 0, };
  g_autoptr(TestRecordingBus) bus = g_object_new (TEST_TYPE_RECORDING_BUS, NULL);
  static const char * const ignored[] = {
    "not JSON",
    "[]",
    "{}",
    "{\"method\":1}",
    "{\"method\":\"tools/call\"}",
    "{\"method\":\"notifications/resources/updated\"}",
    "{\"method\":\"notifications/message\",\"uri\":\"file:///a\"}",
  };
  g_autofree char *large = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GBytes) large_message = NULL;
  g_autoptr(JsonNode) published = NULL;
  g_autoptr(JsonNode) expected = NULL;

  g_test_summary ("A server with a bus publishes its changes as {method, uri} and announces only "
                  "what the bus delivers; a delivered message that is no change is ignored");

  client_start (&pipe);
  snodo_server_set_bus (pipe.server, SNODO_BUS (bus));

  snodo_server_notify_resource_updated (pipe.server, "file:///a b");
  snodo_server_notify_tools_changed (pipe.server);
  g_assert_cmpuint (bus->published->len, ==, 2);
  /* Published, not announced: the bus did not deliver it. */
  expect_nothing (&pipe);

  text = g_strndup (g_bytes_get_data (g_ptr_array_index (bus->published, 0), NULL),
                    g_bytes_get_size (g_ptr_array_index (bus->published, 0)));
  published = snodo_test_parse (text);
  expected = snodo_test_parse ("{\"method\":\"notifications/resources/updated\",\"uri\":\"file:///a b\"}");
  g_assert_true (snodo_test_json_equal (published, expected));

  /* Delivered: announced. The client did not subscribe to the resource, so
   * only the list change reaches it. */
  snodo_bus_deliver (SNODO_BUS (bus), g_ptr_array_index (bus->published, 0));
  snodo_bus_deliver (SNODO_BUS (bus), g_ptr_array_index (bus->published, 1));
  expect_notification (&pipe, "notifications/tools/list_changed", NULL);
  expect_nothing (&pipe);

  for (guint i = 0; i < G_N_ELEMENTS (ignored); i++)
    {
      g_autoptr(GBytes) message = g_bytes_new_static (ignored[i], strlen (ignored[i]));

      snodo_bus_deliver (SNODO_BUS (bus), message);
    }
  large = g_strdup_printf ("{\"method\":\"notifications/tools/list_changed\",\"pad\":\"%0*d\"}", 20000, 0);
  large_message = g_bytes_new (large, strlen (large));
  snodo_bus_deliver (SNODO_BUS (bus), large_message);
  expect_nothing (&pipe);

  snodo_test_pipe_tear_down (&pipe);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/bus/local/shared", test_local_bus_shared);
  g_test_add_func ("/snodo/bus/messages", test_messages);

  return g_test_run ();
}
