/* test/unit/unit_credentials.c — tls13/credentials.c: the PEM certificate and
 * key loader (--cert, --key) on good and bad inputs, the signature scheme
 * picked from a CertificateRequest's list, and the CertificateVerify
 * signatures: ECDSA checked with BearSSL's verifier against the
 * certificate's public key; RSASSA-PSS opened with the public key and
 * checked by EMSA-PSS-VERIFY (RFC 8017 §9.1.2), written here from the
 * verifying side. (Servers check them too: test/e2e/e2e_mtls.sh.) */
#include <bearssl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pss_verify.h"
#include "t.h"
#include "tls13/credentials.h"
#include "test/vectors/credentials.h"

static struct tls13_credential cred;
static char err[256];
static const char *which;

static int load(const char *cert, const char *key)
{
    err[0] = 0;
    which = "";
    return tls13_credential_load(&cred, (const uint8_t *)cert, strlen(cert), (const uint8_t *)key,
                                 key ? strlen(key) : 0, &which, err, sizeof err);
}

static char *cat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 1);
    memcpy(s, a, na);
    memcpy(s + na, b, nb + 1);
    return s;
}

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

static void test_good(void)
{
    int r = load(pem_p256_crt, pem_p256_key);
    T_CHECK("load: P-256 certificate, PKCS#8 key", r == 0 && cred.key_type == BR_KEYTYPE_EC &&
                cred.ec.curve == BR_EC_secp256r1 && cred.chain_len == 1, "r=%d %s", r, err);

    char *both = cat(pem_p256_crt, pem_p256_key);
    r = load(both, NULL);
    T_CHECK("load: key in the certificate file (no --key)", r == 0 && cred.chain_len == 1, "r=%d %s", r, err);
    free(both);

    char *chain = cat(pem_p256_crt, pem_ca_crt);
    r = load(chain, pem_p256_sec1_key);
    T_CHECK("load: a chain of two, leaf first, SEC 1 \"EC PRIVATE KEY\"",
            r == 0 && cred.chain_len == 2 && cred.chain[0].data_len + cred.chain[1].data_len == cred.der_len &&
                cred.chain[1].data == cred.der + cred.chain[0].data_len,
            "r=%d %s chain=%zu", r, err, cred.chain_len);
    free(chain);

    r = load(pem_p384_crt, pem_p384_key);
    T_CHECK("load: P-384", r == 0 && cred.ec.curve == BR_EC_secp384r1 && cred.ec.xlen == 48, "r=%d %s", r, err);

    r = load(pem_rsa_crt, pem_rsa_key);
    T_CHECK("load: RSA-2048, PKCS#8", r == 0 && cred.key_type == BR_KEYTYPE_RSA && cred.rsa.n_bitlen == 2048,
            "r=%d %s", r, err);
    r = load(pem_rsa_crt, pem_rsa_pkcs1_key);
    T_CHECK("load: RSA-2048, PKCS#1 \"RSA PRIVATE KEY\"", r == 0 && cred.rsa.n_bitlen == 2048, "r=%d %s", r, err);

    /* CRLF line ends and no final newline. */
    char crlf[4096];
    size_t n = 0;
    for (const char *p = pem_p256_crt; *p; p++) {
        if (*p == '\n')
            crlf[n++] = '\r';
        crlf[n++] = *p;
    }
    crlf[n - 2] = 0; /* drop the last CRLF */
    r = load(crlf, pem_p256_key);
    T_CHECK("load: CRLF line ends, no newline at the end", r == 0 && cred.chain_len == 1, "r=%d %s", r, err);
}

/* bad CASE: the load fails, err contains WANT, which is WHICH, and the
 * credential is left wiped. */
static void bad(const char *name, const char *cert, const char *key, const char *want, const char *want_which)
{
    memset(&cred, 0xa5, sizeof cred);
    int r = load(cert, key);
    T_CHECK(name, r == -1 && strstr(err, want) && strcmp(which, want_which) == 0 && all_zero(&cred, sizeof cred),
            "r=%d which=%s err=%s (want %s: %s)", r, which, err, want_which, want);
}

