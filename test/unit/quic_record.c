/* test/unit/quic_record.c — records a real HTTP/3 server's side of one QUIC
 * connection, for test/unit/unit_quic_conn.c to replay (a dev tool: `make unit`
 * builds it, `make test` never runs it).
 *
 *   san=$(python3 -c "print(','.join('DNS:host%03d.a-rather-long-test-domain-name.example' % i
 *                                    for i in range(90)))")
 *   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
 *       -keyout k.pem -out c.pem -subj /CN=localhost -days 3650 \
 *       -addext "subjectAltName=DNS:localhost,$san"
 *   test/node_modules/.bin/bun test/servers/bun_h3_server.js 44333 /tmp/log c.pem k.pem &
 *   build/test/quic_record 44333 "Bun 1.4.5 (lsquic), test/servers/bun_h3_server.js" > test/vectors/quic_conn_trace.h
 *
 * The certificate is a P-256 one padded with 90 names (4.7 KB) so that the
 * server's Handshake flight takes five datagrams (and meets the
 * anti-amplification limit on the way): test/unit/unit_quic_conn.c reorders
 * them. Its checks name datagrams of the trace by index (5: the 1-RTT
 * packet with HANDSHAKE_DONE, 6: a Handshake ACK after it); a new
 * recording must keep that layout or the test be adjusted.
 *
 * The client is quic/conn.c itself, run deterministically: fixed entropy
 * (bytes 0..191), the config below (QCT_* in the header), and a clock of its
 * own that never reads the real one: it starts at 1 s, moves 1 ms per
 * datagram received, and when the server has been silent for 50 ms of real
 * time jumps to the connection's next deadline. Once established it opens
 * our three HTTP/3 unidirectional streams and the requests below, all at
 * once; when every response has ended (or 5 s passed) it closes with
 * H3_NO_ERROR and writes, as a C header on stdout: every datagram the server
 * sent, in arrival order, with the clock at its arrival; the index after
 * which the streams were opened; the bytes of the requests and of our
 * control stream; and what each stream delivered (for the replay to
 * compare). Our ClientHello (key share and all) depends only on the
 * entropy and config, so a fresh engine given the same entropy opens the
 * server's Initial and Handshake packets, and the 1-RTT keys come from the
 * handshake: the replay decrypts everything whatever its own packets say. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "h3.h"
#include "quic/conn.h"
#include "request.h"

/* The config both sides use (the replay needs the same ClientHello). */
#define QCT_MAX_STREAMS 4
#define QCT_STREAM_WINDOW 16384
#define QCT_CONN_WINDOW (1u << 20)
#define QCT_IDLE_MS 30000
static const char *const targets[] = { "/", "/bytes/5000", "/status/204" };
#define NREQ (sizeof targets / sizeof targets[0])

#define MAX_DGRAMS 256
static uint8_t *dgram[MAX_DGRAMS];
static size_t dgram_len[MAX_DGRAMS];
static uint64_t dgram_time[MAX_DGRAMS];
static size_t ndgrams;

struct sbuf {
    uint64_t id;
    uint8_t *p;
    size_t n;
    bool fin;
};
static struct sbuf sbufs[32];
static size_t nsbufs;

static void on_data(void *ctx, uint64_t id, const uint8_t *p, size_t n, bool fin)
{
    (void)ctx;
    size_t i;
    for (i = 0; i < nsbufs && sbufs[i].id != id; i++)
        ;
    if (i == nsbufs) {
        if (nsbufs == sizeof sbufs / sizeof sbufs[0])
            return;
        sbufs[nsbufs++] = (struct sbuf){ .id = id };
    }
    struct sbuf *s = &sbufs[i];
    s->p = realloc(s->p, s->n + n + 1);
    if (s->p == NULL)
        exit(2);
    if (n)
        memcpy(s->p + s->n, p, n);
    s->n += n;
    s->fin |= fin;
}

static void on_reset(void *ctx, uint64_t id, uint64_t code, bool stop)
{
    (void)ctx;
    fprintf(stderr, "reset stream %llu code 0x%llx%s\n", (unsigned long long)id, (unsigned long long)code,
            stop ? " (STOP_SENDING)" : "");
}

