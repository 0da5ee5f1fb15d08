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

    static final WireCodec<byte[]> BYTES = new Primitives<>("byte[]", "bytes", WireFormat.BYTE, byte[]::new);
    static final WireCodec<short[]> SHORTS = new Primitives<>("short[]", "i16[]", WireFormat.SHORT, short[]::new);
    static final WireCodec<char[]> CHARS = new Primitives<>("char[]", "char[]", WireFormat.CHAR, char[]::new);
    static final WireCodec<int[]> INTS = new Primitives<>("int[]", "i32[]", WireFormat.INT, int[]::new);
    static final WireCodec<long[]> LONGS = new Primitives<>("long[]", "i64[]", WireFormat.LONG, long[]::new);
    static final WireCodec<float[]> FLOATS = new Primitives<>("float[]", "f32[]", WireFormat.FLOAT, float[]::new);
    static final WireCodec<double[]> DOUBLES = new Primitives<>("double[]", "f64[]", WireFormat.DOUBLE, double[]::new);

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
     * @param <A>      the array type
     */
    record Primitives<A>(String typeName, String schema, ValueLayout element, IntFunction<A> factory)
            implements WireCodec<A> {

        @Override
        public long size(A v) {
            int n = Array.getLength(v);
            return WireFormat.varintSize(n) + n * element.byteSize();
        }

        @Override
        public void write(A v, Output out) {
            int n = Array.getLength(v);
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
