/* quic/recovery.c — RFC 9002 loss detection and NewReno congestion control
 * for a client. See recovery.h for the contracts.
 *
 * Written to be read beside RFC 9002 Appendix A (loss recovery) and
 * Appendix B (congestion control): each function names the pseudocode it
 * follows and keeps its statements in the pseudocode's order; where it
 * departs, a comment says so and why. The pseudocode's "infinite" is
 * QUIC_PN_NONE for largest_acked_packet and UINT64_MAX (INFINITE) for times
 * and ssthresh; its 0 for "no time" is 0 here too, which is why `now` is
 * never 0.
 *
 * sent_packets[space] is a ring indexed by pn % QUIC_REC_CAP. Packet
 * numbers are consecutive, so every pn in [oldest, next_pn) has its own
 * slot, and "remove from sent_packets" empties the slot (time 0); oldest
 * then moves past empty slots. DetectAndRemoveAckedPackets is split in two:
 * the first pass over the ACK ranges only flags the newly acknowledged
 * packets (acked, time kept), so that A.7's later steps (RTT, loss
 * detection, then OnPacketsAcked, which needs each packet's size and send
 * time) can still read them; the second pass, OnPacketsAcked, empties them. */
#include "quic/recovery.h"

#include <string.h>

#define INFINITE UINT64_MAX
#define INITIAL_WINDOW_BYTES 14720u /* §7.2 */
#define MAX_ACK_DELAY_DEFAULT_NS 25000000ull /* RFC 9000 §18.2: max_ack_delay absent = 25 ms */

static struct quic_sent *slot(struct quic_rec_space *s, uint64_t pn)
{
    return &s->sent[pn % QUIC_REC_CAP];
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > INFINITE - b ? INFINITE : a + b;
}

/* d * 2^k, saturating: pto_count is bounded only by the idle timeout. */
static uint64_t backoff(uint64_t d, unsigned k)
{
    return k >= 64 || d > (INFINITE >> k) ? INFINITE : d << k;
}

/* kMinimumWindow (§7.2, B.1). */
static uint64_t min_window(const struct quic_recovery *r)
{
    return 2 * r->max_datagram_size;
}

static bool any_ack_eliciting_in_flight(const struct quic_recovery *r)
{
    for (int i = 0; i < QUIC_SPACES; i++)
        if (r->space[i].ack_eliciting_in_flight > 0)
            return true;
    return false;
}

/* A.8 PeerCompletedAddressValidation, for a client: "has received Handshake
 * ACK || handshake confirmed" (quic_rec_set_handshake_confirmed sets the
 * flag too). */
static bool peer_completed_address_validation(const struct quic_recovery *r)
{
    return r->peer_validated_address || r->handshake_confirmed;
}

/* Empties a packet's slot once it is acknowledged or declared lost (the
 * ring's side of "sent_packets.remove"; bytes_in_flight is B.5 / B.8's). */
static void forget(struct quic_rec_space *s, struct quic_sent *p, bool acked)
{
    if (p->in_flight && p->ack_eliciting)
        s->ack_eliciting_in_flight--;
    p->time = 0;
    p->acked = acked;
}

static void advance_oldest(struct quic_rec_space *s)
{
    while (s->oldest < s->next_pn && slot(s, s->oldest)->time == 0)
        s->oldest++;
}

/* --- A.8: the loss detection timer ----------------------------------------- */

/* GetLossTimeAndSpace. The pseudocode's test `time == 0 || loss_time[space]
 * < time` would let a space without a loss time (0) replace an earlier
 * space's; a space with loss_time 0 is skipped instead, which is what the
 * function means to return. */
static uint64_t get_loss_time_and_space(const struct quic_recovery *r, enum quic_space *space)
{
    uint64_t time = r->space[QUIC_SPACE_INITIAL].loss_time;

    *space = QUIC_SPACE_INITIAL;
    for (int i = QUIC_SPACE_HANDSHAKE; i <= QUIC_SPACE_APP; i++) {
        uint64_t t = r->space[i].loss_time;
        if (t != 0 && (time == 0 || t < time)) {
            time = t;
            *space = (enum quic_space)i;
        }
    }
    return time;
}

