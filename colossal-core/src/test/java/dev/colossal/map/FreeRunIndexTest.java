package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The in-heap index of a segment's free runs: fits, joins through its tables, and its growth. */
class FreeRunIndexTest {

    private static final int SHIFT = 3;
    private static final FreeRunIndex.Allowance ANY = (index, bytes) -> true;

    private static FreeRunIndex index() {
        FreeRunIndex index = FreeRunIndex.create(ANY, SHIFT);
        assertNotNull(index);
        return index;
    }

    @Test
    void fitIsTheSmallestRunThatLeavesNothingOrRoomForARun() {
        FreeRunIndex index = index();
        index.add(1 << 20, 40, 8);
        index.add(2 << 20, 50, 16);
        index.add(3 << 20, 52, 24);
        index.add(4 << 20, 100, 32);
        index.add(5 << 20, 9000, 40);
        assertEquals(2 << 20, index.pos(index.fit(50, 2, Long.MAX_VALUE)), "an exact fit first");
        assertEquals(3 << 20, index.pos(index.fit(49, 2, Long.MAX_VALUE)), "50 would leave one block, which no run can hold");
        assertEquals(1 << 20, index.pos(index.fit(33, 2, Long.MAX_VALUE)));
        assertEquals(4 << 20, index.pos(index.fit(53, 2, Long.MAX_VALUE)));
        assertEquals(5 << 20, index.pos(index.fit(101, 2, Long.MAX_VALUE)), "then the large list");
        assertEquals(-1, index.fit(101, 2, 127), "nothing up to the end of the class");
        assertEquals(-1, index.fit(9001, 2, Long.MAX_VALUE));
    }

    @Test
    void runsOfExactClassesAreFoundByPositionButNeverOfferedAsAFit() {
        FreeRunIndex index = index();
        index.add(1 << 20, 20, 8);
        assertEquals(-1, index.fit(20, 2, Long.MAX_VALUE));
        assertEquals(-1, index.fit(10, 2, Long.MAX_VALUE));
        int id = index.find(1 << 20);
        assertEquals(20, index.blocks(id));
        assertEquals(id, index.findEndingAt((1 << 20) + (20 << SHIFT)), "the run that ends where a freed one begins");
        assertEquals(-1, index.findEndingAt((1 << 20) + (19 << SHIFT)));
    }

    @Test
    void aRemovedRunIsGoneFromEveryTableAndItsSuccessorTakesItsLink() {
        FreeRunIndex index = index();
        long head = 4096;
        long a = 1 << 20;
        long b = 2 << 20;
        index.add(b, 60, head);
        index.add(a, 60, head);
        index.relink(b, a + HeapLayout.RUN_NEXT);   // a was pushed in front of b
        assertEquals(a + HeapLayout.RUN_NEXT, index.link(index.find(b)));
        index.remove(index.find(a));
        index.relink(b, head);
        assertEquals(-1, index.find(a));
        assertEquals(-1, index.findEndingAt(a + (60 << SHIFT)));
        assertEquals(head, index.link(index.find(b)));
        assertEquals(b, index.pos(index.fit(60, 2, Long.MAX_VALUE)), "the other run of that size is still offered");
        assertEquals(1, index.size());
    }

    /** Random adds and removals against a plain model: every table (and its deletions) stays right. */
    @Test
    void agreesWithAModelThroughGrowthAndRemovals() {
        FreeRunIndex index = index();
        Map<Long, Long> model = new HashMap<>();
        List<Long> positions = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 200_000; step++) {
            if (positions.isEmpty() || (random.nextInt(10) < 6 && positions.size() < 5000)) {
                long pos = (long) random.nextInt(1, 1 << 24) << 20;   // runs never overlap
                if (model.containsKey(pos)) {
                    continue;
                }
                long blocks = random.nextInt(4) == 0 ? random.nextInt(2, 33) : random.nextInt(33, 10_000);
                assertTrue(index.add(pos, blocks, pos ^ 1));
                model.put(pos, blocks);
                positions.add(pos);
            } else {
                int i = random.nextInt(positions.size());
                long pos = positions.get(i);
                positions.set(i, positions.getLast());
                positions.removeLast();
                index.remove(index.find(pos));
                model.remove(pos);
            }
            if (step % 97 == 0) {
                long want = random.nextInt(2, 9000);
                long best = Long.MAX_VALUE;
                for (long blocks : model.values()) {
                    if (blocks > SegmentLayout.EXACT_CLASSES && (blocks == want || blocks >= want + 2) && blocks < best) {
                        best = blocks;
                    }
                }
                int fit = index.fit(want, 2, Long.MAX_VALUE);
                if (best >= FreeRunIndex.LARGE && best != Long.MAX_VALUE) {
                    assertTrue(fit >= 0 && index.blocks(fit) >= FreeRunIndex.LARGE, "want=" + want);
                } else {
                    assertEquals(best, fit < 0 ? Long.MAX_VALUE : index.blocks(fit), "want=" + want);
                }
            }
        }
        assertEquals(model.size(), index.size());
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            int id = index.find(e.getKey());
            assertTrue(id >= 0);
            assertEquals(e.getValue(), index.blocks(id));
            assertEquals(e.getKey() ^ 1, index.link(id));
            assertEquals(id, index.findEndingAt(e.getKey() + (e.getValue() << SHIFT)));
        }
    }

    @Test
    void aRefusedGrowthFailsTheAdd() {
        long[] asked = {0};
        FreeRunIndex index = FreeRunIndex.create((i, bytes) -> asked[0]++ == 0, SHIFT);
        assertNotNull(index);
        long firstBytes = index.bytes();
        int added = 0;
        while (index.add((long) (added + 1) << 20, 100, 8)) {
            added++;
        }
        assertEquals(16, added, "the first arrays hold 16 runs; the 17th needs more room");
        assertEquals(firstBytes, index.bytes());
        assertFalse(index.add(1L << 40, 100, 8));
    }
}
