/* test/unit/unit_quic_packet.c — QUIC v1 packets (quic/varint.h, quic/packet.c).
 *
 * Known answers:
 *  - RFC 9000 Appendix A.1 (varints), A.2 (packet number length examples)
 *    and A.3 (packet number decoding example);
 *  - RFC 9001 Appendix A (test/vectors/quic_vectors.h): A.2 and A.3 Initial packets
 *    built, sealed and opened byte for byte, A.4 Retry integrity tag, A.5
 *    ChaCha20-Poly1305 short header packet, and their header protection
 *    masks;
 *  - FIPS-197 Appendix C.1 / C.3 for the AES-ECB behind AES-256 header
 *    protection (RFC 9001 has no AES-256 sample).
 * Everything else is built by the module's own builders and checked for
 * round trips, rejections and the datagram walk. Inputs that are cut short
 * go in as exact-size heap copies, so under ASan any read past the end of
 * what was delivered fails the run. */
#include <stdint.h>
#include <stdlib.h>

#include "quic/packet.h"
#include "quic/varint.h"
#include "test/vectors/quic_vectors.h"
#include "test/unit/t.h"
#include "tls13/keysched.h"

/* ---- helpers ---- */

/* Deterministic filler. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

/* ---- varints (RFC 9000 §16, Appendix A.1) ---- */

static void test_varint(void)
{
    static const struct {
        const char *hex;
        uint64_t v;
        int minimal; /* the encoding is the minimal one */
    } ex[] = {
        {"c2197c5eff14e88c", UINT64_C(151288809941952652), 1},
        {"9d7f3e7d", 494878333, 1},
        {"7bbd", 15293, 1},
        {"25", 37, 1},
        {"4025", 37, 0},
    };
    char name[120];

    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        struct vec w = V(ex[i].hex);
        uint8_t in[8], out[8];
        const uint8_t *p = in;
        uint64_t v = 0;
        memcpy(in, w.p, w.n);
        int rc = quic_varint_get(&p, in + w.n, &v);
        snprintf(name, sizeof name, "varint A.1: 0x%s decodes to %llu", ex[i].hex, (unsigned long long)ex[i].v);
        T_CHECK(name, rc == 0 && v == ex[i].v && p == in + w.n, "rc %d v %llu used %td", rc, (unsigned long long)v,
                p - in);

        /* Every shorter input is truncated and leaves the cursor alone. */
        int ok = 1;
        for (size_t cut = 0; cut < w.n; cut++) {
            uint8_t *c = t_memdup(w.p, cut);
            const uint8_t *q = c;
            ok &= T_QUIET("varint truncated", quic_varint_get(&q, c + cut, &v) == -1 && q == c, "cut %zu", cut);
            free(c);
        }
        snprintf(name, sizeof name, "varint A.1: every truncation of 0x%s is rejected", ex[i].hex);
        T_CHECK(name, ok, "see above");

        /* Forced length reproduces the example's bytes. */
        uint8_t *e = quic_varint_put_len(out, out + sizeof out, ex[i].v, w.n);
        snprintf(name, sizeof name, "varint A.1: %llu on %zu bytes encodes as 0x%s", (unsigned long long)ex[i].v,
                 w.n, ex[i].hex);
        T_CHECK(name, e == out + w.n && memcmp(out, w.p, w.n) == 0, "differs");
        if (ex[i].minimal) {
            e = quic_varint_put(out, out + sizeof out, ex[i].v);
            snprintf(name, sizeof name, "varint A.1: %llu minimal encoding is 0x%s", (unsigned long long)ex[i].v,
                     ex[i].hex);
            T_CHECK(name, e == out + w.n && memcmp(out, w.p, w.n) == 0 && quic_varint_size(ex[i].v) == w.n,
                    "differs");
        }
    }

    /* Boundaries of each length (§16 Table 4). */
    static const struct {
        uint64_t v;
        size_t len;
    } b[] = {
        {0, 1},
        {63, 1},
        {64, 2},
        {16383, 2},
        {16384, 4},
        {1073741823, 4},
        {1073741824, 8},
        {QUIC_VARINT_MAX, 8},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        uint8_t out[9];
        const uint8_t *p = out;
        uint64_t v = ~(uint64_t)0;
        ok &= T_QUIET("varint size", quic_varint_size(b[i].v) == b[i].len, "v %llu", (unsigned long long)b[i].v);
        uint8_t *e = quic_varint_put(out, out + sizeof out, b[i].v);
        ok &= T_QUIET("varint put", e == out + b[i].len && quic_varint_len_of(out[0]) == b[i].len, "v %llu",
                      (unsigned long long)b[i].v);
        ok &= T_QUIET("varint round trip", quic_varint_get(&p, e, &v) == 0 && v == b[i].v && p == e, "v %llu",
                      (unsigned long long)b[i].v);
        /* No room for one byte less. */
        ok &= T_QUIET("varint put without room", quic_varint_put(out, out + b[i].len - 1, b[i].v) == NULL, "v %llu",
                      (unsigned long long)b[i].v);
        /* Too small a forced length refuses; every larger one round-trips. */
        static const size_t lens[] = {1, 2, 4, 8};
        for (size_t j = 0; j < 4; j++) {
            e = quic_varint_put_len(out, out + sizeof out, b[i].v, lens[j]);
            p = out;
            if (lens[j] < b[i].len)
                ok &= T_QUIET("varint forced too short", e == NULL, "v %llu len %zu", (unsigned long long)b[i].v,
                              lens[j]);
            else
                ok &= T_QUIET("varint forced", e == out + lens[j] && quic_varint_get(&p, e, &v) == 0 &&
                                                   v == b[i].v && p == e,
                              "v %llu len %zu", (unsigned long long)b[i].v, lens[j]);
        }
    }
    T_CHECK("varint: 1/2/4/8-byte boundaries, minimal and forced lengths, no room", ok, "see above");

    uint8_t out[16];
    T_CHECK("varint: 2^62 is too large", quic_varint_size(QUIC_VARINT_MAX + 1) == 0 &&
                                             quic_varint_put(out, out + 16, QUIC_VARINT_MAX + 1) == NULL &&
                                             quic_varint_put_len(out, out + 16, QUIC_VARINT_MAX + 1, 8) == NULL,
            "accepted");
    T_CHECK("varint: forced lengths other than 1/2/4/8 refuse", quic_varint_put_len(out, out + 16, 1, 3) == NULL &&
                                                                  quic_varint_put_len(out, out + 16, 1, 0) == NULL &&
                                                                  quic_varint_put_len(out, out + 16, 1, 16) == NULL,
            "accepted");
    const uint8_t *p = out;
    uint64_t v;
    T_CHECK("varint: empty input", quic_varint_get(&p, out, &v) == -1 && p == out, "accepted");
}

/* ---- packet numbers (RFC 9000 §17.1, Appendix A.2, A.3) ---- */

