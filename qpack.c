/* qpack.c — QPACK (RFC 9204) without a dynamic table: the static table, the
 * request's field section, a complete decoder, the :status scan of the hot
 * path, and the check of the peer's encoder stream.
 *
 * Why no dynamic table. shb advertises SETTINGS_QPACK_MAX_TABLE_CAPACITY 0,
 * so the server's encoder may never insert (§3.2.3), and its field sections
 * must all have Required Insert Count 0: with MaxEntries 0 the FullRange of
 * §4.5.1.1 is 0, so any other encoded value is QPACK_DECOMPRESSION_FAILED,
 * and so is any reference to the dynamic table (§2.2.3: an absolute index
 * at or above the Required Insert Count, here every one). Our own encoder
 * never inserts either. So nothing here keeps state across field sections.
 *
 * Parsing. One function, next_line, reads one field line's representation
 * (§4.5.2–§4.5.6) into a struct line without decoding any string; read_prefix
 * reads the section prefix (§4.5.1). qpack_decode and qpack_status both walk
 * a section with them, so they find the same structural errors in the same
 * places; qpack_decode then resolves names and values (Huffman-decoding into
 * the caller's scratch), qpack_status only looks at what :status needs.
 *
 * Integers (§4.1.1) go through hpack_int_decode, which refuses values above
 * 2^32-1 (HPACK's own limit). §4.1.1 asks a decoder to take up to 62 bits,
 * and §7.4 lets it refuse what it cannot use: every integer here but one is
 * only valid when small (static indices < 99, a Required Insert Count of 0,
 * string lengths within the frame the HTTP/3 layer accepted), so 2^32-1
 * loses nothing. The exception is Delta Base, legal at any value when no
 * dynamic entry is referenced (§4.5.1.2): it is read with int62_decode.
 *
 * No allocation except qpack_encode_request (once, at start-up); no mutable
 * global state. */
#include "qpack.h"

#include <stdlib.h>
#include <string.h>

#include "hpack.h"

/* The primitives' errors pass through unchanged. */
_Static_assert(QPACK_ERR_TRUNCATED == HPACK_ERR_TRUNCATED, "shared error value");
_Static_assert(QPACK_ERR_INTEGER == HPACK_ERR_INTEGER, "shared error value");
_Static_assert(QPACK_ERR_HUFFMAN == HPACK_ERR_HUFFMAN, "shared error value");

unsigned qpack_error_code(int err)
{
    switch (err) {
    case QPACK_ERR_TRUNCATED:
    case QPACK_ERR_INTEGER:
    case QPACK_ERR_HUFFMAN:
    case QPACK_ERR_INDEX:
    case QPACK_ERR_DYNAMIC:
    case QPACK_ERR_BASE:
    case QPACK_ERR_TOO_LONG:
        return QPACK_DECOMPRESSION_FAILED;
    case QPACK_ERR_ENCODER_STREAM:
        return QPACK_ENCODER_STREAM_ERROR;
    default:
        return 0;
    }
}

/* -------------------------------------------------------- static table */

struct static_entry {
    const char *name, *value;
    uint8_t nlen, vlen;
};

#define SE(n, v) { n, v, sizeof n - 1, sizeof v - 1 }
/* Appendix A, index = position (from 0, §3.1). Generated from the RFC's
 * table; values wrapped across lines there are joined (the line breaks "are
 * due to formatting"). */
