/* tls13/credentials.c — the client certificate and key (credentials.h).
 *
 * Loading: BearSSL's PEM decoder splits the text into objects; the
 * CERTIFICATE ones (leaf first) become the chain, the first private key
 * object goes to BearSSL's key decoder (PKCS#8 "PRIVATE KEY", SEC 1 "EC
 * PRIVATE KEY", PKCS#1 "RSA PRIVATE KEY"), and the leaf's public key, from
 * BearSSL's X.509 decoder, must be the private key's. Whatever the key's
 * bytes passed through on the way (the decoded DER, the decoder's context)
 * is wiped before returning.
 *
 * Signing: ECDSA through BearSSL (RFC 6979 deterministic, DER-encoded as
 * RFC 8446 §4.2.3 wants); RSASSA-PSS (RFC 8017 §8.1) is EMSA-PSS encoding,
 * written here since BearSSL 0.6 has none, then BearSSL's RSA private-key
 * operation. */
#include "tls13/credentials.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tls13/keysched.h" /* tls13_wipe */

/* A decoded private key object (an RSA-4096 PKCS#8 key is about 2.4 KB). */
#define KEY_DER_MAX 8192

enum pem_kind { PEM_OTHER, PEM_CERT, PEM_KEY, PEM_ENCRYPTED_KEY };

/* What one pass over a PEM text finds. */
struct pem_scan {
    struct tls13_credential *c; /* certificates go to c->chain / c->der (NULL: not wanted) */
    bool want_key;
    enum pem_kind kind;          /* of the object being decoded */
    bool overflow;               /* a certificate did not fit c->der, or a key KEY_DER_MAX */
    bool too_many;               /* more than TLS13_CRED_CHAIN_MAX certificates */
    bool encrypted;              /* an encrypted key was met */
    bool got_key;
    size_t cert_start;           /* where the current certificate began in c->der */
    size_t key_len;
    uint8_t key[KEY_DER_MAX];
};

static void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void pem_sink(void *ctx, const void *p, size_t n)
{
    struct pem_scan *s = ctx;
    if (s->kind == PEM_CERT) {
        if (n > TLS13_CRED_DER_MAX - s->c->der_len) {
            s->overflow = true;
            return;
        }
        memcpy(s->c->der + s->c->der_len, p, n);
        s->c->der_len += n;
    } else if (s->kind == PEM_KEY) {
        if (n > KEY_DER_MAX - s->key_len) {
            s->overflow = true;
            return;
        }
        memcpy(s->key + s->key_len, p, n);
        s->key_len += n;
    }
}

static enum pem_kind pem_kind_of(const struct pem_scan *s, const char *name)
{
    if (strcmp(name, "CERTIFICATE") == 0)
        return s->c ? PEM_CERT : PEM_OTHER;
    if (strcmp(name, "ENCRYPTED PRIVATE KEY") == 0) /* PKCS#8 EncryptedPrivateKeyInfo (RFC 5958 §3) */
        return PEM_ENCRYPTED_KEY;
    if (strcmp(name, "PRIVATE KEY") == 0 || strcmp(name, "EC PRIVATE KEY") == 0 ||
        strcmp(name, "RSA PRIVATE KEY") == 0)
        return s->want_key && !s->got_key ? PEM_KEY : PEM_OTHER;
    return PEM_OTHER; /* e.g. "EC PARAMETERS" before an openssl ecparam key */
}

static void pem_begin(void *ctx, const char *name)
{
    struct pem_scan *s = ctx;
    s->kind = pem_kind_of(s, name);
    if (s->kind == PEM_ENCRYPTED_KEY)
        s->encrypted = true;
    if (s->kind == PEM_CERT) {
        if (s->c->chain_len == TLS13_CRED_CHAIN_MAX) {
            s->too_many = true;
            s->kind = PEM_OTHER;
        }
        s->cert_start = s->c->der_len;
    }
    if (s->kind == PEM_KEY)
        s->key_len = 0;
}

static void pem_end(void *ctx)
{
    struct pem_scan *s = ctx;
    if (s->kind == PEM_CERT && !s->overflow && s->c->der_len > s->cert_start) {
        br_x509_certificate *x = &s->c->chain[s->c->chain_len++];
        x->data = s->c->der + s->cert_start;
        x->data_len = s->c->der_len - s->cert_start;
    } else if (s->kind == PEM_KEY && !s->overflow && s->key_len > 0) {
        s->got_key = true;
    }
    s->kind = PEM_OTHER;
}

