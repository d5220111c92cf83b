/* report/reqlog_line.c — one --log line in TSV, CSV or JSON Lines. Numbers
 * are written by hand (a digit loop, no snprintf): a line per request is
 * on the request path of every worker, and this keeps --log's cost to a
 * few hundred instructions a line (docs/performance.md). */
#include "reqlog_line.h"

#include <string.h>

static const char *const names[] = { "start_us", "latency_us", "ttfb_us", "status", "error", "bytes",
                                     "conn",     "stream",     "target",  "thread", "warmup" };
#define NCOLS (sizeof names / sizeof names[0])

size_t reqlog_header(char *dst, enum reqlog_format f)
{
    if (f == REQLOG_JSONL)
        return 0;
    char *p = dst;
    for (size_t i = 0; i < NCOLS; i++) {
        if (i)
            *p++ = f == REQLOG_TSV ? '\t' : ',';
        size_t n = strlen(names[i]);
        memcpy(p, names[i], n);
        p += n;
    }
    *p++ = '\n';
    return (size_t)(p - dst);
}

/* v in decimal at p; returns the end. Two digits a step from a table of
 * pairs, written backwards from the end, whose place is found first: no
 * temporary, no copy (this is most of a line's cost). */
static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

#define INLINE static inline __attribute__((always_inline))

INLINE char *put_pair(char *q, unsigned r)
{
    q[0] = pairs[2 * r];
    q[1] = pairs[2 * r + 1];
    return q + 2;
}

/* v < 2^32 (every figure of a line but the start time): 32-bit division,
 * a multiply and a shift, and the width found by comparisons. */
INLINE char *put_u32(char *p, uint32_t v)
{
    unsigned n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6
               : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
    char *end = p + n, *q = end;
    while (v >= 100) {
        q -= 2;
        put_pair(q, v % 100);
        v /= 100;
    }
    if (v >= 10)
        put_pair(q - 2, v);
    else
        q[-1] = (char)('0' + v);
    return end;
}

/* v's last `digits` digits (even), zero-padded. */
INLINE char *put_fixed(char *p, uint32_t v, unsigned digits)
{
    for (unsigned i = digits; i > 0; i -= 2) {
        put_pair(p + i - 2, v % 100);
        v /= 100;
    }
    return p + digits;
}

static char *put_u64_wide(char *p, uint64_t v);

INLINE char *put_u64(char *p, uint64_t v)
{
    return v <= UINT32_MAX ? put_u32(p, (uint32_t)v) : put_u64_wide(p, v);
}

static char *put_u64_wide(char *p, uint64_t v)
{
    p = put_u64(p, v / 100000000);
    return put_fixed(p, (uint32_t)(v % 100000000), 8);
}

/* The start time in µs: its seconds come from the cache while they stay
 * the same (a worker's lines share them for a second), the six digits of
 * the microsecond always. */
INLINE char *put_start(char *p, uint64_t start_ns, struct reqlog_cache *cache)
{
    uint64_t us = start_ns / 1000, sec = us / 1000000;
    uint32_t frac = (uint32_t)(us % 1000000);
    if (sec == 0)
        return put_u32(p, frac);
    if (!cache)
        p = put_u64(p, sec);
    else {
        if (cache->len == 0 || cache->sec != sec) {
            cache->sec = sec;
            cache->len = (uint8_t)(put_u64(cache->text, sec) - cache->text);
        }
        memcpy(p, cache->text, sizeof cache->text);
        p += cache->len;
    }
    return put_fixed(p, frac, 6);
}

/* Nanoseconds as microseconds, to the nearest (a latency of 1499 ns is
 * 1 µs, 1500 ns is 2 µs): the log's latencies then sit within 0.5 µs of
 * what the report's histogram recorded. */
static uint64_t ns_to_us_rounded(uint64_t ns) { return ns / 1000 + (ns % 1000 >= 500); }

/* Text as a field. CSV (RFC 4180 §2): quoted when it holds a separator,
 * quote, line break or space, quotes doubled. JSON (RFC 8259 §7): a string,
 * '"', '\' and control characters escaped. TSV: tabs and line breaks, which
 * would split the line, become spaces. Error kind names are short ASCII;
 * the escaping keeps any future one from breaking a line. */
