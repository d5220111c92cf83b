/* quic/stream.c — the QUIC connection's streams (RFC 9000 §2-§4): the
 * ring of request streams, the server's unidirectional streams and our
 * own, flow control both ways, the pool that holds data received ahead of
 * its offset (for CRYPTO too), STREAM and the other stream frames received,
 * and the stream frames written into ApplicationData packets with their
 * retransmission records (chunks). quic/conn.c owns the rest (packets, TLS,
 * keys, ACKs, timers); both share struct quic_conn (quic/conn_internal.h).
 *
 * Request streams are client bidirectional (ids 0, 4, 8, ...) in a ring
 * indexed by stream number: a slot holds one stream at a time, and a
 * stream abandoned before its end keeps its slot (DETACHED) until its
 * RESET_STREAM is out. Streams with something to send wait in a FIFO
 * through the ring (q_head, q_tail, rstream.next).
 *
 * Credit for the server (§4.1, §4.2): granted as the application takes the
 * data, a window past what was consumed; the sum of every stream's highest
 * offset is what MAX_DATA limits. Credit from the server: send_max per
 * stream and for the connection, charged only for bytes sent the first
 * time. */
#include "quic/conn_internal.h"

#include <string.h>

#include "quic/frame.h"
#include "quic/varint.h"

#define CHUNKS_PER_PKT 64         /* stream frames one packet may carry (pkt_meta.chunk_n) */

/* ---- memory: the stream ring and the pool, after struct quic_conn --------- */

static uint32_t ring_size(const struct quic_conn_config *cfg)
{
    uint32_t want = cfg->max_streams < 1 ? 1 : cfg->max_streams;
    uint32_t r = 1;
    /* Twice -p: a stream that lingers (its response slow) does not stop the
     * next -p from opening until the ring wraps onto it. */
    while (r < 2 * want && r < (1u << 20))
        r <<= 1;
    return r;
}

static unsigned pool_slots(const struct quic_conn_config *cfg)
{
    uint64_t window = cfg->conn_window < (1ull << 30) ? cfg->conn_window : 1ull << 30;
    return (unsigned)(window / POOL_BYTES_PER_SLOT) + POOL_SLOTS_MIN;
}

static size_t ring_bytes(const struct quic_conn_config *cfg)
{
    return ((size_t)ring_size(cfg) * sizeof(struct rstream) + 15) & ~(size_t)15;
}

size_t quic_streams_size(const struct quic_conn_config *cfg)
{
    return ring_bytes(cfg) + (size_t)pool_slots(cfg) * sizeof(struct pool_ent);
}

void quic_streams_init(struct quic_conn *c, void *mem)
{
    const struct quic_conn_config *cfg = c->cfg;
    c->ring = ring_size(cfg);
    c->ring_mask = c->ring - 1;
    c->streams = (struct rstream *)mem;
    for (uint32_t i = 0; i < c->ring; i++) {
        memset(&c->streams[i], 0, sizeof c->streams[i]);
        c->streams[i].n = NONE;
    }
    c->pool = (struct pool_ent *)((uint8_t *)mem + ring_bytes(cfg));
    c->pool_slots = pool_slots(cfg);
    c->q_head = c->q_tail = UINT32_MAX;
}

/* ---- the pool: data ahead of its offset --------------------------------------- */

void quic_pool_drop_key(struct quic_conn *c, uint64_t key)
{
    for (unsigned i = 0; c->pool_used > 0 && i < c->pool_top; i++)
        if (c->pool[i].used && c->pool[i].key == key)
            quic_pool_release(c, &c->pool[i]);
}

/* Keeps data that arrived ahead of the stream's offset. false: no room —
 * the packet is then not acknowledged, and the server sends it again. */
