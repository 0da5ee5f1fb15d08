#!/usr/bin/env bash
# Perl's Redis.pm own test suite (t/*.t of Debian's libredis-perl 2.000 source: commands, pipelining,
# pub/sub, reconnects, Unix socket, tied lists and hashes, scripting, CLIENT commands, fork safety)
# against redis-server or Colossal; bench/results/redis-pm-suite.md has the comparison.
# usage: bench/results/redis-pm-suite.sh redis|ROOT PORT
#   redis: redis-server from PATH; ROOT: the Colossal checkout whose built jar is served.
#   The tests start (and stop) their own servers through t/tlib/Test/SpawnRedisServer.pm, each on a
#   port Net::EmptyPort picks; here every such pick is kept to PORT..PORT+24, and for ROOT the
#   "redis-server" they start is a wrapper that serves the test's redis.conf-style file with Colossal.
#   WORK (default /tmp/redis-pm-suite) holds the source, the wrapper, the data and WORK/out-PORT.txt.
set -u
server=$1; port=$2
work=${WORK:-/tmp/redis-pm-suite}
mkdir -p "$work"
if ! perl -MTest::TCP -MTest::Deep -MTest::Fatal -MTest::SharedFork -MIO::Socket::Timeout -MIO::String -MTry::Tiny -e 1 2>/dev/null; then
  apt-get install -y -q libio-socket-timeout-perl libio-string-perl libtest-deep-perl libtest-fatal-perl \
    libtest-sharedfork-perl libtest-tcp-perl libtry-tiny-perl >/dev/null || { echo "apt-get install failed" >&2; exit 2; }
fi
src=$work/Redis-2.000
if [ ! -d "$src/t" ]; then
  # Debian's source package of libredis-perl: its orig tarball is the CPAN release Redis-2.000
  curl -sfL -o "$work/libredis-perl.orig.tar.gz" \
    "http://deb.debian.org/debian/pool/main/libr/libredis-perl/libredis-perl_2.000.orig.tar.gz" \
    || { echo "could not download libredis-perl's source from deb.debian.org" >&2; exit 2; }
  tar -xzf "$work/libredis-perl.orig.tar.gz" -C "$work"
fi
# The harness gives a server it starts 5 s to answer; a JVM on two busy shared cores has taken 6 s,
# so the copy here waits up to 60 s (for either server: redis-server answers at once).
sed -i 's/reconnect => 5, every => 200/reconnect => 60, every => 200/' "$src/t/tlib/Test/SpawnRedisServer.pm"
grep -q 'reconnect => 60, every => 200' "$src/t/tlib/Test/SpawnRedisServer.pm" \
  || { echo "could not patch SpawnRedisServer.pm's start wait" >&2; exit 2; }
# Loaded before the tests (PERL5OPT): Net::EmptyPort::empty_port answers the next free port of
# PORT..PORT+24 in turn instead of one the kernel picks, so every server the tests start stays in range.
mkdir -p "$work/shim"
cat > "$work/shim/PortRange.pm" <<'PERL'
package PortRange;
use strict; use warnings;
use Net::EmptyPort ();
my ($low, $high) = split /-/, $ENV{PORT_RANGE};
my $next = $low;
no warnings 'redefine';
*Net::EmptyPort::empty_port = sub {
  for (0 .. $high - $low) {
    my $port = $next;
    $next = $next == $high ? $low : $next + 1;
    next if Net::EmptyPort::check_port($port);
    return $port if Net::EmptyPort::can_bind('127.0.0.1', $port);
  }
  die "no free port in $low-$high";
};
1;
PERL
rm -rf "$work/data-$port"; mkdir -p "$work/data-$port"
if [ "$server" = redis ]; then
  spawn=$(command -v redis-server)
else
  # The tests exec REDIS_SERVER_PATH with the path of the redis.conf-style file they wrote (port, bind,
  # timeout, unixsocket, logfile...); Colossal's serve takes such a file as it is, with fresh data.
  export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
  spawn=$work/colossal-$port-as-redis-server
  cat > "$spawn" <<SH
#!/bin/sh
data=\$(mktemp -d "$work/data-$port/XXXXXX")
exec "$JAVA_HOME/bin/java" -cp "$server/colossal-server/target/colossal-server.jar:$server/colossal-server/target/lib/*" \\
  dev.colossal.cli.Main serve --config "\$1" --http-port -1 --data "\$data" >"\$data.log" 2>&1
SH
  chmod +x "$spawn"
fi
out=$work/out-$port.txt
(cd "$src" && PERL5LIB="$work/shim" PERL5OPT=-MPortRange PORT_RANGE="$port-$((port + 24))" \
  REDIS_SERVER_PATH="$spawn" timeout 1200 prove -l -v t/) >"$out" 2>&1
rc=$?
# Counted as prove counts: each top-level test point (a subtest is one point); the failing points of
# subtests are listed under it.
pass=$(grep -c '^ok ' "$out"); fail=$(grep -c '^not ok ' "$out")
skip=$(grep -Ec '^ok .*# [Ss][Kk][Ii][Pp]' "$out"); skipall=$(grep -c 'skipped: ' "$out")
echo "$server: passed $((pass - skip)), failed $fail, skipped $skip (and $skipall files skipped whole), exit $rc ($out)"
awk '/^t\/.*\.t \.+/ { file = $1 } /^ *not ok / { print "  failed: " file ": " $0 } / skipped: / { print "  skipped: " $0 }' "$out"
grep -E '^(Files=|Result:)' "$out"
