/* tls13/sha256ni.h — SHA-256 on the x86 SHA extensions, as a BearSSL hash
 * class (br_hash_class), for the key schedule and the transcript.
 *
 * Why: a full handshake runs 78 SHA-256 compressions (HMAC key setups,
 * HKDF expansions, Finished, the transcript). BearSSL 0.6's br_sha256 is
 * portable C, 3,500 instructions and 0.18 us a block on the development
 * machine (AMD EPYC); SHA256RNDS2 does two rounds per instruction, 0.04 us
 * a block. In perf's samples of shb --disable-keepalive the compression
 * function went from 8.3 % of the client's CPU to 3.3 %. BearSSL has no
 * SHA-NI code.
 *
 * It is a br_hash_class (context starting with its vtable pointer, state
 * and set_state as BearSSL's own SHA-256 has them), so BearSSL's HMAC runs
 * on it unchanged. Header-only (static functions), included by keysched.c,
 * which picks it once per process when CPUID says SHA, SSSE3 and SSE4.1
 * (tls13_sha256_class); everywhere else br_sha256_vtable is used.
 * SHA256NI_OK is 0 where this cannot be compiled (not x86-64 GCC/Clang). */
#ifndef SHB_TLS13_SHA256NI_H
#define SHB_TLS13_SHA256NI_H

#include <bearssl.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SHA256NI_OK 1

#include <cpuid.h>
#include <immintrin.h>

struct sha256ni_context {
    const br_hash_class *vtable;
    uint8_t buf[64];
    uint64_t count; /* bytes hashed so far */
    uint32_t val[8];
};

static const uint32_t sha256ni_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t sha256ni_iv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* FIPS 180-4 §6.2.2 over n 64-byte blocks. The instructions keep the
 * state as two registers, ABEF and CDGH (A in the top lane); SHA256RNDS2
 * takes CDGH, ABEF and two message-plus-constant words and returns the new
 * ABEF, the old ABEF becoming the new CDGH. SHA256MSG1 and SHA256MSG2 make
 * the next four schedule words (§6.2.2 step 1) from the previous sixteen. */
__attribute__((target("sha,sse4.1"))) static void sha256ni_blocks(uint32_t val[8], const uint8_t *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&val[0]); /* lanes 0..3 = a b c d */
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&val[4]);
    __m128i badc = _mm_shuffle_epi32(dcba, 0xb1);            /* b a d c */
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);            /* h g f e */
    __m128i abef = _mm_alignr_epi8(badc, efgh, 8);           /* f e b a */
    __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xf0);        /* h g d c */

    for (; n > 0; n--, p += 64) {
        __m128i abef0 = abef, cdgh0 = cdgh, w[4], wk;

        for (int i = 0; i < 16; i++) {
            __m128i *cur = &w[i & 3];
            if (i < 4) {
                *cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
            } else {
                /* w[t] = s1(w[t-2]) + w[t-7] + s0(w[t-15]) + w[t-16], four at a time:
                 * *cur holds w[t-16..t-13] until it is replaced. */
                __m128i w7 = _mm_alignr_epi8(w[(i - 1) & 3], w[(i - 2) & 3], 4);
                *cur = _mm_sha256msg1_epu32(*cur, w[(i - 3) & 3]);
                *cur = _mm_add_epi32(*cur, w7);
                *cur = _mm_sha256msg2_epu32(*cur, w[(i - 1) & 3]);
            }
            wk = _mm_add_epi32(*cur, _mm_loadu_si128((const __m128i *)&sha256ni_k[4 * i]));
            /* Rounds 4i, 4i+1: the new ABEF lands in cdgh, whose old
             * value is spent, while abef holds what is now CDGH; rounds
             * 4i+2, 4i+3 swap them back. */
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1b);            /* a b e f */
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);            /* g h c d */
    _mm_storeu_si128((__m128i *)&val[0], _mm_blend_epi16(feba, dchg, 0xf0)); /* a b c d */
    _mm_storeu_si128((__m128i *)&val[4], _mm_alignr_epi8(dchg, feba, 8));   /* e f g h */
}

