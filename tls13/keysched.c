/* tls13/keysched.c — the TLS 1.3 key schedule (RFC 8446 §7) on BearSSL's
 * SHA-256/384 and HMAC. See keysched.h for the contract.
 *
 * HKDF-Expand is written here over HMAC rather than with br_hkdf: br_hkdf
 * only produces output after its own Extract, and every TLS 1.3 expansion
 * starts from a PRK that is already a secret of the schedule. HKDF-Extract
 * is a single HMAC (RFC 5869 §2.2).
 *
 * Not on the per-record path, but on the per-handshake one (a
 * --disable-keepalive run does little else), so nothing is computed
 * twice: a secret expanded under several labels sets up its HMAC key (two
 * compression-function calls, the ipad and opad blocks) once for all of
 * them, and what depends on no input at all — the Early Secret without a
 * PSK, Derive-Secret(Early Secret, "derived", ""), the hashes of the empty
 * string — is a constant. That saved 23 of the 101 SHA-256 compressions a
 * handshake made here. */
#include "tls13/keysched.h"

#include <pthread.h>
#include <string.h>

#include "tls13/sha256ni.h"

static const struct tls13_suite suites[] = {
    {TLS_AES_128_GCM_SHA256, TLS13_SHA256, 16, 12},
    {TLS_AES_256_GCM_SHA384, TLS13_SHA384, 32, 12},
    {TLS_CHACHA20_POLY1305_SHA256, TLS13_SHA256, 32, 12},
};

const struct tls13_suite *tls13_suite_find(uint16_t id)
{
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        if (suites[i].id == id)
            return &suites[i];
    return NULL;
}

size_t tls13_hash_len(enum tls13_hash h) { return h == TLS13_SHA384 ? 48 : 32; }

/* Once per process: CPUID may be a VM exit (see aead.c). Valgrind says
 * "no SHA" (it cannot run the instructions), so BearSSL's code runs there. */
static const br_hash_class *sha256_impl = &br_sha256_vtable;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_pick(void)
{
#if SHA256NI_OK
    _Static_assert(sizeof(struct sha256ni_context) <= sizeof(br_hash_compat_context), "transcript context");
    if (sha256ni_supported())
        sha256_impl = &sha256ni_vtable;
#endif
}

const br_hash_class *tls13_sha256_class(void)
{
    pthread_once(&sha256_once, sha256_pick);
    return sha256_impl;
}

static const br_hash_class *hash_class(enum tls13_hash h)
{
    return h == TLS13_SHA384 ? &br_sha384_vtable : tls13_sha256_class();
}

/* Constants of the schedule, per hash ([TLS13_SHA256], [TLS13_SHA384]);
 * test/unit/unit_tls13_crypto.c recomputes each. Hash(""): */
static const uint8_t empty_hash[2][TLS13_MAX_HASH] = {
    {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
     0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55},
    {0x38, 0xb0, 0x60, 0xa7, 0x51, 0xac, 0x96, 0x38, 0x4c, 0xd9, 0x32, 0x7e, 0xb1, 0xb1, 0xe3, 0x6a,
     0x21, 0xfd, 0xb7, 0x11, 0x14, 0xbe, 0x07, 0x43, 0x4c, 0x0c, 0xc7, 0xbf, 0x63, 0xf6, 0xe1, 0xda,
     0x27, 0x4e, 0xde, 0xbf, 0xe7, 0x6f, 0x65, 0xfb, 0xd5, 0x1a, 0xd2, 0xf1, 0x48, 0x98, 0xb9, 0x5b},
};
/* Early Secret = HKDF-Extract(0^HashLen, 0^HashLen) (§7.1, no PSK): */
static const uint8_t early_secret[2][TLS13_MAX_HASH] = {
    {0x33, 0xad, 0x0a, 0x1c, 0x60, 0x7e, 0xc0, 0x3b, 0x09, 0xe6, 0xcd, 0x98, 0x93, 0x68, 0x0c, 0xe2,
     0x10, 0xad, 0xf3, 0x00, 0xaa, 0x1f, 0x26, 0x60, 0xe1, 0xb2, 0x2e, 0x10, 0xf1, 0x70, 0xf9, 0x2a},
    {0x7e, 0xe8, 0x20, 0x6f, 0x55, 0x70, 0x02, 0x3e, 0x6d, 0xc7, 0x51, 0x9e, 0xb1, 0x07, 0x3b, 0xc4,
     0xe7, 0x91, 0xad, 0x37, 0xb5, 0xc3, 0x82, 0xaa, 0x10, 0xba, 0x18, 0xe2, 0x35, 0x7e, 0x71, 0x69,
     0x71, 0xf9, 0x36, 0x2f, 0x2c, 0x2f, 0xe2, 0xa7, 0x6b, 0xfd, 0x78, 0xdf, 0xec, 0x4e, 0xa9, 0xb5},
};
/* Derive-Secret(Early Secret, "derived", ""), the salt of the Handshake
 * Secret's Extract: */
