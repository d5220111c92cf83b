/* h1.c — HTTP/1.1 request bytes and response boundary scanner (RFC 9112).
 *
 * The request is built once at start-up. Responses are scanned, not parsed: a
 * load generator only needs the status and where each response ends, so the
 * scanner reads the status line, Content-Length, Transfer-Encoding and
 * Connection, steps over every other header line with memchr, and skips
 * bodies by count.
 *
 * Lines. A line that arrives whole in one feed is read in place. Only a line
 * split across feeds is carried in s->line, and only if it matters: the status
 * line, a chunk-size line, a line that may end a section (starts with CR), or
 * a header line whose name may still turn out to be one of the three we read.
 * A line longer than s->line is read as its first sizeof s->line bytes and
 * marked cut, whether it was carried or found whole, so the outcome never
 * depends on where a feed was split. What a cut line means depends on the line:
 *   - status line, chunk-size line: the prefix holds everything we read (the
 *     reason phrase and chunk extensions are ignored);
 *   - Content-Length, Transfer-Encoding: H1_ERROR (no valid value is that long);
 *   - Connection: the elements in the prefix count, and the connection is
 *     taken to close, since a "close" may have been cut off. Assuming close is
 *     the safe side: it costs a reconnect, never a lost response.
 *
 * Limitations (deliberate): obs-fold continuation lines (RFC 9112 §5.2) are
 * stepped over like any other line that does not start with c or t, so a
 * folded Content-Length/Connection value is read without its continuation.
 * Header lines we step over are not validated. */
#include "h1.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- request */

/* Writes into buf, or with buf NULL only counts (shb_request_writer). */
struct writer {
    uint8_t *buf;
    size_t len;
};

