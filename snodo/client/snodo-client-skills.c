/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: the requests of the Skills extension
 * (io.modelcontextprotocol/skills): skills/list, skills/get, a skill's
 * files read and checked against their digests, resources/directory/read;
 * on snodo_client_start_request() of snodo-client-connection.c. */

#include "config.h"

#include <string.h>

#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"

/**
 * snodo_client_list_skills_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the skills
 * @user_data: data for @callback
 *
 * Lists the skills the server serves (`skills/list` of the Skills
 * extension), every page of them. A server advertises the extension in its
 * capabilities ([method@Snodo.Client.get_server_capabilities]:
 * `extensions["io.modelcontextprotocol/skills"]`); one that does not
 * answers -32601.
 *
 * Since: 0.1
 */
void
snodo_client_list_skills_async (SnodoClient         *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_list_async (self, "skills/list", "skills", NULL, snodo_client_list_skills_async, G_STRFUNC,
                           cancellable, callback, user_data);
}

/**
 * snodo_client_list_skills_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.list_skills_async].
 *
 * Returns: (transfer full): the `Skill` entries (`uri`, `frontmatter`,
 *   `resources`), or %NULL with @error set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_list_skills_finish (SnodoClient   *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_task_finish (self, result, snodo_client_list_skills_async, error);
}

/**
 * snodo_client_read_directory_async:
 * @self: a connected client
 * @uri: the URI of a directory resource, such as `skill://pdf-processing`
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with its children
 * @user_data: data for @callback
 *
 * Lists what a directory resource holds (`resources/directory/read` of the
 * Skills extension, which a server offers when it advertises
 * `directoryRead`), every page of it.
 *
 * Since: 0.1
 */
void
snodo_client_read_directory_async (SnodoClient         *self,
                                   const char          *uri,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_list_async (self, "resources/directory/read", "resources", uri, snodo_client_read_directory_async,
                           G_STRFUNC, cancellable, callback, user_data);
}

/**
 * snodo_client_read_directory_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.read_directory_async].
 *
 * Returns: (transfer full): the `Resource` objects of the directory's
 *   direct children (a subdirectory with the MIME type `inode/directory`),
 *   or %NULL with @error set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_read_directory_finish (SnodoClient   *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_task_finish (self, result, snodo_client_read_directory_async, error);
}

static void
get_skill_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;
  JsonNode *skill;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  skill = json_object_get_member (answer, "skill");
  if (skill == NULL || !JSON_NODE_HOLDS_OBJECT (skill))
    {
      g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                               _("The server answered %s without the object %s"), "skills/get", "skill");
      return;
    }
  g_task_return_pointer (task, json_object_ref (json_node_get_object (skill)), (GDestroyNotify) json_object_unref);
}

/**
 * snodo_client_get_skill_async:
 * @self: a connected client
 * @uri: the URI of the skill's `SKILL.md`
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the skill
 * @user_data: data for @callback
 *
 * Gets the entry of one skill (`skills/get` of the Skills extension),
 * listed or not: its front matter and its files' URIs, digests and sizes.
 * An unknown skill is the error -32602.
 *
 * Since: 0.1
 */
void
snodo_client_get_skill_async (SnodoClient         *self,
                              const char          *uri,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_get_skill_async, G_STRFUNC, cancellable, callback, user_data);
  params = json_object_new ();
  json_object_set_string_member (params, "uri", uri);
  snodo_client_start_request (self, "skills/get", params, cancellable, g_task_new (self, NULL, get_skill_cb, task));
}

/**
 * snodo_client_get_skill_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.get_skill_async].
 *
 * Returns: (transfer full): the `Skill` entry, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_skill_finish (SnodoClient   *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_task_finish (self, result, snodo_client_get_skill_async, error);
}

typedef struct
{
  char     *uri;
  char     *digest;
  gint64    size;
  /* For the skill's SKILL.md: the front matter of its entry. */
  JsonNode *frontmatter;
} Expected;

static void
expected_free (Expected *expected)
{
  g_free (expected->uri);
  g_free (expected->digest);
  g_clear_pointer (&expected->frontmatter, json_node_unref);
  g_free (expected);
}

