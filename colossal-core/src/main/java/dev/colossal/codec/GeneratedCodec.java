package dev.colossal.codec;

/**
 * The superclass of the hidden classes {@link RecordCodecGenerator} defines: one per record or class,
 * with straight-line {@code size}, {@code write} and {@code read} methods.
 */
abstract class GeneratedCodec extends NamedCodec<Object> {

    private final String schema;

    GeneratedCodec(String typeName, String schema) {
        super(typeName);
        this.schema = schema;
    }

    @Override
    public final String schema() {
        return schema;
    }
}
