/* test/fuzz/fuzz_quic.c — the QUIC v1 codecs (quic/packet.h, quic/frame.h,
 * quic/tparams.h, quic/ackset.h), one mode per input, picked by the low two
 * bits of its first byte:
 *
 * 0, packets: [0] [short DCID length] [flags] + one UDP datagram.
 *    quic_hdr_parse walks the coalesced packets as a client does: each
 *    parsed header has 0 < pkt_len <= what is left of the datagram, and its
 *    connection IDs, token, Version Negotiation list and (for Initial, 0-RTT,
 *    Handshake, 1-RTT) pn_offset lie within pkt_len. Each long-header packet
 *    of a protected type is then opened (quic_packet_open, on a copy) with
 *    the Initial keys of RFC 9001 A.1's DCID, the client's (flags bit 0) or
 *    the server's; largest_pn is QUIC_PN_NONE (flags bit 1) or flags >> 2.
 *    It never crashes, returns one of its documented results, and on success
 *    the packet number length is 1..4, hdr_len is pn_offset + pn_len, and the
 *    payload plus the 16-byte tag ends the packet; the payload's frames are
 *    then walked as in mode 1.
 * 1, frames: [1] + a decrypted packet payload. quic_frame_next walks it to
 *    the end or the first error: on success the cursor moves forward and
 *    stays within the payload, every byte field of the frame lies within the
 *    bytes it consumed (STREAM without LEN: to the end of the payload), and
 *    offset + length stays <= 2^62-1 (CRYPTO, STREAM); on error the result
 *    is FRAME_ENCODING_ERROR or PROTOCOL_VIOLATION and the cursor has not
 *    moved. ACK ranges from quic_ack_iter: exactly range_count + 1 of them,
 *    the first [largest - first_range, largest], then strictly descending
 *    with a gap of at least one (lo <= hi < previous lo - 1), the last
 *    ending at the frame's smallest. CRYPTO, STREAM and ACK frames are
 *    re-encoded (quic_frame_enc_crypto / _stream / _ack) and decoded back to
 *    the same values.
 * 2, transport parameters: [2] + an extension body, decoded as from a
 *    server and as from a client. Whatever decodes as a client's (a value the
 *    decoder accepts is within §18.2's limits) re-encodes with
 *    quic_tparams_encode, unless initial_source_connection_id is absent (the
 *    one other reason it refuses), and decodes back, as a client's, to the
 *    same client parameters.
 * 3, ACK set: [3] [base, 8 bytes] + operations of 2 bytes each on packet
 *    numbers base + 0..WINDOW-1: mostly quic_ackset_insert, sometimes
 *    quic_ackset_drop_below. A bitmap of what was inserted is the reference:
 *    quic_ackset_check says what insert then returns; a number inserted
 *    before is DUP unless it is below floor (then TOO_OLD), never NEW; one
 *    not inserted is never DUP, and TOO_OLD only below floor or when the set
 *    is full and it would be the oldest range; DUP and TOO_OLD change
 *    nothing; floor never goes down; the ranges stay ascending, disjoint and
 *    non-adjacent, at most QUIC_ACKSET_CAP, and hold exactly the inserted
 *    numbers at or above floor (nothing else is forgotten); the largest is
 *    quic_ackset_largest. The set's ACK frame then decodes to its ranges. */
#include "fuzz.h"
#include "quic/ackset.h"
#include "quic/frame.h"
#include "quic/packet.h"
#include "quic/tparams.h"
#include "quic/varint.h"

#define DGRAM_MAX 65536
#define MAX_RANGES 4096
#define WINDOW 512

static struct quic_keys client_keys, server_keys;
static uint8_t pktbuf[DGRAM_MAX];
static uint8_t encbuf[MAX_RANGES * 16 + 4096 + DGRAM_MAX];
static struct quic_ack_range ranges_a[MAX_RANGES], ranges_b[MAX_RANGES];

