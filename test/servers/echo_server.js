// test/servers/echo_server.js — an HTTP/1.1 server that records what it receives.
//
//   node test/servers/echo_server.js PORT LOGFILE
//
// Listens on 127.0.0.1:PORT. Every request appends one JSON line to LOGFILE
// before the response is written, so the log is complete as soon as the
// client has its responses:
//   {"method","url","headers":[name,value,...] (req.rawHeaders, in order),
//    "bodyLength","bodyBase64","connId","httpVersion"}
// connId numbers connections in the order they were accepted (from 1).
//
// Responses: 200 "ok\n"; /status/NNN answers status NNN; /close answers 200
// with Connection: close and closes the connection; /bytes/N answers N bytes
// (Content-Length); /chunked/N answers N bytes chunked; /early sends a 103
// Early Hints before its 200. A query string is ignored for routing.
// Prints "listening" on stdout once ready. No npm dependencies.
'use strict';

const http = require('http');
const fs = require('fs');

const port = Number(process.argv[2]);
const logfile = process.argv[3];
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile) {
    process.stderr.write('usage: node echo_server.js PORT LOGFILE\n');
    process.exit(2);
}

let nextConnId = 0;

const server = http.createServer((req, res) => {
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
            connId: req.socket.connId,
            httpVersion: req.httpVersion,
        };
        fs.appendFileSync(logfile, JSON.stringify(entry) + '\n');

        const path = req.url.split('?')[0];
        let m;
        if ((m = /^\/bytes\/([0-9]{1,9})$/.exec(path))) {
            // N bytes with Content-Length.
            const n = Number(m[1]);
            res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(n) });
            res.end(Buffer.alloc(n, 'x'));
            return;
        }
        if ((m = /^\/chunked\/([0-9]{1,9})$/.exec(path))) {
            // N bytes, chunked, in pieces of up to 1000 bytes.
            let n = Number(m[1]);
            res.writeHead(200, { 'Content-Type': 'text/plain' });
            while (n > 0) {
                const k = Math.min(n, 1000);
                res.write(Buffer.alloc(k, 'y'));
                n -= k;
            }
            res.end();
            return;
        }
        if (path === '/early' && typeof res.writeEarlyHints === 'function') {
            // A 103 interim response before the real one.
            res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        }

        let status = 200;
        if ((m = /^\/status\/([1-5][0-9][0-9])$/.exec(path))) status = Number(m[1]);
        const headers = { 'Content-Type': 'text/plain' };
        if (path === '/close') headers.Connection = 'close';
        const out = status === 204 || status === 304 ? '' : 'ok\n';
        if (out.length) headers['Content-Length'] = String(out.length);
        res.writeHead(status, headers);
        res.end(out);
    });
});

server.on('connection', (sock) => {
    nextConnId += 1;
    sock.connId = nextConnId;
});

server.on('clientError', (err, sock) => {
    process.stderr.write(`clientError: ${err.code || err.message}\n`);
    if (sock.writable) sock.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
});

// Never drop an idle keep-alive connection during a test.
server.keepAliveTimeout = 60000;
server.headersTimeout = 65000;
server.requestTimeout = 120000;
server.maxRequestsPerSocket = 0;

server.listen(port, '127.0.0.1', () => {
    process.stdout.write('listening\n');
});

const stop = () => {
    server.close();
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
