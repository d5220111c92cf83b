/* test/unit/unit_tls13_hs.c — the TLS 1.3 client handshake engine (tls13/handshake.c):
 *
 *  - RFC 8448-style traces (shared/rfc/tls13-traces.txt §3 and §5): the
 *    trace's own ClientHello(s) replayed through the test entry points
 *    (tls13/handshake_internal.h), the trace's server flight fed in; the
 *    secrets handed out and our Finished must be the trace's, byte for byte;
 *  - an in-test TLS 1.3 "server" (keysched.h + BearSSL EC) in loopback, for
 *    every suite and group, HelloRetryRequest with and without a cookie,
 *    CertificateRequest, QUIC mode; both sides must derive the same secrets;
 *  - every split of the server's flight (two pieces at every byte, one byte
 *    at a time, 7-byte chunks): identical callbacks and results;
 *  - protocol errors, each with its alert; post-handshake NewSessionTicket
 *    and KeyUpdate; ClientHello determinism, SNI and QUIC specifics;
 *  - thousands of mutated flights (fixed seed): clean errors, nothing else;
 *  - the TCP glue (tls13/conn.c) on records split inside their header.
 *
 * Every fragment fed to the engine is an exact-size heap copy, so under ASan
 * a read past what a feed delivered is caught. */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pss_verify.h"
#include "t.h"
#include "test/vectors/credentials.h"
#include "test/vectors/tls13_traces.h"
#include "tls13/cert_request.h"
#include "tls13/credentials.h"
#include "tls13/trust.h"
#include "tls13/verify.h"
#include "tls13/conn.h"
#include "tls13/handshake.h"
#include "tls13/handshake_internal.h"
#include "tls13/record.h"

/* ------------------------------------------------------------ trace vectors
 * Extracted from shared/rfc/tls13-traces.txt (values of that later run, not
 * the published RFC 8448's). t3_*: §3 Simple 1-RTT; t5_*: §5 HelloRetryRequest.
 * "flight" is the server's EncryptedExtensions .. Finished. */
/* t3_x25519_priv: 32 bytes */
static const char t3_x25519_priv[] =
    "70a1a8f491e82d530542c6d7a8dcd8cfa9e31f59bb336b550b13bfe199f542c5";
/* t3_x25519_pub: 32 bytes */
static const char t3_x25519_pub[] =
    "4cfdfcd178b784bf328cae793b136f2aedce005ff183d7bb1495207236647037";
/* t5_x25519_priv: 32 bytes */
static const char t5_x25519_priv[] =
    "cc5aa2f76f528752837cc51e60390e2d6d977a0183776fb7743a8d06786e7ab8";
/* t5_p256_priv: 32 bytes */
static const char t5_p256_priv[] =
    "137b20ef0ca19c55dc62fcb087dbdcde1503cbea087e99f6894c85efad647e4d";
/* t5_p256_pub: 65 bytes */
static const char t5_p256_pub[] =
    "04a8d6b4fc93bfb595d867814c45689f74708a33714a9340fe795d7958ef47fd"
    "56039baa382032f78d4c4bca4f24f65560b53b1c076be41bcc099856758545a8"
    "98";
/* t5_cfin: 36 bytes */
static const char t5_cfin[] =
    "140000200e1504631ac546cd682f3720266675959469403050825e5d14ae453b"
    "07384b31";

/* ------------------------------------------------------------ helpers */

#define E_UNEXPECTED (-10)
#define E_ILLEGAL (-47)
#define E_DECODE (-50)
#define E_DECRYPT (-51)
#define E_INTERNAL (-80)
#define E_MISSING_EXT (-109)
#define E_UNSUPPORTED_EXT (-110)
#define E_NO_APP_PROTOCOL (-120)

/* Where the engine takes its entropy from (handshake.h's order). */
#define ENT_RANDOM 0
#define ENT_SID 32
#define ENT_X25519 64
#define ENT_P256 96
#define ENT_P384 128

static const uint8_t hrr_random[32] = {
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};


static void fill_entropy(uint8_t *ent, uint32_t seed)
{
    uint64_t s = 0x243f6a8885a308d3ull ^ seed;
    for (size_t i = 0; i < TLS13_ENTROPY_LEN; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ent[i] = (uint8_t)(s >> 24);
    }
}


/* ------------------------------------------------------------ recorder
 * Every callback, in order, with its bytes: two runs are "the same" when
 * their recordings are. */
struct ev {
    char kind; /* 'e' emit, 's' secret */
    uint8_t epoch;
    bool write;
    uint16_t suite;
    size_t off, len;
};

struct rec {
    struct ev ev[64];
    size_t nev;
    uint8_t buf[32768];
    size_t used;
    bool overflow;
};

static void rec_add(struct rec *r, char kind, enum tls13_epoch e, bool write, uint16_t suite, const uint8_t *p,
                    size_t n)
{
    if (r->nev == sizeof r->ev / sizeof r->ev[0] || sizeof r->buf - r->used < n) {
        r->overflow = true;
        return;
    }
    r->ev[r->nev++] = (struct ev){kind, (uint8_t)e, write, suite, r->used, n};
    memcpy(r->buf + r->used, p, n);
    r->used += n;
}

static void rec_emit(void *ctx, enum tls13_epoch e, const uint8_t *p, size_t n)
{
    rec_add(ctx, 'e', e, false, 0, p, n);
}

static void rec_secret(void *ctx, enum tls13_epoch e, bool write, const struct tls13_suite *s, const uint8_t *secret)
{
    rec_add(ctx, 's', e, write, s->id, secret, tls13_hash_len(s->hash));
}

static const struct tls13_hs_callbacks rec_cb = {rec_emit, rec_secret};

static bool rec_equal(const struct rec *a, const struct rec *b)
{
    if (a->overflow || b->overflow || a->nev != b->nev || a->used != b->used)
        return false;
    for (size_t i = 0; i < a->nev; i++) {
        const struct ev *x = &a->ev[i], *y = &b->ev[i];
        if (x->kind != y->kind || x->epoch != y->epoch || x->write != y->write || x->suite != y->suite ||
            x->len != y->len || memcmp(a->buf + x->off, b->buf + y->off, x->len) != 0)
            return false;
    }
    return true;
}

/* The nth event of a kind at an epoch (write: -1 = any). */
static const struct ev *rec_find(const struct rec *r, char kind, enum tls13_epoch e, int write, int nth)
{
    for (size_t i = 0; i < r->nev; i++) {
        const struct ev *x = &r->ev[i];
        if (x->kind == kind && x->epoch == (uint8_t)e && (write < 0 || x->write == (write != 0)) && nth-- == 0)
            return x;
    }
    return NULL;
}

static bool ev_is(const struct rec *r, const struct ev *x, const uint8_t *p, size_t n)
{
    return x && x->len == n && memcmp(r->buf + x->off, p, n) == 0;
}

static bool ev_is_hex(const struct rec *r, const struct ev *x, const char *hex)
{
    uint8_t b[1024];
    size_t n = unhex(hex, b, sizeof b);
    return ev_is(r, x, b, n);
}

/* Feeds one fragment as an exact-size heap copy. */
static int feed(struct tls13_hs *hs, enum tls13_epoch e, const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (n)
        memcpy(c, p, n);
    int r = tls13_hs_input(hs, e, c, n);
    free(c);
    return r;
}

/* Feeds in chunks of `chunk` bytes (0: whole). Returns the first error, else
 * TLS13_HS_DONE if any piece returned it, else 0. */
static int feed_chunks(struct tls13_hs *hs, enum tls13_epoch e, const uint8_t *p, size_t n, size_t chunk)
{
    int res = 0;
    if (chunk == 0)
        chunk = n ? n : 1;
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        int r = feed(hs, e, p + off, k);
        if (r < 0)
            return r;
        if (r == TLS13_HS_DONE)
            res = r;
    }
    return res;
}

/* ------------------------------------------------------------ ClientHello parser (the test server's) */

struct ch_info {
    const uint8_t *random;
    uint8_t sid_len;
    const uint8_t *sid;
    int n_suites;
    uint16_t suites[8];
    int n_shares;
    uint16_t ks_group;
    const uint8_t *ks;
    size_t ks_len;
    const uint8_t *alpn; /* protocol_name_list body */
    size_t alpn_len;
    const uint8_t *sni;
    size_t sni_len;
    const uint8_t *cookie;
    size_t cookie_len;
    const uint8_t *tp;
    size_t tp_len;
    bool has_tp, has_sni, has_alpn, sv_13_only;
    int n_exts;
    uint16_t exts[32];
};

#define NEED(k)                           \
    do {                                  \
        if ((size_t)(end - p) < (size_t)(k)) \
            return false;                 \
    } while (0)

static bool parse_ch(const uint8_t *m, size_t n, struct ch_info *ci)
{
    const uint8_t *p = m, *end = m + n;
    memset(ci, 0, sizeof *ci);
    NEED(4);
    if (p[0] != 1 || (size_t)(p[1] << 16 | p[2] << 8 | p[3]) != n - 4)
        return false;
    p += 4;
    NEED(2 + 32 + 1);
    if (p[0] != 3 || p[1] != 3)
        return false;
    ci->random = p + 2;
    p += 34;
    ci->sid_len = *p++;
    NEED(ci->sid_len);
    ci->sid = p;
    p += ci->sid_len;
    NEED(2);
    size_t cs = (size_t)(p[0] << 8 | p[1]);
    p += 2;
    NEED(cs);
    for (size_t i = 0; i + 1 < cs && ci->n_suites < 8; i += 2)
        ci->suites[ci->n_suites++] = (uint16_t)(p[i] << 8 | p[i + 1]);
    p += cs;
    NEED(2);
    if (p[0] != 1 || p[1] != 0)
        return false;
    p += 2;
    NEED(2);
    size_t el = (size_t)(p[0] << 8 | p[1]);
    p += 2;
    if ((size_t)(end - p) != el)
        return false;
    while (p < end) {
        NEED(4);
        uint16_t t = (uint16_t)(p[0] << 8 | p[1]);
        size_t l = (size_t)(p[2] << 8 | p[3]);
        p += 4;
        NEED(l);
        const uint8_t *d = p;
        p += l;
        if (ci->n_exts < 32)
            ci->exts[ci->n_exts++] = t;
        if (t == 0) {
            /* list(2) type(1) len(2) name */
            if (l < 5 || d[2] != 0 || (size_t)(d[0] << 8 | d[1]) != l - 2 || (size_t)(d[3] << 8 | d[4]) != l - 5)
                return false;
            ci->has_sni = true;
            ci->sni = d + 5;
            ci->sni_len = l - 5;
        } else if (t == 16) {
            if (l < 2 || (size_t)(d[0] << 8 | d[1]) != l - 2)
                return false;
            ci->has_alpn = true;
            ci->alpn = d + 2;
            ci->alpn_len = l - 2;
        } else if (t == 43) {
            ci->sv_13_only = l == 3 && d[0] == 2 && d[1] == 3 && d[2] == 4;
        } else if (t == 44) {
            if (l < 2 || (size_t)(d[0] << 8 | d[1]) != l - 2)
                return false;
            ci->cookie = d + 2;
            ci->cookie_len = l - 2;
        } else if (t == 51) {
            if (l < 2 || (size_t)(d[0] << 8 | d[1]) != l - 2)
                return false;
            for (const uint8_t *q = d + 2; q < d + l;) {
                if (d + l - q < 4)
                    return false;
                size_t kl = (size_t)(q[2] << 8 | q[3]);
                if ((size_t)(d + l - q - 4) < kl)
                    return false;
                if (ci->n_shares++ == 0) {
                    ci->ks_group = (uint16_t)(q[0] << 8 | q[1]);
                    ci->ks = q + 4;
                    ci->ks_len = kl;
                }
                q += 4 + kl;
            }
        } else if (t == 57) {
            ci->has_tp = true;
            ci->tp = d;
            ci->tp_len = l;
        }
    }
    return true;
}

static bool ch_has_ext(const struct ch_info *ci, uint16_t t)
{
    for (int i = 0; i < ci->n_exts; i++)
        if (ci->exts[i] == t)
            return true;
    return false;
}

/* ------------------------------------------------------------ the test server
 * Just enough TLS 1.3 server to answer our ClientHello, built on keysched.h
 * and BearSSL's EC code: ServerHello (or HelloRetryRequest first), then
 * EncryptedExtensions, [CertificateRequest], Certificate (dummy bytes),
 * CertificateVerify (dummy bytes), Finished. */

struct srv_opts {
    uint16_t suite;         /* 0: TLS_AES_128_GCM_SHA256 */
    uint16_t hrr_group;     /* nonzero: HelloRetryRequest selecting it */
    size_t cookie_len;      /* nonzero: HelloRetryRequest carrying a cookie of this size */
    int alpn;               /* 0: pick the client's first, 1: none, 2: pick one not offered */
    bool cert_request;
    size_t cert_len;        /* 0: 300 */
    bool quic_tp;           /* EE carries transport parameters */
    bool bad_finished;
    bool sentinel_random;   /* a 1.3 ServerHello whose random ends in DOWNGRD\1 */
    const uint8_t *ee_extra; /* raw extensions appended to EE's block */
    size_t ee_extra_len;
    int cert_mode;          /* 1: empty list, 2: non-empty context, 3: entry overruns the list */
    bool cv_bad;            /* CertificateVerify's signature length off by one */
    const uint8_t *cr;      /* CertificateRequest body instead of one asking for rsa_pss_rsae_sha256 */
    size_t cr_len;
    /* A real server identity (tests of --cacert): its chain in Certificate
     * and a real CertificateVerify signature with scheme sig_scheme; cv_flip:
     * one byte of that signature flipped. */
    const struct tls13_credential *id;
    uint16_t sig_scheme;
    bool cv_flip;
};

struct srv {
    struct srv_opts o;
    const struct tls13_suite *suite;
    uint16_t group;
    struct tls13_transcript t;
    struct tls13_keysched ks;
    uint8_t hrr[1024];
    size_t hrr_len;
    uint8_t sh[512];
    size_t sh_len;
    uint8_t flight[65536];
    size_t flight_len;
    bool ok; /* every step went as planned */
};

static const uint8_t srv_x25519[32] = {0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c,
                                       0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
                                       0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61};
static const uint8_t srv_p256[32] = {0x1f, 0x2e, 0x3d, 0x4c, 0x5b, 0x6a, 0x79, 0x88, 0x97, 0xa6, 0xb5,
                                     0xc4, 0xd3, 0xe2, 0xf1, 0x00, 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a,
                                     0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0};
static const uint8_t srv_p384[48] = {0x2e, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
                                     0xcc, 0xdd, 0xee, 0xff, 0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78,
                                     0x89, 0x9a, 0xab, 0xbc, 0xcd, 0xde, 0xef, 0xf0, 0x02, 0x13, 0x24, 0x35,
                                     0x46, 0x57, 0x68, 0x79, 0x8a, 0x9b, 0xac, 0xbd, 0xce, 0xdf, 0xe0, 0xf1};

static const uint8_t *srv_priv(uint16_t group, size_t *len)
{
    if (group == 0x001d) {
        *len = 32;
        return srv_x25519;
    }
    if (group == 0x0017) {
        *len = 32;
        return srv_p256;
    }
    *len = 48;
    return srv_p384;
}

static size_t srv_pub(uint16_t group, uint8_t *out)
{
    size_t xl;
    const uint8_t *x = srv_priv(group, &xl);
    return br_ec_get_default()->mulgen(out, x, xl, group);
}

/* The server's view of the shared secret; 0 on a bad point. */
static size_t srv_shared(uint16_t group, const uint8_t *peer, size_t n, uint8_t *out)
{
    const br_ec_impl *ec = br_ec_get_default();
    uint8_t pt[97];
    size_t xl, off = 0, len = 32;
    const uint8_t *x = srv_priv(group, &xl);
    if (n > sizeof pt)
        return 0;
    memcpy(pt, peer, n);
    if (!ec->mul(pt, n, x, xl, group))
        return 0;
    if (group != 0x001d)
        off = ec->xoff(group, &len);
    memcpy(out, pt + off, len);
    return len;
}

static void srv_init(struct srv *s, const struct srv_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = *o;
    s->suite = tls13_suite_find(o->suite ? o->suite : 0x1301);
    s->ok = true;
    tls13_transcript_init(&s->t);
}

/* Appends a handshake message to buf and to the server transcript. */
static size_t put_msg(struct srv *s, uint8_t *buf, uint8_t type, const uint8_t *body, size_t n)
{
    buf[0] = type;
    be24(buf + 1, n);
    memcpy(buf + 4, body, n);
    tls13_transcript_update(&s->t, buf, 4 + n);
    return 4 + n;
}

/* ServerHello/HRR body: version, random, sid echo, suite, compression, exts. */
static size_t hello_body(uint8_t *b, const uint8_t *random, const struct ch_info *ci, uint16_t suite,
                         const uint8_t *exts, size_t exts_len)
{
    size_t n = 0;
    b[n++] = 3;
    b[n++] = 3;
    memcpy(b + n, random, 32);
    n += 32;
    b[n++] = ci->sid_len;
    memcpy(b + n, ci->sid, ci->sid_len);
    n += ci->sid_len;
    be16(b + n, suite);
    n += 2;
    b[n++] = 0;
    be16(b + n, exts_len);
    n += 2;
    memcpy(b + n, exts, exts_len);
    return n + exts_len;
}

static void srv_hello_retry(struct srv *s, const uint8_t *ch1, size_t n)
{
    struct ch_info ci;
    uint8_t exts[1024], body[1200];
    size_t e = 0;

    s->ok &= parse_ch(ch1, n, &ci);
    tls13_transcript_update(&s->t, ch1, n);
    tls13_transcript_hrr_reset(&s->t, s->suite->hash);
    memcpy(exts, "\x00\x2b\x00\x02\x03\x04", 6);
    e = 6;
    if (s->o.hrr_group) {
        memcpy(exts + e, "\x00\x33\x00\x02", 4);
        be16(exts + e + 4, s->o.hrr_group);
        e += 6;
    }
    if (s->o.cookie_len) {
        be16(exts + e, 44);
        be16(exts + e + 2, s->o.cookie_len + 2);
        be16(exts + e + 4, s->o.cookie_len);
        for (size_t i = 0; i < s->o.cookie_len; i++)
            exts[e + 6 + i] = (uint8_t)(0xc0 + i);
        e += 6 + s->o.cookie_len;
    }
    size_t bl = hello_body(body, hrr_random, &ci, s->suite->id, exts, e);
    s->hrr_len = put_msg(s, s->hrr, 2, body, bl);
}

