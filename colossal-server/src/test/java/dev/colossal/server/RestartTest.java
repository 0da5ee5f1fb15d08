package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server as a real process: SIGKILL loses nothing acknowledged; SIGTERM stops it cleanly. */
class RestartTest {

    @TempDir
    Path dir;

    private Path log;
    /** Every server this test started: a failed assertion must not leave one running after the test. */
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopWhatIsLeft() {
        started.forEach(Process::destroyForcibly);
    }

    private Process serve(int port) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        log = dir.resolve("server-" + System.nanoTime() + ".log");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.colossal.cli.Main",
                "serve", "--port", Integer.toString(port), "--http-port", "-1", "--data", dir.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        started.add(p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try (Wire w = new Wire(port)) {
                if (w.call("PING").equals("+PONG\r\n")) {
                    return p;
                }
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        throw new IOException("server did not start on port " + port);
    }

    @Test
    void dataWrittenBeforeSigkillIsServedAfterRestart() throws Exception {
        int port = TestServers.freePort();
        Process p = serve(port);
        try (Wire w = new Wire(port)) {
            for (int i = 0; i < 2000; i++) {
                assertEquals("+OK\r\n", w.call("SET", "k" + i, "value-" + i));
            }
            assertEquals("+OK\r\n", w.call("SET", "ttl", "x", "EX", "1000"));
            assertEquals("+OK\r\n", w.call("SELECT", "3"));
            assertEquals("+OK\r\n", w.call("SET", "k0", "in db 3"));
        }
        p.destroyForcibly(); // SIGKILL
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        Process again = serve(port);
        String said = Files.readString(log);
        assertTrue(said.contains("colossal: map file " + dir.resolve("db0.map").toAbsolutePath() + ": 2001 keys, ")
                && said.contains("colossal: map file " + dir.resolve("db3.map").toAbsolutePath() + ": 1 key, ")
                && said.contains("colossal: the last serve of " + dir.toAbsolutePath() + " (pid " + p.pid()
                        + ") did not stop cleanly") && said.contains("no recovery step is needed"), said);
        try (Wire w = new Wire(port)) {
            assertEquals(":2001\r\n", w.call("DBSIZE"));
            assertTrue(w.call("INFO", "persistence").contains("\r\ncolossal_map_repairs:"));
            for (int i = 0; i < 2000; i += 97) {
                String v = "value-" + i;
                assertEquals("$" + v.length() + "\r\n" + v + "\r\n", w.call("GET", "k" + i));
            }
            String ttl = w.call("TTL", "ttl");
            long left = Long.parseLong(ttl.substring(1).trim());
            assertTrue(left > 900 && left <= 1000, "TTL survives restart: " + ttl);
            assertEquals("+OK\r\n", w.call("SELECT", "3"));
            assertEquals("$7\r\nin db 3\r\n", w.call("GET", "k0"), "database 3 survives SIGKILL in its own file");
            assertEquals(":1\r\n", w.call("DBSIZE"));
        } finally {
            again.destroy(); // SIGTERM: graceful
            assertTrue(again.waitFor(20, TimeUnit.SECONDS), "SIGTERM stops the server");
        }
        // A normal stop, as redis-server's: 0, not the JVM's 143 (128 + SIGTERM), which systemd counts a failure.
        assertEquals(0, again.exitValue(), Files.readString(log));
        assertTrue(Files.readString(log).contains("colossal: stopped in "), Files.readString(log));
    }

    @Test
    void shutdownStopsAsSigtermDoesAndAnswersBadOptionsAsRedis() throws Exception {
        int port = TestServers.freePort();
        Process p = serveWithK(port);
        try (Wire w = new Wire(port)) {
            assertEquals("-ERR No shutdown in progress.\r\n", w.call("SHUTDOWN", "ABORT"));
            assertEquals("-ERR syntax error\r\n", w.call("SHUTDOWN", "NOSAVE", "LATER"));
            assertEquals("+PONG\r\n", w.call("PING"), "still serving");
        }
        try (redis.clients.jedis.Jedis jedis = new redis.clients.jedis.Jedis("127.0.0.1", port)) {
            jedis.shutdown(); // a real client: it expects no reply, the connection to close
        }
        String said = assertStoppedCleanlyAndKOnRestart(p, port, "SHUTDOWN");
        assertTrue(said.contains("colossal: SHUTDOWN from client id=") && said.contains("colossal: stopped in "), said);
    }

    /** A server on {@code port} that has stored k=v. */
    private Process serveWithK(int port) throws Exception {
        Process p = serve(port);
        try (Wire w = new Wire(port)) {
            assertEquals("+OK\r\n", w.call("SET", "k", "v"));
        }
        return p;
    }

    /** Waits for {@code p} to exit 0, restarts on its data and checks k=v and no unclean-stop report; returns p's log. */
    private String assertStoppedCleanlyAndKOnRestart(Process p, int port, String how) throws Exception {
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), how + " stops the server");
        assertEquals(0, p.exitValue(), Files.readString(log));
        String said = Files.readString(log);
        Process again = serve(port);
        assertFalse(Files.readString(log).contains("did not stop cleanly"), "the last serve stopped cleanly: " + Files.readString(log));
        try (Wire w = new Wire(port)) {
            assertEquals("$1\r\nv\r\n", w.call("GET", "k"));
        } finally {
            again.destroy();
            again.waitFor(20, TimeUnit.SECONDS);
        }
        return said;
    }

    @Test
    void sigintStopsWithStatusZeroAfterSyncingWhatWasWritten() throws Exception {
        int port = TestServers.freePort();
        Process p = serveWithK(port);
        assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor());
        assertStoppedCleanlyAndKOnRestart(p, port, "SIGINT");
    }
}
