package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools read a map this user may not write (a backup, another user's file): inspect and verify
 * open it read-only and change not a byte; a read-only scan of a segment that writers keep
 * changing still sees it whole.
 */
class ReadOnlyToolsTest {

    @TempDir
    Path dir;

    @Test
    void inspectAndVerifyReadAMapThisUserMayNotWriteAndChangeNothing() throws Exception {
        Path file = dir.resolve("backup.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4))) {
            for (int i = 0; i < 5_000; i++) {
                map.put(("k" + i).getBytes(), new byte[i % 300]);
            }
        }
        byte[] before = Unwritable.sha256(file);
        try (Unwritable unwritable = Unwritable.make(file)) {
            assumeTrue(unwritable.stopsThisUser(), "this user writes any file (root without chattr): nothing to show");
            MapInspector.Summary summary = MapInspector.inspect(file);
            assertEquals(5_000, summary.entries());
            MapVerifier.Result verified = MapVerifier.verify(file, null);
            assertTrue(verified.isSound(), verified.problems().toString());
            assertEquals(5_000, verified.entries());
        }
        assertArrayEquals(before, Unwritable.sha256(file), "not a byte changed");
    }

    @Test
    void aReadOnlyScanSeesASegmentWholeWhileAWriterKeepsChangingIt() throws Exception {
        Path file = dir.resolve("busy.map");
        try (BytesMap writable = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(1));
             BytesMap readOnly = BytesMap.openReadOnly(file);
             Arena arena = Arena.ofShared()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                MemorySegment key = arena.allocate(4);
                MemorySegment value = arena.allocate(64);
                try {
                    for (int i = 0; !stop.get(); i++) {
                        if (i % 2_000 == 0 && i >= 40_000) {
                            // busy, not saturated: a segment written every microsecond of a scan
                            // can never be read whole without a lock (that is reported as busy)
                            Thread.sleep(5);
                        }
                        key.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i % 20_000);
                        if (i % 7 == 0) {
                            writable.remove(key);
                        } else {
                            writable.put(key, value.asSlice(0, 8 + i % 50));
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            try {
                Segment s = readOnly.segment(0);
                while (writable.size() < 10_000) {
                    Thread.onSpinWait();
                }
                notInterruptedAfter("writable.size()");
                long end = System.nanoTime() + 1_500_000_000L;
                while (System.nanoTime() < end) {
                    // the counter and the table agree only in a whole view of the segment
                    long[] seen = s.readConsistently(() -> {
                        SegmentScan scan = SegmentScan.of(readOnly.file, 0);
                        return new long[] {scan.liveEntries(), s.liveEntries(), scan.problems().size()};
                    });
                    assertEquals(seen[1], seen[0], "the table holds " + seen[0] + " entries, the counter says " + seen[1]);
                    assertEquals(0, seen[2]);
                    notInterruptedAfter("readConsistently");
                }
                MemorySegment key = arena.allocate(4);
                assertThrows(RuntimeException.class, () -> readOnly.put(key, key), "a read-only map refuses writes");
                notInterruptedAfter("readOnly.put");
            } finally {
                stop.set(true);
                writer.join();
            }
            assertNull(failure.get());
        }
    }

    /**
     * This test once failed at its join with its thread interrupted (sessions 19 to 21): the writer's
     * growth closed a replaced mapping while this thread read {@code writable.size()} through it,
     * and HotSpot interrupts a thread it throws a closed mapping's exception at. Replaced mappings
     * are now closed a grace later ({@link MapFile#RETIRE_GRACE_NANOS}; MappingReleaseTest shows it);
     * the checks after each step would name the one that returned with the flag set.
     */
    private static void notInterruptedAfter(String step) {
        if (Thread.currentThread().isInterrupted()) {
            throw new AssertionError("the test thread was interrupted by the time " + step + " returned");
        }
    }
}