/* Certificate with the identity's chain and a CertificateVerify signed
 * with its key over the transcript so far (RFC 8446 §4.4.2-4.4.3, the
 * server's side). */
static void srv_identity(struct srv *s)
{
    static const char label[] = "TLS 1.3, server CertificateVerify";
    const struct tls13_credential *c = s->o.id;
    uint8_t cert[8192], content[64 + sizeof label + 48], cv[4 + TLS13_CRED_SIG_MAX], salt[64];
    size_t at = 4;

    cert[0] = 0;
    for (size_t i = 0; i < c->chain_len; i++) {
        be24(cert + at, c->chain[i].data_len);
        memcpy(cert + at + 3, c->chain[i].data, c->chain[i].data_len);
        be16(cert + at + 3 + c->chain[i].data_len, 0);
        at += 3 + c->chain[i].data_len + 2;
    }
    be24(cert + 1, at - 4);
    s->flight_len += put_msg(s, s->flight + s->flight_len, 11, cert, at);

    size_t hl = tls13_hash_len(s->suite->hash);
    memset(content, 0x20, 64);
    memcpy(content + 64, label, sizeof label);
    tls13_transcript_hash(&s->t, s->suite->hash, content + 64 + sizeof label);
    memset(salt, 0x5c, sizeof salt);
    size_t sl = tls13_credential_sign(c, s->o.sig_scheme, content, 64 + sizeof label + hl, salt, cv + 4);
    s->ok &= sl > 0;
    be16(cv, s->o.sig_scheme);
    be16(cv + 2, sl);
    if (s->o.cv_flip)
        cv[4 + sl / 2] ^= 0x01;
    s->flight_len += put_msg(s, s->flight + s->flight_len, 15, cv, 4 + sl);
}

static void srv_server_hello(struct srv *s, const uint8_t *ch, size_t n)
{
    struct ch_info ci;
    uint8_t exts[256], body[512], pub[97], dhe[48], thash[48], random[32];

    s->ok &= parse_ch(ch, n, &ci);
    s->group = ci.ks_group;
    tls13_transcript_update(&s->t, ch, n);
    if (s->o.cookie_len && (ci.cookie_len != s->o.cookie_len || ci.cookie[0] != 0xc0))
        s->ok = false;
    size_t pl = srv_pub(s->group, pub);
    size_t e = 0;
    memcpy(exts, "\x00\x2b\x00\x02\x03\x04\x00\x33", 8);
    e = 8;
    be16(exts + e, 4 + pl);
    be16(exts + e + 2, s->group);
    be16(exts + e + 4, pl);
    memcpy(exts + e + 6, pub, pl);
    e += 6 + pl;
    for (int i = 0; i < 32; i++)
        random[i] = (uint8_t)(0xa0 + i);
    if (s->o.sentinel_random)
        memcpy(random + 24, "DOWNGRD\x01", 8);
    size_t bl = hello_body(body, random, &ci, s->suite->id, exts, e);
    s->sh_len = put_msg(s, s->sh, 2, body, bl);

    size_t dl = srv_shared(s->group, ci.ks, ci.ks_len, dhe);
    s->ok &= dl > 0;
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_ks_init(&s->ks, s->suite->hash);
    tls13_ks_handshake(&s->ks, dhe, dl, thash);

    /* EncryptedExtensions */
    uint8_t ee[4096];
    size_t x = 2;
    if (s->o.alpn != 1 && ci.has_alpn) {
        const uint8_t *name = ci.alpn + 1;
        size_t nl = ci.alpn[0];
        if (s->o.alpn == 2) {
            name = (const uint8_t *)"bogus/1";
            nl = 7;
        }
        be16(ee + x, 16);
        be16(ee + x + 2, nl + 3);
        be16(ee + x + 4, nl + 1);
        ee[x + 6] = (uint8_t)nl;
        memcpy(ee + x + 7, name, nl);
        x += 7 + nl;
    } else if (s->o.alpn == 2) { /* ALPN though the client sent none */
        memcpy(ee + x, "\x00\x10\x00\x05\x00\x03\x02h2", 9);
        x += 9;
    }
    if (s->o.quic_tp) {
        memcpy(ee + x, "\x00\x39\x00\x06\x01\x04\x80\x00\xea\x60", 10);
        x += 10;
    }
    if (s->o.ee_extra_len)
        memcpy(ee + x, s->o.ee_extra, s->o.ee_extra_len);
    x += s->o.ee_extra_len;
    be16(ee, x - 2);
    s->flight_len = put_msg(s, s->flight, 8, ee, x);

    if (s->o.cert_request) {
        static const uint8_t cr[] = {0, 0, 8, 0, 13, 0, 4, 0, 2, 8, 4};
        s->flight_len += put_msg(s, s->flight + s->flight_len, 13, s->o.cr ? s->o.cr : cr, s->o.cr ? s->o.cr_len : sizeof cr);
    }

    if (s->o.id) {
        srv_identity(s);
        goto finished;
    }
    /* Certificate: ctx 0, one entry of dummy DER-ish bytes, no extensions */
    size_t cl = s->o.cert_len ? s->o.cert_len : 300;
    uint8_t *cert = malloc(cl + 10);
    cert[0] = 0;
    be24(cert + 1, cl + 5);
    be24(cert + 4, cl);
    for (size_t i = 0; i < cl; i++)
        cert[7 + i] = (uint8_t)(0x30 + i * 7);
    be16(cert + 7 + cl, 0);
    size_t certn = cl + 9;
    if (s->o.cert_mode == 1) { /* certificate_list empty */
        be24(cert + 1, 0);
        certn = 4;
    } else if (s->o.cert_mode == 2) { /* certificate_request_context "x" */
        memmove(cert + 2, cert + 1, certn - 1);
        cert[0] = 1;
        cert[1] = 'x';
        certn++;
    } else if (s->o.cert_mode == 3) { /* cert_data claims more than the list holds */
        be24(cert + 4, cl + 3);
    }
    s->flight_len += put_msg(s, s->flight + s->flight_len, 11, cert, certn);
    free(cert);

    /* CertificateVerify: rsa_pss_rsae_sha256, 128 dummy bytes */
    uint8_t cv[132];
    cv[0] = 8;
    cv[1] = 4;
    be16(cv + 2, s->o.cv_bad ? 129 : 128);
    memset(cv + 4, 0x5a, 128);
    s->flight_len += put_msg(s, s->flight + s->flight_len, 15, cv, sizeof cv);

finished:
    /* Finished */
    size_t hl = tls13_hash_len(s->suite->hash);
    uint8_t vd[48];
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_finished(s->suite->hash, s->ks.server_hs, thash, vd);
    if (s->o.bad_finished)
        vd[hl - 1] ^= 1;
    s->flight_len += put_msg(s, s->flight + s->flight_len, 20, vd, hl);
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_ks_master(&s->ks, thash);
}

/* Checks the client's second flight ([empty Certificate,] Finished). */
static bool srv_check_client_flight(struct srv *s, const uint8_t *p, size_t n)
{
    uint8_t thash[48], vd[48];
    size_t hl = tls13_hash_len(s->suite->hash);
    if (s->o.cert_request) {
        static const uint8_t empty[8] = {11, 0, 0, 4, 0, 0, 0, 0};
        if (n < 8 || memcmp(p, empty, 8) != 0)
            return false;
        tls13_transcript_update(&s->t, p, 8);
        p += 8;
        n -= 8;
    }
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_finished(s->suite->hash, s->ks.client_hs, thash, vd);
    return n == 4 + hl && p[0] == 20 && p[1] == 0 && p[2] == 0 && p[3] == hl && memcmp(p + 4, vd, hl) == 0;
}

/* ------------------------------------------------------------ loopback driver */

struct run {
    struct tls13_hs hs;
    struct rec rec;
    struct srv srv;
    int start, hrr_r, sh_r, flight_r;
};

static const uint8_t alpn_h2_h11[] = "\x02h2\x08http/1.1";

static struct tls13_hs_config cfg_tcp(void)
{
    struct tls13_hs_config c = {.server_name = "example.test", .alpn = alpn_h2_h11, .alpn_len = sizeof alpn_h2_h11 - 1};
    return c;
}

static const uint8_t quic_tp_ours[] = {0x04, 0x04, 0x80, 0x10, 0x00, 0x00, 0x0f, 0x00};

/* on_ticket for the QUIC ticket checks: the ticket's max_early_data. */
static void quic_ticket_seen(void *ctx, const struct tls13_ticket *t) { *(uint32_t *)ctx = t->max_early_data; }

static struct tls13_hs_config cfg_quic(void)
{
    static const uint8_t h3[] = "\x02h3";
    struct tls13_hs_config c = {.server_name = "example.test", .alpn = h3, .alpn_len = 3, .quic = true,
                                .quic_params = quic_tp_ours, .quic_params_len = sizeof quic_tp_ours};
    return c;
}

/* Runs a whole handshake against the test server, feeding the server's
 * messages in chunks of `chunk` bytes (0: whole), the flight first cut in
 * two at `cut` (0: not). */
static void loopback(struct run *r, const struct tls13_hs_config *cfg, const uint8_t *ent, const struct srv_opts *o,
                     size_t chunk, size_t cut)
{
    memset(&r->rec, 0, sizeof r->rec);
    r->hrr_r = r->sh_r = r->flight_r = 0;
    srv_init(&r->srv, o);
    r->start = tls13_hs_start(&r->hs, cfg, ent, &rec_cb, &r->rec);
    const struct ev *ch = rec_find(&r->rec, 'e', TLS13_EPOCH_INITIAL, -1, 0);
    if (r->start < 0 || !ch) {
        r->srv.ok = false;
        return;
    }
    if (o->hrr_group || o->cookie_len) {
        srv_hello_retry(&r->srv, r->rec.buf + ch->off, ch->len);
        r->hrr_r = feed_chunks(&r->hs, TLS13_EPOCH_INITIAL, r->srv.hrr, r->srv.hrr_len, chunk);
        ch = rec_find(&r->rec, 'e', TLS13_EPOCH_INITIAL, -1, 1);
        if (r->hrr_r < 0 || !ch) {
            r->srv.ok = false;
            return;
        }
    }
    srv_server_hello(&r->srv, r->rec.buf + ch->off, ch->len);
    r->sh_r = feed_chunks(&r->hs, TLS13_EPOCH_INITIAL, r->srv.sh, r->srv.sh_len, chunk);
    if (r->sh_r < 0)
        return;
    if (cut == 0 || cut >= r->srv.flight_len) {
        r->flight_r = feed_chunks(&r->hs, TLS13_EPOCH_HANDSHAKE, r->srv.flight, r->srv.flight_len, chunk);
        return;
    }
    int a = feed_chunks(&r->hs, TLS13_EPOCH_HANDSHAKE, r->srv.flight, cut, chunk);
    if (a < 0) {
        r->flight_r = a;
        return;
    }
    int b = feed_chunks(&r->hs, TLS13_EPOCH_HANDSHAKE, r->srv.flight + cut, r->srv.flight_len - cut, chunk);
    r->flight_r = b < 0 ? b : (a == TLS13_HS_DONE || b == TLS13_HS_DONE) ? TLS13_HS_DONE : 0;
}

/* Both sides agree: four secrets, and the client's Finished verifies. */
static bool loopback_agrees(struct run *r)
{
    struct srv *s = &r->srv;
    size_t hl = tls13_hash_len(s->suite->hash);
    const struct ev *fin = rec_find(&r->rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0);
    return s->ok && r->flight_r == TLS13_HS_DONE &&
           ev_is(&r->rec, rec_find(&r->rec, 's', TLS13_EPOCH_HANDSHAKE, 0, 0), s->ks.server_hs, hl) &&
           ev_is(&r->rec, rec_find(&r->rec, 's', TLS13_EPOCH_HANDSHAKE, 1, 0), s->ks.client_hs, hl) &&
           ev_is(&r->rec, rec_find(&r->rec, 's', TLS13_EPOCH_APP, 0, 0), s->ks.server_app, hl) &&
           ev_is(&r->rec, rec_find(&r->rec, 's', TLS13_EPOCH_APP, 1, 0), s->ks.client_app, hl) && fin &&
           srv_check_client_flight(s, r->rec.buf + fin->off, fin->len);
}

/* ------------------------------------------------------------ trace §3: simple 1-RTT */

static struct tls13_hs_config cfg_trace(void)
{
    /* The trace's ClientHello offered server_name "server" (its EE answers
     * with an empty server_name), no ALPN. */
    struct tls13_hs_config c = {.server_name = "server"};
    return c;
}

static size_t hexbuf(const char *hex, uint8_t *out, size_t cap) { return unhex(hex, out, cap); }

/* Entropy for a trace: the ClientHello's random, its (empty) session id,
 * and the ephemeral private keys as the trace prints them. */
static void trace_entropy(uint8_t *ent, const char *ch_hex, const char *x25519_hex, const char *p256_hex)
{
    uint8_t ch[600];
    hexbuf(ch_hex, ch, sizeof ch);
    fill_entropy(ent, 7);
    memcpy(ent + ENT_RANDOM, ch + 6, 32);
    hexbuf(x25519_hex, ent + ENT_X25519, 32);
    if (p256_hex)
        hexbuf(p256_hex, ent + ENT_P256, 32);
}

/* One run of the §3 trace with the server's messages cut at the given
 * points of the concatenation SH || flight (each piece fed at its epoch). */
static int trace3_run(struct tls13_hs *hs, struct rec *rec, const size_t *cuts, size_t ncuts, size_t chunk)
{
    uint8_t ent[TLS13_ENTROPY_LEN], ch[256], sh[128], fl[1024];
    struct tls13_hs_config cfg = cfg_trace();
    size_t chn = hexbuf(S3_CH, ch, sizeof ch), shn = hexbuf(S3_SH, sh, sizeof sh), fln = hexbuf(S3_S_FLIGHT, fl, sizeof fl);
    int res = 0, r;

    trace_entropy(ent, S3_CH, t3_x25519_priv, NULL);
    memset(rec, 0, sizeof *rec);
    if ((r = tls13_hs_start_with_client_hello(hs, &cfg, ent, &rec_cb, rec, ch, chn)) < 0)
        return r;
    if ((r = feed_chunks(hs, TLS13_EPOCH_INITIAL, sh, shn, chunk)) < 0)
        return r;
    size_t at = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : fln;
        if ((r = feed_chunks(hs, TLS13_EPOCH_HANDSHAKE, fl + at, to - at, chunk)) < 0)
            return r;
        if (r == TLS13_HS_DONE)
            res = r;
        at = to;
    }
    return res;
}

static void test_trace_simple(void)
{
    static struct tls13_hs hs;
    static struct rec rec, ref;
    uint8_t ent[TLS13_ENTROPY_LEN], pub[32];

    /* Our own ClientHello from the trace's x25519 key carries the trace's
     * public key: RFC 7748 scalar byte order is handled. */
    trace_entropy(ent, S3_CH, t3_x25519_priv, NULL);
    struct tls13_hs_config cfg = cfg_trace();
    memset(&rec, 0, sizeof rec);
    int r = tls13_hs_start(&hs, &cfg, ent, &rec_cb, &rec);
    struct ch_info ci;
    const struct ev *ch = rec_find(&rec, 'e', TLS13_EPOCH_INITIAL, -1, 0);
    hexbuf(t3_x25519_pub, pub, sizeof pub);
    T_CHECK("trace3: our ClientHello's x25519 share is the trace's public key",
            r == 0 && ch && parse_ch(rec.buf + ch->off, ch->len, &ci) && ci.ks_group == 0x001d && ci.ks_len == 32 &&
                memcmp(ci.ks, pub, 32) == 0 && memcmp(ci.random, ent, 32) == 0,
            "r=%d", r);

    r = trace3_run(&hs, &rec, NULL, 0, 0);
    T_CHECK("trace3: handshake completes", r == TLS13_HS_DONE, "r=%d", r);
    T_CHECK("trace3: server handshake traffic secret",
            ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_HANDSHAKE, 0, 0), S3_S_HS), "mismatch");
    T_CHECK("trace3: client handshake traffic secret",
            ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_HANDSHAKE, 1, 0), S3_C_HS), "mismatch");
    T_CHECK("trace3: server application traffic secret",
            ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_APP, 0, 0), S3_S_AP), "mismatch");
    T_CHECK("trace3: client application traffic secret",
            ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_APP, 1, 0), S3_C_AP), "mismatch");
    T_CHECK("trace3: client Finished is the trace's, emitted at HANDSHAKE",
            ev_is_hex(&rec, rec_find(&rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0), S3_C_FINISHED_MSG) &&
                rec_find(&rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 1) == NULL,
            "mismatch");
    T_CHECK("trace3: ClientHello replayed at INITIAL", ev_is_hex(&rec, rec_find(&rec, 'e', TLS13_EPOCH_INITIAL, -1, 0), S3_CH),
            "mismatch");
    T_CHECK("trace3: no ALPN selected", tls13_hs_alpn(&hs)[0] == 0, "got %s", tls13_hs_alpn(&hs));

    /* Callback order (the TCP glue relies on it): INITIAL emit, HS read,
     * HS write, APP read, HANDSHAKE emit (Finished), APP write. */
    static const struct {
        char kind;
        uint8_t epoch;
        bool write;
    } order[] = {{'e', 0, false}, {'s', 2, false}, {'s', 2, true}, {'s', 3, false}, {'e', 2, false}, {'s', 3, true}};
    bool ord = rec.nev == 6;
    for (size_t i = 0; ord && i < 6; i++)
        ord = rec.ev[i].kind == order[i].kind && rec.ev[i].epoch == order[i].epoch &&
              (rec.ev[i].kind == 'e' || rec.ev[i].write == order[i].write);
    T_CHECK("trace3: callback order: CH, hs read, hs write, app read, emit Finished, app write", ord, "nev=%zu",
            rec.nev);

    /* The trace's NewSessionTicket, post-handshake: ignored, no callback. */
    uint8_t nst[256];
    size_t nn = hexbuf(S3_NST, nst, sizeof nst);
    size_t before = rec.nev;
    r = feed(&hs, TLS13_EPOCH_APP, nst, nn);
    T_CHECK("trace3: NewSessionTicket ignored", r == 0 && rec.nev == before, "r=%d", r);

    /* Every split. */
    ref = rec;
    bool ok = true;
    uint8_t fl[1024];
    size_t fln = hexbuf(S3_S_FLIGHT, fl, sizeof fl);
    for (size_t cut = 1; cut < fln; cut++) {
        r = trace3_run(&hs, &rec, &cut, 1, 0);
        r = r == TLS13_HS_DONE ? feed(&hs, TLS13_EPOCH_APP, nst, nn) : r;
        ok &= T_QUIET("trace3: split in two", r == 0 && rec_equal(&rec, &ref), "cut %zu r=%d", cut, r);
    }
    T_CHECK("trace3: flight split in two at every byte: identical callbacks", ok, "see above");
    r = trace3_run(&hs, &rec, NULL, 0, 1);
    ok = r == TLS13_HS_DONE && feed_chunks(&hs, TLS13_EPOCH_APP, nst, nn, 1) == 0 && rec_equal(&rec, &ref);
    T_CHECK("trace3: one byte at a time incl. NewSessionTicket: identical callbacks", ok, "differs");
    r = trace3_run(&hs, &rec, NULL, 0, 7);
    ok = r == TLS13_HS_DONE && feed_chunks(&hs, TLS13_EPOCH_APP, nst, nn, 7) == 0 && rec_equal(&rec, &ref);
    T_CHECK("trace3: 7-byte chunks: identical callbacks", ok, "r=%d", r);

    /* Bad Finished in the trace flight: last byte flipped. */
    {
        uint8_t chb[256], sh[128], bad[1024];
        size_t chn = hexbuf(S3_CH, chb, sizeof chb), shn = hexbuf(S3_SH, sh, sizeof sh);
        size_t bn = hexbuf(S3_S_FLIGHT, bad, sizeof bad);
        bad[bn - 1] ^= 0x80;
        memset(&rec, 0, sizeof rec);
        tls13_hs_start_with_client_hello(&hs, &cfg, ent, &rec_cb, &rec, chb, chn);
        feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
        r = feed(&hs, TLS13_EPOCH_HANDSHAKE, bad, bn);
        T_CHECK("trace3: flipped server Finished -> decrypt_error (-51)", r == E_DECRYPT, "r=%d", r);
        T_CHECK("trace3: no application secret, no Finished after a bad Finished",
                rec_find(&rec, 's', TLS13_EPOCH_APP, -1, 0) == NULL && rec_find(&rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0) == NULL,
                "leaked");
        r = feed(&hs, TLS13_EPOCH_HANDSHAKE, bad, 4);
        T_CHECK("trace3: error is sticky", r == E_DECRYPT, "r=%d", r);
    }
}

