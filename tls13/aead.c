/* tls13/aead.c — AES-GCM and ChaCha20-Poly1305 for TLS 1.3 records and QUIC
 * packets, on BearSSL's block and MAC primitives. See aead.h.
 *
 * Implementation choice happens once per process (impl() below): AES-NI
 * CTR and PCLMUL GHASH when the CPU has them, else BearSSL's constant-time
 * portable code (ct64 AES, ctmul64 GHASH); SSE2 ChaCha20 and the
 * 64x64->128 Poly1305 (ctmulq) when available, else ct ChaCha20 and ctmul
 * Poly1305.
 *
 * GCM (NIST SP 800-38D, 96-bit IV): H = AES_K(0^128), J0 = nonce || 0^31 1;
 * the payload is CTR-encrypted from counter 2; the tag is
 * GHASH_H(A, C) XOR AES_K(J0). H is computed once at init and kept in
 * the struct's gcm_h.
 *
 * ChaCha20-Poly1305 is RFC 8439 §2.8, which BearSSL's br_poly1305_run
 * implements whole (one-time key from block 0, payload from block 1, MAC
 * over AAD || pad || C || pad || lengths). */
#include "tls13/aead.h"

#include <pthread.h>
#include <string.h>

#include "tls13/keysched.h" /* suite ids, tls13_wipe */

#define GCM_H(a) ((a)->gcm_h)

static inline const br_block_ctr_class *const *aes_ctx(const struct tls13_aead *a)
{
    return tls13_aes_ctr_ctx(&a->aes);
}

/* BearSSL's _get functions ask the CPU (CPUID) on every call, and under a
 * hypervisor CPUID is a VM exit: about 7 us each on the development
 * machine (a Firecracker guest), and a handshake sets up four keys, two
 * questions each — 29 % of the client's CPU per handshake (perf, cpu-clock
 * samples in br_aes_x86ni_supported and br_ghash_pclmul_get). So the
 * answers are taken once per process (pthread_once: worker threads start
 * handshakes concurrently) and kept. */
static struct {
    int aes_ni;
    br_ghash ghash;
    br_chacha20_run chacha;
    br_poly1305_run poly;
} impls;
static pthread_once_t impls_once = PTHREAD_ONCE_INIT;

static void impl_pick(void)
{
    impls.aes_ni = br_aes_x86ni_ctr_get_vtable() != NULL;
    if ((impls.ghash = br_ghash_pclmul_get()) == NULL)
        impls.ghash = br_ghash_ctmul64;
    if ((impls.chacha = br_chacha20_sse2_get()) == NULL)
        impls.chacha = br_chacha20_ct_run;
    if ((impls.poly = br_poly1305_ctmulq_get()) == NULL)
        impls.poly = br_poly1305_ctmul_run;
}

static inline void impl(void) { pthread_once(&impls_once, impl_pick); }

void tls13_aes_ctr_init(union tls13_aes_ctr *k, const uint8_t *key, size_t key_len)
{
    impl();
    if (impls.aes_ni)
        br_aes_x86ni_ctr_init(&k->x86ni, key, key_len);
    else
        br_aes_ct64_ctr_init(&k->ct64, key, key_len);
}

br_chacha20_run tls13_chacha20_impl(void)
{
    impl();
    return impls.chacha;
}

/* RFC 8446 §5.3 / RFC 9001 §5.3: the 64-bit sequence (packet) number,
 * big-endian and left-padded to 12 bytes, XORed into the static IV. */
static inline void make_nonce(const struct tls13_aead *a, uint64_t seq, uint8_t nonce[12])
{
    memcpy(nonce, a->iv, 4);
    for (int i = 0; i < 8; i++)
        nonce[4 + i] = a->iv[4 + i] ^ (uint8_t)(seq >> (56 - 8 * i));
}

/* 0 if equal, -1 otherwise; time depends on n only. */
static int tag_cmp(const uint8_t *x, const uint8_t *y, size_t n)
{
    unsigned d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned)(x[i] ^ y[i]);
    /* d in [0, 255]: (d - 1) >> 8 is 1 exactly when d == 0. */
    return (int)(((d - 1) >> 8) & 1) - 1;
}

