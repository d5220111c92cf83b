/* tls13/verify.c — the server's chain, name and CertificateVerify when
 * --cacert is given (verify.h).
 *
 * The verifier wraps BearSSL's br_x509_minimal: every call is passed on,
 * and besides it keeps the leaf (only for an IP-literal target, whose
 * iPAddress subjectAltName BearSSL does not check) and the reason of a
 * failure in words. */
#include "tls13/verify.h"

#include <stdio.h>
#include <string.h>

#include "tls13/credentials.h" /* tls13_emsa_pss_verify, TLS13_SIG_* */

static struct tls13_verifier *verifier_of(const br_x509_class *const *ctx)
{
    return (struct tls13_verifier *)(void *)(uintptr_t)ctx;
}

static const br_x509_class **inner(struct tls13_verifier *v) { return &v->xc.vtable; }

static void v_start_chain(const br_x509_class **ctx, const char *server_name)
{
    struct tls13_verifier *v = verifier_of(ctx);
    v->certs = 0;
    v->leaf_len = 0;
    v->leaf_over = false;
    v->reason = TLS13_VERIFY_OK;
    v->dns[0] = v->cn[0] = 0;
    v->xc.vtable->start_chain(inner(v), server_name);
}

static void v_start_cert(const br_x509_class **ctx, uint32_t length)
{
    struct tls13_verifier *v = verifier_of(ctx);
    if (v->certs == 0 && v->ip_len && length > TLS13_VERIFY_LEAF_MAX)
        v->leaf_over = true;
    v->xc.vtable->start_cert(inner(v), length);
}

static void v_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
    struct tls13_verifier *v = verifier_of(ctx);
    if (v->certs == 0 && v->ip_len && !v->leaf_over) {
        if (len > TLS13_VERIFY_LEAF_MAX - v->leaf_len) {
            v->leaf_over = true;
        } else {
            memcpy(v->leaf + v->leaf_len, buf, len);
            v->leaf_len += (uint32_t)len;
        }
    }
    v->xc.vtable->append(inner(v), buf, len);
}

static void v_end_cert(const br_x509_class **ctx)
{
    struct tls13_verifier *v = verifier_of(ctx);
    v->xc.vtable->end_cert(inner(v));
    v->certs++;
}

static unsigned v_end_chain(const br_x509_class **ctx)
{
    struct tls13_verifier *v = verifier_of(ctx);
    unsigned err = v->xc.vtable->end_chain(inner(v));
    /* BearSSL checks DNS names only; an IP literal sends no SNI (RFC 6066
     * §3) and is matched against the leaf's iPAddress entries here, as
     * RFC 6125 §1.7.2 leaves to the application (curl does the same). */
    if (err == 0 && v->ip_len) {
        if (v->leaf_over) {
            v->reason = TLS13_VERIFY_LEAF_TOO_LARGE;
            return BR_ERR_X509_UNSUPPORTED;
        }
        if (!tls13_cert_has_ip(v->leaf, v->leaf_len, v->ip, v->ip_len))
            err = BR_ERR_X509_BAD_SERVER_NAME;
    }
    if (err)
        tls13_verifier_fail(v, err);
    return err;
}

static const br_x509_pkey *v_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
    struct tls13_verifier *v = verifier_of(ctx);
    return v->xc.vtable->get_pkey((const br_x509_class *const *)inner(v), usages);
}

static const br_x509_class verifier_vtable = {
    sizeof(struct tls13_verifier), v_start_chain, v_start_cert, v_append, v_end_cert, v_end_chain, v_get_pkey,
};

size_t tls13_verifier_size(bool ip_target)
{
    return sizeof(struct tls13_verifier) + (ip_target ? TLS13_VERIFY_LEAF_MAX : 0);
}

void tls13_verifier_init(struct tls13_verifier *v, const struct tls13_verify_config *cfg)
{
    memset(v, 0, sizeof *v);
    v->vtable = &verifier_vtable;
    v->trust = cfg->trust;
    v->asked = cfg->host;
    v->ip_len = cfg->ip_len == 4 || cfg->ip_len == 16 ? (uint8_t)cfg->ip_len : 0;
    if (v->ip_len)
        memcpy(v->ip, cfg->ip, v->ip_len);
}

