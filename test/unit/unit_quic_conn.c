/* test/unit/unit_quic_conn.c — the QUIC client connection (quic/conn.c, stream.c) driven
 * by scripted server datagrams on a fake clock (ns, from 1 s; 0 means
 * "none" to the engine) with fixed entropy (bytes 0..191).
 *
 * Part one replays a real server's side of a connection, recorded by
 * test/unit/quic_record.c into test/vectors/quic_conn_trace.h (Bun's lsquic, with a
 * certificate big enough that its Handshake flight takes five datagrams):
 * our ClientHello depends only on the entropy and the config, so a fresh
 * engine opens every recorded packet. In order it completes the handshake
 * and delivers the three responses, and drops a Handshake packet that
 * comes after HANDSHAKE_DONE; two replays send identical bytes. The
 * Handshake datagrams permuted every way, duplicated, reversed, or one
 * dropped and fed later, it completes all the same (CRYPTO reassembled in
 * order) — fed with their Handshake ACK frames turned into PADDING (see
 * scrub_init: the recorded ACKs fit only the recorded order).
 *
 * Part two plays the server from there: 1-RTT packets built with
 * quic_build_short, frame encoders and quic_packet_seal under the keys
 * quic_conn_test_server_keys gives, and the client's packets opened with
 * quic_conn_test_client_keys (test accessors, quic/conn_internal.h, with
 * quic_conn_test_handshake_keys and quic_conn_test_scid): stream reassembly,
 * flow control and its credit, ACK validation, MAX_STREAMS, the stream
 * ring, PTO, CONNECTION_CLOSE, stateless resets, key updates, the idle
 * timeout; and before any packet, Version Negotiation and Retry; and the
 * Handshake PTO's probes resending our unacknowledged Finished.
 *
 * Part three: a connection with a 64 KiB window and its handshake skipped
 * (quic_conn_test_establish, payloads through quic_conn_test_frames): the
 * reorder pool keeps the whole window, and duplicates of a closed stream
 * never count against MAX_DATA. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h3.h"
#include "quic/conn.h"
#include "quic/conn_internal.h"
#include "quic/frame.h"
#include "quic/packet.h"
#include "quic/tparams.h"
#include "quic/varint.h"
#include "test/vectors/quic_conn_trace.h"
#include "quic_retry.h"
#include "t.h"
#include "tls13/aead.h"
#include "tls13/keysched.h"

#define MS 1000000ull
#define T0 (1000 * MS)

static const uint8_t alpn[] = "\x02h3";
static const struct quic_conn_config cfg = {
    .server_name = "localhost",
    .alpn = alpn,
    .alpn_len = 3,
    .max_streams = QCT_MAX_STREAMS,
    .stream_window = QCT_STREAM_WINDOW,
    .conn_window = QCT_CONN_WINDOW,
    .idle_timeout_ns = QCT_IDLE_MS * MS,
};

/* ------------------------------------------------------------ the application */

#define MAX_SB 256
struct sb {
    uint64_t id;
    uint8_t *p;
    size_t n;
    unsigned fins, calls_after_fin;
};

struct tc {
    struct quic_conn *c;
    void *mem;
    uint64_t now;
    struct sb s[MAX_SB];
    size_t ns;
    bool close_on_fin;   /* the application closes a request stream at its FIN (as shb does) */
    unsigned resets;
    uint64_t delivered;  /* bytes handed to stream_data, all streams */
    bool started;
    uint64_t ids[QCT_NREQ];
    uint64_t spn;        /* our next 1-RTT packet number as the server */
    uint64_t cl_largest; /* the largest 1-RTT packet number of the client's we opened */
    uint8_t server_cid[QUIC_MAX_CID_LEN];
    size_t server_cid_len;
};

static struct sb *sb_of(struct tc *t, uint64_t id, bool add)
{
    for (size_t i = 0; i < t->ns; i++)
        if (t->s[i].id == id)
            return &t->s[i];
    if (!add || t->ns == MAX_SB)
        return NULL;
    t->s[t->ns] = (struct sb){ .id = id };
    return &t->s[t->ns++];
}

static void on_data(void *ctx, uint64_t id, const uint8_t *p, size_t n, bool fin)
{
    struct tc *t = ctx;
    struct sb *s = sb_of(t, id, true);
    if (s == NULL)
        return;
    if (s->fins)
        s->calls_after_fin++;
    uint8_t *np = realloc(s->p, s->n + n + 1);
    if (np == NULL)
        exit(2);
    s->p = np;
    if (n)
        memcpy(s->p + s->n, p, n);
    s->n += n;
    t->delivered += n;
    if (fin) {
        s->fins++;
        if (t->close_on_fin && (id & 3) == 0)
            quic_conn_close_stream(t->c, id, 0);
    }
}

static void on_reset(void *ctx, uint64_t id, uint64_t code, bool stop)
{
    struct tc *t = ctx;
    (void)id, (void)code, (void)stop;
    t->resets++;
}

static const struct quic_conn_callbacks cbs = { on_data, on_reset };

/* The config of the next tc_init (test_far_pn changes it, then restores it). */
static const struct quic_conn_config *tc_cfg = &cfg;

static void tc_init(struct tc *t)
{
    memset(t, 0, sizeof *t);
    uint8_t entropy[QUIC_CONN_ENTROPY];
    for (size_t i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)i;
    t->mem = aligned_alloc(64, (quic_conn_size(tc_cfg) + 63) & ~(size_t)63);
    t->now = T0;
    t->c = quic_conn_init(t->mem, tc_cfg, entropy, &cbs, t, t->now);
    t->spn = 1000;
    t->cl_largest = QUIC_PN_NONE;
    /* The server's connection ID: the SCID of its first Initial. */
    struct quic_hdr h;
    if (quic_hdr_parse(&h, qct_dgrams[0].p, qct_dgrams[0].n, 8) == QUIC_PKT_OK && h.type == QUIC_PT_INITIAL) {
        memcpy(t->server_cid, h.scid, h.scid_len);
        t->server_cid_len = h.scid_len;
    }
}

static void tc_free(struct tc *t)
{
    for (size_t i = 0; i < t->ns; i++)
        free(t->s[i].p);
    free(t->mem);
    t->mem = NULL;
}

/* ------------------------------------------------------------ what the client sends */

struct out {
    unsigned dgrams, pkts, longs, shorts, undecrypted;
    unsigned ack, stream, ping, msd, md, sb, close, retire, eliciting_pkts;
    uint64_t msd_id, msd_max, md_max, sb_limit, close_code, close_ft, retired;
    bool close_app;
    int key_phase;
    uint8_t dcid[QUIC_MAX_CID_LEN];
    uint64_t largest_pn;
    uint64_t ack_largest; /* the last ACK frame's Largest Acknowledged */
    unsigned phase_changes; /* 1-RTT packets whose Key Phase differs from the one before */
};

static uint64_t out_hash = 14695981039346656037ull; /* FNV-1a of every byte the clients sent */

static void read_frames(struct out *o, const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    struct quic_frame f;
    bool eliciting = false;
    while (p < end && quic_frame_next(&p, end, &f) == 0) {
        eliciting |= quic_frame_ack_eliciting(f.type);
        switch (f.kind) {
        case QUIC_FT_ACK:
            o->ack++;
            o->ack_largest = f.ack.largest;
            break;
        case QUIC_FT_STREAM:
            o->stream++;
            break;
        case QUIC_FT_PING:
            o->ping++;
            break;
        case QUIC_FT_MAX_STREAM_DATA:
            o->msd++;
            o->msd_id = f.max_stream_data.stream_id;
            o->msd_max = f.max_stream_data.max;
            break;
        case QUIC_FT_MAX_DATA:
            o->md++;
            o->md_max = f.max_data.max;
            break;
        case QUIC_FT_STREAMS_BLOCKED:
            o->sb++;
            o->sb_limit = f.streams_blocked.limit;
            break;
        case QUIC_FT_CONNECTION_CLOSE:
        case QUIC_FT_CONNECTION_CLOSE_APP:
            o->close++;
            o->close_code = f.close.error_code;
            o->close_ft = f.close.frame_type;
            o->close_app = f.close.app;
            break;
        case QUIC_FT_RETIRE_CONNECTION_ID:
            o->retire++;
            if (f.retire_cid.seq < 64)
                o->retired |= 1ull << f.retire_cid.seq;
            break;
        default:
            break;
        }
    }
    o->eliciting_pkts += eliciting;
}

/* Everything the client has to send now, opened where it is 1-RTT. */
static void drain(struct tc *t, struct out *o)
{
    static uint8_t buf[16 * QUIC_DGRAM_SIZE];
    memset(o, 0, sizeof *o);
    o->key_phase = -1;
    for (int round = 0; round < 64; round++) {
        size_t seg, n = quic_conn_output(t->c, buf, sizeof buf, 16, &seg, t->now);
        if (n == 0)
            break;
        for (size_t off = 0; off < n; off += seg) {
            size_t dlen = n - off < seg ? n - off : seg;
            uint8_t *d = buf + off;
            o->dgrams++;
            for (size_t i = 0; i < dlen; i++)
                out_hash = (out_hash ^ d[i]) * 1099511628211ull;
            for (size_t at = 0; at < dlen;) {
                struct quic_hdr h;
                if (quic_hdr_parse(&h, d + at, dlen - at, t->server_cid_len) != QUIC_PKT_OK)
                    break;
                o->pkts++;
                if (h.type != QUIC_PT_1RTT) {
                    o->longs++;
                    at += h.pkt_len;
                    continue;
                }
                o->shorts++;
                memcpy(o->dcid, h.dcid, h.dcid_len);
                int phase;
                struct quic_keys k = *quic_conn_test_client_keys(t->c, &phase);
                struct quic_opened op;
                if (quic_packet_open(&k, d + at, h.pkt_len, h.pn_offset, t->cl_largest, &op) != QUIC_PKT_OK) {
                    o->undecrypted++;
                } else {
                    if (t->cl_largest == QUIC_PN_NONE || op.pn > t->cl_largest)
                        t->cl_largest = op.pn;
                    o->largest_pn = op.pn;
                    o->phase_changes += o->key_phase >= 0 && o->key_phase != op.key_phase;
                    o->key_phase = op.key_phase;
                    read_frames(o, op.payload, op.payload_len);
                }
                at += h.pkt_len;
            }
        }
    }
}

/* ------------------------------------------------------------ replaying the trace */

static void feed(struct tc *t, const uint8_t *p, size_t n)
{
    uint8_t buf[2048];
    memcpy(buf, p, n);
    quic_conn_input(t->c, buf, n, t->now);
}

/* What the recorder did after every datagram: open the streams once
 * established, run the timers that are due, send. */
static void step(struct tc *t)
{
    struct out o;
    if (quic_conn_state(t->c) == QUIC_ESTABLISHED && !t->started) {
        static const uint8_t enc = H3_STREAM_QPACK_ENCODER, dec = H3_STREAM_QPACK_DECODER;
        t->started = true;
        quic_conn_open_uni(t->c, qct_control, sizeof qct_control);
        quic_conn_open_uni(t->c, &enc, 1);
        quic_conn_open_uni(t->c, &dec, 1);
        for (size_t r = 0; r < QCT_NREQ; r++)
            t->ids[r] = quic_conn_can_open(t->c) ? quic_conn_open(t->c, qct_reqs[r].p, qct_reqs[r].n) : UINT64_MAX;
    }
    if (quic_conn_deadline(t->c) <= t->now)
        quic_conn_timeout(t->c, t->now);
    drain(t, &o);
}

