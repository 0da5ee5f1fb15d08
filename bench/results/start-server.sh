# Sourced by the client-trial scripts here: start_server redis|ROOT PORT DATA [FLAG...] starts
# redis-server (its defaults, no persistence) or the Colossal build of checkout ROOT on PORT with fresh
# data in DATA, waits until it answers PING, and sets $pid. FLAGs go to either server as they are: use
# those both take under one name (--unixsocket PATH, --enable-debug-command local, ...).
start_server() {
  local server=$1 port=$2 data=$3
  shift 3
  rm -rf "$data"; mkdir -p "$data"
  if [ "$server" = redis ]; then
    redis-server --port "$port" --save "" --appendonly no --bind 127.0.0.1 --dir "$data" "$@" >"$data.log" 2>&1 & pid=$!
  else
    export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}; export PATH=$JAVA_HOME/bin:$PATH
    java -cp "$server/colossal-server/target/colossal-server.jar:$server/colossal-server/target/lib/*" \
      dev.colossal.cli.Main serve --port "$port" --http-port -1 --data "$data" "$@" >"$data.log" 2>&1 & pid=$!
  fi
  for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "the server on port $port did not answer PING in 20 s (log: $data.log)" >&2
  return 1
}

# serve NAME redis|ROOT [FLAG...]: start_server on $port with its data in $work/NAME (and the FLAGs),
# the pid, port and name appended to PIDS, PORTS and NAMES (which the caller declares, with a trap
# that kills PIDS), and $port moved on by one: for scripts that run several servers side by side.
serve() {
  start_server "$2" "$port" "$work/$1" "${@:3}" || return 1
  PIDS+=("$pid"); PORTS+=("$port"); NAMES+=("$1"); port=$((port + 1))
}

# rounds HEADER: with n servers and a `run K TEST` that prints server K's figure for TEST, runs every
# test twice unmeasured on all servers but the last (redis-server, which has no JIT to warm), prints
# HEADER, then ROUNDS rounds of every test in TESTS on every server, the servers' order rotating
# from round to round, a line a test: "round test figure...".
rounds() {
  local k t j round line
  for ((k = 0; k < n - 1; k++)); do for t in "${TESTS[@]}"; do run "$k" "$t" >/dev/null; run "$k" "$t" >/dev/null; done; done
  echo "$1"
  for ((round = 1; round <= ROUNDS; round++)); do
    for t in "${TESTS[@]}"; do
      declare -A got=()
      for ((j = 0; j < n; j++)); do k=$(((j + round - 1) % n)); got[$k]=$(run "$k" "$t"); done
      line="$round $t"; for ((k = 0; k < n; k++)); do line+=" ${got[$k]}"; done; echo "$line"
    done
  done
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
