/* worker.c — the per-thread event loop and the request accounting.
 *
 * submit -> wait for a batch of completions -> hand each to its transport
 * (tcp.c or udp.c) -> let the transport send what the batch produced ->
 * submit. The loop owns the clock (read once per turn), the run's end (the -n
 * budget, the -z deadline, Ctrl-C) and the tick that drives every deadline,
 * and it is where each request is taken and where it ends: as a response, as
 * an error of one kind, or in flight when the run ends first (see
 * loop.h). Only this file and the transports do I/O. */
#define _GNU_SOURCE
#include "worker.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "worker/pace.h"
#include "loop.h"

volatile int shb_stop_requested;

/* How long the kernel may hold out for a full batch before returning what it
 * has (min_wait_usec, Linux 6.12). A response is timestamped when the loop
 * gets to it, so this is also how late a latency may be read: it stays
 * within 1/32 of the latencies being measured (their running mean), from
 * 50 us — short against a loopback round trip, long against the cost of an
 * io_uring_enter — up to 1 ms. Deep pipelines (HTTP/2 100 x 100: 40 ms
 * latencies) then batch 20 times as much per wake-up, which on a machine
 * the server shares is CPU the server gets: with -t 2 on 2 cores 30 % more
 * requests/s, and no slower than -t 1. */
#define MIN_WAIT_FLOOR_USEC 50
#define MIN_WAIT_CAP_USEC 1000
#define MIN_WAIT_LATENCY_SHIFT 5 /* 1/32 */

static uint64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t monotonic_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t wall_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}

/* ---- request accounting ------------------------------------------------- */

/* -q: the pace timer fires when the next request is due. One is armed at a
 * time; the due time only moves later, so one armed earlier is never late. */
static void pace_arm(struct loop *l)
{
    if (l->pace_armed)
        return;
    l->pace_armed = true;
    l->pace_ts = ns_to_ts(l->pace_due);
    uring_prep_timeout(uring_sqe(&l->ring), &l->pace_ts, true, ud_make(OP_PACE, 0, 0));
}

static void pace_next(struct loop *l)
{
    l->pace_due = l->start_ns + pace_due_ns(l->cfg->rate, l->pace_index);
}

/* A request to send again joins the FIFO of its number of tries, with its
 * target. false when no node is free (cannot happen: see loop.h). */
static bool retry_push(struct loop *l, unsigned retries, uint32_t target)
{
    uint32_t n = l->retry_free;
    if (n == RETRY_NONE)
        return false;
    l->retry_free = l->retry_nodes[n].next;
    l->retry_nodes[n] = (struct retry_node){ target, RETRY_NONE };
    if (l->retry_tail[retries] == RETRY_NONE)
        l->retry_head[retries] = n;
    else
        l->retry_nodes[l->retry_tail[retries]].next = n;
    l->retry_tail[retries] = n;
    l->retry_waiting[retries]++;
    l->retry_total++;
    return true;
}

static uint32_t retry_pop(struct loop *l, unsigned retries)
{
    uint32_t n = l->retry_head[retries];
    l->retry_head[retries] = l->retry_nodes[n].next;
    if (l->retry_head[retries] == RETRY_NONE)
        l->retry_tail[retries] = RETRY_NONE;
    l->retry_nodes[n].next = l->retry_free;
    l->retry_free = n;
    l->retry_waiting[retries]--;
    l->retry_total--;
    return l->retry_nodes[n].target;
}

int loop_targets_init(struct loop *l, uint64_t nodes)
{
    const struct worker_config *cfg = l->cfg;
    if (nodes >= RETRY_NONE || !(l->retry_nodes = calloc(nodes, sizeof *l->retry_nodes)) ||
        reqstats_init(&l->w->stats.targets, cfg->ntargets > 1 ? cfg->ntargets : 0) < 0)
        return -1;
    for (uint32_t i = 0; i < nodes; i++)
        l->retry_nodes[i].next = i + 1 < nodes ? i + 1 : RETRY_NONE;
    l->retry_free = 0;
    for (unsigned r = 0; r <= MAX_RETRIES; r++)
        l->retry_head[r] = l->retry_tail[r] = RETRY_NONE;
    reqlist_picker_init(&l->picker, cfg->ntargets, cfg->targets_random ? REQLIST_RANDOM : REQLIST_SEQ, cfg->seed,
                        cfg->pace_first, cfg->pace_stride ? cfg->pace_stride : 1);
    return 0;
}