/* ------------------------------------------------------------ trace §5: HelloRetryRequest */

static void test_trace_hrr(void)
{
    static struct tls13_hs hs;
    static struct rec rec;
    uint8_t ent[TLS13_ENTROPY_LEN], ch1[256], ch2[600], hrr[256], sh[256], fl[1024], p256pub[65];
    struct tls13_hs_config cfg = cfg_trace();
    size_t ch1n = hexbuf(S5_CH1, ch1, sizeof ch1), ch2n = hexbuf(S5_CH2, ch2, sizeof ch2);
    size_t hrrn = hexbuf(S5_HRR, hrr, sizeof hrr), shn = hexbuf(S5_SH, sh, sizeof sh);
    size_t fln = hexbuf(S5_S_FLIGHT, fl, sizeof fl);
    int r;

    trace_entropy(ent, S5_CH1, t5_x25519_priv, t5_p256_priv);
    hexbuf(t5_p256_pub, p256pub, sizeof p256pub);

    /* (1) The trace's CH1, HRR, CH2 replayed: the transcript and secrets are
     * the trace's. */
    memset(&rec, 0, sizeof rec);
    r = tls13_hs_start_with_client_hello(&hs, &cfg, ent, &rec_cb, &rec, ch1, ch1n);
    tls13_hs_test_client_hello2(&hs, ch2, ch2n);
    int r1 = feed(&hs, TLS13_EPOCH_INITIAL, hrr, hrrn);
    T_CHECK("trace5: HelloRetryRequest accepted, ClientHello2 emitted at INITIAL",
            r == 0 && r1 == 0 && ev_is(&rec, rec_find(&rec, 'e', TLS13_EPOCH_INITIAL, -1, 1), ch2, ch2n), "r=%d r1=%d",
            r, r1);
    int r2 = feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    int r3 = feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln);
    T_CHECK("trace5: P-256 ServerHello and flight: handshake completes", r2 == 0 && r3 == TLS13_HS_DONE, "r2=%d r3=%d",
            r2, r3);
    T_CHECK("trace5: handshake traffic secrets are the trace's",
            ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_HANDSHAKE, 0, 0), S5_S_HS) &&
                ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_HANDSHAKE, 1, 0), S5_C_HS),
            "mismatch");
    T_CHECK("trace5: application traffic secrets are the trace's",
            ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_APP, 0, 0), S5_S_AP) &&
                ev_is_hex(&rec, rec_find(&rec, 's', TLS13_EPOCH_APP, 1, 0), S5_C_AP),
            "mismatch");
    T_CHECK("trace5: client Finished is the trace's", ev_is_hex(&rec, rec_find(&rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0), t5_cfin),
            "mismatch");

    /* Byte at a time and 7-byte chunks, same result. */
    struct rec ref;
    memcpy(&ref, &rec, sizeof ref);
    for (size_t chunk = 1; chunk <= 7; chunk += 6) {
        memset(&rec, 0, sizeof rec);
        tls13_hs_start_with_client_hello(&hs, &cfg, ent, &rec_cb, &rec, ch1, ch1n);
        tls13_hs_test_client_hello2(&hs, ch2, ch2n);
        r1 = feed_chunks(&hs, TLS13_EPOCH_INITIAL, hrr, hrrn, chunk);
        r2 = feed_chunks(&hs, TLS13_EPOCH_INITIAL, sh, shn, chunk);
        r3 = feed_chunks(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln, chunk);
        T_CHECK(chunk == 1 ? "trace5: one byte at a time: identical callbacks" : "trace5: 7-byte chunks: identical callbacks",
                r1 == 0 && r2 == 0 && r3 == TLS13_HS_DONE && rec_equal(&rec, &ref), "r=%d/%d/%d", r1, r2, r3);
    }

    /* (2) Our own ClientHello2 in answer to the trace's HRR: same random,
     * no session id (as CH1), the trace's P-256 public key as the one share,
     * the cookie echoed byte for byte. */
    memset(&rec, 0, sizeof rec);
    tls13_hs_start_with_client_hello(&hs, &cfg, ent, &rec_cb, &rec, ch1, ch1n);
    r1 = feed(&hs, TLS13_EPOCH_INITIAL, hrr, hrrn);
    const struct ev *e2 = rec_find(&rec, 'e', TLS13_EPOCH_INITIAL, -1, 1);
    struct ch_info ci;
    bool parsed = e2 && parse_ch(rec.buf + e2->off, e2->len, &ci);
    /* the trace's HRR cookie vector: after header(4) version(2) random(32)
     * sid(1) suite(2) compression(1) extensions length(2), the key_share
     * extension (6) and the cookie extension's header (4) */
    const uint8_t *hc = hrr + 4 + 2 + 32 + 1 + 2 + 1 + 2 + 6 + 4;
    size_t hcl = (size_t)(hc[0] << 8 | hc[1]);
    T_CHECK("trace5: our ClientHello2 has the trace's P-256 key and echoes the cookie",
            r1 == 0 && parsed && ci.n_shares == 1 && ci.ks_group == 0x0017 && ci.ks_len == 65 &&
                memcmp(ci.ks, p256pub, 65) == 0 && ci.cookie_len == hcl && memcmp(ci.cookie, hc + 2, hcl) == 0 &&
                memcmp(ci.random, ch1 + 6, 32) == 0 && ci.sid_len == 0,
            "r1=%d parsed=%d", r1, parsed);
}

/* ------------------------------------------------------------ loopback matrix */

static void test_loopback(void)
{
    static struct run r;
    uint8_t ent[TLS13_ENTROPY_LEN];
    static const uint16_t suites[] = {0x1301, 0x1302, 0x1303};
    static const struct {
        const char *name;
        uint16_t hrr;
        size_t cookie;
        uint16_t group; /* expected final group */
    } modes[] = {
        {"x25519", 0, 0, 0x001d},
        {"HRR to P-256", 0x0017, 0, 0x0017},
        {"HRR to P-384", 0x0018, 0, 0x0018},
        {"HRR to P-256 with a cookie", 0x0017, 100, 0x0017},
        {"HRR with a cookie only (x25519 kept)", 0, 200, 0x001d},
    };
    char name[160];
    struct tls13_hs_config cfg = cfg_tcp();

    fill_entropy(ent, 1);
    for (size_t i = 0; i < 3; i++) {
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            struct srv_opts o = {.suite = suites[i], .hrr_group = modes[m].hrr, .cookie_len = modes[m].cookie};
            loopback(&r, &cfg, ent, &o, 0, 0);
            snprintf(name, sizeof name, "loopback %04x %s: same secrets both sides, Finished verifies, ALPN h2",
                     suites[i], modes[m].name);
            T_CHECK(name,
                    loopback_agrees(&r) && r.srv.group == modes[m].group && strcmp(tls13_hs_alpn(&r.hs), "h2") == 0 &&
                        rec_find(&r.rec, 's', TLS13_EPOCH_HANDSHAKE, -1, 0)->suite == suites[i],
                    "start=%d hrr=%d sh=%d flight=%d srv.ok=%d group=%04x", r.start, r.hrr_r, r.sh_r, r.flight_r,
                    r.srv.ok, r.srv.group);
            /* What the report shows: the server's suite and group, our ALPN. */
            struct tls_negotiated got;
            tls13_hs_negotiated(&r.hs, &got);
            snprintf(name, sizeof name, "loopback %04x %s: tls13_hs_negotiated says what the server chose", suites[i],
                     modes[m].name);
            T_CHECK(name,
                    got.version == TLS_VERSION_13 && got.cipher == suites[i] && got.group == modes[m].group &&
                        !got.fallback && strcmp(got.alpn, "h2") == 0,
                    "version %04x cipher %04x group %04x alpn %s", got.version, got.cipher, got.group, got.alpn);
        }
    }

    /* CertificateRequest: an empty Certificate goes before our Finished, in
     * the same emit; the server's Finished check covers it. */
    struct srv_opts o = {.cert_request = true};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("loopback: CertificateRequest -> empty Certificate + Finished, verified by the server", loopback_agrees(&r),
            "flight=%d", r.flight_r);

    /* A 20 KB certificate streams past. */
    o = (struct srv_opts){.cert_len = 20000};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("loopback: 20 KB certificate streamed (never stored)", loopback_agrees(&r), "flight=%d", r.flight_r);
    o = (struct srv_opts){.cert_len = 20000, .suite = 0x1302};
    loopback(&r, &cfg, ent, &o, 1000, 0);
    T_CHECK("loopback: 20 KB certificate in 1000-byte pieces", loopback_agrees(&r), "flight=%d", r.flight_r);

    /* ALPN: the server picks none (TCP: fine, ""). */
    o = (struct srv_opts){.alpn = 1};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("loopback: server selects no ALPN -> done, alpn \"\"", loopback_agrees(&r) && tls13_hs_alpn(&r.hs)[0] == 0,
            "flight=%d", r.flight_r);
    /* ... and the second protocol offered. */
    {
        static const uint8_t alpn2[] = "\x08http/1.1\x02h2";
        struct tls13_hs_config c2 = cfg;
        c2.alpn = alpn2;
        c2.alpn_len = sizeof alpn2 - 1;
        o = (struct srv_opts){0};
        loopback(&r, &c2, ent, &o, 0, 0);
        T_CHECK("loopback: ALPN http/1.1 selected", loopback_agrees(&r) && strcmp(tls13_hs_alpn(&r.hs), "http/1.1") == 0,
                "alpn=%s", tls13_hs_alpn(&r.hs));
    }

    /* QUIC mode: transport parameters both ways, h3, no session id. */
    struct tls13_hs_config q = cfg_quic();
    for (int k = 0; k < 2; k++) {
        o = (struct srv_opts){.quic_tp = true, .hrr_group = k ? 0x0018 : 0, .suite = k ? 0x1303 : 0x1301};
        loopback(&r, &q, ent, &o, 0, 0);
        T_CHECK(k ? "loopback QUIC, HRR to P-384, ChaCha20: done, h3, peer transport parameters stored"
                  : "loopback QUIC x25519: done, h3, peer transport parameters stored",
                loopback_agrees(&r) && strcmp(tls13_hs_alpn(&r.hs), "h3") == 0 && r.hs.quic_params_peer_len == 6 &&
                    memcmp(r.hs.quic_params_peer, "\x01\x04\x80\x00\xea\x60", 6) == 0,
                "flight=%d", r.flight_r);
    }

    /* QUIC: a NewSessionTicket's early_data carries 0xffffffff or the
     * connection fails with PROTOCOL_VIOLATION (RFC 9001 §4.6.1), which
     * the engine says apart from an alert. */
    for (int k = 0; k < 2; k++) {
        static uint32_t got_max;
        struct tls13_resume res = {.on_ticket = quic_ticket_seen, .ctx = &got_max};
        struct tls13_hs_config q2 = cfg_quic();
        q2.resume = &res;
        got_max = 0;
        o = (struct srv_opts){.quic_tp = true};
        loopback(&r, &q2, ent, &o, 0, 0);
        uint32_t max = k ? 0xffffffffu : 0x4000;
        uint8_t nst[] = {4, 0, 0, 26, 0, 0, 0x0e, 0x10, 1, 2, 3, 4, 1, 0x55, 0, 4, 't', 'i', 'c', 'k',
                         0, 8, 0, 42, 0, 4, (uint8_t)(max >> 24), (uint8_t)(max >> 16), (uint8_t)(max >> 8),
                         (uint8_t)max};
        int rc = loopback_agrees(&r) ? tls13_hs_input(&r.hs, TLS13_EPOCH_APP, nst, sizeof nst) : -1;
        if (k == 0)
            T_CHECK("QUIC NewSessionTicket with early_data 0x4000: TLS13_ERR_QUIC_EARLY_DATA_SIZE (RFC 9001 §4.6.1)",
                    rc == TLS13_ERR_QUIC_EARLY_DATA_SIZE && got_max == 0, "rc=%d", rc);
        else
            T_CHECK("QUIC NewSessionTicket with early_data 0xffffffff: kept, 0-RTT allowed",
                    rc == 0 && got_max == 0xffffffffu, "rc=%d max=%u", rc, got_max);
    }

    /* The 1.3 ServerHello whose random happens to end in DOWNGRD\1 is not
     * a downgrade (RFC 8446 §4.1.3 checks ServerHellos "indicating TLS 1.2
     * or below"; supported_versions says 1.3 and the transcript covers the
     * random). */
    o = (struct srv_opts){.sentinel_random = true};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("loopback: TLS 1.3 ServerHello with a sentinel-looking random completes", loopback_agrees(&r), "sh=%d flight=%d",
            r.sh_r, r.flight_r);

    /* P-256/P-384 scalars from entropy that are >= n, or zero, still give
     * working keys (the engine maps them into [1, n)). */
    uint8_t ent2[TLS13_ENTROPY_LEN];
    memcpy(ent2, ent, sizeof ent2);
    memset(ent2 + ENT_P256, 0xff, 32);
    memset(ent2 + ENT_P384, 0x00, 48);
    o = (struct srv_opts){.hrr_group = 0x0017};
    loopback(&r, &cfg, ent2, &o, 0, 0);
    bool ok = loopback_agrees(&r);
    o = (struct srv_opts){.hrr_group = 0x0018};
    loopback(&r, &cfg, ent2, &o, 0, 0);
    T_CHECK("loopback: P-256 scalar of all ff and all-zero P-384 scalar still work", ok && loopback_agrees(&r),
            "flight=%d", r.flight_r);
}

/* Every split of the server's flight in loopback (HRR with cookie, P-256,
 * CertificateRequest, ALPN): identical callbacks and result. */
static void test_loopback_splits(void)
{
    static struct run r;
    static struct rec ref;
    uint8_t ent[TLS13_ENTROPY_LEN];
    struct tls13_hs_config cfg = cfg_tcp();
    struct srv_opts o = {.hrr_group = 0x0017, .cookie_len = 40, .cert_request = true, .suite = 0x1302};

    fill_entropy(ent, 2);
    loopback(&r, &cfg, ent, &o, 0, 0);
    bool ok = loopback_agrees(&r);
    T_CHECK("splits: reference run (HRR+cookie, P-256, CR, AES-256)", ok, "flight=%d", r.flight_r);
    ref = r.rec;
    size_t n = r.srv.flight_len;
    for (size_t cut = 1; cut < n; cut++) {
        loopback(&r, &cfg, ent, &o, 0, cut);
        ok &= T_QUIET("splits: in two", r.flight_r == TLS13_HS_DONE && rec_equal(&r.rec, &ref), "cut %zu: %d", cut,
                      r.flight_r);
    }
    T_CHECK("splits: flight cut in two at every byte: identical callbacks", ok, "see above");
    loopback(&r, &cfg, ent, &o, 1, 0);
    T_CHECK("splits: HRR, ServerHello and flight one byte at a time: identical", r.flight_r == TLS13_HS_DONE && rec_equal(&r.rec, &ref),
            "flight=%d", r.flight_r);
    loopback(&r, &cfg, ent, &o, 7, 0);
    T_CHECK("splits: 7-byte chunks: identical", r.flight_r == TLS13_HS_DONE && rec_equal(&r.rec, &ref), "flight=%d",
            r.flight_r);
}

/* ------------------------------------------------------------ ClientHello */

static bool contains(const uint8_t *h, size_t hn, const uint8_t *n, size_t nn)
{
    for (size_t i = 0; i + nn <= hn; i++)
        if (memcmp(h + i, n, nn) == 0)
            return true;
    return false;
}

static bool ch_of(struct tls13_hs *hs, struct rec *rec, const struct tls13_hs_config *cfg, const uint8_t *ent,
                  struct ch_info *ci, const uint8_t **bytes, size_t *len)
{
    memset(rec, 0, sizeof *rec);
    if (tls13_hs_start(hs, cfg, ent, &rec_cb, rec) != 0)
        return false;
    const struct ev *e = rec_find(rec, 'e', TLS13_EPOCH_INITIAL, -1, 0);
    if (!e || rec->nev != 1)
        return false;
    *bytes = rec->buf + e->off;
    *len = e->len;
    return parse_ch(*bytes, *len, ci);
}

