/* test/fuzz/mkcorpus.c — writes the fuzz targets' seed corpora
 * (test/fuzz/corpus/<target>/), and captures real TLS servers' flights for
 * fuzz_tls13_client. Run through test/fuzz/mkcorpus.sh, which builds it and
 * starts the servers; the seeds are checked in, so nothing runs this in a
 * build.
 *
 *   mkcorpus DIR
 *       the hand-made seeds: HTTP/1.1 responses, RFC 7541 Appendix C header
 *       blocks, HTTP/2 server streams, TLS records, QPACK, HTTP/3 and QUIC
 *       inputs, and records of decrypted QUIC payloads for fuzz_quic_conn;
 *       and seeds from real traffic: the stream bytes Bun (lsquic) sent in
 *       test/vectors/quic_conn_trace.h (its control and QPACK streams, three
 *       responses) for fuzz_h3, and as STREAM frames for fuzz_quic_conn
 *   mkcorpus --capture PORT 13|12 RAW [HS]
 *       connects to 127.0.0.1:PORT with fuzz_tls13_client's fixed
 *       ClientHello (fuzz.h), completes the handshake, sends one HTTP/1.0
 *       request (GET /hello.txt) and records every byte the server sends
 *       until it closes: RAW is that stream behind fuzz_tls13_client's
 *       control bytes (TLS 1.2 or not, echo, split 1..512). For
 *       TLS 1.3, HS gets the server's handshake messages in the clear
 *       (handshake mode's input), decrypted by a second client that
 *       follows the same stream, and a KeyUpdate after them.
 *   mkcorpus --cookie IN OUT
 *       the handshake-mode seed IN with a cookie added to its
 *       HelloRetryRequest, as OUT.
 *   mkcorpus --resume IN OUT BYTE
 *       the handshake-mode seed IN in --tls-resume mode (flag bit 7 and the
 *       resume byte BYTE: fuzz_tls13_client), as OUT: its NewSessionTickets
 *       reach the ticket parser.
 *
 * Each seed starts with its target's control bytes (see each fuzz_*.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h3.h"
#include "qpack.h"
#include "quic/frame.h"
#include "quic/varint.h"
#include "test/fuzz/fuzz.h"
#include "test/vectors/quic_conn_trace.h"
#include "test/vectors/quic_vectors.h"
#include "test/unit/request_base.h"
#include "tls13/conn.h"
#include "tls13/handshake.h"
#include "tls13/record.h"

/* ------------------------------------------------------------ byte buffers */

struct buf {
    uint8_t *b;
    size_t len, cap;
};

static void put(struct buf *x, const void *p, size_t n)
{
    if (x->len + n > x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 1024;
        while (cap < x->len + n)
            cap *= 2;
        x->b = realloc(x->b, cap);
        if (!x->b)
            abort();
        x->cap = cap;
    }
    if (n)
        memcpy(x->b + x->len, p, n);
    x->len += n;
}

static void put_u8(struct buf *x, uint8_t v) { put(x, &v, 1); }

static void put_u16(struct buf *x, size_t v)
{
    put_u8(x, (uint8_t)(v >> 8));
    put_u8(x, (uint8_t)v);
}

static void put_str(struct buf *x, const char *s) { put(x, s, strlen(s)); }

/* Hex digits; anything else (spaces) is skipped. */
static void put_hex(struct buf *x, const char *h)
{
    int hi = -1;
    for (; *h; h++) {
        int v = *h >= '0' && *h <= '9' ? *h - '0' : *h >= 'a' && *h <= 'f' ? *h - 'a' + 10 : -1;
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            put_u8(x, (uint8_t)(hi << 4 | v));
            hi = -1;
        }
    }
}

static void reset(struct buf *x) { x->len = 0; }

static const char *out_dir;

static void write_file(const char *path, const struct buf *x)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(x->b, 1, x->len, f) != x->len || fclose(f) != 0) {
        fprintf(stderr, "mkcorpus: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void seed(const char *target, const char *name, const struct buf *x)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", out_dir, target);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
    write_file(path, x);
}

/* ------------------------------------------------------------ fuzz_h1 */

/* [head bits] [split mode] [split seed] + the responses */
static void h1_seed(const char *name, uint8_t head_bits, uint8_t mode, const char *text)
{
    struct buf x = { 0 };
    put_u8(&x, head_bits);
    put_u8(&x, mode);
    put_u16(&x, 0x1234);
    put_str(&x, text);
    seed("fuzz_h1", name, &x);
    free(x.b);
}