void tls13_verifier_start(struct tls13_verifier *v, uint64_t unix_seconds)
{
    static const unsigned char oid_dns[] = {0, 2};          /* subjectAltName dNSName (BearSSL's encoding) */
    static const unsigned char oid_cn[] = {3, 0x55, 4, 3};  /* id-at-commonName, 2.5.4.3 */

    /* Every hash and signature algorithm BearSSL has, for the chain's
     * signatures (RSA PKCS#1 v1.5 and ECDSA). */
    br_x509_minimal_init_full(&v->xc, v->trust->ta, v->trust->n);
    /* BearSSL counts days from 1 January of year 0 (proleptic Gregorian):
     * 1970-01-01 is day 719528. */
    br_x509_minimal_set_time(&v->xc, (uint32_t)(719528 + unix_seconds / 86400), (uint32_t)(unix_seconds % 86400));
    v->names[0] = (br_name_element){.oid = oid_dns, .buf = v->dns, .len = sizeof v->dns};
    v->names[1] = (br_name_element){.oid = oid_cn, .buf = v->cn, .len = sizeof v->cn};
    br_x509_minimal_set_name_elements(&v->xc, v->names, 2);
}

enum tls13_verify_reason tls13_verifier_fail(struct tls13_verifier *v, unsigned x509_err)
{
    enum tls13_verify_reason r;
    switch (x509_err) {
    case BR_ERR_X509_EXPIRED: r = TLS13_VERIFY_EXPIRED; break;
    case BR_ERR_X509_BAD_SERVER_NAME: r = TLS13_VERIFY_NAME; break;
    case BR_ERR_X509_NOT_TRUSTED:
    case BR_ERR_X509_DN_MISMATCH: r = TLS13_VERIFY_UNKNOWN_CA; break;
    case BR_ERR_X509_UNSUPPORTED:
    case BR_ERR_X509_WRONG_KEY_TYPE:
    case BR_ERR_X509_WEAK_PUBLIC_KEY: r = TLS13_VERIFY_UNSUPPORTED_KEY; break;
    case BR_ERR_X509_BAD_SIGNATURE: r = TLS13_VERIFY_BAD_SIGNATURE; break;
    case BR_ERR_X509_NOT_CA: r = TLS13_VERIFY_NOT_CA; break;
    case BR_ERR_X509_FORBIDDEN_KEY_USAGE: r = TLS13_VERIFY_USAGE; break;
    case BR_ERR_X509_CRITICAL_EXTENSION: r = TLS13_VERIFY_CRITICAL; break;
    default: r = TLS13_VERIFY_MALFORMED; break;
    }
    v->reason = (uint8_t)r;
    return r;
}

/* RFC 8446 §6.2's certificate alerts; §4.4.3: a CertificateVerify that
 * does not verify is decrypt_error. */
int tls13_verify_reason_alert(enum tls13_verify_reason r)
{
    switch (r) {
    case TLS13_VERIFY_EXPIRED: return 45;         /* certificate_expired */
    case TLS13_VERIFY_UNKNOWN_CA: return 48;      /* unknown_ca */
    case TLS13_VERIFY_BAD_CV: return 51;          /* decrypt_error */
    case TLS13_VERIFY_UNSUPPORTED_KEY:
    case TLS13_VERIFY_LEAF_TOO_LARGE:
    case TLS13_VERIFY_CRITICAL: return 43;        /* unsupported_certificate */
    case TLS13_VERIFY_OK:
    case TLS13_VERIFY_NAME:
    case TLS13_VERIFY_BAD_SIGNATURE:
    case TLS13_VERIFY_NOT_CA:
    case TLS13_VERIFY_USAGE:
    case TLS13_VERIFY_MALFORMED: break;
    }
    return 42; /* bad_certificate */
}

static const char *reason_text(enum tls13_verify_reason r)
{
    switch (r) {
    case TLS13_VERIFY_OK: return "no error";
    case TLS13_VERIFY_EXPIRED: return "expired (or not yet valid)";
    case TLS13_VERIFY_NAME: return "name mismatch";
    case TLS13_VERIFY_UNKNOWN_CA: return "unknown CA";
    case TLS13_VERIFY_BAD_CV: return "bad CertificateVerify signature";
    case TLS13_VERIFY_UNSUPPORTED_KEY: return "unsupported key";
    case TLS13_VERIFY_BAD_SIGNATURE: return "a certificate's signature does not verify";
    case TLS13_VERIFY_NOT_CA: return "an issuer that is not a CA";
    case TLS13_VERIFY_USAGE: return "its key usage forbids a TLS server";
    case TLS13_VERIFY_CRITICAL: return "an unsupported critical extension";
    case TLS13_VERIFY_LEAF_TOO_LARGE: return "a certificate over 8 KB, too large to look for the IP address in";
    case TLS13_VERIFY_MALFORMED: break;
    }
    return "malformed certificate";
}

