/* quic/recovery.h — QUIC loss detection and congestion control for a client
 * (RFC 9002): RTT estimation (§5), packet- and time-threshold loss detection
 * (§6.1), the probe timeout (§6.2), and NewReno (§7, Appendix B).
 *
 * Sans-I/O: no syscalls, no clock (every call takes `now`, nanoseconds on
 * the caller's monotonic clock), no allocation: the struct is embedded in
 * the connection, with a fixed ring of sent-packet records per packet
 * number space.
 *
 * The connection (quic/conn.c) owns what each packet carried. It records
 * every packet it sends with quic_rec_on_sent (packet numbers of one space
 * strictly increasing, consecutive: pn = previous + 1, starting at 0), and
 * learns through the callbacks which of them were acknowledged or declared
 * lost, by space and packet number, so it can keep a parallel ring of its
 * own indexed by pn % QUIC_REC_CAP.
 *
 * NewReno, not CUBIC: a load generator's client sends small requests and
 * receives the bulk, so its congestion controller mostly decides how fast
 * requests may go out after a loss; NewReno is RFC 9002's own, has no
 * clock-dependent growth function, and is what a reader can check against
 * Appendix B line by line. Bursts are limited by the caller (at most one
 * batch of datagrams per send).
 *
 * Times: `now` and every time kept here are nanoseconds on one monotonic
 * clock, and 0 means "none" (A.3's convention: loss_time 0, first_rtt_sample
 * 0, an empty ring slot), so a caller never passes now == 0 (a clock that
 * starts at 0 is offset by a second, as the unit test's does).
 *
 * The callbacks report each packet leaving the ring exactly once, acked or
 * lost, ACK-only packets included (the connection ignores those). They run
 * inside quic_rec_on_ack / quic_rec_on_timeout (and quic_rec_on_sent in the
 * misuse case it describes) and must not call back into this module. Within
 * one ACK, the lost packets are reported before the acknowledged ones, the
 * order of Appendix A.7 (OnPacketsLost, then OnPacketsAcked).
 *
 * Not done here: ECN (Appendix B.7; shb never sends ECT-marked packets, so a
 * peer's ECN counts carry no signal, RFC 9000 §13.4.2) and pacing (§7.7).
 * B.6's MaybeSendOnePacket is done: entering recovery sets send_one, which
 * lets one packet past a full congestion window (§7.3.2). It matters: a
 * client whose Finished is lost while the window is full of 1-RTT packets
 * the server cannot read yet has no PTO for them (§6.2.1: none for
 * ApplicationData before the handshake is confirmed) and no room to send
 * the Finished again — without that one packet the connection waits
 * forever. */
#ifndef SHB_QUIC_RECOVERY_H
#define SHB_QUIC_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic/frame.h"

/* Packet number spaces (RFC 9000 §12.3). */
enum quic_space { QUIC_SPACE_INITIAL = 0, QUIC_SPACE_HANDSHAKE = 1, QUIC_SPACE_APP = 2, QUIC_SPACES = 3 };

/* Sent packets remembered per space (a power of two). A packet leaves the
 * ring when acknowledged or declared lost; when the oldest one is still
 * outstanding and the ring is full, quic_rec_can_send says no. */
#define QUIC_REC_CAP 512u

/* RFC 9002 §6.1.1, §6.1.2, §6.2.2, Appendix A.2, B.1 constants. */
#define QUIC_REC_PACKET_THRESHOLD 3
#define QUIC_REC_GRANULARITY_NS 1000000ull         /* kGranularity: 1 ms */
#define QUIC_REC_INITIAL_RTT_NS 333000000ull       /* kInitialRtt: 333 ms */
#define QUIC_REC_PERSISTENT_CONGESTION_THRESHOLD 3

/* One sent packet. */
struct quic_sent {
    uint64_t time;       /* when it was sent; 0: slot empty (acknowledged, lost or never used) */
    uint32_t bytes;      /* its size on the wire (counts towards bytes_in_flight when in_flight) */
    bool ack_eliciting;
    bool in_flight;      /* ack-eliciting or padding (§2: "in flight") */
    /* An empty slot (time 0) of pn in [oldest, next_pn): it left the ring
     * acknowledged (true) or declared lost (false), which persistent
     * congestion needs (§7.6.2: no packet sent between two lost ones may
     * have been acknowledged). During quic_rec_on_ack, a slot with time != 0
     * and acked set is newly acknowledged by the frame being processed. */
    bool acked;
};

