/* quic/tparams.c — QUIC transport parameters (RFC 9000 §7.3, §7.4, §18).
 * See tparams.h. */
#include "quic/tparams.h"

#include <string.h>

#include "quic/varint.h"

#define TPE (-QUIC_TRANSPORT_PARAMETER_ERROR)

void quic_tparams_defaults(struct quic_tparams *tp)
{
    memset(tp, 0, sizeof *tp);
    tp->max_udp_payload_size = QUIC_TP_DEFAULT_MAX_UDP_PAYLOAD_SIZE;
    tp->ack_delay_exponent = QUIC_TP_DEFAULT_ACK_DELAY_EXPONENT;
    tp->max_ack_delay = QUIC_TP_DEFAULT_MAX_ACK_DELAY;
    tp->active_connection_id_limit = QUIC_TP_DEFAULT_ACTIVE_CID_LIMIT;
}

/* The §18.2 range of each integer parameter; false when v is outside it. */
static bool int_valid(uint64_t id, uint64_t v)
{
    switch (id) {
    case QUIC_TP_MAX_UDP_PAYLOAD_SIZE:
        return v >= 1200; /* "Values below 1200 are invalid." */
    case QUIC_TP_ACK_DELAY_EXPONENT:
        return v <= 20; /* "Values above 20 are invalid." */
    case QUIC_TP_MAX_ACK_DELAY:
        return v < (1u << 14); /* "Values of 2^14 or greater are invalid." */
    case QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT:
        return v >= 2; /* "MUST be at least 2" */
    case QUIC_TP_INITIAL_MAX_STREAMS_BIDI:
    case QUIC_TP_INITIAL_MAX_STREAMS_UNI:
        /* §18.2: "equivalent to sending a MAX_STREAMS", whose limit is 2^60 (§19.11) */
        return v <= QUIC_MAX_STREAMS_LIMIT;
    default:
        return true;
    }
}

/* --- encoding ------------------------------------------------------------- */

/* One (id, length, value) tuple (§18 Figure 21) with an integer value. */
static uint8_t *put_int(uint8_t *w, const uint8_t *end, uint64_t id, uint64_t v)
{
    w = quic_varint_put(w, end, id);
    w = quic_varint_put(w, end, quic_varint_size(v));
    return quic_varint_put(w, end, v);
}

/* An integer parameter, only when it differs from its default (the peer
 * then assumes the same value, §18.2). */
static uint8_t *put_int_opt(uint8_t *w, const uint8_t *end, uint64_t id, uint64_t v, uint64_t dflt)
{
    return v == dflt ? w : put_int(w, end, id, v);
}

size_t quic_tparams_encode(const struct quic_tparams *tp, uint8_t *out, size_t room)
{
    static const uint8_t ints[] = {
        QUIC_TP_MAX_IDLE_TIMEOUT, QUIC_TP_MAX_UDP_PAYLOAD_SIZE, QUIC_TP_INITIAL_MAX_DATA,
        QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL, QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE,
        QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI, QUIC_TP_INITIAL_MAX_STREAMS_BIDI, QUIC_TP_INITIAL_MAX_STREAMS_UNI,
        QUIC_TP_ACK_DELAY_EXPONENT, QUIC_TP_MAX_ACK_DELAY, QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT,
    };
    const uint64_t vals[] = {
        tp->max_idle_timeout, tp->max_udp_payload_size, tp->initial_max_data,
        tp->initial_max_stream_data_bidi_local, tp->initial_max_stream_data_bidi_remote,
        tp->initial_max_stream_data_uni, tp->initial_max_streams_bidi, tp->initial_max_streams_uni,
        tp->ack_delay_exponent, tp->max_ack_delay, tp->active_connection_id_limit,
    };
    const uint64_t dflts[] = {
        0, QUIC_TP_DEFAULT_MAX_UDP_PAYLOAD_SIZE, 0, 0, 0, 0, 0, 0,
        QUIC_TP_DEFAULT_ACK_DELAY_EXPONENT, QUIC_TP_DEFAULT_MAX_ACK_DELAY, QUIC_TP_DEFAULT_ACTIVE_CID_LIMIT,
    };
    const uint8_t *end = out + room;
    uint8_t *w = out;

    /* §7.3: each endpoint MUST send initial_source_connection_id. */
    if (!tp->initial_scid.present || tp->initial_scid.len > QUIC_MAX_CID_LEN)
        return 0;
    for (size_t i = 0; i < sizeof ints; i++) {
        if (!int_valid(ints[i], vals[i]))
            return 0;
        w = put_int_opt(w, end, ints[i], vals[i], dflts[i]);
    }
    if (tp->disable_active_migration) { /* a zero-length value (§18.2) */
        w = quic_varint_put(w, end, QUIC_TP_DISABLE_ACTIVE_MIGRATION);
        w = quic_varint_put(w, end, 0);
    }
    w = quic_varint_put(w, end, QUIC_TP_INITIAL_SOURCE_CONNECTION_ID);
    w = quic_varint_put(w, end, tp->initial_scid.len);
    if (w == NULL || (size_t)(end - w) < tp->initial_scid.len)
        return 0;
    memcpy(w, tp->initial_scid.id, tp->initial_scid.len);
    w += tp->initial_scid.len;
    return (size_t)(w - out);
}

