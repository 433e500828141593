/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The Skills extension on the server: the front matter parser and the
 * digests alone; SnodoSkill's checks of paths, limits and directories
 * (symbolic links out of a bundle, dot files, names); skills/list,
 * skills/get, resources/read of skill files and resources/directory/read
 * over real pipes in both eras; and a directory of bundles read again when
 * a file changes, the clients told. */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <snodo/snodo.h>
#ifdef G_OS_UNIX
# include <unistd.h>
#endif

#include "snodo-skill-private.h"
#include "snodo-test-util.h"

/* ---- The front matter --------------------------------------------------- */

static void
check_frontmatter (const char *text,
                   const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = snodo_skill_parse_frontmatter (text, strlen (text), &error);
  g_autoptr(JsonNode) want = json_from_string (expected, NULL);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  if (!json_node_equal (node, want))
    {
      g_autofree char *got = json_to_string (node, FALSE);

      g_error ("front matter of:\n%s\ngave %s, not %s", text, got, expected);
    }
}

static void
check_frontmatter_fails (const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = snodo_skill_parse_frontmatter (text, strlen (text), &error);

  if (node != NULL)
    {
      g_autofree char *got = json_to_string (node, FALSE);

      g_error ("front matter of:\n%s\nwas read as %s", text, got);
    }
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
}

static void
test_frontmatter (void)
{
  check_frontmatter ("---\nname: a\ndescription: b c\n---\nbody\n", "{\"name\":\"a\",\"description\":\"b c\"}");
  /* The core schema: null, booleans, integers, floats, strings. */
  check_frontmatter ("---\na: ~\nb: null\nc: true\nd: False\ne: 42\nf: -7\ng: 1.5\nh: 1e3\ni: 0x1F\nj: 0o17\n"
                     "k: 1.0.0\nl: yes\nm:\n---\n",
                     "{\"a\":null,\"b\":null,\"c\":true,\"d\":false,\"e\":42,\"f\":-7,\"g\":1.5,\"h\":1000.0,"
                     "\"i\":31,\"j\":15,\"k\":\"1.0.0\",\"l\":\"yes\",\"m\":null}");
  /* Quoted scalars, comments, a key with spaces around its colon. */
  check_frontmatter ("---\n# a comment\na: \"x: \\\"y\\\"\\n\\u00e9\"  # trailing\nb: 'it''s'\nc: d # not e\n"
                     "\"q k\" : 1\n---\n",
                     "{\"a\":\"x: \\\"y\\\"\\né\",\"b\":\"it's\",\"c\":\"d\",\"q k\":1}");
  /* Nested mappings and sequences, block and flow. */
  check_frontmatter ("---\nmetadata:\n  version: \"2.1\"\n  tags: [a, 'b', 3]\n  deep:\n    x: {k: v, n: 1}\n"
                     "allowed-tools:\n  - Bash\n  - name: Read\n    mode: ro\nlist:\n- 1\n- two\nempty: []\n---\n",
                     "{\"metadata\":{\"version\":\"2.1\",\"tags\":[\"a\",\"b\",3],\"deep\":{\"x\":{\"k\":\"v\",\"n\":1}}},"
                     "\"allowed-tools\":[\"Bash\",{\"name\":\"Read\",\"mode\":\"ro\"}],\"list\":[1,\"two\"],"
                     "\"empty\":[]}");
  /* Block scalars: literal, folded, chomping. */
  check_frontmatter ("---\nl: |\n  one\n  two\n\n  three\nf: >\n  one\n  two\n\n  three\n    indented\ns: |-\n  x\n"
                     "k: |+\n  y\n\nz: 1\n---\n",
                     "{\"l\":\"one\\ntwo\\n\\nthree\\n\",\"f\":\"one two\\nthree\\n  indented\\n\",\"s\":\"x\","
                     "\"k\":\"y\\n\\n\",\"z\":1}");
  /* A plain scalar on several lines is folded. */
  check_frontmatter ("---\ndescription: Use this skill\n  when the user asks\n\n  for refunds\nname: r\n---\n",
                     "{\"description\":\"Use this skill when the user asks\\nfor refunds\",\"name\":\"r\"}");
  /* A byte order mark and CRLF line ends. */
  check_frontmatter ("\xef\xbb\xbf---\r\nname: a\r\ndescription: b\r\n---\r\n", "{\"name\":\"a\",\"description\":\"b\"}");

  check_frontmatter_fails ("name: a\n");
  check_frontmatter_fails ("---\nname: a\n");
  check_frontmatter_fails ("---\n---\n");
  check_frontmatter_fails ("---\n- a\n---\n");
  check_frontmatter_fails ("---\na: 1\na: 2\n---\n");
  check_frontmatter_fails ("---\na: &x 1\nb: *x\n---\n");
  check_frontmatter_fails ("---\na: !!str 1\n---\n");
  check_frontmatter_fails ("---\na: \"open\n---\n");
  check_frontmatter_fails ("---\na: [1, 2\n---\n");
  check_frontmatter_fails ("---\na:\n  b: 1\n c: 2\n---\n");
  check_frontmatter_fails ("---\n\ta: 1\n---\n");
  check_frontmatter_fails ("---\na: b: c\n---\n");
  check_frontmatter_fails ("---\na: \"\\0\"\n---\n");
  {
    /* Too deep. */
    g_autoptr(GString) text = g_string_new ("---\n");

    for (guint i = 0; i < 40; i++)
      {
        for (guint j = 0; j < i; j++)
          g_string_append (text, " ");
        g_string_append (text, "a:\n");
      }
    g_string_append (text, "---\n");
    check_frontmatter_fails (text->str);
  }
}

