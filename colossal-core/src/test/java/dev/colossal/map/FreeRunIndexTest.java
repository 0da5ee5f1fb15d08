package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment heap's index of its free lists ({@link FreeRunIndex}): after writes of values of many
 * sizes it holds exactly the runs the file's lists hold, in their order; a write through another
 * mapping of the file drops it; and the values read back whole either way.
 */
class FreeRunIndexTest {

    @TempDir
    Path dir;

    @Test
    void holdsExactlyTheRunsOfTheFileListsAfterWritesOfManySizes() throws IOException {
        try (BytesMap map = BytesMap.open(dir.resolve("m.map"), MapOptions.DEFAULTS.withSegments(1))) {
            Map<String, byte[]> model = new HashMap<>();
            writeAtRandom(map, model, new Random(1), 20_000);
            SegmentHeap heap = map.segment(0).heap();
            assertNotNull(heap.index(), "built after enough writes");
            assertIndexIsTheLists(map);
            assertValues(map, model);
            MapChecks.assertSound(map);
        }
    }

    @Test
    void aWriteThroughAnotherMappingDropsTheIndex() throws IOException {
        Path file = dir.resolve("two.map");
        try (BytesMap first = BytesMap.open(file, MapOptions.DEFAULTS.withSegments(1));
             BytesMap second = BytesMap.open(file)) {
            Map<String, byte[]> model = new HashMap<>();
            Random random = new Random(2);
            writeAtRandom(first, model, random, 5_000);
            assertNotNull(first.segment(0).heap().index());
            for (int round = 0; round < 20; round++) {
                writeAtRandom(second, model, random, 50);
                writeAtRandom(first, model, random, 1);
                assertNull(first.segment(0).heap().index(), "round " + round);
                writeAtRandom(first, model, random, 300);
                assertIndexIsTheLists(first);
            }
            assertValues(first, model);
            assertValues(second, model);
            MapChecks.assertSound(first);
        }
    }

    /** Puts (values of 16 B to 5 KiB) and removes on 2,000 keys, recorded in {@code model}. */
    private static void writeAtRandom(BytesMap map, Map<String, byte[]> model, Random random, int ops) {
        for (int i = 0; i < ops; i++) {
            String key = "k" + random.nextInt(2000);
            if (random.nextInt(4) == 0) {
                map.remove(MemorySegment.ofArray(key.getBytes(StandardCharsets.UTF_8)));
                model.remove(key);
            } else {
                byte[] value = new byte[16 + random.nextInt(5000)];
                random.nextBytes(value);
                map.put(key.getBytes(StandardCharsets.UTF_8), value);
                model.put(key, value);
            }
        }
    }

    private static void assertValues(BytesMap map, Map<String, byte[]> model) {
        for (Map.Entry<String, byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), map.get(e.getKey().getBytes(StandardCharsets.UTF_8)), e.getKey());
        }
    }

    /** Walks every free list of segment 0 in the file: the index has each run, its size and its successor, and no other. */
    private static void assertIndexIsTheLists(BytesMap map) {
        Segment s = map.segment(0);
        s.lockForRead();
        try {
            FreeRunIndex index = s.heap().index();
            assertNotNull(index);
            MemorySegment m = map.file.mem(map.file.allocEnd());
            long base = FileHeaderLayout.segmentOffset(0);
            int runs = 0;
            for (int c = 0; c < SegmentLayout.FREE_CLASSES; c++) {
                for (long run = m.get(JAVA_LONG, base + SegmentLayout.freeHead(c)); run != 0; run = m.get(JAVA_LONG, run + HeapLayout.RUN_NEXT)) {
                    FreeRunIndex.Run r = index.at(run);
                    assertNotNull(r, "run at " + run + " of class " + c);
                    assertEquals(m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS), r.blocks);
                    assertEquals(c, r.freeClass);
                    assertEquals(m.get(JAVA_LONG, run + HeapLayout.RUN_NEXT), r.nextPos());
                    runs++;
                }
            }
            assertEquals(runs, index.size(), "runs in the index and in the lists");
        } finally {
            s.unlockForRead();
        }
    }
}
