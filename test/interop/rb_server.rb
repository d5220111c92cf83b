# test/interop/rb_server.rb — the interop matrix's WEBrick server (Ruby's
# own HTTP/1.1; OpenSSL through Ruby's openssl for TLS).
#
#   ruby rb_server.rb PORT LOGFILE [CERT KEY]
#
# Routes: / 200 "ok\n"; /h48 the same with 48 headers x-h01..x-h48 of 1000
# bytes; /c5 the 5th request to /c5 on a connection is answered with
# "Connection: close" and ends the connection. Prints "listening" once
# ready. LOGFILE is not written.
require 'webrick'
require 'logger'
port, _log, cert, key = ARGV
opts = { BindAddress: '127.0.0.1', Port: port.to_i, Logger: WEBrick::Log.new(File::NULL),
         AccessLog: [], KeepAliveTimeout: 300, RequestTimeout: 300, MaxClients: 200,
         StartCallback: -> { $stdout.puts 'listening'; $stdout.flush } }
if cert
  require 'webrick/https'
  require 'openssl'
  opts[:SSLEnable] = true
  opts[:SSLCertificate] = OpenSSL::X509::Certificate.new(File.read(cert))
  opts[:SSLPrivateKey] = OpenSSL::PKey.read(File.read(key))
  opts[:SSLStartImmediately] = true
end
big = 'a' * 1000
counts = {}
lock = Mutex.new
srv = WEBrick::HTTPServer.new(opts)
srv.mount_proc('/') do |req, res|
  res['Content-Type'] = 'text/plain'
  res.body = "ok\n"
  case req.path
  when '/h48'
    (1..48).each { |i| res['x-h%02d' % i] = big }
  when '/c5'
    k = req.peeraddr[1]
    n = lock.synchronize { counts[k] = (counts[k] || 0) + 1 }
    res.keep_alive = false if n == 5
  end
end
trap('TERM') { srv.shutdown }
srv.start
