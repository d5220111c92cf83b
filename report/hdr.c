/* hdr.c — HdrHistogram's V2 encoding of struct hist (hdr.h says the format).
 *
 * Runs once per report or log interval, never per request. */
#include "report/hdr.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V2_COOKIE 0x1c849313u            /* V2 base 0x1c849303 | 0x10: ZigZag LEB128 counts */
#define V2_COMPRESSED_COOKIE 0x1c849314u /* V2 compressed base 0x1c849304 | 0x10 */
#define COOKIE_BASE(c) ((c) & ~0xf0u)    /* readers ignore the word-size nibble */
#define V2_HEADER 40
#define VARINT_MAX 9 /* 8 bytes of 7 bits, a 9th of 8 */
/* The largest plain encoding of our layout: the header and every bucket
 * as its longest varint; anything inflating past it is not ours. */
#define V2_MAX (V2_HEADER + (size_t)HIST_BUCKETS * VARINT_MAX)

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
    return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* HdrHistogram's ZigZagEncoding: zigzag, then 7 bits a byte low first with
 * the top bit saying more follow, except that a 9th byte carries 8 bits. */
static size_t put_zigzag(uint8_t *p, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (n < 8 && z >> 7) {
        p[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    p[n++] = (uint8_t)z;
    return n;
}

/* 0, or -1 when the bytes end inside a varint. */
static int get_zigzag(const uint8_t **pp, const uint8_t *end, int64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t z = 0;
    for (unsigned i = 0;; i++) {
        if (p == end)
            return -1;
        uint8_t b = *p++;
        if (i == 8) {
            z |= (uint64_t)b << 56;
            break;
        }
        z |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            break;
    }
    *pp = p;
    *v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    return 0;
}

/* The number of counts the V2 encoding carries: up to the last non-empty
 * bucket (the histogram's highest index + 1). */
static size_t v2_limit(const struct hist *h)
{
    for (size_t i = HIST_BUCKETS; i > 0; i--)
        if (h->counts[i - 1])
            return i;
    return 0;
}

/* The plain V2 encoding of h's first limit counts into out, or with out
 * NULL only its length (what the encoder's buffer is sized by); its
 * length. A run of two or more empty buckets is one negative varint, a
 * single one a 0 (as HdrHistogram writes them). */
static size_t encode_v2(const struct hist *h, size_t limit, uint8_t *out)
{
    uint8_t spare[VARINT_MAX];
    size_t n = V2_HEADER;
    for (size_t i = 0; i < limit;) {
        uint32_t c = h->counts[i++];
        int64_t v = c;
        if (!c) {
            int64_t zeros = 1;
            while (i < limit && h->counts[i] == 0) {
                zeros++;
                i++;
            }
            v = zeros > 1 ? -zeros : 0;
        }
        n += put_zigzag(out ? out + n : spare, v);
    }
    if (!out)
        return n;
    put_be32(out, V2_COOKIE);
    put_be32(out + 4, (uint32_t)(n - V2_HEADER)); /* payload length */
    put_be32(out + 8, 0); /* normalizing index offset */
    put_be32(out + 12, HDR_SIGNIFICANT_DIGITS);
    put_be64(out + 16, 1); /* lowest discernible value: 1 ns */
    put_be64(out + 24, HDR_HIGHEST_TRACKABLE);
    double ratio = 1.0;
    uint64_t bits;
    memcpy(&bits, &ratio, sizeof bits);
    put_be64(out + 32, bits); /* integer-to-double conversion ratio */
    return n;
}

/* RFC 1950 §8.2's Adler-32. */
static uint32_t adler32(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    while (n) {
        size_t chunk = n < 5552 ? n : 5552; /* the most bytes before b can pass 2^32 */
        n -= chunk;
        while (chunk--) {
            a += *p++;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    return b << 16 | a;
}

#define STORED_MAX 65535u

/* A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4) of
 * in into out, which holds zlib_stored_size(n); its length. */
static size_t zlib_stored_size(size_t n)
{
    size_t blocks = n ? (n + STORED_MAX - 1) / STORED_MAX : 1;
    return 2 + blocks * 5 + n + 4;
}

static size_t zlib_stored(const uint8_t *in, size_t n, uint8_t *out)
{
    uint8_t *p = out;
    *p++ = 0x78; /* CM 8 (deflate), CINFO 7 (32 KiB window) */
    *p++ = 0x01; /* FLEVEL 0, no dictionary; (0x78 << 8 | 0x01) % 31 == 0 */
    size_t left = n;
    do {
        size_t len = left < STORED_MAX ? left : STORED_MAX;
        left -= len;
        *p++ = left == 0; /* BFINAL on the last block, BTYPE 00 */
        p[0] = (uint8_t)len;
        p[1] = (uint8_t)(len >> 8);
        p[2] = (uint8_t)~len;
        p[3] = (uint8_t)(~len >> 8);
        p += 4;
        memcpy(p, in, len);
        p += len;
        in += len;
    } while (left);
    put_be32(p, adler32(in - n, n));
    return (size_t)(p + 4 - out);
}

/* RFC 1951 §3.2.5's length and distance codes: base values and extra bits. */
static const uint16_t len_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                       31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                        193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/* A deflate writer: bits go out least significant first (§3.1.1). */
struct bitw {
    uint8_t *p, *end;
    uint64_t buf;
    unsigned n;
    bool full; /* out of room: the caller falls back to stored blocks */
};

static void put_bits(struct bitw *w, uint32_t v, unsigned n)
{
    w->buf |= (uint64_t)v << w->n;
    w->n += n;
    while (w->n >= 8) {
        if (w->p == w->end) {
            w->full = true;
            w->n = 0;
            return;
        }
        *w->p++ = (uint8_t)w->buf;
        w->buf >>= 8;
        w->n -= 8;
    }
}

/* A Huffman code goes out from its most significant bit (§3.1.1). */
static void put_code(struct bitw *w, uint32_t code, unsigned len)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < len; i++)
        r |= ((code >> i) & 1) << (len - 1 - i);
    put_bits(w, r, len);
}

#define WINDOW 32768u
#define HASH_BITS 13
#define CHAIN 16 /* candidates tried per position */
#define MATCH_MIN 3
#define MATCH_MAX 258

static unsigned hash3(const uint8_t *p)
{
    return ((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]) * 2654435761u >> (32 - HASH_BITS);
}

/* LZ77's work space, in the caller's buffer (struct hdr_buf): a token
 * per input byte at most, the hash heads, and each position's previous
 * one with the same hash (prev_entries(n) of them: positions % WINDOW). */
struct lz77_space {
    uint32_t *tokens, *head, *prev;
};

static size_t prev_entries(size_t n)
{
    return n < WINDOW ? (n ? n : 1) : WINDOW;
}

/* LZ77 over in (greedy, CHAIN candidates a position, the last 32 KiB):
 * tokens of (length << 16 | distance) for a match, or a literal byte.
 * Returns how many. */
#define TOKEN_MATCH 0x80000000u
static size_t lz77(const uint8_t *in, size_t n, const struct lz77_space *w)
{
    uint32_t *tokens = w->tokens, *head = w->head, *prev = w->prev;
    size_t nt = 0;
    /* prev needs no clearing: a chain reaches only positions already
     * entered, and each entry wrote its slot. */
    memset(head, 0, (sizeof *head) << HASH_BITS);
    for (size_t i = 0; i < n;) {
        size_t best = 0, dist = 0;
        if (i + MATCH_MIN <= n) {
            /* head and prev hold position + 1; 0 is none */
            for (uint32_t c = head[hash3(in + i)], k = 0; c && k < CHAIN; c = prev[(c - 1) % WINDOW], k++) {
                size_t at = c - 1;
                if (at >= i || i - at > WINDOW - 1)
                    break;
                size_t l = 0, most = n - i < MATCH_MAX ? n - i : MATCH_MAX;
                while (l < most && in[at + l] == in[i + l])
                    l++;
                if (l > best) {
                    best = l;
                    dist = i - at;
                }
            }
        }
        size_t step = best >= MATCH_MIN ? best : 1;
        tokens[nt++] = best >= MATCH_MIN ? TOKEN_MATCH | (uint32_t)best << 16 | (uint32_t)dist : in[i];
        for (size_t k = 0; k < step; k++, i++) {
            if (i + MATCH_MIN > n)
                continue;
            unsigned hv = hash3(in + i);
            prev[i % WINDOW] = head[hv];
            head[hv] = (uint32_t)i + 1;
        }
    }
    return nt;
}

static unsigned len_code(size_t len)
{
    unsigned l = 28;
    while (len_base[l] > len)
        l--;
    return l;
}

static unsigned dist_code(size_t dist)
{
    unsigned d = 29;
    while (dist_base[d] > dist)
        d--;
    return d;
}

/* Code lengths (at most limit bits) for symbols of these frequencies:
 * Huffman's construction, and while its tree is too deep, the frequencies
 * halved (kept non-zero) and built again, which flattens it. At least two
 * symbols get a code, so every code is complete (§3.2.2; inflaters refuse
 * an incomplete literal/length code). */
static void code_lengths(const uint32_t *freq_in, unsigned nsym, unsigned limit, uint8_t *len)
{
    uint32_t freq[288];
    unsigned used = 0;
    for (unsigned i = 0; i < nsym; i++) {
        freq[i] = freq_in[i];
        used += freq[i] != 0;
    }
    for (unsigned i = 0; used < 2 && i < nsym; i++) /* a second (or first) symbol, never sent */
        if (!freq[i]) {
            freq[i] = 1;
            used++;
        }
    for (;;) {
        /* Nodes 0..nsym-1 are leaves, the rest internal; each merge joins
         * the two lightest live nodes. O(n^2) over at most 288 symbols. */
        uint64_t weight[2 * 288];
        int parent[2 * 288];
        bool live[2 * 288];
        unsigned nodes = nsym;
        for (unsigned i = 0; i < nsym; i++) {
            weight[i] = freq[i];
            live[i] = freq[i] != 0;
            parent[i] = -1;
        }
        for (unsigned left = used; left > 1; left--) {
            int a = -1, b = -1;
            for (unsigned k = 0; k < nodes; k++) {
                if (!live[k])
                    continue;
                if (a < 0 || weight[k] < weight[a]) {
                    b = a;
                    a = (int)k;
                } else if (b < 0 || weight[k] < weight[b]) {
                    b = (int)k;
                }
            }
            weight[nodes] = weight[a] + weight[b];
            live[nodes] = true;
            parent[nodes] = -1;
            live[a] = live[b] = false;
            parent[a] = parent[b] = (int)nodes;
            nodes++;
        }
        unsigned deepest = 0;
        for (unsigned i = 0; i < nsym; i++) {
            unsigned d = 0;
            if (freq[i])
                for (int k = parent[i]; k >= 0; k = parent[k])
                    d++;
            len[i] = (uint8_t)d;
            if (d > deepest)
                deepest = d;
        }
        if (deepest <= limit)
            return;
        for (unsigned i = 0; i < nsym; i++)
            if (freq[i])
                freq[i] = freq[i] / 2 | 1;
    }
}

/* §3.2.2: canonical codes from lengths. */
static void canonical_codes(const uint8_t *len, unsigned nsym, uint16_t *code)
{
    uint16_t count[16] = { 0 }, next[16];
    for (unsigned i = 0; i < nsym; i++)
        count[len[i]]++;
    count[0] = 0;
    unsigned c = 0;
    for (unsigned bits = 1; bits <= 15; bits++) {
        c = (c + count[bits - 1]) << 1;
        next[bits] = (uint16_t)c;
    }
    for (unsigned i = 0; i < nsym; i++)
        if (len[i])
            code[i] = next[len[i]]++;
}

/* A zlib stream of one dynamic-Huffman deflate block (§3.2.7) of in's
 * LZ77 tokens, into out's cap bytes; its length, or 0 when it does not
 * fit. The counts' varints are mostly a few small byte values, runs of
 * them repeating: a fraction of the plain encoding. */
static size_t zlib_dynamic(const uint8_t *in, size_t n, const struct lz77_space *space, uint8_t *out, size_t cap)
{
    static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    if (cap < 6)
        return 0;
    const uint32_t *tokens = space->tokens;
    size_t nt = lz77(in, n, space);
    uint32_t lfreq[286] = { 0 }, dfreq[30] = { 0 };
    for (size_t t = 0; t < nt; t++) {
        if (tokens[t] & TOKEN_MATCH) {
            lfreq[257 + len_code(tokens[t] >> 16 & 0x1ff)]++;
            dfreq[dist_code(tokens[t] & 0xffff)]++;
        } else {
            lfreq[tokens[t]]++;
        }
    }
    lfreq[256] = 1;
    uint8_t llen[286], dlen[30];
    uint16_t lcode[286] = { 0 }, dcode[30] = { 0 };
    code_lengths(lfreq, 286, 15, llen);
    code_lengths(dfreq, 30, 15, dlen);
    canonical_codes(llen, 286, lcode);
    canonical_codes(dlen, 30, dcode);
    unsigned hlit = 286, hdist = 30;
    while (hlit > 257 && !llen[hlit - 1])
        hlit--;
    while (hdist > 1 && !dlen[hdist - 1])
        hdist--;

    /* The code lengths, run-length coded (§3.2.7): 16 repeats the last
     * length 3-6 times, 17 and 18 write 3-10 and 11-138 zeros. */
    uint8_t all[286 + 30], rle[286 + 30], extra[286 + 30];
    unsigned nall = 0, nrle = 0;
    memcpy(all, llen, hlit);
    memcpy(all + hlit, dlen, hdist);
    nall = hlit + hdist;
    uint32_t cfreq[19] = { 0 };
    for (unsigned i = 0; i < nall;) {
        unsigned run = 1;
        while (i + run < nall && all[i + run] == all[i])
            run++;
        if (all[i] == 0 && run >= 3) {
            unsigned r = run > 138 ? 138 : run;
            rle[nrle] = r >= 11 ? 18 : 17;
            extra[nrle++] = (uint8_t)(r >= 11 ? r - 11 : r - 3);
            i += r;
        } else if (all[i] != 0 && run >= 4) {
            rle[nrle] = all[i];
            extra[nrle++] = 0;
            unsigned r = run - 1 > 6 ? 6 : run - 1;
            rle[nrle] = 16;
            extra[nrle++] = (uint8_t)(r - 3);
            i += 1 + r;
        } else {
            rle[nrle] = all[i];
            extra[nrle++] = 0;
            i++;
        }
    }
    for (unsigned i = 0; i < nrle; i++)
        cfreq[rle[i]]++;
    uint8_t clen[19];
    uint16_t ccode[19] = { 0 };
    code_lengths(cfreq, 19, 7, clen);
    canonical_codes(clen, 19, ccode);
    unsigned hclen = 19;
    while (hclen > 4 && !clen[order[hclen - 1]])
        hclen--;

    struct bitw w = { .p = out + 2, .end = out + cap - 4 };
    out[0] = 0x78; /* as zlib_stored: deflate, 32 KiB window */
    out[1] = 0x01;
    put_bits(&w, 1, 1); /* BFINAL */
    put_bits(&w, 2, 2); /* BTYPE 10: dynamic Huffman codes */
    put_bits(&w, hlit - 257, 5);
    put_bits(&w, hdist - 1, 5);
    put_bits(&w, hclen - 4, 4);
    for (unsigned i = 0; i < hclen; i++)
        put_bits(&w, clen[order[i]], 3);
    static const uint8_t rle_extra_bits[3] = { 2, 3, 7 };
    for (unsigned i = 0; i < nrle; i++) {
        put_code(&w, ccode[rle[i]], clen[rle[i]]);
        if (rle[i] >= 16)
            put_bits(&w, extra[i], rle_extra_bits[rle[i] - 16]);
    }
    for (size_t t = 0; t < nt && !w.full; t++) {
        if (!(tokens[t] & TOKEN_MATCH)) {
            put_code(&w, lcode[tokens[t]], llen[tokens[t]]);
            continue;
        }
        size_t len = tokens[t] >> 16 & 0x1ff, dist = tokens[t] & 0xffff;
        unsigned l = len_code(len), d = dist_code(dist);
        put_code(&w, lcode[257 + l], llen[257 + l]);
        put_bits(&w, (uint32_t)(len - len_base[l]), len_extra[l]);
        put_code(&w, dcode[d], dlen[d]);
        put_bits(&w, (uint32_t)(dist - dist_base[d]), dist_extra[d]);
    }
    put_code(&w, lcode[256], llen[256]); /* end of block */
    if (w.n)
        put_bits(&w, 0, 8 - w.n); /* to a byte boundary */
    if (w.full)
        return 0;
    put_be32(w.p, adler32(in, n));
    return (size_t)(w.p + 4 - out);
}

/* Where an encoding's parts lie in the caller's buffer, every one sized
 * by the plain encoding's length n (itself bounded by the histogram's
 * highest index): LZ77's tables first (uint32_t, aligned as malloc's
 * block is), then the plain bytes, the compressed ones and their base64. */
struct layout {
    size_t head, prev, plain, packed, packed_cap, text, total;
};

static void lay_out(size_t n, struct layout *l)
{
    l->head = n * sizeof(uint32_t); /* the tokens come first, one per byte at most */
    l->prev = l->head + ((sizeof(uint32_t)) << HASH_BITS);
    l->plain = l->prev + prev_entries(n) * sizeof(uint32_t);
    l->packed = l->plain + n;
    l->packed_cap = 8 + zlib_stored_size(n); /* stored blocks: the longest it comes out */
    l->text = l->packed + l->packed_cap;
    l->total = l->text + (l->packed_cap + 2) / 3 * 4 + 1;
}

/* b holds at least need bytes: kept when it does, else replaced (its
 * contents are not kept) by one at least twice as large, so a series of
 * growing histograms reallocates a few times, not once each. */
static int reserve(struct hdr_buf *b, size_t need)
{
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap * 2 > need ? b->cap * 2 : need;
    uint8_t *p = malloc(cap);
    if (!p)
        return -1;
    free(b->p);
    b->p = p;
    b->cap = cap;
    return 0;
}

void hdr_buf_free(struct hdr_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->cap = 0;
}

/* Encodes h into b (hdr_encode's bytes at l->packed); their length, or 0
 * when memory ran out. */
static size_t encode_into(struct hdr_buf *b, const struct hist *h, struct layout *l)
{
    size_t limit = v2_limit(h), n = encode_v2(h, limit, NULL);
    lay_out(n, l);
    if (reserve(b, l->total) < 0)
        return 0;
    uint8_t *plain = b->p + l->plain, *out = b->p + l->packed;
    encode_v2(h, limit, plain);
    struct lz77_space space = {
        .tokens = (uint32_t *)(void *)b->p,
        .head = (uint32_t *)(void *)(b->p + l->head),
        .prev = (uint32_t *)(void *)(b->p + l->prev),
    };
    /* Huffman-coded when that comes out shorter than stored blocks (it
     * does for all but the tiniest histograms), stored blocks otherwise. */
    size_t z = zlib_dynamic(plain, n, &space, out + 8, l->packed_cap - 8);
    if (z == 0)
        z = zlib_stored(plain, n, out + 8);
    put_be32(out, V2_COMPRESSED_COOKIE);
    put_be32(out + 4, (uint32_t)z);
    return 8 + z;
}

const uint8_t *hdr_encode(struct hdr_buf *b, const struct hist *h, size_t *len)
{
    struct layout l;
    size_t n = encode_into(b, h, &l);
    if (!n)
        return NULL;
    *len = n;
    return b->p + l.packed;
}

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t hdr_base64(const uint8_t *p, size_t n, char *out)
{
    char *o = out;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        *o++ = b64_alphabet[v >> 18 & 63];
        *o++ = b64_alphabet[v >> 12 & 63];
        *o++ = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64_alphabet[v & 63] : '=';
    }
    *o = '\0';
    return (size_t)(o - out);
}

const char *hdr_encode_base64(struct hdr_buf *b, const struct hist *h, size_t *len)
{
    struct layout l;
    size_t n = encode_into(b, h, &l);
    if (!n)
        return NULL;
    char *text = (char *)b->p + l.text;
    size_t t = hdr_base64(b->p + l.packed, n, text);
    if (len)
        *len = t;
    return text;
}

/* ------------------------------------------------------------ decoding */

static void set_err(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
}

/* RFC 4648 §4, padding required (4 characters a group); NULL for anything
 * else, with *n the bytes. The caller frees. */
static uint8_t *unbase64(const char *s, size_t len, size_t *n)
{
    if (len == 0 || len % 4)
        return NULL;
    uint8_t *out = malloc(len / 4 * 3);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (size_t k = 0; k < 4; k++) {
            char c = s[i + k];
            const char *at = c ? strchr(b64_alphabet, c) : NULL;
            /* '=' only at the end: one in the last place, or the last two */
            if (c == '=' && i + 4 == len && k >= 2 && (k == 3 || s[i + 3] == '=')) {
                pad++;
                v <<= 6;
                continue;
            }
            if (!at || pad) {
                free(out);
                return NULL;
            }
            v = v << 6 | (uint32_t)(at - b64_alphabet);
        }
        out[o++] = (uint8_t)(v >> 16);
        if (pad < 2)
            out[o++] = (uint8_t)(v >> 8);
        if (pad < 1)
            out[o++] = (uint8_t)v;
    }
    *n = o;
    return out;
}

