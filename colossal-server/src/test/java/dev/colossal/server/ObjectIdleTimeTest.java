package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OBJECT IDLETIME counts the seconds since a key's last use: a GET (the fast path) or any command
 * naming the key makes it 0 again, and OBJECT itself does not.
 */
class ObjectIdleTimeTest {

    @TempDir
    Path dir;

    private static long idle(Wire w, String key) throws Exception {
        String reply = w.call("OBJECT", "IDLETIME", key);
        assertTrue(reply.startsWith(":"), reply);
        return Long.parseLong(reply.substring(1).trim());
    }

    @Test
    void idleTimeGrowsUntilTheKeyIsUsed() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            c.call("SET", "a", "1");
            c.call("RPUSH", "list", "x");
            assertEquals(0, idle(c, "a"));
            Thread.sleep(2100);
            assertTrue(idle(c, "a") >= 2, "idle since the SET");
            assertTrue(idle(c, "a") >= 2, "OBJECT IDLETIME did not use the key");
            assertTrue(idle(c, "list") >= 2);
            c.call("GET", "a");
            c.call("LLEN", "list");
            assertEquals(0, idle(c, "a"), "GET used it");
            assertEquals(0, idle(c, "list"), "LLEN used it");
            assertEquals("$-1\r\n", c.call("OBJECT", "IDLETIME", "nosuch"));
        }
    }
}
