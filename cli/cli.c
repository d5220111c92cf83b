/* cli.c — command line, durations and URLs (spec: Usage, Options, shb -h).
 *
 * Hand-written rather than getopt_long: getopt prints its own messages and
 * permutes argv, and every misuse here must come back as one line in err.
 *
 * Parsing is two-phase. The first phase walks argv once, recording values and
 * the first error but never stopping early, so -h/--help (and after it
 * -V/--version) wins wherever it appears. The second phase checks how the
 * options combine, parses the URL and only then reads a -d @file / @- body: a
 * run that is going to be refused, or only print help, must not block on
 * stdin.
 *
 * The option table (opt_specs) is the one source of what shb accepts and
 * how it is documented: -h is printed from it here, and the man page
 * (manpage.c) and the completion scripts (completions.c) are written from
 * it through cli_option(). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli/cli.h"
#include "cli/proxy.h"
#include "cli/reqlist.h"
#include "h2.h"
#include "report/html.h"
#include "report/reqlog_line.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_CONNECTIONS 50u
#define DEFAULT_REQUESTS 200u
#define DEFAULT_PARALLEL 1u
#define DEFAULT_CONNECT_TIMEOUT_NS 5000000000ull
#define DEFAULT_TIMEOUT_NS 30000000000ull
/* HTTP/2's defaults are h2.c's (h2.h): -w 24 and -W 30 are its windows. */
#define DEFAULT_WINDOW_BITS 24u
#define DEFAULT_CONN_WINDOW_BITS 30u
_Static_assert(H2_OUR_INITIAL_WINDOW == (1u << DEFAULT_WINDOW_BITS) - 1, "-w's default is h2.c's window");
_Static_assert(H2_OUR_CONN_WINDOW == (1u << DEFAULT_CONN_WINDOW_BITS) - 1, "-W's default is h2.c's window");

/* ---------------------------------------------------------------- errors */

static void format_err(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void format_err(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (!err || !errlen)
        return;
    vsnprintf(err, errlen, fmt, ap);
    /* Messages quote what the user typed; a CR, LF or escape in there must
     * not break the one-line contract or reach the terminal raw. */
    for (char *c = err; *c; c++)
        if ((unsigned char)*c < ' ' || *c == 0x7f)
            *c = '?';
}

static void url_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void url_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    format_err(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- tokens */

/* ASCII only, whatever the locale: these decide what goes on the wire. */
static bool is_alnum_ascii(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* RFC 9110 tchar: what a method or a header name may be made of. */
static bool is_tchar(unsigned char c)
{
    return is_alnum_ascii(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

bool cli_is_token(const char *s, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!is_tchar((unsigned char)s[i]))
            return false;
    return true;
}

struct duration_unit {
    const char *name;
    uint64_t ns;
};

static const struct duration_unit duration_units[] = {
    {"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
    {"ms", 1000000ull},      {"us", 1000ull},       {"ns", 1ull},
};

static const struct duration_unit *find_unit(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++)
        if (strlen(duration_units[i].name) == len && memcmp(duration_units[i].name, s, len) == 0)
            return &duration_units[i];
    return NULL;
}

/* ------------------------------------------------------------- numbers */

/* How a scaled decimal fails (scaled_decimal). */
enum scaled { SCALED_OK, SCALED_SYNTAX, SCALED_TOO_LARGE, SCALED_FRACTION };

/* "12" or "2.5" (digits, at most one '.' with digits on both sides; at most
 * 18 after it), the len bytes at s, times unit, in integer arithmetic: "1.5"
 * seconds is exactly 1500000000 ns and "2.5" thousand exactly 2500, with no
 * rounding anywhere. SCALED_FRACTION when the product is not a whole number
 * ("1.5" ns, "1.0005" thousand). */
static enum scaled scaled_decimal(const char *s, size_t len, uint64_t unit, uint64_t *out)
{
    uint64_t whole = 0, frac = 0, den = 1;
    size_t i = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        if (__builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, (uint64_t)(s[i] - '0'), &whole))
            return SCALED_TOO_LARGE;
    if (i == 0)
        return SCALED_SYNTAX;
    if (i < len && s[i] == '.') {
        size_t from = ++i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            if (i - from == 18) /* 10^18 is the largest power of ten den may reach */
                return SCALED_SYNTAX;
            frac = frac * 10 + (uint64_t)(s[i] - '0');
            den *= 10;
        }
        if (i == from)
            return SCALED_SYNTAX;
    }
    if (i != len)
        return SCALED_SYNTAX;
    uint64_t w;
    unsigned __int128 f = (unsigned __int128)frac * unit;
    if (__builtin_mul_overflow(whole, unit, &w))
        return SCALED_TOO_LARGE;
    if (f % den)
        return SCALED_FRACTION;
    if (__builtin_add_overflow(w, (uint64_t)(f / den), out))
        return SCALED_TOO_LARGE;
    return SCALED_OK;
}

/* A number's suffix: one of n letters, each a multiple. */
struct suffix {
    char c;
    uint64_t times;
};

/* The multiple of the suffix v (len bytes) ends with, shortening *len by
 * it; 1 when there is none. */
static uint64_t suffix_of(const char *v, size_t *len, const struct suffix *t, size_t n)
{
    for (size_t i = 0; *len > 1 && i < n; i++)
        if (v[*len - 1] == t[i].c) {
            (*len)--;
            return t[i].times;
        }
    return 1;
}

/* Counts and rates take SI suffixes as wrk and oha users type them:
 * 10k, 2.5k, 1M, 1G (decimal multiples: k is 1000). */
static uint64_t si_suffix(const char *v, size_t *len)
{
    static const struct suffix si[] = {{'k', 1000}, {'K', 1000}, {'M', 1000000}, {'G', 1000000000}};
    return suffix_of(v, len, si, sizeof si / sizeof si[0]);
}

/* Byte sizes take binary suffixes as curl's --limit-rate and --max-filesize
 * do: 16k is 16384, 1M 1048576, 1G 2^30. */
static uint64_t size_suffix(const char *v, size_t *len)
{
    static const struct suffix bin[] = {{'k', 1u << 10}, {'K', 1u << 10}, {'m', 1u << 20},
                                        {'M', 1u << 20}, {'g', 1u << 30}, {'G', 1u << 30}};
    return suffix_of(v, len, bin, sizeof bin / sizeof bin[0]);
}

/* ------------------------------------------------------------- durations */

/* NULL on success, otherwise why s is not a duration: the reason goes after
 * "invalid value 'X' for -z/--duration: ". Decimals are exact ("1.5s" is
 * 1500000000 ns: scaled_decimal); one finer than a nanosecond is refused. */
#define DURATION_ZERO "must be greater than zero"
static const char *duration_problem(const char *s, uint64_t *ns)
{
    static const char *const syntax = "expected a duration like 10s, 1m30s, 1.5s or 500ms";
    uint64_t total = 0;

    if (!s || !*s)
        return syntax;
    while (*s) {
        const char *number = s;
        s += strspn(s, "0123456789.");
        if (s == number)
            return syntax; /* "-1s", "s", " 1s" */
        const char *unit = s;
        while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
            s++;
        if (s == unit)
            return syntax; /* a bare number, or "1m30" */
        const struct duration_unit *u = find_unit(unit, (size_t)(s - unit));
        if (!u)
            return "unknown unit (use h, m, s, ms, us or ns)";
        uint64_t part = 0;
        switch (scaled_decimal(number, (size_t)(unit - number), u->ns, &part)) {
        case SCALED_OK: break;
        case SCALED_SYNTAX: return syntax; /* ".5s", "1.s", "1.2.3s" */
        case SCALED_TOO_LARGE: return "too large";
        case SCALED_FRACTION: return "finer than a nanosecond";
        }
        if (__builtin_add_overflow(total, part, &total))
            return "too large";
    }
    if (total == 0)
        return DURATION_ZERO;
    *ns = total;
    return NULL;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
    uint64_t v;
    if (duration_problem(s, &v))
        return -1;
    *ns = v;
    return 0;
}

/* ------------------------------------------------------------------ URLs */

static bool is_host_char(unsigned char c)
{
    return is_alnum_ascii(c) || c == '-' || c == '.' || c == '_';
}

/* Splits "scheme://rest"; sets u->https and *rest. */
static int parse_scheme(const char *s, struct shb_url *u, const char **rest, char *err, size_t errlen)
{
    const char *sep = strstr(s, "://");
    if (!sep) {
        url_err(err, errlen, "invalid URL '%s': missing scheme (use http:// or https://)", s);
        return -1;
    }
    size_t len = (size_t)(sep - s);
    if (len == 4 && strncasecmp(s, "http", 4) == 0) {
        u->https = false;
    } else if (len == 5 && strncasecmp(s, "https", 5) == 0) {
        u->https = true;
    } else {
        url_err(err, errlen, "unsupported URL scheme '%.*s' (use http:// or https://)", (int)len, s);
        return -1;
    }
    *rest = sep + 3;
    return 0;
}

/* Port text between ':' and the end of the authority: 1..65535, digits only. */
static int parse_port(const char *url, const char *p, size_t len, uint16_t *port, char *err, size_t errlen)
{
    if (len == 0) {
        url_err(err, errlen, "invalid URL '%s': empty port after ':'", url);
        return -1;
    }
    unsigned long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') {
            url_err(err, errlen, "invalid URL '%s': bad port '%.*s'", url, (int)len, p);
            return -1;
        }
        if (v <= 65535)
            v = v * 10 + (unsigned long)(p[i] - '0');
    }
    if (v == 0 || v > 65535) {
        url_err(err, errlen, "invalid URL '%s': port '%.*s' out of range (1-65535)", url, (int)len, p);
        return -1;
    }
    *port = (uint16_t)v;
    return 0;
}

/* "[v6]" or "[v6]:port": the literal must satisfy inet_pton. */
static int parse_bracketed_host(const char *url, const char *a, size_t len, struct shb_url *u,
                                const char **port, size_t *port_len, char *err, size_t errlen)
{
    const char *close = memchr(a, ']', len);
    if (!close) {
        url_err(err, errlen, "invalid URL '%s': unclosed '[' in host", url);
        return -1;
    }
    size_t hlen = (size_t)(close - a - 1);
    if (hlen == 0) {
        url_err(err, errlen, "invalid URL '%s': empty host", url);
        return -1;
    }
    if (hlen >= 64) { /* longer than any IPv6 text form */
        url_err(err, errlen, "invalid URL '%s': invalid IPv6 address", url);
        return -1;
    }
    memcpy(u->host, a + 1, hlen);
    u->host[hlen] = '\0';
    struct in6_addr addr;
    if (inet_pton(AF_INET6, u->host, &addr) != 1) {
        url_err(err, errlen, "invalid URL '%s': invalid IPv6 address '%s'", url, u->host);
        return -1;
    }
    const char *after = close + 1, *end = a + len;
    if (after < end && *after != ':') {
        url_err(err, errlen, "invalid URL '%s': unexpected characters after ']'", url);
        return -1;
    }
    *port = after < end ? after + 1 : NULL;
    *port_len = after < end ? (size_t)(end - after - 1) : 0;
    u->host_is_ipv6 = true;
    u->host_is_ip = true;
    return 0;
}

/* "name", "name:port", "1.2.3.4", "1.2.3.4:port". */
static int parse_plain_host(const char *url, const char *a, size_t len, struct shb_url *u,
                            const char **port, size_t *port_len, char *err, size_t errlen)
{
    const char *colon = memchr(a, ':', len);
    size_t hlen = colon ? (size_t)(colon - a) : len;
    if (colon && memchr(colon + 1, ':', len - hlen - 1)) {
        url_err(err, errlen, "invalid URL '%s': IPv6 addresses need brackets, e.g. http://[::1]:8080/", url);
        return -1;
    }
    if (hlen == 0) {
        url_err(err, errlen, "invalid URL '%s': empty host", url);
        return -1;
    }
    if (hlen > 253) {
        url_err(err, errlen, "invalid URL '%s': host name too long", url);
        return -1;
    }
    for (size_t i = 0; i < hlen; i++) {
        if (!is_host_char((unsigned char)a[i])) {
            url_err(err, errlen, "invalid URL '%s': invalid character in host", url);
            return -1;
        }
    }
    memcpy(u->host, a, hlen);
    u->host[hlen] = '\0';
    struct in_addr addr;
    u->host_is_ip = inet_pton(AF_INET, u->host, &addr) == 1;
    *port = colon ? colon + 1 : NULL;
    *port_len = colon ? len - hlen - 1 : 0;
    return 0;
}

