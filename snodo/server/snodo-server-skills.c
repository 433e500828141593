/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-version.h"
#include "snodo-resource.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-server-methods.h"
#include "snodo-skill.h"
#include "snodo-skill-private.h"
#include "snodo-wire-private.h"

/*
 * The Skills extension (io.modelcontextprotocol/skills) on SnodoServer: the
 * skills a server serves (SnodoSkill), each file of each a resource of the
 * catalog under skill://; the methods skills/list, skills/get and
 * resources/directory/read; directories of bundles read at once and read
 * again when they change on disk (GFileMonitor, debounced, read on a
 * thread). What the server keeps of it hangs on the server as qdata, so
 * that a server without skills carries nothing. Used from the main context
 * the server was made in.
 */

/* Entries of a skills/list page, and of a resources/directory/read page. */
#define SKILLS_PAGE_SIZE      50
#define DIRECTORY_PAGE_SIZE   100
/* How long the files of a directory must stay still before it is read
 * again. */
#define RESCAN_DELAY_MS       250

typedef struct _SkillsDirectory SkillsDirectory;

typedef struct
{
  SnodoServer *server;
  /* SnodoSkill, in the order they were added. */
  GPtrArray   *skills;
  /* SKILL.md URI -> SnodoSkill */
  GHashTable  *by_uri;
  /* SkillsDirectory */
  GPtrArray   *directories;
  gboolean     methods_added;
} Skills;

struct _SkillsDirectory
{
  gatomicrefcount  ref_count;
  /* NULL once the server is gone. */
  Skills          *skills;
  GFile           *file;
  char            *prefix;
  GMainContext    *context;
  /* SKILL.md URI -> SnodoSkill: those this directory serves. */
  GHashTable      *served;
  /* GFileMonitor */
  GPtrArray       *monitors;
  GSource         *timeout;
  GCancellable    *cancellable;
  gboolean         scanning;
  gboolean         dirty;
};

static GQuark
skills_quark (void)
{
  return g_quark_from_static_string ("snodo-server-skills");
}

static void
directory_stop_monitors (SkillsDirectory *dir)
{
  for (guint i = 0; i < dir->monitors->len; i++)
    {
      GFileMonitor *monitor = g_ptr_array_index (dir->monitors, i);

      g_signal_handlers_disconnect_by_data (monitor, dir);
      g_file_monitor_cancel (monitor);
    }
  g_ptr_array_set_size (dir->monitors, 0);
}

static SkillsDirectory *
directory_ref (SkillsDirectory *dir)
{
  g_atomic_ref_count_inc (&dir->ref_count);
  return dir;
}

static void
directory_unref (SkillsDirectory *dir)
{
  if (!g_atomic_ref_count_dec (&dir->ref_count))
    return;
  g_object_unref (dir->file);
  g_free (dir->prefix);
  g_main_context_unref (dir->context);
  g_hash_table_unref (dir->served);
  g_ptr_array_unref (dir->monitors);
  g_object_unref (dir->cancellable);
  g_free (dir);
}

/* The server is going: nothing it kept may be touched after. */
static void
directory_detach (SkillsDirectory *dir)
{
  dir->skills = NULL;
  g_cancellable_cancel (dir->cancellable);
  directory_stop_monitors (dir);
  if (dir->timeout != NULL)
    {
      g_source_destroy (dir->timeout);
      g_clear_pointer (&dir->timeout, g_source_unref);
    }
  g_hash_table_remove_all (dir->served);
  directory_unref (dir);
}

static void
skills_free (Skills *skills)
{
  g_ptr_array_unref (skills->directories);
  g_ptr_array_unref (skills->skills);
  g_hash_table_unref (skills->by_uri);
  g_free (skills);
}

static Skills *
get_skills (SnodoServer *server,
            gboolean     create)
{
  Skills *skills = g_object_get_qdata (G_OBJECT (server), skills_quark ());

  if (skills == NULL && create)
    {
      skills = g_new0 (Skills, 1);
      skills->server = server;
      skills->skills = g_ptr_array_new_with_free_func (g_object_unref);
      skills->by_uri = g_hash_table_new (g_str_hash, g_str_equal);
      skills->directories = g_ptr_array_new_with_free_func ((GDestroyNotify) directory_detach);
      g_object_set_qdata_full (G_OBJECT (server), skills_quark (), skills, (GDestroyNotify) skills_free);
    }
  return skills;
}

