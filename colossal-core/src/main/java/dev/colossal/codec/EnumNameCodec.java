package dev.colossal.codec;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * An enum constant as its name, in the bytes of a String: how {@link EvolvingCodec} writes enums,
 * so that the version of the enum that reads may have gained, lost or reordered constants since the
 * one that wrote. A name the enum does not have is refused, never mapped to another constant.
 */
final class EnumNameCodec<E extends Enum<E>> extends NamedCodec<E> {

    private final E[] constants;
    /** Each constant's bytes, {@code [varint n][n bytes of UTF-8]}, to write and to match as they are. */
    private final byte[][] tokens;
    /** The first 8 bytes of each token, and where it has bytes: see {@link Input#readToken}. */
    private final long[] heads;
    private final long[] masks;
    private final Map<String, E> byName = new HashMap<>();
    private final String schema;

    EnumNameCodec(Class<E> type) {
        super(type.getName());
        constants = type.getEnumConstants();
        tokens = new byte[constants.length][];
        heads = new long[constants.length];
        masks = new long[constants.length];
        for (int i = 0; i < constants.length; i++) {
            byte[] name = constants[i].name().getBytes(StandardCharsets.UTF_8);
            int header = WireFormat.varintSize(name.length);
            tokens[i] = new byte[header + name.length];
            for (int k = 0, v = name.length; k < header; k++, v >>>= 7) {
                tokens[i][k] = (byte) (k < header - 1 ? (v & 0x7F) | 0x80 : v);
            }
            System.arraycopy(name, 0, tokens[i], header, name.length);
            for (int k = 0; k < Math.min(8, tokens[i].length); k++) {
                heads[i] |= (tokens[i][k] & 0xFFL) << (8 * k);
                masks[i] |= 0xFFL << (8 * k);
            }
            byName.put(constants[i].name(), constants[i]);
        }
        // no constants in the text: a field's type id must not change when they do
        schema = "enum-by-name " + type.getName();
    }

    @Override
    public long size(E v) {
        return tokens[v.ordinal()].length;
    }

    @Override
    public void write(E v, Output out) {
        byte[] token = tokens[v.ordinal()];
        out.writeBytes(token, 0, token.length);
    }

    @Override
    public E read(Input in) {
        int i = in.readToken(tokens, heads, masks);
        return i >= 0 ? constants[i] : readName(in);
    }

    /** A name at the window's end, or one the enum does not have. */
    private E readName(Input in) {
        long start = in.position();
        String name = in.readUtf8(in.readCount(typeName(), 1));
        E constant = byName.get(name);
        if (constant == null) {
            in.skip(start - in.position());
            throw in.error(typeName(), "constant=" + (name.length() <= 100 ? name : name.substring(0, 100) + "...")
                    + " is not in the enum now: add it back to the enum to read this value, or rewrite the value "
                    + "with the version of the enum that wrote it");
        }
        return constant;
    }

    @Override
    public String schema() {
        return schema;
    }
}
