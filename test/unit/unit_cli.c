/* test/unit/unit_cli.c — command line, durations, URLs, help and core count. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/completions.h"
#include "report/reqlog_line.h"
#include "t.h"

#define URL "http://127.0.0.1:8080/"
#define HTTPS_URL "https://127.0.0.1:8443/"
#define DEFAULT_THREADS 7u
#define MAX_ARGS 16

static FILE *devnull;
static char err[256];

/* Runs cli_parse on {"shb", args...}; args is NULL-terminated. */
static enum cli_result parse_list(struct shb_opts *o, const char *const *args)
{
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = (char *)"shb";
    for (; *args && argc < MAX_ARGS; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    memset(err, 0, sizeof err);
    return cli_parse(argc, argv, o, DEFAULT_THREADS, devnull, err, sizeof err);
}

#define PARSE(o, ...) parse_list((o), (const char *const[]){__VA_ARGS__, NULL})
#define NO_ARGS(o) parse_list((o), (const char *const[]){NULL})

/* ------------------------------------------------------------- defaults */

static void test_defaults(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, URL);
    T_CHECK("defaults: parses", r == CLI_OK, "r=%d err=%s", r, err);
    T_CHECK("defaults: -c 50", o.connections == 50, "%u", o.connections);
    T_CHECK("defaults: -n 200", o.requests == 200, "%llu", (unsigned long long)o.requests);
    T_CHECK("defaults: no -z", o.duration_ns == 0, "%llu", (unsigned long long)o.duration_ns);
    T_CHECK("defaults: -p 1", o.parallel == 1, "%u", o.parallel);
    T_CHECK("defaults: -t is default_threads", o.threads == DEFAULT_THREADS, "%u", o.threads);
    T_CHECK("defaults: method GET", o.method && strcmp(o.method, "GET") == 0, "%s", o.method);
    T_CHECK("defaults: no headers", o.nheaders == 0 && !o.headers, "%zu", o.nheaders);
    T_CHECK("defaults: no body", !o.has_body && o.body_len == 0, "has_body=%d", o.has_body);
    T_CHECK("defaults: connect timeout 5s", o.connect_timeout_ns == 5000000000ull, "%llu",
            (unsigned long long)o.connect_timeout_ns);
    T_CHECK("defaults: request timeout 30s", o.timeout_ns == 30000000000ull, "%llu",
            (unsigned long long)o.timeout_ns);
    T_CHECK("defaults: flags off", !o.disable_keepalive && !o.http2 && !o.http3 && !o.json, "flags on");
    T_CHECK("defaults: one target, no label", o.ntargets == 1 && !o.targets[0].label, "%zu", o.ntargets);
    T_CHECK("defaults: url_text kept", strcmp(o.targets[0].url_text, URL) == 0, "%s", o.targets[0].url_text);
    T_CHECK("defaults: url parsed", o.targets[0].url.port == 8080 && strcmp(o.targets[0].url.target, "/") == 0 &&
                                        strcmp(o.targets[0].url.host, "127.0.0.1") == 0,
            "port=%u", o.targets[0].url.port);
    cli_free(&o);

    struct shb_opts z;
    r = PARSE(&z, "-z", "5s", URL);
    T_CHECK("defaults: implicit -n does not clash with -z", r == CLI_OK && z.duration_ns == 5000000000ull,
            "r=%d err=%s", r, err);
    cli_free(&z);

    struct shb_opts t0;
    char *argv[] = {(char *)"shb", (char *)URL, NULL};
    r = cli_parse(2, argv, &t0, 0, devnull, err, sizeof err);
    T_CHECK("defaults: default_threads 0 becomes 1", r == CLI_OK && t0.threads == 1, "%u", t0.threads);
    cli_free(&t0);
}

/* ------------------------------------------------------ option spellings */

typedef uint64_t (*opt_getter)(const struct shb_opts *);

static uint64_t get_connections(const struct shb_opts *o) { return o->connections; }
static uint64_t get_requests(const struct shb_opts *o) { return o->requests; }
static uint64_t get_duration(const struct shb_opts *o) { return o->duration_ns; }
static uint64_t get_parallel(const struct shb_opts *o) { return o->parallel; }
static uint64_t get_threads(const struct shb_opts *o) { return o->threads; }
static uint64_t get_connect_timeout(const struct shb_opts *o) { return o->connect_timeout_ns; }
static uint64_t get_timeout(const struct shb_opts *o) { return o->timeout_ns; }
static uint64_t get_warmup(const struct shb_opts *o) { return o->warmup_ns; }

/* Tries "-x V", "-xV", "--long V" and "--long=V" (the short ones only when
 * the option has a short name); extra is one more argument such as --http2. */
static void check_forms(const char *shortf, const char *longf, const char *value, const char *extra,
                        opt_getter get, uint64_t want)
{
    char attached[64], with_eq[64], name[128];
    snprintf(attached, sizeof attached, "%s%s", shortf ? shortf : "", value);
    snprintf(with_eq, sizeof with_eq, "%s=%s", longf, value);
    const char *forms[4][5] = {
        {shortf, value, extra ? extra : URL, extra ? URL : NULL},
        {attached, extra ? extra : URL, extra ? URL : NULL, NULL},
        {longf, value, extra ? extra : URL, extra ? URL : NULL},
        {URL, with_eq, extra, NULL}, /* options after the URL too */
    };
    const char *labels[4] = {"-x V", "-xV", "--long V", "URL --long=V"};
    for (int f = shortf ? 0 : 2; f < 4; f++) {
        struct shb_opts o;
        enum cli_result r = parse_list(&o, forms[f]);
        snprintf(name, sizeof name, "forms: %s as '%s'", longf, labels[f]);
        T_CHECK(name, r == CLI_OK && get(&o) == want, "r=%d err=%s got=%llu want=%llu", r, err,
                r == CLI_OK ? (unsigned long long)get(&o) : 0ull, (unsigned long long)want);
        cli_free(&o);
    }
}

static void test_value_forms(void)
{
    check_forms("-c", "--connections", "10", NULL, get_connections, 10);
    check_forms("-n", "--requests", "12345", NULL, get_requests, 12345);
    check_forms("-z", "--duration", "1m30s", NULL, get_duration, 90000000000ull);
    check_forms("-p", "--parallel", "32", "--http2", get_parallel, 32);
    check_forms("-t", "--threads", "3", NULL, get_threads, 3);
    check_forms(NULL, "--connect-timeout", "500ms", NULL, get_connect_timeout, 500000000ull);
    check_forms(NULL, "--timeout", "2s500ms", NULL, get_timeout, 2500000000ull);
    check_forms(NULL, "--timeout", "0", NULL, get_timeout, 0);
    check_forms(NULL, "--timeout", "0s", NULL, get_timeout, 0);
    check_forms(NULL, "--warmup", "1s500ms", NULL, get_warmup, 1500000000ull);
    /* SI suffixes and decimals, as wrk and oha users type them. */
    check_forms("-n", "--requests", "10k", NULL, get_requests, 10000);
    check_forms("-n", "--requests", "2.5k", NULL, get_requests, 2500);
    check_forms("-n", "--requests", "1M", NULL, get_requests, 1000000);
    check_forms("-n", "--requests", "1.25M", NULL, get_requests, 1250000);
    check_forms("-n", "--requests", "3G", NULL, get_requests, 3000000000ull);
    check_forms("-n", "--requests", "10K", NULL, get_requests, 10000);
    check_forms("-c", "--connections", "1k", NULL, get_connections, 1000);
    check_forms("-z", "--duration", "1.5s", NULL, get_duration, 1500000000ull);
    check_forms(NULL, "--timeout", "0.25s", NULL, get_timeout, 250000000ull);
}

/* --warmup sits inside -z's duration (shorter is fine) and on top of -n. */
static void test_warmup(void)
{
    struct shb_opts o;
    const char *z[] = {"--warmup", "1s", "-z", "2s", URL, NULL};
    enum cli_result r = parse_list(&o, z);
    T_CHECK("warmup: 1s inside -z 2s", r == CLI_OK && o.warmup_ns == 1000000000ull && o.duration_ns == 2000000000ull,
            "r=%d err=%s", r, err);
    cli_free(&o);
    const char *n[] = {"--warmup", "5s", "-n", "10", URL, NULL};
    r = parse_list(&o, n);
    T_CHECK("warmup: any length with -n", r == CLI_OK && o.warmup_ns == 5000000000ull && o.requests == 10,
            "r=%d err=%s", r, err);
    cli_free(&o);
    const char *none[] = {URL, NULL};
    r = parse_list(&o, none);
    T_CHECK("warmup: none by default", r == CLI_OK && o.warmup_ns == 0, "r=%d err=%s", r, err);
    cli_free(&o);
}

/* -q: a total rate, or FROM..TO over -z; decimals are fine. */
/* --shard and --start-at: what they read (whether a time is still ahead
 * is shb.c's to say, e2e_shard.sh). */
static void test_shard_start_at(void)
{
    struct shb_opts o;
    static const struct {
        const char *argv[4];
        uint32_t index, count;
        uint64_t start_ns;
    } ok[] = {
        {{URL}, 0, 1, 0},
        {{"--shard", "3/4", URL}, 3, 4, 0},
        {{"--shard=0/1", URL}, 0, 1, 0},
        {{"--shard", "65535/65536", URL}, 65535, 65536, 0},
        {{"--start-at", "1796234400", URL}, 0, 1, 1796234400000000000ull},
        {{"--start-at", "1796234400.25", URL}, 0, 1, 1796234400250000000ull},
        {{"--start-at", "2026-12-02T18:00:00Z", URL}, 0, 1, 1796234400000000000ull},
        {{"--start-at", "2026-12-02t19:30:00.5+01:30", URL}, 0, 1, 1796234400500000000ull},
        {{"--start-at", "2026-12-02 16:00:00.000000001-02:00", URL}, 0, 1, 1796234400000000001ull},
        {{"--start-at", "2024-02-29T23:59:59z", URL}, 0, 1, 1709251199000000000ull},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        enum cli_result r = parse_list(&o, ok[i].argv);
        char name[96];
        snprintf(name, sizeof name, "shard/start-at: %s %s", ok[i].argv[0], ok[i].argv[1] ? ok[i].argv[1] : "");
        T_CHECK(name,
                r == CLI_OK && o.shard_index == ok[i].index && o.shard_count == ok[i].count &&
                    o.start_at_ns == ok[i].start_ns,
                "r=%d err=%s shard %u/%u start %llu", r, err, o.shard_index, o.shard_count,
                (unsigned long long)o.start_at_ns);
        cli_free(&o);
    }
}

/* --hdr-log FILE: kept as given (shb.c creates it before the run). */
static void test_hdr_log(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "--hdr-log", "/tmp/x y.log", URL);
    T_CHECK("hdr-log: the path as given", r == CLI_OK && o.hdr_log && strcmp(o.hdr_log, "/tmp/x y.log") == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--hdr-log=-", URL);
    T_CHECK("hdr-log: --hdr-log=FILE", r == CLI_OK && o.hdr_log && strcmp(o.hdr_log, "-") == 0, "r=%d err=%s", r,
            err);
    cli_free(&o);
    r = PARSE(&o, URL);
    T_CHECK("hdr-log: none by default", r == CLI_OK && o.hdr_log == NULL, "r=%d err=%s", r, err);
    cli_free(&o);
}

