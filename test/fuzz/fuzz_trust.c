/* test/fuzz/fuzz_trust.c — the --cacert file loader (tls13/trust.h) and
 * the iPAddress subjectAltName walk of a server's leaf (tls13/verify.h).
 *
 * Input: the file's bytes, loaded as they are; then the same bytes taken
 * as a DER certificate and searched for 127.0.0.1 and ::1. Seeds:
 * test/fuzz/corpus/fuzz_trust/ (CA files of test/vectors/credentials.h's
 * certificates, several together, CR+LF, cut, junk, and leaves with and
 * without iPAddress entries as DER).
 *
 * Invariants: the load returns 0 or -1; a refusal has a one-line reason;
 * a load has 1..TLS13_TRUST_MAX anchors whose DNs and keys lie inside the
 * pool, each an EC key on a curve BearSSL names or an RSA key with a
 * modulus and exponent, flagged CA or not; the walk reads nothing outside
 * the input (ASan) and answers. */
#include "fuzz.h"
#include "tls13/trust.h"
#include "tls13/verify.h"

static struct tls13_trust trust;
static uint8_t text[FZ_MAX_INPUT];

static bool in_pool(const void *p, size_t n)
{
    const uint8_t *b = p;
    return b >= trust.pool && n <= trust.used && b + n <= trust.pool + trust.used;
}

static void check_loaded(void)
{
    FZ_CHECK(trust.n >= 1 && trust.n <= TLS13_TRUST_MAX, "anchors %zu", trust.n);
    FZ_CHECK(trust.used <= TLS13_TRUST_POOL, "pool %zu", trust.used);
    for (size_t i = 0; i < trust.n; i++) {
        const br_x509_trust_anchor *ta = &trust.ta[i];
        FZ_CHECK(in_pool(ta->dn.data, ta->dn.len), "anchor %zu dn", i);
        FZ_CHECK(ta->flags == 0 || ta->flags == BR_X509_TA_CA, "anchor %zu flags %u", i, ta->flags);
        if (ta->pkey.key_type == BR_KEYTYPE_EC)
            FZ_CHECK(ta->pkey.key.ec.qlen > 0 && in_pool(ta->pkey.key.ec.q, ta->pkey.key.ec.qlen), "anchor %zu ec", i);
        else
            FZ_CHECK(ta->pkey.key_type == BR_KEYTYPE_RSA && ta->pkey.key.rsa.nlen > 0 &&
                         in_pool(ta->pkey.key.rsa.n, ta->pkey.key.rsa.nlen) &&
                         in_pool(ta->pkey.key.rsa.e, ta->pkey.key.rsa.elen),
                     "anchor %zu type %u", i, ta->pkey.key_type);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t lo4[4] = {127, 0, 0, 1}, lo6[16] = {[15] = 1};
    char err[256] = "";

    if (size > FZ_MAX_INPUT)
        return 0;
    /* An exact-size region at the end of a static buffer: ASan sees an
     * overrun. */
    uint8_t *p = text + sizeof text - size;
    memcpy(p, data, size);
    int rc = tls13_trust_load(&trust, p, size, err, sizeof err);
    FZ_CHECK(rc == 0 || rc == -1, "rc %d", rc);
    if (rc == 0)
        check_loaded();
    else
        FZ_CHECK(err[0] != 0 && strchr(err, '\n') == NULL, "reason '%s'", err);
    bool a = tls13_cert_has_ip(p, size, lo4, 4), b = tls13_cert_has_ip(p, size, lo6, 16);
    FZ_CHECK(!(a || b) || size >= 4 + 2 + 4, "an address found in %zu bytes", size);
    return 0;
}
