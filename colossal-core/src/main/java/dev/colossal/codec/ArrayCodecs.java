package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Primitive arrays as a varint element count and the elements, little-endian, copied in bulk
 * (a {@code MemorySegment.copy}, which moves them at memory speed and swaps bytes only on
 * big-endian hardware). Booleans are one byte each, 0 or 1.
 */
final class ArrayCodecs {

    private ArrayCodecs() {}

    static final NamedCodec<byte[]> BYTES = new NamedCodec<>("byte[]") {
        @Override public long size(byte[] v) { return WireFormat.varintSize(v.length) + (long) v.length; }

        @Override public long write(byte[] v, MemorySegment s, long off) {
            off = WireFormat.putVarint(s, off, v.length);
            MemorySegment.copy(v, 0, s, WireFormat.BYTE, off, v.length);
            return off + v.length;
        }

        @Override public byte[] read(Input in) {
            byte[] v = new byte[in.readCount("byte[]", 1)];
            copyIn(in, WireFormat.BYTE, v, v.length);
            return v;
        }

        @Override public String schema() { return "bytes"; }
    };

    static final NamedCodec<short[]> SHORTS = new NamedCodec<>("short[]") {
        @Override public long size(short[] v) { return WireFormat.varintSize(v.length) + 2L * v.length; }

        @Override public long write(short[] v, MemorySegment s, long off) {
            return copyOut(v, v.length, WireFormat.SHORT, s, off);
        }

        @Override public short[] read(Input in) {
            short[] v = new short[in.readCount("short[]", 2)];
            copyIn(in, WireFormat.SHORT, v, v.length);
            return v;
        }

        @Override public String schema() { return "i16[]"; }
    };

    static final NamedCodec<char[]> CHARS = new NamedCodec<>("char[]") {
        @Override public long size(char[] v) { return WireFormat.varintSize(v.length) + 2L * v.length; }

        @Override public long write(char[] v, MemorySegment s, long off) {
            return copyOut(v, v.length, WireFormat.CHAR, s, off);
        }

        @Override public char[] read(Input in) {
            char[] v = new char[in.readCount("char[]", 2)];
            copyIn(in, WireFormat.CHAR, v, v.length);
            return v;
        }

        @Override public String schema() { return "char[]"; }
    };

    static final NamedCodec<int[]> INTS = new NamedCodec<>("int[]") {
        @Override public long size(int[] v) { return WireFormat.varintSize(v.length) + 4L * v.length; }

        @Override public long write(int[] v, MemorySegment s, long off) {
            return copyOut(v, v.length, WireFormat.INT, s, off);
        }

        @Override public int[] read(Input in) {
            int[] v = new int[in.readCount("int[]", 4)];
            copyIn(in, WireFormat.INT, v, v.length);
            return v;
        }

        @Override public String schema() { return "i32[]"; }
    };

    static final NamedCodec<long[]> LONGS = new NamedCodec<>("long[]") {
        @Override public long size(long[] v) { return WireFormat.varintSize(v.length) + 8L * v.length; }

        @Override public long write(long[] v, MemorySegment s, long off) {
            return copyOut(v, v.length, WireFormat.LONG, s, off);
        }

        @Override public long[] read(Input in) {
            long[] v = new long[in.readCount("long[]", 8)];
            copyIn(in, WireFormat.LONG, v, v.length);
            return v;
        }

        @Override public String schema() { return "i64[]"; }
    };

    static final NamedCodec<float[]> FLOATS = new NamedCodec<>("float[]") {
        @Override public long size(float[] v) { return WireFormat.varintSize(v.length) + 4L * v.length; }

        @Override public long write(float[] v, MemorySegment s, long off) {
            return copyOut(v, v.length, WireFormat.FLOAT, s, off);
        }

        @Override public float[] read(Input in) {
            float[] v = new float[in.readCount("float[]", 4)];
            copyIn(in, WireFormat.FLOAT, v, v.length);
            return v;
        }

        @Override public String schema() { return "f32[]"; }
    };

    static final NamedCodec<double[]> DOUBLES = new NamedCodec<>("double[]") {
        @Override public long size(double[] v) { return WireFormat.varintSize(v.length) + 8L * v.length; }

        @Override public long write(double[] v, MemorySegment s, long off) {
            return copyOut(v, v.length, WireFormat.DOUBLE, s, off);
        }

        @Override public double[] read(Input in) {
            double[] v = new double[in.readCount("double[]", 8)];
            copyIn(in, WireFormat.DOUBLE, v, v.length);
            return v;
        }

        @Override public String schema() { return "f64[]"; }
    };

    static final NamedCodec<boolean[]> BOOLEANS = new NamedCodec<>("boolean[]") {
        @Override public long size(boolean[] v) { return WireFormat.varintSize(v.length) + (long) v.length; }

        @Override public long write(boolean[] v, MemorySegment s, long off) {
            off = WireFormat.putVarint(s, off, v.length);
            for (boolean b : v) {
                off = WireFormat.putBoolean(s, off, b);
            }
            return off;
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

    private static long copyOut(Object array, int length, ValueLayout element, MemorySegment s, long off) {
        off = WireFormat.putVarint(s, off, length);
        MemorySegment.copy(array, 0, s, element, off, length);
        return off + length * element.byteSize();
    }

    private static void copyIn(Input in, ValueLayout element, Object array, int length) {
        MemorySegment.copy(in.segment(), element, in.position(), array, 0, length);
        in.skip(length * element.byteSize());
    }
}