static char *put_text(char *p, const char *s, enum reqlog_format f)
{
    size_t n = strlen(s);
    if (n > 64)
        n = 64; /* bounded: REQLOG_LINE_MAX holds it escaped */
    if (f == REQLOG_TSV) {
        for (size_t i = 0; i < n; i++)
            *p++ = s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
        return p;
    }
    if (f == REQLOG_CSV && strcspn(s, ",\"\r\n ") >= n) {
        memcpy(p, s, n);
        return p + n;
    }
    *p++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (f == REQLOG_CSV) {
            if (c == '"')
                *p++ = '"';
            *p++ = (char)c;
        } else if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            memcpy(p, "\\u00", 4);
            p[4] = hex[c >> 4];
            p[5] = hex[c & 15];
            p += 6;
        } else {
            *p++ = (char)c;
        }
    }
    *p++ = '"';
    return p;
}

/* Each column's JSON lead-in, the separator included: {"start_us":, ... */
#define KEY(s) { s, sizeof s - 1 }
static const struct {
    char text[16]; /* padded: put_key copies all 16 */
    uint8_t len;
} keys[NCOLS] = {
    KEY("{\"start_us\":"), KEY(",\"latency_us\":"), KEY(",\"ttfb_us\":"), KEY(",\"status\":"),
    KEY(",\"error\":"),    KEY(",\"bytes\":"),      KEY(",\"conn\":"),    KEY(",\"stream\":"),
    KEY(",\"target\":"),   KEY(",\"thread\":"),     KEY(",\"warmup\":"),
};

/* Column i's separator, and in JSON its key (a constant-size copy the
 * compiler inlines: keys are at most 16 bytes, and a line has room). */
INLINE char *put_key(char *p, size_t i, enum reqlog_format f)
{
    if (f == REQLOG_JSONL) {
        memcpy(p, keys[i].text, 16);
        return p + keys[i].len;
    }
    if (i)
        *p++ = f == REQLOG_TSV ? '\t' : ',';
    return p;
}

/* The line in format f: inlined once per format (reqlog_format_line), so
 * that each one's separators and keys are constants. */
INLINE size_t format_as(char *dst, const struct reqlog_line *ln, enum reqlog_format f, struct reqlog_cache *cache)
{
    char *p = dst;
    p = put_start(put_key(p, 0, f), ln->start_ns, cache);
    p = put_u64(put_key(p, 1, f), ns_to_us_rounded(ln->latency_ns));
    p = put_u64(put_key(p, 2, f), ns_to_us_rounded(ln->ttfb_ns));
    p = put_u32(put_key(p, 3, f), ln->status);
    p = put_key(p, 4, f);
    if (ln->error)
        p = put_text(p, ln->error, f);
    else if (f == REQLOG_JSONL) {
        memcpy(p, "null", 4);
        p += 4;
    }
    p = put_u64(put_key(p, 5, f), ln->bytes);
    p = put_u32(put_key(p, 6, f), ln->conn);
    p = put_u64(put_key(p, 7, f), ln->stream);
    p = put_u32(put_key(p, 8, f), ln->target);
    p = put_u32(put_key(p, 9, f), ln->thread);
    p = put_key(p, 10, f);
    if (f == REQLOG_JSONL) {
        const char *b = ln->warmup ? "true}" : "false}";
        size_t n = strlen(b);
        memcpy(p, b, n);
        p += n;
    } else {
        *p++ = ln->warmup ? '1' : '0';
    }
    *p++ = '\n';
    return (size_t)(p - dst);
}

size_t reqlog_format_line(char *dst, const struct reqlog_line *ln, enum reqlog_format f, struct reqlog_cache *cache)
{
    if (f == REQLOG_CSV)
        return format_as(dst, ln, REQLOG_CSV, cache);
    if (f == REQLOG_JSONL)
        return format_as(dst, ln, REQLOG_JSONL, cache);
    return format_as(dst, ln, REQLOG_TSV, cache);
}