/* GetPtoTimeAndSpace: INFINITE when no PTO applies. */
static uint64_t get_pto_time_and_space(const struct quic_recovery *r, uint64_t now, enum quic_space *space)
{
    uint64_t duration =
        backoff(r->smoothed_rtt + max64(4 * r->rttvar, QUIC_REC_GRANULARITY_NS), r->pto_count);
    uint64_t pto_timeout = INFINITE;

    /* Anti-deadlock PTO starts from the current time (§6.2.2.1). Reached
     * only while !PeerCompletedAddressValidation (A.8 asserts it). */
    if (!any_ack_eliciting_in_flight(r)) {
        *space = r->handshake_keys ? QUIC_SPACE_HANDSHAKE : QUIC_SPACE_INITIAL;
        return sat_add(now, duration);
    }
    *space = QUIC_SPACE_INITIAL;
    for (int i = QUIC_SPACE_INITIAL; i <= QUIC_SPACE_APP; i++) {
        const struct quic_rec_space *s = &r->space[i];
        uint64_t t;
        if (s->ack_eliciting_in_flight == 0)
            continue;
        if (i == QUIC_SPACE_APP) {
            /* Skip Application Data until handshake confirmed (§6.2.1 MUST NOT). */
            if (!r->handshake_confirmed)
                return pto_timeout;
            /* Include max_ack_delay and backoff for Application Data. */
            duration = sat_add(duration, backoff(r->max_ack_delay, r->pto_count));
        }
        t = sat_add(s->last_ack_eliciting_time, duration);
        if (t < pto_timeout) {
            pto_timeout = t;
            *space = (enum quic_space)i;
        }
    }
    return pto_timeout;
}

/* SetLossDetectionTimer. loss_timer 0 is the pseudocode's cancel(). The
 * server's anti-amplification case does not arise in a client. */
static void set_loss_detection_timer(struct quic_recovery *r, uint64_t now)
{
    enum quic_space space;
    uint64_t earliest_loss_time = get_loss_time_and_space(r, &space), timeout;

    if (earliest_loss_time != 0) {
        /* Time threshold loss detection (§6.2.1: no PTO while it is set). */
        r->loss_timer = earliest_loss_time;
        return;
    }
    if (!any_ack_eliciting_in_flight(r) && peer_completed_address_validation(r)) {
        /* Nothing to detect lost, and the server cannot be blocked by its
         * anti-amplification limit: no timer. */
        r->loss_timer = 0;
        return;
    }
    timeout = get_pto_time_and_space(r, now, &space);
    r->loss_timer = timeout == INFINITE ? 0 : timeout;
}

/* --- A.7: RTT ----------------------------------------------------------------- */

/* UpdateRtt. Note the order: rttvar takes abs(smoothed_rtt - adjusted_rtt)
 * with the smoothed_rtt from before this sample, as A.7 and RFC 6298 §2.3
 * do (§5.3's prose computes smoothed_rtt first). Integer nanoseconds:
 * the divisions truncate. */
static void update_rtt(struct quic_recovery *r, uint64_t ack_delay, uint64_t now)
{
    uint64_t adjusted_rtt;

    if (r->first_rtt_sample == 0) {
        r->min_rtt = r->latest_rtt;
        r->smoothed_rtt = r->latest_rtt;
        r->rttvar = r->latest_rtt / 2;
        r->first_rtt_sample = now;
        return;
    }
    /* min_rtt ignores acknowledgment delay (§5.2). */
    r->min_rtt = min64(r->min_rtt, r->latest_rtt);
    /* Limit ack_delay by max_ack_delay after handshake confirmation (§5.3). */
    if (r->handshake_confirmed)
        ack_delay = min64(ack_delay, r->max_ack_delay);
    /* Adjust for acknowledgment delay if plausible: latest_rtt >= min_rtt +
     * ack_delay, written so that a huge peer-reported delay cannot wrap. */
    adjusted_rtt = r->latest_rtt;
    if (ack_delay <= r->latest_rtt - r->min_rtt)
        adjusted_rtt = r->latest_rtt - ack_delay;
    r->rttvar = (3 * r->rttvar +
                 (r->smoothed_rtt > adjusted_rtt ? r->smoothed_rtt - adjusted_rtt : adjusted_rtt - r->smoothed_rtt)) /
                4;
    r->smoothed_rtt = (7 * r->smoothed_rtt + adjusted_rtt) / 8;
}

