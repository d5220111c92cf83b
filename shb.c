/* shb.c — main: command line, worker threads, report.
 *
 * Everything before the first request happens here: parse, split
 * connections and the request budget across workers (once), check the
 * machine and resolve every target (cli/preflight.c; all before the first
 * runs), then for each target in turn build
 * its request bytes and start its workers. The workers run on their own
 * and main only waits, turning a first SIGINT or SIGTERM into a stop flag
 * (the current target's run ends and is reported, no further one starts)
 * and one more, a second or more later, into an immediate exit. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/completions.h"
#include "cli/preflight.h"
#include "cli/reqlist.h"
#include "cli/version.h"
#include "h1.h"
#include "h2.h"
#include "h3.h"
#include "hpack.h"
#include "proxy.h"
#include "report/compare.h"
#include "report/hdrlog.h"
#include "report/html_cmd.h"
#include "report/html_run.h"
#include "report/live.h"
#include "report/merge.h"
#include "report/report.h"
#include "report/reqlog_line.h"
#include "report/thresholds.h"
#include "stats/stats.h"
#include "tls13/credentials.h"
#include "tls13/trust.h"
#include "worker/worker.h"

#ifdef SHB_TEST_KNOBS
/* The test build only (make asan: -DSHB_TEST_KNOBS; ./shb has none of
 * this): start values from the environment, read once here and handed to
 * the engines' configs, that make what a long run meets reachable in
 * seconds (test/e2e/e2e_longrun.sh). Unset or empty: the normal value. */
static uint64_t test_knob(const char *name, uint64_t min, uint64_t max, uint64_t dflt, bool *set)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || *end || v[0] == '-' || x < min || x > max)
        shb_die(2, "%s=%s: expected a number from %llu to %llu", name, v, (unsigned long long)min,
            (unsigned long long)max);
    *set = true;
    return x;
}
#endif

/* SIGINT (Ctrl-C) and SIGTERM (what Kubernetes, Slurm, systemd and
 * timeout(1) send) stop the run: the workers end within a tick, the report
 * is printed. One request to stop often arrives as several signals: timeout
 * sends its signal to shb and then to its whole process group, so shb gets
 * it twice microseconds apart, and a terminal's Ctrl-C reaches every process
 * of the foreground group. Signals within STOP_WINDOW_NS of the first are
 * that same request; a later one means "now": exit at once, 128 + its
 * number, as if it had killed shb. */
#define STOP_WINDOW_NS 1000000000ull
static volatile sig_atomic_t stop_signal; /* the first stop signal's number, 0: none yet */
static uint64_t stop_first_ns;            /* when it came (CLOCK_MONOTONIC), written before stop_signal */

static void on_stop_signal(int sig)
{
    /* clock_gettime is async-signal-safe (POSIX.1-2008, signal-safety(7)). */
    uint64_t now = monotonic_ns();
    if (stop_signal) {
        if (now - stop_first_ns < STOP_WINDOW_NS)
            return;
        _exit(128 + sig);
    }
    stop_first_ns = now;
    stop_signal = sig;
    shb_stop_requested = 1;
}

static const char *stop_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "a signal";
}

/* From here on the stop signals end the run rather than the process.
 * SA_RESTART: a signal inside the window must not cut the report's write
 * short (nanosleep and poll, which wait for the signal, are never restarted:
 * signal(7)). The handler masks both, so it never runs nested. */
static void catch_stop_signals(void)
{
    struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* --log FILE: created (or truncated) for appending, its header written.
 * O_APPEND makes each worker's buffer land whole at the end, whichever
 * thread writes next. */
static int reqlog_open(const char *path, enum reqlog_format f)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        shb_die(2, "--log %s: %s", path, strerror(errno));
    char head[REQLOG_LINE_MAX];
    size_t n = reqlog_header(head, f);
    if (n && write(fd, head, n) != (ssize_t)n)
        shb_die(2, "--log %s: cannot write: %s", path, strerror(errno));
    return fd;
}

/* How a target is named: its label, or its URL. */
static const char *target_name(const struct shb_target *t)
{
    return t->label ? t->label : t->url_text;
}

struct run {
    pthread_barrier_t ready, go;
    uint64_t start_ns, deadline_ns;
    bool abort;
    _Atomic unsigned finished;  /* workers whose run is over (the live view stops then) */
};

struct thread_arg {
    struct worker *w;
    struct run *run;
};

static void *worker_thread(void *p)
{
    struct thread_arg *a = p;
    int rc = worker_prepare(a->w);
    pthread_barrier_wait(&a->run->ready); /* main checks every worker's setup */
    pthread_barrier_wait(&a->run->go);    /* ... and sets the common start */
    if (rc == 0 && !a->run->abort)
        worker_run(a->w, a->run->start_ns, a->run->deadline_ns);
    atomic_fetch_add_explicit(&a->run->finished, 1, memory_order_release);
    worker_release(a->w);
    return NULL;
}

/* An HTTP/3 connection's receive window (see its use below). */
static uint64_t quic_window(uint32_t parallel)
{
    uint64_t w = (uint64_t)parallel << 12;
    return w < (64u << 10) ? 64u << 10 : w > (1u << 20) ? 1u << 20 : w;
}