static void test_pn(void)
{
    /* A.2's examples. */
    T_CHECK("pn A.2: 0xac5c02 after ack of 0xabe8b3 takes 16 bits", quic_pn_encode_len(0xac5c02, 0xabe8b3) == 2,
            "%zu", quic_pn_encode_len(0xac5c02, 0xabe8b3));
    T_CHECK("pn A.2: 0xace8fe after ack of 0xabe8b3 takes 24 bits", quic_pn_encode_len(0xace8fe, 0xabe8b3) == 3,
            "%zu", quic_pn_encode_len(0xace8fe, 0xabe8b3));

    /* "More than twice the range": n bytes while unacked < 2^(8n-1). */
    const uint64_t la = 1000;
    T_CHECK("pn len: 127 unacked -> 1 byte, 128 -> 2",
            quic_pn_encode_len(la + 127, la) == 1 && quic_pn_encode_len(la + 128, la) == 2, "%zu %zu",
            quic_pn_encode_len(la + 127, la), quic_pn_encode_len(la + 128, la));
    T_CHECK("pn len: 2^15-1 unacked -> 2 bytes, 2^15 -> 3",
            quic_pn_encode_len(la + 32767, la) == 2 && quic_pn_encode_len(la + 32768, la) == 3, "wrong");
    T_CHECK("pn len: 2^23-1 unacked -> 3 bytes, 2^23 -> 4",
            quic_pn_encode_len(la + 8388607, la) == 3 && quic_pn_encode_len(la + 8388608, la) == 4, "wrong");
    T_CHECK("pn len: 2^31-1 unacked -> 4 bytes, 2^31 -> cannot (0)",
            quic_pn_encode_len(la + 2147483647u, la) == 4 && quic_pn_encode_len(la + 2147483648u, la) == 0, "wrong");
    /* No acknowledgment yet: the whole number, counted from 0 (§17.1). */
    T_CHECK("pn len, nothing acked: 0 and 126 -> 1 byte, 127 -> 2",
            quic_pn_encode_len(0, QUIC_PN_NONE) == 1 && quic_pn_encode_len(126, QUIC_PN_NONE) == 1 &&
                quic_pn_encode_len(127, QUIC_PN_NONE) == 2,
            "wrong");
    T_CHECK("pn len, nothing acked: 2^31-2 -> 4 bytes, 2^31-1 -> cannot",
            quic_pn_encode_len(2147483646u, QUIC_PN_NONE) == 4 && quic_pn_encode_len(2147483647u, QUIC_PN_NONE) == 0,
            "wrong");
    T_CHECK("pn len near 2^62: 2^62-1 after 2^62-2 -> 1 byte; 2^62 refused",
            quic_pn_encode_len(QUIC_PN_MAX, QUIC_PN_MAX - 1) == 1 &&
                quic_pn_encode_len(QUIC_PN_MAX - 200, QUIC_PN_MAX - 400) == 2 &&
                quic_pn_encode_len(QUIC_PN_MAX + 1, QUIC_PN_MAX) == 0,
            "wrong");

    /* A.3's example, and the window's edges. */
    uint64_t d = quic_pn_decode(0xa82f30ea, 0x9b32, 2);
    T_CHECK("pn A.3: 0x9b32 after 0xa82f30ea decodes to 0xa82f9b32", d == 0xa82f9b32, "0x%llx",
            (unsigned long long)d);
    static const struct {
        uint64_t largest, trunc;
        size_t len;
        uint64_t want;
        const char *what;
    } dc[] = {
        {QUIC_PN_NONE, 0, 1, 0, "first packet, pn 0"},
        {QUIC_PN_NONE, 1, 2, 1, "first packet, pn 1 (A.3 server Initial)"},
        {QUIC_PN_NONE, 0xff, 1, 0xff, "first packet, 0xff stays (no negative)"},
        {QUIC_PN_NONE, 0x7fffffff, 4, 0x7fffffff, "first packet, 4 bytes"},
        {0x2ff, 0x00, 1, 0x300, "next in order across a byte boundary"},
        {0x2fe, 0xfe, 1, 0x2fe, "a duplicate of the largest"},
        {0x280, 0x01, 1, 0x301, "candidate at expected - hwin moves up"},
        {0x281, 0x03, 1, 0x203, "candidate just above expected - hwin stays"},
        {0x281, 0x02, 1, 0x302, "candidate at expected - hwin moves up (window is half-open)"},
        {0x301, 0xff, 1, 0x2ff, "candidate above expected + hwin moves down"},
        {0x37e, 0xff, 1, 0x3ff, "candidate at expected + hwin stays"},
        {0xa82f30ea, 0x30eb, 2, 0xa82f30eb, "16 bits, in order"},
        {0xfffffffe, 0x00, 1, 0x100000000, "past 2^32"},
        {0xfffffffe, 0xffffffff, 4, 0xffffffff, "4 bytes just below 2^32"},
        {QUIC_PN_MAX - 1, 0xff, 1, QUIC_PN_MAX, "2^62-1, the last number"},
        {QUIC_PN_MAX - 9, 0x00, 1, QUIC_PN_MAX - 255, "no wrap past 2^62-1 (A.3 overflow guard)"},
        {QUIC_PN_MAX - 1, 0x0000, 2, QUIC_PN_MAX - 65535, "no wrap past 2^62-1, 16 bits"},
        {QUIC_PN_MAX - 1, 0xfffffffe, 4, QUIC_PN_MAX - 1, "near 2^62, 32 bits"},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof dc / sizeof dc[0]; i++) {
        d = quic_pn_decode(dc[i].largest, dc[i].trunc, dc[i].len);
        char name[120];
        snprintf(name, sizeof name, "pn decode: %s", dc[i].what);
        T_CHECK(name, d == dc[i].want, "got 0x%llx want 0x%llx", (unsigned long long)d,
                (unsigned long long)dc[i].want);
    }
    T_CHECK("pn decode: length 0 or 5 is refused",
            quic_pn_decode(5, 1, 0) == QUIC_PN_NONE && quic_pn_decode(5, 1, 5) == QUIC_PN_NONE, "accepted");

    /* Round trip: whatever length the sender picks, a receiver whose largest
     * is anywhere from the sender's largest acked up to pn - 1 (or pn + a
     * few, a reordered packet) recovers pn. */
    static const uint64_t bases[] = {0, 1, 200, 0xfffe, 0xffffff00, 0x123456789a, QUIC_PN_MAX - 70000};
    static const uint64_t gaps[] = {1, 2, 100, 127, 128, 129, 32767, 32768, 40000, 8388607, 8388608, 2147483647u};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
        for (size_t j = 0; j < sizeof gaps / sizeof gaps[0]; j++) {
            uint64_t acked = bases[i], pn = acked + gaps[j];
            if (pn > QUIC_PN_MAX)
                continue;
            size_t n = quic_pn_encode_len(pn, acked);
            uint64_t mask = (UINT64_C(1) << (8 * n)) - 1;
            ok &= T_QUIET("pn round trip len", n >= 1 && n <= 4, "acked %llu pn %llu", (unsigned long long)acked,
                          (unsigned long long)pn);
            static const uint64_t rx_off[] = {0, 1, 2};
            for (size_t r = 0; r < 3; r++) {
                uint64_t rx = acked + rx_off[r] < pn ? acked + rx_off[r] : pn - 1;
                ok &= T_QUIET("pn round trip", quic_pn_decode(rx, pn & mask, n) == pn,
                              "acked %llu pn %llu rx %llu len %zu -> %llu", (unsigned long long)acked,
                              (unsigned long long)pn, (unsigned long long)rx, n,
                              (unsigned long long)quic_pn_decode(rx, pn & mask, n));
            }
            ok &= T_QUIET("pn round trip, largest is pn - 1", quic_pn_decode(pn - 1, pn & mask, n) == pn,
                          "pn %llu", (unsigned long long)pn);
            if (pn + 3 <= QUIC_PN_MAX)
                ok &= T_QUIET("pn round trip, reordered", quic_pn_decode(pn + 3, pn & mask, n) == pn, "pn %llu",
                              (unsigned long long)pn);
        }
    for (uint64_t pn = 0; pn < 70000; pn += 7) {
        size_t n = quic_pn_encode_len(pn, QUIC_PN_NONE);
        ok &= T_QUIET("pn nothing acked: full number fits",
                      n >= 1 && n <= 4 && (pn >> (8 * n)) == 0 && quic_pn_decode(QUIC_PN_NONE, pn, n) == pn,
                      "pn %llu len %zu", (unsigned long long)pn, n);
    }
    T_CHECK("pn: encode length then decode recovers pn (gaps at every length edge, near 2^32 and 2^62)", ok,
            "see above");
}

/* ---- keys and header protection masks ---- */

static struct quic_keys ci, si; /* A.1 Initial keys, client and server */

static void test_keys(void)
{
    struct vec dcid = V(Q_DCID);
    int rc = quic_keys_initial(&ci, &si, dcid.p, dcid.n);
    T_CHECK("keys A.1: Initial keys from DCID 8394c8f03e515708", rc == 0 && ci.aead.suite == TLS_AES_128_GCM_SHA256 &&
                                                                  si.aead.suite == TLS_AES_128_GCM_SHA256,
            "rc %d", rc);
    check_hex("keys A.1: client iv", ci.aead.iv, 12, Q_C_IV);
    check_hex("keys A.1: server iv", si.aead.iv, 12, Q_S_IV);
    uint8_t z[21] = {0};
    struct quic_keys a, b;
    T_CHECK("keys: Initial with a 21-byte DCID refuses", quic_keys_initial(&a, &b, z, 21) == -1, "accepted");
    T_CHECK("keys: Initial with an empty DCID (after a Retry, RFC 9001 §5.2 note) works",
            quic_keys_initial(&a, &b, NULL, 0) == 0, "refused");
    T_CHECK("keys: unknown suite refuses", quic_keys_init(&a, 0x1304, z) == -1 && quic_hp_init(&a.hp, 0x1304, z) == -1,
            "accepted");
}

