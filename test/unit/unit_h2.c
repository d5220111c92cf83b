/* test/unit/unit_h2.c — the HTTP/2 connection engine against a scripted server.
 *
 * The "server" is a set of frame builders (what it sends) and a frame parser
 * over everything the client wrote. Every feed goes in as an exact-size heap
 * copy, so under ASan a read past what a feed delivered is caught. HPACK
 * blocks are made by hand: 0x88 = :status 200, 0x8d = :status 404, literal
 * fields without indexing as 0x00 len name len value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h2.h"
#include "t.h"
#include "feed.h"

/* ------------------------------------------------------------ byte buffers */

struct buf {
    uint8_t *b;
    size_t len, cap;
};

static void buf_put(struct buf *x, const void *p, size_t n)
{
    if (x->len + n > x->cap) {
        size_t cap = x->cap ? x->cap : 256;
        while (cap < x->len + n)
            cap *= 2;
        x->b = realloc(x->b, cap);
        if (!x->b)
            abort();
        x->cap = cap;
    }
    if (n)
        memcpy(x->b + x->len, p, n);
    x->len += n;
}

static void buf_u8(struct buf *x, uint8_t v) { buf_put(x, &v, 1); }

static void buf_u32(struct buf *x, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    buf_put(x, b, 4);
}

static void buf_fill(struct buf *x, uint8_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf_u8(x, v);
}

