package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batched gets ({@link BytesMap#getAll}, {@link ColossalMap#getAll}): the same answers as one get
 * per key, the buffer contract, bad input, and whole values only while writers change, grow and
 * remap the map under the readers.
 */
class BatchedGetTest {

    @TempDir
    Path dir;

    private static MemorySegment[] segments(List<byte[]> keys) {
        return keys.stream().map(MemorySegment::ofArray).toArray(MemorySegment[]::new);
    }

    private static byte[] bytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    @Test
    void shouldAnswerEveryKeyAsGetDoes() throws Exception {
        Random random = new Random(42);
        try (BytesMap map = BytesMap.open(dir.resolve("all.map"))) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                byte[] key = bytes(random, i == 0 ? 0 : 1 + random.nextInt(40));
                int length = i % 97 == 0 ? 3000 + random.nextInt(5000) : random.nextInt(300);
                map.put(key, bytes(random, length));
                keys.add(key);
            }
            for (int i = 0; i < 2000; i++) {
                keys.add(bytes(random, 41 + random.nextInt(10)));
            }
            keys.addAll(keys.subList(0, 500));
            Collections.shuffle(keys, random);
            long[] lengths = new long[keys.size()];
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment dst = arena.allocate(8 << 20);
                assertEquals(keys.size(), map.getAll(segments(keys), 0, lengths, dst, 7));
                long at = 7;
                for (int i = 0; i < keys.size(); i++) {
                    byte[] expected = map.get(keys.get(i));
                    if (expected == null) {
                        assertEquals(-1, lengths[i], "key " + i);
                        continue;
                    }
                    assertEquals(expected.length, lengths[i], "key " + i);
                    assertArrayEquals(expected, dst.asSlice(at, expected.length).toArray(JAVA_BYTE), "key " + i);
                    at += expected.length;
                }
            }
        }
    }

    @Test
    void shouldStopBeforeAValueThatDoesNotFitAndGoOnFromThere() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("fit.map")); Arena arena = Arena.ofConfined()) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                byte[] key = ("k" + i).getBytes();
                keys.add(key);
                if (i % 4 != 3) {
                    byte[] value = new byte[i == 20 ? 0 : 100];
                    Arrays.fill(value, (byte) i);
                    map.put(key, value);
                }
            }
            MemorySegment[] ks = segments(keys);
            long[] lengths = new long[ks.length];
            MemorySegment dst = arena.allocate(250);
            // k0 and k1 fit, k2 does not.
            assertEquals(2, map.getAll(ks, 0, lengths, dst, 0));
            assertEquals(100, lengths[2]);
            assertEquals(0, dst.get(JAVA_BYTE, 200), "nothing of k2 is copied");
            // From k2: k2, absent k3 and k4 fit (200 bytes), k5 does not fit the last 50.
            assertEquals(5, map.getAll(ks, 2, lengths, dst, 0));
            assertEquals(-1, lengths[3]);
            assertEquals(4, dst.get(JAVA_BYTE, 100));
            // A buffer with no room: absent keys and empty values are still answered.
            assertEquals(18, map.getAll(ks, 18, lengths, dst, 250));
            assertEquals(100, lengths[18]);
            assertEquals(21, map.getAll(ks, 19, lengths, dst, 250));
            assertEquals(-1, lengths[19]);
            assertEquals(0, lengths[20]);
            assertEquals(100, lengths[21]);
            assertEquals(ks.length, map.getAll(ks, ks.length, lengths, dst, 0));
        }
    }

    @Test
    void shouldRefuseBadArgumentsNamingThem() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("bad.map")); Arena arena = Arena.ofConfined()) {
            MemorySegment[] ks = {arena.allocate(4), arena.allocate(4), null};
            MemorySegment dst = arena.allocate(64);
            assertTrue(assertThrows(IndexOutOfBoundsException.class, () -> map.getAll(ks, -1, new long[3], dst, 0))
                    .getMessage().contains("from=-1"));
            assertThrows(IndexOutOfBoundsException.class, () -> map.getAll(ks, 4, new long[3], dst, 0));
            assertTrue(assertThrows(IndexOutOfBoundsException.class, () -> map.getAll(ks, 0, new long[2], dst, 0))
                    .getMessage().contains("lengths.length=2"));
            assertTrue(assertThrows(IndexOutOfBoundsException.class, () -> map.getAll(ks, 0, new long[3], dst, 65))
                    .getMessage().contains("dstOffset=65"));
            assertEquals("keys[2] is null",
                    assertThrows(NullPointerException.class, () -> map.getAll(ks, 0, new long[3], dst, 0)).getMessage());
        }
    }

    /** A value that names its key and version: its length and every byte follow from them. */
    private static byte[] valueFor(int key, int version) {
        byte[] v = new byte[8 + (key * 31 + version * 7 & 0xFF) + (version % 13 == 0 ? 1500 : 0)];
        MemorySegment s = MemorySegment.ofArray(v);
        s.set(JAVA_INT_UNALIGNED, 0, key);
        s.set(JAVA_INT_UNALIGNED, 4, version);
        Arrays.fill(v, 8, v.length, (byte) (key ^ version));
        return v;
    }

    private static byte[] keyOf(int key) {
        byte[] k = new byte[4];
        MemorySegment.ofArray(k).set(JAVA_INT_UNALIGNED, 0, key);
        return k;
    }

    /** Values the readers must check while the writers run. */
    private static final long READS = 10_000;

    @Test
    void shouldReadWholeValuesWhileWritersOverwriteInsertRemoveAndGrow() throws Exception {
        int stable = 2000;
        int all = 40_000;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong checked = new AtomicLong();
        try (BytesMap map = BytesMap.open(dir.resolve("race.map"), MapOptions.DEFAULTS.withSegments(4))) {
            for (int k = 0; k < stable; k++) {
                map.put(keyOf(k), valueFor(k, 0));
            }
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int id = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    Random random = new Random(id);
                    try {
                        // Inserting ever more keys grows tables and the file (remaps) under the readers;
                        // then overwrites go on until the readers checked enough values, however
                        // slowly a loaded machine runs them.
                        long deadline = System.nanoTime() + 60_000_000_000L;
                        for (int i = 0, next = stable + id; next < all || checked.get() <= READS && System.nanoTime() < deadline; i++) {
                            int k = random.nextInt(stable);
                            map.put(keyOf(k), valueFor(k, 1 + random.nextInt(1000)));
                            if (i % 2 == 0) {
                                if (next >= all) {
                                    continue;
                                }
                                map.put(keyOf(next), valueFor(next, 1));
                                next += 2;
                            } else if (next > stable + 100) {
                                int gone = stable + id + 2 * random.nextInt((next - stable) / 2);
                                map.remove(keyOf(gone));
                                map.put(keyOf(gone), valueFor(gone, 2));
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (int r = 0; r < 2; r++) {
                int id = r;
                threads.add(Thread.ofPlatform().start(() -> {
                    Random random = new Random(100 + id);
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment dst = arena.allocate(64 << 10);
                        while (!done.get()) {
                            int n = 1 + random.nextInt(40);
                            MemorySegment[] ks = new MemorySegment[n];
                            int[] ids = new int[n];
                            for (int j = 0; j < n; j++) {
                                ids[j] = random.nextInt(4) == 0 ? random.nextInt(stable) : random.nextInt(all);
                                ks[j] = MemorySegment.ofArray(keyOf(ids[j]));
                            }
                            long[] lengths = new long[n];
                            assertEquals(n, map.getAll(ks, 0, lengths, dst, 0));
                            long at = 0;
                            for (int j = 0; j < n; j++) {
                                if (lengths[j] < 0) {
                                    assertTrue(ids[j] >= stable, "stable key " + ids[j] + " read as absent");
                                    continue;
                                }
                                MemorySegment v = dst.asSlice(at, lengths[j]);
                                at += lengths[j];
                                assertEquals(ids[j], v.get(JAVA_INT_UNALIGNED, 0), "value of another key");
                                assertArrayEquals(valueFor(ids[j], v.get(JAVA_INT_UNALIGNED, 4)), v.toArray(JAVA_BYTE),
                                        "torn value of key " + ids[j]);
                                checked.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (Thread t : threads.subList(0, 2)) {
                t.join();
            }
            done.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "failures: " + failures.peek());
            assertTrue(checked.get() > READS, "readers checked only " + checked.get() + " values in 60 s");
            assertTrue(map.file.remaps > 0, "the file never grew under the readers");
        }
    }

    @Test
    void typedGetAllShouldMatchAModelAcrossReopen() throws Exception {
        Random random = new Random(7);
        Map<String, String> model = new HashMap<>();
        Path path = dir.resolve("typed.map");
        for (int round = 0; round < 3; round++) {
            try (ColossalMap<String, String> map = ColossalMap.open(path, TestCodecs.STRING, TestCodecs.STRING)) {
                for (int i = 0; i < 3000; i++) {
                    String k = "key-" + random.nextInt(4000);
                    if (random.nextInt(5) == 0) {
                        map.remove(k);
                        model.remove(k);
                    } else {
                        String v = "v".repeat(random.nextInt(200)) + i;
                        map.put(k, v);
                        model.put(k, v);
                    }
                }
                List<String> asked = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    asked.add("key-" + random.nextInt(4500));
                }
                Map<String, String> expected = new LinkedHashMap<>();
                for (String k : asked) {
                    if (model.containsKey(k)) {
                        expected.put(k, model.get(k));
                    }
                }
                Map<String, String> got = map.getAll(asked);
                assertEquals(expected, got);
                assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(got.keySet()), "order of keys");
                assertEquals(Map.of(), map.getAll(List.of()));
                assertNotNull(assertThrows(NullPointerException.class, () -> map.getAll(Arrays.asList("a", null))));
            }
        }
    }

    @Test
    void streamedGetAllShouldHandOverEveryPresentKeyInOrderAndAllowCallsIntoTheMap() throws Exception {
        try (ColossalMap<String, String> map = ColossalMap.open(dir.resolve("streamed.map"), TestCodecs.STRING, TestCodecs.STRING)) {
            for (int i = 0; i < 500; i += 2) {
                map.put("k" + i, "v".repeat(i % 90) + i);
            }
            // 100 keys (three batches and a bit), absent ones and one key asked twice
            List<String> asked = new ArrayList<>();
            for (int i = 0; i < 99; i++) {
                asked.add("k" + (i * 7 % 500));
            }
            asked.add("k14");
            List<String> expected = new ArrayList<>();
            for (String k : asked) {
                if (map.containsKey(k)) {
                    expected.add(k + "=" + map.get(k));
                }
            }
            List<String> got = new ArrayList<>();
            map.getAll(asked, (k, v) -> {
                got.add(k + "=" + v);
                // a call into the map from the action must not disturb the batch being read
                assertEquals(v, map.get(k));
                map.put("written-from-action-" + k, v);
            });
            assertEquals(expected, got);
            assertEquals(51, expected.size(), "the 50 even keys asked, and k14 again");
            assertEquals(map.get("k14"), map.get("written-from-action-k14"));

            List<String> before = new ArrayList<>();
            List<String> withNull = new ArrayList<>(asked.subList(0, 40));
            withNull.add(null);
            assertEquals("keys holds a null key",
                    assertThrows(NullPointerException.class, () -> map.getAll(withNull, (k, v) -> before.add(k))).getMessage());
            assertEquals(expected.stream().limit(before.size()).map(e -> e.substring(0, e.indexOf('='))).toList(), before,
                    "the full batch before the null key was handed over");
            assertTrue(before.size() > 0 && before.size() < 20, "whole batches before the null key only: " + before.size());
            assertThrows(NullPointerException.class, () -> map.getAll(asked, null));
        }
    }

    /** On a map small enough to skip the read-ahead, and on one past {@link BytesMap#CACHED_BYTES} that reads ahead. */
    @Test
    void prefetchShouldStepThroughEveryKeyAndChangeNothing() throws Exception {
        for (boolean big : new boolean[] {false, true}) {
            prefetchStepsThroughEveryKey(big);
        }
    }

    private void prefetchStepsThroughEveryKey(boolean big) throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("prefetch-" + big + ".map"))) {
            if (big) {
                map.put(MemorySegment.ofArray("big".getBytes()), MemorySegment.ofArray(new byte[(int) BytesMap.CACHED_BYTES]));
                assertTrue(map.file.allocEnd() > BytesMap.CACHED_BYTES);
            } else {
                assertTrue(map.file.allocEnd() <= BytesMap.CACHED_BYTES);
            }
            MemorySegment[] ks = new MemorySegment[70];
            for (int i = 0; i < ks.length; i++) {
                ks[i] = MemorySegment.ofArray(("p" + i).getBytes());
                if (i % 3 != 0) {
                    map.put(ks[i], MemorySegment.ofArray(("value" + i).getBytes()));
                }
            }
            List<Integer> steps = new ArrayList<>();
            for (int i = 0; i < ks.length; ) {
                int end = map.prefetch(ks, i);
                steps.add(end);
                for (; i < end; i++) {
                    assertArrayEquals(i % 3 == 0 ? null : ("value" + i).getBytes(), map.get(ks[i].toArray(JAVA_BYTE)));
                }
            }
            assertEquals(List.of(32, 64, 70), steps, "a batch at a time, the last one short");
            assertEquals(70, map.prefetch(ks, 70), "nothing left to read ahead");
            assertEquals(big ? 47 : 46, map.size(), "reading ahead stores and removes nothing");
            assertTrue(assertThrows(IndexOutOfBoundsException.class, () -> map.prefetch(ks, 71)).getMessage().contains("from=71"));
            assertThrows(IndexOutOfBoundsException.class, () -> map.prefetch(ks, -1));
            ks[40] = null;
            assertEquals("keys[40] is null", assertThrows(NullPointerException.class, () -> map.prefetch(ks, 33)).getMessage());
        }
    }
}