static void test_hp_mask(void)
{
    uint8_t mask[5], key[32];
    struct quic_hp hp;
    struct vec s;

    /* The A.1 hp keys through the full key set (quic_keys_initial) and on
     * their own (quic_hp_init), then the portable AES in place of AES-NI. */
    s = V(Q_A2_SAMPLE);
    quic_hp_mask(&ci.hp, s.p, mask);
    check_hex("hp A.2: AES-128 mask of the client Initial's sample", mask, 5, Q_A2_MASK);
    s = V(Q_A3_SAMPLE);
    quic_hp_mask(&si.hp, s.p, mask);
    check_hex("hp A.3: AES-128 mask of the server Initial's sample", mask, 5, Q_A3_MASK);

    unhex(Q_C_HP, key, 16);
    quic_hp_init(&hp, TLS_AES_128_GCM_SHA256, key);
    br_aes_ct64_ctr_init(&hp.aes.ct64, key, 16);
    s = V(Q_A2_SAMPLE);
    quic_hp_mask(&hp, s.p, mask);
    check_hex("hp A.2: same mask from the portable ct64 AES", mask, 5, Q_A2_MASK);

    /* A copy of the struct masks the same (the context is addressed in place). */
    struct quic_hp copy;
    quic_hp_init(&hp, TLS_AES_128_GCM_SHA256, key);
    memcpy(&copy, &hp, sizeof copy);
    memset(&hp, 0xa5, sizeof hp);
    quic_hp_mask(&copy, s.p, mask);
    check_hex("hp: a copied struct still masks right", mask, 5, Q_A2_MASK);

    /* A.5: ChaCha20, default (SSE2 where present) and portable. */
    unhex(Q_A5_HP, key, 32);
    quic_hp_init(&hp, TLS_CHACHA20_POLY1305_SHA256, key);
    s = V(Q_A5_SAMPLE);
    quic_hp_mask(&hp, s.p, mask);
    check_hex("hp A.5: ChaCha20 mask", mask, 5, Q_A5_MASK);
    hp.chacha = br_chacha20_ct_run;
    quic_hp_mask(&hp, s.p, mask);
    check_hex("hp A.5: same mask from the portable ChaCha20", mask, 5, Q_A5_MASK);

    /* AES-ECB itself: FIPS-197 C.1 (AES-128) and C.3 (AES-256) are the first
     * 5 bytes of the mask for sample = the FIPS plaintext. */
    static const char fips_pt[] = "00112233445566778899aabbccddeeff";
    static const char fips_k[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    unhex(fips_k, key, 32);
    s = V(fips_pt);
    quic_hp_init(&hp, TLS_AES_128_GCM_SHA256, key);
    quic_hp_mask(&hp, s.p, mask);
    check_hex("hp: AES-128 is ECB (FIPS-197 C.1)", mask, 5, "69c4e0d86a");
    quic_hp_init(&hp, TLS_AES_256_GCM_SHA384, key);
    quic_hp_mask(&hp, s.p, mask);
    check_hex("hp: AES-256 is ECB (FIPS-197 C.3)", mask, 5, "8ea2b7ca51");
    br_aes_ct64_ctr_init(&hp.aes.ct64, key, 32);
    quic_hp_mask(&hp, s.p, mask);
    check_hex("hp: AES-256 portable ct64 agrees", mask, 5, "8ea2b7ca51");

    /* And against BearSSL's own block encryption for many samples: one
     * CBC block with a zero IV is ECB. Counter bytes 0xffffffff included. */
    int ok = 1;
    for (uint32_t i = 0; i < 200; i++) {
        uint8_t smp[16], ref[16], iv[16] = {0};
        br_aes_big_cbcenc_keys ek;
        size_t kl = i % 2 ? 32 : 16;
        fill(key, 32, i);
        fill(smp, 16, i + 1000);
        if (i % 3 == 0)
            memset(smp + 12, 0xff, 4);
        quic_hp_init(&hp, kl == 32 ? TLS_AES_256_GCM_SHA384 : TLS_AES_128_GCM_SHA256, key);
        quic_hp_mask(&hp, smp, mask);
        br_aes_big_cbcenc_init(&ek, key, kl);
        memcpy(ref, smp, 16);
        br_aes_big_cbcenc_run(&ek, iv, ref, 16);
        ok &= T_QUIET("hp vs br_aes_big", memcmp(mask, ref, 5) == 0, "i %u", i);
    }
    T_CHECK("hp: AES-128/256 masks agree with BearSSL's block AES on 200 samples", ok, "see above");
}

/* ---- RFC 9001 A.2: client Initial, built and sealed byte for byte ---- */

static void test_a2(void)
{
    static uint8_t pkt[1300];
    struct vec dcid = V(Q_DCID), plain = V(Q_A2_PLAIN);
    struct quic_hdr h;
    struct quic_opened o;

    size_t hl = quic_build_long(pkt, sizeof pkt, QUIC_PT_INITIAL, dcid.p, dcid.n, NULL, 0, NULL, 0, 4);
    T_CHECK("A.2: Initial header is 22 bytes", hl == 22, "%zu", hl);
    T_CHECK("A.2: set Length for 1162 bytes of payload", quic_set_length(pkt, hl, 1162) == 0, "refused");
    check_hex("A.2: builder's header (packet number still zero)", pkt, hl, "c300000001088394c8f03e5157080000449e00000000");
    memset(pkt + hl, 0, 1162); /* PADDING frames */
    memcpy(pkt + hl, plain.p, plain.n);
    size_t n = quic_packet_seal(&ci, pkt, hl, 1162, 2);
    T_CHECK("A.2: sealed packet is 1200 bytes", n == 1200, "%zu", n);
    char want[2 * 1200 + 1];
    snprintf(want, sizeof want, "%s%s", Q_A2_HDR_PROT, Q_A2_CIPHER);
    check_hex("A.2: protected packet byte for byte", pkt, n, want);

    /* The server's side: parse and open it back. */
    int rc = quic_hdr_parse(&h, pkt, n, 0);
    T_CHECK("A.2: parses as Initial", rc == 0 && h.type == QUIC_PT_INITIAL && h.version == QUIC_V1 && h.dcid_len == 8 &&
                                          memcmp(h.dcid, dcid.p, 8) == 0 && h.scid_len == 0 && h.token_len == 0 &&
                                          h.length == 1182 && h.pn_offset == 18 && h.pkt_len == 1200,
            "rc %d type %d length %llu pn_offset %zu pkt_len %zu", rc, (int)h.type, (unsigned long long)h.length,
            h.pn_offset, h.pkt_len);
    rc = quic_packet_open(&ci, pkt, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &o);
    T_CHECK("A.2: opens: pn 2, 4-byte pn, 1162-byte payload", rc == 0 && o.pn == 2 && o.pn_len == 4 && o.hdr_len == 22 &&
                                                                  o.payload == pkt + 22 && o.payload_len == 1162,
            "rc %d pn %llu", rc, (unsigned long long)o.pn);
    check_hex("A.2: header unprotected in place", pkt, 22, Q_A2_HDR);
    T_CHECK("A.2: payload recovered", memcmp(o.payload, plain.p, plain.n) == 0, "differs");
}

/* ---- RFC 9001 A.3: server Initial, opened and rebuilt ---- */

static void test_a3(void)
{
    uint8_t pkt[200], *c;
    struct vec scid = V(Q_A3_SCID), plain = V(Q_A3_PLAIN);
    struct quic_hdr h;
    struct quic_opened o;
    char want[400];

    snprintf(want, sizeof want, "%s%s", Q_A3_HDR_PROT, Q_A3_CIPHER);
    struct vec w = V(want);
    T_CHECK("A.3: packet is 135 bytes", w.n == 135, "%zu", w.n);
    c = t_memdup(w.p, w.n);
    int rc = quic_hdr_parse(&h, c, w.n, 8);
    T_CHECK("A.3: parses as Initial from SCID f067a5502a4262b5",
            rc == 0 && h.type == QUIC_PT_INITIAL && h.version == QUIC_V1 && h.dcid_len == 0 && h.scid_len == 8 &&
                memcmp(h.scid, scid.p, 8) == 0 && h.token_len == 0 && h.length == 117 && h.pn_offset == 18 &&
                h.pkt_len == 135,
            "rc %d", rc);
    rc = quic_packet_open(&si, c, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &o);
    T_CHECK("A.3: opens: pn 1 on 2 bytes, 99-byte payload",
            rc == 0 && o.pn == 1 && o.pn_len == 2 && o.hdr_len == 20 && o.payload_len == 99, "rc %d pn %llu len %zu",
            rc, (unsigned long long)o.pn, o.payload_len);
    check_hex("A.3: header recovered", c, o.hdr_len, Q_A3_HDR);
    check_hex("A.3: payload recovered", o.payload, o.payload_len, Q_A3_PLAIN);
    free(c);

    /* The same packet from the builder and seal. */
    size_t hl = quic_build_long(pkt, sizeof pkt, QUIC_PT_INITIAL, NULL, 0, scid.p, scid.n, NULL, 0, 2);
    quic_set_length(pkt, hl, plain.n);
    memcpy(pkt + hl, plain.p, plain.n);
    size_t n = quic_packet_seal(&si, pkt, hl, plain.n, 1);
    check_hex("A.3: builder + seal reproduce the protected packet", pkt, n, want);
}

/* ---- RFC 9001 A.4: Retry integrity ---- */

static void test_a4(void)
{
    struct vec r = V(Q_A4_RETRY), odcid = V(Q_DCID), scid = V(Q_A3_SCID);
    uint8_t pkt[64];
    struct quic_hdr h;

    memcpy(pkt, r.p, r.n);
    int rc = quic_hdr_parse(&h, pkt, r.n, 8);
    T_CHECK("A.4: parses as Retry, token \"token\"",
            rc == 0 && h.type == QUIC_PT_RETRY && h.version == QUIC_V1 && h.dcid_len == 0 && h.scid_len == 8 &&
                memcmp(h.scid, scid.p, 8) == 0 && h.token_len == 5 && memcmp(h.token, "token", 5) == 0 &&
                h.pkt_len == 36,
            "rc %d type %d token_len %zu", rc, (int)h.type, h.token_len);
    T_CHECK("A.4: integrity tag verifies with ODCID 8394c8f03e515708", quic_retry_verify(&h, pkt, odcid.p, odcid.n) == 0,
            "rejected");
    uint8_t other[8];
    memcpy(other, odcid.p, 8);
    other[7] ^= 1;
    T_CHECK("A.4: another ODCID fails", quic_retry_verify(&h, pkt, other, 8) == -1, "accepted");
    T_CHECK("A.4: a shorter ODCID fails", quic_retry_verify(&h, pkt, odcid.p, 7) == -1, "accepted");
    T_CHECK("A.4: an empty ODCID fails", quic_retry_verify(&h, pkt, NULL, 0) == -1, "accepted");

    /* Every single-bit flip is caught: by the parser or by the tag. */
    int ok = 1;
    for (size_t bit = 0; bit < r.n * 8; bit++) {
        memcpy(pkt, r.p, r.n);
        pkt[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        rc = quic_hdr_parse(&h, pkt, r.n, 8);
        ok &= T_QUIET("Retry bit flip", rc != 0 || quic_retry_verify(&h, pkt, odcid.p, odcid.n) == -1, "bit %zu",
                      bit);
    }
    T_CHECK("A.4: each of the 288 one-bit flips is rejected", ok, "see above");

    /* Truncations: a Retry runs to the end of the datagram, so a cut packet
     * still parses when at least a tag's worth of bytes follows the CIDs
     * (then its token shrinks and the tag check fails) or is refused. */
    ok = 1;
    for (size_t cut = 0; cut < r.n; cut++) {
        uint8_t *c = t_memdup(r.p, cut);
        rc = quic_hdr_parse(&h, c, cut, 8);
        if (rc == 0)
            ok &= T_QUIET("Retry cut: tag fails", quic_retry_verify(&h, c, odcid.p, odcid.n) == -1, "cut %zu", cut);
        else
            ok &= T_QUIET("Retry cut: refused", rc == QUIC_PKT_TRUNCATED || rc == QUIC_PKT_INVALID, "cut %zu rc %d",
                          cut, rc);
        free(c);
    }
    T_CHECK("A.4: every truncation is rejected", ok, "see above");

    /* §17.2.5.2: an empty token is discarded; fewer than 16 bytes after the
     * CIDs is not a Retry at all. */
    memcpy(pkt, r.p, 15);
    memcpy(pkt + 15, r.p + 20, 16); /* header + tag, no token */
    rc = quic_hdr_parse(&h, pkt, 31, 8);
    T_CHECK("Retry with an empty token is invalid", rc == QUIC_PKT_INVALID, "rc %d", rc);
    rc = quic_hdr_parse(&h, pkt, 30, 8);
    T_CHECK("Retry with 15 bytes after the CIDs is truncated", rc == QUIC_PKT_TRUNCATED, "rc %d", rc);
}

/* ---- RFC 9001 A.5: ChaCha20-Poly1305 short header ---- */

static void test_a5(void)
{
    struct vec secret = V(Q_A5_SECRET);
    struct quic_keys k, next;
    struct quic_hdr h;
    struct quic_opened o;
    uint8_t pkt[64], sec[32];

    int rc = quic_keys_init(&k, TLS_CHACHA20_POLY1305_SHA256, secret.p);
    T_CHECK("A.5: keys from the secret", rc == 0 && k.aead.suite == TLS_CHACHA20_POLY1305_SHA256, "rc %d", rc);
    check_hex("A.5: iv", k.aead.iv, 12, Q_A5_IV);

    size_t hl = quic_build_short(pkt, sizeof pkt, NULL, 0, 0, 3);
    T_CHECK("A.5: short header, empty DCID, 3-byte pn", hl == 4 && pkt[0] == 0x42, "hl %zu first %02x", hl, pkt[0]);
    pkt[hl] = 0x01; /* PING */
    size_t n = quic_packet_seal(&k, pkt, hl, 1, 654360564);
    check_hex("A.5: protected packet byte for byte (21 bytes, the smallest)", pkt, n, Q_A5_PACKET);

    rc = quic_hdr_parse(&h, pkt, n, 0);
    T_CHECK("A.5: parses as 1-RTT", rc == 0 && h.type == QUIC_PT_1RTT && h.pn_offset == 1 && h.pkt_len == 21,
            "rc %d", rc);
    uint8_t keep[21];
    memcpy(keep, pkt, 21);
    rc = quic_packet_open(&k, pkt, h.pkt_len, h.pn_offset, 654360563, &o);
    T_CHECK("A.5: opens: pn 654360564, payload 01, key phase 0",
            rc == 0 && o.pn == 654360564 && o.pn_len == 3 && o.payload_len == 1 && o.payload[0] == 1 &&
                o.key_phase == 0,
            "rc %d pn %llu", rc, (unsigned long long)o.pn);
    check_hex("A.5: header unprotected", pkt, 4, Q_A5_HDR);
    /* Opened far from the number: decodes to the wrong pn, so the nonce is
     * wrong and the tag fails (a drop, never an error). */
    memcpy(pkt, keep, 21);
    rc = quic_packet_open(&k, pkt, 21, 1, 1000, &o);
    T_CHECK("A.5: with largest 1000 the pn decodes wrong and the tag fails", rc == QUIC_PKT_DECRYPT, "rc %d", rc);

    /* Key update (RFC 9001 §6.1): "quic ku" gives A.5's ku; the hp key
     * stays; the new AEAD is what the new secret's "quic key"/"quic iv"
     * give. */
    memcpy(sec, secret.p, 32);
    next = k;
    rc = quic_keys_update(&next, TLS_CHACHA20_POLY1305_SHA256, sec);
    T_CHECK("key update: works", rc == 0, "rc %d", rc);
    check_hex("key update A.5: next secret is ku", sec, 32, Q_A5_KU);
    T_CHECK("key update: header protection key unchanged", memcmp(&next.hp, &k.hp, sizeof k.hp) == 0, "changed");
    struct quic_keys ref;
    quic_keys_init(&ref, TLS_CHACHA20_POLY1305_SHA256, sec);
    T_CHECK("key update: AEAD as quic_keys_init from the next secret gives",
            memcmp(&ref.aead, &next.aead, sizeof ref.aead) == 0 && memcmp(next.aead.iv, k.aead.iv, 12) != 0,
            "differs");

    /* A packet in the new phase: header protection removed with the one hp
     * key reveals key phase 1, then the next keys open it; the old ones
     * cannot. */
    hl = quic_build_short(pkt, sizeof pkt, NULL, 0, 1, 2);
    memset(pkt + hl, 0, 20);
    pkt[hl] = 0x01;
    n = quic_packet_seal(&next, pkt, hl, 20, 654360600);
    uint8_t two[64];
    memcpy(two, pkt, n);
    rc = quic_hp_remove(&k.hp, pkt, n, 1, 654360564, &o);
    T_CHECK("key update: hp removal shows key phase 1", rc == 0 && o.key_phase == 1 && o.pn == 654360600,
            "rc %d kp %d pn %llu", rc, o.key_phase, (unsigned long long)o.pn);
    rc = quic_payload_open(&next.aead, pkt, &o);
    T_CHECK("key update: next keys open it", rc == 0 && o.payload_len == 20 && o.payload[0] == 1, "rc %d", rc);
    rc = quic_packet_open(&k, two, n, 1, 654360564, &o);
    T_CHECK("key update: old keys cannot (dropped)", rc == QUIC_PKT_DECRYPT, "rc %d", rc);

    /* AES-256-GCM and SHA-384: ku is the hash's length. */
    uint8_t s48[48], s48b[48], exp[48];
    fill(s48, 48, 7);
    memcpy(s48b, s48, 48);
    struct quic_keys k3;
    rc = quic_keys_init(&k3, TLS_AES_256_GCM_SHA384, s48);
    rc |= quic_keys_update(&k3, TLS_AES_256_GCM_SHA384, s48);
    tls13_hkdf_expand_label(TLS13_SHA384, s48b, "quic ku", NULL, 0, exp, 48);
    T_CHECK("key update, SHA-384: next secret is 48 bytes of \"quic ku\"", rc == 0 && memcmp(s48, exp, 48) == 0,
            "differs");
    quic_keys_wipe(&k3);
    quic_keys_wipe(&next);
    quic_keys_wipe(&ref);
}

/* ---- builders and parser ---- */

/* Builds and seals one packet of type t into out with keys k; returns its
 * length. payload is filled from seed; dcid/scid/token as given. */
static size_t make(uint8_t *out, size_t cap, const struct quic_keys *k, enum quic_pkt_type t, const uint8_t *dcid,
                   size_t dcid_len, const uint8_t *scid, size_t scid_len, const uint8_t *token, size_t token_len,
                   uint64_t pn, size_t pn_len, size_t payload_len, uint32_t seed)
{
    size_t hl = t == QUIC_PT_1RTT ? quic_build_short(out, cap, dcid, dcid_len, 0, pn_len)
                                  : quic_build_long(out, cap, t, dcid, dcid_len, scid, scid_len, token, token_len,
                                                    pn_len);
    if (hl == 0 || hl + payload_len + QUIC_TAG_LEN > cap)
        return 0;
    if (t != QUIC_PT_1RTT && quic_set_length(out, hl, payload_len) != 0)
        return 0;
    fill(out + hl, payload_len, seed);
    return quic_packet_seal(k, out, hl, payload_len, pn);
}

static struct quic_keys hk, ak; /* Handshake keys (AES-256), 1-RTT keys (ChaCha20) */

static void test_build_parse(void)
{
    uint8_t dcid[8], scid[5], token[30], pkt[400], payload[100];
    struct quic_hdr h;
    struct quic_opened o;
    size_t n;
    int rc;

    fill(dcid, 8, 1);
    fill(scid, 5, 2);
    fill(token, 30, 3);
    uint8_t sec[48];
    fill(sec, 48, 4);
    quic_keys_init(&hk, TLS_AES_256_GCM_SHA384, sec);
    quic_keys_init(&ak, TLS_CHACHA20_POLY1305_SHA256, sec);

    /* Initial with a token. */
    n = make(pkt, sizeof pkt, &ci, QUIC_PT_INITIAL, dcid, 8, scid, 5, token, 30, 7, 2, 50, 10);
    rc = quic_hdr_parse(&h, pkt, n, 8);
    T_CHECK("Initial with token: parsed fields",
            rc == 0 && h.type == QUIC_PT_INITIAL && h.version == QUIC_V1 && h.dcid_len == 8 && h.dcid == pkt + 6 &&
                memcmp(h.dcid, dcid, 8) == 0 && h.scid_len == 5 && memcmp(h.scid, scid, 5) == 0 &&
                h.token_len == 30 && h.token == pkt + 6 + 8 + 1 + 5 + 1 && memcmp(h.token, token, 30) == 0 &&
                h.length == 2 + 50 + 16 && h.pn_offset == 6 + 8 + 1 + 5 + 1 + 30 + 2 && h.pkt_len == n &&
                n == h.pn_offset + 2 + 50 + 16,
            "rc %d type %d", rc, (int)h.type);
    fill(payload, 50, 10);
    rc = quic_packet_open(&ci, pkt, h.pkt_len, h.pn_offset, 6, &o);
    T_CHECK("Initial with token: opens", rc == 0 && o.pn == 7 && o.pn_len == 2 && o.payload_len == 50 &&
                                             memcmp(o.payload, payload, 50) == 0,
            "rc %d", rc);

    /* 0-RTT and Handshake. */
    static const enum quic_pkt_type lt[] = {QUIC_PT_0RTT, QUIC_PT_HANDSHAKE};
    static const char *const ln[] = {"0-RTT", "Handshake"};
    for (size_t i = 0; i < 2; i++) {
        char name[100];
        n = make(pkt, sizeof pkt, &hk, lt[i], dcid, 8, scid, 5, NULL, 0, 300, 1, 40, 11);
        rc = quic_hdr_parse(&h, pkt, n, 8);
        snprintf(name, sizeof name, "%s: parsed fields", ln[i]);
        T_CHECK(name, rc == 0 && h.type == lt[i] && h.version == QUIC_V1 && h.dcid_len == 8 && h.scid_len == 5 &&
                          memcmp(h.scid, scid, 5) == 0 && h.token_len == 0 && h.token == NULL &&
                          h.length == 1 + 40 + 16 && h.pn_offset == 6 + 8 + 1 + 5 + 2 && h.pkt_len == n,
                "rc %d type %d", rc, (int)h.type);
        rc = quic_packet_open(&hk, pkt, h.pkt_len, h.pn_offset, 299, &o);
        snprintf(name, sizeof name, "%s: opens, 1-byte pn 300 after 299", ln[i]);
        T_CHECK(name, rc == 0 && o.pn == 300 && o.pn_len == 1 && o.payload_len == 40, "rc %d pn %llu", rc,
                (unsigned long long)o.pn);
    }

    /* Short header. */
    n = make(pkt, sizeof pkt, &ak, QUIC_PT_1RTT, dcid, 8, NULL, 0, NULL, 0, 0x12345678, 4, 30, 12);
    rc = quic_hdr_parse(&h, pkt, n, 8);
    T_CHECK("1-RTT: parsed fields", rc == 0 && h.type == QUIC_PT_1RTT && h.version == QUIC_V1 && h.dcid_len == 8 &&
                                        h.dcid == pkt + 1 && memcmp(h.dcid, dcid, 8) == 0 && h.pn_offset == 9 &&
                                        h.pkt_len == n && n == 1 + 8 + 4 + 30 + 16,
            "rc %d", rc);
    rc = quic_packet_open(&ak, pkt, h.pkt_len, h.pn_offset, 0x12345600, &o);
    T_CHECK("1-RTT: opens", rc == 0 && o.pn == 0x12345678 && o.pn_len == 4 && o.payload_len == 30 && o.key_phase == 0,
            "rc %d", rc);
    n = make(pkt, sizeof pkt, &ak, QUIC_PT_1RTT, NULL, 0, NULL, 0, NULL, 0, 5, 1, 30, 12);
    rc = quic_hdr_parse(&h, pkt, n, 0);
    T_CHECK("1-RTT with an empty DCID", rc == 0 && h.dcid_len == 0 && h.pn_offset == 1 &&
                                            quic_packet_open(&ak, pkt, n, 1, 4, &o) == 0 && o.pn == 5,
            "rc %d", rc);

    /* Largest CIDs, and one byte over. */
    uint8_t cid20[21];
    fill(cid20, 21, 5);
    n = make(pkt, sizeof pkt, &hk, QUIC_PT_HANDSHAKE, cid20, 20, cid20, 20, NULL, 0, 0, 1, 10, 13);
    rc = quic_hdr_parse(&h, pkt, n, 8);
    T_CHECK("Handshake with two 20-byte CIDs", rc == 0 && h.dcid_len == 20 && h.scid_len == 20 &&
                                                   quic_packet_open(&hk, pkt, n, h.pn_offset, QUIC_PN_NONE, &o) == 0,
            "rc %d", rc);
    pkt[5] = 21;
    rc = quic_hdr_parse(&h, pkt, n, 8);
    T_CHECK("v1 DCID length 21 is invalid (RFC 9000 §17.2)", rc == QUIC_PKT_INVALID, "rc %d", rc);
    pkt[5] = 20;
    pkt[26] = 21;
    rc = quic_hdr_parse(&h, pkt, n, 8);
    T_CHECK("v1 SCID length 21 is invalid", rc == QUIC_PKT_INVALID, "rc %d", rc);
    n = make(pkt, sizeof pkt, &ak, QUIC_PT_1RTT, cid20, 20, NULL, 0, NULL, 0, 0, 1, 10, 13);
    T_CHECK("short header with our CID length 20 parses, 21 is refused",
            quic_hdr_parse(&h, pkt, n, 20) == 0 && quic_hdr_parse(&h, pkt, n, 21) == QUIC_PKT_INVALID, "wrong");

    /* Other versions: §5.2.1, discard; version 2 (RFC 9369) included. */
    static const uint32_t vers[] = {0x6b3343cf, 0xff00001d, 0x0a0a0a0a, 0x00000002};
    int ok = 1;
    n = make(pkt, sizeof pkt, &hk, QUIC_PT_HANDSHAKE, dcid, 8, scid, 5, NULL, 0, 0, 1, 10, 14);
    for (size_t i = 0; i < 4; i++) {
        pkt[1] = (uint8_t)(vers[i] >> 24);
        pkt[2] = (uint8_t)(vers[i] >> 16);
        pkt[3] = (uint8_t)(vers[i] >> 8);
        pkt[4] = (uint8_t)vers[i];
        rc = quic_hdr_parse(&h, pkt, n, 8);
        ok &= T_QUIET("other version", rc == QUIC_PKT_VERSION && h.version == vers[i], "v %08x rc %d", vers[i], rc);
    }
    T_CHECK("long headers of other versions are QUIC_PKT_VERSION (RFC 9000 §5.2.1)", ok, "see above");

    /* Fixed bit (§17.2, §17.3.1): 0 is not a v1 packet. */
    n = make(pkt, sizeof pkt, &hk, QUIC_PT_HANDSHAKE, dcid, 8, scid, 5, NULL, 0, 0, 1, 10, 15);
    pkt[0] &= (uint8_t)~0x40;
    T_CHECK("fixed bit 0 in a long header: invalid", quic_hdr_parse(&h, pkt, n, 8) == QUIC_PKT_INVALID, "accepted");
    n = make(pkt, sizeof pkt, &ci, QUIC_PT_INITIAL, dcid, 8, scid, 5, NULL, 0, 0, 1, 10, 15);
    pkt[0] &= (uint8_t)~0x40;
    T_CHECK("fixed bit 0 in an Initial: invalid", quic_hdr_parse(&h, pkt, n, 8) == QUIC_PKT_INVALID, "accepted");
    n = make(pkt, sizeof pkt, &ak, QUIC_PT_1RTT, dcid, 8, NULL, 0, NULL, 0, 0, 1, 10, 15);
    pkt[0] &= (uint8_t)~0x40;
    T_CHECK("fixed bit 0 in a short header: invalid", quic_hdr_parse(&h, pkt, n, 8) == QUIC_PKT_INVALID, "accepted");
    struct vec r = V(Q_A4_RETRY);
    memcpy(pkt, r.p, r.n);
    pkt[0] &= (uint8_t)~0x40;
    T_CHECK("fixed bit 0 in a Retry: invalid", quic_hdr_parse(&h, pkt, r.n, 8) == QUIC_PKT_INVALID, "accepted");
    T_CHECK("an empty datagram is truncated", quic_hdr_parse(&h, pkt, 0, 8) == QUIC_PKT_TRUNCATED, "accepted");

    /* Builders' refusals. */
    T_CHECK("build: Retry and VN and 1-RTT are not long-header builds",
            quic_build_long(pkt, sizeof pkt, QUIC_PT_RETRY, dcid, 8, scid, 5, NULL, 0, 1) == 0 &&
                quic_build_long(pkt, sizeof pkt, QUIC_PT_VN, dcid, 8, scid, 5, NULL, 0, 1) == 0 &&
                quic_build_long(pkt, sizeof pkt, QUIC_PT_1RTT, dcid, 8, scid, 5, NULL, 0, 1) == 0,
            "built");
    T_CHECK("build: CIDs over 20 bytes refused",
            quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, cid20, 21, scid, 5, NULL, 0, 1) == 0 &&
                quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, dcid, 8, cid20, 21, NULL, 0, 1) == 0 &&
                quic_build_short(pkt, sizeof pkt, cid20, 21, 0, 1) == 0,
            "built");
    T_CHECK("build: packet number length 0 or 5 refused",
            quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, dcid, 8, scid, 5, NULL, 0, 0) == 0 &&
                quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, dcid, 8, scid, 5, NULL, 0, 5) == 0 &&
                quic_build_short(pkt, sizeof pkt, dcid, 8, 0, 0) == 0 &&
                quic_build_short(pkt, sizeof pkt, dcid, 8, 0, 5) == 0,
            "built");
    T_CHECK("build: a token only in an Initial",
            quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, dcid, 8, scid, 5, token, 30, 1) == 0, "built");
    /* Every capacity below the exact size refuses; the exact one builds. */
    size_t full = quic_build_long(pkt, sizeof pkt, QUIC_PT_INITIAL, dcid, 8, scid, 5, token, 30, 3);
    ok = full == 6 + 8 + 1 + 5 + 1 + 30 + 2 + 3;
    for (size_t cap = 0; cap < full; cap++) {
        uint8_t *c = malloc(cap ? cap : 1);
        ok &= T_QUIET("build cap", quic_build_long(c, cap, QUIC_PT_INITIAL, dcid, 8, scid, 5, token, 30, 3) == 0,
                      "cap %zu", cap);
        free(c);
    }
    uint8_t *c = malloc(full);
    ok &= quic_build_long(c, full, QUIC_PT_INITIAL, dcid, 8, scid, 5, token, 30, 3) == full;
    free(c);
    size_t sfull = quic_build_short(pkt, sizeof pkt, dcid, 8, 1, 2);
    ok &= sfull == 11 && pkt[0] == 0x45 && quic_build_short(pkt, 10, dcid, 8, 1, 2) == 0;
    T_CHECK("build: needs exactly its size (long and short)", ok, "full %zu", full);

    /* quic_set_length's limits. */
    size_t hl = quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, dcid, 8, scid, 5, NULL, 0, 4);
    T_CHECK("set_length: up to 16383 - pn - tag", quic_set_length(pkt, hl, 16383 - 4 - 16) == 0 &&
                                                      pkt[hl - 6] == 0x7f && pkt[hl - 5] == 0xff,
            "refused");
    T_CHECK("set_length: one more refused", quic_set_length(pkt, hl, 16383 - 4 - 16 + 1) == -1, "accepted");
    hl = quic_build_short(pkt, sizeof pkt, dcid, 8, 0, 1);
    T_CHECK("set_length: not on a short header", quic_set_length(pkt, hl, 10) == -1, "accepted");
}