bool quic_pool_put(struct quic_conn *c, uint64_t key, uint64_t off, const uint8_t *p, size_t n, bool fin)
{
    if (n > POOL_DATA_MAX)
        return false;
    for (unsigned i = 0; i < c->pool_top; i++) {
        struct pool_ent *e = &c->pool[i];
        if (!e->used || e->key != key)
            continue;
        if (e->off <= off && off + n <= e->off + e->len && (e->fin || !fin))
            return true; /* bytes it holds already (a retransmission) */
        if (off == e->off + e->len && !e->fin && e->len + n <= POOL_DATA_MAX) {
            /* Right after it: the same slot (a retransmission cut in two,
             * or data arriving in order behind a hole). */
            memcpy(e->data + e->len, p, n);
            e->len = (uint16_t)(e->len + n);
            e->fin = fin;
            return true;
        }
    }
    unsigned i = 0;
    while (i < c->pool_top && c->pool[i].used)
        i++;
    if (i == c->pool_top) {
        if (c->pool_top == c->pool_slots)
            return false;
        c->pool_top++;
    }
    struct pool_ent *e = &c->pool[i];
    e->used = true;
    e->key = key;
    e->off = off;
    e->len = (uint16_t)n;
    e->fin = fin;
    memcpy(e->data, p, n);
    c->pool_used++;
    return true;
}

/* ---- the ring and the send queue ---------------------------------------------- */

static struct rstream *stream_of(struct quic_conn *c, uint64_t n)
{
    struct rstream *s = &c->streams[n & c->ring_mask];
    return s->n == n ? s : NULL;
}

static void queue_stream(struct quic_conn *c, struct rstream *s)
{
    if (s->queued)
        return;
    uint32_t slot = (uint32_t)(s - c->streams);
    s->queued = true;
    s->next = UINT32_MAX;
    if (c->q_tail == UINT32_MAX)
        c->q_head = slot;
    else
        c->streams[c->q_tail].next = slot;
    c->q_tail = slot;
}

/* ---- receiving: STREAM --------------------------------------------------------- */

/* Credit is granted as data is consumed (delivered in order): when half of
 * a window is used, the limit moves to a full window past what was taken
 * (§4.2: "send ... before the peer is blocked"). */
static void consumed(uint64_t *recv_max, uint64_t recv_off, uint64_t window, bool *need)
{
    if (*recv_max - recv_off < window / 2) {
        *recv_max = recv_off + window;
        *need = true;
    }
}

static void deliver(struct quic_conn *c, uint64_t id, const uint8_t *p, size_t n, bool fin)
{
    c->recv_consumed += n;
    bool need = false;
    consumed(&c->recv_max, c->recv_consumed, c->cfg->conn_window, &need);
    if (need)
        c->need_max_data = true;
    c->cb.stream_data(c->ctx, id, p, n, fin);
}

/* The state a received stream frame lands in, for either kind of stream. */
struct recv_state {
    uint64_t *recv_off, *highest, *final_size, *recv_max;
    bool *fin_recv;
};

static bool recv_state_of(struct quic_conn *c, uint64_t id, struct recv_state *rs)
{
    if ((id & 3) == 0) {
        struct rstream *s = stream_of(c, id >> 2);
        if (s == NULL)
            return false;
        *rs = (struct recv_state){ &s->recv_off, &s->highest, &s->final_size, &s->recv_max, &s->fin_recv };
    } else {
        struct ustream *u = &c->uni[id >> 2];
        *rs = (struct recv_state){ &u->recv_off, &u->highest, &u->final_size, &u->recv_max, &u->fin_recv };
    }
    return true;
}