/* --- decoding ------------------------------------------------------------- */

static int get_cid(struct quic_tp_cid *c, const uint8_t *v, uint64_t len)
{
    if (len > QUIC_MAX_CID_LEN) /* RFC 9000 §17.2: v1 connection IDs are at most 20 bytes */
        return TPE;
    c->present = true;
    c->len = (uint8_t)len;
    memcpy(c->id, v, (size_t)len);
    return 0;
}

/* preferred_address (§18.2 Figure 22): 4 + 2 + 16 + 2 bytes of addresses,
 * a connection ID length and the connection ID, a 16-byte reset token.
 * shb never migrates, so only its shape is checked. */
static int check_preferred_address(const uint8_t *v, uint64_t len)
{
    uint8_t cid_len;

    if (len < 4 + 2 + 16 + 2 + 1 + 16)
        return TPE;
    cid_len = v[4 + 2 + 16 + 2];
    /* "a server MUST NOT include a zero-length connection ID in this
     * transport parameter", and a CID is at most 20 bytes (§17.2). */
    if (cid_len == 0 || cid_len > QUIC_MAX_CID_LEN)
        return TPE;
    if (len != 4 + 2 + 16 + 2 + 1 + (uint64_t)cid_len + 16)
        return TPE;
    return 0;
}

static uint64_t *int_field(struct quic_tparams *tp, uint64_t id)
{
    switch (id) {
    case QUIC_TP_MAX_IDLE_TIMEOUT: return &tp->max_idle_timeout;
    case QUIC_TP_MAX_UDP_PAYLOAD_SIZE: return &tp->max_udp_payload_size;
    case QUIC_TP_INITIAL_MAX_DATA: return &tp->initial_max_data;
    case QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL: return &tp->initial_max_stream_data_bidi_local;
    case QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE: return &tp->initial_max_stream_data_bidi_remote;
    case QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI: return &tp->initial_max_stream_data_uni;
    case QUIC_TP_INITIAL_MAX_STREAMS_BIDI: return &tp->initial_max_streams_bidi;
    case QUIC_TP_INITIAL_MAX_STREAMS_UNI: return &tp->initial_max_streams_uni;
    case QUIC_TP_ACK_DELAY_EXPONENT: return &tp->ack_delay_exponent;
    case QUIC_TP_MAX_ACK_DELAY: return &tp->max_ack_delay;
    case QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT: return &tp->active_connection_id_limit;
    default: return NULL;
    }
}

/* One known parameter's value v[0..len). */
static int dec_param(struct quic_tparams *tp, uint64_t id, const uint8_t *v, uint64_t len, bool from_server)
{
    uint64_t *field = int_field(tp, id);

    if (field) {
        /* §18.2: integer values are one varint, which must fill the length. */
        const uint8_t *q = v;
        uint64_t x;
        if (quic_varint_get(&q, v + len, &x) != 0 || q != v + len || !int_valid(id, x))
            return TPE; /* §7.4: an invalid value is a TRANSPORT_PARAMETER_ERROR */
        *field = x;
        return 0;
    }
    /* §18.2: "A server MUST treat receipt of any of these [server-only]
     * transport parameters as a connection error of type
     * TRANSPORT_PARAMETER_ERROR." */
    if (!from_server && (id == QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID || id == QUIC_TP_STATELESS_RESET_TOKEN ||
                         id == QUIC_TP_PREFERRED_ADDRESS || id == QUIC_TP_RETRY_SOURCE_CONNECTION_ID))
        return TPE;
    switch (id) {
    case QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID:
        return get_cid(&tp->original_dcid, v, len);
    case QUIC_TP_INITIAL_SOURCE_CONNECTION_ID:
        return get_cid(&tp->initial_scid, v, len);
    case QUIC_TP_RETRY_SOURCE_CONNECTION_ID:
        return get_cid(&tp->retry_scid, v, len);
    case QUIC_TP_STATELESS_RESET_TOKEN:
        if (len != 16) /* "a sequence of 16 bytes" */
            return TPE;
        memcpy(tp->stateless_reset_token, v, 16);
        tp->has_stateless_reset_token = true;
        return 0;
    case QUIC_TP_DISABLE_ACTIVE_MIGRATION:
        if (len != 0) /* "a zero-length value" */
            return TPE;
        tp->disable_active_migration = true;
        return 0;
    case QUIC_TP_PREFERRED_ADDRESS:
        if (check_preferred_address(v, len) != 0)
            return TPE;
        tp->has_preferred_address = true;
        return 0;
    default:
        return 0;
    }
}

