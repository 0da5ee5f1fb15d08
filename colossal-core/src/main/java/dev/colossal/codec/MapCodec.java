package dev.colossal.codec;

import java.util.Map;
import java.util.function.IntFunction;

/**
 * A {@link Map}: a varint count, then key and value pairs, each with a presence byte.
 *
 * @param typeName the name in error messages
 * @param keys     the keys' codec
 * @param values   the values' codec
 * @param factory  makes an empty map for a count
 */
record MapCodec<K, V, M extends Map<K, V>>(String typeName, WireCodec<K> keys, WireCodec<V> values,
                                           IntFunction<M> factory) implements WireCodec<M> {

    static <K, V, M extends Map<K, V>> MapCodec<K, V, M> of(WireCodec<K> keys, WireCodec<V> values,
                                                            IntFunction<M> factory) {
        return new MapCodec<>("Map<" + keys.typeName() + "," + values.typeName() + ">", keys, values, factory);
    }

    @Override
    public long size(M v) {
        long n = WireFormat.varintSize(v.size());
        for (Map.Entry<K, V> e : v.entrySet()) {
            n += WireCodec.sizeNullable(keys, e.getKey()) + WireCodec.sizeNullable(values, e.getValue());
        }
        return n;
    }

    @Override
    public void write(M v, Output out) {
        out.writeVarint(v.size());
        if (out.canonical) {
            writeSorted(v, out);
            return;
        }
        for (Map.Entry<K, V> e : v.entrySet()) {
            WireCodec.writeNullable(keys, e.getKey(), out);
            WireCodec.writeNullable(values, e.getValue(), out);
        }
    }

    /**
     * A map as a key: the same bytes, with the entries in the order of their encodings, which is the
     * order of the keys' encodings (a key's bytes are never a prefix of another key's).
     */
    private void writeSorted(M v, Output out) {
        long[] starts = new long[v.size()];
        int n = 0;
        for (Map.Entry<K, V> e : v.entrySet()) {
            starts[n++] = out.position();
            WireCodec.writeNullable(keys, e.getKey(), out);
            WireCodec.writeNullable(values, e.getValue(), out);
        }
        out.sortRuns(starts, n);
    }

    @Override
    public M read(Input in) {
        int n = in.readCount(typeName, 2);
        M m = factory.apply(n);
        for (int i = 0; i < n; i++) {
            K k = WireCodec.readNullable(keys, in);
            m.put(k, WireCodec.readNullable(values, in));
        }
        return m;
    }

    @Override
    public String schema() {
        return "map<" + keys.schema() + "," + values.schema() + ">";
    }
}
