package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a listpack, the compact list Redis 7 saves a small hash as (RDB type 16): its entries as
 * strings, integers given as their decimal text, as Redis answers them.
 *
 * <pre>
 *  0              4              6
 *  +--------------+--------------+---------------------------------------+------+
 *  | total bytes  | entry count  | entries: encoding, data, back-length  | 0xFF |
 *  | (u32 LE)     | (u16 LE;     |                                       | end  |
 *  |              | 65535 = many)|                                       |      |
 *  +--------------+--------------+---------------------------------------+------+
 *  encoding (first byte)                 data
 *  0xxxxxxx                              none: an integer 0..127
 *  10LLLLLL                              a string of L bytes (6 bits)
 *  110xxxxx xxxxxxxx                     none: a 13-bit signed integer
 *  1110LLLL LLLLLLLL                     a string of L bytes (12 bits, big-endian)
 *  11110000 [4 bytes LE]                 a string of that many bytes (32 bits)
 *  11110001 / 0010 / 0011 / 0100         a 16 / 24 / 32 / 64-bit signed integer, LE
 *  back-length: the entry's encoding and data length, 7 bits a byte, 1 to 5 bytes
 *  (1 up to 127, 2 below 16383, 3 below 2097151, 4 below 268435455, else 5)
 * </pre>
 */
final class Listpack {

    private static final int HEADER = Integer.BYTES + Short.BYTES;
    private static final int END = 0xFF;
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Listpack() {}

    /**
     * @param lp a listpack's bytes
     * @return its entries in order
     * @throws RdbFormatException if the bytes are not a sound listpack
     */
    static List<byte[]> entries(byte[] lp) throws RdbFormatException {
        MemorySegment s = MemorySegment.ofArray(lp);
        if (lp.length < HEADER + 1 || Integer.toUnsignedLong(s.get(INT_LE, 0)) != lp.length || (lp[lp.length - 1] & 0xFF) != END) {
            throw RdbInput.damaged(0, "a listpack of " + lp.length + " bytes whose header or end is not a listpack's");
        }
        int declared = Short.toUnsignedInt(s.get(SHORT_LE, Integer.BYTES));
        List<byte[]> out = new ArrayList<>(declared == 0xFFFF ? 16 : declared);
        int at = HEADER;
        int end = lp.length - 1;
        while (at < end) {
            int start = at;
            int b = lp[at] & 0xFF;
            byte[] entry;
            if (b < 0x80) {
                entry = decimal(b);
                at += 1;
            } else if (b < 0xC0) {
                int n = b & 0x3F;
                entry = bytes(lp, at + 1, n, end);
                at += 1 + n;
            } else if (b < 0xE0) {
                need(at + 2, end);
                int v = ((b & 0x1F) << 8) | (lp[at + 1] & 0xFF);
                entry = decimal((v << 19) >> 19);
                at += 2;
            } else if (b < 0xF0) {
                need(at + 2, end);
                int n = ((b & 0x0F) << 8) | (lp[at + 1] & 0xFF);
                entry = bytes(lp, at + 2, n, end);
                at += 2 + n;
            } else if (b == 0xF0) {
                need(at + 5, end);
                long n = Integer.toUnsignedLong(s.get(INT_LE, at + 1));
                if (n > end) {
                    throw RdbInput.damaged(at, "a listpack string runs past its end");
                }
                entry = bytes(lp, at + 5, (int) n, end);
                at += 5 + (int) n;
            } else if (b >= 0xF1 && b <= 0xF4) {
                int width = b == 0xF1 ? 2 : b == 0xF2 ? 3 : b == 0xF3 ? 4 : 8;
                need(at + 1 + width, end);
                entry = decimal(signed(s, at + 1, width));
                at += 1 + width;
            } else {
                throw RdbInput.damaged(at, "listpack entry encoding 0x" + Integer.toHexString(b) + " is none Redis writes");
            }
            at += backLengthSize(at - start);
            if (at > end) {
                throw RdbInput.damaged(start, "a listpack entry runs past its end");
            }
            out.add(entry);
        }
        if (declared != 0xFFFF && declared != out.size()) {
            throw RdbInput.damaged(Integer.BYTES, "a listpack says it holds " + declared + " entries and holds " + out.size());
        }
        return out;
    }

    /**
     * Writes {@code entries} as one listpack, each integer Redis would store as one (its canonical
     * decimal, at most 64 bits) in the smallest integer encoding, as Redis's {@code lpAppend} does.
     *
     * @return the listpack's bytes
     */
    static byte[] write(List<byte[]> entries) {
        return ListpackWriter.encode(entries);
    }

    /** @return how many bytes {@link #write} adds for an entry of {@code e}, with its back-length */
    static int entrySize(byte[] e) {
        int n = CanonicalDecimal.is(e) ? 9 : e.length < 64 ? 1 + e.length : e.length < 4096 ? 2 + e.length : 5 + e.length;
        return n + backLengthSize(n);
    }

    private static int backLengthSize(int entryLength) {
        return entryLength <= 127 ? 1 : entryLength < 16383 ? 2 : entryLength < 2097151 ? 3 : entryLength < 268435455 ? 4 : 5;
    }

    private static long signed(MemorySegment s, int at, int width) {
        return switch (width) {
            case 2 -> s.get(SHORT_LE, at);
            case 3 -> ((s.get(ValueLayout.JAVA_BYTE, at) & 0xFFL) | (s.get(ValueLayout.JAVA_BYTE, at + 1) & 0xFFL) << 8
                    | (long) s.get(ValueLayout.JAVA_BYTE, at + 2) << 16);
            case 4 -> s.get(INT_LE, at);
            default -> s.get(LONG_LE, at);
        };
    }

    private static void need(int upTo, int end) throws RdbFormatException {
        if (upTo > end) {
            throw RdbInput.damaged(upTo, "a listpack entry runs past its end");
        }
    }

    private static byte[] bytes(byte[] lp, int from, int n, int end) throws RdbFormatException {
        need(from + n, end);
        return java.util.Arrays.copyOfRange(lp, from, from + n);
    }

    private static byte[] decimal(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
