/* tls13/conn.c — TLS over a byte stream: records around the TLS 1.3
 * handshake engine, and application data in both directions; or, for a
 * server that does not speak 1.3, BearSSL's TLS 1.2 engine (tls12.c) behind
 * the same functions. */
#include "tls13/conn.h"

#include <string.h>

#include "tls13/record.h"
#include "tls13/tls12.h"

/* Output: enough for a whole batch of HTTP/2 frames or an HTTP/1.1 request
 * in a handful of records, plus the handshake flights. */
#define OUT_CAP (2 * (TLS13_MAX_PLAINTEXT + 64))
/* Application data leaves room for one KeyUpdate record (header, message,
 * inner type, tag): the answer to an update_requested (RFC 8446 §4.6.3) is
 * sealed as it arrives and must never find the output full, or our write
 * key would move on without the peer being told. One is enough: until more
 * data goes out, further requests share that answer
 * (tls13_hs_app_data_sent). */
#define KU_RESERVE (TLS13_RECORD_HDR + 5 + 1 + TLS13_TAG_LEN)

enum tls_state { ST_HANDSHAKE, ST_READY, ST_DONE };

struct tls_conn {
    bool tls12;                 /* v12 is in use; every function below dispatches on it */
    union {
        struct {                /* TLS 1.3 */
            uint8_t state;
            bool sent_ccs;
            bool early_write;   /* 0-RTT: our write key is the early one (tls_conn_send_early) */
            uint32_t early_left; /* bytes of early data the ticket still allows (RFC 8446 §4.2.10) */
            int8_t read_epoch;  /* what received handshake bytes belong to */
            int err;            /* sticky result once finished */
            int alert;          /* >0 sent by us, <0 received */
            struct tls13_hs hs;
            struct tls13_record_dir rd, wr;
            size_t in_len;      /* bytes of a partial record gathered in in[] */
            size_t out_len;
            uint8_t in[TLS13_RECORD_HDR + TLS13_MAX_CIPHERTEXT];
            uint8_t out[OUT_CAP];
        };
        struct tls12_conn v12;  /* TLS 1.2 */
    };
};

size_t tls_conn_size(void) { return sizeof(struct tls_conn); }

/* ---- output ------------------------------------------------------------ */

static bool seal(struct tls_conn *t, uint8_t ct, const uint8_t *p, size_t n)
{
    while (n > 0) {
        size_t chunk = n > TLS13_MAX_PLAINTEXT ? TLS13_MAX_PLAINTEXT : n;
        size_t w = tls13_record_seal(&t->wr, ct, p, chunk, t->out + t->out_len, OUT_CAP - t->out_len);
        if (w == 0)
            return false;
        t->out_len += w;
        p += chunk;
        n -= chunk;
    }
    return true;
}

/* Sends an alert (RFC 8446 §6) under the current write keys; best effort. */
static void send_alert(struct tls_conn *t, uint8_t desc)
{
    uint8_t a[2] = { 2 /* fatal */, desc };
    if (desc == 0)
        a[0] = 1; /* close_notify is a warning-level alert by tradition */
    seal(t, TLS13_CT_ALERT, a, sizeof a);
    t->alert = desc;
}

/* Middlebox compatibility (RFC 8446 §D.4): we offer a legacy session id,
 * so a dummy ChangeCipherSpec goes "immediately before its second flight"
 * or, with 0-RTT, "immediately after sending its first ClientHello". */
static void send_ccs(struct tls_conn *t)
{
    static const uint8_t ccs[] = { TLS13_CT_CHANGE_CIPHER_SPEC, 0x03, 0x03, 0x00, 0x01, 0x01 };
    if (t->sent_ccs)
        return;
    if (t->out_len + sizeof ccs <= OUT_CAP) {
        memcpy(t->out + t->out_len, ccs, sizeof ccs);
        t->out_len += sizeof ccs;
    }
    t->sent_ccs = true;
}

