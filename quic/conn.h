/* quic/conn.h — a QUIC version 1 client connection (RFC 9000, 9001, 9002),
 * sans-I/O: datagrams in with the current time, datagrams out into the
 * caller's buffer, the next timer deadline out.
 *
 * No syscalls, no clock reads, no allocation: the caller hands over one
 * block of quic_conn_size() bytes, in which live the TLS handshake, the keys
 * of every level, the sent-packet records (quic/recovery.h), the ranges
 * received (quic/ackset.h), a small pool for data that arrives ahead of
 * its stream's or CRYPTO level's offset, and the ring of request streams.
 *
 * Streams: the application opens client bidirectional streams in order
 * (ids 0, 4, 8, ...), each sending bytes the application keeps alive (shb's
 * request bytes are the same for every stream, so nothing is copied and a
 * loss retransmits from them) and FIN. Open streams live in a ring indexed
 * by stream number modulo its size: a new stream needs the slot of the one
 * QUIC_STREAM_RING earlier to be closed. Received bytes of every stream
 * (request streams and the server's unidirectional ones) are handed to the
 * application in order, through a callback, as they become contiguous.
 *
 * Left out on purpose (a benchmark client's needs): no server role, no
 * migration or path validation of our own (PATH_CHALLENGE is answered), no
 * DATAGRAM extension, no ECN, NewReno only, a fixed datagram
 * size (QUIC_DGRAM_SIZE, no PMTU discovery). */
#ifndef SHB_QUIC_CONN_H
#define SHB_QUIC_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic/counters.h"
#include "quic/packet.h"
#include "quic/recovery.h"
#include "tls13/choice.h"
#include "tls13/negotiated.h"

struct tls13_credential; /* tls13/credentials.h */
struct tls13_verify_config; /* tls13/verify.h */
struct tls13_verifier;

/* Every datagram we send is at most this long (RFC 9000 §14: 1200 is the
 * size every path must carry; the Initial padding minimum too). */
#define QUIC_DGRAM_SIZE 1200
/* The window of each unidirectional stream the server opens, unless the
 * config sets one: HTTP/3's control and QPACK streams carry little. */
#define QUIC_UNI_WINDOW (64u << 10)
/* Randomness per connection: our SCID, the first DCID, the TLS entropy. */
#define QUIC_CONN_ENTROPY 256

/* Where the connection stands. */
enum quic_conn_state {
    QUIC_HANDSHAKING,  /* not yet able to carry requests */
    QUIC_ESTABLISHED,  /* 1-RTT keys and the handshake complete: streams may be opened */
    QUIC_CLOSED,       /* over: see quic_conn_close_info; nothing more to feed or send */
};

/* Why it closed. */
enum quic_close_kind {
    QUIC_CLOSE_NONE,
    QUIC_CLOSE_LOCAL,          /* we closed it: error code below (0 for an orderly close) */
    QUIC_CLOSE_PEER,           /* the server's CONNECTION_CLOSE */
    QUIC_CLOSE_IDLE,           /* the idle timeout passed (RFC 9000 §10.1) */
    QUIC_CLOSE_STATELESS_RESET,/* a stateless reset (§10.3) */
    QUIC_CLOSE_VERSION,        /* Version Negotiation: the server does not speak version 1 */
    QUIC_CLOSE_HANDSHAKE,      /* the TLS handshake failed (alert in tls_alert) */
    QUIC_CLOSE_PN_EXHAUSTED,   /* our packet numbers ran out (RFC 9000 §12.3): closed without a word */
};

struct quic_close_info {
    enum quic_close_kind kind;
    bool app;                  /* the code is an application's (HTTP/3), not a transport one */
    uint64_t code;
    uint64_t frame_type;       /* transport errors: the frame that caused it, when known */
    int tls_alert;             /* QUIC_CLOSE_HANDSHAKE / CRYPTO_ERROR: the TLS alert, 0 if none */
    bool during_handshake;     /* it closed before QUIC_ESTABLISHED */
    char reason[64];           /* the peer's reason phrase (cut short), or ours */
};

struct quic_conn_callbacks {
    /* The next bytes of stream `id`, in order; fin: they end it. Request
     * streams (id % 4 == 0) and the server's unidirectional ones (id % 4 ==
     * 3). Data for a stream already closed is never delivered. */
    void (*stream_data)(void *ctx, uint64_t id, const uint8_t *p, size_t n, bool fin);
    /* The server reset stream `id` (RESET_STREAM) or asked us to stop
     * sending on it (STOP_SENDING); the stream stays open until the
     * application closes it. */
    void (*stream_reset)(void *ctx, uint64_t id, uint64_t code, bool stop_sending);
};