int quic_tparams_decode(struct quic_tparams *tp, const uint8_t *p, size_t len, bool from_server)
{
    const uint8_t *end = p + len;
    uint32_t seen = 0; /* one bit per known identifier, 0x00..0x10 */

    quic_tparams_defaults(tp);
    while (p < end) {
        uint64_t id, n;
        const uint8_t *v;
        int r;
        if (quic_varint_get(&p, end, &id) != 0 || quic_varint_get(&p, end, &n) != 0 || n > (uint64_t)(end - p))
            return TPE;
        v = p;
        p += n;
        /* Unknown and reserved (§18.1) identifiers are skipped: §7.4.2
         * requires ignoring parameters we do not understand. */
        if (id > QUIC_TP_RETRY_SOURCE_CONNECTION_ID)
            continue;
        /* §7.4: "An endpoint SHOULD treat receipt of duplicate transport
         * parameters as a connection error of type TRANSPORT_PARAMETER_ERROR." */
        if (seen & (1u << id))
            return TPE;
        seen |= 1u << id;
        r = dec_param(tp, id, v, n, from_server);
        if (r)
            return r;
    }
    /* §18.2: "A server that chooses a zero-length connection ID MUST NOT
     * provide a preferred address"; the client treats it as a
     * TRANSPORT_PARAMETER_ERROR. The server's chosen connection ID is its
     * initial_source_connection_id (§7.3). */
    if (tp->has_preferred_address && tp->initial_scid.present && tp->initial_scid.len == 0)
        return TPE;
    return 0;
}

static bool cid_eq(const struct quic_tp_cid *c, const uint8_t *id, size_t len)
{
    return c->present && c->len == len && (len == 0 || memcmp(c->id, id, len) == 0);
}

int quic_tparams_check_cids(const struct quic_tparams *tp, const uint8_t *odcid, size_t odcid_len,
                            const uint8_t *scid, size_t scid_len, const uint8_t *retry_scid, size_t retry_scid_len)
{
    /* §7.3: "An endpoint MUST treat the absence of the
     * initial_source_connection_id transport parameter from either endpoint
     * or the absence of the original_destination_connection_id transport
     * parameter from the server as a connection error of type
     * TRANSPORT_PARAMETER_ERROR." */
    if (!tp->initial_scid.present || !tp->original_dcid.present)
        return TPE;
    /* §7.3: the values MUST match the DCID of the client's first Initial
     * and the SCID of the server's Initial. */
    if (!cid_eq(&tp->original_dcid, odcid, odcid_len) || !cid_eq(&tp->initial_scid, scid, scid_len))
        return TPE;
    /* §7.3: retry_source_connection_id absent after a Retry, present
     * without one, or different from the Retry's SCID: an error. */
    if (retry_scid == NULL)
        return tp->retry_scid.present ? TPE : 0;
    return cid_eq(&tp->retry_scid, retry_scid, retry_scid_len) ? 0 : TPE;
}

void quic_tparams_remember(struct quic_tparams *out, const struct quic_tparams *server)
{
    quic_tparams_defaults(out);
    out->max_idle_timeout = server->max_idle_timeout;
    out->max_udp_payload_size = server->max_udp_payload_size;
    out->initial_max_data = server->initial_max_data;
    out->initial_max_stream_data_bidi_local = server->initial_max_stream_data_bidi_local;
    out->initial_max_stream_data_bidi_remote = server->initial_max_stream_data_bidi_remote;
    out->initial_max_stream_data_uni = server->initial_max_stream_data_uni;
    out->initial_max_streams_bidi = server->initial_max_streams_bidi;
    out->initial_max_streams_uni = server->initial_max_streams_uni;
    out->active_connection_id_limit = server->active_connection_id_limit;
    out->disable_active_migration = server->disable_active_migration;
}

int quic_tparams_check_0rtt(const struct quic_tparams *remembered, const struct quic_tparams *now, const char **which)
{
    /* RFC 9000 §7.4.1's list, in its order. */
    const struct {
        const char *name;
        uint64_t was, is;
    } limits[] = {
        { "active_connection_id_limit", remembered->active_connection_id_limit, now->active_connection_id_limit },
        { "initial_max_data", remembered->initial_max_data, now->initial_max_data },
        { "initial_max_stream_data_bidi_local", remembered->initial_max_stream_data_bidi_local,
          now->initial_max_stream_data_bidi_local },
        { "initial_max_stream_data_bidi_remote", remembered->initial_max_stream_data_bidi_remote,
          now->initial_max_stream_data_bidi_remote },
        { "initial_max_stream_data_uni", remembered->initial_max_stream_data_uni, now->initial_max_stream_data_uni },
        { "initial_max_streams_bidi", remembered->initial_max_streams_bidi, now->initial_max_streams_bidi },
        { "initial_max_streams_uni", remembered->initial_max_streams_uni, now->initial_max_streams_uni },
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        if (limits[i].is < limits[i].was) {
            if (which)
                *which = limits[i].name;
            return -QUIC_PROTOCOL_VIOLATION;
        }
    return 0;
}
