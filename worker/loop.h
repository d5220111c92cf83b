/* worker/loop.h — what the per-thread loop (worker.c) shares with the
 * transports (tcp.c: TCP, TLS, HTTP/1.1 and HTTP/2; udp.c: QUIC and
 * HTTP/3). Private to the worker: nothing outside worker/ includes this.
 *
 * The loop owns the ring, the clock, the run's end (budget, -z deadline,
 * Ctrl-C) and the request accounting: every request is taken from the budget
 * here and ends here exactly once, as a response, an error of one kind, or
 * (when the run ends first) in flight. A transport owns its connections and
 * its protocol engines; it turns completions into protocol events and those
 * into the loop_* calls below. */
#ifndef SHB_WORKER_LOOP_H
#define SHB_WORKER_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/reqlist.h"
#include "meter.h"
#include "reqlog.h"
#include "stats/stats.h"
#include "uring/uring.h"
#include "worker.h"

/* A request the server provably did not process (HTTP/2 GOAWAY or
 * REFUSED_STREAM) is sent again, but not forever: a server that refuses
 * everything must still let a -n run end. */
#define MAX_RETRIES 15

/* The loop wakes up this often (an io_uring timeout): Ctrl-C is noticed and
 * the transport checks its deadlines (request timeouts, handshakes) within
 * one tick of when they pass. */
#define TICK_NS 100000000ull

/* user_data of every SQE: op in the low byte, the connection's generation
 * above it and its index in the high half. Ops below OP_TRANSPORT belong to
 * the loop; the rest to the transport, which also owns the generations (they
 * change whenever a connection is closed, so completions still in flight for
 * an old socket are recognised and dropped). */
enum loop_op { OP_TICK = 1, OP_DEADLINE, OP_PACE, OP_LOG, OP_LOG_SEEN, OP_TRANSPORT };
#define GEN_MASK 0xffffffu
static inline uint64_t ud_make(unsigned op, uint32_t gen, uint32_t idx)
{
    return (uint64_t)op | ((uint64_t)(gen & GEN_MASK) << 8) | ((uint64_t)idx << 32);
}
static inline unsigned ud_op(uint64_t ud) { return (unsigned)(ud & 0xff); }
static inline uint32_t ud_gen(uint64_t ud) { return (uint32_t)(ud >> 8) & GEN_MASK; }
static inline uint32_t ud_idx(uint64_t ud) { return (uint32_t)(ud >> 32); }

/* A request's tag, carried through engines that hold many requests (HTTP/2
 * streams): a time relative to the run in the low 56 bits (2.3 years of
 * nanoseconds), and in the top 8 how often it was tried before. */
#define TAG_TIME_MASK ((1ull << 56) - 1)
static inline uint64_t tag_make(uint64_t rel_ns, unsigned retries)
{
    return (rel_ns & TAG_TIME_MASK) | ((uint64_t)retries << 56);
}
static inline unsigned tag_retries(uint64_t tag) { return (unsigned)(tag >> 56); }

/* OP_LOG: a --log buffer's write (reqlog.c), its index in ud_idx;
 * OP_LOG_SEEN: one that reqlog.c already handled while it waited. */

/* Nanoseconds as the kernel's timespec, for io_uring timeouts. */
static inline struct shb_kernel_timespec ns_to_ts(uint64_t ns)
{
    return (struct shb_kernel_timespec){ .tv_sec = (int64_t)(ns / 1000000000ull),
                                         .tv_nsec = (long long)(ns % 1000000000ull) };
}

struct loop;

/* A transport: one per kind of socket. Every function is called on the
 * worker's own thread. */
struct transport {
    /* Allocates the connections' memory (once, for the whole run) and says
     * how large the ring must be. Returns 0, or -1 with w->error set. */
    int (*prepare)(struct loop *l, unsigned *sq_entries, unsigned *cq_entries);
    /* After the ring exists: register what the transport needs (files). */
    int (*attach)(struct loop *l);
    /* The run starts: open the first connections. */
    void (*start)(struct loop *l);
    /* A completion whose op is >= OP_TRANSPORT. */
    void (*complete)(struct loop *l, const struct io_uring_cqe *cqe);
    /* After each batch of completions: send what the batch produced. */
    void (*after_batch)(struct loop *l);
    /* Every TICK_NS (not when the run is ending): deadlines and retries. */
    void (*tick)(struct loop *l);
    /* The run is over, the ring still there: say goodbye where the
     * protocol has a word for it (QUIC's CONNECTION_CLOSE). May be NULL. */
    void (*end)(struct loop *l);
    /* -q: connection conn said it could send (loop_idle) and a request is
     * due now: start what it can. */
    void (*refill)(struct loop *l, uint32_t conn);
    /* After the run: free what prepare allocated (the ring is gone). */
    void (*release)(struct loop *l);
    /* How many completions one wait should hold out for (min_wait_usec
     * bounds it), given the connections this worker has. */
    unsigned (*wait_batch)(const struct loop *l);
};

