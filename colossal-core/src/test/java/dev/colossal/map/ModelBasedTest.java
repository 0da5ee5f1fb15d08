package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Long random sequences of every map operation, expiring puts and a clock that moves, checked step
 * by step against {@link ConcurrentHashMap}, with close-and-reopen in between. Layouts from one segment of 16-byte
 * blocks to many segments, checksums on and off, so growth, tombstones, splits and reuse all occur.
 */
class ModelBasedTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed={0} segments={1} blockSize={2} checksums={3}")
    @CsvSource({
        "1, 1, 8, true",
        "2, 4, 32, true",
        "3, 64, 64, false",
        "4, 2, 16, false",
        "5, 16, 32, true",
        "6, 2, 8, false"})
    void shouldBehaveLikeConcurrentHashMap(long seed, int segments, int blockSize, boolean checksums) throws IOException {
        Random rnd = new Random(seed);
        Path file = dir.resolve("model.map");
        MapOptions options = new MapOptions(segments, blockSize, checksums, 0, 0, 0);
        ConcurrentHashMap<String, String> model = new ConcurrentHashMap<>();
        int keySpace = 700;
        ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING, options);
        long[] now = {1_000_000};
        map.bytes().file.clock = () -> now[0];
        Map<String, Long> expiry = new HashMap<>();
        try {
            for (int step = 0; step < 40_000; step++) {
                String k = "k" + rnd.nextInt(keySpace);
                String v = value(rnd);
                String where = "seed=" + seed + " step=" + step + " key=" + k;
                int op = rnd.nextInt(19);
                boolean succeeded = false;
                long ttl = 0;
                switch (op) {
                    case 0, 1, 2 -> assertEquals(model.put(k, v), map.put(k, v), where);
                    case 3 -> assertEquals(model.get(k), map.get(k), where);
                    case 4 -> assertEquals(model.remove(k), map.remove(k), where);
                    case 5 -> assertEquals(model.putIfAbsent(k, v), map.putIfAbsent(k, v), where);
                    case 6 -> assertEquals(model.replace(k, v), map.replace(k, v), where);
                    case 7 -> {
                        String expected = rnd.nextBoolean() ? model.get(k) : v;
                        if (expected != null) {
                            succeeded = model.replace(k, expected, v + "!");
                            assertEquals(succeeded, map.replace(k, expected, v + "!"), where);
                        }
                    }
                    case 8 -> {
                        String expected = rnd.nextBoolean() ? model.get(k) : v;
                        succeeded = model.remove(k, expected);
                        assertEquals(succeeded, map.remove(k, expected), where);
                    }
                    case 9 -> assertEquals(model.compute(k, (kk, old) -> remap(old, v)),
                            map.compute(k, (kk, old) -> remap(old, v)), where);
                    case 10 -> assertEquals(model.computeIfAbsent(k, kk -> v), map.computeIfAbsent(k, kk -> v), where);
                    case 11 -> assertEquals(model.computeIfPresent(k, (kk, old) -> remap(old, v)),
                            map.computeIfPresent(k, (kk, old) -> remap(old, v)), where);
                    case 12 -> assertEquals(model.merge(k, v, ModelBasedTest::merge), map.merge(k, v, ModelBasedTest::merge), where);
                    case 13 -> {
                        ttl = 1 + rnd.nextInt(60);
                        map.set(k, v, java.time.Duration.ofMillis(ttl));
                        model.put(k, v);
                    }
                    case 14 -> {
                        now[0] += rnd.nextInt(25);
                        expiry.entrySet().removeIf(e -> {
                            if (e.getValue() <= now[0]) {
                                model.remove(e.getKey());
                                return true;
                            }
                            return false;
                        });
                    }
                    case 16 -> {
                        ttl = 1 + rnd.nextInt(60);
                        succeeded = !model.containsKey(k);
                        assertEquals(model.putIfAbsent(k, v), map.putIfAbsent(k, v, java.time.Duration.ofMillis(ttl)), where);
                    }
                    case 17 -> {
                        ttl = 1 + rnd.nextInt(60);
                        succeeded = model.containsKey(k);
                        assertEquals(succeeded, map.expire(k, java.time.Duration.ofMillis(ttl)), where);
                    }
                    case 18 -> {
                        assertEquals(model.containsKey(k), map.persist(k), where);
                        expiry.remove(k);
                    }
                    default -> {
                        assertEquals(model.containsKey(k), map.containsKey(k), where);
                        long at = map.expiresAt(k);
                        assertEquals(model.containsKey(k) ? expiry.getOrDefault(k, 0L) : -1L, at, where);
                    }
                }
                // A put stores the key anew, without expiry (like Redis SET), a TTL put sets one, and
                // the updates (replace, compute*, merge) keep it (like Redis INCR).
                if (op == 13 || (op == 16 || op == 17) && succeeded) {
                    expiry.put(k, now[0] + ttl);
                    assertEquals(now[0] + ttl, map.expiresAt(k), where);
                } else if (op <= 2 || !model.containsKey(k)) {
                    expiry.remove(k);
                }
                if (step % 5_000 == 4_999) {
                    map.close();
                    map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING);
                    map.bytes().file.clock = () -> now[0];
                    assertEquals(new HashMap<>(model), copy(map), "after reopen, " + where);
                    MapChecks.assertSound(map.bytes());
                }
                if (step % 13_000 == 12_999) {
                    map.bytes().compact();
                }
            }
            assertEquals(new HashMap<>(model), copy(map));
            MapChecks.assertSound(map.bytes());
            assertEquals(model.keySet(), map.keySet());
            assertEquals(new HashMap<>(model), map.entrySet().parallelStream()
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        } finally {
            map.close();
        }
    }

    private static Map<String, String> copy(ColossalMap<String, String> map) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, String> e : map.entrySet()) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** Values from empty to a few KiB, mostly small, so entries of 1 to ~200 blocks are mixed. */
    private static String value(Random rnd) {
        int len = switch (rnd.nextInt(10)) {
            case 0 -> 0;
            case 1 -> 200 + rnd.nextInt(3000);
            default -> rnd.nextInt(120);
        };
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            sb.append((char) ('a' + rnd.nextInt(26)));
        }
        return sb.toString();
    }

    private static String remap(String old, String v) {
        if (old == null) {
            return v;
        }
        return old.length() > 50 ? null : old + v.length();
    }

    private static String merge(String old, String v) {
        return old.length() > 300 ? null : old + "+" + v.length();
    }
}
