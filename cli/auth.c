/* cli/auth.c — HTTP Basic credentials (RFC 7617), netrc entries,
 * and URLs with their password masked. See auth.h. */
#include "cli/auth.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void auth_err(char *err, size_t errlen, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", what);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

/* One part of the userinfo into out (NUL-terminated), %XX decoded when
 * decode. RFC 7617 §2: no control characters in either part. */
static int take_part(const char *p, size_t n, bool decode, char out[CRED_MAX], const char *what, char *err,
                     size_t errlen)
{
    char msg[96];
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        if (decode && c == '%') {
            int hi = i + 2 < n ? hex_digit(p[i + 1]) : -1;
            int lo = i + 2 < n ? hex_digit(p[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                snprintf(msg, sizeof msg, "bad %%-escape in the %s", what);
                auth_err(err, errlen, msg);
                return -1;
            }
            c = hi << 4 | lo;
            i += 2;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(msg, sizeof msg, "a control character in the %s (RFC 7617 §2)", what);
            auth_err(err, errlen, msg);
            return -1;
        }
        if (o + 1 >= CRED_MAX) {
            snprintf(msg, sizeof msg, "the %s is longer than %d bytes", what, CRED_MAX - 1);
            auth_err(err, errlen, msg);
            return -1;
        }
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return 0;
}

/* "user[:password]" into c. */
static int take_userinfo(const char *p, size_t n, bool decode, struct cred *c, char *err, size_t errlen)
{
    const char *colon = memchr(p, ':', n);
    size_t ulen = colon ? (size_t)(colon - p) : n;
    memset(c, 0, sizeof *c);
    if (take_part(p, ulen, decode, c->user, "user name", err, errlen))
        return -1;
    if (strchr(c->user, ':')) { /* only through %3A: RFC 7617 §2 forbids it */
        auth_err(err, errlen, "a ':' in the user name (RFC 7617 §2)");
        return -1;
    }
    c->has_user = true;
    if (colon) {
        if (take_part(colon + 1, n - ulen - 1, decode, c->password, "password", err, errlen))
            return -1;
        c->has_password = true;
    }
    return 0;
}

int auth_from_authority(const char *authority, size_t len, struct cred *c, const char **host_at, char *err,
                        size_t errlen)
{
    /* RFC 3986 §3.2.1: userinfo has no '@' of its own; take the last one,
     * as browsers do, so that an unescaped '@' in a password still works. */
    const char *at = NULL;
    for (size_t i = 0; i < len; i++)
        if (authority[i] == '@')
            at = authority + i;
    memset(c, 0, sizeof *c);
    *host_at = authority;
    if (!at)
        return 0;
    *host_at = at + 1;
    return take_userinfo(authority, (size_t)(at - authority), true, c, err, errlen);
}

int auth_from_option(const char *s, struct cred *c, char *err, size_t errlen)
{
    if (!*s) {
        auth_err(err, errlen, "an empty user name");
        return -1;
    }
    return take_userinfo(s, strlen(s), false, c, err, errlen);
}

/* The password of the URL in s: [*start, *start + *len), or false. */
static bool find_password(const char *s, size_t *start, size_t *len)
{
    const char *scheme = strstr(s, "://");
    if (!scheme)
        return false;
    const char *a = scheme + 3;
    size_t alen = strcspn(a, "/?#");
    const char *at = NULL;
    for (size_t i = 0; i < alen; i++)
        if (a[i] == '@')
            at = a + i;
    if (!at)
        return false;
    const char *colon = memchr(a, ':', (size_t)(at - a));
    if (!colon || colon + 1 == at)
        return false;
    *start = (size_t)(colon + 1 - s);
    *len = (size_t)(at - colon - 1);
    return true;
}

char *auth_redact(const char *s)
{
    size_t start, len, n = strlen(s);
    if (!find_password(s, &start, &len))
        return strdup(s);
    char *out = malloc(n - len + 4);
    if (!out)
        return NULL;
    memcpy(out, s, start);
    memcpy(out + start, "***", 3);
    memcpy(out + start + 3, s + start + len, n - start - len + 1);
    return out;
}

char *auth_password_in(char *s, size_t *len)
{
    size_t start;
    return find_password(s, &start, len) ? s + start : NULL;
}

char *auth_basic(const struct cred *c)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char plain[2 * CRED_MAX + 1];
    int n = snprintf(plain, sizeof plain, "%s:%s", c->user, c->password);
    size_t in_len = n > 0 ? (size_t)n : 0;
    char *out = malloc(6 + (in_len + 2) / 3 * 4 + 1);
    if (out) {
        char *o = out + 6;
        memcpy(out, "Basic ", 6);
        for (size_t i = 0; i < in_len; i += 3) {
            uint32_t v = (uint32_t)(uint8_t)plain[i] << 16;
            if (i + 1 < in_len)
                v |= (uint32_t)(uint8_t)plain[i + 1] << 8;
            if (i + 2 < in_len)
                v |= (uint8_t)plain[i + 2];
            *o++ = b64[v >> 18 & 63];
            *o++ = b64[v >> 12 & 63];
            *o++ = i + 1 < in_len ? b64[v >> 6 & 63] : '=';
            *o++ = i + 2 < in_len ? b64[v & 63] : '=';
        }
        *o = '\0';
    }
    volatile char *w = plain; /* the password stays only in the header */
    for (size_t i = 0; i < sizeof plain; i++)
        w[i] = 0;
    return out;
}