static const uint8_t early_derived[2][TLS13_MAX_HASH] = {
    {0x6f, 0x26, 0x15, 0xa1, 0x08, 0xc7, 0x02, 0xc5, 0x67, 0x8f, 0x54, 0xfc, 0x9d, 0xba, 0xb6, 0x97,
     0x16, 0xc0, 0x76, 0x18, 0x9c, 0x48, 0x25, 0x0c, 0xeb, 0xea, 0xc3, 0x57, 0x6c, 0x36, 0x11, 0xba},
    {0x15, 0x91, 0xda, 0xc5, 0xcb, 0xbf, 0x03, 0x30, 0xa4, 0xa8, 0x4d, 0xe9, 0xc7, 0x53, 0x33, 0x0e,
     0x92, 0xd0, 0x1f, 0x0a, 0x88, 0x21, 0x4b, 0x44, 0x64, 0x97, 0x2f, 0xd6, 0x68, 0x04, 0x9e, 0x93,
     0xe5, 0x2f, 0x2b, 0x16, 0xfa, 0xd9, 0x22, 0xfd, 0xc0, 0x58, 0x44, 0x78, 0x42, 0x8f, 0x28, 0x2b},
};

void tls13_wipe(void *p, size_t n)
{
    if (n == 0)
        return;
    memset(p, 0, n);
    /* The asm claims to read memory through p, so the memset above cannot
     * be dropped as a dead store even when p is freed or goes out of scope
     * right after (the usual fate of a plain memset of key material). */
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* HKDF-Extract(salt, IKM) = HMAC-Hash(salt, IKM) (RFC 5869 §2.2). An empty
 * salt is HMAC with an empty key, which HMAC pads to the same block as a
 * string of HashLen zeros: exactly RFC 5869's "not provided" default and
 * RFC 8446 §7.1's "0". */
void tls13_hkdf_extract(enum tls13_hash h, const uint8_t *salt, size_t salt_len, const uint8_t *ikm, size_t ikm_len,
                        uint8_t *out)
{
    br_hmac_key_context kc;
    br_hmac_context hc;

    br_hmac_key_init(&kc, hash_class(h), salt, salt_len);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, ikm, ikm_len);
    br_hmac_out(&hc, out);
    tls13_wipe(&kc, sizeof kc);
    tls13_wipe(&hc, sizeof hc);
}

/* HKDF-Expand(PRK, info, L) (RFC 5869 §2.3), kc being PRK's HMAC key:
 *   T(0) = empty; T(i) = HMAC(PRK, T(i-1) || info || i); OKM = first L bytes
 * of T(1) || T(2) || ... The caller guarantees L <= 255 * HashLen. */
static void hkdf_expand(const br_hmac_key_context *kc, size_t hlen, const uint8_t *info, size_t info_len,
                        uint8_t *out, size_t out_len)
{
    br_hmac_context hc;
    uint8_t t[TLS13_MAX_HASH];
    uint8_t ctr = 0;

    while (out_len > 0) {
        br_hmac_init(&hc, kc, 0);
        if (ctr > 0)
            br_hmac_update(&hc, t, hlen);
        ctr++;
        br_hmac_update(&hc, info, info_len);
        br_hmac_update(&hc, &ctr, 1);
        br_hmac_out(&hc, t);
        size_t n = out_len < hlen ? out_len : hlen;
        memcpy(out, t, n);
        out += n;
        out_len -= n;
    }
    tls13_wipe(&hc, sizeof hc);
    tls13_wipe(t, sizeof t);
}

