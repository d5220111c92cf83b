/* test/fuzz/fuzz_h1.c — the HTTP/1.1 response scanner (h1.h).
 *
 * Input: [head bits] [split mode] [split seed, 2 bytes], then the bytes of a
 * connection's responses. Response i (from 0) answers a HEAD request when
 * bit i % 8 of the first byte is set.
 *
 * The stream is scanned twice: fed in the pieces the split says, and in one
 * piece (byte by byte when the split already is one piece). h1.h promises a
 * scanner resumable at any byte, so both runs must report the same
 * responses and end the same way. Each run checks what h1.h promises of
 * every call:
 *   - *used <= n; H1_NEED_MORE consumed everything; H1_DONE consumed
 *     something (a response is at least a status line);
 *   - a reported status is final, never 1xx ("1xx interim responses are
 *     skipped, never reported"), and three digits;
 *   - after H1_DONE the scanner has started nothing (h1_scan_started), and
 *     once a byte of a response was consumed it has;
 *   - h1_scan_eof: H1_NEED_MORE exactly when no byte of a response had
 *     arrived; H1_DONE (a body delimited by close) reports close. */
#include "h1.h"
#include "fuzz.h"

#define LOG_MAX 4096

/* What one run saw, in order: one entry per outcome. */
struct run_log {
    uint32_t n;
    uint32_t ev[LOG_MAX];
    uint64_t hash; /* of every entry, past LOG_MAX too */
};

enum { EV_DONE = 1, EV_ERROR = 2, EV_EOF_DONE = 3, EV_EOF_CLEAN = 4, EV_EOF_ERROR = 5 };

static struct run_log log_a, log_b;

static void log_add(struct run_log *l, uint32_t kind, const struct h1_response *r)
{
    uint32_t e = kind << 24;
    if (r)
        e |= (uint32_t)r->close << 16 | r->status;
    if (l->n < LOG_MAX)
        l->ev[l->n] = e;
    l->n++;
    l->hash = (l->hash ^ e) * 0x100000001b3ull;
}

static void check_response(const struct h1_response *r)
{
    FZ_CHECK(r->status >= 200 && r->status <= 999, "status %u", r->status);
}

static void scan_stream(const uint8_t *data, size_t n, uint8_t head_bits, struct fz_split *sp, struct run_log *l)
{
    struct h1_scanner s;
    unsigned responses = 0;
    bool head = head_bits & 1;
    h1_scanner_reset(&s, head);
    memset(l, 0, sizeof *l);
    l->hash = 0xcbf29ce484222325ull;

    size_t off = 0;
    while (off < n) {
        size_t k = fz_split_next(sp, n - off);
        const uint8_t *p = fz_place(data + off, k);
        off += k;
        size_t left = k;
        for (;;) {
            size_t used = (size_t)-1;
            struct h1_response r = { 0, false };
            enum h1_event e = h1_scan(&s, p, left, &used, &r);
            FZ_CHECK(used <= left, "used %zu of %zu", used, left);
            if (e == H1_NEED_MORE) {
                FZ_CHECK(used == left, "H1_NEED_MORE left %zu of %zu bytes unconsumed", left - used, left);
                FZ_CHECK(left == 0 || h1_scan_started(&s), "%zu bytes consumed but nothing started", left);
                break;
            }
            if (e == H1_ERROR) {
                log_add(l, EV_ERROR, NULL);
                return; /* the caller closes the connection */
            }
            FZ_CHECK(e == H1_DONE, "h1_scan returned %d", (int)e);
            FZ_CHECK(used > 0, "H1_DONE without consuming a byte");
            check_response(&r);
            FZ_CHECK(!h1_scan_started(&s), "the next response has started right after H1_DONE");
            log_add(l, EV_DONE, &r);
            responses++;
            bool next_head = (head_bits >> (responses % 8)) & 1;
            if (next_head != head) {
                head = next_head;
                h1_scanner_reset(&s, head);
            }
            p += used;
            left -= used;
        }
    }

    bool started = h1_scan_started(&s);
    struct h1_response r = { 0, false };
    enum h1_event e = h1_scan_eof(&s, &r);
    if (e == H1_DONE) {
        FZ_CHECK(started, "h1_scan_eof reported a response that had not started");
        check_response(&r);
        FZ_CHECK(r.close, "a body delimited by close, not reported as close");
        log_add(l, EV_EOF_DONE, &r);
    } else if (e == H1_NEED_MORE) {
        FZ_CHECK(!started, "h1_scan_eof: clean close in the middle of a response");
        log_add(l, EV_EOF_CLEAN, NULL);
    } else {
        FZ_CHECK(e == H1_ERROR, "h1_scan_eof returned %d", (int)e);
        FZ_CHECK(started, "h1_scan_eof: error although no byte of a response arrived");
        log_add(l, EV_EOF_ERROR, NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    struct fz_reader rd = { data, size };
    uint8_t head_bits = fz_u8(&rd);
    uint8_t mode = fz_u8(&rd);
    uint16_t seed = fz_u16(&rd);

    struct fz_split sa, sb;
    fz_split_init(&sa, mode, seed);
    fz_split_init(&sb, sa.mode == FZ_SPLIT_WHOLE ? FZ_SPLIT_BYTES : FZ_SPLIT_WHOLE, seed);
    scan_stream(rd.p, rd.n, head_bits, &sa, &log_a);
    scan_stream(rd.p, rd.n, head_bits, &sb, &log_b);

    FZ_CHECK(log_a.n == log_b.n, "split mode %u saw %u outcomes, mode %u saw %u", sa.mode, log_a.n, sb.mode,
             log_b.n);
    for (uint32_t i = 0; i < log_a.n && i < LOG_MAX; i++)
        FZ_CHECK(log_a.ev[i] == log_b.ev[i], "outcome %u differs with the split: %08x vs %08x", i, log_a.ev[i],
                 log_b.ev[i]);
    FZ_CHECK(log_a.hash == log_b.hash, "outcomes differ with the split");
    return 0;
}
