/* tls13/x25519.h — X25519 (RFC 7748 §5) on 64-bit limbs, for the key share.
 *
 * Why not BearSSL's: the libbearssl.a we link (Debian's 0.6) has only the
 * 15- and 31-bit-limb Curve25519 code (br_ec_c25519_m15/m31; the default,
 * br_ec_all_m31, is the latter); the 64-bit br_ec_c25519_m62/m64 came after
 * 0.6. With m31 a scalar multiplication costs 2.0 M instructions (callgrind)
 * and 98 us (static musl build, AMD EPYC), and a handshake needs two (our
 * share, then the shared secret): 88 % of the client's instructions per
 * handshake. Here a field element is five 51-bit limbs and products are
 * 64x64->128 multiplications (GCC/Clang's unsigned __int128), the layout
 * of curve25519-donna-c64: 0.52 M instructions and 30 us.
 *
 * Constant time: a Montgomery ladder over all 255 scalar bits with masked
 * swaps; no branch or memory index depends on the scalar or the point.
 *
 * Header-only (static functions), included by handshake.c and the unit test.
 * X25519_FAST is 0 where the compiler has no 128-bit integer type; the
 * handshake then keeps BearSSL's default code. */
#ifndef SHB_TLS13_X25519_H
#define SHB_TLS13_X25519_H

#include <stdint.h>
#include <string.h>

#ifdef __SIZEOF_INT128__
#define X25519_FAST 1

typedef unsigned __int128 x25519_u128;
typedef uint64_t x25519_fe[5]; /* value = sum f[i] * 2^(51 i), mod p = 2^255 - 19 */

#define X25519_M51 ((UINT64_C(1) << 51) - 1)

/* Bounds: the carried outputs of mul, sq and mul_small have limbs below
 * 2^51 + 2^18; add and sub of two such are below 2^53; mul and sq accept
 * limbs below 2^54 (five products of a limb and 19 times a limb, each under
 * 2^112.3, sum below 2^115: the 128-bit accumulators never wrap). */

static inline uint64_t x25519_ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8); /* x86-64 and every other little-endian target; see below */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void x25519_st64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* RFC 7748 §5: the u-coordinate's top bit is masked off; values >= p are
 * accepted as they are (the arithmetic is mod p anyway). */
static inline void x25519_fe_frombytes(x25519_fe h, const uint8_t s[32])
{
    uint64_t w0 = x25519_ld64(s), w1 = x25519_ld64(s + 8), w2 = x25519_ld64(s + 16), w3 = x25519_ld64(s + 24);
    h[0] = w0 & X25519_M51;
    h[1] = (w0 >> 51 | w1 << 13) & X25519_M51;
    h[2] = (w1 >> 38 | w2 << 26) & X25519_M51;
    h[3] = (w2 >> 25 | w3 << 39) & X25519_M51;
    h[4] = (w3 >> 12) & X25519_M51;
}

/* Carries r[0..4] (128-bit column sums) into h; 2^255 = 19 mod p folds the
 * top carry back into h[0]. */
static inline void x25519_carry(x25519_fe h, x25519_u128 r0, x25519_u128 r1, x25519_u128 r2, x25519_u128 r3,
                                x25519_u128 r4)
{
    r1 += (uint64_t)(r0 >> 51);
    r2 += (uint64_t)(r1 >> 51);
    r3 += (uint64_t)(r2 >> 51);
    r4 += (uint64_t)(r3 >> 51);
    x25519_u128 t = (x25519_u128)(uint64_t)(r4 >> 51) * 19 + ((uint64_t)r0 & X25519_M51);
    h[0] = (uint64_t)t & X25519_M51;
    h[1] = ((uint64_t)r1 & X25519_M51) + (uint64_t)(t >> 51);
    h[2] = (uint64_t)r2 & X25519_M51;
    h[3] = (uint64_t)r3 & X25519_M51;
    h[4] = (uint64_t)r4 & X25519_M51;
}

static inline void x25519_fe_mul(x25519_fe h, const x25519_fe f, const x25519_fe g)
{
    uint64_t f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4];
    uint64_t g0 = g[0], g1 = g[1], g2 = g[2], g3 = g[3], g4 = g[4];
    uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
    x25519_u128 r0, r1, r2, r3, r4;

    r0 = (x25519_u128)f0 * g0 + (x25519_u128)f1 * g4_19 + (x25519_u128)f2 * g3_19 + (x25519_u128)f3 * g2_19 +
         (x25519_u128)f4 * g1_19;
    r1 = (x25519_u128)f0 * g1 + (x25519_u128)f1 * g0 + (x25519_u128)f2 * g4_19 + (x25519_u128)f3 * g3_19 +
         (x25519_u128)f4 * g2_19;
    r2 = (x25519_u128)f0 * g2 + (x25519_u128)f1 * g1 + (x25519_u128)f2 * g0 + (x25519_u128)f3 * g4_19 +
         (x25519_u128)f4 * g3_19;
    r3 = (x25519_u128)f0 * g3 + (x25519_u128)f1 * g2 + (x25519_u128)f2 * g1 + (x25519_u128)f3 * g0 +
         (x25519_u128)f4 * g4_19;
    r4 = (x25519_u128)f0 * g4 + (x25519_u128)f1 * g3 + (x25519_u128)f2 * g2 + (x25519_u128)f3 * g1 +
         (x25519_u128)f4 * g0;
    x25519_carry(h, r0, r1, r2, r3, r4);
}

