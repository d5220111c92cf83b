/* h2.c — HTTP/2 client connection engine (RFC 9113), sans-I/O. See h2.h.
 *
 * Layout of the caller's block (h2_conn_size):
 *
 *   [struct h2_conn][stream ring: nslots x struct h2_stream][output buffer][HPACK state]
 *
 * The HPACK state (the :status scanner's 4 KB literal buffer and the peer's
 * 4 KB dynamic table) comes last and is never cleared: it is written before
 * it is read, so a connection whose peer never indexes touches only its
 * first pages, and 10,000 idle connections stay small in resident memory.
 *
 * Stream ring. Stream ids are odd and increase by 2, so slot = (id >> 1) &
 * mask, with mask + 1 a power of two >= 4 x parallel. A slot holds one open
 * stream; it is freed the moment the stream closes. A frame whose id maps to
 * a slot holding another id is for a closed stream (id below the next one we
 * would open) or an idle one (§5.1). A slot still held by an old open stream
 * blocks h2_can_start until that stream ends (rare: the server must sit on one
 * stream while 4 x parallel newer ones finish).
 *
 * Output buffer. h2_out hands out bytes [0, out_len); new frames are appended
 * behind them and nothing moves until h2_out_ack, which slides the unsent
 * tail to the front. Three limits inside it:
 *   out_normal                 HEADERS and DATA of requests stop here. DATA stops
 *                              one request's HEADERS earlier, so bodies cannot
 *                              starve new streams;
 *   out_cap - H2_GOAWAY_LEN    control frames (SETTINGS ACK, PING ACK,
 *                              WINDOW_UPDATE, RST_STREAM) may use the reserve up to
 *                              here; past it the peer is flooding us (H2_ERR_OUT_FULL);
 *   out_cap                    the final GOAWAY always fits.
 *
 * Receive path. One frame at a time: a 9-byte header (parsed straight from
 * the caller's bytes when all 9 are there, else gathered in hbuf), then the
 * payload, handled in place in whatever pieces arrive. Payload kinds:
 *   PK_SKIP   counted and dropped (unknown types, PRIORITY, GOAWAY debug data);
 *   PK_DATA   optional pad length byte, then skipped by count;
 *   PK_BLOCK  HEADERS/CONTINUATION: pad length, 5 priority bytes, the field
 *             block fragment (fed to the :status scanner as it comes), padding;
 *   PK_FIXED  fixed units (6-byte settings, PING's 8, RST_STREAM's and
 *             WINDOW_UPDATE's 4, GOAWAY's first 8): used in place when whole,
 *             else gathered in acc.
 * Field blocks cannot interleave (§4.3), so one scanner and one HPACK
 * dynamic table for the whole connection are enough: no per-stream HPACK
 * state. Every block goes through them in order, whatever its stream's
 * state: closed streams' blocks and trailers too, since any block may change
 * the table (§4.3).
 *
 * HPACK dynamic table. We advertise SETTINGS_HEADER_TABLE_SIZE (0 unless
 * --header-table-size says otherwise, at most 4096), but the table starts
 * at the protocol's 4096 bytes (RFC 9113 §4.3.1, RFC 7541 §4.2), and the
 * peer's encoder lowers it only with a size update at the start of a block
 * (RFC 7541 §4.2, §6.3), which RFC 9113 §4.3.1 requires once it has
 * acknowledged our SETTINGS. Some servers (h2o 2.2) never send one: they
 * insert and refer to entries with our SETTINGS long acknowledged. RFC 9113
 * §4.3.1 itself warns that reducing the setting "is not widely
 * interoperable", so we are lenient rather than strict (a strict decoder
 * would fail every such connection with COMPRESSION_ERROR): the decoder's
 * limit stays HPACK_TABLE_MAX (4096) for the whole connection, whatever we
 * advertise, a size update may set any capacity up to it, and a peer that
 * never sends one keeps 4096. Servers that honour a setting of 0
 * insert nothing (nginx starts with a size update to 0), and then the
 * scanner collects nothing and costs what it did without a table (hpack.h).
 *
 * Send flow control. Streams with request body left sit in a FIFO (intrusive
 * list through the ring slots). pump() walks it round-robin, one DATA frame
 * per turn, within the connection window, the stream window, the peer's
 * MAX_FRAME_SIZE and the output space. A stream whose own window is
 * exhausted leaves the queue; the WINDOW_UPDATE or SETTINGS that reopens it
 * puts it back. When the connection window is exhausted the queue just waits.
 *
 * Receive flow control. Every DATA payload (padding included, §6.1) is
 * counted against the connection and the stream; credit goes back in
 * batches: the connection at half of its window (h2_local.conn_window), a
 * stream at half of SETTINGS_INITIAL_WINDOW_SIZE (not when that frame ends
 * the stream). A connection window below the 65,535 it starts at (§6.9.2)
 * is reached by holding credit back: the first WINDOW_UPDATE goes out when
 * the peer's remaining window has fallen to half of ours. Since credit
 * is returned as bytes are counted, a peer cannot overrun us with legal frame
 * sizes; the FLOW_CONTROL_ERROR checks are there for a peer that ignores our
 * windows altogether.
 *
 * Sizing (h2_conn_size): parallel is capped at 65536; the ring has
 * pow2 >= 4 x parallel slots; out_normal = parallel x (framed request block +
 * 32, + 9 + min(body, 16384) with a body), clamped to [16 KiB, 256 KiB] and
 * at least 2 framed request blocks + 16 KiB; plus a 4 KiB control reserve and
 * room for the GOAWAY.
 *
 * Callbacks. fn may call h2_can_start / h2_start (state is settled before
 * every event); it must not call h2_recv, h2_conn_lost or h2_conn_init.
 *
 * Simplifications, each a connection error where §6 allows a stream error:
 * PRIORITY with a length other than 5 (§6.3), and DATA overrunning a stream's
 * window (§6.9.1). Content-length is checked against the DATA of final
 * responses (§8.1.1) except 204, 304 and HEAD's. */
#include "h2.h"

#include <string.h>

/* Frame types (§6) and flags. */
enum {
    FT_DATA = 0x0,
    FT_HEADERS = 0x1,
    FT_PRIORITY = 0x2,
    FT_RST_STREAM = 0x3,
    FT_SETTINGS = 0x4,
    FT_PUSH_PROMISE = 0x5,
    FT_PING = 0x6,
    FT_GOAWAY = 0x7,
    FT_WINDOW_UPDATE = 0x8,
    FT_CONTINUATION = 0x9,
    FT_COUNT
};
#define FL_END_STREAM 0x01
#define FL_ACK 0x01
#define FL_END_HEADERS 0x04
#define FL_PADDED 0x08
#define FL_PRIORITY 0x20

/* Error codes (§7). */
#define EC_NO_ERROR 0x0
#define EC_PROTOCOL 0x1
#define EC_FLOW_CONTROL 0x3
#define EC_FRAME_SIZE 0x6
#define EC_REFUSED_STREAM 0x7
#define EC_CANCEL 0x8
#define EC_COMPRESSION 0x9
#define EC_ENHANCE_YOUR_CALM 0xb

/* Settings (§6.5.2). */
#define S_HEADER_TABLE_SIZE 0x1
#define S_ENABLE_PUSH 0x2
#define S_MAX_CONCURRENT_STREAMS 0x3
#define S_INITIAL_WINDOW_SIZE 0x4
#define S_MAX_FRAME_SIZE 0x5

#define H2_MAX_WINDOW 0x7fffffff          /* §6.9.1 */
#define H2_MAX_STREAM_ID 0x7fffffffu      /* §5.1.1 */
#define H2_DEFAULT_WINDOW 65535           /* §6.9.2 */
#define H2_MIN_MAX_FRAME 16384            /* §6.5.2 */
#define H2_MAX_MAX_FRAME H2_MAX_FRAME_SIZE_MAX
/* Until the peer's first SETTINGS we assume the smallest limit §6.5.2
 * recommends, rather than "unlimited", so a -p above it does not start a
 * burst of streams a typical server would refuse. */
