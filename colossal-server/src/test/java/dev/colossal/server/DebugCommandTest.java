package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DEBUG against redis-server 7.0, both started with {@code enable-debug-command yes} (or {@code
 * local}): the replies of {@code redis-debug.txt} byte for byte, who {@code local} lets in, the
 * active expiry that SET-ACTIVE-EXPIRE stops, and what SLEEP holds up.
 */
class DebugCommandTest {

    @TempDir
    Path dir;

    @Test
    void repliesAreByteIdenticalToRedisWithTheDebugCommandEnabled() throws Exception {
        int redisPort = TestServers.freePort();
        Path redisDir = java.nio.file.Files.createDirectories(dir.resolve("redis"));
        // DEBUG RELOAD writes dump.rdb into its --dir
        Process redis = TestServers.redis(redisPort, "--enable-debug-command", "yes", "--dir", redisDir.toString());
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        List<String> lines = RedisCompatTest.commandLines("/redis-debug.txt");
        List<String> diffs = new ArrayList<>();
        try (ColossalServer ours = TestServers.colossal(dir.resolve("ours"), "enable-debug-command", "yes");
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            boolean resp3 = false;
            for (String line : lines) {
                boolean compared = !line.startsWith("~");
                String l = compared ? line : line.substring(1);
                resp3 |= l.equals("HELLO 3");
                byte[] l8 = l.getBytes(StandardCharsets.UTF_8);
                byte[] cmd = Wire.encode(RequestParser.splitArgs(l8, 0, l8.length));
                r.send(cmd);
                o.send(cmd);
                // a RESP3 push comes before the reply it goes with
                int replies = resp3 && l.equals("DEBUG PROTOCOL push") ? 2 : 1;
                for (int i = 0; i < replies; i++) {
                    String want = comparable(r.reply());
                    String got = comparable(o.reply());
                    if (compared && !want.equals(got)) {
                        diffs.add(l + "\n    redis:    " + want + "\n    colossal: " + got);
                    }
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
        assertEquals("", String.join("\n", diffs), diffs.size() + " of " + lines.size() + " replies differ");
    }

    /** A reply with DEBUG OBJECT's address and LRU fields taken out: they differ from run to run. */
    private static String comparable(String reply) {
        return reply.replaceAll("^\\+Value at:\\S+ ", "+Value ").replaceAll(" lru:\\d+ lru_seconds_idle:\\d+", "")
                .replace("\r\n", "\\r\\n");
    }

    @Test
    void offRefusesEveryDebugAndConfigSetCannotTurnItOn() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire w = new Wire(ours.port())) {
            assertEquals("-" + MonitoringCommands.DEBUG_NOT_ALLOWED + "\r\n", w.call("DEBUG", "HELP"));
            assertEquals("*2\r\n$20\r\nenable-debug-command\r\n$2\r\nno\r\n", w.call("CONFIG", "GET", "enable-debug-command"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set"
                    + " immutable config\r\n", w.call("CONFIG", "SET", "enable-debug-command", "yes"));
            assertEquals("-" + MonitoringCommands.DEBUG_NOT_ALLOWED + "\r\n", w.call("DEBUG", "SLEEP", "0"));
        }
    }

    @Test
    void localServesLoopbackClientsAndRefusesAnotherAddressAsRedisDoes() throws Exception {
        // 127.0.0.2 is this host too, but Redis counts 127.0.0.1 and ::1 alone as local
        try (ColossalServer ours = TestServers.colossal(dir, "enable-debug-command", "local")) {
            assertEquals(List.of("+OK\r\n", "-" + MonitoringCommands.DEBUG_NOT_ALLOWED + "\r\n"), localAndOther(ours.port()));
        }
        // without protected mode, which refuses 127.0.0.2 on its own in Redis
        TestServers.onRedisWith(List.of("--enable-debug-command", "local", "--protected-mode", "no"), port -> assertEquals(
                List.of("+OK\r\n", "-" + MonitoringCommands.DEBUG_NOT_ALLOWED + "\r\n"), localAndOther(port)));
        assertTrue(DebugAccess.isLocal("127.0.0.1:5000"));
        assertTrue(DebugAccess.isLocal("[0:0:0:0:0:0:0:1]:5000"));
        assertFalse(DebugAccess.isLocal("127.0.0.2:5000"));
        assertFalse(DebugAccess.isLocal("10.1.2.3:5000"));
        assertFalse(DebugAccess.isLocal("config"));
        // a Unix socket's clients are local, as in Redis
        java.nio.file.Path sock = dir.resolve("d.sock");
        try (ColossalServer ours = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("unix")).withPorts(0, -1),
                null, null, s -> {
                    s.set("enable-debug-command", "local");
                    s.unixSocket(new UnixSocket(sock, 0700));
                });
             Wire w = new Wire(sock)) {
            assertEquals("+OK\r\n", w.call("DEBUG", "SLEEP", "0"), "over the socket of " + ours.port());
        }
    }

    /** @return DEBUG SLEEP 0's reply from 127.0.0.1, then from 127.0.0.2 */
    private static List<String> localAndOther(int port) throws Exception {
        List<String> replies = new ArrayList<>();
        try (Wire local = new Wire(port)) {
            replies.add(local.call("DEBUG", "SLEEP", "0"));
        }
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (Wire other = new Wire(new Socket(loopback, port, InetAddress.getByName("127.0.0.2"), 0))) {
            replies.add(other.call("DEBUG", "SLEEP", "0"));
        }
        return replies;
    }

