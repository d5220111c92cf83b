// test/servers/hostile_server.js — one scriptable misbehaving server: HTTP/1.1 and
// HTTP/2 (its own frame layer, so it can break the protocol in ways node's
// http2 module refuses to), over TCP or TLS 1.3 (ALPN http/1.1 or h2), for
// test/e2e/e2e_hostile.sh.
//
//   node test/servers/hostile_server.js PORT LOG SCENARIO [ARG] [--tls CERT KEY]
//
// Listens on 127.0.0.1:PORT, prints "listening" on stdout once ready, and
// appends one JSON line per event to LOG (appendFileSync: a line is on disk
// before the server does anything that follows from it). Every line has
// "event" and "connId" (connections numbered from 1 in accept order):
//   {"event":"open", connId, "t" (ms since start)}
//   {"event":"alpn", connId, "alpn"}                 TLS: what was negotiated
//   {"event":"request", connId, "n" (1-based on this connection),
//    "stream" (HTTP/2), "action": "answer"|"ignore"|"refuse"|"inject"|"close-mid-body"|...}
//   {"event":"frame", connId, "frame": "HEADERS", "stream", "endStream"}
//   {"event":"frame", connId, "frame": "RST_STREAM", "stream", "code"}
//   {"event":"frame", connId, "frame": "GOAWAY", "lastStream", "code"}
//   {"event":"frame", connId, "frame": "SETTINGS", "ack", "settings": {id: value}}
//   {"event":"inject", connId, "bytes"}               TLS: raw bytes written under the record layer
//   {"event":"error", connId, "where", "message"}     a socket or TLS error (e.g. the client's alert)
//   {"event":"close", connId, "proto": "h1"|"h2", "tls", "requests" (complete
//    requests read while the server still meant to answer), "answered",
//    "bytesIn" (TCP bytes received), "ignoredBytes" (bytes received after the
//    server closed its side), "how": "peer"|"end"|"reset"}
//
// Scenarios. HTTP/1.1 (TCP, or TLS with ALPN http/1.1):
//   ok                    200 "ok" (Content-Length: 2), keep-alive
//   silent                reads requests, never answers, never closes
//   bare-cr               answers "HTTP/1.1 200 OK\rContent-Length: 2\r\r\nok", then waits
//   close-after-response  a correct response, then FIN (no Connection: close)
//   close-mid-body        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345", then FIN
//   reset-mid-body        the same bytes, then a TCP reset
//   stall-every N         answers, except every Nth request on a connection (never answered)
// HTTP/2 (h2c prior knowledge over TCP, or TLS with ALPN h2):
//   h2-ok                 HEADERS :status 200, content-length 2, DATA "ok" END_STREAM
//   h2-mcs0-refuse        SETTINGS MAX_CONCURRENT_STREAMS 0 (again on every HEADERS);
//                         every stream gets RST_STREAM REFUSED_STREAM
//   h2-mcs0-answer        the same SETTINGS, but every stream is answered (200)
//   h2-mcs0-ignore        SETTINGS MAX_CONCURRENT_STREAMS 0; streams neither answered nor refused
//   h2-no-status          each stream: HEADERS (END_STREAM) with a regular field and no :status
//   h2-two-status         ... with :status 200 twice
//   h2-bad-status         ... with :status 2x0
//   h2-101                ... with :status 101
//   h2-data-on-0          answers each stream with a DATA frame on stream 0 (a connection
//                         error, RFC 9113 §6.1: the client must GOAWAY PROTOCOL_ERROR)
//   h2-stall-every N      answers, except every Nth stream on a connection (ignored)
//   h2-silent             SETTINGS and the ACK of the client's, nothing else
// Either, with --tls (the protocol follows ALPN):
//   tls-record-overflow   answers the first request on a connection, then
//                         instead of the second response writes a raw record
//                         header 17 03 03 48 01 (18433 bytes announced, over
//                         2^14+256) and 64 junk bytes
//   tls-bad-mac           the same, with a well-formed application_data record
//                         of 40 random bytes (it cannot decrypt)
// Over TLS, ok/silent/stall-every and their h2- twins are interchangeable:
// the ALPN the client asked for picks the protocol.
//
// Stops on SIGTERM/SIGINT. No npm dependencies; runs on node 18.
'use strict';

