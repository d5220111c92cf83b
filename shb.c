/* shb.c — main: command line, target resolution, worker threads, report.
 *
 * Everything before the first request happens here, once: parse, resolve,
 * build the request bytes, split connections and the request budget across
 * workers. Then the workers run on their own and main only waits, turning a
 * first Ctrl-C into a stop flag and a second into an immediate exit. */
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

#include "cli.h"
#include "h1.h"
#include "h2.h"
#include "h3.h"
#include "hpack.h"
#include "live.h"
#include "report.h"
#include "stats.h"
#include "worker.h"

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
 * seconds (test/e2e_longrun.sh). Unset or empty: the normal value. */
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

static void on_sigint(int sig)
{
    (void)sig;
    if (shb_stop_requested)
        _exit(130); /* second Ctrl-C: the user means it */
    shb_stop_requested = 1;
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

/* Tries each address with a plain non-blocking connect (from src, --bind's
 * first address, when given); the first that accepts wins. Only used when
 * a name has several addresses. */
static bool accepts_connection(const struct addrinfo *ai, const struct sockaddr_storage *src, uint64_t timeout_ns)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool ok = false;
    if (src && bind_no_port(fd, src) != 0) {
        /* not this machine's address: check_bind says so */
    } else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        ok = true;
    } else if (errno == EINPROGRESS) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int err = 0;
        socklen_t len = sizeof(err);
        if (poll(&p, 1, (int)(timeout_ns / 1000000)) == 1 &&
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
            ok = true;
    }
    close(fd);
    return ok;
}

static void resolve(const struct shb_opts *o, struct sockaddr_storage *out, socklen_t *outlen)
{
    char port[8];
    snprintf(port, sizeof(port), "%u", o->url.port);
    /* --bind: only addresses of its family can be reached from it. */
    int family = o->nbind ? o->bind[0].ss_family : AF_UNSPEC;
    struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
    if (o->url.host_is_ip)
        hints.ai_flags = AI_NUMERICHOST;
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(o->url.host, port, &hints, &res);
    if ((rc != 0 || !res) && family != AF_UNSPEC)
        die(2, "cannot resolve host '%s' to an %s address (--bind's are): %s", o->url.host,
            family == AF_INET ? "IPv4" : "IPv6", rc ? gai_strerror(rc) : "no address");
    if (rc != 0 || !res)
        die(2, "cannot resolve host '%s': %s", o->url.host, rc ? gai_strerror(rc) : "no address");
    const struct addrinfo *pick = res;
    if (res->ai_next) {
        for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
            if (accepts_connection(ai, o->nbind ? &o->bind[0] : NULL, o->connect_timeout_ns)) {
                pick = ai;
                break;
            }
        }
    }
    memcpy(out, pick->ai_addr, pick->ai_addrlen);
    *outlen = pick->ai_addrlen;
    freeaddrinfo(res);
}

/* --unix-socket: the path is the address. One that names nothing, or no
 * socket, or one we may not connect to, is bad input, as a host name that
 * does not resolve is; a socket nobody listens on is refused connection by
 * connection (`connect` errors), as a TCP port is. */
