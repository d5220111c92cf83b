/* quic/conn.c — the QUIC v1 client connection: what happens to a datagram
 * once it is in memory, and how the next ones are built (quic/conn.h).
 *
 * Layout of the work:
 *   input   -> packets (quic/packet.c) -> frames (quic/frame.c) -> ACKs to
 *              recovery (quic/recovery.c), CRYPTO to TLS (tls13/), STREAM
 *              and the other stream frames to quic/stream.c, which hands
 *              the data to the application in order (the pool holds what
 *              came early)
 *   output  -> per datagram, per level: ACK, CRYPTO, control frames, then
 *              quic/stream.c's flow control and STREAM frames of the
 *              streams queued for sending, sealed in place
 *   timers  -> recovery's loss timer, the ACK delay, the idle timeout
 *
 * This file owns the connection's life (init, close, the state), its
 * connection IDs, the TLS handshake and the keys of every level (key
 * updates included), the packet number spaces and their ACKs, CRYPTO in
 * and out, and the timers; quic/stream.c owns the streams, flow control
 * and the pool. struct quic_conn, shared by both, is in
 * quic/conn_internal.h.
 *
 * Packet number spaces and TLS epochs map one to one: Initial (epoch 0),
 * Handshake (2), ApplicationData (3); 0-RTT packets (epoch 1, --early-data)
 * are ApplicationData's too (RFC 9000 §12.3), sealed with the early keys
 * until the 1-RTT ones come. */
#include "quic/conn.h"
#include "quic/conn_internal.h"

#include <stdio.h> /* snprintf, for a message */
#include <string.h>

#include "quic/ackset.h"
#include "quic/frame.h"
#include "quic/packet.h"
#include "quic/tparams.h"
#include "tls13/credentials.h"
#include "tls13/handshake.h"

#define ACK_DELAY_NS 2000000ull   /* one ack-eliciting packet waits at most this for company */
#define OUR_MAX_ACK_DELAY_MS 25   /* what we advertise (the default; ACK_DELAY_NS is well within) */
#define MIN_PACKET_ROOM 48        /* a packet with less room than this is not started */

_Static_assert(QUIC_CONN_ENTROPY >= 2 * CID_LEN + TLS13_ENTROPY_LEN, "entropy: two CIDs and the TLS handshake's");

/* ---- small helpers -------------------------------------------------------- */

static enum tls13_epoch space_epoch(enum quic_space s)
{
    return s == QUIC_SPACE_INITIAL ? TLS13_EPOCH_INITIAL : s == QUIC_SPACE_HANDSHAKE ? TLS13_EPOCH_HANDSHAKE : TLS13_EPOCH_APP;
}

static enum quic_space epoch_space(enum tls13_epoch e)
{
    return e == TLS13_EPOCH_INITIAL ? QUIC_SPACE_INITIAL : e == TLS13_EPOCH_HANDSHAKE ? QUIC_SPACE_HANDSHAKE : QUIC_SPACE_APP;
}

static unsigned pkt_bit(enum quic_space s)
{
    return s == QUIC_SPACE_INITIAL ? QUIC_FRAME_IN_INITIAL : s == QUIC_SPACE_HANDSHAKE ? QUIC_FRAME_IN_HANDSHAKE : QUIC_FRAME_IN_1RTT;
}

static void set_close(struct quic_conn *c, enum quic_close_kind kind, bool app, uint64_t code, uint64_t frame_type,
                      const char *reason, size_t reason_len)
{
    if (c->state == QUIC_CLOSED || c->close.kind != QUIC_CLOSE_NONE)
        return;
    c->close.kind = kind;
    c->close.app = app;
    c->close.code = code;
    c->close.frame_type = frame_type;
    c->close.during_handshake = c->state == QUIC_HANDSHAKING;
    if (reason_len >= sizeof c->close.reason)
        reason_len = sizeof c->close.reason - 1;
    if (reason != NULL)
        memcpy(c->close.reason, reason, reason_len);
    c->close.reason[reason != NULL ? reason_len : 0] = '\0';
    /* Our own close still has a CONNECTION_CLOSE to send (§10.2); the
     * peer's, an idle timeout or a reset leave nothing to say. */
    if (kind == QUIC_CLOSE_LOCAL || kind == QUIC_CLOSE_HANDSHAKE)
        c->close_pending = true;
    else
        c->state = QUIC_CLOSED;
}

/* RFC 9000 §12.3: "If the packet number for sending reaches 2^62-1, the
 * sender MUST close the connection without sending a CONNECTION_CLOSE
 * frame or any further packets". So the last number used is 2^62-2, and a
 * close already pending (ours) is dropped unsent. */
static void pn_exhausted(struct quic_conn *c)
{
    c->close_pending = false;
    c->close.kind = QUIC_CLOSE_NONE; /* a pending close of ours gives way */
    set_close(c, QUIC_CLOSE_PN_EXHAUSTED, false, 0, 0, NULL, 0);
}

/* A transport error we detected: the connection closes with it. */
static void fail(struct quic_conn *c, uint64_t code, uint64_t frame_type, const char *why)
{
    set_close(c, QUIC_CLOSE_LOCAL, false, code, frame_type, why, strlen(why));
}

/* ---- TLS callbacks ---------------------------------------------------------- */

static void tls_emit(void *ctx, enum tls13_epoch epoch, const uint8_t *p, size_t n)
{
    struct quic_conn *c = ctx;
    struct crypto_level *l = &c->crypto[epoch_space(epoch)];
    if (l->out == NULL || n > l->out_cap - l->out_len) {
        /* Post-handshake messages (KeyUpdate is not used by QUIC, RFC 9001
         * §6) or a flight that cannot fit: not ours to send. */
        if (epoch != TLS13_EPOCH_APP)
            fail(c, QUIC_INTERNAL_ERROR, 0, "handshake flight too large");
        return;
    }
    memcpy(l->out + l->out_len, p, n);
    l->out_len += (uint32_t)n;
}

/* ---- 0-RTT ---------------------------------------------------------------- */

/* client_early_traffic_secret is out (right after our ClientHello): the
 * 0-RTT keys (RFC 9001 §5.1: the same "quic key/iv/hp" labels), and until
 * the handshake ends the server's remembered parameters stand for its own
 * (RFC 9000 §7.4.1: "a client MUST only use remembered transport
 * parameters" in 0-RTT packets). */
static void early_open(struct quic_conn *c, const struct tls13_suite *suite, const uint8_t *secret)
{
    c->has_early_wr = quic_keys_init(&c->early_wr, suite->id, secret) == 0;
    if (!c->has_early_wr)
        return;
    c->early = QUIC_EARLY_OPEN;
    c->peer = c->remembered;
    c->send_max = c->remembered.initial_max_data;
    c->peer_max_streams = c->remembered.initial_max_streams_bidi;
    c->peer_max_uni = c->remembered.initial_max_streams_uni;
}

/* Everything sent in 0-RTT packets is lost: recovery forgets those packets
 * (they will never be acknowledged; the space keeps its numbers, RFC 9000
 * §12.3) and the streams send from the start again, after a Retry still
 * in 0-RTT under the remembered limits, after a rejection in 1-RTT under
 * the handshake's (established). */
static void early_lost(struct quic_conn *c)
{
    struct quic_rec_space *rs = &c->rec.space[QUIC_SPACE_APP];
    uint64_t next = rs->next_pn;
    quic_rec_discard_space(&c->rec, QUIC_SPACE_APP);
    rs->discarded = false;
    rs->next_pn = rs->oldest = next;
    quic_streams_restart(c, c->has_early_wr ? c->remembered.initial_max_stream_data_bidi_remote : 0);
}

/* After each handshake step: the server's verdict on our 0-RTT. A
 * HelloRetryRequest or EncryptedExtensions without early_data rejects it
 * (RFC 8446 §4.2.10), the engine then no longer offering it: RFC 9001
 * §4.6.2, "all 0-RTT data is lost", resent in 1-RTT packets, and no more
 * 0-RTT packets (the keys go). */
static void early_verdict(struct quic_conn *c)
{
    if (c->early != QUIC_EARLY_OPEN)
        return;
    if (tls13_hs_early_accepted(&c->hs)) {
        c->early = QUIC_EARLY_ACCEPTED;
        return;
    }
    if (tls13_hs_early_budget(&c->hs) != 0)
        return; /* still offered: no EncryptedExtensions yet */
    c->early = QUIC_EARLY_REJECTED;
    quic_keys_wipe(&c->early_wr);
    c->has_early_wr = false;
    early_lost(c);
}

