// test/hostile/cases_h2.js — hostile HTTP/2 servers over cleartext TCP (h2c
// with prior knowledge; the table's format: test/hostile/cases.js). The
// server's engine (test/servers/hostile_server.js) sends SETTINGS
// (MAX_CONCURRENT_STREAMS 100 unless the case says otherwise), ACKs shb's,
// and calls onRequest(x, n, stream) for each complete request; the case then
// writes whatever frames it likes. `-n 8 -c 2` (one stream at a time on each
// connection) means a connection error costs a reconnect, a stream error
// does not: jq checks on `connectionsOpened` tell the two apart.
//
// Most cases send the broken frame and then the well-formed answer (x.ok), so
// a client that wrongly tolerated the frame shows up as `ok`, at once, and
// never as a timeout.
'use strict';

const w = require('./wire.js');

const { FT, FL, ERR, SET, u32, settings, goaway, hpackInt, hpackString, lit, idx, STATUS_200, OK_BLOCK } = w;
const MB = 1 << 20;
const EH = FL.END_HEADERS, ES = FL.END_STREAM;
const cat = (...b) => Buffer.concat(b.map(w.bytes));

// A case in the usual shape: -n 8 -c 2, every request answered by fn.
const every = (name, does, fn, expect, more = {}) => ({
    name, proto: 'h2', args: '-n 8 -c 2', does, expect, onRequest: fn, ...more,
});
// The broken frame(s) from bad(x, s), then the well-formed answer.
const thenOk = (bad) => (x, n, s) => {
    bad(x, s, n);
    x.ok(s);
};
const protocol8 = { errors: { protocol: 8 } };
// A connection error: every request costs its connection.
const connError8 = { errors: { protocol: 8 }, jq: '.connectionsOpened == 8' };
// A stream error (RST_STREAM from shb): the two connections carry on.
const streamError8 = { errors: { protocol: 8 }, jq: '.connectionsOpened == 2' };
const ok8 = { ok: 8 };
const ok8kept = { ok: 8, jq: '.connectionsOpened == 2' };

// A response header block with these representations, then DATA "ok".
const respond = (x, s, block) => {
    x.headers(s, block, false);
    x.frame(FT.DATA, ES, s, 'ok');
};
// ":status" with a Huffman-coded value (literal without indexing, static
// name index 8, RFC 7541 §6.2.2).
const huffStatus = (bytes) => cat([0x08, 0x80 | bytes.length], bytes);
// "200" Huffman-coded: 00010 00000 00000, then one padding bit (RFC 7541 Appendix B).
const HUFF_200 = [0x10, 0x01];