static void feed_trace(struct tc *t, size_t i)
{
    t->now += MS;
    feed(t, qct_dgrams[i].p, qct_dgrams[i].n);
    step(t);
}

/* A connection with the whole trace replayed in order. */
static void established(struct tc *t, bool close_on_fin)
{
    tc_init(t);
    t->close_on_fin = close_on_fin;
    step(t);
    for (size_t i = 0; i < QCT_NDGRAMS; i++)
        feed_trace(t, i);
}

/* Every stream delivered what the recorder saw, FIN once, nothing after. */
static bool same_as_trace(struct tc *t, char *why, size_t cap)
{
    for (size_t i = 0; i < QCT_NSTREAMS; i++) {
        struct sb *s = sb_of(t, qct_streams[i].id, false);
        if (s == NULL) {
            snprintf(why, cap, "stream %llu got nothing", (unsigned long long)qct_streams[i].id);
            return false;
        }
        if (s->n != qct_streams[i].n || memcmp(s->p, qct_streams[i].p, s->n) != 0 ||
            s->fins != (qct_streams[i].fin ? 1u : 0u) || s->calls_after_fin) {
            snprintf(why, cap, "stream %llu: %zu bytes (want %zu), %u FIN, %u after", (unsigned long long)s->id, s->n,
                     qct_streams[i].n, s->fins, s->calls_after_fin);
            return false;
        }
    }
    snprintf(why, cap, "ok");
    return true;
}

/* ------------------------------------------------------------ playing the server */

/* The packet number length of the server's 1-RTT packets (test_far_pn). */
static size_t srv_pn_len = 4;

/* One 1-RTT packet of frames from the server, in the given key phase (-1:
 * the phase the client reads now) or with explicit keys. */
static void srv_packet_keys(struct tc *t, const struct quic_keys *k, int phase, const uint8_t *frames, size_t n)
{
    uint8_t pkt[2048];
    uint8_t scid[QUIC_MAX_CID_LEN];
    size_t sl = quic_conn_test_scid(t->c, scid);
    size_t h = quic_build_short(pkt, sizeof pkt, scid, sl, phase, srv_pn_len);
    if (h == 0 || h + n + QUIC_TAG_LEN > sizeof pkt) {
        printf("FAIL srv_packet: %zu bytes do not fit\n", n);
        exit(2);
    }
    memcpy(pkt + h, frames, n);
    struct quic_keys kc = *k;
    size_t len = quic_packet_seal(&kc, pkt, h, n, t->spn++);
    quic_conn_input(t->c, pkt, len, t->now);
}

static void srv_packet(struct tc *t, const uint8_t *frames, size_t n)
{
    int rd;
    const struct quic_keys *k = quic_conn_test_server_keys(t->c, &rd);
    srv_packet_keys(t, &k[rd], rd, frames, n);
}

/* One STREAM frame with all of data into f (cap bytes), or the test stops. */
static size_t stream_frame(uint8_t *f, size_t cap, uint64_t id, uint64_t off, const uint8_t *data, size_t len, bool fin)
{
    size_t k, w = quic_frame_enc_stream(f, cap, id, off, data, len, fin, false, &k);
    if (w == 0 || k != len) {
        printf("FAIL stream_frame: %zu bytes do not fit\n", len);
        exit(2);
    }
    return w;
}

static void srv_stream(struct tc *t, uint64_t id, uint64_t off, const uint8_t *data, size_t len, bool fin)
{
    uint8_t f[1500];
    srv_packet(t, f, stream_frame(f, sizeof f, id, off, data, len, fin));
}

static uint64_t open_req(struct tc *t)
{
    return quic_conn_open(t->c, qct_reqs[0].p, qct_reqs[0].n);
}

static uint8_t pattern(size_t i) { return (uint8_t)(i * 7 + 3); }

static bool closed_with(struct tc *t, enum quic_close_kind kind, uint64_t code)
{
    const struct quic_close_info *ci = quic_conn_close_info(t->c);
    return ci->kind == kind && ci->code == code;
}

/* ============================================================ part one: the trace */

static void test_replay_in_order(void)
{
    struct tc t;
    char why[160];
    tc_init(&t);
    step(&t);
    T_CHECK("trace: the server's connection ID read from its Initial", t.server_cid_len > 0, "none");
    size_t done_at = SIZE_MAX;
    uint64_t before_d6 = 0, after_d6 = 0;
    for (size_t i = 0; i < QCT_NDGRAMS; i++) {
        if (i == 6)
            before_d6 = quic_conn_counters(t.c)->packets_received;
        feed_trace(&t, i);
        if (i == 6)
            after_d6 = quic_conn_counters(t.c)->packets_received;
        if (done_at == SIZE_MAX && quic_conn_state(t.c) == QUIC_ESTABLISHED)
            done_at = i;
    }
    T_CHECK("replay: established after the recorder's datagram", done_at + 1 == QCT_OPEN_AFTER,
            "at datagram %zu, recorder %d", done_at, QCT_OPEN_AFTER);
    T_CHECK("replay: still established at the end", quic_conn_state(t.c) == QUIC_ESTABLISHED, "state %d",
            quic_conn_state(t.c));
    T_CHECK("replay: ALPN h3", strcmp(quic_conn_alpn(t.c), "h3") == 0, "alpn '%s'", quic_conn_alpn(t.c));
    T_CHECK("replay: handshake took the fake clock's time", quic_conn_counters(t.c)->handshake_ns == QCT_OPEN_AFTER * MS,
            "%llu ns", (unsigned long long)quic_conn_counters(t.c)->handshake_ns);
    /* Datagram 6 is a Handshake packet (an ACK) that came after the 1-RTT
     * packet with HANDSHAKE_DONE (datagram 5): the keys are gone. */
    T_CHECK("replay: Handshake packet after HANDSHAKE_DONE dropped", after_d6 == before_d6, "%llu -> %llu",
            (unsigned long long)before_d6, (unsigned long long)after_d6);
    T_CHECK("replay: every stream delivered as recorded, FIN once", same_as_trace(&t, why, sizeof why), "%s", why);

    /* The responses themselves (not only "as recorded"). */
    static const struct { uint16_t status; uint64_t body; } want[QCT_NREQ] = { { 200, 3 }, { 200, 5000 }, { 204, 0 } };
    for (size_t r = 0; r < QCT_NREQ; r++) {
        struct sb *s = sb_of(&t, t.ids[r], false);
        struct h3_resp resp;
        h3_resp_init(&resp);
        int rc = s ? h3_resp_feed(&resp, s->p, s->n, s->fins > 0) : -1;
        char name[64];
        snprintf(name, sizeof name, "replay: response %zu is %u with %llu body bytes", r, want[r].status,
                 (unsigned long long)want[r].body);
        T_CHECK(name, rc == H3_RESP_DONE && resp.status == want[r].status && resp.body_len == want[r].body,
                "rc %d status %u body %llu", rc, resp.status, (unsigned long long)resp.body_len);
    }
    struct sb *ctl = sb_of(&t, 3, false);
    T_CHECK("replay: the server's control stream (3) starts with type 0x00", ctl && ctl->n > 0 && ctl->p[0] == 0,
            "%zu bytes", ctl ? ctl->n : 0);
    /* Feeding the whole trace again changes nothing: all duplicates or
     * packets of discarded spaces. */
    uint64_t pr = quic_conn_counters(t.c)->packets_received;
    for (size_t i = 0; i < QCT_NDGRAMS; i++)
        feed_trace(&t, i);
    T_CHECK("replay: the trace again is all dropped", quic_conn_counters(t.c)->packets_received == pr &&
            same_as_trace(&t, why, sizeof why) && quic_conn_state(t.c) == QUIC_ESTABLISHED,
            "packets %llu -> %llu, %s", (unsigned long long)pr,
            (unsigned long long)quic_conn_counters(t.c)->packets_received, why);
    tc_free(&t);

    /* The same Handshake packet before HANDSHAKE_DONE is taken: the drop
     * above is the keys' discard, not the packet. */
    tc_init(&t);
    step(&t);
    for (size_t i = 0; i < 5; i++)
        feed_trace(&t, i);
    uint64_t b = quic_conn_counters(t.c)->packets_received;
    feed_trace(&t, 6);
    uint64_t a = quic_conn_counters(t.c)->packets_received;
    feed_trace(&t, 5);
    for (size_t i = 7; i < QCT_NDGRAMS; i++)
        feed_trace(&t, i);
    T_CHECK("replay: that Handshake packet before HANDSHAKE_DONE is taken", a == b + 1, "%llu -> %llu",
            (unsigned long long)b, (unsigned long long)a);
    T_CHECK("replay: 6 before 5, same result", same_as_trace(&t, why, sizeof why), "%s", why);
    tc_free(&t);
}

/* The client is a function of its entropy, config, clock and input: two
 * replays send the same bytes. */
static void test_deterministic(void)
{
    struct tc t;
    uint64_t h[2];
    for (int r = 0; r < 2; r++) {
        out_hash = 14695981039346656037ull;
        established(&t, false);
        h[r] = out_hash;
        tc_free(&t);
    }
    T_CHECK("replay: two replays send byte-identical datagrams", h[0] == h[1], "%016llx %016llx",
            (unsigned long long)h[0], (unsigned long long)h[1]);
}

/* The first QCT_OPEN_AFTER datagrams carry the handshake: 0 the Initial
 * (ServerHello) and the first Handshake packet, 1..4 the rest of it. */
#define HS_N QCT_OPEN_AFTER

/* The server's ACK frames in those datagrams acknowledge the packets the
 * recorded client had sent by then: fed in another order, they may
 * acknowledge a packet this client has not sent yet (PROTOCOL_VIOLATION,
 * rightly), and an acknowledgment of one of our ACKs lets the client drop
 * packet numbers below what that ACK covered (RFC 9000 §12.3, §13.2.3),
 * so a late packet is lost for good (the real server would send its
 * frames again in a new one). So the reordering tests use the same
 * datagrams with every Handshake ACK frame turned into PADDING, opened and
 * sealed again with the Handshake keys under their own packet numbers. */
static uint8_t hs_dg[HS_N][1500];
static size_t hs_len[HS_N];
static unsigned hs_acks, hs_pkts;