int quic_stream_recv(struct quic_conn *c, uint64_t id, uint64_t off, const uint8_t *p, size_t n, bool fin)
{
    struct recv_state rs;
    uint64_t end = off + n;

    switch (id & 3) {
    case 0: /* ours, bidirectional */
        if ((id >> 2) >= c->next_n)
            return -QUIC_STREAM_STATE_ERROR; /* §19.8: a stream we never opened */
        break;
    case 3: /* the server's, unidirectional */
        if ((id >> 2) >= UNI_MAX)
            return -QUIC_STREAM_LIMIT_ERROR; /* §4.6: beyond the limit we gave */
        break;
    case 2: /* ours, unidirectional: send-only (§19.8) */
        return -QUIC_STREAM_STATE_ERROR;
    default: /* the server's bidirectional: we allowed none (§4.6) */
        return -QUIC_STREAM_LIMIT_ERROR;
    }
    if (!recv_state_of(c, id, &rs)) {
        /* A request stream we closed: whatever still arrives is dropped,
         * but counted as consumed for the connection's credit (the server
         * counts what it sent after our STOP_SENDING against our MAX_DATA;
         * duplicates make this an overestimate, which only grants a little
         * more credit). Not added to recv_highest_sum: a duplicate counted
         * there after the last MAX_DATA went out would make a server that
         * keeps to that limit look as if it broke it. */
        c->recv_consumed += n;
        bool need = false;
        consumed(&c->recv_max, c->recv_consumed, c->cfg->conn_window, &need);
        c->need_max_data |= need;
        return 0;
    }
    bool had_fin = *rs.fin_recv;
    if (end > *rs.recv_max)
        return -QUIC_FLOW_CONTROL_ERROR; /* §4.1 */
    /* §4.5: a final size, once known, never changes, and nothing lies beyond it. */
    if (*rs.fin_recv || *rs.final_size) {
        if (end > *rs.final_size || (fin && end != *rs.final_size))
            return -QUIC_FINAL_SIZE_ERROR;
    } else if (fin) {
        if (end < *rs.highest)
            return -QUIC_FINAL_SIZE_ERROR;
        *rs.final_size = end;
        *rs.fin_recv = true;
    }
    if (end > *rs.highest) {
        c->recv_highest_sum += end - *rs.highest;
        *rs.highest = end;
        if (c->recv_highest_sum > c->recv_max)
            return -QUIC_FLOW_CONTROL_ERROR;
    }
    bool ends = *rs.fin_recv && end == *rs.final_size;
    if (end < *rs.recv_off || (end == *rs.recv_off && !(fin && !had_fin)))
        return 0; /* seen before (a FIN that comes on its own after the data is not) */
    if (off > *rs.recv_off) {
        if (!quic_pool_put(c, id, off, p, n, fin))
            c->abort_packet = true;
        return 0;
    }
    size_t skip = (size_t)(*rs.recv_off - off);
    *rs.recv_off = end;
    if (n - skip > 0 || ends)
        deliver(c, id, p + skip, n - skip, ends);
    /* The callback may have closed the stream (response complete): look it
     * up again before every step. fin_given: a pooled FIN that ends where
     * this frame's FIN already did is not handed out a second time. */
    bool fin_given = ends;
    for (struct pool_ent *e;;) {
        if (!recv_state_of(c, id, &rs) || (e = quic_pool_find(c, id, *rs.recv_off)) == NULL)
            break;
        uint64_t eend = e->off + e->len;
        quic_pool_release(c, e);
        if (eend > *rs.recv_off || (e->fin && eend == *rs.recv_off && !fin_given)) {
            size_t k = (size_t)(*rs.recv_off - e->off);
            *rs.recv_off = eend;
            fin_given |= e->fin;
            deliver(c, id, e->data + k, e->len - k, e->fin);
        }
    }
    /* Stream-level credit (§4.2) for streams still open. */
    if (recv_state_of(c, id, &rs) && !*rs.fin_recv) {
        bool need = false;
        consumed(rs.recv_max, *rs.recv_off, (id & 3) == 0 ? c->cfg->stream_window : QUIC_UNI_WINDOW_OF(c->cfg), &need);
        if (need) {
            if ((id & 3) == 0) {
                struct rstream *st = stream_of(c, id >> 2);
                st->need_msd = true;
                queue_stream(c, st);
            } else {
                c->uni[id >> 2].need_msd = true;
            }
        }
    }
    return 0;
}

