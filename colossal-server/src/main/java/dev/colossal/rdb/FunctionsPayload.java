package dev.colossal.rdb;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of Redis 7.0's FUNCTION DUMP and FUNCTION RESTORE: each library's code, then the
 * RDB version and a CRC64 of what comes before, as a key's DUMP ends.
 *
 * <pre>
 *  +-----+-------------------+-----+-------------------+-----+-------------+------------+
 *  | 245 | code (RDB string) | 245 | code (RDB string) | ... | version (2) | CRC64 (8)  |
 *  +-----+-------------------+-----+-------------------+-----+-------------+------------+
 *  245 = RDB_OPCODE_FUNCTION2; version and CRC64 little-endian; a code may be LZF-compressed
 *  (Redis compresses strings over 20 bytes), and is written here uncompressed
 * </pre>
 */
public final class FunctionsPayload {

    private static final int FUNCTION2 = 245;
    private static final int FOOTER = 10;
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private FunctionsPayload() {
    }

    /** @return the payload of libraries with these codes */
    public static byte[] of(List<byte[]> codes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] code : codes) {
            out.write(FUNCTION2);
            writeLength(out, code.length);
            out.writeBytes(code);
        }
        out.write(DumpPayload.VERSION & 0xFF);
        out.write(DumpPayload.VERSION >>> 8);
        byte[] body = out.toByteArray();
        long crc = Crc64.of(body);
        byte[] all = java.util.Arrays.copyOf(body, body.length + 8);
        MemorySegment.ofArray(all).set(LONG_LE, body.length, crc);
        return all;
    }

    /**
     * @return the libraries' codes in {@code payload}
     * @throws RdbFormatException if it is too short, of a newer RDB version, its checksum does not
     *     match, or it holds anything but libraries
     */
    public static List<byte[]> codes(byte[] payload) throws RdbFormatException {
        MemorySegment p = MemorySegment.ofArray(payload);
        long end = p.byteSize() - FOOTER;
        if (end < 0) {
            throw RdbInput.damaged(0, "a payload of " + payload.length + " bytes is too short");
        }
        int version = Short.toUnsignedInt(p.get(SHORT_LE, end));
        if (version > RdbReader.NEWEST_VERSION || p.get(LONG_LE, end + 2) != Crc64.update(0, p, 0, end + 2)) {
            throw RdbInput.damaged(end, "the version or the checksum is wrong");
        }
        RdbInput in = new RdbInput(p.asSlice(0, end));
        List<byte[]> codes = new ArrayList<>();
        while (in.offset() < in.size()) {
            if (in.u8() != FUNCTION2) {
                throw RdbInput.damaged(in.offset() - 1, "not a function library");
            }
            codes.add(in.string());
        }
        return codes;
    }

    private static void writeLength(ByteArrayOutputStream out, int n) {
        if (n < 1 << 6) {
            out.write(n);
        } else if (n < 1 << 14) {
            out.write(0x40 | n >>> 8);
            out.write(n & 0xFF);
        } else {
            out.write(0x80);
            out.write(n >>> 24);
            out.write(n >>> 16 & 0xFF);
            out.write(n >>> 8 & 0xFF);
            out.write(n & 0xFF);
        }
    }
}
