package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.util.Collection;
import java.util.function.IntFunction;

/**
 * A {@link java.util.List} or {@link java.util.Set}: a varint count, then each element as a presence
 * byte and the element. Decoding builds the collection the factory makes (an {@code ArrayList} or
 * {@code LinkedHashSet} for the interfaces, the declared class otherwise).
 */
final class CollectionCodec<E, C extends Collection<E>> extends AbstractCodec<C> {

    private final AbstractCodec<E> element;
    private final IntFunction<C> factory;
    private final String kind;

    CollectionCodec(String kind, AbstractCodec<E> element, IntFunction<C> factory) {
        super(kind + "<" + element.typeName() + ">");
        this.element = element;
        this.factory = factory;
        this.kind = kind;
    }

    @Override
    long size(C v) {
        long n = WireFormat.varintSize(v.size());
        for (E e : v) {
            n += sizeNullable(element, e);
        }
        return n;
    }

    @Override
    long write(C v, MemorySegment s, long off) {
        off = WireFormat.putVarint(s, off, v.size());
        for (E e : v) {
            off = writeNullable(element, e, s, off);
        }
        return off;
    }

    @Override
    C read(Input in) {
        int n = in.readCount(typeName(), 1);
        C c = factory.apply(n);
        for (int i = 0; i < n; i++) {
            c.add(readNullable(element, in));
        }
        return c;
    }

    @Override
    String schema() {
        return kind.toLowerCase(java.util.Locale.ROOT) + "<" + element.schema() + ">";
    }
}
