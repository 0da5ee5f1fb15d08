package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The longest string: proto-max-bulk-len, as in Redis, and below it the map's limit on an entry,
 * which every value meets with room for a TTL. Past either, SETRANGE and APPEND answer Redis's
 * {@code string exceeds maximum allowed size}, never a Java exception's text.
 */
class StringLimitsTest {

    private static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    private ColossalServer start(long maxBulk) throws Exception {
        return ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1).withLimits(100, maxBulk, 0));
    }

    @Test
    void atProtoMaxBulkLenSetrangeAndAppendAnswerAsRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort, "--proto-max-bulk-len", "1mb");
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        String mb = Long.toString(1 << 20);
        String[][] commands = {
            {"SETRANGE", "k", Long.toString((1 << 20) - 1), "x"},
            {"SETRANGE", "k", mb, "x"},
            {"SETRANGE", "k", mb, ""},
            {"SETRANGE", "absent", mb, "x"},
            {"SETRANGE", "absent", mb, ""},
            {"SETRANGE", "k", "9223372036854775807", "x"},
            {"APPEND", "k", "y"},
            {"APPEND", "k", ""},
            {"STRLEN", "k"},
            {"APPEND", "a", "y"},
            {"EXPIRE", "k", "100"},
            {"TTL", "k"},
            {"APPEND", "k", "y"},
            {"TTL", "k"},
        };
        List<String> diffs = new ArrayList<>();
        try (ColossalServer ours = start(1 << 20); Wire r = new Wire(redisPort); Wire o = new Wire(ours.port())) {
            r.call("FLUSHALL");
            for (String[] c : commands) {
                String want = r.call(c);
                String got = o.call(c);
                if (!want.equals(got)) {
                    diffs.add(String.join(" ", c) + "\n    redis:    " + want.trim() + "\n    colossal: " + got.trim());
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
        assertEquals("", String.join("\n", diffs));
    }

    /** With proto-max-bulk-len at 1 GiB, the map's limit is the one met first. */
    @Test
    void pastTheMapsLimitSetrangeAnswersStringExceedsMaximumAllowedSize() throws Exception {
        try (ColossalServer s = start(GIB); Wire w = new Wire(s.port())) {
            String tooBig = "-" + Errors.TOO_BIG + "\r\n";
            // The trial's case: a 1 GiB result (it answered ERR IllegalArgumentException: valueLength=...).
            assertEquals(tooBig, w.call("SETRANGE", "k", Long.toString(GIB - 1), "x"));
            // One byte shorter fitted in the map, but without room for the 8 bytes of a TTL: EXPIRE failed on it.
            assertEquals(tooBig, w.call("SETRANGE", "k", Long.toString(GIB - 2), "x"));
            assertEquals(tooBig, w.call("SETRANGE", "k", Long.toString(StoredValue.MAX_PAYLOAD), "x"));
            assertEquals("$-1\r\n", w.call("GET", "k"));
            assertEquals(":0\r\n", w.call("DBSIZE"));
        }
    }

    /** The longest value the server stores takes a TTL: the map holds it with the deadline in front. */
    @Test
    void theLongestValueFitsTheMapWithATtl() throws Exception {
        assertEquals(GIB - StoredValue.EXPIRING_HEADER, StoredValue.MAX_PAYLOAD);
        try (MapStore store = MapStore.open(dir, System::currentTimeMillis); Arena arena = Arena.ofConfined()) {
            long at = StoredValue.EXPIRING_HEADER;
            MemorySegment buf = arena.allocate(at + StoredValue.MAX_PAYLOAD);
            MemorySegment key = MemorySegment.ofArray(new byte[] {'k'});
            long deadline = System.currentTimeMillis() + 100_000;
            store.setInPlace(key, buf, at, StoredValue.MAX_PAYLOAD, deadline);
            assertEquals(1, store.size());
            MemorySegment head = arena.allocate(64);
            assertEquals(GIB, store.copyStored(key, head, 0), "the stored form: header, deadline and value");
            assertThrows(ReplyException.class, () -> store.setInPlace(key, buf, at - 1, StoredValue.MAX_PAYLOAD + 1, deadline));
        }
    }

    @Test
    void protoMaxBulkLenAboveTheMapsLimitIsRefusedNamingTheFlag() {
        ServerConfig d = ServerConfig.defaults();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.withLimits(100, 2 * GIB, 0));
        assertEquals("--proto-max-bulk-len=2147483648 must be 1 KiB..1 GiB (1024..1073741824 bytes):"
                + " the map holds no longer value", e.getMessage());
        assertTrue(d.withLimits(100, GIB, 0).maxBulkBytes() == GIB);
    }
}