/* A secret's HMAC key, set up once for all the labels expanded from it. */
struct prk {
    enum tls13_hash h;
    br_hmac_key_context kc;
};

static void prk_init(struct prk *k, enum tls13_hash h, const uint8_t *secret)
{
    k->h = h;
    br_hmac_key_init(&k->kc, hash_class(h), secret, tls13_hash_len(h));
}

static void prk_wipe(struct prk *k) { tls13_wipe(k, sizeof *k); }

#define LABEL_PREFIX "tls13 "
#define LABEL_PREFIX_LEN 6

/* HKDF-Expand-Label (RFC 8446 §7.1) with the HkdfLabel struct:
 *   uint16 length; opaque label<7..255> = "tls13 " + Label;
 *   opaque context<0..255>.
 * Arguments outside those bounds (a label over 249 bytes, a context over
 * 255, more than 255 blocks of output) are caller bugs; rather than write a
 * truncated vector the output is zeroed, which fails any later Finished or
 * record check loudly instead of silently keying with a wrong secret. */
static void expand_label(const struct prk *k, const char *label, const uint8_t *ctx, size_t ctx_len, uint8_t *out,
                         size_t out_len)
{
    uint8_t info[2 + 1 + 255 + 1 + 255];
    size_t label_len = strlen(label);
    size_t n = 0;

    if (label_len > 255 - LABEL_PREFIX_LEN || ctx_len > 255 || out_len > 255 * tls13_hash_len(k->h) ||
        out_len > 0xffff) {
        memset(out, 0, out_len);
        return;
    }
    info[n++] = (uint8_t)(out_len >> 8);
    info[n++] = (uint8_t)out_len;
    info[n++] = (uint8_t)(LABEL_PREFIX_LEN + label_len);
    memcpy(info + n, LABEL_PREFIX, LABEL_PREFIX_LEN);
    n += LABEL_PREFIX_LEN;
    memcpy(info + n, label, label_len);
    n += label_len;
    info[n++] = (uint8_t)ctx_len;
    if (ctx_len > 0)
        memcpy(info + n, ctx, ctx_len);
    n += ctx_len;
    hkdf_expand(&k->kc, tls13_hash_len(k->h), info, n, out, out_len);
}

void tls13_hkdf_expand_label(enum tls13_hash h, const uint8_t *secret, const char *label, const uint8_t *ctx,
                             size_t ctx_len, uint8_t *out, size_t out_len)
{
    struct prk k;
    prk_init(&k, h, secret);
    expand_label(&k, label, ctx, ctx_len, out, out_len);
    prk_wipe(&k);
}

/* Derive-Secret(Secret, Label, Messages) = HKDF-Expand-Label(Secret, Label,
 * Transcript-Hash(Messages), Hash.length) (§7.1); thash is that hash. */
void tls13_derive_secret(enum tls13_hash h, const uint8_t *secret, const char *label, const uint8_t *thash,
                         uint8_t *out)
{
    size_t hlen = tls13_hash_len(h);
    tls13_hkdf_expand_label(h, secret, label, thash, hlen, out, hlen);
}

void tls13_empty_hash(enum tls13_hash h, uint8_t *out) { memcpy(out, empty_hash[h], tls13_hash_len(h)); }

/* ---- transcript (§4.4.1) ---- */

void tls13_transcript_init(struct tls13_transcript *t)
{
    tls13_sha256_class()->init(&t->sha256.vtable);
    br_sha384_init(&t->sha384);
    t->only = 0;
}

void tls13_transcript_update(struct tls13_transcript *t, const void *p, size_t n)
{
    if (t->only != 1 + TLS13_SHA384)
        t->sha256.vtable->update(&t->sha256.vtable, p, n);
    if (t->only != 1 + TLS13_SHA256)
        br_sha384_update(&t->sha384, p, n);
}

void tls13_transcript_select(struct tls13_transcript *t, enum tls13_hash h) { t->only = (uint8_t)(1 + h); }

