package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MIGRATE from Colossal and from redis-server 7.0.15 to a second redis-server, side by side: the
 * same keys of every type (one with a time to live) moved with each option, and each failure
 * (nothing to move, a key the target has, a wrong password, no server at the port, bad
 * arguments), must get the same replies, leave the same keys behind, and land the same values
 * (DUMP payloads, TTLs rounded to seconds) in the target.
 */
class MigrateDifferentialTest {

    @TempDir
    Path dir;

    @Test
    void migrateMovesWhatRedisMoves() throws Exception {
        int sourcePort = TestServers.freePort();
        int targetPort = TestServers.freePort();
        int deadPort = TestServers.freePort();
        Process source = TestServers.redis(sourcePort);
        Assumptions.assumeTrue(source != null, "redis-server not installed");
        Process target = TestServers.redis(targetPort, "--requirepass", "pw", "--databases", "4");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(sourcePort);
             Wire o = new Wire(ours.port());
             Wire t = new Wire(targetPort)) {
            t.call("AUTH", "pw");
            String tp = Integer.toString(targetPort);
            List<String[]> steps = List.of(
                    new String[] {"MIGRATE", "127.0.0.1", tp, "s", "0", "5000", "AUTH", "pw"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "", "1", "5000", "AUTH", "pw", "KEYS", "h", "l", "nosuch"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "z", "0", "5000", "COPY", "AUTH2", "default", "pw"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "z", "0", "5000", "AUTH", "pw"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "z", "0", "5000", "REPLACE", "AUTH", "pw"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "x", "0", "5000", "AUTH", "pw"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "5000", "AUTH", "wrong"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "5000"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "9", "5000", "AUTH", "pw"},
                    new String[] {"MIGRATE", "127.0.0.1", Integer.toString(deadPort), "st", "0", "500"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "x", "5000"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "x"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "5000", "KEYS", "st"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "5000", "NOPE"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "5000", "AUTH"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0", "5000", "AUTH2", "u"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "st", "0"},
                    new String[] {"MIGRATE", "127.0.0.1", tp, "", "0", "0", "AUTH", "pw", "KEYS", "st", "sx"});
            List<String> fromRedis = run(r, t, steps);
            List<String> fromUs = run(o, t, steps);
            assertEquals(fromRedis, fromUs);
        } finally {
            source.destroy();
            target.destroy();
            source.waitFor();
            target.waitFor();
        }
    }

    /** Fills {@code from}, runs each step, and records its reply, the keys left and the target's keys. */
    private static List<String> run(Wire from, Wire to, List<String[]> steps) throws Exception {
        to.call("FLUSHALL");
        from.call("FLUSHALL");
        from.call("SET", "s", "text");
        from.call("PEXPIRE", "s", "105000"); // mid-bucket: PTTL / 10000 reads 10 for the next 5 s
        from.call("HSET", "h", "f", "v", "g", "w");
        from.call("RPUSH", "l", "a", "b", "c");
        from.call("ZADD", "z", "1", "m", "2.5", "n");
        from.call("SADD", "st", "1", "2", "3");
        from.call("XADD", "sx", "1-1", "f", "v");
        to.call("SET", "z", "already");
        List<String> out = new ArrayList<>();
        for (String[] step : steps) {
            out.add(String.join(" ", step) + " -> " + from.call(step).trim());
            out.add("  left: " + from.call("KEYS", "*").replace("\r\n", " ").length() + " " + from.call("DBSIZE").trim());
            for (String db : List.of("0", "1")) {
                to.call("SELECT", db);
                for (String k : List.of("s", "h", "l", "z", "st", "sx")) {
                    String pttl = to.call("PTTL", k).trim();
                    out.add("  target db " + db + " " + k + ": " + to.call("DUMP", k).trim()
                            + " ttl " + (pttl.startsWith(":-") ? pttl : "> " + (Long.parseLong(pttl.substring(1)) / 10000)));
                }
            }
            to.call("SELECT", "0");
        }
        return out;
    }
}
