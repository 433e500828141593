/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-skill.h"
#include "snodo-skill-private.h"
#include "snodo-wire-private.h"

/**
 * SnodoSkill:
 *
 * A skill, as the Skills extension of MCP (`io.modelcontextprotocol/skills`)
 * serves it: a `SKILL.md` whose front matter names and describes it, and
 * the other files of its bundle, each with its SHA-256 digest and size.
 *
 * A skill is made from the text of its `SKILL.md`
 * ([ctor@Snodo.Skill.new]), then given its other files
 * ([method@Snodo.Skill.add_file]); or read from a directory at once
 * ([ctor@Snodo.Skill.new_from_directory]). A server serves it with
 * [method@Snodo.Server.add_skill]; from then on it takes no more files.
 *
 * Its files are served as resources under `skill://PATH/`, where PATH is
 * the skill's path: its name, after an optional prefix of the
 * application's (`acme/billing/refunds` is the skill `refunds` under the
 * prefix `acme/billing`).
 *
 * A skill keeps the contents of its files in memory, at most
 * 512 files and 16 MiB in all, the limits of the extension; see
 * `introspection/skills.md` for what is read of a directory.
 *
 * Since: 0.1
 */

typedef struct
{
  char   *path;
  char   *uri;
  char   *mime_type;
  GBytes *content;
  char   *digest;
} SkillFile;

struct _SnodoSkill
{
  GObject     parent_instance;

  char       *name;
  char       *description;
  char       *path;
  char       *uri;
  /* The front matter, sealed. */
  JsonNode   *frontmatter;
  /* SkillFile, SKILL.md first. */
  GArray     *files;
  /* The relative paths, for snodo_skill_get_file_paths(). */
  GPtrArray  *paths;
  /* path -> index in files */
  GHashTable *index;
  gsize       total;
  gboolean    sealed;
};

G_DEFINE_FINAL_TYPE (SnodoSkill, snodo_skill, G_TYPE_OBJECT)

static void
skill_file_clear (SkillFile *file)
{
  g_free (file->path);
  g_free (file->uri);
  g_free (file->mime_type);
  g_clear_pointer (&file->content, g_bytes_unref);
  g_free (file->digest);
}

static void
snodo_skill_finalize (GObject *object)
{
  SnodoSkill *self = SNODO_SKILL (object);

  g_free (self->name);
  g_free (self->description);
  g_free (self->path);
  g_free (self->uri);
  g_clear_pointer (&self->frontmatter, json_node_unref);
  g_array_unref (self->files);
  g_ptr_array_unref (self->paths);
  g_hash_table_unref (self->index);

  G_OBJECT_CLASS (snodo_skill_parent_class)->finalize (object);
}

static void
snodo_skill_class_init (SnodoSkillClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = snodo_skill_finalize;
}

static void
snodo_skill_init (SnodoSkill *self)
{
  self->files = g_array_new (FALSE, TRUE, sizeof (SkillFile));
  g_array_set_clear_func (self->files, (GDestroyNotify) skill_file_clear);
  self->paths = g_ptr_array_new_null_terminated (4, NULL, TRUE);
  self->index = g_hash_table_new (g_str_hash, g_str_equal);
}

/* Whether @prefix is NULL or '/'-separated segments of unreserved URI
 * characters, none "." or "..". */