extern const struct transport tcp_transport, udp_transport;

struct loop {
    struct worker *w;
    const struct worker_config *cfg;
    const struct transport *tp;
    void *tp_state;                 /* the transport's own */
    struct uring ring;
    struct uring_bufring bufs;      /* provided receive buffers, group 0 */
    uint64_t start_ns;              /* CLOCK_MONOTONIC at the common start */
    uint64_t now;                   /* read once per loop turn, after the wait */
    uint64_t latency_avg_ns;        /* running mean of the latencies recorded (the wait's bound) */
    bool stopping;                  /* -z deadline, Ctrl-C, budget spent or a fatal error */
    struct meter meter;             /* what is measured (meter.h): the warm-up, the timeline, --hdr-log */
    struct reqlog log;              /* --log (reqlog.h): mem is NULL without it */
    uint32_t conns_open;            /* connected (QUIC: established), for the live view */
    /* Request accounting. */
    uint64_t budget_left;           /* -n: requests not taken yet */
    uint64_t taken;                 /* requests loop_take handed out, retries too (--early-data counts them) */
    uint64_t in_flight;             /* taken and not ended, those waiting to be retried included */
    uint64_t retry_waiting[MAX_RETRIES + 1]; /* requests to send again, by how often they were tried */
    uint64_t retry_total;
    /* ... and their targets: a FIFO per number of tries, linked through a
     * pool of nodes, one per request that can be in flight (connections x
     * streams: a new request is taken only when none waits, so those
     * waiting plus those on the wire never exceed it). */
    struct retry_node { uint32_t target, next; } *retry_nodes;
    uint32_t retry_free;            /* the first free node, RETRY_NONE: none */
    uint32_t retry_head[MAX_RETRIES + 1], retry_tail[MAX_RETRIES + 1];
    struct reqlist_picker picker;   /* which target a new request takes */
    /* -q: the open model. Requests leave when they are due (pace.h), not
     * when a connection is free; a connection with room and nothing due
     * waits in `waiters` for the pace timer (one io_uring timeout, armed
     * for the next due time whenever something waits for it). */
    bool paced;
    bool pace_armed;
    uint64_t pace_index;            /* this worker's next request number on the schedule */
    uint64_t pace_due;              /* ... and when it is due (CLOCK_MONOTONIC ns) */
    uint32_t *waiters;              /* a ring of connection indices, each in it at most once */
    uint8_t *waiting;               /* per connection: in the ring */
    uint32_t wait_head, nwait;
    struct shb_kernel_timespec tick_ts, deadline_ts, pace_ts;
};

#define LOOP_BUF_GROUP 0
#define LOOP_RECV_BUF_SIZE 16384

#define RETRY_NONE UINT32_MAX

/* A request taken to be sent now. */
struct taken {
    uint64_t due_ns;  /* when it was due: with -q its place on the schedule, else now */
    unsigned retries; /* how often it was tried before */
    uint32_t target;  /* which request (worker_config.ntargets): it stays with it through retries */
};

/* The request identities (worker_prepare): the retry queue's `nodes`
 * nodes, the target picker (cfg's ntargets, order, seed, pace_first and
 * pace_stride), the per-target figures when there are several. 0, or -1
 * when out of memory. */
int loop_targets_init(struct loop *l, uint64_t nodes);

/* A request that ended, as the session knew it: what the loop measures
 * and what --log writes. */
struct req_end {
    uint64_t due_ns;   /* when it was due: with -q its place on the schedule, else when it was sent */
    uint64_t sent_ns;  /* when it was sent */
    uint64_t first_ns; /* when its response's first byte came (an interim 1xx's included); 0: none */
    uint64_t bytes;    /* its response's bytes received (docs/request-log.md: per protocol) */
    uint64_t stream;   /* HTTP/2, HTTP/3: its stream id; HTTP/1.1: its number on its connection */
    uint32_t conn;     /* the worker's connection slot */
    uint32_t target;   /* which request (0: the run has one) */
};

