/* hpack.c — HPACK (RFC 7541): prefix integers, the Huffman code, the static
 * table, the request block shb sends, a complete decoder, and the :status
 * scanner of the hot path.
 *
 * Nothing here allocates except hpack_encode_request (once, at start-up), and
 * there is no mutable global state: every table is const, and the Huffman
 * tables are generated from the RFC text (scripts/mkhuffman.c ->
 * hpack_huffman.h), so any number of threads may decode at once.
 *
 * Huffman decoding (§5.2, Appendix B). The code is canonical (the generator
 * checks it): the codes of one length L are consecutive integers, and a
 * length's range starts where the previous one ended, shifted left. So the
 * symbol whose code begins the remaining bits is found by taking the next L
 * bits for L = 5, 6, ... and stopping at the first L where they fall below the
 * end of the length-L range. A 256-entry table indexed by the next 8 bits
 * settles every code of at most 8 bits (all but the rarest characters) in one
 * lookup; the per-length search handles the rest. Bits are kept in a 64-bit
 * accumulator, refilled a byte at a time.
 *
 * Dynamic table (§2.3.2, §4). Entry bytes (name then value) live in
 * d->arena, oldest first, as ONE contiguous run [start, d->tail) that never
 * wraps: when a new entry does not fit between d->tail and the end of the
 * arena, the live run is first moved to the start of the arena (compaction).
 * The live data never exceeds capacity - 32 * count <= HPACK_TABLE_MAX - 32
 * bytes, so after compaction the new entry always fits. Every entry is
 * therefore contiguous in the arena, and callbacks get pointers straight into
 * it: no scratch space is ever needed for table entries. Compaction moves at
 * most the arena once per arena's worth of inserted bytes.
 *   The per-entry offsets and lengths are a ring of HPACK_TABLE_MAX/32 = 128
 * slots (each entry is at least 32 bytes, §4.1): d->head is the slot of the
 * next insert, so dynamic index 1 (the newest entry) is slot head-1.
 *   §4.4 warns that a new entry's name may come from an entry that the same
 * insert evicts. Eviction only drops counts, so those bytes stay where they
 * are until something is written over them; the name is copied before the
 * value, with memmove, and when a compaction is needed while the name lies in
 * the evicted part, the arena prefix is rotated rather than overwritten, so
 * the name survives.
 *
 * Decoder callbacks get pointers that are valid only during the call: into
 * the caller's block (raw literals), scratch (Huffman-coded literals; the name
 * and the value of one field share it, so scratch_cap must hold both), the
 * static table, or the arena (table entries). A field is passed to the
 * callback before it is inserted into the table; an aborting callback leaves
 * the table as it was before that field.
 *
 * Status scanner. A byte-driven state machine over one representation at a
 * time: integers are accumulated across fragments, string bytes are skipped
 * by count, and a name is compared against ":status" (or its unique Huffman
 * form) while it is skipped, never copied. Only the :status value (at most 8
 * bytes) is collected. A representation that lies whole inside the fragment
 * is parsed directly (scan_field_fast); the state machine takes over at a
 * fragment boundary and for anything unusual, errors included, so both paths
 * give the same result wherever a block is split (the tests check this).
 * Rules beyond the header's:
 *   - hpack_status_scan_init before every header block (the state says
 *     whether the block has started, for §4.2);
 *   - :status must be three digits, 100..999, and may appear once (RFC 9113
 *     §8.3); otherwise HPACK_ERR_STATUS. Where it appears is not checked
 *     (pseudo-header order is h2.c's business);
 *   - names are not validated, and Huffman-coded strings other than a
 *     :status value are never decoded, so their coding errors go unnoticed;
 *   - an error is sticky: later feeds return it again. */
#include "hpack.h"

#include <stdlib.h>
#include <string.h>

#include "hpack_huffman.h"

#define TABLE_SLOTS (HPACK_TABLE_MAX / 32)
#define ENTRY_OVERHEAD 32 /* §4.1 */

/* ------------------------------------------------------------ integers */

/* One octet after an all-ones prefix (§5.1). *v holds the value so far,
 * *count the continuation octets already consumed. Returns 1 when the
 * integer is complete, 0 when another octet follows, or HPACK_ERR_INTEGER.
 * §5.1 asks for limits on value and octet length: values above 2^32-1 are
 * refused, and so is a sixth continuation octet (five carry 35 bits, enough
 * for any value below 2^32 whatever the prefix, even with zero padding). */
