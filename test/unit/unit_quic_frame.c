/* test/unit/unit_quic_frame.c — QUIC frames (quic/frame.c) and the received-packet
 * range set (quic/ackset.c): every encoder through the decoder, the frames
 * a client only receives from hand-written bytes, the §19.3.1 ACK range
 * arithmetic, every truncation of every frame, the field limits of §19,
 * unknown and over-long types, the Table 3 rules, the ACK encoder squeezed
 * into every room, the ack set against a reference model, and the RFC 9001
 * Appendix A.2 / A.3 Initial payloads.
 *
 * Inputs to the decoder and outputs of the encoders live in exact-size
 * heap blocks, so ASan catches a read or write one byte past the end. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quic/ackset.h"
#include "quic/frame.h"
#include "quic/packet.h"
#include "test/vectors/quic_vectors.h" /* RFC 9001 A.2 / A.3 payloads: Q_A2_PLAIN, Q_A3_PLAIN */
#include "t.h"

/* quic_frame_allowed takes 1u << the packet type of quic/packet.h. */
_Static_assert(QUIC_FRAME_IN_INITIAL == 1u << QUIC_PT_INITIAL, "Initial bit");
_Static_assert(QUIC_FRAME_IN_0RTT == 1u << QUIC_PT_0RTT, "0-RTT bit");
_Static_assert(QUIC_FRAME_IN_HANDSHAKE == 1u << QUIC_PT_HANDSHAKE, "Handshake bit");
_Static_assert(QUIC_FRAME_IN_1RTT == 1u << QUIC_PT_1RTT, "1-RTT bit");

#define FEE (-QUIC_FRAME_ENCODING_ERROR)

/* ------------------------------------------------------------ helpers */

/* Decodes one frame from an exact-size copy of b[0..n); *used: bytes consumed.
 * The frame's pointers refer to the copy, which is kept in *keep (free it). */
static int dec1(const uint8_t *b, size_t n, struct quic_frame *f, size_t *used, uint8_t **keep)
{
    uint8_t *c = t_memdup(b, n);
    const uint8_t *p = c;
    int r = quic_frame_next(&p, c + n, f);
    *used = (size_t)(p - c);
    *keep = c;
    return r;
}

/* Decodes hex as exactly one frame that must use all of it. */
static int dec_hex(const char *hex, struct quic_frame *f, uint8_t **keep)
{
    uint8_t b[512];
    size_t n = unhex(hex, b, sizeof b), used;
    int r = dec1(b, n, f, &used, keep);
    if (r == 0 && used != n)
        return 1000; /* decoded, but not all of it */
    return r;
}

/* The ranges of an ACK frame, largest first; returns the count (-1: iterator stopped early). */
static int ack_ranges(const struct quic_frame *f, struct quic_ack_range *out, int cap)
{
    struct quic_ack_iter it;
    uint64_t lo, hi;
    int n = 0;
    quic_ack_iter_init(&it, &f->ack);
    while (quic_ack_iter_next(&it, &lo, &hi)) {
        if (n < cap)
            out[n] = (struct quic_ack_range){ lo, hi };
        n++;
    }
    return (uint64_t)n == f->ack.range_count + 1 ? n : -1;
}

static const uint64_t edge_values[] = {
    0, 1, 63, 64, 16383, 16384, 1073741823, 1073741824, (1ull << 62) - 1,
};
#define N_EDGES (sizeof edge_values / sizeof edge_values[0])

/* ------------------------------------------------------------ round trips */