static void scrub_init(void)
{
    struct tc t;
    tc_init(&t);
    step(&t);
    feed_trace(&t, 0);
    const struct quic_keys *k = quic_conn_test_handshake_keys(t.c);
    bool ok = k != NULL;
    for (size_t i = 0; ok && i < HS_N; i++) {
        memcpy(hs_dg[i], qct_dgrams[i].p, qct_dgrams[i].n);
        hs_len[i] = qct_dgrams[i].n;
        for (size_t at = 0; at < hs_len[i];) {
            struct quic_hdr h;
            if (quic_hdr_parse(&h, hs_dg[i] + at, hs_len[i] - at, 8) != QUIC_PKT_OK)
                break;
            if (h.type == QUIC_PT_HANDSHAKE) {
                struct quic_keys kc = *k;
                struct quic_opened o;
                uint8_t *pkt = hs_dg[i] + at;
                if (quic_packet_open(&kc, pkt, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &o) != QUIC_PKT_OK) {
                    ok = false;
                    break;
                }
                const uint8_t *p = o.payload, *end = o.payload + o.payload_len;
                struct quic_frame f;
                while (p < end) {
                    const uint8_t *start = p;
                    if (quic_frame_next(&p, end, &f) != 0)
                        break;
                    if (f.kind == QUIC_FT_ACK) {
                        memset(o.payload + (start - o.payload), 0, (size_t)(p - start));
                        hs_acks++;
                    }
                }
                ok &= quic_packet_seal(&kc, pkt, o.hdr_len, o.payload_len, o.pn) == h.pkt_len;
                hs_pkts++;
            }
            at += h.pkt_len;
        }
    }
    T_CHECK("reorder: the Handshake datagrams opened and sealed again without their ACKs", ok && hs_pkts >= HS_N,
            "ok %d, %u packets, %u ACK frames", ok, hs_pkts, hs_acks);
    tc_free(&t);
}

static void feed_hs(struct tc *t, size_t i)
{
    t->now += MS;
    feed(t, hs_dg[i], hs_len[i]);
    step(t);
}

static bool run_order(const size_t *order, size_t n, char *why, size_t cap)
{
    struct tc t;
    tc_init(&t);
    step(&t);
    for (size_t i = 0; i < n; i++)
        feed_hs(&t, order[i]);
    for (size_t i = HS_N; i < QCT_NDGRAMS; i++)
        feed_trace(&t, i);
    bool ok = quic_conn_state(t.c) == QUIC_ESTABLISHED && strcmp(quic_conn_alpn(t.c), "h3") == 0 &&
              same_as_trace(&t, why, cap);
    if (quic_conn_state(t.c) != QUIC_ESTABLISHED)
        snprintf(why, cap, "state %d, close kind %d code 0x%llx ft 0x%llx", quic_conn_state(t.c),
                 quic_conn_close_info(t.c)->kind, (unsigned long long)quic_conn_close_info(t.c)->code, (unsigned long long)quic_conn_close_info(t.c)->frame_type);
    tc_free(&t);
    return ok;
}

static bool next_perm(size_t *a, size_t n)
{
    size_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0)
        return false;
    size_t j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    size_t x = a[i - 1];
    a[i - 1] = a[j];
    a[j] = x;
    for (size_t l = i, r = n - 1; l < r; l++, r--) {
        x = a[l];
        a[l] = a[r];
        a[r] = x;
    }
    return true;
}

static void test_replay_reordered(void)
{
    char why[160];
    _Static_assert(HS_N >= 3 && HS_N <= 8, "the trace's handshake takes 3 to 8 datagrams");
    scrub_init();

    /* Datagram 0 first (nothing else can be opened without its
     * ServerHello), then 1..HS_N-1 in every order. */
    size_t order[2 * HS_N + 2];
    size_t perm[HS_N - 1];
    for (size_t i = 0; i < HS_N - 1; i++)
        perm[i] = i + 1;
    unsigned tried = 0, good = 0;
    do {
        order[0] = 0;
        memcpy(order + 1, perm, sizeof perm);
        tried++;
        if (run_order(order, HS_N, why, sizeof why))
            good++;
        else
            (void)T_QUIET("reorder: a permutation of the Handshake datagrams", 0, "order 0 %zu %zu %zu ...: %s",
                          perm[0], perm[1], perm[2], why);
    } while (next_perm(perm, HS_N - 1));
    T_CHECK("reorder: every permutation of the Handshake datagrams completes the same", good == tried, "%u of %u",
            good, tried);

    /* Everything reversed: the Handshake packets before the ServerHello
     * cannot be opened (no keys yet) and are lost; sent again (reversed
     * again), they complete it. */
    size_t n = 0;
    for (size_t i = HS_N; i-- > 0;)
        order[n++] = i;
    for (size_t i = HS_N; i-- > 1;)
        order[n++] = i;
    T_CHECK("reorder: reversed, then the lost ones again reversed", run_order(order, n, why, sizeof why), "%s", why);

    /* Each one twice in a row. */
    n = 0;
    for (size_t i = 0; i < HS_N; i++) {
        order[n++] = i;
        order[n++] = i;
    }
    T_CHECK("reorder: every Handshake datagram duplicated", run_order(order, n, why, sizeof why), "%s", why);

    /* One dropped (each in turn), the connection still handshaking
     * without it, then it comes late. */
    for (size_t drop = 1; drop < HS_N; drop++) {
        struct tc t;
        tc_init(&t);
        step(&t);
        for (size_t i = 0; i < HS_N; i++)
            if (i != drop)
                feed_hs(&t, i);
        bool waiting = quic_conn_state(t.c) == QUIC_HANDSHAKING;
        feed_hs(&t, drop);
        bool done = quic_conn_state(t.c) == QUIC_ESTABLISHED;
        for (size_t i = HS_N; i < QCT_NDGRAMS; i++)
            feed_trace(&t, i);
        char name[80];
        snprintf(name, sizeof name, "reorder: datagram %zu dropped waits, fed late completes", drop);
        T_CHECK(name, waiting && done && same_as_trace(&t, why, sizeof why), "waiting %d done %d: %s", waiting, done,
                why);
        tc_free(&t);
    }
}

/* ============================================================ part two: playing the server */

static void test_stream_reassembly(void)
{
    struct tc t;
    established(&t, false);
    uint64_t id = open_req(&t);
    uint8_t d[3000];
    for (size_t i = 0; i < sizeof d; i++)
        d[i] = pattern(i);
    srv_stream(&t, id, 1000, d + 1000, 1000, false); /* ahead */
    srv_stream(&t, id, 2500, d + 2500, 500, true);   /* the end, ahead */
    srv_stream(&t, id, 0, d, 500, false);            /* in order */
    srv_stream(&t, id, 400, d + 400, 800, false);    /* overlaps both sides: 500..2000 now */
    srv_stream(&t, id, 1000, d + 1000, 1000, false); /* a duplicate */
    srv_stream(&t, id, 2000, d + 2000, 1000, true);  /* the rest, up to the FIN already pooled */
    srv_stream(&t, id, 2500, d + 2500, 500, true);   /* the end again */
    srv_stream(&t, id, 0, d, 1400, false);           /* all of it again */
    srv_stream(&t, id, 1400, d + 1400, 1400, false);
    srv_stream(&t, id, 2800, d + 2800, 200, true);
    struct sb *s = sb_of(&t, id, false);
    T_CHECK("stream: out of order, overlapping, duplicated: exact bytes once",
            s && s->n == sizeof d && memcmp(s->p, d, sizeof d) == 0, "%zu bytes", s ? s->n : 0);
    T_CHECK("stream: FIN delivered once, nothing after it", s && s->fins == 1 && s->calls_after_fin == 0,
            "%u FIN, %u calls after", s ? s->fins : 0, s ? s->calls_after_fin : 0);
    T_CHECK("stream: connection still up", quic_conn_state(t.c) == QUIC_ESTABLISHED, "state %d", quic_conn_state(t.c));
    tc_free(&t);

    /* A FIN of its own (empty frame) ahead of the last data. */
    established(&t, false);
    id = open_req(&t);
    srv_stream(&t, id, 2800, NULL, 0, true);
    srv_stream(&t, id, 1400, d + 1400, 1400, false);
    srv_stream(&t, id, 0, d, 1400, false);
    s = sb_of(&t, id, false);
    T_CHECK("stream: lone FIN ahead of the data: bytes then FIN once",
            s && s->n == 2800 && memcmp(s->p, d, 2800) == 0 && s->fins == 1 && s->calls_after_fin == 0,
            "%zu bytes, %u FIN, %u after", s ? s->n : 0, s ? s->fins : 0, s ? s->calls_after_fin : 0);
    /* A different final size now is FINAL_SIZE_ERROR (§4.5). */
    srv_stream(&t, id, 2800, d, 10, true);
    T_CHECK("stream: data past the final size: FINAL_SIZE_ERROR",
            closed_with(&t, QUIC_CLOSE_LOCAL, QUIC_FINAL_SIZE_ERROR), "kind %d code 0x%llx",
            quic_conn_close_info(t.c)->kind, (unsigned long long)quic_conn_close_info(t.c)->code);
    tc_free(&t);
}

static void test_stream_window(void)
{
    struct tc t;
    struct out o;
    static uint8_t d[1000];
    established(&t, true);
    uint64_t id = open_req(&t);
    srv_stream(&t, id, QCT_STREAM_WINDOW - sizeof d, d, sizeof d, false);
    T_CHECK("window: data up to the stream window is fine", quic_conn_state(t.c) == QUIC_ESTABLISHED, "kind %d code 0x%llx",
            quic_conn_close_info(t.c)->kind, (unsigned long long)quic_conn_close_info(t.c)->code);
    srv_stream(&t, id, QCT_STREAM_WINDOW - sizeof d + 1, d, sizeof d, false);
    T_CHECK("window: one byte past it: FLOW_CONTROL_ERROR", closed_with(&t, QUIC_CLOSE_LOCAL, QUIC_FLOW_CONTROL_ERROR),
            "kind %d code 0x%llx", quic_conn_close_info(t.c)->kind, (unsigned long long)quic_conn_close_info(t.c)->code);
    T_CHECK("window: the offending frame type recorded", quic_conn_close_info(t.c)->frame_type == 0x0e,
            "0x%llx", (unsigned long long)quic_conn_close_info(t.c)->frame_type);
    drain(&t, &o);
    T_CHECK("window: CONNECTION_CLOSE FLOW_CONTROL_ERROR goes out, then closed",
            o.close == 1 && !o.close_app && o.close_code == QUIC_FLOW_CONTROL_ERROR && o.close_ft == 0x0e &&
                quic_conn_state(t.c) == QUIC_CLOSED,
            "%u closes, code 0x%llx, state %d", o.close, (unsigned long long)o.close_code, quic_conn_state(t.c));
    drain(&t, &o);
    T_CHECK("window: nothing after the close", o.dgrams == 0, "%u datagrams", o.dgrams);
    tc_free(&t);
}