struct quic_conn_config {
    const char *server_name;   /* SNI, NULL for an IP literal */
    const uint8_t *alpn;       /* protocol_name_list body, e.g. "\x02h3" */
    size_t alpn_len;
    uint32_t max_streams;      /* request streams open at once (-p); the ring holds twice that */
    uint64_t stream_window;    /* receive window per request stream (initial_max_stream_data_bidi_local) */
    uint64_t conn_window;      /* connection receive window (initial_max_data) */
    uint64_t uni_window;       /* receive window per server unidirectional stream (initial_max_stream_data_uni);
                                  0: QUIC_UNI_WINDOW */
    uint64_t idle_timeout_ns;  /* our max_idle_timeout */
    const struct tls_choice *tls; /* TLS 1.3 suites and groups chosen (RFC 9001 §4: QUIC's TLS); NULL: all */
    const struct tls13_credential *cred; /* --cert/--key for a server that asks (tls13/credentials.h), or NULL */
    /* --cacert (tls13/verify.h): what the worker makes each slot's verifier
     * from, or NULL; and the connection's verifier, set on the worker's
     * per-slot copy of this config (NULL: trust every certificate). */
    const struct tls13_verify_config *verify;
    struct tls13_verifier *verifier;
    /* The key share group when not the first chosen: the one a
     * HelloRetryRequest asked for on an earlier connection
     * (tls13_hs_config.key_share_group), set on the worker's per-slot copy;
     * 0: the first. */
    uint16_t key_share_group;
    /* Start values for tests (shb's test build: SHB_TEST_QUIC_*, shb.c);
     * 0 means the default. key_update_after: 1-RTT packets we send per key
     * phase before we update our keys (default 2^22, RFC 9001 §6.6).
     * first_app_pn: the first packet number of the 1-RTT space, at most
     * QUIC_FIRST_APP_PN_MAX so that the first packet's 4-byte encoding
     * stays unambiguous (§17.1). RFC 9000 §12.3 starts every space at 0:
     * a test-only departure, which a server sees as numbers skipped (they
     * need only increase, §12.3; §21.4 lets a sender skip). */
    uint64_t key_update_after;
    uint64_t first_app_pn;
    /* The test build only (-DSHB_TEST_KNOBS): 1-RTT packet numbers jump
     * towards this one (above first_app_pn; 0: no jumps) whenever nothing
     * of ours is in flight, by at most 2^30 past the largest acknowledged
     * each time, so that both sides' 4-byte windows hold (RFC 9000 §17.1;
     * numbers need only increase, §12.3, and may skip, §21.4). How numbers
     * past 2^32 are reached in seconds. */
    uint64_t app_pn_target;
};

/* RFC 9000 §17.1: before any acknowledgment, a packet number must fit a
 * range twice as large as itself plus one in at most 4 bytes: the first
 * 1-RTT packet number is at most 2^31 - 2. */
#define QUIC_FIRST_APP_PN_MAX ((UINT64_C(1) << 31) - 2)

struct quic_conn;
struct tls13_resume; /* tls13/handshake.h */
struct quic_tparams; /* quic/tparams.h */

/* Bytes of the block quic_conn_init takes for this config. */
size_t quic_conn_size(const struct quic_conn_config *cfg);

/* Starts the connection in mem (quic_conn_size bytes, any alignment of 16):
 * queues the ClientHello. cfg and what it points to must outlive the
 * connection. Returns the connection, or NULL with *err set for a config
 * that cannot work. */
struct quic_conn *quic_conn_init(void *mem, const struct quic_conn_config *cfg, const uint8_t entropy[QUIC_CONN_ENTROPY],
                                 const struct quic_conn_callbacks *cb, void *ctx, uint64_t now);
/* The same with --tls-resume's ticket to offer and ticket callback
 * (tls13/handshake.h; copied, NULL for none). The NewSessionTicket comes in
 * 1-RTT CRYPTO frames (RFC 9001 §4.1.3). --early-data: with
 * resume->early_data, a ticket that allows 0-RTT (RFC 9001 §4.6.1) and
 * remembered, the server's transport parameters of the connection that
 * brought the ticket (quic_tparams_remember of quic_conn_peer_tparams;
 * copied), 0-RTT is offered: request and unidirectional streams may then
 * be opened at once (quic_conn_can_open) and go in 0-RTT packets within
 * the remembered limits (RFC 9000 §7.4.1). Without remembered, no 0-RTT. */
struct quic_conn *quic_conn_init_resume(void *mem, const struct quic_conn_config *cfg,
                                        const uint8_t entropy[QUIC_CONN_ENTROPY], const struct quic_conn_callbacks *cb,
                                        void *ctx, uint64_t now, const struct tls13_resume *resume,
                                        const struct quic_tparams *remembered);
/* The handshake resumed a session with a ticket's PSK (RFC 8446 §2.2). */
bool quic_conn_resumed(const struct quic_conn *c);
/* The group a HelloRetryRequest of the handshake asked for (RFC 8446
 * §4.1.4, tls13_hs_hrr_group), 0 for none. */
