/* test/unit/unit_tls13_resume.c — TLS 1.3 session resumption (--tls-resume)
 * in the handshake engine (tls13/handshake.c) and the key schedule
 * (tls13/keysched.c):
 *
 *  - RFC 8448-style traces (shared/rfc/tls13-traces.txt): §3's
 *    resumption_master_secret and its NewSessionTicket's PSK, through the
 *    engine (the §3 handshake replayed, then its ticket fed); §4's Early
 *    Secret, binder and resumed handshake secrets, byte for byte;
 *  - an in-test TLS 1.3 server (keysched.h + BearSSL's X25519) that resumes:
 *    our ClientHello's psk_key_exchange_modes and pre_shared_key (last, the
 *    ticket, the obfuscated age, a binder it recomputes), then ServerHello
 *    with pre_shared_key, EncryptedExtensions and Finished (no Certificate);
 *    also after a HelloRetryRequest (a new binder over the new transcript);
 *  - what is refused: selected_identity 1, a suite of another hash,
 *    pre_shared_key never offered, a Certificate in a resumed handshake, a
 *    garbled NewSessionTicket; and the tickets not offered (another SNI,
 *    expired, no suite of their hash).
 *
 * Every fragment fed to the engine is an exact-size heap copy, so under ASan
 * a read past what a feed delivered is caught. */
#include <bearssl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "test/vectors/tls13_traces.h"
#include "tls13/handshake.h"
#include "tls13/handshake_internal.h"
#include "tls13/keysched.h"

/* Alerts, negated (handshake.h). */
#define E_UNEXPECTED (-10)
#define E_ILLEGAL_PARAM (-47)
#define E_DECODE (-50)
#define E_UNSUPPORTED_EXT (-110)

/* Where handshake.c takes its entropy (handshake.h: TLS13_ENTROPY_LEN). */
#define ENT_RANDOM 0
#define ENT_X25519 64

/* §3's ephemeral x25519 private key (the trace prints it). */
static const char t3_x25519_priv[] = "70a1a8f491e82d530542c6d7a8dcd8cfa9e31f59bb336b550b13bfe199f542c5";

