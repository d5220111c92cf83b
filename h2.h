/* h2.h — HTTP/2 client connection engine (RFC 9113), sans-I/O.
 *
 * Bytes from the transport go in through h2_recv; what the connection wants
 * to write accumulates in its output buffer (h2_out / h2_out_ack: the caller
 * sends it once per loop turn and acknowledges what the kernel took). Stream
 * outcomes come back through a callback. No syscalls, no clock (the caller
 * passes two words per request, e.g. its start times), and no allocation: the
 * caller gives each connection one block of h2_conn_size() bytes at start-up.
 *
 * Transport-agnostic: the same engine runs over TCP (h2c with prior
 * knowledge) and over TLS with ALPN "h2" (worker/session_h2.c). */
#ifndef SHB_H2_H
#define SHB_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpack.h"

/* One request of a list (--targets): its header block and body. */
struct h2_request {
    const uint8_t *block;         /* hpack_encode_request() output */
    size_t block_len;
    const uint8_t *body;
    size_t body_len;              /* at most 4 GiB (a stream counts what it sent in 32 bits) */
    bool has_body;
    bool head;
};

/* What every connection of a run shares (read-only, built once by main). */
struct h2_config {
    const uint8_t *request_block; /* hpack_encode_request() output */
    size_t request_block_len;
    const uint8_t *body;          /* request body (-d), sent as DATA frames */
    size_t body_len;
    bool has_body;                /* END_STREAM goes on HEADERS when false */
    bool head;                    /* HEAD requests: responses have no content, content-length is not
                                     checked against DATA (RFC 9113 §8.1.1, RFC 9110 §9.3.2) */
    uint32_t parallel;            /* -p: streams in flight per connection, before the peer's limit */
    /* hpack_encode_request_indexed() output, or NULL: every stream then
     * sends request_block. With it, a connection's first stream sends
     * `first` (inserting the fields into the peer's dynamic table) and the
     * later ones `next` (referring to them), until the peer's SETTINGS
     * lower SETTINGS_HEADER_TABLE_SIZE below the 4096 bytes they start at;
     * from then on request_block, the first time behind a table size
     * update to 0 (RFC 7541 §4.2). */
    const uint8_t *request_first, *request_next;
    size_t request_first_len, request_next_len;
    /* A request list (--targets): h2_start's `req` picks the one a stream
     * sends; request_block, body, has_body, head and the indexed blocks are
     * then unused (each stream sends its plain block: one dynamic table
     * cannot index many requests' fields at once). NULL: the one request
     * above, whatever `req` is. */
    const struct h2_request *requests;
    uint32_t nrequests;
    /* The first stream id of every connection: 0 means 1. Odd, at most
     * 2^31-1. Only tests set it (the test build's SHB_TEST_H2_FIRST_STREAM_ID,
     * shb.c), to reach stream id exhaustion in a few requests. */
    uint32_t first_stream_id;
    /* What we advertise and enforce on receive (-w, -W, --max-frame-size,
     * --header-table-size); NULL: h2_local_defaults. */
    const struct h2_local *local;
};

/* Our side of the connection (RFC 9113 §6.5.2, §6.9.2), chosen once per
 * run. Every value is what the SETTINGS or the WINDOW_UPDATE we send say,
 * and what the receive path holds the peer to. */
struct h2_local {
    uint32_t header_table_size; /* SETTINGS_HEADER_TABLE_SIZE: our HPACK decoder's table, 0..HPACK_TABLE_MAX.
                                   The table still starts at 4096 (RFC 7541 §4.2) until the peer's encoder
                                   signals a size update; an update above this is a COMPRESSION_ERROR (§6.3) */
    uint32_t stream_window;     /* SETTINGS_INITIAL_WINDOW_SIZE, 0..2^31-1 (§6.5.2) */
    uint32_t conn_window;       /* the connection's receive window, 0..2^31-1: it starts at 65,535 and only
                                   WINDOW_UPDATE moves it (§6.9.2), so one after the preface raises it, and a
                                   smaller one is reached by holding credit back until the peer is under it */
    uint32_t max_frame_size;    /* SETTINGS_MAX_FRAME_SIZE, 16384..2^24-1 (§6.5.2): the largest frame we take */
};
extern const struct h2_local h2_local_defaults;