uint16_t quic_conn_hrr_group(const struct quic_conn *c);
/* The server's transport parameters, once established: what a ticket it
 * sends on this connection is remembered with. */
const struct quic_tparams *quic_conn_peer_tparams(const struct quic_conn *c);

/* Where 0-RTT stands (RFC 9001 §4.6). OPEN: offered, 0-RTT keys in hand,
 * no verdict yet; ACCEPTED: the server's EncryptedExtensions took it (the
 * streams' bytes count as sent); REJECTED: a HelloRetryRequest or the
 * EncryptedExtensions refused it, and every byte sent in 0-RTT packets
 * goes again in 1-RTT ones (RFC 9001 §4.6.2), nothing for the application
 * to do. */
enum quic_early { QUIC_EARLY_NONE, QUIC_EARLY_OPEN, QUIC_EARLY_ACCEPTED, QUIC_EARLY_REJECTED };
enum quic_early quic_conn_early(const struct quic_conn *c);
/* 0-RTT packets can be sent now: before the handshake completes, streams
 * (quic_conn_open_uni, and quic_conn_open when quic_conn_can_open) go in
 * them. */
bool quic_conn_early_keys(const struct quic_conn *c);

/* A datagram received (len bytes at dgram, modified in place). Packets are
 * processed, acknowledgements and losses handled; callbacks run from
 * here. */
void quic_conn_input(struct quic_conn *c, uint8_t *dgram, size_t len, uint64_t now);

/* Builds what is to be sent now into out (cap bytes): datagrams of
 * *seg_size bytes each, the last one possibly shorter (UDP GSO's layout),
 * at most max_dgrams of them. Returns the total bytes (0: nothing to send). */
size_t quic_conn_output(struct quic_conn *c, uint8_t *out, size_t cap, size_t max_dgrams, size_t *seg_size,
                        uint64_t now);

/* When quic_conn_timeout must next be called (ns on the caller's clock);
 * UINT64_MAX: no timer. */
uint64_t quic_conn_deadline(const struct quic_conn *c);
/* Timers that passed (loss detection, PTO, ACK delay, idle, closing). */
void quic_conn_timeout(struct quic_conn *c, uint64_t now);

enum quic_conn_state quic_conn_state(const struct quic_conn *c);
const struct quic_close_info *quic_conn_close_info(const struct quic_conn *c);
const struct quic_conn_counters *quic_conn_counters(struct quic_conn *c);
/* The ALPN protocol the server chose ("" if none). */
const char *quic_conn_alpn(const struct quic_conn *c);
/* What the TLS 1.3 handshake inside settled on (RFC 9001 §4): once established. */
void quic_conn_negotiated(const struct quic_conn *c, struct tls_negotiated *out);

/* Whether a request stream can be opened now (established or 0-RTT keys
 * in hand, under the server's MAX_STREAMS (the remembered one in 0-RTT) and
 * our max_streams, its ring slot free). When the
 * server's limit holds us back, a STREAMS_BLOCKED goes out (§4.6). */
bool quic_conn_can_open(struct quic_conn *c);
/* Opens the next request stream, sending data[0..len) then FIN; returns
 * its id. Only after quic_conn_can_open said yes. */
uint64_t quic_conn_open(struct quic_conn *c, const uint8_t *data, size_t len);
/* Opens one of our unidirectional streams (HTTP/3 control and QPACK
 * streams) with data that is never followed by FIN. Returns its id, or
 * UINT64_MAX when the server allows no more. */
uint64_t quic_conn_open_uni(struct quic_conn *c, const uint8_t *data, size_t len);
/* The application is done with request stream id: its slot is free for a
 * later stream and anything still arriving for it is dropped. code != 0:
 * the stream is abandoned (a timeout): STOP_SENDING and RESET_STREAM with
 * that application error code go out. */
void quic_conn_close_stream(struct quic_conn *c, uint64_t id, uint64_t code);
/* Ring slot of request stream id (for the application's own per-stream
 * state): id / 4 % quic_conn_ring(c). */
uint32_t quic_conn_slot(const struct quic_conn *c, uint64_t id);
uint32_t quic_conn_ring(const struct quic_conn *c);
/* The same, before any connection exists (the application sizes its
 * per-stream state once). */
uint32_t quic_conn_ring_for(const struct quic_conn_config *cfg);
/* The request streams open now. */
uint32_t quic_conn_open_streams(const struct quic_conn *c);

/* Closes the connection: CONNECTION_CLOSE (app: an application error
 * code, e.g. H3_NO_ERROR; else a transport one) goes out with the next
 * output, then the connection is QUIC_CLOSED. */
void quic_conn_close(struct quic_conn *c, bool app, uint64_t code, const char *reason);

#endif