int quic_stream_on_reset(struct quic_conn *c, const struct quic_frame *f)
{
    uint64_t id = f->kind == QUIC_FT_RESET_STREAM ? f->reset_stream.stream_id : f->stop_sending.stream_id;
    uint64_t code = f->kind == QUIC_FT_RESET_STREAM ? f->reset_stream.error_code : f->stop_sending.error_code;
    if ((id & 3) == 0) {
        if ((id >> 2) >= c->next_n)
            return -QUIC_STREAM_STATE_ERROR;
        if (stream_of(c, id >> 2) != NULL)
            c->cb.stream_reset(c->ctx, id, code, f->kind == QUIC_FT_STOP_SENDING);
    } else if ((id & 3) == 3) {
        if ((id >> 2) >= UNI_MAX)
            return -QUIC_STREAM_LIMIT_ERROR;
        if (f->kind == QUIC_FT_STOP_SENDING)
            return -QUIC_STREAM_STATE_ERROR; /* §19.5: a receive-only stream of ours */
        c->cb.stream_reset(c->ctx, id, code, false);
    } else if ((id & 3) == 2 && f->kind == QUIC_FT_STOP_SENDING) {
        if ((id >> 2) >= c->ours_n)
            return -QUIC_STREAM_STATE_ERROR; /* §19.5: one of ours not yet opened */
        c->cb.stream_reset(c->ctx, id, code, true);
    } else {
        return -QUIC_STREAM_STATE_ERROR;
    }
    return 0;
}

int quic_stream_on_max_stream_data(struct quic_conn *c, const struct quic_frame *f)
{
    uint64_t id = f->max_stream_data.stream_id;
    if ((id & 3) == 0) {
        if ((id >> 2) >= c->next_n)
            return -QUIC_STREAM_STATE_ERROR;
        struct rstream *st = stream_of(c, id >> 2);
        if (st != NULL && f->max_stream_data.max > st->send_max) {
            st->send_max = f->max_stream_data.max;
            if (st->sent < st->len || !st->fin_sent)
                queue_stream(c, st);
        }
    } else if ((id & 3) == 3 || (id & 3) == 1) {
        /* §19.10: a receive-only stream; or a server bidirectional one,
         * of which we allowed none (§4.6 would make opening it an error) */
        return -QUIC_STREAM_STATE_ERROR;
    } else if ((id >> 2) >= c->ours_n) {
        return -QUIC_STREAM_STATE_ERROR; /* one of ours never opened */
    }
    return 0;
}

/* ---- sending -------------------------------------------------------------------- */

static bool ours_pending(const struct quic_conn *c)
{
    for (unsigned i = 0; i < c->ours_n; i++)
        if (c->ours[i].sent < c->ours[i].len)
            return true;
    return false;
}

static bool uni_msd_pending(const struct quic_conn *c)
{
    for (unsigned i = 0; i < UNI_MAX; i++)
        if (c->uni[i].need_msd)
            return true;
    return false;
}

bool quic_streams_pending(const struct quic_conn *c)
{
    return c->q_head != UINT32_MAX || c->need_max_data || (c->need_streams_blocked && !c->streams_blocked_sent) ||
           ours_pending(c) || uni_msd_pending(c);
}

uint32_t quic_chunks_free(const struct quic_conn *c)
{
    /* The oldest outstanding ApplicationData packet holds the oldest chunk. */
    const struct quic_rec_space *rs = &c->rec.space[QUIC_SPACE_APP];
    uint32_t tail = c->chunk_head;
    for (uint64_t pn = rs->oldest; pn < rs->next_pn; pn++) {
        const struct pkt_meta *m = &c->space[QUIC_SPACE_APP].meta[pn % QUIC_REC_CAP];
        if (rs->sent[pn % QUIC_REC_CAP].time != 0 && m->chunk_n > 0) {
            tail = m->chunk_first;
            break;
        }
    }
    return CHUNK_CAP - (c->chunk_head - tail);
}

static bool add_chunk(struct quic_conn *c, struct pkt_builder *b, uint64_t id, uint32_t off, uint32_t len,
                      enum chunk_kind kind, bool fin)
{
    if (b->m->chunk_n >= CHUNKS_PER_PKT || b->chunk_room == 0)
        return false;
    if (b->m->chunk_n == 0)
        b->m->chunk_first = c->chunk_head;
    c->chunks[c->chunk_head & (CHUNK_CAP - 1)] = (struct chunk){ id, off, len, (uint8_t)kind, fin };
    c->chunk_head++;
    b->chunk_room--;
    b->m->chunk_n++;
    return true;
}

