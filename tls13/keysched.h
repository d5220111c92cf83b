/* tls13/keysched.h — the TLS 1.3 key schedule (RFC 8446 §7) over BearSSL's
 * SHA-256/384 and HMAC: HKDF-Extract, HKDF-Expand-Label, Derive-Secret, the
 * transcript hash, traffic keys, Finished, KeyUpdate. Shared by TLS over TCP
 * and by QUIC (RFC 9001 §5 uses the same HKDF-Expand-Label).
 *
 * Sans-I/O, no allocation; secrets live in caller-owned structs. */
#ifndef SHB_TLS13_KEYSCHED_H
#define SHB_TLS13_KEYSCHED_H

#include <bearssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLS13_MAX_HASH 48 /* SHA-384 */

enum tls13_hash { TLS13_SHA256, TLS13_SHA384 };

/* The three suites (RFC 8446 §B.4). */
#define TLS_AES_128_GCM_SHA256 0x1301
#define TLS_AES_256_GCM_SHA384 0x1302
#define TLS_CHACHA20_POLY1305_SHA256 0x1303

struct tls13_suite {
    uint16_t id;
    enum tls13_hash hash;
    uint8_t key_len; /* 16 or 32 */
    uint8_t iv_len;  /* 12 */
};

/* The SHA-256 every SHA-256 suite's schedule and transcript run on: one on
 * the x86 SHA extensions where the CPU has them (tls13/sha256ni.h), else
 * BearSSL's br_sha256_vtable. Chosen once per process. */
const br_hash_class *tls13_sha256_class(void);

/* NULL for a suite we do not implement. */
const struct tls13_suite *tls13_suite_find(uint16_t id);
size_t tls13_hash_len(enum tls13_hash h);

/* HKDF (RFC 5869) and TLS 1.3's labels (RFC 8446 §7.1). `label` is given
 * without the "tls13 " prefix. out_len <= 255 * hash length. */
void tls13_hkdf_extract(enum tls13_hash h, const uint8_t *salt, size_t salt_len, const uint8_t *ikm, size_t ikm_len,
                        uint8_t *out);
void tls13_hkdf_expand_label(enum tls13_hash h, const uint8_t *secret, const char *label, const uint8_t *ctx,
                             size_t ctx_len, uint8_t *out, size_t out_len);
/* Derive-Secret(secret, label, transcript hash already computed) */
void tls13_derive_secret(enum tls13_hash h, const uint8_t *secret, const char *label, const uint8_t *thash,
                         uint8_t *out);
/* Hash of the empty string, for Derive-Secret(., "derived", "") */
void tls13_empty_hash(enum tls13_hash h, uint8_t *out);

/* Running transcript hash (RFC 8446 §4.4.1). Both SHA-256 and SHA-384 run
 * until the suite is known (ServerHello), so nothing needs re-hashing; then
 * tls13_transcript_select stops the other one. */
struct tls13_transcript {
    br_hash_compat_context sha256; /* tls13_sha256_class()'s context */
    br_sha384_context sha384;
    uint8_t only; /* 0: both run; 1 + h: only h's (tls13_transcript_select) */
};
void tls13_transcript_init(struct tls13_transcript *t);
void tls13_transcript_update(struct tls13_transcript *t, const void *p, size_t n);
/* From now on only h's hash is kept (and may be read). */
void tls13_transcript_select(struct tls13_transcript *t, enum tls13_hash h);
void tls13_transcript_hash(const struct tls13_transcript *t, enum tls13_hash h, uint8_t *out); /* does not finish it */
/* HelloRetryRequest (§4.4.1): replaces ClientHello1 by message_hash(Hash(ClientHello1)). */
void tls13_transcript_hrr_reset(struct tls13_transcript *t, enum tls13_hash h);

/* The schedule proper (RFC 8446 §7.1), with or without a PSK. */
struct tls13_keysched {
    enum tls13_hash hash;
    bool psk;                                      /* the Early Secret came from a PSK (tls13_ks_init_psk) */
    uint8_t secret[TLS13_MAX_HASH];                /* the current stage's Early / Handshake / Master Secret */
    uint8_t client_hs[TLS13_MAX_HASH], server_hs[TLS13_MAX_HASH];
    uint8_t client_app[TLS13_MAX_HASH], server_app[TLS13_MAX_HASH];
    uint8_t derived[TLS13_MAX_HASH];               /* internal: the Master Secret's salt, made by tls13_ks_handshake */
};
/* Early Secret from a zero PSK. */
void tls13_ks_init(struct tls13_keysched *ks, enum tls13_hash h);
/* Early Secret from a resumption PSK (§7.1: HKDF-Extract(0, PSK)), and
 * the salt of the Handshake Secret derived from it. */
void tls13_ks_init_psk(struct tls13_keysched *ks, enum tls13_hash h, const uint8_t *psk, size_t psk_len);
/* The PSK binder (§4.2.11.2): HMAC(finished_key(binder_key), thash) with
 * binder_key = Derive-Secret(Early Secret, "res binder", "") and thash the
 * hash of the ClientHello up to its binders list (after an HRR: of
 * message_hash(ClientHello1), the HRR and that part of ClientHello2).
 * Follows tls13_ks_init_psk. */
void tls13_ks_binder(const struct tls13_keysched *ks, const uint8_t *thash, uint8_t *out);
/* Handshake Secret from the (EC)DHE shared secret, and both handshake traffic
 * secrets; thash = Hash(ClientHello..ServerHello). Follows tls13_ks_init or
 * tls13_ks_init_psk. */
void tls13_ks_handshake(struct tls13_keysched *ks, const uint8_t *dhe, size_t dhe_len, const uint8_t *thash);
/* Master Secret and both application traffic secrets; thash =
 * Hash(ClientHello..server Finished). Follows tls13_ks_handshake. */
void tls13_ks_master(struct tls13_keysched *ks, const uint8_t *thash);
/* resumption_master_secret = Derive-Secret(Master Secret, "res master",
 * thash) with thash = Hash(ClientHello..client Finished) (§7.1). Follows
 * tls13_ks_master, before the Master Secret is wiped. */
void tls13_ks_resumption(const struct tls13_keysched *ks, const uint8_t *thash, uint8_t *out);
/* A ticket's PSK (§4.6.1): HKDF-Expand-Label(resumption_master_secret,
 * "resumption", ticket_nonce, Hash.length). */
void tls13_ticket_psk(enum tls13_hash h, const uint8_t *rms, const uint8_t *nonce, size_t nonce_len, uint8_t *out);

/* [sender]_write_key and _iv from a traffic secret (§7.3). */
void tls13_traffic_keys(const struct tls13_suite *s, const uint8_t *secret, uint8_t *key, uint8_t *iv);
/* Finished verify_data (§4.4.4): HMAC(finished_key(base_key), thash). */
void tls13_finished(enum tls13_hash h, const uint8_t *base_key, const uint8_t *thash, uint8_t *out);
/* application_traffic_secret_N+1 (§7.2), in place. */
void tls13_next_traffic_secret(enum tls13_hash h, uint8_t *secret);

/* Wipes key material. */
void tls13_wipe(void *p, size_t n);

#endif
