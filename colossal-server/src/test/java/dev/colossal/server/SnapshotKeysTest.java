package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.rdb.RdbFile;
import dev.colossal.rdb.RdbReader;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;

/**
 * The per-key API a snapshot builder calls ({@link KeyValueStore#scanEntries}, then
 * {@link DumpCommands#writeKey} into {@link RdbFile}) writes each key's record byte for byte as
 * the path through DUMP payloads does ({@link KeyValueStore#allKeys}, {@link DumpCommands#payload},
 * {@link RdbFile#key}), for every type and encoding, a chunked string and TTLs included, and a file
 * whose checksum holds.
 */
class SnapshotKeysTest {

    @TempDir
    Path dir;

    @Test
    void theEntryScanWritesEachKeyAsTheDumpPathDoes() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir.resolve("data")); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j);
            KeyValueStore store = s.context().dbs.store(0);
            java.util.List<byte[]> keys = new java.util.ArrayList<>();
            Deadlines deadlines = new Deadlines();
            store.scanKeys(k -> true, (k, at) -> {
                keys.add(k);
                deadlines.add(at);
            });
            long expiring = deadlines.expiring();
            assertEquals(j.dbSize(), keys.size());

            RdbFile viaDump = new RdbFile("7.0.15", 1_000_000, 0);
            viaDump.database(0, keys.size(), expiring);
            DumpCommands dumps = new DumpCommands(s.context());
            for (int i = 0; i < keys.size(); i++) {
                long at = deadlines.at(i);
                viaDump.key(keys.get(i), dumps.payload(store, keys.get(i)), at == StoredValue.NO_EXPIRY ? -1 : at);
            }
            RdbFile viaEntries = new RdbFile("7.0.15", 1_000_000, 0);
            viaEntries.database(0, keys.size(), expiring);
            int[] chunked = {0};
            long cursor = 0;
            do {   // small steps, as a builder beside writers takes them
                cursor = store.scanEntries(cursor, 7, (key, e) -> {
                    chunked[0] += e.chunked() ? 1 : 0;
                    assertTrue(DumpCommands.writeKey(viaEntries, store, key, e));
                });
            } while (cursor != 0);
            assertEquals(1, chunked[0], "the big string comes as its header and is read whole");

            byte[] a = viaDump.finish();
            byte[] b = viaEntries.finish();
            assertEquals(a.length, b.length);
            Map<String, String> want = records(a);
            assertEquals(keys.size(), want.size());
            assertEquals(want, records(b));
        }
    }

    /** Every type in each of its encodings, some keys with a TTL, one string kept in chunks. */
    private static void fill(Jedis j) {
        for (int i = 0; i < 300; i++) {
            j.set("s" + i, i % 3 == 0 ? Integer.toString(i * 7919 - 1000) : "value-" + i);
            if (i % 5 == 0) {
                j.pexpire("s" + i, 3_600_000 + i);
            }
        }
        j.set("big", "x".repeat(60_000));
        j.append("big", "y".repeat(20_000));   // past the chunking threshold
        j.set("n64", "9223372036854775807");
        j.hset("h-small", Map.of("a", "1", "b", "two"));
        for (int i = 0; i < 300; i++) {
            j.hset("h-big", "f" + i, "v" + i);
            j.rpush("l-big", "e" + i, Integer.toString(i));
            j.sadd("set-big", "m" + i);
            j.zadd("z-big", i / 3.0, "zm" + i);
        }
        j.rpush("l-small", "a", "17", "-3");
        j.sadd("set-int", "1", "5", "-70000");
        j.sadd("set-str", "x", "y");
        j.zadd("z-small", Map.of("a", 1.5, "b", -2.0));
        for (int i = 1; i <= 20; i++) {
            j.xadd("x", new StreamEntryID(i, 1), Map.of("f", "v" + i));
        }
        j.xgroupCreate("x", "g", new StreamEntryID(5, 1), false);
        j.expire("h-small", 7200);
    }

    /** @return each key's record (deadline, type, key, value) in hex, read back by {@link RdbReader}, its checksum checked */
    private static Map<String, String> records(byte[] file) throws Exception {
        Map<String, String> out = new TreeMap<>();
        long[] end = {-1};
        RdbReader.Visitor v = new RdbReader.Visitor() {
            @Override
            public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {
                add(key, offset);
            }

            @Override
            public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {
                add(key, offset);
            }

            private void add(byte[] key, long offset) {
                // the first record's bytes run from the start: both files' headers are alike
                out.put(new String(key, java.nio.charset.StandardCharsets.ISO_8859_1),
                        HexFormat.of().formatHex(file, (int) Math.max(0, end[0]), (int) offset));
                end[0] = offset;
            }
        };
        RdbReader.Result r = RdbReader.read(MemorySegment.ofArray(file), RdbReader.Mode.CHECK, v);
        assertEquals(RdbReader.ChecksumState.VERIFIED, r.checksum());
        return out;
    }
}
