package dev.colossal.codec;

/**
 * An enum constant as its ordinal in a varint. The constants' names are part of the schema, so an
 * enum whose constants were added, removed, reordered or renamed changes the fingerprint.
 */
final class EnumCodec<E extends Enum<E>> extends NamedCodec<E> {

    private final E[] constants;
    private final String schema;

    EnumCodec(Class<E> type) {
        super(type.getName());
        this.constants = type.getEnumConstants();
        this.schema = schema(type, constants.length);
    }

    /** The schema of this enum's codec had it had only its first {@code n} constants. */
    static String schema(Class<?> type, int n) {
        Object[] constants = type.getEnumConstants();
        StringBuilder b = new StringBuilder("enum ").append(type.getName()).append('{');
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append(((Enum<?>) constants[i]).name());
        }
        return b.append('}').toString();
    }

    @Override
    public long size(E v) {
        return WireFormat.varintSize(v.ordinal());
    }

    @Override
    public void write(E v, Output out) {
        out.writeVarint(v.ordinal());
    }

    @Override
    public E read(Input in) {
        long start = in.position();
        int ordinal = in.readVarint(typeName());
        if (ordinal >= constants.length) {
            in.skip(start - in.position());
            throw in.error(typeName(), "ordinal=" + ordinal + " but the enum has " + constants.length + " constants");
        }
        return constants[ordinal];
    }

    @Override
    public String schema() {
        return schema;
    }
}