static void resolve_unix(const char *path, struct sockaddr_storage *out, socklen_t *outlen)
{
    struct sockaddr_un *un = (struct sockaddr_un *)out;
    size_t len = strlen(path); /* fits sun_path with its NUL (cli.c) */
    memset(out, 0, sizeof *out);
    un->sun_family = AF_UNIX;
    memcpy(un->sun_path, path, len + 1);
    *outlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
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

/* Every connection goes to one address, so each needs a local port of its
 * own from the kernel's ephemeral range: one range per source address
 * (--bind's N give N ranges). Returns the range's size (0 when it cannot be
 * read). */
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
    unsigned ports = hi - lo + 1;
    if (sources > 1 && conns > (uint64_t)ports * sources)
        die(2, "-c %u needs %u local ports to one address, but net.ipv4.ip_local_port_range (%u-%u) has %u on "
               "each of --bind's %u addresses: give more addresses, or widen the range (sysctl -w "
               "net.ipv4.ip_local_port_range=\"1024 65535\")",
            conns, conns, lo, hi, ports, sources);
    if (sources <= 1 && conns > ports)
        die(2, "-c %u needs %u local ports to one address, but net.ipv4.ip_local_port_range (%u-%u) has %u: "
               "widen it (sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"), or spread the connections "
               "over several source addresses (--bind)",
            conns, conns, lo, hi, ports);
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

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    struct shb_opts o;
    char err[512];
    unsigned cores = cli_physical_cores();
    switch (cli_parse(argc, argv, &o, cores, stdout, err, sizeof(err))) {
    case CLI_HELP:
        return 0;
    case CLI_ERROR:
        die(2, "%s", err);
    case CLI_OK:
        break;
    }
    require_kernel();
    if (o.start_at_ns)
        check_start_at(&o);

    /* --shard I/N: this process's share of the connections and the -n
     * budget; of -q's schedule it takes every Nth request (below). */
    uint32_t total_conns = o.connections;
    if (o.shard_count > 1) {
        o.connections = (uint32_t)share(total_conns, o.shard_count, o.shard_index);
        if (o.connections == 0)
            die(2, "--shard %u/%u: -c %u leaves this shard no connection (at most %u shards)", o.shard_index,
                o.shard_count, total_conns, total_conns);
        if (o.duration_ns == 0) {
            uint64_t total_requests = o.requests;
            o.requests = share(total_requests, o.shard_count, o.shard_index);
            if (o.requests == 0)
                die(2, "--shard %u/%u: -n %llu leaves this shard no request (at most %llu shards)", o.shard_index,
                    o.shard_count, (unsigned long long)total_requests, (unsigned long long)total_requests);
        }
    }

    /* A -n run never needs more connections than it has requests for (one
     * each on HTTP/1.1, -p each on HTTP/2), and every thread gets at least
     * one connection. */
    uint32_t conns = o.connections;
    bool timed = o.duration_ns != 0;
    uint64_t per_conn = o.http2 || o.http3 ? o.parallel : 1;
    if (!timed && (o.requests + per_conn - 1) / per_conn < conns)
        conns = (uint32_t)((o.requests + per_conn - 1) / per_conn);
    unsigned threads = o.threads < conns ? o.threads : conns;
    check_file_limit((conns + threads - 1) / threads, conns, threads);
    /* A unix socket has no ports to run out of. */
    unsigned ports = o.unix_socket ? 0 : check_port_range(conns, o.nbind);

    struct sockaddr_storage addr;
    socklen_t addrlen;
    check_bind(&o);
    if (o.unix_socket)
        resolve_unix(o.unix_socket, &addr, &addrlen);
    else
        resolve(&o, &addr, &addrlen);
    /* --bind: the run's connection k (this shard's first is the total of
     * the shards' before it) takes address k mod N. */
    uint64_t conn_base = shares_before(total_conns, o.shard_count, o.shard_index);

    /* The request, built once: HTTP/1.1 bytes, or the HTTP/2 header block
     * every stream sends (RFC 9113 §8.3.1 pseudo-headers, HPACK static
     * references and literals). */
    size_t req_len;
    struct shb_request request = cli_request(&o);
    uint8_t *req = o.http2 ? hpack_encode_request(&request, &req_len) : h1_build_request(&request, &req_len);
    if (!req)
        die(1, "out of memory");
    /* HTTP/3: each request stream's bytes (a HEADERS frame of QPACK static
     * references, the body as DATA) and our control stream, built once. */
    struct h3_request h3req = { 0 };
    uint8_t h3control[64];
    static const uint8_t alpn_h3[] = "\x02h3";
    struct h3_config h3cfg = { 0 };
    if (o.http3) {
        if (h3_request_build(&h3req, &request) < 0)
            die(1, "out of memory");
        h3cfg = (struct h3_config){
            .request = h3req.bytes,
            .request_len = h3req.len,
            .control = h3control,
            .control_len = h3_control_stream(h3control, sizeof h3control),
            .parallel = o.parallel,
            .quic = {
                .server_name = o.url.host_is_ip ? NULL : o.url.host,
                .alpn = alpn_h3,
                .alpn_len = sizeof alpn_h3 - 1,
                .max_streams = o.parallel,
                /* The connection's receive window is what quic/conn.c holds
                 * in its reassembly pool (about 1.5 bytes of memory per byte
                 * of window, per connection), so that nothing the server
                 * sends within it is ever refused: 4 KiB per stream, from
                 * 64 KiB to 1 MiB (at a 1 ms round trip, 64 MB/s to 1 GB/s
                 * per connection). Credit is granted as data is consumed. A
                 * stream may use all of it. */
                .stream_window = quic_window(o.parallel),
                .conn_window = quic_window(o.parallel),
                .idle_timeout_ns = 30000000000ull,
            },
        };
    }
    /* https://: ALPN offers exactly the protocol asked for (RFC 7301), so a
     * server that cannot speak it says so instead of downgrading us. The
     * name goes in SNI unless it is an IP literal (RFC 6066 §3). */
    static const uint8_t alpn_h2[] = "\x02h2", alpn_h1[] = "\x08http/1.1";
    struct tls_config tlscfg = {
        .server_name = o.url.host_is_ip ? NULL : o.url.host,
        .alpn = o.http2 ? alpn_h2 : alpn_h1,
        .alpn_len = o.http2 ? sizeof alpn_h2 - 1 : sizeof alpn_h1 - 1,
    };
    struct h2_config h2cfg = {
        .request_block = req,
        .request_block_len = req_len,
        .body = o.body,
        .body_len = o.body_len,
        .has_body = o.has_body,
        .head = strcmp(o.method, "HEAD") == 0,
        .parallel = o.parallel,
    };
    /* HTTP/2: the first stream of each connection indexes what the static
     * table lacks and the others refer to it (hpack.h), as browsers and
     * h2load do; a request too large for the peer's table sends the plain
     * block every time. */
    struct hpack_request_blocks indexed = { 0 };
    if (o.http2) {
        int irc = hpack_encode_request_indexed(&request, &indexed);
        if (irc < 0)
            die(1, "out of memory");
        if (irc == 0) {
            h2cfg.request_first = indexed.first;
            h2cfg.request_first_len = indexed.first_len;
            h2cfg.request_next = indexed.next;
            h2cfg.request_next_len = indexed.next_len;
        }
    }