bool loop_take(struct loop *l, struct taken *t)
{
    if (l->stopping)
        return false;
    if (l->retry_total) {
        /* The most-tried first: on HTTP/2 it then gets the lowest stream id
         * of its new connection, the one a server's GOAWAY keeps. Its clock
         * starts again (with -q too: it was due when it was refused). It
         * keeps its target. */
        for (unsigned r = MAX_RETRIES + 1; r-- > 0;) {
            if (l->retry_waiting[r]) {
                t->target = retry_pop(l, r);
                t->retries = r;
                t->due_ns = l->now;
                l->taken++;
                return true;
            }
        }
    }
    if (!l->cfg->timed && l->budget_left == 0)
        return false;
    if (l->paced) {
        if (l->pace_due > l->now) {
            pace_arm(l);
            return false;
        }
        t->due_ns = l->pace_due;
        l->pace_index += l->cfg->pace_stride;
        pace_next(l);
        if (!l->meter.warming)
            l->w->stats.pace.sent++;
    } else {
        t->due_ns = l->now;
    }
    if (!l->cfg->timed)
        l->budget_left--;
    l->in_flight++;
    t->retries = 0;
    t->target = reqlist_pick(&l->picker);
    l->taken++;
    return true;
}

void loop_idle(struct loop *l, uint32_t conn)
{
    if (!l->paced || l->waiting[conn] || !loop_work_left(l))
        return;
    l->waiting[conn] = 1;
    l->waiters[(l->wait_head + l->nwait++) % l->cfg->connections] = conn;
}

/* The pace timer fired: the connections waiting for it take what is due,
 * in the order they became free. */
static void on_pace(struct loop *l)
{
    l->pace_armed = false;
    while (l->nwait && !l->stopping && l->pace_due <= l->now) {
        uint32_t conn = l->waiters[l->wait_head];
        l->wait_head = (l->wait_head + 1) % l->cfg->connections;
        l->nwait--;
        l->waiting[conn] = 0;
        l->tp->refill(l, conn);
    }
    if (l->nwait && !l->stopping)
        pace_arm(l);
}

/* -q: requests this worker's schedule had due before `end` and never
 * sent (a -n run's are bounded by what its budget has left). */
static uint64_t pace_unsent(const struct loop *l, uint64_t end)
{
    uint64_t due = pace_count_before(l->cfg->rate, end - l->start_ns);
    uint64_t n = due > l->pace_index ? (due - l->pace_index + l->cfg->pace_stride - 1) / l->cfg->pace_stride : 0;
    return !l->cfg->timed && n > l->budget_left ? l->budget_left : n;
}

/* A request ended: during --warmup it is not measured, and not one of
 * -n's (the budget gets it back). */
static void ended_one(struct loop *l)
{
    l->in_flight--;
    if (!l->meter.warming)
        l->w->end_ns = l->now;
    else if (!l->cfg->timed)
        l->budget_left++;
}

void loop_ok(struct loop *l, uint16_t status, const struct req_end *e)
{
    uint64_t latency = l->now - e->due_ns;
    if (l->w->stats.targets.n && !l->meter.warming)
        reqstats_ok(&l->w->stats.targets, e->target, status, latency);
    /* A running mean (1/256 of each new latency): it paces the waits. */
    l->latency_avg_ns = (uint64_t)((int64_t)l->latency_avg_ns + ((int64_t)latency - (int64_t)l->latency_avg_ns) / 256);
    if (l->log.mem)
        reqlog_add(l, e, status, NULL, l->meter.warming);
    ended_one(l);
    meter_ok(&l->meter, l->now, status, e->due_ns, e->sent_ns, e->first_ns); /* last: a tail call */
}

void loop_error(struct loop *l, enum err_kind kind, const struct req_end *e)
{
    if (l->log.mem)
        reqlog_add(l, e, 0, err_kind_name(kind), l->meter.warming);
    if (l->w->stats.targets.n && !l->meter.warming)
        reqstats_error(&l->w->stats.targets, e->target);
    ended_one(l);
    meter_error(&l->meter, kind);
}

