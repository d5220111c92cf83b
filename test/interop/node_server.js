// test/interop/node_server.js — the interop matrix's server on node's own
// modules (http: llhttp; https: llhttp over OpenSSL; http2: nghttp2), also
// run under Bun (whose node:http and node:http2 are Bun's own code).
//
//   node node_server.js PORT LOGFILE KIND [CERT KEY [TLSMAX]]
//
// KIND: h1 (http), h1s (https), h2c (http2.createServer, prior knowledge),
// h2s (http2.createSecureServer, ALPN h2 only). TLSMAX: "1.2" caps TLS at
// 1.2 (default: up to 1.3). Routes :
//   /      200 "ok\n"
//   /h48   200 with 48 headers x-h01..x-h48 of 1000 bytes each
//   /c5    200; the 5th request to /c5 on a connection ends it:
//          HTTP/1.1 "Connection: close"; HTTP/2 a GOAWAY once it is answered
// Prints "listening" once ready. LOGFILE is not written (kept for
// test/e2e/lib.sh start_node_server's calling convention).
'use strict';
const fs = require('fs');
const [portArg, , kind, cert, key, tlsMax] = process.argv.slice(2);
const port = Number(portArg);
const tls = cert && key ? {
    cert: fs.readFileSync(cert), key: fs.readFileSync(key),
    minVersion: 'TLSv1.2', maxVersion: tlsMax === '1.2' ? 'TLSv1.2' : 'TLSv1.3',
} : null;
const big = 'a'.repeat(1000);
const counts = new WeakMap();

function handler(req, res) {
    const path = req.url.split('?')[0];
    if (path === '/h48') {
        for (let i = 1; i <= 48; i++) res.setHeader('x-h' + String(i).padStart(2, '0'), big);
    } else if (path === '/c5') {
        const owner = req.stream ? req.stream.session : req.socket;
        const n = (counts.get(owner) || 0) + 1;
        counts.set(owner, n);
        if (n === 5) {
            if (req.stream) res.on('finish', () => owner.close());
            else res.setHeader('Connection', 'close');
        }
    }
    res.setHeader('content-type', 'text/plain');
    res.end('ok\n');
}

let server;
if (kind === 'h1') server = require('http').createServer(handler);
else if (kind === 'h1s') server = require('https').createServer(tls, handler);
else if (kind === 'h2c') server = require('http2').createServer(handler);
else if (kind === 'h2s') server = require('http2').createSecureServer(tls, handler);
else { process.stderr.write('bad KIND\n'); process.exit(2); }
if (server.keepAliveTimeout !== undefined) server.keepAliveTimeout = 300000;
server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
