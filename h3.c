/* h3.c — HTTP/3 framing for a client (RFC 9114): our control stream and
 * request streams, built once; the reader of a response on a request
 * stream; the reader of the server's unidirectional streams.
 *
 * Every reader is a small state machine over frames (§7.1: a type and a
 * length, both QUIC varints, then the payload). A frame header or a short
 * payload field (a setting, GOAWAY's id) that a feed cuts is gathered into
 * the reader's own few bytes, and parsed from the input in place when it
 * is whole; payloads are otherwise stepped over by length, or fed to the
 * resumable QPACK :status scan (HEADERS). So any split of a stream gives
 * the result of one whole feed, and nothing is ever buffered beyond 16
 * bytes. Errors are decided at the first byte that makes them certain: a
 * frame type at its header, not at its end.
 *
 * No allocation except h3_request_build; no syscalls, no clock. */
#include "h3.h"

#include <stdlib.h>
#include <string.h>

#include "quic/varint.h"

/* A HEADERS frame longer than this is H3_EXCESSIVE_LOAD (h3.h): a
 * response's field section that long is not one a load generator wants. */
#define H3_MAX_HEADERS 65536

/* The reserved setting our SETTINGS frame carries (§7.2.4.1: 0x1f * N +
 * 0x21, here N = 10, a two-byte varint) and its value, which has no
 * meaning. */
#define GREASE_SETTING (0x1fu * 10 + 0x21)
#define GREASE_VALUE 0x5348 /* "SH" */

const char *h3_error_name(uint64_t code)
{
    static const char *const h3[] = {
        "H3_NO_ERROR",
        "H3_GENERAL_PROTOCOL_ERROR",
        "H3_INTERNAL_ERROR",
        "H3_STREAM_CREATION_ERROR",
        "H3_CLOSED_CRITICAL_STREAM",
        "H3_FRAME_UNEXPECTED",
        "H3_FRAME_ERROR",
        "H3_EXCESSIVE_LOAD",
        "H3_ID_ERROR",
        "H3_SETTINGS_ERROR",
        "H3_MISSING_SETTINGS",
        "H3_REQUEST_REJECTED",
        "H3_REQUEST_CANCELLED",
        "H3_REQUEST_INCOMPLETE",
        "H3_MESSAGE_ERROR",
        "H3_CONNECT_ERROR",
        "H3_VERSION_FALLBACK",
    }; /* 0x100 .. 0x110, §8.1 */
    static const char *const qpack[] = {
        "QPACK_DECOMPRESSION_FAILED",
        "QPACK_ENCODER_STREAM_ERROR",
        "QPACK_DECODER_STREAM_ERROR",
    }; /* 0x200 .. 0x202, RFC 9204 §6 */
    _Static_assert(sizeof h3 / sizeof h3[0] == H3_VERSION_FALLBACK - H3_NO_ERROR + 1, "one name per code");
    if (code >= H3_NO_ERROR && code <= H3_VERSION_FALLBACK)
        return h3[code - H3_NO_ERROR];
    if (code >= QPACK_DECOMPRESSION_FAILED && code <= QPACK_DECODER_STREAM_ERROR)
        return qpack[code - QPACK_DECOMPRESSION_FAILED];
    return NULL;
}

/* ------------------------------------------------------------ our streams */

size_t h3_control_stream(uint8_t *out, size_t cap)
{
    uint8_t payload[24], *q = payload, *pend = payload + sizeof payload;
    q = quic_varint_put(q, pend, H3_SETTING_QPACK_MAX_TABLE_CAPACITY);
    q = quic_varint_put(q, pend, 0);
    q = quic_varint_put(q, pend, H3_SETTING_QPACK_BLOCKED_STREAMS);
    q = quic_varint_put(q, pend, 0);
    q = quic_varint_put(q, pend, GREASE_SETTING);
    q = quic_varint_put(q, pend, GREASE_VALUE);
    size_t plen = (size_t)(q - payload);

    uint8_t *p = out, *end = out + cap;
    p = quic_varint_put(p, end, H3_STREAM_CONTROL); /* §6.2.1 */
    p = quic_varint_put(p, end, H3_FRAME_SETTINGS); /* §6.2.1: its first frame */
    p = quic_varint_put(p, end, plen);
    if (!p || (size_t)(end - p) < plen)
        return 0;
    memcpy(p, payload, plen);
    return (size_t)(p - out) + plen;
}