/* GHASH_H(A, C) with GCM's zero padding and the closing length block, then
 * XOR AES_K(J0): the GCM tag over aad and the ciphertext c. */
static void gcm_tag(const struct tls13_aead *a, const uint8_t nonce[12], const uint8_t *aad, size_t aad_len,
                    const uint8_t *c, size_t len, uint8_t tag[16])
{
    uint8_t lens[16];
    uint64_t abits = (uint64_t)aad_len << 3, cbits = (uint64_t)len << 3;

    for (int i = 0; i < 8; i++) {
        lens[i] = (uint8_t)(abits >> (56 - 8 * i));
        lens[8 + i] = (uint8_t)(cbits >> (56 - 8 * i));
    }
    memset(tag, 0, 16);
    if (aad_len > 0)
        a->ghash(tag, GCM_H(a), aad, aad_len);
    if (len > 0)
        a->ghash(tag, GCM_H(a), c, len);
    a->ghash(tag, GCM_H(a), lens, 16);
    /* CTR over the 16-byte tag at counter 1 XORs in AES_K(J0). */
    (*aes_ctx(a))->run(aes_ctx(a), nonce, 1, tag, 16);
}

int tls13_aead_init(struct tls13_aead *a, uint16_t suite, const uint8_t *key, const uint8_t *iv)
{
    const struct tls13_suite *s = tls13_suite_find(suite);

    memset(a, 0, sizeof *a);
    if (s == NULL)
        return -1;
    a->suite = suite;
    memcpy(a->iv, iv, 12);
    if (suite == TLS_CHACHA20_POLY1305_SHA256) {
        memcpy(a->chacha_key, key, 32);
        a->chacha = tls13_chacha20_impl(); /* and impl() */
        a->poly = impls.poly;
        return 0;
    }
    tls13_aes_ctr_init(&a->aes, key, s->key_len); /* and impl() */
    a->ghash = impls.ghash;
    /* H = AES_K(0^128): CTR with a zero IV at counter 0 over a zero block. */
    {
        static const uint8_t zero_iv[12];
        memset(GCM_H(a), 0, 16);
        (*aes_ctx(a))->run(aes_ctx(a), zero_iv, 0, GCM_H(a), 16);
    }
    return 0;
}

void tls13_aead_seal(const struct tls13_aead *a, uint64_t seq, const uint8_t *aad, size_t aad_len, uint8_t *buf,
                     size_t len, uint8_t *tag)
{
    uint8_t nonce[12];

    make_nonce(a, seq, nonce);
    if (a->suite == TLS_CHACHA20_POLY1305_SHA256) {
        a->poly(a->chacha_key, nonce, buf, len, aad, aad_len, tag, a->chacha, 1);
        return;
    }
    if (len > 0)
        (*aes_ctx(a))->run(aes_ctx(a), nonce, 2, buf, len);
    gcm_tag(a, nonce, aad, aad_len, buf, len, tag);
}

int tls13_aead_open(const struct tls13_aead *a, uint64_t seq, const uint8_t *aad, size_t aad_len, uint8_t *buf,
                    size_t len, const uint8_t *tag)
{
    uint8_t nonce[12], want[16];

    make_nonce(a, seq, nonce);
    if (a->suite == TLS_CHACHA20_POLY1305_SHA256) {
        /* br_poly1305_run MACs the ciphertext and decrypts in one call. */
        a->poly(a->chacha_key, nonce, buf, len, aad, aad_len, want, a->chacha, 0);
        if (tag_cmp(want, tag, 16) != 0) {
            /* Unauthenticated plaintext never leaves this function. */
            memset(buf, 0, len);
            return -1;
        }
        return 0;
    }
    /* GCM: authenticate first, decrypt only on success, so a forged
     * record leaves its ciphertext in buf, never plaintext. */
    gcm_tag(a, nonce, aad, aad_len, buf, len, want);
    if (tag_cmp(want, tag, 16) != 0)
        return -1;
    if (len > 0)
        (*aes_ctx(a))->run(aes_ctx(a), nonce, 2, buf, len);
    return 0;
}

void tls13_aead_wipe(struct tls13_aead *a) { tls13_wipe(a, sizeof *a); }
