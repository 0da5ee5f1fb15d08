package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SortingParams;

/**
 * A server in another JVM killed with SIGKILL while SORT ... STORE rewrites a list over and over:
 * after a restart the stored list is the whole sorted result of one SORT, never a part of one or a
 * mix of two, and the collector frees the elements the replaced and half-written lists left.
 */
class SortCrashTest {

    private static final int ELEMENTS = 500;

    @TempDir
    Path dir;

    @Test
    void aKillWhileSortStoresLeavesAWholeResult() throws Exception {
        Path data = dir.resolve("data");
        int port = TestServers.freePort();
        Path log = dir.resolve("server.log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--port", Integer.toString(port), "--http-port", "-1", "--data", data.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        AtomicLong stored = new AtomicLong();
        try {
            TestServers.awaitPong(port, server, log);
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                for (int i = 0; i < ELEMENTS; i++) {
                    j.rpush("src", Integer.toString(i));
                }
            }
            Thread sorter = new Thread(() -> {
                try (Jedis j = new Jedis("127.0.0.1", port)) {
                    for (long n = 0; ; n++) { // ascending and descending in turn: two results to tell apart
                        SortingParams order = n % 2 == 0 ? new SortingParams().asc() : new SortingParams().desc();
                        j.sort("src", order, "dst");
                        stored.incrementAndGet();
                    }
                } catch (RuntimeException killed) {
                    // the server died under the call
                }
            });
            sorter.start();
            while (stored.get() < 20 && sorter.isAlive()) {
                Thread.sleep(10);
            }
            Thread.sleep(300);
            server.destroyForcibly().waitFor();
            sorter.join();
            assertTrue(stored.get() >= 20, "SORT ... STORE ran: " + stored.get());
        } finally {
            server.destroyForcibly().waitFor();
        }
        try (ColossalServer s = TestServers.colossal(data); Jedis j = new Jedis("127.0.0.1", s.port())) {
            List<String> dst = j.lrange("dst", 0, -1);
            List<String> numeric = j.lrange("src", 0, -1); // pushed in ascending order
            List<String> descending = new ArrayList<>(numeric.reversed());
            assertTrue(dst.equals(numeric) || dst.equals(descending), "a whole result: " + dst.size() + " elements, "
                    + dst.subList(0, Math.min(5, dst.size())));
            assertEquals(ELEMENTS, j.llen("dst"));
            ListElements e = s.context().dbs.opened(0).elements(false);
            long live = StoredList.read(s.context().dbs.opened(0), "src".getBytes()).elementEntries()
                    + StoredList.read(s.context().dbs.opened(0), "dst".getBytes()).elementEntries();
            eventually(() -> e.size() == live, "the collector to free what the kill left: "
                    + e.size() + " entries for the nodes and roots of 2 lists, " + live);
        }
    }
}
