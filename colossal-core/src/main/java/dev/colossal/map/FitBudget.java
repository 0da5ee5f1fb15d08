package dev.colossal.map;

import java.util.ArrayList;
import java.util.List;

/**
 * The Java heap that the {@link FreeRunIndex}es of one open map may hold together, whatever its
 * segment count: an off-heap map must not keep a copy of its free lists per segment on the heap.
 * A growth beyond it takes the memory of cold indexes (see {@link #grant}), whose segments then
 * find fits by walking their lists, as without an index; if there are none, the index that asked
 * is refused and dropped. {@link #DEFAULT_BYTES} holds ~55k runs: the free runs of about 250 MB of
 * KiB-sized entries (64 segments of 100k entries of 500-4000 bytes held 48k runs in 3.4 MB).
 *
 * <p>Indexes are used under their segment's lock, while the budget serves every segment: an
 * evicted index is flagged ({@link FreeRunIndex#evicted}) and its owner told to let it go, and the
 * owner checks the flag before each use, so its memory is freed once the operation in flight
 * ends.
 */
final class FitBudget implements FreeRunIndex.Allowance {

    /** What an open map's indexes hold at most by default. */
    static final long DEFAULT_BYTES = 4L << 20;

    /** Told to let an evicted index go. */
    interface Owner {
        void evicted(FreeRunIndex index);
    }

    private final long limit;
    private long used;
    /** Moves on at every grant asked for: the stamp of an index's use, so the least stamp is the coldest. */
    private volatile long clock;
    private final List<FreeRunIndex> held = new ArrayList<>();
    private final List<Owner> owners = new ArrayList<>();

    FitBudget(long limit) {
        this.limit = limit;
    }

    /** Bytes all live indexes hold. */
    synchronized long usedBytes() {
        return used;
    }

    long limit() {
        return limit;
    }

    /** Live indexes. */
    synchronized int indexes() {
        return held.size();
    }

    /** Stamps {@code index} as used now. */
    void touch(FreeRunIndex index) {
        index.lastUse = clock;
    }

    /**
     * Creates an index for {@code owner}'s blocks of {@code 1 << shift} bytes, or returns null if the budget cannot make room for one.
     */
    FreeRunIndex open(Owner owner, int shift) {
        FreeRunIndex index = FreeRunIndex.create(this, shift);
        if (index == null) {
            return null;
        }
        synchronized (this) {
            if (index.evicted) {
                return null;   // taken back between its first grant and now
            }
            owners.set(held.indexOf(index), owner);
        }
        return index;
    }

    /**
     * Grants {@code bytes} more to {@code index} (a new one, or a growth), taking the memory of
     * cold indexes if need be: those not used during the last grants, as many as there are
     * indexes. Hot ones are never taken: with every segment busy, taking one's index for another
     * only to have it taken back later costs both a walk of all their runs for nothing, so the
     * newcomer is refused instead and its segment walks its lists as it would without an index.
     */
    @Override
    public synchronized boolean grant(FreeRunIndex index, long bytes) {
        clock++;
        if (index.evicted) {
            return false;
        }
        while (used + bytes > limit) {
            int coldest = -1;
            for (int i = 0; i < held.size(); i++) {
                if (held.get(i) != index && (coldest < 0 || held.get(i).lastUse < held.get(coldest).lastUse)) {
                    coldest = i;
                }
            }
            if (coldest < 0 || held.get(coldest).lastUse >= clock - held.size()) {
                release(index);
                return false;
            }
            FreeRunIndex victim = held.get(coldest);
            Owner owner = owners.get(coldest);
            release(victim);
            if (owner != null) {
                owner.evicted(victim);
            }
        }
        if (index.charged == 0) {
            held.add(index);
            owners.add(null);
        }
        used += bytes;
        index.charged += bytes;
        index.lastUse = clock;
        return true;
    }

    /** Takes back what {@code index} holds; it must not be used after. */
    synchronized void release(FreeRunIndex index) {
        if (index.evicted) {
            return;
        }
        index.evicted = true;
        int i = held.indexOf(index);
        if (i >= 0) {
            used -= index.charged;
            held.remove(i);
            owners.remove(i);
        }
    }
}