/* ---- Serving the files -------------------------------------------------- */

typedef struct
{
  SnodoSkill *skill;
  char       *path;
} FileRead;

static void
file_read_free (FileRead *read)
{
  g_object_unref (read->skill);
  g_free (read->path);
  g_free (read);
}

static void
file_read_cb (SnodoInvocation *invocation,
              gpointer         user_data)
{
  FileRead *read = user_data;
  g_autoptr(GBytes) content = snodo_skill_lookup_file (read->skill, read->path);
  g_autofree char *uri = snodo_skill_dup_file_uri (read->skill, read->path);
  const char *mime_type = snodo_skill_get_file_mime_type (read->skill, read->path);
  gsize size;
  const char *data = g_bytes_get_data (content, &size);

  /* Text when it is UTF-8 without NUL, so that the text's bytes are the
   * file's, as its digest says; else base64. */
  if (g_utf8_validate_len (data != NULL ? data : "", size, NULL))
    {
      g_autofree char *text = g_strndup (data != NULL ? data : "", size);

      snodo_invocation_return_resource_text (invocation, uri, mime_type, text);
    }
  else
    snodo_invocation_return_resource_blob (invocation, uri, mime_type, content);
}

static void
remove_files (SnodoServer *server,
              SnodoSkill  *skill,
              guint        n)
{
  guint n_files;
  const char * const *paths = snodo_skill_get_file_paths (skill, &n_files);

  for (guint i = 0; i < n && i < n_files; i++)
    {
      g_autofree char *uri = snodo_skill_dup_file_uri (skill, paths[i]);

      snodo_catalog_remove_resource (snodo_server_get_catalog (server), uri);
    }
}

/* Adds a resource of the catalog for each file of @skill; all or none. */
static gboolean
add_files (SnodoServer  *server,
           SnodoSkill   *skill,
           GError      **error)
{
  guint n_files;
  const char * const *paths = snodo_skill_get_file_paths (skill, &n_files);

  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *uri = snodo_skill_dup_file_uri (skill, paths[i]);
      g_autofree char *basename = g_path_get_basename (paths[i]);
      g_autoptr(GBytes) content = snodo_skill_lookup_file (skill, paths[i]);
      g_autoptr(SnodoResource) resource = NULL;
      FileRead *read;

      if (i == 0)
        {
          resource = snodo_resource_new (uri, snodo_skill_get_name (skill));
          snodo_resource_set_description (resource, snodo_skill_get_description (skill));
        }
      else
        resource = snodo_resource_new (uri, basename);
      snodo_resource_set_mime_type (resource, snodo_skill_get_file_mime_type (skill, paths[i]));
      snodo_resource_set_size (resource, g_bytes_get_size (content));
      read = g_new0 (FileRead, 1);
      read->skill = g_object_ref (skill);
      read->path = g_strdup (paths[i]);
      if (!snodo_catalog_add_resource (snodo_server_get_catalog (server), resource, file_read_cb, read,
                                       (GDestroyNotify) file_read_free, error))
        {
          remove_files (server, skill, i);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- The methods -------------------------------------------------------- */

/* A 2026-07-28 result says how long it may be kept, as the lists do. */
static void
add_cache_hint (SnodoInvocation *invocation,
                JsonObject      *result)
{
  if (snodo_invocation_get_protocol_version (invocation) < SNODO_PROTOCOL_VERSION_2026_07_28)
    return;
  json_object_set_int_member (result, "ttlMs",
                              snodo_server_get_cache_ttl (snodo_invocation_get_server (invocation)));
  json_object_set_string_member (result, "cacheScope", "private");
}

static void
return_invalid_params (SnodoInvocation *invocation,
                       const char      *message)
{
  snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
}

/* The offset a cursor of ours names, or -1 if it names none. */
static gint64
parse_cursor (SnodoInvocation *invocation,
              const char      *kind)
{
  JsonNode *node = snodo_invocation_get_param (invocation, "cursor");
  const char *cursor;
  guint64 offset;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return 0;
  cursor = snodo_json_node_is_string (node) ? json_node_get_string (node) : NULL;
  if (cursor == NULL || !g_str_has_prefix (cursor, kind) ||
      !g_ascii_string_to_unsigned (cursor + strlen (kind), 10, 0, G_MAXINT, &offset, NULL))
    {
      return_invalid_params (invocation, _("Invalid params: the cursor is not valid"));
      return -1;
    }
  return (gint64) offset;
}

static void
skills_list_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  Skills *skills = user_data;
  gint64 offset = parse_cursor (invocation, "skills:");
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object;
  JsonArray *entries;
  guint end;

  if (offset < 0)
    return;
  object = json_object_new ();
  entries = json_array_new ();
  end = MIN ((guint) offset + SKILLS_PAGE_SIZE, skills->skills->len);
  for (guint i = offset; i < end; i++)
    json_array_add_element (entries, snodo_skill_dup_entry (g_ptr_array_index (skills->skills, i)));
  json_object_set_array_member (object, "skills", entries);
  if (end < skills->skills->len)
    {
      g_autofree char *next = g_strdup_printf ("skills:%u", end);

      json_object_set_string_member (object, "nextCursor", next);
    }
  add_cache_hint (invocation, object);
  result = snodo_json_node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}

static void
skills_get_cb (SnodoInvocation *invocation,
               gpointer         user_data)
{
  Skills *skills = user_data;
  JsonNode *node = snodo_invocation_get_param (invocation, "uri");
  const char *uri = node != NULL && snodo_json_node_is_string (node) ? json_node_get_string (node) : NULL;
  SnodoSkill *skill;
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object;

  if (uri == NULL)
    {
      return_invalid_params (invocation, _("Invalid params: \"uri\" must be a string"));
      return;
    }
  skill = g_hash_table_lookup (skills->by_uri, uri);
  if (skill == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("No skill is served at %s"), uri);

      return_invalid_params (invocation, message);
      return;
    }
  object = json_object_new ();
  json_object_set_member (object, "skill", snodo_skill_dup_entry (skill));
  add_cache_hint (invocation, object);
  result = snodo_json_node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}

