package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database of many keys and a few with a TTL: its first sweep reads it whole, later ones only the
 * parts marked as holding keys with a TTL ({@link TtlBuckets}), and still remove every key whose
 * deadline passed, while writers race them; the {@code volatile-} policies' sample finds the few.
 */
class TtlBucketsTest {

    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);

    /** Marks, runs cleared and looks for the next mark, against a BitSet: the summary of words never hides a mark. */
    @Test
    void nextMarkedAgreesWithAModelThroughMarksAndClears() {
        TtlBuckets t = new TtlBuckets(1L << 32);
        java.util.BitSet model = new java.util.BitSet();
        SplittableRandom random = new SplittableRandom(7);
        int buckets = (int) t.buckets();
        for (int i = 0; i < 200_000; i++) {
            // clustered, so words fill, empty and fill again
            int b = random.nextInt(4) == 0 ? random.nextInt(buckets) : random.nextInt(3) * 70_000 + random.nextInt(200);
            switch (random.nextInt(3)) {
                case 0 -> {
                    t.mark(t.start(b) + random.nextLong(t.end(b) - t.start(b)));
                    model.set(b);
                }
                case 1 -> {
                    if (model.get(b)) {
                        int after = (int) t.clearRun(b, b + random.nextInt(1, 100));
                        model.clear(b, after);
                        assertTrue(after == buckets || !model.get(after) || after > b, "run ended at " + after);
                    }
                }
                default -> {
                    int want = model.nextSetBit(b);
                    assertEquals(want < 0 ? -1 : want, t.nextMarked(b), "from " + b);
                }
            }
        }
        assertEquals(model.nextSetBit(0), t.nextMarked(0));
        assertEquals(-1, t.nextMarked(buckets));
    }

    @Test
    void sweepsAfterTheFirstReadTheMarkedPartsOnlyAndMissNoKey() throws Exception {
        int plain = 100_000;
        try (MapStore store = MapStore.open(dir, now::get)) {
            for (int i = 0; i < plain; i++) {
                store.set(("plain" + i).getBytes(), "v".getBytes(), StoredValue.NO_EXPIRY);
            }
            for (int i = 0; i < 30; i++) {
                store.set(("ttl" + i).getBytes(), "v".getBytes(), T0 + 1_000);
            }
            KeyValueStore.Sweep first = store.purgeExpired(() -> true);
            assertTrue(first.whole() && first.read() == plain + 30, first.toString());
            assertEquals(30, first.expiring());

            for (int i = 30; i < 60; i++) {
                store.set(("ttl" + i).getBytes(), "v".getBytes(), T0 + 5_000); // marked by the write
            }
            now.set(T0 + 2_000);
            KeyValueStore.Sweep second = store.purgeExpired(() -> true);
            assertFalse(second.whole(), second.toString());
            assertEquals(30, second.removed());
            assertEquals(30, second.expiring());
            assertTrue(second.read() < 1_000, "read " + second.read() + " entries of " + store.size());

            store.set("ttl40".getBytes(), "no TTL now".getBytes(), StoredValue.NO_EXPIRY);
            assertEquals(29, store.purgeExpired(() -> true).expiring());
            now.set(T0 + 6_000);
            KeyValueStore.Sweep third = store.purgeExpired(() -> true);
            assertEquals(29, third.removed());
            assertEquals(plain + 1, store.size());
            assertTrue(third.read() < 1_000, third.toString());
            assertEquals(0, store.purgeExpired(() -> true).read(), "no mark left: nothing to read");
        }
        try (MapStore store = MapStore.open(dir, now::get)) {
            store.set("old".getBytes(), "v".getBytes(), T0 + 7_000);
        }
        // A new process learns the keys of the one before from a whole sweep.
        try (MapStore store = MapStore.open(dir, now::get)) {
            KeyValueStore.Sweep first = store.purgeExpired(() -> true);
            assertTrue(first.whole() && first.expiring() == 1, first.toString());
            now.set(T0 + 8_000);
            KeyValueStore.Sweep second = store.purgeExpired(() -> true);
            assertTrue(!second.whole() && second.removed() == 1 && second.read() < 100, second.toString());
        }
    }

    /**
     * Writers set, replace and drop TTLs on random keys while sweeps run: once every deadline has
     * passed, one sweep leaves no key with a TTL, whichever sweep a write raced.
     */
    @Test
    void sweepsRacingWritersMissNoKeyWithATtl() throws Exception {
        try (MapStore store = MapStore.open(dir, now::get)) {
            for (int i = 0; i < 20_000; i++) {
                store.set(("plain" + i).getBytes(), "v".getBytes(), StoredValue.NO_EXPIRY);
            }
            store.purgeExpired(() -> true);
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            List<Set<String>> plainAtEnd = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Set<String> mine = new HashSet<>();
                plainAtEnd.add(mine);
                SplittableRandom random = new SplittableRandom(t);
                int thread = t;
                writers.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 30_000; i++) {
                        String key = "w" + thread + ":" + random.nextInt(3_000);
                        // under the key's lock, as every command writes: the sweep's removal checks
                        // the key is still expired under it (without it, a sweep that had read the
                        // key expired could remove the plain value written just after: seen once)
                        java.util.concurrent.locks.Lock lock = store.lock(key.getBytes());
                        lock.lock();
                        try {
                            if (random.nextInt(4) == 0) {
                                store.set(key.getBytes(), "v".getBytes(), StoredValue.NO_EXPIRY);
                                mine.add(key);
                            } else {
                                store.set(key.getBytes(), "v".getBytes(), now.get() + random.nextInt(1, 50));
                                mine.remove(key);
                            }
                        } finally {
                            lock.unlock();
                        }
                        if (i % 1_000 == 0) {
                            now.addAndGet(10);
                        }
                    }
                }));
            }
            Thread sweeper = Thread.ofPlatform().start(() -> {
                while (writing.get()) {
                    store.purgeExpired(writing::get);
                }
            });
            for (Thread w : writers) {
                w.join();
            }
            writing.set(false);
            sweeper.join();
            now.addAndGet(1_000);
            KeyValueStore.Sweep last = store.purgeExpired(() -> true);
            assertEquals(0, last.expiring(), last.toString());
            Set<String> left = new HashSet<>();
            store.scanKeys(k -> new String(k).startsWith("w"), (k, at) -> left.add(new String(k)));
            Set<String> want = new HashSet<>();
            plainAtEnd.forEach(want::addAll);
            assertEquals(want, left, "only the keys last written without a TTL");
            assertTrue(store.size() == 20_000 + want.size(), "no expired key left behind: " + store.size());
        }
    }

    /**
     * Keys with a TTL evicted or deleted leave their parts marked until something reads them: the
     * samples unmark what they read empty, so the few keys left are soon all a sample reads.
     */
    @Test
    void samplesUnmarkThePartsTheyFindWithoutATtl() throws Exception {
        try (MapStore store = MapStore.open(dir, now::get)) {
            for (int i = 0; i < 100_000; i++) {
                store.set(("plain" + i).getBytes(), "v".getBytes(), StoredValue.NO_EXPIRY);
            }
            for (int i = 0; i < 500; i++) {
                store.set(("ttl" + i).getBytes(), "v".getBytes(), T0 + 100_000);
            }
            store.purgeExpired(() -> true);
            for (int i = 5; i < 500; i++) {
                assertTrue(store.delete(("ttl" + i).getBytes()));
            }
            int[] taken = new int[1];
            for (int round = 0; round < 60; round++) {
                taken[0] = 0;
                store.sample(SampledEviction.SAMPLES, true, SampledEviction.MAX_STEPS, (k, at) -> taken[0]++);
            }
            assertEquals(5, taken[0], "the 495 parts left marked by the deletes were unmarked by the samples that read them");
            assertTrue(store.purgeExpired(() -> true).read() < 100, "and the sweep reads only the five keys' parts");
        }
    }

    @Test
    void aVolatileSampleFindsTheFewKeysWithATtlAmongMany() throws Exception {
        try (MapStore store = MapStore.open(dir, now::get)) {
            for (int i = 0; i < 200_000; i++) {
                store.set(("plain" + i).getBytes(), "v".getBytes(), StoredValue.NO_EXPIRY);
            }
            for (int i = 0; i < 5; i++) {
                store.set(("ttl" + i).getBytes(), "v".getBytes(), T0 + 100_000 + i);
            }
            store.purgeExpired(() -> true);
            Set<String> found = new HashSet<>();
            for (int round = 0; round < 20; round++) {
                int[] taken = {0};
                store.sample(SampledEviction.SAMPLES, true, SampledEviction.MAX_STEPS, (k, at) -> {
                    taken[0]++;
                    assertTrue(at != StoredValue.NO_EXPIRY, new String(k));
                    found.add(new String(k));
                });
                assertEquals(5, taken[0], "a sample of 5 finds the 5 keys with a TTL");
            }
            assertEquals(Set.of("ttl0", "ttl1", "ttl2", "ttl3", "ttl4"), found);
        }
    }
}