static void
test_digest (void)
{
  g_autoptr(GBytes) abc = g_bytes_new_static ("abc", 3);
  g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
  g_autofree char *digest = snodo_skill_digest (abc);
  g_autofree char *empty_digest = snodo_skill_digest (empty);

  g_assert_cmpstr (digest, ==, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  g_assert_cmpstr (empty_digest, ==, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

  g_assert_true (snodo_skill_name_is_valid ("pdf-processing"));
  g_assert_true (snodo_skill_name_is_valid ("a1"));
  g_assert_false (snodo_skill_name_is_valid ("-a"));
  g_assert_false (snodo_skill_name_is_valid ("a-"));
  g_assert_false (snodo_skill_name_is_valid ("a--b"));
  g_assert_false (snodo_skill_name_is_valid ("PDF"));
  g_assert_false (snodo_skill_name_is_valid (""));
  g_assert_false (snodo_skill_name_is_valid ("a_b"));
}

/* ---- SnodoSkill --------------------------------------------------------- */

static SnodoSkill *
skill_new (const char *prefix,
           const char *name,
           const char *description)
{
  g_autofree char *text = g_strdup_printf ("---\nname: %s\ndescription: %s\n---\n\n# %s\n", name, description, name);
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr(GError) error = NULL;
  SnodoSkill *skill = snodo_skill_new (prefix, bytes, &error);

  g_assert_no_error (error);
  return skill;
}

static void
add_text_file (SnodoSkill *skill,
               const char *path,
               const char *text)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr(GError) error = NULL;

  g_assert_true (snodo_skill_add_file (skill, path, bytes, NULL, &error));
  g_assert_no_error (error);
}

static void
test_skill (void)
{
  static const char * const bad_paths[] = {
    "../x", "a/../b", "/etc/passwd", "a//b", "a/", ".", "a\\b", "SKILL.md", "a/./b", "tab\tname",
  };
  g_autoptr(SnodoSkill) skill = skill_new ("acme/billing", "refunds", "Refunds");
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(GBytes) one = g_bytes_new_static ("x", 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) entry = NULL;
  g_autoptr(JsonNode) want = NULL;

  g_assert_cmpstr (snodo_skill_get_name (skill), ==, "refunds");
  g_assert_cmpstr (snodo_skill_get_path (skill), ==, "acme/billing/refunds");
  g_assert_cmpstr (snodo_skill_get_uri (skill), ==, "skill://acme/billing/refunds/SKILL.md");
  for (guint i = 0; i < G_N_ELEMENTS (bad_paths); i++)
    {
      g_assert_false (snodo_skill_add_file (skill, bad_paths[i], one, NULL, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
    }
  add_text_file (skill, "examples/email one.md", "abc");
  entry = snodo_skill_dup_entry (skill);
  want = json_from_string ("{\"uri\":\"skill://acme/billing/refunds/SKILL.md\","
                           "\"frontmatter\":{\"name\":\"refunds\",\"description\":\"Refunds\"},"
                           "\"resources\":[{\"uri\":\"skill://acme/billing/refunds/SKILL.md\","
                           "\"digest\":\"sha256:a2f0d9c9bdd2c4d9e0b1b1c0a7d2a7f7b0c1d9e0f0a1b2c3d4e5f60718293a4b\","
                           "\"size\":0},"
                           "{\"uri\":\"skill://acme/billing/refunds/examples/email%20one.md\","
                           "\"digest\":\"sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\","
                           "\"size\":3}]}", NULL);
  {
    /* SKILL.md's digest and size are of its bytes. */
    g_autoptr(GBytes) md = snodo_skill_lookup_file (skill, "SKILL.md");
    g_autofree char *digest = snodo_skill_digest (md);
    JsonObject *first = json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (want), "resources"), 0);

    json_object_set_string_member (first, "digest", digest);
    json_object_set_int_member (first, "size", g_bytes_get_size (md));
  }
  g_assert_true (snodo_test_json_equal (entry, want));

  /* Bad skills. */
  {
    static const char * const bad[] = {
      "no front matter", "---\nname: x\n---\n", "---\nname: Bad_Name\ndescription: d\n---\n",
      "---\nname: x\ndescription: \"\"\n---\n", "---\nname: x\ndescription: [a]\n---\n",
      "---\nname: x\ndescription: d\nmetadata:\n  n: 1\n---\n", "---\nname: x\ndescription: d\nlicense: [a]\n---\n",
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_autoptr(GBytes) bytes = g_bytes_new_static (bad[i], strlen (bad[i]));
        g_autoptr(SnodoSkill) refused = snodo_skill_new (NULL, bytes, &error);

        g_assert_null (refused);
        g_assert_nonnull (error);
        g_clear_error (&error);
      }
    {
      g_autoptr(GBytes) bytes = g_bytes_new_static ("---\nname: x\ndescription: d\n---\n", 30);

      g_assert_null (snodo_skill_new ("../up", bytes, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
    }
  }

  /* Limits: 512 files, 16 MiB. */
  {
    g_autoptr(SnodoSkill) many = skill_new (NULL, "many", "Many files");
    g_autofree char *big_data = g_malloc0 (SNODO_SKILL_MAX_BYTES);
    g_autoptr(GBytes) big = g_bytes_new_take (g_steal_pointer (&big_data), SNODO_SKILL_MAX_BYTES);

    for (guint i = 1; i < SNODO_SKILL_MAX_FILES; i++)
      {
        g_autofree char *path = g_strdup_printf ("f%u", i);

        g_assert_true (snodo_skill_add_file (many, path, one, NULL, &error));
      }
    g_assert_false (snodo_skill_add_file (many, "one-more", one, NULL, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
    g_clear_error (&error);
    g_assert_false (snodo_skill_add_file (skill, "big", big, NULL, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
    g_clear_error (&error);
  }

  /* Served, it takes no more files, and its URI is taken. */
  g_assert_true (snodo_server_add_skill (server, skill, &error));
  g_assert_no_error (error);
  g_assert_false (snodo_skill_add_file (skill, "late.md", one, NULL, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
  g_clear_error (&error);
  {
    g_autoptr(SnodoSkill) again = skill_new ("acme/billing", "refunds", "Again");

    g_assert_false (snodo_server_add_skill (server, again, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
    g_clear_error (&error);
  }
  g_assert_true (snodo_server_lookup_skill (server, "skill://acme/billing/refunds/SKILL.md") == skill);
  g_assert_true (snodo_server_remove_skill (server, "skill://acme/billing/refunds/SKILL.md"));
  g_assert_false (snodo_server_remove_skill (server, "skill://acme/billing/refunds/SKILL.md"));
  g_assert_null (snodo_server_lookup_skill (server, "skill://acme/billing/refunds/SKILL.md"));
}

/* ---- Directories -------------------------------------------------------- */

static void
write_file (const char *dir,
            const char *path,
            const char *text)
{
  g_autofree char *file = g_build_filename (dir, path, NULL);
  g_autofree char *parent = g_path_get_dirname (file);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (file, text, -1, &error));
  g_assert_no_error (error);
}

static void
write_skill (const char *dir,
             const char *name,
             const char *description)
{
  g_autofree char *path = g_build_filename (name, "SKILL.md", NULL);
  g_autofree char *text = g_strdup_printf ("---\nname: %s\ndescription: %s\n---\n\n# %s\n", name, description, name);

  write_file (dir, path, text);
}

/* Removes @path and what is under it, without following links. */
static void
remove_tree (const char *path)
{
  g_autoptr(GDir) listing = NULL;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      listing = g_dir_open (path, 0, NULL);
      while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static char *
make_skills_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("test-skills-XXXXXX", &error);

  g_assert_no_error (error);
  write_skill (dir, "alpha", "The first");
  write_file (dir, "alpha/references/GUIDE.md", "A guide\n");
  write_file (dir, "alpha/scripts/run.py", "print('hi')\n");
  write_file (dir, "alpha/.hidden", "left out\n");
  /* Not UTF-8: served as a blob. */
  write_file (dir, "alpha/bin/data.bin", "\x01\x02\xff");
  write_skill (dir, "beta", "The second");
  /* Its name is not its directory's: left out. */
  write_file (dir, "gamma/SKILL.md", "---\nname: delta\ndescription: Misnamed\n---\n");
  /* No front matter: left out. */
  write_file (dir, "broken/SKILL.md", "# Nothing\n");
  /* No SKILL.md: not a skill. */
  write_file (dir, "notes/README.md", "Not a skill\n");
  write_file (dir, "secret.txt", "outside the bundles\n");
#ifdef G_OS_UNIX
  {
    g_autofree char *link = g_build_filename (dir, "alpha", "escape.txt", NULL);
    g_autofree char *link_dir = g_build_filename (dir, "alpha", "up", NULL);
    g_autofree char *bundle_link = g_build_filename (dir, "linked", NULL);
    g_autofree char *beta = g_build_filename (dir, "beta", NULL);

    /* Symbolic links out of the bundle, and a bundle that is one. */
    g_assert_cmpint (symlink ("../secret.txt", link), ==, 0);
    g_assert_cmpint (symlink ("..", link_dir), ==, 0);
    g_assert_cmpint (symlink (beta, bundle_link), ==, 0);
  }
#endif
  return dir;
}

static void
test_directory (void)
{
  g_autofree char *dir = make_skills_dir ();
  g_autofree char *alpha_dir = g_build_filename (dir, "alpha", NULL);
  g_autoptr(GFile) alpha_file = g_file_new_for_path (alpha_dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoSkill) alpha = snodo_skill_new_from_directory (alpha_file, NULL, NULL, &error);
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(JsonNode) entry = NULL;
  JsonArray *resources;
  g_autoptr(GPtrArray) uris = g_ptr_array_new_with_free_func (g_free);

  g_assert_no_error (error);
  entry = snodo_skill_dup_entry (alpha);
  resources = json_object_get_array_member (json_node_get_object (entry), "resources");
  for (guint i = 0; i < json_array_get_length (resources); i++)
    g_ptr_array_add (uris, g_strdup (json_object_get_string_member (json_array_get_object_element (resources, i),
                                                                      "uri")));
  g_ptr_array_add (uris, NULL);
  {
    /* SKILL.md first, then by name; no link, no dot file. */
    static const char * const want[] = {
      "skill://alpha/SKILL.md", "skill://alpha/bin/data.bin", "skill://alpha/references/GUIDE.md",
      "skill://alpha/scripts/run.py", NULL,
    };

    g_assert_cmpstrv ((const char * const *) uris->pdata, want);
  }
  {
    g_autoptr(GBytes) guide = snodo_skill_lookup_file (alpha, "references/GUIDE.md");

    g_assert_cmpmem (g_bytes_get_data (guide, NULL), g_bytes_get_size (guide), "A guide\n", 8);
    g_assert_null (snodo_skill_lookup_file (alpha, "escape.txt"));
  }

  {
    g_autofree char *gamma_dir = g_build_filename (dir, "gamma", NULL);
    g_autoptr(GFile) gamma_file = g_file_new_for_path (gamma_dir);
    g_autoptr(SnodoSkill) gamma = snodo_skill_new_from_directory (gamma_file, NULL, NULL, &error);

    g_assert_null (gamma);
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
    g_clear_error (&error);
  }

  g_assert_true (snodo_server_add_skills_directory (server, file, "team", &error));
  g_assert_no_error (error);
  g_assert_nonnull (snodo_server_lookup_skill (server, "skill://team/alpha/SKILL.md"));
  g_assert_nonnull (snodo_server_lookup_skill (server, "skill://team/beta/SKILL.md"));
  g_assert_null (snodo_server_lookup_skill (server, "skill://team/delta/SKILL.md"));
  g_assert_null (snodo_server_lookup_skill (server, "skill://team/linked/SKILL.md"));
  g_assert_null (snodo_server_lookup_skill (server, "skill://team/broken/SKILL.md"));
  {
    g_autofree char *missing = g_build_filename (dir, "missing", NULL);
    g_autoptr(GFile) missing_file = g_file_new_for_path (missing);

    g_assert_false (snodo_server_add_skills_directory (server, missing_file, NULL, &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
  }
  g_assert_finalize_object (g_steal_pointer (&server));
  remove_tree (dir);
}

/* ---- Over pipes --------------------------------------------------------- */

static SnodoServer *
server_with_skills (void)
{
  SnodoServer *server = snodo_server_new ("test", "1");
  g_autoptr(SnodoSkill) pdf = skill_new (NULL, "pdf-processing", "Handles PDF");
  g_autoptr(GBytes) blob = g_bytes_new_static ("\x89PNG\x00\xff", 6);
  g_autoptr(GError) error = NULL;

  add_text_file (pdf, "templates/invoice.md", "# Invoice\n");
  add_text_file (pdf, "templates/regional/eu.md", "# EU\n");
  g_assert_true (snodo_skill_add_file (pdf, "images/logo.png", blob, "image/png", &error));
  g_assert_true (snodo_server_add_skill (server, pdf, &error));
  g_assert_no_error (error);
  /* Enough for two pages of skills/list. */
  for (guint i = 0; i < 59; i++)
    {
      g_autofree char *name = g_strdup_printf ("s%02u", i);
      g_autoptr(SnodoSkill) skill = skill_new ("more", name, "One of many");

      g_assert_true (snodo_server_add_skill (server, skill, &error));
      g_assert_no_error (error);
    }
  return server;
}

static JsonNode *
call (SnodoTestPipe *pipe,
      gboolean       modern,
      const char    *method,
      const char    *params)
{
  return snodo_test_pipe_call (pipe, modern, method, params);
}

static gint64
error_code (JsonNode *answer)
{
  JsonObject *object = json_node_get_object (answer);

  g_assert_true (json_object_has_member (object, "error"));
  return json_object_get_int_member (json_object_get_object_member (object, "error"), "code");
}

static void
test_methods (gconstpointer data)
{
  gboolean modern = GPOINTER_TO_INT (data);
  SnodoServer *server = server_with_skills ();
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *result;
  JsonArray *skills;
  g_autofree char *cursor = NULL;
  SnodoTestPipe pipe;

  snodo_test_pipe_set_up_for (&pipe, server);
  g_object_unref (server);
  if (!modern)
    {
      answer = call (&pipe, FALSE, "initialize",
                     "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
      result = snodo_test_get_result (answer);
      g_assert_true (json_object_get_boolean_member (json_object_get_object_member (json_object_get_object_member (
        json_object_get_object_member (result, "capabilities"), "extensions"), SNODO_SKILLS_EXTENSION),
        "directoryRead"));
      g_clear_pointer (&answer, json_node_unref);
    }
  else
    {
      answer = call (&pipe, TRUE, "server/discover", NULL);
      result = snodo_test_get_result (answer);
      g_assert_true (json_object_get_boolean_member (json_object_get_object_member (json_object_get_object_member (
        json_object_get_object_member (result, "capabilities"), "extensions"), SNODO_SKILLS_EXTENSION),
        "directoryRead"));
      g_clear_pointer (&answer, json_node_unref);
    }

  /* skills/list: two pages, each entry whole. */
  answer = call (&pipe, modern, "skills/list", NULL);
  result = snodo_test_get_result (answer);
  skills = json_object_get_array_member (result, "skills");
  g_assert_cmpuint (json_array_get_length (skills), ==, 50);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (skills, 0), "uri"), ==,
                   "skill://pdf-processing/SKILL.md");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_array_get_object_element (skills, 0),
                                                                         "resources")), ==, 4);
  g_assert_true (json_object_has_member (result, "nextCursor"));
  /* Cache hints exist in 2026-07-28 only. */
  g_assert_cmpint (json_object_has_member (result, "ttlMs"), ==, modern);
  g_assert_cmpint (json_object_has_member (result, "cacheScope"), ==, modern);
  g_assert_cmpint (json_object_has_member (result, "resultType"), ==, modern);
  cursor = g_strdup_printf ("\"cursor\":\"%s\"", json_object_get_string_member (result, "nextCursor"));
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "skills/list", cursor);
  result = snodo_test_get_result (answer);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "skills")), ==, 10);
  g_assert_false (json_object_has_member (result, "nextCursor"));
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "skills/list", "\"cursor\":\"bogus\"");
  g_assert_cmpint (error_code (answer), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_pointer (&answer, json_node_unref);

  /* skills/get */
  answer = call (&pipe, modern, "skills/get", "\"uri\":\"skill://more/s07/SKILL.md\"");
  result = snodo_test_get_result (answer);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (
    result, "skill"), "frontmatter"), "name"), ==, "s07");
  g_assert_false (json_object_has_member (result, "nextCursor"));
  g_assert_cmpint (json_object_has_member (result, "ttlMs"), ==, modern);
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "skills/get", "\"uri\":\"skill://nope/SKILL.md\"");
  g_assert_cmpint (error_code (answer), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "skills/get", NULL);
  g_assert_cmpint (error_code (answer), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_pointer (&answer, json_node_unref);

  /* resources/read: text as it is, binary as base64; the digest is of
   * what is served. */
  answer = call (&pipe, modern, "resources/read", "\"uri\":\"skill://pdf-processing/templates/invoice.md\"");
  result = snodo_test_get_result (answer);
  {
    JsonObject *content = json_array_get_object_element (json_object_get_array_member (result, "contents"), 0);

    g_assert_cmpstr (json_object_get_string_member (content, "text"), ==, "# Invoice\n");
    g_assert_cmpstr (json_object_get_string_member (content, "mimeType"), ==, "text/markdown");
  }
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "resources/read", "\"uri\":\"skill://pdf-processing/images/logo.png\"");
  result = snodo_test_get_result (answer);
  {
    JsonObject *content = json_array_get_object_element (json_object_get_array_member (result, "contents"), 0);
    gsize length;
    g_autofree guchar *bytes = g_base64_decode (json_object_get_string_member (content, "blob"), &length);

    g_assert_cmpmem (bytes, length, "\x89PNG\x00\xff", 6);
    g_assert_cmpstr (json_object_get_string_member (content, "mimeType"), ==, "image/png");
  }
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "resources/read", "\"uri\":\"skill://pdf-processing/templates/none.md\"");
  g_assert_cmpint (error_code (answer), ==, modern ? SNODO_RPC_ERROR_INVALID_PARAMS : -32002);
  g_clear_pointer (&answer, json_node_unref);

  /* resources/directory/read */
  answer = call (&pipe, modern, "resources/directory/read", "\"uri\":\"skill://pdf-processing/templates\"");
  result = snodo_test_get_result (answer);
  {
    g_autoptr(JsonNode) want = json_from_string (
      "[{\"uri\":\"skill://pdf-processing/templates/invoice.md\",\"name\":\"invoice.md\","
      "\"mimeType\":\"text/markdown\",\"size\":10},"
      "{\"uri\":\"skill://pdf-processing/templates/regional\",\"name\":\"regional\",\"mimeType\":\"inode/directory\"}]",
      NULL);

    g_assert_true (snodo_test_json_equal (json_object_get_member (result, "resources"), want));
  }
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "resources/directory/read", "\"uri\":\"skill://more\"");
  result = snodo_test_get_result (answer);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (result, "resources")), ==, 59);
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "resources/directory/read", "\"uri\":\"skill://pdf-processing/SKILL.md\"");
  g_assert_cmpint (error_code (answer), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_pointer (&answer, json_node_unref);
  answer = call (&pipe, modern, "resources/directory/read", "\"uri\":\"skill://pdf\"");
  g_assert_cmpint (error_code (answer), ==, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_pointer (&answer, json_node_unref);

  /* The SKILL.md is listed with the skill's name and description. */
  answer = call (&pipe, modern, "resources/list", NULL);
  result = snodo_test_get_result (answer);
  {
    JsonObject *first = json_array_get_object_element (json_object_get_array_member (result, "resources"), 0);

    g_assert_cmpstr (json_object_get_string_member (first, "uri"), ==, "skill://pdf-processing/SKILL.md");
    g_assert_cmpstr (json_object_get_string_member (first, "name"), ==, "pdf-processing");
    g_assert_cmpstr (json_object_get_string_member (first, "description"), ==, "Handles PDF");
  }
  g_clear_pointer (&answer, json_node_unref);

  snodo_test_pipe_tear_down (&pipe);
}

/* A client subscribed to a file (resources/subscribe in the initialize
 * era, subscriptions/listen in 2026-07-28): when the file changes on disk,
 * it is told the resource was updated and the list changed. */
static void
test_changes (gconstpointer data)
{
  gboolean modern = GPOINTER_TO_INT (data);
  g_autofree char *dir = make_skills_dir ();
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  SnodoServer *server = snodo_server_new ("test", "1");
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  gboolean updated = FALSE, list_changed = FALSE;
  SnodoTestPipe pipe;

  g_assert_true (snodo_server_add_skills_directory (server, file, NULL, &error));
  g_assert_no_error (error);
  snodo_test_pipe_set_up_for (&pipe, server);
  g_object_unref (server);
  if (modern)
    {
      g_autoptr(JsonNode) ack = NULL;

      snodo_test_pipe_write (&pipe, "{\"jsonrpc\":\"2.0\",\"id\":\"listen\",\"method\":\"subscriptions/listen\","
                             "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                             "\"io.modelcontextprotocol/clientCapabilities\":{}},\"notifications\":{"
                             "\"resourcesListChanged\":true,"
                             "\"resourceSubscriptions\":[\"skill://alpha/references/GUIDE.md\"]}}}\n");
      ack = snodo_test_pipe_read (&pipe);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (ack), "method"), ==,
                       "notifications/subscriptions/acknowledged");
    }
  else
    {
      answer = call (&pipe, FALSE, "initialize",
                     "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
      snodo_test_get_result (answer);
      g_clear_pointer (&answer, json_node_unref);
      snodo_test_pipe_write (&pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
      answer = call (&pipe, FALSE, "resources/subscribe", "\"uri\":\"skill://alpha/references/GUIDE.md\"");
      snodo_test_get_result (answer);
      g_clear_pointer (&answer, json_node_unref);
    }

  write_file (dir, "alpha/references/GUIDE.md", "A better guide\n");
  write_skill (dir, "epsilon", "Came later");
  while (!updated || !list_changed)
    {
      g_autoptr(JsonNode) message = snodo_test_pipe_read (&pipe);
      JsonObject *object = json_node_get_object (message);
      const char *method = json_object_get_string_member_with_default (object, "method", "");

      if (g_str_equal (method, "notifications/resources/updated"))
        {
          g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "params"), "uri"),
                           ==, "skill://alpha/references/GUIDE.md");
          updated = TRUE;
        }
      else if (g_str_equal (method, "notifications/resources/list_changed"))
        list_changed = TRUE;
    }
  /* Both seen: the skills are served as the disk now says, the new digest
   * with them. */
  while (snodo_server_lookup_skill (server, "skill://epsilon/SKILL.md") == NULL)
    g_main_context_iteration (NULL, TRUE);
  /* Notifications of a second reading may come before the answer. */
  snodo_test_pipe_write (&pipe, modern
                         ? "{\"jsonrpc\":\"2.0\",\"id\":1000,\"method\":\"resources/read\",\"params\":{"
                           "\"uri\":\"skill://alpha/references/GUIDE.md\",\"_meta\":{"
                           "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                           "\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n"
                         : "{\"jsonrpc\":\"2.0\",\"id\":1000,\"method\":\"resources/read\",\"params\":{"
                           "\"uri\":\"skill://alpha/references/GUIDE.md\"}}\n");
  do
    {
      g_clear_pointer (&answer, json_node_unref);
      answer = snodo_test_pipe_read (&pipe);
    }
  while (json_object_get_int_member_with_default (json_node_get_object (answer), "id", -1) != 1000);
  {
    JsonObject *content = json_array_get_object_element (json_object_get_array_member (
      snodo_test_get_result (answer), "contents"), 0);

    g_assert_cmpstr (json_object_get_string_member (content, "text"), ==, "A better guide\n");
  }
  g_clear_pointer (&answer, json_node_unref);

  /* A bundle removed goes. */
  {
    g_autofree char *beta = g_build_filename (dir, "beta", "SKILL.md", NULL);

    g_assert_cmpint (g_remove (beta), ==, 0);
  }
  while (snodo_server_lookup_skill (server, "skill://beta/SKILL.md") != NULL)
    g_main_context_iteration (NULL, TRUE);

  snodo_test_pipe_tear_down (&pipe);
  remove_tree (dir);
}

