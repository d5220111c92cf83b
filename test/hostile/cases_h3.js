// test/hostile/cases_h3.js — hostile QUIC/HTTP/3 servers (the table's
// format: test/hostile/cases.js), played by test/servers/hostile_quic_server.js:
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
const { varint } = require('./wire.js');

// --- wire helpers (RFC 9000 §16, §19; RFC 9114 §7; RFC 9204 §4.5) ------------------

const cat = (...b) => Buffer.concat(b.map((x) => (Buffer.isBuffer(x) ? x : Buffer.from(x))));
const vs = (...v) => cat(...v.map(varint));
const h3frame = (type, payload) => cat(varint(type), varint(payload.length), payload);
const SETTINGS = h3frame(0x04, vs(0x06, 16384));
const CONTROL = cat([0x00], SETTINGS); // our control stream's first bytes
const STATUS_200 = [0x00, 0x00, 0xd9];  // QPACK: no dynamic table, static 25 (:status 200)
const HELLO = h3frame(0x00, Buffer.from('hello'));
// A literal field line with a literal name, both raw (RFC 9204 §4.5.6):
// 001 N H and the name's length in 3 bits (under 7 here), the name, then H
// and the value's length in 7 bits (under 127), the value.
const litName = (name, value) => {
    const n = Buffer.from(name, 'latin1'), v = Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1');
    if (n.length >= 7 || v.length >= 127) throw new Error('litName: too long for one-octet lengths');
    return cat([0x20 | n.length], n, [v.length], v);
};

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

