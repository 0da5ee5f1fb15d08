package dev.colossal.codec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte format's constants and primitive writers (the format itself is drawn in
 * {@code package-info}). Every multi-byte value is little-endian and unaligned, so an encoded value
 * can start at any offset; lengths and counts are unsigned LEB128 varints of at most
 * {@link #MAX_VARINT_BYTES} bytes, so a reader never loops on forged input.
 */
final class WireFormat {

    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfBoolean BOOLEAN = ValueLayout.JAVA_BOOLEAN;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfChar CHAR = ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Presence byte of a nullable value (and of an {@code Optional}) that is absent. */
    static final byte ABSENT = 0;
    /** Presence byte of a nullable value that follows. */
    static final byte PRESENT = 1;
    /** A length or count fits an int: 5 LEB128 bytes carry 35 bits. */
    static final int MAX_VARINT_BYTES = 5;

    private WireFormat() {}

    static int varintSize(int value) {
        // 1 byte per started 7 bits of an unsigned value; 0 still takes one byte
        int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
    }

    static long putVarint(MemorySegment s, long off, int value) {
        while ((value & ~0x7F) != 0) {
            s.set(BYTE, off++, (byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        s.set(BYTE, off++, (byte) value);
        return off;
    }

    static long putBoolean(MemorySegment s, long off, boolean v) {
        s.set(BYTE, off, v ? (byte) 1 : (byte) 0);
        return off + 1;
    }

    static long putByte(MemorySegment s, long off, byte v) {
        s.set(BYTE, off, v);
        return off + 1;
    }

    static long putShort(MemorySegment s, long off, short v) {
        s.set(SHORT, off, v);
        return off + 2;
    }

    static long putChar(MemorySegment s, long off, char v) {
        s.set(CHAR, off, v);
        return off + 2;
    }

    static long putInt(MemorySegment s, long off, int v) {
        s.set(INT, off, v);
        return off + 4;
    }

    static long putLong(MemorySegment s, long off, long v) {
        s.set(LONG, off, v);
        return off + 8;
    }

    static long putFloat(MemorySegment s, long off, float v) {
        s.set(FLOAT, off, v);
        return off + 4;
    }

    static long putDouble(MemorySegment s, long off, double v) {
        s.set(DOUBLE, off, v);
        return off + 8;
    }

    /** Encoded size of a primitive type; the generated codecs sum these at creation. */
    static int primitiveSize(Class<?> type) {
        if (type == boolean.class || type == byte.class) {
            return 1;
        } else if (type == short.class || type == char.class) {
            return 2;
        } else if (type == int.class || type == float.class) {
            return 4;
        } else if (type == long.class || type == double.class) {
            return 8;
        }
        throw new IllegalArgumentException("not a primitive: type=" + type);
    }

    /** 64-bit FNV-1a of a schema text: stable across JVMs and versions, unlike String.hashCode mixing. */
    static long fingerprint(String schema) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < schema.length(); i++) {
            char c = schema.charAt(i);
            h = (h ^ (c & 0xFF)) * 0x100000001b3L;
            h = (h ^ (c >>> 8)) * 0x100000001b3L;
        }
        return h;
    }
}