static void h1_seeds(void)
{
    h1_seed("keepalive_pipelined", 0, FZ_SPLIT_WHOLE,
            "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
            "Content-Type: text/plain\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello"
            "HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\n\r\nnot found"
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    h1_seed("chunked_trailers", 0, FZ_SPLIT_SMALL,
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/html\r\n\r\n"
            "5\r\nhello\r\n1a;name=value\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n"
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\nA \r\n0123456789\r\n0\r\n\r\n");
    h1_seed("interim_304_204", 0, FZ_SPLIT_BYTES,
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\nContent-Length: 1234\r\n\r\n"
            "HTTP/1.1 204 No Content\r\n\r\n");
    /* HEAD, then GET, then HEAD: bits 0 and 2 */
    h1_seed("head", 0x05, FZ_SPLIT_LARGE,
            "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nContent-Type: text/html\r\n\r\n"
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    h1_seed("http10_until_close", 0, FZ_SPLIT_SMALL,
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nbody"
            "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nthe body runs until the server closes");
    h1_seed("connection_close", 0, FZ_SPLIT_WHOLE,
            "HTTP/1.1 503 Service Unavailable\r\nConnection: keep-alive, Close\r\nRetry-After: 1\r\n"
            "Content-Length: 42, 42\r\n\r\n012345678901234567890123456789012345678901");
    h1_seed("long_lines", 0, FZ_SPLIT_LARGE,
            "HTTP/1.1 200 OK with a reason phrase long enough to pass the ninety-six bytes the scanner "
            "keeps of a line\r\n"
            "Set-Cookie: session=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
            "abcdef; Path=/; HttpOnly\r\n"
            "Connection: upgrade, keep-alive, te, x-a, x-b, x-c, x-d, x-e, x-f, x-g, x-h, x-i, x-j, x-k, x-l\r\n"
            "Content-Length: 1\r\n\r\nx"
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003"
            ";ext\r\nabc\r\n0\r\n\r\n");
    h1_seed("bare_lf", 0, FZ_SPLIT_BYTES,
            "HTTP/1.1 200 OK\nContent-Length: 3\n\nabcHTTP/1.1 201 Created\nTransfer-Encoding: chunked\n\n"
            "3\nxyz\n0\n\n");
    h1_seed("errors", 0, FZ_SPLIT_WHOLE,
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello");
}

/* ------------------------------------------------------------ fuzz_hpack */

/* [split mode] [split seed], then each block as [length, 2 bytes] [block] */
static void hpack_seed(const char *name, uint8_t mode, const char *const *blocks, size_t n)
{
    struct buf x = { 0 }, b = { 0 };
    put_u8(&x, mode);
    put_u16(&x, 0x4321);
    for (size_t i = 0; i < n; i++) {
        reset(&b);
        put_hex(&b, blocks[i]);
        put_u16(&x, b.len);
        put(&x, b.b, b.len);
    }
    seed("fuzz_hpack", name, &x);
    free(x.b);
    free(b.b);
}

/* RFC 7541 Appendix C. */
static const char *const c2[] = {
    "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
    "040c 2f73 616d 706c 652f 7061 7468",
    "1008 7061 7373 776f 7264 0673 6563 7265 74",
    "82",
};
static const char *const c3[] = {
    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "8286 84be 5808 6e6f 2d63 6163 6865",
    "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
};
static const char *const c4[] = {
    "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
    "8286 84be 5886 a8eb 1064 9cbf",
    "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
};
/* C.5 and C.6 use a 256-byte table: a size update (§6.3) says so first. */
static const char *const c5[] = {
    "3fe1 01"
    "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133"
    "2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70"
    "6c65 2e63 6f6d",
    "4803 3330 37c1 c0bf",
    "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d"
    "54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049"
    "5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e"
    "3d31",
};
static const char *const c6[] = {
    "3fe1 01"
    "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6"
    "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
    "4883 640e ffc1 c0bf",
    "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab"
    "77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f"
    "9587 3160 65c0 03ed 4ee5 b106 3d50 07",
};
/* An nginx-style response: size update to 0, :status 200, server: nginx
 * (Huffman), content-length: 5; then 404 and a literal :status 503. */
static const char *const nginx[] = {
    "20 88 76 85 aa 69 d2 9a fd 5c 01 35",
    "8d 5c 01 30",
    "08 03 35 30 33 0f 0d 02 31 30",
};
/* Malformed :status: a literal "20x", a repeated one, a four-digit one. */
static const char *const bad_status[] = {
    "08 03 32 30 78",
    "88 8d",
    "00 07 3a 73 74 61 74 75 73 04 31 30 30 30",
};

/* §4.4's corner: a new entry's name is that of an entry the same insert
 * evicts, while the arena has to be compacted (hpack.c then rotates the
 * arena so that the name survives). A 1000-byte name ('0' x 1000, Huffman
 * '00000' each: 625 bytes) is inserted, then copied by name index into four
 * more entries; the last two evict their name's entry, the last one also
 * compacts. */
static void hpack_rotation_seed(void)
{
    struct buf x = { 0 }, b = { 0 };
    put_u8(&x, FZ_SPLIT_LARGE);
    put_u16(&x, 0x4321);
    put_u8(&b, 0x40);        /* literal with incremental indexing, new name (§6.2.1) */
    put_hex(&b, "ff f2 03"); /* H, length 127 + 498 = 625 (§5.1) */
    for (int i = 0; i < 625; i++)
        put_u8(&b, 0x00);
    put_u8(&b, 0x00);          /* empty value */
    put_hex(&b, "7e 00");      /* name: index 62, the first entry */
    put_hex(&b, "7e 00");      /* name: index 62, the second */
    put_hex(&b, "7f 01 00");   /* name: index 64, the first: evicted by this insert */
    put_hex(&b, "7f 01 00 88"); /* index 64, the second: evicted, and the arena compacts; :status 200 */
    put_u16(&x, b.len);
    put(&x, b.b, b.len);
    reset(&b);
    put_hex(&b, "be bf c0 8d");
    put_u16(&x, b.len);
    put(&x, b.b, b.len);
    seed("fuzz_hpack", "table_rotation", &x);
    free(x.b);
    free(b.b);
}

static void hpack_seeds(void)
{
    hpack_rotation_seed();
    hpack_seed("rfc7541_c2", FZ_SPLIT_WHOLE, c2, 4);
    hpack_seed("rfc7541_c3", FZ_SPLIT_SMALL, c3, 3);
    hpack_seed("rfc7541_c4", FZ_SPLIT_BYTES, c4, 3);
    hpack_seed("rfc7541_c5", FZ_SPLIT_LARGE, c5, 3);
    hpack_seed("rfc7541_c6", FZ_SPLIT_SMALL, c6, 3);
    hpack_seed("nginx_responses", FZ_SPLIT_WHOLE, nginx, 3);
    hpack_seed("bad_status", FZ_SPLIT_BYTES, bad_status, 3);
}

/* ------------------------------------------------------------ fuzz_h2 */

enum { T_DATA, T_HEADERS, T_PRIORITY, T_RST, T_SETTINGS, T_PUSH, T_PING, T_GOAWAY, T_WU, T_CONT };

static void frame(struct buf *x, uint8_t type, uint8_t flags, uint32_t id, const void *pl, size_t n)
{
    put_u8(x, (uint8_t)(n >> 16));
    put_u16(x, n & 0xffff);
    put_u8(x, type);
    put_u8(x, flags);
    put_u16(x, id >> 16);
    put_u16(x, id & 0xffff);
    put(x, pl, n);
}

static void frame_hex(struct buf *x, uint8_t type, uint8_t flags, uint32_t id, const char *hex)
{
    struct buf p = { 0 };
    put_hex(&p, hex);
    frame(x, type, flags, id, p.b, p.len);
    free(p.b);
}

/* [config] [split mode] [split seed] [body length], then the server's bytes */
static void h2_seed(const char *name, uint8_t conf, uint8_t mode, uint8_t blen, const struct buf *server)
{
    struct buf x = { 0 };
    put_u8(&x, conf);
    put_u8(&x, mode);
    put_u16(&x, 0x2468);
    put_u8(&x, blen);
    put(&x, server->b, server->len);
    seed("fuzz_h2", name, &x);
    free(x.b);
}

#define P_1 (0u << 2)
#define P_4 (3u << 2)
#define P_100 (6u << 2)

static void h2_seeds(void)
{
    struct buf s = { 0 };
    /* nginx-like: SETTINGS (MAX_CONCURRENT_STREAMS 128, INITIAL_WINDOW_SIZE
     * 65536, MAX_FRAME_SIZE 16777215), WINDOW_UPDATE, ACK, then one response
     * per stream: HEADERS (size update 0, :status 200, server: nginx,
     * content-length: 5), DATA, an empty DATA with END_STREAM. */
    frame_hex(&s, T_SETTINGS, 0, 0, "0003 00000080 0004 00010000 0005 00ffffff");
    frame_hex(&s, T_WU, 0, 0, "7fff0000");
    frame(&s, T_SETTINGS, 1, 0, NULL, 0);
    frame_hex(&s, T_HEADERS, 0x04, 1, "20 88 76 85 aa 69 d2 9a fd 5c 01 35");
    frame(&s, T_DATA, 0, 1, "hello", 5);
    frame(&s, T_DATA, 1, 1, NULL, 0);
    frame_hex(&s, T_HEADERS, 0x05, 3, "8d 5c 01 30");
    frame_hex(&s, T_PING, 0, 0, "0102030405060708");
    frame_hex(&s, T_GOAWAY, 0, 0, "00000003 00000000");
    h2_seed("get_nginx", 0 | P_4, FZ_SPLIT_WHOLE, 0, &s);

    /* Four streams, answered out of order: padding, priority, CONTINUATION,
     * a 103 before the 200, trailers, RST_STREAM REFUSED_STREAM, unknown
     * frame types and settings. */
    reset(&s);
    frame_hex(&s, T_SETTINGS, 0, 0, "0001 00001000 0003 00000064 00ff 00000001");
    frame(&s, T_SETTINGS, 1, 0, NULL, 0);
    frame_hex(&s, 0x42, 0, 0, "deadbeef");
    frame_hex(&s, T_HEADERS, 0x2c, 3, "02 80000001 10 88 5c 01 33 0000");
    frame_hex(&s, T_DATA, 0x09, 3, "02 616263 0000");
    frame_hex(&s, T_HEADERS, 0x00, 1, "88");
    frame_hex(&s, T_CONT, 0x00, 1, "0f 0d 01 30");
    frame_hex(&s, T_CONT, 0x04, 1, "");
    frame_hex(&s, T_DATA, 0x00, 1, "");
    frame_hex(&s, T_HEADERS, 0x05, 1, "00 09 78 2d 74 72 61 69 6c 65 72 01 31");
    frame_hex(&s, T_HEADERS, 0x04, 5, "08 03 31 30 33");
    frame_hex(&s, T_PRIORITY, 0, 5, "0000000310");
    frame_hex(&s, T_HEADERS, 0x05, 5, "88");
    frame_hex(&s, T_RST, 0, 7, "00000007");
    frame_hex(&s, T_WU, 0, 9, "00000100");
    h2_seed("p4_mixed", 0 | P_4, FZ_SPLIT_SMALL, 0, &s);

    /* POST of 70000 bytes: the windows open in steps (SETTINGS
     * INITIAL_WINDOW_SIZE, stream and connection WINDOW_UPDATE); the
     * response comes before the body is all sent (our RST_STREAM CANCEL
     * follows) on stream 1, after it on stream 3. */
    reset(&s);
    frame_hex(&s, T_SETTINGS, 0, 0, "0004 00004000");
    frame(&s, T_SETTINGS, 1, 0, NULL, 0);
    frame_hex(&s, T_WU, 0, 0, "00010000");
    frame_hex(&s, T_WU, 0, 1, "00008000");
    frame_hex(&s, T_SETTINGS, 0, 0, "0004 00100000 0005 00008000");
    frame_hex(&s, T_HEADERS, 0x05, 1, "88");
    frame_hex(&s, T_WU, 0, 0, "00100000");
    frame_hex(&s, T_WU, 0, 3, "00100000");
    frame_hex(&s, T_HEADERS, 0x04, 3, "89");
    frame_hex(&s, T_DATA, 0x01, 3, "");
    h2_seed("post_flow_control", 1 | (1u << 2), FZ_SPLIT_LARGE, 7, &s);

    /* h2o-style dynamic table: a literal :status 200 with incremental
     * indexing, then the same by index 62; a GOAWAY with an error. */
    reset(&s);
    frame(&s, T_SETTINGS, 0, 0, NULL, 0);
    frame_hex(&s, T_HEADERS, 0x05, 1, "48 03 32 30 30 40 06 73 65 72 76 65 72 03 68 32 6f");
    frame_hex(&s, T_HEADERS, 0x05, 3, "be bf");
    frame_hex(&s, T_HEADERS, 0x04, 5, "be");
    frame_hex(&s, T_GOAWAY, 0, 0, "00000005 00000002 6f6f7073");
    h2_seed("dynamic_table_goaway", 0 | P_4, FZ_SPLIT_BYTES, 0, &s);

    /* The 20 KB request block (HEADERS + CONTINUATION), -p 100, a larger
     * MAX_FRAME_SIZE, responses refused and reset. */
    reset(&s);
    frame_hex(&s, T_SETTINGS, 0, 0, "0005 00010000 0003 00000002");
    frame_hex(&s, T_RST, 0, 1, "00000007");
    frame_hex(&s, T_RST, 0, 3, "00000002");
    frame_hex(&s, T_HEADERS, 0x05, 5, "88");
    h2_seed("big_block", 2 | P_100 | 0x20, FZ_SPLIT_LARGE, 0, &s);

    /* A minimal block with an empty body (a bare END_STREAM DATA), output
     * acknowledged in part, the memory used by a connection before. */
    reset(&s);
    frame(&s, T_SETTINGS, 0, 0, NULL, 0);
    frame_hex(&s, T_HEADERS, 0x05, 1, "88");
    h2_seed("empty_body_reinit", 3 | P_1 | 0x40 | 0x80, FZ_SPLIT_WHOLE, 0, &s);
    free(s.b);
}

/* ------------------------------------------------------------ fuzz_tls13_record */

/* [suite] [flags], then records as [type] [length, 2 bytes] [content] */
static void record_seeds(void)
{
    static const char *const names[4] = { "aes128gcm", "aes256gcm", "chacha20", "unkeyed" };
    for (unsigned suite = 0; suite < 4; suite++) {
        struct buf x = { 0 };
        put_u8(&x, (uint8_t)suite);
        put_u8(&x, (uint8_t)(suite & 1 ? 3 : 0));
        put_u8(&x, 22); /* a Finished */
        put_u16(&x, 36);
        put_hex(&x, "14000020 80a2c0d6cbc21078dba30affbf091929278edc832db4bfa1c811c9e8c67da9bb");
        put_u8(&x, 20); /* the compatibility change_cipher_spec */
        put_u16(&x, 1);
        put_u8(&x, 1);
        put_u8(&x, 23);
        put_u16(&x, 38);
        put_str(&x, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n\0\0");
        put_u8(&x, 21); /* close_notify */
        put_u16(&x, 2);
        put_u16(&x, 0x0100);
        put_u8(&x, 23); /* empty application data */
        put_u16(&x, 0);
        char name[64];
        snprintf(name, sizeof name, "records_%s", names[suite]);
        seed("fuzz_tls13_record", name, &x);
        free(x.b);
    }
}

/* ------------------------------------------------------------ TLS capture */

/* A second TLS 1.3 client that follows the server's stream and keeps its
 * handshake messages in the clear (handshake mode's seed). */
static struct shadow {
    struct tls13_hs hs;
    struct tls13_record_dir rd;
    int read_epoch;
    struct buf in;     /* record bytes not yet whole */
    struct buf plain;  /* handshake messages */
    bool failed;
} sh;

static void sh_emit(void *ctx, enum tls13_epoch e, const uint8_t *p, size_t n)
{
    (void)ctx;
    (void)e;
    (void)p;
    (void)n;
}

static void sh_secret(void *ctx, enum tls13_epoch e, bool write, const struct tls13_suite *s, const uint8_t *secret)
{
    (void)ctx;
    if (write)
        return;
    uint8_t key[32], iv[12];
    tls13_traffic_keys(s, secret, key, iv);
    tls13_record_key(&sh.rd, s->id, key, iv);
    sh.read_epoch = (int)e;
}

static void sh_feed(const uint8_t *p, size_t n)
{
    put(&sh.in, p, n);
    size_t off = 0;
    while (!sh.failed && sh.in.len - off >= TLS13_RECORD_HDR) {
        uint8_t *r = sh.in.b + off;
        size_t len = TLS13_RECORD_HDR + ((size_t)r[3] << 8 | r[4]);
        if (sh.in.len - off < len)
            break;
        off += len;
        if (r[0] == TLS13_CT_CHANGE_CIPHER_SPEC)
            continue;
        uint8_t ct, *plain;
        size_t plen;
        if (tls13_record_open(&sh.rd, r, len, &ct, &plain, &plen) != 0) {
            sh.failed = true;
            break;
        }
        if (ct != TLS13_CT_HANDSHAKE)
            continue;
        put(&sh.plain, plain, plen);
        if (tls13_hs_input(&sh.hs, (enum tls13_epoch)sh.read_epoch, plain, plen) < 0)
            sh.failed = true;
    }
    memmove(sh.in.b, sh.in.b + off, sh.in.len - off);
    sh.in.len -= off;
}

static void send_all(int fd, struct tls_conn *t)
{
    size_t n;
    const uint8_t *p = tls_conn_out(t, &n);
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            fprintf(stderr, "mkcorpus: write: %s\n", strerror(errno));
            exit(1);
        }
        tls_conn_out_ack(t, (size_t)w);
        p = tls_conn_out(t, &n);
    }
}

static void on_plain(void *ctx, uint8_t *p, size_t n)
{
    (void)ctx;
    (void)p;
    (void)n;
}

static int capture(int port, bool tls12, const char *raw_path, const char *hs_path)
{
    static _Alignas(64) uint8_t mem[1u << 17];
    uint8_t ent[TLS13_ENTROPY_LEN];
    fz_tls_entropy(ent, sizeof ent);
    struct tls_config cfg = { .server_name = FZ_TLS_SNI, .alpn = fz_tls_alpn, .alpn_len = sizeof fz_tls_alpn };
    struct tls13_hs_config hc = { .server_name = cfg.server_name, .alpn = cfg.alpn, .alpn_len = cfg.alpn_len };
    static const struct tls13_hs_callbacks cbs = { .emit = sh_emit, .secret = sh_secret };
    if (!tls12 && tls13_hs_start(&sh.hs, &hc, ent, &cbs, NULL) != 0)
        return 1;

    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        fprintf(stderr, "mkcorpus: connect to port %d: %s\n", port, strerror(errno));
        return 1;
    }
    struct tls_conn *t = tls_conn_init(mem, &cfg, ent, tls12);
    send_all(fd, t);

    struct buf raw = { 0 };
    put_u8(&raw, tls12 ? 1 | 4 : 4); /* fuzz_tls13_client's flags: TLS 1.2?, echo */
    put_u8(&raw, FZ_SPLIT_LARGE);
    put_u16(&raw, 0x1357);
    bool done = false;
    uint8_t b[65536];
    for (;;) {
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, 3000) <= 0)
            break;
        ssize_t r = read(fd, b, sizeof b);
        if (r <= 0)
            break;
        put(&raw, b, (size_t)r);
        if (!tls12)
            sh_feed(b, (size_t)r);
        int rc = tls_conn_recv(t, b, (size_t)r, on_plain, NULL);
        if (rc == TLS_HANDSHAKE_DONE) {
            static const char req[] = "GET /hello.txt HTTP/1.0\r\n\r\n";
            tls_conn_send(t, (const uint8_t *)req, sizeof req - 1);
            done = true;
        }
        send_all(fd, t);
        if (rc < 0)
            break;
    }
    close(fd);
    if (!done) {
        fprintf(stderr, "mkcorpus: the handshake with port %d did not complete (alert %s)\n", port,
                tls_alert_name(tls_conn_alert(t)));
        return 1;
    }
    write_file(raw_path, &raw);
    if (hs_path) {
        if (sh.failed) {
            fprintf(stderr, "mkcorpus: the shadow client lost the stream\n");
            return 1;
        }
        struct buf hs = { 0 };
        put_u8(&hs, 2 | 0x40); /* handshake mode, KeyUpdate */
        put_u8(&hs, FZ_SPLIT_SMALL);
        put_u16(&hs, 0x1357);
        put(&hs, sh.plain.b, sh.plain.len);
        /* and a KeyUpdate(update_requested) from the server (§4.6.3) */
        put(&hs, (const uint8_t[5]){ 24, 0, 0, 1, 1 }, 5);
        write_file(hs_path, &hs);
        free(hs.b);
    }
    free(raw.b);
    return 0;
}

