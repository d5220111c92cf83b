/* cli/override.c — --connect-to and --resolve entries: parsed as curl
 * writes them, matched against a target's host and port (override.h).
 *
 * Every field is read left to right by one cursor: a host is a name (the
 * characters a URL's host may have), "[IPv6]", or, in --resolve, "*"; a
 * port is decimal digits, 1-65535. Nothing here resolves a name or
 * allocates: preflight.c does the resolving, once, before any traffic. */
#define _GNU_SOURCE
#include "cli/override.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct cursor {
    const char *p;
    char *err;
    size_t errlen;
};

static int why(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int why(struct cursor *c, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* What a URL's host name may be made of (cli.c's is_host_char). */
static bool is_name_char(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
           ch == '.' || ch == '_';
}

/* An IPv6 literal's text is at most 45 characters (RFC 4291 §2.2 with an
 * IPv4 tail); one longer is none. */
#define V6_TEXT_MAX 64

/* "[IPv6]" at the cursor, into out without the brackets. */
static int bracketed_host(struct cursor *c, const char *what, char *out)
{
    const char *close = strchr(c->p, ']');
    if (!close)
        return why(c, "unclosed '[' in %s", what);
    size_t len = (size_t)(close - c->p - 1);
    struct in6_addr a;
    char text[V6_TEXT_MAX];
    if (len == 0 || len >= sizeof text)
        return why(c, "%s '%.*s' is not an IPv6 address", what, (int)(len < 80 ? len : 80), c->p + 1);
    memcpy(text, c->p + 1, len);
    text[len] = '\0';
    if (inet_pton(AF_INET6, text, &a) != 1)
        return why(c, "%s '%s' is not an IPv6 address", what, text);
    memcpy(out, text, len + 1);
    c->p = close + 1;
    return 0;
}

/* A host field, up to the next ':' or the end: a name, "[IPv6]", or "*"
 * when star (--resolve's any host). Empty gives "". */
static int host_field(struct cursor *c, const char *what, bool star, char *out)
{
    out[0] = '\0';
    if (*c->p == '[')
        return bracketed_host(c, what, out);
    size_t len = strcspn(c->p, ":");
    if (star && len == 1 && c->p[0] == '*') {
        memcpy(out, "*", 2);
        c->p++;
        return 0;
    }
    if (len >= OVERRIDE_HOST_MAX - 2) /* 253 characters at most */
        return why(c, "%s is longer than a host name can be (253 characters)", what);
    for (size_t i = 0; i < len; i++)
        if (!is_name_char((unsigned char)c->p[i]))
            return why(c, "%s '%.*s' has a character a host name cannot have (IPv6 addresses go in brackets: "
                          "[::1])", what, (int)len, c->p);
    memcpy(out, c->p, len);
    out[len] = '\0';
    c->p += len;
    return 0;
}

/* A port field, up to the next ':' or the end: 1-65535, or empty (0). */
static int port_field(struct cursor *c, const char *what, uint16_t *port)
{
    size_t len = strcspn(c->p, ":");
    unsigned long v = 0;
    *port = 0;
    for (size_t i = 0; i < len; i++) {
        if (c->p[i] < '0' || c->p[i] > '9')
            return why(c, "%s '%.*s' is not a number", what, (int)(len < 80 ? len : 80), c->p);
        if (v <= 65535)
            v = v * 10 + (unsigned long)(c->p[i] - '0');
    }
    if (len && (v == 0 || v > 65535))
        return why(c, "%s '%.*s' is out of range (1-65535)", what, (int)(len < 80 ? len : 80), c->p);
    *port = (uint16_t)v;
    c->p += len;
    return 0;
}

static int colon(struct cursor *c, const char *shape)
{
    if (*c->p != ':')
        return why(c, "expected %s", shape);
    c->p++;
    return 0;
}

#define CONNECT_TO_SHAPE "HOST1:PORT1:HOST2:PORT2 (e.g. example.com:443:127.0.0.1:8443)"

int connect_to_parse(const char *s, struct connect_to *out, char *err, size_t errlen)
{
    struct cursor c = { .p = s, .err = err, .errlen = errlen };
    memset(out, 0, sizeof *out);
    if (host_field(&c, "HOST1", false, out->from_host) || colon(&c, CONNECT_TO_SHAPE) ||
        port_field(&c, "PORT1", &out->from_port) || colon(&c, CONNECT_TO_SHAPE) ||
        host_field(&c, "HOST2", false, out->to_host))
        return -1;
    /* curl takes "HOST1:PORT1:HOST2" too: PORT2 left out keeps the URL's. */
    if (*c.p == ':') {
        c.p++;
        if (port_field(&c, "PORT2", &out->to_port))
            return -1;
    }
    if (*c.p)
        return why(&c, "unexpected '%.20s' after PORT2 (expected " CONNECT_TO_SHAPE "; IPv6 addresses go in "
                       "brackets)", c.p);
    return 0;
}

bool ip_literal_parse(const char *a, size_t len, struct sockaddr_storage *out)
{
    char text[V6_TEXT_MAX];
    if (len >= 2 && a[0] == '[' && a[len - 1] == ']')
        a++, len -= 2;
    if (len == 0 || len >= sizeof text)
        return false;
    memcpy(text, a, len);
    text[len] = '\0';
    memset(out, 0, sizeof *out);
    struct sockaddr_in *v4 = (struct sockaddr_in *)out;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        return true;
    }
    if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        return true;
    }
    return false;
}

