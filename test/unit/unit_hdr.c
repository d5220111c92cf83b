/* test/unit/unit_hdr.c — HdrHistogram V2 encoding (hdr.c) against histograms that
 * HdrHistogram itself encoded, round trips, base64's RFC 4648 §10 vectors,
 * and the inputs it must refuse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/hdr.h"
#include "stats/stats.h"
#include "t.h"

/* Made by HdrHistogram 2.1.11 (Debian's libhdrhistogram-java):
 *   Histogram h = new Histogram(1, (1L << 55) - 1, 3);
 *   long[] vals = {1, 2, 1000, 2047, 2048, 2049, 3000, 1000000, 123456789,
 *                  5000000000L, (1L << 55) - 1};
 *   int k = 1;
 *   for (long v : vals) { h.recordValueWithCount(v, k); k = k * 3 % 1000 + 1; }
 *   for (int i = 0; i < 5000; i++) h.recordValue(50000 + i * 37);
 *   h.encodeIntoCompressedByteBuffer(buf, 9), then java.util.Base64.
 * Its zlib stream is Huffman-coded (Java's Deflater), so it tests the
 * inflater's dynamic blocks; the two small ones below, its fixed blocks. */
static const char java_vector[] =
    "HISTFAAAAHJ42pNpmSzMwMBpwgABzFCakaH+PxjYf4CKMHGc5JdaLRBwin0r+y7Gnw5MQMDAxIRJ4eeOKhpSilhYWJjACBkTZI4qGlU0"
    "qmg4KGLjYAMiBMTOHFU0qmjEK2J7qbiB5WPeJN7poTM4Vr9l+sUBAN5BPaw=";
static const uint64_t java_values[] = { 1,         2,         1000,       2047,        2048, 2049,
                                        3000,      1000000,   123456789,  5000000000ull, (1ull << 55) - 1 };
/* 7 once and 1,500,000 twice; and an empty histogram. */
static const char java_small[] = "HISTFAAAACV42pNpmSzMwMDAxgABzFCakaH+PxjYf4AI8DLd38bIAgDC3Qqi";
static const char java_empty[] = "HISTFAAAAB942pNpmSzMwMDAyAABzFCakaH+PxjYf4CKAACPWgj0";

static void java_reference(struct hist *h)
{
    unsigned k = 1;
    for (size_t i = 0; i < sizeof java_values / sizeof java_values[0]; i++) {
        for (unsigned j = 0; j < k; j++)
            hist_record(h, java_values[i]);
        k = k * 3 % 1000 + 1;
    }
    for (unsigned i = 0; i < 5000; i++)
        hist_record(h, 50000 + (uint64_t)i * 37);
}

static bool same_counts(const struct hist *a, const struct hist *b, size_t *where)
{
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        if (a->counts[i] != b->counts[i]) {
            *where = i;
            return false;
        }
    return a->count == b->count;
}

static void test_java_vectors(void)
{
    struct hist want, got;
    char err[160] = "";
    size_t where = 0;
    hist_init(&want);
    hist_init(&got);
    java_reference(&want);
    int rc = hdr_decode_base64_add(java_vector, strlen(java_vector), &got, err, sizeof err);
    T_CHECK("hdr: HdrHistogram's own encoding (dynamic Huffman) decodes", rc == 0, "%s", err);
    T_CHECK("hdr: its counts are hist_record's, bucket for bucket", same_counts(&want, &got, &where),
            "bucket %zu: %u vs %u; count %llu vs %llu", where, want.counts[where], got.counts[where],
            (unsigned long long)want.count, (unsigned long long)got.count);

    /* Decoding adds: the same bytes again double every bucket. */
    rc = hdr_decode_base64_add(java_vector, strlen(java_vector), &got, err, sizeof err);
    hist_merge(&want, &want);
    T_CHECK("hdr: decoding adds into what is there", rc == 0 && same_counts(&want, &got, &where),
            "rc %d, bucket %zu", rc, where);
    hist_free(&want);
    hist_free(&got);

    hist_init(&want);
    hist_init(&got);
    hist_record(&want, 7);
    hist_record(&want, 1500000);
    hist_record(&want, 1500000);
    rc = hdr_decode_base64_add(java_small, strlen(java_small), &got, err, sizeof err);
    T_CHECK("hdr: a small HdrHistogram encoding (fixed Huffman) decodes to its 3 values",
            rc == 0 && same_counts(&want, &got, &where), "rc %d %s, bucket %zu", rc, err, where);
    hist_free(&want);
    hist_free(&got);

    hist_init(&got);
    rc = hdr_decode_base64_add(java_empty, strlen(java_empty), &got, err, sizeof err);
    T_CHECK("hdr: HdrHistogram's empty histogram decodes to nothing", rc == 0 && got.count == 0, "rc %d %s", rc, err);
    hist_free(&got);
}

