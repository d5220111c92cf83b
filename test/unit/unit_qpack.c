/* test/unit/unit_qpack.c — QPACK (RFC 9204) without a dynamic table: the static
 * table against Appendix A, the Appendix B examples, every field line
 * representation and its integer and Huffman edges, every truncation of
 * valid sections, the request encoder decoded back, the :status scan
 * against the decoder on generated, random and mutated sections, and the
 * encoder-stream check fed whole and byte by byte.
 *
 * Every section handed to qpack_decode / qpack_status is an exact-size heap
 * copy, so under ASan a read past its end is caught. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpack.h"
#include "qpack.h"
#include "request_base.h"
#include "feed.h"
#include "t.h"
#include "test/unit/fields.h"

/* ------------------------------------------------------------ helpers */

static void b_int(struct blk *k, unsigned prefix, uint8_t first, uint64_t v)
{
    uint8_t tmp[16];
    size_t n = hpack_int_encode(tmp, sizeof tmp, prefix, first, v);
    b_bytes(k, tmp, n);
}

/* An N-bit prefix string literal (§4.1.2), raw or Huffman-coded, written
 * here independently of hpack_put_str. */
static void b_str(struct blk *k, unsigned prefix, uint8_t first, const void *s, size_t n, bool huff)
{
    uint8_t h = (uint8_t)(1u << (prefix - 1));
    if (!huff) {
        b_int(k, prefix - 1, first, n);
        b_bytes(k, s, n);
        return;
    }
    size_t hn = hpack_huffman_encoded_len(s, n);
    b_int(k, prefix - 1, (uint8_t)(first | h), hn);
    b_need(k, hn);
    hpack_huffman_encode(s, n, k->b + k->n);
    k->n += hn;
}

/* The field line representations (§4.5.2, §4.5.4, §4.5.6), static only. */
static void b_indexed(struct blk *k, uint64_t idx)
{
    b_int(k, 6, 0xc0, idx);
}

static void b_nameref(struct blk *k, uint64_t idx, bool nbit, const char *value, bool huff)
{
    b_int(k, 4, (uint8_t)(0x50 | (nbit ? 0x20 : 0)), idx);
    b_str(k, 8, 0x00, value, strlen(value), huff);
}

static void b_litname(struct blk *k, bool nbit, const char *name, bool nhuff, const char *value, bool vhuff)
{
    b_str(k, 4, (uint8_t)(0x20 | (nbit ? 0x10 : 0)), name, strlen(name), nhuff);
    b_str(k, 8, 0x00, value, strlen(value), vhuff);
}

static void list_clear(struct list *l)
{
    l->len = 0;
    l->n = 0;
    l->text[0] = '\0';
}

static uint8_t scratch[65536];

/* Decodes an exact-size copy of b[0..n) into l (cleared first). */
static int decode_bytes(const uint8_t *b, size_t n, struct list *l)
{
    uint8_t *copy = t_memdup(b, n);
    list_clear(l);
    int rc = qpack_decode(copy, n, scratch, sizeof scratch, collect, l);
    free(copy);
    return rc;
}

static int decode_hex(const char *hex, struct list *l)
{
    uint8_t b[512];
    size_t n = unhex(hex, b, sizeof b);
    return decode_bytes(b, n, l);
}

static int status_bytes(const uint8_t *b, size_t n, uint16_t *st)
{
    uint8_t *copy = t_memdup(b, n);
    int rc = qpack_status(copy, n, st);
    free(copy);
    return rc;
}

static int status_hex(const char *hex, uint16_t *st)
{
    uint8_t b[512];
    size_t n = unhex(hex, b, sizeof b);
    return status_bytes(b, n, st);
}

/* --------------------------------------------------------- static table */

static bool entry_is(unsigned i, const char *name, const char *value)
{
    const char *n = NULL, *v = NULL;
    bool ok = qpack_static_entry(i, &n, &v) && strcmp(n, name) == 0 && strcmp(v, value) == 0;
    if (!ok)
        printf("  entry %u: [%s] [%s]\n", i, n ? n : "(none)", v ? v : "(none)");
    return ok;
}

static void test_static(void)
{
    T_CHECK("static: first entries 0 :authority, 1 :path /, 2 age 0", entry_is(0, ":authority", "") &&
            entry_is(1, ":path", "/") && entry_is(2, "age", "0"), "mismatch");
    T_CHECK("static: last entries 97 x-frame-options deny, 98 x-frame-options sameorigin; 99 refused",
            entry_is(97, "x-frame-options", "deny") && entry_is(98, "x-frame-options", "sameorigin") &&
                !qpack_static_entry(99, NULL, NULL) && !qpack_static_entry(1000, NULL, NULL),
            "mismatch");
    static const char *const st1[] = { "103", "200", "304", "404", "503" };
    static const char *const st2[] = { "100", "204", "206", "302", "400", "403", "421", "425", "500" };
    bool ok = true;
    for (unsigned i = 0; i < 5; i++)
        ok &= entry_is(24 + i, ":status", st1[i]);
    for (unsigned i = 0; i < 9; i++)
        ok &= entry_is(63 + i, ":status", st2[i]);
    int nstatus = 0;
    for (unsigned i = 0; i < QPACK_STATIC_COUNT; i++) {
        const char *n;
        qpack_static_entry(i, &n, NULL);
        nstatus += strcmp(n, ":status") == 0;
    }
    T_CHECK("static: :status is 24..28 (103 200 304 404 503) and 63..71 (100 204 206 302 400 403 421 425 500), "
            "nowhere else",
            ok && nstatus == 14, "nstatus=%d", nstatus);
    T_CHECK("static: request pseudo-headers 15..23 (:method CONNECT..PUT, :scheme http/https)",
            entry_is(15, ":method", "CONNECT") && entry_is(17, ":method", "GET") && entry_is(20, ":method", "POST") &&
                entry_is(21, ":method", "PUT") && entry_is(22, ":scheme", "http") && entry_is(23, ":scheme", "https"),
            "mismatch");
    /* The values Appendix A wraps across lines, joined. */
    T_CHECK("static: wrapped values joined as the RFC means them (30, 41, 47, 52, 54, 57, 58, 85)",
            entry_is(30, "accept", "application/dns-message") &&
                entry_is(41, "cache-control", "public, max-age=31536000") &&
                entry_is(47, "content-type", "application/x-www-form-urlencoded") &&
                entry_is(52, "content-type", "text/html; charset=utf-8") &&
                entry_is(54, "content-type", "text/plain;charset=utf-8") &&
                entry_is(57, "strict-transport-security", "max-age=31536000; includesubdomains") &&
                entry_is(58, "strict-transport-security", "max-age=31536000; includesubdomains; preload") &&
                entry_is(85, "content-security-policy", "script-src 'none'; object-src 'none'; base-uri 'none'"),
            "mismatch");
    T_CHECK("static: spot checks 29 accept */*, 31 accept-encoding, 46 content-type application/json, "
            "72 accept-language, 95 user-agent",
            entry_is(29, "accept", "*/*") && entry_is(31, "accept-encoding", "gzip, deflate, br") &&
                entry_is(46, "content-type", "application/json") && entry_is(72, "accept-language", "") &&
                entry_is(95, "user-agent", ""),
            "mismatch");

    /* Every entry decodes as an indexed field line to itself. */
    struct list *l = list_new();
    ok = true;
    for (unsigned i = 0; i < QPACK_STATIC_COUNT; i++) {
        struct blk k = { 0 };
        b_hex(&k, "0000");
        b_indexed(&k, i);
        const char *n, *v;
        qpack_static_entry(i, &n, &v);
        char want[256];
        snprintf(want, sizeof want, "%s: %s\n", n, v);
        int rc = decode_bytes(k.b, k.n, l);
        ok &= T_QUIET("static: indexed line", rc == 0 && strcmp(l->text, want) == 0, "index %u rc %d", i, rc);
        b_free(&k);
    }
    T_CHECK("static: every index 0..98 decodes as an indexed field line to its entry", ok, "see above");
    free(l);
}

