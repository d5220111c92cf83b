/* worker/tcp_tls.c — TLS as a filter between the socket and the session
 * (tcp.h), for https://. What the session says is sealed into the
 * connection's TLS output; ciphertext from the socket is opened in place in
 * the receive buffer and handed to the session. The handshake counts as part
 * of connecting: --connect-timeout covers it, and its failure is a connect
 * error of its own kind. A server that refuses TLS 1.3 is served by the TLS
 * 1.2 engine from then on. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "tcp.h"
#include "verifier.h"

/* What the target speaks, learnt by the first handshakes and shared by every
 * worker thread: a server that refuses TLS 1.3 is served by the TLS 1.2
 * engine from then on, without trying 1.3 again. */
enum { TARGET_UNKNOWN, TARGET_TLS12, TARGET_TLS13 };
static _Atomic int target_tls12;

/* What the user chose (--tls-max, --tlsv1.3, the lists): NULL for none. */
static const struct tls_choice *choice_of(const struct loop *l)
{
    return l->cfg->tls->choice;
}

/* --tls-max 1.2: every handshake runs the TLS 1.2 engine. */
static bool tls12_only(const struct loop *l)
{
    const struct tls_choice *ch = choice_of(l);
    return ch && ch->max_version == TLS_VERSION_12;
}

/* --tlsv1.3: a server that does not speak 1.3 is an error, never a
 * fallback. */
static bool tls13_only(const struct loop *l)
{
    const struct tls_choice *ch = choice_of(l);
    return ch && ch->min_version == TLS_VERSION_13;
}

/* --cacert: the verifier sits behind the TLS state in the slot's block
 * (allocated only then: a run that trusts every certificate pays nothing). */
static size_t verifier_offset(void) { return (tls_conn_size() + 63) & ~(size_t)63; }

size_t tcp_tls_block_size(const struct worker_config *cfg)
{
    const struct tls13_verify_config *v = cfg->tls ? cfg->tls->verify : NULL;
    return verifier_offset() + (v ? tls13_verifier_size(v->ip_len > 0) : 0);
}

static struct tls13_verifier *verifier_of(const struct loop *l, const struct conn *c)
{
    return l->cfg->tls->verify ? (struct tls13_verifier *)(void *)((uint8_t *)c->tls_mem + verifier_offset()) : NULL;
}

int tcp_tls_prepare(struct tcp *t, char *err, size_t errlen)
{
    /* Client randoms and key shares come from one DRBG per worker, seeded
     * once from the kernel: no syscall per handshake. */
    uint8_t seed[48];
    if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        snprintf(err, errlen, "getrandom failed: %s", strerror(errno));
        return -1;
    }
    br_hmac_drbg_init(&t->drbg, &br_sha256_vtable, seed, sizeof seed);
    tls13_wipe(seed, sizeof seed);
    return 0;
}

/* --early-data: with 0-RTT offered (tls_conn_early_open), the session
 * opens now and what it says at once, its first requests, is sealed as
 * early data right after the ClientHello (RFC 8446 §2.3), all of it or,
 * over the ticket's max_early_data_size, none. It is acknowledged to the
 * session only once the server has accepted it (tls_opened): rejected, it
 * is still the session's output, sealed again under the 1-RTT key, and
 * each request is counted once whatever happened. With -q a request not
 * due yet is taken later (tcp_refill: the session is open) and waits for
 * the handshake: only what the session says now goes early. */
static void early_open(struct loop *l, struct conn *c)
{
    const struct session *s = tcp_of(l)->session;
    if (!tls_conn_early_open(c->tls))
        return;
    uint64_t taken = l->taken;
    c->early = true;
    c->session_open = true;
    s->open(l, c);
    size_t len;
    const uint8_t *out = s->out(l, c, &len);
    if (len > UINT32_MAX || !tls_conn_send_early(c->tls, out, len))
        return;
    c->early_bytes = (uint32_t)len;
    c->early_reqs = (uint32_t)(l->taken - taken);
    l->w->stats.early.sent += c->early_reqs;
}

/* The handshake is over with the session opened early: the server's
 * verdict on the early data (its EncryptedExtensions, §4.2.10). */
static void early_verdict(struct loop *l, struct conn *c)
{
    struct early_data *e = &l->w->stats.early;
    c->early = false;
    if (c->early_bytes == 0)
        return;
    if (tls_conn_early_accepted(c->tls)) {
        tcp_of(l)->session->out_ack(l, c, c->early_bytes);
        e->accepted += c->early_reqs;
    } else {
        e->resent += c->early_reqs; /* still the session's output: tcp_tls_flush seals it again */
    }
    c->early_bytes = 0;
}

