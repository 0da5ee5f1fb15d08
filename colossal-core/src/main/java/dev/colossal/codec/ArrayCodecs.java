package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Array;
import java.util.function.IntFunction;

/**
 * Primitive arrays as a varint element count and the elements, little-endian, copied in bulk
 * (a {@code MemorySegment.copy}, which moves them at memory speed and swaps bytes only on
 * big-endian hardware). Booleans are one byte each, 0 or 1.
 */
final class ArrayCodecs {

    private ArrayCodecs() {}

    static final WireCodec<byte[]> BYTES = new Primitives<>("byte[]", "bytes", WireFormat.BYTE, byte[]::new, byte[].class);
    static final WireCodec<short[]> SHORTS = new Primitives<>("short[]", "i16[]", WireFormat.SHORT, short[]::new, short[].class);
    static final WireCodec<char[]> CHARS = new Primitives<>("char[]", "char[]", WireFormat.CHAR, char[]::new, char[].class);
    static final WireCodec<int[]> INTS = new Primitives<>("int[]", "i32[]", WireFormat.INT, int[]::new, int[].class);
    static final WireCodec<long[]> LONGS = new Primitives<>("long[]", "i64[]", WireFormat.LONG, long[]::new, long[].class);
    static final WireCodec<float[]> FLOATS = new Primitives<>("float[]", "f32[]", WireFormat.FLOAT, float[]::new, float[].class);
    static final WireCodec<double[]> DOUBLES = new Primitives<>("double[]", "f64[]", WireFormat.DOUBLE, double[]::new, double[].class);

    static final NamedCodec<boolean[]> BOOLEANS = new NamedCodec<>("boolean[]") {
        @Override public long size(boolean[] v) { return WireFormat.varintSize(v.length) + (long) v.length; }

        @Override public void write(boolean[] v, Output out) {
            out.writeVarint(v.length);
            for (boolean b : v) {
                out.writeBoolean(b);
            }
        }

        @Override public boolean[] read(Input in) {
            boolean[] v = new boolean[in.readCount("boolean[]", 1)];
            for (int i = 0; i < v.length; i++) {
                v[i] = in.readBoolean("boolean[]");
            }
            return v;
        }

        @Override public String schema() { return "bool[]"; }
    };

    /**
     * An array of one primitive type, copied in bulk. A record, so that each instance's layout and
     * factory are constants to the JIT.
     *
     * @param typeName the Java name, e.g. {@code int[]}
     * @param schema   the schema name, e.g. {@code i32[]}
     * @param element  the little-endian element layout
     * @param factory  makes an array of a length
     * @param type     the array class
     * @param <A>      the array type
     */
    record Primitives<A>(String typeName, String schema, ValueLayout element, IntFunction<A> factory, Class<A> type)
            implements WireCodec<A> {

        @Override
        public long size(A v) {
            int n = Array.getLength(checked(v));
            return WireFormat.varintSize(n) + n * element.byteSize();
        }

        /**
         * {@code v}, if it is this codec's array type. Erased generics let a map's {@code get(Object)}
         * hand over anything; the ClassCastException says this is not a key of the map, where
         * {@code Array.getLength} said "Argument is not an array", and an {@code int[]} given to the
         * {@code byte[]} codec would have been read as bytes.
         */
        private A checked(A v) {
            if (!type.isInstance(v) && v != null) {   // null: Array.getLength's NullPointerException, as before
                throw new ClassCastException("the " + typeName + " codec was given a " + v.getClass().getTypeName());
            }
            return v;
        }

        @Override
        public void write(A v, Output out) {
            int n = Array.getLength(checked(v));
            out.writeVarint(n);
            out.writeArray(v, element, n);
        }

        @Override
        public A read(Input in) {
            int n = in.readCount(typeName, (int) element.byteSize());
            A v = factory.apply(n);
            MemorySegment.copy(in.segment(), element, in.position(), v, 0, n);
            in.skip(n * element.byteSize());
            return v;
        }
    }
}