static void put_bytes(const char *name, const uint8_t *p, size_t n)
{
    printf("static const uint8_t %s[%zu] = {", name, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        printf("%s0x%02x,", i % 16 ? " " : "\n    ", p[i]);
    printf("%s};\n", n ? "\n" : "0");
}

static bool all_done(uint64_t *ids)
{
    for (size_t r = 0; r < NREQ; r++) {
        size_t i;
        for (i = 0; i < nsbufs && sbufs[i].id != ids[r]; i++)
            ;
        if (i == nsbufs || !sbufs[i].fin)
            return false;
    }
    return true;
}

static uint64_t real_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: quic_record PORT [SERVER-DESCRIPTION] > test/vectors/quic_conn_trace.h\n");
        return 2;
    }
    int port = atoi(argv[1]);
    const char *server = argc > 2 ? argv[2] : "an HTTP/3 server";
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror("socket");
        return 1;
    }

    static const uint8_t alpn[] = "\x02h3";
    static const struct quic_conn_config cfg = {
        .server_name = "localhost",
        .alpn = alpn,
        .alpn_len = 3,
        .max_streams = QCT_MAX_STREAMS,
        .stream_window = QCT_STREAM_WINDOW,
        .conn_window = QCT_CONN_WINDOW,
        .idle_timeout_ns = QCT_IDLE_MS * 1000000ull,
    };
    static const struct quic_conn_callbacks cb = { on_data, on_reset };
    uint8_t entropy[QUIC_CONN_ENTROPY];
    for (size_t i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)i;

    uint8_t control[64];
    size_t control_len = h3_control_stream(control, sizeof control);
    static const uint8_t enc = H3_STREAM_QPACK_ENCODER, dec = H3_STREAM_QPACK_DECODER;
    char authority[64];
    snprintf(authority, sizeof authority, "localhost:%d", port);
    struct h3_request req[NREQ];
    for (size_t r = 0; r < NREQ; r++) {
        struct shb_request o = { .https = true, .authority = authority, .target = targets[r] };
        if (h3_request_build(&req[r], &o) != 0)
            return 2;
    }

    void *mem = aligned_alloc(64, (quic_conn_size(&cfg) + 63) & ~(size_t)63);
    uint64_t now = 1000000000ull;
    struct quic_conn *c = quic_conn_init(mem, &cfg, entropy, &cb, NULL, now);
    if (c == NULL)
        return 2;
    uint64_t ids[NREQ];
    size_t opened_after = 0;
    bool started = false, closing = false;
    uint64_t t0 = real_ms(), quiet_since = 0;
    static uint8_t out[16 * QUIC_DGRAM_SIZE];

    for (;;) {
        if (quic_conn_state(c) == QUIC_ESTABLISHED && !started) {
            started = true;
            opened_after = ndgrams;
            quic_conn_open_uni(c, control, control_len);
            quic_conn_open_uni(c, &enc, 1);
            quic_conn_open_uni(c, &dec, 1);
            for (size_t r = 0; r < NREQ; r++)
                ids[r] = quic_conn_open(c, req[r].bytes, req[r].len);
        }
        if (started && !closing && (all_done(ids) || real_ms() - t0 > 5000)) {
            closing = true;
            quic_conn_close(c, true, H3_NO_ERROR, "");
        }
        size_t seg, n = quic_conn_output(c, out, sizeof out, 16, &seg, now);
        for (size_t off = 0; off < n; off += seg)
            if (send(fd, out + off, n - off < seg ? n - off : seg, 0) < 0)
                perror("send");
        if (quic_conn_state(c) == QUIC_CLOSED)
            break;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, 50) > 0) {
            uint8_t buf[2048];
            ssize_t k = recv(fd, buf, sizeof buf, 0);
            if (k <= 0)
                continue;
            if (ndgrams == MAX_DGRAMS) {
                fprintf(stderr, "more than %d datagrams\n", MAX_DGRAMS);
                return 1;
            }
            now += 1000000;
            dgram[ndgrams] = malloc((size_t)k);
            memcpy(dgram[ndgrams], buf, (size_t)k);
            dgram_len[ndgrams] = (size_t)k;
            dgram_time[ndgrams++] = now;
            quic_conn_input(c, buf, (size_t)k, now);
            quiet_since = 0;
        } else {
            uint64_t d = quic_conn_deadline(c);
            if (quiet_since == 0)
                quiet_since = real_ms();
            if (d != UINT64_MAX && d > now)
                now = d;
            if (real_ms() - t0 > 10000) {
                fprintf(stderr, "gave up after 10 s\n");
                break;
            }
        }
        if (quic_conn_deadline(c) <= now)
            quic_conn_timeout(c, now);
    }
    const struct quic_conn_counters *k = quic_conn_counters(c);
    fprintf(stderr, "%zu datagrams, state %d, close kind %d code 0x%llx, alpn %s, packets sent %llu, recv %llu\n",
            ndgrams, quic_conn_state(c), quic_conn_close_info(c)->kind, (unsigned long long)quic_conn_close_info(c)->code,
            quic_conn_alpn(c), (unsigned long long)k->packets_sent, (unsigned long long)k->packets_received);
    if (!started)
        return 1;

    time_t t = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&t));
    printf("/* test/vectors/quic_conn_trace.h — generated by test/unit/quic_record.c (see its header);\n"
           " * do not edit. Server: %s, 127.0.0.1:%d, recorded %s.\n"
           " * Certificate: P-256 with 90 subjectAltNames (4.7 KB), see quic_record.c.\n"
           " * Client: quic/conn.c with entropy bytes 0..191 and the QCT_* config below;\n"
           " * requests: GET",
           server, port, date);
    for (size_t r = 0; r < NREQ; r++)
        printf(" %s", targets[r]);
    printf(".\n * Every datagram the server sent, in arrival order, with the recorder's\n"
           " * clock (ns) at its arrival; QCT_OPEN_AFTER: the streams were opened once\n"
           " * that many had been fed. */\n"
           "#ifndef SHB_TEST_QUIC_CONN_TRACE_H\n#define SHB_TEST_QUIC_CONN_TRACE_H\n\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n");
    printf("#define QCT_MAX_STREAMS %d\n#define QCT_STREAM_WINDOW %d\n#define QCT_CONN_WINDOW %u\n"
           "#define QCT_IDLE_MS %d\n#define QCT_OPEN_AFTER %zu\n#define QCT_NDGRAMS %zu\n#define QCT_NREQ %zu\n\n",
           QCT_MAX_STREAMS, QCT_STREAM_WINDOW, QCT_CONN_WINDOW, QCT_IDLE_MS, opened_after, ndgrams, NREQ);
    char name[32];
    for (size_t i = 0; i < ndgrams; i++) {
        snprintf(name, sizeof name, "qct_d%zu", i);
        put_bytes(name, dgram[i], dgram_len[i]);
    }
    printf("\nstruct qct_dgram {\n    const uint8_t *p;\n    size_t n;\n    uint64_t t;\n};\n"
           "static const struct qct_dgram qct_dgrams[QCT_NDGRAMS] = {\n");
    for (size_t i = 0; i < ndgrams; i++)
        printf("    { qct_d%zu, %zu, %lluull },\n", i, dgram_len[i], (unsigned long long)dgram_time[i]);
    printf("};\n\n");
    put_bytes("qct_control", control, control_len);
    for (size_t r = 0; r < NREQ; r++) {
        snprintf(name, sizeof name, "qct_req%zu", r);
        put_bytes(name, req[r].bytes, req[r].len);
    }
    printf("static const struct { const uint8_t *p; size_t n; } qct_reqs[QCT_NREQ] = {\n");
    for (size_t r = 0; r < NREQ; r++)
        printf("    { qct_req%zu, %zu },\n", r, req[r].len);
    printf("};\n\n/* What each stream delivered to the recorder, in order. */\n");
    for (size_t i = 0; i < nsbufs; i++) {
        snprintf(name, sizeof name, "qct_s%zu", i);
        put_bytes(name, sbufs[i].p, sbufs[i].n);
    }
    printf("#define QCT_NSTREAMS %zu\nstatic const struct { uint64_t id; const uint8_t *p; size_t n; bool fin; } "
           "qct_streams[QCT_NSTREAMS] = {\n", nsbufs);
    for (size_t i = 0; i < nsbufs; i++)
        printf("    { %llu, qct_s%zu, %zu, %s },\n", (unsigned long long)sbufs[i].id, i, sbufs[i].n,
               sbufs[i].fin ? "true" : "false");
    printf("};\n\n#endif\n");
    for (size_t i = 0; i < ndgrams; i++)
        free(dgram[i]);
    for (size_t i = 0; i < nsbufs; i++)
        free(sbufs[i].p);
    for (size_t r = 0; r < NREQ; r++)
        h3_request_free(&req[r]);
    free(mem);
    close(fd);
    return 0;
}