static int int_step(uint64_t *v, uint8_t *count, uint8_t b)
{
    *v += (uint64_t)(b & 0x7f) << (7 * *count);
    (*count)++;
    if (*v > UINT32_MAX)
        return HPACK_ERR_INTEGER;
    if (!(b & 0x80))
        return 1;
    return *count >= 5 ? HPACK_ERR_INTEGER : 0;
}

size_t hpack_int_encode(uint8_t *out, size_t cap, unsigned prefix_bits, uint8_t first, uint64_t v)
{
    if (prefix_bits < 1 || prefix_bits > 8 || cap == 0)
        return 0;
    uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);
    first &= (uint8_t)~mask;
    if (v < mask) {
        out[0] = (uint8_t)(first | v);
        return 1;
    }
    out[0] = (uint8_t)(first | mask);
    v -= mask;
    size_t n = 1;
    for (;;) {
        if (n == cap)
            return 0;
        if (v < 128) {
            out[n++] = (uint8_t)v;
            return n;
        }
        out[n++] = (uint8_t)(0x80 | (v & 0x7f));
        v >>= 7;
    }
}

int hpack_int_decode(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (prefix_bits < 1 || prefix_bits > 8)
        return HPACK_ERR_INTEGER;
    if (p >= end)
        return HPACK_ERR_TRUNCATED;
    uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);
    uint64_t x = *p++ & mask;
    if (x == mask) {
        uint8_t count = 0;
        int rc;
        do {
            if (p >= end)
                return HPACK_ERR_TRUNCATED;
            rc = int_step(&x, &count, *p++);
            if (rc < 0)
                return rc;
        } while (rc == 0);
    }
    *v = x;
    *pp = p;
    return 0;
}

/* ------------------------------------------------------------- Huffman */

static uint8_t ascii_lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

static size_t huff_len_of(const uint8_t *in, size_t n, bool lower)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++)
        bits += huff_len[lower ? ascii_lower(in[i]) : in[i]];
    return (size_t)((bits + 7) / 8);
}

static size_t huff_encode(const uint8_t *in, size_t n, uint8_t *out, bool lower)
{
    uint64_t acc = 0; /* only the low nbits (< 8 + 30) matter */
    unsigned nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = lower ? ascii_lower(in[i]) : in[i];
        acc = acc << huff_len[c] | huff_code[c];
        nbits += huff_len[c];
        while (nbits >= 8) {
            nbits -= 8;
            out[o++] = (uint8_t)(acc >> nbits);
        }
    }
    /* §5.2: pad with the most significant bits of EOS, all ones. */
    if (nbits)
        out[o++] = (uint8_t)(acc << (8 - nbits) | (0xffu >> nbits));
    return o;
}

size_t hpack_huffman_encoded_len(const uint8_t *in, size_t n)
{
    return huff_len_of(in, n, false);
}

size_t hpack_huffman_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    return huff_encode(in, n, out, false);
}

long hpack_huffman_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    uint64_t acc = 0; /* next bits, aligned on bit 63 */
    unsigned nbits = 0;
    size_t i = 0, o = 0;
    for (;;) {
        while (nbits <= 56 && i < n) {
            acc |= (uint64_t)in[i++] << (56 - nbits);
            nbits += 8;
        }
        if (nbits == 0)
            break;
        unsigned sym, len;
        unsigned e = huff_fast[acc >> 56];
        if (e) {
            /* Bits past nbits are zeros, not data: a code that needs them is
             * not there, and no shorter code can be (prefix-free). */
            sym = e & 0xff;
            len = e >> 8;
            if (len > nbits)
                break;
        } else {
            uint32_t w = (uint32_t)(acc >> 32);
            len = 9;
            while (len <= nbits && (w >> (32 - len)) >= huff_limit[len])
                len++; /* len never passes 30: the code is complete */
            if (len > nbits)
                break;
            sym = huff_sorted[huff_offset[len] + ((w >> (32 - len)) - huff_first[len])];
        }
        if (sym == 256) /* §5.2: EOS in the string is an error */
            return HPACK_ERR_HUFFMAN;
        if (o == cap)
            return HPACK_ERR_TOO_LONG;
        out[o++] = (uint8_t)sym;
        acc <<= len;
        nbits -= len;
    }
    /* Input exhausted and the rest is no whole code: it is padding. §5.2:
     * more than 7 bits, or anything but the leading (all-one) bits of EOS,
     * is an error. */
    if (nbits > 7)
        return HPACK_ERR_HUFFMAN;
    if (nbits && (acc >> (64 - nbits)) != (1u << nbits) - 1)
        return HPACK_ERR_HUFFMAN;
    return (long)o;
}