/* The direct children of the directory @uri among the files of the skills
 * served, in the order of the skills and their files: (name, uri, skill,
 * path), path NULL for a directory. */
typedef struct
{
  char       *name;
  char       *uri;
  SnodoSkill *skill;
  const char *path;
} Child;

static void
child_clear (Child *child)
{
  g_free (child->name);
  g_free (child->uri);
}

static GArray *
list_children (Skills     *skills,
               const char *uri,
               gboolean   *exists)
{
  GArray *children = g_array_new (FALSE, TRUE, sizeof (Child));
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *base = g_strconcat (uri, "/", NULL);
  gsize base_length = strlen (base);

  g_array_set_clear_func (children, (GDestroyNotify) child_clear);
  *exists = FALSE;
  for (guint i = 0; i < skills->skills->len; i++)
    {
      SnodoSkill *skill = g_ptr_array_index (skills->skills, i);
      guint n_files;
      const char * const *paths = snodo_skill_get_file_paths (skill, &n_files);

      for (guint j = 0; j < n_files; j++)
        {
          g_autofree char *file_uri = snodo_skill_dup_file_uri (skill, paths[j]);
          const char *rest;
          const char *slash;
          Child child = { 0, };

          if (!g_str_has_prefix (file_uri, base))
            continue;
          *exists = TRUE;
          rest = file_uri + base_length;
          slash = strchr (rest, '/');
          if (slash != NULL)
            child.uri = g_strndup (file_uri, slash - file_uri);
          else
            child.uri = g_strdup (file_uri);
          if (g_hash_table_contains (seen, child.uri))
            {
              g_free (child.uri);
              continue;
            }
          {
            g_autofree char *segment = slash != NULL ? g_strndup (rest, slash - rest) : g_strdup (rest);

            child.name = g_uri_unescape_string (segment, NULL);
            if (child.name == NULL)
              child.name = g_strdup (segment);
          }
          child.skill = skill;
          child.path = slash == NULL ? paths[j] : NULL;
          g_array_append_val (children, child);
          g_hash_table_add (seen, g_array_index (children, Child, children->len - 1).uri);
        }
    }
  return children;
}

