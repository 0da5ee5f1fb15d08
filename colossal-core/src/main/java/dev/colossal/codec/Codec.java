package dev.colossal.codec;

import java.lang.foreign.MemorySegment;

/**
 * Turns values of one type into bytes in a {@link MemorySegment} and back.
 *
 * <p>Implementations are immutable and thread-safe. {@link #encodedSize} is exact: {@link #encode}
 * writes exactly that many bytes, so callers size the target once and never copy.
 *
 * @param <T> the type of the values
 */
public interface Codec<T> {

    /**
     * Returns the exact number of bytes {@link #encode} writes for this value.
     *
     * @param value the value, which may be {@code null} only if the codec supports nulls
     * @return the encoded size in bytes
     */
    long encodedSize(T value);

    /**
     * Writes the value into {@code target} starting at {@code offset}.
     *
     * @param value  the value
     * @param target the segment to write into
     * @param offset where the first byte goes
     * @return the offset just past the last byte written ({@code offset + encodedSize(value)})
     * @throws IndexOutOfBoundsException if the target is too small
     */
    long encode(T value, MemorySegment target, long offset);

    /**
     * Reads a value from a slice that holds exactly one encoded value.
     *
     * @param source the encoded bytes, and nothing else
     * @return the decoded value
     * @throws CodecException if the bytes are not a valid encoding of this codec's type
     */
    T decode(MemorySegment source);
}