static void test_client_hello(void)
{
    static struct tls13_hs hs;
    static struct rec ra, rb;
    uint8_t ent[TLS13_ENTROPY_LEN], ent2[TLS13_ENTROPY_LEN];
    struct ch_info ci, cj;
    const uint8_t *a, *b;
    size_t an, bn;
    struct tls13_hs_config cfg = cfg_tcp();

    fill_entropy(ent, 3);
    fill_entropy(ent2, 4);
    bool ok = ch_of(&hs, &ra, &cfg, ent, &ci, &a, &an) && ch_of(&hs, &rb, &cfg, ent, &cj, &b, &bn);
    T_CHECK("ClientHello: same entropy -> identical bytes", ok && an == bn && memcmp(a, b, an) == 0, "an=%zu bn=%zu", an,
            bn);
    ok = ch_of(&hs, &rb, &cfg, ent2, &cj, &b, &bn);
    T_CHECK("ClientHello: other entropy -> other random, session id, key", ok && memcmp(ci.random, cj.random, 32) != 0 &&
                                                                              memcmp(ci.ks, cj.ks, 32) != 0,
            "same?");
    ch_of(&hs, &ra, &cfg, ent, &ci, &a, &an);
    T_CHECK("ClientHello: random and 32-byte session id from entropy (TCP, RFC 8446 §D.4)",
            memcmp(ci.random, ent + ENT_RANDOM, 32) == 0 && ci.sid_len == 32 && memcmp(ci.sid, ent + ENT_SID, 32) == 0,
            "sid_len=%u", ci.sid_len);
    T_CHECK("ClientHello: suites 1301 1302 1303, TLS 1.3 only, one x25519 share",
            ci.n_suites == 3 && ci.suites[0] == 0x1301 && ci.suites[1] == 0x1302 && ci.suites[2] == 0x1303 &&
                ci.sv_13_only && ci.n_shares == 1 && ci.ks_group == 0x001d && ci.ks_len == 32,
            "suites=%d shares=%d", ci.n_suites, ci.n_shares);
    T_CHECK("ClientHello: SNI example.test, ALPN as configured, no cookie, no QUIC parameters",
            ci.has_sni && ci.sni_len == 12 && memcmp(ci.sni, "example.test", 12) == 0 && ci.has_alpn &&
                ci.alpn_len == cfg.alpn_len && memcmp(ci.alpn, cfg.alpn, cfg.alpn_len) == 0 && !ci.cookie && !ci.has_tp,
            "sni=%d alpn=%d", ci.has_sni, ci.has_alpn);
    /* The groups and signature algorithms, exactly. */
    static const uint8_t groups_ext[] = {0x00, 0x0a, 0x00, 0x08, 0x00, 0x06, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18};
    static const uint8_t sigalgs_ext[] = {0x00, 0x0d, 0x00, 0x1e, 0x00, 0x1c, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03,
                                          0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b,
                                          0x08, 0x07, 0x08, 0x08, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01};
    T_CHECK("ClientHello: supported_groups x25519, P-256, P-384; all signature algorithms",
            contains(a, an, groups_ext, sizeof groups_ext) && contains(a, an, sigalgs_ext, sizeof sigalgs_ext), "missing");
    T_CHECK("ClientHello: no psk_key_exchange_modes, no pre_shared_key, no early_data, no padding",
            !ch_has_ext(&ci, 45) && !ch_has_ext(&ci, 41) && !ch_has_ext(&ci, 42) && !ch_has_ext(&ci, 21), "present");

    struct tls13_hs_config c = cfg;
    c.server_name = NULL;
    ok = ch_of(&hs, &rb, &c, ent, &cj, &b, &bn);
    T_CHECK("ClientHello: SNI omitted when server_name is NULL", ok && !cj.has_sni && !ch_has_ext(&cj, 0), "present");
    c = cfg;
    c.alpn = NULL;
    c.alpn_len = 0;
    ok = ch_of(&hs, &rb, &c, ent, &cj, &b, &bn);
    T_CHECK("ClientHello: ALPN omitted when alpn_len is 0", ok && !cj.has_alpn, "present");

    struct tls13_hs_config q = cfg_quic();
    ok = ch_of(&hs, &rb, &q, ent, &cj, &b, &bn);
    T_CHECK("ClientHello QUIC: empty session id (RFC 9001 §8.4), quic_transport_parameters (0x39) as given",
            ok && cj.sid_len == 0 && cj.has_tp && cj.tp_len == sizeof quic_tp_ours &&
                memcmp(cj.tp, quic_tp_ours, sizeof quic_tp_ours) == 0,
            "sid=%u tp=%d", cj.sid_len, cj.has_tp);
    q.quic_params = NULL;
    q.quic_params_len = 0;
    ok = ch_of(&hs, &rb, &q, ent, &cj, &b, &bn);
    T_CHECK("ClientHello QUIC: empty transport parameters still sent as an empty 0x39", ok && cj.has_tp && cj.tp_len == 0,
            "tp=%d", cj.has_tp);

    /* Configurations that cannot be sent. */
    static const struct {
        const char *name;
        const char *sni;
        const char *alpn;
    } bad[] = {
        {"empty server_name", "", NULL},
        {"server_name of 256 bytes", "x", NULL},
        {"ALPN length overrunning", NULL, "\x05h2"},
        {"ALPN with an empty name", NULL, "\x02h2\x00"},
    };
    char longname[257];
    memset(longname, 'a', 256);
    longname[256] = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = cfg;
        c.server_name = i == 1 ? longname : bad[i].sni;
        if (bad[i].alpn) {
            c.alpn = (const uint8_t *)bad[i].alpn;
            c.alpn_len = i == 3 ? 4 : strlen(bad[i].alpn);
        }
        memset(&ra, 0, sizeof ra);
        int r = tls13_hs_start(&hs, &c, ent, &rec_cb, &ra);
        int r2 = tls13_hs_input(&hs, TLS13_EPOCH_INITIAL, (const uint8_t *)"\x02", 1);
        char name[128];
        snprintf(name, sizeof name, "ClientHello: %s -> internal_error, nothing emitted, sticky", bad[i].name);
        T_CHECK(name, r == E_INTERNAL && ra.nev == 0 && r2 == E_INTERNAL, "r=%d nev=%zu r2=%d", r, ra.nev, r2);
    }
}

/* ------------------------------------------------------------ protocol errors */

/* A ServerHello (or HRR) built field by field. */
struct sh_spec {
    uint16_t version;
    uint8_t random[32];
    int sid_mode; /* 0 echo, 1 echo with a byte flipped, 2 33 bytes */
    uint16_t suite;
    uint8_t comp;
    bool no_exts; /* TLS 1.2 style: no extensions field at all */
    uint8_t exts[2048];
    size_t exts_len;
    int exts_len_delta; /* added to the block's length field */
};

static void spec_init(struct sh_spec *sp, bool hrr)
{
    memset(sp, 0, sizeof *sp);
    sp->version = 0x0303;
    sp->suite = 0x1301;
    for (int i = 0; i < 32; i++)
        sp->random[i] = (uint8_t)(0x10 + i);
    if (hrr)
        memcpy(sp->random, hrr_random, 32);
}

static void spec_ext(struct sh_spec *sp, uint16_t type, const void *d, size_t n)
{
    be16(sp->exts + sp->exts_len, type);
    be16(sp->exts + sp->exts_len + 2, n);
    memcpy(sp->exts + sp->exts_len + 4, d, n);
    sp->exts_len += 4 + n;
}

static void spec_sv(struct sh_spec *sp, uint16_t v)
{
    uint8_t b[2];
    be16(b, v);
    spec_ext(sp, 43, b, 2);
}

/* key_share with the test server's share for a group. */
static void spec_ks(struct sh_spec *sp, uint16_t group)
{
    uint8_t b[128];
    be16(b, group);
    size_t n = srv_pub(group, b + 4);
    be16(b + 2, n);
    spec_ext(sp, 51, b, 4 + n);
}

static size_t spec_build(const struct sh_spec *sp, const struct ch_info *ci, uint8_t *out)
{
    size_t n = 4;
    be16(out + n, sp->version);
    n += 2;
    memcpy(out + n, sp->random, 32);
    n += 32;
    if (sp->sid_mode == 2) {
        out[n++] = 33;
        memset(out + n, 0x33, 33);
        n += 33;
    } else {
        out[n++] = ci->sid_len;
        memcpy(out + n, ci->sid, ci->sid_len);
        if (sp->sid_mode == 1)
            out[n] ^= 1;
        n += ci->sid_len;
    }
    be16(out + n, sp->suite);
    n += 2;
    out[n++] = sp->comp;
    if (!sp->no_exts) {
        be16(out + n, (size_t)((int)sp->exts_len + sp->exts_len_delta));
        n += 2;
        memcpy(out + n, sp->exts, sp->exts_len);
        n += sp->exts_len;
    }
    out[0] = 2;
    be24(out + 1, n - 4);
    return n;
}

/* A fresh client (TCP config, fixed entropy) and its ClientHello. */
static void client_start(struct tls13_hs *hs, struct rec *rec, const struct tls13_hs_config *cfg, struct ch_info *ci)
{
    uint8_t ent[TLS13_ENTROPY_LEN];
    fill_entropy(ent, 5);
    memset(rec, 0, sizeof *rec);
    tls13_hs_start(hs, cfg, ent, &rec_cb, rec);
    const struct ev *e = rec_find(rec, 'e', TLS13_EPOCH_INITIAL, -1, 0);
    parse_ch(rec->buf + e->off, e->len, ci);
}

/* Feeds one crafted ServerHello to a fresh client of config cfg; returns
 * the result. */
static int try_sh_with(const struct sh_spec *sp, const struct tls13_hs_config *cfg)
{
    static struct tls13_hs hs;
    static struct rec rec;
    struct ch_info ci;
    uint8_t sh[2200];
    client_start(&hs, &rec, cfg, &ci);
    size_t n = spec_build(sp, &ci, sh);
    return feed(&hs, TLS13_EPOCH_INITIAL, sh, n);
}

static int try_sh(const struct sh_spec *sp)
{
    struct tls13_hs_config cfg = cfg_tcp();
    return try_sh_with(sp, &cfg);
}

/* HRR (spec) then ServerHello (spec2, NULL: none) to a client of config
 * cfg: the result of the last feed. */
static int try_hrr_with(const struct sh_spec *hrr, const struct sh_spec *sh2, const struct tls13_hs_config *cfg)
{
    static struct tls13_hs hs;
    static struct rec rec;
    struct ch_info ci;
    uint8_t b[2200];
    client_start(&hs, &rec, cfg, &ci);
    int r = feed(&hs, TLS13_EPOCH_INITIAL, b, spec_build(hrr, &ci, b));
    if (r < 0 || !sh2)
        return r;
    return feed(&hs, TLS13_EPOCH_INITIAL, b, spec_build(sh2, &ci, b));
}

static int try_hrr(const struct sh_spec *hrr, const struct sh_spec *sh2, bool quic)
{
    struct tls13_hs_config cfg = quic ? cfg_quic() : cfg_tcp();
    return try_hrr_with(hrr, sh2, &cfg);
}

static void check_sh(const char *name, const struct sh_spec *sp, int want)
{
    int r = try_sh(sp);
    T_CHECK(name, r == want, "got %d want %d", r, want);
}

static void test_server_hello_errors(void)
{
    struct sh_spec sp;

    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    check_sh("SH: well-formed -> in progress", &sp, 0);
    sp.sid_mode = 1;
    check_sh("SH: legacy_session_id_echo differs -> illegal_parameter (§4.1.3)", &sp, E_ILLEGAL);
    sp.sid_mode = 2;
    check_sh("SH: legacy_session_id_echo of 33 bytes -> decode_error", &sp, E_DECODE);
    sp.sid_mode = 0;
    sp.suite = 0x1304;
    check_sh("SH: TLS_AES_128_CCM_SHA256 (not offered) -> illegal_parameter (§4.1.3)", &sp, E_ILLEGAL);
    sp.suite = 0xc02f;
    check_sh("SH: a TLS 1.2 suite with supported_versions 1.3 -> illegal_parameter", &sp, E_ILLEGAL);
    sp.suite = 0x1301;
    sp.comp = 1;
    check_sh("SH: compression method 1 -> illegal_parameter (§4.1.3)", &sp, E_ILLEGAL);
    sp.comp = 0;
    sp.version = 0x0301;
    check_sh("SH: legacy_version ignored once supported_versions says 1.3 (§4.2.1)", &sp, 0);

    /* Version negotiation and downgrade (§4.1.3, §4.2.1). */
    spec_init(&sp, false);
    sp.no_exts = true;
    check_sh("SH: TLS 1.2 ServerHello without extensions -> fallback to TLS 1.2", &sp, TLS13_ERR_FALLBACK_TLS12);
    spec_init(&sp, false);
    spec_ext(&sp, 0xff01, "\x00", 1);
    spec_ext(&sp, 0x000b, "\x01\x00", 2);
    check_sh("SH: TLS 1.2 ServerHello with 1.2 extensions -> fallback to TLS 1.2", &sp, TLS13_ERR_FALLBACK_TLS12);
    spec_init(&sp, false);
    sp.version = 0x0302;
    sp.no_exts = true;
    check_sh("SH: TLS 1.1 ServerHello -> fallback (the 1.2 engine decides)", &sp, TLS13_ERR_FALLBACK_TLS12);
    spec_init(&sp, false);
    sp.no_exts = true;
    memcpy(sp.random + 24, "DOWNGRD\x01", 8);
    check_sh("SH: TLS 1.2 with the DOWNGRD\\1 sentinel -> illegal_parameter, no fallback (§4.1.3)", &sp, E_ILLEGAL);
    sp.random[31] = 0;
    check_sh("SH: TLS 1.1 with the DOWNGRD\\0 sentinel -> illegal_parameter (§4.1.3)", &sp, E_ILLEGAL);
    sp.random[31] = 2;
    check_sh("SH: DOWNGRD\\2 is no sentinel -> fallback", &sp, TLS13_ERR_FALLBACK_TLS12);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0303);
    spec_ks(&sp, 0x001d);
    check_sh("SH: supported_versions 0x0303 -> illegal_parameter (§4.2.1)", &sp, E_ILLEGAL);
    spec_init(&sp, false);
    spec_ext(&sp, 43, "\x03\x04\x00", 3);
    spec_ks(&sp, 0x001d);
    check_sh("SH: supported_versions of 3 bytes -> decode_error", &sp, E_DECODE);

    /* key_share (§4.2.8) */
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    check_sh("SH: no key_share (no PSK offered) -> missing_extension", &sp, E_MISSING_EXT);
    spec_ks(&sp, 0x0017);
    check_sh("SH: P-256 share when we offered x25519 -> illegal_parameter (§4.2.8)", &sp, E_ILLEGAL);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    {
        uint8_t ks[40] = {0x00, 0x1d, 0x00, 0x1f};
        memset(ks + 4, 0x09, 31);
        spec_ext(&sp, 51, ks, 35);
        check_sh("SH: x25519 share of 31 bytes -> illegal_parameter", &sp, E_ILLEGAL);
        spec_init(&sp, false);
        spec_sv(&sp, 0x0304);
        ks[3] = 0x20;
        memset(ks + 4, 0, 32);
        spec_ext(&sp, 51, ks, 36);
        check_sh("SH: x25519 share 0 (all-zero shared secret) -> illegal_parameter (§7.4.2)", &sp, E_ILLEGAL);
        spec_init(&sp, false);
        spec_sv(&sp, 0x0304);
        ks[3] = 0x21;
        spec_ext(&sp, 51, ks, 36);
        check_sh("SH: key_exchange length overruns the extension -> decode_error", &sp, E_DECODE);
    }

    /* Extension framing and rules (§4.2). */
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    spec_sv(&sp, 0x0304);
    check_sh("SH: supported_versions twice -> illegal_parameter (§4.2 duplicates)", &sp, E_ILLEGAL);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    spec_ext(&sp, 0x7a7a, "", 0);
    spec_ext(&sp, 0x7a7a, "", 0);
    check_sh("SH: an unknown extension twice -> illegal_parameter", &sp, E_ILLEGAL);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    spec_ext(&sp, 0x7a7a, "abc", 3);
    check_sh("SH: an unknown extension is ignored", &sp, 0);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    sp.exts_len_delta = 1;
    check_sh("SH: extensions block longer than the message -> decode_error", &sp, E_DECODE);
    sp.exts_len_delta = -1;
    check_sh("SH: extensions block shorter than the message -> decode_error", &sp, E_DECODE);
    sp.exts_len_delta = 0;
    sp.exts[3] = 3; /* supported_versions data length 2 -> 3: overruns into key_share */
    check_sh("SH: one extension's length overruns the next -> decode_error", &sp, E_DECODE);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    spec_ext(&sp, 44, "\x00\x01\x01", 3);
    check_sh("SH: cookie in a ServerHello -> illegal_parameter (§4.2 table)", &sp, E_ILLEGAL);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    spec_ext(&sp, 16, "\x00\x03\x02h2", 5);
    check_sh("SH: ALPN in a ServerHello -> illegal_parameter (§4.2 table)", &sp, E_ILLEGAL);
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x001d);
    spec_ext(&sp, 41, "\x00\x00", 2);
    check_sh("SH: pre_shared_key we never offered -> unsupported_extension (§4.2)", &sp, E_UNSUPPORTED_EXT);

    /* HelloRetryRequest (§4.1.4, §4.2.8, §4.2.2) */
    struct sh_spec h, s2;
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 51, "\x00\x17", 2);
    T_CHECK("HRR: selecting P-256 -> ClientHello2", try_hrr(&h, NULL, false) == 0, "fail");
    T_CHECK("HRR: a second HelloRetryRequest -> unexpected_message (§4.1.4)", try_hrr(&h, &h, false) == E_UNEXPECTED,
            "fail");
    spec_init(&s2, false);
    spec_sv(&s2, 0x0304);
    spec_ks(&s2, 0x0017);
    T_CHECK("HRR: then a P-256 ServerHello -> in progress", try_hrr(&h, &s2, false) == 0, "fail");
    s2.suite = 0x1302;
    T_CHECK("HRR: ServerHello suite differs from the HRR's -> illegal_parameter (§4.1.4)",
            try_hrr(&h, &s2, false) == E_ILLEGAL, "fail");
    spec_init(&s2, false);
    spec_sv(&s2, 0x0304);
    spec_ks(&s2, 0x001d);
    T_CHECK("HRR: ServerHello share in x25519, not the selected group -> illegal_parameter (§4.2.8)",
            try_hrr(&h, &s2, false) == E_ILLEGAL, "fail");
    {
        uint8_t bad[80] = {0x00, 0x17, 0x00, 0x41};
        srv_pub(0x0017, bad + 4);
        bad[4 + 64] ^= 1; /* y no longer on the curve */
        spec_init(&s2, false);
        spec_sv(&s2, 0x0304);
        spec_ext(&s2, 51, bad, 69);
        T_CHECK("HRR: P-256 share off the curve -> illegal_parameter", try_hrr(&h, &s2, false) == E_ILLEGAL, "fail");
        srv_pub(0x0017, bad + 4);
        bad[4] = 0x03;
        spec_init(&s2, false);
        spec_sv(&s2, 0x0304);
        spec_ext(&s2, 51, bad, 69);
        T_CHECK("HRR: P-256 share not uncompressed (§4.2.8.2) -> illegal_parameter", try_hrr(&h, &s2, false) == E_ILLEGAL,
                "fail");
    }
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 51, "\x00\x1d", 2);
    T_CHECK("HRR: selecting x25519, whose share we sent -> illegal_parameter (§4.2.8)",
            try_hrr(&h, NULL, false) == E_ILLEGAL, "fail");
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 51, "\x00\x19", 2);
    T_CHECK("HRR: selecting secp521r1 (not offered) -> illegal_parameter (§4.2.8)", try_hrr(&h, NULL, false) == E_ILLEGAL,
            "fail");
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 51, "\x00\x17\x00", 3);
    T_CHECK("HRR: key_share of 3 bytes -> decode_error", try_hrr(&h, NULL, false) == E_DECODE, "fail");
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    T_CHECK("HRR: nothing to change -> illegal_parameter (§4.1.4)", try_hrr(&h, NULL, false) == E_ILLEGAL, "fail");
    spec_init(&h, true);
    spec_ext(&h, 51, "\x00\x17", 2);
    T_CHECK("HRR: without supported_versions -> missing_extension", try_hrr(&h, NULL, false) == E_MISSING_EXT, "fail");
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 44, "\x00\x00", 2);
    T_CHECK("HRR: empty cookie (cookie<1..2^16-1>) -> decode_error", try_hrr(&h, NULL, false) == E_DECODE, "fail");
    {
        uint8_t ck[602];
        be16(ck, 600);
        memset(ck + 2, 0xcc, 600);
        spec_init(&h, true);
        spec_sv(&h, 0x0304);
        spec_ext(&h, 44, ck, sizeof ck);
        T_CHECK("HRR: 600-byte cookie (beyond our 512) -> internal_error", try_hrr(&h, NULL, false) == E_INTERNAL, "fail");
    }
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 51, "\x00\x17", 2);
    spec_ext(&h, 16, "\x00\x03\x02h2", 5);
    T_CHECK("HRR: ALPN in a HelloRetryRequest -> illegal_parameter (§4.2 table)", try_hrr(&h, NULL, false) == E_ILLEGAL,
            "fail");
    spec_init(&h, true);
    spec_sv(&h, 0x0304);
    spec_ext(&h, 51, "\x00\x18", 2);
    T_CHECK("HRR in QUIC mode: P-384 -> ClientHello2", try_hrr(&h, NULL, true) == 0, "fail");
    h.suite = 0x1304;
    T_CHECK("HRR: unoffered suite -> illegal_parameter", try_hrr(&h, NULL, false) == E_ILLEGAL, "fail");
}

