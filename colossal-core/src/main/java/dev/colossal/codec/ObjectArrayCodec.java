package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/** An array of references: a varint count, then each element with a presence byte. */
final class ObjectArrayCodec<E> extends AbstractCodec<E[]> {

    private final AbstractCodec<E> element;
    private final IntFunction<E[]> factory;

    ObjectArrayCodec(AbstractCodec<E> element, IntFunction<E[]> factory) {
        super(element.typeName() + "[]");
        this.element = element;
        this.factory = factory;
    }

    @Override
    long size(E[] v) {
        long n = WireFormat.varintSize(v.length);
        for (E e : v) {
            n += sizeNullable(element, e);
        }
        return n;
    }

    @Override
    long write(E[] v, MemorySegment s, long off) {
        off = WireFormat.putVarint(s, off, v.length);
        for (E e : v) {
            off = writeNullable(element, e, s, off);
        }
        return off;
    }

    @Override
    E[] read(Input in) {
        E[] v = factory.apply(in.readCount(typeName(), 1));
        for (int i = 0; i < v.length; i++) {
            v[i] = readNullable(element, in);
        }
        return v;
    }

    @Override
    String schema() {
        return "array<" + element.schema() + ">";
    }
}