static void test_round_trips(void)
{
    /* Empty, one value, the extremes, a spread over every octave, and a
     * histogram whose plain encoding passes one stored block (65535 bytes:
     * about 16k distinct buckets of varints). */
    static const char *const names[] = { "empty", "one value", "0 and the clamp bucket", "every octave",
                                         "over 64 KiB plain" };
    for (int t = 0; t < 5; t++) {
        struct hist h, back;
        hist_init(&h);
        hist_init(&back);
        if (t == 1)
            hist_record(&h, 1234567);
        if (t == 2) {
            hist_record(&h, 0);
            hist_record(&h, UINT64_MAX);
        }
        if (t == 3)
            for (int i = 0; i < 100000; i++)
                hist_record(&h, t_rng() >> (t_rng() % 64));
        if (t == 4)
            for (size_t i = 0; i < HIST_BUCKETS; i += 2) {
                h.counts[i] = 70000 + (uint32_t)i; /* 3-byte varints */
                h.count += h.counts[i];
            }
        size_t len = 0, where = 0;
        struct hdr_buf enc = { 0 };
        const char *b64 = hdr_encode_base64(&enc, &h, &len);
        char err[160] = "", name[96];
        int rc = b64 ? hdr_decode_base64_add(b64, len, &back, err, sizeof err) : -1;
        snprintf(name, sizeof name, "hdr: round trip, %s", names[t]);
        T_CHECK(name, b64 && len == strlen(b64) && rc == 0 && same_counts(&h, &back, &where),
                "rc %d %s, bucket %zu", rc, err, where);
        hdr_buf_free(&enc);
        hist_free(&h);
        hist_free(&back);
    }
}

/* What hdr_encode writes: deflate's dynamic Huffman block (§3.2.7) when
 * it is shorter than stored blocks. 100,000 values over 20 us to 2 ms fill
 * about 6,800 buckets (a byte each of plain varints, so about 6.9 KB
 * stored); coded they must take well under that. */
static void test_block_type(void)
{
    struct hist h, back;
    hist_init(&h);
    hist_init(&back);
    for (int i = 0; i < 100000; i++)
        hist_record(&h, 20000 + t_rng() % 2000000);
    size_t len = 0, where = 0;
    struct hdr_buf buf = { 0 };
    const uint8_t *enc = hdr_encode(&buf, &h, &len);
    char err[160] = "";
    int rc = enc ? hdr_decode_add(enc, len, &back, err, sizeof err) : -1;
    /* After the 8-byte header and zlib's 2 bytes: BFINAL, then BTYPE. */
    T_CHECK("hdr: a full histogram is one dynamic Huffman block, about 60 % of stored, and decodes",
            enc && (enc[10] & 1) && (enc[10] >> 1 & 3) == 2 && len < 5200 && rc == 0 && same_counts(&h, &back, &where),
            "BTYPE %d, %zu bytes, rc %d %s", enc ? enc[10] >> 1 & 3 : -1, len, rc, err);
    hdr_buf_free(&buf);
    hist_free(&h);
    hist_free(&back);
}

static void test_base64(void)
{
    /* RFC 4648 §10. */
    static const char *const in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
    static const char *const out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
    bool ok = true;
    for (int i = 0; i < 7; i++) {
        char buf[16];
        size_t n = hdr_base64((const uint8_t *)in[i], strlen(in[i]), buf);
        if (n != strlen(out[i]) || strcmp(buf, out[i]) != 0) {
            ok = false;
            printf("  base64(%s) = %s, want %s\n", in[i], buf, out[i]);
        }
    }
    T_CHECK("hdr: base64 gives RFC 4648's test vectors", ok, "see above");
}