static void buf_free(struct buf *x)
{
    free(x->b);
    memset(x, 0, sizeof *x);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ------------------------------------------------------------ server frames */

enum { T_DATA, T_HEADERS, T_PRIORITY, T_RST, T_SETTINGS, T_PUSH, T_PING, T_GOAWAY, T_WU, T_CONT };
#define ES 0x01
#define ACK 0x01
#define EH 0x04
#define PADDED 0x08
#define PRIO 0x20

static void f_head(struct buf *x, uint32_t len, uint8_t type, uint8_t flags, uint32_t id)
{
    uint8_t h[5] = { (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len, type, flags };
    buf_put(x, h, 5);
    buf_u32(x, id);
}

static void f_frame(struct buf *x, uint8_t type, uint8_t flags, uint32_t id, const void *pl, size_t n)
{
    f_head(x, (uint32_t)n, type, flags, id);
    buf_put(x, pl, n);
}

/* kv: id, value pairs */
static void f_settings(struct buf *x, const uint32_t *kv, size_t pairs)
{
    f_head(x, (uint32_t)(pairs * 6), T_SETTINGS, 0, 0);
    for (size_t i = 0; i < pairs; i++) {
        buf_u8(x, (uint8_t)(kv[2 * i] >> 8));
        buf_u8(x, (uint8_t)kv[2 * i]);
        buf_u32(x, kv[2 * i + 1]);
    }
}

static void f_setting1(struct buf *x, uint32_t id, uint32_t v)
{
    uint32_t kv[2] = { id, v };
    f_settings(x, kv, 1);
}

static void f_headers(struct buf *x, uint32_t id, uint8_t flags, const void *blk, size_t n)
{
    f_frame(x, T_HEADERS, flags, id, blk, n);
}

/* HEADERS with PADDED and PRIORITY: pad length, 5 priority bytes, block, padding. */
static void f_headers_pp(struct buf *x, uint32_t id, uint8_t flags, const void *blk, size_t n, uint8_t pad)
{
    f_head(x, (uint32_t)(1 + 5 + n + pad), T_HEADERS, flags | PADDED | PRIO, id);
    buf_u8(x, pad);
    buf_u32(x, 0x80000000u | 0); /* exclusive, depends on 0 */
    buf_u8(x, 15);
    buf_put(x, blk, n);
    buf_fill(x, 0, pad);
}

static void f_cont(struct buf *x, uint32_t id, uint8_t flags, const void *blk, size_t n)
{
    f_frame(x, T_CONT, flags, id, blk, n);
}

/* A whole field block as HEADERS + CONTINUATION frames of at most frag bytes. */
static void f_block(struct buf *x, uint32_t id, uint8_t es, const uint8_t *blk, size_t n, size_t frag)
{
    size_t k = n < frag ? n : frag;
    f_headers(x, id, (uint8_t)(es | (k == n ? EH : 0)), blk, k);
    for (size_t off = k; off < n; off += k) {
        k = n - off < frag ? n - off : frag;
        f_cont(x, id, off + k == n ? EH : 0, blk + off, k);
    }
}

static void f_data(struct buf *x, uint32_t id, uint8_t flags, size_t n)
{
    f_head(x, (uint32_t)n, T_DATA, flags, id);
    buf_fill(x, 'd', n);
}

static void f_data_padded(struct buf *x, uint32_t id, uint8_t flags, size_t n, uint8_t pad)
{
    f_head(x, (uint32_t)(1 + n + pad), T_DATA, flags | PADDED, id);
    buf_u8(x, pad);
    buf_fill(x, 'd', n);
    buf_fill(x, 0, pad);
}

static void f_rst(struct buf *x, uint32_t id, uint32_t code)
{
    f_head(x, 4, T_RST, 0, id);
    buf_u32(x, code);
}

static void f_goaway(struct buf *x, uint32_t last, uint32_t code, const char *debug)
{
    size_t dl = debug ? strlen(debug) : 0;
    f_head(x, (uint32_t)(8 + dl), T_GOAWAY, 0, 0);
    buf_u32(x, last);
    buf_u32(x, code);
    buf_put(x, debug, dl);
}

static void f_ping(struct buf *x, uint8_t flags, const uint8_t op[8]) { f_frame(x, T_PING, flags, 0, op, 8); }

static void f_wu(struct buf *x, uint32_t id, uint32_t inc)
{
    f_head(x, 4, T_WU, 0, id);
    buf_u32(x, inc);
}

static void f_priority(struct buf *x, uint32_t id)
{
    f_head(x, 5, T_PRIORITY, 0, id);
    buf_u32(x, 0);
    buf_u8(x, 200);
}

static void f_unknown(struct buf *x, uint8_t type, uint32_t id, size_t n)
{
    f_head(x, (uint32_t)n, type, 0xff, id);
    buf_fill(x, 'u', n);
}

/* ------------------------------------------------------------ HPACK blocks by hand */

static const uint8_t B200[] = { 0x88 };
static const uint8_t B404[] = { 0x8d };
static const uint8_t B103[] = { 0x08, 0x03, '1', '0', '3' };          /* literal, name = static 8 (:status) */
static const uint8_t B100[] = { 0x08, 0x03, '1', '0', '0' };
static const uint8_t B101[] = { 0x08, 0x03, '1', '0', '1' };
static const uint8_t BNOSTATUS[] = { 0x00, 0x01, 'a', 0x01, 'b' };   /* a: b, no :status */
static const uint8_t BTRAILER[] = { 0x00, 0x0b, 'g', 'r', 'p', 'c', '-', 's', 't', 'a', 't', 'u', 's', 0x01, '0' };
static const uint8_t BBADSTATUS[] = { 0x08, 0x03, '2', 'x', '0' };
static const uint8_t BLATESTATUS[] = { 0x00, 0x01, 'a', 0x01, 'b', 0x88 };        /* a: b, then :status */
static const uint8_t BPSEUDO[] = { 0x88, 0x00, 0x04, ':', 'f', 'o', 'o', 0x01, 'b' }; /* :status 200, :foo: b */
static const uint8_t BREQPSEUDO[] = { 0x88, 0x82 };                               /* :status 200, :method GET */
static const uint8_t BUPPER[] = { 0x88, 0x00, 0x01, 'X', 0x01, 'b' };             /* :status 200, X: b */
/* Field values (§8.2.1): :status 200, then x-foo (a literal name) with a bad value. */
#define BV(...) { 0x88, 0x00, 0x05, 'x', '-', 'f', 'o', 'o', __VA_ARGS__ }
static const uint8_t BVNUL[] = BV(0x03, 'a', 0x00, 'b');
static const uint8_t BVCR[] = BV(0x03, 'a', '\r', 'b');
static const uint8_t BVLF[] = BV(0x03, 'a', '\n', 'b');
static const uint8_t BVLEADSP[] = BV(0x02, ' ', 'a');
static const uint8_t BVTRAILTAB[] = BV(0x02, 'a', '\t');
static const uint8_t BVHUFFCR[] = BV(0x86, 0x1f, 0xff, 0xff, 0xff, 0xb1, 0xff);  /* "a\rb" Huffman-coded */
static const uint8_t BVFINE[] = BV(0x07, 'a', ' ', ',', '\t', 0x80, 0xff, 'b'); /* inner SP, HTAB, obs-text */
/* server (static 54) with a bad value: the value's name comes from the static table */
static const uint8_t BVSERVER[] = { 0x88, 0x0f, 0x27, 0x02, 'x', ' ' };
#undef BV

/* String length with a 7-bit prefix, H = 0 (RFC 7541 §5.1). */
static void hp_len(struct buf *x, size_t v)
{
    if (v < 127) {
        buf_u8(x, (uint8_t)v);
        return;
    }
    buf_u8(x, 0x7f);
    v -= 127;
    while (v >= 128) {
        buf_u8(x, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    buf_u8(x, (uint8_t)v);
}

/* :status first (0x88 or 0x8d), then literal fields of value_len bytes until
 * the block is at least total bytes. */
static void hp_big_block(struct buf *x, uint8_t status_byte, size_t total, size_t value_len)
{
    buf_u8(x, status_byte);
    while (x->len < total) {
        buf_u8(x, 0x00);
        hp_len(x, 5);
        buf_put(x, "x-big", 5);
        hp_len(x, value_len);
        buf_fill(x, 'v', value_len);
    }
}

/* The request block the client sends: opaque to the engine. */
static const uint8_t REQ[] = { 0x82, 0x86, 0x84, 0x01, 0x09, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't' };

/* ------------------------------------------------------------ the client side */

#define MAXEV 1024
#define MAXTAGS 1024

struct ev {
    enum h2_event_kind kind;
    uint64_t tag;
    uint32_t id;
    uint16_t status;
    uint32_t code;
    bool started;
    uint64_t first_at;
};

struct fx {
    struct h2_config cfg;
    void *mem;
    struct h2_conn *c;
    struct buf out;  /* everything the client wrote */
    size_t rd;       /* parse cursor in out */
    struct ev ev[MAXEV];
    size_t nev;
    uint64_t tag_base;
    uint32_t nstarted;
    uint8_t reported[MAXTAGS];
    uint64_t now;                /* passed to h2_recv: one more each call */
    bool in_recv;                /* inside h2_recv (a stream started in a callback) */
    uint64_t start_now[MAXTAGS]; /* the first receive that may bring the tag's first byte */
    uint32_t nfirst_byte;        /* outcomes that came with a first byte */
    bool restart;    /* the callback starts a new stream after each H2_EV_RESPONSE */
    bool manual_out; /* the test drains h2_out itself */
    int bad_tags;    /* reports of unknown tags or a tag twice */
};

/* Across every scenario: every h2_start'ed tag reported exactly once;
 * g_first_bytes: outcomes with a first byte (each checked in on_event). */
static unsigned long g_started, g_once, g_bad, g_first_bytes;
static uint64_t g_tag_base = 100000;

static void on_event(void *ctx, const struct h2_event *e);

static uint32_t fx_start(struct fx *f)
{
    if (f->nstarted >= MAXTAGS)
        return 0;
    /* The second word rides along: every event must bring back both. */
    uint32_t id = h2_start(f->c, f->tag_base + f->nstarted, ~(f->tag_base + f->nstarted), 0);
    if (id)
        f->start_now[f->nstarted++] = f->now + !f->in_recv;
    return id;
}

static void on_event(void *ctx, const struct h2_event *e)
{
    struct fx *f = ctx;
    uint64_t i = e->tag - f->tag_base;
    bool known = e->tag >= f->tag_base && i < f->nstarted && e->tag2 == ~e->tag;
    if (f->nev < MAXEV)
        f->ev[f->nev++] =
            (struct ev){ e->kind, e->tag, e->stream_id, e->status, e->error_code, e->response_started, e->first_byte_at };
    if (!known || f->reported[i]++)
        f->bad_tags++;
    /* A response has a first byte; a first byte came in some receive after
     * the stream started, and none has a time. */
    else if ((e->kind == H2_EV_RESPONSE && !e->response_started) ||
             (e->response_started && (e->first_byte_at < f->start_now[i] || e->first_byte_at > f->now)) ||
             (!e->response_started && e->first_byte_at != 0))
        f->bad_tags++;
    f->nfirst_byte += e->response_started;
    if (f->restart && e->kind == H2_EV_RESPONSE && h2_can_start(f->c))
        fx_start(f);
}

static void fx_drain(struct fx *f)
{
    size_t n;
    const uint8_t *p = h2_out(f->c, &n);
    buf_put(&f->out, p, n);
    h2_out_ack(f->c, n);
    /* acking lets queued request DATA in: keep going until nothing is left */
    for (int guard = 0; guard < 100000; guard++) {
        p = h2_out(f->c, &n);
        if (!n)
            break;
        buf_put(&f->out, p, n);
        h2_out_ack(f->c, n);
    }
}

/* Indexed request blocks for the next fx_new (then cleared): see test_indexed. */
static const uint8_t *g_first, *g_next;
static size_t g_first_len, g_next_len;
/* The first stream id for the next fx_new (then cleared): see test_ids_exhausted. */
static uint32_t g_first_stream_id;
/* Our side's settings for the next fx_new (then cleared; NULL: the defaults): see test_local. */
static const struct h2_local *g_local;

static struct fx *fx_new(uint32_t parallel, const uint8_t *block, size_t block_len, const uint8_t *body,
                         size_t body_len, bool has_body)
{
    struct fx *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->cfg = (struct h2_config){ .request_block = block, .request_block_len = block_len, .body = body,
                                 .body_len = body_len, .has_body = has_body, .parallel = parallel };
    f->cfg.request_first = g_first;
    f->cfg.request_first_len = g_first_len;
    f->cfg.request_next = g_next;
    f->cfg.request_next_len = g_next_len;
    g_first = g_next = NULL;
    f->cfg.first_stream_id = g_first_stream_id;
    g_first_stream_id = 0;
    f->cfg.local = g_local;
    g_local = NULL;
    f->mem = aligned_alloc(64, (h2_conn_size(&f->cfg) + 63) / 64 * 64);
    if (!f->mem)
        abort();
    f->c = h2_conn_init(f->mem, &f->cfg);
    f->tag_base = g_tag_base;
    g_tag_base += 100000;
    return f;
}

/* The exact preface: magic, SETTINGS(HEADER_TABLE_SIZE 0, ENABLE_PUSH 0,
 * INITIAL_WINDOW_SIZE 2^24 - 1), WINDOW_UPDATE(0, 2^30 - 1 - 65535). */
static const uint8_t PREFACE[] = {
    'P', 'R', 'I', ' ', '*', ' ', 'H', 'T', 'T', 'P', '/', '2', '.', '0', '\r', '\n', '\r', '\n', 'S', 'M', '\r', '\n', '\r', '\n',
    0, 0, 18, 4, 0, 0, 0, 0, 0,
    0, 1, 0, 0, 0, 0,
    0, 2, 0, 0, 0, 0,
    0, 4, 0x00, 0xff, 0xff, 0xff,
    0, 0, 4, 8, 0, 0, 0, 0, 0,
    0x3f, 0xff, 0x00, 0x00,
};

static bool fx_preface(struct fx *f)
{
    fx_drain(f);
    bool ok = f->out.len >= sizeof PREFACE && memcmp(f->out.b, PREFACE, sizeof PREFACE) == 0;
    f->rd = sizeof PREFACE;
    return ok;
}

/* h2_recv at the next time. */
static int fx_recv(struct fx *f, const uint8_t *p, size_t n)
{
    f->in_recv = true;
    int rc = h2_recv(f->c, p, n, ++f->now, on_event, f);
    f->in_recv = false;
    return rc;
}

static int fx_feed(struct fx *f, const uint8_t *p, size_t n)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        abort();
    memcpy(copy, p, n);
    int rc = fx_recv(f, copy, n);
    free(copy);
    if (!f->manual_out)
        fx_drain(f);
    return rc;
}

static int fx_feedb(struct fx *f, struct buf *b)
{
    int rc = fx_feed(f, b->b, b->len);
    b->len = 0;
    return rc;
}

/* Feeds in pieces of chunk bytes; stops at the first error. */
static int fx_feed_chunks(struct fx *f, const uint8_t *p, size_t n, size_t chunk)
{
    for (size_t off = 0; off < n; off += chunk) {
        int rc = fx_feed(f, p + off, n - off < chunk ? n - off : chunk);
        if (rc)
            return rc;
    }
    return 0;
}

struct fr {
    uint8_t type, flags;
    uint32_t id, len;
    const uint8_t *pl;
};

static bool fx_next(struct fx *f, struct fr *r)
{
    if (f->out.len - f->rd < 9)
        return false;
    const uint8_t *h = f->out.b + f->rd;
    uint32_t len = (uint32_t)h[0] << 16 | (uint32_t)h[1] << 8 | h[2];
    if (f->out.len - f->rd - 9 < len)
        return false;
    *r = (struct fr){ h[3], h[4], rd32(h + 5) & 0x7fffffffu, len, h + 9 };
    f->rd += 9 + len;
    return true;
}

/* Frames of the given type since the cursor (others skipped); returns the count. */
static size_t fx_collect(struct fx *f, uint8_t type, struct fr *arr, size_t max)
{
    size_t n = 0;
    struct fr r;
    while (fx_next(f, &r))
        if (r.type == type && n < max)
            arr[n++] = r;
    return n;
}

static bool fx_expect(struct fx *f, uint8_t type, struct fr *r)
{
    return fx_next(f, r) && r->type == type;
}

static bool fx_nothing_new(struct fx *f) { return f->rd == f->out.len; }

/* The server's SETTINGS (kv pairs), and the client's SETTINGS ACK for it. */
static bool fx_handshake(struct fx *f, const uint32_t *kv, size_t pairs)
{
    struct buf b = { 0 };
    f_settings(&b, kv, pairs);
    f_frame(&b, T_SETTINGS, ACK, 0, NULL, 0);
    int rc = fx_feedb(f, &b);
    buf_free(&b);
    struct fr r;
    bool ok = rc == 0 && fx_expect(f, T_SETTINGS, &r) && r.flags == ACK && r.len == 0;
    return ok;
}

static size_t fx_count(const struct fx *f, enum h2_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < f->nev; i++)
        n += f->ev[i].kind == kind;
    return n;
}

static const struct ev *fx_ev_for(const struct fx *f, uint32_t id)
{
    for (size_t i = 0; i < f->nev; i++)
        if (f->ev[i].id == id)
            return &f->ev[i];
    return NULL;
}

/* Ends the scenario: the transport goes away; then every started tag must
 * have been reported exactly once. Returns false if not. */
static bool fx_end(struct fx *f)
{
    h2_conn_lost(f->c, on_event, f);
    bool ok = f->bad_tags == 0 && h2_open_streams(f->c) == 0;
    for (uint32_t i = 0; i < f->nstarted; i++)
        ok = ok && f->reported[i] == 1;
    g_started += f->nstarted;
    for (uint32_t i = 0; i < f->nstarted; i++)
        g_once += f->reported[i] == 1;
    g_bad += (unsigned long)f->bad_tags;
    g_first_bytes += f->nfirst_byte;
    free(f->mem);
    buf_free(&f->out);
    free(f);
    return ok;
}

/* A typical ready connection: preface checked, handshake done. */
static struct fx *fx_ready(uint32_t parallel, const uint32_t *kv, size_t pairs)
{
    struct fx *f = fx_new(parallel, REQ, sizeof REQ, NULL, 0, false);
    bool ok = fx_preface(f) && fx_handshake(f, kv, pairs);
    T_QUIET("fixture: preface and handshake", ok, "setup failed");
    return f;
}

/* Completes stream id with HEADERS(block) + DATA(END_STREAM). */
static int respond(struct fx *f, uint32_t id, const uint8_t *blk, size_t n)
{
    struct buf b = { 0 };
    f_headers(&b, id, EH, blk, n);
    f_data(&b, id, ES, 10);
    int rc = fx_feedb(f, &b);
    buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------ tests */

static void test_preface(void)
{
    struct fx *f = fx_new(1, REQ, sizeof REQ, NULL, 0, false);
    fx_drain(f);
    T_CHECK("preface: magic + SETTINGS(table 0, push 0, window 2^24 - 1) + connection WINDOW_UPDATE, exact bytes",
            f->out.len == sizeof PREFACE && memcmp(f->out.b, PREFACE, sizeof PREFACE) == 0,
            "got %zu bytes", f->out.len);
    f->rd = f->out.len;

    struct buf b = { 0 };
    uint32_t kv[] = { 3, 100, 4, 65535, 5, 16384, 0x7777, 9 }; /* incl. an unknown setting */
    f_settings(&b, kv, 4);
    int rc = fx_feedb(f, &b);
    struct fr r;
    T_CHECK("preface: SETTINGS ACK after the server's SETTINGS (unknown setting ignored)",
            rc == 0 && fx_expect(f, T_SETTINGS, &r) && r.flags == ACK && r.len == 0 && r.id == 0 &&
                fx_nothing_new(f),
            "rc %d", rc);

    static const uint8_t op[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    f_ping(&b, 0, op);
    rc = fx_feedb(f, &b);
    T_CHECK("preface: PING answered with ACK and the same 8 bytes",
            rc == 0 && fx_expect(f, T_PING, &r) && r.flags == ACK && r.len == 8 && memcmp(r.pl, op, 8) == 0,
            "rc %d", rc);

    f_ping(&b, ACK, op);
    f_frame(&b, T_SETTINGS, ACK, 0, NULL, 0);
    rc = fx_feedb(f, &b);
    T_CHECK("preface: PING ACK and SETTINGS ACK from the server: nothing written", rc == 0 && fx_nothing_new(f),
            "rc %d", rc);

    /* split one byte at a time */
    struct fx *g = fx_new(1, REQ, sizeof REQ, NULL, 0, false);
    fx_preface(g);
    f_settings(&b, kv, 4);
    f_ping(&b, 0, op);
    rc = fx_feed_chunks(g, b.b, b.len, 1);
    b.len = 0;
    T_CHECK("preface: SETTINGS + PING one byte at a time",
            rc == 0 && fx_expect(g, T_SETTINGS, &r) && r.flags == ACK && fx_expect(g, T_PING, &r) &&
                memcmp(r.pl, op, 8) == 0,
            "rc %d", rc);
    bool acct = fx_end(g);
    acct = fx_end(f) && acct;
    T_CHECK("preface: scenario accounting", acct, "bad accounting");
    buf_free(&b);
}

static void test_parallel(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    uint32_t ids[4];
    for (int i = 0; i < 4; i++)
        ids[i] = fx_start(f);
    T_CHECK("p4: four streams 1,3,5,7; a fifth refused",
            ids[0] == 1 && ids[1] == 3 && ids[2] == 5 && ids[3] == 7 && !h2_can_start(f->c) && fx_start(f) == 0 &&
                h2_open_streams(f->c) == 4,
            "ids %u %u %u %u", ids[0], ids[1], ids[2], ids[3]);
    fx_drain(f);
    struct fr hs[8];
    size_t nh = fx_collect(f, T_HEADERS, hs, 8);
    bool ok = nh == 4;
    for (size_t i = 0; ok && i < 4; i++)
        ok = hs[i].id == 1 + 2 * i && hs[i].flags == (ES | EH) && hs[i].len == sizeof REQ &&
             memcmp(hs[i].pl, REQ, sizeof REQ) == 0;
    T_CHECK("p4: HEADERS frames in id order, END_STREAM|END_HEADERS, the request block", ok, "%zu HEADERS", nh);

    int rc = respond(f, 5, B404, 1);
    rc |= respond(f, 1, B200, 1);
    const struct ev *e5 = fx_ev_for(f, 5), *e1 = fx_ev_for(f, 1);
    T_CHECK("p4: responses out of order carry the right tag and status",
            rc == 0 && e5 && e5->kind == H2_EV_RESPONSE && e5->status == 404 && e5->tag == f->tag_base + 2 && e1 &&
                e1->kind == H2_EV_RESPONSE && e1->status == 200 && e1->tag == f->tag_base,
            "rc %d", rc);
    T_CHECK("p4: two finished, two new streams start (9, 11)",
            h2_can_start(f->c) && fx_start(f) == 9 && fx_start(f) == 11 && !h2_can_start(f->c), "no start");
    rc = respond(f, 7, B200, 1) | respond(f, 11, B200, 1) | respond(f, 3, B200, 1) | respond(f, 9, B404, 1);
    const struct ev *e9 = fx_ev_for(f, 9);
    T_CHECK("p4: all six complete, none open",
            rc == 0 && fx_count(f, H2_EV_RESPONSE) == 6 && h2_open_streams(f->c) == 0 && e9 && e9->status == 404 &&
                e9->tag == f->tag_base + 4,
            "rc %d, %zu responses", rc, fx_count(f, H2_EV_RESPONSE));
    T_CHECK("p4: scenario accounting", fx_end(f), "bad accounting");

    /* before the server's SETTINGS: at most 100 streams (§6.5.2 recommended minimum) */
    f = fx_new(200, REQ, sizeof REQ, NULL, 0, false);
    fx_preface(f);
    int n = 0;
    while (fx_start(f))
        n++;
    bool mid = n == 100;
    fx_drain(f);
    fx_handshake(f, NULL, 0);
    while (fx_start(f))
        n++;
    T_CHECK("p200: 100 streams before the server's SETTINGS, 200 after (no limit given)", mid && n == 200, "%d", n);
    T_CHECK("p200: scenario accounting", fx_end(f), "bad accounting");
}

static void test_max_concurrent(void)
{
    uint32_t kv[] = { 3, 2 };
    struct fx *f = fx_ready(4, kv, 1);
    fx_start(f);
    fx_start(f);
    T_CHECK("mcs: MAX_CONCURRENT_STREAMS 2 below -p 4: only 2 open",
            h2_open_streams(f->c) == 2 && !h2_can_start(f->c) && fx_start(f) == 0, "%u open",
            h2_open_streams(f->c));
    struct buf b = { 0 };
    f_setting1(&b, 3, 10);
    int rc = fx_feedb(f, &b);
    while (fx_start(f))
        ;
    T_CHECK("mcs: raised to 10: -p 4 is the cap", rc == 0 && h2_open_streams(f->c) == 4, "%u open",
            h2_open_streams(f->c));
    f_setting1(&b, 3, 1);
    rc = fx_feedb(f, &b);
    bool ok = rc == 0 && !h2_can_start(f->c);
    rc = respond(f, 1, B200, 1) | respond(f, 3, B200, 1) | respond(f, 5, B200, 1);
    ok = ok && rc == 0 && h2_open_streams(f->c) == 1 && !h2_can_start(f->c);
    rc = respond(f, 7, B200, 1);
    ok = ok && rc == 0 && h2_can_start(f->c) && fx_start(f) == 9 && !h2_can_start(f->c);
    T_CHECK("mcs: lowered to 1 with 4 open: nothing starts until none is open, then one", ok, "rc %d", rc);
    f_setting1(&b, 3, 0);
    rc = fx_feedb(f, &b);
    rc |= respond(f, 9, B200, 1);
    T_CHECK("mcs: MAX_CONCURRENT_STREAMS 0: nothing starts", rc == 0 && !h2_can_start(f->c), "rc %d", rc);
    T_CHECK("mcs: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);

    /* ring slot held by an old stream: -p 2 gives 8 slots; 17 maps to 1's slot */
    f = fx_ready(2, NULL, 0);
    fx_start(f);
    ok = true;
    for (uint32_t id = 3; id <= 15; id += 2)
        ok = ok && fx_start(f) == id && respond(f, id, B200, 1) == 0;
    ok = ok && h2_open_streams(f->c) == 1 && !h2_can_start(f->c);
    rc = respond(f, 1, B200, 1);
    T_CHECK("ring: a slot still held by an open stream blocks h2_can_start until it ends",
            ok && rc == 0 && fx_start(f) == 17, "ok %d rc %d", ok, rc);
    T_CHECK("ring: scenario accounting", fx_end(f), "bad accounting");
}

static void test_interleave(void)
{
    struct fx *f = fx_ready(2, NULL, 0);
    fx_start(f);
    fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, 1, EH, B200, 1);
    f_headers(&b, 3, EH, B404, 1);
    f_data(&b, 1, 0, 100);
    f_data(&b, 3, 0, 50);
    f_data(&b, 3, ES, 50);
    f_data(&b, 1, 0, 0);
    f_data(&b, 1, ES, 7);
    int rc = fx_feedb(f, &b);
    T_CHECK("interleave: HEADERS/DATA of 1 and 3 interleaved: 3 then 1 complete",
            rc == 0 && f->nev == 2 && f->ev[0].id == 3 && f->ev[0].status == 404 && f->ev[1].id == 1 &&
                f->ev[1].status == 200,
            "rc %d nev %zu", rc, f->nev);
    T_CHECK("interleave: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
}

static void test_continuation_padding(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    struct buf blk = { 0 }, b = { 0 };
    hp_big_block(&blk, 0x8d, 48 * 1024, 2000);
    f_block(&b, 1, 0, blk.b, blk.len, 16384);
    f_data(&b, 1, ES, 10);
    size_t nframes = (blk.len + 16383) / 16384;
    int rc = fx_feedb(f, &b);
    const struct ev *e = fx_ev_for(f, 1);
    T_CHECK("continuation: 48 KB header block over HEADERS + CONTINUATIONs",
            rc == 0 && nframes >= 3 && e && e->kind == H2_EV_RESPONSE && e->status == 404, "rc %d", rc);

    /* the same 48 KB block in small fragments, fed in 1000-byte pieces */
    f_block(&b, 3, ES, blk.b, blk.len, 700);
    rc = fx_feed_chunks(f, b.b, b.len, 1000);
    b.len = 0;
    e = fx_ev_for(f, 3);
    T_CHECK("continuation: 48 KB block in 700-byte fragments with END_STREAM on HEADERS",
            rc == 0 && e && e->kind == H2_EV_RESPONSE && e->status == 404, "rc %d", rc);

    /* PADDED + PRIORITY HEADERS, padded DATA; also a padded empty CONTINUATION-less block */
    f_headers_pp(&b, 5, EH, B200, 1, 33);
    f_data_padded(&b, 5, 0, 100, 20);
    f_data_padded(&b, 5, ES, 0, 0);
    f_headers_pp(&b, 7, 0, B404, 1, 0);
    f_cont(&b, 7, 0, NULL, 0);
    f_cont(&b, 7, EH, NULL, 0);
    f_data_padded(&b, 7, ES, 5, 255);
    rc = fx_feed_chunks(f, b.b, b.len, 3);
    b.len = 0;
    const struct ev *e5 = fx_ev_for(f, 5), *e7 = fx_ev_for(f, 7);
    T_CHECK("padding: PADDED+PRIORITY HEADERS and padded DATA, split every 3 bytes",
            rc == 0 && e5 && e5->kind == H2_EV_RESPONSE && e5->status == 200 && e7 && e7->status == 404,
            "rc %d e5 %d/%d e7 %d/%d", rc, e5 ? (int)e5->kind : -1, e5 ? e5->status : 0, e7 ? (int)e7->kind : -1, e7 ? e7->status : 0);
    /* Padding cut between reads, and not zeros (a receiver need not check
     * it, §6.2): it must not reach the HPACK scanner. It did: only the first
     * piece of padding was stepped over, the rest scanned as block (0xff:
     * an endless integer, COMPRESSION_ERROR). */
    uint32_t id9 = fx_start(f);
    f_head(&b, 1 + 1 + 40, T_HEADERS, EH | ES | PADDED, id9);
    buf_u8(&b, 40);
    buf_u8(&b, 0x88);
    buf_fill(&b, 0xff, 40);
    rc = fx_feed_chunks(f, b.b, b.len, 5);
    b.len = 0;
    const struct ev *e9 = fx_ev_for(f, id9);
    T_CHECK("padding: HEADERS padding of 0xff bytes cut between reads is stepped over, not scanned",
            rc == 0 && id9 == 9 && e9 && e9->kind == H2_EV_RESPONSE && e9->status == 200, "rc %d", rc);
    T_CHECK("continuation: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&blk);
    buf_free(&b);
}

/* When stream id's first byte came (its outcome's first_byte_at), 0 if none. */
static uint64_t fx_first_at(struct fx *f, uint32_t id)
{
    const struct ev *e = fx_ev_for(f, id);
    return e ? e->first_at : 0;
}

static void test_interim_trailers(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, 1, EH, B100, sizeof B100);
    f_headers(&b, 1, EH, B103, sizeof B103);
    int rc = fx_feedb(f, &b);
    bool mid = rc == 0 && f->nev == 0;
    uint64_t at_1xx = f->now;
    f_headers(&b, 1, EH, B200, 1);
    f_data(&b, 1, ES, 3);
    rc = fx_feedb(f, &b);
    const struct ev *e = fx_ev_for(f, 1);
    T_CHECK("1xx: 100 and 103 skipped, the final 200 reported",
            mid && rc == 0 && e && e->kind == H2_EV_RESPONSE && e->status == 200, "rc %d", rc);
    T_CHECK("first byte: the receive of the first 1xx, not the final HEADERS' later one",
            e && e->started && e->first_at == at_1xx && at_1xx < f->now, "first at %llu, 1xx at %llu",
            e ? (unsigned long long)e->first_at : 0ULL, (unsigned long long)at_1xx);

    f_headers(&b, 3, EH, B404, 1);
    f_data(&b, 3, 0, 30);
    f_headers(&b, 3, ES | EH, BTRAILER, sizeof BTRAILER);
    rc = fx_feedb(f, &b);
    e = fx_ev_for(f, 3);
    T_CHECK("trailers: HEADERS(END_STREAM) after DATA completes the stream with the first status",
            rc == 0 && e && e->kind == H2_EV_RESPONSE && e->status == 404, "rc %d", rc);

    /* trailers in HEADERS + CONTINUATION, no DATA in between */
    f_headers(&b, 5, EH, B200, 1);
    f_headers(&b, 5, ES, BTRAILER, 4);
    f_cont(&b, 5, EH, BTRAILER + 4, sizeof BTRAILER - 4);
    rc = fx_feedb(f, &b);
    e = fx_ev_for(f, 5);
    T_CHECK("trailers: split over CONTINUATION, straight after the headers",
            rc == 0 && e && e->kind == H2_EV_RESPONSE && e->status == 200, "rc %d", rc);
    /* a 1xx then a 200 with END_STREAM on HEADERS */
    f_headers(&b, 7, EH, B103, sizeof B103);
    f_headers(&b, 7, EH | ES, B404, 1);
    rc = fx_feedb(f, &b);
    e = fx_ev_for(f, 7);
    T_CHECK("1xx: then a final HEADERS with END_STREAM (no DATA)",
            rc == 0 && e && e->kind == H2_EV_RESPONSE && e->status == 404, "rc %d", rc);
    T_CHECK("first byte: each stream's own receive (trailers and final HEADERS after a 1xx move it not)",
            e && e->first_at == f->now && fx_first_at(f, 3) == f->now - 2 && fx_first_at(f, 5) == f->now - 1 &&
                f->nfirst_byte == 4 && f->bad_tags == 0,
            "%u with a first byte", f->nfirst_byte);
    T_CHECK("1xx: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
}

/* Stream errors: the connection survives; RST_STREAM(code) is written and the
 * stream reported H2_EV_MALFORMED with that code (the server broke a rule;
 * H2_EV_RESET is for the server's own RST_STREAM). */
static void test_stream_errors(void)
{
    static const struct {
        const char *name;
        int kind; /* 0: one block; 1: final w/o ES then block; 2: WU */
        const uint8_t *blk;
        size_t n;
        uint8_t flags;
        uint32_t inc;
        uint32_t code;
    } cases[] = {
        { "stream error: response without :status -> RST_STREAM PROTOCOL_ERROR", 0, BNOSTATUS, sizeof BNOSTATUS, ES | EH, 0, 1 },
        { "stream error: empty header block", 0, BNOSTATUS, 0, ES | EH, 0, 1 },
        { "stream error: 1xx with END_STREAM (§8.1)", 0, B103, sizeof B103, ES | EH, 0, 1 },
        { "stream error: 101 (§8.6)", 0, B101, sizeof B101, EH, 0, 1 },
        { "stream error: malformed :status value", 0, BBADSTATUS, sizeof BBADSTATUS, ES | EH, 0, 1 },
        { "stream error: trailers without END_STREAM (§8.1)", 1, BTRAILER, sizeof BTRAILER, EH, 0, 1 },
        { "stream error: :status in trailers (§8.1)", 1, B200, 1, ES | EH, 0, 1 },
        { "stream error: stream WINDOW_UPDATE increment 0 (§6.9)", 2, NULL, 0, 0, 0, 1 },
        { "stream error: stream window above 2^31-1 (§6.9.1)", 2, NULL, 0, 0, 0x7fffffff, 3 },
        { "stream error: a regular field before :status (§8.3)", 0, BLATESTATUS, sizeof BLATESTATUS, ES | EH, 0, 1 },
        { "stream error: an unknown pseudo-header :foo (§8.3)", 0, BPSEUDO, sizeof BPSEUDO, ES | EH, 0, 1 },
        { "stream error: a request pseudo-header (:method GET) in a response (§8.3)", 0, BREQPSEUDO, sizeof BREQPSEUDO,
          ES | EH, 0, 1 },
        { "stream error: an uppercase field name (§8.2.1)", 0, BUPPER, sizeof BUPPER, ES | EH, 0, 1 },
        { "stream error: a field value with NUL (§8.2.1)", 0, BVNUL, sizeof BVNUL, ES | EH, 0, 1 },
        { "stream error: a field value with CR (§8.2.1)", 0, BVCR, sizeof BVCR, ES | EH, 0, 1 },
        { "stream error: a field value with LF (§8.2.1)", 0, BVLF, sizeof BVLF, ES | EH, 0, 1 },
        { "stream error: a field value with a leading SP (§8.2.1)", 0, BVLEADSP, sizeof BVLEADSP, ES | EH, 0, 1 },
        { "stream error: a field value with a trailing HTAB (§8.2.1)", 0, BVTRAILTAB, sizeof BVTRAILTAB, ES | EH, 0,
          1 },
        { "stream error: a Huffman-coded field value holding a CR (§8.2.1)", 0, BVHUFFCR, sizeof BVHUFFCR, ES | EH, 0,
          1 },
        { "stream error: a server value with a trailing SP (static name 54)", 0, BVSERVER, sizeof BVSERVER, ES | EH, 0,
          1 },
        { "stream error: a bad value in trailers (§8.2.1)", 1, BVCR + 1, sizeof BVCR - 1, ES | EH, 0, 1 },
        { "stream error: a pseudo-header other than :status in trailers (§8.1)", 1, BPSEUDO + 1, sizeof BPSEUDO - 1,
          ES | EH, 0, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fx *f = fx_ready(2, NULL, 0);
        fx_start(f);
        fx_start(f);
        struct buf b = { 0 };
        if (cases[i].kind == 1) {
            f_headers(&b, 1, EH, B200, 1);
            f_data(&b, 1, 0, 5);
        }
        if (cases[i].kind == 2)
            f_wu(&b, 1, cases[i].inc);
        else
            f_headers(&b, 1, cases[i].flags, cases[i].blk, cases[i].n);
        int rc = fx_feedb(f, &b);
        struct fr rs[4];
        size_t nrs = fx_collect(f, T_RST, rs, 4);
        const struct ev *e = fx_ev_for(f, 1);
        bool ok = rc == 0 && nrs == 1 && rs[0].id == 1 && rs[0].len == 4 && rd32(rs[0].pl) == cases[i].code && e &&
                  e->kind == H2_EV_MALFORMED && e->code == cases[i].code && e->tag == f->tag_base;
        /* frames still arriving for the reset stream are ignored; stream 3 is fine */
        f_data(&b, 1, 0, 100);
        f_wu(&b, 1, 10);
        f_headers(&b, 1, EH | ES, B200, 1);
        rc = fx_feedb(f, &b);
        rc |= respond(f, 3, B200, 1);
        ok = ok && rc == 0 && f->nev == 2 && f->ev[1].id == 3 && f->ev[1].kind == H2_EV_RESPONSE;
        T_CHECK(cases[i].name, ok && fx_end(f), "rc %d, %zu RST_STREAM, ev %d", rc, nrs, e ? (int)e->kind : -1);
        buf_free(&b);
    }
}

/* Field values (§8.2.1) that are fine, and a bad one whose bad octet comes
 * in the block's CONTINUATION: judged on the whole block, at its end. */
static void test_field_values(void)
{
    struct fx *f = fx_ready(2, NULL, 0);
    fx_start(f);
    fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, 1, EH, BVFINE, sizeof BVFINE);
    f_data(&b, 1, ES, 3);
    int rc = fx_feedb(f, &b);
    const struct ev *e = fx_ev_for(f, 1);
    T_CHECK("values: inner SP, HTAB, comma and obs-text 0x80-0xff in a value: a 200 response",
            rc == 0 && e && e->kind == H2_EV_RESPONSE && e->status == 200, "rc %d", rc);
    /* "a\rb" cut before the CR: HEADERS ends at 'a', the CONTINUATION starts with CR. */
    size_t cut = sizeof BVCR - 2;
    f_headers(&b, 3, ES, BVCR, cut);
    f_cont(&b, 3, EH, BVCR + cut, sizeof BVCR - cut);
    rc = fx_feedb(f, &b);
    e = fx_ev_for(f, 3);
    struct fr rs[4];
    size_t nrs = fx_collect(f, T_RST, rs, 4);
    T_CHECK("values: a CR in the CONTINUATION of a value begun in HEADERS: RST_STREAM PROTOCOL_ERROR, stream error",
            rc == 0 && e && e->kind == H2_EV_MALFORMED && e->code == 1 && nrs == 1 && rs[0].id == 3,
            "rc %d ev %d, %zu RST_STREAM", rc, e ? (int)e->kind : -1, nrs);
    T_CHECK("values: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
}

static void test_request_body(void)
{
    size_t blen = 100000;
    uint8_t *body = malloc(blen);
    for (size_t i = 0; i < blen; i++)
        body[i] = (uint8_t)(i * 7 + 3);
    struct buf got = { 0 }, b = { 0 };
    struct fr fr[64];

    /* default windows (65535), -p 4 so the output buffer is no limit */
    struct fx *f = fx_new(4, REQ, sizeof REQ, body, blen, true);
    fx_preface(f);
    fx_handshake(f, NULL, 0);
    fx_start(f);
    fx_drain(f);
    struct fr h;
    bool hok = fx_expect(f, T_HEADERS, &h) && h.flags == EH && h.id == 1;
    size_t nd = fx_collect(f, T_DATA, fr, 64);
    size_t total = 0, maxf = 0;
    bool es = false;
    for (size_t i = 0; i < nd; i++) {
        total += fr[i].len;
        maxf = fr[i].len > maxf ? fr[i].len : maxf;
        es |= fr[i].flags & ES;
        buf_put(&got, fr[i].pl, fr[i].len);
    }
    T_CHECK("body: HEADERS without END_STREAM, then exactly 65535 bytes of DATA in frames <= 16384",
            hok && total == 65535 && maxf == 16384 && !es, "total %zu max %zu", total, maxf);

    f_wu(&b, 1, 50000);
    int rc = fx_feedb(f, &b);
    T_CHECK("body: stream WINDOW_UPDATE alone: connection window still 0, nothing sent",
            rc == 0 && fx_collect(f, T_DATA, fr, 64) == 0, "rc %d", rc);
    f_wu(&b, 0, 100000);
    rc = fx_feedb(f, &b);
    nd = fx_collect(f, T_DATA, fr, 64);
    total = 0;
    for (size_t i = 0; i < nd; i++) {
        total += fr[i].len;
        buf_put(&got, fr[i].pl, fr[i].len);
    }
    T_CHECK("body: connection WINDOW_UPDATE: the remaining 34465 bytes, END_STREAM on the last DATA only",
            rc == 0 && total == blen - 65535 && nd > 0 && (fr[nd - 1].flags & ES) && !(fr[0].flags & ES) &&
                got.len == blen && memcmp(got.b, body, blen) == 0,
            "rc %d total %zu", rc, total);
    rc = respond(f, 1, B200, 1);
    T_CHECK("body: response completes, no RST_STREAM (the body was all sent)",
            rc == 0 && fx_count(f, H2_EV_RESPONSE) == 1 && fx_collect(f, T_RST, fr, 64) == 0, "rc %d", rc);
    T_CHECK("body: scenario accounting", fx_end(f), "bad accounting");

    /* peer MAX_FRAME_SIZE 20000 and large windows */
    uint32_t kv[] = { 5, 20000, 4, 1 << 20 };
    f = fx_new(4, REQ, sizeof REQ, body, blen, true);
    fx_preface(f);
    fx_handshake(f, kv, 2);
    f_wu(&b, 0, 1 << 20);
    fx_feedb(f, &b);
    fx_start(f);
    fx_drain(f);
    nd = fx_collect(f, T_DATA, fr, 64);
    total = maxf = 0;
    for (size_t i = 0; i < nd; i++) {
        total += fr[i].len;
        maxf = fr[i].len > maxf ? fr[i].len : maxf;
    }
    T_CHECK("body: peer MAX_FRAME_SIZE 20000: DATA frames up to 20000, whole body sent",
            total == blen && maxf == 20000 && (fr[nd - 1].flags & ES), "total %zu max %zu", total, maxf);
    rc = respond(f, 1, B200, 1);
    T_CHECK("body: scenario accounting (max frame)", rc == 0 && fx_end(f), "bad accounting");

    /* INITIAL_WINDOW_SIZE changes mid-stream (§6.9.2) */
    f = fx_new(4, REQ, sizeof REQ, body, blen, true);
    fx_preface(f);
    fx_handshake(f, NULL, 0);
    fx_start(f);
    fx_drain(f);
    fx_collect(f, T_DATA, fr, 64);
    f_wu(&b, 0, 1 << 20);
    rc = fx_feedb(f, &b);
    bool ok = rc == 0 && fx_collect(f, T_DATA, fr, 64) == 0;
    f_setting1(&b, 4, 65535 + 10000);
    rc = fx_feedb(f, &b);
    struct fr a;
    ok = ok && rc == 0 && fx_expect(f, T_SETTINGS, &a) && a.flags == ACK;
    nd = fx_collect(f, T_DATA, fr, 64);
    total = 0;
    for (size_t i = 0; i < nd; i++)
        total += fr[i].len;
    T_CHECK("body: INITIAL_WINDOW_SIZE +10000 mid-stream: 10000 more bytes go", ok && total == 10000,
            "total %zu", total);
    f_setting1(&b, 4, 65535 + 10000 - 5000);
    f_wu(&b, 1, 5000);
    rc = fx_feedb(f, &b);
    ok = rc == 0 && fx_collect(f, T_DATA, fr, 64) == 0;
    f_wu(&b, 1, 1000);
    rc = fx_feedb(f, &b);
    nd = fx_collect(f, T_DATA, fr, 64);
    T_CHECK("body: INITIAL_WINDOW_SIZE lowered: window -5000, +5000 sends nothing, +1000 sends 1000",
            ok && rc == 0 && nd == 1 && fr[0].len == 1000, "rc %d nd %zu", rc, nd);
    f_wu(&b, 1, 20000);
    rc = fx_feedb(f, &b);
    nd = fx_collect(f, T_DATA, fr, 64);
    total = 0;
    for (size_t i = 0; i < nd; i++)
        total += fr[i].len;
    T_CHECK("body: more after a stream WINDOW_UPDATE (+20000)", rc == 0 && total == 20000 && !(fr[nd - 1].flags & ES),
            "total %zu", total);
    /* one SETTINGS frame naming INITIAL_WINDOW_SIZE 2730 times, ending where it began:
     * applied once at the frame's end, net delta 0, no overflow on the way */
    {
        uint32_t *kvs = malloc(2730 * 2 * sizeof *kvs);
        for (int i = 0; i < 2730; i++) {
            kvs[2 * i] = 4;
            kvs[2 * i + 1] = i == 2729 ? 65535 + 10000 - 5000 : (i & 1 ? 0x7fffffffu : 0);
        }
        f_settings(&b, kvs, 2730);
        free(kvs);
        f_wu(&b, 1, 10);
        rc = fx_feed_chunks(f, b.b, b.len, 1000);
        b.len = 0;
        nd = fx_collect(f, T_DATA, fr, 64);
        T_CHECK("body: a 16380-byte SETTINGS frame repeating INITIAL_WINDOW_SIZE: net change only",
                rc == 0 && nd == 1 && fr[0].len == 10, "rc %d nd %zu", rc, nd);
    }
    f_wu(&b, 1, 1 << 20);
    rc = fx_feedb(f, &b);
    rc |= respond(f, 1, B200, 1);
    T_CHECK("body: scenario accounting (window changes)", rc == 0 && fx_end(f), "bad accounting");

    /* the response ends before the body is sent: RST_STREAM(CANCEL), no more DATA */
    f = fx_new(4, REQ, sizeof REQ, body, blen, true);
    fx_preface(f);
    fx_handshake(f, NULL, 0);
    fx_start(f);
    fx_drain(f);
    fx_collect(f, T_DATA, fr, 64);
    rc = respond(f, 1, B200, 1);
    struct fr rs;
    ok = rc == 0 && fx_expect(f, T_RST, &rs) && rs.id == 1 && rd32(rs.pl) == 8 && fx_count(f, H2_EV_RESPONSE) == 1;
    f_wu(&b, 0, 1 << 20);
    f_wu(&b, 1, 1 << 20);
    f_rst(&b, 1, 0); /* §8.1: the server's NO_ERROR reset after a complete response */
    rc = fx_feedb(f, &b);
    T_CHECK("body: early response: reported, RST_STREAM(CANCEL) sent, later windows send nothing",
            ok && rc == 0 && fx_nothing_new(f) && f->nev == 1, "rc %d", rc);
    T_CHECK("body: scenario accounting (early response)", fx_end(f), "bad accounting");

    /* zero-length body with has_body: HEADERS without END_STREAM, then empty DATA with it */
    f = fx_new(1, REQ, sizeof REQ, body, 0, true);
    fx_preface(f);
    fx_start(f);
    fx_drain(f);
    struct fr d;
    T_CHECK("body: empty -d body: HEADERS(no END_STREAM) + DATA(0, END_STREAM)",
            fx_expect(f, T_HEADERS, &h) && h.flags == EH && fx_expect(f, T_DATA, &d) && d.len == 0 &&
                d.flags == ES && d.id == 1 && fx_nothing_new(f),
            "wrong frames");
    T_CHECK("body: scenario accounting (empty body)", fx_end(f), "bad accounting");

    /* several bodies, each within its stream window (10000), round-robin */
    uint32_t kvw[] = { 4, 10000 };
    f = fx_new(4, REQ, sizeof REQ, body, blen, true);
    fx_preface(f);
    fx_handshake(f, kvw, 1);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    fx_drain(f);
    nd = fx_collect(f, T_DATA, fr, 64);
    size_t per[4] = { 0 };
    total = 0;
    for (size_t i = 0; i < nd; i++) {
        total += fr[i].len;
        per[fr[i].id / 2] += fr[i].len;
    }
    T_CHECK("body: 4 bodies with stream windows of 10000: 10000 each",
            total == 40000 && per[0] == 10000 && per[1] == 10000 && per[2] == 10000 && per[3] == 10000,
            "total %zu", total);
    f_wu(&b, 0, 0x7fffffff - 65535);
    for (uint32_t id = 1; id <= 7; id += 2)
        f_wu(&b, id, 1 << 20);
    rc = fx_feedb(f, &b);
    nd = fx_collect(f, T_DATA, fr, 64);
    total = 0;
    int ends = 0;
    for (size_t i = 0; i < nd; i++) {
        total += fr[i].len;
        ends += fr[i].flags & ES;
    }
    T_CHECK("body: 4 bodies complete after the windows open", rc == 0 && total == 4 * blen - 40000 && ends == 4,
            "total %zu ends %d", total, ends);
    for (uint32_t id = 1; id <= 7; id += 2)
        rc |= respond(f, id, B200, 1);
    T_CHECK("body: scenario accounting (4 bodies)", rc == 0 && fx_end(f), "bad accounting");

    /* the body queue under churn: bodies waiting on the connection window, one
     * reset while queued, windows cut to 0 and restored by SETTINGS */
    f = fx_new(4, REQ, sizeof REQ, body, blen, true);
    fx_preface(f);
    fx_handshake(f, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    fx_drain(f);
    size_t sum[4] = { 0 };
    int fin[4] = { 0 };
#define BODY_TALLY()                                                  \
    do {                                                              \
        nd = fx_collect(f, T_DATA, fr, 64);                           \
        for (size_t i = 0; i < nd; i++) {                             \
            sum[fr[i].id / 2] += fr[i].len;                           \
            fin[fr[i].id / 2] += fr[i].flags & ES;                    \
        }                                                             \
    } while (0)
    BODY_TALLY();
    ok = sum[0] == 65535 && sum[1] + sum[2] + sum[3] == 0;
    f_rst(&b, 5, 8);                 /* queued stream reset: leaves the queue */
    f_setting1(&b, 4, 0);            /* every stream window to 0 (1: -65535) */
    f_wu(&b, 0, 100000);
    rc = fx_feedb(f, &b);
    BODY_TALLY();
    ok = ok && rc == 0 && sum[1] + sum[2] + sum[3] == 0 && fx_count(f, H2_EV_RESET) == 1;
    f_wu(&b, 3, 5000);
    rc = fx_feedb(f, &b);
    BODY_TALLY();
    ok = ok && rc == 0 && sum[1] == 5000 && sum[3] == 0;
    f_setting1(&b, 4, 65535);        /* back: 1 -> 0, 3 -> 65535 - 5000 + 5000, 7 -> 65535 */
    rc = fx_feedb(f, &b);
    BODY_TALLY();
    ok = ok && rc == 0 && sum[0] == 65535 && sum[1] + sum[3] == 100000;
    f_wu(&b, 0, 1 << 20);
    for (uint32_t id = 1; id <= 7; id += 2)
        f_wu(&b, id, 1 << 20);
    rc = fx_feedb(f, &b);
    BODY_TALLY();
#undef BODY_TALLY
    T_CHECK("body queue: reset while queued, windows to 0 and back by SETTINGS, all others finish once",
            ok && rc == 0 && sum[0] == blen && sum[1] == blen && sum[2] == 0 && sum[3] == blen && fin[0] == 1 &&
                fin[1] == 1 && fin[2] == 0 && fin[3] == 1,
            "ok %d sums %zu %zu %zu %zu", ok, sum[0], sum[1], sum[2], sum[3]);
    rc = respond(f, 1, B200, 1) | respond(f, 3, B200, 1) | respond(f, 7, B200, 1);
    T_CHECK("body queue: scenario accounting", rc == 0 && fx_end(f), "bad accounting");

    /* request block bigger than the peer's MAX_FRAME_SIZE: HEADERS + CONTINUATION */
    size_t rl = 40000;
    uint8_t *rb = malloc(rl);
    for (size_t i = 0; i < rl; i++)
        rb[i] = (uint8_t)i;
    f = fx_new(2, rb, rl, NULL, 0, false);
    fx_preface(f);
    fx_handshake(f, NULL, 0);
    fx_start(f);
    fx_drain(f);
    struct fr c1, c2;
    got.len = 0;
    ok = fx_expect(f, T_HEADERS, &h) && h.flags == ES && h.len == 16384 && fx_expect(f, T_CONT, &c1) &&
         c1.flags == 0 && c1.len == 16384 && fx_expect(f, T_CONT, &c2) && c2.flags == EH && c2.len == rl - 32768;
    if (ok) {
        buf_put(&got, h.pl, h.len);
        buf_put(&got, c1.pl, c1.len);
        buf_put(&got, c2.pl, c2.len);
    }
    T_CHECK("request block 40000 bytes: HEADERS(END_STREAM) + CONTINUATION + CONTINUATION(END_HEADERS)",
            ok && got.len == rl && memcmp(got.b, rb, rl) == 0, "wrong frames");
    f_setting1(&b, 5, 65536);
    fx_feedb(f, &b);
    fx_start(f);
    fx_drain(f);
    fx_expect(f, T_SETTINGS, &a);
    T_CHECK("request block 40000 bytes with peer MAX_FRAME_SIZE 65536: one HEADERS",
            fx_expect(f, T_HEADERS, &h) && h.flags == (ES | EH) && h.len == rl && h.id == 3, "wrong frames");
    rc = respond(f, 1, B200, 1) | respond(f, 3, B200, 1);
    T_CHECK("request block: scenario accounting", rc == 0 && fx_end(f), "bad accounting");
    free(rb);
    free(body);
    buf_free(&got);
    buf_free(&b);
}

/* ------------------------------------------------ our settings (-w, -W, ...) */

/* A fixture whose connection advertises *lo: the preface's SETTINGS are
 * read into set[id] (0 when absent), the connection WINDOW_UPDATE's
 * increment into *conn_inc (0 when none); then the server's SETTINGS. */
static struct fx *fx_local(const struct h2_local *lo, uint32_t set[8], uint32_t *conn_inc, size_t *npairs)
{
    g_local = lo;
    struct fx *f = fx_new(1, REQ, sizeof REQ, NULL, 0, false);
    fx_drain(f);
    f->rd = 24; /* the magic (§3.4) */
    struct fr r;
    memset(set, 0, 8 * sizeof set[0]);
    *conn_inc = 0;
    *npairs = 0;
    if (fx_expect(f, T_SETTINGS, &r))
        for (uint32_t i = 0; i + 6 <= r.len; i += 6, (*npairs)++)
            if (r.pl[i] == 0 && r.pl[i + 1] < 8)
                set[r.pl[i + 1]] = rd32(r.pl + i + 2);
    size_t at = f->rd;
    if (fx_next(f, &r) && r.type == T_WU && r.id == 0)
        *conn_inc = rd32(r.pl);
    else
        f->rd = at;
    fx_handshake(f, NULL, 0);
    return f;
}

/* A server that keeps to our windows sends a body of total bytes on a
 * fresh stream, in frames of at most maxf, as fast as the windows allow
 * (its view of them: sw for the stream, cw for the connection, raised by
 * our WINDOW_UPDATEs). After our first connection credit, *cw_max is the
 * largest connection window it ever saw. False if it got stuck or an
 * error came. */
static bool serve_body(struct fx *f, size_t total, int64_t sw, int64_t cw, size_t maxf, int64_t *cw_max,
                       size_t *conn_wus)
{
    uint32_t id = fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, id, EH, B200, sizeof B200);
    bool ok = fx_feedb(f, &b) == 0, credited = false;
    *cw_max = 0;
    *conn_wus = 0;
    for (size_t left = total; ok && left;) {
        int64_t n = (int64_t)left;
        n = n < sw ? n : sw;
        n = n < cw ? n : cw;
        n = n < (int64_t)maxf ? n : (int64_t)maxf;
        if (n <= 0) {
            ok = false; /* stuck: no credit came */
            break;
        }
        left -= (size_t)n;
        sw -= n;
        cw -= n;
        f_data(&b, id, left ? 0 : ES, (size_t)n);
        ok = fx_feedb(f, &b) == 0;
        struct fr r;
        while (fx_next(f, &r))
            if (r.type == T_WU && r.id == id)
                sw += rd32(r.pl);
            else if (r.type == T_WU && r.id == 0) {
                cw += rd32(r.pl);
                credited = true;
                (*conn_wus)++;
            }
        if (credited && cw > *cw_max)
            *cw_max = cw;
    }
    buf_free(&b);
    return ok && fx_count(f, H2_EV_RESPONSE) == 1;
}

static void test_local(void)
{
    uint32_t set[8], inc;
    size_t pairs, wus;
    int64_t cw_max;
    struct buf b = { 0 };

    /* -w 14 -W 16 --max-frame-size 1048576 --header-table-size 4096 */
    static const struct h2_local small = { .header_table_size = 4096, .stream_window = 16383,
                                           .conn_window = 65535, .max_frame_size = 1048576 };
    struct fx *f = fx_local(&small, set, &inc, &pairs);
    T_CHECK("local: SETTINGS carry HEADER_TABLE_SIZE 4096, ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 16383, "
            "MAX_FRAME_SIZE 1048576; no connection WINDOW_UPDATE for a 65,535 window",
            pairs == 4 && set[1] == 4096 && set[2] == 0 && set[4] == 16383 && set[5] == 1048576 && inc == 0,
            "pairs %zu %u %u %u %u inc %u", pairs, set[1], set[2], set[4], set[5], inc);
    T_CHECK("local: a 1 MB body through a 16383-byte stream window and the 65,535 connection window completes",
            serve_body(f, 1000000, 16383, 65535, 1048576, &cw_max, &wus) && cw_max <= 65535,
            "cw_max %lld", (long long)cw_max);
    T_CHECK("local: scenario accounting", fx_end(f), "bad accounting");

    /* The stream window overrun by one byte: FLOW_CONTROL_ERROR (§6.9.1). */
    f = fx_local(&small, set, &inc, &pairs);
    uint32_t id = fx_start(f);
    f_headers(&b, id, EH, B200, sizeof B200);
    f_data(&b, id, 0, 16384);
    T_CHECK("local: 16384 bytes on a 16383-byte stream window: FLOW_CONTROL_ERROR",
            fx_feedb(f, &b) == H2_ERR_FLOW_CONTROL, "accepted");
    fx_end(f);

    /* -w 20 -W 20: the connection window raised to 2^20 - 1 after the
     * preface, and 1 MiB frames pass (MAX_FRAME_SIZE 1048576). */
    static const struct h2_local big = { .header_table_size = 0, .stream_window = (1u << 20) - 1,
                                         .conn_window = (1u << 20) - 1, .max_frame_size = 1048576 };
    f = fx_local(&big, set, &inc, &pairs);
    T_CHECK("local: -W 20: WINDOW_UPDATE on stream 0 of 2^20 - 1 - 65535 after the SETTINGS",
            inc == (1u << 20) - 1 - 65535 && pairs == 4 && set[4] == (1u << 20) - 1, "inc %u", inc);
    T_CHECK("local: -w 20 -W 20: 8 MB in frames of up to 1 MiB completes, the connection window kept at 2^20 - 1",
            serve_body(f, 8000000, (1 << 20) - 1, (1 << 20) - 1, 1048576, &cw_max, &wus) && cw_max <= (1 << 20) - 1 &&
                wus >= 8,
            "cw_max %lld wus %zu", (long long)cw_max, wus);
    fx_end(f);

    /* Frames up to MAX_FRAME_SIZE are taken; one byte more is a FRAME_SIZE_ERROR (§4.2). */
    f = fx_local(&big, set, &inc, &pairs);
    id = fx_start(f);
    f_headers(&b, id, EH, B200, sizeof B200);
    f_data(&b, id, ES, 100000);
    f_head(&b, 1048577, T_DATA, 0, 3);
    int rc = fx_feedb(f, &b);
    T_CHECK("local: MAX_FRAME_SIZE 1048576: a 100000-byte DATA frame is taken, a 1048577-byte one is a "
            "FRAME_SIZE_ERROR", rc == H2_ERR_FRAME_SIZE && fx_count(f, H2_EV_RESPONSE) == 1, "rc %d", rc);
    fx_end(f);

    /* -W 14: below the 65,535 the window starts at (§6.9.2), so credit is
     * held back until the server is under 16383, and never lifts it above. */
    static const struct h2_local narrow = { .header_table_size = 0, .stream_window = H2_OUR_INITIAL_WINDOW,
                                            .conn_window = 16383, .max_frame_size = 16384 };
    f = fx_local(&narrow, set, &inc, &pairs);
    T_CHECK("local: -W 14: no connection WINDOW_UPDATE in the preface, no MAX_FRAME_SIZE at its default",
            inc == 0 && pairs == 3, "inc %u pairs %zu", inc, pairs);
    T_CHECK("local: -W 14: 1 MB completes; once credit flows the server's connection window never exceeds 16383",
            serve_body(f, 1000000, H2_OUR_INITIAL_WINDOW, 65535, 16384, &cw_max, &wus) && wus > 0 && cw_max <= 16383,
            "cw_max %lld wus %zu", (long long)cw_max, wus);
    fx_end(f);

    /* -w 0: no stream DATA at all; an empty DATA frame is no reason for a
     * WINDOW_UPDATE (an increment of 0 is a PROTOCOL_ERROR, §6.9). */
    static const struct h2_local zero = { .header_table_size = 0, .stream_window = 0,
                                          .conn_window = H2_OUR_CONN_WINDOW, .max_frame_size = 16384 };
    f = fx_local(&zero, set, &inc, &pairs);
    id = fx_start(f);
    f_headers(&b, id, EH, B200, sizeof B200);
    f_data(&b, id, 0, 0);
    f_data(&b, id, ES, 0);
    rc = fx_feedb(f, &b);
    bool no_wu = true;
    struct fr r;
    while (fx_next(f, &r))
        no_wu &= r.type != T_WU;
    T_CHECK("local: -w 0: empty DATA frames complete the response, no WINDOW_UPDATE",
            rc == 0 && no_wu && fx_count(f, H2_EV_RESPONSE) == 1, "rc %d", rc);
    id = fx_start(f);
    f_headers(&b, id, EH, B200, sizeof B200);
    f_data(&b, id, ES, 1);
    T_CHECK("local: -w 0: one byte of DATA: FLOW_CONTROL_ERROR", fx_feedb(f, &b) == H2_ERR_FLOW_CONTROL, "accepted");
    fx_end(f);
    buf_free(&b);
}

static void test_recv_flow(void)
{
    struct fx *f = fx_ready(1, NULL, 0);
    fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, 1, EH, B200, 1);
    fx_feedb(f, &b);
    /* 63 full DATA frames per chunk: 1,032,192 bytes of payload */
    struct buf chunk = { 0 };
    for (int i = 0; i < 63; i++)
        f_data(&chunk, 1, 0, 16384);
    size_t per = 63 * 16384;
    size_t sent = 0;
    int rc = 0;
    f->manual_out = true;
    uint64_t stream_credit = 0, conn_credit = 0;
    size_t stream_wus = 0, conn_wus = 0;
    bool bad = false;
    for (int i = 0; i < 300 && rc == 0; i++) { /* ~310 MB on stream 1 */
        rc = fx_recv(f, chunk.b, chunk.len);
        sent += per;
        fx_drain(f);
        struct fr r;
        while (fx_next(f, &r)) {
            if (r.type != T_WU)
                continue;
            if (r.id == 1) {
                stream_credit += rd32(r.pl);
                stream_wus++;
                bad |= rd32(r.pl) < H2_OUR_INITIAL_WINDOW / 2;
            } else if (r.id == 0) {
                conn_credit += rd32(r.pl);
                conn_wus++;
            }
        }
    }
    /* Credit goes back once half the window is used: each update is at
     * least half of it and less than half plus a frame, and all of them
     * together leave the server less than a window short. */
    uint64_t half = H2_OUR_INITIAL_WINDOW / 2;
    T_CHECK("recv flow: 300 MB on one stream (> 16 MiB window): stream WINDOW_UPDATEs in 8 MiB batches, no error",
            rc == 0 && !bad && stream_credit <= sent && sent - stream_credit < H2_OUR_INITIAL_WINDOW &&
                stream_credit < stream_wus * (half + 16384) && conn_wus == 0,
            "rc %d wus %zu credit %llu conn %zu", rc, stream_wus, (unsigned long long)stream_credit, conn_wus);
    f_data(&b, 1, ES, 100);
    rc = fx_feedb(f, &b);
    sent += 100;
    T_CHECK("recv flow: stream ends", rc == 0 && fx_count(f, H2_EV_RESPONSE) == 1, "rc %d", rc);
    size_t phase1_wus = stream_wus;
    /* DATA for the closed stream still counts on the connection (§6.9) */
    for (int i = 0; i < 250 && rc == 0; i++) {
        rc = fx_recv(f, chunk.b, chunk.len);
        sent += per;
        fx_drain(f);
        struct fr r;
        while (fx_next(f, &r)) {
            if (r.type == T_WU && r.id == 0) {
                conn_credit += rd32(r.pl);
                conn_wus++;
            } else if (r.type == T_WU) {
                stream_wus++;
            }
        }
    }
    T_CHECK("recv flow: > 512 MiB on the connection (half of 1 GiB): one connection WINDOW_UPDATE, "
            "closed-stream DATA counted",
            rc == 0 && conn_wus == 1 && conn_credit >= H2_OUR_CONN_WINDOW / 2 && conn_credit <= sent &&
                stream_wus == phase1_wus,
            "rc %d conn wus %zu credit %llu", rc, conn_wus, (unsigned long long)conn_credit);
    T_CHECK("recv flow: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
    buf_free(&chunk);
}

static void test_goaway(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    struct buf b = { 0 };
    f_goaway(&b, 3, 0, "going");
    int rc = fx_feedb(f, &b);
    T_CHECK("goaway: last=3 with 1,3,5,7 open: 5 and 7 H2_EV_RETRY at once",
            rc == 0 && f->nev == 2 && f->ev[0].kind == H2_EV_RETRY && f->ev[1].kind == H2_EV_RETRY &&
                ((f->ev[0].id == 5 && f->ev[1].id == 7) || (f->ev[0].id == 7 && f->ev[1].id == 5)) &&
                h2_open_streams(f->c) == 2,
            "rc %d nev %zu", rc, f->nev);
    T_CHECK("goaway: no new streams, not drained yet", !h2_can_start(f->c) && fx_start(f) == 0 && !h2_drained(f->c),
            "can start");
    rc = respond(f, 3, B200, 1);
    bool mid = rc == 0 && !h2_drained(f->c);
    f_data(&b, 5, 0, 10); /* late frames for the retried streams are ignored */
    f_wu(&b, 7, 10);
    rc = fx_feedb(f, &b);
    rc |= respond(f, 1, B404, 1);
    T_CHECK("goaway: 1 and 3 complete normally, then h2_drained",
            mid && rc == 0 && fx_count(f, H2_EV_RESPONSE) == 2 && h2_drained(f->c) && fx_ev_for(f, 1)->status == 404,
            "rc %d", rc);
    T_CHECK("goaway: scenario accounting", fx_end(f), "bad accounting");

    /* GOAWAY with an error code: streams <= last aborted, H2_ERR_PEER_GOAWAY */
    f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    f_headers(&b, 1, EH, B200, 1);
    f_goaway(&b, 3, 2, NULL);
    rc = fx_feedb(f, &b);
    const struct ev *e1 = fx_ev_for(f, 1), *e3 = fx_ev_for(f, 3), *e5 = fx_ev_for(f, 5);
    struct fr r[4];
    size_t ng = fx_collect(f, T_GOAWAY, r, 4);
    T_CHECK("goaway: error code INTERNAL_ERROR: 5,7 RETRY, 1,3 ABORTED (1 response_started), H2_ERR_PEER_GOAWAY",
            rc == H2_ERR_PEER_GOAWAY && f->nev == 4 && e5 && e5->kind == H2_EV_RETRY && e1 &&
                e1->kind == H2_EV_ABORTED && e1->started && e3 && e3->kind == H2_EV_ABORTED && !e3->started &&
                ng == 1 && rd32(r[0].pl + 4) == 0,
            "rc %d nev %zu", rc, f->nev);
    T_CHECK("goaway: scenario accounting (error)", fx_end(f), "bad accounting");

    /* a second GOAWAY lowering last-stream-id; GOAWAY split one byte at a time */
    f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    f_goaway(&b, 7, 0, "a long debug text to skip over");
    f_goaway(&b, 1, 0, NULL);
    rc = fx_feed_chunks(f, b.b, b.len, 1);
    b.len = 0;
    T_CHECK("goaway: a second GOAWAY lowers last-stream-id: 3,5,7 retried",
            rc == 0 && fx_count(f, H2_EV_RETRY) == 3 && h2_open_streams(f->c) == 1, "rc %d", rc);
    rc = respond(f, 1, B200, 1);
    T_CHECK("goaway: drained after the last one", rc == 0 && h2_drained(f->c), "rc %d", rc);
    T_CHECK("goaway: scenario accounting (two)", fx_end(f), "bad accounting");
    buf_free(&b);
}

/* Our GOAWAYs since the cursor: how many, and the last one's fields. */
static size_t fx_goaways(struct fx *f, uint32_t *last, uint32_t *code)
{
    fx_drain(f);
    struct fr r[4];
    size_t n = fx_collect(f, T_GOAWAY, r, 4);
    if (n) {
        *last = rd32(r[n - 1].pl);
        *code = rd32(r[n - 1].pl + 4);
    }
    return n;
}

/* RFC 9113 §5.1.1: ids are not reused; past 2^31-1 a new connection. */
static void test_ids_exhausted(void)
{
    /* Three ids left: 2^31-5, 2^31-3, 2^31-1. */
    g_first_stream_id = 0x7fffffffu - 4;
    struct fx *f = fx_ready(8, NULL, 0);
    uint32_t a = fx_start(f), b = fx_start(f), c = fx_start(f), d = fx_start(f);
    T_CHECK("ids exhausted: 2^31-5, -3, -1 open, then no stream may start",
            a == 0x7ffffffbu && b == 0x7ffffffdu && c == 0x7fffffffu && d == 0 && !h2_can_start(f->c) &&
                h2_open_streams(f->c) == 3,
            "ids %#x %#x %#x %#x", a, b, c, d);
    uint32_t last = 1, code = 1;
    int rc = respond(f, a, B200, 1) | respond(f, c, B404, 1);
    T_CHECK("ids exhausted: streams finish normally, no GOAWAY while one is open",
            rc == 0 && fx_count(f, H2_EV_RESPONSE) == 2 && !h2_drained(f->c) && !h2_ids_exhausted(f->c) &&
                fx_goaways(f, &last, &code) == 0,
            "rc %d", rc);
    rc = respond(f, b, B200, 1);
    size_t ng = fx_goaways(f, &last, &code);
    T_CHECK("ids exhausted: after the last response, drained with one GOAWAY(0, NO_ERROR) queued",
            rc == 0 && fx_count(f, H2_EV_RESPONSE) == 3 && fx_count(f, H2_EV_RESPONSE) == f->nev &&
                h2_drained(f->c) && h2_ids_exhausted(f->c) && ng == 1 && last == 0 && code == 0,
            "rc %d goaways %zu last %u code %u", rc, ng, last, code);
    struct buf x = { 0 };
    static const uint8_t op[8] = { 1 };
    f_ping(&x, 0, op);
    rc = fx_feedb(f, &x);
    x.len = 0;
    ng = fx_goaways(f, &last, &code);
    T_CHECK("ids exhausted: a later frame is still answered, no second GOAWAY", rc == 0 && ng == 0 && h2_drained(f->c),
            "rc %d goaways %zu", rc, ng);
    T_CHECK("ids exhausted: scenario accounting", fx_end(f), "bad accounting");

    /* The last id's stream cancelled (--timeout): the GOAWAY follows its
     * RST_STREAM. */
    g_first_stream_id = 0x7fffffffu;
    f = fx_ready(8, NULL, 0);
    a = fx_start(f);
    bool cancelled = h2_cancel(f->c, a, NULL);
    f->reported[0]++; /* the caller accounts for it (a timeout error) */
    fx_drain(f);
    struct fr r[4];
    bool hd = fx_expect(f, T_HEADERS, &r[0]) && r[0].id == a;
    bool rst = hd && fx_next(f, &r[0]) && r[0].type == T_RST && r[0].id == a;
    bool ga = fx_next(f, &r[1]) && r[1].type == T_GOAWAY && rd32(r[1].pl) == 0 && rd32(r[1].pl + 4) == 0;
    T_CHECK("ids exhausted: the only stream (2^31-1) cancelled: RST_STREAM, then GOAWAY NO_ERROR, drained",
            a == 0x7fffffffu && cancelled && rst && ga && h2_drained(f->c) && fx_nothing_new(f), "id %#x", a);
    T_CHECK("ids exhausted: scenario accounting (cancel)", fx_end(f), "bad accounting");

    /* The peer's GOAWAY came first: it ends the connection, ours is not sent. */
    g_first_stream_id = 0x7fffffffu - 2;
    f = fx_ready(8, NULL, 0);
    a = fx_start(f);
    b = fx_start(f);
    f_goaway(&x, b, 0, NULL);
    rc = fx_feedb(f, &x);
    rc |= respond(f, a, B200, 1) | respond(f, b, B200, 1);
    ng = fx_goaways(f, &last, &code);
    T_CHECK("ids exhausted: after the peer's GOAWAY, drained without one of ours",
            rc == 0 && fx_count(f, H2_EV_RESPONSE) == 2 && h2_drained(f->c) && !h2_ids_exhausted(f->c) && ng == 0,
            "rc %d goaways %zu", rc, ng);
    T_CHECK("ids exhausted: scenario accounting (peer GOAWAY)", fx_end(f), "bad accounting");
    buf_free(&x);

    /* A first id of 1 (the default, 0) or any odd one: streams count up from it. */
    g_first_stream_id = 1001;
    f = fx_ready(2, NULL, 0);
    a = fx_start(f);
    b = fx_start(f);
    rc = respond(f, b, B200, 1);
    T_CHECK("first stream id 1001: 1001, 1003; a response for 1003 completes it", a == 1001 && b == 1003 && rc == 0 &&
            fx_count(f, H2_EV_RESPONSE) == 1 && fx_ev_for(f, 1003) != NULL, "ids %u %u rc %d", a, b, rc);
    T_CHECK("first stream id 1001: scenario accounting", fx_end(f), "bad accounting");
}

static void test_rst(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, 1, EH, B200, 1);
    f_rst(&b, 1, 8);
    f_rst(&b, 3, 7);
    int rc = fx_feedb(f, &b);
    const struct ev *e1 = fx_ev_for(f, 1), *e3 = fx_ev_for(f, 3);
    T_CHECK("rst: RST_STREAM(CANCEL) -> H2_EV_RESET code 8",
            rc == 0 && e1 && e1->kind == H2_EV_RESET && e1->code == 8 && e1->tag == f->tag_base, "rc %d", rc);
    T_CHECK("rst: RST_STREAM(REFUSED_STREAM) -> H2_EV_RETRY (§8.7)",
            rc == 0 && e3 && e3->kind == H2_EV_RETRY && e3->tag == f->tag_base + 1, "rc %d", rc);
    f->rd = f->out.len;
    f_rst(&b, 1, 8);
    f_data(&b, 3, 0, 10);
    f_priority(&b, 3);
    f_priority(&b, 100); /* idle: PRIORITY is allowed in any state */
    f_priority(&b, 2);
    f_unknown(&b, 0xfa, 0, 30);
    f_unknown(&b, 0x20, 5, 0);
    rc = fx_feedb(f, &b);
    if (!fx_nothing_new(f))
        printf("  new output at %zu of %zu: type %d\n", f->rd, f->out.len, f->out.b[f->rd + 3]);
    T_CHECK("rst: frames for closed streams, PRIORITY (any stream) and unknown types ignored",
            rc == 0 && f->nev == 2 && fx_nothing_new(f) && h2_open_streams(f->c) == 2 && h2_can_start(f->c),
            "rc %d nev %zu", rc, f->nev);
    T_CHECK("rst: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
}

/* Connection errors: rc, GOAWAY(last 0, code) as the last frame written, every
 * open stream H2_EV_ABORTED once, and the connection stays dead. */
static void build_violation(int i, struct buf *pre, struct buf *b, const char **name, int *rc, uint32_t *code,
                            bool *no_handshake)
{
    static const uint8_t op[8] = { 0 };
    *no_handshake = false;
    switch (i) {
    case 0: *name = "violation: frame above our MAX_FRAME_SIZE -> FRAME_SIZE_ERROR";
        f_head(b, 16385, T_DATA, 0, 1); buf_fill(b, 0, 100); *rc = H2_ERR_FRAME_SIZE; break;
    case 1: *name = "violation: SETTINGS length 5 -> FRAME_SIZE_ERROR";
        f_head(b, 5, T_SETTINGS, 0, 0); buf_fill(b, 0, 5); *rc = H2_ERR_FRAME_SIZE; break;
    case 2: *name = "violation: SETTINGS ACK with a payload -> FRAME_SIZE_ERROR";
        f_head(b, 6, T_SETTINGS, ACK, 0); buf_fill(b, 0, 6); *rc = H2_ERR_FRAME_SIZE; break;
    case 3: *name = "violation: SETTINGS on stream 1 -> PROTOCOL_ERROR";
        f_head(b, 0, T_SETTINGS, 0, 1); *rc = H2_ERR_PROTOCOL; break;
    case 4: *name = "violation: ENABLE_PUSH 2 -> PROTOCOL_ERROR";
        f_setting1(b, 2, 2); *rc = H2_ERR_PROTOCOL; break;
    case 5: *name = "violation: ENABLE_PUSH 1 from a server -> PROTOCOL_ERROR (§6.5.2)";
        f_setting1(b, 2, 1); *rc = H2_ERR_PROTOCOL; break;
    case 6: *name = "violation: INITIAL_WINDOW_SIZE 2^31 -> FLOW_CONTROL_ERROR";
        f_setting1(b, 4, 0x80000000u); *rc = H2_ERR_FLOW_CONTROL; break;
    case 7: *name = "violation: MAX_FRAME_SIZE 16383 -> PROTOCOL_ERROR";
        f_setting1(b, 5, 16383); *rc = H2_ERR_PROTOCOL; break;
    case 8: *name = "violation: MAX_FRAME_SIZE 2^24 -> PROTOCOL_ERROR";
        f_setting1(b, 5, 1u << 24); *rc = H2_ERR_PROTOCOL; break;
    case 9: *name = "violation: PING length 7 -> FRAME_SIZE_ERROR";
        f_frame(b, T_PING, 0, 0, op, 7); *rc = H2_ERR_FRAME_SIZE; break;
    case 10: *name = "violation: PING on stream 1 -> PROTOCOL_ERROR";
        f_ping(b, 0, op); b->b[b->len - 9] = 1; *rc = H2_ERR_PROTOCOL; break;
    case 11: *name = "violation: WINDOW_UPDATE length 3 -> FRAME_SIZE_ERROR";
        f_frame(b, T_WU, 0, 0, op, 3); *rc = H2_ERR_FRAME_SIZE; break;
    case 12: *name = "violation: connection WINDOW_UPDATE increment 0 -> PROTOCOL_ERROR";
        f_wu(b, 0, 0); *rc = H2_ERR_PROTOCOL; break;
    case 13: *name = "violation: connection window above 2^31-1 -> FLOW_CONTROL_ERROR";
        f_wu(b, 0, 0x7fffffff); *rc = H2_ERR_FLOW_CONTROL; break;
    case 14: *name = "violation: RST_STREAM length 5 -> FRAME_SIZE_ERROR";
        f_frame(b, T_RST, 0, 1, op, 5); *rc = H2_ERR_FRAME_SIZE; break;
    case 15: *name = "violation: RST_STREAM on stream 0 -> PROTOCOL_ERROR";
        f_rst(b, 0, 8); *rc = H2_ERR_PROTOCOL; break;
    case 16: *name = "violation: RST_STREAM on idle stream 5 -> PROTOCOL_ERROR";
        f_rst(b, 5, 8); *rc = H2_ERR_PROTOCOL; break;
    case 17: *name = "violation: DATA on idle stream 9 -> PROTOCOL_ERROR";
        f_data(b, 9, 0, 4); *rc = H2_ERR_PROTOCOL; break;
    case 18: *name = "violation: DATA on even stream 2 -> PROTOCOL_ERROR";
        f_data(b, 2, 0, 4); *rc = H2_ERR_PROTOCOL; break;
    case 19: *name = "violation: HEADERS on idle stream 5 -> PROTOCOL_ERROR";
        f_headers(b, 5, EH, B200, 1); *rc = H2_ERR_PROTOCOL; break;
    case 20: *name = "violation: HEADERS on stream 0 -> PROTOCOL_ERROR";
        f_headers(b, 0, EH, B200, 1); *rc = H2_ERR_PROTOCOL; break;
    case 21: *name = "violation: DATA on stream 0 -> PROTOCOL_ERROR";
        f_data(b, 0, 0, 4); *rc = H2_ERR_PROTOCOL; break;
    case 22: *name = "violation: WINDOW_UPDATE on idle stream 7 -> PROTOCOL_ERROR";
        f_wu(b, 7, 100); *rc = H2_ERR_PROTOCOL; break;
    case 23: *name = "violation: PUSH_PROMISE -> PROTOCOL_ERROR (§8.4)";
        f_head(b, 4 + 1, T_PUSH, EH, 1); buf_u32(b, 2); buf_u8(b, 0x88); *rc = H2_ERR_PROTOCOL; break;
    case 24: *name = "violation: CONTINUATION without HEADERS -> PROTOCOL_ERROR";
        f_cont(b, 1, EH, B200, 1); *rc = H2_ERR_PROTOCOL; break;
    case 25: *name = "violation: PING inside a field block -> PROTOCOL_ERROR";
        f_headers(b, 1, 0, B200, 1); f_ping(b, 0, op); *rc = H2_ERR_PROTOCOL; break;
    case 26: *name = "violation: CONTINUATION for another stream -> PROTOCOL_ERROR";
        f_headers(b, 1, 0, B200, 1); f_cont(b, 3, EH, NULL, 0); *rc = H2_ERR_PROTOCOL; break;
    case 27: *name = "violation: unknown frame type inside a field block -> PROTOCOL_ERROR (§5.5)";
        f_headers(b, 1, 0, B200, 1); f_unknown(b, 0xfa, 0, 3); *rc = H2_ERR_PROTOCOL; break;
    case 28: *name = "violation: CONTINUATION after END_HEADERS -> PROTOCOL_ERROR";
        f_headers(b, 1, EH, B200, 1); f_cont(b, 1, EH, NULL, 0); *rc = H2_ERR_PROTOCOL; break;
    case 29: *name = "violation: HPACK index 0 -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x80 }; f_headers(b, 1, EH, x, 1); } *rc = H2_ERR_COMPRESSION; break;
    case 30: *name = "violation: HPACK dynamic table reference (62) -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0xbe }; f_headers(b, 1, EH, x, 2); } *rc = H2_ERR_COMPRESSION; break;
    case 31: *name = "violation: HPACK block ends inside a field -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0x00, 0x05, 'a' }; f_headers(b, 1, EH | ES, x, 4); }
        *rc = H2_ERR_COMPRESSION; break;
    case 32: *name = "violation: DATA before HEADERS -> PROTOCOL_ERROR (§8.1)";
        f_data(b, 1, 0, 4); *rc = H2_ERR_PROTOCOL; break;
    case 33: *name = "violation: DATA after only a 1xx -> PROTOCOL_ERROR";
        f_headers(b, 1, EH, B103, sizeof B103); f_data(b, 1, ES, 4); *rc = H2_ERR_PROTOCOL; break;
    case 34: *name = "violation: DATA padding >= payload -> PROTOCOL_ERROR (§6.1)";
        f_headers(b, 1, EH, B200, 1); f_head(b, 5, T_DATA, PADDED, 1); buf_u8(b, 5); buf_fill(b, 0, 4);
        *rc = H2_ERR_PROTOCOL; break;
    case 35: *name = "violation: HEADERS padding >= payload -> PROTOCOL_ERROR (§6.2)";
        f_head(b, 7, T_HEADERS, PADDED | PRIO | EH, 1); buf_u8(b, 2); buf_fill(b, 0, 6); *rc = H2_ERR_PROTOCOL; break;
    case 36: *name = "violation: PADDED DATA of length 0 -> FRAME_SIZE_ERROR";
        f_headers(b, 1, EH, B200, 1); f_head(b, 0, T_DATA, PADDED, 1); *rc = H2_ERR_FRAME_SIZE; break;
    case 37: *name = "violation: HEADERS with PRIORITY shorter than 5 -> FRAME_SIZE_ERROR";
        f_head(b, 4, T_HEADERS, PRIO | EH, 1); buf_fill(b, 0, 4); *rc = H2_ERR_FRAME_SIZE; break;
    case 38: *name = "violation: GOAWAY length 7 -> FRAME_SIZE_ERROR";
        f_head(b, 7, T_GOAWAY, 0, 0); buf_fill(b, 0, 7); *rc = H2_ERR_FRAME_SIZE; break;
    case 39: *name = "violation: GOAWAY on stream 1 -> PROTOCOL_ERROR";
        f_goaway(b, 0, 0, NULL); b->b[b->len - 9] = 1; *rc = H2_ERR_PROTOCOL; break;
    case 40: *name = "violation: PRIORITY length 4 -> FRAME_SIZE_ERROR";
        f_frame(b, T_PRIORITY, 0, 1, op, 4); *rc = H2_ERR_FRAME_SIZE; break;
    case 41: *name = "violation: PRIORITY on stream 0 -> PROTOCOL_ERROR";
        f_priority(b, 0); *rc = H2_ERR_PROTOCOL; break;
    case 42: *name = "violation: first server frame PING, not SETTINGS -> PROTOCOL_ERROR (§3.4)";
        f_ping(b, 0, op); *rc = H2_ERR_PROTOCOL; *no_handshake = true; break;
    case 43: *name = "violation: first server frame SETTINGS ACK -> PROTOCOL_ERROR (§3.4)";
        f_frame(b, T_SETTINGS, ACK, 0, NULL, 0); *rc = H2_ERR_PROTOCOL; *no_handshake = true; break;
    case 44: *name = "violation: HPACK error in a closed stream's block -> COMPRESSION_ERROR";
        f_headers(pre, 1, EH | ES, B200, 1);
        { static const uint8_t x[] = { 0x80 }; f_headers(b, 1, EH, x, 1); } *rc = H2_ERR_COMPRESSION; break;
    case 45: *name = "violation: HPACK error in a CONTINUATION -> COMPRESSION_ERROR";
        f_headers(b, 3, 0, B200, 1);
        { static const uint8_t x[] = { 0x80 }; f_cont(b, 3, EH, x, 1); } *rc = H2_ERR_COMPRESSION; break;
    case 46: *name = "violation: SETTINGS raising a stream window above 2^31-1 -> FLOW_CONTROL_ERROR (§6.9.2)";
        f_wu(pre, 1, 0x7fffffff - 65535); f_setting1(b, 4, 65536); *rc = H2_ERR_FLOW_CONTROL; break;
    case 47: *name = "violation: unknown frame type above our MAX_FRAME_SIZE -> FRAME_SIZE_ERROR";
        f_head(b, 20000, 0xee, 0, 0); *rc = H2_ERR_FRAME_SIZE; break;
    case 48: *name = "violation: field block ends inside a field in an empty CONTINUATION -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0x00, 0x03 }; f_headers(b, 1, 0, x, 3); }
        f_cont(b, 1, EH, NULL, 0); *rc = H2_ERR_COMPRESSION; break;
    case 49: *name = "violation: HPACK size update to 0, then a reference to what it evicted -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0x40, 0x01, 'a', 0x01, 'b' }; f_headers(pre, 1, EH | ES, x, 6); }
        { static const uint8_t x[] = { 0x20, 0x88, 0xbe }; f_headers(b, 3, EH | ES, x, 3); }
        *rc = H2_ERR_COMPRESSION; break;
    case 50: *name = "violation: HPACK reference past the end of a 1-entry table (63) -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0x40, 0x01, 'a', 0x01, 'b' }; f_headers(pre, 1, EH | ES, x, 6); }
        { static const uint8_t x[] = { 0x88, 0xbe, 0xbf }; f_headers(b, 3, EH | ES, x, 3); }
        *rc = H2_ERR_COMPRESSION; break;
    case 51: *name = "violation: HPACK size update above the default 4096 -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x3f, 0xe2, 0x1f, 0x88 }; f_headers(b, 1, EH | ES, x, 4); }
        *rc = H2_ERR_COMPRESSION; break;
    case 52: *name = "violation: HPACK size update after a field -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0x20 }; f_headers(b, 1, EH | ES, x, 2); }
        *rc = H2_ERR_COMPRESSION; break;
    case 53: *name = "violation: a field block over 1 MiB of CONTINUATION frames that never end -> ENHANCE_YOUR_CALM (§10.5.1)";
        f_headers(b, 1, 0, B200, 1);
        for (int k = 0; k < 66; k++) { /* 66 x (9 + 16000) > 1 MiB; each frame one whole literal */
            f_head(b, 16000, T_CONT, 0, 1);
            buf_u8(b, 0x00); hp_len(b, 5); buf_put(b, "x-big", 5); hp_len(b, 16000 - 10); buf_fill(b, 'v', 16000 - 10);
        }
        *rc = H2_ERR_CALM; break;
    case 54: *name = "violation: 1001 PINGs with no response between them -> ENHANCE_YOUR_CALM (§10.5)";
        for (int k = 0; k <= H2_MAX_CTL_FLOOD; k++)
            f_ping(b, 0, op);
        *rc = H2_ERR_CALM; break;
    case 55: *name = "violation: 1001 empty SETTINGS with no response between them -> ENHANCE_YOUR_CALM (§10.5)";
        for (int k = 0; k <= H2_MAX_CTL_FLOOD; k++)
            f_settings(b, NULL, 0);
        *rc = H2_ERR_CALM; break;
    case 56: *name = "violation: 1xx interim responses past 1 MiB in all on one stream -> ENHANCE_YOUR_CALM (§10.5)";
        for (int k = 0; k < 70; k++) { /* 70 blocks of 9 + 16000 bytes: :status 100 and one literal each */
            f_head(b, 16000, T_HEADERS, EH, 1);
            buf_put(b, B100, sizeof B100);
            buf_u8(b, 0x00); hp_len(b, 5); buf_put(b, "x-big", 5); hp_len(b, 16000 - 15); buf_fill(b, 'v', 16000 - 15);
        }
        *rc = H2_ERR_CALM; break;
    case 57: *name = "violation: bad Huffman padding in a value shb skips (x-foo) -> COMPRESSION_ERROR (RFC 7541 §5.2)";
        { static const uint8_t x[] = { 0x88, 0x00, 0x05, 'x', '-', 'f', 'o', 'o', 0x81, 0x00 };
          f_headers(b, 1, EH | ES, x, sizeof x); }
        *rc = H2_ERR_COMPRESSION; break;
    case 58: *name = "violation: EOS inside a value shb skips (server) -> COMPRESSION_ERROR (RFC 7541 §5.2)";
        { static const uint8_t x[] = { 0x88, 0x0f, 0x27, 0x85, 0x1f, 0xff, 0xff, 0xff, 0xff };
          f_headers(b, 1, EH | ES, x, sizeof x); }
        *rc = H2_ERR_COMPRESSION; break;
    case 59: *name = "violation: Huffman padding of 8 bits in a value shb skips, in a CONTINUATION -> COMPRESSION_ERROR";
        { static const uint8_t x[] = { 0x88, 0x00, 0x05, 'x', '-', 'f', 'o', 'o', 0x82 }, y[] = { 0x1f, 0xff };
          f_headers(b, 1, ES, x, sizeof x); f_cont(b, 1, EH, y, sizeof y); }
        *rc = H2_ERR_COMPRESSION; break;
    default: *name = NULL; return;
    }
    *code = *rc == H2_ERR_PROTOCOL ? 1 : *rc == H2_ERR_FRAME_SIZE ? 6 : *rc == H2_ERR_FLOW_CONTROL ? 3 :
            *rc == H2_ERR_CALM ? 0xb : 9;
}

static void test_violations(void)
{
    for (int i = 0;; i++) {
        struct buf pre = { 0 }, b = { 0 };
        const char *name;
        int want = 0;
        uint32_t code = 0;
        bool no_hs;
        build_violation(i, &pre, &b, &name, &want, &code, &no_hs);
        if (!name)
            break;
        for (int split = 0; split < 2; split++) {
            struct fx *f = fx_new(2, REQ, sizeof REQ, NULL, 0, false);
            fx_preface(f);
            if (!no_hs)
                fx_handshake(f, NULL, 0);
            fx_start(f);
            fx_start(f);
            int rc = pre.len ? fx_feed(f, pre.b, pre.len) : 0;
            uint32_t open = h2_open_streams(f->c);
            size_t before = f->nev;
            rc = rc ? rc + 100 : split ? fx_feed_chunks(f, b.b, b.len, 1) : fx_feed(f, b.b, b.len);
            struct fr r, last = { 0 };
            bool any = false;
            while (fx_next(f, &r)) {
                last = r;
                any = true;
            }
            bool ok = rc == want && any && last.type == T_GOAWAY && last.id == 0 && last.len == 8 &&
                      rd32(last.pl) == 0 && rd32(last.pl + 4) == code;
            size_t aborted = 0;
            for (size_t k = before; k < f->nev; k++)
                aborted += f->ev[k].kind == H2_EV_ABORTED;
            ok = ok && open >= 1 && aborted == open && f->nev - before == open && h2_open_streams(f->c) == 0;
            /* dead afterwards: same error, nothing written, nothing starts */
            static const uint8_t more[9] = { 0, 0, 0, T_SETTINGS, ACK, 0, 0, 0, 0 };
            size_t olen = f->out.len;
            ok = ok && fx_feed(f, more, 9) == want && f->out.len == olen && !h2_can_start(f->c);
            if (split)
                T_QUIET(name, ok, "(one byte at a time) rc %d want %d, last frame type %d code %u, %zu aborted of %u",
                        rc, want, last.type, last.len == 8 ? rd32(last.pl + 4) : 0, aborted, open);
            else
                T_CHECK(name, ok, "rc %d want %d, last frame type %d code %u, %zu aborted of %u", rc, want,
                        last.type, last.len == 8 ? rd32(last.pl + 4) : 0, aborted, open);
            T_QUIET(name, fx_end(f), "bad accounting");
        }
        buf_free(&pre);
        buf_free(&b);
    }
}

/* §8.1.1: content-length against the DATA payload (padding excluded). */
static void test_content_length(void)
{
    static const struct {
        const char *name;
        const char *blk; /* after :status (0x88 = 200, 0x89 = 204) */
        size_t blen;
        uint8_t status; /* first byte */
        int data;       /* DATA bytes (-1: HEADERS carries END_STREAM) */
        uint8_t pad;
        bool head;
        bool ok;
    } cases[] = {
        { "content-length: 10 and 10 bytes of DATA: a response", "\x0f\x0d\x02" "10", 5, 0x88, 10, 0, false, true },
        { "content-length: 10 and 10 bytes in padded DATA (50 bytes of padding): a response", "\x0f\x0d\x02" "10", 5,
          0x88, 10, 50, false, true },
        { "content-length: Huffman-coded 10 (08 3f): a response", "\x0f\x0d\x82\x08\x3f", 5, 0x88, 10, 0, false, true },
        { "content-length: literal name \"content-length\": a response", "\x00\x0e" "content-length" "\x02" "10", 19, 0x88,
          10, 0, false, true },
        { "content-length: 5 and 10 bytes of DATA: malformed", "\x0f\x0d\x01" "5", 4, 0x88, 10, 0, false, false },
        { "content-length: 20 and 10 bytes of DATA: malformed at END_STREAM", "\x0f\x0d\x02" "20", 5, 0x88, 10, 0, false,
          false },
        { "content-length: 3 on a HEADERS with END_STREAM: malformed", "\x0f\x0d\x01" "3", 4, 0x88, -1, 0, false, false },
        { "content-length: 5 on a 204 without DATA: a response (no content)", "\x0f\x0d\x01" "5", 4, 0x89, -1, 0, false,
          true },
        { "content-length: 100 answering HEAD, no DATA: a response", "\x0f\x0d\x03" "100", 6, 0x88, -1, 0, true, true },
        { "content-length: two that agree: a response", "\x0f\x0d\x02" "10" "\x0f\x0d\x02" "10", 10, 0x88, 10, 0, false,
          true },
        { "content-length: two that differ: malformed", "\x0f\x0d\x02" "10" "\x0f\x0d\x02" "11", 10, 0x88, 10, 0, false,
          false },
        { "content-length: not digits: malformed", "\x0f\x0d\x02" "1x", 5, 0x88, 10, 0, false, false },
        { "content-length: empty: malformed", "\x0f\x0d\x00", 3, 0x88, 10, 0, false, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fx *f = fx_ready(2, NULL, 0);
        f->cfg.head = cases[i].head;
        fx_start(f);
        struct buf blk = { 0 }, b = { 0 };
        buf_u8(&blk, cases[i].status);
        buf_put(&blk, cases[i].blk, cases[i].blen);
        f_headers(&b, 1, (uint8_t)(EH | (cases[i].data < 0 ? ES : 0)), blk.b, blk.len);
        if (cases[i].data >= 0 && cases[i].pad)
            f_data_padded(&b, 1, ES, (size_t)cases[i].data, cases[i].pad);
        else if (cases[i].data >= 0)
            f_data(&b, 1, ES, (size_t)cases[i].data);
        int rc = fx_feed_chunks(f, b.b, b.len, 3);
        const struct ev *e = fx_ev_for(f, 1);
        bool ok = rc == 0 && e && f->nev == 1 &&
                  (cases[i].ok ? e->kind == H2_EV_RESPONSE : e->kind == H2_EV_MALFORMED && e->code == 1);
        T_CHECK(cases[i].name, ok && fx_end(f), "rc %d, ev %d", rc, e ? (int)e->kind : -1);
        buf_free(&blk);
        buf_free(&b);
    }
}

/* §10.5: PINGs and SETTINGS are answered while responses make progress
 * between them; only a run of more than H2_MAX_CTL_FLOOD with nothing else
 * is a flood. Empty DATA frames and unknown types are tolerated at any
 * count. */
static void test_floods(void)
{
    static const uint8_t op[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct fx *f = fx_ready(4, NULL, 0);
    fx_start(f);
    fx_start(f);
    struct buf b = { 0 };
    for (int k = 0; k < H2_MAX_CTL_FLOOD - 1; k++) /* the handshake's SETTINGS was the first */
        f_ping(&b, 0, op);
    f_headers(&b, 1, EH, B200, 1); /* progress: the count starts again */
    for (int k = 0; k < H2_MAX_CTL_FLOOD / 2; k++)
        f_settings(&b, NULL, 0);
    for (int k = 0; k < H2_MAX_CTL_FLOOD / 2; k++)
        f_ping(&b, 0, op);
    f_data(&b, 1, 0, 1); /* progress */
    for (int k = 0; k < 100000; k++) /* empty DATA and unknown frames: any number */
        f_data(&b, 1, 0, 0);
    for (int k = 0; k < 100000; k++)
        f_unknown(&b, 0xee, 0, 0);
    for (int k = 0; k < H2_MAX_CTL_FLOOD; k++)
        f_ping(&b, 0, op);
    f_data(&b, 1, ES, 1);
    int rc = fx_feed_chunks(f, b.b, b.len, 4096);
    struct fr acks[3 * H2_MAX_CTL_FLOOD];
    size_t n = fx_collect(f, T_PING, acks, 3 * H2_MAX_CTL_FLOOD);
    T_CHECK("floods: 2,499 PINGs and 500 SETTINGS answered with responses in between, 200,000 empty frames: no error",
            rc == 0 && n == 2499 && fx_count(f, H2_EV_RESPONSE) == 1 && h2_open_streams(f->c) == 1,
            "rc %d, %zu PING ACKs, %zu responses", rc, n, fx_count(f, H2_EV_RESPONSE));
    /* A 1 MiB field block is still fine. */
    b.len = 0;
    f_headers(&b, 3, ES, B200, 1);
    size_t total = 10;
    while (total + 9 + 16000 + 9 <= H2_MAX_FIELD_BLOCK) { /* + the last, empty CONTINUATION */
        f_head(&b, 16000, T_CONT, 0, 3);
        buf_u8(&b, 0x00); hp_len(&b, 5); buf_put(&b, "x-big", 5); hp_len(&b, 16000 - 10); buf_fill(&b, 'v', 16000 - 10);
        total += 9 + 16000;
    }
    f_cont(&b, 3, EH, NULL, 0);
    rc = fx_feed_chunks(f, b.b, b.len, 16384);
    T_CHECK("floods: a field block of just under 1 MiB in 65 CONTINUATION frames is a response",
            rc == 0 && fx_count(f, H2_EV_RESPONSE) == 2, "rc %d", rc);
    buf_free(&b);
    T_QUIET("floods: accounting", fx_end(f), "bad accounting");
}

static void test_conn_lost_and_output(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    for (int i = 0; i < 4; i++)
        fx_start(f);
    struct buf b = { 0 };
    f_headers(&b, 5, EH, B200, 1);
    fx_feedb(f, &b);
    h2_conn_lost(f->c, on_event, f);
    const struct ev *e5 = fx_ev_for(f, 5), *e1 = fx_ev_for(f, 1);
    T_CHECK("conn lost: 4 open streams reported H2_EV_ABORTED once (response_started where HEADERS came)",
            f->nev == 4 && fx_count(f, H2_EV_ABORTED) == 4 && e5 && e5->started && e5->first_at == f->now && e1 &&
                !e1->started &&
                h2_open_streams(f->c) == 0 && !h2_can_start(f->c),
            "nev %zu", f->nev);
    T_CHECK("conn lost: a second call reports nothing", (h2_conn_lost(f->c, on_event, f), f->nev == 4), "nev %zu",
            f->nev);
    T_CHECK("conn lost: scenario accounting", fx_end(f), "bad accounting");

    /* output bytes stay put until acknowledged; a partial ack keeps the rest */
    f = fx_new(4, REQ, sizeof REQ, NULL, 0, false);
    f->manual_out = true;
    size_t n0;
    const uint8_t *p0 = h2_out(f->c, &n0);
    uint8_t snap[64];
    memcpy(snap, p0, n0 < 64 ? n0 : 64);
    f_settings(&b, NULL, 0);
    fx_feedb(f, &b);
    fx_start(f);
    size_t n1;
    const uint8_t *p1 = h2_out(f->c, &n1);
    bool ok = p1 == p0 && n1 == n0 + 9 + 9 + sizeof REQ && memcmp(p1, snap, n0) == 0;
    h2_out_ack(f->c, 10);
    size_t n2;
    const uint8_t *p2 = h2_out(f->c, &n2);
    ok = ok && n2 == n1 - 10 && memcmp(p2, snap + 10, n0 - 10) == 0;
    h2_out_ack(f->c, n2);
    h2_out(f->c, &n2);
    T_CHECK("output: bytes stay put while appending; a partial ack keeps the unsent tail in order",
            ok && n2 == 0, "n0 %zu n1 %zu", n0, n1);

    /* PING flood with nothing sent: H2_ERR_OUT_FULL, GOAWAY(ENHANCE_YOUR_CALM) still fits */
    static const uint8_t op[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
    f_headers(&b, 1, EH, B200, 1);
    for (int i = 0; i < 3000; i++) {
        if (i % 500 == 0) /* response progress: under the H2_MAX_CTL_FLOOD limit, so the buffer fills first */
            f_data(&b, 1, 0, 1);
        f_ping(&b, 0, op);
    }
    int rc = fx_feedb(f, &b);
    size_t n3;
    const uint8_t *p3 = h2_out(f->c, &n3);
    T_CHECK("output: PING flood without sending -> H2_ERR_OUT_FULL, GOAWAY(ENHANCE_YOUR_CALM) last",
            rc == H2_ERR_OUT_FULL && n3 >= 17 && p3[n3 - 17 + 3] == T_GOAWAY && rd32(p3 + n3 - 4) == 0xb &&
                fx_count(f, H2_EV_ABORTED) == 1,
            "rc %d", rc);
    T_CHECK("output: scenario accounting", fx_end(f), "bad accounting");

    /* h2_conn_size / init reuse on the same memory */
    struct h2_config cfg = { .request_block = REQ, .request_block_len = sizeof REQ, .parallel = 1000 };
    size_t sz = h2_conn_size(&cfg);
    struct h2_config big = { .request_block = REQ, .request_block_len = sizeof REQ, .parallel = 0xffffffffu };
    size_t szb = h2_conn_size(&big);
    T_CHECK("size: -p 1000 fits in well under 1 MiB; -p 2^32-1 is bounded",
            sz < (1u << 20) && szb < (64u << 20), "%zu %zu", sz, szb);
    f = fx_new(2, REQ, sizeof REQ, NULL, 0, false);
    fx_preface(f);
    fx_handshake(f, NULL, 0);
    fx_start(f);
    h2_conn_lost(f->c, on_event, f);
    h2_conn_init(f->mem, &f->cfg);
    f->out.len = 0;
    ok = fx_preface(f) && fx_handshake(f, NULL, 0) && fx_start(f) == 1 && respond(f, 1, B200, 1) == 0;
    T_CHECK("init: the same memory starts a fresh connection", ok, "no");
    T_CHECK("init: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
}

/* ------------------------------------------------------------ the scripted server, every split */

struct run {
    struct ev ev[64];
    size_t nev;
    struct buf out;
    int rc;
    bool drained;
    uint32_t nstarted;
    bool ok;
};

static void build_script(struct buf *s)
{
    static const uint32_t kv[] = { 1, 4096, 3, 100, 4, 1 << 20, 0x7777, 5, 6, 8192 };
    static const uint8_t op[8] = { 'p', 'i', 'n', 'g', 0, 1, 2, 3 };
    struct buf big = { 0 };
    hp_big_block(&big, 0x88, 3000, 300);
    f_settings(s, kv, 5);
    f_frame(s, T_SETTINGS, ACK, 0, NULL, 0);
    f_headers(s, 1, EH, B200, 1);
    f_headers_pp(s, 3, EH, B404, 1, 7);
    f_data(s, 1, 0, 100);
    f_ping(s, 0, op);
    f_block(s, 5, 0, big.b, big.len, 1000);
    f_data_padded(s, 3, ES, 50, 10);        /* 3 done -> 9 starts */
    f_data(s, 3, 0, 10);                    /* late DATA on closed 3 */
    f_wu(s, 0, 1000);
    f_priority(s, 7);
    f_unknown(s, 0xfa, 0, 20);
    f_headers(s, 7, EH, B103, sizeof B103);
    f_headers(s, 7, EH, B200, 1);
    f_data(s, 5, ES, 0);                    /* 5 done -> 11 */
    f_data(s, 1, 0, 30);
    f_headers(s, 1, ES, BTRAILER, 5);
    f_cont(s, 1, EH, BTRAILER + 5, sizeof BTRAILER - 5); /* 1 done -> 13 */
    f_data_padded(s, 7, ES, 40, 3);         /* 7 done -> 15 */
    f_headers(s, 9, EH, B200, 1);
    f_data(s, 9, ES, 1);                    /* 9 done -> 17 */
    f_rst(s, 11, 8);
    f_rst(s, 13, 7);
    f_wu(s, 15, 500);
    f_goaway(s, 15, 0, "bye");              /* 17 retried */
    f_headers(s, 15, EH, B404, 1);
    f_ping(s, 0, op);
    f_data(s, 15, ES, 2);
    buf_free(&big);
}

/* Feeds the pieces of p that w says; stops at the first error. */
static int fx_feed_way(struct fx *f, const uint8_t *p, const struct feed_way *w)
{
    int rc = 0;
    for (size_t i = 0, at; rc == 0 && i <= w->ncuts; i++) {
        size_t len = feed_piece(w, i, &at);
        rc = fx_feed(f, p + at, len);
    }
    return rc;
}

static void run_script(const uint8_t *p, const struct feed_way *w, struct run *r)
{
    struct fx *f = fx_new(4, REQ, sizeof REQ, NULL, 0, false);
    f->restart = true;
    for (int i = 0; i < 4; i++)
        fx_start(f);
    r->rc = fx_feed_way(f, p, w);
    r->nev = f->nev < 64 ? f->nev : 64;
    memcpy(r->ev, f->ev, r->nev * sizeof r->ev[0]);
    buf_free(&r->out);
    buf_put(&r->out, f->out.b, f->out.len);
    r->drained = h2_drained(f->c);
    r->nstarted = f->nstarted;
    r->ok = fx_end(f);
}

static bool same_run(const struct run *a, const struct run *b)
{
    if (a->rc != b->rc || a->nev != b->nev || a->out.len != b->out.len || a->drained != b->drained ||
        a->nstarted != b->nstarted || !b->ok)
        return false;
    for (size_t i = 0; i < a->nev; i++)
        if (a->ev[i].kind != b->ev[i].kind || a->ev[i].tag % 100000 != b->ev[i].tag % 100000 ||
            a->ev[i].id != b->ev[i].id || a->ev[i].status != b->ev[i].status || a->ev[i].code != b->ev[i].code)
            return false;
    return memcmp(a->out.b, b->out.b, a->out.len) == 0;
}

struct script_feed {
    const struct run *whole;
    struct run r;
};

static bool script_same(void *ctx, const uint8_t *p, const struct feed_way *w)
{
    struct script_feed *c = ctx;
    run_script(p, w, &c->r);
    return same_run(c->whole, &c->r);
}

static void test_every_split(void)
{
    struct buf s = { 0 };
    build_script(&s);
    struct run whole = { 0 };
    struct feed_way all = feed_whole(s.len);
    run_script(s.b, &all, &whole);
    static const struct { enum h2_event_kind k; uint32_t id; uint16_t st; uint32_t tag; } want[] = {
        { H2_EV_RESPONSE, 3, 404, 1 }, { H2_EV_RESPONSE, 5, 200, 2 }, { H2_EV_RESPONSE, 1, 200, 0 },
        { H2_EV_RESPONSE, 7, 200, 3 }, { H2_EV_RESPONSE, 9, 200, 4 }, { H2_EV_RESET, 11, 0, 5 },
        { H2_EV_RETRY, 13, 0, 6 },     { H2_EV_RETRY, 17, 0, 8 },     { H2_EV_RESPONSE, 15, 404, 7 },
    };
    bool ok = whole.rc == 0 && whole.nev == sizeof want / sizeof want[0] && whole.drained && whole.ok;
    for (size_t i = 0; ok && i < whole.nev; i++)
        ok = whole.ev[i].kind == want[i].k && whole.ev[i].id == want[i].id && whole.ev[i].status == want[i].st &&
             whole.ev[i].tag % 100000 == want[i].tag;
    if (!ok)
        for (size_t i = 0; i < whole.nev; i++)
            printf("  ev %d id %u st %u tag %llu\n", (int)whole.ev[i].kind, whole.ev[i].id, whole.ev[i].status,
                   (unsigned long long)(whole.ev[i].tag % 100000));
    T_CHECK("script: whole stream: the expected 9 outcomes in order, drained after GOAWAY", ok,
            "rc %d nev %zu drained %d", whole.rc, whole.nev, whole.drained);
    /* what the client wrote: preface, 4 + 5 HEADERS, SETTINGS ACK, 2 PING ACKs */
    struct fx tmp = { 0 };
    tmp.out = whole.out;
    tmp.rd = sizeof PREFACE;
    struct fr fr;
    int heads = 0, acks = 0, pings = 0, other = 0;
    while (fx_next(&tmp, &fr)) {
        if (fr.type == T_HEADERS)
            heads++;
        else if (fr.type == T_SETTINGS && fr.flags == ACK)
            acks++;
        else if (fr.type == T_PING && fr.flags == ACK)
            pings++;
        else
            other++;
    }
    T_CHECK("script: output: 9 HEADERS, 1 SETTINGS ACK, 2 PING ACKs, nothing else",
            heads == 9 && acks == 1 && pings == 2 && other == 0 && tmp.rd == whole.out.len, "%d %d %d %d", heads,
            acks, pings, other);

    struct script_feed c = { .whole = &whole };
    struct feed_fails ff;
    feed_splits(s.b, s.len, script_same, &c, &ff);
    T_CHECK("script: one byte at a time: same events and output bytes", ff.n[FEED_BYTES] == 0, "differs");
    T_CHECK("script: 7-byte chunks: same events and output bytes", ff.n[FEED_CHUNKS] == 0, "differs");
    T_CHECK("script: split in two at every byte: same events and output bytes", ff.n[FEED_SPLIT] == 0,
            "%zu of %zu splits differ, first at %zu", ff.n[FEED_SPLIT], s.len + 1, ff.first_split);
    buf_free(&whole.out);
    buf_free(&c.r.out);
    buf_free(&s);
}

/* ------------------------------------------------------------ HPACK dynamic table (h2o 2.2) */

/* Literal with incremental indexing (RFC 7541 §6.2.1): name_index (6-bit
 * prefix) or, when 0, a literal name; strings Huffman-coded when huff. */
static void hp_int(struct buf *x, unsigned prefix, uint8_t first, size_t v)
{
    uint8_t t[16];
    size_t n = hpack_int_encode(t, sizeof t, prefix, first, v);
    buf_put(x, t, n);
}

static void hp_str(struct buf *x, const char *str, bool huff)
{
    size_t n = strlen(str);
    if (!huff) {
        hp_int(x, 7, 0x00, n);
        buf_put(x, str, n);
        return;
    }
    uint8_t t[256];
    size_t hn = hpack_huffman_encode((const uint8_t *)str, n, t);
    hp_int(x, 7, 0x80, hn);
    buf_put(x, t, hn);
}

static void hp_insert(struct buf *x, unsigned name_index, const char *name, const char *value, bool huff)
{
    hp_int(x, 6, 0x40, name_index);
    if (!name_index)
        hp_str(x, name, huff);
    hp_str(x, value, huff);
}

static void hp_bytes(struct buf *x, const char *raw, size_t n)
{
    buf_put(x, raw, n);
}

/* A server that, like h2o 2.2, ignores our SETTINGS_HEADER_TABLE_SIZE 0 and
 * indexes with the default 4096 bytes: response 1 inserts :status 200 and a
 * few fields, the later ones refer to them by dynamic index. Along the way:
 * a block split over CONTINUATION, a malformed response whose block still
 * inserts, a closed stream's block that inserts, trailers that insert, a
 * size update to 256 that evicts, and one to 0. Eight streams (1..15) on one
 * connection. The table after each block, newest (62) first, in comments. */
static void build_h2o_script(struct buf *s)
{
    static const uint32_t kv[] = { 3, 100 };
    struct buf k = { 0 };
    f_settings(s, kv, 1);
    f_frame(s, T_SETTINGS, ACK, 0, NULL, 0);

    hp_insert(&k, 8, NULL, "200", false);                          /* :status 200, 42 bytes */
    hp_insert(&k, 54, NULL, "h2o/2.2.5", true);                    /* server, 47 */
    hp_insert(&k, 33, NULL, "Sun, 29 Nov 2026 21:09:44 GMT", true); /* date, 65 */
    hp_insert(&k, 0, "x-h2o-test", "hello world", true);           /* 53 */
    f_headers(s, 1, EH, k.b, k.len);                               /* [x-h2o-test, date, server, :status] */
    f_data(s, 1, ES, 10);
    k.len = 0;

    hp_bytes(&k, "\xc1\xc0\xbf\xbe\x0f\x0d\x01\x31", 8); /* 65..62, content-length 1 without indexing */
    f_block(s, 3, 0, k.b, k.len, 3);
    f_data(s, 3, ES, 1);
    k.len = 0;

    hp_bytes(&k, "\x48\x03" "2x0", 5); /* :status 2x0 inserted (42), malformed: stream error */
    hp_insert(&k, 0, "a", "b", false);  /* 34: [a, 2x0, x-h2o-test, date, server, :status] */
    f_headers(s, 5, EH | ES, k.b, k.len);
    k.len = 0;

    hp_insert(&k, 0, "c", "d", false); /* stream 5 is closed; 34: [c, a, 2x0, x-h2o-test, date, server, :status] */
    f_headers(s, 5, EH | ES, k.b, k.len);
    k.len = 0;

    hp_bytes(&k, "\xc4\xbe\xbf\xc3", 4); /* :status 200 (68), c, a, server */
    f_headers(s, 7, EH, k.b, k.len);
    f_data(s, 7, ES, 7);
    k.len = 0;

    f_headers(s, 9, EH, "\xc4", 1);
    f_data(s, 9, 0, 5);
    hp_insert(&k, 0, "grpc-status", "0", true); /* trailers insert too (44): [grpc, c, a, 2x0, x-h2o, date, server, :status] */
    f_headers(s, 9, EH | ES, k.b, k.len);
    k.len = 0;

    f_headers(s, 11, EH, "\xc5\xbe", 2); /* :status 200 (69), grpc-status */
    f_data(s, 11, ES, 11);

    /* 361 bytes; 256 evicts :status, server, date: [grpc, c, a, 2x0, x-h2o-test] */
    f_headers(s, 13, EH | ES, "\x3f\xe1\x01\x88\xc2", 5);
    /* size update 0 empties the table; the insert that follows inserts nothing */
    hp_bytes(&k, "\x20\x8d", 2);
    hp_insert(&k, 0, "e", "f", false);
    f_headers(s, 15, EH | ES, k.b, k.len);
    buf_free(&k);
}

struct h2o_run {
    struct ev ev[16];
    size_t nev;
    int rc;
    int rst[16];
    size_t nrst;
    bool goaway, ok;
};

/* Our SETTINGS_HEADER_TABLE_SIZE for run_h2o: the script's size updates
 * (to 256, to 0) are within 4096; with 0 the one to 256 is above it. */
static const struct h2_local h2o_local = { .header_table_size = 4096, .stream_window = H2_OUR_INITIAL_WINDOW,
                                           .conn_window = H2_OUR_CONN_WINDOW, .max_frame_size = 16384 };
static const struct h2_local *h2o_local_use = &h2o_local;

/* Feeds the script to a fresh connection with 8 streams open, cut the
 * way w says. */
static void run_h2o(const uint8_t *p, const struct feed_way *w, struct h2o_run *r)
{
    g_local = h2o_local_use;
    struct fx *f = fx_new(8, REQ, sizeof REQ, NULL, 0, false);
    fx_preface(f);
    for (int i = 0; i < 8; i++)
        fx_start(f);
    int rc = fx_feed_way(f, p, w);
    memset(r, 0, sizeof *r);
    r->rc = rc;
    r->nev = f->nev < 16 ? f->nev : 16;
    memcpy(r->ev, f->ev, r->nev * sizeof r->ev[0]);
    struct fr fr;
    while (fx_next(f, &fr)) {
        if (fr.type == T_RST && r->nrst < 16)
            r->rst[r->nrst++] = (int)fr.id;
        r->goaway |= fr.type == T_GOAWAY;
    }
    r->ok = fx_end(f);
}

static bool h2o_run_good(const struct h2o_run *r)
{
    static const struct { enum h2_event_kind k; uint32_t id; uint16_t st; } want[] = {
        { H2_EV_RESPONSE, 1, 200 }, { H2_EV_RESPONSE, 3, 200 },  { H2_EV_MALFORMED, 5, 0 },
        { H2_EV_RESPONSE, 7, 200 }, { H2_EV_RESPONSE, 9, 200 },  { H2_EV_RESPONSE, 11, 200 },
        { H2_EV_RESPONSE, 13, 200 }, { H2_EV_RESPONSE, 15, 404 },
    };
    if (r->rc != 0 || r->nev != 8 || r->goaway || r->nrst != 1 || r->rst[0] != 5 || !r->ok)
        return false;
    for (size_t i = 0; i < 8; i++)
        if (r->ev[i].kind != want[i].k || r->ev[i].id != want[i].id || r->ev[i].status != want[i].st ||
            (want[i].k == H2_EV_MALFORMED && r->ev[i].code != 1))
            return false;
    return true;
}

static bool h2o_feed_good(void *ctx, const uint8_t *p, const struct feed_way *w)
{
    run_h2o(p, w, ctx);
    return h2o_run_good(ctx);
}

static void test_dynamic_table(void)
{
    struct buf s = { 0 };
    build_h2o_script(&s);
    struct h2o_run r;
    struct feed_way all = feed_whole(s.len);
    run_h2o(s.b, &all, &r);
    bool whole = h2o_run_good(&r);
    if (!whole)
        for (size_t i = 0; i < r.nev; i++)
            printf("  ev %d id %u st %u code %u\n", (int)r.ev[i].kind, r.ev[i].id, r.ev[i].status, r.ev[i].code);
    T_CHECK("hpack table: a server indexing with the 4096 bytes it starts with (as h2o 2.2 does whatever we "
            "advertise), size updates within our HEADER_TABLE_SIZE 4096: 7 responses ok on one connection, the "
            "malformed one reset, no GOAWAY",
            whole, "rc %d nev %zu nrst %zu goaway %d", r.rc, r.nev, r.nrst, r.goaway);
    struct feed_fails ff;
    feed_splits(s.b, s.len, h2o_feed_good, &r, &ff);
    T_CHECK("hpack table: the same, one byte at a time", ff.n[FEED_BYTES] == 0, "differs");
    T_CHECK("hpack table: the same, 7-byte chunks", ff.n[FEED_CHUNKS] == 0, "differs");
    T_CHECK("hpack table: the same, split in two at every byte", ff.n[FEED_SPLIT] == 0,
            "%zu of %zu splits differ, first at %zu", ff.n[FEED_SPLIT], s.len + 1, ff.first_split);
    /* Advertising 0 (the default), all of it is still decoded: the
     * indexing (a peer that never sends a size update keeps 4096, RFC 7541
     * §4.2) and the size update to 256, above what we advertised but within
     * the 4096 the decoder keeps (h2.c: RFC 9113 §4.3.1 calls lowering the
     * table "not widely interoperable"). */
    h2o_local_use = NULL;
    run_h2o(s.b, &all, &r);
    T_CHECK("hpack table: HEADER_TABLE_SIZE 0, a size update to 256: tolerated, all 8 as with 4096", h2o_run_good(&r),
            "rc %d nev %zu", r.rc, r.nev);
    static const struct h2_local at256 = { .header_table_size = 256, .stream_window = H2_OUR_INITIAL_WINDOW,
                                           .conn_window = H2_OUR_CONN_WINDOW, .max_frame_size = 16384 };
    h2o_local_use = &at256;
    run_h2o(s.b, &all, &r);
    T_CHECK("hpack table: HEADER_TABLE_SIZE 256: the update to 256 is allowed, all 8 as with 4096", h2o_run_good(&r),
            "rc %d nev %zu", r.rc, r.nev);
    h2o_local_use = &h2o_local;
    buf_free(&s);

    /* -n N -c 1 -p 1 against h2o: one stream at a time, every response after
     * the first made of references only. */
    struct fx *f = fx_ready(1, NULL, 0);
    struct buf k = { 0 }, b = { 0 };
    bool ok = true;
    for (uint32_t i = 0; i < 50 && ok; i++) {
        uint32_t id = fx_start(f);
        k.len = 0;
        if (i == 0) {
            hp_insert(&k, 8, NULL, "200", false);
            hp_insert(&k, 54, NULL, "h2o/2.2.5", true);
            hp_insert(&k, 31, NULL, "text/html", true);
        } else {
            hp_bytes(&k, "\xc0\xbf\xbe\x0f\x0d\x02" "14", 8);
        }
        f_headers(&b, id, EH, k.b, k.len);
        f_data(&b, id, ES, 14);
        ok = id == 2 * i + 1 && fx_feedb(f, &b) == 0 && f->nev == i + 1 && f->ev[i].kind == H2_EV_RESPONSE &&
             f->ev[i].status == 200;
    }
    T_CHECK("hpack table: 50 responses one after another, 2..50 by dynamic index only", ok, "nev %zu", f->nev);
    T_QUIET("hpack table: accounting", fx_end(f), "bad accounting");
    buf_free(&k);
    buf_free(&b);
}

/* ------------------------------------------------------------ robustness */

static void test_fuzz(void)
{
    struct buf s = { 0 }, m = { 0 };
    build_script(&s);
    int iters = 3000, bad_rc = 0, bad_acct = 0, bad_goaway = 0, errors = 0;
    for (int it = 0; it < iters; it++) {
        m.len = 0;
        buf_put(&m, s.b, s.len);
        int nmut = 1 + (int)(t_rng() % 4);
        for (int k = 0; k < nmut && m.len > 0; k++) {
            size_t pos = t_rng() % m.len;
            switch (t_rng() % 6) {
            case 0: m.b[pos] = (uint8_t)t_rng(); break;
            case 1: m.b[pos] ^= (uint8_t)(1u << (t_rng() % 8)); break;
            case 2: /* delete a byte */
                memmove(m.b + pos, m.b + pos + 1, m.len - pos - 1);
                m.len--;
                break;
            case 3: { /* insert a byte */
                uint8_t v = (uint8_t)t_rng();
                buf_u8(&m, 0);
                memmove(m.b + pos + 1, m.b + pos, m.len - pos - 1);
                m.b[pos] = v;
                break;
            }
            case 4: m.len = pos; break; /* truncate */
            default: { /* duplicate a slice */
                size_t len = 1 + t_rng() % 64;
                if (pos + len > m.len)
                    len = m.len - pos;
                uint8_t tmp[64];
                memcpy(tmp, m.b + pos, len);
                buf_put(&m, tmp, len);
                break;
            }
            }
        }
        struct fx *f = fx_new(4, REQ, sizeof REQ, NULL, 0, false);
        f->restart = t_rng() & 1;
        for (int i = 0; i < 4; i++)
            fx_start(f);
        int rc = 0;
        for (size_t off = 0; off < m.len && rc == 0;) {
            size_t len = 1 + t_rng() % 97;
            if (len > m.len - off)
                len = m.len - off;
            rc = fx_feed(f, m.b + off, len);
            off += len;
        }
        if (rc != 0 && rc != H2_ERR_PROTOCOL && rc != H2_ERR_FRAME_SIZE && rc != H2_ERR_COMPRESSION &&
            rc != H2_ERR_FLOW_CONTROL && rc != H2_ERR_OUT_FULL && rc != H2_ERR_PEER_GOAWAY && rc != H2_ERR_CALM)
            bad_rc++;
        if (rc) {
            errors++;
            struct fr r, last = { 0 };
            f->rd = sizeof PREFACE;
            while (fx_next(f, &r))
                last = r;
            if (last.type != T_GOAWAY || f->rd != f->out.len || h2_open_streams(f->c) != 0)
                bad_goaway++;
        }
        if (f->bad_tags)
            bad_acct++;
        if (!fx_end(f))
            bad_acct++;
    }
    T_CHECK("fuzz: 3000 mutated server streams at random splits: only clean H2_ERR_* results", bad_rc == 0,
            "%d bad", bad_rc);
    T_CHECK("fuzz: every failed connection ends its output with a GOAWAY, nothing left open", bad_goaway == 0,
            "%d bad (of %d errors)", bad_goaway, errors);
    T_CHECK("fuzz: every started tag reported exactly once", bad_acct == 0, "%d bad", bad_acct);
    printf("  fuzz: %d of %d mutated streams ended in a connection error\n", errors, iters);
    buf_free(&s);
    buf_free(&m);
}


/* h2_oldest and h2_cancel: what a request timeout does to its stream. */
static void test_cancel(void)
{
    struct fx *f = fx_ready(4, NULL, 0);
    uint32_t ids[4];
    for (int i = 0; i < 4; i++)
        ids[i] = fx_start(f);
    fx_drain(f);
    struct fr r;
    while (fx_next(f, &r)) /* the four HEADERS */
        ;
    uint32_t id = 0;
    uint64_t tag = 0;
    bool ok = h2_oldest(f->c, &id, &tag) && id == 1 && tag == f->tag_base;
    T_CHECK("cancel: the oldest open stream is the first one started", ok, "id %u tag %llu", id,
            (unsigned long long)tag);

    int rc = respond(f, 1, B200, 1);
    ok = rc == 0 && h2_oldest(f->c, &id, &tag) && id == 3 && tag == f->tag_base + 1;
    T_CHECK("cancel: when it completes the next one is the oldest", ok, "rc %d id %u", rc, id);

    /* The timeout: stream 3 goes with RST_STREAM CANCEL and no event. */
    size_t nev = f->nev;
    ok = h2_cancel(f->c, 3, NULL) && h2_open_streams(f->c) == 2 && f->nev == nev;
    f->reported[1]++; /* the caller accounts for it (a timeout error) */
    fx_drain(f);
    ok = ok && fx_expect(f, T_RST, &r) && r.id == 3 && r.len == 4 && rd32(r.pl) == 8 && fx_nothing_new(f);
    T_CHECK("cancel: RST_STREAM CANCEL (0x8) goes out, no event, the stream is closed", ok, "nev %zu", f->nev);

    ok = !h2_cancel(f->c, 3, NULL) && !h2_cancel(f->c, 1, NULL) && !h2_cancel(f->c, 9, NULL);
    T_CHECK("cancel: a closed, completed or never opened stream cannot be cancelled", ok, "cancelled");

    /* What the server still sends for it is dropped; the others go on. */
    struct buf b = { 0 };
    f_headers(&b, 3, EH, B200, 1);
    f_data(&b, 3, ES, 10);
    rc = fx_feedb(f, &b);
    rc |= respond(f, 5, B200, 1);
    ok = rc == 0 && f->nev == nev + 1 && f->ev[nev].id == 5 && f->ev[nev].kind == H2_EV_RESPONSE &&
         h2_oldest(f->c, &id, &tag) && id == 7;
    T_CHECK("cancel: late frames for the cancelled stream are discarded, the connection carries on", ok,
            "rc %d nev %zu id %u", rc, f->nev, id);
    ok = h2_can_start(f->c) && fx_start(f) == 9;
    T_CHECK("cancel: the freed slot takes a new stream", ok, "cannot start");
    rc = respond(f, 7, B200, 1) | respond(f, 9, B200, 1);
    ok = rc == 0 && !h2_oldest(f->c, &id, &tag) && h2_open_streams(f->c) == 0;
    T_CHECK("cancel: no oldest stream once none is open", ok, "rc %d id %u", rc, id);
    T_CHECK("cancel: scenario accounting", fx_end(f), "bad accounting");
    buf_free(&b);
    (void)ids;
}


/* Indexed request blocks (hpack_encode_request_indexed): the first stream
 * sends `first`, the later ones `next`; a peer that lowers
 * SETTINGS_HEADER_TABLE_SIZE gets the plain block from then on, the first
 * time behind a size update to 0 (RFC 7541 §4.2, §6.3). Without indexed
 * blocks the update is due all the same. */
static void test_indexed(void)
{
    static const uint8_t FIRST[] = { 0x82, 0x86, 0x84, 0x41, 0x01, 'a' };
    static const uint8_t NEXT[] = { 0x82, 0x86, 0x84, 0xbe };
    struct fr r;
    g_first = FIRST, g_first_len = sizeof FIRST, g_next = NEXT, g_next_len = sizeof NEXT;
    struct fx *f = fx_ready(8, NULL, 0);
    fx_start(f);
    fx_start(f);
    fx_start(f);
    fx_drain(f);
    bool ok = fx_expect(f, T_HEADERS, &r) && r.id == 1 && r.len == sizeof FIRST && memcmp(r.pl, FIRST, r.len) == 0;
    ok = ok && fx_expect(f, T_HEADERS, &r) && r.id == 3 && r.len == sizeof NEXT && memcmp(r.pl, NEXT, r.len) == 0;
    ok = ok && fx_expect(f, T_HEADERS, &r) && r.id == 5 && r.len == sizeof NEXT && memcmp(r.pl, NEXT, r.len) == 0;
    T_CHECK("indexed: stream 1 sends the indexing block, streams 3 and 5 the referring one", ok, "wrong blocks");

    /* The peer lowers its table: its ACK first, then the plain block behind 0x20, then the plain block. */
    static const uint32_t hts256[] = { 1, 256 };
    struct buf b = { 0 };
    f_settings(&b, hts256, 1);
    int rc = fx_feedb(f, &b);
    fx_start(f);
    fx_start(f);
    fx_drain(f);
    ok = rc == 0 && fx_expect(f, T_SETTINGS, &r) && r.flags == ACK;
    ok = ok && fx_expect(f, T_HEADERS, &r) && r.id == 7 && r.len == sizeof REQ + 1 && r.pl[0] == 0x20 &&
         memcmp(r.pl + 1, REQ, sizeof REQ) == 0;
    ok = ok && fx_expect(f, T_HEADERS, &r) && r.id == 9 && r.len == sizeof REQ && memcmp(r.pl, REQ, sizeof REQ) == 0;
    T_CHECK("indexed: HEADER_TABLE_SIZE 256: the ACK, then a size update to 0 before the plain block, once", ok,
            "rc %d", rc);
    /* Raised again: we stay plain, and no second update. */
    static const uint32_t hts4096[] = { 1, 4096 };
    f_settings(&b, hts4096, 1);
    rc = fx_feedb(f, &b);
    fx_start(f);
    fx_drain(f);
    ok = rc == 0 && fx_expect(f, T_SETTINGS, &r) && fx_expect(f, T_HEADERS, &r) && r.id == 11 && r.len == sizeof REQ &&
         memcmp(r.pl, REQ, sizeof REQ) == 0;
    T_CHECK("indexed: raised back to 4096: still the plain block, no second update", ok, "rc %d", rc);
    for (uint32_t id = 1; id <= 11; id += 2)
        rc |= respond(f, id, B200, 1);
    T_CHECK("indexed: scenario accounting", rc == 0 && fx_end(f), "rc %d", rc);

    /* No indexed blocks: the update still comes after a lowered table. */
    f = fx_ready(2, hts256, 1);
    fx_start(f);
    fx_start(f);
    fx_drain(f);
    ok = fx_expect(f, T_HEADERS, &r) && r.len == sizeof REQ + 1 && r.pl[0] == 0x20 && fx_expect(f, T_HEADERS, &r) &&
         r.len == sizeof REQ;
    T_CHECK("indexed: plain blocks, HEADER_TABLE_SIZE 256 in the first SETTINGS: one size update, then plain", ok,
            "wrong blocks");
    rc = respond(f, 1, B200, 1) | respond(f, 3, B200, 1);
    T_CHECK("indexed: plain scenario accounting", rc == 0 && fx_end(f), "rc %d", rc);
    buf_free(&b);
}

int main(void)
{
    test_preface();
    test_parallel();
    test_max_concurrent();
    test_interleave();
    test_continuation_padding();
    test_interim_trailers();
    test_stream_errors();
    test_field_values();
    test_request_body();
    test_recv_flow();
    test_local();
    test_goaway();
    test_ids_exhausted();
    test_rst();
    test_cancel();
    test_indexed();
    test_violations();
    test_floods();
    test_content_length();
    test_conn_lost_and_output();
    test_every_split();
    test_dynamic_table();
    test_fuzz();
    T_CHECK("accounting: every h2_start'ed tag reported exactly once across all scenarios",
            g_started > 0 && g_once == g_started && g_bad == 0, "%lu started, %lu once, %lu bad", g_started, g_once,
            g_bad);
    T_CHECK("accounting: every first byte timed by a receive after its stream started, across all scenarios",
            g_first_bytes > 0 && g_bad == 0, "%lu first bytes, %lu bad", g_first_bytes, g_bad);
    T_DONE();
}