struct quic_rec_space {
    struct quic_sent sent[QUIC_REC_CAP]; /* indexed by pn % QUIC_REC_CAP */
    uint64_t next_pn;        /* the packet number the next packet sent will have */
    uint64_t oldest;         /* smallest pn that may still be outstanding (the ring's tail) */
    uint64_t largest_acked;  /* QUIC_PN_NONE (quic/packet.h) before any ACK */
    uint64_t loss_time;      /* time-threshold loss timer of this space, 0 = none */
    uint64_t last_ack_eliciting_time; /* time_of_last_ack_eliciting_packet, 0 = none */
    uint32_t ack_eliciting_in_flight;
    bool discarded;          /* its keys are gone: nothing more is sent or detected here
                                (quic_rec_can_send says no, quic_rec_on_sent and
                                quic_rec_on_ack ignore the space) */
};

/* What the connection is told about each packet leaving the ring. */
struct quic_rec_callbacks {
    void (*acked)(void *ctx, enum quic_space space, uint64_t pn);
    void (*lost)(void *ctx, enum quic_space space, uint64_t pn);
};

struct quic_recovery {
    struct quic_rec_space space[QUIC_SPACES];
    struct quic_rec_callbacks cb;
    void *ctx;
    /* RTT (§5), nanoseconds. */
    uint64_t latest_rtt, smoothed_rtt, rttvar, min_rtt;
    uint64_t first_rtt_sample; /* time of the first sample, 0 = none yet */
    uint64_t max_ack_delay;    /* the peer's max_ack_delay, ns (set after its transport parameters;
                                  until then RFC 9000 §18.2's default, 25 ms) */
    /* Loss detection timer (§6.2, Appendix A). */
    unsigned pto_count;
    uint64_t loss_timer;       /* when quic_rec_on_timeout must next be called; 0 = not armed */
    bool handshake_confirmed;  /* RFC 9001 §4.1.2: HANDSHAKE_DONE received (client) */
    bool peer_validated_address; /* §6.2.2.1, Appendix A.6: peer_completed_address_validation —
                                    for a client, set here once an ACK arrives in the Handshake
                                    space, or when the handshake is confirmed */
    bool handshake_keys;       /* the connection has Handshake keys (where the anti-deadlock
                                  probe goes, §6.2.2.1) */
    /* Congestion control: NewReno (§7, Appendix B). */
    uint64_t max_datagram_size;
    uint64_t cwnd, ssthresh, bytes_in_flight;
    uint64_t recovery_start;   /* congestion_recovery_start_time, 0 = not in recovery */
    uint64_t ca_bytes_acked;   /* congestion avoidance by byte counting (B.5's note, RFC 3465
                                  §2.1): bytes acked since cwnd last grew by max_datagram_size */
    bool send_one;             /* B.6 MaybeSendOnePacket: one packet may go out whatever the
                                  window says (set on entering recovery, cleared by the next
                                  in-flight packet sent) */
    bool app_limited;          /* the connection sets it while it sends less than cwnd allows
                                  (§7.8, B.5's IsAppOrFlowControlLimited): acks then do not grow
                                  cwnd. false (the initial value) is Appendix B as written. */
    uint64_t last_now;         /* the latest `now` passed in, for quic_rec_discard_space */
    /* Counters for the report. packets_lost counts in-flight packets declared
     * lost (what congestion control reacts to); lost ACK-only packets are
     * reported through cb.lost but not counted. */
    uint64_t packets_lost, pto_fired, persistent_congestions;
    /* Probes owed per space by the last PTO (§6.2.4: one or two
     * ack-eliciting packets); the connection sends them and calls
     * quic_rec_probe_sent for each. A PTO sets 2 in its space, in every
     * space alike (§6.2.4: two packets make a lost datagram less likely to
     * cost another, doubled, PTO); the anti-deadlock PTO sets 1 (Appendix
     * A.9: one padded Initial or one Handshake packet). */
    unsigned probes_due[QUIC_SPACES];
};

/* max_datagram_size: the size the connection sends (1200 before anything
 * is known). cwnd starts at min(10 * size, max(2 * size, 14720)) (§7.2). */
void quic_rec_init(struct quic_recovery *r, uint64_t max_datagram_size, const struct quic_rec_callbacks *cb,
                   void *ctx);