static const struct static_entry static_table[QPACK_STATIC_COUNT] = {
    SE(":authority", ""), /* 0 */
    SE(":path", "/"), /* 1 */
    SE("age", "0"), /* 2 */
    SE("content-disposition", ""), /* 3 */
    SE("content-length", "0"), /* 4 */
    SE("cookie", ""), /* 5 */
    SE("date", ""), /* 6 */
    SE("etag", ""), /* 7 */
    SE("if-modified-since", ""), /* 8 */
    SE("if-none-match", ""), /* 9 */
    SE("last-modified", ""), /* 10 */
    SE("link", ""), /* 11 */
    SE("location", ""), /* 12 */
    SE("referer", ""), /* 13 */
    SE("set-cookie", ""), /* 14 */
    SE(":method", "CONNECT"), /* 15 */
    SE(":method", "DELETE"), /* 16 */
    SE(":method", "GET"), /* 17 */
    SE(":method", "HEAD"), /* 18 */
    SE(":method", "OPTIONS"), /* 19 */
    SE(":method", "POST"), /* 20 */
    SE(":method", "PUT"), /* 21 */
    SE(":scheme", "http"), /* 22 */
    SE(":scheme", "https"), /* 23 */
    SE(":status", "103"), /* 24 */
    SE(":status", "200"), /* 25 */
    SE(":status", "304"), /* 26 */
    SE(":status", "404"), /* 27 */
    SE(":status", "503"), /* 28 */
    SE("accept", "*/*"), /* 29 */
    SE("accept", "application/dns-message"), /* 30 */
    SE("accept-encoding", "gzip, deflate, br"), /* 31 */
    SE("accept-ranges", "bytes"), /* 32 */
    SE("access-control-allow-headers", "cache-control"), /* 33 */
    SE("access-control-allow-headers", "content-type"), /* 34 */
    SE("access-control-allow-origin", "*"), /* 35 */
    SE("cache-control", "max-age=0"), /* 36 */
    SE("cache-control", "max-age=2592000"), /* 37 */
    SE("cache-control", "max-age=604800"), /* 38 */
    SE("cache-control", "no-cache"), /* 39 */
    SE("cache-control", "no-store"), /* 40 */
    SE("cache-control", "public, max-age=31536000"), /* 41 */
    SE("content-encoding", "br"), /* 42 */
    SE("content-encoding", "gzip"), /* 43 */
    SE("content-type", "application/dns-message"), /* 44 */
    SE("content-type", "application/javascript"), /* 45 */
    SE("content-type", "application/json"), /* 46 */
    SE("content-type", "application/x-www-form-urlencoded"), /* 47 */
    SE("content-type", "image/gif"), /* 48 */
    SE("content-type", "image/jpeg"), /* 49 */
    SE("content-type", "image/png"), /* 50 */
    SE("content-type", "text/css"), /* 51 */
    SE("content-type", "text/html; charset=utf-8"), /* 52 */
    SE("content-type", "text/plain"), /* 53 */
    SE("content-type", "text/plain;charset=utf-8"), /* 54 */
    SE("range", "bytes=0-"), /* 55 */
    SE("strict-transport-security", "max-age=31536000"), /* 56 */
    SE("strict-transport-security", "max-age=31536000; includesubdomains"), /* 57 */
    SE("strict-transport-security", "max-age=31536000; includesubdomains; preload"), /* 58 */
    SE("vary", "accept-encoding"), /* 59 */
    SE("vary", "origin"), /* 60 */
    SE("x-content-type-options", "nosniff"), /* 61 */
    SE("x-xss-protection", "1; mode=block"), /* 62 */
    SE(":status", "100"), /* 63 */
    SE(":status", "204"), /* 64 */
    SE(":status", "206"), /* 65 */
    SE(":status", "302"), /* 66 */
    SE(":status", "400"), /* 67 */
    SE(":status", "403"), /* 68 */
    SE(":status", "421"), /* 69 */
    SE(":status", "425"), /* 70 */
    SE(":status", "500"), /* 71 */
    SE("accept-language", ""), /* 72 */
    SE("access-control-allow-credentials", "FALSE"), /* 73 */
    SE("access-control-allow-credentials", "TRUE"), /* 74 */
    SE("access-control-allow-headers", "*"), /* 75 */
    SE("access-control-allow-methods", "get"), /* 76 */
    SE("access-control-allow-methods", "get, post, options"), /* 77 */
    SE("access-control-allow-methods", "options"), /* 78 */
    SE("access-control-expose-headers", "content-length"), /* 79 */
    SE("access-control-request-headers", "content-type"), /* 80 */
    SE("access-control-request-method", "get"), /* 81 */
    SE("access-control-request-method", "post"), /* 82 */
    SE("alt-svc", "clear"), /* 83 */
    SE("authorization", ""), /* 84 */
    SE("content-security-policy", "script-src 'none'; object-src 'none'; base-uri 'none'"), /* 85 */
    SE("early-data", "1"), /* 86 */
    SE("expect-ct", ""), /* 87 */
    SE("forwarded", ""), /* 88 */
    SE("if-range", ""), /* 89 */
    SE("origin", ""), /* 90 */
    SE("purpose", "prefetch"), /* 91 */
    SE("server", ""), /* 92 */
    SE("timing-allow-origin", "*"), /* 93 */
    SE("upgrade-insecure-requests", "1"), /* 94 */
    SE("user-agent", ""), /* 95 */
    SE("x-forwarded-for", ""), /* 96 */
    SE("x-frame-options", "deny"), /* 97 */
    SE("x-frame-options", "sameorigin"), /* 98 */
};
#undef SE