/* A handshake that failed costs its request; with the session opened
 * early, the requests it holds, as errors of kind. */
static void handshake_charge(struct loop *l, struct conn *c, enum err_kind kind)
{
    if (c->early) {
        c->early = false;
        tcp_of(l)->session->lost(l, c, kind, LOST_FAILED);
        c->session_open = false;
        return;
    }
    loop_charge(l, kind, c->s.idx);
}

/* The socket connected: the ClientHello goes after the batch. */
void tcp_tls_start(struct loop *l, struct conn *c)
{
    struct tcp *t = tcp_of(l);
    uint8_t entropy[TLS13_ENTROPY_LEN];
    br_hmac_drbg_generate(&t->drbg, entropy, sizeof entropy);
    c->tls12 = target_tls12 == TARGET_TLS12 || tls12_only(l);
    struct tls13_resume r;
    const struct tls13_resume *resume = c->tls12 ? NULL : resume_for(&t->resume, c->s.idx, l->now, &r);
    if (resume)
        r.early_data = l->cfg->early_data;
    /* tls_conn_init_resume reads its config only while it runs: this
     * connection's copy carries its verifier. */
    struct tls_config cfg = *l->cfg->tls;
    if ((cfg.verifier = verifier_of(l, c)))
        worker_verifier_start(cfg.verifier, cfg.verify);
    cfg.key_share_group = resume_key_share(&t->resume); /* what a HelloRetryRequest asked for */
    c->tls = tls_conn_init_resume(c->tls_mem, &cfg, entropy, c->tls12, resume,
                                  c->tls12 ? resume_session12(&t->resume, c->s.idx) : NULL);
    tls13_wipe(entropy, sizeof entropy);
    c->handshaking = true;
    c->handshake_deadline = l->now + l->cfg->connect_timeout_ns;
    c->phase_ns = l->now;
    c->early = false;
    c->early_bytes = 0;
    c->early_reqs = 0;
    early_open(l, c);
    tcp_flush_later(l, c);
}

/* Seals what the session has to say (once the handshake is done), and
 * sends the records unless a send is in flight. */
void tcp_tls_flush(struct loop *l, struct conn *c)
{
    if (c->session_open && !c->early) {
        const struct session *s = tcp_of(l)->session;
        size_t len;
        const uint8_t *out = s->out(l, c, &len);
        if (len)
            s->out_ack(l, c, tls_conn_send(c->tls, out, len)); /* sealed: the session may reuse it */
    }
    if (c->s.sending)
        return;
    size_t len;
    const uint8_t *out = tls_conn_out(c->tls, &len);
    if (len)
        tcp_send(l, c, out, len);
}

/* The socket took n bytes of records: the session may say more. */
void tcp_tls_sent(struct loop *l, struct conn *c, size_t n)
{
    tls_conn_out_ack(c->tls, n);
    if (c->session_open)
        tcp_of(l)->session->sent(l, c);
    tcp_flush_later(l, c);
}

bool tcp_tls_all_sent(const struct conn *c)
{
    size_t sealed;
    tls_conn_out(c->tls, &sealed);
    return sealed == 0;
}

/* The handshake is over: the session starts. Returns false when the run
 * cannot go on. */
static bool tls_opened(struct loop *l, struct conn *c)
{
    const struct session *s = tcp_of(l)->session;
    bool opened_early = c->early;
    c->handshaking = false;
    if (opened_early)
        early_verdict(l, c);
    loop_phase(l, &l->w->stats.phases.tls_handshake, c->phase_ns);
    resume_handshake_done(&tcp_of(l)->resume, &l->w->stats.handshakes, tls_conn_resumed(c->tls),
                          tls_conn_hrr_group(c->tls));
    if (c->tls12)
        resume_keep12(&tcp_of(l)->resume, c->s.idx, c->tls);
    if (l->w->stats.tls.version == 0) /* the report's TLS line: the first handshake's */
        tls_conn_negotiated(c->tls, &l->w->stats.tls);
    if (!c->tls12) {
        int unknown = TARGET_UNKNOWN;
        atomic_compare_exchange_strong(&target_tls12, &unknown, TARGET_TLS13);
    }
    /* RFC 7301 §3.2: the server picks; a server that will not speak h2
     * is a clear error, not a silent downgrade to HTTP/1.1. */
    if (s->alpn && strcmp(tls_conn_alpn(c->tls), s->alpn) != 0) {
        const char *alpn = tls_conn_alpn(c->tls);
        char what[96];
        snprintf(what, sizeof what, "the server did not select %s with ALPN: it chose ", s->name);
        loop_fatal(l, what, *alpn ? alpn : "no protocol (an HTTP/1.1-only server?)");
        return false;
    }
    if (!opened_early) {
        c->session_open = true;
        s->open(l, c);
    }
    return true;
}

