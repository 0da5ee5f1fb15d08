package dev.colossal.bench.swap;

import com.sun.nio.file.ExtendedOpenOption;
import dev.colossal.array.DoubleArray;
import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import dev.colossal.swap.SwapSpace;
import dev.colossal.swap.SwappableArray;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.DoubleStream;

/**
 * {@code ./colossal bench swap}: swap-out and swap-in throughput of one large array against {@code dd}
 * with the same block size on the same disk, in the same run, alternating ours and dd every round,
 * and our CPU seconds per GB.
 *
 * <p>Page cache: bypassed on both sides with {@code O_DIRECT}: {@code dd oflag=direct} and
 * {@code iflag=direct} (and {@code conv=notrunc}: like a swap file, dd overwrites blocks already
 * allocated rather than truncating and reallocating them), and for ours the swap file opened with {@code ExtendedOpenOption.DIRECT}
 * (public in {@code jdk.unsupported}, passed in through {@code SwapSpace.Builder.openOptions}; the core
 * does not reference it). Both move 8 MiB per system call (the swap space's default I/O and chunk size).
 * This is a side-by-side harness, not JMH: one swap-out is a second or so of I/O, far above timer noise.
 *
 * <p>CPU: the process's CPU time over each phase (all threads, the JVM's own included), and of it the
 * checksum threads' (thread CPU time); dd's, user and system, from the shell's {@code times}.
 */
public final class SwapSuite implements Suite {

    private static final Pattern DD_SECONDS = Pattern.compile("copied, ([0-9.]+) s");
    private static final Pattern TIMES = Pattern.compile("(\\d+)m([0-9.]+)s (\\d+)m([0-9.]+)s\\s*$");
    private static final long BLOCK = 8L << 20;
    private static final String BS = "bs=8M";

    /** Creates the suite. */
    public SwapSuite() {}

    @Override
    public String name() {
        return "swap";
    }

    @Override
    public String description() {
        return "Swap space: swap-out/swap-in throughput of 1 GiB arrays vs dd (O_DIRECT both), CPU s/GB.";
    }

    /** One phase: wall seconds, process CPU seconds, of which on checksum threads. */
    private record Sample(double seconds, double cpuSeconds, double crcSeconds) {}

    /** One dd run: the seconds it reports for the copy, and its CPU seconds (user + system). */
    private record Dd(double seconds, double cpuSeconds) {}

