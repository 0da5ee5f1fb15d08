package dev.colossal.array;

import java.util.Spliterator;

/**
 * The splitting half of the primitive spliterators: a range {@code [index, end)} of an array that
 * splits on chunk boundaries, so that each parallel task walks whole chunks of its own.
 */
abstract class ChunkSpliterator {

    /** Below this many elements a range is not worth a task of its own. */
    static final long MIN_SPLIT = 4096;

    final BigArray array;
    long index;
    final long end;

    ChunkSpliterator(BigArray array, long index, long end) {
        this.array = array;
        this.index = index;
        this.end = end;
    }

    /** @return where to split {@code [index, end)}, or -1 to not split */
    final long splitPoint() {
        long n = end - index;
        if (n < 2 * MIN_SPLIT) {
            return -1;
        }
        long mid = index + n / 2;
        long perChunk = array.mask + 1;
        if (n > perChunk) {
            long boundary = mid & ~array.mask;
            if (boundary <= index) {
                boundary += perChunk;
            }
            if (boundary < end) {
                mid = boundary;
            }
        }
        return mid;
    }

    public final long estimateSize() {
        return end - index;
    }

    public final int characteristics() {
        return Spliterator.ORDERED | Spliterator.SIZED | Spliterator.SUBSIZED | Spliterator.NONNULL;
    }
}