static int parse_authority(const char *url, const char *a, size_t len, struct shb_url *u, char *err,
                           size_t errlen)
{
    const char *host;
    char why[128];
    if (auth_from_authority(a, len, &u->cred, &host, why, sizeof why)) {
        url_err(err, errlen, "invalid URL '%s': %s", url, why);
        return -1;
    }
    len -= (size_t)(host - a);
    a = host;
    const char *port = NULL;
    size_t port_len = 0;
    int rc = len && a[0] == '['
                 ? parse_bracketed_host(url, a, len, u, &port, &port_len, err, errlen)
                 : parse_plain_host(url, a, len, u, &port, &port_len, err, errlen);
    if (rc)
        return rc;

    uint16_t default_port = u->https ? 443 : 80;
    u->port = default_port;
    if (port && parse_port(url, port, port_len, &u->port, err, errlen))
        return -1;

    /* The Host header names the port only when the URL did and it differs
     * from the scheme's own: that is what browsers and curl send. */
    const char *lb = u->host_is_ipv6 ? "[" : "", *rb = u->host_is_ipv6 ? "]" : "";
    if (u->port != default_port)
        snprintf(u->authority, sizeof u->authority, "%s%s%s:%u", lb, u->host, rb, (unsigned)u->port);
    else
        snprintf(u->authority, sizeof u->authority, "%s%s%s", lb, u->host, rb);
    return 0;
}

/* Path and query, verbatim, up to a '#'. Bytes that cannot appear in a
 * request line (space, controls) are refused rather than sent broken. */
static int parse_target(const char *url, const char *t, struct shb_url *u, char *err, size_t errlen)
{
    size_t len = strcspn(t, "#");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c <= ' ' || c == 0x7f) {
            url_err(err, errlen, "invalid URL '%s': spaces and control characters must be %%-encoded", url);
            return -1;
        }
    }
    bool need_slash = len == 0 || t[0] != '/'; /* "" or "?x=1" */
    u->target = malloc(len + need_slash + 1);
    if (!u->target) {
        url_err(err, errlen, "out of memory");
        return -1;
    }
    if (need_slash)
        u->target[0] = '/';
    memcpy(u->target + need_slash, t, len);
    u->target[len + need_slash] = '\0';
    return 0;
}

int cli_parse_url(const char *s, struct shb_url *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    if (!s) {
        url_err(err, errlen, "missing URL");
        return -1;
    }
    /* Messages quote the URL with its password masked. */
    char *shown = auth_redact(s);
    if (!shown) {
        url_err(err, errlen, "out of memory");
        return -1;
    }
    const char *rest;
    int rc = parse_scheme(shown, u, &rest, err, errlen);
    if (rc == 0) {
        rest = s + (rest - shown); /* the scheme is the same in both */
        size_t alen = strcspn(rest, "/?#");
        rc = parse_authority(shown, rest, alen, u, err, errlen);
        if (rc == 0)
            rc = parse_target(shown, rest + alen, u, err, errlen);
    }
    free(shown);
    if (rc)
        auth_wipe(&u->cred);
    return rc;
}

/* ---------------------------------------------------------- option table */

enum opt_id {
    OPT_CONNECTIONS,
    OPT_REQUESTS,
    OPT_DURATION,
    OPT_PARALLEL,
    OPT_THREADS,
    OPT_METHOD,
    OPT_HEADER,
    OPT_DATA,
    OPT_TARGETS,
    OPT_TARGETS_ORDER,
    OPT_SEED,
    OPT_DATA_BINARY,
    OPT_USER,
    OPT_NETRC_FILE,
    OPT_PROXY,
    OPT_PROXY_USER,
    OPT_NOPROXY,
    OPT_CONNECT_TIMEOUT,
    OPT_TIMEOUT,
    OPT_WARMUP,
    OPT_RATE,
    OPT_SHARD,
    OPT_START_AT,
    OPT_UNIX_SOCKET,
    OPT_BIND,
    OPT_CONNECT_TO,
    OPT_RESOLVE,
    OPT_IPV4,
    OPT_IPV6,
    OPT_DISABLE_KEEPALIVE,
    OPT_NO_PROGRESS,
    OPT_TLS_MAX,
    OPT_TLSV12,
    OPT_TLSV13,
    OPT_TLS13_CIPHERS,
    OPT_CIPHERS,
    OPT_CURVES,
    OPT_TLS_RESUME,
    OPT_EARLY_DATA,
    OPT_INSECURE,
    OPT_CACERT,
    OPT_HTTP2,
    OPT_HTTP3,
    OPT_WINDOW_BITS,
    OPT_CONN_WINDOW_BITS,
    OPT_MAX_FRAME_SIZE,
    OPT_HEADER_TABLE_SIZE,
    OPT_MAX_STREAM_DATA,
    OPT_MAX_DATA,
    OPT_CERT,
    OPT_KEY,
    OPT_JSON,
    OPT_HISTOGRAMS,
    OPT_HDR_LOG,
    OPT_HTML,
    OPT_LOG,
    OPT_LOG_FORMAT,
    OPT_FAIL_IF,
    OPT_HELP,
    OPT_VERSION,
    OPT_COUNT
};

struct opt_spec {
    enum opt_id id;
    const char *display; /* how error messages name it */
    struct cli_option o; /* what -h, the man page and completions show (cli.h) */
};

#define METHODS "GET HEAD POST PUT DELETE PATCH OPTIONS"

/* In -h's order. Defaults shown here are checked against set_defaults() by
 * test/unit/unit_cli.c (each one, given explicitly, changes nothing). */
