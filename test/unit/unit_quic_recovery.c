/* test/unit/unit_quic_recovery.c — RFC 9002 loss detection and NewReno
 * (quic/recovery.c) on a fake clock: the RTT estimator against values
 * worked by hand from Appendix A.7 (first sample, the EWMA, ACK Delay
 * ignored for Initial, uncapped before confirmation, capped after, never
 * below min_rtt), packet- and time-threshold loss with kGranularity and the
 * loss_time timer, the PTO (once per expiry, doubling, reset by an ACK, late
 * wake-ups, no ApplicationData PTO before confirmation, the earliest space,
 * the anti-deadlock probe in Initial then Handshake), ACKs of packets never
 * sent, duplicate ACKs, ACK ranges with gaps, NewReno (slow start, one
 * reduction per recovery period, congestion avoidance, the minimum window,
 * persistent congestion and the three things that rule it out), discarded
 * spaces, the sent ring filling and emptying, and ACK-only packets.
 *
 * Every ACK frame is built with quic_frame_enc_ack and read back with
 * quic_frame_next from an exact-size heap copy, as the connection will:
 * the struct quic_frame_ack is never made by hand. The clock starts at 1 s,
 * since a time of 0 means "none" to quic/recovery.c. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quic/frame.h"
#include "quic/packet.h"
#include "quic/recovery.h"
#include "t.h"

#define US 1000ull
#define MS 1000000ull
#define T0 (1000 * MS) /* the fake clock's start: 1 s */
#define MDS 1200u
#define PV (-QUIC_PROTOCOL_VIOLATION)

#define INI QUIC_SPACE_INITIAL
#define HS QUIC_SPACE_HANDSHAKE
#define APP QUIC_SPACE_APP

/* ------------------------------------------------------------ harness */

#define LOG_PNS 1024
static struct {
    unsigned acked[QUIC_SPACES][LOG_PNS], lost[QUIC_SPACES][LOG_PNS];
    unsigned n_acked, n_lost;
} L;

static void cb_acked(void *ctx, enum quic_space sp, uint64_t pn)
{
    (void)ctx;
    if (pn < LOG_PNS)
        L.acked[sp][pn]++;
    L.n_acked++;
}

static void cb_lost(void *ctx, enum quic_space sp, uint64_t pn)
{
    (void)ctx;
    if (pn < LOG_PNS)
        L.lost[sp][pn]++;
    L.n_lost++;
}

static const struct quic_rec_callbacks CBS = { cb_acked, cb_lost };

/* 24 KiB each: static, one per test at a time. */
static struct quic_recovery R, SNAP;

static struct quic_recovery *fresh(void)
{
    memset(&L, 0, sizeof L);
    quic_rec_init(&R, MDS, &CBS, NULL);
    return &R;
}

/* A fresh recovery whose handshake is confirmed at T0 (so no anti-deadlock
 * timer gets in the way of ApplicationData tests), max_ack_delay 25 ms. */
static struct quic_recovery *fresh_confirmed(void)
{
    struct quic_recovery *r = fresh();
    quic_rec_set_max_ack_delay(r, 25 * MS);
    quic_rec_set_handshake_keys(r);
    quic_rec_set_handshake_confirmed(r, T0);
    return r;
}

static void send_pkt(struct quic_recovery *r, enum quic_space sp, uint64_t now, size_t bytes)
{
    quic_rec_on_sent(r, sp, now, bytes, true, true);
}

static void send_ack_only(struct quic_recovery *r, enum quic_space sp, uint64_t now)
{
    quic_rec_on_sent(r, sp, now, 50, false, false);
}

/* An ACK frame for the ranges rg[0..n) (ascending, as quic_ackset keeps
 * them) with ACK Delay delay_us (exponent 0: the field is microseconds),
 * encoded, decoded from an exact-size heap copy, and handed to
 * quic_rec_on_ack at now. */
static int ack_frame(struct quic_recovery *r, enum quic_space sp, uint64_t now, uint64_t delay_us,
                     const struct quic_ack_range *rg, size_t n)
{
    uint8_t buf[4096], *c;
    const uint8_t *p;
    struct quic_frame f;
    size_t len, sent = 0;
    int ret;

    len = quic_frame_enc_ack(buf, sizeof buf, rg, n, delay_us, NULL, &sent);
    if (len == 0 || sent != n) {
        printf("FAIL test ACK frame does not encode (n=%zu)\n", n);
        exit(2);
    }
    c = malloc(len);
    if (!c) {
        printf("out of memory\n");
        exit(2);
    }
    memcpy(c, buf, len);
    p = c;
    if (quic_frame_next(&p, c + len, &f) != 0 || p != c + len || f.kind != QUIC_FT_ACK) {
        printf("FAIL test ACK frame does not decode\n");
        exit(2);
    }
    ret = quic_rec_on_ack(r, sp, &f.ack, f.ack.ack_delay * US, now);
    free(c);
    return ret;
}

#define RANGES(...) ((const struct quic_ack_range[]){ __VA_ARGS__ })
#define NRANGES(...) (sizeof RANGES(__VA_ARGS__) / sizeof(struct quic_ack_range))
/* ACK(r, space, now, delay_us, {lo, hi}, ...): ranges ascending. */
#define ACK(r, sp, now, delay_us, ...) ack_frame((r), (sp), (now), (delay_us), RANGES(__VA_ARGS__), NRANGES(__VA_ARGS__))

/* ------------------------------------------------------------ tests */

