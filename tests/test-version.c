/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"

static void
test_runtime_matches_headers (void)
{
  g_autofree char *version = NULL;

  g_test_summary ("The library built with these headers reports their version at run time");

  g_assert_cmpuint (snodo_get_major_version (), ==, SNODO_MAJOR_VERSION);
  g_assert_cmpuint (snodo_get_minor_version (), ==, SNODO_MINOR_VERSION);
  g_assert_cmpuint (snodo_get_micro_version (), ==, SNODO_MICRO_VERSION);

  version = g_strdup_printf ("%u.%u.%u", snodo_get_major_version (),
                             snodo_get_minor_version (), snodo_get_micro_version ());
  g_assert_cmpstr (version, ==, SNODO_VERSION_S);
  g_assert_cmpstr (version, ==, PACKAGE_VERSION);
}

static void
test_check_version (void)
{
  guint major = SNODO_MAJOR_VERSION;
  guint minor = SNODO_MINOR_VERSION;
  guint micro = SNODO_MICRO_VERSION;

  g_test_summary ("snodo_check_version() accepts this version and older ones of the same "
                  "major version, and explains every other answer");

  g_assert_null (snodo_check_version (major, minor, micro));
  g_assert_null (snodo_check_version (major, 0, 0));
  if (micro > 0)
    g_assert_null (snodo_check_version (major, minor, micro - 1));
  if (minor > 0)
    g_assert_null (snodo_check_version (major, minor - 1, G_MAXUINT));

  g_assert_nonnull (snodo_check_version (major, minor, micro + 1));
  g_assert_nonnull (snodo_check_version (major, minor + 1, 0));
  g_assert_nonnull (snodo_check_version (major + 1, 0, 0));
  if (major > 0)
    g_assert_nonnull (snodo_check_version (major - 1, minor, micro));

  g_assert_true (g_str_has_prefix (snodo_check_version (major, minor + 1, 0),
                                   "Snodo version too old"));
  g_assert_true (g_str_has_prefix (snodo_check_version (major + 1, 0, 0),
                                   "Snodo version too old"));
}

static void
test_check_version_macro (void)
{
  g_assert_true (SNODO_CHECK_VERSION (SNODO_MAJOR_VERSION, SNODO_MINOR_VERSION, SNODO_MICRO_VERSION));
  g_assert_true (SNODO_CHECK_VERSION (0, 0, 0));
  g_assert_false (SNODO_CHECK_VERSION (SNODO_MAJOR_VERSION, SNODO_MINOR_VERSION, SNODO_MICRO_VERSION + 1));
  g_assert_false (SNODO_CHECK_VERSION (SNODO_MAJOR_VERSION + 1, 0, 0));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/version/runtime", test_runtime_matches_headers);
  g_test_add_func ("/snodo/version/check", test_check_version);
  g_test_add_func ("/snodo/version/check-macro", test_check_version_macro);

  return g_test_run ();
}