static const struct opt_spec opt_specs[] = {
    {OPT_CONNECTIONS, "-c/--connections",
     {.short_name = 'c', .long_name = "connections", .value_name = "CONNECTIONS",
      .help = "Number of concurrent connections", .default_text = "50"}},
    {OPT_REQUESTS, "-n/--requests",
     {.short_name = 'n', .long_name = "requests", .value_name = "REQUESTS", .help = "Total number of requests",
      .default_text = "200"}},
    {OPT_DURATION, "-z/--duration",
     {.short_name = 'z', .long_name = "duration", .value_name = "DURATION",
      .help = "Run for this long instead of a fixed request count (e.g. 10s, 1m30s)"}},
    {OPT_METHOD, "-m/--method",
     {.short_name = 'm', .long_name = "method", .value_name = "METHOD",
      .help = "HTTP method (defaults to GET, or POST when -d or --data-binary is given, like curl)",
      .complete = CLI_COMPLETE_WORDS,
      .words = METHODS}},
    {OPT_HEADER, "-H/--header",
     {.short_name = 'H', .long_name = "header", .value_name = "HEADER",
      .help = "Custom HTTP header (repeatable). Example: -H \"Accept: application/json\"", .repeatable = true}},
    {OPT_DATA, "-d/--data",
     {.short_name = 'd', .long_name = "data", .value_name = "BODY",
      .help = "HTTP request body. @file reads the file, @- reads stdin (like curl; carriage returns and newlines "
              "are stripped from file/stdin data)",
      .complete = CLI_COMPLETE_BODY}},
    {OPT_DATA_BINARY, "--data-binary",
     {.long_name = "data-binary", .value_name = "BODY",
      .help = "HTTP request body sent byte for byte (as curl): @file reads the file, @- reads stdin, nothing "
              "stripped. Otherwise as -d, which it replaces",
      .complete = CLI_COMPLETE_BODY}},
    {OPT_TARGETS, "--targets",
     {.long_name = "targets", .value_name = "FILE",
      .help = "Send the requests of this file (- for stdin) instead of one URL: vegeta's format (METHOD URL, "
              "header lines, @body-file, a blank line between targets) or one URL a line. All on the first's "
              "scheme, host and port; the report adds a table per target",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_TARGETS_ORDER, "--targets-order",
     {.long_name = "targets-order", .value_name = "ORDER",
      .help = "The order requests take --targets' targets in: seq (request j takes target j mod N: the mix is "
              "exact over whole rounds) or random (see --seed)",
      .default_text = "seq", .complete = CLI_COMPLETE_WORDS, .words = "seq random"}},
    {OPT_SEED, "--seed",
     {.long_name = "seed", .value_name = "N",
      .help = "The seed of --targets-order random (1 or more; without it the generator starts from 0): the same "
              "seed, -n, -c and -t send the same number of requests to each target"}},
    {OPT_USER, "-u/--user",
     {.short_name = 'u', .long_name = "user", .value_name = "USER[:PASSWORD]",
      .help = "Send HTTP Basic credentials (as curl) to every target; without :PASSWORD the password comes from "
              "$SHB_PASSWORD or --netrc-file, so that it need not stand on the command line. Outputs show it as ***"}},
    {OPT_NETRC_FILE, "--netrc-file",
     {.long_name = "netrc-file", .value_name = "FILE",
      .help = "Take credentials from this netrc file (as curl): the entry whose machine is the target's host",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_PROXY, "-x/--proxy",
     {.short_name = 'x', .long_name = "proxy", .value_name = "URL",
      .help = "Go through this HTTP proxy, http://[USER:PASSWORD@]HOST[:PORT] (as curl; port 1080 unless given): "
              "https:// and HTTP/2 through a CONNECT tunnel, http:// HTTP/1.1 as absolute-form requests. Without "
              "it, https_proxy, HTTPS_PROXY, http_proxy, all_proxy and ALL_PROXY are used as curl does; \"\" goes "
              "direct. Not with --http3"}},
    {OPT_PROXY_USER, "--proxy-user",
     {.long_name = "proxy-user", .value_name = "USER[:PASSWORD]",
      .help = "The proxy's Basic credentials, sent as Proxy-Authorization (as curl); without :PASSWORD the password "
              "comes from $SHB_PROXY_PASSWORD. Outputs show it as ***"}},
    {OPT_NOPROXY, "--noproxy",
     {.long_name = "noproxy", .value_name = "LIST",
      .help = "Hosts that go direct, not through the proxy: comma-separated names, each with the hosts under it, "
              "IP addresses and CIDR blocks (10.0.0.0/8) for IP hosts (as curl; in place of no_proxy and "
              "NO_PROXY); '*' for every host"}},
    {OPT_CONNECT_TIMEOUT, "--connect-timeout",
     {.long_name = "connect-timeout", .value_name = "CONNECT_TIMEOUT",
      .help = "Connection establishment timeout (e.g. 5s, 500ms)", .default_text = "5s"}},
    {OPT_TIMEOUT, "--timeout",
     {.long_name = "timeout", .value_name = "TIMEOUT",
      .help = "Per-request timeout: a request with no complete response by then is counted as a \"timeout\" error "
              "(e.g. 30s, 500ms; 0 disables)",
      .default_text = "30s"}},
    {OPT_RATE, "-q/--rate",
     {.short_name = 'q', .long_name = "rate", .value_name = "RATE",
      .help = "Send this many requests per second in total, on a fixed schedule whatever the server does (the open "
              "model); latency then counts from when each request was due. FROM..TO ramps linearly over -z (e.g. "
              "1000..20000)"}},
    {OPT_WARMUP, "--warmup",
     {.long_name = "warmup", .value_name = "WARMUP",
      .help = "Send requests for this long first, and keep the ones that complete meanwhile out of the report "
              "(e.g. 2s; inside -z's duration, on top of -n's count)"}},
    {OPT_SHARD, "--shard",
     {.long_name = "shard", .value_name = "I/N",
      .help = "Run shard I (from 0) of N: this process's share of -c, -n and -q, so that N processes (on one "
              "machine or many) together make the one run",
      .default_text = "0/1"}},
    {OPT_START_AT, "--start-at",
     {.long_name = "start-at", .value_name = "TIME",
      .help = "Start the measured run at this wall-clock time, so that shards started apart measure the same "
              "window: Unix seconds (fractions allowed) or RFC 3339 (e.g. 2026-12-02T18:00:00Z)"}},
    {OPT_THREADS, "-t/--threads",
     {.short_name = 't', .long_name = "threads", .value_name = "THREADS", .help = "Number of worker threads",
      .default_cores = true}},
    {OPT_JSON, "-j/--json", {.short_name = 'j', .long_name = "json", .help = "Print the report as JSON"}},
    {OPT_HISTOGRAMS, "--histograms",
     {.long_name = "histograms",
      .help = "Put each latency histogram in the JSON report, whole (HdrHistogram's base64 encoding), so that shb "
              "merge can add reports together; --shard always does"}},
    {OPT_HDR_LOG, "--hdr-log",
     {.long_name = "hdr-log", .value_name = "FILE",
      .help = "Also write the measured latencies to FILE as an HdrHistogram interval log: one exact histogram a "
              "second, in nanoseconds, for HdrHistogram's tools (HistogramLogProcessor -tag latency)",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_HTML, "--html",
     {.long_name = "html", .value_name = "FILE",
      .help = "Also write an HTML page of the run to FILE (created or truncated, after the report): settings, "
              "figures and charts (requests and errors per second, latency over time, percentile spectrum, phases, "
              "status codes, error kinds), self-contained; several URLs share one page",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_LOG, "--log",
     {.long_name = "log", .value_name = "FILE",
      .help = "Also write one line per request to FILE (created or truncated): start time, latency, time to first "
              "byte, status, error kind, bytes received, connection, stream, target, thread, warm-up. Lines of "
              "different threads interleave by buffer: sort -n orders them by start time",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_LOG_FORMAT, "--log-format",
     {.long_name = "log-format", .value_name = "FORMAT",
      .help = "--log's format: tsv and csv (a header line first) or jsonl (a JSON object a line)",
      .default_text = "tsv", .complete = CLI_COMPLETE_WORDS, .words = "tsv csv jsonl"}},
    {OPT_FAIL_IF, "--fail-if",
     {.long_name = "fail-if", .value_name = "EXPR",
      .help = "Exit with status 3 when EXPR is true of the report, e.g. 'p99>250ms', 'errors>1%', 'rps<5000', "
              "'timeout>0' (repeatable; pN, min, mean, max, rps, errors, non2xx, ok or an error kind; > >= < <=). "
              "The report says which held",
      .repeatable = true}},
    {OPT_TLS_MAX, "--tls-max",
     {.long_name = "tls-max", .value_name = "VERSION",
      .help = "The highest TLS version to offer (1.2 or 1.3; as curl): 1.2 starts every handshake with TLS 1.2",
      .default_text = "1.3", .complete = CLI_COMPLETE_WORDS, .words = "1.2 1.3"}},
    {OPT_TLSV12, "--tlsv1.2",
     {.long_name = "tlsv1.2", .help = "Use TLS 1.2 or later (as curl; the default: TLS 1.3, or 1.2 for a server "
                                      "that refuses 1.3)"}},
    {OPT_TLSV13, "--tlsv1.3",
     {.long_name = "tlsv1.3",
      .help = "Use TLS 1.3 or later (as curl): a server that offers only TLS 1.2 fails every request, its alert "
              "named"}},
    {OPT_TLS13_CIPHERS, "--tls13-ciphers",
     {.long_name = "tls13-ciphers", .value_name = "LIST",
      .help = "The TLS 1.3 cipher suites to offer, colon-separated, in order of preference (e.g. "
              "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256; also HTTP/3)"}},
    {OPT_CIPHERS, "--ciphers",
     {.long_name = "ciphers", .value_name = "LIST",
      .help = "The TLS 1.2 cipher suites to offer, colon-separated OpenSSL names, in order of preference (e.g. "
              "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305)"}},
    {OPT_CURVES, "--curves",
     {.long_name = "curves", .value_name = "LIST",
      .help = "The key exchange groups to offer, colon-separated: x25519, P-256, P-384 (the first gets TLS 1.3's "
              "key share)"}},
    {OPT_TLS_RESUME, "--tls-resume",
     {.long_name = "tls-resume",
      .help = "Resume TLS sessions: after its first full handshake, each connection slot reconnects with the "
              "server's newest session ticket (TLS 1.3 PSK with (EC)DHE; also HTTP/3); the report counts full and "
              "resumed handshakes"}},
    {OPT_EARLY_DATA, "--early-data",
     {.long_name = "early-data",
      .help = "Send each resumed connection's first requests as TLS 1.3 0-RTT early data where the server's "
              "ticket allows it (implies --tls-resume; GET and HEAD only; HTTP/1.1, HTTP/2, and HTTP/3 in QUIC 0-RTT "
              "packets); the report counts requests sent early, accepted, and resent after a rejection"}},
    {OPT_INSECURE, "-k/--insecure",
     {.short_name = 'k', .long_name = "insecure",
      .help = "Do not verify the server's certificate (the default; as curl, it also wins over --cacert)"}},
    {OPT_CACERT, "--cacert",
     {.long_name = "cacert", .value_name = "FILE",
      .help = "Verify every https server's chain and name against these CA certificates (PEM, one or more); a "
              "failed verification is a tls handshake error"}},
    {OPT_HTTP2, "--http2",
     {.long_name = "http2", .help = "Use HTTP/2 (prior knowledge on http://, ALPN \"h2\" on https://)"}},
    {OPT_HTTP3, "--http3", {.long_name = "http3", .help = "Use HTTP/3 over QUIC (https:// URLs only)"}},
    {OPT_WINDOW_BITS, "-w/--window-bits",
     {.short_name = 'w', .long_name = "window-bits", .value_name = "N",
      .help = "HTTP/2: each stream's receive window is 2^N - 1 bytes (SETTINGS_INITIAL_WINDOW_SIZE; N 0-30, as "
              "h2load)",
      .default_text = "24"}},
    {OPT_CONN_WINDOW_BITS, "-W/--connection-window-bits",
     {.short_name = 'W', .long_name = "connection-window-bits", .value_name = "N",
      .help = "HTTP/2: the connection's receive window is 2^N - 1 bytes (N 0-30, as h2load; below 16 shb holds "
              "back credit until the server is under it)",
      .default_text = "30"}},
    {OPT_MAX_FRAME_SIZE, "--max-frame-size",
     {.long_name = "max-frame-size", .value_name = "BYTES",
      .help = "HTTP/2: the largest frame the server may send us (SETTINGS_MAX_FRAME_SIZE, 16384 to 16777215; 16k, "
              "1M: k is 1024)",
      .default_text = "16384"}},
    {OPT_HEADER_TABLE_SIZE, "--header-table-size",
     {.long_name = "header-table-size", .value_name = "BYTES",
      .help = "HTTP/2: the HPACK dynamic table the server may use for response headers (SETTINGS_HEADER_TABLE_SIZE, "
              "0 to 4096; 4k is 4096). 0 asks it to index nothing",
      .default_text = "0"}},
    {OPT_MAX_STREAM_DATA, "--max-stream-data",
     {.long_name = "max-stream-data", .value_name = "BYTES",
      .help = "HTTP/3: each stream's receive window (QUIC initial_max_stream_data; 1k to 1G, k is 1024; default: "
              "--max-data's default)"}},
    {OPT_MAX_DATA, "--max-data",
     {.long_name = "max-data", .value_name = "BYTES",
      .help = "HTTP/3: the connection's receive window (QUIC initial_max_data; 1k to 1G, k is 1024; default: 4k "
              "per -p stream, 64k to 1M). Each connection reserves about 1.5 bytes per byte of it"}},
    {OPT_CERT, "--cert",
     {.long_name = "cert", .value_name = "FILE",
      .help = "Client certificate (PEM; a chain, leaf first) for servers that ask for one (mutual TLS); EC "
              "P-256/P-384 or RSA 2048-4096 key, read from --key or else from this file",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_KEY, "--key",
     {.long_name = "key", .value_name = "FILE",
      .help = "Private key of --cert (PEM, unencrypted: PKCS#8, EC or RSA)", .complete = CLI_COMPLETE_FILE}},
    {OPT_UNIX_SOCKET, "--unix-socket",
     {.long_name = "unix-socket", .value_name = "PATH",
      .help = "Connect to this unix domain socket instead of the URL's host and port, which still give the Host "
              "header and the path (http:// only: HTTP/1.1, or HTTP/2 with --http2)",
      .complete = CLI_COMPLETE_FILE}},
    {OPT_BIND, "--bind",
     {.long_name = "bind", .value_name = "ADDR",
      .help = "Source addresses, IPv4 or IPv6, comma-separated (e.g. 127.0.0.2,127.0.0.3): connections take them in "
              "turn, and each address brings its own local ports"}},
    {OPT_CONNECT_TO, "--connect-to",
     {.long_name = "connect-to", .value_name = "HOST1:PORT1:HOST2:PORT2",
      .help = "Connect to HOST2:PORT2 instead of a URL's HOST1:PORT1, as curl: Host, :authority and SNI stay the "
              "URL's (repeatable; the first that matches wins; an empty HOST1 or PORT1 matches any, an empty HOST2 "
              "or PORT2 keeps the URL's; IPv6 in brackets)",
      .repeatable = true}},
    {OPT_RESOLVE, "--resolve",
     {.long_name = "resolve", .value_name = "HOST:PORT:ADDR[,ADDR...]",
      .help = "Use these addresses for HOST:PORT instead of asking DNS, as curl (repeatable; * as HOST is any host; "
              "after --connect-to, it applies to the host connected to)",
      .repeatable = true}},
    {OPT_IPV4, "-4/--ipv4", {.short_name = '4', .long_name = "ipv4", .help = "Resolve names to IPv4 addresses only"}},
    {OPT_IPV6, "-6/--ipv6", {.short_name = '6', .long_name = "ipv6", .help = "Resolve names to IPv6 addresses only"}},
    {OPT_DISABLE_KEEPALIVE, "--disable-keepalive",
     {.long_name = "disable-keepalive",
      .help = "Close the connection after every response instead of reusing it (sends \"Connection: close\"; "
              "HTTP/1.1 only)"}},
    {OPT_NO_PROGRESS, "--no-progress",
     {.long_name = "no-progress",
      .help = "No live view on stderr while the run goes (it is only shown when stderr is a terminal)"}},
    {OPT_PARALLEL, "-p/--parallel",
     {.short_name = 'p', .long_name = "parallel", .value_name = "PARALLEL",
      .help = "Number of concurrent streams per connection (HTTP/2 and HTTP/3)", .default_text = "1"}},
    {OPT_HELP, "-h/--help", {.short_name = 'h', .long_name = "help", .help = "Print help"}},
    {OPT_VERSION, "-V/--version", {.short_name = 'V', .long_name = "version", .help = "Print version"}},
};

#define NSPECS (sizeof opt_specs / sizeof opt_specs[0])

static const struct opt_spec *find_short(char c)
{
    for (size_t i = 0; i < NSPECS; i++)
        if (opt_specs[i].o.short_name == c)
            return &opt_specs[i];
    return NULL;
}

static const struct opt_spec *find_long(const char *name, size_t len)
{
    for (size_t i = 0; i < NSPECS; i++)
        if (strlen(opt_specs[i].o.long_name) == len && memcmp(opt_specs[i].o.long_name, name, len) == 0)
            return &opt_specs[i];
    return NULL;
}

static const struct opt_spec *spec_of(enum opt_id id)
{
    for (size_t i = 0; i < NSPECS; i++)
        if (opt_specs[i].id == id)
            return &opt_specs[i];
    return NULL;
}

const struct cli_option *cli_option(size_t i)
{
    return i < NSPECS ? &opt_specs[i].o : NULL;
}

/* ------------------------------------------------------------------ help */

/* The subcommands, after the usage line: a usage line each, then a
 * Commands: list with the first sentence of each one's help. */
static void print_help_commands(FILE *f)
{
    const struct cli_subcommand *sc;
    char summary[160];
    for (size_t i = 0; (sc = cli_subcommand(i)); i++)
        fprintf(f, "       shb %s %s\n", sc->name, sc->synopsis);
    fputs("\nCommands:\n", f);
    for (size_t i = 0; (sc = cli_subcommand(i)); i++) {
        cli_help_summary(sc->help, summary, sizeof summary);
        fprintf(f, "  %-12s %s\n", sc->name, summary);
    }
}

/* shb -h (clap's long help layout), from opt_specs and the subcommands. */
void cli_print_help(FILE *f, unsigned default_threads)
{
    fputs(CLI_SUMMARY "\n"
          "\n"
          "Usage: shb [OPTIONS] <URL>...\n",
          f);
    print_help_commands(f);
    fputs("\n"
          "Arguments:\n"
          "  <URL>...  " CLI_URL_HELP "\n"
          "\n"
          "Options:\n",
          f);
    for (size_t i = 0; i < NSPECS; i++) {
        const struct cli_option *op = &opt_specs[i].o;
        if (op->short_name)
            fprintf(f, "  -%c, --%s", op->short_name, op->long_name);
        else
            fprintf(f, "      --%s", op->long_name);
        if (op->value_name)
            fprintf(f, " <%s>", op->value_name);
        fprintf(f, "\n          %s", op->help);
        if (op->default_cores)
            fprintf(f, " [default: %u]", default_threads);
        else if (op->default_text)
            fprintf(f, " [default: %s]", op->default_text);
        fputc('\n', f);
    }
}

void cli_help_summary(const char *help, char *buf, size_t len)
{
    size_t n = 0;
    int depth = 0;
    if (!len)
        return;
    for (const char *c = help; *c; c++) {
        if (*c == '(') {
            if (depth++ == 0 && n && buf[n - 1] == ' ')
                n--; /* "Run shard I (from 0) of N": one space stays */
            continue;
        }
        if (depth) {
            depth -= *c == ')';
            continue;
        }
        if ((*c == '.' || *c == ':' || *c == ';') && (c[1] == ' ' || c[1] == '\0'))
            break;
        if (n + 1 < len)
            buf[n++] = *c;
    }
    while (n && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

/* ----------------------------------------------------------- subcommands */

static const struct cli_option merge_options[] = {
    {.short_name = 'j', .long_name = "json", .help = "Print the merged report as JSON"},
    {.long_name = "histograms", .help = "Put the merged histograms in the JSON report, so that it can be merged again"},
    {.long_name = "force", .help = "Merge reports of different URLs or protocols too"},
};

static const struct cli_option report_options[] = {
    {.long_name = "html", .value_name = "FILE", .help = "The page to write (created or truncated)",
     .complete = CLI_COMPLETE_FILE},
};

static const struct cli_subcommand subcommands[] = {
    {.name = "merge",
     .synopsis = "[-j [--histograms]] [--force] FILE...",
     .help = "Read JSON reports (shb -j), from shards of one run or from separate runs, and print one report: "
             "counts, status codes, error kinds and bytes summed, latency histograms added bucket by bucket (so "
             "percentiles are exact, never averaged), and the rate over the union of the runs' wall-clock windows. "
             "Reports of different URLs or protocols are refused unless --force is given; a report without its "
             "histograms (shb -j without --histograms or --shard) is refused.",
     .options = merge_options,
     .noptions = sizeof merge_options / sizeof merge_options[0],
     .operand = "FILE",
     .complete = CLI_COMPLETE_FILE},
    {.name = "report",
     .synopsis = "--html FILE REPORT...",
     .help = "Write an HTML page of charts from JSON reports (shb -j; a file may hold an array of them), the page "
             "--html writes after a run: shards of one run are merged first, other reports are drawn side by side, "
             "one colour each, with a comparison table. With --histograms in the reports, the percentile spectrum "
             "is exact and the latency over time has p90 and max beside p50 and p99.",
     .options = report_options,
     .noptions = sizeof report_options / sizeof report_options[0],
     .operand = "REPORT",
     .complete = CLI_COMPLETE_FILE},
    {.name = "completions",
     .synopsis = "SHELL",
     .help = "Print the completion script for SHELL (bash, zsh or fish) on standard output.",
     .operand = "SHELL",
     .complete = CLI_COMPLETE_WORDS,
     .words = "bash zsh fish"},
};

const struct cli_subcommand *cli_subcommand(size_t i)
{
    return i < sizeof subcommands / sizeof subcommands[0] ? &subcommands[i] : NULL;
}

/* ---------------------------------------------------------------- parser */

struct parser {
    struct shb_opts *o;
    char *err;
    size_t errlen;
    bool failed; /* err holds the first problem; later ones are not recorded */
    bool help, version;
    bool given[OPT_COUNT];
    const char *data_arg; /* -d or --data-binary value; read after every other check */
    const char *user_arg; /* -u value (argv's: cli_hide_secrets blanks its password) */
    const char *netrc_file; /* --netrc-file */
    const char *targets_file; /* --targets */
    const char **args;    /* the positional arguments (URL or label=URL), argc entries */
    size_t nargs;
};

static void fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    va_list ap;
    va_start(ap, fmt);
    format_err(p->err, p->errlen, fmt, ap);
    va_end(ap);
}

/* A positive whole number no larger than max: decimal digits, or with an
 * SI suffix (10k, 2.5k, 1M: si_suffix); no sign, no spaces, no exponent.
 * Each kind of mistake gets its own message. */
static bool parse_count(struct parser *p, const struct opt_spec *s, const char *v, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    bool overflow = false;
    size_t len = strlen(v);
    uint64_t times = si_suffix(v, &len);
    switch (scaled_decimal(v, len, times, &n)) {
    case SCALED_OK: break;
    case SCALED_SYNTAX:
        fail(p, "invalid value '%s' for %s: expected a positive integer (e.g. 500, 10k, 1.5M)", v, s->display);
        return false;
    case SCALED_FRACTION:
        fail(p, "invalid value '%s' for %s: not a whole number", v, s->display);
        return false;
    case SCALED_TOO_LARGE: overflow = true; break;
    }
    if (overflow || n > max) {
        fail(p, "invalid value '%s' for %s: too large (at most %llu)", v, s->display, (unsigned long long)max);
        return false;
    }
    if (n == 0) {
        fail(p, "invalid value '0' for %s: must be at least 1", s->display);
        return false;
    }
    *out = n;
    return true;
}

/* -w/-W N: window bits, 0 to H2_WINDOW_BITS_MAX (h2load's range). */
static void set_window_bits(struct parser *p, const struct opt_spec *s, const char *v, uint8_t *field)
{
    size_t len = strlen(v);
    if (len == 0 || len > 2 || strspn(v, "0123456789") != len || (unsigned)atoi(v) > H2_WINDOW_BITS_MAX)
        fail(p, "invalid value '%s' for %s: expected N from 0 to %u (a window of 2^N - 1 bytes)", v, s->display,
             H2_WINDOW_BITS_MAX);
    else
        *field = (uint8_t)atoi(v);
}

/* A byte size from min to max: digits, maybe a decimal point, and a
 * binary suffix (size_suffix: 16k, 1.5M). */
static bool parse_size(struct parser *p, const struct opt_spec *s, const char *v, uint64_t min, uint64_t max,
                       uint64_t *out)
{
    size_t len = strlen(v);
    uint64_t times = size_suffix(v, &len), n = 0;
    enum scaled r = scaled_decimal(v, len, times, &n);
    if (r == SCALED_SYNTAX)
        fail(p, "invalid value '%s' for %s: expected a size in bytes (e.g. 65536, 64k, 1M; k is 1024)", v,
             s->display);
    else if (r == SCALED_FRACTION)
        fail(p, "invalid value '%s' for %s: not a whole number of bytes", v, s->display);
    else if (r == SCALED_TOO_LARGE || n < min || n > max)
        fail(p, "invalid value '%s' for %s: must be %llu to %llu bytes", v, s->display, (unsigned long long)min,
             (unsigned long long)max);
    else
        *out = n;
    return !p->failed;
}

static void set_size32(struct parser *p, const struct opt_spec *s, const char *v, uint64_t min, uint64_t max,
                       uint32_t *field)
{
    uint64_t n;
    if (parse_size(p, s, v, min, max, &n))
        *field = (uint32_t)n;
}

static void set_u32(struct parser *p, const struct opt_spec *s, const char *v, uint32_t *field)
{
    uint64_t n;
    if (parse_count(p, s, v, UINT32_MAX, &n))
        *field = (uint32_t)n;
}

static void set_duration(struct parser *p, const struct opt_spec *s, const char *v, uint64_t *field)
{
    uint64_t ns;
    const char *why = duration_problem(v, &ns);
    if (why)
        fail(p, "invalid value '%s' for %s: %s", v, s->display, why);
    else
        *field = ns;
}

/* --timeout: a duration, or 0 (also "0s", "0ms"...) for none. */
static void set_timeout(struct parser *p, const struct opt_spec *s, const char *v, uint64_t *field)
{
    uint64_t ns;
    if (strcmp(v, "0") == 0) {
        *field = 0;
        return;
    }
    const char *why = duration_problem(v, &ns);
    if (why && strcmp(why, DURATION_ZERO) == 0)
        *field = 0;
    else if (why)
        fail(p, "invalid value '%s' for %s: %s (or 0 for no timeout)", v, s->display, why);
    else
        *field = ns;
}

static void set_method(struct parser *p, const struct opt_spec *s, const char *v)
{
    if (!cli_is_token(v, strlen(v)))
        fail(p, "invalid value '%s' for %s: a method is a token such as GET or POST", v, s->display);
    else
        p->o->method = v;
}

static bool is_space_or_tab(char c)
{
    return c == ' ' || c == '\t';
}

/* Copies [b, e) with surrounding spaces and tabs removed. */
char *cli_dup_trimmed(const char *b, const char *e)
{
    while (b < e && is_space_or_tab(*b))
        b++;
    while (e > b && is_space_or_tab(e[-1]))
        e--;
    return strndup(b, (size_t)(e - b));
}

/* A value may hold anything a field value may (RFC 9110 5.5) except the
 * control characters, CR and LF above all: they would split the request. */
bool cli_field_value_ok(const char *v)
{
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if ((c < ' ' && c != '\t') || c == 0x7f)
            return false;
    }
    return true;
}

static void add_header(struct parser *p, const struct opt_spec *s, const char *v)
{
    const char *colon = strchr(v, ':');
    if (!colon) {
        fail(p, "invalid value '%s' for %s: expected 'Name: Value' (no ':' found)", v, s->display);
        return;
    }
    if (strpbrk(v, "\r\n")) {
        fail(p, "invalid value for %s: header contains CR or LF", s->display);
        return;
    }
    struct shb_opts *o = p->o;
    char *name = cli_dup_trimmed(v, colon);
    char *value = cli_dup_trimmed(colon + 1, colon + strlen(colon));
    struct shb_header *grown = realloc(o->headers, (o->nheaders + 1) * sizeof *grown);
    if (!name || !value || !grown) {
        if (grown)
            o->headers = grown;
        free(name);
        free(value);
        fail(p, "out of memory");
        return;
    }
    o->headers = grown;
    if (!*name)
        fail(p, "invalid value '%s' for %s: empty header name", v, s->display);
    else if (!cli_is_token(name, strlen(name)))
        fail(p, "invalid value '%s' for %s: header name '%s' is not a token", v, s->display, name);
    else if (!cli_field_value_ok(value))
        fail(p, "invalid value for %s: header value contains control characters", s->display);
    /* Kept even when refused so that cli_free owns it either way. */
    o->headers[o->nheaders++] = (struct shb_header){name, value};
}

bool cli_decimal(const char *v, size_t len, double *out)
{
    char buf[32];
    size_t digits = 0, dots = 0;
    double times = (double)si_suffix(v, &len); /* 2.5k */
    for (size_t i = 0; i < len; i++) {
        if (v[i] == '.')
            dots++;
        else if (v[i] >= '0' && v[i] <= '9')
            digits++;
        else
            return false;
    }
    if (digits == 0 || dots > 1 || len >= sizeof buf || v[0] == '.' || v[len - 1] == '.')
        return false;
    memcpy(buf, v, len);
    buf[len] = '\0';
    *out = strtod(buf, NULL) * times;
    return true;
}

/* One rate of -q (cli_decimal: "2000", "0.5", "2.5k"; not ".5" or "5.", so
 * "10...20" is a typo, not 10 to 0.2), len bytes at v. NULL when it is one,
 * else what is wrong. */
static const char *rate_problem(const char *v, size_t len, double *out)
{
    double r;
    if (!cli_decimal(v, len, &r))
        return "expected requests per second, e.g. 2000, or 1000..20000 to ramp";
    if (!(r > 0))
        return "a rate must be more than 0 requests per second";
    if (r > CLI_RATE_MAX)
        return "too large (at most 100000000 requests per second)";
    *out = r;
    return NULL;
}

/* -q RATE, or -q FROM..TO: a ramp (over -z, check_combinations). */
static void set_rate(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    const char *dots = strstr(v, "..");
    const char *why = rate_problem(v, dots ? (size_t)(dots - v) : strlen(v), &o->rate_from);
    o->rate_to = o->rate_from;
    if (!why && dots)
        why = rate_problem(dots + 2, strlen(dots + 2), &o->rate_to);
    if (why)
        fail(p, "invalid value '%s' for %s: %s", v, s->display, why);
    else
        o->rate_ramp = dots != NULL;
}

/* --shard I/N: 0 <= I < N. */
static void set_shard(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    char *end;
    unsigned long i = 0, n = 0;
    bool ok = v[0] >= '0' && v[0] <= '9';
    if (ok) {
        errno = 0;
        i = strtoul(v, &end, 10);
        ok = errno == 0 && *end == '/' && end[1] >= '0' && end[1] <= '9';
    }
    if (ok) {
        n = strtoul(end + 1, &end, 10);
        ok = errno == 0 && *end == '\0';
    }
    if (!ok)
        fail(p, "invalid value '%s' for %s: expected I/N, shard I (from 0) of N, e.g. 0/4", v, s->display);
    else if (n == 0 || n > CLI_SHARDS_MAX)
        fail(p, "invalid value '%s' for %s: N must be 1 to %u", v, s->display, CLI_SHARDS_MAX);
    else if (i >= n)
        fail(p, "invalid value '%s' for %s: shards are numbered 0 to %lu", v, s->display, n - 1);
    else {
        o->shard_index = (uint32_t)i;
        o->shard_count = (uint32_t)n;
    }
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at *pp as a number; false if any is not a digit. */
static bool digits(const char **pp, int n, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < n; k++) {
        char c = (*pp)[k];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (unsigned)(c - '0');
    }
    *pp += n;
    *out = v;
    return true;
}

/* ".fraction" at *pp (up to 9 digits count; more are dropped) as ns. */
static bool fraction_ns(const char **pp, uint64_t *ns)
{
    const char *q = *pp;
    *ns = 0;
    if (*q != '.')
        return true;
    q++;
    if (*q < '0' || *q > '9')
        return false;
    uint64_t scale = 100000000;
    for (; *q >= '0' && *q <= '9'; q++, scale /= 10)
        *ns += scale * (uint64_t)(*q - '0');
    *pp = q;
    return true;
}

/* RFC 3339 §5.6 date-time: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), T
 * or a space between; as Unix ns, or NULL with the reason. */
static const char *rfc3339_problem(const char *s, uint64_t *out)
{
    unsigned y, mo, d, h, mi, sec, oh = 0, om = 0;
    const char *q = s;
    uint64_t frac;
    const char *shape = "expected Unix seconds or an RFC 3339 time such as 2026-12-02T18:00:00Z";
    if (!digits(&q, 4, &y) || *q++ != '-' || !digits(&q, 2, &mo) || *q++ != '-' || !digits(&q, 2, &d))
        return shape;
    if (*q != 'T' && *q != 't' && *q != ' ')
        return shape;
    q++;
    if (!digits(&q, 2, &h) || *q++ != ':' || !digits(&q, 2, &mi) || *q++ != ':' || !digits(&q, 2, &sec) ||
        !fraction_ns(&q, &frac))
        return shape;
    static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 ||
        sec > 60) /* 60: a leap second, read as the next one */
        return "no such date or time";
    int sign = 0;
    if (*q == 'Z' || *q == 'z')
        q++;
    else if (*q == '+' || *q == '-') {
        sign = *q++ == '+' ? 1 : -1;
        if (!digits(&q, 2, &oh) || *q++ != ':' || !digits(&q, 2, &om) || oh > 23 || om > 59)
            return "a UTC offset is +HH:MM or -HH:MM";
    } else
        return "an RFC 3339 time ends with Z or a UTC offset (+HH:MM)";
    if (*q)
        return "unexpected characters after the time";
    int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - sign * (int64_t)(oh * 3600 + om * 60);
    if (t < 0)
        return "before 1970";
    *out = (uint64_t)t * 1000000000u + frac;
    return NULL;
}

/* --start-at: Unix seconds (fractions allowed) or RFC 3339. Whether it is
 * still ahead is for shb.c to say (the parser has no clock). */
static void set_start_at(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    const char *q = v, *why = NULL;
    uint64_t sec = 0, frac = 0;
    size_t nd = 0;
    while (*q >= '0' && *q <= '9' && nd < 12)
        sec = sec * 10 + (uint64_t)(*q++ - '0'), nd++;
    if (nd > 0 && (*q == '.' || *q == '\0')) {
        if (!fraction_ns(&q, &frac) || *q)
            why = "expected Unix seconds (e.g. 1796234400 or 1796234400.25) or an RFC 3339 time";
        else
            o->start_at_ns = sec * 1000000000u + frac;
    } else {
        why = rfc3339_problem(v, &o->start_at_ns);
    }
    if (!why && o->start_at_ns == 0)
        why = "the Unix epoch has passed";
    if (why)
        fail(p, "invalid value '%s' for %s: %s", v, s->display, why);
    else
        o->start_at_text = v;
}

/* --unix-socket PATH: it must fit sockaddr_un's sun_path with its NUL
 * (108 bytes on Linux, unix(7)). Whether something listens there is for
 * shb.c to find out, before any traffic. */
static void set_unix_socket(struct parser *p, const struct opt_spec *s, const char *v)
{
    size_t max = sizeof ((struct sockaddr_un *)0)->sun_path - 1;
    if (!*v)
        fail(p, "invalid value '' for %s: expected the path of a socket", s->display);
    else if (strlen(v) > max)
        fail(p, "invalid value '%s' for %s: a socket path is at most %zu bytes (this one is %zu)", v, s->display, max,
             strlen(v));
    else
        p->o->unix_socket = v;
}

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
                  sizeof(struct in6_addr)) == 0;
}

/* --bind ADDR[,ADDR...]: source addresses, all of one family, none twice
 * (each brings its own local ports: shb.c counts them per address). */
static void set_bind(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    size_t n = 1;
    for (const char *c = v; *c; c++)
        n += *c == ',';
    if (n > CLI_BIND_MAX) {
        fail(p, "invalid value for %s: %zu addresses, at most %u", s->display, n, CLI_BIND_MAX);
        return;
    }
    o->bind = calloc(n, sizeof *o->bind);
    if (!o->bind) {
        fail(p, "out of memory");
        return;
    }
    const char *a = v;
    for (size_t k = 0; k < n; k++) {
        size_t len = strcspn(a, ",");
        if (!ip_literal_parse(a, len, &o->bind[k])) {
            fail(p, "invalid value '%s' for %s: '%.*s' is not an IPv4 or IPv6 address", v, s->display, (int)len, a);
            return;
        }
        if (o->bind[k].ss_family != o->bind[0].ss_family) {
            fail(p, "invalid value '%s' for %s: IPv4 and IPv6 addresses mixed (a connection's source and target "
                    "are of one family)", v, s->display);
            return;
        }
        for (size_t j = 0; j < k; j++) {
            if (same_address(&o->bind[j], &o->bind[k])) {
                fail(p, "invalid value '%s' for %s: '%.*s' is given twice", v, s->display, (int)len, a);
                return;
            }
        }
        a += len + 1;
    }
    o->nbind = (uint32_t)n;
}

/* list (n entries of size bytes) with e after them, or NULL (out of
 * memory: list is left as it was, and still the caller's). */
static void *append_entry(void *list, size_t n, const void *e, size_t size)
{
    char *grown = realloc(list, (n + 1) * size);
    if (grown)
        memcpy(grown + n * size, e, size);
    return grown;
}

/* --connect-to and --resolve: one more entry, parsed (override.c); a
 * malformed one is refused, naming it and what is wrong in it. */
static void add_override(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    char why[256];
    void *grown = NULL;
    int rc;
    if (s->id == OPT_CONNECT_TO) {
        struct connect_to e;
        rc = connect_to_parse(v, &e, why, sizeof why);
        if (rc == 0 && (grown = append_entry(o->connect_to, o->nconnect_to, &e, sizeof e))) {
            o->connect_to = grown;
            o->nconnect_to++;
        }
    } else {
        struct resolve_entry e;
        rc = resolve_parse(v, &e, why, sizeof why);
        if (rc == 0 && (grown = append_entry(o->resolve, o->nresolve, &e, sizeof e))) {
            o->resolve = grown;
            o->nresolve++;
        }
    }
    if (rc != 0)
        fail(p, "invalid value '%s' for %s: %s", v, s->display, why);
    else if (!grown)
        fail(p, "out of memory");
}

/* --fail-if: one more threshold (report/thresholds.h). */
static void add_threshold(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    char why[256];
    struct threshold t;
    void *grown = NULL;
    if (threshold_parse(v, &t, why, sizeof why) < 0)
        fail(p, "invalid value '%s' for %s: %s", v, s->display, why);
    else if (!(grown = append_entry(o->thresholds, o->nthresholds, &t, sizeof t)))
        fail(p, "out of memory");
    else {
        o->thresholds = grown;
        o->nthresholds++;
    }
}

/* The TLS choices (tls13/choice.h parses the lists). */
static void set_tls(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct tls_choice *c = &p->o->tls;
    char why[600];
    int rc = 0;
    if (s->id == OPT_TLS_MAX)
        rc = tls_choice_version(v, &c->max_version, why, sizeof why);
    else if (s->id == OPT_TLSV12 || s->id == OPT_TLSV13) /* the last one given wins, as in curl */
        c->min_version = s->id == OPT_TLSV13 ? TLS_VERSION_13 : TLS_VERSION_12;
    else if (s->id == OPT_TLS13_CIPHERS)
        rc = tls_choice_suites13(c, v, why, sizeof why);
    else if (s->id == OPT_CIPHERS)
        rc = tls_choice_suites12(c, v, why, sizeof why);
    else
        rc = tls_choice_groups(c, v, why, sizeof why);
    if (rc < 0)
        fail(p, "%s", why);
}

/* Options that take one value refuse a second one: "-n 100 ... -n 1000" in a
 * script is a mistake to point out, not a tie to break silently. */
/* A file's name: anything but empty. */
static void set_path(struct parser *p, const struct opt_spec *s, const char *v, const char **field)
{
    if (*v)
        *field = v;
    else
        fail(p, "invalid value '' for %s: expected a file name", s->display);
}

static void set_log_format(struct parser *p, const struct opt_spec *s, const char *v)
{
    if (strcmp(v, "tsv") == 0)
        p->o->log_format = REQLOG_TSV;
    else if (strcmp(v, "csv") == 0)
        p->o->log_format = REQLOG_CSV;
    else if (strcmp(v, "jsonl") == 0)
        p->o->log_format = REQLOG_JSONL;
    else
        fail(p, "invalid value '%s' for %s: expected tsv, csv or jsonl", v, s->display);
}

static void apply(struct parser *p, const struct opt_spec *s, const char *v)
{
    struct shb_opts *o = p->o;
    if (s->o.value_name && !s->o.repeatable && p->given[s->id]) {
        fail(p, "%s given more than once", s->display);
        return;
    }
    p->given[s->id] = true;
    switch (s->id) {
    case OPT_CONNECTIONS: set_u32(p, s, v, &o->connections); break;
    case OPT_REQUESTS: {
        uint64_t n;
        if (parse_count(p, s, v, UINT64_MAX, &n))
            o->requests = n;
        break;
    }
    case OPT_DURATION: set_duration(p, s, v, &o->duration_ns); break;
    case OPT_PARALLEL: set_u32(p, s, v, &o->parallel); break;
    case OPT_THREADS: set_u32(p, s, v, &o->threads); break;
    case OPT_METHOD: set_method(p, s, v); break;
    case OPT_HEADER: add_header(p, s, v); break;
    case OPT_DATA:
    case OPT_DATA_BINARY: p->data_arg = v; break;
    case OPT_TARGETS: set_path(p, s, v, &p->targets_file); break;
    case OPT_TARGETS_ORDER:
        if (strcmp(v, "seq") == 0 || strcmp(v, "random") == 0)
            o->targets_random = v[0] == 'r';
        else
            fail(p, "invalid value '%s' for %s: expected seq or random", v, s->display);
        break;
    case OPT_SEED: {
        uint64_t n;
        if (parse_count(p, s, v, UINT64_MAX, &n))
            o->seed = n;
        break;
    }
    case OPT_USER: p->user_arg = v; break;
    case OPT_NETRC_FILE: set_path(p, s, v, &p->netrc_file); break;
    case OPT_PROXY: o->proxy = v; break;
    case OPT_PROXY_USER: o->proxy_user = v; break;
    case OPT_NOPROXY: o->noproxy = v; break;
    case OPT_CONNECT_TIMEOUT: set_duration(p, s, v, &o->connect_timeout_ns); break;
    case OPT_TIMEOUT: set_timeout(p, s, v, &o->timeout_ns); break;
    case OPT_WARMUP: set_duration(p, s, v, &o->warmup_ns); break;
    case OPT_RATE: set_rate(p, s, v); break;
    case OPT_SHARD: /* shards exist to be merged: their reports carry what merge needs */
        set_shard(p, s, v);
        o->histograms = true;
        break;
    case OPT_START_AT: set_start_at(p, s, v); break;
    case OPT_UNIX_SOCKET: set_unix_socket(p, s, v); break;
    case OPT_BIND: set_bind(p, s, v); break;
    case OPT_CONNECT_TO:
    case OPT_RESOLVE: add_override(p, s, v); break;
    case OPT_IPV4: o->family = AF_INET; break;
    case OPT_IPV6: o->family = AF_INET6; break;
    case OPT_DISABLE_KEEPALIVE: o->disable_keepalive = true; break;
    case OPT_NO_PROGRESS: o->no_progress = true; break;
    case OPT_TLS_MAX:
    case OPT_TLSV12:
    case OPT_TLSV13:
    case OPT_TLS13_CIPHERS:
    case OPT_CIPHERS:
    case OPT_CURVES: set_tls(p, s, v); break;
    case OPT_TLS_RESUME: o->tls_resume = true; break;
    case OPT_EARLY_DATA: o->early_data = o->tls_resume = true; break;
    case OPT_INSECURE: o->insecure = true; break;
    case OPT_CACERT:
        if (!*v)
            fail(p, "invalid value '' for %s: expected a file name", s->display);
        else
            o->cacert = v;
        break;
    case OPT_HTTP2: o->http2 = true; break;
    case OPT_HTTP3: o->http3 = true; break;
    case OPT_WINDOW_BITS: set_window_bits(p, s, v, &o->h2_window_bits); break;
    case OPT_CONN_WINDOW_BITS: set_window_bits(p, s, v, &o->h2_conn_window_bits); break;
    case OPT_MAX_FRAME_SIZE: set_size32(p, s, v, 16384, H2_MAX_FRAME_SIZE_MAX, &o->h2_max_frame_size); break;
    case OPT_HEADER_TABLE_SIZE: set_size32(p, s, v, 0, HPACK_TABLE_MAX, &o->h2_header_table_size); break;
    case OPT_MAX_STREAM_DATA: parse_size(p, s, v, CLI_QUIC_WINDOW_MIN, CLI_QUIC_WINDOW_MAX, &o->max_stream_data); break;
    case OPT_MAX_DATA: parse_size(p, s, v, CLI_QUIC_WINDOW_MIN, CLI_QUIC_WINDOW_MAX, &o->max_data); break;
    case OPT_CERT:
    case OPT_KEY:
        if (!*v)
            fail(p, "invalid value '' for %s: expected a file name", s->display);
        else if (s->id == OPT_CERT)
            o->cert = v;
        else
            o->key = v;
        break;
    case OPT_JSON: o->json = true; break;
    case OPT_HISTOGRAMS: o->histograms = true; break;
    case OPT_HDR_LOG: set_path(p, s, v, &o->hdr_log); break;
    case OPT_HTML: set_path(p, s, v, &o->html); break;
    case OPT_LOG:
        /* The report goes to stdout: a log there would be woven into it. */
        if (strcmp(v, "-") == 0)
            fail(p, "--log -: the report is on standard output; give --log a file");
        else
            set_path(p, s, v, &o->log);
        break;
    case OPT_LOG_FORMAT: set_log_format(p, s, v); break;
    case OPT_FAIL_IF: add_threshold(p, s, v); break;
    case OPT_HELP: p->help = true; break;
    case OPT_VERSION: p->version = true; break;
    case OPT_COUNT: break;
    }
}

static void add_positional(struct parser *p, const char *arg)
{
    p->args[p->nargs++] = arg; /* at most argc - 1 of them */
}

/* "--name", "--name=value" or "--name value". Returns how many extra argv
 * entries were consumed (0 or 1). */
static int parse_long(struct parser *p, int argc, char **argv, int i)
{
    const char *name = argv[i] + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct opt_spec *s = find_long(name, len);
    if (!s) {
        fail(p, "unknown option '--%.*s' (see shb --help)", (int)len, name);
        return 0;
    }
    if (!s->o.value_name) {
        if (eq)
            fail(p, "option '--%s' does not take a value", s->o.long_name);
        else
            apply(p, s, NULL);
        return 0;
    }
    if (eq) {
        apply(p, s, eq + 1);
        return 0;
    }
    if (i + 1 >= argc) {
        fail(p, "missing value for --%s", s->o.long_name);
        return 0;
    }
    apply(p, s, argv[i + 1]);
    return 1;
}

/* "-c 10", "-c10", and clusters of flags such as "-jh" (a value-taking
 * option ends the cluster: "-jc10"). Returns extra argv entries consumed. */
static int parse_short(struct parser *p, int argc, char **argv, int i)
{
    for (const char *c = argv[i] + 1; *c; c++) {
        const struct opt_spec *s = find_short(*c);
        if (!s) {
            fail(p, "unknown option '-%c' (see shb --help)", *c);
            return 0;
        }
        if (!s->o.value_name) {
            apply(p, s, NULL);
            continue;
        }
        if (c[1]) {
            apply(p, s, c + 1);
            return 0;
        }
        if (i + 1 >= argc) {
            fail(p, "missing value for -%c", *c);
            return 0;
        }
        apply(p, s, argv[i + 1]);
        return 1;
    }
    return 0;
}

static void scan_argv(struct parser *p, int argc, char **argv)
{
    bool options_ended = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_ended || a[0] != '-' || a[1] == '\0') /* "-" alone is positional */
            add_positional(p, a);
        else if (strcmp(a, "--") == 0)
            options_ended = true;
        else if (a[1] == '-')
            i += parse_long(p, argc, argv, i);
        else
            i += parse_short(p, argc, argv, i);
    }
}

/* The TLS choices against each other, the protocol and the URLs: a choice
 * that leaves nothing to offer, or that nothing would use, is a mistake. */
static void check_tls(struct parser *p)
{
    const struct shb_opts *o = p->o;
    struct tls_choice *c = &p->o->tls;
    tls_choice_describe(c); /* what differs from the defaults: what the checks and messages name */
    bool https = false;
    for (size_t i = 0; i < o->ntargets; i++)
        https |= o->targets[i].url.https;
    if (c->what[0] && !https && o->ntargets > 0)
        fail(p, "the TLS options (%s) only apply to https:// URLs", c->what);
    if (c->min_version > c->max_version)
        fail(p, "--tlsv1.3 asks for TLS 1.3 or later but --tls-max 1.2 allows at most 1.2");
    if (o->http3 && c->max_version < TLS_VERSION_13)
        fail(p, "--tls-max 1.2 does not apply to --http3 (QUIC uses TLS 1.3 only, RFC 9001 §4.2)");
    if (o->http3 && c->nsuites12)
        fail(p, "--ciphers sets TLS 1.2's suites, which --http3 never uses (QUIC is TLS 1.3 only): use "
                "--tls13-ciphers");
    if (c->nsuites13 && c->max_version < TLS_VERSION_13)
        fail(p, "--tls13-ciphers has no use with --tls-max 1.2");
    if (c->nsuites12 && c->min_version > TLS_VERSION_12)
        fail(p, "--ciphers sets TLS 1.2's suites, which --tlsv1.3 never uses: use --tls13-ciphers");
}

/* A protocol's knobs without that protocol would change nothing: the run
 * would not be the one asked for (h2load ignores them; shb says so). */
static void check_protocol_knobs(struct parser *p)
{
    static const enum opt_id h2_knobs[] = {OPT_WINDOW_BITS, OPT_CONN_WINDOW_BITS, OPT_MAX_FRAME_SIZE,
                                           OPT_HEADER_TABLE_SIZE};
    static const enum opt_id h3_knobs[] = {OPT_MAX_STREAM_DATA, OPT_MAX_DATA};
    const struct shb_opts *o = p->o;
    for (size_t i = 0; i < sizeof h2_knobs / sizeof h2_knobs[0]; i++)
        if (p->given[h2_knobs[i]] && !o->http2)
            fail(p, "%s only applies to HTTP/2 (add --http2%s)", spec_of(h2_knobs[i])->display,
                 o->http3 ? "; for HTTP/3's windows use --max-stream-data and --max-data" : "");
    for (size_t i = 0; i < sizeof h3_knobs / sizeof h3_knobs[0]; i++)
        if (p->given[h3_knobs[i]] && !o->http3)
            fail(p, "%s only applies to HTTP/3 (QUIC's flow control: add --http3%s)", spec_of(h3_knobs[i])->display,
                 o->http2 ? "; for HTTP/2's windows use -w and -W" : "");
}

/* The combinations the spec rules out, once every option is known. */
static void check_combinations(struct parser *p)
{
    const struct shb_opts *o = p->o;
    /* seq given explicitly is the default, harmless without a list. */
    if ((o->targets_random || p->given[OPT_SEED]) && !p->targets_file)
        fail(p, "%s applies to a request list: add --targets FILE",
             o->targets_random ? "--targets-order random" : "--seed");
    else if (p->given[OPT_SEED] && !o->targets_random)
        fail(p, "--seed applies to --targets-order random (seq needs none)");
    if (p->given[OPT_REQUESTS] && p->given[OPT_DURATION])
        fail(p, "-n and -z are mutually exclusive");
    if (o->http2 && o->http3)
        fail(p, "--http2 and --http3 are mutually exclusive");
    if (p->given[OPT_PARALLEL] && !o->http2 && !o->http3)
        fail(p, "-p/--parallel only applies to HTTP/2 and HTTP/3 (add --http2 or --http3)");
    if (o->disable_keepalive && (o->http2 || o->http3))
        fail(p, "--disable-keepalive only applies to HTTP/1.1 (not with --http2 or --http3)");
    /* The warm-up is inside -z's duration: something must be left to measure. */
    if (p->given[OPT_WARMUP] && p->given[OPT_DURATION] && o->warmup_ns >= o->duration_ns)
        fail(p, "--warmup must be shorter than -z/--duration (the warm-up is part of the duration)");
    if (o->rate_ramp && !p->given[OPT_DURATION])
        fail(p, "-q/--rate FROM..TO ramps over the run's duration: add -z/--duration");
    if (p->given[OPT_IPV4] && p->given[OPT_IPV6])
        fail(p, "-4/--ipv4 and -6/--ipv6 are mutually exclusive");
    /* curl joins several -d with '&'; shb sends one body, so two sources
     * of it are a mistake to point out. */
    if (p->given[OPT_DATA] && p->given[OPT_DATA_BINARY])
        fail(p, "-d/--data and --data-binary both give the request body: use one");
    check_protocol_knobs(p);
    check_tls(p);
}

/* --unix-socket and --bind against every target's URL and the protocol. */
static void check_connection(struct parser *p)
{
    const struct shb_opts *o = p->o;
    if (o->unix_socket) {
        /* The path is the address: there is nothing to resolve. */
        if (o->nconnect_to || o->nresolve || o->family)
            fail(p, "%s does not apply to --unix-socket (its path is the address: no host is resolved)",
                 o->nconnect_to ? "--connect-to" : o->nresolve ? "--resolve" : o->family == AF_INET ? "-4/--ipv4"
                                                                                                     : "-6/--ipv6");
        else if (o->http3)
            fail(p, "--unix-socket does not apply to --http3 (QUIC runs over UDP)");
        else if (o->nbind)
            fail(p, "--bind does not apply to --unix-socket (a unix socket has no source address)");
        for (size_t i = 0; i < o->ntargets && !p->failed; i++)
            if (o->targets[i].url.https)
                fail(p, "--unix-socket only takes http:// URLs (no TLS over a unix socket)");
        return;
    }
    /* A connection's source and target are of one family. */
    if (o->nbind && o->family && o->bind[0].ss_family != o->family)
        fail(p, "%s asks for %s addresses, but --bind gives %s ones (a connection's source and target are of one "
                "family)", o->family == AF_INET ? "-4/--ipv4" : "-6/--ipv6", o->family == AF_INET ? "IPv4" : "IPv6",
             o->family == AF_INET ? "IPv6" : "IPv4");
    /* A name may resolve to either family: shb.c then asks for the
     * addresses' family only. An IP literal is what it is, unless
     * --connect-to or --resolve send it elsewhere (preflight.c checks the
     * address they give). */
    for (size_t i = 0; i < o->ntargets && !p->failed && !o->nconnect_to && !o->nresolve; i++) {
        const struct shb_url *u = o->targets[i].proxy ? &o->targets[i].proxy->url : &o->targets[i].url;
        if (!o->nbind || !u->host_is_ip)
            continue;
        int target = u->host_is_ipv6 ? AF_INET6 : AF_INET;
        if (o->bind[0].ss_family != target)
            fail(p, "--bind gives %s addresses, but the %s %s is an %s address", target == AF_INET ? "IPv6" : "IPv4",
                 o->targets[i].proxy ? "proxy" : "target", u->host, target == AF_INET ? "IPv4" : "IPv6");
    }
}

/* --cert/--key: a key needs its certificate, and a certificate needs a
 * TLS target to be shown to. */
static void check_client_cert(struct parser *p)
{
    const struct shb_opts *o = p->o;
    bool tls = false;
    if (p->failed)
        return;
    if (o->key && !o->cert) {
        fail(p, "--key needs --cert (the certificate the key belongs to)");
        return;
    }
    for (size_t i = 0; i < o->ntargets; i++)
        tls = tls || o->targets[i].url.https;
    if (o->cert && !tls)
        fail(p, "--cert needs an https:// URL (a client certificate is shown in the TLS handshake)");
    else if (o->early_data && !tls)
        fail(p, "--early-data needs an https:// URL (0-RTT is TLS 1.3 early data)");
    else if (o->tls_resume && !tls)
        fail(p, "--tls-resume needs an https:// URL (it resumes TLS sessions)");
}

/* --cacert verifies https servers: with none among the targets it would
 * verify nothing, which is not what was asked. */
static void check_cacert(struct parser *p)
{
    const struct shb_opts *o = p->o;
    bool tls = false;
    if (p->failed || !o->cacert)
        return;
    for (size_t i = 0; i < o->ntargets; i++)
        tls = tls || o->targets[i].url.https;
    if (!tls)
        fail(p, "--cacert needs an https:// URL (it verifies the server's certificate)");
}

/* A URL starts with its scheme, which is what tells "URL" from
 * "label=URL" (a URL may hold '=' in its query). */
static bool has_http_scheme(const char *s)
{
    return strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0;
}

/* "label=URL" or "URL" into t: the label, and the URL's text in *url.
 * Messages quote shown (arg with its password masked). A label is a short
 * name: no whitespace or control characters (it heads a report and a
 * table row), no '=' (the first one ends it), and not "ftp://h/?a" (a URL
 * of another scheme with a query, which its URL error explains better). */
static void split_target(struct parser *p, const char *arg, const char *shown, struct shb_target *t,
                         const char **url)
{
    const char *eq = strchr(arg, '=');
    *url = arg;
    if (has_http_scheme(arg) || !eq || memmem(arg, (size_t)(eq - arg), "://", 3))
        return;
    size_t len = (size_t)(eq - arg);
    if (len == 0) {
        fail(p, "invalid argument '%s': empty label (use label=URL, e.g. nginx=http://127.0.0.1:8080/)", shown);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)arg[i];
        if (c <= ' ' || c == 0x7f) {
            fail(p, "invalid argument '%s': a label has no spaces or control characters", shown);
            return;
        }
    }
    if (len > CLI_LABEL_MAX) {
        fail(p, "invalid argument '%s': label longer than %u bytes", shown, CLI_LABEL_MAX);
        return;
    }
    t->label = strndup(arg, len);
    if (!t->label)
        fail(p, "out of memory");
    *url = eq + 1;
}

