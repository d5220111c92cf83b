/* test/unit/unit_h3.c — HTTP/3 framing (h3.h) and the resumable QPACK :status
 * scan under it (qpack_status_scan_*).
 *
 * The scan is fed every section at every split point, byte by byte and in
 * random pieces, and must give qpack_status's result each time: on the
 * RFC 9204 Appendix B sections, on sections the request encoder builds, and
 * on a generated corpus, malformed ones included, which is also checked
 * against qpack_decode plus the :status rules (the differential test).
 *
 * The response and unidirectional-stream readers are run the same way:
 * every stream here is fed whole, byte by byte, cut in two at every point
 * (three where the stream is short) and in random pieces, with fin on the
 * last piece and as a separate empty feed, and each way must give the same
 * result, status, body length and peer state.
 *
 * Every feed is an exact-size heap copy, so under ASan a read past what a
 * feed delivered is caught. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h3.h"
#include "hpack.h"
#include "qpack.h"
#include "quic/varint.h"
#include "t.h"
#include "test/unit/fields.h"

/* ------------------------------------------------------------ helpers */

/* A QUIC varint on exactly len bytes (len 0: the shortest). */
static void b_varint_len(struct blk *k, uint64_t v, size_t len)
{
    uint8_t tmp[8];
    uint8_t *e = quic_varint_put_len(tmp, tmp + 8, v, len ? len : quic_varint_size(v));
    if (!e) {
        printf("FAIL test: varint %llu on %zu bytes\n", (unsigned long long)v, len);
        exit(2);
    }
    b_bytes(k, tmp, (size_t)(e - tmp));
}

static void b_varint(struct blk *k, uint64_t v) { b_varint_len(k, v, 0); }

/* A frame (§7.1) with the payload given as hex. */
static void b_frame_hex(struct blk *k, uint64_t type, const char *hex)
{
    struct vec v = V(hex);
    b_varint(k, type);
    b_varint(k, v.n);
    b_bytes(k, v.p, v.n);
}

static void b_frame(struct blk *k, uint64_t type, const void *p, size_t n)
{
    b_varint(k, type);
    b_varint(k, n);
    b_bytes(k, p, n);
}

static void b_int(struct blk *k, unsigned prefix, uint8_t first, uint64_t v)
{
    uint8_t tmp[16];
    size_t n = hpack_int_encode(tmp, sizeof tmp, prefix, first, v);
    b_bytes(k, tmp, n);
}

/* An N-bit prefix string literal (RFC 9204 §4.1.2), raw or Huffman. */
static void b_str(struct blk *k, unsigned prefix, uint8_t first, const char *s, bool huff)
{
    size_t n = strlen(s);
    uint8_t h = (uint8_t)(1u << (prefix - 1));
    if (!huff) {
        b_int(k, prefix - 1, first, n);
        b_bytes(k, s, n);
        return;
    }
    size_t hn = hpack_huffman_encoded_len((const uint8_t *)s, n);
    b_int(k, prefix - 1, (uint8_t)(first | h), hn);
    b_need(k, hn);
    hpack_huffman_encode((const uint8_t *)s, n, k->b + k->n);
    k->n += hn;
}

static void b_indexed(struct blk *k, uint64_t idx) { b_int(k, 6, 0xc0, idx); }

static void b_nameref(struct blk *k, uint64_t idx, const char *value, bool huff)
{
    b_int(k, 4, 0x50, idx);
    b_str(k, 8, 0x00, value, huff);
}

static void b_litname(struct blk *k, const char *name, bool nhuff, const char *value, bool vhuff)
{
    b_str(k, 4, 0x20, name, nhuff);
    b_str(k, 8, 0x00, value, vhuff);
}

/* ------------------------------------------------- the resumable scan */

/* The scan over b cut at the given points (ascending, within 0..n). */
static int scan_cut(const uint8_t *b, size_t n, const size_t *cuts, size_t ncuts, uint16_t *st)
{
    struct qpack_status_scan s;
    qpack_status_scan_init(&s);
    size_t at = 0;
    int rc = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        uint8_t *piece = t_memdup(b + at, to - at);
        int r = qpack_status_scan_feed(&s, piece, to - at);
        free(piece);
        if (rc == 0)
            rc = r;
        else if (r != rc) /* sticky */
            return -100;
        at = to;
    }
    int re = qpack_status_scan_end(&s, st);
    if (rc != 0 && re != rc)
        return -101; /* the end must repeat the feed's error */
    return re;
}

/* qpack_status on b against the scan fed in every way: whole, byte by
 * byte, in two at every point, in three at every pair of points (short
 * sections), and in random pieces. Counts the ways in *ways. */
static bool scan_agrees(const uint8_t *b, size_t n, int *ways)
{
    uint16_t want_st = 7, st;
    uint8_t *copy = t_memdup(b, n);
    int want = qpack_status(copy, n, &want_st);
    free(copy);
    bool ok = true;
    int w = 0;
#define SCAN_WAY(cuts, nc, what)                                                                                  \
    do {                                                                                                         \
        st = 7;                                                                                                  \
        int r_ = scan_cut(b, n, cuts, nc, &st);                                                                  \
        w++;                                                                                                     \
        if (r_ != want || st != want_st) {                                                                       \
            ok = T_QUIET("scan: agrees with qpack_status", false, "%s: %d/%u, qpack_status %d/%u (n %zu)", what, \
                         r_, (unsigned)st, want, (unsigned)want_st, n);                                         \
            goto out;                                                                                            \
        }                                                                                                        \
    } while (0)
    size_t ncap = 4 * n + 8, *cuts = malloc(ncap * sizeof *cuts);
    SCAN_WAY(NULL, 0, "whole");
    for (size_t i = 0; i < n; i++)
        cuts[i] = i + 1;
    SCAN_WAY(cuts, n ? n - 1 : 0, "byte by byte");
    for (size_t i = 0; i <= n; i++) {
        cuts[0] = i;
        SCAN_WAY(cuts, 1, "two pieces");
    }
    if (n <= 48)
        for (size_t i = 0; i <= n; i++)
            for (size_t j = i; j <= n; j++) {
                cuts[0] = i;
                cuts[1] = j;
                SCAN_WAY(cuts, 2, "three pieces");
            }
    for (int r = 0; r < 4; r++) {
        size_t nc = 0, at = 0;
        while (at < n && nc < ncap) {
            at += t_rng_below(5); /* empty feeds too */
            if (at > n)
                at = n;
            cuts[nc++] = at;
        }
        SCAN_WAY(cuts, nc, "random pieces");
    }
out:
    free(cuts);
#undef SCAN_WAY
    if (ways)
        *ways += w;
    return ok;
}

static bool scan_agrees_hex(const char *hex, int *ways)
{
    struct vec v = V(hex);
    uint8_t *b = t_memdup(v.p, v.n);
    bool ok = scan_agrees(b, v.n, ways);
    free(b);
    return ok;
}