static void test_credit(void)
{
    struct tc t;
    struct out o;
    static uint8_t d[QCT_STREAM_WINDOW];
    for (size_t i = 0; i < sizeof d; i++)
        d[i] = pattern(i);
    established(&t, true);
    uint64_t id = open_req(&t);
    drain(&t, &o);
    size_t off = 0;
    for (; off + 1024 <= QCT_STREAM_WINDOW / 2; off += 1024)
        srv_stream(&t, id, off, d + off, 1024, false);
    t.now += 10 * MS; /* past the ACK delay: everything due goes out */
    drain(&t, &o);
    T_CHECK("credit: half the stream window consumed: no MAX_STREAM_DATA yet", o.msd == 0 && o.shorts > 0,
            "%u MAX_STREAM_DATA in %u packets", o.msd, o.shorts);
    srv_stream(&t, id, off, d + off, 1, false);
    off++;
    drain(&t, &o);
    T_CHECK("credit: one byte more: MAX_STREAM_DATA, a window past what was consumed",
            o.msd == 1 && o.msd_id == id && o.msd_max == off + QCT_STREAM_WINDOW, "%u frames, id %llu max %llu (want %zu)",
            o.msd, (unsigned long long)o.msd_id, (unsigned long long)o.msd_max, off + QCT_STREAM_WINDOW);
    drain(&t, &o);
    T_CHECK("credit: sent once", o.msd == 0, "%u more", o.msd);
    /* The new limit is real: up to it is fine, past it is not. */
    uint64_t lim = off + QCT_STREAM_WINDOW;
    for (; off + 1024 <= lim; off += 1024)
        srv_stream(&t, id, off, d + off % 8192, 1024, false);
    srv_stream(&t, id, off, d, (size_t)(lim - off), false);
    off = (size_t)lim;
    T_CHECK("credit: data up to the new limit accepted", quic_conn_state(t.c) == QUIC_ESTABLISHED, "kind %d code 0x%llx",
            quic_conn_close_info(t.c)->kind, (unsigned long long)quic_conn_close_info(t.c)->code);
    tc_free(&t);

    /* Connection credit: over half of conn_window consumed across
     * streams (each closed at its FIN, the ring wrapping many times). */
    established(&t, true);
    drain(&t, &o);
    uint64_t base = t.delivered, md_at = 0, md_max = 0;
    unsigned md_frames = 0, streams = 0;
    while (t.delivered - base < QCT_CONN_WINDOW / 2 + 2 * QCT_STREAM_WINDOW && streams < 200 &&
           quic_conn_state(t.c) == QUIC_ESTABLISHED) {
        if (!quic_conn_can_open(t.c))
            break;
        id = open_req(&t);
        streams++;
        for (off = 0; off < QCT_STREAM_WINDOW; off += 1024) {
            srv_stream(&t, id, off, d + off, 1024, off + 1024 == QCT_STREAM_WINDOW);
            drain(&t, &o);
            if (o.md) {
                md_frames += o.md;
                if (md_at == 0) {
                    md_at = t.delivered;
                    md_max = o.md_max;
                }
            }
        }
    }
    (void)base;
    T_CHECK("credit: MAX_DATA once past half the connection window, a window past what was consumed",
            md_at > QCT_CONN_WINDOW / 2 && md_at <= QCT_CONN_WINDOW / 2 + 1024 && md_max == md_at + QCT_CONN_WINDOW,
            "at %llu consumed, max %llu, %u streams", (unsigned long long)md_at, (unsigned long long)md_max, streams);
    T_CHECK("credit: MAX_DATA sent once", md_frames == 1, "%u", md_frames);
    tc_free(&t);
}

static void test_ack_checks(void)
{
    struct tc t;
    struct out o;
    uint8_t f[64];
    established(&t, true);
    open_req(&t);
    drain(&t, &o);
    struct quic_ack_range r = { 0, t.cl_largest };
    size_t w = quic_frame_enc_ack(f, sizeof f, &r, 1, 0, NULL, NULL);
    srv_packet(&t, f, w);
    T_CHECK("ack: an ACK of everything sent is fine", quic_conn_state(t.c) == QUIC_ESTABLISHED, "kind %d",
            quic_conn_close_info(t.c)->kind);
    r.hi = t.cl_largest + 1;
    w = quic_frame_enc_ack(f, sizeof f, &r, 1, 0, NULL, NULL);
    srv_packet(&t, f, w);
    T_CHECK("ack: an ACK of a packet never sent: PROTOCOL_VIOLATION",
            closed_with(&t, QUIC_CLOSE_LOCAL, QUIC_PROTOCOL_VIOLATION) && quic_conn_close_info(t.c)->frame_type == 0x02,
            "kind %d code 0x%llx ft 0x%llx", quic_conn_close_info(t.c)->kind,
            (unsigned long long)quic_conn_close_info(t.c)->code, (unsigned long long)quic_conn_close_info(t.c)->frame_type);
    tc_free(&t);
}

static void test_max_streams(void)
{
    struct tc t;
    struct out o;
    uint8_t f[16];
    established(&t, true);
    unsigned opened = 0;
    while (quic_conn_can_open(t.c) && opened < 100000) {
        uint64_t id = open_req(&t);
        quic_conn_close_stream(t.c, id, 0);
        opened++;
    }
    uint64_t limit = QCT_NREQ + opened; /* the server's initial_max_streams_bidi */
    T_CHECK("max_streams: the server's limit holds (nothing else does)",
            opened > 0 && opened < 100000 && quic_conn_open_streams(t.c) == 0, "opened %u, %u open", opened,
            quic_conn_open_streams(t.c));
    drain(&t, &o);
    T_CHECK("max_streams: STREAMS_BLOCKED with the limit", o.sb == 1 && o.sb_limit == limit, "%u, limit %llu (want %llu)",
            o.sb, (unsigned long long)o.sb_limit, (unsigned long long)limit);
    srv_packet(&t, f, quic_frame_enc_max_streams(f, sizeof f, false, limit - 1));
    srv_packet(&t, f, quic_frame_enc_max_streams(f, sizeof f, true, limit + 10));
    T_CHECK("max_streams: a smaller one and a unidirectional one change nothing", !quic_conn_can_open(t.c), "can open");
    srv_packet(&t, f, quic_frame_enc_max_streams(f, sizeof f, false, limit + 2));
    bool a = quic_conn_can_open(t.c);
    if (a)
        quic_conn_close_stream(t.c, open_req(&t), 0);
    bool b = quic_conn_can_open(t.c);
    if (b)
        quic_conn_close_stream(t.c, open_req(&t), 0);
    bool c = quic_conn_can_open(t.c);
    T_CHECK("max_streams: two more allowed, then blocked again", a && b && !c, "%d %d %d", a, b, c);
    tc_free(&t);
}

static void test_ring(void)
{
    struct tc t;
    established(&t, true);
    uint32_t ring = quic_conn_ring(t.c);
    T_CHECK("ring: twice max_streams", ring == 2 * QCT_MAX_STREAMS, "%u", ring);
    /* Streams answered and closed until the ring has wrapped twice. */
    uint64_t last = 0;
    while (quic_conn_can_open(t.c)) {
        uint64_t id = open_req(&t);
        last = id;
        srv_stream(&t, id, 0, (const uint8_t *)"done", 4, true);
        if ((id >> 2) >= 2 * ring + QCT_NREQ)
            break;
    }
    T_CHECK("ring: wrapped twice, everything closed", (last >> 2) >= 2 * ring && quic_conn_open_streams(t.c) == 0,
            "last %llu, %u open", (unsigned long long)last, quic_conn_open_streams(t.c));
    /* One live stream, in the slot of earlier ones. */
    uint64_t live = open_req(&t);
    uint64_t ghost = live - 4ull * ring; /* same slot, retired */
    struct sb *gs = sb_of(&t, ghost, false);
    size_t ghost_n = gs ? gs->n : 0;
    uint8_t f[64];
    srv_stream(&t, ghost, 4, (const uint8_t *)"late", 4, false);
    srv_stream(&t, 0, 100, (const uint8_t *)"late", 4, true);
    srv_packet(&t, f, quic_frame_enc_reset_stream(f, sizeof f, ghost, 0x10c, 8));
    srv_packet(&t, f, quic_frame_enc_max_stream_data(f, sizeof f, ghost, 1 << 20));
    gs = sb_of(&t, ghost, false);
    T_CHECK("ring: late frames for retired streams ignored",
            quic_conn_state(t.c) == QUIC_ESTABLISHED && sb_of(&t, live, false) == NULL && (gs ? gs->n : 0) == ghost_n &&
                t.resets == 0,
            "state %d, live got %d, resets %u", quic_conn_state(t.c), sb_of(&t, live, false) != NULL, t.resets);
    srv_stream(&t, live, 0, (const uint8_t *)"ok", 2, false);
    struct sb *ls = sb_of(&t, live, false);
    T_CHECK("ring: the live stream in that slot gets its own", ls && ls->n == 2 && memcmp(ls->p, "ok", 2) == 0,
            "%zu bytes", ls ? ls->n : 0);
    srv_stream(&t, live + 4, 0, (const uint8_t *)"x", 1, false);
    T_CHECK("ring: a stream never opened: STREAM_STATE_ERROR", closed_with(&t, QUIC_CLOSE_LOCAL, QUIC_STREAM_STATE_ERROR),
            "kind %d code 0x%llx", quic_conn_close_info(t.c)->kind, (unsigned long long)quic_conn_close_info(t.c)->code);
    tc_free(&t);
}

static void test_pto(void)
{
    struct tc t;
    struct out o;
    established(&t, true);
    t.now += 10 * MS;
    drain(&t, &o); /* ACKs owed */
    open_req(&t);
    drain(&t, &o);
    T_CHECK("pto: the request went out", o.stream >= 1, "%u STREAM", o.stream);
    uint64_t d = quic_conn_deadline(t.c);
    T_CHECK("pto: a timer is armed", d != UINT64_MAX && d > t.now && d < t.now + QCT_IDLE_MS * MS, "deadline %llu now %llu",
            (unsigned long long)d, (unsigned long long)t.now);
    const struct quic_conn_counters *k = quic_conn_counters(t.c);
    uint64_t sent0 = k->packets_sent;
    t.now = d - 1;
    quic_conn_timeout(t.c, t.now);
    drain(&t, &o);
    T_CHECK("pto: nothing before the deadline", quic_conn_counters(t.c)->packets_sent == sent0 &&
            quic_conn_counters(t.c)->pto_count == 0, "%llu packets", (unsigned long long)(k->packets_sent - sent0));
    t.now = d;
    quic_conn_timeout(t.c, t.now);
    drain(&t, &o);
    uint64_t sent1 = quic_conn_counters(t.c)->packets_sent;
    /* RFC 9002 §6.2.4: up to two probes; quic/recovery.c asks for two. */
    T_CHECK("pto: at the deadline, two probes (ack-eliciting) go out",
            sent1 - sent0 == 2 && o.eliciting_pkts == 2 &&
                quic_conn_counters(t.c)->pto_count == 1,
            "%llu probes, %u eliciting, pto_count %llu", (unsigned long long)(sent1 - sent0), o.eliciting_pkts,
            (unsigned long long)quic_conn_counters(t.c)->pto_count);
    quic_conn_timeout(t.c, t.now);
    quic_conn_timeout(t.c, t.now);
    drain(&t, &o);
    T_CHECK("pto: the same expiry again fires nothing", quic_conn_counters(t.c)->packets_sent == sent1 &&
            quic_conn_counters(t.c)->pto_count == 1, "%llu more", (unsigned long long)(quic_conn_counters(t.c)->packets_sent - sent1));
    uint64_t d2 = quic_conn_deadline(t.c);
    T_CHECK("pto: the next one is later, backed off", d2 != UINT64_MAX && d2 > d,
            "next %llu", (unsigned long long)d2);
    t.now = d2;
    quic_conn_timeout(t.c, t.now);
    drain(&t, &o);
    T_CHECK("pto: the second expiry probes again", quic_conn_counters(t.c)->packets_sent > sent1 &&
            quic_conn_counters(t.c)->pto_count == 2, "pto_count %llu", (unsigned long long)quic_conn_counters(t.c)->pto_count);
    tc_free(&t);
}

