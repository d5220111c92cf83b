#!/usr/bin/python3
# test/interop/h2_probe.py — a reference HTTP/2 client for the interop
# matrix (python3-h2 over a plain or TLS socket, ALPN h2): makes up to N
# requests for URL one after another on ONE connection and prints one JSON
# line: {"responses": n, "statuses": [...], "goawayAt": the request (1-based)
# that was in flight when the server's GOAWAY came, or the number of
# responses when it came after the last (null: none), "closedAfter":
# responses before the connection ended (null: still open), "bigHeaders": x-hNN headers of
# 1000 bytes in the first response, "headerFrames" and "continuationFrames":
# HEADERS + CONTINUATION frames, and CONTINUATION frames alone, counted off
# the wire until the first response ended}.
#   h2_probe.py URL [N]
import json, socket, ssl, sys, urllib.parse
import h2.config, h2.connection, h2.events, h2.exceptions

url = urllib.parse.urlsplit(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1
port = url.port or (443 if url.scheme == 'https' else 80)
sock = socket.create_connection((url.hostname, port), timeout=10)
if url.scheme == 'https':
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(['h2'])
    sock = ctx.wrap_socket(sock, server_hostname=url.hostname)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding='utf-8'))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
out = {'responses': 0, 'statuses': [], 'goawayAt': None, 'closedAfter': None, 'bigHeaders': None, 'headerFrames': 0, 'continuationFrames': 0}
path = (url.path or '/') + ('?' + url.query if url.query else '')
raw = bytearray()

def count_frames(data):
    # HEADERS (1) and CONTINUATION (9) frames, counted off the wire until the
    # first response has ended.
    global raw
    if out['responses'] > 0:
        return
    raw += data
    while len(raw) >= 9:
        ln = int.from_bytes(raw[0:3], 'big')
        if len(raw) < 9 + ln:
            break
        if raw[3] in (1, 9):
            out['headerFrames'] += 1
        if raw[3] == 9:
            out['continuationFrames'] += 1
        del raw[:9 + ln]

class EndedAfterGoaway:
    def __init__(self, sid):
        self.stream_id = sid

wire = bytearray()
gone = [False]

def feed(data):
    # One frame at a time into h2: python3-h2 4.1 takes a GOAWAY as the end
    # of the connection and raises on the frames that follow it, even for
    # streams at or below its last-stream-id, which RFC 9113 6.8 lets the
    # server finish. After a GOAWAY the frames are read here instead: an
    # END_STREAM flag on HEADERS or DATA ends that stream's response.
    global wire
    wire += data
    evs = []
    while len(wire) >= 9:
        ln = int.from_bytes(wire[0:3], 'big')
        if len(wire) < 9 + ln:
            break
        frame = bytes(wire[:9 + ln])
        del wire[:9 + ln]
        if gone[0]:
            if frame[3] in (0, 1) and frame[4] & 1:
                evs.append(EndedAfterGoaway(int.from_bytes(frame[5:9], 'big') & 0x7fffffff))
            continue
        try:
            got = conn.receive_data(frame)
        except h2.exceptions.ProtocolError:
            gone[0] = True
            continue
        for ev in got:
            evs.append(ev)
            if isinstance(ev, h2.events.ConnectionTerminated):
                gone[0] = True
    return evs

for i in range(n):
    if out['goawayAt'] is not None or out['closedAfter'] is not None:
        break
    sid = conn.get_next_available_stream_id()
    conn.send_headers(sid, [(':method', 'GET'), (':scheme', url.scheme), (':authority', url.netloc), (':path', path)], end_stream=True)
    sock.sendall(conn.data_to_send())
    done = False
    while not done:
        try:
            data = sock.recv(65536)
        except (ConnectionError, ssl.SSLError, socket.timeout):
            data = b''
        if not data:
            out['closedAfter'] = out['responses']
            break
        count_frames(data)
        for ev in feed(data):
            if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                hs = dict(ev.headers)
                out['statuses'].append(hs.get(':status'))
                if out['bigHeaders'] is None:
                    out['bigHeaders'] = sum(1 for k, v in ev.headers if len(k) == 5 and k.startswith('x-h') and len(v) == 1000)
            elif isinstance(ev, (h2.events.StreamEnded, EndedAfterGoaway)) and ev.stream_id == sid:
                out['responses'] += 1
                done = True
            elif isinstance(ev, h2.events.StreamReset) and ev.stream_id == sid:
                done = True
            elif isinstance(ev, h2.events.ConnectionTerminated):
                if out['goawayAt'] is None:
                    out['goawayAt'] = i + 1
                gone[0] = True
        pending = conn.data_to_send()
        if pending:
            try:
                sock.sendall(pending)
            except (ConnectionError, ssl.SSLError):
                pass
# A GOAWAY that trails the last response: wait for it briefly.
if n > 1 and out['goawayAt'] is None and out['closedAfter'] is None:
    sock.settimeout(0.5)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                out['closedAfter'] = out['responses']
                break
            for ev in feed(data):
                if isinstance(ev, h2.events.ConnectionTerminated):
                    out['goawayAt'] = out['responses']
            if out['goawayAt'] is not None:
                break
    except (socket.timeout, ConnectionError, ssl.SSLError):
        pass
print(json.dumps(out))