static void test_scan_vectors(void)
{
    int ways = 0;
    /* RFC 9204 Appendix B: B.1's section (a request's :path) and the
     * sections of B.2 and B.4, which need the dynamic table. */
    bool ok = scan_agrees_hex("0000 510b 2f69 6e64 6578 2e68 746d 6c", &ways) &&
              scan_agrees_hex("0381 10 11", &ways) && scan_agrees_hex("0500 80 c1 81", &ways);
    uint16_t st;
    int rc = qpack_status((const uint8_t *)"\x00\x00\x51\x0b/index.html", 15, &st);
    T_CHECK("scan: RFC 9204 B.1, B.2, B.4 sections at every split agree with qpack_status (B.1 QPACK_ERR_STATUS)",
            ok && rc == QPACK_ERR_STATUS, "rc %d", rc);

    /* What unit_qpack's :status cases exercise, now at every split. */
    static const char *const cases[] = {
        "", "00", "0000", "0000 d9", "0000 d9 d9", "0000 5f4d 0178 5f4d 0179", "0000 d9 5f4d 0178 5f4d 0179",
        "0000 5f4d 0178 d9", "0000 d9 c1", "0000 d9 22 3a78 00", "0000 d9 29 b9 00", "0000 d9 29 bf 00",
        "0000 27 00 3a537461747573 03 323030", "0000 27 00 3a737461747573 03 323030",
        "0000 2d b8848d36a3 82 6402", "0000 5f0a 03 303939", "0000 5f0a 04 32303030", "0000 5f0a 02 3230",
        "0000 5f0a 03 3261 30", "0000 5f0a 00", "0000 5f0a 03 393939", "0000 5f0a 82 6410",
        "0000 5f0a 89 ffffffffffffffffff", "0000 5f0a 88 ffffffffffffffff", "0000 d9 d9 80", "0000 d9 5f4d 05 6162",
        "0000 d9 5f4d 81 18", "0000 d9 ff24", "0000 ff00", "0000 ff", "ff", "ff80808080", "ff8080808080",
        "0100", "0080", "007f", "007f 80", "007f ffffffffffffffff7f", "007f ffffffffffffffffff7f",
        "007f 8080808080808080 01 d9", "00ff", "0000 10", "0000 0801 61", "0000 4101 61", "0000 2f", "0000 2fff",
        "0000 2f80808080", "0000 5f", "0000 5fff", "0000 5fffffffff0f", "0000 5fff 80808080 10",
        "0000 27 00 3a7374617475", "0000 20 00", "0000 21 3a 03 323030", "0000 28 00", "0000 29 b9 01 31",
    };
    ok = true;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ok &= scan_agrees_hex(cases[i], &ways);
    char name[160];
    snprintf(name, sizeof name,
             "scan: %zu hand-made sections (valid, malformed, truncated, every error) agree at every split",
             sizeof cases / sizeof cases[0]);
    T_CHECK(name, ok, "see above");

    /* Sections the request encoder builds (requests: QPACK_ERR_STATUS). */
    static const struct shb_header hs[] = { { "Content-Type", "application/json" },
                                            { "X-Long", "abcdefghijklmnopqrstuvwxyz0123456789" } };
    struct shb_request o = { .method = "POST", .authority = "example.com:8080", .target = "/api?x=1",
                             .headers = hs, .nheaders = 2, .body = (const uint8_t *)"{}", .body_len = 2,
                             .has_body = true };
    size_t len;
    uint8_t *req = qpack_encode_request(&o, &len);
    ok = scan_agrees(req, len, &ways);
    rc = qpack_status(req, len, &st);
    free(req);
    o = (struct shb_request){ .authority = "localhost" };
    req = qpack_encode_request(&o, &len);
    ok &= scan_agrees(req, len, &ways);
    free(req);
    T_CHECK("scan: the encoder's request sections agree at every split (as responses: QPACK_ERR_STATUS)",
            ok && rc == QPACK_ERR_STATUS, "rc %d", rc);

    /* Response-shaped sections built here: every :status representation. */
    ok = true;
    int good = 0;
    for (int huff = 0; huff < 4; huff++) {
        struct blk k = { 0 };
        b_hex(&k, "0000");
        switch (huff) {
        case 0: b_indexed(&k, 25); break;
        case 1: b_nameref(&k, 63, "299", true); break;
        case 2: b_litname(&k, ":status", true, "302", true); break;
        default: b_litname(&k, ":status", false, "204", false); break;
        }
        b_nameref(&k, 92, "nginx/1.25.3", true);
        b_nameref(&k, 6, "Tue, 01 Jan 2030 00:00:00 GMT", false);
        b_nameref(&k, 4, "1234567", false);
        b_litname(&k, "x-trace-id", true, "0123456789abcdef0123456789abcdef", true);
        ok &= scan_agrees(k.b, k.n, &ways);
        good += qpack_status(k.b, k.n, &st) == 0;
        b_free(&k);
    }
    T_CHECK("scan: response sections with each :status representation agree at every split", ok && good == 4,
            "good %d", good);
    printf("  scan: %d ways of feeding checked\n", ways);
}

/* The reference of unit_qpack (test/vectors/qpack_ref.h). */
#include "test/vectors/qpack_ref.h"

/* A generated section: plausible lines around :status, and now and then
 * a wrong prefix or line, random bytes, a mutation or a truncation. */
static void gen_section(struct blk *k)
{
    static const char *const names[] = { ":status", ":path", ":", ":x", ":Status", "content-type", "x", "",
                                         "server", "status", ":statu", ":statuss", "a-rather-long-field-name" };
    static const char *const values[] = { "200", "404", "100", "103", "101", "099", "20", "2000", "abc", "",
                                          "1a3", "999", "000", " 200", "a value long enough to span pieces" };
    static const uint64_t idx[] = { 24, 25, 26, 27, 28, 63, 64, 71, 0, 1, 15, 17, 22, 4, 92, 95, 98, 99, 200 };
    int r = (int)t_rng_below(100);
    if (r < 88)
        b_hex(k, "0000");
    else if (r < 94) {
        b_hex(k, "00");
        b_int(k, 7, 0x00, t_rng_below(2) ? t_rng_below(300) : t_rng() >> 2);
    } else if (r < 97) {
        b_int(k, 8, 0x00, t_rng_below(300));
        b_hex(k, "00");
    } else {
        b_hex(k, "00");
        b_int(k, 7, 0x80, t_rng_below(300));
    }
    int nlines = (int)t_rng_below(6);
    for (int i = 0; i < nlines; i++) {
        const char *v = values[t_rng_below(sizeof values / sizeof values[0])];
        int t = (int)t_rng_below(100);
        if (t < 30)
            b_indexed(k, idx[t_rng_below(sizeof idx / sizeof idx[0])]);
        else if (t < 55)
            b_nameref(k, idx[t_rng_below(sizeof idx / sizeof idx[0])], v, t_rng_below(2));
        else if (t < 85)
            b_litname(k, names[t_rng_below(sizeof names / sizeof names[0])], t_rng_below(2), v, t_rng_below(2));
        else if (t < 88)
            b_int(k, 6, 0x80, t_rng_below(100)); /* dynamic */
        else if (t < 90)
            b_int(k, 4, 0x10, t_rng_below(100)); /* post-Base */
        else if (t < 95) { /* a Huffman :status value of random octets */
            b_int(k, 4, 0x50, 25);
            size_t n = 1 + t_rng_below(9);
            b_int(k, 7, 0x80, n);
            for (size_t j = 0; j < n; j++)
                b_byte(k, (uint8_t)t_rng());
        } else
            b_byte(k, (uint8_t)t_rng());
    }
    if (k->n && t_rng_below(8) == 0) {
        size_t at = t_rng_below(k->n);
        switch (t_rng_below(3)) {
        case 0: k->b[at] ^= (uint8_t)(1u << t_rng_below(8)); break;
        case 1: k->b[at] = (uint8_t)t_rng(); break;
        default: k->n = at; break;
        }
    }
}

static void test_scan_differential(void)
{
    int ways = 0, decoded = 0, with_status = 0, structural = 0, huffman = 0;
    bool ok = true;
    static uint8_t scratch[65536];
    for (int i = 0; i < 3000 && ok; i++) {
        struct blk k = { 0 };
        gen_section(&k);
        ok &= scan_agrees(k.b, k.n, &ways);
        struct ref r = { false, false, 0 };
        uint8_t *copy = t_memdup(k.b, k.n);
        int rd = qpack_decode(copy, k.n, scratch, sizeof scratch, ref_cb, &r);
        uint16_t st;
        int rs = qpack_status(copy, k.n, &st);
        free(copy);
        if (rd == 0) {
            int want = r.bad ? QPACK_ERR_STATUS : r.st ? 0 : QPACK_ERR_NO_STATUS;
            ok &= T_QUIET("scan diff: decoded", rs == want && (want || st == r.st), "rs %d want %d", rs, want);
            decoded++;
            with_status += want == 0;
        } else if (rd != QPACK_ERR_HUFFMAN) {
            ok &= T_QUIET("scan diff: structural", rs == rd, "rs %d rd %d", rs, rd);
            structural++;
        } else {
            huffman++;
        }
        b_free(&k);
    }
    T_CHECK("scan diff: 3000 generated sections (valid and malformed): the scan at every split agrees with "
            "qpack_status, which agrees with qpack_decode + the :status rules",
            ok && decoded > 500 && with_status > 50 && structural > 300 && huffman > 10, "see above");
    printf("  scan diff: %d decoded (%d with a status), %d structural errors, %d Huffman; %d ways\n", decoded,
           with_status, structural, huffman, ways);

    /* Random bytes behind a valid prefix, many of them static lines. */
    ok = true;
    for (int i = 0; i < 3000 && ok; i++) {
        uint8_t b[40];
        size_t n = t_rng_below(sizeof b);
        for (size_t j = 0; j < n; j++)
            b[j] = (uint8_t)t_rng();
        if (n >= 2 && t_rng_below(4)) {
            b[0] = b[1] = 0;
            for (size_t j = 2; j < n; j++)
                if (t_rng_below(2))
                    b[j] = (uint8_t)(t_rng_below(2) ? 0xc0 | (b[j] & 0x3f) : b[j] & 0x0f);
        }
        ok &= scan_agrees(b, n, NULL);
    }
    T_CHECK("scan diff: 3000 random byte strings agree at every split", ok, "see above");

    /* Long strings: stepped over in any piece sizes, the state stays small. */
    struct blk k = { 0 };
    b_hex(&k, "0000 d9");
    char big[5000];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = 0;
    b_nameref(&k, 92, big, false);
    b_litname(&k, big + 1000, true, big, true);
    ok = scan_agrees(k.b, k.n, NULL);
    uint16_t st;
    T_CHECK("scan: a section with 4 KB strings agrees at every split; the scan state is under 64 bytes",
            ok && qpack_status(k.b, k.n, &st) == 0 && st == 200 && sizeof(struct qpack_status_scan) <= 64,
            "sizeof %zu", sizeof(struct qpack_status_scan));
    b_free(&k);
}

