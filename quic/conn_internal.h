/* quic/conn_internal.h — the QUIC connection's inside, shared by
 * quic/conn.c (packets, frames, TLS, keys, recovery, timers) and
 * quic/stream.c (streams, flow control, the reassembly pool), and read by
 * the tests; never included by the worker, whose API is quic/conn.h.
 *
 * What is here: the sizes both files build on, struct quic_conn and the
 * structs in it, the small helpers both call on their hot paths (static
 * inline: the pool's lookup runs for every STREAM and CRYPTO frame), what
 * stream.c offers conn.c, and the test accessors. RFC sections are RFC
 * 9000's unless named. */
#ifndef SHB_QUIC_CONN_INTERNAL_H
#define SHB_QUIC_CONN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quic/ackset.h"
#include "quic/conn.h"
#include "quic/frame.h"
#include "quic/packet.h"
#include "quic/recovery.h"
#include "quic/tparams.h"
#include "tls13/handshake.h"

#define CID_LEN 8                 /* our connection ID, and the first DCID we choose (§7.2: >= 8) */
/* The pool keeps data received ahead of its offset, across all streams. It
 * holds a whole connection receive window: the server may never have more
 * than that beyond what was delivered (§4.1), so with a slot per
 * POOL_BYTES_PER_SLOT of window nothing it sends in order to its limits is
 * ever refused. Refusing is what must not happen: a refused packet is not
 * acknowledged, and a server whose every packet goes unacknowledged backs
 * its retransmission timer off again and again (RFC 9002 §6.2.1) — the one
 * packet everything waits for then comes seconds later. */
#define POOL_DATA_MAX 1500        /* a slot: one frame's data of the largest datagram we let the
                                     server send, or contiguous frames that fit together */
#define POOL_BYTES_PER_SLOT 1024  /* frames are rarely smaller, and contiguous ones share a slot */
#define POOL_SLOTS_MIN 32         /* CRYPTO data ahead (§7.5: at least 4096 bytes), and slack for
                                     overlapping retransmissions */
#define QUIC_UNI_WINDOW_OF(cfg) ((cfg)->uni_window ? (cfg)->uni_window : QUIC_UNI_WINDOW)
#define UNI_MAX 16                /* server unidirectional streams we allow (initial_max_streams_uni) */
#define OUR_UNI_MAX 3             /* HTTP/3: control, QPACK encoder, QPACK decoder */
#define CHUNK_CAP 4096u           /* stream frames remembered for retransmission (ApplicationData) */
/* The server's spare connection IDs kept. With the one in use they are the
 * active_connection_id_limit we advertise (CID_SLOTS + 1): RFC 9000 §5.1.1
 * counts the connection ID in use among the active ones, and one more than
 * the limit is a CONNECTION_ID_LIMIT_ERROR, not a spare to keep. */
#define CID_SLOTS 3
#define CRYPTO_OUT_INITIAL 4096   /* ClientHello (and a second one after HelloRetryRequest) */
#define CRYPTO_OUT_HANDSHAKE 512  /* (empty Certificate and) Finished */
#define NONE UINT64_MAX
#define DETACHED (1ull << 63)     /* a closed stream's slot kept until its RESET_STREAM is out */

/* A stream frame sent in an ApplicationData packet, for retransmission. */
enum chunk_kind { CH_DATA, CH_MSD, CH_RESET };
struct chunk {
    uint64_t id;
    uint32_t off, len;
    uint8_t kind;
    bool fin;
};

/* What a sent packet carried, beside what recovery keeps. */
#define M_ACK 0x01u
#define M_MAX_DATA 0x02u
#define M_CRYPTO 0x04u
#define M_STREAMS_BLOCKED 0x08u
struct pkt_meta {
    uint64_t ack_largest;   /* M_ACK: the largest packet number the ACK acknowledged */
    uint32_t crypto_off, crypto_len;
    uint32_t chunk_first;   /* index into chunks, CHUNK_CAP-wrapped */
    uint16_t chunk_n;
    uint8_t flags;
};

struct crypto_level {
    uint8_t *out;           /* our handshake bytes at this level, offset = index */
    uint32_t out_cap, out_len, out_sent; /* out_sent: next to send (moves back on loss) */
    uint64_t in_off;        /* received in order */
};

