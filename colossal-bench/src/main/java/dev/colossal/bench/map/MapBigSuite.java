package dev.colossal.bench.map;

import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./colossal bench map-big}: lmdbjava's second workload, apart from the map suite because it
 * writes GBs per store. 10M random int keys with 2 KiB values, or fewer: each store in turn holds the
 * whole data set, LMDB on a 4 KiB overflow page per value, so the entries are capped where that would
 * pass half the RAM (beyond it every store thrashes the page cache and the run measures the disk for
 * hours: Chronicle Map filled 1M entries per 8 minutes at 10M on a 24 GiB machine) or leave less than
 * 20 GiB of disk free ({@code COLOSSAL_BENCH_BIG_ENTRIES} sets the number), through {@link BigValuesMain}:
 * each store fills once in a JVM of its own, then gets, puts, deletes and iterates. ConcurrentHashMap
 * is left out: it would need a 21 GiB heap on a 24 GiB machine.
 */
public final class MapBigSuite implements Suite {

    /** Creates the suite. */
    public MapBigSuite() {}

    @Override
    public String name() {
        return "map-big";
    }

    @Override
    public String description() {
        return "persistent map vs Chronicle Map, lmdbjava, MapDB: 10M random int keys with 2 KiB values, filled once "
                + "(--quick: 0.5M)";
    }

    @Override
    public List<String> jvmFlags() {
        return MapSuite.PEER_FLAGS;
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        int valueSize = 2048;
        long free = Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir"))).getUsableSpace();
        String asked = System.getenv("COLOSSAL_BENCH_BIG_ENTRIES");
        long ram = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        long perEntry = 4600;
        int entries = asked != null ? Integer.parseInt(asked)
                : (int) Math.min(quick ? 500_000 : 10_000_000, Math.min((free - (20L << 30)) / perEntry, ram / 2 / perEntry));
        String size = String.format(Locale.ROOT, "%.1fM entries x 2 KiB", entries / 1e6);
        if (entries < 100_000 && asked == null) {
            return List.of(new Row("all ops, 10M x 2 KiB", "BytesMap", null, "ns/op", Double.NaN, Double.NaN, null,
                    null, false, null, "skipped: " + (free >> 30) + " GiB free (20 GiB stay free) and " + (ram >> 30)
                            + " GiB RAM (the data set may take half) leave room for fewer than 100k entries"));
        }
        String ops = Integer.toString(Math.min(entries, 1_000_000));
        Map<String, String> ours = ChildJvm.run(List.of("-Xmx2g"), BigValuesMain.class, "colossal",
                Integer.toString(entries), Integer.toString(valueSize), ops);
        List<Row> rows = new ArrayList<>();
        for (String peer : List.of("chronicle", "lmdb", "mapdb")) {
            List<String> flags = new ArrayList<>(MapSuite.PEER_FLAGS);
            flags.add("-Xmx2g");
            Map<String, String> theirs = ChildJvm.run(flags, BigValuesMain.class, peer, Integer.toString(entries),
                    Integer.toString(valueSize), ops);
            String note = "filled once per store, random keys; " + (free >> 30) + " GiB free at start, "
                    + (ram >> 30) + " GiB RAM";
            for (String op : List.of("fill", "get", "put", "delete", "iterate")) {
                String key = op + (op.equals("iterate") ? "Ms" : "Ns");
                rows.add(new Row(op + ", " + size, "BytesMap", MapSuite.peerName(peer), op.equals("iterate") ? "ms" : "ns/op",
                        Double.parseDouble(ours.get(key)), Double.NaN, Double.parseDouble(theirs.get(key)), null,
                        false, null, op.equals("iterate") ? "one full pass; " + note : note + costs(op, ours, theirs)));
            }
            rows.add(new Row("disk used, " + size, "BytesMap", MapSuite.peerName(peer), "MB",
                    Double.parseDouble(ours.get("diskBytes")) / 1e6, Double.NaN,
                    Double.parseDouble(theirs.get("diskBytes")) / 1e6, null, false, null, "du of the store's files"));
        }
        return rows;
    }

    /**
     * The thread CPU time and major faults per op of both sides: each store runs once, so a wall
     * time is one sample of whatever else the machine did then (a 2 KiB get read 1.2 us in one
     * run and 3.3 us in the next, its major faults up from 0 to 0.003 per get).
     */
    private static String costs(String op, Map<String, String> ours, Map<String, String> theirs) {
        return String.format(Locale.ROOT, "; CPU ns/op ours %s, peer %s; major faults/op ours %s, peer %s",
                ours.get(op + "CpuNs"), theirs.get(op + "CpuNs"), ours.get(op + "Majflt"), theirs.get(op + "Majflt"));
    }
}
