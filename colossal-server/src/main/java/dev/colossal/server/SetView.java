package dev.colossal.server;

import java.util.Arrays;

/**
 * A set's payload ({@link SetLayout}) read where it lies, copying nothing: member {@code i}'s
 * bounds by its end in the table, and a member found by binary search. What the read commands use,
 * so that SISMEMBER on a large set neither decodes it nor allocates per member.
 */
final class SetView {

    private final byte[] bytes;
    private final int base;
    private final int count;
    private final byte encoding;
    private final int membersAt;

    /**
     * A view of the payload {@code bytes[from, bytes.length)}.
     *
     * @throws IllegalStateException if its header or table do not fit it: a damaged value
     */
    SetView(byte[] bytes, int from) {
        this.bytes = bytes;
        this.base = from;
        int length = bytes.length - from;
        if (length < SetLayout.ENDS_OFFSET) {
            throw SetLayout.damaged("shorter than its header", 0);
        }
        this.encoding = bytes[from + SetLayout.ENCODING_OFFSET];
        this.count = SetLayout.getInt(bytes, from + SetLayout.COUNT_OFFSET);
        if (count <= 0 || SetLayout.membersOffset(count) > length) {
            throw SetLayout.damaged("count=" + count + " does not fit " + length + " bytes", SetLayout.COUNT_OFFSET);
        }
        this.membersAt = from + (int) SetLayout.membersOffset(count);
        if (membersAt + (long) end(count - 1) != bytes.length) {
            throw SetLayout.damaged("the members do not end where the value does", SetLayout.endOffset(count - 1));
        }
    }

    /** A view of the set {@code e} holds. */
    SetView(KeyValueStore.Entry e) {
        this(e.array(), e.offset());
    }

    int count() {
        return count;
    }

    /** @return {@link SetLayout#INTSET} or {@link SetLayout#HASHTABLE} */
    byte encoding() {
        return encoding;
    }

    byte[] bytes() {
        return bytes;
    }

    private int end(int i) {
        return SetLayout.getInt(bytes, base + SetLayout.endOffset(i));
    }

    /** @return where member {@code i} starts in {@link #bytes()} */
    int start(int i) {
        int s = membersAt + (i == 0 ? 0 : end(i - 1));
        if (s < membersAt || s > bytes.length) {
            throw SetLayout.damaged("member " + i + " starts outside the value", SetLayout.endOffset(i - 1));
        }
        return s;
    }

    /** @return member {@code i}'s length */
    int length(int i) {
        int n = end(i) - (i == 0 ? 0 : end(i - 1));
        if (n < 0) {
            throw SetLayout.damaged("member " + i + " ends before it starts", SetLayout.endOffset(i));
        }
        return n;
    }

    /** @return a copy of member {@code i} */
    byte[] member(int i) {
        int s = start(i);
        return Arrays.copyOfRange(bytes, s, s + length(i));
    }

    /** @return the position of {@code m}, or -1 if it is not a member */
    int indexOf(byte[] m) {
        return indexOf(m, 0, m.length);
    }

    /** @return the position of {@code m[from, from + length)}, or -1 if it is not a member */
    int indexOf(byte[] m, int from, int length) {
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = SetOrder.compare(bytes, start(mid), length(mid), m, from, length);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    boolean contains(byte[] m) {
        return indexOf(m) >= 0;
    }
}