/* A frame header (§7.1) at p; returns the byte after it. */
static uint8_t *put_frame_header(uint8_t *p, uint8_t *end, uint64_t type, size_t len)
{
    p = quic_varint_put(p, end, type);
    return quic_varint_put(p, end, len);
}

int h3_request_build(struct h3_request *r, const struct shb_request *o)
{
    size_t hlen;
    uint8_t *fields = qpack_encode_request(o, &hlen);
    r->bytes = NULL;
    r->len = 0;
    if (!fields)
        return -1;
    size_t blen = o->body_len;
    /* §4.1: HEADERS, then the content as DATA; a body of 0 bytes is no
     * DATA frame at all (an empty one would say nothing). */
    size_t cap = 16 + hlen + (blen ? 16 + blen : 0);
    uint8_t *buf = malloc(cap);
    if (!buf) {
        free(fields);
        return -1;
    }
    uint8_t *p = buf, *end = buf + cap;
    p = put_frame_header(p, end, H3_FRAME_HEADERS, hlen);
    memcpy(p, fields, hlen);
    p += hlen;
    free(fields);
    if (blen) {
        p = put_frame_header(p, end, H3_FRAME_DATA, blen);
        memcpy(p, o->body, blen);
        p += blen;
    }
    r->bytes = buf;
    r->len = (size_t)(p - buf);
    return 0;
}

void h3_request_free(struct h3_request *r)
{
    free(r->bytes);
    r->bytes = NULL;
    r->len = 0;
}

/* ------------------------------------------------- varints across feeds */

/* The bytes that count varints starting at b take, as far as the have
 * bytes known tell: when that is more than have, at least that many are
 * needed (one more than have when the next varint's first byte is still
 * to come). */
static size_t varints_len(const uint8_t *b, size_t have, unsigned count)
{
    size_t off = 0;
    for (unsigned i = 0; i < count; i++) {
        if (off >= have)
            return off + 1;
        off += quic_varint_len_of(b[off]);
    }
    return off;
}

/* Reads count (1 or 2) consecutive varints from [*pp, end), resuming with
 * the have bytes of them buf holds from earlier feeds (buf: 16 bytes, two
 * varints' most). Returns true with v[] filled once they are complete
 * (*have back to 0); false when end came first (everything taken into
 * buf). Whole in the input, they are read in place. */
static bool gather(uint8_t *buf, uint8_t *have, unsigned count, const uint8_t **pp, const uint8_t *end,
                   uint64_t *v)
{
    const uint8_t *p = *pp, *src;
    size_t need;
    if (*have == 0 && (need = varints_len(p, (size_t)(end - p), count)) <= (size_t)(end - p)) {
        src = p;
        *pp = p + need;
    } else {
        while ((need = varints_len(buf, *have, count)) > *have) {
            if (p == end) {
                *pp = p;
                return false;
            }
            buf[(*have)++] = *p++;
        }
        *pp = p;
        src = buf;
        *have = 0;
    }
    const uint8_t *s = src;
    for (unsigned i = 0; i < count; i++)
        quic_varint_get(&s, src + need, &v[i]); /* cannot fail: need bytes are there */
    return true;
}

/* §7.2.8: frame types HTTP/2 had and HTTP/3 reserved (PRIORITY, PING,
 * WINDOW_UPDATE, CONTINUATION): never to be sent, an error wherever met. */
