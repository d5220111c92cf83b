/* test/fuzz/fuzz_credentials.c — the PEM certificate and key loader
 * (tls13/credentials.h: --cert, --key).
 *
 * Input: [flags] [cert length, 2 bytes big-endian] [cert file bytes] [key
 * file bytes]. flags bit 0: the key bytes are a --key file of their own;
 * clear, there is no --key (the key is looked for in the cert file, and the
 * key bytes are appended to it). Seeds: test/fuzz/corpus/fuzz_credentials/
 * (certificates and keys of test/vectors/credentials.h, whole, cut and
 * mixed).
 *
 * Invariants: the load returns 0 or -1; a refusal has a one-line reason,
 * says which file ("cert" or "key") and leaves the credential all zeros; a
 * credential that loads has 1..TLS13_CRED_CHAIN_MAX certificates lying
 * end to end inside its DER buffer, a P-256/P-384 or 2048..4096-bit RSA
 * key, a signature scheme for a list of every scheme, and signs with it
 * (a non-empty signature no longer than TLS13_CRED_SIG_MAX). */
#include "fuzz.h"
#include "tls13/credentials.h"

static struct tls13_credential cred;
static uint8_t text[2 * 65536];

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

static void check_loaded(void)
{
    static const uint8_t every[] = {0x04, 0x03, 0x05, 0x03, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06};
    static const uint8_t content[64 + 34 + 32] = {0x20};
    static const uint8_t salt[64] = {1, 2, 3};
    uint8_t sig[TLS13_CRED_SIG_MAX];

    FZ_CHECK(cred.chain_len >= 1 && cred.chain_len <= TLS13_CRED_CHAIN_MAX, "chain %zu", cred.chain_len);
    FZ_CHECK(cred.der_len <= TLS13_CRED_DER_MAX, "der %zu", cred.der_len);
    size_t at = 0;
    for (size_t i = 0; i < cred.chain_len; i++) {
        FZ_CHECK(cred.chain[i].data == cred.der + at && cred.chain[i].data_len > 0, "entry %zu", i);
        at += cred.chain[i].data_len;
    }
    FZ_CHECK(at == cred.der_len, "chain covers %zu of %zu", at, cred.der_len);
    if (cred.key_type == BR_KEYTYPE_EC)
        FZ_CHECK(cred.ec.curve == BR_EC_secp256r1 || cred.ec.curve == BR_EC_secp384r1, "curve %d", cred.ec.curve);
    else
        FZ_CHECK(cred.key_type == BR_KEYTYPE_RSA && cred.rsa.n_bitlen >= 2048 && cred.rsa.n_bitlen <= 4096,
                 "key type %d bits %u", cred.key_type, (unsigned)cred.rsa.n_bitlen);
    uint16_t scheme = tls13_credential_scheme(&cred, every, sizeof every);
    FZ_CHECK(scheme != 0, "no scheme");
    size_t n = tls13_credential_sign(&cred, scheme, content, sizeof content, salt, sig);
    /* RSA: the private operation can fail only for a key whose numbers
     * are inconsistent (BearSSL checks its result): tolerated, reported 0. */
    FZ_CHECK(n <= TLS13_CRED_SIG_MAX && (n > 0 || cred.key_type == BR_KEYTYPE_RSA), "signature %zu", n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_reader r = {data, size};
    if (size > FZ_MAX_INPUT)
        return 0;
    uint8_t flags = fz_u8(&r);
    size_t cert_len = (size_t)fz_u8(&r) << 8;
    cert_len |= fz_u8(&r);
    if (cert_len > r.n)
        cert_len = r.n;
    const uint8_t *cert = r.p, *key = r.p + cert_len;
    size_t key_len = r.n - cert_len;
    const char *which = NULL;
    char err[256] = "";
    int rc;

    if (flags & 1) {
        rc = tls13_credential_load(&cred, cert, cert_len, key, key_len, &which, err, sizeof err);
    } else {
        /* One file: the bytes as they are, copied so that the loader
         * reads an exact-size region (ASan sees an overrun). */
        size_t n = cert_len + key_len < sizeof text ? cert_len + key_len : sizeof text;
        uint8_t *p = text + sizeof text - n;
        memcpy(p, cert, n);
        rc = tls13_credential_load(&cred, p, n, NULL, 0, &which, err, sizeof err);
    }
    FZ_CHECK(rc == 0 || rc == -1, "rc %d", rc);
    if (rc == 0) {
        check_loaded();
        tls13_credential_wipe(&cred);
        FZ_CHECK(all_zero(&cred, sizeof cred), "wipe");
        return 0;
    }
    FZ_CHECK(err[0] != 0 && strchr(err, '\n') == NULL, "reason '%s'", err);
    FZ_CHECK(which && (strcmp(which, "cert") == 0 || strcmp(which, "key") == 0), "which");
    FZ_CHECK(all_zero(&cred, sizeof cred), "a refused credential is wiped");
    return 0;
}
