/* hpack.c — HPACK (RFC 7541): prefix integers, the Huffman code, the static
 * table, the blocks shb sends (the request's fields come from request.c), a
 * complete decoder, and the :status scanner of the hot path.
 *
 * Nothing here allocates except the request encoders (once, at start-up), and there is no mutable global state: every table is
 * const, and the Huffman tables are generated from the RFC text
 * (scripts/mkhuffman.c -> hpack_huffman.h), so any number of threads may
 * decode at once.
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
 * form) while it is skipped, never copied. The :status value (at most 8
 * bytes) is collected. A representation that lies whole inside the fragment
 * is parsed directly (scan_field_fast); the state machine takes over at a
 * fragment boundary and for anything unusual, errors included, so both paths
 * give the same result wherever a block is split (the tests check this).
 *   The dynamic table is the connection's struct hpack_decoder, shared with
 * hpack_decode's code: table_get for indexed fields and literal names
 * (§6.1, §6.2; a dynamic entry named ":status" gives the status), evict_to
 * for size updates (§4.3, §6.3), table_insert / table_clear for literals
 * with incremental indexing (§4.4, §6.2.1). Such a literal is only inserted
 * while the capacity holds at least an empty entry (32 bytes, §4.1); then
 * its literal name and its value are collected into s->col as they arrive,
 * Huffman-decoded on the fly when the H bit is set (huff_run keeps the cut
 * code's bits between fragments), and inserted when the value ends. Since an
 * entry above the capacity just empties the table (§4.4), col never needs
 * more than capacity - 32 bytes: past that, collecting stops (SF_BIG) and the
 * insert becomes table_clear. With a capacity under 32 (a peer that honours
 * our SETTINGS_HEADER_TABLE_SIZE 0 usually says so with a size update to 0)
 * nothing is collected and the fast path runs as it does without a table.
 * Rules beyond the header's:
 *   - hpack_status_scan_init before every header block (the state says
 *     whether the block has started, for §4.2), with the same table for
 *     every block of a connection, in order;
 *   - :status must be three digits, 100..999, and may appear once (RFC 9113
 *     §8.3); otherwise s->malformed, and decoding goes on so the table stays
 *     in step. Where it appears is not checked (pseudo-header order is
 *     h2.c's business);
 *   - every name is checked (RFC 9113 §8.2.1, §8.3: s->names_bad,
 *     s->status_late; see hpack.h), Huffman-coded literal names decoded for
 *     it 16 octets at a time into a small buffer (name_huff), so their
 *     coding errors are decoding errors;
 *   - every value is checked (RFC 9113 §8.2.1: s->values_bad; see hpack.h)
 *     as it goes by, through value_feed (a table lookup an octet, or for
 *     Huffman the code's tree walked 4 bits at a time, huff_walk), so
 *     the coding errors of values shb skips are decoding errors too (RFC
 *     7541 §5.2). The :status and content-length values, and inserted
 *     ones, are decoded besides, for what they say (short, or rare);
 *   - a block that comes whole in one feed while the table is empty, and
 *     leaves it empty, is remembered with what the scan said (hpack.h,
 *     bmemo): the same bytes on the same empty table again are answered
 *     from it after one compare (block_memo_hit). Anything the table holds
 *     could change the answer, so nothing is remembered or answered then;
 *   - an error is sticky: later feeds return it again. It leaves the table
 *     in an unspecified (but valid) state: the connection is finished. */
#include "hpack.h"

#include <stdlib.h>
#include <string.h>

#include "hpack_huffman.h"

#define TABLE_SLOTS (HPACK_TABLE_MAX / 32)
#define ENTRY_OVERHEAD 32 /* §4.1 */

/* ------------------------------------------------------- field octets */

/* What each octet is to a field name or value, one table for both: every
 * response's names and values go through it, a lookup an octet and no
 * compares.
 *   FC_NAME: RFC 9113 §8.2.1 (RFC 9114 §4.2 alike) forbids it in a name:
 *     0x00-0x20, 'A'-'Z', 0x7f-0xff; and ':', allowed only first, for
 *     pseudo-headers (§8.3);
 *   FC_CTL: RFC 9113 §8.2.1 forbids it anywhere in a value: NUL, LF, CR;
 *   FC_WS: ... at a value's start or end: SP, HTAB.
 * Everything else may be in a value, obs-text (0x80-0xff) included. */