/* Errors in the encrypted flight, via the test server's options. */
static void check_flight(const char *name, const struct tls13_hs_config *cfg, const struct srv_opts *o, int want)
{
    static struct run r;
    uint8_t ent[TLS13_ENTROPY_LEN];
    fill_entropy(ent, 6);
    loopback(&r, cfg, ent, o, 0, 0);
    int got = r.sh_r < 0 ? r.sh_r : r.flight_r;
    T_CHECK(name, got == want && (want >= 0 || rec_find(&r.rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0) == NULL), "got %d want %d",
            got, want);
}

static void test_flight_errors(void)
{
    struct tls13_hs_config tcp = cfg_tcp(), quic = cfg_quic(), noalpn = cfg_tcp();
    noalpn.alpn = NULL;
    noalpn.alpn_len = 0;

    check_flight("flight: server Finished wrong -> decrypt_error (§4.4.4)", &tcp, &(struct srv_opts){.bad_finished = true},
                 E_DECRYPT);
    check_flight("flight: ALPN when we offered none -> unsupported_extension (§4.2)", &noalpn,
                 &(struct srv_opts){.alpn = 2}, E_UNSUPPORTED_EXT);
    check_flight("flight: ALPN protocol we did not offer -> illegal_parameter", &tcp, &(struct srv_opts){.alpn = 2},
                 E_ILLEGAL);
    check_flight("flight: EE extension overruns its block -> decode_error", &tcp,
                 &(struct srv_opts){.ee_extra = (const uint8_t *)"\x00\x00\x00\x05\x00\x03\x02h", .ee_extra_len = 8},
                 E_DECODE);
    check_flight("flight: EE server_name twice -> illegal_parameter (duplicate)", &tcp,
                 &(struct srv_opts){.ee_extra = (const uint8_t *)"\x00\x00\x00\x00\x00\x00\x00\x00", .ee_extra_len = 8},
                 E_ILLEGAL);
    check_flight("flight: EE key_share -> illegal_parameter (§4.2 table)", &tcp,
                 &(struct srv_opts){.ee_extra = (const uint8_t *)"\x00\x33\x00\x02\x00\x1d", .ee_extra_len = 6},
                 E_ILLEGAL);
    check_flight("flight: EE supported_versions -> illegal_parameter (§4.2 table)", &tcp,
                 &(struct srv_opts){.ee_extra = (const uint8_t *)"\x00\x2b\x00\x02\x03\x04", .ee_extra_len = 6},
                 E_ILLEGAL);
    check_flight("flight: EE early_data we never offered -> unsupported_extension", &tcp,
                 &(struct srv_opts){.ee_extra = (const uint8_t *)"\x00\x2a\x00\x00", .ee_extra_len = 4},
                 E_UNSUPPORTED_EXT);
    check_flight("flight: EE unknown extension and record_size_limit ignored", &tcp,
                 &(struct srv_opts){.ee_extra = (const uint8_t *)"\x7a\x7a\x00\x01\x00\x00\x1c\x00\x02\x40\x01",
                                    .ee_extra_len = 11},
                 TLS13_HS_DONE);
    check_flight("flight: EE quic_transport_parameters over TCP -> unsupported_extension", &tcp,
                 &(struct srv_opts){.quic_tp = true}, E_UNSUPPORTED_EXT);
    {
        struct tls13_hs_config one = cfg_tcp();
        one.alpn = (const uint8_t *)"\x02h2";
        one.alpn_len = 3;
        check_flight("flight: ALPN response with two names -> decode_error (RFC 7301 §3.1)", &one,
                     &(struct srv_opts){.alpn = 1,
                                        .ee_extra = (const uint8_t *)"\x00\x10\x00\x08\x00\x06\x02h2\x02h2",
                                        .ee_extra_len = 12},
                     E_DECODE);
    }
    check_flight("flight QUIC: no quic_transport_parameters -> missing_extension (RFC 9001 §8.2)", &quic,
                 &(struct srv_opts){0}, E_MISSING_EXT);
    check_flight("flight QUIC: no ALPN selected -> no_application_protocol (RFC 9001 §8.1)", &quic,
                 &(struct srv_opts){.quic_tp = true, .alpn = 1}, E_NO_APP_PROTOCOL);
    check_flight("flight: empty certificate_list -> decode_error (§4.4.2.4)", &tcp, &(struct srv_opts){.cert_mode = 1},
                 E_DECODE);
    check_flight("flight: Certificate with a request context -> illegal_parameter (§4.4.2)", &tcp,
                 &(struct srv_opts){.cert_mode = 2}, E_ILLEGAL);
    check_flight("flight: certificate entry overruns the list -> decode_error", &tcp, &(struct srv_opts){.cert_mode = 3},
                 E_DECODE);
    check_flight("flight: CertificateVerify signature length wrong -> decode_error", &tcp,
                 &(struct srv_opts){.cv_bad = true}, E_DECODE);
}

/* Messages at the wrong epoch or in the wrong order (§4, §5.1). */
static void test_epochs(void)
{
    static struct run r;
    uint8_t ent[TLS13_ENTROPY_LEN];
    struct tls13_hs_config cfg = cfg_tcp();
    struct srv_opts o = {0};
    int res;
    fill_entropy(ent, 8);

    /* One reference handshake to get a valid ServerHello and flight. */
    loopback(&r, &cfg, ent, &o, 0, 0);
    static uint8_t sh[512], fl[4096];
    size_t shn = r.srv.sh_len, fln = r.srv.flight_len;
    memcpy(sh, r.srv.sh, shn);
    memcpy(fl, r.srv.flight, fln);
    static struct tls13_hs hs;
    static struct rec rec;

#define FRESH()                                                 \
    do {                                                        \
        memset(&rec, 0, sizeof rec);                            \
        tls13_hs_start(&hs, &cfg, ent, &rec_cb, &rec);          \
    } while (0)

    FRESH();
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, sh, shn);
    T_CHECK("epoch: ServerHello at HANDSHAKE -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    res = feed(&hs, TLS13_EPOCH_APP, fl + fln - 36, 36);
    T_CHECK("epoch: Finished at APP before anything -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    res = feed(&hs, TLS13_EPOCH_INITIAL, fl, fln);
    T_CHECK("epoch: EncryptedExtensions before ServerHello -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    {
        static uint8_t both[4608];
        memcpy(both, sh, shn);
        memcpy(both + shn, fl, fln);
        FRESH();
        res = feed(&hs, TLS13_EPOCH_INITIAL, both, shn + fln);
        T_CHECK("epoch: ServerHello + EE in one INITIAL input -> unexpected_message (§5.1)", res == E_UNEXPECTED,
                "got %d", res);
    }
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, 10);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, sh + 10, shn - 10);
    T_CHECK("epoch: ServerHello split across an epoch change -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, (const uint8_t *)"\x18\x00\x00\x01\x00", 5);
    T_CHECK("epoch: KeyUpdate before Finished -> unexpected_message (§4.6.3)", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, (const uint8_t *)"\x04\x00\x00\x00", 4);
    T_CHECK("epoch: NewSessionTicket during the handshake -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    res = feed(&hs, TLS13_EPOCH_APP, fl, fln);
    T_CHECK("epoch: flight at APP -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    res = feed(&hs, TLS13_EPOCH_INITIAL, fl, fln);
    T_CHECK("epoch: flight at INITIAL after ServerHello -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, (const uint8_t *)"\x63\x00\x00\x00", 4);
    T_CHECK("order: unknown message type 99 -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    res = feed(&hs, TLS13_EPOCH_INITIAL, (const uint8_t *)"\x01\x00\x00\x00", 4);
    T_CHECK("order: a ClientHello from the server -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    /* skip EE: Certificate first */
    size_t eelen = 4 + (size_t)(fl[1] << 16 | fl[2] << 8 | fl[3]);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, fl + eelen, fln - eelen);
    T_CHECK("order: Certificate without EncryptedExtensions -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    /* EE then Finished directly (no Certificate: PSK-only flow we never asked for) */
    feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, eelen);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, fl + fln - 36, 36);
    T_CHECK("order: Finished without Certificate -> unexpected_message", res == E_UNEXPECTED, "got %d", res);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    {
        static uint8_t f2[4096];
        memcpy(f2, fl, fln);
        f2[fln - 33] = 31; /* Finished length 32 -> 31, one byte short */
        res = feed(&hs, TLS13_EPOCH_HANDSHAKE, f2, fln - 1);
        T_CHECK("order: Finished of the wrong length -> decode_error", res == E_DECODE, "got %d", res);
    }
    {
        static uint8_t big[4200];
        FRESH();
        big[0] = 2;
        be24(big + 1, 4097);
        res = feed(&hs, TLS13_EPOCH_INITIAL, big, 4);
        T_CHECK("order: ServerHello over 4096 bytes -> internal_error (not held)", res == E_INTERNAL, "got %d", res);
    }
    /* After completion */
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    res = feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln);
    int r2 = feed(&hs, TLS13_EPOCH_APP, fl, eelen);
    T_CHECK("epoch: EncryptedExtensions after the handshake -> unexpected_message", res == TLS13_HS_DONE && r2 == E_UNEXPECTED,
            "got %d %d", res, r2);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln);
    r2 = feed(&hs, TLS13_EPOCH_APP, (const uint8_t *)"\x0d\x00\x00\x05\x00\x00\x02\x00\x00", 9);
    T_CHECK("epoch: post-handshake CertificateRequest (no post_handshake_auth) -> unexpected_message", r2 == E_UNEXPECTED,
            "got %d", r2);
    FRESH();
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln);
    r2 = feed(&hs, TLS13_EPOCH_HANDSHAKE, (const uint8_t *)"\x04\x00\x00\x00", 4);
    T_CHECK("epoch: HANDSHAKE bytes after our Finished -> unexpected_message", r2 == E_UNEXPECTED, "got %d", r2);
    int r3 = feed(&hs, TLS13_EPOCH_APP, (const uint8_t *)"\x04\x00\x00\x00", 4);
    T_CHECK("sticky: later input returns the same error", r3 == E_UNEXPECTED, "got %d", r3);
#undef FRESH
}

/* ------------------------------------------------------------ post-handshake */

static void test_post_handshake(void)
{
    static struct run r;
    uint8_t ent[TLS13_ENTROPY_LEN], next_s[48], next_c[48];
    struct tls13_hs_config cfg = cfg_tcp();
    struct srv_opts o = {.suite = 0x1302}; /* SHA-384: 48-byte secrets */
    int res;
    fill_entropy(ent, 9);

    memset(&r.rec, 0, sizeof r.rec);
    tls13_hs_start(&r.hs, &cfg, ent, &rec_cb, &r.rec);
    res = tls13_hs_key_update(&r.hs);
    T_CHECK("key_update before the handshake is done -> error, not sticky",
            res == E_INTERNAL && r.hs.err == 0 && r.rec.nev == 1, "got %d", res);

    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("post: handshake done", loopback_agrees(&r), "flight=%d", r.flight_r);
    memcpy(next_s, r.srv.ks.server_app, 48);
    memcpy(next_c, r.srv.ks.client_app, 48);

    /* NewSessionTicket of 20 KB: ignored whole, in 7-byte chunks, bytewise. */
    size_t tl = 20000, nl = 4 + 4 + 4 + 1 + 8 + 2 + tl + 2;
    uint8_t *nst = malloc(nl);
    memset(nst, 0x77, nl);
    nst[0] = 4;
    be24(nst + 1, nl - 4);
    nst[12] = 8;
    be16(nst + 21, tl);
    be16(nst + nl - 2, 0);
    size_t nev = r.rec.nev;
    res = feed(&r.hs, TLS13_EPOCH_APP, nst, nl);
    int r7 = feed_chunks(&r.hs, TLS13_EPOCH_APP, nst, nl, 7);
    int r1 = feed_chunks(&r.hs, TLS13_EPOCH_APP, nst, nl, 1);
    T_CHECK("post: 20 KB NewSessionTicket ignored (whole, 7-byte chunks, bytewise), no callbacks",
            res == 0 && r7 == 0 && r1 == 0 && r.rec.nev == nev, "got %d %d %d", res, r7, r1);
    free(nst);

    /* KeyUpdate(update_requested): read secret updated, then our KeyUpdate
     * (update_not_requested) goes out under the old key, then the new write
     * secret (§4.6.3). Fed one byte at a time. */
    tls13_next_traffic_secret(TLS13_SHA384, next_s);
    tls13_next_traffic_secret(TLS13_SHA384, next_c);
    res = feed_chunks(&r.hs, TLS13_EPOCH_APP, (const uint8_t *)"\x18\x00\x00\x01\x01", 5, 1);
    bool ok = res == 0 && r.rec.nev == nev + 3;
    ok = ok && r.rec.ev[nev].kind == 's' && r.rec.ev[nev].epoch == TLS13_EPOCH_APP && !r.rec.ev[nev].write &&
         ev_is(&r.rec, &r.rec.ev[nev], next_s, 48);
    ok = ok && r.rec.ev[nev + 1].kind == 'e' && r.rec.ev[nev + 1].epoch == TLS13_EPOCH_APP &&
         ev_is(&r.rec, &r.rec.ev[nev + 1], (const uint8_t *)"\x18\x00\x00\x01\x00", 5);
    ok = ok && r.rec.ev[nev + 2].kind == 's' && r.rec.ev[nev + 2].write && ev_is(&r.rec, &r.rec.ev[nev + 2], next_c, 48);
    T_CHECK("post: KeyUpdate(update_requested) -> read secret N+1, emit KeyUpdate(0) at APP, then write secret N+1", ok,
            "res=%d nev=%zu", res, r.rec.nev - nev);

    nev = r.rec.nev;
    tls13_next_traffic_secret(TLS13_SHA384, next_s);
    res = feed(&r.hs, TLS13_EPOCH_APP, (const uint8_t *)"\x18\x00\x00\x01\x00", 5);
    T_CHECK("post: KeyUpdate(update_not_requested) -> only the read secret",
            res == 0 && r.rec.nev == nev + 1 && !r.rec.ev[nev].write && ev_is(&r.rec, &r.rec.ev[nev], next_s, 48),
            "res=%d", res);

    nev = r.rec.nev;
    tls13_next_traffic_secret(TLS13_SHA384, next_c);
    res = tls13_hs_key_update(&r.hs);
    T_CHECK("post: tls13_hs_key_update -> emit KeyUpdate(update_requested), then write secret N+1",
            res == 0 && r.rec.nev == nev + 2 && r.rec.ev[nev].kind == 'e' &&
                ev_is(&r.rec, &r.rec.ev[nev], (const uint8_t *)"\x18\x00\x00\x01\x01", 5) && r.rec.ev[nev + 1].write &&
                ev_is(&r.rec, &r.rec.ev[nev + 1], next_c, 48),
            "res=%d", res);

    /* NST and KeyUpdate back to back in one input. */
    nev = r.rec.nev;
    res = feed(&r.hs, TLS13_EPOCH_APP, (const uint8_t *)"\x04\x00\x00\x02\xaa\xbb\x18\x00\x00\x01\x00", 11);
    T_CHECK("post: NewSessionTicket + KeyUpdate in one input", res == 0 && r.rec.nev == nev + 1, "res=%d", res);

    res = feed(&r.hs, TLS13_EPOCH_APP, (const uint8_t *)"\x18\x00\x00\x01\x02", 5);
    T_CHECK("post: KeyUpdate(2) -> illegal_parameter (§4.6.3)", res == E_ILLEGAL, "got %d", res);
    res = tls13_hs_key_update(&r.hs);
    T_CHECK("post: key_update after an error returns the error", res == E_ILLEGAL, "got %d", res);

    loopback(&r, &cfg, ent, &o, 0, 0);
    res = feed(&r.hs, TLS13_EPOCH_APP, (const uint8_t *)"\x18\x00\x00\x02\x00\x00", 6);
    T_CHECK("post: KeyUpdate of 2 bytes -> decode_error", res == E_DECODE, "got %d", res);

    /* QUIC: no KeyUpdate either way (RFC 9001 §6). */
    struct tls13_hs_config q = cfg_quic();
    o = (struct srv_opts){.quic_tp = true};
    loopback(&r, &q, ent, &o, 0, 0);
    nev = r.rec.nev;
    int k = tls13_hs_key_update(&r.hs);
    res = feed(&r.hs, TLS13_EPOCH_APP, (const uint8_t *)"\x18\x00\x00\x01\x00", 5);
    T_CHECK("post QUIC: key_update refused; a KeyUpdate received -> unexpected_message (RFC 9001 §6)",
            loopback_agrees(&r) && k == E_INTERNAL && res == E_UNEXPECTED && r.rec.nev == nev, "k=%d res=%d", k, res);
}

