/* test/unit/unit_quic_early.c — QUIC 0-RTT (--early-data over HTTP/3):
 *
 *  - the 0-RTT keys: RFC 8448 §4's client_early_traffic_secret through
 *    QUIC's labels (RFC 9001 §5.1: "quic key", "quic iv", "quic hp"), the
 *    keys quic_keys_init makes checked against HKDF-Expand-Label computed
 *    here, and a packet sealed with one opened with the other; not the
 *    TLS record keys of the same secret (RFC 8448 §4's early key and iv);
 *  - the engine: a connection offered a ticket that allows 0-RTT (RFC 9001
 *    §4.6.1) with the server's remembered transport parameters opens its
 *    streams before any answer, and its second datagram is a 0-RTT packet
 *    (long header type 1, RFC 9000 §17.2.3) that opens under keys derived
 *    here from the ticket's PSK and the ClientHello it sent (RFC 8446 §7.1,
 *    "c e traffic"), carrying the control, QPACK and request streams;
 *    within the remembered MAX_STREAMS and MAX_DATA (RFC 9000 §7.4.1);
 *    without remembered parameters, or without early data in the ticket,
 *    nothing goes before the handshake; after a Retry (RFC 9000 §17.2.5.3)
 *    the streams go again from offset 0 in 0-RTT packets to the Retry's
 *    connection ID. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quic/conn.h"
#include "quic/frame.h"
#include "quic/packet.h"
#include "quic/tparams.h"
#include "quic_retry.h"
#include "t.h"
#include "test/vectors/tls13_traces.h"
#include "tls13/aead.h"
#include "tls13/handshake.h"
#include "tls13/keysched.h"

#define MS 1000000ull
#define T0 (1000 * MS)

/* ------------------------------------------------------------ the keys */