#define FC_NAME 0x01
#define FC_CTL 0x02
#define FC_WS 0x04
static const uint8_t field_class[256] = {
    3, 1, 1, 1, 1, 1, 1, 1, 1, 5, 3, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* A value's octets so far, in struct hpack_value_check's v: */
#define VC_CTL FC_CTL /* a NUL, LF or CR somewhere (RFC 9113 §8.2.1) */
#define VC_LAST FC_WS /* the last octet so far is SP or HTAB: bad if it stays last (§8.2.1) */
#define VC_LEAD 0x08  /* the first octet is SP or HTAB (§8.2.1) */
#define VC_MORE 0x10  /* an octet has been seen */
#define VC_HUFF 0x20  /* the value is Huffman-coded */
#define VC_HBAD 0x40  /* ... and its coding is bad: EOS in it or an invalid code (RFC 7541 §5.2) */
#define VC_BAD (VC_CTL | VC_LEAD | VC_LAST)
/* A name's (hpack_name_check: QPACK's literal names; hpack.c's own scanner
 * checks names its own way, name_octets), in the same v: */
#define VC_NAME 0x80  /* the check is a name's */
#define NC_BAD FC_NAME /* an octet RFC 9113 §8.2.1 forbids in a name, a leading ':' apart */
_Static_assert(VC_LEAD == FC_WS << 1 && VC_MORE >> 1 == VC_LEAD, "value_step's shifts");

/* One more value octet, of class t: no branch (the Huffman validator takes
 * it once a symbol). A leading SP/HTAB is FC_WS moved up to VC_LEAD, kept
 * only while VC_MORE is not yet set. */
static inline uint8_t value_step(uint8_t v, uint8_t t)
{
    return (uint8_t)((v & (VC_CTL | VC_LEAD | VC_HUFF | VC_HBAD)) | (t & (FC_CTL | FC_WS)) | VC_MORE |
                     ((t & FC_WS) << 1 & ~((v & VC_MORE) >> 1)));
}

/* One more name octet c: a ':' first is a pseudo-header's (RFC 9113 §8.3,
 * line_kind's business in qpack.c), anywhere else FC_NAME's. */
static inline uint8_t name_step(uint8_t v, uint8_t c)
{
    if (!(v & VC_MORE) && c == ':')
        return (uint8_t)(v | VC_MORE);
    return (uint8_t)(v | VC_MORE | (field_class[c] & FC_NAME));
}

/* Raw value octets b[0..n). */
static inline uint8_t value_raw(uint8_t v, const uint8_t *b, size_t n)
{
    if (n == 0)
        return v;
    v = value_step(v, field_class[b[0]]);
    unsigned acc = 0;
    for (size_t i = 1; i < n; i++)
        acc |= field_class[b[i]];
    v |= (uint8_t)(acc & FC_CTL);
    return (uint8_t)((v & ~VC_LAST) | (field_class[b[n - 1]] & FC_WS));
}

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

int hpack_int_step(uint64_t *v, uint8_t *count, uint8_t b)
{
    return int_step(v, count, b);
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

/* The prefix and its continuation octets, step setting the limits. Inline:
 * hpack_int_decode's int_step is a constant, and inlined in turn. */
static inline int int_decode_by(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits,
                                int (*step)(uint64_t *, uint8_t *, uint8_t), uint64_t *v)
{
    const uint8_t *p = *pp;
    if (prefix_bits < 1 || prefix_bits > 8)
        return HPACK_ERR_INTEGER;
    if (p >= end)
        return HPACK_ERR_TRUNCATED;
    uint64_t x;
    uint8_t count;
    if (!hpack_int_first(&x, &count, *p++, prefix_bits)) {
        int rc;
        do {
            if (p >= end)
                return HPACK_ERR_TRUNCATED;
            rc = step(&x, &count, *p++);
            if (rc < 0)
                return rc;
        } while (rc == 0);
    }
    *v = x;
    *pp = p;
    return 0;
}

int hpack_int_decode(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits, uint64_t *v)
{
    return int_decode_by(pp, end, prefix_bits, int_step, v);
}

int hpack_int_decode_by(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits,
                        int (*step)(uint64_t *, uint8_t *, uint8_t), uint64_t *v)
{
    return int_decode_by(pp, end, prefix_bits, step, v);
}

/* ------------------------------------------------------------- Huffman */

static size_t huff_len_of(const uint8_t *in, size_t n)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++)
        bits += huff_len[in[i]];
    return (size_t)((bits + 7) / 8);
}

static size_t huff_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    uint64_t acc = 0; /* only the low nbits (< 8 + 30) matter */
    unsigned nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = in[i];
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
    return huff_len_of(in, n);
}

size_t hpack_huffman_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    return huff_encode(in, n, out);
}

/* Decodes in[0..n) after the bits left over from earlier input (*accp, the
 * next bits aligned on bit 63, and *nbitsp of them: the start of a code that
 * the previous input cut, under 30 bits), appending to out[*op .. cap). On
 * return the bits that make no whole code yet are back in *accp / *nbitsp,
 * so a string may be decoded in pieces. Returns 0, HPACK_ERR_HUFFMAN (EOS
 * in the string, §5.2) or HPACK_ERR_TOO_LONG (out full and another symbol
 * decoded; *op is then cap). Strings that are only checked, not kept, take
 * huff_walk instead. */
static inline int huff_run(uint64_t *accp, unsigned *nbitsp, const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                           size_t *op)
{
    uint64_t acc = *accp;
    unsigned nbits = *nbitsp;
    size_t i = 0, o = *op;
    int rc = 0;
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
             * not there (yet), and no shorter code can be (prefix-free). */
            sym = e & 0xff;
            len = e >> 8;
            if (len > nbits)
                break; /* only when the input is used up: nbits > 56 otherwise */
        } else {
            uint32_t w = (uint32_t)(acc >> 32);
            len = 9;
            while (len <= nbits && (w >> (32 - len)) >= huff_limit[len])
                len++; /* len never passes 30: the code is complete */
            if (len > nbits)
                break;
            sym = huff_sorted[huff_offset[len] + ((w >> (32 - len)) - huff_first[len])];
        }
        if (sym == 256) { /* §5.2: EOS in the string is an error */
            rc = HPACK_ERR_HUFFMAN;
            break;
        }
        if (o == cap) {
            rc = HPACK_ERR_TOO_LONG;
            break;
        }
        out[o++] = (uint8_t)sym;
        acc <<= len;
        nbits -= len;
    }
    *accp = acc;
    *nbitsp = nbits;
    *op = o;
    return rc;
}

/* Huffman-coded octets in[0..n) of a string that is only checked: the
 * code's tree is walked 4 bits at a time from node *nodep (huff_nib, two
 * lookups an octet and no branch), and each symbol that ends goes through
 * value_step (or name_step) into v. EOS sets VC_HBAD (§5.2); the rest of
 * the walk is then meaningless, and value_end says only that. Several
 * times cheaper than decoding (huff_run): most of a response's values are
 * only checked, never kept. */
static inline __attribute__((always_inline)) uint8_t huff_walk(uint8_t *nodep, uint8_t v, const uint8_t *in, size_t n,
                                                               bool name)
{
    unsigned node = *nodep;
    uint32_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t e = huff_nib[node][in[i] >> 4];
        uint8_t s = (uint8_t)(e >> 8);
        if (e & HV_SYM)
            v = name ? name_step(v, s) : value_step(v, field_class[s]);
        uint32_t f = huff_nib[e & 0xff][in[i] & 15];
        s = (uint8_t)(f >> 8);
        if (f & HV_SYM)
            v = name ? name_step(v, s) : value_step(v, field_class[s]);
        node = f & 0xff;
        seen |= e | f;
    }
    *nodep = (uint8_t)node;
    return (seen & HV_EOS) ? (uint8_t)(v | VC_HBAD) : v;
}

/* The string's input is exhausted and the bits left are no whole code: they
 * are padding. §5.2: more than 7 bits, or anything but the leading (all-one)
 * bits of EOS, is an error. */
static inline int huff_end(uint64_t acc, unsigned nbits)
{
    if (nbits > 7)
        return HPACK_ERR_HUFFMAN;
    if (nbits && (acc >> (64 - nbits)) != (1u << nbits) - 1)
        return HPACK_ERR_HUFFMAN;
    return 0;
}

long hpack_huffman_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    uint64_t acc = 0;
    unsigned nbits = 0;
    size_t o = 0;
    int rc = huff_run(&acc, &nbits, in, n, out, cap, &o);
    if (rc == 0)
        rc = huff_end(acc, nbits);
    return rc ? rc : (long)o;
}