/* RFC 9001 A.1: the client's first DCID. */
static const uint8_t a1_dcid[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (quic_keys_initial(&client_keys, &server_keys, a1_dcid, sizeof a1_dcid) != 0) {
        fprintf(stderr, "quic_keys_initial failed\n");
        abort();
    }
    return 0;
}

static bool within(const uint8_t *p, size_t n, const uint8_t *lo, const uint8_t *hi)
{
    return p >= lo && p <= hi && n <= (size_t)(hi - p);
}

/* ------------------------------------------------------------ frames */

/* The ranges of an ACK frame, descending, checked; *n is how many were
 * stored (up to MAX_RANGES); returns the total number. */
static uint64_t ack_ranges(const struct quic_frame_ack *a, struct quic_ack_range *r, size_t *n)
{
    struct quic_ack_iter it;
    uint64_t lo, hi, count = 0, prev_lo = 0;
    quic_ack_iter_init(&it, a);
    *n = 0;
    while (quic_ack_iter_next(&it, &lo, &hi)) {
        FZ_CHECK(lo <= hi, "range %llu: lo %llu > hi %llu", (unsigned long long)count, (unsigned long long)lo,
                 (unsigned long long)hi);
        if (count == 0)
            FZ_CHECK(hi == a->largest && lo == a->largest - a->first_range, "first range [%llu, %llu]",
                     (unsigned long long)lo, (unsigned long long)hi);
        else
            FZ_CHECK(prev_lo >= 2 && hi <= prev_lo - 2, "range [%llu, %llu] after lo %llu", (unsigned long long)lo,
                     (unsigned long long)hi, (unsigned long long)prev_lo);
        if (*n < MAX_RANGES)
            r[(*n)++] = (struct quic_ack_range){ lo, hi };
        prev_lo = lo;
        count++;
        FZ_CHECK(count <= a->range_count + 1, "more than %llu ranges", (unsigned long long)a->range_count + 1);
    }
    FZ_CHECK(count == a->range_count + 1, "%llu ranges of %llu", (unsigned long long)count,
             (unsigned long long)a->range_count + 1);
    FZ_CHECK(prev_lo == a->smallest, "last lo %llu, smallest %llu", (unsigned long long)prev_lo,
             (unsigned long long)a->smallest);
    return count;
}

/* Decodes the one frame enc[0..n) must hold, of kind `kind`. */
static void decode_one(const uint8_t *enc, size_t n, uint8_t kind, struct quic_frame *g)
{
    const uint8_t *q = enc;
    int rc = quic_frame_next(&q, enc + n, g);
    FZ_CHECK(rc == 0 && q == enc + n && g->kind == kind, "re-encoded kind %u: rc %d, %td of %zu bytes, kind %u",
             kind, rc, q - enc, n, g->kind);
}