/* Whether kind's message is still to be written: not during the warm-up
 * (its errors are not counted), and not over one that stays. */
static bool why_wanted(const struct loop *l, enum err_kind kind, bool hint)
{
    return !l->meter.warming && !stats_why_kept(&l->w->stats, kind, hint);
}

bool loop_why_wanted(const struct loop *l, enum err_kind kind)
{
    return why_wanted(l, kind, false);
}

void loop_why(struct loop *l, enum err_kind kind, const char *what, const char *detail)
{
    if (why_wanted(l, kind, false))
        stats_why(&l->w->stats, kind, what, detail, false);
}

void loop_hint(struct loop *l, enum err_kind kind, const char *what)
{
    if (!why_wanted(l, kind, true))
        return;
    const struct worker_config *cfg = l->cfg;
    const char *host = cfg->host ? cfg->host : "";
    bool v6 = strchr(host, ':') != NULL;
    char at[300];
    /* After --connect-to the URL's host may be nowhere near the server
     * that answered: name the one the connections went to. */
    if (cfg->connected_to)
        snprintf(at, sizeof at, "the server at %s ", cfg->connected_to);
    else
        snprintf(at, sizeof at, "the server at %s%s%s:%u ", v6 ? "[" : "", host, v6 ? "]" : "", cfg->port);
    stats_why(&l->w->stats, kind, at, what, true);
}

void loop_why_within(struct loop *l, enum err_kind kind, const char *what, uint64_t ns)
{
    if (!why_wanted(l, kind, false))
        return;
    char d[32];
    if (ns % 1000000000u == 0)
        snprintf(d, sizeof d, "%llus", (unsigned long long)(ns / 1000000000u));
    else if (ns >= 1000000000u)
        snprintf(d, sizeof d, "%.3gs", (double)ns / 1e9);
    else
        snprintf(d, sizeof d, "%.3gms", (double)ns / 1e6);
    stats_why(&l->w->stats, kind, what, d, false);
}

void loop_retry(struct loop *l, unsigned retries, bool counted, enum err_kind kind, const struct req_end *e)
{
    if (l->stopping)
        return; /* the run is over: like every request still on the wire, it stays in flight */
    if (counted) {
        if (retries >= MAX_RETRIES) {
            loop_error(l, kind, e);
            return;
        }
        retries++;
    }
    if (!retry_push(l, retries, e->target))
        loop_error(l, kind, e); /* never: the pool holds every request that can be in flight */
}

void loop_charge(struct loop *l, enum err_kind kind, uint32_t conn)
{
    struct taken t;
    if (loop_take(l, &t)) {
        struct req_end e = { .due_ns = t.due_ns, .sent_ns = l->now, .conn = conn, .target = t.target };
        loop_error(l, kind, &e);
    }
}

bool loop_work_left(const struct loop *l)
{
    return !l->stopping && (l->retry_total > 0 || l->cfg->timed || l->budget_left > 0);
}

int loop_bind_source(const struct worker_config *cfg, int fd, uint32_t slot, bool port_at_bind,
                     bool port_at_connect)
{
    const struct sockaddr_storage *a = &cfg->bind[((uint64_t)cfg->bind_first + slot) % cfg->nbind];
    socklen_t len = a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (port_at_bind && bind(fd, (const struct sockaddr *)a, len) == 0)
        return 0;
    if (!port_at_connect)
        return -errno;
    /* The port is chosen at connect() for the whole 4-tuple, as without
     * --bind: each source address has the ephemeral range to itself for
     * each destination. A bind() that picks the port alone must pick one
     * no socket on that address holds, whatever its destination, and
     * connect() from any address avoids it afterwards (ip(7),
     * IP_BIND_ADDRESS_NO_PORT, Linux 4.2). */
    int one = 1;
    if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0)
        return -errno;
    return bind(fd, (const struct sockaddr *)a, len) == 0 ? 0 : -errno;
}

int loop_register_files(struct loop *l, unsigned n)
{
    int ret = uring_files_register(&l->ring, n);
    if (ret < 0) {
        snprintf(l->w->error, sizeof(l->w->error), "registering %u file slots failed: %s", n, strerror(-ret));
        return -1;
    }
    return 0;
}

