package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.KeyValue;

/**
 * The blocking list commands through real clients: a push from another connection (and another
 * event loop) wakes BLPOP, first blocked first served, a push inside MULTI or a script wakes only
 * after it, timeouts, CLIENT UNBLOCK, INFO and CLIENT LIST, a connection closed while blocked,
 * the idle timeout, BLMOVE's chain, RESP3's nulls and redis-cli as a blocked process.
 */
class BlockingListsTest {

    @TempDir
    Path dir;

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static long blocked(Jedis j) {
        String info = j.info("clients");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("blocked_clients:")) {
                return Long.parseLong(line.substring("blocked_clients:".length()));
            }
        }
        throw new AssertionError("no blocked_clients in " + info);
    }

    @Test
    void aPushFromAnotherConnectionWakesBlpop() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis waiter = new Jedis("127.0.0.1", s.port())) {
            Future<List<String>> got = pool.submit(() -> waiter.blpop(0, "nothing", "jobs"));
            eventually(() -> blocked(j) == 1, "BLPOP to block");
            assertTrue(j.clientList().contains("flags=b"), j.clientList());
            assertEquals(1, j.rpush("jobs", "job 1"));
            assertEquals(List.of("jobs", "job 1"), got.get(10, TimeUnit.SECONDS));
            assertEquals(0, blocked(j));
            assertEquals(0, j.llen("jobs"), "the waiter took it");
            assertEquals("PONG", waiter.ping(), "the connection goes on after its reply");
        }
    }

    @Test
    void theFirstBlockedIsTheFirstServed() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis first = new Jedis("127.0.0.1", s.port()); Jedis second = new Jedis("127.0.0.1", s.port())) {
            Future<List<String>> a = pool.submit(() -> first.brpop(0, "q"));
            eventually(() -> blocked(j) == 1, "the first to block");
            Future<List<String>> b = pool.submit(() -> second.brpop(0, "q"));
            eventually(() -> blocked(j) == 2, "the second to block");
            j.rpush("q", "one");
            assertEquals(List.of("q", "one"), a.get(10, TimeUnit.SECONDS));
            assertEquals(1, blocked(j), "the second still waits");
            j.rpush("q", "two", "three");
            assertEquals(List.of("q", "three"), b.get(10, TimeUnit.SECONDS));
            assertEquals(List.of("two"), j.lrange("q", 0, -1));
        }
    }

    @Test
    void aPushInsideMultiOrAScriptWakesOnlyAfterIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis waiter = new Jedis("127.0.0.1", s.port())) {
            Future<List<String>> got = pool.submit(() -> waiter.blpop(0, "l"));
            eventually(() -> blocked(j) == 1, "BLPOP to block");
            Transaction t = j.multi();
            t.rpush("l", "x");
            t.lpop("l");
            assertEquals(List.of(1L, "x"), t.exec(), "the transaction's own LPOP takes it");
            assertEquals(1, blocked(j), "nothing was left for the waiter");
            assertEquals(List.of(2L, "a"), j.eval("redis.call('rpush', 'l', 'a', 'b'); return {redis.call('llen', 'l'),"
                    + " redis.call('lpop', 'l')}"));
            assertEquals(List.of("l", "b"), got.get(10, TimeUnit.SECONDS), "served after the script, with what it left");
        }
    }

    @Test
    void timeoutsAndClientUnblock() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis waiter = new Jedis("127.0.0.1", s.port())) {
            long t0 = System.nanoTime();
            assertNull(waiter.blpop(0.3, "none"));
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(took >= 290 && took < 5000, "BLPOP 0.3 took " + took + " ms");
            assertNull(waiter.blmove("none", "dst", ListDirection.LEFT, ListDirection.LEFT, 0.05));
            long id = waiter.clientId();
            Future<KeyValue<String, String>> got = pool.submit(() -> waiter.blpop(100.0, "none"));
            eventually(() -> blocked(j) == 1, "BLPOP to block");
            assertEquals(1, j.clientUnblock(id));
            assertNull(got.get(10, TimeUnit.SECONDS), "TIMEOUT: the reply of a timeout");
            assertEquals(0, j.clientUnblock(id), "no longer blocked");
            Future<List<String>> failed = pool.submit(() -> waiter.brpop(0, "none"));
            eventually(() -> blocked(j) == 1, "BRPOP to block");
            assertEquals(1, j.clientUnblock(id, redis.clients.jedis.args.UnblockType.ERROR));
            Exception e = assertThrows(Exception.class, () -> failed.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof JedisDataException, e.toString());
            assertEquals("UNBLOCKED client unblocked via CLIENT UNBLOCK", e.getCause().getMessage());
            assertEquals("PONG", waiter.ping());
        }
    }

    @Test
    void aConnectionClosedWhileBlockedLeavesTheWait() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Wire w = new Wire(s.port());
            w.send(Wire.encode("BLPOP", "gone", "0"));
            eventually(() -> blocked(j) == 1, "BLPOP to block");
            w.close();
            eventually(() -> blocked(j) == 0, "the closed connection to leave");
            j.rpush("gone", "kept");
            assertEquals(List.of("kept"), j.lrange("gone", 0, -1), "no one took it");
        }
    }

    @Test
    void theIdleTimeoutSparesABlockedClient() throws Exception {
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1).withLimits(10_000, 512L << 20, 1);
        try (ColossalServer s = ColossalServer.start(config); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis waiter = new Jedis("127.0.0.1", s.port())) {
            Future<List<String>> got = pool.submit(() -> waiter.blpop(0, "later"));
            Thread.sleep(2500);
            j.rpush("later", "v");
            assertEquals(List.of("later", "v"), got.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void blmoveWakesAndItsPushWakesTheNextWaiter() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis mover = new Jedis("127.0.0.1", s.port()); Jedis last = new Jedis("127.0.0.1", s.port())) {
            Future<String> moved = pool.submit(() -> mover.blmove("in", "mid", ListDirection.RIGHT, ListDirection.LEFT, 0));
            eventually(() -> blocked(j) == 1, "BLMOVE to block");
            Future<List<String>> end = pool.submit(() -> last.blpop(0, "mid"));
            eventually(() -> blocked(j) == 2, "BLPOP to block");
            j.lpush("in", "item");
            assertEquals("item", moved.get(10, TimeUnit.SECONDS));
            assertEquals(List.of("mid", "item"), end.get(10, TimeUnit.SECONDS));
            assertEquals(0, j.exists("in", "mid"));
        }
    }

    @Test
    void aWaitersKeyMadeAnotherTypeLeavesItWaitingAsRedisDoes() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis popper = new Jedis("127.0.0.1", s.port()); Jedis mover = new Jedis("127.0.0.1", s.port());
             Wire multi = new Wire(s.port())) {
            // one at a time: the order they block in is the order they are served
            Future<List<String>> popped = pool.submit(() -> popper.brpop(0, "q"));
            eventually(() -> blocked(j) == 1, "BRPOP to block");
            Future<String> moved = pool.submit(() -> mover.brpoplpush("q", "out", 0));
            eventually(() -> blocked(j) == 2, "BRPOPLPUSH to block");
            multi.send(Wire.encode("BLMPOP", "0", "1", "q", "LEFT"));
            eventually(() -> blocked(j) == 3, "the three to block");
            j.zadd("q", 1, "a");   // a ZADD wakes the key's waiters: a list's waiters are not served
            Thread.sleep(200);
            assertEquals(3, blocked(j), "still waiting, not answered WRONGTYPE");
            j.del("q");
            j.rpush("q", "1", "2", "3");
            assertEquals(List.of("q", "3"), popped.get(10, TimeUnit.SECONDS));
            assertEquals("2", moved.get(10, TimeUnit.SECONDS));
            assertEquals("*2\r\n$1\r\nq\r\n*1\r\n$1\r\n1\r\n", new String(multi.readReply()));
        }
    }

    @Test
    void blmpopTakesUpToCountFromTheKeyThatWasPushed() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Wire w = new Wire(s.port())) {
            w.send(Wire.encode("BLMPOP", "0", "2", "a", "b", "RIGHT", "COUNT", "2"));
            eventually(() -> blocked(j) == 1, "BLMPOP to block");
            j.rpush("b", "1", "2", "3");
            assertEquals("*2\r\n$1\r\nb\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n", new String(w.readReply()));
        }
    }

    @Test
    void resp3NullsAndATimedOutWaiterInResp3() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            w.call("HELLO", "3");
            assertEquals("_\r\n", w.call("LPOP", "none"));
            assertEquals("_\r\n", w.call("LPOP", "none", "2"));
            assertEquals("_\r\n", w.call("LPOS", "none", "x"));
            assertEquals("*0\r\n", w.call("LPOS", "none", "x", "COUNT", "0"));
            assertEquals("_\r\n", w.call("LMPOP", "1", "none", "LEFT"));
            assertEquals("_\r\n", w.call("BLPOP", "none", "0.01"));
            assertEquals("_\r\n", w.call("BLMOVE", "none", "x", "LEFT", "LEFT", "0.01"));
            assertEquals("+OK\r\n", w.call("MULTI"));
            assertEquals("+QUEUED\r\n", w.call("BLMOVE", "none", "x", "LEFT", "LEFT", "0"));
            assertEquals("*1\r\n_\r\n", w.call("EXEC"), "inside MULTI: at once, a null");
        }
    }

    @Test
    void redisCliWaitsInBlpopUntilAPush() throws Exception {
        Path cli = TestServers.onPath("redis-cli");
        Assumptions.assumeTrue(cli != null, "redis-cli not installed");
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Path out = dir.resolve("cli.out");
            Process p = new ProcessBuilder(cli.toString(), "-p", Integer.toString(s.port()), "BLPOP", "tasks", "0")
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                eventually(() -> blocked(j) == 1, "redis-cli to block");
                j.rpush("tasks", "from java");
                assertTrue(p.waitFor(10, TimeUnit.SECONDS), "redis-cli to exit with its reply");
                assertEquals("tasks\nfrom java\n", Files.readString(out));
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void aWaiterOnAnotherEventLoopIsWokenAcrossLoops() throws Exception {
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        try (ColossalServer s = ColossalServer.start(config)) {
            int waiters = 8;
            CompletableFuture<?>[] all = new CompletableFuture<?>[waiters];
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                for (int i = 0; i < waiters; i++) {
                    int n = i;
                    all[i] = CompletableFuture.supplyAsync(() -> {
                        try (Jedis w = new Jedis("127.0.0.1", s.port())) {
                            return w.blpop(0, "k" + n);
                        }
                    }, pool);
                }
                eventually(() -> blocked(j) == waiters, "every waiter to block");
                for (int i = waiters - 1; i >= 0; i--) {
                    j.rpush("k" + i, "v" + i);
                }
                for (int i = 0; i < waiters; i++) {
                    assertEquals(List.of("k" + i, "v" + i), all[i].get(10, TimeUnit.SECONDS));
                }
            }
        }
    }
}
