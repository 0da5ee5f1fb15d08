package dev.colossal.server;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * A run of list elements packed one after another, each as {@link ListLayout}'s packed element (a
 * 4-byte big-endian length, then its bytes): a small list's elements behind its header, a big
 * list's head or tail run in its header, or one of its nodes in the element map. Read in place from
 * the array a map read gave, changed in memory into arrays of its own, then written whole by its
 * owner.
 */
final class PackedRun {

    private byte[] bytes;
    /** Where the run starts in {@link #bytes}: never written, so it may be a map read's array. */
    private int start;
    private int length;
    private int count;

    private PackedRun(byte[] bytes, int start, int length, int count) {
        this.bytes = bytes;
        this.start = start;
        this.length = length;
        this.count = count;
    }

    static PackedRun empty() {
        return new PackedRun(new byte[0], 0, 0, 0);
    }

    /**
     * @return the run of {@code count} elements packed from {@code from} of {@code b} within
     *         {@code limit} (for a negative {@code count}, every element up to {@code limit}), read
     *         where it is: {@code b} must not change after
     * @throws IllegalStateException naming what {@code what} gives if they are not there
     */
    static PackedRun read(byte[] b, int from, int limit, long count, Supplier<String> what) {
        int at = from;
        long n = 0;
        for (; count < 0 ? at < limit : n < count; n++) {
            int size = limit - at < ListLayout.PACKED_LENGTH_BYTES ? -1 : ListLayout.packedSize(b, at);
            if (size < ListLayout.PACKED_LENGTH_BYTES || size > limit - at) {
                throw new IllegalStateException(what.get() + " is damaged at element " + n + " (offset " + (at - from)
                        + "): the map file is damaged; run 'colossal repair'");
            }
            at += size;
        }
        return new PackedRun(b, from, at - from, (int) n);
    }

    /** @return a run of {@code all}, in order */
    static PackedRun of(List<byte[]> all) {
        PackedRun r = empty();
        for (byte[] v : all) {
            r.append(v);
        }
        return r;
    }

    int count() {
        return count;
    }

    /** @return the bytes the run takes, lengths included */
    int length() {
        return length;
    }

    /** @return the bytes a run of {@code v} alone takes */
    static int sizeOf(byte[] v) {
        return ListLayout.PACKED_LENGTH_BYTES + v.length;
    }

    /** @return where element {@code index} starts in {@link #bytes} ({@link #start} + {@link #length} for {@code count}) */
    private int offset(int index) {
        int at = start;
        for (int i = 0; i < index; i++) {
            at += ListLayout.packedSize(bytes, at);
        }
        return at;
    }

    /** Copies the run into {@code b} at {@code at}; @return where it ends */
    int copyTo(byte[] b, int at) {
        System.arraycopy(bytes, start, b, at, length);
        return at + length;
    }

    /** @return the run as a node's value */
    byte[] toBytes() {
        return Arrays.copyOfRange(bytes, start, start + length);
    }

    /** @return element {@code index} */
    byte[] element(int index) {
        int at = offset(index);
        return Arrays.copyOfRange(bytes, at + ListLayout.PACKED_LENGTH_BYTES, at + ListLayout.packedSize(bytes, at));
    }

    /** Hands elements {@code [from, to)} to {@code sink}, in order. */
    void forEach(int from, int to, ElementSink sink) {
        for (int i = from, at = offset(from); i < to; i++) {
            int size = ListLayout.packedSize(bytes, at);
            sink.accept(bytes, at + ListLayout.PACKED_LENGTH_BYTES, size - ListLayout.PACKED_LENGTH_BYTES);
            at += size;
        }
    }

    /**
     * Hands the elements to {@code test}, last first if {@code backward}, until it answers true.
     *
     * @return whether it did
     */
    boolean scan(boolean backward, ElementTest test) {
        if (!backward) {
            for (int i = 0, at = start; i < count; i++) {
                int size = ListLayout.packedSize(bytes, at);
                if (test.test(bytes, at + ListLayout.PACKED_LENGTH_BYTES, size - ListLayout.PACKED_LENGTH_BYTES)) {
                    return true;
                }
                at += size;
            }
            return false;
        }
        int[] starts = new int[count];
        for (int i = 0, at = start; i < count; i++) {
            starts[i] = at;
            at += ListLayout.packedSize(bytes, at);
        }
        for (int i = count - 1; i >= 0; i--) {
            int at = starts[i];
            if (test.test(bytes, at + ListLayout.PACKED_LENGTH_BYTES, ListLayout.packedSize(bytes, at) - ListLayout.PACKED_LENGTH_BYTES)) {
                return true;
            }
        }
        return false;
    }

    void append(byte[] v) {
        splice(start + length, start + length, v, 1);
    }

    void prepend(byte[] v) {
        splice(start, start, v, 1);
    }

    /** Replaces element {@code index} by {@code v}. */
    void set(int index, byte[] v) {
        int at = offset(index);
        splice(at, at + ListLayout.packedSize(bytes, at), v, 0);
    }

    /** Removes the first {@code k} elements. */
    void removeFirst(int k) {
        splice(start, offset(k), null, -k);
    }

    /** Removes the last {@code k} elements. */
    void removeLast(int k) {
        splice(offset(count - k), start + length, null, -k);
    }

    /**
     * Replaces {@code bytes[from, to)} by {@code v} packed (nothing for null), the count changing by
     * {@code counted}, in a new array: the one read from the map is never written.
     */
    private void splice(int from, int to, byte[] v, int counted) {
        int add = v == null ? 0 : sizeOf(v);
        int end = start + length;
        byte[] b = new byte[length - (to - from) + add];
        System.arraycopy(bytes, start, b, 0, from - start);
        if (v != null) {
            ListLayout.putPacked(b, from - start, v, 0, v.length);
        }
        System.arraycopy(bytes, to, b, from - start + add, end - to);
        bytes = b;
        start = 0;
        length = b.length;
        count += counted;
    }

    /** Looks at an element, a slice of an array it must not keep; true stops a {@link #scan}. */
    @FunctionalInterface
    interface ElementTest {
        boolean test(byte[] b, int offset, int length);
    }

    /** Receives an element as a slice of an array it must not keep. */
    @FunctionalInterface
    interface ElementSink {
        void accept(byte[] b, int offset, int length);
    }
}