/* One target's URL (url, argv's text). With several, an error that does
 * not quote the URL (e.g. "unsupported URL scheme 'ftp'") is prefixed with
 * the argument (as shown), so that it names the one at fault. */
static void parse_target_url(struct parser *p, const char *arg, const char *url, struct shb_target *t,
                             bool several)
{
    if (cli_parse_url(url, &t->url, p->err, p->errlen)) {
        p->failed = true;
        if (several && p->err && p->errlen && !strstr(p->err, t->url_text)) {
            char why[512];
            snprintf(why, sizeof why, "%s", p->err);
            p->failed = false;
            fail(p, "%s: %s", arg, why);
        }
        return;
    }
    if (p->o->http3 && !t->url.https) {
        if (several)
            fail(p, "--http3 requires an https:// URL: '%s' is not one", arg);
        else
            fail(p, "--http3 requires an https:// URL");
    }
}

static void check_proxies_and_connection(struct parser *p);

/* --targets FILE: the list (cli/reqlist.h) in place of the URL argument;
 * its first URL is the one target (the server every entry shares). */
static void check_reqlist(struct parser *p)
{
    struct shb_opts *o = p->o;
    if (p->nargs > 0) {
        fail(p, "--targets gives the URLs: leave out the URL argument ('%s')", p->args[0]);
        return;
    }
    if (p->failed)
        return;
    if (!(o->reqlist = calloc(1, sizeof *o->reqlist)) || !(o->targets = calloc(1, sizeof *o->targets))) {
        fail(p, "out of memory");
        return;
    }
    if (reqlist_load(p->targets_file, o->reqlist, p->err, p->errlen) < 0) {
        p->failed = true;
        return;
    }
    const struct reqlist *l = o->reqlist;
    const struct reqlist_entry *first = &l->e[0];
    struct shb_target *t = &o->targets[o->ntargets++];
    t->url = first->url;
    memset(&t->url.cred, 0, sizeof t->url.cred); /* each entry keeps its own; -u/--netrc-file make t's */
    if (!(t->url.target = strdup(first->url.target)) || !(t->url_text = strdup(first->url_text))) {
        fail(p, "out of memory");
        return;
    }
    /* The HTTP format names each target's method and body. */
    if (l->http_format && p->given[OPT_METHOD])
        fail(p, "-m/--method applies to a list of bare URLs: this --targets file gives each target's method");
    else if (l->http_format && p->data_arg)
        fail(p, "%s applies to a list of bare URLs: this --targets file gives each target's body (@file)",
             p->given[OPT_DATA_BINARY] ? "--data-binary" : "-d/--data");
    else if (o->http3 && !t->url.https)
        fail(p, "--http3 requires an https:// URL: --targets' first is %s", t->url_text);
    for (size_t i = 0; i < l->n && !p->failed; i++) {
        const struct reqlist_entry *e = &l->e[i];
        /* As check_early_data: only what is safe to replay goes early (RFC 8470 §2.1). */
        if (o->early_data && e->method && strcmp(e->method, "GET") != 0 && strcmp(e->method, "HEAD") != 0)
            fail(p, "--targets: line %u: --early-data sends only GET and HEAD requests (RFC 8470 §2.1): not %s",
                 e->line, e->method);
        if (o->early_data && e->has_body)
            fail(p, "--targets: line %u: --early-data sends no body (0-RTT data can be replayed)", e->line);
        for (size_t h = 0; h < e->nheaders && !p->failed; h++) {
            const char *name = e->headers[h].name;
            /* shb frames each request itself (check_headers says why). */
            if (strcasecmp(name, "Content-Length") == 0 || strcasecmp(name, "Transfer-Encoding") == 0)
                fail(p, "--targets: line %u: leave %s out: shb sends each body with its length", e->line, name);
        }
    }
    if (!p->failed)
        check_proxies_and_connection(p);
}

