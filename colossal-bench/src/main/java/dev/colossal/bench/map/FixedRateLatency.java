package dev.colossal.bench.map;

import dev.colossal.bench.Row;
import java.util.ArrayList;
import java.util.List;

/**
 * The suite's latency rows: {@link LatencyMain} for ours and for Chronicle Map, each in its own
 * JVM, over rounds that alternate which map goes first; each percentile is the median of the rounds.
 */
final class FixedRateLatency {

    private FixedRateLatency() {}

    static List<Row> rows(boolean quick, List<String> peerFlags) throws Exception {
        int entries = quick ? 1 << 17 : 1 << 20;
        int rate = 100_000;
        int rounds = quick ? 2 : 4;
        String seconds = quick ? "2" : "10";
        List<String> args = List.of(Integer.toString(entries), Integer.toString(rate), seconds);
        ChildJvm.Rounds runs = ChildJvm.alternate(rounds, LatencyMain.class,
                List.of(), prepend("colossal", args), peerFlags, prepend("chronicle", args));
        List<Row> rows = new ArrayList<>();
        String note = String.format("fixed rate %,d ops/s, timed from intended start (no coordinated omission); "
                + "%s keys in order, 8-byte values, one thread; median of %d alternating rounds of %s s", rate,
                quick ? "128K" : "1M", rounds, seconds);
        for (String op : List.of("get", "put")) {
            // p99.9 beside p99.99: at 100K/s a round's p99.99 is its hundred slowest operations, which one
            // stall of the machine (a page written back, the host taking the core) sets on its own.
            for (String p : List.of("p50", "p99", "p99.9", "p99.99")) {
                String key = op + "." + p;
                rows.add(new Row(op + " latency " + p + " at " + rate / 1000 + "K/s", "BytesMap",
                        MapSuite.peerName("chronicle"), "ns", runs.median(false, key), Double.NaN,
                        runs.median(true, key), null, false, null, note + "; " + runs.spread(key)));
            }
        }
        return rows;
    }

    static List<String> prepend(String first, List<String> rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(rest);
        return all;
    }
}