static void on_emit(void *ctx, enum tls13_epoch epoch, const uint8_t *p, size_t n)
{
    struct tls_conn *t = ctx;
    /* ClientHello2 after a HelloRetryRequest, which rejected our 0-RTT
     * (§4.2.10): it goes in the clear, and no more early data. */
    if (epoch == TLS13_EPOCH_INITIAL && t->early_write) {
        memset(&t->wr, 0, sizeof t->wr);
        t->early_write = false;
        t->early_left = 0;
    }
    if (epoch == TLS13_EPOCH_HANDSHAKE)
        send_ccs(t);
    if (!seal(t, TLS13_CT_HANDSHAKE, p, n) && !t->err)
        t->err = TLS_ERR_HANDSHAKE; /* cannot happen with OUT_CAP above one flight */
}

static void on_secret(void *ctx, enum tls13_epoch epoch, bool write, const struct tls13_suite *suite,
                      const uint8_t *secret)
{
    struct tls_conn *t = ctx;
    uint8_t key[32], iv[12];
    tls13_traffic_keys(suite, secret, key, iv);
    if (write) {
        if (epoch == TLS13_EPOCH_EARLY) {
            send_ccs(t);
            t->early_left = tls13_hs_early_budget(&t->hs);
        }
        t->early_write = epoch == TLS13_EPOCH_EARLY;
        tls13_record_key(&t->wr, suite->id, key, iv);
    } else {
        tls13_record_key(&t->rd, suite->id, key, iv);
        t->read_epoch = (int8_t)epoch;
    }
    tls13_wipe(key, sizeof key);
    tls13_wipe(iv, sizeof iv);
}

static const struct tls13_hs_callbacks callbacks = { .emit = on_emit, .secret = on_secret };

struct tls_conn *tls_conn_init(void *mem, const struct tls_config *cfg, const uint8_t entropy[TLS13_ENTROPY_LEN],
                               bool tls12)
{
    return tls_conn_init_resume(mem, cfg, entropy, tls12, NULL, NULL);
}

struct tls_conn *tls_conn_init_resume(void *mem, const struct tls_config *cfg,
                                      const uint8_t entropy[TLS13_ENTROPY_LEN], bool tls12,
                                      const struct tls13_resume *resume, const br_ssl_session_parameters *session12)
{
    struct tls_conn *t = mem;
    t->tls12 = tls12;
    if (tls12) {
        tls12_init_resume(&t->v12, cfg, entropy, TLS13_ENTROPY_LEN, session12);
        return t;
    }
    t->state = ST_HANDSHAKE;
    t->sent_ccs = false;
    t->early_write = false;
    t->early_left = 0;
    t->read_epoch = TLS13_EPOCH_INITIAL;
    t->err = 0;
    t->alert = 0;
    t->in_len = 0;
    t->out_len = 0;
    memset(&t->rd, 0, sizeof t->rd);
    memset(&t->wr, 0, sizeof t->wr);
    const struct tls_choice *ch = cfg->choice;
    struct tls13_hs_config hc = {
        .server_name = cfg->server_name,
        .alpn = cfg->alpn,
        .alpn_len = cfg->alpn_len,
        .suites = ch ? ch->suites13 : NULL,
        .nsuites = ch ? ch->nsuites13 : 0,
        .groups = ch ? ch->groups : NULL,
        .ngroups = ch ? ch->ngroups : 0,
        .key_share_group = cfg->key_share_group,
        .tls13_only = ch && ch->min_version == TLS_VERSION_13,
        .cred = cfg->cred,
        .resume = resume,
        .verifier = cfg->verifier,
    };
    int rc = tls13_hs_start(&t->hs, &hc, entropy, &callbacks, t);
    if (rc < 0) {
        t->state = ST_DONE;
        t->err = TLS_ERR_HANDSHAKE;
        t->alert = -rc;
    }
    return t;
}

size_t tls_conn_send(struct tls_conn *t, const uint8_t *p, size_t n)
{
    if (t->tls12)
        return tls12_send(&t->v12, p, n);
    if (t->state != ST_READY)
        return 0;
    size_t taken = 0;
    while (taken < n) {
        size_t room = tls_conn_send_room(t);
        if (room == 0)
            break;
        size_t chunk = n - taken;
        if (chunk > TLS13_MAX_PLAINTEXT)
            chunk = TLS13_MAX_PLAINTEXT;
        if (chunk > room)
            chunk = room;
        size_t w = tls13_record_seal(&t->wr, TLS13_CT_APPLICATION_DATA, p + taken, chunk, t->out + t->out_len,
                                     OUT_CAP - t->out_len);
        if (w == 0)
            break;
        t->out_len += w;
        taken += chunk;
    }
    if (taken > 0)
        tls13_hs_app_data_sent(&t->hs);
    return taken;
}

