package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * A server in another JVM killed with SIGKILL while clients push, pop and move list elements:
 * after a restart every acknowledged push is there exactly once and in order (the push in flight
 * at most once more), LLEN agrees with LRANGE, an element RPOPLPUSH was moving is in one list or
 * both but never lost, and the collector frees what the kill left half-written.
 */
class ListsCrashTest {

    @TempDir
    Path dir;

    @Test
    void aKillWhilePushingPoppingAndMovingLosesNothingAcknowledged() throws Exception {
        Path data = dir.resolve("data");
        int moving = 20_000;
        for (int round = 0; round < 3; round++) {
            int port = TestServers.freePort();
            Path log = dir.resolve("server" + round + ".log");
            Process server = TestServers.serveInChildJvm(port, data, log);
            long pushedBefore;
            AtomicLong acked = new AtomicLong(-1);
            try {
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    pushedBefore = j.llen("q");
                    if (round == 0) {
                        ListsTest.fill(j, "src", moving);
                    }
                }
                AtomicBoolean stop = new AtomicBoolean();
                Thread pusher = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port)) {
                        for (long i = pushedBefore; !stop.get(); i++) {
                            j.rpush("q", Long.toString(i));
                            acked.set(i);
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call: not acknowledged
                    }
                });
                Thread mover = new Thread(() -> {
                    try (Jedis j = new Jedis("127.0.0.1", port)) {
                        while (!stop.get()) {
                            if (j.rpoplpush("src", "dst") == null) {
                                j.rpoplpush("dst", "src");
                            }
                            j.lpush("scratch", "x", "y", "z");
                            j.ltrim("scratch", 0, 1);
                        }
                    } catch (RuntimeException killed) {
                        // the server died under the call
                    }
                });
                pusher.start();
                mover.start();
                Thread.sleep(800 + 500L * round);
                TestServers.awaitAbove(acked, pushedBefore);
                server.destroyForcibly().waitFor();
                stop.set(true);
                pusher.join();
                mover.join();
            } finally {
                server.destroyForcibly().waitFor();
            }
            assertTrue(acked.get() > pushedBefore, "round " + round + ": some pushes were acknowledged");
            try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
                List<String> q = j.lrange("q", 0, -1);
                assertEquals(q.size(), j.llen("q"), "LLEN agrees with LRANGE");
                assertTrue(q.size() == acked.get() + 1 || q.size() == acked.get() + 2,
                        "round " + round + ": " + q.size() + " elements after " + (acked.get() + 1) + " acknowledged pushes");
                for (int i = 0; i < q.size(); i++) {
                    assertEquals(Integer.toString(i), q.get(i), "round " + round + ": element " + i);
                }
                List<String> all = new ArrayList<>(j.lrange("src", 0, -1));
                all.addAll(j.lrange("dst", 0, -1));
                Set<String> distinct = new HashSet<>(all);
                assertEquals(moving, distinct.size(), "round " + round + ": no element RPOPLPUSH moved was lost");
                assertTrue(all.size() - moving <= round + 1, "at most one duplicate a kill: " + (all.size() - moving));
                List<String> scratch = j.lrange("scratch", 0, -1);
                // LPUSH x y z makes [z, y, x, ...], LTRIM 0 1 [z, y]: a kill between them leaves at most five, all read back
                assertTrue(scratch.size() <= 5 && scratch.stream().allMatch(x -> x.equals("x") || x.equals("y") || x.equals("z")),
                        "round " + round + ": scratch " + scratch);
                // a big list's nodes and root are entries of the element map; a packed list has none there
                long entries = 0;
                for (String k : List.of("q", "src", "dst", "scratch")) {
                    StoredList l = StoredList.read(s.context().dbs.opened(0), k.getBytes());
                    entries += l == null ? 0 : l.elementEntries();
                }
                long live = entries;
                ListElements e = s.context().dbs.opened(0).elements(false);
                eventually(() -> e.size() == live, "the collector to free what the kill left: "
                        + e.size() + " entries for big lists' " + live + " nodes and roots");
            }
        }
    }
}
