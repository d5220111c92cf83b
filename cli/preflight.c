/* cli/preflight.c — what shb checks before the first request (preflight.h):
 * the kernel, the file limit and the local port range of this machine, and
 * where each target is (name resolution, --unix-socket, --bind's source
 * addresses). Each check that fails ends the run with one line that names
 * the problem and what to do, before any traffic. */
#define _GNU_SOURCE
#include "cli/preflight.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tls13/credentials.h"
#include "tls13/keysched.h" /* tls13_wipe */
#include "tls13/trust.h"

void shb_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("shb: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* A PEM file's whole contents, read once (PEM files are small: a chain of
 * eight certificates with long extensions is tens of kilobytes). */
#define PEM_FILE_MAX (1u << 20)

static uint8_t *read_pem(const char *opt, const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        shb_die(2, "%s %s: cannot read it: %s", opt, path, strerror(errno));
    uint8_t *buf = malloc(PEM_FILE_MAX);
    if (!buf)
        shb_die(1, "out of memory");
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, PEM_FILE_MAX - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            shb_die(2, "%s %s: cannot read it: %s", opt, path, strerror(errno));
        if (n == 0)
            break;
        have += (size_t)n;
        if (have == PEM_FILE_MAX)
            shb_die(2, "%s %s: larger than %u bytes: not a certificate or key file", opt, path, PEM_FILE_MAX);
    }
    close(fd);
    *len = have;
    return buf;
}

void load_client_cert(const struct shb_opts *o, struct tls13_credential *cred)
{
    size_t cert_len, key_len = 0;
    uint8_t *cert = read_pem("--cert", o->cert, &cert_len), *key = NULL;
    const char *which;
    char err[256];

    if (o->key)
        key = read_pem("--key", o->key, &key_len);
    int rc = tls13_credential_load(cred, cert, cert_len, key, key_len, &which, err, sizeof err);
    /* Secrets stay secret: the key's PEM text is gone from memory before
     * anything else runs (the loaded key lives in cred alone). */
    tls13_wipe(cert, PEM_FILE_MAX);
    if (key)
        tls13_wipe(key, PEM_FILE_MAX);
    free(cert);
    free(key);
    if (rc < 0) {
        bool in_key = strcmp(which, "key") == 0;
        shb_die(2, "%s %s: %s", in_key ? "--key" : "--cert", in_key ? o->key : o->cert, err);
    }
}

void load_cacert(const struct shb_opts *o, struct tls13_trust *trust)
{
    size_t len;
    uint8_t *pem = read_pem("--cacert", o->cacert, &len);
    char err[256];
    int rc = tls13_trust_load(trust, pem, len, err, sizeof err);
    free(pem);
    if (rc < 0)
        shb_die(2, "--cacert %s: %s", o->cacert, err);
}

/* Multishot receive (6.0) and provided buffer rings (5.19) are used on every
 * connection; an older kernel gets told so instead of failing obscurely. */