static void
directory_read_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  Skills *skills = user_data;
  JsonNode *node = snodo_invocation_get_param (invocation, "uri");
  const char *uri = node != NULL && snodo_json_node_is_string (node) ? json_node_get_string (node) : NULL;
  g_autoptr(GArray) children = NULL;
  g_autoptr(JsonNode) result = NULL;
  gboolean exists;
  gint64 offset;
  JsonObject *object;
  JsonArray *resources;
  guint end;

  if (uri == NULL)
    {
      return_invalid_params (invocation, _("Invalid params: \"uri\" must be a string"));
      return;
    }
  offset = parse_cursor (invocation, "directory:");
  if (offset < 0)
    return;
  children = list_children (skills, uri, &exists);
  if (!exists || g_str_has_suffix (uri, "/"))
    {
      g_autofree char *message = g_strdup_printf (_("%s is not a directory resource"), uri);

      return_invalid_params (invocation, message);
      return;
    }

  object = json_object_new ();
  resources = json_array_new ();
  end = MIN ((guint) offset + DIRECTORY_PAGE_SIZE, children->len);
  for (guint i = offset; i < end; i++)
    {
      Child *child = &g_array_index (children, Child, i);
      JsonObject *resource = json_object_new ();

      json_object_set_string_member (resource, "uri", child->uri);
      json_object_set_string_member (resource, "name", child->name);
      if (child->path == NULL)
        json_object_set_string_member (resource, "mimeType", "inode/directory");
      else
        {
          g_autoptr(GBytes) content = snodo_skill_lookup_file (child->skill, child->path);

          json_object_set_string_member (resource, "mimeType",
                                         snodo_skill_get_file_mime_type (child->skill, child->path));
          json_object_set_int_member (resource, "size", g_bytes_get_size (content));
        }
      json_array_add_object_element (resources, resource);
    }
  json_object_set_array_member (object, "resources", resources);
  if (end < children->len)
    {
      g_autofree char *next = g_strdup_printf ("directory:%u", end);

      json_object_set_string_member (object, "nextCursor", next);
    }
  /* Not required of this result by the extension, but hosts (the
   * TypeScript SDK) expect it as of resources/read. */
  add_cache_hint (invocation, object);
  result = snodo_json_node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}

/* Serves the methods and advertises the extension, once. */
static gboolean
enable_skills (SnodoServer  *server,
               Skills       *skills,
               GError      **error)
{
  g_autoptr(JsonNode) uri_schema =
    json_from_string ("{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\"}},\"required\":[\"uri\"]}",
                      NULL);

  if (skills->methods_added)
    return TRUE;
  if (!snodo_server_add_builtin_method (server, "skills/list", NULL, skills_list_cb, skills, NULL, error) ||
      !snodo_server_add_builtin_method (server, "skills/get", uri_schema, skills_get_cb, skills, NULL, error) ||
      !snodo_server_add_builtin_method (server, "resources/directory/read", uri_schema, directory_read_cb, skills,
                                        NULL, error))
    return FALSE;
  skills->methods_added = TRUE;
  if (snodo_server_get_extension (server, SNODO_SKILLS_EXTENSION) == NULL)
    {
      g_autoptr(JsonNode) settings = json_from_string ("{\"directoryRead\":true}", NULL);

      snodo_server_add_extension (server, SNODO_SKILLS_EXTENSION, settings, NULL);
    }
  return TRUE;
}

/* ---- Adding and removing ------------------------------------------------ */

static gboolean
add_skill (SnodoServer  *server,
           Skills       *skills,
           SnodoSkill   *skill,
           GError      **error)
{
  if (g_hash_table_contains (skills->by_uri, snodo_skill_get_uri (skill)))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED, _("A skill is already served at %s"),
                   snodo_skill_get_uri (skill));
      return FALSE;
    }
  if (!enable_skills (server, skills, error) || !add_files (server, skill, error))
    return FALSE;
  snodo_skill_seal (skill);
  g_ptr_array_add (skills->skills, g_object_ref (skill));
  g_hash_table_insert (skills->by_uri, (gpointer) snodo_skill_get_uri (skill), skill);
  return TRUE;
}

