/* test/unit/unit_quic_tparams.c — QUIC transport parameters (quic/tparams.c):
 * the client encoder (defaults left out, server-only ones never sent, every
 * room), the decoder on hand-written server parameters (every §18.2
 * parameter, GREASE, every range limit on both sides of it, duplicates,
 * server-only ones from a client, sizes of the fixed-size values, every
 * truncation), the §7.3 connection-ID checks, and the real client
 * parameters of RFC 9001 Appendix A.2, dug out of its ClientHello.
 *
 * Decoder inputs are exact-size heap copies and encoder outputs exact-size
 * heap blocks, so ASan sees any access past the end. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quic/frame.h"
#include "quic/tparams.h"
#include "quic/varint.h"
#include "test/vectors/quic_vectors.h" /* Q_A2_PLAIN: RFC 9001 A.2, the client Initial's CRYPTO frame */
#include "t.h"

#define TPE (-QUIC_TRANSPORT_PARAMETER_ERROR)

/* Decodes b[0..n) from an exact-size heap copy. */
static int dec(struct quic_tparams *tp, const uint8_t *b, size_t n, bool from_server)
{
    uint8_t *c = t_malloc(n);
    if (n)
        memcpy(c, b, n);
    int r = quic_tparams_decode(tp, c, n, from_server);
    free(c);
    return r;
}

static int dec_hex(struct quic_tparams *tp, const char *hex, bool from_server)
{
    uint8_t b[1024];
    size_t n = unhex(hex, b, sizeof b);
    return dec(tp, b, n, from_server);
}

/* The parameter list a test server could send, varied by one piece. */
struct tpbuf {
    uint8_t b[1024];
    size_t n;
};

static void put_param(struct tpbuf *k, uint64_t id, const uint8_t *v, size_t len)
{
    uint8_t *w = quic_varint_put(k->b + k->n, k->b + sizeof k->b, id);
    w = quic_varint_put(w, k->b + sizeof k->b, len);
    if (len)
        memcpy(w, v, len);
    k->n = (size_t)(w + len - k->b);
}

static void put_int(struct tpbuf *k, uint64_t id, uint64_t v)
{
    uint8_t tmp[8];
    size_t n = (size_t)(quic_varint_put(tmp, tmp + 8, v) - tmp);
    put_param(k, id, tmp, n);
}