/* ------------------------------------------------------------ mutated flights */

static bool known_error(int r)
{
    switch (r) {
    case E_UNEXPECTED:
    case E_ILLEGAL:
    case E_DECODE:
    case E_DECRYPT:
    case E_INTERNAL:
    case E_MISSING_EXT:
    case E_UNSUPPORTED_EXT:
    case E_NO_APP_PROTOCOL:
    case TLS13_ERR_FALLBACK_TLS12:
        return true;
    default:
        return false;
    }
}

static size_t mutate(uint8_t *m, size_t n, size_t cap)
{
    int nmut = 1 + (int)t_rng_below(3);
    for (int j = 0; j < nmut && n; j++) {
        size_t at = t_rng_below(n);
        switch (t_rng_below(6)) {
        case 0:
            m[at] ^= (uint8_t)(1u << t_rng_below(8));
            break;
        case 1:
            m[at] = (uint8_t)t_rng();
            break;
        case 2:
            n = at; /* truncate */
            break;
        case 3:
            if (n < cap) {
                memmove(m + at + 1, m + at, n - at);
                m[at] = (uint8_t)t_rng();
                n++;
            }
            break;
        case 4:
            memmove(m + at, m + at + 1, n - at - 1);
            n--;
            break;
        default: /* nudge what may be a length byte */
            m[at] = (uint8_t)(m[at] + (t_rng_below(2) ? 1 : -1));
            break;
        }
    }
    return n;
}

static void test_mutations(void)
{
    static struct run r;
    static struct tls13_hs hs;
    static struct rec rec;
    struct {
        uint8_t b[8192];
        size_t n;
        uint8_t epoch;
    } seg[4], base[2][4];
    size_t nseg[2];
    uint8_t ent[TLS13_ENTROPY_LEN];
    struct tls13_hs_config cfg = cfg_tcp();
    static const uint8_t post[] = {4, 0, 0, 13, 0, 0, 0, 60, 1, 2, 3, 4, 0, 0, 2, 0xab, 0xcd, 0, 0,
                                   24, 0, 0, 1, 1};
    fill_entropy(ent, 10);

    /* base 0: x25519, CR, ALPN; base 1: HRR+cookie to P-256, AES-256 */
    struct srv_opts o0 = {.cert_request = true}, o1 = {.hrr_group = 0x0017, .cookie_len = 24, .suite = 0x1302};
    for (int b = 0; b < 2; b++) {
        loopback(&r, &cfg, ent, b ? &o1 : &o0, 0, 0);
        T_CHECK(b ? "mutations: base run (HRR) done" : "mutations: base run done", loopback_agrees(&r), "fail");
        size_t k = 0;
        if (b) {
            memcpy(base[b][k].b, r.srv.hrr, r.srv.hrr_len);
            base[b][k].n = r.srv.hrr_len;
            base[b][k++].epoch = TLS13_EPOCH_INITIAL;
        }
        memcpy(base[b][k].b, r.srv.sh, r.srv.sh_len);
        base[b][k].n = r.srv.sh_len;
        base[b][k++].epoch = TLS13_EPOCH_INITIAL;
        memcpy(base[b][k].b, r.srv.flight, r.srv.flight_len);
        base[b][k].n = r.srv.flight_len;
        base[b][k++].epoch = TLS13_EPOCH_HANDSHAKE;
        memcpy(base[b][k].b, post, sizeof post);
        base[b][k].n = sizeof post;
        base[b][k++].epoch = TLS13_EPOCH_APP;
        nseg[b] = k;
    }

    bool ok = true;
    int counts[8] = {0}, done = 0; /* by error, and handshakes that still completed */
    for (int it = 0; it < 4000; it++) {
        int b = (int)t_rng_below(2);
        memcpy(seg, base[b], sizeof seg);
        size_t which = t_rng_below(nseg[b]);
        seg[which].n = mutate(seg[which].b, seg[which].n, sizeof seg[which].b);
        if (t_rng_below(8) == 0) /* a second segment too */
            seg[(which + 1) % nseg[b]].n = mutate(seg[(which + 1) % nseg[b]].b, seg[(which + 1) % nseg[b]].n,
                                                  sizeof seg[0].b);
        memset(&rec, 0, sizeof rec);
        tls13_hs_start(&hs, &cfg, ent, &rec_cb, &rec);
        int res = 0;
        bool was_done = false;
        for (size_t k = 0; k < nseg[b] && res >= 0; k++) {
            size_t chunk = t_rng_below(4) == 0 ? 0 : 1 + t_rng_below(64);
            res = feed_chunks(&hs, seg[k].epoch, seg[k].b, seg[k].n, chunk);
            if (res == TLS13_HS_DONE)
                was_done = true;
        }
        if (res < 0) {
            ok &= T_QUIET("mutations: known error", known_error(res), "iteration %d: %d", it, res);
            int again = feed(&hs, TLS13_EPOCH_APP, post, 4);
            ok &= T_QUIET("mutations: sticky", again == res, "iteration %d: %d then %d", it, res, again);
            ok &= T_QUIET("mutations: no secret after an error leaks a Finished",
                          was_done || rec_find(&rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0) == NULL, "iteration %d", it);
            counts[res == E_UNEXPECTED ? 0 : res == E_ILLEGAL ? 1 : res == E_DECODE ? 2 : res == E_DECRYPT ? 3 :
                   res == E_INTERNAL ? 4 : res == TLS13_ERR_FALLBACK_TLS12 ? 5 : res == E_MISSING_EXT ? 6 : 7]++;
        } else if (was_done) {
            done++;
        }
        ok &= T_QUIET("mutations: recorder", !rec.overflow, "iteration %d", it);
    }
    T_CHECK("mutations: 4000 mutated HRR/ServerHello/flight/post-handshake inputs: clean, sticky errors", ok,
            "see above");
    printf("  mutations: unexpected %d, illegal %d, decode %d, decrypt %d, internal %d, fallback %d, "
           "missing_extension %d, other %d; completed %d\n",
           counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], done);
}

/* ------------------------------------------------------------ conn.c */

static void conn_hung(int sig)
{
    static const char msg[] = "FAIL conn: tls_conn_recv never returned (zero-length record)\n";
    (void)sig;
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0)
        _exit(2);
    _exit(1);
}

/* One feed as an exact-size heap copy (tls_conn_recv decrypts in place). */
static int conn_feed(struct tls_conn *t, const uint8_t *p, size_t n)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        abort();
    memcpy(copy, p, n);
    int rc = tls_conn_recv(t, copy, n, NULL, NULL);
    free(copy);
    return rc;
}

/* A record of length 0 whose 5-byte header arrives in two feeds (found by
 * test/fuzz/fuzz_tls13_client). tls_conn_recv took the completed header for
 * the start of a record still to be gathered: the record was never handled
 * when the header ended the feed, and when more bytes followed in the same
 * feed it looped forever. RFC 8446 §5.1 allows zero-length application data
 * fragments; before the handshake one is unexpected_message, and so is a
 * zero-length handshake record (§5.1: no zero-length handshake fragments). */
static void test_conn_empty_record(void)
{
    static const uint8_t types[2] = { 23, 22 };
    struct tls_config cfg = { .server_name = "localhost" };
    uint8_t ent[TLS13_ENTROPY_LEN];
    void *mem = aligned_alloc(64, (tls_conn_size() + 63) / 64 * 64);
    if (!mem)
        abort();
    fill_entropy(ent, 5);
    bool ok = true;
    fflush(stdout); /* the alarm's message goes out with write(): nothing may wait in stdio */
    signal(SIGALRM, conn_hung);
    alarm(20);
    for (int ti = 0; ti < 2; ti++) {
        for (size_t cut = 1; cut < 5; cut++) {
            for (size_t extra = 0; extra <= 1; extra++) {
                struct tls_conn *t = tls_conn_init(mem, &cfg, ent, false);
                /* the extra byte: the start of the next record */
                uint8_t rec[6] = { types[ti], 3, 3, 0, 0, 22 };
                int r1 = conn_feed(t, rec, cut);
                int r2 = conn_feed(t, rec + cut, 5 - cut + extra);
                ok &= T_QUIET("conn: zero-length record split in its header", r1 == TLS_OK &&
                              r2 == TLS_ERR_HANDSHAKE && tls_conn_alert(t) == 10,
                              "type %u, cut after %zu, %zu more: %d then %d, alert %d", types[ti], cut, extra, r1,
                              r2, tls_conn_alert(t));
                fflush(stdout);
            }
        }
    }
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    T_CHECK("conn: a zero-length record split inside its header is handled (unexpected_message), no hang", ok,
            "see above");
    free(mem);
}

/* A TLS 1.3 connection through tls_conn, records included, against the test
 * server of the loopback tests: the server's side of the record layer is
 * srv_wr (its application keys once open), its traffic secret srv_secret,
 * and the client's application keys cli_rd (to read what tls_conn sends). */
struct conn_run {
    struct srv srv;
    struct tls13_record_dir srv_wr, cli_rd;
    uint8_t srv_secret[48], cli_secret[48];
    void *mem;
    struct tls_conn *t;
};

static void dir_key(struct tls13_record_dir *d, const struct tls13_suite *suite, const uint8_t *secret)
{
    uint8_t key[32], iv[12];
    memset(d, 0, sizeof *d);
    tls13_traffic_keys(suite, secret, key, iv);
    tls13_record_key(d, suite->id, key, iv);
}

static bool conn_open(struct conn_run *c, uint32_t seed)
{
    static uint8_t buf[70000];
    struct tls_config cfg = { .server_name = "localhost" };
    struct srv_opts o = { 0 };
    uint8_t ent[TLS13_ENTROPY_LEN];
    size_t len, n = 0;
    fill_entropy(ent, seed);
    if (!c->mem && !(c->mem = aligned_alloc(64, (tls_conn_size() + 63) / 64 * 64)))
        abort();
    c->t = tls_conn_init(c->mem, &cfg, ent, false);
    const uint8_t *out = tls_conn_out(c->t, &len);
    if (len < 5 || out[0] != 22)
        return false;
    srv_init(&c->srv, &o);
    srv_server_hello(&c->srv, out + 5, len - 5);
    tls_conn_out_ack(c->t, len);
    const struct tls13_suite *suite = c->srv.suite;
    struct tls13_record_dir hs_wr;
    memset(&hs_wr, 0, sizeof hs_wr);
    n += tls13_record_seal(&hs_wr, 22, c->srv.sh, c->srv.sh_len, buf, sizeof buf);
    dir_key(&hs_wr, suite, c->srv.ks.server_hs);
    for (size_t off = 0; off < c->srv.flight_len; off += TLS13_MAX_PLAINTEXT) {
        size_t k = c->srv.flight_len - off < TLS13_MAX_PLAINTEXT ? c->srv.flight_len - off : TLS13_MAX_PLAINTEXT;
        n += tls13_record_seal(&hs_wr, 22, c->srv.flight + off, k, buf + n, sizeof buf - n);
    }
    if (conn_feed(c->t, buf, n) != TLS_HANDSHAKE_DONE || !tls_conn_ready(c->t))
        return false;
    tls_conn_out(c->t, &len);
    tls_conn_out_ack(c->t, len); /* CCS, client Finished */
    size_t hl = tls13_hash_len(suite->hash);
    memcpy(c->srv_secret, c->srv.ks.server_app, hl);
    memcpy(c->cli_secret, c->srv.ks.client_app, hl);
    dir_key(&c->srv_wr, suite, c->srv_secret);
    dir_key(&c->cli_rd, suite, c->cli_secret);
    return c->srv.ok;
}

/* n KeyUpdates from the server, each in a record of its own under the key
 * the one before announced, appended to buf. */
static size_t srv_key_updates(struct conn_run *c, uint8_t request, size_t count, uint8_t *buf, size_t cap)
{
    const uint8_t ku[5] = { 24, 0, 0, 1, request };
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        n += tls13_record_seal(&c->srv_wr, 22, ku, sizeof ku, buf + n, cap - n);
        tls13_next_traffic_secret(c->srv.suite->hash, c->srv_secret);
        dir_key(&c->srv_wr, c->srv.suite, c->srv_secret);
    }
    return n;
}

/* Opens what tls_conn has queued as the server would: application data
 * counted in *data, KeyUpdates followed (counted in *kus). False when a
 * record does not open or is something else. */
static bool srv_read_out(struct conn_run *c, size_t *data, size_t *kus)
{
    size_t len;
    const uint8_t *out = tls_conn_out(c->t, &len);
    static uint8_t copy[2 * (TLS13_MAX_PLAINTEXT + 64)];
    memcpy(copy, out, len);
    *data = *kus = 0;
    for (size_t off = 0; off + 5 <= len;) {
        size_t rl = 5 + ((size_t)copy[off + 3] << 8 | copy[off + 4]);
        uint8_t ct, *pl;
        size_t pn;
        if (off + rl > len || tls13_record_open(&c->cli_rd, copy + off, rl, &ct, &pl, &pn) != 0)
            return false;
        off += rl;
        if (ct == 23) {
            *data += pn;
        } else if (ct == 22 && pn == 5 && pl[0] == 24 && pl[4] == 0) {
            (*kus)++;
            tls13_next_traffic_secret(c->srv.suite->hash, c->cli_secret);
            dir_key(&c->cli_rd, c->srv.suite, c->cli_secret);
        } else {
            return false;
        }
    }
    tls_conn_out_ack(c->t, len);
    return true;
}

/* A KeyUpdate storm (RFC 8446 §4.6.3): 3000 KeyUpdates with update_requested
 * in one read. Each was answered with a KeyUpdate of our own, sealed into
 * the output as it came: past about 1200 (of 27 bytes each) the output was
 * full, the seal failed without a word, and our write key moved on anyway —
 * every later record was one the server could not open. Now a burst that
 * arrives while we are silent gets one answer (§4.6.3 says a silent receiver
 * "respond[s] with a single update"); data sent in between re-arms it. */
