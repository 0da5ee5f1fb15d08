package dev.colossal.bench.map;

import dev.colossal.bench.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The suite's latency rows: {@link LatencyMain} for ours and for Chronicle Map, each in its own
 * JVM, over several rounds that alternate which map goes first (so both see the same background
 * load); each percentile is the median over the rounds.
 */
final class FixedRateLatency {

    private static final String[] PERCENTILES = {"p50", "p99", "p99.99"};

    private FixedRateLatency() {}

    static List<Row> rows(boolean quick, List<String> peerFlags) throws Exception {
        int entries = quick ? 1 << 17 : 1 << 20;
        int rate = 100_000;
        int rounds = quick ? 2 : 4;
        String seconds = quick ? "2" : "10";
        List<Map<String, String>> ours = new ArrayList<>();
        List<Map<String, String>> theirs = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int side = 0; side < 2; side++) {
                boolean oursNow = (r + side) % 2 == 0;
                (oursNow ? ours : theirs).add(ChildJvm.run(oursNow ? List.of() : peerFlags, LatencyMain.class,
                        oursNow ? "colossal" : "chronicle", Integer.toString(entries), Integer.toString(rate), seconds));
            }
        }
        List<Row> rows = new ArrayList<>();
        String note = String.format("fixed rate %,d ops/s, timed from intended start (no coordinated omission); "
                + "%s keys in order, 8-byte values, one thread; median of %d alternating rounds of %s s", rate,
                quick ? "128K" : "1M", rounds, seconds);
        for (String op : List.of("get", "put")) {
            for (String p : PERCENTILES) {
                String key = op + "." + p;
                rows.add(new Row(op + " latency " + p + " at " + rate / 1000 + "K/s", "BytesMap",
                        MapSuite.peerName("chronicle"), "ns", median(ours, key), Double.NaN, median(theirs, key),
                        null, false, null, note + "; rounds: ours " + spread(ours, key) + ", peer " + spread(theirs, key)));
            }
        }
        return rows;
    }

    private static double median(List<Map<String, String>> runs, String key) {
        double[] v = runs.stream().mapToDouble(m -> Double.parseDouble(m.get(key))).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static String spread(List<Map<String, String>> runs, String key) {
        return runs.stream().map(m -> m.get(key)).toList().toString();
    }
}