void tls13_verifier_why(const struct tls13_verifier *v, char *out, size_t n)
{
    enum tls13_verify_reason r = (enum tls13_verify_reason)v->reason;
    /* The leaf's first dNSName, else its CN (only what BearSSL gathered:
     * names longer than the buffers are left out). */
    const char *is_for = v->names[0].status == 1 ? v->dns : v->names[1].status == 1 ? v->cn : NULL;
    if (r == TLS13_VERIFY_NAME && is_for && v->asked)
        snprintf(out, n, "certificate verify failed: name mismatch (certificate is for %s, asked for %s)", is_for,
                 v->asked);
    else if (r == TLS13_VERIFY_NAME && v->asked)
        snprintf(out, n, "certificate verify failed: name mismatch (asked for %s)", v->asked);
    else
        snprintf(out, n, "certificate verify failed: %s", reason_text(r));
}

/* ---- CertificateVerify -------------------------------------------------- */

/* §4.2.3: in TLS 1.3 an ECDSA scheme names its curve as well as its hash. */
static int scheme_curve(uint16_t scheme)
{
    switch (scheme) {
    case TLS13_SIG_ECDSA_P256_SHA256: return BR_EC_secp256r1;
    case TLS13_SIG_ECDSA_P384_SHA384: return BR_EC_secp384r1;
    case TLS13_SIG_ECDSA_P521_SHA512: return BR_EC_secp521r1;
    default: return 0;
    }
}

/* RSASSA-PSS-VERIFY (RFC 8017 §8.1.2) with emBits = modBits - 1. */
static bool rsa_pss_ok(const br_rsa_public_key *pk, const br_hash_class *h, const uint8_t *mhash, const uint8_t *sig,
                       size_t sig_len)
{
    const uint8_t *n = pk->n;
    size_t k = pk->nlen;
    uint8_t m[TLS13_CRED_SIG_MAX];

    while (k > 0 && *n == 0)
        n++, k--;
    /* Step 1: the signature is exactly k bytes. */
    if (k == 0 || k > sizeof m || sig_len != k)
        return false;
    size_t mod_bits = 8 * k;
    for (uint8_t top = n[0]; !(top & 0x80); top = (uint8_t)(top << 1))
        mod_bits--;
    memcpy(m, sig, k);
    /* Step 2: m = s^e mod n (BearSSL also rejects s >= n). */
    if (!br_rsa_public_get_default()(m, k, pk))
        return false;
    /* EM is emLen = ceil((modBits - 1) / 8) bytes: one fewer than k when
     * modBits - 1 is a multiple of 8, and then m's first byte is zero. */
    size_t em_bits = mod_bits - 1, em_len = (em_bits + 7) / 8;
    if (em_len < k && m[0] != 0)
        return false;
    return tls13_emsa_pss_verify(h, mhash, m + (k - em_len), em_bits, NULL) == 0;
}

enum tls13_verify_reason tls13_verify_certificate_verify(const br_x509_pkey *pk, uint16_t scheme,
                                                         const uint8_t *thash, size_t hlen, const uint8_t *sig,
                                                         size_t sig_len)
{
    static const char label[] = "TLS 1.3, server CertificateVerify";
    const br_hash_class *h = tls13_scheme_hash(scheme);
    uint8_t content[64 + sizeof label + TLS13_MAX_HASH], mhash[64];
    br_hash_compat_context hc;

    if (!h || !pk || hlen > TLS13_MAX_HASH)
        return TLS13_VERIFY_UNSUPPORTED_KEY;
    memset(content, 0x20, 64);
    memcpy(content + 64, label, sizeof label); /* with its terminating 0: the separator byte */
    memcpy(content + 64 + sizeof label, thash, hlen);
    h->init(&hc.vtable);
    h->update(&hc.vtable, content, 64 + sizeof label + hlen);
    h->out(&hc.vtable, mhash);
    size_t mlen = (h->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK;

    if (scheme_curve(scheme)) {
        if (pk->key_type != BR_KEYTYPE_EC || pk->key.ec.curve != scheme_curve(scheme))
            return TLS13_VERIFY_UNSUPPORTED_KEY;
        /* §4.2.3: ECDSA signatures are DER-encoded (ASN.1 ECDSA-Sig-Value). */
        return br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), mhash, mlen, &pk->key.ec, sig, sig_len)
                   ? TLS13_VERIFY_OK
                   : TLS13_VERIFY_BAD_CV;
    }
    /* rsa_pss_rsae_*: RSASSA-PSS with an rsaEncryption key (§4.2.3). */
    if (pk->key_type != BR_KEYTYPE_RSA)
        return TLS13_VERIFY_UNSUPPORTED_KEY;
    return rsa_pss_ok(&pk->key.rsa, h, mhash, sig, sig_len) ? TLS13_VERIFY_OK : TLS13_VERIFY_BAD_CV;
}