struct space {
    struct quic_keys rd, wr;
    bool has_rd, has_wr;
    struct quic_ackset recvd;
    uint64_t largest_recv;     /* QUIC_PN_NONE before any */
    uint64_t largest_recv_time;
    unsigned unacked_eliciting; /* ack-eliciting packets received since our last ACK */
    bool ack_pending;          /* received packets not yet acknowledged */
    uint64_t ack_deadline;     /* an ACK must go out by then (0 = none) */
    struct pkt_meta meta[QUIC_REC_CAP];
};

/* One request stream (a slot of the ring). */
struct rstream {
    uint64_t n;             /* stream number (id / 4); NONE: free */
    const uint8_t *data;
    uint32_t len, sent;     /* sent: next byte to send (moves back on loss) */
    uint32_t max_sent;      /* the highest offset ever sent: bytes below it are resends */
    bool fin_sent, fin_recv, queued, need_msd, reset_out;
    uint64_t reset_code;
    uint64_t send_max;      /* the server's limit for our bytes on it */
    uint64_t recv_off, recv_max, highest, final_size;
    uint32_t next;          /* send queue */
};

struct ustream {            /* a server unidirectional stream */
    uint64_t recv_off, highest, final_size;
    bool fin_recv, need_msd;
    uint64_t recv_max;
};

struct our_uni {
    const uint8_t *data;
    uint32_t len, sent;
    bool used;
};

struct pool_ent {
    uint64_t key;           /* stream id, or NONE - level for CRYPTO */
    uint64_t off;
    uint16_t len;
    bool used, fin;
    uint8_t data[POOL_DATA_MAX];
};

struct peer_cid {
    uint64_t seq;
    uint8_t len;
    uint8_t id[QUIC_MAX_CID_LEN];
    uint8_t reset_token[16];
    bool used, has_token;
};

struct quic_conn {
    const struct quic_conn_config *cfg;
    struct quic_conn_callbacks cb;
    void *ctx;
    enum quic_conn_state state;
    struct quic_close_info close;
    bool close_pending;       /* our CONNECTION_CLOSE still to go out */
    uint8_t close_sent;       /* spaces (bits) it went out in */
    struct quic_conn_counters cnt;
    uint64_t start_time;

    /* Connection IDs. */
    uint8_t scid[CID_LEN];
    uint8_t odcid[CID_LEN];   /* the DCID of our first Initial */
    uint8_t dcid[QUIC_MAX_CID_LEN];
    uint8_t dcid_len;
    uint64_t dcid_seq;
    bool got_server_scid;     /* the first server Initial fixed dcid (§7.2) */
    uint8_t server_scid[QUIC_MAX_CID_LEN]; /* its SCID, for the §7.3 check */
    uint8_t server_scid_len;
    uint8_t retry_scid[QUIC_MAX_CID_LEN];
    uint8_t retry_scid_len;
    bool retried;
    uint8_t token[256];       /* from Retry (§17.2.5.2), echoed in every Initial */
    uint16_t token_len;
    bool any_packet;          /* a packet was processed: Retry and VN are no longer acceptable */
    struct peer_cid cids[CID_SLOTS];
    uint64_t retire_queue[(CID_SLOTS + 1) * 2];
    unsigned retire_n;

    /* TLS. */
    struct tls13_hs hs;
    uint8_t tparams[256];
    size_t tparams_len;
    struct quic_tparams peer;
    bool hs_done, confirmed;
    struct crypto_level crypto[QUIC_SPACES];
    uint8_t crypto_init_buf[CRYPTO_OUT_INITIAL];
    uint8_t crypto_hs_buf[CRYPTO_OUT_HANDSHAKE];
    uint16_t suite;

    /* Keys: spaces 0 and 1 in space[].rd/wr; 1-RTT below (key phases). */
    struct space space[QUIC_SPACES];
    struct quic_keys app_rd[2];   /* by key phase bit */
    uint8_t app_rd_secret[TLS13_MAX_HASH], app_wr_secret[TLS13_MAX_HASH];
    int rd_phase, wr_phase;       /* key phase of the server's current keys, and of ours */
    bool key_update_unacked;      /* we updated; the server has not answered in the new phase yet */
    uint64_t key_phase_first_pn;  /* first packet number sent with the current write keys */
    uint64_t packets_in_phase;    /* sent with the current write keys (RFC 9001 §6.6) */
    uint64_t key_update_after;
    bool ack_ping_out;            /* the PING of ack_ping_pn (see need_ack_ping) is unanswered */
    uint64_t ack_ping_pn;
#ifdef SHB_TEST_KNOBS
    uint64_t app_pn_target;       /* quic_conn_config's: packet number jumps (pn_jump) */
#endif

    struct quic_recovery rec;

