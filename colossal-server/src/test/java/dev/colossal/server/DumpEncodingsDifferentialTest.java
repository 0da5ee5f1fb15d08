package dev.colossal.server;

import static dev.colossal.server.ValueKinds.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.colossal.rdb.PayloadForms;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * DUMP of every type in each of Redis 7.0's encodings, made by the same commands on redis-server
 * 7.0 and on Colossal: the payloads have the same RDB type and, read whole ({@link PayloadForms}:
 * LZF strings expanded, hashtables sorted), the same value; a value Redis neither compresses nor
 * keeps in a hashtable gives the same bytes. Each server's payload RESTOREd on the other dumps
 * back to the same form and reads as the original.
 */
class DumpEncodingsDifferentialTest {

    /**
     * A value of one encoding: its name, the Lua that makes it under KEYS[1], its OBJECT ENCODING,
     * whether the two payloads are the same bytes, and whether a RESTORE on Colossal keeps the
     * payload's form (it packs a stream's live entries into nodes anew, leaving deleted ones out).
     */
    private record Case(String name, String lua, String encoding, boolean sameBytes, boolean restoredAlike) {
        Case(String name, String lua, String encoding, boolean sameBytes) {
            this(name, lua, encoding, sameBytes, true);
        }
    }

    private static final List<Case> CASES = List.of(
            new Case("small hash", "redis.call('hset', KEYS[1], 'a', '1', 'b', 'two', 'c', '-3')", "listpack", true),
            new Case("listpack hash over 20 bytes", loop(40, "redis.call('hset', KEYS[1], 'field' .. i, 'v' .. i)"), "listpack", false),
            new Case("hash with a long value", "redis.call('hset', KEYS[1], 'a', '1', 'long', string.rep('x', 100))", "hashtable", false),
            new Case("big hash", loop(600, "redis.call('hset', KEYS[1], 'f' .. i, i)"), "hashtable", false),
            new Case("small intset", "redis.call('sadd', KEYS[1], 3, 1, 2, -7, 70000)", "intset", true),
            new Case("intset of 64-bit integers", "redis.call('sadd', KEYS[1], 1, '9007199254740993', '-9223372036854775808')", "intset", false),
            new Case("big intset", loop(300, "redis.call('sadd', KEYS[1], i * 7)"), "intset", false),
            new Case("one-member set of strings", "redis.call('sadd', KEYS[1], 'one')", "hashtable", true),
            new Case("set of strings", loop(50, "redis.call('sadd', KEYS[1], 'm' .. i)"), "hashtable", false),
            new Case("set of integers past the intset limit", loop(600, "redis.call('sadd', KEYS[1], i)"), "hashtable", false),
            new Case("small sorted set", "redis.call('zadd', KEYS[1], 1, 'a', 2.5, 'b', -3, 'c')", "listpack", true),
            new Case("listpack sorted set over 20 bytes", loop(50, "redis.call('zadd', KEYS[1], i * 1.25, 'member' .. i)"), "listpack", false),
            new Case("skiplist sorted set", loop(200, "redis.call('zadd', KEYS[1], i / 3, 'm' .. i)"), "skiplist", false),
            new Case("sorted set with a long member", "redis.call('zadd', KEYS[1], 1, string.rep('m', 80), 2, 'b')", "skiplist", false),
            new Case("small list", "redis.call('rpush', KEYS[1], 'a', 'b', 1, -2)", "quicklist", true),
            new Case("list of one node over 20 bytes", loop(300, "redis.call('rpush', KEYS[1], 'element-' .. i)"), "quicklist", false),
            new Case("list of several nodes", loop(3000, "redis.call('rpush', KEYS[1], 'element-' .. i .. '-' .. (i * 31))"), "quicklist",
                    false),
            new Case("list of big elements", loop(6, "redis.call('rpush', KEYS[1], string.rep(string.char(96 + i), 5000))"), "quicklist",
                    false),
            new Case("small stream", "redis.call('xadd', KEYS[1], '1-1', 'f', 'v')", "stream", true),
            new Case("stream of several nodes with a group", loop(250, "redis.call('xadd', KEYS[1], i .. '-1', 'f', i, 'g', 'x')")
                    // a group without consumers: a pending entry's delivery time is each server's own clock
                    + " redis.call('xgroup', 'create', KEYS[1], 'grp', '5-1')", "stream", false),
            // XDEL'd and trimmed entries stay in their node, flagged, until the node has no live one
            new Case("stream with deleted entries", loop(150, "redis.call('xadd', KEYS[1], i .. '-1', 'f', i)")
                    + " redis.call('xdel', KEYS[1], '1-1', '7-1', '120-1')", "stream", false, false),
            new Case("stream trimmed inside its first node", loop(250, "redis.call('xadd', KEYS[1], i .. '-1', 'f', i, 'g', 'x')")
                    + " redis.call('xtrim', KEYS[1], 'MAXLEN', 180) redis.call('xdel', KEYS[1], '200-1')", "stream", false, false),
            new Case("stream with a node XDEL'd whole", loop(120, "redis.call('xadd', KEYS[1], i .. '-1', 'f', i)")
                    + " " + loop(100, "redis.call('xdel', KEYS[1], i .. '-1')"), "stream", false),
            new Case("short string", "redis.call('set', KEYS[1], 'hello')", "embstr", true),
            new Case("integer string", "redis.call('set', KEYS[1], '-12345')", "int", true),
            new Case("long string", "redis.call('set', KEYS[1], string.rep('ab', 60))", "raw", false));

