package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SLOWLOG's entries as redis-server keeps them: what redis-compat.txt cannot compare byte for
 * byte (ids, times and client addresses differ between the two servers), checked here.
 */
class SlowLogTest {

    @TempDir
    Path dir;

    private static byte[][] args(String... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static List<String> kept(SlowLog.Entry e) {
        List<String> out = new ArrayList<>();
        for (byte[] b : e.args()) {
            out.add(new String(b, StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void keepsArgumentsAsRedisDoesAndNeverAPassword() {
        SlowLog log = new SlowLog();
        log.slowerThanMicros(0);
        Client c = new Client(7, "127.0.0.1:5000", 0, true);
        c.name = "ops";
        log.observe(c, args("AUTH", "default", "secret"), 1_000, 5_000);
        log.observe(c, args("HELLO", "3", "AUTH", "default", "secret", "SETNAME", "x"), 1_000, 5_000);
        log.observe(c, args("CONFIG", "SET", "requirepass", "secret", "timeout", "5"), 1_000, 5_000);
        String[] mget = new String[40];
        mget[0] = "MGET";
        for (int i = 1; i < mget.length; i++) {
            mget[i] = "k" + i;
        }
        log.observe(c, args(mget), 1_000, 5_000);
        log.observe(c, args("SET", "k", "v".repeat(200)), 12_345_000, 6_000);

        List<SlowLog.Entry> newest = log.newest(-1);
        assertEquals(5, newest.size());
        SlowLog.Entry set = newest.get(0);
        assertEquals(4, set.id());
        assertEquals(6, set.unixSeconds());
        assertEquals(12_345, set.micros());
        assertEquals("127.0.0.1:5000", set.address());
        assertEquals("ops", set.name());
        assertEquals(List.of("SET", "k", "v".repeat(128) + "... (72 more bytes)"), kept(set));
        List<String> mgetKept = kept(newest.get(1));
        assertEquals(32, mgetKept.size());
        assertEquals("k30", mgetKept.get(30));
        assertEquals("... (9 more arguments)", mgetKept.get(31));
        assertEquals(List.of("CONFIG", "SET", "requirepass", "(redacted)", "timeout", "5"), kept(newest.get(2)));
        assertEquals(List.of("HELLO", "3", "AUTH", "(redacted)", "(redacted)", "SETNAME", "x"), kept(newest.get(3)));
        assertEquals(List.of("AUTH", "(redacted)", "(redacted)"), kept(newest.get(4)));
        assertEquals(2, log.newest(2).size());
    }

    @Test
    void aclSetUsersUserAndRulesAreRedactedAsRedisDoes() {
        SlowLog log = new SlowLog();
        log.slowerThanMicros(0);
        Client c = new Client(7, "127.0.0.1:5000", 0, true);
        log.observe(c, args("ACL", "SETUSER", "app", "on", ">secret"), 1_000, 5_000);
        log.observe(c, args("ACL", "DELUSER", "app"), 1_000, 5_000);
        assertEquals(List.of("ACL", "DELUSER", "app"), kept(log.newest(-1).get(0)));
        assertEquals(List.of("ACL", "SETUSER", "(redacted)", "(redacted)", "(redacted)"), kept(log.newest(-1).get(1)));
    }

    @Test
    void migratesPasswordsAreRedactedAsRedisDoes() {
        SlowLog log = new SlowLog();
        log.slowerThanMicros(0);
        Client c = new Client(7, "127.0.0.1:5000", 0, true);
        log.observe(c, args("MIGRATE", "h", "1", "", "0", "5000", "AUTH", "pw", "KEYS", "AUTH"), 1_000, 5_000);
        log.observe(c, args("MIGRATE", "h", "1", "k", "0", "5000", "COPY", "AUTH2", "user", "pw"), 1_000, 5_000);
        assertEquals(List.of("MIGRATE", "h", "1", "k", "0", "5000", "COPY", "AUTH2", "(redacted)", "(redacted)"),
                kept(log.newest(-1).get(0)));
        assertEquals(List.of("MIGRATE", "h", "1", "", "0", "5000", "AUTH", "(redacted)", "KEYS", "AUTH"),
                kept(log.newest(-1).get(1)), "a key named AUTH is no option");
    }

    @Test
    void logsOnlyCommandsAtLeastTheBoundAndKeepsTheNewest() {
        SlowLog log = new SlowLog();
        Client c = new Client(1, "127.0.0.1:1", 0, true);
        log.observe(c, args("GET", "k"), 9_999_000, 0);
        assertEquals(0, log.size(), "under 10 ms, Redis's default bound");
        log.observe(c, args("KEYS", "*"), 10_000_000, 0);
        assertEquals(1, log.size());
        log.slowerThanMicros(-1);
        log.observe(c, args("KEYS", "*"), Long.MAX_VALUE, 0);
        assertEquals(1, log.size(), "a negative bound logs nothing");
        log.slowerThanMicros(0);
        for (int i = 0; i < 5; i++) {
            log.observe(c, args("INCR", "n" + i), 0, 0);
        }
        log.maxLen(3);
        assertEquals(List.of("n4", "n3", "n2"), log.newest(-1).stream().map(e -> kept(e).get(1)).toList());
        assertEquals("", log.newest(-1).get(0).name(), "no name: an empty string, as in Redis");
    }

    /** The GET and SET read in place in the input buffer are timed and logged too; EXEC is not, its commands are. */
    @Test
    void theServerLogsItsCommandsOverTheWire() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir); Wire w = new Wire(server.port())) {
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "slowlog-log-slower-than", "0"));
            w.call("CLIENT", "SETNAME", "trial");
            w.call("SET", "key", "value");
            w.call("GET", "key");
            w.call("MULTI");
            w.call("INCR", "n");
            w.call("EXEC");
            String got = w.call("SLOWLOG", "GET", "4");
            assertTrue(got.startsWith("*4\r\n*6\r\n:"), got);
            assertTrue(got.contains("*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n$"), got);
            assertTrue(got.contains("\r\n127.0.0.1:"), got);
            assertTrue(got.contains("*1\r\n$5\r\nMULTI\r\n"), got);
            assertTrue(got.contains("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n"), got);
            assertTrue(got.contains("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"), got);
            assertTrue(got.contains("\r\n$5\r\ntrial\r\n"), got);
            assertTrue(!got.contains("EXEC"), got);
        }
    }
    /** A blocked command is logged when it is served, after the command that served it, as Redis logs it. */
    @Test
    void aBlockedCommandIsLoggedWhenServedNotWhenItBlocks() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir); Wire blocked = new Wire(server.port());
             Wire pusher = new Wire(server.port())) {
            pusher.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
            blocked.send(Wire.encode("BLPOP", "l", "0"));
            TestServers.await(true, 5000, () -> server.context().waits.blocked() == 1);
            pusher.call("SLOWLOG", "RESET");
            assertFalse(pusher.call("SLOWLOG", "GET", "-1").contains("BLPOP"), "not logged when it blocked");
            pusher.call("LPUSH", "l", "foo");
            assertEquals("*2\r\n$1\r\nl\r\n$3\r\nfoo\r\n", blocked.reply());
            String log = pusher.call("SLOWLOG", "GET", "3");
            int blpop = log.indexOf("$5\r\nBLPOP\r\n");
            int lpush = log.indexOf("$5\r\nLPUSH\r\n");
            assertTrue(blpop > 0 && lpush > blpop, "newest first: the BLPOP served, then the LPUSH that served it: " + log);
        }
    }
}