bool tls_conn_early_open(const struct tls_conn *t)
{
    return !t->tls12 && t->state == ST_HANDSHAKE && t->early_write && t->early_left > 0;
}

bool tls_conn_send_early(struct tls_conn *t, const uint8_t *p, size_t n)
{
    if (!tls_conn_early_open(t) || n > t->early_left || n == 0)
        return false;
    size_t records = (n + TLS13_MAX_PLAINTEXT - 1) / TLS13_MAX_PLAINTEXT;
    if (OUT_CAP - t->out_len < records * tls13_record_overhead() + n + KU_RESERVE)
        return false;
    seal(t, TLS13_CT_APPLICATION_DATA, p, n);
    t->early_left -= (uint32_t)n;
    return true;
}

bool tls_conn_early_accepted(const struct tls_conn *t) { return !t->tls12 && tls13_hs_early_accepted(&t->hs); }

size_t tls_conn_send_room(const struct tls_conn *t)
{
    if (t->tls12)
        return tls12_send_room(&t->v12);
    size_t room = OUT_CAP - t->out_len;
    return room > tls13_record_overhead() + KU_RESERVE ? room - tls13_record_overhead() - KU_RESERVE : 0;
}

const uint8_t *tls_conn_out(const struct tls_conn *t, size_t *len)
{
    if (t->tls12)
        return tls12_out(&t->v12, len);
    *len = t->out_len;
    return t->out;
}

void tls_conn_out_ack(struct tls_conn *t, size_t n)
{
    if (t->tls12) {
        tls12_out_ack(&t->v12, n);
        return;
    }
    if (n >= t->out_len) {
        t->out_len = 0;
        return;
    }
    memmove(t->out, t->out + n, t->out_len - n);
    t->out_len -= n;
}

/* ---- input ------------------------------------------------------------- */

static int fail(struct tls_conn *t, int err)
{
    t->state = ST_DONE;
    t->err = err;
    return err;
}

/* A handshake-engine error: negative alert to send, or a received one.
 * After the handshake (a bad KeyUpdate, a message that may not come now)
 * it is no handshake failure but a bad record, like the others then. */
static int handshake_failed(struct tls_conn *t, int rc)
{
    if (rc == TLS13_ERR_FALLBACK_TLS12)
        return fail(t, TLS_ERR_FALLBACK_TLS12);
    if (rc <= TLS13_ERR_PEER_ALERT_BASE) {
        t->alert = -(TLS13_ERR_PEER_ALERT_BASE - rc);
    } else {
        send_alert(t, (uint8_t)-rc);
    }
    return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
}

static int on_alert(struct tls_conn *t, const uint8_t *p, size_t n)
{
    if (n != 2) {
        send_alert(t, 50); /* decode_error */
        return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
    }
    if (p[1] == 0) /* close_notify (RFC 8446 §6.1) */
        return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_CLOSED);
    /* Every other alert in TLS 1.3 ends the connection (§6.2), whatever its
     * level says (user_canceled is followed by close_notify anyway). */
    if (p[1] == 90)
        return TLS_OK;
    t->alert = -(int)p[1];
    return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_PEER_ALERT);
}