static bool h2_frame_type(uint64_t type)
{
    return type == 0x02 || type == 0x06 || type == 0x08 || type == 0x09;
}

/* ----------------------------------------------------- response reader */

enum resp_phase {
    RP_HEAD,     /* before the final response's HEADERS (interim ones step over) */
    RP_BODY,     /* after it: DATA, or the trailers */
    RP_TRAILERS, /* after the trailers: only unknown frames */
    RP_OVER,     /* a result other than MORE was given (r->rc) */
};

void h3_resp_init(struct h3_resp *r)
{
    /* r->scan starts at each HEADERS frame (qpack_status_scan_init). */
    *r = (struct h3_resp){.state = RP_HEAD, .rc = H3_RESP_MORE};
}

bool h3_resp_error_is_connection(const struct h3_resp *r)
{
    if (r->state != RP_OVER || r->rc >= 0)
        return false;
    uint64_t code = (uint64_t)-r->rc;
    if (code == QPACK_DECOMPRESSION_FAILED)
        return r->qpack_err == QPACK_ERR_DYNAMIC || r->qpack_err == QPACK_ERR_BASE || r->qpack_err == QPACK_ERR_INDEX;
    return code == H3_FRAME_UNEXPECTED || code == H3_FRAME_ERROR || code == H3_ID_ERROR;
}

enum h3_reset_action h3_request_reset_action(uint64_t code, bool stop_sending)
{
    if (code == H3_REQUEST_REJECTED)
        return H3_RESET_RETRY;
    if (stop_sending && (code == H3_NO_ERROR || h3_error_name(code) == NULL))
        return H3_RESET_IGNORE;
    return H3_RESET_ERROR;
}

/* A QPACK error of the section being read, as the HTTP/3 code (and kept). */
static int resp_qpack_error(struct h3_resp *r, int rc)
{
    r->qpack_err = (int8_t)rc;
    return -(int)qpack_error_code(rc);
}

/* A complete HEADERS frame: what its field section says. */
static int resp_headers_end(struct h3_resp *r)
{
    uint16_t st;
    int rc = qpack_status_scan_end(&r->scan, &st);
    if (r->state == RP_HEAD) {
        /* §4.1.2 malformed (bad or repeated :status, a request
         * pseudo-header, order), §4.3.2 (no :status). */
        if (rc == QPACK_ERR_STATUS || rc == QPACK_ERR_NO_STATUS)
            return -H3_MESSAGE_ERROR;
        if (rc < 0)
            return resp_qpack_error(r, rc);
        if (st == 101) /* §4.5: no Upgrade, no 101 Switching Protocols in HTTP/3 */
            return -H3_MESSAGE_ERROR;
        if (st >= 200) {
            r->status = st;
            r->state = RP_BODY;
        } /* else §4.1: an interim response, any number of them, stepped over */
        return 0;
    }
    /* The trailer section: no pseudo-header at all (§4.3). */
    if (rc == 0 || rc == QPACK_ERR_STATUS)
        return -H3_MESSAGE_ERROR;
    if (rc != QPACK_ERR_NO_STATUS)
        return resp_qpack_error(r, rc);
    r->state = RP_TRAILERS;
    return 0;
}

static int resp_frame_end(struct h3_resp *r)
{
    r->in_payload = false;
    return r->type == H3_FRAME_HEADERS ? resp_headers_end(r) : 0;
}

/* A frame header has been read: is the frame allowed here? Decided now,
 * before its payload. */
