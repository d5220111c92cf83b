/* worker.h — one worker thread: one io_uring, its own connections, its own
 * stats. Nothing is shared with other workers but the stop flag.
 *
 * worker.c is the loop and the request accounting; tcp.c and udp.c the two
 * transports (loop.h is what they share; docs/internals.md draws the rest). */
#ifndef SHB_WORKER_H
#define SHB_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "h2.h"
#include "report/hdrlog.h"
#include "worker/pace.h"
#include "quic/conn.h"
#include "tls13/conn.h"
#include "stats/stats.h"

/* Set by the first Ctrl-C; workers notice it within one tick (100 ms). */
extern volatile int shb_stop_requested;

/* One request's bytes as a protocol sends them, built once at start-up;
 * a run sends one, or with --targets one per target (indexed by target). */
struct wire_request {
    const uint8_t *bytes;
    size_t len;
    bool head;                    /* HEAD: its response carries no body */
};

/* HTTP/3: what every connection's streams send, and the QUIC settings. */
struct h3_config {
    const struct wire_request *requests; /* each request stream's bytes (h3_request_build), by target */
    const uint8_t *control;       /* our control stream (h3_control_stream) */
    size_t control_len;
    uint32_t parallel;            /* -p */
    struct quic_conn_config quic;
};

struct worker_config {
    const struct sockaddr *addr;  /* resolved once by main; AF_UNIX with --unix-socket */
    socklen_t addrlen;
    const struct wire_request *requests; /* HTTP/1.1: built once, by target; every request is one of these */
    uint32_t ntargets;            /* 1, or --targets' count: the requests (h1, h2, h3) by target */
    bool targets_random;          /* --targets-order random (seeded with seed, pace_first): else seq */
    uint64_t seed;
    const struct h2_config *h2;   /* HTTP/2, or NULL for HTTP/1.1 */
    const struct h3_config *h3;   /* HTTP/3 (the UDP transport), or NULL */
    const struct tls_config *tls; /* https://, or NULL for cleartext */
    const uint8_t *proxy_connect; /* through a proxy's tunnel: the CONNECT request (proxy.h), built once;
                                     NULL: no tunnel (addr is then the server's, or the proxy's for
                                     absolute-form HTTP/1.1) */
    size_t proxy_connect_len;
    const char *host;             /* the URL's host and port: the server a hint names */
    uint16_t port;
    const char *connected_to;     /* "10.0.0.7:8443" when --connect-to/--resolve chose the address: a
                                     hint names that server instead; else NULL */
    bool keepalive;               /* false: --disable-keepalive */
    bool tls_resume;              /* --tls-resume (https:// and HTTP/3): each slot resumes with its ticket */
    bool early_data;              /* --early-data (https://, HTTP/3 too): first requests as 0-RTT data */
    uint32_t connections;         /* this worker's share */
    uint64_t budget;              /* this worker's share of -n; unused when timed */
    bool timed;                   /* -z mode */
    uint64_t connect_timeout_ns;  /* TCP connect + TLS handshake; also how long an HTTP/2 connection may
                                     sit unable to start any stream (MAX_CONCURRENT_STREAMS 0) */
    uint64_t timeout_ns;          /* --timeout: per request, 0 = none */
    uint64_t warmup_ns;           /* --warmup: requests ending this soon after the start are kept out
                                     of the figures (stats.warmup), and do not count towards -n */
    const struct pace_rate *rate; /* -q: the open model's schedule (pace.h), or NULL: each connection
                                     sends its next request as soon as it may (the closed model) */
    uint32_t pace_first;          /* -q: this worker sends requests pace_first, + pace_stride, ... */
    uint32_t pace_stride;         /*     of the schedule (the workers interleave); --targets numbers its
                                     requests the same way (reqlist_picker) */
    bool live;                    /* the live view runs: publish into worker.live */
    bool hdr_log;                 /* --hdr-log: record each second's latencies into worker.hdr */
    uint32_t bind_from;           /* connection slots from this one up bind(2) a local port before
                                     connecting (half the ephemeral range is taken: see shb.c) */
    const struct sockaddr_storage *bind; /* --bind: source addresses (port 0), or NULL */
    uint32_t nbind;
    bool log;                     /* --log: one line per request into log_fd */
    int log_fd;                   /* the file main opened (O_APPEND) */
    uint8_t log_format;           /* enum reqlog_format */
    uint64_t log_wall_start_ns;   /* Unix time of the run's start (main sets it before the start) */
    uint32_t thread;              /* this worker's index (--log's thread column) */
    uint32_t conn_first;          /* the run's index of this worker's first connection (--log) */
    uint32_t bind_first;          /* slot i binds bind[(bind_first + i) % nbind]: the run's connection
                                     bind_first + i (connections take the addresses in turn) */
};

/* What the live view (live.c) reads while the run goes: written only by
 * the worker, at its 100 ms tick and once a second, read by the main thread
 * without locks; nothing of it on the per-request path. */
struct worker_live {
    _Atomic uint64_t ok, errors;   /* measured, so far */
    _Atomic uint64_t warmup;       /* ended during --warmup, so far */
    _Atomic uint32_t conns_open;
    /* The last whole second's latencies (a timeline entry's histogram),
     * under a sequence lock: seq is odd while they are being written. */
    _Atomic uint32_t seq;
    _Atomic uint32_t lat[TL_BUCKETS];
};

struct worker {
    struct worker_config cfg;
    struct worker_live live;      /* only written when cfg.live */
    struct stats stats;
    struct hdrlog_thread hdr;     /* --hdr-log (cfg.hdr_log): the measured window's seconds; main writes
                                     the log from it after the run and frees it (hdrlog_thread_free) */
    uint64_t end_ns;              /* when the last request of this worker ended */
    uint64_t log_lost;            /* --log: lines not written after a write failed */
    int log_error;                /* ... its errno, 0: the log is complete */
    uint64_t cpu_ns;              /* CPU time the thread used during the run (-q: was shb the bottleneck?) */
    char error[256];              /* set when the worker could not run, or stopped the run */
    bool fatal;                   /* the run cannot go on (e.g. no h2 via ALPN): no report */
    void *state;                  /* private: ring, connections, buffers */
};

/* Prepares the ring, registered files and buffers (allocation happens here,
 * once). Returns 0, or -1 with w->error set. */
int worker_prepare(struct worker *w);

/* Runs until the budget is spent, deadline_ns (CLOCK_MONOTONIC, 0 = none)
 * passes, or shb_stop_requested is set. */
void worker_run(struct worker *w, uint64_t start_ns, uint64_t deadline_ns);

void worker_release(struct worker *w);

uint64_t monotonic_ns(void);
uint64_t wall_ns(void); /* CLOCK_REALTIME: Unix time in ns (--start-at, the report's window) */

#endif