/* RFC 1421 §4.6.1.1's header on an OpenSSL "traditional" encrypted key
 * ("Proc-Type: 4,ENCRYPTED" inside an RSA/EC PRIVATE KEY block). BearSSL's
 * decoder would call the block malformed; this names the real problem. */
static bool has_proc_type_encrypted(const uint8_t *p, size_t n)
{
    static const char tag[] = "Proc-Type: 4,ENCRYPTED";
    for (size_t i = 0; i + sizeof tag - 1 <= n; i++)
        if (p[i] == 'P' && memcmp(p + i, tag, sizeof tag - 1) == 0)
            return true;
    return false;
}

int tls13_pem_walk(const uint8_t *p, size_t n, const struct tls13_pem_walker *w)
{
    br_pem_decoder_context pc;
    bool inside = false;

    br_pem_decoder_init(&pc);
    br_pem_decoder_setdest(&pc, w->data, w->ctx);
    while (n > 0) {
        /* CR+LF line ends (a file from Windows): BearSSL's decoder takes a
         * CR for part of the line, so the decoder is fed around them. */
        if (*p == '\r') {
            p++, n--;
            continue;
        }
        const uint8_t *cr = memchr(p, '\r', n);
        size_t run = cr ? (size_t)(cr - p) : n;
        size_t used = br_pem_decoder_push(&pc, p, run);
        p += used;
        n -= used;
        switch (br_pem_decoder_event(&pc)) {
        case BR_PEM_BEGIN_OBJ:
            w->begin(w->ctx, br_pem_decoder_name(&pc));
            inside = true;
            break;
        case BR_PEM_END_OBJ:
            w->end(w->ctx);
            inside = false;
            break;
        case BR_PEM_ERROR:
            tls13_wipe(&pc, sizeof pc);
            return -1;
        default:
            break;
        }
    }
    /* The decoder reports the end line only once it has seen the newline
     * after it: a file without a final newline gets one. */
    if (inside) {
        br_pem_decoder_push(&pc, "\n", 1);
        if (br_pem_decoder_event(&pc) == BR_PEM_END_OBJ)
            w->end(w->ctx), inside = false;
    }
    tls13_wipe(&pc, sizeof pc);
    return inside ? -1 : 0;
}

/* Returns 0, or -1 when the text is not PEM at all (malformed base64, an
 * object cut short). */
static int pem_scan(struct pem_scan *s, const uint8_t *p, size_t n)
{
    const struct tls13_pem_walker w = {pem_begin, pem_sink, pem_end, s};

    if (has_proc_type_encrypted(p, n))
        s->encrypted = true;
    return tls13_pem_walk(p, n, &w);
}

/* Finds an OID's DER encoding (tag, length, value) in a key object. */
static bool der_has(const uint8_t *p, size_t n, const uint8_t *oid, size_t oid_len)
{
    for (size_t i = 0; i + oid_len <= n; i++)
        if (memcmp(p + i, oid, oid_len) == 0)
            return true;
    return false;
}

/* Names the algorithm of a key BearSSL's decoder refused, from its
 * AlgorithmIdentifier's OID (RFC 8410 §3, RFC 3279 §2.3.2, RFC 4055 §3.1,
 * RFC 5480 §2.1.1), so that the error says which key it was. */