/* --- Appendix B: NewReno ---------------------------------------------------- */

/* B.5 InCongestionRecovery. recovery_start 0 (not in recovery) is below
 * every send time, since send times are never 0. */
static bool in_congestion_recovery(const struct quic_recovery *r, uint64_t sent_time)
{
    return sent_time <= r->recovery_start;
}

/* B.5 OnPacketAcked. Congestion avoidance counts bytes (B.5's note, RFC
 * 3465 §2.1) instead of adding max_datagram_size * sent_bytes / cwnd, which
 * truncates to little or nothing in integers: cwnd grows by exactly one
 * max_datagram_size per cwnd of bytes acknowledged, §7.3.3's limit. */
static void on_packet_acked(struct quic_recovery *r, const struct quic_sent *p)
{
    if (!p->in_flight)
        return;
    /* Remove from bytes_in_flight. */
    r->bytes_in_flight -= p->bytes;
    /* Do not increase congestion_window if application or flow control limited. */
    if (r->app_limited)
        return;
    /* Do not increase congestion window in recovery period. */
    if (in_congestion_recovery(r, p->time))
        return;
    if (r->cwnd < r->ssthresh) {
        /* Slow start. */
        r->cwnd += p->bytes;
    } else {
        /* Congestion avoidance. */
        r->ca_bytes_acked += p->bytes;
        if (r->ca_bytes_acked >= r->cwnd) {
            r->ca_bytes_acked -= r->cwnd;
            r->cwnd += r->max_datagram_size;
        }
    }
}

/* B.6 OnCongestionEvent (kLossReductionFactor 0.5). */
static void on_congestion_event(struct quic_recovery *r, uint64_t sent_time, uint64_t now)
{
    /* No reaction if already in a recovery period (§7.3.2: once per round trip). */
    if (in_congestion_recovery(r, sent_time))
        return;
    /* Enter recovery period. */
    r->recovery_start = now;
    r->ssthresh = r->cwnd / 2;
    r->cwnd = max64(r->ssthresh, min_window(r));
    r->ca_bytes_acked = 0;
    /* MaybeSendOnePacket() (§7.3.2: "a single packet can be sent prior to
     * reduction"): see recovery.h for why it is needed. */
    r->send_one = true;
}

/* What B.8 OnPacketsLost needs from lost_packets, gathered while A.10 finds
 * them (the ring slot is emptied as each is found). Lost packets of one
 * call are found in packet-number order, which is send-time order. */
struct lost_batch {
    uint64_t n;                      /* packets declared lost (in flight or not) */
    uint64_t sent_time_of_last_loss; /* B.8, over in-flight packets; 0 = none */
    /* InPersistentCongestion(pc_lost), §7.6.2: pc_start is the send time of
     * the first ack-eliciting packet of pc_lost (sent after first_rtt_sample)
     * since the last acknowledged packet passed in packet-number order. */
    uint64_t pc_start;
    uint64_t pc_duration; /* §7.6.1 */
    bool persistent;
};

