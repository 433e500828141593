/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * mcp-json.h: the little JSON the load generators need, with no allocation.
 *
 * A load generator must stay much cheaper than the server it measures, yet
 * check every answer. These helpers validate a whole message (so garbage is
 * caught, not just skipped) and look members up in place. Header-only, with
 * static functions: each load generator is one translation unit.
 */

#ifndef MCP_JSON_H
#define MCP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MJ_MAX_DEPTH 64

static const char *
mj_ws (const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

static int
mj_hex (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* @p at the opening quote; returns the position after the closing quote. */
static const char *
mj_skip_string (const char *p, const char *end)
{
  p++;
  while (p < end)
    {
      unsigned char c = (unsigned char) *p;

      if (c == '"')
        return p + 1;
      if (c < 0x20)
        return NULL;
      if (c == '\\')
        {
          if (++p >= end)
            return NULL;
          if (*p == 'u')
            {
              if (end - p < 5 || mj_hex (p[1]) < 0 || mj_hex (p[2]) < 0 || mj_hex (p[3]) < 0 || mj_hex (p[4]) < 0)
                return NULL;
              p += 5;
              continue;
            }
          if (!strchr ("\"\\/bfnrt", *p))
            return NULL;
          p++;
          continue;
        }
      /* Plain bytes: jump to the next quote, backslash or control byte,
       * sixteen (SSE2) then eight bytes at a time (a 10 KiB answer, read
       * several times, must not make the client the bottleneck). */
      {
        const char *q = p + 1;

#ifdef __SSE2__
        while (end - q >= 16)
          {
            __m128i v = _mm_loadu_si128 ((const __m128i *) q);
            __m128i stop = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ('"')),
                                                       _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('\\'))),
                                         _mm_cmpeq_epi8 (_mm_min_epu8 (v, _mm_set1_epi8 (0x1f)), v));
            int mask = _mm_movemask_epi8 (stop);

            if (mask != 0)
              {
                q += __builtin_ctz (mask);
                break;
              }
            q += 16;
          }
#endif

        while (end - q >= 8)
          {
            uint64_t v, quote, backslash, control;

            memcpy (&v, q, 8);
            quote = v ^ UINT64_C (0x2222222222222222);
            backslash = v ^ UINT64_C (0x5c5c5c5c5c5c5c5c);
            quote = (quote - UINT64_C (0x0101010101010101)) & ~quote;
            backslash = (backslash - UINT64_C (0x0101010101010101)) & ~backslash;
            control = (v - UINT64_C (0x2020202020202020)) & ~v;
            if ((quote | backslash | control) & UINT64_C (0x8080808080808080))
              break;
            q += 8;
          }
        while (q < end && *q != '"' && *q != '\\' && (unsigned char) *q >= 0x20)
          q++;
        p = q;
      }
    }
  return NULL;
}

static const char *
mj_skip_number (const char *p, const char *end)
{
  const char *start;

  if (p < end && *p == '-')
    p++;
  start = p;
  while (p < end && *p >= '0' && *p <= '9')
    p++;
  if (p == start)
    return NULL;
  if (p < end && *p == '.')
    {
      p++;
      start = p;
      while (p < end && *p >= '0' && *p <= '9')
        p++;
      if (p == start)
        return NULL;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      start = p;
      while (p < end && *p >= '0' && *p <= '9')
        p++;
      if (p == start)
        return NULL;
    }
  return p;
}

static const char *mj_skip_value_depth (const char *p, const char *end, int depth);

static const char *
mj_skip_container (const char *p, const char *end, int depth)
{
  char close = *p == '{' ? '}' : ']';
  bool object = *p == '{';

  if (depth > MJ_MAX_DEPTH)
    return NULL;
  p = mj_ws (p + 1, end);
  if (p < end && *p == close)
    return p + 1;
  for (;;)
    {
      if (object)
        {
          if (p >= end || *p != '"' || !(p = mj_skip_string (p, end)))
            return NULL;
          p = mj_ws (p, end);
          if (p >= end || *p != ':')
            return NULL;
          p = mj_ws (p + 1, end);
        }
      if (!(p = mj_skip_value_depth (p, end, depth + 1)))
        return NULL;
      p = mj_ws (p, end);
      if (p >= end)
        return NULL;
      if (*p == close)
        return p + 1;
      if (*p != ',')
        return NULL;
      p = mj_ws (p + 1, end);
    }
}