/* ------------------------------------------------------- value check */

static inline void value_start(struct hpack_value_check *c, bool huff)
{
    c->node = 0;
    c->v = huff ? VC_HUFF : 0;
}

static inline void value_feed(struct hpack_value_check *c, const uint8_t *p, size_t n)
{
    if (c->v & VC_HBAD)
        return; /* EOS came: nothing more to learn */
    if (c->v & VC_NAME) {
        if (c->v & VC_HUFF) {
            c->v = huff_walk(&c->node, c->v, p, n, true);
        } else {
            for (size_t i = 0; i < n; i++)
                c->v = name_step(c->v, p[i]);
        }
        return;
    }
    if (c->v & VC_HUFF)
        c->v = huff_walk(&c->node, c->v, p, n, false); /* between pieces the node is all that is kept */
    else
        c->v = value_raw(c->v, p, n);
}

static inline int value_end(const struct hpack_value_check *c)
{
    /* RFC 7541 §5.2: EOS, or an end other than at a code's end or after
     * up to 7 bits of EOS's ones (huff_accept). */
    if ((c->v & VC_HUFF) && ((c->v & VC_HBAD) || !huff_accept[c->node]))
        return HPACK_ERR_HUFFMAN;
    if (c->v & VC_NAME)
        return (c->v & NC_BAD) ? 1 : 0;
    return (c->v & VC_BAD) ? 1 : 0;
}

/* A whole value (or, with name, a whole name) p[0..n). */
static inline int value_whole(const uint8_t *p, size_t n, bool huff, bool name)
{
    struct hpack_value_check c;
    value_start(&c, huff);
    if (name)
        c.v |= VC_NAME;
    value_feed(&c, p, n);
    return value_end(&c);
}

void hpack_value_check_start(struct hpack_value_check *c, bool huff)
{
    value_start(c, huff);
}

void hpack_value_check_feed(struct hpack_value_check *c, const uint8_t *p, size_t n)
{
    value_feed(c, p, n);
}

int hpack_value_check_end(const struct hpack_value_check *c)
{
    return value_end(c);
}

int hpack_value_check(const uint8_t *p, size_t n, bool huff)
{
    return value_whole(p, n, huff, false);
}

void hpack_name_check_start(struct hpack_value_check *c, bool huff)
{
    value_start(c, huff);
    c->v |= VC_NAME;
}

int hpack_name_check(const uint8_t *p, size_t n, bool huff)
{
    return value_whole(p, n, huff, true);
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

static void put_byte(struct hpack_writer *w, uint8_t b)
{
    if (w->buf)
        w->buf[w->len] = b;
    w->len++;
}

void hpack_put_int(struct hpack_writer *w, unsigned prefix_bits, uint8_t first, uint64_t v)
{
    uint8_t tmp[16];
    size_t n = hpack_int_encode(tmp, sizeof tmp, prefix_bits, first, v);
    if (w->buf)
        memcpy(w->buf + w->len, tmp, n);
    w->len += n;
}

void hpack_put_str(struct hpack_writer *w, unsigned prefix_bits, uint8_t first, const char *s)
{
    const uint8_t *in = (const uint8_t *)s;
    size_t n = strlen(s);
    size_t hn = huff_len_of(in, n);
    uint8_t h = (uint8_t)(1u << (prefix_bits - 1)); /* the H flag; the length takes the bits below it */
    if (hn < n) {
        hpack_put_int(w, prefix_bits - 1, (uint8_t)(first | h), hn);
        if (w->buf)
            huff_encode(in, n, w->buf + w->len);
        w->len += hn;
        return;
    }
    hpack_put_int(w, prefix_bits - 1, (uint8_t)(first & ~h), n);
    for (size_t i = 0; i < n; i++)
        put_byte(w, in[i]);
}

/* Where a field stands in the static table (RFC 7541 Appendix A): the
 * index of the exact pair in *full (0: none), of the first entry with the
 * name in *name_only (0: none). */
static void static_lookup(const char *name, const char *value, unsigned *full, unsigned *name_only)
{
    *full = *name_only = 0;
    for (unsigned i = 1; i <= HPACK_STATIC_COUNT; i++) {
        if (strcmp(name, static_table[i].name) != 0)
            continue;
        if (!*name_only)
            *name_only = i;
        if (strcmp(value, static_table[i].value) == 0) {
            *full = i;
            return;
        }
    }
}

/* One field: an indexed field when the static table has the exact pair,
 * else a literal without indexing (§6.2.2, first octet 0000xxxx) with the
 * static name index when the name is there and a literal name otherwise.
 * name is lowercase already (shb_request_fields). */
static void put_field(struct hpack_writer *w, const char *name, const char *value)
{
    unsigned full, name_index;
    static_lookup(name, value, &full, &name_index);
    if (full) {
        hpack_put_int(w, 7, 0x80, full); /* §6.1 */
        return;
    }
    hpack_put_int(w, 4, 0x00, name_index);
    if (!name_index)
        hpack_put_str(w, 8, 0x00, name);
    hpack_put_str(w, 8, 0x00, value);
}

/* The two blocks of hpack_encode_request_indexed, written (or counted)
 * side by side: a field the static table has whole is the same index in
 * both; any other is a literal with incremental indexing (§6.2.1: 01 and a
 * 6-bit name index) in `first`, and in `next` the index its entry has once
 * `first` is decoded: the k-th of n inserted is at 62 + n - 1 - k (§2.3.3,
 * the newest entry is 62). */
static void put_indexed_blocks(const struct shb_field *f, size_t n, struct hpack_writer *first,
                               struct hpack_writer *next, uint32_t *table_bytes)
{
    size_t inserted = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned full, name_index;
        static_lookup(f[i].name, f[i].value, &full, &name_index);
        total += !full;
    }
    *table_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned full, name_index;
        static_lookup(f[i].name, f[i].value, &full, &name_index);
        if (full) {
            hpack_put_int(first, 7, 0x80, full);
            hpack_put_int(next, 7, 0x80, full);
            continue;
        }
        hpack_put_int(first, 6, 0x40, name_index);
        if (!name_index)
            hpack_put_str(first, 8, 0x00, f[i].name);
        hpack_put_str(first, 8, 0x00, f[i].value);
        hpack_put_int(next, 7, 0x80, HPACK_STATIC_COUNT + 1 + (total - 1 - inserted));
        inserted++;
        *table_bytes += (uint32_t)(strlen(f[i].name) + strlen(f[i].value) + 32);
    }
}