/* Each target's request headers: -H, minus any name the target gives,
 * then the target's own (a target's header of the same name wins). */
static void merge_reqlist_headers(struct parser *p)
{
    struct shb_opts *o = p->o;
    for (size_t i = 0; i < o->reqlist->n && !p->failed; i++) {
        struct reqlist_entry *e = &o->reqlist->e[i];
        if (!(e->merged = calloc(o->nheaders + e->nheaders + 1, sizeof *e->merged))) {
            fail(p, "out of memory");
            return;
        }
        for (size_t h = 0; h < o->nheaders; h++) {
            bool own = false;
            for (size_t k = 0; k < e->nheaders && !own; k++)
                own = strcasecmp(e->headers[k].name, o->headers[h].name) == 0;
            if (!own)
                e->merged[e->nmerged++] = o->headers[h];
        }
        for (size_t k = 0; k < e->nheaders; k++)
            e->merged[e->nmerged++] = e->headers[k];
    }
}

static void check_urls(struct parser *p)
{
    struct shb_opts *o = p->o;
    if (p->targets_file) {
        check_reqlist(p);
        return;
    }
    if (p->nargs == 0) {
        fail(p, "missing URL (usage: shb [OPTIONS] <URL>...)");
        return;
    }
    if (p->failed)
        return;
    o->targets = calloc(p->nargs, sizeof *o->targets);
    if (!o->targets) {
        fail(p, "out of memory");
        return;
    }
    bool several = p->nargs > 1;
    for (size_t i = 0; i < p->nargs && !p->failed; i++) {
        struct shb_target *t = &o->targets[o->ntargets++];
        char *shown = auth_redact(p->args[i]);
        const char *url = NULL;
        if (!shown) {
            fail(p, "out of memory");
            break;
        }
        split_target(p, p->args[i], shown, t, &url);
        if (!p->failed && !(t->url_text = auth_redact(url)))
            fail(p, "out of memory");
        if (!p->failed)
            parse_target_url(p, shown, url, t, several);
        free(shown);
        for (size_t j = 0; j < i && !p->failed; j++)
            if (t->label && o->targets[j].label && strcmp(t->label, o->targets[j].label) == 0)
                fail(p, "label '%s' given twice: each target's label must be unique", t->label);
    }
    /* Shards of several targets would need a start per target: one run of
     * many targets under an orchestrator is one process per target. */
    if (several && p->given[OPT_SHARD])
        fail(p, "--shard takes one URL: run one shard set per target");
    if (several && p->given[OPT_START_AT])
        fail(p, "--start-at takes one URL: several targets run one after another");
    /* One log is one run's window; several targets' would interleave. */
    if (several && p->given[OPT_HDR_LOG])
        fail(p, "--hdr-log takes one URL: run each target with a log of its own");
    if (several && p->given[OPT_LOG])
        fail(p, "--log takes one URL: run each target with a log of its own");
    /* One colour per target on the page (report/html.h). */
    if (p->given[OPT_HTML] && o->ntargets > HTML_MAX_REPORTS)
        fail(p, "--html draws %d targets at most, %zu given: split them over runs and join the reports with shb "
                "report --html", HTML_MAX_REPORTS, o->ntargets);
    check_proxies_and_connection(p);
}

