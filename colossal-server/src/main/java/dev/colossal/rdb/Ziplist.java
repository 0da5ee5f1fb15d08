package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a ziplist, the compact list Redis before 7.0 saved a small sorted set as (RDB type 12):
 * its entries as strings, integers given as their decimal text.
 *
 * <pre>
 *  0            4            8             10
 *  +------------+------------+-------------+-------------------------------------+------+
 *  | total bytes| last entry | entry count | entries: prevlen, encoding, data    | 0xFF |
 *  | (u32 LE)   | (u32 LE)   | (u16 LE)    |                                     | end  |
 *  +------------+------------+-------------+-------------------------------------+------+
 *  prevlen: 1 byte below 254, else 0xFE and 4 bytes LE
 *  encoding (first byte)               data
 *  00LLLLLL                            a string of L bytes (6 bits)
 *  01LLLLLL LLLLLLLL                   a string of L bytes (14 bits, big-endian)
 *  10000000 [4 bytes BE]               a string of that many bytes
 *  11000000 / 11010000 / 11100000      a 16 / 32 / 64-bit signed integer, LE
 *  11110000 / 11111110                 a 24 / 8-bit signed integer, LE
 *  1111xxxx (xxxx 0001 to 1101)        none: the integer xxxx - 1 (0 to 12)
 * </pre>
 */
final class Ziplist {

    private static final int HEADER = 10;
    private static final int END = 0xFF;
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
        if (zl.length < HEADER + 1 || Integer.toUnsignedLong(s.get(INT_LE, 0)) != zl.length || (zl[zl.length - 1] & 0xFF) != END) {
            throw RdbInput.damaged(0, "a ziplist of " + zl.length + " bytes whose header or end is not a ziplist's");
        }
        int end = zl.length - 1;
        List<byte[]> out = new ArrayList<>();
        int at = HEADER;
        while (at < end) {
            int start = at;
            at += (zl[at] & 0xFF) < 254 ? 1 : 5;
            need(at + 1, end, start);
            int b = zl[at] & 0xFF;
            byte[] entry;
            switch (b >>> 6) {
                case 0 -> {
                    entry = bytes(zl, at + 1, b & 0x3F, end, start);
                    at += 1 + (b & 0x3F);
                }
                case 1 -> {
                    need(at + 2, end, start);
                    int n = ((b & 0x3F) << 8) | (zl[at + 1] & 0xFF);
                    entry = bytes(zl, at + 2, n, end, start);
                    at += 2 + n;
                }
                case 2 -> {
                    need(at + 5, end, start);
                    int n = s.get(INT_BE, at + 1);
                    if (n < 0 || n > end) {
                        throw RdbInput.damaged(start, "a ziplist string runs past its end");
                    }
                    entry = bytes(zl, at + 5, n, end, start);
                    at += 5 + n;
                }
                default -> {
                    int width = switch (b) {
                        case 0xC0 -> 2;
                        case 0xD0 -> 4;
                        case 0xE0 -> 8;
                        case 0xF0 -> 3;
                        case 0xFE -> 1;
                        default -> b >= 0xF1 && b <= 0xFD ? 0 : -1;
                    };
                    if (width < 0) {
                        throw RdbInput.damaged(start, "ziplist entry encoding 0x" + Integer.toHexString(b) + " is none Redis writes");
                    }
                    need(at + 1 + width, end, start);
                    long v = switch (width) {
                        case 0 -> (b & 0x0F) - 1;
                        case 1 -> zl[at + 1];
                        case 2 -> s.get(SHORT_LE, at + 1);
                        case 3 -> (zl[at + 1] & 0xFFL) | (zl[at + 2] & 0xFFL) << 8 | (long) zl[at + 3] << 16;
                        case 4 -> s.get(INT_LE, at + 1);
                        default -> s.get(LONG_LE, at + 1);
                    };
                    entry = Long.toString(v).getBytes(StandardCharsets.US_ASCII);
                    at += 1 + width;
                }
            }
            out.add(entry);
        }
        return out;
    }

    private static void need(int upTo, int end, int entry) throws RdbFormatException {
        if (upTo > end) {
            throw RdbInput.damaged(entry, "a ziplist entry runs past its end");
        }
    }

    private static byte[] bytes(byte[] zl, int from, int n, int end, int entry) throws RdbFormatException {
        need(from + n, end, entry);
        return java.util.Arrays.copyOfRange(zl, from, from + n);
    }
}