/* ---- SnodoClient against snodo-demo --skills-dir ------------------------- */

typedef struct
{
  gboolean             http;
  SnodoProtocolVersion pinned;
} Case;

static gpointer
finish (SnodoClient *client,
        gpointer    (*func) (SnodoClient *, GAsyncResult *, GError **),
        GAsyncResult **slot,
        GError      **error)
{
  gpointer result = func (client, snodo_test_wait_result (slot), error);

  g_clear_object (slot);
  return result;
}

static void
test_client (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *dir = make_skills_dir ();
  g_autofree char *option = g_strdup_printf ("--skills-dir=%s", dir);
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) done = NULL;
  g_autoptr(JsonArray) skills = NULL;
  g_autoptr(JsonObject) alpha = NULL;
  g_autoptr(GBytes) guide = NULL;
  g_autoptr(GBytes) binary = NULL;
  g_autoptr(GBytes) skill_md = NULL;
  g_autoptr(JsonArray) children = NULL;
  g_autofree char *uri = NULL;

  if (c->http)
    {
      demo = snodo_test_demo_http_start ((const char *[]) { option, NULL }, &uri);
      client = snodo_client_new_for_uri (uri, &error);
    }
  else
    client = snodo_client_new_for_argv ((const char *[]) { g_getenv ("SNODO_DEMO"), option, NULL }, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, c->pinned);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &done);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&done), &error));
  g_assert_no_error (error);
  g_clear_object (&done);
  g_assert_true (json_object_has_member (json_object_get_object_member (snodo_client_get_server_capabilities (client),
                                                                        "extensions"), SNODO_SKILLS_EXTENSION));

  snodo_client_list_skills_async (client, NULL, snodo_test_store_result_cb, &done);
  skills = finish (client, (gpointer) snodo_client_list_skills_finish, &done, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (skills), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (skills, 0), "uri"), ==,
                   "skill://alpha/SKILL.md");

  snodo_client_get_skill_async (client, "skill://alpha/SKILL.md", NULL, snodo_test_store_result_cb, &done);
  alpha = finish (client, (gpointer) snodo_client_get_skill_finish, &done, &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (json_object_get_member (alpha, "resources"),
                                  json_object_get_member (json_array_get_object_element (skills, 0), "resources")));

  snodo_client_read_skill_file_async (client, alpha, "skill://alpha/references/GUIDE.md", NULL,
                                      snodo_test_store_result_cb, &done);
  guide = finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (guide, NULL), g_bytes_get_size (guide), "A guide\n", 8);
  snodo_client_read_skill_file_async (client, alpha, "skill://alpha/bin/data.bin", NULL,
                                      snodo_test_store_result_cb, &done);
  binary = finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (binary, NULL), g_bytes_get_size (binary), "\x01\x02\xff", 3);

  /* The SKILL.md is checked against the entry's front matter too: as
   * served, it passes; once the entry says another description than the
   * file's (its digest and size still right), it is refused. */
  snodo_client_read_skill_file_async (client, alpha, "skill://alpha/SKILL.md", NULL, snodo_test_store_result_cb,
                                      &done);
  skill_md = finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error);
  g_assert_no_error (error);
  g_assert_nonnull (skill_md);
  {
    g_autoptr(JsonObject) tampered = json_object_ref (alpha);
    JsonObject *frontmatter = json_object_get_object_member (tampered, "frontmatter");
    g_autofree char *description = g_strdup (json_object_get_string_member (frontmatter, "description"));

    json_object_set_string_member (frontmatter, "description", "Another description");
    snodo_client_read_skill_file_async (client, tampered, "skill://alpha/SKILL.md", NULL,
                                        snodo_test_store_result_cb, &done);
    g_assert_null (finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
    g_clear_error (&error);
    /* A field the file has and the entry lacks is a discrepancy too. */
    json_object_set_string_member (frontmatter, "description", description);
    json_object_remove_member (frontmatter, "name");
    snodo_client_read_skill_file_async (client, tampered, "skill://alpha/SKILL.md", NULL,
                                        snodo_test_store_result_cb, &done);
    g_assert_null (finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
    g_clear_error (&error);
  }
  g_clear_pointer (&alpha, json_object_unref);
  snodo_client_get_skill_async (client, "skill://alpha/SKILL.md", NULL, snodo_test_store_result_cb, &done);
  alpha = finish (client, (gpointer) snodo_client_get_skill_finish, &done, &error);
  g_assert_no_error (error);

  /* A file the entry does not list, and content its digest does not
   * match, are refused. */
  snodo_client_read_skill_file_async (client, alpha, "skill://beta/SKILL.md", NULL, snodo_test_store_result_cb,
                                      &done);
  g_assert_null (finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
  g_clear_error (&error);
  {
    JsonArray *resources = json_object_get_array_member (alpha, "resources");

    for (guint i = 0; i < json_array_get_length (resources); i++)
      json_object_set_string_member (json_array_get_object_element (resources, i), "digest",
                                     "sha256:0000000000000000000000000000000000000000000000000000000000000000");
  }
  snodo_client_read_skill_file_async (client, alpha, "skill://alpha/references/GUIDE.md", NULL,
                                      snodo_test_store_result_cb, &done);
  g_assert_null (finish (client, (gpointer) snodo_client_read_skill_file_finish, &done, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
  g_clear_error (&error);

  snodo_client_read_directory_async (client, "skill://alpha", NULL, snodo_test_store_result_cb, &done);
  children = finish (client, (gpointer) snodo_client_read_directory_finish, &done, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (children), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (children, 1), "mimeType"), ==,
                   "inode/directory");

  snodo_client_get_skill_async (client, "skill://none/SKILL.md", NULL, snodo_test_store_result_cb, &done);
  g_assert_null (finish (client, (gpointer) snodo_client_get_skill_finish, &done, &error));
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_error (&error);

  snodo_test_close_client (client);
  if (demo != NULL)
    snodo_test_demo_stop (demo);
  remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  static const Case cases[] = {
    { FALSE, SNODO_PROTOCOL_VERSION_UNKNOWN },
    { FALSE, SNODO_PROTOCOL_VERSION_2025_11_25 },
    { TRUE, SNODO_PROTOCOL_VERSION_UNKNOWN },
    { TRUE, SNODO_PROTOCOL_VERSION_2025_11_25 },
  };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = NULL;

#if !SNODO_HAS_HTTP_TRANSPORT
      if (cases[i].http)
        continue;
#endif
      path = g_strdup_printf ("/skills/client/%s/%s", cases[i].http ? "http" : "stdio",
                              cases[i].pinned == SNODO_PROTOCOL_VERSION_UNKNOWN
                              ? "2026-07-28" : snodo_protocol_version_to_string (cases[i].pinned));
      g_test_add_data_func (path, &cases[i], test_client);
    }

  g_test_add_func ("/skills/frontmatter", test_frontmatter);
  g_test_add_func ("/skills/digest", test_digest);
  g_test_add_func ("/skills/skill", test_skill);
  g_test_add_func ("/skills/directory", test_directory);
  g_test_add_data_func ("/skills/methods/legacy", GINT_TO_POINTER (FALSE), test_methods);
  g_test_add_data_func ("/skills/methods/modern", GINT_TO_POINTER (TRUE), test_methods);
  g_test_add_data_func ("/skills/changes/legacy", GINT_TO_POINTER (FALSE), test_changes);
  g_test_add_data_func ("/skills/changes/modern", GINT_TO_POINTER (TRUE), test_changes);

  return g_test_run ();
}
