/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* What the JSON reader (snodo-json.c, snodo-json-text.c) and writer
 * (snodo-json-writer.c) share: scanning strings a word at a time, and the
 * rules of UTF-8. For those files only. */

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

/*
 * Where SSE2 is there (every x86-64), sixteen bytes at a time: the same
 * three tests, on a vector, give a mask of the bytes of interest.
 */
#if defined (__SSE2__) && defined (__GNUC__)
#include <emmintrin.h>

#define SNODO_JSON_HAVE_BLOCKS 1

static inline int
snodo_json_block_stops_read (__m128i block)
{
  __m128i quote = _mm_cmpeq_epi8 (block, _mm_set1_epi8 ('"'));
  __m128i backslash = _mm_cmpeq_epi8 (block, _mm_set1_epi8 ('\\'));
  /* Unsigned block <= 0x1f: min (block, 0x1f) == block. */
  __m128i control = _mm_cmpeq_epi8 (_mm_min_epu8 (block, _mm_set1_epi8 (0x1f)), block);

  return _mm_movemask_epi8 (_mm_or_si128 (_mm_or_si128 (quote, backslash), control));
}

static inline int
snodo_json_block_stops_write (__m128i block)
{
  return snodo_json_block_stops_read (block) | _mm_movemask_epi8 (block);
}

static inline int
snodo_json_block_stops_validate (__m128i block)
{
  return _mm_movemask_epi8 (_mm_or_si128 (block, _mm_cmpeq_epi8 (block, _mm_setzero_si128 ())));
}

static inline __m128i
snodo_json_load_block (const guchar *p)
{
  return _mm_loadu_si128 ((const __m128i *) p);
}

/* Skips the blocks of sixteen plain bytes at *@p (two at a time while it
 * can). Returns TRUE with *@p at the first byte of interest when it found
 * one, FALSE with fewer than sixteen bytes left otherwise. */
#define SNODO_JSON_DEFINE_SKIP_BLOCKS(kind)                                               \
  static inline gboolean                                                                  \
  snodo_json_skip_blocks_##kind (const guchar **pp,                                       \
                                 const guchar  *end)                                      \
  {                                                                                       \
    const guchar *p = *pp;                                                                \
    int mask;                                                                             \
                                                                                          \
    for (; end - p >= 32; p += 32)                                                        \
      {                                                                                   \
        int low = snodo_json_block_stops_##kind (snodo_json_load_block (p));              \
        int high = snodo_json_block_stops_##kind (snodo_json_load_block (p + 16));        \
                                                                                          \
        if ((low | high) != 0)                                                            \
          {                                                                               \
            *pp = p + (low != 0 ? __builtin_ctz (low) : 16 + __builtin_ctz (high)); \
            return TRUE;                                                                  \
          }                                                                               \
      }                                                                                   \
    if (end - p >= 16)                                                                    \
      {                                                                                   \
        mask = snodo_json_block_stops_##kind (snodo_json_load_block (p));                 \
        if (mask != 0)                                                                    \
          {                                                                               \
            *pp = p + __builtin_ctz (mask);                                           \
            return TRUE;                                                                  \
          }                                                                               \
        p += 16;                                                                          \
      }                                                                                   \
    *pp = p;                                                                              \
    return FALSE;                                                                         \
  }

SNODO_JSON_DEFINE_SKIP_BLOCKS (read)
SNODO_JSON_DEFINE_SKIP_BLOCKS (write)
SNODO_JSON_DEFINE_SKIP_BLOCKS (validate)

#define SKIP_PLAIN_BLOCKS(p, end, kind)                                                     \
  snodo_json_skip_blocks_##kind ((const guchar **) &(p), (const guchar *) (end))
#else
#define SKIP_PLAIN_BLOCKS(p, end, kind) FALSE
#endif

/* Skips the words of plain bytes at @p (blocks of sixteen with SSE2, then
 * words of eight, two at a time while it can), stopping at the word that
 * holds a byte snodo_json_word_stops_KIND() flags (with SSE2: at that very
 * byte), or when fewer than eight bytes are left. @kind: read, write or
 * validate. */
#define SKIP_PLAIN_WORDS(p, end, kind)                                                     \
  G_STMT_START {                                                                          \
    if (!SKIP_PLAIN_BLOCKS (p, end, kind))                                                \
      {                                                                                   \
        while ((end) - (p) >= 16 &&                                                       \
               (snodo_json_word_stops_##kind (snodo_json_load_word ((const guchar *) (p))) | \
                snodo_json_word_stops_##kind (snodo_json_load_word ((const guchar *) (p) + 8))) == 0) \
          (p) += 16;                                                                      \
        while ((end) - (p) >= 8 &&                                                        \
               snodo_json_word_stops_##kind (snodo_json_load_word ((const guchar *) (p))) == 0) \
          (p) += 8;                                                                       \
      }                                                                                   \
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