/* RFC 1951 inflate, into a bounded buffer: enough of it for any encoder's
 * output (stored, fixed and dynamic Huffman blocks), with every length and
 * distance checked. Codes are canonical (§3.2.2): decoded from per-length
 * counts and the symbols in code order, a bit at a time. */
struct bits {
    const uint8_t *p, *end;
    uint32_t buf;
    unsigned have;
    bool overrun;
};

static unsigned getbits(struct bits *b, unsigned n)
{
    while (b->have < n) {
        if (b->p == b->end) {
            b->overrun = true;
            return 0;
        }
        b->buf |= (uint32_t)*b->p++ << b->have;
        b->have += 8;
    }
    unsigned v = b->buf & ((1u << n) - 1);
    b->buf >>= n;
    b->have -= n;
    return v;
}

#define MAX_BITS 15
struct huffman {
    uint16_t count[MAX_BITS + 1]; /* codes of each length */
    uint16_t symbol[288];         /* symbols in canonical order */
};

/* 0 when the lengths make a code that is complete or, as §3.2.7 allows for
 * a single distance code, has one code; -1 when over-subscribed. */
static int huffman_build(struct huffman *h, const uint8_t *lengths, unsigned n)
{
    uint16_t offs[MAX_BITS + 1];
    memset(h->count, 0, sizeof h->count);
    for (unsigned i = 0; i < n; i++)
        h->count[lengths[i]]++;
    int left = 1;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        left = 2 * left - h->count[len];
        if (left < 0)
            return -1;
    }
    offs[1] = 0;
    for (unsigned len = 1; len < MAX_BITS; len++)
        offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
    for (unsigned i = 0; i < n; i++)
        if (lengths[i])
            h->symbol[offs[lengths[i]]++] = (uint16_t)i;
    return 0;
}

