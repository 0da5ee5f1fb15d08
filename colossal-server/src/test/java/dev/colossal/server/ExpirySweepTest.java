package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Expired keys leave DBSIZE soon after their deadline, INFO counts keys with a TTL, and a map without TTLs costs no sweeps. */
class ExpirySweepTest {

    @TempDir
    Path dir;

    @Test
    void expiredKeysLeaveDbsizeWithinAFractionOfASecond() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            assertEquals("+OK\r\n", w.call("SET", "stays", "v"));
            for (int i = 0; i < 50; i++) {
                assertEquals("+OK\r\n", w.call("SET", "k" + i, "v", "PX", "500"));
            }
            long written = System.nanoTime();
            assertEquals(":51\r\n", w.call("DBSIZE"));
            // The trial: still 51 1.5 s after the deadline (a sweep every 10 s); redis-server: 1 within ~0.1 s.
            assertEquals(":1\r\n", TestServers.await(":1\r\n", 1500, () -> w.call("DBSIZE")));
            long took = (System.nanoTime() - written) / 1_000_000;
            assertTrue(took < 1200, "DBSIZE fell to 1 " + took + " ms after the SETs, their deadline 500 ms");
            assertTrue(info(w, "stats").contains("\r\nexpired_keys:50\r\n"), info(w, "stats"));
        }
    }

    /** Keys a GET finds expired and removes count in expired_keys too, once each, as Redis counts them. */
    @Test
    void keysRemovedByReadsCountAsExpired() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            for (int i = 0; i < 200; i++) {
                assertEquals("+OK\r\n", w.call("SET", "r" + i, "v", "PX", "200"));
            }
            // Readers race the sweeper for every key: which removes a key must not matter.
            for (boolean any = true; any; ) {
                any = false;
                for (int i = 0; i < 200; i++) {
                    any |= !w.call("GET", "r" + i).equals("$-1\r\n");
                }
            }
            assertEquals(":0\r\n", TestServers.await(":0\r\n", 1500, () -> w.call("DBSIZE")));
            assertTrue(info(w, "stats").contains("\r\nexpired_keys:200\r\n"), info(w, "stats"));
        }
    }

    @Test
    void infoKeyspaceCountsTheKeysWithATtl() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            w.call("SET", "plain", "v");
            w.call("SET", "a", "v", "EX", "100");
            w.call("SET", "b", "v", "PX", "100000");
            w.call("SETEX", "c", "100", "v");
            Pattern line = Pattern.compile("db0:keys=(\\d+),expires=(\\d+),avg_ttl=(\\d+)\r\n");
            Callable<String> counts = () -> {
                Matcher m = line.matcher(info(w, "keyspace"));
                return m.find() ? m.group(1) + "/" + m.group(2) : info(w, "keyspace");
            };
            assertEquals("4/3", TestServers.await("4/3", 2000, counts));
            Matcher m = line.matcher(info(w, "keyspace"));
            assertTrue(m.find());
            long avg = Long.parseLong(m.group(3));
            assertTrue(avg > 90_000 && avg <= 100_000, "avg_ttl=" + avg);
            w.call("PERSIST", "a");
            assertEquals("4/2", TestServers.await("4/2", 2000, counts));
            w.call("SET", "b", "plain now"); // a SET without options drops the TTL, as in Redis
            assertEquals("4/1", TestServers.await("4/1", 2000, counts));
            w.call("DEL", "c");
            assertEquals("3/0", TestServers.await("3/0", 2000, counts));
        }
    }

    @Test
    void aMapWithoutTtlsIsSweptOnceAtStartOnly() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            ExpirySweeper sweeper = s.context().sweeper;
            assertEquals(1L, TestServers.await(1L, 2000, sweeper::sweeps));
            for (int i = 0; i < 1000; i++) {
                w.call("SET", "k" + i, "v");
            }
            w.call("DEL", "k1", "k2");
            w.call("MSET", "a", "1", "b", "2");
            w.call("INCR", "a");
            Thread.sleep(500);
            assertEquals(1, sweeper.sweeps(), "writes without a TTL to a map without TTLs start no sweep");
            w.call("SET", "t", "v", "EX", "100");
            assertEquals(2L, TestServers.await(2L, 2000, sweeper::sweeps));
            for (int i = 0; i < 100; i++) {
                w.call("SET", "k" + i, "v");
            }
            Thread.sleep(500);
            // With a key with a TTL, writes are counted again, but no sooner than the cost bound allows.
            assertTrue(sweeper.sweeps() <= 2 + 500 / 100 + 1, "sweeps=" + sweeper.sweeps());
        }
    }

    private static String info(Wire w, String section) throws Exception {
        return w.call("INFO", section);
    }
}