/* BearSSL's _out functions take a const context and finish a copy of the
 * state internally (sha256ni.h's too), so the running hash goes on
 * unchanged: no explicit context copy is needed here. */
void tls13_transcript_hash(const struct tls13_transcript *t, enum tls13_hash h, uint8_t *out)
{
    if (h == TLS13_SHA384)
        br_sha384_out(&t->sha384, out);
    else
        t->sha256.vtable->out(&t->sha256.vtable, out);
}

/* §4.4.1: after a HelloRetryRequest, ClientHello1 is replaced by the
 * synthetic handshake message
 *   message_hash(254) || 00 00 Hash.length || Hash(ClientHello1)
 * Call it after ClientHello1 was added and before the HRR is. The hash is
 * the one of the suite the HRR selected (h); §4.1.4 makes the ServerHello
 * keep that suite, so only h's context matters from here on. Both contexts
 * are rebuilt anyway, each around its own Hash(ClientHello1), so that the
 * transcript stays well-defined whichever one is read. */
void tls13_transcript_hrr_reset(struct tls13_transcript *t, enum tls13_hash h)
{
    uint8_t msg[4 + TLS13_MAX_HASH];

    (void)h;
    msg[0] = 254;
    msg[1] = 0;
    msg[2] = 0;

    msg[3] = 32;
    t->sha256.vtable->out(&t->sha256.vtable, msg + 4);
    t->sha256.vtable->init(&t->sha256.vtable);
    t->sha256.vtable->update(&t->sha256.vtable, msg, 4 + 32);

    msg[3] = 48;
    br_sha384_out(&t->sha384, msg + 4);
    br_sha384_init(&t->sha384);
    br_sha384_update(&t->sha384, msg, 4 + 48);
}

/* ---- the schedule (§7.1) ---- */

void tls13_ks_init(struct tls13_keysched *ks, enum tls13_hash h)
{
    memset(ks, 0, sizeof *ks);
    ks->hash = h;
    /* Early Secret = HKDF-Extract(salt 0, IKM PSK); without a PSK the IKM
     * is a string of Hash.length zeros (§7.1): a constant. */
    memcpy(ks->secret, early_secret[h], tls13_hash_len(h));
}

/* With a PSK nothing is constant: Early Secret = HKDF-Extract(0, PSK), and
 * the next stage's salt Derive-Secret(Early Secret, "derived", "") under
 * its HMAC key. */
void tls13_ks_init_psk(struct tls13_keysched *ks, enum tls13_hash h, const uint8_t *psk, size_t psk_len)
{
    size_t hlen = tls13_hash_len(h);
    struct prk k;

    memset(ks, 0, sizeof *ks);
    ks->hash = h;
    ks->psk = true;
    tls13_hkdf_extract(h, NULL, 0, psk, psk_len, ks->secret);
    prk_init(&k, h, ks->secret);
    expand_label(&k, "derived", empty_hash[h], hlen, ks->derived, hlen);
    prk_wipe(&k);
}

/* §4.2.11.2: binder_key = Derive-Secret(Early Secret, "res binder", ""),
 * and the binder is computed "in the same way as the Finished message" with
 * it as the BaseKey (§4.4.4). */
void tls13_ks_binder(const struct tls13_keysched *ks, const uint8_t *thash, uint8_t *out)
{
    uint8_t binder_key[TLS13_MAX_HASH];

    tls13_derive_secret(ks->hash, ks->secret, "res binder", empty_hash[ks->hash], binder_key);
    tls13_finished(ks->hash, binder_key, thash, out);
    tls13_wipe(binder_key, sizeof binder_key);
}

/* Handshake Secret = HKDF-Extract(Derive-Secret(Early Secret, "derived",
 * ""), DHE): without a PSK the salt is a constant too. Under the Handshake Secret's one
 * HMAC key: both handshake traffic secrets, and the next stage's salt
 * Derive-Secret(Handshake Secret, "derived", "") for tls13_ks_master. */