/* The next symbol, or -1 (no such code, or out of input). */
static int huffman_decode(struct bits *b, const struct huffman *h)
{
    int code = 0, first = 0, index = 0;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        code |= (int)getbits(b, 1);
        if (b->overrun)
            return -1;
        int count = h->count[len];
        if (code - count < first)
            return h->symbol[index + (code - first)];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return -1;
}

struct inflate_out {
    uint8_t *p;
    size_t n, cap;
};

/* One Huffman-coded block's symbols until end-of-block; 0 or -1. */
static int inflate_codes(struct bits *b, struct inflate_out *o, const struct huffman *lit, const struct huffman *dist)
{
    for (;;) {
        int sym = huffman_decode(b, lit);
        if (sym < 0)
            return -1;
        if (sym < 256) {
            if (o->n == o->cap)
                return -1;
            o->p[o->n++] = (uint8_t)sym;
        } else if (sym == 256) {
            return 0;
        } else {
            sym -= 257;
            if (sym >= 29)
                return -1;
            size_t len = len_base[sym] + getbits(b, len_extra[sym]);
            int d = huffman_decode(b, dist);
            if (d < 0 || d >= 30)
                return -1;
            size_t back = dist_base[d] + getbits(b, dist_extra[d]);
            if (b->overrun || back > o->n || len > o->cap - o->n)
                return -1;
            for (size_t i = 0; i < len; i++, o->n++) /* may overlap itself: byte by byte */
                o->p[o->n] = o->p[o->n - back];
        }
    }
}

