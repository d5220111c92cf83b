/* quic/frame.c — QUIC v1 frame decoder, frame-type rules and client-side
 * encoders (RFC 9000 §12.4, §19). See frame.h for the contracts.
 *
 * The decoder reads every field through a checked cursor (quic_varint_get
 * and take() below) and only moves the caller's cursor once the whole frame
 * has been read and checked, so a truncated or invalid frame leaves nothing
 * half-consumed. Encoders chain NULL-propagating writers: the first field
 * that does not fit turns the rest into no-ops and the frame into a 0. */
#include "quic/frame.h"

#include <string.h>

#include "quic/varint.h"

#define FEE (-QUIC_FRAME_ENCODING_ERROR)

/* --- decoding ------------------------------------------------------------- */

static bool get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    return quic_varint_get(p, end, v) == 0;
}

/* n raw bytes at *p: their start in *out; false when fewer remain. */
static bool take(const uint8_t **p, const uint8_t *end, uint64_t n, const uint8_t **out)
{
    if (n > (uint64_t)(end - *p))
        return false;
    *out = *p;
    *p += n;
    return true;
}

/* The ACK frame after its type (§19.3). Walks the ranges once to find the
 * frame's end, checking the §19.3.1 arithmetic on the way: a range whose
 * packet numbers would go below 0 is a FRAME_ENCODING_ERROR. */
static int dec_ack(const uint8_t **pp, const uint8_t *end, struct quic_frame_ack *a, bool ecn)
{
    const uint8_t *p = *pp;
    uint64_t smallest;

    if (!get(&p, end, &a->largest) || !get(&p, end, &a->ack_delay) || !get(&p, end, &a->range_count) ||
        !get(&p, end, &a->first_range))
        return FEE;
    /* §19.3.1: smallest = largest - ack_range, never negative. */
    if (a->first_range > a->largest)
        return FEE;
    smallest = a->largest - a->first_range;
    a->ranges = p;
    /* Each range takes at least 2 bytes, so the loop ends with the input
     * even for an absurd range_count (§20.1: "more acknowledgment ranges
     * than the remainder of the packet could carry"). */
    for (uint64_t i = 0; i < a->range_count; i++) {
        uint64_t gap, len, hi;
        if (!get(&p, end, &gap) || !get(&p, end, &len))
            return FEE;
        /* §19.3.1: largest = previous_smallest - gap - 2; smallest =
         * largest - ack_range; both must stay >= 0. */
        if (gap + 2 > smallest)
            return FEE;
        hi = smallest - gap - 2;
        if (len > hi)
            return FEE;
        smallest = hi - len;
    }
    a->ranges_end = p;
    a->smallest = smallest;
    a->ecn = ecn;
    if (ecn && (!get(&p, end, &a->ect0) || !get(&p, end, &a->ect1) || !get(&p, end, &a->ce)))
        return FEE;
    *pp = p;
    return 0;
}