static const br_hash_class sha256ni_vtable;

static void sha256ni_init(const br_hash_class **ctx)
{
    struct sha256ni_context *c = (struct sha256ni_context *)(void *)ctx;
    c->vtable = &sha256ni_vtable;
    memcpy(c->val, sha256ni_iv, sizeof c->val);
    c->count = 0;
}

static void sha256ni_update(const br_hash_class **ctx, const void *data, size_t len)
{
    struct sha256ni_context *c = (struct sha256ni_context *)(void *)ctx;
    const uint8_t *p = data;
    size_t have = (size_t)c->count & 63;

    c->count += len;
    if (have > 0) {
        size_t n = 64 - have < len ? 64 - have : len;
        memcpy(c->buf + have, p, n);
        p += n;
        len -= n;
        if (have + n < 64)
            return;
        sha256ni_blocks(c->val, c->buf, 1);
    }
    if (len >= 64) {
        sha256ni_blocks(c->val, p, len / 64);
        p += len & ~(size_t)63;
        len &= 63;
    }
    if (len > 0)
        memcpy(c->buf, p, len);
}

static void sha256ni_be32(uint8_t *dst, const uint32_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        dst[4 * i] = (uint8_t)(v[i] >> 24);
        dst[4 * i + 1] = (uint8_t)(v[i] >> 16);
        dst[4 * i + 2] = (uint8_t)(v[i] >> 8);
        dst[4 * i + 3] = (uint8_t)v[i];
    }
}

/* Finishes a copy (the running hash goes on, as with BearSSL's _out). */
static void sha256ni_out(const br_hash_class *const *ctx, void *dst)
{
    const struct sha256ni_context *c = (const struct sha256ni_context *)(const void *)ctx;
    uint8_t buf[64];
    uint32_t val[8];
    size_t have = (size_t)c->count & 63;
    uint64_t bits = c->count << 3;

    memcpy(buf, c->buf, have);
    memcpy(val, c->val, sizeof val);
    buf[have++] = 0x80;
    if (have > 56) {
        memset(buf + have, 0, 64 - have);
        sha256ni_blocks(val, buf, 1);
        have = 0;
    }
    memset(buf + have, 0, 56 - have);
    for (int i = 0; i < 8; i++)
        buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256ni_blocks(val, buf, 1);
    sha256ni_be32(dst, val, 8);
}

/* HMAC's key setup saves the state after the padded key block and starts
 * each HMAC from it (state / set_state, BearSSL's encoding: the eight
 * words big-endian, and the byte count). */
static uint64_t sha256ni_state(const br_hash_class *const *ctx, void *dst)
{
    const struct sha256ni_context *c = (const struct sha256ni_context *)(const void *)ctx;
    sha256ni_be32(dst, c->val, 8);
    return c->count;
}

static void sha256ni_set_state(const br_hash_class **ctx, const void *stb, uint64_t count)
{
    struct sha256ni_context *c = (struct sha256ni_context *)(void *)ctx;
    const uint8_t *s = stb;
    for (int i = 0; i < 8; i++)
        c->val[i] = (uint32_t)s[4 * i] << 24 | (uint32_t)s[4 * i + 1] << 16 | (uint32_t)s[4 * i + 2] << 8 | s[4 * i + 3];
    c->count = count;
}

static const br_hash_class sha256ni_vtable = {
    sizeof(struct sha256ni_context),
    BR_HASHDESC_ID(br_sha256_ID) | BR_HASHDESC_OUT(32) | BR_HASHDESC_STATE(32) | BR_HASHDESC_LBLEN(6) |
        BR_HASHDESC_MD_PADDING | BR_HASHDESC_MD_PADDING_BE,
    sha256ni_init,
    sha256ni_update,
    sha256ni_out,
    sha256ni_state,
    sha256ni_set_state,
};

/* CPUID: SSSE3 and SSE4.1 (leaf 1, ECX) and SHA (leaf 7, EBX). */
static int sha256ni_supported(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSSE3) || !(c & bit_SSE4_1))
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b & bit_SHA) != 0;
}

#else
#define SHA256NI_OK 0
#endif

#endif
