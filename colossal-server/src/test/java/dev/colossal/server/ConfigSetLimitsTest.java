package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONFIG SET requirepass and timeout on a running server, as redis-py's own suite sets them:
 * a new password holds new connections to AUTH while those already in stay in, and "" lifts it;
 * a new idle timeout closes a connection that waits past it, and 0 spares it again. Each step is
 * also sent to redis-server 7.0.15, and every reply compared byte for byte.
 */
class ConfigSetLimitsTest {

    @TempDir
    Path dir;

    @Test
    void requirepassSetAtRunTimeHoldsNewConnectionsOnly() throws Exception {
        TestServers.onRedis(redisPort -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Wire theirAdmin = new Wire(redisPort);
                 Wire ourAdmin = new Wire(ours.port())) {
                requirepassSteps(redisPort, theirAdmin, ours.port(), ourAdmin);
            }
        });
    }

    private static void requirepassSteps(int redisPort, Wire theirAdmin, int ourPort, Wire ourAdmin) throws Exception {
        List<String> got = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            Wire admin = side == 0 ? theirAdmin : ourAdmin;
            int port = side == 0 ? redisPort : ourPort;
            List<String> out = side == 0 ? want : got;
            out.add(admin.call("CONFIG", "SET", "requirepass", "s3cret"));
            out.add(admin.call("CONFIG", "GET", "requirepass"));
            out.add(admin.call("SET", "k", "v")); // the connection that set it stays in
            try (Wire fresh = new Wire(port)) {
                out.add(fresh.call("GET", "k"));
                out.add(fresh.call("AUTH", "nope"));
                out.add(fresh.call("AUTH", "s3cret"));
                out.add(fresh.call("GET", "k"));
                out.add(fresh.call("AUTH", "default", "s3cret"));
            }
            out.add(admin.call("CONFIG", "SET", "requirepass", ""));
            out.add(admin.call("CONFIG", "GET", "requirepass"));
            try (Wire fresh = new Wire(port)) {
                out.add(fresh.call("GET", "k"));
                out.add(fresh.call("AUTH", "s3cret"));
            }
        }
        assertEquals(want, got);
        assertEquals("-NOAUTH Authentication required.\r\n", got.get(3));
        assertEquals("$1\r\nv\r\n", got.get(10), "no password after requirepass \"\"");
    }

    @Test
    void timeoutSetAtRunTimeClosesIdleConnections() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire admin = new Wire(ours.port())) {
            assertEquals("*2\r\n$7\r\ntimeout\r\n$1\r\n0\r\n", admin.call("CONFIG", "GET", "timeout"));
            assertEquals("+OK\r\n", admin.call("CONFIG", "SET", "timeout", "1"));
            assertEquals("*2\r\n$7\r\ntimeout\r\n$1\r\n1\r\n", admin.call("CONFIG", "GET", "timeout"));
            try (Wire idle = new Wire(ours.port())) {
                idle.socket.setSoTimeout(6_000);
                assertEquals("+PONG\r\n", idle.call("PING"));
                long t0 = System.nanoTime();
                assertTrue(idle.closedByServer(), "closed after a second idle");
                assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
            }
            try (Wire back = new Wire(ours.port())) {
                assertEquals("+OK\r\n", back.call("CONFIG", "SET", "timeout", "0"));
                back.socket.setSoTimeout(2_500);
                assertFalse(closedWithin(back), "timeout 0: never closed for idling");
                assertEquals("+PONG\r\n", back.call("PING"));
            }
        }
    }

    /** A replica that sends nothing back (no REPLCONF ACK) is not idle: Redis spares replicas the timeout. */
    @Test
    void theTimeoutSparesAReplica() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire admin = new Wire(ours.port());
             Wire replica = new Wire(ours.port())) {
            assertEquals("+OK\r\n", admin.call("CONFIG", "SET", "timeout", "1"));
            replica.socket.setSoTimeout(10_000);
            replica.socket.getOutputStream().write(Wire.encode("PSYNC", "?", "-1"));
            java.io.InputStream in = replica.socket.getInputStream();
            String fullResync = line(in);
            assertTrue(fullResync.startsWith("+FULLRESYNC "), fullResync);
            int c;
            while ((c = in.read()) == '\n') {
                // a newline while the snapshot is built
            }
            assertEquals('$', c);
            in.readNBytes(Integer.parseInt(line(in)));
            Thread.sleep(3_000); // past the timeout, and two of its sweeps
            try (Wire writer = new Wire(ours.port())) { // the admin's connection was idle: closed
                assertEquals("+OK\r\n", writer.call("SET", "k", "v"));
            }
            String stream = new String(in.readNBytes(40), java.nio.charset.StandardCharsets.US_ASCII);
            assertTrue(stream.contains("SET"), "the replica is still sent the stream: " + stream);
        }
    }

    /**
     * CONFIG SET client-output-buffer-limit's replica class bounds a replica attached after it: one
     * that reads nothing is dropped once 1 MB of the stream waits for it (the default, 256 MB,
     * would hold all 8 MB written here).
     */
    @Test
    void theReplicaOutputLimitIsSetByConfigSet() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire admin = new Wire(ours.port())) {
            assertEquals("+OK\r\n", admin.call("CONFIG", "SET", "client-output-buffer-limit", "replica 1mb 0 0"));
            try (java.net.Socket replica = new java.net.Socket()) {
                replica.setReceiveBufferSize(4096);
                replica.connect(new java.net.InetSocketAddress("127.0.0.1", ours.port()));
                replica.getOutputStream().write(Wire.encode("PSYNC", "?", "-1"));
                String value = "v".repeat(100_000);
                for (int i = 0; i < 80; i++) {
                    assertEquals("+OK\r\n", admin.call("SET", "k" + i, value));
                }
                assertEquals("0", TestServers.await("0", 10_000, () -> PolyglotClientsTest.field(admin.call("INFO", "replication"), "connected_slaves")),
                        "the replica that read nothing is dropped past 1 MB");
            }
        }
    }

    /** @return the bytes of {@code in} up to CRLF */
    private static String line(java.io.InputStream in) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\r'; ) {
            assertTrue(c >= 0, "the connection ended after " + b);
            b.append((char) c);
        }
        assertEquals('\n', in.read());
        return b.toString();
    }

    /** @return whether the server closed {@code w} before its socket timeout passed */
    private static boolean closedWithin(Wire w) throws Exception {
        try {
            return w.closedByServer();
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        }
    }
}