/* Plaintext for the session, from one tls_conn_recv. */
struct tls_plain_ctx {
    struct loop *l;
    struct conn *c;
    bool alive; /* the session still wants the connection */
};

static void tls_plain(void *ctx, uint8_t *p, size_t n)
{
    struct tls_plain_ctx *x = ctx;
    struct conn *c = x->c;
    /* TLS 1.2: the server's Finished and its first bytes (an HTTP/2
     * SETTINGS) can arrive in one read, so plaintext may come before
     * tls_conn_recv has returned TLS_HANDSHAKE_DONE. */
    if (x->alive && c->handshaking && !tls_opened(x->l, c))
        x->alive = false;
    if (x->alive && !tcp_of(x->l)->session->data(x->l, c, p, n))
        x->alive = false;
}

/* A failed TLS 1.3 handshake that means "this server does not speak 1.3":
 * it chose 1.2, answered protocol_version, or (some 1.2-only servers, while
 * no 1.3 handshake has worked yet) handshake_failure. */
static bool tls12_fallback_wanted(const struct loop *l, const struct conn *c, int rc)
{
    int alert = tls_conn_alert(c->tls);
    return c->handshaking && !c->tls12 && !tls13_only(l) &&
           (rc == TLS_ERR_FALLBACK_TLS12 || alert == -70 || (alert == -40 && target_tls12 != TARGET_TLS13));
}

/* The alert that ended this connection, named in the report (RFC 8446 §6).
 * A refusal that only sends us to the TLS 1.2 engine is not counted: it
 * costs no request. */
static void tls_count_alert(struct loop *l, struct conn *c, int rc)
{
    int alert = tls_conn_alert(c->tls);
    if (alert == 0 || tls12_fallback_wanted(l, c, rc))
        return;
    if (alert < 0)
        l->w->stats.alerts_received[(-alert) & 0xff]++;
    else
        l->w->stats.alerts_sent[alert & 0xff]++;
}

/* Why a TLS connection failed, as kind's message: the alert that ended it
 * ("received alert handshake_failure", "sent alert bad_record_mac"). */
static void tls_why(struct loop *l, struct conn *c, enum err_kind kind)
{
    int alert = tls_conn_alert(c->tls);
    char what[ERR_WHY_MAX];
    /* --cacert: the reason in words, and the alert we sent for it. */
    if (c->handshaking && worker_verifier_why(verifier_of(l, c), alert, what, sizeof what))
        loop_why(l, kind, what, NULL);
    else if (alert < 0)
        loop_why(l, kind, "received alert ", tls_alert_name(-alert));
    else if (alert == 40 && !c->tls12 && l->cfg->tls->cred) /* the 1.3 engine's one handshake_failure (handshake.h) */
        loop_why(l, kind, "sent alert handshake_failure: ",
                 "the server's CertificateRequest allows no signature scheme the --cert key can make");
    else if (alert > 0)
        loop_why(l, kind, "sent alert ", tls_alert_name(alert));
    else
        loop_why(l, kind, kind == ERR_TLS_HANDSHAKE ? "the TLS handshake failed" : "a TLS record that does not open",
                 NULL);
}

/* A handshake that failed the way a server that cannot meet the user's
 * choice fails (alert 0: it closed without a word, as some do, see
 * tcp_tls_silent_refusal): the report names the choice, as a hint. */
static void choice_refused(struct loop *l, int alert)
{
    const struct tls_choice *ch = choice_of(l);
    if (!ch || !ch->what[0] || stats_why_kept(&l->w->stats, ERR_TLS_HANDSHAKE, true))
        return;
    char what[TLS_CHOICE_WHAT_MAX + 80];
    if (alert == 0)
        snprintf(what, sizeof what, "closed the connection during the TLS handshake: it may not meet %s", ch->what);
    else if (!tls_choice_refused(ch, alert, what, sizeof what))
        return;
    loop_hint(l, ERR_TLS_HANDSHAKE, what);
}