/* A handshake's entropy from t.h's generator, seeded. */
static void fill_entropy(uint8_t *ent, uint32_t seed)
{
    t_rng_seed(seed);
    for (size_t i = 0; i < TLS13_ENTROPY_LEN; i++)
        ent[i] = (uint8_t)t_rng();
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* ------------------------------------------------------------ recorder */

struct rec {
    uint8_t ch[2][4096]; /* ClientHello1, ClientHello2 */
    size_t ch_len[2];
    int nch;
    uint8_t fin[256];    /* our HANDSHAKE flight */
    size_t fin_len;
    uint8_t c_hs[48], s_hs[48];
    int secrets;
    struct tls13_ticket ticket; /* the last one handed out */
    int tickets;
};

static void rec_emit(void *ctx, enum tls13_epoch e, const uint8_t *p, size_t n)
{
    struct rec *r = ctx;
    if (e == TLS13_EPOCH_INITIAL && r->nch < 2 && n <= sizeof r->ch[0]) {
        memcpy(r->ch[r->nch], p, n);
        r->ch_len[r->nch++] = n;
    } else if (e == TLS13_EPOCH_HANDSHAKE && r->fin_len + n <= sizeof r->fin) {
        memcpy(r->fin + r->fin_len, p, n);
        r->fin_len += n;
    }
}

static void rec_secret(void *ctx, enum tls13_epoch e, bool write, const struct tls13_suite *s, const uint8_t *secret)
{
    struct rec *r = ctx;
    if (e == TLS13_EPOCH_HANDSHAKE)
        memcpy(write ? r->c_hs : r->s_hs, secret, tls13_hash_len(s->hash));
    r->secrets++;
}

static void rec_ticket(void *ctx, const struct tls13_ticket *t)
{
    struct rec *r = ctx;
    r->ticket = *t;
    r->tickets++;
}

static const struct tls13_hs_callbacks rec_cb = {rec_emit, rec_secret};

static int feed(struct tls13_hs *hs, enum tls13_epoch e, const uint8_t *p, size_t n)
{
    uint8_t *copy = t_memdup(p, n);
    int r = tls13_hs_input(hs, e, copy, n);
    free(copy);
    return r;
}

/* ------------------------------------------------------------ trace §3 and §4 */

static void test_trace_vectors(void)
{
    uint8_t master[32], thash[32], rms[32], psk[32], ch[512], sh[96], dhe[32], binder[32];
    struct tls13_keysched ks;
    struct tls13_transcript t;

    /* §3: resumption_master_secret = Derive-Secret(Master Secret, "res
     * master", ClientHello .. client Finished). */
    unhex(S3_RES_PRK, master, sizeof master);
    unhex(S3_RES_HASH, thash, sizeof thash);
    memset(&ks, 0, sizeof ks);
    ks.hash = TLS13_SHA256;
    memcpy(ks.secret, master, 32);
    tls13_ks_resumption(&ks, thash, rms);
    check_hex("trace3: resumption_master_secret", rms, 32, S3_RES_SECRET);
    /* §4.6.1: the ticket's PSK, nonce 00 00. */
    tls13_ticket_psk(TLS13_SHA256, rms, (const uint8_t *)"\0\0", 2, psk);
    check_hex("trace3: the ticket's PSK (resumption, nonce 0000)", psk, 32, S4_PSK);

    /* §4: the Early Secret from the PSK, the binder over the ClientHello
     * truncated before its binders, and the handshake secrets with the
     * (EC)DHE secret over ClientHello || ServerHello. */
    tls13_ks_init_psk(&ks, TLS13_SHA256, psk, 32);
    check_hex("trace4: Early Secret from the PSK", ks.secret, 32, S4_EARLY);
    unhex(S4_CH, ch, sizeof ch);
    tls13_transcript_init(&t);
    tls13_transcript_update(&t, ch, 512 - 2 - 1 - 32);
    tls13_transcript_hash(&t, TLS13_SHA256, thash);
    check_hex("trace4: hash of the truncated ClientHello", thash, 32, S4_BINDER_HASH);
    tls13_ks_binder(&ks, thash, binder);
    check_hex("trace4: PSK binder", binder, 32, S4_BINDER);
    T_CHECK("trace4: the ClientHello carries that binder last", memcmp(ch + 512 - 32, binder, 32) == 0, "mismatch");
    unhex(S4_SH, sh, sizeof sh);
    unhex(S4_DHE, dhe, sizeof dhe);
    tls13_transcript_update(&t, ch + 512 - 35, 35);
    tls13_transcript_update(&t, sh, sizeof sh);
    tls13_transcript_hash(&t, TLS13_SHA256, thash);
    tls13_ks_handshake(&ks, dhe, 32, thash);
    check_hex("trace4: resumed client handshake traffic secret", ks.client_hs, 32, S4_C_HS);
    check_hex("trace4: resumed server handshake traffic secret", ks.server_hs, 32, S4_S_HS);
}

/* §3 through the engine: the trace's handshake replayed, then its
 * NewSessionTicket at APP: handed out with its fields and §4's PSK. */
static void test_trace_ticket(void)
{
    static struct tls13_hs hs;
    static struct rec rec;
    uint8_t ent[TLS13_ENTROPY_LEN], ch[256], sh[128], fl[1024], nst[256];
    struct tls13_resume res = {.on_ticket = rec_ticket, .ctx = &rec};
    struct tls13_hs_config cfg = {.server_name = "server", .resume = &res};
    size_t chn = unhex(S3_CH, ch, sizeof ch), shn = unhex(S3_SH, sh, sizeof sh);
    size_t fln = unhex(S3_S_FLIGHT, fl, sizeof fl), nstn = unhex(S3_NST, nst, sizeof nst);
    uint8_t psk[32];

    fill_entropy(ent, 7);
    memcpy(ent + ENT_RANDOM, ch + 6, 32);
    unhex(t3_x25519_priv, ent + ENT_X25519, 32);
    memset(&rec, 0, sizeof rec);
    int r = tls13_hs_start_with_client_hello(&hs, &cfg, ent, &rec_cb, &rec, ch, chn);
    if (r == 0)
        r = feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    if (r == 0)
        r = feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln);
    T_CHECK("trace3 ticket: the handshake completes, not resumed", r == TLS13_HS_DONE && !tls13_hs_resumed(&hs),
            "r=%d", r);
    r = feed(&hs, TLS13_EPOCH_APP, nst, nstn);
    unhex(S4_PSK, psk, sizeof psk);
    const struct tls13_ticket *t = &rec.ticket;
    T_CHECK("trace3 ticket: NewSessionTicket handed out once", r == 0 && rec.tickets == 1, "r=%d tickets=%d", r,
            rec.tickets);
    T_CHECK("trace3 ticket: lifetime 30 s, age_add, max_early_data 1024, suite, SNI",
            t->lifetime_s == 30 && t->age_add == 0x933d0932 && t->max_early_data == 0x400 && t->suite == 0x1301 &&
                strcmp(t->server_name, "server") == 0 && t->alpn[0] == 0,
            "lifetime=%u age_add=%08x early=%u suite=%04x sni=%s", t->lifetime_s, t->age_add, t->max_early_data,
            t->suite, t->server_name);
    T_CHECK("trace3 ticket: the ticket's 178 bytes", t->ticket_len == 0xb2 && memcmp(t->ticket, nst + 4 + 4 + 4 + 1 + 2 + 2, 0xb2) == 0,
            "len=%u", t->ticket_len);
    T_CHECK("trace3 ticket: PSK = HKDF-Expand-Label(resumption_master_secret, resumption, 0000) (trace4's)",
            memcmp(t->psk, psk, 32) == 0, "mismatch");

    /* The same handshake without on_ticket: the ticket is skipped unread. */
    memset(&rec, 0, sizeof rec);
    cfg.resume = NULL;
    r = tls13_hs_start_with_client_hello(&hs, &cfg, ent, &rec_cb, &rec, ch, chn);
    feed(&hs, TLS13_EPOCH_INITIAL, sh, shn);
    feed(&hs, TLS13_EPOCH_HANDSHAKE, fl, fln);
    r = feed(&hs, TLS13_EPOCH_APP, nst, nstn);
    T_CHECK("trace3 ticket: without --tls-resume NewSessionTicket is skipped", r == 0 && rec.tickets == 0, "r=%d", r);
}

