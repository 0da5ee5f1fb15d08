package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sizes as redis-server reads them: {@code 100m} is 100,000,000 bytes, {@code 100mb} 104,857,600. */
class MemorySizeTest {

    /** Words redis-server refuses and we take: units past g, and binary units spelled with an i. */
    private static final List<String> BEYOND_REDIS = List.of("1t", "2TB", "1p", "1pb", "1kib", "3MiB", "1GIB", "1TiB");

    @TempDir
    Path dir;

    @Test
    void shouldReadEverySizeAsRedisServerDoes() throws Exception {
        List<String> words = List.of("0", "1", "1b", "1B", "1k", "1K", "1kb", "1KB", "1m", "100m", "100M", "100mb",
                "100MB", "100Mb", "1g", "1gb", "3Gb", "9223372036854775807",
                "-1", "-1m", "+1m", "1.5mb", " 1m", "1m ", "1 m", "lots", "1mbb", "1bm", "0x10");
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (Wire r = new Wire(port)) {
            for (String word : words) {
                String set = r.call("CONFIG", "SET", "maxmemory", word);
                if (set.equals("+OK\r\n")) {
                    String bytes = r.call("CONFIG", "GET", "maxmemory").split("\r\n")[4];
                    assertEquals(Long.parseLong(bytes), MemorySize.parse(word), word);
                } else {
                    assertThrows(IllegalArgumentException.class, () -> MemorySize.parse(word), word + ": " + set);
                }
            }
            for (String word : BEYOND_REDIS) {
                assertTrue(r.call("CONFIG", "SET", "maxmemory", word).startsWith("-ERR"), word);
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    @Test
    void shouldTakeBinaryUnitsWithAnIAndUnitsPastGigabytes() {
        assertEquals(3L << 20, MemorySize.parse("3MiB"));
        assertEquals(1L << 30, MemorySize.parse("1GIB"));
        assertEquals(2L << 40, MemorySize.parse("2TB"));
        assertEquals(1L << 40, MemorySize.parse("1TiB"));
        assertEquals(1_000_000_000_000L, MemorySize.parse("1t"));
        assertEquals(1_000_000_000_000_000L, MemorySize.parse("1p"));
        assertEquals(1L << 50, MemorySize.parse("1pb"));
        assertEquals("size=1.5mb is not a size; write e.g. 4096, 100mb or 100MiB (x 1024^2), 100m (x 1000^2)",
                assertThrows(IllegalArgumentException.class, () -> MemorySize.parse("1.5mb")).getMessage());
        // redis-server takes a unit without a number as 0 bytes; here it is no size.
        for (String word : List.of("", "m", "b")) {
            assertThrows(IllegalArgumentException.class, () -> MemorySize.parse(word), word);
        }
        // redis-server takes these too, wrapping around 2^64 (20000000000g is 1553255926290448384) or
        // stopping at 2^64 - 1; a size past a long is refused here.
        for (String word : List.of("9300p", "20000000000g", "9223372036854775808", "99999999999999999999")) {
            assertEquals("size=" + word + " is more bytes than a long holds",
                    assertThrows(IllegalArgumentException.class, () -> MemorySize.parse(word)).getMessage());
        }
    }

    /** A bound given as redis.conf writes it is named the same way back, in its own unit. */
    @Test
    void shouldWriteASizeInTheUnitThatDividesIt() {
        assertEquals("100mb", MemorySize.format(100L << 20));
        assertEquals("100m", MemorySize.format(100_000_000));
        assertEquals("1gb", MemorySize.format(1L << 30));
        assertEquals("1536kb", MemorySize.format(1536L << 10));
        assertEquals("1500k", MemorySize.format(1_500_000));
        assertEquals("1000kb", MemorySize.format(1_024_000));
        assertEquals("1234567", MemorySize.format(1_234_567));
        assertEquals("0", MemorySize.format(0));
    }

    /** CONFIG SET maxmemory with a word that is no size: redis-server's error, byte for byte. */
    @Test
    void shouldRefuseAMaxmemoryThatIsNoSizeWithRedisServersError() throws Exception {
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port, "--maxmemory", "100m", "--maxmemory-policy", "allkeys-lru");
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        ServerConfig bounded = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1)
                .withMaxMemory(MemorySize.parse("100m"), ServerConfig.ALLKEYS_LRU);
        try (ColossalServer s = ColossalServer.start(bounded); Wire ours = new Wire(s.port()); Wire theirs = new Wire(port)) {
            assertEquals(theirs.call("CONFIG", "GET", "maxmemory"), ours.call("CONFIG", "GET", "maxmemory"));
            for (String word : List.of("100m", "100000000", "lots", "1.5mb")) {
                assertEquals(theirs.call("CONFIG", "SET", "maxmemory", word), ours.call("CONFIG", "SET", "maxmemory", word),
                        word);
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }
}