/* ---- seal / open rules ---- */

static void test_protect_rules(void)
{
    uint8_t dcid[8], pkt[200], keep[200];
    struct quic_hdr h;
    struct quic_opened o;
    size_t n, hl;
    int rc;

    fill(dcid, 8, 21);

    /* §5.4.2: packet number + payload >= 4 bytes for the sample. */
    hl = quic_build_short(pkt, sizeof pkt, dcid, 8, 0, 1);
    T_CHECK("seal: 1-byte pn + 2-byte payload refused (sample)", quic_packet_seal(&ak, pkt, hl, 2, 1) == 0, "sealed");
    memset(pkt + hl, 0, 3);
    pkt[hl] = 1;
    n = quic_packet_seal(&ak, pkt, hl, 3, 1);
    rc = quic_packet_open(&ak, pkt, n, 9, 0, &o);
    T_CHECK("seal: 1-byte pn + 3-byte payload, the minimum, round-trips", n == hl + 3 + 16 && rc == 0 &&
                                                                             o.payload_len == 3 && o.pn == 1,
            "n %zu rc %d", n, rc);
    hl = quic_build_short(pkt, sizeof pkt, dcid, 8, 0, 4);
    n = quic_packet_seal(&ak, pkt, hl, 0, 9);
    rc = quic_packet_open(&ak, pkt, n, 9, 8, &o);
    T_CHECK("seal: 4-byte pn + empty payload round-trips (frames layer rejects it, §12.4)",
            n == hl + 16 && rc == 0 && o.payload_len == 0 && o.pn == 9, "n %zu rc %d", n, rc);
    T_CHECK("seal: pn 2^62 refused", quic_packet_seal(&ak, pkt, hl, 10, QUIC_PN_MAX + 1) == 0, "sealed");

    /* Too short for a sample on receipt: truncated, nothing read past it. */
    n = make(pkt, sizeof pkt, &ak, QUIC_PT_1RTT, dcid, 8, NULL, 0, NULL, 0, 1, 1, 3, 1);
    uint8_t *c = t_memdup(pkt, n - 1);
    rc = quic_packet_open(&ak, c, n - 1, 9, 0, &o);
    T_CHECK("open: one byte short of a sample is truncated", rc == QUIC_PKT_TRUNCATED, "rc %d", rc);
    free(c);

    /* Reserved bits set by the sender: authenticated, then a
     * PROTOCOL_VIOLATION (§17.2: only after removing packet protection). */
    hl = quic_build_long(pkt, sizeof pkt, QUIC_PT_HANDSHAKE, dcid, 8, NULL, 0, NULL, 0, 2);
    quic_set_length(pkt, hl, 20);
    fill(pkt + hl, 20, 5);
    pkt[0] |= 0x08;
    n = quic_packet_seal(&hk, pkt, hl, 20, 3);
    quic_hdr_parse(&h, pkt, n, 8);
    rc = quic_packet_open(&hk, pkt, h.pkt_len, h.pn_offset, 2, &o);
    T_CHECK("open: long header reserved bit 0x08 is RESERVED_BITS after decryption", rc == QUIC_PKT_RESERVED_BITS,
            "rc %d", rc);
    hl = quic_build_short(pkt, sizeof pkt, dcid, 8, 0, 2);
    fill(pkt + hl, 20, 5);
    pkt[0] |= 0x10;
    n = quic_packet_seal(&ak, pkt, hl, 20, 3);
    rc = quic_packet_open(&ak, pkt, n, 9, 2, &o);
    T_CHECK("open: short header reserved bit 0x10 is RESERVED_BITS after decryption", rc == QUIC_PKT_RESERVED_BITS,
            "rc %d", rc);

    /* Tampering anywhere fails the tag: the header is the AAD, protected
     * bits change the packet number or its length. Every byte of a short
     * and of a long packet. */
    int ok = 1;
    n = make(keep, sizeof keep, &hk, QUIC_PT_HANDSHAKE, dcid, 8, dcid, 4, NULL, 0, 77, 2, 30, 6);
    for (size_t i = 0; i < n; i++) {
        memcpy(pkt, keep, n);
        pkt[i] ^= 0x01;
        rc = quic_hdr_parse(&h, pkt, n, 8);
        if (rc == 0)
            rc = quic_packet_open(&hk, pkt, h.pkt_len, h.pn_offset, 76, &o);
        ok &= T_QUIET("long tamper", rc != 0, "byte %zu", i);
    }
    T_CHECK("open: flipping the low bit of any byte of a Handshake packet never opens", ok, "see above");
    ok = 1;
    n = make(keep, sizeof keep, &ak, QUIC_PT_1RTT, dcid, 8, NULL, 0, NULL, 0, 77, 2, 30, 6);
    for (size_t i = 0; i < n; i++) {
        memcpy(pkt, keep, n);
        pkt[i] ^= 0x80;
        rc = quic_hdr_parse(&h, pkt, n, 8);
        if (rc == 0)
            rc = quic_packet_open(&ak, pkt, h.pkt_len, h.pn_offset, 76, &o);
        ok &= T_QUIET("short tamper", rc != 0, "byte %zu", i);
    }
    T_CHECK("open: flipping the high bit of any byte of a 1-RTT packet never opens", ok, "see above");
    memcpy(pkt, keep, n);
    pkt[n - 1] ^= 0x01;
    T_CHECK("open: a bad tag is QUIC_PKT_DECRYPT", quic_packet_open(&ak, pkt, n, 9, 76, &o) == QUIC_PKT_DECRYPT,
            "other");
    memcpy(pkt, keep, n);
    T_CHECK("open: wrong keys are QUIC_PKT_DECRYPT", quic_packet_open(&hk, pkt, n, 9, 76, &o) == QUIC_PKT_DECRYPT,
            "other");

    /* Every suite, every packet number length, payloads of many sizes. */
    static const uint16_t suites[] = {TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256};
    ok = 1;
    for (size_t s = 0; s < 3; s++) {
        uint8_t sec[48];
        struct quic_keys k;
        fill(sec, 48, (uint32_t)s + 40);
        quic_keys_init(&k, suites[s], sec);
        for (size_t pl = 1; pl <= 4; pl++)
            for (size_t len = 4; len < 150; len += 29) {
                uint64_t pn = (UINT64_C(0x123456789) + len) & ((UINT64_C(1) << (8 * pl)) - 1);
                uint8_t plain[200];
                n = make(pkt, sizeof pkt, &k, len % 2 ? QUIC_PT_1RTT : QUIC_PT_HANDSHAKE, dcid, 8, dcid, 3, NULL, 0,
                         pn, pl, len, (uint32_t)len);
                fill(plain, len, (uint32_t)len);
                rc = quic_hdr_parse(&h, pkt, n, 8);
                rc = rc ? rc : quic_packet_open(&k, pkt, h.pkt_len, h.pn_offset, pn ? pn - 1 : QUIC_PN_NONE, &o);
                ok &= T_QUIET("round trip", rc == 0 && o.pn == pn && o.pn_len == pl && o.payload_len == len &&
                                                memcmp(o.payload, plain, len) == 0,
                              "suite %04x pn_len %zu len %zu rc %d", suites[s], pl, len, rc);
            }
        quic_keys_wipe(&k);
    }
    T_CHECK("seal/open round trip: 3 suites x pn lengths 1-4 x payload sizes, long and short", ok, "see above");
}

