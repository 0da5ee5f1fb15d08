package dev.colossal.bench.server;

import dev.colossal.bench.Dirs;
import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * {@code ./colossal bench server}: redis-benchmark against {@code colossal serve} and against
 * redis-server (persistence off, started here on another port) in the same run. Not JMH: the
 * figures are redis-benchmark's own requests/s, parsed from its {@code --csv} output.
 */
public final class ServerSuite implements Suite {

    /** Creates the suite. */
    public ServerSuite() {}

    @Override
    public String name() {
        return "server";
    }

    @Override
    public String description() {
        return "redis-benchmark SET/GET, -c 50, with and without -P 16, 16 B and 1 KiB, and MGET/MSET of 10 random keys"
                + " over 2M: Colossal vs redis-server (requests/s and server CPU per request); 10M keys: memory, SAVE,"
                + " bytes on disk and restart time against redis-server's RDB snapshot";
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        for (String tool : List.of("redis-benchmark", "redis-server", "redis-cli")) {
            if (!onPath(tool)) {
                throw new IOException(tool + " is not installed: apt-get install redis-server redis-tools "
                        + "(./colossal bench server does this when apt-get is available)");
            }
        }
        Path data = Files.createTempDirectory("colossal-bench-server");
        int redisPort = freePort();
        int ourPort = freePort();
        Process redis = redisServer(redisPort, "--save", "", "--appendonly", "no").start();
        Process ours = ourServer(ourPort, data).start();
        List<Row> rows = new ArrayList<>();
        try {
            awaitPort(redisPort, redis);
            awaitPort(ourPort, ours);
            Server o = new Server(ourPort, ours.pid());
            Server p = new Server(redisPort, redis.pid());
            // The same warm-up for both: our JIT needs it (both sizes, pipelined and not: one request
            // per read takes other branches), and redis-server gets the same traffic history.
            for (Server s : List.of(o, p)) {
                for (int size : List.of(16, 1024)) {
                    for (String test : List.of("set", "get")) {
                        measure(s, Load.test(test, size), quick ? 200_000 : 1_000_000, 16);
                        measure(s, Load.test(test, size), quick ? 30_000 : 100_000, 1);
                    }
                }
            }
            // The machine is shared: alternate the servers over several rounds (who goes first
            // alternates too) and keep the median. Three rounds did not decide a 5% question here
            // (one slow round moved a median by 30%): seven do, and every round is listed.
            int rounds = quick ? 3 : 7;
            for (int size : List.of(16, 1024)) {
                for (int pipeline : List.of(1, 16)) {
                    // The issue's -n 1000000 in every cell; unpipelined, that is ~11 s a run (~10 min
                    // for the suite with seven rounds), so --quick runs 50k.
                    int n = quick ? (pipeline == 1 ? 50_000 : 300_000) : 1_000_000;
                    for (String test : List.of("set", "get")) {
                        String name = test.toUpperCase(Locale.ROOT) + " " + (size == 16 ? "16 B" : "1 KiB")
                                + ", -c 50" + (pipeline > 1 ? " -P " + pipeline : "");
                        compare(rows, o, p, name, Load.test(test, size), n, pipeline, rounds);
                    }
                }
            }
            // Ten keys a request over a keyspace larger than the caches: each key is a few cache and
            // TLB misses on both servers, so what counts is how many of them overlap.
            int keys = quick ? 200_000 : 2_000_000;
            for (Server s : List.of(o, p)) {
                measure(s, new Load("fill", List.of("-t", "set", "-r", Integer.toString(keys), "-d", "100")), 3 * keys, 16);
            }
            List<String> mgetArgs = new ArrayList<>(List.of("-r", Integer.toString(keys), "MGET"));
            mgetArgs.addAll(java.util.Collections.nCopies(10, "key:__rand_int__"));
            Load mget = new Load("mget", mgetArgs);
            Load mset = new Load("mset", List.of("-t", "mset", "-r", Integer.toString(keys), "-d", "100"));
            int n = quick ? 100_000 : 400_000;
            for (Server s : List.of(o, p)) {
                measure(s, mget, n / 2, 16);
                measure(s, mset, n / 2, 16);
            }
            String keyspace = " 10 random keys of " + keys / 1000 + "k, 100 B, -c 50 -P 16";
            compare(rows, o, p, "MGET" + keyspace, mget, n, 16, rounds);
            compare(rows, o, p, "MSET" + keyspace, mset, n, 16, rounds);
        } finally {
            for (Process server : List.of(ours, redis)) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
            Dirs.deleteTree(data);
        }
        Path restarts = Files.createTempDirectory("colossal-bench-restart");
        try {
            rows.addAll(new RestartComparison(quick ? 1_000_000 : 10_000_000, quick ? 1 : 3, restarts).run());
        } finally {
            Dirs.deleteTree(restarts);
        }
        return rows;
    }