static void
remove_skill (SnodoServer *server,
              Skills      *skills,
              SnodoSkill  *skill)
{
  remove_files (server, skill, G_MAXUINT);
  g_hash_table_remove (skills->by_uri, snodo_skill_get_uri (skill));
  g_ptr_array_remove (skills->skills, skill);
}

/**
 * snodo_server_add_skill:
 * @self: a server
 * @skill: the skill to serve
 * @error: return location for a #GError
 *
 * Serves a skill, as the Skills extension of MCP says
 * (`io.modelcontextprotocol/skills`, in every protocol version):
 *
 * - each of its files is a resource, `skill://PATH/FILE` (the `SKILL.md`
 *   listed with the skill's name and description, `text/markdown`), read
 *   with `resources/read`, with the resources the application adds;
 * - `skills/list` lists the skills served (in the order they were added,
 *   50 a page), and `skills/get` describes one by the URI of its
 *   `SKILL.md`: its front matter and each file's URI, SHA-256 digest and
 *   size (see [method@Snodo.Skill.dup_entry]);
 * - `resources/directory/read` lists what a directory of them holds
 *   (`skill://PATH`, `skill://PATH/templates`…), 100 a page;
 * - the extension is advertised with `{"directoryRead": true}`, unless the
 *   application advertised it already.
 *
 * Clients are told that the list of resources changed. The skill takes
 * no more files once it is served.
 *
 * Returns: %TRUE if the skill is served; %FALSE if a skill of that URI is
 *   served already, or one of its files' URIs is taken by a resource
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_skill (SnodoServer  *self,
                        SnodoSkill   *skill,
                        GError      **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (SNODO_IS_SKILL (skill), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!add_skill (self, get_skills (self, TRUE), skill, error))
    return FALSE;
  snodo_server_notify_resources_changed (self);
  return TRUE;
}

/**
 * snodo_server_remove_skill:
 * @self: a server
 * @uri: the URI of the skill's `SKILL.md`
 *
 * Stops serving a skill and its files. Clients are told that the list of
 * resources changed. A skill read from a directory
 * ([method@Snodo.Server.add_skills_directory]) comes back when the
 * directory is read again.
 *
 * Returns: %TRUE if a skill of that URI was removed
 *
 * Since: 0.1
 */
gboolean
snodo_server_remove_skill (SnodoServer *self,
                           const char  *uri)
{
  Skills *skills;
  SnodoSkill *skill;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (uri != NULL, FALSE);

  skills = get_skills (self, FALSE);
  skill = skills != NULL ? g_hash_table_lookup (skills->by_uri, uri) : NULL;
  if (skill == NULL)
    return FALSE;
  for (guint i = 0; i < skills->directories->len; i++)
    g_hash_table_remove (((SkillsDirectory *) g_ptr_array_index (skills->directories, i))->served, uri);
  remove_skill (self, skills, skill);
  snodo_server_notify_resources_changed (self);
  return TRUE;
}

/**
 * snodo_server_lookup_skill:
 * @self: a server
 * @uri: the URI of a skill's `SKILL.md`
 *
 * Finds a skill the server serves.
 *
 * Returns: (transfer none) (nullable): the skill, or %NULL
 *
 * Since: 0.1
 */
SnodoSkill *
snodo_server_lookup_skill (SnodoServer *self,
                           const char  *uri)
{
  Skills *skills;

  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  g_return_val_if_fail (uri != NULL, NULL);

  skills = get_skills (self, FALSE);
  return skills != NULL ? g_hash_table_lookup (skills->by_uri, uri) : NULL;
}

/* ---- Directories -------------------------------------------------------- */

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (g_file_info_get_name (*(GFileInfo **) a), g_file_info_get_name (*(GFileInfo **) b));
}

/* The bundles of @directory (each a directory NAME holding NAME/SKILL.md),
 * read; a bundle that cannot be read is left out, saying why. NULL only
 * when @directory cannot be listed. Any thread. */
