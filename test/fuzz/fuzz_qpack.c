/* test/fuzz/fuzz_qpack.c — QPACK (qpack.h): the complete decoder against the
 * hot-path :status reader, and the encoder-stream check under any split.
 *
 * Input: [split point, 2 bytes big-endian], then the bytes, taken both as
 * one encoded field section (a HEADERS frame payload) and as the peer's
 * encoder stream (after its stream type).
 *
 * What qpack.h promises, and this checks:
 *   - qpack_decode returns 0 or a QPACK_ERR_* (never _STATUS, _NO_STATUS or
 *     _ENCODER_STREAM; never _TOO_LONG here: the scratch is twice the
 *     section, more than any Huffman string in it decodes to), and
 *     qpack_error_code maps its errors to QPACK_DECOMPRESSION_FAILED;
 *   - qpack_status returns 0 with *status in 100..999, or an error with
 *     *status 0;
 *   - where qpack_decode accepts the section, qpack_status agrees with the
 *     fields it decoded: QPACK_ERR_STATUS when a :status is repeated or not
 *     three digits 100..999, when another pseudo-header appears, when a
 *     pseudo-header follows a regular field, when a value holds NUL, LF
 *     or CR or starts or ends with SP or HTAB, or when a name holds an
 *     octet 0x00-0x20, 'A'-'Z', 0x7f-0xff or a ':' after its first octet
 *     (test/vectors/qpack_ref.h, the unit tests' reference); else QPACK_ERR_NO_STATUS
 *     without a :status; else 0 and that status (RFC 9114 §4.1.2, §4.3);
 *   - where qpack_decode finds a structural error (anything but a Huffman
 *     error), qpack_status finds the same one: it finds "every structural
 *     error qpack_decode would find", the first one;
 *   - qpack_encoder_stream_feed gives the same result (return, err,
 *     capacity0) for the bytes fed whole and fed in two pieces cut at the
 *     input's split point, and its error is sticky. */
#include "fuzz.h"
#include "qpack.h"

static uint8_t scratch[2 * 65536 + 64];

/* What qpack_status should say about the fields qpack_decode reported: the
 * unit tests' reference (RFC 9114's rules for names, values and :status). */
#include "../vectors/qpack_ref.h"

static void check_sections(const uint8_t *p, size_t n)
{
    struct ref f = { false, false, 0 };
    int rd = qpack_decode(fz_place(p, n), n, scratch, sizeof scratch, ref_cb, &f);
    FZ_CHECK(rd <= 0 && rd >= QPACK_ERR_TOO_LONG, "qpack_decode returned %d", rd);
    FZ_CHECK(rd != QPACK_ERR_TOO_LONG, "scratch of %zu too small for a %zu-byte section", sizeof scratch, n);
    if (rd < 0)
        FZ_CHECK(qpack_error_code(rd) == QPACK_DECOMPRESSION_FAILED, "error %d maps to 0x%x", rd,
                 qpack_error_code(rd));

    uint16_t status = 0xffff;
    int rs = qpack_status(fz_place(p, n), n, &status);
    FZ_CHECK(rs <= 0 && rs >= QPACK_ERR_NO_STATUS && rs != QPACK_ERR_TOO_LONG, "qpack_status returned %d", rs);
    if (rs == 0)
        FZ_CHECK(status >= 100 && status <= 999, "qpack_status 0 with status %u", status);
    else
        FZ_CHECK(status == 0, "qpack_status %d with status %u", rs, status);

    if (rd == 0) {
        uint16_t want_status;
        int want = ref_result(&f, &want_status);
        FZ_CHECK(rs == want, "decoder accepts (bad %d, status %d); qpack_status %d, want %d", f.bad, f.st, rs, want);
        if (want == 0)
            FZ_CHECK(status == want_status, "status %u, decoder saw %u", status, want_status);
    } else if (rd != QPACK_ERR_HUFFMAN) {
        FZ_CHECK(rs == rd, "decoder's structural error %d, qpack_status %d", rd, rs);
    }
}

static void check_encoder_stream(const uint8_t *p, size_t n, size_t cut)
{
    struct qpack_encoder_stream whole, split;
    qpack_encoder_stream_init(&whole);
    qpack_encoder_stream_init(&split);
    int rw = qpack_encoder_stream_feed(&whole, fz_place(p, n), n);
    FZ_CHECK(rw == 0 || rw == QPACK_ERR_ENCODER_STREAM, "whole feed returned %d", rw);
    FZ_CHECK(whole.err == rw, "whole feed returned %d, err %d", rw, whole.err);

    int r1 = qpack_encoder_stream_feed(&split, fz_place(p, cut), cut);
    FZ_CHECK(r1 == 0 || r1 == QPACK_ERR_ENCODER_STREAM, "first piece returned %d", r1);
    int r2 = qpack_encoder_stream_feed(&split, fz_place(p + cut, n - cut), n - cut);
    if (r1 != 0)
        FZ_CHECK(r2 == r1, "error %d not sticky: %d", r1, r2);
    FZ_CHECK(r2 == rw, "cut at %zu of %zu: %d, whole: %d", cut, n, r2, rw);
    FZ_CHECK(split.err == whole.err, "err %d vs %d", split.err, whole.err);
    if (rw == 0)
        FZ_CHECK(split.capacity0 == whole.capacity0, "capacity0 %llu vs %llu",
                 (unsigned long long)split.capacity0, (unsigned long long)whole.capacity0);
    int r3 = qpack_encoder_stream_feed(&whole, fz_place(p, n), n);
    if (rw != 0)
        FZ_CHECK(r3 == rw, "error %d not sticky: %d", rw, r3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    struct fz_reader rd = { data, size };
    uint16_t cut = fz_u16(&rd);
    check_sections(rd.p, rd.n);
    check_encoder_stream(rd.p, rd.n, rd.n ? cut % (rd.n + 1) : 0);
    return 0;
}
