/* test/unit/t.h — the smallest test harness that can fail.
 *
 * Each check prints "PASS name" or "FAIL name: why" on its own line; test/run.sh
 * counts those lines across all test programs and prints "N passed, N failed".
 * A test binary exits non-zero when any check failed. */
#ifndef SHB_T_H
#define SHB_T_H

#include <stdio.h>
#include <string.h>

static int t_failed_;

#define T_CHECK(name, cond, ...)                                  \
    do {                                                          \
        if (cond) {                                               \
            printf("PASS %s\n", (name));                          \
        } else {                                                  \
            t_failed_++;                                          \
            printf("FAIL %s: ", (name));                          \
            printf(__VA_ARGS__);                                  \
            printf(" (%s:%d)\n", __FILE__, __LINE__);             \
        }                                                         \
    } while (0)

/* Silent check inside a loop: only failures print; returns the condition. */
#define T_QUIET(name, cond, ...)                                  \
    ((cond) ? 1 : (t_failed_++, printf("FAIL %s: ", (name)),      \
                   printf(__VA_ARGS__), printf(" (%s:%d)\n", __FILE__, __LINE__), 0))

#define T_DONE() return t_failed_ ? 1 : 0

/* ---- helpers the unit tests share ---------------------------------------- */

#include <stdint.h>
#include <stdlib.h>

/* The tests' one random generator: xorshift64* from a fixed seed, so a
 * failure reproduces. A test that wants its own sequence calls t_rng_seed
 * first; without that the seed is 0x9e3779b97f4a7c15. */
static uint64_t t_rng_state_ = 0x9e3779b97f4a7c15ull;

static inline void t_rng_seed(uint64_t seed)
{
    t_rng_state_ = seed ? seed : 0x9e3779b97f4a7c15ull; /* 0 would stay 0 */
}

static inline uint64_t t_rng(void)
{
    t_rng_state_ ^= t_rng_state_ >> 12;
    t_rng_state_ ^= t_rng_state_ << 25;
    t_rng_state_ ^= t_rng_state_ >> 27;
    return t_rng_state_ * 0x2545f4914f6cdd1dull;
}

/* Below n (0 when n is 0). */
static inline size_t t_rng_below(size_t n)
{
    return n ? (size_t)(t_rng() % n) : 0;
}

/* Big-endian 16- and 24-bit fields, as TLS and QUIC write lengths. */
static inline void be16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void be24(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

/* malloc that never returns NULL (nor asks malloc for 0 bytes). */
static inline void *t_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("out of memory\n");
        exit(2);
    }
    return p;
}

/* An exact-size heap copy of p[0..n): under ASan a read past n is caught. */
static inline uint8_t *t_memdup(const void *p, size_t n)
{
    uint8_t *c = t_malloc(n);
    if (n)
        memcpy(c, p, n);
    return c;
}

/* Hex text -> bytes: digits are taken in pairs, anything else (spaces,
 * newlines) is skipped. Writes at most cap bytes and returns how many the
 * text holds, so unhex(hex, NULL, 0) measures it. */
static inline size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *hex; hex++) {
        int c = (unsigned char)*hex, v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            if (n < cap)
                out[n] = (uint8_t)(hi << 4 | v);
            n++;
            hi = -1;
        }
    }
    return n;
}

/* Bytes -> lowercase hex, as many as fit cap (NUL included). */
static inline void tohex(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t i;
    for (i = 0; i < n && 2 * i + 3 <= cap; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
    out[2 * i] = 0;
}

/* A decoded hex vector in a static ring of buffers (enough for one check);
 * a vector longer than a buffer is a broken test. */
struct vec {
    const uint8_t *p;
    size_t n;
};
static inline struct vec V(const char *hex)
{
    static uint8_t ring[8][2600];
    static unsigned k;
    uint8_t *b = ring[k++ % 8];
    struct vec v = {b, unhex(hex, b, sizeof ring[0])};
    if (v.n > sizeof ring[0]) {
        printf("FAIL test vector of %zu bytes does not fit V()'s %zu\n", v.n, sizeof ring[0]);
        exit(2);
    }
    return v;
}

/* One check: n bytes at got equal the hex string want (length included).
 * A failure shows where they start to differ. */
static inline int check_hex(const char *name, const uint8_t *got, size_t n, const char *want)
{
    struct vec w = V(want);
    int ok = w.n == n && memcmp(got, w.p, n) == 0;
    char g[200];
    size_t at = 0;
    if (w.n == n)
        while (at < n && got[at] == w.p[at])
            at++;
    if (at >= n || at < 16)
        at = 0;
    tohex(got + at, n - at < 48 ? n - at : 48, g, sizeof g);
    T_CHECK(name, ok, "got %zu bytes, from byte %zu: %s..., want %zu bytes", n, at, g, w.n);
    return ok;
}

/* A growing byte buffer to build inputs with. */
struct blk {
    uint8_t *b;
    size_t n, cap;
};

static inline void b_need(struct blk *k, size_t more)
{
    if (k->n + more <= k->cap)
        return;
    size_t cap = k->cap ? k->cap : 64;
    while (cap < k->n + more)
        cap *= 2;
    uint8_t *nb = realloc(k->b, cap);
    if (!nb) {
        printf("out of memory\n");
        exit(2);
    }
    k->b = nb;
    k->cap = cap;
}

static inline void b_bytes(struct blk *k, const void *p, size_t n)
{
    b_need(k, n);
    if (n)
        memcpy(k->b + k->n, p, n);
    k->n += n;
}

static inline void b_byte(struct blk *k, uint8_t v) { b_bytes(k, &v, 1); }

static inline void b_free(struct blk *k)
{
    free(k->b);
    k->b = NULL;
    k->n = k->cap = 0;
}

static inline void b_hex(struct blk *k, const char *hex)
{
    size_t n = unhex(hex, NULL, 0);
    b_need(k, n);
    unhex(hex, k->b + k->n, n);
    k->n += n;
}

#endif
