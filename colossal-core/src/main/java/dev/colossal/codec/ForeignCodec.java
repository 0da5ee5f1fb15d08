package dev.colossal.codec;

import java.lang.foreign.MemorySegment;

/**
 * A {@link Codec} not built by Colossal, nested inside ours: its decode needs a slice of exactly one
 * value, so each value is prefixed with its varint byte length.
 *
 * @param codec the codec being nested
 */
record ForeignCodec<T>(Codec<T> codec) implements WireCodec<T> {

    @Override
    public String typeName() {
        return codec.toString();
    }

    @Override
    public long size(T v) {
        long n = codec.encodedSize(v);
        return WireFormat.varintSize(checkedLength(n)) + n;
    }

    @Override
    public void write(T v, Output out) {
        int n = checkedLength(codec.encodedSize(v));
        out.writeVarint(n);
        long off = out.position();
        long end = codec.encode(v, out.flushed(), off);
        out.skipTo(end);
        if (end != off + n) {
            throw new IllegalStateException("codec=" + codec + " wrote " + (end - off)
                    + " bytes but its encodedSize said " + n + ": fix the codec's encodedSize");
        }
    }

    @Override
    public T read(Input in) {
        int n = in.readCount(codec.toString(), 1);
        T v = codec.decode(in.segment().asSlice(in.position(), n));
        in.skip(n);
        return v;
    }

    @Override
    public String schema() {
        return "foreign<" + codec.getClass().getName() + ">";
    }

    private int checkedLength(long n) {
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new IllegalStateException("codec=" + codec + " encodedSize=" + n + " is not a length 0.."
                    + Integer.MAX_VALUE);
        }
        return (int) n;
    }
}