/* share i of n items split as evenly as possible */
static uint64_t share(uint64_t total, unsigned parts, unsigned i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

/* shares 0 to i-1 together: where share i starts */
static uint64_t shares_before(uint64_t total, unsigned parts, unsigned i)
{
    return (uint64_t)i * (total / parts) + (i < total % parts ? i : total % parts);
}

/* --start-at: a day ahead at most (a typo in the date should not leave a
 * shard waiting for a year), and still ahead once the warm-up, which runs
 * before it, is taken off. Checked before anything is set up. */
#define START_AT_MAX_AHEAD_NS (86400ull * 1000000000u)
static void check_start_at(const struct shb_opts *o)
{
    uint64_t now = wall_ns();
    if (o->start_at_ns <= now)
        shb_die(2, "--start-at %s is %.3f s past: give a time still to come", o->start_at_text,
            (double)(now - o->start_at_ns) / 1e9);
    if (o->start_at_ns - now <= o->warmup_ns)
        shb_die(2, "--start-at %s is only %.3f s ahead, less than --warmup (which runs before it)", o->start_at_text,
            (double)(o->start_at_ns - now) / 1e9);
    if (o->start_at_ns - now > START_AT_MAX_AHEAD_NS)
        shb_die(2, "--start-at %s is more than a day ahead", o->start_at_text);
}

/* Sleeps until the wall clock reads target_ns, in slices so that Ctrl-C
 * ends the wait. False if it did. */
static bool wait_until_wall(uint64_t target_ns)
{
    for (;;) {
        if (shb_stop_requested)
            return false;
        uint64_t now = wall_ns();
        if (now >= target_ns)
            return true;
        uint64_t left = target_ns - now, step = left < 100000000u ? left : 100000000u;
        struct timespec ts = { (time_t)(step / 1000000000u), (long)(step % 1000000000u) };
        nanosleep(&ts, NULL);
    }
}

/* What every target's run shares, worked out once from the options. */
struct plan {
    uint32_t conns;    /* connections in use (-c, or fewer for a small -n) */
    unsigned threads;  /* worker threads: min(-t, conns) */
    bool timed;        /* -z rather than -n */
    unsigned ports;    /* the ephemeral port range's size, 0 if unknown (or a unix socket) */
    uint64_t conn_base; /* --bind: this shard's first connection's number in the whole run */
    bool live;         /* the live view on stderr */
    struct pace_rate rate, shard_rate; /* -q: the whole schedule, and a shard's part of it (its report's) */
};

static void plan_run(struct shb_opts *o, struct plan *pl)
{
    /* --shard I/N: this process's share of the connections and the -n
     * budget; of -q's schedule it takes every Nth request (the workers'
     * pace_first and pace_stride). */
    uint32_t total_conns = o->connections;
    if (o->shard_count > 1) {
        o->connections = (uint32_t)share(total_conns, o->shard_count, o->shard_index);
        if (o->connections == 0)
            shb_die(2, "--shard %u/%u: -c %u leaves this shard no connection (at most %u shards)", o->shard_index,
                o->shard_count, total_conns, total_conns);
        if (o->duration_ns == 0) {
            uint64_t total_requests = o->requests;
            o->requests = share(total_requests, o->shard_count, o->shard_index);
            if (o->requests == 0)
                shb_die(2, "--shard %u/%u: -n %llu leaves this shard no request (at most %llu shards)", o->shard_index,
                    o->shard_count, (unsigned long long)total_requests, (unsigned long long)total_requests);
        }
    }

    /* A -n run never needs more connections than it has requests for (one
     * each on HTTP/1.1, -p each on HTTP/2), and every thread gets at least
     * one connection. */
    pl->conns = o->connections;
    pl->timed = o->duration_ns != 0;
    uint64_t per_conn = o->http2 || o->http3 ? o->parallel : 1;
    if (!pl->timed && (o->requests + per_conn - 1) / per_conn < pl->conns)
        pl->conns = (uint32_t)((o->requests + per_conn - 1) / per_conn);
    pl->threads = o->threads < pl->conns ? o->threads : pl->conns;
    check_file_limit((pl->conns + pl->threads - 1) / pl->threads, pl->conns, pl->threads);
    /* A unix socket has no ports to run out of. */
    pl->ports = o->unix_socket ? 0 : check_port_range(pl->conns, o->nbind);
    /* --bind: the run's connection k (this shard's first is the total of
     * the shards' before it) takes address k mod N. */
    pl->conn_base = shares_before(total_conns, o->shard_count, o->shard_index);

    /* -q: one schedule for the whole run, which the workers share out
     * (pace.h); a ramp spans -z. A shard's report asks for its share. */
    pl->rate = (struct pace_rate){
        .from = o->rate_from,
        .to = o->rate_to,
        .ramp_ns = o->rate_ramp ? o->duration_ns : 0,
    };
    pl->shard_rate = pl->rate;
    pl->shard_rate.from /= o->shard_count;
    pl->shard_rate.to /= o->shard_count;

    /* The live view: only on a terminal, never on stdout (the report's). */
    pl->live = !o->no_progress && isatty(STDERR_FILENO);
}

/* One target's request bytes and protocol engines' configurations, built
 * once before its workers start; the configurations point into it. */
struct engines {
    uint8_t *req;
    size_t req_len;
    /* Every target's request (one without --targets), by target: HTTP/1.1
     * bytes or HTTP/2 blocks (list[i].bytes, owned), HTTP/3 streams. */
    uint32_t n;
    struct wire_request *list;
    struct h2_request *h2list;          /* --http2 with a list */
    struct h3_request *h3reqs;          /* --http3 */
    struct wire_request *h3list;
    struct report_target_name *names;   /* --targets: what the reports call each */
    uint8_t h3control[64];
    struct h3_config h3cfg;
    struct tls_config tlscfg;
    struct tls13_verify_config verify; /* --cacert without -k: what each connection's verifier starts from */
    struct h2_config h2cfg;
    struct h2_local h2local; /* -w, -W, --max-frame-size, --header-table-size */
    struct hpack_request_blocks indexed;
    uint8_t *connect;   /* through a proxy's tunnel: the CONNECT request, or NULL */
    size_t connect_len;
    bool quic_knob; /* the test build: a line of QUIC counters after the report */
};

static const uint8_t alpn_h3[] = "\x02h3", alpn_h2[] = "\x02h2", alpn_h1[] = "\x08http/1.1";

/* --cacert: the anchors and the name each connection checks: the URL's
 * host, also through --connect-to/--resolve (their point is to reach
 * another address under the same name). An IP literal is checked against
 * the certificate's iPAddress entries. */
static const struct tls13_verify_config *verify_build(struct engines *e, const struct shb_target *t,
                                                      const struct tls13_trust *trust)
{
    if (!trust)
        return NULL;
    e->verify.trust = trust;
    e->verify.host = t->url.host;
    if (inet_pton(AF_INET, t->url.host, e->verify.ip) == 1)
        e->verify.ip_len = 4;
    else if (inet_pton(AF_INET6, t->url.host, e->verify.ip) == 1)
        e->verify.ip_len = 16;
    return &e->verify;
}

static void *alloc_or_die(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        shb_die(1, "out of memory");
    return p;
}

/* Each target's request, built once (a run without --targets has one):
 * HTTP/1.1 bytes, or the HTTP/2 header block every stream sends (RFC 9113
 * §8.3.1 pseudo-headers, HPACK static references and literals), and for
 * HTTP/3 its stream's bytes (a HEADERS frame of QPACK static references,
 * the body as DATA). */
static void requests_build(struct engines *e, const struct shb_opts *o, const struct shb_target *t)
{
    e->n = o->reqlist ? (uint32_t)o->reqlist->n : 1;
    e->list = alloc_or_die(e->n, sizeof *e->list);
    if (o->http2 && o->reqlist)
        e->h2list = alloc_or_die(e->n, sizeof *e->h2list);
    if (o->http3) {
        e->h3reqs = alloc_or_die(e->n, sizeof *e->h3reqs);
        e->h3list = alloc_or_die(e->n, sizeof *e->h3list);
    }
    for (uint32_t i = 0; i < e->n; i++) {
        struct shb_request r = o->reqlist ? cli_reqlist_request(o, t, i) : cli_request(o, t);
        bool head = strcmp(shb_request_method(&r), "HEAD") == 0;
        size_t len;
        uint8_t *b = o->http2 ? hpack_encode_request(&r, &len) : h1_build_request(&r, &len);
        if (!b)
            shb_die(1, "out of memory");
        e->list[i] = (struct wire_request){ b, len, head };
        if (e->h2list)
            e->h2list[i] = (struct h2_request){ b, len, r.body, r.body_len, r.has_body, head };
        if (o->reqlist) {
            if (!e->names)
                e->names = alloc_or_die(e->n, sizeof *e->names);
            e->names[i] = (struct report_target_name){ shb_request_method(&r), o->reqlist->e[i].url_text };
        }
        if (o->http3) {
            if (h3_request_build(&e->h3reqs[i], &r) < 0)
                shb_die(1, "out of memory");
            e->h3list[i] = (struct wire_request){ e->h3reqs[i].bytes, e->h3reqs[i].len, head };
        }
    }
}

static void engines_build(struct engines *e, const struct shb_opts *o, const struct shb_target *t,
                          const struct tls13_credential *cred, const struct tls13_trust *trust)
{
    memset(e, 0, sizeof *e);
    const struct tls13_verify_config *verify = verify_build(e, t, trust);
    requests_build(e, o, t);
    e->req = (uint8_t *)e->list[0].bytes;
    e->req_len = e->list[0].len;
    struct shb_request request = cli_request(o, t);
    /* Through a proxy's tunnel, every connection's first bytes. */
    const struct shb_proxy *px = t->proxy;
    if (px && px->tunnel &&
        !(e->connect = proxy_connect_request(t->url.host, t->url.host_is_ipv6, t->url.port, px->authorization,
                                             &e->connect_len)))
        shb_die(1, "out of memory");
    /* HTTP/3: each request stream's bytes (requests_build) and our
     * control stream, built once. */
    if (o->http3) {
        e->h3cfg = (struct h3_config){
            .requests = e->h3list,
            .control = e->h3control,
            .control_len = h3_control_stream(e->h3control, sizeof e->h3control),
            .parallel = o->parallel,
            .quic = {
                .server_name = t->url.host_is_ip ? NULL : t->url.host,
                .alpn = alpn_h3,
                .alpn_len = sizeof alpn_h3 - 1,
                .max_streams = o->parallel,
                /* The connection's receive window is what quic/conn.c holds
                 * in its reassembly pool (about 1.5 bytes of memory per byte
                 * of window, per connection), so that nothing the server
                 * sends within it is ever refused: 4 KiB per stream, from
                 * 64 KiB to 1 MiB (at a 1 ms round trip, 64 MB/s to 1 GB/s
                 * per connection). Credit is granted as data is consumed. A
                 * stream may use all of it. */
                .stream_window = o->max_stream_data ? o->max_stream_data : quic_window(o->parallel),
                .conn_window = o->max_data ? o->max_data : quic_window(o->parallel),
                .uni_window = o->max_stream_data, /* 0: quic/conn.h's default */
                .idle_timeout_ns = 30000000000ull,
                .tls = &o->tls,
                .cred = cred,
                .verify = verify,
            },
        };
    }
    /* https://: ALPN offers exactly the protocol asked for (RFC 7301), so a
     * server that cannot speak it says so instead of downgrading us. The
     * name goes in SNI unless it is an IP literal (RFC 6066 §3). */
    e->tlscfg = (struct tls_config){
        .server_name = t->url.host_is_ip ? NULL : t->url.host,
        .alpn = o->http2 ? alpn_h2 : alpn_h1,
        .alpn_len = o->http2 ? sizeof alpn_h2 - 1 : sizeof alpn_h1 - 1,
        .choice = &o->tls,
        .cred = cred,
        .verify = verify,
    };
    e->h2cfg = (struct h2_config){
        .request_block = e->req,
        .request_block_len = e->req_len,
        .body = o->body,
        .body_len = o->body_len,
        .has_body = o->has_body,
        .head = e->list[0].head,
        .parallel = o->parallel,
        .requests = e->h2list,
        .nrequests = e->h2list ? e->n : 0,
        .local = &e->h2local,
    };
    e->h2local = (struct h2_local){
        .header_table_size = o->h2_header_table_size,
        .stream_window = (1u << o->h2_window_bits) - 1,
        .conn_window = (1u << o->h2_conn_window_bits) - 1,
        .max_frame_size = o->h2_max_frame_size,
    };
    /* HTTP/2: the first stream of each connection indexes what the static
     * table lacks and the others refer to it (hpack.h), as browsers and
     * h2load do; a request too large for the peer's table sends the plain
     * block every time. */
    if (o->http2 && !e->h2list) {
        int irc = hpack_encode_request_indexed(&request, &e->indexed);
        if (irc < 0)
            shb_die(1, "out of memory");
        if (irc == 0) {
            e->h2cfg.request_first = e->indexed.first;
            e->h2cfg.request_first_len = e->indexed.first_len;
            e->h2cfg.request_next = e->indexed.next;
            e->h2cfg.request_next_len = e->indexed.next_len;
        }
    }

#ifdef SHB_TEST_KNOBS
    /* SHB_TEST_H2_FIRST_STREAM_ID: every HTTP/2 connection's first stream
     * id (odd; e.g. 2^31-1-2k: k+1 streams, then a new connection).
     * SHB_TEST_QUIC_KEY_UPDATE_AFTER: 1-RTT packets per key phase of ours.
     * SHB_TEST_QUIC_FIRST_PN: the first 1-RTT packet number, or beyond
     * 2^31-2 the one they jump to as soon as they can. With a QUIC
     * one set, a line of counters the report lacks goes to stderr. */
    bool h2_knob = false;
    e->h2cfg.first_stream_id = (uint32_t)test_knob("SHB_TEST_H2_FIRST_STREAM_ID", 1, 0x7fffffff, 0, &h2_knob);
    if (h2_knob && !(e->h2cfg.first_stream_id & 1))
        shb_die(2, "SHB_TEST_H2_FIRST_STREAM_ID=%u: a client's stream ids are odd (RFC 9113 §5.1.1)",
            e->h2cfg.first_stream_id);
    e->h3cfg.quic.key_update_after = test_knob("SHB_TEST_QUIC_KEY_UPDATE_AFTER", 1, UINT64_MAX, 0, &e->quic_knob);
    /* Above what a first packet can carry (QUIC_FIRST_APP_PN_MAX), numbers
     * start there and jump (quic_conn_config's app_pn_target). */
    uint64_t first_pn = test_knob("SHB_TEST_QUIC_FIRST_PN", 0, QUIC_PN_MAX - (1ull << 32), 0, &e->quic_knob);
    e->h3cfg.quic.first_app_pn = first_pn < QUIC_FIRST_APP_PN_MAX ? first_pn : QUIC_FIRST_APP_PN_MAX;
    e->h3cfg.quic.app_pn_target = first_pn > QUIC_FIRST_APP_PN_MAX ? first_pn : 0;
#endif
}

static void engines_free(struct engines *e)
{
    for (uint32_t i = 0; i < e->n; i++) {
        free((void *)e->list[i].bytes);
        if (e->h3reqs)
            h3_request_free(&e->h3reqs[i]);
    }
    free(e->list);
    free(e->h2list);
    free(e->h3reqs);
    free(e->h3list);
    free(e->names);
    free(e->connect);
    free(e->indexed.first);
}

/* What one target's run gives back: its figures for the report, or no
 * report (ran false) when it could not run. */
struct target_result {
    bool ran;
    int rc;             /* the exit status this run alone would give */
    struct stats total; /* when ran; the caller frees it */
    struct report_info ri;
};

/* What a reported run's figures make of the exit status: 3 when a
 * --fail-if threshold failed (the report says which); without any, 1 when
 * no request got a response at all (one line on stderr says why), since a
 * run that measured nothing must not pass a CI step. A run a signal ended
 * before any request did has nothing to judge: 0, as its report says. */
static int run_verdict(const struct shb_opts *o, const struct target_result *res, const char *who)
{
    const struct stats *s = &res->total;
    if (o->nthresholds)
        return thresholds_failed(&res->ri, s) ? 3 : 0;
    uint64_t errors = stats_errors(s);
    if (s->ok || (res->ri.interrupted && !errors && !s->in_flight))
        return 0;
    int top = 0;
    for (int k = 1; k < ERR_KINDS; k++)
        if (s->errors[k] > s->errors[top])
            top = k;
    if (errors)
        fprintf(stderr, "shb: %sno request succeeded: all %" PRIu64 " ended in errors (%" PRIu64 " %s%s%s)\n", who,
                errors, s->errors[top], err_kind_name((enum err_kind)top), s->why[top][0] ? ": " : "", s->why[top]);
    else
        fprintf(stderr, "shb: %sno request succeeded: %" PRIu64 " still in flight when the run ended\n", who,
                s->in_flight);
    return 1;
}

/* One target, start to end: its workers set up, started together, waited
 * for; their figures merged into res. who goes before its error messages
 * ("target b: " when there are several, else ""). */
static void run_target(const struct shb_opts *o, const struct plan *pl, const struct shb_target *t,
                       const struct target_addr *a, const struct engines *e, const char *who, FILE *hdr_log,
                       int log_fd, struct target_result *res)
{
    unsigned threads = pl->threads;
    memset(res, 0, sizeof *res);
    struct worker *workers = calloc(threads, sizeof(*workers));
    struct thread_arg *args = calloc(threads, sizeof(*args));
    pthread_t *tids = calloc(threads, sizeof(*tids));
    struct run run = { 0 };
    if (!workers || !args || !tids)
        shb_die(1, "out of memory");
    pthread_barrier_init(&run.ready, NULL, threads + 1);
    pthread_barrier_init(&run.go, NULL, threads + 1);

    /* Workers never take the signal: main handles it and they poll the flag. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (unsigned i = 0; i < threads; i++) {
        workers[i].cfg = (struct worker_config){
            .addr = (const struct sockaddr *)&a->addr,
            .addrlen = a->addrlen,
            .requests = e->list,
            .ntargets = e->n,
            .targets_random = o->targets_random,
            .seed = o->seed,
            .h2 = o->http2 ? &e->h2cfg : NULL,
            .h3 = o->http3 ? &e->h3cfg : NULL,
            .tls = t->url.https ? &e->tlscfg : NULL,
            .proxy_connect = e->connect,
            .proxy_connect_len = e->connect_len,
            .host = t->url.host,
            .port = t->url.port,
            .connected_to = a->via ? a->text : NULL,
            .keepalive = !o->disable_keepalive,
            .tls_resume = o->tls_resume && (t->url.https || o->http3),
            .early_data = o->early_data && (t->url.https || o->http3),
            .connections = (uint32_t)share(pl->conns, threads, i),
            .budget = pl->timed ? 0 : share(o->requests, threads, i),
            .timed = pl->timed,
            .connect_timeout_ns = o->connect_timeout_ns,
            .timeout_ns = o->timeout_ns,
            .warmup_ns = o->warmup_ns,
            .rate = o->rate_from > 0 ? &pl->rate : NULL,
            .live = pl->live,
            .hdr_log = hdr_log != NULL,
            /* Shard I's threads take the requests I, I+N, ... of the one
             * schedule, interleaved as a single process's would be. */
            .pace_first = o->shard_index + o->shard_count * i,
            .pace_stride = o->shard_count * threads,
            /* connect() picks local ports of one parity first (the other is
             * bind()'s: net/ipv4/inet_hashtables.c, __inet_hash_connect),
             * so once half the range leads to the target every further
             * connect scans those thousands of taken ports: 760 us a
             * connect instead of 25 here. Each worker's share of the
             * connections beyond half the range binds its port first and
             * gets one of the other parity at once. With --bind, half of
             * each address's range (connections take the addresses in
             * turn, so a worker's first ones spread over them all). */
            .bind_from = pl->ports ? (uint32_t)share((uint64_t)pl->ports / 2 * (o->nbind ? o->nbind : 1), threads, i)
                                   : UINT32_MAX,
            .bind = o->bind,
            .nbind = o->nbind,
            .bind_first = o->nbind ? (uint32_t)((pl->conn_base + shares_before(pl->conns, threads, i)) % o->nbind) : 0,
            .log = log_fd >= 0,
            .log_fd = log_fd,
            .log_format = o->log_format,
            .thread = i,
            .conn_first = (uint32_t)(pl->conn_base + shares_before(pl->conns, threads, i)),
        };
        args[i] = (struct thread_arg){ .w = &workers[i], .run = &run };
        int rc = pthread_create(&tids[i], NULL, worker_thread, &args[i]);
        if (rc != 0)
            shb_die(1, "cannot start worker thread: %s", strerror(rc));
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    pthread_barrier_wait(&run.ready);
    for (unsigned i = 0; i < threads; i++) {
        if (workers[i].error[0]) {
            fprintf(stderr, "shb: %s%s\n", who, workers[i].error);
            run.abort = true;
            break;
        }
    }
    /* --start-at: the measured run (after the warm-up) begins then. */
    if (o->start_at_ns && !run.abort && !wait_until_wall(o->start_at_ns - o->warmup_ns)) {
        fprintf(stderr, "shb: interrupted before --start-at %s (%s)\n", o->start_at_text,
                stop_signal_name(stop_signal));
        run.abort = true;
    }
    uint64_t wall_start_ns = wall_ns();
    run.start_ns = monotonic_ns();
    if (o->start_at_ns && !run.abort) {
        /* The run's clock starts at the time asked for, not when this
         * process woke: shards' schedules line up to the clocks' reading,
         * not to each one's wake-up (tens of µs apart, or more). */
        uint64_t target = o->start_at_ns - o->warmup_ns;
        uint64_t late = wall_start_ns > target ? wall_start_ns - target : 0; /* a clock stepped back: 0 */
        run.start_ns -= late;
        wall_start_ns = target;
    }
    run.deadline_ns = pl->timed ? run.start_ns + o->duration_ns : 0;
    /* --log's start times: the run's start on the wall clock (the workers
     * read it only after the barrier below). */
    for (unsigned i = 0; i < threads; i++)
        workers[i].cfg.log_wall_start_ns = wall_start_ns;
    pthread_barrier_wait(&run.go);
    if (pl->live && !run.abort)
        live_run(workers, threads, run.start_ns, pl->timed ? o->duration_ns : 0, pl->timed ? 0 : o->requests,
                 o->warmup_ns, &run.finished);
    for (unsigned i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&run.ready);
    pthread_barrier_destroy(&run.go);

    const char *fatal = NULL;
    for (unsigned i = 0; i < threads && !run.abort && !fatal; i++)
        if (workers[i].fatal)
            fatal = workers[i].error;
    if (run.abort || fatal) {
        if (fatal)
            fprintf(stderr, "shb: %s%s\n", who, fatal);
        for (unsigned i = 0; i < threads; i++) {
            stats_free(&workers[i].stats);
            hdrlog_thread_free(&workers[i].hdr);
        }
        /* A signal during --start-at's wait: nothing ran, and the exit
         * status is the signal's, as if it had killed shb (130, 143). */
        res->rc = fatal ? 1 : stop_signal ? 128 + stop_signal : 1;
        goto out;
    }

    if (stats_init(&res->total) < 0 || (o->rate_from > 0 && stats_init_pace(&res->total) < 0))
        shb_die(1, "out of memory");
    /* The measured window starts where the warm-up ends. */
    uint64_t measured_from = run.start_ns + o->warmup_ns, end_ns = measured_from;
    uint64_t busiest_cpu_ns = 0;
    for (unsigned i = 0; i < threads; i++) {
        stats_merge(&res->total, &workers[i].stats);
        if (workers[i].end_ns > end_ns)
            end_ns = workers[i].end_ns;
        if (workers[i].cpu_ns > busiest_cpu_ns)
            busiest_cpu_ns = workers[i].cpu_ns;
        if (workers[i].error[0]) {
            fprintf(stderr, "shb: %sworker %u stopped early: %s\n", who, i, workers[i].error);
            res->rc = 1;
        }
        stats_free(&workers[i].stats);
    }
    res->ran = true;
    /* --log: a write failed in some worker (disk full, a file size limit):
     * the run went on, the log stops short. Said here, before the report. */
    for (unsigned i = 0; i < threads; i++) {
        if (workers[i].log_error) {
            fprintf(stderr, "shb: --log %s: writing failed (%s): the log is incomplete (thread %u lost %" PRIu64
                    " lines or more)\n", o->log, strerror(workers[i].log_error), i, workers[i].log_lost);
            res->rc = 1;
        }
    }
    int stopped_by = stop_signal; /* read once the workers are done: a signal after that changed nothing */
    res->ri = (struct report_info){
        .label = t->label,
        .url = t->url_text,
        .target_names = e->names,
        .connected_to = a->via ? a->text : NULL,
        .connected_via = a->via,
        .proxy = t->proxy ? t->proxy->url_text : NULL,
        .thresholds = o->thresholds,
        .nthresholds = o->nthresholds,
        .protocol = o->http3 ? "HTTP/3" : o->http2 ? "HTTP/2" : "HTTP/1.1",
        .threads = threads,
        .connections = pl->conns,
        .parallel = o->http2 || o->http3 ? o->parallel : 1,
        .version = shb_version,
        .duration_ns = end_ns - measured_from,
        .warmup_ns = o->warmup_ns,
        .rate = o->rate_from > 0 ? &pl->shard_rate : NULL,
        .start_wall_ns = wall_start_ns + o->warmup_ns,
        .shard_index = o->shard_index,
        .shard_count = o->shard_count,
        .histograms = o->histograms,
        /* The busiest worker thread's CPU time over the whole run's wall
         * time (warm-up included: so is its CPU time). */
        .client_busy = end_ns > run.start_ns ? (double)busiest_cpu_ns / (double)(end_ns - run.start_ns) : 0,
        .interrupted = stopped_by != 0,
        .interrupted_by = stopped_by ? stop_signal_name(stopped_by) : NULL,
    };
    if (hdr_log) {
        struct hdrlog_thread **recs = calloc(threads, sizeof *recs);
        char err[256];
        if (!recs)
            shb_die(1, "out of memory");
        for (unsigned i = 0; i < threads; i++)
            recs[i] = &workers[i].hdr;
        if (hdrlog_write(hdr_log, recs, threads, res->ri.start_wall_ns, res->ri.duration_ns, err, sizeof err) < 0) {
            fprintf(stderr, "shb: --hdr-log %s: %s\n", o->hdr_log, err);
            res->rc = 1;
        }
        for (unsigned i = 0; i < threads; i++)
            hdrlog_thread_free(&workers[i].hdr);
        free(recs);
    }
out:
    free(workers);
    free(args);
    free(tids);
}

