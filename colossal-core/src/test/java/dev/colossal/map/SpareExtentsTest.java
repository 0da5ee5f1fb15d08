package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Space a segment frees whole goes to the file's spare extents, for any segment to take before the
 * file grows: a cleared map refills with other keys in the space it had (on a full disk, after a
 * FLUSHALL, only the keys of segments that had held entries used to fit), and {@code compact}
 * rebuilds the list, taking back what dead writers leaked.
 */
class SpareExtentsTest {

    private static final int SEGMENTS = 4;

    @TempDir
    Path dir;

    @Test
    void spaceAClearFreedServesTheKeysOfOtherSegments() throws IOException {
        Path file = dir.resolve("clear.map");
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(SEGMENTS))) {
            MemorySegment value = arena.allocate(100);
            List<MemorySegment> first = keysOf(map, arena, 0, 20_000, 0);
            for (MemorySegment k : first) {
                map.put(k, value);
            }
            long filled = map.file.allocEnd();
            map.clear();
            assertTrue(map.file.spares.bytes() > filled / 2, "the cleared chunks are spare: " + map.file.spares.bytes() + " of " + filled);
            List<MemorySegment> second = keysOf(map, arena, 1, 20_000, 1_000_000);
            for (int i = 0; i < second.size(); i++) {
                value.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                map.put(second.get(i), value);
            }
            long refilled = map.file.allocEnd();
            // Without the spare list the second segment took as much again; now only its own
            // table (the first segment keeps its table) and some rounding.
            assertTrue(refilled - filled < filled / 4, "grew by " + (refilled - filled) + " after " + filled);
            MemorySegment got = arena.allocate(100);
            for (int i = 0; i < second.size(); i++) {
                assertEquals(100, map.get(second.get(i), got));
                assertEquals(i, got.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
            }
            for (MemorySegment k : first) {
                assertEquals(-1, map.get(k, got));
            }
            assertEquals(second.size(), map.size());
            MapChecks.assertSound(map);
        }
        MapVerifier.Result verified = MapVerifier.verify(file, null);
        assertTrue(verified.isSound(), verified.problems().toString());
        assertEquals(List.of(), verified.notes());
    }

    @Test
    void compactMovesEntriesOutOfMostlyFreeChunksAndGivesThemToEverySegment() throws IOException {
        Path file = dir.resolve("scattered.map");
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(SEGMENTS))) {
            MemorySegment value = arena.allocate(100);
            MemorySegment got = arena.allocate(100);
            List<MemorySegment> keys = keysOf(map, arena, 0, 40_000, 0);
            for (int i = 0; i < keys.size(); i++) {
                value.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                map.put(keys.get(i), value);
            }
            for (int i = 0; i < keys.size(); i++) {
                if (i % 4 != 0) {
                    map.remove(keys.get(i));   // what is left is scattered over every chunk
                }
            }
            long filled = map.file.allocEnd();
            map.compact();
            long spare = map.file.spares.bytes();
            assertTrue(spare > filled / 3, "the chunks emptied are spare: " + spare + " of " + filled);
            for (int i = 0; i < keys.size(); i++) {
                assertEquals(i % 4 == 0 ? 100 : -1, map.get(keys.get(i), got), "key " + i);
                if (i % 4 == 0) {
                    assertEquals(i, got.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                }
            }
            MapChecks.assertSound(map);
            // Another segment's keys fill the space the first one gave back.
            for (MemorySegment k : keysOf(map, arena, 3, 20_000, 1_000_000)) {
                map.put(k, value);
            }
            assertTrue(map.file.allocEnd() - filled < filled / 5, "grew by " + (map.file.allocEnd() - filled));
            MapChecks.assertSound(map);
        }
        MapVerifier.Result verified = MapVerifier.verify(file, null);
        assertTrue(verified.isSound(), verified.problems().toString());
        assertEquals(List.of(), verified.notes());
    }

    @Test
    void compactGivesEmptyChunksBackAndRebuildsADamagedList() throws IOException {
        Path file = dir.resolve("compact.map");
        long spare;
        try (Arena arena = Arena.ofConfined();
             BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(SEGMENTS))) {
            MemorySegment value = arena.allocate(200);
            List<MemorySegment> gone = keysOf(map, arena, 0, 10_000, 0);
            List<MemorySegment> kept = keysOf(map, arena, 2, 10_000, 1_000_000);
            for (int i = 0; i < gone.size(); i++) {
                map.put(gone.get(i), value);
                map.put(kept.get(i), value);
            }
            long tables = map.file.spares.bytes();   // the tables the segments outgrew
            for (MemorySegment k : gone) {
                map.remove(k);
            }
            assertEquals(tables, map.file.spares.bytes(), "removals alone give nothing back");
            map.compact();
            spare = map.file.spares.bytes();
            assertTrue(spare - tables > 10_000 * 200L / 2, "the emptied segment's chunks are spare: " + spare);
            MapChecks.assertSound(map);
        }
        MapInspector.Summary summary = MapInspector.inspect(file);
        assertEquals(spare, summary.spareBytes());
        assertTrue(summary.toString().contains("spare extents"), summary.toString());

        damageSpareHead(file);
        MapVerifier.Result damaged = MapVerifier.verify(file, null);
        assertFalse(damaged.isSound());
        assertTrue(damaged.isRepairable(), damaged.problems().toString());
        assertTrue(damaged.problems().get(0).contains("spare extents"), damaged.problems().toString());
        try (Arena arena = Arena.ofConfined(); BytesMap map = BytesMap.openExisting(file)) {
            // A put that needs space meets the damage: a clear error, and nothing stored is lost.
            MemorySegment value = arena.allocate(100_000);
            MapCorruptedException e = org.junit.jupiter.api.Assertions.assertThrows(MapCorruptedException.class, () -> {
                for (MemorySegment k : keysOf(map, arena, 0, 100, 5_000_000)) {
                    map.put(k, value);
                }
            });
            assertTrue(e.getMessage().contains("colossal compact"), e.getMessage());
            MemorySegment got = arena.allocate(200);
            for (MemorySegment k : keysOf(map, arena, 2, 10_000, 1_000_000)) {
                assertEquals(200, map.get(k, got), "stored before the damage was met");
            }
            map.compact();
            assertEquals(spare, map.file.spares.bytes(), "rebuilt from what the segments own");
        }
        MapVerifier.Result repaired = MapVerifier.verify(file, null);
        assertTrue(repaired.isSound(), repaired.problems().toString());
        assertEquals(List.of(), repaired.notes());
    }

    @Test
    void aWriterKilledWhileEntriesMoveOrExtentsChangeHandsLeaksAtMostWhatCompactTakesBack() throws Exception {
        Path stderr = dir.resolve("churn.err");
        int crashes = 0;
        for (int site : new int[] {CrashPoints.SPARE_TAKEN, CrashPoints.CHUNK_GIVEN, CrashPoints.EXTENT_TAKEN,
                CrashPoints.ENTRY_MOVED}) {
            for (long at : new long[] {1, 7, 40}) {
                String run = "s" + site + "a" + at;
                Path file = dir.resolve(run + ".map");
                Path out = dir.resolve(run + ".out");
                Process p = Children.start(stderr, out,
                        List.of("-Dcolossal.map.crashSite=" + site, "-Dcolossal.map.crashAt=" + at),
                        "churn", file.toString(), run, "1500", "6");
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), run + " finished");
                assertEquals(77, p.exitValue(), () -> run + " died at its crash point: " + MultiProcessTest.readQuietly(stderr));
                crashes++;
                try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
                    MapChecks.assertSound(map.bytes());
                    for (int i = 0; i < 2000; i++) {
                        map.put("after" + i, "x".repeat(i % 500));
                    }
                    MapChecks.assertSound(map.bytes());
                }
                MapVerifier.Result before = MapVerifier.verify(file, null);
                assertTrue(before.isSound(), run + ": " + before.problems());
                MapCompactor.Result compacted = MapCompactor.compact(file, null);
                MapVerifier.Result after = MapVerifier.verify(file, null);
                assertTrue(after.isSound(), run + ": " + after.problems());
                assertEquals(List.of(), after.notes(), run + ": every leaked byte is back (before: " + before.notes()
                        + ", taken back " + compacted.takenBack() + ")");
                try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING)) {
                    for (int i = 0; i < 2000; i++) {
                        assertEquals("x".repeat(i % 500), map.get("after" + i));
                    }
                }
            }
        }
        assertEquals(12, crashes);
        assertEquals("", MultiProcessTest.readQuietly(stderr));
    }

    @Test
    void writersReadersAndAnotherProcessCompactingAgreeOnWhoOwnsWhat() throws Exception {
        Path file = dir.resolve("shared.map");
        Path stderr = dir.resolve("compactor.err");
        Path out = dir.resolve("compactor.out");
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING,
                MapOptions.DEFAULTS.withSegments(8))) {
            for (int i = 0; i < 2000; i++) {
                map.put("stable" + i, "s".repeat(i % 700) + i);
            }
            Process compactor = Children.start(stderr, out, "compactor", file.toString(), "x", "400");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> writers = new ArrayList<>();
            writers.add(Thread.ofPlatform().start(() -> {
                // Entries that never change, read while the compactions move them: never torn, never missing.
                try {
                    for (int round = 0; compactor.isAlive() || round < 3; round++) {
                        for (int i = 0; i < 2000; i++) {
                            assertEquals("s".repeat(i % 700) + i, map.get("stable" + i));
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
            for (int t = 0; t < 2; t++) {
                String prefix = "w" + t + "-";
                writers.add(Thread.ofPlatform().start(() -> {
                    try {
                        // Waves of inserts and removals empty whole chunks, which the other
                        // process's compactions give back while these threads take them again.
                        for (int round = 0; compactor.isAlive() || round < 3; round++) {
                            for (int i = 0; i < 3000; i++) {
                                map.put(prefix + i, round + "v".repeat(i % 400));
                            }
                            for (int i = 0; i < 3000; i += round % 2 == 0 ? 1 : 2) {
                                map.remove(prefix + i);
                            }
                        }
                        for (int i = 0; i < 3000; i++) {
                            map.put(prefix + i, "final" + i);
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }));
            }
            for (Thread w : writers) {
                w.join(120_000);
                assertFalse(w.isAlive());
            }
            assertTrue(compactor.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, compactor.exitValue(), () -> MultiProcessTest.readQuietly(stderr));
            assertEquals(null, failure.get());
            assertEquals(8000, map.size());
            for (int t = 0; t < 2; t++) {
                for (int i = 0; i < 3000; i++) {
                    assertEquals("final" + i, map.get("w" + t + "-" + i));
                }
            }
            MapChecks.assertSound(map.bytes());
        }
        MapVerifier.Result verified = MapVerifier.verify(file, null);
        assertTrue(verified.isSound(), verified.problems().toString());
        assertEquals(List.of(), verified.notes());
        assertEquals("", MultiProcessTest.readQuietly(stderr));
    }

    /** {@code n} distinct 8-byte keys, from {@code start} on, that fall into segment {@code segment}. */
    private static List<MemorySegment> keysOf(BytesMap map, Arena arena, int segment, int n, long start) {
        List<MemorySegment> keys = new ArrayList<>();
        for (long k = start; keys.size() < n; k++) {
            MemorySegment key = arena.allocate(8);
            key.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, k);
            if (map.segmentFor(BytesMap.hash(key)) == map.segment(segment)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static void damageSpareHead(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer junk = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 0x1234_5678L);
            ch.write(junk, FileHeaderLayout.SPARE_EXTENTS_OFFSET);
        }
        assertArrayEquals(new byte[] {0x78, 0x56, 0x34, 0x12}, java.util.Arrays.copyOfRange(
                Files.readAllBytes(file), (int) FileHeaderLayout.SPARE_EXTENTS_OFFSET, (int) FileHeaderLayout.SPARE_EXTENTS_OFFSET + 4));
    }
}
