#!/usr/bin/python3
# test/interop/py_server.py — the interop matrix's Python servers, on
# Debian's python3 packages.
#
#   py_server.py PORT LOGFILE KIND [CERT KEY]
#
# KIND: stdlib (http.server, ThreadingHTTPServer), tornado, twisted
# (twisted.web; with CERT and KEY over TLS, where ALPN offers h2 when
# python3-h2 is there), hypercorn (ASGI on h11 and, with h2c prior
# knowledge or ALPN h2, python3-h2). Routes: / 200 "ok\n"; /h48 the same
# with 48 headers x-h01..x-h48 of 1000 bytes; /c5 "Connection: close" on a
# connection's 5th request to /c5, and the server ends the connection there
# (HTTP/1.1 only). Prints "listening" once ready. LOGFILE is not written.
import os, ssl, sys

port = int(sys.argv[1])
kind = sys.argv[3]
cert = sys.argv[4] if len(sys.argv) > 5 else None
key = sys.argv[5] if len(sys.argv) > 5 else None
BIG = [('x-h%02d' % i, 'a' * 1000) for i in range(1, 49)]


def ready():
    sys.stdout.write('listening\n')
    sys.stdout.flush()


def tls_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    return ctx


if kind == 'stdlib':
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class H(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        wbufsize = 65536  # one write per response (handle_one_request flushes)
        n = 0

        def do_GET(self):
            path = self.path.split('?')[0]
            self.send_response(200)
            self.send_header('Content-Type', 'text/plain')
            self.send_header('Content-Length', '3')
            if path == '/h48':
                for k, v in BIG:
                    self.send_header(k, v)
            elif path == '/c5':
                self.n += 1
                if self.n == 5:
                    self.send_header('Connection', 'close')  # sets close_connection
            self.end_headers()
            self.wfile.write(b'ok\n')

        def log_message(self, *a):
            pass

    ThreadingHTTPServer.daemon_threads = True
    httpd = ThreadingHTTPServer(('127.0.0.1', port), H)
    if cert:
        httpd.socket = tls_context().wrap_socket(httpd.socket, server_side=True)
    ready()
    httpd.serve_forever()

elif kind == 'tornado':
    import asyncio
    import tornado.web

    class H(tornado.web.RequestHandler):
        def get(self, path):
            self.set_header('Content-Type', 'text/plain')
            if path == 'h48':
                for k, v in BIG:
                    self.set_header(k, v)
            elif path == 'c5':
                # One HTTP1Connection per request; the stream is the connection.
                conn = self.request.connection
                st = conn.stream
                n = getattr(st, '_interop_n', 0) + 1
                st._interop_n = n
                if n == 5:
                    # Tornado closes after the response (and says
                    # "Connection: close") when this is set; a handler's own
                    # Connection header would be sent but not acted on.
                    conn._disconnect_on_finish = True
            self.write('ok\n')

    async def main():
        app = tornado.web.Application([(r'/(.*)', H)])
        app.listen(port, '127.0.0.1', ssl_options=tls_context() if cert else None, idle_connection_timeout=300)
        ready()
        await asyncio.Event().wait()

    asyncio.run(main())

elif kind == 'twisted':
    from twisted.internet import reactor, endpoints, ssl as tssl
    from twisted.web import resource, server

    class R(resource.Resource):
        isLeaf = True

        def render_GET(self, request):
            path = request.path.decode()
            request.setHeader(b'content-type', b'text/plain')
            if path == '/h48':
                for k, v in BIG:
                    request.setHeader(k.encode(), v.encode())
            elif path == '/c5' and request.clientproto == b'HTTP/1.1':
                ch = request.channel
                ch._interop_n = getattr(ch, '_interop_n', 0) + 1
                if ch._interop_n == 5:
                    ch.persistent = False  # HTTPChannel closes after this response
                    request.setHeader(b'connection', b'close')
            return b'ok\n'

    site = server.Site(R())
    site.timeOut = 300
    if cert:
        with open(cert) as f:
            c = f.read()
        with open(key) as f:
            k = f.read()
        # Twisted's CertificateOptions: TLS 1.3 only, ALPN h2 and http/1.1.
        opts = tssl.CertificateOptions(
            privateKey=tssl.PrivateCertificate.loadPEM(c + k).privateKey.original,
            certificate=tssl.Certificate.loadPEM(c).original,
            raiseMinimumTo=tssl.TLSVersion.TLSv1_3,
            acceptableProtocols=[b'h2', b'http/1.1'])
        reactor.listenSSL(port, site, opts, interface='127.0.0.1')
    else:
        reactor.listenTCP(port, site, interface='127.0.0.1')
    reactor.callWhenRunning(ready)
    reactor.run()

elif kind == 'hypercorn':
    import asyncio
    from hypercorn.asyncio import serve
    from hypercorn.config import Config
    counts = {}

    async def app(scope, receive, send):
        if scope['type'] != 'http':
            return
        path = scope['path']
        headers = [(b'content-type', b'text/plain'), (b'content-length', b'3')]
        if path == '/h48':
            headers += [(k.encode(), v.encode()) for k, v in BIG]
        elif path == '/c5' and scope.get('http_version') == '1.1':
            k = tuple(scope.get('client') or ())
            counts[k] = counts.get(k, 0) + 1
            if counts[k] == 5:
                headers.append((b'connection', b'close'))  # h11 then ends it
        await send({'type': 'http.response.start', 'status': 200, 'headers': headers})
        await send({'type': 'http.response.body', 'body': b'ok\n'})

    config = Config()
    config.bind = ['127.0.0.1:%d' % port]
    config.keep_alive_timeout = 300
    config.accesslog = None
    if cert:
        config.certfile = cert
        config.keyfile = key

    async def main():
        task = asyncio.ensure_future(serve(app, config))
        await asyncio.sleep(0.3)
        ready()
        await task

    asyncio.run(main())
else:
    sys.exit('bad KIND')