const net = require('net');
const tls = require('tls');
const fs = require('fs');
const crypto = require('crypto');
const { Duplex } = require('stream');
const path = require('path');
const wire = require('../hostile/wire.js');

function usage(msg) {
    process.stderr.write(`${msg ? msg + '\n' : ''}usage: node hostile_server.js PORT LOG SCENARIO [N] [--tls CERT KEY]\n`);
    process.exit(2);
}

const argv = process.argv.slice(2);
let tlsOpts = null;
const ti = argv.indexOf('--tls');
if (ti >= 0) {
    if (ti + 2 >= argv.length) usage('--tls needs CERT and KEY');
    tlsOpts = { cert: fs.readFileSync(argv[ti + 1]), key: fs.readFileSync(argv[ti + 2]) };
    argv.splice(ti, 3);
}
const port = Number(argv[0]);
const logfile = argv[1];
const scenario = argv[2];
const TABLE = scenario === 'table';
const control = TABLE ? argv[3] : null;
const param = TABLE || argv[3] === undefined ? null : Number(argv[3]);
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile || !scenario) usage();
if (TABLE && !control) usage('table needs CONTROL (the file naming the current case)');
// table: every case of test/hostile/cases_*.js, by name.
const CASES = TABLE ? require('../hostile/cases.js').byName() : null;

const H1 = ['ok', 'silent', 'bare-cr', 'close-after-response', 'close-mid-body', 'reset-mid-body', 'stall-every'];
const H2 = ['h2-ok', 'h2-mcs0-refuse', 'h2-mcs0-answer', 'h2-mcs0-ignore', 'h2-no-status', 'h2-two-status',
    'h2-bad-status', 'h2-101', 'h2-data-on-0', 'h2-stall-every', 'h2-silent'];
const TLSONLY = ['tls-record-overflow', 'tls-bad-mac'];
if (!TABLE && ![...H1, ...H2, ...TLSONLY].includes(scenario)) usage(`unknown scenario ${scenario}`);
if (TLSONLY.includes(scenario) && !tlsOpts) usage(`${scenario} needs --tls`);
if (/stall-every$/.test(scenario) && !(Number.isInteger(param) && param >= 1)) usage(`${scenario} needs N >= 1`);
// The scenario without its protocol: ok, silent and stall-every exist for both.
const base = scenario.replace(/^h2-(ok|silent|stall-every)$/, '$1');

const t0 = Date.now();
function log(obj) {
    try {
        fs.appendFileSync(logfile, JSON.stringify(obj) + '\n');
    } catch (e) {
        process.stderr.write(`log: ${e.message}\n`);
    }
}

// ---------------------------------------------------------------- a connection
// conn: what both protocol engines see. write() goes through TLS when there
// is TLS; inject() writes raw bytes to the TCP socket underneath.
class Conn {
    constructor(id, raw) {
        this.id = id;
        this.raw = raw;
        this.io = raw; // the plaintext stream (raw, or the TLS socket over it)
        this.tls = false;
        this.alpn = null;
        this.proto = null;
        this.requests = 0;
        this.answered = 0;
        this.bytesIn = 0;
        this.ignoredBytes = 0;
        this.how = 'peer';
        this.closing = false; // we ended or reset our side: read no more requests
        this.dead = false;
        this.kase = null; // table: the case this connection plays
        this.x = null;    // table: what the case's functions act through (CaseIO)
        this.timers = new Set();
        this.captured = []; // HOSTILE_SEEDS: the first SEED_MAX bytes this connection's case wrote
        this.capturedBytes = 0;
    }
    capture(buf) {
        if (!SEEDS || !this.kase || this.capturedBytes >= SEED_MAX) return;
        const b = buf.subarray(0, SEED_MAX - this.capturedBytes);
        this.captured.push(Buffer.from(b));
        this.capturedBytes += b.length;
    }
    write(buf) {
        if (this.dead || this.closing) return;
        this.capture(buf);
        try {
            this.io.write(buf);
        } catch (e) {
            log({ event: 'error', connId: this.id, where: 'write', message: e.message });
        }
    }
    inject(buf) {
        if (this.dead) return;
        log({ event: 'inject', connId: this.id, bytes: buf.length });
        this.raw.write(buf);
    }
    end() {
        if (this.closing || this.dead) return;
        this.closing = true;
        this.how = 'end';
        this.io.end();
    }
    reset() {
        if (this.dead) return;
        this.closing = true;
        this.how = 'reset';
        if (typeof this.raw.resetAndDestroy === 'function') this.raw.resetAndDestroy();
        else this.raw.destroy();
    }
    onClose() {
        if (this.dead) return;
        this.dead = true;
        for (const t of this.timers) clearTimeout(t);
        writeSeed(this);
        log({
            event: 'close', connId: this.id, proto: this.proto, tls: this.tls, alpn: this.alpn,
            requests: this.requests, answered: this.answered, bytesIn: this.bytesIn,
            ignoredBytes: this.ignoredBytes, how: this.how, case: this.kase ? this.kase.name : undefined,
        });
    }
}

