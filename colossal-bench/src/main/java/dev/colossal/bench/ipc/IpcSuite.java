package dev.colossal.bench.ipc;

import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./colossal bench ipc}: ping-pong round trip of two Java processes against two C
 * processes (the C program is compiled here with the machine's gcc), and ring throughput of
 * Colossal against Agrona for 32, 64 and 256-byte messages.
 */
public final class IpcSuite implements Suite {

    private static final Pattern MEAN = Pattern.compile("mean=([0-9.]+)ns p50=([0-9]+)ns p90=[0-9]+ns p99=([0-9]+)ns");

    /** Creates the suite. */
    public IpcSuite() {}

    @Override
    public String name() {
        return "ipc";
    }

    @Override
    public String description() {
        return "Shared-memory IPC: ping-pong RTT Java vs C; SPSC/MPSC ring throughput vs Agrona.";
    }

    @Override
    public List<String> jvmFlags() {
        // Agrona 2.x reaches memory through jdk.internal.misc.Unsafe (its UnsafeApi); without this
        // flag UnsafeBuffer fails with IllegalAccessError. Ours needs no flag.
        return List.of("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED");
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        // The machine is shared: everything here is measured while holding /tmp/jmh.lock, as JMH runs are.
        try (var file = java.nio.channels.FileChannel.open(Path.of("/tmp/jmh.lock"), java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE); var lock = jmhLock(file)) {
            List<Row> rows = new ArrayList<>(pingPong(quick));
            rows.addAll(latency(quick));
            rows.addAll(rings(quick));
            return rows;
        }
    }

    private static final Pattern RESULT = Pattern.compile("RESULT undisturbed=([0-9]+) windows=([0-9]+) median=([0-9.NaN]+) all=([0-9.NaN]+)");

    /**
     * Throughput as several rounds of every cell, ours and Agrona's in alternating order, each a
     * {@link RingProbeMain} process with the two threads pinned to their own CPUs ({@link Pinning}).
     * A round is 100 ms windows after a second of warm-up; only windows in which neither thread
     * waited for its CPU count (another process on a CPU made a window up to 2x slower, and on a
     * shared 2-CPU machine most rounds had one). Each row gives the median of the rounds' medians
     * and, in its note, every round and how many of its windows were undisturbed.
     */
    private List<Row> rings(boolean quick) throws Exception {
        int rounds = 3;
        int seconds = quick ? 1 : 3;
        Map<String, List<double[]>> runs = new java.util.HashMap<>();
        String before = loadAverage();
        for (int round = 0; round < rounds; round++) {
            for (String kind : List.of("spsc", "mpsc")) {
                for (String size : List.of("32", "64", "256")) {
                    List<String> order = round % 2 == 0 ? List.of("colossal-", "agrona-") : List.of("agrona-", "colossal-");
                    for (String lib : order) {
                        runs.computeIfAbsent(lib + kind + "/" + size, k -> new ArrayList<>()).add(probe(lib + kind, size, seconds));
                    }
                }
            }
        }
        String setup = rounds + " alternating rounds of " + seconds + " s, 100 ms windows in which neither thread waited"
                + " for its CPU; median of the rounds' medians, error = half their spread; producer and consumer in two"
                + " processes, one /dev/shm file, 64 KiB ring; " + Pinning.describe() + "; load average " + before
                + " before, " + loadAverage() + " after";
        List<Row> rows = new ArrayList<>();
        for (String kind : List.of("spsc", "mpsc")) {
            for (String size : List.of("32", "64", "256")) {
                List<double[]> ours = runs.get("colossal-" + kind + "/" + size);
                List<double[]> peer = runs.get("agrona-" + kind + "/" + size);
                String peerName = kind.equals("spsc") ? "Agrona OneToOneRingBuffer" : "Agrona ManyToOneRingBuffer";
                // Like with like: undisturbed windows on both sides, or every window on both.
                boolean clean = ours.stream().anyMatch(r -> r[0] > 0) && peer.stream().anyMatch(r -> r[0] > 0);
                rows.add(Row.versus(kind.toUpperCase() + " throughput, " + size + "-byte messages",
                        "MessageRing." + (kind.equals("spsc") ? "oneToOne" : "manyToOne"), rate(ours, clean), peerName,
                        rate(peer, clean), true, 1.0)
                        .withNote((clean ? "" : "DISTURBED: one side had no undisturbed window, all windows compared; ")
                                + "rounds (M msg/s, undisturbed windows) ours " + describe(ours) + ", Agrona " + describe(peer)
                                + "; " + setup));
            }
        }
        List<double[]> spsc64 = runs.get("colossal-spsc/64");
        rows.add(Row.absolute("SPSC throughput, 64-byte messages (absolute)", "MessageRing.oneToOne",
                rate(spsc64, spsc64.stream().anyMatch(r -> r[0] > 0)), true, 20e6)
                .withNote("rounds " + describe(spsc64) + "; " + setup));
        return rows;
    }

    /** One round: {undisturbed windows, windows, their median, every window's median}, in msg/s. */
    private double[] probe(String ring, String size, int seconds) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmFlags());
        command.addAll(List.of("-cp", jar(), RingProbeMain.class.getName(), ring, size, String.valueOf(seconds), "100"));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = finish(p);
        Matcher m = RESULT.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("unexpected ring probe output: " + out);
        }
        return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
                Double.parseDouble(m.group(3)) * 1e6, Double.parseDouble(m.group(4)) * 1e6};
    }

    /** The median of the rounds' medians: of their undisturbed windows if {@code clean}, else of all. */
    private static Jmh.Result rate(List<double[]> rounds, boolean clean) {
        List<Double> medians = clean ? rounds.stream().filter(r -> r[0] > 0).map(r -> r[2]).toList()
                : rounds.stream().map(r -> r[3]).toList();
        return median(medians.isEmpty() ? rounds.stream().map(r -> r[3]).toList() : medians, "ops/s");
    }

    private static String describe(List<double[]> rounds) {
        return rounds.stream().map(r -> String.format(java.util.Locale.ROOT, "%.1f (%d/%d)",
                (r[0] > 0 ? r[2] : r[3]) / 1e6, (int) r[0], (int) r[1])).collect(java.util.stream.Collectors.joining(" / "));
    }

    /** The median of the runs, with half their spread as the error. */
    private static Jmh.Result median(List<Double> runs, String unit) {
        double[] v = runs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        return new Jmh.Result(median, (v[v.length - 1] - v[0]) / 2, unit);
    }

    /** The 1, 5 and 15-minute load averages: the reader must know how busy the machine was. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static final Pattern PERCENTILES = Pattern.compile(
            "p50=([0-9]+)ns p99=([0-9]+)ns .* clean=([0-9]+)/([0-9]+) cp50=(-?[0-9]+)ns cp99=(-?[0-9]+)ns .* waited=([0-9]+)us");

    /** Runs with fewer undisturbed windows (of {@link Windows#WINDOW_MS} ms) than this are not a clean p99. */
    private static final int CLEAN_WINDOWS = 10;

    /**
     * One-way latency at a fixed rate, 64-byte messages, producer and consumer in two processes,
     * several runs per side in alternating order. A run's percentiles come from its windows in
     * which the consumer kept its CPU ({@link Windows}) when every run of both sides has enough of
     * them, else from all its messages on both sides (the row says DISTURBED); the row gives the
     * median of the runs and the note every run.
     */
    private List<Row> latency(boolean quick) throws Exception {
        int rate = 100_000;
        int count = quick ? 200_000 : 500_000;
        int rounds = quick ? 3 : 7;
        List<Row> rows = new ArrayList<>();
        for (String kind : List.of("spsc", "mpsc")) {
            String before = loadAverage();
            List<double[]> ours = new ArrayList<>();
            List<double[]> peer = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                boolean oursFirst = round % 2 == 0;
                (oursFirst ? ours : peer).add(latencyRun((oursFirst ? "colossal-" : "agrona-") + kind, count, rate));
                (oursFirst ? peer : ours).add(latencyRun((oursFirst ? "agrona-" : "colossal-") + kind, count, rate));
            }
            // Like with like: a majority of each side's runs with undisturbed windows, or every message on both.
            boolean clean = undisturbed(ours).size() > rounds / 2 && undisturbed(peer).size() > rounds / 2;
            String setup = "two processes, " + count + " messages after " + LatencyMain.WARMUP + " warm-up ones sent back to back,"
                    + " a late send restarts the schedule; median of " + rounds + " alternating runs, error = half the spread; "
                    + (clean ? "runs with at least " + CLEAN_WINDOWS + " undisturbed windows, their messages in the "
                            + Windows.WINDOW_MS + " ms windows in which the consumer waited < 0.1% for its CPU"
                            : "DISTURBED: most runs of one side had fewer than " + CLEAN_WINDOWS + " windows in which the consumer kept"
                                    + " its CPU, so all runs and all messages on both sides")
                    + "; runs as p50/p99 ns (undisturbed windows/windows, consumer's wait for a CPU in ms, p99 of all messages in us)"
                    + " ours " + describeLatency(ours, clean) + "; Agrona " + describeLatency(peer, clean) + "; "
                    + Pinning.describe() + "; load average " + before + " before, " + loadAverage() + " after";
            String peerName = kind.equals("spsc") ? "Agrona OneToOneRingBuffer" : "Agrona ManyToOneRingBuffer";
            String[] names = {"p50", "p99"};
            for (int k = 0; k < 2; k++) {
                int at = clean ? 4 + k : k;
                rows.add(Row.versus(kind.toUpperCase() + " one-way latency at " + rate / 1000 + "k msg/s, 64 B, " + names[k],
                        "MessageRing." + (kind.equals("spsc") ? "oneToOne" : "manyToOne"),
                        median((clean ? undisturbed(ours) : ours).stream().map(r -> r[at]).toList(), "ns"), peerName,
                        median((clean ? undisturbed(peer) : peer).stream().map(r -> r[at]).toList(), "ns"), false, 1.0)
                        .withNote(setup));
            }
        }
        return rows;
    }

    private static List<double[]> undisturbed(List<double[]> runs) {
        return runs.stream().filter(r -> r[2] >= CLEAN_WINDOWS).toList();
    }

    private static String describeLatency(List<double[]> runs, boolean clean) {
        return runs.stream().map(r -> (clean && r[2] < CLEAN_WINDOWS ? "-/-"
                : String.format(java.util.Locale.ROOT, "%.0f/%.0f", r[clean ? 4 : 0], r[clean ? 5 : 1]))
                + String.format(java.util.Locale.ROOT, " (%.0f/%.0f, %.1f, %.1f)", r[2], r[3], r[6] / 1000, r[1] / 1000))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private double[] latencyRun(String ring, int count, int rate) throws Exception {
        Path region = Path.of("/dev/shm", "colossal-bench-latency-" + ProcessHandle.current().pid());
        Files.deleteIfExists(region);
        try {
            List<String> java = new ArrayList<>();
            java.add(ProcessHandle.current().info().command().orElse("java"));
            java.addAll(jvmFlags());
            java.addAll(List.of("-cp", jar(), LatencyMain.class.getName()));
            List<String> tail = List.of(ring, "64", region.toString(), String.valueOf(count), String.valueOf(rate));
            List<String> consume = new ArrayList<>(java);
            consume.add("consume");
            consume.addAll(tail);
            Process consumer = new ProcessBuilder(consume).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            var out = new java.io.BufferedReader(new java.io.InputStreamReader(consumer.getInputStream(), StandardCharsets.UTF_8));
            if (!"READY".equals(out.readLine())) {
                throw new IllegalStateException("latency consumer did not start");
            }
            List<String> produce = new ArrayList<>(java);
            produce.add("produce");
            produce.addAll(tail);
            Process producer = new ProcessBuilder(produce).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            finish(producer);
            String line = out.readLine();
            finish(consumer);
            Matcher m = PERCENTILES.matcher(String.valueOf(line));
            if (!m.find()) {
                throw new IllegalStateException("unexpected latency output: " + line);
            }
            double[] run = new double[7];
            for (int i = 0; i < run.length; i++) {
                run[i] = Double.parseDouble(m.group(i + 1));
            }
            return run;
        } finally {
            Files.deleteIfExists(region);
        }
    }

    private static String jar() throws Exception {
        return Path.of(IpcSuite.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** Takes /tmp/jmh.lock, waiting while another run holds it. */
    private static java.nio.channels.FileLock jmhLock(java.nio.channels.FileChannel file) throws Exception {
        for (boolean told = false; ; told = true) {
            java.nio.channels.FileLock lock = file.tryLock();
            if (lock != null) {
                return lock;
            }
            if (!told) {
                System.err.println("ipc: another JMH run holds /tmp/jmh.lock; waiting...");
            }
            Thread.sleep(2_000);
        }
    }

    private List<Row> pingPong(boolean quick) throws Exception {
        Path binary = compileC();
        int rounds = quick ? 1_000_000 : 2_000_000;
        int repeats = quick ? 3 : 6;
        List<double[]> java = new ArrayList<>();
        List<double[]> c = new ArrayList<>();
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        String jar = jar();
        // Alternate the pairs so that both see the same background load.
        List<String> cCommand = List.of(binary.toString());
        List<String> javaCommand = List.of(javaBin, "-cp", jar, PingPongMain.class.getName());
        for (int i = 0; i < repeats; i++) {
            c.add(pair(cCommand, cCommand, rounds));
            java.add(pair(javaCommand, javaCommand, rounds));
        }
        double[] mixed = pair(javaCommand, cCommand, rounds);
        List<Row> rows = new ArrayList<>();
        String[] names = {"mean", "p50", "p99"};
        // The target (Java <= 1.2x C) is on the mean: the seed's figure is an average round trip,
        // and this VM's clock reads in steps of 10 ns, so a p50 near 130 ns moves 8% a step.
        for (int k = 0; k < names.length; k++) {
            Jmh.Result ours = best(java, k);
            Jmh.Result peer = best(c, k);
            rows.add(Row.versus("ping-pong round trip, " + names[k], "Java (PingPong, FFM)", ours,
                    "C11 atomics (gcc -O2)", peer, false, names[k].equals("mean") ? 1 / 1.2 : null)
                    .withNote("two processes, best of " + repeats + " alternating runs of " + rounds + " rounds; error = half the spread"
                            + (names[k].equals("mean") ? "; means carry every descheduling on a shared machine" : "")));
        }
        rows.add(Row.absolute("ping-pong round trip, p50, Java odd vs C even", "Java (PingPong) with C11",
                new Jmh.Result(mixed[1], Double.NaN, "ns"), false, null)
                .withNote("interoperation on one region; one run of " + rounds + " rounds, mean " + mixed[0] + " ns"));
        return rows;
    }

    /**
     * The least disturbed of the runs: on a shared machine a run is only ever slowed by other
     * load, never sped up, so the best run of each side is the fairest comparison of the floor.
     */
    private static Jmh.Result best(List<double[]> runs, int k) {
        double[] v = runs.stream().mapToDouble(r -> r[k]).sorted().toArray();
        return new Jmh.Result(v[0], (v[v.length - 1] - v[0]) / 2, "ns");
    }

    /** Runs an odd and an even process on a fresh region; returns the odd side's mean, p50, p99. */
    private static double[] pair(List<String> oddCommand, List<String> evenCommand, int rounds) throws Exception {
        Path region = Path.of("/dev/shm", "colossal-bench-pingpong-" + ProcessHandle.current().pid());
        Files.deleteIfExists(region);
        try {
            Process even = start(evenCommand, "even", region, rounds);
            Process odd = start(oddCommand, "odd", region, rounds);
            String out = finish(odd);
            finish(even);
            Matcher m = MEAN.matcher(out);
            if (!m.find()) {
                throw new IllegalStateException("unexpected ping-pong output: " + out);
            }
            return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3))};
        } finally {
            Files.deleteIfExists(region);
        }
    }

    private static Process start(List<String> command, String role, Path region, int rounds) throws IOException {
        List<String> full = new ArrayList<>(command);
        full.addAll(Arrays.asList(role, region.toString(), String.valueOf(rounds)));
        return new ProcessBuilder(full).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static String finish(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("ping-pong process failed: " + out);
        }
        return out;
    }

    /** Builds colossal-bench/src/main/c/pingpong.c with the machine's gcc into colossal-bench/target/. */
    private static Path compileC() throws Exception {
        Path source = Path.of("colossal-bench", "src", "main", "c", "pingpong.c");
        Path binary = Path.of("colossal-bench", "target", "pingpong");
        if (!Files.exists(source)) {
            throw new IllegalStateException("C source " + source.toAbsolutePath() + " not found; run from the repository root");
        }
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O2", "-std=c11", "-o", binary.toString(), source.toString())
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("gcc is needed for the C side of the ping-pong: install it ('apt-get install gcc')", e);
        }
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (gcc.waitFor() != 0) {
            throw new IllegalStateException("gcc failed on " + source + ":\n" + out);
        }
        return binary.toAbsolutePath();
    }
}
