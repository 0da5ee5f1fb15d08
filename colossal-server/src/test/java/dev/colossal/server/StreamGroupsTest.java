package dev.colossal.server;

import static dev.colossal.server.StreamsTest.blocked;
import static dev.colossal.server.StreamsTest.eventually;
import static dev.colossal.server.StreamsTest.show;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;

/**
 * Consumer groups through Jedis and raw RESP: four consumers of one group on four threads share
 * 5,000 entries, each delivered once and all acknowledged; XREADGROUP BLOCK woken by an XADD from
 * another connection, ended by XGROUP DESTROY, DEL, SET, FLUSHALL, expiry and the HTTP API's PUT and DELETE with Redis's errors;
 * RESTORE of redis-server's DUMP of a grouped stream answers XINFO STREAM FULL and XPENDING byte for
 * byte as redis-server does, and redis-server RESTOREs our DUMP to the same answers; COPY, RENAME
 * and a restart keep the groups, DEL frees their entries. Replies of single commands are
 * {@code redis-compat.txt}'s; random sequences {@link StreamGroupsDifferentialTest}'s.
 */
class StreamGroupsTest {

    @TempDir
    Path dir;

    private static Object call(Jedis j, Protocol.Command cmd, String... args) {
        return j.sendCommand(cmd, args);
    }

    /** @return the IDs of an XREADGROUP reply (RESP2) */
    static List<String> ids(Object reply) {
        List<String> out = new ArrayList<>();
        if (reply == null) {
            return out;
        }
        for (Object stream : (List<?>) reply) {
            for (Object entry : (List<?>) ((List<?>) stream).get(1)) {
                out.add(new String((byte[]) ((List<?>) entry).getFirst(), StandardCharsets.US_ASCII));
            }
        }
        return out;
    }