static void test_bad(void)
{
    bad("refused: no certificate (a key file as --cert)", pem_p256_key, NULL, "no certificate in it", "cert");
    bad("refused: empty --cert", "", NULL, "no certificate in it", "cert");
    bad("refused: text that is not PEM", "hello\n", NULL, "no certificate in it", "cert");
    bad("refused: no key anywhere", pem_p256_crt, NULL, "no private key in it (give it with --key)", "cert");
    bad("refused: --key file without a key", pem_p256_crt, pem_ca_crt, "no private key in it", "key");
    bad("refused: a key that is not the certificate's", pem_p256_crt, pem_p384_key,
        "the private key does not match the certificate", "key");
    bad("refused: another P-256 key (same curve, other point)", pem_ca_crt, pem_p256_key,
        "does not match the certificate's public key", "key");
    bad("refused: an RSA key for an EC certificate", pem_p256_crt, pem_rsa_key,
        "(an RSA key for an EC certificate)", "key");
    bad("refused: Ed25519, named", pem_p256_crt, pem_ed25519_key, "Ed25519 keys are not supported", "key");
    bad("refused: P-521, named", pem_p256_crt, pem_p521_key, "EC keys on P-521 are not supported", "key");
    bad("refused: an encrypted key, said so", pem_p256_crt, pem_p256_enc_key, "the private key is encrypted", "key");

    /* Cut short in the middle of the base64. */
    char cut[2048];
    size_t half = strlen(pem_p256_crt) / 2;
    memcpy(cut, pem_p256_crt, half);
    cut[half] = 0;
    bad("refused: a certificate cut short", cut, pem_p256_key, "not a PEM file", "cert");

    /* Nine certificates: one more than the chain holds. */
    char *many = calloc(1, 9 * strlen(pem_ca_crt) + 1);
    for (int i = 0; i < 9; i++)
        strcat(many, pem_ca_crt);
    bad("refused: more than 8 certificates", many, pem_p256_key, "more than 8 certificates", "cert");
    free(many);

    /* A valid PEM block whose content is not a certificate. */
    bad("refused: a CERTIFICATE block that is not X.509",
        "-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQ==\n-----END CERTIFICATE-----\n", pem_p256_key,
        "is not a readable X.509 certificate", "key");
}

static void test_schemes(void)
{
    static const uint8_t pss_then_ec[] = {0x08, 0x04, 0x04, 0x03, 0x05, 0x03};
    static const uint8_t p384_only[] = {0x05, 0x03};
    static const uint8_t pkcs1_then_pss512[] = {0x04, 0x01, 0x08, 0x06, 0x08, 0x04};
    static const uint8_t no_pss[] = {0x04, 0x01, 0x04, 0x03, 0x08, 0x09};

    load(pem_p256_crt, pem_p256_key);
    T_CHECK("scheme: P-256 takes ecdsa_secp256r1_sha256 from the list",
            tls13_credential_scheme(&cred, pss_then_ec, sizeof pss_then_ec) == TLS13_SIG_ECDSA_P256_SHA256, "%s", "no");
    T_CHECK("scheme: P-256 cannot sign ecdsa_secp384r1_sha384 (none in common)",
            tls13_credential_scheme(&cred, p384_only, sizeof p384_only) == 0, "%s", "no");
    load(pem_p384_crt, pem_p384_key);
    T_CHECK("scheme: P-384 takes ecdsa_secp384r1_sha384",
            tls13_credential_scheme(&cred, pss_then_ec, sizeof pss_then_ec) == TLS13_SIG_ECDSA_P384_SHA384, "%s", "no");
    load(pem_rsa_crt, pem_rsa_key);
    T_CHECK("scheme: RSA takes the server's first RSA-PSS (rsae) scheme, never PKCS#1 v1.5 (RFC 8446 §4.4.3)",
            tls13_credential_scheme(&cred, pkcs1_then_pss512, sizeof pkcs1_then_pss512) ==
                TLS13_SIG_RSA_PSS_RSAE_SHA512, "%s", "no");
    T_CHECK("scheme: RSA with no rsa_pss_rsae scheme offered: none",
            tls13_credential_scheme(&cred, no_pss, sizeof no_pss) == 0, "%s", "no");
}

/* The leaf's public key (points into dc). */
static const br_x509_pkey *leaf_pkey(br_x509_decoder_context *dc)
{
    br_x509_decoder_init(dc, 0, NULL);
    br_x509_decoder_push(dc, cred.chain[0].data, cred.chain[0].data_len);
    return br_x509_decoder_get_pkey(dc);
}

static void test_ecdsa(void)
{
    const char *pairs[][2] = {{pem_p256_crt, pem_p256_key}, {pem_p384_crt, pem_p384_key}};
    uint8_t content[130], sig[TLS13_CRED_SIG_MAX], sig2[TLS13_CRED_SIG_MAX], h[64];
    memset(content, 0x20, sizeof content);
    for (int i = 0; i < 2; i++) {
        load(pairs[i][0], pairs[i][1]);
        uint16_t scheme = i == 0 ? TLS13_SIG_ECDSA_P256_SHA256 : TLS13_SIG_ECDSA_P384_SHA384;
        const br_hash_class *hc = i == 0 ? &br_sha256_vtable : &br_sha384_vtable;
        size_t n = tls13_credential_sign(&cred, scheme, content, sizeof content, NULL, sig);
        size_t n2 = tls13_credential_sign(&cred, scheme, content, sizeof content, NULL, sig2);
        br_x509_decoder_context dc;
        const br_x509_pkey *pk = leaf_pkey(&dc);
        hash_of(hc, content, sizeof content, h);
        uint32_t ok = n > 0 && pk && br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), h, (hc->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK,
                                                          &pk->key.ec, sig, n);
        T_CHECK(i == 0 ? "ecdsa: P-256/SHA-256 signature verifies with the certificate's key"
                       : "ecdsa: P-384/SHA-384 signature verifies with the certificate's key",
                ok, "n=%zu", n);
        T_CHECK(i == 0 ? "ecdsa: P-256 is deterministic (RFC 6979)" : "ecdsa: P-384 is deterministic (RFC 6979)",
                n == n2 && memcmp(sig, sig2, n) == 0, "%s", "no");
        sig[n / 2] ^= 1;
        T_CHECK(i == 0 ? "ecdsa: a changed P-256 signature does not verify" : "ecdsa: a changed P-384 signature does not verify",
                !br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), h, (hc->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK,
                                        &pk->key.ec, sig, n), "%s", "no");
    }
    T_CHECK("ecdsa: an RSA-PSS scheme is refused for an EC key",
            tls13_credential_sign(&cred, TLS13_SIG_RSA_PSS_RSAE_SHA256, content, sizeof content, NULL, sig) == 0, "%s", "no");
}