/* ----------------------------------------------------- Appendix B */

static void test_appendix_b(void)
{
    struct list *l = list_new();
    uint8_t b1[32];
    size_t n1 = unhex("0000 510b 2f69 6e64 6578 2e68 746d 6c", b1, sizeof b1);
    int rc = decode_bytes(b1, n1, l);
    T_CHECK("B.1: 0000 510b 2f69 6e64 6578 2e68 746d 6c decodes to :path: /index.html",
            rc == 0 && l->n == 1 && strcmp(l->text, ":path: /index.html\n") == 0, "rc=%d [%s]", rc, l->text);
    struct blk k = { 0 };
    b_hex(&k, "0000");
    b_nameref(&k, 1, false, "/index.html", false);
    T_CHECK("B.1: the same bytes built as prefix 0/0 + literal with static name reference 1, raw value",
            k.n == n1 && memcmp(k.b, b1, n1) == 0, "n=%zu", k.n);
    b_free(&k);
    uint16_t st = 1;
    rc = status_bytes(b1, n1, &st);
    T_CHECK("B.1: as a response, :path is a pseudo-header a response may not carry: QPACK_ERR_STATUS",
            rc == QPACK_ERR_STATUS && st == 0, "rc=%d st=%u", rc, (unsigned)st);

    /* The field sections of B.2 and B.4 need the dynamic table. */
    rc = decode_hex("0381 10 11", l);
    int rs = status_hex("0381 10 11", &st);
    T_CHECK("B.2: stream 4's section (Required Insert Count 2, post-Base indices) is QPACK_ERR_DYNAMIC",
            rc == QPACK_ERR_DYNAMIC && rs == QPACK_ERR_DYNAMIC && l->n == 0, "rc=%d rs=%d", rc, rs);
    rc = decode_hex("0500 80 c1 81", l);
    rs = status_hex("0500 80 c1 81", &st);
    T_CHECK("B.4: stream 8's section (Required Insert Count 4, relative indices) is QPACK_ERR_DYNAMIC",
            rc == QPACK_ERR_DYNAMIC && rs == QPACK_ERR_DYNAMIC && l->n == 0, "rc=%d rs=%d", rc, rs);
    /* The same lines behind a Required Insert Count of 0: still dynamic. */
    rc = decode_hex("0000 10", l);
    T_CHECK("B.2 lines with Required Insert Count 0: indexed post-Base (0001xxxx) is QPACK_ERR_DYNAMIC",
            rc == QPACK_ERR_DYNAMIC, "rc=%d", rc);
    rc = decode_hex("0000 c1 80", l);
    T_CHECK("B.4 lines with Required Insert Count 0: indexed T=0 (10xxxxxx) is QPACK_ERR_DYNAMIC, after :path /",
            rc == QPACK_ERR_DYNAMIC && strcmp(l->text, ":path: /\n") == 0, "rc=%d", rc);
    rc = decode_hex("0000 0801 61", l); /* 0000 N=1 index 0, value "a" */
    T_CHECK("post-Base name reference (0000Nxxx) is QPACK_ERR_DYNAMIC", rc == QPACK_ERR_DYNAMIC, "rc=%d", rc);
    rc = decode_hex("0000 4101 61", l); /* 01 N=0 T=0 index 1 */
    T_CHECK("name reference with T=0 (dynamic) is QPACK_ERR_DYNAMIC", rc == QPACK_ERR_DYNAMIC, "rc=%d", rc);

    /* Their encoder-stream bytes: all refused, at the first octet. */
    static const char *const enc[] = {
        "3fbd01 c00f 7777 772e 6578 616d 706c 652e 636f 6d c10c 2f73 616d 706c 652f 7061 7468", /* B.2 */
        "4a63 7573 746f 6d2d 6b65 790c 6375 7374 6f6d 2d76 616c 7565",                            /* B.3 */
        "02",                                                                                    /* B.4 */
        "810d 6375 7374 6f6d 2d76 616c 7565 32",                                                 /* B.5 */
    };
    static const char *const what[] = { "B.2 Set Dynamic Table Capacity=220 and inserts",
                                        "B.3 Insert With Literal Name", "B.4 Duplicate",
                                        "B.5 Insert With Name Reference (dynamic)" };
    for (int i = 0; i < 4; i++) {
        uint8_t b[128];
        size_t n = unhex(enc[i], b, sizeof b);
        struct qpack_encoder_stream es;
        qpack_encoder_stream_init(&es);
        uint8_t *copy = t_memdup(b, n);
        rc = qpack_encoder_stream_feed(&es, copy, n);
        free(copy);
        char name[160];
        snprintf(name, sizeof name, "%s on the encoder stream: QPACK_ERR_ENCODER_STREAM (0x0201)", what[i]);
        T_CHECK(name, rc == QPACK_ERR_ENCODER_STREAM && qpack_error_code(rc) == QPACK_ENCODER_STREAM_ERROR &&
                es.capacity0 == 0, "rc=%d", rc);
    }
    free(l);
}

/* ------------------------------------------- prefix, integers, lines */