/* B.8's first loop, for one lost packet, plus its part of pc_lost. */
static void note_lost(struct quic_recovery *r, struct lost_batch *b, const struct quic_sent *p)
{
    b->n++;
    /* Remove lost packets from bytes_in_flight. */
    if (p->in_flight) {
        r->bytes_in_flight -= p->bytes;
        b->sent_time_of_last_loss = max64(b->sent_time_of_last_loss, p->time);
        r->packets_lost++;
    }
    /* Only consider packets sent after getting an RTT sample; the two that
     * establish persistent congestion must be ack-eliciting (§7.6.2). */
    if (r->first_rtt_sample != 0 && p->time > r->first_rtt_sample && p->ack_eliciting) {
        if (b->pc_start == 0)
            b->pc_start = p->time;
        else if (p->time - b->pc_start > b->pc_duration)
            b->persistent = true;
    }
}

/* B.8 OnPacketsLost, after the batch was gathered. */
static void on_packets_lost(struct quic_recovery *r, const struct lost_batch *b, uint64_t now)
{
    /* Congestion event if in-flight packets were lost. */
    if (b->sent_time_of_last_loss != 0)
        on_congestion_event(r, b->sent_time_of_last_loss, now);
    /* Reset the congestion window if the loss of these packets indicates
     * persistent congestion (only packets sent after the first RTT sample
     * took part, note_lost). */
    if (r->first_rtt_sample == 0)
        return;
    if (b->persistent) {
        r->cwnd = min_window(r);
        r->recovery_start = 0;
        r->ca_bytes_acked = 0;
        r->persistent_congestions++;
        /* §5.2: "SHOULD set the min_rtt to the newest RTT sample after
         * persistent congestion is established". */
        r->min_rtt = r->latest_rtt;
    }
}

/* --- A.10: detecting lost packets ------------------------------------------- */

/* DetectAndRemoveLostPackets, reporting each through cb.lost and gathering
 * B.8's inputs in *b. Persistent congestion uses only this space's packets:
 * §7.6.2's MAY for "an implementation that cannot compare send times across
 * packet number spaces" (acknowledged packets leave no send time here). */
static void detect_and_remove_lost_packets(struct quic_recovery *r, enum quic_space space, uint64_t now,
                                           struct lost_batch *b)
{
    struct quic_rec_space *s = &r->space[space];
    uint64_t loss_delay, lost_send_time, last;

    memset(b, 0, sizeof *b);
    b->pc_duration = (r->smoothed_rtt + max64(4 * r->rttvar, QUIC_REC_GRANULARITY_NS) + r->max_ack_delay) *
                     QUIC_REC_PERSISTENT_CONGESTION_THRESHOLD;
    if (s->largest_acked == QUIC_PN_NONE)
        return; /* A.10 asserts it cannot be */
    s->loss_time = 0;
    /* kTimeThreshold 9/8 (§6.1.2): x + x / 8 is floor(9x / 8) without the overflow. */
    loss_delay = max64(r->latest_rtt, r->smoothed_rtt);
    loss_delay += loss_delay / 8;
    /* Minimum time of kGranularity before packets are deemed lost. */
    loss_delay = max64(loss_delay, QUIC_REC_GRANULARITY_NS);
    /* Packets sent before this time are deemed lost. Send times are >= 1,
     * so 0 ("now - loss_delay" before the clock's start) deems none lost. */
    lost_send_time = now > loss_delay ? now - loss_delay : 0;

    /* foreach unacked in sent_packets[pn_space] with packet_number <=
     * largest_acked_packet[pn_space] (those above are skipped). */
    last = min64(s->largest_acked, s->next_pn - 1);
    for (uint64_t pn = s->oldest; s->next_pn > 0 && pn <= last; pn++) {
        struct quic_sent *p = slot(s, pn);
        if (p->acked) {
            b->pc_start = 0; /* an acknowledged packet between two lost ones: §7.6.2 */
            continue;
        }
        if (p->time == 0)
            continue; /* declared lost before: unacknowledged, but no longer in sent_packets */
        /* Mark packet as lost, or set time when it should be marked. */
        if (p->time <= lost_send_time || s->largest_acked >= pn + QUIC_REC_PACKET_THRESHOLD) {
            note_lost(r, b, p);
            forget(s, p, false);
            if (r->cb.lost)
                r->cb.lost(r->ctx, space, pn);
        } else {
            uint64_t t = sat_add(p->time, loss_delay);
            if (s->loss_time == 0)
                s->loss_time = t;
            else
                s->loss_time = min64(s->loss_time, t);
        }
    }
}