#ifdef SHB_TEST_KNOBS
    /* SHB_TEST_H2_FIRST_STREAM_ID: every HTTP/2 connection's first stream
     * id (odd; e.g. 2^31-1-2k: k+1 streams, then a new connection).
     * SHB_TEST_QUIC_KEY_UPDATE_AFTER: 1-RTT packets per key phase of ours.
     * SHB_TEST_QUIC_FIRST_PN: the first 1-RTT packet number, or beyond
     * 2^31-2 the one they jump to as soon as they can. With a QUIC
     * one set, a line of counters the report lacks goes to stderr. */
    bool h2_knob = false, quic_knob = false;
    h2cfg.first_stream_id = (uint32_t)test_knob("SHB_TEST_H2_FIRST_STREAM_ID", 1, 0x7fffffff, 0, &h2_knob);
    if (h2_knob && !(h2cfg.first_stream_id & 1))
        die(2, "SHB_TEST_H2_FIRST_STREAM_ID=%u: a client's stream ids are odd (RFC 9113 §5.1.1)",
            h2cfg.first_stream_id);
    h3cfg.quic.key_update_after = test_knob("SHB_TEST_QUIC_KEY_UPDATE_AFTER", 1, UINT64_MAX, 0, &quic_knob);
    /* Above what a first packet can carry (QUIC_FIRST_APP_PN_MAX), numbers
     * start there and jump (quic_conn_config's app_pn_target). */
    uint64_t first_pn = test_knob("SHB_TEST_QUIC_FIRST_PN", 0, QUIC_PN_MAX - (1ull << 32), 0, &quic_knob);
    h3cfg.quic.first_app_pn = first_pn < QUIC_FIRST_APP_PN_MAX ? first_pn : QUIC_FIRST_APP_PN_MAX;
    h3cfg.quic.app_pn_target = first_pn > QUIC_FIRST_APP_PN_MAX ? first_pn : 0;