#define RESOLVE_SHAPE "HOST:PORT:ADDR[,ADDR...] (e.g. example.com:443:127.0.0.1)"

int resolve_parse(const char *s, struct resolve_entry *out, char *err, size_t errlen)
{
    struct cursor c = { .p = s, .err = err, .errlen = errlen };
    memset(out, 0, sizeof *out);
    if (host_field(&c, "HOST", true, out->host))
        return -1;
    if (!out->host[0])
        return why(&c, "empty HOST (expected " RESOLVE_SHAPE "; * is any host)");
    if (colon(&c, RESOLVE_SHAPE) || port_field(&c, "PORT", &out->port))
        return -1;
    if (!out->port)
        return why(&c, "empty PORT (expected " RESOLVE_SHAPE ")");
    if (colon(&c, RESOLVE_SHAPE))
        return -1;
    /* The rest is the list: IPv6 needs no brackets here, as in curl. */
    for (;;) {
        size_t len = strcspn(c.p, ",");
        if (len == 0)
            return why(&c, "empty ADDR (expected " RESOLVE_SHAPE ")");
        if (out->naddrs == OVERRIDE_ADDRS_MAX)
            return why(&c, "more than %u addresses", OVERRIDE_ADDRS_MAX);
        if (!ip_literal_parse(c.p, len, &out->addrs[out->naddrs]))
            return why(&c, "ADDR '%.*s' is not an IPv4 or IPv6 address (--resolve gives addresses, not names: "
                           "--connect-to takes a name)", (int)(len < 80 ? len : 80), c.p);
        out->naddrs++;
        c.p += len;
        if (!*c.p)
            return 0;
        c.p++;
    }
}

const struct connect_to *connect_to_match(const struct connect_to *list, size_t n, const char *host, uint16_t port)
{
    for (size_t i = 0; i < n; i++) {
        const struct connect_to *e = &list[i];
        if ((!e->from_host[0] || strcasecmp(e->from_host, host) == 0) && (!e->from_port || e->from_port == port))
            return e;
    }
    return NULL;
}

const struct resolve_entry *resolve_match(const struct resolve_entry *list, size_t n, const char *host,
                                          uint16_t port)
{
    for (size_t i = 0; i < n; i++) {
        const struct resolve_entry *e = &list[i];
        if (e->port == port && (strcmp(e->host, "*") == 0 || strcasecmp(e->host, host) == 0))
            return e;
    }
    return NULL;
}

void override_addr_text(const struct sockaddr *a, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (a->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
        inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof ip);
        snprintf(buf, len, "[%s]:%u", ip, (unsigned)ntohs(v6->sin6_port));
    } else {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof ip);
        snprintf(buf, len, "%s:%u", ip, (unsigned)ntohs(v4->sin_port));
    }
}
