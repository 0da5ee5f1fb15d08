package dev.colossal.server;

import dev.colossal.memory.SegmentBytes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An event loop's exact-size views of one small key buffer: a key cut from a request (in native
 * memory) is copied in and reaches the map as a segment of its own length without allocating one
 * per request. Used by
 * one thread at a time; a view is valid until the next {@link #of}.
 *
 * <p>The buffer is a heap array, like the keys of every other path: the map's hash then sees heap
 * and mapped segments only, and the JIT keeps its segment reads inlined for both.
 */
final class KeyViews {

    /** Longer keys get a slice of their own (allocated), as rare as they are costly to copy. */
    private static final int MAX = 256;

    private final byte[] bytes = new byte[MAX];
    private final MemorySegment buf = MemorySegment.ofArray(bytes);
    private final MemorySegment[] views = new MemorySegment[MAX + 1];

    /** @return a heap segment holding {@code b[at, at + n)} */
    MemorySegment of(MemorySegment b, int at, int n) {
        if (n > MAX) {
            return MemorySegment.ofArray(SegmentBytes.toArray(b, at, n));
        }
        MemorySegment v = views[n];
        if (v == null) {
            v = buf.asSlice(0, n);
            views[n] = v;
        }
        MemorySegment.copy(b, ValueLayout.JAVA_BYTE, at, bytes, 0, n);
        return v;
    }
}
