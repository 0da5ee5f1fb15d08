package dev.colossal.codec;

import java.lang.foreign.MemorySegment;

/**
 * Any codec's values or {@code null}: a presence byte, then the value if present.
 *
 * @param typeName the name in error messages
 * @param value    the present value's codec
 */
record NullableCodec<T>(String typeName, WireCodec<T> value) implements WireCodec<T> {

    static <T> NullableCodec<T> of(WireCodec<T> value) {
        return new NullableCodec<>(value.typeName() + "?", value);
    }

    // A null is a valid value here, so the public methods must not reject it.
    @Override
    public long encodedSize(T v) {
        return size(v);
    }

    @Override
    public long encode(T v, MemorySegment target, long offset) {
        return WireCodec.encode(this, v, target, offset);
    }

    @Override
    public long size(T v) {
        return WireCodec.sizeNullable(value, v);
    }

    @Override
    public void write(T v, Output out) {
        WireCodec.writeNullable(value, v, out);
    }

    @Override
    public T read(Input in) {
        return WireCodec.readNullable(value, in);
    }

    @Override
    public String schema() {
        return "nullable<" + value.schema() + ">";
    }
}
