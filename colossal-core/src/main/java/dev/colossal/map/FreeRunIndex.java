package dev.colossal.map;

import java.util.Arrays;

/**
 * This process's copy of a segment's free lists: for each free run, its position, its blocks and
 * the position of the link that points at it (a list head in the segment header, or the {@code
 * nextFree} word of the run before it). It answers in a look or two what the lists answer only by
 * a walk of runs in the mapped file, a cache miss each: the smallest run that fits a size, which
 * link to rewrite to unlink a given run, and which run ends where a freed one begins (the lists
 * cannot say that at all). Runs of the exact classes (up to {@link SegmentLayout#EXACT_CLASSES}
 * blocks) are held for the last two only: their own list gives an exact fit in one look.
 *
 * <p>A hint only: {@link SegmentHeap} checks every run it names in the file before using it.
 *
 * <p>Storage, sized to the runs held and grown by doubling, each growth first granted by an
 * {@link Allowance} (the map-wide {@link FitBudget}):
 *
 * <pre>
 *  runs (long[], 4 longs a run, one run in half a cache line):
 *   0         8          16         24                      32
 *   +---------+----------+----------+-----------+-----------+
 *   | pos     | link     | blocks   | prev id   | next id   |   ids of the runs of the same
 *   | 0=unused| position |          | (high 32) | (low 32)  |   size (or of the large list)
 *   +---------+----------+----------+-----------+-----------+
 *  slots (int[]): open addressing from a position to its run id + 1 (0 = empty)
 *  ends (int[]): the same from the position where a run ends
 *  heads (long[]): open addressing from a size below LARGE to (size &lt;&lt; 32 | first run id + 1)
 *  present (long[LARGE / 64]): a bit per size below LARGE that has a run, for the next size up
 * </pre>
 *
 * Runs of {@link #LARGE} blocks or more share one list, searched for a fit up to {@link
 * #LARGE_TRIES} runs. Not thread-safe: used under the segment's lock.
 */
final class FreeRunIndex {

    /** Grants memory for a growth of an index; false refuses it. */
    interface Allowance {
        boolean grant(FreeRunIndex index, long bytes);
    }

    /** Runs of this many blocks or more are on the one large list (64 KiB with 8-byte blocks). */
    static final int LARGE = 8192;
    /** Runs of the large list looked at for a fit: they are few, and any of them fits most entries. */
    static final int LARGE_TRIES = 64;

    private static final int POS = 0;
    private static final int LINK = 1;
    private static final int BLOCKS = 2;
    private static final int LINKS = 3;
    private static final int STRIDE = 4;
    private static final int NONE = -1;
    private static final int FIRST_RUNS = 16;

    private final Allowance allowance;
    private final int shift;
    private long[] runs;
    private int[] slots;
    private int[] ends;
    private long[] heads;
    private final long[] present = new long[LARGE / 64];
    /** Ids never used yet start here; freed ids are chained through their next field from {@link #freeIds}. */
    private int nextId;
    private int freeIds = NONE;
    private int count;
    private int headCount;
    private int large = NONE;
    /** Java heap this index holds, as granted. */
    private long bytes;
    /** Set by the budget when it takes this index's memory back; the owner then stops using it. */
    volatile boolean evicted;
    /** The budget's clock at this index's last use: the smallest is the coldest. */
    long lastUse;
    /** What the {@link FitBudget} counts this index as holding; written under the budget's lock. */
    long charged;

    private FreeRunIndex(Allowance allowance, int shift) {
        this.allowance = allowance;
        this.shift = shift;
    }

    /** A new empty index for blocks of {@code 1 << shift} bytes, or null if {@code allowance} refuses its first arrays. */
    static FreeRunIndex create(Allowance allowance, int shift) {
        FreeRunIndex index = new FreeRunIndex(allowance, shift);
        long first = (long) FIRST_RUNS * STRIDE * Long.BYTES + 4L * FIRST_RUNS * Integer.BYTES
                + (long) FIRST_RUNS * Long.BYTES + (long) index.present.length * Long.BYTES + 64;
        if (!allowance.grant(index, first)) {
            return null;
        }
        index.bytes = first;
        index.runs = new long[FIRST_RUNS * STRIDE];
        index.slots = new int[2 * FIRST_RUNS];
        index.ends = new int[2 * FIRST_RUNS];
        index.heads = new long[FIRST_RUNS];
        return index;
    }

    /** Runs held. */
    int size() {
        return count;
    }

    /** Java heap held, in bytes, as granted by the allowance. */
    long bytes() {
        return bytes;
    }