static void tls_secret(void *ctx, enum tls13_epoch epoch, bool write, const struct tls13_suite *suite,
                       const uint8_t *secret)
{
    struct quic_conn *c = ctx;
    size_t hlen = tls13_hash_len(suite->hash);
    c->suite = suite->id;
    if (epoch == TLS13_EPOCH_HANDSHAKE) {
        struct space *s = &c->space[QUIC_SPACE_HANDSHAKE];
        if (write)
            s->has_wr = quic_keys_init(&s->wr, suite->id, secret) == 0;
        else
            s->has_rd = quic_keys_init(&s->rd, suite->id, secret) == 0;
        if (s->has_wr && s->has_rd)
            quic_rec_set_handshake_keys(&c->rec);
        return;
    }
    if (epoch == TLS13_EPOCH_EARLY) {
        early_open(c, suite, secret);
        return;
    }
    if (epoch != TLS13_EPOCH_APP)
        return;
    struct space *s = &c->space[QUIC_SPACE_APP];
    if (write) {
        /* RFC 9001 §4.9.3: "a client SHOULD discard 0-RTT keys as soon as
         * it installs 1-RTT keys". */
        if (c->has_early_wr) {
            quic_keys_wipe(&c->early_wr);
            c->has_early_wr = false;
        }
        memcpy(c->app_wr_secret, secret, hlen);
        s->has_wr = quic_keys_init(&s->wr, suite->id, secret) == 0;
    } else {
        /* Phase 0 keys, and phase 1's ready for the server's first key
         * update (RFC 9001 §6.3: computed ahead, so trying them costs no
         * derivation on the hot path). */
        memcpy(c->app_rd_secret, secret, hlen);
        s->has_rd = quic_keys_init(&c->app_rd[0], suite->id, secret) == 0;
        c->app_rd[1] = c->app_rd[0];
        if (quic_keys_update(&c->app_rd[1], suite->id, c->app_rd_secret) != 0)
            s->has_rd = false;
    }
}

static const struct tls13_hs_callbacks tls_cb = { .emit = tls_emit, .secret = tls_secret };

/* ---- memory ----------------------------------------------------------------- */

/* With a client certificate (cfg->cred), the Handshake space's CRYPTO
 * output holds Certificate (the chain, RFC 8446 §4.4.2), CertificateVerify
 * and Finished: a buffer after the streams, sized for that chain, instead
 * of crypto_hs_buf. */
static size_t crypto_hs_cred_size(const struct quic_conn_config *cfg)
{
    if (!cfg->cred)
        return 0;
    return CRYPTO_OUT_HANDSHAKE + 8 + cfg->cred->der_len + 5 * cfg->cred->chain_len + 8 + TLS13_CRED_SIG_MAX;
}

size_t quic_conn_size(const struct quic_conn_config *cfg)
{
    size_t head = (sizeof(struct quic_conn) + 15) & ~(size_t)15;
    return head + quic_streams_size(cfg) + crypto_hs_cred_size(cfg);
}

/* ---- connection IDs ------------------------------------------------------ */

static bool cid_is_ours(const struct quic_conn *c, const struct quic_hdr *h)
{
    return h->dcid_len == CID_LEN && memcmp(h->dcid, c->scid, CID_LEN) == 0;
}

/* §10.3.1: a datagram that does not decrypt but ends in a stateless reset
 * token of one of the server's connection IDs ends the connection. */
static bool is_stateless_reset(const struct quic_conn *c, const uint8_t *dgram, size_t len)
{
    if (len < 21 || (dgram[0] & 0x80) != 0)
        return false;
    /* Only the token of the connection ID in use (§10.3.1: never those of
     * IDs not used yet or retired); new_cid moves it here on a switch. */
    const uint8_t *tail = dgram + len - 16;
    return c->peer.has_stateless_reset_token && memcmp(tail, c->peer.stateless_reset_token, 16) == 0;
}

/* ---- init --------------------------------------------------------------------- */

static const struct quic_rec_callbacks rec_cb;

struct quic_conn *quic_conn_init(void *mem, const struct quic_conn_config *cfg, const uint8_t entropy[QUIC_CONN_ENTROPY],
                                 const struct quic_conn_callbacks *cb, void *ctx, uint64_t now)
{
    return quic_conn_init_resume(mem, cfg, entropy, cb, ctx, now, NULL, NULL);
}

struct quic_conn *quic_conn_init_resume(void *mem, const struct quic_conn_config *cfg,
                                        const uint8_t entropy[QUIC_CONN_ENTROPY], const struct quic_conn_callbacks *cb,
                                        void *ctx, uint64_t now, const struct tls13_resume *resume,
                                        const struct quic_tparams *remembered)
{
    struct quic_conn *c = mem;
    size_t head = (sizeof(struct quic_conn) + 15) & ~(size_t)15;
    struct quic_tparams tp;
    struct tls13_resume r;

    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->cb = *cb;
    c->ctx = ctx;
    c->state = QUIC_HANDSHAKING;
    c->start_time = now;
    quic_streams_init(c, (uint8_t *)mem + head);

    memcpy(c->scid, entropy, CID_LEN);
    memcpy(c->odcid, entropy + CID_LEN, CID_LEN);
    memcpy(c->dcid, c->odcid, CID_LEN);
    c->dcid_len = CID_LEN;
    /* Half of AES-GCM's 2^23 (RFC 9001 §6.6); ChaCha20's is far above. */
    c->key_update_after = cfg->key_update_after ? cfg->key_update_after : 1ull << 22;
    if (cfg->first_app_pn > QUIC_FIRST_APP_PN_MAX)
        return NULL;
    c->cnt.largest_app_pn_sent = QUIC_PN_NONE;

    for (int i = 0; i < QUIC_SPACES; i++) {
        quic_ackset_init(&c->space[i].recvd);
        c->space[i].largest_recv = QUIC_PN_NONE;
    }
    c->crypto[QUIC_SPACE_INITIAL].out = c->crypto_init_buf;
    c->crypto[QUIC_SPACE_INITIAL].out_cap = sizeof c->crypto_init_buf;
    c->crypto[QUIC_SPACE_HANDSHAKE].out = c->crypto_hs_buf;
    c->crypto[QUIC_SPACE_HANDSHAKE].out_cap = sizeof c->crypto_hs_buf;
    if (cfg->cred) {
        c->crypto[QUIC_SPACE_HANDSHAKE].out = (uint8_t *)mem + head + quic_streams_size(cfg);
        c->crypto[QUIC_SPACE_HANDSHAKE].out_cap = (uint32_t)crypto_hs_cred_size(cfg);
    }

    struct space *in = &c->space[QUIC_SPACE_INITIAL];
    if (quic_keys_initial(&in->wr, &in->rd, c->dcid, c->dcid_len) != 0)
        return NULL;
    in->has_rd = in->has_wr = true;
    quic_rec_init(&c->rec, QUIC_DGRAM_SIZE, &rec_cb, c);
    c->rec.space[QUIC_SPACE_APP].next_pn = c->rec.space[QUIC_SPACE_APP].oldest = cfg->first_app_pn;
#ifdef SHB_TEST_KNOBS
    c->app_pn_target = cfg->app_pn_target;
#endif

    /* Our transport parameters (RFC 9000 §18.2). Streams the server opens:
     * none bidirectional (HTTP/3 has none, RFC 9114 §6.1), UNI_MAX
     * unidirectional (control, QPACK encoder and decoder, and room for
     * GREASE streams, §6.2.3). */
    quic_tparams_defaults(&tp);
    tp.max_idle_timeout = cfg->idle_timeout_ns / 1000000;
    tp.max_udp_payload_size = POOL_DATA_MAX;
    tp.initial_max_data = cfg->conn_window;
    tp.initial_max_stream_data_bidi_local = cfg->stream_window;
    tp.initial_max_stream_data_uni = QUIC_UNI_WINDOW_OF(cfg);
    tp.initial_max_streams_uni = UNI_MAX;
    tp.active_connection_id_limit = CID_SLOTS + 1;
    tp.max_ack_delay = OUR_MAX_ACK_DELAY_MS;
    tp.initial_scid.present = true;
    tp.initial_scid.len = CID_LEN;
    memcpy(tp.initial_scid.id, c->scid, CID_LEN);
    c->tparams_len = quic_tparams_encode(&tp, c->tparams, sizeof c->tparams);
    c->recv_max = cfg->conn_window;
    for (unsigned i = 0; i < UNI_MAX; i++)
        c->uni[i].recv_max = tp.initial_max_stream_data_uni;
    c->idle_timeout_ns = cfg->idle_timeout_ns;
    c->idle_deadline = cfg->idle_timeout_ns ? now + cfg->idle_timeout_ns : 0;

    /* 0-RTT needs the server's parameters of the ticket's connection
     * (RFC 9000 §7.4.1): without them it is not offered. The engine hands
     * the early secret out from tls13_hs_start, so they are in place
     * first. */
    if (resume != NULL && resume->early_data && remembered == NULL) {
        r = *resume;
        r.early_data = false;
        resume = &r;
    } else if (remembered != NULL) {
        c->remembered = *remembered;
    }

    struct tls13_hs_config hc = {
        .server_name = cfg->server_name,
        .alpn = cfg->alpn,
        .alpn_len = cfg->alpn_len,
        .quic = true,
        .quic_params = c->tparams,
        .quic_params_len = c->tparams_len,
        .suites = cfg->tls ? cfg->tls->suites13 : NULL,
        .nsuites = cfg->tls ? cfg->tls->nsuites13 : 0,
        .groups = cfg->tls ? cfg->tls->groups : NULL,
        .ngroups = cfg->tls ? cfg->tls->ngroups : 0,
        .key_share_group = cfg->key_share_group,
        .cred = cfg->cred,
        .resume = resume,
        .verifier = cfg->verifier,
    };
    if (c->tparams_len == 0 || tls13_hs_start(&c->hs, &hc, entropy + 2 * CID_LEN, &tls_cb, c) != 0)
        return NULL;
    return c;
}