void loop_fatal(struct loop *l, const char *why, const char *detail)
{
    if (!l->w->fatal) {
        snprintf(l->w->error, sizeof(l->w->error), "%s%s", why, detail);
        l->w->fatal = true;
    }
    l->stopping = true;
    shb_stop_requested = 1;
}

/* ---- the loop ------------------------------------------------------------ */

static void arm_tick(struct loop *l)
{
    uring_prep_timeout(uring_sqe(&l->ring), &l->tick_ts, false, ud_make(OP_TICK, 0, 0));
}

static void on_tick(struct loop *l)
{
    if (shb_stop_requested)
        l->stopping = true;
    if (l->stopping)
        return;
    l->tp->tick(l);
    if (l->cfg->live)
        meter_publish(&l->meter, l->conns_open);
    arm_tick(l);
}

static void handle_cqe(struct loop *l, const struct io_uring_cqe *cqe)
{
    switch (ud_op(cqe->user_data)) {
    case OP_TICK:
        on_tick(l);
        return;
    case OP_DEADLINE:
        l->stopping = true;
        return;
    case OP_PACE:
        on_pace(l);
        return;
    case OP_LOG:
        reqlog_complete(l, ud_idx(cqe->user_data), cqe->res);
        return;
    case OP_LOG_SEEN:
        return;
    default:
        l->tp->complete(l, cqe);
        return;
    }
}

/* A -n run is over when every request of the budget has ended. */
static bool budget_done(const struct loop *l)
{
    return !l->cfg->timed && l->budget_left == 0 && l->in_flight == 0;
}

