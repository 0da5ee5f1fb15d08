package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * {@code save <seconds> <changes>} ({@link SavePoints}): the server forces its maps on its own once
 * a point's changes are made and its seconds have gone by, and counts it as SAVE is counted
 * (LASTSAVE, INFO persistence); a point not reached saves nothing. CONFIG SET save was refused,
 * which ended Redis's own introspection unit at {@code CONFIG SET with multiple args}.
 */
class SavePointsTest {

    @TempDir
    Path dir;

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing from " + info);
        return Long.parseLong(m.group(1));
    }

    @Test
    void aPointReachedSavesOnItsOwnAndOneNotReachedDoesNot() throws Exception {
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("d")).withPorts(0, -1));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            long started = j.lastsave();
            assertEquals("OK", j.configSet("save", "1 100"));
            for (int i = 0; i < 3; i++) {
                j.set("k" + i, "v");
            }
            Thread.sleep(2500);   // past the point's second, short of its changes
            String p = j.info("persistence");
            assertEquals(0, field(p, "rdb_saves"), p);
            assertEquals(3, field(p, "rdb_changes_since_last_save"), p);

            assertEquals("OK", j.configSet("save", "3600 1000 1 3"));
            assertEquals("3600 1000 1 3", j.configGet("save").get("save"));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (field(j.info("persistence"), "rdb_saves") == 0 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            p = j.info("persistence");
            assertEquals(1, field(p, "rdb_saves"), p);
            assertEquals(0, field(p, "rdb_changes_since_last_save"), p);
            assertTrue(field(p, "rdb_last_save_time") > started && j.lastsave() > started, p);

            // nothing changed since: no second save, however many seconds go by
            assertEquals("OK", j.configSet("save", "1 1"));
            Thread.sleep(2500);
            assertEquals(1, field(j.info("persistence"), "rdb_saves"));
            assertEquals("OK", j.configSet("save", ""));
            assertEquals("", j.configGet("save").get("save"));
        }
    }

    /** FLUSHALL saves when a save point is set, as Redis's does (and counts itself as one change after it), and not without one. */
    @Test
    void flushallSavesWhenASavePointIsSet() throws Exception {
        String want = null;
        java.util.List<String> seen = new java.util.ArrayList<>();
        java.nio.file.Path redisDir = java.nio.file.Files.createDirectories(dir.resolve("redis"));
        TestServers.onRedisWith(java.util.List.of("--dir", redisDir.toString()), port -> seen.add(flushes(port)));
        if (!seen.isEmpty()) {
            want = seen.getFirst();
        }
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("f")).withPorts(0, -1))) {
            String ours = flushes(s.port());
            assertEquals("without a point: saves 0 changes 2; with one: saves 0 changes 0 lastsave moved true", ours);
            if (want != null) {
                assertEquals(want, ours);
            }
        }
    }

    /** @return the saves and changes counted after a FLUSHALL without a save point, then with one */
    private static String flushes(int port) throws InterruptedException {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            j.configSet("save", "");
            j.set("a", "1");
            j.flushAll();
            String before = j.info("persistence");
            j.configSet("save", "3600 1000");
            j.set("b", "2");
            long lastsave = j.lastsave();
            Thread.sleep(1100); // LASTSAVE counts seconds
            j.flushAll();
            String after = j.info("persistence");
            boolean moved = j.lastsave() > lastsave;
            j.configSet("save", "");
            return "without a point: saves " + field(before, "rdb_saves") + " changes " + field(before, "rdb_changes_since_last_save")
                    + "; with one: saves " + field(after, "rdb_saves") + " changes " + field(after, "rdb_changes_since_last_save")
                    + " lastsave moved " + moved;
        }
    }

    @Test
    void valuesAreReadAsRedisReadsThem() {
        assertArrayEquals(new long[0], SavePoints.parse(""));
        assertArrayEquals(new long[] {3000, 5}, SavePoints.parse("3000 5"));
        assertArrayEquals(new long[] {10, 0}, SavePoints.parse("10 "));
        assertArrayEquals(new long[] {5, 1}, SavePoints.parse("+5 1"));
        assertArrayEquals(new long[] {Long.MAX_VALUE, 1}, SavePoints.parse("99999999999999999999 1"));
        assertArrayEquals(new long[] {10, 2}, SavePoints.parse("\t10 2"));
        for (String bad : new String[] {"3000", "0 5", "5 -1", "abc 1", "10  2", " 10 2", "10 2.0", " ", "0x10 2"}) {
            assertNull(SavePoints.parse(bad), bad);
        }
        assertTrue(SavePoints.due(new long[] {60, 0}, 0, 61));
        assertFalse(SavePoints.due(new long[] {60, 0}, 5, 60), "more seconds than the point's, as Redis counts");
        assertFalse(SavePoints.due(new long[] {1, 10}, 9, 100));
        assertTrue(SavePoints.due(new long[] {3600, 1, 1, 10}, 10, 2));
    }
}