static void test_roundtrip_simple(void)
{
    uint8_t buf[64], *k;
    struct quic_frame f;
    size_t n, used;
    int r;
    bool ok;

    n = quic_frame_enc_padding(buf, sizeof buf, 7);
    r = dec1(buf, n, &f, &used, &k);
    T_CHECK("padding: 7 bytes coalesced into one frame", n == 7 && r == 0 && used == 7 && f.kind == QUIC_FT_PADDING &&
            f.padding.len == 7, "n=%zu r=%d used=%zu len=%zu", n, r, used, f.padding.len);
    free(k);
    T_CHECK("padding: room and zero count", quic_frame_enc_padding(buf, 6, 7) == 0 &&
            quic_frame_enc_padding(buf, 6, 0) == 0, "wrong");

    n = quic_frame_enc_ping(buf, sizeof buf);
    r = dec1(buf, n, &f, &used, &k);
    T_CHECK("ping", n == 1 && buf[0] == 0x01 && r == 0 && used == 1 && f.kind == QUIC_FT_PING, "n=%zu r=%d", n, r);
    free(k);

    /* Every one-varint and two-varint frame at the varint size edges. */
    ok = true;
    for (size_t i = 0; i < N_EDGES; i++) {
        uint64_t a = edge_values[i], b = edge_values[N_EDGES - 1 - i];

        n = quic_frame_enc_max_data(buf, sizeof buf, a);
        r = dec1(buf, n, &f, &used, &k);
        ok &= T_QUIET("max_data", n && r == 0 && used == n && f.type == 0x10 && f.kind == QUIC_FT_MAX_DATA &&
                      f.max_data.max == a, "i=%zu", i);
        free(k);

        n = quic_frame_enc_max_stream_data(buf, sizeof buf, a, b);
        r = dec1(buf, n, &f, &used, &k);
        ok &= T_QUIET("max_stream_data", n && r == 0 && used == n && f.kind == QUIC_FT_MAX_STREAM_DATA &&
                      f.max_stream_data.stream_id == a && f.max_stream_data.max == b, "i=%zu", i);
        free(k);

        n = quic_frame_enc_reset_stream(buf, sizeof buf, a, b, a);
        r = dec1(buf, n, &f, &used, &k);
        ok &= T_QUIET("reset_stream", n && r == 0 && used == n && f.kind == QUIC_FT_RESET_STREAM &&
                      f.reset_stream.stream_id == a && f.reset_stream.error_code == b &&
                      f.reset_stream.final_size == a, "i=%zu", i);
        free(k);

        n = quic_frame_enc_stop_sending(buf, sizeof buf, b, a);
        r = dec1(buf, n, &f, &used, &k);
        ok &= T_QUIET("stop_sending", n && r == 0 && used == n && f.kind == QUIC_FT_STOP_SENDING &&
                      f.stop_sending.stream_id == b && f.stop_sending.error_code == a, "i=%zu", i);
        free(k);

        n = quic_frame_enc_retire_cid(buf, sizeof buf, a);
        r = dec1(buf, n, &f, &used, &k);
        ok &= T_QUIET("retire_cid", n && r == 0 && used == n && f.kind == QUIC_FT_RETIRE_CONNECTION_ID &&
                      f.retire_cid.seq == a, "i=%zu", i);
        free(k);

        if (a <= QUIC_MAX_STREAMS_LIMIT) {
            for (int uni = 0; uni < 2; uni++) {
                n = quic_frame_enc_max_streams(buf, sizeof buf, uni, a);
                r = dec1(buf, n, &f, &used, &k);
                ok &= T_QUIET("max_streams", n && r == 0 && used == n && f.kind == QUIC_FT_MAX_STREAMS &&
                              f.type == (uni ? 0x13u : 0x12u) && f.max_streams.uni == uni && f.max_streams.max == a,
                              "i=%zu uni=%d", i, uni);
                free(k);
            }
        }
    }
    T_CHECK("max_data, max_stream_data, reset_stream, stop_sending, retire_cid, max_streams at varint edges", ok,
            "wrong");

    T_CHECK("varints past 2^62-1 are not encoded",
            quic_frame_enc_max_data(buf, sizeof buf, 1ull << 62) == 0 &&
            quic_frame_enc_reset_stream(buf, sizeof buf, 0, 0, ~0ull) == 0, "wrong");

    n = quic_frame_enc_max_streams(buf, sizeof buf, false, QUIC_MAX_STREAMS_LIMIT);
    T_CHECK("max_streams: 2^60 is the largest encoded (§19.11)",
            n == 9 && quic_frame_enc_max_streams(buf, sizeof buf, true, QUIC_MAX_STREAMS_LIMIT + 1) == 0, "n=%zu", n);

    {
        const uint8_t pr[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
        n = quic_frame_enc_path_response(buf, sizeof buf, pr);
        r = dec1(buf, n, &f, &used, &k);
        T_CHECK("path_response", n == 9 && r == 0 && used == 9 && f.kind == QUIC_FT_PATH_RESPONSE &&
                memcmp(f.path.data, pr, 8) == 0, "n=%zu r=%d", n, r);
        free(k);
    }

    /* CONNECTION_CLOSE, transport and application. */
    n = quic_frame_enc_close(buf, sizeof buf, false, QUIC_FRAME_ENCODING_ERROR, 0x08, "bad frame", 9);
    r = dec1(buf, n, &f, &used, &k);
    T_CHECK("connection_close 0x1c: code, frame type, reason",
            n == 13 && buf[0] == 0x1c && r == 0 && used == n && f.kind == QUIC_FT_CONNECTION_CLOSE && !f.close.app &&
            f.close.error_code == 7 && f.close.frame_type == 8 && f.close.reason_len == 9 &&
            memcmp(f.close.reason, "bad frame", 9) == 0, "n=%zu r=%d", n, r);
    free(k);
    n = quic_frame_enc_close(buf, sizeof buf, true, 0x0101, 0x99, "", 0);
    r = dec1(buf, n, &f, &used, &k);
    T_CHECK("connection_close 0x1d: application code, no frame type",
            n == 4 && buf[0] == 0x1d && r == 0 && used == n && f.kind == QUIC_FT_CONNECTION_CLOSE && f.close.app &&
            f.close.error_code == 0x101 && f.close.frame_type == 0 && f.close.reason_len == 0, "n=%zu r=%d", n, r);
    free(k);
    /* The reason is cut to the room; the frame still goes out. */
    {
        char reason[100];
        memset(reason, 'x', sizeof reason);
        ok = true;
        for (size_t room = 0; room < 110; room++) {
            uint8_t *o = t_malloc(room);
            n = quic_frame_enc_close(o, room, false, 1, 0, reason, sizeof reason);
            if (room < 4) {
                ok &= T_QUIET("close: too small", n == 0, "room=%zu n=%zu", room, n);
            } else {
                bool xs = true;
                r = dec1(o, n, &f, &used, &k);
                for (size_t j = 0; r == 0 && j < f.close.reason_len; j++)
                    xs &= f.close.reason[j] == 'x';
                /* 3 bytes of type and codes, a 1- or 2-byte length: 105 for all 100 */
                ok &= T_QUIET("close: cut reason", r == 0 && used == n && n <= room && xs &&
                              (room >= 105 ? f.close.reason_len == 100 : n + 1 >= room),
                              "room=%zu n=%zu rl=%zu", room, n, f.close.reason_len);
                free(k);
            }
            free(o);
        }
        T_CHECK("connection_close: reason cut to fit every room, 0 below the bare frame", ok, "wrong");
    }
}

/* CRYPTO and STREAM: every combination of flags, and every room. */
static void test_roundtrip_data(void)
{
    uint8_t data[300], *k;
    struct quic_frame f;
    size_t n, used, nd;
    int r;
    bool ok;

    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 3);

    /* CRYPTO at several offsets and lengths. */
    ok = true;
    for (size_t i = 0; i < N_EDGES; i++) {
        uint64_t off = edge_values[i] > QUIC_MAX_OFFSET - sizeof data ? QUIC_MAX_OFFSET - sizeof data : edge_values[i];
        size_t lens[] = { 0, 1, 63, 64, 300 };
        for (size_t j = 0; j < 5; j++) {
            uint8_t out[400];
            n = quic_frame_enc_crypto(out, sizeof out, off, data, lens[j], &nd);
            r = dec1(out, n, &f, &used, &k);
            ok &= T_QUIET("crypto", n && nd == lens[j] && r == 0 && used == n && f.kind == QUIC_FT_CRYPTO &&
                          f.crypto.offset == off && f.crypto.len == lens[j] && memcmp(f.crypto.data, data, nd) == 0,
                          "off=%llu len=%zu n=%zu r=%d", (unsigned long long)off, lens[j], n, r);
            free(k);
        }
    }
    T_CHECK("crypto: offsets at varint edges, lengths 0..300", ok, "wrong");

    T_CHECK("crypto: offset + length past 2^62-1 is not encoded (§19.6)",
            quic_frame_enc_crypto(data, sizeof data, QUIC_MAX_OFFSET - 1, data, 2, &nd) == 0 &&
            quic_frame_enc_crypto(data, sizeof data, QUIC_MAX_OFFSET - 1, data, 1, &nd) != 0, "wrong");

    /* CRYPTO into every room: as much as fits, at most one byte wasted. */
    ok = true;
    for (size_t room = 0; room <= 310; room++) {
        uint8_t *o = t_malloc(room);
        n = quic_frame_enc_crypto(o, room, 1000, data, sizeof data, &nd);
        if (room < 5) { /* type, 2-byte offset, length, one byte */
            ok &= T_QUIET("crypto room: too small", n == 0 && nd == 0, "room=%zu n=%zu", room, n);
        } else {
            r = dec1(o, n, &f, &used, &k);
            ok &= T_QUIET("crypto room", r == 0 && used == n && n <= room && f.crypto.len == nd &&
                          memcmp(f.crypto.data, data, nd) == 0 && (nd == sizeof data || n + 1 >= room),
                          "room=%zu n=%zu nd=%zu", room, n, nd);
            free(k);
        }
        free(o);
    }
    T_CHECK("crypto: every room from 0 to 310 gets the most data that fits", ok, "wrong");

    /* STREAM: the 8 type variants from the encoder's choices. */
    ok = true;
    for (int off = 0; off < 2; off++)
        for (int fill = 0; fill < 2; fill++)
            for (int fin = 0; fin < 2; fin++) {
                uint8_t out[400];
                uint64_t offset = off ? 12345 : 0;
                uint8_t want = (uint8_t)(0x08 | (off ? 4 : 0) | (fill ? 0 : 2) | (fin ? 1 : 0));
                n = quic_frame_enc_stream(out, sizeof out, 4, offset, data, 100, fin, fill, &nd);
                r = dec1(out, n, &f, &used, &k);
                ok &= T_QUIET("stream variant", n && nd == 100 && out[0] == want && r == 0 && used == n &&
                              f.type == want && f.kind == QUIC_FT_STREAM && f.stream.stream_id == 4 &&
                              f.stream.offset == offset && f.stream.len == 100 && f.stream.fin == fin &&
                              memcmp(f.stream.data, data, 100) == 0, "off=%d fill=%d fin=%d type=%02x r=%d",
                              off, fill, fin, out[0], r);
                free(k);
            }
    T_CHECK("stream: all 8 types (OFF, LEN, FIN) through encoder and decoder", ok, "wrong");

    /* STREAM with no data: FIN alone, with and without LEN. */
    {
        uint8_t out[16];
        n = quic_frame_enc_stream(out, sizeof out, 8, 77, NULL, 0, true, false, &nd);
        r = dec1(out, n, &f, &used, &k);
        T_CHECK("stream: empty with FIN and LEN", n == 5 && out[0] == 0x0f && r == 0 && f.stream.len == 0 &&
                f.stream.fin && f.stream.offset == 77, "n=%zu", n);
        free(k);
        n = quic_frame_enc_stream(out, 4, 8, 77, NULL, 0, true, true, &nd);
        r = dec1(out, n, &f, &used, &k);
        T_CHECK("stream: empty with FIN, filling the packet", n == 4 && out[0] == 0x0d && r == 0 &&
                f.stream.len == 0 && f.stream.fin, "n=%zu", n);
        free(k);
    }

    /* STREAM without LEN runs to the end of the packet: what follows is data. */
    {
        uint8_t pkt[] = { 0x08, 0x04, 'a', 'b', 0x01, 0x00 };
        r = dec1(pkt, sizeof pkt, &f, &used, &k);
        T_CHECK("stream: no LEN bit takes the rest of the packet", r == 0 && used == 6 && f.stream.len == 4 &&
                memcmp(f.stream.data, "ab\x01\x00", 4) == 0 && f.stream.offset == 0 && !f.stream.fin, "r=%d", r);
        free(k);
    }

    /* STREAM into every room, with and without LEN. */
    for (int fill = 0; fill < 2; fill++) {
        ok = true;
        for (size_t room = 0; room <= 310; room++) {
            uint8_t *o = t_malloc(room);
            /* type + 2-byte stream id + 2-byte offset = 5; LEN needs one more */
            size_t min = fill ? 6 : 7;
            n = quic_frame_enc_stream(o, room, 1000, 2000, data, sizeof data, true, fill, &nd);
            if (room < min) {
                ok &= T_QUIET("stream room: too small", n == 0 && nd == 0, "room=%zu n=%zu", room, n);
            } else {
                r = dec1(o, n, &f, &used, &k);
                ok &= T_QUIET("stream room", r == 0 && used == n && n <= room && f.stream.len == nd &&
                              f.stream.stream_id == 1000 && f.stream.offset == 2000 &&
                              f.stream.fin == (nd == sizeof data) && memcmp(f.stream.data, data, nd) == 0 &&
                              (nd == sizeof data || n + (fill ? 0 : 1) >= room),
                              "fill=%d room=%zu n=%zu nd=%zu", fill, room, n, nd);
                free(k);
            }
            free(o);
        }
        T_CHECK(fill ? "stream: every room, filling the packet (no LEN): exactly the room"
                     : "stream: every room with LEN: the most that fits, FIN only on the last byte", ok, "wrong");
    }

    T_CHECK("stream: offset + length past 2^62-1 is not encoded (§19.8)",
            quic_frame_enc_stream(data, sizeof data, 0, QUIC_MAX_OFFSET, data, 1, false, false, &nd) == 0 &&
            quic_frame_enc_stream(data, sizeof data, 0, QUIC_MAX_OFFSET, data, 0, true, false, &nd) != 0, "wrong");
}