/* Our defaults (h2_local_defaults; RFC 9113 §6.5.2). HEADER_TABLE_SIZE 0
 * asks the peer not to index, so responses normally decode without a
 * dynamic table; peers that index anyway are decoded with a real table
 * (h2.c, hpack.h). The windows are 2^N - 1 as h2load's -w/-W N make them:
 * -w 24 and -W 30 are the defaults. */
#define H2_OUR_HEADER_TABLE_SIZE 0
#define H2_OUR_INITIAL_WINDOW ((1u << 24) - 1) /* per stream */
#define H2_OUR_CONN_WINDOW ((1u << 30) - 1)    /* connection, raised by a WINDOW_UPDATE after the preface */
#define H2_OUR_MAX_FRAME_SIZE 16384
#define H2_WINDOW_BITS_MAX 30                  /* -w/-W N: 0..30, as h2load (2^31-1 is §6.9.1's ceiling) */
#define H2_MAX_FRAME_SIZE_MAX 16777215         /* §6.5.2: 2^24-1 */

/* Connection-level failures: h2_recv returns one of these (negative) after
 * queueing a GOAWAY with the matching error code (§7), and reports every open
 * stream through H2_EV_ABORTED. The caller sends what is queued and closes. */
#define H2_ERR_PROTOCOL (-1)     /* PROTOCOL_ERROR: frame on wrong stream, bad preface reply, PUSH_PROMISE... */
#define H2_ERR_FRAME_SIZE (-2)   /* FRAME_SIZE_ERROR (§4.2) */
#define H2_ERR_COMPRESSION (-3)  /* COMPRESSION_ERROR (§4.3): hpack failure */
#define H2_ERR_FLOW_CONTROL (-4) /* FLOW_CONTROL_ERROR (§6.9.1): window overflow or peer overran ours */
#define H2_ERR_OUT_FULL (-5)     /* a control frame (PING/SETTINGS ACK) did not fit: the peer floods us */
#define H2_ERR_PEER_GOAWAY (-6)  /* peer sent GOAWAY with an error code != NO_ERROR: stream outcomes were reported */
#define H2_ERR_CALM (-7)         /* ENHANCE_YOUR_CALM (§10.5): a field block over H2_MAX_FIELD_BLOCK, or over
                                    H2_MAX_CTL_FLOOD PING/SETTINGS frames with no response progress between them */

/* Limits on what a server may make us do (RFC 9113 §10.5, §10.5.1). A field
 * block (HEADERS + CONTINUATION, 9 bytes of frame header counted per frame,
 * so empty frames count too) over 1 MiB, the HTTP/1.1 head limit, ends the
 * connection: it must be decoded whole to keep HPACK in step, so it cannot
 * just be dropped. So do a response's blocks together (endless 1xx). PING and SETTINGS frames each ask for an answer; more than
 * 1000 of them without a response byte (HEADERS or DATA on an open stream)
 * between them is a flood. Empty DATA and unknown frames cost only reading
 * and are tolerated. */
#define H2_MAX_FIELD_BLOCK (1u << 20)
#define H2_MAX_CTL_FLOOD 1000

enum h2_event_kind {
    H2_EV_RESPONSE,   /* stream complete (END_STREAM after headers/data/trailers); status = final :status */
    H2_EV_RESET,      /* the peer reset the stream (RST_STREAM, error_code) : an error of its own kind */
    H2_EV_MALFORMED,  /* the response broke the rules (§8.1.1: no :status, two, not 3 digits, 101, a 1xx
                         with END_STREAM, pseudo-headers in trailers; or a bad WINDOW_UPDATE, §6.9): we
                         reset the stream (PROTOCOL_ERROR / FLOW_CONTROL_ERROR in error_code) */
    H2_EV_RETRY,      /* the peer did not process the stream (GOAWAY last-stream-id below it, or
                         RST_STREAM REFUSED_STREAM §8.7): send the request again elsewhere, count nothing */
    H2_EV_ABORTED,    /* the connection failed (protocol error, or h2_conn_lost) with this stream open */
};

struct h2_event {
    enum h2_event_kind kind;
    uint32_t stream_id;
    uint64_t tag, tag2;   /* what the caller passed to h2_start */
    uint32_t req;         /* ... and its req */
    uint64_t first_byte_at; /* response_started: the `now` of the h2_recv call that brought the first
                               response HEADERS (the caller times the first byte with it); else 0 */
    uint32_t error_code;  /* H2_EV_RESET: RST_STREAM code; H2_EV_MALFORMED: the code we sent */
    uint64_t recv_bytes;  /* the response's bytes so far: its field blocks (1xx included) and DATA
                             payloads (padding excluded) */
    uint16_t status;      /* H2_EV_RESPONSE */
    bool response_started; /* some response HEADERS (a 1xx's included) had arrived; always for RESPONSE */
    bool peer_progress;   /* H2_EV_RETRY: the server processed some stream of this connection
                             (a GOAWAY whose last-stream-id is not 0) */
};

