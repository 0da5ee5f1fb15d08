package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segments' free-run indexes inside a map: bounded for the whole map, dropped when another
 * writer changed the lists, and never trusted over the file.
 */
class FreeRunIndexMapTest {

    @TempDir
    Path dir;

    /** A value of 500 to 4000 bytes, a different one for each key and round. */
    static String kibValue(String prefix, int i, int round) {
        int length = 500 + new SplittableRandom(31L * i + round).nextInt(3501);
        String stamp = prefix + "/" + i + "/" + round + ";";
        return stamp.repeat(length / stamp.length() + 1).substring(0, length);
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int round) {
        return kibValue("v", i, round).getBytes(StandardCharsets.UTF_8);
    }

    private static void assertSound(Path file) throws IOException {
        MapVerifier.Result verified = MapVerifier.verify(file, null);
        assertTrue(verified.isSound(), verified.problems().toString());
    }

    private static int indexedSegments(BytesMap map) {
        int n = 0;
        for (int s = 0; s < map.segmentCount(); s++) {
            n += map.segment(s).indexedRuns() >= 0 ? 1 : 0;
        }
        return n;
    }

    /**
     * 4,096 segments each taking KiB entries would want ~8 MB of indexes even empty: the default
     * budget holds them to 4 MiB, taking the coldest segments' indexes for the hot ones.
     */
    @Test
    void theIndexesOfAMapOfManySegmentsStayWithinTheDefaultBudget() throws IOException {
        Path file = dir.resolve("many.map");
        int keys = 16_000;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(4096))) {
            FitBudget budget = map.file.fitBudget;
            assertEquals(FitBudget.DEFAULT_BYTES, budget.limit());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < keys; i++) {
                    map.put(key(i), value(i, round));
                    if (i % 1000 == 0) {
                        assertTrue(budget.usedBytes() <= budget.limit(), "used=" + budget.usedBytes());
                    }
                }
            }
            assertTrue(budget.usedBytes() <= budget.limit(), "used=" + budget.usedBytes());
            int indexed = indexedSegments(map);
            assertEquals(budget.indexes(), indexed);
            assertTrue(indexed > 100 && indexed < 4096, "indexed=" + indexed);
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(value(i, 2), map.get(key(i)));
            }
        }
        assertSound(file);
    }

    /** With a budget of a few indexes, segments take them from each other all the time: only speed may suffer. */
    @Test
    void aTinyBudgetLeavesEveryValueRight() throws IOException {
        Path file = dir.resolve("tiny.map");
        int keys = 4_000;
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(64))) {
            map.file.fitBudget = new FitBudget(16 << 10);
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < keys; i++) {
                    map.put(key(i), value(i, round));
                }
                assertTrue(map.file.fitBudget.usedBytes() <= 16 << 10);
            }
            for (int i = 0; i < keys; i++) {
                assertArrayEquals(value(i, 3), map.get(key(i)));
            }
        }
        assertSound(file);
    }

    /**
     * One key's KiB value overwritten over and over finds its fit in a look (the run its last value
     * freed), so the segment keeps no index to update; values of many keys and sizes make walks
     * long, and then it does.
     */
    @Test
    void aSegmentWhoseListsStayShortKeepsNoIndex() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("short.map"), MapOptions.DEFAULTS.withSegments(1))) {
            for (int round = 0; round < 2000; round++) {
                map.put(key(0), value(0, round % 2));
            }
            assertEquals(-1, map.segment(0).indexedRuns(), "one key's overwrites walk one run");
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 300; i++) {
                    map.put(key(i), value(i, round));
                }
            }
            assertTrue(map.segment(0).indexedRuns() > 0, "300 keys of mixed sizes made the walks long");
        }
    }

    @Test
    void aWriteThroughAnotherOpenOfTheFileDropsTheIndex() throws IOException {
        Path file = dir.resolve("two.map");
        MapOptions one = MapOptions.DEFAULTS.withSegments(1);
        try (BytesMap a = BytesMap.open(file, one); BytesMap b = BytesMap.open(file, one)) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 300; i++) {
                    a.put(key(i), value(i, round));
                }
            }
            assertTrue(a.segment(0).indexedRuns() > 0);
            b.put(key(0), value(0, 3));
            a.put(key(1), value(1, 3));
            assertEquals(-1, a.segment(0).indexedRuns(), "the lists changed since a's last write");
            for (int i = 2; i < 300; i++) {
                a.put(key(i), value(i, 3));
            }
            assertTrue(a.segment(0).indexedRuns() > 0, "filled again once the segment is a's alone for a while");
            SplittableRandom random = new SplittableRandom(5);
            int[] last = new int[300];
            java.util.Arrays.fill(last, 3);
            for (int step = 0; step < 3000; step++) {
                int i = random.nextInt(300);
                last[i] = 4 + step;
                (random.nextBoolean() ? a : b).put(key(i), value(i, last[i]));
            }
            for (int i = 0; i < 300; i++) {
                assertArrayEquals(value(i, last[i]), a.get(key(i)));
                assertArrayEquals(value(i, last[i]), b.get(key(i)));
            }
        }
        assertSound(file);
    }

    /**
     * Runs the index holds but the file no longer has as free runs (their magic overwritten behind
     * its back, with no version change to tell) are never handed out: the index is dropped and the
     * walk of the lists reports the damage, as it would without an index.
     */
    @Test
    void runsTheFileNoLongerHoldsAreNeverTakenFromTheIndex() throws IOException {
        Path file = dir.resolve("stale.map");
        try (BytesMap map = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(1))) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 300; i++) {
                    map.put(key(i), value(i, round));
                }
            }
            assertTrue(map.segment(0).indexedRuns() > 0);
            MemorySegment m = map.file.mem(map.file.allocEnd());
            long base = FileHeaderLayout.segmentOffset(0);
            int damaged = 0;
            for (int c = SegmentLayout.EXACT_CLASSES; c < SegmentLayout.FREE_CLASSES; c++) {
                for (long run = m.get(JAVA_LONG, base + SegmentLayout.freeHead(c)); run != 0;
                        run = m.get(JAVA_LONG, run + HeapLayout.RUN_NEXT)) {
                    m.set(JAVA_INT, run + HeapLayout.RUN_MAGIC, 0);
                    damaged++;
                }
            }
            assertTrue(damaged > 10, "damaged=" + damaged);
            assertThrows(MapCorruptedException.class, () -> {
                for (int i = 0; i < 300; i++) {
                    map.put(key(i), value(i, 10));
                }
            });
            assertEquals(-1, map.segment(0).indexedRuns());
        }
    }

    /** Processes writing KiB values to one file in turn: each drops its index whenever another wrote. */
    @Test
    void processesTakingTurnsOnOneFileKeepEveryValue() throws Exception {
        Path file = dir.resolve("shared.map");
        Path stderr = dir.resolve("children.err");
        int keys = 400;
        int rounds = 6;
        try (ColossalMap<String, String> map = ColossalMap.open(file, TestCodecs.STRING, TestCodecs.STRING,
                MapOptions.DEFAULTS.withSegments(8))) {
            List<Process> children = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                children.add(Children.start(stderr, "kib", file.toString(), "child" + c, Integer.toString(keys),
                        Integer.toString(rounds)));
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < keys; i++) {
                    map.put(MapChild.key("parent", i), kibValue("parent", i, r));
                }
            }
            for (Process p : children) {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("done", out.readLine(), () -> readQuietly(stderr));
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, p.exitValue(), () -> readQuietly(stderr));
            }
            for (String prefix : List.of("parent", "child0", "child1")) {
                for (int i = 0; i < keys; i++) {
                    assertEquals(kibValue(prefix, i, rounds - 1), map.get(MapChild.key(prefix, i)), prefix + " " + i);
                }
            }
        }
        assertSound(file);
    }

    private static String readQuietly(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
