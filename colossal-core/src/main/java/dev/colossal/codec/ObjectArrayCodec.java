package dev.colossal.codec;

import java.util.function.IntFunction;

/**
 * An array of references: a varint count, then each element with a presence byte.
 *
 * @param typeName the name in error messages
 * @param element  the elements' codec
 * @param factory  makes an array of a length
 */
record ObjectArrayCodec<E>(String typeName, WireCodec<E> element, IntFunction<E[]> factory) implements WireCodec<E[]> {

    static <E> ObjectArrayCodec<E> of(WireCodec<E> element, IntFunction<E[]> factory) {
        return new ObjectArrayCodec<>(element.typeName() + "[]", element, factory);
    }

    @Override
    public long size(E[] v) {
        long n = WireFormat.varintSize(v.length);
        for (E e : v) {
            n += WireCodec.sizeNullable(element, e);
        }
        return n;
    }

    @Override
    public void write(E[] v, Output out) {
        out.writeVarint(v.length);
        for (E e : v) {
            WireCodec.writeNullable(element, e, out);
        }
    }

    @Override
    public E[] read(Input in) {
        E[] v = factory.apply(in.readCount(typeName, 1));
        for (int i = 0; i < v.length; i++) {
            v[i] = WireCodec.readNullable(element, in);
        }
        return v;
    }

    @Override
    public String schema() {
        return "array<" + element.schema() + ">";
    }
}
