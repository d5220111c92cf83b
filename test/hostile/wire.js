// test/hostile/wire.js — the bytes the hostile cases are made of: HTTP/2
// frames (RFC 9113 §4.1) and HPACK (RFC 7541) written by hand, so that a case
// can put any value in any field, and QUIC's variable-length integers (RFC
// 9000 §16). Shared by test/servers/hostile_server.js, test/servers/hostile_quic_server.js
// and the case tables next to this file. No npm dependencies; node 18.
'use strict';

const FT = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6,
    GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 };
const FL = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 };
const ERR = { NO_ERROR: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2, FLOW_CONTROL_ERROR: 3, SETTINGS_TIMEOUT: 4,
    STREAM_CLOSED: 5, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, CANCEL: 8, COMPRESSION_ERROR: 9,
    CONNECT_ERROR: 0xa, ENHANCE_YOUR_CALM: 0xb, INADEQUATE_SECURITY: 0xc, HTTP_1_1_REQUIRED: 0xd };
const SET = { HEADER_TABLE_SIZE: 1, ENABLE_PUSH: 2, MAX_CONCURRENT_STREAMS: 3, INITIAL_WINDOW_SIZE: 4,
    MAX_FRAME_SIZE: 5, MAX_HEADER_LIST_SIZE: 6 };

const bytes = (b) => (Buffer.isBuffer(b) ? b : typeof b === 'string' ? Buffer.from(b, 'latin1') : Buffer.from(b || []));

// frame(type, flags, stream, payload[, length]): one frame; `length` puts
// another value in the length field than the payload has (a bad length).
function frame(type, flags, stream, payload, length) {
    const p = bytes(payload);
    const h = Buffer.alloc(9);
    h.writeUIntBE(length === undefined ? p.length : length, 0, 3);
    h[3] = type;
    h[4] = flags;
    h.writeUInt32BE(stream >>> 0, 5);
    return Buffer.concat([h, p]);
}
const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v >>> 0); return b; };
function settings(list) {
    const p = Buffer.alloc(6 * list.length);
    list.forEach(([id, v], i) => {
        p.writeUInt16BE(id, 6 * i);
        p.writeUInt32BE(v >>> 0, 6 * i + 2);
    });
    return p;
}
const goaway = (last, code, debug) => Buffer.concat([u32(last), u32(code), bytes(debug)]);

// HPACK: an integer with an N-bit prefix (§5.1), a string literal without
// Huffman (§5.2), a literal field without indexing (§6.2.2) and an indexed
// field (§6.1).
function hpackInt(n, prefixBits, firstByteFlags) {
    const max = (1 << prefixBits) - 1;
    if (n < max) return Buffer.from([firstByteFlags | n]);
    const out = [firstByteFlags | max];
    n -= max;
    while (n >= 128) {
        out.push((n % 128) | 0x80);
        n = Math.floor(n / 128);
    }
    out.push(n);
    return Buffer.from(out);
}
function hpackString(s) {
    const b = bytes(s);
    return Buffer.concat([hpackInt(b.length, 7, 0x00), b]);
}
const lit = (name, value) => Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
const idx = (i) => hpackInt(i, 7, 0x80);
const STATUS_200 = idx(8);
const OK_BLOCK = Buffer.concat([STATUS_200, lit('content-length', '2')]);

// varint(v): a QUIC variable-length integer in its shortest form (RFC 9000
// §16), v below 2^53.
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

module.exports = { FT, FL, ERR, SET, bytes, frame, u32, settings, goaway, hpackInt, hpackString, lit, idx,
    STATUS_200, OK_BLOCK, varint };