static void
read_file_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Expected *expected = g_task_get_task_data (task);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *hex = NULL;
  GError *error = NULL;
  JsonNode *contents;
  JsonObject *content = NULL;
  const char *text;
  const char *blob;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  contents = json_object_get_member (answer, "contents");
  if (contents != NULL && JSON_NODE_HOLDS_ARRAY (contents))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (contents)) && content == NULL; i++)
      {
        JsonNode *node = json_array_get_element (json_node_get_array (contents), i);

        if (JSON_NODE_HOLDS_OBJECT (node) &&
            g_strcmp0 (snodo_json_object_get_string (json_node_get_object (node), "uri"), expected->uri) == 0)
          content = json_node_get_object (node);
      }
  text = content != NULL ? snodo_json_object_get_string (content, "text") : NULL;
  blob = content != NULL ? snodo_json_object_get_string (content, "blob") : NULL;
  if (text != NULL)
    bytes = g_bytes_new (text, strlen (text));
  else if (blob != NULL)
    {
      gsize length;
      guchar *data = g_base64_decode (blob, &length);

      bytes = g_bytes_new_take (data, length);
    }
  else
    {
      g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                               _("The server answered resources/read without the content of %s"), expected->uri);
      return;
    }

  hex = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);
  if ((gint64) g_bytes_get_size (bytes) != expected->size || !g_str_has_prefix (expected->digest, "sha256:") ||
      !g_str_equal (expected->digest + strlen ("sha256:"), hex))
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                               _("The content of %s is not what the skill's entry says (its size or its digest "
                                 "differ): get the skill again"), expected->uri);
      return;
    }
  if (expected->frontmatter != NULL)
    {
      gsize length;
      const char *data = g_bytes_get_data (bytes, &length);
      g_autoptr(JsonNode) frontmatter = snodo_skill_parse_frontmatter (data != NULL ? data : "", length, NULL);

      if (frontmatter == NULL || !json_node_equal (frontmatter, expected->frontmatter))
        {
          g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                                   _("The front matter of %s is not what the skill's entry says: get the skill "
                                     "again"), expected->uri);
          return;
        }
    }
  g_task_return_pointer (task, g_steal_pointer (&bytes), (GDestroyNotify) g_bytes_unref);
}

/**
 * snodo_client_read_skill_file_async:
 * @self: a connected client
 * @skill: a skill's entry, as [method@Snodo.Client.list_skills_finish] or
 *   [method@Snodo.Client.get_skill_finish] give it
 * @uri: the URI of one of its files, as its `resources` list it
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the content
 * @user_data: data for @callback
 *
 * Reads a file of a skill (`resources/read`) and checks it against the
 * entry, as the Skills extension asks of hosts: the file must be listed in
 * the entry's `resources`, and its content must have the size and the
 * SHA-256 digest listed; the skill's `SKILL.md` must moreover have the
 * entry's `frontmatter`, field by field, in its YAML front matter (a
 * `SKILL.md` whose front matter cannot be read fails too). Content that
 * does not is never returned: get the
 * skill's entry again ([method@Snodo.Client.get_skill_async]), which
 * changes what a user approved.
 *
 * Since: 0.1
 */
void
snodo_client_read_skill_file_async (SnodoClient         *self,
                                    JsonObject          *skill,
                                    const char          *uri,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  JsonNode *resources;
  Expected *expected = NULL;
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (skill != NULL);
  g_return_if_fail (uri != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_read_skill_file_async, G_STRFUNC, cancellable, callback, user_data);
  resources = json_object_get_member (skill, "resources");
  if (resources != NULL && JSON_NODE_HOLDS_ARRAY (resources))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (resources)) && expected == NULL; i++)
      {
        JsonNode *node = json_array_get_element (json_node_get_array (resources), i);
        JsonObject *resource = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
        JsonNode *size = resource != NULL ? json_object_get_member (resource, "size") : NULL;

        if (resource == NULL || g_strcmp0 (snodo_json_object_get_string (resource, "uri"), uri) != 0 ||
            snodo_json_object_get_string (resource, "digest") == NULL || size == NULL ||
            !JSON_NODE_HOLDS_VALUE (size) || json_node_get_value_type (size) != G_TYPE_INT64)
          continue;
        expected = g_new0 (Expected, 1);
        expected->uri = g_strdup (uri);
        expected->digest = g_strdup (snodo_json_object_get_string (resource, "digest"));
        expected->size = json_node_get_int (size);
        /* The SKILL.md itself: its front matter must be the entry's too. */
        if (g_strcmp0 (snodo_json_object_get_string (skill, "uri"), uri) == 0 &&
            json_object_get_member (skill, "frontmatter") != NULL &&
            JSON_NODE_HOLDS_OBJECT (json_object_get_member (skill, "frontmatter")))
          expected->frontmatter = json_node_copy (json_object_get_member (skill, "frontmatter"));
      }
  if (expected == NULL)
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                               _("%s is not a file the skill's entry lists with a digest and a size"), uri);
      return;
    }
  g_task_set_task_data (task, expected, (GDestroyNotify) expected_free);
  params = json_object_new ();
  json_object_set_string_member (params, "uri", uri);
  snodo_client_start_request (self, "resources/read", params, cancellable,
                              g_task_new (self, NULL, read_file_cb, g_steal_pointer (&task)));
}

/**
 * snodo_client_read_skill_file_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.read_skill_file_async].
 *
 * Returns: (transfer full): the file's content, checked, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
GBytes *
snodo_client_read_skill_file_finish (SnodoClient   *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_task_finish (self, result, snodo_client_read_skill_file_async, error);
}
