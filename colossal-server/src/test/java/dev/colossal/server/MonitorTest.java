package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.server.SideBySideConnections.Step;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MONITOR against redis-server 7: a monitor connection and two others run the same steps on both
 * servers, and every connection must receive the same bytes but for each line's time and client
 * address, which are checked on their own (the time is now, the address the sender's socket, a
 * script's calls {@code lua}). Shown or hidden (admin commands, refused ones), the order of a
 * script and its calls and of EXEC and its commands, escaping, redacted passwords, the keyspace
 * refusals a monitor gets, and RESET ending it all come from Redis's own answers.
 */
class MonitorTest {

    private static final List<Step> SCRIPT = List.of(
            new Step(0, "MONITOR"),
            new Step(1, "SET", "k", "v"),
            new Step(1, "GET", "k"),
            new Step(2, "SET", "odd \"key\"", "line\nbreak\ttab\\\u0001\u00e9\r"),
            new Step(2, "GET", "missing"),
            new Step(1, "EVAL", "redis.call('set', KEYS[1], 'x') return redis.call('get', KEYS[1])", "1", "k"),
            new Step(1, "AUTH", "secret"),
            new Step(1, "AUTH", "user", "secret"),
            new Step(2, "HELLO", "2", "AUTH", "default", "secret", "SETNAME", "shown"),
            new Step(1, "MIGRATE", "127.0.0.1", "1", "nokey", "0", "5000", "AUTH", "secret"),
            new Step(1, "MIGRATE", "127.0.0.1", "1", "nokey", "0", "5000", "AUTH2", "user", "secret"),
            new Step(2, "SELECT", "3"),
            new Step(2, "SET", "in3", "x"),
            new Step(1, "MULTI"),
            new Step(1, "INCR", "n"),
            new Step(1, "GET", "n"),
            new Step(1, "EXEC"),
            new Step(1, "CONFIG", "GET", "maxmemory-policy"),
            new Step(1, "CLIENT", "LIST", "ID", "99999"),
            new Step(1, "CLIENT", "SETNAME", "one"),
            new Step(1, "CLIENT", "NOSUCH"),
            new Step(1, "SLOWLOG", "GET", "0"),
            new Step(1, "SLOWLOG", "HELP"),
            new Step(1, "NOSUCHCOMMAND", "a"),
            new Step(1, "GET"),
            new Step(1, "BLPOP", "nolist", "0.01"),
            new Step(1, "DEL", "k", "in3"),
            new Step(1, "PUBLISH", "ch", "m"),
            new Step(0, "GET", "k"),
            new Step(0, "SET", "k", "v"),
            new Step(0, "DBSIZE"),
            new Step(0, "PUBLISH", "ch", "m"),
            new Step(0, "EVAL", "return 1", "0"),
            new Step(0, "OBJECT", "ENCODING", "k"),
            new Step(0, "OBJECT", "HELP"),
            new Step(0, "PING"),
            new Step(0, "ECHO", "x"),
            new Step(0, "MONITOR"),
            new Step(0, "MULTI"),
            new Step(0, "GET", "k"),
            new Step(0, "EXEC"),
            new Step(0, "RESET"),
            new Step(1, "SET", "after", "reset"),
            new Step(0, "GET", "after"));

    private static final Pattern LINE = Pattern.compile("\\+(\\d+)\\.(\\d{6}) \\[(\\d+) ([^\\]]+)\\]");

    @TempDir
    Path dir;

    @Test
    void everyConnectionReceivesWhatRedisSendsButForTimesAndAddresses() throws Exception {
        TestServers.onRedis(redisPort -> {
            try (ColossalServer server = TestServers.colossal(dir);
                 SideBySideConnections side = new SideBySideConnections(redisPort, server.port(), 3)) {
                int[] lines = new int[1];
                side.run(SCRIPT, MonitorTest::masked, got -> lines[0] += checkTimesAndAddresses(got, side.ours));
                assertTrue(lines[0] > 40, lines[0] + " monitor lines checked");
                assertFalse(server.context().monitors.active(), "RESET ended the only monitor");
            }
        });
    }

    @Test
    void aClosedMonitorCostsNothingMoreAndClientListFlagsIt() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir); Wire other = new Wire(server.port())) {
            try (Wire monitor = new Wire(server.port())) {
                assertEquals("+OK\r\n", monitor.call("MONITOR"));
                assertTrue(server.context().monitors.active());
                assertTrue(other.call("CLIENT", "LIST").contains(" flags=O "), "a monitor is flagged O");
            }
            TestServers.await(false, 5000, () -> server.context().monitors.active());
            assertEquals("+OK\r\n", other.call("SET", "k", "v"));
        }
    }

    /** @return the monitor lines in {@code got}, each checked: its time is now, its address its sender's */
    private static int checkTimesAndAddresses(String got, List<Wire> ours) {
        Matcher m = LINE.matcher(got);
        int n = 0;
        while (m.find()) {
            long seconds = Long.parseLong(m.group(1));
            assertTrue(Math.abs(seconds - System.currentTimeMillis() / 1000) < 60, "a time of now: " + m.group());
            String addr = m.group(4);
            boolean known = addr.equals("lua");
            for (Wire w : ours) {
                known |= addr.equals("127.0.0.1:" + w.socket.getLocalPort());
            }
            assertTrue(known, "the address of one of the test's connections: " + m.group());
            n++;
        }
        return n;
    }

    /** @return {@code replies} without what differs by right: lines' times and addresses, HELLO's client id */
    private static String masked(String replies) {
        return LINE.matcher(PubSubDifferentialTest.withoutId(replies)).replaceAll(r -> "+T [" + r.group(3) + " "
                + (r.group(4).equals("lua") ? "lua" : "ADDR") + "]");
    }
}