/* STREAM frames of one request stream; false when the packet is full. */
static bool write_stream(struct quic_conn *c, struct pkt_builder *b, struct rstream *st)
{
    uint64_t id = st->n << 2;
    size_t w, k;

    if (st->need_msd) {
        if (b->m->chunk_n >= CHUNKS_PER_PKT || b->chunk_room == 0)
            return false;
        w = quic_frame_enc_max_stream_data(b->p, (size_t)(b->end - b->p), id, st->recv_max);
        if (w == 0)
            return false;
        b->p += w;
        add_chunk(c, b, id, 0, 0, CH_MSD, false);
        st->need_msd = false;
        b->eliciting = true;
    }
    if (st->reset_out) {
        if (b->m->chunk_n >= CHUNKS_PER_PKT || b->chunk_room == 0)
            return false;
        size_t room = (size_t)(b->end - b->p);
        w = quic_frame_enc_stop_sending(b->p, room, id, st->reset_code);
        k = w ? quic_frame_enc_reset_stream(b->p + w, room - w, id, st->reset_code, st->sent) : 0;
        if (k == 0)
            return false;
        b->p += w + k;
        add_chunk(c, b, id, 0, 0, CH_RESET, false);
        st->reset_out = false;
        b->eliciting = true;
        if (st->n & DETACHED)
            st->n = NONE; /* the abandoned stream's slot is free now */
        return true;
    }
    /* Opened in 0-RTT under a remembered MAX_STREAMS that a rejecting
     * server lowered: it waits for MAX_STREAMS (quic_streams_established
     * queues it again). */
    if (st->n >= c->peer_max_streams)
        return true;
    while (st->sent < st->len || !st->fin_sent) {
        uint64_t limit = min_u64(st->len, st->send_max);
        /* Bytes never sent before also need connection credit (§4.1);
         * bytes sent again after a loss do not: the server counts each
         * offset once, and charging resends would use up MAX_DATA until
         * the stream stalled for good. */
        uint64_t fresh_room = c->send_max > c->sent_total ? c->send_max - c->sent_total : 0;
        uint64_t want = limit > st->sent ? limit - st->sent : 0;
        uint64_t resend = st->max_sent > st->sent ? st->max_sent - st->sent : 0;
        if (want > resend + fresh_room)
            want = resend + fresh_room;
        bool fin = st->sent + want == st->len;
        if (want == 0 && !(fin && st->sent == st->len))
            return true; /* blocked by flow control: the stream waits for credit */
        if (b->m->chunk_n >= CHUNKS_PER_PKT || b->chunk_room == 0)
            return false;
        w = quic_frame_enc_stream(b->p, (size_t)(b->end - b->p), id, st->sent, st->data + st->sent, (size_t)want, fin,
                                  false, &k);
        if (w == 0)
            return false;
        add_chunk(c, b, id, st->sent, (uint32_t)k, CH_DATA, fin && k == want);
        b->p += w;
        st->sent += (uint32_t)k;
        if (st->sent > st->max_sent) {
            c->sent_total += st->sent - (st->max_sent > st->sent - k ? st->max_sent : st->sent - k);
            st->max_sent = st->sent;
        }
        b->eliciting = true;
        if (fin && k == want)
            st->fin_sent = true;
        if (k < want)
            return false;
    }
    return true;
}