#ifdef SHB_TEST_KNOBS
/* The test build, with a QUIC knob set: counters the report lacks. */
static void print_quic_counters(const struct stats *total)
{
    const struct quic_stats *q = &total->quic;
    fprintf(stderr, "shb-test: keyUpdates=%llu", (unsigned long long)q->key_updates);
    for (size_t i = 0; i < quic_ncounters; i++)
        if (quic_counters[i].group == QC_TEST)
            fprintf(stderr, " %s=%llu", quic_counters[i].key,
                    (unsigned long long)quic_counter_get(q, &quic_counters[i]));
    fputc('\n', stderr);
}
#endif

/* Several targets: each report as it comes (text: after a header line
 * naming the target; JSON: an element of one array), then the comparison
 * table; reports of targets that could not run are missing from both. */
struct multi_out {
    struct compare_row *rows; /* one per target that ran */
    size_t nrows;
    bool json_open;           /* the JSON array's '[' is out */
};

static void multi_report(const struct shb_opts *o, struct multi_out *m, const struct target_result *res)
{
    if (o->json) {
        fputs(m->json_open ? ",\n" : "[\n", stdout);
        m->json_open = true;
        report_json_object(stdout, &res->ri, &res->total);
    } else {
        report_text(stdout, &res->ri, &res->total);
    }
    fflush(stdout);
    struct compare_row *row = &m->rows[m->nrows++];
    row->name = res->ri.label ? res->ri.label : res->ri.url;
    row->interrupted = res->ri.interrupted;
    report_summary(&res->ri, &res->total, &row->sum);
}