/* The handshake-mode seed IN, its HelloRetryRequest given a cookie
 * extension (RFC 8446 §4.2.2), to OUT. */
/* A seed file's bytes into in (nothing when it cannot be read). */
static void read_seed(const char *path, struct buf *in)
{
    FILE *f = fopen(path, "rb");
    uint8_t b[4096];
    size_t n;
    while (f && (n = fread(b, 1, sizeof b, f)) > 0)
        put(in, b, n);
    if (f)
        fclose(f);
}

static int add_cookie(const char *in_path, const char *out_path)
{
    struct buf in = { 0 }, out = { 0 };
    read_seed(in_path, &in);
    /* control bytes, then the HRR: type, length, version, random, session
     * id, suite, compression, extensions */
    size_t hrr = 4, sid = hrr + 4 + 2 + 32;
    if (in.len < sid + 1 || in.b[hrr] != 2) {
        fprintf(stderr, "mkcorpus: %s does not start with a HelloRetryRequest\n", in_path);
        return 1;
    }
    size_t ext = sid + 1 + in.b[sid] + 2 + 1;
    size_t msg_len = (size_t)in.b[hrr + 1] << 16 | (size_t)in.b[hrr + 2] << 8 | in.b[hrr + 3];
    size_t ext_len = (size_t)in.b[ext] << 8 | in.b[ext + 1];
    if (ext + 2 + ext_len != hrr + 4 + msg_len || hrr + 4 + msg_len > in.len) {
        fprintf(stderr, "mkcorpus: %s: unexpected HelloRetryRequest layout\n", in_path);
        return 1;
    }
    static const char cookie[] = "002c 0014 0012 636f6f6b69652d66726f6d2d736572766572"; /* "cookie-from-server" */
    struct buf c = { 0 };
    put_hex(&c, cookie);
    put(&out, in.b, hrr + 1);
    put_u8(&out, (uint8_t)((msg_len + c.len) >> 16));
    put_u16(&out, (msg_len + c.len) & 0xffff);
    put(&out, in.b + hrr + 4, ext - (hrr + 4));
    put_u16(&out, ext_len + c.len);
    put(&out, in.b + ext + 2, ext_len);
    put(&out, c.b, c.len);
    put(&out, in.b + ext + 2 + ext_len, in.len - (ext + 2 + ext_len));
    write_file(out_path, &out);
    free(in.b);
    free(out.b);
    free(c.b);
    return 0;
}