    /**
     * Adds the run at {@code pos} of {@code blocks} whose link is at {@code link}; false if the
     * allowance refused the room for it (the index is then incomplete and must be dropped).
     */
    boolean add(long pos, long blocks, long link) {
        if (!makeRoom()) {
            return false;
        }
        int id;
        if (freeIds != NONE) {
            id = freeIds;
            freeIds = next(id);
        } else {
            id = nextId++;
        }
        int r = id * STRIDE;
        runs[r + POS] = pos;
        runs[r + LINK] = link;
        runs[r + BLOCKS] = blocks;
        insertSlot(slots, id, false);
        insertSlot(ends, id, true);
        if (blocks > SegmentLayout.EXACT_CLASSES) {
            pushSize(id, blocks);
        }
        count++;
        return true;
    }

    /** The id of the run at {@code pos}, or -1 if the index does not hold it. */
    int find(long pos) {
        return lookUp(slots, pos, false);
    }

    /** The id of the run that ends where {@code pos} begins, or -1 if the index holds none. */
    int findEndingAt(long pos) {
        return lookUp(ends, pos, true);
    }

    private int lookUp(int[] table, long key, boolean byEnd) {
        int mask = table.length - 1;
        for (int i = hash(key, mask); ; i = (i + 1) & mask) {
            int s = table[i];
            if (s == 0) {
                return NONE;
            }
            if (key(s - 1, byEnd) == key) {
                return s - 1;
            }
        }
    }

    /** Where run {@code id} begins, or where it ends. */
    private long key(int id, boolean byEnd) {
        long pos = runs[id * STRIDE + POS];
        return byEnd ? pos + (runs[id * STRIDE + BLOCKS] << shift) : pos;
    }

    long pos(int id) {
        return runs[id * STRIDE + POS];
    }

    long blocks(int id) {
        return runs[id * STRIDE + BLOCKS];
    }

    long link(int id) {
        return runs[id * STRIDE + LINK];
    }

    /** Records that the run at {@code pos}, if held, is now pointed at by the link at {@code link}. */
    void relink(long pos, long link) {
        int id = find(pos);
        if (id != NONE) {
            runs[id * STRIDE + LINK] = link;
        }
    }

    /** Forgets run {@code id}. */
    void remove(int id) {
        if (blocks(id) > SegmentLayout.EXACT_CLASSES) {
            unlinkSize(id);
        }
        deleteSlot(slots, id, false);
        deleteSlot(ends, id, true);
        runs[id * STRIDE + POS] = 0;
        setNext(id, freeIds);
        freeIds = id;
        count--;
    }

    /**
     * The id of the smallest run of {@code blocks} or of at least {@code blocks + minRest} and at
     * most {@code most} blocks (so that a split leaves nothing or a hole that can hold a run), or
     * -1 if there is none. Among runs of one size, the latest added.
     */
    int fit(long blocks, long minRest, long most) {
        if (blocks < LARGE) {
            if (has((int) blocks)) {
                return headOf((int) blocks);
            }
            long from = blocks + minRest;
            if (from < LARGE && from <= most) {
                int size = nextPresent((int) from);
                if (size != NONE && size <= most) {
                    return headOf(size);
                }
            }
        }
        if (most < LARGE) {
            return NONE;
        }
        int best = NONE;
        long bestBlocks = Long.MAX_VALUE;
        int t = 0;
        for (int id = large; id != NONE && t < LARGE_TRIES; id = next(id), t++) {
            long b = blocks(id);
            if ((b == blocks || b >= blocks + minRest) && b <= most && b < bestBlocks) {
                best = id;
                bestBlocks = b;
            }
        }
        return best;
    }

    // ------------------------------------------------------------------ size lists

    private void pushSize(int id, long blocks) {
        int first = blocks >= LARGE ? large : headOf((int) blocks);
        setLinks(id, NONE, first);
        if (first != NONE) {
            setPrev(first, id);
        }
        setFirst(blocks, id);
    }

    private void unlinkSize(int id) {
        int prev = prev(id);
        int next = next(id);
        if (prev != NONE) {
            setNext(prev, next);
        } else {
            setFirst(blocks(id), next);
        }
        if (next != NONE) {
            setPrev(next, prev);
        }
    }

