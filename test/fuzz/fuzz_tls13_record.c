/* test/fuzz/fuzz_tls13_record.c — TLS 1.3 record protection (tls13/record.h).
 *
 * Input: [suite] [flags], then bytes used three ways, with fixed keys for
 * the suite the first byte picks (TLS_AES_128_GCM_SHA256,
 * TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, or an unkeyed
 * direction):
 *
 * 1. Round trip. The bytes are cut into records ([content type] [length, 2
 *    bytes] [content]); each is sealed and opened back by a direction with
 *    the same keys. record.h says which come back: application data of any
 *    length, handshake and alert content of at least one byte, and a
 *    change_cipher_spec of the single byte 0x01 (sent in the clear, no
 *    sequence number); everything else is refused with -10
 *    unexpected_message (both sides are then rekeyed, as a new connection
 *    would be). A sealed record is also opened with one bit flipped (bit
 *    picked by the input) by a copy of the reader: that must fail; and seal
 *    into one byte too little room must write nothing (0) and leave the
 *    direction usable.
 * 2. Inner plaintext. The bytes are taken as a TLSInnerPlaintext (content,
 *    type, zero padding; RFC 8446 §5.2, §5.4) and protected directly with
 *    the AEAD, so that open's handling of what it decrypts (padding, inner
 *    type, length) is reached with any content; its result is compared with
 *    §5.4 done by hand here.
 * 3. Raw ciphertext. The bytes are cut into records by their own headers
 *    and opened as they are: every result must be 0 or one of the alerts
 *    record.h lists, and a success must point inside the record. */
#include "fuzz.h"
#include "tls13/record.h"

static const uint16_t suites[3] = { 0x1301, 0x1302, 0x1303 };
static const uint8_t key[32] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
                                 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
                                 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 };
static const uint8_t iv[12] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab };

#define REC_MAX (TLS13_RECORD_HDR + TLS13_MAX_CIPHERTEXT)

static struct tls13_record_dir wr, rd, rd_copy;
static uint8_t rec[REC_MAX + 64], tampered[REC_MAX + 64];

static bool is_alert(int rc)
{
    return rc == -10 || rc == -20 || rc == -22 || rc == -50 || rc == -80;
}

/* Both directions keyed alike (suite_ix 3: unkeyed). */
static void key_both(unsigned suite_ix)
{
    memset(&wr, 0, sizeof wr);
    memset(&rd, 0, sizeof rd);
    if (suite_ix < 3) {
        FZ_CHECK(tls13_record_key(&wr, suites[suite_ix], key, iv) == 0, "key");
        FZ_CHECK(tls13_record_key(&rd, suites[suite_ix], key, iv) == 0, "key");
    }
}

/* Opened records must point into the record and say what record.h allows. */
static void check_opened(const uint8_t *r, size_t rlen, uint8_t ct, const uint8_t *plain, size_t plain_len)
{
    FZ_CHECK(ct >= 20 && ct <= 23, "content type %u", ct);
    FZ_CHECK(plain >= r + TLS13_RECORD_HDR && plain + plain_len <= r + rlen, "plaintext outside the record");
    FZ_CHECK(plain_len <= TLS13_MAX_PLAINTEXT, "%zu bytes of plaintext", plain_len);
    FZ_CHECK(plain_len > 0 || ct == 23, "empty content of type %u", ct);
}