/* ---- receiving: CRYPTO ------------------------------------------------------- */

static void handshake_complete(struct quic_conn *c, uint64_t now);

static void crypto_feed(struct quic_conn *c, enum quic_space s, const uint8_t *p, size_t n, uint64_t now)
{
    int rc = tls13_hs_input(&c->hs, space_epoch(s), p, n);
    if (rc >= 0)
        early_verdict(c);
    if (rc == TLS13_HS_DONE) {
        handshake_complete(c, now);
    } else if (rc == TLS13_ERR_QUIC_EARLY_DATA_SIZE) {
        fail(c, QUIC_PROTOCOL_VIOLATION, QUIC_FT_CRYPTO, "ticket's early_data not 0xffffffff");
    } else if (rc < 0) {
        int alert = rc == TLS13_ERR_FALLBACK_TLS12 ? 70 /* protocol_version: QUIC needs 1.3 */
                    : rc <= TLS13_ERR_PEER_ALERT_BASE ? TLS13_ERR_PEER_ALERT_BASE - rc
                                                      : -rc;
        /* After the handshake (a post-handshake message in 1-RTT CRYPTO,
         * RFC 9001 §4.1.3) it is no failed handshake but our close for the
         * server's error, with its alert (RFC 9001 §4.8). */
        bool after = c->state != QUIC_HANDSHAKING;
        c->close.tls_alert = alert;
        if (after)
            set_close(c, QUIC_CLOSE_LOCAL, false, QUIC_CRYPTO_ERROR(alert), QUIC_FT_CRYPTO,
                      "TLS message after the handshake", 31);
        else
            set_close(c, QUIC_CLOSE_HANDSHAKE, false, QUIC_CRYPTO_ERROR(alert), QUIC_FT_CRYPTO, "TLS handshake failed",
                      20);
    }
}

static int crypto_recv(struct quic_conn *c, enum quic_space s, uint64_t off, const uint8_t *p, size_t n, uint64_t now)
{
    struct crypto_level *l = &c->crypto[s];
    uint64_t key = NONE - (uint64_t)s;
    uint64_t end = off + n;

    if (end <= l->in_off)
        return 0; /* all of it seen before */
    /* §7.5: at least 4096 bytes of out-of-order CRYPTO data must be
     * buffered; ours is the pool's size. More is CRYPTO_BUFFER_EXCEEDED. */
    if (off > l->in_off) {
        if (end - l->in_off > (uint64_t)POOL_SLOTS_MIN * POOL_DATA_MAX)
            return -QUIC_CRYPTO_BUFFER_EXCEEDED;
        if (!quic_pool_put(c, key, off, p, n, false))
            c->abort_packet = true;
        return 0;
    }
    p += l->in_off - off;
    n = (size_t)(end - l->in_off);
    l->in_off = end;
    crypto_feed(c, s, p, n, now);
    /* What had arrived early may follow on now (RFC 9000 §7.5: in order,
     * whatever order the packets came in). */
    for (struct pool_ent *e; c->close.kind == QUIC_CLOSE_NONE && (e = quic_pool_find(c, key, l->in_off)) != NULL;) {
        uint64_t eend = e->off + e->len;
        if (eend > l->in_off) {
            size_t skip = (size_t)(l->in_off - e->off);
            l->in_off = eend;
            crypto_feed(c, s, e->data + skip, e->len - skip, now);
        }
        quic_pool_release(c, e);
    }
    return 0;
}

/* ---- handshake -------------------------------------------------------------- */

static void established(struct quic_conn *c, uint64_t now);

static void handshake_complete(struct quic_conn *c, uint64_t now)
{
    int rc;
    const char *alpn = tls13_hs_alpn(&c->hs);

    /* RFC 9001 §8.1: QUIC requires ALPN; no agreed protocol is
     * no_application_protocol (0x178). */
    if (alpn[0] == '\0') {
        c->close.tls_alert = 120;
        set_close(c, QUIC_CLOSE_HANDSHAKE, false, QUIC_CRYPTO_ERROR(120), 0, "no application protocol", 23);
        return;
    }
    rc = quic_tparams_decode(&c->peer, c->hs.quic_params_peer, c->hs.quic_params_peer_len, true);
    if (rc == 0)
        rc = quic_tparams_check_cids(&c->peer, c->odcid, CID_LEN, c->server_scid, c->server_scid_len,
                                     c->retried ? c->retry_scid : NULL, c->retry_scid_len);
    if (rc != 0) {
        fail(c, QUIC_TRANSPORT_PARAMETER_ERROR, 0, "bad transport parameters");
        return;
    }
    const char *which;
    if (c->early == QUIC_EARLY_ACCEPTED && quic_tparams_check_0rtt(&c->remembered, &c->peer, &which) != 0) {
        char why[64];
        snprintf(why, sizeof why, "0-RTT accepted with a lower %s", which);
        fail(c, QUIC_PROTOCOL_VIOLATION, 0, why);
        return;
    }
    established(c, now);
}

/* The handshake is complete and c->peer holds the server's parameters. */
static void established(struct quic_conn *c, uint64_t now)
{
    c->hs_done = true;
    c->state = QUIC_ESTABLISHED;
    c->cnt.handshake_ns = now - c->start_time;
    c->send_max = c->peer.initial_max_data;
    c->peer_max_streams = c->peer.initial_max_streams_bidi;
    c->peer_max_uni = c->peer.initial_max_streams_uni;
    if (c->early != QUIC_EARLY_NONE)
        quic_streams_established(c);
    quic_rec_set_max_ack_delay(&c->rec, c->peer.max_ack_delay * 1000000ull);
    /* §10.1: the effective idle timeout is the smaller of the two, where
     * 0 means "none". */
    uint64_t peer_idle = c->peer.max_idle_timeout * 1000000ull;
    if (peer_idle && (c->idle_timeout_ns == 0 || peer_idle < c->idle_timeout_ns))
        c->idle_timeout_ns = peer_idle;
    c->idle_deadline = c->idle_timeout_ns ? now + c->idle_timeout_ns : 0;
}

/* A space's keys go (RFC 9001 §4.9): recovery forgets its packets in
 * flight, the keys are wiped, and pooled datagrams under them are dropped. */
static void discard_space(struct quic_conn *c, enum quic_space sp)
{
    struct space *s = &c->space[sp];
    quic_rec_discard_space(&c->rec, sp);
    quic_keys_wipe(&s->rd);
    quic_keys_wipe(&s->wr);
    s->has_rd = s->has_wr = false;
    s->ack_pending = false;
    quic_pool_drop_key(c, NONE - sp);
}

/* HANDSHAKE_DONE (RFC 9001 §4.1.2): confirmed; Handshake keys go (§4.9.2). */
static void handshake_confirmed(struct quic_conn *c, uint64_t now)
{
    if (c->confirmed)
        return;
    c->confirmed = true;
    quic_rec_set_handshake_confirmed(&c->rec, now);
    const struct space *s = &c->space[QUIC_SPACE_HANDSHAKE];
    if (s->has_rd || s->has_wr)
        discard_space(c, QUIC_SPACE_HANDSHAKE);
}