static void reencode(const struct quic_frame *f, const uint8_t *end)
{
    struct quic_frame g;
    size_t w, nd;
    switch (f->kind) {
    case QUIC_FT_CRYPTO:
        w = quic_frame_enc_crypto(encbuf, sizeof encbuf, f->crypto.offset, f->crypto.data, f->crypto.len, &nd);
        FZ_CHECK(w > 0 && nd == f->crypto.len, "CRYPTO of %zu at %llu: wrote %zu, %zu data", f->crypto.len,
                 (unsigned long long)f->crypto.offset, w, nd);
        decode_one(encbuf, w, QUIC_FT_CRYPTO, &g);
        FZ_CHECK(g.crypto.offset == f->crypto.offset && g.crypto.len == f->crypto.len &&
                     (f->crypto.len == 0 || memcmp(g.crypto.data, f->crypto.data, f->crypto.len) == 0),
                 "CRYPTO decodes back differently");
        break;
    case QUIC_FT_STREAM: {
        bool fill = !(f->type & QUIC_STREAM_BIT_LEN);
        FZ_CHECK(!fill || f->stream.data + f->stream.len == end, "STREAM without LEN stops short of the end");
        w = quic_frame_enc_stream(encbuf, sizeof encbuf, f->stream.stream_id, f->stream.offset, f->stream.data,
                                  f->stream.len, f->stream.fin, fill, &nd);
        FZ_CHECK(w > 0 && nd == f->stream.len, "STREAM of %zu: wrote %zu, %zu data", f->stream.len, w, nd);
        decode_one(encbuf, w, QUIC_FT_STREAM, &g);
        FZ_CHECK(g.stream.stream_id == f->stream.stream_id && g.stream.offset == f->stream.offset &&
                     g.stream.len == f->stream.len && g.stream.fin == f->stream.fin &&
                     (f->stream.len == 0 || memcmp(g.stream.data, f->stream.data, f->stream.len) == 0),
                 "STREAM decodes back differently");
        break;
    }
    case QUIC_FT_ACK: {
        size_t na, nb, sent = 0;
        uint64_t total = ack_ranges(&f->ack, ranges_a, &na);
        if (total > MAX_RANGES)
            break;
        /* Descending from the iterator; the encoder takes them ascending. */
        for (size_t i = 0; i < na / 2; i++) {
            struct quic_ack_range t = ranges_a[i];
            ranges_a[i] = ranges_a[na - 1 - i];
            ranges_a[na - 1 - i] = t;
        }
        struct quic_ecn_counts ecn = { f->ack.ect0, f->ack.ect1, f->ack.ce };
        w = quic_frame_enc_ack(encbuf, sizeof encbuf, ranges_a, na, f->ack.ack_delay, f->ack.ecn ? &ecn : NULL,
                               &sent);
        FZ_CHECK(w > 0 && sent == na, "ACK of %zu ranges: wrote %zu, %zu ranges", na, w, sent);
        decode_one(encbuf, w, QUIC_FT_ACK, &g);
        FZ_CHECK(g.type == f->type && g.ack.largest == f->ack.largest && g.ack.ack_delay == f->ack.ack_delay &&
                     g.ack.range_count == f->ack.range_count && g.ack.first_range == f->ack.first_range &&
                     g.ack.smallest == f->ack.smallest && g.ack.ecn == f->ack.ecn,
                 "ACK decodes back differently");
        if (f->ack.ecn)
            FZ_CHECK(g.ack.ect0 == f->ack.ect0 && g.ack.ect1 == f->ack.ect1 && g.ack.ce == f->ack.ce,
                     "ECN counts decode back differently");
        ack_ranges(&g.ack, ranges_b, &nb);
        FZ_CHECK(nb == na, "%zu ranges back, %zu sent", nb, na);
        for (size_t i = 0; i < na; i++)
            FZ_CHECK(ranges_b[i].lo == ranges_a[na - 1 - i].lo && ranges_b[i].hi == ranges_a[na - 1 - i].hi,
                     "range %zu decodes back differently", i);
        break;
    }
    default:
        break;
    }
}