/* ------------------------------------------------------------ fuzz_qpack */

/* [split point, 2 bytes] + a field section (also fed as an encoder stream) */
static void qpack_seed(const char *name, uint16_t cut, const char *hex)
{
    struct buf x = { 0 };
    put_u16(&x, cut);
    put_hex(&x, hex);
    seed("fuzz_qpack", name, &x);
    free(x.b);
}

static void qpack_seeds(void)
{
    struct buf x = { 0 };
    /* (RFC 9204 B.1 itself is a unit test, test/unit/unit_qpack.c; the
     * request-section seed below covers literals with name references.) */
    qpack_seed("response_200", 1, "0000 d9");                    /* indexed :status 200 (25) */
    qpack_seed("response_404_server", 2, "0000 db 5f0e 03 736862"); /* :status 404, server: shb */
    qpack_seed("pseudo_after_regular", 2, "0000 5f0e 03 616263 d9");
    qpack_seed("encoder_stream_cap0", 1, "2020"); /* two Set Dynamic Table Capacity 0 */

    /* What qpack_encode_request sends for GET http://example.com:8080/index.html. */
    struct shb_request o = t_request_base();
    o.target = "/index.html";
    size_t len;
    uint8_t *req = qpack_encode_request(&o, &len);
    if (!req)
        abort();
    put_u16(&x, 3);
    put(&x, req, len);
    seed("fuzz_qpack", "request", &x);
    free(req);
    free(x.b);
}

