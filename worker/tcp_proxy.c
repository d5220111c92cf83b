/* worker/tcp_proxy.c — an HTTP proxy's tunnel as a filter below TLS and
 * the session (tcp.h), for https:// and HTTP/2 through -x: on each new
 * connection to the proxy the CONNECT request (proxy.h, built once) goes
 * out, and the proxy's reply head is read (proxy_reply_feed, sans-I/O). A
 * 2xx means the bytes that follow are the server's (RFC 9110 §9.3.6): the
 * TLS handshake or the session starts as on a direct connection. Anything
 * else is a `proxy` error naming the status. Like the TLS handshake the
 * tunnel is part of connecting: --connect-timeout bounds the wait for its
 * reply. After it nothing here runs for the connection. */
#include <stdio.h>

#include "tcp.h"

void tcp_proxy_start(struct loop *l, struct conn *c)
{
    c->tunnelling = true;
    c->handshaking = false; /* a slot's last connection may have ended mid-handshake */
    c->tunnel_sent = 0;
    proxy_reply_init(&c->reply);
    c->handshake_deadline = l->now + l->cfg->connect_timeout_ns;
    tcp_send(l, c, l->cfg->proxy_connect, l->cfg->proxy_connect_len);
}

void tcp_proxy_sent(struct loop *l, struct conn *c, size_t n)
{
    c->tunnel_sent += (uint32_t)n;
    if (c->tunnel_sent < l->cfg->proxy_connect_len)
        tcp_send(l, c, l->cfg->proxy_connect + c->tunnel_sent, l->cfg->proxy_connect_len - c->tunnel_sent);
}

/* The reply refused the tunnel: "proxy refused the tunnel: 407 Proxy
 * Authentication Required". */
static void refused(struct loop *l, const struct proxy_reply *r)
{
    if (!loop_why_wanted(l, ERR_PROXY))
        return;
    char status[16 + PROXY_REASON_MAX];
    snprintf(status, sizeof status, "%u%s%s", (unsigned)r->status, r->reason_len ? " " : "", r->reason);
    loop_why(l, ERR_PROXY, "proxy refused the tunnel: ", status);
}

enum tunnel_rc tcp_proxy_data(struct loop *l, struct conn *c, uint8_t **p, size_t *n)
{
    size_t used = 0;
    enum proxy_reply_rc rc = proxy_reply_feed(&c->reply, *p, *n, &used);
    if (rc == PROXY_REPLY_MORE) {
        *n = 0;
        return TUNNEL_MORE;
    }
    if (rc == PROXY_REPLY_BAD || !proxy_reply_ok(&c->reply)) {
        if (rc == PROXY_REPLY_BAD)
            loop_why(l, ERR_PROXY, c->reply.why, NULL);
        else
            refused(l, &c->reply);
        loop_charge(l, ERR_PROXY, c->s.idx);
        return TUNNEL_FAILED;
    }
    c->tunnelling = false;
    l->w->stats.proxy_tunnels++;
    *p += used;
    *n -= used;
    return TUNNEL_UP;
}

void tcp_proxy_lost(struct loop *l, struct conn *c, enum lost_how how, const char *why)
{
    (void)c;
    if (how == LOST_EOF || !why)
        loop_why(l, ERR_PROXY, "the proxy closed the connection before answering CONNECT", NULL);
    else
        loop_why(l, ERR_PROXY, "before the proxy answered CONNECT: ", why);
    loop_charge(l, ERR_PROXY, c->s.idx);
}

bool tcp_proxy_tick(struct loop *l, struct conn *c)
{
    if (l->now < c->handshake_deadline)
        return true;
    loop_why_within(l, ERR_CONNECT_TIMEOUT, "the proxy's answer to CONNECT not done within ",
                    l->cfg->connect_timeout_ns);
    loop_charge(l, ERR_CONNECT_TIMEOUT, c->s.idx);
    return false;
}
