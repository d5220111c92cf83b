/* test/fuzz/fuzz_tls13_client.c — the TLS client: the connection engine
 * (tls13/conn.h, TLS 1.3 or BearSSL's TLS 1.2 behind it) and the TLS 1.3
 * handshake engine on its own (tls13/handshake.h).
 *
 * Input: [flags] [split mode] [split seed, 2 bytes] [resume, with flag bit 7
 * only], then server bytes.
 * Flags: bit 0 TLS 1.2 (tls_conn_init's tls12), bit 1 handshake mode (TLS
 * 1.3 only, below), bit 2 the application-data callback sends data back
 * (conn.h allows it), bit 3 no SNI (an IP literal), bit 4 no ALPN, bit 5
 * output acknowledged in part, bit 6 a KeyUpdate once the handshake is done
 * (handshake mode), bit 7 --tls-resume (handshake mode): NewSessionTickets
 * are parsed and handed out (each checked: a ticket of 1..TLS13_TICKET_MAX
 * bytes, a lifetime of 1 s to 7 days, the handshake's suite and SNI), and
 * with the resume byte's bit 0 a fixed ticket is offered in the
 * ClientHello (pre_shared_key; the seeds' captured flights then fail at
 * Finished, but ServerHello's pre_shared_key is reached); the resume
 * byte's bits 1-2 pick the key share group a HelloRetryRequest asked for
 * before (cfg.key_share_group: none, x25519, P-256, P-384). Checked:
 * tls13_hs_hrr_group is 0 or a group we offer.
 *
 * Connection mode: tls_conn_init with the fixed entropy of fuzz.h (so the
 * ClientHello is always the same and a captured server flight in the seed
 * corpus takes the fuzzer past ServerHello), then the input goes through
 * tls_conn_recv as ciphertext, in the pieces the split says, with the output
 * drained in between. Checked (conn.h): results are TLS_OK,
 * TLS_HANDSHAKE_DONE (at most once; tls_conn_ready from then on, not
 * before), or a negative TLS_* (TLS_ERR_FALLBACK_TLS12 from the 1.3 engine
 * only); application data reaches the callback only on a ready connection;
 * once ready, tls_conn_send takes whatever fits tls_conn_send_room (up to a
 * record); the ALPN result is "" or a protocol we offered.
 *
 * Handshake mode: the same ClientHello from tls13_hs_start, and the input
 * taken as plaintext handshake messages, each fed (in pieces) at the epoch
 * whose read secret was handed out last, as conn.c does with records. The
 * encrypted flight of a real server can then be mutated message by message
 * (EncryptedExtensions, Certificate, CertificateVerify; Finished can only
 * fail). Checked (handshake.h): results are 0, TLS13_HS_DONE once, or a
 * negative error that is sticky; messages are emitted at the epoch of the
 * latest write secret (conn.c seals them with it), and after the handshake
 * only KeyUpdate, each before the write secret it announces; secrets come
 * with a suite and never go back an epoch. */
#include "fuzz.h"
#include "tls13/conn.h"
#include "tls13/handshake.h"
#include "tls13/record.h"

