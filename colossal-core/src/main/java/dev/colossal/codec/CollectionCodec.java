package dev.colossal.codec;

import java.util.Collection;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * A {@link java.util.List} or {@link java.util.Set}: a varint count, then each element as a presence
 * byte and the element. Decoding builds the collection the factory makes (an {@code ArrayList} or
 * {@code LinkedHashSet} for the interfaces, the declared class otherwise).
 *
 * @param typeName the name in error messages, e.g. {@code List<String>}
 * @param kind     {@code List} or {@code Set}
 * @param element  the elements' codec
 * @param factory  makes an empty collection for a count
 */
record CollectionCodec<E, C extends Collection<E>>(String typeName, String kind, WireCodec<E> element,
                                                   IntFunction<C> factory) implements WireCodec<C> {

    static <E, C extends Collection<E>> CollectionCodec<E, C> of(String kind, WireCodec<E> element,
                                                                  IntFunction<C> factory) {
        return new CollectionCodec<>(kind + "<" + element.typeName() + ">", kind, element, factory);
    }

    @Override
    public long size(C v) {
        long n = WireFormat.varintSize(v.size());
        for (E e : v) {
            n += WireCodec.sizeNullable(element, e);
        }
        return n;
    }

    @Override
    public void write(C v, Output out) {
        out.writeVarint(v.size());
        if (out.canonical && kind.equals("Set")) {
            writeSorted(v, out);
            return;
        }
        for (E e : v) {
            WireCodec.writeNullable(element, e, out);
        }
    }

    /** A set as a key: the same bytes, with the elements in the order of their encodings. */
    private void writeSorted(C v, Output out) {
        long[] starts = new long[v.size()];
        int n = 0;
        for (E e : v) {
            starts[n++] = out.position();
            WireCodec.writeNullable(element, e, out);
        }
        out.sortRuns(starts, n);
    }

    @Override
    public C read(Input in) {
        int n = in.readCount(typeName, 1);
        C c = factory.apply(n);
        for (int i = 0; i < n; i++) {
            c.add(WireCodec.readNullable(element, in));
        }
        return c;
    }

    @Override
    public String schema() {
        return kind.toLowerCase(Locale.ROOT) + "<" + element.schema() + ">";
    }
}
