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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./colossal bench swap}: swap-out and swap-in throughput of one large array against {@code dd}
 * with the same block size on the same disk, in the same run, alternating ours and dd every round,
 * and our CPU seconds per GB.
 *
 * <p>Page cache: bypassed on both sides with {@code O_DIRECT}: {@code dd oflag=direct} and
 * {@code iflag=direct} (and {@code conv=notrunc}: like a swap file, dd overwrites blocks already
 * allocated rather than truncating and reallocating them), and for ours the swap file opened with {@code ExtendedOpenOption.DIRECT}
 * (public in {@code jdk.unsupported}, passed in through {@code SwapSpace.Builder.openOptions}; the core
 * does not reference it). Both move 1 MiB per system call. This is a side-by-side harness, not JMH:
 * one swap-out is a second or so of I/O, far above timer noise.
 */
public final class SwapSuite implements Suite {

    private static final Pattern DD_SECONDS = Pattern.compile("copied, ([0-9.]+) s");
    private static final long BLOCK = 1L << 20;

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

    private record Sample(double seconds, double cpuSeconds) {}

    @Override
    public List<Row> run(boolean quick) throws Exception {
        long bytes = quick ? 256L << 20 : 1L << 30;
        int rounds = quick ? 3 : 5;
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "colossal-swap-bench-");
        Path ddFile = dir.resolve("dd.data");
        List<Sample> outs = new ArrayList<>();
        List<Sample> ins = new ArrayList<>();
        List<Double> ddOuts = new ArrayList<>();
        List<Double> ddIns = new ArrayList<>();
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
                double ddOut = dd("if=/dev/zero", "of=" + ddFile, "bs=1M", "count=" + (bytes / BLOCK), "oflag=direct",
                        "conv=notrunc");
                Sample in = timed(() -> h.acquire().close());
                double ddIn = dd("if=" + ddFile, "of=/dev/null", "bs=1M", "iflag=direct");
                if (r >= 0) {
                    outs.add(out);
                    ins.add(in);
                    ddOuts.add(ddOut);
                    ddIns.add(ddIn);
                }
                System.out.printf(Locale.ROOT, "round %d: swap-out %.2f s (dd %.2f s), swap-in %.2f s (dd %.2f s)%n",
                        r, out.seconds, ddOut, in.seconds, ddIn);
            }
        } finally {
            Files.deleteIfExists(ddFile);
            Files.deleteIfExists(dir);
        }
        double gb = bytes / 1e9;
        String size = (bytes >> 20) + " MiB";
        String note = "O_DIRECT both sides, 1 MiB per I/O, " + rounds + " rounds alternating ours and dd, mean";
        List<Row> rows = new ArrayList<>();
        rows.add(Row.versus("swap-out throughput, " + size + " DoubleArray", "SwappableArray.swapOut()",
                throughput(gb, outs.stream().mapToDouble(Sample::seconds).toArray()),
                "dd bs=1M oflag=direct", throughput(gb, ddOuts.stream().mapToDouble(Double::doubleValue).toArray()),
                true, 0.9).withNote(note));
        rows.add(Row.versus("swap-in throughput, " + size + " DoubleArray", "SwappableArray.acquire()",
                throughput(gb, ins.stream().mapToDouble(Sample::seconds).toArray()),
                "dd bs=1M iflag=direct", throughput(gb, ddIns.stream().mapToDouble(Double::doubleValue).toArray()),
                true, 0.9).withNote(note));
        rows.add(Row.absolute("CPU per GB, swap-out (CRC32C + I/O)", "SwappableArray.swapOut()",
                cpuPerGb(gb, outs), false, 0.1).withNote("process CPU time (all threads) / GB"));
        rows.add(Row.absolute("CPU per GB, swap-in (allocate + I/O + CRC32C)", "SwappableArray.acquire()",
                cpuPerGb(gb, ins), false, 0.1).withNote("process CPU time (all threads) / GB"));
        return rows;
    }

    private static Jmh.Result throughput(double gb, double[] seconds) {
        double sum = 0;
        for (double s : seconds) {
            sum += gb / s;
        }
        return new Jmh.Result(sum / seconds.length, Double.NaN, "GB/s");
    }

    private static Jmh.Result cpuPerGb(double gb, List<Sample> samples) {
        double cpu = samples.stream().mapToDouble(Sample::cpuSeconds).sum();
        return new Jmh.Result(cpu / (gb * samples.size()), Double.NaN, "core-s/GB");
    }

    private static Sample timed(Runnable work) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        work.run();
        long t1 = System.nanoTime();
        long cpu1 = os.getProcessCpuTime();
        return new Sample((t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9);
    }

    /** Runs dd and returns the seconds it reports for the copy itself (not its start-up). */
    private static double dd(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("dd"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("dd failed: " + String.join(" ", command) + "\n" + output);
        }
        Matcher m = DD_SECONDS.matcher(output);
        if (!m.find()) {
            throw new IOException("cannot read dd's time from: " + output);
        }
        return Double.parseDouble(m.group(1));
    }
}