static void test_peer_close(void)
{
    struct tc t;
    struct out o;
    uint8_t f[64];
    established(&t, true);
    size_t w = quic_frame_enc_close(f, sizeof f, false, QUIC_PROTOCOL_VIOLATION, 0x08, "bye", 3);
    srv_packet(&t, f, w);
    const struct quic_close_info *ci = quic_conn_close_info(t.c);
    T_CHECK("close: the server's transport close", quic_conn_state(t.c) == QUIC_CLOSED && ci->kind == QUIC_CLOSE_PEER &&
            !ci->app && ci->code == QUIC_PROTOCOL_VIOLATION && ci->frame_type == 0x08 && strcmp(ci->reason, "bye") == 0 &&
            !ci->during_handshake,
            "state %d kind %d app %d code 0x%llx ft 0x%llx reason '%s'", quic_conn_state(t.c), ci->kind, ci->app,
            (unsigned long long)ci->code, (unsigned long long)ci->frame_type, ci->reason);
    drain(&t, &o);
    T_CHECK("close: draining, nothing sent", o.dgrams == 0 && quic_conn_deadline(t.c) == UINT64_MAX, "%u datagrams",
            o.dgrams);
    tc_free(&t);

    established(&t, true);
    w = quic_frame_enc_close(f, sizeof f, true, H3_NO_ERROR, 0, "", 0);
    srv_packet(&t, f, w);
    ci = quic_conn_close_info(t.c);
    T_CHECK("close: the server's application close", quic_conn_state(t.c) == QUIC_CLOSED &&
            ci->kind == QUIC_CLOSE_PEER && ci->app && ci->code == H3_NO_ERROR,
            "kind %d app %d code 0x%llx", ci->kind, ci->app, (unsigned long long)ci->code);
    tc_free(&t);
}

/* NEW_CONNECTION_ID seq 9, retiring 0..8: the client moves to it, so its
 * reset token is the one of the connection ID in use. */
static const uint8_t new_cid[8] = { 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8 };
static const uint8_t token[16] = { 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77,
                                   0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f };

static void move_cid(struct tc *t, struct out *o)
{
    uint8_t f[64], *p = f;
    *p++ = QUIC_FT_NEW_CONNECTION_ID;
    *p++ = 9; /* sequence: above any the server sent in the trace */
    *p++ = 9; /* retire prior to: all of those */
    *p++ = sizeof new_cid;
    memcpy(p, new_cid, sizeof new_cid);
    p += sizeof new_cid;
    memcpy(p, token, sizeof token);
    p += sizeof token;
    srv_packet(t, f, (size_t)(p - f));
    t->now += 10 * MS;
    drain(t, o);
}

static void reset_dgram(uint8_t *d, size_t n, bool our_cid, const struct tc *t)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(i * 37 + 11);
    d[0] = 0x40 | (d[0] & 0x3f);
    if (our_cid)
        quic_conn_test_scid(t->c, d + 1);
    memcpy(d + n - 16, token, 16);
}

/* A TLS message the client cannot take after the handshake (1-RTT CRYPTO,
 * RFC 9001 §4.1.3): our close, CRYPTO_ERROR with unexpected_message (RFC
 * 9001 §4.8), not a failed handshake (it once was QUIC_CLOSE_HANDSHAKE, and
 * the requests on the connection were counted as if the server had closed). */
static void test_crypto_after_handshake(void)
{
    struct tc t;
    const uint8_t f[] = { QUIC_FT_CRYPTO, 0x00, 0x04, 0xfe, 0x00, 0x00, 0x00 };
    established(&t, true);
    srv_packet(&t, f, sizeof f);
    const struct quic_close_info *ci = quic_conn_close_info(t.c);
    T_CHECK("crypto after the handshake: our close, CRYPTO_ERROR unexpected_message",
            ci->kind == QUIC_CLOSE_LOCAL && !ci->app && ci->code == 0x10a && ci->tls_alert == 10 && !ci->during_handshake,
            "kind %d code 0x%llx alert %d during %d", ci->kind, (unsigned long long)ci->code, ci->tls_alert,
            ci->during_handshake);
    tc_free(&t);
}

/* RFC 9000 §5.1.1: the connection ID in use is one of the active ones, so
 * with the limit we advertise (4) the server may give 3 more; a 4th is
 * CONNECTION_ID_LIMIT_ERROR (the client once kept 4 spares besides the one
 * in use, 5 active, and said nothing). */
static void test_cid_limit(void)
{
    struct tc t;
    struct out o;
    established(&t, true);
    move_cid(&t, &o); /* sequence 9 in use, every earlier one retired */
    for (unsigned seq = 10; seq <= 13; seq++) {
        uint8_t f[64], *p = f;
        *p++ = QUIC_FT_NEW_CONNECTION_ID;
        *p++ = (uint8_t)seq;
        *p++ = 9; /* retire prior to: nothing new */
        *p++ = sizeof new_cid;
        memcpy(p, new_cid, sizeof new_cid);
        p[0] = (uint8_t)seq; /* a connection ID of its own */
        p += sizeof new_cid;
        memcpy(p, token, sizeof token);
        p[0] = (uint8_t)seq;
        p += sizeof token;
        srv_packet(&t, f, (size_t)(p - f));
        const struct quic_close_info *ci = quic_conn_close_info(t.c);
        if (seq < 13)
            T_CHECK("cid limit: up to the advertised limit (4 active) is kept", ci->kind == QUIC_CLOSE_NONE,
                    "seq %u: kind %d code 0x%llx", seq, ci->kind, (unsigned long long)ci->code);
        else
            T_CHECK("cid limit: a 5th active connection ID is CONNECTION_ID_LIMIT_ERROR",
                    ci->kind == QUIC_CLOSE_LOCAL && ci->code == QUIC_CONNECTION_ID_LIMIT_ERROR,
                    "kind %d code 0x%llx", ci->kind, (unsigned long long)ci->code);
    }
    tc_free(&t);
}

static void test_stateless_reset(void)
{
    struct tc t;
    struct out o;
    uint8_t d[64];
    established(&t, true);
    move_cid(&t, &o);
    T_CHECK("reset: the client moved to the new connection ID and retired 0 and the server's others",
            o.shorts > 0 && memcmp(o.dcid, new_cid, sizeof new_cid) == 0 && (o.retired & 1) && o.retired < (1u << 9),
            "%u packets, %u retire (seqs 0x%llx)", o.shorts, o.retire, (unsigned long long)o.retired);
    reset_dgram(d, sizeof d, false, &t);
    d[sizeof d - 1] ^= 1; /* not the token */
    quic_conn_input(t.c, d, sizeof d, t.now);
    T_CHECK("reset: a random short datagram is ignored", quic_conn_state(t.c) == QUIC_ESTABLISHED, "kind %d",
            quic_conn_close_info(t.c)->kind);
    reset_dgram(d, 20, false, &t);
    quic_conn_input(t.c, d, 20, t.now);
    T_CHECK("reset: under 21 bytes it is not one", quic_conn_state(t.c) == QUIC_ESTABLISHED, "kind %d",
            quic_conn_close_info(t.c)->kind);
    /* RFC 9000 §10.3: Unpredictable Bits where a connection ID would be
     * (the server that lost its state does not know ours). */
    reset_dgram(d, sizeof d, false, &t);
    quic_conn_input(t.c, d, sizeof d, t.now);
    T_CHECK("reset: unpredictable bytes ending in the token: STATELESS_RESET",
            quic_conn_state(t.c) == QUIC_CLOSED && quic_conn_close_info(t.c)->kind == QUIC_CLOSE_STATELESS_RESET,
            "state %d kind %d", quic_conn_state(t.c), quic_conn_close_info(t.c)->kind);
    drain(&t, &o);
    T_CHECK("reset: nothing sent after it", o.dgrams == 0, "%u datagrams", o.dgrams);
    tc_free(&t);

    established(&t, true);
    move_cid(&t, &o);
    reset_dgram(d, 40, true, &t);
    quic_conn_input(t.c, d, 40, t.now);
    T_CHECK("reset: one that looks like a packet for us: STATELESS_RESET",
            quic_conn_close_info(t.c)->kind == QUIC_CLOSE_STATELESS_RESET, "kind %d", quic_conn_close_info(t.c)->kind);
    tc_free(&t);
}

static void test_key_update(void)
{
    struct tc t;
    struct out o;
    established(&t, true);
    int rd;
    const struct quic_keys *k = quic_conn_test_server_keys(t.c, &rd);
    struct quic_keys next = k[!rd], old = k[rd];
    uint64_t id = open_req(&t);
    uint64_t pr = quic_conn_counters(t.c)->packets_received;
    uint8_t f[64];
    size_t kk, w = quic_frame_enc_stream(f, sizeof f, id, 0, (const uint8_t *)"new keys", 8, false, false, &kk);
    srv_packet_keys(&t, &next, !rd, f, w);
    int rd2;
    quic_conn_test_server_keys(t.c, &rd2);
    struct sb *s = sb_of(&t, id, false);
    T_CHECK("key update: the server's packet in the other phase is taken",
            quic_conn_counters(t.c)->packets_received == pr + 1 && s && s->n == 8 && rd2 == !rd,
            "packets %llu -> %llu, phase %d -> %d", (unsigned long long)pr,
            (unsigned long long)quic_conn_counters(t.c)->packets_received, rd, rd2);
    T_CHECK("key update: counted", quic_conn_counters(t.c)->key_updates == 1, "%llu",
            (unsigned long long)quic_conn_counters(t.c)->key_updates);
    t.now += 10 * MS;
    drain(&t, &o);
    T_CHECK("key update: the client answers in the new phase", o.shorts > 0 && o.undecrypted == 0 && o.key_phase == !rd,
            "%u packets, %u not opened, phase %d", o.shorts, o.undecrypted, o.key_phase);
    /* The keys of the phase left are replaced by the ones after next: a
     * packet still sealed with the old ones is dropped ... */
    pr = quic_conn_counters(t.c)->packets_received;
    srv_packet_keys(&t, &old, rd, (const uint8_t *)"\x01", 1);
    T_CHECK("key update: a packet under the retired keys is dropped",
            quic_conn_counters(t.c)->packets_received == pr && quic_conn_state(t.c) == QUIC_ESTABLISHED,
            "packets +%llu", (unsigned long long)(quic_conn_counters(t.c)->packets_received - pr));
    /* ... and one under the keys after next is the server's second update. */
    k = quic_conn_test_server_keys(t.c, &rd2);
    struct quic_keys after = k[!rd2];
    srv_packet_keys(&t, &after, !rd2, (const uint8_t *)"\x01", 1);
    T_CHECK("key update: a second update by the server is taken", quic_conn_counters(t.c)->packets_received == pr + 1 &&
            quic_conn_counters(t.c)->key_updates == 2, "packets +%llu, updates %llu",
            (unsigned long long)(quic_conn_counters(t.c)->packets_received - pr),
            (unsigned long long)quic_conn_counters(t.c)->key_updates);
    tc_free(&t);
}