static int resp_frame_start(struct h3_resp *r)
{
    switch (r->type) {
    case H3_FRAME_DATA:
        if (r->state != RP_BODY) /* §4.1: DATA before HEADERS, or after the trailers */
            return -H3_FRAME_UNEXPECTED;
        break;
    case H3_FRAME_HEADERS:
        if (r->state == RP_TRAILERS) /* §4.1: after the trailers */
            return -H3_FRAME_UNEXPECTED;
        if (r->left > H3_MAX_HEADERS)
            return -H3_EXCESSIVE_LOAD;
        qpack_status_scan_init(&r->scan);
        break;
    case H3_FRAME_PUSH_PROMISE:
        /* §7.2.5: a push ID above the client's MAX_PUSH_ID is H3_ID_ERROR,
         * and we sent none, so every push ID is. */
        return -H3_ID_ERROR;
    case H3_FRAME_CANCEL_PUSH: /* §7.2.3 */
    case H3_FRAME_SETTINGS:    /* §7.2.4 */
    case H3_FRAME_GOAWAY:      /* §7.2.6 */
    case H3_FRAME_MAX_PUSH_ID: /* §7.2.7: control stream only */
        return -H3_FRAME_UNEXPECTED;
    default:
        if (h2_frame_type(r->type))
            return -H3_FRAME_UNEXPECTED;
        break; /* §9: unknown types (GREASE among them) are skipped */
    }
    r->in_payload = true;
    return r->left == 0 ? resp_frame_end(r) : 0;
}

/* Payload bytes of the current frame in [*pp, end). */
static int resp_payload(struct h3_resp *r, const uint8_t **pp, const uint8_t *end)
{
    size_t k = (size_t)(end - *pp) < r->left ? (size_t)(end - *pp) : (size_t)r->left;
    const uint8_t *p = *pp;
    *pp = p + k;
    r->left -= k;
    if (r->type == H3_FRAME_DATA) {
        r->body_len += k;
    } else if (r->type == H3_FRAME_HEADERS) {
        int rc = qpack_status_scan_feed(&r->scan, p, k);
        if (rc < 0) /* a structural or Huffman error: the section cannot be decoded */
            return resp_qpack_error(r, rc);
    }
    return r->left == 0 ? resp_frame_end(r) : 0;
}

int h3_resp_feed(struct h3_resp *r, const uint8_t *p, size_t n, bool fin)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    int rc = 0;
    if (r->state == RP_OVER)
        return r->rc;
    while (rc == 0 && p < end) {
        if (r->in_payload) {
            rc = resp_payload(r, &p, end);
            continue;
        }
        uint64_t v[2];
        if (!gather(r->hdr, &r->hdr_have, 2, &p, end, v))
            break;
        r->type = v[0]; /* §7.1 asks senders for the shortest type encoding; any is read */
        r->left = v[1];
        rc = resp_frame_start(r);
    }
    if (rc == 0 && fin) {
        if (r->in_payload || r->hdr_have) /* §7.1: the last frame truncated */
            rc = -H3_FRAME_ERROR;
        else if (r->state == RP_HEAD) /* §4.1: no complete response */
            rc = -H3_REQUEST_INCOMPLETE;
        else
            rc = H3_RESP_DONE;
    }
    if (rc != H3_RESP_MORE) {
        r->state = RP_OVER;
        r->rc = rc;
    }
    return rc;
}

/* -------------------------------------------- server's unidirectional streams */

void h3_peer_init(struct h3_peer *p)
{
    p->control_seen = p->encoder_seen = p->decoder_seen = false;
    p->settings_seen = false;
    p->goaway_id = UINT64_MAX;
    p->max_field_section_size = UINT64_MAX;
    qpack_encoder_stream_init(&p->encoder);
}

enum uni_state {
    US_TYPE,    /* reading the stream type (§6.2) */
    US_CONTROL, /* §6.2.1 */
    US_ENCODER, /* RFC 9204 §4.2 */
    US_DECODER,
    US_IGNORE,  /* an unknown type: H3_UNI_IGNORE */
    US_FAILED,  /* u->rc holds the error */
};

void h3_uni_init(struct h3_uni *u)
{
    *u = (struct h3_uni){.state = US_TYPE};
}

/* The stream type is known: one of each critical stream (§6.2.1, RFC 9204
 * §4.2: a second is H3_STREAM_CREATION_ERROR). */
