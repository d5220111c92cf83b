/* quic/tparams.h — QUIC transport parameters (RFC 9000 §7.3, §7.4, §18):
 * the client's, encoded for the quic_transport_parameters TLS extension
 * (RFC 9001 §8.2, type 0x39), and the server's, decoded and checked.
 *
 * Sans-I/O, no allocation; decoding copies the few values it keeps into
 * the caller's struct, so the extension bytes need not outlive it. */
#ifndef SHB_QUIC_TPARAMS_H
#define SHB_QUIC_TPARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic/frame.h" /* QUIC_TRANSPORT_PARAMETER_ERROR, QUIC_MAX_CID_LEN */

/* Transport parameter identifiers (§18.2). */
enum quic_tparam_id {
    QUIC_TP_ORIGINAL_DESTINATION_CONNECTION_ID = 0x00, /* server only */
    QUIC_TP_MAX_IDLE_TIMEOUT = 0x01,
    QUIC_TP_STATELESS_RESET_TOKEN = 0x02,              /* server only */
    QUIC_TP_MAX_UDP_PAYLOAD_SIZE = 0x03,
    QUIC_TP_INITIAL_MAX_DATA = 0x04,
    QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_LOCAL = 0x05,
    QUIC_TP_INITIAL_MAX_STREAM_DATA_BIDI_REMOTE = 0x06,
    QUIC_TP_INITIAL_MAX_STREAM_DATA_UNI = 0x07,
    QUIC_TP_INITIAL_MAX_STREAMS_BIDI = 0x08,
    QUIC_TP_INITIAL_MAX_STREAMS_UNI = 0x09,
    QUIC_TP_ACK_DELAY_EXPONENT = 0x0a,
    QUIC_TP_MAX_ACK_DELAY = 0x0b,
    QUIC_TP_DISABLE_ACTIVE_MIGRATION = 0x0c,
    QUIC_TP_PREFERRED_ADDRESS = 0x0d,                  /* server only */
    QUIC_TP_ACTIVE_CONNECTION_ID_LIMIT = 0x0e,
    QUIC_TP_INITIAL_SOURCE_CONNECTION_ID = 0x0f,
    QUIC_TP_RETRY_SOURCE_CONNECTION_ID = 0x10,         /* server only */
};

/* §18.2 defaults for absent parameters (0 for the rest). */
#define QUIC_TP_DEFAULT_MAX_UDP_PAYLOAD_SIZE 65527
#define QUIC_TP_DEFAULT_ACK_DELAY_EXPONENT 3
#define QUIC_TP_DEFAULT_MAX_ACK_DELAY 25 /* ms */
#define QUIC_TP_DEFAULT_ACTIVE_CID_LIMIT 2

struct quic_tp_cid {
    bool present;
    uint8_t len; /* 0..20; zero-length connection IDs are legal (§7.3) */
    uint8_t id[QUIC_MAX_CID_LEN];
};

struct quic_tparams {
    uint64_t max_idle_timeout;       /* ms; 0: none (§10.1) */
    uint64_t max_udp_payload_size;   /* >= 1200 */
    uint64_t initial_max_data;
    uint64_t initial_max_stream_data_bidi_local;
    uint64_t initial_max_stream_data_bidi_remote;
    uint64_t initial_max_stream_data_uni;
    uint64_t initial_max_streams_bidi; /* <= 2^60 */
    uint64_t initial_max_streams_uni;  /* <= 2^60 */
    uint64_t ack_delay_exponent;     /* <= 20 */
    uint64_t max_ack_delay;          /* ms, < 2^14 */
    uint64_t active_connection_id_limit; /* >= 2 */
    bool disable_active_migration;
    struct quic_tp_cid initial_scid;
    /* Server only (§18.2): decoded from a server, never encoded by us. */
    struct quic_tp_cid original_dcid;
    struct quic_tp_cid retry_scid;
    bool has_stateless_reset_token;
    uint8_t stateless_reset_token[16];
    bool has_preferred_address;      /* checked for shape, otherwise ignored (we do not migrate) */
};