    @Test
    void fourConsumersShareEveryEntryOnceAndAckAll() throws Exception {
        int total = 5000;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        // an event loop per consumer, so that their commands run at once
        ServerConfig fourLoops = new ServerConfig("127.0.0.1", 0, -1, dir, null, 100, 1 << 20, 0, 4,
                ServerConfig.DEFAULT_BUSY_POLL_MICROS);
        try (ColossalServer s = ColossalServer.start(fourLoops); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 1; i <= total; i++) {
                j.xadd("jobs", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
            }
            j.xgroupCreate("jobs", "workers", new StreamEntryID(0, 0), false);
            Map<String, String> deliveredTo = new ConcurrentHashMap<>();
            List<String> twice = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicInteger acked = new AtomicInteger();
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                String me = "c" + w;
                workers.add(pool.submit(() -> {
                    try (Jedis c = new Jedis("127.0.0.1", s.port())) {
                        while (true) {
                            List<String> got = ids(call(c, Protocol.Command.XREADGROUP, "GROUP", "workers", me, "COUNT",
                                    "10", "STREAMS", "jobs", ">"));
                            if (got.isEmpty()) {
                                return null;
                            }
                            for (String id : got) {
                                if (deliveredTo.putIfAbsent(id, me) != null) {
                                    twice.add(id);
                                }
                            }
                            List<String> ack = new ArrayList<>(List.of("jobs", "workers"));
                            ack.addAll(got);
                            acked.addAndGet(((Long) call(c, Protocol.Command.XACK, ack.toArray(String[]::new))).intValue());
                        }
                    }
                }));
            }
            for (Future<?> f : workers) {
                f.get(120, TimeUnit.SECONDS);
            }
            assertEquals(List.of(), twice, "entries delivered to more than one consumer");
            assertEquals(total, deliveredTo.size(), "every entry delivered");
            assertEquals(total, acked.get(), "every delivery acknowledged once");
            assertEquals("[0, null, null, null]", show(call(j, Protocol.Command.XPENDING, "jobs", "workers")));
            String groups = show(call(j, Protocol.Command.XINFO, "GROUPS", "jobs"));
            assertTrue(groups.contains("last-delivered-id, " + total + "-0, entries-read, " + total + ", lag, 0"), groups);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void xreadgroupBlockIsWokenByXaddAndEndedByDestroyAndDel() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port());
             Jedis waiter = new Jedis("127.0.0.1", s.port())) {
            call(j, Protocol.Command.XGROUP, "CREATE", "s", "g", "$", "MKSTREAM");
            Future<Object> woken = pool.submit(() -> call(waiter, Protocol.Command.XREADGROUP, "GROUP", "g", "alice",
                    "BLOCK", "0", "STREAMS", "s", ">"));
            eventually(() -> blocked(j) == 1, "XREADGROUP to block");
            assertEquals("[[name, g, consumers, 0, pending, 0, last-delivered-id, 0-0, entries-read, null, lag, 0]]",
                    show(call(j, Protocol.Command.XINFO, "GROUPS", "s")), "as in 7.0, a read that waits makes no consumer");
            j.xadd("s", new StreamEntryID(7, 0), Map.of("f", "v"));
            assertEquals("[[s, [[7-0, [f, v]]]]]", show(woken.get(10, TimeUnit.SECONDS)));
            assertEquals("[1, 7-0, 7-0, [[alice, 1]]]", show(call(j, Protocol.Command.XPENDING, "s", "g")),
                    "the woken read is pending for alice");
            assertEquals(0, blocked(j));

            Future<Object> destroyed = pool.submit(() -> call(waiter, Protocol.Command.XREADGROUP, "GROUP", "g", "alice",
                    "BLOCK", "0", "STREAMS", "s", ">"));
            eventually(() -> blocked(j) == 1, "XREADGROUP to block");
            assertEquals(1L, call(j, Protocol.Command.XGROUP, "DESTROY", "s", "g"));
            Exception e = assertThrows(Exception.class, () -> destroyed.get(10, TimeUnit.SECONDS));
            assertEquals("NOGROUP the consumer group this client was blocked on no longer exists", e.getCause().getMessage());
            // counted as Redis counts it: an error reply of its kind, and a failed call of XREADGROUP
            String stats = j.info("errorstats") + j.info("commandstats") + j.info("stats");
            assertTrue(stats.contains("errorstat_NOGROUP:count=1\r\n"), stats);
            assertTrue(stats.contains("total_error_replies:1\r\n"), stats);
            assertTrue(stats.matches("(?s).*cmdstat_xreadgroup:calls=2,[^\r]*,rejected_calls=0,failed_calls=1\r\n.*"), stats);

            call(j, Protocol.Command.XGROUP, "CREATE", "s", "g", "$");
            Future<Object> deleted = pool.submit(() -> call(waiter, Protocol.Command.XREADGROUP, "GROUP", "g", "bob",
                    "BLOCK", "0", "STREAMS", "s", ">"));
            eventually(() -> blocked(j) == 1, "XREADGROUP to block");
            j.del("s");
            e = assertThrows(Exception.class, () -> deleted.get(10, TimeUnit.SECONDS));
            assertEquals("UNBLOCKED the stream key no longer exists", e.getCause().getMessage());

            for (Runnable gone : List.<Runnable>of(() -> j.set("s", "a string now"), j::flushAll, () -> j.pexpire("s", 1))) {
                call(j, Protocol.Command.XGROUP, "CREATE", "s", "g", "$", "MKSTREAM");
                Future<Object> ended = pool.submit(() -> call(waiter, Protocol.Command.XREADGROUP, "GROUP", "g", "c",
                        "BLOCK", "0", "STREAMS", "s", ">"));
                eventually(() -> blocked(j) == 1, "XREADGROUP to block");
                gone.run();
                e = assertThrows(Exception.class, () -> ended.get(10, TimeUnit.SECONDS));
                assertEquals("UNBLOCKED the stream key no longer exists", e.getCause().getMessage(),
                        "SET over the key, FLUSHALL and expiry end the wait too");
                j.del("s");
            }

            call(j, Protocol.Command.XGROUP, "CREATE", "s", "g", "$", "MKSTREAM");
            long t0 = System.nanoTime();
            assertNull(call(waiter, Protocol.Command.XREADGROUP, "GROUP", "g", "c", "BLOCK", "200", "STREAMS", "s", ">"));
            assertTrue(System.nanoTime() - t0 >= 190_000_000L, "BLOCK 200 waits");
            assertEquals("PONG", waiter.ping());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The HTTP API's PUT and DELETE of a key end a blocked XREADGROUP on it as SET and DEL do: no command's end serves it. */
    @Test
    void anHttpPutOrDeleteOfTheKeyEndsABlockedXreadgroup() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/s");
            for (java.net.http.HttpRequest change : List.of(
                    java.net.http.HttpRequest.newBuilder(uri).PUT(java.net.http.HttpRequest.BodyPublishers.ofString("x")).build(),
                    java.net.http.HttpRequest.newBuilder(uri).DELETE().build())) {
                j.del("s");
                call(j, Protocol.Command.XGROUP, "CREATE", "s", "g", "$", "MKSTREAM");
                try (Wire waiter = new Wire(s.port())) {
                    waiter.send(Wire.encode("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"));
                    Future<String> reply = pool.submit(waiter::reply);
                    eventually(() -> blocked(j) == 1, "XREADGROUP to block");
                    assertEquals(204, http.send(change, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode());
                    assertEquals("-UNBLOCKED the stream key no longer exists\r\n", reply.get(2, TimeUnit.SECONDS), change.method());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void historyAnswersADeletedEntryWithNilInResp2AndResp3() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            w.call("XADD", "h", "1-1", "a", "1");
            w.call("XADD", "h", "2-1", "b", "2");
            w.call("XGROUP", "CREATE", "h", "g", "0");
            w.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "h", ">");
            w.call("XDEL", "h", "1-1");
            assertEquals("*1\r\n*2\r\n$1\r\nh\r\n*2\r\n*2\r\n$3\r\n1-1\r\n*-1\r\n*2\r\n$3\r\n2-1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n",
                    w.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "h", "0"));
            w.call("HELLO", "3");
            assertEquals("%1\r\n$1\r\nh\r\n*1\r\n*2\r\n$3\r\n1-1\r\n_\r\n",
                    w.call("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "h", "0"));
        }
    }

    @Test
    void copyRenameAndRestartKeepTheGroupsAndDelFreesThem() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.xadd("a", new StreamEntryID(1, 0), Map.of("f", "v"));
            j.xgroupCreate("a", "g", new StreamEntryID(0, 0), false);
            call(j, Protocol.Command.XREADGROUP, "GROUP", "g", "c", "STREAMS", "a", ">");
            assertTrue(j.copy("a", "b", false));
            j.rename("b", "c");
            assertEquals(1L, call(j, Protocol.Command.XACK, "c", "g", "1-0"), "the copy has its own PEL");
            assertEquals("[1, 1-0, 1-0, [[c, 1]]]", show(call(j, Protocol.Command.XPENDING, "a", "g")),
                    "acknowledging on the copy leaves the original pending");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals("[1, 1-0, 1-0, [[c, 1]]]", show(call(j, Protocol.Command.XPENDING, "a", "g")), "after a restart");
            assertEquals("[0, null, null, null]", show(call(j, Protocol.Command.XPENDING, "c", "g")));
            ListElements e = s.context().dbs.opened(0).elements(false);
            j.del("a", "c");
            eventually(() -> e.size() == 0, "DEL to free nodes, group entries and roots: " + e.size() + " left");
        }
    }

    @Test
    void restoreOfRedisDumpWithGroupsAnswersAsRedisAndRedisRestoresOurs() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir); Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port()); Wire rw = new Wire(port);
                 Wire cw = new Wire(ours.port())) {
                redis.del("gs", "back");
                for (int i = 1; i <= 6; i++) {
                    redis.xadd("gs", new StreamEntryID(i, 1), Map.of("f", "v" + i, "g", "w"));
                }
                rw.call("XGROUP", "CREATE", "gs", "g1", "0");
                rw.call("XGROUP", "CREATE", "gs", "g2", "$", "ENTRIESREAD", "6");
                rw.call("XGROUP", "CREATE", "gs", "empty", "3-1");
                rw.call("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "gs", ">");
                rw.call("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "gs", ">");
                rw.call("XACK", "gs", "g1", "1-1");
                rw.call("XGROUP", "CREATECONSUMER", "gs", "g1", "carol");
                rw.call("XCLAIM", "gs", "g1", "carol", "0", "4-1", "RETRYCOUNT", "5", "JUSTID");
                rw.call("XDEL", "gs", "5-1");
                colossal.restore("gs", 0, redis.dump("gs"));
                for (String[] q : List.of(new String[] {"XINFO", "STREAM", "gs", "FULL"}, new String[] {"XPENDING", "gs", "g1"},
                        new String[] {"XINFO", "GROUPS", "gs"}, new String[] {"XLEN", "gs"})) {
                    assertEquals(rw.call(q), cw.call(q), String.join(" ", q) + " after RESTORE of redis-server's DUMP");
                }
                redis.restore("back", 0, colossal.dump("gs"));
                String theirs = rw.call("XINFO", "STREAM", "back", "FULL");
                assertEquals(cw.call("XINFO", "STREAM", "gs", "FULL"), theirs, "redis-server's RESTORE of our DUMP");
                assertTrue(theirs.contains("carol"), theirs);
                assertEquals(rw.call("XPENDING", "gs", "g1"), rw.call("XPENDING", "back", "g1"));
            }
        });
    }
}
