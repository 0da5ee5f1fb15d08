package dev.colossal.codec;

/**
 * Another codec's values, with the sets and maps anywhere inside them written in the order of their
 * elements' (entries') encoded bytes instead of in iteration order, so that equal values have equal
 * bytes: what a key needs in a map that compares keys by their bytes. The bytes have the same shape
 * (and schema) as the wrapped codec's, so either codec reads what the other wrote.
 *
 * @param codec the wrapped codec
 */
record CanonicalCodec<T>(WireCodec<T> codec) implements WireCodec<T> {

    @Override
    public String typeName() {
        return codec.typeName();
    }

    @Override
    public long size(T v) {
        return codec.size(v);
    }

    @Override
    public void write(T v, Output out) {
        // restored after, so that a canonical value nested in an ordinary one leaves the rest alone
        boolean outer = out.canonical;
        out.canonical = true;
        codec.write(v, out);
        out.canonical = outer;
    }

    @Override
    public T read(Input in) {
        return codec.read(in);
    }

    @Override
    public String schema() {
        return codec.schema();
    }

    @Override
    public String toString() {
        return "Codec[canonical " + typeName() + "]";
    }
}