static int inflate_stored(struct bits *b, struct inflate_out *o)
{
    b->buf = 0; /* §3.2.4: skip to a byte boundary */
    b->have = 0;
    if (b->end - b->p < 4)
        return -1;
    unsigned len = b->p[0] | (unsigned)b->p[1] << 8, nlen = b->p[2] | (unsigned)b->p[3] << 8;
    b->p += 4;
    if ((len ^ 0xffffu) != nlen || (size_t)(b->end - b->p) < len || len > o->cap - o->n)
        return -1;
    memcpy(o->p + o->n, b->p, len);
    o->n += len;
    b->p += len;
    return 0;
}

static int inflate_fixed(struct bits *b, struct inflate_out *o)
{
    uint8_t lengths[288];
    struct huffman lit, dist;
    unsigned i = 0;
    for (; i < 144; i++) /* §3.2.6 */
        lengths[i] = 8;
    for (; i < 256; i++)
        lengths[i] = 9;
    for (; i < 280; i++)
        lengths[i] = 7;
    for (; i < 288; i++)
        lengths[i] = 8;
    huffman_build(&lit, lengths, 288);
    memset(lengths, 5, 30);
    huffman_build(&dist, lengths, 30);
    return inflate_codes(b, o, &lit, &dist);
}

static int inflate_dynamic(struct bits *b, struct inflate_out *o)
{
    static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    uint8_t lengths[288 + 32];
    struct huffman lencode, lit, dist;
    unsigned nlen = getbits(b, 5) + 257, ndist = getbits(b, 5) + 1, ncode = getbits(b, 4) + 4; /* §3.2.7 */
    if (b->overrun || nlen > 286 || ndist > 30)
        return -1;
    memset(lengths, 0, 19);
    for (unsigned i = 0; i < ncode; i++)
        lengths[order[i]] = (uint8_t)getbits(b, 3);
    if (b->overrun || huffman_build(&lencode, lengths, 19) < 0)
        return -1;
    for (unsigned i = 0; i < nlen + ndist;) {
        int sym = huffman_decode(b, &lencode);
        if (sym < 0)
            return -1;
        if (sym < 16) {
            lengths[i++] = (uint8_t)sym;
            continue;
        }
        uint8_t v = 0;
        unsigned rep;
        if (sym == 16) {
            if (i == 0)
                return -1;
            v = lengths[i - 1];
            rep = 3 + getbits(b, 2);
        } else if (sym == 17) {
            rep = 3 + getbits(b, 3);
        } else {
            rep = 11 + getbits(b, 7);
        }
        if (b->overrun || i + rep > nlen + ndist)
            return -1;
        while (rep--)
            lengths[i++] = v;
    }
    if (lengths[256] == 0) /* no end-of-block code */
        return -1;
    if (huffman_build(&lit, lengths, nlen) < 0 || huffman_build(&dist, lengths + nlen, ndist) < 0)
        return -1;
    return inflate_codes(b, o, &lit, &dist);
}