static void check_fields(const struct quic_frame *f, const uint8_t *from, const uint8_t *to)
{
    switch (f->kind) {
    case QUIC_FT_ACK:
        FZ_CHECK(f->type == 0x02 || f->type == 0x03, "ACK of type 0x%llx", (unsigned long long)f->type);
        FZ_CHECK(f->ack.ecn == (f->type == 0x03), "ACK type 0x%llx, ecn %d", (unsigned long long)f->type,
                 f->ack.ecn);
        FZ_CHECK(f->ack.ranges >= from && f->ack.ranges <= f->ack.ranges_end && f->ack.ranges_end <= to,
                 "ACK ranges outside the frame");
        break;
    case QUIC_FT_CRYPTO:
        FZ_CHECK(within(f->crypto.data, f->crypto.len, from, to), "CRYPTO data outside the frame");
        FZ_CHECK(f->crypto.offset <= QUIC_MAX_OFFSET - f->crypto.len, "CRYPTO past 2^62-1");
        break;
    case QUIC_FT_STREAM:
        FZ_CHECK(within(f->stream.data, f->stream.len, from, to), "STREAM data outside the frame");
        FZ_CHECK(f->stream.offset <= QUIC_MAX_OFFSET - f->stream.len, "STREAM past 2^62-1");
        FZ_CHECK(f->stream.fin == !!(f->type & QUIC_STREAM_BIT_FIN), "FIN bit");
        FZ_CHECK((f->type & QUIC_STREAM_BIT_OFF) || f->stream.offset == 0, "offset without OFF bit");
        break;
    case QUIC_FT_NEW_TOKEN:
        FZ_CHECK(within(f->new_token.token, f->new_token.len, from, to), "token outside the frame");
        break;
    case QUIC_FT_NEW_CONNECTION_ID:
        FZ_CHECK(f->new_cid.cid_len >= 1 && f->new_cid.cid_len <= QUIC_MAX_CID_LEN, "CID of %u bytes",
                 f->new_cid.cid_len);
        FZ_CHECK(within(f->new_cid.cid, f->new_cid.cid_len, from, to) &&
                     within(f->new_cid.reset_token, 16, from, to),
                 "NEW_CONNECTION_ID fields outside the frame");
        break;
    case QUIC_FT_PATH_CHALLENGE:
    case QUIC_FT_PATH_RESPONSE:
        FZ_CHECK(within(f->path.data, 8, from, to), "path data outside the frame");
        break;
    case QUIC_FT_CONNECTION_CLOSE:
        FZ_CHECK(within(f->close.reason, f->close.reason_len, from, to), "reason outside the frame");
        FZ_CHECK(f->close.app == (f->type == 0x1d), "close type 0x%llx, app %d", (unsigned long long)f->type,
                 f->close.app);
        break;
    case QUIC_FT_PADDING:
        FZ_CHECK(f->padding.len >= 1 && f->padding.len == (size_t)(to - from), "PADDING of %zu in %td bytes",
                 f->padding.len, to - from);
        break;
    default:
        break;
    }
}

static void walk_frames(const uint8_t *buf, size_t n)
{
    const uint8_t *p = buf, *end = buf + n;
    while (p < end) {
        const uint8_t *before = p;
        struct quic_frame f;
        int rc = quic_frame_next(&p, end, &f);
        if (rc != 0) {
            FZ_CHECK(rc == -QUIC_FRAME_ENCODING_ERROR || rc == -QUIC_PROTOCOL_VIOLATION, "error %d", rc);
            FZ_CHECK(p == before, "cursor moved by %td on error %d", p - before, rc);
            return;
        }
        FZ_CHECK(p > before && p <= end, "cursor moved %td, %td left", p - before, end - p);
        FZ_CHECK(f.type <= 0x1e, "type 0x%llx", (unsigned long long)f.type);
        (void)quic_frame_allowed(f.type, QUIC_FRAME_IN_1RTT);
        (void)quic_frame_ack_eliciting(f.type);
        check_fields(&f, before, p);
        reencode(&f, end);
    }
}

/* ------------------------------------------------------------ packets */

static void open_packet(const struct quic_keys *k, const uint8_t *pkt, size_t n, size_t pn_offset, uint64_t largest)
{
    uint8_t *c = pktbuf + sizeof pktbuf - n; /* ends where the buffer ends: ASan's redzone follows */
    memcpy(c, pkt, n);
    struct quic_opened o;
    int rc = quic_packet_open(k, c, n, pn_offset, largest, &o);
    FZ_CHECK(rc == QUIC_PKT_OK || rc == QUIC_PKT_TRUNCATED || rc == QUIC_PKT_DECRYPT ||
                 rc == QUIC_PKT_RESERVED_BITS,
             "quic_packet_open returned %d", rc);
    if (rc != QUIC_PKT_OK)
        return;
    FZ_CHECK(o.pn_len >= 1 && o.pn_len <= 4 && o.hdr_len == pn_offset + o.pn_len, "pn_len %zu, hdr_len %zu",
             o.pn_len, o.hdr_len);
    FZ_CHECK(o.payload == c + o.hdr_len && o.hdr_len + o.payload_len + QUIC_TAG_LEN == n,
             "payload at %td of %zu bytes in a %zu-byte packet", o.payload - c, o.payload_len, n);
    FZ_CHECK(o.pn <= QUIC_PN_MAX, "pn %llu", (unsigned long long)o.pn);
    walk_frames(o.payload, o.payload_len);
}

