package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.codec.Codecs;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batched writes ({@link BytesMap#putAll}, {@link ColossalMap#putAll}, {@link BytesMap#removeAll},
 * {@link ColossalMap#removeAll}):
 * the same map as one put or remove per key in order, bad input refused before anything changes,
 * and whole values only for readers while two writers put batches of overlapping keys.
 */
class BatchedPutTest {

    @TempDir
    Path dir;

    private static byte[] bytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    private static MemorySegment[] segments(List<byte[]> list) {
        return list.stream().map(MemorySegment::ofArray).toArray(MemorySegment[]::new);
    }

    @Test
    void shouldLeaveTheMapThatOnePutPerKeyInOrderLeaves() throws Exception {
        Random random = new Random(7);
        Map<String, byte[]> model = new HashMap<>();
        try (BytesMap map = BytesMap.open(dir.resolve("puts.map"))) {
            for (int round = 0; round < 20; round++) {
                List<byte[]> keys = new ArrayList<>();
                List<byte[]> values = new ArrayList<>();
                for (int i = 0; i < 1 + random.nextInt(300); i++) {
                    // Small key space: overwrites, and the same key twice in one batch.
                    byte[] key = ("k" + random.nextInt(2000)).getBytes();
                    byte[] value = bytes(random, i % 53 == 0 ? 2000 + random.nextInt(6000) : random.nextInt(200));
                    keys.add(key);
                    values.add(value);
                    model.put(new String(key), value);
                }
                map.putAll(segments(keys), segments(values));
            }
            assertEquals(model.size(), map.size());
            for (Map.Entry<String, byte[]> e : model.entrySet()) {
                assertArrayEquals(e.getValue(), map.get(e.getKey().getBytes()), "key " + e.getKey());
            }
        }
        try (BytesMap reopened = BytesMap.open(dir.resolve("puts.map"))) {
            assertEquals(model.size(), reopened.size());
            model.forEach((k, v) -> assertArrayEquals(v, reopened.get(k.getBytes()), "key " + k + " after reopen"));
        }
    }

    @Test
    void removeAllShouldLeaveTheMapThatOneRemovePerKeyLeaves() throws Exception {
        Random random = new Random(3);
        Map<String, byte[]> model = new HashMap<>();
        try (BytesMap map = BytesMap.open(dir.resolve("removes.map"))) {
            for (int i = 0; i < 3000; i++) {
                byte[] value = bytes(random, random.nextInt(300));
                map.put(("k" + i).getBytes(), value);
                model.put("k" + i, value);
            }
            for (int round = 0; round < 10; round++) {
                List<byte[]> keys = new ArrayList<>();
                int present = 0;
                java.util.Set<String> seen = new java.util.HashSet<>();
                for (int i = 0; i < 1 + random.nextInt(200); i++) {
                    // Present, absent (never put) and repeated keys in one call.
                    String key = "k" + random.nextInt(4000);
                    keys.add(key.getBytes());
                    if (seen.add(key) && model.remove(key) != null) {
                        present++;
                    }
                }
                assertEquals(present, map.removeAll(segments(keys)), "round " + round);
                assertEquals(model.size(), map.size(), "round " + round);
            }
            model.forEach((k, v) -> assertArrayEquals(v, map.get(k.getBytes()), "key " + k));
            NullPointerException e = assertThrows(NullPointerException.class,
                    () -> map.removeAll(new MemorySegment[] {MemorySegment.ofArray(model.keySet().iterator().next().getBytes()), null}));
            assertEquals("keys[1] is null", e.getMessage());
            assertEquals(model.size(), map.size(), "a refused removeAll removes nothing");
        }
    }

    @Test
    void shouldRefuseBadInputBeforeStoringAnything() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("bad.map"))) {
            MemorySegment a = MemorySegment.ofArray("a".getBytes());
            MemorySegment b = MemorySegment.ofArray("b".getBytes());
            IllegalArgumentException lengths = assertThrows(IllegalArgumentException.class,
                    () -> map.putAll(new MemorySegment[] {a, b}, new MemorySegment[] {a}));
            assertTrue(lengths.getMessage().contains("keys.length=2 but values.length=1"), lengths.getMessage());
            NullPointerException nullValue = assertThrows(NullPointerException.class,
                    () -> map.putAll(new MemorySegment[] {a, b}, new MemorySegment[] {a, null}));
            assertEquals("values[1] is null", nullValue.getMessage());
            NullPointerException nullKey = assertThrows(NullPointerException.class,
                    () -> map.putAll(new MemorySegment[] {a, null}, new MemorySegment[] {a, b}));
            assertEquals("keys[1] is null", nullKey.getMessage());
            assertEquals(0, map.size(), "a refused batch stores nothing");
            map.putAll(new MemorySegment[0], new MemorySegment[0]);
            assertEquals(0, map.size());
        }
    }

    @Test
    void typedPutAllAndRemoveAllShouldMatchAModelAcrossReopens() throws Exception {
        Path file = dir.resolve("typed.map");
        Random random = new Random(11);
        Map<Long, String> model = new HashMap<>();
        for (int round = 0; round < 5; round++) {
            try (ColossalMap<Long, String> map = ColossalMap.open(file, Codecs.int64(), Codecs.string())) {
                assertEquals(model, new HashMap<>(map), "round " + round + " after reopen");
                Map<Long, String> batch = new LinkedHashMap<>();
                for (int i = 0; i < 500 + random.nextInt(500); i++) {
                    batch.put((long) random.nextInt(3000), "v" + round + "-" + "x".repeat(random.nextInt(100)));
                }
                map.putAll(batch);
                model.putAll(batch);
                assertEquals(model, new HashMap<>(map), "round " + round);
                List<Long> gone = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    gone.add((long) random.nextInt(3500)); // absent and repeated keys among them
                }
                long present = gone.stream().distinct().filter(model::containsKey).count();
                assertEquals(present, map.removeAll(gone), "round " + round + ": keys removed");
                model.keySet().removeAll(gone);
                assertEquals(model, new HashMap<>(map), "round " + round + " after removeAll");
                Map<Long, String> withNull = new LinkedHashMap<>();
                withNull.put(-1L, "kept? no: same batch as the null");
                withNull.put(-2L, null);
                NullPointerException e = assertThrows(NullPointerException.class, () -> map.putAll(withNull));
                assertTrue(e.getMessage().contains("null value for key=-2"), e.getMessage());
                assertNull(map.get(-1L), "a batch with a null is not stored");
            }
        }
    }

    @Test
    void readersShouldSeeWholeValuesWhileTwoWritersPutBatches() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("concurrent.map"))) {
            int keys = 4000;
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                threads.add(new Thread(() -> {
                    Random random = new Random(writer);
                    try {
                        for (int round = 0; round < 60; round++) {
                            MemorySegment[] ks = new MemorySegment[100];
                            MemorySegment[] vs = new MemorySegment[100];
                            for (int i = 0; i < ks.length; i++) {
                                int k = random.nextInt(keys);
                                ks[i] = MemorySegment.ofArray(("key" + k).getBytes());
                                // A value is its writer's byte repeated: a torn read mixes bytes or lengths.
                                byte[] v = new byte[1 + random.nextInt(3000)];
                                Arrays.fill(v, (byte) (writer + 1));
                                vs[i] = MemorySegment.ofArray(v);
                            }
                            map.putAll(ks, vs);
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (int r = 0; r < 2; r++) {
                int reader = r;
                threads.add(new Thread(() -> {
                    Random random = new Random(100 + reader);
                    try {
                        while (!stop.get()) {
                            byte[] v = map.get(("key" + random.nextInt(keys)).getBytes());
                            if (v != null) {
                                for (byte b : v) {
                                    if (b != v[0] || (b != 1 && b != 2)) {
                                        throw new AssertionError("torn value of length " + v.length);
                                    }
                                }
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            threads.forEach(Thread::start);
            threads.get(0).join();
            threads.get(1).join();
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "failures: " + failures);
            assertTrue(map.size() > 0 && map.size() <= keys);
        }
    }
}