void tls13_ks_handshake(struct tls13_keysched *ks, const uint8_t *dhe, size_t dhe_len, const uint8_t *thash)
{
    size_t hlen = tls13_hash_len(ks->hash);
    struct prk k;

    tls13_hkdf_extract(ks->hash, ks->psk ? ks->derived : early_derived[ks->hash], hlen, dhe, dhe_len, ks->secret);
    prk_init(&k, ks->hash, ks->secret);
    expand_label(&k, "c hs traffic", thash, hlen, ks->client_hs, hlen);
    expand_label(&k, "s hs traffic", thash, hlen, ks->server_hs, hlen);
    expand_label(&k, "derived", empty_hash[ks->hash], hlen, ks->derived, hlen);
    prk_wipe(&k);
}

/* Master Secret = HKDF-Extract(Derive-Secret(HS, "derived", ""), 0), then
 * both application traffic secrets under its one HMAC key. */
void tls13_ks_master(struct tls13_keysched *ks, const uint8_t *thash)
{
    uint8_t zeros[TLS13_MAX_HASH] = {0};
    size_t hlen = tls13_hash_len(ks->hash);
    struct prk k;

    tls13_hkdf_extract(ks->hash, ks->derived, hlen, zeros, hlen, ks->secret);
    tls13_wipe(ks->derived, sizeof ks->derived);
    prk_init(&k, ks->hash, ks->secret);
    expand_label(&k, "c ap traffic", thash, hlen, ks->client_app, hlen);
    expand_label(&k, "s ap traffic", thash, hlen, ks->server_app, hlen);
    prk_wipe(&k);
}

void tls13_ks_resumption(const struct tls13_keysched *ks, const uint8_t *thash, uint8_t *out)
{
    tls13_derive_secret(ks->hash, ks->secret, "res master", thash, out);
}

void tls13_ticket_psk(enum tls13_hash h, const uint8_t *rms, const uint8_t *nonce, size_t nonce_len, uint8_t *out)
{
    tls13_hkdf_expand_label(h, rms, "resumption", nonce, nonce_len, out, tls13_hash_len(h));
}

/* §7.3: [sender]_write_key = HKDF-Expand-Label(Secret, "key", "", key_length),
 *       [sender]_write_iv  = HKDF-Expand-Label(Secret, "iv", "", iv_length). */
void tls13_traffic_keys(const struct tls13_suite *s, const uint8_t *secret, uint8_t *key, uint8_t *iv)
{
    struct prk k;
    prk_init(&k, s->hash, secret);
    expand_label(&k, "key", NULL, 0, key, s->key_len);
    expand_label(&k, "iv", NULL, 0, iv, s->iv_len);
    prk_wipe(&k);
}

/* §4.4.4: finished_key = HKDF-Expand-Label(BaseKey, "finished", "",
 * Hash.length); verify_data = HMAC(finished_key, Transcript-Hash(...)). */
void tls13_finished(enum tls13_hash h, const uint8_t *base_key, const uint8_t *thash, uint8_t *out)
{
    uint8_t fk[TLS13_MAX_HASH];
    size_t hlen = tls13_hash_len(h);
    br_hmac_key_context kc;
    br_hmac_context hc;

    tls13_hkdf_expand_label(h, base_key, "finished", NULL, 0, fk, hlen);
    br_hmac_key_init(&kc, hash_class(h), fk, hlen);
    br_hmac_init(&hc, &kc, 0);
    br_hmac_update(&hc, thash, hlen);
    br_hmac_out(&hc, out);
    tls13_wipe(fk, sizeof fk);
    tls13_wipe(&kc, sizeof kc);
    tls13_wipe(&hc, sizeof hc);
}

/* §7.2: application_traffic_secret_N+1 =
 *   HKDF-Expand-Label(application_traffic_secret_N, "traffic upd", "",
 *                     Hash.length) */
void tls13_next_traffic_secret(enum tls13_hash h, uint8_t *secret)
{
    uint8_t next[TLS13_MAX_HASH];
    size_t hlen = tls13_hash_len(h);

    tls13_hkdf_expand_label(h, secret, "traffic upd", NULL, 0, next, hlen);
    memcpy(secret, next, hlen);
    tls13_wipe(next, sizeof next);
}
