package dev.colossal.codec;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The byte format's constants (the format itself is drawn in
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

    // the same values in a heap byte[] (the windows of Input and Output), at any index
    static final VarHandle ARRAY_SHORT = arrayView(short[].class);
    static final VarHandle ARRAY_CHAR = arrayView(char[].class);
    static final VarHandle ARRAY_INT = arrayView(int[].class);
    static final VarHandle ARRAY_LONG = arrayView(long[].class);
    static final VarHandle ARRAY_FLOAT = arrayView(float[].class);
    static final VarHandle ARRAY_DOUBLE = arrayView(double[].class);

    /** Presence byte of a nullable value (and of an {@code Optional}) that is absent. */
    static final byte ABSENT = 0;
    /** Presence byte of a nullable value that follows. */
    static final byte PRESENT = 1;
    /** A length or count fits an int: 5 LEB128 bytes carry 35 bits. */
    static final int MAX_VARINT_BYTES = 5;

    private WireFormat() {}

    private static VarHandle arrayView(Class<?> array) {
        return MethodHandles.byteArrayViewVarHandle(array, ByteOrder.LITTLE_ENDIAN);
    }

    static int varintSize(int value) {
        // 1 byte per started 7 bits of an unsigned value; 0 still takes one byte
        int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
        return (bits + 6) / 7;
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