static void test_pss(void)
{
    static const struct {
        uint16_t scheme;
        const br_hash_class *h;
        const char *name;
    } cases[] = {
        {TLS13_SIG_RSA_PSS_RSAE_SHA256, &br_sha256_vtable, "pss: rsa_pss_rsae_sha256 signature opens and verifies, salt = 32 bytes given"},
        {TLS13_SIG_RSA_PSS_RSAE_SHA384, &br_sha384_vtable, "pss: rsa_pss_rsae_sha384 signature opens and verifies, salt = 48 bytes given"},
        {TLS13_SIG_RSA_PSS_RSAE_SHA512, &br_sha512_vtable, "pss: rsa_pss_rsae_sha512 signature opens and verifies, salt = 64 bytes given"},
    };
    uint8_t content[130], salt[64], salt2[64], sig[TLS13_CRED_SIG_MAX], sig2[TLS13_CRED_SIG_MAX], mhash[64],
        found[64];
    memset(content, 0x20, sizeof content);
    for (size_t i = 0; i < sizeof salt; i++)
        salt[i] = (uint8_t)(i * 7 + 1), salt2[i] = (uint8_t)(i * 13 + 5);

    load(pem_rsa_crt, pem_rsa_key);
    br_x509_decoder_context dc;
    const br_x509_pkey *pk = leaf_pkey(&dc);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t hlen = (cases[c].h->desc >> BR_HASHDESC_OUT_OFF) & BR_HASHDESC_OUT_MASK;
        size_t n = tls13_credential_sign(&cred, cases[c].scheme, content, sizeof content, salt, sig);
        memcpy(sig2, sig, n);
        bool opened = n == 256 && pk && br_rsa_i31_public(sig2, n, &pk->key.rsa);
        hash_of(cases[c].h, content, sizeof content, mhash);
        memset(found, 0, sizeof found);
        /* emBits = modBits - 1 = 2047: EM is the whole 256 bytes, top bit clear. */
        bool ok = opened && tls13_emsa_pss_verify(cases[c].h, mhash, sig2, 2047, found) == 0 && memcmp(found, salt, hlen) == 0;
        T_CHECK(cases[c].name, ok, "n=%zu opened=%d", n, opened);
    }
    size_t n1 = tls13_credential_sign(&cred, TLS13_SIG_RSA_PSS_RSAE_SHA256, content, sizeof content, salt, sig);
    size_t n2 = tls13_credential_sign(&cred, TLS13_SIG_RSA_PSS_RSAE_SHA256, content, sizeof content, salt2, sig2);
    T_CHECK("pss: another salt, another signature (the salt is used)", n1 == n2 && memcmp(sig, sig2, n1) != 0, "%s", "no");
    T_CHECK("pss: ECDSA schemes are refused for an RSA key",
            tls13_credential_sign(&cred, TLS13_SIG_ECDSA_P256_SHA256, content, sizeof content, salt, sig) == 0, "%s", "no");

    /* The encoding alone: emBits not a multiple of 8 clears the top bits;
     * too short for hash + salt + 2 is an encoding error (§9.1.1 step 3). */
    uint8_t em[256];
    hash_of(&br_sha256_vtable, content, sizeof content, mhash);
    int r = tls13_emsa_pss_encode(&br_sha256_vtable, mhash, salt, 2044, em);
    T_CHECK("pss: emBits 2044 → 256 bytes, the 4 top bits clear, and it verifies",
            r == 0 && (em[0] & 0xf0) == 0 && tls13_emsa_pss_verify(&br_sha256_vtable, mhash, em, 2044, found) == 0, "r=%d", r);
    r = tls13_emsa_pss_encode(&br_sha512_vtable, mhash, salt, 8 * (64 + 64 + 1), em);
    T_CHECK("pss: emLen < hLen + sLen + 2 is an encoding error", r == -1, "r=%d", r);
    r = tls13_emsa_pss_encode(&br_sha512_vtable, mhash, salt, 8 * (64 + 64 + 2), em);
    T_CHECK("pss: emLen = hLen + sLen + 2 is the smallest that encodes", r == 0, "r=%d", r);
}

int main(void)
{
    test_good();
    test_bad();
    test_schemes();
    test_ecdsa();
    test_pss();
    tls13_credential_wipe(&cred);
    T_CHECK("wipe: nothing of the key is left", all_zero(&cred, sizeof cred), "%s", "no");
    T_DONE();
}