static const char *
mj_skip_value_depth (const char *p, const char *end, int depth)
{
  p = mj_ws (p, end);
  if (p >= end)
    return NULL;
  switch (*p)
    {
    case '{':
    case '[':
      return mj_skip_container (p, end, depth);
    case '"':
      return mj_skip_string (p, end);
    case 't':
      return end - p >= 4 && memcmp (p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f':
      return end - p >= 5 && memcmp (p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n':
      return end - p >= 4 && memcmp (p, "null", 4) == 0 ? p + 4 : NULL;
    default:
      return mj_skip_number (p, end);
    }
}

/* Skips one value; NULL if it is not valid JSON. */
static const char *
mj_skip_value (const char *p, const char *end)
{
  return mj_skip_value_depth (p, end, 0);
}

/* True if [p, end) is exactly one JSON value, whitespace around it allowed. */
static bool
mj_valid (const char *p, const char *end)
{
  p = mj_skip_value (p, end);
  return p != NULL && mj_ws (p, end) == end;
}

/* A value in a message: [start, end) spans it, kind is its first byte. */
typedef struct
{
  const char *start;
  const char *end;
} MjValue;

/*
 * Finds member @key (no escapes in it) of the object at @obj (already
 * validated). Keys are compared as written on the wire.
 */
static bool
mj_get (MjValue obj, const char *key, MjValue *out)
{
  const char *p = mj_ws (obj.start, obj.end);
  const char *end = obj.end;
  size_t klen = strlen (key);

  if (p >= end || *p != '{')
    return false;
  p = mj_ws (p + 1, end);
  while (p < end && *p == '"')
    {
      const char *kstart = p + 1;
      const char *kend = mj_skip_string (p, end);
      bool match;

      if (!kend)
        return false;
      match = (size_t) (kend - 1 - kstart) == klen && memcmp (kstart, key, klen) == 0;
      p = mj_ws (kend, end);
      if (p >= end || *p != ':')
        return false;
      p = mj_ws (p + 1, end);
      out->start = p;
      if (!(p = mj_skip_value (p, end)))
        return false;
      out->end = p;
      if (match)
        return true;
      p = mj_ws (p, end);
      if (p < end && *p == ',')
        p = mj_ws (p + 1, end);
    }
  return false;
}

/* The first element of the array @arr, if any. */
static bool
mj_first (MjValue arr, MjValue *out)
{
  const char *p = mj_ws (arr.start, arr.end);

  if (p >= arr.end || *p != '[')
    return false;
  p = mj_ws (p + 1, arr.end);
  if (p >= arr.end || *p == ']')
    return false;
  out->start = p;
  if (!(out->end = mj_skip_value (p, arr.end)))
    return false;
  return true;
}

static bool
mj_is (MjValue v, const char *literal)
{
  size_t len = strlen (literal);
  return (size_t) (v.end - v.start) == len && memcmp (v.start, literal, len) == 0;
}

/* An integer value; false for anything else. */
static bool
mj_int (MjValue v, int64_t *out)
{
  const char *p = v.start;
  bool neg = false;
  int64_t n = 0;

  if (p < v.end && *p == '-')
    {
      neg = true;
      p++;
    }
  if (p >= v.end)
    return false;
  for (; p < v.end; p++)
    {
      if (*p < '0' || *p > '9')
        return false;
      n = n * 10 + (*p - '0');
    }
  *out = neg ? -n : n;
  return true;
}

static size_t
mj_put_utf8 (uint32_t cp, char *out)
{
  if (cp < 0x80)
    {
      out[0] = (char) cp;
      return 1;
    }
  if (cp < 0x800)
    {
      out[0] = (char) (0xC0 | (cp >> 6));
      out[1] = (char) (0x80 | (cp & 0x3F));
      return 2;
    }
  if (cp < 0x10000)
    {
      out[0] = (char) (0xE0 | (cp >> 12));
      out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
      out[2] = (char) (0x80 | (cp & 0x3F));
      return 3;
    }
  out[0] = (char) (0xF0 | (cp >> 18));
  out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char) (0x80 | (cp & 0x3F));
  return 4;
}

/*
 * True if the string value @v, unescaped, equals the @len bytes of @prefix
 * followed by the @len2 bytes of @text.
 */
static bool
mj_string_equals2 (MjValue v,
                   const char *prefix, size_t len,
                   const char *text, size_t len2)
{
  const char *p = v.start;
  const char *end = v.end - 1;
  size_t i = 0;
  size_t total = len + len2;

  if (v.end - v.start < 2 || *p != '"' || *end != '"')
    return false;
  p++;
  while (p < end)
    {
      char buf[4];
      size_t n;

      if (*p != '\\')
        {
          /* Fast path: compare a run of plain bytes. */
          const char *q = memchr (p, '\\', (size_t) (end - p));

          if (q == NULL)
            q = end;
          n = (size_t) (q - p);
          if (i + n > total)
            return false;
          for (size_t k = 0; k < n;)
            {
              size_t off = i + k;
              if (off < len)
                {
                  size_t m = len - off < n - k ? len - off : n - k;
                  if (memcmp (p + k, prefix + off, m) != 0)
                    return false;
                  k += m;
                }
              else
                {
                  if (memcmp (p + k, text + (off - len), n - k) != 0)
                    return false;
                  k = n;
                }
            }
          i += n;
          p = q;
          continue;
        }
      p++;
      switch (*p)
        {
        case 'n': buf[0] = '\n'; n = 1; p++; break;
        case 't': buf[0] = '\t'; n = 1; p++; break;
        case 'r': buf[0] = '\r'; n = 1; p++; break;
        case 'b': buf[0] = '\b'; n = 1; p++; break;
        case 'f': buf[0] = '\f'; n = 1; p++; break;
        case 'u':
          {
            uint32_t cp = (uint32_t) (mj_hex (p[1]) << 12 | mj_hex (p[2]) << 8 | mj_hex (p[3]) << 4 | mj_hex (p[4]));
            p += 5;
            if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u')
              {
                uint32_t lo = (uint32_t) (mj_hex (p[2]) << 12 | mj_hex (p[3]) << 8 | mj_hex (p[4]) << 4 | mj_hex (p[5]));
                if (lo >= 0xDC00 && lo < 0xE000)
                  {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                  }
              }
            n = mj_put_utf8 (cp, buf);
          }
          break;
        default:
          buf[0] = *p;
          n = 1;
          p++;
          break;
        }
      for (size_t k = 0; k < n; k++, i++)
        {
          char want;
          if (i >= total)
            return false;
          want = i < len ? prefix[i] : text[i - len];
          if (buf[k] != want)
            return false;
        }
    }
  return i == total;
}

#endif /* MCP_JSON_H */
