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
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.RestoreParams;
import redis.clients.jedis.params.XTrimParams;

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
    void streamsMoveBetweenRedisAndColossalBothWays() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                for (Jedis j : List.of(redis, colossal)) {
                    for (int i = 1; i <= 330; i++) {
                        // the same fields (Redis's SAMEFIELDS entries) and others, integers and text, big IDs
                        java.util.Map<String, String> f = i % 4 == 0 ? java.util.Map.of("other", "x".repeat(i))
                                : java.util.Map.of("n", Integer.toString(i * 7919));
                        j.xadd("s", new StreamEntryID(i, i % 3), f);
                    }
                    j.sendCommand(Protocol.Command.XADD, "s", "18446744073709551614-1", "big", "id");
                    j.xdel("s", new StreamEntryID(7, 1), new StreamEntryID(200, 2));
                    j.xtrim("s", new XTrimParams().minId("3"));
                    j.sendCommand(() -> "XSETID".getBytes(StandardCharsets.US_ASCII), "s", "18446744073709551615-5",
                            "ENTRIESADDED", "1000", "MAXDELETEDID", "400-0");
                    j.xadd("empty", new StreamEntryID(1, 1), java.util.Map.of("f", "v"));
                    j.xdel("empty", new StreamEntryID(1, 1));
                }
                for (String key : List.of("s", "empty")) {
                    assertEquals("OK", colossal.restore(key + ":from-redis", 0, redis.dump(key)));
                    assertEquals("OK", redis.restore(key + ":from-colossal", 0, colossal.dump(key)));
                    Object want = redis.sendCommand(Protocol.Command.XINFO, "STREAM", key, "FULL",
                            "COUNT", "0");
                    assertEquals(show(want), show(colossal.sendCommand(Protocol.Command.XINFO, "STREAM",
                            key + ":from-redis", "FULL", "COUNT", "0")), key + ": Redis to Colossal");
                    assertEquals(show(want), show(redis.sendCommand(Protocol.Command.XINFO, "STREAM",
                            key + ":from-colossal", "FULL", "COUNT", "0")), key + ": Colossal to Redis");
                }
            }
        });
    }

    /** A reply as text, without radix-tree-keys and radix-tree-nodes, whose counts depend on how each server packed nodes. */
    private static String show(Object reply) {
        StringBuilder sb = new StringBuilder();
        show(reply, sb);
        return sb.toString().replaceAll("radix-tree-keys,\\d+,radix-tree-nodes,\\d+,", "");
    }

    private static void show(Object reply, StringBuilder sb) {
        if (reply instanceof byte[] b) {
            sb.append(new String(b, StandardCharsets.UTF_8)).append(',');
        } else if (reply instanceof List<?> l) {
            sb.append('[');
            l.forEach(x -> show(x, sb));
            sb.append(']');
        } else {
            sb.append(reply).append(',');
        }
    }

    @Test
    void aDamagedPayloadIsRefusedAndCreatesNothing() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                redis.xadd("stream", StreamEntryID.NEW_ENTRY, java.util.Map.of("f", "v"));
                redis.xgroupCreate("stream", "g", new StreamEntryID(0, 0), false);
                byte[] damaged = redis.dump("stream");
                damaged[3] ^= 0x55;
                JedisDataException e = assertThrows(JedisDataException.class, () -> colossal.restore("stream", 0, damaged));
                assertTrue(e.getMessage().startsWith("ERR DUMP payload version or checksum are wrong"), e.getMessage());
                assertFalse(colossal.exists("stream"));
                colossal.set("kept", "v");
                assertThrows(JedisDataException.class,
                        () -> colossal.restore("kept", 0, damaged, RestoreParams.restoreParams().replace()));
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
