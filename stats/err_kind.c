/* stats/err_kind.c — the names error kinds go by in reports, in
 * --fail-if expressions and in merged reports. A file of its own so that
 * what only needs the names (the option parser, the man page's builder)
 * links nothing else of stats. */
#include "stats/stats.h"

const char *err_kind_name(enum err_kind k)
{
    switch (k) {
    case ERR_CONNECT:
        return "connect";
    case ERR_CONNECT_TIMEOUT:
        return "connect timeout";
    case ERR_TLS_HANDSHAKE:
        return "tls handshake";
    case ERR_NO_PORT:
        return "no local port";
    case ERR_PROXY:
        return "proxy";
    case ERR_RESET:
        return "reset";
    case ERR_CLOSED:
        return "closed";
    case ERR_PROTOCOL:
        return "protocol";
    case ERR_TLS:
        return "tls";
    case ERR_TIMEOUT:
        return "timeout";
    case ERR_STREAM_RESET:
        return "stream reset";
    case ERR_REFUSED:
        return "refused";
    case ERR_KINDS:
        break;
    }
    return "unknown";
}
