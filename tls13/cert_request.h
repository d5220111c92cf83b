/* tls13/cert_request.c — a server's CertificateRequest (RFC 8446 §4.3.2),
 * read as it streams past: its framing checked, and, with a client
 * certificate (--cert/--key), the first scheme of its
 * signature_algorithms our key can make.
 *
 * Why streamed: certificate_authorities lists the distinguished name of
 * every CA the server trusts (nginx sends all of ssl_client_certificate),
 * tens of KB in real deployments, and it may come before or after
 * signature_algorithms. The reader keeps a few counters, never the bytes,
 * so any order and any length the message's framing allows costs nothing.
 * Sans-I/O and allocation-free; used by tls13/handshake.c over TCP and QUIC. */
#ifndef SHB_TLS13_CERT_REQUEST_H
#define SHB_TLS13_CERT_REQUEST_H

#include <stddef.h>
#include <stdint.h>

struct tls13_credential;

/* The longest CertificateRequest during the handshake: an empty
 * certificate_request_context (1 byte, §4.3.2) and extensions<2..2^16-1>
 * with its 2-byte length. A longer one cannot be framed: decode_error. */
#define TLS13_CR_MAX (1u + 2u + 0xffffu)

struct tls13_cr_reader {
    const struct tls13_credential *cred; /* NULL: framing only, any signature_algorithms */
    uint32_t msg_len;                    /* the body's length, from the header */
    uint32_t left;                       /* bytes of the extensions block not yet read */
    uint32_t acc;                        /* a length or type being gathered, a byte at a time */
    uint32_t skip;                       /* bytes of the current extension (or scheme list) still to come */
    uint16_t ext_type;                   /* the extension being read */
    uint16_t scheme;                     /* the chosen SignatureScheme, 0 while none */
    uint8_t phase, need;                 /* where the reader stands; bytes still to gather into acc */
    uint8_t sigalgs_seen;                /* signature_algorithms read (only the first counts) */
};

/* Starts reading a body of msg_len bytes. Returns 0, or -50 (decode_error)
 * when msg_len exceeds TLS13_CR_MAX. */
int tls13_cr_start(struct tls13_cr_reader *r, uint32_t msg_len, const struct tls13_credential *cred);

/* The next n bytes of the body (any split; never more than msg_len in
 * all). Returns 0 or a negative alert: -47 illegal_parameter for a
 * non-empty certificate_request_context, -50 decode_error for bad
 * framing. Sticky errors are the caller's business. */
int tls13_cr_feed(struct tls13_cr_reader *r, const uint8_t *p, size_t n);

/* The whole body is in. Returns 0 (with a credential, r->scheme is the
 * scheme our CertificateVerify uses), or a negative alert: -50
 * decode_error (cut short), -109 missing_extension (no
 * signature_algorithms, with a credential), -40 handshake_failure (none of
 * its schemes can be made by the credential's key). */
int tls13_cr_end(struct tls13_cr_reader *r);

#endif