bool qpack_static_entry(unsigned index, const char **name, const char **value)
{
    if (index >= QPACK_STATIC_COUNT)
        return false;
    if (name)
        *name = static_table[index].name;
    if (value)
        *value = static_table[index].value;
    return true;
}

/* The :status entries are 24..28 and 63..71 (Appendix A). */
static bool static_is_status(uint64_t i)
{
    return (i >= 24 && i <= 28) || (i >= 63 && i <= 71);
}

/* ---------------------------------------------------- request encoding */

/* The static entry for a field (name lowercase): *exact the index of the
 * entry matching name and value, else -1; returns the first index whose
 * name matches (the smallest, so the shortest integer), or -1. */
static int static_find(const char *name, const char *value, int *exact)
{
    int name_index = -1;
    *exact = -1;
    for (int i = 0; i < QPACK_STATIC_COUNT; i++) {
        if (strcmp(name, static_table[i].name) != 0)
            continue;
        if (name_index < 0)
            name_index = i;
        if (strcmp(value, static_table[i].value) == 0) {
            *exact = i;
            break;
        }
    }
    return name_index;
}

/* One field line. The N bit (§4.5.4, §4.5.6: never to be indexed by an
 * intermediary) stays 0: nothing shb sends is secret from the next hop's
 * table more than from the server. */
static void put_line(struct hpack_writer *w, const char *name, const char *value)
{
    int exact, name_index = static_find(name, value, &exact);
    if (exact >= 0) {
        hpack_put_int(w, 6, 0xc0, (uint64_t)exact); /* §4.5.2: 1 T=1 index(6+) */
    } else if (name_index >= 0) {
        hpack_put_int(w, 4, 0x50, (uint64_t)name_index); /* §4.5.4: 01 N=0 T=1 index(4+) */
        hpack_put_str(w, 8, 0x00, value);
    } else {
        hpack_put_str(w, 4, 0x20, name); /* §4.5.6: 001 N=0, then a 4-bit prefix string */
        hpack_put_str(w, 8, 0x00, value);
    }
}

static void write_section(const struct hpack_field *f, size_t n, struct hpack_writer *w)
{
    /* §4.5.1: Required Insert Count 0 (8-bit prefix), Sign 0 and Delta Base
     * 0 (7-bit prefix): Base 0, "one of the most efficient encodings" for a
     * section without dynamic references (§4.5.1.2). */
    hpack_put_int(w, 8, 0x00, 0);
    hpack_put_int(w, 7, 0x00, 0);
    for (size_t i = 0; i < n; i++)
        put_line(w, f[i].name, f[i].value);
}

uint8_t *qpack_encode_request(const struct shb_request *o, size_t *len)
{
    size_t n;
    struct hpack_field *f = hpack_request_fields(o, &n);
    if (!f)
        return NULL;
    struct hpack_writer w = { NULL, 0 };
    write_section(f, n, &w);
    uint8_t *buf = malloc(w.len);
    if (buf) {
        w.buf = buf;
        w.len = 0;
        write_section(f, n, &w);
        *len = w.len;
    }
    free(f);
    return buf;
}

/* ------------------------------------------------------------- parsing */

#define INT62_MAX (((uint64_t)1 << 62) - 1)

/* A prefix integer of up to 62 bits (§4.1.1). Nine continuation octets
 * carry 63 bits, enough for any such value whatever the prefix, even with
 * zero padding; a tenth is refused (§7.4). */
