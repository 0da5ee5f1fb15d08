package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grown file is mapped once: the mappings a remap replaced are closed once no thread can write
 * through them, and readers that still hold one retry instead of failing or reading wrong bytes.
 */
class MappingReleaseTest {

    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /**
     * One mapping, covering at least {@code from} and no more than the file (the file's write-ahead
     * is not mapped yet).
     */
    private static void assertMapsAboutTheFile(MapFile file, long from) throws Exception {
        awaitOneMapping(file);
        assertEquals(1, file.mappings());
        long mapped = file.mem().byteSize();
        assertTrue(mapped >= from && mapped <= file.size(), "mapped=" + mapped + " from=" + from
                + " allocEnd=" + file.allocEnd() + " size=" + file.size());
    }

    /**
     * Waits for the replaced mappings to be closed: not before {@link MapFile#RETIRE_GRACE_NANOS}
     * after their replacement (then a task closes them), and the test's last writes may have been
     * just now.
     */
    private static void awaitOneMapping(MapFile file) throws InterruptedException {
        long end = System.nanoTime() + MapFile.RETIRE_GRACE_NANOS + TimeUnit.SECONDS.toNanos(10);
        while (file.mappings() > 1 && System.nanoTime() - end < 0) {
            Thread.sleep(20);
        }
    }

    @Test
    void shouldCloseReplacedMappingsWhenOneThreadGrowsTheFile() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve("one.map"), MapOptions.DEFAULTS.withSegments(4))) {
            MemorySegment first = map.file.mem();
            for (int i = 0; i < 50_000; i++) {
                map.put(bytes("k" + i), bytes(ConcurrencyStressTest.valueFor("k" + i, i)));
            }
            assertTrue(map.file.remaps >= 10, "the file grew through many remaps: " + map.file.remaps);
            awaitOneMapping(map.file);
            assertFalse(first.scope().isAlive(), "the first mapping was closed");
            assertThrows(IllegalStateException.class, () -> first.get(ValueLayout.JAVA_LONG, 0));
            assertMapsAboutTheFile(map.file, map.file.allocEnd());
            for (int i = 0; i < 50_000; i++) {
                assertEquals(ConcurrencyStressTest.valueFor("k" + i, i), string(map.get(bytes("k" + i))));
            }
        }
    }

    @Test
    void shouldReadCorrectValuesWhileOtherThreadsGrowTheFile() throws Exception {
        int stable = 2_000;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        try (BytesMap map = BytesMap.open(dir.resolve("many.map"), MapOptions.DEFAULTS.withSegments(8))) {
            for (int i = 0; i < stable; i++) {
                map.put(bytes("s" + i), bytes(ConcurrencyStressTest.valueFor("s" + i, 0)));
            }
            int startRemaps = map.file.remaps;
            List<Thread> threads = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment dst = arena.allocate(4096);
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        while (!done.get()) {
                            String key = "s" + random.nextInt(stable);
                            long n = map.get(MemorySegment.ofArray(bytes(key)), dst);
                            String value = new String(dst.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                            if (!ConcurrencyStressTest.isValueFor(key, value)) {
                                throw new AssertionError("key=" + key + " read " + value);
                            }
                            reads.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            Thread grower = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 60_000; i++) {
                        map.put(bytes("g" + i), bytes(ConcurrencyStressTest.valueFor("g" + i, i)));
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            });
            Thread updater = Thread.ofPlatform().start(() -> {
                try {
                    for (int v = 1; grower.isAlive(); v++) {
                        String key = "s" + (v % stable);
                        map.put(bytes(key), bytes(ConcurrencyStressTest.valueFor(key, v)));
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            });
            grower.join(TimeUnit.MINUTES.toMillis(3));
            updater.join();
            done.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "failures: " + failures);
            assertTrue(map.file.remaps - startRemaps >= 5, "readers ran across many remaps: " + (map.file.remaps - startRemaps));
            assertTrue(reads.get() > 0);
            awaitOneMapping(map.file);
            assertEquals(1, map.file.mappings(), "every replaced mapping was closed once the writers were done");
            for (int i = 0; i < 60_000; i += 7) {
                assertEquals(ConcurrencyStressTest.valueFor("g" + i, i), string(map.get(bytes("g" + i))));
            }
        }
    }

    /**
     * Readers on platform threads while another thread grows the file are never interrupted. The JDK
     * closes a shared mapping by throwing at each thread reading through it, and HotSpot sets such a
     * thread's interrupt flag too, even if its read ends before the throw: replaced mappings were
     * closed as soon as no writer was pinned, and readers found their flag set by no one (8 to 23
     * times in 16 to 25 remaps; ReadOnlyToolsTest's {@code join} threw InterruptedException, and an
     * event loop's {@code select} would return at once for ever). They are closed a grace later. In
     * a child JVM, whose readers copy large values (the copy is where a close meets them) without
     * this JVM's other tests around.
     */
    @Test
    void readersAreNeverInterruptedByTheClosingOfMappingsTheyReadThrough() throws Exception {
        Path out = dir.resolve("readers.out");
        Path err = dir.resolve("readers.err");
        Process child = Children.start(err, out, "readers", dir.resolve("readers.map").toString(), "r", "8000");
        assertTrue(child.waitFor(3, TimeUnit.MINUTES), "the child still runs");
        assertEquals(0, child.exitValue(), () -> "child failed: " + MultiProcessTest.readQuietly(err));
        String[] said = Files.readString(out).trim().split(" ");
        assertEquals("interrupted", said[0], String.join(" ", said));
        assertTrue(Long.parseLong(said[5]) >= 5, "the file grew under the readers: " + String.join(" ", said));
        assertTrue(Long.parseLong(said[3]) > 0, "the readers read: " + String.join(" ", said));
        assertEquals(0, Long.parseLong(said[1]), "readers found their thread interrupted, by no one but the closing of"
                + " mappings they read through: " + String.join(" ", said));
    }

    @Test
    void shouldCloseReplacedMappingsWhenAnotherProcessGrowsTheFile() throws Exception {
        Path file = dir.resolve("shared.map");
        Path out = dir.resolve("child.out");
        long limit = 30_000;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(8))) {
            MemorySegment first = map.file.mem();
            Process child = Children.start(dir.resolve("child.err"), out, "writer", file.toString(), "w", Long.toString(limit));
            long checked = 0;
            while (child.isAlive()) {
                // Read keys the child already wrote and never removes (i % 3 != 1): this process
                // remaps from its read path only.
                List<String> lines = Files.readAllLines(out);
                long written = lines.size() - 2;
                for (long i = Math.max(0, written - 50); i < written; i++) {
                    if (i % 3 != 1) {
                        assertEquals(MapChild.value("w", i), string(map.get(bytes(MapChild.key("w", i)))));
                        checked++;
                    }
                }
                Thread.sleep(20);
            }
            int exit = child.waitFor();
            assertEquals(0, exit, "child failed: " + Files.readString(dir.resolve("child.err")));
            for (long i = 0; i < limit; i++) {
                if (i % 3 != 1 || i > limit - 6) {
                    assertEquals(MapChild.value("w", i), string(map.get(bytes(MapChild.key("w", i)))));
                }
            }
            assertTrue(checked > 0, "read while the child wrote");
            awaitOneMapping(map.file);
            assertFalse(first.scope().isAlive(), "the mapping from before the child's growth was closed");
            // A reader maps as far as its reads go: what the child allocated last may be a table it
            // gave back to the spare extents, which no read touches.
            assertMapsAboutTheFile(map.file, first.byteSize() + 1);
        }
    }
}