static void test_init(void)
{
    struct quic_recovery *r = fresh();

    T_CHECK("init: cwnd min(10 * 1200, max(2 * 1200, 14720)) = 12000 (§7.2)", r->cwnd == 12000 &&
            r->ssthresh == UINT64_MAX && r->bytes_in_flight == 0 && quic_rec_cwnd_room(r) == 12000,
            "cwnd=%llu", (unsigned long long)r->cwnd);
    quic_rec_init(&R, 1500, &CBS, NULL);
    T_CHECK("init: 1500-byte datagrams: 14720 caps 10 * size", R.cwnd == 14720, "cwnd=%llu",
            (unsigned long long)R.cwnd);
    quic_rec_init(&R, 9000, &CBS, NULL);
    T_CHECK("init: 9000-byte datagrams: 2 * size floors it", R.cwnd == 18000, "cwnd=%llu",
            (unsigned long long)R.cwnd);
    r = fresh();
    T_CHECK("init: A.4: smoothed_rtt kInitialRtt, rttvar half, nothing armed or acked",
            r->smoothed_rtt == 333 * MS && r->rttvar == 333 * MS / 2 && r->min_rtt == 0 && r->latest_rtt == 0 &&
            r->first_rtt_sample == 0 && r->loss_timer == 0 && r->pto_count == 0 &&
            r->space[INI].largest_acked == QUIC_PN_NONE && r->space[APP].largest_acked == QUIC_PN_NONE &&
            r->max_ack_delay == 25 * MS,
            "srtt=%llu", (unsigned long long)r->smoothed_rtt);
    T_CHECK("init: PTO period 333 + 4 * 166.5 = 999 ms; max_ack_delay only for confirmed ApplicationData",
            quic_rec_pto_period(r, INI) == 999 * MS && quic_rec_pto_period(r, APP) == 999 * MS, "pto=%llu",
            (unsigned long long)quic_rec_pto_period(r, INI));
    quic_rec_set_handshake_confirmed(r, T0);
    T_CHECK("init: confirmed: ApplicationData PTO period adds max_ack_delay",
            quic_rec_pto_period(r, APP) == 1024 * MS && quic_rec_pto_period(r, HS) == 999 * MS, "pto=%llu",
            (unsigned long long)quic_rec_pto_period(r, APP));
}

/* The samples, worked by hand from A.7's UpdateRtt (ns, divisions
 * truncated); each step names the value a wrong reading would give. */
static void test_rtt(void)
{
    struct quic_recovery *r = fresh();
    uint64_t t;
    int ret;

    quic_rec_set_max_ack_delay(r, 25 * MS);

    /* 1: first sample, Initial: latest 100 ms; ACK Delay 50 ms plays no part. */
    send_pkt(r, INI, T0, MDS);
    ret = ACK(r, INI, T0 + 100 * MS, 50000, { 0, 0 });
    T_CHECK("rtt §5.3: first sample: smoothed = latest, rttvar = latest / 2, min = latest",
            ret == 0 && r->latest_rtt == 100 * MS && r->smoothed_rtt == 100 * MS && r->rttvar == 50 * MS &&
            r->min_rtt == 100 * MS && r->first_rtt_sample == T0 + 100 * MS,
            "ret=%d latest=%llu srtt=%llu var=%llu", ret, (unsigned long long)r->latest_rtt,
            (unsigned long long)r->smoothed_rtt, (unsigned long long)r->rttvar);

    /* 2: Initial, latest 130 ms, ACK Delay 20 ms ignored (§5.3 MAY): adjusted
     * 130: rttvar (3*50 + 30)/4 = 45, smoothed (7*100 + 130)/8 = 103.75.
     * (Delay used: 40 and 101.25.) */
    t = T0 + 200 * MS;
    send_pkt(r, INI, t, MDS);
    ret = ACK(r, INI, t + 130 * MS, 20000, { 0, 1 });
    T_CHECK("rtt §5.3: Initial ACK Delay ignored: smoothed 103.75 ms, rttvar 45 ms",
            ret == 0 && r->latest_rtt == 130 * MS && r->smoothed_rtt == 103750000 && r->rttvar == 45000000,
            "srtt=%llu var=%llu", (unsigned long long)r->smoothed_rtt, (unsigned long long)r->rttvar);

    /* 3: Handshake, before confirmation: latest 160, delay 40 not capped by
     * max_ack_delay 25: adjusted 120: rttvar (3*45 + |103.75-120|)/4 =
     * 37.8125, smoothed (7*103.75 + 120)/8 = 105.78125. rttvar uses the
     * smoothed_rtt from before the sample (A.7; §5.3's prose order would
     * give 37.6953125). Capped: adjusted 135, 107.65625. */
    quic_rec_set_handshake_keys(r);
    t = T0 + 1000 * MS;
    send_pkt(r, HS, t, MDS);
    ret = ACK(r, HS, t + 160 * MS, 40000, { 0, 0 });
    T_CHECK("rtt §5.3: before confirmation the ACK Delay is not capped by max_ack_delay",
            ret == 0 && r->smoothed_rtt == 105781250 && r->rttvar == 37812500,
            "srtt=%llu var=%llu", (unsigned long long)r->smoothed_rtt, (unsigned long long)r->rttvar);

    /* 4: ApplicationData after confirmation: latest 200, delay 80 capped to
     * 25: adjusted 175: rttvar (3*37.8125 + 69.21875)/4 = 45.6640625,
     * smoothed (7*105.78125 + 175)/8 = 114.43359375 (truncated to ns). */
    quic_rec_set_handshake_confirmed(r, T0 + 1500 * MS);
    t = T0 + 2000 * MS;
    send_pkt(r, APP, t, MDS);
    ret = ACK(r, APP, t + 200 * MS, 80000, { 0, 0 });
    T_CHECK("rtt §5.3: after confirmation ACK Delay is min(ack_delay, max_ack_delay)",
            ret == 0 && r->smoothed_rtt == 114433593 && r->rttvar == 45664062,
            "srtt=%llu var=%llu", (unsigned long long)r->smoothed_rtt, (unsigned long long)r->rttvar);

    /* 5: latest 110, delay 20: 110 < min_rtt 100 + 20, so not subtracted:
     * rttvar (3*45664062 + 4433593)/4, smoothed (7*114433593 + 110 ms)/8. */
    t = T0 + 3000 * MS;
    send_pkt(r, APP, t, MDS);
    ret = ACK(r, APP, t + 110 * MS, 20000, { 0, 1 });
    T_CHECK("rtt §5.3: ACK Delay not subtracted when it would go below min_rtt",
            ret == 0 && r->smoothed_rtt == 113879393 && r->rttvar == 35356444 && r->min_rtt == 100 * MS,
            "srtt=%llu var=%llu", (unsigned long long)r->smoothed_rtt, (unsigned long long)r->rttvar);

    /* 6: latest 90 lowers min_rtt first; then delay 5 > 90 - 90: adjusted 90. */
    t = T0 + 4000 * MS;
    send_pkt(r, APP, t, MDS);
    ret = ACK(r, APP, t + 90 * MS, 5000, { 0, 2 });
    T_CHECK("rtt §5.2: min_rtt takes the lower sample, before the ACK Delay check",
            ret == 0 && r->min_rtt == 90 * MS && r->smoothed_rtt == 110894468 && r->rttvar == 32487181,
            "min=%llu srtt=%llu var=%llu", (unsigned long long)r->min_rtt, (unsigned long long)r->smoothed_rtt,
            (unsigned long long)r->rttvar);

    /* 7: only an ACK-only packet newly acknowledged: no sample (§5.1 MUST NOT). */
    SNAP = *r;
    t = T0 + 5000 * MS;
    send_ack_only(r, APP, t);
    ret = ACK(r, APP, t + 500 * MS, 0, { 0, 3 });
    T_CHECK("rtt §5.1: no sample when no ack-eliciting packet is newly acknowledged",
            ret == 0 && L.acked[APP][3] == 1 && r->latest_rtt == SNAP.latest_rtt &&
            r->smoothed_rtt == SNAP.smoothed_rtt && r->rttvar == SNAP.rttvar,
            "latest=%llu", (unsigned long long)r->latest_rtt);

    /* 8: largest acknowledged not newly acknowledged: no sample (§5.1 SHOULD NOT). */
    t = T0 + 6000 * MS;
    send_pkt(r, APP, t, MDS);          /* pn 4 */
    send_pkt(r, APP, t + 1 * MS, MDS); /* pn 5 */
    ret = ACK(r, APP, t + 50 * MS, 0, { 0, 3 }, { 5, 5 });
    T_CHECK("rtt §5.1: the largest acknowledged newly acked gives the sample", ret == 0 && r->latest_rtt == 49 * MS,
            "latest=%llu", (unsigned long long)r->latest_rtt);
    SNAP = *r;
    ret = ACK(r, APP, t + 400 * MS, 0, { 0, 5 });
    T_CHECK("rtt §5.1: no sample when the largest acknowledged was acked before",
            ret == 0 && L.acked[APP][4] == 1 && r->latest_rtt == 49 * MS && r->smoothed_rtt == SNAP.smoothed_rtt &&
            r->rttvar == SNAP.rttvar,
            "latest=%llu", (unsigned long long)r->latest_rtt);
}