/* A zlib stream (header, deflate blocks, Adler-32) into o; 0 or -1. */
static int zlib_inflate(const uint8_t *p, size_t n, struct inflate_out *o)
{
    /* RFC 1950 §2.2: CM 8, CINFO <= 7, FCHECK, and no preset dictionary. */
    if (n < 6 || (p[0] & 0x0f) != 8 || p[0] >> 4 > 7 || (p[0] << 8 | p[1]) % 31 || (p[1] & 0x20))
        return -1;
    struct bits b = { .p = p + 2, .end = p + n };
    unsigned last;
    do {
        last = getbits(&b, 1);
        unsigned type = getbits(&b, 2);
        if (b.overrun)
            return -1;
        int rc = type == 0 ? inflate_stored(&b, o) : type == 1 ? inflate_fixed(&b, o) : type == 2 ? inflate_dynamic(&b, o) : -1;
        if (rc < 0)
            return -1;
    } while (!last);
    if (b.end - b.p < 4) /* the trailer follows the last block's byte */
        return -1;
    return get_be32(b.p) == adler32(o->p, o->n) ? 0 : -1;
}

/* Adds a plain V2 encoding's counts to h; 0, or -1 with err. */
static int decode_v2(const uint8_t *p, size_t n, struct hist *h, char *err, size_t errlen)
{
    if (n < V2_HEADER || COOKIE_BASE(get_be32(p)) != COOKIE_BASE(V2_COOKIE)) {
        set_err(err, errlen, "not an HdrHistogram V2 encoding");
        return -1;
    }
    uint32_t payload = get_be32(p + 4);
    if (payload > n - V2_HEADER) {
        set_err(err, errlen, "HdrHistogram encoding cut short");
        return -1;
    }
    if (get_be32(p + 8) != 0 || get_be32(p + 12) != HDR_SIGNIFICANT_DIGITS || get_be64(p + 16) != 1) {
        set_err(err, errlen, "HdrHistogram of another layout (shb's: 3 significant digits, lowest value 1, not shifted)");
        return -1;
    }
    uint32_t *add = calloc(HIST_BUCKETS, sizeof *add);
    if (!add) {
        set_err(err, errlen, "out of memory");
        return -1;
    }
    const uint8_t *q = p + V2_HEADER, *end = q + payload;
    size_t idx = 0;
    uint64_t total = 0;
    const char *bad = NULL;
    while (q < end && !bad) {
        int64_t v;
        if (get_zigzag(&q, end, &v) < 0)
            bad = "HdrHistogram encoding ends inside a count";
        else if (v < 0) { /* that many empty buckets; none may be counted past ours */
            uint64_t zeros = 0 - (uint64_t)v, room = HIST_BUCKETS - idx;
            idx = zeros >= room ? HIST_BUCKETS : idx + (size_t)zeros;
        } else if (v == 0) {
            idx++;
        } else if (idx >= HIST_BUCKETS)
            bad = "HdrHistogram counts past shb's highest value (2^55-1 ns)";
        else if ((uint64_t)v + h->counts[idx] > UINT32_MAX)
            bad = "HdrHistogram bucket count over 2^32-1";
        else {
            add[idx++] = (uint32_t)v;
            total += (uint64_t)v;
        }
    }
    if (bad) {
        set_err(err, errlen, bad);
        free(add);
        return -1;
    }
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        h->counts[i] += add[i];
    h->count += total;
    free(add);
    return 0;
}