int hpack_encode_request_indexed(const struct shb_request *o, struct hpack_request_blocks *b)
{
    size_t n;
    struct shb_field *f = shb_request_fields(o, SHB_FIELDS_H2, &n);
    if (!f)
        return -1;
    struct hpack_writer first = { NULL, 0 }, next = { NULL, 0 };
    put_indexed_blocks(f, n, &first, &next, &b->table_bytes);
    if (b->table_bytes > HPACK_TABLE_MAX) {
        /* Some would be evicted by the later ones (§4.4) and their indices
         * would move: not worth the bookkeeping for a request this large. */
        free(f);
        return 1;
    }
    uint8_t *buf = malloc(first.len + next.len);
    if (!buf) {
        free(f);
        return -1;
    }
    b->first_len = first.len;
    b->next_len = next.len;
    b->first = buf;
    b->next = buf + first.len;
    first = (struct hpack_writer){ b->first, 0 };
    next = (struct hpack_writer){ b->next, 0 };
    put_indexed_blocks(f, n, &first, &next, &b->table_bytes);
    free(f);
    return 0;
}

static size_t write_block(const struct shb_request *o, const struct shb_field *f, size_t n, uint8_t *out)
{
    (void)o;
    struct hpack_writer w = { out, 0 };
    for (size_t i = 0; i < n; i++)
        put_field(&w, f[i].name, f[i].value);
    return w.len;
}

uint8_t *hpack_encode_request(const struct shb_request *o, size_t *len)
{
    return shb_request_encode(o, SHB_FIELDS_H2, write_block, len);
}

/* ------------------------------------------------------- dynamic table */

void hpack_decoder_init(struct hpack_decoder *d, uint32_t limit)
{
    /* Not a memset: the entry arrays and the arena are written before they
     * are read (every lookup is below count), and an HTTP/2 connection
     * whose peer never indexes should not pay 4.9 KB of resident memory. */
    d->size = d->count = d->head = d->tail = 0;
    d->limit = limit > HPACK_TABLE_MAX ? HPACK_TABLE_MAX : limit;
    d->capacity = d->limit;
    d->vmemo_len = 0;
    d->bmemo_len = 0;
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

/* §4.4: an entry larger than the capacity is not an error; inserting it
 * empties the table. */
static void table_clear(struct hpack_decoder *d)
{
    while (d->count)
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
        table_clear(d);
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
    d->vbad[s] = value_raw(0, value, vlen) & VC_BAD; /* once here, not at every reference */
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
#define SF_INDEX 0x10  /* the current literal is inserted (§6.2.1): its strings are collected */
#define SF_BIG 0x20    /* ... but it is larger than the capacity: collecting stopped, it empties the table (§4.4) */
#define SF_NPSEUDO 0x40 /* the literal name read so far starts with ':' (RFC 9113 §8.3) */
#define SF_NBAD 0x80   /* ... holds a character RFC 9113 §8.2.1 forbids in a name */

/* What a field's name makes of the response (RFC 9113 §8.2.1, §8.3). */
enum { NK_REGULAR, NK_STATUS, NK_PSEUDO, NK_BAD };

static const uint8_t status_raw[7] = { ':', 's', 't', 'a', 't', 'u', 's' };
/* ":status" Huffman-coded. §5.2 pins the padding (the EOS prefix, under 8
 * bits), so this is the only valid encoding; the tests check it against
 * hpack_huffman_encode. */
static const uint8_t status_huff[5] = { 0xb8, 0x84, 0x8d, 0x36, 0xa3 };

void hpack_status_scan_init(struct hpack_status_scan *s, struct hpack_decoder *table)
{
    /* Not a memset: the other fields (col's 4 KB among them) are always
     * written before they are read. */
    s->table = table;
    s->state = SS_FIELD;
    s->flags = 0;
    s->malformed = false;
    s->names_bad = false;
    s->status_late = false;
    s->values_bad = false;
    s->clen_bad = false;
    s->in_clen = false;
    s->content_length = -1;
    s->regular = false;
    s->status = 0;
    s->indexing = table->capacity >= ENTRY_OVERHEAD;
    s->vmemo_pos = 0;
    s->fed = false;
}


/* Name octets b[0..n), the first at offset pos of the name: SF_NPSEUDO for
 * a leading colon, SF_NBAD for what RFC 9113 §8.2.1 forbids (0x00-0x20,
 * 0x41-0x5a, 0x7f-0xff, a colon elsewhere). */
static uint8_t name_octets(uint32_t pos, const uint8_t *b, size_t n)
{
    uint8_t fl = 0;
    size_t i = 0;
    if (pos == 0 && n && b[0] == ':') {
        fl = SF_NPSEUDO;
        i = 1;
    }
    unsigned bad = 0; /* a table and no branch: names are on every response's hot path */
    for (; i < n; i++)
        bad |= field_class[b[i]];
    return (bad & FC_NAME) ? (uint8_t)(fl | SF_NBAD) : fl;
}

/* content-length (RFC 9110 §8.6, RFC 9113 §8.1.1). */
#define STATIC_CONTENT_LENGTH 28
#define CL_MAX 100000000000000000ull /* 10^17: more is no length a test run will see */
static const uint8_t clen_name[14] = { 'c', 'o', 'n', 't', 'e', 'n', 't', '-', 'l', 'e', 'n', 'g', 't', 'h' };

/* Do decoded name octets b[0..n), at offset pos, still match "content-length"? */
static bool clen_match(uint32_t pos, const uint8_t *b, size_t n)
{
    return pos + n <= sizeof clen_name && memcmp(clen_name + pos, b, n) == 0;
}

static void clen_start(struct hpack_status_scan *s)
{
    s->in_clen = true;
    s->cl_val = 0;
    s->cl_digits = 0;
    s->cl_bad_cur = false;
    s->vacc = 0;
    s->vbits = 0;
}

/* Decoded value octets of a content-length. */
static void clen_octets(struct hpack_status_scan *s, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] < '0' || b[i] > '9' || s->cl_val >= CL_MAX) {
            s->cl_bad_cur = true;
            continue;
        }
        s->cl_val = s->cl_val * 10 + (uint64_t)(b[i] - '0');
        s->cl_digits = 1;
    }
}