/* ----------------------------------------------------- response reader */

struct resp_result {
    int rc;
    uint16_t status;
    uint64_t body_len;
};

/* Feeds b cut at cuts; fin on the last piece, or as one more empty feed. */
static struct resp_result resp_cut(const uint8_t *b, size_t n, const size_t *cuts, size_t ncuts, bool fin,
                                   bool fin_apart)
{
    struct h3_resp r;
    h3_resp_init(&r);
    size_t at = 0;
    int rc = H3_RESP_MORE;
    for (size_t i = 0; i <= ncuts && rc == H3_RESP_MORE; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        bool last = i == ncuts;
        uint8_t *piece = t_memdup(b + at, to - at);
        rc = h3_resp_feed(&r, piece, to - at, last && fin && !fin_apart);
        free(piece);
        at = to;
    }
    if (rc == H3_RESP_MORE && fin && fin_apart)
        rc = h3_resp_feed(&r, NULL, 0, true);
    if (rc != H3_RESP_MORE && h3_resp_feed(&r, (const uint8_t *)"\x00", 1, true) != rc)
        rc = -1000; /* the result is sticky */
    return (struct resp_result){ rc, r.status, r.body_len };
}

static bool same_resp(struct resp_result a, struct resp_result b)
{
    return a.rc == b.rc && a.status == b.status && a.body_len == b.body_len;
}

/* The stream fed every way; *out the whole feed's result. false (and a
 * FAIL line) when two ways disagree. */
static bool resp_all(const uint8_t *b, size_t n, bool fin, struct resp_result *out)
{
    struct resp_result want = resp_cut(b, n, NULL, 0, fin, false), got;
    *out = want;
    size_t ncap = 4 * n + 8, *cuts = malloc(ncap * sizeof *cuts);
    bool ok = true;
#define RESP_WAY(c, nc, apart, what)                                                                        \
    do {                                                                                                   \
        got = resp_cut(b, n, c, nc, fin, apart);                                                           \
        if (!same_resp(got, want)) {                                                                       \
            ok = T_QUIET("resp: split-invariant", false, "%s: rc %d st %u body %llu, whole: rc %d st %u body %llu", \
                         what, got.rc, (unsigned)got.status, (unsigned long long)got.body_len, want.rc,    \
                         (unsigned)want.status, (unsigned long long)want.body_len);                        \
            goto out;                                                                                      \
        }                                                                                                  \
    } while (0)
    RESP_WAY(NULL, 0, true, "fin apart");
    if (n <= 1 << 16) {
        for (size_t i = 0; i < n; i++)
            cuts[i] = i + 1;
        RESP_WAY(cuts, n ? n - 1 : 0, false, "byte by byte");
        RESP_WAY(cuts, n ? n - 1 : 0, true, "byte by byte, fin apart");
    }
    if (n <= 4096)
        for (size_t i = 0; i <= n; i++) {
            cuts[0] = i;
            RESP_WAY(cuts, 1, false, "two pieces");
        }
    if (n <= 40)
        for (size_t i = 0; i <= n; i++)
            for (size_t j = i; j <= n; j++) {
                cuts[0] = i;
                cuts[1] = j;
                RESP_WAY(cuts, 2, false, "three pieces");
            }
    for (int r = 0; r < 6; r++) {
        size_t nc = 0, at = 0, step = r < 3 ? 8 : 3000;
        while (at < n && nc < ncap) {
            at += t_rng_below(step);
            if (at > n)
                at = n;
            cuts[nc++] = at;
        }
        RESP_WAY(cuts, nc, r & 1, "random pieces");
    }
out:
#undef RESP_WAY
    free(cuts);
    return ok;
}

/* One check: the stream (built in k) gives rc, status and body length
 * every way it is fed. */
static void resp_check(const char *name, struct blk *k, bool fin, int rc, uint16_t status, uint64_t body)
{
    struct resp_result got;
    bool ok = resp_all(k->b, k->n, fin, &got);
    T_CHECK(name, ok && got.rc == rc && got.status == status && got.body_len == body,
            "rc %d status %u body %llu (want %d %u %llu)", got.rc, (unsigned)got.status,
            (unsigned long long)got.body_len, rc, (unsigned)status, (unsigned long long)body);
    b_free(k);
}

#define ST200 "0000 d9"      /* :status 200 (static 25) */
#define ST404 "0000 db"      /* :status 404 (static 27) */
#define ST103 "0000 d8"      /* :status 103 (static 24) */
#define ST100 "0000 ff00"    /* :status 100 (static 63) */
#define ST101 "0000 5f09 03 313031" /* :status 101: name of static 24, value "101" */
#define TRAILER "0000 5f4d 0178" /* server: x (a regular field only) */