/* ---- receiving: frames ------------------------------------------------------ */

static void new_cid(struct quic_conn *c, const struct quic_frame *f)
{
    unsigned free_slot = CID_SLOTS;
    for (unsigned i = 0; i < CID_SLOTS; i++) {
        if (c->cids[i].used && c->cids[i].seq == f->new_cid.seq)
            return; /* a repeat */
        if (!c->cids[i].used && free_slot == CID_SLOTS)
            free_slot = i;
    }
    /* §19.15: retire_prior_to retires every connection ID below it,
     * including the one in use, which is then replaced. */
    for (unsigned i = 0; i < CID_SLOTS; i++)
        if (c->cids[i].used && c->cids[i].seq < f->new_cid.retire_prior_to) {
            c->cids[i].used = false;
            if (c->retire_n < sizeof c->retire_queue / sizeof c->retire_queue[0])
                c->retire_queue[c->retire_n++] = c->cids[i].seq;
            if (free_slot == CID_SLOTS)
                free_slot = i;
        }
    if (c->dcid_seq < f->new_cid.retire_prior_to && c->retire_n < sizeof c->retire_queue / sizeof c->retire_queue[0])
        c->retire_queue[c->retire_n++] = c->dcid_seq;
    if (f->new_cid.seq < f->new_cid.retire_prior_to) {
        if (c->retire_n < sizeof c->retire_queue / sizeof c->retire_queue[0])
            c->retire_queue[c->retire_n++] = f->new_cid.seq;
    } else if (free_slot < CID_SLOTS) {
        struct peer_cid *p = &c->cids[free_slot];
        p->used = true;
        p->seq = f->new_cid.seq;
        p->len = f->new_cid.cid_len;
        memcpy(p->id, f->new_cid.cid, p->len);
        memcpy(p->reset_token, f->new_cid.reset_token, 16);
        p->has_token = true;
    } else {
        fail(c, QUIC_CONNECTION_ID_LIMIT_ERROR, QUIC_FT_NEW_CONNECTION_ID, "too many connection IDs");
        return;
    }
    if (c->dcid_seq < f->new_cid.retire_prior_to) {
        /* Move to the lowest connection ID still allowed. */
        unsigned best = CID_SLOTS;
        for (unsigned i = 0; i < CID_SLOTS; i++)
            if (c->cids[i].used && (best == CID_SLOTS || c->cids[i].seq < c->cids[best].seq))
                best = i;
        if (best < CID_SLOTS) {
            c->dcid_seq = c->cids[best].seq;
            c->dcid_len = c->cids[best].len;
            memcpy(c->dcid, c->cids[best].id, c->dcid_len);
            c->cids[best].used = false; /* in use now, no longer a spare */
            if (c->cids[best].has_token) {
                c->peer.has_stateless_reset_token = true;
                memcpy(c->peer.stateless_reset_token, c->cids[best].reset_token, 16);
            }
        }
    }
}

static int on_frame(struct quic_conn *c, enum quic_space s, const struct quic_frame *f, uint64_t now)
{
    switch (f->kind) {
    case QUIC_FT_PADDING:
    case QUIC_FT_PING:
    case QUIC_FT_NEW_TOKEN:        /* no later connection of ours would use it */
    case QUIC_FT_DATA_BLOCKED:     /* credit is granted as data is consumed anyway */
    case QUIC_FT_STREAM_DATA_BLOCKED:
    case QUIC_FT_STREAMS_BLOCKED:  /* the server may open no streams we do not allow */
    case QUIC_FT_PATH_RESPONSE:    /* we never challenge (§19.18: may be ignored) */
        return 0;
    case QUIC_FT_ACK:
    case QUIC_FT_ACK_ECN: {
        uint64_t exp = s == QUIC_SPACE_APP ? c->peer.ack_delay_exponent : QUIC_TP_DEFAULT_ACK_DELAY_EXPONENT;
        uint64_t delay_us = f->ack.ack_delay > (UINT64_MAX >> 24) ? UINT64_MAX / 1000 : f->ack.ack_delay << exp;
        return quic_rec_on_ack(&c->rec, s, &f->ack, min_u64(delay_us, UINT64_MAX / 1000) * 1000, now);
    }
    case QUIC_FT_CRYPTO:
        return crypto_recv(c, s, f->crypto.offset, f->crypto.data, f->crypto.len, now);
    case QUIC_FT_STREAM:
        return quic_stream_recv(c, f->stream.stream_id, f->stream.offset, f->stream.data, f->stream.len, f->stream.fin);
    case QUIC_FT_RESET_STREAM:
    case QUIC_FT_STOP_SENDING:
        return quic_stream_on_reset(c, f);
    case QUIC_FT_MAX_DATA:
        c->send_max = max_u64(c->send_max, f->max_data.max);
        return 0;
    case QUIC_FT_MAX_STREAM_DATA:
        return quic_stream_on_max_stream_data(c, f);
    case QUIC_FT_MAX_STREAMS:
        if (f->max_streams.uni)
            c->peer_max_uni = max_u64(c->peer_max_uni, f->max_streams.max);
        else if (f->max_streams.max > c->peer_max_streams) {
            /* Streams opened in a rejected 0-RTT beyond the handshake's
             * limit were waiting for this (write_stream). */
            bool waiting = c->next_n > c->peer_max_streams;
            c->peer_max_streams = f->max_streams.max;
            c->streams_blocked_sent = false;
            if (waiting)
                quic_streams_established(c);
        }
        return 0;
    case QUIC_FT_NEW_CONNECTION_ID:
        if (c->dcid_len == 0)
            return -QUIC_PROTOCOL_VIOLATION; /* §19.15: the server uses zero-length IDs */
        new_cid(c, f);
        return 0;
    case QUIC_FT_RETIRE_CONNECTION_ID:
        /* We issued only the connection ID of the handshake (sequence 0). */
        return f->retire_cid.seq > 0 ? -QUIC_PROTOCOL_VIOLATION : 0;
    case QUIC_FT_PATH_CHALLENGE:
        memcpy(c->path_data, f->path.data, 8);
        c->need_path_response = true;
        return 0;
    case QUIC_FT_CONNECTION_CLOSE:
    case QUIC_FT_CONNECTION_CLOSE_APP:
        /* §10.2.2: the peer closed; we enter draining and send nothing. */
        set_close(c, QUIC_CLOSE_PEER, f->close.app, f->close.error_code, f->close.frame_type,
                  (const char *)f->close.reason, f->close.reason_len);
        if (!f->close.app && f->close.error_code >= 0x100 && f->close.error_code <= 0x1ff)
            c->close.tls_alert = (int)(f->close.error_code - 0x100);
        return 0;
    case QUIC_FT_HANDSHAKE_DONE:
        handshake_confirmed(c, now);
        return 0;
    default:
        return -QUIC_FRAME_ENCODING_ERROR;
    }
}

/* Processes a packet's frames. Returns whether it was ack-eliciting; a
 * connection error closes the connection. */
static bool process_frames(struct quic_conn *c, enum quic_space s, const uint8_t *p, size_t n, uint64_t now)
{
    const uint8_t *end = p + n;
    bool eliciting = false;
    struct quic_frame f;

    if (n == 0) {
        fail(c, QUIC_PROTOCOL_VIOLATION, 0, "empty packet"); /* §12.4 */
        return false;
    }
    /* A frame whose early data found no room in the pool (abort_packet)
     * does not stop the rest: a later frame may be the one that fills the
     * hole (a retransmission is often packed behind newer data). The packet
     * is then not acknowledged, so the server sends what was dropped again;
     * everything done twice is undone by offsets. */
    while (p < end && c->close.kind == QUIC_CLOSE_NONE) {
        int rc = quic_frame_next(&p, end, &f);
        if (rc == 0 && !quic_frame_allowed(f.type, pkt_bit(s)))
            rc = -QUIC_PROTOCOL_VIOLATION; /* §12.4, Table 3 */
        if (rc == 0)
            rc = on_frame(c, s, &f, now);
        if (rc < 0) {
            fail(c, (uint64_t)-rc, f.type, "frame error");
            return false;
        }
        if (quic_frame_ack_eliciting(f.type))
            eliciting = true;
    }
    return eliciting;
}

/* ---- receiving: packets -------------------------------------------------------- */