/* Value octets p[0..k) of a content-length, Huffman-coded when huff. */
static int clen_value(struct hpack_status_scan *s, const uint8_t *p, size_t k, bool huff)
{
    if (!huff) {
        clen_octets(s, p, k);
        return 0;
    }
    uint8_t out[32];
    while (k) {
        size_t m = k < 16 ? k : 16, o = 0;
        unsigned vb = s->vbits;
        if (huff_run(&s->vacc, &vb, p, m, out, sizeof out, &o) != 0)
            return HPACK_ERR_HUFFMAN;
        s->vbits = (uint8_t)vb;
        clen_octets(s, out, o);
        p += m;
        k -= m;
    }
    return 0;
}

/* The content-length value ended: a second one must agree (RFC 9110 §8.6). */
static int clen_end(struct hpack_status_scan *s, bool huff)
{
    s->in_clen = false;
    if (huff && huff_end(s->vacc, s->vbits) != 0)
        return HPACK_ERR_HUFFMAN;
    int64_t v = s->cl_digits && !s->cl_bad_cur ? (int64_t)s->cl_val : -1;
    if (v < 0 || (s->content_length >= 0 && s->content_length != v))
        s->clen_bad = true;
    else
        s->content_length = v;
    return 0;
}

/* A whole content-length value. */
static int clen_whole(struct hpack_status_scan *s, const uint8_t *p, size_t n, bool huff)
{
    clen_start(s);
    int rc = clen_value(s, p, n, huff);
    return rc ? rc : clen_end(s, huff);
}

/* Is the name at index v (name/nlen) content-length? */
static bool index_is_clen(uint64_t v, const uint8_t *name, size_t nlen)
{
    return v == STATIC_CONTENT_LENGTH ||
           (v > HPACK_STATIC_COUNT && nlen == sizeof clen_name && memcmp(name, clen_name, nlen) == 0);
}

/* Huffman-coded name octets in[0..n), decoded only to be checked: *acc and
 * *nbits carry a code cut between calls, *pos counts the decoded octets.
 * Sixteen input octets decode to at most 31 symbols (5 bits the shortest
 * code, under 30 bits pending), so the 32-byte buffer never fills. Returns
 * the SF_N* flags, or HPACK_ERR_HUFFMAN (EOS, §5.2). */
static int name_huff(uint64_t *acc, unsigned *nbits, uint32_t *pos, bool *cl, const uint8_t *in, size_t n)
{
    uint8_t out[32];
    int fl = 0;
    while (n) {
        size_t k = n < 16 ? n : 16, o = 0;
        if (huff_run(acc, nbits, in, k, out, sizeof out, &o) != 0)
            return HPACK_ERR_HUFFMAN;
        fl |= name_octets(*pos, out, o);
        *cl = *cl && clen_match(*pos, out, o);
        *pos += (uint32_t)o;
        in += k;
        n -= k;
    }
    return fl;
}

/* A whole literal name in[0..n): its kind, or HPACK_ERR_HUFFMAN. */
static int literal_name_kind(const uint8_t *in, size_t n, bool huff, bool status, bool *is_clen)
{
    int fl;
    bool cl = true;
    if (status) {
        *is_clen = false;
        return NK_STATUS;
    }
    if (huff) {
        uint64_t acc = 0;
        unsigned nbits = 0;
        uint32_t pos = 0;
        fl = name_huff(&acc, &nbits, &pos, &cl, in, n);
        if (fl < 0 || huff_end(acc, nbits) != 0)
            return HPACK_ERR_HUFFMAN;
        n = pos;
    } else {
        fl = name_octets(0, in, n);
        cl = clen_match(0, in, n);
    }
    *is_clen = cl && n == sizeof clen_name;
    return (fl & SF_NBAD) ? NK_BAD : (fl & SF_NPSEUDO) ? NK_PSEUDO : NK_REGULAR;
}

/* The kind of a name given by index v (static or dynamic, already checked
 * to exist; name/nlen its name). Static 1-7 are the request pseudo-headers,
 * 8-14 :status, the rest lowercase regular names (Appendix A). */
static int index_kind(uint64_t v, const uint8_t *name, size_t nlen)
{
    if (v <= HPACK_STATIC_COUNT)
        return v < STATIC_STATUS_FIRST ? NK_PSEUDO : v <= STATIC_STATUS_LAST ? NK_STATUS : NK_REGULAR;
    if (nlen == 7 && memcmp(name, ":status", 7) == 0)
        return NK_STATUS;
    bool unused;
    return literal_name_kind(name, nlen, false, false, &unused);
}

/* A field's name is known: RFC 9113 §8.3 (pseudo-headers first, :status
 * the only one a response has) and §8.2.1 (valid names). */
static void name_seen(struct hpack_status_scan *s, int kind)
{
    switch (kind) {
    case NK_STATUS:
        if (s->regular)
            s->status_late = true;
        break;
    case NK_PSEUDO:
        s->names_bad = true;
        break;
    case NK_BAD:
        s->names_bad = true;
        s->regular = true;
        break;
    default:
        s->regular = true;
        break;
    }
}

/* The :status value in in[0..n) is complete: exactly three digits, 100..999
 * (RFC 9110 §15; 0 would read as "no status"). Returns the status,
 * HPACK_ERR_STATUS, or HPACK_ERR_HUFFMAN. */
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

/* x: a :status value, or parse_status's error. A malformed or repeated
 * :status makes the response malformed (RFC 9113 §8.3, §8.1.1), a stream
 * error: it is noted and decoding goes on, since the rest of the block may
 * still change the table. Bad Huffman is a decoding error (§5.2). */
static int got_status(struct hpack_status_scan *s, int x)
{
    if (x == HPACK_ERR_HUFFMAN)
        return x;
    if (x < 0 || s->status)
        s->malformed = true;
    else
        s->status = (uint16_t)x;
    return 0;
}

static bool is_status_name(const uint8_t *name, size_t nlen)
{
    return nlen == sizeof status_raw && memcmp(name, status_raw, sizeof status_raw) == 0;
}

/* Dynamic index i (62 .. 61 + count): is its name ":status"? */
static bool dyn_is_status(const struct hpack_decoder *d, uint64_t i)
{
    uint32_t sl = slot_of(d, (uint32_t)(i - HPACK_STATIC_COUNT));
    return d->nlen[sl] == sizeof status_raw && memcmp(d->arena + d->off[sl], status_raw, sizeof status_raw) == 0;
}

/* Dynamic index i (62 .. 61 + count): is its name "content-length"? */
static bool dyn_is_clen(const struct hpack_decoder *d, uint64_t i)
{
    uint32_t sl = slot_of(d, (uint32_t)(i - HPACK_STATIC_COUNT));
    return d->nlen[sl] == sizeof clen_name && memcmp(d->arena + d->off[sl], clen_name, sizeof clen_name) == 0;
}