static int uni_open(struct h3_peer *peer, struct h3_uni *u)
{
    bool *seen;
    uint8_t next;
    switch (u->stream_type) {
    case H3_STREAM_CONTROL:
        seen = &peer->control_seen;
        next = US_CONTROL;
        break;
    case H3_STREAM_QPACK_ENCODER:
        seen = &peer->encoder_seen;
        next = US_ENCODER;
        break;
    case H3_STREAM_QPACK_DECODER:
        seen = &peer->decoder_seen;
        next = US_DECODER;
        break;
    case H3_STREAM_PUSH:
        /* §4.6: without a MAX_PUSH_ID from us the server may not push, so
         * any push ID the stream could name is above the maximum. */
        return -H3_ID_ERROR;
    default:
        /* §6.2: unknown types (§6.2.3 reserved ones among them) are never
         * a connection error; their data is discarded. */
        u->state = US_IGNORE;
        return H3_UNI_IGNORE;
    }
    if (*seen)
        return -H3_STREAM_CREATION_ERROR;
    *seen = true;
    u->state = next;
    return 0;
}

/* One setting of the server's SETTINGS frame (§7.2.4). */
static int apply_setting(struct h3_peer *peer, struct h3_uni *u, uint64_t id, uint64_t value)
{
    if (id >= 0x02 && id <= 0x05) /* §7.2.4.1: HTTP/2's, reserved */
        return -H3_SETTINGS_ERROR;
    /* §7.2.4: an identifier twice MAY be H3_SETTINGS_ERROR. Tracked for
     * identifiers below 64 (every one defined so far); the rest, GREASE's
     * among them, mean nothing to us twice as once. */
    if (id < 64) {
        uint64_t bit = UINT64_C(1) << id;
        if (u->seen_mask & bit)
            return -H3_SETTINGS_ERROR;
        u->seen_mask |= bit;
    }
    if (id == H3_SETTING_MAX_FIELD_SECTION_SIZE)
        peer->max_field_section_size = value;
    /* QPACK_MAX_TABLE_CAPACITY and QPACK_BLOCKED_STREAMS bound the server's
     * decoder, which our encoder never inserts into; other identifiers are
     * ignored (§7.2.4: "MUST ignore any parameter with an identifier it does
     * not understand"). */
    return 0;
}

/* §7.2.6: a client-initiated bidirectional stream id; §5.2: never above an
 * earlier GOAWAY's. */
static int apply_goaway(struct h3_peer *peer, uint64_t id)
{
    if (id % 4 != 0 || id > peer->goaway_id)
        return -H3_ID_ERROR;
    peer->goaway_id = id;
    return 0;
}

/* A control-stream frame's end (its payload all read). */
static int control_frame_end(struct h3_peer *peer, struct h3_uni *u)
{
    u->in_payload = false;
    if (u->setting_have) /* §7.1: the payload ended inside a field */
        return -H3_FRAME_ERROR;
    if (u->type == H3_FRAME_SETTINGS)
        peer->settings_seen = true;
    return 0;
}

static int control_frame_start(struct h3_peer *peer, struct h3_uni *u)
{
    if (!peer->settings_seen) {
        /* §6.2.1: SETTINGS first, and §9: an unknown frame does not
         * stand in for it. */
        if (u->type != H3_FRAME_SETTINGS)
            return -H3_MISSING_SETTINGS;
    } else {
        switch (u->type) {
        case H3_FRAME_SETTINGS: /* §7.2.4: only once */
        case H3_FRAME_DATA:     /* §7.2.1 */
        case H3_FRAME_HEADERS:  /* §7.2.2 */
        case H3_FRAME_PUSH_PROMISE: /* §7.2.5 */
        case H3_FRAME_MAX_PUSH_ID:  /* §7.2.7: from a server */
            return -H3_FRAME_UNEXPECTED;
        case H3_FRAME_CANCEL_PUSH: /* §7.2.3: a push ID above a maximum we never set */
            return -H3_ID_ERROR;
        case H3_FRAME_GOAWAY:
            if (u->left == 0) /* §7.1: its one field missing */
                return -H3_FRAME_ERROR;
            break;
        default:
            if (h2_frame_type(u->type)) /* §7.2.8 */
                return -H3_FRAME_UNEXPECTED;
            break; /* §9: skipped */
        }
    }
    u->setting_have = 0;
    u->seen_mask = 0;
    u->in_payload = true;
    return u->left == 0 ? control_frame_end(peer, u) : 0;
}