static void check_proxies_and_connection(struct parser *p)
{
    struct shb_opts *o = p->o;
    check_client_cert(p);
    check_cacert(p);
    /* Each target's proxy (cli/proxy.h), before --bind's family is checked
     * against the address connections go to. */
    for (size_t i = 0; i < o->ntargets && !p->failed; i++)
        if (proxy_for_target(o, &o->targets[i], getenv, p->err, p->errlen))
            p->failed = true;
    if (!p->failed)
        check_connection(p);
}

/* ----------------------------------------------------------- credentials
 * Each target's user and password, in auth.h's order, made into its
 * Authorization value once. */

#define NETRC_MAX (1u << 20)

/* --netrc-file's text, NUL-terminated (malloc'd), or NULL with p failed. */
static char *read_netrc(struct parser *p, size_t *len)
{
    int fd = open(p->netrc_file, O_RDONLY | O_CLOEXEC);
    char *buf = NULL;
    ssize_t n = -1;
    if (fd >= 0 && (buf = malloc(NETRC_MAX + 1)) != NULL) {
        size_t have = 0;
        while (have <= NETRC_MAX && (n = read(fd, buf + have, NETRC_MAX + 1 - have)) != 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                break;
            have += (size_t)n;
        }
        *len = have;
    }
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (fd < 0 || !buf || n < 0) {
        fail(p, "--netrc-file: cannot read '%s': %s", p->netrc_file, strerror(saved));
    } else if (*len > NETRC_MAX) {
        fail(p, "--netrc-file: '%s' is larger than %u bytes: not a netrc file", p->netrc_file, NETRC_MAX);
    } else {
        buf[*len] = '\0';
        return buf;
    }
    free(buf);
    return NULL;
}

