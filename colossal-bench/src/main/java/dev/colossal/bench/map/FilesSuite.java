package dev.colossal.bench.map;

import dev.colossal.bench.Jmh;
import dev.colossal.bench.Row;
import dev.colossal.bench.Suite;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./colossal bench files}: the disk each map takes for the same entries, seed 001's users
 * under int ids ({@link FileSizeMain}, a JVM per store): ours against Chronicle Map (sized exactly,
 * as it must be), MapDB and lmdbjava. A file's size is the same on a busy machine, so one run of
 * each suffices. It puts the map issue's file-overhead target (15% over the raw bytes) beside what
 * the peers need.
 */
public final class FilesSuite implements Suite {

    private static final List<String> PEERS = List.of("chronicle", "mapdb", "lmdb");
    private static final Map<String, String> NAMES = Map.of("chronicle", "Chronicle Map 2026.1", "mapdb", "MapDB",
            "lmdb", "lmdbjava");

    /** Creates the suite. */
    public FilesSuite() {}

    @Override
    public String name() {
        return "files";
    }

    @Override
    public String description() {
        return "bytes on disk over the raw key+value bytes, 1M of seed 001's users: Colossal vs Chronicle Map,"
                + " MapDB and lmdbjava";
    }

    @Override
    public List<String> jvmFlags() {
        return MapSuite.PEER_FLAGS;
    }

    @Override
    public List<Row> run(boolean quick) throws Exception {
        int users = quick ? 200_000 : 1_000_000;
        String size = String.format(Locale.ROOT, "%,d users", users);
        Map<String, String> ours = ChildJvm.run(List.of(), FileSizeMain.class, "colossal", Integer.toString(users));
        double raw = Double.parseDouble(ours.get("rawBytes"));
        double oursOver = over(ours, raw);
        List<Row> rows = new ArrayList<>();
        rows.add(Row.absolute(size + ": disk over raw key+value bytes", "BytesMap", new Jmh.Result(oursOver, Double.NaN, "%"),
                        false, 15.0)
                .withNote(note(ours, raw, users) + "; no size hint, checksums on (the defaults)"));
        for (String peer : PEERS) {
            Map<String, String> theirs = ChildJvm.run(MapSuite.PEER_FLAGS, FileSizeMain.class, peer, Integer.toString(users));
            rows.add(new Row(size + ": disk over raw key+value bytes", "BytesMap", NAMES.get(peer), "%", oursOver,
                    Double.NaN, over(theirs, raw), Double.NaN, false, null, "theirs: " + note(theirs, raw, users)
                    + (peer.equals("chronicle") ? "; sized exactly (entries and average value given)" : "")
                    + (peer.equals("lmdb") ? "; allocated blocks of its sparse file" : "")));
        }
        return rows;
    }

    /** @return how many percent the store's allocated bytes are over the raw bytes */
    private static double over(Map<String, String> run, double raw) {
        return 100 * (Double.parseDouble(run.get("allocatedBytes")) / raw - 1);
    }

    private static String note(Map<String, String> run, double raw, int users) {
        double allocated = Double.parseDouble(run.get("allocatedBytes"));
        return String.format(Locale.ROOT, "%.1f MB on disk (du), %.1f bytes per user; raw %.1f MB, %.1f bytes per user"
                        + " (4-byte id, %s-byte average value)", allocated / 1e6, allocated / users, raw / 1e6, raw / users,
                run.get("averageValue"));
    }
}
