// test/servers/h2_echo_server.js — an HTTP/2 (h2c, prior knowledge) server that
// records what it receives; the HTTP/2 sibling of test/servers/echo_server.js.
//
//   node test/servers/h2_echo_server.js PORT LOGFILE [MAX_CONCURRENT_STREAMS]
//
// Listens on 127.0.0.1:PORT (http2.createServer: cleartext HTTP/2 only, no
// Upgrade, no HTTP/1.1). MAX_CONCURRENT_STREAMS, when given, is advertised in
// SETTINGS (and enforced by nghttp2 under node). Every request appends one JSON
// line to LOGFILE before its response is started, so the log is complete as
// soon as the client has its responses (a /rst request is logged too):
//   {"method", "url" (:path), "authority", "scheme",
//    "headers": [name,value,...] (the header block as received, pseudo-header
//    fields included, in order), "bodyLength", "bodyBase64" (only for bodies
//    up to 1 MiB, else null), "bodySha256" (hex), "sessionId" (sessions in
//    the order they were accepted, from 1), "streamId",
//    "open" (streams open on this session when this one arrived, itself
//    included), "sessionMaxOpen" (the most that session has had open so far),
//    "httpVersion": "2"}
// A stream counts as open from its HEADERS until node reports it closed,
// which is never earlier than nghttp2 closes it, so "open" can only
// overstate what the client had open, never understate it.
//
// Responses: 200 "ok\n"; /status/NNN answers status NNN; /bytes/N answers N
// bytes (content-length); /headers/N answers 200 with N bytes of extra header
// field values spread over fields of at most 4000 bytes (x-fill-0, x-fill-1,
// ...: a block larger than one 16 KiB frame goes out as HEADERS plus
// CONTINUATION); /trailers answers 200 "ok\n" followed by a trailer section
// (x-trailer: done); /early sends a 103 informational response before its
// 200; /rst resets the stream with RST_STREAM(CANCEL) instead of answering;
// /delay/MS answers 200 "ok\n" after MS milliseconds. A query string is
// ignored for routing. Prints "listening" on stdout once ready.
// No npm dependencies.
'use strict';

const http2 = require('http2');
const fs = require('fs');
const crypto = require('crypto');

const port = Number(process.argv[2]);
const logfile = process.argv[3];
const maxStreamsArg = process.argv[4];
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile) {
    process.stderr.write('usage: node h2_echo_server.js PORT LOGFILE [MAX_CONCURRENT_STREAMS]\n');
    process.exit(2);
}

const settings = {};
if (maxStreamsArg !== undefined) {
    const m = Number(maxStreamsArg);
    if (!Number.isInteger(m) || m < 1) {
        process.stderr.write('MAX_CONCURRENT_STREAMS must be a positive integer\n');
        process.exit(2);
    }
    settings.maxConcurrentStreams = m;
}

const server = http2.createServer({
    settings,
    // /headers/N sends up to a few hundred KiB of response header block.
    maxSendHeaderBlockLength: 4 * 1024 * 1024,
    // Requests from a load generator may carry large bodies and many streams.
    maxSessionMemory: 256,
    // A misbehaving client should show up as errors in its own report, not
    // as a server that silently gave up on it after 100 refusals.
    maxSessionRejectedStreams: 1000000,
    maxSessionInvalidFrames: 1000000,
});

let nextSessionId = 0;

server.on('session', (session) => {
    nextSessionId += 1;
    session.shbId = nextSessionId;
    session.shbOpen = 0;
    session.shbMaxOpen = 0;
    session.setTimeout(0);
    session.on('error', (err) => {
        process.stderr.write(`session ${session.shbId} error: ${err.code || err.message}\n`);
    });
});

const fillValue = (n, seed) => {
    // Printable, varied bytes so HPACK's Huffman code cannot shrink them much.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[(i * 7 + seed * 13 + ((i >> 6) * 5)) % alphabet.length];
    return s;
};

server.on('stream', (stream, headers, flags, rawHeaders) => {
    const session = stream.session;
    session.shbOpen += 1;
    if (session.shbOpen > session.shbMaxOpen) session.shbMaxOpen = session.shbOpen;
    const openAtStart = session.shbOpen;
    let closed = false;
    stream.on('close', () => {
        if (!closed) {
            closed = true;
            session.shbOpen -= 1;
        }
    });
    stream.on('error', (err) => {
        process.stderr.write(`stream ${stream.id} error: ${err.code || err.message}\n`);
    });

    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
        const body = Buffer.concat(chunks);
        const entry = {
            method: headers[':method'],
            url: headers[':path'],
            authority: headers[':authority'] === undefined ? null : headers[':authority'],
            scheme: headers[':scheme'] === undefined ? null : headers[':scheme'],
            headers: rawHeaders || [],
            bodyLength: body.length,
            bodyBase64: body.length <= 1024 * 1024 ? body.toString('base64') : null,
            bodySha256: crypto.createHash('sha256').update(body).digest('hex'),
            sessionId: session.shbId,
            streamId: stream.id,
            open: openAtStart,
            sessionMaxOpen: session.shbMaxOpen,
            httpVersion: '2',
        };
        fs.appendFileSync(logfile, JSON.stringify(entry) + '\n');
        if (stream.destroyed || stream.closed) return;
        respond(stream, String(headers[':path'] || '/').split('?')[0]);
    });
});

function respond(stream, path) {
    let m;
    if (path === '/rst') {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        return;
    }
    if ((m = /^\/bytes\/([0-9]{1,9})$/.exec(path))) {
        const n = Number(m[1]);
        stream.respond({ ':status': 200, 'content-type': 'application/octet-stream', 'content-length': String(n) });
        stream.end(Buffer.alloc(n, 'x'));
        return;
    }
    if ((m = /^\/headers\/([0-9]{1,7})$/.exec(path))) {
        let n = Number(m[1]);
        const h = { ':status': 200, 'content-type': 'text/plain', 'content-length': '3' };
        for (let i = 0; n > 0; i++) {
            const k = Math.min(n, 4000);
            h[`x-fill-${i}`] = fillValue(k, i);
            n -= k;
        }
        stream.respond(h);
        stream.end('ok\n');
        return;
    }
    if (path === '/trailers') {
        stream.respond({ ':status': 200, 'content-type': 'text/plain' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'x-trailer': 'done' }));
        stream.end('ok\n');
        return;
    }
    if (path === '/early') {
        stream.additionalHeaders({ ':status': 103, link: '</style.css>; rel=preload; as=style' });
    }
    if ((m = /^\/delay\/([0-9]{1,5})$/.exec(path))) {
        setTimeout(() => {
            if (stream.destroyed || stream.closed) return;
            stream.respond({ ':status': 200, 'content-type': 'text/plain', 'content-length': '3' });
            stream.end('ok\n');
        }, Number(m[1]));
        return;
    }
    let status = 200;
    if ((m = /^\/status\/([2-5][0-9][0-9])$/.exec(path))) status = Number(m[1]);
    const out = status === 204 || status === 304 ? '' : 'ok\n';
    const h = { ':status': status, 'content-type': 'text/plain' };
    if (out.length) h['content-length'] = String(out.length);
    stream.respond(h, { endStream: out.length === 0 });
    if (out.length) stream.end(out);
}

server.on('sessionError', (err) => {
    process.stderr.write(`sessionError: ${err.code || err.message}\n`);
});

server.listen(port, '127.0.0.1', () => {
    process.stdout.write('listening\n');
});

const stop = () => {
    server.close();
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