#endif

    /* -q: one schedule for the whole run, which the workers share out
     * (pace.h); a ramp spans -z. */
    struct pace_rate rate = {
        .from = o.rate_from,
        .to = o.rate_to,
        .ramp_ns = o.rate_ramp ? o.duration_ns : 0,
    };
    /* A shard's report asks for its share of the rate. */
    struct pace_rate shard_rate = rate;
    shard_rate.from /= o.shard_count;
    shard_rate.to /= o.shard_count;

    /* The live view: only on a terminal, never on stdout (the report's). */
    bool live = !o.no_progress && isatty(STDERR_FILENO);

    struct worker *workers = calloc(threads, sizeof(*workers));
    struct thread_arg *args = calloc(threads, sizeof(*args));
    pthread_t *tids = calloc(threads, sizeof(*tids));
    struct run run = { 0 };
    if (!workers || !args || !tids)
        die(1, "out of memory");
    pthread_barrier_init(&run.ready, NULL, threads + 1);
    pthread_barrier_init(&run.go, NULL, threads + 1);

    struct sigaction sa = { .sa_handler = on_sigint };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    /* Workers never take the signal: main handles it and they poll the flag. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    for (unsigned i = 0; i < threads; i++) {
        workers[i].cfg = (struct worker_config){
            .addr = (const struct sockaddr *)&addr,
            .addrlen = addrlen,
            .request = req,
            .request_len = req_len,
            .h2 = o.http2 ? &h2cfg : NULL,
            .h3 = o.http3 ? &h3cfg : NULL,
            .tls = o.url.https ? &tlscfg : NULL,
            .head = strcmp(o.method, "HEAD") == 0,
            .keepalive = !o.disable_keepalive,
            .connections = (uint32_t)share(conns, threads, i),
            .budget = timed ? 0 : share(o.requests, threads, i),
            .timed = timed,
            .connect_timeout_ns = o.connect_timeout_ns,
            .timeout_ns = o.timeout_ns,
            .warmup_ns = o.warmup_ns,
            .rate = o.rate_from > 0 ? &rate : NULL,
            .live = live,
            /* Shard I's threads take the requests I, I+N, ... of the one
             * schedule, interleaved as a single process's would be. */
            .pace_first = o.shard_index + o.shard_count * i,
            .pace_stride = o.shard_count * threads,
            /* connect() picks local ports of one parity first (the other is
             * bind()'s: net/ipv4/inet_hashtables.c, __inet_hash_connect),
             * so once half the range leads to the target every further
             * connect scans those thousands of taken ports: 760 us a
             * connect instead of 25 here. Each worker's share of the
             * connections beyond half the range binds its port first and
             * gets one of the other parity at once. With --bind, half of
             * each address's range (connections take the addresses in
             * turn, so a worker's first ones spread over them all). */
            .bind_from = ports ? (uint32_t)share((uint64_t)ports / 2 * (o.nbind ? o.nbind : 1), threads, i)
                               : UINT32_MAX,
            .bind = o.bind,
            .nbind = o.nbind,
            .bind_first = o.nbind ? (uint32_t)((conn_base + shares_before(conns, threads, i)) % o.nbind) : 0,
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
            fprintf(stderr, "shb: %s\n", workers[i].error);
            run.abort = true;
            break;
        }
    }
    /* --start-at: the measured run (after the warm-up) begins then. */
    if (o.start_at_ns && !run.abort && !wait_until_wall(o.start_at_ns - o.warmup_ns)) {
        fprintf(stderr, "shb: interrupted before --start-at %s\n", o.start_at_text);
        run.abort = true;
    }
    uint64_t wall_start_ns = wall_ns();
    run.start_ns = monotonic_ns();
    if (o.start_at_ns && !run.abort) {
        /* The run's clock starts at the time asked for, not when this
         * process woke: shards' schedules line up to the clocks' reading,
         * not to each one's wake-up (tens of µs apart, or more). */
        uint64_t target = o.start_at_ns - o.warmup_ns;
        uint64_t late = wall_start_ns > target ? wall_start_ns - target : 0; /* a clock stepped back: 0 */
        run.start_ns -= late;
        wall_start_ns = target;
    }
    run.deadline_ns = timed ? run.start_ns + o.duration_ns : 0;
    pthread_barrier_wait(&run.go);
    if (live && !run.abort)
        live_run(workers, threads, run.start_ns, timed ? o.duration_ns : 0, timed ? 0 : o.requests, o.warmup_ns,
                 &run.finished);
    for (unsigned i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    struct stats total = { 0 };
    int rc = 0;
    if (run.abort) {
        for (unsigned i = 0; i < threads; i++)
            stats_free(&workers[i].stats);
        rc = shb_stop_requested ? 130 : 1; /* 130: Ctrl-C during --start-at's wait */
        goto out;
    }
    for (unsigned i = 0; i < threads; i++)
        if (workers[i].fatal)
            die(1, "%s", workers[i].error);

    if (stats_init(&total) < 0 || (o.rate_from > 0 && stats_init_pace(&total) < 0))
        die(1, "out of memory");
    /* The measured window starts where the warm-up ends. */
    uint64_t measured_from = run.start_ns + o.warmup_ns, end_ns = measured_from;
    uint64_t busiest_cpu_ns = 0;
    for (unsigned i = 0; i < threads; i++) {
        stats_merge(&total, &workers[i].stats);
        if (workers[i].end_ns > end_ns)
            end_ns = workers[i].end_ns;
        if (workers[i].cpu_ns > busiest_cpu_ns)
            busiest_cpu_ns = workers[i].cpu_ns;
        if (workers[i].error[0]) {
            fprintf(stderr, "shb: worker %u stopped early: %s\n", i, workers[i].error);
            rc = 1;
        }
        stats_free(&workers[i].stats);
    }
    struct report_info ri = {
        .url = o.url_text,
        .protocol = o.http3 ? "HTTP/3" : o.http2 ? "HTTP/2" : "HTTP/1.1",
        .threads = threads,
        .connections = conns,
        .duration_ns = end_ns - measured_from,
        .warmup_ns = o.warmup_ns,
        .rate = o.rate_from > 0 ? &shard_rate : NULL,
        .start_wall_ns = wall_start_ns + o.warmup_ns,
        .shard_index = o.shard_index,
        .shard_count = o.shard_count,
        /* The busiest worker thread's CPU time over the whole run's wall
         * time (warm-up included: so is its CPU time). */
        .client_busy = end_ns > run.start_ns ? (double)busiest_cpu_ns / (double)(end_ns - run.start_ns) : 0,
    };
    if (o.json)
        report_json(stdout, &ri, &total);
    else
        report_text(stdout, &ri, &total);
    fflush(stdout);
#ifdef SHB_TEST_KNOBS
    if (quic_knob) {
        const struct quic_stats *q = &total.quic;
        fprintf(stderr,
                "shb-test: keyUpdates=%llu keyUpdatesByServer=%llu keyUpdatesAnswered=%llu largestPnSent=%llu "
                "pnLen1=%llu pnLen2=%llu pnLen3=%llu pnLen4=%llu\n",
                (unsigned long long)q->key_updates, (unsigned long long)q->key_updates_peer,
                (unsigned long long)q->key_updates_answered,
                (unsigned long long)q->largest_app_pn_sent, (unsigned long long)q->app_pn_len[0],
                (unsigned long long)q->app_pn_len[1], (unsigned long long)q->app_pn_len[2],
                (unsigned long long)q->app_pn_len[3]);
    }
#endif
out:
    stats_free(&total);
    free(req);
    free(indexed.first);
    h3_request_free(&h3req);
    free(workers);
    free(args);
    free(tids);
    cli_free(&o);
    return rc;
}