static inline void x25519_fe_sq(x25519_fe h, const x25519_fe f)
{
    uint64_t f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4];
    uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1, f3_19 = 19 * f3, f4_19 = 19 * f4;
    x25519_u128 r0, r1, r2, r3, r4;

    r0 = (x25519_u128)f0 * f0 + (x25519_u128)f1_2 * f4_19 + (x25519_u128)(2 * f2) * f3_19;
    r1 = (x25519_u128)f0_2 * f1 + (x25519_u128)(2 * f2) * f4_19 + (x25519_u128)f3 * f3_19;
    r2 = (x25519_u128)f0_2 * f2 + (x25519_u128)f1 * f1 + (x25519_u128)(2 * f3) * f4_19;
    r3 = (x25519_u128)f0_2 * f3 + (x25519_u128)f1_2 * f2 + (x25519_u128)f4 * f4_19;
    r4 = (x25519_u128)f0_2 * f4 + (x25519_u128)f1_2 * f3 + (x25519_u128)f2 * f2;
    x25519_carry(h, r0, r1, r2, r3, r4);
}

/* h = f^(2^n) */
static inline void x25519_fe_sqn(x25519_fe h, const x25519_fe f, int n)
{
    x25519_fe_sq(h, f);
    while (--n > 0)
        x25519_fe_sq(h, h);
}

static inline void x25519_fe_mul_small(x25519_fe h, const x25519_fe f, uint32_t c)
{
    x25519_carry(h, (x25519_u128)f[0] * c, (x25519_u128)f[1] * c, (x25519_u128)f[2] * c, (x25519_u128)f[3] * c,
                 (x25519_u128)f[4] * c);
}

static inline void x25519_fe_add(x25519_fe h, const x25519_fe f, const x25519_fe g)
{
    for (int i = 0; i < 5; i++)
        h[i] = f[i] + g[i];
}

/* h = f - g + 2p: limbs stay positive for g's limbs below 2^52 - 38. */
static inline void x25519_fe_sub(x25519_fe h, const x25519_fe f, const x25519_fe g)
{
    h[0] = f[0] + (UINT64_C(0xfffffffffffda)) - g[0];
    for (int i = 1; i < 5; i++)
        h[i] = f[i] + (UINT64_C(0xffffffffffffe)) - g[i];
}

/* Swaps f and g when swap is 1, leaves them when 0, without a branch. */
static inline void x25519_fe_cswap(x25519_fe f, x25519_fe g, uint64_t swap)
{
    uint64_t mask = -swap;
    for (int i = 0; i < 5; i++) {
        uint64_t t = mask & (f[i] ^ g[i]);
        f[i] ^= t;
        g[i] ^= t;
    }
}

/* The canonical 32 bytes (0 <= value < p) of h (limbs below 2^54). */
static inline void x25519_fe_tobytes(uint8_t s[32], const x25519_fe f)
{
    uint64_t h[5], c, q;

    memcpy(h, f, sizeof h);
    for (int pass = 0; pass < 2; pass++) {
        c = h[0] >> 51, h[0] &= X25519_M51, h[1] += c;
        c = h[1] >> 51, h[1] &= X25519_M51, h[2] += c;
        c = h[2] >> 51, h[2] &= X25519_M51, h[3] += c;
        c = h[3] >> 51, h[3] &= X25519_M51, h[4] += c;
        c = h[4] >> 51, h[4] &= X25519_M51, h[0] += 19 * c;
    }
    /* Now h < 2^255 + 19 * 2 < 2p: q = 1 exactly when h >= p, i.e. when
     * h + 19 reaches 2^255; then h - p = h + 19 - 2^255. */
    q = (h[0] + 19) >> 51;
    q = (h[1] + q) >> 51;
    q = (h[2] + q) >> 51;
    q = (h[3] + q) >> 51;
    q = (h[4] + q) >> 51;
    h[0] += 19 * q;
    c = h[0] >> 51, h[0] &= X25519_M51, h[1] += c;
    c = h[1] >> 51, h[1] &= X25519_M51, h[2] += c;
    c = h[2] >> 51, h[2] &= X25519_M51, h[3] += c;
    c = h[3] >> 51, h[3] &= X25519_M51, h[4] += c;
    h[4] &= X25519_M51; /* drops the 2^255 of h - p */
    x25519_st64(s, h[0] | h[1] << 51);
    x25519_st64(s + 8, h[1] >> 13 | h[2] << 38);
    x25519_st64(s + 16, h[2] >> 26 | h[3] << 25);
    x25519_st64(s + 24, h[3] >> 39 | h[4] << 12);
}