static void test_conn_key_update_storm(void)
{
    static struct conn_run c;
    static uint8_t buf[3000 * 32];
    size_t data, kus;
    T_CHECK("conn: handshake through records", conn_open(&c, 11), "failed");
    size_t n = srv_key_updates(&c, 1, 3000, buf, sizeof buf);
    int rc = conn_feed(c.t, buf, n);
    bool read = srv_read_out(&c, &data, &kus);
    T_CHECK("conn: 3000 KeyUpdate(update_requested) in one read -> one KeyUpdate back, the output in step",
            rc == TLS_OK && read && kus == 1 && data == 0, "rc %d, read %d, %zu KeyUpdates back", rc, read, kus);
    size_t sent = tls_conn_send(c.t, (const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18);
    n = srv_key_updates(&c, 1, 3, buf, sizeof buf);
    rc = conn_feed(c.t, buf, n);
    read = srv_read_out(&c, &data, &kus);
    T_CHECK("conn: data then 3 more requests -> the data (under the answered key), then one more KeyUpdate",
            sent == 18 && rc == TLS_OK && read && kus == 1 && data == 18, "rc %d, read %d, %zu back, %zu data", rc,
            read, kus, data);

    /* The output full of application data: the answer still fits, after it. */
    static uint8_t big[4 * TLS13_MAX_PLAINTEXT];
    memset(big, 'a', sizeof big);
    sent = tls_conn_send(c.t, big, sizeof big);
    size_t more = tls_conn_send(c.t, big, sizeof big);
    n = srv_key_updates(&c, 1, 1, buf, sizeof buf);
    rc = conn_feed(c.t, buf, n);
    read = srv_read_out(&c, &data, &kus);
    T_CHECK("conn: output full of data, then a KeyUpdate(update_requested) -> its answer still goes out",
            sent > 0 && more == 0 && rc == TLS_OK && read && kus == 1 && data == sent, "sent %zu, rc %d, read %d, %zu back",
            sent, rc, read, kus);
    free(c.mem);
    c.mem = NULL;
}

/* §5.1: a KeyUpdate must end its record. Two in one record (or a KeyUpdate
 * followed by a NewSessionTicket) were taken as if the bytes behind it had
 * been sealed under the new key. */
static void test_conn_key_update_record_end(void)
{
    static struct conn_run c;
    static const uint8_t two[10] = { 24, 0, 0, 1, 0, 24, 0, 0, 1, 0 };
    static const uint8_t ku_nst[11] = { 24, 0, 0, 1, 0, 4, 0, 0, 2, 0xaa, 0xbb };
    const uint8_t *bodies[2] = { two, ku_nst };
    size_t lens[2] = { sizeof two, sizeof ku_nst };
    for (int i = 0; i < 2; i++) {
        uint8_t buf[64];
        T_CHECK("conn: handshake through records", conn_open(&c, 12 + (uint32_t)i), "failed");
        size_t n = tls13_record_seal(&c.srv_wr, 22, bodies[i], lens[i], buf, sizeof buf);
        int rc = conn_feed(c.t, buf, n);
        T_CHECK(i == 0 ? "conn: two KeyUpdates in one record -> unexpected_message (§5.1)"
                       : "conn: a KeyUpdate then a NewSessionTicket in one record -> unexpected_message (§5.1)",
                rc == TLS_ERR_RECORD && tls_conn_alert(c.t) == 10, "rc %d, alert %d", rc, tls_conn_alert(c.t));
    }
    /* §4.6.3: request_update 2 is illegal_parameter; after the handshake
     * that is a bad record (TLS_ERR_RECORD), not a failed handshake, which
     * it was reported as. */
    uint8_t buf[128];
    T_CHECK("conn: handshake through records", conn_open(&c, 15), "failed");
    size_t n = tls13_record_seal(&c.srv_wr, 22, (const uint8_t *)"\x18\x00\x00\x01\x02", 5, buf, sizeof buf);
    int rc = conn_feed(c.t, buf, n);
    T_CHECK("conn: KeyUpdate(2) after the handshake -> illegal_parameter, TLS_ERR_RECORD", rc == TLS_ERR_RECORD &&
            tls_conn_alert(c.t) == 47, "rc %d, alert %d", rc, tls_conn_alert(c.t));
    /* The same two KeyUpdates in records of their own are fine. */
    T_CHECK("conn: handshake through records", conn_open(&c, 14), "failed");
    n = srv_key_updates(&c, 0, 2, buf, sizeof buf);
    rc = conn_feed(c.t, buf, n);
    T_CHECK("conn: two KeyUpdates in two records -> fine", rc == TLS_OK, "rc %d", rc);
    free(c.mem);
    c.mem = NULL;
}

/* --tls13-ciphers, --curves, --tlsv1.3 (tls13/choice.h): the ClientHello
 * offers exactly the suites and groups chosen, in order, the key share in
 * the first group; the server must pick among them (RFC 8446 §4.1.3,
 * §4.2.8); a handshake on them completes, over TCP and QUIC. */
static void test_choice(void)
{
    static struct tls13_hs hs;
    static struct rec rec;
    static struct run r;
    uint8_t ent[TLS13_ENTROPY_LEN];
    struct ch_info ci;
    const uint8_t *b;
    size_t bn;
    static const uint16_t suites[] = {0x1303, 0x1302}, groups[] = {0x0018, 0x001d};
    struct tls13_hs_config cfg = cfg_tcp();
    cfg.suites = suites;
    cfg.nsuites = 2;
    cfg.groups = groups;
    cfg.ngroups = 2;
    fill_entropy(ent, 7);
    bool ok = ch_of(&hs, &rec, &cfg, ent, &ci, &b, &bn);
    T_CHECK("choice: exactly the chosen suites, in order",
            ok && ci.n_suites == 2 && ci.suites[0] == 0x1303 && ci.suites[1] == 0x1302, "n=%d", ci.n_suites);
    static const uint8_t groups_ext[] = {0x00, 0x0a, 0x00, 0x06, 0x00, 0x04, 0x00, 0x18, 0x00, 0x1d};
    T_CHECK("choice: supported_groups exactly P-384, x25519; one P-384 share",
            ok && contains(b, bn, groups_ext, sizeof groups_ext) && ci.n_shares == 1 && ci.ks_group == 0x0018 &&
                ci.ks_len == 97,
            "shares=%d group=0x%04x len=%zu", ci.n_shares, ci.ks_group, ci.ks_len);

    struct sh_spec sp;
    spec_init(&sp, false);
    spec_sv(&sp, 0x0304);
    spec_ks(&sp, 0x0018);
    sp.suite = 0x1301;
    int got = try_sh_with(&sp, &cfg);
    T_CHECK("choice: a suite not chosen -> illegal_parameter (§4.1.3)", got == E_ILLEGAL, "got %d", got);
    spec_init(&sp, true);
    spec_sv(&sp, 0x0304);
    spec_ext(&sp, 51, "\x00\x17", 2); /* HRR key_share: selected_group P-256 */
    sp.suite = 0x1303;
    got = try_hrr_with(&sp, NULL, &cfg);
    T_CHECK("choice: HelloRetryRequest for a group not chosen -> illegal_parameter (§4.2.8)", got == E_ILLEGAL,
            "got %d", got);
    spec_init(&sp, true);
    spec_sv(&sp, 0x0304);
    spec_ext(&sp, 51, "\x00\x1d", 2);
    sp.suite = 0x1303;
    got = try_hrr_with(&sp, NULL, &cfg);
    T_CHECK("choice: HelloRetryRequest for the other chosen group -> in progress", got == 0, "got %d", got);

    spec_init(&sp, false);
    sp.no_exts = true;
    got = try_sh_with(&sp, &cfg);
    T_CHECK("choice: a TLS 1.2 ServerHello still means fallback without tls13_only", got == TLS13_ERR_FALLBACK_TLS12,
            "got %d", got);
    cfg.tls13_only = true;
    got = try_sh_with(&sp, &cfg);
    T_CHECK("choice: tls13_only: a TLS 1.2 ServerHello -> protocol_version (§D.1)", got == -70, "got %d", got);
    cfg.tls13_only = false;

    struct srv_opts o = {.suite = 0x1302};
    loopback(&r, &cfg, ent, &o, 1000, 0);
    struct tls_negotiated n = {0};
    if (r.flight_r == TLS13_HS_DONE)
        tls13_hs_negotiated(&r.hs, &n);
    T_CHECK("choice: handshake completes on a chosen suite and the P-384 share",
            loopback_agrees(&r) && n.cipher == 0x1302 && n.group == 0x0018, "flight=%d cipher=0x%04x group=0x%04x",
            r.flight_r, n.cipher, n.group);
    struct tls13_hs_config q = cfg_quic();
    static const uint16_t chacha[] = {0x1303}, p256[] = {0x0017};
    q.suites = chacha;
    q.nsuites = 1;
    q.groups = p256;
    q.ngroups = 1;
    o = (struct srv_opts){.suite = 0x1303, .quic_tp = true};
    loopback(&r, &q, ent, &o, 1000, 0);
    memset(&n, 0, sizeof n);
    if (r.flight_r == TLS13_HS_DONE)
        tls13_hs_negotiated(&r.hs, &n);
    T_CHECK("choice: QUIC handshake on ChaCha20 and P-256 alone",
            loopback_agrees(&r) && n.cipher == 0x1303 && n.group == 0x0017, "flight=%d cipher=0x%04x group=0x%04x",
            r.flight_r, n.cipher, n.group);

    /* Bad configurations are the caller's bug: internal_error at start. */
    static const uint16_t bad_suite[] = {0x1304}, twice[] = {0x001d, 0x001d}, bad_group[] = {0x001e};
    struct tls13_hs_config c2 = cfg_tcp();
    c2.suites = bad_suite;
    c2.nsuites = 1;
    memset(&rec, 0, sizeof rec);
    int rc1 = tls13_hs_start(&hs, &c2, ent, &rec_cb, &rec);
    c2 = cfg_tcp();
    c2.groups = twice;
    c2.ngroups = 2;
    int rc2 = tls13_hs_start(&hs, &c2, ent, &rec_cb, &rec);
    c2.groups = bad_group;
    c2.ngroups = 1;
    int rc3 = tls13_hs_start(&hs, &c2, ent, &rec_cb, &rec);
    T_CHECK("choice: an unknown suite, a group twice, x448 -> internal_error at start",
            rc1 == E_INTERNAL && rc2 == E_INTERNAL && rc3 == E_INTERNAL, "%d %d %d", rc1, rc2, rc3);
}

/* ------------------------------------------------------------ client certificates */

/* Every HANDSHAKE-epoch byte the client emitted, in order (its second
 * flight may come in several emits: the chain streams out). */
static size_t client_flight(const struct rec *rec, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0;; i++) {
        const struct ev *x = rec_find(rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, i);
        if (!x || n + x->len > cap)
            return x ? 0 : n;
        memcpy(out + n, rec->buf + x->off, x->len);
        n += x->len;
    }
}

/* The server's side of the client's flight with a credential: Certificate
 * is exactly the chain (empty context, no extensions, RFC 8446 §4.4.2),
 * CertificateVerify is `scheme` and verifies over the server's own
 * transcript (§4.4.3), then the Finished verifies. */
static bool srv_check_cert_flight(struct srv *s, const struct tls13_credential *c, uint16_t scheme, const uint8_t *p,
                                  size_t n, char *why, size_t whylen)
{
    size_t list = 0, at = 0;
    for (size_t i = 0; i < c->chain_len; i++)
        list += 3 + c->chain[i].data_len + 2;
    if (n < 8 + list || p[0] != 11 || (size_t)(p[1] << 16 | p[2] << 8 | p[3]) != 4 + list || p[4] != 0 ||
        (size_t)(p[5] << 16 | p[6] << 8 | p[7]) != list)
        return snprintf(why, whylen, "Certificate header"), false;
    at = 8;
    for (size_t i = 0; i < c->chain_len; i++) {
        size_t l = c->chain[i].data_len;
        if ((size_t)(p[at] << 16 | p[at + 1] << 8 | p[at + 2]) != l || memcmp(p + at + 3, c->chain[i].data, l) != 0 ||
            p[at + 3 + l] != 0 || p[at + 4 + l] != 0)
            return snprintf(why, whylen, "certificate entry %zu", i), false;
        at += 3 + l + 2;
    }
    tls13_transcript_update(&s->t, p, at);

    /* CertificateVerify over 64 spaces, the client's context string, 0 and the hash. */
    uint8_t content[64 + 34 + 48], thash[48], mhash[64], em[512], salt[64];
    static const char label[] = "TLS 1.3, client CertificateVerify";
    size_t hl = tls13_hash_len(s->suite->hash);
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    memset(content, 0x20, 64);
    memcpy(content + 64, label, sizeof label);
    memcpy(content + 64 + sizeof label, thash, hl);
    size_t clen = 64 + sizeof label + hl;
    const uint8_t *cv = p + at;
    size_t sig_len = (size_t)(cv[6] << 8 | cv[7]);
    if (n < at + 8 || cv[0] != 15 || (size_t)(cv[1] << 16 | cv[2] << 8 | cv[3]) != 4 + sig_len ||
        (cv[4] << 8 | cv[5]) != scheme || n < at + 8 + sig_len)
        return snprintf(why, whylen, "CertificateVerify header (scheme %04x)", cv[4] << 8 | cv[5]), false;
    br_x509_decoder_context dc;
    br_x509_decoder_init(&dc, 0, NULL);
    br_x509_decoder_push(&dc, c->chain[0].data, c->chain[0].data_len);
    const br_x509_pkey *pk = br_x509_decoder_get_pkey(&dc);
    bool ok = false;
    if (scheme == TLS13_SIG_RSA_PSS_RSAE_SHA256) {
        hash_of(&br_sha256_vtable, content, clen, mhash);
        memcpy(em, cv + 8, sig_len);
        ok = pk && sig_len == 256 && br_rsa_i31_public(em, sig_len, &pk->key.rsa) &&
             tls13_emsa_pss_verify(&br_sha256_vtable, mhash, em, 2047, salt) == 0;
    } else {
        hash_of(&br_sha256_vtable, content, clen, mhash);
        ok = pk && br_ecdsa_i31_vrfy_asn1(br_ec_get_default(), mhash, 32, &pk->key.ec, cv + 8, sig_len);
    }
    if (!ok)
        return snprintf(why, whylen, "the CertificateVerify signature does not verify"), false;
    tls13_transcript_update(&s->t, cv, 8 + sig_len);
    at += 8 + sig_len;
    s->o.cert_request = false; /* what is left is the Finished alone */
    if (!srv_check_client_flight(s, p + at, n - at))
        return snprintf(why, whylen, "client Finished"), false;
    return true;
}

/* A CertificateRequest body: signature_algorithms (ecdsa_secp256r1_sha256,
 * rsa_pss_rsae_sha256) and a certificate_authorities of ca_len bytes of
 * DistinguishedNames (§4.2.4), in either order. Returns its length. */
static size_t cr_with_cas(uint8_t *b, size_t cap, size_t ca_len, bool sig_first)
{
    static const uint8_t sigalgs[] = {0, 13, 0, 6, 0, 4, 4, 3, 8, 4};
    size_t at = 3, ca_at = sig_first ? 3 + sizeof sigalgs : 3;
    if (cap < 3 + sizeof sigalgs + 6 + ca_len)
        abort();
    b[0] = 0;
    memcpy(b + (sig_first ? 3 : 3 + 6 + ca_len), sigalgs, sizeof sigalgs);
    at = ca_at;
    be16(b + at, 47); /* certificate_authorities */
    be16(b + at + 2, ca_len + 2);
    be16(b + at + 4, ca_len);
    for (size_t i = 0; i < ca_len; i += 100) { /* DNs of 98 bytes (the last one shorter) */
        size_t dn = ca_len - i < 100 ? ca_len - i - 2 : 98;
        be16(b + at + 6 + i, dn);
        memset(b + at + 8 + i, 0x30 + (int)(i / 100 % 64), dn);
    }
    size_t total = 3 + sizeof sigalgs + 6 + ca_len;
    be16(b + 1, total - 3);
    return total;
}

/* The reader alone: bounds and framing, fed whole and a byte at a time. */
static int cr_read(const uint8_t *b, size_t n, uint32_t msg_len, const struct tls13_credential *cred, bool bytewise,
                   uint16_t *scheme)
{
    struct tls13_cr_reader rd;
    int e = tls13_cr_start(&rd, msg_len, cred);
    for (size_t i = 0; e == 0 && i < n; i += bytewise ? 1 : n)
        e = tls13_cr_feed(&rd, b + i, bytewise ? 1 : n);
    if (e == 0)
        e = tls13_cr_end(&rd);
    *scheme = rd.scheme;
    return e;
}

static void test_cert_request_reader(const struct tls13_credential *ec)
{
    static uint8_t b[TLS13_CR_MAX + 16];
    uint16_t scheme = 0;
    size_t n = cr_with_cas(b, sizeof b, 0xffff - 10 - 6, false);
    T_CHECK("cert request: the longest (3 + 65535 bytes, CAs first), byte by byte -> ecdsa_secp256r1_sha256",
            n == TLS13_CR_MAX && cr_read(b, n, (uint32_t)n, ec, true, &scheme) == 0 &&
                scheme == TLS13_SIG_ECDSA_P256_SHA256,
            "n=%zu scheme=%04x", n, scheme);
    T_CHECK("cert request: one byte longer than its framing allows -> decode_error at the header",
            cr_read(b, 0, TLS13_CR_MAX + 1, ec, false, &scheme) == -50, "wrong");
    n = cr_with_cas(b, sizeof b, 2000, true);
    T_CHECK("cert request: no credential, a long request -> framing only, fine",
            cr_read(b, n, (uint32_t)n, NULL, true, &scheme) == 0 && scheme == 0, "wrong");
    b[3 + 10 + 3] = (uint8_t)(b[3 + 10 + 3] + 1); /* the CA extension claims a byte more than is left */
    T_CHECK("cert request: an extension longer than the block -> decode_error",
            cr_read(b, n, (uint32_t)n, ec, false, &scheme) == -50, "wrong");
    b[3 + 10 + 3] = (uint8_t)(b[3 + 10 + 3] - 1);
    T_CHECK("cert request: cut inside an extension -> decode_error",
            cr_read(b, n - 1, (uint32_t)n - 1, ec, false, &scheme) == -50, "wrong");
    static const uint8_t twice[] = {0, 0, 16, 0, 13, 0, 4, 0, 2, 4, 3, 0, 13, 0, 4, 0, 2, 4, 3};
    T_CHECK("cert request: signature_algorithms twice -> decode_error (§4.2)",
            cr_read(twice, sizeof twice, sizeof twice, ec, false, &scheme) == -50, "wrong");
    static const uint8_t ctx[] = {1, 'x', 0, 0};
    T_CHECK("cert request: a non-empty context -> illegal_parameter",
            cr_read(ctx, sizeof ctx, sizeof ctx, ec, false, &scheme) == -47, "wrong");
    static const uint8_t half_hdr[] = {0, 0, 3, 0, 13, 0};
    T_CHECK("cert request: an extension header cut short -> decode_error",
            cr_read(half_hdr, sizeof half_hdr, sizeof half_hdr, NULL, true, &scheme) == -50, "wrong");
}

