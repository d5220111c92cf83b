/* tls13/handshake.c — the TLS 1.3 client handshake (RFC 8446 §4), sans-I/O.
 * See handshake.h for the contract.
 *
 * Shape. One engine serves TCP and QUIC (picotls's design): handshake bytes
 * come in tagged with an epoch, go out through cb.emit tagged with an epoch,
 * and every new traffic secret goes out through cb.secret. The engine never
 * sees a record or a packet.
 *
 * Input. Messages are reassembled from any split: the 4-byte header is
 * gathered in hdr, then the body is taken one of three ways (msg_mode):
 *   COLLECT  ServerHello/HRR, EncryptedExtensions, Finished, KeyUpdate: kept
 *            whole in msg and handled (and hashed) when complete, because
 *            their handling decides what goes into the transcript when;
 *   STREAM   Certificate, CertificateRequest, CertificateVerify: hashed as
 *            they pass, never stored beyond the first sizeof msg bytes, so a
 *            long chain or CA list costs no memory (the first two are read
 *            by resumable walkers, cert_walk below and tls13/cert_request.c; certificates are verified only with
 *            --cacert, each entry going to the caller's X.509 verifier as
 *            it passes; the server's Finished is always verified);
 *   SKIP     NewSessionTicket without --tls-resume (cfg.resume.on_ticket):
 *            post-handshake, ignored at any size; with it, collected and
 *            handed out with its PSK unless longer than msg.
 * Which message may come in which state, and at which epoch, is the table
 * `rules` below (RFC 8446 §2 Figure 1; a resumed handshake, §2.2, goes from
 * EncryptedExtensions straight to Finished).
 *
 * Resumption (cfg.resume). A ticket that suits the handshake is offered in
 * ClientHello as psk_dhe_ke (§4.2.9) with pre_shared_key last (§4.2.11);
 * the Early Secret then comes from its PSK, made at start so the binder can
 * be computed. A ServerHello that selects it keeps that Early Secret; one
 * without pre_shared_key is a full handshake.
 *
 * Output. ClientHellos are built in msg (free at that moment: at start, and
 * after the HRR's cookie is copied out), then hashed and emitted. The client
 * flight after the server's Finished is one emit.
 *
 * Callback order (the TCP glue depends on it): the HANDSHAKE read and write
 * secrets follow the ServerHello; after the server's Finished come
 * secret(APP, read), then emit(HANDSHAKE, [Certificate,] Finished), then
 * secret(APP, write) — so the glue seals our Finished under the handshake
 * key. With 0-RTT offered (--early-data, §4.2.10), secret(EARLY, write)
 * follows the ClientHello, and our HANDSHAKE write secret waits for the
 * server's Finished: after secret(APP, read) come [emit(EARLY,
 * EndOfEarlyData) if accepted,] secret(HANDSHAKE, write), then our flight. KeyUpdate likewise: emit(APP, KeyUpdate) before the new write secret.
 *
 * Errors are negative alert numbers (handshake.h) and sticky. Alerts, the
 * record layer and the middlebox-compatibility ChangeCipherSpec (§D.4) are
 * the TCP glue's business, not this file's. */
#include "tls13/handshake.h"
#include "tls13/handshake_internal.h"

#include <stddef.h>
#include <string.h>

#include "tls13/cert_request.h"
#include "tls13/credentials.h"
#include "tls13/verify.h"
#include "tls13/x25519.h"

/* Alerts (RFC 8446 §6), negated. */
#define E_UNEXPECTED (-10)
#define E_HANDSHAKE_FAILURE (-40)
#define E_ILLEGAL_PARAM (-47)
#define E_DECODE (-50)
#define E_DECRYPT (-51)
#define E_PROTOCOL_VERSION (-70)
#define E_INTERNAL (-80)
#define E_MISSING_EXT (-109)
#define E_UNSUPPORTED_EXT (-110)
#define E_NO_APP_PROTOCOL (-120)

/* HandshakeType (§4). */
enum {
    HT_CLIENT_HELLO = 1,
    HT_SERVER_HELLO = 2,
    HT_NEW_SESSION_TICKET = 4,
    HT_ENCRYPTED_EXTENSIONS = 8,
    HT_CERTIFICATE = 11,
    HT_CERTIFICATE_REQUEST = 13,
    HT_CERTIFICATE_VERIFY = 15,
    HT_END_OF_EARLY_DATA = 5,
    HT_FINISHED = 20,
    HT_KEY_UPDATE = 24,
};

/* ExtensionType (§4.2; RFC 9001 §8.2 for 57). */
enum {
    EXT_SERVER_NAME = 0,
    EXT_SUPPORTED_GROUPS = 10,
    EXT_SIGNATURE_ALGORITHMS = 13,
    EXT_ALPN = 16,
    EXT_SUPPORTED_VERSIONS = 43,
    EXT_COOKIE = 44,
    EXT_PRE_SHARED_KEY = 41,
    EXT_EARLY_DATA = 42,
    EXT_PSK_KEY_EXCHANGE_MODES = 45,
    EXT_KEY_SHARE = 51,
    EXT_QUIC_TRANSPORT_PARAMETERS = 57,
};

/* NamedGroup (§4.2.7); BearSSL's curve ids happen to be the same numbers. */
#define GROUP_SECP256R1 0x0017
#define GROUP_SECP384R1 0x0018
#define GROUP_X25519 0x001d

/* Where the entropy bytes go (handshake.h: TLS13_ENTROPY_LEN). */
#define ENT_RANDOM 0
#define ENT_SESSION_ID 32
#define ENT_X25519 64
#define ENT_P256 96
#define ENT_P384 128
#define ENT_KEYS_LEN (32 + 32 + 48)
#define ENT_PSS_SALT (ENT_P384 + 48) /* a client CertificateVerify's RSASSA-PSS salt */
#define ENT_PSS_SALT_LEN 64

enum hs_state {
    ST_WAIT_SH,      /* ClientHello1 sent */
    ST_WAIT_SH2,     /* ClientHello2 sent after a HelloRetryRequest */
    ST_WAIT_EE,
    ST_WAIT_CERT_CR, /* Certificate, or a CertificateRequest first */
    ST_WAIT_CERT,
    ST_WAIT_CV,
    ST_WAIT_FINISHED,
    ST_DONE,         /* post-handshake: NewSessionTicket, KeyUpdate */
    ST_FAILED,
};

enum msg_mode { MODE_COLLECT, MODE_STREAM, MODE_SKIP };

/* hs->psk: where our ticket's PSK stands. */
enum { PSK_NONE, PSK_OFFERED, PSK_ACCEPTED };

/* hs->early: where our 0-RTT stands (--early-data, §4.2.10). */
enum { EARLY_NONE, EARLY_OFFERED, EARLY_ACCEPTED, EARLY_REJECTED };

/* State → the epoch its messages must arrive in and the message types it
 * accepts (RFC 8446 §2 Figure 1, full handshake without PSK; §4.6 for the
 * post-handshake ones). Anything else is unexpected_message: that covers a
 * message at the wrong epoch, a second HRR's epoch mix-ups, and §5.1's "a
 * handshake message must not span a key change" (bytes left over at an
 * epoch whose keys are retired). A post-handshake CertificateRequest is
 * unexpected too: we never send post_handshake_auth (§4.6.2). */
static const struct {
    uint8_t epoch;
    uint8_t types[2]; /* 0 = none */
} rules[] = {
    [ST_WAIT_SH] = {TLS13_EPOCH_INITIAL, {HT_SERVER_HELLO, 0}},
    [ST_WAIT_SH2] = {TLS13_EPOCH_INITIAL, {HT_SERVER_HELLO, 0}},
    [ST_WAIT_EE] = {TLS13_EPOCH_HANDSHAKE, {HT_ENCRYPTED_EXTENSIONS, 0}},
    [ST_WAIT_CERT_CR] = {TLS13_EPOCH_HANDSHAKE, {HT_CERTIFICATE, HT_CERTIFICATE_REQUEST}},
    [ST_WAIT_CERT] = {TLS13_EPOCH_HANDSHAKE, {HT_CERTIFICATE, 0}},
    [ST_WAIT_CV] = {TLS13_EPOCH_HANDSHAKE, {HT_CERTIFICATE_VERIFY, 0}},
    [ST_WAIT_FINISHED] = {TLS13_EPOCH_HANDSHAKE, {HT_FINISHED, 0}},
    [ST_DONE] = {TLS13_EPOCH_APP, {HT_NEW_SESSION_TICKET, HT_KEY_UPDATE}},
};

/* Messages in which an extension may appear (§4.2's table). */
#define M_CH 0x01
#define M_SH 0x02
#define M_HRR 0x04
#define M_EE 0x08
#define M_CT 0x10
#define M_CR 0x20
#define M_NST 0x40

/* §4.2: "If an implementation receives an extension which it recognizes and
 * which is not specified for the message in which it appears, it MUST abort
 * the handshake with an illegal_parameter alert." And: responses to
 * extensions we did not send are unsupported_extension (see ext_offered).
 * Types not in this table are ignored wherever they appear. */
static const struct {
    uint16_t type;
    uint8_t where;
} ext_rules[] = {
    {0, M_CH | M_EE},         /* server_name (RFC 6066) */
    {1, M_CH | M_EE},         /* max_fragment_length (RFC 6066) */
    {5, M_CH | M_CR | M_CT},  /* status_request (RFC 6066) */
    {10, M_CH | M_EE},        /* supported_groups (RFC 8422, 7919) */
    {13, M_CH | M_CR},        /* signature_algorithms */
    {14, M_CH | M_EE},        /* use_srtp (RFC 5764) */
    {15, M_CH | M_EE},        /* heartbeat (RFC 6520) */
    {16, M_CH | M_EE},        /* application_layer_protocol_negotiation (RFC 7301) */
    {18, M_CH | M_CR | M_CT}, /* signed_certificate_timestamp (RFC 6962) */
    {19, M_CH | M_EE},        /* client_certificate_type (RFC 7250) */
    {20, M_CH | M_EE},        /* server_certificate_type (RFC 7250) */
    {21, M_CH},               /* padding (RFC 7685) */
    {41, M_CH | M_SH},        /* pre_shared_key */
    {42, M_CH | M_EE | M_NST}, /* early_data */
    {43, M_CH | M_SH | M_HRR}, /* supported_versions */
    {44, M_CH | M_HRR},       /* cookie */
    {45, M_CH},               /* psk_key_exchange_modes */
    {47, M_CH | M_CR},        /* certificate_authorities */
    {48, M_CR},               /* oid_filters */
    {49, M_CH},               /* post_handshake_auth */
    {50, M_CH | M_CR},        /* signature_algorithms_cert */
    {51, M_CH | M_SH | M_HRR}, /* key_share */
    {57, M_CH | M_EE},        /* quic_transport_parameters (RFC 9001 §8.2) */
};

/* The HelloRetryRequest's ServerHello.random: SHA-256("HelloRetryRequest")
 * (§4.1.3). */