static void mode_packets(struct fz_reader *rd)
{
    size_t short_dcid = fz_u8(rd) % (QUIC_MAX_CID_LEN + 1);
    uint8_t flags = fz_u8(rd);
    const struct quic_keys *k = flags & 1 ? &client_keys : &server_keys;
    uint64_t largest = flags & 2 ? QUIC_PN_NONE : (uint64_t)(flags >> 2);
    size_t len = rd->n < DGRAM_MAX ? rd->n : DGRAM_MAX;
    const uint8_t *dg = fz_place(rd->p, len);
    size_t off = 0;
    while (off < len) {
        struct quic_hdr h;
        const uint8_t *pkt = dg + off;
        size_t left = len - off;
        int rc = quic_hdr_parse(&h, pkt, left, short_dcid);
        FZ_CHECK(rc == QUIC_PKT_OK || rc == QUIC_PKT_TRUNCATED || rc == QUIC_PKT_INVALID || rc == QUIC_PKT_VERSION,
                 "quic_hdr_parse returned %d", rc);
        if (rc != QUIC_PKT_OK)
            break;
        FZ_CHECK(h.pkt_len > 0 && h.pkt_len <= left, "pkt_len %zu of %zu left", h.pkt_len, left);
        const uint8_t *pend = pkt + h.pkt_len;
        FZ_CHECK(within(h.dcid, h.dcid_len, pkt, pend), "DCID outside the packet");
        FZ_CHECK(h.dcid_len <= (h.type == QUIC_PT_VN ? 255 : QUIC_MAX_CID_LEN), "DCID of %zu", h.dcid_len);
        if (h.type == QUIC_PT_1RTT)
            FZ_CHECK(h.dcid_len == short_dcid && h.pkt_len == left, "short header: DCID %zu, pkt_len %zu of %zu",
                     h.dcid_len, h.pkt_len, left);
        else
            FZ_CHECK(within(h.scid, h.scid_len, pkt, pend), "SCID outside the packet");
        if (h.type == QUIC_PT_INITIAL || h.type == QUIC_PT_RETRY)
            FZ_CHECK(h.token_len == 0 || within(h.token, h.token_len, pkt, pend), "token outside the packet");
        if (h.type == QUIC_PT_RETRY)
            FZ_CHECK(h.token_len > 0 && h.pkt_len >= QUIC_TAG_LEN, "Retry: token %zu, pkt_len %zu", h.token_len,
                     h.pkt_len);
        if (h.type == QUIC_PT_VN) {
            FZ_CHECK(h.n_versions <= SIZE_MAX / 4 && within(h.versions, 4 * h.n_versions, pkt, pend),
                     "VN list outside the packet");
            for (size_t i = 0; i < h.n_versions; i++)
                (void)quic_vn_version(&h, i);
            (void)quic_vn_offers(&h, QUIC_V1);
        }
        if (h.type == QUIC_PT_INITIAL || h.type == QUIC_PT_0RTT || h.type == QUIC_PT_HANDSHAKE ||
            h.type == QUIC_PT_1RTT)
            FZ_CHECK(h.pn_offset >= 1 && h.pn_offset <= h.pkt_len, "pn_offset %zu, pkt_len %zu", h.pn_offset,
                     h.pkt_len);
        if (h.type == QUIC_PT_INITIAL || h.type == QUIC_PT_0RTT || h.type == QUIC_PT_HANDSHAKE) {
            FZ_CHECK(h.version == QUIC_V1 && h.pkt_len == h.pn_offset + h.length, "version 0x%x, length %llu",
                     h.version, (unsigned long long)h.length);
            open_packet(k, pkt, h.pkt_len, h.pn_offset, largest);
        }
        off += h.pkt_len;
    }
}