/* The frame body after its one-byte type; *pp is advanced only on success. */
static int dec_body(const uint8_t **pp, const uint8_t *end, struct quic_frame *f)
{
    const uint8_t *p = *pp;
    uint64_t t = f->type, v;

    switch (t) {
    case QUIC_FT_PADDING: {
        /* A run of PADDING is one frame to the caller: one call, not one per byte. */
        size_t n = 1;
        while (p < end && *p == 0) {
            p++;
            n++;
        }
        f->kind = QUIC_FT_PADDING;
        f->padding.len = n;
        break;
    }
    case QUIC_FT_PING:
    case QUIC_FT_HANDSHAKE_DONE:
        f->kind = (uint8_t)t;
        break;
    case QUIC_FT_ACK:
    case QUIC_FT_ACK_ECN: {
        int r = dec_ack(&p, end, &f->ack, t == QUIC_FT_ACK_ECN);
        if (r)
            return r;
        f->kind = QUIC_FT_ACK;
        break;
    }
    case QUIC_FT_RESET_STREAM:
        if (!get(&p, end, &f->reset_stream.stream_id) || !get(&p, end, &f->reset_stream.error_code) ||
            !get(&p, end, &f->reset_stream.final_size))
            return FEE;
        f->kind = QUIC_FT_RESET_STREAM;
        break;
    case QUIC_FT_STOP_SENDING:
        if (!get(&p, end, &f->stop_sending.stream_id) || !get(&p, end, &f->stop_sending.error_code))
            return FEE;
        f->kind = QUIC_FT_STOP_SENDING;
        break;
    case QUIC_FT_CRYPTO:
        if (!get(&p, end, &f->crypto.offset) || !get(&p, end, &v) || !take(&p, end, v, &f->crypto.data))
            return FEE;
        f->crypto.len = (size_t)v;
        /* §19.6: offset + length beyond 2^62-1 is FRAME_ENCODING_ERROR (or CRYPTO_BUFFER_EXCEEDED). */
        if (f->crypto.offset + v > QUIC_MAX_OFFSET)
            return FEE;
        f->kind = QUIC_FT_CRYPTO;
        break;
    case QUIC_FT_NEW_TOKEN:
        if (!get(&p, end, &v) || !take(&p, end, v, &f->new_token.token))
            return FEE;
        /* §19.7: an empty token is a FRAME_ENCODING_ERROR. */
        if (v == 0)
            return FEE;
        f->new_token.len = (size_t)v;
        f->kind = QUIC_FT_NEW_TOKEN;
        break;
    case 0x08: case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x0e: case 0x0f:
        if (!get(&p, end, &f->stream.stream_id))
            return FEE;
        f->stream.offset = 0;
        if ((t & QUIC_STREAM_BIT_OFF) && !get(&p, end, &f->stream.offset))
            return FEE;
        if (t & QUIC_STREAM_BIT_LEN) {
            if (!get(&p, end, &v))
                return FEE;
        } else {
            v = (uint64_t)(end - p); /* §19.8: no Length: the data runs to the end of the packet */
        }
        if (!take(&p, end, v, &f->stream.data))
            return FEE;
        f->stream.len = (size_t)v;
        f->stream.fin = (t & QUIC_STREAM_BIT_FIN) != 0;
        /* §19.8: offset + length beyond 2^62-1 is FRAME_ENCODING_ERROR (or FLOW_CONTROL_ERROR). */
        if (f->stream.offset + v > QUIC_MAX_OFFSET)
            return FEE;
        f->kind = QUIC_FT_STREAM;
        break;
    case QUIC_FT_MAX_DATA:
        if (!get(&p, end, &f->max_data.max))
            return FEE;
        f->kind = QUIC_FT_MAX_DATA;
        break;
    case QUIC_FT_MAX_STREAM_DATA:
        if (!get(&p, end, &f->max_stream_data.stream_id) || !get(&p, end, &f->max_stream_data.max))
            return FEE;
        f->kind = QUIC_FT_MAX_STREAM_DATA;
        break;
    case 0x12: case 0x13:
        if (!get(&p, end, &f->max_streams.max))
            return FEE;
        /* §19.11: a limit above 2^60 is FRAME_ENCODING_ERROR. */
        if (f->max_streams.max > QUIC_MAX_STREAMS_LIMIT)
            return FEE;
        f->max_streams.uni = t == 0x13;
        f->kind = QUIC_FT_MAX_STREAMS;
        break;
    case QUIC_FT_DATA_BLOCKED:
        if (!get(&p, end, &f->data_blocked.limit))
            return FEE;
        f->kind = QUIC_FT_DATA_BLOCKED;
        break;
    case QUIC_FT_STREAM_DATA_BLOCKED:
        if (!get(&p, end, &f->stream_data_blocked.stream_id) || !get(&p, end, &f->stream_data_blocked.limit))
            return FEE;
        f->kind = QUIC_FT_STREAM_DATA_BLOCKED;
        break;
    case 0x16: case 0x17:
        if (!get(&p, end, &f->streams_blocked.limit))
            return FEE;
        /* §19.14: above 2^60 is STREAM_LIMIT_ERROR or FRAME_ENCODING_ERROR; we pick the latter. */
        if (f->streams_blocked.limit > QUIC_MAX_STREAMS_LIMIT)
            return FEE;
        f->streams_blocked.uni = t == 0x17;
        f->kind = QUIC_FT_STREAMS_BLOCKED;
        break;
    case QUIC_FT_NEW_CONNECTION_ID: {
        const uint8_t *len;
        if (!get(&p, end, &f->new_cid.seq) || !get(&p, end, &f->new_cid.retire_prior_to) || !take(&p, end, 1, &len))
            return FEE;
        /* §19.15: a length outside 1..20 is FRAME_ENCODING_ERROR. */
        if (*len < 1 || *len > QUIC_MAX_CID_LEN)
            return FEE;
        f->new_cid.cid_len = *len;
        if (!take(&p, end, *len, &f->new_cid.cid) || !take(&p, end, 16, &f->new_cid.reset_token))
            return FEE;
        /* §19.15: Retire Prior To above Sequence Number is FRAME_ENCODING_ERROR. */
        if (f->new_cid.retire_prior_to > f->new_cid.seq)
            return FEE;
        f->kind = QUIC_FT_NEW_CONNECTION_ID;
        break;
    }
    case QUIC_FT_RETIRE_CONNECTION_ID:
        if (!get(&p, end, &f->retire_cid.seq))
            return FEE;
        f->kind = QUIC_FT_RETIRE_CONNECTION_ID;
        break;
    case QUIC_FT_PATH_CHALLENGE:
    case QUIC_FT_PATH_RESPONSE:
        if (!take(&p, end, 8, &f->path.data))
            return FEE;
        f->kind = (uint8_t)t;
        break;
    case QUIC_FT_CONNECTION_CLOSE:
    case QUIC_FT_CONNECTION_CLOSE_APP: {
        const uint8_t *reason;
        f->close.app = t == QUIC_FT_CONNECTION_CLOSE_APP;
        f->close.frame_type = 0;
        if (!get(&p, end, &f->close.error_code))
            return FEE;
        /* §19.19: only type 0x1c carries the Frame Type field. */
        if (!f->close.app && !get(&p, end, &f->close.frame_type))
            return FEE;
        if (!get(&p, end, &v) || !take(&p, end, v, &reason))
            return FEE;
        f->close.reason = reason;
        f->close.reason_len = (size_t)v;
        f->kind = QUIC_FT_CONNECTION_CLOSE;
        break;
    }
    default:
        /* §12.4: a frame of unknown type is a FRAME_ENCODING_ERROR. */
        return FEE;
    }
    *pp = p;
    return 0;
}

