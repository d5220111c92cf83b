/* h1.h — HTTP/1.1 request bytes and response boundary scanner (RFC 9112).
 *
 * Sans-I/O: no syscalls, no clock, no allocation after h1_build_request. */
#ifndef SHB_H1_H
#define SHB_H1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

/* Builds the one request every connection sends, into a malloc'd buffer:
 *   METHOD target HTTP/1.1\r\n
 *   Host: authority\r\n            (unless the user gave Host)
 *   User-Agent: shb\r\n            (unless the user gave User-Agent)
 *   Accept: * / *\r\n              (unless the user gave Accept)
 *   <user headers, in order>\r\n
 *   Content-Length: N\r\n          (when there is a body, unless the user gave one)
 *   Connection: close\r\n          (with --disable-keepalive, unless the user gave Connection)
 *   \r\n body
 * Header names compare case-insensitively. Returns the buffer and *len; NULL
 * only on allocation failure. */
uint8_t *h1_build_request(const struct shb_request *o, size_t *len);

/* Response scanner. It finds where each response ends and reads only the
 * status line, Content-Length, Transfer-Encoding and Connection; every other
 * header line is stepped over. It is resumable at any byte: a caller feeds
 * whatever the socket delivered and never keeps old bytes around. */
struct h1_scanner {
    uint8_t state;        /* internal */
    uint8_t failed_in;    /* internal: the state H1_ERROR came in (h1_scan_error) */
    bool too_long;        /* internal: ... because of H1_MAX_HEAD */
    bool head;            /* the request was HEAD: no body whatever the headers say */
    bool chunked;
    bool close;           /* Connection: close seen in this response */
    bool have_len;
    uint16_t status;
    uint64_t remaining;   /* body or chunk bytes still to skip */
    uint32_t linelen;     /* bytes of the current line kept in line[] */
    uint32_t headbytes;   /* bytes of heads, trailers and chunk lines since the response began or data last came */
    uint32_t skip;        /* internal */
    char line[96];        /* partial interesting line carried across feeds */
};

struct h1_response {
    uint16_t status;      /* final status (1xx interim responses are skipped, never reported) */
    bool close;           /* the server will close: Connection: close, or a body delimited by EOF */
};

enum h1_event {
    H1_NEED_MORE = 0,     /* all input consumed, response not complete */
    H1_DONE = 1,          /* a response ended; *used bytes consumed; call again with the rest */
    H1_ERROR = -1,        /* malformed response (bad status line, bad length, bad chunk, 101,
                           * over H1_MAX_HEAD bytes of head) */
};

/* The most bytes of response head a response may have (status line and
 * header section, the heads of its 1xx responses included), and the most
 * bytes of chunk-size lines, chunk ends and trailer section between two
 * pieces of chunk data or after the last. RFC 9110 §5.4 lets a client
 * refuse a header section larger than it wishes to process; without a
 * bound a server could keep a request from ever ending (endless header
 * lines, endless 1xx, endless trailers) and only --timeout would stop it.
 * 1 MiB is far above what real servers send (nginx's large headers and
 * 48 KB response heads pass). */
#define H1_MAX_HEAD (1u << 20)

/* Prepare for the next response; head: the request was HEAD. */
void h1_scanner_reset(struct h1_scanner *s, bool head);

/* Feeds n bytes. Sets *used to the bytes consumed (all of them unless H1_DONE).
 * On H1_DONE, *out describes the response and the scanner is ready for the next
 * one (call h1_scanner_reset only to change `head`). */
enum h1_event h1_scan(struct h1_scanner *s, const uint8_t *p, size_t n, size_t *used,
                      struct h1_response *out);

/* After H1_ERROR: what was wrong, in a few words ("bad status line",
 * "bad header line", "bad chunk", "response head over 1 MiB"). */
const char *h1_scan_error(const struct h1_scanner *s);

/* The peer closed. Returns H1_DONE (body delimited by close: *out filled),
 * H1_NEED_MORE if no byte of a response had arrived (clean close between
 * responses), or H1_ERROR (a response cut short). */
enum h1_event h1_scan_eof(struct h1_scanner *s, struct h1_response *out);

/* True once any byte of the current response has been consumed. */
bool h1_scan_started(const struct h1_scanner *s);

#endif