/* ------------------------------------------------------------ transport parameters */

static bool cid_eq(const struct quic_tp_cid *a, const struct quic_tp_cid *b)
{
    return a->present == b->present && (!a->present || (a->len == b->len && memcmp(a->id, b->id, a->len) == 0));
}

static void mode_tparams(struct fz_reader *rd)
{
    struct quic_tparams tp, back;
    const uint8_t *p = fz_place(rd->p, rd->n);
    int rc = quic_tparams_decode(&tp, p, rd->n, true);
    FZ_CHECK(rc == 0 || rc == -QUIC_TRANSPORT_PARAMETER_ERROR, "from a server: %d", rc);
    rc = quic_tparams_decode(&tp, p, rd->n, false);
    FZ_CHECK(rc == 0 || rc == -QUIC_TRANSPORT_PARAMETER_ERROR, "from a client: %d", rc);
    if (rc != 0)
        return;
    FZ_CHECK(!tp.original_dcid.present && !tp.retry_scid.present && !tp.has_stateless_reset_token &&
                 !tp.has_preferred_address,
             "a client's parameters decoded with server-only ones");
    size_t w = quic_tparams_encode(&tp, encbuf, sizeof encbuf);
    if (w == 0) {
        FZ_CHECK(!tp.initial_scid.present, "decoded client parameters do not re-encode");
        return;
    }
    rc = quic_tparams_decode(&back, encbuf, w, false);
    FZ_CHECK(rc == 0, "re-encoded parameters (%zu bytes) do not decode: %d", w, rc);
    FZ_CHECK(back.max_idle_timeout == tp.max_idle_timeout && back.max_udp_payload_size == tp.max_udp_payload_size &&
                 back.initial_max_data == tp.initial_max_data &&
                 back.initial_max_stream_data_bidi_local == tp.initial_max_stream_data_bidi_local &&
                 back.initial_max_stream_data_bidi_remote == tp.initial_max_stream_data_bidi_remote &&
                 back.initial_max_stream_data_uni == tp.initial_max_stream_data_uni &&
                 back.initial_max_streams_bidi == tp.initial_max_streams_bidi &&
                 back.initial_max_streams_uni == tp.initial_max_streams_uni &&
                 back.ack_delay_exponent == tp.ack_delay_exponent && back.max_ack_delay == tp.max_ack_delay &&
                 back.active_connection_id_limit == tp.active_connection_id_limit &&
                 back.disable_active_migration == tp.disable_active_migration &&
                 cid_eq(&back.initial_scid, &tp.initial_scid),
             "parameters decode back differently");
}

/* ------------------------------------------------------------ ACK set */

static struct quic_ackset set;
static uint8_t seen[WINDOW];

static void ackset_consistent(uint64_t base)
{
    FZ_CHECK(set.n <= QUIC_ACKSET_CAP, "%zu ranges", set.n);
    uint64_t total = 0;
    for (size_t i = 0; i < set.n; i++) {
        const struct quic_ack_range *r = &set.r[i];
        FZ_CHECK(r->lo <= r->hi && r->lo >= set.floor, "range %zu [%llu, %llu], floor %llu", i,
                 (unsigned long long)r->lo, (unsigned long long)r->hi, (unsigned long long)set.floor);
        FZ_CHECK(i == 0 || set.r[i - 1].hi + 1 < r->lo, "ranges %zu and %zu overlap or touch", i - 1, i);
        FZ_CHECK(r->lo >= base && r->hi < base + WINDOW, "range %zu outside what was inserted", i);
        for (uint64_t pn = r->lo; pn <= r->hi; pn++)
            FZ_CHECK(seen[pn - base], "%llu in the set, never inserted", (unsigned long long)pn);
        total += r->hi - r->lo + 1;
    }
    uint64_t want = 0, largest = 0;
    bool any = false;
    for (uint64_t i = 0; i < WINDOW; i++)
        if (seen[i] && base + i >= set.floor) {
            want++;
            largest = base + i;
            any = true;
        }
    FZ_CHECK(total == want, "%llu numbers in the set, %llu inserted at or above floor %llu",
             (unsigned long long)total, (unsigned long long)want, (unsigned long long)set.floor);
    uint64_t l = 0;
    bool has = quic_ackset_largest(&set, &l);
    FZ_CHECK(has == any && (!any || l == largest), "largest %d %llu, want %d %llu", has, (unsigned long long)l, any,
             (unsigned long long)largest);
}