    @Override
    public List<Row> run(boolean quick) throws Exception {
        long bytes = quick ? 256L << 20 : 1L << 30;
        int rounds = quick ? 3 : 5;
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "colossal-swap-bench-");
        Path ddFile = dir.resolve("dd.data");
        List<Sample> outs = new ArrayList<>();
        List<Sample> ins = new ArrayList<>();
        List<Dd> ddOuts = new ArrayList<>();
        List<Dd> ddIns = new ArrayList<>();
        try (SwapSpace space = SwapSpace.builder().directory(dir).budget(2 * bytes).alignment(4096).ioSize(BLOCK)
                .openOptions(ExtendedOpenOption.DIRECT).build()) {
            SwappableArray<DoubleArray> h = space.allocate(DoubleArray.class, bytes / Double.BYTES);
            try (DoubleArray a = h.acquire()) {
                for (int c = 0; c < a.chunkCount(); c++) {
                    MemorySegment chunk = a.chunk(c);
                    for (long off = 0; off < chunk.byteSize(); off += 8) {
                        chunk.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, off * 0.5 + c);
                    }
                }
            }
            for (int r = -1; r < rounds; r++) { // round -1 warms up both sides
                Sample out = timed(h::swapOut);
                Dd ddOut = dd("if=/dev/zero", "of=" + ddFile, BS, "count=" + (bytes / BLOCK), "oflag=direct",
                        "conv=notrunc");
                Sample in = timed(() -> h.acquire().close()); // writable: the next swap-out writes again
                Dd ddIn = dd("if=" + ddFile, "of=/dev/null", BS, "iflag=direct");
                if (r >= 0) {
                    outs.add(out);
                    ins.add(in);
                    ddOuts.add(ddOut);
                    ddIns.add(ddIn);
                }
                System.out.printf(Locale.ROOT, "round %d: swap-out %.2f s %.3f cpu-s (dd %.2f s %.3f cpu-s),"
                        + " swap-in %.2f s %.3f cpu-s (dd %.2f s %.3f cpu-s)%n", r, out.seconds, out.cpuSeconds,
                        ddOut.seconds, ddOut.cpuSeconds, in.seconds, in.cpuSeconds, ddIn.seconds, ddIn.cpuSeconds);
            }
        } finally {
            Files.deleteIfExists(ddFile);
            Files.deleteIfExists(dir);
        }
        double gb = bytes / 1e9;
        String size = (bytes >> 20) + " MiB";
        String note = "O_DIRECT both sides, 8 MiB per I/O, " + rounds + " rounds alternating ours and dd, median";
        List<Row> rows = new ArrayList<>();
        rows.add(Row.versus("swap-out throughput, " + size + " DoubleArray", "SwappableArray.swapOut()",
                throughput(gb, outs.stream().mapToDouble(Sample::seconds)),
                "dd " + BS + " oflag=direct", throughput(gb, ddOuts.stream().mapToDouble(Dd::seconds)),
                true, 0.9).withNote(note));
        rows.add(Row.versus("swap-in throughput, " + size + " DoubleArray", "SwappableArray.acquire()",
                throughput(gb, ins.stream().mapToDouble(Sample::seconds)),
                "dd " + BS + " iflag=direct", throughput(gb, ddIns.stream().mapToDouble(Dd::seconds)),
                true, 0.9).withNote(note));
        rows.add(cpuRow("CPU per GB, swap-out (CRC32C + I/O)", "SwappableArray.swapOut()", gb, outs, ddOuts));
        rows.add(cpuRow("CPU per GB, swap-in (allocate + I/O + CRC32C)", "SwappableArray.acquire()", gb, ins, ddIns));
        return rows;
    }

    private static Jmh.Result throughput(double gb, DoubleStream seconds) {
        return new Jmh.Result(gb / median(seconds), Double.NaN, "GB/s");
    }

    private static Row cpuRow(String caseName, String ours, double gb, List<Sample> samples, List<Dd> dds) {
        double cpu = median(samples.stream().mapToDouble(Sample::cpuSeconds)) / gb;
        double crc = median(samples.stream().mapToDouble(Sample::crcSeconds)) / gb;
        double dd = median(dds.stream().mapToDouble(Dd::cpuSeconds)) / gb;
        String crcShare = crc > 0 ? String.format(Locale.ROOT, "of it CRC32C threads %.3f", crc)
                : "CRC32C on the reading thread, inside the total";
        return Row.absolute(caseName, ours, new Jmh.Result(cpu, Double.NaN, "core-s/GB"), false, 0.1)
                .withNote(String.format(Locale.ROOT, "process CPU time (all threads) / GB, median; %s;"
                        + " dd's own CPU (user + system) for the same I/O %.3f", crcShare, dd));
    }

    private static double median(DoubleStream values) {
        double[] v = values.sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Sample timed(Runnable work) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long crc0 = checksumCpu();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        work.run();
        long t1 = System.nanoTime();
        long cpu1 = os.getProcessCpuTime();
        return new Sample((t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9, (checksumCpu() - crc0) / 1e9);
    }

    /** CPU nanoseconds of the swap space's checksum threads so far (they are pooled and live on). */
    private static long checksumCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("colossal-swap-crc-")) {
                sum += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
            }
        }
        return sum;
    }

    /** Runs dd under a shell whose {@code times} gives dd's CPU; the seconds are dd's own for the copy. */
    private static Dd dd(String... args) throws IOException, InterruptedException {
        List<String> command = List.of("bash", "-c", "dd " + String.join(" ", args) + " 2>&1 && times");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("dd failed: " + String.join(" ", command) + "\n" + output);
        }
        Matcher m = DD_SECONDS.matcher(output);
        Matcher t = TIMES.matcher(output.strip());
        if (!m.find() || !t.find()) {
            throw new IOException("cannot read dd's time from: " + output);
        }
        double cpu = Long.parseLong(t.group(1)) * 60 + Double.parseDouble(t.group(2))
                + Long.parseLong(t.group(3)) * 60 + Double.parseDouble(t.group(4));
        return new Dd(Double.parseDouble(m.group(1)), cpu);
    }
}