// What a TLS scenario does with the nth request (1-based): the first is
// answered, the second is replaced by the bad record, later ones (there should
// be none: the client gives up on the connection) are ignored.
function tlsInjection(c, n) {
    if (n === 1) return 'answer';
    if (n === 2) {
        const junk = scenario === 'tls-record-overflow'
            ? Buffer.concat([Buffer.from([0x17, 0x03, 0x03, 0x48, 0x01]), crypto.randomBytes(64)])
            : Buffer.concat([Buffer.from([0x17, 0x03, 0x03, 0x00, 0x28]), crypto.randomBytes(40)]);
        c.inject(junk);
        return 'inject';
    }
    return 'ignore';
}

// ---------------------------------------------------------------- HTTP/1.1
const H1_OK = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
const H1_BARE_CR = Buffer.from('HTTP/1.1 200 OK\rContent-Length: 2\r\r\nok');
const H1_CUT = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345');
const H1_MAX_HEAD = 1 << 20;

function h1Start(c) {
    c.proto = 'h1';
    if (!c.kase && !['ok', 'silent', 'bare-cr', 'close-after-response', 'close-mid-body', 'reset-mid-body',
        'stall-every', ...TLSONLY].includes(base)) {
        log({ event: 'error', connId: c.id, where: 'h1', message: `scenario ${scenario} is not HTTP/1.1` });
        c.reset();
        return;
    }
    let buf = Buffer.alloc(0);
    if (c.kase && c.kase.onOpen) c.kase.onOpen(c.x);
    c.io.on('data', (d) => {
        if (c.closing) {
            c.ignoredBytes += d.length;
            return;
        }
        buf = buf.length ? Buffer.concat([buf, d]) : d;
        for (;;) {
            if (c.closing) {
                c.ignoredBytes += buf.length;
                buf = Buffer.alloc(0);
                return;
            }
            const end = buf.indexOf('\r\n\r\n');
            if (end < 0) {
                if (buf.length > H1_MAX_HEAD) {
                    log({ event: 'error', connId: c.id, where: 'h1', message: 'request head too large' });
                    c.reset();
                }
                return;
            }
            const head = buf.subarray(0, end).toString('latin1');
            const m = /\r\ncontent-length:[ \t]*([0-9]+)/i.exec(head);
            const need = end + 4 + (m ? Number(m[1]) : 0);
            if (buf.length < need) return;
            buf = buf.subarray(need);
            c.requests += 1;
            h1Request(c, c.requests);
        }
    });
}

function h1Request(c, n) {
    if (c.kase) {
        log({ event: 'request', connId: c.id, n, action: 'case' });
        c.kase.onRequest(c.x, n);
        return;
    }
    let action;
    switch (base) {
    case 'ok':
        action = 'answer';
        break;
    case 'silent':
        action = 'ignore';
        break;
    case 'bare-cr':
        c.write(H1_BARE_CR);
        action = 'bare-cr';
        break;
    case 'close-after-response':
        action = 'answer-close';
        break;
    case 'close-mid-body':
        c.write(H1_CUT);
        c.end();
        action = 'close-mid-body';
        break;
    case 'reset-mid-body':
        // The bytes reach the client first; then the reset.
        c.raw.setNoDelay(true);
        c.io.write(H1_CUT, () => setTimeout(() => c.reset(), 30));
        c.closing = true;
        action = 'reset-mid-body';
        break;
    case 'stall-every':
        action = n % param === 0 ? 'ignore' : 'answer';
        break;
    default:
        action = tlsInjection(c, n);
        break;
    }
    log({ event: 'request', connId: c.id, n, action });
    if (action === 'answer' || action === 'answer-close') {
        c.write(H1_OK);
        c.answered += 1;
    }
    if (action === 'answer-close') c.end();
}

