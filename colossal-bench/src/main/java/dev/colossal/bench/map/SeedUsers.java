package dev.colossal.bench.map;

import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * Seed 001's rows: {@link UsersMain} with our map under a 64 MiB heap against a {@code HashMap}
 * with the heap it needs, each in its own JVM, alternating rounds, medians.
 */
final class SeedUsers {

    private SeedUsers() {}

    static List<Row> rows(boolean quick) throws Exception {
        int users = quick ? 1_000_000 : 15_000_000;
        int rounds = 2;
        String ourHeap = "-Xmx64m";
        String peerHeap = quick ? "-Xmx2g" : "-Xmx12g";
        List<String> args = List.of(Integer.toString(users), quick ? "2" : "5");
        ChildJvm.Rounds runs = ChildJvm.alternate(rounds, UsersMain.class, List.of(ourHeap),
                FixedRateLatency.prepend("colossal", args), List.of(peerHeap), FixedRateLatency.prepend("hashmap", args));
        String size = (quick ? "1M" : "15M") + " users";
        String setup = "ColossalMap<Long, User> (record codec, no size hint) " + ourHeap + " vs HashMap " + peerHeap
                + ", a JVM each, median of " + rounds + " alternating rounds";
        List<Row> rows = new ArrayList<>();
        rows.add(versus(runs, "heapMB", size + ": heap used after full GC", "MB", false,
                ours -> "target < 64 MB: " + (ours < 64 ? "met" : "NOT met") + "; " + setup));
        rows.add(versus(runs, "gcMs", size + ": full GC (System.gc())", "ms", false,
                ours -> "target < 50 ms: " + (ours < 50 ? "met" : "NOT met")));
        rows.add(versus(runs, "getOps", size + ": get, one thread, random ids", "ops/s", true,
                ours -> "target >= 5M/s: " + (ours >= 5e6 ? "met" : "NOT met") + "; ours decodes a User per get"));
        rows.add(versus(runs, "getAllOps", size + ": getAll, batches of " + UsersMain.BATCH + " random ids, one thread",
                "ops/s", true, ours -> "keys per second; target >= 5M/s: " + (ours >= 5e6 ? "met" : "NOT met")
                        + "; HashMap has no batched get: a get per key of the same batches"));
        double streamGetAll = runs.median(false, "streamGetAllOps");
        rows.add(Row.absolute(size + ": getAll to a callback, batches of " + UsersMain.BATCH + " random ids, one thread",
                                "ColossalMap", new Jmh.Result(streamGetAll, Double.NaN, "ops/s"), true, 5e6)
                .withNote("keys per second; getAll(keys, (id, user) -> ...): each User decoded and handed over, no result map; rounds "
                        + runs.ours().stream().map(m -> m.get("streamGetAllOps")).toList()));
        double rawGetAll = runs.median(false, "rawGetAllOps");
        rows.add(Row.absolute(size + ": raw getAll (BytesMap, bytes not decoded), batches of " + UsersMain.BATCH
                                + " random ids, one thread", "ColossalMap.bytes()", new Jmh.Result(rawGetAll, Double.NaN, "ops/s"), true, 5e6)
                .withNote("keys per second; the zero-copy API a server's MGET would use: each value copied into one buffer, "
                        + "not decoded into a User; rounds " + runs.ours().stream().map(m -> m.get("rawGetAllOps")).toList()));
        double floor = runs.median(false, "floorOps");
        rows.add(Row.absolute(size + ": floor of a get: two dependent random reads in the map's file", "mapped file",
                        new Jmh.Result(floor, Double.NaN, "ops/s"), true, null)
                .withNote("a get reads a slot, then the entry it points to; here each pair waits for the one before, "
                        + "as ours do (a get is too long for the CPU to overlap the next); "
                        + (floor < 5e6 ? "the 5M/s target is above this floor" : "the floor allows 5M/s")));
        rows.add(versus(runs, "putOps", size + ": put (overwrite), one thread", "ops/s", true,
                ours -> "random ids; a new User per put on both sides"));
        rows.add(versus(runs, "fillOps", size + ": fill (insert every user)", "ops/s", true,
                ours -> "from empty"));
        double file = runs.median(false, "fileBytes");
        double raw = runs.median(false, "rawBytes");
        double allocated = runs.median(false, "allocatedBytes");
        rows.add(Row.absolute(size + ": file over raw key+value bytes", "ColossalMap",
                        new Jmh.Result(100 * (file / raw - 1), Double.NaN, "%"), false, 15.0)
                .withNote(String.format(Locale.ROOT, "file %.0f MB (%.1f bytes per user; allocated %.0f MB, %+.1f%%, the rest "
                                + "zeros written ahead for growth; real blocks, so du = stat), raw %.0f MB (%.1f bytes per user)",
                        file / 1048576, file / users, allocated / 1048576, 100 * (allocated / raw - 1), raw / 1048576, raw / users)));
        return rows;
    }

    private static Row versus(ChildJvm.Rounds runs, String key, String caseName, String unit, boolean higherIsBetter,
                              DoubleFunction<String> note) {
        double ours = runs.median(false, key);
        return new Row(caseName, "ColossalMap", "HashMap", unit, ours, Double.NaN, runs.median(true, key), null,
                higherIsBetter, null, note.apply(ours) + "; " + runs.spread(key));
    }
}
