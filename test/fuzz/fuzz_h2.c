/* test/fuzz/fuzz_h2.c — the HTTP/2 client connection engine (h2.h).
 *
 * Input: [config] [split mode] [split seed, 2 bytes] [body length], then the
 * bytes the server sends. The config byte picks the request (bits 0-1: GET;
 * POST with a body; GET with a 20 KB header block, which needs CONTINUATION;
 * a minimal hand-made block with a body), -p (bits 2-4), whether the event
 * callback starts streams itself (bit 5, which h2.c allows), whether output
 * is acknowledged in part (bit 6), and whether the connection's memory is
 * first used by another connection (bit 7: h2_conn_init on a used block).
 * The body length byte's bits 3-4 pick our side's settings (h2.h's struct
 * h2_local: the defaults; -w 14 -W 16 with MAX_FRAME_SIZE 1 MiB and a 4096
 * table; -w 0 -W 14, credit held back below 65,535; a 256-byte table with
 * windows of 1 byte and the largest MAX_FRAME_SIZE).
 *
 * The engine runs as the worker drives it: streams are started while
 * h2_can_start, the server's bytes go in through h2_recv in the pieces the
 * split says, and between pieces the output is taken (h2_out / h2_out_ack)
 * and new streams are started; at the end, h2_conn_lost. Checked:
 *   - every stream outcome names a tag that was started and not yet
 *     reported, with its stream id; by the end every started tag has been
 *     reported exactly once (h2.h: h2_conn_lost reports every open stream,
 *     and an H2_ERR_* from h2_recv comes after every open stream was
 *     reported), and h2_open_streams is always the number of started tags
 *     not yet reported;
 *   - a response's status is final (200..999; 1xx are interim);
 *   - h2_start succeeds whenever h2_can_start, with the next odd stream id;
 *   - what the client writes is a valid HTTP/2 client stream (RFC 9113): the
 *     preface, SETTINGS first (§3.4), frame types a client sends, HEADERS in
 *     stream order carrying exactly the configured request block, with
 *     CONTINUATION frames uninterrupted (§6.10), END_STREAM on HEADERS
 *     exactly when there is no body, DATA only on open request streams and
 *     adding up to exactly the body at END_STREAM, nothing on a stream after
 *     our END_STREAM or RST_STREAM (§5.1), and no zero WINDOW_UPDATE (§6.9). */
#include "cli/cli.h"
#include "fuzz.h"
#include "h2.h"

#define MAX_TAGS (1u << 14)
#define BODY_MAX 70000

/* ------------------------------------------------------------ configs, built once */

static struct h2_config configs[4];
static uint8_t body[BODY_MAX];
static const uint32_t parallels[8] = { 1, 2, 3, 4, 8, 16, 100, 128 };
static const size_t body_lens[8] = { 0, 1, 100, 16384, 16385, 65535, 65536, BODY_MAX };
static const struct h2_local locals[3] = {
    { .header_table_size = 4096, .stream_window = 16383, .conn_window = 65535, .max_frame_size = 1u << 20 },
    { .header_table_size = 0, .stream_window = 0, .conn_window = 16383, .max_frame_size = 16384 },
    { .header_table_size = 256, .stream_window = 1, .conn_window = 1, .max_frame_size = 16777215 },
};
/* :method GET, :scheme http, :path /, :authority "a" (literal without indexing, §6.2.2) */
static const uint8_t tiny_block[] = { 0x82, 0x86, 0x84, 0x01, 0x01, 'a' };
static char big_header[20000 + 8];

static struct shb_opts o_last;

static void request_block(struct h2_config *cfg, int argc, char **argv)
{
    static struct shb_opts o[3];
    static int used;
    char err[256];
    FILE *devnull = fopen("/dev/null", "w");
    if (cli_parse(argc, argv, &o[used], 1, devnull, err, sizeof err) != CLI_OK) {
        fprintf(stderr, "fuzz_h2: cli_parse: %s\n", err);
        abort();
    }
    if (devnull)
        fclose(devnull);
    size_t len;
    struct shb_request req = cli_request(&o[used], &o[used].targets[0]);
    uint8_t *blk = hpack_encode_request(&req, &len);
    if (!blk)
        abort();
    cfg->request_block = blk; /* kept for the process's life, as main does */
    cfg->request_block_len = len;
    o_last = o[used];
    used++;
}