/* ------------------------------------------------------- static table */

struct static_entry {
    const char *name, *value;
    uint8_t nlen, vlen;
};

#define SE(n, v) { n, v, sizeof n - 1, sizeof v - 1 }
/* Appendix A; [0] unused so that the index is the RFC's. */
static const struct static_entry static_table[HPACK_STATIC_COUNT + 1] = {
    { "", "", 0, 0 },
    SE(":authority", ""),
    SE(":method", "GET"),
    SE(":method", "POST"),
    SE(":path", "/"),
    SE(":path", "/index.html"),
    SE(":scheme", "http"),
    SE(":scheme", "https"),
    SE(":status", "200"),
    SE(":status", "204"),
    SE(":status", "206"),
    SE(":status", "304"),
    SE(":status", "400"),
    SE(":status", "404"),
    SE(":status", "500"),
    SE("accept-charset", ""),
    SE("accept-encoding", "gzip, deflate"),
    SE("accept-language", ""),
    SE("accept-ranges", ""),
    SE("accept", ""),
    SE("access-control-allow-origin", ""),
    SE("age", ""),
    SE("allow", ""),
    SE("authorization", ""),
    SE("cache-control", ""),
    SE("content-disposition", ""),
    SE("content-encoding", ""),
    SE("content-language", ""),
    SE("content-length", ""),
    SE("content-location", ""),
    SE("content-range", ""),
    SE("content-type", ""),
    SE("cookie", ""),
    SE("date", ""),
    SE("etag", ""),
    SE("expect", ""),
    SE("expires", ""),
    SE("from", ""),
    SE("host", ""),
    SE("if-match", ""),
    SE("if-modified-since", ""),
    SE("if-none-match", ""),
    SE("if-range", ""),
    SE("if-unmodified-since", ""),
    SE("last-modified", ""),
    SE("link", ""),
    SE("location", ""),
    SE("max-forwards", ""),
    SE("proxy-authenticate", ""),
    SE("proxy-authorization", ""),
    SE("range", ""),
    SE("referer", ""),
    SE("refresh", ""),
    SE("retry-after", ""),
    SE("server", ""),
    SE("set-cookie", ""),
    SE("strict-transport-security", ""),
    SE("transfer-encoding", ""),
    SE("user-agent", ""),
    SE("vary", ""),
    SE("via", ""),
    SE("www-authenticate", ""),
};
#undef SE

/* Static indices 8..14 are :status 200, 204, 206, 304, 400, 404, 500. */
#define STATIC_STATUS_FIRST 8
#define STATIC_STATUS_LAST 14
static const uint16_t static_status[] = { 200, 204, 206, 304, 400, 404, 500 };

bool hpack_static_entry(unsigned index, const char **name, const char **value)
{
    if (index < 1 || index > HPACK_STATIC_COUNT)
        return false;
    if (name)
        *name = static_table[index].name;
    if (value)
        *value = static_table[index].value;
    return true;
}

/* ----------------------------------------------------- request encoding */

/* Counts with buf NULL, writes otherwise: one code path sizes and fills. */
struct writer {
    uint8_t *buf;
    size_t len;
};

static void put_byte(struct writer *w, uint8_t b)
{
    if (w->buf)
        w->buf[w->len] = b;
    w->len++;
}

static void put_int(struct writer *w, unsigned prefix_bits, uint8_t first, uint64_t v)
{
    uint8_t tmp[16];
    size_t n = hpack_int_encode(tmp, sizeof tmp, prefix_bits, first, v);
    if (w->buf)
        memcpy(w->buf + w->len, tmp, n);
    w->len += n;
}

/* A string literal (§5.2), Huffman-coded only when that is strictly shorter;
 * lower: write it lowercased (field names, RFC 9113 §8.2). */
static void put_str(struct writer *w, const char *s, bool lower)
{
    const uint8_t *in = (const uint8_t *)s;
    size_t n = strlen(s);
    size_t hn = huff_len_of(in, n, lower);
    if (hn < n) {
        put_int(w, 7, 0x80, hn);
        if (w->buf)
            huff_encode(in, n, w->buf + w->len, lower);
        w->len += hn;
        return;
    }
    put_int(w, 7, 0x00, n);
    for (size_t i = 0; i < n; i++)
        put_byte(w, lower ? ascii_lower(in[i]) : in[i]);
}

