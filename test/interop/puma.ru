# test/interop/puma.ru - the interop matrix's Rack application for Puma
# (Puma's own HTTP/1.1 parser): / 200 "ok\n"; /h48 the same with 48 headers
# x-h01..x-h48 of 1000 bytes; /c5 "Connection: close" on a connection's 5th
# request to /c5 (the connection is told apart by its socket, puma.socket).
# ASCII only: rackup reads this file in the locale's encoding, US-ASCII where
# no locale is set (a fresh Debian root), and any other byte stops Puma.
BIG = (1..48).map { |i| ['x-h%02d' % i, 'a' * 1000] }.to_h
COUNTS = {}
LOCK = Mutex.new
run lambda { |env|
  h = { 'content-type' => 'text/plain' }
  case env['PATH_INFO']
  when '/h48'
    h.merge!(BIG)
  when '/c5'
    k = env['puma.socket'] ? env['puma.socket'].object_id : env['REMOTE_ADDR']
    n = LOCK.synchronize { COUNTS[k] = (COUNTS[k] || 0) + 1 }
    h['connection'] = 'close' if n == 5
  end
  [200, h, ["ok\n"]]
}