static void test_packet_threshold(void)
{
    struct quic_recovery *r = fresh_confirmed();
    int ret;

    for (int i = 0; i < 4; i++)
        send_pkt(r, APP, T0 + (unsigned long long)i * MS, MDS);
    /* latest = smoothed = 50 ms: loss_delay 56.25 ms, nothing old enough. */
    ret = ACK(r, APP, T0 + 53 * MS, 0, { 3, 3 });
    T_CHECK("loss §6.1.1: pn 0 lost when 3 is acked (kPacketThreshold 3), 1 and 2 not",
            ret == 0 && L.lost[APP][0] == 1 && L.n_lost == 1 && L.acked[APP][3] == 1 && L.n_acked == 1 &&
            r->packets_lost == 1 && r->bytes_in_flight == 2 * MDS,
            "ret=%d lost=%u/%u", ret, L.lost[APP][0], L.n_lost);
    T_CHECK("loss §6.1.2: loss_time = send time of pn 1 + 9/8 * 50 ms; the timer takes it before any PTO",
            r->space[APP].loss_time == T0 + 1 * MS + 56250000 && r->loss_timer == r->space[APP].loss_time,
            "loss_time=%llu timer=%llu", (unsigned long long)r->space[APP].loss_time,
            (unsigned long long)r->loss_timer);

    quic_rec_on_timeout(r, r->loss_timer - 1);
    T_CHECK("loss timer: 1 ns early does nothing", L.n_lost == 1 && r->pto_fired == 0, "lost=%u", L.n_lost);
    quic_rec_on_timeout(r, T0 + 57250000);
    T_CHECK("loss timer: at loss_time pn 1 is lost, pn 2's loss time is next",
            L.lost[APP][1] == 1 && L.n_lost == 2 && r->loss_timer == T0 + 58250000 && r->pto_fired == 0 &&
            r->pto_count == 0,
            "lost=%u timer=%llu", L.n_lost, (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, T0 + 58250000);
    T_CHECK("loss timer: pn 2 lost; nothing in flight, address validated: no timer",
            L.lost[APP][2] == 1 && L.n_lost == 3 && r->loss_timer == 0 && r->bytes_in_flight == 0 &&
            r->packets_lost == 3 && r->pto_fired == 0 && r->space[APP].oldest == 4,
            "lost=%u timer=%llu", L.n_lost, (unsigned long long)r->loss_timer);
}

static void test_time_threshold(void)
{
    struct quic_recovery *r = fresh_confirmed();
    int ret;

    /* One packet apart, but 100 ms older than pn 1: lost on time (9/8 * 50 ms). */
    send_pkt(r, APP, T0, MDS);
    send_pkt(r, APP, T0 + 100 * MS, MDS);
    ret = ACK(r, APP, T0 + 150 * MS, 0, { 1, 1 });
    T_CHECK("loss §6.1.2: sent more than 9/8 * max(smoothed, latest) before: lost",
            ret == 0 && L.lost[APP][0] == 1 && L.n_lost == 1 && r->space[APP].loss_time == 0 &&
            r->loss_timer == 0,
            "lost=%u", L.n_lost);

    /* A 100 us RTT: 9/8 of it is 112.5 us, but kGranularity keeps 1 ms. */
    r = fresh_confirmed();
    send_pkt(r, APP, T0, MDS);
    send_pkt(r, APP, T0 + 500 * US, MDS);
    ret = ACK(r, APP, T0 + 600 * US, 0, { 1, 1 });
    T_CHECK("loss §6.1.2: loss_delay at least kGranularity (1 ms): pn 0 not lost at 600 us",
            ret == 0 && r->latest_rtt == 100 * US && L.n_lost == 0 && r->space[APP].loss_time == T0 + 1 * MS &&
            r->loss_timer == T0 + 1 * MS,
            "lost=%u loss_time=%llu", L.n_lost, (unsigned long long)r->space[APP].loss_time);
    quic_rec_on_timeout(r, T0 + 1 * MS);
    T_CHECK("loss §6.1.2: ... and lost when the timer says", L.lost[APP][0] == 1 && r->loss_timer == 0,
            "lost=%u", L.n_lost);
}

static void test_pto(void)
{
    struct quic_recovery *r = fresh_confirmed();
    uint64_t t1 = T0 + 1000 * MS, t2, late;
    int ret;

    send_pkt(r, APP, T0, MDS);
    ret = ACK(r, APP, T0 + 100 * MS, 0, { 0, 0 }); /* smoothed 100, rttvar 50 */
    T_CHECK("pto §6.2.1: period smoothed + max(4 * rttvar, 1 ms) + max_ack_delay = 325 ms",
            ret == 0 && quic_rec_pto_period(r, APP) == 325 * MS && r->loss_timer == 0,
            "pto=%llu", (unsigned long long)quic_rec_pto_period(r, APP));

    send_pkt(r, APP, t1, MDS);
    T_CHECK("pto: armed at the ack-eliciting packet's send time + 325 ms", r->loss_timer == t1 + 325 * MS,
            "timer=%llu", (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, t1 + 325 * MS - 1);
    T_CHECK("pto: before the deadline nothing fires", r->pto_fired == 0 && r->pto_count == 0, "fired=%llu",
            (unsigned long long)r->pto_fired);
    for (int i = 0; i < 3; i++)
        quic_rec_on_timeout(r, t1 + 325 * MS);
    T_CHECK("pto: three calls at the deadline fire one PTO: two probes, backoff doubles the next",
            r->pto_fired == 1 && r->pto_count == 1 && r->probes_due[APP] == 2 && r->probes_due[HS] == 0 &&
            r->loss_timer == t1 + 650 * MS,
            "fired=%llu count=%u timer=%llu", (unsigned long long)r->pto_fired, r->pto_count,
            (unsigned long long)r->loss_timer);
    T_CHECK("pto §6.2: a PTO declares nothing lost", L.n_lost == 0 && r->bytes_in_flight == MDS &&
            r->cwnd == 12000 + MDS, "lost=%u", L.n_lost);
    quic_rec_probe_sent(r, APP);
    quic_rec_probe_sent(r, APP);
    quic_rec_probe_sent(r, APP);
    T_CHECK("pto: probe_sent counts the probes down to 0", r->probes_due[APP] == 0, "due=%u", r->probes_due[APP]);

    quic_rec_on_timeout(r, t1 + 650 * MS);
    quic_rec_on_timeout(r, t1 + 650 * MS);
    T_CHECK("pto: second expiry: pto_count 2, next after 4 * 325 ms", r->pto_fired == 2 && r->pto_count == 2 &&
            r->loss_timer == t1 + 1300 * MS, "fired=%llu timer=%llu", (unsigned long long)r->pto_fired,
            (unsigned long long)r->loss_timer);
    send_pkt(r, APP, t1 + 700 * MS, MDS); /* the probe, pn 2 */
    T_CHECK("pto §6.2.1: a probe re-arms from its own send time, backoff kept",
            r->loss_timer == t1 + 700 * MS + 4 * 325 * MS, "timer=%llu", (unsigned long long)r->loss_timer);

    ret = ACK(r, APP, t1 + 800 * MS, 0, { 0, 2 });
    T_CHECK("pto A.7: an ACK resets pto_count; nothing in flight: no timer",
            ret == 0 && r->pto_count == 0 && r->loss_timer == 0 && L.acked[APP][1] == 1 && L.acked[APP][2] == 1,
            "count=%u timer=%llu", r->pto_count, (unsigned long long)r->loss_timer);

    /* A timer that wakes up 10 s late fires one PTO, not a burst. */
    t2 = t1 + 2000 * MS;
    send_pkt(r, APP, t2, MDS);
    late = t2 + 10000 * MS;
    quic_rec_on_timeout(r, late);
    quic_rec_on_timeout(r, late);
    quic_rec_on_timeout(r, late + 1);
    T_CHECK("pto: a late wake-up fires once; the next PTO counts from now",
            r->pto_fired == 3 && r->pto_count == 1 && r->loss_timer == late + 2 * quic_rec_pto_period(r, APP),
            "fired=%llu timer=%llu", (unsigned long long)r->pto_fired, (unsigned long long)r->loss_timer);
}

static void test_pto_spaces(void)
{
    struct quic_recovery *r = fresh();
    uint64_t t;

    /* Only ApplicationData in flight, handshake not confirmed: §6.2.1
     * MUST NOT arm its PTO (and it is in flight, so no anti-deadlock). */
    quic_rec_set_handshake_keys(r);
    send_pkt(r, APP, T0, MDS);
    T_CHECK("pto §6.2.1: no ApplicationData PTO before the handshake is confirmed", r->loss_timer == 0,
            "timer=%llu", (unsigned long long)r->loss_timer);
    send_pkt(r, HS, T0 + 10 * MS, MDS);
    T_CHECK("pto: a Handshake packet arms its PTO (999 ms, no max_ack_delay)",
            r->loss_timer == T0 + 10 * MS + 999 * MS, "timer=%llu", (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, T0 + 1009 * MS);
    T_CHECK("pto: it fires in Handshake, never in ApplicationData",
            r->pto_fired == 1 && r->probes_due[HS] == 2 && r->probes_due[APP] == 0 && r->probes_due[INI] == 0 &&
            r->loss_timer == T0 + 10 * MS + 2 * 999 * MS,
            "due=%u/%u/%u timer=%llu", r->probes_due[INI], r->probes_due[HS], r->probes_due[APP],
            (unsigned long long)r->loss_timer);
    t = T0 + 3000 * MS;
    quic_rec_set_handshake_confirmed(r, t);
    quic_rec_discard_space(r, HS);
    T_CHECK("pto: once confirmed (and Handshake discarded, pto_count 0) ApplicationData's PTO is armed",
            r->pto_count == 0 && r->loss_timer == T0 + 999 * MS + 25 * MS && r->probes_due[HS] == 0,
            "timer=%llu", (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, t);
    T_CHECK("pto: a deadline already past fires at the next call", r->pto_fired == 2 && r->probes_due[APP] == 2,
            "fired=%llu", (unsigned long long)r->pto_fired);

    /* Initial and Handshake both in flight: the earlier deadline wins (§6.2.1). */
    r = fresh();
    quic_rec_set_handshake_keys(r);
    send_pkt(r, INI, T0, MDS);
    send_pkt(r, HS, T0 + 5 * MS, MDS);
    T_CHECK("pto §6.2.1: the earlier of Initial and Handshake", r->loss_timer == T0 + 999 * MS, "timer=%llu",
            (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, T0 + 999 * MS);
    T_CHECK("pto: ... fires in Initial; the doubled PTO now applies to Handshake too",
            r->probes_due[INI] == 2 && r->probes_due[HS] == 0 && r->loss_timer == T0 + 2 * 999 * MS,
            "due=%u/%u timer=%llu", r->probes_due[INI], r->probes_due[HS], (unsigned long long)r->loss_timer);
}

static void test_anti_deadlock(void)
{
    struct quic_recovery *r = fresh();
    int ret;

    send_pkt(r, INI, T0, MDS);
    ret = ACK(r, INI, T0 + 100 * MS, 0, { 0, 0 });
    /* Nothing in flight, no Handshake ACK: the client keeps a timer from now
     * (§6.2.2.1), smoothed 100 + 4 * 50, no backoff yet. */
    T_CHECK("anti-deadlock §6.2.2.1: nothing in flight, address not validated: armed from now",
            ret == 0 && r->bytes_in_flight == 0 && r->loss_timer == T0 + 100 * MS + 300 * MS,
            "timer=%llu", (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, T0 + 400 * MS);
    quic_rec_on_timeout(r, T0 + 400 * MS);
    T_CHECK("anti-deadlock: without Handshake keys one Initial probe",
            r->pto_fired == 1 && r->pto_count == 1 && r->probes_due[INI] == 1 && r->probes_due[HS] == 0 &&
            r->loss_timer == T0 + 400 * MS + 600 * MS,
            "due=%u/%u timer=%llu", r->probes_due[INI], r->probes_due[HS], (unsigned long long)r->loss_timer);
    send_pkt(r, INI, T0 + 400 * MS, MDS); /* the padded Initial probe, pn 1 */
    quic_rec_probe_sent(r, INI);
    ret = ACK(r, INI, T0 + 500 * MS, 0, { 0, 1 });
    /* latest 100: smoothed 100, rttvar 37.5: 250 ms, doubled. */
    T_CHECK("anti-deadlock A.7: an Initial ACK does not reset pto_count before validation",
            ret == 0 && r->pto_count == 1 && !r->peer_validated_address &&
            r->loss_timer == T0 + 500 * MS + 500 * MS,
            "count=%u timer=%llu", r->pto_count, (unsigned long long)r->loss_timer);
    quic_rec_set_handshake_keys(r);
    quic_rec_on_timeout(r, T0 + 1000 * MS);
    T_CHECK("anti-deadlock: with Handshake keys one Handshake probe",
            r->pto_fired == 2 && r->pto_count == 2 && r->probes_due[HS] == 1 && r->probes_due[INI] == 0,
            "due=%u/%u", r->probes_due[INI], r->probes_due[HS]);
    send_pkt(r, HS, T0 + 1000 * MS, MDS);
    ret = ACK(r, HS, T0 + 1100 * MS, 0, { 0, 0 });
    T_CHECK("anti-deadlock: a Handshake ACK validates: pto_count reset, nothing in flight, no timer",
            ret == 0 && r->peer_validated_address && r->pto_count == 0 && r->loss_timer == 0,
            "count=%u timer=%llu", r->pto_count, (unsigned long long)r->loss_timer);
}

static void test_violation(void)
{
    struct quic_recovery *r = fresh_confirmed();
    int ret;

    for (int i = 0; i < 3; i++)
        send_pkt(r, APP, T0 + (unsigned long long)i * MS, MDS);
    SNAP = *r;
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 3 });
    T_CHECK("violation RFC 9000 §13.1: acking pn 3 of 0..2 is PROTOCOL_VIOLATION, nothing changed",
            ret == PV && memcmp(r, &SNAP, sizeof SNAP) == 0 && L.n_acked == 0 && L.n_lost == 0, "ret=%d", ret);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 0 }, { 2, 5 });
    T_CHECK("violation: also when the range holding it has a gap below", ret == PV &&
            memcmp(r, &SNAP, sizeof SNAP) == 0 && L.n_acked == 0, "ret=%d", ret);
    ret = ACK(r, HS, T0 + 50 * MS, 0, { 0, 0 });
    T_CHECK("violation: an ACK in a space where nothing was sent", ret == PV && memcmp(r, &SNAP, sizeof SNAP) == 0,
            "ret=%d", ret);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 2 });
    T_CHECK("violation: the largest sent is fine", ret == 0 && L.n_acked == 3, "ret=%d acked=%u", ret, L.n_acked);
}