static const uint8_t SCID[8] = { 0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x02, 0x03, 0x04 };
static const uint8_t ODCID[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
static const uint8_t RSCID[5] = { 0x55, 0x66, 0x77, 0x88, 0x99 };
static const uint8_t TOKEN[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* A full set of server parameters, every §18.2 one, GREASE in between. */
static void server_params(struct tpbuf *k)
{
    uint8_t pa[4 + 2 + 16 + 2 + 1 + 4 + 16];
    memset(pa, 0, sizeof pa);
    pa[0] = 127, pa[3] = 1, pa[4] = 0x11, pa[5] = 0x51; /* 127.0.0.1:4433 */
    pa[24] = 4;                                          /* CID length */
    memset(pa + 25, 0xcd, 4);
    memset(pa + 29, 0xee, 16);

    k->n = 0;
    put_param(k, QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID, ODCID, sizeof ODCID);
    put_int(k, QUIC_TP_MAX_IDLE_TIMEOUT, 30000);
    put_param(k, QUIC_TP_STATELESS_RESET_TOKEN, TOKEN, 16);
    put_int(k, 27, 0x1234);                              /* reserved: 31 * 0 + 27 (§18.1) */
    put_int(k, QUIC_TP_MAX_UDP_PAYLOAD_SIZE, 1472);
    put_int(k, QUIC_TP_INITIAL_MAX_DATA, 10000000);
    put_int(k, QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, 1000000);
    put_int(k, QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE, 1000001);
    put_int(k, QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, 1000002);
    put_int(k, QUIC_TP_INITIAL_MAX_STREAMS_BIDI, 100);
    put_int(k, QUIC_TP_INITIAL_MAX_STREAMS_UNI, 3);
    put_param(k, 31 * 1234567 + 27, (const uint8_t *)"grease!", 7); /* reserved, 4-byte id */
    put_int(k, QUIC_TP_ACK_DELAY_EXPONENT, 10);
    put_int(k, QUIC_TP_MAX_ACK_DELAY, 40);
    put_param(k, QUIC_TP_DISABLE_ACTIVE_MIGRATION, NULL, 0);
    put_param(k, QUIC_TP_PREFERRED_ADDRESS, pa, sizeof pa);
    put_int(k, QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT, 8);
    put_param(k, QUIC_TP_INITIAL_SOURCE_CONNECTION_ID, SCID, sizeof SCID);
    put_param(k, QUIC_TP_RETRY_SOURCE_CONNECTION_ID, RSCID, sizeof RSCID);
    put_param(k, 0x2ab2, NULL, 0);                       /* unknown, not reserved: ignored too */
}

static void test_decode_server(void)
{
    struct quic_tparams tp;
    struct tpbuf k;
    int r;

    server_params(&k);
    r = dec(&tp, k.b, k.n, true);
    T_CHECK("server: every §18.2 parameter decoded", r == 0 && tp.max_idle_timeout == 30000 &&
            tp.max_udp_payload_size == 1472 && tp.initial_max_data == 10000000 &&
            tp.initial_max_stream_data_bidi_local == 1000000 && tp.initial_max_stream_data_bidi_remote == 1000001 &&
            tp.initial_max_stream_data_uni == 1000002 && tp.initial_max_streams_bidi == 100 &&
            tp.initial_max_streams_uni == 3 && tp.ack_delay_exponent == 10 && tp.max_ack_delay == 40 &&
            tp.disable_active_migration && tp.has_preferred_address && tp.active_connection_id_limit == 8, "r=%d", r);
    T_CHECK("server: connection IDs and reset token copied",
            tp.original_dcid.present && tp.original_dcid.len == 8 && memcmp(tp.original_dcid.id, ODCID, 8) == 0 &&
            tp.initial_scid.present && tp.initial_scid.len == 8 && memcmp(tp.initial_scid.id, SCID, 8) == 0 &&
            tp.retry_scid.present && tp.retry_scid.len == 5 && memcmp(tp.retry_scid.id, RSCID, 5) == 0 &&
            tp.has_stateless_reset_token && memcmp(tp.stateless_reset_token, TOKEN, 16) == 0, "wrong");
    r = dec(&tp, k.b, k.n, false);
    T_CHECK("the same from a client: server-only parameters are TRANSPORT_PARAMETER_ERROR (§18.2)", r == TPE,
            "r=%d", r);

    r = dec(&tp, k.b, 0, true);
    T_CHECK("empty: every default (§18.2)", r == 0 && tp.max_udp_payload_size == 65527 && tp.ack_delay_exponent == 3 &&
            tp.max_ack_delay == 25 && tp.active_connection_id_limit == 2 && tp.initial_max_data == 0 &&
            tp.max_idle_timeout == 0 && !tp.initial_scid.present && !tp.original_dcid.present &&
            !tp.retry_scid.present && !tp.has_stateless_reset_token && !tp.disable_active_migration &&
            !tp.has_preferred_address, "r=%d", r);

    /* Every prefix: an error, unless it ends on a parameter boundary. */
    {
        bool ok = true;
        size_t bounds = 0;
        for (size_t cut = 0; cut < k.n; cut++) {
            r = dec(&tp, k.b, cut, true);
            /* Is cut a boundary? Walk the parameters. */
            const uint8_t *p = k.b, *end = k.b + k.n;
            bool boundary = cut == 0;
            while (p < end && !boundary) {
                uint64_t id, len;
                quic_varint_get(&p, end, &id);
                quic_varint_get(&p, end, &len);
                p += len;
                boundary = (size_t)(p - k.b) == cut;
                if ((size_t)(p - k.b) > cut)
                    break;
            }
            bounds += boundary;
            ok &= T_QUIET("prefix", boundary ? r == 0 : r == TPE, "cut=%zu r=%d", cut, r);
        }
        T_CHECK("server: every truncation is TRANSPORT_PARAMETER_ERROR, parameter boundaries decode",
                ok && bounds == 20,
                "bounds=%zu", bounds);
    }

    /* Client parameters: server-only ones one at a time. */
    {
        static const char *server_only[] = {
            "00 04 01020304", "02 10 00112233445566778899aabbccddeeff",
            "0d 2d 7f000001 1151 00000000000000000000000000000000 0000 04 cdcdcdcd eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            "10 00",
        };
        bool ok = true;
        for (size_t i = 0; i < 4; i++) {
            ok &= T_QUIET("server-only from client", dec_hex(&tp, server_only[i], false) == TPE, "i=%zu", i);
            ok &= T_QUIET("server-only from server", dec_hex(&tp, server_only[i], true) == 0, "i=%zu", i);
        }
        T_CHECK("original_dcid, stateless_reset_token, preferred_address, retry_scid: only from a server", ok, "wrong");
    }
}

static void test_limits(void)
{
    struct quic_tparams tp;
    static const struct {
        const char *name;
        const char *hex;
        int want;
    } cases[] = {
        { "max_udp_payload_size 1200", "03 02 44 b0", 0 },
        { "max_udp_payload_size 1199 (< 1200 invalid)", "03 02 44 af", TPE },
        { "ack_delay_exponent 20", "0a 01 14", 0 },
        { "ack_delay_exponent 21 (> 20 invalid)", "0a 01 15", TPE },
        { "max_ack_delay 2^14-1", "0b 02 7f ff", 0 },
        { "max_ack_delay 2^14 (invalid)", "0b 04 80 00 40 00", TPE },
        { "active_connection_id_limit 2", "0e 01 02", 0 },
        { "active_connection_id_limit 1 (< 2 invalid)", "0e 01 01", TPE },
        { "active_connection_id_limit 0", "0e 01 00", TPE },
        { "initial_max_streams_bidi 2^60", "08 08 d0 00 00 00 00 00 00 00", 0 },
        { "initial_max_streams_bidi 2^60+1 (invalid)", "08 08 d0 00 00 00 00 00 00 01", TPE },
        { "initial_max_streams_uni 2^60+1 (invalid)", "09 08 d0 00 00 00 00 00 00 01", TPE },
        { "initial_max_data 2^62-1", "04 08 ff ff ff ff ff ff ff ff", 0 },
        { "integer on a longer varint than needed", "01 02 40 05", 0 },
        { "integer shorter than its length", "01 02 05 00", TPE },
        { "integer longer than its length", "01 01 40 05", TPE },
        { "integer with an empty value", "04 00", TPE },
        { "stateless_reset_token of 15 bytes", "02 0f 00112233445566778899aabbccddee", TPE },
        { "stateless_reset_token of 17 bytes", "02 11 00112233445566778899aabbccddeeff00", TPE },
        { "disable_active_migration with a value", "0c 01 00", TPE },
        { "initial_source_connection_id of 20 bytes", "0f 14 0102030405060708090a0b0c0d0e0f1011121314", 0 },
        { "initial_source_connection_id of 21 bytes", "0f 15 0102030405060708090a0b0c0d0e0f101112131415", TPE },
        { "original_destination_connection_id of 21 bytes",
          "00 15 0102030405060708090a0b0c0d0e0f101112131415", TPE },
        { "zero-length initial_source_connection_id", "0f 00", 0 },
        { "preferred_address with a 20-byte CID",
          "0d 3d 7f000001 1151 00000000000000000000000000000000 0000 14 0102030405060708090a0b0c0d0e0f1011121314 "
          "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", 0 },
        { "preferred_address with a zero-length CID (§18.2)",
          "0d 29 7f000001 1151 00000000000000000000000000000000 0000 00 eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", TPE },
        { "preferred_address with a 21-byte CID",
          "0d 3e 7f000001 1151 00000000000000000000000000000000 0000 15 0102030405060708090a0b0c0d0e0f101112131415 "
          "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", TPE },
        { "preferred_address one byte short",
          "0d 2c 7f000001 1151 00000000000000000000000000000000 0000 04 cdcdcdcd eeeeeeeeeeeeeeeeeeeeeeeeeeeeee", TPE },
        { "preferred_address one byte long",
          "0d 2e 7f000001 1151 00000000000000000000000000000000 0000 04 cdcdcdcd eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee ff",
          TPE },
        { "preferred_address too short for its CID length", "0d 05 7f00000111", TPE },
        { "preferred_address from a server with a zero-length CID (§18.2)",
          "0f 00 0d 2d 7f000001 1151 00000000000000000000000000000000 0000 04 cdcdcdcd "
          "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", TPE },
        { "duplicate max_idle_timeout (§7.4)", "01 01 05 01 01 05", TPE },
        { "duplicate initial_source_connection_id", "0f 01 aa 04 01 00 0f 01 aa", TPE },
        { "duplicate disable_active_migration", "0c 00 0c 00", TPE },
        { "duplicate unknown parameter: ignored", "1b 00 1b 01 00", 0 },
        { "unknown parameter with a long value", "40 ff 10 00112233445566778899aabbccddeeff", 0 },
        { "length past the end", "01 04 05", TPE },
        { "id alone", "01", TPE },
        { "truncated id varint", "40", TPE },
        { "length varint truncated", "01 80 00", TPE },
        { "8-byte length past the end", "20 c0 00 00 00 00 00 00 01", TPE },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = dec_hex(&tp, cases[i].hex, true);
        T_CHECK(cases[i].name, r == cases[i].want, "r=%d want %d", r, cases[i].want);
    }
}

static void test_encode(void)
{
    struct quic_tparams ours, back;
    uint8_t out[256];
    size_t n;
    int r;

    quic_tparams_defaults(&ours);
    T_CHECK("encode: refused without initial_source_connection_id (§7.3)",
            quic_tparams_encode(&ours, out, sizeof out) == 0, "wrong");
    ours.initial_scid.present = true;
    n = quic_tparams_encode(&ours, out, sizeof out);
    T_CHECK("encode: all defaults leaves only a zero-length initial_source_connection_id",
            n == 2 && out[0] == 0x0f && out[1] == 0x00, "n=%zu", n);

    /* What shb sends: docs/protocols.md's windows, 100 streams each way, etc. */
    ours.max_idle_timeout = 30000;
    ours.max_udp_payload_size = 1452;
    ours.initial_max_data = 1u << 30;
    ours.initial_max_stream_data_bidi_local = 16u << 20;
    ours.initial_max_stream_data_bidi_remote = 16u << 20;
    ours.initial_max_stream_data_uni = 1u << 20;
    ours.initial_max_streams_bidi = 0;
    ours.initial_max_streams_uni = 3;
    ours.ack_delay_exponent = 3;
    ours.max_ack_delay = 20;
    ours.active_connection_id_limit = 4;
    ours.disable_active_migration = true;
    ours.initial_scid.len = 8;
    memcpy(ours.initial_scid.id, SCID, 8);
    /* Server-only fields set: the encoder must leave them out. */
    ours.original_dcid.present = true;
    ours.original_dcid.len = 8;
    ours.retry_scid.present = true;
    ours.has_stateless_reset_token = true;
    ours.has_preferred_address = true;
    n = quic_tparams_encode(&ours, out, sizeof out);
    r = dec(&back, out, n, false);
    T_CHECK("encode -> decode (as a server would, rejecting server-only ids): the same values",
            n > 0 && r == 0 && back.max_idle_timeout == 30000 && back.max_udp_payload_size == 1452 &&
            back.initial_max_data == 1u << 30 && back.initial_max_stream_data_bidi_local == 16u << 20 &&
            back.initial_max_stream_data_bidi_remote == 16u << 20 && back.initial_max_stream_data_uni == 1u << 20 &&
            back.initial_max_streams_bidi == 0 && back.initial_max_streams_uni == 3 &&
            back.ack_delay_exponent == 3 && back.max_ack_delay == 20 && back.active_connection_id_limit == 4 &&
            back.disable_active_migration && back.initial_scid.present && back.initial_scid.len == 8 &&
            memcmp(back.initial_scid.id, SCID, 8) == 0 && !back.original_dcid.present && !back.retry_scid.present &&
            !back.has_stateless_reset_token && !back.has_preferred_address, "n=%zu r=%d", n, r);
    {
        /* Defaults (ack_delay_exponent 3, initial_max_streams_bidi 0) are not sent. */
        const uint8_t *p = out, *end = out + n;
        bool seen_0a = false, seen_08 = false, seen_srv = false;
        size_t count = 0;
        while (p < end) {
            uint64_t id, len;
            quic_varint_get(&p, end, &id);
            quic_varint_get(&p, end, &len);
            p += len;
            seen_0a |= id == 0x0a;
            seen_08 |= id == 0x08;
            seen_srv |= id == 0x00 || id == 0x02 || id == 0x0d || id == 0x10;
            count++;
        }
        T_CHECK("encode: parameters at their default are left out, server-only ones never sent",
                !seen_0a && !seen_08 && !seen_srv && count == 11 && p == end, "count=%zu", count);
    }

    /* Every room below the full size: 0, nothing written past room. */
    {
        bool ok = true;
        for (size_t room = 0; room < n; room++) {
            uint8_t *o = t_malloc(room);
            ok &= T_QUIET("encode room", quic_tparams_encode(&ours, o, room) == 0, "room=%zu", room);
            free(o);
        }
        uint8_t *o = t_malloc(n);
        ok &= T_QUIET("encode exact room", quic_tparams_encode(&ours, o, n) == n && memcmp(o, out, n) == 0, "wrong");
        free(o);
        T_CHECK("encode: 0 for every room below the encoding, exact room works", ok, "n=%zu", n);
    }

    /* Values a server would have to reject are not sent. */
    {
        struct quic_tparams bad;
        bool ok = true;
        for (int i = 0; i < 7; i++) {
            bad = ours;
            switch (i) {
            case 0: bad.max_udp_payload_size = 1199; break;
            case 1: bad.ack_delay_exponent = 21; break;
            case 2: bad.max_ack_delay = 1u << 14; break;
            case 3: bad.active_connection_id_limit = 1; break;
            case 4: bad.initial_max_streams_uni = (1ull << 60) + 1; break;
            case 5: bad.initial_scid.len = 21; break;
            case 6: bad.initial_max_data = 1ull << 62; break;
            }
            ok &= T_QUIET("encode invalid", quic_tparams_encode(&bad, out, sizeof out) == 0, "i=%d", i);
        }
        T_CHECK("encode: out-of-range values refused (§18.2 limits, CID over 20, varint over 2^62-1)", ok, "wrong");
    }
}

static void test_check_cids(void)
{
    struct quic_tparams tp;
    struct tpbuf k;
    static const uint8_t other[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x09 };

    /* A server after a Retry: odcid, initial_scid and retry_scid all present. */
    server_params(&k);
    dec(&tp, k.b, k.n, true);
    T_CHECK("§7.3: after a Retry, all three match",
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, RSCID, 5) == 0, "wrong");
    T_CHECK("§7.3: retry_source_connection_id present without a Retry",
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, NULL, 0) == TPE, "wrong");
    T_CHECK("§7.3: retry_source_connection_id differs from the Retry's SCID",
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, RSCID, 4) == TPE &&
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, other, 5) == TPE, "wrong");
    T_CHECK("§7.3: original_destination_connection_id differs from our first DCID",
            quic_tparams_check_cids(&tp, other, 8, SCID, 8, RSCID, 5) == TPE &&
            quic_tparams_check_cids(&tp, ODCID, 7, SCID, 8, RSCID, 5) == TPE, "wrong");
    T_CHECK("§7.3: initial_source_connection_id differs from the server's SCID",
            quic_tparams_check_cids(&tp, ODCID, 8, other, 8, RSCID, 5) == TPE &&
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 0, RSCID, 5) == TPE, "wrong");

    /* Without a Retry. */
    k.n = 0;
    put_param(&k, QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID, ODCID, 8);
    put_param(&k, QUIC_TP_INITIAL_SOURCE_CONNECTION_ID, SCID, 8);
    dec(&tp, k.b, k.n, true);
    T_CHECK("§7.3: no Retry, both match", quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, NULL, 0) == 0, "wrong");
    T_CHECK("§7.3: retry_source_connection_id missing after a Retry",
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, RSCID, 5) == TPE, "wrong");

    k.n = 0;
    put_param(&k, QUIC_TP_INITIAL_SOURCE_CONNECTION_ID, SCID, 8);
    dec(&tp, k.b, k.n, true);
    T_CHECK("§7.3: original_destination_connection_id missing",
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, NULL, 0) == TPE, "wrong");
    k.n = 0;
    put_param(&k, QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID, ODCID, 8);
    dec(&tp, k.b, k.n, true);
    T_CHECK("§7.3: initial_source_connection_id missing",
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 8, NULL, 0) == TPE, "wrong");

    k.n = 0;
    put_param(&k, QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID, ODCID, 8);
    put_param(&k, QUIC_TP_INITIAL_SOURCE_CONNECTION_ID, NULL, 0);
    dec(&tp, k.b, k.n, true);
    T_CHECK("§7.3: a zero-length server CID matches a zero-length value",
            quic_tparams_check_cids(&tp, ODCID, 8, NULL, 0, NULL, 0) == 0 &&
            quic_tparams_check_cids(&tp, ODCID, 8, SCID, 1, NULL, 0) == TPE, "wrong");
}

