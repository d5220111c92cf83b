/* tls13/tls12.h — the TLS 1.2 fallback: BearSSL's client engine behind the
 * same buffer-and-ack contract as the TLS 1.3 connection (conn.h).
 *
 * Used only for a target that does not speak TLS 1.3 (it answered our
 * ClientHello with protocol_version or handshake_failure, or chose 1.2 in
 * its ServerHello; worker/tcp_tls.c remembers that for the rest of the run). Offers
 * TLS 1.2 only (RFC 5246), ECDHE-ECDSA/ECDHE-RSA/RSA key exchange with
 * AES-GCM, ChaCha20-Poly1305 and AES-CBC, the same SNI and ALPN list as the
 * 1.3 engine.
 *
 * Certificates are validated only with --cacert (cfg->verifier, BearSSL's
 * br_x509_minimal behind tls13/verify.h), as for TLS 1.3; otherwise an
 * accept-any X.509 class decodes the end-entity certificate only to hand
 * its public key to the engine (the ServerKeyExchange signature and RSA key
 * exchange need it). Sans-I/O like the rest of tls13/: no allocation
 * (everything lives in struct tls12_conn, inside the caller's block, and the
 * verifier in the caller's), no syscall (the engine's DRBG is seeded from
 * the caller's entropy only, never from the OS), no clock (the verifier is
 * given the time by the worker).
 *
 * Callers go through conn.h (tls_conn_init(..., tls12 = true)); this header
 * exists so that conn.c can size its union. */
#ifndef SHB_TLS13_TLS12_H
#define SHB_TLS13_TLS12_H

#include <bearssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tls13/conn.h"
#include "tls13/verify.h"

#define TLS12_ALPN_MAX 8       /* protocol names taken from the ALPN list */
#define TLS12_HS_OUT_CAP 4096  /* handshake flights and alerts, gathered (see tls12.c) */

/* The accept-any X.509 "validator" (a br_x509_class). */
struct tls12_x509 {
    const br_x509_class *vtable;  /* first: the engine holds a pointer to this field */
    uint32_t certs;               /* certificates seen in this chain */
    const br_x509_pkey *pkey;     /* the end-entity key, once decoded */
    br_x509_decoder_context dc;   /* decodes the end-entity certificate only */
};

struct tls12_conn {
    br_ssl_client_context cc;
    struct tls12_x509 x509;
    struct tls13_verifier *verifier; /* --cacert (cfg->verifier), or NULL */
    br_ec_impl ec;                /* BearSSL's, offering only the curves chosen (--curves) */
    uint8_t state;
    int err;                      /* sticky result once finished */
    int alert;                    /* a configuration error (internal_error); engine alerts come from cc */
    const char *alpn;             /* the selected protocol, "" if none */
    bool resumed;                 /* the handshake resumed the session offered (tls12_init_resume) */
    uint8_t offered_id_len;       /* the session id offered, to tell a resumption from a new session */
    uint8_t offered_id[32];
    size_t exposed;               /* bytes of the engine's pending record tls12_out may have handed out */
    size_t hs_len;
    const char *alpn_names[TLS12_ALPN_MAX];
    char alpn_text[256 + TLS12_ALPN_MAX];
    uint8_t hs_out[TLS12_HS_OUT_CAP];
    uint8_t iobuf[BR_SSL_BUFSIZE_BIDI]; /* 16 KB records both ways */
};

/* The same semantics as the tls_conn_* function of the same name. */
void tls12_init(struct tls12_conn *t, const struct tls_config *cfg, const uint8_t *entropy, size_t entropy_len);
/* The same, offering to resume sess (NULL: none): RFC 5246 §7.3's session
 * id resumption, the one BearSSL's client has (no session tickets). */
void tls12_init_resume(struct tls12_conn *t, const struct tls_config *cfg, const uint8_t *entropy, size_t entropy_len,
                       const br_ssl_session_parameters *sess);
/* The completed handshake's session, to resume later: true when the server
 * gave it an id (a server without a session cache gives none). */
bool tls12_session(const struct tls12_conn *t, br_ssl_session_parameters *out);
int tls12_recv(struct tls12_conn *t, uint8_t *p, size_t n, tls_plain_fn fn, void *ctx);
bool tls12_ready(const struct tls12_conn *t);
size_t tls12_send(struct tls12_conn *t, const uint8_t *p, size_t n);
size_t tls12_send_room(const struct tls12_conn *t);
const uint8_t *tls12_out(const struct tls12_conn *t, size_t *len);
void tls12_out_ack(struct tls12_conn *t, size_t n);
const char *tls12_alpn(const struct tls12_conn *t);
int tls12_alert(const struct tls12_conn *t);
void tls12_negotiated(const struct tls12_conn *t, struct tls_negotiated *out);

#endif
