/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* What the JSON reader (snodo-json.c) and writer (snodo-json-writer.c)
 * share: scanning strings a word at a time, and the rules of UTF-8. For
 * those two files only. */

#pragma once

#include <string.h>

#include <glib.h>

/*
 * Strings are scanned eight bytes at a time: a word of plain bytes is
 * skipped with a few arithmetic operations, and only a word that holds a
 * byte of interest is looked at byte by byte. The tests below say exactly
 * whether a word holds such a byte (the flag they set may be wrong for the
 * bytes after the first one, which is why the byte loop finds it).
 */

#define WORD_ONES  G_GUINT64_CONSTANT (0x0101010101010101)
#define WORD_HIGHS G_GUINT64_CONSTANT (0x8080808080808080)

/* Bytes equal to 0, equal to @c, below @n (@n <= 0x80), or >= 0x80. */
#define WORD_HAS_ZERO(w)     (((w) - WORD_ONES) & ~(w) & WORD_HIGHS)
#define WORD_HAS_BYTE(w, c)  WORD_HAS_ZERO ((w) ^ (WORD_ONES * (c)))
#define WORD_HAS_LESS(w, n)  (((w) - WORD_ONES * (n)) & ~(w) & WORD_HIGHS)
#define WORD_HAS_HIGH(w)     ((w) & WORD_HIGHS)

static inline guint64
snodo_json_load_word (const guchar *p)
{
  guint64 word;

  memcpy (&word, p, sizeof word);
  return word;
}

/* Inside a string being read, the bytes that end a run: '"', '\\' and
 * control characters. Non-zero when @word holds one. */
static inline guint64
snodo_json_word_stops_read (guint64 word)
{
  return WORD_HAS_BYTE (word, '"') | WORD_HAS_BYTE (word, '\\') | WORD_HAS_LESS (word, 0x20);
}

/* Inside a string being written: the same, and bytes >= 0x80. */
static inline guint64
snodo_json_word_stops_write (guint64 word)
{
  return snodo_json_word_stops_read (word) | WORD_HAS_HIGH (word);
}

/* For validating UTF-8: bytes >= 0x80, and NUL bytes. */
static inline guint64
snodo_json_word_stops_validate (guint64 word)
{
  return WORD_HAS_HIGH (word) | WORD_HAS_ZERO (word);
}

/* Skips the words of plain bytes at @p (two at a time while it can),
 * stopping at the word that holds a byte @stops flags, or when fewer than
 * eight bytes are left. */
#define SKIP_PLAIN_WORDS(p, end, stops)                                                    \
  G_STMT_START {                                                                          \
    while ((end) - (p) >= 16 &&                                                           \
           (stops (snodo_json_load_word ((const guchar *) (p))) |                         \
            stops (snodo_json_load_word ((const guchar *) (p) + 8))) == 0)                \
      (p) += 16;                                                                          \
    while ((end) - (p) >= 8 && stops (snodo_json_load_word ((const guchar *) (p))) == 0)  \
      (p) += 8;                                                                           \
  } G_STMT_END

/* The length of the well-formed UTF-8 sequence (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF) that starts with the byte
 * >= 0x80 at @p and ends before @end, or 0 when there is none: exactly
 * what g_utf8_validate_len() and g_utf8_get_char_validated() accept. */
static inline guint
snodo_json_utf8_sequence (const guchar *p,
                          const guchar *end)
{
  guchar c = p[0];
  guchar low = 0x80;
  guchar high = 0xbf;

  if (c < 0xc2)
    return 0;
  if (c < 0xe0)
    return end - p >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
  if (c < 0xf0)
    {
      if (c == 0xe0)
        low = 0xa0;
      else if (c == 0xed)
        high = 0x9f;
      return end - p >= 3 && p[1] >= low && p[1] <= high && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
  if (c < 0xf5)
    {
      if (c == 0xf0)
        low = 0x90;
      else if (c == 0xf4)
        high = 0x8f;
      return end - p >= 4 && p[1] >= low && p[1] <= high && (p[2] & 0xc0) == 0x80 &&
             (p[3] & 0xc0) == 0x80 ? 4 : 0;
    }
  return 0;
}
