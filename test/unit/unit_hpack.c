/* test/unit/unit_hpack.c — HPACK: integers, Huffman, the RFC 7541 Appendix C
 * examples, the dynamic table against a reference model, the :status
 * scanner under every way of splitting a block, the request block, and a
 * robustness loop over random and mutated blocks.
 *
 * Every fragment fed to the scanner is an exact-size heap copy, so under ASan
 * a read past what a feed delivered is caught. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpack.h"
#include "request_base.h"
#include "feed.h"
#include "t.h"
#include "test/unit/fields.h"

/* The scanner's error for a malformed or repeated :status (hpack.c). */
#define SCAN_STATUS_ERR HPACK_ERR_STATUS

/* ------------------------------------------------------------ helpers */

static void b_int(struct blk *k, unsigned prefix, uint8_t first, uint64_t v)
{
    uint8_t tmp[16];
    size_t n = hpack_int_encode(tmp, sizeof tmp, prefix, first, v);
    b_bytes(k, tmp, n);
}

/* A string literal (§5.2), raw or Huffman-coded. */
static void b_str(struct blk *k, const void *s, size_t n, bool huff)
{
    if (!huff) {
        b_int(k, 7, 0x00, n);
        b_bytes(k, s, n);
        return;
    }
    size_t hn = hpack_huffman_encoded_len(s, n);
    b_int(k, 7, 0x80, hn);
    b_need(k, hn);
    hpack_huffman_encode(s, n, k->b + k->n);
    k->n += hn;
}

/* A literal field: kind 0x40 (incremental), 0x00 (without), 0x10 (never);
 * name_index 0: literal name. */
static void b_lit(struct blk *k, uint8_t kind, unsigned name_index, const char *name, bool nhuff,
                  const void *value, size_t vlen, bool vhuff)
{
    b_int(k, kind == 0x40 ? 6 : 4, kind, name_index);
    if (!name_index)
        b_str(k, name, strlen(name), nhuff);
    b_str(k, value, vlen, vhuff);
}

static uint8_t scratch[65536];

/* Decodes hex into l (cleared first). */
static int decode_hex(struct hpack_decoder *d, const char *hex, struct list *l)
{
    uint8_t buf[512];
    size_t n = unhex(hex, buf, sizeof buf);
    l->len = 0;
    l->n = 0;
    l->text[0] = '\0';
    return hpack_decode(d, buf, n, scratch, sizeof scratch, collect, l);
}

/* The dynamic table as text, newest first, via indexed-field lookups. */
static bool table_text(struct hpack_decoder *d, struct list *l)
{
    l->len = 0;
    l->n = 0;
    l->text[0] = '\0';
    for (uint32_t i = 1; i <= d->count; i++) {
        uint8_t b[8];
        size_t n = hpack_int_encode(b, sizeof b, 7, 0x80, HPACK_STATIC_COUNT + i);
        if (hpack_decode(d, b, n, scratch, sizeof scratch, collect, l) != 0)
            return false;
    }
    /* One past the end is an index error. */
    uint8_t b[8];
    size_t n = hpack_int_encode(b, sizeof b, 7, 0x80, HPACK_STATIC_COUNT + d->count + 1);
    struct list *junk = list_new();
    bool ok = hpack_decode(d, b, n, scratch, sizeof scratch, collect, junk) == HPACK_ERR_INDEX;
    free(junk);
    return ok;
}

/* ------------------------------------------------------------ integers */

static bool int_round_trip(unsigned prefix, uint64_t v)
{
    uint8_t b[16];
    size_t n = hpack_int_encode(b, sizeof b, prefix, 0x00, v);
    const uint8_t *p = b;
    uint64_t got = ~(uint64_t)0;
    int rc = hpack_int_decode(&p, b + n, prefix, &got);
    return n > 0 && rc == 0 && got == v && p == b + n;
}

static int int_decode_hex(const char *hex, unsigned prefix, uint64_t *v, size_t *used)
{
    uint8_t b[32];
    size_t n = unhex(hex, b, sizeof b);
    const uint8_t *p = b;
    int rc = hpack_int_decode(&p, b + n, prefix, v);
    *used = (size_t)(p - b);
    return rc;
}

static void test_integers(void)
{
    uint8_t b[16];
    size_t n = hpack_int_encode(b, sizeof b, 5, 0xe0, 10);
    T_CHECK("int: C.1.1 10 with a 5-bit prefix is one octet 01010 (prefix bits kept)",
            n == 1 && b[0] == 0xea, "n=%zu b0=%02x", n, b[0]);
    n = hpack_int_encode(b, sizeof b, 5, 0x00, 1337);
    T_CHECK("int: C.1.2 1337 with a 5-bit prefix is 1f 9a 0a",
            n == 3 && b[0] == 0x1f && b[1] == 0x9a && b[2] == 0x0a, "n=%zu", n);
    n = hpack_int_encode(b, sizeof b, 8, 0x00, 42);
    T_CHECK("int: C.1.3 42 at an octet boundary is 2a", n == 1 && b[0] == 0x2a, "n=%zu", n);

    uint64_t v;
    size_t used;
    int rc = int_decode_hex("ea", 5, &v, &used);
    T_CHECK("int: C.1.1 decodes (prefix bits above N ignored)", rc == 0 && v == 10 && used == 1, "rc=%d", rc);
    rc = int_decode_hex("1f9a0a", 5, &v, &used);
    T_CHECK("int: C.1.2 decodes to 1337, 3 octets", rc == 0 && v == 1337 && used == 3, "rc=%d v=%llu", rc,
            (unsigned long long)v);
    rc = int_decode_hex("2a", 8, &v, &used);
    T_CHECK("int: C.1.3 decodes to 42", rc == 0 && v == 42 && used == 1, "rc=%d", rc);

    bool ok = true;
    for (unsigned prefix = 1; prefix <= 8; prefix++) {
        uint64_t m = ((uint64_t)1 << prefix) - 1;
        const uint64_t vals[] = { 0,       1,       m - 1,         m,           m + 1,      m + 126,
                                  m + 127, m + 128, m + 16383,     m + 16384,   1337,       65535,
                                  65536,   1u << 28, UINT32_MAX - 1, UINT32_MAX };
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
            ok &= T_QUIET("int: round trip", int_round_trip(prefix, vals[i]), "prefix %u value %llu", prefix,
                          (unsigned long long)vals[i]);
    }
    T_CHECK("int: round trips at 2^N-2, 2^N-1, 2^N, 127/128 continuation edges, 2^32-1, prefixes 1..8", ok,
            "see above");

    n = hpack_int_encode(b, sizeof b, 7, 0x80, 127);
    T_CHECK("int: 127 with a 7-bit prefix is ff 00", n == 2 && b[0] == 0xff && b[1] == 0x00, "n=%zu", n);
    n = hpack_int_encode(b, sizeof b, 8, 0, UINT32_MAX);
    T_CHECK("int: 2^32-1 with an 8-bit prefix takes 6 octets", n == 6, "n=%zu", n);
    n = hpack_int_encode(b, sizeof b, 1, 0, UINT64_MAX);
    T_CHECK("int: 2^64-1 encodes (11 octets)", n == 11, "n=%zu", n);
    n = hpack_int_encode(b, 2, 5, 0, 1337);
    T_CHECK("int: encode into too small a buffer returns 0", n == 0, "n=%zu", n);
    n = hpack_int_encode(b, sizeof b, 0, 0, 1);
    size_t n9 = hpack_int_encode(b, sizeof b, 9, 0, 1);
    const uint8_t one = 1, *q = &one;
    int rc0 = hpack_int_decode(&q, &one + 1, 0, &v), rc9 = hpack_int_decode(&q, &one + 1, 9, &v);
    T_CHECK("int: prefixes 0 and 9 refused", n == 0 && n9 == 0 && rc0 == HPACK_ERR_INTEGER &&
            rc9 == HPACK_ERR_INTEGER && q == &one, "n=%zu", n);

    /* Overflow and over-long encodings (§5.1: implementation limits). */
    n = hpack_int_encode(b, sizeof b, 5, 0, (uint64_t)UINT32_MAX + 1);
    const uint8_t *p = b;
    rc = hpack_int_decode(&p, b + n, 5, &v);
    T_CHECK("int: 2^32 is HPACK_ERR_INTEGER", rc == HPACK_ERR_INTEGER, "rc=%d", rc);
    n = hpack_int_encode(b, sizeof b, 1, 0, UINT64_MAX);
    p = b;
    rc = hpack_int_decode(&p, b + n, 1, &v);
    T_CHECK("int: 2^64-1 is HPACK_ERR_INTEGER", rc == HPACK_ERR_INTEGER, "rc=%d", rc);
    rc = int_decode_hex("1f 80 80 80 80 00", 5, &v, &used);
    T_CHECK("int: five continuation octets (zero padded) still decode", rc == 0 && v == 31 && used == 6,
            "rc=%d v=%llu", rc, (unsigned long long)v);
    rc = int_decode_hex("1f 80 80 80 80 80 00", 5, &v, &used);
    T_CHECK("int: a sixth continuation octet is HPACK_ERR_INTEGER", rc == HPACK_ERR_INTEGER, "rc=%d", rc);
    rc = int_decode_hex("ff ff ff ff ff 7f", 8, &v, &used);
    T_CHECK("int: 35-bit value is HPACK_ERR_INTEGER", rc == HPACK_ERR_INTEGER, "rc=%d", rc);

    rc = int_decode_hex("", 5, &v, &used);
    T_CHECK("int: empty input is HPACK_ERR_TRUNCATED", rc == HPACK_ERR_TRUNCATED, "rc=%d", rc);
    rc = int_decode_hex("1f", 5, &v, &used);
    T_CHECK("int: prefix all ones, nothing after: truncated", rc == HPACK_ERR_TRUNCATED && used == 0, "rc=%d",
            rc);
    rc = int_decode_hex("1f 9a", 5, &v, &used);
    T_CHECK("int: continuation bit set on the last octet: truncated", rc == HPACK_ERR_TRUNCATED && used == 0,
            "rc=%d", rc);
}

/* ------------------------------------------------------------- Huffman */

struct huff_example {
    const char *text, *hex;
};

/* The Huffman strings of C.4 and C.6. */
static const struct huff_example huff_examples[] = {
    { "www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff" },
    { "no-cache", "a8eb 1064 9cbf" },
    { "custom-key", "25a8 49e9 5ba9 7d7f" },
    { "custom-value", "25a8 49e9 5bb8 e8b4 bf" },
    { "302", "6402" },
    { "307", "640e ff" },
    { "private", "aec3 771a 4b" },
    { "Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff" },
    { "Mon, 21 Oct 2013 20:13:22 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff" },
    { "https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3" },
    { "gzip", "9bd9 ab" },
    { "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
      "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 "
      "b106 3d50 07" },
    { ":status", "b884 8d36 a3" }, /* the scanner's constant */
};

static long huff_decode_hex(const char *hex, uint8_t *out, size_t cap)
{
    uint8_t in[64];
    size_t n = unhex(hex, in, sizeof in);
    uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees over-reads */
    memcpy(copy, in, n);
    long r = hpack_huffman_decode(copy, n, out, cap);
    free(copy);
    return r;
}

static bool huff_round_trip(const uint8_t *s, size_t n)
{
    size_t hn = hpack_huffman_encoded_len(s, n);
    uint8_t *enc = malloc(hn ? hn : 1);
    uint8_t *dec = malloc(n ? n : 1);
    size_t w = hpack_huffman_encode(s, n, enc);
    long r = hpack_huffman_decode(enc, w, dec, n);
    bool ok = w == hn && r == (long)n && (n == 0 || memcmp(dec, s, n) == 0);
    free(enc);
    free(dec);
    return ok;
}