// ---------------------------------------------------------------- HTTP/2
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const { FT, frame, lit: hpackLiteral, STATUS_200: HP_STATUS_200, settings: settingsPayload } = wire;
const FL_END_STREAM = 0x1, FL_ACK = 0x1, FL_END_HEADERS = 0x4;
const H2_MAX_FRAME_IN = 1 << 20; // what we accept from the client before calling it broken

const MCS0 = /^h2-mcs0-/.test(scenario);
const SERVER_SETTINGS = frame(FT.SETTINGS, 0, 0, settingsPayload(MCS0 ? [[0x3, 0]] : [[0x3, 100]]));

function h2Start(c) {
    c.proto = 'h2';
    if (!c.kase && !H2.includes(scenario) && !['ok', 'silent', 'stall-every', ...TLSONLY].includes(base)) {
        log({ event: 'error', connId: c.id, where: 'h2', message: `scenario ${scenario} is not HTTP/2` });
        c.reset();
        return;
    }
    const st = { buf: Buffer.alloc(0), preface: false, headersSeen: 0, block: null, streams: new Map() };
    if (!c.kase) c.write(SERVER_SETTINGS);
    else if (c.kase.settings !== null) c.write(frame(FT.SETTINGS, 0, 0, settingsPayload(c.kase.settings || [[0x3, 100]])));
    if (c.kase && c.kase.onOpen) c.kase.onOpen(c.x);
    c.io.on('data', (d) => {
        if (c.closing) {
            c.ignoredBytes += d.length;
            return;
        }
        st.buf = st.buf.length ? Buffer.concat([st.buf, d]) : d;
        try {
            h2Parse(c, st);
        } catch (e) {
            log({ event: 'error', connId: c.id, where: 'h2', message: e.stack || e.message });
            c.reset();
        }
    });
}

function h2Parse(c, st) {
    if (!st.preface) {
        if (st.buf.length < PREFACE.length) {
            if (!PREFACE.subarray(0, st.buf.length).equals(st.buf)) return h2Broken(c, 'bad preface');
            return;
        }
        if (!st.buf.subarray(0, PREFACE.length).equals(PREFACE)) return h2Broken(c, 'bad preface');
        st.preface = true;
        st.buf = st.buf.subarray(PREFACE.length);
    }
    while (st.buf.length >= 9 && !c.closing && !c.dead) {
        const len = st.buf.readUIntBE(0, 3);
        if (len > H2_MAX_FRAME_IN) return h2Broken(c, `frame of ${len} bytes`);
        if (st.buf.length < 9 + len) return;
        const type = st.buf[3], flags = st.buf[4], sid = st.buf.readUInt32BE(5) & 0x7fffffff;
        const payload = st.buf.subarray(9, 9 + len);
        st.buf = st.buf.subarray(9 + len);
        h2Frame(c, st, type, flags, sid, payload);
    }
}

function h2Broken(c, why) {
    log({ event: 'error', connId: c.id, where: 'h2', message: why });
    c.write(frame(FT.GOAWAY, 0, 0, Buffer.from([0, 0, 0, 0, 0, 0, 0, 1])));
    c.end();
}

