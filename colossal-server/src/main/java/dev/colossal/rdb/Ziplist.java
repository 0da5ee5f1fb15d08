package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a ziplist, the compact list Redis before 7.0 saved small lists, hashes and zsets as (RDB
 * types 10 and 14 for lists): its entries as strings, integers as their decimal text.
 *
 * <pre>
 *  0           4           8          10
 *  +-----------+-----------+----------+------------------------------------------+------+
 *  | total     | last entry| count    | entries: previous length, encoding, data | 0xFF |
 *  | (u32 LE)  | (u32 LE)  | (u16 LE) |                                          | end  |
 *  +-----------+-----------+----------+------------------------------------------+------+
 *  previous length: 1 byte below 254, else 0xFE and 4 bytes LE
 *  encoding (first byte)           data
 *  00LLLLLL                        a string of L bytes
 *  01LLLLLL LLLLLLLL               a string of L bytes (14 bits, big-endian)
 *  10000000 [4 bytes BE]           a string of that many bytes
 *  11000000 / 11010000 / 11100000  an int16 / int32 / int64, LE
 *  11110000 / 11111110             an int24 / int8, LE
 *  1111xxxx (xxxx 0001..1101)      none: the integer xxxx - 1 (0..12)
 * </pre>
 */
final class Ziplist {

    private static final int HEADER = 10;
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Ziplist() {}

    /**
     * @param zl a ziplist's bytes
     * @return its entries in order
     * @throws RdbFormatException if the bytes are not a sound ziplist
     */
    static List<byte[]> entries(byte[] zl) throws RdbFormatException {
        MemorySegment s = MemorySegment.ofArray(zl);
        if (zl.length < HEADER + 1 || Integer.toUnsignedLong(s.get(INT_LE, 0)) != zl.length || (zl[zl.length - 1] & 0xFF) != 0xFF) {
            throw RdbInput.damaged(0, "a ziplist of " + zl.length + " bytes whose header or end is not a ziplist's");
        }
        int end = zl.length - 1;
        List<byte[]> out = new ArrayList<>();
        int at = HEADER;
        while (at < end) {
            at += (zl[at] & 0xFF) < 254 ? 1 : 5;
            need(at + 1, end);
            int b = zl[at] & 0xFF;
            switch (b >> 6) {
                case 0 -> {
                    out.add(bytes(zl, at + 1, b & 0x3F, end));
                    at += 1 + (b & 0x3F);
                }
                case 1 -> {
                    need(at + 2, end);
                    int n = ((b & 0x3F) << 8) | (zl[at + 1] & 0xFF);
                    out.add(bytes(zl, at + 2, n, end));
                    at += 2 + n;
                }
                case 2 -> {
                    need(at + 5, end);
                    long n = Integer.toUnsignedLong(s.get(INT_BE, at + 1));
                    if (n > end) {
                        throw RdbInput.damaged(at, "a ziplist string runs past its end");
                    }
                    out.add(bytes(zl, at + 5, (int) n, end));
                    at += 5 + (int) n;
                }
                default -> {
                    long v;
                    int width;
                    switch (b) {
                        case 0xC0 -> { width = 2; need(at + 3, end); v = s.get(SHORT_LE, at + 1); }
                        case 0xD0 -> { width = 4; need(at + 5, end); v = s.get(INT_LE, at + 1); }
                        case 0xE0 -> { width = 8; need(at + 9, end); v = s.get(LONG_LE, at + 1); }
                        case 0xF0 -> {
                            width = 3;
                            need(at + 4, end);
                            v = (zl[at + 1] & 0xFFL) | (zl[at + 2] & 0xFFL) << 8 | (long) zl[at + 3] << 16;
                        }
                        case 0xFE -> { width = 1; need(at + 2, end); v = zl[at + 1]; }
                        default -> {
                            if (b < 0xF1 || b > 0xFD) {
                                throw RdbInput.damaged(at, "ziplist entry encoding 0x" + Integer.toHexString(b) + " is none Redis writes");
                            }
                            width = 0;
                            v = (b & 0x0F) - 1;
                        }
                    }
                    out.add(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
                    at += 1 + width;
                }
            }
        }
        return out;
    }

    private static void need(int upTo, int end) throws RdbFormatException {
        if (upTo > end) {
            throw RdbInput.damaged(upTo, "a ziplist entry runs past its end");
        }
    }

    private static byte[] bytes(byte[] zl, int from, int n, int end) throws RdbFormatException {
        need(from + n, end);
        return java.util.Arrays.copyOfRange(zl, from, from + n);
    }
}