static const char *unsupported_key_name(const uint8_t *p, size_t n)
{
    static const struct {
        uint8_t oid[11];
        uint8_t len;
        const char *name;
    } known[] = {
        {{0x06, 0x03, 0x2b, 0x65, 0x70}, 5, "Ed25519 keys"},
        {{0x06, 0x03, 0x2b, 0x65, 0x71}, 5, "Ed448 keys"},
        {{0x06, 0x03, 0x2b, 0x65, 0x6e}, 5, "X25519 keys"},
        {{0x06, 0x03, 0x2b, 0x65, 0x6f}, 5, "X448 keys"},
        {{0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01}, 9, "DSA keys"},
        {{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a}, 11, "RSASSA-PSS (id-RSASSA-PSS) keys"},
        {{0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01}, 9, "EC keys on that curve"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (der_has(p, n, known[i].oid, known[i].len))
            return known[i].name;
    return NULL;
}

static const char *curve_name(int curve)
{
    switch (curve) {
    case BR_EC_secp256r1: return "P-256";
    case BR_EC_secp384r1: return "P-384";
    case BR_EC_secp521r1: return "P-521";
    case BR_EC_curve25519: return "X25519";
    default: return "an unknown curve";
    }
}

/* Copies the decoded key into c (its numbers into c->key). */
static int take_key(struct tls13_credential *c, const br_skey_decoder_context *kd, char *err, size_t errlen)
{
    if (br_skey_decoder_key_type(kd) == BR_KEYTYPE_EC) {
        const br_ec_private_key *ec = br_skey_decoder_get_ec(kd);
        if (ec->curve != BR_EC_secp256r1 && ec->curve != BR_EC_secp384r1) {
            errf(err, errlen, "EC keys on %s are not supported (P-256 and P-384 are)", curve_name(ec->curve));
            return -1;
        }
        memcpy(c->key, ec->x, ec->xlen);
        c->ec = (br_ec_private_key){.curve = ec->curve, .x = c->key, .xlen = ec->xlen};
        c->key_type = BR_KEYTYPE_EC;
        return 0;
    }
    const br_rsa_private_key *rsa = br_skey_decoder_get_rsa(kd);
    if (rsa->n_bitlen < 2048 || rsa->n_bitlen > 4096) {
        errf(err, errlen, "RSA keys of %u bits are not supported (2048 to 4096 are)", (unsigned)rsa->n_bitlen);
        return -1;
    }
    /* BearSSL bounds each number by the modulus size: p and q (and so dp,
     * dq, iq) are at most half of 4096 bits plus a byte. */
    const unsigned char *src[5] = {rsa->p, rsa->q, rsa->dp, rsa->dq, rsa->iq};
    size_t len[5] = {rsa->plen, rsa->qlen, rsa->dplen, rsa->dqlen, rsa->iqlen}, at = 0;
    unsigned char *dst[5];
    for (int i = 0; i < 5; i++) {
        if (len[i] > sizeof c->key - at) {
            errf(err, errlen, "the RSA private key is malformed");
            return -1;
        }
        memcpy(c->key + at, src[i], len[i]);
        dst[i] = c->key + at;
        at += len[i];
    }
    c->rsa = (br_rsa_private_key){.n_bitlen = rsa->n_bitlen, .p = dst[0], .plen = len[0], .q = dst[1],
                                  .qlen = len[1], .dp = dst[2], .dplen = len[2], .dq = dst[3], .dqlen = len[3],
                                  .iq = dst[4], .iqlen = len[4]};
    c->key_type = BR_KEYTYPE_RSA;
    return 0;
}

static int decode_key(struct tls13_credential *c, const uint8_t *der, size_t n, char *err, size_t errlen)
{
    br_skey_decoder_context kd;
    int r = -1;

    br_skey_decoder_init(&kd);
    br_skey_decoder_push(&kd, der, n);
    if (br_skey_decoder_last_error(&kd) == 0 && br_skey_decoder_key_type(&kd) != 0) {
        r = take_key(c, &kd, err, errlen);
    } else {
        const char *name = unsupported_key_name(der, n);
        if (name)
            errf(err, errlen, "%s are not supported (EC P-256/P-384 and RSA keys are)", name);
        else
            errf(err, errlen, "the private key is malformed or of an unsupported kind");
    }
    tls13_wipe(&kd, sizeof kd);
    return r;
}

/* Trims leading zero bytes of a big-endian number. */
static void trim(const uint8_t **p, size_t *n)
{
    while (*n > 0 && **p == 0)
        (*p)++, (*n)--;
}

/* The leaf certificate's public key is the private key's (and every
 * certificate of the chain decodes). */
static int check_chain(struct tls13_credential *c, char *err, size_t errlen)
{
    br_x509_decoder_context dc;
    const br_x509_pkey *pk = NULL;

    for (size_t i = c->chain_len; i-- > 0;) {
        br_x509_decoder_init(&dc, 0, NULL);
        br_x509_decoder_push(&dc, c->chain[i].data, c->chain[i].data_len);
        pk = br_x509_decoder_get_pkey(&dc);
        if (!pk) {
            errf(err, errlen, "certificate %zu of the file is not a readable X.509 certificate", i + 1);
            return -1;
        }
    }
    /* dc now holds the leaf (decoded last). */
    if ((int)pk->key_type != c->key_type) {
        errf(err, errlen, "the private key does not match the certificate (an %s key for an %s certificate)",
             c->key_type == BR_KEYTYPE_EC ? "EC" : "RSA", pk->key_type == BR_KEYTYPE_EC ? "EC" : "RSA");
        return -1;
    }
    bool same;
    if (c->key_type == BR_KEYTYPE_EC) {
        uint8_t q[BR_EC_KBUF_PUB_MAX_SIZE];
        br_ec_public_key pub;
        size_t qlen = br_ec_compute_pub(br_ec_get_default(), &pub, q, &c->ec);
        same = pk->key.ec.curve == c->ec.curve && qlen == pk->key.ec.qlen && memcmp(q, pk->key.ec.q, qlen) == 0;
    } else {
        uint8_t n[512];
        br_rsa_compute_modulus modulus = br_rsa_compute_modulus_get_default();
        size_t nlen = modulus(NULL, &c->rsa);
        const uint8_t *a = n, *b = pk->key.rsa.n;
        size_t blen = pk->key.rsa.nlen;
        same = nlen > 0 && nlen <= sizeof n && modulus(n, &c->rsa) == nlen;
        trim(&a, &nlen);
        trim(&b, &blen);
        same = same && nlen == blen && memcmp(a, b, nlen) == 0;
    }
    if (!same) {
        errf(err, errlen, "the private key does not match the certificate's public key");
        return -1;
    }
    return 0;
}

int tls13_credential_load(struct tls13_credential *c, const uint8_t *cert_pem, size_t cert_len,
                          const uint8_t *key_pem, size_t key_len, const char **which, char *err, size_t errlen)
{
    static struct pem_scan s; /* 8 KB: not on the stack; loaded once, before any thread starts */
    int r = -1;

    memset(c, 0, sizeof *c);
    memset(&s, 0, sizeof s);
    s.c = c;
    s.want_key = key_pem == NULL;
    *which = "cert";
    if (pem_scan(&s, cert_pem, cert_len) < 0) {
        errf(err, errlen, "not a PEM file (malformed or cut short)");
        goto out;
    }
    if (s.overflow) {
        errf(err, errlen, "the certificate chain is larger than %d bytes", TLS13_CRED_DER_MAX);
        goto out;
    }
    if (s.too_many) {
        errf(err, errlen, "more than %d certificates", TLS13_CRED_CHAIN_MAX);
        goto out;
    }
    if (c->chain_len == 0) {
        errf(err, errlen, "no certificate in it (a \"BEGIN CERTIFICATE\" block)");
        goto out;
    }
    if (key_pem) {
        *which = "key";
        s.c = NULL;
        s.want_key = true;
        if (pem_scan(&s, key_pem, key_len) < 0) {
            errf(err, errlen, "%s", s.encrypted ? "the private key is encrypted (give it unencrypted, e.g. "
                                                  "openssl pkey -in KEY -out PLAIN)"
                                                : "not a PEM file (malformed or cut short)");
            goto out;
        }
    }
    if (!s.got_key) {
        if (s.encrypted)
            errf(err, errlen, "the private key is encrypted (give it unencrypted, e.g. openssl pkey -in KEY "
                              "-out PLAIN)");
        else if (s.overflow)
            errf(err, errlen, "the private key is larger than %d bytes", KEY_DER_MAX);
        else
            errf(err, errlen, "no private key in it (give it with --key)");
        goto out;
    }
    if (decode_key(c, s.key, s.key_len, err, errlen) < 0 || check_chain(c, err, errlen) < 0)
        goto out;
    r = 0;
out:
    tls13_wipe(&s, sizeof s);
    if (r < 0)
        tls13_wipe(c, sizeof *c);
    return r;
}

void tls13_credential_wipe(struct tls13_credential *c) { tls13_wipe(c, sizeof *c); }

/* ---- signature schemes ----------------------------------------------------- */

const br_hash_class *tls13_scheme_hash(uint16_t scheme)
{
    switch (scheme) {
    case TLS13_SIG_ECDSA_P256_SHA256:
    case TLS13_SIG_RSA_PSS_RSAE_SHA256: return &br_sha256_vtable;
    case TLS13_SIG_ECDSA_P384_SHA384:
    case TLS13_SIG_RSA_PSS_RSAE_SHA384: return &br_sha384_vtable;
    case TLS13_SIG_ECDSA_P521_SHA512:
    case TLS13_SIG_RSA_PSS_RSAE_SHA512: return &br_sha512_vtable;
    default: return NULL;
    }
}

static bool can_sign(const struct tls13_credential *c, uint16_t scheme)
{
    if (c->key_type == BR_KEYTYPE_EC)
        return scheme == (c->ec.curve == BR_EC_secp256r1 ? TLS13_SIG_ECDSA_P256_SHA256 : TLS13_SIG_ECDSA_P384_SHA384);
    return scheme == TLS13_SIG_RSA_PSS_RSAE_SHA256 || scheme == TLS13_SIG_RSA_PSS_RSAE_SHA384 ||
           scheme == TLS13_SIG_RSA_PSS_RSAE_SHA512;
}

uint16_t tls13_credential_scheme(const struct tls13_credential *c, const uint8_t *list, size_t len)
{
    for (size_t i = 0; i + 1 < len; i += 2) {
        uint16_t scheme = (uint16_t)(list[i] << 8 | list[i + 1]);
        if (can_sign(c, scheme))
            return scheme;
    }
    return 0;
}

static void hash_of(const br_hash_class *h, const uint8_t *p, size_t n, uint8_t *out)
{
    br_hash_compat_context hc;
    h->init(&hc.vtable);
    h->update(&hc.vtable, p, n);
    h->out(&hc.vtable, out);
}

/* MGF1 (RFC 8017 §B.2.1): mask = Hash(seed || C) for C = 0, 1, ... (4-byte
 * big-endian), XORed into out[0..n). */
static void mgf1_xor(const br_hash_class *h, const uint8_t *seed, size_t seed_len, uint8_t *out, size_t n)
{
    size_t hlen = (h->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK;
    uint8_t t[64];
    for (uint32_t counter = 0; n > 0; counter++) {
        br_hash_compat_context hc;
        uint8_t cb[4] = {(uint8_t)(counter >> 24), (uint8_t)(counter >> 16), (uint8_t)(counter >> 8),
                         (uint8_t)counter};
        h->init(&hc.vtable);
        h->update(&hc.vtable, seed, seed_len);
        h->update(&hc.vtable, cb, 4);
        h->out(&hc.vtable, t);
        size_t take = n < hlen ? n : hlen;
        for (size_t i = 0; i < take; i++)
            out[i] ^= t[i];
        out += take;
        n -= take;
    }
}

int tls13_emsa_pss_encode(const br_hash_class *hash, const uint8_t *mhash, const uint8_t *salt, size_t em_bits,
                          uint8_t *em)
{
    size_t hlen = (hash->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK, slen = hlen;
    size_t em_len = (em_bits + 7) / 8;
    br_hash_compat_context hc;
    static const uint8_t zeros[8];

    /* §9.1.1 step 3: emLen < hLen + sLen + 2 is an encoding error. */
    if (em_len < hlen + slen + 2)
        return -1;
    /* Steps 5-6: H = Hash(0x00 * 8 || mHash || salt), placed before 0xbc. */
    size_t db_len = em_len - hlen - 1;
    uint8_t *h_out = em + db_len;
    hash->init(&hc.vtable);
    hash->update(&hc.vtable, zeros, sizeof zeros);
    hash->update(&hc.vtable, mhash, hlen);
    hash->update(&hc.vtable, salt, slen);
    hash->out(&hc.vtable, h_out);
    /* Steps 7-8: DB = PS (zeros) || 0x01 || salt. */
    memset(em, 0, db_len - slen - 1);
    em[db_len - slen - 1] = 0x01;
    memcpy(em + db_len - slen, salt, slen);
    /* Steps 9-10: maskedDB = DB xor MGF1(H, emLen - hLen - 1). */
    mgf1_xor(hash, h_out, hlen, em, db_len);
    /* Step 11: the leftmost 8*emLen - emBits bits of maskedDB are zero. */
    em[0] &= (uint8_t)(0xff >> (8 * em_len - em_bits));
    /* Step 12: the trailer. */
    em[em_len - 1] = 0xbc;
    return 0;
}

int tls13_emsa_pss_verify(const br_hash_class *hash, const uint8_t *mhash, const uint8_t *em, size_t em_bits,
                          uint8_t *salt_out)
{
    size_t hlen = (hash->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK, slen = hlen;
    size_t em_len = (em_bits + 7) / 8, top_bits = 8 * em_len - em_bits;
    uint8_t db[TLS13_CRED_SIG_MAX], h2[64];
    br_hash_compat_context hc;
    static const uint8_t zeros[8];
    int r = -1;

    /* Steps 3-4: emLen < hLen + sLen + 2, or no 0xbc trailer. */
    if (em_len < hlen + slen + 2 || em_len > sizeof db || em[em_len - 1] != 0xbc)
        return -1;
    /* Step 6: the leftmost 8*emLen - emBits bits of maskedDB are zero. */
    if (top_bits && (em[0] & (uint8_t)(0xff << (8 - top_bits))))
        return -1;
    /* Steps 7-9: DB = maskedDB xor MGF1(H, emLen - hLen - 1), top bits cleared. */
    size_t db_len = em_len - hlen - 1;
    const uint8_t *h = em + db_len;
    memcpy(db, em, db_len);
    mgf1_xor(hash, h, hlen, db, db_len);
    db[0] &= (uint8_t)(0xff >> top_bits);
    /* Step 10: PS (zeros) then 0x01 before the salt. */
    size_t ps_len = db_len - slen - 1;
    uint8_t bad = db[ps_len] ^ 0x01;
    for (size_t i = 0; i < ps_len; i++)
        bad |= db[i];
    if (bad)
        goto out;
    /* Steps 11-14: H' = Hash(0x00 * 8 || mHash || salt) must be H. */
    hash->init(&hc.vtable);
    hash->update(&hc.vtable, zeros, sizeof zeros);
    hash->update(&hc.vtable, mhash, hlen);
    hash->update(&hc.vtable, db + db_len - slen, slen);
    hash->out(&hc.vtable, h2);
    if (memcmp(h2, h, hlen) != 0)
        goto out;
    if (salt_out)
        memcpy(salt_out, db + db_len - slen, slen);
    r = 0;
out:
    return r;
}

/* RSASSA-PSS-SIGN (RFC 8017 §8.1.1) with emBits = modBits - 1; the
 * signature is k = modulus bytes long. */
static size_t sign_pss(const struct tls13_credential *c, const br_hash_class *h, const uint8_t *mhash,
                       const uint8_t *salt, uint8_t *sig)
{
    size_t mod_bits = c->rsa.n_bitlen, k = (mod_bits + 7) / 8, em_bits = mod_bits - 1;
    size_t em_len = (em_bits + 7) / 8;

    /* EM is one byte short of k when modBits - 1 is a multiple of 8: the
     * integer is the same with a zero byte in front (§5.2.1 OS2IP). */
    memset(sig, 0, k - em_len);
    if (tls13_emsa_pss_encode(h, mhash, salt, em_bits, sig + (k - em_len)) < 0)
        return 0;
    if (!br_rsa_private_get_default()(sig, &c->rsa))
        return 0;
    return k;
}

size_t tls13_credential_sign(const struct tls13_credential *c, uint16_t scheme, const uint8_t *content,
                             size_t content_len, const uint8_t *salt, uint8_t *sig)
{
    const br_hash_class *h = tls13_scheme_hash(scheme);
    uint8_t mhash[64];
    size_t n;

    if (!h || !can_sign(c, scheme))
        return 0;
    hash_of(h, content, content_len, mhash);
    if (c->key_type == BR_KEYTYPE_EC)
        n = br_ecdsa_sign_asn1_get_default()(br_ec_get_default(), h, mhash, &c->ec, sig);
    else
        n = sign_pss(c, h, mhash, salt, sig);
    tls13_wipe(mhash, sizeof mhash);
    return n;
}