/* n octets at a and b the same? Eight at a time: the values compared are
 * mostly 10 to 30 octets. */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

static inline bool same_octets(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            if (load64(a + i) != load64(b + i))
                return false;
        return load64(a + n - 8) == load64(b + n - 8);
    }
    if (n >= 4)
        return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

#define VMEMO_OFF UINT32_MAX

/* A whole Huffman-coded value p[0..n) of the fast path: value_whole's
 * answer, from table->vmemo when the value there is the same (see hpack.h).
 * vmemo always holds whole entries from its start, each of a value found
 * valid, and s->vmemo_pos is the start of one (or its end, or VMEMO_OFF):
 * so a match is always with a whole valid value, never with octets that
 * straddle two. A value that differs replaces the entry in place when its
 * length is the same (later entries still line up), else ends vmemo there. */
static int value_memo(struct hpack_status_scan *s, const uint8_t *p, uint64_t n)
{
    struct hpack_decoder *d = s->table;
    uint64_t m = s->vmemo_pos, next = m + 1 + n;
    if (next <= d->vmemo_len && d->vmemo[m] == n && same_octets(d->vmemo + m + 1, p, (size_t)n)) {
        s->vmemo_pos = (uint32_t)next;
        return 0;
    }
    int r = value_whole(p, (size_t)n, true, false);
    if (r != 0 || next > HPACK_VMEMO) {
        s->vmemo_pos = VMEMO_OFF;
        return r;
    }
    if (m >= d->vmemo_len || d->vmemo[m] != n)
        d->vmemo_len = (uint16_t)next; /* what followed no longer lines up */
    d->vmemo[m] = (uint8_t)n;
    memcpy(d->vmemo + m + 1, p, (size_t)n);
    s->vmemo_pos = (uint32_t)next;
    return 0;
}

/* Dynamic index i (62 .. 61 + count): does its value break RFC 9113
 * §8.2.1? (Table values are decoded octets.) */
static bool dyn_value_bad(const struct hpack_decoder *d, uint64_t i)
{
    return d->vbad[slot_of(d, (uint32_t)(i - HPACK_STATIC_COUNT))];
}

/* Dynamic index i (62 .. 61 + count, not ":status"): its name's kind. */
static int dyn_kind(const struct hpack_decoder *d, uint64_t i)
{
    uint32_t sl = slot_of(d, (uint32_t)(i - HPACK_STATIC_COUNT));
    bool unused;
    return literal_name_kind(d->arena + d->off[sl], d->nlen[sl], false, false, &unused);
}

/* Collects k octets of the current string into col (decoding them when they
 * are Huffman-coded). Past cmax the entry cannot fit the table whatever
 * follows: collecting stops (SF_BIG), and the insert will empty the table. */
static int collect(struct hpack_status_scan *s, const uint8_t *p, size_t k)
{
    if (!(s->flags & SF_HUFF)) {
        if (k > s->cmax - s->clen) {
            s->flags |= SF_BIG;
            return 0;
        }
        memcpy(s->col + s->clen, p, k);
        s->clen += (uint32_t)k;
        return 0;
    }
    unsigned nbits = s->hbits;
    size_t o = s->clen;
    int rc = huff_run(&s->hacc, &nbits, p, k, s->col, s->cmax, &o);
    s->hbits = (uint8_t)nbits;
    s->clen = (uint32_t)o;
    if (rc == HPACK_ERR_TOO_LONG) {
        s->flags |= SF_BIG;
        return 0;
    }
    return rc;
}

/* A string has ended: a collected Huffman string's padding is checked
 * (§5.2). (A value's is checked by value_end too, whether it was collected
 * or not: value_done.) */
static int string_end(struct hpack_status_scan *s)
{
    if ((s->flags & (SF_INDEX | SF_BIG | SF_HUFF)) == (SF_INDEX | SF_HUFF))
        return huff_end(s->hacc, s->hbits);
    return 0;
}

/* The collected literal goes into the table (§4.4, §6.2.1). */
static void scan_insert(struct hpack_status_scan *s)
{
    struct hpack_decoder *d = s->table;
    if (s->flags & SF_BIG) {
        table_clear(d);
        return;
    }
    const uint8_t *name = s->col, *unused_v;
    size_t nlen = s->nlen, unused_vl;
    long name_off = -1;
    if (s->name_index) /* checked when the index was read; the table has not changed since */
        table_get(d, s->name_index, &name, &nlen, &unused_v, &unused_vl, &name_off);
    table_insert(d, name, nlen, name_off, s->col + s->nlen, s->clen - s->nlen);
}

static int value_done(struct hpack_status_scan *s)
{
    int rc = value_end(&s->vchk); /* RFC 9113 §8.2.1; RFC 7541 §5.2 */
    if (rc > 0) {
        s->values_bad = true;
        rc = 0;
    }
    if (rc == 0)
        rc = string_end(s);
    if (rc == 0 && (s->flags & SF_STATUS))
        rc = got_status(s, parse_status(s->sbuf, s->slen, s->flags & SF_HUFF));
    if (rc == 0 && s->in_clen)
        rc = clen_end(s, s->flags & SF_HUFF);
    if (rc)
        return rc;
    if (s->flags & SF_INDEX)
        scan_insert(s);
    s->state = SS_FIELD;
    return 0;
}

/* A name or value string of v octets starts: nothing of it skipped or
 * Huffman-decoded yet. */
static void string_start(struct hpack_status_scan *s, uint64_t v)
{
    s->skip = v;
    s->hacc = 0;
    s->hbits = 0;
}