/* The indexed blocks too (h2.h): the first stream indexes, the later ones refer. */
static void request_blocks_indexed(struct h2_config *cfg, int argc, char **argv)
{
    request_block(cfg, argc, argv);
    struct shb_request req = cli_request(&o_last, &o_last.targets[0]);
    struct hpack_request_blocks b;
    if (hpack_encode_request_indexed(&req, &b) != 0)
        abort();
    cfg->request_first = b.first;
    cfg->request_first_len = b.first_len;
    cfg->request_next = b.next;
    cfg->request_next_len = b.next_len;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static char a0[] = "shb", url[] = "http://127.0.0.1:8080/index", dflag[] = "-d", dval[] = "x",
                hflag[] = "-H";
    char *get[] = { a0, url, NULL };
    char *post[] = { a0, dflag, dval, url, NULL };
    memcpy(big_header, "x-big: ", 7);
    memset(big_header + 7, 'b', sizeof big_header - 8);
    big_header[sizeof big_header - 1] = '\0';
    char *big[] = { a0, hflag, big_header, url, NULL };
    request_blocks_indexed(&configs[0], 2, get);
    request_blocks_indexed(&configs[1], 4, post);
    configs[1].has_body = true;
    request_block(&configs[2], 4, big);
    configs[3].request_block = tiny_block;
    configs[3].request_block_len = sizeof tiny_block;
    configs[3].has_body = true;
    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (uint8_t)(i * 31 + 7);
    return 0;
}

/* ------------------------------------------------------------ the run */

static _Alignas(64) uint8_t mem[1u << 20];

enum { TAG_OPEN = 1, TAG_REPORTED = 2 };
/* What the output checker saw for a stream. */
#define OUT_HEADERS 0x01 /* its HEADERS frame (all of the block) went out */
#define OUT_END 0x02     /* our END_STREAM */
#define OUT_RST 0x04     /* our RST_STREAM */

static struct run {
    struct h2_conn *c;
    struct h2_config cfg;
    bool start_in_callback;
    bool in_lost;        /* inside h2_conn_lost: no starting */
    uint32_t started;    /* tags 0 .. started-1 were started */
    uint32_t tag_base;   /* the first tag of the current connection */
    uint32_t outstanding; /* started, not yet reported */
    uint8_t tag_state[MAX_TAGS];
    uint64_t now;        /* passed to h2_recv: one more each call */
    bool in_recv;        /* inside h2_recv (a stream started in a callback) */
    uint64_t start_now[MAX_TAGS]; /* the first receive that may bring the tag's first byte */
    uint8_t out_flags[MAX_TAGS];
    uint32_t data_sent[MAX_TAGS];

    /* output checker: the client's byte stream as the server would read it */
    size_t preface_seen;
    bool frame_seen;
    uint8_t hbuf[9];
    size_t hlen;
    size_t left;         /* payload bytes of the current frame still to come */
    uint8_t ftype, fflags;
    uint32_t fid;
    uint8_t unit[8];     /* fixed-size payloads (RST_STREAM, PING, GOAWAY, WINDOW_UPDATE) */
    size_t unit_len;
    uint32_t cont_id;    /* a header block is open on this stream */
    uint32_t next_hdr;   /* the tag whose HEADERS comes next */
    size_t blk_off;      /* bytes of the request block seen in the current block */
    /* Which block each HEADERS must carry (h2.h): the connection's first
     * one indexes, the later ones refer to it, until a table size update
     * (0x20, RFC 7541 §6.3) begins one; from then on the plain block. */
    uint32_t blocks_seen;
    bool table_reset;
    const uint8_t *exp;
    size_t exp_len;
} R;

static const uint8_t preface[24] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

static uint32_t tag_of_id(uint32_t id)
{
    return R.tag_base + (id - 1) / 2;
}

static void start_streams(void)
{
    while (h2_can_start(R.c) && R.started < MAX_TAGS) {
        uint32_t tag = R.started;
        uint32_t id = h2_start(R.c, tag, 0, 0);
        FZ_CHECK(id == 2 * (tag - R.tag_base) + 1, "h2_start gave id %u to tag %u (base %u)", id, tag, R.tag_base);
        R.tag_state[tag] = TAG_OPEN;
        R.start_now[tag] = R.now + !R.in_recv;
        R.started++;
        R.outstanding++;
    }
}