typedef void (*h2_event_fn)(void *ctx, const struct h2_event *ev);

struct h2_conn; /* opaque; lives in the caller's block */

/* Bytes a connection needs for this config (struct, stream ring, buffers). */
size_t h2_conn_size(const struct h2_config *cfg);

/* Starts a connection in mem (h2_conn_size bytes, suitably aligned): queues
 * the preface, our SETTINGS and the connection WINDOW_UPDATE. May be called
 * again on the same memory for a new connection. */
struct h2_conn *h2_conn_init(void *mem, const struct h2_config *cfg);

/* True when a new stream may start now: fewer than min(parallel, peer's
 * MAX_CONCURRENT_STREAMS) open, no GOAWAY received, stream ids left, its ring
 * slot free, and room in the output buffer for its frames. */
bool h2_can_start(const struct h2_conn *c);

/* Opens the next stream and queues its HEADERS (and DATA as the windows
 * allow): request req of cfg->requests (0 without a list). Returns the
 * stream id, or 0 if !h2_can_start. */
uint32_t h2_start(struct h2_conn *c, uint64_t tag, uint64_t tag2, uint32_t req);

/* Feeds received bytes (any split). Calls fn for every stream outcome.
 * now: when the bytes arrived, in the caller's units; the engine only hands
 * it back (first_byte_at). Returns 0, or an H2_ERR_* after which the
 * connection is finished. */
int h2_recv(struct h2_conn *c, const uint8_t *p, size_t n, uint64_t now, h2_event_fn fn, void *ctx);

/* An error code's name (RFC 9113 §7): "INTERNAL_ERROR"; NULL when unknown. */
const char *h2_error_name(uint32_t code);
/* What an H2_ERR_* from h2_recv means, in a few words, for the report. */
const char *h2_recv_error_text(int err);

/* The transport closed or failed: every open stream is reported (H2_EV_RETRY
 * for streams above a GOAWAY's last-stream-id, H2_EV_ABORTED otherwise). */
void h2_conn_lost(struct h2_conn *c, h2_event_fn fn, void *ctx);

/* Pending output: the bytes from the start of the buffer. The caller sends
 * them (all or part) and then acknowledges how many the kernel took; until
 * then those bytes stay put (new frames are appended after them). */
const uint8_t *h2_out(const struct h2_conn *c, size_t *len);
void h2_out_ack(struct h2_conn *c, size_t n);

/* Streams open right now. */
uint32_t h2_open_streams(const struct h2_conn *c);

/* The oldest open stream (the lowest id: streams open in id order): true
 * and its id and tag, or false when none is open. Amortised O(1). */
bool h2_oldest(struct h2_conn *c, uint32_t *id, uint64_t *tag);


/* Gives up on an open stream (the caller's request timed out): RST_STREAM
 * CANCEL is queued (§8.7, §6.4) and the stream is closed without an event;
 * the connection carries on, and whatever the server still sends for the
 * stream is discarded as for any closed stream (§5.1). false if the stream
 * is not open, or if the RST_STREAM does not fit the output buffer right now
 * (the peer is not reading; try again after h2_out_ack). out (or NULL):
 * the stream as it was, an H2_EV_ABORTED event never fired. */
bool h2_cancel(struct h2_conn *c, uint32_t id, struct h2_event *out);

/* GOAWAY received (or ids exhausted) and no stream left open: the caller
 * closes this connection and opens a new one. When the ids ran out (RFC
 * 9113 §5.1.1: a client that cannot open a stream "MUST establish a new
 * connection"), the engine has queued a GOAWAY NO_ERROR (§6.8: sent before
 * closing) by the time this says true: the caller sends what h2_out holds,
 * then closes. */
bool h2_drained(const struct h2_conn *c);

/* True once the GOAWAY NO_ERROR of stream id exhaustion is queued (see
 * h2_drained): the connection ends by our choice, not the peer's. */
bool h2_ids_exhausted(const struct h2_conn *c);

#endif
