package dev.colossal.map;

import java.util.Arrays;

/**
 * This process's copy, in memory, of one segment's free lists (see {@link HeapLayout}): each run
 * by its position, with its neighbours in its list and, in the classes that hold runs of many
 * sizes, in one of {@value #BUCKETS} buckets of nearly equal sizes. The lists in the file stay
 * the truth; {@link SegmentHeap} changes both alike under the segment's lock, and drops this copy
 * whenever the file may have changed without it. With it a put finds a close fit in a class, and
 * the run a freed one can join, without following links through the file (a cache miss each:
 * ~30% of a put of 1-4 KiB values of many sizes went to those walks).
 */
final class FreeRunIndex {

    /** Buckets a class of many sizes is cut into: a power-of-two class's sizes in 64 equal steps. */
    static final int BUCKETS = 64;
    /** Runs of a bucket looked at for a fit before the next bucket is tried. */
    private static final int BUCKET_TRIES = 8;

    /** A free run as the file's list holds it. */
    static final class Run {
        long pos;
        int blocks;
        int freeClass;
        /** Neighbours in the file's list. */
        Run prev;
        Run next;
        /** Neighbours in its bucket (classes of many sizes only). */
        Run bucketPrev;
        Run bucketNext;

        private Run set(long pos, int blocks, int freeClass) {
            this.pos = pos;
            this.blocks = blocks;
            this.freeClass = freeClass;
            prev = null;
            next = null;
            bucketPrev = null;
            bucketNext = null;
            return this;
        }

        /** @return where the link to this run is in the file: the class's head, or the previous run's link */
        long linkAt(long segmentBase) {
            return prev == null ? segmentBase + SegmentLayout.freeHead(freeClass) : prev.pos + HeapLayout.RUN_NEXT;
        }

        /** @return the position of the run after this one in its list, 0 if it is the last */
        long nextPos() {
            return next == null ? 0 : next.pos;
        }
    }

    private final RunsByPosition byPos = new RunsByPosition();
    private final Run[] heads = new Run[SegmentLayout.FREE_CLASSES];
    private final Run[] tails = new Run[SegmentLayout.FREE_CLASSES];
    /** Per class of many sizes, {@value #BUCKETS} bucket heads, by class less {@link SegmentLayout#EXACT_CLASSES}. */
    private final Run[][] buckets = new Run[SegmentLayout.FREE_CLASSES - SegmentLayout.EXACT_CLASSES][];
    /** Per class of many sizes, which of its buckets hold a run (bit b for bucket b). */
    private final long[] filled = new long[SegmentLayout.FREE_CLASSES - SegmentLayout.EXACT_CLASSES];
    /**
     * Runs forgotten, linked by {@code next}, for the next runs recorded: a put or remove in a
     * steady state allocates nothing (RawAllocationTest).
     */
    private Run spare;

    private Run newRun(long pos, int blocks, int freeClass) {
        Run r = spare;
        if (r == null) {
            r = new Run();
        } else {
            spare = r.next;
        }
        return r.set(pos, blocks, freeClass);
    }

    int size() {
        return byPos.size();
    }

    void clear() {
        if (byPos.size() == 0) {
            return;
        }
        byPos.clear();
        spare = null;
        Arrays.fill(heads, null);
        Arrays.fill(tails, null);
        Arrays.fill(buckets, null);
        Arrays.fill(filled, 0);
    }

    /** @return the run at {@code pos}, or null if no list holds one there */
    Run at(long pos) {
        return byPos.get(pos);
    }

    /** Adds a run read from the file after the last one of its list; false if one is there already (a cycle). */
    boolean append(long pos, int blocks, int freeClass) {
        if (byPos.get(pos) != null) {
            return false;
        }
        Run r = newRun(pos, blocks, freeClass);
        byPos.put(r);
        r.prev = tails[freeClass];
        if (r.prev == null) {
            heads[freeClass] = r;
        } else {
            r.prev.next = r;
        }
        tails[freeClass] = r;
        bucket(r);
        return true;
    }

