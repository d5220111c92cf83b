/* test/fuzz/fuzz_h3.c — HTTP/3 framing (h3.h) and the resumable QPACK
 * :status scan (qpack.h), under any split.
 *
 * Input: [split mode] [split seed, 2 bytes] [fin bits], then the bytes,
 * taken four ways: as a response on a request stream (h3_resp_feed), as a
 * server unidirectional stream whose type is its first bytes
 * (h3_uni_feed), as a control stream (the type 0x00 put in front), and as
 * one encoded field section (qpack_status_scan_*). Fin bits: bit 0 ends the
 * streams with fin, bit 1 gives fin as a separate empty feed. Each way is
 * run whole and in the pieces the split mode and seed draw (fuzz.h).
 *
 * What h3.h and qpack.h promise, and this checks:
 *   - every reader gives the same result fed whole and fed in pieces: the
 *     return value, and for a response its status and body length, for a
 *     unidirectional stream what it told the peer (settings seen,
 *     MAX_FIELD_SECTION_SIZE, GOAWAY id, encoder-stream instructions);
 *   - results stay within their sets: h3_resp_feed MORE, DONE or minus an
 *     HTTP/3 or QPACK error code, DONE only at fin and with a final status
 *     (200..999), MORE never at fin, body_len never above the input; h3_uni_feed 0,
 *     H3_UNI_IGNORE or minus such a code, never 0 at fin on a critical
 *     stream whose type was read; a GOAWAY id is client-bidirectional;
 *   - results are sticky: a later feed repeats them;
 *   - qpack_status_scan, fed in pieces, returns exactly what qpack_status
 *     returns on the whole section (value and status), and its feed never
 *     returns QPACK_ERR_STATUS or _NO_STATUS. */
#include "fuzz.h"
#include "h3.h"
#include "qpack.h"

struct cfg {
    uint8_t mode;
    uint16_t seed;
    bool fin, fin_apart;
};

/* An error code h3.h may return (negated). */
static bool known_code(int rc)
{
    return (rc <= -H3_NO_ERROR && rc >= -H3_VERSION_FALLBACK) || rc == -QPACK_DECOMPRESSION_FAILED ||
           rc == -QPACK_ENCODER_STREAM_ERROR;
}

/* ------------------------------------------------------------ response */

struct resp_out {
    int rc;
    uint16_t status;
    uint64_t body_len;
};

static struct resp_out run_resp(const uint8_t *p, size_t n, const struct cfg *c, bool split)
{
    struct h3_resp r;
    struct fz_split sp;
    h3_resp_init(&r);
    fz_split_init(&sp, split ? c->mode : FZ_SPLIT_WHOLE, c->seed);
    size_t at = 0;
    int rc = H3_RESP_MORE;
    do {
        size_t k = fz_split_next(&sp, n - at);
        bool last = at + k == n;
        rc = h3_resp_feed(&r, fz_place(p + at, k), k, last && c->fin && !c->fin_apart);
        FZ_CHECK(rc == H3_RESP_MORE || rc == H3_RESP_DONE || known_code(rc), "h3_resp_feed returned %d", rc);
        at += k;
    } while (rc == H3_RESP_MORE && at < n);
    if (rc == H3_RESP_MORE && c->fin && c->fin_apart)
        rc = h3_resp_feed(&r, NULL, 0, true);
    if (c->fin)
        FZ_CHECK(rc != H3_RESP_MORE, "MORE after fin");
    if (rc == H3_RESP_DONE)
        FZ_CHECK(c->fin && at == n && r.status >= 200 && r.status <= 999, "DONE with status %u", r.status);
    FZ_CHECK(r.status == 0 || (r.status >= 200 && r.status <= 999), "status %u", r.status);
    FZ_CHECK(r.body_len <= n, "body_len %llu of %zu bytes", (unsigned long long)r.body_len, n);
    if (rc != H3_RESP_MORE)
        FZ_CHECK(h3_resp_feed(&r, fz_place(p, n), n, true) == rc, "result %d not sticky", rc);
    return (struct resp_out){ rc, r.status, r.body_len };
}

static void check_resp(const uint8_t *p, size_t n, const struct cfg *c)
{
    struct resp_out w = run_resp(p, n, c, false), s = run_resp(p, n, c, true);
    FZ_CHECK(w.rc == s.rc && w.status == s.status && w.body_len == s.body_len,
             "whole: %d %u %llu; split (mode %u): %d %u %llu", w.rc, w.status, (unsigned long long)w.body_len,
             c->mode & 3, s.rc, s.status, (unsigned long long)s.body_len);
}

/* ------------------------------------------------------------ unidirectional */

