package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
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

    private record Step(int conn, String... cmd) {
    }

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
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        List<Wire> theirs = new ArrayList<>();
        List<Wire> ours = new ArrayList<>();
        try (ColossalServer server = TestServers.colossal(dir)) {
            for (int i = 0; i < 3; i++) {
                theirs.add(new Wire(redisPort));
                ours.add(new Wire(server.port()));
            }
            List<String> done = new ArrayList<>();
            int sentinel = 0;
            int lines = 0;
            // A connection inside MULTI would queue its sentinel: it is read one reply per command instead
            java.util.Set<Integer> inMulti = new java.util.HashSet<>();
            for (Step step : SCRIPT) {
                done.add(step.conn + ": " + String.join(" ", step.cmd));
                byte[] frame = Wire.encode(step.cmd);
                theirs.get(step.conn).send(frame);
                ours.get(step.conn).send(frame);
                String name = step.cmd[0];
                if (name.equals("MULTI")) {
                    inMulti.add(step.conn);
                }
                for (int k = 0; k < 3; k++) {
                    int conn = (step.conn + k) % 3;
                    if (inMulti.contains(conn) && conn != step.conn) {
                        continue;
                    }
                    String mark = "sentinel-" + sentinel++;
                    boolean queued = inMulti.contains(conn);
                    String want = queued ? theirs.get(conn).reply() : PubSubDifferentialTest.upToSentinel(theirs.get(conn), mark);
                    String got = queued ? ours.get(conn).reply() : PubSubDifferentialTest.upToSentinel(ours.get(conn), mark);
                    lines += checkTimesAndAddresses(got, ours);
                    assertEquals(PubSubDifferentialTest.show(masked(want)), PubSubDifferentialTest.show(masked(got)),
                            "connection " + conn + " after:\n  " + String.join("\n  ", done));
                }
                if (name.equals("EXEC")) {
                    inMulti.remove(step.conn);
                }
            }
            assertTrue(lines > 40, lines + " monitor lines checked");
            assertFalse(server.context().monitors.active(), "RESET ended the only monitor");
        } finally {
            for (Wire w : theirs) {
                w.close();
            }
            for (Wire w : ours) {
                w.close();
            }
            redis.destroy();
            redis.waitFor();
        }
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