gboolean
snodo_skill_prefix_is_valid (const char *prefix)
{
  g_auto(GStrv) segments = NULL;

  if (prefix == NULL)
    return TRUE;
  segments = g_strsplit (prefix, "/", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    {
      const char *s = segments[i];

      if (*s == '\0' || g_str_equal (s, ".") || g_str_equal (s, ".."))
        return FALSE;
      for (; *s != '\0'; s++)
        if (!g_ascii_isalnum (*s) && strchr ("-._~", *s) == NULL)
          return FALSE;
    }
  return TRUE;
}

/* Whether @path is a relative path of a file in the bundle: non-empty
 * '/'-separated UTF-8 segments, none "." or "..", without '\\' or NUL. */
static gboolean
file_path_is_valid (const char *path)
{
  g_auto(GStrv) segments = NULL;

  if (!g_utf8_validate (path, -1, NULL) || strchr (path, '\\') != NULL || strlen (path) > 1024)
    return FALSE;
  segments = g_strsplit (path, "/", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    if (*segments[i] == '\0' || g_str_equal (segments[i], ".") || g_str_equal (segments[i], ".."))
      return FALSE;
  for (const char *p = path; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

static char *
escape_path (const char *path)
{
  g_auto(GStrv) segments = g_strsplit (path, "/", -1);

  for (guint i = 0; segments[i] != NULL; i++)
    {
      char *escaped = g_uri_escape_string (segments[i], G_URI_RESERVED_CHARS_SUBCOMPONENT_DELIMITERS ":@", FALSE);

      g_free (segments[i]);
      segments[i] = escaped;
    }
  return g_strjoinv ("/", segments);
}

static const char *
guess_mime_type (const char *path,
                 char      **owned)
{
  g_autofree char *content_type = NULL;

  if (g_str_has_suffix (path, ".md") || g_str_has_suffix (path, ".markdown"))
    return "text/markdown";
  content_type = g_content_type_guess (path, NULL, 0, NULL);
  *owned = content_type != NULL ? g_content_type_get_mime_type (content_type) : NULL;
  if (*owned == NULL || g_str_equal (*owned, "application/x-zerosize"))
    return "application/octet-stream";
  return *owned;
}

static gboolean
add_file (SnodoSkill  *self,
          const char  *path,
          GBytes      *content,
          const char  *mime_type,
          GError     **error)
{
  SkillFile file = { 0, };
  g_autofree char *guessed = NULL;
  g_autofree char *escaped = NULL;
  gsize size = g_bytes_get_size (content);

  if (self->files->len >= SNODO_SKILL_MAX_FILES)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The skill “%s” would have more than %u files"), self->name, SNODO_SKILL_MAX_FILES);
      return FALSE;
    }
  if (size > SNODO_SKILL_MAX_BYTES - self->total)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The files of the skill “%s” would hold more than 16 MiB"), self->name);
      return FALSE;
    }
  if (g_hash_table_contains (self->index, path))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("The skill “%s” already has the file “%s”"), self->name, path);
      return FALSE;
    }

  escaped = escape_path (path);
  file.path = g_strdup (path);
  file.uri = g_strconcat ("skill://", self->path, "/", escaped, NULL);
  file.mime_type = g_strdup (mime_type != NULL ? mime_type : guess_mime_type (path, &guessed));
  file.content = g_bytes_ref (content);
  file.digest = snodo_skill_digest (content);
  g_array_append_val (self->files, file);
  g_ptr_array_add (self->paths, g_array_index (self->files, SkillFile, self->files->len - 1).path);
  g_hash_table_insert (self->index, g_array_index (self->files, SkillFile, self->files->len - 1).path,
                       GUINT_TO_POINTER (self->files->len - 1));
  self->total += size;
  return TRUE;
}

/* The optional fields of the Agent Skills specification have the types it
 * gives them (hosts refuse skills whose do not): `license` a string,
 * `compatibility` a string of at most 500 characters, `metadata` a map of
 * strings. */
static gboolean
frontmatter_fits (JsonObject  *object,
                  const char **why)
{
  JsonNode *license = json_object_get_member (object, "license");
  JsonNode *compatibility = json_object_get_member (object, "compatibility");
  JsonNode *metadata = json_object_get_member (object, "metadata");

  if (license != NULL && !snodo_json_node_is_string (license))
    {
      *why = _("“license” must be a string");
      return FALSE;
    }
  if (compatibility != NULL &&
      (!snodo_json_node_is_string (compatibility) || g_utf8_strlen (json_node_get_string (compatibility), -1) > 500))
    {
      *why = _("“compatibility” must be a string of at most 500 characters");
      return FALSE;
    }
  if (metadata != NULL)
    {
      JsonObjectIter iter;
      JsonNode *value;

      if (!JSON_NODE_HOLDS_OBJECT (metadata))
        {
          *why = _("“metadata” must map strings to strings");
          return FALSE;
        }
      json_object_iter_init (&iter, json_node_get_object (metadata));
      while (json_object_iter_next (&iter, NULL, &value))
        if (!snodo_json_node_is_string (value))
          {
            *why = _("“metadata” must map strings to strings");
            return FALSE;
          }
    }
  return TRUE;
}