static void mode_ackset(struct fz_reader *rd)
{
    uint64_t base = 0;
    for (int i = 0; i < 8; i++)
        base = base << 8 | fz_u8(rd);
    base %= QUIC_PN_MAX + 1 - WINDOW;
    quic_ackset_init(&set);
    memset(seen, 0, sizeof seen);
    while (rd->n > 0) {
        uint16_t op = fz_u16(rd);
        uint64_t pn = base + (op & (WINDOW - 1));
        uint64_t floor0 = set.floor;
        if ((op >> 12) == 0xf) {
            quic_ackset_drop_below(&set, pn);
            FZ_CHECK(set.floor == (pn > floor0 ? pn : floor0), "drop_below %llu: floor %llu -> %llu",
                     (unsigned long long)pn, (unsigned long long)floor0, (unsigned long long)set.floor);
            ackset_consistent(base);
            continue;
        }
        struct quic_ackset before = set;
        enum quic_ackset_result c = quic_ackset_check(&set, pn);
        enum quic_ackset_result r = quic_ackset_insert(&set, pn);
        FZ_CHECK(c == r, "check said %d, insert %d", c, r);
        bool was = seen[pn - base];
        if (was)
            FZ_CHECK(pn < floor0 ? r == QUIC_ACKSET_TOO_OLD : r == QUIC_ACKSET_DUP,
                     "%llu inserted before, floor %llu: %d", (unsigned long long)pn, (unsigned long long)floor0, r);
        else
            FZ_CHECK(r != QUIC_ACKSET_DUP, "%llu never inserted: DUP", (unsigned long long)pn);
        if (r == QUIC_ACKSET_TOO_OLD)
            FZ_CHECK(pn < floor0 || (before.n == QUIC_ACKSET_CAP && pn < before.r[0].lo),
                     "%llu TOO_OLD, floor %llu, %zu ranges", (unsigned long long)pn, (unsigned long long)floor0,
                     before.n);
        if (r != QUIC_ACKSET_NEW)
            FZ_CHECK(memcmp(&before, &set, sizeof set) == 0, "result %d changed the set", r);
        else
            seen[pn - base] = 1;
        FZ_CHECK(set.floor >= floor0, "floor went down");
        ackset_consistent(base);
    }
    if (set.n == 0)
        return;
    size_t sent = 0, nb;
    size_t w = quic_frame_enc_ack(encbuf, sizeof encbuf, set.r, set.n, 0, NULL, &sent);
    FZ_CHECK(w > 0 && sent == set.n, "ACK of %zu ranges: %zu bytes, %zu sent", set.n, w, sent);
    struct quic_frame g;
    decode_one(encbuf, w, QUIC_FT_ACK, &g);
    ack_ranges(&g.ack, ranges_b, &nb);
    FZ_CHECK(nb == set.n, "%zu ranges back of %zu", nb, set.n);
    for (size_t i = 0; i < nb; i++)
        FZ_CHECK(ranges_b[i].lo == set.r[set.n - 1 - i].lo && ranges_b[i].hi == set.r[set.n - 1 - i].hi,
                 "range %zu decodes back differently", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > DGRAM_MAX) /* a datagram or a packet payload at most */
        return 0;
    struct fz_reader rd = { data, size };
    switch (fz_u8(&rd) & 3) {
    case 0: mode_packets(&rd); break;
    case 1: walk_frames(fz_place(rd.p, rd.n), rd.n); break;
    case 2: mode_tparams(&rd); break;
    default: mode_ackset(&rd); break;
    }
    return 0;
}
