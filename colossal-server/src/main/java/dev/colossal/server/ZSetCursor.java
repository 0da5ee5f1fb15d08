package dev.colossal.server;

import java.util.Arrays;

/**
 * Walks the entries of a sorted set payload ({@link ZSetLayout}) where it lies, in (score, member)
 * order, copying nothing: what the read commands use, so that a range read stops at its range's end
 * and ZSCORE allocates nothing per member it passes.
 */
final class ZSetCursor {

    private final byte[] bytes;
    private final int end;
    private final int first;
    private final int[] pos = new int[1];
    private final int count;
    private final byte encoding;
    private int index = -1;
    private int entryAt;
    private double score;
    private int memberAt;
    private int memberLength;

    /** A cursor before the first entry of the payload {@code bytes[from, bytes.length)}. */
    ZSetCursor(byte[] bytes, int from) {
        this.bytes = bytes;
        this.end = bytes.length;
        if (from >= end) {
            throw ZSetLayout.damaged("no encoding byte", 0);
        }
        this.encoding = bytes[from + ZSetLayout.ENCODING_OFFSET];
        pos[0] = from + ZSetLayout.COUNT_OFFSET;
        this.count = HashLayout.getVarint(bytes, pos, end);
        this.first = pos[0];
    }

    /** A cursor over the sorted set {@code e} holds. */
    ZSetCursor(KeyValueStore.Entry e) {
        this(e.array(), e.offset());
    }

    int count() {
        return count;
    }

    /** @return {@link ZSetLayout#LISTPACK} or {@link ZSetLayout#SKIPLIST} */
    byte encoding() {
        return encoding;
    }

    /** Moves to the next entry; @return false after the last */
    boolean next() {
        if (index + 1 >= count) {
            index = count;
            return false;
        }
        index++;
        entryAt = pos[0];
        if (entryAt + ZSetLayout.SCORE_LENGTH > end) {
            throw ZSetLayout.damaged("a score runs past the value's end", entryAt);
        }
        score = ZSetLayout.getScore(bytes, entryAt);
        pos[0] = entryAt + ZSetLayout.SCORE_LENGTH;
        memberLength = HashLayout.getVarint(bytes, pos, end);
        memberAt = pos[0];
        pos[0] += memberLength;
        if (pos[0] > end || pos[0] < 0) {
            throw ZSetLayout.damaged("a member runs past the value's end", memberAt);
        }
        return true;
    }

    /** Goes back to an entry seen before: {@code next()} then reads the entry at {@code at} ({@link #entryAt}) as number {@code i}. */
    void seek(int i, int at) {
        index = i - 1;
        pos[0] = at;
    }

    /** Back to before the first entry. */
    void rewind() {
        seek(0, first);
    }

    /** Moves to the entry of {@code member} from the start; @return false if there is none */
    boolean find(byte[] member) {
        rewind();
        while (next()) {
            if (memberIs(member)) {
                return true;
            }
        }
        return false;
    }

    boolean memberIs(byte[] member) {
        return Arrays.equals(bytes, memberAt, memberAt + memberLength, member, 0, member.length);
    }

    /** @return the current entry's place in the order, from 0 */
    int index() {
        return index;
    }

    /** @return where the current entry starts, for {@link #seek} */
    int entryAt() {
        return entryAt;
    }

    double score() {
        return score;
    }

    byte[] bytes() {
        return bytes;
    }

    int memberAt() {
        return memberAt;
    }

    int memberLength() {
        return memberLength;
    }

    byte[] member() {
        return Arrays.copyOfRange(bytes, memberAt, memberAt + memberLength);
    }

    /** @return how the current member compares with {@code other} as unsigned bytes */
    int compareMember(byte[] other) {
        return Arrays.compareUnsigned(bytes, memberAt, memberAt + memberLength, other, 0, other.length);
    }
}
