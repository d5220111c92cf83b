/* test/fuzz/fuzz_quic_conn.c — the QUIC connection engine's frame layer
 * (quic/conn.c, stream.c), with the packet protection out of the way: decrypted
 * payloads go in through quic_conn_test_frames (a test accessor,
 * quic/conn_internal.h), once the handshake was skipped with
 * quic_conn_test_establish (fixed keys, the server's transport parameters
 * from the control bytes).
 *
 * Input: [flags] [limits], then records [hdr] [pn op] [length, 2 bytes]
 * [payload]; a record whose length passes the end takes what is left.
 *   flags: bits 0-2 the server's initial_max_streams_bidi (0..7); bit 3
 *     our 1-RTT keys change every 2 packets; bit 4 the server's
 *     initial_max_data is 1000 and its stream window 100 (we are blocked
 *     by flow control); bit 5 the request is 3000 bytes (several packets),
 *     else 40; bit 6 the server has active_connection_id_limit 8 and a
 *     stateless reset token; bit 7 the handshake is not skipped (Initial
 *     frames are taken, nothing can be opened).
 *   limits: low nibble the server's max_idle_timeout in 250 ms steps (0:
 *     none); high nibble its ack_delay_exponent.
 *   hdr: bits 0-1 the space (0 Initial, 1 Handshake, 2 and 3
 *     ApplicationData); bits 2-7 the time that passes before the record:
 *     k*k * 50 us, the engine's timers firing on the way (k = 63: the
 *     clock runs to its next deadline).
 *   pn op: bits 6-7 0: the space's next packet number; 1: the largest so
 *     far minus bits 0-5 (a repeat, or one late); 2: the next plus bits
 *     0-5 (a gap); 3: the next, and first the oldest open request stream
 *     is abandoned (closed with H3_REQUEST_CANCELLED, as shb's timeouts).
 *
 * Between records the engine works as shb's worker drives it: request
 * streams opened while quic_conn_can_open allows (48 in all, so the ring
 * of 16 wraps), HTTP/3's three unidirectional streams opened once
 * established, quic_conn_output drained into a buffer, quic_conn_timeout at
 * quic_conn_deadline. Each payload's STREAM frames are also decoded here
 * (quic_frame_next) into a shadow of what the server sent on each stream.
 *
 * Checked:
 *   - stream data is delivered in order, each offset once: every byte
 *     handed out lies within what some STREAM frame of that stream carried,
 *     and where the input only ever gave one value for an offset (its
 *     first 2048 bytes), it is that value;
 *   - FIN at most once per stream, nothing after it, and at an offset
 *     where a STREAM frame of the input ended with FIN; empty deliveries
 *     only with FIN;
 *   - nothing for a stream the application closed; only request streams
 *     we opened and server unidirectional streams within the 16 we allow;
 *     resets only for those and for our own unidirectional streams
 *     (STOP_SENDING);
 *   - quic_conn_open_streams counts what we opened and did not close;
 *   - quic_conn_output fills whole 1200-byte datagrams, the last possibly
 *     shorter, within the buffer and the datagram count, each with the
 *     fixed bit; a CLOSED connection sends nothing;
 *   - after timeouts and output, the deadline is in the future (a deadline
 *     that stays in the past spins the worker's loop), or there is none;
 *   - a closed connection says why; quic_conn_close then an output leaves
 *     it CLOSED;
 *   - and, through the sanitizers, no overflow, no undefined behaviour. */
#include "fuzz.h"
#include "quic/conn.h"
#include "quic/conn_internal.h"
#include "quic/frame.h"
#include "quic/tparams.h"

#define MAX_RS 48       /* request streams opened per input */
#define UNI_N 16        /* server unidirectional streams (conn.c's UNI_MAX) */
#define SHADOW 2048     /* bytes of each stream whose values are checked */
#define OUT_DGRAMS 16
#define H3_REQUEST_CANCELLED 0x10c

struct shadow {
    uint8_t val[SHADOW];
    uint8_t seen[SHADOW];    /* 0: no frame carried it; 1: one value; 2: several */
    uint64_t covered_end;    /* the largest offset + length of any frame */
    uint64_t fin_end;        /* where the first frame with FIN ended (UINT64_MAX: none) */
    bool fin_conflict;       /* frames with FIN ended at different offsets */
    uint64_t delivered;      /* bytes handed to the application */
    bool fin_delivered, closed;
};

static struct state {
    struct quic_conn *c;
    struct shadow rs[MAX_RS], uni[UNI_N];
    uint32_t opened, closed_n;
    bool uni_opened;
    uint64_t now;
} st;

static const struct quic_conn_config cfg = {
    .server_name = "localhost",
    .alpn = (const uint8_t *)"\x02h3",
    .alpn_len = 3,
    .max_streams = 8,
    .stream_window = 1u << 20,
    .conn_window = 16u << 20,
    .idle_timeout_ns = 30000000000ull,
};

