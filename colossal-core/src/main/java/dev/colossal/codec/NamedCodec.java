package dev.colossal.codec;

/**
 * A codec with a fixed name and no nested codecs: the built-ins, enums, and the generated codecs.
 *
 * @param <T> the type of the values
 */
abstract class NamedCodec<T> implements WireCodec<T> {

    private final String typeName;

    NamedCodec(String typeName) {
        this.typeName = typeName;
    }

    @Override
    public final String typeName() {
        return typeName;
    }

    @Override
    public String toString() {
        return "Codec[" + typeName + "]";
    }
}
