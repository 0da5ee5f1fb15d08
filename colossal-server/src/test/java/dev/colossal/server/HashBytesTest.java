package dev.colossal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Writes of one-value hashes in their bytes ({@link HashBytes}): fields keep their places, new
 * ones go last, the encoding only grows, and the switch to a decoded hash partway through one
 * command (many pairs, a long value) changes nothing a client sees.
 */
class HashBytesTest {

    @TempDir
    Path dir;

    @Test
    void editsInTheBytesThenDecodedKeepTheOrderOfAModel() {
        HashBytes h = new HashBytes(stored("a", "1", "b", "2", "c", "3"));
        Map<String, String> model = new LinkedHashMap<>(Map.of());
        model.put("a", "1");
        model.put("b", "2");
        model.put("c", "3");
        assertFalse(h.put(b("b"), b("two")));
        assertTrue(h.remove(b("a")));
        assertFalse(h.remove(b("nosuch")));
        assertTrue(h.put(b("d"), b("4")));
        model.put("b", "two");
        model.remove("a");
        model.put("d", "4");
        assertEquals(3, h.count());
        assertEquals("two", new String(h.get(b("b")), US_ASCII));
        assertNull(h.get(b("a")));
        // past the edits the bytes take: decoded from here on, with what was done so far
        assertTrue(h.put(b("e"), b("5")));
        assertTrue(h.remove(b("c")));
        assertTrue(h.put(b("a"), b("again")));
        model.put("e", "5");
        model.remove("c");
        model.put("a", "again");
        assertTrue(h.changed());
        assertEquals(model.size(), h.count());
        KeyValueStore.Entry saved = save(h);
        assertEquals(model, read(saved));
    }

    @Test
    void aLongValueMakesItAHashtableAndAnUnchangedHashIsNotChanged() {
        HashBytes h = new HashBytes(stored("a", "1"));
        assertFalse(h.changed());
        assertEquals("1", new String(h.get(b("a")), US_ASCII));
        assertFalse(h.changed());
        h.put(b("a"), b("x".repeat(65)));
        KeyValueStore.Entry saved = save(h);
        assertEquals(HashLayout.HASHTABLE, saved.array()[saved.offset() + HashLayout.ENCODING_OFFSET]);
        assertEquals(Map.of("a", "x".repeat(65)), read(saved));
    }