static int int62_decode(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p >= end)
        return QPACK_ERR_TRUNCATED;
    uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);
    uint64_t x = *p++ & mask;
    if (x == mask) {
        for (unsigned shift = 0;; shift += 7) {
            if (p >= end)
                return QPACK_ERR_TRUNCATED;
            if (shift > 56)
                return QPACK_ERR_INTEGER;
            uint8_t b = *p++;
            x += (uint64_t)(b & 0x7f) << shift; /* < 2^63 + 2^62: no overflow */
            if (x > INT62_MAX)
                return QPACK_ERR_INTEGER;
            if (!(b & 0x80))
                break;
        }
    }
    *v = x;
    *pp = p;
    return 0;
}

/* §4.5.1: the section prefix. */
static int read_prefix(const uint8_t **pp, const uint8_t *end)
{
    uint64_t ric, delta_base;
    int rc = hpack_int_decode(pp, end, 8, &ric);
    if (rc)
        return rc;
    /* §4.5.1.1: with MaxEntries 0, FullRange is 0 and every non-zero
     * EncodedInsertCount is above it: an error. And a section that needs
     * any insert needs the dynamic table we refused (§2.2.3). */
    if (ric != 0)
        return QPACK_ERR_DYNAMIC;
    if (*pp >= end)
        return QPACK_ERR_TRUNCATED;
    /* §4.5.1.2: "MUST treat a field block with a Sign bit of 1 as invalid if
     * the value of Required Insert Count is less than or equal to the value
     * of Delta Base": with a Required Insert Count of 0, always. */
    if (**pp & 0x80)
        return QPACK_ERR_BASE;
    /* Base = 0 + Delta Base; any value is fine, since no line may use it. */
    return int62_decode(pp, end, 7, &delta_base);
}

/* A string literal with an N-bit prefix (§4.1.2): H flag, length, bytes. */
struct str {
    const uint8_t *p;
    size_t len; /* encoded length */
    bool huff;
};

static int read_str(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits, struct str *s)
{
    const uint8_t *p = *pp;
    uint64_t n;
    if (p >= end)
        return QPACK_ERR_TRUNCATED;
    s->huff = *p & (1u << (prefix_bits - 1));
    int rc = hpack_int_decode(&p, end, prefix_bits - 1, &n);
    if (rc)
        return rc;
    if (n > (uint64_t)(end - p))
        return QPACK_ERR_TRUNCATED;
    s->p = p;
    s->len = (size_t)n;
    *pp = p + n;
    return 0;
}

/* One field line, parsed, nothing decoded. */
struct line {
    int sidx;       /* the static entry giving the name (and the value when indexed); -1: literal name */
    bool indexed;   /* §4.5.2: name and value are static_table[sidx]'s */
    struct str name; /* sidx < 0 */
    struct str value; /* !indexed */
};

/* Reads the field line at *pp (< end). The first octet says which of the
 * five representations it is (§4.5.2–§4.5.6); the three that can only refer
 * to the dynamic table fail at that octet. */
static int next_line(const uint8_t **pp, const uint8_t *end, struct line *l)
{
    const uint8_t *p = *pp;
    uint8_t b = *p;
    uint64_t idx;
    int rc;
    l->sidx = -1;
    l->indexed = false;
    if (b & 0x80) { /* §4.5.2 Indexed Field Line: 1 T index(6+) */
        if (!(b & 0x40)) /* T=0: dynamic table */
            return QPACK_ERR_DYNAMIC;
        if ((rc = hpack_int_decode(&p, end, 6, &idx)) != 0)
            return rc;
        if (idx >= QPACK_STATIC_COUNT) /* §3.1 */
            return QPACK_ERR_INDEX;
        l->sidx = (int)idx;
        l->indexed = true;
    } else if (b & 0x40) { /* §4.5.4 Literal with Name Reference: 01 N T index(4+) */
        if (!(b & 0x10)) /* T=0: dynamic table */
            return QPACK_ERR_DYNAMIC;
        if ((rc = hpack_int_decode(&p, end, 4, &idx)) != 0)
            return rc;
        if (idx >= QPACK_STATIC_COUNT) /* §3.1 */
            return QPACK_ERR_INDEX;
        l->sidx = (int)idx;
        if ((rc = read_str(&p, end, 8, &l->value)) != 0)
            return rc;
    } else if (b & 0x20) { /* §4.5.6 Literal with Literal Name: 001 N, 4-bit prefix name */
        if ((rc = read_str(&p, end, 4, &l->name)) != 0)
            return rc;
        if ((rc = read_str(&p, end, 8, &l->value)) != 0)
            return rc;
    } else {
        /* 0001 (§4.5.3, Indexed with Post-Base Index) and 0000 (§4.5.5,
         * Literal with Post-Base Name Reference): both name entries at or
         * above Base, that is dynamic ones (§3.2.6). */
        return QPACK_ERR_DYNAMIC;
    }
    *pp = p;
    return 0;
}

