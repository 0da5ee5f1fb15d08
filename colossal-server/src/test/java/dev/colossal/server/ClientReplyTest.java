package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT REPLY over real connections, each request's reply read in order: SKIP drops the next
 * command's reply only (errors too), OFF drops all until ON, a blocked command's late reply is
 * dropped as its own, pushes still arrive under OFF, and RESET turns replies back on.
 */
class ClientReplyTest {

    @TempDir
    Path dir;

    @Test
    void skipDropsOnlyTheNextCommandsReply() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            c.send(Wire.encode("CLIENT", "REPLY", "SKIP"));
            c.send(Wire.encode("NOSUCHCOMMAND"));
            assertEquals("$1\r\n1\r\n", c.call("ECHO", "1"), "SKIP and the unknown command answered nothing");
            c.send(Wire.encode("CLIENT", "REPLY", "SKIP"));
            c.send(Wire.encode("CLIENT", "REPLY", "SKIP")); // dropped itself, and drops the next
            c.send(Wire.encode("ECHO", "2"));
            assertEquals("$1\r\n3\r\n", c.call("ECHO", "3"));
            c.send(Wire.encode("CLIENT", "REPLY", "SKIP"));
            assertEquals("+OK\r\n", c.call("CLIENT", "REPLY", "ON"), "ON answers even where SKIP would drop it");
        }
    }

    @Test
    void offDropsEveryReplyUntilOn() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            c.send(Wire.encode("CLIENT", "REPLY", "OFF"));
            c.send(Wire.encode("SET", "k", "v"));
            c.send(Wire.encode("GET", "k"));
            c.send(Wire.encode("CLIENT", "REPLY", "BAD"));
            c.send(Wire.encode("CLIENT", "REPLY", "SKIP"));
            c.send(Wire.encode("CLIENT", "REPLY", "ON"));
            assertEquals("+OK\r\n", c.reply(), "ON's own reply is the first to come back");
            assertEquals("$1\r\nv\r\n", c.call("GET", "k"), "the SET ran");
            c.send(Wire.encode("CLIENT", "REPLY", "OFF"));
            assertEquals("RESET", c.call("RESET").trim().substring(1), "RESET turns replies back on");
        }
    }

    @Test
    void aBlockedCommandsLateReplyIsDroppedButPushesArrive() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port()); Wire other = new Wire(s.port())) {
            c.send(Wire.encode("CLIENT", "REPLY", "SKIP"));
            c.send(Wire.encode("BLPOP", "q", "0"));
            eventually(() -> call(other, "CLIENT", "LIST").contains("flags=b"), "BLPOP to block");
            other.call("RPUSH", "q", "x");
            assertEquals("+PONG\r\n", c.call("PING"), "BLPOP's reply was dropped");
            assertEquals(":0\r\n", c.call("LLEN", "q"), "BLPOP took the element");

            c.call("HELLO", "3");
            c.call("SUBSCRIBE", "ch");
            c.send(Wire.encode("CLIENT", "REPLY", "OFF"));
            c.send(Wire.encode("PING"));
            assertEquals(":1\r\n", other.call("PUBLISH", "ch", "m"));
            assertTrue(c.reply().contains("message"), "a push arrives under OFF");
            assertEquals("+OK\r\n", c.call("CLIENT", "REPLY", "ON"));
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