static void test_resp(void)
{
    struct blk k = { 0 };
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200 " 5f4d 05 6e67696e78");
    b_frame(&k, H3_FRAME_DATA, "hello", 5);
    resp_check("resp: HEADERS 200 + DATA 5 + fin: DONE, 200, body 5", &k, true, H3_RESP_DONE, 200, 5);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    resp_check("resp: HEADERS 200 without fin: MORE, status 200 already set", &k, false, H3_RESP_MORE, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST404);
    resp_check("resp: HEADERS 404, no body, fin: DONE, 404", &k, true, H3_RESP_DONE, 404, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST103 " 5f1d 00");
    b_frame_hex(&k, H3_FRAME_HEADERS, ST100);
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame(&k, H3_FRAME_DATA, "abc", 3);
    resp_check("resp: 103 and 100 interim responses, then 200: DONE, 200 (§4.1)", &k, true, H3_RESP_DONE, 200, 3);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST103);
    resp_check("resp: only an interim 103, then fin: H3_REQUEST_INCOMPLETE, status 0", &k, true,
               -H3_REQUEST_INCOMPLETE, 0, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST103);
    b_frame(&k, H3_FRAME_DATA, "x", 1);
    resp_check("resp: DATA after an interim response: H3_FRAME_UNEXPECTED", &k, true, -H3_FRAME_UNEXPECTED, 0, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST101);
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    resp_check("resp: 101 Switching Protocols: H3_MESSAGE_ERROR (§4.5)", &k, true, -H3_MESSAGE_ERROR, 0, 0);

    b_frame(&k, H3_FRAME_DATA, "hello", 5);
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    resp_check("resp: DATA before HEADERS: H3_FRAME_UNEXPECTED (§4.1)", &k, true, -H3_FRAME_UNEXPECTED, 0, 0);

    b_frame(&k, H3_FRAME_DATA, "", 0);
    resp_check("resp: an empty DATA before HEADERS: H3_FRAME_UNEXPECTED", &k, false, -H3_FRAME_UNEXPECTED, 0, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame(&k, H3_FRAME_DATA, "hello", 5);
    b_frame_hex(&k, H3_FRAME_HEADERS, TRAILER);
    resp_check("resp: trailers with regular fields only: DONE", &k, true, H3_RESP_DONE, 200, 5);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, TRAILER);
    resp_check("resp: trailers straight after the final HEADERS (no DATA): DONE", &k, true, H3_RESP_DONE, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame(&k, H3_FRAME_DATA, "hello", 5);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 5f4d 0178 d9");
    resp_check("resp: trailers with a :status: H3_MESSAGE_ERROR (§4.3)", &k, true, -H3_MESSAGE_ERROR, 200, 5);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 d9");
    resp_check("resp: a second response after the final one (trailers :status 200): H3_MESSAGE_ERROR", &k, true,
               -H3_MESSAGE_ERROR, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 c1");
    resp_check("resp: trailers with :path: H3_MESSAGE_ERROR", &k, true, -H3_MESSAGE_ERROR, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000");
    resp_check("resp: an empty trailer section (prefix only): DONE", &k, true, H3_RESP_DONE, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, TRAILER);
    b_frame(&k, H3_FRAME_DATA, "x", 1);
    resp_check("resp: DATA after the trailers: H3_FRAME_UNEXPECTED (§4.1)", &k, true, -H3_FRAME_UNEXPECTED, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, TRAILER);
    b_frame_hex(&k, H3_FRAME_HEADERS, TRAILER);
    resp_check("resp: HEADERS after the trailers: H3_FRAME_UNEXPECTED", &k, true, -H3_FRAME_UNEXPECTED, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_HEADERS, TRAILER);
    b_frame_hex(&k, 0x21, "0102");
    b_frame_hex(&k, 0x3fffffffffffffffull, "");
    resp_check("resp: unknown frames after the trailers: skipped, DONE", &k, true, H3_RESP_DONE, 200, 0);

    b_frame_hex(&k, 0x21, "");                             /* GREASE N=0 */
    b_frame_hex(&k, 0x1f * 1000 + 0x21, "00112233445566778899");
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, 0x0a, "ff");                           /* unassigned */
    b_frame(&k, H3_FRAME_DATA, "ab", 2);
    b_frame_hex(&k, 0x1f * 0x12345678ull + 0x21, "aa");     /* an 8-byte type */
    b_frame(&k, H3_FRAME_DATA, "cde", 3);
    b_frame_hex(&k, 0x40, "");
    resp_check("resp: unknown and GREASE frames before, between and after: skipped by length (§9)", &k, true,
               H3_RESP_DONE, 200, 5);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame_hex(&k, H3_FRAME_PUSH_PROMISE, "00 0000 d1");
    resp_check("resp: PUSH_PROMISE: H3_ID_ERROR (no MAX_PUSH_ID sent, §7.2.5)", &k, true, -H3_ID_ERROR, 200, 0);

    b_frame_hex(&k, H3_FRAME_PUSH_PROMISE, "00 0000 d1");
    resp_check("resp: PUSH_PROMISE before the response: H3_ID_ERROR", &k, false, -H3_ID_ERROR, 0, 0);

    static const uint64_t unexpected[] = { 0x02, 0x06, 0x08, 0x09, H3_FRAME_CANCEL_PUSH, H3_FRAME_SETTINGS,
                                           H3_FRAME_GOAWAY, H3_FRAME_MAX_PUSH_ID };
    bool ok = true;
    for (size_t i = 0; i < sizeof unexpected / sizeof unexpected[0]; i++) {
        for (int where = 0; where < 2; where++) {
            struct resp_result got;
            if (where)
                b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
            b_frame_hex(&k, unexpected[i], "00");
            ok &= resp_all(k.b, k.n, true, &got) &&
                  T_QUIET("resp: unexpected", got.rc == -H3_FRAME_UNEXPECTED, "type 0x%llx: rc %d",
                          (unsigned long long)unexpected[i], got.rc);
            b_free(&k);
        }
    }
    T_CHECK("resp: HTTP/2's reserved types 0x02 0x06 0x08 0x09 and CANCEL_PUSH, SETTINGS, GOAWAY, MAX_PUSH_ID "
            "on a request stream, before or after the response: H3_FRAME_UNEXPECTED (§7.2.8, §7.2)",
            ok, "see above");

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_frame(&k, H3_FRAME_DATA, "hello", 5);
    k.n -= 2;
    resp_check("resp: fin inside a DATA payload: H3_FRAME_ERROR (§7.1)", &k, true, -H3_FRAME_ERROR, 200, 3);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200 " 5f4d 05 6e67696e78");
    k.n -= 3;
    resp_check("resp: fin inside a HEADERS payload: H3_FRAME_ERROR", &k, true, -H3_FRAME_ERROR, 0, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_hex(&k, "00");
    resp_check("resp: fin after a frame type: H3_FRAME_ERROR", &k, true, -H3_FRAME_ERROR, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_hex(&k, "40");
    resp_check("resp: fin inside a two-byte frame type: H3_FRAME_ERROR", &k, true, -H3_FRAME_ERROR, 200, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_hex(&k, "00 c0000000");
    resp_check("resp: fin inside an eight-byte length: H3_FRAME_ERROR", &k, true, -H3_FRAME_ERROR, 200, 0);

    resp_check("resp: an empty stream with fin: H3_REQUEST_INCOMPLETE (§4.1)", &k, true, -H3_REQUEST_INCOMPLETE, 0,
               0);
    b_frame_hex(&k, 0x21, "abcd");
    resp_check("resp: only unknown frames, then fin: H3_REQUEST_INCOMPLETE", &k, true, -H3_REQUEST_INCOMPLETE, 0, 0);

    b_frame_hex(&k, H3_FRAME_HEADERS, "");
    resp_check("resp: an empty HEADERS payload: QPACK_DECOMPRESSION_FAILED (no prefix)", &k, true,
               -QPACK_DECOMPRESSION_FAILED, 0, 0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0100 d9");
    resp_check("resp: a section with Required Insert Count 1: QPACK_DECOMPRESSION_FAILED", &k, false,
               -QPACK_DECOMPRESSION_FAILED, 0, 0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 d9 5f4d 05 6162");
    resp_check("resp: a section cut inside a line: QPACK_DECOMPRESSION_FAILED", &k, true,
               -QPACK_DECOMPRESSION_FAILED, 0, 0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 5f0a 82 6410");
    resp_check("resp: bad Huffman in :status: QPACK_DECOMPRESSION_FAILED", &k, true, -QPACK_DECOMPRESSION_FAILED, 0,
               0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 5f4d 0178");
    resp_check("resp: a response without :status: H3_MESSAGE_ERROR (§4.3.2)", &k, true, -H3_MESSAGE_ERROR, 0, 0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 5f0a 02 3230");
    resp_check("resp: :status 20: H3_MESSAGE_ERROR (§4.1.2)", &k, true, -H3_MESSAGE_ERROR, 0, 0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 d9 d9");
    resp_check("resp: :status twice: H3_MESSAGE_ERROR", &k, true, -H3_MESSAGE_ERROR, 0, 0);
    b_frame_hex(&k, H3_FRAME_HEADERS, "0000 5f4d 0178 d9");
    resp_check("resp: :status after a regular field: H3_MESSAGE_ERROR", &k, true, -H3_MESSAGE_ERROR, 0, 0);

    /* Field values (RFC 9114 §4.2, §10.3; RFC 9113 §8.2.1's rule): a bad
     * one is malformed, a stream error H3_MESSAGE_ERROR (§4.1.2); bad
     * Huffman in any value, needed or not, is QPACK_DECOMPRESSION_FAILED
     * (RFC 9204 §4.1.2, §2.2.3). Static 92 is a regular name. */
    static const struct {
        const char *what, *sec;
        int rc;
        uint16_t status;
    } vals[] = {
        { "a value with NUL: H3_MESSAGE_ERROR", ST200 " 5f4d 03 610062", -H3_MESSAGE_ERROR, 0 },
        { "a value with CR: H3_MESSAGE_ERROR", ST200 " 5f4d 03 610d62", -H3_MESSAGE_ERROR, 0 },
        { "a value with LF: H3_MESSAGE_ERROR", ST200 " 5f4d 03 610a62", -H3_MESSAGE_ERROR, 0 },
        { "a value with a leading SP: H3_MESSAGE_ERROR", ST200 " 5f4d 02 2061", -H3_MESSAGE_ERROR, 0 },
        { "a value with a trailing HTAB: H3_MESSAGE_ERROR", ST200 " 5f4d 02 6109", -H3_MESSAGE_ERROR, 0 },
        { "a literal-name line's value with a CR: H3_MESSAGE_ERROR", ST200 " 23 782d66 02 0d61", -H3_MESSAGE_ERROR,
          0 },
        { "a Huffman value \"a\\rb\": H3_MESSAGE_ERROR", ST200 " 5f4d 86 1fffffffb1ff", -H3_MESSAGE_ERROR, 0 },
        { "a Huffman value \"ab\\t\": H3_MESSAGE_ERROR", ST200 " 5f4d 85 1c7ffffd5f", -H3_MESSAGE_ERROR, 0 },
        { "a Huffman value \" a\": H3_MESSAGE_ERROR", ST200 " 5f4d 82 507f", -H3_MESSAGE_ERROR, 0 },
        { "inner spaces, a tab and obs-text 0x80-0xff: fine", ST200 " 5f4d 07 61202c0980ff62", H3_RESP_DONE, 200 },
        { "bad Huffman padding in a value shb skips: QPACK_DECOMPRESSION_FAILED", ST200 " 5f4d 81 18",
          -QPACK_DECOMPRESSION_FAILED, 0 },
        { "EOS inside a value shb skips: QPACK_DECOMPRESSION_FAILED", ST200 " 5f4d 84 ffffffff",
          -QPACK_DECOMPRESSION_FAILED, 0 },
        { "a valid Huffman value (\"a\"): fine", ST200 " 5f4d 81 1f", H3_RESP_DONE, 200 },
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char name[200];
        snprintf(name, sizeof name, "resp: %s", vals[i].what);
        b_frame_hex(&k, H3_FRAME_HEADERS, vals[i].sec);
        resp_check(name, &k, true, vals[i].rc, vals[i].status, 0);
        snprintf(name, sizeof name, "scan: %s: every split agrees with qpack_status", vals[i].what);
        T_CHECK(name, scan_agrees_hex(vals[i].sec, NULL), "see above");
    }

    /* Non-minimal varints: the type and the lengths on 2, 4 and 8 bytes. */
    for (size_t len = 2; len <= 8; len *= 2) {
        struct vec h = V(ST200);
        b_varint_len(&k, H3_FRAME_HEADERS, len);
        b_varint_len(&k, h.n, len);
        b_bytes(&k, h.p, h.n);
        b_varint_len(&k, H3_FRAME_DATA, len);
        b_varint_len(&k, 4, 8);
        b_bytes(&k, "body", 4);
        char name[120];
        snprintf(name, sizeof name, "resp: frame types and lengths on %zu bytes (non-minimal): accepted (§7.1)", len);
        resp_check(name, &k, true, H3_RESP_DONE, 200, 4);
    }

    /* A large HEADERS frame: many fields, fed in every way. */
    b_hex(&k, ST200);
    for (int i = 0; i < 60; i++) {
        char name[32], value[64];
        snprintf(name, sizeof name, "x-field-%d", i);
        snprintf(value, sizeof value, "value number %d, with some padding to make it long", i * 7919);
        b_litname(&k, name, i & 1, value, i & 2);
    }
    struct blk f = { 0 };
    b_frame(&f, H3_FRAME_HEADERS, k.b, k.n);
    b_frame(&f, H3_FRAME_DATA, "ok", 2);
    size_t hlen = k.n;
    b_free(&k);
    char name[160];
    snprintf(name, sizeof name, "resp: a %zu-byte HEADERS frame of 61 fields, split at every point: DONE, 200", hlen);
    resp_check(name, &f, true, H3_RESP_DONE, 200, 2);

    /* The 64 KiB limit, decided at the frame header. */
    b_varint(&k, H3_FRAME_HEADERS);
    b_varint(&k, 65537);
    resp_check("resp: a HEADERS frame of 65537 bytes: H3_EXCESSIVE_LOAD at its header", &k, false,
               -H3_EXCESSIVE_LOAD, 0, 0);
    /* :status 200 and one server field whose value makes it 65536. */
    char *v = malloc(65536);
    for (size_t vlen = 65536 - 5;; vlen--) {
        memset(v, 's', vlen);
        v[vlen] = 0;
        b_hex(&k, ST200);
        b_nameref(&k, 92, v, false);
        if (k.n == 65536)
            break;
        k.n = 0;
    }
    free(v);
    b_frame(&f, H3_FRAME_HEADERS, k.b, k.n);
    b_free(&k);
    struct resp_result got = resp_cut(f.b, f.n, NULL, 0, true, false);
    struct resp_result got2 = resp_cut(f.b, f.n, (size_t[]){ 3, 100, 40000, 65535 }, 4, true, false);
    T_CHECK("resp: a HEADERS frame of exactly 65536 bytes is read: DONE, 200", got.rc == H3_RESP_DONE &&
            got.status == 200 && same_resp(got, got2), "rc %d st %u", got.rc, (unsigned)got.status);
    b_free(&f);

    /* Megabytes of DATA, counted. */
    size_t mb = 3u << 20;
    uint8_t *body = malloc(mb);
    memset(body, 'z', mb);
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    for (int i = 0; i < 3; i++)
        b_frame(&k, H3_FRAME_DATA, body, mb);
    b_frame_hex(&k, 0x21, "");
    free(body);
    struct resp_result whole = resp_cut(k.b, k.n, NULL, 0, true, false);
    ok = whole.rc == H3_RESP_DONE && whole.status == 200 && whole.body_len == 3 * (uint64_t)mb;
    size_t *cuts = malloc((k.n / 200 + 2) * sizeof *cuts), nc = 0;
    for (size_t at = 1 + t_rng_below(1200); at < k.n; at += 200 + t_rng_below(1200))
        cuts[nc++] = at;
    got = resp_cut(k.b, k.n, cuts, nc, true, true);
    free(cuts);
    T_CHECK("resp: 9 MiB of DATA in 3 frames, whole and in ~1.3 KB packets: body_len 9437184", ok &&
            same_resp(got, whole), "rc %d body %llu / %d %llu", whole.rc, (unsigned long long)whole.body_len, got.rc,
            (unsigned long long)got.body_len);
    b_free(&k);

    /* A DATA frame announced at 2^62-1 bytes: MORE while it lasts, and a
     * fin inside it is H3_FRAME_ERROR. */
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_varint(&k, H3_FRAME_DATA);
    b_varint(&k, QUIC_VARINT_MAX);
    b_hex(&k, "00112233");
    resp_check("resp: a DATA frame of 2^62-1 bytes, 4 of them seen: MORE, body 4", &k, false, H3_RESP_MORE, 200, 4);
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    b_varint(&k, H3_FRAME_DATA);
    b_varint(&k, QUIC_VARINT_MAX);
    b_hex(&k, "00112233");
    resp_check("resp: ... and fin there: H3_FRAME_ERROR", &k, true, -H3_FRAME_ERROR, 200, 4);
}

/* ------------------------------------------- unidirectional streams */

struct uni_result {
    int rc;
    bool settings_seen;
    uint64_t goaway_id, max_field_section_size, capacity0;
};

/* One stream b (cut at cuts) on a peer that has already seen the streams
 * in before[] (each fed whole, their results ignored). */
static struct uni_result uni_cut(const struct blk *before, size_t nbefore, const uint8_t *b, size_t n,
                                 const size_t *cuts, size_t ncuts, bool fin, bool fin_apart)
{
    struct h3_peer peer;
    h3_peer_init(&peer);
    for (size_t i = 0; i < nbefore; i++) {
        struct h3_uni u;
        h3_uni_init(&u);
        h3_uni_feed(&peer, &u, before[i].b, before[i].n, false);
    }
    struct h3_uni u;
    h3_uni_init(&u);
    size_t at = 0;
    int rc = 0;
    for (size_t i = 0; i <= ncuts && rc == 0; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        uint8_t *piece = t_memdup(b + at, to - at);
        rc = h3_uni_feed(&peer, &u, piece, to - at, i == ncuts && fin && !fin_apart);
        free(piece);
        at = to;
    }
    if (rc == 0 && fin && fin_apart)
        rc = h3_uni_feed(&peer, &u, NULL, 0, true);
    if (rc != 0 && h3_uni_feed(&peer, &u, (const uint8_t *)"\x21", 1, false) != rc)
        rc = -1000; /* sticky */
    return (struct uni_result){ rc, peer.settings_seen, peer.goaway_id, peer.max_field_section_size,
                                peer.encoder.capacity0 };
}

static bool same_uni(struct uni_result a, struct uni_result b)
{
    return a.rc == b.rc && a.settings_seen == b.settings_seen && a.goaway_id == b.goaway_id &&
           a.max_field_section_size == b.max_field_section_size && a.capacity0 == b.capacity0;
}

static bool uni_all(const struct blk *before, size_t nbefore, const uint8_t *b, size_t n, bool fin,
                    struct uni_result *out)
{
    struct uni_result want = uni_cut(before, nbefore, b, n, NULL, 0, fin, false), got;
    *out = want;
    size_t ncap = 4 * n + 8, *cuts = malloc(ncap * sizeof *cuts);
    bool ok = true;
#define UNI_WAY(c, nc, apart, what)                                                                     \
    do {                                                                                               \
        got = uni_cut(before, nbefore, b, n, c, nc, fin, apart);                                       \
        if (!same_uni(got, want)) {                                                                    \
            ok = T_QUIET("uni: split-invariant", false, "%s: rc %d goaway %llu, whole: rc %d goaway %llu", what, \
                         got.rc, (unsigned long long)got.goaway_id, want.rc,                           \
                         (unsigned long long)want.goaway_id);                                          \
            goto out;                                                                                  \
        }                                                                                              \
    } while (0)
    UNI_WAY(NULL, 0, true, "fin apart");
    for (size_t i = 0; i < n; i++)
        cuts[i] = i + 1;
    UNI_WAY(cuts, n ? n - 1 : 0, false, "byte by byte");
    UNI_WAY(cuts, n ? n - 1 : 0, true, "byte by byte, fin apart");
    for (size_t i = 0; i <= n; i++) {
        cuts[0] = i;
        UNI_WAY(cuts, 1, false, "two pieces");
    }
    if (n <= 40)
        for (size_t i = 0; i <= n; i++)
            for (size_t j = i; j <= n; j++) {
                cuts[0] = i;
                cuts[1] = j;
                UNI_WAY(cuts, 2, false, "three pieces");
            }
out:
#undef UNI_WAY
    free(cuts);
    return ok;
}

static struct uni_result uni_check(const char *name, const struct blk *before, size_t nbefore, struct blk *k,
                                   bool fin, int rc)
{
    struct uni_result got;
    bool ok = uni_all(before, nbefore, k->b, k->n, fin, &got);
    T_CHECK(name, ok && got.rc == rc, "rc %d, want %d", got.rc, rc);
    b_free(k);
    return got;
}

/* Our SETTINGS frame's shape, for building control streams. */
#define SETTINGS_OK "0100 0700 06 8000 4000" /* caps 0, MAX_FIELD_SECTION_SIZE 16384 */

static void test_uni(void)
{
    struct blk k = { 0 };
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, SETTINGS_OK " 4040 00");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "08");
    b_frame_hex(&k, 0x21, "0000");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "04");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "04");
    struct uni_result r = uni_check("uni: control: SETTINGS, GOAWAY 8, GREASE, GOAWAY 4, GOAWAY 4: 0", NULL, 0, &k,
                                    false, 0);
    T_CHECK("uni: ... settings_seen, max_field_section_size 16384, goaway_id 4",
            r.settings_seen && r.max_field_section_size == 16384 && r.goaway_id == 4, "seen %d mfss %llu goaway %llu",
            r.settings_seen, (unsigned long long)r.max_field_section_size, (unsigned long long)r.goaway_id);

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "04");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "08");
    uni_check("uni: GOAWAY 4 then GOAWAY 8 (increasing): H3_ID_ERROR (§5.2)", NULL, 0, &k, false, -H3_ID_ERROR);

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "05");
    uni_check("uni: GOAWAY 5 (not client bidirectional): H3_ID_ERROR (§7.2.6)", NULL, 0, &k, false, -H3_ID_ERROR);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "02");
    uni_check("uni: GOAWAY 2: H3_ID_ERROR", NULL, 0, &k, false, -H3_ID_ERROR);

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "c000000000000008");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "fffffffffffffffc"); /* 2^62-4: larger */
    r = uni_check("uni: GOAWAY 8 on 8 bytes then 2^62-4: H3_ID_ERROR", NULL, 0, &k, false, -H3_ID_ERROR);
    T_CHECK("uni: ... goaway_id stays 8", r.goaway_id == 8, "goaway %llu", (unsigned long long)r.goaway_id);

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "fffffffffffffffc");
    r = uni_check("uni: GOAWAY 2^62-4 (graceful shutdown's first): 0", NULL, 0, &k, false, 0);
    T_CHECK("uni: ... goaway_id 2^62-4", r.goaway_id == (UINT64_C(1) << 62) - 4, "goaway %llu",
            (unsigned long long)r.goaway_id);

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "");
    uni_check("uni: an empty GOAWAY: H3_FRAME_ERROR (§7.1)", NULL, 0, &k, false, -H3_FRAME_ERROR);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "0400");
    uni_check("uni: GOAWAY with a byte after its id: H3_FRAME_ERROR", NULL, 0, &k, false, -H3_FRAME_ERROR);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "40");
    b_hex(&k, "04");
    uni_check("uni: GOAWAY whose length cuts its id: H3_FRAME_ERROR", NULL, 0, &k, false, -H3_FRAME_ERROR);

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_GOAWAY, "04");
    uni_check("uni: control stream without SETTINGS first: H3_MISSING_SETTINGS (§6.2.1)", NULL, 0, &k, false,
              -H3_MISSING_SETTINGS);
    b_hex(&k, "00");
    b_frame_hex(&k, 0x21, "");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    uni_check("uni: a GREASE frame before SETTINGS: H3_MISSING_SETTINGS (§9)", NULL, 0, &k, false,
              -H3_MISSING_SETTINGS);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, SETTINGS_OK);
    b_frame_hex(&k, H3_FRAME_SETTINGS, "");
    uni_check("uni: a second SETTINGS frame: H3_FRAME_UNEXPECTED (§7.2.4)", NULL, 0, &k, false,
              -H3_FRAME_UNEXPECTED);

    bool ok = true;
    for (unsigned id = 0; id <= 7; id++) {
        char hex[32];
        snprintf(hex, sizeof hex, "%02x 01", id);
        b_hex(&k, "00");
        b_frame_hex(&k, H3_FRAME_SETTINGS, hex);
        struct uni_result g;
        ok &= uni_all(NULL, 0, k.b, k.n, false, &g) &&
              T_QUIET("uni: setting", g.rc == (id >= 2 && id <= 5 ? -H3_SETTINGS_ERROR : 0), "id %u: rc %d", id,
                      g.rc);
        b_free(&k);
    }
    T_CHECK("uni: setting identifiers 0x02..0x05 (HTTP/2's) are H3_SETTINGS_ERROR; 0x00, 0x01, 0x06, 0x07 are not "
            "(§7.2.4.1)", ok, "see above");

    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "06 10 01 00 06 20");
    uni_check("uni: MAX_FIELD_SECTION_SIZE twice: H3_SETTINGS_ERROR (§7.2.4)", NULL, 0, &k, false,
              -H3_SETTINGS_ERROR);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "0100 0700 4000 00 0100");
    uni_check("uni: QPACK_MAX_TABLE_CAPACITY twice (one non-minimal between): H3_SETTINGS_ERROR", NULL, 0, &k, false,
              -H3_SETTINGS_ERROR);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "4040 01 4040 02 0800 3300");
    uni_check("uni: a GREASE identifier twice, and ENABLE_CONNECT_PROTOCOL, H3_DATAGRAM: ignored, 0", NULL, 0, &k,
              false, 0);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "06 c000000000000400 01 80001000 c0000000deadbeef 7fff");
    r = uni_check("uni: settings on 8-byte varints: 0, max_field_section_size 1024", NULL, 0, &k, false, 0);
    T_CHECK("uni: ... read back", r.max_field_section_size == 1024 && r.settings_seen, "mfss %llu",
            (unsigned long long)r.max_field_section_size);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "06 80");
    b_hex(&k, "00");
    uni_check("uni: SETTINGS whose length cuts a value: H3_FRAME_ERROR (§7.1)", NULL, 0, &k, false,
              -H3_FRAME_ERROR);
    b_hex(&k, "00");
    b_frame_hex(&k, H3_FRAME_SETTINGS, "06");
    uni_check("uni: SETTINGS with an identifier and no value: H3_FRAME_ERROR", NULL, 0, &k, false, -H3_FRAME_ERROR);

    static const struct {
        uint64_t type;
        int rc;
    } frames[] = {
        { H3_FRAME_DATA, -H3_FRAME_UNEXPECTED },   { H3_FRAME_HEADERS, -H3_FRAME_UNEXPECTED },
        { H3_FRAME_PUSH_PROMISE, -H3_FRAME_UNEXPECTED }, { H3_FRAME_MAX_PUSH_ID, -H3_FRAME_UNEXPECTED },
        { H3_FRAME_CANCEL_PUSH, -H3_ID_ERROR },    { 0x02, -H3_FRAME_UNEXPECTED }, { 0x06, -H3_FRAME_UNEXPECTED },
        { 0x08, -H3_FRAME_UNEXPECTED },            { 0x09, -H3_FRAME_UNEXPECTED }, { 0x0a, 0 }, { 0x21, 0 },
        { 0x1f * 77 + 0x21, 0 },
    };
    ok = true;
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        b_hex(&k, "00");
        b_frame_hex(&k, H3_FRAME_SETTINGS, "");
        b_frame_hex(&k, frames[i].type, "00");
        struct uni_result g;
        ok &= uni_all(NULL, 0, k.b, k.n, false, &g) &&
              T_QUIET("uni: control frame", g.rc == frames[i].rc, "type 0x%llx: rc %d want %d",
                      (unsigned long long)frames[i].type, g.rc, frames[i].rc);
        b_free(&k);
    }
    T_CHECK("uni: on the control stream DATA, HEADERS, PUSH_PROMISE, MAX_PUSH_ID and HTTP/2's types are "
            "H3_FRAME_UNEXPECTED, CANCEL_PUSH H3_ID_ERROR, unknown types skipped (§7.2)", ok, "see above");

    /* Critical streams: one of each; none may end. */
    static const struct {
        const char *type, *what;
    } crit[] = { { "00", "control" }, { "02", "QPACK encoder" }, { "03", "QPACK decoder" } };
    for (int i = 0; i < 3; i++) {
        struct blk first = { 0 };
        b_hex(&first, crit[i].type);
        if (i == 0)
            b_frame_hex(&first, H3_FRAME_SETTINGS, "");
        b_hex(&k, crit[i].type);
        char name[160];
        snprintf(name, sizeof name, "uni: a second %s stream: H3_STREAM_CREATION_ERROR", crit[i].what);
        uni_check(name, &first, 1, &k, false, -H3_STREAM_CREATION_ERROR);
        b_bytes(&k, first.b, first.n);
        snprintf(name, sizeof name, "uni: fin on the %s stream: H3_CLOSED_CRITICAL_STREAM", crit[i].what);
        uni_check(name, NULL, 0, &k, true, -H3_CLOSED_CRITICAL_STREAM);
        b_free(&first);
    }
    b_hex(&k, "00 04 02 06"); /* SETTINGS of 2 bytes, 1 of them here */
    uni_check("uni: fin on the control stream inside a frame: H3_CLOSED_CRITICAL_STREAM", NULL, 0, &k, true,
              -H3_CLOSED_CRITICAL_STREAM);
    b_hex(&k, "00");
    uni_check("uni: fin right after the control stream's type: H3_CLOSED_CRITICAL_STREAM", NULL, 0, &k, true,
              -H3_CLOSED_CRITICAL_STREAM);
    {
        struct blk before[2] = { { 0 }, { 0 } };
        b_hex(&before[0], "02");
        b_hex(&before[1], "03");
        b_hex(&k, "00");
        b_frame_hex(&k, H3_FRAME_SETTINGS, "");
        uni_check("uni: control after the encoder and decoder streams: 0 (one of each kind)", before, 2, &k, false, 0);
        b_free(&before[0]);
        b_free(&before[1]);
    }

    b_hex(&k, "01 00");
    b_frame_hex(&k, H3_FRAME_HEADERS, ST200);
    uni_check("uni: a push stream: H3_ID_ERROR (no MAX_PUSH_ID sent, §4.6)", NULL, 0, &k, false, -H3_ID_ERROR);

    static const char *const unknown[] = { "21", "54", "4040", "c000000000000021", "04", "7fff" };
    ok = true;
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        b_hex(&k, unknown[i]);
        b_hex(&k, "00 04 00 ffff 00");
        struct uni_result g;
        ok &= uni_all(NULL, 0, k.b, k.n, true, &g) &&
              T_QUIET("uni: unknown type", g.rc == H3_UNI_IGNORE, "%s: rc %d", unknown[i], g.rc);
        b_free(&k);
    }
    T_CHECK("uni: unknown and reserved stream types (0x21, 0x54, 0x40, on 8 bytes, 0x04, 0x3fff): H3_UNI_IGNORE, "
            "and so every later feed (§6.2)", ok, "see above");

    b_hex(&k, "40");
    uni_check("uni: a stream that ends inside its type: 0 (tolerated, §6.2)", NULL, 0, &k, true, 0);
    uni_check("uni: a stream that ends before any byte: 0", NULL, 0, &k, true, 0);

    b_hex(&k, "02 20 20");
    r = uni_check("uni: encoder stream with Set Dynamic Table Capacity 0 twice: 0", NULL, 0, &k, false, 0);
    T_CHECK("uni: ... capacity0 2", r.capacity0 == 2, "capacity0 %llu", (unsigned long long)r.capacity0);
    b_hex(&k, "02 20 c00f 7777772e6578616d706c652e636f6d");
    r = uni_check("uni: encoder stream with an insert (RFC 9204 B.2): QPACK_ENCODER_STREAM_ERROR", NULL, 0, &k,
                  false, -QPACK_ENCODER_STREAM_ERROR);
    b_hex(&k, "02 3fbd01");
    uni_check("uni: encoder stream with capacity 220: QPACK_ENCODER_STREAM_ERROR", NULL, 0, &k, false,
              -QPACK_ENCODER_STREAM_ERROR);
    b_hex(&k, "03 00 80 c1 4a ff");
    uni_check("uni: decoder stream bytes: ignored, 0", NULL, 0, &k, false, 0);
}