/* Takes the next request to send: one waiting to be retried first (the
 * most-tried first), else a new one from the budget — with -q only once it
 * is due. false when there is nothing to send now (or the run is ending). */
bool loop_take(struct loop *l, struct taken *t);

/* -q: connection conn has room for a request and loop_take said "not
 * yet": the transport's refill is called for it when the next one is due.
 * Does nothing without -q or when no work is left. */
void loop_idle(struct loop *l, uint32_t conn);

/* A complete response to a request due at e->due_ns and sent at
 * e->sent_ns, whose first byte (an interim 1xx's included) came at
 * e->first_ns: the latency
 * counts from due_ns (with -q the intended send time, so a request that
 * waited for a connection shows the wait: coordinated omission, as wrk2
 * corrects it), the service time and the first byte from sent_ns. During
 * --warmup (and likewise for loop_error) it is counted in stats.warmup
 * only, and a -n run's budget gets the request back: -n counts the
 * measured ones. */
void loop_ok(struct loop *l, uint16_t status, const struct req_end *e);

/* A phase of a connection or a request (stats.phases) that began at
 * since_ns ended now. Like a response, one that ends during --warmup is
 * not measured. The loop's clock, read once per turn: no syscall here. */
static inline void loop_phase(struct loop *l, struct hist *h, uint64_t since_ns)
{
    if (!l->meter.warming)
        hist_record(h, l->now - since_ns);
}

/* The request failed: an error of this kind. */
void loop_error(struct loop *l, enum err_kind kind, const struct req_end *e);

/* Why errors of `kind` happen, said where one is detected (before it is
 * counted): kept as the kind's first message (what + detail) unless it has
 * one. Like the errors, nothing is kept during --warmup. Only error paths
 * call it: the success path pays nothing. */
void loop_why(struct loop *l, enum err_kind kind, const char *what, const char *detail);

/* The same for a likely mistake the server's first bytes show: "the server
 * at HOST:PORT " + what; the text report repeats it as a Hint: line. */
void loop_hint(struct loop *l, enum err_kind kind, const char *what);

/* loop_why would keep a message for kind now: a caller that has to format
 * one asks first, so each is formatted once, not once per error. */
bool loop_why_wanted(const struct loop *l, enum err_kind kind);

/* A deadline that passed, as kind's message: what + "5s", "1.5s",
 * "250ms" (a --timeout or --connect-timeout). */
void loop_why_within(struct loop *l, enum err_kind kind, const char *what, uint64_t ns);

/* The server provably did not process the request: it goes back to be sent
 * again. counted: the attempt counts towards MAX_RETRIES (at the limit the
 * request becomes an error of `kind`); not counted: the attempt was lost to
 * something that says nothing about the request (a keep-alive race on a
 * connection that served others). After the run's end the request just
 * stays in flight. */
void loop_retry(struct loop *l, unsigned retries, bool counted, enum err_kind kind, const struct req_end *e);

/* A connection attempt failed, or a connection was given up before it
 * served anything: that costs one request (a retry first, else one from the
 * budget), counted as `kind`, so a dead or hostile server still lets a -n
 * run end. conn: the connection's slot (--log's line: stream 0, taken and
 * ended now). */
void loop_charge(struct loop *l, enum err_kind kind, uint32_t conn);

/* Requests are still to be sent: a closed connection should be replaced. */
bool loop_work_left(const struct loop *l);

/* --bind: binds fd, the socket of connection slot `slot`, to its source
 * address (worker_config.bind). port_at_bind: the port is taken now (bind's
 * parity, see shb.c's bind_from; UDP always); port_at_connect: otherwise, or
 * should that fail, connect() picks it (IP_BIND_ADDRESS_NO_PORT, TCP). 0, or
 * -errno. */
int loop_bind_source(const struct worker_config *cfg, int fd, uint32_t slot, bool port_at_bind,
                     bool port_at_connect);

/* Registers n empty file slots (a transport's attach): 0, or -1 with the
 * worker's error set. */
int loop_register_files(struct loop *l, unsigned n);

/* The smallest power of two >= v (ring and queue sizes). */
static inline unsigned pow2_at_least(unsigned v)
{
    unsigned p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/* The run cannot go on (e.g. the server refused our ALPN): say why once,
 * stop every worker, print no report. */
void loop_fatal(struct loop *l, const char *why, const char *detail);

#endif
