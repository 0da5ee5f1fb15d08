package dev.colossal.swap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ExtentAllocatorTest {

    @Test
    void shouldReuseFreedExtentsBestFitBeforeGrowingTheFile() {
        ExtentAllocator a = new ExtentAllocator(64, Long.MAX_VALUE);
        long x = a.allocate(640);
        long y = a.allocate(64);
        long z = a.allocate(128);
        a.allocate(64);
        assertEquals(0, x);
        assertEquals(640, y);
        assertEquals(704, z);
        a.free(x, 640);
        a.free(z, 128);
        assertEquals(z, a.allocate(100), "the 128-byte hole fits best");
        assertEquals(x, a.allocate(640), "the big hole is reused, not the end of the file");
        assertEquals(896, a.end());
        assertEquals(0, a.freeBytes());
    }

    @Test
    void shouldCoalesceNeighboursIntoOneExtentAndGiveTheTailBack() {
        ExtentAllocator a = new ExtentAllocator(64, Long.MAX_VALUE);
        long[] blocks = new long[5];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = a.allocate(64);
        }
        a.free(blocks[1], 64);
        a.free(blocks[3], 64);
        assertEquals(2, a.freeExtents());
        a.free(blocks[2], 64);
        assertEquals(1, a.freeExtents(), "1, 2 and 3 coalesce");
        assertEquals(192, a.freeBytes());
        assertEquals(blocks[1], a.allocate(192), "the coalesced extent holds a block three times the size");
        a.free(blocks[1], 192);
        assertTrue(a.free(blocks[4], 64), "freeing the last block shrinks the file");
        assertEquals(64, a.end(), "and everything free behind it goes with it");
        assertEquals(0, a.freeExtents());
    }

    @Test
    void shouldReportTheLimitAsNoSpaceAndRejectDoubleFree() {
        ExtentAllocator a = new ExtentAllocator(64, 320);
        assertEquals(0, a.allocate(200), "200 bytes take 256");
        assertEquals(-1, a.allocate(128), "320-byte limit: only 64 bytes left");
        assertEquals(256, a.allocate(64));
        a.free(0, 200);
        assertThrows(IllegalStateException.class, () -> a.free(0, 64));
        assertThrows(IllegalArgumentException.class, () -> a.free(1 << 20, 64));
    }

    @Test
    void shouldKeepUsedAndFreeBytesExactUnderRandomAllocateAndFree() {
        SplittableRandom random = new SplittableRandom(7);
        ExtentAllocator a = new ExtentAllocator(64, Long.MAX_VALUE);
        List<long[]> live = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            if (live.isEmpty() || random.nextInt(3) > 0) {
                long len = 1 + random.nextInt(4096);
                live.add(new long[] {a.allocate(len), len});
            } else {
                long[] e = live.remove(random.nextInt(live.size()));
                a.free(e[0], e[1]);
            }
            if (step % 1000 == 0) {
                long used = live.stream().mapToLong(e -> BlockLayout.roundUp(e[1], 64)).sum();
                assertEquals(used, a.usedBytes());
                assertEquals(a.end() - used, a.freeBytes());
                live.sort((p, q) -> Long.compare(p[0], q[0]));
                for (int i = 1; i < live.size(); i++) {
                    long[] prev = live.get(i - 1);
                    assertTrue(prev[0] + BlockLayout.roundUp(prev[1], 64) <= live.get(i)[0], "extents overlap");
                }
            }
        }
        for (long[] e : live) {
            a.free(e[0], e[1]);
        }
        assertEquals(0, a.end(), "all freed: the file is empty again");
        assertFalse(a.freeExtents() > 0);
    }
}