/* Each must be refused with a reason, leaving the histogram as it was. */
static void test_refusals(void)
{
    struct hist h;
    hist_init(&h);
    hist_record(&h, 5);
    size_t n = 0;
    struct hdr_buf enc = { 0 };
    const uint8_t *bin = hdr_encode(&enc, &h, &n);
    char *b64 = malloc(n * 2 + 8);
    struct {
        const char *name;
        size_t at;      /* byte to change, or SIZE_MAX */
        uint8_t xor_;
        size_t cut;     /* bytes to keep */
    } cases[] = {
        { "a wrong cookie", 0, 0x01, SIZE_MAX },
        { "a stream cut short", SIZE_MAX, 0, 20 },
        { "a bad Adler-32", SIZE_MAX - 1, 0x55, SIZE_MAX },
        { "a bad zlib header", 8, 0x01, SIZE_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *c = malloc(n);
        memcpy(c, bin, n);
        size_t len = cases[i].cut < n ? cases[i].cut : n;
        if (cases[i].at == SIZE_MAX - 1)
            c[n - 1] ^= cases[i].xor_;
        else if (cases[i].at != SIZE_MAX)
            c[cases[i].at] ^= cases[i].xor_;
        hdr_base64(c, len, b64);
        struct hist g;
        hist_init(&g);
        char err[160] = "", name[96];
        int rc = hdr_decode_base64_add(b64, strlen(b64), &g, err, sizeof err);
        snprintf(name, sizeof name, "hdr: refuses %s", cases[i].name);
        T_CHECK(name, rc < 0 && err[0] && g.count == 0, "rc %d, err '%s'", rc, err);
        hist_free(&g);
        free(c);
    }
    static const char *const bad64[] = { "HIST", "HIST=AAA", "HISTFAAAAB942p!", "QQ=", "Q===" };
    bool all = true;
    for (size_t i = 0; i < sizeof bad64 / sizeof bad64[0]; i++) {
        struct hist g;
        hist_init(&g);
        char err[160] = "";
        if (hdr_decode_base64_add(bad64[i], strlen(bad64[i]), &g, err, sizeof err) == 0 || !err[0]) {
            all = false;
            printf("  accepted '%s'\n", bad64[i]);
        }
        hist_free(&g);
    }
    T_CHECK("hdr: refuses what is not padded base64 of a histogram", all, "see above");

    /* A count in a bucket past ours (HdrHistogram's 46th bucket): a plain V2
     * of 47104 zeros then a 1. */
    uint8_t plain[64] = { 0x1c, 0x84, 0x93, 0x13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1,
                          0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0 };
    size_t p = 40;
    uint64_t z = ((uint64_t)HIST_BUCKETS << 1) - 1; /* zigzag(-47104) */
    while (z >> 7) {
        plain[p++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    plain[p++] = (uint8_t)z;
    plain[p++] = 2; /* zigzag(1) */
    plain[7] = (uint8_t)(p - 40);
    struct hist g;
    hist_init(&g);
    char err[160] = "";
    int rc = hdr_decode_add(plain, p, &g, err, sizeof err);
    T_CHECK("hdr: refuses counts past 2^55-1 ns", rc < 0 && strstr(err, "2^55") && g.count == 0, "rc %d '%s'", rc, err);
    plain[p - 1] = 0; /* the same with an empty bucket there: fine */
    rc = hdr_decode_add(plain, p, &g, err, sizeof err);
    T_CHECK("hdr: takes an empty bucket past ours", rc == 0 && g.count == 0, "rc %d '%s'", rc, err);
    hist_free(&g);
    free(b64);
    hdr_buf_free(&enc);
    hist_free(&h);
}

/* The caller's one buffer, as a report's timeline uses it: sized by the
 * histogram (a one-value one needs a fraction of the 415 KB the largest
 * plain encoding takes), kept from call to call (no allocation once the
 * largest is in), and what it held before changes nothing encoded. */
static void test_reused_buffer(void)
{
    struct hist big, small;
    hist_init(&big);
    hist_init(&small);
    for (int i = 0; i < 100000; i++)
        hist_record(&big, 20000 + t_rng() % 2000000000);
    hist_record(&small, 1000000);
    struct hdr_buf enc = { 0 }, fresh = { 0 };
    size_t n_small = 0, n_fresh = 0, n = 0;
    hdr_encode(&enc, &small, &n_small);
    size_t small_cap = enc.cap;
    bool kept = true;
    hdr_encode(&enc, &big, &n);
    const uint8_t *at = enc.p;
    size_t cap = enc.cap;
    for (int round = 0; round < 10; round++) {
        hdr_encode(&enc, round % 2 ? &big : &small, &n);
        kept = kept && enc.p == at && enc.cap == cap;
    }
    const uint8_t *again = hdr_encode(&enc, &small, &n_small);
    const uint8_t *first = hdr_encode(&fresh, &small, &n_fresh);
    T_CHECK("hdr: a one-value histogram needs under 40 KiB of buffer", small_cap > 0 && small_cap < 40 * 1024,
            "%zu bytes", small_cap);
    T_CHECK("hdr: one buffer reused: no new allocation once it holds the largest", kept, "moved or grew");
    T_CHECK("hdr: a reused buffer encodes byte for byte as a fresh one", again && first && n_small == n_fresh &&
                                                                          memcmp(again, first, n_small) == 0,
            "%zu vs %zu bytes", n_small, n_fresh);
    hdr_buf_free(&enc);
    hdr_buf_free(&fresh);
    hist_free(&big);
    hist_free(&small);
}

int main(void)
{
    t_rng_seed(0x2545f4914f6cdd1dull);
    test_java_vectors();
    test_round_trips();
    test_block_type();
    test_base64();
    test_refusals();
    test_reused_buffer();
    T_DONE();
}