static bool name_eq(const char *a, const char *lower_b)
{
    for (; *a && *lower_b; a++, lower_b++)
        if (ascii_lower((uint8_t)*a) != (uint8_t)*lower_b)
            return false;
    return *a == *lower_b;
}

static bool ascii_ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower((uint8_t)*a) != ascii_lower((uint8_t)*b))
            return false;
    return *a == *b;
}

/* One field: an indexed field when the static table has the exact pair,
 * else a literal without indexing (§6.2.2, first octet 0000xxxx) with the
 * static name index when the name is there and a literal name otherwise. */
static void put_field(struct writer *w, const char *name, const char *value)
{
    unsigned name_index = 0;
    for (unsigned i = 1; i <= HPACK_STATIC_COUNT; i++) {
        if (!name_eq(name, static_table[i].name))
            continue;
        if (!name_index)
            name_index = i;
        if (strcmp(value, static_table[i].value) == 0) {
            put_int(w, 7, 0x80, i); /* §6.1 */
            return;
        }
    }
    put_int(w, 4, 0x00, name_index);
    if (!name_index)
        put_str(w, name, true);
    put_str(w, value, false);
}

static const struct shb_header *user_header(const struct shb_opts *o, const char *lower_name)
{
    for (size_t i = 0; i < o->nheaders; i++)
        if (name_eq(o->headers[i].name, lower_name))
            return &o->headers[i];
    return NULL;
}

/* Headers HTTP/2 forbids (RFC 9113 §8.2.2), and host, which becomes
 * :authority (§8.3.1). te is kept only as "trailers". */
static bool dropped(const struct shb_header *h)
{
    static const char *const names[] = { "connection", "keep-alive", "proxy-connection",
                                         "transfer-encoding", "upgrade", "host" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name_eq(h->name, names[i]))
            return true;
    return name_eq(h->name, "te") && !ascii_ieq(h->value, "trailers");
}

