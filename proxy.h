/* proxy.h — talking to an HTTP proxy for a tunnel (RFC 9110 §9.3.6):
 * the CONNECT request's bytes, built once at start-up, and a parser for
 * the proxy's reply head. Sans-I/O: bytes in, results out; nothing is
 * allocated per connection (the parser's state lives in the connection).
 *
 * The worker's filter (worker/tcp_proxy.c) sends the bytes on each new
 * connection to the proxy, feeds the reply to the parser, and on a 2xx
 * hands the connection to TLS or to the session. */
#ifndef SHB_PROXY_H
#define SHB_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "CONNECT host:port HTTP/1.1", "Host: host:port" (RFC 9110 §9.3.6: the
 * target is the authority-form, RFC 9112 §3.2.3; an IPv6 host in
 * brackets) and, when authorization is not NULL, "Proxy-Authorization:
 * <authorization>" (RFC 9110 §11.7.2). malloc'd, *len bytes; NULL when
 * out of memory. */
uint8_t *proxy_connect_request(const char *host, bool ipv6, uint16_t port, const char *authorization,
                               size_t *len);

/* A reply head longer than this is no proxy's answer to CONNECT. */
#define PROXY_HEAD_MAX 16384
#define PROXY_REASON_MAX 64 /* the reason phrase kept for the message; longer ones are cut */

enum proxy_reply_rc {
    PROXY_REPLY_MORE = 0, /* the head is not over: feed more */
    PROXY_REPLY_DONE = 1, /* the head is over: status and reason are set */
    PROXY_REPLY_BAD = -1, /* not an HTTP/1.x reply head, or too long: why says so */
};

struct proxy_reply {
    uint8_t state;
    uint8_t matched;   /* of "HTTP/1." in the status line */
    uint16_t status;   /* 100..599 once the status line is read */
    uint32_t seen;     /* bytes of this head so far */
    char reason[PROXY_REASON_MAX];
    uint8_t reason_len;
    const char *why;   /* PROXY_REPLY_BAD: what was wrong (a static string) */
};

void proxy_reply_init(struct proxy_reply *r);

/* Feeds p[0, n). Returns what the head is now; with PROXY_REPLY_DONE,
 * *used is how many of the n bytes belong to the head (the rest are the
 * tunnel's). An interim 1xx head (RFC 9110 §15.2) is passed over, and the
 * final one parsed after it. Lines end in CRLF or a bare LF (RFC 9112
 * §2.2). After DONE or BAD the parser must be initialised again. */
enum proxy_reply_rc proxy_reply_feed(struct proxy_reply *r, const uint8_t *p, size_t n, size_t *used);

/* The reply said the tunnel is up: a 2xx (RFC 9110 §9.3.6). */
static inline bool proxy_reply_ok(const struct proxy_reply *r)
{
    return r->status >= 200 && r->status <= 299;
}

#endif
