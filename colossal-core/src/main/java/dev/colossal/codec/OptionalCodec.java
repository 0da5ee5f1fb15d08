package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** An {@link Optional}: a presence byte, then the value if present. */
final class OptionalCodec<T> extends AbstractCodec<Optional<T>> {

    private final AbstractCodec<T> value;

    OptionalCodec(AbstractCodec<T> value) {
        super("Optional<" + value.typeName() + ">");
        this.value = value;
    }

    @Override
    long size(Optional<T> v) {
        return sizeNullable(value, v.orElse(null));
    }

    @Override
    long write(Optional<T> v, MemorySegment s, long off) {
        return writeNullable(value, v.orElse(null), s, off);
    }

    @Override
    Optional<T> read(Input in) {
        return Optional.ofNullable(readNullable(value, in));
    }

    @Override
    String schema() {
        return "optional<" + value.schema() + ">";
    }
}