/* --log FILE and --log-format: kept as given, tsv by default. */
static void test_log(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "--log", "/tmp/x y.tsv", URL);
    T_CHECK("log: the path as given, tsv", r == CLI_OK && o.log && strcmp(o.log, "/tmp/x y.tsv") == 0 &&
            o.log_format == REQLOG_TSV, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--log=a.csv", "--log-format", "csv", URL);
    T_CHECK("log: --log-format csv", r == CLI_OK && o.log_format == REQLOG_CSV, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--log=a.jsonl", "--log-format=jsonl", URL);
    T_CHECK("log: --log-format jsonl", r == CLI_OK && o.log_format == REQLOG_JSONL, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, URL);
    T_CHECK("log: none by default", r == CLI_OK && o.log == NULL, "r=%d err=%s", r, err);
    cli_free(&o);
}

/* --unix-socket and --bind: what they read. Whether the socket exists and
 * the addresses are this machine's is shb.c's to find out (e2e_conn.sh). */
static bool bind_is(const struct shb_opts *o, uint32_t k, int family, const char *text)
{
    if (k >= o->nbind || o->bind[k].ss_family != family)
        return false;
    uint8_t want[16];
    if (inet_pton(family, text, want) != 1)
        return false;
    if (family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&o->bind[k];
        return a->sin_port == 0 && memcmp(&a->sin_addr, want, 4) == 0;
    }
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&o->bind[k];
    return a->sin6_port == 0 && memcmp(&a->sin6_addr, want, 16) == 0;
}

static void test_connection(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, URL);
    T_CHECK("conn: no --unix-socket, no --bind by default", r == CLI_OK && !o.unix_socket && o.nbind == 0 && !o.bind,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--unix-socket", "/run/app.sock", "http://app.internal/v1?x=1");
    T_CHECK("conn: --unix-socket keeps the URL's host and target",
            r == CLI_OK && o.unix_socket && strcmp(o.unix_socket, "/run/app.sock") == 0 &&
                strcmp(o.targets[0].url.authority, "app.internal") == 0 && strcmp(o.targets[0].url.target, "/v1?x=1") == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--unix-socket=rel.sock", "--http2", "-p", "8", "http://h:8080/");
    T_CHECK("conn: --unix-socket=PATH with --http2, a relative path",
            r == CLI_OK && strcmp(o.unix_socket, "rel.sock") == 0 && o.http2 && strcmp(o.targets[0].url.authority, "h:8080") == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    char longest[108];
    memset(longest, 'a', 107);
    longest[0] = '/';
    longest[107] = '\0';
    r = PARSE(&o, "--unix-socket", longest, "--disable-keepalive", URL);
    T_CHECK("conn: a 107-byte socket path fits sun_path", r == CLI_OK && strlen(o.unix_socket) == 107 &&
            o.disable_keepalive, "r=%d err=%s", r, err);
    cli_free(&o);

    r = PARSE(&o, "--bind", "127.0.0.2", URL);
    T_CHECK("conn: --bind one IPv4 address", r == CLI_OK && o.nbind == 1 && bind_is(&o, 0, AF_INET, "127.0.0.2"),
            "r=%d err=%s nbind=%u", r, err, o.nbind);
    cli_free(&o);
    r = PARSE(&o, "--bind=127.0.0.2,127.0.0.3,10.1.2.3", URL);
    T_CHECK("conn: --bind=A,B,C keeps the order",
            r == CLI_OK && o.nbind == 3 && bind_is(&o, 0, AF_INET, "127.0.0.2") &&
                bind_is(&o, 1, AF_INET, "127.0.0.3") && bind_is(&o, 2, AF_INET, "10.1.2.3"),
            "r=%d err=%s nbind=%u", r, err, o.nbind);
    cli_free(&o);
    r = PARSE(&o, "--bind", "::1,[fd00::2]", "http://[::1]:8080/");
    T_CHECK("conn: --bind IPv6, bare and in brackets, to an IPv6 target",
            r == CLI_OK && o.nbind == 2 && bind_is(&o, 0, AF_INET6, "::1") && bind_is(&o, 1, AF_INET6, "fd00::2"),
            "r=%d err=%s nbind=%u", r, err, o.nbind);
    cli_free(&o);
    r = PARSE(&o, "--bind", "::1", "http://example.com/");
    T_CHECK("conn: --bind with a host name: its family is for resolution to pick (shb.c)", r == CLI_OK && o.nbind == 1,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--bind", "127.0.0.2", "--http3", HTTPS_URL);
    T_CHECK("conn: --bind with --http3", r == CLI_OK && o.nbind == 1 && o.http3, "r=%d err=%s", r, err);
    cli_free(&o);

    /* CLI_BIND_MAX addresses are taken, one more is not. */
    size_t cap = (CLI_BIND_MAX + 1) * 16;
    char *many = malloc(cap), *w = many;
    for (unsigned k = 0; k <= CLI_BIND_MAX; k++)
        w += snprintf(w, cap - (size_t)(w - many), "%s10.0.%u.%u", k ? "," : "", k / 256, k % 256);
    char *last_comma = strrchr(many, ',');
    r = PARSE(&o, "--bind", many, URL);
    T_CHECK("conn: --bind refuses more than CLI_BIND_MAX addresses", r == CLI_ERROR && strstr(err, "at most 4096"),
            "r=%d err=%s", r, err);
    cli_free(&o);
    *last_comma = '\0';
    r = PARSE(&o, "--bind", many, URL);
    T_CHECK("conn: --bind takes CLI_BIND_MAX addresses",
            r == CLI_OK && o.nbind == CLI_BIND_MAX && bind_is(&o, CLI_BIND_MAX - 1, AF_INET, "10.0.15.255"),
            "r=%d err=%s nbind=%u", r, err, o.nbind);
    cli_free(&o);
    free(many);
}

static void test_rate(void)
{
    struct shb_opts o;
    static const struct {
        const char *argv[6];
        double from, to;
        bool ramp;
    } ok[] = {
        {{"-q", "2000", URL}, 2000, 2000, false},
        {{"--rate", "0.5", URL}, 0.5, 0.5, false},
        {{"--rate=12.25", "-n", "10", URL}, 12.25, 12.25, false},
        {{"-q", "1000..20000", "-z", "10s", URL}, 1000, 20000, true},
        {{"-q20000..1000", "-z", "10s", URL}, 20000, 1000, true},
        {{"-q", "100000000", URL}, 1e8, 1e8, false},
        {{"-q", "2.5k", URL}, 2500, 2500, false},
        {{"-q", "1k..20k", "-z", "10s", URL}, 1000, 20000, true},
        {{"-q", "0.5M", URL}, 500000, 500000, false},
        {{URL}, 0, 0, false},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        enum cli_result r = parse_list(&o, ok[i].argv);
        char name[96];
        snprintf(name, sizeof name, "rate: %s %s", ok[i].argv[0], ok[i].argv[1] ? ok[i].argv[1] : "");
        T_CHECK(name, r == CLI_OK && o.rate_from == ok[i].from && o.rate_to == ok[i].to && o.rate_ramp == ok[i].ramp,
                "r=%d err=%s from=%g to=%g ramp=%d", r, err, o.rate_from, o.rate_to, o.rate_ramp);
        cli_free(&o);
    }
}

static void test_string_forms(void)
{
    const char *method_forms[][4] = {
        {"-m", "PUT", URL, NULL}, {"-mPUT", URL, NULL, NULL},
        {"--method", "PUT", URL, NULL}, {URL, "--method=PUT", NULL, NULL},
    };
    for (size_t i = 0; i < 4; i++) {
        struct shb_opts o;
        enum cli_result r = parse_list(&o, method_forms[i]);
        T_CHECK("forms: -m/--method", r == CLI_OK && strcmp(o.method, "PUT") == 0, "form %zu r=%d err=%s", i,
                r, err);
        cli_free(&o);
    }
    const char *header_forms[][4] = {
        {"-H", "A: b", URL, NULL}, {"-HA: b", URL, NULL, NULL},
        {"--header", "A: b", URL, NULL}, {URL, "--header=A: b", NULL, NULL},
    };
    for (size_t i = 0; i < 4; i++) {
        struct shb_opts o;
        enum cli_result r = parse_list(&o, header_forms[i]);
        T_CHECK("forms: -H/--header", r == CLI_OK && o.nheaders == 1 && strcmp(o.headers[0].name, "A") == 0 &&
                                          strcmp(o.headers[0].value, "b") == 0,
                "form %zu r=%d err=%s", i, r, err);
        cli_free(&o);
    }
    const char *data_forms[][4] = {
        {"-d", "x=1", URL, NULL}, {"-dx=1", URL, NULL, NULL},
        {"--data", "x=1", URL, NULL}, {URL, "--data=x=1", NULL, NULL},
    };
    for (size_t i = 0; i < 4; i++) {
        struct shb_opts o;
        enum cli_result r = parse_list(&o, data_forms[i]);
        T_CHECK("forms: -d/--data", r == CLI_OK && o.has_body && o.body_len == 3 && memcmp(o.body, "x=1", 3) == 0,
                "form %zu r=%d err=%s", i, r, err);
        cli_free(&o);
    }
}

/* The TLS choices as the engines get them (tls13/choice.h). */
/* -w, -W, --max-frame-size, --header-table-size, --max-stream-data, --max-data. */
static void test_knobs(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "--http2", "-w", "14", "-W16", "--max-frame-size", "1M", "--header-table-size=4k",
                              URL);
    T_CHECK("knobs: -w 14 -W16 --max-frame-size 1M --header-table-size=4k (k and M are 1024s)",
            r == CLI_OK && o.h2_window_bits == 14 && o.h2_conn_window_bits == 16 && o.h2_max_frame_size == 1048576 &&
                o.h2_header_table_size == 4096,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--http2", "-w", "0", "-W", "30", "--max-frame-size", "16777215", "--header-table-size", "0", URL);
    T_CHECK("knobs: the ends of the ranges (-w 0, -W 30, 16777215, 0)",
            r == CLI_OK && o.h2_window_bits == 0 && o.h2_conn_window_bits == 30 && o.h2_max_frame_size == 16777215 &&
                o.h2_header_table_size == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--http3", "--max-data", "64k", "--max-stream-data", "1.5M", HTTPS_URL);
    T_CHECK("knobs: --max-data 64k --max-stream-data 1.5M (1572864)",
            r == CLI_OK && o.max_data == 65536 && o.max_stream_data == 1572864, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--http3", "--max-data", "1G", "--max-stream-data", "1024", HTTPS_URL);
    T_CHECK("knobs: --max-data 1G, --max-stream-data 1024: the ends", r == CLI_OK && o.max_data == 1u << 30 &&
            o.max_stream_data == 1024, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--http3", HTTPS_URL);
    T_CHECK("knobs: HTTP/3 windows default to 0 (sized by -p)", r == CLI_OK && o.max_data == 0 && o.max_stream_data == 0,
            "r=%d", r);
    cli_free(&o);
}

static void test_tls(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, HTTPS_URL);
    T_CHECK("tls: defaults 1.2..1.3, nothing chosen",
            r == CLI_OK && o.tls.min_version == 0x0303 && o.tls.max_version == 0x0304 && o.tls.nsuites13 == 0 &&
                o.tls.nsuites12 == 0 && o.tls.ngroups == 0 && o.tls.what[0] == '\0' && !o.insecure,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--tls13-ciphers", "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384", "--ciphers",
              "ECDHE-ECDSA-CHACHA20-POLY1305:aes128-sha:TLS_RSA_WITH_AES_256_GCM_SHA384", "--curves",
              "secp384r1:X25519:prime256v1", "-k", HTTPS_URL);
    T_CHECK("tls: lists in the order given, any spelling",
            r == CLI_OK && o.tls.nsuites13 == 2 && o.tls.suites13[0] == 0x1303 && o.tls.suites13[1] == 0x1302 &&
                o.tls.nsuites12 == 3 && o.tls.suites12[0] == 0xcca9 && o.tls.suites12[1] == 0x002f &&
                o.tls.suites12[2] == 0x009d && o.tls.ngroups == 3 && o.tls.groups[0] == 24 &&
                o.tls.groups[1] == 29 && o.tls.groups[2] == 23 && o.insecure,
            "r=%d err=%s", r, err);
    T_CHECK("tls: what was chosen, named canonically",
            r == CLI_OK && strcmp(o.tls.what, "--tls13-ciphers TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384 "
                                              "--ciphers ECDHE-ECDSA-CHACHA20-POLY1305:AES128-SHA:AES256-GCM-SHA384 "
                                              "--curves P-384:x25519:P-256") == 0,
            "%s", o.tls.what);
    cli_free(&o);
    r = PARSE(&o, "--tls-resume", HTTPS_URL);
    T_CHECK("tls: --tls-resume", r == CLI_OK && o.tls_resume, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, HTTPS_URL);
    T_CHECK("tls: no --tls-resume, no resumption", r == CLI_OK && !o.tls_resume, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--early-data", HTTPS_URL);
    T_CHECK("tls: --early-data implies --tls-resume", r == CLI_OK && o.early_data && o.tls_resume, "r=%d err=%s", r,
            err);
    cli_free(&o);
    r = PARSE(&o, "--early-data", "-m", "HEAD", HTTPS_URL);
    T_CHECK("tls: --early-data -m HEAD", r == CLI_OK && o.early_data, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--early-data", "--http3", HTTPS_URL);
    T_CHECK("tls: --early-data --http3 (QUIC 0-RTT)", r == CLI_OK && o.early_data && o.http3 && o.tls_resume,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--tlsv1.3", "--tlsv1.2", "--tls-max", "1.2", HTTPS_URL);
    T_CHECK("tls: --tlsv1.2 after --tlsv1.3 wins (as curl); --tls-max 1.2",
            r == CLI_OK && o.tls.min_version == 0x0303 && o.tls.max_version == 0x0303 &&
                strcmp(o.tls.what, "--tls-max 1.2") == 0,
            "r=%d err=%s what=%s", r, err, o.tls.what);
    cli_free(&o);
    r = PARSE(&o, "--tlsv1.3", "--http3", HTTPS_URL);
    T_CHECK("tls: --tlsv1.3 with --http3", r == CLI_OK && o.tls.min_version == 0x0304, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--tlsv1.2", "--tls-max", "1.3", "-k", URL);
    T_CHECK("tls: the defaults given explicitly and -k are fine on http://", r == CLI_OK && o.tls.what[0] == '\0',
            "r=%d err=%s", r, err);
    cli_free(&o);
}

static void test_flags(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "--disable-keepalive", URL);
    T_CHECK("flags: --disable-keepalive", r == CLI_OK && o.disable_keepalive, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, URL, "--http2");
    T_CHECK("flags: --http2", r == CLI_OK && o.http2 && !o.http3, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--http3", HTTPS_URL);
    T_CHECK("flags: --http3 with https", r == CLI_OK && o.http3 && !o.http2, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--cert", "c.pem", "--key", "k.pem", HTTPS_URL);
    T_CHECK("flags: --cert and --key keep the paths", r == CLI_OK && o.cert && strcmp(o.cert, "c.pem") == 0 &&
                o.key && strcmp(o.key, "k.pem") == 0, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--cert=both.pem", URL, HTTPS_URL);
    T_CHECK("flags: --cert alone (key in the same file), one https:// target of two", r == CLI_OK && o.cert &&
                !o.key, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--cacert", "ca.pem", URL, HTTPS_URL);
    T_CHECK("flags: --cacert keeps the path (one https:// target of two)",
            r == CLI_OK && o.cacert && strcmp(o.cacert, "ca.pem") == 0 && !o.insecure, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-k", "--cacert=ca.pem", HTTPS_URL);
    T_CHECK("flags: -k beside --cacert: both kept (-k wins at run time)", r == CLI_OK && o.cacert && o.insecure,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-j", URL);
    T_CHECK("flags: -j", r == CLI_OK && o.json, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, URL, "--json");
    T_CHECK("flags: --json", r == CLI_OK && o.json, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-j", "-j", URL);
    T_CHECK("flags: a flag given twice is harmless", r == CLI_OK && o.json, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-j", URL);
    T_CHECK("flags: no encoded histograms by default", r == CLI_OK && !o.histograms, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-j", "--histograms", URL);
    T_CHECK("flags: --histograms", r == CLI_OK && o.histograms, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-j", "--shard", "1/4", URL);
    T_CHECK("flags: --shard brings the histograms (shards are merged)", r == CLI_OK && o.histograms,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-jc10", URL);
    T_CHECK("flags: cluster -jc10", r == CLI_OK && o.json && o.connections == 10, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--http2", "-p", "4", "-c", "2", "-t", "1", "-n", "9", "-m", "HEAD", URL);
    T_CHECK("flags: many together", r == CLI_OK && o.http2 && o.parallel == 4 && o.connections == 2 &&
                                         o.threads == 1 && o.requests == 9 && strcmp(o.method, "HEAD") == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-c", "5", "--", URL);
    T_CHECK("flags: -- ends options",
            r == CLI_OK && o.connections == 5 && o.ntargets == 1 && strcmp(o.targets[0].url_text, URL) == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--", "-c");
    T_CHECK("flags: after --, '-c' is the URL", r == CLI_ERROR && strstr(err, "'-c'") && strstr(err, "URL"),
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-n", "18446744073709551615", URL);
    T_CHECK("flags: -n takes the whole uint64 range", r == CLI_OK && o.requests == UINT64_MAX, "r=%d err=%s", r,
            err);
    cli_free(&o);
    r = PARSE(&o, "-c", "4294967295", "-c", "1", URL);
    T_CHECK("flags: a value option given twice is refused", r == CLI_ERROR && strstr(err, "more than once"),
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-c", "4294967295", URL);
    T_CHECK("flags: -c takes the whole uint32 range", r == CLI_OK && o.connections == UINT32_MAX, "r=%d err=%s",
            r, err);
    cli_free(&o);
    r = PARSE(&o, "-c", "007", URL);
    T_CHECK("flags: leading zeros are decimal", r == CLI_OK && o.connections == 7, "r=%d err=%s", r, err);
    cli_free(&o);
}

/* ---------------------------------------------------- method, -H and -d */

static void test_method_default(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "-d", "x", URL);
    T_CHECK("method: POST when -d is given", r == CLI_OK && strcmp(o.method, "POST") == 0, "%s", o.method);
    cli_free(&o);
    r = PARSE(&o, "-d", "x", "-m", "PUT", URL);
    T_CHECK("method: -m wins over -d's POST", r == CLI_OK && strcmp(o.method, "PUT") == 0, "%s", o.method);
    cli_free(&o);
    r = PARSE(&o, "-m", "GET", "-d", "x", URL);
    T_CHECK("method: explicit GET with -d stays GET", r == CLI_OK && strcmp(o.method, "GET") == 0, "%s",
            o.method);
    cli_free(&o);
    r = PARSE(&o, "-m", "M-SEARCH", URL);
    T_CHECK("method: any token", r == CLI_OK && strcmp(o.method, "M-SEARCH") == 0, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-m", "get", URL);
    T_CHECK("method: case kept", r == CLI_OK && strcmp(o.method, "get") == 0, "r=%d err=%s", r, err);
    cli_free(&o);
}

static void test_headers(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "-H", "Accept: application/json", "-H", " \tX-Two  :   two words \t", "-H",
                              "X-Empty:", "-H", "X-Colon: a:b: c", URL);
    T_CHECK("headers: parse", r == CLI_OK && o.nheaders == 4, "r=%d n=%zu err=%s", r, o.nheaders, err);
    if (r == CLI_OK && o.nheaders == 4) {
        T_CHECK("headers: first in order", strcmp(o.headers[0].name, "Accept") == 0 &&
                                               strcmp(o.headers[0].value, "application/json") == 0,
                "'%s' '%s'", o.headers[0].name, o.headers[0].value);
        T_CHECK("headers: name and value trimmed", strcmp(o.headers[1].name, "X-Two") == 0 &&
                                                       strcmp(o.headers[1].value, "two words") == 0,
                "'%s' '%s'", o.headers[1].name, o.headers[1].value);
        T_CHECK("headers: empty value allowed", strcmp(o.headers[2].name, "X-Empty") == 0 &&
                                                    strcmp(o.headers[2].value, "") == 0,
                "'%s' '%s'", o.headers[2].name, o.headers[2].value);
        T_CHECK("headers: split at the first colon", strcmp(o.headers[3].name, "X-Colon") == 0 &&
                                                         strcmp(o.headers[3].value, "a:b: c") == 0,
                "'%s' '%s'", o.headers[3].name, o.headers[3].value);
    }
    cli_free(&o);
}

/* Headers that would reframe or contradict the request shb sends, and
 * methods it cannot send: each a one-line error, word for word. */
struct refusal {
    const char *args[MAX_ARGS];
    const char *message;
};

static const struct refusal request_refusals[] = {
    {{"-H", "Content-Length: 100", "-d", "abc", URL},
     "invalid value 'Content-Length: 100' for -H/--header: the body (-d) is 3 bytes: leave the header out, shb sends "
     "the body's length"},
    {{"--http2", "-d", "", "-H", "content-length: 1", URL},
     "invalid value 'content-length: 1' for -H/--header: the body (-d) is 0 bytes: leave the header out, shb sends the "
     "body's length"},
    {{"-m", "POST", "-H", "Content-Length: 5", URL},
     "invalid value 'Content-Length: 5' for -H/--header: there is no body (no -d), so the length is 0: leave the "
     "header out, or give the body with -d"},
    {{"-H", "Content-Length: abc", "-d", "abc", URL},
     "invalid value 'Content-Length: abc' for -H/--header: a length is decimal digits"},
    {{"-H", "Content-Length: -3", "-d", "abc", URL},
     "invalid value 'Content-Length: -3' for -H/--header: a length is decimal digits"},
    {{"-H", "Content-Length:", URL}, "invalid value 'Content-Length: ' for -H/--header: a length is decimal digits"},
    {{"-H", "Content-Length: 3, 3", "-d", "abc", URL},
     "invalid value 'Content-Length: 3, 3' for -H/--header: a length is decimal digits"},
    {{"-H", "Content-Length: 18446744073709551616", URL},
     "invalid value 'Content-Length: 18446744073709551616' for -H/--header: a length is decimal digits"},
    {{"-d", "abc", "-H", "Content-Length: 3", "-H", "Content-Length: 3", URL},
     "invalid value 'Content-Length: 3' for -H/--header: Content-Length given twice"},
    {{"-H", "Transfer-Encoding: chunked", "-d", "abc", URL},
     "invalid value 'Transfer-Encoding: chunked' for -H/--header: shb sends a body with its length (Content-Length), "
     "and HTTP/2 and HTTP/3 forbid Transfer-Encoding: leave it out"},
    {{"--http2", "-H", "transfer-encoding: gzip", URL},
     "invalid value 'transfer-encoding: gzip' for -H/--header: shb sends a body with its length (Content-Length), and "
     "HTTP/2 and HTTP/3 forbid Transfer-Encoding: leave it out"},
    {{"-H", "Host: a.test", "-H", "host: b.test", URL},
     "invalid value 'host: b.test' for -H/--header: Host given twice (a request has one)"},
    {{"-H", "Connection: Upgrade", "-H", "Upgrade: h2c", URL},
     "invalid value 'Upgrade: h2c' for -H/--header: shb does not switch protocols (a 101 response would fail every "
     "request): for HTTP/2 use --http2"},
    {{"-m", "CONNECT", URL},
     "invalid value 'CONNECT' for -m/--method: CONNECT opens a tunnel through a proxy, which shb does not do (it "
     "requests the URL's path)"},
    {{"-m", "GET\xc3\xa9", URL}, "invalid value 'GET\xc3\xa9' for -m/--method: a method is a token such as GET or POST"},
    {{"-m", "GET/1", URL}, "invalid value 'GET/1' for -m/--method: a method is a token such as GET or POST"},
    {{"-m", "(GET)", URL}, "invalid value '(GET)' for -m/--method: a method is a token such as GET or POST"},
    {{"-m", "GET ", URL}, "invalid value 'GET ' for -m/--method: a method is a token such as GET or POST"},
};

/* What agrees with the request is kept: a Content-Length equal to the body
 * (sent once, in place of shb's), Host once, Upgrade where HTTP/2 and
 * HTTP/3 leave it out, a method that is any other token. */
static const char *const request_accepted[][MAX_ARGS] = {
    {"-H", "Content-Length: 3", "-d", "abc", URL},
    {"-H", "Content-Length: 003", "-d", "abc", URL},
    {"-m", "POST", "-H", "Content-Length: 0", URL},
    {"-H", "Content-Length: 0", URL},
    {"-d", "", "-H", "Content-Length: 0", URL},
    {"-H", "Host: a.test", URL},
    {"--http2", "-H", "Upgrade: h2c", URL},
    {"--http3", "-H", "Upgrade: h2c", HTTPS_URL},
    {"-H", "Connection: close", URL},
    {"-m", "connect", URL}, /* methods are case-sensitive: not CONNECT */
};

static void test_request_refusals(void)
{
    char name[200];
    for (size_t i = 0; i < sizeof request_refusals / sizeof request_refusals[0]; i++) {
        const struct refusal *c = &request_refusals[i];
        struct shb_opts o;
        enum cli_result r = parse_list(&o, c->args);
        snprintf(name, sizeof name, "request refused #%zu: %.160s", i, c->message);
        T_CHECK(name, r == CLI_ERROR && strcmp(err, c->message) == 0, "r=%d err='%s'", r, err);
        cli_free(&o);
    }
    for (size_t i = 0; i < sizeof request_accepted / sizeof request_accepted[0]; i++) {
        struct shb_opts o;
        enum cli_result r = parse_list(&o, request_accepted[i]);
        snprintf(name, sizeof name, "request accepted #%zu: %s %s", i, request_accepted[i][0], request_accepted[i][1]);
        T_CHECK(name, r == CLI_OK, "r=%d err='%s'", r, err);
        if (r == CLI_OK)
            cli_free(&o);
    }
}

static void test_inline_body(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "-d", "a\r\nb", URL);
    T_CHECK("body: inline kept as is (CR LF too)", r == CLI_OK && o.body_len == 4 && memcmp(o.body, "a\r\nb", 4) == 0,
            "r=%d len=%zu", r, o.body_len);
    cli_free(&o);
    r = PARSE(&o, "-d", "", URL);
    T_CHECK("body: -d '' is a zero-length body", r == CLI_OK && o.has_body && o.body_len == 0 &&
                                                     strcmp(o.method, "POST") == 0,
            "r=%d has=%d len=%zu", r, o.has_body, o.body_len);
    cli_free(&o);
}

static int write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, data, len);
    close(fd);
    return n == (ssize_t)len ? 0 : -1;
}

static void test_file_body(void)
{
    char path[] = "/tmp/shb_unit_cli_XXXXXX";
    int fd = mkstemp(path);
    T_CHECK("body @file: temp file", fd >= 0, "mkstemp: %s", strerror(errno));
    if (fd < 0)
        return;
    close(fd);
    const char text[] = "{\r\n  \"a\": 1\r\n}\n";
    write_file(path, text, sizeof text - 1);
    char arg[64];
    snprintf(arg, sizeof arg, "@%s", path);

    struct shb_opts o;
    enum cli_result r = PARSE(&o, "-d", arg, URL);
    const char want[] = "{  \"a\": 1}";
    T_CHECK("body @file: CR and LF stripped", r == CLI_OK && o.has_body && o.body_len == sizeof want - 1 &&
                                                  memcmp(o.body, want, sizeof want - 1) == 0,
            "r=%d err=%s len=%zu", r, err, o.body_len);
    T_CHECK("body @file: method POST", r == CLI_OK && strcmp(o.method, "POST") == 0, "%s", o.method);
    cli_free(&o);

    /* Bigger than one read, so the buffer has to grow. */
    size_t big = 100000, kept = 0;
    char *data = malloc(big);
    for (size_t i = 0; i < big; i++) {
        data[i] = i % 100 == 99 ? '\n' : (char)('a' + i % 26);
        kept += data[i] != '\n';
    }
    write_file(path, data, big);
    r = PARSE(&o, "--data", arg, URL);
    bool same = r == CLI_OK && o.body_len == kept;
    for (size_t i = 0, j = 0; same && i < big; i++)
        if (data[i] != '\n')
            same = o.body[j++] == data[i];
    T_CHECK("body @file: large file read whole", same, "r=%d len=%zu want=%zu", r, o.body_len, kept);
    cli_free(&o);
    free(data);

    /* --data-binary: every byte, CR and LF included (as curl). */
    write_file(path, text, sizeof text - 1);
    r = PARSE(&o, "--data-binary", arg, URL);
    T_CHECK("body @file: --data-binary keeps every byte, CR and LF too",
            r == CLI_OK && o.has_body && o.body_len == sizeof text - 1 && memcmp(o.body, text, sizeof text - 1) == 0 &&
                strcmp(o.method, "POST") == 0,
            "r=%d err=%s len=%zu", r, err, o.body_len);
    cli_free(&o);
    r = PARSE(&o, "--data-binary", "a\r\nb", URL);
    T_CHECK("body: --data-binary inline text as given",
            r == CLI_OK && o.body_len == 4 && memcmp(o.body, "a\r\nb", 4) == 0, "r=%d len=%zu", r, o.body_len);
    cli_free(&o);

    write_file(path, "", 0);
    r = PARSE(&o, "-d", arg, URL);
    T_CHECK("body @file: empty file is a zero-length body", r == CLI_OK && o.has_body && o.body_len == 0,
            "r=%d err=%s", r, err);
    cli_free(&o);
    unlink(path);
}

/* Points fd 0 at a pipe holding data; returns the saved stdin. */
static int stdin_from(const char *data, int *keep_write_end)
{
    int saved = dup(STDIN_FILENO), fds[2];
    if (saved < 0 || pipe(fds) < 0)
        return -1;
    if (write(fds[1], data, strlen(data)) != (ssize_t)strlen(data))
        return -1;
    if (keep_write_end)
        *keep_write_end = fds[1];
    else
        close(fds[1]);
    dup2(fds[0], STDIN_FILENO);
    close(fds[0]);
    return saved;
}

static void restore_stdin(int saved)
{
    dup2(saved, STDIN_FILENO);
    close(saved);
}

static void test_stdin_body(void)
{
    int saved = stdin_from("hello\r\nworld\n", NULL);
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "-d", "@-", URL);
    restore_stdin(saved);
    T_CHECK("body @-: stdin read, CR and LF stripped",
            r == CLI_OK && o.body_len == 10 && memcmp(o.body, "helloworld", 10) == 0, "r=%d err=%s len=%zu", r,
            err, o.body_len);
    cli_free(&o);

    /* A refused command line must not consume stdin: the write end stays
     * open, so a read would block the test rather than pass it. */
    int writer = -1;
    saved = stdin_from("untouched", &writer);
    int flags = fcntl(STDIN_FILENO, F_GETFL);
    fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK);
    r = PARSE(&o, "-d", "@-", "-c", "0", URL);
    enum cli_result h = PARSE(&o, "-d", "@-", "-h", URL);
    char buf[16] = {0};
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf - 1);
    restore_stdin(saved);
    close(writer);
    T_CHECK("body @-: not read when the command line is refused or -h given",
            r == CLI_ERROR && h == CLI_HELP && n == 9 && strcmp(buf, "untouched") == 0, "r=%d h=%d n=%zd buf=%s",
            r, h, n, buf);
    cli_free(&o);
}

/* --------------------------------------------------------------- misuse */

struct misuse {
    const char *args[8];
    const char *kw1, *kw2; /* both must appear in err */
};

static const struct misuse misuses[] = {
    {{"-n", "10", "-z", "5s", URL}, "-n and -z are mutually exclusive", NULL},
    {{"--hdr-log", "", URL}, "--hdr-log", "expected a file name"},
    {{"--hdr-log", "a.log", "--hdr-log=b.log", URL}, "--hdr-log given more than once", NULL},
    {{"--log", "", URL}, "--log", "expected a file name"},
    {{"--log", "-", URL}, "--log -", "give --log a file"},
    {{"--log", "a.tsv", "--log-format", "xml", URL}, "--log-format", "tsv, csv or jsonl"},
    {{"--log", "a.tsv", URL, URL}, "--log takes one URL", NULL},
    {{"-n", "0", URL}, "-n/--requests", "at least 1"},
    {{"-c", "0", URL}, "-c/--connections", "at least 1"},
    {{"-t", "0", URL}, "-t/--threads", "at least 1"},
    {{"--http2", "-p", "0", URL}, "-p/--parallel", "at least 1"},
    {{"-c", "abc", URL}, "-c/--connections", "'abc'"},
    {{"-c", "-5", URL}, "-c/--connections", "'-5'"},
    {{"-c", "1e3", URL}, "-c/--connections", "'1e3'"},
    {{"-c", "+5", URL}, "-c/--connections", "positive integer"},
    {{"-c", " 5", URL}, "-c/--connections", "positive integer"},
    {{"-c", "", URL}, "-c/--connections", "positive integer"},
    {{"-c", "4294967296", URL}, "-c/--connections", "too large"},
    {{"-n", "18446744073709551616", URL}, "-n/--requests", "too large"},
    {{"-n", "99999999999999999999999", URL}, "-n/--requests", "too large"},
    {{"-n", "1.5", URL}, "invalid value '1.5' for -n/--requests: not a whole number", NULL},
    {{"-n", "1.0005k", URL}, "invalid value '1.0005k' for -n/--requests: not a whole number", NULL},
    {{"-n", "10m", URL}, "invalid value '10m' for -n/--requests: expected a positive integer (e.g. 500, 10k, 1.5M)", NULL},
    {{"-n", "k", URL}, "-n/--requests", "positive integer"},
    {{"-n", ".5k", URL}, "-n/--requests", "positive integer"},
    {{"-n", "5.k", URL}, "-n/--requests", "positive integer"},
    {{"-n", "1kk", URL}, "-n/--requests", "positive integer"},
    {{"-n", "0k", URL}, "-n/--requests", "at least 1"},
    {{"-n", "18446744074G", URL}, "-n/--requests", "too large"},
    {{"-c", "5G", URL}, "-c/--connections", "too large"},
    {{"-q", "2.5x", URL}, "-q/--rate", "requests per second"},
    {{"-p", "4", URL}, "-p/--parallel", "--http2"},
    {{"-p", "1", URL}, "-p/--parallel", "HTTP/2"},
    {{"--disable-keepalive", "--http2", URL}, "--disable-keepalive", "HTTP/1.1"},
    {{"-w", "14", URL}, "-w/--window-bits only applies to HTTP/2 (add --http2)", NULL},
    {{"-W", "16", "--http3", HTTPS_URL}, "-W/--connection-window-bits only applies to HTTP/2", "--max-data"},
    {{"--max-frame-size", "1M", URL}, "--max-frame-size only applies to HTTP/2", NULL},
    {{"--header-table-size", "4096", HTTPS_URL}, "--header-table-size only applies to HTTP/2", NULL},
    {{"--max-data", "64k", "--http2", URL}, "--max-data only applies to HTTP/3", "-w and -W"},
    {{"--max-stream-data", "64k", HTTPS_URL}, "--max-stream-data only applies to HTTP/3", NULL},
    {{"-w", "31", "--http2", URL}, "invalid value '31' for -w/--window-bits: expected N from 0 to 30", NULL},
    {{"-W", "-1", "--http2", URL}, "-W/--connection-window-bits", "0 to 30"},
    {{"-w", "1k", "--http2", URL}, "-w/--window-bits", "0 to 30"},
    {{"-w", "", "--http2", URL}, "-w/--window-bits", "0 to 30"},
    {{"--max-frame-size", "16383", "--http2", URL}, "--max-frame-size: must be 16384 to 16777215 bytes", NULL},
    {{"--max-frame-size", "16M", "--http2", URL}, "--max-frame-size: must be 16384 to 16777215", NULL},
    {{"--header-table-size", "4097", "--http2", URL}, "--header-table-size: must be 0 to 4096 bytes", NULL},
    {{"--header-table-size", "4x", "--http2", URL}, "--header-table-size", "size in bytes"},
    {{"--max-data", "1023", "--http3", HTTPS_URL}, "--max-data: must be 1024 to 1073741824", NULL},
    {{"--max-stream-data", "2G", "--http3", HTTPS_URL}, "--max-stream-data: must be 1024 to 1073741824", NULL},
    {{"--max-data", "1.0001k", "--http3", HTTPS_URL}, "--max-data", "whole number of bytes"},
    {{"-d", "a", "--data-binary", "b", URL}, "-d/--data and --data-binary both give the request body: use one", NULL},
    {{"--data-binary", "a", "--data-binary", "b", URL}, "--data-binary given more than once", NULL},
    {{"--disable-keepalive", "--http3", HTTPS_URL}, "--disable-keepalive", "HTTP/1.1"},
    {{"--http3", URL}, "--http3 requires an https:// URL", NULL},
    {{"--key", "k.pem", HTTPS_URL}, "--key needs --cert", NULL},
    {{"--cert", "c.pem", URL}, "--cert needs an https:// URL", NULL},
    {{"--cert", "", HTTPS_URL}, "invalid value '' for --cert: expected a file name", NULL},
    {{"--cert", "c.pem", "--key", "", HTTPS_URL}, "invalid value '' for --key: expected a file name", NULL},
    {{"--cert", "c.pem", "--cert", "d.pem", HTTPS_URL}, "--cert", NULL},
    {{"--cacert", "ca.pem", URL}, "--cacert needs an https:// URL", NULL},
    {{"--cacert", "", HTTPS_URL}, "invalid value '' for --cacert: expected a file name", NULL},
    {{"--http2", "--http3", HTTPS_URL}, "--http2 and --http3 are mutually exclusive", NULL},
    {{"--foo", URL}, "unknown option '--foo'", NULL},
    {{"--foo=1", URL}, "unknown option '--foo'", NULL},
    {{"-y", URL}, "unknown option '-y'", NULL},
    {{"--conn", "5", URL}, "unknown option '--conn'", NULL},
    {{"--json=yes", URL}, "--json", "does not take a value"},
    {{URL, "--connections"}, "missing value", "--connections"},
    {{URL, "-c"}, "missing value", "-c"},
    {{URL, "-H"}, "missing value", "-H"},
    {{"-c", "5"}, "missing URL", NULL},
    {{URL, "other"}, "'other'", "missing scheme"},
    {{URL, "b=ftp://x/"}, "b=ftp://x/: unsupported URL scheme 'ftp'", NULL},
    {{URL, "ftp://x/?a=b"}, "ftp://x/?a=b: unsupported URL scheme 'ftp'", NULL},
    {{URL, "http://:80/"}, "'http://:80/'", "empty host"},
    {{"=" URL}, "'=" URL "'", "empty label"},
    {{"a b=" URL}, "'a b=" URL "'", "no spaces"},
    {{"a\tb=" URL}, "no spaces", NULL},
    {{"a=" URL, "b=" URL, "a=" HTTPS_URL}, "label 'a' given twice", "unique"},
    {{"a=" URL, "--shard", "0/2", "b=" URL}, "--shard", "one URL"},
    {{URL, URL, "--start-at", "2030-01-01T00:00:00Z"}, "--start-at", "one URL"},
    {{"--http3", HTTPS_URL, "b=" URL}, "--http3 requires an https:// URL", "'b=" URL "'"},
    {{"a=b=" URL}, "unsupported URL scheme 'b=http'", NULL},
    {{"x=" "y"}, "'y'", "missing scheme"},
    {{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=" URL}, "label longer than 64", NULL},
    {{"-z", "10", URL}, "-z/--duration", "'10'"},
    {{"-z", "1x", URL}, "-z/--duration", "unknown unit"},
    {{"-z", "0s", URL}, "-z/--duration", "greater than zero"},
    {{"--connect-timeout", "5", URL}, "--connect-timeout", "'5'"},
    {{"--connect-timeout=0ms", URL}, "--connect-timeout", "greater than zero"},
    {{"--timeout", "5", URL}, "--timeout", "or 0 for no timeout"},
    {{"--timeout", "1x", URL}, "--timeout", "unknown unit"},
    {{"--timeout", "-1s", URL}, "--timeout", "'-1s'"},
    {{"--timeout", "1s", "--timeout", "2s", URL}, "--timeout", "more than once"},
    {{"--warmup", "0", URL}, "--warmup", "'0'"},
    {{"--warmup", "0s", URL}, "--warmup", "greater than zero"},
    {{"--shard", "4/4", URL}, "--shard", "numbered 0 to 3"},
    {{"--shard", "0/0", URL}, "--shard", "1 to 65536"},
    {{"--shard", "0/65537", URL}, "--shard", "1 to 65536"},
    {{"--shard", "1", URL}, "--shard", "expected I/N"},
    {{"--shard", "a/4", URL}, "--shard", "expected I/N"},
    {{"--shard", "1/4x", URL}, "--shard", "expected I/N"},
    {{"--shard", "-1/4", URL}, "--shard", "expected I/N"},
    {{"--shard", "1/", URL}, "--shard", "expected I/N"},
    {{"--shard", "0/2", "--shard", "1/2", URL}, "--shard", "more than once"},
    {{"--start-at", "soon", URL}, "--start-at", "RFC 3339"},
    {{"--start-at", "12.", URL}, "--start-at", "Unix seconds"},
    {{"--start-at", "0", URL}, "--start-at", "epoch"},
    {{"--start-at", "2026-13-01T00:00:00Z", URL}, "--start-at", "no such date"},
    {{"--start-at", "2025-02-29T00:00:00Z", URL}, "--start-at", "no such date"},
    {{"--start-at", "2026-12-02T18:00:00", URL}, "--start-at", "ends with Z"},
    {{"--start-at", "2026-12-02T18:00:00+1", URL}, "--start-at", "+HH:MM"},
    {{"--start-at", "2026-12-02T18:00:00Zx", URL}, "--start-at", "unexpected characters"},
    {{"--start-at", "1969-12-31T23:59:59Z", URL}, "--start-at", "before 1970"},
    {{"--warmup", "2s", "-z", "2s", URL}, "--warmup must be shorter than -z", NULL},
    {{"-z", "1s", "--warmup=3s", URL}, "--warmup must be shorter than -z", NULL},
    {{"-q", "0", URL}, "-q/--rate", "more than 0"},
    {{"-q", "0.0", URL}, "-q/--rate", "more than 0"},
    {{"-q", "-5", URL}, "-q/--rate", "expected requests per second"},
    {{"--tls-max", "1.1", HTTPS_URL}, "invalid value '1.1' for --tls-max", "1.2 or 1.3"},
    {{"--tls-max", "1.2", "--tls-max", "1.3", HTTPS_URL}, "--tls-max given more than once", NULL},
    {{"--tls-max", "1.2", "--tlsv1.3", HTTPS_URL}, "--tlsv1.3", "--tls-max 1.2"},
    {{"--tls-max", "1.2", "--http3", HTTPS_URL}, "--tls-max 1.2 does not apply to --http3", NULL},
    {{"--ciphers", "ECDHE-RSA-AES128-GCM-SHA256", "--http3", HTTPS_URL}, "--ciphers", "--http3"},
    {{"--ciphers", "ECDHE-RSA-AES128-GCM-SHA256", "--tlsv1.3", HTTPS_URL}, "--ciphers", "--tlsv1.3"},
    {{"--tls13-ciphers", "TLS_AES_128_GCM_SHA256", "--tls-max", "1.2", HTTPS_URL}, "--tls13-ciphers", "1.2"},
    {{"--curves", "x448", HTTPS_URL}, "unknown name 'x448' in --curves", "x25519, P-256"},
    {{"--curves", "", HTTPS_URL}, "invalid value '' for --curves", "list of names"},
    {{"--curves", "x25519::P-256", HTTPS_URL}, "--curves", "an empty name"},
    {{"--curves", "P-256:prime256v1", HTTPS_URL}, "'prime256v1' is listed twice in --curves", NULL},
    {{"--tls13-ciphers", "TLS_AES_128_CCM_SHA256", HTTPS_URL}, "unknown name 'TLS_AES_128_CCM_SHA256'",
     "TLS_CHACHA20_POLY1305_SHA256"},
    {{"--tls13-ciphers", "ECDHE-RSA-AES128-GCM-SHA256", HTTPS_URL}, "is a TLS 1.2 suite", "--ciphers"},
    {{"--ciphers", "TLS_AES_256_GCM_SHA384", HTTPS_URL}, "is a TLS 1.3 suite", "--tls13-ciphers"},
    {{"--ciphers", "RC4-SHA", HTTPS_URL}, "unknown name 'RC4-SHA' in --ciphers", "ECDHE-ECDSA-"},
    {{"--ciphers", ":", HTTPS_URL}, "--ciphers", "an empty name"},
    {{"--tlsv1.3", URL}, "the TLS options (--tlsv1.3) only apply to https:// URLs", NULL},
    {{"--curves", "P-384", "a=" URL, "b=" URL}, "--curves P-384", "https://"},
    {{"--tls-resume", URL}, "--tls-resume needs an https:// URL", "resumes TLS sessions"},
    {{"--early-data", URL}, "--early-data needs an https:// URL", "0-RTT is TLS 1.3 early data"},
    {{"--early-data", "-d", "x", HTTPS_URL}, "--early-data sends only GET and HEAD requests", "RFC 8470 §2.1): not POST"},
    {{"--early-data", "-m", "DELETE", HTTPS_URL}, "--early-data sends only GET and HEAD", "not DELETE"},
    {{"--early-data", "--tls-max", "1.2", HTTPS_URL}, "--early-data needs TLS 1.3", "--tls-max 1.2"},
    {{"-q", "1e4", URL}, "-q/--rate", "expected requests per second"},
    {{"-q", "10/s", URL}, "-q/--rate", "expected requests per second"},
    {{"-q", "1.2.3", URL}, "-q/--rate", "expected requests per second"},
    {{"-q", ".", URL}, "-q/--rate", "expected requests per second"},
    {{"-q", "", URL}, "-q/--rate", "expected requests per second"},
    {{"-q", "100000001", URL}, "-q/--rate", "at most 100000000"},
    {{"-q", "10..", "-z", "1s", URL}, "'10..'", "expected requests per second"},
    {{"-q", "..10", "-z", "1s", URL}, "'..10'", "expected requests per second"},
    {{"-q", "10..0", "-z", "1s", URL}, "'10..0'", "more than 0"},
    {{"-q", "10...20", "-z", "1s", URL}, "'10...20'", "expected requests per second"},
    {{"-q", "10..20", URL}, "FROM..TO ramps over the run's duration", "-z/--duration"},
    {{"-q", "10..20", "-n", "5", URL}, "FROM..TO ramps", "-z/--duration"},
    {{"-q", "10", "--rate", "20", URL}, "-q/--rate", "more than once"},
    {{"-H", "NoColon", URL}, "-H/--header", "':'"},
    {{"-H", ": value", URL}, "-H/--header", "empty header name"},
    {{"-H", "  : value", URL}, "-H/--header", "empty header name"},
    {{"-H", "X: a\r\nEvil: 1", URL}, "-H/--header", "CR or LF"},
    {{"-H", "X\n: a", URL}, "-H/--header", "CR or LF"},
    {{"-H", "Bad Name: x", URL}, "-H/--header", "not a token"},
    {{"-H", "X: a\tb\x01", URL}, "-H/--header", "control characters"},
    {{"-d", "@/nonexistent/shb-body.json", URL}, "/nonexistent/shb-body.json", "No such file or directory"},
    {{"-d", "@/", URL}, "'/'", "Is a directory"},
    {{"ftp://example.com/"}, "unsupported URL scheme 'ftp' (use http:// or https://)", NULL},
    {{"127.0.0.1:8080"}, "missing scheme", NULL},
    {{"http://:8080/"}, "empty host", NULL},
    {{"http://h:0/"}, "out of range", NULL},
    {{"http://h:65536/"}, "out of range", NULL},
    {{"http://h:x/"}, "bad port", NULL},
    {{"http://[::1/"}, "unclosed '['", NULL},
    {{"http://u:%zz@h/"}, "bad %-escape in the password", NULL},
    {{"-m", "", URL}, "-m/--method", "token"},
    {{"-m", "GE T", URL}, "-m/--method", "'GE T'"},
    {{"-m", "GET\r\n", URL}, "-m/--method", "'GET?\?'"}, /* control bytes never reach err raw */
    {{"ftp\x1b[31m://h/"}, "unsupported URL scheme 'ftp?[31m'", NULL},
    {{"-c", "1", "-c", "2", URL}, "-c/--connections", "more than once"},
    {{"-d", "a", "--data", "b", URL}, "-d/--data", "more than once"},
    {{"--unix-socket", "/s", "https://h/"}, "--unix-socket only takes http:// URLs", NULL},
    {{"--unix-socket", "/s", "--http3", "http://h/"}, "--http3 requires an https:// URL", NULL},
    {{"--unix-socket", "/s", "--http3", "https://h/"}, "--unix-socket does not apply to --http3", NULL},
    {{"--unix-socket", "/s", "http://a/", "https://b/"}, "--unix-socket only takes http://", NULL},
    {{"--bind", "::1", "http://127.0.0.1/", "http://[::1]/"}, "--bind gives IPv6 addresses, but the target 127.0.0.1", NULL},
    {{"--unix-socket", "/s", "--bind", "127.0.0.2", URL}, "--bind does not apply to --unix-socket", NULL},
    {{"--unix-socket", "", URL}, "--unix-socket", "expected the path"},
    {{"--unix-socket", "/" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      URL}, "--unix-socket", "at most 107 bytes (this one is 108)"},
    {{"--unix-socket", "/a", "--unix-socket", "/b", URL}, "--unix-socket", "more than once"},
    {{"--unix-socket", URL}, "missing URL", NULL},
    {{"--bind", "localhost", URL}, "--bind", "'localhost' is not an IPv4 or IPv6 address"},
    {{"--bind", "127.0.0.2:80", URL}, "--bind", "'127.0.0.2:80' is not"},
    {{"--bind", "127.1", URL}, "--bind", "'127.1' is not"},
    {{"--bind", "", URL}, "--bind", "'' is not"},
    {{"--bind", "127.0.0.2,", URL}, "--bind", "'' is not"},
    {{"--bind", ",127.0.0.2", URL}, "--bind", "'' is not"},
    {{"--bind", "[127.0.0.2", URL}, "--bind", "'[127.0.0.2' is not"},
    {{"--bind", "[]", URL}, "--bind", "'[]' is not"},
    {{"--bind", "127.0.0.2,::1", URL}, "--bind", "IPv4 and IPv6 addresses mixed"},
    {{"--bind", "127.0.0.2,127.0.0.3,127.0.0.2", URL}, "--bind", "'127.0.0.2' is given twice"},
    {{"--bind", "::1,[::1]", "http://[::1]/"}, "--bind", "'[::1]' is given twice"},
    {{"--bind", "127.0.0.2", "--bind", "127.0.0.3", URL}, "--bind", "more than once"},
    {{"--bind", "::1", URL}, "--bind gives IPv6 addresses, but the target 127.0.0.1 is an IPv4 address", NULL},
    {{"--bind", "127.0.0.2", "http://[::1]:80/"}, "--bind gives IPv4 addresses", "::1 is an IPv6 address"},
};

static void test_misuse(void)
{
    char name[160];
    for (size_t i = 0; i < sizeof misuses / sizeof misuses[0]; i++) {
        const struct misuse *m = &misuses[i];
        struct shb_opts o;
        enum cli_result r = parse_list(&o, m->args);
        snprintf(name, sizeof name, "misuse #%zu: %s%s%s", i, m->kw1, m->kw2 ? " / " : "", m->kw2 ? m->kw2 : "");
        bool ok = r == CLI_ERROR && strstr(err, m->kw1) && (!m->kw2 || strstr(err, m->kw2)) &&
                  !strchr(err, '\n');
        T_CHECK(name, ok, "r=%d err='%s'", r, err);
        /* cli_parse already released everything; a second free is harmless. */
        cli_free(&o);
    }
    struct shb_opts o;
    enum cli_result r = NO_ARGS(&o);
    T_CHECK("misuse: no arguments at all", r == CLI_ERROR && strstr(err, "missing URL"), "r=%d err=%s", r, err);
    cli_free(&o);

    /* The first problem in argv order is the one reported. */
    r = PARSE(&o, "-c", "x", "--bogus", URL);
    T_CHECK("misuse: first problem wins", r == CLI_ERROR && strstr(err, "'x'") && !strstr(err, "bogus"),
            "err=%s", err);
    cli_free(&o);

    char small[8];
    char *argv[] = {(char *)"shb", (char *)"--nonsense-long-option", NULL};
    r = cli_parse(2, argv, &o, 1, devnull, small, sizeof small);
    T_CHECK("misuse: err truncated safely", r == CLI_ERROR && strlen(small) == sizeof small - 1, "'%s'", small);
    cli_free(&o);
}

/* ------------------------------------------------------------ durations */

struct duration_case {
    const char *text;
    int rc;
    uint64_t ns;
};

static const struct duration_case durations[] = {
    {"10s", 0, 10000000000ull},
    {"1m30s", 0, 90000000000ull},
    {"500ms", 0, 500000000ull},
    {"2h", 0, 7200000000000ull},
    {"1h2m3s", 0, 3723000000000ull},
    {"1h2m3s4ms", 0, 3723004000000ull},
    {"30m", 0, 1800000000000ull},
    {"1s500ms", 0, 1500000000ull},
    {"250us", 0, 250000ull},
    {"1ns", 0, 1ull},
    {"0s5ms", 0, 5000000ull},
    {"007s", 0, 7000000000ull},
    {"1m1m", 0, 120000000000ull},
    {"18446744073709551615ns", 0, UINT64_MAX},
    {"5124095h", 0, 5124095ull * 3600000000000ull},
    {"", -1, 0},
    {"10", -1, 0},
    {"s", -1, 0},
    {"ms", -1, 0},
    {"10x", -1, 0},
    {"10sec", -1, 0},
    {"1d", -1, 0},
    {"10S", -1, 0},
    {"1.5s", 0, 1500000000ull},
    {"0.5ms", 0, 500000ull},
    {"2.5m", 0, 150000000000ull},
    {"1.5h30m", 0, 7200000000000ull},
    {"0.000000001s", 0, 1ull},
    {"1.000000000000000000s", 0, 1000000000ull},
    {"1.0000000000000000000s", -1, 0},
    {"0.0000000001s", -1, 0},
    {"1.5ns", -1, 0},
    {".5s", -1, 0},
    {"1.s", -1, 0},
    {"1.2.3s", -1, 0},
    {"1..5s", -1, 0},
    {".s", -1, 0},
    {"-1s", -1, 0},
    {"+1s", -1, 0},
    {"0s", -1, 0},
    {"0ms0s", -1, 0},
    {" 10s", -1, 0},
    {"10s ", -1, 0},
    {"1m30", -1, 0},
    {"1h-", -1, 0},
    {"18446744073709551616ns", -1, 0},
    {"5124096h", -1, 0},
    {"18446744073709551615ns1ns", -1, 0},
    {"99999999999999999999999s", -1, 0},
};

static void test_durations(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        const struct duration_case *c = &durations[i];
        uint64_t ns = 12345;
        int rc = cli_parse_duration(c->text, &ns);
        bool ok = rc == c->rc && (rc != 0 || ns == c->ns) && (rc == 0 || ns == 12345);
        bad += !T_QUIET("duration", ok, "'%s': rc=%d ns=%llu want rc=%d ns=%llu", c->text, rc,
                        (unsigned long long)ns, c->rc, (unsigned long long)c->ns);
    }
    T_CHECK("durations: table", bad == 0, "%d cases failed", bad);
}

/* ----------------------------------------------------------------- URLs */

struct url_case {
    const char *text;
    bool https;
    const char *host;
    bool v6, ip;
    uint16_t port;
    const char *authority, *target;
};

static const struct url_case good_urls[] = {
    {"http://127.0.0.1:8080/", false, "127.0.0.1", false, true, 8080, "127.0.0.1:8080", "/"},
    {"http://127.0.0.1", false, "127.0.0.1", false, true, 80, "127.0.0.1", "/"},
    {"https://[::1]:8443/x", true, "::1", true, true, 8443, "[::1]:8443", "/x"},
    {"https://[::1]/", true, "::1", true, true, 443, "[::1]", "/"},
    {"http://[2001:db8::1]:80/", false, "2001:db8::1", true, true, 80, "[2001:db8::1]", "/"},
    {"http://[::ffff:127.0.0.1]:1", false, "::ffff:127.0.0.1", true, true, 1, "[::ffff:127.0.0.1]:1", "/"},
    {"https://example.com:443/a", true, "example.com", false, false, 443, "example.com", "/a"},
    {"http://example.com:443/", false, "example.com", false, false, 443, "example.com:443", "/"},
    {"https://example.com:80/", true, "example.com", false, false, 80, "example.com:80", "/"},
    {"http://h:00080/", false, "h", false, false, 80, "h", "/"},
    {"HTTP://Example.COM/Path", false, "Example.COM", false, false, 80, "Example.COM", "/Path"},
    {"HtTpS://example.com", true, "example.com", false, false, 443, "example.com", "/"},
    {"http://h?x=1", false, "h", false, false, 80, "h", "/?x=1"},
    {"http://h:81?x=1", false, "h", false, false, 81, "h:81", "/?x=1"},
    {"http://h/a%20b/c?q=%2F&r=1#frag", false, "h", false, false, 80, "h", "/a%20b/c?q=%2F&r=1"},
    {"http://h#frag", false, "h", false, false, 80, "h", "/"},
    {"http://h/#", false, "h", false, false, 80, "h", "/"},
    {"http://h//double/?a=b?c", false, "h", false, false, 80, "h", "//double/?a=b?c"},
    {"http://my_host.local:9000/api/v1", false, "my_host.local", false, false, 9000, "my_host.local:9000",
     "/api/v1"},
    {"http://localhost:65535/", false, "localhost", false, false, 65535, "localhost:65535", "/"},
    {"http://example.com./", false, "example.com.", false, false, 80, "example.com.", "/"},
    {"http://127.1/", false, "127.1", false, false, 80, "127.1", "/"}, /* not a strict IPv4 literal */
};

struct bad_url {
    const char *text, *keyword;
};

static const struct bad_url bad_urls[] = {
    {"ftp://h/", "unsupported URL scheme 'ftp' (use http:// or https://)"},
    {"ws://h/", "unsupported URL scheme 'ws'"},
    {"httpx://h/", "unsupported URL scheme 'httpx'"},
    {"127.0.0.1:8080/", "missing scheme"},
    {"localhost", "missing scheme"},
    {"", "missing scheme"},
    {"://h/", "unsupported URL scheme ''"},
    {"http://", "empty host"},
    {"http:///path", "empty host"},
    {"http://:8080/", "empty host"},
    {"http://?x", "empty host"},
    {"http://h:0/", "out of range"},
    {"http://h:65536/", "out of range"},
    {"http://h:99999999999999999999/", "out of range"},
    {"http://h:abc/", "bad port"},
    {"http://h:-1/", "bad port"},
    {"http://h:/", "empty port"},
    {"http://[::1/", "unclosed '['"},
    {"http://[::1", "unclosed '['"},
    {"http://[zz]/", "invalid IPv6 address"},
    {"http://[127.0.0.1]/", "invalid IPv6 address"},
    {"http://[fe80::1%25eth0]/", "invalid IPv6 address"},
    {"http://[]/", "empty host"},
    {"http://[::1]x/", "after ']'"},
    {"http://[::1]:/", "empty port"},
    {"http://[::1]:0/", "out of range"},
    {"http://::1/", "brackets"},
    {"http://user:p%4@h/", "bad %-escape in the password"},
    {"http://a%3Ab:pw@h:80/", "a ':' in the user name"},
    {"http://h/a b", "%-encoded"},
    {"http://h/a\tb", "%-encoded"},
    {"http://ex ample.com/", "invalid character in host"},
    {"http://ex%41mple.com/", "invalid character in host"},
};

static void test_urls(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof good_urls / sizeof good_urls[0]; i++) {
        const struct url_case *c = &good_urls[i];
        struct shb_url u;
        char e[256] = "";
        int rc = cli_parse_url(c->text, &u, e, sizeof e);
        bool ok = rc == 0 && u.https == c->https && strcmp(u.host, c->host) == 0 && u.host_is_ipv6 == c->v6 &&
                  u.host_is_ip == c->ip && u.port == c->port && strcmp(u.authority, c->authority) == 0 &&
                  u.target && strcmp(u.target, c->target) == 0;
        bad += !T_QUIET("url", ok, "'%s': rc=%d err=%s https=%d host=%s v6=%d ip=%d port=%u auth=%s target=%s",
                        c->text, rc, e, u.https, u.host, u.host_is_ipv6, u.host_is_ip, u.port, u.authority,
                        u.target ? u.target : "(null)");
        free(u.target);
    }
    T_CHECK("urls: valid table", bad == 0, "%d cases failed", bad);

    bad = 0;
    for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
        const struct bad_url *c = &bad_urls[i];
        struct shb_url u;
        char e[256] = "";
        int rc = cli_parse_url(c->text, &u, e, sizeof e);
        bad += !T_QUIET("url", rc == -1 && strstr(e, c->keyword) && !u.target, "'%s': rc=%d err='%s' want '%s'",
                        c->text, rc, e, c->keyword);
        free(u.target);
    }
    T_CHECK("urls: invalid table", bad == 0, "%d cases failed", bad);

    char longhost[300];
    memcpy(longhost, "http://", 7);
    memset(longhost + 7, 'a', 254);
    strcpy(longhost + 7 + 254, "/");
    struct shb_url u;
    char e[512] = "";
    T_CHECK("urls: host over 253 bytes refused", cli_parse_url(longhost, &u, e, sizeof e) == -1 &&
                                                     strstr(e, "too long"),
            "%s", e);
    longhost[7 + 253] = '/';
    longhost[7 + 254] = '\0';
    int rc = cli_parse_url(longhost, &u, e, sizeof e);
    T_CHECK("urls: 253-byte host accepted", rc == 0 && strlen(u.host) == 253 && strlen(u.authority) == 253, "%s",
            e);
    if (rc == 0)
        free(u.target);
}

/* -------------------------------------------------------------- targets */

/* Target i of o has label (NULL: none), URL text url and port. */
static bool target_is(const struct shb_opts *o, size_t i, const char *label, const char *url, unsigned port)
{
    const struct shb_target *t = &o->targets[i];
    return i < o->ntargets && (label ? t->label && strcmp(t->label, label) == 0 : !t->label) &&
           strcmp(t->url_text, url) == 0 && t->url.port == port;
}

static void test_targets(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, "-n", "5", URL, "-c", "2", HTTPS_URL);
    T_CHECK("targets: two URLs, options between them", r == CLI_OK && o.ntargets == 2 && o.requests == 5 &&
                o.connections == 2 && target_is(&o, 0, NULL, URL, 8080) && target_is(&o, 1, NULL, HTTPS_URL, 8443) &&
                o.targets[1].url.https,
            "r=%d err=%s n=%zu", r, err, o.ntargets);
    cli_free(&o);

    r = PARSE(&o, "nginx=" URL, "h2o.local=" HTTPS_URL, "http://h:81/?a=b", "HTTPS://h:82/x=y");
    T_CHECK("targets: label=URL, and '=' in a URL's query or path is no label",
            r == CLI_OK && o.ntargets == 4 && target_is(&o, 0, "nginx", URL, 8080) &&
                target_is(&o, 1, "h2o.local", HTTPS_URL, 8443) && target_is(&o, 2, NULL, "http://h:81/?a=b", 81) &&
                target_is(&o, 3, NULL, "HTTPS://h:82/x=y", 82) && strcmp(o.targets[2].url.target, "/?a=b") == 0,
            "r=%d err=%s n=%zu", r, err, o.ntargets);
    cli_free(&o);

    r = PARSE(&o, URL, URL, "a=" URL, "b=" URL);
    T_CHECK("targets: the same URL twice is fine (labels differ or there are none)",
            r == CLI_OK && o.ntargets == 4 && target_is(&o, 3, "b", URL, 8080), "r=%d err=%s", r, err);
    cli_free(&o);

    r = PARSE(&o, "one=" URL);
    T_CHECK("targets: one labelled URL", r == CLI_OK && o.ntargets == 1 && target_is(&o, 0, "one", URL, 8080),
            "r=%d err=%s", r, err);
    cli_free(&o);

    r = PARSE(&o, "--http3", "a=" HTTPS_URL, "https://example.com/");
    T_CHECK("targets: --http3 with every URL https://", r == CLI_OK && o.ntargets == 2, "r=%d err=%s", r, err);
    cli_free(&o);

    /* Each target's request carries its own authority and path. */
    r = PARSE(&o, "-H", "X: 1", "a=http://one:81/p", "b=http://two/q?r");
    struct shb_request q0 = cli_request(&o, &o.targets[0]), q1 = cli_request(&o, &o.targets[1]);
    T_CHECK("targets: cli_request per target",
            r == CLI_OK && strcmp(q0.authority, "one:81") == 0 && strcmp(q0.target, "/p") == 0 &&
                strcmp(q1.authority, "two") == 0 && strcmp(q1.target, "/q?r") == 0 && q1.nheaders == 1,
            "r=%d err=%s", r, err);
    cli_free(&o);
    cli_free(&o); /* twice is harmless */
}

/* ----------------------------------------------------------------- help */

/* shb -h in clap's layout: the usage lines, the subcommands, then every option. */
static const char expected_help[] =
    "io_uring HTTP/1.1 / HTTP/2 / HTTP/3 benchmarker\n"
    "\n"
    "Usage: shb [OPTIONS] <URL>...\n"
    "       shb merge [-j [--histograms]] [--force] FILE...\n"
    "       shb report --html FILE REPORT...\n"
    "       shb completions SHELL\n"
    "\n"
    "Commands:\n"
    "  merge        Read JSON reports, from shards of one run or from separate runs, and print one report\n"
    "  report       Write an HTML page of charts from JSON reports, the page --html writes after a run\n"
    "  completions  Print the completion script for SHELL on standard output\n"
    "\n"
    "Arguments:\n"
    "  <URL>...  Target URL, e.g. http://127.0.0.1:8080/ or https://example.com/ (TLS trusts every "
    "certificate: this is a benchmarker); label=URL names it (e.g. nginx=http://127.0.0.1:8080/). Several run "
    "one after another with the same options, each with its report, then a table compares them\n"
    "\n"
    "Options:\n"
    "  -c, --connections <CONNECTIONS>\n"
    "          Number of concurrent connections [default: 50]\n"
    "  -n, --requests <REQUESTS>\n"
    "          Total number of requests [default: 200]\n"
    "  -z, --duration <DURATION>\n"
    "          Run for this long instead of a fixed request count (e.g. 10s, 1m30s)\n"
    "  -m, --method <METHOD>\n"
    "          HTTP method (defaults to GET, or POST when -d or --data-binary is given, like curl)\n"
    "  -H, --header <HEADER>\n"
    "          Custom HTTP header (repeatable). Example: -H \"Accept: application/json\"\n"
    "  -d, --data <BODY>\n"
    "          HTTP request body. @file reads the file, @- reads stdin (like curl; carriage returns and "
    "newlines are stripped from file/stdin data)\n"
    "      --data-binary <BODY>\n"
    "          HTTP request body sent byte for byte (as curl): @file reads the file, @- reads stdin, nothing "
    "stripped. Otherwise as -d, which it replaces\n"
    "      --targets <FILE>\n"
    "          Send the requests of this file (- for stdin) instead of one URL: vegeta's format (METHOD URL, header lines, @body-file, a blank line between targets) or one URL a line. All on the first's scheme, host and port; the report adds a table per target\n"
    "      --targets-order <ORDER>\n"
    "          The order requests take --targets' targets in: seq (request j takes target j mod N: the mix is exact over whole rounds) or random (see --seed) [default: seq]\n"
    "      --seed <N>\n"
    "          The seed of --targets-order random (1 or more; without it the generator starts from 0): the same seed, -n, -c and -t send the same number of requests to each target\n"
    "  -u, --user <USER[:PASSWORD]>\n"
    "          Send HTTP Basic credentials (as curl) to every target; without :PASSWORD the password comes "
    "from $SHB_PASSWORD or --netrc-file, so that it need not stand on the command line. Outputs show it as "
    "***\n"
    "      --netrc-file <FILE>\n"
    "          Take credentials from this netrc file (as curl): the entry whose machine is the target's host\n"
    "  -x, --proxy <URL>\n"
    "          Go through this HTTP proxy, http://[USER:PASSWORD@]HOST[:PORT] (as curl; port 1080 unless "
    "given): https:// and HTTP/2 through a CONNECT tunnel, http:// HTTP/1.1 as absolute-form requests. "
    "Without it, https_proxy, HTTPS_PROXY, http_proxy, all_proxy and ALL_PROXY are used as curl does; \"\" goes "
    "direct. Not with --http3\n"
    "      --proxy-user <USER[:PASSWORD]>\n"
    "          The proxy's Basic credentials, sent as Proxy-Authorization (as curl); without :PASSWORD the "
    "password comes from $SHB_PROXY_PASSWORD. Outputs show it as ***\n"
    "      --noproxy <LIST>\n"
    "          Hosts that go direct, not through the proxy: comma-separated names, each with the hosts under "
    "it, IP addresses and CIDR blocks (10.0.0.0/8) for IP hosts (as curl; in place of no_proxy and NO_PROXY); "
    "'*' for every host\n"
    "      --connect-timeout <CONNECT_TIMEOUT>\n"
    "          Connection establishment timeout (e.g. 5s, 500ms) [default: 5s]\n"
    "      --timeout <TIMEOUT>\n"
    "          Per-request timeout: a request with no complete response by then is counted as a \"timeout\" "
    "error (e.g. 30s, 500ms; 0 disables) [default: 30s]\n"
    "  -q, --rate <RATE>\n"
    "          Send this many requests per second in total, on a fixed schedule whatever the server does (the "
    "open model); latency then counts from when each request was due. FROM..TO ramps linearly over -z (e.g. "
    "1000..20000)\n"
    "      --warmup <WARMUP>\n"
    "          Send requests for this long first, and keep the ones that complete meanwhile out of the report "
    "(e.g. 2s; inside -z's duration, on top of -n's count)\n"
    "      --shard <I/N>\n"
    "          Run shard I (from 0) of N: this process's share of -c, -n and -q, so that N processes (on one "
    "machine or many) together make the one run [default: 0/1]\n"
    "      --start-at <TIME>\n"
    "          Start the measured run at this wall-clock time, so that shards started apart measure the same "
    "window: Unix seconds (fractions allowed) or RFC 3339 (e.g. 2026-12-02T18:00:00Z)\n"
    "  -t, --threads <THREADS>\n"
    "          Number of worker threads [default: 16]\n"
    "  -j, --json\n"
    "          Print the report as JSON\n"
    "      --histograms\n"
    "          Put each latency histogram in the JSON report, whole (HdrHistogram's base64 encoding), so that "
    "shb merge can add reports together; --shard always does\n"
    "      --hdr-log <FILE>\n"
    "          Also write the measured latencies to FILE as an HdrHistogram interval log: one exact histogram a "
    "second, in nanoseconds, for HdrHistogram's tools (HistogramLogProcessor -tag latency)\n"
    "      --html <FILE>\n"
    "          Also write an HTML page of the run to FILE (created or truncated, after the report): settings, "
    "figures and charts (requests and errors per second, latency over time, percentile spectrum, phases, status "
    "codes, error kinds), self-contained; several URLs share one page\n"
    "      --log <FILE>\n"
    "          Also write one line per request to FILE (created or truncated): start time, latency, time to first "
    "byte, status, error kind, bytes received, connection, stream, target, thread, warm-up. Lines of different "
    "threads interleave by buffer: sort -n orders them by start time\n"
    "      --log-format <FORMAT>\n"
    "          --log's format: tsv and csv (a header line first) or jsonl (a JSON object a line) [default: tsv]\n"
    "      --fail-if <EXPR>\n"
    "          Exit with status 3 when EXPR is true of the report, e.g. 'p99>250ms', 'errors>1%', 'rps<5000', "
    "'timeout>0' (repeatable; pN, min, mean, max, rps, errors, non2xx, ok or an error kind; > >= < <=). The "
    "report says which held\n"
    "      --tls-max <VERSION>\n"
    "          The highest TLS version to offer (1.2 or 1.3; as curl): 1.2 starts every handshake with TLS "
    "1.2 [default: 1.3]\n"
    "      --tlsv1.2\n"
    "          Use TLS 1.2 or later (as curl; the default: TLS 1.3, or 1.2 for a server that refuses 1.3)\n"
    "      --tlsv1.3\n"
    "          Use TLS 1.3 or later (as curl): a server that offers only TLS 1.2 fails every request, its "
    "alert named\n"
    "      --tls13-ciphers <LIST>\n"
    "          The TLS 1.3 cipher suites to offer, colon-separated, in order of preference (e.g. "
    "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256; also HTTP/3)\n"
    "      --ciphers <LIST>\n"
    "          The TLS 1.2 cipher suites to offer, colon-separated OpenSSL names, in order of preference "
    "(e.g. ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305)\n"
    "      --curves <LIST>\n"
    "          The key exchange groups to offer, colon-separated: x25519, P-256, P-384 (the first gets TLS "
    "1.3's key share)\n"
    "      --tls-resume\n"
    "          Resume TLS sessions: after its first full handshake, each connection slot reconnects with the "
    "server's newest session ticket (TLS 1.3 PSK with (EC)DHE; also HTTP/3); the report counts full and "
    "resumed handshakes\n"
    "      --early-data\n"
    "          Send each resumed connection's first requests as TLS 1.3 0-RTT early data where the server's ticket "
    "allows it (implies --tls-resume; GET and HEAD only; HTTP/1.1, HTTP/2, and HTTP/3 in QUIC 0-RTT packets); the "
    "report counts requests sent early, accepted, and resent after a rejection\n"
    "  -k, --insecure\n"
    "          Do not verify the server's certificate (the default; as curl, it also wins over --cacert)\n"
    "      --cacert <FILE>\n"
    "          Verify every https server's chain and name against these CA certificates (PEM, one or more); a "
    "failed verification is a tls handshake error\n"
    "      --http2\n"
    "          Use HTTP/2 (prior knowledge on http://, ALPN \"h2\" on https://)\n"
    "      --http3\n"
    "          Use HTTP/3 over QUIC (https:// URLs only)\n"
    "  -w, --window-bits <N>\n"
    "          HTTP/2: each stream's receive window is 2^N - 1 bytes (SETTINGS_INITIAL_WINDOW_SIZE; N 0-30, "
    "as h2load) [default: 24]\n"
    "  -W, --connection-window-bits <N>\n"
    "          HTTP/2: the connection's receive window is 2^N - 1 bytes (N 0-30, as h2load; below 16 shb "
    "holds back credit until the server is under it) [default: 30]\n"
    "      --max-frame-size <BYTES>\n"
    "          HTTP/2: the largest frame the server may send us (SETTINGS_MAX_FRAME_SIZE, 16384 to 16777215; "
    "16k, 1M: k is 1024) [default: 16384]\n"
    "      --header-table-size <BYTES>\n"
    "          HTTP/2: the HPACK dynamic table the server may use for response headers "
    "(SETTINGS_HEADER_TABLE_SIZE, 0 to 4096; 4k is 4096). 0 asks it to index nothing [default: 0]\n"
    "      --max-stream-data <BYTES>\n"
    "          HTTP/3: each stream's receive window (QUIC initial_max_stream_data; 1k to 1G, k is 1024; "
    "default: --max-data's default)\n"
    "      --max-data <BYTES>\n"
    "          HTTP/3: the connection's receive window (QUIC initial_max_data; 1k to 1G, k is 1024; default: "
    "4k per -p stream, 64k to 1M). Each connection reserves about 1.5 bytes per byte of it\n"
    "      --cert <FILE>\n"
    "          Client certificate (PEM; a chain, leaf first) for servers that ask for one (mutual TLS); EC "
    "P-256/P-384 or RSA 2048-4096 key, read from --key or else from this file\n"
    "      --key <FILE>\n"
    "          Private key of --cert (PEM, unencrypted: PKCS#8, EC or RSA)\n"
    "      --unix-socket <PATH>\n"
    "          Connect to this unix domain socket instead of the URL's host and port, which still give the "
    "Host header and the path (http:// only: HTTP/1.1, or HTTP/2 with --http2)\n"
    "      --bind <ADDR>\n"
    "          Source addresses, IPv4 or IPv6, comma-separated (e.g. 127.0.0.2,127.0.0.3): connections take "
    "them in turn, and each address brings its own local ports\n"
    "      --connect-to <HOST1:PORT1:HOST2:PORT2>\n"
    "          Connect to HOST2:PORT2 instead of a URL's HOST1:PORT1, as curl: Host, :authority and SNI stay "
    "the URL's (repeatable; the first that matches wins; an empty HOST1 or PORT1 matches any, an empty HOST2 "
    "or PORT2 keeps the URL's; IPv6 in brackets)\n"
    "      --resolve <HOST:PORT:ADDR[,ADDR...]>\n"
    "          Use these addresses for HOST:PORT instead of asking DNS, as curl (repeatable; * as HOST is any "
    "host; after --connect-to, it applies to the host connected to)\n"
    "  -4, --ipv4\n"
    "          Resolve names to IPv4 addresses only\n"
    "  -6, --ipv6\n"
    "          Resolve names to IPv6 addresses only\n"
    "      --disable-keepalive\n"
    "          Close the connection after every response instead of reusing it (sends \"Connection: close\"; "
    "HTTP/1.1 only)\n"
    "      --no-progress\n"
    "          No live view on stderr while the run goes (it is only shown when stderr is a terminal)\n"
    "  -p, --parallel <PARALLEL>\n"
    "          Number of concurrent streams per connection (HTTP/2 and HTTP/3) [default: 1]\n"
    "  -h, --help\n"
    "          Print help\n"
    "  -V, --version\n"
    "          Print version\n";

static char *capture_help(unsigned threads)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cli_print_help(f, threads);
    fclose(f);
    return buf;
}

/* Runs cli_parse and returns what it wrote to out. */
static char *capture_parse(const char *const *args, enum cli_result *r)
{
    char *argv[MAX_ARGS + 1], *buf = NULL;
    int argc = 0;
    size_t len = 0;
    argv[argc++] = (char *)"shb";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    FILE *f = open_memstream(&buf, &len);
    struct shb_opts o;
    *r = cli_parse(argc, argv, &o, 16, f, err, sizeof err);
    fclose(f);
    cli_free(&o);
    return buf;
}

static void test_help(void)
{
    char *h = capture_help(16);
    T_CHECK("help: the usage lines, the subcommands and every option, exactly", strcmp(h, expected_help) == 0, "got:\n%s", h);
    free(h);

    h = capture_help(DEFAULT_THREADS);
    T_CHECK("help: shows default_threads", strstr(h, "Number of worker threads [default: 7]\n") != NULL, "%s", h);
    T_CHECK("help: usage line", strstr(h, "Usage: shb [OPTIONS] <URL>...\n") != NULL, "%s", h);
    T_CHECK("help: every option listed",
            strstr(h, "-c, --connections") && strstr(h, "-n, --requests") && strstr(h, "-z, --duration") &&
                strstr(h, "-m, --method") && strstr(h, "-H, --header") && strstr(h, "-d, --data") &&
                strstr(h, "--connect-timeout") && strstr(h, "--timeout <TIMEOUT>") && strstr(h, "-t, --threads") && strstr(h, "-j, --json") &&
                strstr(h, "--http2") && strstr(h, "--http3") && strstr(h, "--disable-keepalive") &&
                strstr(h, "-p, --parallel") && strstr(h, "-h, --help") && strstr(h, "-V, --version"),
            "%s", h);
    free(h);

    const char *const *cases[] = {
        (const char *const[]){"-h", NULL},
        (const char *const[]){"--help", NULL},
        (const char *const[]){"-c", "10", URL, "--help", NULL},
        (const char *const[]){"--bogus", "-c", "0", "-h", NULL}, /* help wins over errors */
        (const char *const[]){"-jh", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum cli_result r;
        char *out = capture_parse(cases[i], &r);
        char name[64];
        snprintf(name, sizeof name, "help: CLI_HELP case %zu writes the help", i);
        T_CHECK(name, r == CLI_HELP && out && strcmp(out, expected_help) == 0, "r=%d err=%s", r, err);
        free(out);
    }
    enum cli_result r;
    char *out = capture_parse((const char *const[]){"-H", "-h: x", URL, NULL}, &r);
    T_CHECK("help: '-h' as an option's value is not help", r == CLI_OK && out && out[0] == '\0', "r=%d err=%s",
            r, err);
    free(out);
}

/* -------------------------------------------------------------- version */

static void test_version(void)
{
    const char *const *cases[] = {
        (const char *const[]){"-V", NULL},
        (const char *const[]){"--version", NULL},
        (const char *const[]){"-c", "10", URL, "-V", NULL},
        (const char *const[]){"--bogus", "-c", "0", "--version", NULL}, /* version wins over errors */
        (const char *const[]){"-jV", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        enum cli_result r;
        char *out = capture_parse(cases[i], &r);
        char name[64];
        snprintf(name, sizeof name, "version: case %zu is CLI_VERSION, nothing printed", i);
        T_CHECK(name, r == CLI_VERSION && out && out[0] == '\0' && err[0] == '\0', "r=%d err=%s", r, err);
        free(out);
    }
    enum cli_result r;
    char *out = capture_parse((const char *const[]){"-V", "-h", NULL}, &r);
    T_CHECK("version: -h wins over -V", r == CLI_HELP && out && strcmp(out, expected_help) == 0, "r=%d", r);
    free(out);
    out = capture_parse((const char *const[]){"--version=1", NULL}, &r);
    T_CHECK("version: --version=1 refused", r == CLI_ERROR && strstr(err, "does not take a value"), "r=%d err=%s", r,
            err);
    free(out);
}

/* ------------------------------------------- --connect-to, --resolve, -4, -6 */

/* Whether a (an AF_INET or AF_INET6 sockaddr) is the address text. */
static bool addr_is(const struct sockaddr_storage *a, int family, const char *text)
{
    char buf[INET6_ADDRSTRLEN] = "";
    const void *ip = family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
                                        : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
    return a->ss_family == family && inet_ntop(family, ip, buf, sizeof buf) && strcmp(buf, text) == 0;
}

static void test_connect_to_parse(void)
{
    struct connect_to c;
    char why[256];
    int rc = connect_to_parse("example.com:443:127.0.0.1:8443", &c, why, sizeof why);
    T_CHECK("connect-to: all four fields", rc == 0 && strcmp(c.from_host, "example.com") == 0 && c.from_port == 443 &&
                                               strcmp(c.to_host, "127.0.0.1") == 0 && c.to_port == 8443,
            "rc=%d why=%s", rc, why);
    rc = connect_to_parse("::backend:", &c, why, sizeof why);
    T_CHECK("connect-to: empty HOST1, PORT1 and PORT2", rc == 0 && !c.from_host[0] && !c.from_port &&
                                                           strcmp(c.to_host, "backend") == 0 && !c.to_port,
            "rc=%d why=%s", rc, why);
    rc = connect_to_parse("a:1:b", &c, why, sizeof why);
    T_CHECK("connect-to: PORT2 left out (curl takes it)", rc == 0 && strcmp(c.to_host, "b") == 0 && !c.to_port,
            "rc=%d why=%s", rc, why);
    rc = connect_to_parse("[::1]:80:[fd00::2]:8080", &c, why, sizeof why);
    T_CHECK("connect-to: IPv6 in brackets, kept without them",
            rc == 0 && strcmp(c.from_host, "::1") == 0 && c.from_port == 80 && strcmp(c.to_host, "fd00::2") == 0 &&
                c.to_port == 8080,
            "rc=%d why=%s", rc, why);
    rc = connect_to_parse(":::", &c, why, sizeof why);
    T_CHECK("connect-to: ':::' (all empty) changes nothing", rc == 0 && !c.from_host[0] && !c.to_host[0] &&
                                                              !c.from_port && !c.to_port, "rc=%d why=%s", rc, why);
    static const struct {
        const char *in, *why;
    } bad[] = {
        {"", "expected HOST1:PORT1:HOST2:PORT2"},
        {"example.com", "expected HOST1:PORT1:HOST2:PORT2"},
        {"a:1", "expected HOST1:PORT1:HOST2:PORT2"},
        {"a:0:b:1", "PORT1 '0' is out of range (1-65535)"},
        {"a:65536:b:1", "PORT1 '65536' is out of range"},
        {"a:99999999999999999999:b:1", "is out of range"},
        {"a:1:b:-1", "PORT2 '-1' is not a number"},
        {"a:x:b:1", "PORT1 'x' is not a number"},
        {"a:1:b:2:3", "unexpected ':3' after PORT2"},
        {"::1:443:x:1", "unexpected"},
        {"a b:1:c:2", "HOST1 'a b' has a character a host name cannot have"},
        {"[::1:1:b:2", "unclosed '[' in HOST1"},
        {"[]:1:b:2", "HOST1 '' is not an IPv6 address"},
        {"[1.2.3.4]:1:b:2", "HOST1 '1.2.3.4' is not an IPv6 address"},
        {"a:1:[::1]x:2", "expected HOST1:PORT1:HOST2:PORT2"},
    };
    bool all = true;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        rc = connect_to_parse(bad[i].in, &c, why, sizeof why);
        all &= T_QUIET("connect-to: malformed refused, saying why", rc == -1 && strstr(why, bad[i].why),
                       "'%s': rc=%d why=%s", bad[i].in, rc, why);
    }
    T_CHECK("connect-to: every malformed entry refused with its reason", all, "see above");
    char longname[300];
    memset(longname, 'a', sizeof longname);
    memcpy(longname + 260, ":1:b:2", 7);
    rc = connect_to_parse(longname, &c, why, sizeof why);
    T_CHECK("connect-to: a host longer than 253 refused", rc == -1 && strstr(why, "longer than a host name"),
            "rc=%d why=%s", rc, why);

    /* Matching: the first entry that matches wins; host without regard to case. */
    struct connect_to list[3];
    connect_to_parse("nomatch:443:x:1", &list[0], why, sizeof why);
    connect_to_parse("EXAMPLE.com::y:", &list[1], why, sizeof why);
    connect_to_parse(":443:z:2", &list[2], why, sizeof why);
    T_CHECK("connect-to match: host, any port", connect_to_match(list, 3, "example.COM", 8080) == &list[1], "%p",
            (void *)connect_to_match(list, 3, "example.COM", 8080));
    T_CHECK("connect-to match: the first that matches wins", connect_to_match(list, 3, "example.com", 443) == &list[1],
            "no");
    T_CHECK("connect-to match: any host, that port", connect_to_match(list, 3, "other", 443) == &list[2], "no");
    T_CHECK("connect-to match: none", connect_to_match(list, 3, "other", 80) == NULL, "no");
}

static void test_resolve_parse(void)
{
    struct resolve_entry e;
    char why[256];
    int rc = resolve_parse("example.com:443:127.0.0.1", &e, why, sizeof why);
    T_CHECK("resolve: one address", rc == 0 && strcmp(e.host, "example.com") == 0 && e.port == 443 && e.naddrs == 1 &&
                                        addr_is(&e.addrs[0], AF_INET, "127.0.0.1"),
            "rc=%d why=%s", rc, why);
    rc = resolve_parse("*:80:10.0.0.1,[::1],fd00::2", &e, why, sizeof why);
    T_CHECK("resolve: * and three addresses, IPv6 bare and in brackets, in order",
            rc == 0 && strcmp(e.host, "*") == 0 && e.port == 80 && e.naddrs == 3 &&
                addr_is(&e.addrs[0], AF_INET, "10.0.0.1") && addr_is(&e.addrs[1], AF_INET6, "::1") &&
                addr_is(&e.addrs[2], AF_INET6, "fd00::2"),
            "rc=%d why=%s n=%u", rc, why, e.naddrs);
    rc = resolve_parse("[::1]:80:127.0.0.1", &e, why, sizeof why);
    T_CHECK("resolve: an IPv6 HOST in brackets", rc == 0 && strcmp(e.host, "::1") == 0, "rc=%d why=%s", rc, why);
    static const struct {
        const char *in, *why;
    } bad[] = {
        {"", "empty HOST"},
        {":80:1.2.3.4", "empty HOST"},
        {"a", "expected HOST:PORT:ADDR"},
        {"a:80", "expected HOST:PORT:ADDR"},
        {"a::1.2.3.4", "empty PORT"},
        {"a:0:1.2.3.4", "PORT '0' is out of range"},
        {"a:70000:1.2.3.4", "PORT '70000' is out of range"},
        {"a:80:", "empty ADDR"},
        {"a:80:1.2.3.4,", "empty ADDR"},
        {"a:80:,1.2.3.4", "empty ADDR"},
        {"a:80:localhost", "ADDR 'localhost' is not an IPv4 or IPv6 address"},
        {"a:80:1.2.3.256", "ADDR '1.2.3.256' is not"},
        {"a:80:[1.2.3.4", "ADDR '[1.2.3.4' is not"},
        {"**:80:1.2.3.4", "HOST '**' has a character"},
    };
    bool all = true;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        rc = resolve_parse(bad[i].in, &e, why, sizeof why);
        all &= T_QUIET("resolve: malformed refused, saying why", rc == -1 && strstr(why, bad[i].why),
                       "'%s': rc=%d why=%s", bad[i].in, rc, why);
    }
    T_CHECK("resolve: every malformed entry refused with its reason", all, "see above");
    char many[OVERRIDE_ADDRS_MAX * 12 + 32];
    int n = snprintf(many, sizeof many, "a:1:");
    for (unsigned k = 0; k <= OVERRIDE_ADDRS_MAX; k++)
        n += snprintf(many + n, sizeof many - (size_t)n, "%s10.0.0.%u", k ? "," : "", k);
    rc = resolve_parse(many, &e, why, sizeof why);
    T_CHECK("resolve: more than OVERRIDE_ADDRS_MAX addresses refused", rc == -1 && strstr(why, "more than 16"),
            "rc=%d why=%s", rc, why);
    *strrchr(many, ',') = '\0';
    rc = resolve_parse(many, &e, why, sizeof why);
    T_CHECK("resolve: OVERRIDE_ADDRS_MAX addresses taken", rc == 0 && e.naddrs == OVERRIDE_ADDRS_MAX, "rc=%d why=%s",
            rc, why);

    struct resolve_entry list[2];
    resolve_parse("Example.com:443:127.0.0.1", &list[0], why, sizeof why);
    resolve_parse("*:443:127.0.0.2", &list[1], why, sizeof why);
    T_CHECK("resolve match: host without regard to case, port exact",
            resolve_match(list, 2, "example.COM", 443) == &list[0] && resolve_match(list, 2, "example.com", 80) == NULL,
            "no");
    T_CHECK("resolve match: * for any other host", resolve_match(list, 2, "other", 443) == &list[1], "no");

    char text[64];
    override_addr_text((const struct sockaddr *)&list[0].addrs[0], text, sizeof text);
    T_CHECK("addr text: IPv4 with its port", strcmp(text, "127.0.0.1:0") == 0, "%s", text);
    resolve_parse("a:1:::1", &e, why, sizeof why);
    ((struct sockaddr_in6 *)&e.addrs[0])->sin6_port = htons(8443);
    override_addr_text((const struct sockaddr *)&e.addrs[0], text, sizeof text);
    T_CHECK("addr text: IPv6 in brackets", strcmp(text, "[::1]:8443") == 0, "%s", text);
}

static void test_addr_options(void)
{
    struct shb_opts o;
    enum cli_result r = PARSE(&o, URL);
    T_CHECK("addr opts: none by default", r == CLI_OK && !o.nconnect_to && !o.nresolve && o.family == AF_UNSPEC, "r=%d",
            r);
    cli_free(&o);
    r = PARSE(&o, "--connect-to", "a:1:b:2", "--connect-to=::c:", "--resolve", "b:2:127.0.0.1", "--resolve=*:3:::1",
              URL);
    T_CHECK("addr opts: repeatable, kept in order",
            r == CLI_OK && o.nconnect_to == 2 && strcmp(o.connect_to[0].from_host, "a") == 0 &&
                strcmp(o.connect_to[1].to_host, "c") == 0 && o.nresolve == 2 && o.resolve[1].port == 3,
            "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-4", URL);
    T_CHECK("addr opts: -4", r == CLI_OK && o.family == AF_INET, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "--ipv6", "-j", URL);
    T_CHECK("addr opts: --ipv6", r == CLI_OK && o.family == AF_INET6, "r=%d err=%s", r, err);
    cli_free(&o);
    r = PARSE(&o, "-6j", "--bind", "::1", "http://[::1]:8080/");
    T_CHECK("addr opts: -6 in a cluster, --bind IPv6", r == CLI_OK && o.family == AF_INET6 && o.json, "r=%d err=%s", r,
            err);
    cli_free(&o);
    r = PARSE(&o, "--bind", "127.0.0.2", "--connect-to", "[::1]:8080:127.0.0.1:", "http://[::1]:8080/");
    T_CHECK("addr opts: --bind IPv4 with an IPv6 URL that --connect-to sends elsewhere: for preflight to judge",
            r == CLI_OK, "r=%d err=%s", r, err);
    cli_free(&o);

    static const struct {
        const char *a, *b, *why;
    } bad[] = {
        {"-4", "-6", "-4/--ipv4 and -6/--ipv6 are mutually exclusive"},
        {"-6", "--bind=127.0.0.2", "-6/--ipv6 asks for IPv6 addresses, but --bind gives IPv4 ones"},
        {"--ipv4", "--bind=::1", "-4/--ipv4 asks for IPv4 addresses, but --bind gives IPv6 ones"},
        {"--connect-to=a:1:b:2", "--unix-socket=/x.sock", "--connect-to does not apply to --unix-socket"},
        {"--resolve=a:1:1.2.3.4", "--unix-socket=/x.sock", "--resolve does not apply to --unix-socket"},
        {"-4", "--unix-socket=/x.sock", "-4/--ipv4 does not apply to --unix-socket"},
        {"--connect-to=a", "-j", "invalid value 'a' for --connect-to: expected HOST1:PORT1:HOST2:PORT2"},
        {"--resolve=a:1:b", "-j", "invalid value 'a:1:b' for --resolve: ADDR 'b' is not an IPv4 or IPv6 address"},
        {"--connect-to", "a:1:b:2:3", "invalid value 'a:1:b:2:3' for --connect-to: unexpected ':3' after PORT2"},
    };
    bool all = true;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = PARSE(&o, bad[i].a, bad[i].b, URL);
        all &= T_QUIET("addr opts: refused, one line", r == CLI_ERROR && strstr(err, bad[i].why) && !strchr(err, '\n'),
                       "%s %s: r=%d err=%s", bad[i].a, bad[i].b, r, err);
    }
    T_CHECK("addr opts: every misuse refused with its reason", all, "see above");
}

/* ------------------------------------------------------------ the table */

/* Whether a and b are the same run, field by field (every field a default
 * can set). */
static bool same_run(const struct shb_opts *a, const struct shb_opts *b)
{
    return a->connections == b->connections && a->requests == b->requests && a->duration_ns == b->duration_ns &&
           a->parallel == b->parallel && a->threads == b->threads && strcmp(a->method, b->method) == 0 &&
           a->nheaders == b->nheaders && a->has_body == b->has_body &&
           a->connect_timeout_ns == b->connect_timeout_ns && a->timeout_ns == b->timeout_ns &&
           a->warmup_ns == b->warmup_ns && a->rate_from == b->rate_from && a->rate_to == b->rate_to &&
           a->rate_ramp == b->rate_ramp && a->shard_index == b->shard_index && a->shard_count == b->shard_count &&
           a->start_at_ns == b->start_at_ns && a->disable_keepalive == b->disable_keepalive &&
           a->no_progress == b->no_progress && a->http2 == b->http2 && a->http3 == b->http3 && a->json == b->json &&
           memcmp(&a->tls, &b->tls, sizeof a->tls) == 0 && a->h2_window_bits == b->h2_window_bits &&
           a->h2_conn_window_bits == b->h2_conn_window_bits && a->h2_max_frame_size == b->h2_max_frame_size &&
           a->h2_header_table_size == b->h2_header_table_size && a->max_stream_data == b->max_stream_data &&
           a->max_data == b->max_data;
}

static void test_table(void)
{
    const struct cli_option *op;
    size_t n = 0;
    bool names_ok = true, values_ok = true;
    for (size_t i = 0; (op = cli_option(i)); i++, n++) {
        names_ok &= T_QUIET("table: a long name, a help text", op->long_name && *op->long_name && op->help && *op->help,
                            "option %zu", i);
        for (size_t k = 0; k < i; k++) {
            const struct cli_option *q = cli_option(k);
            names_ok &= T_QUIET("table: names unique", strcmp(q->long_name, op->long_name) != 0 &&
                                                          (!op->short_name || q->short_name != op->short_name),
                                "--%s and --%s", q->long_name, op->long_name);
        }
        values_ok &= T_QUIET("table: a default, completion or repeat only for a value",
                             op->value_name || (!op->default_text && !op->default_cores && !op->repeatable &&
                                                op->complete == CLI_COMPLETE_NONE),
                             "--%s", op->long_name);
        values_ok &= T_QUIET("table: word completion has words", (op->complete == CLI_COMPLETE_WORDS) == !!op->words,
                             "--%s", op->long_name);
        char sum[200];
        cli_help_summary(op->help, sum, sizeof sum);
        values_ok &= T_QUIET("table: summary neither empty nor longer than the help",
                             *sum && strlen(sum) <= strlen(op->help) && sum[strlen(sum) - 1] != ' ', "--%s: '%s'",
                             op->long_name, sum);
    }
    T_CHECK("table: names well formed and unique", names_ok && n >= 20, "%zu options", n);
    T_CHECK("table: value fields only on value options", values_ok, "see above");

    /* Every default -h shows is the one the parser applies: giving it
     * explicitly changes nothing (with --http2, since -p needs it). */
    bool defaults_ok = true;
    size_t ndefaults = 0;
    struct shb_opts base;
    enum cli_result r = PARSE(&base, "--http2", URL);
    T_CHECK("table: defaults parse", r == CLI_OK, "r=%d err=%s", r, err);
    for (size_t i = 0; (op = cli_option(i)); i++) {
        if (!op->default_text && !op->default_cores)
            continue;
        char arg[128];
        if (op->default_cores)
            snprintf(arg, sizeof arg, "--%s=%u", op->long_name, DEFAULT_THREADS);
        else
            snprintf(arg, sizeof arg, "--%s=%s", op->long_name, op->default_text);
        struct shb_opts o;
        r = PARSE(&o, "--http2", arg, URL);
        defaults_ok &= T_QUIET("table: the default shown is the default applied", r == CLI_OK && same_run(&o, &base),
                               "%s: r=%d err=%s", arg, r, err);
        if (r == CLI_OK)
            cli_free(&o);
        ndefaults++;
    }
    cli_free(&base);
    T_CHECK("table: every default shown is the one applied", defaults_ok && ndefaults >= 6, "%zu defaults",
            ndefaults);

    /* A value that is not the default does change the run: same_run can fail. */
    struct shb_opts a, b;
    PARSE(&a, "--http2", URL);
    PARSE(&b, "--http2", "--connections=49", URL);
    T_CHECK("table: same_run sees a change", !same_run(&a, &b), "same");
    cli_free(&a);
    cli_free(&b);

    char sum[64];
    cli_help_summary("HTTP method (defaults to GET, or POST when -d is given, like curl)", sum, sizeof sum);
    T_CHECK("summary: an aside dropped", strcmp(sum, "HTTP method") == 0, "'%s'", sum);
    cli_help_summary("Run shard I (from 0) of N: this process's share (a (nested) aside)", sum, sizeof sum);
    T_CHECK("summary: asides inside, cut at ': '", strcmp(sum, "Run shard I of N") == 0, "'%s'", sum);
    cli_help_summary("Custom HTTP header (repeatable). Example: x", sum, sizeof sum);
    T_CHECK("summary: cut at '. '", strcmp(sum, "Custom HTTP header") == 0, "'%s'", sum);
    cli_help_summary("Use HTTP/2 (prior knowledge on http://, ALPN \"h2\" on https://)", sum, sizeof sum);
    T_CHECK("summary: a ':' inside a URL is not a cut", strcmp(sum, "Use HTTP/2") == 0, "'%s'", sum);
    cli_help_summary("A help text much longer than the buffer it is cut into", sum, 8);
    T_CHECK("summary: bounded by the buffer", strcmp(sum, "A help") == 0, "'%s'", sum);

    const struct cli_subcommand *sc;
    size_t nsub = 0;
    for (size_t i = 0; (sc = cli_subcommand(i)); i++, nsub++)
        T_QUIET("subcommands: described", sc->name && sc->synopsis && sc->help && sc->operand &&
                                              strstr(sc->synopsis, sc->operand),
                "subcommand %zu", i);
    T_CHECK("subcommands: merge and completions", nsub >= 2 && cli_subcommand(nsub) == NULL, "%zu", nsub);
}

/* ---------------------------------------------------------- completions */

static char *capture_completions(const char *shell, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *rc = completions_write(f, shell);
    fclose(f);
    return buf;
}

static void test_completions(void)
{
    const struct cli_subcommand *sc = NULL;
    for (size_t i = 0; (sc = cli_subcommand(i)); i++)
        if (strcmp(sc->name, "completions") == 0)
            break;
    T_CHECK("completions: described as a subcommand with its shells",
            sc && sc->complete == CLI_COMPLETE_WORDS && sc->words, "missing");
    if (!sc)
        return;
    /* Every shell the man page and completions offer is one it writes. */
    char words[64];
    snprintf(words, sizeof words, "%s", sc->words);
    size_t nshells = 0;
    for (char *save, *sh = strtok_r(words, " ", &save); sh; sh = strtok_r(NULL, " ", &save), nshells++) {
        int rc;
        char *out = capture_completions(sh, &rc);
        bool all = rc == 0 && out && strstr(out, "shb");
        const struct cli_option *op;
        for (size_t i = 0; all && (op = cli_option(i)); i++) {
            char name[64];
            /* fish spells long options "-l name"; bash and zsh "--name". */
            snprintf(name, sizeof name, strcmp(sh, "fish") == 0 ? "-l %s " : "--%s", op->long_name);
            all = T_QUIET("completions: every option in every script", strstr(out, name) != NULL, "%s: %s", sh,
                          name);
        }
        char name[64];
        snprintf(name, sizeof name, "completions: %s script names every option", sh);
        T_CHECK(name, all, "rc=%d", rc);
        free(out);
    }
    T_CHECK("completions: bash, zsh and fish", nshells == 3, "%zu", nshells);
    int rc;
    char *out = capture_completions("tcsh", &rc);
    T_CHECK("completions: an unknown shell is refused, nothing written", rc == -1 && out && out[0] == '\0', "rc=%d",
            rc);
    free(out);
}

/* ---------------------------------------------------------------- cores */

static void test_cores(void)
{
    unsigned cores = cli_physical_cores();
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    T_CHECK("cores: at least 1", cores >= 1, "%u", cores);
    T_CHECK("cores: no more than configured CPUs", conf <= 0 || cores <= (unsigned long)conf, "cores=%u conf=%ld",
            cores, conf);
    T_CHECK("cores: stable across calls", cli_physical_cores() == cores, "changed");
}

int main(void)
{
    devnull = fopen("/dev/null", "w");
    test_defaults();
    test_value_forms();
    test_warmup();
    test_rate();
    test_shard_start_at();
    test_hdr_log();
    test_log();
    test_connection();
    test_connect_to_parse();
    test_resolve_parse();
    test_addr_options();
    test_string_forms();
    test_flags();
    test_tls();
    test_knobs();
    test_method_default();
    test_headers();
    test_request_refusals();
    test_inline_body();
    test_file_body();
    test_stdin_body();
    test_misuse();
    test_targets();
    test_durations();
    test_urls();
    test_help();
    test_version();
    test_table();
    test_completions();
    test_cores();
    fclose(devnull);
    T_DONE();
}