/* ------------------------------------------------------------ fuzz_h3 */

static void put_varint(struct buf *x, uint64_t v)
{
    uint8_t tmp[8], *e = quic_varint_put(tmp, tmp + 8, v);
    if (!e)
        abort();
    put(x, tmp, (size_t)(e - tmp));
}

/* An HTTP/3 frame (RFC 9114 §7.1), its payload as hex. */
static void h3_frame_hex(struct buf *x, uint64_t type, const char *hex)
{
    struct buf p = { 0 };
    put_hex(&p, hex);
    put_varint(x, type);
    put_varint(x, p.len);
    put(x, p.b, p.len);
    free(p.b);
}

/* [split mode] [split seed] [fin bits: 1 fin, 2 fin apart] + a stream's bytes */
static void h3_seed(const char *name, uint8_t mode, uint8_t fin_bits, const struct buf *stream)
{
    struct buf x = { 0 };
    put_u8(&x, mode);
    put_u16(&x, 0x5a5a);
    put_u8(&x, fin_bits);
    put(&x, stream->b, stream->len);
    seed("fuzz_h3", name, &x);
    free(x.b);
}

static void h3_seeds(void)
{
    struct buf s = { 0 };
    /* Real traffic: each stream Bun (lsquic) sent in test/vectors/quic_conn_trace.h,
     * the responses with their FIN, in small pieces. */
    for (size_t i = 0; i < QCT_NSTREAMS; i++) {
        char name[64];
        snprintf(name, sizeof name, "bun_trace_stream_%llu", (unsigned long long)qct_streams[i].id);
        reset(&s);
        put(&s, qct_streams[i].p, qct_streams[i].n);
        h3_seed(name, FZ_SPLIT_SMALL, qct_streams[i].fin ? 1 : 0, &s);
    }
    (void)qct_dgrams, (void)qct_control, (void)qct_reqs; /* the trace's other half: unit_quic_conn's */
    reset(&s);
    /* An nginx-like response: HEADERS (:status 200, server: nginx,
     * content-type: text/html; charset=utf-8, content-length: 5 by name),
     * DATA, fin. */
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 d9 5f4d 05 6e67696e78 f4 54 01 35");
    h3_frame_hex(&s, H3_FRAME_DATA, "68656c6c6f");
    h3_seed("get_200_nginx", FZ_SPLIT_WHOLE, 1, &s);

    /* 103 Early Hints with a link, 100, then 404 with a Huffman server
     * name and x-a: b, two DATA frames around a GREASE frame, trailers, GREASE. */
    reset(&s);
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 d8 5b 0c 3c2f612e6373733e3b72656c");
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 ff00");
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 db 5f4d 85 aa69d29afd 23 782d61 01 62");
    h3_frame_hex(&s, H3_FRAME_DATA, "6e6f7420");
    h3_frame_hex(&s, 0x21, "");
    h3_frame_hex(&s, H3_FRAME_DATA, "666f756e64");
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 26 782d74696d65 03 313233");
    h3_frame_hex(&s, 0x1f * 3 + 0x21, "0001020304");
    h3_seed("interim_data_trailers", FZ_SPLIT_SMALL, 3, &s);

    /* A response whose HEADERS carries 40 fields, fed byte by byte. */
    reset(&s);
    struct buf f = { 0 };
    put_hex(&f, "0000 d9");
    for (int i = 0; i < 40; i++) {
        char name[16], value[40];
        snprintf(name, sizeof name, "x-h%d", i);
        snprintf(value, sizeof value, "value-%d-abcdefghij", i * 31);
        put_u8(&f, (uint8_t)(0x20 | strlen(name))); /* literal name, raw */
        put_str(&f, name);
        put_u8(&f, (uint8_t)strlen(value));
        put_str(&f, value);
    }
    put_varint(&s, H3_FRAME_HEADERS);
    put_varint(&s, f.len);
    put(&s, f.b, f.len);
    free(f.b);
    h3_frame_hex(&s, H3_FRAME_DATA, "6f6b");
    h3_seed("many_fields", FZ_SPLIT_BYTES, 1, &s);

    /* Request-stream errors: DATA first; a PUSH_PROMISE; 101. */
    reset(&s);
    h3_frame_hex(&s, H3_FRAME_DATA, "00");
    h3_seed("data_first", FZ_SPLIT_WHOLE, 1, &s);
    reset(&s);
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 d9");
    h3_frame_hex(&s, H3_FRAME_PUSH_PROMISE, "00 0000 d1 d7 c1");
    h3_seed("push_promise", FZ_SPLIT_LARGE, 1, &s);
    reset(&s);
    h3_frame_hex(&s, H3_FRAME_HEADERS, "0000 5f09 03 313031");
    h3_seed("status_101", FZ_SPLIT_SMALL, 1, &s);

    /* A server's control stream, type included: SETTINGS (QPACK 0/0,
     * MAX_FIELD_SECTION_SIZE 16384, a GREASE one), GREASE, two GOAWAYs. */
    reset(&s);
    put_hex(&s, "00");
    h3_frame_hex(&s, H3_FRAME_SETTINGS, "0100 0700 06 80004000 4040 00");
    h3_frame_hex(&s, 0x21, "abcd");
    h3_frame_hex(&s, H3_FRAME_GOAWAY, "800003e8");
    h3_frame_hex(&s, H3_FRAME_GOAWAY, "08");
    h3_seed("control_stream", FZ_SPLIT_SMALL, 0, &s);
    /* Its frames alone (the fuzzer also puts the type 0x00 in front). */
    reset(&s);
    h3_frame_hex(&s, H3_FRAME_SETTINGS, "06 4400 0800");
    h3_frame_hex(&s, H3_FRAME_GOAWAY, "04");
    h3_frame_hex(&s, H3_FRAME_GOAWAY, "08");
    h3_seed("control_frames_goaway_up", FZ_SPLIT_BYTES, 0, &s);

    /* Ours, as h3_control_stream writes it. */
    reset(&s);
    uint8_t ctl[32];
    size_t n = h3_control_stream(ctl, sizeof ctl);
    put(&s, ctl, n);
    h3_seed("our_control_stream", FZ_SPLIT_BYTES, 1, &s);

    /* QPACK streams: the encoder's Set Dynamic Table Capacity 0, then an
     * insert; the decoder's bytes. */
    reset(&s);
    put_hex(&s, "02 20 20 c00f 7777772e6578616d706c652e636f6d");
    h3_seed("encoder_stream", FZ_SPLIT_SMALL, 0, &s);
    reset(&s);
    put_hex(&s, "03 00 80 c1");
    h3_seed("decoder_stream", FZ_SPLIT_WHOLE, 1, &s);
    free(s.b);
}