static void write_request(const struct shb_opts *o, struct writer *w)
{
    const char *method = o->method ? o->method : o->has_body ? "POST" : "GET";
    const char *path = o->url.target && *o->url.target ? o->url.target : "/";
    const struct shb_header *host = user_header(o, "host");

    put_field(w, ":method", method);
    put_field(w, ":scheme", o->url.https ? "https" : "http");
    put_field(w, ":authority", host ? host->value : o->url.authority);
    put_field(w, ":path", path);
    /* The same defaults as h1_build_request. */
    if (!user_header(o, "user-agent"))
        put_field(w, "user-agent", "shb");
    if (!user_header(o, "accept"))
        put_field(w, "accept", "*/*");
    for (size_t i = 0; i < o->nheaders; i++) {
        const struct shb_header *h = &o->headers[i];
        if (dropped(h))
            continue;
        put_field(w, h->name, name_eq(h->name, "te") ? "trailers" : h->value);
    }
    if (o->has_body && !user_header(o, "content-length")) {
        char digits[21];
        size_t i = sizeof digits;
        uint64_t v = o->body_len;
        digits[--i] = '\0';
        do {
            digits[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        put_field(w, "content-length", digits + i);
    }
}

uint8_t *hpack_encode_request(const struct shb_opts *o, size_t *len)
{
    struct writer w = { NULL, 0 };
    write_request(o, &w);
    uint8_t *buf = malloc(w.len);
    if (!buf)
        return NULL;
    w.buf = buf;
    w.len = 0;
    write_request(o, &w);
    *len = w.len;
    return buf;
}

/* ------------------------------------------------------- dynamic table */

void hpack_decoder_init(struct hpack_decoder *d, uint32_t limit)
{
    memset(d, 0, sizeof *d);
    d->limit = limit > HPACK_TABLE_MAX ? HPACK_TABLE_MAX : limit;
    d->capacity = d->limit;
}

static uint32_t slot_of(const struct hpack_decoder *d, uint32_t i) /* i: 1 = newest */
{
    return (d->head + TABLE_SLOTS - i) % TABLE_SLOTS;
}

static void evict_oldest(struct hpack_decoder *d)
{
    uint32_t s = slot_of(d, d->count);
    d->size -= (uint32_t)d->nlen[s] + d->vlen[s] + ENTRY_OVERHEAD;
    d->count--;
    if (d->count == 0)
        d->tail = 0;
}

/* §4.3, §4.4: evict from the end until size <= max. */
static void evict_to(struct hpack_decoder *d, uint32_t max)
{
    while (d->count && d->size > max)
        evict_oldest(d);
}

static void reverse(uint8_t *a, size_t n)
{
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        uint8_t t = a[i];
        a[i] = a[j - 1];
        a[j - 1] = t;
    }
}

/* Inserts (name, value) as the newest entry (§4.4). name_off >= 0: the name
 * is arena[name_off ..], the name of a dynamic entry, which this very insert
 * may evict. value never points into the arena. */
static void table_insert(struct hpack_decoder *d, const uint8_t *name, size_t nlen, long name_off,
                         const uint8_t *value, size_t vlen)
{
    uint64_t esize = (uint64_t)nlen + vlen + ENTRY_OVERHEAD;
    if (esize > d->capacity) { /* §4.4: not an error; the table ends up empty */
        while (d->count)
            evict_oldest(d);
        return;
    }
    evict_to(d, d->capacity - (uint32_t)esize);
    uint32_t e = (uint32_t)(nlen + vlen);
    if (d->tail + e > HPACK_TABLE_MAX) {
        /* Compaction: bring the live run [start, tail) to offset 0. */
        uint32_t start = d->count ? d->off[slot_of(d, d->count)] : d->tail;
        uint32_t live = d->tail - start;
        if (name_off >= 0 && (uint32_t)name_off < start) {
            /* The name is in the evicted prefix: rotate [0, tail) left by
             * start, which moves the prefix (and the name) behind the run. */
            reverse(d->arena, start);
            reverse(d->arena + start, live);
            reverse(d->arena, d->tail);
            name_off += live;
        } else {
            memmove(d->arena, d->arena + start, live);
            if (name_off >= 0)
                name_off -= start;
        }
        for (uint32_t i = 1; i <= d->count; i++)
            d->off[slot_of(d, i)] -= (uint16_t)start;
        d->tail = live;
    }
    if (name_off >= 0)
        name = d->arena + name_off;
    uint32_t s = d->head;
    memmove(d->arena + d->tail, name, nlen); /* may overlap its source */
    if (vlen)
        memcpy(d->arena + d->tail + nlen, value, vlen);
    d->off[s] = (uint16_t)d->tail;
    d->nlen[s] = (uint16_t)nlen;
    d->vlen[s] = (uint16_t)vlen;
    d->head = (d->head + 1) % TABLE_SLOTS;
    d->tail += e;
    d->count++;
    d->size += (uint32_t)esize;
}

/* An entry of the combined index space (§2.3.3): 1..61 static, then the
 * dynamic table, newest first. *name_off: arena offset of a dynamic name,
 * -1 for a static one. */
static int table_get(const struct hpack_decoder *d, uint64_t index, const uint8_t **name, size_t *nlen,
                     const uint8_t **value, size_t *vlen, long *name_off)
{
    if (index == 0) /* §6.1 */
        return HPACK_ERR_INDEX;
    if (index <= HPACK_STATIC_COUNT) {
        const struct static_entry *se = &static_table[index];
        *name = (const uint8_t *)se->name;
        *nlen = se->nlen;
        *value = (const uint8_t *)se->value;
        *vlen = se->vlen;
        *name_off = -1;
        return 0;
    }
    if (index - HPACK_STATIC_COUNT > d->count) /* §2.3.3: beyond both tables */
        return HPACK_ERR_INDEX;
    uint32_t s = slot_of(d, (uint32_t)(index - HPACK_STATIC_COUNT));
    *name = d->arena + d->off[s];
    *nlen = d->nlen[s];
    *value = d->arena + d->off[s] + d->nlen[s];
    *vlen = d->vlen[s];
    *name_off = d->off[s];
    return 0;
}

/* ------------------------------------------------------------- decoder */

/* A string literal (§5.2): raw octets are returned in place, Huffman ones
 * decoded into scratch[*used ..]. */
static int read_string(const uint8_t **pp, const uint8_t *end, uint8_t *scratch, size_t cap, size_t *used,
                       const uint8_t **s, size_t *len)
{
    const uint8_t *p = *pp;
    if (p >= end)
        return HPACK_ERR_TRUNCATED;
    bool huff = *p & 0x80;
    uint64_t n;
    int rc = hpack_int_decode(&p, end, 7, &n);
    if (rc)
        return rc;
    if (n > (uint64_t)(end - p))
        return HPACK_ERR_TRUNCATED;
    if (huff) {
        uint8_t *out = scratch ? scratch + *used : NULL;
        long dl = hpack_huffman_decode(p, (size_t)n, out, scratch ? cap - *used : 0);
        if (dl < 0)
            return (int)dl;
        *s = out ? out : (const uint8_t *)"";
        *len = (size_t)dl;
        *used += (size_t)dl;
    } else {
        *s = p;
        *len = (size_t)n;
    }
    *pp = p + n;
    return 0;
}

int hpack_decode(struct hpack_decoder *d, const uint8_t *p, size_t n, uint8_t *scratch, size_t scratch_cap,
                 hpack_field_fn fn, void *ctx)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    bool field_seen = false;
    while (p < end) {
        uint8_t b = *p;
        uint64_t v;
        int rc;
        const uint8_t *name, *value;
        size_t nlen, vlen;
        long name_off = -1;

        if ((b & 0xe0) == 0x20) { /* §6.3 dynamic table size update */
            if (field_seen) /* §4.2: only at the beginning of a block */
                return HPACK_ERR_TABLE_SIZE;
            if ((rc = hpack_int_decode(&p, end, 5, &v)) != 0)
                return rc;
            if (v > d->limit) /* §6.3: above the protocol's limit */
                return HPACK_ERR_TABLE_SIZE;
            d->capacity = (uint32_t)v;
            evict_to(d, d->capacity); /* §4.3 */
            continue;
        }
        field_seen = true;
        if (b & 0x80) { /* §6.1 indexed field */
            if ((rc = hpack_int_decode(&p, end, 7, &v)) != 0)
                return rc;
            if ((rc = table_get(d, v, &name, &nlen, &value, &vlen, &name_off)) != 0)
                return rc;
            if (fn && (rc = fn(ctx, name, nlen, value, vlen)) != 0)
                return rc;
            continue;
        }
        /* §6.2: 01xxxxxx with incremental indexing (6-bit index), 0000xxxx
         * without indexing and 0001xxxx never indexed (4-bit index). */
        bool incremental = b & 0x40;
        size_t used = 0;
        if ((rc = hpack_int_decode(&p, end, incremental ? 6 : 4, &v)) != 0)
            return rc;
        if (v == 0) {
            if ((rc = read_string(&p, end, scratch, scratch_cap, &used, &name, &nlen)) != 0)
                return rc;
        } else {
            const uint8_t *unused_v;
            size_t unused_vl;
            if ((rc = table_get(d, v, &name, &nlen, &unused_v, &unused_vl, &name_off)) != 0)
                return rc;
        }
        if ((rc = read_string(&p, end, scratch, scratch_cap, &used, &value, &vlen)) != 0)
            return rc;
        if (fn && (rc = fn(ctx, name, nlen, value, vlen)) != 0)
            return rc;
        if (incremental)
            table_insert(d, name, nlen, name_off, value, vlen);
    }
    return 0;
}