static void on_event(void *ctx, const struct h2_event *ev)
{
    FZ_CHECK(ctx == &R, "wrong ctx");
    FZ_CHECK(ev->tag < R.started, "event for tag %llu, only %u started", (unsigned long long)ev->tag, R.started);
    uint32_t tag = (uint32_t)ev->tag;
    FZ_CHECK(R.tag_state[tag] == TAG_OPEN, "tag %u reported twice (kind %d)", tag, (int)ev->kind);
    FZ_CHECK(tag >= R.tag_base && ev->stream_id == 2 * (tag - R.tag_base) + 1, "tag %u came with stream %u", tag,
             ev->stream_id);
    /* A first byte came in a receive after the stream started; none has no time. */
    if (ev->response_started)
        FZ_CHECK(ev->first_byte_at >= R.start_now[tag] && ev->first_byte_at <= R.now,
                 "tag %u: first byte at %llu, started at %llu, now %llu", tag, (unsigned long long)ev->first_byte_at,
                 (unsigned long long)R.start_now[tag], (unsigned long long)R.now);
    else
        FZ_CHECK(ev->first_byte_at == 0, "tag %u: a first byte time without one", tag);
    switch (ev->kind) {
    case H2_EV_RESPONSE:
        FZ_CHECK(ev->status >= 200 && ev->status <= 999, "response status %u", ev->status);
        FZ_CHECK(ev->response_started, "tag %u: a response without a first byte", tag);
        break;
    case H2_EV_ABORTED:
    case H2_EV_RESET:
    case H2_EV_MALFORMED:
    case H2_EV_RETRY:
        break;
    default:
        FZ_CHECK(0, "unknown event kind %d", (int)ev->kind);
    }
    R.tag_state[tag] = TAG_REPORTED;
    R.outstanding--;
    if (R.start_in_callback && !R.in_lost)
        start_streams();
}

static void check_counts(void)
{
    FZ_CHECK(h2_open_streams(R.c) == R.outstanding, "%u streams open, %u tags outstanding", h2_open_streams(R.c),
             R.outstanding);
}

/* --- output checker */

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A stream we send on: started, request HEADERS out, not ended by us. */
static uint32_t sending_stream(uint32_t id, const char *what)
{
    FZ_CHECK(id & 1, "%s on stream %u", what, id);
    uint32_t tag = tag_of_id(id);
    FZ_CHECK(tag < R.started, "%s on stream %u, never started", what, id);
    FZ_CHECK(R.out_flags[tag] & OUT_HEADERS, "%s on stream %u before its HEADERS", what, id);
    FZ_CHECK(!(R.out_flags[tag] & (OUT_END | OUT_RST)), "%s on stream %u after our END_STREAM or RST_STREAM", what,
             id);
    return tag;
}

