package dev.colossal.rdb;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads every hash encoding of RDB (see {@link RdbValues}): the two Redis 7.0 writes, type 4, a
 * count of (field, value) string pairs, and type 16, a {@link Listpack} saved as one string; and
 * those of older Redis that Redis 7.0 still loads, type 13, a {@link Ziplist} of field, value,
 * ..., and type 9, a zipmap (Redis before 2.6), one string:
 *
 * <pre>
 *  +-------+------+-------+------+------+-------+------+-----+------+
 *  | count | flen | field | vlen | free | value | free | ... | 0xFF |
 *  +-------+------+-------+------+------+-------+------+-----+------+
 *   1 byte  a length: one byte below 254, or 254 then 4 bytes LE
 *           free: one byte, the count of unused bytes after the value (skipped)
 * </pre>
 *
 * Each is refused empty or with a field twice, as Redis refuses them.
 */
final class RdbHashes {

    static final int ZIPMAP = 9;
    static final int ZIPLIST = 13;
    private static final int ZIPMAP_BIG_LENGTH = 254;
    private static final int ZIPMAP_END = 0xFF;

    private RdbHashes() {}

    /** @return whether {@code type} is one of the hash encodings this class reads */
    static boolean isHash(int type) {
        return type == RdbValues.HASH || type == RdbValues.HASH_LISTPACK || type == ZIPLIST || type == ZIPMAP;
    }

    /** @return the fields and values, alternately, of the hash of RDB type {@code type} (one {@link #isHash} takes) at {@code in} */
    static List<byte[]> read(RdbInput in, int type) throws RdbFormatException {
        return switch (type) {
            case RdbValues.HASH -> pairs(in);
            case RdbValues.HASH_LISTPACK -> listpackPairs(in);
            case ZIPLIST -> {
                long at = in.offset();
                yield evenly(Ziplist.entries(in.string()), at);
            }
            default -> zipmapPairs(in);
        };
    }

    /** @return the fields and values, alternately, of the type-4 hash at {@code in} */
    static List<byte[]> pairs(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        long n = in.length();
        // Every string takes a byte at least: a count beyond that is damage, not a reason to allocate
        if (n > (in.size() - in.offset()) / 2) {
            throw RdbInput.damaged(at, "a hash of " + n + " pairs in " + (in.size() - in.offset()) + " bytes");
        }
        List<byte[]> out = new ArrayList<>((int) n * 2);
        for (long i = 0; i < 2 * n; i++) {
            out.add(in.string());
        }
        return checked(out, at);
    }

    /** @return the fields and values, alternately, of the type-16 hash at {@code in} */
    static List<byte[]> listpackPairs(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        return evenly(Listpack.entries(in.string()), at);
    }

    /** @return {@code entries} of a listpack or ziplist at {@code at}, checked as a hash's fields and values */
    private static List<byte[]> evenly(List<byte[]> entries, long at) throws RdbFormatException {
        if (entries.size() % 2 != 0) {
            throw RdbInput.damaged(at, "a hash's list of " + entries.size() + " entries, not pairs");
        }
        return checked(entries, at);
    }

    /** @return the fields and values, alternately, of the type-9 hash (a zipmap) at {@code in} */
    private static List<byte[]> zipmapPairs(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        byte[] zm = in.string();
        List<byte[]> out = new ArrayList<>();
        int p = 1;   // past the count, which is only a hint (255 when the map is bigger)
        while (true) {
            if (p >= zm.length) {
                throw RdbInput.damaged(at, "a zipmap without its end byte");
            }
            if ((zm[p] & 0xFF) == ZIPMAP_END) {
                break;
            }
            for (int part = 0; part < 2; part++) {
                int len = zm[p] & 0xFF;
                if (len == ZIPMAP_BIG_LENGTH) {
                    if (p + 5 > zm.length) {
                        throw RdbInput.damaged(at, "a zipmap cut in a length");
                    }
                    len = java.nio.ByteBuffer.wrap(zm, p + 1, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
                    p += 5;
                } else if (len > ZIPMAP_BIG_LENGTH) {
                    throw RdbInput.damaged(at, "a zipmap length byte " + len);
                } else {
                    p++;
                }
                int free = 0;
                if (part == 1) {
                    free = p < zm.length ? zm[p] & 0xFF : 0;
                    p++;
                }
                if (len < 0 || p + (long) len + free > zm.length) {
                    throw RdbInput.damaged(at, "a zipmap entry of " + len + " bytes past its end");
                }
                out.add(java.util.Arrays.copyOfRange(zm, p, p + len));
                p += len + free;
            }
        }
        return checked(out, at);
    }

    private static List<byte[]> checked(List<byte[]> pairs, long at) throws RdbFormatException {
        if (pairs.isEmpty()) {
            throw RdbInput.damaged(at, "an empty hash");
        }
        Set<ByteBuffer> seen = new HashSet<>();
        for (int i = 0; i < pairs.size(); i += 2) {
            if (!seen.add(ByteBuffer.wrap(pairs.get(i)))) {
                throw RdbInput.damaged(at, "a hash with a field twice");
            }
        }
        return pairs;
    }
}