/* ---- Version Negotiation ---- */

static void test_vn(void)
{
    uint8_t pkt[100];
    struct quic_hdr h;
    size_t n = 0;

    pkt[n++] = 0x80 | 0x2a; /* unused bits arbitrary, fixed bit 0 allowed (§17.2.1) */
    memset(pkt + n, 0, 4);
    n += 4;
    pkt[n++] = 8;
    fill(pkt + n, 8, 31);
    n += 8;
    pkt[n++] = 5;
    fill(pkt + n, 5, 32);
    n += 5;
    static const uint8_t vl[] = {0x0a, 0x0a, 0x0a, 0x0a, 0x6b, 0x33, 0x43, 0xcf, 0xff, 0x00, 0x00, 0x1d};
    memcpy(pkt + n, vl, sizeof vl);
    n += sizeof vl;

    int rc = quic_hdr_parse(&h, pkt, n, 5);
    T_CHECK("VN: parsed, 3 versions", rc == 0 && h.type == QUIC_PT_VN && h.version == 0 && h.dcid_len == 8 &&
                                          h.scid_len == 5 && h.n_versions == 3 && h.pkt_len == n,
            "rc %d n_versions %zu", rc, h.n_versions);
    T_CHECK("VN: the versions listed", quic_vn_version(&h, 0) == 0x0a0a0a0a && quic_vn_version(&h, 1) == 0x6b3343cf &&
                                           quic_vn_version(&h, 2) == 0xff00001d,
            "wrong");
    T_CHECK("VN without version 1: the client fails (RFC 9000 §6.2)", !quic_vn_offers(&h, QUIC_V1), "offers 1");
    pkt[n - 1] = 0x01;
    pkt[n - 2] = pkt[n - 3] = pkt[n - 4] = 0;
    rc = quic_hdr_parse(&h, pkt, n, 5);
    T_CHECK("VN listing version 1: the client discards it (RFC 9000 §6.2)", rc == 0 && quic_vn_offers(&h, QUIC_V1),
            "rc %d", rc);
    pkt[0] = 0xc0;
    T_CHECK("VN with the fixed bit set parses too", quic_hdr_parse(&h, pkt, n, 5) == 0 && h.type == QUIC_PT_VN,
            "refused");
    T_CHECK("VN with a partial version is invalid", quic_hdr_parse(&h, pkt, n - 1, 5) == QUIC_PKT_INVALID, "accepted");
    T_CHECK("VN with no versions parses (and offers nothing)",
            quic_hdr_parse(&h, pkt, n - 12, 5) == 0 && h.n_versions == 0 && !quic_vn_offers(&h, QUIC_V1), "refused");

    /* Other versions' CIDs can be longer than 20 (§17.2.1: 0..2040 bits). */
    uint8_t big[600];
    size_t m = 0;
    big[m++] = 0x80;
    memset(big + m, 0, 4);
    m += 4;
    big[m++] = 255;
    fill(big + m, 255, 33);
    m += 255;
    big[m++] = 40;
    fill(big + m, 40, 34);
    m += 40;
    memcpy(big + m, vl, 4);
    m += 4;
    rc = quic_hdr_parse(&h, big, m, 5);
    T_CHECK("VN with a 255-byte DCID and 40-byte SCID parses", rc == 0 && h.type == QUIC_PT_VN && h.dcid_len == 255 &&
                                                                   h.scid_len == 40 && h.n_versions == 1,
            "rc %d", rc);

    /* Every truncation: refused, or (cut at a version boundary) fewer
     * versions. */
    int ok = 1;
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *c = t_memdup(pkt, cut);
        rc = quic_hdr_parse(&h, c, cut, 5);
        ok &= T_QUIET("VN cut", rc == QUIC_PKT_TRUNCATED || rc == QUIC_PKT_INVALID ||
                                    (rc == 0 && h.n_versions < 3 && cut >= 20 && (cut - 20) % 4 == 0),
                      "cut %zu rc %d", cut, rc);
        free(c);
    }
    T_CHECK("VN: every truncation is refused or ends at a version boundary", ok, "see above");
}

