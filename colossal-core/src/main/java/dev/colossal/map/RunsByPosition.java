package dev.colossal.map;

/**
 * {@link FreeRunIndex}'s runs by position: open addressing on a power-of-two array, positions
 * never 0 (the segment directory lies there), so that a lookup touches one slot of memory and
 * boxes nothing, where a {@code HashMap<Long, Run>} touched three.
 */
final class RunsByPosition {

    private static final int MIN_SLOTS = 64;

    private FreeRunIndex.Run[] slots = new FreeRunIndex.Run[MIN_SLOTS];
    private int size;

    int size() {
        return size;
    }

    void clear() {
        slots = new FreeRunIndex.Run[MIN_SLOTS];
        size = 0;
    }

    FreeRunIndex.Run get(long pos) {
        int mask = slots.length - 1;
        for (int i = slot(pos, mask); ; i = (i + 1) & mask) {
            FreeRunIndex.Run r = slots[i];
            if (r == null || r.pos == pos) {
                return r;
            }
        }
    }

    /** Adds {@code r}, whose position is not in the table yet. */
    void put(FreeRunIndex.Run r) {
        if ((size + 1) * 2 > slots.length) {
            FreeRunIndex.Run[] old = slots;
            slots = new FreeRunIndex.Run[old.length * 2];
            for (FreeRunIndex.Run o : old) {
                if (o != null) {
                    insert(o);
                }
            }
        }
        insert(r);
        size++;
    }

    private void insert(FreeRunIndex.Run r) {
        int mask = slots.length - 1;
        int i = slot(r.pos, mask);
        while (slots[i] != null) {
            i = (i + 1) & mask;
        }
        slots[i] = r;
    }

    /** Removes the run at {@code pos}, moving later runs of its probe chain back so that every lookup still finds them. */
    void remove(long pos) {
        int mask = slots.length - 1;
        int i = slot(pos, mask);
        while (slots[i] != null && slots[i].pos != pos) {
            i = (i + 1) & mask;
        }
        if (slots[i] == null) {
            return;
        }
        size--;
        for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int home = slot(slots[j].pos, mask);
            // slots[j] may move to the hole at i unless its home lies cyclically in (i, j].
            boolean stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!stays) {
                slots[i] = slots[j];
                i = j;
            }
        }
        slots[i] = null;
    }

    private static int slot(long pos, int mask) {
        long h = pos * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 32) & mask;
    }
}