#define H2_STREAMS_BEFORE_SETTINGS 100

#define H2_FRAME_HDR 9
#define H2_GOAWAY_LEN (H2_FRAME_HDR + 8)
#define H2_CTL_RESERVE 4096               /* ~240 PING ACKs between two sends */
#define H2_OUT_NORMAL_MIN (16u << 10)
#define H2_OUT_NORMAL_MAX (256u << 10)
#define H2_MAX_PARALLEL (1u << 16)        /* bounds the ring: -p is a uint32 */
#define H2_NONE UINT32_MAX

static const uint8_t preface[24] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"; /* §3.4 */

/* Stream flags. */
#define SF_FINAL 0x01      /* final (non-1xx) response HEADERS received */
#define SF_STARTED 0x02    /* some response HEADERS arrived: first_at holds when */
#define SF_LOCAL_DONE 0x04 /* our END_STREAM is queued */
#define SF_QUEUED 0x08     /* in the body queue */

/* At most 80 bytes: a slot's address, taken on every frame, stays two cheap
 * multiplies (88 cost 10 instructions a request). */
struct h2_stream {
    uint64_t tag, tag2;
    uint64_t first_at;     /* SF_STARTED: the `now` of the h2_recv call that brought its first HEADERS */
    int64_t clen;          /* the final response's content-length, -1: none or not checked (§8.1.1) */
    uint64_t data;         /* DATA payload received, padding excluded */
    uint32_t body_off;     /* request body bytes queued so far */
    uint32_t req;          /* which request (h2_config.requests) it sends */
    int64_t send_window;   /* peer's window for this stream; may go negative (§6.9.2) */
    uint32_t head_bytes;   /* the response's field blocks so far, 1xx included (H2_MAX_FIELD_BLOCK) */
    uint32_t id;           /* 0: slot free */
    uint32_t recv_unacked; /* DATA bytes received since the last stream WINDOW_UPDATE */
    uint32_t qprev, qnext; /* body queue links (slot indices) */
    uint16_t status;
    uint8_t flags;
};
_Static_assert(sizeof(struct h2_stream) <= 80, "struct h2_stream outgrew 80 bytes");

enum { PK_SKIP, PK_DATA, PK_BLOCK, PK_FIXED };

struct h2_conn {
    const struct h2_config *cfg;
    const struct h2_request *reqs; /* cfg->requests, or &single: the one request */
    struct h2_request single;
    struct h2_stream *slots;
    uint8_t *out;
    size_t out_len;
    size_t out_cap;
    size_t out_normal;
    size_t hdr_reserve;    /* framed size of one request's HEADERS at the 16384 minimum */
    size_t hdr_bytes;      /* framed size at the peer's current MAX_FRAME_SIZE */
    uint8_t enc;           /* which request block the next stream sends (ENC_*) */
    uint32_t mask;
    uint32_t parallel;
    uint32_t next_id;
    uint32_t oldest;       /* no stream below this id is open (h2_oldest) */
    uint32_t open;
    uint32_t qhead, qtail;

    /* peer's settings and our send windows */
    uint32_t peer_max_streams;
    uint32_t peer_max_frame;
    uint32_t peer_initial_window;
    uint32_t new_initial_window; /* INITIAL_WINDOW_SIZE seen in the SETTINGS frame being read */
    bool initial_window_changed;
    int64_t send_window;

    /* our receive side (h2_local) */
    uint32_t stream_window;  /* SETTINGS_INITIAL_WINDOW_SIZE we sent */
    uint32_t conn_window;    /* the connection window we keep the peer to */
    uint32_t max_frame;      /* SETTINGS_MAX_FRAME_SIZE we sent */
    int64_t recv_avail;      /* connection DATA the peer may still send: its view of our window */

    uint32_t goaway_last;
    bool goaway;
    bool bye_sent;         /* our GOAWAY NO_ERROR for stream id exhaustion is queued */
    bool got_settings;
    int dead;              /* 0, or the H2_ERR_* that ended the connection */

    h2_event_fn fn;
    void *ctx;
    uint64_t now;          /* the current h2_recv call's: opaque, handed back as first_byte_at */

    /* receive state machine */
    bool in_payload;
    uint8_t hlen;
    uint8_t hbuf[H2_FRAME_HDR];
    uint8_t ftype, fflags, pkind;
    uint32_t fid;
    uint32_t left;         /* payload bytes of the current frame still to come */
    uint32_t flen;         /* the current frame's length */
    bool need_pad;
    uint8_t prio_left;
    uint8_t unit;
    uint8_t acc_len;
    uint8_t acc[8];
    uint32_t pad;
    uint32_t cont_id;      /* != 0: a field block is open on this stream; only its CONTINUATION may follow */
    uint32_t block_id;     /* stream the current field block belongs to; 0: a closed stream's, results ignored */
    bool block_es;         /* the block's HEADERS carried END_STREAM */
    bool block_done;       /* the scanner has seen the block's last fragment */
    uint32_t block_bytes;  /* the current field block's frames, headers included (H2_MAX_FIELD_BLOCK) */
    uint32_t ctl_flood;    /* PING/SETTINGS since the last response progress (H2_MAX_CTL_FLOOD) */
    struct h2_hpack *hp;   /* at the block's end (see the top of the file) */
};

struct h2_hpack {
    struct hpack_status_scan scan; /* the current field block (reset per block) */
    struct hpack_decoder rtable;   /* the peer's HPACK dynamic table for responses (kept per connection) */
};

/* ------------------------------------------------------------ helpers */

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint8_t *wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

static inline uint8_t *put_head(uint8_t *o, uint32_t len, uint8_t type, uint8_t flags, uint32_t id)
{
    o[0] = (uint8_t)(len >> 16);
    o[1] = (uint8_t)(len >> 8);
    o[2] = (uint8_t)len;
    o[3] = type;
    o[4] = flags;
    return wr32(o + 5, id);
}

