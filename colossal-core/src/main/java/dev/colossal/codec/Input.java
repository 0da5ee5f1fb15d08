package dev.colossal.codec;

import static dev.colossal.codec.WireFormat.BYTE;
import static dev.colossal.codec.WireFormat.CHAR;
import static dev.colossal.codec.WireFormat.DOUBLE;
import static dev.colossal.codec.WireFormat.FLOAT;
import static dev.colossal.codec.WireFormat.INT;
import static dev.colossal.codec.WireFormat.LONG;
import static dev.colossal.codec.WireFormat.SHORT;

import java.lang.foreign.MemorySegment;

/**
 * A read position over one encoded value. Reads past the end fail with the segment's own
 * {@link IndexOutOfBoundsException}, which {@link WireCodec#decode} turns into a
 * {@link CodecException} at {@link #position()}; lengths are checked against what remains before
 * anything is allocated, so a forged length can never ask for more memory than the input holds.
 */
final class Input {

    private final MemorySegment segment;
    private final long limit;
    private long position;

    Input(MemorySegment segment) {
        this.segment = segment;
        this.limit = segment.byteSize();
    }

    MemorySegment segment() {
        return segment;
    }

    long position() {
        return position;
    }

    long remaining() {
        return limit - position;
    }

    /** Moves past {@code bytes} already consumed by a bulk copy. */
    void skip(long bytes) {
        position += bytes;
    }

    boolean readBoolean(String type) {
        byte b = segment.get(BYTE, position);
        if ((b & ~1) != 0) {
            throw error(type, "boolean byte=" + b + " is neither 0 nor 1");
        }
        position++;
        return b != 0;
    }

    /** Reads a presence byte: {@code true} if a value follows. */
    boolean readPresence(String type) {
        byte b = segment.get(BYTE, position);
        if ((b & ~1) != 0) {
            throw error(type, "presence byte=" + b + " is neither 0 (absent) nor 1 (present)");
        }
        position++;
        return b != 0;
    }

    byte readByte() {
        byte v = segment.get(BYTE, position);
        position++;
        return v;
    }

    short readShort() {
        short v = segment.get(SHORT, position);
        position += 2;
        return v;
    }

    char readChar() {
        char v = segment.get(CHAR, position);
        position += 2;
        return v;
    }

    int readInt() {
        int v = segment.get(INT, position);
        position += 4;
        return v;
    }

    long readLong() {
        long v = segment.get(LONG, position);
        position += 8;
        return v;
    }

    float readFloat() {
        float v = segment.get(FLOAT, position);
        position += 4;
        return v;
    }

    double readDouble() {
        double v = segment.get(DOUBLE, position);
        position += 8;
        return v;
    }

    /** Reads an unsigned varint that must fit a non-negative int; at most 5 bytes are looked at. */
    int readVarint(String type) {
        long start = position;
        int value = 0;
        for (int shift = 0; shift < 7 * WireFormat.MAX_VARINT_BYTES; shift += 7) {
            byte b = segment.get(BYTE, position++);
            value |= (b & 0x7F) << shift;
            if (b >= 0) {
                if (value < 0 || (shift == 28 && (b & 0x78) != 0)) {
                    break;
                }
                return value;
            }
        }
        position = start;
        throw error(type, "varint does not fit a non-negative int");
    }

    /**
     * Reads a count of elements, each at least {@code minBytesEach} long, and checks that the rest of
     * the input can hold them.
     */
    int readCount(String type, int minBytesEach) {
        long start = position;
        int n = readVarint(type);
        if ((long) n * minBytesEach > remaining()) {
            position = start;
            throw error(type, "length=" + n + " needs " + (long) n * minBytesEach + " bytes but only "
                    + remaining() + " remain (truncated or corrupt)");
        }
        return n;
    }

    CodecException error(String type, String what) {
        return new CodecException("cannot decode type=" + type + " at offset=" + position + " of "
                + limit + " bytes: " + what);
    }
}