// Before the handshake: -n 4 -c 2 --connect-timeout 500ms is two rounds of
// two connections, each given up after 0.5 s and charged one request.
const TIMEOUT_ARGS = '-n 4 -c 2 --connect-timeout 500ms';
const connectTimeouts = (name, does, raw, rfc, server = '(replies | length) >= 4') => ({
    name, proto: 'h3', args: TIMEOUT_ARGS, deadline: 8, does, rfc, raw,
    expect: { errors: { 'connect timeout': 4 },
        jq: '.requests.connectErrors == 4 and .quic.retries == 0 and .quic.packetsReceived == 0 and .durationSeconds >= 0.9' },
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
        name: 'h3-silent-z', proto: 'h3', args: '-z 1s -c 2 --connect-timeout 5s', deadline: 6, raw: () => {},
        does: 'never answers, a -z 1s run with --connect-timeout 5s',
        rfc: 'the run ends at -z, nothing is counted for connections never up',
        expect: { ok: 0, jq: '.requests.total == 0 and .durationSeconds >= 0.9 and .durationSeconds <= 3' },
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
        name: 'h3-max-streams-0', proto: 'h3', args: '-n 4 -c 2 -p 2 --connect-timeout 500ms --timeout 3s', deadline: 5,
        does: 'initial_max_streams_bidi 0, never raised', tp: { 0x08: 0 },
        rfc: 'RFC 9000 §4.6: no request can go out; given up after --connect-timeout, one `refused` each (as HTTP/2 with MAX_CONCURRENT_STREAMS 0)',
        expect: { errors: { refused: 4 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": 4} and .durationSeconds >= 0.9' },
        // The STREAMS_BLOCKED the client sends (§4.6) is a "flow" frame.
        server: '(closes | length) == 4 and all(closes[]; .code == "0x100") and (hs | length) == 4 and (est | length) == 4' +
            ' and (requests | length) == 0 and (appFrames | index("flow")) != null',
    },
    {
        name: 'h3-max-streams-0-z', proto: 'h3', args: '-z 1s -c 2 --connect-timeout 5s', deadline: 5,
        does: 'initial_max_streams_bidi 0, a -z 1s run with --connect-timeout 5s', tp: { 0x08: 0 },
        rfc: 'RFC 9000 §4.6: the run ends at -z, no hang',
        expect: { ok: 0, jq: '.durationSeconds >= 0.9 and .durationSeconds <= 3' },
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

    // --- HTTP/3 frames on the request stream (RFC 9114 §4.1, §7) -------------------
    connError('h3-headers-truncated', 'a HEADERS frame declaring 10 bytes, the stream ending (FIN) after 3', (x, id) => {
        x.write(id, cat(vs(0x01, 10), STATUS_200), true);
        x.did('HEADERS truncated by FIN', id);
    }, 'H3_FRAME_ERROR', '0x106', 'RFC 9114 §7.1: a frame truncated by the stream\'s end, H3_FRAME_ERROR'),
    connError('h3-data-truncated', 'HEADERS, then a DATA frame declaring 100 bytes, the stream ending after 5', (x, id) => {
        x.write(id, cat(h3frame(0x01, Buffer.from(STATUS_200)), vs(0x00, 100), Buffer.from('hello')), true);
        x.did('DATA truncated by FIN', id);
    }, 'H3_FRAME_ERROR', '0x106', 'RFC 9114 §7.1: H3_FRAME_ERROR'),
    connError('h3-h2-frame', 'an HTTP/2-only frame type (0x06, PING in HTTP/2) before HEADERS', (x, id) => {
        x.frame(id, 0x06, Buffer.alloc(8));
        x.ok(id);
        x.did('frame type 0x06 on a request stream', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §7.2.8: HTTP/2 frame types are H3_FRAME_UNEXPECTED'),
    connError('h3-push-promise', 'a PUSH_PROMISE on the request stream (the client never sent MAX_PUSH_ID)', (x, id) => {
        x.frame(id, 0x05, cat(vs(0), STATUS_200));
        x.ok(id);
        x.did('PUSH_PROMISE without MAX_PUSH_ID', id);
    }, 'H3_ID_ERROR', '0x108', 'RFC 9114 §7.2.5, §4.6: a push ID above the (absent) maximum, H3_ID_ERROR'),
    connError('h3-settings-on-request', 'a SETTINGS frame on the request stream', (x, id) => {
        x.write(id, SETTINGS);
        x.ok(id);
        x.did('SETTINGS on a request stream', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §7.2.4: SETTINGS elsewhere than the control stream, H3_FRAME_UNEXPECTED'),
    connError('h3-goaway-on-request', 'a GOAWAY frame on the request stream', (x, id) => {
        x.frame(id, 0x07, vs(0));
        x.ok(id);
        x.did('GOAWAY on a request stream', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §7.2.6: GOAWAY elsewhere than the control stream, H3_FRAME_UNEXPECTED'),
    connError('h3-data-after-trailers', 'HEADERS, DATA, trailers (HEADERS), then DATA again', (x, id) => {
        // Trailers: static 31 (accept-encoding), no pseudo-header.
        x.write(id, cat(h3frame(0x01, Buffer.from(STATUS_200)), HELLO, h3frame(0x01, Buffer.from([0x00, 0x00, 0xdf])), HELLO), true);
        x.did('DATA after the trailers', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §4.1: DATA after the trailer section, H3_FRAME_UNEXPECTED'),
    allOk('h3-reserved-frame', 'a reserved frame type (0x21, 0x1f * N + 0x21) with 50 bytes before HEADERS', {
        onRequest: first((x, id) => {
            x.frame(id, 0x21, Buffer.alloc(50, 0x5a));
            x.ok(id);
            x.did('reserved frame type 0x21 before HEADERS', id);
        }),
    }, 'RFC 9114 §7.2.8, §9: unknown and reserved frame types are ignored'),
    allOk('h3-interim-103', 'a 103 (Early Hints) response before the 200', {
        onRequest: first((x, id) => {
            x.headers(id, [0x00, 0x00, 0xd8]); // static 24: :status 103
            x.ok(id);
            x.did('103 before the final response', id);
        }),
    }, 'RFC 9114 §4.1: any number of interim responses precede the final one'),
    allOk('h3-many-fields', '2000 small header fields (static 31, accept-encoding) after :status', {
        onRequest: first((x, id) => {
            x.headers(id, cat(STATUS_200, Buffer.alloc(2000, 0xdf)));
            x.data(id, 'hello', true);
            x.log({ event: 'response', stream: id });
            x.did('2000 fields in one section', id);
        }),
    }, 'RFC 9114 §4.2.2: within SETTINGS_MAX_FIELD_SECTION_SIZE (shb sets none) a section of any field count is read'),
    // --- field names and values (RFC 9114 §4.2, §10.3; RFC 9113 §8.2.1's rules) ----------
    streamError('h3-name-uppercase', 'a literal field name with uppercase letters (`X-Foo: a`)', (x, id) => {
        x.headers(id, cat(STATUS_200, litName('X-Foo', 'a')));
        x.data(id, 'hello', true);
        x.did('an uppercase name', id);
    }, 'RFC 9114 §4.2: uppercase in a field name makes the message malformed'),
    streamError('h3-name-space', 'a literal field name with a space in it (`x foo: a`)', (x, id) => {
        x.headers(id, cat(STATUS_200, litName('x foo', 'a')));
        x.data(id, 'hello', true);
        x.did('a name with a space', id);
    }, 'RFC 9114 §4.2, §10.3: a name is a token'),
    streamError('h3-value-nul', 'a field value with a NUL (`x-foo: a\\0b`)', (x, id) => {
        x.headers(id, cat(STATUS_200, litName('x-foo', 'a\0b')));
        x.data(id, 'hello', true);
        x.did('a NUL in a value', id);
    }, 'RFC 9114 §10.3 (RFC 9113 §8.2.1\'s rule): NUL, LF and CR in a value are malformed'),
    streamError('h3-value-trailing-space', 'a field value that ends with a space (`x-foo: "a "`)', (x, id) => {
        x.headers(id, cat(STATUS_200, litName('x-foo', 'a ')));
        x.data(id, 'hello', true);
        x.did('a value ending in a space', id);
    }, 'RFC 9114 §10.3 (RFC 9113 §8.2.1\'s rule): no SP or HTAB at either end'),
    streamError('h3-value-huffman-padding', 'a Huffman-coded value of a field shb ignores (`x-foo`) padded with 0 bits', (x, id) => {
        // "a" is the 5-bit code 00011: one octet 00011|000, padding of zeros.
        x.headers(id, cat(STATUS_200, [0x25], Buffer.from('x-foo'), [0x81, 0x18])); // H set, 1 octet
        x.data(id, 'hello', true);
        x.did('bad Huffman padding in a value', id);
    }, 'RFC 9204 §4.1.2, RFC 7541 §5.2: bad padding is a decoding error in any string; the stream\'s QPACK_DECOMPRESSION_FAILED (§6: nothing else is out of step without a dynamic table)'),
    allOk('h3-fields-inner-ok', 'names with digits and dashes, values with inner spaces, a tab, commas, quotes and obs-text', {
        onRequest: first((x, id) => {
            x.headers(id, cat(STATUS_200, litName('x-a1b2', 'a b\t"c", d'), litName('x-obs', Buffer.from([0x80, 0xff]))));
            x.data(id, 'hello', true);
            x.log({ event: 'response', stream: id });
            x.did('fine names and values', id);
        }),
    }, 'RFC 9114 §4.2, §10.3: only NUL, LF, CR anywhere and SP or HTAB at the ends are out in values; names are tokens'),
    streamError('h3-status-101', ':status 101 (a literal field line)', (x, id) => {
        // Literal with static name reference 24 (:status), value "101".
        x.headers(id, cat([0x00, 0x00, 0x5f, 0x09, 0x03], Buffer.from('101')));
        x.data(id, 'hello', true);
        x.did(':status 101', id);
    }, 'RFC 9114 §4.5: no 101 (Switching Protocols) in HTTP/3; malformed, a stream error'),
    streamError('h3-trailer-pseudo', 'a trailer section carrying :status', (x, id) => {
        x.write(id, cat(h3frame(0x01, Buffer.from(STATUS_200)), HELLO, h3frame(0x01, Buffer.from(STATUS_200))), true);
        x.did('trailers with :status', id);
    }, 'RFC 9114 §4.3: pseudo-headers in trailers make the message malformed'),
    streamError('h3-huffman-bad', 'a Huffman-coded :status whose padding is not all ones', (x, id) => {
        // Literal with static name reference 24 (:status), value "200"
        // Huffman-coded: 00010 00000 00000, then one padding bit 0 (RFC
        // 7541 Appendix B; shb decodes :status, and only it).
        x.headers(id, [0x00, 0x00, 0x5f, 0x09, 0x82, 0x10, 0x00]);
        x.data(id, 'hello', true);
        x.did('Huffman padding of zeros', id);
    }, 'RFC 9204 §4.1.2, RFC 7541 §5.2: padding other than the EOS prefix is a decoding error'),
    streamError('h3-headers-1mb', 'a HEADERS frame declaring 1 MB (a 1 MB header value), the first 1000 bytes sent', (x, id) => {
        x.write(id, cat(vs(0x01, 1 << 20), STATUS_200, [0x5f, 0x10, 0x7f], Buffer.alloc(994, 0x61)));
        x.did('HEADERS of 1 MB', id);
    }, 'RFC 9114 §4.2.2, §10.5: a client may refuse a field section too large for it (H3_EXCESSIVE_LOAD), a stream error'),
    connError('h3-qpack-ric', 'a field section prefix with a nonzero Required Insert Count (encoded 2; shb allows no dynamic table)', (x, id) => {
        x.write(id, cat(h3frame(0x01, Buffer.from([0x02, 0x00, 0xd9])), HELLO), true);
        x.did('Required Insert Count 1', id);
    }, 'QPACK_DECOMPRESSION_FAILED', '0x200', 'RFC 9204 §4.5.1.1: a Required Insert Count the decoder\'s table cannot have, a connection error'),

    // --- the server's unidirectional streams (RFC 9114 §6.2) ------------------------
    connError('h3-missing-settings', 'a control stream whose first frame is GOAWAY, not SETTINGS', (x, id) => {
        x.control(cat([0x00], h3frame(0x07, vs(100))));
        x.ok(id);
        x.did('control stream without SETTINGS first', id);
    }, 'H3_MISSING_SETTINGS', '0x10a', 'RFC 9114 §6.2.1: H3_MISSING_SETTINGS', { controlStream: null }),
    connError('h3-second-control', 'a second control stream', (x, id) => {
        x.uni(CONTROL);
        x.ok(id);
        x.did('a second control stream', id);
    }, 'H3_STREAM_CREATION_ERROR', '0x103', 'RFC 9114 §6.2.1: H3_STREAM_CREATION_ERROR'),
    connError('h3-control-fin', 'its control stream ended (FIN)', (x, id) => {
        x.control(Buffer.alloc(0), true);
        x.ok(id);
        x.did('FIN on the control stream', id);
    }, 'H3_CLOSED_CRITICAL_STREAM', '0x104', 'RFC 9114 §6.2.1: the control stream never closes, H3_CLOSED_CRITICAL_STREAM'),
    connError('h3-push-stream', 'a push stream (type 0x01), the client having sent no MAX_PUSH_ID', (x, id) => {
        x.uni(cat(vs(0x01, 0), h3frame(0x01, Buffer.from(STATUS_200))));
        x.ok(id);
        x.did('a push stream', id);
    }, 'H3_ID_ERROR', '0x108', 'RFC 9114 §4.6: a push ID without MAX_PUSH_ID, H3_ID_ERROR'),
    connError('h3-cancel-push', 'CANCEL_PUSH on its control stream', (x, id) => {
        x.control(h3frame(0x03, vs(0)));
        x.ok(id);
        x.did('CANCEL_PUSH', id);
    }, 'H3_ID_ERROR', '0x108', 'RFC 9114 §7.2.3: a push ID never allowed, H3_ID_ERROR'),
    connError('h3-max-push-id', 'MAX_PUSH_ID from the server', (x, id) => {
        x.control(h3frame(0x0d, vs(10)));
        x.ok(id);
        x.did('MAX_PUSH_ID', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §7.2.7: a client receiving MAX_PUSH_ID, H3_FRAME_UNEXPECTED'),
    connError('h3-data-on-control', 'a DATA frame on its control stream', (x, id) => {
        x.control(HELLO);
        x.ok(id);
        x.did('DATA on the control stream', id);
    }, 'H3_FRAME_UNEXPECTED', '0x105', 'RFC 9114 §7.2.1: H3_FRAME_UNEXPECTED'),
    connError('h3-settings-h2-id', 'SETTINGS with identifier 0x02 (HTTP/2\'s ENABLE_PUSH)', (x, id) => {
        x.control(cat([0x00], h3frame(0x04, vs(0x02, 0))));
        x.ok(id);
        x.did('SETTINGS identifier 0x02', id);
    }, 'H3_SETTINGS_ERROR', '0x109', 'RFC 9114 §7.2.4.1: HTTP/2 setting identifiers, H3_SETTINGS_ERROR', { controlStream: null }),
    connError('h3-settings-twice', 'SETTINGS with MAX_FIELD_SECTION_SIZE twice', (x, id) => {
        x.control(cat([0x00], h3frame(0x04, vs(0x06, 100, 0x06, 200))));
        x.ok(id);
        x.did('one setting twice', id);
    }, 'H3_SETTINGS_ERROR', '0x109', 'RFC 9114 §7.2.4: the same identifier twice MAY be H3_SETTINGS_ERROR', { controlStream: null }),
    connError('h3-goaway-rising', 'GOAWAY 100, then GOAWAY 104', (x, id) => {
        x.control(cat(h3frame(0x07, vs(100)), h3frame(0x07, vs(104))));
        x.did('GOAWAY ids rising', id);
    }, 'H3_ID_ERROR', '0x108', 'RFC 9114 §5.2: an id above an earlier GOAWAY\'s, H3_ID_ERROR'),
    connError('h3-goaway-not-bidi', 'GOAWAY with id 2 (not a client bidirectional stream)', (x, id) => {
        x.control(h3frame(0x07, vs(2)));
        x.did('GOAWAY 2', id);
    }, 'H3_ID_ERROR', '0x108', 'RFC 9114 §7.2.6: a server\'s GOAWAY names a client-initiated bidirectional stream, else H3_ID_ERROR'),
    allOk('h3-unknown-uni', 'a unidirectional stream of a reserved type (0x21) carrying 100 bytes, then FIN', {
        onRequest: first((x, id) => {
            x.uni(cat(vs(0x21), Buffer.alloc(100, 0x7a)), true);
            x.ok(id);
            x.did('a stream of type 0x21', id);
        }),
    }, 'RFC 9114 §6.2, §6.2.3: unknown stream types are read and discarded'),
    allOk('h3-unknown-control-frame', 'a reserved frame type (0x21) on its control stream after SETTINGS', {
        onRequest: first((x, id) => {
            x.control(h3frame(0x21, Buffer.alloc(20)));
            x.ok(id);
            x.did('frame 0x21 on the control stream', id);
        }),
    }, 'RFC 9114 §7.2.8, §9: ignored'),
    allOk('h3-qpack-streams', 'QPACK encoder and decoder streams, the encoder\'s carrying Set Dynamic Table Capacity 0', {
        onRequest: first((x, id) => {
            x.uni(cat(vs(0x02), [0x20]));
            x.uni(vs(0x03));
            x.ok(id);
            x.did('QPACK streams', id);
        }),
    }, 'RFC 9204 §4.2, §4.3.1: a capacity of 0 is within the client\'s maximum (0)'),
    connError('h3-qpack-capacity', 'Set Dynamic Table Capacity 100 on its QPACK encoder stream (the client allowed 0)', (x, id) => {
        x.uni(cat(vs(0x02), [0x3f, 0x45]));
        x.ok(id);
        x.did('capacity 100', id);
    }, 'QPACK_ENCODER_STREAM_ERROR', '0x201', 'RFC 9204 §4.3.1: a capacity above SETTINGS_QPACK_MAX_TABLE_CAPACITY, QPACK_ENCODER_STREAM_ERROR'),
    connError('h3-qpack-insert', 'an Insert With Literal Name on its QPACK encoder stream (a table of capacity 0)', (x, id) => {
        x.uni(cat(vs(0x02), [0x41, 0x61, 0x01, 0x62]));
        x.ok(id);
        x.did('an insert into no table', id);
    }, 'QPACK_ENCODER_STREAM_ERROR', '0x201', 'RFC 9204 §3.2.2, §4.3.2: an entry larger than the capacity, QPACK_ENCODER_STREAM_ERROR'),

    // --- QUIC frames after the handshake (RFC 9000 §19) ------------------------------
    connError('h3-stream-unopened', 'STREAM data on client bidirectional stream 400, never opened', (x, id) => {
        x.quicFrame(cat(vs(0x0e, 400, 0, 5), Buffer.from('hello')));
        x.did('STREAM on stream 400', id);
    }, 'STREAM_STATE_ERROR', '0x5', 'RFC 9000 §19.8: a locally initiated stream not yet created, STREAM_STATE_ERROR'),
    connError('h3-stream-send-only', 'STREAM data on stream 2 (the client\'s own control stream, send-only)', (x, id) => {
        x.quicFrame(cat(vs(0x0e, 2, 0, 5), Buffer.from('hello')));
        x.did('STREAM on stream 2', id);
    }, 'STREAM_STATE_ERROR', '0x5', 'RFC 9000 §19.8: a send-only stream, STREAM_STATE_ERROR'),
    connError('h3-stream-server-bidi', 'STREAM data on stream 1 (server bidirectional; the client allowed none)', (x, id) => {
        x.quicFrame(cat(vs(0x0e, 1, 0, 5), Buffer.from('hello')));
        x.did('STREAM on stream 1', id);
    }, 'STREAM_LIMIT_ERROR', '0x4', 'RFC 9000 §4.6, §19.8: a stream above the limit given (0), STREAM_LIMIT_ERROR'),
    connError('h3-reset-unopened', 'RESET_STREAM for client bidirectional stream 400, never opened', (x, id) => {
        x.resetStream(400, 0x10c, 0);
        x.did('RESET_STREAM 400', id);
    }, 'STREAM_STATE_ERROR', '0x5', 'RFC 9000 §19.4: a locally initiated stream not yet created, STREAM_STATE_ERROR'),
    connError('h3-stop-receive-only', 'STOP_SENDING for its own control stream (3: receive-only for the client)', (x, id) => {
        x.stopSending(3, 0x10c);
        x.did('STOP_SENDING 3', id);
    }, 'STREAM_STATE_ERROR', '0x5', 'RFC 9000 §19.5: STOP_SENDING for a receive-only stream, STREAM_STATE_ERROR'),
    connError('h3-max-stream-data-recv-only', 'MAX_STREAM_DATA for its own control stream (3)', (x, id) => {
        x.quicFrame(vs(0x11, 3, 1 << 20));
        x.did('MAX_STREAM_DATA 3', id);
    }, 'STREAM_STATE_ERROR', '0x5', 'RFC 9000 §19.10: MAX_STREAM_DATA for a receive-only stream, STREAM_STATE_ERROR'),
    connError('h3-retire-unissued', 'RETIRE_CONNECTION_ID 1 (the client issued only sequence 0)', (x, id) => {
        x.quicFrame(vs(0x19, 1));
        x.did('RETIRE_CONNECTION_ID 1', id);
    }, 'PROTOCOL_VIOLATION', '0xa', 'RFC 9000 §19.16: a sequence number never sent, PROTOCOL_VIOLATION'),
    connError('h3-unknown-quic-frame', 'a QUIC frame of unknown type 0x21', (x, id) => {
        x.quicFrame([0x21, 0x00]);
        x.did('frame type 0x21', id);
    }, 'FRAME_ENCODING_ERROR', '0x7', 'RFC 9000 §12.4: an unknown frame type, FRAME_ENCODING_ERROR'),
    connError('h3-new-token-empty', 'NEW_TOKEN with an empty token', (x, id) => {
        x.quicFrame([0x07, 0x00]);
        x.did('NEW_TOKEN empty', id);
    }, 'FRAME_ENCODING_ERROR', '0x7', 'RFC 9000 §19.7: an empty token, FRAME_ENCODING_ERROR'),
    connError('h3-ack-negative', 'an ACK whose gap takes the smallest packet number below 0', (x, id) => {
        const ranges = x.conn.spaces.app.ranges;
        const largest = ranges.length ? ranges[0][1] : 0;
        x.quicFrame(vs(0x02, largest, 0, 1, 0, largest + 5, 0));
        x.did(`ACK of ${largest} with a gap of ${largest + 5}`, id);
    }, 'FRAME_ENCODING_ERROR', '0x7', 'RFC 9000 §19.3.1: a computed packet number below 0, FRAME_ENCODING_ERROR'),
    connError('h3-ncid-over-limit', 'NEW_CONNECTION_IDs up to one past the client\'s active_connection_id_limit', (x, id) => {
        const limit = x.conn.clientTp[0x0e] ? x.conn.clientTpInt(0x0e) : 2;
        // The connection ID in use (sequence 0) is one of the active ones:
        // sequences 1..limit make limit + 1.
        for (let seq = 1; seq <= limit; seq++) x.quicFrame(cat(vs(0x18, seq, 0, 8), crypto.randomBytes(8), crypto.randomBytes(16)));
        x.did(`NEW_CONNECTION_ID 1..${limit}, the limit being ${limit}`, id);
    }, 'CONNECTION_ID_LIMIT_ERROR', '0x9', 'RFC 9000 §5.1.1: more active connection IDs than active_connection_id_limit, CONNECTION_ID_LIMIT_ERROR'),
    allOk('h3-ncid-retire-prior', 'NEW_CONNECTION_IDs up to the limit, then one retiring all before it (retire_prior_to)', {
        onRequest: first((x, id) => {
            const limit = x.conn.clientTpInt(0x0e) || 2;
            for (let seq = 1; seq < limit; seq++) x.quicFrame(cat(vs(0x18, seq, 0, 8), crypto.randomBytes(8), crypto.randomBytes(16)));
            x.quicFrame(cat(vs(0x18, limit, limit, 8), crypto.randomBytes(8), crypto.randomBytes(16)));
            x.ok(id);
            x.did(`NEW_CONNECTION_ID 1..${limit}, the last retiring those before it`, id);
        }),
    }, 'RFC 9000 §5.1.2, §19.15: the client retires them and carries on with the new one'),
    allOk('h3-handshake-done-twice', 'HANDSHAKE_DONE again, in the first response\'s packet', {
        onRequest: first((x, id) => { x.quicFrame([0x1e]); x.ok(id); x.did('HANDSHAKE_DONE again', id); }),
    }, 'RFC 9000 §19.20: only a server receiving it is in error'),
    allOk('h3-limits-decrease', 'MAX_DATA 1, MAX_STREAM_DATA 1 and MAX_STREAMS 1 (below what it gave)', {
        onRequest: first((x, id) => {
            x.quicFrame(vs(0x10, 1));
            x.quicFrame(vs(0x11, id, 1));
            x.quicFrame(vs(0x12, 1));
            x.ok(id);
            x.did('limits lowered', id);
        }),
    }, 'RFC 9000 §19.9, §19.10, §19.11: a limit that does not increase is ignored'),
    allOk('h3-new-token', 'a NEW_TOKEN of 32 bytes', {
        onRequest: first((x, id) => { x.quicFrame(cat(vs(0x07, 32), crypto.randomBytes(32))); x.ok(id); x.did('NEW_TOKEN', id); }),
    }, 'RFC 9000 §19.7, §8.1.3: a token for later connections; a client may keep or drop it'),
    allOk('h3-ping-flood', '1000 PING frames and 20 PADDING-only packets with the first response', {
        onRequest: first((x, id) => {
            for (let k = 0; k < 20; k++) { x.quicFrame(Buffer.alloc(1000)); x.packetEnd(); }
            x.quicFrame(Buffer.alloc(1000, 0x01));
            x.ok(id);
            x.did('1000 PINGs, 20 PADDING-only packets', id);
        }),
    }, 'RFC 9000 §19.1, §19.2: PING and PADDING only elicit (or not) an ACK'),
    allOk('h3-ack-delay-huge', 'an ACK of the client\'s largest packet with ack delay 2^62-1', {
        onRequest: first((x, id) => {
            const ranges = x.conn.spaces.app.ranges;
            x.quicFrame(cat(vs(0x02, ranges[0][1]), Buffer.from('ffffffffffffffff', 'hex'), vs(0, 0)));
            x.ok(id);
            x.did('ack delay 2^62-1', id);
        }),
    }, 'RFC 9002 §5.3: ack delay is capped at max_ack_delay once the handshake is confirmed'),
    {
        ...connError('h3-close-transport', 'CONNECTION_CLOSE INTERNAL_ERROR (a transport close) on the first request', (x, id) => {
            x.close(0x1, { reason: 'bye' });
            x.did('CONNECTION_CLOSE 0x1', id);
        }, '', '', 'RFC 9000 §10.2.2: the server closed; both requests in flight `closed`, shb sends nothing more'),
        expect: { errors: { closed: 8 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"server INTERNAL_ERROR": 4}' },
        server: '(hs | length) == 4 and (bad | length) == 4 and (errs | length) == 0 and (closes | length) == 0',
    },
    {
        ...connError('h3-close-app', 'CONNECTION_CLOSE H3_INTERNAL_ERROR (an application close) on the first request', (x, id) => {
            x.close(0x102, { app: true });
            x.did('CONNECTION_CLOSE 0x102 (application)', id);
        }, '', '', 'RFC 9000 §10.2.2, RFC 9114 §8: both requests in flight `closed`'),
        expect: { errors: { closed: 8 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"server H3_INTERNAL_ERROR": 4}' },
        server: '(hs | length) == 4 and (bad | length) == 4 and (errs | length) == 0 and (closes | length) == 0',
    },
    {
        ...streamError('h3-reset-mid-body', 'HEADERS and half a DATA frame, then RESET_STREAM H3_INTERNAL_ERROR', (x, id) => {
            x.write(id, cat(h3frame(0x01, Buffer.from(STATUS_200)), vs(0x00, 10), Buffer.from('hello')));
            x.resetStream(id, 0x102);
            x.did('RESET_STREAM mid-body', id);
        }, 'RFC 9000 §19.4, RFC 9114 §4.1.1: the response is cut off: a `stream reset`'),
        expect: { ok: 6, errors: { 'stream reset': 2 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": 2}' },
    },
    allOk('h3-stop-sending', 'STOP_SENDING H3_NO_ERROR on the request stream (the request all sent), then the response', {
        onRequest: first((x, id) => { x.stopSending(id, 0x100); x.ok(id); x.did('STOP_SENDING H3_NO_ERROR', id); }),
    }, 'RFC 9114 §4.1.1: a server may stop the request body and still answer'),
    {
        ...allOk('h3-goaway-mid-run', 'GOAWAY 8 at the first request of each connection, every request answered', {
            onRequest: (x, n, id) => {
                if (n === 1) {
                    x.control(h3frame(0x07, vs(8)));
                    x.did('GOAWAY 8', id);
                }
                x.ok(id);
            },
        }, 'RFC 9114 §5.2: no request above the GOAWAY\'s id goes out on that connection; shb opens another'),
        expect: { ok: 20, jq: '.requests.connectErrors == 0 and .connectionsOpened == 10 and .quic.connectionCloses == {"shb H3_NO_ERROR": 10}' },
        server: '(hs | length) == 10 and (bad | length) == 10 and (responses | length) == 20 and all(requests[]; .stream < 8)' +
            ' and (closes | length) == 10 and all(closes[]; .code == "0x100")',
        deadline: 5,
    },
    {
        // shb once counted these `closed`, as if the server had closed.
        ...connError('h3-crypto-1rtt-bad', 'a CRYPTO frame in 1-RTT carrying a TLS message of unknown type (0xfe)', (x, id) => {
            x.quicFrame(cat(vs(0x06, 0, 4), [0xfe, 0, 0, 0]));
            x.did('CRYPTO 1-RTT, message type 0xfe', id);
        }, '', '0x10a', 'RFC 9001 §4.1.3, §4.8: a post-handshake TLS message it cannot take, CRYPTO_ERROR (unexpected_message); TLS failed after the handshake: `tls`'),
        expect: { errors: { tls: 8 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb CRYPTO_ERROR unexpected_message": 4}' },
    },
    {
        // shb once retried these forever: the run never ended.
        name: 'h3-goaway-0', proto: 'h3', args: '-n 4 -c 2 -p 2 --connect-timeout 2s --timeout 3s', deadline: 8,
        does: 'GOAWAY 0 at the first request of every connection, nothing answered',
        rfc: 'RFC 9114 §5.2: every request is above the GOAWAY, unprocessed, sent again; from connections that answered nothing, `refused` after shb\'s 15 retries',
        onRequest: (x, n, id) => { if (n === 1) { x.control(h3frame(0x07, vs(0))); x.did('GOAWAY 0', id); } },
        expect: { errors: { refused: 4 }, jq: '.requests.connectErrors == 0 and .quic.connectionCloses == {"shb H3_NO_ERROR": .connectionsOpened}' },
        server: '(responses | length) == 0 and (closes | length) == (hs | length) and all(closes[]; .code == "0x100")',
    },
    allOk('h3-idle-timeout-0', 'max_idle_timeout 0 (no idle timeout of its own)', { tp: { 0x01: 0 },
        onRequest: first((x, id) => { x.ok(id); x.did('max_idle_timeout 0', id); }) },
    'RFC 9000 §10.1, §18.2: 0 (or absent) disables the server\'s idle timeout; the client\'s own applies'),
];

// Before the handshake is over: the server's transport parameters.
const tpError = (name, does, tp, rfc) => ({
    name, proto: 'h3', args: '-n 4 -c 2 --connect-timeout 2s --timeout 3s', deadline: 5, does, rfc, tp,
    expect: { errors: { 'tls handshake': 4 }, jq: '.requests.connectErrors == 4 and .quic.connectionCloses == {"shb TRANSPORT_PARAMETER_ERROR": 4}' },
    // RFC 9000 §10.2.3: the close may go in more than one packet number space.
    server: '(hs | length) == 4 and (requests | length) == 0 and ([closes[] | .from] | unique | length) == 4 and all(closes[]; .code == "0x8")',
});
module.exports.push(
    tpError('h3-tp-cid-limit-1', 'active_connection_id_limit 1', { 0x0e: 1 },
        'RFC 9000 §18.2: a value below 2 is TRANSPORT_PARAMETER_ERROR'),
    tpError('h3-tp-wrong-odcid', 'an original_destination_connection_id that is not the client\'s', { 0x00: crypto.randomBytes(8) },
        'RFC 9000 §7.3: a connection ID that does not match, TRANSPORT_PARAMETER_ERROR'),
    tpError('h3-tp-wrong-iscid', 'an initial_source_connection_id other than its long headers\' SCID', { 0x0f: crypto.randomBytes(8) },
        'RFC 9000 §7.3: TRANSPORT_PARAMETER_ERROR'),
    tpError('h3-tp-no-odcid', 'no original_destination_connection_id', { 0x00: null },
        'RFC 9000 §7.3, §18.2: a server must send it; its absence is TRANSPORT_PARAMETER_ERROR'),
    tpError('h3-tp-stateless-reset-len', 'a stateless_reset_token of 8 bytes', { 0x02: crypto.randomBytes(8) },
        'RFC 9000 §18.2: the token is 16 bytes, TRANSPORT_PARAMETER_ERROR'),
    tpError('h3-tp-max-udp-small', 'max_udp_payload_size 1000', { 0x03: 1000 },
        'RFC 9000 §18.2: below 1200 is invalid, TRANSPORT_PARAMETER_ERROR'),
    tpError('h3-tp-ack-delay-exp', 'ack_delay_exponent 21', { 0x0a: 21 },
        'RFC 9000 §18.2: above 20 is invalid, TRANSPORT_PARAMETER_ERROR'),
);

module.exports.wire = { varint, vs, cat, h3frame, SETTINGS, CONTROL, STATUS_200, HELLO };