function h2Frame(c, st, type, flags, sid, payload) {
    switch (type) {
    case FT.SETTINGS: {
        const settings = {};
        for (let i = 0; i + 6 <= payload.length; i += 6) settings[payload.readUInt16BE(i)] = payload.readUInt32BE(i + 2);
        const ack = (flags & FL_ACK) !== 0;
        log({ event: 'frame', connId: c.id, frame: 'SETTINGS', ack, settings });
        if (!ack && !(c.kase && c.kase.noSettingsAck)) c.write(frame(FT.SETTINGS, FL_ACK, 0));
        return;
    }
    case FT.PING:
        if (!(flags & FL_ACK) && payload.length === 8) c.write(frame(FT.PING, FL_ACK, 0, payload));
        return;
    case FT.RST_STREAM:
        log({ event: 'frame', connId: c.id, frame: 'RST_STREAM', stream: sid,
            code: payload.length >= 4 ? payload.readUInt32BE(0) : null });
        return;
    case FT.GOAWAY:
        log({ event: 'frame', connId: c.id, frame: 'GOAWAY',
            lastStream: payload.length >= 4 ? payload.readUInt32BE(0) & 0x7fffffff : null,
            code: payload.length >= 8 ? payload.readUInt32BE(4) : null });
        return;
    case FT.HEADERS: {
        const endStream = (flags & FL_END_STREAM) !== 0;
        log({ event: 'frame', connId: c.id, frame: 'HEADERS', stream: sid, endStream });
        st.headersSeen += 1;
        const s = { id: sid, n: st.headersSeen, ended: endStream, action: null };
        st.streams.set(sid, s);
        if (flags & FL_END_HEADERS) h2Headers(c, st, s);
        else st.block = s;
        return;
    }
    case FT.CONTINUATION:
        if (st.block && st.block.id === sid && (flags & FL_END_HEADERS)) {
            const s = st.block;
            st.block = null;
            h2Headers(c, st, s);
        }
        return;
    case FT.DATA: {
        // Give the credit back at once: bodies never stall on our windows.
        let n = payload.length;
        if (n > 0) {
            const inc = Buffer.alloc(4);
            inc.writeUInt32BE(n);
            c.write(frame(FT.WINDOW_UPDATE, 0, 0, inc));
            c.write(frame(FT.WINDOW_UPDATE, 0, sid, inc));
        }
        const s = st.streams.get(sid);
        if (s && (flags & FL_END_STREAM) && !s.ended) {
            s.ended = true;
            h2Complete(c, st, s);
        }
        return;
    }
    default:
        return; // PRIORITY, WINDOW_UPDATE, PUSH_PROMISE (never from a client), unknown types
    }
}

// A header block ended: what the scenario does with this stream.
function h2Headers(c, st, s) {
    let action;
    switch (c.kase ? 'table' : scenario) {
    case 'table':
        action = 'case';
        break;
    case 'h2-mcs0-refuse':
        c.write(SERVER_SETTINGS);
        action = 'refuse';
        break;
    case 'h2-mcs0-answer':
        c.write(SERVER_SETTINGS);
        action = 'answer';
        break;
    case 'h2-mcs0-ignore':
    case 'h2-silent':
    case 'silent':
        action = 'ignore';
        break;
    case 'h2-stall-every':
    case 'stall-every':
        action = s.n % param === 0 ? 'ignore' : 'answer';
        break;
    case 'h2-no-status':
    case 'h2-two-status':
    case 'h2-bad-status':
    case 'h2-101':
    case 'h2-data-on-0':
        action = scenario.slice(3);
        break;
    case 'tls-record-overflow':
    case 'tls-bad-mac':
        action = s.n === 1 ? 'answer' : s.n === 2 ? 'inject' : 'ignore';
        break;
    default:
        action = 'answer';
        break;
    }
    s.action = action;
    if (action === 'refuse') {
        const code = Buffer.alloc(4);
        code.writeUInt32BE(0x7);
        c.write(frame(FT.RST_STREAM, 0, s.id, code));
    }
    log({ event: 'request', connId: c.id, n: s.n, stream: s.id, action });
    if (s.ended) h2Complete(c, st, s);
}

// The request is complete (END_STREAM): answer it if the scenario says so.
function h2Complete(c, st, s) {
    c.requests += 1;
    const id = s.id;
    switch (s.action) {
    case 'answer':
        c.write(frame(FT.HEADERS, FL_END_HEADERS, id, Buffer.concat([HP_STATUS_200, hpackLiteral('content-length', '2')])));
        c.write(frame(FT.DATA, FL_END_STREAM, id, Buffer.from('ok')));
        c.answered += 1;
        break;
    case 'no-status':
        c.write(frame(FT.HEADERS, FL_END_HEADERS | FL_END_STREAM, id, hpackLiteral('x-hostile', 'no-status')));
        break;
    case 'two-status':
        c.write(frame(FT.HEADERS, FL_END_HEADERS | FL_END_STREAM, id, Buffer.concat([HP_STATUS_200, HP_STATUS_200])));
        break;
    case 'bad-status':
        c.write(frame(FT.HEADERS, FL_END_HEADERS | FL_END_STREAM, id, hpackLiteral(':status', '2x0')));
        break;
    case '101':
        c.write(frame(FT.HEADERS, FL_END_HEADERS | FL_END_STREAM, id, hpackLiteral(':status', '101')));
        break;
    case 'data-on-0':
        c.write(frame(FT.DATA, 0, 0, Buffer.from('no')));
        break;
    case 'inject':
        tlsInjection(c, 2);
        break;
    case 'case':
        c.kase.onRequest(c.x, s.n, id);
        break;
    default:
        break; // ignore, refuse
    }
    st.streams.delete(id);
}

