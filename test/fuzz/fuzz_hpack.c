/* test/fuzz/fuzz_hpack.c — HPACK (hpack.h): the complete decoder against the
 * hot-path :status scanner, and the Huffman code both ways.
 *
 * Input: [split mode] [split seed, 2 bytes], then the header blocks of one
 * connection, each as a 2-byte big-endian length and that many bytes (the
 * last one takes what is left when its length overshoots).
 *
 * Every block goes through hpack_decode with one decoder table and, in
 * pieces the split chooses, through hpack_status_scan_feed with another
 * table, as h2.c runs it: both tables set up with HPACK_TABLE_MAX and kept
 * across the blocks. What hpack.h (and the rules at the top of hpack.c)
 * promise when the complete decoder accepts a block:
 *   - the scanner accepts it too: every scanner error (a reference beyond the
 *     tables, a bad size update, a block cut mid-field, an integer overflow,
 *     bad Huffman in a name or a value) is a decoding error of the complete
 *     decoder as well;
 *   - the two dynamic tables stay in step (same capacity, size, and entries);
 *   - a block that finds and leaves the table empty, fed again whole,
 *     gives the same verdict (the block memo, hpack.h's bmemo);
 *   - s->values_bad exactly when a field the decoder gives has a value with
 *     NUL, LF or CR, or SP or HTAB at either end (RFC 9113 §8.2.1), whatever
 *     the split and whatever the earlier blocks left in the value memo;
 *   - no :status: s->status 0, not malformed; one :status of three digits
 *     100..999: that status, not malformed; a :status not of three digits,
 *     or a second one: s->malformed (RFC 9113 §8.3);
 *   - a scanner error is sticky: later feeds return it again.
 * The first block the decoder refuses ends the connection (COMPRESSION_ERROR),
 * so nothing after it is compared.
 *
 * Huffman (RFC 7541 §5.2, Appendix B), for every block's bytes: encoding
 * then decoding gives them back, hpack_huffman_encoded_len is what encode
 * writes, one byte less of output room is an error; and when the raw bytes
 * decode as Huffman, encoding the result gives exactly those bytes back (the
 * code is prefix-free and §5.2 pins the padding, so each string has one
 * encoding). */
#include "fuzz.h"
#include "hpack.h"

#define BLOCK_MAX 65535

static struct hpack_decoder dec_table, scan_table;
static struct hpack_status_scan scan;
static uint8_t scratch[2 * BLOCK_MAX];     /* Huffman decodes to at most 8/5 of the input */
static uint8_t huff_enc[4 * BLOCK_MAX + 8]; /* codes are at most 30 bits */
static uint8_t huff_dec[2 * BLOCK_MAX];

/* The :status fields the complete decoder saw in one block. */
struct fields {
    bool values_bad; /* a value RFC 9113 §8.2.1 forbids */
    unsigned nstatus;
    uint8_t value[8];
    size_t vlen; /* of the first :status; longer values are cut at 8 (they are malformed anyway) */
};