/* Fixed-size encoders: any room below the frame's size gives 0 and writes
 * nothing past it (the output buffer is exactly room bytes). */
static void test_encoder_rooms(void)
{
    bool ok = true;
    for (int which = 0; which < 10; which++) {
        uint8_t big[64];
        size_t full = 0;
        const uint8_t pr[8] = { 0 };
        for (size_t room = 0; room <= 64; room++) {
            uint8_t *o = room == 64 ? big : t_malloc(room);
            size_t n = 0;
            switch (which) {
            case 0: n = quic_frame_enc_ping(o, room); break;
            case 1: n = quic_frame_enc_max_data(o, room, 1u << 20); break;
            case 2: n = quic_frame_enc_max_stream_data(o, room, 400, 1u << 31); break;
            case 3: n = quic_frame_enc_max_streams(o, room, true, 100); break;
            case 4: n = quic_frame_enc_reset_stream(o, room, 4, 0x10c, 123456); break;
            case 5: n = quic_frame_enc_stop_sending(o, room, 4, 0x10c); break;
            case 6: n = quic_frame_enc_retire_cid(o, room, 70); break;
            case 7: n = quic_frame_enc_path_response(o, room, pr); break;
            case 8: n = quic_frame_enc_padding(o, room, 3); break;
            case 9: n = quic_frame_enc_close(o, room, false, 0x0a, 0x1e, "", 0); break;
            }
            if (room == 64)
                full = n;
            if (room < 64)
                free(o);
        }
        for (size_t room = 0; room < full; room++) {
            uint8_t *o = t_malloc(room);
            size_t n = 1;
            switch (which) {
            case 0: n = quic_frame_enc_ping(o, room); break;
            case 1: n = quic_frame_enc_max_data(o, room, 1u << 20); break;
            case 2: n = quic_frame_enc_max_stream_data(o, room, 400, 1u << 31); break;
            case 3: n = quic_frame_enc_max_streams(o, room, true, 100); break;
            case 4: n = quic_frame_enc_reset_stream(o, room, 4, 0x10c, 123456); break;
            case 5: n = quic_frame_enc_stop_sending(o, room, 4, 0x10c); break;
            case 6: n = quic_frame_enc_retire_cid(o, room, 70); break;
            case 7: n = quic_frame_enc_path_response(o, room, pr); break;
            case 8: n = quic_frame_enc_padding(o, room, 3); break;
            case 9: n = quic_frame_enc_close(o, room, false, 0x0a, 0x1e, "", 0); break;
            }
            ok &= T_QUIET("encoder room", n == 0, "which=%d room=%zu full=%zu n=%zu", which, room, full, n);
            free(o);
        }
        ok &= T_QUIET("encoder full", full > 0, "which=%d", which);
    }
    T_CHECK("fixed-size encoders: 0 for every room below the frame, nothing written past it", ok, "wrong");
}

/* ------------------------------------------------------------ receive-only frames */