/**
 * snodo_skill_new:
 * @prefix: (nullable): where the skill sits in the server's skills,
 *   `/`-separated segments of letters, digits, `-`, `.`, `_` and `~`
 *   (`acme/billing`), or %NULL for none
 * @skill_md: the content of the skill's `SKILL.md`
 * @error: return location for a #GError
 *
 * Makes a skill of its `SKILL.md`, which must begin with YAML front matter
 * (between two `---` lines) whose `name` is a skill name of the Agent
 * Skills specification (lowercase letters, digits and single hyphens, at
 * most 64) and whose `description` is a string of 1 to 1024 characters;
 * `license` and `compatibility`, if given, must be strings, and `metadata`
 * a map of strings, as that specification says. Every field of
 * the front matter is served as it is written (see
 * [method@Snodo.Skill.get_frontmatter]).
 *
 * Returns: (transfer full): the skill, or %NULL with @error set
 *
 * Since: 0.1
 */
SnodoSkill *
snodo_skill_new (const char  *prefix,
                 GBytes      *skill_md,
                 GError     **error)
{
  g_autoptr(SnodoSkill) self = NULL;
  g_autoptr(JsonNode) frontmatter = NULL;
  JsonObject *object;
  const char *name;
  const char *description;
  gsize size;
  const char *data;
  const char *why = NULL;

  g_return_val_if_fail (skill_md != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!snodo_skill_prefix_is_valid (prefix))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The skill prefix “%s” is not valid"), prefix);
      return NULL;
    }
  data = g_bytes_get_data (skill_md, &size);
  if (size > SNODO_SKILL_MAX_BYTES)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The SKILL.md is larger than 16 MiB"));
      return NULL;
    }
  frontmatter = snodo_skill_parse_frontmatter (data != NULL ? data : "", size, error);
  if (frontmatter == NULL)
    return NULL;
  object = json_node_get_object (frontmatter);
  name = snodo_json_object_get_string (object, "name");
  description = snodo_json_object_get_string (object, "description");
  if (name == NULL || !snodo_skill_name_is_valid (name))
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("The front matter has no “name” of lowercase letters, digits and single hyphens"));
      return NULL;
    }
  if (description == NULL || *description == '\0' || g_utf8_strlen (description, -1) > 1024)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The front matter of the skill “%s” has no “description” of 1 to 1024 characters"), name);
      return NULL;
    }
  if (!frontmatter_fits (object, &why))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The front matter of the skill “%s” does not fit the Agent Skills specification: %s"), name,
                   why);
      return NULL;
    }

  self = g_object_new (SNODO_TYPE_SKILL, NULL);
  self->name = g_strdup (name);
  self->description = g_strdup (description);
  self->path = prefix != NULL ? g_strconcat (prefix, "/", name, NULL) : g_strdup (name);
  self->uri = g_strconcat ("skill://", self->path, "/SKILL.md", NULL);
  json_node_seal (frontmatter);
  self->frontmatter = g_steal_pointer (&frontmatter);
  if (!add_file (self, "SKILL.md", skill_md, "text/markdown", error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * snodo_skill_add_file:
 * @self: a skill not yet served
 * @path: the file's path in the bundle, relative, `/`-separated, without
 *   `.` or `..` segments (`references/FORMS.md`)
 * @content: the file's bytes
 * @mime_type: (nullable): its MIME type, or %NULL to guess it from @path
 * @error: return location for a #GError
 *
 * Adds a file to the skill's bundle, served as the resource
 * `skill://PATH/`@path.
 *
 * Returns: %FALSE with @error set if @path is not valid or taken, the
 *   skill would have more than 512 files or 16 MiB, or a server already
 *   serves it
 *
 * Since: 0.1
 */
gboolean
snodo_skill_add_file (SnodoSkill  *self,
                      const char  *path,
                      GBytes      *content,
                      const char  *mime_type,
                      GError     **error)
{
  g_return_val_if_fail (SNODO_IS_SKILL (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (content != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->sealed)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The skill “%s” is served: it takes no more files"), self->name);
      return FALSE;
    }
  if (!file_path_is_valid (path))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The path “%s” is not a relative path of the bundle"),
                   path);
      return FALSE;
    }
  return add_file (self, path, content, mime_type, error);
}

/* ---- Reading a directory ------------------------------------------------ */

#define QUERY_ATTRIBUTES G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE "," \
                         G_FILE_ATTRIBUTE_STANDARD_SIZE "," G_FILE_ATTRIBUTE_STANDARD_IS_SYMLINK "," \
                         G_FILE_ATTRIBUTE_UNIX_DEVICE "," G_FILE_ATTRIBUTE_UNIX_INODE

/* Whether the file of @info is the one @stream reads: where the system
 * says which file that is, that it was not swapped for another (a
 * symbolic link out of the bundle) since it was listed. */
static gboolean
same_file (GFileInfo        *info,
           GFileInputStream *stream,
           GCancellable     *cancellable)
{
  g_autoptr(GFileInfo) opened = NULL;

  if (!g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_INODE))
    return TRUE;
  opened = g_file_input_stream_query_info (stream, G_FILE_ATTRIBUTE_UNIX_DEVICE "," G_FILE_ATTRIBUTE_UNIX_INODE,
                                           cancellable, NULL);
  if (opened == NULL || !g_file_info_has_attribute (opened, G_FILE_ATTRIBUTE_UNIX_INODE))
    return TRUE;
  return g_file_info_get_attribute_uint64 (opened, G_FILE_ATTRIBUTE_UNIX_INODE) ==
           g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_UNIX_INODE) &&
         g_file_info_get_attribute_uint32 (opened, G_FILE_ATTRIBUTE_UNIX_DEVICE) ==
           g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_DEVICE);
}