/* Ciphertext from the socket. False: close the connection. */
bool tcp_tls_data(struct loop *l, struct conn *c, uint8_t *p, size_t n)
{
    const struct session *s = tcp_of(l)->session;
    struct tls_plain_ctx x = { l, c, true };
    int rc = tls_conn_recv(c->tls, p, n, tls_plain, &x);
    if (rc == TLS_HANDSHAKE_DONE) {
        if (c->handshaking && !tls_opened(l, c))
            return false;
    } else if (rc < 0) {
        tcp_flush(l, c); /* our alert, if we sent one */
        /* Waiting for the tick is for an alert that says why we end the
         * connection. A close_notify of ours answering the server's (BearSSL's
         * TLS 1.2 engine sends one) says nothing the server needs: the new
         * connection goes now, not up to 100 ms later. */
        c->goodbye = c->s.sending && rc != TLS_CLOSED;
        tls_count_alert(l, c, rc);
        if (c->handshaking) {
            int alert = tls_conn_alert(c->tls);
            /* This connection is replaced by one running the 1.2 engine, as
             * every later one is; nothing was taken from the budget for it,
             * so nothing is counted. A 1.2 handshake that fails is an
             * ordinary error. */
            if (tls12_fallback_wanted(l, c, rc)) {
                target_tls12 = TARGET_TLS12;
                if (c->early)
                    handshake_charge(l, c, ERR_TLS_HANDSHAKE);
                return false;
            }
            /* A refusal no retry will change (RFC 7301 §3.2): none of the
             * protocols we offered. */
            if (alert == -120)
                loop_fatal(l, "the server does not speak ", s->alpn_refused);
            tls_why(l, c, ERR_TLS_HANDSHAKE);
            choice_refused(l, alert);
            handshake_charge(l, c, ERR_TLS_HANDSHAKE);
            return false;
        }
        /* After the handshake: close_notify is a clean close; a record that
         * does not open, is too large or is unexpected, and a fatal alert
         * from the server, are TLS errors (the alert is named in the
         * report). */
        if (x.alive) {
            if (rc != TLS_CLOSED)
                tls_why(l, c, ERR_TLS);
            s->lost(l, c, rc == TLS_CLOSED ? ERR_CLOSED : ERR_TLS, rc == TLS_CLOSED ? LOST_EOF : LOST_FAILED);
        }
        return false;
    }
    tcp_flush_later(l, c);
    return x.alive;
}

bool tcp_tls_lost(struct loop *l, struct conn *c, enum lost_how *how, const char *why)
{
    if (!c->handshaking) {
        /* The records a failed send lost may hold any part of a request. */
        if (*how == LOST_SEND)
            *how = LOST_FAILED;
        return false;
    }
    /* EOF or reset mid-handshake */
    if (*how == LOST_EOF) {
        loop_why(l, ERR_TLS_HANDSHAKE, "the server closed the connection during the TLS handshake", NULL);
        choice_refused(l, 0);
    } else if (why)
        loop_why(l, ERR_TLS_HANDSHAKE, "during the TLS handshake: ", why);
    handshake_charge(l, c, ERR_TLS_HANDSHAKE);
    return true;
}

/* A TLS 1.2-only server that finds no cipher suite it can use in our
 * TLS 1.3 ClientHello may close without a word (lighttpd with mod_gnutls
 * does: no alert, no ServerHello). While no 1.3 handshake has worked, a
 * close or reset before the server's first byte is taken as that refusal,
 * as handshake_failure is: the TLS 1.2 engine gets the next attempt, and
 * this one costs no request. */
bool tcp_tls_silent_refusal(const struct loop *l, struct conn *c)
{
    if (!c->handshaking || c->tls12 || c->heard || target_tls12 == TARGET_TLS13 || tls13_only(l))
        return false;
    target_tls12 = TARGET_TLS12;
    return true;
}

bool tcp_tls_tick(struct loop *l, struct conn *c)
{
    if (l->now < c->handshake_deadline)
        return true;
    loop_why_within(l, ERR_CONNECT_TIMEOUT, "TLS handshake not done within ", l->cfg->connect_timeout_ns);
    handshake_charge(l, c, ERR_CONNECT_TIMEOUT); /* --connect-timeout covers the handshake */
    return false;
}