/* ------------------------------------------------------------ our streams */

static void test_control_stream(void)
{
    uint8_t out[64];
    size_t n = h3_control_stream(out, sizeof out);
    struct vec want = V("00 04 0a 0100 0700 4157 80005348");
    T_CHECK("control: 00, SETTINGS { QPACK_MAX_TABLE_CAPACITY 0, QPACK_BLOCKED_STREAMS 0, GREASE 0x157 }",
            n == want.n && memcmp(out, want.p, n) == 0 && n <= 32, "n %zu", n);
    uint64_t grease = 0x157;
    T_CHECK("control: the GREASE identifier is 0x1f * N + 0x21", (grease - 0x21) % 0x1f == 0, "0x%llx",
            (unsigned long long)grease);
    bool ok = true;
    for (size_t cap = 0; cap < n; cap++) {
        uint8_t small[64];
        memset(small, 0xee, sizeof small);
        ok &= h3_control_stream(small, cap) == 0 && small[cap] == 0xee;
    }
    T_CHECK("control: every cap short of the stream gives 0 and writes nothing past cap", ok, "see above");

    struct uni_result r;
    ok = uni_all(NULL, 0, out, n, false, &r);
    T_CHECK("control: our control stream read back by h3_uni_feed: 0, settings seen, no field section limit",
            ok && r.rc == 0 && r.settings_seen && r.max_field_section_size == UINT64_MAX, "rc %d", r.rc);
}