/* ---- iPAddress subjectAltName ------------------------------------------- */

/* One DER element (X.690 §8.1) at *p: its tag (low-tag-number form only,
 * enough for the structures walked here), its content in [*c, *c + *clen),
 * and *p moved past it. False when it does not fit before end. */
static bool der_next(const uint8_t **p, const uint8_t *end, uint8_t *tag, const uint8_t **c, size_t *clen)
{
    const uint8_t *q = *p;
    if (end - q < 2 || (q[0] & 0x1f) == 0x1f)
        return false;
    *tag = *q++;
    size_t len = *q++;
    if (len & 0x80) {
        size_t nb = len & 0x7f;
        if (nb == 0 || nb > 4 || (size_t)(end - q) < nb)
            return false;
        len = 0;
        while (nb--)
            len = len << 8 | *q++;
    }
    if ((size_t)(end - q) < len)
        return false;
    *c = q;
    *clen = len;
    *p = q + len;
    return true;
}

/* The content of the SEQUENCE at *p (tag 0x30), or of another tag. */
static bool der_enter(const uint8_t **p, const uint8_t *end, uint8_t want, const uint8_t **c, const uint8_t **c_end)
{
    uint8_t tag;
    size_t len;
    if (!der_next(p, end, &tag, c, &len) || tag != want)
        return false;
    *c_end = *c + len;
    return true;
}

/* GeneralNames (RFC 5280 §4.2.1.6) in the extension's OCTET STRING: is
 * iPAddress [7] (context-specific, primitive: 0x87) ip among them? */
static bool san_has_ip(const uint8_t *p, const uint8_t *end, const uint8_t *ip, size_t ip_len)
{
    const uint8_t *seq, *seq_end, *c;
    uint8_t tag;
    size_t len;
    if (!der_enter(&p, end, 0x30, &seq, &seq_end))
        return false;
    while (seq < seq_end) {
        if (!der_next(&seq, seq_end, &tag, &c, &len))
            return false;
        if (tag == 0x87 && len == ip_len && memcmp(c, ip, ip_len) == 0)
            return true;
    }
    return false;
}

bool tls13_cert_has_ip(const uint8_t *cert, size_t len, const uint8_t *ip, size_t ip_len)
{
    static const uint8_t oid_san[] = {0x55, 0x1d, 0x11}; /* id-ce-subjectAltName, 2.5.29.17 */
    const uint8_t *p = cert, *end = cert + len, *crt, *crt_end, *tbs, *tbs_end, *c;
    uint8_t tag;
    size_t clen;

    /* Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { ..., [3] extensions } ... } */
    if (!der_enter(&p, end, 0x30, &crt, &crt_end) || !der_enter(&crt, crt_end, 0x30, &tbs, &tbs_end))
        return false;
    while (tbs < tbs_end) {
        if (!der_next(&tbs, tbs_end, &tag, &c, &clen))
            return false;
        if (tag != 0xa3) /* extensions [3] EXPLICIT (RFC 5280 §4.1) */
            continue;
        const uint8_t *q = c, *exts, *exts_end;
        if (!der_enter(&q, c + clen, 0x30, &exts, &exts_end))
            return false;
        while (exts < exts_end) {
            /* Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING } */
            const uint8_t *e, *e_end, *oid, *val;
            size_t oid_len, val_len;
            if (!der_enter(&exts, exts_end, 0x30, &e, &e_end) || !der_next(&e, e_end, &tag, &oid, &oid_len) ||
                tag != 0x06)
                return false;
            if (oid_len != sizeof oid_san || memcmp(oid, oid_san, sizeof oid_san) != 0)
                continue;
            if (!der_next(&e, e_end, &tag, &val, &val_len))
                return false;
            if (tag == 0x01 && !der_next(&e, e_end, &tag, &val, &val_len))
                return false;
            return tag == 0x04 && san_has_ip(val, val + val_len, ip, ip_len);
        }
        return false;
    }
    return false;
}
