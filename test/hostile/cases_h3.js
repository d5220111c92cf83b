// test/hostile/cases_h3.js — hostile QUIC/HTTP/3 servers (the table's
// format: test/hostile/cases.js), played by test/hostile_quic_server.js:
// before the handshake (`raw`: every datagram is the case's to answer),
// during it, and after it. Unless a case says otherwise the server completes
// a real QUIC v1 + TLS 1.3 handshake, opens its control stream (SETTINGS),
// and answers each request with HEADERS (:status 200) + DATA "hello" + FIN.
//
// Most cases misbehave on the first request of each connection only
// (`first`), and answer the others well: `-n 8 -c 2 -p 2` is then four
// connections when each first request costs its connection (a connection
// error: both requests in flight on it are `protocol` errors, and shb's
// CONNECTION_CLOSE carries the code, which the server logs), two when it is
// the stream's error alone.
'use strict';

const crypto = require('crypto');

// --- wire helpers (RFC 9000 §16, §19; RFC 9114 §7; RFC 9204 §4.5) ------------------

function varint(v) {
    if (v < 0x40) return Buffer.from([v]);
    if (v < 0x4000) return Buffer.from([0x40 | (v >> 8), v & 0xff]);
    if (v < 0x40000000) {
        const b = Buffer.alloc(4);
        b.writeUInt32BE(v);
        b[0] |= 0x80;
        return b;
    }
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(v));
    b[0] |= 0xc0;
    return b;
}
const cat = (...b) => Buffer.concat(b.map((x) => (Buffer.isBuffer(x) ? x : Buffer.from(x))));
const vs = (...v) => cat(...v.map(varint));
const h3frame = (type, payload) => cat(varint(type), varint(payload.length), payload);
const SETTINGS = h3frame(0x04, vs(0x06, 16384));
const CONTROL = cat([0x00], SETTINGS); // our control stream's first bytes
const STATUS_200 = [0x00, 0x00, 0xd9];  // QPACK: no dynamic table, static 25 (:status 200)
const HELLO = h3frame(0x00, Buffer.from('hello'));

// --- shapes -------------------------------------------------------------------------

const QARGS = '-n 8 -c 2 -p 2 --connect-timeout 2s --timeout 3s';
const first = (fn) => (x, n, id) => (n === 1 ? fn(x, id) : x.ok(id));