/* The frames of a request stream: HEADERS (its payload decoded into l) and
 * the DATA frame's payload (body, blen; NULL when there is none). false
 * when the bytes are not exactly that. */
static bool parse_request(const struct h3_request *rq, struct list *l, const uint8_t **body, size_t *blen,
                          const uint8_t **hp, size_t *hlen)
{
    static uint8_t scratch[4096];
    const uint8_t *p = rq->bytes, *end = rq->bytes + rq->len;
    uint64_t type, len;
    *body = NULL;
    *blen = 0;
    if (quic_varint_get(&p, end, &type) || type != H3_FRAME_HEADERS || quic_varint_get(&p, end, &len) ||
        len > (uint64_t)(end - p))
        return false;
    *hp = p;
    *hlen = (size_t)len;
    if (qpack_decode(p, (size_t)len, scratch, sizeof scratch, collect, l) != 0)
        return false;
    p += len;
    if (p == end)
        return true;
    if (quic_varint_get(&p, end, &type) || type != H3_FRAME_DATA || quic_varint_get(&p, end, &len) ||
        len != (uint64_t)(end - p))
        return false;
    *body = p;
    *blen = (size_t)len;
    return true;
}

static void list_clear(struct list *l)
{
    l->len = 0;
    l->n = 0;
    l->text[0] = 0;
}

