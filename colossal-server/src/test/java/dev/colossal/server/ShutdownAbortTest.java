package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SHUTDOWN ABORT while a master waits for a stalled replica (SIGSTOP) before it stops, on
 * redis-server 7.0.15 and on Colossal, each a process of its own with a redis-server replica: the
 * same replies in the same order from both, and the master serves on with its data. Then
 * Colossal's own rule: a stop SIGTERM asked for is not called off.
 */
class ShutdownAbortTest {

    @TempDir
    Path dir;

    /** Runs the abort on the master at {@code port}, whose replica is {@code replica}; returns every reply, in order. */
    private static List<String> abortTheWait(int port, Process replica, Wire replicaWire) throws Exception {
        List<String> replies = new ArrayList<>();
        try (Wire m = new Wire(port); Wire a = new Wire(port); Wire b = new Wire(port); Wire w = new Wire(port)) {
            assertEquals("+OK\r\n", m.call("CONFIG", "SET", "shutdown-timeout", "60"));
            caughtUp(m, replicaWire);
            signal(replica, "STOP");
            replies.add(m.call("SET", "k", "v"));
            a.send(Wire.encode("SHUTDOWN"));
            awaitInfo(m, "blocked_clients:1");
            b.send(Wire.encode("SHUTDOWN", "NOW")); // waits with the first: NOW does not cut the wait short
            awaitInfo(m, "blocked_clients:2");
            w.send(Wire.encode("SET", "x", "1"));
            assertEquals("true", TestServers.await("true", 10_000, () -> Boolean.toString(m.call("CLIENT", "LIST")
                    .lines().anyMatch(l -> l.contains("flags=b") && l.contains("cmd=set")))), "the write is held");
            // the stop's hold is its own: CLIENT UNPAUSE leaves it, as in Redis
            replies.add(m.call("CLIENT", "UNPAUSE"));
            Thread.sleep(200);
            replies.add(m.call("GET", "x")); // reads are served meanwhile
            replies.add(m.call("GET", "k"));
            replies.add(m.call("SHUTDOWN", "ABORT"));
            replies.add(a.reply());
            replies.add(b.reply());
            replies.add(w.reply()); // the held write runs once the stop is called off
            replies.add(m.call("GET", "x"));
            replies.add(m.call("SHUTDOWN", "ABORT"));
            replies.add(m.call("PING"));
        }
        return replies;
    }

    @Test
    void shutdownAbortCallsOffTheWaitForReplicasAsOnRedis() throws Exception {
        List<String> want = List.of("+OK\r\n", "+OK\r\n", "$-1\r\n", "$1\r\nv\r\n", "+OK\r\n",
                "-ERR Errors trying to SHUTDOWN. Check logs.\r\n", "-ERR Errors trying to SHUTDOWN. Check logs.\r\n",
                "+OK\r\n", "$1\r\n1\r\n", "-ERR No shutdown in progress.\r\n", "+PONG\r\n");
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try {
            withReplica(redisPort, (replica, r) -> assertEquals(want, abortTheWait(redisPort, replica, r), "redis-server"));
        } finally {
            redis.destroy();
            redis.waitFor();
        }
        int port = TestServers.freePort();
        Path log = dir.resolve("master.log");
        Process ours = TestServers.serveInChildJvm(port, dir.resolve("data"), log);
        try {
            withReplica(port, (replica, r) -> {
                assertEquals(want, abortTheWait(port, replica, r), "Colossal");
                assertTrue(ours.isAlive(), "the master serves on");
                signal(replica, "CONT");
                try (Wire m = new Wire(port)) {
                    m.send(Wire.encode("SHUTDOWN")); // the replica caught up: the stop goes through now
                    assertTrue(m.closedByServer(), "SHUTDOWN's connection closes as the server stops");
                }
                assertTrue(ours.waitFor(60, TimeUnit.SECONDS), "the master stopped");
                assertEquals(0, ours.exitValue(), Files.readString(log));
                assertEquals("$1\r\n1\r\n", r.call("GET", "x"), "the write held in the wait reached the replica");
            });
            assertTrue(Files.readString(log).contains("SHUTDOWN ABORT from client"), Files.readString(log));
        } finally {
            ours.destroyForcibly().waitFor();
        }
    }

    /**
     * A stop SIGTERM asked for runs in the JVM's shutdown hook, which nothing calls off: SHUTDOWN
     * ABORT answers so (Redis would call it off), writes stay held, and the master stops with exit
     * status 0 once its replica caught up.
     */
    @Test
    void aStopSigtermAskedForIsNotCalledOff() throws Exception {
        int port = TestServers.freePort();
        Path log = dir.resolve("master.log");
        Process ours = TestServers.serveInChildJvm(port, dir.resolve("data"), log);
        try {
            withReplica(port, (replica, r) -> {
                try (Wire m = new Wire(port); Wire w = new Wire(port)) {
                    assertEquals("+OK\r\n", m.call("CONFIG", "SET", "shutdown-timeout", "60"));
                    caughtUp(m, r);
                    signal(replica, "STOP");
                    m.call("SET", "k", "v");
                    signal(ours, "TERM");
                    assertEquals("true", TestServers.await("true", 20_000,
                            () -> Boolean.toString(Files.readString(log).contains("writes held; waiting"))), "the wait began");
                    w.send(Wire.encode("SET", "y", "1"));
                    assertEquals("true", TestServers.await("true", 10_000, () -> Boolean.toString(m.call("CLIENT", "LIST")
                            .lines().anyMatch(l -> l.contains("flags=b") && l.contains("cmd=set")))), "the write is held");
                    assertEquals("-" + StopRequests.SETTLED + "\r\n", m.call("SHUTDOWN", "ABORT"));
                    assertTrue(ours.isAlive(), "still waiting for the replica");
                    signal(replica, "CONT");
                    assertTrue(ours.waitFor(60, TimeUnit.SECONDS), "the master stopped");
                    assertEquals(0, ours.exitValue(), Files.readString(log));
                }
                assertEquals("$1\r\nv\r\n", r.call("GET", "k"));
                assertEquals("$-1\r\n", r.call("GET", "y"), "the held write never ran");
            });
        } finally {
            ours.destroyForcibly().waitFor();
        }
    }

    /** A check with a replica. */
    @FunctionalInterface
    private interface ReplicaCheck {
        void run(Process replica, Wire wire) throws Exception;
    }

    /** Runs {@code check} with a redis-server replica of the master at {@code masterPort}, stopped after. */
    private void withReplica(int masterPort, ReplicaCheck check) throws Exception {
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port, "--replicaof", "127.0.0.1", Integer.toString(masterPort), "--dir",
                Files.createTempDirectory(dir, "replica").toString());
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (Wire r = new Wire(port)) {
            check.run(redis, r);
        } finally {
            signal(redis, "CONT");
            redis.destroy();
            redis.waitFor();
        }
    }

    private static void signal(Process process, String name) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor());
    }

    private static void awaitInfo(Wire m, String line) throws Exception {
        assertEquals("true", TestServers.await("true", 10_000,
                () -> Boolean.toString(m.call("INFO", "clients").contains(line + "\r\n"))), line);
    }

    private static String info(Wire w, String field) throws Exception {
        for (String line : w.call("INFO", "replication").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return "";
    }

    private static void caughtUp(Wire master, Wire replica) throws Exception {
        assertEquals("up", TestServers.await("up", 20_000, () -> info(replica, "master_link_status")));
        assertEquals("true", TestServers.await("true", 20_000,
                () -> Boolean.toString(info(replica, "slave_repl_offset").equals(info(master, "master_repl_offset")))));
    }
}