/* Every field at its §18.2 default: zeros, max_udp_payload_size 65527,
 * ack_delay_exponent 3, max_ack_delay 25, active_connection_id_limit 2,
 * nothing present. */
void quic_tparams_defaults(struct quic_tparams *tp);

/* Encodes our (client) parameters into out: initial_source_connection_id
 * always (§7.3: its absence is an error), every other parameter a client
 * may send only when it differs from its default, and never a server-only
 * one (§18.2: original_destination_connection_id, preferred_address,
 * retry_source_connection_id, stateless_reset_token; those fields are
 * ignored). Returns the bytes written, or 0 when they do not fit room, or
 * when a value is one the server would have to reject (§18.2 limits above,
 * initial_scid absent or longer than 20). */
size_t quic_tparams_encode(const struct quic_tparams *tp, uint8_t *out, size_t room);

/* Decodes the peer's parameters (the extension body) into tp, which starts
 * from the defaults. from_server: the peer is a server (the one case shb
 * meets); false decodes a client's, which must not carry server-only ones
 * (§18.2). Unknown identifiers, reserved ones (31 * N + 27, §18.1) among
 * them, are skipped. Returns 0 or -QUIC_TRANSPORT_PARAMETER_ERROR for: a
 * truncated parameter; an integer whose varint does not fill its length
 * exactly; a value out of its §18.2 range; a known parameter twice (§7.4);
 * a server-only parameter from a client; a connection ID over 20 bytes; a
 * stateless reset token or preferred_address of the wrong size; a
 * preferred_address with a zero-length connection ID, or from a server
 * whose own connection ID is zero-length (§18.2). */
int quic_tparams_decode(struct quic_tparams *tp, const uint8_t *p, size_t len, bool from_server);

/* §7.3 connection-ID authentication of the server's parameters:
 *   odcid: the Destination Connection ID of our first Initial (before any Retry);
 *   scid: the Source Connection ID of the server's Initial;
 *   retry_scid: the Source Connection ID of the Retry we followed, NULL if none.
 * Returns 0, or -QUIC_TRANSPORT_PARAMETER_ERROR when initial_scid or
 * original_dcid is missing, retry_scid is present without a Retry or
 * missing after one, or any of them differs from the packets' value (§7.3
 * allows TRANSPORT_PARAMETER_ERROR or PROTOCOL_VIOLATION for the latter
 * three; one code keeps it simple). */
int quic_tparams_check_cids(const struct quic_tparams *tp, const uint8_t *odcid, size_t odcid_len,
                            const uint8_t *scid, size_t scid_len, const uint8_t *retry_scid, size_t retry_scid_len);

/* 0-RTT (RFC 9000 §7.4.1): the server's parameters a client remembers
 * with a session ticket, and the check of the new ones. quic_tparams_remember
 * keeps from the server's parameters what 0-RTT packets go by (limits,
 * max_idle_timeout, max_udp_payload_size, disable_active_migration) and
 * sets the rest to their defaults, as "a client MUST NOT use remembered
 * values" of ack_delay_exponent, max_ack_delay, the connection IDs,
 * preferred_address and stateless_reset_token. quic_tparams_check_0rtt:
 * after the server accepted 0-RTT, "a server that accepts 0-RTT data MUST
 * NOT set values ... that are smaller than the remembered values" of
 * active_connection_id_limit, initial_max_data, initial_max_stream_data_*
 * and initial_max_streams_*; 0, or -QUIC_PROTOCOL_VIOLATION (the error the
 * section names for the client's own breach of the same rule) naming the
 * parameter in *which (may be NULL). */
void quic_tparams_remember(struct quic_tparams *out, const struct quic_tparams *server);
int quic_tparams_check_0rtt(const struct quic_tparams *remembered, const struct quic_tparams *now, const char **which);

#endif