/* One whole record at rec (header included). */
static int on_record(struct tls_conn *t, uint8_t *rec, size_t len, tls_plain_fn fn, void *ctx)
{
    /* ChangeCipherSpec: only the compatibility dummy, only before the
     * handshake ends, never protected (RFC 8446 §5). */
    if (rec[0] == TLS13_CT_CHANGE_CIPHER_SPEC) {
        if (t->state == ST_HANDSHAKE && len == TLS13_RECORD_HDR + 1 && rec[5] == 1)
            return TLS_OK;
        send_alert(t, 10);
        return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
    }
    uint8_t ct;
    uint8_t *plain;
    size_t plen;
    int rc = tls13_record_open(&t->rd, rec, len, &ct, &plain, &plen);
    if (rc < 0) {
        send_alert(t, (uint8_t)-rc);
        return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
    }
    switch (ct) {
    case TLS13_CT_HANDSHAKE: {
        rc = tls13_hs_input(&t->hs, (enum tls13_epoch)t->read_epoch, plain, plen);
        if (rc < 0)
            return handshake_failed(t, rc);
        if (rc == TLS13_HS_DONE && t->state == ST_HANDSHAKE) {
            t->state = ST_READY;
            return TLS_HANDSHAKE_DONE;
        }
        return TLS_OK;
    }
    case TLS13_CT_APPLICATION_DATA:
        if (t->state != ST_READY) {
            send_alert(t, 10); /* unexpected_message */
            return fail(t, TLS_ERR_HANDSHAKE);
        }
        if (plen)
            fn(ctx, plain, plen);
        return TLS_OK;
    case TLS13_CT_ALERT:
        return on_alert(t, plain, plen);
    default:
        send_alert(t, 10);
        return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
    }
}

static size_t record_len(const uint8_t *hdr)
{
    return TLS13_RECORD_HDR + ((size_t)hdr[3] << 8 | hdr[4]);
}

int tls_conn_recv(struct tls_conn *t, uint8_t *p, size_t n, tls_plain_fn fn, void *ctx)
{
    if (t->tls12)
        return tls12_recv(&t->v12, p, n, fn, ctx);
    if (t->state == ST_DONE)
        return t->err;
    int result = TLS_OK;
    /* Finish a record gathered from earlier feeds. */
    while (t->in_len > 0 && n > 0) {
        size_t want = t->in_len < TLS13_RECORD_HDR ? TLS13_RECORD_HDR : record_len(t->in);
        if (want > sizeof t->in) {
            send_alert(t, 22); /* record_overflow */
            return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
        }
        size_t take = want - t->in_len;
        if (take > n)
            take = n;
        memcpy(t->in + t->in_len, p, take);
        t->in_len += take;
        p += take;
        n -= take;
        if (t->in_len < want)
            return TLS_OK;
        if (want < record_len(t->in))
            continue; /* now we know the record's length (a zero-length one is whole already) */
        t->in_len = 0;
        int rc = on_record(t, t->in, want, fn, ctx);
        if (rc < 0)
            return rc;
        if (rc == TLS_HANDSHAKE_DONE)
            result = rc;
    }
    /* Whole records straight from the caller's buffer, decrypted in place. */
    while (n >= TLS13_RECORD_HDR) {
        size_t len = record_len(p);
        if (len > sizeof t->in) {
            send_alert(t, 22);
            return fail(t, t->state == ST_HANDSHAKE ? TLS_ERR_HANDSHAKE : TLS_ERR_RECORD);
        }
        if (len > n)
            break;
        int rc = on_record(t, p, len, fn, ctx);
        if (rc < 0)
            return rc;
        if (rc == TLS_HANDSHAKE_DONE)
            result = rc;
        p += len;
        n -= len;
    }
    if (n > 0) {
        memcpy(t->in, p, n);
        t->in_len = n;
    }
    return result;
}

bool tls_conn_ready(const struct tls_conn *t) { return t->tls12 ? tls12_ready(&t->v12) : t->state == ST_READY; }

const char *tls_conn_alpn(const struct tls_conn *t) { return t->tls12 ? tls12_alpn(&t->v12) : tls13_hs_alpn(&t->hs); }

bool tls_conn_resumed(const struct tls_conn *t) { return t->tls12 ? t->v12.resumed : tls13_hs_resumed(&t->hs); }

uint16_t tls_conn_hrr_group(const struct tls_conn *t) { return t->tls12 ? 0 : tls13_hs_hrr_group(&t->hs); }

bool tls_conn_session12(const struct tls_conn *t, br_ssl_session_parameters *out)
{
    return t->tls12 && tls12_session(&t->v12, out);
}

int tls_conn_alert(const struct tls_conn *t) { return t->tls12 ? tls12_alert(&t->v12) : t->alert; }

void tls_conn_negotiated(const struct tls_conn *t, struct tls_negotiated *out)
{
    if (t->tls12)
        tls12_negotiated(&t->v12, out);
    else
        tls13_hs_negotiated(&t->hs, out);
}