void require_kernel(void)
{
    struct utsname u;
    if (uname(&u) != 0)
        return;
    unsigned major = 0, minor = 0;
    if (sscanf(u.release, "%u.%u", &major, &minor) != 2)
        return;
    if (major < 6)
        shb_die(1, "Linux %s is too old: shb needs 6.0 or newer for io_uring multishot receive", u.release);
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

/* The addresses a target may be at, in the order to try them. */
#define CANDIDATES_MAX 32
struct candidates {
    struct sockaddr_storage addr[CANDIDATES_MAX];
    socklen_t len[CANDIDATES_MAX];
    unsigned n;
};

static void add_candidate(struct candidates *c, const struct sockaddr *a, socklen_t len, uint16_t port)
{
    if (c->n == CANDIDATES_MAX)
        return;
    memcpy(&c->addr[c->n], a, len);
    c->len[c->n] = len;
    if (a->sa_family == AF_INET6)
        ((struct sockaddr_in6 *)&c->addr[c->n])->sin6_port = htons(port);
    else
        ((struct sockaddr_in *)&c->addr[c->n])->sin_port = htons(port);
    c->n++;
}

/* The one family connections may use: -4/-6's, else --bind's (only
 * addresses of its family can be reached from it), else either. */
static int wanted_family(const struct shb_opts *o)
{
    return o->family ? o->family : o->nbind ? o->bind[0].ss_family : AF_UNSPEC;
}

/* Why only one family is wanted, for a message: "(-4)", "(--bind's are)". */
static const char *family_reason(const struct shb_opts *o)
{
    if (o->family)
        return o->family == AF_INET ? " (-4)" : " (-6)";
    return " (--bind's are)";
}

static const char *family_name(int family)
{
    return family == AF_INET ? "IPv4" : "IPv6";
}

/* --resolve's addresses for host:port, those of the wanted family only. */
static void from_resolve(const struct shb_opts *o, const struct resolve_entry *r, const char *host, uint16_t port,
                         struct candidates *c)
{
    int family = wanted_family(o);
    for (unsigned k = 0; k < r->naddrs; k++)
        if (family == AF_UNSPEC || r->addrs[k].ss_family == family)
            add_candidate(c, (const struct sockaddr *)&r->addrs[k], inet_len(r->addrs[k].ss_family), port);
    if (!c->n)
        shb_die(2, "--resolve gives %s:%u no %s address%s", host, (unsigned)port, family_name(family),
            family_reason(o));
}

/* DNS (or the hosts file) for host, through getaddrinfo; a literal is
 * taken as it is. what says where the name came from, for messages. */
static void from_dns(const struct shb_opts *o, const char *host, uint16_t port, const char *what,
                     struct candidates *c)
{
    int family = wanted_family(o);
    struct in6_addr lit;
    int lit_family = inet_pton(AF_INET, host, &lit) == 1 ? AF_INET : inet_pton(AF_INET6, host, &lit) == 1 ? AF_INET6 : 0;
    /* A literal of the other family cannot be "resolved": say what it is,
     * not what getaddrinfo says of a name ("Name does not resolve"). */
    if (lit_family && family != AF_UNSPEC && lit_family != family)
        shb_die(2, "host '%s'%s is an %s address, not an %s one%s", host, what, family_name(lit_family),
            family_name(family), family_reason(o));
    struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if ((rc != 0 || !res) && family != AF_UNSPEC)
        shb_die(2, "cannot resolve host '%s'%s to an %s address%s: %s", host, what, family_name(family),
            family_reason(o), rc ? gai_strerror(rc) : "no address");
    if (rc != 0 || !res)
        shb_die(2, "cannot resolve host '%s'%s: %s", host, what, rc ? gai_strerror(rc) : "no address");
    for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
        add_candidate(c, ai->ai_addr, ai->ai_addrlen, port);
    freeaddrinfo(res);
}

/* Where a target's connections go, as curl decides it: the first
 * --connect-to that matches the URL's host:port names the host and port
 * to connect to; --resolve then gives that host:port's addresses, or else
 * DNS does. When there are several addresses, each is tried with one
 * plain connect and the first that accepts wins. */
static void resolve(const struct shb_opts *o, const struct shb_url *url, struct target_addr *out)
{
    const char *host = url->host;
    uint16_t port = url->port;
    const struct connect_to *ct = connect_to_match(o->connect_to, o->nconnect_to, url->host, url->port);
    char what[OVERRIDE_HOST_MAX + 48] = "";
    if (ct) {
        host = ct->to_host[0] ? ct->to_host : url->host;
        port = ct->to_port ? ct->to_port : url->port;
        snprintf(what, sizeof what, " (--connect-to for %s:%u)", url->host, (unsigned)url->port);
    }
    const struct resolve_entry *r = resolve_match(o->resolve, o->nresolve, host, port);
    struct candidates c = { .n = 0 };
    if (r)
        from_resolve(o, r, host, port, &c);
    else
        from_dns(o, host, port, what, &c);
    unsigned pick = 0;
    for (unsigned k = 0; c.n > 1 && k < c.n; k++) {
        if (connect_error((const struct sockaddr *)&c.addr[k], c.len[k], o->nbind ? &o->bind[0] : NULL,
                          o->connect_timeout_ns) == 0) {
            pick = k;
            break;
        }
    }
    memcpy(&out->addr, &c.addr[pick], c.len[pick]);
    out->addrlen = c.len[pick];
    out->via = r ? "--resolve" : ct ? "--connect-to" : NULL;
    if (out->via)
        override_addr_text((const struct sockaddr *)&out->addr, out->text, sizeof out->text);
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
        shb_die(2, "--unix-socket %s: %s", path, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        shb_die(2, "--unix-socket %s: not a socket", path);
    /* connect(2) on a unix socket needs write permission on it (unix(7)). */
    if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
        shb_die(2, "--unix-socket %s: %s", path, strerror(errno));
    /* The report names the socket, absolute (a relative path means
     * nothing once the report has left this directory); symlinks are
     * kept as typed. */
    out->via = "--unix-socket";
    char cwd[PATH_MAX];
    const char *rel = path;
    while (strncmp(rel, "./", 2) == 0)
        rel += 2;
    if (path[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(out->text, sizeof out->text, "%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/", rel);
    else
        snprintf(out->text, sizeof out->text, "%s", path);
}

/* --bind: every address must be one of this machine's, or every connect
 * from it fails (EADDRNOTAVAIL). */
static void check_bind(const struct shb_opts *o)
{
    for (uint32_t k = 0; k < o->nbind; k++) {
        const struct sockaddr_storage *a = &o->bind[k];
        int fd = socket(a->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            shb_die(1, "cannot make a socket: %s", strerror(errno));
        if (bind_no_port(fd, a) != 0) {
            int e = errno;
            char text[INET6_ADDRSTRLEN];
            const void *ip = a->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
                                                      : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
            inet_ntop(a->ss_family, ip, text, sizeof text);
            shb_die(2, "--bind %s: %s%s", text, strerror(e),
                e == EADDRNOTAVAIL ? " (not an address of this machine)" : "");
        }
        close(fd);
    }
}

/* With several targets every one is resolved and, over TCP, tried with
 * one plain connect before the first runs: a target that is down ends the
 * whole run before anything is half-done (one target alone keeps what it
 * always did: a report of connect errors). HTTP/3 has no connect to try
 * (UDP): a QUIC target that does not answer shows in its report. */
void check_targets(const struct shb_opts *o, struct target_addr *addrs)
{
    check_bind(o);
    for (size_t i = 0; i < o->ntargets; i++) {
        if (o->unix_socket)
            resolve_unix(o->unix_socket, &addrs[i]);
        else
            /* Through a proxy, its address: the target's name is the
             * proxy's to resolve. */
            resolve(o, o->targets[i].proxy ? &o->targets[i].proxy->url : &o->targets[i].url, &addrs[i]);
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
            shb_die(2, "target %s (%s) does not accept connections: %s; no target was run", t->label, t->url_text,
                strerror(err));
        shb_die(2, "target %s does not accept connections: %s; no target was run", t->url_text, strerror(err));
    }
}

/* Each worker registers one file slot per connection, and the kernel allows
 * a ring no more slots than the process may have open files (RLIMIT_NOFILE;
 * io_uring/filetable.c). The soft limit goes up to the hard one first; a -c
 * that still cannot fit is refused before any traffic. */
void check_file_limit(uint64_t per_worker, uint32_t conns, unsigned threads)
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
        shb_die(2, "-c %u puts %llu connections on each of %u worker thread%s, but RLIMIT_NOFILE lets a thread "
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
unsigned check_port_range(uint32_t conns, uint32_t sources)
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
        shb_die(2, "-c %u needs %u local ports to one address, but net.ipv4.ip_local_port_range (%u-%u)%s has %u on "
               "each of --bind's %u addresses: give more addresses, or widen the range (sysctl -w "
               "net.ipv4.ip_local_port_range=\"1024 65535\")",
            conns, conns, lo, hi, less, ports, sources);
    if (sources <= 1 && conns > ports)
        shb_die(2, "-c %u needs %u local ports to one address, but net.ipv4.ip_local_port_range (%u-%u)%s has %u: "
               "widen it (sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"), or spread the connections "
               "over several source addresses (--bind)",
            conns, conns, lo, hi, less, ports);
    return ports;
}