int quic_frame_next(const uint8_t **pp, const uint8_t *end, struct quic_frame *f)
{
    const uint8_t *p = *pp;
    uint64_t t;
    int r;

    memset(f, 0, sizeof *f);
    if (p >= end)
        return FEE;
    if (*p >= 0x40) {
        /* A type on 2+ bytes: every type this version defines fits in one
         * byte, and §12.4 requires the shortest encoding. A known type
         * spelled longer MAY be a PROTOCOL_VIOLATION; anything else is a
         * type we do not know (FRAME_ENCODING_ERROR). */
        if (!get(&p, end, &t))
            return FEE;
        f->type = t;
        return t <= QUIC_FT_HANDSHAKE_DONE ? -QUIC_PROTOCOL_VIOLATION : FEE;
    }
    f->type = *p++;
    r = dec_body(&p, end, f);
    if (r)
        return r;
    *pp = p;
    return 0;
}

void quic_ack_iter_init(struct quic_ack_iter *it, const struct quic_frame_ack *ack)
{
    it->p = ack->ranges;
    it->end = ack->ranges_end;
    it->left = ack->range_count;
    it->largest = ack->largest;
    it->first_range = ack->first_range;
    it->prev_lo = 0;
    it->started = false;
}

bool quic_ack_iter_next(struct quic_ack_iter *it, uint64_t *lo, uint64_t *hi)
{
    uint64_t gap, len, h;

    if (!it->started) {
        if (it->first_range > it->largest)
            return false;
        it->started = true;
        *hi = it->largest;
        *lo = it->prev_lo = it->largest - it->first_range;
        return true;
    }
    if (it->left == 0 || !get(&it->p, it->end, &gap) || !get(&it->p, it->end, &len))
        return false;
    /* Checked again (quic_frame_next did it already) so that a hand-made
     * struct cannot make this wrap. §19.3.1. */
    if (gap + 2 > it->prev_lo)
        return false;
    h = it->prev_lo - gap - 2;
    if (len > h)
        return false;
    it->left--;
    *hi = h;
    *lo = it->prev_lo = h - len;
    return true;
}

