package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * The kinds of value the crash-points tests of key moves (RENAME, MOVE, COPY) run over: each
 * element-backed kind (a list, a stream with a consumer group, a bucketed hash, a bucketed set, a
 * sorted-set tree, a chunked string), made under a key, and read back as one line that every read
 * of it gives, so that two snapshots compare whole values. The server must keep small values as
 * buckets or trees ({@link #smallThresholds}).
 */
final class ValueKinds {

    /** Every element-backed kind. */
    static final List<String> ELEMENT_BACKED = List.of("list", "stream", "hash", "set", "zset", "bigstring");

    private ValueKinds() {}

    /** Makes the server keep even the small values of {@link #make} in the element map. */
    static void smallThresholds(Jedis j) {
        j.configSet("hash-max-listpack-entries", "4");
        j.configSet("set-max-intset-entries", "4");
        j.configSet("zset-max-listpack-entries", "4");
    }

    /** Makes {@code key} a value of {@code kind} ("none" for nothing, "plain" for a small string), its elements tagged with the key. */
    static void make(Jedis j, String key, String kind) {
        String tag = key + "-";
        switch (kind) {
            case "none" -> { }
            case "plain" -> j.set(key, tag + "small");
            case "list" -> {
                // long enough together not to be packed into the header: the elements are entries
                String pad = "-".repeat(ListLayout.PACKED_BYTES / 10);
                for (int i = 0; i < 10; i++) {
                    j.rpush(key, tag + i + pad);
                }
            }
            case "stream" -> {
                for (int i = 1; i <= 6; i++) {
                    j.sendCommand(() -> bytes("XADD"), bytes(key), bytes(i + "-1"), bytes(tag + "f"), bytes(Integer.toString(i)));
                }
                j.sendCommand(() -> bytes("XGROUP"), bytes("CREATE"), bytes(key), bytes(tag + "g"), bytes("0"));
                j.sendCommand(() -> bytes("XREADGROUP"), bytes("GROUP"), bytes(tag + "g"), bytes("c"), bytes("COUNT"), bytes("2"),
                        bytes("STREAMS"), bytes(key), bytes(">"));
            }
            case "hash" -> {
                for (int i = 0; i < 10; i++) {
                    j.hset(key, tag + i, Integer.toString(i));
                }
            }
            case "set" -> {
                for (int i = 0; i < 10; i++) {
                    j.sadd(key, tag + i);
                }
            }
            case "zset" -> {
                for (int i = 0; i < 10; i++) {
                    j.zadd(key, i, tag + i);
                }
            }
            case "bigstring" -> {
                byte[] v = new byte[100_000];
                Arrays.fill(v, (byte) tag.charAt(0));
                v[70_000] = '!';
                j.set(key, tag);
                j.append(bytes(key), v);   // grown past the 64 KB threshold: chunked
            }
            default -> throw new IllegalArgumentException(kind);
        }
    }

    /** @return {@code key} in the selected database as every read of it gives it, "none" if missing */
    static String read(Jedis j, String key) {
        String type = j.type(key);
        return type.equals("none") ? type : type + " " + switch (type) {
            case "list" -> j.llen(key) + " " + j.lrange(key, 0, -1) + " " + j.lindex(key, 3);
            case "stream" -> render(j.sendCommand(() -> bytes("XLEN"), bytes(key))) + " "
                    + render(j.sendCommand(() -> bytes("XRANGE"), bytes(key), bytes("-"), bytes("+"))) + " "
                    + render(j.sendCommand(() -> bytes("XINFO"), bytes("GROUPS"), bytes(key)));
            case "hash" -> {
                java.util.TreeMap<String, String> all = new java.util.TreeMap<>(j.hgetAll(key));
                yield j.hlen(key) + " " + all + " " + j.hget(key, all.lastKey());
            }
            case "set" -> {
                java.util.TreeSet<String> all = new java.util.TreeSet<>(j.smembers(key));
                yield j.scard(key) + " " + all + " " + j.sismember(key, all.last());
            }
            case "zset" -> j.zcard(key) + " " + j.zrangeWithScores(key, 0, -1) + " " + j.zscore(key, j.zrange(key, -1, -1).get(0));
            default -> {
                byte[] v = j.get(bytes(key));
                yield j.strlen(key) + " " + v.length + " #" + Arrays.hashCode(v) + " " + j.getrange(key, 69_998, 70_002);
            }
        };
    }

    /** Writes one more element to {@code key} in the selected database, whatever its type. */
    static void writeTo(Jedis j, String key) {
        switch (j.type(key)) {
            case "list" -> j.rpush(key, "written");
            case "stream" -> j.sendCommand(() -> bytes("XADD"), bytes(key), bytes("*"), bytes("written"), bytes("1"));
            case "hash" -> j.hset(key, "written", "1");
            case "set" -> j.sadd(key, "written");
            case "zset" -> j.zadd(key, 99, "written");
            default -> j.append(key, "written");
        }
    }

    /** Asserts that of the keys of snapshot {@code now}, snapshot {@code later} differs in {@code holder} alone, which a write changed. */
    static void onlyChanged(java.util.Map<String, String> now, java.util.Map<String, String> later, String holder, String at) {
        for (String k : now.keySet()) {
            if (k.equals(holder)) {
                org.junit.jupiter.api.Assertions.assertNotEquals(now.get(k), later.get(k), at + ": the write to " + holder + " took");
            } else {
                org.junit.jupiter.api.Assertions.assertEquals(now.get(k), later.get(k), at + ": a write to " + holder + " changed " + k);
            }
        }
    }

    /** @return a reply as text: bulk strings as strings, arrays in brackets */
    static String render(Object reply) {
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            for (Object o : l) {
                parts.add(render(o));
            }
            return parts.toString();
        }
        return String.valueOf(reply);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