/* The password of a user named without one: $SHB_PASSWORD, else the
 * netrc's entry for the host and that user. false: neither has one. */
static bool find_password(struct parser *p, const char *netrc, size_t netrc_len, const char *host, struct cred *c)
{
    const char *env = getenv("SHB_PASSWORD");
    if (env) {
        if (strlen(env) >= sizeof c->password) {
            fail(p, "SHB_PASSWORD is longer than %zu bytes", sizeof c->password - 1);
            return false;
        }
        strcpy(c->password, env);
        return c->has_password = true;
    }
    struct cred n;
    char why[128];
    int rc = netrc ? auth_netrc_find(netrc, netrc_len, host, c->user, &n, why, sizeof why) : 0;
    if (rc < 0)
        fail(p, "--netrc-file: '%s': %s", p->netrc_file, why);
    if (rc == 1 && n.has_password) {
        memcpy(c->password, n.password, sizeof c->password);
        c->has_password = true;
    }
    auth_wipe(&n);
    return c->has_password;
}

/* Target t's credentials into c; false when it has none (or p failed). */
static bool target_cred(struct parser *p, const char *netrc, size_t netrc_len, struct shb_target *t, struct cred *c)
{
    char why[128];
    memset(c, 0, sizeof *c);
    if (p->user_arg) {
        if (auth_from_option(p->user_arg, c, why, sizeof why)) {
            fail(p, "invalid value for -u/--user: %s", why); /* never quoted: it holds the password */
            return false;
        }
        if (!c->has_password && !find_password(p, netrc, netrc_len, t->url.host, c) && !p->failed)
            fail(p, "-u %s has no password: write %s:PASSWORD, set SHB_PASSWORD, or give a --netrc-file with it",
                 c->user, c->user);
        return !p->failed;
    }
    if (t->url.cred.has_user) {
        *c = t->url.cred;
        if (!c->has_password && !find_password(p, netrc, netrc_len, t->url.host, c))
            c->has_password = true; /* as curl: user@ alone sends an empty password */
        return !p->failed;
    }
    if (!netrc)
        return false;
    int rc = auth_netrc_find(netrc, netrc_len, t->url.host, NULL, c, why, sizeof why);
    if (rc < 0)
        fail(p, "--netrc-file: '%s': %s", p->netrc_file, why);
    return rc == 1;
}

static void resolve_credentials(struct parser *p)
{
    struct shb_opts *o = p->o;
    size_t netrc_len = 0;
    char *netrc = p->netrc_file ? read_netrc(p, &netrc_len) : NULL;
    for (size_t i = 0; i < o->ntargets && !p->failed; i++) {
        struct shb_target *t = &o->targets[i];
        struct cred c;
        if (target_cred(p, netrc, netrc_len, t, &c) && !(t->authorization = auth_basic(&c)))
            fail(p, "out of memory");
        auth_wipe(&c);
        auth_wipe(&t->url.cred);
    }
    if (netrc) {
        volatile char *w = netrc;
        for (size_t i = 0; i < netrc_len; i++)
            w[i] = 0;
        free(netrc);
    }
}

/* Blanks the password of the URL in s, if any. */
static void hide_url_password(char *s)
{
    size_t len;
    char *pw = auth_password_in(s, &len);
    if (pw)
        memset(pw, '*', len);
}

/* Blanks the password of -x's value v: a URL's, or that of
 * "user:password@host" without a scheme (cli/proxy.h takes it as http://). */
static void hide_proxy_password(char *v)
{
    char *at = strrchr(v, '@'), *colon = strchr(v, ':');
    if (strstr(v, "://"))
        hide_url_password(v);
    else if (at && colon && colon < at)
        memset(colon + 1, '*', (size_t)(at - colon - 1));
}

/* Blanks -u's password in its value v. */
static void hide_user_password(char *v)
{
    char *colon = strchr(v, ':');
    if (colon)
        memset(colon + 1, '*', strlen(colon + 1));
}

void cli_hide_secrets(int argc, char **argv)
{
    bool options_ended = false;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!options_ended && strcmp(a, "--") == 0) {
            options_ended = true;
        } else if (!options_ended && (strcmp(a, "-u") == 0 || strcmp(a, "--user") == 0 ||
                                      strcmp(a, "--proxy-user") == 0) && i + 1 < argc) {
            hide_user_password(argv[++i]);
        } else if (!options_ended && strncmp(a, "--user=", 7) == 0) {
            hide_user_password(a + 7);
        } else if (!options_ended && strncmp(a, "--proxy-user=", 13) == 0) {
            hide_user_password(a + 13);
        } else if (!options_ended && (strcmp(a, "-x") == 0 || strcmp(a, "--proxy") == 0) && i + 1 < argc) {
            hide_proxy_password(argv[++i]);
        } else if (!options_ended && strncmp(a, "--proxy=", 8) == 0) {
            hide_proxy_password(a + 8);
        } else if (!options_ended && a[0] == '-' && a[1] != '-') {
            /* A cluster: its first option that takes a value ends it (parse_short). */
            for (char *c = a + 1; *c; c++) {
                const struct opt_spec *s = find_short(*c);
                if (!s || !s->o.value_name)
                    continue;
                if (s->id == OPT_USER && c[1])
                    hide_user_password(c + 1);
                else if (s->id == OPT_USER && i + 1 < argc)
                    hide_user_password(argv[++i]);
                else if (s->id == OPT_PROXY && c[1])
                    hide_proxy_password(c + 1);
                else if (s->id == OPT_PROXY && i + 1 < argc)
                    hide_proxy_password(argv[++i]);
                else if (!c[1])
                    i++; /* another option's value: not -u's, whatever it looks like */
                break;
            }
        } else {
            hide_url_password(a); /* a URL, or an option's value that holds one */
        }
    }
}