static uint8_t request[3000];
static size_t request_len;
static const uint8_t h3_control[] = { 0x00, 0x04, 0x00 }; /* control stream, empty SETTINGS */
static const uint8_t h3_enc[] = { 0x02 }, h3_dec[] = { 0x03 };
static uint8_t out[OUT_DGRAMS * QUIC_DGRAM_SIZE];

static void *conn_mem(void)
{
    static void *mem;
    if (mem == NULL) {
        mem = aligned_alloc(64, (quic_conn_size(&cfg) + 63) & ~(size_t)63);
        FZ_CHECK(mem != NULL, "no memory");
    }
    return mem;
}

static struct shadow *shadow_of(uint64_t id)
{
    if ((id & 3) == 0 && (id >> 2) < MAX_RS)
        return &st.rs[id >> 2];
    if ((id & 3) == 3 && (id >> 2) < UNI_N)
        return &st.uni[id >> 2];
    return NULL;
}

static void shadow_reset(struct shadow *s)
{
    memset(s, 0, sizeof *s);
    s->fin_end = UINT64_MAX;
}

/* A STREAM frame of the input, whether or not the engine takes it. */
static void shadow_frame(const struct quic_frame *f)
{
    struct shadow *s = shadow_of(f->stream.stream_id);
    if (s == NULL)
        return;
    uint64_t end = f->stream.offset + f->stream.len;
    for (size_t i = 0; i < f->stream.len && f->stream.offset + i < SHADOW; i++) {
        size_t o = (size_t)(f->stream.offset + i);
        if (s->seen[o] == 0) {
            s->seen[o] = 1;
            s->val[o] = f->stream.data[i];
        } else if (s->seen[o] == 1 && s->val[o] != f->stream.data[i]) {
            s->seen[o] = 2;
        }
    }
    if (end > s->covered_end)
        s->covered_end = end;
    if (f->stream.fin) {
        if (s->fin_end == UINT64_MAX)
            s->fin_end = end;
        else if (s->fin_end != end)
            s->fin_conflict = true;
    }
}

static void close_stream(uint64_t id, uint64_t code)
{
    struct shadow *s = &st.rs[id >> 2];
    FZ_CHECK(!s->closed, "stream %llu closed twice", (unsigned long long)id);
    s->closed = true;
    st.closed_n++;
    quic_conn_close_stream(st.c, id, code);
}

static void on_data(void *ctx, uint64_t id, const uint8_t *p, size_t n, bool fin)
{
    (void)ctx;
    struct shadow *s = shadow_of(id);
    FZ_CHECK(s != NULL, "data for stream %llu", (unsigned long long)id);
    if ((id & 3) == 0)
        FZ_CHECK((id >> 2) < st.opened, "data for request stream %llu, %u opened", (unsigned long long)id, st.opened);
    FZ_CHECK(!s->closed, "data for stream %llu after the application closed it", (unsigned long long)id);
    FZ_CHECK(!s->fin_delivered, "data for stream %llu after its FIN", (unsigned long long)id);
    FZ_CHECK(n > 0 || fin, "an empty delivery without FIN on stream %llu", (unsigned long long)id);
    FZ_CHECK(s->delivered + n <= s->covered_end, "stream %llu: bytes up to %llu delivered, frames only up to %llu",
             (unsigned long long)id, (unsigned long long)(s->delivered + n), (unsigned long long)s->covered_end);
    for (size_t i = 0; i < n && s->delivered + i < SHADOW; i++) {
        size_t o = (size_t)(s->delivered + i);
        FZ_CHECK(s->seen[o] != 0, "stream %llu: offset %zu delivered, no frame carried it", (unsigned long long)id, o);
        FZ_CHECK(s->seen[o] == 2 || s->val[o] == p[i], "stream %llu: offset %zu delivered 0x%02x, sent 0x%02x",
                 (unsigned long long)id, o, p[i], s->val[o]);
    }
    s->delivered += n;
    if (!fin)
        return;
    FZ_CHECK(s->fin_end != UINT64_MAX && (s->fin_conflict || s->fin_end == s->delivered),
             "stream %llu: FIN delivered at %llu, frames ended with FIN at %llu", (unsigned long long)id,
             (unsigned long long)s->delivered, (unsigned long long)s->fin_end);
    s->fin_delivered = true;
    if ((id & 3) == 0)
        close_stream(id, 0); /* the response is complete: shb closes the stream from here */
}