static void test_duplicates(void)
{
    struct quic_recovery *r = fresh_confirmed();
    int ret;
    bool once = true;

    for (int i = 0; i < 4; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 1 });
    SNAP = *r;
    ret |= ACK(r, APP, T0 + 60 * MS, 0, { 0, 1 });
    T_CHECK("duplicate ACK: reports nothing again, changes nothing but the time it was seen",
            ret == 0 && L.n_acked == 2 && r->bytes_in_flight == SNAP.bytes_in_flight && r->cwnd == SNAP.cwnd &&
            r->smoothed_rtt == SNAP.smoothed_rtt && r->latest_rtt == SNAP.latest_rtt &&
            r->loss_timer == SNAP.loss_timer,
            "acked=%u", L.n_acked);
    ret = ACK(r, APP, T0 + 70 * MS, 0, { 0, 3 });
    for (int i = 0; i < 4; i++)
        once &= L.acked[APP][i] == 1;
    T_CHECK("duplicate ACK: an overlapping one reports only the new packets", ret == 0 && once &&
            L.n_acked == 4 && r->bytes_in_flight == 0 && r->cwnd == 12000 + 4 * MDS,
            "acked=%u cwnd=%llu", L.n_acked, (unsigned long long)r->cwnd);
}

static void test_ranges(void)
{
    struct quic_recovery *r = fresh_confirmed();
    static const unsigned want_acked[10] = { 1, 1, 0, 0, 1, 1, 0, 0, 1, 1 };
    static const unsigned want_lost[10] = { 0, 0, 1, 1, 0, 0, 1, 0, 0, 0 };
    bool ok = true;
    int ret;

    /* 10 us apart: nothing is lost on time, only by packet threshold. */
    for (int i = 0; i < 10; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 30 * MS, 0, { 0, 1 }, { 4, 5 }, { 8, 9 });
    for (int i = 0; i < 10; i++)
        ok &= L.acked[APP][i] == want_acked[i] && L.lost[APP][i] == want_lost[i];
    T_CHECK("ranges: 0-1, 4-5, 8-9 acked; 2, 3, 6 lost (9 >= pn + 3); 7 still out",
            ret == 0 && ok && L.n_acked == 6 && L.n_lost == 3 && r->bytes_in_flight == MDS &&
            r->space[APP].oldest == 7 && r->space[APP].largest_acked == 9,
            "acked=%u lost=%u oldest=%llu", L.n_acked, L.n_lost, (unsigned long long)r->space[APP].oldest);
    ret = ACK(r, APP, T0 + 40 * MS, 0, { 0, 1 }, { 4, 5 }, { 8, 9 });
    T_CHECK("ranges: the same ranges again report nothing", ret == 0 && L.n_acked == 6 && L.n_lost == 3,
            "acked=%u", L.n_acked);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 9 });
    T_CHECK("ranges: a late ACK of a packet declared lost reports nothing; 7 acked",
            ret == 0 && L.acked[APP][7] == 1 && L.acked[APP][2] == 0 && L.n_acked == 7 && r->bytes_in_flight == 0 &&
            r->space[APP].oldest == 10,
            "acked=%u", L.n_acked);
}

