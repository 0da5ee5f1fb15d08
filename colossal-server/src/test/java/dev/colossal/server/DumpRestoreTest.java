package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.RestoreParams;

/**
 * DUMP and RESTORE between redis-server and Colossal, both ways, as migration tools use them:
 * every value a client can store comes back byte for byte, TTLs included, whichever server dumped
 * it (Redis's LZF-compressed payloads too). The replies to bad requests are in
 * {@code redis-compat.txt}.
 */
class DumpRestoreTest {

    @TempDir
    Path dir;

    @Test
    void stringsMoveBetweenRedisAndColossalBothWays() throws Exception {
        List<byte[]> values = values();
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                int compressed = 0;
                for (int i = 0; i < values.size(); i++) {
                    byte[] key = ("k" + i).getBytes(StandardCharsets.US_ASCII);
                    byte[] value = values.get(i);
                    redis.set(key, value);
                    byte[] payload = redis.dump(key);
                    compressed += (payload[1] & 0xFF) == 0xC3 ? 1 : 0; // the LZF string encoding
                    assertEquals("OK", colossal.restore(key, 0, payload), "value " + i);
                    assertArrayEquals(value, colossal.get(key), "Redis to Colossal, value " + i);

                    byte[] back = ("b" + i).getBytes(StandardCharsets.US_ASCII);
                    assertEquals("OK", redis.restore(back, 0, colossal.dump(key)), "value " + i);
                    assertArrayEquals(value, redis.get(back), "Colossal to Redis, value " + i);
                }

                assertEquals(7, compressed, "Redis compressed every repetitive value");

                byte[] key = "ttl".getBytes(StandardCharsets.US_ASCII);
                redis.set(key, "soon".getBytes(StandardCharsets.US_ASCII));
                colossal.restore(key, 100_000, redis.dump(key));
                long left = colossal.pttl(key);
                assertTrue(left > 90_000 && left <= 100_000, "pttl " + left);
                long at = System.currentTimeMillis() + 500_000;
                colossal.restore(key, at, redis.dump(key), RestoreParams.restoreParams().replace().absTtl());
                assertEquals(at, colossal.pexpireTime(key));
            }
        });
    }

    @Test
    void aPayloadOfAnotherTypeIsRefusedAndCreatesNothing() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                redis.xadd("stream", StreamEntryID.NEW_ENTRY, java.util.Map.of("f", "v"));
                for (String key : List.of("stream")) {
                    byte[] payload = redis.dump(key);
                    JedisDataException e = assertThrows(JedisDataException.class, () -> colossal.restore(key, 0, payload));
                    assertTrue(e.getMessage().contains("holds a " + key)
                            && e.getMessage().contains("strings, hashes, sets, lists and sorted sets only"), e.getMessage());
                    assertFalse(colossal.exists(key));
                }
                colossal.set("kept", "v");
                byte[] stream = redis.dump("stream");
                assertThrows(JedisDataException.class,
                        () -> colossal.restore("kept", 0, stream, RestoreParams.restoreParams().replace()));
                assertEquals("v", colossal.get("kept"), "a refused REPLACE leaves the old value");
            }
        });
    }

    /** Every encoding DUMP picks: small and large integers, and plain and compressible strings of every length class. */
    private static List<byte[]> values() {
        List<byte[]> values = new ArrayList<>();
        for (String s : List.of("", "0", "-1", "127", "-128", "32767", "40000", "-2147483648", "2147483647",
                "2147483648", "007", "+5", "-0", " 1", "hello")) {
            values.add(s.getBytes(StandardCharsets.US_ASCII));
        }
        SplittableRandom random = new SplittableRandom(7);
        for (int n : new int[] {21, 63, 64, 16_383, 16_384, 100_000, 1 << 20}) {
            byte[] noise = new byte[n];
            random.nextBytes(noise);
            values.add(noise);
            byte[] repetitive = new byte[n];
            for (int i = 0; i < n; i++) {
                repetitive[i] = (byte) ("abcdefgh".charAt(i % 8) + (i / 4096 % 3));
            }
            values.add(repetitive); // Redis LZF-compresses these
        }
        return values;
    }
}