static void test_request(void)
{
    struct shb_request o = { .method = "GET", .authority = "example.com:8080", .target = "/" };
    struct h3_request rq;
    struct list *l = list_new();
    const uint8_t *body, *hp;
    size_t blen, hlen, qlen;
    int rc = h3_request_build(&rq, &o);
    uint8_t *q = qpack_encode_request(&o, &qlen);
    bool ok = rc == 0 && parse_request(&rq, l, &body, &blen, &hp, &hlen) && body == NULL && hlen == qlen &&
              memcmp(hp, q, qlen) == 0;
    T_CHECK("request: GET is one HEADERS frame with qpack_encode_request's section, no DATA",
            ok && strcmp(l->text, ":method: GET\n:scheme: http\n:authority: example.com:8080\n:path: /\n"
                                  "user-agent: shb\naccept: */*\n") == 0,
            "rc %d: %s", rc, l->text);
    free(q);
    h3_request_free(&rq);
    T_CHECK("request: h3_request_free clears it", rq.bytes == NULL && rq.len == 0, "not cleared");

    static const struct shb_header ct[] = { { "Content-Type", "application/json" } };
    static const uint8_t json[] = "{\"a\":1}";
    o = (struct shb_request){ .method = "POST", .authority = "example.com:8080", .target = "/api", .headers = ct,
                              .nheaders = 1, .body = json, .body_len = 7, .has_body = true };
    list_clear(l);
    rc = h3_request_build(&rq, &o);
    ok = rc == 0 && parse_request(&rq, l, &body, &blen, &hp, &hlen) && body && blen == 7 &&
         memcmp(body, json, 7) == 0;
    T_CHECK("request: POST is HEADERS (content-type, content-length 7) + one DATA frame with the body",
            ok && strcmp(l->text, ":method: POST\n:scheme: http\n:authority: example.com:8080\n:path: /api\n"
                                  "user-agent: shb\naccept: */*\ncontent-type: application/json\n"
                                  "content-length: 7\n") == 0,
            "rc %d: %s", rc, l->text);
    h3_request_free(&rq);

    o.body_len = 0;
    o.body = NULL;
    list_clear(l);
    rc = h3_request_build(&rq, &o);
    ok = rc == 0 && parse_request(&rq, l, &body, &blen, &hp, &hlen) && body == NULL;
    T_CHECK("request: POST with an empty body: HEADERS (content-length 0) and no DATA frame",
            ok && strstr(l->text, "content-length: 0\n") != NULL, "rc %d: %s", rc, l->text);
    h3_request_free(&rq);

    size_t big = 100000;
    uint8_t *bb = malloc(big);
    for (size_t i = 0; i < big; i++)
        bb[i] = (uint8_t)i;
    o.body = bb;
    o.body_len = big;
    list_clear(l);
    rc = h3_request_build(&rq, &o);
    ok = rc == 0 && parse_request(&rq, l, &body, &blen, &hp, &hlen) && blen == big && memcmp(body, bb, big) == 0 &&
         body[-5] == H3_FRAME_DATA && body[-4] >> 6 == 2; /* a 4-byte length */
    T_CHECK("request: a 100000-byte body: one DATA frame with a 4-byte length", ok, "rc %d", rc);
    h3_request_free(&rq);
    free(bb);
    free(l);
}