/* ------------------------------------------------------------ fuzz_quic */

/* [mode] + the mode's bytes (see fuzz_quic.c); hex pieces concatenated. */
static void quic_seed(const char *name, const char *h1, const char *h2, const char *h3)
{
    struct buf x = { 0 };
    put_hex(&x, h1);
    put_hex(&x, h2);
    if (h3)
        put_hex(&x, h3);
    seed("fuzz_quic", name, &x);
    free(x.b);
}

static void quic_seeds(void)
{
    /* Mode 0, packets: [0] [short DCID length] [flags: 1 client keys, 2 no
     * largest packet number] + a datagram: RFC 9001 A.2 - A.5. */
    struct buf x = { 0 };
    put_hex(&x, "000803");
    put_hex(&x, Q_A2_HDR_PROT);
    put_hex(&x, Q_A2_CIPHER);
    seed("fuzz_quic", "packet_rfc9001_a2_client_initial", &x);
    reset(&x);
    put_hex(&x, "000802");
    for (int i = 0; i < 2; i++) {
        put_hex(&x, Q_A3_HDR_PROT);
        put_hex(&x, Q_A3_CIPHER);
        if (i == 0)
            seed("fuzz_quic", "packet_rfc9001_a3_server_initial", &x);
    }
    seed("fuzz_quic", "packet_rfc9001_a3_coalesced", &x);
    quic_seed("packet_rfc9001_a4_retry", "000802", Q_A4_RETRY, NULL);
    quic_seed("packet_rfc9001_a5_short", "000002", Q_A5_PACKET, NULL);

    /* Mode 1, frames: A.2's CRYPTO frame, A.3's ACK and CRYPTO, and a mix:
     * STREAM (LEN, FIN), ACK_ECN of two ranges, PADDING, PING,
     * HANDSHAKE_DONE, CONNECTION_CLOSE. */
    quic_seed("frames_rfc9001_a2", "01", Q_A2_PLAIN, NULL);
    quic_seed("frames_rfc9001_a3", "01", Q_A3_PLAIN, NULL);
    quic_seed("frames_mixed", "01", "0b 04 05 68656c6c6f  03 0a 00 01 02 01 00 01 02 03  0000 01 1e",
              "1c 0a 06 03 626164");

    /* Mode 2, transport parameters: A.2's (the 0x39 extension's body). */
    const char *tp = strstr(Q_A2_PLAIN, "00390032");
    if (!tp)
        abort();
    char body[2 * 0x32 + 1];
    memcpy(body, tp + 8, 2 * 0x32);
    body[2 * 0x32] = 0;
    quic_seed("tparams_rfc9001_a2", "02", body, NULL);

    /* Mode 3, ACK set: [3] [base, 8 bytes] + 2-byte operations (low 9 bits
     * the offset from base; 0xf... drops below). */
    quic_seed("ackset_small", "03 0000000000000000", "0000 0001 0002 0005 0007 0003 0001 f002 0001 0064 0063 0065",
              NULL);
    reset(&x);
    put_hex(&x, "03 000000000000fff0");
    for (unsigned pn = 0; pn < 84; pn += 2) /* more ranges than QUIC_ACKSET_CAP */
        put_u16(&x, pn);
    put_hex(&x, "0000 0001 0053 0029 01f4");
    seed("fuzz_quic", "ackset_full", &x);
    free(x.b);
}

/* ------------------------------------------------------------ fuzz_quic_conn */

/* Record headers (see fuzz_quic_conn.c): the space in bits 0-1, the time
 * before the record in bits 2-7 (k*k * 50 us; 63: to the deadline). */
#define QC_INITIAL 0
#define QC_HANDSHAKE 1
#define QC_APP 2
#define QC_T(k) ((uint8_t)((k) << 2))
#define QC_TO_DEADLINE QC_T(63)