/* Payload bytes of the current control-stream frame in [*pp, end). */
static int control_payload(struct h3_peer *peer, struct h3_uni *u, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *p = *pp;
    const uint8_t *lim = (size_t)(end - p) < u->left ? end : p + u->left;
    int rc = 0;
    if (u->type == H3_FRAME_SETTINGS || u->type == H3_FRAME_GOAWAY) {
        /* One field per pass: a setting (identifier, value), or GOAWAY's id,
         * which must end exactly with the payload (§7.1). */
        unsigned count = u->type == H3_FRAME_SETTINGS ? 2 : 1;
        uint64_t v[2];
        const uint8_t *q = p;
        bool whole = gather(u->setting, &u->setting_have, count, &q, lim, v);
        u->left -= (uint64_t)(q - p);
        p = q;
        if (whole && count == 2)
            rc = apply_setting(peer, u, v[0], v[1]);
        else if (whole)
            rc = u->left ? -H3_FRAME_ERROR : apply_goaway(peer, v[0]);
    } else {
        u->left -= (uint64_t)(lim - p); /* unknown frames: skipped */
        p = lim;
    }
    *pp = p;
    if (rc == 0 && u->left == 0)
        rc = control_frame_end(peer, u);
    return rc;
}

static int control_feed(struct h3_peer *peer, struct h3_uni *u, const uint8_t *p, const uint8_t *end)
{
    int rc = 0;
    while (rc == 0 && p < end) {
        if (u->in_payload) {
            rc = control_payload(peer, u, &p, end);
            continue;
        }
        uint64_t v[2];
        if (!gather(u->hdr, &u->hdr_have, 2, &p, end, v))
            break;
        u->type = v[0];
        u->left = v[1];
        rc = control_frame_start(peer, u);
    }
    return rc;
}

int h3_uni_feed(struct h3_peer *peer, struct h3_uni *u, const uint8_t *p, size_t n, bool fin)
{
    const uint8_t *end = n ? p + n : p; /* p may be NULL when n is 0 */
    int rc = 0;
    if (u->state == US_FAILED)
        return u->rc;
    if (u->state == US_IGNORE)
        return H3_UNI_IGNORE;
    if (u->state == US_TYPE) {
        uint64_t v;
        if (!gather(u->hdr, &u->hdr_have, 1, &p, end, &v))
            return 0; /* §6.2: a stream may end before its type; that is tolerated */
        u->stream_type = v;
        if ((rc = uni_open(peer, u)) != 0)
            goto out;
    }
    switch (u->state) {
    case US_CONTROL:
        rc = control_feed(peer, u, p, end);
        break;
    case US_ENCODER:
        if (qpack_encoder_stream_feed(&peer->encoder, p, (size_t)(end - p)) < 0)
            rc = -QPACK_ENCODER_STREAM_ERROR;
        break;
    default: /* US_DECODER: nothing it can say concerns us (h3.h) */
        break;
    }
    /* §6.2.1 and RFC 9204 §4.2: the critical streams never end. */
    if (rc == 0 && fin)
        rc = -H3_CLOSED_CRITICAL_STREAM;
out:
    if (rc < 0) {
        u->state = US_FAILED;
        u->rc = rc;
    }
    return rc;
}

bool h3_uni_critical(const struct h3_uni *u)
{
    return u->state == US_CONTROL || u->state == US_ENCODER || u->state == US_DECODER;
}