static void out_frame_begin(void)
{
    uint32_t len = (uint32_t)R.hbuf[0] << 16 | (uint32_t)R.hbuf[1] << 8 | R.hbuf[2];
    R.ftype = R.hbuf[3];
    R.fflags = R.hbuf[4];
    R.fid = rd32(R.hbuf + 5);
    R.left = len;
    R.unit_len = 0;
    FZ_CHECK(!(R.fid & 0x80000000u), "reserved bit set");
    FZ_CHECK(R.frame_seen || (R.ftype == 4 && !(R.fflags & 1)), "first frame is type %u, not SETTINGS", R.ftype);
    R.frame_seen = true;
    if (R.cont_id)
        FZ_CHECK(R.ftype == 9 && R.fid == R.cont_id, "frame type %u on stream %u inside stream %u's header block",
                 R.ftype, R.fid, R.cont_id);
    switch (R.ftype) {
    case 0: { /* DATA */
        uint32_t tag = sending_stream(R.fid, "DATA");
        FZ_CHECK(R.cfg.has_body, "DATA without a body");
        FZ_CHECK(!(R.fflags & 0x08), "padded DATA");
        R.data_sent[tag] += len;
        FZ_CHECK(R.data_sent[tag] <= R.cfg.body_len, "stream %u: %u body bytes of %zu", R.fid, R.data_sent[tag],
                 R.cfg.body_len);
        if (R.fflags & 1) {
            FZ_CHECK(R.data_sent[tag] == R.cfg.body_len, "stream %u: END_STREAM after %u body bytes of %zu", R.fid,
                     R.data_sent[tag], R.cfg.body_len);
            R.out_flags[tag] |= OUT_END;
        }
        break;
    }
    case 1: { /* HEADERS */
        FZ_CHECK(R.next_hdr < R.started, "HEADERS for stream %u, not started", R.fid);
        FZ_CHECK(R.fid == 2 * (R.next_hdr - R.tag_base) + 1, "HEADERS on stream %u, expected %u", R.fid,
                 2 * (R.next_hdr - R.tag_base) + 1);
        FZ_CHECK(!(R.fflags & 0x28), "padding or priority on our HEADERS");
        FZ_CHECK(!(R.fflags & 1) == R.cfg.has_body, "END_STREAM %d with has_body %d", R.fflags & 1,
                 R.cfg.has_body);
        uint32_t tag = R.next_hdr++;
        if (R.fflags & 1)
            R.out_flags[tag] |= OUT_END;
        R.blk_off = 0;
        R.cont_id = R.fid;
        R.exp = NULL; /* chosen at its first byte: the size update may come first */
        break;
    }
    case 3: /* RST_STREAM */
        FZ_CHECK(len == 4, "RST_STREAM of %u bytes", len);
        FZ_CHECK((R.fid & 1) && tag_of_id(R.fid) < R.started, "RST_STREAM on stream %u", R.fid);
        FZ_CHECK(!(R.out_flags[tag_of_id(R.fid)] & OUT_RST), "second RST_STREAM on stream %u", R.fid);
        R.out_flags[tag_of_id(R.fid)] |= OUT_RST;
        break;
    case 4: /* SETTINGS */
        FZ_CHECK(R.fid == 0, "SETTINGS on stream %u", R.fid);
        FZ_CHECK(!(R.fflags & 1) ? len % 6 == 0 : len == 0, "SETTINGS of %u bytes, flags %x", len, R.fflags);
        break;
    case 6: /* PING: we only ever answer */
        FZ_CHECK(R.fid == 0 && len == 8 && (R.fflags & 1), "PING len %u flags %x stream %u", len, R.fflags, R.fid);
        break;
    case 7: /* GOAWAY */
        FZ_CHECK(R.fid == 0 && len == 8, "GOAWAY len %u stream %u", len, R.fid);
        break;
    case 8: /* WINDOW_UPDATE */
        FZ_CHECK(len == 4, "WINDOW_UPDATE of %u bytes", len);
        break;
    case 9: /* CONTINUATION */
        FZ_CHECK(R.cont_id && R.fid == R.cont_id, "CONTINUATION on stream %u outside a header block", R.fid);
        break;
    default:
        FZ_CHECK(0, "the client sent frame type %u", R.ftype);
    }
}

static void out_frame_end(void)
{
    if (R.ftype == 1 || R.ftype == 9) {
        if (R.fflags & 0x04) {
            FZ_CHECK(R.exp && R.blk_off == R.exp_len, "header block of %zu bytes, the request's is %zu", R.blk_off,
                     R.exp_len);
            R.blocks_seen++;
            R.out_flags[tag_of_id(R.cont_id)] |= OUT_HEADERS;
            R.cont_id = 0;
        }
    } else if (R.ftype == 8) {
        FZ_CHECK((rd32(R.unit) & 0x7fffffffu) != 0, "WINDOW_UPDATE of 0 on stream %u", R.fid);
    }
}

static void out_bytes(const uint8_t *p, size_t n)
{
    while (n > 0) {
        if (R.preface_seen < sizeof preface) {
            FZ_CHECK(*p == preface[R.preface_seen], "preface byte %zu", R.preface_seen);
            R.preface_seen++;
            p++;
            n--;
            continue;
        }
        if (R.hlen < 9) {
            R.hbuf[R.hlen++] = *p++;
            n--;
            if (R.hlen == 9) {
                out_frame_begin();
                if (R.left == 0) {
                    out_frame_end();
                    R.hlen = 0;
                }
            }
            continue;
        }
        size_t k = n < R.left ? n : R.left;
        if ((R.ftype == 1 || R.ftype == 9) && k > 0) {
            if (!R.exp) {
                /* Request blocks begin with an indexed :method (0x82, 0x83):
                 * a 0x20 first can only be the size update, allowed once. */
                if (*p == 0x20) {
                    FZ_CHECK(!R.table_reset, "a second table size update");
                    R.table_reset = true;
                    p++;
                    n--;
                    R.left--;
                    k--;
                }
                bool indexed = R.cfg.request_first && !R.table_reset;
                R.exp = !indexed ? R.cfg.request_block : R.blocks_seen == 0 ? R.cfg.request_first : R.cfg.request_next;
                R.exp_len = !indexed ? R.cfg.request_block_len
                            : R.blocks_seen == 0 ? R.cfg.request_first_len : R.cfg.request_next_len;
            }
            FZ_CHECK(R.blk_off + k <= R.exp_len && memcmp(R.exp + R.blk_off, p, k) == 0,
                     "HEADERS payload is not the request block (at %zu)", R.blk_off);
            R.blk_off += k;
        } else if (R.unit_len < sizeof R.unit) {
            size_t u = k < sizeof R.unit - R.unit_len ? k : sizeof R.unit - R.unit_len;
            memcpy(R.unit + R.unit_len, p, u);
            R.unit_len += u;
        }
        p += k;
        n -= k;
        R.left -= k;
        if (R.left == 0) {
            out_frame_end();
            R.hlen = 0;
        }
    }
}

