#!/usr/bin/env bash
# redis-rs's own test suite (the `redis` crate's tests/, sync and tokio, with the connection manager
# and the client-side cache) against redis-server and against Colossal; bench/results/redis-rs-suite.md
# has the comparison. The crate's tests start a fresh `redis-server` per test themselves (random ports,
# unix sockets, TLS with certificates they make); for Colossal a shim named redis-server, first on PATH,
# starts Colossal with the same port / unix socket / TLS options instead.
# usage: bench/results/redis-rs-suite.sh build             downloads the crates, builds the tests
#        [PROTOCOL=RESP3] bench/results/redis-rs-suite.sh redis|ROOT [tcp|unix|tcp+tls] [test filter...]
#          redis: the redis-server on PATH; ROOT: the Colossal checkout whose built jar is served.
#        bench/results/redis-rs-suite.sh compare A.txt B.txt
#   WORK (default /tmp/redis-rs-suite) holds the crates, the build and the results; nothing is written
#   to the repository. Builds use 2 jobs.
set -u
work=${WORK:-/tmp/redis-rs-suite}
version=1.8.1        # the newest redis release (its MSRV is 1.88)
test_version=1.0.4   # redis-test, the crate's test-server helper, published apart
features="tokio-comp connection-manager cache-aio tokio-rustls-comp tls-rustls-insecure cluster-async"
# Not built (so not run): the cluster, sentinel and module (RedisJSON, bloom, search) suites, which need
# deployments neither server has here, and test_tls_cert_auth (a cluster too). cluster-async is on only
# because the tests' TLS helpers need the cluster (and cluster + cache-aio alone does not build), and
# tls-rustls-insecure because their TLS clients trust any certificate unless mTLS is on.
all="--test test_basic --test test_async --test test_acl --test test_auth --test test_bignum --test test_cache
  --test test_geospatial --test test_script --test test_streams --test test_types --test test_hotkeys
  --test test_digest_utils --test test_credentials_provider_failures --test parser --test test_support"
tests=${TESTS:-$all}