int worker_prepare(struct worker *w)
{
    struct loop *l = calloc(1, sizeof(*l));
    if (!l) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    l->ring.ring_fd = -1;
    w->state = l;
    l->w = w;
    l->cfg = &w->cfg;
    l->tp = w->cfg.h3 ? &udp_transport : &tcp_transport;
    if (stats_init(&w->stats) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    /* The retry queue's nodes: one per request that can be in flight. */
    const struct worker_config *cfg = &w->cfg;
    uint64_t per_conn = cfg->h3 ? cfg->h3->parallel : cfg->h2 ? cfg->h2->parallel : 1;
    if (loop_targets_init(l, (uint64_t)cfg->connections * (per_conn ? per_conn : 1) + 1) < 0) {
        snprintf(w->error, sizeof(w->error), "out of memory");
        return -1;
    }
    unsigned sq, cq, nbufs;
    if (l->tp->prepare(l, &sq, &cq) < 0)
        return -1;
    if (w->cfg.log) {
        if (reqlog_init(&l->log, w->cfg.log_fd, (enum reqlog_format)w->cfg.log_format) < 0) {
            snprintf(w->error, sizeof(w->error), "out of memory");
            return -1;
        }
        cq += REQLOG_BUFS; /* one write per buffer can be outstanding (CLAMP keeps it within the kernel's maximum) */
    }
    if (uring_init(&l->ring, sq, cq, w->error, sizeof(w->error)) < 0)
        return -1;
    if (l->tp->attach(l) < 0)
        return -1;
    /* Receive buffers: two per connection up to 1024 (16 MiB), whatever -c
     * is. A connection holds a buffer only while its completion waits in the
     * CQ; when the ring runs dry a receive ends with ENOBUFS and is re-armed
     * once buffers come back. */
    nbufs = 16;
    while (nbufs < 1024 && nbufs < w->cfg.connections * 2)
        nbufs <<= 1;
    int ret = uring_bufring_init(&l->ring, &l->bufs, LOOP_BUF_GROUP, nbufs, LOOP_RECV_BUF_SIZE);
    if (ret < 0) {
        snprintf(w->error, sizeof(w->error), "registering a provided buffer ring failed: %s%s", strerror(-ret),
                 ret == -EINVAL ? " (provided buffer rings need Linux 5.19, multishot receive 6.0)" : "");
        return -1;
    }
    l->tick_ts = ns_to_ts(TICK_NS);
    l->paced = w->cfg.rate != NULL;
    if (w->cfg.hdr_log) {
        if (hdrlog_thread_init(&w->hdr, l->paced ? 2 : 1) < 0) {
            snprintf(w->error, sizeof(w->error), "out of memory");
            return -1;
        }
    }
    meter_init(&l->meter, w, l->paced);
    if (l->paced) {
        l->waiters = calloc(w->cfg.connections, sizeof(*l->waiters));
        l->waiting = calloc(w->cfg.connections, 1);
        if (!l->waiters || !l->waiting) {
            snprintf(w->error, sizeof(w->error), "out of memory");
            return -1;
        }
        if (stats_init_pace(&w->stats) < 0) {
            snprintf(w->error, sizeof(w->error), "out of memory");
            return -1;
        }
    }
    return 0;
}

void worker_run(struct worker *w, uint64_t start_ns, uint64_t deadline_ns)
{
    struct loop *l = w->state;
    l->start_ns = start_ns;
    l->now = start_ns;
    w->end_ns = start_ns;
    l->budget_left = w->cfg.timed ? 0 : w->cfg.budget;
    meter_start(&l->meter, start_ns);
    l->pace_index = w->cfg.pace_first;
    if (l->paced)
        pace_next(l);
    uint64_t cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (deadline_ns) {
        l->deadline_ts = ns_to_ts(deadline_ns);
        uring_prep_timeout(uring_sqe(&l->ring), &l->deadline_ts, true, ud_make(OP_DEADLINE, 0, 0));
    }
    arm_tick(l);
    l->tp->start(l);
    /* -q: every completion is taken as it comes. A wait that held out for
     * a batch would let the pace timer's completion sit behind it. */
    unsigned wait_nr = l->paced ? 1 : l->tp->wait_batch(l);

    while (!l->stopping && !budget_done(l)) {
        uring_bufring_publish(&l->bufs);
        uint64_t mw = (l->latency_avg_ns >> MIN_WAIT_LATENCY_SHIFT) / 1000;
        unsigned min_wait = mw < MIN_WAIT_FLOOR_USEC ? MIN_WAIT_FLOOR_USEC
                            : mw > MIN_WAIT_CAP_USEC ? MIN_WAIT_CAP_USEC
                                                     : (unsigned)mw;
        int ret = uring_submit_wait(&l->ring, wait_nr, min_wait);
        if (ret < 0 && ret != -EINTR && ret != -ETIME && ret != -EAGAIN && ret != -EBUSY) {
            snprintf(w->error, sizeof(w->error), "io_uring_enter failed: %s", strerror(-ret));
            break;
        }
        l->now = monotonic_ns();
        meter_turn(&l->meter, l->now);
        unsigned head = uring_cq_head(&l->ring), tail = uring_cq_tail(&l->ring);
        for (; head != tail; head++)
            handle_cqe(l, uring_cq_at(&l->ring, head));
        uring_cq_advance(&l->ring, head);
        l->tp->after_batch(l);
        if (shb_stop_requested)
            l->stopping = true;
    }
    /* What the last batch queued (an HTTP/2 RST_STREAM for a request that
     * just timed out, a GOAWAY) still reaches the kernel, and so the
     * server, before the ring closes the sockets. */
    if (l->tp->end)
        l->tp->end(l);
    uring_submit_wait(&l->ring, 0, 0);
    if (l->log.mem) {
        reqlog_finish(l); /* the log is complete before main prints the report */
        w->log_lost = l->log.lost;
        w->log_error = l->log.error;
    }
    meter_finish(&l->meter);
    if (w->cfg.timed || l->stopping)
        w->end_ns = l->now;
    w->stats.in_flight = l->in_flight;
    /* Due before the run ended: before the -z deadline, or when Ctrl-C
     * (or a fatal error) stopped it. */
    if (l->paced && l->stopping)
        w->stats.pace.unsent = pace_unsent(l, deadline_ns && l->now > deadline_ns ? deadline_ns : l->now);
    w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
}

void worker_release(struct worker *w)
{
    struct loop *l = w->state;
    if (!l)
        return;
    if (l->ring.ring_fd >= 0)
        uring_exit(&l->ring); /* the kernel cancels what is pending and drops the sockets */
    if (l->bufs.ring)
        uring_bufring_free(&l->bufs);
    if (l->tp_state)
        l->tp->release(l);
    reqlog_free(&l->log);
    free(l->waiters);
    free(l->waiting);
    free(l->retry_nodes);
    free(l);
    w->state = NULL;
}
