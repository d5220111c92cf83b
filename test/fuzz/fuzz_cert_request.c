/* test/fuzz/fuzz_cert_request.c — a server's CertificateRequest read as it
 * streams (tls13/cert_request.h), with and without a client certificate.
 *
 * Input: [mode] [split seed, 2 bytes big-endian], then the message body.
 * mode bits 0-1: how the body is cut into feeds (fz_split); bits 2-3: the
 * credential (0 none, 1 the P-256 key, 2 the RSA-2048 key of
 * test/vectors/credentials.h, 3 none). Seeds:
 * test/fuzz/corpus/fuzz_cert_request/ (OpenSSL's and nginx's shapes, a 20
 * KB certificate_authorities before and after signature_algorithms).
 *
 * Invariants: the body read whole and in pieces gives the same result and
 * scheme; results are 0, -40, -47, -50 or -109 (-40 and -109 only with a
 * credential); a body over TLS13_CR_MAX is refused at the start; with a
 * credential, success names a scheme that credential can make, and without
 * one no scheme is chosen. */
#include "fuzz.h"
#include "test/vectors/credentials.h"
#include "tls13/cert_request.h"
#include "tls13/credentials.h"

static struct tls13_credential creds[2];
static bool loaded;

static int read_cr(const uint8_t *p, size_t n, const struct tls13_credential *cred, struct fz_split *sp,
                   uint16_t *scheme)
{
    struct tls13_cr_reader r;
    int e = tls13_cr_start(&r, (uint32_t)n, cred);
    FZ_CHECK(e == 0 || (e == -50 && n > TLS13_CR_MAX), "start %d for %zu bytes", e, n);
    for (size_t at = 0; e == 0 && at < n;) {
        size_t k = sp ? fz_split_next(sp, n - at) : n - at;
        e = tls13_cr_feed(&r, fz_place(p + at, k), k);
        at += k;
    }
    if (e == 0)
        e = tls13_cr_end(&r);
    *scheme = r.scheme;
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    if (!loaded) {
        const char *which;
        char err[256];
        int a = tls13_credential_load(&creds[0], (const uint8_t *)pem_p256_crt, strlen(pem_p256_crt),
                                      (const uint8_t *)pem_p256_key, strlen(pem_p256_key), &which, err, sizeof err);
        int b = tls13_credential_load(&creds[1], (const uint8_t *)pem_rsa_crt, strlen(pem_rsa_crt),
                                      (const uint8_t *)pem_rsa_key, strlen(pem_rsa_key), &which, err, sizeof err);
        FZ_CHECK(a == 0 && b == 0, "test credentials: %s", err);
        loaded = true;
    }
    struct fz_reader rd = {data, size};
    uint8_t mode = fz_u8(&rd);
    uint16_t seed = fz_u16(&rd);
    unsigned c = mode >> 2 & 3;
    const struct tls13_credential *cred = c == 1 || c == 2 ? &creds[c - 1] : NULL;
    struct fz_split sp;
    fz_split_init(&sp, mode, seed);
    uint16_t s_whole, s_split;
    int whole = read_cr(rd.p, rd.n, cred, NULL, &s_whole);
    int split = read_cr(rd.p, rd.n, cred, &sp, &s_split);
    FZ_CHECK(whole == split && s_whole == s_split, "whole %d/%04x, in pieces %d/%04x", whole, s_whole, split,
             s_split);
    FZ_CHECK(whole == 0 || whole == -47 || whole == -50 || (cred && (whole == -40 || whole == -109)), "result %d",
             whole);
    if (!cred) {
        FZ_CHECK(s_whole == 0, "a scheme %04x without a credential", s_whole);
    } else if (whole == 0) {
        uint8_t one[2] = {(uint8_t)(s_whole >> 8), (uint8_t)s_whole};
        FZ_CHECK(s_whole != 0 && tls13_credential_scheme(cred, one, 2) == s_whole, "scheme %04x", s_whole);
    }
    return 0;
}