struct uni_out {
    int rc;
    bool settings_seen;
    uint64_t goaway_id, mfss, capacity0;
};

/* head (hn bytes, may be 0) and then p: one server stream on a fresh peer. */
static struct uni_out run_uni(const uint8_t *head, size_t hn, const uint8_t *p, size_t n, const struct cfg *c,
                              bool split)
{
    struct h3_peer peer;
    struct h3_uni u;
    struct fz_split sp;
    h3_peer_init(&peer);
    h3_uni_init(&u);
    fz_split_init(&sp, split ? c->mode : FZ_SPLIT_WHOLE, c->seed);
    int rc = hn ? h3_uni_feed(&peer, &u, fz_place(head, hn), hn, false) : 0;
    size_t at = 0;
    while (rc == 0 && at < n) {
        size_t k = fz_split_next(&sp, n - at);
        bool last = at + k == n;
        rc = h3_uni_feed(&peer, &u, fz_place(p + at, k), k, last && c->fin && !c->fin_apart);
        at += k;
    }
    if (rc == 0 && c->fin && (c->fin_apart || n == 0))
        rc = h3_uni_feed(&peer, &u, NULL, 0, true);
    FZ_CHECK(rc == 0 || rc == H3_UNI_IGNORE || known_code(rc), "h3_uni_feed returned %d", rc);
    if (rc == 0 && c->fin)
        FZ_CHECK(!peer.control_seen && !peer.encoder_seen && !peer.decoder_seen,
                 "a critical stream ended without H3_CLOSED_CRITICAL_STREAM");
    FZ_CHECK(peer.goaway_id == UINT64_MAX || peer.goaway_id % 4 == 0, "GOAWAY id %llu",
             (unsigned long long)peer.goaway_id);
    if (rc != 0)
        FZ_CHECK(h3_uni_feed(&peer, &u, fz_place(p, n), n, false) == rc, "result %d not sticky", rc);
    return (struct uni_out){ rc, peer.settings_seen, peer.goaway_id, peer.max_field_section_size,
                             peer.encoder.capacity0 };
}

static void check_uni(const uint8_t *head, size_t hn, const uint8_t *p, size_t n, const struct cfg *c)
{
    struct uni_out w = run_uni(head, hn, p, n, c, false), s = run_uni(head, hn, p, n, c, true);
    FZ_CHECK(w.rc == s.rc && w.settings_seen == s.settings_seen && w.goaway_id == s.goaway_id &&
                 w.mfss == s.mfss && w.capacity0 == s.capacity0,
             "whole: %d goaway %llu; split (mode %u): %d goaway %llu", w.rc, (unsigned long long)w.goaway_id,
             c->mode & 3, s.rc, (unsigned long long)s.goaway_id);
}

/* ------------------------------------------------------------ the scan */

static void check_scan(const uint8_t *p, size_t n, const struct cfg *c)
{
    uint16_t want_st = 0xffff, st = 0xffff;
    int want = qpack_status(fz_place(p, n), n, &want_st);
    struct qpack_status_scan s;
    struct fz_split sp;
    qpack_status_scan_init(&s);
    fz_split_init(&sp, c->mode, c->seed);
    size_t at = 0;
    int first = 0;
    do {
        size_t k = fz_split_next(&sp, n - at);
        int rc = qpack_status_scan_feed(&s, fz_place(p + at, k), k);
        FZ_CHECK(rc <= 0 && rc != QPACK_ERR_STATUS && rc != QPACK_ERR_NO_STATUS && rc >= QPACK_ERR_NO_STATUS,
                 "scan feed returned %d", rc);
        FZ_CHECK(first == 0 || rc == first, "scan error %d not sticky: %d", first, rc);
        if (first == 0)
            first = rc;
        at += k;
    } while (at < n);
    int got = qpack_status_scan_end(&s, &st);
    FZ_CHECK(first == 0 || got == first, "feed said %d, end %d", first, got);
    FZ_CHECK(got == want && st == want_st, "scan in pieces (mode %u): %d/%u, qpack_status: %d/%u", c->mode & 3, got,
             st, want, want_st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    struct fz_reader rd = { data, size };
    struct cfg c;
    c.mode = fz_u8(&rd);
    c.seed = fz_u16(&rd);
    uint8_t bits = fz_u8(&rd);
    c.fin = bits & 1;
    c.fin_apart = bits & 2;
    static const uint8_t control_type[1] = { H3_STREAM_CONTROL };
    check_resp(rd.p, rd.n, &c);
    check_uni(NULL, 0, rd.p, rd.n, &c);
    check_uni(control_type, 1, rd.p, rd.n, &c);
    check_scan(rd.p, rd.n, &c);
    return 0;
}