/* --- frame-type rules ----------------------------------------------------- */

#define I_ QUIC_FRAME_IN_INITIAL
#define Z_ QUIC_FRAME_IN_0RTT
#define H_ QUIC_FRAME_IN_HANDSHAKE
#define O_ QUIC_FRAME_IN_1RTT

/* RFC 9000 §12.4 Table 3: the "Pkts" column as a mask, and whether the
 * frame is ack-eliciting (not marked "N"; §13.2.1). §12.5 explains the
 * packet types: PADDING, PING, CRYPTO, ACK and CONNECTION_CLOSE 0x1c may go
 * in Initial and Handshake packets. §12.5's prose also keeps
 * RETIRE_CONNECTION_ID out of 0-RTT where the table says "__01"; the table
 * is followed here (a client never receives 0-RTT packets anyway). */
static const struct {
    uint8_t pkts;
    bool eliciting;
} frame_rules[] = {
    /* type                             pkts                 ack-eliciting */
    [QUIC_FT_PADDING]              = { I_ | H_ | Z_ | O_, false }, /* IH01 NP */
    [QUIC_FT_PING]                 = { I_ | H_ | Z_ | O_, true },  /* IH01    */
    [QUIC_FT_ACK]                  = { I_ | H_ | O_,      false }, /* IH_1 NC */
    [QUIC_FT_ACK_ECN]              = { I_ | H_ | O_,      false }, /* IH_1 NC */
    [QUIC_FT_RESET_STREAM]         = { Z_ | O_,           true },  /* __01    */
    [QUIC_FT_STOP_SENDING]         = { Z_ | O_,           true },  /* __01    */
    [QUIC_FT_CRYPTO]               = { I_ | H_ | O_,      true },  /* IH_1    */
    [QUIC_FT_NEW_TOKEN]            = { O_,                true },  /* ___1    */
    [0x08]                         = { Z_ | O_,           true },  /* STREAM __01 F, 0x08-0x0f */
    [0x09]                         = { Z_ | O_,           true },
    [0x0a]                         = { Z_ | O_,           true },
    [0x0b]                         = { Z_ | O_,           true },
    [0x0c]                         = { Z_ | O_,           true },
    [0x0d]                         = { Z_ | O_,           true },
    [0x0e]                         = { Z_ | O_,           true },
    [0x0f]                         = { Z_ | O_,           true },
    [QUIC_FT_MAX_DATA]             = { Z_ | O_,           true },  /* __01    */
    [QUIC_FT_MAX_STREAM_DATA]      = { Z_ | O_,           true },  /* __01    */
    [0x12]                         = { Z_ | O_,           true },  /* MAX_STREAMS __01 */
    [0x13]                         = { Z_ | O_,           true },
    [QUIC_FT_DATA_BLOCKED]         = { Z_ | O_,           true },  /* __01    */
    [QUIC_FT_STREAM_DATA_BLOCKED]  = { Z_ | O_,           true },  /* __01    */
    [0x16]                         = { Z_ | O_,           true },  /* STREAMS_BLOCKED __01 */
    [0x17]                         = { Z_ | O_,           true },
    [QUIC_FT_NEW_CONNECTION_ID]    = { Z_ | O_,           true },  /* __01 P  */
    [QUIC_FT_RETIRE_CONNECTION_ID] = { Z_ | O_,           true },  /* __01    */
    [QUIC_FT_PATH_CHALLENGE]       = { Z_ | O_,           true },  /* __01 P  */
    [QUIC_FT_PATH_RESPONSE]        = { O_,                true },  /* ___1 P  */
    [QUIC_FT_CONNECTION_CLOSE]     = { I_ | H_ | Z_ | O_, false }, /* ih01 N: 0x1c anywhere */
    [QUIC_FT_CONNECTION_CLOSE_APP] = { Z_ | O_,           false }, /* ih01 N: 0x1d only 0-RTT/1-RTT */
    [QUIC_FT_HANDSHAKE_DONE]       = { O_,                true },  /* ___1    */
};

