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
 * qpack_status is the resumable scan (qpack_status_scan_*) fed once: the
 * scan takes whole lines through next_line, and only the line a feed cuts
 * goes octet by octet through a state machine that makes the same checks
 * in the same order (see "the :status scan" below).
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

static size_t write_section(const struct shb_request *o, const struct shb_field *f, size_t n, uint8_t *out)
{
    (void)o;
    struct hpack_writer w = { out, 0 };
    /* §4.5.1: Required Insert Count 0 (8-bit prefix), Sign 0 and Delta Base
     * 0 (7-bit prefix): Base 0, "one of the most efficient encodings" for a
     * section without dynamic references (§4.5.1.2). */
    hpack_put_int(&w, 8, 0x00, 0);
    hpack_put_int(&w, 7, 0x00, 0);
    for (size_t i = 0; i < n; i++)
        put_line(&w, f[i].name, f[i].value);
    return w.len;
}

uint8_t *qpack_encode_request(const struct shb_request *o, size_t *len)
{
    return shb_request_encode(o, SHB_FIELDS_H2, write_section, len);
}

/* ------------------------------------------------------------- parsing */

#define INT62_MAX (((uint64_t)1 << 62) - 1)

/* One continuation octet of a prefix integer of up to 62 bits (§4.1.1),
 * hpack_int_step's counterpart: *v the value so far, *count the octets
 * before b. Nine continuation octets carry 63 bits, enough for any such
 * value whatever the prefix, even with zero padding; a tenth is refused
 * (§7.4). Returns 1 (complete), 0 (more follow) or QPACK_ERR_INTEGER. */
static int int62_step(uint64_t *v, uint8_t *count, uint8_t b)
{
    unsigned shift = 7u * *count;
    if (shift > 56)
        return QPACK_ERR_INTEGER;
    *v += (uint64_t)(b & 0x7f) << shift; /* < 2^63 + 2^62: no overflow */
    (*count)++;
    if (*v > INT62_MAX)
        return QPACK_ERR_INTEGER;
    return (b & 0x80) ? 0 : 1;
}

/* HPACK_ERR_TRUNCATED is QPACK_ERR_TRUNCATED: the same -1. */
_Static_assert(HPACK_ERR_TRUNCATED == QPACK_ERR_TRUNCATED, "hpack_int_decode_by's truncation is QPACK's");

