package dev.colossal.map;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers grow a map while, in the same process, other opens of its file come and go, verify it,
 * inspect it and read it, for a few seconds in all. Every lock word and store goes through a mapping that
 * a remap of one of those opens may retire, and every open shares the process's lock holders: a
 * store or lock release through a mapping closed under it left a lock word naming this process,
 * and everyone waited for it for ever (the file lock's, until its CAS and release were pinned).
 */
class GrowthBesideToolsTest {

    private static final int KEYS_PER_WRITER = 20_000;

    @TempDir
    Path dir;

    @Test
    void writersGrowingTheFileBesideReopensVerifiesAndInspectsLoseNothingAndNeverWaitForEver() {
        // preemptively: a writer stuck on a lock word holds its segment, and closing the map would wait too
        assertTimeoutPreemptively(Duration.ofSeconds(120), this::growBesideTools, "a writer or a tool is stuck on a lock");
    }

    /**
     * Rounds on new files: a small file grows by a large part of itself while a tool reads it, so
     * the tools' opens remap under their own reads and locks again and again.
     */
    private void growBesideTools() throws Exception {
        for (int round = 0; round < 4; round++) {
            growRound(dir.resolve("grown" + round + ".map"), round);
        }
    }

    private void growRound(Path file, int round) throws Exception {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong toolRuns = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        Map<String, Integer> expected = new ConcurrentHashMap<>();
        long remaps;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(8));
             BytesMap second = BytesMap.open(file)) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                // the third writes through another open of the file, which grows and remaps on its own
                BytesMap through = w == 2 ? second : map;
                String prefix = "w" + w + "-";
                int seed = round * 3 + w;
                threads.add(worker("writer " + w, failures, () -> {
                    Map<String, Integer> mine = new HashMap<>();
                    Random random = new Random(seed);
                    // versions that are multiples of 17 get values of 2 KiB or more: the file grows fast
                    for (int v = 17; !stop.get(); v += 17) {
                        String key = prefix + random.nextInt(KEYS_PER_WRITER);
                        if (random.nextInt(8) == 0) {
                            through.remove(key.getBytes(UTF_8));
                            mine.put(key, -1);
                        } else {
                            through.put(key.getBytes(UTF_8), ConcurrencyStressTest.valueFor(key, v).getBytes(UTF_8));
                            mine.put(key, v);
                        }
                        writes.incrementAndGet();
                    }
                    expected.putAll(mine);
                }));
            }
            threads.add(worker("tools", failures, () -> {
                Random random = new Random(round);
                while (!stop.get()) {
                    MapVerifier.Result verified = MapVerifier.verify(file, null);
                    assertTrue(verified.isSound(), verified.problems().toString());
                    MapInspector.Summary stats = MapInspector.inspect(file);
                    assertTrue(stats.entries() >= 0 && stats.segments() == 8, stats.toString());
                    try (BytesMap reopened = BytesMap.open(file)) {
                        checkSome(reopened, random);
                        assertTrue(reopened.size() >= 0);
                    }
                    try (BytesMap readOnly = BytesMap.openReadOnly(file)) {
                        checkSome(readOnly, random);
                    }
                    toolRuns.incrementAndGet();
                }
            }));
            threads.add(worker("reader", failures, () -> {
                Random random = new Random(11);
                while (!stop.get()) {
                    checkSome(map, random);
                }
            }));
            int remapsBefore = map.file.remaps;
            try {
                // a second, and longer on a loaded machine until the tools ran twice beside 5000 writes
                long start = System.nanoTime();
                while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1)
                        || (toolRuns.get() < 2 || writes.get() < 5_000) && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20)) {
                    Thread.sleep(20);
                }
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                    assertFalse(t.isAlive(), "round " + round + ": " + t.getName() + " still runs 30 s after the stop: stuck on a lock");
                }
            }
            assertTrue(failures.isEmpty(), () -> "failures: " + failures);
            remaps = map.file.remaps - remapsBefore;
            assertTrue(toolRuns.get() >= 2, "the tools ran beside the writers: " + toolRuns.get());
            assertTrue(writes.get() >= 5_000, "the writers wrote: " + writes.get());
            assertHolds(map, expected);
            assertHolds(second, expected);
        }
        assertTrue(remaps > 0, "the file grew under the tools");
        assertTrue(MapVerifier.verify(file, null).isSound());
        try (BytesMap reopened = BytesMap.open(file)) {
            assertHolds(reopened, expected);
        }
    }

    /** A thread that runs {@code work}, adding what it throws to {@code failures}, and any interrupt it finds itself with. */
    private static Thread worker(String name, ConcurrentLinkedQueue<Throwable> failures, Work work) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                work.run();
                if (Thread.interrupted()) {
                    throw new AssertionError(name + " ended interrupted, by no one");
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        });
    }

    /** What a worker runs. */
    private interface Work {
        void run() throws Exception;
    }

    /** Reads a few random keys of the writers: each absent or holding a whole value written for it. */
    private static void checkSome(BytesMap map, Random random) {
        for (int i = 0; i < 50; i++) {
            String key = "w" + random.nextInt(3) + "-" + random.nextInt(KEYS_PER_WRITER);
            byte[] value = map.get(key.getBytes(UTF_8));
            if (value != null && !ConcurrencyStressTest.isValueFor(key, new String(value, UTF_8))) {
                throw new AssertionError(key + " holds " + new String(value, UTF_8));
            }
        }
    }

    /** Each key holds the value of its last write, or nothing if its last write removed it. */
    private static void assertHolds(BytesMap map, Map<String, Integer> expected) {
        long present = 0;
        for (Map.Entry<String, Integer> e : expected.entrySet()) {
            byte[] value = map.get(e.getKey().getBytes(UTF_8));
            if (e.getValue() < 0) {
                assertEquals(null, value == null ? null : new String(value, UTF_8), e.getKey() + " was removed last");
            } else {
                assertEquals(ConcurrencyStressTest.valueFor(e.getKey(), e.getValue()),
                        value == null ? null : new String(value, UTF_8), e.getKey());
                present++;
            }
        }
        assertEquals(present, map.size(), "the map holds exactly the keys last written");
    }
}