static void round_trip(unsigned suite_ix, uint8_t flags, const uint8_t *p, size_t n)
{
    key_both(suite_ix);
    struct fz_reader in = { p, n };
    while (in.n > 0) {
        uint8_t ct = fz_u8(&in);
        if (ct == 0)
            ct = TLS13_CT_APPLICATION_DATA; /* type 0 would read as padding (§5.4): no type to seal */
        size_t len = fz_u16(&in) % (TLS13_MAX_PLAINTEXT + 1);
        if (len > in.n)
            len = in.n;
        const uint8_t *content = in.p;
        in.p += len;
        in.n -= len;
        bool clear = !wr.keyed || ct == TLS13_CT_CHANGE_CIPHER_SPEC;
        size_t want = clear ? TLS13_RECORD_HDR + len : tls13_record_overhead() + len;

        if (flags & 1) { /* no room: nothing written, nothing consumed */
            size_t w0 = tls13_record_seal(&wr, ct, content, len, rec, want - 1);
            FZ_CHECK(w0 == 0, "seal into %zu bytes of room for %zu wrote %zu", want - 1, want, w0);
        }
        size_t w = tls13_record_seal(&wr, ct, content, len, rec, sizeof rec);
        FZ_CHECK(w == want, "sealed %zu bytes of type %u into %zu, expected %zu", len, ct, w, want);
        FZ_CHECK(rec[0] == (clear ? ct : TLS13_CT_APPLICATION_DATA), "outer type %u", rec[0]);

        if (wr.keyed && !clear) {
            /* §5.2: the whole record is authenticated, header included. */
            memcpy(tampered, rec, w);
            size_t bit = (size_t)(len ? content[0] : ct) * 131 + len;
            bit %= w * 8;
            tampered[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            rd_copy = rd;
            uint8_t tct, *tplain;
            size_t tlen;
            int trc = tls13_record_open(&rd_copy, tampered, w, &tct, &tplain, &tlen);
            FZ_CHECK(is_alert(trc), "a record with bit %zu flipped opened: %d", bit, trc);
        }

        uint8_t oct = 0, *plain = NULL;
        size_t plain_len = 0;
        int rc = tls13_record_open(&rd, rec, w, &oct, &plain, &plain_len);
        bool ok = ct == TLS13_CT_APPLICATION_DATA ||
                  ((ct == TLS13_CT_HANDSHAKE || ct == TLS13_CT_ALERT) && len > 0) ||
                  (ct == TLS13_CT_CHANGE_CIPHER_SPEC && len == 1 && content[0] == 1);
        if (!ok) {
            FZ_CHECK(rc == -10, "type %u with %zu bytes: open says %d, not unexpected_message", ct, len, rc);
            key_both(suite_ix);
            continue;
        }
        FZ_CHECK(rc == 0, "type %u with %zu bytes did not open: %d", ct, len, rc);
        check_opened(rec, w, oct, plain, plain_len);
        FZ_CHECK(oct == ct && plain_len == len && (len == 0 || memcmp(plain, content, len) == 0),
                 "type %u, %zu bytes came back as type %u, %zu bytes", ct, len, oct, plain_len);
    }
}

/* §5.4 by hand: what open must make of an authenticated inner plaintext. */
static int expected_inner(const uint8_t *inner, size_t n, uint8_t *ct, size_t *len)
{
    while (n > 0 && inner[n - 1] == 0)
        n--;
    if (n == 0)
        return -10; /* no content type */
    *ct = inner[n - 1];
    *len = n - 1;
    if (*len > TLS13_MAX_PLAINTEXT)
        return -22;
    if (*ct < 21 || *ct > 23)
        return -10; /* unknown, or a protected change_cipher_spec */
    if (*len == 0 && *ct != 23)
        return -10;
    return 0;
}

static void inner_plaintext(unsigned suite_ix, const uint8_t *p, size_t n)
{
    if (suite_ix >= 3)
        return;
    key_both(suite_ix);
    struct tls13_aead a;
    FZ_CHECK(tls13_aead_init(&a, suites[suite_ix], key, iv) == 0, "aead");
    size_t inner = n > TLS13_MAX_CIPHERTEXT - TLS13_TAG_LEN ? TLS13_MAX_CIPHERTEXT - TLS13_TAG_LEN : n;
    size_t len = inner + TLS13_TAG_LEN;
    rec[0] = TLS13_CT_APPLICATION_DATA;
    rec[1] = 3;
    rec[2] = 3;
    rec[3] = (uint8_t)(len >> 8);
    rec[4] = (uint8_t)len;
    memcpy(rec + TLS13_RECORD_HDR, p, inner);
    tls13_aead_seal(&a, 0, rec, TLS13_RECORD_HDR, rec + TLS13_RECORD_HDR, inner, rec + TLS13_RECORD_HDR + inner);
    tls13_aead_wipe(&a);

    uint8_t want_ct = 0, ct = 0, *plain = NULL;
    size_t want_len = 0, plain_len = 0;
    int want = expected_inner(p, inner, &want_ct, &want_len);
    int rc = tls13_record_open(&rd, rec, TLS13_RECORD_HDR + len, &ct, &plain, &plain_len);
    FZ_CHECK(rc == want, "inner plaintext of %zu bytes: open says %d, §5.4 says %d", inner, rc, want);
    if (rc == 0) {
        check_opened(rec, TLS13_RECORD_HDR + len, ct, plain, plain_len);
        FZ_CHECK(ct == want_ct && plain_len == want_len && memcmp(plain, p, plain_len) == 0,
                 "inner plaintext came back as type %u, %zu bytes", ct, plain_len);
    }
}

static void raw_records(unsigned suite_ix, uint8_t flags, const uint8_t *p, size_t n)
{
    key_both(suite_ix);
    while (n > 0) {
        size_t rlen = n >= TLS13_RECORD_HDR ? TLS13_RECORD_HDR + ((size_t)p[3] << 8 | p[4]) : n;
        if (flags & 2) /* now and then a length that is not the record's: decode_error */
            rlen += (p[0] & 3) == 3 ? 1 : 0;
        if (rlen > n)
            rlen = n;
        if (rlen > sizeof rec)
            rlen = sizeof rec;
        memcpy(rec, p, rlen);
        uint8_t ct = 0, *plain = NULL;
        size_t plain_len = 0;
        int rc = tls13_record_open(&rd, rec, rlen, &ct, &plain, &plain_len);
        if (rc == 0)
            check_opened(rec, rlen, ct, plain, plain_len);
        else
            FZ_CHECK(is_alert(rc), "open returned %d", rc);
        p += rlen;
        n -= rlen;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    struct fz_reader in = { data, size };
    unsigned suite_ix = fz_u8(&in) & 3;
    uint8_t flags = fz_u8(&in);
    round_trip(suite_ix, flags, in.p, in.n);
    inner_plaintext(suite_ix, in.p, in.n);
    raw_records(suite_ix, flags, in.p, in.n);
    return 0;
}
