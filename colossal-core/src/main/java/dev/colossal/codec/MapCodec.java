package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.function.IntFunction;

/** A {@link Map}: a varint count, then key and value pairs, each with a presence byte. */
final class MapCodec<K, V, M extends Map<K, V>> extends AbstractCodec<M> {

    private final AbstractCodec<K> keys;
    private final AbstractCodec<V> values;
    private final IntFunction<M> factory;

    MapCodec(AbstractCodec<K> keys, AbstractCodec<V> values, IntFunction<M> factory) {
        super("Map<" + keys.typeName() + "," + values.typeName() + ">");
        this.keys = keys;
        this.values = values;
        this.factory = factory;
    }

    @Override
    long size(M v) {
        long n = WireFormat.varintSize(v.size());
        for (Map.Entry<K, V> e : v.entrySet()) {
            n += sizeNullable(keys, e.getKey()) + sizeNullable(values, e.getValue());
        }
        return n;
    }

    @Override
    long write(M v, MemorySegment s, long off) {
        off = WireFormat.putVarint(s, off, v.size());
        for (Map.Entry<K, V> e : v.entrySet()) {
            off = writeNullable(keys, e.getKey(), s, off);
            off = writeNullable(values, e.getValue(), s, off);
        }
        return off;
    }

    @Override
    M read(Input in) {
        int n = in.readCount(typeName(), 2);
        M m = factory.apply(n);
        for (int i = 0; i < n; i++) {
            K k = readNullable(keys, in);
            m.put(k, readNullable(values, in));
        }
        return m;
    }

    @Override
    String schema() {
        return "map<" + keys.schema() + "," + values.schema() + ">";
    }
}
