/* cli/proxy.c — the proxy URL, the environment's proxies and the
 * no-proxy list (cli/proxy.h). */
#include "cli/proxy.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether the authority of url (after "://") writes a port. */
static bool port_written(const char *url)
{
    const char *a = strstr(url, "://");
    a = a ? a + 3 : url;
    size_t len = strcspn(a, "/?#");
    const char *host = a;
    for (size_t i = 0; i < len; i++)
        if (a[i] == '@')
            host = a + i + 1;
    const char *end = a + len;
    if (host < end && *host == '[') {
        const char *close = memchr(host, ']', (size_t)(end - host));
        return close && close + 1 < end && close[1] == ':';
    }
    return memchr(host, ':', (size_t)(end - host)) != NULL;
}

/* s[0, n) is a scheme (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" /
 * "-" / "." )), short enough to quote: anything else may hold a newline
 * or a password, and is not quoted. */
static bool quotable_scheme(const char *s, size_t n)
{
    if (n == 0 || n > 16 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.')
            return false;
    }
    return true;
}

int proxy_parse_url(const char *s, struct shb_url *u, char *err, size_t errlen)
{
    const char *sep = strstr(s, "://");
    memset(u, 0, sizeof *u);
    size_t slen = sep ? (size_t)(sep - s) : 0;
    if (sep && !(slen == 4 && strncasecmp(s, "http", 4) == 0)) {
        if (err && errlen && quotable_scheme(s, slen))
            snprintf(err, errlen, "unsupported proxy scheme '%.*s': only http:// proxies are supported", (int)slen,
                     s);
        else if (err && errlen)
            snprintf(err, errlen, "not a proxy URL: only http:// proxies are supported");
        return -1;
    }
    char *url = NULL;
    if (!sep && (url = malloc(strlen(s) + 8)) != NULL)
        snprintf(url, strlen(s) + 8, "http://%s", s);
    const char *text = sep ? s : url;
    if (!text) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = cli_parse_url(text, u, err, errlen);
    if (rc == 0 && !port_written(text))
        u->port = PROXY_DEFAULT_PORT;
    if (url) {
        volatile char *w = url; /* it may hold the password */
        for (size_t i = 0; w[i]; i++)
            w[i] = 0;
        free(url);
    }
    return rc;
}

/* name's value, NULL when unset or empty. */
static const char *env_value(proxy_getenv_fn *get, const char *name)
{
    const char *v = get(name);
    return v && *v ? v : NULL;
}

const char *proxy_from_env(bool https, proxy_getenv_fn *get, const char **name)
{
    static const char *const for_https[] = { "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY" };
    static const char *const for_http[] = { "http_proxy", "all_proxy", "ALL_PROXY" };
    const char *const *names = https ? for_https : for_http;
    size_t n = https ? sizeof for_https / sizeof *for_https : sizeof for_http / sizeof *for_http;
    for (size_t i = 0; i < n; i++) {
        const char *v = env_value(get, names[i]);
        if (v) {
            if (name)
                *name = names[i];
            return v;
        }
    }
    return NULL;
}

const char *proxy_noproxy_list(const char *list, proxy_getenv_fn *get)
{
    if (list)
        return list;
    const char *v = env_value(get, "no_proxy");
    return v ? v : env_value(get, "NO_PROXY");
}

/* An IP literal [s, s + n): its family (AF_INET, AF_INET6) and address
 * into a, or 0 when it is none. */
static int ip_literal(const char *s, size_t n, uint8_t a[16])
{
    char buf[INET6_ADDRSTRLEN + 1];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET, buf, a) == 1)
        return AF_INET;
    return strchr(buf, ':') && inet_pton(AF_INET6, buf, a) == 1 ? AF_INET6 : 0;
}

/* One entry [e, e + n), brackets already dropped, against an IP host (its
 * family and address), as curl (7.86+) does: ADDRESS or ADDRESS/BITS, of
 * the host's family, matching when the first BITS bits agree. Like curl,
 * no "/BITS" or "/0" compares the whole address; BITS beyond the family's
 * width, or not a number, matches nothing. */
static bool entry_matches_ip(const char *e, size_t n, int fam, const uint8_t host[16])
{
    const char *slash = memchr(e, '/', n);
    size_t an = slash ? (size_t)(slash - e) : n;
    unsigned width = fam == AF_INET ? 32 : 128, bits = 0;
    uint8_t net[16];
    if (slash) {
        size_t dn = n - an - 1;
        if (dn == 0 || dn > 3)
            return false;
        for (size_t i = 0; i < dn; i++) {
            if (slash[1 + i] < '0' || slash[1 + i] > '9')
                return false;
            bits = bits * 10 + (unsigned)(slash[1 + i] - '0');
        }
    }
    if (bits > width || ip_literal(e, an, net) != fam)
        return false;
    if (bits == 0)
        bits = width;
    size_t whole = bits / 8;
    if (memcmp(net, host, whole) != 0)
        return false;
    unsigned rest = bits % 8;
    uint8_t mask = (uint8_t)(0xff00u >> rest);
    return rest == 0 || ((net[whole] ^ host[whole]) & mask) == 0;
}

