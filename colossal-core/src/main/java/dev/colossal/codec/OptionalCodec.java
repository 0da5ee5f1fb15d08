package dev.colossal.codec;

import java.util.Optional;

/**
 * An {@link Optional}: a presence byte, then the value if present.
 *
 * @param typeName the name in error messages
 * @param value    the present value's codec
 */
record OptionalCodec<T>(String typeName, WireCodec<T> value) implements WireCodec<Optional<T>> {

    static <T> OptionalCodec<T> of(WireCodec<T> value) {
        return new OptionalCodec<>("Optional<" + value.typeName() + ">", value);
    }

    @Override
    public long size(Optional<T> v) {
        return WireCodec.sizeNullable(value, v.orElse(null));
    }

    @Override
    public void write(Optional<T> v, Output out) {
        WireCodec.writeNullable(value, v.orElse(null), out);
    }

    @Override
    public Optional<T> read(Input in) {
        return Optional.ofNullable(WireCodec.readNullable(value, in));
    }

    @Override
    public String schema() {
        return "optional<" + value.schema() + ">";
    }
}
