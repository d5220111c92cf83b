/* test/unit/unit_proxy.c — the HTTP proxy's pieces: the proxy URL
 * (cli/proxy.c), which proxy the environment names and the no-proxy list
 * (curl's rules), a target's proxy and its credentials, the CONNECT
 * request's bytes and the reply parser (proxy.c, fed every way: feed.h),
 * and the absolute-form HTTP/1.1 request with Proxy-Authorization
 * (request.c, h1.c). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/proxy.h"
#include "feed.h"
#include "h1.h"
#include "proxy.h"
#include "t.h"

/* ---- a fake environment ---------------------------------------------------- */

static const char *const *fake_env; /* "NAME=value" strings, NULL-terminated */

static char *fake_getenv(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; fake_env && fake_env[i]; i++)
        if (strncmp(fake_env[i], name, n) == 0 && fake_env[i][n] == '=')
            return (char *)(fake_env[i] + n + 1);
    return NULL;
}

/* ---- the proxy URL ------------------------------------------------------------ */

static void test_url(void)
{
    static const struct {
        const char *in, *host;
        unsigned port;
        bool ipv6;
        const char *user, *password;
    } ok[] = {
        {"http://127.0.0.1:3128", "127.0.0.1", 3128, false, NULL, NULL},
        {"http://proxy.example", "proxy.example", 1080, false, NULL, NULL},
        {"proxy.example:8080", "proxy.example", 8080, false, NULL, NULL},
        {"proxy.example", "proxy.example", 1080, false, NULL, NULL},
        {"HTTP://p:80/", "p", 80, false, NULL, NULL},
        {"http://[::1]:3128/", "::1", 3128, true, NULL, NULL},
        {"http://[::1]", "::1", 1080, true, NULL, NULL},
        {"http://u:p%40ss@p:1", "p", 1, false, "u", "p@ss"},
        {"http://u@p", "p", 1080, false, "u", NULL},
        {"u:pw@p:3128", "p", 3128, false, "u", "pw"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct shb_url u;
        char err[256] = "", name[128];
        int rc = proxy_parse_url(ok[i].in, &u, err, sizeof err);
        snprintf(name, sizeof name, "proxy URL '%s'", ok[i].in);
        T_CHECK(name,
                rc == 0 && strcmp(u.host, ok[i].host) == 0 && u.port == ok[i].port && u.host_is_ipv6 == ok[i].ipv6 &&
                    u.cred.has_user == (ok[i].user != NULL) && (!ok[i].user || strcmp(u.cred.user, ok[i].user) == 0) &&
                    u.cred.has_password == (ok[i].password != NULL) &&
                    (!ok[i].password || strcmp(u.cred.password, ok[i].password) == 0),
                "rc %d err '%s' host '%s' port %u", rc, err, rc == 0 ? u.host : "", rc == 0 ? u.port : 0);
        if (rc == 0)
            free(u.target);
    }
    static const struct {
        const char *in, *why;
    } bad[] = {
        {"https://p:3128", "unsupported proxy scheme 'https': only http:// proxies"},
        {"socks5://u:secret@p:1080", "unsupported proxy scheme 'socks5': only http:// proxies"},
        {"http://u:secret@p:99999", "invalid URL 'http://u:***@p:99999': port '99999' out of range"},
        {"http://:3128", "empty host"},
        {"u:secret@p:x", "invalid URL 'http://u:***@p:x': bad port"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct shb_url u;
        char err[256] = "", name[128];
        int rc = proxy_parse_url(bad[i].in, &u, err, sizeof err);
        snprintf(name, sizeof name, "proxy URL '%s' refused", bad[i].in);
        T_CHECK(name, rc == -1 && strstr(err, bad[i].why) && !strstr(err, "secret") && !strchr(err, '\n'),
                "rc %d err '%s'", rc, err);
    }
}

/* ---- the environment and the no-proxy list ------------------------------------ */

static void test_env(void)
{
    const char *name = NULL;
    static const char *const e1[] = { "http_proxy=h1", "HTTP_PROXY=H1", "https_proxy=", "HTTPS_PROXY=S1",
                                      "ALL_PROXY=A1", NULL };
    fake_env = e1;
    const char *s = proxy_from_env(true, fake_getenv, &name);
    T_CHECK("env: https:// takes HTTPS_PROXY when https_proxy is empty", s && strcmp(s, "S1") == 0 &&
            strcmp(name, "HTTPS_PROXY") == 0, "'%s' from %s", s ? s : "(null)", name ? name : "-");
    s = proxy_from_env(false, fake_getenv, &name);
    T_CHECK("env: http:// takes http_proxy", s && strcmp(s, "h1") == 0, "'%s'", s ? s : "(null)");
    static const char *const e2[] = { "HTTP_PROXY=H1", "all_proxy=a1", "ALL_PROXY=A1", NULL };
    fake_env = e2;
    s = proxy_from_env(false, fake_getenv, &name);
    T_CHECK("env: HTTP_PROXY is never used (curl's CGI rule): all_proxy is", s && strcmp(s, "a1") == 0 &&
            strcmp(name, "all_proxy") == 0, "'%s'", s ? s : "(null)");
    static const char *const e3[] = { "HTTP_PROXY=H1", NULL };
    fake_env = e3;
    T_CHECK("env: nothing for http:// with HTTP_PROXY alone", proxy_from_env(false, fake_getenv, NULL) == NULL, "set");
    static const char *const e4[] = { "https_proxy=s1", "HTTPS_PROXY=S1", "no_proxy=a", "NO_PROXY=b", NULL };
    fake_env = e4;
    s = proxy_from_env(true, fake_getenv, NULL);
    T_CHECK("env: https_proxy before HTTPS_PROXY", s && strcmp(s, "s1") == 0, "'%s'", s ? s : "(null)");
    s = proxy_noproxy_list(NULL, fake_getenv);
    T_CHECK("env: no_proxy before NO_PROXY", s && strcmp(s, "a") == 0, "'%s'", s ? s : "(null)");
    s = proxy_noproxy_list("c", fake_getenv);
    T_CHECK("env: --noproxy overrides both", s && strcmp(s, "c") == 0, "'%s'", s ? s : "(null)");
    fake_env = NULL;

    static const struct {
        const char *list, *host;
        bool match;
    } m[] = {
        {"*", "anything.example", true},
        {"example.com", "example.com", true},
        {"example.com", "a.b.example.com", true},
        {".example.com", "a.example.com", true},
        {".example.com", "example.com", true},
        {"example.com", "badexample.com", false},
        {"example.com", "example.com.evil", false},
        {"EXAMPLE.com", "www.Example.COM", true},
        {"example.com", "example.com.", true},
        {" a.test , 127.0.0.1 ", "127.0.0.1", true},
        {"a.test,,b.test", "b.test", true},
        {"127.0.0.1", "127.0.0.10", false},
        {"[::1]", "::1", true},
        {"::1", "::1", true},
        {"*.example.com", "a.example.com", false}, /* "*" only alone, as curl */
        {"", "a", false},
        {"a,*", "z", true},
        /* IP entries and CIDR blocks (curl 7.86+): an IP host against them only */
        {"192.168.0.0/16", "192.168.45.3", true},
        {"192.168.0.0/16", "192.169.0.1", false},
        {"10.0.0.0/8", "127.0.0.1", false},
        {"127.0.0.0/8", "127.0.0.1", true},
        {"10.1.2.3", "10.1.2.3", true},
        {"10.1.2.3", "10.1.2.4", false},
        {"10.1.2.3/32", "10.1.2.3", true},
        {"172.16.0.0/12", "172.31.255.255", true},
        {"172.16.0.0/12", "172.32.0.0", false},
        {"10.1.2.128/25", "10.1.2.200", true},
        {"10.1.2.128/25", "10.1.2.127", false},
        {"0.0.0.0/0", "1.2.3.4", false}, /* "/0" is the whole address, as curl */
        {"10.0.0.0/33", "10.0.0.1", false},
        {"10.0.0.0/x", "10.0.0.1", false},
        {"10.0.0.0/", "10.0.0.1", false},
        {"0.0.1", "127.0.0.1", false},  /* no suffix matching of addresses */
        {"127.0.0.1", "127.0.0.1.example", false},
        {"10.0.0.0/8", "ten.example", false},
        {"fd00::/8", "fd12:3456::1", true},
        {"fd00::/8", "fe80::1", false},
        {"[fd00::]/8", "fd12::1", false}, /* brackets around the whole entry only */
        {"[fd00::/8]", "fd12::1", true},
        {"2001:db8::/33", "2001:db8:7fff::1", true},
        {"2001:db8::/33", "2001:db8:8000::1", false},
        {"::1/128", "::1", true},
        {"::/129", "::1", false},
        {"::1", "127.0.0.1", false},     /* another family */
        {"127.0.0.0/8", "::1", false},
        {" example.com , 10.0.0.0/8 ", "10.200.0.1", true},
        {"*", "10.0.0.1", true},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        char name2[128];
        snprintf(name2, sizeof name2, "noproxy '%s' %s '%s'", m[i].list, m[i].match ? "matches" : "does not match",
                 m[i].host);
        T_CHECK(name2, proxy_noproxy_match(m[i].list, m[i].host) == m[i].match, "wrong");
    }
}

/* ---- a target's proxy ------------------------------------------------------------ */

/* cli_parse of argv (the process's environment has no proxy variables:
 * main unsets them). */
static enum cli_result parse(struct shb_opts *o, char *err, size_t errlen, int argc, const char *const *argv)
{
    return cli_parse(argc, (char **)argv, o, 1, NULL, err, errlen);
}

static void test_target(void)
{
    struct shb_opts o;
    char err[512];
    const char *a1[] = { "shb", "-x", "http://u:pw@127.0.0.1:3128", "https://example.com/", "http://example.com/" };
    enum cli_result r = parse(&o, err, sizeof err, 5, a1);
    T_CHECK("-x: both targets through it; https:// tunnels, http:// does not",
            r == CLI_OK && o.targets[0].proxy && o.targets[0].proxy->tunnel && o.targets[1].proxy &&
                !o.targets[1].proxy->tunnel && o.targets[0].proxy->url.port == 3128 &&
                strcmp(o.targets[0].proxy->url_text, "http://u:***@127.0.0.1:3128") == 0 &&
                strcmp(o.targets[0].proxy->authorization, "Basic dTpwdw==") == 0,
            "r %d err '%s'", r, err);
    if (r == CLI_OK) {
        struct shb_request q0 = cli_request(&o, &o.targets[0]), q1 = cli_request(&o, &o.targets[1]);
        T_CHECK("-x: the tunnelled request is origin-form; the other absolute-form with Proxy-Authorization",
                !q0.absolute_form && !q0.proxy_authorization && q1.absolute_form &&
                    strcmp(q1.proxy_authorization, "Basic dTpwdw==") == 0,
                "wrong");
        cli_free(&o);
    }
    const char *a2[] = { "shb", "--http2", "--proxy-user", "v:x", "-x", "p", "http://example.com/" };
    r = parse(&o, err, sizeof err, 7, a2);
    T_CHECK("--proxy-user over the URL's; h2c tunnels; port 1080 by default",
            r == CLI_OK && o.targets[0].proxy->tunnel && o.targets[0].proxy->url.port == 1080 &&
                strcmp(o.targets[0].proxy->authorization, "Basic djp4") == 0,
            "r %d err '%s'", r, err);
    if (r == CLI_OK)
        cli_free(&o);
    const char *a3[] = { "shb", "--noproxy", "example.com", "-x", "p", "http://www.example.com/", "http://other/" };
    r = parse(&o, err, sizeof err, 7, a3);
    T_CHECK("--noproxy: the listed domain goes direct, the other through",
            r == CLI_OK && !o.targets[0].proxy && o.targets[1].proxy, "r %d err '%s'", r, err);
    if (r == CLI_OK)
        cli_free(&o);
    const char *a5[] = { "shb", "--bind", "127.0.0.2", "-x", "127.0.0.1:3128", "http://[::1]/" };
    r = parse(&o, err, sizeof err, 6, a5);
    T_CHECK("--bind's family is checked against the proxy's address, not the target's", r == CLI_OK,
            "r %d err '%s'", r, err);
    if (r == CLI_OK)
        cli_free(&o);
    const char *a6[] = { "shb", "--bind", "127.0.0.2", "-x", "[::1]:3128", "http://127.0.0.1/" };
    r = parse(&o, err, sizeof err, 6, a6);
    T_CHECK("--bind IPv4 with an IPv6 proxy: refused naming the proxy", r == CLI_ERROR &&
            strstr(err, "the proxy ::1 is an IPv6 address"), "r %d err '%s'", r, err);
    const char *a4[] = { "shb", "-x", "", "http://example.com/" };
    r = parse(&o, err, sizeof err, 4, a4);
    T_CHECK("-x '': direct", r == CLI_OK && !o.targets[0].proxy, "r %d err '%s'", r, err);
    if (r == CLI_OK)
        cli_free(&o);
    static const struct {
        int argc;
        const char *argv[8];
        const char *why;
    } bad[] = {
        {5, {"shb", "--http3", "-x", "p", "https://a/"}, "-x/--proxy: HTTP/3 does not go through an HTTP proxy"},
        {6, {"shb", "--unix-socket", "/s", "-x", "p", "http://a/"}, "-x/--proxy does not apply to --unix-socket"},
        {6, {"shb", "--proxy-user", "u", "-x", "p", "http://a/"}, "--proxy-user u has no password"},
        {4, {"shb", "-x", "ftp://p", "http://a/"}, "-x/--proxy: unsupported proxy scheme 'ftp'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = bad[i].argc;
        char name[128];
        r = parse(&o, err, sizeof err, argc, bad[i].argv);
        snprintf(name, sizeof name, "refused: %s %s", bad[i].argv[1], bad[i].argv[2]);
        T_CHECK(name, r == CLI_ERROR && strstr(err, bad[i].why) && !strchr(err, '\n'),
                "r %d err '%s'", r, err);
        if (r == CLI_OK)
            cli_free(&o);
    }
}

static void test_hide(void)
{
    char a0[] = "shb", a1[] = "-x", a2[] = "u:pw@p:3128", a3[] = "--proxy=http://v:qq@p", a4[] = "--proxy",
         a5[] = "w:rr@p", a6[] = "--proxy-user", a7[] = "x:ss", a8[] = "--proxy-user=y:tt", a9[] = "-jxz:uu@p",
         a10[] = "-H", a11[] = "a:b@c";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11};
    cli_hide_secrets(12, argv);
    T_CHECK("hide: -x's password, with or without http://, --proxy=, --proxy-user's, a cluster's -x; -H untouched",
            strcmp(a2, "u:**@p:3128") == 0 && strcmp(a3, "--proxy=http://v:**@p") == 0 && strcmp(a5, "w:**@p") == 0 &&
                strcmp(a7, "x:**") == 0 && strcmp(a8, "--proxy-user=y:**") == 0 && strcmp(a9, "-jxz:**@p") == 0 &&
                strcmp(a11, "a:b@c") == 0,
            "%s %s %s %s %s %s %s", a2, a3, a5, a7, a8, a9, a11);
}

/* ---- the CONNECT request -------------------------------------------------------- */

static void test_connect(void)
{
    size_t len = 0;
    uint8_t *b = proxy_connect_request("example.com", false, 443, NULL, &len);
    const char *want = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n";
    T_CHECK("CONNECT: authority-form with the port, Host the same (RFC 9110 §9.3.6)",
            b && len == strlen(want) && memcmp(b, want, len) == 0, "'%.*s'", (int)len, b ? (char *)b : "");
    free(b);
    b = proxy_connect_request("::1", true, 8443, "Basic dTpw", &len);
    want = "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic dTpw\r\n\r\n";
    T_CHECK("CONNECT: an IPv6 host in brackets; Proxy-Authorization (RFC 9110 §11.7.2)",
            b && len == strlen(want) && memcmp(b, want, len) == 0, "'%.*s'", (int)len, b ? (char *)b : "");
    free(b);
}

/* ---- the reply parser ------------------------------------------------------------ */

struct reply_case {
    const char *in;
    enum proxy_reply_rc rc;
    unsigned status;
    const char *reason; /* DONE: the reason; BAD: a part of why */
    char name[96];      /* the input with CR and LF escaped, for the check's name */
};

static bool reply_fed(void *ctx, const uint8_t *b, const struct feed_way *w)
{
    const struct reply_case *c = ctx;
    struct proxy_reply r;
    proxy_reply_init(&r);
    enum proxy_reply_rc rc = PROXY_REPLY_MORE;
    size_t used_total = 0;
    for (size_t i = 0; i <= w->ncuts && rc == PROXY_REPLY_MORE; i++) {
        size_t at, n = feed_piece(w, i, &at), used = 0;
        rc = proxy_reply_feed(&r, b + at, n, &used);
        used_total = at + used;
    }
    bool ok = rc == c->rc;
    if (ok && rc == PROXY_REPLY_DONE)
        ok = r.status == c->status && strcmp(r.reason, c->reason) == 0 && used_total == strlen(c->in);
    if (ok && rc == PROXY_REPLY_BAD)
        ok = strstr(r.why, c->reason) != NULL;
    return T_QUIET(c->name, ok, "%s: rc %d status %u reason '%s' used %zu why '%s'", w->name, rc, r.status, r.reason,
                   used_total, r.why ? r.why : "");
}

static void test_reply(void)
{
    static const char tunnel_bytes[] = "HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01";
    static struct reply_case cases[] = {
        {"HTTP/1.1 200 Connection established\r\n\r\n", PROXY_REPLY_DONE, 200, "Connection established", ""},
        {"HTTP/1.0 200 OK\r\nProxy-Agent: x\r\nContent-Length: 0\r\n\r\n", PROXY_REPLY_DONE, 200, "OK", ""},
        {"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n\r\n",
         PROXY_REPLY_DONE, 407, "Proxy Authentication Required", ""},
        {"HTTP/1.1 502\r\n\r\n", PROXY_REPLY_DONE, 502, "", ""},
        {"HTTP/1.1 403 \r\n\r\n", PROXY_REPLY_DONE, 403, "", ""},
        {"HTTP/1.1 200 OK\nVia: x\n\n", PROXY_REPLY_DONE, 200, "OK", ""},
        {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", PROXY_REPLY_DONE, 200, "OK", ""},
        {"HTTP/1.1 200 bad\x01\x7f\tbyte\r\n\r\n", PROXY_REPLY_DONE, 200, "bad?? byte", ""},
        {"HTTP/1.1 200 OK\r\n", PROXY_REPLY_MORE, 0, "", ""},
        {"SSH-2.0-OpenSSH\r\n", PROXY_REPLY_BAD, 0, "not HTTP/1.x", ""},
        {"HTTP/2 200\r\n\r\n", PROXY_REPLY_BAD, 0, "not HTTP/1.x", ""},
        {"HTTP/1.1 20x OK\r\n\r\n", PROXY_REPLY_BAD, 0, "three digits", ""},
        {"HTTP/1.1 2000 OK\r\n\r\n", PROXY_REPLY_BAD, 0, "three digits", ""},
        {"HTTP/1.1 099 OK\r\n\r\n", PROXY_REPLY_BAD, 0, "out of range", ""},
        {"HTTP/1.1  200 OK\r\n\r\n", PROXY_REPLY_BAD, 0, "three digits", ""},
        {"HTTP/1.1200 OK\r\n\r\n", PROXY_REPLY_BAD, 0, "no space", ""},
        {"HTTP/1.1 200 OK\rX\r\n\r\n", PROXY_REPLY_BAD, 0, "CR without LF", ""},
        {"HTTP/1.1 200 OK\r\n\rX", PROXY_REPLY_BAD, 0, "CR without LF", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[160];
        size_t o = 0;
        for (const char *c = cases[i].in; *c && o + 3 < sizeof cases[i].name; c++) {
            bool esc = *c == '\r' || *c == '\n';
            if (esc)
                cases[i].name[o++] = '\\';
            cases[i].name[o++] = *c == '\r' ? 'r' : *c == '\n' ? 'n' : (unsigned char)*c < 0x20 ? '?' : *c;
        }
        cases[i].name[o] = '\0';
        snprintf(name, sizeof name, "reply every way of feeding it: %s", cases[i].name);
        size_t before = (size_t)t_failed_;
        feed_splits((const uint8_t *)cases[i].in, strlen(cases[i].in), reply_fed, (void *)&cases[i], NULL);
        T_CHECK(name, (size_t)t_failed_ == before, "see above");
    }
    /* The tunnel's first bytes after the head are not the head's. */
    struct proxy_reply r;
    size_t used = 0;
    proxy_reply_init(&r);
    enum proxy_reply_rc rc = proxy_reply_feed(&r, (const uint8_t *)tunnel_bytes, sizeof tunnel_bytes - 1, &used);
    T_CHECK("reply: bytes after the head are left to the tunnel", rc == PROXY_REPLY_DONE && used == 39 &&
            proxy_reply_ok(&r), "rc %d used %zu", rc, used);
    /* Bounded: a head that never ends is refused at PROXY_HEAD_MAX. */
    size_t big = PROXY_HEAD_MAX + 64;
    char *long_head = t_malloc(big);
    memcpy(long_head, "HTTP/1.1 200 OK\r\nX: ", 20);
    memset(long_head + 20, 'a', big - 20);
    proxy_reply_init(&r);
    rc = proxy_reply_feed(&r, (const uint8_t *)long_head, big, &used);
    T_CHECK("reply: a head over 16384 bytes is refused", rc == PROXY_REPLY_BAD && strstr(r.why, "16384"), "rc %d",
            rc);
    free(long_head);
    /* A reason longer than kept is cut, not overflowed. */
    char long_reason[300] = "HTTP/1.1 403 ";
    memset(long_reason + 13, 'r', 200);
    strcpy(long_reason + 213, "\r\n\r\n");
    proxy_reply_init(&r);
    rc = proxy_reply_feed(&r, (const uint8_t *)long_reason, strlen(long_reason), &used);
    T_CHECK("reply: a long reason is cut to 63 bytes", rc == PROXY_REPLY_DONE && r.status == 403 &&
            strlen(r.reason) == PROXY_REASON_MAX - 1, "rc %d len %zu", rc, strlen(r.reason));
}

/* ---- the absolute-form request ---------------------------------------------------- */

static void test_absolute(void)
{
    struct shb_request q = { .authority = "example.com:8080", .target = "/a?b", .absolute_form = true,
                             .proxy_authorization = "Basic eDp5", .authorization = "Basic dTpw" };
    size_t len = 0;
    uint8_t *b = h1_build_request(&q, &len);
    const char *want = "GET http://example.com:8080/a?b HTTP/1.1\r\nHost: example.com:8080\r\n"
                       "Authorization: Basic dTpw\r\nProxy-Authorization: Basic eDp5\r\nUser-Agent: shb\r\n"
                       "Accept: */*\r\n\r\n";
    T_CHECK("HTTP/1.1 to a proxy: absolute-form (RFC 9112 §3.2.2) and Proxy-Authorization",
            b && len == strlen(want) && memcmp(b, want, len) == 0, "'%.*s'", (int)len, b ? (char *)b : "");
    free(b);
    struct shb_header h = { "proxy-authorization", "Bearer t" };
    q.headers = &h;
    q.nheaders = 1;
    b = h1_build_request(&q, &len);
    T_CHECK("HTTP/1.1 to a proxy: the user's own Proxy-Authorization wins",
            b && !memmem(b, len, "eDp5", 4) && memmem(b, len, "proxy-authorization: Bearer t", 29), "'%.*s'",
            (int)len, b ? (char *)b : "");
    free(b);
}

int main(void)
{
    static const char *const vars[] = { "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                        "no_proxy", "NO_PROXY", "SHB_PROXY_PASSWORD" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    test_url();
    test_env();
    test_target();
    test_hide();
    test_connect();
    test_reply();
    test_absolute();
    T_DONE();
}