/* ------------------------------------------------------------ RFC 9001 A.2 */

static uint32_t be(const uint8_t *p, size_t n)
{
    uint32_t v = 0;
    while (n--)
        v = v << 8 | *p++;
    return v;
}

/* The body of extension `type` in a ClientHello message (RFC 8446 §4.1.2),
 * NULL when absent or malformed. */
static const uint8_t *find_ext(const uint8_t *m, size_t n, uint16_t type, size_t *len)
{
    const uint8_t *p = m, *end = m + n;
    if (n < 4 || p[0] != 0x01 || be(p + 1, 3) != n - 4)
        return NULL;
    p += 4 + 2 + 32;                       /* header, legacy_version, random */
    if (p >= end || (p += 1 + p[0]) > end) /* legacy_session_id */
        return NULL;
    if (end - p < 2 || (p += 2 + be(p, 2)) > end) /* cipher_suites */
        return NULL;
    if (p >= end || (p += 1 + p[0]) > end) /* legacy_compression_methods */
        return NULL;
    if (end - p < 2 || be(p, 2) != (size_t)(end - p - 2))
        return NULL;
    p += 2;
    while (end - p >= 4) {
        uint32_t t = be(p, 2), l = be(p + 2, 2);
        p += 4;
        if (l > (size_t)(end - p))
            return NULL;
        if (t == type) {
            *len = l;
            return p;
        }
        p += l;
    }
    return NULL;
}