    /* 0-RTT (--early-data; RFC 9001 §4.6, RFC 9000 §7.4.1). */
    uint8_t early;                /* enum quic_early */
    bool has_early_wr;            /* early_wr holds the 0-RTT keys (RFC 9001 §4.9.3: until the 1-RTT ones) */
    struct quic_keys early_wr;
    struct quic_tparams remembered; /* the server's, from the ticket's connection: peer until established */

    /* Flow control (RFC 9000 §4). */
    uint64_t send_max, sent_total;       /* connection: the server's MAX_DATA, our bytes sent (new only) */
    uint64_t recv_max, recv_highest_sum; /* ours, and the sum of every stream's highest offset */
    uint64_t recv_consumed;              /* bytes delivered in order (credit is granted from it) */
    bool need_max_data;

    /* Streams. */
    uint32_t ring, ring_mask;
    struct rstream *streams;             /* ring entries (after this struct) */
    uint64_t next_n;                     /* next request stream number to open */
    uint64_t peer_max_streams;           /* the server's MAX_STREAMS (bidi) */
    uint32_t open_streams;
    bool streams_blocked_sent, need_streams_blocked;
    uint32_t q_head, q_tail;             /* send queue of ring slots, UINT32_MAX: empty */
    struct ustream uni[UNI_MAX];
    struct our_uni ours[OUR_UNI_MAX];
    unsigned ours_n;
    uint64_t peer_max_uni;

    /* Control frames owed. */
    bool need_path_response;
    uint8_t path_data[8];

    /* Retransmission records of ApplicationData stream frames. */
    struct chunk chunks[CHUNK_CAP];
    uint32_t chunk_head;                 /* next index to use (grows without wrap; & (CHUNK_CAP-1)) */

    uint64_t idle_timeout_ns, idle_deadline;
    bool idle_restart_on_send;           /* §10.1: the first ack-eliciting packet after receiving restarts it */

    struct pool_ent *pool;               /* pool_slots entries (after the stream ring) */
    unsigned pool_slots, pool_used;
    unsigned pool_top;                   /* slots ever used: those above are free and untouched
                                            (a connection that never sees a hole never touches
                                            the pool's pages) */

    bool abort_packet;                   /* the packet being processed cannot be taken (pool full) */
};

/* One packet being built (quic/conn.c's build_packet); the stream writers
 * of quic/stream.c add their frames at p. */
struct pkt_builder {
    uint8_t *p, *end;          /* payload cursor; end leaves room for the tag */
    struct pkt_meta *m;
    bool eliciting;
    uint32_t chunk_room;
};

/* ---- small helpers (both files) ------------------------------------------- */

static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The pool (data ahead of its offset, quic/stream.c): the entry of key
 * (a stream id, or NONE - space for CRYPTO) that starts at or before upto,
 * so its data can follow on now; NULL when there is none (at once when the
 * pool is empty, as it is whenever nothing arrives out of order). */
static inline struct pool_ent *quic_pool_find(struct quic_conn *c, uint64_t key, uint64_t upto)
{
    if (c->pool_used == 0)
        return NULL;
    for (unsigned i = 0; i < c->pool_top; i++)
        if (c->pool[i].used && c->pool[i].key == key && c->pool[i].off <= upto)
            return &c->pool[i];
    return NULL;
}

/* A slot is free again; once all are, the scans start from nothing. */
static inline void quic_pool_release(struct quic_conn *c, struct pool_ent *e)
{
    e->used = false;
    if (--c->pool_used == 0)
        c->pool_top = 0;
}

/* ---- quic/stream.c, for quic/conn.c --------------------------------------- */

/* The block quic_conn_init is given holds struct quic_conn, then (16-byte
 * aligned) the stream ring and the pool: the bytes those take, and their
 * setup at mem (during quic_conn_init, c->cfg set and the rest zeroed). */
size_t quic_streams_size(const struct quic_conn_config *cfg);
void quic_streams_init(struct quic_conn *c, void *mem);

/* Keeps n bytes at off of key (a stream id, or NONE - space for CRYPTO)
 * that arrived ahead of its offset. false: no room — the packet is then
 * not acknowledged, and the server sends it again. */
bool quic_pool_put(struct quic_conn *c, uint64_t key, uint64_t off, const uint8_t *p, size_t n, bool fin);
/* Frees every entry of key (a stream closed, a space's keys discarded). */
void quic_pool_drop_key(struct quic_conn *c, uint64_t key);

