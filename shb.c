/* shb.c — main: command line, target resolution, worker threads, report.
 *
 * Everything before the first request happens here: parse, split
 * connections and the request budget across workers (once), resolve every
 * target (all before the first runs), then for each target in turn build
 * its request bytes and start its workers. The workers run on their own
 * and main only waits, turning a first SIGINT or SIGTERM into a stop flag
 * (the current target's run ends and is reported, no further one starts)
 * and one more, a second or more later, into an immediate exit. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/compare.h"
#include "cli/completions.h"
#include "h1.h"
#include "h2.h"
#include "h3.h"
#include "report/hdrlog.h"
#include "hpack.h"
#include "report/live.h"
#include "report/merge.h"
#include "report/report.h"
#include "stats/stats.h"
#include "cli/version.h"
#include "worker/worker.h"

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("shb: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

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
        die(2, "%s=%s: expected a number from %llu to %llu", name, v, (unsigned long long)min,
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

/* Multishot receive (6.0) and provided buffer rings (5.19) are used on every
 * connection; an older kernel gets told so instead of failing obscurely. */
static void require_kernel(void)
{
    struct utsname u;
    if (uname(&u) != 0)
        return;
    unsigned major = 0, minor = 0;
    if (sscanf(u.release, "%u.%u", &major, &minor) != 2)
        return;
    if (major < 6)
        die(1, "Linux %s is too old: shb needs 6.0 or newer for io_uring multishot receive", u.release);
}

static socklen_t inet_len(int family)
{
    return family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* Binds fd to src (port 0) the way connections do (loop_bind_source): the
 * port is left to connect(). */
static int bind_no_port(int fd, const struct sockaddr_storage *src)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) != 0)
        return -1;
    return bind(fd, (const struct sockaddr *)src, inet_len(src->ss_family));
}

/* One plain non-blocking connect to addr (from src, --bind's first
 * address, when given), closed at once: 0 when it is accepted within
 * timeout_ns, else why not (an errno value). */
static int connect_error(const struct sockaddr *addr, socklen_t addrlen, const struct sockaddr_storage *src,
                         uint64_t timeout_ns)
{
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int err = 0;
    if (src && bind_no_port(fd, src) != 0) {
        err = errno; /* not this machine's address: check_bind says so first */
    } else if (connect(fd, addr, addrlen) != 0) {
        err = errno;
        if (err == EINPROGRESS) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            socklen_t len = sizeof(err);
            int n = poll(&p, 1, (int)(timeout_ns / 1000000));
            if (n == 0)
                err = ETIMEDOUT;
            else if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                err = errno;
        }
    }
    close(fd);
    return err;
}

/* A target's address, found before any target runs. */
struct target_addr {
    struct sockaddr_storage addr;
    socklen_t addrlen;
};

/* When a name has several addresses, each is tried with one plain connect
 * and the first that accepts wins. */
static void resolve(const struct shb_opts *o, const struct shb_url *url, struct target_addr *out)
{
    char port[8];
    snprintf(port, sizeof(port), "%u", url->port);
    /* --bind: only addresses of its family can be reached from it. */
    int family = o->nbind ? o->bind[0].ss_family : AF_UNSPEC;
    struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
    if (url->host_is_ip)
        hints.ai_flags = AI_NUMERICHOST;
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(url->host, port, &hints, &res);
    if ((rc != 0 || !res) && family != AF_UNSPEC)
        die(2, "cannot resolve host '%s' to an %s address (--bind's are): %s", url->host,
            family == AF_INET ? "IPv4" : "IPv6", rc ? gai_strerror(rc) : "no address");
    if (rc != 0 || !res)
        die(2, "cannot resolve host '%s': %s", url->host, rc ? gai_strerror(rc) : "no address");
    const struct addrinfo *pick = res;
    if (res->ai_next) {
        for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
            if (connect_error(ai->ai_addr, ai->ai_addrlen, o->nbind ? &o->bind[0] : NULL, o->connect_timeout_ns) == 0) {
                pick = ai;
                break;
            }
        }
    }
    memcpy(&out->addr, pick->ai_addr, pick->ai_addrlen);
    out->addrlen = pick->ai_addrlen;
    freeaddrinfo(res);
}

/* --unix-socket: the path is the address. One that names nothing, or no
 * socket, or one we may not connect to, is bad input, as a host name that
 * does not resolve is; a socket nobody listens on is refused connection by
 * connection (`connect` errors), as a TCP port is. */