#undef I_
#undef Z_
#undef H_
#undef O_

bool quic_frame_allowed(uint64_t type, unsigned pkt)
{
    if (type >= sizeof frame_rules / sizeof frame_rules[0])
        return false;
    return (frame_rules[type].pkts & pkt) != 0;
}

bool quic_frame_ack_eliciting(uint64_t type)
{
    /* An unknown type is an error before this matters; §19.21 says
     * extension frames elicit ACKs, so default to true. */
    if (type >= sizeof frame_rules / sizeof frame_rules[0])
        return true;
    return frame_rules[type].eliciting;
}

/* --- encoding ------------------------------------------------------------- */

static uint8_t *put_byte(uint8_t *w, const uint8_t *end, uint8_t b)
{
    if (w == NULL || w >= end)
        return NULL;
    *w = b;
    return w + 1;
}

static uint8_t *put_bytes(uint8_t *w, const uint8_t *end, const void *src, size_t n)
{
    if (w == NULL || n > (size_t)(end - w))
        return NULL;
    if (n)
        memcpy(w, src, n);
    return w + n;
}

/* quic_varint_put, NULL-propagating (it already returns NULL for a NULL w). */
#define put_vi quic_varint_put

static size_t done(const uint8_t *w, const uint8_t *out)
{
    return w ? (size_t)(w - out) : 0;
}

/* The most data bytes a Length field plus its data can carry in avail
 * bytes: for each varint size, the largest count it can express that
 * leaves room for itself. The minimal encoding of the answer is never
 * longer than the size that produced it. */
static size_t fit_with_length(size_t avail, size_t len)
{
    static const uint64_t cap[4] = { 63, 16383, 1073741823, QUIC_VARINT_MAX };
    size_t best = 0;

    for (unsigned i = 0; i < 4; i++) {
        size_t ll = (size_t)1 << i;
        uint64_t t;
        if (avail < ll)
            break;
        t = avail - ll;
        if (t > cap[i])
            t = cap[i];
        if (t > len)
            t = len;
        if (t > best)
            best = (size_t)t;
    }
    return best;
}

size_t quic_frame_enc_padding(uint8_t *out, size_t room, size_t n)
{
    if (n == 0 || n > room)
        return 0;
    memset(out, 0, n);
    return n;
}

size_t quic_frame_enc_ping(uint8_t *out, size_t room)
{
    return done(put_byte(out, out + room, QUIC_FT_PING), out);
}

