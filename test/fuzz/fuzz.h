/* test/fuzz/fuzz.h — what the libFuzzer targets in test/fuzz/ share.
 *
 * Every target reads its input the same way: a few control bytes at the
 * front (fz_reader), then the bytes a server would send, which are fed to the
 * engine in pieces whose sizes a small PRNG draws from a seed in the control
 * bytes (fz_split). A seed file is therefore "control bytes + real server
 * bytes", and test/fuzz/mkcorpus.py writes them so.
 *
 * Each piece is copied to the very end of a static buffer before it is fed
 * (fz_place): ASan puts a redzone after every global, so an engine that reads
 * one byte past what a feed delivered is caught, as the unit tests catch it
 * with exact-size heap copies, without an allocation per input. It also gives
 * the TLS engine the writable bytes it decrypts in place.
 *
 * Invariants are checked with FZ_CHECK, which prints what broke and aborts:
 * libFuzzer then saves the input as a crash reproducer. */
#ifndef SHB_FUZZ_H
#define SHB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer's entry points (declared here for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FZ_CHECK(cond, ...)                                                            \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* Inputs above this are ignored (libFuzzer's default -max_len is 4096; the
 * seed corpora stay far below it). */
#define FZ_MAX_INPUT (1u << 20)

/* ------------------------------------------------------------ control bytes */

/* Takes bytes from the front of the input; past its end it reads zeros, so
 * a short input is still a valid one. */
struct fz_reader {
    const uint8_t *p;
    size_t n;
};

static inline uint8_t fz_u8(struct fz_reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static inline uint16_t fz_u16(struct fz_reader *r)
{
    uint16_t hi = fz_u8(r);
    return (uint16_t)(hi << 8 | fz_u8(r));
}

/* ------------------------------------------------------------ splits */

/* How a byte stream is cut into feeds (the low two bits of a mode byte). */
enum fz_split_mode {
    FZ_SPLIT_WHOLE = 0, /* everything in one feed */
    FZ_SPLIT_BYTES = 1, /* one byte per feed */
    FZ_SPLIT_SMALL = 2, /* 0..16 bytes per feed: empty feeds too */
    FZ_SPLIT_LARGE = 3, /* 1..512 bytes per feed */
};

struct fz_split {
    uint32_t x; /* xorshift32 state, never 0 */
    uint8_t mode;
};

static inline void fz_split_init(struct fz_split *s, uint8_t mode, uint16_t seed)
{
    s->mode = mode & 3;
    s->x = ((uint32_t)seed << 16 | seed) ^ 0x9e3779b9u;
    if (s->x == 0)
        s->x = 1;
}

/* xorshift32 (Marsaglia): deterministic, so every run of an input is alike. */
static inline uint32_t fz_rand(struct fz_split *s)
{
    uint32_t x = s->x;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s->x = x;
    return x;
}

/* The size of the next feed, at most left (0 only in FZ_SPLIT_SMALL, or
 * when left is 0). */
static inline size_t fz_split_next(struct fz_split *s, size_t left)
{
    size_t k;
    switch (s->mode) {
    case FZ_SPLIT_WHOLE: k = left; break;
    case FZ_SPLIT_BYTES: k = 1; break;
    case FZ_SPLIT_SMALL: k = fz_rand(s) % 17; break;
    default: k = 1 + fz_rand(s) % 512; break;
    }
    return k < left ? k : left;
}

/* ------------------------------------------------------------ feeds */

static uint8_t fz_feedbuf_[FZ_MAX_INPUT];

/* Copies p[0..n) so that it ends exactly where fz_feedbuf_ ends (a global:
 * ASan's redzone follows) and returns the copy. n <= FZ_MAX_INPUT. */
static inline uint8_t *fz_place(const uint8_t *p, size_t n)
{
    uint8_t *dst = fz_feedbuf_ + sizeof fz_feedbuf_ - n;
    if (n)
        memcpy(dst, p, n);
    return dst;
}

/* ------------------------------------------------------------ the TLS client's fixed inputs */

/* What fuzz_tls13_client starts its connections with, and what
 * mkcorpus.c --capture connects with: the same entropy, SNI and ALPN give
 * the same ClientHello byte for byte, so a server flight captured once stays
 * valid for the fuzzer's client (its key share, its transcript). */
#define FZ_TLS_SNI "localhost"
static const uint8_t fz_tls_alpn[12] = { 2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };

static inline void fz_tls_entropy(uint8_t *ent, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ent[i] = (uint8_t)(i * 37 + 11);
}

#endif