static void on_version_negotiation(struct quic_conn *c, const struct quic_hdr *h)
{
    /* RFC 9000 §6.2: discarded after any packet was processed, or when it
     * lists the version we use; otherwise the attempt is over. */
    if (c->any_packet || !cid_is_ours(c, h) || h->scid_len != CID_LEN || memcmp(h->scid, c->odcid, CID_LEN) != 0 ||
        quic_vn_offers(h, QUIC_V1))
        return;
    char why[64];
    int k = 0;
    for (size_t i = 0; i < h->n_versions && i < 4 && k < (int)sizeof why - 12; i++)
        k += snprintf(why + k, sizeof why - (size_t)k, "%s0x%08x", i ? " " : "", quic_vn_version(h, i));
    set_close(c, QUIC_CLOSE_VERSION, false, 0, 0, why, (size_t)k);
}

static void on_retry(struct quic_conn *c, const struct quic_hdr *h, const uint8_t *pkt, uint64_t now)
{
    struct space *in = &c->space[QUIC_SPACE_INITIAL];
    (void)now;
    /* §17.2.5.2: one Retry per attempt, before anything else was processed,
     * its SCID not our DCID, its tag right (RFC 9001 §5.8). */
    if (c->retried || c->any_packet || !cid_is_ours(c, h) || h->token_len > sizeof c->token ||
        (h->scid_len == c->dcid_len && memcmp(h->scid, c->dcid, c->dcid_len) == 0) ||
        quic_retry_verify(h, pkt, c->odcid, CID_LEN) != 0)
        return;
    c->retried = true;
    c->cnt.retries++;
    memcpy(c->token, h->token, h->token_len);
    c->token_len = (uint16_t)h->token_len;
    memcpy(c->retry_scid, h->scid, h->scid_len);
    c->retry_scid_len = (uint8_t)h->scid_len;
    memcpy(c->dcid, h->scid, h->scid_len);
    c->dcid_len = (uint8_t)h->scid_len;
    /* New Initial keys from the Retry's SCID (RFC 9001 §5.2); the
     * ClientHello goes again from offset 0 in new packets (packet numbers
     * keep counting, RFC 9000 §17.2.5.3). The first Initials are neither
     * acknowledged nor lost: recovery forgets them (RFC 9002 §6.3). */
    quic_keys_wipe(&in->wr);
    quic_keys_wipe(&in->rd);
    quic_keys_initial(&in->wr, &in->rd, c->dcid, c->dcid_len);
    uint64_t next = c->rec.space[QUIC_SPACE_INITIAL].next_pn;
    quic_rec_discard_space(&c->rec, QUIC_SPACE_INITIAL);
    c->rec.space[QUIC_SPACE_INITIAL].discarded = false;
    c->rec.space[QUIC_SPACE_INITIAL].next_pn = next;
    c->rec.space[QUIC_SPACE_INITIAL].oldest = next;
    c->crypto[QUIC_SPACE_INITIAL].out_sent = 0;
    /* RFC 9000 §17.2.5.3: 0-RTT packets sent before the Retry were
     * discarded by the server; a client "MAY attempt to resend data in
     * 0-RTT packets after it sends a new Initial packet", with the new
     * connection ID. */
    if (c->has_early_wr)
        early_lost(c);
}

static void take_packet(struct quic_conn *c, enum quic_space s, uint64_t pn, const uint8_t *payload, size_t len,
                        uint64_t now);

static void open_packet(struct quic_conn *c, const struct quic_hdr *h, uint8_t *pkt, const uint8_t *dgram, size_t dlen,
                        uint64_t now)
{
    enum quic_space s = h->type == QUIC_PT_INITIAL ? QUIC_SPACE_INITIAL
                        : h->type == QUIC_PT_HANDSHAKE ? QUIC_SPACE_HANDSHAKE
                                                        : QUIC_SPACE_APP;
    struct space *sp = &c->space[s];
    struct quic_opened o;
    int rc;

    if (!cid_is_ours(c, h) || !sp->has_rd) {
        /* §5.2: not ours; or keys not (or no longer) there: dropped. A
         * stateless reset carries unpredictable bytes where our connection
         * ID would be (§10.3): its token is checked whatever they are. */
        if (s == QUIC_SPACE_APP && is_stateless_reset(c, dgram, dlen))
            set_close(c, QUIC_CLOSE_STATELESS_RESET, false, 0, 0, NULL, 0);
        return;
    }
    if (s == QUIC_SPACE_INITIAL) {
        if (h->token_len != 0)
            return; /* §17.2.2: a server's Initial carries no token */
        if (c->got_server_scid && (h->scid_len != c->dcid_len || memcmp(h->scid, c->dcid, c->dcid_len) != 0))
            return; /* §7.2: the server's SCID is fixed by its first Initial */
    }
    if (s == QUIC_SPACE_APP) {
        rc = quic_hp_remove(&c->app_rd[0].hp, pkt, h->pkt_len, h->pn_offset, sp->largest_recv, &o);
        if (rc == 0) {
            const struct quic_keys *k = &c->app_rd[o.key_phase];
            rc = quic_payload_open(&k->aead, pkt, &o);
        }
    } else {
        rc = quic_packet_open(&sp->rd, pkt, h->pkt_len, h->pn_offset, sp->largest_recv, &o);
    }
    if (rc == QUIC_PKT_RESERVED_BITS) {
        fail(c, QUIC_PROTOCOL_VIOLATION, 0, "reserved bits set");
        return;
    }
    if (rc != 0) {
        if (s == QUIC_SPACE_APP && is_stateless_reset(c, dgram, dlen))
            set_close(c, QUIC_CLOSE_STATELESS_RESET, false, 0, 0, NULL, 0);
        return;
    }
    if (quic_ackset_check(&sp->recvd, o.pn) != QUIC_ACKSET_NEW)
        return; /* §12.3: a duplicate */
    if (s == QUIC_SPACE_INITIAL && !c->got_server_scid) {
        /* §7.2: from now on our DCID is the one the server chose. */
        c->got_server_scid = true;
        memcpy(c->server_scid, h->scid, h->scid_len);
        c->server_scid_len = (uint8_t)h->scid_len;
        memcpy(c->dcid, h->scid, h->scid_len);
        c->dcid_len = (uint8_t)h->scid_len;
    }
    if (s == QUIC_SPACE_APP && o.key_phase != c->rd_phase) {
        /* RFC 9001 §6.2, §6.3: a packet of the other phase decrypted with
         * the next keys. If we started the update, this is the answer; if
         * not, the server started one and ours follow. Packets of the old
         * phase arriving late fail (their keys are replaced now) and the
         * server sends what they carried again. */
        if (sp->largest_recv != QUIC_PN_NONE && o.pn < sp->largest_recv)
            return; /* older than what we have: not a key update */
        c->rd_phase = o.key_phase;
        if (c->wr_phase != c->rd_phase) {
            quic_keys_update(&sp->wr, c->suite, c->app_wr_secret);
            c->wr_phase = c->rd_phase;
            c->key_phase_first_pn = c->rec.space[QUIC_SPACE_APP].next_pn;
            c->packets_in_phase = 0;
            c->cnt.key_updates++;
            c->cnt.key_updates_peer++;
        } else {
            c->cnt.key_updates_answered++;
        }
        c->key_update_unacked = false;
        /* The phase just left gets the keys after the next ones. */
        c->app_rd[!o.key_phase] = c->app_rd[o.key_phase];
        quic_keys_update(&c->app_rd[!o.key_phase], c->suite, c->app_rd_secret);
    }
    take_packet(c, s, o.pn, o.payload, o.payload_len, now);
}

/* A packet that decrypted and is not a duplicate: its frames, then the
 * bookkeeping for acknowledging it. */