static void put(struct writer *w, const void *p, size_t n)
{
    if (w->buf && n)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_str(struct writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static void put_header(struct writer *w, const char *name, const char *value)
{
    put_str(w, name);
    put_str(w, ":");
    if (value && *value) {
        put_str(w, " ");
        put_str(w, value);
    }
    put_str(w, "\r\n");
}

static size_t write_request(const struct shb_request *o, const struct shb_field *f, size_t n, uint8_t *out)
{
    struct writer w = { out, 0 };
    put_str(&w, shb_request_method(o));
    put_str(&w, " ");
    const char *scheme, *authority;
    shb_request_origin(o, &scheme, &authority);
    put_str(&w, scheme);
    put_str(&w, authority);
    put_str(&w, shb_request_target(o));
    put_str(&w, " HTTP/1.1\r\n");
    for (size_t i = 0; i < n; i++)
        put_header(&w, f[i].name, f[i].value);
    put_str(&w, "\r\n");
    if (o->has_body)
        put(&w, o->body, o->body_len);
    return w.len;
}

uint8_t *h1_build_request(const struct shb_request *o, size_t *len)
{
    return shb_request_encode(o, SHB_FIELDS_H1, write_request, len);
}

/* ---------------------------------------------------------------- scanner */

enum scan_state {
    ST_STATUS,        /* the status line */
    ST_HEADER,        /* at a header line start, or carrying an interesting one */
    ST_HEADER_SKIP,   /* inside a header line we do not read */
    ST_BODY,          /* Content-Length body: `remaining` bytes to skip */
    ST_CHUNK_SIZE,    /* chunk-size [ chunk-ext ] line */
    ST_CHUNK_DATA,    /* `remaining` bytes of chunk data */
    ST_CHUNK_END,     /* the CRLF after chunk data */
    ST_TRAILER,       /* at a trailer line start, or carrying the final CR */
    ST_TRAILER_SKIP,  /* inside a trailer line */
    ST_UNTIL_CLOSE,   /* body delimited by the server closing */
    ST_FAILED,        /* sticky until h1_scanner_reset */
};

/* Per-response flags, kept in s->skip (the header calls it internal). */
#define F_STARTED   0x01u /* a 1xx of this exchange was consumed */
#define F_CUT       0x02u /* the carried line overflowed s->line */
#define F_HTTP10    0x04u /* status line said HTTP/1.0 */
#define F_KEEPALIVE 0x08u /* Connection: keep-alive */
#define F_TE        0x10u /* Transfer-Encoding present */

enum step { STEP_GO, STEP_DONE, STEP_FAIL };

enum header_kind {
    HDR_OTHER,
    HDR_UNDECIDED,   /* a partial name that may still become interesting */
    HDR_BAD,         /* interesting name followed by whitespace before ':' */
    HDR_CONTENT_LENGTH,
    HDR_TRANSFER_ENCODING,
    HDR_CONNECTION,
};

static const struct {
    const char *name; /* lower case */
    size_t len;
    enum header_kind kind;
} interesting_headers[] = {
    { "content-length", 14, HDR_CONTENT_LENGTH },
    { "connection", 10, HDR_CONNECTION },
    { "transfer-encoding", 17, HDR_TRANSFER_ENCODING },
};

/* Clears what one response head set. 1xx heads reuse it, keeping F_STARTED. */
static void begin_head(struct h1_scanner *s, uint32_t keep_flags)
{
    s->state = ST_STATUS;
    s->chunked = false;
    s->close = false;
    s->have_len = false;
    s->status = 0;
    s->remaining = 0;
    s->linelen = 0;
    s->skip &= keep_flags;
    if (!keep_flags)
        s->headbytes = 0; /* a 1xx's head counts toward its final response's */
}

void h1_scanner_reset(struct h1_scanner *s, bool head)
{
    memset(s, 0, sizeof *s);
    s->head = head;
    begin_head(s, 0);
}

bool h1_scan_started(const struct h1_scanner *s)
{
    return s->state != ST_STATUS || s->linelen > 0 || (s->skip & F_STARTED);
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* The one-byte test that decides whether a header line is worth looking at:
 * c/C or t/T may start an interesting name; CR or LF may end the section.
 * (c | 0x20) maps only 'C' and 'c' to 'c', and only 'T' and 't' to 't'. */
static bool may_matter(uint8_t c)
{
    uint8_t lower = c | 0x20;
    return lower == 'c' || lower == 't' || c == '\r' || c == '\n';
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static bool ieq_lower(const char *b, const char *lower, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ascii_lower((unsigned char)b[i]) != lower[i])
            return false;
    return true;
}

/* Which header a line (or the first n bytes of one) is. The byte after the
 * name is tested first, so most non-matching names cost one compare. */
static enum header_kind classify_name(const char *b, size_t n)
{
    char first = (char)(b[0] | 0x20);
    enum header_kind kind = HDR_OTHER;
    for (size_t k = 0; k < sizeof interesting_headers / sizeof interesting_headers[0]; k++) {
        const char *name = interesting_headers[k].name;
        size_t len = interesting_headers[k].len;
        if (name[0] != first)
            continue;
        if (n > len) {
            char after = b[len];
            if ((after == ':' || is_ows(after)) && ieq_lower(b, name, len))
                /* RFC 9112 §5.1: no whitespace between field name and colon;
                 * accepting it on a framing header invites smuggling. */
                return after == ':' ? interesting_headers[k].kind : HDR_BAD;
        } else if (ieq_lower(b, name, n)) {
            kind = HDR_UNDECIDED;
        }
    }
    return kind;
}

/* Length of an interesting header's name; 0 for any other kind. */
static size_t name_length(enum header_kind kind)
{
    for (size_t k = 0; k < sizeof interesting_headers / sizeof interesting_headers[0]; k++)
        if (interesting_headers[k].kind == kind)
            return interesting_headers[k].len;
    return 0;
}

/* Appends to the carried line; what does not fit is dropped and marks it cut. */
static void carry(struct h1_scanner *s, const uint8_t *p, size_t n)
{
    size_t room = sizeof s->line - s->linelen;
    if (n > room) {
        n = room;
        s->skip |= F_CUT;
    }
    memcpy(s->line + s->linelen, p, n);
    s->linelen += (uint32_t)n;
}

/* The next complete line, without its LF and without a CR before it
 * (RFC 9112 §2.2: CRLF, and a bare LF is accepted too). A line found whole
 * is returned in place; a partial one is carried and NULL returned. A line
 * longer than s->line comes back as its first sizeof s->line bytes with *cut
 * set, whether it was carried or not. *took: bytes consumed. */
static const char *take_line(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *took,
                             size_t *len, bool *cut)
{
    const uint8_t *lf = memchr(p, '\n', n);
    size_t part = lf ? (size_t)(lf - p) : n;
    const char *line;

    *took = lf ? part + 1 : n;
    if (lf && s->linelen == 0) {
        /* Cut exactly as a carried line would be, so that what a line means
         * never depends on where the socket happened to split it. */
        line = (const char *)p;
        *cut = part > sizeof s->line;
        *len = *cut ? sizeof s->line : part;
    } else {
        carry(s, p, part);
        if (!lf)
            return NULL;
        line = s->line;
        *len = s->linelen;
        *cut = (s->skip & F_CUT) != 0;
        s->linelen = 0;
        s->skip &= ~F_CUT;
    }
    if (!*cut && *len > 0 && line[*len - 1] == '\r')
        (*len)--;
    return line;
}

/* Next element of a comma-separated list (RFC 9110 §5.6.1), OWS trimmed;
 * empty elements are skipped as that section asks. */
static bool next_element(const char **cur, const char *end, const char **elem, size_t *elen)
{
    while (*cur < end) {
        const char *a = *cur;
        const char *comma = memchr(a, ',', (size_t)(end - a));
        const char *b = comma ? comma : end;
        *cur = comma ? comma + 1 : end;
        while (a < b && is_ows(*a))
            a++;
        while (b > a && is_ows(b[-1]))
            b--;
        if (a < b) {
            *elem = a;
            *elen = (size_t)(b - a);
            return true;
        }
    }
    return false;
}

static bool parse_decimal(const char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return n > 0;
}

/* RFC 9112 §6.3 rule 5: an invalid Content-Length is an unrecoverable error.
 * RFC 9110 §8.6: a list of one repeated value ("42, 42"), or the same value on
 * several lines, may be taken as that value; differing values are invalid. */
static enum step content_length(struct h1_scanner *s, const char *v, size_t vlen, bool cut)
{
    const char *cur = v, *end = v + vlen, *e;
    size_t elen;
    bool any = false;
    if (cut)
        return STEP_FAIL;
    while (next_element(&cur, end, &e, &elen)) {
        uint64_t n;
        if (!parse_decimal(e, elen, &n) || (s->have_len && n != s->remaining))
            return STEP_FAIL;
        s->have_len = true;
        s->remaining = n;
        any = true;
    }
    return any ? STEP_GO : STEP_FAIL;
}

/* RFC 9112 §6.3 rule 4: only the final transfer coding decides; with several
 * Transfer-Encoding lines the last element of the last line is the final one. */
static enum step transfer_encoding(struct h1_scanner *s, const char *v, size_t vlen, bool cut)
{
    const char *cur = v, *end = v + vlen, *e;
    size_t elen;
    if (cut)
        return STEP_FAIL;
    s->skip |= F_TE;
    while (next_element(&cur, end, &e, &elen))
        s->chunked = elen == 7 && ieq_lower(e, "chunked", 7);
    return STEP_GO;
}

/* RFC 9112 §9.6 (close) and §9.3 (keep-alive keeps an HTTP/1.0 connection). */
static enum step connection(struct h1_scanner *s, const char *v, size_t vlen, bool cut)
{
    const char *cur = v, *end = v + vlen, *e;
    size_t elen;
    while (next_element(&cur, end, &e, &elen)) {
        if (elen == 5 && ieq_lower(e, "close", 5))
            s->close = true;
        else if (elen == 10 && ieq_lower(e, "keep-alive", 10))
            s->skip |= F_KEEPALIVE;
    }
    if (cut)
        s->close = true; /* "close" may have been in the part we dropped */
    return STEP_GO;
}

static enum step header_line(struct h1_scanner *s, const char *l, size_t len, bool cut)
{
    if (l[0] == '\r')
        return STEP_FAIL; /* RFC 9112 §2.2: a bare CR is invalid */
    enum header_kind kind = classify_name(l, len);
    if (kind == HDR_BAD)
        return STEP_FAIL;
    size_t name_len = name_length(kind);
    if (name_len == 0)
        return STEP_GO; /* not one we read, or a line too short to be "Name:" */
    const char *v = l + name_len + 1;
    size_t vlen = len - name_len - 1;
    if (kind == HDR_CONTENT_LENGTH)
        return content_length(s, v, vlen, cut);
    if (kind == HDR_TRANSFER_ENCODING)
        return transfer_encoding(s, v, vlen, cut);
    return connection(s, v, vlen, cut);
}

/* RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ].
 * A missing SP after the code is tolerated (the reason is ignored anyway). */
static enum step status_line(struct h1_scanner *s, const char *l, size_t len)
{
    if (len < 12 || memcmp(l, "HTTP/1.", 7) != 0 || (unsigned)(l[7] - '0') > 9 || l[8] != ' ')
        return STEP_FAIL;
    unsigned status = 0;
    for (int i = 9; i < 12; i++) {
        unsigned d = (unsigned)(l[i] - '0');
        if (d > 9)
            return STEP_FAIL;
        status = status * 10 + d;
    }
    if (len > 12 && l[12] != ' ')
        return STEP_FAIL;
    /* RFC 9112 §2.2: a bare CR is invalid. In a status line it means the
     * server ends its lines with CR alone, so no line ending would ever be
     * found again: fail now rather than wait for one. */
    if (len > 13 && memchr(l + 13, '\r', len - 13))
        return STEP_FAIL;
    /* RFC 9110 §15: valid codes are 100..599. 101 switches protocols, which
     * we never ask for, so nothing after it would be HTTP/1.1 to us. */
    if (status < 100 || status > 599 || status == 101)
        return STEP_FAIL;
    s->status = (uint16_t)status;
    if (l[7] == '0')
        s->skip |= F_HTTP10;
    s->state = ST_HEADER;
    return STEP_GO;
}

/* The empty line after the header section: decide how the body ends
 * (RFC 9112 §6.3, rules in order). */
static enum step end_of_head(struct h1_scanner *s)
{
    if (s->status < 200) {
        /* 1xx interim (RFC 9110 §15.2): no body; the final response follows. */
        begin_head(s, F_STARTED);
        s->skip |= F_STARTED;
        return STEP_GO;
    }
    if (s->head || s->status == 204 || s->status == 304)
        return STEP_DONE; /* rule 1 */
    if (s->chunked) {     /* rule 4; rule 3: it overrides any Content-Length */
        s->state = ST_CHUNK_SIZE;
        return STEP_GO;
    }
    if (!(s->skip & F_TE) && s->have_len) { /* rule 6 */
        if (s->remaining == 0)
            return STEP_DONE;
        s->state = ST_BODY;
        return STEP_GO;
    }
    /* rule 4 (a final coding other than chunked) and rule 8: until close */
    s->state = ST_UNTIL_CLOSE;
    return STEP_GO;
}

/* RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF, chunk-size = 1*HEXDIG.
 * Extensions (§7.1.1) are ignored; BWS before ';' is allowed. */
static enum step chunk_size_line(struct h1_scanner *s, const char *l, size_t len, bool cut)
{
    uint64_t size = 0;
    size_t i = 0;
    for (; i < len; i++) {
        unsigned c = (unsigned char)l[i], d;
        if (c - '0' <= 9)
            d = c - '0';
        else if ((c | 0x20) - 'a' <= 5)
            d = (c | 0x20) - 'a' + 10;
        else
            break;
        if (size > UINT64_MAX >> 4)
            return STEP_FAIL;
        size = size << 4 | d;
    }
    if (i == 0)
        return STEP_FAIL;
    while (i < len && is_ows(l[i]))
        i++;
    if (i < len ? l[i] != ';' : cut)
        return STEP_FAIL; /* junk after the size, or the size ran into the cut */
    s->remaining = size;
    s->state = size ? ST_CHUNK_DATA : ST_TRAILER;
    return STEP_GO;
}

static size_t skip_counted(struct h1_scanner *s, size_t n)
{
    size_t take = s->remaining < n ? (size_t)s->remaining : n;
    s->remaining -= take;
    return take;
}

/* The header section: the hot loop. A line that cannot matter costs its first
 * byte and one memchr. */
static enum step step_headers(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *took)
{
    size_t i = 0;
    while (i < n) {
        if (s->state == ST_HEADER_SKIP) {
            const uint8_t *lf = memchr(p + i, '\n', n - i);
            if (!lf)
                break;
            i = (size_t)(lf - p) + 1;
            s->state = ST_HEADER;
            continue;
        }
        if (s->linelen == 0 && !may_matter(p[i])) {
            s->state = ST_HEADER_SKIP;
            continue;
        }
        size_t t, len;
        bool cut;
        const char *line = take_line(s, p + i, n - i, &t, &len, &cut);
        i += t;
        if (!line) {
            /* Partial line carried: stop carrying as soon as its name rules it out. */
            if (s->line[0] != '\r' && classify_name(s->line, s->linelen) == HDR_OTHER) {
                s->linelen = 0;
                s->skip &= ~F_CUT;
                s->state = ST_HEADER_SKIP;
            }
            break;
        }
        if (len == 0 && !cut) {
            *took = i;
            return end_of_head(s);
        }
        if (header_line(s, line, len, cut) == STEP_FAIL) {
            *took = i;
            return STEP_FAIL;
        }
    }
    *took = n;
    return STEP_GO;
}

/* RFC 9112 §7.1.2: trailer fields are stepped over up to the empty line. */
static enum step step_trailers(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *took)
{
    size_t i = 0;
    while (i < n) {
        if (s->state == ST_TRAILER_SKIP) {
            const uint8_t *lf = memchr(p + i, '\n', n - i);
            if (!lf)
                break;
            i = (size_t)(lf - p) + 1;
            s->state = ST_TRAILER;
            continue;
        }
        if (s->linelen == 0 && p[i] != '\r' && p[i] != '\n') {
            s->state = ST_TRAILER_SKIP;
            continue;
        }
        size_t t, len;
        bool cut;
        const char *line = take_line(s, p + i, n - i, &t, &len, &cut);
        i += t;
        if (!line)
            break;
        *took = i;
        return len == 0 && !cut ? STEP_DONE : STEP_FAIL; /* a line starting with a bare CR */
    }
    *took = n;
    return STEP_GO;
}

/* A state that reads exactly one line: status, chunk-size, chunk end. */
static enum step step_line(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *took)
{
    size_t len;
    bool cut;
    const char *line = take_line(s, p, n, took, &len, &cut);
    if (!line)
        return STEP_GO;
    switch (s->state) {
    case ST_STATUS:
        return status_line(s, line, len);
    case ST_CHUNK_SIZE:
        return chunk_size_line(s, line, len, cut);
    default: /* ST_CHUNK_END: chunk-data is followed by CRLF and nothing else */
        if (len != 0 || cut)
            return STEP_FAIL;
        s->state = ST_CHUNK_SIZE;
        return STEP_GO;
    }
}

static enum step step(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *took)
{
    switch (s->state) {
    case ST_BODY:
        *took = skip_counted(s, n);
        return s->remaining == 0 ? STEP_DONE : STEP_GO;
    case ST_CHUNK_DATA:
        *took = skip_counted(s, n);
        if (s->remaining == 0)
            s->state = ST_CHUNK_END;
        return STEP_GO;
    case ST_HEADER:
    case ST_HEADER_SKIP:
        return step_headers(s, p, n, took);
    case ST_TRAILER:
    case ST_TRAILER_SKIP:
        return step_trailers(s, p, n, took);
    case ST_UNTIL_CLOSE:
        *took = n;
        return STEP_GO;
    case ST_FAILED:
        *took = 0;
        return STEP_FAIL;
    default:
        return step_line(s, p, n, took);
    }
}

/* RFC 9112 §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 persists only with
 * "keep-alive". §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty
 * framing, so the connection closes after it. A body read until close ends
 * the connection by definition. */
static void report(struct h1_scanner *s, struct h1_response *out)
{
    bool http10 = (s->skip & F_HTTP10) != 0;
    out->status = s->status;
    out->close = s->close || s->state == ST_UNTIL_CLOSE ||
                 (http10 && (!(s->skip & F_KEEPALIVE) || (s->skip & F_TE)));
    begin_head(s, 0);
}

enum h1_event h1_scan(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *used,
                      struct h1_response *out)
{
    size_t i = 0;
    if (s->state == ST_FAILED) {
        *used = 0;
        return H1_ERROR;
    }
    while (i < n) {
        size_t took = 0;
        bool framing = s->state != ST_BODY && s->state != ST_CHUNK_DATA && s->state != ST_UNTIL_CLOSE;
        enum step r = step(s, p + i, n - i, &took);
        i += took;
        if (!framing || s->state == ST_CHUNK_DATA)
            s->headbytes = 0;
        else if ((s->headbytes += (uint32_t)took) > H1_MAX_HEAD)
            r = STEP_FAIL, s->too_long = true; /* see H1_MAX_HEAD */
        if (r == STEP_DONE) {
            report(s, out);
            *used = i;
            return H1_DONE;
        }
        if (r == STEP_FAIL) {
            s->failed_in = s->state;
            s->state = ST_FAILED;
            *used = i;
            return H1_ERROR;
        }
    }
    *used = n;
    return H1_NEED_MORE;
}

const char *h1_scan_error(const struct h1_scanner *s)
{
    if (s->too_long)
        return "response head over 1 MiB";
    switch (s->failed_in) {
    case ST_STATUS:
        return "bad status line";
    case ST_HEADER:
    case ST_HEADER_SKIP:
        return "bad header line";
    case ST_CHUNK_SIZE:
    case ST_CHUNK_END:
        return "bad chunk";
    case ST_TRAILER:
    case ST_TRAILER_SKIP:
        return "bad trailer line";
    default:
        return "malformed response";
    }
}

enum h1_event h1_scan_eof(struct h1_scanner *s, struct h1_response *out)
{
    if (s->state == ST_UNTIL_CLOSE) { /* RFC 9112 §6.3 rule 8 */
        report(s, out);
        return H1_DONE;
    }
    return h1_scan_started(s) ? H1_ERROR : H1_NEED_MORE;
}
