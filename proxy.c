/* proxy.c — the CONNECT request and the proxy's reply head (proxy.h). */
#include "proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *proxy_connect_request(const char *host, bool ipv6, uint16_t port, const char *authorization,
                               size_t *len)
{
    /* RFC 9110 §9.3.6: "CONNECT server.example.com:80 HTTP/1.1" and a Host
     * of the same authority; the port is always written. */
    char authority[300];
    snprintf(authority, sizeof authority, "%s%s%s:%u", ipv6 ? "[" : "", host, ipv6 ? "]" : "", (unsigned)port);
    const char *auth_name = authorization ? "Proxy-Authorization: " : "";
    const char *auth_value = authorization ? authorization : "";
    const char *auth_end = authorization ? "\r\n" : "";
    int n = snprintf(NULL, 0, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n", authority, authority, auth_name,
                     auth_value, auth_end);
    if (n < 0)
        return NULL;
    char *buf = malloc((size_t)n + 1);
    if (!buf)
        return NULL;
    snprintf(buf, (size_t)n + 1, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n", authority, authority, auth_name,
             auth_value, auth_end);
    *len = (size_t)n;
    return (uint8_t *)buf;
}

/* Where the parser is in a reply head (RFC 9112 §4: status-line =
 * HTTP-version SP status-code SP [ reason-phrase ], then field lines,
 * then an empty line). */
enum {
    RS_VERSION,     /* "HTTP/1." */
    RS_MINOR,       /* its minor digit */
    RS_SP,          /* the space before the code */
    RS_CODE,        /* three digits */
    RS_AFTER_CODE,  /* a space, or the line's end (an empty reason, its space left out) */
    RS_REASON,      /* to the line's end */
    RS_REASON_CR,   /* a CR ended the status line: LF must follow */
    RS_FIELD_START, /* at the start of a field line, or of the empty line */
    RS_FIELD,       /* inside a field line: passed over to its LF */
    RS_END_CR,      /* a CR at a line's start: the empty line's LF must follow */
};

void proxy_reply_init(struct proxy_reply *r)
{
    memset(r, 0, sizeof *r);
    r->state = RS_VERSION;
}

static enum proxy_reply_rc bad(struct proxy_reply *r, const char *why)
{
    r->why = why;
    return PROXY_REPLY_BAD;
}

/* A reason phrase byte, kept printable for the message that quotes it. */
static void keep_reason(struct proxy_reply *r, uint8_t c)
{
    if (r->reason_len + 1 >= PROXY_REASON_MAX)
        return;
    r->reason[r->reason_len++] = c == '\t' ? ' ' : c >= 0x20 && c < 0x7f ? (char)c : '?';
    r->reason[r->reason_len] = '\0';
}

/* One byte of the head: MORE, DONE (the empty line's LF) or BAD. */
static enum proxy_reply_rc step(struct proxy_reply *r, uint8_t c)
{
    static const char version[] = "HTTP/1.";
    switch (r->state) {
    case RS_VERSION:
        if (c != (uint8_t)version[r->matched])
            return bad(r, "the proxy's reply is not HTTP/1.x");
        if (++r->matched == sizeof version - 1)
            r->state = RS_MINOR;
        return PROXY_REPLY_MORE;
    case RS_MINOR:
        if (c < '0' || c > '9')
            return bad(r, "the proxy's reply is not HTTP/1.x");
        r->state = RS_SP;
        return PROXY_REPLY_MORE;
    case RS_SP:
        if (c != ' ')
            return bad(r, "the proxy's status line has no space after the version");
        r->state = RS_CODE;
        r->matched = 0;
        return PROXY_REPLY_MORE;
    case RS_CODE:
        if (c < '0' || c > '9')
            return bad(r, "the proxy's status code is not three digits");
        r->status = (uint16_t)(r->status * 10 + (c - '0'));
        if (++r->matched == 3) {
            if (r->status < 100 || r->status > 599) /* RFC 9110 §15 */
                return bad(r, "the proxy's status code is out of range");
            r->state = RS_AFTER_CODE;
        }
        return PROXY_REPLY_MORE;
    case RS_AFTER_CODE:
        if (c == ' ') {
            r->state = RS_REASON;
            return PROXY_REPLY_MORE;
        }
        if (c != '\r' && c != '\n')
            return bad(r, "the proxy's status code is not three digits");
        /* the line ends here */
        __attribute__((fallthrough));
    case RS_REASON:
        if (c == '\r')
            r->state = RS_REASON_CR;
        else if (c == '\n')
            r->state = RS_FIELD_START;
        else
            keep_reason(r, c);
        return PROXY_REPLY_MORE;
    case RS_REASON_CR:
        if (c != '\n')
            return bad(r, "a CR without LF in the proxy's status line");
        r->state = RS_FIELD_START;
        return PROXY_REPLY_MORE;
    case RS_FIELD_START:
        if (c == '\n')
            return PROXY_REPLY_DONE;
        r->state = c == '\r' ? RS_END_CR : RS_FIELD;
        return PROXY_REPLY_MORE;
    case RS_FIELD:
        if (c == '\n')
            r->state = RS_FIELD_START;
        return PROXY_REPLY_MORE;
    case RS_END_CR:
        if (c != '\n')
            return bad(r, "a CR without LF at the end of the proxy's reply head");
        return PROXY_REPLY_DONE;
    default:
        return bad(r, "the proxy reply parser is in no state");
    }
}

enum proxy_reply_rc proxy_reply_feed(struct proxy_reply *r, const uint8_t *p, size_t n, size_t *used)
{
    if (r->why)
        return PROXY_REPLY_BAD;
    for (size_t i = 0; i < n; i++) {
        if (++r->seen > PROXY_HEAD_MAX)
            return bad(r, "the proxy's reply head is longer than 16384 bytes");
        enum proxy_reply_rc rc = step(r, p[i]);
        if (rc == PROXY_REPLY_BAD)
            return rc;
        if (rc == PROXY_REPLY_DONE) {
            if (r->status >= 200) {
                *used = i + 1;
                return PROXY_REPLY_DONE;
            }
            proxy_reply_init(r); /* an interim 1xx: the final head follows */
        }
    }
    return PROXY_REPLY_MORE;
}