static GPtrArray *
scan_directory (GFile         *directory,
                const char    *prefix,
                GPtrArray     *watched,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(GFileEnumerator) enumerator = NULL;
  g_autoptr(GPtrArray) infos = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_object_unref);

  enumerator = g_file_enumerate_children (directory, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                          G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK,
                                          G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, error);
  if (enumerator == NULL)
    return NULL;
  while (TRUE)
    {
      GFileInfo *info = NULL;

      if (!g_file_enumerator_iterate (enumerator, &info, NULL, cancellable, error))
        return NULL;
      if (info == NULL)
        break;
      if (g_file_info_get_file_type (info) != G_FILE_TYPE_DIRECTORY || g_file_info_get_is_symlink (info) ||
          g_file_info_get_name (info)[0] == '.')
        continue;
      if (infos->len >= SNODO_SKILLS_MAX_PER_DIRECTORY)
        {
          g_message ("Skills: %s has more than %u bundles; the others are left out", g_file_peek_path (directory),
                     SNODO_SKILLS_MAX_PER_DIRECTORY);
          break;
        }
      g_ptr_array_add (infos, g_object_ref (info));
    }
  g_ptr_array_sort (infos, compare_names);

  for (guint i = 0; i < infos->len; i++)
    {
      g_autoptr(GFile) child = g_file_get_child (directory, g_file_info_get_name (g_ptr_array_index (infos, i)));
      g_autoptr(GFile) skill_md = g_file_get_child (child, "SKILL.md");
      g_autoptr(GError) local_error = NULL;
      SnodoSkill *skill;

      if (watched != NULL)
        g_ptr_array_add (watched, g_object_ref (child));
      if (!g_file_query_exists (skill_md, cancellable))
        continue;
      skill = snodo_skill_new_from_directory (child, prefix, cancellable, &local_error);
      if (skill == NULL)
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_propagate_error (error, g_steal_pointer (&local_error));
              return NULL;
            }
          g_message ("Skills: %s is left out: %s", g_file_peek_path (child), local_error->message);
          continue;
        }
      g_ptr_array_add (found, skill);
    }
  return g_steal_pointer (&found);
}

static void directory_changed_cb (GFileMonitor      *monitor,
                                  GFile             *file,
                                  GFile             *other,
                                  GFileMonitorEvent  event,
                                  gpointer           user_data);

static void
watch (SkillsDirectory *dir,
       GFile           *file,
       guint            depth)
{
  g_autoptr(GFileMonitor) monitor = NULL;
  g_autoptr(GFileEnumerator) enumerator = NULL;

  if (depth > SNODO_SKILL_MAX_DEPTH || dir->monitors->len > 4 * SNODO_SKILL_MAX_FILES)
    return;
  monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);
  if (monitor == NULL)
    return;
  g_signal_connect (monitor, "changed", G_CALLBACK (directory_changed_cb), dir);
  g_ptr_array_add (dir->monitors, g_steal_pointer (&monitor));
  if (depth == 0)
    return;
  /* A bundle's subdirectories, as the bundle is read. */
  enumerator = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                          G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                          NULL, NULL);
  while (enumerator != NULL)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;

      if (!g_file_enumerator_iterate (enumerator, &info, &child, NULL, NULL) || info == NULL)
        break;
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY && !g_file_info_get_is_symlink (info) &&
          g_file_info_get_name (info)[0] != '.')
        watch (dir, child, depth + 1);
    }
}

/* Watches the directory and the bundles in @watched. */
static void
directory_watch (SkillsDirectory *dir,
                 GPtrArray       *watched)
{
  g_main_context_push_thread_default (dir->context);
  directory_stop_monitors (dir);
  watch (dir, dir->file, 0);
  for (guint i = 0; watched != NULL && i < watched->len; i++)
    watch (dir, g_ptr_array_index (watched, i), 1);
  g_main_context_pop_thread_default (dir->context);
}

/* Serves what @found holds in place of what @dir served: a skill whose
 * entry did not change stays; the others come and go, and the clients
 * that subscribed to a file that changed or went are told. */
