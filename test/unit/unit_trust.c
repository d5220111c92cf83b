/* test/unit/unit_trust.c — --cacert's trust anchors (tls13/trust.c) and the
 * iPAddress subjectAltName walk (tls13/verify.c): PEM files with one
 * anchor, several, none, junk, a block that is no certificate; each
 * anchor's DN and key against BearSSL's own decoder. */
#include <string.h>

#include "t.h"
#include "test/vectors/credentials.h"
#include "tls13/trust.h"
#include "tls13/verify.h"

static struct tls13_trust tr;

static int load(const char *pem, char *err, size_t errlen)
{
    return tls13_trust_load(&tr, (const uint8_t *)pem, strlen(pem), err, errlen);
}

/* The subject DN BearSSL's decoder gives for a PEM certificate. */
struct dn {
    uint8_t b[512];
    size_t n;
};
static void dn_add(void *ctx, const void *p, size_t n)
{
    struct dn *d = ctx;
    if (n <= sizeof d->b - d->n)
        memcpy(d->b + d->n, p, n), d->n += n;
}
static void pem_to_der(void *ctx, const void *p, size_t n)
{
    br_x509_decoder_push(ctx, p, n);
}
static bool anchor_is(const br_x509_trust_anchor *ta, const char *pem, bool ca)
{
    br_x509_decoder_context dc;
    br_pem_decoder_context pc;
    struct dn d = {.n = 0};
    br_x509_decoder_init(&dc, dn_add, &d);
    br_pem_decoder_init(&pc);
    br_pem_decoder_setdest(&pc, pem_to_der, &dc);
    for (size_t n = strlen(pem), u; n > 0; pem += u, n -= u) {
        u = br_pem_decoder_push(&pc, pem, n);
        br_pem_decoder_event(&pc);
    }
    const br_x509_pkey *pk = br_x509_decoder_get_pkey(&dc);
    if (!pk || ta->dn.len != d.n || memcmp(ta->dn.data, d.b, d.n) != 0 || (ta->flags == BR_X509_TA_CA) != ca ||
        ta->pkey.key_type != pk->key_type)
        return false;
    if (pk->key_type == BR_KEYTYPE_EC)
        return ta->pkey.key.ec.curve == pk->key.ec.curve && ta->pkey.key.ec.qlen == pk->key.ec.qlen &&
               memcmp(ta->pkey.key.ec.q, pk->key.ec.q, pk->key.ec.qlen) == 0;
    return ta->pkey.key.rsa.nlen == pk->key.rsa.nlen && memcmp(ta->pkey.key.rsa.n, pk->key.rsa.n, pk->key.rsa.nlen) == 0 &&
           ta->pkey.key.rsa.elen == pk->key.rsa.elen && memcmp(ta->pkey.key.rsa.e, pk->key.rsa.e, pk->key.rsa.elen) == 0;
}

