/* tls13/credentials.h — a client certificate and its private key (--cert,
 * --key), loaded from PEM, and the signatures made with it: TLS 1.3's
 * CertificateVerify (RFC 8446 §4.4.3) and, through BearSSL's own client
 * authentication, TLS 1.2's.
 *
 * Sans-I/O: bytes in (the files' contents, read by cli/preflight.c), a
 * loaded credential out. Nothing is allocated: the credential holds the
 * chain's DER and the key in fixed buffers, and lives for the whole run
 * (every connection points at it, none copies it). */
#ifndef SHB_TLS13_CREDENTIALS_H
#define SHB_TLS13_CREDENTIALS_H

#include <bearssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Certificates in the chain (leaf first), and their DER bytes together:
 * the Certificate message must fit one handshake flight's output (two
 * 16 KiB records over TCP, tls13/conn.c). */
#define TLS13_CRED_CHAIN_MAX 8
#define TLS13_CRED_DER_MAX 16384
/* The largest signature: RSA-4096. */
#define TLS13_CRED_SIG_MAX 512

/* SignatureScheme (RFC 8446 §4.2.3) values a credential can sign with. */
#define TLS13_SIG_ECDSA_P256_SHA256 0x0403
#define TLS13_SIG_ECDSA_P384_SHA384 0x0503
#define TLS13_SIG_ECDSA_P521_SHA512 0x0603 /* verified only (a server's, --cacert), never made */
#define TLS13_SIG_RSA_PSS_RSAE_SHA256 0x0804
#define TLS13_SIG_RSA_PSS_RSAE_SHA384 0x0805
#define TLS13_SIG_RSA_PSS_RSAE_SHA512 0x0806

struct tls13_credential {
    br_x509_certificate chain[TLS13_CRED_CHAIN_MAX]; /* data points into der */
    size_t chain_len;
    size_t der_len;
    int key_type;   /* BR_KEYTYPE_EC or BR_KEYTYPE_RSA */
    br_ec_private_key ec;   /* curve BR_EC_secp256r1 or BR_EC_secp384r1; x points into key */
    br_rsa_private_key rsa; /* p, q, dp, dq, iq point into key */
    uint8_t key[5 * 256];   /* the private key's numbers (RSA-4096: five of 256 bytes) */
    uint8_t der[TLS13_CRED_DER_MAX];
};

/* Loads cert_pem (one or more CERTIFICATE blocks, leaf first) and the key
 * from key_pem ("PRIVATE KEY", "EC PRIVATE KEY" or "RSA PRIVATE KEY"), or
 * from cert_pem when key_pem is NULL. EC keys on P-256 and P-384, RSA keys
 * of 2048 to 4096 bits; the key must be the leaf certificate's. Returns 0,
 * or -1 with a one-line reason in err (e.g. "no private key in it",
 * "Ed25519 keys are not supported"), saying which input ("cert"/"key")
 * in *which. The inputs are not changed; the caller wipes them. A failed
 * load leaves c wiped. */
int tls13_credential_load(struct tls13_credential *c, const uint8_t *cert_pem, size_t cert_len,
                          const uint8_t *key_pem, size_t key_len, const char **which, char *err, size_t errlen);

/* A PEM text's objects, in order (RFC 7468): begin with the label
 * ("CERTIFICATE"), the decoded bytes in pieces, end. CR+LF line ends and a
 * missing final newline are taken. Returns 0, or -1 when the text is not
 * PEM (malformed base64, an object cut short). Shared by --cert/--key and
 * --cacert (tls13/trust.c). */
struct tls13_pem_walker {
    void (*begin)(void *ctx, const char *name);
    void (*data)(void *ctx, const void *p, size_t n);
    void (*end)(void *ctx);
    void *ctx;
};
int tls13_pem_walk(const uint8_t *p, size_t n, const struct tls13_pem_walker *w);

/* Wipes the key (at exit; nothing needs it afterwards). */
void tls13_credential_wipe(struct tls13_credential *c);

/* Which scheme of a signature_algorithms list (§4.2.3: 2-byte entries in
 * the peer's order of preference) this credential signs with: the first it
 * can do, or 0 for none. EC keys: the one ECDSA scheme of their curve
 * (§4.2.3 binds the curve to the hash); RSA keys: RSASSA-PSS with
 * rsaEncryption keys (§4.4.3: "RSA signatures MUST use an RSASSA-PSS
 * algorithm"). */
uint16_t tls13_credential_scheme(const struct tls13_credential *c, const uint8_t *list, size_t len);

/* The CertificateVerify signature (§4.4.3) with scheme over content
 * (64 spaces, the context string, 0, the transcript hash). salt: the
 * hash's length of random bytes (PSS; unused for ECDSA, which is
 * deterministic, RFC 6979). Returns the signature's length in sig (at
 * least TLS13_CRED_SIG_MAX bytes), or 0 on failure. */
size_t tls13_credential_sign(const struct tls13_credential *c, uint16_t scheme, const uint8_t *content,
                             size_t content_len, const uint8_t *salt, uint8_t *sig);

/* The hash of a signature scheme above (RFC 8446 §4.2.3), or NULL. */
const br_hash_class *tls13_scheme_hash(uint16_t scheme);

/* EMSA-PSS-ENCODE (RFC 8017 §9.1.1) with MGF1 over the same hash (§B.2.1)
 * and a salt as long as the hash: em receives emLen = ceil(em_bits / 8)
 * bytes. Returns 0, or -1 when em_bits is too small for the hash and salt
 * ("encoding error"). Exposed for the tests' known answers. */
int tls13_emsa_pss_encode(const br_hash_class *hash, const uint8_t *mhash, const uint8_t *salt, size_t em_bits,
                          uint8_t *em);

/* EMSA-PSS-VERIFY (RFC 8017 §9.1.2) with MGF1 over the same hash and a
 * salt as long as the hash (RFC 8446 §4.2.3): em is emLen = ceil(em_bits /
 * 8) bytes (at most TLS13_CRED_SIG_MAX), the RSA public operation's result.
 * Returns 0 when it is the encoding of mhash ("consistent"; the salt goes
 * to salt_out unless NULL), or -1. The server's CertificateVerify is checked
 * with it (tls13/verify.c); the tests check our encoder with it. */
int tls13_emsa_pss_verify(const br_hash_class *hash, const uint8_t *mhash, const uint8_t *em, size_t em_bits,
                          uint8_t *salt_out);

#endif
