package dev.colossal.map;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The Java heap that the {@link FreeRunIndex}es of one open map may hold together, whatever its
 * segment count: an off-heap map must not keep a copy of its free lists per segment on the heap.
 * A growth beyond it takes the memory of cold indexes (see {@link #grant}), whose segments then
 * find fits by walking their lists, as without an index; if there are none, the index that asked
 * is refused and dropped.
 *
 * <p>A map's budget grows with its file: {@link #FILE_SHARE} of the bytes allocated in it, at
 * least {@link #DEFAULT_BYTES} and at most {@link #MAX_BYTES}. Free runs come in proportion to
 * the file (64 segments of 100k entries of 500-4000 bytes held 48k runs, 3.4 MB of indexes, in a
 * 283 MB file: 1.2%), so a fixed amount would serve fewer of a growing map's segments: at 200k
 * such entries 4 MiB indexed 40 of 64 segments and the other 24 walked their lists.
 *
 * <p>Indexes are used under their segment's lock, while the budget serves every segment: an
 * evicted index is flagged ({@link FreeRunIndex#evicted}) and its owner told to let it go, and the
 * owner checks the flag before each use, so its memory is freed once the operation in flight
 * ends.
 */
final class FitBudget implements FreeRunIndex.Allowance {

    /** What an open map's indexes may hold however small its file: ~55k runs. */
    static final long DEFAULT_BYTES = 4L << 20;
    /** What they may hold however big its file. */
    static final long MAX_BYTES = 64L << 20;
    /** The share of the file's allocated bytes they may hold in between, as a right shift: 1/64. */
    static final int FILE_SHARE = 6;

    /** Told to let an evicted index go. */
    interface Owner {
        void evicted(FreeRunIndex index);
    }

    private final long floor;
    private final long ceiling;
    /** The bytes allocated in the map's file. */
    private final LongSupplier fileBytes;
    private long used;
    /** Moves on at every grant asked for: the stamp of an index's use, so the least stamp is the coldest. */
    private volatile long clock;
    private final List<FreeRunIndex> held = new ArrayList<>();
    private final List<Owner> owners = new ArrayList<>();

    /** A budget of exactly {@code limit} bytes (tests). */
    FitBudget(long limit) {
        this(limit, limit, () -> 0);
    }

    /** A budget of {@link #FILE_SHARE} of {@code fileBytes}, within {@code [floor, ceiling]}. */
    FitBudget(long floor, long ceiling, LongSupplier fileBytes) {
        this.floor = floor;
        this.ceiling = ceiling;
        this.fileBytes = fileBytes;
    }

    /** The budget of a map whose file has {@code fileBytes} allocated. */
    static FitBudget forFile(LongSupplier fileBytes) {
        return new FitBudget(DEFAULT_BYTES, MAX_BYTES, fileBytes);
    }

    /** Bytes all live indexes hold. */
    synchronized long usedBytes() {
        return used;
    }

    /** What the indexes may hold now. */
    long limit() {
        return Math.clamp(fileBytes.getAsLong() >>> FILE_SHARE, floor, ceiling);
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
        long limit = limit();
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