/* --- the interface ------------------------------------------------------------ */

void quic_rec_init(struct quic_recovery *r, uint64_t max_datagram_size, const struct quic_rec_callbacks *cb,
                   void *ctx)
{
    memset(r, 0, sizeof *r);
    if (cb)
        r->cb = *cb;
    r->ctx = ctx;
    /* A.4 (loss_detection_timer.reset(), pto_count, latest_rtt, min_rtt,
     * first_rtt_sample, time_of_last_ack_eliciting_packet, loss_time: 0). */
    r->smoothed_rtt = QUIC_REC_INITIAL_RTT_NS;
    r->rttvar = QUIC_REC_INITIAL_RTT_NS / 2;
    for (int i = 0; i < QUIC_SPACES; i++)
        r->space[i].largest_acked = QUIC_PN_NONE;
    r->max_ack_delay = MAX_ACK_DELAY_DEFAULT_NS;
    /* B.3: congestion_window = kInitialWindow (§7.2), bytes_in_flight 0,
     * congestion_recovery_start_time 0, ssthresh infinite. */
    r->max_datagram_size = max_datagram_size;
    r->cwnd = min64(10 * max_datagram_size, max64(2 * max_datagram_size, INITIAL_WINDOW_BYTES));
    r->ssthresh = INFINITE;
}

bool quic_rec_can_send(const struct quic_recovery *r, enum quic_space space)
{
    const struct quic_rec_space *s = &r->space[space];
    return !s->discarded && s->next_pn - s->oldest < QUIC_REC_CAP;
}

uint64_t quic_rec_cwnd_room(const struct quic_recovery *r)
{
    uint64_t room = r->cwnd > r->bytes_in_flight ? r->cwnd - r->bytes_in_flight : 0;
    return r->send_one ? max64(room, r->max_datagram_size) : room;
}

/* A.5 OnPacketSent, with B.4 OnPacketSentCC. */
void quic_rec_on_sent(struct quic_recovery *r, enum quic_space space, uint64_t now, size_t bytes,
                      bool ack_eliciting, bool in_flight)
{
    struct quic_rec_space *s = &r->space[space];
    struct quic_sent *p;

    r->last_now = now;
    if (s->discarded)
        return;
    if (s->next_pn - s->oldest >= QUIC_REC_CAP) {
        /* The caller ignored quic_rec_can_send; see recovery.h. */
        struct quic_sent *old = slot(s, s->oldest);
        if (old->in_flight)
            r->bytes_in_flight -= old->bytes;
        forget(s, old, false);
        if (r->cb.lost)
            r->cb.lost(r->ctx, space, s->oldest);
        s->oldest++;
        advance_oldest(s);
    }
    p = slot(s, s->next_pn);
    p->time = now;
    p->bytes = (uint32_t)bytes;
    p->ack_eliciting = ack_eliciting;
    p->in_flight = in_flight || ack_eliciting;
    p->acked = false;
    s->next_pn++;
    if (p->in_flight) {
        r->send_one = false;
        if (ack_eliciting) {
            s->last_ack_eliciting_time = now;
            s->ack_eliciting_in_flight++;
        }
        r->bytes_in_flight += p->bytes; /* OnPacketSentCC */
        set_loss_detection_timer(r, now);
    }
}