static void test_decode_handwritten(void)
{
    struct quic_frame f;
    uint8_t *k;
    int r;

    r = dec_hex("07 04 deadbeef", &f, &k);
    T_CHECK("new_token", r == 0 && f.kind == QUIC_FT_NEW_TOKEN && f.new_token.len == 4 &&
            memcmp(f.new_token.token, "\xde\xad\xbe\xef", 4) == 0, "r=%d", r);
    free(k);
    r = dec_hex("07 00", &f, &k);
    T_CHECK("new_token: empty token is FRAME_ENCODING_ERROR (§19.7)", r == FEE && f.type == 7, "r=%d", r);
    free(k);

    r = dec_hex("14 80 01 00 00", &f, &k);
    T_CHECK("data_blocked", r == 0 && f.kind == QUIC_FT_DATA_BLOCKED && f.data_blocked.limit == 65536, "r=%d", r);
    free(k);
    r = dec_hex("15 01 44 00", &f, &k);
    T_CHECK("stream_data_blocked", r == 0 && f.kind == QUIC_FT_STREAM_DATA_BLOCKED &&
            f.stream_data_blocked.stream_id == 1 && f.stream_data_blocked.limit == 0x400, "r=%d", r);
    free(k);
    r = dec_hex("16 0a", &f, &k);
    T_CHECK("streams_blocked bidi", r == 0 && f.kind == QUIC_FT_STREAMS_BLOCKED && !f.streams_blocked.uni &&
            f.streams_blocked.limit == 10, "r=%d", r);
    free(k);
    r = dec_hex("17 c0 00 00 00 00 00 00 03", &f, &k);
    T_CHECK("streams_blocked uni, 8-byte varint", r == 0 && f.streams_blocked.uni && f.streams_blocked.limit == 3,
            "r=%d", r);
    free(k);
    r = dec_hex("17 d0 00 00 00 00 00 00 00", &f, &k); /* 2^60 */
    T_CHECK("streams_blocked: 2^60 accepted", r == 0 && f.streams_blocked.limit == 1ull << 60, "r=%d", r);
    free(k);
    r = dec_hex("16 d0 00 00 00 00 00 00 01", &f, &k);
    T_CHECK("streams_blocked: above 2^60 is FRAME_ENCODING_ERROR (§19.14)", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("12 d0 00 00 00 00 00 00 00", &f, &k);
    T_CHECK("max_streams: 2^60 accepted", r == 0 && f.max_streams.max == 1ull << 60, "r=%d", r);
    free(k);
    r = dec_hex("13 d0 00 00 00 00 00 00 01", &f, &k);
    T_CHECK("max_streams: above 2^60 is FRAME_ENCODING_ERROR (§19.11)", r == FEE && f.type == 0x13, "r=%d", r);
    free(k);

    r = dec_hex("18 05 02 04 c0ffee01 00112233445566778899aabbccddeeff", &f, &k);
    T_CHECK("new_connection_id", r == 0 && f.kind == QUIC_FT_NEW_CONNECTION_ID && f.new_cid.seq == 5 &&
            f.new_cid.retire_prior_to == 2 && f.new_cid.cid_len == 4 &&
            memcmp(f.new_cid.cid, "\xc0\xff\xee\x01", 4) == 0 && f.new_cid.reset_token[0] == 0x00 &&
            f.new_cid.reset_token[15] == 0xff, "r=%d", r);
    free(k);
    r = dec_hex("18 05 05 14 0102030405060708090a0b0c0d0e0f1011121314 00112233445566778899aabbccddeeff", &f, &k);
    T_CHECK("new_connection_id: 20-byte CID, retire_prior_to == sequence", r == 0 && f.new_cid.cid_len == 20 &&
            f.new_cid.cid[19] == 0x14, "r=%d", r);
    free(k);
    r = dec_hex("18 05 00 00 00112233445566778899aabbccddeeff", &f, &k);
    T_CHECK("new_connection_id: length 0 is FRAME_ENCODING_ERROR (§19.15)", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("18 05 00 15 0102030405060708090a0b0c0d0e0f101112131415 00112233445566778899aabbccddeeff", &f, &k);
    T_CHECK("new_connection_id: length 21 is FRAME_ENCODING_ERROR (§19.15)", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("18 05 06 04 c0ffee01 00112233445566778899aabbccddeeff", &f, &k);
    T_CHECK("new_connection_id: retire_prior_to > sequence is FRAME_ENCODING_ERROR (§19.15)", r == FEE, "r=%d", r);
    free(k);

    r = dec_hex("1a 0102030405060708", &f, &k);
    T_CHECK("path_challenge", r == 0 && f.kind == QUIC_FT_PATH_CHALLENGE && f.path.data[7] == 8, "r=%d", r);
    free(k);
    r = dec_hex("1e", &f, &k);
    T_CHECK("handshake_done", r == 0 && f.kind == QUIC_FT_HANDSHAKE_DONE, "r=%d", r);
    free(k);
    r = dec_hex("1c 40 0a 06 05 68656c6c6f", &f, &k);
    T_CHECK("connection_close 0x1c from bytes (non-minimal varints inside are fine, §16)",
            r == 0 && f.close.error_code == 10 && f.close.frame_type == 6 && f.close.reason_len == 5 &&
            memcmp(f.close.reason, "hello", 5) == 0, "r=%d", r);
    free(k);
    r = dec_hex("1d 0c 00", &f, &k);
    T_CHECK("connection_close 0x1d from bytes", r == 0 && f.close.app && f.close.error_code == 12 &&
            f.close.reason_len == 0, "r=%d", r);
    free(k);

    r = dec_hex("06 c0 00 00 00 00 00 00 00 00", &f, &k);
    T_CHECK("crypto: 8-byte offset, empty data", r == 0 && f.crypto.offset == 0 && f.crypto.len == 0, "r=%d", r);
    free(k);
    r = dec_hex("06 ff ff ff ff ff ff ff fe 01 aa", &f, &k); /* offset 2^62-2, length 1: ends at 2^62-1 */
    T_CHECK("crypto: ending at 2^62-1 accepted", r == 0 && f.crypto.offset == QUIC_MAX_OFFSET - 1, "r=%d", r);
    free(k);
    r = dec_hex("06 ff ff ff ff ff ff ff ff 01 aa", &f, &k);
    T_CHECK("crypto: ending past 2^62-1 is FRAME_ENCODING_ERROR (§19.6)", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("0e 00 ff ff ff ff ff ff ff ff 01 aa", &f, &k);
    T_CHECK("stream: ending past 2^62-1 is FRAME_ENCODING_ERROR (§19.8)", r == FEE && f.type == 0x0e, "r=%d", r);
    free(k);
    r = dec_hex("0d 00 ff ff ff ff ff ff ff ff", &f, &k);
    T_CHECK("stream: empty at offset 2^62-1 with FIN accepted", r == 0 && f.stream.fin && f.stream.len == 0 &&
            f.stream.offset == QUIC_MAX_OFFSET, "r=%d", r);
    free(k);
}

/* ------------------------------------------------------------ types */

static void test_types(void)
{
    struct quic_frame f;
    uint8_t *k;
    bool ok = true;
    int r;

    for (unsigned t = 0x1f; t < 0x40; t++) {
        uint8_t b[8] = { (uint8_t)t, 0, 0, 0, 0, 0, 0, 0 };
        size_t used;
        r = dec1(b, sizeof b, &f, &used, &k);
        ok &= T_QUIET("unknown type", r == FEE && used == 0 && f.type == t, "t=%02x r=%d", t, r);
        free(k);
    }
    T_CHECK("types 0x1f-0x3f are FRAME_ENCODING_ERROR (§12.4), cursor unmoved", ok, "wrong");

    r = dec_hex("40 01", &f, &k);
    T_CHECK("PING as a 2-byte type is PROTOCOL_VIOLATION (§12.4 shortest encoding)",
            r == -QUIC_PROTOCOL_VIOLATION && f.type == 1, "r=%d", r);
    free(k);
    r = dec_hex("80 00 00 08 00 00", &f, &k);
    T_CHECK("STREAM as a 4-byte type is PROTOCOL_VIOLATION", r == -QUIC_PROTOCOL_VIOLATION && f.type == 8, "r=%d", r);
    free(k);
    r = dec_hex("40 40", &f, &k);
    T_CHECK("2-byte type 0x40 is unknown: FRAME_ENCODING_ERROR", r == FEE && f.type == 0x40, "r=%d", r);
    free(k);
    r = dec_hex("80 00 40", &f, &k);
    T_CHECK("truncated multi-byte type: FRAME_ENCODING_ERROR, type 0", r == FEE && f.type == 0, "r=%d", r);
    free(k);
    {
        const uint8_t *p = NULL;
        r = quic_frame_next(&p, p, &f);
        T_CHECK("empty input: FRAME_ENCODING_ERROR", r == FEE, "r=%d", r);
    }

    /* Table 3 spot checks. */
    const unsigned I = QUIC_FRAME_IN_INITIAL, Z = QUIC_FRAME_IN_0RTT, H = QUIC_FRAME_IN_HANDSHAKE,
                   O = QUIC_FRAME_IN_1RTT;
    T_CHECK("table 3: PADDING, PING in every packet type",
            quic_frame_allowed(0x00, I) && quic_frame_allowed(0x00, Z) && quic_frame_allowed(0x00, H) &&
            quic_frame_allowed(0x00, O) && quic_frame_allowed(0x01, I) && quic_frame_allowed(0x01, Z), "wrong");
    T_CHECK("table 3: ACK, ACK_ECN, CRYPTO in I, H, 1 but not 0-RTT",
            quic_frame_allowed(0x02, I) && quic_frame_allowed(0x03, H) && quic_frame_allowed(0x03, O) &&
            !quic_frame_allowed(0x02, Z) && !quic_frame_allowed(0x03, Z) && quic_frame_allowed(0x06, I) &&
            quic_frame_allowed(0x06, H) && !quic_frame_allowed(0x06, Z), "wrong");
    T_CHECK("table 3: CONNECTION_CLOSE 0x1c anywhere, 0x1d only in 0-RTT and 1-RTT",
            quic_frame_allowed(0x1c, I) && quic_frame_allowed(0x1c, H) && quic_frame_allowed(0x1c, O) &&
            !quic_frame_allowed(0x1d, I) && !quic_frame_allowed(0x1d, H) && quic_frame_allowed(0x1d, Z) &&
            quic_frame_allowed(0x1d, O), "wrong");
    ok = true;
    for (unsigned t = 0x04; t <= 0x1e; t++) {
        if (t == 0x06 || t == 0x1c)
            continue;
        ok &= T_QUIET("table 3 not in I/H", !quic_frame_allowed(t, I) && !quic_frame_allowed(t, H), "t=%02x", t);
        ok &= T_QUIET("table 3 in 1-RTT", quic_frame_allowed(t, O), "t=%02x", t);
    }
    T_CHECK("table 3: every other frame only in 0-RTT / 1-RTT, all of them in 1-RTT", ok, "wrong");
    T_CHECK("table 3: STREAM, PATH_CHALLENGE in 0-RTT; NEW_TOKEN, PATH_RESPONSE, HANDSHAKE_DONE only 1-RTT",
            quic_frame_allowed(0x0b, Z) && quic_frame_allowed(0x1a, Z) && !quic_frame_allowed(0x07, Z) &&
            !quic_frame_allowed(0x1b, Z) && !quic_frame_allowed(0x1e, Z), "wrong");
    T_CHECK("table 3: unknown types allowed nowhere", !quic_frame_allowed(0x1f, O) && !quic_frame_allowed(0x30, O) &&
            !quic_frame_allowed(1ull << 40, O), "wrong");
    ok = true;
    for (unsigned t = 0; t <= 0x1e; t++) {
        bool want = !(t == 0x00 || t == 0x02 || t == 0x03 || t == 0x1c || t == 0x1d);
        ok &= T_QUIET("ack-eliciting", quic_frame_ack_eliciting(t) == want, "t=%02x", t);
    }
    T_CHECK("ack-eliciting: all but PADDING, ACK, ACK_ECN, CONNECTION_CLOSE (§13.2.1)", ok, "wrong");
}

/* ------------------------------------------------------------ truncations */

/* Valid frames, each exactly its bytes; hdr: for a STREAM without LEN, the
 * header size (every prefix from there on is a shorter valid frame). */
static const struct {
    const char *hex;
    size_t hdr;
} samples[] = {
    { "01", 0 },
    { "02 40 64 05 02 02 03 04 00 00", 0 },
    { "03 05 00 00 05 01 02 03", 0 },
    { "03 40 64 43 e8 01 00 01 00 c0 00 00 00 00 00 00 01 02 80 00 00 03", 0 },
    { "04 04 41 00 80 01 00 00", 0 },
    { "05 04 41 00", 0 },
    { "06 00 05 0102030405", 0 },
    { "06 44 00 00", 0 },
    { "07 02 abcd", 0 },
    { "08 04 abcdef", 2 },
    { "09 04", 2 },
    { "0a 04 03 abcdef", 0 },
    { "0b 04 00", 0 },
    { "0c 04 41 00 abcd", 4 },
    { "0d 04 41 00", 4 },
    { "0e 04 41 00 02 abcd", 0 },
    { "0f 80 00 00 04 c0 00 00 00 00 00 00 01 01 ff", 0 },
    { "10 80 01 00 00", 0 },
    { "11 04 44 00", 0 },
    { "12 0a", 0 },
    { "13 40 0a", 0 },
    { "14 05", 0 },
    { "15 04 05", 0 },
    { "16 05", 0 },
    { "17 05", 0 },
    { "18 01 00 08 0102030405060708 00112233445566778899aabbccddeeff", 0 },
    { "19 03", 0 },
    { "1a 0102030405060708", 0 },
    { "1b 0102030405060708", 0 },
    { "1c 07 08 03 616263", 0 },
    { "1c 00 00 00", 0 },
    { "1d 40 01 01 7a", 0 },
    { "1e", 0 },
};

static void test_truncations(void)
{
    bool ok = true;
    size_t frames = 0, cuts = 0;

    for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
        uint8_t b[64];
        size_t n = unhex(samples[s].hex, b, sizeof b);
        struct quic_frame f;
        uint8_t *k;
        size_t used;
        int r = dec1(b, n, &f, &used, &k);
        ok &= T_QUIET("sample decodes whole", r == 0 && used == n && f.type == b[0], "sample %zu r=%d used=%zu",
                      s, r, used);
        free(k);
        frames++;
        for (size_t cut = 0; cut < n; cut++) {
            r = dec1(b, cut, &f, &used, &k);
            if (samples[s].hdr && cut >= samples[s].hdr)
                ok &= T_QUIET("no-LEN stream prefix", r == 0 && used == cut && f.stream.len == cut - samples[s].hdr,
                              "sample %zu cut %zu r=%d", s, cut, r);
            else
                ok &= T_QUIET("truncation", r == FEE && used == 0, "sample %zu cut %zu r=%d used=%zu", s, cut, r,
                              used);
            free(k);
            cuts++;
        }
    }
    T_CHECK("every prefix of every frame type: FRAME_ENCODING_ERROR, cursor unmoved, no read past the end", ok,
            "%zu frames, %zu cuts", frames, cuts);
}

/* ------------------------------------------------------------ ACK ranges */

static void test_ack_ranges(void)
{
    struct quic_frame f;
    struct quic_ack_range got[8];
    uint8_t *k, out[64];
    size_t n, sent;
    int r, cnt;

    /* The §19.3.1 shape: Largest 100, First ACK Range 2 (98..100), then
     * Gap 3 (94..97 missing: gap + 1 packets), Length 4 (89..93), Gap 0
     * (88 missing), Length 0 (87). */
    const char *hex = "02 40 64 00 02 02 03 04 00 00";
    r = dec_hex(hex, &f, &k);
    cnt = ack_ranges(&f, got, 8);
    T_CHECK("ack §19.3.1: fields", r == 0 && f.kind == QUIC_FT_ACK && !f.ack.ecn && f.ack.largest == 100 &&
            f.ack.ack_delay == 0 && f.ack.range_count == 2 && f.ack.first_range == 2 && f.ack.smallest == 87,
            "r=%d", r);
    T_CHECK("ack §19.3.1: smallest = largest - ack_range; largest = previous_smallest - gap - 2",
            cnt == 3 && got[0].lo == 98 && got[0].hi == 100 && got[1].lo == 89 && got[1].hi == 93 && got[2].lo == 87 &&
            got[2].hi == 87, "cnt=%d", cnt);
    free(k);
    {
        const struct quic_ack_range asc[] = { { 87, 87 }, { 89, 93 }, { 98, 100 } };
        uint8_t want[16];
        size_t wn = unhex(hex, want, sizeof want);
        n = quic_frame_enc_ack(out, sizeof out, asc, 3, 0, NULL, &sent);
        T_CHECK("ack §19.3.1: the encoder writes the same bytes", n == wn && sent == 3 && memcmp(out, want, n) == 0,
                "n=%zu sent=%zu", n, sent);
    }

    /* Down to packet 0 exactly, and one below. */
    r = dec_hex("02 05 00 00 05", &f, &k);
    cnt = ack_ranges(&f, got, 8);
    T_CHECK("ack: first range down to packet 0", r == 0 && cnt == 1 && got[0].lo == 0 && got[0].hi == 5, "r=%d", r);
    free(k);
    r = dec_hex("02 05 00 00 06", &f, &k);
    T_CHECK("ack: first range below 0 is FRAME_ENCODING_ERROR", r == FEE && f.type == 2, "r=%d", r);
    free(k);
    r = dec_hex("02 05 00 01 02 01 00", &f, &k); /* 3..5, then largest = 3 - 1 - 2 = 0 */
    cnt = ack_ranges(&f, got, 8);
    T_CHECK("ack: a range ending on packet 0", r == 0 && cnt == 2 && got[1].lo == 0 && got[1].hi == 0 &&
            f.ack.smallest == 0, "r=%d cnt=%d", r, cnt);
    free(k);
    r = dec_hex("02 05 00 01 02 02 00", &f, &k); /* largest = 3 - 2 - 2 < 0 */
    T_CHECK("ack: gap below 0 is FRAME_ENCODING_ERROR (§19.3.1)", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("02 05 00 01 02 00 02", &f, &k); /* largest 1, length 2: smallest < 0 */
    T_CHECK("ack: range length below 0 is FRAME_ENCODING_ERROR (§19.3.1)", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("02 05 00 c0 00 00 00 00 00 00 10 00 00 00", &f, &k);
    T_CHECK("ack: a range count the packet cannot carry is FRAME_ENCODING_ERROR", r == FEE, "r=%d", r);
    free(k);
    r = dec_hex("03 0a 01 00 00 01 02 03", &f, &k);
    cnt = ack_ranges(&f, got, 8);
    T_CHECK("ack_ecn: counts", r == 0 && f.type == 3 && f.kind == QUIC_FT_ACK && f.ack.ecn && f.ack.ect0 == 1 &&
            f.ack.ect1 == 2 && f.ack.ce == 3 && f.ack.ack_delay == 1 && cnt == 1 && got[0].lo == 10, "r=%d", r);
    free(k);

    /* ECN through the encoder. */
    {
        const struct quic_ack_range one = { 1000, 1000 };
        const struct quic_ecn_counts ecn = { 5, 1ull << 40, 0 };
        uint8_t *c;
        size_t used;
        n = quic_frame_enc_ack(out, sizeof out, &one, 1, 20000, &ecn, &sent);
        r = dec1(out, n, &f, &used, &c);
        T_CHECK("ack_ecn: encoder round trip", n && r == 0 && used == n && f.type == 3 && f.ack.ecn &&
                f.ack.ect0 == 5 && f.ack.ect1 == 1ull << 40 && f.ack.ce == 0 && f.ack.largest == 1000 &&
                f.ack.first_range == 0 && f.ack.ack_delay == 20000 && sent == 1, "n=%zu r=%d", n, r);
        free(c);
    }

    /* Ranges the encoder refuses: none, touching, overlapping, backwards. */
    {
        const struct quic_ack_range adj[] = { { 1, 2 }, { 3, 4 } }, ovl[] = { { 1, 5 }, { 4, 9 } };
        const struct quic_ack_range back[] = { { 9, 9 }, { 1, 2 } }, inv[] = { { 5, 4 } };
        const struct quic_ack_range ok2[] = { { 0, 1 }, { 3, 3 } };
        T_CHECK("ack encoder: refuses empty, adjacent, overlapping, unordered or inverted ranges",
                quic_frame_enc_ack(out, sizeof out, adj, 0, 0, NULL, NULL) == 0 &&
                quic_frame_enc_ack(out, sizeof out, adj, 2, 0, NULL, NULL) == 0 &&
                quic_frame_enc_ack(out, sizeof out, ovl, 2, 0, NULL, NULL) == 0 &&
                quic_frame_enc_ack(out, sizeof out, back, 2, 0, NULL, NULL) == 0 &&
                quic_frame_enc_ack(out, sizeof out, inv, 1, 0, NULL, NULL) == 0 &&
                quic_frame_enc_ack(out, sizeof out, ok2, 2, 0, NULL, NULL) == 7, "wrong");
    }
}

/* The ACK encoder in every room: the newest ranges that fit, never more bytes than room. */
static void test_ack_room(void)
{
    struct quic_ack_range r[40];
    uint64_t pn = 5;
    bool ok = true;
    size_t full = 0, prev_sent = 0;

    for (uint64_t i = 0; i < 40; i++) { /* growing gaps and lengths, so varint sizes vary */
        r[i].lo = pn;
        r[i].hi = pn + i * i * 3;
        pn = r[i].hi + 2 + i * i * i * 7;
    }
    {
        uint8_t big[1024];
        size_t sent;
        full = quic_frame_enc_ack(big, sizeof big, r, 40, 123, NULL, &sent);
        ok &= T_QUIET("ack full", full > 0 && sent == 40, "full=%zu sent=%zu", full, sent);
    }
    for (size_t room = 0; room <= full + 2; room++) {
        uint8_t *o = t_malloc(room);
        size_t sent = 99;
        size_t n = quic_frame_enc_ack(o, room, r, 40, 123, NULL, &sent);
        if (n == 0) {
            ok &= T_QUIET("ack room: 0 only below the single range", sent == 0 && prev_sent == 0, "room=%zu", room);
        } else {
            struct quic_frame f;
            struct quic_ack_range got[41];
            uint8_t *k;
            size_t used;
            int rr = dec1(o, n, &f, &used, &k), cnt = ack_ranges(&f, got, 41);
            bool same = cnt == (int)sent;
            for (int j = 0; same && j < cnt; j++)
                same = got[j].lo == r[39 - j].lo && got[j].hi == r[39 - j].hi;
            ok &= T_QUIET("ack room", rr == 0 && used == n && n <= room && same && sent >= prev_sent &&
                          (room < full || sent == 40), "room=%zu n=%zu sent=%zu cnt=%d", room, n, sent, cnt);
            /* One more range would not have fit. */
            if (sent < 40) {
                uint8_t big[1024];
                size_t more = quic_frame_enc_ack(big, sizeof big, r + 40 - (sent + 1), sent + 1, 123, NULL, NULL);
                ok &= T_QUIET("ack room: as many as fit", more > room, "room=%zu sent=%zu more=%zu", room, sent, more);
            }
            prev_sent = sent;
            free(k);
        }
        free(o);
    }
    T_CHECK("ack encoder: every room keeps the newest ranges that fit, drops the oldest (§13.2.3)", ok,
            "full=%zu", full);
}

/* ------------------------------------------------------------ robustness */

static void test_random(void)
{
    size_t frames = 0, errors = 0;
    bool ok = true;

    /* Random bytes, then valid sample sequences with a byte mutated. */
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t b[96];
        size_t n;
        if (iter < 10000) {
            n = t_rng() % sizeof b;
            for (size_t i = 0; i < n; i++)
                b[i] = (uint8_t)(t_rng() % 4 != 0 ? t_rng() % 0x20 : t_rng());
        } else {
            n = 0;
            while (n < 64) {
                size_t s = t_rng() % (sizeof samples / sizeof samples[0]);
                if (samples[s].hdr)
                    continue;
                n += unhex(samples[s].hex, b + n, sizeof b - n);
            }
            if (n > sizeof b)
                n = sizeof b;
            b[t_rng() % n] ^= (uint8_t)(1u << (t_rng() % 8));
        }
        uint8_t *c = t_memdup(b, n);
        const uint8_t *p = c, *end = c + n;
        while (p < end) {
            struct quic_frame f;
            const uint8_t *before = p;
            int r = quic_frame_next(&p, end, &f);
            if (r) {
                ok &= T_QUIET("random: error leaves cursor", p == before && (r == FEE || r == -QUIC_PROTOCOL_VIOLATION),
                              "r=%d", r);
                errors++;
                break;
            }
            ok &= T_QUIET("random: progress", p > before && p <= end, "wrong");
            frames++;
            if (f.kind == QUIC_FT_ACK) {
                struct quic_ack_range got[1];
                ok &= T_QUIET("random: ack ranges walk", ack_ranges(&f, got, 1) > 0, "wrong");
            }
        }
        free(c);
    }
    T_CHECK("random and mutated payloads: frames or a clean error, never a read past the end", ok,
            "%zu frames, %zu errors", frames, errors);
}

/* ------------------------------------------------------------ RFC 9001 Appendix A */

/* A.2: the client Initial's payload is one CRYPTO frame (a ClientHello)
 * padded to 1162 bytes; A.3: the server Initial's is an ACK, then a CRYPTO
 * frame (a ServerHello), no padding. */
static void test_rfc9001(void)
{
    uint8_t pay[1162];
    struct quic_frame f;
    size_t n = unhex(Q_A2_PLAIN, pay, sizeof pay);
    int r;

    memset(pay + n, 0, sizeof pay - n);
    {
        uint8_t *c = t_memdup(pay, sizeof pay);
        const uint8_t *p = c, *end = c + sizeof pay;
        r = quic_frame_next(&p, end, &f);
        T_CHECK("RFC 9001 A.2: CRYPTO offset 0, 241 bytes of ClientHello",
                n == 245 && r == 0 && f.kind == QUIC_FT_CRYPTO && f.crypto.offset == 0 && f.crypto.len == 241 &&
                f.crypto.data == c + 4 && f.crypto.data[0] == 0x01 && f.crypto.data[1] == 0x00 &&
                f.crypto.data[2] == 0x00 && f.crypto.data[3] == 0xed &&
                quic_frame_allowed(f.type, QUIC_FRAME_IN_INITIAL) && quic_frame_ack_eliciting(f.type),
                "n=%zu r=%d len=%zu", n, r, f.crypto.len);
        r = quic_frame_next(&p, end, &f);
        T_CHECK("RFC 9001 A.2: then 917 bytes of PADDING as one frame, to the end of the 1162-byte payload",
                r == 0 && f.kind == QUIC_FT_PADDING && f.padding.len == 917 && p == end, "r=%d len=%zu", r,
                f.padding.len);
        free(c);
    }
    {
        uint8_t b[256];
        size_t m = unhex(Q_A3_PLAIN, b, sizeof b);
        uint8_t *c = t_memdup(b, m);
        const uint8_t *p = c, *end = c + m;
        struct quic_ack_range got[2];
        r = quic_frame_next(&p, end, &f);
        T_CHECK("RFC 9001 A.3: ACK of packet 0 (largest 0, delay 0, no more ranges)",
                m == 99 && r == 0 && f.type == QUIC_FT_ACK && f.ack.largest == 0 && f.ack.ack_delay == 0 &&
                f.ack.range_count == 0 && f.ack.first_range == 0 && ack_ranges(&f, got, 2) == 1 && got[0].lo == 0 &&
                got[0].hi == 0 && quic_frame_allowed(f.type, QUIC_FRAME_IN_INITIAL) &&
                !quic_frame_ack_eliciting(f.type), "m=%zu r=%d", m, r);
        r = quic_frame_next(&p, end, &f);
        T_CHECK("RFC 9001 A.3: CRYPTO offset 0, 90 bytes of ServerHello, ending the payload",
                r == 0 && f.kind == QUIC_FT_CRYPTO && f.crypto.offset == 0 && f.crypto.len == 90 &&
                f.crypto.data[0] == 0x02 && f.crypto.data[3] == 0x56 && f.crypto.data[89] == 0x04 && p == end,
                "r=%d len=%zu", r, f.crypto.len);
        free(c);
    }
    /* Our encoder reproduces the A.2 CRYPTO frame and the A.3 ACK byte for byte. */
    {
        uint8_t b[256], out[256];
        size_t m = unhex(Q_A2_PLAIN, b, sizeof b), nd;
        size_t w = quic_frame_enc_crypto(out, sizeof out, 0, b + 4, 241, &nd);
        T_CHECK("RFC 9001 A.2: CRYPTO frame re-encoded identically", w == m && nd == 241 && memcmp(out, b, m) == 0,
                "w=%zu", w);
        const struct quic_ack_range zero = { 0, 0 };
        w = quic_frame_enc_ack(out, sizeof out, &zero, 1, 0, NULL, NULL);
        T_CHECK("RFC 9001 A.3: ACK frame re-encoded identically", w == 5 && memcmp(out, "\x02\0\0\0\0", 5) == 0,
                "w=%zu", w);
    }
}

/* ------------------------------------------------------------ ack set */

static bool set_sane(const struct quic_ackset *s)
{
    if (s->n > QUIC_ACKSET_CAP)
        return false;
    for (size_t i = 0; i < s->n; i++) {
        if (s->r[i].lo > s->r[i].hi || s->r[i].lo < s->floor)
            return false;
        if (i > 0 && s->r[i - 1].hi + 1 >= s->r[i].lo)
            return false;
    }
    return true;
}

static void test_ackset(void)
{
    struct quic_ackset s;
    uint64_t big;
    bool ok = true;

    quic_ackset_init(&s);
    T_CHECK("ackset: empty", s.n == 0 && !quic_ackset_largest(&s, &big) &&
            quic_ackset_check(&s, 0) == QUIC_ACKSET_NEW, "wrong");

    for (uint64_t pn = 0; pn < 100; pn++)
        ok &= T_QUIET("in order", quic_ackset_insert(&s, pn) == QUIC_ACKSET_NEW, "pn=%llu", (unsigned long long)pn);
    T_CHECK("ackset: 0..99 in order is one range", ok && s.n == 1 && s.r[0].lo == 0 && s.r[0].hi == 99 &&
            quic_ackset_largest(&s, &big) && big == 99, "n=%zu", s.n);
    T_CHECK("ackset: duplicates", quic_ackset_insert(&s, 0) == QUIC_ACKSET_DUP &&
            quic_ackset_insert(&s, 57) == QUIC_ACKSET_DUP && quic_ackset_check(&s, 99) == QUIC_ACKSET_DUP &&
            quic_ackset_check(&s, 100) == QUIC_ACKSET_NEW && s.n == 1, "wrong");

    /* Out of order: gaps open and close. */
    quic_ackset_init(&s);
    quic_ackset_insert(&s, 10);
    quic_ackset_insert(&s, 5);
    quic_ackset_insert(&s, 7);
    quic_ackset_insert(&s, 12);
    T_CHECK("ackset: out of order, four ranges", s.n == 4 && s.r[0].lo == 5 && s.r[1].lo == 7 && s.r[2].lo == 10 &&
            s.r[3].lo == 12 && set_sane(&s), "n=%zu", s.n);
    quic_ackset_insert(&s, 11); /* joins 10 and 12 */
    quic_ackset_insert(&s, 6);  /* joins 5 and 7 */
    T_CHECK("ackset: filling one-packet gaps merges ranges", s.n == 2 && s.r[0].lo == 5 && s.r[0].hi == 7 &&
            s.r[1].lo == 10 && s.r[1].hi == 12, "n=%zu", s.n);
    quic_ackset_insert(&s, 4);  /* extends downwards */
    quic_ackset_insert(&s, 13); /* extends upwards */
    quic_ackset_insert(&s, 9);  /* extends the upper range downwards */
    T_CHECK("ackset: extending ranges at either end", s.n == 2 && s.r[0].lo == 4 && s.r[0].hi == 7 &&
            s.r[1].lo == 9 && s.r[1].hi == 13 && quic_ackset_insert(&s, 9) == QUIC_ACKSET_DUP, "n=%zu", s.n);
    quic_ackset_insert(&s, 8);
    T_CHECK("ackset: the last gap closed", s.n == 1 && s.r[0].lo == 4 && s.r[0].hi == 13, "n=%zu", s.n);

    /* Overflow: every other packet number makes a range each. */
    quic_ackset_init(&s);
    for (uint64_t pn = 2; pn <= 2 * QUIC_ACKSET_CAP; pn += 2)
        quic_ackset_insert(&s, pn);
    T_CHECK("ackset: full at capacity", s.n == QUIC_ACKSET_CAP && s.floor == 0 && s.r[0].lo == 2 && set_sane(&s),
            "n=%zu", s.n);
    T_CHECK("ackset: full, a new oldest range is refused and changes nothing",
            quic_ackset_check(&s, 0) == QUIC_ACKSET_TOO_OLD && quic_ackset_insert(&s, 0) == QUIC_ACKSET_TOO_OLD &&
            s.n == QUIC_ACKSET_CAP && s.r[0].lo == 2, "wrong");
    T_CHECK("ackset: full, extending the oldest range downwards still works",
            quic_ackset_insert(&s, 1) == QUIC_ACKSET_NEW && s.r[0].lo == 1 && s.n == QUIC_ACKSET_CAP, "wrong");
    T_CHECK("ackset: full, a new range drops the oldest and raises the floor",
            quic_ackset_insert(&s, 100) == QUIC_ACKSET_NEW && s.n == QUIC_ACKSET_CAP && s.r[0].lo == 4 &&
            s.floor == 3 && s.r[s.n - 1].lo == 100 && set_sane(&s), "n=%zu floor=%llu lo=%llu", s.n,
            (unsigned long long)s.floor, (unsigned long long)s.r[0].lo);
    T_CHECK("ackset: below the floor is TOO_OLD (it might be a duplicate), at the floor still NEW",
            quic_ackset_check(&s, 2) == QUIC_ACKSET_TOO_OLD && quic_ackset_check(&s, 1) == QUIC_ACKSET_TOO_OLD &&
            quic_ackset_insert(&s, 3) == QUIC_ACKSET_NEW && s.r[0].lo == 3, "wrong");
    T_CHECK("ackset: full, a gap in the middle filled", quic_ackset_insert(&s, 5) == QUIC_ACKSET_NEW &&
            s.n == QUIC_ACKSET_CAP - 1 && s.r[0].lo == 3 && s.r[0].hi == 6 && set_sane(&s), "n=%zu", s.n);

    /* drop_below (§13.2.4). */
    quic_ackset_init(&s);
    for (uint64_t pn = 0; pn < 30; pn++)
        if (pn % 10 < 5)
            quic_ackset_insert(&s, pn); /* 0-4, 10-14, 20-24 */
    quic_ackset_drop_below(&s, 12);
    T_CHECK("ackset: drop_below cuts a range and forgets older ones", s.n == 2 && s.r[0].lo == 12 &&
            s.r[0].hi == 14 && s.r[1].lo == 20 && s.floor == 12 &&
            quic_ackset_check(&s, 7) == QUIC_ACKSET_TOO_OLD && quic_ackset_check(&s, 12) == QUIC_ACKSET_DUP &&
            quic_ackset_check(&s, 15) == QUIC_ACKSET_NEW, "n=%zu", s.n);
    quic_ackset_drop_below(&s, 5);
    T_CHECK("ackset: drop_below never lowers the floor", s.floor == 12 && s.n == 2, "wrong");
    quic_ackset_drop_below(&s, 100);
    T_CHECK("ackset: drop_below past everything empties it", s.n == 0 && s.floor == 100 &&
            quic_ackset_insert(&s, 99) == QUIC_ACKSET_TOO_OLD && quic_ackset_insert(&s, 100) == QUIC_ACKSET_NEW,
            "wrong");

    /* Against a reference model: random arrivals in a sliding window, with
     * duplicates, reordering and the occasional drop_below. */
    {
        static bool seen[1 << 16];
        size_t dups = 0, news = 0, olds = 0;
        memset(seen, 0, sizeof seen);
        quic_ackset_init(&s);
        ok = true;
        uint64_t top = 0;
        for (int i = 0; i < 200000 && top + 64 < (1 << 16); i++) {
            uint64_t pn;
            if (t_rng() % 4 == 0 && top > 150)
                pn = top - 1 - t_rng() % 150; /* late or duplicate, some older than the set keeps */
            else
                pn = top++;
            if (t_rng() % 3 == 0)
                top++; /* a packet that never arrives */
            enum quic_ackset_result c = quic_ackset_check(&s, pn), res = quic_ackset_insert(&s, pn);
            ok &= T_QUIET("model: check agrees with insert", c == res, "pn=%llu", (unsigned long long)pn);
            if (seen[pn])
                ok &= T_QUIET("model: a duplicate is never NEW", res != QUIC_ACKSET_NEW, "pn=%llu",
                              (unsigned long long)pn);
            else if (pn >= s.floor && res == QUIC_ACKSET_DUP)
                ok &= T_QUIET("model: unseen reported DUP", false, "pn=%llu", (unsigned long long)pn);
            if (res == QUIC_ACKSET_NEW) {
                seen[pn] = true;
                news++;
            } else if (res == QUIC_ACKSET_DUP) {
                dups++;
            } else {
                olds++;
            }
            if (t_rng() % 500 == 0 && top > 100)
                quic_ackset_drop_below(&s, top - 100);
            ok &= T_QUIET("model: ranges sorted, disjoint, above floor", set_sane(&s), "i=%d", i);
            /* Every number at or above the oldest range is in the set iff seen. */
            if (i % 97 == 0 && s.n > 0) {
                size_t j = 0;
                for (uint64_t q = s.r[0].lo; q < top; q++) {
                    while (j < s.n && s.r[j].hi < q)
                        j++;
                    bool in = j < s.n && s.r[j].lo <= q;
                    ok &= T_QUIET("model: membership", in == seen[q], "q=%llu", (unsigned long long)q);
                }
            }
        }
        T_CHECK("ackset: reference model (no duplicate accepted, exact membership above the oldest range)", ok,
                "new=%zu dup=%zu old=%zu", news, dups, olds);
    }

    /* The ACK frame straight from the set. */
    {
        uint8_t out[512], *k;
        struct quic_frame f;
        struct quic_ack_range got[QUIC_ACKSET_CAP + 1];
        size_t n, used, sent;
        int cnt;
        quic_ackset_init(&s);
        for (uint64_t pn = 1000; pn < 1200; pn += 3)
            quic_ackset_insert(&s, pn);
        n = quic_frame_enc_ack(out, sizeof out, s.r, s.n, 25, NULL, &sent);
        int r = dec1(out, n, &f, &used, &k);
        cnt = ack_ranges(&f, got, QUIC_ACKSET_CAP + 1);
        ok = r == 0 && used == n && cnt == (int)s.n && sent == s.n;
        for (int j = 0; ok && j < cnt; j++)
            ok = got[j].lo == s.r[s.n - 1 - (size_t)j].lo && got[j].hi == s.r[s.n - 1 - (size_t)j].hi;
        T_CHECK("ackset -> ACK frame -> decoder gives the same ranges", ok && s.n == QUIC_ACKSET_CAP, "r=%d cnt=%d",
                r, cnt);
        free(k);
    }
}

int main(void)
{
    test_roundtrip_simple();
    test_roundtrip_data();
    test_encoder_rooms();
    test_decode_handwritten();
    test_types();
    test_truncations();
    test_ack_ranges();
    test_ack_room();
    test_random();
    test_rfc9001();
    test_ackset();
    T_DONE();
}
