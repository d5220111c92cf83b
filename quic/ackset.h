/* quic/ackset.h — the packet numbers received in one packet number space,
 * as ACK ranges (RFC 9000 §13.2.3), for duplicate detection (§12.3) and for
 * quic_frame_enc_ack.
 *
 * Its own module rather than part of frame.c: frame.c is a stateless wire
 * codec, this is per-space connection state with its own policy (what to
 * forget when full). Fixed capacity, no allocation: the struct is embedded
 * in the connection, one per packet number space.
 *
 * Use: after a packet decrypts, quic_ackset_check(pn) says whether to drop
 * it (§12.3: duplicate suppression after removing packet protection); once
 * its frames are processed (§13.1: not acknowledged before),
 * quic_ackset_insert(pn) records it. The ACK frame is then
 * quic_frame_enc_ack(out, room, set.r, set.n, delay, NULL, &k). The largest
 * packet number received and when it arrived (for ACK Delay and packet
 * number decoding, §17.1) are the caller's to keep. */
#ifndef SHB_QUIC_ACKSET_H
#define SHB_QUIC_ACKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic/frame.h"

#define QUIC_ACKSET_CAP 32 /* ranges kept; one ACK frame of 32 ranges is ~70-250 bytes */

struct quic_ackset {
    /* Ascending, disjoint and never adjacent (r[i].hi + 1 < r[i+1].lo):
     * exactly the order quic_frame_enc_ack takes. */
    struct quic_ack_range r[QUIC_ACKSET_CAP];
    size_t n;
    /* Packet numbers below floor are refused: their ranges were forgotten,
     * so a duplicate could no longer be recognised. §13.2.3: "Maintaining a
     * minimum packet number that increases as ranges are discarded". */
    uint64_t floor;
};

enum quic_ackset_result {
    QUIC_ACKSET_NEW = 0,     /* not seen: process it (insert: recorded) */
    QUIC_ACKSET_DUP = 1,     /* seen before: drop the packet (§12.3) */
    QUIC_ACKSET_TOO_OLD = 2, /* below what the set can still vouch for: drop it too */
};

void quic_ackset_init(struct quic_ackset *s);

/* What quic_ackset_insert(s, pn) would return, changing nothing. pn < 2^62. */
enum quic_ackset_result quic_ackset_check(const struct quic_ackset *s, uint64_t pn);

/* Records pn. When the set is full and pn needs a range of its own, the
 * oldest range is forgotten and floor moves past it (§13.2.3: older ranges
 * are the ones left out); if pn itself would be that oldest range it is
 * refused as QUIC_ACKSET_TOO_OLD and nothing changes. */
enum quic_ackset_result quic_ackset_insert(struct quic_ackset *s, uint64_t pn);

/* Forgets every packet number below pn and refuses them from now on. For
 * §13.2.4: once an ACK frame we sent is itself acknowledged, the packets up
 * to its Largest Acknowledged L need not be acknowledged again, so the
 * caller calls quic_ackset_drop_below(s, L + 1). A late packet in a gap
 * below is then refused as QUIC_ACKSET_TOO_OLD (§13.2.3). */
void quic_ackset_drop_below(struct quic_ackset *s, uint64_t pn);

/* The largest packet number in the set; false when it is empty. */
bool quic_ackset_largest(const struct quic_ackset *s, uint64_t *pn);

#endif