module.exports = [
    // --- frame sizes (RFC 9113 §4.2, §6): connection errors -----------------
    every('h2-data-pad-too-long', 'DATA with PADDED and a pad length (10) longer than the frame',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.DATA, FL.PADDED | ES, s, [10, 0x6f, 0x6b]);
        }, connError8, { rfc: 'RFC 9113 §6.1: padding >= payload is a connection error PROTOCOL_ERROR' }),
    every('h2-data-padded-empty', 'DATA with PADDED and no payload at all (no room for Pad Length)',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.DATA, FL.PADDED | ES, s, []);
            x.frame(FT.DATA, ES, s, 'ok');
        }, connError8, { rfc: 'RFC 9113 §4.2: a frame too small for its mandatory fields: FRAME_SIZE_ERROR' }),
    every('h2-headers-pad-too-long', 'HEADERS with PADDED, pad length 200 in a 5-byte frame',
        (x, n, s) => {
            x.frame(FT.HEADERS, FL.PADDED | EH, s, cat([200], OK_BLOCK.subarray(0, 4)));
            x.ok(s);
        }, connError8, { rfc: 'RFC 9113 §6.2: padding beyond the field block fragment: PROTOCOL_ERROR' }),
    every('h2-headers-priority-short', 'HEADERS with the PRIORITY flag and 3 bytes (the flag needs 5)',
        thenOk((x, s) => x.frame(FT.HEADERS, FL.PRIORITY | EH, s, [0, 0, 0])), connError8,
        { rfc: 'RFC 9113 §4.2: a field block frame too small for its fields: FRAME_SIZE_ERROR (connection)' }),
    every('h2-priority-len-4', 'PRIORITY of 4 bytes on the stream (must be 5)',
        thenOk((x, s) => x.frame(FT.PRIORITY, 0, s, [0, 0, 0, 0])), protocol8,
        { rfc: 'RFC 9113 §6.3: FRAME_SIZE_ERROR (shb makes it a connection error, h2.c)' }),
    every('h2-rst-len-3', 'RST_STREAM of 3 bytes', thenOk((x, s) => x.frame(FT.RST_STREAM, 0, s, [0, 0, 8])), connError8,
        { rfc: 'RFC 9113 §6.4: a length other than 4 is a connection error FRAME_SIZE_ERROR' }),
    every('h2-settings-len-7', 'SETTINGS of 7 bytes (not a multiple of 6)',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, cat(settings([[SET.MAX_CONCURRENT_STREAMS, 100]]), [0]))), connError8,
        { rfc: 'RFC 9113 §6.5: FRAME_SIZE_ERROR' }),
    every('h2-settings-ack-payload', 'a SETTINGS ACK carrying a 6-byte setting',
        thenOk((x) => x.frame(FT.SETTINGS, FL.ACK, 0, settings([[SET.MAX_CONCURRENT_STREAMS, 100]]))), connError8,
        { rfc: 'RFC 9113 §6.5: an ACK with a payload is a FRAME_SIZE_ERROR' }),
    every('h2-ping-len-7', 'PING of 7 bytes', thenOk((x) => x.frame(FT.PING, 0, 0, [1, 2, 3, 4, 5, 6, 7])), connError8,
        { rfc: 'RFC 9113 §6.7: a length other than 8 is a FRAME_SIZE_ERROR' }),
    every('h2-goaway-len-7', 'GOAWAY of 7 bytes', thenOk((x) => x.frame(FT.GOAWAY, 0, 0, [0, 0, 0, 0, 0, 0, 0])), connError8,
        { rfc: 'RFC 9113 §4.2: too small for its fields: FRAME_SIZE_ERROR' }),
    every('h2-window-update-len-3', 'WINDOW_UPDATE of 3 bytes on stream 0',
        thenOk((x) => x.frame(FT.WINDOW_UPDATE, 0, 0, [0, 0, 1])), connError8,
        { rfc: 'RFC 9113 §6.9: a length other than 4 is a FRAME_SIZE_ERROR' }),
    every('h2-frame-over-max', 'DATA of 16,385 bytes (shb never raised SETTINGS_MAX_FRAME_SIZE from 16,384)',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.DATA, ES, s, Buffer.alloc(16385, 0x61));
        }, connError8, { rfc: 'RFC 9113 §4.2: FRAME_SIZE_ERROR' }),
    every('h2-unknown-frame-type', 'frames of unknown types 0x0a and 0xfa, on stream 0 and on the stream',
        thenOk((x, s) => {
            x.frame(0xfa, 0xff, 0, 'junk');
            x.frame(0x0a, 0, s, 'more junk');
        }), ok8kept, { rfc: 'RFC 9113 §4.1, §5.5: unknown frame types are ignored' }),

    // --- frames on the wrong stream ------------------------------------------
    every('h2-data-on-stream-0', 'DATA on stream 0', thenOk((x) => x.frame(FT.DATA, 0, 0, 'no')), connError8,
        { rfc: 'RFC 9113 §6.1: PROTOCOL_ERROR' }),
    every('h2-headers-on-stream-0', 'HEADERS on stream 0', thenOk((x) => x.headers(0, OK_BLOCK, true)), connError8,
        { rfc: 'RFC 9113 §6.2: PROTOCOL_ERROR' }),
    every('h2-rst-on-stream-0', 'RST_STREAM on stream 0', thenOk((x) => x.frame(FT.RST_STREAM, 0, 0, u32(ERR.CANCEL))),
        connError8, { rfc: 'RFC 9113 §6.4: PROTOCOL_ERROR' }),
    every('h2-priority-on-stream-0', 'PRIORITY on stream 0', thenOk((x) => x.frame(FT.PRIORITY, 0, 0, [0, 0, 0, 0, 16])),
        connError8, { rfc: 'RFC 9113 §6.3: PROTOCOL_ERROR' }),
    every('h2-continuation-on-stream-0', 'HEADERS without END_HEADERS, then its CONTINUATION on stream 0',
        (x, n, s) => {
            x.frame(FT.HEADERS, 0, s, STATUS_200);
            x.frame(FT.CONTINUATION, EH, 0, lit('content-length', '2'));
            x.frame(FT.DATA, ES, s, 'ok');
        }, connError8, { rfc: 'RFC 9113 §6.10: PROTOCOL_ERROR' }),
    every('h2-settings-on-stream', 'SETTINGS on the request\'s stream',
        thenOk((x, s) => x.frame(FT.SETTINGS, 0, s, settings([[SET.MAX_CONCURRENT_STREAMS, 100]]))), connError8,
        { rfc: 'RFC 9113 §6.5: PROTOCOL_ERROR' }),
    every('h2-ping-on-stream', 'PING on the request\'s stream', thenOk((x, s) => x.frame(FT.PING, 0, s, Buffer.alloc(8))),
        connError8, { rfc: 'RFC 9113 §6.7: PROTOCOL_ERROR' }),
    every('h2-goaway-on-stream', 'GOAWAY on the request\'s stream',
        thenOk((x, s) => x.frame(FT.GOAWAY, 0, s, goaway(s, ERR.NO_ERROR))), connError8,
        { rfc: 'RFC 9113 §6.8: PROTOCOL_ERROR' }),

    // --- stream states (RFC 9113 §5.1) ----------------------------------------
    every('h2-data-idle-stream', 'DATA on the next odd stream id, which shb has not opened',
        thenOk((x, s) => x.frame(FT.DATA, 0, s + 2, 'no')), connError8,
        { rfc: 'RFC 9113 §5.1: idle: any frame but HEADERS/PRIORITY is a PROTOCOL_ERROR' }),
    every('h2-headers-even-stream', 'HEADERS on stream 2 (server-initiated, and shb disabled push)',
        thenOk((x) => x.headers(2, OK_BLOCK, true)), connError8,
        { rfc: 'RFC 9113 §5.1.1: an unexpected stream identifier is a PROTOCOL_ERROR' }),
    every('h2-rst-idle-stream', 'RST_STREAM on the next odd stream id (idle)',
        thenOk((x, s) => x.frame(FT.RST_STREAM, 0, s + 2, u32(ERR.CANCEL))), connError8,
        { rfc: 'RFC 9113 §6.4: RST_STREAM on an idle stream is a PROTOCOL_ERROR' }),
    every('h2-window-update-idle-stream', 'WINDOW_UPDATE on the next odd stream id (idle)',
        thenOk((x, s) => x.frame(FT.WINDOW_UPDATE, 0, s + 2, u32(100))), connError8,
        { rfc: 'RFC 9113 §5.1: idle: PROTOCOL_ERROR' }),
    every('h2-priority-idle-stream', 'PRIORITY on an idle stream (legal)',
        thenOk((x, s) => x.frame(FT.PRIORITY, 0, s + 2, [0, 0, 0, 0, 16])), ok8kept,
        { rfc: 'RFC 9113 §5.1: PRIORITY may be sent on a stream in any state' }),
    every('h2-data-closed-stream', 'the answer, then more DATA on the stream it closed',
        (x, n, s) => {
            x.ok(s);
            x.frame(FT.DATA, ES, s, 'late');
        }, ok8kept, { rfc: 'RFC 9113 §5.1: a closed stream\'s frames MAY be a connection error; shb discards them' }),
    every('h2-headers-closed-stream', 'the answer, then a second response HEADERS on the closed stream',
        (x, n, s) => {
            x.ok(s);
            x.headers(s, OK_BLOCK, true);
        }, ok8kept, { rfc: 'RFC 9113 §5.1 (discarded), §4.3 (the block is still decoded)' }),
    every('h2-rst-no-error-after-response', 'a complete response, then RST_STREAM NO_ERROR on it',
        (x, n, s) => {
            x.ok(s);
            x.frame(FT.RST_STREAM, 0, s, u32(ERR.NO_ERROR));
        }, ok8kept, { rfc: 'RFC 9113 §8.1: clients MUST NOT discard the response' }),
    every('h2-rst-cancel', 'RST_STREAM CANCEL instead of an answer', (x, n, s) => x.frame(FT.RST_STREAM, 0, s, u32(ERR.CANCEL)),
        { errors: { 'stream reset': 8 }, jq: '.connectionsOpened == 2' }, { rfc: 'RFC 9113 §6.4: the stream is closed' }),
    every('h2-rst-mid-body', 'HEADERS, half the body, then RST_STREAM INTERNAL_ERROR',
        (x, n, s) => {
            x.headers(s, cat(STATUS_200, lit('content-length', '4')), false);
            x.frame(FT.DATA, 0, s, 'ok');
            x.frame(FT.RST_STREAM, 0, s, u32(ERR.INTERNAL_ERROR));
        }, { errors: { 'stream reset': 8 }, jq: '.connectionsOpened == 2' }, { rfc: 'RFC 9113 §6.4' }),
    every('h2-refused-stream', 'RST_STREAM REFUSED_STREAM on every stream',
        (x, n, s) => x.frame(FT.RST_STREAM, 0, s, u32(ERR.REFUSED_STREAM)), { errors: { refused: 8 } },
        { rfc: 'RFC 9113 §8.7: unprocessed, retried (15 times) on another connection' }),
    every('h2-data-before-headers', 'DATA on the stream before any HEADERS', thenOk((x, s) => x.frame(FT.DATA, 0, s, 'no')),
        protocol8, { rfc: 'RFC 9113 §8.1: a response starts with HEADERS (shb: a connection error)' }),

    // --- floods (RFC 9113 §10.5) ------------------------------------------------
    {
        name: 'h2-settings-flood', proto: 'h2', args: '-n 4 -c 2', deadline: 15,
        does: '100,000 empty SETTINGS frames (each wants an ACK) before the answer',
        rfc: 'RFC 9113 §10.5: over 1,000 PING/SETTINGS with no response progress between them: GOAWAY ENHANCE_YOUR_CALM',
        expect: { errors: { protocol: 4 }, jq: '.connectionsOpened == 4' },
        onRequest: (x, n, s) => {
            const f = w.frame(FT.SETTINGS, 0, 0, []);
            const chunk = Buffer.concat(Array(1000).fill(f));
            x.flood(() => chunk, 100 * chunk.length, () => x.ok(s));
        },
    },
    {
        name: 'h2-ping-flood', proto: 'h2', args: '-n 4 -c 2', deadline: 15,
        does: '100,000 PINGs (each wants an ACK) before the answer',
        rfc: 'RFC 9113 §10.5: over 1,000 PING/SETTINGS with no response progress between them: GOAWAY ENHANCE_YOUR_CALM',
        expect: { errors: { protocol: 4 }, jq: '.connectionsOpened == 4' },
        onRequest: (x, n, s) => {
            const f = w.frame(FT.PING, 0, 0, Buffer.alloc(8, 7));
            const chunk = Buffer.concat(Array(1000).fill(f));
            x.flood(() => chunk, 100 * chunk.length, () => x.ok(s));
        },
    },
    {
        name: 'h2-rst-flood', proto: 'h2', args: '-n 4 -c 2', deadline: 15, expect: { ok: 4 },
        does: 'the answer, then 500,000 RST_STREAM frames on the closed stream',
        rfc: 'RFC 9113 §5.1, §10.5: frames on a closed stream are discarded; they cost shb nothing but reading',
        onRequest: (x, n, s) => {
            x.ok(s);
            const chunk = Buffer.concat(Array(1000).fill(w.frame(FT.RST_STREAM, 0, s, u32(ERR.CANCEL))));
            x.flood(() => chunk, 500 * chunk.length);
        },
    },
    {
        name: 'h2-empty-data-flood', proto: 'h2', args: '-n 4 -c 2', deadline: 15, expect: { ok: 4 },
        does: 'HEADERS, 1,000,000 empty DATA frames, then DATA "ok"',
        rfc: 'RFC 9113 §10.5: empty frames cost shb only the reading (bounded CPU, no memory)',
        onRequest: (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            const chunk = Buffer.concat(Array(1000).fill(w.frame(FT.DATA, 0, s, [])));
            x.flood(() => chunk, 1000 * chunk.length, () => x.frame(FT.DATA, ES, s, 'ok'));
        },
    },
    {
        name: 'h2-unknown-frame-flood', proto: 'h2', args: '-n 4 -c 2', deadline: 15, expect: { ok: 4 },
        does: '1,000,000 empty frames of an unknown type on stream 0, then the answer',
        rfc: 'RFC 9113 §5.5: ignored, at the cost of reading them',
        onRequest: (x, n, s) => {
            const chunk = Buffer.concat(Array(1000).fill(w.frame(0xee, 0, 0, [])));
            x.flood(() => chunk, 1000 * chunk.length, () => x.ok(s));
        },
    },
    {
        name: 'h2-window-update-flood', proto: 'h2', args: '-n 4 -c 2', deadline: 15, expect: { ok: 4 },
        does: '100,000 WINDOW_UPDATE +1 on the connection, then the answer',
        rfc: 'RFC 9113 §6.9: legal while the window stays under 2^31-1',
        onRequest: (x, n, s) => {
            const chunk = Buffer.concat(Array(1000).fill(w.frame(FT.WINDOW_UPDATE, 0, 0, u32(1))));
            x.flood(() => chunk, 100 * chunk.length, () => x.ok(s));
        },
    },

    // --- flow control (RFC 9113 §6.9) --------------------------------------------
    every('h2-window-overflow-conn', 'WINDOW_UPDATE 2^31-1 on stream 0 (the window goes past 2^31-1)',
        thenOk((x) => x.frame(FT.WINDOW_UPDATE, 0, 0, u32(0x7fffffff))), connError8,
        { rfc: 'RFC 9113 §6.9.1: a connection error FLOW_CONTROL_ERROR' }),
    every('h2-window-overflow-stream', 'WINDOW_UPDATE 2^31-1 on the stream',
        thenOk((x, s) => x.frame(FT.WINDOW_UPDATE, 0, s, u32(0x7fffffff))), streamError8,
        { rfc: 'RFC 9113 §6.9.1: a stream error FLOW_CONTROL_ERROR' }),
    every('h2-window-zero-conn', 'WINDOW_UPDATE with increment 0 on stream 0',
        thenOk((x) => x.frame(FT.WINDOW_UPDATE, 0, 0, u32(0))), connError8,
        { rfc: 'RFC 9113 §6.9: a connection error PROTOCOL_ERROR' }),
    every('h2-window-zero-stream', 'WINDOW_UPDATE with increment 0 on the stream',
        thenOk((x, s) => x.frame(FT.WINDOW_UPDATE, 0, s, u32(0))), streamError8,
        { rfc: 'RFC 9113 §6.9: a stream error PROTOCOL_ERROR' }),
    {
        name: 'h2-data-past-window', proto: 'h2', args: '-n 2 -c 1', deadline: 15, expect: { ok: 2 },
        does: '40 MB of DATA on one stream (2.5 x the 16 MiB stream window), without waiting for WINDOW_UPDATE',
        rfc: 'RFC 9113 §6.9.1: shb returns credit as it counts bytes (at half of each window), so a server that sends at '
            + 'line rate stays within the credit given; FLOW_CONTROL_ERROR is for DATA beyond it',
        onRequest: (x, n, s) => {
            x.headers(s, STATUS_200, false);
            const f = w.frame(FT.DATA, 0, s, Buffer.alloc(16384, 0x64));
            const chunk = Buffer.concat(Array(16).fill(f));
            x.flood(() => chunk, 40 * MB, () => x.frame(FT.DATA, ES, s, []));
        },
    },

    // --- SETTINGS values (RFC 9113 §6.5.2) ----------------------------------------
    every('h2-settings-initial-window-over', 'SETTINGS_INITIAL_WINDOW_SIZE 2^31',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, settings([[SET.INITIAL_WINDOW_SIZE, 0x80000000]]))), connError8,
        { rfc: 'RFC 9113 §6.5.2: above 2^31-1 is a FLOW_CONTROL_ERROR' }),
    every('h2-settings-enable-push-1', 'SETTINGS_ENABLE_PUSH 1 from the server',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, settings([[SET.ENABLE_PUSH, 1]]))), connError8,
        { rfc: 'RFC 9113 §6.5.2: a client MUST treat ENABLE_PUSH 1 as a PROTOCOL_ERROR' }),
    every('h2-settings-enable-push-2', 'SETTINGS_ENABLE_PUSH 2',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, settings([[SET.ENABLE_PUSH, 2]]))), connError8,
        { rfc: 'RFC 9113 §6.5.2: only 0 or 1: PROTOCOL_ERROR' }),
    every('h2-settings-max-frame-small', 'SETTINGS_MAX_FRAME_SIZE 16,383',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, settings([[SET.MAX_FRAME_SIZE, 16383]]))), connError8,
        { rfc: 'RFC 9113 §6.5.2: below 2^14 is a PROTOCOL_ERROR' }),
    every('h2-settings-max-frame-big', 'SETTINGS_MAX_FRAME_SIZE 2^24',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, settings([[SET.MAX_FRAME_SIZE, 1 << 24]]))), connError8,
        { rfc: 'RFC 9113 §6.5.2: above 2^24-1 is a PROTOCOL_ERROR' }),
    every('h2-settings-unknown-id', 'a SETTINGS frame with unknown identifiers (0, 7, 0xabcd)',
        thenOk((x) => x.frame(FT.SETTINGS, 0, 0, settings([[0, 1], [7, 99], [0xabcd, 0xffffffff]]))), ok8kept,
        { rfc: 'RFC 9113 §6.5.2: unknown settings are ignored' }),
    every('h2-no-settings-ack', 'never ACKs shb\'s SETTINGS', (x, n, s) => x.ok(s), ok8kept,
        { noSettingsAck: true, rfc: 'RFC 9113 §6.5.3: SETTINGS_TIMEOUT is a MAY; shb does not wait for the ACK' }),
    every('h2-no-server-settings', 'no SETTINGS preface: the answer comes straight away', (x, n, s) => x.ok(s), connError8,
        { settings: null, rfc: 'RFC 9113 §3.4: the server preface is a SETTINGS frame, first' }),
    {
        name: 'h2-mcs0-then-raised', proto: 'h2', args: '-n 8 -c 2 -p 4', expect: { ok: 8, jq: '.connectionsOpened == 2' },
        settings: [[SET.MAX_CONCURRENT_STREAMS, 0]],
        does: 'SETTINGS_MAX_CONCURRENT_STREAMS 0, raised to 100 after 300 ms',
        rfc: 'RFC 9113 §5.1.2: streams wait for the limit to rise',
        onOpen: (x) => x.later(300, () => x.frame(FT.SETTINGS, 0, 0, settings([[SET.MAX_CONCURRENT_STREAMS, 100]]))),
        onRequest: (x, n, s) => x.ok(s),
    },
    every('h2-max-frame-raised', 'SETTINGS_MAX_FRAME_SIZE 2^24-1, then a 16,385-byte DATA frame (still over shb\'s own limit)',
        (x, n, s) => {
            x.frame(FT.SETTINGS, 0, 0, settings([[SET.MAX_FRAME_SIZE, (1 << 24) - 1]]));
            x.headers(s, STATUS_200, false);
            x.frame(FT.DATA, ES, s, Buffer.alloc(16385, 0x61));
        }, connError8, { rfc: 'RFC 9113 §4.2: the limit that counts is the receiver\'s (shb advertises 16,384)' }),

    // --- GOAWAY (RFC 9113 §6.8) -----------------------------------------------------
    every('h2-goaway-0-no-answer', 'GOAWAY last-stream-id 0 NO_ERROR instead of an answer, then FIN',
        (x) => {
            x.frame(FT.GOAWAY, 0, 0, goaway(0, ERR.NO_ERROR));
            x.end();
        }, { errors: { refused: 8 } }, { rfc: 'RFC 9113 §6.8, §8.7: streams above last-stream-id were not processed: retried, 15 times' }),
    every('h2-goaway-after-answer', 'the answer, GOAWAY naming the stream, then FIN',
        (x, n, s) => {
            x.ok(s);
            x.frame(FT.GOAWAY, 0, 0, goaway(s, ERR.NO_ERROR));
            x.end();
        }, { ok: 8, jq: '.connectionsOpened == 8' }, { rfc: 'RFC 9113 §6.8: a graceful shutdown; the next request goes on a new connection' }),
    every('h2-goaway-before-answer', 'GOAWAY naming the stream, then the answer, then FIN',
        (x, n, s) => {
            x.frame(FT.GOAWAY, 0, 0, goaway(s, ERR.NO_ERROR));
            x.ok(s);
            x.end();
        }, { ok: 8, jq: '.connectionsOpened == 8' }, { rfc: 'RFC 9113 §6.8: streams up to last-stream-id still complete' }),
    {
        name: 'h2-goaway-rising', proto: 'h2', args: '-n 8 -c 1 -p 4', expect: { ok: 8 },
        does: 'on the first request: GOAWAY last-stream-id 1, then 2^31-1 (rising), and every stream answered',
        rfc: 'RFC 9113 §6.8: the id MUST NOT increase; shb keeps the smallest and retries the streams above it',
        onRequest: (x, n, s) => {
            if (n === 1) {
                x.frame(FT.GOAWAY, 0, 0, goaway(s, ERR.NO_ERROR));
                x.frame(FT.GOAWAY, 0, 0, goaway(0x7fffffff, ERR.NO_ERROR));
            }
            x.ok(s);
        },
    },
    {
        name: 'h2-goaway-even-id', proto: 'h2', args: '-n 8 -c 1 -p 4', expect: { ok: 8 },
        does: 'on the first request: GOAWAY with the even last-stream-id 2, then every stream answered',
        rfc: 'RFC 9113 §6.8: stream 1 is at or below it and completes; the others are retried',
        onRequest: (x, n, s) => {
            if (n === 1) x.frame(FT.GOAWAY, 0, 0, goaway(2, ERR.NO_ERROR));
            x.ok(s);
        },
    },
    every('h2-goaway-internal-error', 'GOAWAY last-stream-id = the stream, INTERNAL_ERROR, instead of the answer',
        (x, n, s) => x.frame(FT.GOAWAY, 0, 0, goaway(s, ERR.INTERNAL_ERROR, 'boom')), connError8,
        { rfc: 'RFC 9113 §6.8, §5.4.1: the connection ends with the stream possibly processed: not retried' }),
    every('h2-goaway-0-enhance-calm', 'GOAWAY last-stream-id 0 ENHANCE_YOUR_CALM instead of the answer',
        (x) => x.frame(FT.GOAWAY, 0, 0, goaway(0, ERR.ENHANCE_YOUR_CALM)), { errors: { refused: 8 } },
        { rfc: 'RFC 9113 §6.8: whatever the code, streams above last-stream-id were not processed (retried)' }),
    every('h2-goaway-then-close-mid-body', 'HEADERS, GOAWAY naming the stream, then FIN before the body',
        (x, n, s) => {
            x.headers(s, cat(STATUS_200, lit('content-length', '2')), false);
            x.frame(FT.GOAWAY, 0, 0, goaway(s, ERR.NO_ERROR));
            x.end();
        }, { errors: { closed: 8 } }, { rfc: 'RFC 9113 §6.8: a stream at or below last-stream-id may have been processed: an error, not a retry' }),

    // --- HPACK (RFC 7541): compression errors are connection errors (RFC 9113 §4.3) ---
    every('h2-hpack-int-overflow', 'an indexed field whose integer continues for 10 octets',
        thenOk((x, s) => x.headers(s, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], true)), connError8,
        { rfc: 'RFC 7541 §5.1: an integer beyond the implementation\'s limits is a decoding error' }),
    every('h2-hpack-literal-2g', 'a literal whose name length is 2^31, in a 20-byte block',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, [0x00], hpackInt(2 ** 31, 7, 0), 'x'.repeat(10)), true)), connError8,
        { rfc: 'RFC 7541 §5.2: the block ends inside the string: a decoding error' }),
    every('h2-hpack-index-0', 'indexed field 0', thenOk((x, s) => x.headers(s, cat(STATUS_200, idx(0)), true)), connError8,
        { rfc: 'RFC 7541 §6.1: index 0 is a decoding error' }),
    every('h2-hpack-index-beyond', 'indexed field 62 with an empty dynamic table',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, idx(62)), true)), connError8,
        { rfc: 'RFC 7541 §2.3.3: an index beyond both tables is a decoding error' }),
    every('h2-hpack-name-index-beyond', 'a literal whose name index is 100',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, hpackInt(100, 4, 0x00), hpackString('v')), true)), connError8,
        { rfc: 'RFC 7541 §2.3.3' }),
    every('h2-hpack-huffman-status-ok', ':status 200 Huffman-coded (well-formed)',
        (x, n, s) => respond(x, s, cat(huffStatus(HUFF_200), lit('content-length', '2'))), ok8kept,
        { rfc: 'RFC 7541 §5.2' }),
    every('h2-hpack-huffman-eos', ':status Huffman-coded "200" followed by EOS',
        thenOk((x, s) => x.headers(s, huffStatus([0x10, 0x01, 0xff, 0xff, 0xff, 0xff]), true)), connError8,
        { rfc: 'RFC 7541 §5.2: a string containing EOS is a decoding error' }),
    every('h2-hpack-huffman-long-padding', ':status Huffman-coded "200" with 9 bits of padding',
        thenOk((x, s) => x.headers(s, huffStatus([0x10, 0x01, 0xff]), true)), connError8,
        { rfc: 'RFC 7541 §5.2: padding longer than 7 bits is a decoding error' }),
    every('h2-hpack-huffman-zero-padding', ':status Huffman-coded "200" padded with a 0 bit',
        thenOk((x, s) => x.headers(s, huffStatus([0x10, 0x00]), true)), connError8,
        { rfc: 'RFC 7541 §5.2: padding not of the EOS prefix (all ones) is a decoding error' }),
    every('h2-hpack-huffman-value-padding', 'a Huffman-coded value of a field shb ignores (`x-foo`) padded with 0 bits',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, [0x00], hpackString('x-foo'), [0x81, 0x00]), true)), connError8,
        { rfc: 'RFC 7541 §5.2: bad padding is a decoding error in any string, needed or not' }),
    every('h2-hpack-huffman-value-eos', 'a Huffman-coded value of a field shb ignores (`x-foo`) holding EOS',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, [0x00], hpackString('x-foo'), [0x84, 0xff, 0xff, 0xff, 0xff]), true)),
        connError8, { rfc: 'RFC 7541 §5.2: EOS in a string is a decoding error' }),
    every('h2-hpack-size-update-over', 'a dynamic table size update to 4,097 at the start of the block',
        thenOk((x, s) => x.headers(s, cat(hpackInt(4097, 5, 0x20), OK_BLOCK), true)), connError8,
        { rfc: 'RFC 7541 §6.3: above the maximum (the protocol\'s 4,096: shb never allows more) is a decoding error' }),
    every('h2-hpack-size-update-4096', 'a size update to 4,096 (above the 0 shb advertised), then literals that index',
        (x, n, s) => respond(x, s, cat(hpackInt(4096, 5, 0x20), STATUS_200, [0x40], hpackString('x-indexed'),
            hpackString('v' + n), idx(62))), ok8kept,
        { rfc: 'RFC 9113 §4.3.1 calls lowering the table "not widely interoperable": shb decodes with up to 4,096 (h2.c)' }),
    every('h2-hpack-size-update-after-field', ':status 200, then a size update to 0',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, [0x20]), true)), connError8,
        { rfc: 'RFC 7541 §4.2: a size update comes at the start of a block' }),
    every('h2-hpack-truncated', 'a block that ends inside a literal\'s value',
        thenOk((x, s) => x.headers(s, cat(STATUS_200, [0x00, 0x01, 0x61, 0x05, 0x62]), true)), connError8,
        { rfc: 'RFC 7541 §3.2: a block must end on a representation boundary' }),
    every('h2-hpack-indexed-status', ':status from a dynamic entry the server inserted (`:status: 204`, then index 62)',
        (x, n, s) => x.headers(s, n === 1 ? cat([0x48, 0x03], '204') : idx(62), true), { ok: 8, status: { 204: 8 } },
        { rfc: 'RFC 7541 §6.2.1, §6.1: the table the server keeps (shb decodes with it although it advertised 0)' }),

    // --- CONTINUATION (RFC 9113 §6.10) -------------------------------------------
    {
        name: 'h2-continuation-48k', proto: 'h2', args: '-n 8 -c 2', expect: ok8kept,
        does: '48 KB of response headers in a HEADERS and 47 CONTINUATION frames of 1 KB each',
        rfc: 'RFC 9113 §6.10: legal; shb scans the block without buffering it',
        onRequest: (x, n, s) => {
            const fields = [OK_BLOCK];
            for (let i = 0; i < 48; i++) fields.push(lit(`x-big-${i}`, 'b'.repeat(1000)));
            const block = Buffer.concat(fields);
            const step = Math.ceil(block.length / 48);
            for (let off = 0, i = 0; off < block.length; off += step, i++) {
                const last = off + step >= block.length;
                x.frame(i === 0 ? FT.HEADERS : FT.CONTINUATION, last ? EH : 0, s, block.subarray(off, off + step));
            }
            x.frame(FT.DATA, ES, s, 'ok');
        },
    },
    {
        name: 'h2-continuation-endless', proto: 'h2', args: '-n 4 -c 2 --timeout 5s', deadline: 15,
        does: 'HEADERS without END_HEADERS, then 100 MB of CONTINUATION frames that never end the block',
        rfc: 'RFC 9113 §10.5.1: a field block over 1 MiB is refused (GOAWAY ENHANCE_YOUR_CALM), as HTTP/1.1 heads are',
        expect: { errors: { protocol: 4 }, jq: '.connectionsOpened == 4' },
        onRequest: (x, n, s) => {
            x.frame(FT.HEADERS, 0, s, STATUS_200);
            const f = w.frame(FT.CONTINUATION, 0, s, lit('x-endless', 'e'.repeat(16000)));
            x.flood(() => f, 100 * MB);
        },
    },
    {
        name: 'h2-endless-1xx', proto: 'h2', args: '-n 4 -c 2 --timeout 5s', deadline: 15,
        does: '100 MB of `100 Continue` interim HEADERS on the stream, never a final response',
        rfc: 'RFC 9110 §15.2 allows any number of 1xx; all of a response\'s field blocks together get 1 MiB (GOAWAY '
            + 'ENHANCE_YOUR_CALM, §10.5), as HTTP/1.1 heads do',
        expect: { errors: { protocol: 4 }, jq: '.connectionsOpened == 4' },
        onRequest: (x, n, s) => {
            const f = w.frame(FT.HEADERS, EH, s, cat(lit(':status', '100'), lit('x-interim', 'i'.repeat(16000))));
            x.flood(() => f, 100 * MB);
        },
    },
    every('h2-continuation-interleaved', 'HEADERS without END_HEADERS, a PING, then the CONTINUATION',
        (x, n, s) => {
            x.frame(FT.HEADERS, 0, s, STATUS_200);
            x.frame(FT.PING, 0, 0, Buffer.alloc(8));
            x.frame(FT.CONTINUATION, EH, s, lit('content-length', '2'));
            x.frame(FT.DATA, ES, s, 'ok');
        }, connError8, { rfc: 'RFC 9113 §6.10: any other frame inside a field block is a PROTOCOL_ERROR' }),
    every('h2-continuation-wrong-stream', 'HEADERS without END_HEADERS, then CONTINUATION on another stream',
        (x, n, s) => {
            x.frame(FT.HEADERS, 0, s, STATUS_200);
            x.frame(FT.CONTINUATION, EH, s + 2, lit('content-length', '2'));
            x.frame(FT.DATA, ES, s, 'ok');
        }, connError8, { rfc: 'RFC 9113 §6.10: PROTOCOL_ERROR' }),
    every('h2-continuation-alone', 'a complete response, then a CONTINUATION with no open field block',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.CONTINUATION, EH, s, lit('x-late', '1'));
            x.frame(FT.DATA, ES, s, 'ok');
        }, connError8, { rfc: 'RFC 9113 §6.10: CONTINUATION must follow HEADERS without END_HEADERS' }),

    // --- push --------------------------------------------------------------------
    every('h2-push-promise', 'PUSH_PROMISE for stream 2 on the request\'s stream',
        thenOk((x, s) => x.frame(FT.PUSH_PROMISE, EH, s, cat(u32(2), idx(2), idx(7), idx(4), lit(':authority', 'x')))),
        connError8, { rfc: 'RFC 9113 §8.4, §6.6: shb sent SETTINGS_ENABLE_PUSH 0: PROTOCOL_ERROR' }),

    // --- malformed responses (RFC 9113 §8.1.1: stream errors) --------------------------
    every('h2-status-none', 'a response with no :status', (x, n, s) => respond(x, s, lit('content-length', '2')), streamError8,
        { rfc: 'RFC 9113 §8.3.2' }),
    every('h2-status-twice', ':status 200 twice', (x, n, s) => respond(x, s, cat(STATUS_200, STATUS_200)), streamError8,
        { rfc: 'RFC 9113 §8.3' }),
    every('h2-status-letters', ':status 2x0', (x, n, s) => respond(x, s, lit(':status', '2x0')), streamError8,
        { rfc: 'RFC 9113 §8.3.2, RFC 9110 §15: three digits' }),
    every('h2-status-4-digits', ':status 2000', (x, n, s) => respond(x, s, lit(':status', '2000')), streamError8,
        { rfc: 'RFC 9110 §15' }),
    every('h2-status-101', ':status 101', (x, n, s) => respond(x, s, lit(':status', '101')), streamError8,
        { rfc: 'RFC 9113 §8.6: 101 is not allowed in HTTP/2' }),
    every('h2-status-1xx-then-200', '103 Early Hints and 100, then the 200',
        (x, n, s) => {
            x.headers(s, cat(lit(':status', '103'), lit('link', '</s.css>; rel=preload')), false);
            x.headers(s, lit(':status', '100'), false);
            x.ok(s);
        }, ok8kept, { rfc: 'RFC 9113 §8.1: interim responses precede the final one' }),
    every('h2-status-1xx-end-stream', '100 with END_STREAM', (x, n, s) => x.headers(s, lit(':status', '100'), true), streamError8,
        { rfc: 'RFC 9113 §8.1: an informational HEADERS with END_STREAM is malformed' }),
    every('h2-pseudo-after-regular', 'a regular field before :status',
        (x, n, s) => respond(x, s, cat(lit('content-length', '2'), STATUS_200)), streamError8,
        { rfc: 'RFC 9113 §8.3: pseudo-header fields come first; otherwise malformed' }),
    every('h2-pseudo-unknown', 'an unknown pseudo-header `:foo`',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit(':foo', 'bar'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.3: undefined pseudo-header fields make it malformed' }),
    every('h2-pseudo-request-in-response', 'a request pseudo-header (`:method GET`, static index 2) in the response',
        (x, n, s) => respond(x, s, cat(STATUS_200, idx(2), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.3: request pseudo-headers MUST NOT appear in responses' }),
    every('h2-uppercase-name', 'a field named `X-Upper`',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('X-Upper', '1'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1: an uppercase field name is malformed' }),
    every('h2-value-nul', 'a field value with a NUL (`x-foo: a\\0b`)',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('x-foo', 'a\0b'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1: NUL, LF and CR in a value are malformed' }),
    every('h2-value-cr', 'a field value with a CR (`x-foo: a\\rb`)',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('x-foo', 'a\rb'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1' }),
    every('h2-value-lf', 'a field value with an LF (`x-foo: a\\nb`)',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('x-foo', 'a\nb'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1' }),
    every('h2-value-leading-space', 'a field value that starts with a space (`x-foo: " a"`)',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('x-foo', ' a'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1: a value must not start or end with SP or HTAB' }),
    every('h2-value-trailing-tab', 'a field value that ends with a tab (`x-foo: "a\\t"`)',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('x-foo', 'a\t'), lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1' }),
    every('h2-value-huffman-cr', 'a Huffman-coded field value holding a CR (`x-foo: a\\rb`, the 30-bit code)',
        (x, n, s) => respond(x, s, cat(STATUS_200, [0x00], hpackString('x-foo'), [0x86, 0x1f, 0xff, 0xff, 0xff, 0xb1, 0xff],
            lit('content-length', '2'))), streamError8,
        { rfc: 'RFC 9113 §8.2.1: the decoded value counts, whatever the coding' }),
    every('h2-value-cr-in-continuation', 'a value `abc\\rdef` cut before the CR: HEADERS ends with `abc`, the CONTINUATION starts with the CR',
        (x, n, s) => {
            const block = cat(STATUS_200, lit('content-length', '2'), lit('x-foo', 'abc\rdef'));
            const cut = block.length - 5;
            x.frame(FT.HEADERS, 0, s, block.subarray(0, cut));
            x.frame(FT.CONTINUATION, EH, s, block.subarray(cut));
            x.frame(FT.DATA, ES, s, 'ok');
        }, streamError8, { rfc: 'RFC 9113 §8.2.1: the value is judged whole, wherever the block is split' }),
    every('h2-value-inner-ok', 'values with inner spaces, a tab, commas, quotes, a date and obs-text 0x80-0xff',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('x-foo', Buffer.from('a b,\t"c"; d \x80\xff e', 'latin1')),
            lit('date', 'Wed, 02 Dec 2026 06:06:12 GMT'), lit('content-length', '2'))), ok8kept,
        { rfc: 'RFC 9113 §8.2.1 forbids only NUL, LF, CR anywhere and SP or HTAB at the ends' }),
    every('h2-trailers', 'HEADERS, DATA "ok", then trailers with END_STREAM',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.DATA, 0, s, 'ok');
            x.headers(s, lit('x-trailer', 'yes'), true);
        }, ok8kept, { rfc: 'RFC 9113 §8.1: trailers are legal' }),
    every('h2-trailers-pseudo', 'trailers carrying :status',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.DATA, 0, s, 'ok');
            x.headers(s, STATUS_200, true);
        }, streamError8, { rfc: 'RFC 9113 §8.1: pseudo-headers in trailers are malformed' }),
    every('h2-headers-after-final-no-es', 'a second HEADERS without END_STREAM after the final response',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.headers(s, lit('x-more', '1'), false);
            x.frame(FT.DATA, ES, s, 'ok');
        }, streamError8, { rfc: 'RFC 9113 §8.1: HEADERS without END_STREAM after a final status is malformed' }),
    every('h2-content-length-longer', '`content-length: 10` and 2 bytes of DATA',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('content-length', '10'))), streamError8,
        { rfc: 'RFC 9113 §8.1.1: content-length must equal the DATA payload' }),
    every('h2-content-length-shorter', '`content-length: 1` and 2 bytes of DATA',
        (x, n, s) => respond(x, s, cat(STATUS_200, lit('content-length', '1'))), streamError8,
        { rfc: 'RFC 9113 §8.1.1' }),
    every('h2-content-length-204', '204 with `content-length: 5` and no DATA',
        (x, n, s) => x.headers(s, cat(lit(':status', '204'), lit('content-length', '5')), true),
        { ok: 8, status: { 204: 8 }, jq: '.connectionsOpened == 2' }, { rfc: 'RFC 9113 §8.1.1: a response with no content MAY have content-length' }),
    every('h2-content-length-padded', '`content-length: 2`, DATA "ok" with 100 bytes of padding',
        (x, n, s) => {
            x.headers(s, OK_BLOCK, false);
            x.frame(FT.DATA, FL.PADDED | ES, s, cat([100], 'ok', Buffer.alloc(100)));
        }, ok8kept, { rfc: 'RFC 9113 §6.1, §8.1.1: padding is not content' }),

    // --- the connection ends -------------------------------------------------------
    every('h2-close-mid-body', 'HEADERS and 2 of 4 body bytes, then FIN',
        (x, n, s) => {
            x.headers(s, cat(STATUS_200, lit('content-length', '4')), false);
            x.frame(FT.DATA, 0, s, 'ok');
            x.end();
        }, { errors: { closed: 8 } }, { rfc: 'RFC 9113 §8.1: no END_STREAM, an incomplete response' }),
    every('h2-reset-mid-body', 'HEADERS and 2 of 4 body bytes, then a TCP reset',
        (x, n, s) => {
            x.headers(s, cat(STATUS_200, lit('content-length', '4')), false);
            x.frame(FT.DATA, 0, s, 'ok');
            x.reset();
        }, { errors: { reset: 8 } }),
];