/* The server acknowledges everything the client sent so far. */
static void srv_ack_all(struct tc *t)
{
    uint8_t f[64];
    struct quic_ack_range r = { 0, t->cl_largest };
    size_t w = quic_frame_enc_ack(f, sizeof f, &r, 1, 0, NULL, NULL);
    srv_packet(t, f, w);
}

/* Ours (RFC 9001 §6.6): after key_update_after packets in a phase and an
 * acknowledgment of one of them, the client's keys change; not again
 * before the server has answered in the new phase (§6.1). */
static void test_our_key_update(void)
{
    struct tc t;
    struct out o;
    established(&t, true);
    quic_conn_test_key_update_after(t.c, 3);
    int phase0;
    quic_conn_test_client_keys(t.c, &phase0);
    uint64_t before = quic_conn_counters(t.c)->key_updates;
    for (int i = 0; i < 4; i++) { /* four packets, each acknowledged */
        open_req(&t);
        t.now += MS;
        drain(&t, &o);
        srv_ack_all(&t);
    }
    open_req(&t);
    t.now += MS;
    drain(&t, &o);
    T_CHECK("our key update: after 3 packets and an ACK the client's keys change",
            quic_conn_counters(t.c)->key_updates == before + 1 && o.shorts > 0 && o.undecrypted == 0 &&
                o.key_phase == !phase0,
            "updates %llu -> %llu, %u packets (%u not opened), phase %d -> %d", (unsigned long long)before,
            (unsigned long long)quic_conn_counters(t.c)->key_updates, o.shorts, o.undecrypted, phase0, o.key_phase);
    /* More packets, all acknowledged, but the server still writes in the
     * old phase: no second update. */
    for (int i = 0; i < 5; i++) {
        open_req(&t);
        t.now += MS;
        drain(&t, &o);
        srv_ack_all(&t);
    }
    T_CHECK("our key update: none again until the server answers in the new phase",
            quic_conn_counters(t.c)->key_updates == before + 1 && o.key_phase == !phase0, "updates %llu, phase %d",
            (unsigned long long)quic_conn_counters(t.c)->key_updates, o.key_phase);
    /* The server answers with the next keys: the client reads them, and
     * may update again later. */
    int rd;
    const struct quic_keys *k = quic_conn_test_server_keys(t.c, &rd);
    struct quic_keys next = k[!rd];
    uint8_t f[64];
    struct quic_ack_range r = { 0, t.cl_largest };
    size_t w = quic_frame_enc_ack(f, sizeof f, &r, 1, 0, NULL, NULL);
    uint64_t pr = quic_conn_counters(t.c)->packets_received;
    srv_packet_keys(&t, &next, !rd, f, w);
    T_CHECK("our key update: the server's packet in the new phase is taken, not counted as its own update",
            quic_conn_counters(t.c)->packets_received == pr + 1 && quic_conn_counters(t.c)->key_updates == before + 1,
            "packets +%llu, updates %llu", (unsigned long long)(quic_conn_counters(t.c)->packets_received - pr),
            (unsigned long long)quic_conn_counters(t.c)->key_updates);
    for (int i = 0; i < 5; i++) {
        open_req(&t);
        t.now += MS;
        drain(&t, &o);
        const struct quic_keys *k2 = quic_conn_test_server_keys(t.c, &rd);
        uint8_t g[64];
        struct quic_ack_range r2 = { 0, t.cl_largest };
        size_t w2 = quic_frame_enc_ack(g, sizeof g, &r2, 1, 0, NULL, NULL);
        srv_packet_keys(&t, &k2[rd], rd, g, w2);
    }
    T_CHECK("our key update: a second one once the first was answered", quic_conn_counters(t.c)->key_updates == before + 2,
            "updates %llu", (unsigned long long)quic_conn_counters(t.c)->key_updates);
    tc_free(&t);
}

/* Long runs in a few thousand packets (RFC 9000 §17.1, RFC 9001 §6): our
 * 1-RTT packet numbers start just below 2^31 (the most a first packet's
 * 4-byte encoding allows) and cross it, truncated to 1 byte once
 * acknowledged, with a key update every 8 packets that the server answers;
 * the server's numbers climb to 2^40 in steps of 2^30 (the 4-byte window)
 * and then cross 2^40 and 2^40 + 256 in 1-byte encodings. */
static void test_far_pn(void)
{
    struct quic_conn_config far = cfg;
    far.first_app_pn = QUIC_FIRST_APP_PN_MAX + 1;
    void *mem = aligned_alloc(64, (quic_conn_size(&far) + 63) & ~(size_t)63);
    uint8_t entropy[QUIC_CONN_ENTROPY] = { 0 };
    T_CHECK("far pn: a first 1-RTT packet number above 2^31-2 is refused",
            quic_conn_init(mem, &far, entropy, &cbs, NULL, T0) == NULL, "accepted");
    free(mem);

    far.first_app_pn = QUIC_FIRST_APP_PN_MAX - 40;
    far.key_update_after = 8;
    tc_cfg = &far;
    struct tc t;
    struct out o;
    established(&t, true);
    tc_cfg = &cfg;
    const struct quic_conn_counters *k = quic_conn_counters(t.c);
    bool first_ok = k->largest_app_pn_sent >= far.first_app_pn && k->largest_app_pn_sent < far.first_app_pn + 40 &&
                    k->app_pn_len[3] > 0;
    T_CHECK("far pn: the client's first 1-RTT packets are numbered from 2^31-42, 4 bytes", first_ok,
            "largest %llu, 4-byte %llu", (unsigned long long)k->largest_app_pn_sent,
            (unsigned long long)k->app_pn_len[3]);

    /* The server: PING and ACK of everything, in the phase the client
     * writes in (answering its key updates, §6.2). */
    unsigned undecrypted = 0, phase_changes = 0, bad_acks = 0;
    int last_phase = -1;
    uint8_t f[64];
    for (int i = 0; i < 400 && quic_conn_state(t.c) == QUIC_ESTABLISHED; i++) {
        int rd, wr;
        const struct quic_keys *sk = quic_conn_test_server_keys(t.c, &rd);
        quic_conn_test_client_keys(t.c, &wr);
        size_t w = quic_frame_enc_ping(f, sizeof f);
        struct quic_ack_range r = { 0, t.cl_largest };
        w += quic_frame_enc_ack(f + w, sizeof f - w, &r, 1, 0, NULL, NULL);
        if (wr == rd)
            srv_packet_keys(&t, &sk[rd], rd, f, w);
        else
            srv_packet_keys(&t, &sk[!rd], !rd, f, w);
        t.now += 30 * MS;
        if (quic_conn_deadline(t.c) <= t.now)
            quic_conn_timeout(t.c, t.now);
        drain(&t, &o);
        undecrypted += o.undecrypted;
        phase_changes += o.phase_changes + (last_phase >= 0 && o.key_phase >= 0 && o.key_phase != last_phase);
        if (o.key_phase >= 0)
            last_phase = o.key_phase;
        bad_acks += o.ack && o.ack_largest != t.spn - 1;
    }
    k = quic_conn_counters(t.c);
    T_CHECK("far pn: 400 round trips later still established, every packet opened with the right number",
            quic_conn_state(t.c) == QUIC_ESTABLISHED && undecrypted == 0 && t.cl_largest == k->largest_app_pn_sent &&
                t.cl_largest > (1ull << 31) + 300,
            "state %d, %u not opened, largest opened %llu, sent %llu", quic_conn_state(t.c), undecrypted,
            (unsigned long long)t.cl_largest, (unsigned long long)k->largest_app_pn_sent);
    T_CHECK("far pn: once acknowledged, numbers past 2^31 go out in 1 byte",
            k->app_pn_len[0] > 350 && k->app_pn_len[1] == 0 && k->app_pn_len[2] == 0, "by length %llu %llu %llu %llu",
            (unsigned long long)k->app_pn_len[0], (unsigned long long)k->app_pn_len[1],
            (unsigned long long)k->app_pn_len[2], (unsigned long long)k->app_pn_len[3]);
    T_CHECK("far pn: a key update every 8 packets or so, each answered by the server",
            k->key_updates >= 40 && k->key_updates_peer == 0 && k->key_updates_answered + 1 >= k->key_updates &&
                phase_changes + 1 >= k->key_updates,
            "updates %llu (server's %llu, answered %llu), phase changes seen %u", (unsigned long long)k->key_updates,
            (unsigned long long)k->key_updates_peer, (unsigned long long)k->key_updates_answered, phase_changes);
    T_CHECK("far pn: the client's ACKs name the server's last packet", bad_acks == 0, "%u wrong", bad_acks);

    /* The server's numbers: up to 2^40 - 300 in steps of 2^30, then one by
     * one in 1-byte encodings across 2^40. */
    uint64_t pr = k->packets_received;
    unsigned steps = 0;
    while (t.spn < (1ull << 40) - 300) {
        uint64_t next = t.spn + (1ull << 30) < (1ull << 40) - 300 ? t.spn + (1ull << 30) : (1ull << 40) - 300;
        t.spn = next;
        srv_packet(&t, (const uint8_t *)"\x01", 1);
        steps++;
    }
    bool climbed = k->packets_received == pr + steps;
    t.now += 30 * MS;
    drain(&t, &o);
    climbed = climbed && o.ack && o.ack_largest == t.spn - 1;
    T_CHECK("far pn: server packets 2^30 apart (4-byte window) all taken, up to 2^40 - 300", climbed,
            "%u sent, %llu taken, ack of %llu (want %llu)", steps, (unsigned long long)(k->packets_received - pr),
            (unsigned long long)o.ack_largest, (unsigned long long)(t.spn - 1));
    srv_pn_len = 1;
    pr = k->packets_received;
    bad_acks = 0;
    /* As a real server does, it acknowledges only what elicits it: the
     * client's ACK-only packets are never acknowledged, and the client's
     * occasional PING (RFC 9000 §13.2.4) must keep its ring of sent
     * packets from filling. */
    bool srv_ack = false;
    unsigned pings = 0;
    for (int i = 0; i < 600; i++) {
        /* PING and PADDING (4 bytes after a 1-byte number, for the header
         * protection sample, RFC 9001 §5.4.2), or PING and ACK. */
        struct quic_ack_range r = { 0, t.cl_largest };
        size_t w = quic_frame_enc_ping(f, sizeof f);
        if (srv_ack)
            w += quic_frame_enc_ack(f + w, sizeof f - w, &r, 1, 0, NULL, NULL);
        else
            w += quic_frame_enc_padding(f + w, sizeof f - w, 3);
        srv_packet(&t, f, w);
        t.now += 30 * MS;
        if (quic_conn_deadline(t.c) <= t.now)
            quic_conn_timeout(t.c, t.now);
        drain(&t, &o);
        bad_acks += !o.ack || o.ack_largest != t.spn - 1;
        srv_ack = o.eliciting_pkts > 0;
        pings += o.ping;
    }
    srv_pn_len = 4;
    T_CHECK("far pn: 600 server packets in 1-byte encodings across 2^40 and 2^40 + 256: all taken, each acknowledged",
            k->packets_received == pr + 600 && bad_acks == 0 && t.spn > (1ull << 40) + 256 &&
                quic_conn_state(t.c) == QUIC_ESTABLISHED,
            "%llu taken, %u acks wrong, server at %llu", (unsigned long long)(k->packets_received - pr), bad_acks,
            (unsigned long long)t.spn);
    T_CHECK("far pn: an ACK-only client sends a PING now and then (RFC 9000 §13.2.4)", pings > 0 && pings < 10,
            "%u PINGs", pings);
    tc_free(&t);
}