/* The content of the regular file @file (described by @info, which was
 * queried without following links), at most @budget bytes. */
static GBytes *
read_bounded (GFile         *file,
              GFileInfo     *info,
              gsize          budget,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autoptr(GFileInputStream) stream = NULL;
  goffset listed = g_file_info_get_size (info);
  g_autofree char *buffer = NULL;
  gsize want;
  gsize got = 0;

  if (listed < 0 || (guint64) listed > budget)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The file “%s” would go over the skill's 16 MiB"),
                   g_file_peek_path (file));
      return NULL;
    }
  stream = g_file_read (file, cancellable, error);
  if (stream == NULL)
    return NULL;
  if (!same_file (info, stream, cancellable))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The file “%s” changed while it was read"),
                   g_file_peek_path (file));
      return NULL;
    }
  /* One byte more than listed tells a file that grew. */
  want = (gsize) listed + 1;
  buffer = g_malloc (want);
  if (!g_input_stream_read_all (G_INPUT_STREAM (stream), buffer, want, &got, cancellable, error))
    return NULL;
  if (got != (gsize) listed)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The file “%s” changed while it was read"),
                   g_file_peek_path (file));
      return NULL;
    }
  return g_bytes_new_take (g_steal_pointer (&buffer), got);
}

/* Whether an entry of a bundle is left out: names that begin with a dot,
 * are not UTF-8, or hold what a URI path or another system could not. */
static gboolean
name_is_skipped (const char *name)
{
  return name[0] == '.' || !g_utf8_validate (name, -1, NULL) || strpbrk (name, "\\:*?\"<>|") != NULL;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (g_file_info_get_name (*(GFileInfo **) a), g_file_info_get_name (*(GFileInfo **) b));
}

