package dev.colossal.bench.map;

import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./colossal bench map}: Colossal's persistent map against ConcurrentHashMap, Chronicle Map,
 * MapDB and lmdbjava on the lmdbjava/benchmarks workload (random int keys, 100-byte values).
 * Ours runs in forks without flags; the peers get the flags they need on JDK 25.
 */
public final class MapSuite implements Suite {

    private static final List<String> PEERS = List.of("chm", "chronicle", "mapdb", "lmdb");
    static final List<String> PEER_FLAGS = List.of(
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow",
            // Chronicle Map otherwise phones home and writes ~/.chronicle.analytics.*
            "-Dchronicle.analytics.disable=true");

    /** Creates the suite. */
    public MapSuite() {}

    @Override
    public String name() {
        return "map";
    }

    @Override
    public String description() {
        return "persistent map vs ConcurrentHashMap, Chronicle Map, MapDB, lmdbjava (int keys, 100-byte values); "
                + "fixed-rate latency vs Chronicle Map; seed 001's users vs HashMap";
    }

    @Override
    public List<String> jvmFlags() {
        return PEER_FLAGS;
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        String entries = Integer.toString(quick ? 1 << 17 : 1 << 20);
        String include = MapBench.class.getName().replace(".", "\\.") + "\\.";
        Map<String, Jmh.Result> ours = Jmh.run(include, quick, List.of(), "store", "colossal", "entries", entries);
        List<Row> rows = new ArrayList<>();
        String size = (quick ? "128K" : "1M") + " entries";
        for (String op : OPS) {
            Jmh.Result mine = find(ours, op, "colossal");
            Double target = op.startsWith("get") ? Double.valueOf(300) : op.startsWith("put") ? Double.valueOf(500) : null;
            rows.add(Row.absolute(label(op, size), "BytesMap", mine, false, op.equals("iterate") ? null : target));
        }
        // Chronicle Map checks its entry checksums only when it recovers a file, while our gets check
        // them on every read by default: the same single operations without that check, for a
        // like-for-like reading of the ratios (no target: the default is what is held to one).
        Map<String, Jmh.Result> unverified = Jmh.run(include + "(get|put|delete)$", quick, List.of(),
                "store", "colossal-unverified", "entries", entries);
        rows.addAll(FixedRateLatency.rows(quick, PEER_FLAGS));
        rows.addAll(SeedUsers.rows(quick));
        for (String peer : PEERS) {
            Map<String, Jmh.Result> theirs;
            try {
                theirs = Jmh.run(include, quick, peer.equals("chm") ? List.of() : PEER_FLAGS, "store", peer,
                        "entries", entries);
            } catch (Exception failed) {
                rows.add(new Row("all ops, " + size, "BytesMap", peer, "ns/op", Double.NaN, Double.NaN, null, null,
                        false, null, peer + " did not run on this JDK: " + failed.getMessage()));
                continue;
            }
            if (peer.equals("chronicle")) {
                for (String op : List.of("get", "put", "delete")) {
                    rows.add(Row.versus(op + ", " + size + ", reads not verified", "BytesMap", find(unverified, op,
                                    "colossal-unverified"), peerName(peer), find(theirs, op, peer), false, null)
                            .withNote("ours opened with MapOptions.withVerifyReads(false): entries still carry checksums, "
                                    + "which lookups do not check (verify does); Chronicle checks its own only on recovery"));
                }
            }
            for (String op : OPS) {
                Double target = (peer.equals("chronicle") || peer.equals("lmdb")) && !op.equals("iterate")
                        && !op.endsWith("Batched") && !op.endsWith("Shuffled") ? 2.0 : null;
                rows.add(Row.versus(label(op, size), "BytesMap", find(ours, op, "colossal"), peerName(peer),
                        find(theirs, op, peer), false, target)
                        .withNote(switch (op) {
                            case "iterate" -> "ns per full pass";
                            case "getShuffled", "putShuffled" -> "keys in a fixed shuffle, not the order written: the rows"
                                    + " above (lmdbjava's shape) read them in that order, which puts each entry of ours"
                                    + " beside the one read last from its segment (entries lie per segment in the order they came)";
                            case "getBatched" -> "ns per key; ours BytesMap.getAll, theirs a get per key (no peer has a "
                                    + "batched get; lmdbjava one read transaction per batch)";
                            case "putBatched" -> "ns per key; ours BytesMap.putAll, theirs a put per key (Chronicle's and "
                                    + "MapDB's putAll are that; lmdbjava one write transaction per batch)";
                            case "deleteBatched" -> "ns per key: a remove and a put back; ours BytesMap.removeAll then putAll, "
                                    + "theirs a remove per key then a put per key (lmdbjava both in one write transaction)";
                            default -> null;
                        }));
            }
        }
        return rows;
    }

    private static final List<String> OPS = List.of("get", "getShuffled", "getBatched", "put", "putShuffled", "putBatched",
            "delete", "deleteBatched", "iterate");

    private static String label(String op, String size) {
        return op.endsWith("Batched") ? op.replace("Batched", "") + ", " + size + ", batched " + MapBench.BATCH + " keys at a time"
                : op.endsWith("Shuffled") ? op.replace("Shuffled", "") + ", " + size + ", keys in another order than written"
                : op + ", " + size;
    }

    static String peerName(String peer) {
        return switch (peer) {
            case "chm" -> "ConcurrentHashMap";
            case "chronicle" -> "Chronicle Map 2026.1";
            case "mapdb" -> "MapDB 3.1.0 HTreeMap (mmap)";
            default -> "lmdbjava 0.9.1 (MDB_NOSYNC)";
        };
    }

    private static Jmh.Result find(Map<String, Jmh.Result> results, String op, String store) {
        return results.entrySet().stream()
                .filter(e -> e.getKey().startsWith(op + "[") && e.getKey().contains("store=" + store))
                .map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new IllegalStateException("no result for " + op + " store=" + store + " in " + results.keySet()));
    }
}