/* h = f^(p-2) = 1/f (0 for 0): the usual chain, 254 squarings, 11 products. */
static inline void x25519_fe_invert(x25519_fe h, const x25519_fe z)
{
    x25519_fe z2, z9, z11, a, b, c;

    x25519_fe_sq(z2, z);           /* 2 */
    x25519_fe_sqn(a, z2, 2);       /* 8 */
    x25519_fe_mul(z9, a, z);       /* 9 */
    x25519_fe_mul(z11, z9, z2);    /* 11 */
    x25519_fe_sq(a, z11);          /* 22 */
    x25519_fe_mul(a, a, z9);       /* 2^5 - 1 */
    x25519_fe_sqn(b, a, 5);
    x25519_fe_mul(a, b, a);        /* 2^10 - 1 */
    x25519_fe_sqn(b, a, 10);
    x25519_fe_mul(b, b, a);        /* 2^20 - 1 */
    x25519_fe_sqn(c, b, 20);
    x25519_fe_mul(c, c, b);        /* 2^40 - 1 */
    x25519_fe_sqn(c, c, 10);
    x25519_fe_mul(a, c, a);        /* 2^50 - 1 */
    x25519_fe_sqn(b, a, 50);
    x25519_fe_mul(b, b, a);        /* 2^100 - 1 */
    x25519_fe_sqn(c, b, 100);
    x25519_fe_mul(c, c, b);        /* 2^200 - 1 */
    x25519_fe_sqn(c, c, 50);
    x25519_fe_mul(c, c, a);        /* 2^250 - 1 */
    x25519_fe_sqn(c, c, 5);        /* 2^255 - 2^5 */
    x25519_fe_mul(h, c, z11);      /* 2^255 - 21 = p - 2 */
}

/* RFC 7748 §5's ladder: out = X25519(k, u). base: u is the generator 9,
 * and the product by x_1 becomes a product by a small constant (public
 * knowledge, so the branch leaks nothing). */
static void x25519_ladder(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32], int base)
{
    uint8_t k[32];
    x25519_fe x1, x2 = {1}, z2 = {0}, x3, z3 = {1}, a, aa, b, bb, e, c, d, da, cb;
    uint64_t swap = 0;

    memcpy(k, scalar, 32);
    k[0] &= 248; /* decodeScalar25519 */
    k[31] &= 127;
    k[31] |= 64;
    if (base) {
        memset(x1, 0, sizeof x1);
        x1[0] = 9;
    } else {
        x25519_fe_frombytes(x1, u);
    }
    memcpy(x3, x1, sizeof x3);
    for (int t = 254; t >= 0; t--) {
        uint64_t kt = (uint64_t)(k[t >> 3] >> (t & 7)) & 1;
        swap ^= kt;
        x25519_fe_cswap(x2, x3, swap);
        x25519_fe_cswap(z2, z3, swap);
        swap = kt;
        x25519_fe_add(a, x2, z2);
        x25519_fe_sq(aa, a);
        x25519_fe_sub(b, x2, z2);
        x25519_fe_sq(bb, b);
        x25519_fe_sub(e, aa, bb);
        x25519_fe_add(c, x3, z3);
        x25519_fe_sub(d, x3, z3);
        x25519_fe_mul(da, d, a);
        x25519_fe_mul(cb, c, b);
        x25519_fe_add(x3, da, cb);
        x25519_fe_sq(x3, x3);
        x25519_fe_sub(z3, da, cb);
        x25519_fe_sq(z3, z3);
        if (base)
            x25519_fe_mul_small(z3, z3, 9);
        else
            x25519_fe_mul(z3, z3, x1);
        x25519_fe_mul(x2, aa, bb);
        x25519_fe_mul_small(z2, e, 121665); /* a24 = (486662 - 2) / 4 */
        x25519_fe_add(z2, z2, aa);
        x25519_fe_mul(z2, z2, e);
    }
    x25519_fe_cswap(x2, x3, swap);
    x25519_fe_cswap(z2, z3, swap);
    x25519_fe_invert(z2, z2);
    x25519_fe_mul(x2, x2, z2);
    x25519_fe_tobytes(out, x2);

    /* Wipe what depended on the scalar (the compiler may keep copies in
     * registers; this is the same care BearSSL's code takes, no more). */
    memset(k, 0, sizeof k);
    memset(x2, 0, sizeof x2), memset(z2, 0, sizeof z2), memset(x3, 0, sizeof x3), memset(z3, 0, sizeof z3);
    __asm__ __volatile__("" : : "r"(k), "r"(x2), "r"(z2), "r"(x3), "r"(z3) : "memory");
}

/* out = X25519(scalar, u) (RFC 7748 §5; the caller checks for all zeros).
 * out may be u. */
static inline void x25519(uint8_t out[32], const uint8_t scalar[32], const uint8_t u[32])
{
    x25519_ladder(out, scalar, u, 0);
}

/* out = X25519(scalar, 9): our public key. */
static inline void x25519_base(uint8_t out[32], const uint8_t scalar[32])
{
    x25519_ladder(out, scalar, NULL, 1);
}

#else
#define X25519_FAST 0
#endif

#endif