static gboolean
read_tree (SnodoSkill    *self,
           GFile         *directory,
           const char    *relative,
           guint          depth,
           GCancellable  *cancellable,
           GError       **error)
{
  g_autoptr(GFileEnumerator) enumerator = NULL;
  g_autoptr(GPtrArray) infos = g_ptr_array_new_with_free_func (g_object_unref);

  if (depth > SNODO_SKILL_MAX_DEPTH)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The skill “%s” nests directories deeper than %u"), self->name, SNODO_SKILL_MAX_DEPTH);
      return FALSE;
    }
  enumerator = g_file_enumerate_children (directory, QUERY_ATTRIBUTES, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                          cancellable, error);
  if (enumerator == NULL)
    return FALSE;
  while (TRUE)
    {
      GFileInfo *info = NULL;

      if (!g_file_enumerator_iterate (enumerator, &info, NULL, cancellable, error))
        return FALSE;
      if (info == NULL)
        break;
      if (infos->len > 4 * SNODO_SKILL_MAX_FILES)
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                       _("The skill “%s” has a directory of too many entries"), self->name);
          return FALSE;
        }
      g_ptr_array_add (infos, g_object_ref (info));
    }
  /* The same order on every system. */
  g_ptr_array_sort (infos, compare_names);

  for (guint i = 0; i < infos->len; i++)
    {
      GFileInfo *info = g_ptr_array_index (infos, i);
      const char *name = g_file_info_get_name (info);
      g_autofree char *path = relative != NULL ? g_strconcat (relative, "/", name, NULL) : g_strdup (name);
      g_autoptr(GFile) child = NULL;

      if (name_is_skipped (name) || g_file_info_get_is_symlink (info))
        continue;
      if (relative == NULL && g_str_equal (name, "SKILL.md"))
        continue;
      child = g_file_get_child (directory, name);
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        {
          if (!read_tree (self, child, path, depth + 1, cancellable, error))
            return FALSE;
        }
      else if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR)
        {
          g_autoptr(GBytes) content = NULL;

          if (self->files->len >= SNODO_SKILL_MAX_FILES)
            {
              g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                           _("The skill “%s” would have more than %u files"), self->name, SNODO_SKILL_MAX_FILES);
              return FALSE;
            }
          content = read_bounded (child, info, SNODO_SKILL_MAX_BYTES - self->total, cancellable, error);
          if (content == NULL || !add_file (self, path, content, NULL, error))
            return FALSE;
        }
    }
  return TRUE;
}

/**
 * snodo_skill_new_from_directory:
 * @directory: the skill's directory, which holds its `SKILL.md`
 * @prefix: (nullable): where the skill sits in the server's skills (see
 *   [ctor@Snodo.Skill.new]), or %NULL for none
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a skill's bundle: its `SKILL.md`, whose `name` must be the
 * directory's name, and every file under the directory, at most 512 files
 * and 16 MiB in all, 16 directories deep. Symbolic links are not followed
 * (what they point to is left out, so that nothing outside the directory
 * is served), nor are files and directories whose name begins with a dot,
 * nor anything that is not a regular file or a directory. It blocks while
 * it reads.
 *
 * Returns: (transfer full): the skill, or %NULL with @error set
 *
 * Since: 0.1
 */
SnodoSkill *
snodo_skill_new_from_directory (GFile         *directory,
                                const char    *prefix,
                                GCancellable  *cancellable,
                                GError       **error)
{
  g_autoptr(GFile) skill_md = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GBytes) content = NULL;
  g_autoptr(SnodoSkill) self = NULL;
  g_autofree char *basename = NULL;

  g_return_val_if_fail (G_IS_FILE (directory), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  skill_md = g_file_get_child (directory, "SKILL.md");
  info = g_file_query_info (skill_md, QUERY_ATTRIBUTES, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, error);
  if (info == NULL)
    return NULL;
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("“%s” is not a regular file"),
                   g_file_peek_path (skill_md));
      return NULL;
    }
  content = read_bounded (skill_md, info, SNODO_SKILL_MAX_BYTES, cancellable, error);
  if (content == NULL)
    return NULL;
  self = snodo_skill_new (prefix, content, error);
  if (self == NULL)
    return NULL;
  basename = g_file_get_basename (directory);
  if (g_strcmp0 (basename, self->name) != 0)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The skill “%s” is in a directory of another name, “%s”"), self->name, basename);
      return NULL;
    }
  if (!read_tree (self, directory, NULL, 1, cancellable, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* ---- Accessors ---------------------------------------------------------- */

/**
 * snodo_skill_get_name:
 * @self: a skill
 *
 * Gets the skill's name, the `name` of its front matter.
 *
 * Returns: the name
 *
 * Since: 0.1
 */
const char *
snodo_skill_get_name (SnodoSkill *self)
{
  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);
  return self->name;
}

/**
 * snodo_skill_get_description:
 * @self: a skill
 *
 * Gets the `description` of the skill's front matter.
 *
 * Returns: the description
 *
 * Since: 0.1
 */
const char *
snodo_skill_get_description (SnodoSkill *self)
{
  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);
  return self->description;
}