static _Alignas(64) uint8_t mem[1u << 17];
static struct tls13_hs hs;
static const uint8_t request[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";

static struct {
    struct tls_conn *t;
    bool echo;
    bool done;
    uint8_t sum;
    /* handshake mode */
    int read_epoch;
    int write_epoch; /* of the latest write secret; INITIAL before any */
    unsigned app_writes, app_emits; /* APP write secrets handed out, messages emitted at APP */
} R;

/* ------------------------------------------------------------ connection mode */

static void on_plain(void *ctx, uint8_t *p, size_t n)
{
    FZ_CHECK(ctx == &R, "wrong ctx");
    FZ_CHECK(tls_conn_ready(R.t), "%zu bytes of application data before the handshake completed", n);
    for (size_t i = 0; i < n; i++)
        R.sum ^= p[i];
    if (R.echo) {
        size_t room = tls_conn_send_room(R.t);
        size_t k = n < room ? n : room;
        if (k > TLS13_MAX_PLAINTEXT)
            k = TLS13_MAX_PLAINTEXT;
        size_t taken = tls_conn_send(R.t, p, k);
        FZ_CHECK(taken == k, "send_room %zu, sending %zu took %zu", room, k, taken);
    }
}

static void drain(struct fz_split *sp, bool partial)
{
    for (int i = 0; i < 16; i++) {
        size_t n;
        const uint8_t *p = tls_conn_out(R.t, &n);
        if (n == 0)
            return;
        FZ_CHECK(p != NULL, "no output pointer");
        size_t take = partial ? fz_rand(sp) % (n + 1) : n;
        uint8_t x = 0;
        for (size_t j = 0; j < take; j++) /* what a send would read */
            x ^= p[j];
        R.sum ^= x;
        tls_conn_out_ack(R.t, take);
        if (partial)
            return;
    }
}

static void check_alpn(const struct tls_config *cfg, const char *a)
{
    FZ_CHECK(a != NULL, "no ALPN string");
    size_t alen = strlen(a);
    if (alen == 0)
        return;
    for (size_t i = 0; i < cfg->alpn_len; i += 1u + cfg->alpn[i])
        if (cfg->alpn[i] == alen && memcmp(cfg->alpn + i + 1, a, alen) == 0)
            return;
    FZ_CHECK(0, "the server's ALPN choice \"%s\" was never offered", a);
}

static void connection(const struct tls_config *cfg, bool tls12, uint8_t flags, struct fz_split *sp,
                       const uint8_t *p, size_t n)
{
    uint8_t ent[TLS13_ENTROPY_LEN];
    fz_tls_entropy(ent, sizeof ent);
    FZ_CHECK(tls_conn_size() <= sizeof mem, "tls_conn_size %zu", tls_conn_size());
    R.t = tls_conn_init(mem, cfg, ent, tls12);
    bool partial = flags & 0x20;
    FZ_CHECK(!tls_conn_ready(R.t), "ready before any input");
    drain(sp, partial);

    size_t off = 0;
    while (off < n) {
        size_t k = fz_split_next(sp, n - off);
        int rc = tls_conn_recv(R.t, fz_place(p + off, k), k, on_plain, &R);
        off += k;
        FZ_CHECK(rc >= TLS_ERR_FALLBACK_TLS12 && rc <= TLS_HANDSHAKE_DONE, "tls_conn_recv returned %d", rc);
        if (rc < 0) {
            FZ_CHECK(rc != TLS_ERR_FALLBACK_TLS12 || !tls12, "the 1.2 engine asked to fall back to 1.2");
            FZ_CHECK(rc != TLS_HANDSHAKE_DONE, "unreachable");
            drain(sp, false); /* the alert, if any */
            break;
        }
        if (rc == TLS_HANDSHAKE_DONE) {
            FZ_CHECK(!R.done, "TLS_HANDSHAKE_DONE twice");
            R.done = true;
            check_alpn(cfg, tls_conn_alpn(R.t));
        }
        FZ_CHECK(tls_conn_ready(R.t) == R.done, "ready %d, handshake done %d", tls_conn_ready(R.t), R.done);
        if (R.done) {
            size_t room = tls_conn_send_room(R.t);
            size_t want = sizeof request - 1 < room ? sizeof request - 1 : room;
            size_t taken = tls_conn_send(R.t, request, want);
            FZ_CHECK(taken == want, "send_room %zu, sending %zu took %zu", room, want, taken);
        }
        drain(sp, partial);
    }
    int alert = tls_conn_alert(R.t);
    FZ_CHECK(tls_alert_name(alert) != NULL, "no name for alert %d", alert);
}

/* ------------------------------------------------------------ handshake mode */

static void hs_emit(void *ctx, enum tls13_epoch epoch, const uint8_t *p, size_t n)
{
    FZ_CHECK(ctx == &R, "wrong ctx");
    FZ_CHECK((int)epoch == R.write_epoch, "%zu bytes emitted at epoch %d, the write secret is epoch %d's", n,
             (int)epoch, R.write_epoch);
    if (epoch == TLS13_EPOCH_APP) {
        FZ_CHECK(n >= 1 && p[0] == 24, "a message of type %d emitted after the handshake", n ? p[0] : -1);
        R.app_emits++;
    }
    uint8_t x = 0;
    for (size_t i = 0; i < n; i++)
        x ^= p[i];
    R.sum ^= x;
}

static void hs_secret(void *ctx, enum tls13_epoch epoch, bool write, const struct tls13_suite *suite,
                      const uint8_t *secret)
{
    FZ_CHECK(ctx == &R, "wrong ctx");
    FZ_CHECK(suite != NULL && secret != NULL, "secret without a suite");
    FZ_CHECK(epoch == TLS13_EPOCH_HANDSHAKE || epoch == TLS13_EPOCH_APP, "secret for epoch %d", (int)epoch);
    int *cur = write ? &R.write_epoch : &R.read_epoch;
    FZ_CHECK((int)epoch >= *cur, "%s secret goes back from epoch %d to %d", write ? "write" : "read", *cur,
             (int)epoch);
    *cur = (int)epoch;
    if (write && epoch == TLS13_EPOCH_APP) {
        /* §4.6.3: a new write key only after the KeyUpdate announcing it
         * went out under the old one. */
        FZ_CHECK(R.app_writes == 0 || R.app_emits == R.app_writes, "write key %u after %u KeyUpdates",
                 R.app_writes + 1, R.app_emits);
        R.app_writes++;
    }
}

static const struct tls13_hs_callbacks hs_callbacks = { .emit = hs_emit, .secret = hs_secret };

/* --tls-resume: what the engine hands out of a NewSessionTicket. */
static void hs_ticket(void *ctx, const struct tls13_ticket *t)
{
    const struct tls_config *cfg = ctx;
    FZ_CHECK(R.done, "a ticket before the handshake completed");
    FZ_CHECK(t->ticket_len >= 1 && t->ticket_len <= TLS13_TICKET_MAX, "ticket of %u bytes", t->ticket_len);
    FZ_CHECK(t->lifetime_s >= 1 && t->lifetime_s <= 604800, "lifetime %u", t->lifetime_s);
    FZ_CHECK(t->suite == hs.suite_id, "ticket suite %04x, handshake's %04x", t->suite, hs.suite_id);
    FZ_CHECK(strcmp(t->server_name, cfg->server_name ? cfg->server_name : "") == 0, "ticket SNI %s", t->server_name);
    uint8_t x = 0;
    for (size_t i = 0; i < t->ticket_len; i++)
        x ^= t->ticket[i];
    R.sum ^= x;
}

/* Feeds and checks one piece; returns false once the handshake failed. */
static bool hs_feed(const uint8_t *p, size_t n, int *err)
{
    int rc = tls13_hs_input(&hs, (enum tls13_epoch)R.read_epoch, p, n);
    if (*err) {
        FZ_CHECK(rc == *err, "error %d not sticky: %d", *err, rc);
        return false;
    }
    if (rc < 0) {
        *err = rc;
        return false;
    }
    FZ_CHECK(rc == TLS13_HS_IN_PROGRESS || rc == TLS13_HS_DONE, "tls13_hs_input returned %d", rc);
    if (rc == TLS13_HS_DONE) {
        FZ_CHECK(!R.done, "TLS13_HS_DONE twice");
        R.done = true;
        FZ_CHECK(R.read_epoch == TLS13_EPOCH_APP && R.write_epoch == TLS13_EPOCH_APP,
                 "done with read epoch %d, write epoch %d", R.read_epoch, R.write_epoch);
    }
    return true;
}

static void handshake(const struct tls_config *cfg, uint8_t flags, uint8_t resume, struct fz_split *sp,
                      const uint8_t *p, size_t n)
{
    uint8_t ent[TLS13_ENTROPY_LEN];
    fz_tls_entropy(ent, sizeof ent);
    struct tls13_hs_config hc = { .server_name = cfg->server_name, .alpn = cfg->alpn, .alpn_len = cfg->alpn_len };
    static struct tls13_ticket ticket;
    struct tls13_resume res = { .on_ticket = hs_ticket, .ctx = (void *)cfg, .ticket_age_ms = 1234 };
    if (flags & 0x80) {
        if (resume & 1) {
            memset(&ticket, 0, sizeof ticket);
            ticket.lifetime_s = 3600;
            ticket.age_add = 0x01020304;
            ticket.suite = 0x1301;
            ticket.ticket_len = 64;
            memset(ticket.ticket, 0x5a, 64);
            memset(ticket.psk, 0x3c, sizeof ticket.psk);
            memcpy(ticket.server_name, FZ_TLS_SNI, sizeof FZ_TLS_SNI);
            res.ticket = &ticket;
        }
        hc.resume = &res;
        static const uint16_t remembered[] = {0, 0x001d, 0x0017, 0x0018};
        hc.key_share_group = remembered[(resume >> 1) & 3];
    }
    R.read_epoch = R.write_epoch = TLS13_EPOCH_INITIAL;
    int err = tls13_hs_start(&hs, &hc, ent, &hs_callbacks, &R);
    FZ_CHECK(err == 0, "tls13_hs_start: %d", err);
    bool key_update = flags & 0x40;

    /* One message at a time, so that each goes in at the epoch the one
     * before it left (a record never spans a key change). */
    while (n > 0) {
        size_t msg = n >= 4 ? 4 + ((size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]) : n;
        if (msg > n)
            msg = n;
        size_t off = 0;
        bool alive = true;
        do {
            size_t k = fz_split_next(sp, msg - off);
            alive = hs_feed(fz_place(p + off, k), k, &err);
            off += k;
        } while (alive && off < msg);
        p += msg;
        n -= msg;
        if (!alive)
            break;
        if (R.done && key_update) {
            key_update = false;
            int rc = tls13_hs_key_update(&hs);
            FZ_CHECK(rc == 0, "tls13_hs_key_update: %d", rc);
        }
    }
    if (R.done)
        check_alpn(cfg, tls13_hs_alpn(&hs));
    uint16_t g = tls13_hs_hrr_group(&hs);
    FZ_CHECK(g == 0 || g == 0x001d || g == 0x0017 || g == 0x0018, "HelloRetryRequest group %04x not offered", g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FZ_MAX_INPUT)
        return 0;
    struct fz_reader rd = { data, size };
    uint8_t flags = fz_u8(&rd);
    uint8_t mode = fz_u8(&rd);
    uint16_t seed = fz_u16(&rd);
    uint8_t resume = flags & 0x80 ? fz_u8(&rd) : 0;
    struct fz_split sp;
    fz_split_init(&sp, mode, seed);

    memset(&R, 0, sizeof R);
    R.echo = flags & 4;
    struct tls_config cfg = {
        .server_name = (flags & 8) ? NULL : FZ_TLS_SNI,
        .alpn = (flags & 0x10) ? NULL : fz_tls_alpn,
        .alpn_len = (flags & 0x10) ? 0 : sizeof fz_tls_alpn,
    };
    bool tls12 = flags & 1;
    if ((flags & 2) && !tls12)
        handshake(&cfg, flags, resume, &sp, rd.p, rd.n);
    else
        connection(&cfg, tls12, flags, &sp, rd.p, rd.n);
    return 0;
}