/* Takes the pending output, all of it or (partial) a part the PRNG picks. */
static void drain(struct fz_split *sp, bool partial)
{
    for (int rounds = 0; rounds < 64; rounds++) {
        size_t n;
        const uint8_t *p = h2_out(R.c, &n);
        if (n == 0)
            return;
        size_t take = partial ? fz_rand(sp) % (n + 1) : n;
        out_bytes(p, take);
        h2_out_ack(R.c, take);
        check_counts();
        if (partial)
            return;
    }
}

static void new_connection(void)
{
    size_t size = h2_conn_size(&R.cfg);
    FZ_CHECK(size <= sizeof mem, "h2_conn_size %zu", size);
    R.c = h2_conn_init(mem, &R.cfg);
    R.tag_base = R.started;
    R.next_hdr = R.started;
    R.preface_seen = 0;
    R.frame_seen = false;
    R.hlen = 0;
    R.left = 0;
    R.cont_id = 0;
    R.blocks_seen = 0;
    R.table_reset = false;
    R.exp = NULL;
}

static void all_reported(void)
{
    FZ_CHECK(R.outstanding == 0, "%u tags never reported", R.outstanding);
    FZ_CHECK(h2_open_streams(R.c) == 0, "%u streams still open", h2_open_streams(R.c));
    for (uint32_t t = 0; t < R.started; t++)
        FZ_CHECK(R.tag_state[t] == TAG_REPORTED, "tag %u never reported", t);
}

static void lose(void)
{
    R.in_lost = true;
    h2_conn_lost(R.c, on_event, &R);
    R.in_lost = false;
    all_reported();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    struct fz_reader rd = { data, size };
    uint8_t conf = fz_u8(&rd);
    uint8_t mode = fz_u8(&rd);
    uint16_t seed = fz_u16(&rd);
    uint8_t blen = fz_u8(&rd);
    struct fz_split sp;
    fz_split_init(&sp, mode, seed);

    /* Only the parts the last input used need clearing. */
    memset(R.tag_state, 0, R.started);
    memset(R.out_flags, 0, R.started);
    memset(R.data_sent, 0, R.started * sizeof R.data_sent[0]);
    R.started = R.outstanding = 0;
    R.cfg = configs[conf & 3];
    R.cfg.parallel = parallels[(conf >> 2) & 7];
    if (R.cfg.has_body) {
        R.cfg.body = body;
        R.cfg.body_len = body_lens[blen & 7];
    }
    uint8_t lo = (blen >> 3) & 3;
    R.cfg.local = lo ? &locals[lo - 1] : NULL;
    R.start_in_callback = conf & 0x20;
    bool partial = conf & 0x40;

    if (conf & 0x80) {
        /* A connection that comes and goes first, on the same memory. */
        new_connection();
        start_streams();
        drain(&sp, false);
        lose();
    }
    new_connection();
    start_streams();
    check_counts();
    drain(&sp, partial);

    size_t off = 0;
    while (off < rd.n) {
        size_t k = fz_split_next(&sp, rd.n - off);
        R.in_recv = true;
        int rc = h2_recv(R.c, fz_place(rd.p + off, k), k, ++R.now, on_event, &R);
        R.in_recv = false;
        off += k;
        check_counts();
        if (rc != 0) {
            FZ_CHECK(rc >= H2_ERR_CALM && rc <= H2_ERR_PROTOCOL, "h2_recv returned %d", rc);
            all_reported();
            drain(&sp, false);
            break;
        }
        drain(&sp, partial);
        start_streams();
        check_counts();
    }
    lose();
    return 0;
}
