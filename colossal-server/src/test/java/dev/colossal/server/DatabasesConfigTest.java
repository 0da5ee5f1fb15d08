package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.map.MapInspector;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;

/** {@code --databases} and {@code --maxmemory} over several databases. */
class DatabasesConfigTest {

    private static final long BOUND = 4L << 20;

    @TempDir
    Path dir;

    private static ServerConfig config(Path data) {
        return ServerConfig.defaults().withDataDir(data).withPorts(0, -1);
    }

    private static Jedis jedis(ColossalServer s, int db) {
        return new Jedis(URI.create("redis://127.0.0.1:" + s.port() + "/" + db));
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    /**
     * Served with fewer databases than it was, a directory would keep keys no SELECT reaches and no
     * FLUSHALL clears: the start is refused, naming the files and the setting that serves them.
     */
    @Test
    void aRestartWithFewerDatabasesIsRefusedNamingTheFiles() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Jedis five = jedis(s, 5); Jedis nine = jedis(s, 9)) {
            five.set("k", "five");
            nine.set("k", "nine");
        }
        DatabasesMismatchException e = assertThrows(DatabasesMismatchException.class,
                () -> ColossalServer.start(config(dir).withDatabases(4)));
        assertEquals("data directory " + dir.toAbsolutePath() + " holds " + dir.resolve("db5.map") + ", " + dir.resolve("db9.map")
                + ", of databases beyond this start's --databases 4 (0 to 3): it was served with more; start with --databases"
                + " 10 or more to serve them, or move those files out of the directory to drop their keys", e.getMessage());
        // refused before anything was opened: the directory is free, and the keys are all there
        try (ColossalServer s = ColossalServer.start(config(dir).withDatabases(10)); Jedis nine = jedis(s, 9);
             Jedis w = new Jedis("127.0.0.1", s.port())) {
            assertEquals("nine", nine.get("k"));
            assertTrue(s.startupReport().stream().noneMatch(l -> l.contains("did not stop cleanly")),
                    "the refused start is no unclean stop: " + s.startupReport());
            assertEquals(List.of("databases", "10"), w.configGet("databases").entrySet().stream()
                    .flatMap(x -> java.util.stream.Stream.of(x.getKey(), x.getValue())).toList());
            JedisDataException out = assertThrows(JedisDataException.class, () -> w.select(10));
            assertEquals("ERR DB index is out of range", out.getMessage());
        }
        Files.delete(dir.resolve("db9.map"));
        Files.delete(dir.resolve("db5.map"));
        try (ColossalServer s = ColossalServer.start(config(dir).withDatabases(1)); Wire w = new Wire(s.port())) {
            assertEquals("+OK\r\n", w.call("SELECT", "0"));
            assertEquals("-ERR DB index is out of range\r\n", w.call("SELECT", "1"));
        }
    }

    /**
     * {@code --maxmemory} is one bound for the server, as in Redis: four databases each written
     * past it hold no more together than one alone may, databases written alike keep alike shares,
     * and every key missing was evicted and counted.
     */
    @Test
    void maxmemoryBoundsEveryDatabaseTogether() throws Exception {
        String value = "v".repeat(1000);
        int perDb = 6_000; // 6 MB each, 24 MB in all, against 4 MiB
        ServerConfig cache = config(dir).withMaxMemory(BOUND, ServerConfig.ALLKEYS_LRU);
        long used;
        try (ColossalServer s = ColossalServer.start(cache); Jedis j = new Jedis("127.0.0.1", s.port())) {
            List<Jedis> dbs = List.of(jedis(s, 0), jedis(s, 1), jedis(s, 2), jedis(s, 3));
            List<Pipeline> pipes = dbs.stream().map(Jedis::pipelined).toList();
            for (int i = 0; i < perDb; i++) {
                for (Pipeline p : pipes) {
                    p.set("k" + i, value);
                }
                if (i % 500 == 499) {
                    pipes.forEach(Pipeline::sync);
                    String memory = j.info("memory");
                    assertTrue(field(memory, "used_memory") <= BOUND, "after " + (i + 1) + " keys each: " + memory);
                }
            }
            pipes.forEach(Pipeline::sync);
            long keys = 0;
            for (Jedis db : dbs) {
                long n = db.dbSize();
                assertTrue(n > 600 && n < 1400, "each database keeps about a quarter of ~4,000 keys: " + n);
                keys += n;
                db.close();
            }
            used = field(j.info("memory"), "used_memory");
            assertTrue(used <= BOUND && used > BOUND / 2, "used_memory=" + used + " of " + BOUND);
            assertEquals(4L * perDb - keys, field(j.info("stats"), "evicted_keys"), "every key missing was evicted");
        }
        long files = 0;
        for (int db = 0; db < 4; db++) {
            files += MapInspector.inspect(dir.resolve("db" + db + ".map")).usedBytes();
        }
        assertEquals(used, files, "what colossal inspect counts in the four files");
        // after a restart writes to another database make room in the others, as in Redis the new keys push out the old
        try (ColossalServer s = ColossalServer.start(cache); Jedis seven = jedis(s, 7); Jedis zero = jedis(s, 0)) {
            Pipeline p = seven.pipelined();
            for (int i = 0; i < 3000; i++) {
                p.set("late" + i, value);
            }
            p.sync();
            assertTrue(field(seven.info("memory"), "used_memory") <= BOUND, seven.info("memory"));
            assertTrue(seven.dbSize() > 2000, "the newest keys are in database 7: " + seven.dbSize());
            assertTrue(zero.dbSize() < 600, "and database 0 gave up most of its older ones: " + zero.dbSize());
        }
    }

    /** One database alone evicts only by its map's own bound, to the last byte, as before there were several. */
    @Test
    void oneDatabaseAloneFillsTheWholeBound() throws Exception {
        ServerConfig cache = config(dir).withMaxMemory(BOUND, ServerConfig.ALLKEYS_LRU);
        try (ColossalServer s = ColossalServer.start(cache); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < 8000; i++) {
                p.set("k" + i, "v".repeat(1000));
            }
            p.sync();
            long used = field(j.info("memory"), "used_memory");
            assertTrue(used > BOUND - BOUND / 64, "no room held back with one database: " + used);
        }
    }
}
