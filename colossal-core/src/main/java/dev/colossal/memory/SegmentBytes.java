package dev.colossal.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Copies a segment's bytes into a new {@code byte[]}: what {@code segment.toArray(JAVA_BYTE)} does,
 * for the hot paths that do it once per read or per command.
 *
 * <p>Why not {@code toArray}: JDK 25's computes the array class's simple name, for the message of
 * the error it throws when a segment is too big for an array, before it checks the size, so every
 * call asks {@code Class.getSimpleName()}, a reflection-data lookup. Under small pipelined commands
 * that lookup was about 1% of the server's CPU. {@link MemorySegment#copy(MemorySegment, ValueLayout,
 * long, Object, int, int)} into an array of the right length does the same copy without it.
 */
public final class SegmentBytes {

    private SegmentBytes() {}

    /**
     * @param source the bytes to copy
     * @return a new array holding all of {@code source}
     * @throws ArithmeticException if {@code source} is longer than an array can be
     */
    public static byte[] toArray(MemorySegment source) {
        return toArray(source, 0, Math.toIntExact(source.byteSize()));
    }

    /**
     * Copies {@code source[offset, offset + length)}, as {@code source.asSlice(offset,
     * length).toArray(JAVA_BYTE)} would, without the slice.
     *
     * @param source the segment to copy from
     * @param offset where the bytes start in {@code source}
     * @param length how many bytes
     * @return a new array of {@code length} bytes
     * @throws IndexOutOfBoundsException if the range is not inside {@code source}
     */
    public static byte[] toArray(MemorySegment source, long offset, int length) {
        byte[] out = new byte[length];
        MemorySegment.copy(source, ValueLayout.JAVA_BYTE, offset, out, 0, length);
        return out;
    }
}