static int int62_decode(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits, uint64_t *v)
{
    return hpack_int_decode_by(pp, end, prefix_bits, int62_step, v);
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

/* A static table reference with an N-bit prefix, into l->sidx. The T bit
 * (mask t_bit of the first octet) must say static: T=0 is the dynamic
 * table, which we never allow. */
static int static_ref(const uint8_t **pp, const uint8_t *end, uint8_t t_bit, unsigned prefix_bits, struct line *l)
{
    uint64_t idx;
    int rc;
    if (!(**pp & t_bit))
        return QPACK_ERR_DYNAMIC;
    if ((rc = hpack_int_decode(pp, end, prefix_bits, &idx)) != 0)
        return rc;
    if (idx >= QPACK_STATIC_COUNT) /* §3.1 */
        return QPACK_ERR_INDEX;
    l->sidx = (int)idx;
    return 0;
}

/* Reads the field line at *pp (< end). The first octet says which of the
 * five representations it is (§4.5.2–§4.5.6); the three that can only refer
 * to the dynamic table fail at that octet. */
static int next_line(const uint8_t **pp, const uint8_t *end, struct line *l)
{
    const uint8_t *p = *pp;
    uint8_t b = *p;
    int rc;
    l->sidx = -1;
    l->indexed = false;
    if (b & 0x80) { /* §4.5.2 Indexed Field Line: 1 T index(6+) */
        if ((rc = static_ref(&p, end, 0x40, 6, l)) != 0)
            return rc;
        l->indexed = true;
    } else if (b & 0x40) { /* §4.5.4 Literal with Name Reference: 01 N T index(4+) */
        if ((rc = static_ref(&p, end, 0x10, 4, l)) != 0)
            return rc;
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

/* The resumable scan. A section is walked a whole field line at a time
 * wherever the line lies entirely in the bytes at hand (next_line, as
 * qpack_decode does), and octet by octet only for the line a feed cuts:
 * the slow path keeps what line_kind and line_status look at (a literal
 * name's first 7 octets, a value's first 8) and hands them the same struct
 * line, so both paths judge a line by the same code. Every check is made
 * on octets in order, so an error other than running out of input is
 * certain as soon as its octet arrives, whatever follows: the two paths
 * find the same first error at any split. Values are the exception that
 * keeps the rule: each is checked whole (hpack_value_check, RFC 9114 §4.2,
 * §10.3) as the line ends, on the fast path from the line's octets, on the
 * slow one through the running check s->vchk fed as they pass, which says
 * what it found only at the value's end, so that a value cut by the
 * section's end is QPACK_ERR_TRUNCATED on both paths. */
enum scan_state {
    SQ_RIC0,       /* at the prefix's first octet (Required Insert Count, 8-bit prefix) */
    SQ_RIC,        /* its continuation octets */
    SQ_BASE0,      /* at the Sign bit and Delta Base (7-bit prefix) */
    SQ_BASE,       /* Delta Base's continuation octets */
    SQ_LINE,       /* at a field line's first octet */
    SQ_INDEX,      /* an indexed line's index, continued */
    SQ_NAME_INDEX, /* a name reference's index, continued */
    SQ_NLEN,       /* a literal name's length, continued */
    SQ_NAME,       /* the name's octets (left of them) */
    SQ_VLEN0,      /* at a value's first octet (H flag, 7-bit prefix length) */
    SQ_VLEN,       /* the value's length, continued */
    SQ_VALUE,      /* the value's octets (left of them) */
};

void qpack_status_scan_init(struct qpack_status_scan *s)
{
    s->state = SQ_RIC0;
    s->v = (struct qpack_status_verdict){ false, false, 0 };
    s->err = 0;
}

/* One complete field line: its part in the :status rules. Returns 0 or
 * QPACK_ERR_HUFFMAN (a :status value that is not valid Huffman). */
static inline int line_done(struct qpack_status_verdict *v, const struct line *l)
{
    int kind = line_kind(l);
    if (kind == K_REGULAR) {
        v->regular = true;
        return 0;
    }
    int x = kind == K_STATUS ? line_status(l) : QPACK_ERR_STATUS;
    if (x == QPACK_ERR_HUFFMAN)
        return x;
    /* RFC 9114 §4.3: pseudo-headers before regular fields; §4.3.2: one
     * :status and no other pseudo-header in a response; a bad value is
     * malformed too (§4.1.2). Noted, and the walk goes on: a structural
     * error further on (a connection error) takes precedence. */
    if (v->regular || x < 0 || v->status)
        v->malformed = true;
    else
        v->status = (uint16_t)x;
    return 0;
}

/* A literal value's check (hpack_value_check's result r): RFC 9114 §4.2,
 * §10.3 and RFC 9113 §8.2.1's rules (no NUL, LF or CR; no SP or HTAB at
 * either end) make a bad one malformed (§4.1.2), noted like a bad :status;
 * bad Huffman in it, whether shb needs the value or not, cannot be decoded
 * (RFC 9204 §4.1.2, RFC 7541 §5.2): QPACK_ERR_HUFFMAN, a connection error of
 * type QPACK_DECOMPRESSION_FAILED (§2.2.3). */
/* Literal names get the same verdicts (hpack_name_check: RFC 9114 §4.2,
 * §10.3; RFC 9113 §8.2.1's rule: no uppercase, controls, SP, DEL, octets
 * above 0x7f, or a ':' other than a pseudo-header's first). */
static inline int value_verdict(struct qpack_status_verdict *v, int r)
{
    if (r < 0)
        return QPACK_ERR_HUFFMAN;
    if (r > 0)
        v->malformed = true;
    return 0;
}

/* The line read octet by octet is complete. Its strings point at what was
 * kept of them, with their real lengths: line_kind reads no more than 7
 * octets of a name (all of ":status", or the first), line_status none of
 * a value longer than 8 (three digits need 3). */
static int slow_line_done(struct qpack_status_scan *s)
{
    struct line l = {
        .sidx = s->sidx,
        .indexed = s->indexed,
        .name = { s->name, s->nlen, s->nhuff },
        .value = { s->value, s->vlen, s->vhuff },
    };
    s->state = SQ_LINE;
    /* Like the value, the name is judged as the line ends, as on the fast
     * path: an error in the line's structure comes first on both. */
    if (s->sidx < 0) {
        int rc = value_verdict(&s->v, s->nres);
        if (rc)
            return rc;
    }
    if (!s->indexed) { /* the value went by in pieces, through s->vchk */
        int rc = value_verdict(&s->v, hpack_value_check_end(&s->vchk));
        if (rc)
            return rc;
    }
    return line_done(&s->v, &l);
}

/* The integer of state s->state is complete, in s->ival (below 2^32:
 * hpack_int_step's limit). The checks are next_line's and read_prefix's. */
static int scan_int_done(struct qpack_status_scan *s)
{
    uint64_t v = s->ival;
    switch (s->state) {
    case SQ_RIC:
        if (v != 0) /* §4.5.1.1, see read_prefix */
            return QPACK_ERR_DYNAMIC;
        s->state = SQ_BASE0;
        return 0;
    case SQ_INDEX:
        if (v >= QPACK_STATIC_COUNT) /* §3.1 */
            return QPACK_ERR_INDEX;
        s->sidx = (int16_t)v;
        s->indexed = true;
        return slow_line_done(s);
    case SQ_NAME_INDEX:
        if (v >= QPACK_STATIC_COUNT)
            return QPACK_ERR_INDEX;
        s->sidx = (int16_t)v;
        s->state = SQ_VLEN0;
        return 0;
    case SQ_NLEN:
        s->nlen = s->left = (uint32_t)v;
        hpack_name_check_start(&s->vchk, s->nhuff);
        s->nres = 0;
        s->state = v ? SQ_NAME : SQ_VLEN0;
        return 0;
    case SQ_VLEN:
        s->vlen = s->left = (uint32_t)v;
        hpack_value_check_start(&s->vchk, s->vhuff);
        if (v == 0)
            return slow_line_done(s);
        s->state = SQ_VALUE;
        return 0;
    default:
        return 0;
    }
}

/* The first octet of an integer with an N-bit prefix, read into state st. */
static int scan_int_first(struct qpack_status_scan *s, uint8_t b, unsigned prefix_bits, uint8_t st)
{
    s->state = st;
    return hpack_int_first(&s->ival, &s->ilen, b, prefix_bits) ? scan_int_done(s) : 0;
}

/* A field line's first octet (next_line's dispatch, in its order). */
static int scan_line_first(struct qpack_status_scan *s, uint8_t b)
{
    s->sidx = -1;
    s->indexed = s->nhuff = s->vhuff = false;
    s->nlen = s->vlen = 0;
    if (b & 0x80) { /* §4.5.2 */
        if (!(b & 0x40))
            return QPACK_ERR_DYNAMIC;
        return scan_int_first(s, b, 6, SQ_INDEX);
    }
    if (b & 0x40) { /* §4.5.4 */
        if (!(b & 0x10))
            return QPACK_ERR_DYNAMIC;
        return scan_int_first(s, b, 4, SQ_NAME_INDEX);
    }
    if (b & 0x20) { /* §4.5.6: the name's H flag, then its 3-bit prefix length */
        s->nhuff = b & 0x08;
        return scan_int_first(s, b, 3, SQ_NLEN);
    }
    return QPACK_ERR_DYNAMIC; /* §4.5.3, §4.5.5 */
}

/* Up to left octets of the current string: the first keep of them are
 * copied to keep_buf (the string's octet at - left onward). */
static size_t scan_string(struct qpack_status_scan *s, const uint8_t *p, const uint8_t *end, uint32_t len,
                          uint8_t *keep_buf, size_t keep)
{
    size_t k = (size_t)(end - p) < s->left ? (size_t)(end - p) : s->left;
    size_t at = len - s->left;
    for (size_t i = 0; i < k && at + i < keep; i++)
        keep_buf[at + i] = p[i];
    s->left -= (uint32_t)k;
    return k;
}

/* The slow path: one step of the state machine at *pp (< end). */
static int scan_step(struct qpack_status_scan *s, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    int rc;
    switch (s->state) {
    case SQ_RIC0:
        *pp = p + 1;
        return scan_int_first(s, *p, 8, SQ_RIC);
    case SQ_BASE0:
        *pp = p + 1;
        if (*p & 0x80) /* §4.5.1.2, see read_prefix */
            return QPACK_ERR_BASE;
        s->ival = *p & 0x7f;
        s->ilen = 0;
        s->state = s->ival < 0x7f ? SQ_LINE : SQ_BASE;
        return 0;
    case SQ_BASE:
        *pp = p + 1;
        rc = int62_step(&s->ival, &s->ilen, *p);
        if (rc == 1)
            s->state = SQ_LINE;
        return rc < 0 ? rc : 0;
    case SQ_LINE:
        *pp = p + 1;
        return scan_line_first(s, *p);
    case SQ_VLEN0:
        *pp = p + 1;
        s->vhuff = *p & 0x80;
        return scan_int_first(s, *p, 7, SQ_VLEN);
    case SQ_NAME: {
        size_t k = scan_string(s, p, end, s->nlen, s->name, sizeof s->name);
        hpack_value_check_feed(&s->vchk, p, k);
        *pp = p + k;
        if (s->left != 0)
            return 0;
        s->nres = (int8_t)hpack_value_check_end(&s->vchk); /* judged as the line ends */
        s->state = SQ_VLEN0;
        return 0;
    }
    case SQ_VALUE: {
        size_t k = scan_string(s, p, end, s->vlen, s->value, sizeof s->value);
        hpack_value_check_feed(&s->vchk, p, k);
        *pp = p + k;
        return s->left == 0 ? slow_line_done(s) : 0;
    }
    default: /* SQ_RIC, SQ_INDEX, SQ_NAME_INDEX, SQ_NLEN, SQ_VLEN: continuation octets */
        *pp = p + 1;
        rc = hpack_int_step(&s->ival, &s->ilen, *p);
        return rc == 1 ? scan_int_done(s) : rc;
    }
}

/* The fast path: the prefix, then whole field lines, as far as they lie
 * in [*pp, end). Stops at the first one cut by end (QPACK_ERR_TRUNCATED
 * from the parsers only ever means that), leaving it to scan_step.
 * Inlined into both callers: qpack_status then runs ~2% more instructions
 * than the separate walk it replaced (callgrind), against 10% with a call. */
static inline __attribute__((always_inline)) int scan_whole(struct qpack_status_scan *s, const uint8_t **pp,
                                                            const uint8_t *end)
{
    const uint8_t *p = *pp, *q = p;
    int rc = 0;
    if (s->state == SQ_RIC0) {
        if ((rc = read_prefix(&q, end)) != 0)
            return rc == QPACK_ERR_TRUNCATED ? 0 : rc;
        s->state = SQ_LINE;
        p = q;
    }
    struct qpack_status_verdict v = s->v; /* a local: the stores below cannot alias the input */
    while (p < end) {
        struct line l;
        if ((rc = next_line(&q, end, &l)) != 0) {
            if (rc == QPACK_ERR_TRUNCATED)
                rc = 0;
            break;
        }
        if (l.sidx < 0 && (rc = value_verdict(&v, hpack_name_check(l.name.p, l.name.len, l.name.huff))) != 0)
            break;
        if (!l.indexed && (rc = value_verdict(&v, hpack_value_check(l.value.p, l.value.len, l.value.huff))) != 0)
            break;
        if ((rc = line_done(&v, &l)) != 0)
            break;
        p = q;
    }
    s->v = v;
    *pp = p;
    return rc;
}

int qpack_status_scan_feed(struct qpack_status_scan *s, const uint8_t *p, size_t n)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    int rc = s->err;
    while (rc == 0 && p < end) {
        if (s->state == SQ_RIC0 || s->state == SQ_LINE) {
            rc = scan_whole(s, &p, end);
            if (rc != 0 || p == end)
                break;
        }
        rc = scan_step(s, &p, end);
    }
    s->err = rc;
    return rc;
}

int qpack_status_scan_end(struct qpack_status_scan *s, uint16_t *status)
{
    *status = 0;
    if (s->err)
        return s->err;
    if (s->state != SQ_LINE) /* inside the prefix or a line */
        return QPACK_ERR_TRUNCATED;
    if (s->v.malformed)
        return QPACK_ERR_STATUS;
    if (!s->v.status)
        return QPACK_ERR_NO_STATUS;
    *status = s->v.status;
    return 0;
}

/* The whole section through the scan's fast path alone (what a single
 * feed does, without the slow path's dispatch around it): the walk
 * qpack_decode makes. It stops early only at a line the end cuts. */
int qpack_status(const uint8_t *p, size_t n, uint16_t *status)
{
    struct qpack_status_scan s;
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    qpack_status_scan_init(&s);
    s.err = scan_whole(&s, &p, end);
    if (s.err == 0 && p < end)
        s.err = QPACK_ERR_TRUNCATED;
    return qpack_status_scan_end(&s, status);
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