size_t quic_frame_enc_ack(uint8_t *out, size_t room, const struct quic_ack_range *r, size_t n,
                          uint64_t ack_delay, const struct quic_ecn_counts *ecn, size_t *n_sent)
{
    const uint8_t *end = out + room;
    uint8_t *w = out;
    uint64_t largest, first;
    size_t fixed, body = 0, k = 0;

    if (n_sent)
        *n_sent = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].lo > r[i].hi || r[i].hi > QUIC_VARINT_MAX)
            return 0;
        /* Gaps of at least one packet, or the Gap field would be negative (§19.3.1). */
        if (i > 0 && (r[i].lo < 2 || r[i - 1].hi > r[i].lo - 2))
            return 0;
    }
    largest = r[n - 1].hi;
    first = largest - r[n - 1].lo;
    if (quic_varint_size(ack_delay) == 0)
        return 0;
    fixed = 1 + quic_varint_size(largest) + quic_varint_size(ack_delay) + quic_varint_size(first);
    if (ecn) {
        if (!quic_varint_size(ecn->ect0) || !quic_varint_size(ecn->ect1) || !quic_varint_size(ecn->ce))
            return 0;
        fixed += quic_varint_size(ecn->ect0) + quic_varint_size(ecn->ect1) + quic_varint_size(ecn->ce);
    }
    if (fixed + 1 > room)
        return 0;
    /* §13.2.3: when the ranges do not all fit, the oldest are left out. */
    for (size_t i = n - 1; i > 0; i--) {
        uint64_t gap = r[i].lo - r[i - 1].hi - 2, len = r[i - 1].hi - r[i - 1].lo;
        size_t add = quic_varint_size(gap) + quic_varint_size(len);
        if (fixed + quic_varint_size(k + 1) + body + add > room)
            break;
        body += add;
        k++;
    }
    w = put_byte(w, end, ecn ? QUIC_FT_ACK_ECN : QUIC_FT_ACK);
    w = put_vi(w, end, largest);
    w = put_vi(w, end, ack_delay);
    w = put_vi(w, end, k);
    w = put_vi(w, end, first);
    for (size_t j = 0, i = n - 1; j < k; j++, i--) {
        w = put_vi(w, end, r[i].lo - r[i - 1].hi - 2); /* Gap: packets missed, minus one */
        w = put_vi(w, end, r[i - 1].hi - r[i - 1].lo); /* ACK Range Length */
    }
    if (ecn) {
        w = put_vi(w, end, ecn->ect0);
        w = put_vi(w, end, ecn->ect1);
        w = put_vi(w, end, ecn->ce);
    }
    if (w && n_sent)
        *n_sent = k + 1;
    return done(w, out);
}

size_t quic_frame_enc_crypto(uint8_t *out, size_t room, uint64_t offset, const uint8_t *data, size_t len,
                             size_t *n_data)
{
    const uint8_t *end = out + room;
    uint8_t *w = out;
    size_t n;

    *n_data = 0;
    w = put_byte(w, end, QUIC_FT_CRYPTO);
    w = put_vi(w, end, offset);
    if (w == NULL)
        return 0;
    n = fit_with_length((size_t)(end - w), len);
    if ((n == 0 && len > 0) || (uint64_t)n > QUIC_MAX_OFFSET - offset) /* §19.6 */
        return 0;
    w = put_vi(w, end, n);
    w = put_bytes(w, end, data, n);
    if (w)
        *n_data = n;
    return done(w, out);
}

size_t quic_frame_enc_stream(uint8_t *out, size_t room, uint64_t stream_id, uint64_t offset, const uint8_t *data,
                             size_t len, bool fin, bool fill, size_t *n_data)
{
    const uint8_t *end = out + room;
    uint8_t *w = out, type = QUIC_FT_STREAM;
    size_t n, avail;

    *n_data = 0;
    w = put_byte(w, end, 0); /* the type, once its bits are known */
    w = put_vi(w, end, stream_id);
    if (offset > 0) {
        type |= QUIC_STREAM_BIT_OFF;
        w = put_vi(w, end, offset);
    }
    if (w == NULL)
        return 0;
    avail = (size_t)(end - w);
    if (fill) {
        /* §19.8: without the LEN bit the data runs to the end of the packet. */
        n = len < avail ? len : avail;
    } else {
        if (avail == 0)
            return 0;
        n = fit_with_length(avail, len);
        type |= QUIC_STREAM_BIT_LEN;
    }
    if ((n == 0 && len > 0) || (uint64_t)n > QUIC_MAX_OFFSET - offset) /* §19.8 */
        return 0;
    if (fin && n == len)
        type |= QUIC_STREAM_BIT_FIN;
    if (!fill)
        w = put_vi(w, end, n);
    w = put_bytes(w, end, data, n);
    if (w == NULL)
        return 0;
    out[0] = type;
    *n_data = n;
    return done(w, out);
}

static size_t enc_type_vi(uint8_t *out, size_t room, uint8_t type, uint64_t v)
{
    return done(put_vi(put_byte(out, out + room, type), out + room, v), out);
}