    /** Makes {@code id} (or nothing, if -1) the first run of the size list of {@code blocks}. */
    private void setFirst(long blocks, int id) {
        if (blocks >= LARGE) {
            large = id;
            return;
        }
        int size = (int) blocks;
        int mask = heads.length - 1;
        int i = hash(size, mask);
        while (heads[i] != 0 && (int) (heads[i] >>> 32) != size) {
            i = (i + 1) & mask;
        }
        if (id == NONE) {
            if (heads[i] != 0) {
                deleteHead(i);
                headCount--;
                present[size >>> 6] &= ~(1L << size);
            }
            return;
        }
        if (heads[i] == 0) {
            headCount++;
            present[size >>> 6] |= 1L << size;
        }
        heads[i] = (long) size << 32 | (id + 1);
    }

    private int headOf(int size) {
        int mask = heads.length - 1;
        for (int i = hash(size, mask); heads[i] != 0; i = (i + 1) & mask) {
            if ((int) (heads[i] >>> 32) == size) {
                return (int) heads[i] - 1;
            }
        }
        return NONE;
    }

    private boolean has(int size) {
        return (present[size >>> 6] & 1L << size) != 0;
    }

    /** The least size of at least {@code from} (below {@link #LARGE}) that has a run, or -1. */
    private int nextPresent(int from) {
        int w = from >>> 6;
        long bits = present[w] & -1L << from;
        while (bits == 0) {
            if (++w == present.length) {
                return NONE;
            }
            bits = present[w];
        }
        return w << 6 | Long.numberOfTrailingZeros(bits);
    }

    private int prev(int id) {
        return (int) (runs[id * STRIDE + LINKS] >> 32);
    }

    private int next(int id) {
        return (int) runs[id * STRIDE + LINKS];
    }

    private void setLinks(int id, int prev, int next) {
        runs[id * STRIDE + LINKS] = (long) prev << 32 | (next & 0xFFFFFFFFL);
    }

    private void setPrev(int id, int prev) {
        setLinks(id, prev, next(id));
    }

    private void setNext(int id, int next) {
        setLinks(id, prev(id), next);
    }

    // ------------------------------------------------------------------ hashing

    private static int hash(long key, int mask) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }

    private void insertSlot(int[] table, int id, boolean byEnd) {
        int mask = table.length - 1;
        int i = hash(key(id, byEnd), mask);
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = id + 1;
    }

    /** Takes run {@code id} out of {@code table}, moving later entries of its probe run back so that every one stays findable. */
    private void deleteSlot(int[] table, int id, boolean byEnd) {
        int mask = table.length - 1;
        int i = hash(key(id, byEnd), mask);
        while (table[i] != id + 1) {
            i = (i + 1) & mask;
        }
        for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
            int home = hash(key(table[j] - 1, byEnd), mask);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                table[i] = table[j];
                i = j;
            }
        }
        table[i] = 0;
    }

    /** As {@link #deleteSlot}, for the heads table. */
    private void deleteHead(int i) {
        int mask = heads.length - 1;
        for (int j = (i + 1) & mask; heads[j] != 0; j = (j + 1) & mask) {
            int home = hash((int) (heads[j] >>> 32), mask);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                heads[i] = heads[j];
                i = j;
            }
        }
        heads[i] = 0;
    }

    /** Grows whatever one more run (and one more size) would overfill; false if refused. */
    private boolean makeRoom() {
        boolean runsFull = freeIds == NONE && nextId * STRIDE == runs.length;
        boolean slotsFull = 2 * (count + 1) > slots.length;
        boolean headsFull = 2 * (headCount + 1) > heads.length;
        if (!runsFull && !slotsFull && !headsFull) {
            return true;
        }
        long more = (runsFull ? (long) runs.length * Long.BYTES : 0) + (slotsFull ? 2L * slots.length * Integer.BYTES : 0)
                + (headsFull ? (long) heads.length * Long.BYTES : 0);
        if (evicted || !allowance.grant(this, more)) {
            return false;
        }
        bytes += more;
        if (runsFull) {
            runs = Arrays.copyOf(runs, 2 * runs.length);
        }
        if (slotsFull) {
            slots = new int[2 * slots.length];
            ends = new int[slots.length];
            for (int id = 0; id < nextId; id++) {
                if (runs[id * STRIDE + POS] != 0) {
                    insertSlot(slots, id, false);
                    insertSlot(ends, id, true);
                }
            }
        }
        if (headsFull) {
            long[] old = heads;
            heads = new long[2 * old.length];
            int mask = heads.length - 1;
            for (long h : old) {
                if (h != 0) {
                    int i = hash((int) (h >>> 32), mask);
                    while (heads[i] != 0) {
                        i = (i + 1) & mask;
                    }
                    heads[i] = h;
                }
            }
        }
        return true;
    }
}