/* ------------------------------------------------------ status scanner */

enum scan_state {
    SS_FIELD = 0,  /* at the first octet of a representation */
    SS_INDEX,      /* continuation octets of an indexed field's index */
    SS_NAME_INDEX, /* ... of a literal's name index */
    SS_SIZE,       /* ... of a size update */
    SS_NLEN0,      /* at the first octet of a literal name's length */
    SS_NLEN,       /* continuation octets of the name length */
    SS_NAME,       /* name octets (s->skip left) */
    SS_VLEN0,
    SS_VLEN,
    SS_VALUE,      /* value octets (s->skip left) */
    SS_FAILED,     /* s->ival holds -error */
};

#define SF_HUFF 0x01   /* the current string is Huffman-coded */
#define SF_MATCH 0x02  /* the name read so far can still be ":status" */
#define SF_STATUS 0x04 /* the current value is :status's */
#define SF_FIELD 0x08  /* a field has been seen: no more size updates (§4.2) */

static const uint8_t status_raw[7] = { ':', 's', 't', 'a', 't', 'u', 's' };
/* ":status" Huffman-coded. §5.2 pins the padding (the EOS prefix, under 8
 * bits), so this is the only valid encoding; the tests check it against
 * hpack_huffman_encode. */
static const uint8_t status_huff[5] = { 0xb8, 0x84, 0x8d, 0x36, 0xa3 };

static void scan_init_keep(struct hpack_status_scan *s)
{
    s->state = SS_FIELD;
    s->flags = 0;
    s->ilen = 0;
    s->ival = 0;
    s->skip = 0;
    s->slen = 0;
}

void hpack_status_scan_init(struct hpack_status_scan *s)
{
    memset(s, 0, sizeof *s);
    scan_init_keep(s);
}

static int set_status(struct hpack_status_scan *s, uint16_t v)
{
    if (s->status) /* RFC 9113 §8.3: a repeated pseudo-header is malformed */
        return HPACK_ERR_STATUS;
    s->status = v;
    return 0;
}

