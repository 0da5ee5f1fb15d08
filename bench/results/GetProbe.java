import dev.colossal.bench.map.MapBench;
import java.lang.management.*;
import java.nio.file.*;
/** Thread CPU, user CPU and minor page faults per op (get, put or delete) of MapBench stores; see map-single-ops.md. */
public class GetProbe {
    static long minflt() throws Exception {
        String s = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[7]); // field 10 minflt
    }
    public static void main(String[] a) throws Exception {
        String[] stores = a[0].split(",");
        int entries = Integer.parseInt(a[1]); int rounds = Integer.parseInt(a[2]); int calls = Integer.parseInt(a[3]);
        String op = a.length > 4 ? a[4] : "get";
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        MapBench[] b = new MapBench[stores.length];
        for (int i = 0; i < b.length; i++) { b[i] = new MapBench(); b[i].store = stores[i]; b[i].entries = entries; b[i].valueSize = 100; b[i].setUp(); }
        long sink = 0;
        double[][] cpu = new double[b.length][rounds], usr = new double[b.length][rounds], flt = new double[b.length][rounds];
        for (int r = -3; r < rounds; r++) for (int k = 0; k < b.length; k++) {
            int i = (r & 1) == 0 ? k : b.length - 1 - k;
            long c0 = t.getCurrentThreadCpuTime(), u0 = t.getCurrentThreadUserTime(), f0 = minflt();
            for (int n = 0; n < calls; n++) {
                switch (op) { case "get" -> sink += b[i].get(); case "put" -> b[i].put(); default -> b[i].delete(); }
            }
            if (r < 0) continue;
            cpu[i][r] = (t.getCurrentThreadCpuTime() - c0) / (double) calls;
            usr[i][r] = (t.getCurrentThreadUserTime() - u0) / (double) calls;
            flt[i][r] = (minflt() - f0) / (double) calls;
        }
        for (int i = 0; i < b.length; i++) {
            double[] c = cpu[i].clone(); java.util.Arrays.sort(c);
            double[] u = usr[i].clone(); java.util.Arrays.sort(u);
            System.out.printf("%-20s %s cpu ns median %.1f min %.1f | user median %.1f | minflt/op %.4f | rounds %s%n", stores[i], op, c[rounds/2], c[0], u[rounds/2], flt[i][rounds/2], java.util.Arrays.toString(java.util.Arrays.stream(cpu[i]).mapToLong(Math::round).toArray()));
        }
        System.out.println("sink " + sink);
        for (MapBench m : b) m.tearDown();
    }
}