    /** Records a run just made the head of its list. */
    void push(long pos, int blocks, int freeClass) {
        Run r = newRun(pos, blocks, freeClass);
        byPos.put(r);
        r.next = heads[freeClass];
        if (r.next == null) {
            tails[freeClass] = r;
        } else {
            r.next.prev = r;
        }
        heads[freeClass] = r;
        bucket(r);
    }

    /** Forgets a run just unlinked from its list. */
    void remove(Run r) {
        byPos.remove(r.pos);
        if (r.prev == null) {
            heads[r.freeClass] = r.next;
        } else {
            r.prev.next = r.next;
        }
        if (r.next == null) {
            tails[r.freeClass] = r.prev;
        } else {
            r.next.prev = r.prev;
        }
        if (!SegmentLayout.isExactClass(r.freeClass)) {
            int c = r.freeClass - SegmentLayout.EXACT_CLASSES;
            int b = bucketOf(r.blocks);
            if (r.bucketPrev == null) {
                buckets[c][b] = r.bucketNext;
                if (r.bucketNext == null) {
                    filled[c] &= ~(1L << b);
                }
            } else {
                r.bucketPrev.bucketNext = r.bucketNext;
            }
            if (r.bucketNext != null) {
                r.bucketNext.bucketPrev = r.bucketPrev;
            }
        }
        r.set(0, 0, 0).next = spare;
        spare = r;
    }

    /**
     * @return a run of class {@code c} to take {@code blocks} from: one of exactly that size if
     *     its bucket has one near its head, else the first that leaves at least {@code minRest}
     *     blocks over (a run of its own) in the lowest bucket that has one; null if none does
     */
    Run fit(int c, long blocks, long minRest) {
        if (SegmentLayout.isExactClass(c)) {
            Run head = heads[c];
            return head != null && (head.blocks == blocks || head.blocks >= blocks + minRest) ? head : null;
        }
        int ci = c - SegmentLayout.EXACT_CLASSES;
        int b = blocks < (1L << shiftOf(c)) ? 0 : Math.min(BUCKETS - 1, bucketOf(blocks));
        for (long mask = filled[ci] & (-1L << b); mask != 0; mask &= mask - 1) {
            Run fit = null;
            Run r = buckets[ci][Long.numberOfTrailingZeros(mask)];
            for (int t = 0; r != null && t < BUCKET_TRIES; t++, r = r.bucketNext) {
                if (r.blocks == blocks) {
                    return r;
                }
                if (r.blocks >= blocks + minRest && (fit == null || r.blocks < fit.blocks)) {
                    fit = r;
                }
            }
            if (fit != null) {
                return fit;
            }
        }
        return null;
    }

    /** The power of two that a class of many sizes starts at (its runs are below twice that). */
    private static int shiftOf(int c) {
        return c - SegmentLayout.EXACT_CLASSES + 5;
    }

    /** The bucket of a run of {@code blocks} within its class: sizes cut into {@value #BUCKETS} steps. */
    private static int bucketOf(long blocks) {
        int k = 63 - Long.numberOfLeadingZeros(blocks);
        int step = Math.max(0, k - 6);
        return (int) ((blocks - (1L << k)) >>> step) & (BUCKETS - 1);
    }

    private void bucket(Run r) {
        if (SegmentLayout.isExactClass(r.freeClass)) {
            return;
        }
        int c = r.freeClass - SegmentLayout.EXACT_CLASSES;
        if (buckets[c] == null) {
            buckets[c] = new Run[BUCKETS];
        }
        int b = bucketOf(r.blocks);
        r.bucketNext = buckets[c][b];
        if (r.bucketNext != null) {
            r.bucketNext.bucketPrev = r;
        }
        buckets[c][b] = r;
        filled[c] |= 1L << b;
    }
}
