/* tls13/negotiated.h — what a completed TLS handshake settled on, in IANA's
 * numbers: read by the worker once (tls_conn_negotiated over TCP,
 * quic_conn_negotiated for HTTP/3) and printed by the reports. Plain data:
 * the engines fill it from their state, nothing more. */
#ifndef SHB_TLS13_NEGOTIATED_H
#define SHB_TLS13_NEGOTIATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TLS_VERSION_12 0x0303 /* ProtocolVersion (RFC 8446 §4.2.1, RFC 5246 §6.2.1) */
#define TLS_VERSION_13 0x0304
#define TLS_ALPN_NAME_MAX 32  /* we offer h2, http/1.1, h3; RFC 7301 §3.2: the server picks one of those */

struct tls_negotiated {
    uint16_t version; /* TLS_VERSION_13 or TLS_VERSION_12; 0: no handshake completed */
    uint16_t cipher;  /* the cipher suite (IANA TLS Cipher Suites registry) */
    uint16_t group;   /* the key exchange's group (IANA TLS Supported Groups); 0: none (RSA key transport) */
    bool fallback;    /* BearSSL's TLS 1.2 engine ran the handshake */
    char alpn[TLS_ALPN_NAME_MAX]; /* the protocol ALPN selected; "" for none */
};

/* The names IANA's registries give ("TLS_AES_128_GCM_SHA256", "x25519"),
 * and "TLSv1.3" / "TLSv1.2"; NULL for a number shb never negotiates. */
const char *tls_version_name(uint16_t version);
const char *tls_cipher_name(uint16_t cipher);
const char *tls_group_name(uint16_t group);

/* Copies a selected ALPN name into out->alpn (cut to fit: never needed). */
static inline void tls_negotiated_alpn(struct tls_negotiated *out, const char *alpn)
{
    size_t n = 0;
    for (; alpn && alpn[n] && n + 1 < sizeof out->alpn; n++)
        out->alpn[n] = alpn[n];
    out->alpn[n] = '\0';
}

#endif