// A connection error on each connection's first request: 8 `protocol`
// errors over 4 connections, each closed by shb with CLOSE (CODE on the wire).
const connError = (name, does, fn, close, code, rfc, more = {}) => ({
    name, proto: 'h3', args: QARGS, deadline: 5, does, rfc, onRequest: first(fn),
    expect: { errors: { protocol: 8 }, jq: `.requests.connectErrors == 0 and .quic.connectionCloses == {"shb ${close}": 4}` },
    server: '(hs | length) == 4 and (est | length) == 4 and (bad | length) == 4 and (errs | length) == 0' +
        ` and (closes | length) == 4 and all(closes[]; .code == "${code}")`,
    ...more,
});
// The same, the violation on a stream of the server's own rather than the
// request's (onEstablished): every connection is closed before or while
// its first requests are in flight.
const connErrorAtStart = (name, does, fn, close, code, rfc, more = {}) => ({
    ...connError(name, does, null, close, code, rfc, more), onRequest: undefined, onEstablished: fn,
    ...more,
});
// A stream error on each connection's first request: 2 `protocol`, 6 ok,
// the two connections kept and closed cleanly.
const streamError = (name, does, fn, rfc, more = {}) => ({
    name, proto: 'h3', args: QARGS, deadline: 5, does, rfc, onRequest: first(fn),
    expect: { ok: 6, errors: { protocol: 2 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": 2}' },
    server: '(hs | length) == 2 and (bad | length) == 2 and (errs | length) == 0',
    ...more,
});
// Tolerated: 20 ok over two connections, both closed cleanly.
const allOk = (name, does, more, rfc) => ({
    name, proto: 'h3', args: '-n 20 -c 2 -p 2 --connect-timeout 2s --timeout 3s', deadline: 3, does, rfc,
    expect: { ok: 20, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": 2} and .quic.retries == 0' },
    server: '(hs | length) == 2 and (est | length) == 2 and (bad | length) >= 2 and (responses | length) == 20' +
        ' and (closes | length) == 2 and all(closes[]; .code == "0x100")',
    ...more,
});

// Before the handshake: -n 4 -c 2 --connect-timeout 1s is two rounds of two
// connections, each given up after 1 s and charged one request.
const TIMEOUT_ARGS = '-n 4 -c 2 --connect-timeout 1s';
const connectTimeouts = (name, does, raw, rfc, server = '(replies | length) >= 4') => ({
    name, proto: 'h3', args: TIMEOUT_ARGS, deadline: 8, does, rfc, raw,
    expect: { errors: { 'connect timeout': 4 },
        jq: '.requests.connectErrors == 4 and .quic.retries == 0 and .quic.packetsReceived == 0 and .durationSeconds >= 1.8' },
    server: `conns == 4 and ${server}`,
});

// A Version Negotiation packet (RFC 9000 §17.2.1), its IDs swapped as the
// client's reply (swap false: not).
function vn(h, versions, swap) {
    const head = Buffer.from([0x80 | crypto.randomInt(0, 128), 0, 0, 0, 0]);
    const list = Buffer.alloc(4 * versions.length);
    versions.forEach((v, i) => list.writeUInt32BE(v, 4 * i));
    const d = swap ? h.scid : h.dcid, sc = swap ? h.dcid : h.scid;
    return cat(head, [d.length], d, [sc.length], sc, list);
}

module.exports = [
    // --- before any handshake (raw datagrams) ---------------------------------------
    connectTimeouts('h3-silent', 'never answers a datagram', () => {},
        'RFC 9000 §10.1, §7: no handshake, --connect-timeout', '(replies | length) == 0'),
    {
        name: 'h3-silent-z', proto: 'h3', args: '-z 2s -c 2 --connect-timeout 5s', deadline: 8, raw: () => {},
        does: 'never answers, a -z 2s run with --connect-timeout 5s',
        rfc: 'the run ends at -z, nothing is counted for connections never up',
        expect: { ok: 0, jq: '.requests.total == 0 and .durationSeconds >= 1.8 and .durationSeconds <= 4' },
        server: 'conns == 2',
    },
    connectTimeouts('h3-garbage', '1..1200 random bytes in answer to every datagram',
        (x) => x.reply(crypto.randomBytes(crypto.randomInt(1, 1201))),
        'RFC 9000 §12.2, §5.2: what does not parse or decrypt is dropped'),
    {
        name: 'h3-vn', proto: 'h3', args: TIMEOUT_ARGS, deadline: 3,
        does: 'Version Negotiation offering 0xff00001d and 0x709a50c4 only',
        rfc: 'RFC 9000 §6.2: no version in common, the client gives up (exit 1, one line naming both)',
        raw: (x, m, h) => { if (h && h.version !== 0) x.reply(vn(h, [0xff00001d, 0x709a50c4], true)); },
        expect: { exit: 1, stderr: 'QUIC version 1.*0xff00001d.*0x709a50c4' },
        server: 'conns >= 1 and (replies | length) >= 1 and ([initials[] | {scid, dcid}] as $i | all(replies[]; . as $r | any($i[]; .scid == $r.dcid and .dcid == $r.scid)))',
    },
    connectTimeouts('h3-vn-with-v1', 'a Version Negotiation that lists version 1 (and 0xff00001d)',
        (x, m, h) => { if (h && h.version !== 0) x.reply(vn(h, [0xff00001d, 0x00000001], true)); },
        'RFC 9000 §6.2: a VN naming the version in use is ignored'),
    connectTimeouts('h3-vn-wrong-cid', 'the VN of h3-vn, its connection IDs not swapped (not for this connection)',
        (x, m, h) => { if (h && h.version !== 0) x.reply(vn(h, [0xff00001d, 0x709a50c4], false)); },
        'RFC 9000 §17.2.1, §6.2: a VN whose IDs are not ours is ignored'),
    connectTimeouts('h3-badretry', 'a Retry whose integrity tag does not verify',
        (x, m, h) => {
            if (!h || h.type !== 0) return;
            const scid = crypto.randomBytes(8);
            x.reply(cat([0xf0 | crypto.randomInt(0, 16), 0, 0, 0, 1, h.scid.length], h.scid, [scid.length], scid,
                crypto.randomBytes(16) /* token */, crypto.randomBytes(16) /* integrity tag */));
        }, 'RFC 9001 §5.8, RFC 9000 §17.2.5.2: dropped, quic.retries 0'),
    connectTimeouts('h3-reset', 'short-header datagrams of 43 random bytes: a stateless reset\'s shape, before any token',
        (x) => {
            const out = crypto.randomBytes(43);
            out[0] = 0x40 | (out[0] & 0x3f);
            x.reply(out);
        }, 'RFC 9000 §10.3: no token known yet, nothing to match: dropped'),
    connectTimeouts('h3-other-cid', 'a 1200-byte Initial whose DCID is not the client\'s SCID, random payload',
        (x) => {
            const dcid = crypto.randomBytes(8), scid = crypto.randomBytes(8);
            const head = cat([0xc0 | crypto.randomInt(0, 4), 0, 0, 0, 1, 8], dcid, [8], scid, [0]);
            const rest = 1200 - head.length - 2;
            x.reply(cat(head, [0x40 | (rest >> 8), rest & 0xff], crypto.randomBytes(rest)));
        }, 'RFC 9000 §5.2: a packet for another connection is dropped'),

    // --- the server's own check ------------------------------------------------------
    {
        ...allOk('h3-ok', 'a well-behaved HTTP/3 server: HEADERS (:status 200) + DATA "hello" + FIN', {}, ''),
        expect: { ok: 20, jq: '.bytesReceived > 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": 2} and .quic.retries == 0' },
        server: '(hs | length) == 2 and (est | length) == 2 and (responses | length) == 20 and (errs | length) == 0',
        deadline: 5,
    },

    // --- after the handshake: connection errors ----------------------------------------
    connError('h3-ack-unsent', 'an ACK of a packet number the client never sent', (x, id) => {
        const ranges = x.conn.spaces.app.ranges;
        const largest = ranges.length ? ranges[0][1] : 0;
        x.quicFrame(vs(0x02, largest + 1000, 0, 0, 0));
        x.did(`ack of packet ${largest + 1000}, the client's largest being ${largest}`, id);
    }, 'PROTOCOL_VIOLATION', '0xa', 'RFC 9000 §13.1: PROTOCOL_VIOLATION'),
    connError('h3-flow-overrun', 'response bytes past the stream\'s flow control limit', (x, id) => {
        const limit = x.conn.maxStreamDataBidiLocal, off = Math.max(0, limit - 8);
        x.quicFrame(cat(vs(0x0e, id, off, 16), Buffer.alloc(16, 0x41)));
        x.did(`16 bytes at offset ${off}, the stream's limit being ${limit}`, id);
    }, 'FLOW_CONTROL_ERROR', '0x3', 'RFC 9000 §4.1: FLOW_CONTROL_ERROR'),
    connError('h3-reset-control', 'RESET_STREAM on its control stream', (x, id) => {
        x.resetStream(3, 0x0102);
        x.did('RESET_STREAM on the control stream', id);
    }, 'H3_CLOSED_CRITICAL_STREAM', '0x104', 'RFC 9114 §6.2.1: H3_CLOSED_CRITICAL_STREAM'),
    connError('h3-second-settings', 'a second SETTINGS frame on its control stream', (x, id) => {
        x.control(SETTINGS);
        x.did('a second SETTINGS on the control stream', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §7.2.4: H3_FRAME_UNEXPECTED'),
    connError('h3-data-before-headers', 'a DATA frame before HEADERS', (x, id) => {
        x.write(id, cat(HELLO, h3frame(0x01, Buffer.from(STATUS_200)), HELLO), true);
        x.did('DATA before HEADERS', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §4.1: an invalid sequence of frames, H3_FRAME_UNEXPECTED'),

    // --- stream errors ---------------------------------------------------------------
    streamError('h3-qpack-overflow', 'a QPACK integer past 2^62 in the response\'s field section', (x, id) => {
        // An indexed field line (0b11xxxxxx) whose 6-bit prefix integer
        // goes on for 10 more bytes: 6 + 70 bits (RFC 9204 §4.1.1).
        x.write(id, cat(h3frame(0x01, cat([0x00, 0x00, 0xff], Buffer.alloc(9, 0xff), [0x7f])), HELLO), true);
        x.did('HEADERS with an overflowing QPACK integer', id);
    }, 'RFC 9204 §4.1.1, §2.2.3: QPACK_DECOMPRESSION_FAILED, the stream\'s error'),
    streamError('h3-no-status', 'a response field section without :status', (x, id) => {
        // Static index 31 (accept-encoding: gzip, deflate, br) and nothing else.
        x.write(id, cat(h3frame(0x01, Buffer.from([0x00, 0x00, 0xdf])), HELLO), true);
        x.did('HEADERS without :status', id);
    }, 'RFC 9114 §4.3.2, §4.1.2: malformed, a stream error'),

    // --- no request stream at all ----------------------------------------------------
    {
        name: 'h3-max-streams-0', proto: 'h3', args: '-n 4 -c 2 -p 2 --connect-timeout 1s --timeout 3s', deadline: 6,
        does: 'initial_max_streams_bidi 0, never raised', tp: { 0x08: 0 },
        rfc: 'RFC 9000 §4.6: no request can go out; given up after --connect-timeout, one `refused` each (as HTTP/2 with MAX_CONCURRENT_STREAMS 0)',
        expect: { errors: { refused: 4 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": 4} and .durationSeconds >= 1.8' },
        // The STREAMS_BLOCKED the client sends (§4.6) is a "flow" frame.
        server: '(closes | length) == 4 and all(closes[]; .code == "0x100") and (hs | length) == 4 and (est | length) == 4' +
            ' and (requests | length) == 0 and (appFrames | index("flow")) != null',
    },
    {
        name: 'h3-max-streams-0-z', proto: 'h3', args: '-z 2s -c 2 --connect-timeout 5s', deadline: 6,
        does: 'initial_max_streams_bidi 0, a -z 2s run with --connect-timeout 5s', tp: { 0x08: 0 },
        rfc: 'RFC 9000 §4.6: the run ends at -z, no hang',
        expect: { ok: 0, jq: '.durationSeconds >= 1.8 and .durationSeconds <= 4' },
        server: '(hs | length) == 2 and (requests | length) == 0',
    },

    // --- tolerated -----------------------------------------------------------------------
    allOk('h3-after-fin', '5 bytes past a response\'s final size, in the packet after its FIN', {
        onRequest: first((x, id) => {
            x.ok(id);
            const size = x.conn.sent.get(id);
            x.packetEnd();
            x.quicFrame(cat(vs(0x0e, id, size, 5), Buffer.from('extra')));
            x.did(`5 bytes at offset ${size}, the stream's final size being ${size}`, id);
        }),
        // Both connections are closed at the end even though the bytes left
        // an ACK in flight (the close once waited for it, and was skipped).
        server: '(hs | length) == 2 and (bad | length) == 2 and (responses | length) == 20 and (errs | length) == 0' +
            ' and all(bad[]; .what | test("^5 bytes at offset [0-9]+, the stream.s final size being [0-9]+$"))' +
            ' and (closes | length) == 2 and all(closes[]; .code == "0x100")',
    }, 'RFC 9000 §4.5: FINAL_SIZE_ERROR is a SHOULD; §3.2: data for a stream in "Data Read" is discarded'),
    allOk('h3-coalesced-bad', 'a corrupted Handshake packet between the Initial and a good Handshake packet, one datagram', {
        handshake: 'coalesced-bad',
        server: '(hs | length) == 2 and (bad | length) == 2 and (responses | length) == 20 and (errs | length) == 0' +
            ' and all(bad[]; .what | test("in one datagram of 1[2-4][0-9][0-9] bytes$"))' +
            ' and (closes | length) == 2 and all(closes[]; .code == "0x100")',
    }, 'RFC 9000 §12.2, RFC 9001 §5.3, §9.5: only the bad packet is dropped, and its number not counted as received'),
    allOk('h3-amplify', '30 extra Initials and 10 random datagrams of 1200 bytes mid-handshake', {
        handshake: 'amplify',
        server: '(hs | length) == 2 and (bad | length) == 2 and (responses | length) == 20 and (errs | length) == 0' +
            ' and all(bad[]; .what | startswith("30 copies")) and (closes | length) == 2 and all(closes[]; .code == "0x100")',
    }, 'RFC 9000 §8.1 binds the server; §19.6: CRYPTO already received is ignored, §12.2: junk dropped'),
];

module.exports.wire = { varint, vs, cat, h3frame, SETTINGS, CONTROL, STATUS_200, HELLO };