static void test_keys(void)
{
    uint8_t secret[32], key[16], iv[12], hp[16], tls_iv[12];
    struct quic_keys k, want;

    unhex(S4_C_E_TRAFFIC, secret, sizeof secret);
    T_CHECK("keys: 0-RTT keys from RFC 8448 §4's client_early_traffic_secret",
            quic_keys_init(&k, TLS_AES_128_GCM_SHA256, secret) == 0, "refused");
    tls13_hkdf_expand_label(TLS13_SHA256, secret, "quic key", NULL, 0, key, sizeof key);
    tls13_hkdf_expand_label(TLS13_SHA256, secret, "quic iv", NULL, 0, iv, sizeof iv);
    tls13_hkdf_expand_label(TLS13_SHA256, secret, "quic hp", NULL, 0, hp, sizeof hp);
    T_CHECK("keys: the iv is HKDF-Expand-Label(secret, \"quic iv\", \"\", 12)", memcmp(k.aead.iv, iv, 12) == 0,
            "differs");
    unhex(S4_EARLY_IV, tls_iv, sizeof tls_iv);
    T_CHECK("keys: not the TLS record iv of the same secret (RFC 8448 §4)", memcmp(k.aead.iv, tls_iv, 12) != 0,
            "same as TLS's");

    /* A 0-RTT packet sealed with the engine's keys opens with keys made
     * from the labels here (and the other way round the mask agrees). */
    memset(&want, 0, sizeof want);
    T_CHECK("keys: AEAD and hp from the expanded key, iv, hp",
            tls13_aead_init(&want.aead, TLS_AES_128_GCM_SHA256, key, iv) == 0 &&
                quic_hp_init(&want.hp, TLS_AES_128_GCM_SHA256, hp) == 0,
            "refused");
    static const uint8_t dcid[8] = {1, 2, 3, 4, 5, 6, 7, 8}, scid[8] = {9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t pkt[256];
    size_t hl = quic_build_long(pkt, sizeof pkt, QUIC_PT_0RTT, dcid, 8, scid, 8, NULL, 0, 2);
    static const uint8_t frames[] = {0x0b, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o', 0x01, 0x01, 0x01, 0x01, 0x01,
                                     0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01};
    memcpy(pkt + hl, frames, sizeof frames);
    size_t n = quic_set_length(pkt, hl, sizeof frames) == 0 ? quic_packet_seal(&k, pkt, hl, sizeof frames, 7) : 0;
    struct quic_hdr h;
    struct quic_opened o;
    bool ok = hl > 0 && n > 0 && quic_hdr_parse(&h, pkt, n, 8) == QUIC_PKT_OK && h.type == QUIC_PT_0RTT &&
              quic_packet_open(&want, pkt, h.pkt_len, h.pn_offset, 6, &o) == QUIC_PKT_OK && o.pn == 7 &&
              o.payload_len == sizeof frames && memcmp(o.payload, frames, sizeof frames) == 0;
    T_CHECK("keys: a 0-RTT packet (type 1) sealed by quic_packet_seal opens with the RFC 9001 §5.1 keys", ok,
            "hl %zu n %zu", hl, n);
    tls13_aead_wipe(&want.aead);
}

/* ------------------------------------------------------------ the engine */

static const uint8_t alpn[] = "\x02h3";
static const struct quic_conn_config cfg = {
    .server_name = "localhost",
    .alpn = alpn,
    .alpn_len = 3,
    .max_streams = 8,
    .stream_window = 1 << 16,
    .conn_window = 1 << 20,
    .idle_timeout_ns = 30000 * MS,
};

static void on_data(void *ctx, uint64_t id, const uint8_t *p, size_t n, bool fin)
{
    (void)ctx, (void)id, (void)p, (void)n, (void)fin;
}
static void on_reset(void *ctx, uint64_t id, uint64_t code, bool stop) { (void)ctx, (void)id, (void)code, (void)stop; }
static const struct quic_conn_callbacks cbs = {on_data, on_reset};

static uint8_t entropy[QUIC_CONN_ENTROPY];
static struct tls13_ticket ticket;
static const uint8_t control[] = {0x00, 0x04, 0x00}; /* a control stream with an empty SETTINGS */
static const uint8_t request[40] = "a request's HEADERS frame stands here";

static void make_ticket(uint32_t max_early)
{
    memset(&ticket, 0, sizeof ticket);
    ticket.lifetime_s = 3600;
    ticket.age_add = 0x01020304;
    ticket.max_early_data = max_early;
    ticket.suite = TLS_AES_128_GCM_SHA256;
    ticket.ticket_len = 32;
    for (size_t i = 0; i < 32; i++) {
        ticket.psk[i] = (uint8_t)(0x40 + i);
        ticket.ticket[i] = (uint8_t)(0x80 + i);
    }
    strcpy(ticket.server_name, "localhost");
    strcpy(ticket.alpn, "h3");
}

static void remembered_defaults(struct quic_tparams *tp)
{
    struct quic_tparams server;
    quic_tparams_defaults(&server);
    server.initial_max_data = 1 << 20;
    server.initial_max_stream_data_bidi_remote = 1 << 16;
    server.initial_max_stream_data_uni = 1 << 16;
    server.initial_max_streams_bidi = 2;
    server.initial_max_streams_uni = 3;
    server.max_ack_delay = 100; /* not remembered (RFC 9000 §7.4.1) */
    quic_tparams_remember(tp, &server);
}

struct conn {
    void *mem;
    struct quic_conn *c;
};

static bool conn_start(struct conn *k, const struct tls13_resume *r, const struct quic_tparams *tp)
{
    for (size_t i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)i;
    k->mem = aligned_alloc(64, (quic_conn_size(&cfg) + 63) & ~(size_t)63);
    k->c = k->mem ? quic_conn_init_resume(k->mem, &cfg, entropy, &cbs, NULL, T0, r, tp) : NULL;
    return k->c != NULL;
}

/* What the client's datagrams carried: the ClientHello (CRYPTO at offset
 * 0 of its first Initial), and the STREAM frames of 0-RTT packets. */
struct seen {
    uint8_t ch[2048];
    size_t ch_len;
    unsigned zero_rtt_pkts, short_pkts;
    uint8_t zero_rtt_dcid[20]; /* the last 0-RTT packet's */
    size_t initial_token_len;  /* the last Initial's */
    uint64_t stream_bytes[16]; /* by stream id */
    bool fin[16];
    bool bad;
};

static void read_output(struct quic_conn *c, struct seen *s, const struct quic_keys *early)
{
    static uint8_t out[32 * 1200];
    size_t seg, n = quic_conn_output(c, out, sizeof out, 32, &seg, T0);
    struct quic_keys ic, is;
    for (size_t d = 0; d < n; d += seg) {
        size_t dl = n - d < seg ? n - d : seg;
        for (size_t off = 0; off < dl;) {
            struct quic_hdr h;
            struct quic_opened o;
            uint8_t *pkt = out + d + off;
            if (quic_hdr_parse(&h, pkt, dl - off, 8) != QUIC_PKT_OK)
                break;
            off += h.pkt_len;
            if (h.type == QUIC_PT_1RTT)
                s->short_pkts++;
            /* Initial keys come from the DCID the Initial carries (ours,
             * or after a Retry its SCID, RFC 9001 §5.2). */
            if (h.type == QUIC_PT_INITIAL)
                quic_keys_initial(&ic, &is, h.dcid, h.dcid_len);
            const struct quic_keys *k = h.type == QUIC_PT_INITIAL ? &ic : h.type == QUIC_PT_0RTT ? early : NULL;
            if (k == NULL)
                continue;
            if (quic_packet_open(k, pkt, h.pkt_len, h.pn_offset, QUIC_PN_NONE, &o) != QUIC_PKT_OK) {
                s->bad = true;
                continue;
            }
            s->zero_rtt_pkts += h.type == QUIC_PT_0RTT;
            if (h.type == QUIC_PT_0RTT && h.dcid_len <= sizeof s->zero_rtt_dcid)
                memcpy(s->zero_rtt_dcid, h.dcid, h.dcid_len);
            if (h.type == QUIC_PT_INITIAL)
                s->initial_token_len = h.token_len;
            const uint8_t *p = o.payload, *end = o.payload + o.payload_len;
            struct quic_frame f;
            while (p < end && quic_frame_next(&p, end, &f) == 0) {
                if (f.kind == QUIC_FT_CRYPTO && h.type == QUIC_PT_INITIAL && f.crypto.offset + f.crypto.len <= sizeof s->ch) {
                    memcpy(s->ch + f.crypto.offset, f.crypto.data, f.crypto.len);
                    if (f.crypto.offset + f.crypto.len > s->ch_len)
                        s->ch_len = (size_t)(f.crypto.offset + f.crypto.len);
                } else if (f.kind == QUIC_FT_STREAM && f.stream.stream_id < 16) {
                    s->stream_bytes[f.stream.stream_id] += f.stream.len;
                    s->fin[f.stream.stream_id] |= f.stream.fin;
                }
            }
        }
    }
}

/* RFC 8446 §7.1: client_early_traffic_secret = Derive-Secret(Early Secret
 * from the ticket's PSK, "c e traffic", ClientHello); its QUIC keys. */
static bool early_keys(const struct seen *s, struct quic_keys *k)
{
    struct tls13_keysched ks;
    uint8_t thash[32], secret[32];
    br_sha256_context h;
    if (s->ch_len < 4)
        return false;
    tls13_ks_init_psk(&ks, TLS13_SHA256, ticket.psk, 32);
    br_sha256_init(&h);
    br_sha256_update(&h, s->ch, s->ch_len);
    br_sha256_out(&h, thash);
    tls13_derive_secret(TLS13_SHA256, ks.secret, "c e traffic", thash, secret);
    return quic_keys_init(k, TLS_AES_128_GCM_SHA256, secret) == 0;
}

/* A first flight read with no early keys yet: its ClientHello. */
static void first_flight(struct conn *k, struct seen *s)
{
    struct quic_keys none;
    memset(&none, 0, sizeof none);
    read_output(k->c, s, &none);
}

static void test_engine(void)
{
    struct tls13_resume r = {.ticket = &ticket, .ticket_age_ms = 10, .early_data = true};
    struct quic_tparams tp;
    struct conn a, b;
    struct seen s, s2;
    struct quic_keys k0;

    make_ticket(0xffffffffu);
    remembered_defaults(&tp);
    /* Two engines from the same entropy and ticket send the same
     * ClientHello: the first shows it, the second's 0-RTT packets are
     * opened with the keys derived from it. */
    T_CHECK("engine: starts with a 0-RTT ticket and remembered parameters", conn_start(&a, &r, &tp), "init failed");
    memset(&s, 0, sizeof s);
    first_flight(&a, &s);
    T_CHECK("engine: its ClientHello is in its first Initial", s.ch_len > 100 && s.ch[0] == 1, "ch %zu", s.ch_len);
    T_CHECK("engine: 0-RTT keys derived from the ticket's PSK and that ClientHello", early_keys(&s, &k0), "no keys");
    free(a.mem);

    /* The same entropy and ticket: the same ClientHello, now with streams. */
    conn_start(&b, &r, &tp);
    T_CHECK("engine: QUIC_EARLY_OPEN with 0-RTT keys before any answer",
            quic_conn_early(b.c) == QUIC_EARLY_OPEN && quic_conn_early_keys(b.c) &&
                quic_conn_state(b.c) == QUIC_HANDSHAKING,
            "early %d", (int)quic_conn_early(b.c));
    static const uint8_t enc = 0x02, dec = 0x03;
    uint64_t u0 = quic_conn_open_uni(b.c, control, sizeof control);
    uint64_t u1 = quic_conn_open_uni(b.c, &enc, 1);
    uint64_t u2 = quic_conn_open_uni(b.c, &dec, 1);
    T_CHECK("engine: control and QPACK streams open in 0-RTT (ids 2, 6, 10)", u0 == 2 && u1 == 6 && u2 == 10,
            "%llu %llu %llu", (unsigned long long)u0, (unsigned long long)u1, (unsigned long long)u2);
    bool c1 = quic_conn_can_open(b.c);
    uint64_t id0 = c1 ? quic_conn_open(b.c, request, sizeof request) : UINT64_MAX;
    bool c2 = quic_conn_can_open(b.c);
    uint64_t id1 = c2 ? quic_conn_open(b.c, request, sizeof request) : UINT64_MAX;
    bool c3 = quic_conn_can_open(b.c);
    T_CHECK("engine: request streams 0 and 4 open in 0-RTT, a third not (remembered initial_max_streams_bidi 2)",
            id0 == 0 && id1 == 4 && !c3, "%d %d %d", c1, c2, c3);
    memset(&s2, 0, sizeof s2);
    read_output(b.c, &s2, &k0);
    T_CHECK("engine: the same ClientHello as the first engine's", s2.ch_len == s.ch_len && !memcmp(s2.ch, s.ch, s.ch_len),
            "len %zu vs %zu", s2.ch_len, s.ch_len);
    T_CHECK("engine: 0-RTT packets sent, opened under the derived keys, no 1-RTT packet",
            s2.zero_rtt_pkts >= 1 && !s2.bad && s2.short_pkts == 0, "0rtt %u bad %d short %u", s2.zero_rtt_pkts,
            s2.bad, s2.short_pkts);
    T_CHECK("engine: they carry streams 2, 6, 10 and both requests whole with FIN",
            s2.stream_bytes[2] == sizeof control && s2.stream_bytes[6] == 1 && s2.stream_bytes[10] == 1 &&
                s2.stream_bytes[0] == sizeof request && s2.stream_bytes[4] == sizeof request && s2.fin[0] && s2.fin[4],
            "%llu %llu %llu %llu %llu", (unsigned long long)s2.stream_bytes[2], (unsigned long long)s2.stream_bytes[6],
            (unsigned long long)s2.stream_bytes[10], (unsigned long long)s2.stream_bytes[0],
            (unsigned long long)s2.stream_bytes[4]);
    free(b.mem);

    /* The remembered MAX_DATA holds the 0-RTT bytes (RFC 9000 §7.4.1):
     * the uni streams' 5 bytes and 10 of the request. */
    tp.initial_max_data = sizeof control + 2 + 10;
    conn_start(&b, &r, &tp);
    quic_conn_open_uni(b.c, control, sizeof control);
    quic_conn_open_uni(b.c, &enc, 1);
    quic_conn_open_uni(b.c, &dec, 1);
    quic_conn_open(b.c, request, sizeof request);
    memset(&s2, 0, sizeof s2);
    read_output(b.c, &s2, &k0);
    T_CHECK("engine: 0-RTT stream data within the remembered initial_max_data (10 request bytes of 40, no FIN)",
            !s2.bad && s2.stream_bytes[0] == 10 && !s2.fin[0], "sent %llu fin %d",
            (unsigned long long)s2.stream_bytes[0], s2.fin[0]);
    free(b.mem);

    /* A Retry: the server dropped our 0-RTT packets; they go again, whole,
     * to its new connection ID, after the new Initial (its ClientHello
     * unchanged, so the same 0-RTT keys). */
    remembered_defaults(&tp);
    conn_start(&b, &r, &tp);
    quic_conn_open_uni(b.c, control, sizeof control);
    quic_conn_open(b.c, request, sizeof request);
    memset(&s2, 0, sizeof s2);
    read_output(b.c, &s2, &k0);
    static const uint8_t rscid[8] = {0x52, 0x52, 0x52, 0x52, 0x52, 0x52, 0x52, 0x52};
    uint8_t retry[128];
    size_t rn = retry_packet(retry, rscid, false);
    quic_conn_input(b.c, retry, rn, T0 + MS);
    memset(&s2, 0, sizeof s2);
    read_output(b.c, &s2, &k0);
    T_CHECK("engine: after a Retry the 0-RTT streams go again from offset 0, to the Retry's connection ID",
            !s2.bad && quic_conn_early(b.c) == QUIC_EARLY_OPEN && s2.initial_token_len == 11 &&
                s2.stream_bytes[2] == sizeof control && s2.stream_bytes[0] == sizeof request && s2.fin[0] &&
                memcmp(s2.zero_rtt_dcid, rscid, 8) == 0,
            "bad %d early %d token %zu uni %llu req %llu", s2.bad, (int)quic_conn_early(b.c), s2.initial_token_len,
            (unsigned long long)s2.stream_bytes[2], (unsigned long long)s2.stream_bytes[0]);
    free(b.mem);

    /* No remembered parameters: no 0-RTT (the ticket is still offered). */
    conn_start(&b, &r, NULL);
    T_CHECK("engine: without remembered parameters nothing opens before the handshake",
            quic_conn_early(b.c) == QUIC_EARLY_NONE && !quic_conn_can_open(b.c) &&
                quic_conn_open_uni(b.c, control, sizeof control) == UINT64_MAX,
            "early %d", (int)quic_conn_early(b.c));
    free(b.mem);

    /* A ticket without early_data (RFC 9001 §4.6.1: omitted = no 0-RTT). */
    make_ticket(0);
    remembered_defaults(&tp);
    conn_start(&b, &r, &tp);
    T_CHECK("engine: a ticket without early_data: no 0-RTT", quic_conn_early(b.c) == QUIC_EARLY_NONE &&
                                                                  !quic_conn_early_keys(b.c) && !quic_conn_can_open(b.c),
            "early %d", (int)quic_conn_early(b.c));
    free(b.mem);
}

/* ------------------------------------------------------------ remembered parameters */

static void test_remember(void)
{
    struct quic_tparams server, tp, now;
    const char *which = NULL;

    quic_tparams_defaults(&server);
    server.initial_max_data = 1000;
    server.initial_max_stream_data_bidi_local = 11;
    server.initial_max_stream_data_bidi_remote = 12;
    server.initial_max_stream_data_uni = 13;
    server.initial_max_streams_bidi = 14;
    server.initial_max_streams_uni = 15;
    server.active_connection_id_limit = 4;
    server.max_idle_timeout = 30000;
    server.max_udp_payload_size = 1350;
    server.ack_delay_exponent = 10;
    server.max_ack_delay = 200;
    server.has_stateless_reset_token = true;
    server.original_dcid.present = server.initial_scid.present = true;
    quic_tparams_remember(&tp, &server);
    T_CHECK("remember: limits, idle timeout and payload size kept",
            tp.initial_max_data == 1000 && tp.initial_max_stream_data_bidi_local == 11 &&
                tp.initial_max_stream_data_bidi_remote == 12 && tp.initial_max_stream_data_uni == 13 &&
                tp.initial_max_streams_bidi == 14 && tp.initial_max_streams_uni == 15 &&
                tp.active_connection_id_limit == 4 && tp.max_idle_timeout == 30000 && tp.max_udp_payload_size == 1350,
            "lost a value");
    T_CHECK("remember: ack_delay_exponent, max_ack_delay, CIDs and the reset token not (RFC 9000 §7.4.1)",
            tp.ack_delay_exponent == QUIC_TP_DEFAULT_ACK_DELAY_EXPONENT &&
                tp.max_ack_delay == QUIC_TP_DEFAULT_MAX_ACK_DELAY && !tp.has_stateless_reset_token &&
                !tp.original_dcid.present && !tp.initial_scid.present,
            "kept one");

    now = server;
    T_CHECK("check: the same values pass", quic_tparams_check_0rtt(&tp, &now, &which) == 0, "%s", which);
    now.initial_max_data = 5000;
    now.initial_max_streams_bidi = 100;
    now.max_idle_timeout = 10; /* may change: not in the list */
    T_CHECK("check: larger limits pass", quic_tparams_check_0rtt(&tp, &now, &which) == 0, "%s", which);
    static const struct {
        size_t off;
        const char *name;
    } limits[] = {
        {offsetof(struct quic_tparams, active_connection_id_limit), "active_connection_id_limit"},
        {offsetof(struct quic_tparams, initial_max_data), "initial_max_data"},
        {offsetof(struct quic_tparams, initial_max_stream_data_bidi_local), "initial_max_stream_data_bidi_local"},
        {offsetof(struct quic_tparams, initial_max_stream_data_bidi_remote), "initial_max_stream_data_bidi_remote"},
        {offsetof(struct quic_tparams, initial_max_stream_data_uni), "initial_max_stream_data_uni"},
        {offsetof(struct quic_tparams, initial_max_streams_bidi), "initial_max_streams_bidi"},
        {offsetof(struct quic_tparams, initial_max_streams_uni), "initial_max_streams_uni"},
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        now = server;
        uint64_t *v = (uint64_t *)(void *)((uint8_t *)&now + limits[i].off);
        *v -= 1;
        which = NULL;
        int rc = quic_tparams_check_0rtt(&tp, &now, &which);
        ok &= T_QUIET("check: a lower value is PROTOCOL_VIOLATION",
                      rc == -QUIC_PROTOCOL_VIOLATION && which && strcmp(which, limits[i].name) == 0, "%s: rc %d which %s",
                      limits[i].name, rc, which ? which : "(none)");
    }
    T_CHECK("check: each of RFC 9000 §7.4.1's seven, one lower, is PROTOCOL_VIOLATION naming it", ok, "see above");
}

int main(void)
{
    test_keys();
    test_remember();
    test_engine();
    T_DONE();
}
