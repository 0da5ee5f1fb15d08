package dev.colossal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codec;
import dev.colossal.codec.CodecException;
import dev.colossal.codec.Codecs;
import dev.colossal.server.ColossalServer;
import dev.colossal.server.ServerConfig;
import java.lang.invoke.MethodHandles;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** RemoteMap against the real server: the map contract, TTLs, pipelining, restarts, AUTH, errors. */
class RemoteMapTest {

    /** A value type that goes through a generated codec. */
    public record User(String name, int age, List<String> tags) {}

    private static final Codec<User> USERS = Codecs.of(User.class, MethodHandles.lookup());

    @TempDir
    Path dir;

    private ColossalServer server;

    @BeforeEach
    void start() throws Exception {
        server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private RemoteMap<String, User> users() {
        return RemoteMap.connect("127.0.0.1", server.port(), Codecs.string(), USERS);
    }

    @Test
    void behavesLikeAMap() {
        try (RemoteMap<String, User> m = users()) {
            User ada = new User("Ada", 36, List.of("math", "engines"));
            User alan = new User("Alan", 41, List.of());
            assertNull(m.get("ada"));
            assertFalse(m.containsKey("ada"));
            assertNull(m.put("ada", ada));
            assertEquals(ada, m.get("ada"));
            assertTrue(m.containsKey("ada"));
            assertEquals(ada, m.put("ada", alan), "put returns the previous value");
            assertEquals(alan, m.putIfAbsent("ada", ada), "putIfAbsent leaves a present value");
            assertEquals(alan, m.get("ada"));
            assertNull(m.putIfAbsent("alan", alan));
            assertEquals(alan, m.get("alan"));
            m.set("grace", new User("Grace", 85, List.of("cobol")));
            assertEquals(3, m.size());
            assertEquals(alan, m.remove("ada"));
            assertNull(m.remove("ada"));
            assertTrue(m.delete("alan"));
            assertFalse(m.delete("alan"));
            assertEquals(1, m.size());
            m.clear();
            assertEquals(0, m.size());
        }
    }

    @Test
    void equalSetKeysAreOneKey() {
        try (RemoteMap<java.util.Set<String>, String> m = RemoteMap.connect("127.0.0.1", server.port(),
                Codecs.set(Codecs.string()), Codecs.string())) {
            m.put(new java.util.LinkedHashSet<>(List.of("x", "y")), "first");
            assertEquals("first", m.get(new java.util.LinkedHashSet<>(List.of("y", "x"))), "another order, the same set");
        }
    }

    @Test
    void valuesExpire() throws Exception {
        try (RemoteMap<String, User> m = users()) {
            User u = new User("Tmp", 1, List.of());
            m.set("short", u, Duration.ofMillis(300));
            m.set("long", u);
            assertNull(m.put("put-ttl", u, Duration.ofHours(1)));
            Duration left = m.ttl("short");
            assertTrue(left != null && left.toMillis() > 0 && left.toMillis() <= 300, "ttl=" + left);
            assertTrue(m.ttl("put-ttl").toMinutes() >= 59);
            assertNull(m.ttl("long"), "no deadline");
            assertNull(m.ttl("missing"), "no key");
            assertTrue(m.expire("long", Duration.ofMillis(300)));
            assertFalse(m.expire("missing", Duration.ofSeconds(1)));
            Thread.sleep(450);
            assertNull(m.get("short"));
            assertNull(m.get("long"));
            assertFalse(m.containsKey("short"));
            assertThrows(IllegalArgumentException.class, () -> m.set("x", u, Duration.ZERO));
        }
    }

    @Test
    void pipelinesThousandsOfAsyncCallsInOrderPerKey() throws Exception {
        int n = 20_000;
        try (RemoteMap<Long, Long> m = RemoteMap.builder(Codecs.int64(), Codecs.int64())
                .address("127.0.0.1", server.port()).connections(3).connect()) {
            List<CompletableFuture<Void>> sets = new ArrayList<>(n);
            for (long i = 0; i < n; i++) {
                sets.add(m.setAsync(i, i * i));
            }
            CompletableFuture.allOf(sets.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            List<CompletableFuture<Long>> gets = new ArrayList<>(n);
            for (long i = 0; i < n; i++) {
                gets.add(m.getAsync(i));
            }
            for (int i = 0; i < n; i++) {
                assertEquals((long) i * i, gets.get(i).get(60, TimeUnit.SECONDS));
            }
            // One key, many async puts: each sees the one before it, so they were applied in order.
            List<CompletableFuture<Long>> puts = new ArrayList<>();
            for (long v = 0; v < 5000; v++) {
                puts.add(m.putAsync(-1L, v));
            }
            assertNull(puts.get(0).get(60, TimeUnit.SECONDS));
            for (int v = 1; v < puts.size(); v++) {
                assertEquals(v - 1L, puts.get(v).get(60, TimeUnit.SECONDS));
            }
            assertEquals(n + 1, m.size());
        }
    }

    @Test
    void manyThreadsShareOneMap() throws Exception {
        try (RemoteMap<String, Long> m = RemoteMap.builder(Codecs.string(), Codecs.int64())
                .address("127.0.0.1", server.port()).connections(2).maxInFlight(64).connect()) {
            List<Thread> threads = new ArrayList<>();
            List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < 8; t++) {
                int id = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (long i = 0; i < 1000; i++) {
                            String k = "t" + id + ":" + i;
                            m.set(k, i);
                            if (m.get(k) != i) {
                                throw new AssertionError(k);
                            }
                            if (i % 10 == 0) {
                                m.setAsync(k, -i);
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), errors);
            assertEquals(-990L, m.get("t3:990"), "async set after the sync get, same key, applied last");
            assertEquals(8000, m.size());
        }
    }

    @Test
    void reconnectsAfterTheServerRestarts() throws Exception {
        int port = server.port();
        try (RemoteMap<String, User> m = users()) {
            User u = new User("Persisted", 7, List.of("a"));
            m.set("p", u);
            server.close();
            RemoteMapException down = assertThrows(RemoteMapException.class, () -> m.get("p"));
            assertTrue(down.getMessage().contains("cannot connect") || down.getMessage().contains("lost"), down.getMessage());
            server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(port, -1));
            assertEquals(u, m.get("p"), "the next call reconnects and sees the persisted value");
            m.set("q", u);
            assertEquals(2, m.size());
        }
    }

    @Test
    void authenticatesEveryConnection() throws Exception {
        server.close();
        server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1).withRequirePass("s3cret"));
        var b = RemoteMap.builder(Codecs.string(), Codecs.string()).address("127.0.0.1", server.port()).connections(3);
        try (RemoteMap<String, String> m = b.password("s3cret").connect()) {
            m.set("k", "v");
            assertEquals("v", m.get("k"));
        }
        RemoteServerException wrong = assertThrows(RemoteServerException.class, () -> b.password("nope").connect());
        assertEquals("WRONGPASS", wrong.code());
        try (RemoteMap<String, String> anonymous = b.password(null).connect()) {
            RemoteServerException e = assertThrows(RemoteServerException.class, () -> anonymous.get("k"));
            assertEquals("NOAUTH", e.code());
            assertTrue(e.getMessage().startsWith("NOAUTH Authentication required"), e.getMessage());
            ExecutionException async = assertThrows(ExecutionException.class, () -> anonymous.getAsync("k").get());
            assertTrue(async.getCause() instanceof RemoteServerException);
        }
    }

    /** A map per database: the same key holds each its own value, and size and clear are the database's. */
    @Test
    void aMapNamesItsDatabase() throws Exception {
        var b = RemoteMap.builder(RawCodecs.utf8(), RawCodecs.utf8()).address("127.0.0.1", server.port()).connections(3);
        try (RemoteMap<String, String> zero = b.connect(); RemoteMap<String, String> four = b.database(4).connect();
             Jedis j = new Jedis(java.net.URI.create("redis://127.0.0.1:" + server.port() + "/4"))) {
            zero.set("k", "in 0");
            zero.set("z", "in 0");
            four.set("k", "in 4");
            assertEquals("in 0", zero.get("k"));
            assertEquals("in 4", four.get("k"));
            assertEquals("in 4", j.get("k"), "what redis://host:port/4 reaches");
            assertEquals(2, zero.size());
            assertEquals(1, four.size());
            four.clear();
            assertEquals(0, four.size());
            assertEquals(2, zero.size(), "clear() is FLUSHDB of the map's database only");
        }
        RemoteServerException out = assertThrows(RemoteServerException.class, () -> b.database(16).connect());
        assertEquals("ERR DB index is out of range", out.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.database(-1));
    }

    @Test
    void reportsFailuresClearly() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        RemoteMapException refused = assertThrows(RemoteMapException.class,
                () -> RemoteMap.connect("127.0.0.1", closedPort, Codecs.string(), Codecs.string()));
        assertTrue(refused.getMessage().contains("cannot connect to 127.0.0.1:" + closedPort), refused.getMessage());

        try (RemoteMap<String, String> raw = RemoteMap.connect("127.0.0.1", server.port(), RawCodecs.utf8(), RawCodecs.utf8());
             RemoteMap<String, User> typed = RemoteMap.connect("127.0.0.1", server.port(), RawCodecs.utf8(), USERS)) {
            raw.set("plain", "x");
            assertThrows(CodecException.class, () -> typed.get("plain"), "a value another codec wrote");
            assertThrows(NullPointerException.class, () -> raw.set(null, "v"));
            // A callback runs on the reader only if its future was not complete yet: retry until one did.
            Throwable onReader = null;
            for (int i = 0; i < 200 && onReader == null; i++) {
                onReader = raw.getAsync("plain").handle((v, x) -> {
                    if (!Thread.currentThread().getName().startsWith("colossal-client-")) {
                        return null;
                    }
                    try {
                        return new AssertionError("blocking call on the reader returned " + raw.get("plain"));
                    } catch (RuntimeException e) {
                        return e;
                    }
                }).get(10, TimeUnit.SECONDS);
            }
            assertTrue(onReader instanceof IllegalStateException, "blocking call from the reader thread: " + onReader);
        }
        RemoteMap<String, User> m = users();
        m.close();
        RemoteMapException closed = assertThrows(RemoteMapException.class, () -> m.get("k"));
        assertTrue(closed.getMessage().contains("is closed"), closed.getMessage());
        assertTrue(m.getAsync("k").isCompletedExceptionally());
    }

    @Test
    void rawCodecsShareKeysWithOtherRedisClients() {
        try (RemoteMap<String, byte[]> m = RemoteMap.connect("127.0.0.1", server.port(), RawCodecs.utf8(), RawCodecs.bytes());
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            byte[] big = new byte[3 << 20];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31);
            }
            m.set("bin\r\n\0", big);
            assertTrue(java.util.Arrays.equals(big, jedis.get("bin\r\n\0".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            jedis.set("from-jedis", "héllo");
            assertEquals("héllo", new String(m.get("from-jedis"), java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
