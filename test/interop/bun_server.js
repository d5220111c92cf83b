// test/interop/bun_server.js — the interop matrix's server on Bun.serve
// (uWebSockets' HTTP/1.1; with http3, lsquic's HTTP/3; BoringSSL).
//
//   bun bun_server.js PORT LOGFILE KIND [CERT KEY [TLSMAX]]
//
// KIND: h1 (cleartext HTTP/1.1), h1s (HTTP/1.1 over TLS), h3 (HTTP/3 on UDP
// PORT and HTTP/1.1 over TLS on TCP PORT). TLSMAX "1.2": TLS 1.2 only.
// Routes: / 200 "ok\n"; /h48 48 headers x-h01..x-h48 of 1000 bytes; /c5
// the 5th request to /c5 on a connection gets "Connection: close" (Bun
// then ends the connection; over HTTP/3 there is no such thing).
// Prints "listening" once ready; LOGFILE is not written.
const [portArg, , kind, cert, key, tlsMax] = process.argv.slice(2);
const port = Number(portArg);
const big = 'a'.repeat(1000);
const h48 = {};
for (let i = 1; i <= 48; i++) h48['x-h' + String(i).padStart(2, '0')] = big;
const counts = new Map();
const opts = {
    port,
    hostname: '127.0.0.1',
    idleTimeout: 255,
    fetch(req, srv) {
        const path = new URL(req.url).pathname;
        const headers = { 'content-type': 'text/plain' };
        if (path === '/h48') Object.assign(headers, h48);
        else if (path === '/c5') {
            const ip = srv.requestIP(req);
            const k = ip ? ip.port : 0;
            const n = (counts.get(k) || 0) + 1;
            counts.set(k, n);
            if (n === 5) headers.connection = 'close';
        }
        return new Response('ok\n', { headers });
    },
};
if (kind !== 'h1') {
    opts.tls = { cert: Bun.file(cert), key: Bun.file(key) };
    if (tlsMax === '1.2') opts.tls.maxVersion = 0x0303;
}
if (kind === 'h3') opts.http3 = true;
Bun.serve(opts);
process.stdout.write('listening\n');
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
