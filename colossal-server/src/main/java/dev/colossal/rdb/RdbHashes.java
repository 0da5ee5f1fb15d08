package dev.colossal.rdb;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the two hash encodings Redis 7.0 writes (see {@link RdbValues}): type 4, a count of
 * (field, value) string pairs, and type 16, a {@link Listpack} saved as one string. Either is
 * refused empty or with a field twice, as Redis refuses them.
 */
final class RdbHashes {

    private RdbHashes() {}

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
        List<byte[]> out = Listpack.entries(in.string());
        if (out.size() % 2 != 0) {
            throw RdbInput.damaged(at, "a hash listpack of " + out.size() + " entries, not pairs");
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