/* The integer read in state s->state is complete, in s->ival. */
static int scan_int_done(struct hpack_status_scan *s)
{
    uint64_t v = s->ival;
    struct hpack_decoder *d = s->table;
    const uint8_t *name, *value;
    size_t nlen, vlen;
    long name_off;
    int rc;
    switch (s->state) {
    case SS_INDEX: /* §6.1 */
        s->state = SS_FIELD;
        if (v >= STATIC_STATUS_FIRST && v <= STATIC_STATUS_LAST) {
            name_seen(s, NK_STATUS);
            return got_status(s, static_status[v - STATIC_STATUS_FIRST]);
        }
        if ((rc = table_get(d, v, &name, &nlen, &value, &vlen, &name_off)) != 0)
            return rc; /* 0, or beyond both tables (§2.3.3) */
        name_seen(s, index_kind(v, name, nlen));
        if (v > HPACK_STATIC_COUNT && dyn_value_bad(d, v))
            s->values_bad = true;
        if (v > HPACK_STATIC_COUNT && is_status_name(name, nlen)) /* table values are decoded octets */
            return got_status(s, parse_status(value, vlen, false));
        if (index_is_clen(v, name, nlen))
            return clen_whole(s, value, vlen, false);
        return 0;
    case SS_NAME_INDEX: /* §6.2 */
        s->name_index = (uint32_t)v;
        s->nlen = s->clen = 0;
        if (v == 0) {
            /* A literal name: name and value are collected together. */
            if (s->flags & SF_INDEX)
                s->cmax = d->capacity - ENTRY_OVERHEAD;
            s->state = SS_NLEN0;
            return 0;
        }
        if ((rc = table_get(d, v, &name, &nlen, &value, &vlen, &name_off)) != 0)
            return rc;
        name_seen(s, index_kind(v, name, nlen));
        if (index_is_clen(v, name, nlen))
            clen_start(s);
        if ((v >= STATIC_STATUS_FIRST && v <= STATIC_STATUS_LAST) ||
            (v > HPACK_STATIC_COUNT && is_status_name(name, nlen)))
            s->flags |= SF_STATUS;
        if (s->flags & SF_INDEX) { /* only the value is collected */
            uint32_t room = d->capacity - ENTRY_OVERHEAD;
            if (nlen > room)
                s->flags |= SF_BIG;
            else
                s->cmax = room - (uint32_t)nlen;
        }
        s->state = SS_VLEN0;
        return 0;
    case SS_SIZE:
        /* §6.3, §4.2: a new capacity up to the limit, evicting what no longer
         * fits. The limit is the protocol's default 4096 although we may
         * advertise less: see h2.c for why. */
        if (v > d->limit)
            return HPACK_ERR_TABLE_SIZE;
        d->capacity = (uint32_t)v;
        evict_to(d, d->capacity);
        s->indexing = d->capacity >= ENTRY_OVERHEAD;
        s->state = SS_FIELD;
        return 0;
    case SS_NLEN:
        string_start(s, v);
        s->vacc = 0;
        s->vbits = 0;
        s->npos = 0;
        s->cl_name = true;
        if (v == ((s->flags & SF_HUFF) ? sizeof status_huff : sizeof status_raw))
            s->flags |= SF_MATCH;
        s->state = SS_NAME;
        if (v == 0) {
            name_seen(s, NK_REGULAR); /* an empty name: not among RFC 9113 §8.2.1's checks */
            s->state = SS_VLEN0; /* nlen stays 0 */
        }
        return 0;
    case SS_VLEN:
        string_start(s, v);
        s->slen = 0;
        value_start(&s->vchk, s->flags & SF_HUFF);
        if (s->flags & SF_HUFF)
            s->vmemo_pos = VMEMO_OFF; /* this block's values no longer line up with vmemo */
        if ((s->flags & SF_STATUS) && v > sizeof s->sbuf) { /* 3 digits: at most 3 octets, even Huffman */
            s->malformed = true;
            s->flags &= (uint8_t)~SF_STATUS;
        }
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
    s->state = st;
    return hpack_int_first(&s->ival, &s->ilen, b, prefix_bits) ? scan_int_done(s) : 0;
}

/* hpack_int_decode with the one-octet case inline (p < end). */
static inline bool int_quick(const uint8_t **pp, const uint8_t *end, unsigned prefix_bits, uint64_t *v)
{
    unsigned mask = (1u << prefix_bits) - 1;
    unsigned x = **pp & mask;
    if (x < mask) {
        *v = x;
        (*pp)++;
        return true;
    }
    return hpack_int_decode(pp, end, prefix_bits, v) == 0;
}

/* Fast path: one whole representation that lies entirely in [*pp, end) and
 * holds nothing unusual, parsed without the state machine. Returns true and
 * advances *pp when it did; false (nothing changed) sends the caller to the
 * state machine, which handles every case, errors included, byte by byte.
 * Unusual: a size update, a literal that is inserted (capacity >= 32 only), a
 * dynamic entry named :status, any :status but the first valid one, any
 * error. */
static bool scan_field_fast(struct hpack_status_scan *s, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    uint8_t b = *p;
    uint64_t idx, len;
    if (b & 0x80) { /* §6.1, a one-octet index */
        idx = b & 0x7f;
        if (idx >= STATIC_STATUS_FIRST && idx <= STATIC_STATUS_LAST) {
            if (s->status)
                return false;
            s->status = static_status[idx - STATIC_STATUS_FIRST];
            name_seen(s, NK_STATUS);
        } else if (idx == 0 || idx > HPACK_STATIC_COUNT) { /* dynamic (or an error) */
            if (idx == 0 || idx == 0x7f || idx - HPACK_STATIC_COUNT > s->table->count ||
                dyn_is_status(s->table, idx) || dyn_is_clen(s->table, idx))
                return false;
            name_seen(s, dyn_kind(s->table, idx));
            if (dyn_value_bad(s->table, idx))
                s->values_bad = true;
        } else if (idx == STATIC_CONTENT_LENGTH) { /* an empty content-length: state machine */
            return false;
        } else {
            name_seen(s, idx < STATIC_STATUS_FIRST ? NK_PSEUDO : NK_REGULAR);
        }
        s->flags = SF_FIELD;
        *pp = p + 1;
        return true;
    }
    if ((b & 0xe0) == 0x20) /* size updates are rare: state machine */
        return false;
    if ((b & 0x40) && s->indexing) /* to be inserted: state machine */
        return false;
    if (!int_quick(&p, end, (b & 0x40) ? 6 : 4, &idx))
        return false;
    bool status = idx >= STATIC_STATUS_FIRST && idx <= STATIC_STATUS_LAST;
    if (idx > HPACK_STATIC_COUNT &&
        (idx - HPACK_STATIC_COUNT > s->table->count || dyn_is_status(s->table, idx)))
        return false;
    int kind = idx > HPACK_STATIC_COUNT ? dyn_kind(s->table, idx)
             : idx == 0 ? NK_REGULAR : idx < STATIC_STATUS_FIRST ? NK_PSEUDO : status ? NK_STATUS : NK_REGULAR;
    bool clen = idx == STATIC_CONTENT_LENGTH || (idx > HPACK_STATIC_COUNT && dyn_is_clen(s->table, idx));
    if (idx == 0) {
        if (p >= end)
            return false;
        bool huff = *p & 0x80;
        if (!int_quick(&p, end, 7, &len) || len > (uint64_t)(end - p))
            return false;
        status = huff ? len == sizeof status_huff && memcmp(p, status_huff, sizeof status_huff) == 0
                      : len == sizeof status_raw && memcmp(p, status_raw, sizeof status_raw) == 0;
        kind = literal_name_kind(p, (size_t)len, huff, status, &clen);
        if (kind < 0)
            return false; /* bad Huffman: the state machine reports it */
        p += len;
    }
    if (p >= end)
        return false;
    bool huff = *p & 0x80;
    if (!int_quick(&p, end, 7, &len) || len > (uint64_t)(end - p))
        return false;
    int vbad = huff ? value_memo(s, p, len) : value_whole(p, (size_t)len, false, false); /* RFC 9113 §8.2.1 */
    if (vbad < 0)
        return false; /* bad Huffman: the state machine reports it */
    if (status) {
        int x = s->status || len > sizeof s->sbuf ? -1 : parse_status(p, (size_t)len, huff);
        if (x < 0)
            return false;
        s->status = (uint16_t)x;
    }
    if (clen && clen_whole(s, p, (size_t)len, huff) != 0)
        return false; /* bad Huffman: the state machine reports it */
    name_seen(s, kind);
    if (vbad)
        s->values_bad = true;
    s->flags = SF_FIELD;
    *pp = p + len;
    return true;
}

/* The block memo (hpack.h, bmemo): a whole block, on an empty table, the
 * same as the memo's? Then the scan is what it was then. */
static bool block_memo_hit(struct hpack_status_scan *s, const uint8_t *p, size_t n)
{
    struct hpack_decoder *d = s->table;
    if (d->count || n != d->bmemo_len || d->capacity != d->bmemo_cap_in || !same_octets(d->bmemo, p, n))
        return false;
    const struct hpack_block_verdict *v = &d->bmemo_v;
    d->capacity = d->bmemo_cap_out; /* its size updates; nothing to evict */
    s->indexing = d->capacity >= ENTRY_OVERHEAD;
    s->status = v->status;
    s->malformed = v->malformed;
    s->names_bad = v->names_bad;
    s->status_late = v->status_late;
    s->values_bad = v->values_bad;
    s->clen_bad = v->clen_bad;
    s->content_length = v->content_length;
    return true;
}

static void block_memo_store(struct hpack_status_scan *s, const uint8_t *p, size_t n, uint32_t cap_in)
{
    struct hpack_decoder *d = s->table;
    d->bmemo_len = (uint16_t)n;
    d->bmemo_cap_in = cap_in;
    d->bmemo_cap_out = d->capacity;
    d->bmemo_v = (struct hpack_block_verdict){ s->status, s->malformed, s->names_bad, s->status_late,
                                               s->values_bad, s->clen_bad, s->content_length };
    memcpy(d->bmemo, p, n);
}

int hpack_status_scan_feed(struct hpack_status_scan *s, const uint8_t *p, size_t n, bool last)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    int rc = 0;
    if (s->state == SS_FAILED)
        return -(int)s->ival;
    /* A whole block in one piece, on an empty table: the block memo. */
    const uint8_t *whole = NULL;
    uint32_t cap_in = s->table->capacity;
    if (last && !s->fed && n && n <= HPACK_BMEMO && s->table->count == 0) {
        if (block_memo_hit(s, p, n)) {
            s->fed = true;
            return 0;
        }
        whole = p;
    }
    s->fed = s->fed || n;
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
            if (b & 0x80) { /* §6.1 */
                rc = scan_int_first(s, b, 7, SS_INDEX);
                break;
            }
            /* §6.2.1 (6-bit index) inserts, §6.2.2 and §6.2.3 (4-bit) do
             * not. With a capacity under 32 no entry fits and the table is
             * already empty (an insert would empty it, §4.4): nothing to do. */
            if ((b & 0x40) && s->indexing)
                s->flags |= SF_INDEX;
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
            if ((s->flags & (SF_INDEX | SF_BIG)) == SF_INDEX)
                rc = collect(s, p, k);
            if (rc == 0) { /* RFC 9113 §8.2.1, §8.3: the name's characters */
                int fl;
                if (s->flags & SF_HUFF) {
                    unsigned vb = s->vbits;
                    fl = name_huff(&s->vacc, &vb, &s->npos, &s->cl_name, p, k);
                    s->vbits = (uint8_t)vb;
                } else {
                    fl = name_octets(s->npos, p, k);
                    s->cl_name = s->cl_name && clen_match(s->npos, p, k);
                    s->npos += (uint32_t)k;
                }
                if (fl < 0)
                    rc = fl;
                else
                    s->flags |= (uint8_t)fl;
            }
            p += k;
            s->skip -= k;
            if (s->skip == 0 && rc == 0) {
                rc = string_end(s);
                if (rc == 0 && (s->flags & SF_HUFF))
                    rc = huff_end(s->vacc, s->vbits);
                s->nlen = s->clen;
                if (s->flags & SF_MATCH)
                    s->flags |= SF_STATUS;
                name_seen(s, (s->flags & SF_MATCH) ? NK_STATUS : (s->flags & SF_NBAD) ? NK_BAD
                             : (s->flags & SF_NPSEUDO) ? NK_PSEUDO : NK_REGULAR);
                if (rc == 0 && s->cl_name && s->npos == sizeof clen_name)
                    clen_start(s);
                s->state = SS_VLEN0;
            }
            break;
        }
        case SS_VALUE: {
            size_t k = (size_t)(end - p) < s->skip ? (size_t)(end - p) : (size_t)s->skip;
            value_feed(&s->vchk, p, k); /* every value, whatever else is done with it */
            if (s->flags & SF_STATUS) {
                memcpy(s->sbuf + s->slen, p, k);
                s->slen = (uint8_t)(s->slen + k);
            }
            if ((s->flags & (SF_INDEX | SF_BIG)) == SF_INDEX)
                rc = collect(s, p, k);
            if (rc == 0 && s->in_clen)
                rc = clen_value(s, p, k, s->flags & SF_HUFF);
            p += k;
            s->skip -= k;
            if (s->skip == 0 && rc == 0)
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
    if (rc == 0 && whole && s->table->count == 0)
        block_memo_store(s, whole, n, cap_in);
    if (rc < 0) {
        s->state = SS_FAILED;
        s->ival = (uint64_t)-rc;
        return rc;
    }
    return 0;
}
