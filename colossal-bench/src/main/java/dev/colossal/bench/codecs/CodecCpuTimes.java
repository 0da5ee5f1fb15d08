package dev.colossal.bench.codecs;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Colossal vs Fory, encode / decode / round trip, in thread CPU time per operation rather than wall
 * time: on a shared, loaded machine a thread that waits for a core accrues no CPU time, so these
 * figures hold still where JMH's throughput moves by 2x. Rounds alternate the order; medians.
 * Allocation and GC work on other threads are not counted: read them from JMH's {@code -prof gc}.
 *
 * <pre>
 * java -Xms2g -Xmx2g -XX:+AlwaysPreTouch --add-opens=java.base/java.lang=ALL-UNNAMED ... (the codecs suite's flags) \
 *      -cp colossal-bench/target/benchmarks.jar dev.colossal.bench.codecs.CodecCpuTimes media 7
 * </pre>
 */
public final class CodecCpuTimes {

    private static volatile long sink;

    private CodecCpuTimes() {}

    private interface Loop {
        long run(CodecsBench b, int n) throws Exception;
    }

    /**
     * Runs the comparison.
     *
     * @param args shape ({@code price} or {@code media}), then the number of rounds
     * @throws Exception if a serializer fails
     */
    public static void main(String[] args) throws Exception {
        String shape = args.length > 0 ? args[0] : "media";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        CodecsBench b = new CodecsBench();
        b.shape = shape;
        b.setUp();
        String[] names = {"colossal encode", "fory encode", "colossal decode", "fory decode",
            "colossal round trip", "fory round trip"};
        // one loop per case, so that each call site keeps its own type profile
        Loop[] loops = {
            (x, n) -> { long s = 0; for (int i = 0; i < n; i++) { s += x.colossalEncode(); } return s; },
            (x, n) -> { long s = 0; for (int i = 0; i < n; i++) { s += x.foryEncode(); } return s; },
            (x, n) -> { long s = 0; for (int i = 0; i < n; i++) { s += System.identityHashCode(x.colossalDecode()) & 1; } return s; },
            (x, n) -> { long s = 0; for (int i = 0; i < n; i++) { s += System.identityHashCode(x.foryDecode()) & 1; } return s; },
            (x, n) -> { long s = 0; for (int i = 0; i < n; i++) { s += System.identityHashCode(x.colossalRoundTrip()) & 1; } return s; },
            (x, n) -> { long s = 0; for (int i = 0; i < n; i++) { s += System.identityHashCode(x.foryRoundTrip()) & 1; } return s; },
        };
        ThreadMXBean cpu = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        int n = shape.equals("media") ? 200_000 : 2_000_000;
        for (int w = 0; w < 5; w++) {
            for (Loop loop : loops) {
                sink += loop.run(b, n);
            }
        }
        double[][] ns = new double[loops.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < loops.length; k++) {
                int j = r % 2 == 0 ? k : loops.length - 1 - k;
                long t0 = cpu.getCurrentThreadCpuTime();
                sink += loops[j].run(b, n);
                ns[j][r] = (cpu.getCurrentThreadCpuTime() - t0) / (double) n;
            }
        }
        for (int k = 0; k < loops.length; k++) {
            Arrays.sort(ns[k]);
            System.out.printf("%-20s %s %7.1f ns/op CPU (median of %d; %.1f..%.1f)%n", names[k], shape,
                    ns[k][rounds / 2], rounds, ns[k][0], ns[k][rounds - 1]);
        }
        for (int k = 0; k < loops.length; k += 2) {
            System.out.printf("%-20s Colossal %.2fx Fory's speed%n", names[k].substring(9),
                    ns[k + 1][rounds / 2] / ns[k][rounds / 2]);
        }
    }
}