/* The :status value in s->sbuf is complete: exactly three digits, 100..999
 * (RFC 9110 §15; 0 would read as "no status"). */
static int parse_status(const uint8_t *in, size_t n, bool huff)
{
    uint8_t tmp[16];
    const uint8_t *v = in;
    long len = (long)n;
    if (huff) {
        len = hpack_huffman_decode(in, n, tmp, sizeof tmp);
        if (len == HPACK_ERR_HUFFMAN)
            return HPACK_ERR_HUFFMAN;
        v = tmp;
    }
    if (len != 3)
        return HPACK_ERR_STATUS;
    int x = 0;
    for (int i = 0; i < 3; i++) {
        if (v[i] < '0' || v[i] > '9')
            return HPACK_ERR_STATUS;
        x = x * 10 + (v[i] - '0');
    }
    return x < 100 ? HPACK_ERR_STATUS : x;
}

static int status_value_done(struct hpack_status_scan *s)
{
    int x = parse_status(s->sbuf, s->slen, s->flags & SF_HUFF);
    return x < 0 ? x : set_status(s, (uint16_t)x);
}

static int value_done(struct hpack_status_scan *s)
{
    int rc = 0;
    if (s->flags & SF_STATUS)
        rc = status_value_done(s);
    s->state = SS_FIELD;
    return rc;
}

/* The integer read in state s->state is complete, in s->ival. */
static int scan_int_done(struct hpack_status_scan *s)
{
    uint64_t v = s->ival;
    switch (s->state) {
    case SS_INDEX: /* §6.1; the dynamic table is empty (size 0) */
        if (v == 0 || v > HPACK_STATIC_COUNT)
            return HPACK_ERR_INDEX;
        s->state = SS_FIELD;
        if (v >= STATIC_STATUS_FIRST && v <= STATIC_STATUS_LAST)
            return set_status(s, static_status[v - STATIC_STATUS_FIRST]);
        return 0;
    case SS_NAME_INDEX:
        if (v > HPACK_STATIC_COUNT)
            return HPACK_ERR_INDEX;
        if (v == 0) {
            s->state = SS_NLEN0;
            return 0;
        }
        if (v >= STATIC_STATUS_FIRST && v <= STATIC_STATUS_LAST)
            s->flags |= SF_STATUS;
        s->state = SS_VLEN0;
        return 0;
    case SS_SIZE: /* §6.3: above our limit, which is 0 */
        if (v > 0)
            return HPACK_ERR_TABLE_SIZE;
        s->state = SS_FIELD;
        return 0;
    case SS_NLEN:
        s->skip = v;
        if (v == ((s->flags & SF_HUFF) ? sizeof status_huff : sizeof status_raw))
            s->flags |= SF_MATCH;
        s->state = SS_NAME;
        if (v == 0)
            s->state = SS_VLEN0;
        return 0;
    case SS_VLEN:
        s->skip = v;
        s->slen = 0;
        if ((s->flags & SF_STATUS) && v > sizeof s->sbuf) /* 3 digits: at most 3 octets */
            return HPACK_ERR_STATUS;
        s->state = SS_VALUE;
        if (v == 0)
            return value_done(s);
        return 0;
    default:
        return 0;
    }
}

/* The first octet of an integer with an N-bit prefix, read in state st. */
static int scan_int_first(struct hpack_status_scan *s, uint8_t b, unsigned prefix_bits, uint8_t st)
{
    uint8_t mask = (uint8_t)((1u << prefix_bits) - 1);
    s->state = st;
    s->ival = b & mask;
    s->ilen = 0;
    if (s->ival < mask)
        return scan_int_done(s);
    return 0; /* continuation octets follow */
}

/* Fast path: one whole representation that lies entirely in [*pp, end) and
 * holds nothing unusual, parsed without the state machine. Returns true and
 * advances *pp when it did; false (nothing changed) sends the caller to the
 * state machine, which handles every case, errors included, byte by byte. */
