/* tls13/trust.h — the trust anchors of --cacert, loaded from PEM.
 *
 * Each CERTIFICATE block of the file is one anchor for BearSSL's X.509
 * validation (br_x509_trust_anchor: the subject DN and the public key; a CA
 * when its basicConstraints say so, else a key trusted as is, RFC 5280
 * §6.1.1 (d) — how a self-signed server certificate is trusted directly).
 * Sans-I/O: the file's bytes in (read by cli/preflight.c), anchors out.
 * Nothing is allocated: the anchors' DNs and keys live in the struct's
 * pool, loaded once and shared read-only by every connection. */
#ifndef SHB_TLS13_TRUST_H
#define SHB_TLS13_TRUST_H

#include <bearssl.h>
#include <stddef.h>
#include <stdint.h>

/* A system bundle (/etc/ssl/certs/ca-certificates.crt) holds about 150
 * anchors in about 90 KB of DNs and keys. */
#define TLS13_TRUST_MAX 512
#define TLS13_TRUST_POOL (256 * 1024)

struct tls13_trust {
    br_x509_trust_anchor ta[TLS13_TRUST_MAX]; /* dn and keys point into pool */
    size_t n;
    size_t used;
    uint8_t pool[TLS13_TRUST_POOL];
};

/* Loads every CERTIFICATE block of pem (other blocks are skipped). Returns
 * 0, or -1 with a one-line reason in err ("no certificate in it ...",
 * "certificate 2 of the file is not a readable X.509 certificate", "not a
 * PEM file ..."). */
int tls13_trust_load(struct tls13_trust *t, const uint8_t *pem, size_t len, char *err, size_t errlen);

#endif