static void test_error_names(void)
{
    bool ok = strcmp(h3_error_name(H3_NO_ERROR), "H3_NO_ERROR") == 0 &&
              strcmp(h3_error_name(H3_FRAME_UNEXPECTED), "H3_FRAME_UNEXPECTED") == 0 &&
              strcmp(h3_error_name(H3_REQUEST_INCOMPLETE), "H3_REQUEST_INCOMPLETE") == 0 &&
              strcmp(h3_error_name(H3_VERSION_FALLBACK), "H3_VERSION_FALLBACK") == 0 &&
              strcmp(h3_error_name(QPACK_DECOMPRESSION_FAILED), "QPACK_DECOMPRESSION_FAILED") == 0 &&
              strcmp(h3_error_name(QPACK_ENCODER_STREAM_ERROR), "QPACK_ENCODER_STREAM_ERROR") == 0 &&
              strcmp(h3_error_name(QPACK_DECODER_STREAM_ERROR), "QPACK_DECODER_STREAM_ERROR") == 0 &&
              h3_error_name(0x111) == NULL && h3_error_name(0xff) == NULL && h3_error_name(0x203) == NULL &&
              h3_error_name(0x1f * 5 + 0x21) == NULL && h3_error_name(UINT64_MAX) == NULL;
    int named = 0;
    for (uint64_t c = 0; c < 0x300; c++)
        named += h3_error_name(c) != NULL;
    T_CHECK("errors: h3_error_name names 0x100..0x110 and 0x200..0x202 (20 codes), NULL elsewhere",
            ok && named == 20 && strcmp(h3_error_name(0x10d), "H3_REQUEST_INCOMPLETE") == 0, "named %d", named);
}

/* A server's RESET_STREAM / STOP_SENDING on a request stream (RFC 9114
 * §4.1.1, §8): a STOP_SENDING with H3_NO_ERROR or an unknown code (0x0 is
 * what quinn, Deno's QUIC, sends for a plain stop) leaves the response to
 * come; H3_REQUEST_REJECTED retries; the rest end the request. */
static void test_reset_action(void)
{
    static const struct {
        uint64_t code;
        bool stop_sending;
        enum h3_reset_action want;
    } cases[] = {
        { H3_NO_ERROR, true, H3_RESET_IGNORE },
        { 0x0, true, H3_RESET_IGNORE },
        { 0xff, true, H3_RESET_IGNORE },
        { 0x111, true, H3_RESET_IGNORE },
        { 0x1f * 7 + 0x21, true, H3_RESET_IGNORE }, /* GREASE */
        { 0x203, true, H3_RESET_IGNORE },
        { (1ull << 62) - 1, true, H3_RESET_IGNORE },
        { H3_REQUEST_REJECTED, true, H3_RESET_RETRY },
        { H3_REQUEST_REJECTED, false, H3_RESET_RETRY },
        { H3_REQUEST_CANCELLED, true, H3_RESET_ERROR },
        { H3_INTERNAL_ERROR, true, H3_RESET_ERROR },
        { QPACK_DECOMPRESSION_FAILED, true, H3_RESET_ERROR },
        { H3_NO_ERROR, false, H3_RESET_ERROR },
        { 0x0, false, H3_RESET_ERROR },
        { H3_REQUEST_CANCELLED, false, H3_RESET_ERROR },
    };
    bool ok = true;
    char why[120] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum h3_reset_action got = h3_request_reset_action(cases[i].code, cases[i].stop_sending);
        if (got != cases[i].want) {
            if (ok)
                snprintf(why, sizeof why, "code 0x%llx %s: %d, want %d", (unsigned long long)cases[i].code,
                         cases[i].stop_sending ? "STOP_SENDING" : "RESET_STREAM", (int)got, (int)cases[i].want);
            ok = false;
        }
    }
    T_CHECK("reset: STOP_SENDING with H3_NO_ERROR or an unknown code (0x0, GREASE) is ignored, "
            "H3_REQUEST_REJECTED retried, any other code or RESET_STREAM ends the request",
            ok, "%s", why);
}

/* Which of h3_resp_feed's errors end the connection (RFC 9114 §4.1, §7.1,
 * §7.2.5; RFC 9204 §2.2.3, §3.1, §4.5.1.1) and which only the stream
 * (RFC 9114 §4.1.2, RFC 9204 §7.4). */
static bool conn_error_of(const char *hex, bool fin, int *rc)
{
    struct blk k = { 0 };
    b_hex(&k, hex);
    struct h3_resp r;
    h3_resp_init(&r);
    *rc = h3_resp_feed(&r, k.b, k.n, fin);
    bool conn = h3_resp_error_is_connection(&r);
    b_free(&k);
    return conn;
}

static void test_error_scope(void)
{
    static const struct {
        const char *what, *hex;
        bool fin;
        int rc;
        bool conn;
    } cases[] = {
        { "DATA before HEADERS", "00 02 6869", false, -H3_FRAME_UNEXPECTED, true },
        { "a frame cut by fin", "01 03 0000", true, -H3_FRAME_ERROR, true },
        { "PUSH_PROMISE", "05 02 0000", false, -H3_ID_ERROR, true },
        { "Required Insert Count 1", "01 03 0100d9", false, -QPACK_DECOMPRESSION_FAILED, true },
        { "a static index beyond the table", "01 04 0000ff7f", false, -QPACK_DECOMPRESSION_FAILED, true },
        { "no :status", "01 05 00005f4d00", false, -H3_MESSAGE_ERROR, false },
        { "an integer too large", "01 0d 0000ffffffffffffffffffffff", false, -QPACK_DECOMPRESSION_FAILED, false },
        { "fin before a response", "", true, -H3_REQUEST_INCOMPLETE, false },
        { "a complete response", "01 03 0000d9", true, H3_RESP_DONE, false },
        { "more to come", "01 03 0000d9", false, H3_RESP_MORE, false },
    };
    bool ok = true;
    char why[160] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc;
        bool conn = conn_error_of(cases[i].hex, cases[i].fin, &rc);
        if (rc != cases[i].rc || conn != cases[i].conn) {
            if (ok)
                snprintf(why, sizeof why, "%s: rc %d conn %d", cases[i].what, rc, conn);
            ok = false;
        }
    }
    T_CHECK("errors: DATA before HEADERS, a truncated frame, a push, a dynamic or out-of-range index end the "
            "connection; no :status, an oversized integer, an incomplete response the stream",
            ok, "%s", why);
}

int main(void)
{
    test_scan_vectors();
    test_scan_differential();
    test_resp();
    test_uni();
    test_control_stream();
    test_request();
    test_error_names();
    test_reset_action();
    test_error_scope();
    T_DONE();
}