/* ------------------------------------------------------------- decoder */

/* A literal's string: raw bytes in place, Huffman ones decoded into
 * scratch[*used ..]. */
static int resolve(const struct str *s, uint8_t *scratch, size_t cap, size_t *used, const uint8_t **out,
                   size_t *len)
{
    if (!s->huff) {
        *out = s->p;
        *len = s->len;
        return 0;
    }
    uint8_t *dst = scratch ? scratch + *used : NULL;
    long dl = hpack_huffman_decode(s->p, s->len, dst, scratch ? cap - *used : 0);
    if (dl == HPACK_ERR_TOO_LONG)
        return QPACK_ERR_TOO_LONG;
    if (dl < 0)
        return (int)dl; /* QPACK_ERR_HUFFMAN */
    *out = dst ? dst : (const uint8_t *)"";
    *len = (size_t)dl;
    *used += (size_t)dl;
    return 0;
}

int qpack_decode(const uint8_t *p, size_t n, uint8_t *scratch, size_t scratch_cap, qpack_field_fn fn, void *ctx)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    int rc = read_prefix(&p, end);
    if (rc)
        return rc;
    while (p < end) {
        struct line l;
        const uint8_t *name = NULL, *value = NULL;
        size_t nlen = 0, vlen = 0, used = 0;
        if ((rc = next_line(&p, end, &l)) != 0)
            return rc;
        if (l.sidx >= 0) {
            const struct static_entry *se = &static_table[l.sidx];
            name = (const uint8_t *)se->name;
            nlen = se->nlen;
            value = (const uint8_t *)se->value;
            vlen = se->vlen;
        } else if ((rc = resolve(&l.name, scratch, scratch_cap, &used, &name, &nlen)) != 0) {
            return rc;
        }
        if (!l.indexed && (rc = resolve(&l.value, scratch, scratch_cap, &used, &value, &vlen)) != 0)
            return rc;
        if (fn && (rc = fn(ctx, name, nlen, value, vlen)) != 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------ the :status scan */

enum { K_REGULAR, K_PSEUDO, K_STATUS }; /* what a field line's name is */

static const uint8_t status_raw[7] = { ':', 's', 't', 'a', 't', 'u', 's' };
/* ":status" Huffman-coded: RFC 7541 §5.2 pins the padding, so this is its
 * only valid encoding (hpack.c's scanner uses the same; the tests check it). */
static const uint8_t status_huff[5] = { 0xb8, 0x84, 0x8d, 0x36, 0xa3 };

static int line_kind(const struct line *l)
{
    if (l->sidx >= 0) {
        if (static_is_status((uint64_t)l->sidx))
            return K_STATUS;
        return static_table[l->sidx].name[0] == ':' ? K_PSEUDO : K_REGULAR;
    }
    const struct str *s = &l->name;
    if (s->len == 0)
        return K_REGULAR;
    if (!s->huff) {
        if (s->len == sizeof status_raw && memcmp(s->p, status_raw, sizeof status_raw) == 0)
            return K_STATUS;
        return s->p[0] == ':' ? K_PSEUDO : K_REGULAR;
    }
    if (s->len == sizeof status_huff && memcmp(s->p, status_huff, sizeof status_huff) == 0)
        return K_STATUS;
    /* ':' is the 7-bit code 1011100 (RFC 7541 Appendix B); the code is
     * prefix-free, so a Huffman string starts with ':' exactly when its
     * first 7 bits are those. */
    return (s->p[0] >> 1) == 0x5c ? K_PSEUDO : K_REGULAR;
}

/* Three digits, 100..999 (RFC 9110 §15; RFC 9114 §4.3.2). Returns the
 * status or QPACK_ERR_STATUS. */
static int three_digits(const uint8_t *v, size_t n)
{
    if (n != 3)
        return QPACK_ERR_STATUS;
    int x = 0;
    for (int i = 0; i < 3; i++) {
        if (v[i] < '0' || v[i] > '9')
            return QPACK_ERR_STATUS;
        x = x * 10 + (v[i] - '0');
    }
    return x < 100 ? QPACK_ERR_STATUS : x;
}

/* The value of a :status line: the status, QPACK_ERR_STATUS, or
 * QPACK_ERR_HUFFMAN. Three digits take at most 3 octets Huffman-coded (their
 * codes are 5 and 6 bits), so a longer value is not a status whatever it
 * decodes to; up to 8 are decoded, for their coding errors. */
static int line_status(const struct line *l)
{
    if (l->indexed)
        return three_digits((const uint8_t *)static_table[l->sidx].value, static_table[l->sidx].vlen);
    const struct str *v = &l->value;
    if (!v->huff)
        return three_digits(v->p, v->len);
    if (v->len > 8)
        return QPACK_ERR_STATUS;
    uint8_t tmp[16]; /* 8 octets hold at most 12 codes of 5 bits or more */
    long dl = hpack_huffman_decode(v->p, v->len, tmp, sizeof tmp);
    if (dl < 0)
        return QPACK_ERR_HUFFMAN;
    return three_digits(tmp, (size_t)dl);
}

int qpack_status(const uint8_t *p, size_t n, uint16_t *status)
{
    const uint8_t *end = n ? p + n : p;
    *status = 0;
    int rc = read_prefix(&p, end);
    if (rc)
        return rc;
    int st = 0;
    bool regular = false, malformed = false;
    while (p < end) {
        struct line l;
        if ((rc = next_line(&p, end, &l)) != 0)
            return rc;
        int kind = line_kind(&l);
        if (kind == K_REGULAR) {
            regular = true;
            continue;
        }
        int x = kind == K_STATUS ? line_status(&l) : QPACK_ERR_STATUS;
        if (x == QPACK_ERR_HUFFMAN)
            return x;
        /* RFC 9114 §4.3: pseudo-headers before regular fields; §4.3.2: one
         * :status and no other pseudo-header in a response; a bad value is
         * malformed too (§4.1.2). Noted, and the walk goes on: a structural
         * error further on (a connection error) takes precedence. */
        if (regular || x < 0 || st)
            malformed = true;
        else
            st = x;
    }
    if (malformed)
        return QPACK_ERR_STATUS;
    if (!st)
        return QPACK_ERR_NO_STATUS;
    *status = (uint16_t)st;
    return 0;
}

/* ------------------------------------------------------ encoder stream */

void qpack_encoder_stream_init(struct qpack_encoder_stream *s)
{
    s->err = 0;
    s->capacity0 = 0;
}

/* Every instruction is told apart by its first octet (§4.3): 1xxxxxxx
 * Insert with Name Reference, 01xxxxxx Insert with Literal Name, 001xxxxx
 * Set Dynamic Table Capacity, 000xxxxx Duplicate. Capacity 0 fits in the
 * 5-bit prefix and has no other encoding (a prefix of all ones means 31 or
 * more), so the one valid instruction is the single octet 0x20, and every
 * error shows at an instruction's first octet: no state is carried between
 * calls but the sticky error. */
int qpack_encoder_stream_feed(struct qpack_encoder_stream *s, const uint8_t *p, size_t n)
{
    if (s->err)
        return s->err;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0x20) {
            /* A capacity above our maximum 0 (§4.3.1), an insert that no
             * table of capacity 0 can hold (§3.2.2), or a Duplicate of an
             * entry that does not exist (§2.2.3, §4.3.4). */
            s->err = QPACK_ERR_ENCODER_STREAM;
            return s->err;
        }
        s->capacity0++;
    }
    return 0;
}