static void test_prefix_and_integers(void)
{
    struct list *l = list_new();
    uint16_t st;
    int rc;

    rc = decode_hex("", l);
    T_CHECK("prefix: empty input is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);
    rc = decode_hex("00", l);
    T_CHECK("prefix: Required Insert Count alone is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);
    rc = decode_hex("0000", l);
    T_CHECK("prefix: 0000 alone is an empty, valid section", rc == 0 && l->n == 0, "rc=%d", rc);
    rc = qpack_decode(NULL, 0, NULL, 0, NULL, NULL);
    T_CHECK("prefix: NULL, 0 is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);
    rc = decode_hex("01 00", l);
    T_CHECK("prefix: Required Insert Count 1 is QPACK_ERR_DYNAMIC (§4.5.1.1, FullRange 0)",
            rc == QPACK_ERR_DYNAMIC, "rc=%d", rc);
    rc = decode_hex("ff 01 00", l);
    T_CHECK("prefix: Required Insert Count 256 (8-bit prefix + continuation) is QPACK_ERR_DYNAMIC",
            rc == QPACK_ERR_DYNAMIC, "rc=%d", rc);
    rc = decode_hex("ff ff ff ff ff 7f 00", l);
    T_CHECK("prefix: Required Insert Count over 2^32-1 is QPACK_ERR_INTEGER", rc == QPACK_ERR_INTEGER, "rc=%d",
            rc);
    rc = decode_hex("ff 80", l);
    T_CHECK("prefix: Required Insert Count cut inside its continuation is QPACK_ERR_TRUNCATED",
            rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);
    rc = decode_hex("00 80", l);
    int rs = status_hex("00 80 d9", &st);
    T_CHECK("prefix: Sign bit with Required Insert Count 0 is QPACK_ERR_BASE (§4.5.1.2)",
            rc == QPACK_ERR_BASE && rs == QPACK_ERR_BASE, "rc=%d rs=%d", rc, rs);
    rc = decode_hex("00 ff 05", l);
    T_CHECK("prefix: Sign bit with a long Delta Base is QPACK_ERR_BASE", rc == QPACK_ERR_BASE, "rc=%d", rc);
    rc = decode_hex("00 05 d9", l);
    T_CHECK("prefix: Delta Base 5 (Base 5, unused) is accepted", rc == 0 && strcmp(l->text, ":status: 200\n") == 0,
            "rc=%d", rc);

    /* Delta Base up to 62 bits (§4.1.1). */
    struct blk k = { 0 };
    b_hex(&k, "00");
    b_int(&k, 7, 0x00, ((uint64_t)1 << 62) - 1);
    b_indexed(&k, 25);
    rc = decode_bytes(k.b, k.n, l);
    rs = status_bytes(k.b, k.n, &st);
    T_CHECK("integer: Delta Base 2^62-1 (9 continuation octets) decodes (§4.1.1: 62 bits)",
            rc == 0 && rs == 0 && st == 200 && k.n == 12, "rc=%d rs=%d n=%zu", rc, rs, k.n);
    b_free(&k);
    b_hex(&k, "00");
    b_int(&k, 7, 0x00, (uint64_t)1 << 62);
    b_indexed(&k, 25);
    rc = decode_bytes(k.b, k.n, l);
    rs = status_bytes(k.b, k.n, &st);
    T_CHECK("integer: Delta Base 2^62 is QPACK_ERR_INTEGER", rc == QPACK_ERR_INTEGER && rs == QPACK_ERR_INTEGER,
            "rc=%d rs=%d", rc, rs);
    b_free(&k);
    rc = decode_hex("00 7f 80 80 80 80 80 80 80 80 00 d9", l);
    T_CHECK("integer: Delta Base 127 with 9 zero-padded continuation octets decodes", rc == 0 && l->n == 1,
            "rc=%d", rc);
    rc = decode_hex("00 7f 80 80 80 80 80 80 80 80 80 00 d9", l);
    T_CHECK("integer: a tenth continuation octet is QPACK_ERR_INTEGER", rc == QPACK_ERR_INTEGER, "rc=%d", rc);
    rc = decode_hex("00 7f 80 80", l);
    T_CHECK("integer: Delta Base cut inside its continuation is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED,
            "rc=%d", rc);

    /* Each prefix size at its 2^N-1 edge. */
    rc = decode_hex("0000 fe ff00 ff01", l); /* indexed 62, 63, 64 (6-bit prefix) */
    T_CHECK("integer: 6-bit index 62 (one octet), 63 (ff 00), 64 (ff 01)",
            rc == 0 && strcmp(l->text, "x-xss-protection: 1; mode=block\n:status: 100\n:status: 204\n") == 0,
            "rc=%d [%s]", rc, l->text);
    rc = decode_hex("0000 ff23", l);
    T_CHECK("integer: indexed 98 (ff 23) is the last entry", rc == 0 && strcmp(l->text, "x-frame-options: sameorigin\n") == 0,
            "rc=%d", rc);
    rc = decode_hex("0000 ff24", l);
    T_CHECK("integer: indexed 99 is QPACK_ERR_INDEX (§3.1)", rc == QPACK_ERR_INDEX, "rc=%d", rc);
    rc = decode_hex("0000 ff ff ff ff ff 7f", l);
    T_CHECK("integer: indexed over 2^32-1 is QPACK_ERR_INTEGER", rc == QPACK_ERR_INTEGER, "rc=%d", rc);
    rc = decode_hex("0000 5e0161 5f000162 5f010163", l); /* name ref 14, 15, 16 (4-bit prefix) */
    T_CHECK("integer: 4-bit name index 14 (one octet), 15 (5f 00), 16 (5f 01)",
            rc == 0 && strcmp(l->text, "set-cookie: a\n:method: b\n:method: c\n") == 0, "rc=%d [%s]", rc, l->text);
    rc = decode_hex("0000 5f53 0178", l);
    T_CHECK("integer: name reference 98 decodes", rc == 0 && strcmp(l->text, "x-frame-options: x\n") == 0, "rc=%d",
            rc);
    rc = decode_hex("0000 5f54 0178", l);
    T_CHECK("integer: name reference 99 is QPACK_ERR_INDEX", rc == QPACK_ERR_INDEX, "rc=%d", rc);
    rc = decode_hex("0000 26 616263646566 00 27 00 61626364656667 00 27 01 6162636465666768 00", l);
    T_CHECK("integer: 3-bit name length 6 (one octet), 7 (27 00), 8 (27 01)",
            rc == 0 && strcmp(l->text, "abcdef: \nabcdefg: \nabcdefgh: \n") == 0, "rc=%d [%s]", rc, l->text);
    rc = decode_hex("0000 2f 80", l);
    T_CHECK("integer: Huffman name length cut in its continuation is QPACK_ERR_TRUNCATED",
            rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);

    /* Value lengths 126, 127, 128 (7-bit prefix). */
    char v[200];
    memset(v, 'q', sizeof v);
    bool ok = true;
    for (size_t len = 126; len <= 128; len++) {
        v[len] = '\0';
        b_hex(&k, "0000");
        b_nameref(&k, 92, false, v, false);
        rc = decode_bytes(k.b, k.n, l);
        char want[256];
        snprintf(want, sizeof want, "server: %s\n", v);
        ok &= T_QUIET("integer: value length", rc == 0 && strcmp(l->text, want) == 0 && k.n == 2 + 2 + 1 + (size_t)(len >= 127) + len,
                      "len %zu rc %d n %zu", len, rc, k.n);
        b_free(&k);
        v[len] = 'q';
    }
    T_CHECK("integer: raw value lengths 126, 127 (7f 00), 128 (7f 01)", ok, "see above");
    rc = decode_hex("0000 5f4d 7f ff ff ff ff 7f", l);
    T_CHECK("integer: value length over 2^32-1 is QPACK_ERR_INTEGER", rc == QPACK_ERR_INTEGER, "rc=%d", rc);
    rc = decode_hex("0000 5f4d 05 6162", l);
    T_CHECK("string: value longer than the section is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED, "rc=%d",
            rc);
    rc = decode_hex("0000 25 6162", l);
    T_CHECK("string: name longer than the section is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);
    rc = decode_hex("0000 21 61", l);
    T_CHECK("string: a literal name with no value is QPACK_ERR_TRUNCATED", rc == QPACK_ERR_TRUNCATED, "rc=%d", rc);
    free(l);
}

static void test_representations(void)
{
    struct list *l = list_new();
    int rc;
    struct blk k = { 0 };

    b_hex(&k, "0000");
    b_indexed(&k, 17);
    b_nameref(&k, 0, false, "example.com", true);
    b_nameref(&k, 1, true, "/a?b=c", false); /* N bit set */
    b_litname(&k, false, "x-raw", false, "raw value", false);
    b_litname(&k, true, "x-huffman-name", true, "huffman value", true); /* N bit set */
    b_litname(&k, false, "", false, "", false);
    b_litname(&k, false, "e", true, "", true); /* empty Huffman value */
    rc = decode_bytes(k.b, k.n, l);
    T_CHECK("lines: indexed, name reference (raw, Huffman, N=1), literal name (raw, Huffman, N=1, empty)",
            rc == 0 && strcmp(l->text, ":method: GET\n:authority: example.com\n:path: /a?b=c\nx-raw: raw value\n"
                                       "x-huffman-name: huffman value\n: \ne: \n") == 0,
            "rc=%d [%s]", rc, l->text);
    b_free(&k);

    /* Huffman edges (RFC 7541 §5.2), in a value and in a 4-bit prefix name. */
    rc = decode_hex("0000 5f4d 81 1f", l); /* server: 'a' + 3 bits of padding */
    T_CHECK("huffman: value 'a' with 3 one-bits of padding", rc == 0 && strcmp(l->text, "server: a\n") == 0, "rc=%d",
            rc);
    rc = decode_hex("0000 5f4d 81 18", l);
    T_CHECK("huffman: padding not all ones is QPACK_ERR_HUFFMAN", rc == QPACK_ERR_HUFFMAN, "rc=%d", rc);
    rc = decode_hex("0000 5f4d 82 1fff", l);
    T_CHECK("huffman: 11 bits of padding is QPACK_ERR_HUFFMAN", rc == QPACK_ERR_HUFFMAN, "rc=%d", rc);
    rc = decode_hex("0000 5f4d 81 ff", l);
    T_CHECK("huffman: a whole octet of padding is QPACK_ERR_HUFFMAN", rc == QPACK_ERR_HUFFMAN, "rc=%d", rc);
    rc = decode_hex("0000 5f4d 84 fffffffc", l);
    T_CHECK("huffman: EOS in a value is QPACK_ERR_HUFFMAN", rc == QPACK_ERR_HUFFMAN, "rc=%d", rc);
    rc = decode_hex("0000 29 18 00", l); /* Huffman name 'a' + 000 */
    T_CHECK("huffman: bad padding in a literal name (4-bit prefix, H=0x08) is QPACK_ERR_HUFFMAN",
            rc == QPACK_ERR_HUFFMAN, "rc=%d", rc);
    rc = decode_hex("0000 29 1f 00", l);
    T_CHECK("huffman: literal name 'a' (29 1f) decodes", rc == 0 && strcmp(l->text, "a: \n") == 0, "rc=%d", rc);
    rc = decode_hex("0000 2c fffffffc 00", l);
    T_CHECK("huffman: EOS in a literal name is QPACK_ERR_HUFFMAN", rc == QPACK_ERR_HUFFMAN, "rc=%d", rc);

    /* Scratch. */
    b_hex(&k, "0000");
    b_litname(&k, false, "x-huffman-name", true, "huffman value", true);
    uint8_t small[20], *copy = t_memdup(k.b, k.n);
    rc = qpack_decode(copy, k.n, small, sizeof small, collect, l);
    T_CHECK("scratch: name + value (27 octets) in 20 octets of scratch is QPACK_ERR_TOO_LONG",
            rc == QPACK_ERR_TOO_LONG && qpack_error_code(rc) == QPACK_DECOMPRESSION_FAILED, "rc=%d", rc);
    list_clear(l);
    uint8_t exact[27];
    rc = qpack_decode(copy, k.n, exact, sizeof exact, collect, l);
    T_CHECK("scratch: exactly 27 octets is enough (name and value share it)",
            rc == 0 && strcmp(l->text, "x-huffman-name: huffman value\n") == 0, "rc=%d", rc);
    rc = qpack_decode(copy, k.n, NULL, 0, NULL, NULL);
    T_CHECK("scratch: none at all with Huffman strings is QPACK_ERR_TOO_LONG", rc == QPACK_ERR_TOO_LONG, "rc=%d",
            rc);
    free(copy);
    b_free(&k);
    rc = qpack_decode((const uint8_t *)"\x00\x00\x20\x80\x28\x80", 6, NULL, 0, NULL, NULL);
    T_CHECK("scratch: empty Huffman names and values need none", rc == 0, "rc=%d", rc);

    /* Callbacks. */
    rc = qpack_decode((const uint8_t *)"\x00\x00\xd1", 3, NULL, 0, NULL, NULL);
    T_CHECK("callback: NULL fn only validates", rc == 0, "rc=%d", rc);
    list_clear(l);
    l->len = sizeof l->text - 4; /* collect's "full" return: 99 */
    rc = qpack_decode((const uint8_t *)"\x00\x00\xd1\x80", 4, NULL, 0, collect, l);
    T_CHECK("callback: a non-zero return aborts decoding and is returned (before a later error)",
            rc == 99 && qpack_error_code(rc) == 0, "rc=%d", rc);
    free(l);
}

/* ---------------------------------------------------------- truncation */

/* Decodes every prefix of b (exact-size copies) and checks: a cut at a
 * field-line boundary (at or after the 2-octet prefix; bounds[] gives them)
 * decodes to the first lines of the whole, anything else is
 * QPACK_ERR_TRUNCATED; qpack_status agrees with the decoder on each. */
static bool all_cuts(const uint8_t *b, size_t n, const size_t *bounds, size_t nb, int *ncut)
{
    struct list *whole = list_new(), *part = list_new();
    bool ok = decode_bytes(b, n, whole) == 0;
    for (size_t cut = 0; cut < n && ok; cut++) {
        bool boundary = false;
        for (size_t i = 0; i < nb; i++)
            boundary |= bounds[i] == cut;
        int rc = decode_bytes(b, cut, part);
        if (boundary)
            ok &= rc == 0 && part->n < whole->n && strncmp(whole->text, part->text, part->len) == 0;
        else
            ok &= rc == QPACK_ERR_TRUNCATED;
        uint16_t st;
        int rs = status_bytes(b, cut, &st);
        ok &= boundary ? (rs == 0 || rs == QPACK_ERR_STATUS || rs == QPACK_ERR_NO_STATUS) : rs == QPACK_ERR_TRUNCATED;
        if (!ok)
            printf("  cut %zu of %zu: rc %d rs %d\n", cut, n, rc, rs);
        (*ncut)++;
    }
    free(whole);
    free(part);
    return ok;
}

static void test_truncation(void)
{
    int ncut = 0;
    bool ok = true;
    /* Built sections, boundaries recorded as they are built. */
    for (int variant = 0; variant < 3; variant++) {
        struct blk k = { 0 };
        size_t bounds[16], nb = 0;
        b_hex(&k, "00");
        b_int(&k, 7, 0x00, variant == 2 ? 1000000 : 0); /* a long Delta Base too */
        bounds[nb++] = k.n;
        bool h = variant == 1;
        b_indexed(&k, 25);
        bounds[nb++] = k.n;
        b_indexed(&k, 64); /* ff 01 */
        bounds[nb++] = k.n;
        b_nameref(&k, 92, false, "a-server-name-of-some-length", h);
        bounds[nb++] = k.n;
        b_nameref(&k, 95, true, "shb", h); /* 5f 50 */
        bounds[nb++] = k.n;
        char longv[300];
        memset(longv, 'L', sizeof longv - 1);
        longv[sizeof longv - 1] = '\0';
        b_litname(&k, false, "x-long-name-here", h, longv, h);
        bounds[nb++] = k.n;
        b_litname(&k, true, "", h, "", h);
        ok &= all_cuts(k.b, k.n, bounds, nb, &ncut);
        b_free(&k);
    }
    uint8_t b1[32];
    size_t n1 = unhex("0000 510b 2f69 6e64 6578 2e68 746d 6c", b1, sizeof b1);
    size_t b1_bounds[] = { 2 };
    ok &= all_cuts(b1, n1, b1_bounds, 1, &ncut);

    /* The request encoder's output: boundaries are where its field lines
     * end; they are found by decoding each prefix, and there must be as
     * many of them as fields. */
    struct shb_header hs[] = { { "X-Custom-Header", "Mixed Case Value" }, { "Cookie", "a=b" } };
    struct shb_request o = t_request_base();
    o.headers = hs;
    o.nheaders = 2;
    o.has_body = true;
    o.body_len = 12345;
    size_t len;
    uint8_t *req = qpack_encode_request(&o, &len);
    struct list *l = list_new();
    int nfields = decode_bytes(req, len, l) == 0 ? l->n : -1;
    size_t bounds[32], nb = 0;
    for (size_t cut = 2; cut < len && nb < 32; cut++)
        if (decode_bytes(req, cut, l) == 0)
            bounds[nb++] = cut;
    ok &= T_QUIET("truncation: request boundaries", (int)nb == nfields && nfields == 9, "nb %zu nfields %d", nb,
                  nfields);
    ok &= all_cuts(req, len, bounds, nb, &ncut);
    free(req);
    free(l);
    T_CHECK("truncation: every cut of 5 valid sections (built, Huffman, long Delta Base, B.1, a request) fails "
            "with QPACK_ERR_TRUNCATED except at field-line boundaries, in qpack_decode and qpack_status",
            ok, "see above");
    printf("  truncation: %d cuts\n", ncut);
}

/* ---------------------------------------------------- request encoding */

static bool request_is(const struct shb_request *o, const char *want, uint8_t **bytes, size_t *blen)
{
    size_t len = 0;
    uint8_t *req = qpack_encode_request(o, &len);
    if (!req)
        return false;
    struct list *l = list_new(), *h = list_new();
    int rc = decode_bytes(req, len, l);
    /* The same list the HTTP/2 encoder sends. */
    size_t n;
    struct shb_field *f = shb_request_fields(o, SHB_FIELDS_H2, &n);
    for (size_t i = 0; f && i < n; i++)
        collect(h, (const uint8_t *)f[i].name, strlen(f[i].name), (const uint8_t *)f[i].value, strlen(f[i].value));
    free(f);
    bool ok = rc == 0 && len >= 2 && req[0] == 0 && req[1] == 0 && strcmp(l->text, want) == 0 &&
              strcmp(h->text, want) == 0;
    if (!ok)
        printf("  rc=%d got:\n%s  hpack list:\n%s", rc, l->text, h->text);
    free(l);
    free(h);
    if (bytes) {
        *bytes = req;
        *blen = len;
    } else {
        free(req);
    }
    return ok;
}

static bool contains(const uint8_t *b, size_t n, const char *hex)
{
    uint8_t pat[64];
    size_t pn = unhex(hex, pat, sizeof pat);
    for (size_t i = 0; i + pn <= n; i++)
        if (memcmp(b + i, pat, pn) == 0)
            return true;
    return false;
}

#define DEFAULTS "user-agent: shb\naccept: */*\n"
#define PSEUDO ":method: GET\n:scheme: http\n:authority: example.com:8080\n:path: /\n"

static void test_request(void)
{
    struct shb_request o = t_request_base();
    uint8_t *req;
    size_t len;
    bool ok = request_is(&o, PSEUDO DEFAULTS, &req, &len);
    struct blk want = { 0 };
    b_hex(&want, "0000 d1 d6 50");
    b_str(&want, 8, 0x00, "example.com:8080", 16, true);
    b_hex(&want, "c1 5f50 03 736862 dd");
    T_CHECK("request: default GET is 0000, d1 (17 GET), d6 (22 http), 50 + Huffman authority, c1 (1 /), "
            "5f50 03 shb (user-agent by name 95), dd (29 accept */*)",
            ok && len == want.n && memcmp(req, want.b, len) == 0, "len %zu want %zu", len, want.n);
    b_free(&want);
    free(req);

    o = t_request_base();
    o.method = NULL;
    o.https = true;
    o.target = "/index.html";
    T_CHECK("request: https (d7) and :path /index.html by name (51, Huffman value)",
            request_is(&o, ":method: GET\n:scheme: https\n:authority: example.com:8080\n:path: /index.html\n" DEFAULTS,
                       &req, &len) &&
                req[2] == 0xd1 && req[3] == 0xd7 && contains(req, len, "51 88"),
            "wrong bytes");
    free(req);

    struct shb_header ct[] = { { "Content-Type", "application/json" } };
    uint8_t body[] = "{\"a\":1}";
    o = t_request_base();
    o.method = "POST";
    o.target = "/api?x=1&y=2";
    o.headers = ct;
    o.nheaders = 1;
    o.body = body;
    o.body_len = 7;
    o.has_body = true;
    T_CHECK("request: POST (d4) with a body: content-type indexed (ee), content-length 7 by name (54 01 37)",
            request_is(&o, ":method: POST\n:scheme: http\n:authority: example.com:8080\n:path: /api?x=1&y=2\n" DEFAULTS
                           "content-type: application/json\ncontent-length: 7\n",
                       &req, &len) &&
                req[2] == 0xd4 && contains(req, len, "ee 54 01 37") && req[len - 1] == 0x37,
            "wrong bytes");
    free(req);

    o = t_request_base();
    o.method = NULL;
    o.has_body = true; /* -d '' */
    T_CHECK("request: empty body: default method POST, content-length: 0 indexed (c4)",
            request_is(&o, ":method: POST\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS
                           "content-length: 0\n",
                       &req, &len) &&
                req[len - 1] == 0xc4,
            "wrong fields");
    free(req);

    struct shb_header cl[] = { { "Content-Length", "3" } };
    o = t_request_base();
    o.method = "PUT";
    o.headers = cl;
    o.nheaders = 1;
    o.body = body;
    o.body_len = 3;
    o.has_body = true;
    T_CHECK("request: PUT (d5, in QPACK's table) with the user's Content-Length only",
            request_is(&o, ":method: PUT\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS
                           "content-length: 3\n",
                       &req, &len) &&
                req[2] == 0xd5,
            "wrong bytes");
    free(req);

    o = t_request_base();
    o.method = "PATCH";
    T_CHECK("request: PATCH (not in the table: :method by name, 5f 00), content-length: 0 without a body",
            request_is(&o, ":method: PATCH\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS
                           "content-length: 0\n",
                       &req, &len) &&
                req[2] == 0x5f && req[3] == 0x00,
            "wrong bytes");
    free(req);

    static char longv[600];
    memset(longv, 'Z', sizeof longv - 1);
    struct shb_header mixed[] = { { "X-Custom-Header", "Mixed Case Value" }, { "User-Agent", "Bench/1.0" },
                                  { "Accept-Encoding", "gzip, deflate" },     { "COOKIE", "a=b" },
                                  { "X-LONG", longv },                        { "x-empty", "" },
                                  { "~~~~~~~~", "v" } };
    o = t_request_base();
    o.headers = mixed;
    o.nheaders = 7;
    char want_text[2048];
    snprintf(want_text, sizeof want_text,
             ":method: GET\n:scheme: http\n:authority: example.com:8080\n:path: /\naccept: */*\n"
             "x-custom-header: Mixed Case Value\nuser-agent: Bench/1.0\naccept-encoding: gzip, deflate\n"
             "cookie: a=b\nx-long: %s\nx-empty: \n~~~~~~~~: v\n",
             longv);
    T_CHECK("request: names lowercased; static names by reference (user-agent 5f50, accept-encoding 5f10, cookie "
            "55); literal names Huffman (2f ...) or raw with a 3-bit length continuation (27 01)",
            request_is(&o, want_text, &req, &len) && contains(req, len, "5f 50") && contains(req, len, "5f 10") &&
                contains(req, len, "55 03 613d62") && contains(req, len, "27 01 7e7e7e7e7e7e7e7e 01 76") &&
                contains(req, len, "7f d8 03"), /* the 599-octet raw value: 127 + 472 */
            "wrong fields or bytes");
    free(req);

    /* The rules that make the list are unit_request's; here both encoders
     * take the same list. */
    o = t_request_base();
    o.headers = mixed;
    o.nheaders = 7;
    size_t hn, n;
    uint8_t *h = hpack_encode_request(&o, &hn);
    struct shb_field *f = shb_request_fields(&o, SHB_FIELDS_H2, &n);
    T_CHECK("request: shb_request_fields gives 12 fields, names lowercased, shared with the HTTP/2 encoder",
            h && f && n == 12 && strcmp(f[5].name, "x-custom-header") == 0 && strcmp(f[11].name, "~~~~~~~~") == 0,
            "n=%zu", n);
    free(h);
    free(f);
}

/* ------------------------------------------------------ the :status scan */

#include "test/vectors/qpack_ref.h"

/* The static table's values all pass the field value rules. */
static void test_static_values(void)
{
    bool ok = true;
    for (unsigned i = 0; i < QPACK_STATIC_COUNT; i++) {
        const char *name, *value;
        qpack_static_entry(i, &name, &value);
        ok &= T_QUIET("static values", hpack_value_check((const uint8_t *)value, strlen(value), false) == 0,
                      "entry %u: \"%s\"", i, value);
    }
    T_CHECK("values: every static entry's value is a valid field value (indexed lines need no check)", ok, "see above");
}

static void test_status(void)
{
    uint16_t st;
    int rc;
    bool ok = true;
    for (unsigned i = 0; i < QPACK_STATIC_COUNT; i++) {
        const char *n, *v;
        qpack_static_entry(i, &n, &v);
        if (strcmp(n, ":status") != 0)
            continue;
        struct blk k = { 0 };
        b_hex(&k, "0000");
        b_indexed(&k, i);
        b_nameref(&k, 92, false, "srv", true);
        rc = status_bytes(k.b, k.n, &st);
        ok &= T_QUIET("status: static", rc == 0 && st == atoi(v), "index %u rc %d st %u", i, rc, (unsigned)st);
        b_free(&k);
    }
    T_CHECK("status: each of the 14 static :status entries, indexed, gives its value", ok, "see above");

    struct blk k = { 0 };
    b_hex(&k, "0000");
    b_nameref(&k, 25, false, "418", false);
    rc = status_bytes(k.b, k.n, &st);
    T_CHECK("status: name reference to :status 200 with the value 418 gives 418", rc == 0 && st == 418, "rc=%d st=%u",
            rc, (unsigned)st);
    b_free(&k);
    b_hex(&k, "0000");
    b_nameref(&k, 63, true, "299", true);
    rc = status_bytes(k.b, k.n, &st);
    T_CHECK("status: name reference to entry 63, Huffman value 299, N=1", rc == 0 && st == 299, "rc=%d st=%u", rc,
            (unsigned)st);
    b_free(&k);
    b_hex(&k, "0000");
    b_litname(&k, false, ":status", false, "204", false);
    b_litname(&k, false, "server", true, "x", false);
    rc = status_bytes(k.b, k.n, &st);
    T_CHECK("status: literal name :status (raw, 27 00) with value 204", rc == 0 && st == 204, "rc=%d st=%u", rc,
            (unsigned)st);
    b_free(&k);
    b_hex(&k, "0000");
    b_litname(&k, true, ":status", true, "302", true);
    rc = status_bytes(k.b, k.n, &st);
    T_CHECK("status: literal name :status Huffman (2d b8848d36a3) with Huffman value 302", rc == 0 && st == 302 &&
            contains(k.b, k.n, "3d b8848d36a3 82 6402"), "rc=%d st=%u", rc, (unsigned)st);
    b_free(&k);

    static const struct {
        const char *hex, *what;
        int rc;
        uint16_t st;
    } cases[] = {
        { "0000", "an empty section: QPACK_ERR_NO_STATUS", QPACK_ERR_NO_STATUS, 0 },
        { "0000 5f4d 0178 5f4d 0179", "regular fields only (a trailer section): QPACK_ERR_NO_STATUS",
          QPACK_ERR_NO_STATUS, 0 },
        { "0000 d9 d9", "two :status: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 0178 5f4d 0179", ":status 200 then regular fields: 200", 0, 200 },
        { "0000 5f4d 0178 d9", "a regular field, then :status: QPACK_ERR_STATUS (RFC 9114 §4.3)", QPACK_ERR_STATUS,
          0 },
        { "0000 d9 c1", ":status then :path (a request pseudo-header): QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 22 3a78 00", ":status then a literal pseudo-header :x: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 29 b9 00", ":status then a Huffman name \":\" (b9): QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 29 bf 00", ":status then a Huffman name D (bf): uppercase, malformed (RFC 9114 §4.2)",
          QPACK_ERR_STATUS, 0 },
        { "0000 d9 29 1f 00", ":status then a Huffman name 'x' (1f): a regular field", 0, 200 },
        { "0000 d9 21 58 00", ":status then a raw name X: uppercase, malformed", QPACK_ERR_STATUS, 0 },
        { "0000 d9 23 78 3a 79 00", ":status then a raw name x:y (a ':' not first): malformed", QPACK_ERR_STATUS, 0 },
        { "0000 d9 23 78 20 79 00", ":status then a raw name 'x y': malformed", QPACK_ERR_STATUS, 0 },
        { "0000 d9 29 ff 00", ":status then a Huffman name of 8 bits of padding: QPACK_ERR_HUFFMAN", QPACK_ERR_HUFFMAN,
          0 },
        { "0000 27 00 3a537461747573 03 323030", "literal name :Status (not :status): QPACK_ERR_STATUS",
          QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 03 303939", ":status 099: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 04 32303030", ":status 2000: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 02 3230", ":status 20: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 03 3261 30", ":status 2a0: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 00", "empty :status: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 03 393939", ":status 999 is three digits: 999", 0, 999 },
        { "0000 5f0a 82 6410", ":status with bad Huffman padding (30 + 10000): QPACK_ERR_HUFFMAN", QPACK_ERR_HUFFMAN, 0 },
        { "0000 5f0a 89 000000000000000003", "a 9-octet Huffman :status value (14 zeros): QPACK_ERR_STATUS",
          QPACK_ERR_STATUS, 0 },
        { "0000 5f0a 89 ffffffffffffffffff", "a 9-octet Huffman :status value holding EOS: QPACK_ERR_HUFFMAN",
          QPACK_ERR_HUFFMAN, 0 },
        { "0000 d9 d9 80", "two :status then a dynamic reference: the QPACK error wins (QPACK_ERR_DYNAMIC)",
          QPACK_ERR_DYNAMIC, 0 },
        { "0000 d9 5f4d 05 6162", ":status then a truncated value: QPACK_ERR_TRUNCATED", QPACK_ERR_TRUNCATED, 0 },
        { "0000 d9 5f4d 81 18", ":status then bad Huffman padding in a value shb skips: QPACK_ERR_HUFFMAN (RFC 9204 "
          "§4.1.2, RFC 7541 §5.2)", QPACK_ERR_HUFFMAN, 0 },
        { "0000 d9 ff24", ":status then static index 99: QPACK_ERR_INDEX", QPACK_ERR_INDEX, 0 },
        /* Field values (RFC 9114 §4.2, §10.3, with RFC 9113 §8.2.1's rule). */
        { "0000 d9 5f4d 03 610062", "a value with NUL: QPACK_ERR_STATUS (malformed)", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 03 610d62", "a value with CR: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 03 610a62", "a value with LF: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 02 2061", "a value with a leading SP: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 02 6109", "a value with a trailing HTAB: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 01 20", "a value of one SP: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 23 782d66 02 0d61", "a literal name's value with CR: QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 86 1fffffffb1ff", "a Huffman value \"a\\rb\": QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 85 1c7ffffd5f", "a Huffman value \"ab\\t\": QPACK_ERR_STATUS", QPACK_ERR_STATUS, 0 },
        { "0000 d9 5f4d 07 61202c0980ff62", "inner SP, comma, HTAB and obs-text 0x80-0xff: 200", 0, 200 },
        { "0000 d9 5f4d 00", "an empty value: 200", 0, 200 },
        { "0000 d9 5f4d 84 ffffffff", "EOS inside a value shb skips: QPACK_ERR_HUFFMAN", QPACK_ERR_HUFFMAN, 0 },
        { "0000 d9 5f4d 82 1fff", "8 bits of Huffman padding in a value shb skips: QPACK_ERR_HUFFMAN", QPACK_ERR_HUFFMAN,
          0 },
        { "0000 d9 5f4d 01 00 80", "a bad value, then a dynamic reference: the QPACK error wins", QPACK_ERR_DYNAMIC,
          0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        st = 7;
        rc = status_hex(cases[i].hex, &st);
        char name[200];
        snprintf(name, sizeof name, "status: %s", cases[i].what);
        T_CHECK(name, rc == cases[i].rc && st == cases[i].st, "rc=%d st=%u", rc, (unsigned)st);
    }
}

/* Generated sections: plausible field lines around :status, with now and
 * then a line or a prefix that is wrong, and sometimes a mutation. */
static const char *const gen_names[] = { ":status", ":path", ":", ":x", ":Status", "content-type", "x", "",
                                         "server", "status", "x-:status", ":statu", ":statuss" };
static const char *const gen_values[] = { "200", "404", "100", "103", "099", "20", "2000", "abc", "", "1a3",
                                          "999", "000", "301", "599", " 200", "200 " };

static void gen_value(char *v, size_t cap)
{
    if (t_rng_below(4) == 0) {
        size_t n = t_rng_below(cap < 12 ? cap : 12);
        for (size_t i = 0; i < n; i++)
            v[i] = (char)(t_rng_below(3) ? '0' + t_rng_below(10) : ' ' + t_rng_below(95));
        v[n] = '\0';
        return;
    }
    snprintf(v, cap, "%s", gen_values[t_rng_below(sizeof gen_values / sizeof gen_values[0])]);
}

static uint64_t gen_index(void)
{
    static const uint64_t pick[] = { 24, 25, 26, 27, 28, 63, 64, 65, 66, 67, 68, 69, 70, 71, 0, 1, 15, 17, 22, 23,
                                     92, 95, 4 };
    switch (t_rng_below(10)) {
    case 0: return t_rng_below(QPACK_STATIC_COUNT);
    case 1: return t_rng_below(50) == 0 ? QPACK_STATIC_COUNT + t_rng_below(40) : t_rng_below(QPACK_STATIC_COUNT);
    default: return pick[t_rng_below(sizeof pick / sizeof pick[0])];
    }
}

static void gen_section(struct blk *k)
{
    int r = (int)t_rng_below(100);
    if (r < 90)
        b_hex(k, "0000");
    else if (r < 95) { /* a Delta Base, small or up to 62 bits */
        b_hex(k, "00");
        b_int(k, 7, 0x00, t_rng_below(2) ? t_rng_below(300) : t_rng() >> 2);
    } else if (r < 97) {
        b_int(k, 8, 0x00, 1 + t_rng_below(300)); /* Required Insert Count */
        b_hex(k, "00");
    } else {
        b_hex(k, "00");
        b_int(k, 7, 0x80, t_rng_below(300)); /* Sign bit */
    }
    bool shaped = t_rng_below(3) == 0;
    if (shaped) { /* response-shaped: one :status, then regular fields (and maybe more below) */
        static const uint64_t st_idx[] = { 24, 25, 26, 27, 28, 63, 64, 65, 66, 67, 68, 69, 70, 71 };
        char v[8];
        snprintf(v, sizeof v, "%u", (unsigned)(100 + t_rng_below(900)));
        switch (t_rng_below(3)) {
        case 0: b_indexed(k, st_idx[t_rng_below(14)]); break;
        case 1: b_nameref(k, st_idx[t_rng_below(14)], t_rng_below(2), v, t_rng_below(2)); break;
        default: b_litname(k, t_rng_below(2), ":status", t_rng_below(2), v, t_rng_below(2)); break;
        }
        static const uint64_t reg_idx[] = { 2, 4, 6, 29, 31, 46, 53, 59, 92, 95, 98 };
        for (int i = (int)t_rng_below(5); i > 0; i--) {
            if (t_rng_below(2))
                b_indexed(k, reg_idx[t_rng_below(11)]);
            else
                b_nameref(k, reg_idx[t_rng_below(11)], t_rng_below(2), "some value", t_rng_below(2));
        }
    }
    int nlines = (int)t_rng_below(shaped ? 3 : 7);
    for (int i = 0; i < nlines; i++) {
        char v[32];
        gen_value(v, sizeof v);
        bool nbit = t_rng_below(4) == 0, vh = t_rng_below(2);
        int t = (int)t_rng_below(100);
        if (t < 35) {
            b_indexed(k, gen_index());
        } else if (t < 60) {
            b_nameref(k, gen_index(), nbit, v, vh);
        } else if (t < 90) {
            const char *name = gen_names[t_rng_below(sizeof gen_names / sizeof gen_names[0])];
            b_litname(k, nbit, name, t_rng_below(2), v, vh);
        } else if (t < 92) {
            b_int(k, 6, 0x80, t_rng_below(100)); /* indexed, dynamic */
        } else if (t < 93) {
            b_int(k, 4, 0x10, t_rng_below(100)); /* indexed post-Base */
        } else if (t < 94) {
            b_int(k, 3, nbit ? 0x08 : 0x00, t_rng_below(100)); /* post-Base name reference */
            b_str(k, 8, 0x00, v, strlen(v), vh);
        } else if (t < 95) {
            b_int(k, 4, 0x40, t_rng_below(100)); /* name reference, dynamic */
            b_str(k, 8, 0x00, v, strlen(v), vh);
        } else if (t < 98) { /* a Huffman value of random octets: often invalid */
            b_int(k, 4, 0x50, t_rng_below(2) ? 25 : 92);
            size_t n = 1 + t_rng_below(4);
            b_int(k, 7, 0x80, n);
            for (size_t j = 0; j < n; j++)
                b_byte(k, (uint8_t)t_rng());
        } else {
            b_byte(k, (uint8_t)t_rng());
        }
    }
    if (k->n && t_rng_below(10) == 0) {
        size_t at = t_rng_below(k->n);
        switch (t_rng_below(3)) {
        case 0: k->b[at] ^= (uint8_t)(1u << t_rng_below(8)); break;
        case 1: k->b[at] = (uint8_t)t_rng(); break;
        default: k->n = at; break;
        }
    }
}

struct diff_stats {
    int decoded, status_ok, status_bad, no_status, structural, huffman_only;
};

static bool known_rc(int rc)
{
    return rc <= QPACK_ERR_TRUNCATED && rc >= QPACK_ERR_TOO_LONG;
}

/* qpack_status against qpack_decode + the reference on one section. */
static bool diff_one(const uint8_t *b, size_t n, struct diff_stats *ds)
{
    uint8_t *copy = t_memdup(b, n);
    struct ref r = { false, false, 0 };
    int rd = qpack_decode(copy, n, scratch, sizeof scratch, ref_cb, &r);
    uint16_t st = 7;
    int rs = qpack_status(copy, n, &st);
    free(copy);
    bool ok;
    if (rd == 0) {
        uint16_t want_st;
        int want = ref_result(&r, &want_st);
        ok = T_QUIET("diff: decoded section", rs == want && st == want_st, "status %d/%u, reference %d/%u", rs,
                     (unsigned)st, want, (unsigned)want_st);
        ds->decoded++;
        ds->status_ok += want == 0;
        ds->status_bad += want == QPACK_ERR_STATUS;
        ds->no_status += want == QPACK_ERR_NO_STATUS;
    } else if (rd != QPACK_ERR_HUFFMAN) {
        /* No Huffman error before it, so the scan meets the same one. */
        ok = T_QUIET("diff: structural error", known_rc(rd) && rd != QPACK_ERR_TOO_LONG && rs == rd && st == 0,
                     "decode %d status %d/%u", rd, rs, (unsigned)st);
        ds->structural++;
    } else {
        ok = T_QUIET("diff: Huffman error", rs == 0 ? st >= 100 && st <= 999 : (rs < 0 && rs >= QPACK_ERR_NO_STATUS && st == 0),
                     "status %d/%u", rs, (unsigned)st);
        ds->huffman_only++;
    }
    return ok;
}

static void test_differential(void)
{
    struct diff_stats ds = { 0 };
    bool ok = true;
    for (int i = 0; i < 20000; i++) {
        struct blk k = { 0 };
        gen_section(&k);
        ok &= diff_one(k.b, k.n, &ds);
        b_free(&k);
    }
    T_CHECK("diff: 20000 generated sections: qpack_status agrees with qpack_decode + the :status rules wherever "
            "the decoder succeeds, and finds the same error wherever it fails but for Huffman",
            ok && ds.status_ok > 1000 && ds.status_bad > 1000 && ds.no_status > 500 && ds.structural > 1000 &&
                ds.huffman_only > 100,
            "see above");
    printf("  diff: %d decoded (%d with a status, %d malformed, %d without), %d structural errors, %d Huffman\n",
           ds.decoded, ds.status_ok, ds.status_bad, ds.no_status, ds.structural, ds.huffman_only);

    struct diff_stats dr = { 0 };
    ok = true;
    for (int i = 0; i < 20000; i++) {
        uint8_t b[64];
        size_t n = t_rng_below(sizeof b), start = 0;
        if (t_rng_below(4) && n >= 2) { /* a valid prefix, most of the time */
            b[0] = b[1] = 0;
            start = 2;
        }
        int style = (int)t_rng_below(3);
        for (size_t j = start; j < n; j++) {
            uint8_t v = (uint8_t)t_rng();
            if (style == 1) /* static lines only: 11xxxxxx, 01x1xxxx, 001xxxxx */
                v = (uint8_t)((uint8_t[]){ 0xc0 | (v & 0x3f), 0x50 | (v & 0x2f), 0x20 | (v & 0x1f) }[t_rng_below(3)]);
            if (style == 2)
                v &= (uint8_t)(t_rng_below(2) ? 0x07 : 0xff); /* short lengths */
            b[j] = v;
        }
        ok &= diff_one(b, n, &dr);
    }
    T_CHECK("diff: 20000 random byte strings: the same agreement, clean errors only", ok, "see above");
    printf("  diff random: %d decoded (%d with a status, %d malformed, %d without), %d structural, %d Huffman\n",
           dr.decoded, dr.status_ok, dr.status_bad, dr.no_status, dr.structural, dr.huffman_only);

    /* Encoder outputs are requests: their pseudo-headers make them
     * malformed responses, the scan and the decoder agree on that. */
    struct shb_request o = t_request_base();
    size_t len;
    uint8_t *req = qpack_encode_request(&o, &len);
    struct diff_stats de = { 0 };
    ok = diff_one(req, len, &de);
    uint16_t st;
    int rs = status_bytes(req, len, &st);
    T_CHECK("diff: a request's section as a response is QPACK_ERR_STATUS in both", ok && rs == QPACK_ERR_STATUS,
            "rs=%d", rs);
    free(req);
}

/* ------------------------------------------------------ encoder stream */

/* What feeding an encoder stream whole gave: every other way must give it. */
struct enc_feed {
    int rc;
    uint64_t capacity0;
};

/* The pieces, each an exact-size copy, fed on whether or not one failed:
 * the first error, the error that stays and the count as fed whole. */
static bool enc_same(void *ctx, const uint8_t *b, const struct feed_way *w)
{
    const struct enc_feed *c = ctx;
    struct qpack_encoder_stream s;
    qpack_encoder_stream_init(&s);
    int first = 0;
    for (size_t i = 0, at; i <= w->ncuts; i++) {
        size_t len = feed_piece(w, i, &at);
        uint8_t *piece = t_memdup(b + at, len);
        int r = qpack_encoder_stream_feed(&s, piece, len);
        free(piece);
        if (r && !first)
            first = r;
    }
    return first == c->rc && s.err == c->rc && s.capacity0 == c->capacity0;
}

/* Feeds b whole, then every other way (feed.h); returns the whole feed's
 * result with its count of Set Dynamic Table Capacity 0 in *count, or
 * -100 when a way disagrees. */
static int enc_feed_all_ways(const char *hex, uint64_t *count)
{
    uint8_t b[128];
    size_t n = unhex(hex, b, sizeof b);
    struct qpack_encoder_stream w;
    qpack_encoder_stream_init(&w);
    uint8_t *copy = t_memdup(b, n);
    struct enc_feed c = { qpack_encoder_stream_feed(&w, copy, n), w.capacity0 };
    free(copy);
    if (feed_splits(b, n, enc_same, &c, NULL) != 0)
        return -100;
    *count = w.capacity0;
    return c.rc;
}

static void test_encoder_stream(void)
{
    uint64_t c = 99;
    int rc = enc_feed_all_ways("", &c);
    T_CHECK("encoder stream: nothing yet is fine", rc == 0 && c == 0, "rc=%d", rc);
    rc = enc_feed_all_ways("20", &c);
    T_CHECK("encoder stream: Set Dynamic Table Capacity 0 (20) is accepted", rc == 0 && c == 1, "rc=%d", rc);
    rc = enc_feed_all_ways("20 20 20 20", &c);
    T_CHECK("encoder stream: four of them, whole, byte by byte, split anywhere", rc == 0 && c == 4, "rc=%d c=%llu",
            rc, (unsigned long long)c);
    rc = enc_feed_all_ways("20 21", &c);
    T_CHECK("encoder stream: capacity 1 after capacity 0 is QPACK_ERR_ENCODER_STREAM (§4.3.1)",
            rc == QPACK_ERR_ENCODER_STREAM && c == 1, "rc=%d", rc);
    rc = enc_feed_all_ways("3f 00", &c);
    T_CHECK("encoder stream: capacity 31 (3f 00) is refused at its first octet", rc == QPACK_ERR_ENCODER_STREAM,
            "rc=%d", rc);
    rc = enc_feed_all_ways("3f e1 1f", &c);
    T_CHECK("encoder stream: capacity 4096 is refused", rc == QPACK_ERR_ENCODER_STREAM, "rc=%d", rc);
    rc = enc_feed_all_ways("c0 01 61", &c);
    T_CHECK("encoder stream: Insert with static Name Reference is refused (§3.2.2: no entry fits capacity 0)",
            rc == QPACK_ERR_ENCODER_STREAM, "rc=%d", rc);
    rc = enc_feed_all_ways("20 41 61 01 62", &c);
    T_CHECK("encoder stream: Insert with Literal Name after capacity 0 is refused", rc == QPACK_ERR_ENCODER_STREAM && c == 1,
            "rc=%d", rc);
    rc = enc_feed_all_ways("00", &c);
    T_CHECK("encoder stream: Duplicate of relative index 0 is refused (§2.2.3)", rc == QPACK_ERR_ENCODER_STREAM,
            "rc=%d", rc);

    struct qpack_encoder_stream s;
    qpack_encoder_stream_init(&s);
    int r1 = qpack_encoder_stream_feed(&s, (const uint8_t *)"\x80", 1);
    int r2 = qpack_encoder_stream_feed(&s, (const uint8_t *)"\x20", 1);
    int r3 = qpack_encoder_stream_feed(&s, NULL, 0);
    T_CHECK("encoder stream: the error is sticky (later valid bytes and empty feeds return it again)",
            r1 == QPACK_ERR_ENCODER_STREAM && r2 == r1 && r3 == r1 && s.capacity0 == 0, "r=%d %d %d", r1, r2, r3);
}

static void test_error_codes(void)
{
    bool ok = qpack_error_code(QPACK_ERR_TRUNCATED) == 0x0200 && qpack_error_code(QPACK_ERR_INTEGER) == 0x0200 &&
              qpack_error_code(QPACK_ERR_HUFFMAN) == 0x0200 && qpack_error_code(QPACK_ERR_INDEX) == 0x0200 &&
              qpack_error_code(QPACK_ERR_DYNAMIC) == 0x0200 && qpack_error_code(QPACK_ERR_BASE) == 0x0200 &&
              qpack_error_code(QPACK_ERR_TOO_LONG) == 0x0200 &&
              qpack_error_code(QPACK_ERR_ENCODER_STREAM) == 0x0201 && qpack_error_code(QPACK_ERR_STATUS) == 0 &&
              qpack_error_code(QPACK_ERR_NO_STATUS) == 0 && qpack_error_code(0) == 0 && qpack_error_code(42) == 0;
    T_CHECK("errors: decoding failures map to QPACK_DECOMPRESSION_FAILED 0x0200, the encoder stream's to "
            "QPACK_ENCODER_STREAM_ERROR 0x0201, malformed responses to 0 (not QPACK's)",
            ok && QPACK_DECOMPRESSION_FAILED == 0x0200 && QPACK_ENCODER_STREAM_ERROR == 0x0201 &&
                QPACK_DECODER_STREAM_ERROR == 0x0202,
            "mapping");
}

int main(void)
{
    t_rng_seed(0x2545f4914f6cdd1dull);
    test_static();
    test_appendix_b();
    test_prefix_and_integers();
    test_representations();
    test_truncation();
    test_request();
    test_status();
    test_static_values();
    test_differential();
    test_encoder_stream();
    test_error_codes();
    T_DONE();
}