    @Test
    void setActiveExpireZeroStopsTheSweepAndOneStartsIt() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir, "enable-debug-command", "yes"); Wire w = new Wire(ours.port())) {
            assertEquals("+OK\r\n", w.call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
            assertEquals("+OK\r\n", w.call("SET", "k", "v", "PX", "50"));
            Thread.sleep(ExpirySweeper.MIN_GAP_NANOS / 1_000_000 * 8);
            // no read has touched k: only a sweep could have removed it
            assertEquals(0L, ours.context().stats.expiredKeys.sum(), "no sweep while active expiry is off");
            assertEquals("+OK\r\n", w.call("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
            assertEquals(1L, (long) TestServers.await(1L, 5000, () -> ours.context().stats.expiredKeys.sum()),
                    "the sweep removes the expired key once active expiry is back on");
            assertEquals("+OK\r\n", w.call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
            assertEquals("+OK\r\n", w.call("SET", "lazy", "v", "PX", "50"));
            Thread.sleep(200);
            assertEquals("$-1\r\n", w.call("GET", "lazy"), "a read still expires a key: lazy expiry stays on");
            assertEquals(2L, ours.context().stats.expiredKeys.sum());
        }
    }

    /**
     * DEBUG SLEEP holds the whole server, as Redis's one thread sleeping does: a client on another
     * event loop, and one that connects during the sleep, are answered only once it ends.
     */
    @Test
    void sleepHoldsEveryOtherClientUntilItEnds() throws Exception {
        ServerConfig threeLoops = new ServerConfig("127.0.0.1", 0, -1, dir, null, 10_000, 512L * 1024 * 1024, 0, 3, 50);
        try (ColossalServer ours = ColossalServer.start(threeLoops, null, null, s -> s.set("enable-debug-command", "yes"));
             Wire sleeper = new Wire(ours.port()); Wire other = new Wire(ours.port())) {
            assertEquals("+PONG\r\n", other.call("PING"));
            long start = System.nanoTime();
            sleeper.send(Wire.encode("DEBUG", "SLEEP", "1.5"));
            // the hold is on once the sleep began (not waited for long: without the hold it never is)
            TestServers.await(true, 500, () -> ours.context().pause.isOn());
            other.send(Wire.encode("PING"));
            try (Wire late = new Wire(ours.port())) { // accepted, and held as the others are
                late.send(Wire.encode("SET", "k", "v"));
                assertEquals("+PONG\r\n", other.reply());
                long pongMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(pongMillis >= 1500, "the other client was answered after " + pongMillis + " ms, within the sleep");
                assertEquals("+OK\r\n", late.reply());
                assertEquals("+OK\r\n", sleeper.reply());
            }
            assertEquals("$1\r\nv\r\n", sleeper.call("GET", "k"), "the sleeper goes on with its next command");
            assertEquals("+OK\r\n", sleeper.call("DEBUG", "SLEEP", "0"));
            assertFalse(ours.context().pause.isOn(), "the hold ends with the sleep");
        }
    }

    /** On a replica, DEBUG SLEEP holds the master's stream too: Redis's one thread reads nothing from it either. */
    @Test
    void sleepOnAReplicaHoldsTheMastersStream() throws Exception {
        int masterPort = TestServers.freePort();
        Process master = TestServers.redis(masterPort);
        Assumptions.assumeTrue(master != null, "redis-server not installed");
        try (ColossalServer ours = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1), null, null,
                s -> {
                    s.set("enable-debug-command", "yes");
                    s.replicaOf("127.0.0.1", masterPort, null, null);
                });
             Wire m = new Wire(masterPort); Wire sleeper = new Wire(ours.port())) {
            assertEquals("true", TestServers.await("true", 20_000,
                    () -> Boolean.toString(sleeper.call("INFO", "replication").contains("master_link_status:up"))));
            m.call("SET", "warm", "1"); // once it arrives the stream flows (the master waits for a first ACK)
            assertEquals("$1\r\n1\r\n", TestServers.await("$1\r\n1\r\n", 10_000, () -> sleeper.call("GET", "warm")));
            long start = System.nanoTime();
            sleeper.send(Wire.encode("DEBUG", "SLEEP", "1.5"));
            TestServers.await(true, 500, () -> ours.context().pause.isOn());
            m.call("SET", "k", "v");
            Thread.sleep(700); // the stream's SET would be applied within milliseconds
            long atMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            boolean applied = ours.context().dbs.store(0).raw("k".getBytes(StandardCharsets.UTF_8)) != null;
            assertTrue(atMillis >= 1500 || !applied, "the SET was applied " + atMillis + " ms into the sleep");
            assertEquals("+OK\r\n", sleeper.reply());
            assertEquals("$1\r\nv\r\n", TestServers.await("$1\r\nv\r\n", 10_000, () -> sleeper.call("GET", "k")),
                    "applied once the sleep ends");
            assertTrue(ours.context().dbs.store(0).raw("k".getBytes(StandardCharsets.UTF_8)) != null, "the probe sees it");
        } finally {
            master.destroy();
            master.waitFor();
        }
    }

    /** HTTP requests wait for DEBUG SLEEP too, as a connection's do. */
    @Test
    void sleepHoldsHttpRequests() throws Exception {
        try (ColossalServer ours = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0), null, null,
                s -> s.set("enable-debug-command", "yes"));
             Wire sleeper = new Wire(ours.port())) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.http.HttpRequest get = java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + ours.httpPort() + "/health")).build();
            assertEquals(200, http.send(get, java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
            long start = System.nanoTime();
            sleeper.send(Wire.encode("DEBUG", "SLEEP", "1.5"));
            TestServers.await(true, 500, () -> ours.context().pause.isOn());
            assertEquals(200, http.send(get, java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
            long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(answeredMillis >= 1500, "HTTP was answered " + answeredMillis + " ms into the sleep");
            assertEquals("+OK\r\n", sleeper.reply());
        }
    }
}