static void take_packet(struct quic_conn *c, enum quic_space s, uint64_t pn, const uint8_t *payload, size_t len,
                        uint64_t now)
{
    struct space *sp = &c->space[s];
    c->any_packet = true;
    c->abort_packet = false;
    bool eliciting = process_frames(c, s, payload, len, now);
    if (c->abort_packet) {
        /* Not enough room for data that came early: not acknowledged, so the
         * server sends it again; what the frames changed is idempotent. */
        c->abort_packet = false;
        return;
    }
    if (c->state == QUIC_CLOSED && c->close.kind != QUIC_CLOSE_PEER)
        return;
    if (!sp->has_rd)
        return; /* the space was discarded while processing (HANDSHAKE_DONE) */
    quic_ackset_insert(&sp->recvd, pn);
    if (sp->largest_recv == QUIC_PN_NONE || pn > sp->largest_recv) {
        sp->largest_recv = pn;
        sp->largest_recv_time = now;
    }
    sp->ack_pending = true;
    if (eliciting) {
        sp->unacked_eliciting++;
        /* §13.2.1: Initial and Handshake at once; 1-RTT after a second
         * ack-eliciting packet or a short delay. */
        uint64_t dl = s == QUIC_SPACE_APP && sp->unacked_eliciting < 2 ? now + ACK_DELAY_NS : now;
        if (sp->ack_deadline == 0 || dl < sp->ack_deadline)
            sp->ack_deadline = dl;
    }
    c->cnt.packets_received++;
    if (c->idle_timeout_ns) {
        c->idle_deadline = now + c->idle_timeout_ns;
        c->idle_restart_on_send = true;
    }
}

void quic_conn_input(struct quic_conn *c, uint8_t *dgram, size_t len, uint64_t now)
{
    size_t off = 0;
    const uint8_t *first_dcid = NULL;
    size_t first_dcid_len = 0;

    if (c->state == QUIC_CLOSED || c->close_pending)
        return;
    c->cnt.datagrams_received++;
    while (off < len && c->state != QUIC_CLOSED) {
        struct quic_hdr h;
        uint8_t *pkt = dgram + off;
        if (quic_hdr_parse(&h, pkt, len - off, CID_LEN) != QUIC_PKT_OK)
            break; /* the rest of the datagram cannot be delimited */
        off += h.pkt_len;
        if (h.type == QUIC_PT_VN) {
            on_version_negotiation(c, &h);
            return;
        }
        if (h.type == QUIC_PT_RETRY) {
            on_retry(c, &h, pkt, now);
            return;
        }
        /* §12.2: coalesced packets with another DCID than the first's are dropped. */
        if (first_dcid == NULL) {
            first_dcid = h.dcid;
            first_dcid_len = h.dcid_len;
        } else if (h.dcid_len != first_dcid_len || memcmp(h.dcid, first_dcid, first_dcid_len) != 0) {
            continue;
        }
        if (h.type == QUIC_PT_0RTT)
            continue;
        open_packet(c, &h, pkt, dgram, len, now);
    }
}

/* ---- recovery callbacks ------------------------------------------------------- */

static void on_acked(void *ctx, enum quic_space s, uint64_t pn)
{
    struct quic_conn *c = ctx;
    struct pkt_meta *m = &c->space[s].meta[pn % QUIC_REC_CAP];
    /* §13.2.4: once an ACK of ours is acknowledged, what it covered need
     * not be acknowledged again. */
    if (m->flags & M_ACK)
        quic_ackset_drop_below(&c->space[s].recvd, m->ack_largest + 1);
    m->flags = 0;
    m->chunk_n = 0;
}

static void on_lost(void *ctx, enum quic_space s, uint64_t pn)
{
    struct quic_conn *c = ctx;
    struct pkt_meta *m = &c->space[s].meta[pn % QUIC_REC_CAP];
    if (m->flags & M_CRYPTO) {
        struct crypto_level *l = &c->crypto[s];
        if (m->crypto_off < l->out_sent)
            l->out_sent = m->crypto_off; /* sent again from there */
    }
    if (m->flags & M_MAX_DATA)
        c->need_max_data = true;
    if (m->flags & M_STREAMS_BLOCKED)
        c->streams_blocked_sent = false;
    quic_streams_on_lost(c, m);
    m->flags = 0;
    m->chunk_n = 0;
}

static const struct quic_rec_callbacks rec_cb = { .acked = on_acked, .lost = on_lost };

/* ---- sending -------------------------------------------------------------------- */

/* Anything ack-eliciting to send in this space, congestion window aside? */
static bool has_data(const struct quic_conn *c, enum quic_space s)
{
    const struct crypto_level *l = &c->crypto[s];
    if (l->out != NULL && l->out_sent < l->out_len)
        return true;
    if (s != QUIC_SPACE_APP || (!c->hs_done && !c->has_early_wr))
        return false;
    return c->need_path_response || c->retire_n > 0 || quic_streams_pending(c);
}

/* Everything of ApplicationData but ACK and CRYPTO. */
static void write_app(struct quic_conn *c, struct pkt_builder *b)
{
    size_t w;

    if (c->need_path_response && (w = quic_frame_enc_path_response(b->p, (size_t)(b->end - b->p), c->path_data))) {
        b->p += w;
        c->need_path_response = false; /* not sent again if lost (§8.2.2: a new challenge comes) */
        b->eliciting = true;
    }
    while (c->retire_n > 0 && (w = quic_frame_enc_retire_cid(b->p, (size_t)(b->end - b->p), c->retire_queue[c->retire_n - 1]))) {
        b->p += w;
        c->retire_n--;
        b->eliciting = true;
    }
    quic_streams_write(c, b);
}

/* A probe with no new handshake bytes to carry (RFC 9002 §6.2.4: "SHOULD
 * ... retransmit unacknowledged data" rather than a bare PING) takes those
 * of the oldest packet of space s still in flight: a lost Finished then
 * goes again with the first PTO instead of after the PING's ACK shows it
 * lost. [*from, *upto) is left as it is when no such packet is found. */
static void oldest_crypto_in_flight(const struct quic_conn *c, enum quic_space s, uint32_t *from, uint32_t *upto)
{
    const struct quic_rec_space *rs = &c->rec.space[s];
    for (uint64_t pn = rs->oldest; pn < rs->next_pn; pn++) {
        const struct pkt_meta *m = &c->space[s].meta[pn % QUIC_REC_CAP];
        if (rs->sent[pn % QUIC_REC_CAP].time != 0 && (m->flags & M_CRYPTO) && m->crypto_len > 0) {
            *from = m->crypto_off;
            *upto = m->crypto_off + m->crypto_len;
            return;
        }
    }
}

/* RFC 9000 §13.2.4: packets with only ACK frames are never acknowledged,
 * and a client that only acknowledges (a long download, a server's
 * keep-alive PINGs) would fill its sent-packet ring with them until it
 * could send nothing (quic_rec_can_send). Once half the ring is
 * outstanding, one PING at a time makes the server acknowledge the lot. */
static bool need_ack_ping(struct quic_conn *c, const struct quic_rec_space *rs)
{
    if (c->ack_ping_out && ((rs->largest_acked != QUIC_PN_NONE && rs->largest_acked >= c->ack_ping_pn) ||
                            c->ack_ping_pn < rs->oldest))
        c->ack_ping_out = false; /* acknowledged, or declared lost */
    return !c->ack_ping_out && rs->next_pn - rs->oldest >= QUIC_REC_CAP / 2;
}

#ifdef SHB_TEST_KNOBS
/* The test build's jumps towards app_pn_target (quic_conn_config; RFC
 * 9000 §12.3 asks only that numbers increase, §21.4 lets them skip): only
 * with nothing in flight (so no loss detection or PTO spans the numbers
 * skipped; what the ring still holds is ACK-only packets, which need
 * neither and are dropped), and only once the server has acknowledged
 * something, at most 2^30 past it: the server's largest received is at
 * least that, so the new number is within half its 4-byte window, as it
 * is of ours (quic_pn_encode_len). */
static void pn_jump(struct quic_conn *c)
{
    struct quic_rec_space *rs = &c->rec.space[QUIC_SPACE_APP];
    if (c->app_pn_target <= rs->next_pn || rs->largest_acked == QUIC_PN_NONE || c->rec.bytes_in_flight != 0)
        return;
    uint64_t to = rs->largest_acked + (1ull << 30);
    if (to > c->app_pn_target)
        to = c->app_pn_target;
    if (to <= rs->next_pn)
        return;
    for (uint64_t pn = rs->oldest; pn < rs->next_pn; pn++)
        rs->sent[pn % QUIC_REC_CAP].time = 0;
    rs->oldest = rs->next_pn = to;
}
#endif

/* Builds one packet of space s at out (room bytes). pad_to: fill the packet
 * to this many bytes with PADDING (Initial datagrams, §14.1). Returns its
 * length, 0 when there is nothing to send in this space. */