/* One entry [e, e + n), brackets already dropped, against a host name
 * (its length hn, a trailing dot already dropped). */
static bool entry_matches_name(const char *e, size_t n, const char *host, size_t hn)
{
    while (n && e[0] == '.') {
        e++;
        n--;
    }
    while (n && e[n - 1] == '.')
        n--;
    if (n == 0 || n > hn)
        return false;
    if (strncasecmp(host + hn - n, e, n) != 0)
        return false;
    return n == hn || host[hn - n - 1] == '.'; /* the whole name, or a whole label under it */
}

bool proxy_noproxy_match(const char *list, const char *host)
{
    size_t hn = strlen(host);
    uint8_t ip[16];
    /* curl: an IP host is matched against IP entries only, a name against
     * names only (nothing is resolved for this). */
    int fam = ip_literal(host, hn, ip);
    while (hn && host[hn - 1] == '.')
        hn--;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const char *e = p;
        size_t n = len;
        while (n && (*e == ' ' || *e == '\t')) {
            e++;
            n--;
        }
        while (n && (e[n - 1] == ' ' || e[n - 1] == '\t'))
            n--;
        if (n == 1 && *e == '*')
            return true;
        if (n >= 2 && e[0] == '[' && e[n - 1] == ']') {
            e++;
            n -= 2;
        }
        if (fam ? entry_matches_ip(e, n, fam, ip) : entry_matches_name(e, n, host, hn))
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

void proxy_free(struct shb_proxy *p)
{
    if (!p)
        return;
    free(p->url.target);
    free(p->url_text);
    if (p->authorization) {
        volatile char *w = p->authorization; /* base64 of the password */
        for (size_t i = 0; w[i]; i++)
            w[i] = 0;
        free(p->authorization);
    }
    auth_wipe(&p->url.cred);
    free(p);
}

/* The proxy's user and password into c (auth.h's rules, for the proxy):
 * false, with err set, when they cannot be had. */
static bool proxy_cred(const struct shb_opts *o, struct shb_proxy *p, proxy_getenv_fn *get, struct cred *c,
                       char *err, size_t errlen)
{
    char why[128];
    memset(c, 0, sizeof *c);
    if (o->proxy_user) {
        if (auth_from_option(o->proxy_user, c, why, sizeof why)) {
            snprintf(err, errlen, "invalid value for --proxy-user: %s", why); /* never quoted: it holds the password */
            return false;
        }
    } else if (p->url.cred.has_user) {
        *c = p->url.cred;
    } else {
        return true;
    }
    if (c->has_password)
        return true;
    const char *env = get("SHB_PROXY_PASSWORD");
    if (env && strlen(env) >= sizeof c->password) {
        snprintf(err, errlen, "SHB_PROXY_PASSWORD is longer than %zu bytes", sizeof c->password - 1);
        return false;
    }
    if (env) {
        strcpy(c->password, env);
    } else if (o->proxy_user) {
        snprintf(err, errlen, "--proxy-user %s has no password: write %s:PASSWORD or set SHB_PROXY_PASSWORD",
                 c->user, c->user);
        return false;
    }
    c->has_password = true; /* as curl: user@ alone sends an empty password */
    return true;
}

int proxy_for_target(const struct shb_opts *o, struct shb_target *t, proxy_getenv_fn *get, char *err,
                     size_t errlen)
{
    const char *var = NULL, *text = o->proxy;
    if (!text && !o->unix_socket)
        text = proxy_from_env(t->url.https, get, &var);
    const char *list = proxy_noproxy_list(o->noproxy, get);
    if (!text || !*text || (list && proxy_noproxy_match(list, t->url.host)))
        return 0; /* direct; -x "" too, as curl */
    const char *from = var ? var : "-x/--proxy";
    if (o->unix_socket) {
        snprintf(err, errlen, "-x/--proxy does not apply to --unix-socket (the socket is the server's)");
        return -1;
    }
    if (o->http3) {
        snprintf(err, errlen, "%s: HTTP/3 does not go through an HTTP proxy (that needs MASQUE)%s", from,
                 var ? ": give --noproxy '*' to go direct" : "");
        return -1;
    }
    struct shb_proxy *p = calloc(1, sizeof *p);
    char why[400];
    struct cred c;
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (proxy_parse_url(text, &p->url, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", from, why);
        proxy_free(p);
        return -1;
    }
    bool ok = proxy_cred(o, p, get, &c, err, errlen);
    if (ok && (!(p->url_text = auth_redact(text)) || (c.has_user && !(p->authorization = auth_basic(&c))))) {
        snprintf(err, errlen, "out of memory");
        ok = false;
    }
    auth_wipe(&c);
    auth_wipe(&p->url.cred);
    if (!ok) {
        proxy_free(p);
        return -1;
    }
    /* RFC 9110 §9.3.6: TLS and HTTP/2 need the connection end to end;
     * HTTP/1.1 in clear goes to the proxy as absolute-form requests. */
    p->tunnel = t->url.https || o->http2;
    t->proxy = p;
    return 0;
}