/* ------------------------------------------------------------ the ClientHello */

struct ch_view {
    const uint8_t *sid;
    size_t sid_len;
    uint16_t suites[8];
    size_t nsuites;
    const uint8_t *ks;  /* x25519 key_exchange (32 bytes), or NULL */
    uint16_t ks_group;
    const uint8_t *modes, *psk; /* psk_key_exchange_modes and pre_shared_key bodies */
    size_t modes_len, psk_len;
    uint16_t last_ext;
    bool alpn_h2;            /* ALPN offered h2 */
    const uint8_t *identity; /* pre_shared_key's one identity, its age and binder */
    size_t identity_len;
    uint32_t age;
    const uint8_t *binder;
    size_t binder_len;
    size_t npsk_ids;
};

static bool view_ch(const uint8_t *m, size_t n, struct ch_view *v)
{
    memset(v, 0, sizeof *v);
    if (n < 4 + 2 + 32 + 1 || m[0] != 1)
        return false;
    size_t i = 4 + 2 + 32;
    v->sid_len = m[i];
    v->sid = m + i + 1;
    i += 1 + v->sid_len;
    size_t sl = (size_t)(m[i] << 8 | m[i + 1]);
    for (size_t k = 0; k < sl / 2 && k < 8; k++)
        v->suites[v->nsuites++] = (uint16_t)(m[i + 2 + 2 * k] << 8 | m[i + 3 + 2 * k]);
    i += 2 + sl;
    i += 1 + m[i];
    size_t end = i + 2 + (size_t)(m[i] << 8 | m[i + 1]);
    if (end != n)
        return false;
    for (i += 2; i + 4 <= end;) {
        uint16_t type = (uint16_t)(m[i] << 8 | m[i + 1]);
        size_t len = (size_t)(m[i + 2] << 8 | m[i + 3]);
        const uint8_t *d = m + i + 4;
        if (i + 4 + len > end)
            return false;
        v->last_ext = type;
        if (type == 51 && len >= 6) {
            v->ks_group = (uint16_t)(d[2] << 8 | d[3]);
            v->ks = d + 6;
        } else if (type == 16) {
            v->alpn_h2 = len == 5 && memcmp(d, "\x00\x03\x02h2", 5) == 0;
        } else if (type == 45) {
            v->modes = d;
            v->modes_len = len;
        } else if (type == 41) {
            v->psk = d;
            v->psk_len = len;
            size_t ids = (size_t)(d[0] << 8 | d[1]), il = (size_t)(d[2] << 8 | d[3]);
            v->identity = d + 4;
            v->identity_len = il;
            v->age = rd32(d + 4 + il);
            v->npsk_ids = ids == 2 + il + 4 ? 1 : 0;
            const uint8_t *b = d + 2 + ids;
            v->binder_len = b[2];
            v->binder = b + 3;
        }
        i += 4 + len;
    }
    return true;
}

/* ------------------------------------------------------------ the resuming server */

static const uint8_t srv_priv[32] = {0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c,
                                     0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
                                     0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61};

struct srv {
    const struct tls13_suite *suite;
    struct tls13_transcript t;
    struct tls13_keysched ks;
    uint8_t sh[512], flight[512];
    size_t sh_len, flight_len;
    bool binder_ok;
};

/* ServerHello's and HelloRetryRequest's start: legacy_version, random,
 * legacy_session_id_echo (RFC 8446 §4.1.3). Returns its length. */
static size_t hello_head(uint8_t *body, const uint8_t *random, const struct ch_view *v)
{
    size_t b = 0;
    body[b++] = 3;
    body[b++] = 3;
    memcpy(body + b, random, 32);
    b += 32;
    body[b++] = (uint8_t)v->sid_len;
    memcpy(body + b, v->sid, v->sid_len);
    return b + v->sid_len;
}

static size_t put_msg(struct srv *s, uint8_t *buf, uint8_t type, const uint8_t *body, size_t n)
{
    buf[0] = type;
    be24(buf + 1, n);
    memcpy(buf + 4, body, n);
    tls13_transcript_update(&s->t, buf, 4 + n);
    return 4 + n;
}

/* What a server that knows the PSK checks of the binder (§4.2.11.2): its
 * own HMAC over its transcript and the truncated ClientHello. */