    @TempDir
    Path dir;

    private static String loop(int n, String body) {
        return "for i = 1, " + n + " do " + body + " end";
    }

    @Test
    void eachEncodingDumpsAsRedisDumpsItAndRestoresOnBoth() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir);
                 Jedis redis = new Jedis("127.0.0.1", port);
                 Jedis colossal = new Jedis("127.0.0.1", ours.port())) {
                for (Case c : CASES) {
                    String key = "k";
                    for (Jedis j : List.of(redis, colossal)) {
                        j.del(key);
                        j.eval(c.lua(), 1, key);
                        assertEquals(c.encoding(), j.objectEncoding(key), c.name() + ": the encoding on " + j);
                    }
                    byte[] theirs = dump(redis, key);
                    byte[] mine = dump(colossal, key);
                    assertEquals(theirs[0], mine[0], c.name() + ": the RDB type");
                    assertEquals(PayloadForms.of(theirs), PayloadForms.of(mine), c.name() + ": the value dumped");
                    if (c.sameBytes()) {
                        assertArrayEquals(theirs, mine, c.name() + ": the bytes");
                    }
                    restore(colossal, "from-redis", theirs);
                    restore(redis, "from-colossal", mine);
                    if (c.restoredAlike()) {
                        assertEquals(PayloadForms.of(theirs), PayloadForms.of(dump(colossal, "from-redis")), c.name()
                                + ": Redis's payload restored on Colossal");
                    }
                    assertEquals(PayloadForms.of(mine), PayloadForms.of(dump(redis, "from-colossal")), c.name()
                            + ": Colossal's payload restored on Redis");
                    String value = ValueKinds.read(redis, key);
                    assertEquals(value, ValueKinds.read(colossal, key), c.name() + ": the value on both");
                    assertEquals(value, ValueKinds.read(colossal, "from-redis"), c.name() + ": Redis's payload restored on Colossal");
                    assertEquals(value, ValueKinds.read(redis, "from-colossal"), c.name() + ": Colossal's payload restored on Redis");
                }
            }
        });
    }

    private static byte[] dump(Jedis j, String key) {
        return (byte[]) j.sendCommand(() -> bytes("DUMP"), bytes(key));
    }

    private static void restore(Jedis j, String key, byte[] payload) {
        assertEquals("OK", new String((byte[]) j.sendCommand(() -> bytes("RESTORE"), bytes(key), bytes("0"), payload,
                bytes("REPLACE"))));
    }
}