int hdr_decode_add(const uint8_t *p, size_t n, struct hist *h, char *err, size_t errlen)
{
    if (n >= 8 && COOKIE_BASE(get_be32(p)) == COOKIE_BASE(V2_COMPRESSED_COOKIE)) {
        uint32_t z = get_be32(p + 4);
        struct inflate_out o = { .p = malloc(V2_MAX), .cap = V2_MAX };
        if (!o.p) {
            set_err(err, errlen, "out of memory");
            return -1;
        }
        int rc = -1;
        if (z > n - 8 || zlib_inflate(p + 8, z, &o) < 0)
            set_err(err, errlen, "HdrHistogram's zlib stream does not inflate");
        else
            rc = decode_v2(o.p, o.n, h, err, errlen);
        free(o.p);
        return rc;
    }
    return decode_v2(p, n, h, err, errlen);
}

int hdr_decode_base64_add(const char *b64, size_t len, struct hist *h, char *err, size_t errlen)
{
    size_t n;
    uint8_t *bin = unbase64(b64, len, &n);
    if (!bin) {
        set_err(err, errlen, "histogram is not base64 (RFC 4648, padded)");
        return -1;
    }
    int rc = hdr_decode_add(bin, n, h, err, errlen);
    free(bin);
    return rc;
}