static void test_newreno(void)
{
    struct quic_recovery *r = fresh_confirmed();
    uint64_t start;
    int ret;

    /* Slow start: cwnd grows by every byte acknowledged (§7.3.1). */
    for (int i = 0; i < 5; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 4 });
    T_CHECK("newreno §7.3.1: slow start: 5 acked packets of 1200 grow 12000 to 18000",
            ret == 0 && r->cwnd == 18000 && r->bytes_in_flight == 0 && r->ssthresh == UINT64_MAX, "cwnd=%llu",
            (unsigned long long)r->cwnd);

    /* A full window, then losses. */
    r = fresh_confirmed();
    for (int i = 0; i < 10; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    T_CHECK("newreno: a full window leaves no room", quic_rec_cwnd_room(r) == 0, "room=%llu",
            (unsigned long long)quic_rec_cwnd_room(r));
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 3, 3 });
    /* pn 0 lost: recovery starts now; pn 3, sent before, adds nothing (lost
     * before acked, A.7: otherwise (12000 + 1200) / 2). */
    T_CHECK("newreno B.6: a loss halves cwnd and ssthresh; the ack in the same frame adds nothing",
            ret == 0 && L.lost[APP][0] == 1 && r->cwnd == 6000 && r->ssthresh == 6000 &&
            r->recovery_start == T0 + 50 * MS,
            "cwnd=%llu ssthresh=%llu", (unsigned long long)r->cwnd, (unsigned long long)r->ssthresh);
    start = r->recovery_start;
    ret = ACK(r, APP, T0 + 51 * MS, 0, { 3, 4 });
    ret |= ACK(r, APP, T0 + 52 * MS, 0, { 3, 5 });
    T_CHECK("newreno §7.3.2: two more losses from the same round: no second reduction",
            ret == 0 && L.lost[APP][1] == 1 && L.lost[APP][2] == 1 && r->cwnd == 6000 && r->ssthresh == 6000 &&
            r->recovery_start == start,
            "cwnd=%llu", (unsigned long long)r->cwnd);

    /* Congestion avoidance: one max_datagram_size per cwnd of bytes acked. */
    for (int i = 10; i < 15; i++)
        send_pkt(r, APP, T0 + 60 * MS + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 110 * MS, 0, { 3, 14 });
    T_CHECK("newreno §7.3.3: acking 6000 bytes sent after recovery started adds 1200 to cwnd 6000",
            ret == 0 && r->cwnd == 7200 && r->bytes_in_flight == 0, "cwnd=%llu", (unsigned long long)r->cwnd);
    for (int i = 15; i < 21; i++)
        send_pkt(r, APP, T0 + 120 * MS + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 170 * MS, 0, { 3, 19 });
    T_CHECK("newreno §7.3.3: 6000 bytes of cwnd 7200: no growth yet", ret == 0 && r->cwnd == 7200, "cwnd=%llu",
            (unsigned long long)r->cwnd);
    ret = ACK(r, APP, T0 + 171 * MS, 0, { 3, 20 });
    T_CHECK("newreno §7.3.3: the 7200th byte: 8400", ret == 0 && r->cwnd == 8400, "cwnd=%llu",
            (unsigned long long)r->cwnd);

    /* A loss of a packet sent after the recovery period began: a new one. */
    for (int i = 21; i < 25; i++)
        send_pkt(r, APP, T0 + 200 * MS + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 250 * MS, 0, { 3, 20 }, { 24, 24 });
    T_CHECK("newreno B.6: a loss from a later round reduces again", ret == 0 && L.lost[APP][21] == 1 &&
            r->cwnd == 4200 && r->ssthresh == 4200 && r->recovery_start == T0 + 250 * MS,
            "cwnd=%llu", (unsigned long long)r->cwnd);

    /* The minimum window, 2 * max_datagram_size (§7.2). */
    r = fresh_confirmed();
    r->cwnd = 3000;
    for (int i = 0; i < 4; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 3, 3 });
    T_CHECK("newreno §7.2: cwnd never below kMinimumWindow 2400 (ssthresh 1500)",
            ret == 0 && r->cwnd == 2400 && r->ssthresh == 1500, "cwnd=%llu", (unsigned long long)r->cwnd);

    /* §7.8: application limited, no growth. */
    r = fresh_confirmed();
    r->app_limited = true;
    send_pkt(r, APP, T0, MDS);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 0, 0 });
    T_CHECK("newreno §7.8: app_limited: bytes leave flight, cwnd does not grow",
            ret == 0 && r->cwnd == 12000 && r->bytes_in_flight == 0, "cwnd=%llu", (unsigned long long)r->cwnd);

    /* The full window and the loss of pn 0 again. */
    r = fresh_confirmed();
    for (int i = 0; i < 10; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 3, 3 });
    /* B.6 MaybeSendOnePacket: 9 packets (10800 bytes) are still in flight
     * against the halved window, yet one packet may go — the one that
     * resends what was lost. ACK-only packets do not use it up; the next
     * in-flight one does. */
    T_CHECK("newreno B.6: entering recovery lets one packet past the full window",
            ret == 0 && r->bytes_in_flight > r->cwnd && r->send_one && quic_rec_cwnd_room(r) == MDS, "in flight %llu room %llu",
            (unsigned long long)r->bytes_in_flight, (unsigned long long)quic_rec_cwnd_room(r));
    send_ack_only(r, APP, T0 + 50 * MS);
    bool kept = quic_rec_cwnd_room(r) == MDS;
    send_pkt(r, APP, T0 + 50 * MS, MDS);
    T_CHECK("newreno B.6: an ACK-only packet leaves it, the next in-flight packet takes it",
            kept && !r->send_one && quic_rec_cwnd_room(r) == 0, "kept %d room %llu", kept,
            (unsigned long long)quic_rec_cwnd_room(r));
    ret = ACK(r, APP, T0 + 51 * MS, 0, { 3, 4 });
    T_CHECK("newreno B.6: a second loss of the same round: no second packet past the window",
            ret == 0 && L.lost[APP][1] == 1 && !r->send_one && quic_rec_cwnd_room(r) == 0, "room %llu",
            (unsigned long long)quic_rec_cwnd_room(r));
}

