package dev.colossal.swap;

import java.util.Comparator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Space of one swap file in aligned extents: best fit from the free extents, else the end of the
 * file grows. Freed extents coalesce with free neighbours, and free space at the end of the file
 * gives the file back its bytes ({@link #end()} shrinks). Not thread-safe: the swap file guards it.
 *
 * <p>{@link #limit} is the most the file may grow to; it is also the test seam for a full swap
 * device: a limit smaller than the object makes {@link #allocate} report "no space" exactly as a
 * full disk would make the write fail.
 */
final class ExtentAllocator {

    record Extent(long offset, long length) {}

    private static final Comparator<Extent> BY_SIZE =
            Comparator.comparingLong(Extent::length).thenComparingLong(Extent::offset);

    private final long unit;
    private final long limit;
    private final TreeMap<Long, Long> freeByOffset = new TreeMap<>();
    private final NavigableSet<Extent> freeBySize = new TreeSet<>(BY_SIZE);
    private long end;
    private long used;

    ExtentAllocator(long unit, long limit) {
        this.unit = unit;
        this.limit = limit;
    }

    /** @return the offset of a free extent of {@code length} bytes (rounded up to the unit), or -1 if the limit forbids it */
    long allocate(long length) {
        long size = BlockLayout.roundUp(length, unit);
        Extent fit = freeBySize.ceiling(new Extent(Long.MIN_VALUE, size));
        if (fit != null) {
            removeFree(fit);
            if (fit.length > size) {
                addFree(fit.offset + size, fit.length - size);
            }
            used += size;
            return fit.offset;
        }
        if (end > limit - size) {
            return -1;
        }
        long offset = end;
        end += size;
        used += size;
        return offset;
    }

    /**
     * Gives an extent back, coalescing it with free neighbours.
     *
     * @return whether the end of the file moved back (the caller may truncate the file to {@link #end()})
     */
    boolean free(long offset, long length) {
        long size = BlockLayout.roundUp(length, unit);
        if (offset < 0 || offset + size > end || (offset & (unit - 1)) != 0) {
            throw new IllegalArgumentException("extent offset=" + offset + " length=" + length
                    + " does not lie in the file's allocated space (end=" + end + ")");
        }
        Map.Entry<Long, Long> before = freeByOffset.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() > offset) {
            throw new IllegalStateException("extent offset=" + offset + " is already free: freed twice");
        }
        used -= size;
        long start = offset;
        long stop = offset + size;
        if (before != null && before.getKey() + before.getValue() == offset) {
            removeFree(new Extent(before.getKey(), before.getValue()));
            start = before.getKey();
        }
        Long afterLength = freeByOffset.get(stop);
        if (afterLength != null) {
            removeFree(new Extent(stop, afterLength));
            stop += afterLength;
        }
        if (stop == end) {
            end = start;
            return true;
        }
        addFree(start, stop - start);
        return false;
    }

    /** Marks an extent as used while rebuilding from a catalog; extents must come in increasing order. */
    void reserve(long offset, long length) {
        long size = BlockLayout.roundUp(length, unit);
        if (offset < end) {
            throw new IllegalArgumentException("extent offset=" + offset + " overlaps the one before it (ends at "
                    + end + ")");
        }
        if (offset > end) {
            addFree(end, offset - end);
        }
        end = offset + size;
        used += size;
    }

    private void addFree(long offset, long length) {
        freeByOffset.put(offset, length);
        freeBySize.add(new Extent(offset, length));
    }

    private void removeFree(Extent e) {
        freeByOffset.remove(e.offset);
        freeBySize.remove(e);
    }

    /** @return the file's length as the allocator sees it: the end of the last used extent */
    long end() {
        return end;
    }

    /** @return bytes in used extents */
    long usedBytes() {
        return used;
    }

    /** @return bytes in free extents below {@link #end()} */
    long freeBytes() {
        return end - used;
    }

    /** @return the number of free extents (1 after any amount of freeing of neighbours) */
    int freeExtents() {
        return freeByOffset.size();
    }
}
