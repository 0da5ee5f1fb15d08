package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT PAUSE over real connections, all on one event loop (the tests' server has one): a paused
 * write waits, then runs, and the requests behind it run after it in order, while other clients'
 * reads go through at once; UNPAUSE lets it go; ALL holds reads but not an unknown command's error;
 * a second pause never shortens the first; keys do not expire while a pause lasts.
 */
class ClientPauseTest {

    @TempDir
    Path dir;

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Test
    void aPausedWriteWaitsThenRunsWhileReadsGoThrough() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire admin = new Wire(s.port());
             Wire writer = new Wire(s.port()); Wire reader = new Wire(s.port())) {
            long start = System.nanoTime();
            assertEquals("+OK\r\n", admin.call("CLIENT", "PAUSE", "700", "WRITE"));
            // pipelined: the GET behind the held SET waits for it, and sees what it wrote
            writer.send(Wire.encode("SET", "k", "v"));
            writer.send(Wire.encode("GET", "k"));
            assertEquals("$-1\r\n", reader.call("GET", "k"), "a read runs during a WRITE pause");
            assertEquals("+PONG\r\n", reader.call("PING"));
            assertTrue(millisSince(start) < 600, "the reader was not held: " + millisSince(start) + " ms");
            String list = admin.call("CLIENT", "LIST");
            assertTrue(list.contains("flags=b") && list.contains("cmd=set"),
                    "the held client shows as blocked on its SET: " + list);
            assertEquals(0, writer.socket.getInputStream().available(), "the write is still held");
            assertEquals("+OK\r\n", writer.reply());
            assertTrue(millisSince(start) >= 650, "the write waited for the pause: " + millisSince(start) + " ms");
            assertEquals("$1\r\nv\r\n", writer.reply());
            assertEquals("$1\r\nv\r\n", reader.call("GET", "k"));
        }
    }

    @Test
    void writeHoldsWhatRedisHoldsAndNothingElse() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire admin = new Wire(s.port()); Wire c = new Wire(s.port())) {
            for (String[] held : new String[][] {{"PUBLISH", "ch", "m"}, {"EVAL", "return 1", "0"}, {"PFCOUNT", "h"},
                    {"EXPIRE", "k", "10"}, {"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}}) {
                long start = System.nanoTime();
                admin.call("CLIENT", "PAUSE", "300", "WRITE");
                c.call(held);
                assertTrue(millisSince(start) >= 290, held[0] + " was held: " + millisSince(start) + " ms");
            }
            String noWrites = "#!lua flags=no-writes\nreturn 1";
            String sha = c.call("SCRIPT", "LOAD", noWrites).split("\r\n")[1];
            c.call("FUNCTION", "LOAD", "#!lua name=ro\nredis.register_function{function_name='ro', callback=function() return 1 end,"
                    + " flags={'no-writes'}}");
            // scripts and functions that declare no-writes are not held, as Redis reads their flags
            for (String[] free : new String[][] {{"EVAL_RO", "return 1", "0"}, {"SCRIPT", "LOAD", "return 1"},
                    {"XINFO", "STREAM", "s"}, {"CONFIG", "GET", "maxmemory"}, {"MULTI"}, {"GET", "k"}, {"EXEC"},
                    {"EVAL", noWrites, "0"}, {"EVALSHA", sha, "0"}, {"FCALL", "ro", "0"}}) {
                long start = System.nanoTime();
                admin.call("CLIENT", "PAUSE", "1000", "WRITE");
                c.call(free);
                assertTrue(millisSince(start) < 500, free[0] + " was not held: " + millisSince(start) + " ms");
                admin.call("CLIENT", "UNPAUSE");
            }
            // EXEC of a transaction with a write is held
            c.call("MULTI");
            c.call("SET", "k", "1");
            long start = System.nanoTime();
            admin.call("CLIENT", "PAUSE", "300", "WRITE");
            assertEquals("*1\r\n+OK\r\n", c.call("EXEC"));
            assertTrue(millisSince(start) >= 290, "EXEC with a write was held: " + millisSince(start) + " ms");
        }
    }

    @Test
    void unpauseLetsTheHeldClientsGoAtOnce() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire admin = new Wire(s.port()); Wire writer = new Wire(s.port())) {
            admin.call("CLIENT", "PAUSE", "60000", "WRITE");
            writer.send(Wire.encode("INCR", "n"));
            eventually(() -> call(admin, "CLIENT", "LIST").contains("flags=b"), "the INCR to be held");
            // counted as blocked, as Redis counts a paused client (its test suite waits for this)
            assertTrue(call(admin, "INFO", "clients").contains("\r\nblocked_clients:1\r\n"));
            long start = System.nanoTime();
            assertEquals("+OK\r\n", admin.call("CLIENT", "UNPAUSE"));
            assertEquals(":1\r\n", writer.reply());
            assertTrue(call(admin, "INFO", "clients").contains("\r\nblocked_clients:0\r\n"));
            assertTrue(millisSince(start) < 5000, "released by UNPAUSE: " + millisSince(start) + " ms");
        }
    }

    @Test
    void allHoldsReadsButNotErrorsOfUnknownCommands() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire admin = new Wire(s.port()); Wire c = new Wire(s.port())) {
            long start = System.nanoTime();
            admin.call("CLIENT", "PAUSE", "500");
            assertTrue(c.call("NOSUCHCOMMAND").startsWith("-ERR unknown command"));
            assertEquals("-ERR wrong number of arguments for 'get' command\r\n", c.call("GET"));
            assertTrue(millisSince(start) < 400, "errors are answered at once: " + millisSince(start) + " ms");
            assertEquals("+PONG\r\n", c.call("PING"));
            assertTrue(millisSince(start) >= 450, "PING was held: " + millisSince(start) + " ms");
        }
    }

    @Test
    void aLaterPauseNeverShortensNorNarrowsTheFirst() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire admin = new Wire(s.port()); Wire c = new Wire(s.port())) {
            long start = System.nanoTime();
            admin.call("CLIENT", "PAUSE", "600", "ALL");
            admin.send(Wire.encode("CLIENT", "PAUSE", "10", "WRITE")); // held itself: ALL holds CLIENT too
            assertEquals("+PONG\r\n", c.call("PING"));
            assertTrue(millisSince(start) >= 550, "held for the first pause's time: " + millisSince(start) + " ms");
            assertEquals("+OK\r\n", admin.reply());
            start = System.nanoTime();
            admin.call("CLIENT", "PAUSE", "600", "WRITE");
            admin.call("CLIENT", "PAUSE", "10", "WRITE");
            c.call("SET", "k", "v");
            assertTrue(millisSince(start) >= 550, "a shorter pause kept the longer: " + millisSince(start) + " ms");
        }
    }

    @Test
    void keysDoNotExpireDuringAPause() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire admin = new Wire(s.port()); Wire c = new Wire(s.port())) {
            c.call("SET", "e", "1", "PX", "50");
            c.call("SET", "keep", "1");
            admin.call("CLIENT", "PAUSE", "1500", "WRITE");
            Thread.sleep(400);
            assertEquals("$-1\r\n", c.call("GET", "e"), "past its deadline it reads as gone");
            assertEquals(":2\r\n", c.call("DBSIZE"), "but it is not removed while the pause lasts");
            eventually(() -> call(c, "DBSIZE").equals(":1\r\n"), "the key to expire once the pause is over");
        }
    }

    private static String call(Wire w, String... args) {
        try {
            return w.call(args);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