/* Records packet pn (= space's next_pn, which then advances) sent now.
 * Call only when quic_rec_can_send(space). Updates bytes_in_flight and the
 * loss detection timer (§6.2.1: armed on ack-eliciting packets). An
 * ack-eliciting packet is in flight whatever in_flight says (§2). In a
 * discarded space it does nothing. Called on a full ring anyway, it still
 * advances next_pn (the connection may be using it as its packet number)
 * and makes room by reporting the oldest packet lost (no congestion event),
 * so every packet is still reported exactly once. */
void quic_rec_on_sent(struct quic_recovery *r, enum quic_space space, uint64_t now, size_t bytes,
                      bool ack_eliciting, bool in_flight);

/* Room in the sent ring for one more packet in this space (false once the
 * space is discarded). */
bool quic_rec_can_send(const struct quic_recovery *r, enum quic_space space);

/* Bytes the congestion window lets be sent now (cwnd - bytes_in_flight,
 * 0 when full; at least max_datagram_size while send_one is set). Probes
 * (probes_due) may be sent regardless (§7.5). */
uint64_t quic_rec_cwnd_room(const struct quic_recovery *r);

/* An ACK frame received in `space` (ack_delay_ns: the frame's ACK Delay
 * already scaled by the peer's ack_delay_exponent, in ns). Walks its
 * ranges (quic_ack_iter), calls cb.acked for every outstanding packet they
 * cover (each exactly once; a packet already acknowledged or declared lost
 * is not reported again), takes an RTT sample when the largest acknowledged
 * is newly acknowledged and ack-eliciting packets were among the newly
 * acknowledged (§5.1; ack_delay capped by max_ack_delay once the handshake
 * is confirmed, ignored in Initial packets, §5.3), runs loss detection
 * (§6.1: cb.lost for each packet declared lost), updates the congestion
 * controller (Appendix B.5-B.8, persistent congestion §7.6), resets
 * pto_count (§6.2.1, except while the peer has not validated our address:
 * Appendix A.7) and re-arms the timer. An ACK in the Handshake space sets
 * peer_validated_address (A.8's PeerCompletedAddressValidation: "has
 * received Handshake ACK"). Returns 0, or -QUIC_PROTOCOL_VIOLATION when the
 * frame acknowledges a packet number never sent in this space (>= next_pn;
 * RFC 9000 §13.1), and then nothing has changed. An ACK in a discarded
 * space is otherwise ignored (0). */
int quic_rec_on_ack(struct quic_recovery *r, enum quic_space space, const struct quic_frame_ack *ack,
                    uint64_t ack_delay_ns, uint64_t now);

/* The loss detection timer (loss_timer) passed: either time-threshold loss
 * detection (cb.lost) or a PTO: pto_count grows, and probes_due says which
 * space owes one or two probes (§6.2.4; the anti-deadlock case of §6.2.2.1
 * when nothing is in flight). A PTO fires exactly once per expiry: the timer
 * is re-armed from the new pto_count, so calling this again before loss_timer
 * does nothing; should the re-armed deadline already have passed (a timer
 * that woke up late), the next PTO is counted from now instead. */
void quic_rec_on_timeout(struct quic_recovery *r, uint64_t now);

/* A probe owed by the last PTO in this space was sent (decrements
 * probes_due[space]; call after quic_rec_on_sent). */
void quic_rec_probe_sent(struct quic_recovery *r, enum quic_space space);

/* The keys of a space are discarded (RFC 9001 §4.9, RFC 9002 §6.4): its
 * packets leave bytes_in_flight without being reported acked or lost, its
 * loss state goes, pto_count is reset, the timer re-armed (from last_now:
 * an anti-deadlock PTO starts from the current time, A.8, and the discard
 * comes right after the send or receive that caused it). */
void quic_rec_discard_space(struct quic_recovery *r, enum quic_space space);

/* State the connection learns: the peer's max_ack_delay (ns); Handshake
 * keys installed; the handshake confirmed (also sets peer_validated_address,
 * and re-arms the timer: ApplicationData PTO is armed only after it). */
void quic_rec_set_max_ack_delay(struct quic_recovery *r, uint64_t ns);
void quic_rec_set_handshake_keys(struct quic_recovery *r);
void quic_rec_set_handshake_confirmed(struct quic_recovery *r, uint64_t now);

/* The probe timeout's period right now (§6.2.1, without backoff): smoothed_rtt
 * + max(4 * rttvar, kGranularity) (+ max_ack_delay for ApplicationData once
 * confirmed). Also what the connection uses for 3 * PTO (closing period). */
uint64_t quic_rec_pto_period(const struct quic_recovery *r, enum quic_space space);

#endif