    /** Random HSET, HDEL, HINCRBY, HSETNX on small hashes, with the encoding, against a model, over the listpack bound and back. */
    @Test
    void randomWritesOfSmallHashesReadAsAModel() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir, "hash-max-listpack-entries", "12");
             Jedis j = StreamsTest.jedis(s.port())) {
            SplittableRandom r = new SplittableRandom(7);
            Map<String, Map<String, String>> model = new LinkedHashMap<>();
            Map<String, Boolean> wide = new LinkedHashMap<>();
            for (int step = 0; step < 4000; step++) {
                String key = "h" + r.nextInt(4);
                Map<String, String> m = model.computeIfAbsent(key, k -> new LinkedHashMap<>());
                int op = r.nextInt(10);
                if (op < 5) {
                    int pairs = 1 + r.nextInt(r.nextInt(4) == 0 ? 8 : 2);
                    List<String> args = new ArrayList<>();
                    long added = 0;
                    for (int p = 0; p < pairs; p++) {
                        String f = "f" + r.nextInt(16);
                        String v = r.nextInt(30) == 0 ? "L".repeat(60 + r.nextInt(1100)) : "v" + r.nextInt(100);
                        args.add(f);
                        args.add(v);
                        added += m.put(f, v) == null ? 1 : 0;
                        if (v.length() > 64) {
                            wide.put(key, true);
                        }
                    }
                    Map<String, String> pairsMap = new LinkedHashMap<>();
                    for (int p = 0; p < args.size(); p += 2) {
                        pairsMap.put(args.get(p), args.get(p + 1));
                    }
                    Object reply = j.sendCommand(redis.clients.jedis.Protocol.Command.HSET, withKey(key, args));
                    assertEquals(added, reply, "HSET's count at step " + step);
                    assertTrue(pairsMap.size() <= pairs);
                } else if (op < 8) {
                    String f = "f" + r.nextInt(16);
                    assertEquals(m.remove(f) != null ? 1L : 0L, j.hdel(key, f), "HDEL at step " + step);
                } else if (op < 9) {
                    String f = "n" + r.nextInt(3);
                    long now = Long.parseLong(m.getOrDefault(f, "0")) + 5;
                    assertEquals(now, j.hincrBy(key, f, 5));
                    m.put(f, Long.toString(now));
                } else {
                    String f = "f" + r.nextInt(16);
                    assertEquals(m.containsKey(f) ? 0L : 1L, j.hsetnx(key, f, "nx"));
                    m.putIfAbsent(f, "nx");
                }
                if (m.size() > 12) {
                    wide.put(key, true); // bucketed, and it stays a hashtable below the bound again
                }
                if (m.isEmpty()) {
                    wide.remove(key); // an emptied hash is deleted: the next one starts as a listpack
                    assertFalse(j.exists(key));
                    continue;
                }
                if (step % 10 == 0) {
                    Map<String, String> got = new LinkedHashMap<>();
                    List<String> flat = j.hgetAll(key).entrySet().stream().flatMap(e -> List.of(e.getKey(), e.getValue()).stream()).toList();
                    for (int i = 0; i < flat.size(); i += 2) {
                        got.put(flat.get(i), flat.get(i + 1));
                    }
                    assertEquals(m, got, "step " + step);
                    if (m.size() <= 12) {
                        List<Object> order = j.sendCommand(redis.clients.jedis.Protocol.Command.HKEYS, key) instanceof List<?> l
                                ? new ArrayList<>(l) : List.of();
                        List<String> keys = order.stream().map(o -> new String((byte[]) o, US_ASCII)).toList();
                        if (!j.objectEncoding(key).equals("hashtable")) {
                            assertEquals(new ArrayList<>(m.keySet()), keys, "a listpack keeps the order of insertion, step " + step);
                        }
                    }
                    String want = wide.getOrDefault(key, false) || m.size() > 12 ? "hashtable" : "listpack";
                    if (want.equals("hashtable")) {
                        wide.put(key, true); // the encoding only grows
                    }
                    assertEquals(want, j.objectEncoding(key), "step " + step);
                }
            }
        }
    }

    private static String[] withKey(String key, List<String> args) {
        List<String> all = new ArrayList<>();
        all.add(key);
        all.addAll(args);
        return all.toArray(String[]::new);
    }

    private static byte[] b(String s) {
        return s.getBytes(US_ASCII);
    }

    /** @return a one-value hash of {@code kv}, stored behind a header of 5 bytes as a map's value would be */
    private static KeyValueStore.Entry stored(String... kv) {
        HashValue h = HashValue.empty();
        for (int i = 0; i < kv.length; i += 2) {
            h.put(b(kv[i]), b(kv[i + 1]));
        }
        byte[] payload = h.encode();
        byte[] withHeader = new byte[5 + payload.length];
        System.arraycopy(payload, 0, withHeader, 5, payload.length);
        return new KeyValueStore.Entry(withHeader, 5, StoredValue.NO_EXPIRY, StoredValue.HASH);
    }

    /** @return what {@code h} stores, read back */
    private static KeyValueStore.Entry save(HashBytes h) {
        KeyValueStore.Entry[] out = new KeyValueStore.Entry[1];
        KeyValueStore capture = (KeyValueStore) java.lang.reflect.Proxy.newProxyInstance(KeyValueStore.class.getClassLoader(),
                new Class<?>[] {KeyValueStore.class}, (p, m, a) -> {
                    if (m.getName().equals("set") && a.length == 6) {
                        byte[] v = (byte[]) a[1];
                        int from = (Integer) a[2];
                        int length = (Integer) a[3];
                        out[0] = new KeyValueStore.Entry(java.util.Arrays.copyOfRange(v, from, from + length), 0, (Long) a[4], (Byte) a[5]);
                        return null;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
        h.save(capture, b("k"), StoredValue.NO_EXPIRY, 128);
        return out[0];
    }

    private static Map<String, String> read(KeyValueStore.Entry e) {
        Map<String, String> m = new LinkedHashMap<>();
        HashCursor c = new HashCursor(e);
        while (c.next()) {
            m.put(new String(c.field(), US_ASCII), new String(c.value(), US_ASCII));
        }
        return m;
    }
}