static const uint8_t hrr_random[32] = {
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

/* Downgrade sentinels, the last 8 bytes of a TLS 1.3 server's random when
 * it negotiates TLS 1.2 ("DOWNGRD\1") or 1.1 and below ("DOWNGRD\0")
 * (§4.1.3). */
static const uint8_t downgrade_prefix[7] = {0x44, 0x4f, 0x57, 0x4e, 0x47, 0x52, 0x44};

/* signature_algorithms (§4.2.3): everything a server might sign with, since
 * no signature is checked anyway (unless --cacert: sig_algs_verified). */
static const uint8_t sig_algs[] = {
    0x04, 0x03, 0x05, 0x03, 0x06, 0x03, /* ecdsa_secp256r1_sha256 .. secp521r1_sha512 */
    0x08, 0x04, 0x08, 0x05, 0x08, 0x06, /* rsa_pss_rsae_sha256 .. sha512 */
    0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, /* rsa_pss_pss_sha256 .. sha512 */
    0x08, 0x07, 0x08, 0x08,             /* ed25519, ed448 */
    0x04, 0x01, 0x05, 0x01, 0x06, 0x01, /* rsa_pkcs1_sha256 .. sha512 (certificates, §4.2.3) */
};

/* With a verifier: only what tls13/verify.c can check (no EdDSA, and no
 * rsa_pss_pss_*, whose id-RSASSA-PSS keys BearSSL's X.509 code cannot
 * read); rsa_pkcs1_* stay for the chain's signatures (§4.2.3), never a
 * CertificateVerify's (§4.4.3: "RSA signatures MUST use an RSASSA-PSS
 * algorithm"). */
static const uint8_t sig_algs_verified[] = {
    0x04, 0x03, 0x05, 0x03, 0x06, 0x03, /* ecdsa_secp256r1_sha256 .. secp521r1_sha512 */
    0x08, 0x04, 0x08, 0x05, 0x08, 0x06, /* rsa_pss_rsae_sha256 .. sha512 */
    0x04, 0x01, 0x05, 0x01, 0x06, 0x01, /* rsa_pkcs1_sha256 .. sha512 (certificates only) */
};

/* What we offer unless the user chose (handshake.h: cfg.suites, cfg.groups). */
static const uint16_t default_suites[] = {0x1301, 0x1302, 0x1303};
static const uint16_t default_groups[] = {GROUP_X25519, GROUP_SECP256R1, GROUP_SECP384R1};

static bool listed(const uint16_t *ids, size_t n, uint16_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* §4.1.3: the server's suite must be one we offered; §4.2.8: its group
 * (HelloRetryRequest's selected_group, ServerHello's share) one we listed
 * in supported_groups. */
static bool suite_offered(const struct tls13_hs *hs, uint16_t id)
{
    return listed(hs->cfg.suites, hs->cfg.nsuites, id);
}

static bool group_offered(const struct tls13_hs *hs, uint16_t id)
{
    return listed(hs->cfg.groups, hs->cfg.ngroups, id);
}

/* ------------------------------------------------------------------ */
/* Checked cursors: each takes (const uint8_t **p, const uint8_t *end),
 * advances *p on success and returns 0, or E_DECODE when the input is too
 * short (§6.2 decode_error: "a message could not be decoded because some
 * field was out of the specified range or the length of the message was
 * incorrect"). */

static int get_u8(const uint8_t **p, const uint8_t *end, uint8_t *v)
{
    if (end - *p < 1)
        return E_DECODE;
    *v = (*p)[0];
    *p += 1;
    return 0;
}

static int get_u16(const uint8_t **p, const uint8_t *end, uint16_t *v)
{
    if (end - *p < 2)
        return E_DECODE;
    *v = (uint16_t)((*p)[0] << 8 | (*p)[1]);
    *p += 2;
    return 0;
}

static int get_bytes(const uint8_t **p, const uint8_t *end, size_t n, const uint8_t **out)
{
    if ((size_t)(end - *p) < n)
        return E_DECODE;
    *out = *p;
    *p += n;
    return 0;
}

/* Opens a vector with a len_bytes (1 or 2) length prefix: [*body, *body_end)
 * is its content, and *p moves past it. */
static int get_vec(const uint8_t **p, const uint8_t *end, int len_bytes, const uint8_t **body,
                   const uint8_t **body_end)
{
    size_t n;
    int r;

    if (len_bytes == 1) {
        uint8_t v;
        if ((r = get_u8(p, end, &v)) < 0)
            return r;
        n = v;
    } else {
        uint16_t v;
        if ((r = get_u16(p, end, &v)) < 0)
            return r;
        n = v;
    }
    if ((r = get_bytes(p, end, n, body)) < 0)
        return r;
    *body_end = *body + n;
    return 0;
}

/* A vector (or message) must be consumed exactly. */
static int expect_end(const uint8_t *p, const uint8_t *end) { return p == end ? 0 : E_DECODE; }

/* Extension block walker: framing and §4.2's "There MUST NOT be more than
 * one extension of the same type in a given extension block" (the earlier
 * entries, already framed, are rescanned: blocks are small). */
struct ext_iter {
    const uint8_t *start, *p, *end;
};

/* Returns 1 with the next extension, 0 at the end, or a negative alert. */
static int ext_next(struct ext_iter *it, uint16_t *type, const uint8_t **data, const uint8_t **data_end)
{
    const uint8_t *at = it->p;
    int r;

    if (it->p == it->end)
        return 0;
    if ((r = get_u16(&it->p, it->end, type)) < 0 || (r = get_vec(&it->p, it->end, 2, data, data_end)) < 0)
        return r;
    for (const uint8_t *q = it->start; q < at;) {
        uint16_t t = (uint16_t)(q[0] << 8 | q[1]);
        if (t == *type)
            return E_ILLEGAL_PARAM;
        q += 4 + (size_t)(q[2] << 8 | q[3]);
    }
    return 1;
}

static void be16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be24(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

/* ------------------------------------------------------------------ */
/* Writer for ClientHello: bounded, remembers overflow, fills in vector
 * lengths on close (picotls's push_block, as two functions). */

struct wbuf {
    uint8_t *buf;
    size_t len, cap;
    int overflow;
};

static void put(struct wbuf *w, const void *p, size_t n)
{
    if (w->overflow || w->cap - w->len < n) {
        w->overflow = 1;
        return;
    }
    if (n > 0)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_u8(struct wbuf *w, unsigned v)
{
    uint8_t b = (uint8_t)v;
    put(w, &b, 1);
}

static void put_u16(struct wbuf *w, unsigned v)
{
    uint8_t b[2];
    be16(b, v);
    put(w, b, 2);
}

/* Writes a zero length of len_bytes and returns where it is. */
static size_t open_vec(struct wbuf *w, int len_bytes)
{
    static const uint8_t zero[3];
    size_t at = w->len;
    put(w, zero, (size_t)len_bytes);
    return at;
}

static void close_vec(struct wbuf *w, size_t at, int len_bytes)
{
    if (w->overflow)
        return;
    size_t n = w->len - at - (size_t)len_bytes;
    if (len_bytes == 3)
        be24(w->buf + at, n);
    else if (len_bytes == 2)
        be16(w->buf + at, n);
    else
        w->buf[at] = (uint8_t)n;
}

/* ------------------------------------------------------------------ */
/* Key exchange. X25519, the share every handshake makes, is x25519.h's
 * 64-bit-limb code (0.52 M instructions and 30 us per scalar multiplication
 * against 2.0 M and 98 us for BearSSL 0.6's best, c25519_m31: see there).
 * P-256 and P-384, only after a HelloRetryRequest asks for them, stay on
 * BearSSL's default (br_ec_all_m31: p256_m31, and prime_i31 for P-384),
 * which is the fastest code Debian's libbearssl 0.6 has for those curves;
 * without a 128-bit integer type X25519 uses that default too. */

static int group_curve(uint16_t group)
{
    switch (group) {
    case GROUP_X25519:
        return BR_EC_curve25519;
    case GROUP_SECP256R1:
        return BR_EC_secp256r1;
    case GROUP_SECP384R1:
        return BR_EC_secp384r1;
    default:
        return -1;
    }
}

/* Our private scalar for a group, as BearSSL takes it. X25519: the 32
 * entropy bytes are the RFC 7748 scalar as is (little-endian, as traces
 * print it); BearSSL's c25519 code clamps it itself. P-256/P-384 (unsigned
 * big-endian): BearSSL needs 1 <= x < n; any entropy is mapped there without
 * bignum code: x >= n loses its top bit (then x < 2^(bits-1) < n), and zero
 * becomes one. Valid scalars pass unchanged. */
static size_t group_scalar(const struct tls13_hs *hs, uint16_t group, uint8_t *x)
{
    const br_ec_impl *ec = br_ec_get_default();
    size_t xlen, olen;
    const uint8_t *order;

    if (group == GROUP_X25519) {
        memcpy(x, hs->entropy + ENT_X25519, 32);
        return 32;
    }
    xlen = group == GROUP_SECP256R1 ? 32 : 48;
    memcpy(x, hs->entropy + (group == GROUP_SECP256R1 ? ENT_P256 : ENT_P384), xlen);
    order = ec->order(group_curve(group), &olen);
    if (olen == xlen && memcmp(x, order, xlen) >= 0)
        x[0] &= 0x7f;
    uint8_t any = 0;
    for (size_t i = 0; i < xlen; i++)
        any |= x[i];
    if (!any)
        x[xlen - 1] = 1;
    return xlen;
}

/* BearSSL's mulgen and mul (mul in place, 1 for a valid point, else 0),
 * on x25519.h for X25519. */
static size_t ec_mulgen(uint16_t group, uint8_t *out, const uint8_t *x, size_t xlen)
{
#if X25519_FAST
    if (group == GROUP_X25519) {
        x25519_base(out, x);
        return 32;
    }
#endif
    return br_ec_get_default()->mulgen(out, x, xlen, group_curve(group));
}

static uint32_t ec_mul(uint16_t group, uint8_t *pt, size_t len, const uint8_t *x, size_t xlen)
{
#if X25519_FAST
    if (group == GROUP_X25519) {
        x25519(pt, x, pt);
        return 1;
    }
#endif
    return br_ec_get_default()->mul(pt, len, x, xlen, group_curve(group));
}

/* Our public key_exchange for a group (§4.2.8.2: the uncompressed point
 * for the NIST curves, the 32-byte u-coordinate for X25519). Returns its
 * length (32, 65 or 97). */
static size_t group_public(const struct tls13_hs *hs, uint16_t group, uint8_t *out)
{
    uint8_t x[48];
    size_t xlen = group_scalar(hs, group, x);
    size_t n = ec_mulgen(group, out, x, xlen);
    tls13_wipe(x, sizeof x);
    return n;
}

/* The (EC)DHE shared secret (§7.4): X25519's 32 bytes, or the X coordinate
 * for the NIST curves (§7.4.2). The peer's share must have the exact
 * encoded size and be a valid point (§4.2.8.2: uncompressed form only;
 * BearSSL's mul checks the point is on the curve); an all-zero X25519
 * result is refused (§7.4.2 MUST). Returns the length, or illegal_parameter. */
static int group_shared(const struct tls13_hs *hs, uint16_t group, const uint8_t *peer, size_t peer_len,
                        uint8_t *out)
{
    uint8_t pt[97], x[48];
    size_t xlen, want = group == GROUP_X25519 ? 32 : group == GROUP_SECP256R1 ? 65 : 97;
    int r = E_ILLEGAL_PARAM;

    if (peer_len != want || (group != GROUP_X25519 && peer[0] != 0x04))
        return E_ILLEGAL_PARAM;
    memcpy(pt, peer, want);
    xlen = group_scalar(hs, group, x);
    if (ec_mul(group, pt, want, x, xlen)) {
        size_t off = 0, n = 32;
        if (group != GROUP_X25519)
            off = br_ec_get_default()->xoff(group_curve(group), &n);
        uint8_t any = 0;
        for (size_t i = 0; i < n; i++)
            any |= pt[off + i];
        if (any) {
            memcpy(out, pt + off, n);
            r = (int)n;
        }
    }
    tls13_wipe(pt, sizeof pt);
    tls13_wipe(x, sizeof x);
    return r;
}

/* ------------------------------------------------------------------ */

static int fail(struct tls13_hs *hs, int err)
{
    hs->err = err;
    hs->state = ST_FAILED;
    tls13_wipe(&hs->ks, sizeof hs->ks);
    tls13_wipe(hs->res_master, sizeof hs->res_master);
    tls13_wipe(hs->entropy, sizeof hs->entropy);
    return err;
}

/* Did our ClientHello carry this extension? (§4.2: "Implementations MUST
 * NOT send extension responses if the remote endpoint did not send the
 * corresponding extension requests, with the exception of the cookie
 * extension in the HelloRetryRequest ... abort the handshake with an
 * unsupported_extension alert.") */
static int ext_offered(const struct tls13_hs *hs, uint16_t type)
{
    switch (type) {
    case EXT_SERVER_NAME:
        return hs->cfg.server_name != NULL;
    case EXT_ALPN:
        return hs->cfg.alpn_len > 0;
    case EXT_QUIC_TRANSPORT_PARAMETERS:
        return hs->cfg.quic;
    case EXT_PRE_SHARED_KEY:
        return hs->psk != PSK_NONE;
    case EXT_EARLY_DATA: /* in EncryptedExtensions; NewSessionTicket's is not checked here */
        return hs->early == EARLY_OFFERED;
    case EXT_SUPPORTED_GROUPS:
    case EXT_SIGNATURE_ALGORITHMS:
    case EXT_SUPPORTED_VERSIONS:
    case EXT_KEY_SHARE:
        return 1;
    default:
        return 0;
    }
}

/* §4.2's table and the request/response rule for one extension seen in
 * message `where`. Returns 0 to process (or ignore) it, or an alert. */
static int ext_check(const struct tls13_hs *hs, uint16_t type, uint8_t where)
{
    for (size_t i = 0; i < sizeof ext_rules / sizeof ext_rules[0]; i++) {
        if (ext_rules[i].type != type)
            continue;
        if (!(ext_rules[i].where & where))
            return E_ILLEGAL_PARAM;
        if (type == EXT_COOKIE && where == M_HRR)
            return 0; /* the one unsolicited response allowed (§4.2) */
        return ext_offered(hs, type) ? 0 : E_UNSUPPORTED_EXT;
    }
    return 0; /* unknown: ignored */
}

/* Builds ClientHello (§4.1.2) in hs->msg around key_exchange kx. The same
 * function makes ClientHello2 (§4.1.2: identical but for the new key_share
 * and the cookie). Extensions, in this order: server_name (RFC 6066 §3),
 * supported_groups (§4.2.7), signature_algorithms (§4.2.3), ALPN (RFC 7301),
 * supported_versions (§4.2.1: 1.3 only), cookie (§4.2.2, ClientHello2 only),
 * key_share (§4.2.8: one share), quic_transport_parameters (RFC 9001 §8.2),
 * and with a ticket psk_key_exchange_modes and pre_shared_key (put_psk).
 * No GREASE, no padding: the bytes depend on entropy, cfg and the ticket
 * only. Returns the length, or 0 if it does not fit. */
static size_t put_psk(struct tls13_hs *hs, struct wbuf *w);
static void fill_binder(struct tls13_hs *hs, uint8_t *ch, size_t len);

static size_t build_client_hello(struct tls13_hs *hs, const uint8_t *kx, size_t kx_len)
{
    struct wbuf w = {hs->msg, 0, sizeof hs->msg, 0};
    size_t body, exts, e, l, v;

    put_u8(&w, HT_CLIENT_HELLO);
    body = open_vec(&w, 3);
    put_u16(&w, 0x0303); /* legacy_version (§4.1.2) */
    put(&w, hs->entropy + ENT_RANDOM, 32);
    put_u8(&w, hs->sid_len); /* §D.4 middlebox compatibility: 32 bytes over TCP; RFC 9001 §8.4: none */
    put(&w, hs->entropy + ENT_SESSION_ID, hs->sid_len);
    put_u16(&w, (uint16_t)(2 * hs->cfg.nsuites));
    for (size_t i = 0; i < hs->cfg.nsuites; i++)
        put_u16(&w, hs->cfg.suites[i]);
    put_u8(&w, 1); /* legacy_compression_methods: null only */
    put_u8(&w, 0);
    exts = open_vec(&w, 2);

    if (hs->cfg.server_name) {
        size_t n = strlen(hs->cfg.server_name);
        put_u16(&w, EXT_SERVER_NAME);
        e = open_vec(&w, 2);
        l = open_vec(&w, 2); /* ServerNameList */
        put_u8(&w, 0);       /* host_name */
        v = open_vec(&w, 2);
        put(&w, hs->cfg.server_name, n);
        close_vec(&w, v, 2);
        close_vec(&w, l, 2);
        close_vec(&w, e, 2);
    }

    put_u16(&w, EXT_SUPPORTED_GROUPS);
    e = open_vec(&w, 2);
    l = open_vec(&w, 2);
    for (size_t i = 0; i < hs->cfg.ngroups; i++)
        put_u16(&w, hs->cfg.groups[i]);
    close_vec(&w, l, 2);
    close_vec(&w, e, 2);

    put_u16(&w, EXT_SIGNATURE_ALGORITHMS);
    e = open_vec(&w, 2);
    l = open_vec(&w, 2);
    if (hs->cfg.verifier)
        put(&w, sig_algs_verified, sizeof sig_algs_verified);
    else
        put(&w, sig_algs, sizeof sig_algs);
    close_vec(&w, l, 2);
    close_vec(&w, e, 2);

    if (hs->cfg.alpn_len > 0) {
        put_u16(&w, EXT_ALPN);
        e = open_vec(&w, 2);
        l = open_vec(&w, 2);
        put(&w, hs->cfg.alpn, hs->cfg.alpn_len);
        close_vec(&w, l, 2);
        close_vec(&w, e, 2);
    }

    put_u16(&w, EXT_SUPPORTED_VERSIONS);
    put_u16(&w, 3);
    put_u8(&w, 2);
    put_u16(&w, 0x0304);

    if (hs->cookie_len > 0) {
        put_u16(&w, EXT_COOKIE);
        e = open_vec(&w, 2);
        l = open_vec(&w, 2);
        put(&w, hs->cookie, hs->cookie_len);
        close_vec(&w, l, 2);
        close_vec(&w, e, 2);
    }

    put_u16(&w, EXT_KEY_SHARE);
    e = open_vec(&w, 2);
    l = open_vec(&w, 2); /* client_shares */
    put_u16(&w, hs->group);
    v = open_vec(&w, 2);
    put(&w, kx, kx_len);
    close_vec(&w, v, 2);
    close_vec(&w, l, 2);
    close_vec(&w, e, 2);

    if (hs->cfg.quic) {
        put_u16(&w, EXT_QUIC_TRANSPORT_PARAMETERS);
        e = open_vec(&w, 2);
        put(&w, hs->cfg.quic_params, hs->cfg.quic_params_len);
        close_vec(&w, e, 2);
    }

    if (hs->early == EARLY_OFFERED) { /* §4.2.10: empty in ClientHello; never in ClientHello2 */
        put_u16(&w, EXT_EARLY_DATA);
        put_u16(&w, 0);
    }

    if (hs->psk == PSK_OFFERED)
        put_psk(hs, &w);

    close_vec(&w, exts, 2);
    close_vec(&w, body, 3);
    if (w.overflow)
        return 0;
    if (hs->psk == PSK_OFFERED)
        fill_binder(hs, w.buf, w.len);
    return w.len;
}

/* psk_key_exchange_modes (§4.2.9): psk_dhe_ke only, so the server still
 * makes a key share (forward secrecy, and the same (EC)DHE cost a full
 * handshake has). Then pre_shared_key, which "MUST be the last extension
 * in the ClientHello" (§4.2.11): one identity, the ticket, with
 * obfuscated_ticket_age = age in ms + ticket_age_add mod 2^32 (§4.2.11.1),
 * and a binder of Hash.length zeros, filled in by fill_binder once the
 * lengths before it are final. */
static size_t put_psk(struct tls13_hs *hs, struct wbuf *w)
{
    const struct tls13_ticket *t = hs->resume.ticket;
    uint32_t age = hs->resume.ticket_age_ms + t->age_add;
    size_t e, l, hlen = tls13_hash_len(hs->ks.hash);
    static const uint8_t zeros[TLS13_MAX_HASH];

    put_u16(w, EXT_PSK_KEY_EXCHANGE_MODES);
    put_u16(w, 2);
    put_u8(w, 1);
    put_u8(w, 1); /* psk_dhe_ke */
    put_u16(w, EXT_PRE_SHARED_KEY);
    e = open_vec(w, 2);
    l = open_vec(w, 2); /* identities */
    put_u16(w, t->ticket_len);
    put(w, t->ticket, t->ticket_len);
    put_u16(w, age >> 16);
    put_u16(w, age & 0xffff);
    close_vec(w, l, 2);
    l = open_vec(w, 2); /* binders */
    put_u8(w, (unsigned)hlen);
    put(w, zeros, hlen);
    close_vec(w, l, 2);
    close_vec(w, e, 2);
    return w->len;
}

/* §4.2.11.2: the binder is an HMAC over the transcript up to and including
 * the ClientHello "truncated" before its binders list (whose lengths are
 * already counted in the ClientHello's), i.e. without its last 2 + 1 +
 * Hash.length bytes; after a HelloRetryRequest the transcript holds
 * message_hash(ClientHello1) and the HRR first (§4.4.1). A copy of the
 * running transcript takes the truncated bytes; the real one takes the
 * whole ClientHello when it is sent. */
static void fill_binder(struct tls13_hs *hs, uint8_t *ch, size_t len)
{
    size_t hlen = tls13_hash_len(hs->ks.hash);
    struct tls13_transcript t = hs->transcript;
    uint8_t thash[TLS13_MAX_HASH];

    tls13_transcript_update(&t, ch, len - (2 + 1 + hlen));
    tls13_transcript_hash(&t, hs->ks.hash, thash);
    tls13_ks_binder(&hs->ks, thash, ch + len - hlen);
}

/* Hashes and emits a ClientHello at INITIAL. */
static void send_client_hello(struct tls13_hs *hs, const uint8_t *ch, size_t n)
{
    tls13_transcript_update(&hs->transcript, ch, n);
    hs->cb.emit(hs->ctx, TLS13_EPOCH_INITIAL, ch, n);
}

/* The ALPN config must be a well-formed protocol_name_list body (RFC 7301
 * §3.1: names of 1..255 bytes). */
static int alpn_config_ok(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    while (p < end) {
        size_t len = *p++;
        if (len == 0 || (size_t)(end - p) < len)
            return 0;
        p += len;
    }
    return 1;
}

/* The chosen suites and groups: the defaults when none were chosen; else
 * 1 to 3 of those this engine implements, none twice. */
static int choice_ok(struct tls13_hs_config *cfg)
{
    if (cfg->nsuites == 0) {
        cfg->suites = default_suites;
        cfg->nsuites = sizeof default_suites / sizeof default_suites[0];
    }
    if (cfg->ngroups == 0) {
        cfg->groups = default_groups;
        cfg->ngroups = sizeof default_groups / sizeof default_groups[0];
    }
    if (cfg->nsuites > 3 || cfg->ngroups > 3)
        return 0;
    for (size_t i = 0; i < cfg->nsuites; i++)
        if (!tls13_suite_find(cfg->suites[i]) || listed(cfg->suites, i, cfg->suites[i]))
            return 0;
    for (size_t i = 0; i < cfg->ngroups; i++)
        if (group_curve(cfg->groups[i]) < 0 || listed(cfg->groups, i, cfg->groups[i]))
            return 0;
    return 1;
}

/* Can this handshake offer the ticket? §4.6.1: a ticket is used only for
 * the SNI it was made under and within its lifetime (the caller's clock
 * says how old it is); §4.2.11: only with a suite of the PSK's hash. */
static const struct tls13_suite *ticket_suits(const struct tls13_hs *hs)
{
    const struct tls13_ticket *t = hs->resume.ticket;
    const struct tls13_suite *s = t ? tls13_suite_find(t->suite) : NULL;

    if (!s || t->ticket_len == 0 || t->ticket_len > TLS13_TICKET_MAX || t->lifetime_s == 0 ||
        hs->resume.ticket_age_ms / 1000 >= t->lifetime_s ||
        strncmp(t->server_name, hs->cfg.server_name ? hs->cfg.server_name : "", sizeof t->server_name) != 0)
        return NULL;
    for (size_t i = 0; i < hs->cfg.nsuites; i++)
        if (tls13_suite_find(hs->cfg.suites[i])->hash == s->hash)
            return s;
    return NULL;
}

/* The ALPN this handshake offers first, as a string in out ("" for none). */
static void first_alpn(const struct tls13_hs *hs, char *out, size_t cap)
{
    size_t n = hs->cfg.alpn_len > 0 ? hs->cfg.alpn[0] : 0;
    if (n >= cap)
        n = 0;
    memcpy(out, hs->cfg.alpn + 1, n);
    out[n] = 0;
}

/* --early-data: 0-RTT goes with the offered ticket when it allows early
 * data (§4.2.10: max_early_data_size > 0; under QUIC the ticket's value is
 * 0xffffffff, RFC 9001 §4.6.1, and the caller decides whether it also
 * holds the server's transport parameters) and the connection will speak
 * the protocol it was made under ("the same ALPN protocol" as the one that
 * made the ticket, §4.2.10); the early data is protected with the ticket's
 * suite. */
static void early_offer(struct tls13_hs *hs)
{
    const struct tls13_ticket *t = hs->resume.ticket;
    char alpn[TLS_ALPN_NAME_MAX];

    if (!hs->resume.early_data || t->max_early_data == 0)
        return;
    first_alpn(hs, alpn, sizeof alpn);
    if (strncmp(alpn, t->alpn, sizeof alpn) != 0)
        return;
    hs->early = EARLY_OFFERED;
    hs->early_max = t->max_early_data;
    hs->early_suite = t->suite;
}

/* §7.1: client_early_traffic_secret = Derive-Secret(Early Secret, "c e
 * traffic", ClientHello), handed out as our EARLY write secret right after
 * the ClientHello that offered 0-RTT. */
static void early_secret(struct tls13_hs *hs)
{
    uint8_t thash[TLS13_MAX_HASH], secret[TLS13_MAX_HASH];

    tls13_transcript_hash(&hs->transcript, hs->ks.hash, thash);
    tls13_derive_secret(hs->ks.hash, hs->ks.secret, "c e traffic", thash, secret);
    hs->cb.secret(hs->ctx, TLS13_EPOCH_EARLY, true, tls13_suite_find(hs->early_suite), secret);
    tls13_wipe(secret, sizeof secret);
}

/* Offers the ticket if it suits: the Early Secret from its PSK (for the
 * binder), and its suite moved first, or failing that one of its hash
 * (§4.2.11: the server must pick a suite of the PSK's hash to accept it). */
static void psk_offer(struct tls13_hs *hs)
{
    const struct tls13_suite *s = ticket_suits(hs);
    size_t first = 0, n = hs->cfg.nsuites;

    if (!s)
        return;
    while (first < n && hs->cfg.suites[first] != s->id)
        first++;
    for (first = first < n ? first : 0; tls13_suite_find(hs->cfg.suites[first])->hash != s->hash;)
        first++; /* ticket_suits found one */
    hs->suites_psk[0] = hs->cfg.suites[first];
    for (size_t i = 0, k = 1; i < n; i++)
        if (i != first)
            hs->suites_psk[k++] = hs->cfg.suites[i];
    hs->cfg.suites = hs->suites_psk;
    tls13_ks_init_psk(&hs->ks, s->hash, hs->resume.ticket->psk, tls13_hash_len(s->hash));
    hs->psk = PSK_OFFERED;
    early_offer(hs);
}

static int hs_init(struct tls13_hs *hs, const struct tls13_hs_config *cfg, const uint8_t *entropy,
                   const struct tls13_hs_callbacks *cb, void *ctx)
{
    memset(hs, 0, sizeof *hs);
    hs->cfg = *cfg;
    hs->cb = *cb;
    hs->ctx = ctx;
    memcpy(hs->entropy, entropy, TLS13_ENTROPY_LEN);
    hs->sid_len = cfg->quic ? 0 : 32;
    hs->state = ST_WAIT_SH;
    tls13_transcript_init(&hs->transcript);
    if (!choice_ok(&hs->cfg))
        return fail(hs, E_INTERNAL);
    /* §4.2.8: one share, for the group we like best, or the one this
     * server asked for by HelloRetryRequest before (a subset of
     * supported_groups may get shares). */
    hs->group = group_offered(hs, cfg->key_share_group) ? cfg->key_share_group : hs->cfg.groups[0];

    /* RFC 6066 §3: a DNS host name, 1..255 bytes (IP literals are the
     * caller's to drop). The other limits keep ClientHello2 inside msg. */
    if (cfg->server_name) {
        size_t n = strlen(cfg->server_name);
        if (n == 0 || n > 255)
            return fail(hs, E_INTERNAL);
    }
    if (cfg->alpn_len > 0 && (cfg->alpn == NULL || cfg->alpn_len > 1024 || !alpn_config_ok(cfg->alpn, cfg->alpn_len)))
        return fail(hs, E_INTERNAL);
    if (cfg->quic && cfg->quic_params_len > 0 && (cfg->quic_params == NULL || cfg->quic_params_len > 2048))
        return fail(hs, E_INTERNAL);
    if (cfg->resume)
        hs->resume = *cfg->resume;
    return 0;
}

int tls13_hs_start(struct tls13_hs *hs, const struct tls13_hs_config *cfg, const uint8_t *entropy,
                   const struct tls13_hs_callbacks *cb, void *ctx)
{
    uint8_t kx[97];
    size_t kx_len, n;
    int r;

    if ((r = hs_init(hs, cfg, entropy, cb, ctx)) < 0)
        return r;
    psk_offer(hs);
    kx_len = group_public(hs, hs->group, kx);
    n = build_client_hello(hs, kx, kx_len);
    /* ClientHello2 may add a cookie and a P-384 share: make sure now that
     * it would fit, so a HelloRetryRequest cannot fail for our own sake. A
     * ticket that leaves no room for that is not offered. */
    if (hs->psk && (n == 0 || n + (6 + sizeof hs->cookie) + (97 - kx_len) > sizeof hs->msg)) {
        hs->psk = PSK_NONE;
        hs->early = EARLY_NONE;
        tls13_wipe(&hs->ks, sizeof hs->ks);
        n = build_client_hello(hs, kx, kx_len);
    }
    if (n == 0 || n + (6 + sizeof hs->cookie) + (97 - kx_len) > sizeof hs->msg)
        return fail(hs, E_INTERNAL);
    send_client_hello(hs, hs->msg, n);
    if (hs->early == EARLY_OFFERED)
        early_secret(hs);
    return 0;
}

/* The tests' entry points (tls13/handshake_internal.h). */
int tls13_hs_start_with_client_hello(struct tls13_hs *hs, const struct tls13_hs_config *cfg,
                                     const uint8_t *entropy, const struct tls13_hs_callbacks *cb, void *ctx,
                                     const uint8_t *ch, size_t ch_len)
{
    int r;

    if ((r = hs_init(hs, cfg, entropy, cb, ctx)) < 0)
        return r;
    /* header(4) version(2) random(32) then the session id vector */
    if (ch_len < 4 + 2 + 32 + 1 || ch[38] > 32 || ch_len < 39 + (size_t)ch[38])
        return fail(hs, E_INTERNAL);
    hs->sid_len = ch[38];
    memcpy(hs->entropy + ENT_SESSION_ID, ch + 39, hs->sid_len);
    send_client_hello(hs, ch, ch_len);
    return 0;
}

void tls13_hs_test_client_hello2(struct tls13_hs *hs, const uint8_t *ch2, size_t ch2_len)
{
    hs->test_ch2 = ch2;
    hs->test_ch2_len = ch2_len;
}

/* ------------------------------------------------------------------ */
/* ServerHello and HelloRetryRequest (§4.1.3, §4.1.4). */

/* The ServerHello's pre_shared_key (§4.2.11): uint16 selected_identity.
 * ext_check let it through only if we offered a PSK. "Clients MUST verify
 * that the server's selected_identity is within the range supplied by the
 * client, that the server selected a cipher suite indicating a Hash
 * associated with the PSK, and that a server "key_share" extension is
 * present if required by the ClientHello "psk_key_exchange_modes"
 * extension. If these values are not consistent, the client MUST abort
 * the handshake with an "illegal_parameter" alert." (The key_share is
 * required in any case: on_server_hello checks it next.) */
static int on_psk_selected(struct tls13_hs *hs, const struct tls13_suite *suite, const uint8_t *p,
                           const uint8_t *end)
{
    uint16_t id;
    int r;

    if ((r = get_u16(&p, end, &id)) < 0 || (r = expect_end(p, end)) < 0)
        return r;
    if (id != 0 || suite->hash != hs->ks.hash)
        return E_ILLEGAL_PARAM;
    hs->psk = PSK_ACCEPTED;
    return 0;
}

static int on_hello_retry(struct tls13_hs *hs, const struct tls13_suite *suite, const uint8_t *ks,
                          const uint8_t *ks_end, const uint8_t *cookie, const uint8_t *cookie_end)
{
    uint8_t kx[97];
    size_t kx_len, n;
    uint16_t group = hs->group;
    int r;

    if (ks) {
        /* §4.2.8: KeyShareHelloRetryRequest is just selected_group, which
         * must be one we listed in supported_groups and not the one we
         * already sent a share for (else illegal_parameter). */
        const uint8_t *p = ks;
        if ((r = get_u16(&p, ks_end, &group)) < 0 || (r = expect_end(p, ks_end)) < 0)
            return r;
        if (!group_offered(hs, group) || group == hs->group)
            return E_ILLEGAL_PARAM;
    }
    if (cookie) {
        /* §4.2.2: opaque cookie<1..2^16-1>, echoed in ClientHello2. */
        const uint8_t *p = cookie, *c, *c_end;
        if ((r = get_vec(&p, cookie_end, 2, &c, &c_end)) < 0 || (r = expect_end(p, cookie_end)) < 0)
            return r;
        if (c == c_end)
            return E_DECODE;
        if ((size_t)(c_end - c) > sizeof hs->cookie)
            return E_INTERNAL;
        hs->cookie_len = (uint16_t)(c_end - c);
        memcpy(hs->cookie, c, hs->cookie_len);
    }
    /* §4.1.4: "Clients MUST abort the handshake with an illegal_parameter
     * alert if the HelloRetryRequest would not result in any change in the
     * ClientHello." */
    if (!ks && !cookie)
        return E_ILLEGAL_PARAM;

    /* §4.4.1: ClientHello1 becomes message_hash(Hash(ClientHello1)), then
     * the HRR follows it, then ClientHello2. */
    hs->suite = suite;
    hs->suite_id = suite->id;
    hs->group = group;
    hs->hrr_done = 1;
    /* §4.2.10: a HelloRetryRequest rejects 0-RTT, and ClientHello2 may not
     * offer it again. */
    if (hs->early == EARLY_OFFERED)
        hs->early = EARLY_REJECTED;
    /* §4.1.4: ClientHello2 keeps the PSK (with a binder over the new
     * transcript) only if the HRR's suite has its hash; §4.2.11: the client
     * "SHOULD NOT offer any pre-shared keys associated with a hash other
     * than that of the selected cipher suite". */
    if (hs->psk && suite->hash != hs->ks.hash) {
        hs->psk = PSK_NONE;
        tls13_wipe(&hs->ks, sizeof hs->ks);
    }
    hs->state = ST_WAIT_SH2;
    tls13_transcript_hrr_reset(&hs->transcript, suite->hash);
    tls13_transcript_update(&hs->transcript, hs->hdr, 4);
    tls13_transcript_update(&hs->transcript, hs->msg, hs->msg_len);

    kx_len = group_public(hs, group, kx);
    if (hs->test_ch2) { /* a test's replayed ClientHello2 (tls13_hs_test_client_hello2) */
        send_client_hello(hs, hs->test_ch2, hs->test_ch2_len);
        return 0;
    }
    n = build_client_hello(hs, kx, kx_len); /* overwrites the HRR in msg: done with it */
    if (n == 0)
        return E_INTERNAL;
    send_client_hello(hs, hs->msg, n);
    return 0;
}

static int on_server_hello(struct tls13_hs *hs)
{
    const uint8_t *p = hs->msg, *end = p + hs->msg_len;
    const uint8_t *random, *sid, *sid_end, *exts = NULL, *exts_end = NULL;
    const uint8_t *sv = NULL, *sv_end = NULL, *ks = NULL, *ks_end = NULL, *cookie = NULL, *cookie_end = NULL;
    const uint8_t *pk = NULL, *pk_end = NULL;
    const struct tls13_suite *suite;
    uint16_t legacy_version, suite_id, type;
    uint8_t comp;
    struct ext_iter it;
    const uint8_t *d, *d_end;
    int r, hrr;

    if ((r = get_u16(&p, end, &legacy_version)) < 0 || (r = get_bytes(&p, end, 32, &random)) < 0 ||
        (r = get_vec(&p, end, 1, &sid, &sid_end)) < 0 || (r = get_u16(&p, end, &suite_id)) < 0 ||
        (r = get_u8(&p, end, &comp)) < 0)
        return r;
    if (sid_end - sid > 32) /* legacy_session_id_echo<0..32> */
        return E_DECODE;
    /* A TLS 1.2 ServerHello may end here; a TLS 1.3 one cannot (§4.1.3:
     * extensions<6..2^16-1> with supported_versions in it). */
    if (p != end) {
        if ((r = get_vec(&p, end, 2, &exts, &exts_end)) < 0 || (r = expect_end(p, end)) < 0)
            return r;
    }
    hrr = memcmp(random, hrr_random, 32) == 0;
    /* §4.1.4: "If a client receives a second HelloRetryRequest in the same
     * connection ..., it MUST abort the handshake with an
     * unexpected_message alert." */
    if (hrr && hs->hrr_done)
        return E_UNEXPECTED;

    /* §4.2.1: "Clients MUST check for this extension prior to processing
     * the rest of the ServerHello." First pass: framing, duplicates, and
     * supported_versions. */
    it = (struct ext_iter){exts, exts, exts_end};
    while (exts && (r = ext_next(&it, &type, &d, &d_end)) != 0) {
        if (r < 0)
            return r;
        if (type == EXT_SUPPORTED_VERSIONS) {
            sv = d;
            sv_end = d_end;
        }
    }
    if (!sv) {
        /* §4.1.4: a HelloRetryRequest MUST contain supported_versions; no
         * TLS 1.2 server can produce its random. */
        if (hrr)
            return E_MISSING_EXT;
        /* The server chose TLS 1.2 or below. §4.1.3: "TLS 1.3 clients
         * receiving a ServerHello indicating TLS 1.2 or below MUST check
         * that the last 8 bytes are not equal to either of these values
         * ... If a match is found, the client MUST abort the handshake with
         * an illegal_parameter alert." A sentinel means a 1.3-capable
         * server never saw our 1.3 offer: someone in the path stripped it,
         * and falling back would complete the very downgrade it reports. */
        if (memcmp(random + 24, downgrade_prefix, 7) == 0 && (random[31] == 0x01 || random[31] == 0x00))
            return E_ILLEGAL_PARAM;
        /* §D.1: "If the version chosen by the server is not supported by
         * the client (or is not acceptable), the client MUST abort the
         * handshake with a protocol_version alert." */
        if (hs->cfg.tls13_only)
            return E_PROTOCOL_VERSION;
        return TLS13_ERR_FALLBACK_TLS12;
    }
    /* §4.2.1: selected_version must be one we offered, and not below 1.3.
     * (A 1.3 ServerHello whose random happens to end in a sentinel is not
     * a downgrade: the check applies to "a ServerHello indicating TLS 1.2
     * or below", and the 1.3 transcript covers the random anyway.) */
    {
        const uint8_t *q = sv;
        uint16_t version;
        if ((r = get_u16(&q, sv_end, &version)) < 0 || (r = expect_end(q, sv_end)) < 0)
            return r;
        if (version != 0x0304)
            return E_ILLEGAL_PARAM;
    }
    /* §4.1.3: legacy_version is ignored once supported_versions is there
     * (§4.2.1 "MUST ignore the ServerHello.legacy_version value"). */
    (void)legacy_version;
    if ((size_t)(sid_end - sid) != hs->sid_len || memcmp(sid, hs->entropy + ENT_SESSION_ID, hs->sid_len) != 0)
        return E_ILLEGAL_PARAM; /* §4.1.3 legacy_session_id_echo */
    suite = tls13_suite_find(suite_id);
    if (!suite || !suite_offered(hs, suite_id))
        return E_ILLEGAL_PARAM; /* §4.1.3: "a cipher suite that was not offered" */
    if (comp != 0)
        return E_ILLEGAL_PARAM; /* §4.1.3: legacy_compression_method MUST be 0 */
    if (hs->hrr_done && suite_id != hs->suite_id)
        return E_ILLEGAL_PARAM; /* §4.1.4: same suite as the HelloRetryRequest */

    /* Second pass: §4.2's table and the request/response rule. */
    it = (struct ext_iter){exts, exts, exts_end};
    while ((r = ext_next(&it, &type, &d, &d_end)) != 0) {
        if (r < 0)
            return r;
        if ((r = ext_check(hs, type, hrr ? M_HRR : M_SH)) < 0)
            return r;
        if (type == EXT_KEY_SHARE) {
            ks = d;
            ks_end = d_end;
        } else if (type == EXT_COOKIE) {
            cookie = d;
            cookie_end = d_end;
        } else if (type == EXT_PRE_SHARED_KEY) {
            pk = d;
            pk_end = d_end;
        }
    }
    if (hrr)
        return on_hello_retry(hs, suite, ks, ks_end, cookie, cookie_end);
    if (pk && (r = on_psk_selected(hs, suite, pk, pk_end)) < 0)
        return r;

    /* Without PSK, key_share is the only way to keys (§4.1.3 "Current
     * ServerHello messages additionally contain either the pre_shared_key
     * extension or the key_share extension"). */
    if (!ks)
        return E_MISSING_EXT;
    {
        const uint8_t *q = ks, *kx, *kx_end;
        uint16_t group;
        uint8_t dhe[48], thash[TLS13_MAX_HASH];
        int dhe_len;

        /* §4.2.8 KeyShareServerHello: one KeyShareEntry. */
        if ((r = get_u16(&q, ks_end, &group)) < 0 || (r = get_vec(&q, ks_end, 2, &kx, &kx_end)) < 0 ||
            (r = expect_end(q, ks_end)) < 0)
            return r;
        /* §4.2.8: the server's share must be in the group we offered (and,
         * after an HRR, the group it selected: the same thing here). */
        if (group != hs->group)
            return E_ILLEGAL_PARAM;
        if ((dhe_len = group_shared(hs, group, kx, (size_t)(kx_end - kx), dhe)) < 0)
            return dhe_len;

        hs->suite = suite;
        hs->suite_id = suite_id;
        tls13_transcript_update(&hs->transcript, hs->hdr, 4);
        tls13_transcript_update(&hs->transcript, hs->msg, hs->msg_len);
        tls13_transcript_select(&hs->transcript, suite->hash);
        tls13_transcript_hash(&hs->transcript, suite->hash, thash);
        if (hs->psk != PSK_ACCEPTED) /* a full handshake: the ticket's Early Secret goes */
            tls13_ks_init(&hs->ks, suite->hash);
        tls13_ks_handshake(&hs->ks, dhe, (size_t)dhe_len, thash);
        tls13_wipe(dhe, sizeof dhe);
        tls13_wipe(hs->entropy + ENT_X25519, ENT_KEYS_LEN); /* the private keys have served */
    }
    hs->state = ST_WAIT_EE;
    hs->cb.secret(hs->ctx, TLS13_EPOCH_HANDSHAKE, false, suite, hs->ks.server_hs);
    /* With 0-RTT offered over TCP our early records go on until the
     * server's Finished: our handshake key comes with our second flight
     * then. QUIC's 0-RTT packets have keys of their own beside the
     * Handshake ones (RFC 9001 §4.1.4), so there it comes now. */
    if (hs->early != EARLY_OFFERED || hs->cfg.quic)
        hs->cb.secret(hs->ctx, TLS13_EPOCH_HANDSHAKE, true, suite, hs->ks.client_hs);
    return 0;
}

/* ------------------------------------------------------------------ */
/* EncryptedExtensions (§4.3.1). */

/* RFC 7301 §3.1: the server's protocol_name_list holds exactly one name,
 * and (as with any response) it must be one we offered. */
static int on_alpn(struct tls13_hs *hs, const uint8_t *p, const uint8_t *end)
{
    const uint8_t *list, *list_end, *name, *name_end;
    int r;

    if ((r = get_vec(&p, end, 2, &list, &list_end)) < 0 || (r = expect_end(p, end)) < 0 ||
        (r = get_vec(&list, list_end, 1, &name, &name_end)) < 0 || (r = expect_end(list, list_end)) < 0)
        return r;
    if (name == name_end)
        return E_DECODE; /* ProtocolName<1..2^8-1> */
    size_t n = (size_t)(name_end - name);
    for (const uint8_t *q = hs->cfg.alpn, *q_end = q + hs->cfg.alpn_len; q < q_end; q += 1 + *q) {
        if (*q == n && memcmp(q + 1, name, n) == 0) {
            memcpy(hs->alpn, name, n);
            hs->alpn[n] = 0;
            return 0;
        }
    }
    return E_ILLEGAL_PARAM;
}

/* EncryptedExtensions decided our 0-RTT: accepted (early_data in it) or
 * rejected. §4.2.10: a server accepting early data must have accepted the
 * ticket's PSK with its suite and ALPN, else illegal_parameter. */
static int early_verdict(struct tls13_hs *hs)
{
    if (hs->early == EARLY_OFFERED)
        hs->early = EARLY_REJECTED;
    if (hs->early != EARLY_ACCEPTED)
        return 0;
    char alpn[TLS_ALPN_NAME_MAX]; /* early_offer: the ticket's */
    first_alpn(hs, alpn, sizeof alpn);
    if (hs->psk != PSK_ACCEPTED || hs->suite_id != hs->early_suite || strcmp((const char *)hs->alpn, alpn) != 0)
        return E_ILLEGAL_PARAM;
    return 0;
}

static int on_encrypted_extensions(struct tls13_hs *hs)
{
    const uint8_t *p = hs->msg, *end = p + hs->msg_len, *exts, *exts_end, *d, *d_end;
    struct ext_iter it;
    uint16_t type;
    int r, got_tp = 0;

    if ((r = get_vec(&p, end, 2, &exts, &exts_end)) < 0 || (r = expect_end(p, end)) < 0)
        return r;
    it = (struct ext_iter){exts, exts, exts_end};
    while ((r = ext_next(&it, &type, &d, &d_end)) != 0) {
        if (r < 0)
            return r;
        if ((r = ext_check(hs, type, M_EE)) < 0)
            return r;
        if (type == EXT_ALPN) {
            if ((r = on_alpn(hs, d, d_end)) < 0)
                return r;
        } else if (type == EXT_EARLY_DATA) {
            /* §4.2.10: empty in EncryptedExtensions; ext_check let it
             * through only if we offered 0-RTT. */
            if (d != d_end)
                return E_DECODE;
            hs->early = EARLY_ACCEPTED;
        } else if (type == EXT_QUIC_TRANSPORT_PARAMETERS) {
            size_t n = (size_t)(d_end - d);
            if (n > sizeof hs->quic_params_peer)
                return E_INTERNAL;
            memcpy(hs->quic_params_peer, d, n);
            hs->quic_params_peer_len = (uint16_t)n;
            got_tp = 1;
        }
    }
    if (hs->cfg.quic) {
        /* RFC 9001 §8.2: a missing quic_transport_parameters extension is
         * missing_extension. §8.1: with ALPN offered and none selected,
         * no_application_protocol. */
        if (!got_tp)
            return E_MISSING_EXT;
        if (hs->cfg.alpn_len > 0 && hs->alpn[0] == 0)
            return E_NO_APP_PROTOCOL;
    }
    if ((r = early_verdict(hs)) < 0)
        return r;
    tls13_transcript_update(&hs->transcript, hs->hdr, 4);
    tls13_transcript_update(&hs->transcript, hs->msg, hs->msg_len);
    /* §2.2: a resumed handshake authenticates with the PSK: no
     * Certificate, CertificateRequest or CertificateVerify (§4.3.2: "Servers
     * which are authenticating with a resumption PSK MUST NOT send the
     * CertificateRequest message in the main handshake"). */
    hs->state = hs->psk == PSK_ACCEPTED ? ST_WAIT_FINISHED : ST_WAIT_CERT_CR;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Certificate (§4.4.2), framing (and with --cacert, the verifier fed),
 * walked as it streams:
 *   opaque certificate_request_context<0..2^8-1>;   (empty from a server)
 *   CertificateEntry certificate_list<0..2^24-1>;    (not empty, §4.4.2.4)
 *   CertificateEntry = opaque cert_data<1..2^24-1>; Extension extensions<0..2^16-1>;
 * Length fields are gathered a byte at a time (cw_need, cw_acc); bodies are
 * skipped (cw_skip); cw_left counts what is left of certificate_list. */
enum { CW_CTX_LEN, CW_LIST_LEN, CW_CERT_LEN, CW_CERT, CW_EXT_LEN, CW_EXT, CW_END };

/* --cacert: each entry's cert_data goes to the verifier as it streams
 * past (start_cert, append, end_cert), so a long chain still costs no
 * memory here. */
static const br_x509_class **x509_of(struct tls13_hs *hs) { return &hs->cfg.verifier->vtable; }

static void cw_after_skip(struct tls13_hs *hs)
{
    if (hs->cw_skip > 0)
        return;
    if (hs->cw_phase == CW_CERT) {
        if (hs->cfg.verifier)
            (*x509_of(hs))->end_cert(x509_of(hs));
        hs->cw_phase = CW_EXT_LEN;
        hs->cw_need = 2;
    } else if (hs->cw_phase == CW_EXT) {
        hs->cw_phase = hs->cw_left == 0 ? CW_END : CW_CERT_LEN;
        hs->cw_need = 3;
    }
}

static int cert_walk(struct tls13_hs *hs, const uint8_t *p, size_t n)
{
    while (n > 0) {
        switch (hs->cw_phase) {
        case CW_CTX_LEN:
            /* §4.4.2: "in the case of server authentication, this field
             * SHALL be zero length". */
            if (*p != 0)
                return E_ILLEGAL_PARAM;
            p++, n--;
            hs->cw_phase = CW_LIST_LEN;
            hs->cw_need = 3;
            hs->cw_acc = 0;
            break;
        case CW_LIST_LEN:
        case CW_CERT_LEN:
        case CW_EXT_LEN:
            if (hs->cw_phase != CW_LIST_LEN) {
                if (hs->cw_left == 0)
                    return E_DECODE;
                hs->cw_left--;
            }
            hs->cw_acc = hs->cw_acc << 8 | *p++;
            n--;
            if (--hs->cw_need > 0)
                break;
            if (hs->cw_phase == CW_LIST_LEN) {
                /* the list fills the rest of the message; §4.4.2.4: "If the
                 * server supplies an empty Certificate message, the client
                 * MUST abort the handshake with a decode_error alert." */
                if (hs->cw_acc != hs->msg_len - 4 || hs->cw_acc == 0)
                    return E_DECODE;
                hs->cw_left = hs->cw_acc;
                hs->cw_phase = CW_CERT_LEN;
                hs->cw_need = 3;
            } else {
                if ((hs->cw_phase == CW_CERT_LEN && hs->cw_acc == 0) || hs->cw_acc > hs->cw_left)
                    return E_DECODE;
                hs->cw_skip = hs->cw_acc;
                if (hs->cw_phase == CW_CERT_LEN && hs->cfg.verifier)
                    (*x509_of(hs))->start_cert(x509_of(hs), hs->cw_acc);
                hs->cw_phase = hs->cw_phase == CW_CERT_LEN ? CW_CERT : CW_EXT;
                cw_after_skip(hs);
            }
            hs->cw_acc = 0;
            break;
        case CW_CERT:
        case CW_EXT: {
            size_t take = n < hs->cw_skip ? n : hs->cw_skip;
            if (hs->cw_phase == CW_CERT && hs->cfg.verifier && take > 0)
                (*x509_of(hs))->append(x509_of(hs), p, take);
            hs->cw_skip -= (uint32_t)take;
            hs->cw_left -= (uint32_t)take;
            p += take;
            n -= take;
            cw_after_skip(hs);
            break;
        }
        default:
            return E_DECODE;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Finished (§4.4.4) and the client's second flight. */

/* Our handshake bytes: into the transcript exactly as they go out. */
static void emit_hashed(struct tls13_hs *hs, const uint8_t *p, size_t n)
{
    tls13_transcript_update(&hs->transcript, p, n);
    hs->cb.emit(hs->ctx, TLS13_EPOCH_HANDSHAKE, p, n);
}

/* Certificate (§4.4.2) with our chain, streamed out of the credential
 * piece by piece (a chain can be far larger than msg):
 *   certificate_request_context (empty: end_message checked the request's),
 *   certificate_list<0..2^24-1> of { cert_data<1..2^24-1>, extensions<0..2^16-1> (none) }. */
static void emit_certificate(struct tls13_hs *hs)
{
    const struct tls13_credential *c = hs->cfg.cred;
    size_t list_len = 0;
    uint8_t head[4 + 1 + 3 + 3], sep[2 + 3];

    for (size_t i = 0; i < c->chain_len; i++)
        list_len += 3 + c->chain[i].data_len + 2;
    head[0] = HT_CERTIFICATE;
    be24(head + 1, 1 + 3 + list_len);
    head[4] = 0;
    be24(head + 5, list_len);
    be24(head + 8, c->chain[0].data_len);
    emit_hashed(hs, head, sizeof head);
    for (size_t i = 0; i < c->chain_len; i++) {
        emit_hashed(hs, c->chain[i].data, c->chain[i].data_len);
        be16(sep, 0); /* this entry's extensions */
        size_t n = 2;
        if (i + 1 < c->chain_len) {
            be24(sep + 2, c->chain[i + 1].data_len);
            n = 5;
        }
        emit_hashed(hs, sep, n);
    }
}

/* CertificateVerify (§4.4.3) into out: the signature over 64 spaces, the
 * context string, a zero byte and Transcript-Hash(ClientHello ..
 * our Certificate). Returns its length, or 0 if the signing failed. */
static size_t build_certificate_verify(struct tls13_hs *hs, uint8_t *out)
{
    static const char label[] = "TLS 1.3, client CertificateVerify";
    uint8_t content[64 + sizeof label + TLS13_MAX_HASH];
    size_t hlen = tls13_hash_len(hs->suite->hash);

    memset(content, 0x20, 64);
    memcpy(content + 64, label, sizeof label); /* with its terminating 0: the separator byte */
    tls13_transcript_hash(&hs->transcript, hs->suite->hash, content + 64 + sizeof label);
    size_t sig_len = tls13_credential_sign(hs->cfg.cred, hs->cv_scheme, content, 64 + sizeof label + hlen,
                                           hs->entropy + ENT_PSS_SALT, out + 8);
    tls13_wipe(hs->entropy + ENT_PSS_SALT, ENT_PSS_SALT_LEN);
    if (sig_len == 0)
        return 0;
    out[0] = HT_CERTIFICATE_VERIFY;
    be24(out + 1, 4 + sig_len);
    be16(out + 4, hs->cv_scheme);
    be16(out + 6, sig_len);
    return 8 + sig_len;
}

/* 0-RTT offered: our early records end here. Accepted, EndOfEarlyData
 * (§4.5) closes them, under the early key and in the transcript (it comes
 * before our Finished); rejected, the server skipped them and none is sent
 * (§4.2.10). Then our handshake key, held back since the ServerHello. */
static void end_early_data(struct tls13_hs *hs)
{
    static const uint8_t eoed[4] = {HT_END_OF_EARLY_DATA, 0, 0, 0};

    /* QUIC: no EndOfEarlyData (RFC 9001 §8.3), and our handshake key went
     * out with the server's (on_server_hello). */
    if (hs->early == EARLY_NONE || hs->cfg.quic)
        return;
    if (hs->early == EARLY_ACCEPTED) {
        tls13_transcript_update(&hs->transcript, eoed, sizeof eoed);
        hs->cb.emit(hs->ctx, TLS13_EPOCH_EARLY, eoed, sizeof eoed);
    }
    hs->cb.secret(hs->ctx, TLS13_EPOCH_HANDSHAKE, true, hs->suite, hs->ks.client_hs);
}

static int on_finished(struct tls13_hs *hs)
{
    const struct tls13_suite *s = hs->suite;
    size_t hlen = tls13_hash_len(s->hash), n = 0;
    uint8_t thash[TLS13_MAX_HASH], vd[TLS13_MAX_HASH], diff = 0;

    /* verify_data = HMAC(finished_key(server_handshake_traffic_secret),
     * Transcript-Hash(ClientHello .. CertificateVerify)). §4.4.4:
     * "Recipients of Finished messages MUST verify that the contents are
     * correct and if incorrect MUST terminate the connection with a
     * decrypt_error alert." */
    tls13_transcript_hash(&hs->transcript, s->hash, thash);
    tls13_finished(s->hash, hs->ks.server_hs, thash, vd);
    for (size_t i = 0; i < hlen; i++)
        diff |= (uint8_t)(vd[i] ^ hs->msg[i]);
    if (diff)
        return E_DECRYPT;

    /* §7.1: the application secrets hash ClientHello .. server Finished. */
    tls13_transcript_update(&hs->transcript, hs->hdr, 4);
    tls13_transcript_update(&hs->transcript, hs->msg, hlen);
    tls13_transcript_hash(&hs->transcript, s->hash, thash);
    tls13_ks_master(&hs->ks, thash);
    hs->state = ST_DONE;
    hs->cb.secret(hs->ctx, TLS13_EPOCH_APP, false, s, hs->ks.server_app);
    end_early_data(hs);

    /* §4.4.2: a client asked for a certificate sends its chain and a
     * CertificateVerify, or, having none, a Certificate with an empty
     * certificate_list, echoing the request's context (empty: end_message
     * checked it). */
    if (hs->got_cr && hs->cfg.cred) {
        emit_certificate(hs);
        if ((n = build_certificate_verify(hs, hs->msg)) == 0)
            return E_INTERNAL;
        tls13_transcript_update(&hs->transcript, hs->msg, n);
    } else if (hs->got_cr) {
        static const uint8_t empty_cert[8] = {HT_CERTIFICATE, 0, 0, 4, 0, 0, 0, 0};
        memcpy(hs->msg, empty_cert, sizeof empty_cert);
        tls13_transcript_update(&hs->transcript, empty_cert, sizeof empty_cert);
        n = sizeof empty_cert;
    }
    tls13_transcript_hash(&hs->transcript, s->hash, thash);
    hs->msg[n] = HT_FINISHED;
    be24(hs->msg + n + 1, hlen);
    tls13_finished(s->hash, hs->ks.client_hs, thash, hs->msg + n + 4);
    tls13_transcript_update(&hs->transcript, hs->msg + n, 4 + hlen);
    if (hs->resume.on_ticket) {
        /* §7.1: resumption_master_secret hashes ClientHello .. client
         * Finished; every NewSessionTicket's PSK comes from it. */
        tls13_transcript_hash(&hs->transcript, s->hash, thash);
        tls13_ks_resumption(&hs->ks, thash, hs->res_master);
    }
    n += 4 + hlen;
    /* Order matters to the TCP glue: our Finished goes out under the
     * handshake key, so it is emitted before the application write secret
     * is handed over. */
    hs->cb.emit(hs->ctx, TLS13_EPOCH_HANDSHAKE, hs->msg, n);
    hs->cb.secret(hs->ctx, TLS13_EPOCH_APP, true, s, hs->ks.client_app);

    /* Only the application secrets (for KeyUpdate) are kept. */
    tls13_wipe(hs->ks.secret, sizeof hs->ks.secret);
    tls13_wipe(hs->ks.client_hs, sizeof hs->ks.client_hs);
    tls13_wipe(hs->ks.server_hs, sizeof hs->ks.server_hs);
    return TLS13_HS_DONE;
}

/* §4.6.3 / §7.2: the next write secret, announced by a KeyUpdate that goes
 * out under the current one (emit before secret). */
static void update_write(struct tls13_hs *hs, uint8_t request)
{
    const uint8_t ku[5] = {HT_KEY_UPDATE, 0, 0, 1, request};
    hs->cb.emit(hs->ctx, TLS13_EPOCH_APP, ku, sizeof ku);
    tls13_next_traffic_secret(hs->suite->hash, hs->ks.client_app);
    hs->cb.secret(hs->ctx, TLS13_EPOCH_APP, true, hs->suite, hs->ks.client_app);
}

static int on_key_update(struct tls13_hs *hs)
{
    uint8_t req = hs->msg[0];

    /* RFC 9001 §6: "Endpoints MUST treat the receipt of a TLS KeyUpdate
     * message as a connection error of type 0x010a, equivalent to a fatal
     * TLS alert of unexpected_message." */
    if (hs->cfg.quic)
        return E_UNEXPECTED;
    /* §4.6.3: any value but update_not_requested(0) / update_requested(1)
     * is illegal_parameter. */
    if (req > 1)
        return E_ILLEGAL_PARAM;
    tls13_next_traffic_secret(hs->suite->hash, hs->ks.server_app);
    hs->cb.secret(hs->ctx, TLS13_EPOCH_APP, false, hs->suite, hs->ks.server_app);
    /* §4.6.3: update_requested → "the receiver MUST send a KeyUpdate of its
     * own with request_update set to update_not_requested prior to sending
     * its next Application Data record". One answer covers every request
     * that arrives before our next data (see tls13_hs_app_data_sent). */
    if (req == 1 && !hs->ku_answered) {
        update_write(hs, 0);
        hs->ku_answered = 1;
    }
    return 0;
}

void tls13_hs_app_data_sent(struct tls13_hs *hs) { hs->ku_answered = 0; }

int tls13_hs_key_update(struct tls13_hs *hs)
{
    if (hs->err)
        return hs->err;
    /* Only after the handshake (§4.6.3), and never under QUIC (RFC 9001 §6:
     * "Endpoints MUST NOT send a TLS KeyUpdate message"). A local misuse:
     * reported, not made sticky. */
    if (hs->state != ST_DONE || hs->cfg.quic)
        return E_INTERNAL;
    update_write(hs, 1);
    return 0;
}

const char *tls13_hs_alpn(const struct tls13_hs *hs) { return (const char *)hs->alpn; }

bool tls13_hs_resumed(const struct tls13_hs *hs) { return hs->psk == PSK_ACCEPTED; }

uint32_t tls13_hs_early_budget(const struct tls13_hs *hs) { return hs->early == EARLY_OFFERED ? hs->early_max : 0; }

bool tls13_hs_early_accepted(const struct tls13_hs *hs) { return hs->early == EARLY_ACCEPTED; }

/* ------------------------------------------------------------------ */
/* NewSessionTicket (§4.6.1), with --tls-resume:
 *   uint32 ticket_lifetime; uint32 ticket_age_add;
 *   opaque ticket_nonce<0..255>; opaque ticket<1..2^16-1>;
 *   Extension extensions<0..2^16-2>;
 * handed out with its PSK = HKDF-Expand-Label(resumption_master_secret,
 * "resumption", ticket_nonce, Hash.length). A ticket too long to keep or
 * with a zero lifetime ("the ticket should be discarded immediately") is
 * checked and dropped. */
static int get_u32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint16_t hi, lo;
    int r;
    if ((r = get_u16(p, end, &hi)) < 0 || (r = get_u16(p, end, &lo)) < 0)
        return r;
    *v = (uint32_t)hi << 16 | lo;
    return 0;
}

static int on_new_session_ticket(struct tls13_hs *hs)
{
    const uint8_t *p = hs->msg, *end = p + hs->msg_len, *nonce, *nonce_end, *tk, *tk_end, *exts, *exts_end;
    const uint8_t *d, *d_end;
    uint32_t lifetime, age_add, max_early = 0;
    struct ext_iter it;
    uint16_t type;
    int r;

    if ((r = get_u32(&p, end, &lifetime)) < 0 || (r = get_u32(&p, end, &age_add)) < 0 ||
        (r = get_vec(&p, end, 1, &nonce, &nonce_end)) < 0 || (r = get_vec(&p, end, 2, &tk, &tk_end)) < 0 ||
        (r = get_vec(&p, end, 2, &exts, &exts_end)) < 0 || (r = expect_end(p, end)) < 0)
        return r;
    if (tk == tk_end)
        return E_DECODE; /* ticket<1..2^16-1> */
    it = (struct ext_iter){exts, exts, exts_end};
    while ((r = ext_next(&it, &type, &d, &d_end)) != 0) {
        if (r < 0)
            return r;
        /* §4.2's table (not the request/response rule: a ticket's
         * extensions answer nothing). */
        for (size_t i = 0; i < sizeof ext_rules / sizeof ext_rules[0]; i++)
            if (ext_rules[i].type == type && !(ext_rules[i].where & M_NST))
                return E_ILLEGAL_PARAM;
        /* §4.2.10: in NewSessionTicket, early_data is uint32 max_early_data_size. */
        if (type == EXT_EARLY_DATA && ((r = get_u32(&d, d_end, &max_early)) < 0 || (r = expect_end(d, d_end)) < 0))
            return r;
        /* RFC 9001 §4.6.1: under QUIC the only value is the sentinel
         * 0xffffffff; any other is a PROTOCOL_VIOLATION. */
        if (type == EXT_EARLY_DATA && hs->cfg.quic && max_early != 0xffffffffu)
            return TLS13_ERR_QUIC_EARLY_DATA_SIZE;
    }
    if (lifetime == 0 || (size_t)(tk_end - tk) > TLS13_TICKET_MAX)
        return 0;

    struct tls13_ticket t;
    size_t n;
    memset(&t, 0, offsetof(struct tls13_ticket, ticket));
    /* §4.6.1: "Servers MUST NOT use any value greater than 604800 seconds
     * (7 days)" and "Clients MUST NOT cache tickets for longer than 7 days". */
    t.lifetime_s = lifetime < 604800 ? lifetime : 604800;
    t.age_add = age_add;
    t.max_early_data = max_early;
    t.suite = hs->suite_id;
    t.ticket_len = (uint16_t)(tk_end - tk);
    memcpy(t.ticket, tk, t.ticket_len);
    tls13_ticket_psk(hs->suite->hash, hs->res_master, nonce, (size_t)(nonce_end - nonce), t.psk);
    n = hs->cfg.server_name ? strlen(hs->cfg.server_name) : 0; /* at most 255: hs_init */
    memcpy(t.server_name, hs->cfg.server_name ? hs->cfg.server_name : "", n);
    t.server_name[n] = 0;
    for (n = 0; hs->alpn[n] && n + 1 < sizeof t.alpn; n++)
        t.alpn[n] = (char)hs->alpn[n];
    t.alpn[n] = 0;
    hs->resume.on_ticket(hs->resume.ctx, &t);
    tls13_wipe(t.psk, sizeof t.psk);
    return 0;
}

uint16_t tls13_hs_hrr_group(const struct tls13_hs *hs) { return hs->hrr_done ? hs->group : 0; }

void tls13_hs_negotiated(const struct tls13_hs *hs, struct tls_negotiated *out)
{
    out->version = TLS_VERSION_13;
    out->cipher = hs->suite_id;
    out->group = hs->group;
    out->fallback = false;
    tls_negotiated_alpn(out, (const char *)hs->alpn);
}

/* ------------------------------------------------------------------ */
/* Message framing (§4: msg_type(1) length(3) body). */

/* A header is complete: is this message welcome now, and how is its body
 * taken? */
static int begin_message(struct tls13_hs *hs)
{
    uint8_t type = hs->hdr[0];
    uint32_t len = (uint32_t)hs->hdr[1] << 16 | (uint32_t)hs->hdr[2] << 8 | hs->hdr[3];
    int r;

    if (type == 0 || (type != rules[hs->state].types[0] && type != rules[hs->state].types[1]))
        return E_UNEXPECTED;
    hs->msg_type = type;
    hs->msg_len = len;
    hs->msg_have = 0;
    switch (type) {
    case HT_SERVER_HELLO:
    case HT_ENCRYPTED_EXTENSIONS:
        hs->msg_mode = MODE_COLLECT;
        if (len > sizeof hs->msg)
            return E_INTERNAL; /* legal but beyond what we hold */
        break;
    case HT_FINISHED:
        hs->msg_mode = MODE_COLLECT;
        if (len != tls13_hash_len(hs->suite->hash))
            return E_DECODE; /* verify_data[Hash.length] (§4.4.4) */
        break;
    case HT_KEY_UPDATE:
        hs->msg_mode = MODE_COLLECT;
        if (len != 1)
            return E_DECODE;
        break;
    case HT_CERTIFICATE:
        hs->cw_phase = CW_CTX_LEN;
        hs->cw_need = 1;
        hs->cw_acc = hs->cw_skip = hs->cw_left = 0;
        /* The name checked is the SNI's (RFC 6125 §6.4); an IP literal
         * sends none and is checked by the verifier itself. */
        if (hs->cfg.verifier)
            (*x509_of(hs))->start_chain(x509_of(hs), hs->cfg.server_name);
        /* fall through */
    case HT_CERTIFICATE_REQUEST:
        if (type == HT_CERTIFICATE_REQUEST && (r = tls13_cr_start(&hs->cr, len, hs->cfg.cred)) < 0)
            return r;
        /* fall through */
    case HT_CERTIFICATE_VERIFY:
        /* §4.4.3: the server signs Transcript-Hash(ClientHello ..
         * Certificate), the transcript before this message. */
        if (type == HT_CERTIFICATE_VERIFY && hs->cfg.verifier)
            tls13_transcript_hash(&hs->transcript, hs->suite->hash, hs->cfg.verifier->cv_hash);
        hs->msg_mode = MODE_STREAM;
        tls13_transcript_update(&hs->transcript, hs->hdr, 4);
        break;
    default: /* HT_NEW_SESSION_TICKET: post-handshake, not in any transcript */
        hs->msg_mode = hs->resume.on_ticket && len <= sizeof hs->msg ? MODE_COLLECT : MODE_SKIP;
        break;
    }
    return 0;
}

/* --cacert: the chain is in; BearSSL's verdict on it and the name
 * (RFC 5280 §6, RFC 6125 §6), as the alert §6.2 names for it. */
static int end_chain(struct tls13_hs *hs)
{
    struct tls13_verifier *v = hs->cfg.verifier;
    unsigned usages = 0;

    if ((*x509_of(hs))->end_chain(x509_of(hs)) != 0)
        return -tls13_verify_reason_alert((enum tls13_verify_reason)v->reason);
    /* The leaf signs CertificateVerify: keyUsage, when present, must allow
     * digitalSignature (RFC 5280 §4.2.1.3). */
    if ((*x509_of(hs))->get_pkey(x509_of(hs), &usages) == NULL || !(usages & BR_KEYTYPE_SIGN)) {
        tls13_verifier_fail(v, BR_ERR_X509_FORBIDDEN_KEY_USAGE);
        return -tls13_verify_reason_alert((enum tls13_verify_reason)v->reason);
    }
    return 0;
}

static bool sig_offered(uint16_t scheme)
{
    /* The last three entries of sig_algs_verified are rsa_pkcs1_*, for
     * certificates only (§4.4.3). */
    for (size_t i = 0; i + 6 < sizeof sig_algs_verified; i += 2)
        if ((uint16_t)(sig_algs_verified[i] << 8 | sig_algs_verified[i + 1]) == scheme)
            return true;
    return false;
}

/* --cacert: the server's CertificateVerify (§4.4.3) with the leaf's key.
 * "If the verification fails, the receiver MUST terminate the handshake
 * with a "decrypt_error" alert." The scheme must be one we offered
 * (§4.4.3), else illegal_parameter. */
static int check_certificate_verify(struct tls13_hs *hs)
{
    struct tls13_verifier *v = hs->cfg.verifier;
    uint16_t scheme = (uint16_t)(hs->msg[0] << 8 | hs->msg[1]);
    enum tls13_verify_reason r;

    if (!sig_offered(scheme))
        return E_ILLEGAL_PARAM;
    if (hs->msg_len > sizeof hs->msg) /* longer than any signature of a key we verify */
        r = TLS13_VERIFY_BAD_CV;
    else
        r = tls13_verify_certificate_verify((*x509_of(hs))->get_pkey(x509_of(hs), NULL), scheme, v->cv_hash,
                                            tls13_hash_len(hs->suite->hash), hs->msg + 4, hs->msg_len - 4);
    if (r == TLS13_VERIFY_OK)
        return 0;
    v->reason = (uint8_t)r;
    return -tls13_verify_reason_alert(r);
}

/* The whole body is in (or has streamed past). */
static int end_message(struct tls13_hs *hs)
{
    switch (hs->msg_type) {
    case HT_SERVER_HELLO:
        return on_server_hello(hs);
    case HT_ENCRYPTED_EXTENSIONS:
        return on_encrypted_extensions(hs);
    case HT_CERTIFICATE_REQUEST: {
        /* Read as it streamed (tls13/cert_request.c). Without a usable
         * scheme the handshake stops (handshake_failure): sending an empty
         * Certificate instead would run the load without the certificate
         * the user asked to show, measuring something else. */
        int r = tls13_cr_end(&hs->cr);
        if (r < 0)
            return r;
        hs->cv_scheme = hs->cr.scheme;
        hs->got_cr = 1;
        hs->state = ST_WAIT_CERT;
        return 0;
    }
    case HT_CERTIFICATE:
        if (hs->cw_phase != CW_END)
            return E_DECODE;
        if (hs->cfg.verifier) {
            int r = end_chain(hs);
            if (r < 0)
                return r;
        }
        hs->state = ST_WAIT_CV;
        return 0;
    case HT_CERTIFICATE_VERIFY:
        /* §4.4.3: SignatureScheme algorithm; opaque signature<0..2^16-1>.
         * Verified with --cacert, else framing only. */
        if (hs->msg_len < 4 || (uint32_t)(hs->msg[2] << 8 | hs->msg[3]) != hs->msg_len - 4)
            return E_DECODE;
        if (hs->cfg.verifier) {
            int r = check_certificate_verify(hs);
            if (r < 0)
                return r;
        }
        hs->state = ST_WAIT_FINISHED;
        return 0;
    case HT_FINISHED:
        return on_finished(hs);
    case HT_KEY_UPDATE:
        return on_key_update(hs);
    default: /* NewSessionTicket (§4.6.1): kept only with --tls-resume */
        return hs->msg_mode == MODE_COLLECT ? on_new_session_ticket(hs) : 0;
    }
}

int tls13_hs_input(struct tls13_hs *hs, enum tls13_epoch epoch, const uint8_t *p, size_t n)
{
    int result = TLS13_HS_IN_PROGRESS, r;

    if (hs->err)
        return hs->err;
    while (n > 0) {
        if (hs->state >= ST_FAILED || (uint8_t)epoch != rules[hs->state].epoch)
            return fail(hs, E_UNEXPECTED);
        if (hs->hdr_have < 4) {
            size_t take = 4u - hs->hdr_have < n ? 4u - hs->hdr_have : n;
            memcpy(hs->hdr + hs->hdr_have, p, take);
            hs->hdr_have = (uint8_t)(hs->hdr_have + take);
            p += take;
            n -= take;
            if (hs->hdr_have < 4)
                break;
            if ((r = begin_message(hs)) < 0)
                return fail(hs, r);
        }
        size_t take = hs->msg_len - hs->msg_have < n ? hs->msg_len - hs->msg_have : n;
        switch (hs->msg_mode) {
        case MODE_COLLECT:
            memcpy(hs->msg + hs->msg_have, p, take);
            break;
        case MODE_STREAM:
            tls13_transcript_update(&hs->transcript, p, take);
            if (hs->msg_have < sizeof hs->msg) {
                size_t keep = sizeof hs->msg - hs->msg_have < take ? sizeof hs->msg - hs->msg_have : take;
                memcpy(hs->msg + hs->msg_have, p, keep);
            }
            if (hs->msg_type == HT_CERTIFICATE && (r = cert_walk(hs, p, take)) < 0)
                return fail(hs, r);
            if (hs->msg_type == HT_CERTIFICATE_REQUEST && (r = tls13_cr_feed(&hs->cr, p, take)) < 0)
                return fail(hs, r);
            break;
        default:
            break;
        }
        hs->msg_have += (uint32_t)take;
        p += take;
        n -= take;
        if (hs->msg_have < hs->msg_len)
            break;
        hs->hdr_have = 0;
        if ((r = end_message(hs)) < 0)
            return fail(hs, r);
        if (r == TLS13_HS_DONE)
            result = TLS13_HS_DONE;
        /* §5.1: "Handshake messages MUST NOT span key changes ...
         * KeyUpdate ... MUST [be sent] in alignment with a record
         * boundary": bytes behind a KeyUpdate in its record were sealed
         * under the key it retired. (The other key changes, after
         * ServerHello and Finished, move to another epoch, which the rules
         * above already refuse for leftovers.) */
        if (hs->msg_type == HT_KEY_UPDATE && n > 0)
            return fail(hs, E_UNEXPECTED);
    }
    return result;
}