// ---------------------------------------------------------------- accepting
let nextConnId = 0;
const conns = new Set();

function startProto(c, h2) {
    if (h2) h2Start(c);
    else h1Start(c);
}

function onRaw(raw) {
    nextConnId += 1;
    const c = new Conn(nextConnId, raw);
    conns.add(c);
    raw.setNoDelay(true);
    log({ event: 'open', connId: c.id, t: Date.now() - t0 });
    raw.on('data', (d) => { c.bytesIn += d.length; });
    raw.on('error', (e) => log({ event: 'error', connId: c.id, where: 'tcp', message: e.code || e.message }));
    raw.on('close', () => {
        conns.delete(c);
        c.onClose();
    });
    if (TABLE) {
        const name = readControl();
        c.kase = CASES.get(name) || null;
        log({ event: 'case', connId: c.id, case: name, known: c.kase !== null });
        if (!c.kase) {
            c.reset();
            return;
        }
        c.x = new CaseIO(c);
        if (c.kase.tls && !tlsOpts) {
            log({ event: 'error', connId: c.id, where: 'table', message: `${name} needs --tls` });
            c.reset();
            return;
        }
        if (c.kase.raw) {
            // No protocol engine: the case reads and writes the TCP bytes.
            c.proto = 'raw';
            raw.on('data', (d) => { if (!c.closing && c.kase.onData) c.kase.onData(c.x, d); });
            if (c.kase.onOpen) c.kase.onOpen(c.x);
            return;
        }
        if (!c.kase.tls) {
            startProto(c, c.kase.proto === 'h2');
            return;
        }
    } else if (!tlsOpts) {
        startProto(c, /^h2-/.test(scenario));
        return;
    }
    // TLS over our own Duplex, so raw bytes can be slipped in under the
    // record layer: what TLS writes goes to the TCP socket in order, and what
    // the TCP socket reads is fed to TLS.
    const duplex = new Duplex({
        read() {},
        write(chunk, enc, cb) {
            if (!raw.destroyed) raw.write(chunk);
            cb();
        },
        final(cb) {
            if (!raw.destroyed) raw.end();
            cb();
        },
        destroy(err, cb) {
            cb(err);
        },
    });
    raw.on('data', (d) => duplex.push(d));
    raw.on('end', () => duplex.push(null));
    raw.on('close', () => duplex.destroy());
    const ts = new tls.TLSSocket(duplex, {
        isServer: true,
        key: tlsOpts.key,
        cert: tlsOpts.cert,
        minVersion: 'TLSv1.3',
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(c.kase && c.kase.tlsOptions ? c.kase.tlsOptions(tlsOpts) : {}),
    });
    c.tls = true;
    c.io = ts;
    ts.on('error', (e) => log({ event: 'error', connId: c.id, where: 'tls', message: e.code || e.message }));
    ts.on('close', () => { if (!raw.destroyed) raw.destroy(); });
    ts.on('secure', () => {
        c.alpn = ts.alpnProtocol || null;
        log({ event: 'alpn', connId: c.id, alpn: c.alpn });
        startProto(c, c.alpn === 'h2');
    });
}

// ---------------------------------------------------------------- table cases
// HOSTILE_SEEDS=DIR: the bytes each case's first connection was sent (under
// TLS: the plaintext) become a seed for the fuzz target that reads them,
// DIR/<target>/hostile-<case>, with that target's control bytes in front
// (test/fuzz/fuzz_*.c: [flags] [split mode 0] [split seed, 2 bytes], and
// fuzz_h2's body-length byte). test/fuzz/hostile_seeds.sh copies them into
// test/fuzz/corpus/.
const SEEDS = process.env.HOSTILE_SEEDS || null;
const SEED_MAX = 16384;
function writeSeed(c) {
    if (!SEEDS || !c.kase || c.capturedBytes === 0) return;
    const k = c.kase;
    let target, head;
    if (k.raw) {
        target = 'fuzz_tls13_client';
        head = [0, 0, 0, 0];
    } else if (c.proto === 'h2') {
        target = 'fuzz_h2';
        head = [0, 0, 0, 0, 0];
    } else {
        target = 'fuzz_h1';
        head = [/(^|\s)-m\s+HEAD(\s|$)/.test(k.args) ? 0xff : 0, 0, 0, 0];
    }
    const file = path.join(SEEDS, target, `hostile-${k.name}`);
    try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, Buffer.concat([Buffer.from(head), ...c.captured]), { flag: 'wx' });
    } catch (e) {
        if (e.code !== 'EEXIST') process.stderr.write(`seed: ${e.message}\n`);
    }
}