static bool srv_binder_ok(const struct srv *s, const uint8_t *psk, const uint8_t *ch, size_t n,
                          const struct ch_view *v)
{
    struct tls13_transcript t = s->t;
    struct tls13_keysched ks;
    uint8_t thash[48], binder[48];
    size_t hl = tls13_hash_len(s->suite->hash);

    if (!v->psk || v->binder_len != hl || v->binder + hl != ch + n)
        return false;
    tls13_transcript_update(&t, ch, n - 2 - 1 - hl);
    tls13_transcript_hash(&t, s->suite->hash, thash);
    tls13_ks_init_psk(&ks, s->suite->hash, psk, hl);
    tls13_ks_binder(&ks, thash, binder);
    return memcmp(binder, v->binder, hl) == 0;
}

/* ServerHello (pre_shared_key selecting `selected` unless it is -1, and an
 * x25519 share), then EncryptedExtensions and Finished: a resumed
 * handshake (§2.2). With cert, a Certificate after EncryptedExtensions. */
static void srv_hello(struct srv *s, const uint8_t *psk, const uint8_t *ch, size_t n, int selected, bool cert)
{
    struct ch_view v;
    uint8_t body[512], pub[32], dhe[32], thash[48], random[32];
    size_t b, hl = tls13_hash_len(s->suite->hash);

    view_ch(ch, n, &v);
    s->binder_ok = srv_binder_ok(s, psk, ch, n, &v);
    tls13_transcript_update(&s->t, ch, n);
    memset(random, 0xa5, sizeof random);
    b = hello_head(body, random, &v);
    be16(body + b, s->suite->id);
    b += 2;
    body[b++] = 0;
    size_t exts = b;
    b += 2;
    memcpy(body + b, "\x00\x2b\x00\x02\x03\x04", 6);
    b += 6;
    memcpy(body + b, "\x00\x33\x00\x24\x00\x1d\x00\x20", 8);
    br_ec_get_default()->mulgen(pub, srv_priv, 32, BR_EC_curve25519);
    memcpy(body + b + 8, pub, 32);
    b += 40;
    if (selected >= 0) {
        memcpy(body + b, "\x00\x29\x00\x02", 4);
        be16(body + b + 4, (size_t)selected);
        b += 6;
    }
    be16(body + exts, b - exts - 2);
    s->sh_len = put_msg(s, s->sh, 2, body, b);

    memcpy(dhe, v.ks ? v.ks : pub, 32);
    br_ec_get_default()->mul(dhe, 32, srv_priv, 32, BR_EC_curve25519);
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    if (selected >= 0)
        tls13_ks_init_psk(&s->ks, s->suite->hash, psk, hl);
    else
        tls13_ks_init(&s->ks, s->suite->hash);
    tls13_ks_handshake(&s->ks, dhe, 32, thash);

    /* EncryptedExtensions: ALPN h2 when offered. */
    s->flight_len = v.alpn_h2 ? put_msg(s, s->flight, 8, (const uint8_t *)"\x00\x09\x00\x10\x00\x05\x00\x03\x02h2", 11)
                              : put_msg(s, s->flight, 8, (const uint8_t *)"\x00\x00", 2);
    if (cert) {
        static const uint8_t c[] = {0, 0, 0, 7, 0, 0, 2, 0x30, 0x00, 0, 0};
        s->flight_len += put_msg(s, s->flight + s->flight_len, 11, c, sizeof c);
    }
    uint8_t vd[48];
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_finished(s->suite->hash, s->ks.server_hs, thash, vd);
    s->flight_len += put_msg(s, s->flight + s->flight_len, 20, vd, hl);
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_ks_master(&s->ks, thash);
}

/* Our Finished, as the server checks it. */
static bool srv_client_finished_ok(struct srv *s, const uint8_t *p, size_t n)
{
    uint8_t thash[48], vd[48];
    size_t hl = tls13_hash_len(s->suite->hash);
    tls13_transcript_hash(&s->t, s->suite->hash, thash);
    tls13_finished(s->suite->hash, s->ks.client_hs, thash, vd);
    return n == 4 + hl && p[0] == 20 && memcmp(p + 4, vd, hl) == 0;
}

/* A ticket as a server would have issued it. */
static void make_ticket(struct tls13_ticket *t, uint16_t suite, const char *sni)
{
    memset(t, 0, sizeof *t);
    t->lifetime_s = 7200;
    t->age_add = 0xfffff000u; /* the obfuscated age wraps mod 2^32 */
    t->suite = suite;
    t->ticket_len = 100;
    for (size_t i = 0; i < t->ticket_len; i++)
        t->ticket[i] = (uint8_t)(0x10 + i);
    for (size_t i = 0; i < TLS13_MAX_HASH; i++)
        t->psk[i] = (uint8_t)(0x80 + i);
    snprintf(t->server_name, sizeof t->server_name, "%s", sni);
}

static const uint8_t alpn_h2[] = "\x02h2";

struct run {
    struct tls13_hs hs;
    struct rec rec;
    struct srv srv;
    struct tls13_ticket ticket;
    struct tls13_resume res;
    struct ch_view ch;
    int start, sh_r, flight_r;
};