#ifdef SHB_TEST_KNOBS
/* The test build's jumps (quic_conn_config app_pn_target): from 2^31-42
 * to 2^32-50 in steps of at most 2^30 past the largest acknowledged, each
 * when nothing is in flight; then across 2^32, every packet opened with the
 * right number by a server decoding against its largest received. */
static void test_pn_jump(void)
{
    struct quic_conn_config far = cfg;
    far.first_app_pn = QUIC_FIRST_APP_PN_MAX - 40;
    far.app_pn_target = (1ull << 32) - 50;
    tc_cfg = &far;
    struct tc t;
    struct out o;
    established(&t, true);
    tc_cfg = &cfg;
    unsigned undecrypted = 0, jumps = 0, bad_acks = 0;
    uint64_t prev = t.cl_largest, biggest_step = 0;
    uint8_t f[64];
    for (int i = 0; i < 300 && quic_conn_state(t.c) == QUIC_ESTABLISHED; i++) {
        size_t w = quic_frame_enc_ping(f, sizeof f);
        struct quic_ack_range r = { 0, t.cl_largest };
        w += quic_frame_enc_ack(f + w, sizeof f - w, &r, 1, 0, NULL, NULL);
        uint64_t acked = t.cl_largest;
        srv_packet(&t, f, w);
        t.now += 30 * MS;
        if (quic_conn_deadline(t.c) <= t.now)
            quic_conn_timeout(t.c, t.now);
        drain(&t, &o);
        undecrypted += o.undecrypted;
        bad_acks += o.ack && o.ack_largest != t.spn - 1;
        if (t.cl_largest > prev + 1) {
            jumps++;
            if (t.cl_largest - acked > biggest_step)
                biggest_step = t.cl_largest - acked;
        }
        prev = t.cl_largest;
    }
    const struct quic_conn_counters *k = quic_conn_counters(t.c);
    T_CHECK("pn jump: from 2^31-42 to 2^32-50 in jumps of at most 2^30 past the largest acknowledged, then across 2^32",
            quic_conn_state(t.c) == QUIC_ESTABLISHED && undecrypted == 0 && bad_acks == 0 && jumps >= 2 &&
                biggest_step <= (1ull << 30) && t.cl_largest == k->largest_app_pn_sent &&
                t.cl_largest > (1ull << 32) + 200,
            "%u not opened, %u jumps (largest %llu past an ACK), largest %llu, %u bad ACKs", undecrypted, jumps,
            (unsigned long long)biggest_step, (unsigned long long)t.cl_largest, bad_acks);
    tc_free(&t);
}
#endif

static void test_idle(void)
{
    struct tc t;
    struct out o;
    established(&t, true);
    t.now += 10 * MS;
    drain(&t, &o);
    uint64_t last_rx = t.now - 10 * MS;
    uint64_t d = quic_conn_deadline(t.c);
    T_CHECK("idle: the idle deadline is the next timer", d != UINT64_MAX && d > last_rx && d <= last_rx + QCT_IDLE_MS * MS,
            "deadline %llu ns after the last packet", (unsigned long long)(d - last_rx));
    t.now = d - 1;
    quic_conn_timeout(t.c, t.now);
    T_CHECK("idle: open until then", quic_conn_state(t.c) == QUIC_ESTABLISHED, "state %d", quic_conn_state(t.c));
    t.now = d;
    quic_conn_timeout(t.c, t.now);
    T_CHECK("idle: closed silently at the deadline",
            quic_conn_state(t.c) == QUIC_CLOSED && quic_conn_close_info(t.c)->kind == QUIC_CLOSE_IDLE, "state %d kind %d",
            quic_conn_state(t.c), quic_conn_close_info(t.c)->kind);
    drain(&t, &o);
    T_CHECK("idle: nothing sent", o.dgrams == 0, "%u", o.dgrams);
    tc_free(&t);
}

/* ============================================================ before any packet */

static size_t vn_packet(uint8_t *p, const uint32_t *versions, size_t n, const uint8_t *scid)
{
    uint8_t *q = p;
    *q++ = 0x80 | 0x2a;
    memset(q, 0, 4);
    q += 4;
    *q++ = 8;
    for (int i = 0; i < 8; i++)
        *q++ = (uint8_t)i; /* our SCID: entropy 0..7 */
    *q++ = 8;
    memcpy(q, scid, 8); /* the DCID of our Initial: entropy 8..15 */
    q += 8;
    for (size_t i = 0; i < n; i++) {
        *q++ = (uint8_t)(versions[i] >> 24);
        *q++ = (uint8_t)(versions[i] >> 16);
        *q++ = (uint8_t)(versions[i] >> 8);
        *q++ = (uint8_t)versions[i];
    }
    return (size_t)(q - p);
}