static void on_reset(void *ctx, uint64_t id, uint64_t code, bool stop_sending)
{
    (void)ctx;
    (void)code;
    switch (id & 3) {
    case 0:
        FZ_CHECK((id >> 2) < st.opened && !st.rs[id >> 2].closed, "reset of request stream %llu (opened %u)",
                 (unsigned long long)id, st.opened);
        close_stream(id, stop_sending ? H3_REQUEST_CANCELLED : 0);
        break;
    case 2:
        FZ_CHECK(stop_sending && (id >> 2) < 3 && st.uni_opened, "reset of our unidirectional stream %llu",
                 (unsigned long long)id);
        break;
    case 3:
        FZ_CHECK(!stop_sending && (id >> 2) < UNI_N, "%s on server stream %llu",
                 stop_sending ? "STOP_SENDING" : "RESET_STREAM", (unsigned long long)id);
        break;
    default:
        FZ_CHECK(false, "reset of stream %llu", (unsigned long long)id);
    }
}

static const struct quic_conn_callbacks cbs = { .stream_data = on_data, .stream_reset = on_reset };

static void check_output(size_t total, size_t seg)
{
    FZ_CHECK(total <= sizeof out, "output of %zu bytes into %zu", total, sizeof out);
    FZ_CHECK(seg == QUIC_DGRAM_SIZE, "segment size %zu", seg);
    for (size_t at = 0; at < total; at += seg) {
        size_t len = total - at < seg ? total - at : seg;
        FZ_CHECK(len >= 21 && (out[at] & 0x40), "datagram at %zu: %zu bytes, first byte 0x%02x", at, len, out[at]);
        FZ_CHECK(len == seg || at + len == total, "a short datagram before the last");
    }
}

static void check_streams(void)
{
    if (quic_conn_state(st.c) != QUIC_CLOSED)
        FZ_CHECK(quic_conn_open_streams(st.c) == st.opened - st.closed_n, "%u streams open, %u opened, %u closed",
                 quic_conn_open_streams(st.c), st.opened, st.closed_n);
}

/* What shb's worker does between datagrams: open streams, time out,
 * send, until nothing is due now. */
static void service(void)
{
    struct quic_conn *c = st.c;
    for (int round = 0; round < 64; round++) {
        if (quic_conn_state(c) == QUIC_ESTABLISHED && !st.uni_opened) {
            st.uni_opened = true;
            quic_conn_open_uni(c, h3_control, sizeof h3_control);
            quic_conn_open_uni(c, h3_enc, sizeof h3_enc);
            quic_conn_open_uni(c, h3_dec, sizeof h3_dec);
        }
        while (st.opened < MAX_RS && quic_conn_can_open(c)) {
            uint64_t id = quic_conn_open(c, request, request_len);
            FZ_CHECK(id == (uint64_t)st.opened << 2, "opened stream %llu, expected %llu", (unsigned long long)id,
                     (unsigned long long)st.opened << 2);
            st.opened++;
        }
        check_streams();
        if (quic_conn_deadline(c) <= st.now)
            quic_conn_timeout(c, st.now);
        size_t seg = 0;
        size_t n = quic_conn_output(c, out, sizeof out, OUT_DGRAMS, &seg, st.now);
        check_output(n, seg);
        if (quic_conn_state(c) == QUIC_CLOSED) {
            FZ_CHECK(quic_conn_close_info(c)->kind != QUIC_CLOSE_NONE, "closed without a reason");
            FZ_CHECK(quic_conn_output(c, out, sizeof out, OUT_DGRAMS, &seg, st.now) == 0, "output once closed");
            FZ_CHECK(quic_conn_deadline(c) == UINT64_MAX, "a deadline once closed");
            return;
        }
        if (n == 0 && quic_conn_deadline(c) > st.now)
            return;
    }
    FZ_CHECK(quic_conn_deadline(st.c) > st.now, "the deadline %llu stays at or before now %llu (state %d)",
             (unsigned long long)quic_conn_deadline(st.c), (unsigned long long)st.now, quic_conn_state(st.c));
}

/* The clock moves to `to`, the engine's timers firing on the way (as the
 * worker's would: at each deadline, then output). */