static size_t enc_type_vi2(uint8_t *out, size_t room, uint8_t type, uint64_t a, uint64_t b)
{
    const uint8_t *end = out + room;
    return done(put_vi(put_vi(put_byte(out, end, type), end, a), end, b), out);
}

size_t quic_frame_enc_max_data(uint8_t *out, size_t room, uint64_t max)
{
    return enc_type_vi(out, room, QUIC_FT_MAX_DATA, max);
}

size_t quic_frame_enc_max_stream_data(uint8_t *out, size_t room, uint64_t stream_id, uint64_t max)
{
    return enc_type_vi2(out, room, QUIC_FT_MAX_STREAM_DATA, stream_id, max);
}

size_t quic_frame_enc_max_streams(uint8_t *out, size_t room, bool uni, uint64_t max)
{
    if (max > QUIC_MAX_STREAMS_LIMIT) /* §19.11 */
        return 0;
    return enc_type_vi(out, room, uni ? 0x13 : 0x12, max);
}

size_t quic_frame_enc_reset_stream(uint8_t *out, size_t room, uint64_t stream_id, uint64_t error_code,
                                   uint64_t final_size)
{
    const uint8_t *end = out + room;
    uint8_t *w = put_byte(out, end, QUIC_FT_RESET_STREAM);
    w = put_vi(w, end, stream_id);
    w = put_vi(w, end, error_code);
    w = put_vi(w, end, final_size);
    return done(w, out);
}

size_t quic_frame_enc_stop_sending(uint8_t *out, size_t room, uint64_t stream_id, uint64_t error_code)
{
    return enc_type_vi2(out, room, QUIC_FT_STOP_SENDING, stream_id, error_code);
}

size_t quic_frame_enc_retire_cid(uint8_t *out, size_t room, uint64_t seq)
{
    return enc_type_vi(out, room, QUIC_FT_RETIRE_CONNECTION_ID, seq);
}

size_t quic_frame_enc_path_response(uint8_t *out, size_t room, const uint8_t data[8])
{
    const uint8_t *end = out + room;
    return done(put_bytes(put_byte(out, end, QUIC_FT_PATH_RESPONSE), end, data, 8), out);
}

size_t quic_frame_enc_close(uint8_t *out, size_t room, bool app, uint64_t error_code, uint64_t frame_type,
                            const char *reason, size_t reason_len)
{
    const uint8_t *end = out + room;
    uint8_t *w = out;
    size_t n;

    w = put_byte(w, end, app ? QUIC_FT_CONNECTION_CLOSE_APP : QUIC_FT_CONNECTION_CLOSE);
    w = put_vi(w, end, error_code);
    if (!app) /* §19.19: the Frame Type field is in type 0x1c only */
        w = put_vi(w, end, frame_type);
    if (w == NULL || w == end)
        return 0;
    n = fit_with_length((size_t)(end - w), reason_len);
    w = put_vi(w, end, n);
    w = put_bytes(w, end, reason, n);
    return done(w, out);
}

const char *quic_transport_error_name(uint64_t code)
{
    static const char *const names[] = {
        "NO_ERROR", "INTERNAL_ERROR", "CONNECTION_REFUSED", "FLOW_CONTROL_ERROR", "STREAM_LIMIT_ERROR",
        "STREAM_STATE_ERROR", "FINAL_SIZE_ERROR", "FRAME_ENCODING_ERROR", "TRANSPORT_PARAMETER_ERROR",
        "CONNECTION_ID_LIMIT_ERROR", "PROTOCOL_VIOLATION", "INVALID_TOKEN", "APPLICATION_ERROR",
        "CRYPTO_BUFFER_EXCEEDED", "KEY_UPDATE_ERROR", "AEAD_LIMIT_REACHED", "NO_VIABLE_PATH",
    };
    if (code < sizeof names / sizeof names[0])
        return names[code];
    if (code >= 0x100 && code <= 0x1ff)
        return "CRYPTO_ERROR";
    return NULL;
}