static void test_huffman(void)
{
    bool ok = true;
    for (size_t i = 0; i < sizeof huff_examples / sizeof huff_examples[0]; i++) {
        const struct huff_example *e = &huff_examples[i];
        uint8_t want[64], got[64], dec[128];
        size_t wn = unhex(e->hex, want, sizeof want);
        size_t tn = strlen(e->text);
        size_t hn = hpack_huffman_encoded_len((const uint8_t *)e->text, tn);
        size_t gn = hpack_huffman_encode((const uint8_t *)e->text, tn, got);
        ok &= T_QUIET("huffman: RFC example encodes", hn == wn && gn == wn && memcmp(got, want, wn) == 0, "%s",
                      e->text);
        long dn = huff_decode_hex(e->hex, dec, sizeof dec);
        ok &= T_QUIET("huffman: RFC example decodes", dn == (long)tn && memcmp(dec, e->text, tn) == 0, "%s: %ld",
                      e->text, dn);
    }
    T_CHECK("huffman: every C.4/C.6 string (and \":status\") encodes and decodes as the RFC shows", ok,
            "see above");

    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    T_CHECK("huffman: all 256 octet values in one string round-trip", huff_round_trip(all, 256), "mismatch");
    ok = true;
    for (int i = 0; i < 256; i++) {
        ok &= T_QUIET("huffman: single octet", huff_round_trip(all + i, 1), "octet %d", i);
        uint8_t two[2] = { (uint8_t)i, (uint8_t)(255 - i) };
        ok &= T_QUIET("huffman: pair", huff_round_trip(two, 2), "octet %d", i);
    }
    T_CHECK("huffman: each octet alone and in pairs round-trips", ok, "see above");
    ok = true;
    for (int i = 0; i < 2000; i++) {
        uint8_t s[300];
        size_t n = t_rng_below(sizeof s + 1);
        bool ascii = t_rng() & 1;
        for (size_t j = 0; j < n; j++)
            s[j] = ascii ? (uint8_t)(' ' + t_rng_below(95)) : (uint8_t)t_rng();
        ok &= T_QUIET("huffman: random round trip", huff_round_trip(s, n), "iteration %d", i);
    }
    T_CHECK("huffman: 2000 random strings round-trip", ok, "see above");
    T_CHECK("huffman: empty string", huff_round_trip(all, 0) && hpack_huffman_encoded_len(all, 0) == 0, "bad");

    uint8_t out[64];
    long r = huff_decode_hex("1f", out, sizeof out); /* 'a' 00011 + 111 */
    T_CHECK("huffman: 3 bits of all-ones padding ok", r == 1 && out[0] == 'a', "r=%ld", r);
    r = huff_decode_hex("1f ff", out, sizeof out);
    T_CHECK("huffman: 11 bits of padding is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("ff", out, sizeof out);
    T_CHECK("huffman: a whole octet of padding is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("18", out, sizeof out); /* 'a' + 000 */
    T_CHECK("huffman: padding not all ones is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("1d", out, sizeof out); /* 'a' + 101 */
    T_CHECK("huffman: padding with a zero bit is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("ffff fffc", out, sizeof out); /* EOS (30 ones) + 00 */
    T_CHECK("huffman: EOS in the string is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("ffff ffff", out, sizeof out); /* EOS + 11 */
    T_CHECK("huffman: EOS then padding is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("1fff ffff ff", out, sizeof out); /* 'a', then EOS, then pad */
    T_CHECK("huffman: EOS after a symbol is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("fe", out, sizeof out); /* first octet of a 10+ bit code */
    T_CHECK("huffman: a code cut short is an error", r == HPACK_ERR_HUFFMAN, "r=%ld", r);
    r = huff_decode_hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff", out, 14);
    T_CHECK("huffman: output one short is HPACK_ERR_TOO_LONG", r == HPACK_ERR_TOO_LONG, "r=%ld", r);
    r = huff_decode_hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff", out, 15);
    T_CHECK("huffman: output exactly the size decodes", r == 15 && memcmp(out, "www.example.com", 15) == 0,
            "r=%ld", r);
    r = hpack_huffman_decode((const uint8_t *)"\x1f", 1, NULL, 0);
    T_CHECK("huffman: no output space at all is HPACK_ERR_TOO_LONG", r == HPACK_ERR_TOO_LONG, "r=%ld", r);
}

static void test_static(void)
{
    const char *n = NULL, *v = NULL;
    bool ok = hpack_static_entry(1, &n, &v) && strcmp(n, ":authority") == 0 && strcmp(v, "") == 0;
    ok &= hpack_static_entry(16, &n, &v) && strcmp(n, "accept-encoding") == 0 && strcmp(v, "gzip, deflate") == 0;
    ok &= hpack_static_entry(8, &n, &v) && strcmp(n, ":status") == 0 && strcmp(v, "200") == 0;
    ok &= hpack_static_entry(14, &n, &v) && strcmp(v, "500") == 0;
    ok &= hpack_static_entry(61, &n, &v) && strcmp(n, "www-authenticate") == 0;
    ok &= !hpack_static_entry(0, &n, &v) && !hpack_static_entry(62, &n, &v);
    T_CHECK("static: Appendix A entries 1, 8, 14, 16, 61; 0 and 62 refused", ok, "mismatch");
}

/* ----------------------------------------------------- Appendix C examples */

static void check_c2(const char *name, const char *hex, const char *want_fields, const char *want_table,
                     uint32_t want_size)
{
    struct hpack_decoder d;
    hpack_decoder_init(&d, 4096);
    struct list *l = list_new(), *t = list_new();
    int rc = decode_hex(&d, hex, l);
    bool tab = table_text(&d, t);
    T_CHECK(name,
            rc == 0 && strcmp(l->text, want_fields) == 0 && tab && strcmp(t->text, want_table) == 0 &&
                d.size == want_size,
            "rc=%d fields=[%s] table=[%s] size=%u", rc, l->text, t->text, (unsigned)d.size);
    free(l);
    free(t);
}

static void test_c2(void)
{
    check_c2("C.2.1 literal with indexing: custom-key: custom-header, table size 55",
             "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", "custom-key: custom-header\n",
             "custom-key: custom-header\n", 55);
    check_c2("C.2.2 literal without indexing: :path: /sample/path, table empty",
             "040c 2f73 616d 706c 652f 7061 7468", ":path: /sample/path\n", "", 0);
    check_c2("C.2.3 literal never indexed: password: secret, table empty",
             "1008 7061 7373 776f 7264 0673 6563 7265 74", "password: secret\n", "", 0);
    check_c2("C.2.4 indexed: :method: GET, table empty", "82", ":method: GET\n", "", 0);
}

struct c_step {
    const char *hex, *fields, *table;
    uint32_t size;
};

static void check_sequence(const char *name, uint32_t limit, const struct c_step *steps, int nsteps)
{
    struct hpack_decoder d;
    hpack_decoder_init(&d, limit);
    struct list *l = list_new(), *t = list_new();
    for (int i = 0; i < nsteps; i++) {
        char label[96];
        snprintf(label, sizeof label, "%s.%d: fields, dynamic table and its size", name, i + 1);
        int rc = decode_hex(&d, steps[i].hex, l);
        bool tab = table_text(&d, t);
        T_CHECK(label,
                rc == 0 && strcmp(l->text, steps[i].fields) == 0 && tab && strcmp(t->text, steps[i].table) == 0 &&
                    d.size == steps[i].size,
                "rc=%d\nfields=[%s]\ntable=[%s]\nsize=%u", rc, l->text, t->text, (unsigned)d.size);
    }
    free(l);
    free(t);
}

#define REQ1 ":method: GET\n:scheme: http\n:path: /\n:authority: www.example.com\n"
#define REQ2 REQ1 "cache-control: no-cache\n"
#define REQ3 ":method: GET\n:scheme: https\n:path: /index.html\n:authority: www.example.com\ncustom-key: custom-value\n"
#define TAB1 ":authority: www.example.com\n"
#define TAB2 "cache-control: no-cache\n" TAB1
#define TAB3 "custom-key: custom-value\n" TAB2

static const struct c_step c3[] = {
    { "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d", REQ1, TAB1, 57 },
    { "8286 84be 5808 6e6f 2d63 6163 6865", REQ2, TAB2, 110 },
    { "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65", REQ3, TAB3, 164 },
};

static const struct c_step c4[] = {
    { "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff", REQ1, TAB1, 57 },
    { "8286 84be 5886 a8eb 1064 9cbf", REQ2, TAB2, 110 },
    { "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf", REQ3, TAB3, 164 },
};

#define DATE1 "date: Mon, 21 Oct 2013 20:13:21 GMT\n"
#define DATE2 "date: Mon, 21 Oct 2013 20:13:22 GMT\n"
#define LOC "location: https://www.example.com\n"
#define CC "cache-control: private\n"
#define COOKIE "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1\n"
#define RESP1 ":status: 302\n" CC DATE1 LOC
#define RESP2 ":status: 307\n" CC DATE1 LOC
#define RESP3 ":status: 200\n" CC DATE2 LOC "content-encoding: gzip\n" COOKIE
#define RTAB1 LOC DATE1 CC ":status: 302\n"
#define RTAB2 ":status: 307\n" LOC DATE1 CC
#define RTAB3 COOKIE "content-encoding: gzip\n" DATE2

static const char c51_hex[] = "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133"
                              "2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70"
                              "6c65 2e63 6f6d";
static const char c52_hex[] = "4803 3330 37c1 c0bf";
static const char c53_hex[] = "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d"
                              "54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049"
                              "5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e"
                              "3d31";
static const char c61_hex[] = "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6"
                              "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3";
static const char c62_hex[] = "4883 640e ffc1 c0bf";
static const char c63_hex[] = "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab"
                              "77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f"
                              "9587 3160 65c0 03ed 4ee5 b106 3d50 07";

static const struct c_step c5[] = {
    { c51_hex, RESP1, RTAB1, 222 },
    { c52_hex, RESP2, RTAB2, 222 },
    { c53_hex, RESP3, RTAB3, 215 },
};

static const struct c_step c6[] = {
    { c61_hex, RESP1, RTAB1, 222 },
    { c62_hex, RESP2, RTAB2, 222 },
    { c63_hex, RESP3, RTAB3, 215 },
};

static void test_appendix_c(void)
{
    test_c2();
    check_sequence("C.3 requests without Huffman", 4096, c3, 3);
    check_sequence("C.4 requests with Huffman", 4096, c4, 3);
    check_sequence("C.5 responses without Huffman, table 256", 256, c5, 3);
    check_sequence("C.6 responses with Huffman, table 256", 256, c6, 3);
}

/* ------------------------------------------------------- decoder edges */

static int abort_cb(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    (void)ctx, (void)name, (void)nlen, (void)value, (void)vlen;
    return 42;
}

static int decode_blk(struct hpack_decoder *d, const struct blk *k, struct list *l)
{
    l->len = 0;
    l->n = 0;
    l->text[0] = '\0';
    uint8_t *copy = malloc(k->n ? k->n : 1);
    memcpy(copy, k->b, k->n);
    int rc = hpack_decode(d, copy, k->n, scratch, sizeof scratch, collect, l);
    free(copy);
    return rc;
}

static void test_decoder_edges(void)
{
    struct hpack_decoder d;
    struct list *l = list_new(), *t = list_new();
    int rc;

    hpack_decoder_init(&d, 4096);
    decode_hex(&d, c3[0].hex, l);
    rc = decode_hex(&d, "20", l);
    T_CHECK("table: size update to 0 empties it", rc == 0 && d.count == 0 && d.size == 0 && d.capacity == 0,
            "rc=%d count=%u", rc, (unsigned)d.count);
    rc = decode_hex(&d, "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572", l);
    T_CHECK("table: with capacity 0 an indexed literal inserts nothing",
            rc == 0 && d.count == 0 && strcmp(l->text, "custom-key: custom-header\n") == 0, "rc=%d", rc);
    rc = decode_hex(&d, "20 3fe1 1f 82", l); /* 0, then 4096, then a field */
    T_CHECK("table: two size updates at the start of a block, back to 4096",
            rc == 0 && d.capacity == 4096 && strcmp(l->text, ":method: GET\n") == 0, "rc=%d cap=%u", rc,
            (unsigned)d.capacity);
    rc = decode_hex(&d, "3fe2 1f", l); /* 4097 */
    T_CHECK("table: size update above the limit (4097 > 4096) is HPACK_ERR_TABLE_SIZE",
            rc == HPACK_ERR_TABLE_SIZE, "rc=%d", rc);
    rc = decode_hex(&d, "82 20", l);
    T_CHECK("table: size update after a field is HPACK_ERR_TABLE_SIZE (§4.2)", rc == HPACK_ERR_TABLE_SIZE,
            "rc=%d", rc);

    hpack_decoder_init(&d, 256);
    rc = decode_hex(&d, "3fe1 01", l); /* 256 */
    T_CHECK("table: size update to exactly the limit (256)", rc == 0 && d.capacity == 256, "rc=%d", rc);
    rc = decode_hex(&d, "3fe2 01", l); /* 257 */
    T_CHECK("table: size update to limit+1 (257) refused", rc == HPACK_ERR_TABLE_SIZE, "rc=%d", rc);
    decode_hex(&d, c51_hex, l);
    rc = decode_hex(&d, "3f 5b", l); /* 31 + 91 = 122 */
    T_CHECK("table: shrinking to 122 evicts the oldest entries (§4.3)",
            rc == 0 && d.count == 1 && d.size == 63 && table_text(&d, t) && strcmp(t->text, LOC) == 0,
            "rc=%d count=%u size=%u", rc, (unsigned)d.count, (unsigned)d.size);

    /* §4.4: an entry larger than the capacity empties the table. */
    hpack_decoder_init(&d, 256);
    decode_hex(&d, c51_hex, l);
    struct blk k = { 0 };
    char big[300];
    memset(big, 'v', sizeof big);
    b_lit(&k, 0x40, 0, "x", false, big, 224, false); /* 1 + 224 + 32 = 257 */
    rc = decode_blk(&d, &k, l);
    T_CHECK("table: an entry one byte over capacity empties the table, field still delivered",
            rc == 0 && d.count == 0 && d.size == 0 && l->n == 1 && l->len == 1 + 2 + 224 + 1, "rc=%d count=%u",
            rc, (unsigned)d.count);
    b_free(&k);
    b_lit(&k, 0x40, 0, "x", false, big, 223, false); /* exactly 256 */
    rc = decode_blk(&d, &k, l);
    T_CHECK("table: an entry of exactly the capacity is kept", rc == 0 && d.count == 1 && d.size == 256,
            "rc=%d count=%u size=%u", rc, (unsigned)d.count, (unsigned)d.size);
    b_free(&k);

    /* §4.4: the new entry's name is the name of the entry it evicts. */
    hpack_decoder_init(&d, 256);
    b_lit(&k, 0x40, 0, "the-name-of-an-old-entry", false, big, 150, false); /* 24+150+32 = 206 */
    decode_blk(&d, &k, l);
    b_free(&k);
    b_lit(&k, 0x40, 62, NULL, false, "new", 3, false); /* 24+3+32 = 59: evicts the source */
    rc = decode_blk(&d, &k, l);
    bool tab = table_text(&d, t);
    T_CHECK("table: name taken from the entry that the insert evicts (§4.4)",
            rc == 0 && d.count == 1 && d.size == 59 && tab &&
                strcmp(t->text, "the-name-of-an-old-entry: new\n") == 0,
            "rc=%d table=[%s]", rc, t->text);
    b_free(&k);

    /* The same, where the insert also has to compact the arena, with the
     * source name in the part that is evicted (arena rotation). */
    hpack_decoder_init(&d, 4096);
    char aname[1000], bname[10];
    for (size_t i = 0; i < sizeof aname; i++)
        aname[i] = (char)('a' + i % 26);
    memset(bname, 'b', sizeof bname);
    struct blk name_a = { 0 };
    b_bytes(&name_a, aname, sizeof aname);
    b_byte(&name_a, 0);
    b_lit(&k, 0x40, 0, (const char *)name_a.b, false, big, 300, false);
    b_lit(&k, 0x40, 0, "", false, big, 200, false); /* filler */
    rc = decode_blk(&d, &k, l);
    b_free(&k);
    char bstr[11];
    memcpy(bstr, bname, 10);
    bstr[10] = 0;
    char v900[900], v2000[2000];
    memset(v900, '9', sizeof v900);
    memset(v2000, '2', sizeof v2000);
    b_lit(&k, 0x40, 0, bstr, false, v900, sizeof v900, false);
    rc |= decode_blk(&d, &k, l); /* A(1332) + filler(232) + B(942) = 2506, arena tail 2410 */
    b_free(&k);
    b_lit(&k, 0x40, 64, NULL, false, v2000, sizeof v2000, true); /* name of A; evicts A and the filler */
    rc |= decode_blk(&d, &k, l);
    b_free(&k);
    tab = table_text(&d, t);
    struct blk want = { 0 };
    b_bytes(&want, aname, sizeof aname);
    b_bytes(&want, ": ", 2);
    b_bytes(&want, v2000, sizeof v2000);
    b_bytes(&want, "\n", 1);
    b_bytes(&want, bstr, 10);
    b_bytes(&want, ": ", 2);
    b_bytes(&want, v900, sizeof v900);
    b_bytes(&want, "\n", 2); /* with the NUL */
    T_CHECK("table: evicted name survives a compaction of the arena",
            rc == 0 && tab && d.count == 2 && d.size == 3032 + 942 && strcmp(t->text, (const char *)want.b) == 0,
            "rc=%d count=%u size=%u", rc, (unsigned)d.count, (unsigned)d.size);
    b_free(&want);
    b_free(&name_a);

    /* Compaction while the new entry's name is a live entry's. */
    hpack_decoder_init(&d, 4096);
    char v1500[1500], bn[101];
    memset(v1500, 'f', sizeof v1500);
    memset(bn, 'n', 100);
    bn[100] = 0;
    b_lit(&k, 0x40, 0, "", false, v1500, sizeof v1500, false); /* 1532, arena [0, 1500) */
    b_lit(&k, 0x40, 0, bn, false, v1500, 1000, false);         /* 1132, arena [1500, 2600) */
    rc = decode_blk(&d, &k, l);
    b_free(&k);
    b_lit(&k, 0x40, 62, NULL, false, v1500, sizeof v1500, false); /* 1632: evicts the first, compacts */
    rc |= decode_blk(&d, &k, l);
    b_free(&k);
    tab = table_text(&d, t);
    b_bytes(&want, bn, 100);
    b_bytes(&want, ": ", 2);
    b_bytes(&want, v1500, 1500);
    b_bytes(&want, "\n", 1);
    b_bytes(&want, bn, 100);
    b_bytes(&want, ": ", 2);
    b_bytes(&want, v1500, 1000);
    b_bytes(&want, "\n", 2);
    T_CHECK("table: compaction keeps a live name that the new entry reuses",
            rc == 0 && tab && d.count == 2 && d.size == 1632 + 1132 && strcmp(t->text, (const char *)want.b) == 0,
            "rc=%d count=%u size=%u", rc, (unsigned)d.count, (unsigned)d.size);
    b_free(&want);

    hpack_decoder_init(&d, 4096);
    rc = decode_hex(&d, "80", l);
    T_CHECK("decode: index 0 is HPACK_ERR_INDEX (§6.1)", rc == HPACK_ERR_INDEX, "rc=%d", rc);
    rc = decode_hex(&d, "be", l);
    T_CHECK("decode: index 62 with an empty table is HPACK_ERR_INDEX", rc == HPACK_ERR_INDEX, "rc=%d", rc);
    rc = decode_hex(&d, "7e 01 61", l); /* incremental, name index 62 */
    T_CHECK("decode: literal with name index 62 with an empty table is HPACK_ERR_INDEX", rc == HPACK_ERR_INDEX,
            "rc=%d", rc);
    rc = decode_hex(&d, "bd", l);
    T_CHECK("decode: index 61 is www-authenticate", rc == 0 && strcmp(l->text, "www-authenticate: \n") == 0,
            "rc=%d", rc);
    rc = decode_hex(&d, "0f 2b 03 736862", l); /* user-agent: shb */
    T_CHECK("decode: literal without indexing, name index 58 (4-bit prefix + continuation)",
            rc == 0 && strcmp(l->text, "user-agent: shb\n") == 0 && d.count == 0, "rc=%d", rc);

    int trunc_ok = 1;
    uint8_t full[512];
    size_t fn = unhex(c61_hex, full, sizeof full);
    for (size_t cut = 1; cut < fn; cut++) {
        hpack_decoder_init(&d, 256);
        uint8_t *copy = malloc(cut);
        memcpy(copy, full, cut);
        rc = hpack_decode(&d, copy, cut, scratch, sizeof scratch, NULL, NULL);
        free(copy);
        /* Field boundaries of C.6.1: after 4, 11, 35 bytes. */
        bool boundary = cut == 4 || cut == 11 || cut == 35;
        trunc_ok &= T_QUIET("decode: truncated", boundary ? rc == 0 : rc == HPACK_ERR_TRUNCATED, "cut %zu rc %d",
                            cut, rc);
    }
    T_CHECK("decode: C.6.1 cut at every byte: HPACK_ERR_TRUNCATED except at field boundaries", trunc_ok,
            "see above");

    hpack_decoder_init(&d, 4096);
    uint8_t c41[64];
    size_t c41n = unhex(c4[0].hex, c41, sizeof c41);
    uint8_t small[10];
    rc = hpack_decode(&d, c41, c41n, small, sizeof small, collect, l);
    T_CHECK("decode: Huffman value larger than scratch is HPACK_ERR_TOO_LONG", rc == HPACK_ERR_TOO_LONG, "rc=%d",
            rc);
    hpack_decoder_init(&d, 4096);
    rc = hpack_decode(&d, c41, c41n, scratch, sizeof scratch, abort_cb, NULL);
    T_CHECK("decode: a callback's non-zero return aborts and is returned", rc == 42, "rc=%d", rc);
    uint8_t ua[] = { 0x7a, 0x03, 's', 'h', 'b' }; /* user-agent: shb, incremental */
    rc = hpack_decode(&d, ua, sizeof ua, scratch, sizeof scratch, abort_cb, NULL);
    T_CHECK("decode: a callback abort on a literal returns before inserting", rc == 42 && d.count == 0, "rc=%d",
            rc);
    rc = decode_hex(&d, "0f 27 81 ff", l); /* server: <Huffman 0xff> */
    T_CHECK("decode: bad Huffman value is HPACK_ERR_HUFFMAN", rc == HPACK_ERR_HUFFMAN, "rc=%d", rc);
    rc = decode_hex(&d, "0f 27 7f ff ff ff ff 0f", l);
    T_CHECK("decode: string length over 2^32-1 is HPACK_ERR_INTEGER", rc == HPACK_ERR_INTEGER, "rc=%d", rc);
    rc = decode_hex(&d, "0f 27 05 6162", l);
    T_CHECK("decode: string longer than the block is HPACK_ERR_TRUNCATED", rc == HPACK_ERR_TRUNCATED, "rc=%d",
            rc);
    rc = hpack_decode(&d, NULL, 0, NULL, 0, NULL, NULL);
    T_CHECK("decode: empty block", rc == 0, "rc=%d", rc);
    rc = decode_hex(&d, "00 00 00", l);
    T_CHECK("decode: empty literal name and value", rc == 0 && strcmp(l->text, ": \n") == 0, "rc=%d", rc);
    rc = hpack_decode(&d, (const uint8_t *)"\x00\x80\x80", 3, NULL, 0, collect, l);
    T_CHECK("decode: empty Huffman strings need no scratch", rc == 0, "rc=%d", rc);
    free(l);
    free(t);
}

/* -------------------------------------- dynamic table vs. a reference model */

struct mentry {
    uint8_t *name, *value;
    size_t nlen, vlen;
};

struct model {
    struct mentry e[HPACK_TABLE_MAX / 32 + 1];
    size_t count, size, cap;
};

static void model_evict_one(struct model *m)
{
    struct mentry *e = &m->e[--m->count];
    m->size -= e->nlen + e->vlen + 32;
    free(e->name);
    free(e->value);
}

static void model_insert(struct model *m, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    uint8_t *nc = t_memdup(name, nlen), *vc = t_memdup(value, vlen); /* copy first: §4.4 */
    size_t es = nlen + vlen + 32;
    if (es > m->cap) {
        while (m->count)
            model_evict_one(m);
        free(nc);
        free(vc);
        return;
    }
    while (m->count && m->size + es > m->cap)
        model_evict_one(m);
    memmove(&m->e[1], &m->e[0], m->count * sizeof m->e[0]);
    m->e[0] = (struct mentry){ nc, vc, nlen, vlen };
    m->count++;
    m->size += es;
}

struct one_field {
    const uint8_t *name, *value;
    size_t nlen, vlen;
    int n;
};

static int grab(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    struct one_field *f = ctx;
    f->name = name;
    f->nlen = nlen;
    f->value = value;
    f->vlen = vlen;
    f->n++;
    return 0;
}

static void rnd_bytes(uint8_t *p, size_t n)
{
    int kind = (int)t_rng_below(3);
    for (size_t i = 0; i < n; i++)
        p[i] = kind == 0 ? (uint8_t)t_rng() : kind == 1 ? (uint8_t)('a' + t_rng_below(26)) : (uint8_t)(' ' + t_rng_below(95));
}

static bool small_phase;

static size_t rnd_len(void)
{
    if (small_phase)
        return t_rng_below(8);
    switch (t_rng_below(10)) {
    case 0: return 0;
    case 1: case 2: return t_rng_below(2000);
    case 3: return 4000 + t_rng_below(200); /* often bigger than the capacity */
    default: return t_rng_below(40);
    }
}

static void test_model(void)
{
    struct hpack_decoder *d = malloc(sizeof *d);
    struct model *m = calloc(1, sizeof *m);
    hpack_decoder_init(d, 4096);
    m->cap = 4096;
    static uint8_t name[4200], value[4200];
    bool ok = true;
    int max_count = 0, full_lookups = 0, evicted_name_refs = 0;
    for (int step = 0; step < 1000 && ok; step++) {
        struct blk k = { 0 };
        small_phase = step / 250 % 2 == 1; /* phases of small entries fill the slots */
        if (t_rng_below(20) == 0) { /* §6.3 at the start of the block */
            size_t cap = t_rng_below(3) == 0 ? 4096 : t_rng_below(4097);
            b_int(&k, 5, 0x20, cap);
            m->cap = cap;
            while (m->count && m->size > m->cap)
                model_evict_one(m);
        }
        size_t nlen, vlen = rnd_len();
        const uint8_t *nsrc;
        unsigned name_index = 0;
        if (m->count && t_rng_below(3) == 0) {
            size_t i = t_rng_below(m->count);
            name_index = HPACK_STATIC_COUNT + 1 + (unsigned)i;
            nsrc = m->e[i].name;
            nlen = m->e[i].nlen;
            if (m->size + nlen + vlen + 32 > m->cap)
                evicted_name_refs++;
        } else {
            nlen = t_rng_below(4) == 0 ? rnd_len() : t_rng_below(12);
            rnd_bytes(name, nlen);
            nsrc = name;
        }
        rnd_bytes(value, vlen);
        /* Sometimes a non-indexed literal first: it must not touch the table. */
        if (t_rng_below(4) == 0)
            b_lit(&k, t_rng_below(2) ? 0x00 : 0x10, 0, "x-plain", false, "v", 1, true);
        b_int(&k, 6, 0x40, name_index);
        if (!name_index)
            b_str(&k, nsrc, nlen, t_rng_below(2));
        b_str(&k, value, vlen, t_rng_below(2));
        uint8_t *nsave = t_memdup(nsrc, nlen);
        struct one_field f = { 0 };
        uint8_t *copy = t_memdup(k.b, k.n);
        int rc = hpack_decode(d, copy, k.n, scratch, sizeof scratch, grab, &f);
        free(copy);
        ok &= T_QUIET("model: decode", rc == 0, "step %d rc %d", step, rc);
        model_insert(m, nsave, nlen, value, vlen);
        free(nsave);
        b_free(&k);
        ok &= T_QUIET("model: count and size", d->count == m->count && d->size == m->size,
                      "step %d: count %u/%zu size %u/%zu", step, (unsigned)d->count, m->count, (unsigned)d->size,
                      m->size);
        if ((int)m->count > max_count)
            max_count = (int)m->count;
        for (size_t i = 0; i < m->count && ok; i++) {
            uint8_t b[8];
            size_t n = hpack_int_encode(b, sizeof b, 7, 0x80, HPACK_STATIC_COUNT + 1 + i);
            struct one_field g = { 0 };
            rc = hpack_decode(d, b, n, scratch, sizeof scratch, grab, &g);
            const struct mentry *e = &m->e[i];
            ok &= T_QUIET("model: lookup",
                          rc == 0 && g.n == 1 && g.nlen == e->nlen && g.vlen == e->vlen &&
                              (!e->nlen || memcmp(g.name, e->name, e->nlen) == 0) &&
                              (!e->vlen || memcmp(g.value, e->value, e->vlen) == 0),
                          "step %d index %zu", step, i + 1);
            full_lookups++;
        }
    }
    small_phase = false;
    T_CHECK("table: 1000 varied inserts (size updates, names from live and evicted entries, "
            "entries over capacity) match a reference model at every index",
            ok, "see above");
    printf("  model: %d lookups, up to %d entries, %d names from entries the insert evicts\n", full_lookups,
           max_count, evicted_name_refs);

    /* Many tiny entries: the slot ring fills to 128 and wraps. */
    hpack_decoder_init(d, 4096);
    while (m->count)
        model_evict_one(m);
    m->cap = 4096;
    ok = true;
    for (int i = 0; i < 700 && ok; i++) {
        struct blk k = { 0 };
        size_t vlen = (size_t)(i % 3 == 0 || i >= 500 ? 0 : i % 7); /* the last 200: 32 bytes each */
        rnd_bytes(value, vlen);
        b_lit(&k, 0x40, 0, "", false, value, vlen, false);
        int rc = hpack_decode(d, k.b, k.n, scratch, sizeof scratch, NULL, NULL);
        model_insert(m, (const uint8_t *)"", 0, value, vlen);
        b_free(&k);
        ok &= T_QUIET("ring: insert", rc == 0 && d->count == m->count && d->size == m->size, "i %d", i);
        for (size_t j = 0; j < m->count && ok; j += 17) {
            uint8_t b[8];
            size_t n = hpack_int_encode(b, sizeof b, 7, 0x80, HPACK_STATIC_COUNT + 1 + j);
            struct one_field g = { 0 };
            rc = hpack_decode(d, b, n, scratch, sizeof scratch, grab, &g);
            ok &= T_QUIET("ring: lookup",
                          rc == 0 && g.vlen == m->e[j].vlen && (!g.vlen || memcmp(g.value, m->e[j].value, g.vlen) == 0),
                          "i %d j %zu", i, j);
        }
    }
    T_CHECK("table: 700 entries of 32..38 bytes: the 128 slots fill and wrap, lookups match",
            ok && d->count == 128 && d->size == 4096,
            "count=%u", (unsigned)d->count);
    while (m->count)
        model_evict_one(m);
    free(m);
    free(d);
}

/* ------------------------------------------------------ status scanner */

/* Two decoders hold the same table: same limit, capacity, size and entries
 * (newest first), wherever in their arenas the bytes sit. */
static bool tables_equal(const struct hpack_decoder *a, const struct hpack_decoder *b)
{
    enum { SLOTS = HPACK_TABLE_MAX / 32 };
    if (a->limit != b->limit || a->capacity != b->capacity || a->size != b->size || a->count != b->count)
        return false;
    for (uint32_t i = 1; i <= a->count; i++) {
        uint32_t sa = (a->head + SLOTS - i) % SLOTS, sb = (b->head + SLOTS - i) % SLOTS;
        if (a->nlen[sa] != b->nlen[sb] || a->vlen[sa] != b->vlen[sb] ||
            memcmp(a->arena + a->off[sa], b->arena + b->off[sb], (size_t)a->nlen[sa] + a->vlen[sa]) != 0)
            return false;
    }
    return true;
}

/* Scans one block with table t (updated), split at cuts (fragment ends).
 * Returns the scanner's rc, or SCAN_STATUS_ERR when it returned 0 with
 * s->malformed set (the scanner reports a malformed :status that way and
 * goes on decoding). The scan state starts out filled with junk: init must
 * not depend on what was there. */
static int scan_cuts_t(struct hpack_decoder *t, const uint8_t *b, size_t n, const size_t *cuts, size_t ncuts,
                       uint16_t *status)
{
    struct hpack_status_scan *s = malloc(sizeof *s);
    memset(s, 0xa5, sizeof *s);
    hpack_status_scan_init(s, t);
    size_t start = 0;
    int rc = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t stop = i < ncuts ? cuts[i] : n;
        uint8_t *frag = t_memdup(b + start, stop - start);
        rc = hpack_status_scan_feed(s, frag, stop - start, i == ncuts);
        free(frag);
        if (rc)
            break;
        start = stop;
    }
    if (rc == 0 && s->malformed)
        rc = SCAN_STATUS_ERR;
    *status = s->status;
    free(s);
    return rc;
}

/* The limit of the fresh table scan_cuts gives each block. */
static uint32_t scan_limit;

static int scan_cuts(const uint8_t *b, size_t n, const size_t *cuts, size_t ncuts, uint16_t *status)
{
    struct hpack_decoder *t = malloc(sizeof *t);
    hpack_decoder_init(t, scan_limit);
    int rc = scan_cuts_t(t, b, n, cuts, ncuts, status);
    free(t);
    return rc;
}

struct first_status {
    char v[16];
    bool found;
};

static int find_status(void *ctx, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    struct first_status *f = ctx;
    if (!f->found && nlen == 7 && memcmp(name, ":status", 7) == 0) {
        f->found = true;
        size_t c = vlen < sizeof f->v - 1 ? vlen : sizeof f->v - 1;
        memcpy(f->v, value, c);
        f->v[c] = 0;
    }
    return 0;
}

/* One way of scanning a block (feed.h) on a fresh table of the limit: the
 * rc and :status wanted, and (when it succeeds) the table ref has. */
struct scan_way {
    const char *name;
    uint32_t limit;
    struct hpack_decoder *t;
    const struct hpack_decoder *ref;
    int want_rc;
    uint16_t want_status;
};

static bool scan_way_ok(void *ctx, const uint8_t *b, const struct feed_way *w)
{
    const struct scan_way *c = ctx;
    uint16_t st;
    hpack_decoder_init(c->t, c->limit);
    int rc = scan_cuts_t(c->t, b, w->n, w->cuts, w->ncuts, &st);
    return T_QUIET(c->name, rc == c->want_rc && (c->want_rc != 0 || st == c->want_status) &&
                                (rc != 0 || tables_equal(c->t, c->ref)),
                   "limit %u, %s: rc=%d status=%u", (unsigned)c->limit, w->name, rc, (unsigned)st);
}

/* Feeds the block whole, then every way of feed.h (split in two at every
 * byte up to 4 KB, every 37th past it), and whole followed by an empty last
 * fragment, each time on a fresh table of limit 0 and of limit 4096 (both:
 * only0 false) or of limit 0 only: every way must give want_rc, and
 * want_status when want_rc is 0, and leave the same table. Blocks the
 * scanner accepts are also decoded with hpack_decode on a fresh table of the
 * same limit, which must find the same :status and leave the same table. */
static void scan_all_ways_lim(const char *name, const uint8_t *b, size_t n, int want_rc, uint16_t want_status,
                              bool only0)
{
    bool ok = true;
    uint16_t st;
    int rc;
    struct hpack_decoder *t = malloc(sizeof *t), *ref = malloc(sizeof *ref);
    for (int li = 0; li < (only0 ? 1 : 2); li++) {
        uint32_t limit = li ? 4096 : 0;
#define SCAN_EXPECT(same_table, how, ...)                                                                      \
    ok &= T_QUIET(name, rc == want_rc && (want_rc != 0 || st == want_status) && (same_table),                \
                  "limit %u, " how ": rc=%d status=%u", (unsigned)limit, __VA_ARGS__, rc, (unsigned)st)
        hpack_decoder_init(ref, limit);
        rc = scan_cuts_t(ref, b, n, NULL, 0, &st);
        SCAN_EXPECT(true, "whole%s", "");
        struct scan_way c = { name, limit, t, ref, want_rc, want_status };
        ok &= feed_splits_dense(b, n, 4096, scan_way_ok, &c, NULL) == 0;
        {
            struct hpack_status_scan *s = malloc(sizeof *s);
            hpack_decoder_init(t, limit);
            hpack_status_scan_init(s, t);
            uint8_t *copy = t_memdup(b, n);
            rc = hpack_status_scan_feed(s, copy, n, false);
            free(copy);
            if (rc == 0)
                rc = hpack_status_scan_feed(s, NULL, 0, true);
            if (rc == 0 && s->malformed)
                rc = SCAN_STATUS_ERR;
            st = s->status;
            free(s);
            SCAN_EXPECT(rc != 0 || tables_equal(t, ref), "whole, then an empty last fragment%s", "");
        }
#undef SCAN_EXPECT
        if (want_rc == 0) {
            hpack_decoder_init(t, limit);
            struct first_status f = { { 0 }, false };
            uint8_t *copy = t_memdup(b, n);
            rc = hpack_decode(t, copy, n, scratch, sizeof scratch, find_status, &f);
            free(copy);
            unsigned dv = f.found ? (unsigned)atoi(f.v) : 0;
            ok &= T_QUIET(name, rc == 0 && dv == want_status && tables_equal(t, ref),
                          "limit %u, hpack_decode: rc=%d status=%u, same table %d", (unsigned)limit, rc, dv,
                          tables_equal(t, ref));
        }
    }
    T_CHECK(name, ok, "see above");
    free(t);
    free(ref);
}

static void scan_all_ways(const char *name, const uint8_t *b, size_t n, int want_rc, uint16_t want_status)
{
    scan_all_ways_lim(name, b, n, want_rc, want_status, false);
}

static void scan_hex_lim(const char *name, const char *hex, int want_rc, uint16_t want_status, bool only0)
{
    size_t n = unhex(hex, NULL, 0);
    uint8_t *b = malloc(n ? n : 1);
    unhex(hex, b, n);
    scan_all_ways_lim(name, b, n, want_rc, want_status, only0);
    free(b);
}

static void scan_hex(const char *name, const char *hex, int want_rc, uint16_t want_status)
{
    scan_hex_lim(name, hex, want_rc, want_status, false);
}

/* x-pad literal fields of varied lengths (1- to 3-octet length integers),
 * raw and Huffman-coded, up to about total bytes. */
static void add_padding(struct blk *k, size_t total)
{
    static char pad[20000];
    memset(pad, 'p', sizeof pad);
    size_t lens[] = { 0, 1, 126, 127, 128, 1000, 16383, 16384, 5000 };
    size_t start = k->n;
    for (int i = 0; k->n - start < total; i++) {
        size_t vlen = lens[i % 9];
        uint8_t kind = (uint8_t[]){ 0x00, 0x10, 0x40 }[i % 3];
        b_lit(k, kind, 0, "x-pad", i % 2, pad, vlen, i % 4 == 1);
    }
}

static void test_scanner(void)
{
    scan_hex("scan: C.5.1 (literal :status 302, incremental, name index 8)", c51_hex, 0, 302);
    scan_hex("scan: C.6.1 (same, Huffman)", c61_hex, 0, 302);
    scan_hex("scan: C.5.2 on an empty table: HPACK_ERR_INDEX", c52_hex, HPACK_ERR_INDEX, 0);
    scan_hex("scan: C.6.3 on an empty table: HPACK_ERR_INDEX", c63_hex, HPACK_ERR_INDEX, 0);
    scan_hex("scan: indexed :status 200", "88", 0, 200);
    scan_hex("scan: indexed :status 500 (index 14)", "8e", 0, 500);
    scan_hex("scan: literal :status 302, indexed name, without indexing", "08 03 333032", 0, 302);
    scan_hex("scan: literal :status 302, indexed name, never indexed", "18 03 333032", 0, 302);
    scan_hex("scan: literal :status 302, indexed name 14, incremental", "4e 03 333032", 0, 302);
    scan_hex("scan: Huffman-coded :status 302", "08 82 6402", 0, 302);
    scan_hex("scan: Huffman-coded :status 307 (3 octets)", "08 83 640eff", 0, 307);
    scan_hex("scan: literal name \":status\"", "00 07 3a737461747573 03 333032", 0, 302);
    scan_hex("scan: Huffman literal name \":status\", Huffman value", "10 85 b8848d36a3 82 6402", 0, 302);
    scan_hex("scan: literal name \":status\", incremental, Huffman", "40 85 b8848d36a3 82 6402", 0, 302);
    struct blk k = { 0 };
    b_lit(&k, 0x00, 0, ":statur", false, "302", 3, false);
    b_lit(&k, 0x00, 0, ":statu", false, "303", 3, false);
    b_lit(&k, 0x00, 0, ":statuss", false, "304", 3, false);
    b_lit(&k, 0x00, 0, ":Status", false, "305", 3, false);
    size_t at = k.n;
    b_lit(&k, 0x10, 0, "abcdefg", true, "306", 3, false); /* Huffman, 5 octets like ":status" */
    T_CHECK("scan: the Huffman lookalike name is 5 octets, like \":status\"", k.b[at + 1] == 0x85, "%02x",
            k.b[at + 1]);
    b_lit(&k, 0x10, 0, ":statu", true, "307", 3, false);
    b_lit(&k, 0x40, 0, "", true, "308", 3, false);
    b_lit(&k, 0x40, 0, ":statuss", true, "309", 3, false);
    scan_all_ways("scan: lookalike names (raw and Huffman, same lengths) are not :status", k.b, k.n, 0, 0);
    b_free(&k);
    scan_hex("scan: size update 0 at the start", "20 88", 0, 200);
    scan_hex("scan: two size updates 0 at the start", "20 20 89", 0, 204);
    scan_hex("scan: :status not first", "0f 27 05 6e67696e78 0f 10 03 616263 8d", 0, 404);
    scan_hex("scan: missing :status gives status 0", "0f 27 05 6e67696e78 6c 01 30", 0, 0);
    scan_hex("scan: empty block gives status 0", "", 0, 0);
    scan_hex("scan: empty literal name and value", "00 00 00 88", 0, 200);
    scan_hex("scan: empty literal name and value, incremental (a 32-byte entry)", "40 00 00 88", 0, 200);
    scan_hex("scan: dynamic index (62) of an empty table is HPACK_ERR_INDEX", "be", HPACK_ERR_INDEX, 0);
    scan_hex("scan: dynamic index after :status is HPACK_ERR_INDEX", "88 c1", HPACK_ERR_INDEX, 0);
    scan_hex("scan: literal with dynamic name index is HPACK_ERR_INDEX", "0f 30 01 61", HPACK_ERR_INDEX, 0);
    scan_hex("scan: incremental literal with dynamic name index is HPACK_ERR_INDEX", "7e 01 61", HPACK_ERR_INDEX,
             0);
    scan_hex("scan: one entry inserted (none with limit 0): index 63 (62) is HPACK_ERR_INDEX",
             "40 01 61 01 62 be 88 bf", HPACK_ERR_INDEX, 0);
    scan_hex("scan: indexed field 0 is HPACK_ERR_INDEX", "80", HPACK_ERR_INDEX, 0);
    scan_hex_lim("scan: limit 0: size update 1 is HPACK_ERR_TABLE_SIZE", "21 88", HPACK_ERR_TABLE_SIZE, 0, true);
    scan_hex_lim("scan: limit 0: size update 4096 is HPACK_ERR_TABLE_SIZE", "3f e1 1f 88", HPACK_ERR_TABLE_SIZE, 0,
                 true);
    scan_hex_lim("scan: limit 4096: size update 4097 is HPACK_ERR_TABLE_SIZE", "3f e2 1f 88",
                 HPACK_ERR_TABLE_SIZE, 0, true);
    {
        scan_limit = 4096;
        uint16_t st1, st2;
        int r1 = scan_cuts((const uint8_t *)"\x3f\xe1\x1f\x88", 4, NULL, 0, &st1);
        int r2 = scan_cuts((const uint8_t *)"\x3f\xe2\x1f\x88", 4, NULL, 0, &st2);
        scan_limit = 0;
        T_CHECK("scan: limit 4096: size update 4096 is fine, 4097 is HPACK_ERR_TABLE_SIZE",
                r1 == 0 && st1 == 200 && r2 == HPACK_ERR_TABLE_SIZE, "%d/%u %d", r1, (unsigned)st1, r2);
    }
    scan_hex("scan: size update after a field is HPACK_ERR_TABLE_SIZE", "88 20", HPACK_ERR_TABLE_SIZE, 0);
    scan_hex("scan: block ends inside a value", "08 03 3330", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends inside an inserted value", "48 03 3330", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends inside a name index", "0f", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends inside a name", "00 85 b884", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends inside an inserted Huffman name", "40 85 b884", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends after a name", "00 03 616263", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends inside a value length", "88 0f 27 7f 80", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: block ends inside a size update", "3f", HPACK_ERR_TRUNCATED, 0);
    scan_hex("scan: value length over 2^32-1 is HPACK_ERR_INTEGER", "0f 27 7f ff ff ff ff 0f",
             HPACK_ERR_INTEGER, 0);
    scan_hex("scan: six continuation octets is HPACK_ERR_INTEGER", "0f 27 7f 80 80 80 80 80 00",
             HPACK_ERR_INTEGER, 0);
    scan_hex("scan: :status 2 digits", "08 02 3230", SCAN_STATUS_ERR, 0);
    scan_hex("scan: :status 4 digits", "08 04 32303030", SCAN_STATUS_ERR, 0);
    scan_hex("scan: :status not digits", "08 03 32306f", SCAN_STATUS_ERR, 0);
    scan_hex("scan: :status 099", "08 03 303939", SCAN_STATUS_ERR, 0);
    scan_hex("scan: :status value of 9 octets", "08 09 323030323030323030", SCAN_STATUS_ERR, 0);
    scan_hex("scan: :status value of 9 octets, incremental", "48 09 323030323030323030", SCAN_STATUS_ERR, 0);
    scan_hex("scan: :status Huffman value with bad padding", "08 81 64", HPACK_ERR_HUFFMAN, 0);
    scan_hex("scan: Huffman :status \"30a\"", "08 82 6403", SCAN_STATUS_ERR, 0);
    scan_hex("scan: second :status is an error (RFC 9113 §8.3)", "88 08 03 333032", SCAN_STATUS_ERR, 0);
    scan_hex("scan: a malformed :status does not stop decoding: a later error still shows",
             "08 03 32306f 80", HPACK_ERR_INDEX, 0);
    /* Huffman strings are all checked, inserted or skipped, so their errors
     * show (§5.2; limit 0: nothing is inserted there). */
    {
        uint16_t st, st0;
        int r0 = scan_cuts((const uint8_t *)"\x88\x40\x01\x61\x81\x00", 6, NULL, 0, &st0);
        T_CHECK("scan: limit 0: bad Huffman padding in a skipped value is HPACK_ERR_HUFFMAN too",
                r0 == HPACK_ERR_HUFFMAN, "%d %u", r0, (unsigned)st0);
        scan_limit = 4096;
        int r1 = scan_cuts((const uint8_t *)"\x88\x40\x01\x61\x81\x00", 6, NULL, 0, &st);
        int r2 = scan_cuts((const uint8_t *)"\x88\x40\x81\x00\x01\x61", 6, NULL, 0, &st);
        /* 30 one-bits then 2 more: EOS inside the string */
        int r3 = scan_cuts((const uint8_t *)"\x88\x40\x01\x61\x84\xff\xff\xff\xff", 9, NULL, 0, &st);
        size_t cut = 6;
        int r4 = scan_cuts((const uint8_t *)"\x88\x40\x01\x61\x84\xff\xff\xff\xff", 9, &cut, 1, &st);
        scan_limit = 0;
        T_CHECK("scan: limit 4096: bad Huffman in an inserted value or name, or EOS, is HPACK_ERR_HUFFMAN",
                r1 == HPACK_ERR_HUFFMAN && r2 == HPACK_ERR_HUFFMAN && r3 == HPACK_ERR_HUFFMAN &&
                    r4 == HPACK_ERR_HUFFMAN,
                "%d %d %d %d", r1, r2, r3, r4);
    }

    /* Big blocks: ~48 KB of fields the scanner steps over (or inserts: the
     * 0x40 ones, most of them larger than any table). */
    b_byte(&k, 0x88);
    add_padding(&k, 48 * 1024);
    scan_all_ways("scan: :status 200 then 48 KB of x-pad fields", k.b, k.n, 0, 200);
    b_free(&k);
    add_padding(&k, 48 * 1024);
    b_lit(&k, 0x00, 0, ":status", true, "404", 3, true);
    add_padding(&k, 1024);
    scan_all_ways("scan: 48 KB of x-pad fields, then Huffman :status 404", k.b, k.n, 0, 404);
    b_free(&k);
    add_padding(&k, 48 * 1024);
    scan_all_ways("scan: 48 KB of x-pad fields and no :status", k.b, k.n, 0, 0);
    b_free(&k);

    /* After an error the scanner keeps failing. */
    struct hpack_decoder t;
    hpack_decoder_init(&t, 0);
    struct hpack_status_scan s;
    hpack_status_scan_init(&s, &t);
    int rc1 = hpack_status_scan_feed(&s, (const uint8_t *)"\xbe", 1, false);
    int rc2 = hpack_status_scan_feed(&s, (const uint8_t *)"\x88", 1, true);
    T_CHECK("scan: an error sticks", rc1 == HPACK_ERR_INDEX && rc2 == HPACK_ERR_INDEX, "%d %d", rc1, rc2);
}

/* ------------------------------------------- status scanner: one table, many blocks */

/* One block of a connection, and what the scanner must make of it. */
struct seq_step {
    struct blk k;
    int want_rc;          /* 0, SCAN_STATUS_ERR (malformed :status) or an error that ends the connection */
    uint16_t want_status; /* when want_rc is 0 */
};

static void seq_hex(struct seq_step *st, const char *hex, int want_rc, uint16_t want_status)
{
    b_hex(&st->k, hex);
    st->want_rc = want_rc;
    st->want_status = want_status;
}

/* Scans the blocks in order on one table of the given limit (a connection),
 * every block fed the same way (whole, one byte at a time, 7-byte chunks,
 * or split in two at k, for every k up to the longest block: feed.h), and decodes
 * them with hpack_decode on a table of its own. After every block: the
 * scanner's rc and :status as wanted, and its table equal to hpack_decode's
 * (malformed :status included: the table must stay in step). The sequence
 * stops at a block whose want_rc is a decoding error. want_tables[i], when
 * not NULL, is the table's text after block i (RFC 7541 Appendix C). */
static void scan_sequence(const char *name, uint32_t limit, struct seq_step *steps, int nsteps,
                          const char *const *want_tables)
{
    bool ok = true;
    size_t maxn = 1;
    for (int i = 0; i < nsteps; i++)
        maxn = steps[i].k.n > maxn ? steps[i].k.n : maxn;
    size_t *cuts = malloc((maxn + 1) * sizeof *cuts);
    struct hpack_decoder *ref = malloc((size_t)nsteps * sizeof *ref), *t = malloc(sizeof *t);
    struct list *l = list_new();

    /* The reference: hpack_decode, block after block. */
    struct hpack_decoder *d = malloc(sizeof *d);
    hpack_decoder_init(d, limit);
    for (int i = 0; i < nsteps; i++) {
        struct first_status f = { { 0 }, false };
        uint8_t *copy = t_memdup(steps[i].k.b, steps[i].k.n);
        int rc = hpack_decode(d, copy, steps[i].k.n, scratch, sizeof scratch, find_status, &f);
        free(copy);
        ref[i] = *d;
        bool is_err = steps[i].want_rc != 0 && steps[i].want_rc != SCAN_STATUS_ERR;
        if (is_err)
            break;
        unsigned dv = f.found ? (unsigned)atoi(f.v) : 0;
        ok &= T_QUIET(name, rc == 0 && (steps[i].want_rc != 0 || dv == steps[i].want_status),
                      "block %d: hpack_decode rc=%d status=%u", i + 1, rc, dv);
        if (want_tables && want_tables[i]) {
            struct hpack_decoder *c = malloc(sizeof *c);
            *c = *d;
            bool tab = table_text(c, l);
            ok &= T_QUIET(name, tab && strcmp(l->text, want_tables[i]) == 0, "block %d: table [%s]", i + 1, l->text);
            free(c);
        }
    }

    for (int way = 0; way <= 3 + (int)maxn; way++) {
        char wb[32];
        hpack_decoder_init(t, limit);
        for (int i = 0; i < nsteps; i++) {
            uint16_t st = 0;
            struct feed_way w;
            if (!feed_way(way, steps[i].k.n, cuts, wb, &w))
                w = feed_whole(steps[i].k.n); /* a split past this block's end */
            int rc = scan_cuts_t(t, steps[i].k.b, steps[i].k.n, w.cuts, w.ncuts, &st);
            bool good = rc == steps[i].want_rc && (rc != 0 || st == steps[i].want_status);
            bool is_err = steps[i].want_rc != 0 && steps[i].want_rc != SCAN_STATUS_ERR;
            if (!is_err)
                good = good && tables_equal(t, &ref[i]);
            ok &= T_QUIET(name, good, "%s, block %d: rc=%d (want %d) status=%u (want %u), same table as hpack_decode %d",
                          w.name, i + 1, rc, steps[i].want_rc, (unsigned)st,
                          (unsigned)steps[i].want_status, is_err ? -1 : (int)tables_equal(t, &ref[i]));
            if (is_err || !good)
                break;
        }
    }
    T_CHECK(name, ok, "see above");
    for (int i = 0; i < nsteps; i++)
        b_free(&steps[i].k);
    free(cuts);
    free(ref);
    free(t);
    free(d);
    free(l);
}

/* Field names (RFC 9113 §8.2.1, §8.3): the block fed whole and one byte at
 * a time must give want_rc, names_bad and status_late, and the status. */
static void scan_names(const char *name, const char *hex, int want_rc, bool want_bad, bool want_late, uint16_t want_st)
{
    size_t n = unhex(hex, NULL, 0);
    uint8_t *b = malloc(n ? n : 1);
    unhex(hex, b, n);
    struct hpack_decoder *t = malloc(sizeof *t);
    struct hpack_status_scan *s = malloc(sizeof *s);
    bool ok = true;
    for (int way = 0; way < 2; way++) {
        hpack_decoder_init(t, HPACK_TABLE_MAX);
        hpack_status_scan_init(s, t);
        int rc = 0;
        if (way == 0) {
            uint8_t *copy = t_memdup(b, n);
            rc = hpack_status_scan_feed(s, copy, n, true);
            free(copy);
        } else {
            for (size_t i = 0; i < n && rc == 0; i++) {
                uint8_t *copy = t_memdup(b + i, 1);
                rc = hpack_status_scan_feed(s, copy, 1, i + 1 == n);
                free(copy);
            }
        }
        ok &= T_QUIET(name, rc == want_rc && (rc != 0 || (s->names_bad == want_bad && s->status_late == want_late &&
                                                          s->status == want_st && !s->malformed)),
                      "%s: rc %d names_bad %d status_late %d status %u", way ? "byte by byte" : "whole", rc,
                      s->names_bad, s->status_late, (unsigned)s->status);
    }
    T_CHECK(name, ok, "see above");
    free(s);
    free(t);
    free(b);
}

static void test_names(void)
{
    scan_names("names: :status then lowercase fields: fine", "88 00 01 61 01 62 0f 0d 01 32 b6", 0, false, false, 200);
    scan_names("names: a regular field before :status: status_late (§8.3)", "00 01 61 01 62 88", 0, false, true, 200);
    scan_names("names: a regular field before a literal :status: status_late", "0f 0d 01 32 08 03 323030", 0, false, true,
               200);
    scan_names("names: an uppercase literal name: names_bad (§8.2.1)", "88 00 01 41 01 62", 0, true, false, 200);
    scan_names("names: an uppercase Huffman name (\"A\": 100001 + padding): names_bad", "88 00 81 87 01 62", 0, true,
               false, 200);
    scan_names("names: a lowercase Huffman name (\"a\": 00011 + padding): fine", "88 00 81 1f 01 62", 0, false, false, 200);
    scan_names("names: a space in a name: names_bad", "88 00 03 61 20 62 01 62", 0, true, false, 200);
    scan_names("names: a colon inside a name: names_bad", "88 00 03 61 3a 62 01 62", 0, true, false, 200);
    scan_names("names: a DEL in a name: names_bad", "88 00 02 61 7f 01 62", 0, true, false, 200);
    scan_names("names: a request pseudo-header (static 2, :method GET): names_bad (§8.3)", "88 82", 0, true, false, 200);
    scan_names("names: a request pseudo-header name (static 4, :path) with a literal value: names_bad", "88 04 01 2f", 0,
               true, false, 200);
    scan_names("names: an unknown pseudo-header :foo: names_bad", "88 00 04 3a 66 6f 6f 01 62", 0, true, false, 200);
    scan_names("names: :Status (uppercase lookalike): names_bad, no status", "00 07 3a 53 74 61 74 75 73 03 323030", 0,
               true, false, 0);
    scan_names("names: an inserted uppercase name, referred to by index 62 in the same block: names_bad",
               "88 40 01 58 01 31 be", 0, true, false, 200);
    scan_names("names: an inserted lowercase name, referred to by index 62: fine", "88 40 01 78 01 31 be", 0, false, false,
               200);
    scan_names("names: EOS in a Huffman name is a decoding error (RFC 7541 §5.2)", "88 00 84 ffffffff 01 62",
               HPACK_ERR_HUFFMAN, false, false, 0);
    scan_names("names: a Huffman name padded with a 0 bit is a decoding error", "88 00 81 1e 01 62", HPACK_ERR_HUFFMAN,
               false, false, 0);
    scan_names("names: a Huffman name with 8 bits of padding is a decoding error", "88 00 82 1f ff 01 62",
               HPACK_ERR_HUFFMAN, false, false, 0);
}

struct values_feed {
    const char *name;
    uint32_t limit;
    int want_rc;
    bool want_bad;
    struct hpack_decoder *t;
    struct hpack_status_scan *s;
};

static bool values_ok(void *ctx, const uint8_t *b, const struct feed_way *w)
{
    const struct values_feed *c = ctx;
    struct hpack_status_scan *s = c->s;
    bool ok = true;
    hpack_decoder_init(c->t, c->limit);
    for (int round = 0; round < (w->kind == FEED_WHOLE ? 2 : 1); round++) {
        hpack_status_scan_init(s, c->t);
        int rc = 0;
        for (size_t i = 0, at; i <= w->ncuts && rc == 0; i++) {
            size_t k = feed_piece(w, i, &at);
            uint8_t *copy = t_memdup(b + at, k);
            rc = hpack_status_scan_feed(s, copy, k, i == w->ncuts);
            free(copy);
        }
        ok &= T_QUIET(c->name,
                      rc == c->want_rc && (rc != 0 || (s->values_bad == c->want_bad && s->status == 200 &&
                                                       !s->malformed && !s->names_bad && !s->status_late)),
                      "limit %u, %s, round %d: rc %d values_bad %d status %u", (unsigned)c->limit, w->name, round,
                      rc, s->values_bad, (unsigned)s->status);
        if (rc != 0)
            break;
    }
    return ok;
}

/* Field values (RFC 9113 §8.2.1; RFC 7541 §5.2 for their Huffman coding).
 * The block b[0..n) is fed every way of feed.h, on a fresh table of limit 0
 * and of limit 4096, and whole twice on the same table (the second time
 * values may come from the scanner's memo of valid values): every way must
 * give want_rc, and then values_bad == want_bad, :status 200 and nothing
 * else wrong. */
static void scan_values_b(const char *name, const uint8_t *b, size_t n, int want_rc, bool want_bad)
{
    struct values_feed c = { name, 0, want_rc, want_bad, malloc(sizeof *c.t), malloc(sizeof *c.s) };
    bool ok = true;
    for (int li = 0; li < 2; li++) {
        c.limit = li ? HPACK_TABLE_MAX : 0;
        ok &= feed_splits(b, n, values_ok, &c, NULL) == 0;
    }
    T_CHECK(name, ok, "see above");
    free(c.s);
    free(c.t);
}

static void scan_values(const char *name, const char *hex, int want_rc, bool want_bad)
{
    size_t n = unhex(hex, NULL, 0);
    uint8_t *b = malloc(n ? n : 1);
    unhex(hex, b, n);
    scan_values_b(name, b, n, want_rc, want_bad);
    free(b);
}

/* :status 200, then x-foo (literal name, static index none) with the value
 * v[0..vn), Huffman-coded when huff: kind 0x00 (without indexing) or 0x40
 * (with incremental indexing). */
static size_t value_block(uint8_t *out, uint8_t kind, const uint8_t *v, size_t vn, bool huff)
{
    size_t o = 0;
    out[o++] = 0x88;
    out[o++] = kind;
    out[o++] = 5;
    memcpy(out + o, "x-foo", 5);
    o += 5;
    if (huff) {
        size_t hn = hpack_huffman_encoded_len(v, vn);
        out[o++] = (uint8_t)(0x80 | hn); /* the tests keep values under 127 octets */
        o += hpack_huffman_encode(v, vn, out + o);
    } else {
        out[o++] = (uint8_t)vn;
        memcpy(out + o, v, vn);
        o += vn;
    }
    return o;
}

/* The reference for hpack_value_check / hpack_name_check on Huffman input:
 * decode it whole (hpack_huffman_decode), then the rules over the octets. */
static int ref_check(const uint8_t *p, size_t n, bool name)
{
    uint8_t out[64];
    long dl = hpack_huffman_decode(p, n, out, sizeof out);
    if (dl < 0)
        return (int)dl;
    bool bad = false;
    for (long i = 0; i < dl; i++) {
        uint8_t c = out[i];
        if (name)
            bad |= c <= 0x20 || (c >= 'A' && c <= 'Z') || c >= 0x7f || (c == ':' && i > 0);
        else
            bad |= c == 0 || c == '\r' || c == '\n';
    }
    if (!name && dl && (out[0] == ' ' || out[0] == '\t' || out[dl - 1] == ' ' || out[dl - 1] == '\t'))
        bad = true;
    return bad ? 1 : 0;
}

/* The checks walk the code's tree 4 bits at a time (hpack.c, huff_walk);
 * the decoder reads it by code length. On random octets (mostly bad
 * coding) and on encodings of random strings (all good coding, some bad
 * octets), split at every point, the two must agree exactly. */
static void test_huffman_check_vs_decoder(void)
{
    uint8_t str[24], enc[64];
    unsigned tried = 0, bad_coding = 0, bad_octets = 0;
    bool ok = true;
    for (unsigned k = 0; k < 40000 && ok; k++) {
        size_t n;
        if (k & 1) {
            n = t_rng_below(9);
            for (size_t i = 0; i < n; i++)
                enc[i] = (uint8_t)t_rng();
        } else {
            size_t sn = t_rng_below(sizeof str);
            for (size_t i = 0; i < sn; i++)
                str[i] = t_rng_below(4) ? (uint8_t)(' ' + t_rng_below(95)) : (uint8_t)t_rng();
            n = hpack_huffman_encode(str, sn, enc);
        }
        for (int name = 0; name < 2 && ok; name++) {
            int want = ref_check(enc, n, name);
            bad_coding += want < 0;
            bad_octets += want > 0;
            for (size_t cut = 0; cut <= n && ok; cut++) {
                struct hpack_value_check c;
                if (name)
                    hpack_name_check_start(&c, true);
                else
                    hpack_value_check_start(&c, true);
                hpack_value_check_feed(&c, enc, cut);
                hpack_value_check_feed(&c, enc + cut, n - cut);
                int got = hpack_value_check_end(&c);
                int whole = name ? hpack_name_check(enc, n, true) : hpack_value_check(enc, n, true);
                ok = T_QUIET("huffman check", got == want && whole == want, "%s of %zu octets cut at %zu: %d/%d, "
                             "reference %d", name ? "name" : "value", n, cut, got, whole, want);
                tried++;
            }
        }
    }
    T_CHECK("huffman check: the 4-bit tree walk agrees with the decoder and the rules on 40,000 strings, at every "
            "split (bad coding, bad octets and good ones all met)",
            ok && bad_coding > 1000 && bad_octets > 1000, "tried %u, bad coding %u, bad octets %u", tried, bad_coding,
            bad_octets);
}

static void test_values(void)
{
    {
        bool ok = true;
        for (unsigned i = 1; i <= HPACK_STATIC_COUNT; i++) {
            const char *name, *value;
            hpack_static_entry(i, &name, &value);
            ok &= T_QUIET("values: static", hpack_value_check((const uint8_t *)value, strlen(value), false) == 0,
                          "entry %u", i);
        }
        T_CHECK("values: every static entry's value is a valid field value (indexed fields need no check)", ok,
                "see above");
    }
    static const struct {
        const char *name;
        const char *v;
        size_t vn;
        bool bad;
    } cases[] = {
        { "a NUL (§8.2.1)", "a\0b", 3, true },
        { "a CR", "a\rb", 3, true },
        { "an LF", "a\nb", 3, true },
        { "CR LF at the end", "ab\r\n", 4, true },
        { "a leading SP", " ab", 3, true },
        { "a leading HTAB", "\tab", 3, true },
        { "a trailing SP", "ab ", 3, true },
        { "a trailing HTAB", "ab\t", 3, true },
        { "one SP alone", " ", 1, true },
        { "inner spaces, a tab, commas, quotes: fine", "a, \"b\"\t; c=d", 12, false },
        { "obs-text 0x80-0xff and other controls: fine (only NUL, CR, LF are forbidden)", "\x80\xff\x01\x7f z", 6,
          false },
        { "an HTTP date: fine", "Wed, 02 Dec 2026 06:06:12 GMT", 29, false },
        { "empty: fine", "", 0, false },
        { "one octet: fine", "x", 1, false },
    };
    uint8_t b[256];
    char name[200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int kind = 0; kind < 2; kind++) {
            for (int huff = 0; huff < 2; huff++) {
                size_t n = value_block(b, kind ? 0x40 : 0x00, (const uint8_t *)cases[i].v, cases[i].vn, huff);
                snprintf(name, sizeof name, "values: %s (%s, %s)%s", cases[i].name, huff ? "Huffman" : "raw",
                         kind ? "inserted" : "not indexed", cases[i].bad ? ": values_bad" : "");
                scan_values_b(name, b, n, 0, cases[i].bad);
            }
        }
    }
    /* The bad octet in the second fragment: every split is tried above;
     * here the one at the octet itself, named. */
    {
        struct hpack_decoder *t = malloc(sizeof *t);
        struct hpack_status_scan *s = malloc(sizeof *s);
        hpack_decoder_init(t, 0);
        hpack_status_scan_init(s, t);
        size_t n = value_block(b, 0x00, (const uint8_t *)"abc\rdef", 7, false);
        int r1 = hpack_status_scan_feed(s, b, n - 4, false);
        int r2 = hpack_status_scan_feed(s, b + n - 4, 4, true);
        T_CHECK("values: a CR first in the block's second fragment: values_bad", r1 == 0 && r2 == 0 && s->values_bad,
                "%d %d %d", r1, r2, s->values_bad);
        hpack_decoder_init(t, 0);
        hpack_status_scan_init(s, t);
        n = value_block(b, 0x00, (const uint8_t *)"abcdef ", 7, true);
        r1 = hpack_status_scan_feed(s, b, n - 1, false);
        r2 = hpack_status_scan_feed(s, b + n - 1, 1, true);
        T_CHECK("values: a Huffman value whose trailing SP ends in the second fragment: values_bad",
                r1 == 0 && r2 == 0 && s->values_bad, "%d %d %d", r1, r2, s->values_bad);
        free(s);
        free(t);
    }
    /* Huffman coding of values shb skips (RFC 7541 §5.2): a decoding error. */
    scan_values("values: Huffman padding of 0 bits ('0' 00000 + 000) in a skipped value: HPACK_ERR_HUFFMAN",
                "88 00 05 782d666f6f 81 00", HPACK_ERR_HUFFMAN, false);
    scan_values("values: Huffman padding of 8 bits ('a' 00011 + 111, then ff): HPACK_ERR_HUFFMAN",
                "88 00 05 782d666f6f 82 1f ff", HPACK_ERR_HUFFMAN, false);
    scan_values("values: EOS (30 one-bits) inside a skipped value: HPACK_ERR_HUFFMAN",
                "88 00 05 782d666f6f 84 ffffffff", HPACK_ERR_HUFFMAN, false);
    scan_values("values: EOS after a symbol in a skipped value (static name server): HPACK_ERR_HUFFMAN",
                "88 0f 27 85 1f ffffffff", HPACK_ERR_HUFFMAN, false);
    scan_values("values: a valid Huffman value (\"a\"), name by static index: fine", "88 0f 27 81 1f", 0, false);
    scan_values("values: a bad value, then a later error: the error wins", "88 00 01 61 01 00 80", HPACK_ERR_INDEX,
                false);
    /* From the dynamic table: the entry's value is checked at every reference. */
    {
        struct hpack_decoder *t = malloc(sizeof *t);
        struct hpack_status_scan *s = malloc(sizeof *s);
        hpack_decoder_init(t, HPACK_TABLE_MAX);
        hpack_status_scan_init(s, t);
        uint8_t b1[] = { 0x88, 0x40, 0x01, 'a', 0x02, 'x', '\r' }, b2[] = { 0x88, 0xbe }, b3[] = { 0x88, 0x7e, 0x01, 'y' };
        int r1 = hpack_status_scan_feed(s, b1, sizeof b1, true);
        bool bad1 = s->values_bad;
        hpack_status_scan_init(s, t);
        int r2 = hpack_status_scan_feed(s, b2, sizeof b2, true);
        bool bad2 = s->values_bad;
        hpack_status_scan_init(s, t);
        uint8_t one[1];
        int r2b = 0;
        for (size_t i = 0; i < sizeof b2 && r2b == 0; i++) { /* the state machine's path */
            one[0] = b2[i];
            r2b = hpack_status_scan_feed(s, one, 1, i + 1 == sizeof b2);
        }
        bool bad2b = s->values_bad;
        hpack_status_scan_init(s, t);
        int r3 = hpack_status_scan_feed(s, b3, sizeof b3, true); /* name of entry 62, a fine literal value */
        bool bad3 = s->values_bad;
        T_CHECK("values: an inserted bad value is values_bad where inserted and where referred to (62), whole and "
                "byte by byte; its name with a fine value is fine",
                r1 == 0 && bad1 && r2 == 0 && bad2 && r2b == 0 && bad2b && r3 == 0 && !bad3, "%d %d %d %d %d %d %d %d",
                r1, bad1, r2, bad2, r2b, bad2b, r3, bad3);
        free(s);
        free(t);
    }
    /* The memo of valid Huffman values (hpack.h, vmemo): one connection's
     * blocks, each like the last but for one value. */
    {
        struct hpack_decoder *t = malloc(sizeof *t);
        struct hpack_status_scan *s = malloc(sizeof *s);
        hpack_decoder_init(t, 0);
        static const char *const seq[][3] = {
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:12 GMT", "text/plain" },
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:12 GMT", "text/plain" },
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:13 GMT", "text/plain" },
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:13 GMT ", "text/plain" }, /* trailing SP */
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:13 GMT", "text/plain" },
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:1\r GMT", "text/plain" }, /* same length, a CR */
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:13 GMT", "text/plain" },
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:13 GMT", " text/plain" },
            { "x", "Wed, 02 Dec 2026 06:06:13 GMT", "text/plain" },
            { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:13 GMT", "text/plain" },
        };
        static const bool want[] = { false, false, false, true, false, true, false, true, false, false };
        bool ok = true;
        for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
            uint8_t blk[256];
            size_t o = 0;
            blk[o++] = 0x88;
            for (int f = 0; f < 3; f++) {
                blk[o++] = (uint8_t)(0x0f);
                blk[o++] = (uint8_t)((uint8_t[]){ 39, 18, 16 }[f]); /* server, date, content-type */
                size_t vn = strlen(seq[i][f]);
                size_t hn = hpack_huffman_encoded_len((const uint8_t *)seq[i][f], vn);
                blk[o++] = (uint8_t)(0x80 | hn);
                o += hpack_huffman_encode((const uint8_t *)seq[i][f], vn, blk + o);
            }
            hpack_status_scan_init(s, t);
            int rc = hpack_status_scan_feed(s, blk, o, true);
            ok &= T_QUIET("values: memo", rc == 0 && s->values_bad == want[i] && s->status == 200,
                          "block %zu: rc %d values_bad %d", i, rc, s->values_bad);
        }
        /* Bad Huffman of the same length as the valid value before it. */
        uint8_t good[] = { 0x88, 0x0f, 0x27, 0x81, 0x1f }, bad[] = { 0x88, 0x0f, 0x27, 0x81, 0x1e };
        hpack_status_scan_init(s, t);
        int r1 = hpack_status_scan_feed(s, good, sizeof good, true);
        hpack_status_scan_init(s, t);
        int r2 = hpack_status_scan_feed(s, bad, sizeof bad, true);
        T_CHECK("values: a connection's blocks with one value changing: each judged on its own, memo or not",
                ok && r1 == 0 && r2 == HPACK_ERR_HUFFMAN, "%d %d", r1, r2);
        free(s);
        free(t);
    }
}

/* The block memo (hpack.h, bmemo): a connection whose blocks come whole
 * against a twin fed byte by byte (which never uses the memo), block after
 * block, each block sent twice or three times: the same verdict, the same
 * table capacity and entries after every block. */
static void test_block_memo(void)
{
    static const char *const blocks[] = {
        NULL, /* nginx's: server, date, content-type, content-length, Huffman-coded (built below) */
        "88 00 05 782d666f6f 03 610d62",       /* values_bad */
        "88 00 01 58 01 62",                   /* names_bad */
        "08 03 32306f",                        /* malformed :status */
        "0f 0d 02 3130 0f 0d 02 3131 88",      /* clen_bad, status_late */
        "3f e1 1f 88",                         /* size update to 4096: capacity changes */
        "20 88 0f 0d 01 35",                   /* size update to 0, content-length 5 */
        "3f e1 1f 88 40 01 61 01 62",          /* capacity 4096, an insert: no memo after it */
        "88 be",                               /* refers to it */
        "20 8d",                               /* empties the table: 404 */
        "88 00 05 782d666f6f 82 507f",         /* Huffman " a": values_bad */
        "88 0f 0d 82 081f",
    };
    struct hpack_decoder *ta = malloc(sizeof *ta), *tb = malloc(sizeof *tb);
    struct hpack_status_scan *sa = malloc(sizeof *sa), *sb = malloc(sizeof *sb);
    hpack_decoder_init(ta, HPACK_TABLE_MAX);
    hpack_decoder_init(tb, HPACK_TABLE_MAX);
    bool ok = true;
    int hits = 0;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        uint8_t b[256];
        size_t n = 0;
        if (blocks[i]) {
            n = unhex(blocks[i], b, sizeof b);
        } else {
            static const char *const v[] = { "nginx/1.22.1", "Wed, 02 Dec 2026 06:06:12 GMT", "text/plain", "14" };
            b[n++] = 0x88;
            for (int f = 0; f < 4; f++) {
                b[n++] = 0x0f;
                b[n++] = (uint8_t)((uint8_t[]){ 39, 18, 16, 13 }[f]); /* server, date, content-type, content-length */
                size_t vn = strlen(v[f]);
                b[n++] = (uint8_t)(0x80 | hpack_huffman_encoded_len((const uint8_t *)v[f], vn));
                n += hpack_huffman_encode((const uint8_t *)v[f], vn, b + n);
            }
        }
        for (int rep = 0; rep < 3; rep++) {
            hpack_status_scan_init(sa, ta);
            hpack_status_scan_init(sb, tb);
            bool before = ta->bmemo_len == n && memcmp(ta->bmemo, b, n) == 0 && ta->count == 0 &&
                          ta->capacity == ta->bmemo_cap_in;
            uint8_t *copy = t_memdup(b, n);
            int ra = hpack_status_scan_feed(sa, copy, n, true);
            free(copy);
            int rb = 0;
            for (size_t k = 0; k < n && rb == 0; k++) {
                copy = t_memdup(b + k, 1);
                rb = hpack_status_scan_feed(sb, copy, 1, k + 1 == n);
                free(copy);
            }
            hits += before;
            ok &= T_QUIET("block memo", ra == rb && ra == 0 && sa->status == sb->status &&
                                            sa->malformed == sb->malformed && sa->names_bad == sb->names_bad &&
                                            sa->status_late == sb->status_late && sa->values_bad == sb->values_bad &&
                                            sa->clen_bad == sb->clen_bad && sa->content_length == sb->content_length &&
                                            tables_equal(ta, tb),
                          "block %zu round %d: rc %d/%d status %u/%u values_bad %d/%d clen %lld/%lld cap %u/%u", i,
                          rep, ra, rb, (unsigned)sa->status, (unsigned)sb->status, sa->values_bad, sb->values_bad,
                          (long long)sa->content_length, (long long)sb->content_length, ta->capacity, tb->capacity);
        }
    }
    T_CHECK("scan: the block memo gives what a scan gives, block after block (a connection's repeated blocks, "
            "size updates, inserts and references between them)",
            ok && hits >= 12, "%d memo hits", hits);
    free(sa);
    free(sb);
    free(ta);
    free(tb);
}

static void test_scanner_table(void)
{
    /* RFC 7541 C.5 and C.6: three responses on one connection, table 256:
     * by the decoder's limit, and by a size update from the default 4096. */
    static const char *const rtabs[3] = { RTAB1, RTAB2, RTAB3 };
    const char *c5hex[3] = { c51_hex, c52_hex, c53_hex }, *c6hex[3] = { c61_hex, c62_hex, c63_hex };
    for (int v = 0; v < 4; v++) {
        struct seq_step st[3] = { 0 };
        const char **hx = v & 1 ? c6hex : c5hex;
        if (v & 2)
            b_hex(&st[0].k, "3f e1 01"); /* size update to 256 (§6.3) */
        seq_hex(&st[0], hx[0], 0, 302);
        seq_hex(&st[1], hx[1], 0, 307);
        seq_hex(&st[2], hx[2], 0, 200);
        char name[128];
        snprintf(name, sizeof name, "scan table: RFC 7541 %s, %s: 302, 307, 200, the RFC's tables", v & 1 ? "C.6" : "C.5",
                 v & 2 ? "limit 4096 and a size update to 256" : "limit 256");
        scan_sequence(name, v & 2 ? 4096 : 256, st, 3, rtabs);
    }

    /* :status inserted, then referred to by dynamic index. Table after
     * each block in the comments, newest (62) first. */
    {
        struct seq_step st[12] = { 0 };
        seq_hex(&st[0], "48 03 333032", 0, 302);       /* [:status 302] */
        seq_hex(&st[1], "be", 0, 302);
        seq_hex(&st[2], "7e 03 323031", 0, 201);       /* name from 62: [201, 302] */
        seq_hex(&st[3], "bf", 0, 302);
        seq_hex(&st[4], "0f 2f 03 343034", 0, 404);    /* without indexing, name from 62 */
        seq_hex(&st[5], "48 83 640eff", 0, 307);       /* Huffman "307": [307, 201, 302] */
        seq_hex(&st[6], "be", 0, 307);
        seq_hex(&st[7], "48 03 616263 40 01 61 01 62", SCAN_STATUS_ERR, 0); /* [a: b, abc, 307, 201, 302] */
        seq_hex(&st[8], "c0", 0, 307);                 /* in step after the malformed block */
        seq_hex(&st[9], "bf", SCAN_STATUS_ERR, 0);     /* dynamic :status abc */
        seq_hex(&st[10], "88 c0", SCAN_STATUS_ERR, 0); /* two :status */
        seq_hex(&st[11], "be c1", 0, 201);
        scan_sequence("scan table: :status inserted (static name, dynamic name, Huffman), then referred to", 4096,
                      st, 12, NULL);
    }

    /* Huffman-coded inserted literals, split mid-string by the ways above;
     * literal and indexed names, a multi-octet name index. */
    {
        struct seq_step st[4] = { 0 };
        b_byte(&st[0].k, 0x88);
        b_lit(&st[0].k, 0x40, 0, "x-custom-header-name", true, "some Value, with Mixed case 0123456789", 38, true);
        b_lit(&st[0].k, 0x40, 54, NULL, false, "h2o/2.2.5", 9, true);
        b_lit(&st[0].k, 0x40, 33, NULL, false, "Sun, 29 Nov 2026 21:09:44 GMT", 29, true);
        b_lit(&st[0].k, 0x40, 0, "x-raw", false, "\x00\x01\xfe\xff binary", 11, true); /* long codes */
        st[0].want_status = 200;
        seq_hex(&st[1], "8d be bf c0 c1", 0, 404);
        b_byte(&st[2].k, 0x88);
        /* [x-raw, date, server, x-custom-header-name] */
        b_lit(&st[2].k, 0x40, 64, NULL, false, "Mon, 30 Nov 2026 00:00:00 GMT", 29, true); /* name from 64 (server) */
        b_lit(&st[2].k, 0x40, 66, NULL, false, "x", 1, true); /* two-octet name index: x-custom-header-name */
        st[2].want_status = 200;
        seq_hex(&st[3], "be bf c0 c1 c2 c3 8e", 0, 500);
        scan_sequence("scan table: Huffman-coded inserted names and values, split anywhere", 4096, st, 4, NULL);
    }
    {
        struct seq_step st[2] = { 0 };
        b_byte(&st[0].k, 0x88);
        b_lit(&st[0].k, 0x40, 0, "x-custom-header-name", true, "v", 1, true);
        st[0].want_status = 200;
        seq_hex(&st[1], "be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: limit 0: an incremental literal inserts nothing", 0, st, 2, NULL);
    }

    /* Entries at and beyond the capacity (§4.4). */
    {
        static char v[5000];
        memset(v, 'v', sizeof v);
        struct seq_step st[6] = { 0 };
        b_byte(&st[0].k, 0x88);
        b_lit(&st[0].k, 0x40, 0, "a", false, v, 100, false);           /* 133 */
        b_lit(&st[0].k, 0x40, 0, "c", false, v, 223, false);           /* 256: exactly the capacity, evicts a */
        st[0].want_status = 200;
        seq_hex(&st[1], "be", 0, 0);
        b_hex(&st[2].k, "be 88");
        static const uint8_t nul[200] = { 0 };
        b_lit(&st[2].k, 0x40, 0, "d", false, nul, 200, true); /* 325 octets coded, 233 decoded: fits */
        st[2].want_status = 200;
        T_CHECK("scan table: the Huffman value of 200 NULs is longer than the capacity",
                hpack_huffman_encoded_len(nul, 200) > 256, "%zu", hpack_huffman_encoded_len(nul, 200));
        b_hex(&st[3].k, "be 89");
        b_lit(&st[3].k, 0x40, 0, "e", false, "aaaa", 4, false);
        b_lit(&st[3].k, 0x40, 0, "f", false, v, 300, true); /* 188 octets coded, 300 decoded: too big */
        st[3].want_status = 204;
        b_hex(&st[4].k, "8d");
        b_lit(&st[4].k, 0x40, 0, "g", false, v, 20, false);
        b_lit(&st[4].k, 0x40, 62, NULL, false, v, 224, false); /* name g from 62 + 224 + 32 = 257: too big */
        st[4].want_status = 404;
        seq_hex(&st[5], "be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: an entry of exactly the capacity fits; larger ones (raw, Huffman, indexed name) "
                      "empty the table",
                      256, st, 6, NULL);
    }
    {
        static char v[5000];
        memset(v, 'w', sizeof v);
        struct seq_step st[4] = { 0 };
        b_byte(&st[0].k, 0x88);
        b_lit(&st[0].k, 0x40, 0, "n", false, v, 4063, false); /* 4096: the whole table, col full */
        st[0].want_status = 200;
        seq_hex(&st[1], "be 88", 0, 200);
        b_byte(&st[2].k, 0x88);
        b_lit(&st[2].k, 0x40, 0, "n", true, v, 4064, true); /* 4097: too big */
        st[2].want_status = 200;
        seq_hex(&st[3], "be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: limit 4096: a 4096-byte entry fits, 4097 empties the table", 4096, st, 4, NULL);
    }

    /* Size updates (§4.2, §6.3). */
    {
        struct seq_step st[3] = { 0 };
        seq_hex(&st[0], "88 40 01 61 01 62", 0, 200); /* [a: b] */
        seq_hex(&st[1], "20 be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: size update 0 empties the table: a reference fails", 4096, st, 2, NULL);
        seq_hex(&st[0], "88 40 01 61 01 62", 0, 200);
        seq_hex(&st[1], "20 88 40 01 61 01 62", 0, 200); /* capacity 0: nothing inserted */
        seq_hex(&st[2], "be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: size update 0, then an insert does nothing and a reference fails", 4096, st, 3,
                      NULL);
    }
    {
        struct seq_step st[5] = { 0 };
        seq_hex(&st[0], "88 40 01 61 01 62 40 01 63 01 64", 0, 200); /* [c: d, a: b], 68 bytes */
        seq_hex(&st[1], "20 3f e1 1f 40 01 65 01 66 89 be", 0, 204); /* 0, 4096: [e: f] */
        seq_hex(&st[2], "40 01 67 01 68 8d", 0, 404);                 /* [g: h, e: f] */
        seq_hex(&st[3], "3f 03 88 be", 0, 200);                       /* capacity 34: [g: h] */
        seq_hex(&st[4], "bf", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: size updates evict, shrink and grow the table", 4096, st, 5, NULL);
    }
    {
        struct seq_step st[3] = { 0 };
        seq_hex(&st[0], "34 88 40 00 00", 0, 200); /* capacity 20: no entry fits */
        seq_hex(&st[1], "be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: capacity 20: even an empty entry (32) does not fit", 4096, st, 2, NULL);
        seq_hex(&st[0], "3f e2 01 88", HPACK_ERR_TABLE_SIZE, 0);
        scan_sequence("scan table: limit 256: size update 257 is HPACK_ERR_TABLE_SIZE", 256, st, 1, NULL);
        seq_hex(&st[0], "88 be", HPACK_ERR_INDEX, 0);
        scan_sequence("scan table: limit 256: a reference into the empty table fails", 256, st, 1, NULL);
    }
}

/* ---------------------------------------------------- request encoding */

/* Encodes o's request and decodes it back (table size 4096: the request
 * must leave the table empty, since it never indexes). */
static bool request_is(const struct shb_request *o, const char *want, uint8_t **bytes, size_t *blen)
{
    size_t len = 0;
    uint8_t *req = hpack_encode_request(o, &len);
    if (!req)
        return false;
    struct hpack_decoder d;
    hpack_decoder_init(&d, 4096);
    struct list *l = list_new();
    int rc = hpack_decode(&d, req, len, scratch, sizeof scratch, collect, l);
    bool ok = rc == 0 && d.count == 0 && strcmp(l->text, want) == 0;
    if (!ok)
        printf("  rc=%d count=%u got:\n%s", rc, (unsigned)d.count, l->text);
    free(l);
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

static void test_request(void)
{
    struct shb_request o = t_request_base();
    uint8_t *req;
    size_t len;
    bool ok = request_is(&o, ":method: GET\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS,
                         &req, &len);
    struct blk want = { 0 };
    b_hex(&want, "82 86 01");
    b_str(&want, "example.com:8080", 16, true);
    b_hex(&want, "84 0f2b 03 736862 0f04 03 2a2f2a");
    T_CHECK("request: default GET: indexed :method/:scheme/:path, :authority literal (Huffman), user-agent, accept",
            ok && len == want.n && memcmp(req, want.b, len) == 0, "len %zu want %zu", len, want.n);
    b_free(&want);
    free(req);

    o = t_request_base();
    o.method = NULL;
    o.https = true;
    o.target = "/index.html";
    T_CHECK("request: https and /index.html use static entries 7 and 5",
            request_is(&o, ":method: GET\n:scheme: https\n:authority: example.com:8080\n:path: /index.html\n" DEFAULTS,
                       &req, &len) &&
                len > 3 && req[0] == 0x82 && req[1] == 0x87 && contains(req, len, "85 0f2b"),
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
    T_CHECK("request: POST with a body gets content-length after the user headers",
            request_is(&o, ":method: POST\n:scheme: http\n:authority: example.com:8080\n:path: /api?x=1&y=2\n" DEFAULTS
                           "content-type: application/json\ncontent-length: 7\n",
                       &req, &len) &&
                req[0] == 0x83 && contains(req, len, "0f 10") && contains(req, len, "0f 0d"),
            "wrong bytes");
    free(req);

    struct shb_header cl[] = { { "Content-Length", "3" } };
    o = t_request_base();
    o.method = "PUT";
    o.headers = cl;
    o.nheaders = 1;
    o.body = body;
    o.body_len = 3;
    o.has_body = true;
    T_CHECK("request: PUT (literal :method, name index 2) with the user's Content-Length only",
            request_is(&o, ":method: PUT\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS
                           "content-length: 3\n",
                       &req, &len) &&
                req[0] == 0x02,
            "wrong bytes");
    free(req);

    o = t_request_base();
    o.method = "HEAD";
    T_CHECK("request: HEAD (literal :method)",
            request_is(&o, ":method: HEAD\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS, &req,
                       &len) &&
                req[0] == 0x02,
            "wrong bytes");
    free(req);

    static char longv[600];
    memset(longv, 'Z', sizeof longv - 1);
    struct shb_header mixed[] = { { "X-Custom-Header", "Mixed Case Value" }, { "User-Agent", "Bench/1.0" },
                                  { "Accept-Encoding", "gzip, deflate" }, { "COOKIE", "a=b" },
                                  { "X-LONG", longv },  { "x-empty", "" } };
    o = t_request_base();
    o.headers = mixed;
    o.nheaders = 6;
    char want_text[2048];
    snprintf(want_text, sizeof want_text,
             ":method: GET\n:scheme: http\n:authority: example.com:8080\n:path: /\naccept: */*\n"
             "x-custom-header: Mixed Case Value\nuser-agent: Bench/1.0\naccept-encoding: gzip, deflate\n"
             "cookie: a=b\nx-long: %s\nx-empty: \n",
             longv);
    T_CHECK("request: names lowercased (literal and static-name), values kept, exact static pair indexed",
            request_is(&o, want_text, &req, &len) && contains(req, len, "90") && contains(req, len, "0f 11"),
            "wrong fields or bytes");
    free(req);
}

/* ---------------------------------------------------------- robustness */

static bool known_rc(int rc)
{
    return rc == 0 || (rc <= HPACK_ERR_TRUNCATED && rc >= HPACK_ERR_STATUS);
}

static int robust_tabled;

static void robust_one(struct hpack_decoder *d, const uint8_t *b, size_t n, bool *ok, int *accepted)
{
    uint8_t *copy = t_memdup(b, n);
    struct hpack_decoder *before = malloc(sizeof *before), *t1 = malloc(sizeof *t1), *t2 = malloc(sizeof *t2);
    *before = *d;
    struct first_status fd = { { 0 }, false };
    int rc = hpack_decode(d, copy, n, scratch, sizeof scratch, find_status, &fd);
    *ok &= T_QUIET("robust: decode rc", known_rc(rc), "rc=%d", rc);
    if (rc == 0)
        (*accepted)++;

    /* Scanner: whole and randomly split must agree. */
    uint16_t st_whole, st_split;
    int rw = scan_cuts(copy, n, NULL, 0, &st_whole);
    size_t cuts[4], nc = 0;
    size_t ncuts = n > 1 ? t_rng_below(4) + 1 : 0;
    for (size_t i = 0; i < ncuts; i++) {
        size_t c = 1 + t_rng_below(n - 1);
        if (nc == 0 || c > cuts[nc - 1])
            cuts[nc++] = c;
    }
    int rs = scan_cuts(copy, n, cuts, nc, &st_split);
    *ok &= T_QUIET("robust: scan rc", known_rc(rw) && rw == rs && (rw != 0 || st_whole == st_split),
                   "whole %d/%u split %d/%u", rw, (unsigned)st_whole, rs, (unsigned)st_split);

    /* Against a table-size-0 decoder: where both accept, same :status; where
     * the decoder accepts, the scanner fails only over :status itself. */
    struct hpack_decoder d0;
    hpack_decoder_init(&d0, 0);
    struct first_status f = { { 0 }, false };
    int r0 = hpack_decode(&d0, copy, n, scratch, sizeof scratch, find_status, &f);
    if (r0 == 0 && rw == 0)
        *ok &= T_QUIET("robust: scanner vs decoder status", st_whole == (f.found ? (unsigned)atoi(f.v) : 0u),
                       "scan %u decoder %s", (unsigned)st_whole, f.v);
    if (r0 == 0 && rw != 0)
        *ok &= T_QUIET("robust: scanner fails only on :status", f.found && (rw == SCAN_STATUS_ERR || rw == HPACK_ERR_HUFFMAN),
                       "rw=%d", rw);

    /* With d's table (whatever earlier blocks left in it): the scanner, whole
     * and split, on copies of the table as it was, against hpack_decode on
     * d. Where the decoder accepts, the scanner accepts too (or fails over
     * :status), with the same :status and the same table; whole and split
     * always agree, tables included. */
    *t1 = *before;
    *t2 = *before;
    uint16_t tw, ts;
    int rtw = scan_cuts_t(t1, copy, n, NULL, 0, &tw);
    int rts = scan_cuts_t(t2, copy, n, cuts, nc, &ts);
    *ok &= T_QUIET("robust: tabled scan, whole vs split",
                   known_rc(rtw) && rtw == rts && (rtw != 0 || tw == ts) &&
                       ((rtw != 0 && rtw != SCAN_STATUS_ERR) || tables_equal(t1, t2)),
                   "whole %d/%u split %d/%u", rtw, (unsigned)tw, rts, (unsigned)ts);
    if (rc == 0) {
        unsigned dv = fd.found ? (unsigned)atoi(fd.v) : 0u;
        *ok &= T_QUIET("robust: tabled scan vs hpack_decode",
                       rtw == 0 ? tw == dv && tables_equal(t1, d)
                                : fd.found && (rtw == HPACK_ERR_HUFFMAN || (rtw == SCAN_STATUS_ERR && tables_equal(t1, d))),
                       "scan %d/%u decoder %u, same table %d", rtw, (unsigned)tw, dv, (int)tables_equal(t1, d));
        robust_tabled += d->count > 0;
    }
    free(before);
    free(t1);
    free(t2);
    free(copy);
}

static void test_robustness(void)
{
    struct hpack_decoder *d = malloc(sizeof *d);
    hpack_decoder_init(d, 4096);
    bool ok = true;
    int accepted = 0;
    uint8_t b[128];
    for (int i = 0; i < 4000; i++) {
        size_t n = t_rng_below(sizeof b);
        int style = (int)t_rng_below(3);
        for (size_t j = 0; j < n; j++) {
            uint8_t v = (uint8_t)t_rng();
            if (style == 1 && j % 4 == 0) /* bias toward plausible first octets */
                v = (uint8_t)((v & 0x0f) | (uint8_t[]){ 0x00, 0x10, 0x40, 0x80 }[t_rng_below(4)]);
            if (style == 2)
                v &= 0x8f; /* small lengths and indices */
            b[j] = v;
        }
        robust_one(d, b, n, &ok, &accepted);
        if (t_rng_below(50) == 0)
            hpack_decoder_init(d, (uint32_t)t_rng_below(4097));
    }
    T_CHECK("robust: 4000 random blocks through hpack_decode and the scanner: clean errors only", ok, "see above");

    /* Mutations of valid blocks. */
    const char *seeds[] = { c3[0].hex, c3[1].hex, c3[2].hex, c4[0].hex, c4[1].hex, c4[2].hex, c51_hex, c52_hex,
                            c53_hex,  c61_hex,   c62_hex,   c63_hex,   "08 82 6402",
                            "00 85 b8848d36a3 03 333032", "20 88 0f27 05 6e67696e78" };
    int accepted2 = 0;
    ok = true;
    for (int i = 0; i < 4000; i++) {
        const char *seed = seeds[t_rng_below(sizeof seeds / sizeof seeds[0])];
        uint8_t m[256];
        size_t n = unhex(seed, m, sizeof m - 8);
        int nmut = 1 + (int)t_rng_below(3);
        for (int j = 0; j < nmut && n; j++) {
            size_t at = t_rng_below(n);
            switch (t_rng_below(5)) {
            case 0: m[at] ^= (uint8_t)(1u << t_rng_below(8)); break;
            case 1: m[at] = (uint8_t)t_rng(); break;
            case 2: n = at; break; /* truncate */
            case 3:
                memmove(m + at + 1, m + at, n - at);
                m[at] = (uint8_t)t_rng();
                n++;
                break;
            default: memmove(m + at, m + at + 1, n - at - 1); n--; break;
            }
        }
        if (t_rng_below(2))
            hpack_decoder_init(d, t_rng_below(2) ? 256 : 4096);
        robust_one(d, m, n, &ok, &accepted2);
    }
    T_CHECK("robust: 4000 mutated RFC/scanner blocks: clean errors only, scanner split-independent", ok,
            "see above");
    printf("  robust: %d random and %d mutated blocks decoded without error (%d with a non-empty table)\n", accepted,
           accepted2, robust_tabled);
    free(d);
}


/* ------------------------------------------------ indexed request blocks */

/* Decodes block through d into a fresh list; true when it gives want. */
static bool decodes_to(struct hpack_decoder *d, const uint8_t *b, size_t n, const char *want)
{
    struct list *l = list_new();
    int rc = hpack_decode(d, b, n, scratch, sizeof scratch, collect, l);
    bool ok = rc == 0 && strcmp(l->text, want) == 0;
    if (!ok)
        printf("  rc=%d got:\n%s", rc, l->text);
    free(l);
    return ok;
}

static void test_request_indexed(void)
{
    static const char want[] = ":method: GET\n:scheme: http\n:authority: example.com:8080\n:path: /\n" DEFAULTS
                               "x-trace: abc\n";
    struct shb_header xs[] = { { "X-Trace", "abc" } };
    struct shb_request o = t_request_base();
    o.headers = xs;
    o.nheaders = 1;
    struct hpack_request_blocks b;
    int rc = hpack_encode_request_indexed(&o, &b);
    T_CHECK("request indexed: encodes", rc == 0, "rc %d", rc);
    if (rc != 0)
        return;
    /* Entries (RFC 7541 §4.1): :authority 10+16+32, user-agent 10+3+32,
     * accept 6+3+32, x-trace 7+3+32. */
    T_CHECK("request indexed: table_bytes is what the entries take (§4.1)",
            b.table_bytes == 58 + 45 + 41 + 42, "%u", b.table_bytes);

    struct hpack_decoder d;
    hpack_decoder_init(&d, 4096);
    T_CHECK("request indexed: the first block decodes to the request's fields", decodes_to(&d, b.first, b.first_len, want),
            "wrong fields");
    T_CHECK("request indexed: ... and inserts the four fields the static table lacks",
            d.count == 4 && d.size == b.table_bytes, "count %u size %u", (unsigned)d.count, (unsigned)d.size);
    /* :authority was inserted first, so it is the oldest: 62 + 3 = 65. */
    static const uint8_t next_want[] = { 0x82, 0x86, 0x80 | 65, 0x84, 0x80 | 64, 0x80 | 63, 0x80 | 62 };
    T_CHECK("request indexed: the next block is one indexed byte a field, the newest entry at 62",
            b.next_len == sizeof next_want && memcmp(b.next, next_want, sizeof next_want) == 0, "len %zu", b.next_len);
    bool ok = true;
    for (int i = 0; i < 3; i++)
        ok = ok && decodes_to(&d, b.next, b.next_len, want);
    T_CHECK("request indexed: later blocks decode to the same fields and leave the table as it was",
            ok && d.count == 4 && d.size == b.table_bytes, "count %u", (unsigned)d.count);
    T_CHECK("request indexed: the first block carries literals with incremental indexing (01xxxxxx)",
            contains(b.first, b.first_len, "41") && contains(b.first, b.first_len, "7a") &&
                contains(b.first, b.first_len, "53") && contains(b.first, b.first_len, "40"),
            "no 0x41 (:authority), 0x7a (user-agent), 0x53 (accept) or 0x40 (x-trace, literal name)");
    free(b.first);

    /* A request too large for 4096 bytes of table: the plain block, always. */
    static char big[4200];
    memset(big, 'v', sizeof big - 1);
    struct shb_header bh[] = { { "X-Big", big } };
    o = t_request_base();
    o.headers = bh;
    o.nheaders = 1;
    T_CHECK("request indexed: entries above 4096 bytes: 1, nothing allocated", hpack_encode_request_indexed(&o, &b) == 1,
            "indexed anyway");
}

int main(void)
{
    test_integers();
    test_huffman();
    test_static();
    test_appendix_c();
    test_decoder_edges();
    test_model();
    test_scanner();
    test_scanner_table();
    test_names();
    test_values();
    test_huffman_check_vs_decoder();
    test_block_memo();
    test_request();
    test_request_indexed();
    test_robustness();
    T_DONE();
}
