/* cli/override.h — where a target's connections go when the user says
 * so, with curl's options and meanings: --connect-to HOST1:PORT1:HOST2:PORT2
 * (requests for HOST1:PORT1 connect to HOST2:PORT2; Host, :authority and
 * SNI stay the URL's) and --resolve HOST:PORT:ADDR[,ADDR...] (HOST:PORT is
 * at these addresses, no DNS).
 *
 * Parsing and matching only: no I/O, no allocation (cli.c keeps the
 * entries, preflight.c resolves with them). A malformed entry comes back
 * as one line saying what is wrong in it. */
#ifndef SHB_CLI_OVERRIDE_H
#define SHB_CLI_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The longest host name (RFC 1035 §2.3.4: 253 characters of text) and its NUL. */
#define OVERRIDE_HOST_MAX 256
/* Addresses one --resolve entry may give. */
#define OVERRIDE_ADDRS_MAX 16

struct connect_to {
    char from_host[OVERRIDE_HOST_MAX]; /* without brackets; "" matches any host */
    uint16_t from_port;                /* 0 matches any port */
    char to_host[OVERRIDE_HOST_MAX];   /* without brackets; "" keeps the URL's host */
    uint16_t to_port;                  /* 0 keeps the URL's port */
};

struct resolve_entry {
    char host[OVERRIDE_HOST_MAX]; /* without brackets; "*" matches any host */
    uint16_t port;
    struct sockaddr_storage addrs[OVERRIDE_ADDRS_MAX]; /* AF_INET or AF_INET6, port 0, in the order given */
    unsigned naddrs;              /* at least 1 */
};

/* One --connect-to value. Returns 0, or -1 with why in err (what is
 * wrong, without the option's name: cli.c adds it). */
int connect_to_parse(const char *s, struct connect_to *out, char *err, size_t errlen);

/* One --resolve value. Returns 0, or -1 with why in err. */
int resolve_parse(const char *s, struct resolve_entry *out, char *err, size_t errlen);

/* The first entry that matches host:port (host without brackets, compared
 * without regard to case, as DNS names are: RFC 4343), or NULL. curl's
 * rule: the first one given wins. */
const struct connect_to *connect_to_match(const struct connect_to *list, size_t n, const char *host, uint16_t port);
const struct resolve_entry *resolve_match(const struct resolve_entry *list, size_t n, const char *host,
                                          uint16_t port);

/* An IPv4 or IPv6 literal, len bytes at a (IPv6 with or without
 * brackets), as a sockaddr with port 0; false if it is none. --resolve's
 * ADDRs and --bind's addresses. */
bool ip_literal_parse(const char *a, size_t len, struct sockaddr_storage *out);

/* "127.0.0.1:443" or "[::1]:443": an AF_INET or AF_INET6 address and its
 * port, as a report shows it. */
void override_addr_text(const struct sockaddr *a, char *buf, size_t len);

#endif
