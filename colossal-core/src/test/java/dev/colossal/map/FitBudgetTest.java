package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The map-wide bound on the free-run indexes: what it grants, whom it takes memory from. */
class FitBudgetTest {

    private static final int SHIFT = 3;

    /** Bytes of an index that holds nothing yet. */
    private static long emptyIndexBytes() {
        FreeRunIndex index = FreeRunIndex.create((i, b) -> true, SHIFT);
        assertNotNull(index);
        return index.bytes();
    }

    @Test
    void aNewIndexTakesTheRoomOfAColdOneButNeverOfAHotOne() {
        long empty = emptyIndexBytes();
        FitBudget budget = new FitBudget(3 * empty);
        List<FreeRunIndex> evicted = new ArrayList<>();
        FreeRunIndex a = budget.open(evicted::add, SHIFT);
        FreeRunIndex b = budget.open(evicted::add, SHIFT);
        FreeRunIndex c = budget.open(evicted::add, SHIFT);
        assertEquals(3 * empty, budget.usedBytes());
        assertNull(budget.open(evicted::add, SHIFT), "all three were just used");
        FreeRunIndex d = null;
        for (int attempt = 0; attempt < 10 && d == null; attempt++) {
            budget.touch(a);
            budget.touch(c);
            d = budget.open(evicted::add, SHIFT);
        }
        assertNotNull(d, "b, unused while the others were, went cold");
        assertEquals(List.of(b), evicted);
        assertTrue(b.evicted);
        assertFalse(a.evicted || c.evicted || d.evicted);
        assertEquals(3 * empty, budget.usedBytes());
        assertEquals(3, budget.indexes());
    }

    @Test
    void anIndexGrowsByTakingAColdOneAndIsRefusedWhenItAloneWouldPassTheLimit() {
        long empty = emptyIndexBytes();
        FitBudget budget = new FitBudget(4 * empty);
        List<FreeRunIndex> evicted = new ArrayList<>();
        FreeRunIndex other = budget.open(evicted::add, SHIFT);
        FreeRunIndex growing = budget.open(evicted::add, SHIFT);
        int added = 0;
        while (growing.add((long) (added + 1) << 20, 100, 8)) {
            added++;
            assertTrue(budget.usedBytes() <= budget.limit(), "used=" + budget.usedBytes());
        }
        assertEquals(List.of(other), evicted, "the other index, unused since, went first");
        assertTrue(growing.evicted, "then the growing one itself, refused");
        assertTrue(added > 16, "it grew past its first arrays: added=" + added);
        assertEquals(0, budget.usedBytes());
        assertEquals(0, budget.indexes());
    }

    @Test
    void aBudgetSmallerThanOneIndexOpensNone() {
        FitBudget budget = new FitBudget(emptyIndexBytes() - 1);
        assertNull(budget.open(index -> { }, SHIFT));
        assertEquals(0, budget.usedBytes());
    }

    @Test
    void releaseGivesTheBytesBackOnce() {
        FitBudget budget = new FitBudget(1 << 20);
        FreeRunIndex a = budget.open(index -> { }, SHIFT);
        long held = budget.usedBytes();
        assertTrue(held > 0);
        budget.release(a);
        budget.release(a);
        assertEquals(0, budget.usedBytes());
        assertTrue(a.evicted);
    }

    @Test
    void theLimitFollowsTheFileBetweenItsFloorAndItsCeiling() {
        long empty = emptyIndexBytes();
        long[] file = {0};
        FitBudget budget = new FitBudget(2 * empty, 8 * empty, () -> file[0]);
        assertEquals(2 * empty, budget.limit(), "a small file gets the floor");
        List<FreeRunIndex> evicted = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            assertNotNull(budget.open(evicted::add, SHIFT));
        }
        assertNull(budget.open(evicted::add, SHIFT), "both hot, no room");
        file[0] = (4 * empty) << FitBudget.FILE_SHARE;
        assertEquals(4 * empty, budget.limit());
        for (int i = 0; i < 2; i++) {
            assertNotNull(budget.open(evicted::add, SHIFT), "the grown file makes room");
        }
        assertEquals(List.of(), evicted, "without taking the first two's");
        assertEquals(4 * empty, budget.usedBytes());
        file[0] = Long.MAX_VALUE;
        assertEquals(8 * empty, budget.limit(), "however big the file, the ceiling");
    }
}