static void test_rfc9001_a2(void)
{
    uint8_t b[256];
    size_t n = unhex(Q_A2_PLAIN, b, sizeof b), elen = 0;
    const uint8_t *p = b, *ext;
    struct quic_frame f;
    struct quic_tparams tp;
    int r;

    r = quic_frame_next(&p, b + n, &f);
    ext = r == 0 && f.kind == QUIC_FT_CRYPTO ? find_ext(f.crypto.data, f.crypto.len, 0x0039, &elen) : NULL;
    T_CHECK("RFC 9001 A.2: quic_transport_parameters (0x39) found in the CRYPTO frame's ClientHello",
            ext != NULL && elen == 0x32, "r=%d elen=%zu", r, elen);
    if (!ext)
        return;
    r = dec(&tp, ext, elen, false);
    T_CHECK("RFC 9001 A.2: the client's parameters decode (as a server would)", r == 0, "r=%d", r);
    T_CHECK("RFC 9001 A.2: initial_max_data 2^62-1, stream data 65535 each, 16 streams each way, idle 30 s",
            tp.initial_max_data == (1ull << 62) - 1 && tp.initial_max_stream_data_bidi_local == 65535 &&
            tp.initial_max_stream_data_bidi_remote == 65535 && tp.initial_max_stream_data_uni == 65535 &&
            tp.initial_max_streams_bidi == 16 && tp.initial_max_streams_uni == 16 && tp.max_idle_timeout == 30000,
            "max_data=%llu", (unsigned long long)tp.initial_max_data);
    T_CHECK("RFC 9001 A.2: initial_source_connection_id 8394c8f03e515708, the rest at defaults",
            tp.initial_scid.present && tp.initial_scid.len == 8 && memcmp(tp.initial_scid.id, ODCID, 8) == 0 &&
            tp.max_udp_payload_size == 65527 && tp.ack_delay_exponent == 3 && tp.max_ack_delay == 25 &&
            tp.active_connection_id_limit == 2 && !tp.disable_active_migration && !tp.original_dcid.present, "wrong");
    T_CHECK("RFC 9001 A.2: the same bytes from a server's side are fine too", dec(&tp, ext, elen, true) == 0, "wrong");

    /* Our encoder writes the same parameter set (in id order, same varints). */
    {
        uint8_t out[128];
        struct quic_tparams back;
        dec(&tp, ext, elen, false);
        size_t m = quic_tparams_encode(&tp, out, sizeof out);
        r = dec(&back, out, m, false);
        T_CHECK("RFC 9001 A.2: re-encoded, same length and same values", m == elen && r == 0 &&
                memcmp(&back, &tp, sizeof tp) == 0, "m=%zu r=%d", m, r);
    }
}

int main(void)
{
    test_decode_server();
    test_limits();
    test_encode();
    test_check_cids();
    test_rfc9001_a2();
    T_DONE();
}
