package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OBJECT IDLETIME counts the seconds since a key's last use: a GET (the fast path) or any command
 * naming the key makes it 0 again, OBJECT itself does not, a use under an LFU policy counts once
 * the policy is LRU again, and RESTORE's IDLETIME sets it.
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
            for (String look : new String[] {"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "TYPE", "EXISTS"}) {
                c.call(look, "a");
            }
            assertTrue(idle(c, "a") >= 2, "asking its TTL, type or existence did not use it, as in Redis");
            assertTrue(idle(c, "list") >= 2);
            c.call("GET", "a");
            c.call("LLEN", "list");
            assertEquals(0, idle(c, "a"), "GET used it");
            assertEquals(0, idle(c, "list"), "LLEN used it");
            assertEquals("$-1\r\n", c.call("OBJECT", "IDLETIME", "nosuch"));
            // go-redis's own test: an LFU policy for an OBJECT FREQ, then back; the server is up 2 s by now
            assertEquals("+OK\r\n", c.call("CONFIG", "SET", "maxmemory-policy", "volatile-lfu"));
            c.call("GET", "a");
            assertEquals(":5\r\n", c.call("OBJECT", "FREQ", "a"));
            assertEquals("+OK\r\n", c.call("CONFIG", "SET", "maxmemory-policy", "noeviction"));
            assertEquals(0, idle(c, "a"), "used under LFU: its last use is kept");
        }
    }

    @Test
    void restoreSetsTheIdleTimeItIsGiven() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire c = new Wire(s.port())) {
            c.call("SET", "a", "1");
            byte[] dump = c.call(bytes("DUMP"), bytes("a"));
            int header = new String(dump, StandardCharsets.ISO_8859_1).indexOf("\r\n") + 2;
            byte[] payload = Arrays.copyOfRange(dump, header, dump.length - 2);
            assertEquals("+OK\r\n", new String(c.call(bytes("RESTORE"), bytes("b"), bytes("0"), payload,
                    bytes("IDLETIME"), bytes("100000")), StandardCharsets.UTF_8));
            long idle = idle(c, "b");
            assertTrue(idle >= 100000 && idle <= 100001, "idle " + idle);
            c.call("GET", "b");
            assertEquals(0, idle(c, "b"));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