static void test_version_negotiation(void)
{
    static const uint8_t odcid[8] = { 8, 9, 10, 11, 12, 13, 14, 15 };
    static const uint8_t other[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
    static const uint32_t no_v1[] = { 0x6b3343cf, 0x1a2a3a4a };
    static const uint32_t with_v1[] = { 0x6b3343cf, 0x00000001 };
    uint8_t p[64];
    struct tc t;
    char why[160];

    tc_init(&t);
    step(&t);
    size_t n = vn_packet(p, with_v1, 2, odcid);
    quic_conn_input(t.c, p, n, t.now);
    n = vn_packet(p, no_v1, 2, other);
    quic_conn_input(t.c, p, n, t.now);
    T_CHECK("vn: one listing version 1, or not echoing our DCID, is ignored", quic_conn_state(t.c) == QUIC_HANDSHAKING,
            "state %d", quic_conn_state(t.c));
    n = vn_packet(p, no_v1, 2, odcid);
    quic_conn_input(t.c, p, n, t.now);
    const struct quic_close_info *ci = quic_conn_close_info(t.c);
    T_CHECK("vn: without version 1: closed, QUIC_CLOSE_VERSION",
            quic_conn_state(t.c) == QUIC_CLOSED && ci->kind == QUIC_CLOSE_VERSION && ci->during_handshake &&
                strstr(ci->reason, "0x6b3343cf") != NULL,
            "state %d kind %d reason '%s'", quic_conn_state(t.c), ci->kind, ci->reason);
    tc_free(&t);

    tc_init(&t);
    step(&t);
    feed_trace(&t, 0);
    n = vn_packet(p, no_v1, 2, odcid);
    quic_conn_input(t.c, p, n, t.now);
    for (size_t i = 1; i < QCT_NDGRAMS; i++)
        feed_trace(&t, i);
    T_CHECK("vn: after a packet was processed it is ignored", same_as_trace(&t, why, sizeof why), "%s", why);
    tc_free(&t);
}

/* A Retry for our first Initial (ODCID entropy 8..15), its tag computed
 * per RFC 9001 §5.8 (AES-128-GCM, fixed key and nonce, AAD the
 * pseudo-packet); bad: one bit of the tag flipped. */
static void test_retry(void)
{
    static const uint8_t rscid[8] = { 0x52, 0x52, 0x52, 0x52, 0x52, 0x52, 0x52, 0x52 };
    static const uint8_t rscid2[8] = { 0x53, 0x53, 0x53, 0x53, 0x53, 0x53, 0x53, 0x53 };
    uint8_t p[128];
    struct tc t;
    char why[160];

    /* The tag builder is right: quic_retry_verify takes the good one. */
    size_t n = retry_packet(p, rscid, false);
    struct quic_hdr h;
    static const uint8_t odcid[8] = { 8, 9, 10, 11, 12, 13, 14, 15 };
    T_CHECK("retry: the test's own tag verifies",
            quic_hdr_parse(&h, p, n, 8) == QUIC_PKT_OK && h.type == QUIC_PT_RETRY && quic_retry_verify(&h, p, odcid, 8) == 0,
            "no");

    tc_init(&t);
    step(&t);
    n = retry_packet(p, rscid, true);
    quic_conn_input(t.c, p, n, t.now);
    T_CHECK("retry: a bad integrity tag is ignored", quic_conn_counters(t.c)->retries == 0 &&
            quic_conn_state(t.c) == QUIC_HANDSHAKING, "retries %llu", (unsigned long long)quic_conn_counters(t.c)->retries);
    for (size_t i = 0; i < QCT_NDGRAMS; i++)
        feed_trace(&t, i);
    T_CHECK("retry: ... and the handshake goes on with the first Initial keys", same_as_trace(&t, why, sizeof why), "%s",
            why);
    tc_free(&t);

    tc_init(&t);
    step(&t);
    n = retry_packet(p, rscid, false);
    quic_conn_input(t.c, p, n, t.now);
    T_CHECK("retry: a good one is taken", quic_conn_counters(t.c)->retries == 1 &&
            quic_conn_state(t.c) == QUIC_HANDSHAKING, "retries %llu", (unsigned long long)quic_conn_counters(t.c)->retries);
    n = retry_packet(p, rscid2, false);
    quic_conn_input(t.c, p, n, t.now);
    T_CHECK("retry: a second one is ignored", quic_conn_counters(t.c)->retries == 1, "retries %llu",
            (unsigned long long)quic_conn_counters(t.c)->retries);
    static uint8_t buf[16 * QUIC_DGRAM_SIZE];
    size_t seg, len = quic_conn_output(t.c, buf, sizeof buf, 16, &seg, t.now);
    bool ok = len >= QUIC_DGRAM_SIZE && quic_hdr_parse(&h, buf, len, 8) == QUIC_PKT_OK && h.type == QUIC_PT_INITIAL &&
              h.dcid_len == 8 && memcmp(h.dcid, rscid, 8) == 0 && h.token_len == 11 &&
              memcmp(h.token, "retry-token", 11) == 0;
    T_CHECK("retry: the ClientHello again, to the Retry's SCID with its token", ok, "len %zu", len);
    tc_free(&t);
}

/* RFC 9002 §6.2.4: a probe with nothing new to send resends what is
 * unacknowledged. The handshake done (the trace's first five datagrams),
 * our Finished is in flight and the server's ACK of it never comes: the
 * Handshake PTO fires, and its probes carry the Finished's CRYPTO bytes
 * again, not a bare PING — which only made the server acknowledge, so the
 * Finished went again a round trip (or a PTO) later. */
static void test_probe_resends_finished(void)
{
    struct tc t;
    tc_init(&t);
    step(&t);
    for (size_t i = 0; i < HS_N; i++)
        feed_trace(&t, i);
    bool up = quic_conn_state(t.c) == QUIC_ESTABLISHED;
    const struct quic_keys *hk = quic_conn_test_handshake_write_keys(t.c);
    uint64_t d = quic_conn_deadline(t.c);
    t.now = d;
    quic_conn_timeout(t.c, t.now);
    static uint8_t buf[16 * QUIC_DGRAM_SIZE];
    unsigned probe_pkts = 0, crypto = 0, pings = 0;
    uint64_t crypto_off = UINT64_MAX;
    for (int round = 0; round < 8 && hk != NULL; round++) {
        size_t seg, n = quic_conn_output(t.c, buf, sizeof buf, 16, &seg, t.now);
        if (n == 0)
            break;
        for (size_t at = 0; at < n;) {
            struct quic_hdr h;
            if (quic_hdr_parse(&h, buf + at, n - at, t.server_cid_len) != QUIC_PKT_OK)
                break;
            if (h.type == QUIC_PT_HANDSHAKE) {
                struct quic_keys k = *hk;
                struct quic_opened op;
                if (quic_packet_open(&k, buf + at, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &op) == QUIC_PKT_OK) {
                    probe_pkts++;
                    const uint8_t *p = op.payload, *end = op.payload + op.payload_len;
                    struct quic_frame f;
                    while (p < end && quic_frame_next(&p, end, &f) == 0) {
                        if (f.kind == QUIC_FT_CRYPTO) {
                            crypto++;
                            crypto_off = f.crypto.offset;
                        }
                        pings += f.kind == QUIC_FT_PING;
                    }
                }
            }
            at += h.pkt_len;
        }
    }
    T_CHECK("probe: the Handshake PTO's probes carry the unacknowledged Finished again, not a PING",
            up && hk != NULL && quic_conn_counters(t.c)->pto_count == 1 && probe_pkts == 2 && crypto == 2 &&
                crypto_off == 0 && pings == 0,
            "up %d, pto %llu, %u Handshake packets, %u CRYPTO (offset %llu), %u PING", up,
            (unsigned long long)quic_conn_counters(t.c)->pto_count, probe_pkts, crypto, (unsigned long long)crypto_off,
            pings);
    tc_free(&t);
}

/* ============================================================ part three: a small window */

/* A connection with a 64 KiB receive window (what shb gives -p 16 and
 * below), its handshake skipped (quic_conn_test_establish), the server's
 * packets fed as decrypted payloads (quic_conn_test_frames). */
#define SW_WINDOW 65536u
static const struct quic_conn_config cfg_small = {
    .server_name = "localhost",
    .alpn = alpn,
    .alpn_len = 3,
    .max_streams = 4,
    .stream_window = 16384,
    .conn_window = SW_WINDOW,
    .idle_timeout_ns = 30000 * MS,
};

static void small_init(struct tc *t)
{
    memset(t, 0, sizeof *t);
    uint8_t entropy[QUIC_CONN_ENTROPY];
    for (size_t i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)(i * 3 + 1);
    t->mem = aligned_alloc(64, (quic_conn_size(&cfg_small) + 63) & ~(size_t)63);
    t->now = T0;
    t->close_on_fin = true;
    t->c = quic_conn_init(t->mem, &cfg_small, entropy, &cbs, t, t->now);
    struct quic_tparams tp;
    quic_tparams_defaults(&tp);
    tp.initial_max_data = 1u << 20;
    tp.initial_max_stream_data_bidi_remote = 1u << 18;
    tp.initial_max_stream_data_uni = 1u << 18;
    tp.initial_max_streams_bidi = 100;
    tp.initial_max_streams_uni = 3;
    if (quic_conn_test_establish(t->c, &tp, t->now) != 0) {
        printf("FAIL small_init: quic_conn_test_establish\n");
        exit(2);
    }
    t->spn = 1;
}

static void small_stream(struct tc *t, uint64_t id, uint64_t off, const uint8_t *data, size_t len, bool fin)
{
    uint8_t f[2048];
    size_t w = stream_frame(f, sizeof f, id, off, data, len, fin);
    quic_conn_test_frames(t->c, QUIC_SPACE_APP, t->spn++, f, w, t->now);
}

static bool small_up(struct tc *t)
{
    return quic_conn_state(t->c) == QUIC_ESTABLISHED && quic_conn_close_info(t->c)->kind == QUIC_CLOSE_NONE;
}

/* The reorder pool holds a whole receive window: four streams' data
 * arrives last byte first, 60 frames ahead of their offsets — twice what
 * the pool held when it was 32 slots whatever the window, and then the
 * packets beyond it were refused (not acknowledged: the server's timer
 * backed off until the stream waited seconds). Nothing is refused now:
 * every byte arrives once it can, exact. Then duplicates of a stream that
 * is already closed, however many, never make a server that keeps to our
 * MAX_DATA look as if it broke it (they once counted as new bytes). */
static void test_small_window(void)
{
    struct tc t;
    static uint8_t d[16384];
    for (size_t i = 0; i < sizeof d; i++)
        d[i] = pattern(i);
    small_init(&t);
    uint64_t id[4];
    for (int s = 0; s < 4; s++)
        id[s] = open_req(&t);
    /* Each stream: [1024, 16384) in 1024-byte frames, last first (FIN on
     * the last), then [0, 1024). 4 * 16384 = the 64 KiB window. */
    for (int s = 0; s < 4; s++)
        for (size_t off = sizeof d - 1024; off >= 1024; off -= 1024)
            small_stream(&t, id[s], off, d + off, 1024, off + 1024 == sizeof d);
    bool nothing_yet = t.delivered == 0 && small_up(&t);
    for (int s = 0; s < 4; s++)
        small_stream(&t, id[s], 0, d, 1024, false);
    bool exact = nothing_yet && small_up(&t);
    for (int s = 0; s < 4; s++) {
        struct sb *b = sb_of(&t, id[s], false);
        exact &= b && b->n == sizeof d && memcmp(b->p, d, sizeof d) == 0 && b->fins == 1;
    }
    T_CHECK("small window: 60 frames ahead of four streams (the whole 64 KiB window) all kept, every byte delivered once",
            exact, "delivered %llu of %zu, state %d", (unsigned long long)t.delivered, 4 * sizeof d,
            quic_conn_state(t.c));
    tc_free(&t);

    small_init(&t);
    uint64_t a = open_req(&t);
    small_stream(&t, a, 0, d, 1000, true); /* complete: closed at its FIN */
    for (int i = 0; i < 30; i++)
        small_stream(&t, a, 0, d, 1000, true); /* 30,000 bytes of it again */
    /* Three streams 16383 bytes each ahead (byte 0 missing): 50,149 bytes
     * sent in all, within the 65,536 the server may send. */
    for (int s = 0; s < 3; s++) {
        uint64_t b = open_req(&t);
        for (size_t off = 1; off < sizeof d; off += 1024) {
            size_t n = sizeof d - off < 1024 ? sizeof d - off : 1024;
            small_stream(&t, b, off, d + off, n, false);
        }
    }
    T_CHECK("small window: duplicates of a closed stream do not count against MAX_DATA", small_up(&t),
            "kind %d code 0x%llx", quic_conn_close_info(t.c)->kind,
            (unsigned long long)quic_conn_close_info(t.c)->code);
    tc_free(&t);
}

/* RFC 9000 §12.3: the packet number for sending reaching 2^62-1 closes the
 * connection with nothing more sent, not even CONNECTION_CLOSE. The last
 * number used is 2^62-2. */
static void test_pn_exhausted(void)
{
    struct tc t;
    struct out o;
    established(&t, true);
    drain(&t, &o);
    srv_ack_all(&t);
    quic_conn_test_next_app_pn(t.c, QUIC_PN_MAX - 1);
    uint64_t sent = quic_conn_counters(t.c)->packets_sent;
    open_req(&t);
    t.now += MS;
    drain(&t, &o);
    T_CHECK("packet numbers: 2^62-2, the last one, is still sent",
            quic_conn_counters(t.c)->packets_sent == sent + 1 &&
                quic_conn_counters(t.c)->largest_app_pn_sent == QUIC_PN_MAX - 1 && quic_conn_state(t.c) == QUIC_ESTABLISHED,
            "sent %llu more, largest %llu, state %d", (unsigned long long)(quic_conn_counters(t.c)->packets_sent - sent),
            (unsigned long long)quic_conn_counters(t.c)->largest_app_pn_sent, quic_conn_state(t.c));
    open_req(&t);
    t.now += MS;
    drain(&t, &o);
    T_CHECK("packet numbers: at 2^62-1 the connection closes, nothing sent, no CONNECTION_CLOSE",
            o.dgrams == 0 && quic_conn_counters(t.c)->packets_sent == sent + 1 && quic_conn_state(t.c) == QUIC_CLOSED &&
                quic_conn_close_info(t.c)->kind == QUIC_CLOSE_PN_EXHAUSTED,
            "%u datagrams, state %d, kind %d", o.dgrams, quic_conn_state(t.c), quic_conn_close_info(t.c)->kind);
    quic_conn_close(t.c, true, 0x100, NULL);
    t.now += 100 * MS;
    quic_conn_timeout(t.c, t.now);
    drain(&t, &o);
    T_CHECK("packet numbers: closed for good, nothing after (a close asked for later, timers)",
            o.dgrams == 0 && quic_conn_close_info(t.c)->kind == QUIC_CLOSE_PN_EXHAUSTED, "%u datagrams, kind %d", o.dgrams,
            quic_conn_close_info(t.c)->kind);

    tc_free(&t);

    /* Our close pending when the numbers run out: it is not sent either. */
    established(&t, true);
    drain(&t, &o);
    srv_ack_all(&t);
    quic_conn_test_next_app_pn(t.c, QUIC_PN_MAX);
    quic_conn_close(t.c, true, 0x100, NULL);
    drain(&t, &o);
    T_CHECK("packet numbers: a pending CONNECTION_CLOSE at 2^62-1 is dropped, the connection closed",
            o.shorts == 0 && o.close == 0 && quic_conn_state(t.c) == QUIC_CLOSED &&
                quic_conn_close_info(t.c)->kind == QUIC_CLOSE_PN_EXHAUSTED,
            "%u 1-RTT packets, %u closes, state %d, kind %d", o.shorts, o.close, quic_conn_state(t.c),
            quic_conn_close_info(t.c)->kind);
    tc_free(&t);
}

int main(void)
{
    test_replay_in_order();
    test_deterministic();
    test_replay_reordered();
    test_stream_reassembly();
    test_stream_window();
    test_credit();
    test_ack_checks();
    test_max_streams();
    test_ring();
    test_pto();
    test_peer_close();
    test_pn_exhausted();
    test_stateless_reset();
    test_cid_limit();
    test_crypto_after_handshake();
    test_key_update();
    test_our_key_update();
    test_far_pn();
#ifdef SHB_TEST_KNOBS
    test_pn_jump();
#endif
    test_idle();
    test_version_negotiation();
    test_retry();
    test_probe_resends_finished();
    test_small_window();
    T_DONE();
}