/* One record: [hdr] [pn op] [length] + the payload. */
static void qc_rec(struct buf *x, uint8_t hdr, uint8_t op, const struct buf *pl)
{
    put_u8(x, hdr);
    put_u8(x, op);
    put_u16(x, pl->len);
    put(x, pl->b, pl->len);
}

static void qc_rec_hex(struct buf *x, uint8_t hdr, uint8_t op, const char *hex)
{
    struct buf p = { 0 };
    put_hex(&p, hex);
    qc_rec(x, hdr, op, &p);
    free(p.b);
}

/* A STREAM frame with LEN, OFF when off > 0. */
static void qc_stream(struct buf *x, uint64_t id, uint64_t off, const void *data, size_t n, bool fin)
{
    put_u8(x, (uint8_t)(QUIC_FT_STREAM | QUIC_STREAM_BIT_LEN | (off ? QUIC_STREAM_BIT_OFF : 0) | (fin ? 1 : 0)));
    put_varint(x, id);
    if (off)
        put_varint(x, off);
    put_varint(x, n);
    put(x, data, n);
}

static void qc_seed(const char *name, uint8_t flags, uint8_t limits, const struct buf *records)
{
    struct buf x = { 0 };
    put_u8(&x, flags);
    put_u8(&x, limits);
    put(&x, records->b, records->len);
    seed("fuzz_quic_conn", name, &x);
    free(x.b);
}

/* The server's control stream (type, SETTINGS with QPACK 0/0) and an
 * nginx-like response (HEADERS :status 200 ..., DATA "hello"). */
static void qc_h3(struct buf *control, struct buf *resp)
{
    put_hex(control, "00");
    h3_frame_hex(control, H3_FRAME_SETTINGS, "0100 0700");
    h3_frame_hex(resp, H3_FRAME_HEADERS, "0000 d9 5f4d 05 6e67696e78 f4 54 01 35");
    h3_frame_hex(resp, H3_FRAME_DATA, "68656c6c6f");
}