static void advance(uint64_t to)
{
    for (int i = 0; i < 64 && quic_conn_state(st.c) != QUIC_CLOSED; i++) {
        uint64_t d = quic_conn_deadline(st.c);
        if (d > to)
            break;
        if (d > st.now)
            st.now = d;
        service();
    }
    st.now = to;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t payload[65536];
    if (size > 65536)
        return 0;
    struct fz_reader rd = { data, size };
    uint8_t flags = fz_u8(&rd), limits = fz_u8(&rd);

    memset(&st, 0, sizeof st);
    for (unsigned i = 0; i < MAX_RS; i++)
        shadow_reset(&st.rs[i]);
    for (unsigned i = 0; i < UNI_N; i++)
        shadow_reset(&st.uni[i]);
    request_len = flags & 0x20 ? sizeof request : 40;
    for (size_t i = 0; i < sizeof request; i++)
        request[i] = (uint8_t)(i * 7 + 1);

    uint8_t entropy[QUIC_CONN_ENTROPY];
    for (size_t i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)(i * 37 + 11);
    st.now = 1000000000ull;
    st.c = quic_conn_init(conn_mem(), &cfg, entropy, &cbs, NULL, st.now);
    FZ_CHECK(st.c != NULL, "quic_conn_init failed");
    if (flags & 0x08)
        quic_conn_test_key_update_after(st.c, 2);

    if (!(flags & 0x80)) {
        /* The ClientHello's Initial goes out first, as in a real start. */
        size_t seg;
        check_output(quic_conn_output(st.c, out, sizeof out, OUT_DGRAMS, &seg, st.now), seg);
        struct quic_tparams tp;
        quic_tparams_defaults(&tp);
        tp.max_idle_timeout = (uint64_t)(limits & 15) * 250;
        tp.max_udp_payload_size = 1472;
        tp.initial_max_data = flags & 0x10 ? 1000 : 1u << 20;
        tp.initial_max_stream_data_bidi_local = 1u << 18;
        tp.initial_max_stream_data_bidi_remote = flags & 0x10 ? 100 : 1u << 18;
        tp.initial_max_stream_data_uni = flags & 0x10 ? 100 : 1u << 18;
        tp.initial_max_streams_bidi = flags & 7;
        tp.initial_max_streams_uni = 3;
        tp.ack_delay_exponent = limits >> 4;
        tp.max_ack_delay = 25;
        if (flags & 0x40) {
            tp.active_connection_id_limit = 8;
            tp.has_stateless_reset_token = true;
            memset(tp.stateless_reset_token, 0x5a, 16);
        }
        FZ_CHECK(quic_conn_test_establish(st.c, &tp, st.now) == 0, "quic_conn_test_establish failed");
        FZ_CHECK(quic_conn_state(st.c) == QUIC_ESTABLISHED, "not established");
    }
    service();

    uint64_t next_pn[QUIC_SPACES] = { 0 }, largest[QUIC_SPACES] = { 0 };
    while (rd.n >= 4 && quic_conn_state(st.c) != QUIC_CLOSED) {
        uint8_t hdr = fz_u8(&rd), op = fz_u8(&rd);
        size_t len = fz_u16(&rd);
        if (len > rd.n)
            len = rd.n;
        memcpy(payload, rd.p, len);
        rd.p += len;
        rd.n -= len;

        unsigned k = hdr >> 2;
        uint64_t d = quic_conn_deadline(st.c);
        if (k == 63)
            advance(d != UINT64_MAX && d > st.now ? d : st.now);
        else
            advance(st.now + (uint64_t)k * k * 50000);
        if (quic_conn_state(st.c) == QUIC_CLOSED)
            break;
        enum quic_space s = (hdr & 3) == 0 ? QUIC_SPACE_INITIAL : (hdr & 3) == 1 ? QUIC_SPACE_HANDSHAKE : QUIC_SPACE_APP;
        uint64_t pn;
        switch (op >> 6) {
        case 1: pn = largest[s] > (op & 63u) ? largest[s] - (op & 63u) : 0; break;
        case 2: pn = next_pn[s] + (op & 63u); break;
        default: pn = next_pn[s]; break;
        }
        if (op >> 6 == 3) {
            for (uint32_t i = 0; i < st.opened; i++)
                if (!st.rs[i].closed && !st.rs[i].fin_delivered) {
                    close_stream((uint64_t)i << 2, H3_REQUEST_CANCELLED);
                    break;
                }
        }
        if (pn + 1 > next_pn[s])
            next_pn[s] = pn + 1;
        if (pn > largest[s])
            largest[s] = pn;

        const uint8_t *p = payload, *end = payload + len;
        struct quic_frame f;
        while (p < end && quic_frame_next(&p, end, &f) == 0)
            if (f.kind == QUIC_FT_STREAM)
                shadow_frame(&f);

        /* The engine reads the payload at the end of fz_feedbuf_ (fuzz.h):
         * one byte past it is a redzone. */
        quic_conn_test_frames(st.c, s, pn, fz_place(payload, len), len, st.now);
        check_streams();
        service();
    }

    /* shb's end of a connection: an application close, sent at once. */
    if (quic_conn_state(st.c) != QUIC_CLOSED) {
        size_t seg;
        quic_conn_close(st.c, true, 0x100, "done");
        check_output(quic_conn_output(st.c, out, sizeof out, OUT_DGRAMS, &seg, st.now), seg);
        FZ_CHECK(quic_conn_state(st.c) == QUIC_CLOSED, "open after quic_conn_close and an output");
    }
    return 0;
}