static bool scan_field_fast(struct hpack_status_scan *s, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint8_t b = *p;
    uint64_t idx, len;
    if (b & 0x80) { /* §6.1, a one-octet static index */
        idx = b & 0x7f;
        if (idx == 0 || idx > HPACK_STATIC_COUNT)
            return false;
        if (idx >= STATIC_STATUS_FIRST && idx <= STATIC_STATUS_LAST) {
            if (s->status)
                return false;
            s->status = static_status[idx - STATIC_STATUS_FIRST];
        }
        s->flags = SF_FIELD;
        *pp = p + 1;
        return true;
    }
    if ((b & 0xe0) == 0x20) /* size updates are rare: state machine */
        return false;
    if (hpack_int_decode(&p, end, (b & 0x40) ? 6 : 4, &idx) || idx > HPACK_STATIC_COUNT)
        return false;
    bool status = idx >= STATIC_STATUS_FIRST && idx <= STATIC_STATUS_LAST;
    if (idx == 0) {
        if (p >= end)
            return false;
        bool huff = *p & 0x80;
        if (hpack_int_decode(&p, end, 7, &len) || len > (uint64_t)(end - p))
            return false;
        status = huff ? len == sizeof status_huff && memcmp(p, status_huff, sizeof status_huff) == 0
                      : len == sizeof status_raw && memcmp(p, status_raw, sizeof status_raw) == 0;
        p += len;
    }
    if (p >= end)
        return false;
    bool huff = *p & 0x80;
    if (hpack_int_decode(&p, end, 7, &len) || len > (uint64_t)(end - p))
        return false;
    if (status) {
        int x = s->status || len > sizeof s->sbuf ? -1 : parse_status(p, (size_t)len, huff);
        if (x < 0)
            return false;
        s->status = (uint16_t)x;
    }
    s->flags = SF_FIELD;
    *pp = p + len;
    return true;
}

int hpack_status_scan_feed(struct hpack_status_scan *s, const uint8_t *p, size_t n, bool last)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    int rc = 0;
    if (s->state == SS_FAILED)
        return -(int)s->ival;
    while (p < end && rc == 0) {
        switch (s->state) {
        case SS_FIELD: {
            if (scan_field_fast(s, &p, end))
                break;
            uint8_t b = *p++;
            if ((b & 0xe0) == 0x20) { /* §6.3 size update */
                if (s->flags & SF_FIELD) /* §4.2: only at the start of a block */
                    rc = HPACK_ERR_TABLE_SIZE;
                else
                    rc = scan_int_first(s, b, 5, SS_SIZE);
                break;
            }
            s->flags = SF_FIELD;
            if (b & 0x80) /* §6.1 */
                rc = scan_int_first(s, b, 7, SS_INDEX);
            else /* §6.2.1 (6-bit index), §6.2.2 and §6.2.3 (4-bit) */
                rc = scan_int_first(s, b, (b & 0x40) ? 6 : 4, SS_NAME_INDEX);
            break;
        }
        case SS_INDEX:
        case SS_NAME_INDEX:
        case SS_SIZE:
        case SS_NLEN:
        case SS_VLEN:
            rc = int_step(&s->ival, &s->ilen, *p++);
            if (rc == 1)
                rc = scan_int_done(s);
            break;
        case SS_NLEN0:
        case SS_VLEN0: {
            uint8_t b = *p++;
            s->flags = (uint8_t)((s->flags & ~SF_HUFF) | ((b & 0x80) ? SF_HUFF : 0));
            rc = scan_int_first(s, b, 7, s->state == SS_NLEN0 ? SS_NLEN : SS_VLEN);
            break;
        }
        case SS_NAME: {
            size_t k = (size_t)(end - p) < s->skip ? (size_t)(end - p) : (size_t)s->skip;
            if (s->flags & SF_MATCH) {
                const uint8_t *want = (s->flags & SF_HUFF) ? status_huff : status_raw;
                if (memcmp(p, want + (s->ival - s->skip), k) != 0)
                    s->flags &= (uint8_t)~SF_MATCH;
            }
            p += k;
            s->skip -= k;
            if (s->skip == 0) {
                if (s->flags & SF_MATCH)
                    s->flags |= SF_STATUS;
                s->state = SS_VLEN0;
            }
            break;
        }
        case SS_VALUE: {
            size_t k = (size_t)(end - p) < s->skip ? (size_t)(end - p) : (size_t)s->skip;
            if (s->flags & SF_STATUS) {
                memcpy(s->sbuf + s->slen, p, k);
                s->slen = (uint8_t)(s->slen + k);
            }
            p += k;
            s->skip -= k;
            if (s->skip == 0)
                rc = value_done(s);
            break;
        }
        default:
            rc = HPACK_ERR_TRUNCATED;
            break;
        }
    }
    if (rc == 0 && last && s->state != SS_FIELD)
        rc = HPACK_ERR_TRUNCATED; /* the block ended inside a representation */
    if (rc < 0) {
        s->state = SS_FAILED;
        s->ival = (uint64_t)-rc;
        return rc;
    }
    return 0;
}