static int on_field(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    struct fields *f = ctx;
    if (vlen && (value[0] == ' ' || value[0] == '\t' || value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
        f->values_bad = true;
    for (size_t i = 0; i < vlen; i++)
        if (value[i] == 0 || value[i] == '\r' || value[i] == '\n')
            f->values_bad = true;
    if (nlen == 7 && memcmp(name, ":status", 7) == 0) {
        if (f->nstatus++ == 0) {
            f->vlen = vlen;
            memcpy(f->value, value, vlen < sizeof f->value ? vlen : sizeof f->value);
        }
    }
    return 0;
}

/* One dynamic entry read back through the public API: an indexed field
 * (§6.1) decoded against the table, which leaves the table as it was. */
struct entry {
    size_t nlen, vlen;
    uint8_t name[HPACK_TABLE_MAX], value[HPACK_TABLE_MAX];
};
static struct entry entry_a, entry_b;

static int on_entry(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    struct entry *e = ctx;
    FZ_CHECK(nlen <= sizeof e->name && vlen <= sizeof e->value, "entry of %zu + %zu bytes", nlen, vlen);
    e->nlen = nlen;
    e->vlen = vlen;
    memcpy(e->name, name, nlen);
    memcpy(e->value, value, vlen);
    return 0;
}

static void read_entry(struct hpack_decoder *d, uint32_t index, struct entry *e)
{
    uint8_t rep[16];
    size_t n = hpack_int_encode(rep, sizeof rep, 7, 0x80, index);
    FZ_CHECK(n > 0, "cannot encode index %u", index);
    int rc = hpack_decode(d, rep, n, NULL, 0, on_entry, e);
    FZ_CHECK(rc == 0, "dynamic index %u of %u entries: %d", index, d->count, rc);
}

static void tables_agree(void)
{
    FZ_CHECK(dec_table.capacity == scan_table.capacity, "capacity %u vs %u", dec_table.capacity,
             scan_table.capacity);
    FZ_CHECK(dec_table.size == scan_table.size, "size %u vs %u", dec_table.size, scan_table.size);
    FZ_CHECK(dec_table.count == scan_table.count, "count %u vs %u", dec_table.count, scan_table.count);
    for (uint32_t i = 1; i <= dec_table.count; i++) {
        read_entry(&dec_table, HPACK_STATIC_COUNT + i, &entry_a);
        read_entry(&scan_table, HPACK_STATIC_COUNT + i, &entry_b);
        FZ_CHECK(entry_a.nlen == entry_b.nlen && memcmp(entry_a.name, entry_b.name, entry_a.nlen) == 0,
                 "entry %u: names differ", i);
        FZ_CHECK(entry_a.vlen == entry_b.vlen && memcmp(entry_a.value, entry_b.value, entry_a.vlen) == 0,
                 "entry %u: values differ", i);
    }
}

/* Feeds one block to the scanner in pieces; returns its result. */
static int scan_block(const uint8_t *blk, size_t n, struct fz_split *sp)
{
    hpack_status_scan_init(&scan, &scan_table);
    int rc = 0;
    size_t off = 0;
    /* An empty last fragment is legal (h2.c sends one when END_HEADERS
     * comes on an empty CONTINUATION): sometimes end with one. */
    bool empty_last = fz_rand(sp) & 1;
    do {
        size_t k = fz_split_next(sp, n - off);
        bool last = off + k == n && !empty_last;
        int r = hpack_status_scan_feed(&scan, fz_place(blk + off, k), k, last);
        if (rc < 0)
            FZ_CHECK(r == rc, "error %d not sticky: %d", rc, r);
        else
            rc = r;
        off += k;
    } while (off < n);
    if (empty_last) {
        int r = hpack_status_scan_feed(&scan, NULL, 0, true);
        if (rc < 0)
            FZ_CHECK(r == rc, "error %d not sticky: %d", rc, r);
        else
            rc = r;
    }
    return rc;
}

static void check_status(const struct fields *f)
{
    if (f->nstatus == 0) {
        FZ_CHECK(scan.status == 0 && !scan.malformed, "no :status, scanner says %u (malformed %d)", scan.status,
                 scan.malformed);
        return;
    }
    if (f->nstatus > 1) {
        FZ_CHECK(scan.malformed, "%u :status fields, not malformed", f->nstatus);
        return;
    }
    bool digits = f->vlen == 3;
    for (size_t i = 0; digits && i < 3; i++)
        digits = f->value[i] >= '0' && f->value[i] <= '9';
    if (!digits) {
        FZ_CHECK(scan.malformed, ":status of %zu bytes (not 3 digits), not malformed", f->vlen);
        return;
    }
    unsigned v = (unsigned)(f->value[0] - '0') * 100 + (unsigned)(f->value[1] - '0') * 10 +
                 (unsigned)(f->value[2] - '0');
    if (v < 100) {
        FZ_CHECK(scan.malformed, ":status %03u, not malformed", v);
        return;
    }
    FZ_CHECK(!scan.malformed && scan.status == v, ":status %u, scanner says %u (malformed %d)", v, scan.status,
             scan.malformed);
}

static void huffman_round_trip(const uint8_t *p, size_t n)
{
    size_t elen = hpack_huffman_encoded_len(p, n);
    FZ_CHECK(elen <= sizeof huff_enc, "encoded length %zu", elen);
    size_t w = hpack_huffman_encode(p, n, huff_enc);
    FZ_CHECK(w == elen, "encode wrote %zu, encoded_len said %zu", w, elen);
    long d = hpack_huffman_decode(huff_enc, w, huff_dec, n);
    FZ_CHECK(d == (long)n, "round trip of %zu bytes decoded to %ld", n, d);
    FZ_CHECK(n == 0 || memcmp(huff_dec, p, n) == 0, "round trip changed the bytes");
    if (n > 0) {
        d = hpack_huffman_decode(huff_enc, w, huff_dec, n - 1);
        FZ_CHECK(d < 0, "%zu bytes decoded into %zu bytes of room: %ld", n, n - 1, d);
    }

    /* The raw bytes as a Huffman string. */
    d = hpack_huffman_decode(p, n, huff_dec, sizeof huff_dec);
    if (d < 0) {
        FZ_CHECK(d == HPACK_ERR_HUFFMAN, "raw decode failed with %ld", d);
        return;
    }
    FZ_CHECK(hpack_huffman_encoded_len(huff_dec, (size_t)d) == n, "%zu bytes decoded, re-encode is %zu bytes", n,
             hpack_huffman_encoded_len(huff_dec, (size_t)d));
    w = hpack_huffman_encode(huff_dec, (size_t)d, huff_enc);
    FZ_CHECK(w == n && memcmp(huff_enc, p, n) == 0, "decoded bytes re-encode differently");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    struct fz_reader rd = { data, size };
    uint8_t mode = fz_u8(&rd);
    uint16_t seed = fz_u16(&rd);
    struct fz_split sp;
    fz_split_init(&sp, mode, seed);

    hpack_decoder_init(&dec_table, HPACK_TABLE_MAX);
    hpack_decoder_init(&scan_table, HPACK_TABLE_MAX);
    bool alive = true;
    while (rd.n > 0) {
        size_t n = fz_u16(&rd);
        if (n > rd.n)
            n = rd.n;
        const uint8_t *blk = rd.p;
        rd.p += n;
        rd.n -= n;

        huffman_round_trip(blk, n);
        if (!alive)
            continue;

        struct fields f = { false, 0, { 0 }, 0 };
        bool empty_before = scan_table.count == 0;
        int rc_d = hpack_decode(&dec_table, blk, n, scratch, sizeof scratch, on_field, &f);
        int rc_s = scan_block(blk, n, &sp);
        FZ_CHECK(rc_d <= 0 && rc_s <= 0, "results %d, %d", rc_d, rc_s);
        if (rc_d != 0) {
            FZ_CHECK(rc_d != HPACK_ERR_TOO_LONG, "scratch too small for a %zu-byte block", n);
            alive = false; /* COMPRESSION_ERROR: the connection is gone */
            continue;
        }
        FZ_CHECK(rc_s == 0, "the decoder accepts the block, the scanner says %d", rc_s);
        check_status(&f);
        FZ_CHECK(scan.values_bad == f.values_bad, "values_bad: scanner %d, decoder's fields %d", scan.values_bad,
                 f.values_bad);
        tables_agree();
        if (empty_before && scan_table.count == 0 && n > 0) {
            /* Again, whole, on the table it left (empty, the same capacity
             * its size updates set): the block memo's answer, or a fresh
             * scan's, must be the first one. */
            struct hpack_status_scan first = scan;
            hpack_status_scan_init(&scan, &scan_table);
            int r = hpack_status_scan_feed(&scan, fz_place(blk, n), n, true);
            FZ_CHECK(r == 0 && scan.status == first.status && scan.malformed == first.malformed &&
                         scan.names_bad == first.names_bad && scan.status_late == first.status_late &&
                         scan.values_bad == first.values_bad && scan.clen_bad == first.clen_bad &&
                         scan.content_length == first.content_length && scan_table.count == 0 &&
                         scan_table.capacity == dec_table.capacity,
                     "the same block again: rc %d status %u/%u values_bad %d/%d", r, scan.status, first.status,
                     scan.values_bad, first.values_bad);
        }
    }
    return 0;
}