/* A handshake offering r->ticket (age 5000 ms) against the resuming
 * server with suite, selecting `selected`. */
static void run_resumed(struct run *r, uint16_t suite, int selected, bool cert)
{
    uint8_t ent[TLS13_ENTROPY_LEN];
    struct tls13_hs_config cfg = {.server_name = "example.test", .alpn = alpn_h2, .alpn_len = 3};

    fill_entropy(ent, 11);
    memset(&r->rec, 0, sizeof r->rec);
    r->res = (struct tls13_resume){.ticket = &r->ticket, .ticket_age_ms = 5000, .on_ticket = rec_ticket,
                                   .ctx = &r->rec};
    cfg.resume = &r->res;
    r->sh_r = r->flight_r = -999;
    r->start = tls13_hs_start(&r->hs, &cfg, ent, &rec_cb, &r->rec);
    if (r->start < 0 || r->rec.nch != 1)
        return;
    view_ch(r->rec.ch[0], r->rec.ch_len[0], &r->ch);
    memset(&r->srv, 0, sizeof r->srv);
    r->srv.suite = tls13_suite_find(suite);
    tls13_transcript_init(&r->srv.t);
    srv_hello(&r->srv, r->ticket.psk, r->rec.ch[0], r->rec.ch_len[0], selected, cert);
    r->sh_r = feed(&r->hs, TLS13_EPOCH_INITIAL, r->srv.sh, r->srv.sh_len);
    if (r->sh_r < 0)
        return;
    r->flight_r = feed(&r->hs, TLS13_EPOCH_HANDSHAKE, r->srv.flight, r->srv.flight_len);
}

static void test_resumed(void)
{
    static struct run r;

    make_ticket(&r.ticket, 0x1301, "example.test");
    run_resumed(&r, 0x1301, 0, false);
    const struct ch_view *v = &r.ch;
    T_CHECK("resume: ClientHello offers psk_dhe_ke only", v->modes_len == 2 && v->modes[0] == 1 && v->modes[1] == 1,
            "modes_len=%zu", v->modes_len);
    T_CHECK("resume: pre_shared_key is the last extension, one identity: the ticket",
            v->last_ext == 41 && v->npsk_ids == 1 && v->identity_len == 100 &&
                memcmp(v->identity, r.ticket.ticket, 100) == 0,
            "last=%u ids=%zu", v->last_ext, v->npsk_ids);
    T_CHECK("resume: obfuscated_ticket_age = 5000 + ticket_age_add mod 2^32", v->age == (uint32_t)(5000u + 0xfffff000u),
            "age=%08x", v->age);
    T_CHECK("resume: the binder verifies at the server (Hash.length bytes, over the truncated ClientHello)",
            r.srv.binder_ok, "binder_len=%zu", v->binder_len);
    T_CHECK("resume: the ticket's suite is offered first", v->nsuites == 3 && v->suites[0] == 0x1301, "first=%04x",
            v->suites[0]);
    T_CHECK("resume: key_share as always (x25519)", v->ks && v->ks_group == 0x001d, "group=%04x", v->ks_group);
    T_CHECK("resume: ServerHello with pre_shared_key 0, EncryptedExtensions, Finished -> done, resumed",
            r.start == 0 && r.sh_r == 0 && r.flight_r == TLS13_HS_DONE && tls13_hs_resumed(&r.hs),
            "start=%d sh=%d flight=%d", r.start, r.sh_r, r.flight_r);
    T_CHECK("resume: both sides' handshake secrets agree (PSK and (EC)DHE)",
            memcmp(r.rec.c_hs, r.srv.ks.client_hs, 32) == 0 && memcmp(r.rec.s_hs, r.srv.ks.server_hs, 32) == 0,
            "mismatch");
    T_CHECK("resume: our Finished alone (no Certificate) verifies at the server",
            srv_client_finished_ok(&r.srv, r.rec.fin, r.rec.fin_len), "fin_len=%zu", r.rec.fin_len);

    /* A SHA-384 ticket: offered first, 48-byte binder. */
    make_ticket(&r.ticket, 0x1302, "example.test");
    run_resumed(&r, 0x1302, 0, false);
    T_CHECK("resume: a SHA-384 ticket: its suite first, a 48-byte binder that verifies, resumed",
            r.ch.suites[0] == 0x1302 && r.ch.binder_len == 48 && r.srv.binder_ok && r.flight_r == TLS13_HS_DONE &&
                tls13_hs_resumed(&r.hs),
            "first=%04x binder=%zu flight=%d", r.ch.suites[0], r.ch.binder_len, r.flight_r);

    /* §4.2.11: selected_identity outside what we offered; a suite of
     * another hash than the PSK's. */
    make_ticket(&r.ticket, 0x1301, "example.test");
    run_resumed(&r, 0x1301, 1, false);
    T_CHECK("resume: selected_identity 1 -> illegal_parameter", r.sh_r == E_ILLEGAL_PARAM, "sh=%d", r.sh_r);
    run_resumed(&r, 0x1302, 0, false);
    T_CHECK("resume: a SHA-384 suite for a SHA-256 PSK -> illegal_parameter", r.sh_r == E_ILLEGAL_PARAM, "sh=%d",
            r.sh_r);
    /* §2.2: no Certificate in a resumed handshake. */
    run_resumed(&r, 0x1301, 0, true);
    T_CHECK("resume: a Certificate after a resumed ServerHello -> unexpected_message", r.flight_r == E_UNEXPECTED,
            "flight=%d", r.flight_r);
    /* A server that ignores the PSK: a full handshake (it wants the
     * certificate flight). */
    run_resumed(&r, 0x1301, -1, true);
    T_CHECK("resume: no pre_shared_key in ServerHello -> a full handshake (Certificate expected)",
            r.sh_r == 0 && !tls13_hs_resumed(&r.hs) && r.flight_r == E_UNEXPECTED /* no CertificateVerify */,
            "sh=%d flight=%d", r.sh_r, r.flight_r);

    /* Tickets that are not offered. */
    make_ticket(&r.ticket, 0x1301, "other.test");
    run_resumed(&r, 0x1301, 0, false);
    T_CHECK("resume: a ticket of another SNI is not offered (§4.6.1); pre_shared_key in reply -> unsupported_extension",
            r.start == 0 && !r.ch.psk && !r.ch.modes && r.sh_r == E_UNSUPPORTED_EXT, "psk=%p sh=%d",
            (const void *)r.ch.psk, r.sh_r);
    make_ticket(&r.ticket, 0x1301, "example.test");
    r.ticket.lifetime_s = 5; /* run_resumed's age is 5000 ms */
    run_resumed(&r, 0x1301, -1, false);
    T_CHECK("resume: a ticket past its lifetime is not offered", r.start == 0 && !r.ch.psk, "psk=%p",
            (const void *)r.ch.psk);
    make_ticket(&r.ticket, 0x1301, "example.test");
    r.ticket.ticket_len = 0;
    run_resumed(&r, 0x1301, -1, false);
    T_CHECK("resume: an empty ticket is not offered", r.start == 0 && !r.ch.psk, "psk=%p", (const void *)r.ch.psk);
}

