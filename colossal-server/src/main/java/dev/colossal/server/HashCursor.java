package dev.colossal.server;

import java.util.Arrays;

/**
 * Walks the pairs of a hash payload ({@link HashLayout}) where it lies, copying nothing: what the
 * read commands use, so that HGET on a hash allocates no array per field it passes.
 */
final class HashCursor {

    private final byte[] bytes;
    private final int end;
    private final int[] pos = new int[1];
    private final int count;
    private final byte encoding;
    private int left;
    private int fieldAt;
    private int fieldLength;
    private int valueAt;
    private int valueLength;

    /** A cursor before the first pair of the payload {@code bytes[from, bytes.length)}. */
    HashCursor(byte[] bytes, int from) {
        this.bytes = bytes;
        this.end = bytes.length;
        if (from >= end) {
            throw HashLayout.damaged("no encoding byte", 0);
        }
        this.encoding = bytes[from + HashLayout.ENCODING_OFFSET];
        pos[0] = from + HashLayout.COUNT_OFFSET;
        this.count = HashLayout.getVarint(bytes, pos, end);
        this.left = count;
    }

    /** A cursor over the hash {@code e} holds. */
    HashCursor(KeyValueStore.Entry e) {
        this(e.array(), e.offset());
    }

    /** @return the number of pairs */
    int count() {
        return count;
    }

    /** @return {@link HashLayout#LISTPACK} or {@link HashLayout#HASHTABLE} */
    byte encoding() {
        return encoding;
    }

    /** Moves to the next pair; @return false after the last */
    boolean next() {
        if (left == 0) {
            return false;
        }
        left--;
        fieldLength = HashLayout.getVarint(bytes, pos, end);
        fieldAt = pos[0];
        pos[0] += fieldLength;
        valueLength = HashLayout.getVarint(bytes, pos, end);
        valueAt = pos[0];
        pos[0] += valueLength;
        if (pos[0] > end || pos[0] < 0) {
            throw HashLayout.damaged("a pair runs past the value's end", fieldAt);
        }
        return true;
    }

    /** Moves to the pair of {@code field} from the start; @return false if there is none (the cursor is then at the end) */
    boolean find(byte[] field) {
        while (next()) {
            if (fieldIs(field)) {
                return true;
            }
        }
        return false;
    }

    boolean fieldIs(byte[] field) {
        return Arrays.equals(bytes, fieldAt, fieldAt + fieldLength, field, 0, field.length);
    }

    byte[] bytes() {
        return bytes;
    }

    int fieldAt() {
        return fieldAt;
    }

    int fieldLength() {
        return fieldLength;
    }

    int valueAt() {
        return valueAt;
    }

    int valueLength() {
        return valueLength;
    }

    byte[] field() {
        return Arrays.copyOfRange(bytes, fieldAt, fieldAt + fieldLength);
    }

    byte[] value() {
        return Arrays.copyOfRange(bytes, valueAt, valueAt + valueLength);
    }
}