static inline size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* Which request block a stream sends (h2_config): the one that indexes
 * (the connection's first stream), the one that refers to what it indexed,
 * the plain one, or the plain one behind a table size update to 0 (once,
 * after the peer lowered SETTINGS_HEADER_TABLE_SIZE: with or without
 * indexing, a decoder that lowers its table may insist on the update), and
 * from then on the plain one with our table at 0 (ENC_ZEROED). */
enum { ENC_FIRST, ENC_NEXT, ENC_PLAIN, ENC_PLAIN_RESET, ENC_ZEROED };
static const uint8_t size_update_0 = 0x20; /* RFC 7541 §6.3: 001, max size 0 */

/* The largest request block any stream may send: output room is reserved
 * for it. */
static size_t max_block_len(const struct h2_config *cfg)
{
    size_t n = cfg->request_block_len + 1; /* + the size update */
    for (uint32_t i = 0; i < cfg->nrequests; i++)
        if (cfg->requests[i].block_len + 1 > n)
            n = cfg->requests[i].block_len + 1;
    if (cfg->request_first && cfg->request_first_len > n)
        n = cfg->request_first_len;
    if (cfg->request_first && cfg->request_next_len > n)
        n = cfg->request_next_len;
    return n;
}

/* Bytes of a field block of len bytes framed as HEADERS + CONTINUATION at maxf. */
static size_t framed_len(size_t len, uint32_t maxf)
{
    size_t frames = len ? (len + maxf - 1) / maxf : 1;
    return len + frames * H2_FRAME_HDR;
}

struct h2_layout {
    uint32_t parallel, nslots;
    size_t slots_off, out_off, out_normal, out_cap, hp_off, total;
};

const struct h2_local h2_local_defaults = {
    .header_table_size = H2_OUR_HEADER_TABLE_SIZE,
    .stream_window = H2_OUR_INITIAL_WINDOW,
    .conn_window = H2_OUR_CONN_WINDOW,
    .max_frame_size = H2_OUR_MAX_FRAME_SIZE,
};

static void layout(const struct h2_config *cfg, struct h2_layout *l)
{
    uint32_t p = cfg->parallel ? cfg->parallel : 1;
    if (p > H2_MAX_PARALLEL)
        p = H2_MAX_PARALLEL;
    uint32_t n = 4;
    while (n < 4 * p)
        n <<= 1;
    l->parallel = p;
    l->nslots = n;

    size_t hdr = framed_len(max_block_len(cfg), H2_MIN_MAX_FRAME);
    size_t per_req = hdr + 32;
    size_t body_max = cfg->has_body ? H2_FRAME_HDR + min_sz(cfg->body_len, H2_MIN_MAX_FRAME) : 0;
    for (uint32_t i = 0; i < cfg->nrequests; i++)
        if (cfg->requests[i].has_body && H2_FRAME_HDR + min_sz(cfg->requests[i].body_len, H2_MIN_MAX_FRAME) > body_max)
            body_max = H2_FRAME_HDR + min_sz(cfg->requests[i].body_len, H2_MIN_MAX_FRAME);
    per_req += body_max;
    uint64_t normal = (uint64_t)p * per_req;
    if (normal < H2_OUT_NORMAL_MIN)
        normal = H2_OUT_NORMAL_MIN;
    if (normal > H2_OUT_NORMAL_MAX)
        normal = H2_OUT_NORMAL_MAX;
    if (normal < 2 * (uint64_t)hdr + H2_MIN_MAX_FRAME) /* a huge request block still fits, with DATA room */
        normal = 2 * (uint64_t)hdr + H2_MIN_MAX_FRAME;
    l->out_normal = (size_t)normal;
    l->out_cap = l->out_normal + H2_CTL_RESERVE + H2_GOAWAY_LEN;

    size_t a = _Alignof(struct h2_stream);
    l->slots_off = (sizeof(struct h2_conn) + a - 1) / a * a;
    l->out_off = l->slots_off + (size_t)n * sizeof(struct h2_stream);
    size_t b = _Alignof(struct h2_hpack);
    l->hp_off = (l->out_off + l->out_cap + b - 1) / b * b;
    l->total = l->hp_off + sizeof(struct h2_hpack);
}

static inline struct h2_stream *slot_of(const struct h2_conn *c, uint32_t id)
{
    return &c->slots[(id >> 1) & c->mask];
}

/* The open stream with this id, or NULL (closed, or never opened). */
static inline struct h2_stream *find(const struct h2_conn *c, uint32_t id)
{
    struct h2_stream *s = slot_of(c, id);
    return s->id == id ? s : NULL;
}

/* Frames on a stream-bearing type: idle streams are a PROTOCOL_ERROR (§5.1:
 * even ids would be server-initiated, and push is off; odd ids at or above
 * next_id were never opened). *sp: the open stream, or NULL if closed. */
static inline int lookup(const struct h2_conn *c, uint32_t id, struct h2_stream **sp)
{
    if (!(id & 1) || id >= c->next_id)
        return H2_ERR_PROTOCOL;
    *sp = find(c, id);
    return 0;
}

/* Stream s's outcome, taken before close_stream frees its slot (the
 * callback may start a stream in it). Inlined so that each call's constant
 * kind folds away what does not apply to it: the RESPONSE is per request. */
static inline __attribute__((always_inline)) struct h2_event event_of(const struct h2_conn *c, const struct h2_stream *s, enum h2_event_kind kind,
                                uint32_t code)
{
    bool started = s->flags & SF_STARTED;
    return (struct h2_event){
        .kind = kind, .tag = s->tag, .tag2 = s->tag2, .req = s->req, .stream_id = s->id,
        .status = kind == H2_EV_RESPONSE ? s->status : 0, .error_code = code,
        .response_started = started, .first_byte_at = started ? s->first_at : 0,
        .recv_bytes = s->head_bytes + s->data,
        /* A GOAWAY that kept some stream of ours says the server works; it
         * just closes connections (e.g. every N requests). */
        .peer_progress = kind == H2_EV_RETRY && c->goaway && c->goaway_last > 0,
    };
}

static void fire(struct h2_conn *c, const struct h2_event *ev)
{
    if (c->fn)
        c->fn(c->ctx, ev);
}

/* ------------------------------------------------------------ body queue */

static void q_push(struct h2_conn *c, struct h2_stream *s)
{
    uint32_t i = (uint32_t)(s - c->slots);
    s->qnext = H2_NONE;
    s->qprev = c->qtail;
    if (c->qtail != H2_NONE)
        c->slots[c->qtail].qnext = i;
    else
        c->qhead = i;
    c->qtail = i;
    s->flags |= SF_QUEUED;
}

static void q_remove(struct h2_conn *c, struct h2_stream *s)
{
    if (s->qprev != H2_NONE)
        c->slots[s->qprev].qnext = s->qnext;
    else
        c->qhead = s->qnext;
    if (s->qnext != H2_NONE)
        c->slots[s->qnext].qprev = s->qprev;
    else
        c->qtail = s->qprev;
    s->flags &= (uint8_t)~SF_QUEUED;
}

static inline bool body_pending(const struct h2_conn *c, const struct h2_stream *s)
{
    return c->reqs[s->req].has_body && !(s->flags & SF_LOCAL_DONE);
}

/* A stream with body left and a positive window joins the queue. */
static void maybe_queue(struct h2_conn *c, struct h2_stream *s)
{
    if (!(s->flags & SF_QUEUED) && body_pending(c, s) && s->send_window > 0)
        q_push(c, s);
}

/* ------------------------------------------------------------ output */

/* Queues a control frame; it may use the reserve but not the GOAWAY's room. */
static int ctl(struct h2_conn *c, uint8_t type, uint8_t flags, uint32_t id, const uint8_t *pl, uint32_t plen)
{
    if (c->out_len + H2_FRAME_HDR + plen > c->out_cap - H2_GOAWAY_LEN)
        return H2_ERR_OUT_FULL;
    uint8_t *o = put_head(c->out + c->out_len, plen, type, flags, id);
    if (plen)
        memcpy(o, pl, plen);
    c->out_len += H2_FRAME_HDR + plen;
    return 0;
}

static int ctl32(struct h2_conn *c, uint8_t type, uint32_t id, uint32_t v)
{
    uint8_t b[4];
    wr32(b, v);
    return ctl(c, type, 0, id, b, 4);
}

/* Request DATA: round-robin over the queue, one frame per stream per turn. */
static void pump(struct h2_conn *c)
{
    size_t limit = c->out_normal - c->hdr_reserve;
    while (c->qhead != H2_NONE) {
        struct h2_stream *s = &c->slots[c->qhead];
        const struct h2_request *req = &c->reqs[s->req];
        size_t left = req->body_len - s->body_off;
        size_t room = limit > c->out_len ? limit - c->out_len : 0;
        if (room < H2_FRAME_HDR + (left ? 1 : 0))
            return; /* h2_out_ack calls again */
        if (left == 0) { /* has_body with an empty body: a bare END_STREAM (no window needed, §6.9) */
            put_head(c->out + c->out_len, 0, FT_DATA, FL_END_STREAM, s->id);
            c->out_len += H2_FRAME_HDR;
            s->flags |= SF_LOCAL_DONE;
            q_remove(c, s);
            continue;
        }
        if (s->send_window <= 0) { /* waits for its WINDOW_UPDATE */
            q_remove(c, s);
            continue;
        }
        if (c->send_window <= 0)
            return; /* connection window: everybody waits */
        size_t k = min_sz(left, (size_t)s->send_window);
        k = min_sz(k, (size_t)c->send_window);
        k = min_sz(k, c->peer_max_frame);
        k = min_sz(k, room - H2_FRAME_HDR);
        bool last = k == left;
        uint8_t *o = put_head(c->out + c->out_len, (uint32_t)k, FT_DATA, last ? FL_END_STREAM : 0, s->id);
        memcpy(o, req->body + s->body_off, k);
        c->out_len += H2_FRAME_HDR + k;
        s->body_off += (uint32_t)k;
        s->send_window -= (int64_t)k;
        c->send_window -= (int64_t)k;
        q_remove(c, s);
        if (last)
            s->flags |= SF_LOCAL_DONE;
        else if (s->send_window > 0)
            q_push(c, s); /* to the back: fairness between bodies */
    }
}

/* ------------------------------------------------------------ streams */

static void close_stream(struct h2_conn *c, struct h2_stream *s)
{
    if (s->flags & SF_QUEUED)
        q_remove(c, s);
    s->id = 0;
    c->open--;
}

/* Closes s and reports its outcome. */
static inline __attribute__((always_inline)) void close_reporting(struct h2_conn *c, struct h2_stream *s, enum h2_event_kind kind, uint32_t code)
{
    struct h2_event ev = event_of(c, s, kind, code);
    close_stream(c, s);
    fire(c, &ev);
}

/* The response ended (END_STREAM after final headers / data / trailers). */
static int complete(struct h2_conn *c, struct h2_stream *s)
{
    uint32_t id = s->id;
    bool body_left = body_pending(c, s);
    close_reporting(c, s, H2_EV_RESPONSE, 0);
    /* The server answered before our body was all sent (§8.1): stop sending
     * and close our half, or the stream would stay open on the server. */
    return body_left ? ctl32(c, FT_RST_STREAM, id, EC_CANCEL) : 0;
}

/* Stream error (§5.4.2): RST_STREAM with code. The request failed because
 * the server broke a rule: H2_EV_MALFORMED, not the server's own reset. */
__attribute__((cold)) static int stream_error(struct h2_conn *c, struct h2_stream *s, uint32_t code)
{
    struct h2_event ev = event_of(c, s, H2_EV_MALFORMED, code);
    close_stream(c, s);
    int rc = ctl32(c, FT_RST_STREAM, ev.stream_id, code);
    fire(c, &ev);
    return rc;
}

static uint32_t err_code(int err)
{
    switch (err) {
    case H2_ERR_PROTOCOL: return EC_PROTOCOL;
    case H2_ERR_FRAME_SIZE: return EC_FRAME_SIZE;
    case H2_ERR_COMPRESSION: return EC_COMPRESSION;
    case H2_ERR_FLOW_CONTROL: return EC_FLOW_CONTROL;
    case H2_ERR_OUT_FULL: return EC_ENHANCE_YOUR_CALM;
    case H2_ERR_CALM: return EC_ENHANCE_YOUR_CALM;
    default: return EC_NO_ERROR; /* H2_ERR_PEER_GOAWAY: we just say goodbye */
    }
}

const char *h2_error_name(uint32_t code)
{
    static const char *const names[] = { /* RFC 9113 §7 */
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
        "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
        "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : NULL;
}

const char *h2_recv_error_text(int err)
{
    switch (err) {
    case H2_ERR_PROTOCOL: return "HTTP/2 protocol error (sent GOAWAY PROTOCOL_ERROR)";
    case H2_ERR_FRAME_SIZE: return "frame over our SETTINGS_MAX_FRAME_SIZE (sent GOAWAY FRAME_SIZE_ERROR)";
    case H2_ERR_COMPRESSION: return "HPACK block that does not decode (sent GOAWAY COMPRESSION_ERROR)";
    case H2_ERR_FLOW_CONTROL: return "flow-control window overrun (sent GOAWAY FLOW_CONTROL_ERROR)";
    case H2_ERR_OUT_FULL: return "PING/SETTINGS flood (sent GOAWAY ENHANCE_YOUR_CALM)";
    case H2_ERR_CALM: return "oversized field block or control-frame flood (sent GOAWAY ENHANCE_YOUR_CALM)";
    case H2_ERR_PEER_GOAWAY: return "received GOAWAY with an error code";
    default: return "HTTP/2 connection error";
    }
}

/* RFC 9113 §5.1.1: stream ids are never reused, so once the next one would
 * pass 2^31-1 this connection opens no more streams, and the client "MUST
 * establish a new connection". When its last stream has closed, the
 * connection ends the orderly way (§6.8: a GOAWAY before closing; NO_ERROR,
 * last-stream-id 0 as we accept no server streams), once; its room is
 * always reserved in the output buffer. Not after a GOAWAY of the peer's,
 * which ends the connection its own way. */
static void ids_exhausted_bye(struct h2_conn *c)
{
    if (c->dead || c->goaway || c->bye_sent || c->next_id <= H2_MAX_STREAM_ID || c->open != 0 ||
        c->out_len + H2_GOAWAY_LEN > c->out_cap)
        return;
    uint8_t *o = put_head(c->out + c->out_len, 8, FT_GOAWAY, 0, 0);
    o = wr32(o, 0);
    wr32(o, EC_NO_ERROR);
    c->out_len += H2_GOAWAY_LEN;
    c->bye_sent = true;
}

/* Connection error (§5.4.1): GOAWAY, every open stream aborted, finished.
 * last-stream-id 0: we never accept a server-initiated stream. */
static int conn_error(struct h2_conn *c, int err)
{
    if (c->dead)
        return c->dead;
    c->dead = err;
    c->cont_id = 0;
    if (c->out_len + H2_GOAWAY_LEN <= c->out_cap) {
        uint8_t *o = put_head(c->out + c->out_len, 8, FT_GOAWAY, 0, 0);
        o = wr32(o, 0);
        wr32(o, err_code(err));
        c->out_len += H2_GOAWAY_LEN;
    }
    for (uint32_t i = 0; i <= c->mask && c->open; i++) {
        struct h2_stream *s = &c->slots[i];
        if (!s->id)
            continue;
        close_reporting(c, s, H2_EV_ABORTED, 0);
    }
    return err;
}

/* ------------------------------------------------------------ public: setup and send */

size_t h2_conn_size(const struct h2_config *cfg)
{
    struct h2_layout l;
    layout(cfg, &l);
    return l.total;
}

struct h2_conn *h2_conn_init(void *mem, const struct h2_config *cfg)
{
    struct h2_layout l;
    layout(cfg, &l);
    memset(mem, 0, l.out_off);
    struct h2_conn *c = mem;
    c->hp = (struct h2_hpack *)((uint8_t *)mem + l.hp_off);
    c->cfg = cfg;
    c->slots = (struct h2_stream *)((uint8_t *)mem + l.slots_off);
    c->out = (uint8_t *)mem + l.out_off;
    c->out_cap = l.out_cap;
    c->out_normal = l.out_normal;
    c->mask = l.nslots - 1;
    c->parallel = l.parallel;
    c->next_id = cfg->first_stream_id ? cfg->first_stream_id | 1 : 1;
    c->oldest = c->next_id;
    c->qhead = c->qtail = H2_NONE;
    c->peer_max_streams = H2_STREAMS_BEFORE_SETTINGS;
    c->peer_max_frame = H2_MIN_MAX_FRAME;
    c->peer_initial_window = H2_DEFAULT_WINDOW;
    c->send_window = H2_DEFAULT_WINDOW;
    c->hdr_reserve = c->hdr_bytes = framed_len(max_block_len(cfg), H2_MIN_MAX_FRAME);
    c->single = (struct h2_request){ cfg->request_block, cfg->request_block_len, cfg->body, cfg->body_len,
                                     cfg->has_body, cfg->head };
    c->reqs = cfg->requests ? cfg->requests : &c->single;
    c->enc = cfg->request_first && !cfg->requests ? ENC_FIRST : ENC_PLAIN;
    const struct h2_local *lo = cfg->local ? cfg->local : &h2_local_defaults;
    c->stream_window = lo->stream_window;
    c->conn_window = lo->conn_window;
    c->max_frame = lo->max_frame_size;
    /* The peer's table starts at the protocol's 4096 whatever we advertise,
     * and a size update may go up to it (see the top of the file). */
    hpack_decoder_init(&c->hp->rtable, HPACK_TABLE_MAX);

    /* §3.4: magic, then our SETTINGS (§6.5.2; MAX_FRAME_SIZE only when it
     * is not the default 16384), then credit for the connection window
     * (§6.9.2: only WINDOW_UPDATE can change it; a window below 65,535 is
     * reached by holding credit back, begin_data). */
    uint8_t *o = c->out;
    memcpy(o, preface, sizeof preface);
    const struct { uint16_t id; uint32_t v; } ours[4] = {
        { S_HEADER_TABLE_SIZE, lo->header_table_size },
        { S_ENABLE_PUSH, 0 },
        { S_INITIAL_WINDOW_SIZE, lo->stream_window },
        { S_MAX_FRAME_SIZE, lo->max_frame_size },
    };
    int n = lo->max_frame_size != H2_MIN_MAX_FRAME ? 4 : 3;
    o = put_head(o + sizeof preface, (uint32_t)(6 * n), FT_SETTINGS, 0, 0);
    for (int i = 0; i < n; i++) {
        *o++ = (uint8_t)(ours[i].id >> 8);
        *o++ = (uint8_t)ours[i].id;
        o = wr32(o, ours[i].v);
    }
    c->recv_avail = H2_DEFAULT_WINDOW;
    if (c->conn_window > H2_DEFAULT_WINDOW) {
        o = put_head(o, 4, FT_WINDOW_UPDATE, 0, 0);
        o = wr32(o, c->conn_window - H2_DEFAULT_WINDOW);
        c->recv_avail = c->conn_window;
    }
    c->out_len = (size_t)(o - c->out);
    return c;
}

bool h2_can_start(const struct h2_conn *c)
{
    uint32_t limit = c->parallel < c->peer_max_streams ? c->parallel : c->peer_max_streams;
    return !c->dead && !c->goaway && c->next_id <= H2_MAX_STREAM_ID && c->open < limit &&
           slot_of(c, c->next_id)->id == 0 && c->out_len + c->hdr_bytes <= c->out_normal;
}

uint32_t h2_start(struct h2_conn *c, uint64_t tag, uint64_t tag2, uint32_t req)
{
    if (!h2_can_start(c))
        return 0;
    const struct h2_config *cfg = c->cfg;
    if (!cfg->requests)
        req = 0;
    const struct h2_request *rq = &c->reqs[req];
    uint32_t id = c->next_id;
    c->next_id += 2;
    struct h2_stream *s = slot_of(c, id);
    memset(s, 0, sizeof *s);
    s->id = id;
    s->tag = tag;
    s->tag2 = tag2;
    s->req = req;
    s->clen = -1;
    s->send_window = c->peer_initial_window;
    c->open++;

    /* The block (see h2_config), with a one-byte prefix when the table
     * size update is due. */
    const uint8_t *b = rq->block, *pre = NULL;
    size_t blen = rq->block_len;
    switch (c->enc) {
    case ENC_FIRST:
        b = cfg->request_first;
        blen = cfg->request_first_len;
        c->enc = ENC_NEXT;
        break;
    case ENC_NEXT:
        b = cfg->request_next;
        blen = cfg->request_next_len;
        break;
    case ENC_PLAIN_RESET:
        pre = &size_update_0;
        c->enc = ENC_ZEROED;
        break;
    default:
        break;
    }
    /* HEADERS, then CONTINUATION frames if the block exceeds the peer's
     * MAX_FRAME_SIZE (§4.2, §6.10); END_STREAM rides on HEADERS (§8.1). */
    size_t left = blen + (pre ? 1 : 0);
    uint8_t type = FT_HEADERS;
    uint8_t flags = rq->has_body ? 0 : FL_END_STREAM;
    do {
        size_t k = min_sz(left, c->peer_max_frame);
        left -= k;
        uint8_t *o = put_head(c->out + c->out_len, (uint32_t)k, type, flags | (left ? 0 : FL_END_HEADERS), id);
        c->out_len += H2_FRAME_HDR + k;
        if (pre && k) {
            *o++ = *pre;
            pre = NULL;
            k--;
        }
        if (k)
            memcpy(o, b, k);
        b += k;
        type = FT_CONTINUATION;
        flags = 0;
    } while (left);

    if (rq->has_body) {
        maybe_queue(c, s);
        pump(c);
    } else {
        s->flags |= SF_LOCAL_DONE;
    }
    return id;
}

const uint8_t *h2_out(const struct h2_conn *c, size_t *len)
{
    *len = c->out_len;
    return c->out;
}

void h2_out_ack(struct h2_conn *c, size_t n)
{
    if (n >= c->out_len) {
        c->out_len = 0;
    } else {
        memmove(c->out, c->out + n, c->out_len - n);
        c->out_len -= n;
    }
    if (!c->dead)
        pump(c);
}

uint32_t h2_open_streams(const struct h2_conn *c) { return c->open; }

bool h2_oldest(struct h2_conn *c, uint32_t *id, uint64_t *tag)
{
    if (c->open == 0) {
        c->oldest = c->next_id;
        return false;
    }
    /* Each id is stepped over once in the connection's life. */
    while (c->oldest < c->next_id && !find(c, c->oldest))
        c->oldest += 2;
    const struct h2_stream *s = find(c, c->oldest);
    if (!s)
        return false;
    *id = s->id;
    *tag = s->tag;
    return true;
}

bool h2_cancel(struct h2_conn *c, uint32_t id, struct h2_event *out)
{
    struct h2_stream *s = find(c, id);
    if (c->dead || !s || ctl32(c, FT_RST_STREAM, id, EC_CANCEL) != 0)
        return false;
    if (out)
        *out = event_of(c, s, H2_EV_ABORTED, EC_CANCEL);
    close_stream(c, s);
    ids_exhausted_bye(c);
    return true;
}

bool h2_drained(const struct h2_conn *c)
{
    return (c->goaway || c->next_id > H2_MAX_STREAM_ID) && c->open == 0;
}

bool h2_ids_exhausted(const struct h2_conn *c)
{
    return c->bye_sent;
}

void h2_conn_lost(struct h2_conn *c, h2_event_fn fn, void *ctx)
{
    c->fn = fn;
    c->ctx = ctx;
    if (!c->dead)
        c->dead = H2_ERR_PROTOCOL; /* nothing more goes in or out */
    for (uint32_t i = 0; i <= c->mask && c->open; i++) {
        struct h2_stream *s = &c->slots[i];
        if (!s->id)
            continue;
        /* Streams above a GOAWAY's last id were already reported as RETRY
         * when it arrived; the test stays for safety. */
        close_reporting(c, s, c->goaway && s->id > c->goaway_last ? H2_EV_RETRY : H2_EV_ABORTED, 0);
    }
}

/* ------------------------------------------------------------ receive: frame starts */

static int begin_data(struct h2_conn *c)
{
    struct h2_stream *s;
    int rc = lookup(c, c->fid, &s);
    if (rc)
        return rc;
    if ((c->fflags & FL_PADDED) && c->left == 0)
        return H2_ERR_FRAME_SIZE; /* too small for its Pad Length (§4.2) */
    /* The whole payload counts, padding included (§6.1), and on the
     * connection even for a closed stream (§6.9). */
    c->recv_avail -= c->left;
    if (c->recv_avail < 0)
        return H2_ERR_FLOW_CONTROL; /* §6.9.1: beyond the window we gave */
    if (s) {
        if (!(s->flags & SF_FINAL))
            return H2_ERR_PROTOCOL; /* DATA before the final HEADERS (§8.1) */
        if (c->left)
            c->ctl_flood = 0; /* response progress */
        s->recv_unacked += c->left;
        if (s->recv_unacked > c->stream_window)
            return H2_ERR_FLOW_CONTROL;
        /* Not for an empty frame: an increment of 0 is a PROTOCOL_ERROR
         * (§6.9), and with a window of 0 or 1 half of it is 0. */
        if (!(c->fflags & FL_END_STREAM) && s->recv_unacked && s->recv_unacked >= c->stream_window / 2) {
            if ((rc = ctl32(c, FT_WINDOW_UPDATE, s->id, s->recv_unacked)))
                return rc;
            s->recv_unacked = 0;
        }
    }
    /* Half the window used: back to a whole window. Below 65,535 the first
     * credit comes only once the peer is under the window we want (§6.9.2:
     * the window starts at 65,535 and cannot be lowered). */
    int64_t credit = (int64_t)c->conn_window - c->recv_avail;
    if (credit > 0 && credit >= c->conn_window / 2) {
        if ((rc = ctl32(c, FT_WINDOW_UPDATE, 0, (uint32_t)credit)))
            return rc;
        c->recv_avail = c->conn_window;
    }
    c->need_pad = c->fflags & FL_PADDED;
    c->pkind = PK_DATA;
    return 0;
}

static int begin_headers(struct h2_conn *c)
{
    uint32_t need = (c->fflags & FL_PADDED ? 1u : 0u) + (c->fflags & FL_PRIORITY ? 5u : 0u);
    if (c->left < need)
        return H2_ERR_FRAME_SIZE; /* §4.2 */
    struct h2_stream *s;
    int rc = lookup(c, c->fid, &s);
    if (rc)
        return rc;
    /* A closed stream's block is still scanned: a broken block is a
     * connection error whoever it was for (§4.3). */
    c->block_id = s ? s->id : 0;
    if (s && !(s->flags & SF_STARTED)) {
        /* The response's first frame (a 1xx's included): its first byte,
         * handed back with the outcome (no event of its own: it would cost
         * a callback per request). */
        s->flags |= SF_STARTED;
        s->first_at = c->now;
    }
    c->block_es = c->fflags & FL_END_STREAM;
    c->block_done = false;
    c->block_bytes = H2_FRAME_HDR + c->left;
    hpack_status_scan_init(&c->hp->scan, &c->hp->rtable);
    c->need_pad = c->fflags & FL_PADDED;
    c->prio_left = c->fflags & FL_PRIORITY ? 5 : 0; /* deprecated priority fields: skipped (§5.3.2) */
    c->pad = 0;
    c->cont_id = c->fflags & FL_END_HEADERS ? 0 : c->fid;
    c->pkind = PK_BLOCK;
    return 0;
}

static int begin_continuation(struct h2_conn *c)
{
    /* With a block open, frame_begin already checked the stream matches. */
    if (!c->cont_id)
        return H2_ERR_PROTOCOL; /* no HEADERS before it (§6.10) */
    /* §10.5.1: a block that never ends must not cost unbounded time (the
     * scanner keeps no copy of it, so memory is bounded already). */
    c->block_bytes += H2_FRAME_HDR + c->left;
    if (c->block_bytes > H2_MAX_FIELD_BLOCK)
        return H2_ERR_CALM;
    if (c->fflags & FL_END_HEADERS)
        c->cont_id = 0;
    c->need_pad = false;
    c->prio_left = 0;
    c->pad = 0;
    c->pkind = PK_BLOCK;
    return 0;
}

static int begin_priority(struct h2_conn *c)
{
    /* §6.3 makes a bad length a stream error; we simplify to a connection
     * error. Otherwise PRIORITY is ignored, on any stream state (§5.1). */
    return c->left == 5 ? 0 : H2_ERR_FRAME_SIZE;
}

static int begin_rst_stream(struct h2_conn *c)
{
    if (c->left != 4)
        return H2_ERR_FRAME_SIZE; /* §6.4 */
    struct h2_stream *s;
    int rc = lookup(c, c->fid, &s); /* idle: PROTOCOL_ERROR (§6.4) */
    if (rc)
        return rc;
    c->unit = 4;
    c->pkind = PK_FIXED;
    return 0;
}

/* A frame that asks for an answer (SETTINGS, PING): §10.5 flood limit. */
static int count_ctl(struct h2_conn *c)
{
    return ++c->ctl_flood > H2_MAX_CTL_FLOOD ? H2_ERR_CALM : 0;
}

static int begin_settings(struct h2_conn *c)
{
    if (c->fflags & FL_ACK)
        return c->left ? H2_ERR_FRAME_SIZE : 0; /* §6.5: an ACK is empty */
    if (c->left % 6)
        return H2_ERR_FRAME_SIZE;
    if (count_ctl(c))
        return H2_ERR_CALM;
    c->unit = 6;
    c->pkind = PK_FIXED;
    return 0;
}

static int begin_push_promise(struct h2_conn *c)
{
    (void)c;
    return H2_ERR_PROTOCOL; /* we sent ENABLE_PUSH 0 (§6.6, §8.4) */
}

static int begin_ping(struct h2_conn *c)
{
    if (c->left != 8)
        return H2_ERR_FRAME_SIZE; /* §6.7 */
    if (!(c->fflags & FL_ACK) && count_ctl(c))
        return H2_ERR_CALM;
    c->unit = 8;
    c->pkind = PK_FIXED;
    return 0;
}

static int begin_goaway(struct h2_conn *c)
{
    if (c->left < 8)
        return H2_ERR_FRAME_SIZE; /* §4.2: too small for its fields */
    c->unit = 8;
    c->pkind = PK_FIXED;
    return 0;
}

static int begin_window_update(struct h2_conn *c)
{
    if (c->left != 4)
        return H2_ERR_FRAME_SIZE; /* §6.9 */
    if (c->fid) {
        struct h2_stream *s;
        int rc = lookup(c, c->fid, &s);
        if (rc)
            return rc;
    }
    c->unit = 4;
    c->pkind = PK_FIXED;
    return 0;
}

/* Frame type -> stream-id rule and handler (§6). Types past the table are
 * unknown: ignored (§4.1, §5.5). A type on the wrong kind of stream id is a
 * PROTOCOL_ERROR (each type's section in §6). */
enum { ON_ZERO = 1, ON_STREAM = 2, ON_ANY = 3 };
static const struct {
    uint8_t on;
    int (*begin)(struct h2_conn *c);
} frame_table[FT_COUNT] = {
    [FT_DATA] = { ON_STREAM, begin_data },                   /* §6.1 */
    [FT_HEADERS] = { ON_STREAM, begin_headers },             /* §6.2 */
    [FT_PRIORITY] = { ON_STREAM, begin_priority },           /* §6.3 */
    [FT_RST_STREAM] = { ON_STREAM, begin_rst_stream },       /* §6.4 */
    [FT_SETTINGS] = { ON_ZERO, begin_settings },             /* §6.5 */
    [FT_PUSH_PROMISE] = { ON_STREAM, begin_push_promise },   /* §6.6 */
    [FT_PING] = { ON_ZERO, begin_ping },                     /* §6.7 */
    [FT_GOAWAY] = { ON_ZERO, begin_goaway },                 /* §6.8 */
    [FT_WINDOW_UPDATE] = { ON_ANY, begin_window_update },    /* §6.9 */
    [FT_CONTINUATION] = { ON_STREAM, begin_continuation },   /* §6.10 */
};

static int frame_begin(struct h2_conn *c, const uint8_t *h)
{
    uint32_t len = (uint32_t)h[0] << 16 | (uint32_t)h[1] << 8 | h[2];
    uint8_t type = h[3];
    c->ftype = type;
    c->fflags = h[4];
    c->fid = rd32(h + 5) & H2_MAX_STREAM_ID; /* reserved bit ignored (§4.1) */
    c->left = len;
    c->flen = len;
    c->pkind = PK_SKIP;
    if (len > c->max_frame)
        return H2_ERR_FRAME_SIZE; /* §4.2: above the SETTINGS_MAX_FRAME_SIZE we sent */
    /* Nothing, not even an unknown type, may sit inside a field block
     * (§4.3, §5.5, §6.10). */
    if (c->cont_id && (type != FT_CONTINUATION || c->fid != c->cont_id))
        return H2_ERR_PROTOCOL;
    if (!c->got_settings) {
        /* The server's preface is a SETTINGS frame, and it comes first (§3.4). */
        if (type != FT_SETTINGS || (c->fflags & FL_ACK))
            return H2_ERR_PROTOCOL;
        c->got_settings = true;
        c->peer_max_streams = UINT32_MAX; /* "initially, there is no limit" (§6.5.2) */
    }
    if (type >= FT_COUNT)
        return 0;
    if (!(frame_table[type].on & (c->fid ? ON_STREAM : ON_ZERO)))
        return H2_ERR_PROTOCOL;
    return frame_table[type].begin(c);
}

/* ------------------------------------------------------------ receive: fixed units */

static int apply_setting(struct h2_conn *c, uint16_t id, uint32_t v)
{
    switch (id) {
    case S_HEADER_TABLE_SIZE:
        /* The peer's decoder. Below the 4096 bytes it starts at, whatever
         * we inserted may no longer be there, and a smaller maximum must be
         * signalled at the start of our next block (RFC 7541 §4.2; strict
         * decoders fail the block without it): the plain block from now
         * on, behind a size update to 0. */
        if (v < HPACK_TABLE_MAX && c->enc < ENC_PLAIN_RESET)
            c->enc = ENC_PLAIN_RESET;
        return 0;
    case S_ENABLE_PUSH:
        /* §6.5.2: only 0 or 1, and a server MUST NOT send 1. */
        return v == 0 ? 0 : H2_ERR_PROTOCOL;
    case S_MAX_CONCURRENT_STREAMS:
        c->peer_max_streams = v; /* below what is open: we just start nothing (§5.1.2) */
        return 0;
    case S_INITIAL_WINDOW_SIZE:
        if (v > H2_MAX_WINDOW)
            return H2_ERR_FLOW_CONTROL; /* §6.5.2 */
        c->new_initial_window = v; /* applied once, at the frame's end (settings_done) */
        c->initial_window_changed = true;
        return 0;
    case S_MAX_FRAME_SIZE:
        if (v < H2_MIN_MAX_FRAME || v > H2_MAX_MAX_FRAME)
            return H2_ERR_PROTOCOL; /* §6.5.2 */
        c->peer_max_frame = v;
        c->hdr_bytes = framed_len(max_block_len(c->cfg), v);
        return 0;
    default:
        return 0; /* unknown settings are ignored (§6.5.2) */
    }
}

/* A SETTINGS frame is fully applied: move every open stream's window by the
 * INITIAL_WINDOW_SIZE delta (§6.9.2), once per frame however many times the
 * frame repeats the setting. Windows may go negative; above 2^31-1 is a
 * FLOW_CONTROL_ERROR. Then the ACK (§6.5.3), then any DATA the new windows or
 * frame size allow. */
static int settings_done(struct h2_conn *c)
{
    if (c->initial_window_changed) {
        c->initial_window_changed = false;
        int64_t delta = (int64_t)c->new_initial_window - (int64_t)c->peer_initial_window;
        c->peer_initial_window = c->new_initial_window;
        uint32_t seen = 0;
        for (uint32_t i = 0; delta && i <= c->mask && seen < c->open; i++) {
            struct h2_stream *s = &c->slots[i];
            if (!s->id)
                continue;
            seen++;
            s->send_window += delta;
            if (s->send_window > H2_MAX_WINDOW)
                return H2_ERR_FLOW_CONTROL;
            maybe_queue(c, s);
        }
    }
    int rc = ctl(c, FT_SETTINGS, FL_ACK, 0, NULL, 0);
    if (rc)
        return rc;
    pump(c);
    return 0;
}

static int on_goaway(struct h2_conn *c, const uint8_t *u)
{
    uint32_t last = rd32(u) & H2_MAX_STREAM_ID;
    uint32_t code = rd32(u + 4);
    /* The last id may only shrink (§6.8); keep the smallest. */
    if (!c->goaway || last < c->goaway_last)
        c->goaway_last = last;
    c->goaway = true;
    c->pkind = PK_SKIP; /* the debug data */
    /* Streams above last-stream-id were not processed: retry elsewhere (§6.8). */
    for (uint32_t i = 0; i <= c->mask && c->open; i++) {
        struct h2_stream *s = &c->slots[i];
        if (!s->id || s->id <= c->goaway_last)
            continue;
        close_reporting(c, s, H2_EV_RETRY, 0);
    }
    /* An error code means the connection is going away now: the streams at
     * or below last-stream-id are aborted (conn_error reports them). */
    return code == EC_NO_ERROR ? 0 : H2_ERR_PEER_GOAWAY;
}

static int on_window_update(struct h2_conn *c, uint32_t inc)
{
    if (c->fid == 0) {
        if (inc == 0)
            return H2_ERR_PROTOCOL; /* §6.9 */
        c->send_window += inc;
        if (c->send_window > H2_MAX_WINDOW)
            return H2_ERR_FLOW_CONTROL; /* §6.9.1 */
        pump(c);
        return 0;
    }
    struct h2_stream *s = find(c, c->fid);
    if (!s)
        return 0; /* closed: a late update is normal (§6.9) */
    if (inc == 0)
        return stream_error(c, s, EC_PROTOCOL); /* §6.9: a stream error */
    s->send_window += inc;
    if (s->send_window > H2_MAX_WINDOW)
        return stream_error(c, s, EC_FLOW_CONTROL); /* §6.9.1 */
    if (body_pending(c, s)) {
        maybe_queue(c, s);
        pump(c);
    }
    return 0;
}

static int on_unit(struct h2_conn *c, const uint8_t *u)
{
    switch (c->ftype) {
    case FT_SETTINGS:
        /* Applied in order, as they come (§6.5.3). */
        return apply_setting(c, (uint16_t)(u[0] << 8 | u[1]), rd32(u + 2));
    case FT_PING:
        if (c->fflags & FL_ACK)
            return 0; /* we send no PINGs */
        return ctl(c, FT_PING, FL_ACK, 0, u, 8); /* same 8 bytes back (§6.7) */
    case FT_GOAWAY:
        return on_goaway(c, u);
    case FT_WINDOW_UPDATE:
        return on_window_update(c, rd32(u) & 0x7fffffffu);
    case FT_RST_STREAM: {
        struct h2_stream *s = find(c, c->fid);
        if (!s)
            return 0; /* already closed on our side */
        uint32_t code = rd32(u);
        /* REFUSED_STREAM: not processed, safe to retry (§8.7). */
        close_reporting(c, s, code == EC_REFUSED_STREAM ? H2_EV_RETRY : H2_EV_RESET,
                        code == EC_REFUSED_STREAM ? 0 : code);
        return 0;
    }
    default:
        return 0;
    }
}

/* ------------------------------------------------------------ receive: payload and frame ends */

static int scan_feed(struct h2_conn *c, const uint8_t *p, size_t n, bool last)
{
    if (last)
        c->block_done = true;
    /* A malformed :status (bad digits, repeated) is no decoding error: the
     * scanner notes it (scan.malformed, a stream error at the block's
     * end) and decodes the rest, which may still change the table. */
    int rc = hpack_status_scan_feed(&c->hp->scan, p, n, last);
    return rc < 0 ? H2_ERR_COMPRESSION : 0;
}

/* n bytes of the current frame's payload (n <= c->left). */
static int frame_payload(struct h2_conn *c, const uint8_t *p, size_t n)
{
    while (n) {
        switch (c->pkind) {
        case PK_SKIP:
            c->left -= (uint32_t)n;
            return 0;
        case PK_DATA:
            if (c->need_pad) {
                c->need_pad = false;
                c->pad = *p++;
                n--;
                c->left--;
                if (c->pad > c->left)
                    return H2_ERR_PROTOCOL; /* padding >= payload (§6.1) */
                continue;
            }
            c->left -= (uint32_t)n; /* content and padding: counted, not looked at */
            return 0;
        case PK_BLOCK: {
            if (c->need_pad) {
                c->need_pad = false;
                c->pad = *p++;
                n--;
                c->left--;
                if (c->pad > c->left - c->prio_left)
                    return H2_ERR_PROTOCOL; /* padding eats into the block (§6.2) */
                continue;
            }
            if (c->prio_left) {
                size_t k = min_sz(n, c->prio_left);
                c->prio_left -= (uint8_t)k;
                c->left -= (uint32_t)k;
                p += k;
                n -= k;
                continue;
            }
            size_t frag = c->left - c->pad;
            if (frag == 0) { /* padding (n <= left == pad): what is left of it shrinks too, or the
                              * rest of a padding cut between reads would be scanned as block */
                c->left -= (uint32_t)n;
                c->pad -= (uint32_t)n;
                return 0;
            }
            size_t k = min_sz(n, frag);
            int rc = scan_feed(c, p, k, (c->fflags & FL_END_HEADERS) && k == frag);
            if (rc)
                return rc;
            c->left -= (uint32_t)k;
            p += k;
            n -= k;
            continue;
        }
        default: { /* PK_FIXED */
            const uint8_t *u;
            if (c->acc_len == 0 && n >= c->unit) {
                u = p;
            } else {
                size_t k = min_sz(n, (size_t)(c->unit - c->acc_len));
                memcpy(c->acc + c->acc_len, p, k);
                c->acc_len = (uint8_t)(c->acc_len + k);
                c->left -= (uint32_t)k;
                p += k;
                n -= k;
                if (c->acc_len < c->unit)
                    return 0;
                c->acc_len = 0;
                u = c->acc;
                int rc = on_unit(c, u);
                if (rc)
                    return rc;
                continue;
            }
            p += c->unit;
            n -= c->unit;
            c->left -= c->unit;
            int rc = on_unit(c, u);
            if (rc)
                return rc;
            continue;
        }
        }
    }
    return 0;
}

/* §8.1.1: content-length must equal the DATA payload that ends the stream. */
static bool clen_differs(const struct h2_stream *s)
{
    return s->clen >= 0 && s->data != (uint64_t)s->clen;
}

/* A field block ended (END_HEADERS): what it means for its stream (§8.1). */
static int block_complete(struct h2_conn *c)
{
    if (!c->block_id)
        return 0;
    struct h2_stream *s = find(c, c->block_id);
    if (!s)
        return 0;
    c->ctl_flood = 0; /* response progress */
    /* Interim responses may come in any number (RFC 9110 §15.2), but all of
     * a response's field blocks together get the one block's 1 MiB, as
     * HTTP/1.1's heads do: endless 1xx would otherwise hold the stream
     * until --timeout while the server floods (§10.5). */
    s->head_bytes += c->block_bytes;
    if (s->head_bytes > H2_MAX_FIELD_BLOCK)
        return H2_ERR_CALM;
    uint16_t st = c->hp->scan.status;
    /* A malformed response (§8.1.1): a bad :status, a pseudo-header other
     * than :status or after a regular field (§8.3), a bad name or value
     * (§8.2.1: a value with NUL, LF or CR, or SP or HTAB at either end). */
    if (c->hp->scan.malformed || c->hp->scan.names_bad || c->hp->scan.status_late || c->hp->scan.values_bad)
        return stream_error(c, s, EC_PROTOCOL);
    if (s->flags & SF_FINAL) {
        /* Trailers: they end the stream and carry no pseudo-header (§8.1). */
        if (!c->block_es || st != 0 || clen_differs(s))
            return stream_error(c, s, EC_PROTOCOL);
        return complete(c, s);
    }
    /* No :status is malformed (§8.3.2, §8.1.1): a stream error. So is 101
     * (§8.6), and a 1xx carrying END_STREAM (§8.1). */
    if (st < 100 || st == 101 || (st < 200 && c->block_es))
        return stream_error(c, s, EC_PROTOCOL);
    if (st < 200)
        return 0; /* interim: the final status comes in a later HEADERS */
    if (c->hp->scan.clen_bad) /* unreadable, or two that differ (RFC 9110 §8.6) */
        return stream_error(c, s, EC_PROTOCOL);
    s->status = st;
    s->flags |= SF_FINAL;
    /* 204, 304 and HEAD responses have no content whatever their
     * content-length says (§8.1.1, RFC 9110 §6.4.1). */
    s->clen = st == 204 || st == 304 || (c->cfg->requests ? c->reqs[s->req].head : c->cfg->head) ? -1
                                                                      : c->hp->scan.content_length;
    if (!c->block_es)
        return 0;
    return clen_differs(s) ? stream_error(c, s, EC_PROTOCOL) : complete(c, s);
}

static int frame_end(struct h2_conn *c)
{
    switch (c->ftype) {
    case FT_DATA: {
        struct h2_stream *s = find(c, c->fid);
        if (!s)
            return 0;
        s->data += c->flen - ((c->fflags & FL_PADDED) ? 1 + c->pad : 0); /* padding is no content (§6.1) */
        /* §8.1.1: more DATA than content-length, or less when it ends. */
        if (s->clen >= 0 && (s->data > (uint64_t)s->clen || ((c->fflags & FL_END_STREAM) && clen_differs(s))))
            return stream_error(c, s, EC_PROTOCOL);
        return c->fflags & FL_END_STREAM ? complete(c, s) : 0;
    }
    case FT_HEADERS:
    case FT_CONTINUATION:
        if (!(c->fflags & FL_END_HEADERS))
            return 0;
        if (!c->block_done) { /* the block's last fragment was empty */
            int rc = scan_feed(c, c->acc, 0, true);
            if (rc)
                return rc;
        }
        return block_complete(c);
    case FT_SETTINGS:
        return c->fflags & FL_ACK ? 0 : settings_done(c);
    default:
        return 0;
    }
}

int h2_recv(struct h2_conn *c, const uint8_t *p, size_t n, uint64_t now, h2_event_fn fn, void *ctx)
{
    if (c->dead)
        return c->dead;
    if (n == 0)
        return 0;
    c->fn = fn;
    c->ctx = ctx;
    c->now = now;
    const uint8_t *end = p + n;
    while (p < end) {
        int rc;
        if (!c->in_payload) {
            const uint8_t *h;
            if (c->hlen == 0 && (size_t)(end - p) >= H2_FRAME_HDR) {
                h = p; /* the usual case: straight from the caller's bytes */
                p += H2_FRAME_HDR;
            } else {
                size_t k = min_sz(H2_FRAME_HDR - c->hlen, (size_t)(end - p));
                memcpy(c->hbuf + c->hlen, p, k);
                c->hlen = (uint8_t)(c->hlen + k);
                p += k;
                if (c->hlen < H2_FRAME_HDR)
                    break;
                c->hlen = 0;
                h = c->hbuf;
            }
            rc = frame_begin(c, h);
            if (rc == 0) {
                if (c->left)
                    c->in_payload = true;
                else
                    rc = frame_end(c);
            }
        } else {
            size_t k = min_sz(c->left, (size_t)(end - p));
            rc = frame_payload(c, p, k);
            p += k;
            if (rc == 0 && c->left == 0) {
                c->in_payload = false;
                rc = frame_end(c);
            }
        }
        if (rc)
            return conn_error(c, rc);
    }
    ids_exhausted_bye(c);
    return 0;
}
