package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A DUMP payload as text with what may lawfully differ between two servers that both write Redis
 * 7.0's format taken out: each string is read whole (an LZF-compressed one expanded: Redis
 * compresses strings over 20 bytes, Colossal writes them plain), the members of a hashtable
 * (types 2 and 4, whose order follows Redis's random hash seed) are sorted, and the checksum
 * (which covers the compressed bytes) is left off. Two payloads of one value give one text.
 */
public final class PayloadForms {

    private static final HexFormat HEX = HexFormat.of();

    private PayloadForms() {}

    /**
     * @param payload a DUMP payload of a string, hash, set, sorted set, list or stream
     * @return its form, beginning with the RDB type and version
     * @throws RdbFormatException if it is not one
     */
    public static String of(byte[] payload) throws RdbFormatException {
        int type = Byte.toUnsignedInt(payload[0]);
        int end = payload.length - 10;
        int version = Byte.toUnsignedInt(payload[end]) | Byte.toUnsignedInt(payload[end + 1]) << 8;
        RdbInput in = new RdbInput(MemorySegment.ofArray(payload).asSlice(1, end - 1));
        StringBuilder b = new StringBuilder("type " + type + " version " + version + ":");
        switch (type) {
            case 0, 11, 16, 17 -> b.append(' ').append(hex(in.string()));
            case 2 -> b.append(sorted(in, in.length(), 1));
            case 4 -> b.append(sorted(in, in.length(), 2));
            case 5 -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    b.append(' ').append(hex(in.string())).append('=').append(raw(in, Double.BYTES));
                }
            }
            case 18 -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    b.append(" node ").append(in.length()).append(' ').append(hex(in.string()));
                }
            }
            case 19 -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    b.append(" node ").append(hex(in.string())).append(' ').append(hex(in.string()));
                }
                // counters, groups and consumers: lengths and short names, which no Redis compresses
                b.append(" rest ").append(raw(in, (int) (in.size() - in.offset())));
            }
            default -> throw RdbInput.damaged(0, "type " + type + " has no form here");
        }
        if (in.offset() != in.size()) {
            throw RdbInput.damaged(in.offset(), (in.size() - in.offset()) + " bytes after the value");
        }
        return b.toString();
    }

    /** @return {@code n} groups of {@code per} strings, each group as one text, sorted */
    private static String sorted(RdbInput in, long n, int per) throws RdbFormatException {
        List<String> all = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            StringBuilder g = new StringBuilder();
            for (int k = 0; k < per; k++) {
                g.append(k == 0 ? "" : "=").append(hex(in.string()));
            }
            all.add(g.toString());
        }
        all.sort(null);
        return " " + n + " " + all;
    }

    private static String raw(RdbInput in, int n) throws RdbFormatException {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = (byte) in.u8();
        }
        return hex(out);
    }

    private static String hex(byte[] b) {
        return HEX.formatHex(b);
    }
}
