import dev.colossal.rdb.RdbReader;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * java -cp colossal-server.jar snapshot-cost-records.java A.rdb B.rdb: reads both RDB files with RdbReader (checksum
 * checked) and compares each key's record byte for byte, its deadline left out (TTLs set at different times on two
 * servers); the first record of each file is left out too (its bytes run from the header). Prints the keys that differ.
 */
public class RecordDiff {
    static Map<String, String> records(Path p) throws Exception {
        byte[] file = Files.readAllBytes(p);
        Map<String, String> out = new TreeMap<>();
        long[] end = {-1};
        RdbReader.Visitor v = new RdbReader.Visitor() {
            public void string(int db, byte[] key, byte[] value, long at, long offset) { add(key, at, offset); }
            public void other(int db, byte[] key, String type, long at, long offset) { add(key, at, offset); }
            void add(byte[] key, long at, long offset) {
                String k = new String(key, java.nio.charset.StandardCharsets.ISO_8859_1);
                int from = (int) Math.max(0, end[0]);
                // drop the deadline's 9 bytes: TTLs were set at different times on the two servers
                if (at != 0) from += 9;
                out.put(k, end[0] < 0 ? "(first)" : HexFormat.of().formatHex(file, from, (int) offset));
                end[0] = offset;
            }
        };
        System.out.println(p + " " + RdbReader.read(MemorySegment.ofArray(file), RdbReader.Mode.CHECK, v));
        return out;
    }
    public static void main(String[] a) throws Exception {
        Map<String, String> x = records(Path.of(a[0])), y = records(Path.of(a[1]));
        System.out.println("keys " + x.size() + " " + y.size());
        int diff = 0;
        for (var e : x.entrySet()) {
            String o = y.get(e.getKey());
            if (!e.getValue().equals(o) && !"(first)".equals(e.getValue()) && !"(first)".equals(o)) {
                if (diff++ < 5) System.out.println("differs: " + e.getKey() + " " + e.getValue().length() / 2 + " vs " + (o == null ? -1 : o.length() / 2)
                    + "\n  " + e.getValue().substring(0, Math.min(200, e.getValue().length())) + "\n  " + (o == null ? "" : o.substring(0, Math.min(200, o.length()))));
            }
        }
        System.out.println("differing records: " + diff);
    }
}
