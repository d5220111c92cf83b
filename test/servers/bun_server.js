// test/servers/bun_server.js — an HTTPS server on Bun.serve (Bun's own HTTP stack
// over BoringSSL) that records what it receives, like test/servers/echo_server.js.
//
//   bun test/servers/bun_server.js PORT LOGFILE CERT KEY
//
// Listens on 127.0.0.1:PORT with TLS (Bun.serve's TLS is HTTP/1.1 only, and
// Bun 1.x negotiates no ALPN protocol at all). Every request appends one JSON
// line to LOGFILE before its response is sent:
//   {"method","url" (path and query),"headers": [name,value,...] (as Bun's
//    Headers iterates them: names lowercased),"bodyLength","bodyBase64",
//    "bodySha256","connId" (the client's port: one per connection),
//    "httpVersion": "1.1"}
// Responses: 200 "ok\n"; /status/NNN answers status NNN; /bytes/N answers N
// bytes. Prints "listening" on stdout once ready. No dependencies but Bun.
import { appendFileSync } from 'fs';

const [portArg, logfile, certFile, keyFile] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile || !certFile || !keyFile) {
    process.stderr.write('usage: bun bun_server.js PORT LOGFILE CERT KEY\n');
    process.exit(2);
}

const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    tls: { cert: Bun.file(certFile), key: Bun.file(keyFile) },
    // Keep idle keep-alive connections for the whole test (seconds, max 255).
    idleTimeout: 255,
    maxRequestBodySize: 64 * 1024 * 1024,
    async fetch(req, srv) {
        const body = new Uint8Array(await req.arrayBuffer());
        const u = new URL(req.url);
        const headers = [];
        for (const [k, v] of req.headers) headers.push(k, v);
        const ip = srv.requestIP(req);
        const hasher = new Bun.CryptoHasher('sha256');
        hasher.update(body);
        const entry = {
            method: req.method,
            url: u.pathname + u.search,
            headers,
            bodyLength: body.length,
            bodyBase64: Buffer.from(body).toString('base64'),
            bodySha256: hasher.digest('hex'),
            connId: ip ? ip.port : null,
            httpVersion: '1.1',
        };
        appendFileSync(logfile, JSON.stringify(entry) + '\n');

        let m;
        if ((m = /^\/bytes\/([0-9]{1,9})$/.exec(u.pathname))) {
            return new Response(new Uint8Array(Number(m[1])).fill(120), {
                headers: { 'content-type': 'application/octet-stream' },
            });
        }
        let status = 200;
        if ((m = /^\/status\/([2-5][0-9][0-9])$/.exec(u.pathname))) status = Number(m[1]);
        return new Response(status === 204 || status === 304 ? null : 'ok\n', {
            status,
            headers: { 'content-type': 'text/plain' },
        });
    },
});

process.stdout.write(`listening ${server.port}\n`);

const stop = () => {
    server.stop(true);
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
