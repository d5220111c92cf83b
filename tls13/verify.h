/* tls13/verify.h — verifying the server when asked (--cacert): its chain
 * and name through BearSSL's X.509 validation (br_x509_minimal: RFC 5280
 * path rules, RFC 6125 §6.4 DNS names and wildcards), an IP-literal
 * target's iPAddress subjectAltName (RFC 5280 §4.2.1.6), and TLS 1.3's
 * server CertificateVerify (RFC 8446 §4.4.3).
 *
 * One verifier per connection slot, allocated by the worker only when
 * --cacert is given (a few KB: the TLS state does not grow for runs that
 * trust every certificate). It is a br_x509_class, so the TLS 1.3 engine
 * feeds it the Certificate message's entries as they stream past, and
 * BearSSL's TLS 1.2 engine calls it the same way. Sans-I/O: the worker
 * gives it the wall-clock time at each connection's start. */
#ifndef SHB_TLS13_VERIFY_H
#define SHB_TLS13_VERIFY_H

#include <bearssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/keysched.h"
#include "tls13/trust.h"

/* Why a verification failed (tls13_verify_reason_text), 0 when it did not. */
enum tls13_verify_reason {
    TLS13_VERIFY_OK,
    TLS13_VERIFY_EXPIRED,      /* outside its validity period */
    TLS13_VERIFY_NAME,         /* not for the name (or IP address) asked for */
    TLS13_VERIFY_UNKNOWN_CA,   /* no path to an anchor of --cacert */
    TLS13_VERIFY_BAD_CV,       /* CertificateVerify's signature does not verify */
    TLS13_VERIFY_UNSUPPORTED_KEY, /* a key or signature algorithm BearSSL cannot verify */
    TLS13_VERIFY_BAD_SIGNATURE, /* a certificate's signature does not verify */
    TLS13_VERIFY_NOT_CA,       /* an issuer that is not a CA */
    TLS13_VERIFY_USAGE,        /* key usage forbids a TLS server */
    TLS13_VERIFY_CRITICAL,     /* an unknown critical extension */
    TLS13_VERIFY_MALFORMED,    /* a certificate that does not decode */
    TLS13_VERIFY_LEAF_TOO_LARGE, /* an IP-literal target's leaf over TLS13_VERIFY_LEAF_MAX: not checked */
};

/* The leaf kept for an IP-literal target's iPAddress check (larger leaves
 * fail as unsupported). */
#define TLS13_VERIFY_LEAF_MAX 8192
#define TLS13_VERIFY_NAME_MAX 128

struct tls13_verifier {
    const br_x509_class *vtable;       /* first: the engines hold a pointer to this field */
    br_x509_minimal_context xc;
    const struct tls13_trust *trust;
    const char *asked;                 /* the target's host, for messages */
    br_name_element names[2];          /* the leaf's first dNSName and its CN, for "certificate is for ..." */
    char dns[TLS13_VERIFY_NAME_MAX], cn[TLS13_VERIFY_NAME_MAX];
    uint32_t certs;                    /* certificates of this chain so far */
    uint32_t leaf_len;
    bool leaf_over;                    /* the leaf did not fit leaf[] */
    uint8_t ip_len;                    /* 4 or 16: an IP-literal target, matched against iPAddress; 0: a name */
    uint8_t ip[16];
    uint8_t reason;                    /* enum tls13_verify_reason of the last failure */
    uint8_t cv_hash[TLS13_MAX_HASH];   /* TLS 1.3: Transcript-Hash(ClientHello .. Certificate) */
    uint8_t leaf[];                    /* TLS13_VERIFY_LEAF_MAX bytes for an IP-literal target, else none */
};

/* What every verifier of one target starts from, built once (shb.c). */
struct tls13_verify_config {
    const struct tls13_trust *trust;
    const char *host;                  /* the URL's host (the name checked is the SNI, which is it) */
    uint8_t ip[16];                    /* an IP-literal host's bytes */
    size_t ip_len;                     /* 4, 16, or 0 for a name */
};

/* Bytes of a verifier for a target that is an IP literal or a name. */
size_t tls13_verifier_size(bool ip_target);

/* Once per slot, in memory of tls13_verifier_size(cfg->ip_len > 0) bytes. */
void tls13_verifier_init(struct tls13_verifier *v, const struct tls13_verify_config *cfg);

/* At each connection's start: the time certificates must be valid at
 * (Unix seconds; RFC 5280 §4.1.2.5). */
void tls13_verifier_start(struct tls13_verifier *v, uint64_t unix_seconds);

/* Maps a br_x509 error (BR_ERR_X509_*) to a reason, remembered in v. */
enum tls13_verify_reason tls13_verifier_fail(struct tls13_verifier *v, unsigned x509_err);

/* The alert a client sends for a reason (RFC 8446 §6.2): certificate_expired,
 * bad_certificate, unknown_ca, decrypt_error, unsupported_certificate. */
int tls13_verify_reason_alert(enum tls13_verify_reason r);

/* "certificate verify failed: name mismatch (certificate is for a.test,
 * asked for b.test)", from the last failure. */
void tls13_verifier_why(const struct tls13_verifier *v, char *out, size_t n);

/* The server's CertificateVerify (RFC 8446 §4.4.3): sig with scheme, by
 * the leaf key pk, over 64 spaces, "TLS 1.3, server CertificateVerify", 0
 * and thash. Returns TLS13_VERIFY_OK, _BAD_CV or _UNSUPPORTED_KEY (the
 * scheme does not go with the key, or is not one we verify). */
enum tls13_verify_reason tls13_verify_certificate_verify(const br_x509_pkey *pk, uint16_t scheme,
                                                         const uint8_t *thash, size_t hlen, const uint8_t *sig,
                                                         size_t sig_len);

/* Does the DER certificate cert carry ip (4 or 16 bytes) as an iPAddress
 * subjectAltName (RFC 5280 §4.2.1.6)? A bounded walk; malformed is no. */
bool tls13_cert_has_ip(const uint8_t *cert, size_t len, const uint8_t *ip, size_t ip_len);

#endif