static size_t build_packet(struct quic_conn *c, enum quic_space s, uint8_t *out, size_t room, size_t pad_to,
                           bool cwnd_ok, uint64_t now)
{
    struct space *sp = &c->space[s];
    struct quic_rec_space *rs = &c->rec.space[s];
    /* 0-RTT (RFC 9000 §17.2.3): ApplicationData before the 1-RTT keys,
     * stream frames only (our closes go in Initial and Handshake packets). */
    bool zero_rtt = s == QUIC_SPACE_APP && !sp->has_wr && c->has_early_wr;
    const struct quic_keys *k = zero_rtt ? &c->early_wr : &sp->wr;
    bool probe = c->rec.probes_due[s] > 0;
    bool closing = c->close_pending;
    bool ack_now = sp->ack_pending && (sp->ack_deadline != 0 && sp->ack_deadline <= now);
    bool data = !closing && (cwnd_ok || probe) && has_data(c, s);

    if (c->state == QUIC_CLOSED || (!sp->has_wr && !zero_rtt) || rs->discarded || (zero_rtt && closing))
        return 0;
    if (closing && (c->close_sent & (1u << s)))
        return 0; /* one CONNECTION_CLOSE per space is enough (§10.2.1: we do not linger) */
    if (!closing && !ack_now && !data && !probe)
        return 0;
    if (!quic_rec_can_send(&c->rec, s) || room < MIN_PACKET_ROOM)
        return 0;

#ifdef SHB_TEST_KNOBS
    if (s == QUIC_SPACE_APP && c->app_pn_target)
        pn_jump(c);
#endif
    uint64_t pn = rs->next_pn;
    if (pn >= QUIC_PN_MAX) {
        pn_exhausted(c);
        return 0;
    }
    size_t pn_len = quic_pn_encode_len(pn, rs->largest_acked);
    size_t hlen;
    if (pn_len == 0)
        return 0;
    if (s == QUIC_SPACE_APP && !zero_rtt)
        hlen = quic_build_short(out, room, c->dcid, c->dcid_len, c->wr_phase, pn_len);
    else
        hlen = quic_build_long(out, room,
                               zero_rtt ? QUIC_PT_0RTT : s == QUIC_SPACE_INITIAL ? QUIC_PT_INITIAL : QUIC_PT_HANDSHAKE,
                               c->dcid, c->dcid_len, c->scid, CID_LEN, c->token,
                               s == QUIC_SPACE_INITIAL ? c->token_len : 0, pn_len);
    if (hlen == 0 || hlen + 4 + QUIC_TAG_LEN > room)
        return 0;

    struct pkt_meta *m = &sp->meta[pn % QUIC_REC_CAP];
    struct pkt_builder b = { out + hlen, out + room - QUIC_TAG_LEN, m, false, 0 };
    *m = (struct pkt_meta){ 0 };
    if (s == QUIC_SPACE_APP) {
        uint32_t f = quic_chunks_free(c);
        b.chunk_room = f > 0 ? f - 1 : 0;
    }

    if (closing) {
        /* §10.2.3: before the handshake completes an application close is
         * sent as a transport close with APPLICATION_ERROR. */
        bool app = c->close.app && s == QUIC_SPACE_APP;
        uint64_t code = c->close.app && !app ? QUIC_APPLICATION_ERROR : c->close.code;
        size_t w = quic_frame_enc_close(b.p, (size_t)(b.end - b.p), app, code, app ? 0 : c->close.frame_type,
                                        app || !c->close.app ? c->close.reason : "", app || !c->close.app ? strlen(c->close.reason) : 0);
        b.p += w;
        c->close_sent |= (uint8_t)(1u << s);
    } else {
        if (sp->ack_pending && sp->recvd.n > 0) {
            /* ACK Delay in our ack_delay_exponent (the default, 3: 8 µs units). */
            uint64_t delay = now > sp->largest_recv_time ? (now - sp->largest_recv_time) / 1000 >> 3 : 0;
            size_t w = quic_frame_enc_ack(b.p, (size_t)(b.end - b.p), sp->recvd.r, sp->recvd.n, delay, NULL, NULL);
            if (w > 0) {
                b.p += w;
                m->flags |= M_ACK;
                m->ack_largest = sp->recvd.r[sp->recvd.n - 1].hi;
                sp->ack_pending = false;
                sp->unacked_eliciting = 0;
                sp->ack_deadline = 0;
            }
        }
        if (data || probe) {
            struct crypto_level *l = &c->crypto[s];
            uint32_t from = l->out_sent, upto = l->out_len;
            if (probe && from >= upto && s != QUIC_SPACE_APP)
                oldest_crypto_in_flight(c, s, &from, &upto);
            if (l->out != NULL && from < upto) {
                size_t got;
                size_t w = quic_frame_enc_crypto(b.p, (size_t)(b.end - b.p), from, l->out + from, upto - from, &got);
                if (w > 0) {
                    m->flags |= M_CRYPTO;
                    m->crypto_off = from;
                    m->crypto_len = (uint32_t)got;
                    if (from + got > l->out_sent)
                        l->out_sent = from + (uint32_t)got;
                    b.p += w;
                    b.eliciting = true;
                }
            }
            if (s == QUIC_SPACE_APP && c->hs_done)
                write_app(c, &b);
            else if (zero_rtt)
                quic_streams_write(c, &b);
        }
        if ((probe || (s == QUIC_SPACE_APP && need_ack_ping(c, rs))) && !b.eliciting) {
            /* A probe must elicit an ACK (RFC 9002 §6.2.4): nothing new to
             * send, so a PING. */
            size_t w = quic_frame_enc_ping(b.p, (size_t)(b.end - b.p));
            b.p += w;
            b.eliciting = w > 0;
            if (w > 0 && s == QUIC_SPACE_APP) {
                c->ack_ping_out = true;
                c->ack_ping_pn = pn;
            }
        }
    }
    size_t payload = (size_t)(b.p - (out + hlen));
    if (payload == 0)
        return 0;
    /* Header protection samples 16 bytes from 4 past the packet number's
     * start (RFC 9001 §5.4.2): short payloads are padded. */
    size_t min_payload = pn_len < 4 ? 4 - pn_len : 0;
    size_t target = payload < min_payload ? min_payload : payload;
    if (pad_to > hlen + QUIC_TAG_LEN && hlen + target + QUIC_TAG_LEN < pad_to)
        target = pad_to - hlen - QUIC_TAG_LEN;
    if (target > payload) {
        memset(out + hlen + payload, 0, target - payload); /* PADDING frames */
        payload = target;
    }
    if ((s != QUIC_SPACE_APP || zero_rtt) && quic_set_length(out, hlen, payload) != 0)
        return 0;
    size_t len = quic_packet_seal(k, out, hlen, payload, pn);
    if (len == 0)
        return 0;
    bool in_flight = b.eliciting || target > (size_t)(b.p - (out + hlen));
    quic_rec_on_sent(&c->rec, s, now, len, b.eliciting, in_flight);
    if (probe && b.eliciting)
        quic_rec_probe_sent(&c->rec, s);
    c->cnt.packets_sent++;
    if (s == QUIC_SPACE_APP && !zero_rtt)
        c->packets_in_phase++;
    if (s == QUIC_SPACE_APP) {
        c->cnt.largest_app_pn_sent = pn;
        c->cnt.app_pn_len[pn_len - 1]++;
    }
    if (b.eliciting && c->idle_restart_on_send && c->idle_timeout_ns) {
        c->idle_deadline = now + c->idle_timeout_ns;
        c->idle_restart_on_send = false;
    }
    return len;
}

/* RFC 9001 §4.9.1: a client drops its Initial keys when it first sends a
 * Handshake packet. */
static void discard_initial(struct quic_conn *c)
{
    if (c->space[QUIC_SPACE_INITIAL].has_wr)
        discard_space(c, QUIC_SPACE_INITIAL);
}

/* RFC 9001 §6.6: before the confidentiality limit of the AEAD, our keys
 * change; only once the last change was acknowledged (§6.1). */
static void maybe_key_update(struct quic_conn *c)
{
    if (!c->confirmed || c->key_update_unacked || c->wr_phase != c->rd_phase ||
        c->packets_in_phase < c->key_update_after ||
        c->rec.space[QUIC_SPACE_APP].largest_acked == QUIC_PN_NONE ||
        c->rec.space[QUIC_SPACE_APP].largest_acked < c->key_phase_first_pn)
        return;
    quic_keys_update(&c->space[QUIC_SPACE_APP].wr, c->suite, c->app_wr_secret);
    c->wr_phase = !c->wr_phase;
    c->key_update_unacked = true;
    c->key_phase_first_pn = c->rec.space[QUIC_SPACE_APP].next_pn;
    c->packets_in_phase = 0;
    c->cnt.key_updates++;
}