static void test_client_cert(void)
{
    static struct tls13_credential rsa, ec_chain;
    static struct run r;
    static uint8_t flight[8192];
    const char *which;
    char err[256], why[128] = "";
    uint8_t ent[TLS13_ENTROPY_LEN];
    for (size_t i = 0; i < sizeof ent; i++)
        ent[i] = (uint8_t)(i * 11 + 3);

    int lr = tls13_credential_load(&rsa, (const uint8_t *)pem_rsa_crt, strlen(pem_rsa_crt),
                                   (const uint8_t *)pem_rsa_key, strlen(pem_rsa_key), &which, err, sizeof err);
    char chain_pem[4096];
    snprintf(chain_pem, sizeof chain_pem, "%s%s", pem_p256_crt, pem_ca_crt);
    lr |= tls13_credential_load(&ec_chain, (const uint8_t *)chain_pem, strlen(chain_pem),
                                (const uint8_t *)pem_p256_key, strlen(pem_p256_key), &which, err, sizeof err);
    T_CHECK("client cert: test credentials load", lr == 0, "%s", err);
    test_cert_request_reader(&ec_chain);

    /* RSA over TCP, and under QUIC; the server's CertificateRequest asks for rsa_pss_rsae_sha256. */
    for (int quic = 0; quic < 2; quic++) {
        struct tls13_hs_config cfg = quic ? cfg_quic() : cfg_tcp();
        cfg.cred = &rsa;
        struct srv_opts o = {.cert_request = true, .quic_tp = quic != 0};
        loopback(&r, &cfg, ent, &o, quic ? 0 : 37, 0);
        size_t n = client_flight(&r.rec, flight, sizeof flight);
        bool ok = r.flight_r == TLS13_HS_DONE && r.srv.ok &&
                  srv_check_cert_flight(&r.srv, &rsa, TLS13_SIG_RSA_PSS_RSAE_SHA256, flight, n, why, sizeof why);
        T_CHECK(quic ? "client cert (QUIC): RSA chain + CertificateVerify (rsa_pss_rsae_sha256) + Finished, checked by the server"
                     : "client cert (TCP): RSA chain + CertificateVerify (rsa_pss_rsae_sha256) + Finished, checked by the server",
                ok, "flight=%d %s", r.flight_r, why);
    }

    /* A chain of two, P-256: the Certificate streams out entry by entry. */
    static const uint8_t cr_ecdsa[] = {0, 0, 14, 0, 13, 0, 10, 0, 8, 8, 4, 5, 3, 4, 3, 8, 6};
    struct tls13_hs_config cfg = cfg_tcp();
    cfg.cred = &ec_chain;
    struct srv_opts o = {.cert_request = true, .cr = cr_ecdsa, .cr_len = sizeof cr_ecdsa};
    loopback(&r, &cfg, ent, &o, 0, 0);
    size_t n = client_flight(&r.rec, flight, sizeof flight);
    bool ok = r.flight_r == TLS13_HS_DONE && r.srv.ok &&
              srv_check_cert_flight(&r.srv, &ec_chain, TLS13_SIG_ECDSA_P256_SHA256, flight, n, why, sizeof why);
    T_CHECK("client cert: P-256 chain of two (leaf first) + ecdsa_secp256r1_sha256 picked from the server's list", ok,
            "flight=%d %s", r.flight_r, why);

    /* No scheme in common: handshake_failure, and nothing of ours goes out. */
    o = (struct srv_opts){.cert_request = true};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("client cert: an EC key and a request for RSA-PSS only -> handshake_failure, no flight",
            r.flight_r == -40 && rec_find(&r.rec, 'e', TLS13_EPOCH_HANDSHAKE, -1, 0) == NULL, "flight=%d", r.flight_r);

    /* §4.3.2: signature_algorithms MUST be in a CertificateRequest. */
    static const uint8_t cr_no_sigalgs[] = {0, 0, 4, 0, 47, 0, 0};
    o = (struct srv_opts){.cert_request = true, .cr = cr_no_sigalgs, .cr_len = sizeof cr_no_sigalgs};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("client cert: a CertificateRequest without signature_algorithms -> missing_extension", r.flight_r == -109,
            "flight=%d", r.flight_r);
    /* A malformed signature_algorithms list: decode_error. */
    static const uint8_t cr_odd[] = {0, 0, 7, 0, 13, 0, 3, 0, 1, 8};
    o = (struct srv_opts){.cert_request = true, .cr = cr_odd, .cr_len = sizeof cr_odd};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("client cert: signature_algorithms of odd length -> decode_error", r.flight_r == -50, "flight=%d",
            r.flight_r);
    /* A long certificate_authorities (nginx lists every CA of
     * ssl_client_certificate: 20 KB here) before or after
     * signature_algorithms: the request streams, over TCP in 37-byte cuts
     * and under QUIC. */
    static uint8_t cr_long[20100];
    for (int quic = 0; quic < 2; quic++)
        for (int sig_first = 0; sig_first < 2; sig_first++) {
            size_t crn = cr_with_cas(cr_long, sizeof cr_long, 20000, sig_first != 0);
            struct tls13_hs_config c2 = quic ? cfg_quic() : cfg_tcp();
            c2.cred = &ec_chain;
            struct srv_opts ol = {.cert_request = true, .cr = cr_long, .cr_len = crn, .quic_tp = quic != 0};
            loopback(&r, &c2, ent, &ol, quic ? 0 : 37, 0);
            n = client_flight(&r.rec, flight, sizeof flight);
            ok = r.flight_r == TLS13_HS_DONE && r.srv.ok &&
                 srv_check_cert_flight(&r.srv, &ec_chain, TLS13_SIG_ECDSA_P256_SHA256, flight, n, why, sizeof why);
            char name[160];
            snprintf(name, sizeof name, "client cert (%s): 20 KB certificate_authorities %s signature_algorithms -> done",
                     quic ? "QUIC" : "TCP", sig_first ? "after" : "before");
            T_CHECK(name, ok, "flight=%d %s", r.flight_r, why);
        }
    /* Without a credential, the same request is answered with an empty Certificate as before. */
    cfg.cred = NULL;
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("client cert: no credential, any CertificateRequest -> empty Certificate + Finished",
            loopback_agrees(&r), "flight=%d", r.flight_r);
    tls13_credential_wipe(&rsa);
    tls13_credential_wipe(&ec_chain);
}

/* ------------------------------------------------------------ --cacert: verifying the server */

static void test_verify(void)
{
    static struct tls13_credential ec_chain, rsa;
    static struct tls13_trust trust_ca, trust_rsa;
    static struct run r;
    static uint8_t vmem[sizeof(struct tls13_verifier) + 64];
    struct tls13_verifier *v = (struct tls13_verifier *)(void *)vmem;
    const char *which;
    char err[256], why[256];
    uint8_t ent[TLS13_ENTROPY_LEN];
    for (size_t i = 0; i < sizeof ent; i++)
        ent[i] = (uint8_t)(i * 5 + 1);

    char chain_pem[4096];
    snprintf(chain_pem, sizeof chain_pem, "%s%s", pem_p256_crt, pem_ca_crt);
    int lr = tls13_credential_load(&ec_chain, (const uint8_t *)chain_pem, strlen(chain_pem),
                                   (const uint8_t *)pem_p256_key, strlen(pem_p256_key), &which, err, sizeof err);
    lr |= tls13_credential_load(&rsa, (const uint8_t *)pem_rsa_crt, strlen(pem_rsa_crt), (const uint8_t *)pem_rsa_key,
                                strlen(pem_rsa_key), &which, err, sizeof err);
    lr |= tls13_trust_load(&trust_ca, (const uint8_t *)pem_ca_crt, strlen(pem_ca_crt), err, sizeof err);
    lr |= tls13_trust_load(&trust_rsa, (const uint8_t *)pem_rsa_crt, strlen(pem_rsa_crt), err, sizeof err);
    T_CHECK("verify: test identities and anchors load", lr == 0, "%s", err);

    /* 2027-01-15: inside every test certificate's validity (2026-12-05 .. 2126). */
    const uint64_t now = 1800000000;
    static const struct {
        const char *name;
        const struct tls13_credential *id;
        const struct tls13_trust *trust;
        uint16_t scheme;
        bool flip, quic;
        uint64_t now;
        int want;
        enum tls13_verify_reason reason;
    } cases[] = {
        {"verify: P-256 leaf + CA, CA anchor, good ecdsa_secp256r1_sha256 CertificateVerify -> done", &ec_chain,
         &trust_ca, TLS13_SIG_ECDSA_P256_SHA256, false, false, now, TLS13_HS_DONE, TLS13_VERIFY_OK},
        {"verify: the same under QUIC -> done", &ec_chain, &trust_ca, TLS13_SIG_ECDSA_P256_SHA256, false, true, now,
         TLS13_HS_DONE, TLS13_VERIFY_OK},
        {"verify: one flipped byte in the ECDSA signature -> decrypt_error, bad CertificateVerify signature",
         &ec_chain, &trust_ca, TLS13_SIG_ECDSA_P256_SHA256, true, false, now, -51, TLS13_VERIFY_BAD_CV},
        {"verify: self-signed RSA-2048 anchor, good rsa_pss_rsae_sha256 CertificateVerify -> done", &rsa, &trust_rsa,
         TLS13_SIG_RSA_PSS_RSAE_SHA256, false, false, now, TLS13_HS_DONE, TLS13_VERIFY_OK},
        {"verify: rsa_pss_rsae_sha512 -> done", &rsa, &trust_rsa, TLS13_SIG_RSA_PSS_RSAE_SHA512, false, false, now,
         TLS13_HS_DONE, TLS13_VERIFY_OK},
        {"verify: one flipped byte in the RSA-PSS signature -> decrypt_error", &rsa, &trust_rsa,
         TLS13_SIG_RSA_PSS_RSAE_SHA256, true, false, now, -51, TLS13_VERIFY_BAD_CV},
        {"verify: a chain the anchors do not reach -> unknown_ca", &ec_chain, &trust_rsa,
         TLS13_SIG_ECDSA_P256_SHA256, false, false, now, -48, TLS13_VERIFY_UNKNOWN_CA},
        {"verify: the year 2200, past every notAfter -> certificate_expired", &ec_chain, &trust_ca,
         TLS13_SIG_ECDSA_P256_SHA256, false, false, 7258118400ull, -45, TLS13_VERIFY_EXPIRED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tls13_hs_config cfg = cases[i].quic ? cfg_quic() : cfg_tcp();
        cfg.server_name = NULL; /* the test certificates name no host: the name check has e2e tests */
        struct tls13_verify_config vc = {.trust = cases[i].trust};
        tls13_verifier_init(v, &vc);
        tls13_verifier_start(v, cases[i].now);
        cfg.verifier = v;
        struct srv_opts o = {.id = cases[i].id, .sig_scheme = cases[i].scheme, .cv_flip = cases[i].flip,
                             .quic_tp = cases[i].quic};
        loopback(&r, &cfg, ent, &o, i % 2 ? 23 : 0, 0);
        why[0] = 0;
        if (v->reason)
            tls13_verifier_why(v, why, sizeof why);
        T_CHECK(cases[i].name, r.srv.ok && r.flight_r == cases[i].want && v->reason == cases[i].reason,
                "flight=%d reason=%d (%s)", r.flight_r, v->reason, why);
    }
    T_CHECK("verify: the reason in words", strcmp(why, "certificate verify failed: expired (or not yet valid)") == 0,
            "%s", why);

    /* The same flipped signature without a verifier: not checked (the default trusts every certificate). */
    struct tls13_hs_config cfg = cfg_tcp();
    struct srv_opts o = {.id = &ec_chain, .sig_scheme = TLS13_SIG_ECDSA_P256_SHA256, .cv_flip = true};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("verify: no verifier, a flipped CertificateVerify signature is not checked -> done",
            r.flight_r == TLS13_HS_DONE, "flight=%d", r.flight_r);

    /* A scheme we did not offer (rsa_pkcs1_sha256 is for certificates only, §4.4.3) -> illegal_parameter. */
    cfg.verifier = v;
    cfg.server_name = NULL;
    struct tls13_verify_config vc = {.trust = &trust_rsa};
    tls13_verifier_init(v, &vc);
    tls13_verifier_start(v, now);
    o = (struct srv_opts){.id = &rsa, .sig_scheme = TLS13_SIG_RSA_PSS_RSAE_SHA256};
    srv_init(&r.srv, &o);
    loopback(&r, &cfg, ent, &o, 0, 0);
    size_t cv_at = 0;
    for (size_t i = 0; i + 4 < r.srv.flight_len; i += 4 + (size_t)(r.srv.flight[i + 1] << 16 | r.srv.flight[i + 2] << 8 | r.srv.flight[i + 3]))
        if (r.srv.flight[i] == 15)
            cv_at = i;
    T_CHECK("verify: the good RSA flight has a CertificateVerify", cv_at > 0 && r.flight_r == TLS13_HS_DONE,
            "flight=%d", r.flight_r);
    /* The same ClientHello (same entropy) gets the same server flight: replayed
     * with its CertificateVerify's scheme made rsa_pkcs1_sha256. */
    static uint8_t bad_flight[sizeof r.srv.flight];
    memcpy(bad_flight, r.srv.flight, r.srv.flight_len);
    bad_flight[cv_at + 4] = 0x04;
    bad_flight[cv_at + 5] = 0x01;
    tls13_verifier_init(v, &vc);
    tls13_verifier_start(v, now);
    memset(&r.rec, 0, sizeof r.rec);
    int rs = tls13_hs_start(&r.hs, &cfg, ent, &rec_cb, &r.rec);
    rs = rs < 0 ? rs : feed(&r.hs, TLS13_EPOCH_INITIAL, r.srv.sh, r.srv.sh_len);
    rs = rs < 0 ? rs : feed(&r.hs, TLS13_EPOCH_HANDSHAKE, bad_flight, r.srv.flight_len);
    T_CHECK("verify: a CertificateVerify with rsa_pkcs1_sha256 (not offered for it, §4.4.3) -> illegal_parameter",
            rs == -47, "r=%d", rs);

    /* The ClientHello offers no EdDSA (nor rsa_pss_pss) when verifying. */
    struct rec rec;
    struct tls13_hs hs;
    memset(&rec, 0, sizeof rec);
    tls13_hs_start(&hs, &cfg, ent, &rec_cb, &rec);
    const struct ev *ch = rec_find(&rec, 'e', TLS13_EPOCH_INITIAL, -1, 0);
    static const uint8_t ed25519[] = {0x08, 0x07}, pss_pss[] = {0x08, 0x09}, ecdsa[] = {0x04, 0x03};
    bool offers_ed = false, offers_pss_pss = false, offers_ecdsa = false;
    for (size_t i = 0; ch && i + 1 < ch->len; i++) {
        /* signature_algorithms' list: every entry is at an even offset from
         * its start; the byte pairs are searched at any offset, which can
         * only over-report, never miss one. */
        offers_ed |= memcmp(rec.buf + ch->off + i, ed25519, 2) == 0;
        offers_pss_pss |= memcmp(rec.buf + ch->off + i, pss_pss, 2) == 0;
        offers_ecdsa |= memcmp(rec.buf + ch->off + i, ecdsa, 2) == 0;
    }
    T_CHECK("verify: signature_algorithms offers ECDSA but neither ed25519 nor rsa_pss_pss",
            ch && offers_ecdsa && !offers_ed && !offers_pss_pss, "ed=%d pss_pss=%d", offers_ed, offers_pss_pss);
    tls13_credential_wipe(&ec_chain);
    tls13_credential_wipe(&rsa);
}

/* ------------------------------------------------------------ the group a HelloRetryRequest asked for */

/* cfg.key_share_group: the worker hands in the group an earlier
 * connection's HelloRetryRequest selected; the ClientHello shares for it
 * alone and still lists every group (RFC 8446 §4.2.7, §4.2.8), and the
 * engine says which group a retry of its own settled on. */
static void test_key_share_group(void)
{
    static struct tls13_hs hs;
    static struct rec ra;
    static struct run r;
    static const uint8_t groups_ext[] = {0x00, 0x0a, 0x00, 0x08, 0x00, 0x06, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18};
    uint8_t ent[TLS13_ENTROPY_LEN];
    struct ch_info ci;
    const uint8_t *a;
    size_t an;
    struct tls13_hs_config cfg = cfg_tcp();

    fill_entropy(ent, 21);
    cfg.key_share_group = 0x0018;
    bool ok = ch_of(&hs, &ra, &cfg, ent, &ci, &a, &an);
    T_CHECK("key_share_group P-384: the ClientHello's one share is P-384 (97 bytes)",
            ok && ci.n_shares == 1 && ci.ks_group == 0x0018 && ci.ks_len == 97, "ok=%d shares=%d group=%04x len=%zu", ok,
            ci.n_shares, ci.ks_group, (size_t)ci.ks_len);
    T_CHECK("key_share_group P-384: supported_groups still x25519, P-256, P-384",
            ok && contains(a, an, groups_ext, sizeof groups_ext), "missing");

    struct srv_opts o = {0};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("key_share_group P-384 against a server that takes it: done in one round trip, no retry",
            loopback_agrees(&r) && r.srv.group == 0x0018 && tls13_hs_hrr_group(&r.hs) == 0 && !r.hs.hrr_done,
            "flight=%d group=%04x hrr=%04x", r.flight_r, r.srv.group, tls13_hs_hrr_group(&r.hs));

    cfg.key_share_group = 0;
    o.hrr_group = 0x0018;
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("no key_share_group, HelloRetryRequest to P-384: done, tls13_hs_hrr_group says P-384",
            loopback_agrees(&r) && tls13_hs_hrr_group(&r.hs) == 0x0018, "flight=%d hrr=%04x", r.flight_r,
            tls13_hs_hrr_group(&r.hs));
    o = (struct srv_opts){.cookie_len = 40};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("a HelloRetryRequest with a cookie only: tls13_hs_hrr_group is the group shared (x25519)",
            loopback_agrees(&r) && tls13_hs_hrr_group(&r.hs) == 0x001d, "flight=%d hrr=%04x", r.flight_r,
            tls13_hs_hrr_group(&r.hs));

    /* The server changed its mind: the remembered P-256 gets a retry to
     * x25519, which the worker then remembers instead. */
    cfg.key_share_group = 0x0017;
    o = (struct srv_opts){.hrr_group = 0x001d};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("key_share_group P-256, HelloRetryRequest to x25519: done on x25519, tls13_hs_hrr_group says x25519",
            loopback_agrees(&r) && r.srv.group == 0x001d && tls13_hs_hrr_group(&r.hs) == 0x001d,
            "flight=%d group=%04x hrr=%04x", r.flight_r, r.srv.group, tls13_hs_hrr_group(&r.hs));
    /* §4.2.8: a retry to the group already shared is still illegal_parameter. */
    o = (struct srv_opts){.hrr_group = 0x0017};
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("key_share_group P-256, HelloRetryRequest to P-256 (already shared): illegal_parameter",
            r.hrr_r == -47, "hrr=%d", r.hrr_r);

    /* A group the user's list leaves out is not shared; a retry to a
     * group we did not offer stays illegal_parameter (§4.2.8). */
    static const uint16_t two[] = {0x001d, 0x0018};
    cfg.groups = two;
    cfg.ngroups = 2;
    ok = ch_of(&hs, &ra, &cfg, ent, &ci, &a, &an);
    T_CHECK("key_share_group P-256 not among the groups chosen (x25519, P-384): the share is x25519",
            ok && ci.n_shares == 1 && ci.ks_group == 0x001d, "ok=%d group=%04x", ok, ci.ks_group);
    cfg.key_share_group = 0x0018;
    loopback(&r, &cfg, ent, &o, 0, 0);
    T_CHECK("key_share_group P-384, HelloRetryRequest to P-256 (not offered): illegal_parameter", r.hrr_r == -47,
            "hrr=%d", r.hrr_r);

    /* Under QUIC the same. */
    struct tls13_hs_config q = cfg_quic();
    q.key_share_group = 0x0018;
    ok = ch_of(&hs, &ra, &q, ent, &ci, &a, &an);
    T_CHECK("QUIC, key_share_group P-384: one P-384 share, supported_groups unchanged",
            ok && ci.n_shares == 1 && ci.ks_group == 0x0018 && contains(a, an, groups_ext, sizeof groups_ext),
            "ok=%d group=%04x", ok, ci.ks_group);
}

int main(void)
{
    test_verify();
    test_client_cert();
    test_trace_simple();
    test_trace_hrr();
    test_loopback();
    test_loopback_splits();
    test_client_hello();
    test_key_share_group();
    test_server_hello_errors();
    test_flight_errors();
    test_epochs();
    test_post_handshake();
    test_mutations();
    test_conn_empty_record();
    test_conn_key_update_storm();
    test_conn_key_update_record_end();
    test_choice();
    T_DONE();
}
