package dev.colossal.struct;

import java.lang.foreign.MemorySegment;

/**
 * The base of every generated flyweight: a view of one struct at an offset of a segment, which is
 * moved rather than re-created, so reading and writing a million structs allocates nothing.
 * A flyweight is not thread-safe: give each thread its own (they are cheap).
 *
 * <p>A fresh flyweight points at {@link MemorySegment#NULL}, so any access before the first
 * {@link #moveTo} (or {@code StructArray.at}) fails with an {@link IndexOutOfBoundsException} on
 * that segment ({@code address: 0x0, byteSize: 0}); its {@link #toString} says that it points
 * nowhere. (A handler in each accessor that said so in the exception made C2 compile some struct
 * writes to four times the instructions, so the accessors stay as they are.) Once positioned,
 * {@link #toString} shows the struct's type and the values of its fields.
 */
public abstract class Flyweight {

    /** Names of the methods here, which a struct interface must not declare. */
    static final java.util.Set<String> RESERVED = java.util.Set.of("moveTo", "baseSegment", "baseOffset");

    MemorySegment segment = MemorySegment.NULL;
    long offset;
    final Flyweight[] children;
    /** The struct type, set once when the flyweight is made; only {@link #toString} reads it. */
    StructType<?> type;

    /**
     * Called by generated subclasses only. It is protected, not package-private, because a subclass
     * lives in the struct interface's own package when Colossal's class loader cannot see the interface
     * (the source launcher, plugin and application-server loaders).
     *
     * @param children the flyweights of the nested struct fields, in field order
     */
    protected Flyweight(Flyweight[] children) {
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

    /**
     * Moves a nested struct's flyweight to its field, for generated getters.
     *
     * @param index       the nested field's flyweight, in field order
     * @param fieldOffset the field's offset in this struct
     * @return the nested flyweight, at the field
     */
    protected final Flyweight child(int index, long fieldOffset) {
        return children[index].moveTo(segment, offset + fieldOffset);
    }

    /**
     * Reads a {@link Length} string field, for generated getters.
     *
     * @param fieldOffset the field's offset in this struct
     * @param length      the field's length in bytes
     * @return the string up to the first zero byte
     */
    protected final String string(long fieldOffset, int length) {
        return StructStrings.get(segment, offset + fieldOffset, length);
    }

    /**
     * Writes a {@link Length} string field, for generated setters.
     *
     * @param fieldOffset the field's offset in this struct
     * @param length      the field's length in bytes
     * @param value       the string
     * @param field       the field's name, for the message when the value does not fit
     */
    protected final void string(long fieldOffset, int length, String value, String field) {
        StructStrings.set(segment, offset + fieldOffset, length, value, field);
    }

    /**
     * Returns the struct's type and the values of its fields where the flyweight points, e.g.
     * {@code Tick[bid=[0, 0, 42, 0], price=101.25, time=1700000000123, symbol="EURUSD"]} (fields in
     * layout order), or a note that it points nowhere or at memory it cannot read.
     *
     * @return the text
     */
    @Override
    public String toString() {
        return type == null ? super.toString() : type.text(segment, offset);
    }
}