/* A.7 OnAckReceived. */
int quic_rec_on_ack(struct quic_recovery *r, enum quic_space space, const struct quic_frame_ack *ack,
                    uint64_t ack_delay_ns, uint64_t now)
{
    struct quic_rec_space *s = &r->space[space];
    struct quic_ack_iter it;
    struct lost_batch lost;
    uint64_t lo, hi, newly = 0, largest_newly = 0;
    bool includes_ack_eliciting = false, validated_before;

    /* RFC 9000 §13.1: acknowledging a packet never sent. Ranges run down
     * from ack->largest, so it alone decides. */
    if (ack->largest >= s->next_pn)
        return -QUIC_PROTOCOL_VIOLATION;
    if (s->discarded)
        return 0;
    r->last_now = now;
    /* A.8 PeerCompletedAddressValidation: "has received Handshake ACK". */
    validated_before = peer_completed_address_validation(r);
    if (space == QUIC_SPACE_HANDSHAKE)
        r->peer_validated_address = true;

    if (s->largest_acked == QUIC_PN_NONE)
        s->largest_acked = ack->largest;
    else
        s->largest_acked = max64(s->largest_acked, ack->largest);

    /* DetectAndRemoveAckedPackets, first pass: flag the newly acknowledged
     * packets still in the ring. Ranges come largest first; those wholly
     * below oldest hold nothing outstanding, and end the walk. */
    quic_ack_iter_init(&it, ack);
    while (quic_ack_iter_next(&it, &lo, &hi) && hi >= s->oldest) {
        for (uint64_t pn = max64(lo, s->oldest); pn <= hi; pn++) {
            struct quic_sent *p = slot(s, pn);
            if (p->time == 0)
                continue; /* acknowledged or declared lost before */
            p->acked = true;
            newly++;
            largest_newly = max64(largest_newly, pn);
            if (p->ack_eliciting)
                includes_ack_eliciting = true;
        }
    }
    /* Nothing to do if there are no newly acked packets (but a first
     * Handshake ACK may have changed whether the anti-deadlock timer is
     * needed, A.8). */
    if (newly == 0) {
        if (!validated_before && peer_completed_address_validation(r))
            set_loss_detection_timer(r, now);
        return 0;
    }

    /* Update the RTT if the largest acknowledged is newly acked and at
     * least one ack-eliciting was newly acked (§5.1). Initial packets'
     * acknowledgments are not delayed: their ACK Delay is ignored (§5.3). */
    if (largest_newly == ack->largest && includes_ack_eliciting) {
        uint64_t sent = slot(s, largest_newly)->time;
        r->latest_rtt = now > sent ? now - sent : 0;
        update_rtt(r, space == QUIC_SPACE_INITIAL ? 0 : ack_delay_ns, now);
    }
    /* ProcessECN: not done (recovery.h). */

    detect_and_remove_lost_packets(r, space, now, &lost);
    if (lost.n > 0)
        on_packets_lost(r, &lost, now);

    /* B.5 OnPacketsAcked: DetectAndRemoveAckedPackets' second pass, over
     * the same ranges, empties the flagged slots. */
    quic_ack_iter_init(&it, ack);
    while (quic_ack_iter_next(&it, &lo, &hi) && hi >= s->oldest) {
        for (uint64_t pn = max64(lo, s->oldest); pn <= hi; pn++) {
            struct quic_sent *p = slot(s, pn);
            if (p->time == 0 || !p->acked)
                continue;
            on_packet_acked(r, p);
            forget(s, p, true);
            if (r->cb.acked)
                r->cb.acked(r->ctx, space, pn);
        }
    }
    advance_oldest(s);

    /* Reset pto_count unless the client is unsure if the server has
     * validated the client's address (§6.2.1). */
    if (peer_completed_address_validation(r))
        r->pto_count = 0;
    set_loss_detection_timer(r, now);
    return 0;
}

