package dev.colossal.rdb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the sorted set encodings of RDB files and DUMP payloads (see {@link RdbValues}): type 5, a
 * count of (member, 8-byte little-endian double) pairs, as Redis 7.0 writes a skiplist; type 17, a
 * {@link Listpack} of member, score text, member, score text, as it writes a small set; type 3
 * (scores as text) and type 12 (a {@link Ziplist}) of Redis before 7.0.
 */
public final class RdbZSets {

    static final int ZSET = 3;
    static final int ZSET_2 = 5;
    static final int ZSET_ZIPLIST = 12;
    static final int ZSET_LISTPACK = 17;

    /**
     * A sorted set as a dump holds it.
     *
     * @param members  its members, in the dump's order, none twice
     * @param scores   their scores, in the same places; no NaN
     * @param listpack whether the dump held it as a listpack or ziplist (Redis keeps such a set a
     *                 listpack when it loads it, unless it has more members than a listpack takes)
     */
    public record ZSet(List<byte[]> members, double[] scores, boolean listpack) {}

    private RdbZSets() {}

    /** @return whether {@code type} is one of the sorted set encodings this class reads */
    static boolean isZSet(int type) {
        return type == ZSET || type == ZSET_2 || type == ZSET_ZIPLIST || type == ZSET_LISTPACK;
    }

    /** @return the sorted set of RDB type {@code type} at {@code in} */
    static ZSet read(RdbInput in, int type) throws RdbFormatException {
        long at = in.offset();
        return switch (type) {
            case ZSET, ZSET_2 -> {
                long n = in.length();
                // A member and a score take two bytes at least: a count beyond that is damage, not a reason to allocate
                if (n > (in.size() - in.offset()) / 2) {
                    throw RdbInput.damaged(at, "a sorted set of " + n + " members in " + (in.size() - in.offset()) + " bytes");
                }
                List<byte[]> members = new ArrayList<>((int) n);
                double[] scores = new double[(int) n];
                for (int i = 0; i < n; i++) {
                    members.add(in.string());
                    scores[i] = type == ZSET_2 ? Double.longBitsToDouble(in.int64le()) : textScore(in);
                }
                yield checked(new ZSet(members, scores, false), at);
            }
            default -> {
                List<byte[]> entries = type == ZSET_LISTPACK ? Listpack.entries(in.string()) : Ziplist.entries(in.string());
                if (entries.size() % 2 != 0) {
                    throw RdbInput.damaged(at, "a sorted set listpack of " + entries.size() + " entries, not pairs");
                }
                List<byte[]> members = new ArrayList<>(entries.size() / 2);
                double[] scores = new double[entries.size() / 2];
                for (int i = 0; i < entries.size(); i += 2) {
                    members.add(entries.get(i));
                    scores[i / 2] = parse(entries.get(i + 1), at);
                }
                yield checked(new ZSet(members, scores, true), at);
            }
        };
    }

    /** Type 3's score: a length byte, then that many bytes of text; 253, 254, 255 stand for NaN, +inf, -inf. */
    private static double textScore(RdbInput in) throws RdbFormatException {
        long at = in.offset();
        int n = in.u8();
        return switch (n) {
            case 253 -> Double.NaN;
            case 254 -> Double.POSITIVE_INFINITY;
            case 255 -> Double.NEGATIVE_INFINITY;
            default -> parse(in.raw(n, "a sorted set score"), at);
        };
    }

    /** A score's text as Redis writes it ({@code %.17g}, an integer, {@code inf}, {@code -inf}). */
    private static double parse(byte[] text, long at) throws RdbFormatException {
        String s = new String(text, StandardCharsets.ISO_8859_1);
        switch (s) {
            case "inf", "+inf" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-inf" -> {
                return Double.NEGATIVE_INFINITY;
            }
            default -> {
                if (!s.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
                    throw RdbInput.damaged(at, "a sorted set score '" + s + "' that is not a number");
                }
                return Double.parseDouble(s);
            }
        }
    }

    private static ZSet checked(ZSet z, long at) throws RdbFormatException {
        if (z.members().isEmpty()) {
            throw RdbInput.damaged(at, "an empty sorted set");
        }
        Set<ByteBuffer> seen = new HashSet<>();
        for (int i = 0; i < z.members().size(); i++) {
            if (!seen.add(ByteBuffer.wrap(z.members().get(i)))) {
                throw RdbInput.damaged(at, "a sorted set with a member twice");
            }
            if (Double.isNaN(z.scores()[i])) {
                throw RdbInput.damaged(at, "a sorted set score that is NaN");
            }
        }
        return z;
    }
}