void auth_wipe(struct cred *c)
{
    volatile unsigned char *w = (volatile unsigned char *)c;
    for (size_t i = 0; i < sizeof *c; i++)
        w[i] = 0;
}

/* ------------------------------------------------------------- netrc */

struct netrc {
    const char *p, *end;
    unsigned line;
    char tok[CRED_MAX];
    char *err;
    size_t errlen;
};

static void netrc_err(struct netrc *n, const char *what)
{
    if (n->err && n->errlen)
        snprintf(n->err, n->errlen, "line %u: %s", n->line, what);
}

/* Past spaces, newlines and # comments (to the end of their line). */
static void netrc_skip_space(struct netrc *n)
{
    while (n->p < n->end) {
        char c = *n->p;
        if (c == '\n')
            n->line++;
        if (c == '#') {
            while (n->p < n->end && *n->p != '\n')
                n->p++;
            continue;
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v')
            return;
        n->p++;
    }
}

/* The next token into n->tok: 1, 0 at the end, -1 on error. */
static int netrc_token(struct netrc *n)
{
    netrc_skip_space(n);
    if (n->p == n->end)
        return 0;
    size_t o = 0;
    bool quoted = *n->p == '"';
    if (quoted)
        n->p++;
    for (;;) {
        if (n->p == n->end) {
            if (quoted) {
                netrc_err(n, "a quoted token has no closing '\"'");
                return -1;
            }
            break;
        }
        char c = *n->p;
        if (quoted && c == '"') {
            n->p++;
            break;
        }
        if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'))
            break;
        if (c == '\n')
            n->line++;
        n->p++;
        if (quoted && c == '\\' && n->p < n->end) {
            c = *n->p++;
            c = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
        }
        if (o + 1 >= sizeof n->tok) {
            netrc_err(n, "a token longer than 255 bytes");
            return -1;
        }
        n->tok[o++] = c;
    }
    n->tok[o] = '\0';
    return 1;
}

/* "macdef NAME": the macro's lines go up to the first empty line. */
static void netrc_skip_macro(struct netrc *n)
{
    while (n->p < n->end && *n->p != '\n') /* the rest of the macdef line */
        n->p++;
    while (n->p < n->end) {
        n->p++; /* a newline */
        n->line++;
        if (n->p < n->end && *n->p == '\n')
            return;
        while (n->p < n->end && *n->p != '\n')
            n->p++;
    }
}

struct netrc_entry {
    bool any_host; /* "default" */
    bool matched_host;
    struct cred c;
};

static bool entry_fits(const struct netrc_entry *e, const char *login)
{
    if (!e->matched_host || !e->c.has_user)
        return false;
    return !login || strcmp(e->c.user, login) == 0;
}

int auth_netrc_find(const char *text, size_t len, const char *host, const char *login, struct cred *c, char *err,
                    size_t errlen)
{
    struct netrc n = {.p = text, .end = text + len, .line = 1, .err = err, .errlen = errlen};
    struct netrc_entry e = {0}, dflt = {0};
    bool in_entry = false;
    int rc, found = 0;
    for (;;) {
        rc = netrc_token(&n);
        if (rc <= 0)
            break;
        bool starts = strcmp(n.tok, "machine") == 0 || strcmp(n.tok, "default") == 0;
        if (starts || strcmp(n.tok, "macdef") == 0) {
            if (in_entry && !e.any_host && entry_fits(&e, login)) {
                found = 1;
                break;
            }
            if (in_entry && e.any_host && !dflt.any_host)
                dflt = e;
            in_entry = false;
        }
        if (strcmp(n.tok, "default") == 0) {
            e = (struct netrc_entry){.any_host = true, .matched_host = true};
            in_entry = true;
            continue;
        }
        if (strcmp(n.tok, "macdef") == 0) {
            if ((rc = netrc_token(&n)) <= 0)
                break;
            netrc_skip_macro(&n);
            continue;
        }
        bool machine = strcmp(n.tok, "machine") == 0, user = strcmp(n.tok, "login") == 0,
             pass = strcmp(n.tok, "password") == 0, account = strcmp(n.tok, "account") == 0;
        if (!machine && !user && !pass && !account)
            continue; /* a word of no entry (e.g. a newer netrc keyword): passed over, as curl does */
        char what[64];
        snprintf(what, sizeof what, "'%.32s' has no value", n.tok);
        unsigned kw_line = n.line;
        if ((rc = netrc_token(&n)) <= 0) {
            n.line = kw_line; /* the keyword's line, not the end's */
            if (rc == 0)
                netrc_err(&n, what);
            rc = -1;
            break;
        }
        if (machine) {
            e = (struct netrc_entry){.matched_host = strcasecmp(n.tok, host) == 0};
            in_entry = true;
        } else if (in_entry && user) {
            memcpy(e.c.user, n.tok, sizeof e.c.user);
            e.c.has_user = true;
        } else if (in_entry && pass) {
            memcpy(e.c.password, n.tok, sizeof e.c.password);
            e.c.has_password = true;
        }
    }
    if (rc >= 0 && !found && in_entry) {
        if (!e.any_host && entry_fits(&e, login))
            found = 1;
        else if (e.any_host && !dflt.any_host)
            dflt = e;
    }
    if (rc >= 0 && !found && entry_fits(&dflt, login)) {
        e = dflt;
        found = 1;
    }
    if (found)
        *c = e.c;
    auth_wipe(&e.c);
    auth_wipe(&dflt.c);
    volatile char *w = n.tok;
    for (size_t i = 0; i < sizeof n.tok; i++)
        w[i] = 0;
    return rc < 0 ? -1 : found;
}