size_t quic_conn_output(struct quic_conn *c, uint8_t *out, size_t cap, size_t max_dgrams, size_t *seg_size,
                        uint64_t now)
{
    size_t total = 0, n = 0;

    *seg_size = QUIC_DGRAM_SIZE;
    if (c->state == QUIC_CLOSED)
        return 0;
    maybe_key_update(c);
    while (n < max_dgrams && cap - total >= QUIC_DGRAM_SIZE) {
        uint8_t *d = out + total;
        size_t len = 0;
        bool cwnd_ok = quic_rec_cwnd_room(&c->rec) >= QUIC_DGRAM_SIZE;
        for (int s = QUIC_SPACE_INITIAL; s < QUIC_SPACES; s++) {
            /* Initial and Handshake packets go alone in their datagrams,
             * padded to the full size: an Initial must be (RFC 9000
             * §14.1), and a 1-RTT packet coalesced after our Finished is
             * dropped by some servers (lsquic: the requests then waited
             * for a PTO, 30 ms, on every new connection). Full-size
             * datagrams also keep UDP GSO's layout. */
            bool alone = s != QUIC_SPACE_APP;
            size_t w = build_packet(c, (enum quic_space)s, d + len, QUIC_DGRAM_SIZE - len,
                                    alone ? QUIC_DGRAM_SIZE : 0, cwnd_ok, now);
            if (w == 0)
                continue;
            len += w;
            if (s == QUIC_SPACE_HANDSHAKE)
                discard_initial(c);
            if (alone)
                break;
        }
        if (len == 0)
            break;
        total += len;
        n++;
        if (len < QUIC_DGRAM_SIZE)
            break; /* GSO: only the last datagram may be short */
    }
    c->cnt.datagrams_sent += n;
    if (c->close_pending) {
        c->close_pending = false;
        c->state = QUIC_CLOSED;
    }
    return total;
}

/* ---- timers ------------------------------------------------------------------- */

uint64_t quic_conn_deadline(const struct quic_conn *c)
{
    uint64_t d = UINT64_MAX;
    if (c->state == QUIC_CLOSED)
        return d;
    if (c->rec.loss_timer)
        d = c->rec.loss_timer;
    for (int s = 0; s < QUIC_SPACES; s++)
        if (c->space[s].ack_pending && c->space[s].ack_deadline && c->space[s].ack_deadline < d)
            d = c->space[s].ack_deadline;
    if (c->idle_deadline && c->idle_deadline < d)
        d = c->idle_deadline;
    return d;
}

void quic_conn_timeout(struct quic_conn *c, uint64_t now)
{
    if (c->state == QUIC_CLOSED)
        return;
    if (c->idle_deadline && now >= c->idle_deadline) {
        /* §10.1: silently closed; nothing goes out. */
        set_close(c, QUIC_CLOSE_IDLE, false, 0, 0, NULL, 0);
        c->state = QUIC_CLOSED;
        c->close_pending = false;
        return;
    }
    if (c->rec.loss_timer && now >= c->rec.loss_timer)
        quic_rec_on_timeout(&c->rec, now);
    /* ACK deadlines are met by the next quic_conn_output. */
}

/* ---- the application's side --------------------------------------------------- */

enum quic_conn_state quic_conn_state(const struct quic_conn *c) { return c->state; }
const struct quic_close_info *quic_conn_close_info(const struct quic_conn *c) { return &c->close; }

const struct quic_conn_counters *quic_conn_counters(struct quic_conn *c)
{
    c->cnt.packets_lost = c->rec.packets_lost;
    c->cnt.pto_count = c->rec.pto_fired;
    return &c->cnt;
}

const char *quic_conn_alpn(const struct quic_conn *c) { return tls13_hs_alpn(&c->hs); }
void quic_conn_negotiated(const struct quic_conn *c, struct tls_negotiated *out) { tls13_hs_negotiated(&c->hs, out); }
bool quic_conn_resumed(const struct quic_conn *c) { return tls13_hs_resumed(&c->hs); }
uint16_t quic_conn_hrr_group(const struct quic_conn *c) { return tls13_hs_hrr_group(&c->hs); }
const struct quic_tparams *quic_conn_peer_tparams(const struct quic_conn *c) { return &c->peer; }
enum quic_early quic_conn_early(const struct quic_conn *c) { return (enum quic_early)c->early; }
bool quic_conn_early_keys(const struct quic_conn *c) { return c->has_early_wr && c->state == QUIC_HANDSHAKING; }

void quic_conn_close(struct quic_conn *c, bool app, uint64_t code, const char *reason)
{
    set_close(c, QUIC_CLOSE_LOCAL, app, code, 0, reason, reason ? strlen(reason) : 0);
}

/* ---- test accessors (quic/conn_internal.h) -------------------------------- */

const struct quic_keys *quic_conn_test_server_keys(const struct quic_conn *c, int *rd_phase)
{
    *rd_phase = c->rd_phase;
    return c->app_rd;
}

size_t quic_conn_test_scid(const struct quic_conn *c, uint8_t out[QUIC_MAX_CID_LEN])
{
    memcpy(out, c->scid, CID_LEN);
    return CID_LEN;
}

void quic_conn_test_frames(struct quic_conn *c, enum quic_space s, uint64_t pn, const uint8_t *payload, size_t n,
                           uint64_t now)
{
    if (c->state == QUIC_CLOSED || c->close_pending || !c->space[s].has_rd ||
        quic_ackset_check(&c->space[s].recvd, pn) != QUIC_ACKSET_NEW)
        return;
    take_packet(c, s, pn, payload, n, now);
}

const struct quic_keys *quic_conn_test_handshake_keys(const struct quic_conn *c)
{
    return c->space[QUIC_SPACE_HANDSHAKE].has_rd ? &c->space[QUIC_SPACE_HANDSHAKE].rd : NULL;
}

const struct quic_keys *quic_conn_test_handshake_write_keys(const struct quic_conn *c)
{
    return c->space[QUIC_SPACE_HANDSHAKE].has_wr ? &c->space[QUIC_SPACE_HANDSHAKE].wr : NULL;
}

const struct quic_keys *quic_conn_test_client_keys(const struct quic_conn *c, int *wr_phase)
{
    *wr_phase = c->wr_phase;
    return &c->space[QUIC_SPACE_APP].wr;
}

void quic_conn_test_key_update_after(struct quic_conn *c, uint64_t packets) { c->key_update_after = packets; }

void quic_conn_test_next_app_pn(struct quic_conn *c, uint64_t pn)
{
    struct quic_rec_space *rs = &c->rec.space[QUIC_SPACE_APP];
    for (uint64_t p = rs->oldest; p < rs->next_pn; p++)
        rs->sent[p % QUIC_REC_CAP].time = 0;
    rs->oldest = rs->next_pn = pn;
    rs->largest_acked = pn - 1;
    c->rec.bytes_in_flight = 0;
}

int quic_conn_test_establish(struct quic_conn *c, const struct quic_tparams *peer, uint64_t now)
{
    /* Fixed secrets, TLS_AES_128_GCM_SHA256: what is sealed with them is
     * never opened by anyone. */
    static const uint8_t hs_secret[32] = { 1 }, app_wr[32] = { 2 }, app_rd[32] = { 3 };
    struct space *hs = &c->space[QUIC_SPACE_HANDSHAKE], *app = &c->space[QUIC_SPACE_APP];
    if (c->state != QUIC_HANDSHAKING || c->hs_done)
        return -1;
    c->suite = TLS_AES_128_GCM_SHA256;
    if (quic_keys_init(&hs->rd, c->suite, hs_secret) != 0 || quic_keys_init(&hs->wr, c->suite, hs_secret) != 0)
        return -1;
    hs->has_rd = hs->has_wr = true;
    quic_rec_set_handshake_keys(&c->rec);
    memcpy(c->app_wr_secret, app_wr, sizeof app_wr);
    memcpy(c->app_rd_secret, app_rd, sizeof app_rd);
    if (quic_keys_init(&app->wr, c->suite, c->app_wr_secret) != 0 ||
        quic_keys_init(&c->app_rd[0], c->suite, c->app_rd_secret) != 0)
        return -1;
    c->app_rd[1] = c->app_rd[0];
    if (quic_keys_update(&c->app_rd[1], c->suite, c->app_rd_secret) != 0)
        return -1;
    app->has_rd = app->has_wr = true;
    discard_initial(c); /* as once our Handshake packet (Finished) is out */
    c->peer = *peer;
    established(c, now);
    return 0;
}