/* A.9 OnLossDetectionTimeout. */
void quic_rec_on_timeout(struct quic_recovery *r, uint64_t now)
{
    enum quic_space space;
    uint64_t earliest_loss_time;

    if (r->loss_timer == 0 || now < r->loss_timer)
        return;
    r->last_now = now;
    earliest_loss_time = get_loss_time_and_space(r, &space);
    if (earliest_loss_time != 0) {
        /* Time threshold loss detection. A.9 asserts packets are lost; an
         * RTT sample from another space since the loss time was set can
         * have lengthened loss_delay, and then it only re-arms. */
        struct lost_batch lost;
        detect_and_remove_lost_packets(r, space, now, &lost);
        if (lost.n > 0)
            on_packets_lost(r, &lost, now);
        advance_oldest(&r->space[space]);
        set_loss_detection_timer(r, now);
        return;
    }

    if (!any_ack_eliciting_in_flight(r)) {
        /* A.9 asserts !PeerCompletedAddressValidation (SetLossDetectionTimer
         * would not have armed the timer); should it be, there is nothing
         * to probe. */
        if (peer_completed_address_validation(r)) {
            set_loss_detection_timer(r, now);
            return;
        }
        /* Client sends an anti-deadlock packet: Initial is padded to earn
         * more anti-amplification credit, a Handshake packet proves address
         * ownership (§6.2.2.1). */
        space = r->handshake_keys ? QUIC_SPACE_HANDSHAKE : QUIC_SPACE_INITIAL;
        r->probes_due[space] = 1;
    } else {
        /* PTO. Send new data if available, else retransmit old data. If
         * neither is available, send a single PING frame (§6.2.4). */
        get_pto_time_and_space(r, now, &space);
        r->probes_due[space] = 2;
    }
    r->pto_count++;
    r->pto_fired++;
    set_loss_detection_timer(r, now);
    /* A timer that woke up late can find the next, doubled, PTO already
     * due (A.8: "Timers set in the past fire immediately"), and a second
     * call at the same `now` would fire it before any probe went out. Each
     * expiry fires once: the next PTO counts from now, as if the probes it
     * asked for were sent now (the probes' on_sent re-arms it anyway). */
    if (r->loss_timer != 0 && r->loss_timer <= now)
        r->loss_timer = sat_add(now, backoff(quic_rec_pto_period(r, space), r->pto_count));
}

void quic_rec_probe_sent(struct quic_recovery *r, enum quic_space space)
{
    if (r->probes_due[space] > 0)
        r->probes_due[space]--;
}

/* A.11 OnPacketNumberSpaceDiscarded, with B.9 RemoveFromBytesInFlight. */
void quic_rec_discard_space(struct quic_recovery *r, enum quic_space space)
{
    struct quic_rec_space *s = &r->space[space];

    if (s->discarded)
        return;
    /* RemoveFromBytesInFlight(sent_packets[pn_space]). */
    for (uint64_t pn = s->oldest; pn < s->next_pn; pn++) {
        struct quic_sent *p = slot(s, pn);
        if (p->time != 0 && p->in_flight)
            r->bytes_in_flight -= p->bytes;
    }
    /* sent_packets[pn_space].clear() */
    memset(s->sent, 0, sizeof s->sent);
    s->oldest = s->next_pn;
    s->ack_eliciting_in_flight = 0;
    /* Reset the loss detection and PTO timer. */
    s->last_ack_eliciting_time = 0;
    s->loss_time = 0;
    r->pto_count = 0;
    r->probes_due[space] = 0;
    s->discarded = true;
    set_loss_detection_timer(r, r->last_now);
}

void quic_rec_set_max_ack_delay(struct quic_recovery *r, uint64_t ns)
{
    r->max_ack_delay = ns;
}

void quic_rec_set_handshake_keys(struct quic_recovery *r)
{
    r->handshake_keys = true;
}

void quic_rec_set_handshake_confirmed(struct quic_recovery *r, uint64_t now)
{
    r->last_now = now;
    r->handshake_confirmed = true;
    r->peer_validated_address = true;
    set_loss_detection_timer(r, now);
}

uint64_t quic_rec_pto_period(const struct quic_recovery *r, enum quic_space space)
{
    uint64_t pto = r->smoothed_rtt + max64(4 * r->rttvar, QUIC_REC_GRANULARITY_NS);
    if (space == QUIC_SPACE_APP && r->handshake_confirmed)
        pto += r->max_ack_delay;
    return pto;
}
