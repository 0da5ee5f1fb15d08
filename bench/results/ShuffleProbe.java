package dev.colossal.bench.map;
import java.lang.management.*;
import java.nio.file.*;
/**
 * Gets of every key of a MapBench-like fill (1M random int keys, 100-byte values), apart, in the
 * order they were inserted (as MapBench reads them) and then in a shuffled order; thread CPU ns
 * per get, medians. See map-single-ops.md. Usage (compile with -cp benchmarks.jar, run with the
 * peer flags for chronicle): ShuffleProbe STORES ENTRIES ROUNDS GETS
 */
public class ShuffleProbe {
    public static void main(String[] a) throws Exception {
        String[] names = a[0].split(","); int entries = Integer.parseInt(a[1]); int rounds = Integer.parseInt(a[2]); int calls = Integer.parseInt(a[3]);
        int[] keys = new int[entries];
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        for (int i = 0; i < entries; i++) keys[i] = rnd.nextInt(); int[] order = keys.clone(); for (int i = entries - 1; i > 0; i--) { int j = rnd.nextInt(i + 1); int t0 = order[i]; order[i] = order[j]; order[j] = t0; }
        Store[] s = new Store[names.length];
        byte[] v = new byte[100];
        for (int i = 0; i < s.length; i++) { s[i] = Store.create(names[i], Files.createTempDirectory("chainprobe"), entries, 100); for (int k = 0; k < entries; k++) { v[0] = (byte) k; s[i].put(keys[k], v); } }
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        double[][] apart = new double[s.length][rounds], chained = new double[s.length][rounds];
        long sink = 0;
        for (int r = -3; r < rounds; r++) for (int k = 0; k < s.length; k++) {
            int i = (r & 1) == 0 ? k : s.length - 1 - k;
            long c0 = t.getCurrentThreadCpuTime();
            int idx = 0;
            for (int n = 0; n < calls; n++) { sink += s[i].get(keys[idx]); idx++; if (idx == entries) idx = 0; }
            long c1 = t.getCurrentThreadCpuTime();
            idx = 0;
            for (int n = 0; n < calls; n++) { int res = s[i].get(order[idx]); sink += res; idx += 1; if (idx >= entries) idx = 0; }
            long c2 = t.getCurrentThreadCpuTime();
            if (r >= 0) { apart[i][r] = (c1 - c0) / (double) calls; chained[i][r] = (c2 - c1) / (double) calls; }
        }
        for (int i = 0; i < s.length; i++) {
            double[] x = apart[i].clone(), y = chained[i].clone(); java.util.Arrays.sort(x); java.util.Arrays.sort(y);
            System.out.printf("%-20s insertion order %.1f shuffled %.1f ns (cpu, medians of %d)%n", names[i], x[rounds / 2], y[rounds / 2], rounds);
        }
        System.out.println("sink " + sink);
        for (Store x : s) x.close();
    }
}