/* ---- coalesced packets (RFC 9000 §12.2) and truncation ---- */

/* Walks a datagram: parses each packet, opens it with the keys its type
 * calls for; records types, pns and total bytes walked. Returns the number
 * of packets that opened; *stop is the first failure (0 if none). */
static size_t walk(uint8_t *d, size_t len, enum quic_pkt_type *types, uint64_t *pns, int *stop, size_t *walked)
{
    size_t off = 0, k = 0;
    *stop = 0;
    while (off < len) {
        struct quic_hdr h;
        struct quic_opened o;
        const struct quic_keys *keys;
        int rc = quic_hdr_parse(&h, d + off, len - off, 8);
        if (rc != 0) {
            *stop = rc;
            break;
        }
        keys = h.type == QUIC_PT_INITIAL ? &si : h.type == QUIC_PT_HANDSHAKE ? &hk : &ak;
        rc = quic_packet_open(keys, d + off, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &o);
        off += h.pkt_len;
        if (rc != 0) {
            *stop = rc;
            continue; /* §12.2: go on with the rest */
        }
        types[k] = h.type;
        pns[k] = o.pn;
        k++;
    }
    *walked = off;
    return k;
}

static void test_coalesced(void)
{
    uint8_t cid[8], scid[8], d[1500];
    size_t n1, n2, n3, len;
    enum quic_pkt_type types[4];
    uint64_t pns[4];
    int stop;
    size_t walked;

    fill(cid, 8, 51);
    fill(scid, 8, 52);
    n1 = make(d, sizeof d, &si, QUIC_PT_INITIAL, cid, 8, scid, 8, NULL, 0, 0, 1, 120, 61);
    n2 = make(d + n1, sizeof d - n1, &hk, QUIC_PT_HANDSHAKE, cid, 8, scid, 8, NULL, 0, 1, 2, 700, 62);
    n3 = make(d + n1 + n2, sizeof d - n1 - n2, &ak, QUIC_PT_1RTT, cid, 8, NULL, 0, NULL, 0, 2, 1, 200, 63);
    len = n1 + n2 + n3;
    T_CHECK("coalesced: three packets built", n1 && n2 && n3, "%zu %zu %zu", n1, n2, n3);

    uint8_t *c = t_memdup(d, len);
    size_t k = walk(c, len, types, pns, &stop, &walked);
    T_CHECK("coalesced: Initial, Handshake, 1-RTT walked in order",
            k == 3 && stop == 0 && walked == len && types[0] == QUIC_PT_INITIAL && types[1] == QUIC_PT_HANDSHAKE &&
                types[2] == QUIC_PT_1RTT && pns[0] == 0 && pns[1] == 1 && pns[2] == 2,
            "k %zu stop %d walked %zu of %zu", k, stop, walked, len);
    free(c);

    /* A failing packet in the middle does not stop the walk (§12.2). */
    c = t_memdup(d, len);
    c[n1 + n2 - 1] ^= 1; /* the Handshake packet's tag */
    k = walk(c, len, types, pns, &stop, &walked);
    T_CHECK("coalesced: a bad Handshake tag drops only that packet",
            k == 2 && stop == QUIC_PKT_DECRYPT && walked == len && types[0] == QUIC_PT_INITIAL &&
                types[1] == QUIC_PT_1RTT,
            "k %zu stop %d", k, stop);
    free(c);

    /* Every truncation of the datagram: the packets wholly inside open,
     * the cut one is rejected, nothing is read past the end (ASan). */
    int ok = 1;
    for (size_t cut = 0; cut < len; cut++) {
        size_t want = cut >= n1 + n2 ? 2 : cut >= n1 ? 1 : 0;
        c = t_memdup(d, cut);
        k = walk(c, cut, types, pns, &stop, &walked);
        int boundary = cut == 0 || cut == n1 || cut == n1 + n2;
        ok &= T_QUIET("coalesced cut", k == want && (boundary ? stop == 0 : stop != 0), "cut %zu k %zu stop %d", cut,
                      k, stop);
        /* The long-header packet that was cut is TRUNCATED by its Length;
         * the short one is TRUNCATED or fails its tag. */
        if (!boundary && cut < n1 + n2)
            ok &= T_QUIET("coalesced cut: truncated", stop == QUIC_PKT_TRUNCATED, "cut %zu stop %d", cut, stop);
        free(c);
    }
    T_CHECK("coalesced: every truncation of the datagram is rejected cleanly", ok, "see above");

    /* The RFC packets, every truncation. */
    char want[2 * 1200 + 1];
    snprintf(want, sizeof want, "%s%s", Q_A2_HDR_PROT, Q_A2_CIPHER);
    struct vec a2 = V(want);
    ok = 1;
    for (size_t cut = 0; cut < a2.n; cut++) {
        struct quic_hdr h;
        c = t_memdup(a2.p, cut);
        int rc = quic_hdr_parse(&h, c, cut, 8);
        ok &= T_QUIET("A.2 cut", rc == QUIC_PKT_TRUNCATED, "cut %zu rc %d", cut, rc);
        free(c);
    }
    T_CHECK("A.2: every truncation is QUIC_PKT_TRUNCATED", ok, "see above");
    struct quic_keys k5;
    quic_keys_init(&k5, TLS_CHACHA20_POLY1305_SHA256, V(Q_A5_SECRET).p);
    struct vec a5 = V(Q_A5_PACKET);
    ok = 1;
    for (size_t cut = 0; cut < a5.n; cut++) {
        struct quic_hdr h;
        struct quic_opened o;
        c = t_memdup(a5.p, cut);
        int rc = quic_hdr_parse(&h, c, cut, 0);
        if (rc == 0)
            rc = quic_packet_open(&k5, c, h.pkt_len, h.pn_offset, 654360563, &o);
        ok &= T_QUIET("A.5 cut", rc == QUIC_PKT_TRUNCATED, "cut %zu rc %d", cut, rc);
        free(c);
    }
    T_CHECK("A.5: every truncation is QUIC_PKT_TRUNCATED (too short for a sample)", ok, "see above");

    /* A Length one short: the packet ends a byte early, so its tag is read
     * from the wrong place and it fails (the Length is in the AAD too).
     * One past the datagram: truncated. */
    struct quic_hdr h;
    struct quic_opened o;
    c = t_memdup(d, len);
    c[n1 - 120 - 16 - 1 - 1] -= 1; /* Initial's 2-byte Length, low byte */
    int rc = quic_hdr_parse(&h, c, len, 8);
    T_CHECK("an Initial Length one short: parsed one byte shorter, fails its tag",
            rc == 0 && h.pkt_len == n1 - 1 &&
                quic_packet_open(&si, c, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &o) == QUIC_PKT_DECRYPT,
            "rc %d pkt_len %zu", rc, h.pkt_len);
    free(c);
    c = t_memdup(d, n1);
    c[n1 - 120 - 16 - 1 - 1] += 1;
    T_CHECK("an Initial Length one past the datagram is truncated", quic_hdr_parse(&h, c, n1, 8) == QUIC_PKT_TRUNCATED,
            "accepted");
    free(c);
}

int main(void)
{
    test_varint();
    test_pn();
    test_keys();
    test_hp_mask();
    test_a2();
    test_a3();
    test_a4();
    test_a5();
    test_build_parse();
    test_protect_rules();
    test_vn();
    test_coalesced();
    quic_keys_wipe(&ci);
    quic_keys_wipe(&si);
    quic_keys_wipe(&hk);
    quic_keys_wipe(&ak);
    T_DONE();
}
