package dev.colossal.codec;

import java.lang.foreign.MemorySegment;

/** Any codec's values or {@code null}: a presence byte, then the value if present. */
final class NullableCodec<T> extends AbstractCodec<T> {

    private final AbstractCodec<T> value;

    NullableCodec(AbstractCodec<T> value) {
        super(value.typeName() + "?");
        this.value = value;
    }

    // A null is a valid value here, so the public methods must not reject it.
    @Override
    public long encodedSize(T v) {
        return size(v);
    }

    @Override
    public long encode(T v, MemorySegment target, long offset) {
        return write(v, target, offset);
    }

    @Override
    long size(T v) {
        return sizeNullable(value, v);
    }

    @Override
    long write(T v, MemorySegment s, long off) {
        return writeNullable(value, v, s, off);
    }

    @Override
    T read(Input in) {
        return readNullable(value, in);
    }

    @Override
    String schema() {
        return "nullable<" + value.schema() + ">";
    }
}
