package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads and writes the set encodings of RDB files (see {@link RdbValues}): type 2, a count of
 * member strings; type 11, an intset saved as one string; type 20 (Redis 7.2), a {@link Listpack}
 * of the members. Each is refused empty or with a member twice, as Redis refuses them.
 *
 * <p>An intset, as Redis lays it out in memory and saves it:
 *
 * <pre>
 *  0                   4                   8
 *  +-------------------+-------------------+-------------------------------------------+
 *  | width (LE uint32) | count (LE uint32) | count integers of width bytes each (LE),  |
 *  | 2, 4 or 8 bytes   |                   | strictly ascending                        |
 *  +-------------------+-------------------+-------------------------------------------+
 *  width = the fewest bytes that hold every member (int16, int32 or int64).
 * </pre>
 */
final class RdbSets {

    static final int SET = 2;
    static final int SET_INTSET = 11;
    static final int SET_LISTPACK = 20;
    private static final int WIDTH_OFFSET = 0;
    private static final int COUNT_OFFSET = WIDTH_OFFSET + Integer.BYTES;
    private static final int CONTENTS_OFFSET = COUNT_OFFSET + Integer.BYTES;
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private RdbSets() {}

    /** @return the members of the type-2 set at {@code in} */
    static List<byte[]> members(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        long n = in.length();
        // Every string takes a byte at least: a count beyond that is damage, not a reason to allocate
        if (n > in.size() - in.offset()) {
            throw RdbInput.damaged(at, "a set of " + n + " members in " + (in.size() - in.offset()) + " bytes");
        }
        List<byte[]> out = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) {
            out.add(in.string());
        }
        return checked(out, at);
    }

    /** @return the members, as decimals, of the type-11 intset at {@code in} */
    static List<byte[]> intsetMembers(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        MemorySegment b = MemorySegment.ofArray(in.string());
        if (b.byteSize() < CONTENTS_OFFSET) {
            throw RdbInput.damaged(at, "an intset of " + b.byteSize() + " bytes");
        }
        int width = b.get(INT_LE, WIDTH_OFFSET);
        long n = Integer.toUnsignedLong(b.get(INT_LE, COUNT_OFFSET));
        if ((width != 2 && width != 4 && width != 8) || CONTENTS_OFFSET + n * width != b.byteSize()) {
            throw RdbInput.damaged(at, "an intset of width " + width + " and " + n + " members in " + b.byteSize() + " bytes");
        }
        List<byte[]> out = new ArrayList<>((int) n);
        long previous = 0;
        for (int i = 0; i < n; i++) {
            long at8 = CONTENTS_OFFSET + (long) i * width;
            long v = width == 2 ? b.get(SHORT_LE, at8) : width == 4 ? b.get(INT_LE, at8) : b.get(LONG_LE, at8);
            if (i > 0 && v <= previous) {
                throw RdbInput.damaged(at, "an intset out of order");
            }
            previous = v;
            out.add(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
        }
        return checked(out, at);
    }

    /** @return the members of the type-20 listpack set at {@code in} */
    static List<byte[]> listpackMembers(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        return checked(Listpack.entries(in.string()), at);
    }

    private static List<byte[]> checked(List<byte[]> members, long at) throws RdbFormatException {
        if (members.isEmpty()) {
            throw RdbInput.damaged(at, "an empty set");
        }
        Set<ByteBuffer> seen = new HashSet<>();
        for (byte[] m : members) {
            if (!seen.add(ByteBuffer.wrap(m))) {
                throw RdbInput.damaged(at, "a set with a member twice");
            }
        }
        return members;
    }

    /**
     * @param ascending the values of a set Redis holds as an intset, ascending
     * @return the intset's bytes, in the fewest bytes a member that hold them all
     */
    static byte[] intset(long[] ascending) {
        int width = 2;
        for (long v : ascending) {
            width = Math.max(width, v == (short) v ? 2 : v == (int) v ? 4 : 8);
        }
        byte[] out = new byte[CONTENTS_OFFSET + ascending.length * width];
        MemorySegment o = MemorySegment.ofArray(out);
        o.set(INT_LE, WIDTH_OFFSET, width);
        o.set(INT_LE, COUNT_OFFSET, ascending.length);
        for (int i = 0; i < ascending.length; i++) {
            long at = CONTENTS_OFFSET + (long) i * width;
            switch (width) {
                case 2 -> o.set(SHORT_LE, at, (short) ascending[i]);
                case 4 -> o.set(INT_LE, at, (int) ascending[i]);
                default -> o.set(LONG_LE, at, ascending[i]);
            }
        }
        return out;
    }
}
