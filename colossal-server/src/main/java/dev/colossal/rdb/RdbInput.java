package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A cursor over an RDB file's bytes that reads its primitives, and refuses to read past the end
 * with the offset where the file was cut short. Lengths and strings are encoded as one or more
 * bytes whose first two bits say how:
 *
 * <pre>
 *  00LLLLLL                          length L (6 bits)
 *  01LLLLLL LLLLLLLL                 length (14 bits, big-endian)
 *  10000000 [4 bytes, big-endian]    length (32 bits)
 *  10000001 [8 bytes, big-endian]    length (64 bits)
 *  11EEEEEE                          a string in a special encoding E (strings only):
 *      E=0  [1 byte]                 an int8, the string is its decimal form
 *      E=1  [2 bytes, little-endian] an int16, likewise
 *      E=2  [4 bytes, little-endian] an int32, likewise
 *      E=3  [clen][len][clen bytes]  LZF-compressed ({@link Lzf}), two lengths then the data
 *  A plain string is a length then that many bytes.
 * </pre>
 */
final class RdbInput {

    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int ENC_INT8 = 0;
    private static final int ENC_INT16 = 1;
    private static final int ENC_INT32 = 2;
    private static final int ENC_LZF = 3;
    /** Strings Colossal takes are under 1 GiB; a longer length in a sound file is not a string we can hold. */
    private static final long MAX_STRING = Integer.MAX_VALUE - 16;

    private final MemorySegment bytes;
    private final long size;
    private long at;

    RdbInput(MemorySegment bytes) {
        this.bytes = bytes;
        this.size = bytes.byteSize();
    }

    long offset() {
        return at;
    }

    long size() {
        return size;
    }

    MemorySegment bytes() {
        return bytes;
    }

    private void need(long n, String what) throws RdbFormatException {
        if (n > size - at) {
            throw new RdbFormatException(RdbFormatException.Kind.DAMAGED, at, "cut short at offset " + at + ": the file ends at byte "
                    + size + " in the middle of " + what + " that starts there (and needs " + n + " bytes)");
        }
    }

    int u8() throws RdbFormatException {
        need(1, "a byte");
        return bytes.get(ValueLayout.JAVA_BYTE, at++) & 0xff;
    }

    int int32le() throws RdbFormatException {
        need(4, "a 4-byte integer");
        int v = bytes.get(INT_LE, at);
        at += 4;
        return v;
    }

    long int64le() throws RdbFormatException {
        need(8, "an 8-byte integer");
        long v = bytes.get(LONG_LE, at);
        at += 8;
        return v;
    }

    void skip(long n, String what) throws RdbFormatException {
        need(n, what);
        at += n;
    }

    byte[] raw(int n, String what) throws RdbFormatException {
        need(n, what);
        byte[] out = new byte[n];
        MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, at, out, 0, n);
        at += n;
        return out;
    }

    /** @return a length of up to 64 bits read as unsigned (a stream ID's part): the long holds its bits */
    long unsignedLength() throws RdbFormatException {
        long start = at;
        int first = u8();
        if (first == 0x81) {
            need(8, "a 64-bit length");
            long v = bytes.get(LONG_BE, at);
            at += 8;
            return v;
        }
        long n = lengthAfter(first);
        if (n < 0) {
            throw damaged(start, "a length was expected but byte 0x" + Integer.toHexString(first) + " marks an encoded string");
        }
        return n;
    }

    /** @return a length; a special encoding here is damage */
    long length() throws RdbFormatException {
        long start = at;
        int first = u8();
        long n = lengthAfter(first);
        if (n < 0) {
            throw damaged(start, "a length was expected but byte 0x" + Integer.toHexString(first) + " marks an encoded string");
        }
        return n;
    }

    /** @return a length that must fit an int (a count of items, a string's bytes) */
    int intLength(String what) throws RdbFormatException {
        long start = at;
        long n = length();
        if (n > MAX_STRING) {
            throw damaged(start, what + " of " + n + " is larger than any this reader can hold");
        }
        return (int) n;
    }

    /** @return the length that {@code first} starts, or -1 - E for a special encoding E */
    private long lengthAfter(int first) throws RdbFormatException {
        switch (first >>> 6) {
            case 0:
                return first & 0x3f;
            case 1:
                return ((first & 0x3f) << 8) | u8();
            case 2:
                if (first == 0x80) {
                    need(4, "a 32-bit length");
                    long v = bytes.get(INT_BE, at) & 0xffffffffL;
                    at += 4;
                    return v;
                }
                if (first == 0x81) {
                    need(8, "a 64-bit length");
                    long v = bytes.get(LONG_BE, at);
                    at += 8;
                    if (v < 0) {
                        throw damaged(at - 9, "a 64-bit length is negative");
                    }
                    return v;
                }
                throw damaged(at - 1, "byte 0x" + Integer.toHexString(first) + " starts no known length");
            default:
                return -1 - (first & 0x3f);
        }
    }

    /** @return a string in any encoding, decompressed */
    byte[] string() throws RdbFormatException {
        return string(true);
    }

    /** Passes over a string in any encoding without decompressing it. */
    void skipString() throws RdbFormatException {
        string(false);
    }

    private byte[] string(boolean keep) throws RdbFormatException {
        long start = at;
        int first = u8();
        long n = lengthAfter(first);
        if (n >= 0) {
            if (n > MAX_STRING) {
                throw damaged(start, "a string of " + n + " bytes is larger than any this reader can hold");
            }
            if (!keep) {
                skip(n, "a string");
                return null;
            }
            return raw((int) n, "a string");
        }
        int encoding = (int) (-1 - n);
        return switch (encoding) {
            case ENC_INT8 -> decimal((byte) u8());
            case ENC_INT16 -> {
                need(2, "a 16-bit integer");
                short v = bytes.get(SHORT_LE, at);
                at += 2;
                yield decimal(v);
            }
            case ENC_INT32 -> decimal(int32le());
            case ENC_LZF -> {
                int compressed = intLength("an LZF string's compressed length");
                int length = intLength("an LZF string's length");
                if (!keep) {
                    skip(compressed, "an LZF-compressed string");
                    yield null;
                }
                long dataAt = at;
                byte[] data = raw(compressed, "an LZF-compressed string");
                try {
                    yield Lzf.decompress(data, length);
                } catch (IllegalArgumentException e) {
                    throw damaged(dataAt, e.getMessage());
                }
            }
            default -> throw damaged(start, "byte 0x" + Integer.toHexString(first) + " marks an unknown string encoding");
        };
    }

    private static byte[] decimal(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    static RdbFormatException damaged(long offset, String what) {
        return new RdbFormatException(RdbFormatException.Kind.DAMAGED, offset, "damaged at offset " + offset + ": " + what);
    }
}