static void resolve_unix(const char *path, struct target_addr *out)
{
    struct sockaddr_un *un = (struct sockaddr_un *)&out->addr;
    size_t len = strlen(path); /* fits sun_path with its NUL (cli.c) */
    memset(out, 0, sizeof *out);
    un->sun_family = AF_UNIX;
    memcpy(un->sun_path, path, len + 1);
    out->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
    struct stat st;
    if (stat(path, &st) != 0)
        die(2, "--unix-socket %s: %s", path, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        die(2, "--unix-socket %s: not a socket", path);
    /* connect(2) on a unix socket needs write permission on it (unix(7)). */
    if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
        die(2, "--unix-socket %s: %s", path, strerror(errno));
}

/* --bind: every address must be one of this machine's, or every connect
 * from it fails (EADDRNOTAVAIL). */
static void check_bind(const struct shb_opts *o)
{
    for (uint32_t k = 0; k < o->nbind; k++) {
        const struct sockaddr_storage *a = &o->bind[k];
        int fd = socket(a->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            die(1, "cannot make a socket: %s", strerror(errno));
        if (bind_no_port(fd, a) != 0) {
            int e = errno;
            char text[INET6_ADDRSTRLEN];
            const void *ip = a->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
                                                      : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
            inet_ntop(a->ss_family, ip, text, sizeof text);
            die(2, "--bind %s: %s%s", text, strerror(e),
                e == EADDRNOTAVAIL ? " (not an address of this machine)" : "");
        }
        close(fd);
    }
}

/* How a target is named: its label, or its URL. */
static const char *target_name(const struct shb_target *t)
{
    return t->label ? t->label : t->url_text;
}

/* With several targets every one is resolved and, over TCP, tried with
 * one plain connect before the first runs: a target that is down ends the
 * whole run before anything is half-done (one target alone keeps what it
 * always did: a report of connect errors). HTTP/3 has no connect to try
 * (UDP): a QUIC target that does not answer shows in its report. */
static void check_targets(const struct shb_opts *o, struct target_addr *addrs)
{
    check_bind(o);
    for (size_t i = 0; i < o->ntargets; i++) {
        if (o->unix_socket)
            resolve_unix(o->unix_socket, &addrs[i]);
        else
            resolve(o, &o->targets[i].url, &addrs[i]);
    }
    if (o->ntargets < 2 || o->http3)
        return;
    for (size_t i = 0; i < o->ntargets; i++) {
        const struct shb_target *t = &o->targets[i];
        int err = connect_error((const struct sockaddr *)&addrs[i].addr, addrs[i].addrlen,
                                o->nbind ? &o->bind[0] : NULL, o->connect_timeout_ns);
        if (err == 0)
            continue;
        if (t->label)
            die(2, "target %s (%s) does not accept connections: %s; no target was run", t->label, t->url_text,
                strerror(err));
        die(2, "target %s does not accept connections: %s; no target was run", t->url_text, strerror(err));
    }
}

/* Each worker registers one file slot per connection, and the kernel allows
 * a ring no more slots than the process may have open files (RLIMIT_NOFILE;
 * io_uring/filetable.c). The soft limit goes up to the hard one first; a -c
 * that still cannot fit is refused before any traffic. */
static void check_file_limit(uint64_t per_worker, uint32_t conns, unsigned threads)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit raised = { rl.rlim_max, rl.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl = raised;
    }
    /* A few descriptors stay free for the rings, stdio and the socket being
     * opened before it moves into its slot. */
    uint64_t room = rl.rlim_cur > 16 ? (uint64_t)rl.rlim_cur - 16 : 0;
    if (rl.rlim_cur != RLIM_INFINITY && per_worker > room)
        die(2, "-c %u puts %llu connections on each of %u worker thread%s, but RLIMIT_NOFILE lets a thread "
               "hold at most %llu here (hard limit %llu): raise the hard limit (ulimit -Hn as root, LimitNOFILE= "
               "under systemd) or spread them over more threads (-t)",
            conns, (unsigned long long)per_worker, threads, threads == 1 ? "" : "s", (unsigned long long)room,
            (unsigned long long)rl.rlim_max);
}

/* Ports of [lo, hi] listed in net.ipv4.ip_local_reserved_ports
 * ("39000-39999,40005"; empty when none): neither connect() nor bind() to
 * port 0 ever picks them (inet_is_local_reserved_port), so they are not
 * the run's. 0 when the file cannot be read. */
static unsigned reserved_ports_in(unsigned lo, unsigned hi)
{
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_reserved_ports", "re");
    if (!f)
        return 0;
    unsigned n = 0, a, b;
    while (fscanf(f, "%u", &a) == 1) {
        b = a;
        int c = fgetc(f);
        if (c == '-') {
            if (fscanf(f, "%u", &b) != 1)
                break;
            c = fgetc(f);
        }
        unsigned from = a > lo ? a : lo, to = b < hi ? b : hi;
        if (from <= to)
            n += to - from + 1;
        if (c != ',')
            break;
    }
    fclose(f);
    return n;
}

/* Every connection goes to one address, so each needs a local port of its
 * own from the kernel's ephemeral range, less its reserved ports: one range
 * per source address (--bind's N give N ranges). Returns the ports there
 * are (0 when the range cannot be read). */
static unsigned check_port_range(uint32_t conns, uint32_t sources)
{
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
    if (!f)
        return 0;
    unsigned lo = 0, hi = 0;
    int n = fscanf(f, "%u %u", &lo, &hi);
    fclose(f);
    if (n != 2 || hi < lo)
        return 0;
    unsigned reserved = reserved_ports_in(lo, hi);
    unsigned ports = hi - lo + 1 - reserved;
    char less[96] = "";
    if (reserved)
        snprintf(less, sizeof less, " (less the %u that net.ipv4.ip_local_reserved_ports holds)", reserved);
    if (sources > 1 && conns > (uint64_t)ports * sources)
        die(2, "-c %u needs %u local ports to one address, but net.ipv4.ip_local_port_range (%u-%u)%s has %u on "
               "each of --bind's %u addresses: give more addresses, or widen the range (sysctl -w "
               "net.ipv4.ip_local_port_range=\"1024 65535\")",
            conns, conns, lo, hi, less, ports, sources);
    if (sources <= 1 && conns > ports)
        die(2, "-c %u needs %u local ports to one address, but net.ipv4.ip_local_port_range (%u-%u)%s has %u: "
               "widen it (sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"), or spread the connections "
               "over several source addresses (--bind)",
            conns, conns, lo, hi, less, ports);
    return ports;
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
        die(2, "--start-at %s is %.3f s past: give a time still to come", o->start_at_text,
            (double)(now - o->start_at_ns) / 1e9);
    if (o->start_at_ns - now <= o->warmup_ns)
        die(2, "--start-at %s is only %.3f s ahead, less than --warmup (which runs before it)", o->start_at_text,
            (double)(o->start_at_ns - now) / 1e9);
    if (o->start_at_ns - now > START_AT_MAX_AHEAD_NS)
        die(2, "--start-at %s is more than a day ahead", o->start_at_text);
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
            die(2, "--shard %u/%u: -c %u leaves this shard no connection (at most %u shards)", o->shard_index,
                o->shard_count, total_conns, total_conns);
        if (o->duration_ns == 0) {
            uint64_t total_requests = o->requests;
            o->requests = share(total_requests, o->shard_count, o->shard_index);
            if (o->requests == 0)
                die(2, "--shard %u/%u: -n %llu leaves this shard no request (at most %llu shards)", o->shard_index,
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
    struct h3_request h3req;
    uint8_t h3control[64];
    struct h3_config h3cfg;
    struct tls_config tlscfg;
    struct h2_config h2cfg;
    struct hpack_request_blocks indexed;
    bool quic_knob; /* the test build: a line of QUIC counters after the report */
};

static const uint8_t alpn_h3[] = "\x02h3", alpn_h2[] = "\x02h2", alpn_h1[] = "\x08http/1.1";

static void engines_build(struct engines *e, const struct shb_opts *o, const struct shb_target *t)
{
    memset(e, 0, sizeof *e);
    /* The request, built once: HTTP/1.1 bytes, or the HTTP/2 header block
     * every stream sends (RFC 9113 §8.3.1 pseudo-headers, HPACK static
     * references and literals). */
    struct shb_request request = cli_request(o, t);
    e->req = o->http2 ? hpack_encode_request(&request, &e->req_len) : h1_build_request(&request, &e->req_len);
    if (!e->req)
        die(1, "out of memory");
    /* HTTP/3: each request stream's bytes (a HEADERS frame of QPACK static
     * references, the body as DATA) and our control stream, built once. */
    if (o->http3) {
        if (h3_request_build(&e->h3req, &request) < 0)
            die(1, "out of memory");
        e->h3cfg = (struct h3_config){
            .request = e->h3req.bytes,
            .request_len = e->h3req.len,
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
                .stream_window = quic_window(o->parallel),
                .conn_window = quic_window(o->parallel),
                .idle_timeout_ns = 30000000000ull,
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
    };
    e->h2cfg = (struct h2_config){
        .request_block = e->req,
        .request_block_len = e->req_len,
        .body = o->body,
        .body_len = o->body_len,
        .has_body = o->has_body,
        .head = strcmp(o->method, "HEAD") == 0,
        .parallel = o->parallel,
    };
    /* HTTP/2: the first stream of each connection indexes what the static
     * table lacks and the others refer to it (hpack.h), as browsers and
     * h2load do; a request too large for the peer's table sends the plain
     * block every time. */
    if (o->http2) {
        int irc = hpack_encode_request_indexed(&request, &e->indexed);
        if (irc < 0)
            die(1, "out of memory");
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
        die(2, "SHB_TEST_H2_FIRST_STREAM_ID=%u: a client's stream ids are odd (RFC 9113 §5.1.1)",
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
    free(e->req);
    free(e->indexed.first);
    h3_request_free(&e->h3req);
}

/* What one target's run gives back: its figures for the report, or no
 * report (ran false) when it could not run. */
struct target_result {
    bool ran;
    int rc;             /* the exit status this run alone would give */
    struct stats total; /* when ran; the caller frees it */
    struct report_info ri;
};

/* One target, start to end: its workers set up, started together, waited
 * for; their figures merged into res. who goes before its error messages
 * ("target b: " when there are several, else ""). */
static void run_target(const struct shb_opts *o, const struct plan *pl, const struct shb_target *t,
                       const struct target_addr *a, const struct engines *e, const char *who, FILE *hdr_log,
                       struct target_result *res)
{
    unsigned threads = pl->threads;
    memset(res, 0, sizeof *res);
    struct worker *workers = calloc(threads, sizeof(*workers));
    struct thread_arg *args = calloc(threads, sizeof(*args));
    pthread_t *tids = calloc(threads, sizeof(*tids));
    struct run run = { 0 };
    if (!workers || !args || !tids)
        die(1, "out of memory");
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
            .request = e->req,
            .request_len = e->req_len,
            .h2 = o->http2 ? &e->h2cfg : NULL,
            .h3 = o->http3 ? &e->h3cfg : NULL,
            .tls = t->url.https ? &e->tlscfg : NULL,
            .host = t->url.host,
            .port = t->url.port,
            .head = strcmp(o->method, "HEAD") == 0,
            .keepalive = !o->disable_keepalive,
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
        };
        args[i] = (struct thread_arg){ .w = &workers[i], .run = &run };
        int rc = pthread_create(&tids[i], NULL, worker_thread, &args[i]);
        if (rc != 0)
            die(1, "cannot start worker thread: %s", strerror(rc));
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
        die(1, "out of memory");
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
    int stopped_by = stop_signal; /* read once the workers are done: a signal after that changed nothing */
    res->ri = (struct report_info){
        .label = t->label,
        .url = t->url_text,
        .protocol = o->http3 ? "HTTP/3" : o->http2 ? "HTTP/2" : "HTTP/1.1",
        .threads = threads,
        .connections = pl->conns,
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
            die(1, "out of memory");
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

/* shb completions SHELL: the script on stdout (completions.c). */
static int cmd_completions(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        puts("Usage: shb completions <SHELL>   (SHELL: bash, zsh or fish)");
        return 0;
    }
    if (argc != 2)
        die(2, "completions: expected one shell: bash, zsh or fish (usage: shb completions <SHELL>)");
    if (completions_write(stdout, argv[1]) < 0)
        die(2, "completions: unknown shell '%s' (use bash, zsh or fish)", argv[1]);
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
        die(2, "%s", err);
    case CLI_OK:
        break;
    }
    require_kernel();
    if (o.start_at_ns)
        check_start_at(&o);
    /* --hdr-log: created now, so a path that cannot be written stops the
     * run before any traffic; written after the report. */
    FILE *hdr_log = NULL;
    if (o.hdr_log && !(hdr_log = hdrlog_open(o.hdr_log, err, sizeof err)))
        die(2, "%s", err);
    struct plan pl;
    plan_run(&o, &pl);
    struct target_addr *addrs = calloc(o.ntargets, sizeof *addrs);
    if (!addrs)
        die(1, "out of memory");
    check_targets(&o, addrs);

    catch_stop_signals();

    bool several = o.ntargets > 1;
    struct multi_out m = { .rows = calloc(o.ntargets, sizeof *m.rows) };
    if (!m.rows)
        die(1, "out of memory");
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
        engines_build(&e, &o, t);
        struct target_result res;
        run_target(&o, &pl, t, &addrs[done], &e, who, hdr_log, &res);
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
    if (hdr_log)
        fclose(hdr_log);
    free(m.rows);
    free(addrs);
    cli_free(&o);
    return rc;
}
