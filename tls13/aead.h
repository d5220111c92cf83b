/* tls13/aead.h — AEAD for TLS 1.3 records and QUIC packets: AES-128-GCM,
 * AES-256-GCM and ChaCha20-Poly1305 on BearSSL's fastest implementation for
 * this CPU (AES-NI + PCLMUL, SSE2 ChaCha20; constant-time portable code
 * elsewhere). The nonce is the static IV XORed with a 64-bit sequence number,
 * left-padded (RFC 8446 §5.3; RFC 9001 §5.3 does the same with the packet
 * number). Sans-I/O, no allocation. */
#ifndef SHB_TLS13_AEAD_H
#define SHB_TLS13_AEAD_H

#include <bearssl.h>
#include <stddef.h>
#include <stdint.h>

#define TLS13_TAG_LEN 16

/* BearSSL's fastest AES-CTR for this CPU: AES-NI, else the constant-time
 * ct64 code. Every member starts with its vtable pointer, so the context is
 * addressed in place (tls13_aes_ctr_ctx) whichever was chosen, and a struct
 * copy stays valid. Shared with QUIC header protection and Retry tags. */
union tls13_aes_ctr {
    br_aes_x86ni_ctr_keys x86ni;
    br_aes_ct64_ctr_keys ct64;
};
void tls13_aes_ctr_init(union tls13_aes_ctr *k, const uint8_t *key, size_t key_len);
static inline const br_block_ctr_class *const *tls13_aes_ctr_ctx(const union tls13_aes_ctr *k)
{
    return &k->ct64.vtable;
}
/* ChaCha20 likewise: SSE2 where the CPU has it, else constant-time portable. */
br_chacha20_run tls13_chacha20_impl(void);

struct tls13_aead {
    uint16_t suite;
    uint8_t iv[12];
    union tls13_aes_ctr aes;
    br_ghash ghash;
    uint8_t gcm_h[16]; /* GHASH key H = AES_K(0^128), computed once at init */
    uint8_t chacha_key[32];
    br_chacha20_run chacha;
    br_poly1305_run poly;
};

/* key is 16 or 32 bytes as the suite says; iv is 12 bytes. Returns 0, or -1
 * for a suite that is not one of the three. */
int tls13_aead_init(struct tls13_aead *a, uint16_t suite, const uint8_t *key, const uint8_t *iv);

/* Encrypts buf[0..len) in place and writes the 16-byte tag. */
void tls13_aead_seal(const struct tls13_aead *a, uint64_t seq, const uint8_t *aad, size_t aad_len, uint8_t *buf,
                     size_t len, uint8_t *tag);
/* Decrypts in place; returns 0 if the tag verifies, -1 otherwise (buf is
 * then garbage). */
int tls13_aead_open(const struct tls13_aead *a, uint64_t seq, const uint8_t *aad, size_t aad_len, uint8_t *buf,
                    size_t len, const uint8_t *tag);

void tls13_aead_wipe(struct tls13_aead *a);

#endif