void quic_streams_write(struct quic_conn *c, struct pkt_builder *b)
{
    size_t w;

    if (c->need_max_data && (w = quic_frame_enc_max_data(b->p, (size_t)(b->end - b->p), c->recv_max))) {
        b->p += w;
        c->need_max_data = false;
        b->m->flags |= M_MAX_DATA;
        b->eliciting = true;
    }
    if (c->need_streams_blocked && !c->streams_blocked_sent) {
        /* STREAMS_BLOCKED (type 0x16) with the limit we hit (§19.14). */
        uint8_t *q = b->p;
        if (b->end - q >= 9) {
            *q++ = QUIC_FT_STREAMS_BLOCKED;
            q = quic_varint_put(q, b->end, c->peer_max_streams);
            if (q != NULL) {
                b->p = q;
                c->streams_blocked_sent = true;
                c->need_streams_blocked = false;
                b->m->flags |= M_STREAMS_BLOCKED;
                b->eliciting = true;
            }
        }
    }
    for (unsigned i = 0; i < UNI_MAX; i++) {
        struct ustream *u = &c->uni[i];
        if (!u->need_msd || b->m->chunk_n >= CHUNKS_PER_PKT || b->chunk_room == 0)
            continue;
        w = quic_frame_enc_max_stream_data(b->p, (size_t)(b->end - b->p), ((uint64_t)i << 2) | 3, u->recv_max);
        if (w == 0)
            break;
        b->p += w;
        add_chunk(c, b, ((uint64_t)i << 2) | 3, 0, 0, CH_MSD, false);
        u->need_msd = false;
        b->eliciting = true;
    }
    for (unsigned i = 0; i < c->ours_n; i++) {
        struct our_uni *u = &c->ours[i];
        size_t k;
        if (u->sent >= u->len || b->m->chunk_n >= CHUNKS_PER_PKT || b->chunk_room == 0)
            continue;
        uint64_t id = ((uint64_t)i << 2) | 2;
        w = quic_frame_enc_stream(b->p, (size_t)(b->end - b->p), id, u->sent, u->data + u->sent, u->len - u->sent,
                                  false, false, &k);
        if (w == 0)
            break;
        add_chunk(c, b, id, u->sent, (uint32_t)k, CH_DATA, false);
        b->p += w;
        u->sent += (uint32_t)k;
        b->eliciting = true;
    }
    /* Request streams with something to send, in the order they asked. */
    while (c->q_head != UINT32_MAX) {
        struct rstream *st = &c->streams[c->q_head];
        if (!write_stream(c, b, st))
            return; /* the packet is full; the stream stays at the head */
        c->q_head = st->next;
        if (c->q_head == UINT32_MAX)
            c->q_tail = UINT32_MAX;
        st->queued = false;
    }
}

void quic_streams_on_lost(struct quic_conn *c, const struct pkt_meta *m)
{
    for (uint16_t i = 0; i < m->chunk_n; i++) {
        const struct chunk *ch = &c->chunks[(m->chunk_first + i) & (CHUNK_CAP - 1)];
        if ((ch->id & 3) == 2) {
            struct our_uni *u = &c->ours[ch->id >> 2];
            if (ch->off < u->sent)
                u->sent = ch->off;
            continue;
        }
        if ((ch->id & 3) == 3) {
            if (ch->kind == CH_MSD)
                c->uni[ch->id >> 2].need_msd = true;
            continue;
        }
        struct rstream *st = stream_of(c, ch->id >> 2);
        if (st == NULL)
            continue; /* closed since: nothing of it matters any more */
        if (ch->kind == CH_DATA) {
            if (ch->off < st->sent)
                st->sent = ch->off;
            if (ch->fin)
                st->fin_sent = false;
        } else if (ch->kind == CH_MSD) {
            st->need_msd = true;
        } else {
            st->reset_out = true;
        }
        queue_stream(c, st);
    }
}

/* ---- 0-RTT ------------------------------------------------------------------- */

/* The streams open now (not free, not detached). */
static bool stream_open(const struct rstream *st) { return st->n != NONE && !(st->n & DETACHED); }

void quic_streams_restart(struct quic_conn *c, uint64_t send_max)
{
    c->sent_total = 0;
    for (unsigned i = 0; i < c->ours_n; i++) {
        c->ours[i].sent = 0;
        c->sent_total += c->ours[i].len; /* charged when opened (quic_conn_open_uni) */
    }
    for (uint32_t i = 0; i < c->ring; i++) {
        struct rstream *st = &c->streams[i];
        if (!stream_open(st))
            continue;
        st->sent = st->max_sent = 0;
        st->fin_sent = false;
        st->send_max = send_max;
        queue_stream(c, st);
    }
}

void quic_streams_established(struct quic_conn *c)
{
    for (uint32_t i = 0; i < c->ring; i++) {
        struct rstream *st = &c->streams[i];
        if (!stream_open(st))
            continue;
        st->send_max = max_u64(st->send_max, c->peer.initial_max_stream_data_bidi_remote);
        if (st->sent < st->len || !st->fin_sent)
            queue_stream(c, st);
    }
}

/* ---- the application's side (quic/conn.h) ----------------------------------- */

