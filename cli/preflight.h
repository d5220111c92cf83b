/* cli/preflight.h — what shb checks before the first request: this
 * machine (kernel, file limit, local ports) and the targets (their
 * addresses, --bind's, --unix-socket's). A failed check ends the process
 * with one line on stderr (shb_die); nothing has been sent by then. */
#ifndef SHB_CLI_PREFLIGHT_H
#define SHB_CLI_PREFLIGHT_H

#include <stdint.h>
#include <limits.h>
#include <sys/socket.h>

#include "cli/cli.h"

/* "shb: " + the message on stderr, and exit(code): 1 for what the machine
 * cannot do, 2 for bad input. */
void shb_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

struct tls13_credential; /* tls13/credentials.h */

/* --cert/--key: reads the files once and loads the certificate chain and
 * private key into cred; the files' bytes are wiped once loaded. A file that
 * cannot be read or holds no usable certificate or key ends the run (exit
 * 2) with one line naming the file and the problem. */
void load_client_cert(const struct shb_opts *o, struct tls13_credential *cred);

/* --cacert: reads the file and loads its certificates as trust anchors. A
 * file that cannot be read, holds no certificate or one that does not
 * parse: one line, exit 2. */
struct tls13_trust; /* tls13/trust.h */
void load_cacert(const struct shb_opts *o, struct tls13_trust *trust);

/* Linux 6.0 or newer (io_uring multishot receive). */
void require_kernel(void);

/* A target's address, found before any target runs. */
struct target_addr {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    const char *via; /* "--connect-to", "--resolve" or "--unix-socket" when one chose it, else NULL */
    /* then the address as the report shows it: "127.0.0.1:8443", "[::1]:443",
     * or the socket's absolute path */
    char text[PATH_MAX + 112];
};

/* --bind's addresses are this machine's; every target resolves (addrs[i]
 * for o->targets[i], through --connect-to and --resolve, in -4/-6's or
 * --bind's family; a name with several addresses: the first that accepts
 * a connection); with several targets over TCP, each accepts one. */
void check_targets(const struct shb_opts *o, struct target_addr *addrs);

/* Each worker's per_worker connections fit RLIMIT_NOFILE (raised to the
 * hard limit first). */
void check_file_limit(uint64_t per_worker, uint32_t conns, unsigned threads);

/* conns connections to one address fit the ephemeral port range, one range
 * per source address. Returns the ports there are (0: unknown). */
unsigned check_port_range(uint32_t conns, uint32_t sources);

#endif
