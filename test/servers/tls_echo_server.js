// test/servers/tls_echo_server.js — the TLS siblings of test/servers/echo_server.js and
// test/servers/h2_echo_server.js: an HTTPS server that records what it receives.
//
//   node test/servers/tls_echo_server.js PORT LOGFILE MODE CERT KEY
//
// MODE h1: https.createServer (ALPN http/1.1, or none when the client offers
// none). MODE h2: http2.createSecureServer({allowHTTP1: false}) (ALPN h2 only;
// a client offering only http/1.1 gets a no_application_protocol alert from
// Node 19 on, while Node 18 completes the handshake without ALPN, so the
// tests do not rely on it: test/e2e/e2e_tls.sh uses openssl s_server for that).
// CERT and KEY are PEM files (the certificate file may hold a chain).
// Listens on 127.0.0.1:PORT. Every request appends one JSON line to LOGFILE
// before its response is started:
//   h1: {"method","url","headers": [name,value,...] (rawHeaders),
//        "bodyLength","bodyBase64","bodySha256","connId","httpVersion","tls"}
//   h2: {"method","url" (:path),"authority","scheme","headers" (the header
//        block as received, pseudo-header fields included),"bodyLength",
//        "bodyBase64" (only up to 1 MiB, else null),"bodySha256","sessionId",
//        "streamId","httpVersion": "2","tls"}
// "tls" is {"version" (e.g. "TLSv1.3"),"cipher" (the OpenSSL name),
// "alpn" (false when none was negotiated),"servername" (the SNI the client
// sent, false for none)}. connId / sessionId number TLS connections in the
// order their handshakes completed (from 1), so a request that needed a
// fresh handshake shows up as a new id.
//
// Responses: 200 "ok\n"; /status/NNN answers status NNN; /bytes/N answers N
// bytes (content-length); on h1, /close answers 200 with Connection: close
// and closes the connection. A query string is ignored for routing.
// Prints "listening" on stdout once ready. No npm dependencies.
'use strict';

const fs = require('fs');
const crypto = require('crypto');

const [portArg, logfile, mode, certFile, keyFile] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile ||
    (mode !== 'h1' && mode !== 'h2') || !certFile || !keyFile) {
    process.stderr.write('usage: node tls_echo_server.js PORT LOGFILE h1|h2 CERT KEY\n');
    process.exit(2);
}

const tlsOptions = {
    cert: fs.readFileSync(certFile),
    key: fs.readFileSync(keyFile),
    // Whatever the client asks for within TLS 1.2-1.3; the tests look at
    // what was negotiated in the log.
    minVersion: 'TLSv1.2',
};

let nextConnId = 0;

function tlsInfo(sock) {
    const c = sock && typeof sock.getCipher === 'function' ? sock.getCipher() : null;
    return {
        version: sock && typeof sock.getProtocol === 'function' ? sock.getProtocol() : null,
        cipher: c ? c.standardName || c.name : null,
        alpn: sock ? sock.alpnProtocol : null,
        servername: sock ? sock.servername : null,
    };
}

function route(path) {
    let m;
    if ((m = /^\/bytes\/([0-9]{1,9})$/.exec(path))) return { kind: 'bytes', n: Number(m[1]) };
    if ((m = /^\/status\/([2-5][0-9][0-9])$/.exec(path))) return { kind: 'status', status: Number(m[1]) };
    if (path === '/close') return { kind: 'close' };
    return { kind: 'ok' };
}

let server;
if (mode === 'h1') {
    const https = require('https');
    server = https.createServer(tlsOptions, (req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const body = Buffer.concat(chunks);
            const entry = {
                method: req.method,
                url: req.url,
                headers: req.rawHeaders,
                bodyLength: body.length,
                bodyBase64: body.toString('base64'),
                bodySha256: crypto.createHash('sha256').update(body).digest('hex'),
                connId: req.socket.connId,
                httpVersion: req.httpVersion,
                tls: tlsInfo(req.socket),
            };
            fs.appendFileSync(logfile, JSON.stringify(entry) + '\n');

            const r = route(req.url.split('?')[0]);
            if (r.kind === 'bytes') {
                res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(r.n) });
                res.end(Buffer.alloc(r.n, 'x'));
                return;
            }
            const status = r.kind === 'status' ? r.status : 200;
            const headers = { 'Content-Type': 'text/plain' };
            if (r.kind === 'close') headers.Connection = 'close';
            const out = status === 204 || status === 304 ? '' : 'ok\n';
            if (out.length) headers['Content-Length'] = String(out.length);
            res.writeHead(status, headers);
            res.end(out);
        });
    });
    server.on('secureConnection', (sock) => {
        nextConnId += 1;
        sock.connId = nextConnId;
    });
    // Never drop an idle keep-alive connection during a test.
    server.keepAliveTimeout = 60000;
    server.headersTimeout = 65000;
    server.requestTimeout = 120000;
    server.maxRequestsPerSocket = 0;
} else {
    const http2 = require('http2');
    server = http2.createSecureServer({
        ...tlsOptions,
        allowHTTP1: false,
        maxSessionMemory: 256,
        maxSessionRejectedStreams: 1000000,
        maxSessionInvalidFrames: 1000000,
    });
    server.on('session', (session) => {
        nextConnId += 1;
        session.shbId = nextConnId;
        session.setTimeout(0);
        session.on('error', (err) => {
            process.stderr.write(`session ${session.shbId} error: ${err.code || err.message}\n`);
        });
    });
    server.on('stream', (stream, headers, flags, rawHeaders) => {
        const session = stream.session;
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
                httpVersion: '2',
                tls: tlsInfo(session.socket),
            };
            fs.appendFileSync(logfile, JSON.stringify(entry) + '\n');
            if (stream.destroyed || stream.closed) return;
            const r = route(String(headers[':path'] || '/').split('?')[0]);
            if (r.kind === 'bytes') {
                stream.respond({ ':status': 200, 'content-type': 'application/octet-stream', 'content-length': String(r.n) });
                stream.end(Buffer.alloc(r.n, 'x'));
                return;
            }
            const status = r.kind === 'status' ? r.status : 200;
            const out = status === 204 || status === 304 ? '' : 'ok\n';
            const h = { ':status': status, 'content-type': 'text/plain' };
            if (out.length) h['content-length'] = String(out.length);
            stream.respond(h, { endStream: out.length === 0 });
            if (out.length) stream.end(out);
        });
    });
    server.on('sessionError', (err) => {
        process.stderr.write(`sessionError: ${err.code || err.message}\n`);
    });
}

server.on('tlsClientError', (err) => {
    process.stderr.write(`tlsClientError: ${err.code || err.message}\n`);
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