static void
directory_apply (SkillsDirectory *dir,
                 GPtrArray       *found)
{
  Skills *skills = dir->skills;
  SnodoServer *server = skills->server;
  g_autoptr(GHashTable) now = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) updated = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;
  gboolean changed = FALSE;

  for (guint i = 0; i < found->len; i++)
    g_hash_table_insert (now, (gpointer) snodo_skill_get_uri (g_ptr_array_index (found, i)),
                         g_ptr_array_index (found, i));

  g_hash_table_iter_init (&iter, dir->served);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      SnodoSkill *old = value;
      SnodoSkill *new = g_hash_table_lookup (now, snodo_skill_get_uri (old));
      g_autoptr(JsonNode) old_entry = snodo_skill_dup_entry (old);
      g_autoptr(JsonNode) new_entry = new != NULL ? snodo_skill_dup_entry (new) : NULL;
      guint n_files;
      const char * const *paths;

      if (new_entry != NULL && json_node_equal (old_entry, new_entry))
        {
          g_hash_table_remove (now, snodo_skill_get_uri (old));
          continue;
        }
      /* The files that changed or went. */
      paths = snodo_skill_get_file_paths (old, &n_files);
      for (guint i = 0; i < n_files; i++)
        {
          g_autoptr(GBytes) before = snodo_skill_lookup_file (old, paths[i]);
          g_autoptr(GBytes) after = new != NULL ? snodo_skill_lookup_file (new, paths[i]) : NULL;

          if (after == NULL || !g_bytes_equal (before, after))
            g_ptr_array_add (updated, snodo_skill_dup_file_uri (old, paths[i]));
        }
      g_ptr_array_add (gone, old);
    }
  for (guint i = 0; i < gone->len; i++)
    {
      SnodoSkill *old = g_ptr_array_index (gone, i);

      g_hash_table_steal (dir->served, snodo_skill_get_uri (old));
      remove_skill (server, skills, old);
      changed = TRUE;
    }
  for (guint i = 0; i < found->len; i++)
    {
      SnodoSkill *skill = g_ptr_array_index (found, i);
      g_autoptr(GError) error = NULL;

      if (!g_hash_table_contains (now, snodo_skill_get_uri (skill)))
        continue;
      if (!add_skill (server, skills, skill, &error))
        {
          g_message ("Skills: %s is left out: %s", snodo_skill_get_uri (skill), error->message);
          continue;
        }
      g_hash_table_insert (dir->served, (gpointer) snodo_skill_get_uri (skill), skill);
      changed = TRUE;
    }
  if (changed)
    snodo_server_notify_resources_changed (server);
  for (guint i = 0; i < updated->len; i++)
    snodo_server_notify_resource_updated (server, g_ptr_array_index (updated, i));
}

typedef struct
{
  GPtrArray *found;
  GPtrArray *watched;
} ScanResult;

static void
scan_result_free (ScanResult *result)
{
  g_clear_pointer (&result->found, g_ptr_array_unref);
  g_clear_pointer (&result->watched, g_ptr_array_unref);
  g_free (result);
}

static void
scan_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  SkillsDirectory *dir = task_data;
  ScanResult *result = g_new0 (ScanResult, 1);
  GError *error = NULL;

  result->watched = g_ptr_array_new_with_free_func (g_object_unref);
  result->found = scan_directory (dir->file, dir->prefix, result->watched, cancellable, &error);
  if (result->found == NULL)
    {
      scan_result_free (result);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, result, (GDestroyNotify) scan_result_free);
}

static void directory_rescan (SkillsDirectory *dir);

static void
scan_done_cb (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  SkillsDirectory *dir = user_data;
  g_autoptr(GError) error = NULL;
  ScanResult *result = g_task_propagate_pointer (G_TASK (res), &error);

  dir->scanning = FALSE;
  if (dir->skills != NULL)
    {
      if (result != NULL)
        {
          directory_apply (dir, result->found);
          directory_watch (dir, result->watched);
        }
      else
        {
          /* The directory went: its skills go with it; it is watched
           * still, should it come back. */
          g_autoptr(GPtrArray) none = g_ptr_array_new ();

          g_message ("Skills: %s cannot be read: %s", g_file_peek_path (dir->file), error->message);
          directory_apply (dir, none);
          directory_watch (dir, NULL);
        }
      if (dir->dirty)
        directory_rescan (dir);
    }
  g_clear_pointer (&result, scan_result_free);
  directory_unref (dir);
}