static void load_body(struct parser *p)
{
    struct shb_opts *o = p->o;
    const char *d = p->data_arg;
    if (d[0] != '@') {
        size_t len = strlen(d);
        o->body = malloc(len + 1); /* +1: a zero-length body still gets a pointer */
        if (!o->body) {
            fail(p, "out of memory");
            return;
        }
        memcpy(o->body, d, len + 1);
        o->body_len = len;
        o->has_body = true;
        return;
    }
    const char *path = d + 1;
    bool from_stdin = strcmp(path, "-") == 0, binary = p->given[OPT_DATA_BINARY];
    const char *flag = binary ? "--data-binary" : "-d";
    int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || cli_read_fd(fd, SIZE_MAX, !binary, &o->body, &o->body_len) < 0) {
        int saved = errno;
        if (from_stdin)
            fail(p, "%s @-: cannot read stdin: %s", flag, strerror(saved));
        else
            fail(p, "%s @%s: cannot read '%s': %s", flag, path, path, strerror(saved));
    } else {
        o->has_body = true;
    }
    if (fd >= 0 && !from_stdin)
        close(fd);
}

/* ------------------------------------- headers that must agree with the request
 * shb frames every request itself: a -H header that would reframe it, or
 * contradict it, would make every request wait out its timeout or fail,
 * so it is refused before any traffic. Run once the body is read. */

/* Content-Length = 1*DIGIT (RFC 9110 §8.6); false when v is not one or
 * does not fit. Leading zeros are allowed. */
static bool parse_length(const char *v, uint64_t *out)
{
    uint64_t n = 0;
    if (!*v)
        return false;
    for (; *v; v++) {
        if (*v < '0' || *v > '9' || n > (UINT64_MAX - (uint64_t)(*v - '0')) / 10)
            return false;
        n = n * 10 + (uint64_t)(*v - '0');
    }
    *out = n;
    return true;
}

/* -H Content-Length: a decimal equal to the body's length (0 without -d),
 * sent once, in place of the one shb would send. */
static void check_content_length(struct parser *p, const struct shb_header *h)
{
    const struct shb_opts *o = p->o;
    uint64_t n;
    if (!parse_length(h->value, &n))
        fail(p, "invalid value '%s: %s' for -H/--header: a length is decimal digits", h->name, h->value);
    else if (!o->has_body && n != 0)
        fail(p,
             "invalid value '%s: %s' for -H/--header: there is no body (no -d), so the length is 0: leave the header "
             "out, or give the body with -d",
             h->name, h->value);
    else if (n != o->body_len)
        fail(p, "invalid value '%s: %s' for -H/--header: the body (-d) is %zu bytes: leave the header out, shb sends "
                "the body's length",
             h->name, h->value, o->body_len);
}

static void check_headers(struct parser *p)
{
    const struct shb_opts *o = p->o;
    bool length_seen = false, host_seen = false;
    for (size_t i = 0; i < o->nheaders && !p->failed; i++) {
        const struct shb_header *h = &o->headers[i];
        if (strcasecmp(h->name, "Transfer-Encoding") == 0) {
            /* RFC 9113 §8.2.2 and RFC 9114 §4.2 forbid it; over HTTP/1.1 it
             * would reframe a body shb sends by length. */
            fail(p,
                 "invalid value '%s: %s' for -H/--header: shb sends a body with its length (Content-Length), and "
                 "HTTP/2 and HTTP/3 forbid Transfer-Encoding: leave it out",
                 h->name, h->value);
        } else if (strcasecmp(h->name, "Content-Length") == 0) {
            if (length_seen)
                fail(p, "invalid value '%s: %s' for -H/--header: Content-Length given twice", h->name, h->value);
            length_seen = true;
            check_content_length(p, h);
        } else if (strcasecmp(h->name, "Host") == 0) {
            /* RFC 9112 §3.2: a server answers 400 to more than one Host. */
            if (host_seen)
                fail(p, "invalid value '%s: %s' for -H/--header: Host given twice (a request has one)", h->name,
                     h->value);
            host_seen = true;
        } else if (strcasecmp(h->name, "Upgrade") == 0 && !o->http2 && !o->http3) {
            /* A server that takes it answers 101 and speaks another
             * protocol (RFC 9110 §7.8), which fails every request. HTTP/2
             * and HTTP/3 leave it out, as every connection-specific field
             * (RFC 9113 §8.2.2, RFC 9114 §4.2). */
            fail(p,
                 "invalid value '%s: %s' for -H/--header: shb does not switch protocols (a 101 response would fail "
                 "every request): for HTTP/2 use --http2",
                 h->name, h->value);
        }
    }
}

/* CONNECT asks a proxy for a tunnel to host:port (RFC 9110 §9.3.6), not
 * for a resource: shb sends the URL's path, which no server would take. */
/* --early-data: 0-RTT data can be replayed by an attacker (RFC 8446
 * §8, RFC 9001 §9.2), so only requests that are safe to repeat go early
 * (RFC 8470 §2.1: idempotent methods; GET and HEAD, which carry no body);
 * TLS 1.3 only. */
static void check_early_data(struct parser *p)
{
    const struct shb_opts *o = p->o;
    const char *method = p->given[OPT_METHOD] ? o->method : o->has_body ? "POST" : "GET";
    if (!o->early_data)
        return;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        fail(p, "--early-data sends only GET and HEAD requests (0-RTT data can be replayed, RFC 8470 §2.1): not %s",
             method);
    else if (o->tls.max_version == TLS_VERSION_12)
        fail(p, "--early-data needs TLS 1.3, which --tls-max 1.2 rules out");
}

static void check_method(struct parser *p)
{
    if (p->given[OPT_METHOD] && strcmp(p->o->method, "CONNECT") == 0)
        fail(p, "invalid value 'CONNECT' for -m/--method: CONNECT opens a tunnel through a proxy, which shb does not "
                "do (it requests the URL's path)");
}

static void set_defaults(struct shb_opts *o, unsigned default_threads)
{
    memset(o, 0, sizeof *o);
    o->connections = DEFAULT_CONNECTIONS;
    o->requests = DEFAULT_REQUESTS;
    o->parallel = DEFAULT_PARALLEL;
    o->threads = default_threads ? default_threads : 1;
    o->shard_count = 1;
    tls_choice_init(&o->tls);
    o->connect_timeout_ns = DEFAULT_CONNECT_TIMEOUT_NS;
    o->timeout_ns = DEFAULT_TIMEOUT_NS;
    o->h2_window_bits = DEFAULT_WINDOW_BITS;
    o->h2_conn_window_bits = DEFAULT_CONN_WINDOW_BITS;
    o->h2_max_frame_size = H2_OUR_MAX_FRAME_SIZE;
    o->h2_header_table_size = H2_OUR_HEADER_TABLE_SIZE;
}

enum cli_result cli_parse(int argc, char **argv, struct shb_opts *o, unsigned default_threads, FILE *out,
                          char *err, size_t errlen)
{
    struct parser p = {.o = o, .err = err, .errlen = errlen};
    if (err && errlen)
        err[0] = '\0';
    set_defaults(o, default_threads);
    p.args = calloc(argc > 0 ? (size_t)argc : 1, sizeof *p.args);
    if (!p.args) {
        fail(&p, "out of memory");
        return CLI_ERROR;
    }
    scan_argv(&p, argc, argv);

    if (p.help) {
        free(p.args);
        cli_free(o);
        if (err && errlen)
            err[0] = '\0';
        cli_print_help(out ? out : stdout, default_threads);
        return CLI_HELP;
    }
    if (p.version) {
        free(p.args);
        cli_free(o);
        if (err && errlen)
            err[0] = '\0';
        return CLI_VERSION;
    }
    check_urls(&p);
    free(p.args);
    check_combinations(&p);
    if (!p.failed)
        resolve_credentials(&p);
    if (!p.failed && p.data_arg)
        load_body(&p);
    if (!p.failed)
        check_method(&p);
    if (!p.failed)
        check_early_data(&p);
    if (!p.failed)
        check_headers(&p);
    if (p.failed) {
        cli_free(o);
        return CLI_ERROR;
    }
    if (!p.given[OPT_METHOD])
        o->method = o->has_body ? "POST" : "GET";
    if (o->reqlist)
        merge_reqlist_headers(&p);
    if (p.failed) {
        cli_free(o);
        return CLI_ERROR;
    }
    return CLI_OK;
}

struct shb_request cli_request(const struct shb_opts *o, const struct shb_target *t)
{
    return (struct shb_request){
        .method = o->method,
        .https = t->url.https,
        .authority = t->url.authority,
        .target = t->url.target,
        .headers = o->headers,
        .nheaders = o->nheaders,
        .body = o->body,
        .body_len = o->body_len,
        .has_body = o->has_body,
        .connection_close = o->disable_keepalive,
        .authorization = t->authorization,
        /* http:// HTTP/1.1 through a proxy: no tunnel (RFC 9112 §3.2.2). */
        .absolute_form = t->proxy && !t->proxy->tunnel,
        .proxy_authorization = t->proxy && !t->proxy->tunnel ? t->proxy->authorization : NULL,
    };
}

struct shb_request cli_reqlist_request(const struct shb_opts *o, const struct shb_target *t, size_t i)
{
    const struct reqlist_entry *e = &o->reqlist->e[i];
    struct shb_request r = cli_request(o, t);
    r.target = e->url.target;
    r.headers = e->merged;
    r.nheaders = e->nmerged;
    if (e->authorization)
        r.authorization = e->authorization;
    if (o->reqlist->http_format) { /* its own method and body; GET without (as vegeta) */
        r.method = e->method;
        r.body = e->body;
        r.body_len = e->body_len;
        r.has_body = e->has_body;
    }
    return r;
}

void cli_free(struct shb_opts *o)
{
    if (o->reqlist) {
        reqlist_free(o->reqlist);
        free(o->reqlist);
        o->reqlist = NULL;
    }
    for (size_t i = 0; i < o->nheaders; i++) {
        free(o->headers[i].name);
        free(o->headers[i].value);
    }
    free(o->headers);
    o->headers = NULL;
    o->nheaders = 0;
    free(o->body);
    o->body = NULL;
    o->body_len = 0;
    o->has_body = false;
    for (size_t i = 0; i < o->ntargets; i++) {
        free(o->targets[i].label);
        free(o->targets[i].url_text);
        free(o->targets[i].url.target);
        free(o->targets[i].authorization);
        auth_wipe(&o->targets[i].url.cred);
        proxy_free(o->targets[i].proxy);
    }
    free(o->targets);
    o->targets = NULL;
    o->ntargets = 0;
    free(o->bind);
    o->bind = NULL;
    o->nbind = 0;
    free(o->thresholds);
    o->thresholds = NULL;
    o->nthresholds = 0;
    free(o->connect_to);
    o->connect_to = NULL;
    o->nconnect_to = 0;
    free(o->resolve);
    o->resolve = NULL;
    o->nresolve = 0;
}

/* ----------------------------------------------------------------- cores */

/* Reads a small integer file such as topology/core_id. */
static bool read_long_file(const char *path, long *v)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[32];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *end;
    errno = 0;
    *v = strtol(buf, &end, 10);
    return errno == 0 && end != buf;
}

struct core_key {
    long package, die, core;
};

static bool is_cpu_dir_name(const char *name)
{
    return strncmp(name, "cpu", 3) == 0 && name[3] && strspn(name + 3, "0123456789") == strlen(name + 3);
}

/* Fills *key for an online CPU with readable topology. Offline CPUs keep
 * their topology directory on some kernels, hence the "online" check; cpu0
 * usually has no "online" file at all and counts as online. die_id keeps
 * multi-die packages, whose core ids restart per die, from being undercounted. */
static bool cpu_core_key(const char *cpu, struct core_key *key)
{
    char path[512];
    long online;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/online", cpu);
    if (read_long_file(path, &online) && online == 0)
        return false;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/topology/physical_package_id", cpu);
    if (!read_long_file(path, &key->package))
        return false;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/topology/core_id", cpu);
    if (!read_long_file(path, &key->core))
        return false;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/topology/die_id", cpu);
    if (!read_long_file(path, &key->die))
        key->die = 0;
    return true;
}

static bool have_key(const struct core_key *keys, size_t n, const struct core_key *k)
{
    for (size_t i = 0; i < n; i++)
        if (keys[i].package == k->package && keys[i].die == k->die && keys[i].core == k->core)
            return true;
    return false;
}

static unsigned count_sysfs_cores(void)
{
    DIR *dir = opendir("/sys/devices/system/cpu");
    if (!dir)
        return 0;
    struct core_key *keys = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        struct core_key k;
        if (!is_cpu_dir_name(e->d_name) || !cpu_core_key(e->d_name, &k) || have_key(keys, n, &k))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct core_key *grown = realloc(keys, ncap * sizeof *grown);
            if (!grown)
                break;
            keys = grown;
            cap = ncap;
        }
        keys[n++] = k;
    }
    closedir(dir);
    free(keys);
    return (unsigned)n;
}

unsigned cli_physical_cores(void)
{
    unsigned cores = count_sysfs_cores();
    if (cores)
        return cores;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1;
}