build() {
  mkdir -p "$work/ws" && cd "$work/ws" || exit 1
  if [ ! -d redis ]; then
    curl -sfL -o redis.crate "https://static.crates.io/crates/redis/redis-$version.crate" &&
      tar xzf redis.crate && mv "redis-$version" redis || exit 1
    curl -sfL -o redis-test.crate "https://static.crates.io/crates/redis-test/redis-test-$test_version.crate" &&
      tar xzf redis-test.crate && mv "redis-test-$test_version" redis-test || exit 1
    # The published crate drops its two path dev-dependencies: redis-test (published apart, put back
    # here) and test-macros (never published: its one attribute, #[async_test], is rewritten below).
    sed -i 's/^\[dev-dependencies.anyhow\]/[dev-dependencies.redis-test]\npath = "..\/redis-test"\n\n[dev-dependencies.test-macros]\npath = "..\/test-macros"\n\n&/' redis/Cargo.toml
    cp redis/Cargo.lock Cargo.lock
    printf '[workspace]\nmembers = ["redis", "redis-test", "test-macros"]\nresolver = "2"\n\n[patch.crates-io]\nredis = { path = "redis" }\n' > Cargo.toml
    mkdir -p test-macros/src
    printf '[package]\nname = "test-macros"\nversion = "0.1.0"\nedition = "2024"\n\n[lib]\nproc-macro = true\n\n[dependencies]\nquote = "1"\nproc-macro2 = "1"\nsyn = { version = "2", features = ["full"] }\n' > test-macros/Cargo.toml
    cat > test-macros/src/lib.rs <<'RS'
//! #[async_test] as the redis crate's tests use it: the async fn stays, and an rstest test per runtime
//! calls it - with no argument, with a bool (true and false), or with a connection (a multiplexed
//! connection and a connection manager, each from a fresh TestContext).
use proc_macro::TokenStream;
use quote::{format_ident, quote};

#[proc_macro_attribute]
pub fn async_test(_: TokenStream, input: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(input as syn::ItemFn);
    let name = item.sig.ident.clone();
    let cases = quote! {
        #[rstest::rstest]
        #[cfg_attr(feature = "tokio-comp", case::tokio(RuntimeType::Tokio))]
        #[cfg_attr(feature = "smol-comp", case::smol(RuntimeType::Smol))]
    };
    let arg = match item.sig.inputs.first() {
        None => None,
        Some(syn::FnArg::Typed(t)) => Some(quote!(#t).to_string()),
        Some(other) => return syn::Error::new_spanned(other, "self argument").to_compile_error().into(),
    };
    let out = match arg {
        None => {
            let test = format_ident!("test_{}", name);
            quote! { #item #cases fn #test(#[case] runtime: RuntimeType) { block_on_all(#name(), runtime); } }
        }
        Some(a) if a.ends_with(": bool") => {
            let test = format_ident!("test_{}", name);
            quote! { #item #cases fn #test(#[case] runtime: RuntimeType, #[values(true, false)] arg: bool) {
                block_on_all(#name(arg), runtime); } }
        }
        Some(_) => {
            let mux = format_ident!("test_multiplexed_connection_{}", name);
            let mgr = format_ident!("test_connection_manager_{}", name);
            quote! {
                #item
                #cases fn #mux(#[case] runtime: RuntimeType) {
                    let ctx = TestContext::new();
                    block_on_all(async move { #name(ctx.async_connection().await.unwrap()).await }, runtime);
                }
                #cases #[cfg(feature = "connection-manager")] fn #mgr(#[case] runtime: RuntimeType) {
                    let ctx = TestContext::new();
                    block_on_all(async move { #name(ctx.client.get_connection_manager().await.unwrap()).await }, runtime);
                }
            }
        }
    };
    out.into()
}
RS
  fi
  CARGO_TARGET_DIR="$work/target" cargo test -j 2 -p redis --features "$features" $all --no-run
}

# The shim: redis-server's options as the tests give them, mapped onto Colossal's serve. A test kills
# its server with SIGKILL, so the shim execs the JVM and keeps the data next to the log, in the test's
# own temporary directory, which the test removes.
shim() {
  # a copy of the jar: a build in the checkout (its CI) while the suite runs would swap it under the tests
  rm -rf "$work/shim" && mkdir -p "$work/shim/lib" || exit 1
  cp "$1/colossal-server/target/colossal-server.jar" "$work/shim/" && cp "$1"/colossal-server/target/lib/* "$work/shim/lib/" || exit 1
  cat > "$work/shim/redis-server" <<SH
#!/usr/bin/env bash
root='$work/shim'
SH
  cat >> "$work/shim/redis-server" <<'SH'
case "${1:-}" in -v|--version) exec /usr/bin/redis-server "$@" ;; esac
args=(--http-port -1) log=/dev/null
while [ $# -gt 0 ]; do
  case "$1" in
    --port|--bind|--tls-port|--tls-cert-file|--tls-key-file|--tls-ca-cert-file|--tls-auth-clients|--unixsocket)
      args+=("$1" "$2"); shift 2 ;;
    --logfile) log=$2; shift 2 ;;
    --save|--enable-debug-command) shift 2 ;;   # Colossal keeps no RDB snapshots; DEBUG stays refused
    *) echo "redis-server shim: $1 is not mapped onto Colossal" >&2; exit 1 ;;
  esac
done
data=$(dirname "$log")/colossal-data
[ "$log" = /dev/null ] && data=$(mktemp -d)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
# C1 only and the serial collector: the JVM a test starts is up sooner
exec "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
  -cp "$root/colossal-server.jar:$root/lib/*" dev.colossal.cli.Main \
  serve "${args[@]}" --data "$data" >> "$log" 2>&1
SH
  chmod +x "$work/shim/redis-server"
}

# Counts from each test binary's `test result:` line, failures from its closing `failures:` list (the
# TLS tests' openssl output breaks the `test NAME ... ok` lines apart).
compare() {
  python3 - "$1" "$2" <<'PY'
import sys, re
def load(p):
    text = open(p, errors='replace').read()
    counts = [0, 0, 0]
    for m in re.finditer(r'test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored', text):
        for i in range(3): counts[i] += int(m.group(i + 1))
    failed = set()
    for binary in re.split(r'\n\s+Running ', text)[1:]:
        name = re.match(r'(?:tests/)?(\S+?)(?:\.rs)? ', binary).group(1)
        for block in re.findall(r'\nfailures:\n((?:    \S+\n)+)', binary):
            failed |= {name + '::' + t.strip() for t in block.splitlines()}
    return counts, failed
(ca, fa), (cb, fb) = load(sys.argv[1]), load(sys.argv[2])
for name, c in ((sys.argv[1], ca), (sys.argv[2], cb)):
    print(name, 'passed %d failed %d ignored %d' % tuple(c))
for k in sorted(fb - fa): print('failed in the second only:', k)
for k in sorted(fa - fb): print('failed in the first only:', k)
for k in sorted(fa & fb): print('failed in both:', k)
PY
}

case "$1" in
  build) build; exit $? ;;
  compare) compare "$2" "$3"; exit 0 ;;
esac
server=$1; type=${2:-tcp}; shift; [ $# -gt 0 ] && shift
build > "$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
if [ "$server" = redis ]; then
  name=redis-$type path=$PATH
else
  shim "$server"; name=colossal-$type path=$work/shim:$PATH
fi
# One test at a time: each starts its own server, and the tests' block_on_all notes a panic in a spawned
# task in one static flag, so two tests at once can fail each other. `--skip cluster` leaves out the
# cluster tests test_cache and test_hotkeys carry (they start a cluster of servers from a config file).
# PROTOCOL=RESP3 in the environment runs the tests over RESP3 (RESP2 by default); TESTS="--test X ..."
# runs some of the test binaries only (the build still builds all).
name=$name-${PROTOCOL:-RESP2}
(cd "$work/ws" && PATH=$path REDISRS_SERVER_TYPE=$type CARGO_TARGET_DIR="$work/target" \
  cargo test -j 2 -p redis --features "$features" $tests --no-fail-fast -- --test-threads 1 --skip cluster "$@") \
  > "$work/$name.txt" 2>&1
grep -E '^test result' "$work/$name.txt" | awk '{p+=$4; f+=$6; s+=$8} END {print "passed", p, "failed", f, "ignored", s}'
echo "results: $work/$name.txt"
