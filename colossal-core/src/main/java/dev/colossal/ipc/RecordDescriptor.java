package dev.colossal.ipc;

import java.nio.ByteOrder;

/**
 * One record in a {@link MessageRing} or broadcast ring: an 8-byte header, then the message,
 * padded so the next record starts on an 8-byte boundary.
 *
 * <pre>
 *   0                   4                   8
 *   +-------------------+-------------------+------------------------------+---------+
 *   | length (int)      | type (int)        | message (length - 8 bytes)   | to x8   |
 *   +-------------------+-------------------+------------------------------+---------+
 *   length  = 8 + message bytes; 0 = not yet claimed; negative = claimed, being written
 *   type    = the application's type, &gt;= 1; {@link #PADDING_TYPE} marks the skip to the wrap
 * </pre>
 *
 * A writer stores {@code (-length, type)} as one long, copies the message, then stores
 * {@code (length, type)} as one long with release; the reader loads the header as one long (the
 * first of a batch with acquire, the rest plainly and then an acquire fence) and reads the record
 * only if its length is positive. Every store of a header is a whole long, so the reader's single
 * load always pairs with it.
 */
final class RecordDescriptor {

    static final int LENGTH_OFFSET = 0;
    static final int TYPE_OFFSET = 4;
    static final int HEADER_LENGTH = 8;
    static final int ALIGNMENT = 8;
    static final int PADDING_TYPE = -1;

    private RecordDescriptor() {}

    static int align(int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** The header as one native-endian long, so that one store writes length and type. */
    static long header(int length, int type) {
        return LITTLE_ENDIAN
                ? ((long) type << 32) | (length & 0xFFFF_FFFFL)
                : ((long) length << 32) | (type & 0xFFFF_FFFFL);
    }

    /** {@return the length field of a header read as one long} */
    static int lengthOf(long header) {
        return LITTLE_ENDIAN ? (int) header : (int) (header >>> 32);
    }

    /** {@return the type field of a header read as one long} */
    static int typeOf(long header) {
        return LITTLE_ENDIAN ? (int) (header >>> 32) : (int) header;
    }

    static void checkType(int type) {
        if (type < 1) {
            throw new IllegalArgumentException("type=" + type + " must be at least 1");
        }
    }
}