/**
 * snodo_skill_get_path:
 * @self: a skill
 *
 * Gets the skill's path: its prefix, if any, and its name (`acme/refunds`).
 *
 * Returns: the path
 *
 * Since: 0.1
 */
const char *
snodo_skill_get_path (SnodoSkill *self)
{
  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);
  return self->path;
}

/**
 * snodo_skill_get_uri:
 * @self: a skill
 *
 * Gets the URI of the skill's `SKILL.md`, `skill://PATH/SKILL.md`, by
 * which clients name the skill.
 *
 * Returns: the URI
 *
 * Since: 0.1
 */
const char *
snodo_skill_get_uri (SnodoSkill *self)
{
  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);
  return self->uri;
}

/**
 * snodo_skill_get_frontmatter:
 * @self: a skill
 *
 * Gets the front matter of the skill's `SKILL.md` as a JSON object: every
 * field as written, plain scalars resolved as YAML 1.2 does (`true` is a
 * boolean, `1.0` a number).
 *
 * Returns: (transfer none): the front matter, sealed
 *
 * Since: 0.1
 */
JsonNode *
snodo_skill_get_frontmatter (SnodoSkill *self)
{
  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);
  return self->frontmatter;
}

/**
 * snodo_skill_lookup_file:
 * @self: a skill
 * @path: a file's path in the bundle, such as `SKILL.md`
 *
 * Gets the content of one of the skill's files.
 *
 * Returns: (transfer full) (nullable): its content, or %NULL if the skill
 *   has no such file
 *
 * Since: 0.1
 */
GBytes *
snodo_skill_lookup_file (SnodoSkill *self,
                         const char *path)
{
  gpointer index;

  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (!g_hash_table_lookup_extended (self->index, path, NULL, &index))
    return NULL;
  return g_bytes_ref (g_array_index (self->files, SkillFile, GPOINTER_TO_UINT (index)).content);
}

/**
 * snodo_skill_dup_entry:
 * @self: a skill
 *
 * Describes the skill as `skills/list` and `skills/get` do: `uri`,
 * `frontmatter`, and `resources`, each file's `uri`, `digest`
 * (`sha256:` and 64 lowercase hexadecimal digits) and `size`.
 *
 * Returns: (transfer full): the entry, a JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_skill_dup_entry (SnodoSkill *self)
{
  JsonObject *entry;
  JsonArray *resources;

  g_return_val_if_fail (SNODO_IS_SKILL (self), NULL);

  entry = json_object_new ();
  resources = json_array_new ();
  json_object_set_string_member (entry, "uri", self->uri);
  json_object_set_member (entry, "frontmatter", json_node_copy (self->frontmatter));
  for (guint i = 0; i < self->files->len; i++)
    {
      SkillFile *file = &g_array_index (self->files, SkillFile, i);
      JsonObject *resource = json_object_new ();

      json_object_set_string_member (resource, "uri", file->uri);
      json_object_set_string_member (resource, "digest", file->digest);
      json_object_set_int_member (resource, "size", g_bytes_get_size (file->content));
      json_array_add_object_element (resources, resource);
    }
  json_object_set_array_member (entry, "resources", resources);
  return snodo_json_node_take_object (entry);
}

const char * const *
snodo_skill_get_file_paths (SnodoSkill *self,
                            guint      *n_files)
{
  *n_files = self->paths->len;
  return (const char * const *) self->paths->pdata;
}

char *
snodo_skill_dup_file_uri (SnodoSkill *self,
                          const char *path)
{
  gpointer index;

  if (!g_hash_table_lookup_extended (self->index, path, NULL, &index))
    return NULL;
  return g_strdup (g_array_index (self->files, SkillFile, GPOINTER_TO_UINT (index)).uri);
}

const char *
snodo_skill_get_file_mime_type (SnodoSkill *self,
                                const char *path)
{
  gpointer index;

  if (!g_hash_table_lookup_extended (self->index, path, NULL, &index))
    return NULL;
  return g_array_index (self->files, SkillFile, GPOINTER_TO_UINT (index)).mime_type;
}

void
snodo_skill_seal (SnodoSkill *self)
{
  self->sealed = TRUE;
}