    /** redis-server on 127.0.0.1:{@code port}, its log discarded, with {@code settings} as flags. */
    static ProcessBuilder redisServer(int port, String... settings) {
        List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1"));
        cmd.addAll(List.of(settings));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }

    /**
     * {@code colossal serve} on {@code port} over {@code data}, HTTP off. It runs in a JVM of its own,
     * as users run it and as redis-server runs: the CPU counted is the server's, not this harness's
     * (its JIT, its process reaper).
     */
    static ProcessBuilder ourServer(int port, Path data) {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main", "serve",
                "--port", Integer.toString(port), "--http-port", "-1", "--data", data.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT);
    }

    /** Starts {@code server} and waits until it listens on {@code port}. */
    static Process started(ProcessBuilder server, int port) throws Exception {
        Process p = server.start();
        awaitPort(port, p);
        return p;
    }

    /** A server under test: its RESP port and the process whose CPU time it spends. */
    private record Server(int port, long pid) {}

    /**
     * What redis-benchmark sends: its arguments besides address, -n, -c, -P and --csv (one test
     * each, so its CSV has one result line).
     */
    record Load(String name, List<String> args) {
        static Load test(String test, int size) {
            return new Load(test, List.of("-t", test, "-d", Integer.toString(size)));
        }
    }

    /**
     * Runs {@code load} on both servers {@code rounds} times, alternating which goes first, and adds
     * the rows of requests/s and server CPU per request.
     */
    private static void compare(List<Row> rows, Server o, Server p, String name, Load load, int n, int pipeline,
                                int rounds) throws Exception {
        String loadAverage = loadAverage();
        List<Measure> om = new ArrayList<>();
        List<Measure> pm = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            if (r % 2 == 0) {
                om.add(measure(o, load, n, pipeline));
                pm.add(measure(p, load, n, pipeline));
            } else {
                pm.add(measure(p, load, n, pipeline));
                om.add(measure(o, load, n, pipeline));
            }
        }
        String command = "redis-benchmark " + String.join(" ", load.args()) + " -n " + n + " -c 50"
                + (pipeline > 1 ? " -P " + pipeline : "");
        rows.add(Row.versus(name, "colossal serve", median(om, Measure::rps, "requests/s"), "redis-server 7",
                median(pm, Measure::rps, "requests/s"), true, 1.0)
                .withNote(command + "; median of " + rounds + ", error = half the range; load " + loadAverage
                        + " at start; " + rounds(om, pm, Measure::rps, true, "k/s", 1e-3)));
        rows.add(Row.versus(name + ", server CPU", "colossal serve", median(om, Measure::cpuMicros, "us/request"),
                "redis-server 7", median(pm, Measure::cpuMicros, "us/request"), false, null)
                .withNote("user+system CPU of the server process per request, from /proc/PID/stat; "
                        + rounds(om, pm, Measure::cpuMicros, false, "us", 1) + "; client (redis-benchmark) "
                        + rounds(om, pm, Measure::clientMicros, false, "us", 1) + "; our JIT/GC threads' CPU"
                        + " per round (ms): " + om.stream().map(m -> String.format(Locale.ROOT, "%.0f/%.0f",
                                m.jitMillis(), m.gcMillis())).collect(java.util.stream.Collectors.joining(", "))));
    }

    /**
     * One redis-benchmark run: its requests/s, the server's and the client's CPU microseconds per
     * request, and the milliseconds of CPU the server's JIT compilers and GC threads took meanwhile
     * (zero for redis-server): a slow round shows whether it was the client, a compilation or a GC.
     */
    record Measure(double rps, double cpuMicros, double clientMicros, double jitMillis, double gcMillis) {}

    private static Jmh.Result median(List<Measure> ms, ToDoubleFunction<Measure> f, String unit) {
        double[] v = ms.stream().mapToDouble(f).sorted().toArray();
        return new Jmh.Result(v[v.length / 2], v.length > 1 ? (v[v.length - 1] - v[0]) / 2 : Double.NaN, unit);
    }

    /**
     * Every round, ours/peer and the ratio of the pair (measured back to back, so a burst of load
     * elsewhere hits both), then the median of those ratios: a check on the median of each column.
     */
    static String rounds(List<Measure> ours, List<Measure> peer, ToDoubleFunction<Measure> f, boolean higherIsBetter,
                         String unit, double scale) {
        StringBuilder sb = new StringBuilder("rounds ours/redis-server (" + unit + "):");
        double[] ratios = new double[ours.size()];
        for (int i = 0; i < ours.size(); i++) {
            double a = f.applyAsDouble(ours.get(i));
            double b = f.applyAsDouble(peer.get(i));
            ratios[i] = higherIsBetter ? a / b : b / a;
            sb.append(String.format(Locale.ROOT, " %.3g/%.3g %.2fx", a * scale, b * scale, ratios[i]))
              .append(i + 1 < ours.size() ? "," : ";");
        }
        java.util.Arrays.sort(ratios);
        return sb.append(String.format(Locale.ROOT, " median round ratio %.2fx", ratios[ratios.length / 2])).toString();
    }

    /** @return the 1-minute load average, or "?" where /proc is not there */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static Measure measure(Server s, Load load, int n, int pipeline) throws Exception {
        long cpu0 = cpuTicks(s.pid());
        long client0 = childrenTicks();
        long jit0 = threadTicks(s.pid(), "C1 ", "C2 ");
        long gc0 = threadTicks(s.pid(), "GC ", "G1 ");
        Double rps = benchmark(s.port(), load, n, pipeline);
        long cpu1 = cpuTicks(s.pid());
        double ms = 1e3 / TICKS_PER_SECOND;
        return new Measure(rps == null ? Double.NaN : rps, perRequest(cpu0, cpu1, n), perRequest(client0, childrenTicks(), n),
                (threadTicks(s.pid(), "C1 ", "C2 ") - jit0) * ms, (threadTicks(s.pid(), "GC ", "G1 ") - gc0) * ms);
    }

    private static double perRequest(long ticks0, long ticks1, int n) {
        return ticks0 < 0 || ticks1 < 0 ? Double.NaN : (ticks1 - ticks0) * 1e6 / TICKS_PER_SECOND / n;
    }

    /** @return the CPU ticks of this JVM's reaped children (redis-benchmark runs), or -1 */
    private static long childrenTicks() {
        long[] f = statFields(Path.of("/proc/self/stat"));
        return f == null ? -1 : f[13] + f[14];
    }

    /** @return the CPU ticks of the threads of {@code pid} whose names start with one of {@code prefixes} */
    private static long threadTicks(long pid, String... prefixes) {
        long sum = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String name = Files.readString(t.resolve("comm"));
                if (Stream.of(prefixes).anyMatch(name::startsWith)) {
                    long[] f = statFields(t.resolve("stat"));
                    sum += f == null ? 0 : f[11] + f[12];
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0; // not Linux, or the server is gone: the figure is only a diagnosis
        }
        return sum;
    }

    /** Linux's USER_HZ: /proc/PID/stat counts CPU time in these ticks. */
    private static final double TICKS_PER_SECOND = 100;

    /** @return utime + stime of a process in clock ticks, or -1 where /proc is not there */
    private static long cpuTicks(long pid) {
        long[] f = statFields(Path.of("/proc", Long.toString(pid), "stat"));
        return f == null ? -1 : f[11] + f[12];
    }

    /**
     * @return the numeric fields of a /proc stat file from the state on (f[11] utime, f[12] stime,
     *     f[13] cutime, f[14] cstime), or null where it cannot be read
     */
    private static long[] statFields(Path stat) {
        try {
            String text = Files.readString(stat);
            // Fields after the command name (which may hold spaces) start after the last ')'.
            String[] f = text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
            long[] v = new long[15];
            for (int i = 1; i < v.length; i++) {
                v[i] = Long.parseLong(f[i]);
            }
            return v;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Runs redis-benchmark once and returns its requests/s, or null if it printed none. */
    static Double benchmark(int port, Load load, int n, int pipeline) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-n", Integer.toString(n), "-c", "50", "-P", Integer.toString(pipeline), "--csv"));
        cmd.addAll(load.args());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("redis-benchmark failed: " + String.join(" ", cmd) + "\n" + out);
        }
        return parseCsv(out).values().stream().findFirst().orElse(null);
    }

    /** Parses redis-benchmark 7's CSV: a header line, then {@code "SET","86956.52",...} per test. */
    static Map<String, Double> parseCsv(String csv) {
        Map<String, Double> rps = new HashMap<>();
        for (String line : csv.split("\\R")) {
            String[] f = line.split(",");
            if (f.length >= 2 && !f[0].equals("\"test\"")) {
                try {
                    rps.put(f[0].replace("\"", ""), Double.parseDouble(f[1].replace("\"", "")));
                } catch (NumberFormatException e) {
                    // not a result line
                }
            }
        }
        return rps;
    }

    private static boolean onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, name))) {
                return true;
            }
        }
        return false;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void awaitPort(int port, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && server.isAlive()) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new IOException(String.join(" ", server.info().commandLine().orElse("server")) + " did not start on port "
                + port + (server.isAlive() ? " within 30 s" : ", exit code " + server.exitValue()));
    }
}
