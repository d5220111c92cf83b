/* cli/proxy.h — which HTTP proxy a target goes through, as curl decides
 * it: -x/--proxy, else the environment (https_proxy / HTTPS_PROXY for
 * https://, http_proxy for http://, all_proxy / ALL_PROXY for either),
 * unless the target's host is on the no-proxy list (--noproxy, else
 * no_proxy / NO_PROXY).
 *
 * Parsing only: the environment comes in through a lookup function, so a
 * test can hand it any; cli.c passes getenv. */
#ifndef SHB_CLI_PROXY_H
#define SHB_CLI_PROXY_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"

#define PROXY_DEFAULT_PORT 1080 /* curl's, for a proxy URL without a port */

/* A proxy URL: http://[user[:password]@]HOST[:PORT][/], or the same
 * without "http://" (curl takes a bare host as an HTTP proxy). Only http://
 * proxies: any other scheme is refused. Fills u as cli_parse_url does
 * (host, port, host_is_ip, host_is_ipv6, cred), with PROXY_DEFAULT_PORT
 * when no port is written; a path is ignored, as curl does. Returns 0, or
 * -1 with err set (the URL quoted with its password masked). */
int proxy_parse_url(const char *s, struct shb_url *u, char *err, size_t errlen);

typedef char *proxy_getenv_fn(const char *name); /* getenv's type */

/* The proxy the environment names for a target of that scheme, or NULL;
 * *name (when not NULL) is the variable it came from. http_proxy is
 * lowercase only (curl's rule: HTTP_PROXY can be set by a CGI request's
 * Proxy: header). An empty variable is not set. */
const char *proxy_from_env(bool https, proxy_getenv_fn *get, const char **name);

/* The no-proxy list that applies: --noproxy's (list, when not NULL),
 * else no_proxy, else NO_PROXY; NULL when none. */
const char *proxy_noproxy_list(const char *list, proxy_getenv_fn *get);

/* host is on list: comma-separated names (spaces around them ignored); a
 * name matches itself and every host under it ("example.com" and
 * ".example.com" both match "a.example.com" and "example.com"); "*" alone
 * matches every host. Names compare case-insensitively; an IPv6 entry may
 * be written in brackets. A host that is an IP literal matches IP entries
 * only, as curl (7.86+) does: "10.1.2.3", "::1", or a CIDR block
 * "192.168.0.0/16", "fd00::/8" (no "/BITS", or "/0", is the whole
 * address, as in curl); names are never resolved for this. */
bool proxy_noproxy_match(const char *list, const char *host);

/* Target t's proxy under o's options and the environment (get): sets
 * t->proxy (malloc'd) or leaves it NULL (direct). Its credentials:
 * --proxy-user, else the proxy URL's user[:password]@; a user without a
 * password takes $SHB_PROXY_PASSWORD (--proxy-user: required; the URL's:
 * else empty, as curl). Refused (-1, err set, one line): a bad proxy URL,
 * a proxy with --http3 (MASQUE is out of scope) or -x with
 * --unix-socket (the environment's proxies do not apply there). */
int proxy_for_target(const struct shb_opts *o, struct shb_target *t, proxy_getenv_fn *get, char *err,
                     size_t errlen);

/* Frees and wipes what proxy_for_target made; p may be NULL. */
void proxy_free(struct shb_proxy *p);

#endif
