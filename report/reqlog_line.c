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

/* v in decimal at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
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

/* Column i's separator, and in JSON its key. */
static char *put_key(char *p, size_t i, enum reqlog_format f)
{
    if (f == REQLOG_JSONL) {
        *p++ = i ? ',' : '{';
        *p++ = '"';
        size_t n = strlen(names[i]);
        memcpy(p, names[i], n);
        p += n;
        *p++ = '"';
        *p++ = ':';
    } else if (i) {
        *p++ = f == REQLOG_TSV ? '\t' : ',';
    }
    return p;
}

size_t reqlog_format_line(char *dst, const struct reqlog_line *ln, enum reqlog_format f)
{
    char *p = dst;
    p = put_u64(put_key(p, 0, f), ln->start_ns / 1000);
    p = put_u64(put_key(p, 1, f), ns_to_us_rounded(ln->latency_ns));
    p = put_u64(put_key(p, 2, f), ns_to_us_rounded(ln->ttfb_ns));
    p = put_u64(put_key(p, 3, f), ln->status);
    p = put_key(p, 4, f);
    if (ln->error)
        p = put_text(p, ln->error, f);
    else if (f == REQLOG_JSONL) {
        memcpy(p, "null", 4);
        p += 4;
    }
    p = put_u64(put_key(p, 5, f), ln->bytes);
    p = put_u64(put_key(p, 6, f), ln->conn);
    p = put_u64(put_key(p, 7, f), ln->stream);
    p = put_u64(put_key(p, 8, f), ln->target);
    p = put_u64(put_key(p, 9, f), ln->thread);
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