/* Frames that concern streams, as quic/conn.c's on_frame decoded them; each
 * returns 0 or minus the transport error that closes the connection. A
 * STREAM frame's data goes to the application in order, through
 * cb.stream_data, and may set c->abort_packet (the pool is full). */
int quic_stream_recv(struct quic_conn *c, uint64_t id, uint64_t off, const uint8_t *p, size_t n, bool fin);
int quic_stream_on_reset(struct quic_conn *c, const struct quic_frame *f); /* RESET_STREAM, STOP_SENDING */
int quic_stream_on_max_stream_data(struct quic_conn *c, const struct quic_frame *f);

/* Sending, in ApplicationData packets once the handshake is done. Anything
 * of the streams' ack-eliciting to send (MAX_DATA, STREAMS_BLOCKED, stream
 * data or credit)? */
bool quic_streams_pending(const struct quic_conn *c);
/* 0-RTT data is lost (rejected, RFC 9001 §4.6.2, or a Retry, RFC 9000
 * §17.2.5.3): every request and unidirectional stream sends from offset
 * 0 again, each request stream with send_max as its credit (after a Retry
 * the remembered one; rejected, 0 until established).
 * And once established after 0-RTT, the streams take the handshake's
 * initial_max_stream_data_bidi_remote (RFC 9000 §7.4.1: "the client
 * updates the flow control limits on all sending streams") and those with
 * bytes left are queued again. */
void quic_streams_restart(struct quic_conn *c, uint64_t send_max);
void quic_streams_established(struct quic_conn *c);
/* Retransmission records (chunks) free for the next packet. */
uint32_t quic_chunks_free(const struct quic_conn *c);
/* Writes into b, in this order: MAX_DATA, STREAMS_BLOCKED, the server's
 * unidirectional streams' MAX_STREAM_DATA, our unidirectional streams'
 * data, then the queued request streams, each recorded as chunks. */
void quic_streams_write(struct quic_conn *c, struct pkt_builder *b);
/* A packet carrying chunks m->chunk_first.. was lost: what they sent goes
 * again (streams closed since are skipped). */
void quic_streams_on_lost(struct quic_conn *c, const struct pkt_meta *m);

/* ---- test accessors ------------------------------------------------------- */

/* To play the server's part once a real handshake is replayed: the keys
 * the server's 1-RTT packets are opened with in each key phase (index: the
 * Key Phase bit), the phase in use, and our SCID (the DCID of every server
 * packet). */
const struct quic_keys *quic_conn_test_server_keys(const struct quic_conn *c, int *rd_phase);
size_t quic_conn_test_scid(const struct quic_conn *c, uint8_t out[QUIC_MAX_CID_LEN]);
/* Processes a decrypted payload as a packet of space s numbered pn, as
 * quic_conn_input would after opening it (fuzzing the frame layer). */
void quic_conn_test_frames(struct quic_conn *c, enum quic_space s, uint64_t pn, const uint8_t *payload, size_t n,
                           uint64_t now);
/* The keys the server's Handshake packets are opened with (NULL before
 * the ServerHello and once discarded). */
const struct quic_keys *quic_conn_test_handshake_keys(const struct quic_conn *c);
/* Ours for Handshake packets, to open what we send (NULL when there are none). */
const struct quic_keys *quic_conn_test_handshake_write_keys(const struct quic_conn *c);
/* Our 1-RTT write keys now and their Key Phase bit, to open what we send. */
const struct quic_keys *quic_conn_test_client_keys(const struct quic_conn *c, int *wr_phase);
/* Our 1-RTT keys change after this many packets (default 2^22). */
void quic_conn_test_key_update_after(struct quic_conn *c, uint64_t packets);
/* The next 1-RTT packet number is pn, everything before it acknowledged
 * (what was in flight forgotten): how the unit test reaches the end of the
 * packet number space (RFC 9000 §12.3) without sending 2^62 packets. */
void quic_conn_test_next_app_pn(struct quic_conn *c, uint64_t pn);
/* Skips the TLS handshake: Handshake and 1-RTT keys from fixed secrets
 * (TLS_AES_128_GCM_SHA256), the Initial space discarded, the server's
 * transport parameters *peer taken as they are, and the connection
 * QUIC_ESTABLISHED (not confirmed: HANDSHAKE_DONE does that). Only on a
 * fresh connection; 0, or -1. For fuzzing the frame layer
 * (test/fuzz/fuzz_quic_conn.c) without a server. */
int quic_conn_test_establish(struct quic_conn *c, const struct quic_tparams *peer, uint64_t now);

#endif