static void
directory_rescan (SkillsDirectory *dir)
{
  g_autoptr(GTask) task = NULL;

  if (dir->scanning)
    {
      dir->dirty = TRUE;
      return;
    }
  dir->dirty = FALSE;
  dir->scanning = TRUE;
  task = g_task_new (NULL, dir->cancellable, scan_done_cb, directory_ref (dir));
  g_task_set_source_tag (task, directory_rescan);
  g_task_set_name (task, "[snodo] skills scan");
  g_task_set_task_data (task, directory_ref (dir), (GDestroyNotify) directory_unref);
  g_task_run_in_thread (task, scan_thread);
}

static gboolean
rescan_timeout_cb (gpointer user_data)
{
  SkillsDirectory *dir = user_data;

  g_clear_pointer (&dir->timeout, g_source_unref);
  if (dir->skills != NULL)
    directory_rescan (dir);
  return G_SOURCE_REMOVE;
}

static void
directory_changed_cb (GFileMonitor      *monitor,
                      GFile             *file,
                      GFile             *other,
                      GFileMonitorEvent  event,
                      gpointer           user_data)
{
  SkillsDirectory *dir = user_data;

  if (event == G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT || event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT ||
      dir->skills == NULL)
    return;
  /* Debounced: read once the files stay still for a while. */
  if (dir->timeout != NULL)
    {
      g_source_destroy (dir->timeout);
      g_clear_pointer (&dir->timeout, g_source_unref);
    }
  dir->timeout = g_timeout_source_new (RESCAN_DELAY_MS);
  g_source_set_callback (dir->timeout, rescan_timeout_cb, dir, NULL);
  g_source_set_static_name (dir->timeout, "[snodo] skills rescan");
  g_source_attach (dir->timeout, dir->context);
}

/**
 * snodo_server_add_skills_directory:
 * @self: a server
 * @directory: a directory of skill bundles: each skill a directory NAME
 *   holding NAME/SKILL.md and its other files
 * @prefix: (nullable): where its skills sit in the server's skills (see
 *   [ctor@Snodo.Skill.new]), or %NULL for none
 * @error: return location for a #GError
 *
 * Serves the skills of a directory (see [method@Snodo.Server.add_skill]),
 * each read as [ctor@Snodo.Skill.new_from_directory] reads it, at most
 * 1024 of them. A bundle that cannot be read (its front matter is not
 * valid, it is larger than the limits, its name is not its directory's…)
 * is left out, with a message saying why. Symbolic links in @directory
 * are not followed.
 *
 * The directory and its bundles are then watched: when files change, once
 * they have stayed still for a quarter of a second, the directory is read
 * again on a thread and what changed is served in place of what was; the
 * clients are told that the list of resources changed, and those that
 * subscribed to a file that changed or went that it was updated. It
 * blocks while it reads the directory the first time.
 *
 * Returns: %FALSE with @error set if @directory cannot be listed
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_skills_directory (SnodoServer  *self,
                                   GFile        *directory,
                                   const char   *prefix,
                                   GError      **error)
{
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GPtrArray) watched = g_ptr_array_new_with_free_func (g_object_unref);
  Skills *skills;
  SkillsDirectory *dir;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (directory), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!snodo_skill_prefix_is_valid (prefix))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The skill prefix “%s” is not valid"), prefix);
      return FALSE;
    }
  found = scan_directory (directory, prefix, watched, NULL, error);
  if (found == NULL)
    return FALSE;

  skills = get_skills (self, TRUE);
  if (!enable_skills (self, skills, error))
    return FALSE;
  dir = g_new0 (SkillsDirectory, 1);
  g_atomic_ref_count_init (&dir->ref_count);
  dir->skills = skills;
  dir->file = g_object_ref (directory);
  dir->prefix = g_strdup (prefix);
  dir->context = g_main_context_ref_thread_default ();
  dir->served = g_hash_table_new (g_str_hash, g_str_equal);
  dir->monitors = g_ptr_array_new_with_free_func (g_object_unref);
  dir->cancellable = g_cancellable_new ();
  g_ptr_array_add (skills->directories, dir);

  directory_apply (dir, found);
  directory_watch (dir, watched);
  return TRUE;
}