/* §7.6: an RTT sample at T0 + 100 ms (smoothed 100, rttvar 50,
 * max_ack_delay 25: duration 3 * 325 = 975 ms), then ack-eliciting pn 1-3
 * at t1, t1 + 500 ms and t1 + third, an ACK-only pn 4 at t1 + 1100 ms, and
 * an ACK of pn 4 (plus pn 2 when ack2) at t1 + 1200 ms. An ACK-only largest
 * keeps the RTT and the window after the reduction untouched. */
static struct quic_recovery *pc_case(uint64_t third, bool ack2, int *ret)
{
    struct quic_recovery *r = fresh_confirmed();
    uint64_t t1 = T0 + 1000 * MS;

    send_pkt(r, APP, T0, MDS);
    *ret = ACK(r, APP, T0 + 100 * MS, 0, { 0, 0 }); /* cwnd 13200 */
    send_pkt(r, APP, t1, MDS);
    send_pkt(r, APP, t1 + 500 * MS, MDS);
    send_pkt(r, APP, t1 + third, MDS);
    send_ack_only(r, APP, t1 + 1100 * MS);
    if (ack2)
        *ret |= ACK(r, APP, t1 + 1200 * MS, 0, { 2, 2 }, { 4, 4 });
    else
        *ret |= ACK(r, APP, t1 + 1200 * MS, 0, { 4, 4 });
    return r;
}

