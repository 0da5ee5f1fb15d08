package dev.colossal.bench;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code ./colossal bench SUITE [--quick]}: runs a suite and writes its results under
 * {@code bench/results/}. {@code ./colossal bench} alone lists the suites.
 */
public final class BenchMain {

    /** Every suite, by name. A new suite adds one line here. */
    static final List<Suite> SUITES = List.of(
            new dev.colossal.bench.arrays.ArraysSuite(),
            new dev.colossal.bench.ipc.IpcSuite(),
            new dev.colossal.bench.server.ServerSuite(),
            new dev.colossal.bench.swap.SwapSuite(),
            new dev.colossal.bench.codecs.CodecsSuite(),
            new dev.colossal.bench.map.MapSuite(),
            new dev.colossal.bench.map.MapBigSuite(),
            new dev.colossal.bench.map.FilesSuite()
    );

    private BenchMain() {}

    /**
     * Runs the suite named by the first argument.
     *
     * @param args suite name, then options such as {@code --quick}
     * @throws Exception if the suite fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, Suite> byName = new TreeMap<>();
        SUITES.forEach(s -> byName.put(s.name(), s));
        if (args.length == 0 || args[0].equals("--help") || !byName.containsKey(args[0])) {
            if (args.length > 0 && !args[0].equals("--help")) {
                System.err.println("colossal bench: no suite named '" + args[0] + "'");
            }
            System.err.println("usage: ./colossal bench SUITE [--quick]\nsuites:");
            byName.values().forEach(s -> System.err.printf("  %-10s %s%n", s.name(), s.description()));
            System.exit(args.length == 0 || args[0].equals("--help") ? 0 : 2);
        }
        Suite suite = byName.get(args[0]);
        boolean quick = List.of(args).contains("--quick");
        Instant started = Instant.now();
        String load = Report.loadAverage();
        List<Row> rows = suite.run(quick);
        Report report = new Report(suite, quick, rows, started, load);
        Path dir = Path.of("bench", "results");
        report.write(dir);
        System.out.println();
        System.out.println(report.markdown());
        System.out.println("written: " + dir.resolve(suite.name() + ".md") + ", " + dir.resolve(suite.name() + ".json"));
    }
}