static void quic_conn_seeds(void)
{
    struct buf r = { 0 }, pl = { 0 }, ctl = { 0 }, resp = { 0 };
    qc_h3(&ctl, &resp);

    /* Four streams answered in order: the server's control stream, an ACK
     * of our first packets and HANDSHAKE_DONE, each response in one STREAM
     * frame with FIN (a few per packet), MAX_STREAMS, NEW_CONNECTION_ID,
     * then the server's CONNECTION_CLOSE (H3_NO_ERROR). */
    reset(&pl);
    qc_stream(&pl, 3, 0, ctl.b, ctl.len, false);
    put_hex(&pl, "02 00 00 00 00  1e");
    qc_rec(&r, QC_APP | QC_T(20), 0, &pl);
    for (uint64_t id = 0; id < 16; id += 8) {
        reset(&pl);
        qc_stream(&pl, id, 0, resp.b, resp.len, true);
        qc_stream(&pl, id + 4, 0, resp.b, resp.len, true);
        put_hex(&pl, "02 01 00 00 01");
        qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    }
    qc_rec_hex(&r, QC_APP | QC_T(8), 0,
               "12 10  18 01 00 08 1122334455667788 000102030405060708090a0b0c0d0e0f  02 03 00 00 03");
    for (uint64_t id = 16; id < 32; id += 4) {
        reset(&pl);
        qc_stream(&pl, id, 0, resp.b, resp.len, true);
        qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    }
    qc_rec_hex(&r, QC_APP | QC_T(10), 0, "1d 4100 04 646f6e65");
    qc_seed("get_200_four", 0x04, 0x30, &r);

    /* Real traffic: what Bun sent on its streams in test/vectors/quic_conn_trace.h
     * (control, QPACK encoder and decoder; responses to GET /, /bytes/5000
     * and /status/204), in 1,000-byte STREAM frames, the uni streams first,
     * then the responses' pieces last first (each one's FIN comes before
     * its data), an ACK of our first packets, HANDSHAKE_DONE. */
    reset(&r);
    reset(&pl);
    put_hex(&pl, "02 00 00 00 00  1e");
    qc_rec(&r, QC_APP | QC_T(4), 0, &pl);
    for (int uni = 1; uni >= 0; uni--)
        for (size_t i = 0; i < QCT_NSTREAMS; i++) {
            if (((qct_streams[i].id & 3) != 0) != uni)
                continue;
            size_t n = qct_streams[i].n, pieces = (n + 999) / 1000;
            for (size_t k = pieces; k-- > 0;) {
                size_t off = k * 1000, len = n - off < 1000 ? n - off : 1000;
                reset(&pl);
                qc_stream(&pl, qct_streams[i].id, off, qct_streams[i].p + off, len,
                          qct_streams[i].fin && off + len == n);
                qc_rec(&r, QC_APP | QC_T(2), 0, &pl);
            }
        }
    qc_seed("bun_trace_streams", 0x04, 0x30, &r);

    /* Out of order: the response in three pieces, the last (FIN) first,
     * the first last; a duplicate of the middle; an old packet number
     * again (a repeat: dropped). */
    reset(&r);
    reset(&pl);
    qc_stream(&pl, 0, 20, resp.b + 20, resp.len - 20, true);
    qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    reset(&pl);
    qc_stream(&pl, 0, 8, resp.b + 8, 12, false);
    qc_rec(&r, QC_APP | QC_T(8), 0x82, &pl);
    qc_rec(&r, QC_APP | QC_T(8), 0x41, &pl);
    reset(&pl);
    qc_stream(&pl, 0, 0, resp.b, 10, false);
    put_hex(&pl, "02 00 00 00 00");
    qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    qc_seed("out_of_order", 0x01, 0x30, &r);

    /* STREAM frames without LEN (to the end of the packet), an empty FIN
     * on its own, data for a stream already closed, then an idle timeout
     * (the clock run to the deadline). */
    reset(&r);
    reset(&pl);
    put_hex(&pl, "0c 00 05");
    put(&pl, resp.b + 5, resp.len - 5);
    qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    reset(&pl);
    qc_stream(&pl, 0, 0, resp.b, 5, false);
    qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    reset(&pl);
    put_hex(&pl, "0d 00"); /* FIN at the end, nothing new */
    put_varint(&pl, resp.len);
    qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    reset(&pl);
    qc_stream(&pl, 0, 0, resp.b, resp.len, true);
    qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    qc_rec_hex(&r, QC_APP | QC_TO_DEADLINE, 0, "01");
    qc_rec_hex(&r, QC_APP | QC_TO_DEADLINE, 0, "01");
    qc_rec_hex(&r, QC_APP | QC_TO_DEADLINE, 0, "01");
    qc_seed("no_len_fin_apart_idle", 0x02, 0x38, &r);

    /* MAX_STREAMS 0 at first: STREAMS_BLOCKED goes out; then room for 3,
     * 6, and the uni limit raised. */
    reset(&r);
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "16 00  01  1e");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "12 03  02 00 00 00 00");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "12 02  13 08");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "12 06  02 02 00 00 02");
    qc_seed("max_streams", 0x00, 0x30, &r);

    /* Flow control: a 3000-byte request against a 100-byte stream window
     * and 1000-byte MAX_DATA; credit arrives in steps, with DATA_BLOCKED
     * and STREAM_DATA_BLOCKED in between (and HANDSHAKE_DONE: until then
     * 1-RTT data has no PTO, RFC 9002 §6.2.1); then ACKs, a PTO (to the
     * deadline) and more ACKs. */
    reset(&r);
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "14 80000400  15 00 4064  02 00 00 00 00  1e");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "10 4800  11 00 4800  11 04 4400");
    qc_rec_hex(&r, QC_APP | QC_TO_DEADLINE, 0, "01");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "10 80010000  11 00 80010000  11 04 80010000 02 03 00 00 03");
    qc_rec_hex(&r, QC_APP | QC_TO_DEADLINE, 0, "02 09 00 00 09");
    qc_seed("flow_control", 0x32, 0x30, &r);

    /* Resets: RESET_STREAM of stream 0, STOP_SENDING of 4 (H3_NO_ERROR
     * and H3_REQUEST_REJECTED), RESET_STREAM of the server's control
     * stream, STOP_SENDING of our control stream; an abandoned stream
     * (pn op 3) that data then arrives for. */
    reset(&r);
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "04 00 410c 00  05 04 4100  05 08 410b");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "04 03 4104 00  05 02 4104");
    reset(&pl);
    qc_stream(&pl, 12, 0, resp.b, resp.len, true);
    qc_rec(&r, QC_APP | QC_T(8), 0xc0, &pl);
    qc_seed("resets", 0x04, 0x30, &r);

    /* Connection IDs: several NEW_CONNECTION_IDs, one retiring the ones
     * before it (we move to another and retire ours), RETIRE_CONNECTION_ID
     * of our only one, PATH_CHALLENGE, NEW_TOKEN, PING, PADDING. */
    reset(&r);
    qc_rec_hex(&r, QC_APP | QC_T(8), 0,
               "18 01 00 08 a1a2a3a4a5a6a7a8 101112131415161718191a1b1c1d1e1f"
               "18 02 00 04 b1b2b3b4 202122232425262728292a2b2c2d2e2f");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0,
               "18 05 03 10 c1c2c3c4c5c6c7c8c9cacbcccdcecfc0 303132333435363738393a3b3c3d3e3f  19 00");
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "1a 0102030405060708  07 04 74746b6e  01  000000");
    qc_seed("connection_ids", 0x41, 0x30, &r);

    /* Our keys change every two packets (once HANDSHAKE_DONE confirmed
     * the handshake): ACKs keep coming as responses do. */
    reset(&r);
    qc_rec_hex(&r, QC_APP | QC_T(8), 0, "1e");
    for (uint64_t id = 0; id < 24; id += 4) {
        reset(&pl);
        qc_stream(&pl, id, 0, resp.b, resp.len, true);
        put_hex(&pl, "02");
        put_varint(&pl, id / 4);
        put_hex(&pl, "00 00");
        put_varint(&pl, id / 4);
        qc_rec(&r, QC_APP | QC_T(8), 0, &pl);
    }
    qc_seed("key_updates", 0x0e, 0x30, &r);

    /* No handshake skipped: the Initial space, an ACK of our ClientHello,
     * PADDING and PING, a CRYPTO frame out of order, then the server's
     * CONNECTION_CLOSE (a transport error, CRYPTO_ERROR 0x128). */
    reset(&r);
    qc_rec_hex(&r, QC_INITIAL | QC_T(10), 0, "02 00 00 00 00 0000 01");
    qc_rec_hex(&r, QC_INITIAL | QC_T(1), 0, "06 4100 04 16030300");
    qc_rec_hex(&r, QC_INITIAL | QC_T(1), 0, "1c 4128 06 00");
    qc_seed("initial_close", 0x80, 0x00, &r);

    /* Handshake space after the skip: PING and PADDING (we acknowledge
     * them), then a CRYPTO frame (the TLS engine did no handshake: an
     * error), or one in the wrong space (STREAM in Handshake:
     * PROTOCOL_VIOLATION). */
    reset(&r);
    qc_rec_hex(&r, QC_HANDSHAKE | QC_T(4), 0, "01 0000");
    size_t at = r.len;
    qc_rec_hex(&r, QC_HANDSHAKE | QC_T(4), 0, "0b 00 01 00");
    qc_seed("handshake_space", 0x01, 0x30, &r);
    r.len = at;
    qc_rec_hex(&r, QC_HANDSHAKE | QC_T(4), 0, "06 00 04 14000020");
    qc_seed("handshake_crypto", 0x01, 0x30, &r);

    free(r.b);
    free(pl.b);
    free(ctl.b);
    free(resp.b);
}

/* --resume: the control bytes [flags | 0x80] [mode] [seed, 2 bytes] then
 * the resume byte, then the same server bytes. */
static int add_resume(const char *in_path, const char *out_path, uint8_t resume)
{
    struct buf in = { 0 }, out = { 0 };
    read_seed(in_path, &in);
    if (in.len < 4 || !(in.b[0] & 2)) {
        fprintf(stderr, "mkcorpus: %s is not a handshake-mode seed\n", in_path);
        return 1;
    }
    put_u8(&out, in.b[0] | 0x80);
    put(&out, in.b + 1, 3);
    put_u8(&out, resume);
    put(&out, in.b + 4, in.len - 4);
    write_file(out_path, &out);
    free(in.b);
    free(out.b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--resume") == 0)
        return add_resume(argv[2], argv[3], (uint8_t)atoi(argv[4]));
    if (argc == 4 && strcmp(argv[1], "--cookie") == 0)
        return add_cookie(argv[2], argv[3]);
    if (argc >= 5 && strcmp(argv[1], "--capture") == 0)
        return capture(atoi(argv[2]), strcmp(argv[3], "12") == 0, argv[4], argc > 5 ? argv[5] : NULL);
    if (argc != 2) {
        fprintf(stderr, "usage: mkcorpus DIR | mkcorpus --capture PORT 13|12 RAW [HS] | mkcorpus --cookie IN OUT | "
                        "mkcorpus --resume IN OUT BYTE\n");
        return 2;
    }
    out_dir = argv[1];
    mkdir(out_dir, 0755);
    h1_seeds();
    hpack_seeds();
    h2_seeds();
    record_seeds();
    qpack_seeds();
    h3_seeds();
    quic_seeds();
    quic_conn_seeds();
    return 0;
}