/* The ticket's suite is not offered, but one of its hash is; and none of
 * its hash is. */
static void test_suite_choice(void)
{
    static struct tls13_hs hs;
    static struct rec rec;
    struct tls13_ticket t;
    uint8_t ent[TLS13_ENTROPY_LEN];
    static const uint16_t chacha_aes256[] = {0x1302, 0x1303}, aes128[] = {0x1301};
    struct tls13_resume res = {.ticket = &t};
    struct tls13_hs_config cfg = {.server_name = "example.test", .resume = &res};
    struct ch_view v;

    fill_entropy(ent, 5);
    make_ticket(&t, 0x1301, "example.test");
    cfg.suites = chacha_aes256;
    cfg.nsuites = 2;
    memset(&rec, 0, sizeof rec);
    int r = tls13_hs_start(&hs, &cfg, ent, &rec_cb, &rec);
    view_ch(rec.ch[0], rec.ch_len[0], &v);
    T_CHECK("suites: an AES-128 ticket with ChaCha20 (SHA-256) offered: offered, ChaCha20 first",
            r == 0 && v.psk && v.nsuites == 2 && v.suites[0] == 0x1303 && v.suites[1] == 0x1302, "r=%d first=%04x", r,
            v.suites[0]);
    make_ticket(&t, 0x1302, "example.test");
    cfg.suites = aes128;
    cfg.nsuites = 1;
    memset(&rec, 0, sizeof rec);
    r = tls13_hs_start(&hs, &cfg, ent, &rec_cb, &rec);
    view_ch(rec.ch[0], rec.ch_len[0], &v);
    T_CHECK("suites: a SHA-384 ticket with only AES-128 offered: not offered", r == 0 && !v.psk, "r=%d", r);
}

/* §4.1.4, §4.2.11.2: after a HelloRetryRequest, ClientHello2 keeps the PSK
 * with a binder over message_hash(ClientHello1) || HRR || ClientHello2's
 * truncated bytes; and the handshake resumes. */
