// test/servers/bun_h3_server.js — an HTTP/3 server on Bun.serve({ http3: true })
// (Bun's lsquic-based QUIC and HTTP/3 over BoringSSL) that records what it
// receives, like test/servers/bun_server.js.
//
//   bun test/servers/bun_h3_server.js PORT LOGFILE CERT KEY   (BUN_H3_BENCH=1: no log, "ok\n" for all)
//
// Listens on 127.0.0.1:PORT twice: UDP (QUIC, ALPN h3) and TCP (TLS,
// HTTP/1.1 only, whose responses carry `alt-svc: h3=":PORT"`); Bun.serve
// with http3 always opens both on the same port number. Every request
// appends one JSON line to LOGFILE before its response is sent:
//   {"method","url" (path and query),"headers": [name,value,...] (as Bun's
//    Headers iterates them: names lowercased),"bodyLength","bodyBase64",
//    "bodySha256","connId" (the client's port as Bun reports it, one per
//    connection), "httpVersion": "3" or "1.1" (see httpVersion below)}
// Responses:
//   GET /              200 "ok\n"
//   /status/NNN        status NNN (body "ok\n", none for 204 and 304)
//   /bytes/N           N bytes of "x" (N up to 999,999,999; multi-MB is fine)
//   POST/PUT anything  200 with the request body as the response body
//                      (application/octet-stream)
// Prints "listening PORT" on stdout once ready. No dependencies but Bun.
import { appendFileSync, readFileSync } from 'fs';

const [portArg, logfile, certFile, keyFile] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port <= 0 || port > 65535 || !logfile || !certFile || !keyFile) {
    process.stderr.write('usage: bun bun_h3_server.js PORT LOGFILE CERT KEY\n');
    process.exit(2);
}

// Bodies of /bytes/N are made once per size and shared.
const bodies = new Map();
function bytesBody(n) {
    let b = bodies.get(n);
    if (!b) {
        b = new Uint8Array(n).fill(120);
        if (bodies.size < 8) bodies.set(n, b);
    }
    return b;
}

// BUN_H3_BENCH=1 in the environment: the benchmark's server
// (scripts/bench.sh): no log, and "ok\n" answered at once for every request (the logging handler reads the body,
// hashes it and appends a line to a file per request: a server-side cost
// of tens of microseconds that would be all a benchmark measured).
const benchFetch = () => new Response('ok\n', { headers: { 'content-type': 'text/plain' } });

const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    http3: true,
    tls: { cert: Bun.file(certFile), key: Bun.file(keyFile) },
    // Keep idle connections for the whole test (seconds, max 255).
    idleTimeout: 255,
    maxRequestBodySize: 64 * 1024 * 1024,
    fetch: process.env.BUN_H3_BENCH === '1' ? benchFetch : logFetch,
});

async function logFetch(req, srv) {
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
            httpVersion: httpVersion(ip ? ip.port : null),
        };
        appendFileSync(logfile, JSON.stringify(entry) + '\n');

        let m;
        if (req.method === 'POST' || req.method === 'PUT') {
            return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
        }
        if ((m = /^\/bytes\/([0-9]{1,9})$/.exec(u.pathname))) {
            return new Response(bytesBody(Number(m[1])), {
                headers: { 'content-type': 'application/octet-stream' },
            });
        }
        let status = 200;
        if ((m = /^\/status\/([2-5][0-9][0-9])$/.exec(u.pathname))) status = Number(m[1]);
        return new Response(status === 204 || status === 304 ? null : 'ok\n', {
            status,
            headers: { 'content-type': 'text/plain' },
        });
}

// httpVersion PORT: "1.1" when 127.0.0.1:PORT has a TCP connection to our
// port (/proc/net/tcp: both ends are on this machine), "3" otherwise. Bun
// hands a fetch handler nothing that tells HTTP/3 from HTTP/1.1 (it makes a
// Host header from :authority too). Remembered per client port: a run's
// ports are not reused for the other protocol within a test.
const versions = new Map();
function httpVersion(clientPort) {
    if (clientPort === null) return null;
    let v = versions.get(clientPort);
    if (v) return v;
    v = '3';
    try {
        const want = ':' + clientPort.toString(16).toUpperCase().padStart(4, '0');
        const ours = ':' + port.toString(16).toUpperCase().padStart(4, '0');
        for (const line of readFileSync('/proc/net/tcp', 'latin1').split('\n')) {
            const f = line.trim().split(/\s+/);
            if (f.length > 3 && f[1].endsWith(want) && f[2].endsWith(ours)) {
                v = '1.1';
                break;
            }
        }
    } catch (e) {
        v = null; // no /proc: unknown
    }
    if (v) versions.set(clientPort, v);
    return v;
}

process.stdout.write(`listening ${server.port}\n`);

// SIGUSR1: a graceful stop (no new connections; HTTP/3 GOAWAY on the open
// ones, which finish what they have), for the GOAWAY check of e2e_h3.sh.
process.on('SIGUSR1', () => {
    server.stop(false);
    process.stdout.write('stopping\n');
});

const stop = () => {
    server.stop(true);
    process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
