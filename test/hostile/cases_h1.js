// test/hostile/cases_h1.js — hostile HTTP/1.1 servers over cleartext TCP
// (the table's format: test/hostile/cases.js). Each case answers every
// request the same broken way unless it says otherwise; `-c 2` with `-n 8`
// means each error that leaves a connection unusable costs a reconnect.
'use strict';

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
const MB = 1 << 20;

// answer(bytes[, then]): a case that writes these bytes for every request,
// then does `then` (end, reset) when given.
const answer = (bytes, then) => (x) => {
    x.write(bytes);
    if (then === 'end') x.end();
    if (then === 'reset') x.reset();
};
// head(lines..., body): a response head from its lines.
const resp = (status, headers, body) => `${status}\r\n${headers.map((h) => h + '\r\n').join('')}\r\n${body || ''}`;
const okWith = (...headers) => resp('HTTP/1.1 200 OK', headers, 'ok');
// A case in the usual shape: -n 8 -c 2, every response the same.
const every = (name, does, bytes, expect, more = {}) => ({
    name, proto: 'h1', args: '-n 8 -c 2', does, expect, onRequest: answer(bytes, more.then), ...more,
});
const protocol8 = { errors: { protocol: 8 } };
const ok8 = { ok: 8 };

module.exports = [
    // --- cut short: close (FIN) or reset at every part of a response --------
    every('h1-close-mid-status', 'closes after `HTTP/1.1 20`', 'HTTP/1.1 20', { errors: { closed: 8 } },
        { then: 'end', rfc: 'RFC 9112 §8: an incomplete message' }),
    every('h1-reset-mid-status', 'resets after `HTTP/1.1 20`', 'HTTP/1.1 20', { errors: { reset: 8 } }, { then: 'reset' }),
    every('h1-close-mid-headers', 'closes inside a header line', 'HTTP/1.1 200 OK\r\nContent-Le', { errors: { closed: 8 } },
        { then: 'end', rfc: 'RFC 9112 §8' }),
    every('h1-reset-mid-headers', 'resets inside a header line', 'HTTP/1.1 200 OK\r\nContent-Le', { errors: { reset: 8 } },
        { then: 'reset' }),
    every('h1-close-mid-body', 'closes after 5 of 10 declared body bytes', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345',
        { errors: { closed: 8 } }, { then: 'end', rfc: 'RFC 9112 §8' }),
    every('h1-reset-mid-body', 'resets after 5 of 10 declared body bytes', 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345',
        { errors: { reset: 8 } }, { then: 'reset' }),
    every('h1-close-mid-chunk', 'closes inside a chunk', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel',
        { errors: { closed: 8 } }, { then: 'end', rfc: 'RFC 9112 §8' }),
    every('h1-close-before-last-chunk', 'closes before the last chunk', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n',
        { errors: { closed: 8 } }, { then: 'end', rfc: 'RFC 9112 §7.1: the last chunk ends the body' }),
    every('h1-close-in-trailers', 'closes inside the trailer section', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n',
        { errors: { closed: 8 } }, { then: 'end' }),

    // --- status lines ----------------------------------------------------------
    every('h1-status-no-reason', '`HTTP/1.1 200` with no space and no reason', resp('HTTP/1.1 200', ['Content-Length: 2'], 'ok'), ok8,
        { rfc: 'RFC 9112 §4: the reason is optional; the missing SP is tolerated as most clients do' }),
    every('h1-status-empty-reason', '`HTTP/1.1 200 ` (empty reason)', resp('HTTP/1.1 200 ', ['Content-Length: 2'], 'ok'), ok8,
        { rfc: 'RFC 9112 §4' }),
    every('h1-status-http10-close', 'HTTP/1.0 responses, closing after each', resp('HTTP/1.0 200 OK', ['Content-Length: 2'], 'ok'), ok8,
        { then: 'end', rfc: 'RFC 9112 §9.3: HTTP/1.0 closes unless keep-alive' }),
    every('h1-status-http10-keepalive', 'HTTP/1.0 with Connection: keep-alive', resp('HTTP/1.0 200 OK', ['Connection: keep-alive', 'Content-Length: 2'], 'ok'), ok8,
        { rfc: 'RFC 9112 §C.2.2' }),
    every('h1-status-http12', '`HTTP/1.2 200 OK` (a higher minor version)', resp('HTTP/1.2 200 OK', ['Content-Length: 2'], 'ok'), ok8,
        { rfc: 'RFC 9110 §2.5: a higher minor version is processed as the highest known' }),
    every('h1-status-http20', '`HTTP/2.0 200 OK` over HTTP/1.1', resp('HTTP/2.0 200 OK', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §2.3: another major version' }),
    every('h1-status-lowercase', '`http/1.1 200 OK`', resp('http/1.1 200 OK', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §2.3: HTTP-name is case-sensitive' }),
    every('h1-status-099', 'status 099', resp('HTTP/1.1 099 Low', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9110 §15: 100..599' }),
    every('h1-status-600', 'status 600', resp('HTTP/1.1 600 High', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9110 §15: 100..599' }),
    every('h1-status-2-digits', 'status `20`', resp('HTTP/1.1 20 OK', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §4: 3DIGIT' }),
    every('h1-status-4-digits', 'status `2000`', resp('HTTP/1.1 2000 OK', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §4: 3DIGIT' }),
    every('h1-status-letters', 'status `2x0`', resp('HTTP/1.1 2x0 OK', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §4' }),
    every('h1-status-leading-crlf', 'a CRLF before the status line', '\r\n' + OK, protocol8,
        { rfc: 'RFC 9112 §2.2 lets a server skip empty lines before a request, not a client before a response' }),
    every('h1-status-101', '`101 Switching Protocols` to a plain GET', resp('HTTP/1.1 101 Switching Protocols', ['Upgrade: h2c', 'Connection: Upgrade']), protocol8,
        { rfc: 'RFC 9110 §15.2.2: shb asked for no upgrade' }),
    every('h1-status-garbage', '64 bytes of binary junk', Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37 + 1) & 0xff)), protocol8,
        { rfc: 'RFC 9112 §4' }),
    every('h1-status-icy', '`ICY 200 OK` (SHOUTcast)', resp('ICY 200 OK', ['Content-Length: 2'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §2.3' }),
    every('h1-bare-cr', 'bare CRs as line ends', 'HTTP/1.1 200 OK\rContent-Length: 2\r\r\nok', protocol8,
        { rfc: 'RFC 9112 §2.2: a bare CR is invalid' }),
    every('h1-bare-lf', 'bare LFs as line ends', 'HTTP/1.1 200 OK\nContent-Length: 2\n\nok', ok8,
        { rfc: 'RFC 9112 §2.2: a recipient MAY take a bare LF as a line end' }),

    // --- Content-Length ----------------------------------------------------------
    every('h1-cl-zero', '`Content-Length: 0`, no body', resp('HTTP/1.1 200 OK', ['Content-Length: 0']), ok8),
    every('h1-cl-leading-zeros', '`Content-Length: 0002`', resp('HTTP/1.1 200 OK', ['Content-Length: 0002'], 'ok'), ok8,
        { rfc: 'RFC 9110 §8.6: 1*DIGIT' }),
    every('h1-cl-ows', '`Content-Length:   2  ` (spaces around)', resp('HTTP/1.1 200 OK', ['Content-Length:   2  '], 'ok'), ok8,
        { rfc: 'RFC 9112 §5.1: OWS around the value' }),
    every('h1-cl-duplicate-same', 'two `Content-Length: 2` lines', resp('HTTP/1.1 200 OK', ['Content-Length: 2', 'Content-Length: 2'], 'ok'), ok8,
        { rfc: 'RFC 9110 §8.6: identical values may be accepted' }),
    every('h1-cl-list-same', '`Content-Length: 2, 2`', resp('HTTP/1.1 200 OK', ['Content-Length: 2, 2'], 'ok'), ok8,
        { rfc: 'RFC 9110 §8.6: identical values may be accepted' }),
    every('h1-cl-duplicate-different', '`Content-Length: 2` and `Content-Length: 3`', resp('HTTP/1.1 200 OK', ['Content-Length: 2', 'Content-Length: 3'], 'ok'),
        protocol8, { rfc: 'RFC 9112 §6.3 (5): an invalid length is unrecoverable' }),
    every('h1-cl-list-different', '`Content-Length: 2, 3`', resp('HTTP/1.1 200 OK', ['Content-Length: 2, 3'], 'ok'), protocol8,
        { rfc: 'RFC 9112 §6.3 (5)' }),
    every('h1-cl-negative', '`Content-Length: -1`', resp('HTTP/1.1 200 OK', ['Content-Length: -1'], 'ok'), protocol8, { rfc: 'RFC 9110 §8.6' }),
    every('h1-cl-plus', '`Content-Length: +2`', resp('HTTP/1.1 200 OK', ['Content-Length: +2'], 'ok'), protocol8, { rfc: 'RFC 9110 §8.6' }),
    every('h1-cl-hex', '`Content-Length: 0x2`', resp('HTTP/1.1 200 OK', ['Content-Length: 0x2'], 'ok'), protocol8, { rfc: 'RFC 9110 §8.6' }),
    every('h1-cl-empty', '`Content-Length:` with no value', resp('HTTP/1.1 200 OK', ['Content-Length:'], 'ok'), protocol8, { rfc: 'RFC 9110 §8.6' }),
    every('h1-cl-2p64', '`Content-Length: 18446744073709551616` (2^64)', resp('HTTP/1.1 200 OK', ['Content-Length: 18446744073709551616'], 'ok'),
        protocol8, { rfc: 'RFC 9110 §8.6: a length that overflows is invalid' }),
    every('h1-cl-huge', 'a 40-digit Content-Length', resp('HTTP/1.1 200 OK', ['Content-Length: ' + '9'.repeat(40)], 'ok'), protocol8,
        { rfc: 'RFC 9110 §8.6' }),
    every('h1-cl-2p63-close', '`Content-Length: 2^63-1`, 2 bytes, then FIN', resp('HTTP/1.1 200 OK', ['Content-Length: 9223372036854775807'], 'ok'),
        { errors: { closed: 8 } }, { then: 'end', rfc: 'RFC 9112 §8' }),
    {
        name: 'h1-cl-shorter-than-body', proto: 'h1', args: '-n 8 -c 1',
        does: '`Content-Length: 1` and a 2-byte body: a byte no request asked for',
        rfc: 'RFC 9112 §6.3: the length ends the message; bytes behind it close the connection (the response counts)',
        expect: { ok: 8, jq: '.connectionsOpened == 8' },
        onRequest: answer(resp('HTTP/1.1 200 OK', ['Content-Length: 1'], 'ok')),
    },

    // --- chunked -----------------------------------------------------------------
    every('h1-chunk-bad-hex', 'chunk size `zz`', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n', protocol8,
        { rfc: 'RFC 9112 §7.1: chunk-size = 1*HEXDIG' }),
    every('h1-chunk-empty-size', 'an empty chunk-size line', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\nok\r\n0\r\n\r\n', protocol8,
        { rfc: 'RFC 9112 §7.1' }),
    every('h1-chunk-overflow', 'chunk size `1fffffffffffffffff` (beyond 2^64)', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1fffffffffffffffff\r\nok\r\n0\r\n\r\n',
        protocol8, { rfc: 'RFC 9112 §7.1: a recipient must not overflow' }),
    every('h1-chunk-missing-crlf', 'chunk data not followed by CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXY0\r\n\r\n', protocol8,
        { rfc: 'RFC 9112 §7.1' }),
    every('h1-chunk-ext', 'chunk extensions `;a=b;c`', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;a=b;c\r\nok\r\n0;z\r\n\r\n', ok8,
        { rfc: 'RFC 9112 §7.1.1: unknown extensions are ignored' }),
    every('h1-chunk-trailers', 'a trailer section', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n', ok8,
        { rfc: 'RFC 9112 §7.1.2' }),
    every('h1-chunk-uppercase-hex', 'chunk size `A` (upper-case hex)', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n', ok8),
    {
        name: 'h1-chunk-one-byte', proto: 'h1', args: '-n 4 -c 2', expect: { ok: 4 },
        does: 'a 20,000-byte body in one-byte chunks', rfc: 'RFC 9112 §7.1',
        onRequest: (x) => {
            x.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
            x.write('1\r\nx\r\n'.repeat(20000));
            x.write('0\r\n\r\n');
        },
    },
    {
        name: 'h1-chunk-endless-trailers', proto: 'h1', args: '-n 4 -c 2 --timeout 5s', deadline: 15,
        does: 'a last chunk, then 100 MB of trailer lines that never end',
        rfc: 'a response head or trailer section over 1 MiB is refused',
        expect: { errors: { protocol: 4 } },
        onRequest: (x) => {
            x.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n');
            const line = Buffer.from('X-Trailer: ' + 'a'.repeat(4085) + '\r\n');
            x.flood(() => line, 100 * MB);
        },
    },

    // --- Transfer-Encoding -----------------------------------------------------------
    every('h1-te-and-cl', 'both `Transfer-Encoding: chunked` and `Content-Length: 100`',
        'HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', ok8,
        { rfc: 'RFC 9112 §6.3 (3): Transfer-Encoding overrides Content-Length' }),
    every('h1-te-gzip-chunked', '`Transfer-Encoding: gzip, chunked`', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n', ok8,
        { rfc: 'RFC 9112 §6.3 (4): chunked is the final coding' }),
    every('h1-te-uppercase', '`Transfer-Encoding: CHUNKED`', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n2\r\nok\r\n0\r\n\r\n', ok8,
        { rfc: 'RFC 9112 §7: coding names are case-insensitive' }),
    every('h1-te-not-chunked', '`Transfer-Encoding: gzip`, a body, then FIN', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nsome bytes', ok8,
        { then: 'end', rfc: 'RFC 9112 §6.3 (4): the body runs to the close' }),
    every('h1-te-chunked-not-last', '`Transfer-Encoding: chunked, gzip`, then FIN', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n2\r\nok\r\n0\r\n\r\n', ok8,
        { then: 'end', rfc: 'RFC 9112 §6.3 (4): chunked not last: the body runs to the close' }),

    // --- bodies ---------------------------------------------------------------------
    every('h1-eof-body', 'no length: the body runs to FIN', 'HTTP/1.1 200 OK\r\n\r\nhello, world', ok8,
        { then: 'end', rfc: 'RFC 9112 §6.3 (8)' }),
    {
        name: 'h1-eof-body-10mb', proto: 'h1', args: '-n 4 -c 2', expect: { ok: 4 },
        does: 'no length, a 10 MB body, then FIN', rfc: 'RFC 9112 §6.3 (8)',
        onRequest: (x) => {
            x.write('HTTP/1.1 200 OK\r\n\r\n');
            const chunk = Buffer.alloc(64 * 1024, 0x61);
            x.flood(() => chunk, 10 * MB, () => x.end());
        },
    },
    {
        name: 'h1-cl-50mb', proto: 'h1', args: '-n 2 -c 1', expect: { ok: 2 },
        does: 'a 50 MB body with Content-Length', rfc: 'bodies are counted, not kept: memory stays flat',
        onRequest: (x) => {
            x.write(`HTTP/1.1 200 OK\r\nContent-Length: ${50 * MB}\r\n\r\n`);
            const chunk = Buffer.alloc(64 * 1024, 0x62);
            x.flood(() => chunk, 50 * MB);
        },
    },
    every('h1-204-with-length', '`204` with `Content-Length: 5` and no body', resp('HTTP/1.1 204 No Content', ['Content-Length: 5']),
        { ok: 8, status: { 204: 8 } }, { rfc: 'RFC 9112 §6.3 (1): a 204 ends at its header section' }),
    every('h1-304-with-length', '`304` with `Content-Length: 100` and no body', resp('HTTP/1.1 304 Not Modified', ['Content-Length: 100']),
        { ok: 8, status: { 304: 8 } }, { rfc: 'RFC 9112 §6.3 (1)' }),
    {
        name: 'h1-204-with-body', proto: 'h1', args: '-n 8 -c 1',
        does: '`204` followed by 5 body bytes', rfc: 'RFC 9112 §6.3 (1): the bytes after a 204 are not its body; they close the connection',
        expect: { ok: 8, status: { 204: 8 }, jq: '.connectionsOpened == 8' },
        onRequest: answer(resp('HTTP/1.1 204 No Content', ['Content-Length: 5'], 'hello')),
    },
    {
        name: 'h1-head-with-length', proto: 'h1', args: '-n 8 -c 2 -m HEAD', expect: { ok: 8 },
        does: 'HEAD answered with `Content-Length: 1000` and no body', rfc: 'RFC 9112 §6.3 (1): a HEAD response has no body',
        onRequest: answer(resp('HTTP/1.1 200 OK', ['Content-Length: 1000'])),
    },
    {
        name: 'h1-head-with-body', proto: 'h1', args: '-n 8 -c 1 -m HEAD',
        does: 'HEAD answered with a body anyway', rfc: 'RFC 9112 §6.3 (1): the body bytes close the connection',
        expect: { ok: 8, jq: '.connectionsOpened == 8' },
        onRequest: answer(resp('HTTP/1.1 200 OK', ['Content-Length: 2'], 'ok')),
    },

    // --- header sections ------------------------------------------------------------
    {
        name: 'h1-endless-headers', proto: 'h1', args: '-n 4 -c 2', deadline: 15, expect: { errors: { protocol: 4 } },
        does: '100 MB of header lines, never a blank line', rfc: 'a response head over 1 MiB is refused',
        onRequest: (x) => {
            x.write('HTTP/1.1 200 OK\r\n');
            const line = Buffer.from('X-Endless: ' + 'h'.repeat(4085) + '\r\n');
            x.flood(() => line, 100 * MB);
        },
    },
    {
        name: 'h1-huge-reason', proto: 'h1', args: '-n 4 -c 2', deadline: 15, expect: { errors: { protocol: 4 } },
        does: 'a 100 MB reason phrase', rfc: 'a response head over 1 MiB is refused',
        onRequest: (x) => {
            x.write('HTTP/1.1 200 ');
            const chunk = Buffer.alloc(64 * 1024, 0x52);
            x.flood(() => chunk, 100 * MB);
        },
    },
    {
        name: 'h1-10000-headers', proto: 'h1', args: '-n 8 -c 2', expect: { ok: 8 },
        does: '10,000 header lines (about 200 KB)', rfc: 'under the 1 MiB head limit',
        onRequest: (x) => {
            x.write('HTTP/1.1 200 OK\r\n' + Array.from({ length: 10000 }, (_, i) => `X-Header-${i}: value-${i}\r\n`).join('') +
                'Content-Length: 2\r\n\r\nok');
        },
    },
    every('h1-48k-header', 'one 48 KB header line', okWith('Content-Length: 2', 'X-Big: ' + 'b'.repeat(48 * 1024)), ok8),
    every('h1-header-no-colon', 'a header line without a colon', okWith('Content-Length: 2', 'NoColonHere'), ok8,
        { rfc: 'header lines shb does not read are stepped over, not validated (h1.c)' }),
    every('h1-obs-fold', 'an obs-fold continuation line', okWith('X-Folded: a', ' b', 'Content-Length: 2'), ok8,
        { rfc: 'RFC 9112 §5.2: a user agent may replace obs-fold with SP' }),
    every('h1-nul-in-header', 'a NUL byte in a header value', okWith('X-Nul: a\u0000b', 'Content-Length: 2'), ok8,
        { rfc: 'stepped over, not validated' }),
    every('h1-cl-space-before-colon', '`Content-Length : 2` (space before the colon)', okWith('Content-Length : 2'), protocol8,
        { rfc: 'RFC 9112 §5.1: whitespace before the colon must be rejected' }),
    {
        name: 'h1-endless-1xx', proto: 'h1', args: '-n 4 -c 2', deadline: 15, expect: { errors: { protocol: 4 } },
        does: '`100 Continue` interim responses, 100 MB of them', rfc: 'RFC 9110 §15.2: 1xx are skipped; their heads count toward the 1 MiB limit',
        onRequest: (x) => {
            const one = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n'.repeat(1000));
            x.flood(() => one, 100 * MB);
        },
    },
    every('h1-1xx-then-200', '`103 Early Hints` and `100 Continue` before the 200',
        'HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n' + OK, ok8,
        { rfc: 'RFC 9110 §15.2: interim responses precede the final one' }),

    // --- connection management ------------------------------------------------------
    every('h1-connection-close', '`Connection: close` on every response, then FIN', okWith('Connection: close', 'Content-Length: 2'), ok8,
        { then: 'end', rfc: 'RFC 9112 §9.6' }),
    every('h1-connection-close-no-fin', '`Connection: close`, but the server keeps the connection open', okWith('Connection: close', 'Content-Length: 2'), ok8,
        { rfc: 'RFC 9112 §9.6: the client closes; shb does not wait for the server' }),
    every('h1-close-after-response', 'FIN after every response, without saying so', OK, ok8,
        { then: 'end', rfc: 'RFC 9112 §9.3.1: the keep-alive race; retried, not counted' }),
    {
        name: 'h1-answer-before-request', proto: 'h1', args: '-n 8 -c 2', expect: { ok: 8 },
        does: 'the response is written as the connection opens, before the request is read',
        rfc: 'a response that arrives before its request went out is still that request\'s',
        onOpen: (x) => x.write(OK),
        onRequest: (x, n) => { if (n > 1) x.write(OK); },
    },
    {
        name: 'h1-one-byte-writes', proto: 'h1', args: '-n 4 -c 2', expect: { ok: 4 },
        does: 'each response written one byte per 2 ms',
        onRequest: (x) => x.drip(resp('HTTP/1.1 200 OK', ['Transfer-Encoding: chunked', 'X-A: b'], '2\r\nok\r\n0\r\n\r\n'), 2),
    },
    {
        name: 'h1-slowloris', proto: 'h1', args: '-n 4 -c 2 --timeout 500ms', deadline: 10, expect: { errors: { timeout: 4 } },
        does: 'one byte every 100 ms (slower than `--timeout 500ms` allows)', rfc: '`--timeout` bounds the whole response',
        onRequest: (x) => x.drip(OK, 100),
    },
    {
        name: 'h1-silent-then-close', proto: 'h1', args: '-n 4 -c 2', deadline: 10, expect: { errors: { closed: 4 } },
        does: 'reads the request, waits 300 ms, closes without a byte', rfc: 'a fresh connection that closed before any response is an error, not a race',
        onRequest: (x) => x.later(300, () => x.end()),
    },
    {
        name: 'h1-reset-at-once', proto: 'h1', args: '-n 4 -c 2', deadline: 10, expect: { errors: { reset: 4 } },
        does: 'a TCP reset as soon as the request arrives',
        onRequest: (x) => x.reset(),
    },
];