static void test_hrr(void)
{
    static struct run r;
    uint8_t ent[TLS13_ENTROPY_LEN];
    static const uint16_t groups[] = {0x0017, 0x001d}; /* P-256 first, so an HRR can ask for x25519 */
    struct tls13_hs_config cfg = {.server_name = "example.test", .groups = groups, .ngroups = 2};

    make_ticket(&r.ticket, 0x1301, "example.test");
    fill_entropy(ent, 13);
    memset(&r.rec, 0, sizeof r.rec);
    r.res = (struct tls13_resume){.ticket = &r.ticket, .ticket_age_ms = 10, .on_ticket = rec_ticket, .ctx = &r.rec};
    cfg.resume = &r.res;
    int rc = tls13_hs_start(&r.hs, &cfg, ent, &rec_cb, &r.rec);

    /* The HRR: suite 0x1301, key_share selected_group x25519. */
    struct ch_view v1;
    view_ch(r.rec.ch[0], r.rec.ch_len[0], &v1);
    memset(&r.srv, 0, sizeof r.srv);
    r.srv.suite = tls13_suite_find(0x1301);
    tls13_transcript_init(&r.srv.t);
    tls13_transcript_update(&r.srv.t, r.rec.ch[0], r.rec.ch_len[0]);
    tls13_transcript_hrr_reset(&r.srv.t, TLS13_SHA256);
    static const uint8_t hrr_random[32] = {
        0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
        0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
    };
    uint8_t body[128], hrr[160];
    size_t b = hello_head(body, hrr_random, &v1);
    memcpy(body + b, "\x13\x01\x00\x00\x0c\x00\x2b\x00\x02\x03\x04\x00\x33\x00\x02\x00\x1d", 17);
    b += 17;
    size_t hn = put_msg(&r.srv, hrr, 2, body, b);
    int hr = feed(&r.hs, TLS13_EPOCH_INITIAL, hrr, hn);
    struct ch_view v2;
    bool two = r.rec.nch == 2 && view_ch(r.rec.ch[1], r.rec.ch_len[1], &v2);
    T_CHECK("hrr: ClientHello2 keeps the ticket, pre_shared_key last, x25519 share",
            rc == 0 && hr == 0 && two && v2.psk && v2.last_ext == 41 && v2.ks_group == 0x001d &&
                memcmp(v2.identity, r.ticket.ticket, 100) == 0,
            "rc=%d hr=%d nch=%d", rc, hr, r.rec.nch);
    T_CHECK("hrr: ClientHello2's binder differs from ClientHello1's",
            two && v1.binder && memcmp(v1.binder, v2.binder, 32) != 0, "same binder");
    srv_hello(&r.srv, r.ticket.psk, r.rec.ch[1], r.rec.ch_len[1], 0, false);
    T_CHECK("hrr: the new binder verifies over message_hash(ClientHello1), the HRR and ClientHello2", r.srv.binder_ok,
            "bad binder");
    int sr = feed(&r.hs, TLS13_EPOCH_INITIAL, r.srv.sh, r.srv.sh_len);
    int fr = sr < 0 ? sr : feed(&r.hs, TLS13_EPOCH_HANDSHAKE, r.srv.flight, r.srv.flight_len);
    T_CHECK("hrr: then resumed, our Finished verifies",
            fr == TLS13_HS_DONE && tls13_hs_resumed(&r.hs) && srv_client_finished_ok(&r.srv, r.rec.fin, r.rec.fin_len),
            "sh=%d flight=%d", sr, fr);

    /* An HRR choosing a suite of another hash: ClientHello2 drops the PSK. */
    memset(&r.rec, 0, sizeof r.rec);
    rc = tls13_hs_start(&r.hs, &cfg, ent, &rec_cb, &r.rec);
    view_ch(r.rec.ch[0], r.rec.ch_len[0], &v1);
    b = 2 + 32 + 1 + v1.sid_len;
    body[b] = 0x13;
    body[b + 1] = 0x02;
    hrr[0] = 2;
    be24(hrr + 1, b + 17);
    memcpy(hrr + 4, body, b + 17);
    hr = feed(&r.hs, TLS13_EPOCH_INITIAL, hrr, 4 + b + 17);
    two = r.rec.nch == 2 && view_ch(r.rec.ch[1], r.rec.ch_len[1], &v2);
    T_CHECK("hrr: an HRR with a SHA-384 suite -> ClientHello2 without the SHA-256 PSK (§4.2.11)",
            rc == 0 && hr == 0 && two && !v2.psk && !v2.modes, "rc=%d hr=%d nch=%d", rc, hr, r.rec.nch);
}

/* ------------------------------------------------------------ NewSessionTicket */

/* A resumed-capable handshake done (run_resumed), then NewSessionTicket
 * bytes: what it returns. */
static int nst_after(struct run *r, const uint8_t *m, size_t n)
{
    make_ticket(&r->ticket, 0x1301, "example.test");
    run_resumed(r, 0x1301, 0, false);
    if (r->flight_r != TLS13_HS_DONE)
        return -999;
    r->rec.tickets = 0;
    return feed(&r->hs, TLS13_EPOCH_APP, m, n);
}

static size_t build_nst(uint8_t *m, uint32_t lifetime, size_t nonce_len, size_t ticket_len, const uint8_t *exts,
                        size_t exts_len)
{
    size_t n = 4;
    be16(m + n, lifetime >> 16);
    be16(m + n + 2, lifetime & 0xffff);
    memcpy(m + n + 4, "\x01\x02\x03\x04", 4);
    n += 8;
    m[n++] = (uint8_t)nonce_len;
    memset(m + n, 0x33, nonce_len);
    n += nonce_len;
    be16(m + n, ticket_len);
    memset(m + n + 2, 0x44, ticket_len);
    n += 2 + ticket_len;
    be16(m + n, exts_len);
    if (exts_len)
        memcpy(m + n + 2, exts, exts_len);
    n += 2 + exts_len;
    m[0] = 4;
    be24(m + 1, n - 4);
    return n;
}