function readControl() {
    try {
        return fs.readFileSync(control, 'utf8').trim();
    } catch (e) {
        return '';
    }
}

// What a case's functions act through: writes that respect back-pressure,
// timers that die with the connection, and the frame and HPACK helpers.
class CaseIO {
    constructor(c) {
        this.c = c;
        this.id = c.id;
        this.state = {}; // the case's own, per connection
        this.wire = wire;
    }
    get dead() { return this.c.dead || this.c.closing; }
    // The server's certificate and key (PEM; null without --tls), for raw
    // cases that play TLS themselves (test/hostile/tls13.js).
    get tlsFiles() { return tlsOpts; }
    write(b, cb) {
        if (this.dead) return false;
        const buf = wire.bytes(b);
        this.c.capture(buf);
        try {
            return this.c.io.write(buf, cb);
        } catch (e) {
            return false;
        }
    }
    frame(type, flags, stream, payload, length) { return this.write(frame(type, flags, stream, payload, length)); }
    // headers(stream, block, endStream): one HEADERS frame with END_HEADERS.
    headers(stream, block, endStream) {
        return this.frame(FT.HEADERS, FL_END_HEADERS | (endStream ? FL_END_STREAM : 0), stream, block);
    }
    // ok(stream): the well-formed answer ("ok", 200) on this protocol.
    ok(stream) {
        this.c.answered += 1;
        if (this.c.proto === 'h2') {
            this.headers(stream, wire.OK_BLOCK, false);
            return this.frame(FT.DATA, FL_END_STREAM, stream, 'ok');
        }
        return this.write(H1_OK);
    }
    inject(b) { this.c.inject(wire.bytes(b)); }
    end() { this.c.end(); }
    // reset(): a TCP reset once what was written has gone out.
    reset() {
        if (this.c.dead) return;
        this.c.closing = true;
        this.c.io.write(Buffer.alloc(0), () => this.later(20, () => this.c.reset(), true));
    }
    later(ms, fn, evenIfClosing) {
        const t = setTimeout(() => {
            this.c.timers.delete(t);
            if (!this.c.dead && (evenIfClosing || !this.c.closing)) fn();
        }, ms);
        this.c.timers.add(t);
    }
    // drip(bytes, ms, then): one byte every ms milliseconds, then then().
    drip(b, ms, then) {
        const buf = wire.bytes(b);
        let i = 0;
        const step = () => {
            if (i >= buf.length) return then && then();
            this.write(buf.subarray(i, i + 1));
            i += 1;
            this.later(ms, step);
        };
        step();
    }
    // flood(chunk, total, then): writes chunk(i) (a Buffer, or null to stop)
    // until `total` bytes have gone out, as fast as the client reads them.
    flood(chunk, total, then) {
        let sent = 0, i = 0;
        const pump = () => {
            while (!this.dead && sent < total) {
                const b = chunk(i++);
                if (!b) break;
                sent += b.length;
                if (!this.write(b)) {
                    this.c.io.once('drain', pump);
                    return;
                }
            }
            if (!this.dead && then) then();
        };
        pump();
    }
}

const server = net.createServer(onRaw);
server.on('error', (e) => {
    process.stderr.write(`server: ${e.message}\n`);
    process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
    process.stdout.write('listening\n');
});

process.on('uncaughtException', (e) => {
    // Never crash on what a client does; say what happened.
    process.stderr.write(`uncaught: ${e.stack || e.message}\n`);
    log({ event: 'error', connId: 0, where: 'uncaught', message: e.message });
});

const stop = () => {
    for (const c of conns) {
        try { c.raw.destroy(); } catch (e) { /* going anyway */ }
    }
    server.close();
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
