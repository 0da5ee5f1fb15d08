package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MULTI/EXEC/DISCARD/WATCH: two clients' scripted steps get Redis's replies byte for byte, and
 * WATCH-guarded increments from many clients at once lose none.
 */
class TransactionTest {

    @TempDir
    Path dir;

    /** Steps of two clients, 1 or 2, each a command; run on redis-server and on ours, replies compared. */
    private static final String[][] SCRIPT = {
        {"1", "EXEC"}, {"1", "DISCARD"}, {"1", "SET", "k", "1"},
        {"1", "MULTI"}, {"1", "MULTI"}, {"1", "INCR", "k"}, {"1", "GET", "k"}, {"1", "WATCH", "k"}, {"1", "EXEC"},
        {"1", "MULTI"}, {"1", "SET", "a", "x"}, {"1", "DISCARD"}, {"1", "EXISTS", "a"},
        // a refused command while queueing aborts the whole transaction
        {"1", "MULTI"}, {"1", "SET", "a", "x"}, {"1", "GET"}, {"1", "NOSUCH"}, {"1", "EXEC"}, {"1", "EXISTS", "a"},
        // an error while running does not
        {"1", "SET", "s", "abc"}, {"1", "MULTI"}, {"1", "INCR", "s"}, {"1", "SET", "a", "y"}, {"1", "MGET", "a", "s"},
        {"1", "EXEC"},
        // WATCH: another client's change makes EXEC give up; an unchanged key lets it run
        {"1", "WATCH", "w", "k"}, {"2", "SET", "w", "changed"}, {"1", "MULTI"}, {"1", "SET", "k", "mine"}, {"1", "EXEC"},
        {"1", "GET", "k"}, {"1", "WATCH", "k"}, {"1", "MULTI"}, {"1", "SET", "k", "mine"}, {"1", "EXEC"}, {"1", "GET", "k"},
        {"1", "WATCH", "k"}, {"1", "UNWATCH"}, {"2", "DEL", "k"}, {"1", "MULTI"}, {"1", "SET", "k", "again"}, {"1", "EXEC"},
        {"1", "WATCH", "gone"}, {"2", "SET", "gone", "now"}, {"1", "MULTI"}, {"1", "PING"}, {"1", "EXEC"},
        {"1", "WATCH", "k"}, {"1", "MULTI"}, {"1", "DISCARD"}, {"2", "SET", "k", "other"}, {"1", "MULTI"}, {"1", "GET", "k"},
        {"1", "EXEC"},
        // another client's write of the value the key already had, or a SET then DEL of a key watched
        // absent, leave the value as it was: EXEC gives up all the same; a new WATCH after it starts clean
        {"1", "SET", "same", "v"}, {"1", "WATCH", "same"}, {"2", "SET", "same", "v"}, {"1", "MULTI"}, {"1", "GET", "same"},
        {"1", "EXEC"}, {"1", "WATCH", "aba"}, {"2", "SET", "aba", "v"}, {"2", "DEL", "aba"}, {"1", "MULTI"}, {"1", "PING"},
        {"1", "EXEC"}, {"1", "WATCH", "same"}, {"1", "MULTI"}, {"1", "GET", "same"}, {"1", "EXEC"},
        {"1", "HELLO", "3"}, {"1", "WATCH", "k"}, {"2", "SET", "k", "3"}, {"1", "MULTI"}, {"1", "GET", "k"}, {"1", "EXEC"},
    };

    @Test
    void scriptedStepsGetTheSameRepliesAsRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r1 = new Wire(redisPort); Wire r2 = new Wire(redisPort);
             Wire o1 = new Wire(ours.port()); Wire o2 = new Wire(ours.port())) {
            r1.call("FLUSHALL");
            List<String> done = new ArrayList<>();
            for (String[] step : SCRIPT) {
                String[] cmd = java.util.Arrays.copyOfRange(step, 1, step.length);
                boolean first = step[0].equals("1");
                String want = (first ? r1 : r2).call(cmd);
                String got = (first ? o1 : o2).call(cmd);
                done.add(String.join(" ", step));
                if (!cmd[0].equals("HELLO")) { // its reply names the server
                    assertEquals(want, got, "after:\n  " + String.join("\n  ", done));
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    @Test
    void watchGuardedIncrementsFromManyClientsLoseNone() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir)) {
            int clients = 6;
            int each = 150;
            AtomicInteger retries = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < clients; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try (Wire w = new Wire(server.port())) {
                        for (int i = 0; i < each; ) {
                            w.call("WATCH", "counter");
                            String reply = w.call("GET", "counter");
                            long v = reply.startsWith("$-1") ? 0 : Long.parseLong(reply.split("\r\n")[1]);
                            w.call("MULTI");
                            w.call("SET", "counter", Long.toString(v + 1));
                            w.call("SET", "last", Long.toString(v + 1));
                            if (w.call("EXEC").startsWith("*2")) {
                                i++;
                            } else {
                                retries.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), failures);
            try (Wire w = new Wire(server.port())) {
                String total = Integer.toString(clients * each);
                assertEquals("$" + total.length() + "\r\n" + total + "\r\n", w.call("GET", "counter"), "retries: " + retries);
                assertEquals(w.call("GET", "counter"), w.call("GET", "last"));
            }
        }
    }
}
