package dev.colossal.struct;

import java.lang.foreign.MemorySegment;

/**
 * The base of every generated flyweight: a view of one struct at an offset of a segment, which is
 * moved rather than re-created, so reading and writing a million structs allocates nothing.
 * A flyweight is not thread-safe: give each thread its own (they are cheap).
 *
 * <p>A fresh flyweight points at {@link MemorySegment#NULL}, so any access before the first
 * {@link #moveTo} fails with an {@link IndexOutOfBoundsException}.
 */
public abstract class Flyweight {

    /** Names of the methods here, which a struct interface must not declare. */
    static final java.util.Set<String> RESERVED = java.util.Set.of("moveTo", "baseSegment", "baseOffset");

    MemorySegment segment = MemorySegment.NULL;
    long offset;
    final Flyweight[] children;

    Flyweight(Flyweight[] children) {
        this.children = children;
    }

    /**
     * Points this flyweight at the struct that starts at {@code offset} of {@code segment}. Nothing
     * is checked here: each access checks its own bounds and alignment.
     *
     * @param segment the segment holding the struct
     * @param offset  the struct's first byte, aligned to the struct's alignment
     * @return this flyweight
     */
    public final Flyweight moveTo(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /**
     * Returns the segment this flyweight points into.
     *
     * @return the segment
     */
    public final MemorySegment baseSegment() {
        return segment;
    }

    /**
     * Returns the offset of the struct this flyweight points at.
     *
     * @return the offset in bytes
     */
    public final long baseOffset() {
        return offset;
    }
}
