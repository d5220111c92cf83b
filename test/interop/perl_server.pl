#!/usr/bin/perl
# test/interop/perl_server.pl — the interop matrix's server on Perl's
# HTTP::Daemon (libhttp-daemon-perl: its own HTTP/1.1), one process per
# connection (HTTP::Daemon serves one connection at a time).
#
#   perl perl_server.pl PORT LOGFILE
#
# Routes: / 200 "ok\n"; /h48 the same with 48 headers x-h01..x-h48 of 1000
# bytes; /c5 the 5th request to /c5 on a connection gets "Connection:
# close" and the connection ends. Prints "listening" once ready.
use strict;
use warnings;
use HTTP::Daemon;
use HTTP::Response;
my ($port) = @ARGV;
my $d = HTTP::Daemon->new(LocalAddr => '127.0.0.1', LocalPort => $port, ReuseAddr => 1, Listen => 128)
    or die "listen: $!";
$| = 1;
print "listening\n";
$SIG{CHLD} = 'IGNORE';
$SIG{TERM} = sub { exit 0 };
my $big = 'a' x 1000;
while (my $c = $d->accept) {
    my $pid = fork();
    if (defined $pid && $pid == 0) {
        $SIG{TERM} = 'DEFAULT';
        my $n = 0;
        $c->timeout(300);
        while (my $r = $c->get_request) {
            my $res = HTTP::Response->new(200, 'OK');
            $res->header('Content-Type' => 'text/plain');
            $res->content("ok\n");
            my $close = 0;
            if ($r->uri->path eq '/h48') {
                $res->header(sprintf('x-h%02d', $_) => $big) for 1 .. 48;
            } elsif ($r->uri->path eq '/c5' && ++$n == 5) {
                $res->header('Connection' => 'close');
                $c->force_last_request;
                $close = 1;
            }
            $c->send_response($res);
            last if $close;
        }
        $c->close;
        exit 0;
    }
    $c->close;
}