uint32_t quic_conn_ring(const struct quic_conn *c) { return c->ring; }
uint32_t quic_conn_ring_for(const struct quic_conn_config *cfg) { return ring_size(cfg); }
uint32_t quic_conn_slot(const struct quic_conn *c, uint64_t id) { return (uint32_t)((id >> 2) & c->ring_mask); }
uint32_t quic_conn_open_streams(const struct quic_conn *c) { return c->open_streams; }

bool quic_conn_can_open(struct quic_conn *c)
{
    bool sendable = c->state == QUIC_ESTABLISHED || (c->state == QUIC_HANDSHAKING && c->has_early_wr);
    if (!sendable || c->close_pending || c->open_streams >= c->cfg->max_streams)
        return false;
    if (c->next_n >= c->peer_max_streams) {
        if (!c->streams_blocked_sent)
            c->need_streams_blocked = true;
        return false;
    }
    return c->streams[c->next_n & c->ring_mask].n == NONE;
}

uint64_t quic_conn_open(struct quic_conn *c, const uint8_t *data, size_t len)
{
    uint64_t n = c->next_n++;
    struct rstream *st = &c->streams[n & c->ring_mask];
    *st = (struct rstream){
        .n = n,
        .data = data,
        .len = (uint32_t)len,
        .send_max = c->peer.initial_max_stream_data_bidi_remote,
        .recv_max = c->cfg->stream_window,
        .next = UINT32_MAX,
    };
    c->open_streams++;
    queue_stream(c, st);
    return n << 2;
}

uint64_t quic_conn_open_uni(struct quic_conn *c, const uint8_t *data, size_t len)
{
    if (c->ours_n >= OUR_UNI_MAX || c->ours_n >= c->peer_max_uni ||
        (c->state != QUIC_ESTABLISHED && !c->has_early_wr))
        return UINT64_MAX;
    /* Our unidirectional streams are tiny (a type byte, a SETTINGS frame):
     * they fit the smallest stream window a server may give (§4.1 aside,
     * a window under 64 bytes would stall them, which is the server's
     * choice). */
    c->ours[c->ours_n] = (struct our_uni){ .data = data, .len = (uint32_t)len, .used = true };
    c->sent_total += len;
    return ((uint64_t)c->ours_n++ << 2) | 2;
}

void quic_conn_close_stream(struct quic_conn *c, uint64_t id, uint64_t code)
{
    struct rstream *st = stream_of(c, id >> 2);
    if (st == NULL || (id & 3) != 0)
        return;
    quic_pool_drop_key(c, id);
    /* Whatever the server sent that we did not consume still counts for
     * the connection's credit. */
    if (st->highest > st->recv_off) {
        bool need = false;
        c->recv_consumed += st->highest - st->recv_off;
        consumed(&c->recv_max, c->recv_consumed, c->cfg->conn_window, &need);
        c->need_max_data |= need;
    }
    if (code != 0 && !(st->fin_recv && st->recv_off == st->final_size)) {
        /* Abandoned (RFC 9000 §3.5, RFC 9114 §4.1.1): STOP_SENDING for the
         * response and RESET_STREAM for our side, both best effort — the
         * slot is reused at once, and a lost one is not sent again. */
        st->reset_code = code;
        st->reset_out = true;
        st->need_msd = false;
        st->sent = st->len;
        st->fin_sent = true;
        /* Sent from a detached record: keep the slot's number until it
         * goes out, marking it closed for receiving. */
        st->fin_recv = true;
        st->final_size = st->highest;
        st->recv_off = st->highest;
        queue_stream(c, st);
        c->open_streams--;
        st->n |= DETACHED; /* closed: stream_of no longer finds it */
        return;
    }
    if (st->queued) {
        /* Still in the send queue (nothing left but, e.g., a credit update):
         * take it out. */
        uint32_t slot = (uint32_t)(st - c->streams), prev = UINT32_MAX;
        for (uint32_t i = c->q_head; i != UINT32_MAX; prev = i, i = c->streams[i].next)
            if (i == slot) {
                if (prev == UINT32_MAX)
                    c->q_head = st->next;
                else
                    c->streams[prev].next = st->next;
                if (c->q_tail == slot)
                    c->q_tail = prev;
                break;
            }
    }
    st->n = NONE;
    st->queued = false;
    c->open_streams--;
}
