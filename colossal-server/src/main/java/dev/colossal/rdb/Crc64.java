package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The CRC-64 that ends an RDB file: the Jones polynomial ({@code 0xad93d23594c935a9}), reflected
 * (so bytes are taken low bit first, with the table built from {@code 0x95ac9329ac4bc9b5}), starting
 * at 0 with no final XOR. Over {@code "123456789"} it is {@code 0xe9c6d914c4b8d9ca}.
 */
public final class Crc64 {

    private static final long REFLECTED_POLY = 0x95ac9329ac4bc9b5L;
    private static final long[] TABLE = new long[256];

    static {
        for (int b = 0; b < 256; b++) {
            long crc = b;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ REFLECTED_POLY : crc >>> 1;
            }
            TABLE[b] = crc;
        }
    }

    private Crc64() {}

    /**
     * @param crc  the CRC of the bytes before, 0 to start
     * @param data the bytes
     * @param from the first byte
     * @param to   past the last byte
     * @return the CRC of the bytes before and {@code data[from, to)}
     */
    public static long update(long crc, MemorySegment data, long from, long to) {
        for (long i = from; i < to; i++) {
            crc = TABLE[(int) ((crc ^ data.get(ValueLayout.JAVA_BYTE, i)) & 0xff)] ^ (crc >>> 8);
        }
        return crc;
    }

    /** @return the CRC of {@code data} */
    public static long of(byte[] data) {
        return update(0, MemorySegment.ofArray(data), 0, data.length);
    }
}