static void test_load(void)
{
    char err[256] = "", pem[16384];
    int r = load(pem_ca_crt, err, sizeof err);
    T_CHECK("anchors: one CA certificate -> one anchor, a CA, its DN and P-256 key",
            r == 0 && tr.n == 1 && anchor_is(&tr.ta[0], pem_ca_crt, true), "r=%d n=%zu %s", r, tr.n, err);

    /* Several, a key block between them (skipped), CR+LF line ends on one. */
    char crlf[4096];
    size_t j = 0;
    for (const char *p = pem_rsa_crt; *p && j + 2 < sizeof crlf; p++) {
        if (*p == '\n')
            crlf[j++] = '\r';
        crlf[j++] = *p;
    }
    crlf[j] = 0;
    snprintf(pem, sizeof pem, "%s%s%s%s", pem_ca_crt, pem_p256_key, pem_p256_crt, crlf);
    r = load(pem, err, sizeof err);
    T_CHECK("anchors: three certificates (a key block skipped, CR+LF lines) -> three, in order, the leaf no CA",
            r == 0 && tr.n == 3 && anchor_is(&tr.ta[0], pem_ca_crt, true) &&
                anchor_is(&tr.ta[1], pem_p256_crt, false) && anchor_is(&tr.ta[2], pem_rsa_crt, true),
            "r=%d n=%zu %s", r, tr.n, err);

    static const struct {
        const char *name, *pem, *want;
    } bad[] = {
        {"anchors: an empty file -> no certificate", "", "no certificate in it"},
        {"anchors: a key alone -> no certificate", pem_p256_key, "no certificate in it"},
        {"anchors: text that is not PEM -> no certificate", "hello, world\n", "no certificate in it"},
        {"anchors: a block cut short -> not a PEM file", "-----BEGIN CERTIFICATE-----\nMIIB\n", "not a PEM file"},
        {"anchors: a CERTIFICATE block of junk -> certificate 1 does not parse",
         "-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQ==\n-----END CERTIFICATE-----\n",
         "certificate 1 of the file is not a readable X.509 certificate"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        r = load(bad[i].pem, err, sizeof err);
        T_CHECK(bad[i].name, r == -1 && strstr(err, bad[i].want) != NULL, "r=%d err=%s", r, err);
    }
    snprintf(pem, sizeof pem, "%s-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQ==\n-----END CERTIFICATE-----\n",
             pem_ca_crt);
    r = load(pem, err, sizeof err);
    T_CHECK("anchors: a good one then junk -> certificate 2 is named", r == -1 && strstr(err, "certificate 2 ") != NULL,
            "r=%d err=%s", r, err);
}

/* iPAddress [7] in a hand-made certificate skeleton: SEQUENCE { SEQUENCE
 * { [0] version, [3] { SEQUENCE { SEQUENCE { OID san, OCTET STRING {
 * SEQUENCE { [2] "a.test", [7] 127.0.0.1 } } } } } } }. */
static void test_ip_san(void)
{
    static const uint8_t cert[] = {
        0x30, 0x2c, 0x30, 0x2a, 0xa0, 0x03, 0x02, 0x01, 0x02, 0xa3, 0x23, 0x30, 0x21, 0x30, 0x1f, 0x06, 0x03,
        0x55, 0x1d, 0x11, 0x04, 0x18, 0x30, 0x16, 0x82, 0x06, 'a', '.', 't', 'e', 's', 't', 0x87, 0x04,
        127, 0, 0, 1, 0x87, 0x04, 10, 0, 0, 2, 0x86, 0x00,
    };
    static const uint8_t lo[4] = {127, 0, 0, 1}, ten[4] = {10, 0, 0, 2}, other[4] = {127, 0, 0, 2};
    static const uint8_t lo6[16] = {[15] = 1};
    T_CHECK("ip san: 127.0.0.1 found", tls13_cert_has_ip(cert, sizeof cert, lo, 4), "%s", "no");
    T_CHECK("ip san: the second entry (10.0.0.2) found", tls13_cert_has_ip(cert, sizeof cert, ten, 4), "%s", "no");
    T_CHECK("ip san: 127.0.0.2 not", !tls13_cert_has_ip(cert, sizeof cert, other, 4), "%s", "found");
    T_CHECK("ip san: ::1 not (length differs)", !tls13_cert_has_ip(cert, sizeof cert, lo6, 16), "%s", "found");
    bool any = false;
    for (size_t cut = 0; cut < sizeof cert - 10; cut++) /* every truncation before the entries' end: bounded, no */
        any |= tls13_cert_has_ip(cert, cut, lo, 4);
    T_CHECK("ip san: every truncation stays in bounds and finds nothing", !any, "%s", "found");
    T_CHECK("ip san: a real certificate without the extension -> no",
            !tls13_cert_has_ip((const uint8_t *)"\x30\x03\x30\x01\x00", 5, lo, 4), "%s", "found");
}

int main(void)
{
    test_load();
    test_ip_san();
    T_DONE();
}