static void test_persistent_congestion(void)
{
    struct quic_recovery *r;
    int ret;

    r = pc_case(1000 * MS, false, &ret);
    T_CHECK("persistent §7.6.2: ack-eliciting losses spanning 1 s > 975 ms: cwnd to kMinimumWindow",
            ret == 0 && L.n_lost == 3 && r->cwnd == 2400 && r->recovery_start == 0 &&
            r->persistent_congestions == 1 && r->ssthresh == 6600,
            "lost=%u cwnd=%llu pc=%llu", L.n_lost, (unsigned long long)r->cwnd,
            (unsigned long long)r->persistent_congestions);

    r = pc_case(900 * MS, false, &ret);
    T_CHECK("persistent §7.6.1: spanning 900 ms < 975 ms: only the halving",
            ret == 0 && L.n_lost == 3 && r->cwnd == 6600 && r->persistent_congestions == 0, "cwnd=%llu",
            (unsigned long long)r->cwnd);

    /* pn 2, between the lost pn 1 and 3, acknowledged in the same frame (an
     * RTT sample of 100 ms: rttvar 37.5, duration 825 ms). */
    r = pc_case(1000 * MS, true, &ret);
    T_CHECK("persistent §7.6.2: an acknowledged packet between the two lost ones rules it out",
            ret == 0 && L.lost[APP][1] == 1 && L.lost[APP][3] == 1 && L.acked[APP][2] == 1 && r->cwnd == 6600 &&
            r->persistent_congestions == 0,
            "cwnd=%llu", (unsigned long long)r->cwnd);

    /* No RTT sample before the losses: the ACK that declares them gives the
     * first one (duration 975 ms), but they were all sent before it. */
    r = fresh_confirmed();
    send_pkt(r, APP, T0, MDS);
    send_pkt(r, APP, T0 + 500 * MS, MDS);
    send_pkt(r, APP, T0 + 1000 * MS, MDS);
    send_pkt(r, APP, T0 + 1100 * MS, MDS);
    ret = ACK(r, APP, T0 + 1200 * MS, 0, { 3, 3 });
    T_CHECK("persistent B.8: packets sent before the first RTT sample do not count",
            ret == 0 && L.n_lost == 3 && r->cwnd == 6000 && r->persistent_congestions == 0, "cwnd=%llu lost=%u",
            (unsigned long long)r->cwnd, L.n_lost);
}

static void test_discard(void)
{
    struct quic_recovery *r = fresh();
    int ret;

    quic_rec_set_handshake_keys(r);
    send_pkt(r, INI, T0, MDS);
    send_pkt(r, INI, T0 + 1 * MS, MDS);
    send_pkt(r, HS, T0 + 2 * MS, 1000);
    ret = ACK(r, INI, T0 + 50 * MS, 0, { 1, 1 });
    /* latest 49 ms: pn 0 waits for its loss time, T0 + 9/8 * 49 ms. */
    T_CHECK("discard: set-up: Initial pn 0 on the loss timer", ret == 0 && r->bytes_in_flight == MDS + 1000 &&
            r->loss_timer == T0 + 55125000 && r->space[INI].loss_time == T0 + 55125000,
            "timer=%llu", (unsigned long long)r->loss_timer);
    r->pto_count = 3;
    quic_rec_discard_space(r, INI);
    /* Handshake's PTO: smoothed 49 + 4 * 24.5 = 147 ms, pto_count reset. */
    T_CHECK("discard §6.4: Initial's bytes leave flight, unreported; its timer gives way to Handshake's PTO",
            r->bytes_in_flight == 1000 && L.n_acked == 1 && L.n_lost == 0 && r->space[INI].loss_time == 0 &&
            r->space[INI].last_ack_eliciting_time == 0 && r->pto_count == 0 &&
            r->loss_timer == T0 + 2 * MS + 147 * MS && r->space[INI].discarded,
            "bif=%llu timer=%llu", (unsigned long long)r->bytes_in_flight, (unsigned long long)r->loss_timer);
    quic_rec_on_timeout(r, T0 + 56 * MS);
    T_CHECK("discard: Initial's loss time no longer fires", L.n_lost == 0 && r->pto_fired == 0, "lost=%u",
            L.n_lost);
    T_CHECK("discard: no more sending in the space", !quic_rec_can_send(r, INI), "can send");
    quic_rec_on_sent(r, INI, T0 + 60 * MS, MDS, true, true);
    T_CHECK("discard: on_sent there is ignored", r->space[INI].next_pn == 2 && r->bytes_in_flight == 1000 &&
            r->space[INI].ack_eliciting_in_flight == 0, "next=%llu", (unsigned long long)r->space[INI].next_pn);
    ret = ACK(r, INI, T0 + 70 * MS, 0, { 0, 1 });
    T_CHECK("discard: an ACK there is ignored", ret == 0 && L.n_acked == 1 && L.n_lost == 0, "ret=%d", ret);

    quic_rec_set_handshake_confirmed(r, T0 + 80 * MS);
    quic_rec_discard_space(r, HS);
    T_CHECK("discard: Handshake too: nothing in flight, confirmed: no timer",
            r->bytes_in_flight == 0 && r->loss_timer == 0 && L.n_lost == 0, "bif=%llu timer=%llu",
            (unsigned long long)r->bytes_in_flight, (unsigned long long)r->loss_timer);
}