static void test_new_session_ticket(void)
{
    static struct run r;
    static uint8_t m[8192];
    size_t n;
    int res;

    n = build_nst(m, 3600, 8, 64, (const uint8_t *)"\x00\x2a\x00\x04\x00\x00\x40\x00", 8);
    res = nst_after(&r, m, n);
    uint8_t rms[32], thash[32], psk[32];
    /* The server's resumption_master_secret: its transcript holds our
     * Finished once it checked it. */
    srv_client_finished_ok(&r.srv, r.rec.fin, r.rec.fin_len);
    tls13_transcript_update(&r.srv.t, r.rec.fin, r.rec.fin_len);
    tls13_transcript_hash(&r.srv.t, TLS13_SHA256, thash);
    tls13_ks_resumption(&r.srv.ks, thash, rms);
    static const uint8_t nonce[8] = {0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33};
    tls13_ticket_psk(TLS13_SHA256, rms, nonce, 8, psk);
    T_CHECK("nst: after a resumed handshake, handed out: lifetime, age_add, max_early_data 16384, ALPN h2",
            res == 0 && r.rec.tickets == 1 && r.rec.ticket.lifetime_s == 3600 && r.rec.ticket.age_add == 0x01020304 &&
                r.rec.ticket.max_early_data == 16384 && r.rec.ticket.ticket_len == 64 &&
                strcmp(r.rec.ticket.alpn, "h2") == 0,
            "res=%d tickets=%d", res, r.rec.tickets);
    T_CHECK("nst: its PSK is the server's (resumption_master_secret of the resumed handshake)",
            memcmp(r.rec.ticket.psk, psk, 32) == 0, "mismatch");

    n = build_nst(m, 30 * 86400, 0, 1, NULL, 0);
    res = nst_after(&r, m, n);
    T_CHECK("nst: a lifetime over 7 days is kept as 7 days (§4.6.1); an empty nonce is fine",
            res == 0 && r.rec.tickets == 1 && r.rec.ticket.lifetime_s == 604800, "res=%d", res);
    n = build_nst(m, 0, 4, 32, NULL, 0);
    res = nst_after(&r, m, n);
    T_CHECK("nst: lifetime 0: checked, not kept", res == 0 && r.rec.tickets == 0, "res=%d", res);
    n = build_nst(m, 60, 4, TLS13_TICKET_MAX + 1, NULL, 0);
    res = nst_after(&r, m, n);
    T_CHECK("nst: a ticket over TLS13_TICKET_MAX: not kept", res == 0 && r.rec.tickets == 0, "res=%d", res);
    n = build_nst(m, 60, 4, 6000, NULL, 0);
    res = nst_after(&r, m, n);
    T_CHECK("nst: a message longer than the engine holds: skipped", res == 0 && r.rec.tickets == 0, "res=%d", res);

    n = build_nst(m, 60, 4, 0, NULL, 0);
    res = nst_after(&r, m, n);
    T_CHECK("nst: an empty ticket -> decode_error", res == E_DECODE && r.rec.tickets == 0, "res=%d", res);
    n = build_nst(m, 60, 4, 32, NULL, 0);
    m[12] = 40; /* the nonce runs past the message */
    res = nst_after(&r, m, n);
    T_CHECK("nst: a nonce longer than the message -> decode_error", res == E_DECODE, "res=%d", res);
    n = build_nst(m, 60, 4, 32, NULL, 0);
    m[n] = 0;
    m[3]++; /* a byte after the extensions */
    res = nst_after(&r, m, n + 1);
    T_CHECK("nst: trailing bytes -> decode_error", res == E_DECODE, "res=%d", res);
    n = build_nst(m, 60, 4, 32, (const uint8_t *)"\x00\x2a\x00\x02\x00\x00", 6);
    res = nst_after(&r, m, n);
    T_CHECK("nst: early_data of 2 bytes -> decode_error", res == E_DECODE, "res=%d", res);
    n = build_nst(m, 60, 4, 32, (const uint8_t *)"\x00\x2b\x00\x02\x03\x04", 6);
    res = nst_after(&r, m, n);
    T_CHECK("nst: supported_versions in a NewSessionTicket -> illegal_parameter (§4.2)", res == E_ILLEGAL_PARAM,
            "res=%d", res);
    n = build_nst(m, 60, 4, 32, (const uint8_t *)"\xfa\xfa\x00\x00", 4);
    res = nst_after(&r, m, n);
    T_CHECK("nst: an unknown extension is ignored", res == 0 && r.rec.tickets == 1, "res=%d", res);
}

int main(void)
{
    test_trace_vectors();
    test_trace_ticket();
    test_resumed();
    test_suite_choice();
    test_hrr();
    test_new_session_ticket();
    T_DONE();
}