static void multi_end(const struct shb_opts *o, const struct multi_out *m)
{
    if (o->json) {
        if (m->json_open)
            fputs("\n]\n", stdout);
    } else if (m->nrows > 1) {
        fputc('\n', stdout);
        compare_text(stdout, m->rows, m->nrows);
    }
    fflush(stdout);
}

/* shb merge [-j] [--force] FILE...: one report from many (merge.c). */
static int cmd_merge(int argc, char **argv)
{
    return merge_main(argc, argv, stdout, stderr);
}

/* shb report --html FILE REPORT...: the HTML page from reports (html_cmd.c). */
static int cmd_report(int argc, char **argv)
{
    return html_cmd_main(argc, argv, stdout, stderr);
}

/* shb completions SHELL: the script on stdout (completions.c). */
static int cmd_completions(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        puts("Usage: shb completions <SHELL>   (SHELL: bash, zsh or fish)");
        return 0;
    }
    if (argc != 2)
        shb_die(2, "completions: expected one shell: bash, zsh or fish (usage: shb completions <SHELL>)");
    if (completions_write(stdout, argv[1]) < 0)
        shb_die(2, "completions: unknown shell '%s' (use bash, zsh or fish)", argv[1]);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/* Subcommands, by argv[1]: a URL has "://", so none of these words is one.
 * Each runs with argv from its own name on and returns the exit status.
 * The man page and completions describe them from cli.c's table. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {
    {"completions", cmd_completions},
    {"merge", cmd_merge},
    {"report", cmd_report},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; argc > 1 && i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);

    struct shb_opts o;
    char err[512];
    unsigned cores = cli_physical_cores();
    switch (cli_parse(argc, argv, &o, cores, stdout, err, sizeof(err))) {
    case CLI_HELP:
        return 0;
    case CLI_VERSION:
        printf("shb %s\n", shb_version);
        return 0;
    case CLI_ERROR:
        shb_die(2, "%s", err);
    case CLI_OK:
        break;
    }
    cli_hide_secrets(argc, argv);
    require_kernel();
    if (o.start_at_ns)
        check_start_at(&o);
    /* --hdr-log: created now, so a path that cannot be written stops the
     * run before any traffic; written after the report. */
    FILE *hdr_log = NULL;
    if (o.hdr_log && !(hdr_log = hdrlog_open(o.hdr_log, err, sizeof err)))
        shb_die(2, "%s", err);
    /* --log: created now (a path that cannot be written stops the run
     * before any traffic), its header line first; the workers append. */
    int log_fd = o.log ? reqlog_open(o.log, (enum reqlog_format)o.log_format) : -1;
    /* --cert/--key: loaded once for the whole run; every connection's
     * handshake points at it. */
    static struct tls13_credential cred;
    if (o.cert)
        load_client_cert(&o, &cred);
    /* --cacert: the anchors, loaded once (and checked even under -k, which
     * then wins: nothing is verified, as with curl). */
    static struct tls13_trust trust;
    if (o.cacert)
        load_cacert(&o, &trust);
    struct plan pl;
    plan_run(&o, &pl);
    struct target_addr *addrs = calloc(o.ntargets, sizeof *addrs);
    if (!addrs)
        shb_die(1, "out of memory");
    check_targets(&o, addrs);
    /* --html: created once the targets are known good, before any traffic
     * (as --log's file); the page is drawn after the last report. */
    struct html_run html = { 0 };
    if (o.html && html_run_open(&html, o.html, err, sizeof err) < 0)
        shb_die(2, "%s", err);

    catch_stop_signals();

    bool several = o.ntargets > 1;
    struct multi_out m = { .rows = calloc(o.ntargets, sizeof *m.rows) };
    if (!m.rows)
        shb_die(1, "out of memory");
    int rc = 0;
    size_t done = 0;
    bool failed = false; /* a target could not run: the ones after it are not run */
    /* One after another, never at once: they would share the client's CPU.
     * The first always starts: a signal that came before it stops it at
     * once, and it is reported (interrupted) rather than nothing printed. */
    for (; done < o.ntargets && (done == 0 || !shb_stop_requested); done++) {
        const struct shb_target *t = &o.targets[done];
        /* The header line: with several targets, or to show a label. */
        if ((several || t->label) && !o.json) {
            if (t->label)
                printf("%s== %s (%s)\n", done ? "\n" : "", t->label, t->url_text);
            else
                printf("%s== %s\n", done ? "\n" : "", t->url_text);
            fflush(stdout); /* above the live view, which is drawn under it */
        }
        char who[CLI_LABEL_MAX + 16] = "";
        if (several && t->label)
            snprintf(who, sizeof who, "target %s: ", t->label);
        else if (several)
            snprintf(who, sizeof who, "target %zu: ", done + 1);
        struct engines e;
        engines_build(&e, &o, t, o.cert ? &cred : NULL, o.cacert && !o.insecure ? &trust : NULL);
        struct target_result res;
        run_target(&o, &pl, t, &addrs[done], &e, who, hdr_log, log_fd, &res);
        if (res.ran)
            hdr_log = NULL; /* written and closed (cli.c allows it one target only) */
        if (res.rc > rc)
            rc = res.rc;
        if (res.ran) {
            /* A signal ended this one's run (ri.interrupted): it is
             * reported, the rest are not run. */
            if (!several && o.json)
                report_json(stdout, &res.ri, &res.total);
            else if (!several)
                report_text(stdout, &res.ri, &res.total);
            else
                multi_report(&o, &m, &res);
            fflush(stdout);
            if (html.page)
                html_run_add(&html, &res.ri, &res.total);
            int verdict = run_verdict(&o, &res, who);
            if (verdict > rc)
                rc = verdict;
#ifdef SHB_TEST_KNOBS
            if (e.quic_knob)
                print_quic_counters(&res.total);
#endif
            stats_free(&res.total);
        }
        engines_free(&e);
        if (!res.ran) {
            done++;
            failed = true;
            break; /* what ends a single target's run ends them all */
        }
    }
    if (several) {
        multi_end(&o, &m);
        if (done < o.ntargets)
            fprintf(stderr, "shb: %s%zu of %zu targets not run (from %s on)\n", failed ? "" : "interrupted: ",
                    o.ntargets - done, o.ntargets, target_name(&o.targets[done]));
    }
    if (html.page && html_run_close(&html, err, sizeof err) < 0) {
        fprintf(stderr, "shb: %s\n", err);
        if (rc == 0)
            rc = 1;
    }
    if (hdr_log)
        fclose(hdr_log);
    if (log_fd >= 0)
        close(log_fd);
    free(m.rows);
    free(addrs);
    cli_free(&o);
    return rc;
}
