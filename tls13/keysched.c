/* tls13/keysched.c — the TLS 1.3 key schedule (RFC 8446 §7) on BearSSL's
 * SHA-256/384 and HMAC. See keysched.h for the contract.
 *
 * HKDF-Expand is written here over HMAC rather than with br_hkdf: br_hkdf
 * only produces output after its own Extract, and every TLS 1.3 expansion
 * starts from a PRK that is already a secret of the schedule. HKDF-Extract
 * is a single HMAC (RFC 5869 §2.2). None of this is on the per-record path,
 * so clarity wins over shaving HMAC key setups. */
#include "tls13/keysched.h"

#include <string.h>

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

static const br_hash_class *hash_class(enum tls13_hash h)
{
    return h == TLS13_SHA384 ? &br_sha384_vtable : &br_sha256_vtable;
}

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

/* HKDF-Expand(PRK, info, L) (RFC 5869 §2.3):
 *   T(0) = empty; T(i) = HMAC(PRK, T(i-1) || info || i); OKM = first L bytes
 * of T(1) || T(2) || ... The caller guarantees L <= 255 * HashLen. */
static void hkdf_expand(enum tls13_hash h, const uint8_t *prk, const uint8_t *info, size_t info_len, uint8_t *out,
                        size_t out_len)
{
    size_t hlen = tls13_hash_len(h);
    br_hmac_key_context kc;
    br_hmac_context hc;
    uint8_t t[TLS13_MAX_HASH];
    uint8_t ctr = 0;

    br_hmac_key_init(&kc, hash_class(h), prk, hlen);
    while (out_len > 0) {
        br_hmac_init(&hc, &kc, 0);
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
    tls13_wipe(&kc, sizeof kc);
    tls13_wipe(&hc, sizeof hc);
    tls13_wipe(t, sizeof t);
}

#define LABEL_PREFIX "tls13 "
#define LABEL_PREFIX_LEN 6

/* HKDF-Expand-Label (RFC 8446 §7.1) with the HkdfLabel struct:
 *   uint16 length; opaque label<7..255> = "tls13 " + Label;
 *   opaque context<0..255>.
 * Arguments outside those bounds (a label over 249 bytes, a context over
 * 255, more than 255 blocks of output) are caller bugs; rather than write a
 * truncated vector the output is zeroed, which fails any later Finished or
 * record check loudly instead of silently keying with a wrong secret. */
void tls13_hkdf_expand_label(enum tls13_hash h, const uint8_t *secret, const char *label, const uint8_t *ctx,
                             size_t ctx_len, uint8_t *out, size_t out_len)
{
    uint8_t info[2 + 1 + 255 + 1 + 255];
    size_t label_len = strlen(label);
    size_t n = 0;

    if (label_len > 255 - LABEL_PREFIX_LEN || ctx_len > 255 || out_len > 255 * tls13_hash_len(h) ||
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
    hkdf_expand(h, secret, info, n, out, out_len);
}

/* Derive-Secret(Secret, Label, Messages) = HKDF-Expand-Label(Secret, Label,
 * Transcript-Hash(Messages), Hash.length) (§7.1); thash is that hash. */
void tls13_derive_secret(enum tls13_hash h, const uint8_t *secret, const char *label, const uint8_t *thash,
                         uint8_t *out)
{
    size_t hlen = tls13_hash_len(h);
    tls13_hkdf_expand_label(h, secret, label, thash, hlen, out, hlen);
}

void tls13_empty_hash(enum tls13_hash h, uint8_t *out)
{
    if (h == TLS13_SHA384) {
        br_sha384_context c;
        br_sha384_init(&c);
        br_sha384_out(&c, out);
    } else {
        br_sha256_context c;
        br_sha256_init(&c);
        br_sha256_out(&c, out);
    }
}

/* ---- transcript (§4.4.1) ---- */

void tls13_transcript_init(struct tls13_transcript *t)
{
    br_sha256_init(&t->sha256);
    br_sha384_init(&t->sha384);
}

void tls13_transcript_update(struct tls13_transcript *t, const void *p, size_t n)
{
    br_sha256_update(&t->sha256, p, n);
    br_sha384_update(&t->sha384, p, n);
}

/* BearSSL's _out functions take a const context and finish a copy of the
 * state internally, so the running hash goes on unchanged: no explicit
 * context copy is needed here. */
void tls13_transcript_hash(const struct tls13_transcript *t, enum tls13_hash h, uint8_t *out)
{
    if (h == TLS13_SHA384)
        br_sha384_out(&t->sha384, out);
    else
        br_sha256_out(&t->sha256, out);
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
    br_sha256_out(&t->sha256, msg + 4);
    br_sha256_init(&t->sha256);
    br_sha256_update(&t->sha256, msg, 4 + 32);

    msg[3] = 48;
    br_sha384_out(&t->sha384, msg + 4);
    br_sha384_init(&t->sha384);
    br_sha384_update(&t->sha384, msg, 4 + 48);
}

/* ---- the schedule (§7.1, no PSK) ---- */

void tls13_ks_init(struct tls13_keysched *ks, enum tls13_hash h)
{
    uint8_t zeros[TLS13_MAX_HASH] = {0};
    size_t hlen = tls13_hash_len(h);

    memset(ks, 0, sizeof *ks);
    ks->hash = h;
    /* Early Secret = HKDF-Extract(salt 0, IKM PSK); without a PSK the IKM
     * is a string of Hash.length zeros (§7.1). */
    tls13_hkdf_extract(h, zeros, hlen, zeros, hlen, ks->secret);
}

/* Next stage: HKDF-Extract(Derive-Secret(secret, "derived", ""), ikm). */
static void ks_advance(struct tls13_keysched *ks, const uint8_t *ikm, size_t ikm_len)
{
    uint8_t empty[TLS13_MAX_HASH], derived[TLS13_MAX_HASH];
    size_t hlen = tls13_hash_len(ks->hash);

    tls13_empty_hash(ks->hash, empty);
    tls13_derive_secret(ks->hash, ks->secret, "derived", empty, derived);
    tls13_hkdf_extract(ks->hash, derived, hlen, ikm, ikm_len, ks->secret);
    tls13_wipe(derived, sizeof derived);
}

void tls13_ks_handshake(struct tls13_keysched *ks, const uint8_t *dhe, size_t dhe_len, const uint8_t *thash)
{
    ks_advance(ks, dhe, dhe_len);
    tls13_derive_secret(ks->hash, ks->secret, "c hs traffic", thash, ks->client_hs);
    tls13_derive_secret(ks->hash, ks->secret, "s hs traffic", thash, ks->server_hs);
}

void tls13_ks_master(struct tls13_keysched *ks, const uint8_t *thash)
{
    uint8_t zeros[TLS13_MAX_HASH] = {0};

    /* Master Secret = HKDF-Extract(Derive-Secret(HS, "derived", ""), 0). */
    ks_advance(ks, zeros, tls13_hash_len(ks->hash));
    tls13_derive_secret(ks->hash, ks->secret, "c ap traffic", thash, ks->client_app);
    tls13_derive_secret(ks->hash, ks->secret, "s ap traffic", thash, ks->server_app);
}

/* §7.3: [sender]_write_key = HKDF-Expand-Label(Secret, "key", "", key_length),
 *       [sender]_write_iv  = HKDF-Expand-Label(Secret, "iv", "", iv_length). */
void tls13_traffic_keys(const struct tls13_suite *s, const uint8_t *secret, uint8_t *key, uint8_t *iv)
{
    tls13_hkdf_expand_label(s->hash, secret, "key", NULL, 0, key, s->key_len);
    tls13_hkdf_expand_label(s->hash, secret, "iv", NULL, 0, iv, s->iv_len);
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