static void test_ring(void)
{
    struct quic_recovery *r = fresh_confirmed();
    bool ok = true;
    int ret;

    for (unsigned i = 0; i < QUIC_REC_CAP; i++) {
        ok &= quic_rec_can_send(r, APP);
        send_ack_only(r, APP, T0 + i * US);
    }
    T_CHECK("ring: QUIC_REC_CAP packets outstanding: full", ok && !quic_rec_can_send(r, APP) &&
            r->space[APP].next_pn == QUIC_REC_CAP, "next=%llu", (unsigned long long)r->space[APP].next_pn);
    ret = ACK(r, APP, T0 + 10 * MS, 0, { 0, 0 });
    T_CHECK("ring: acking the oldest frees a slot", ret == 0 && quic_rec_can_send(r, APP) &&
            r->space[APP].oldest == 1, "oldest=%llu", (unsigned long long)r->space[APP].oldest);
    send_ack_only(r, APP, T0 + 11 * MS);
    ret = ACK(r, APP, T0 + 12 * MS, 0, { 0, 0 }, { 2, 2 });
    T_CHECK("ring: acking one behind the oldest frees nothing", ret == 0 && !quic_rec_can_send(r, APP) &&
            r->space[APP].oldest == 1 && L.n_lost == 0, "oldest=%llu", (unsigned long long)r->space[APP].oldest);
    ret = ACK(r, APP, T0 + 13 * MS, 0, { 0, 2 });
    T_CHECK("ring: the oldest acked, the tail passes the empty slot behind it", ret == 0 &&
            r->space[APP].oldest == 3 && quic_rec_can_send(r, APP), "oldest=%llu",
            (unsigned long long)r->space[APP].oldest);
    send_ack_only(r, APP, T0 + 14 * MS);
    send_ack_only(r, APP, T0 + 15 * MS);
    T_CHECK("ring: two slots, two packets: full again", !quic_rec_can_send(r, APP) &&
            r->space[APP].next_pn == QUIC_REC_CAP + 3, "next=%llu", (unsigned long long)r->space[APP].next_pn);
    ret = ACK(r, APP, T0 + 16 * MS, 0, { 0, QUIC_REC_CAP + 2 });
    ok = true;
    for (unsigned i = 0; i < QUIC_REC_CAP + 3 && i < LOG_PNS; i++)
        ok &= L.acked[APP][i] == 1;
    T_CHECK("ring: one ACK of everything reports each packet once and empties the ring",
            ret == 0 && ok && L.n_acked == QUIC_REC_CAP + 3 && L.n_lost == 0 &&
            r->space[APP].oldest == r->space[APP].next_pn && quic_rec_can_send(r, APP),
            "acked=%u", L.n_acked);

    /* Misuse: on_sent on a full ring still moves next_pn on, and reports
     * the packet it pushes out lost. */
    r = fresh_confirmed();
    for (unsigned i = 0; i <= QUIC_REC_CAP; i++)
        send_pkt(r, APP, T0 + i * US, 100);
    T_CHECK("ring: on_sent when full pushes the oldest out as lost",
            r->space[APP].next_pn == QUIC_REC_CAP + 1 && r->space[APP].oldest == 1 && L.lost[APP][0] == 1 &&
            L.n_lost == 1 && r->bytes_in_flight == 100ull * QUIC_REC_CAP &&
            r->space[APP].ack_eliciting_in_flight == QUIC_REC_CAP,
            "next=%llu lost=%u bif=%llu", (unsigned long long)r->space[APP].next_pn, L.n_lost,
            (unsigned long long)r->bytes_in_flight);
}

static void test_ack_only(void)
{
    struct quic_recovery *r = fresh_confirmed();
    int ret;

    send_ack_only(r, APP, T0);
    T_CHECK("ack-only §7: not in flight, not on the timer", r->bytes_in_flight == 0 && r->loss_timer == 0 &&
            r->space[APP].ack_eliciting_in_flight == 0 && r->space[APP].next_pn == 1,
            "bif=%llu", (unsigned long long)r->bytes_in_flight);
    for (int i = 1; i <= 4; i++)
        send_pkt(r, APP, T0 + (uint64_t)i * 10 * US, MDS);
    T_CHECK("ack-only: only the ack-eliciting packets count", r->bytes_in_flight == 4 * MDS, "bif=%llu",
            (unsigned long long)r->bytes_in_flight);
    ret = ACK(r, APP, T0 + 50 * MS, 0, { 1, 4 });
    T_CHECK("ack-only: its loss is reported, but is no congestion event and no packets_lost",
            ret == 0 && L.lost[APP][0] == 1 && r->packets_lost == 0 && r->recovery_start == 0 &&
            r->cwnd == 12000 + 4 * MDS && r->bytes_in_flight == 0,
            "cwnd=%llu lost=%llu", (unsigned long long)r->cwnd, (unsigned long long)r->packets_lost);
    send_ack_only(r, APP, T0 + 60 * MS);
    ret = ACK(r, APP, T0 + 100 * MS, 0, { 1, 5 });
    T_CHECK("ack-only: its acknowledgment grows nothing", ret == 0 && L.acked[APP][5] == 1 &&
            r->cwnd == 12000 + 4 * MDS && r->bytes_in_flight == 0, "cwnd=%llu", (unsigned long long)r->cwnd);
}

int main(void)
{
    test_init();
    test_rtt();
    test_packet_threshold();
    test_time_threshold();
    test_pto();
    test_pto_spaces();
    test_anti_deadlock();
    test_violation();
    test_duplicates();
    test_ranges();
    test_newreno();
    test_persistent_congestion();
    test_discard();
    test_ring();
    test_ack_only();
    T_DONE();
}
