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
    /** What a read run is, for damage its walks find; null for a run made in memory. */
    private final Supplier<String> what;

    private PackedRun(byte[] bytes, int start, int length, int count, Supplier<String> what) {
        this.bytes = bytes;
        this.start = start;
        this.length = length;
        this.count = count;
        this.what = what;
    }

    static PackedRun empty() {
        return new PackedRun(new byte[0], 0, 0, 0, null);
    }

    /**
     * @return the run of {@code count} elements that {@code b[from, to)} holds, read where it is
     *         ({@code b} must not change after) and not walked: a push or a pop reads one end, and
     *         the walks that go further check every element stays inside
     * @throws IllegalStateException naming what {@code what} gives if the bytes cannot hold the count
     */
    static PackedRun of(byte[] b, int from, int to, long count, Supplier<String> what) {
        if (count < 0 || (count == 0) != (from == to) || count > (to - from) / ListLayout.PACKED_LENGTH_BYTES) {
            throw new IllegalStateException(what.get() + " cannot hold " + count + " elements in " + (to - from)
                    + " bytes: the map file is damaged; run 'colossal repair'");
        }
        return new PackedRun(b, from, to - from, (int) count, what);
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
        return new PackedRun(b, from, at - from, (int) n, what);
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
            at = next(at);
        }
        return at;
    }

    /** @return where the element after the one at {@code at} starts, checked to be inside the run */
    private int next(int at) {
        int end = start + length;
        int size = end - at < ListLayout.PACKED_LENGTH_BYTES ? -1 : ListLayout.packedSize(bytes, at);
        if (size < ListLayout.PACKED_LENGTH_BYTES || size > end - at) {
            throw damaged(at);
        }
        return at + size;
    }

    /** Checks that a walk over every element ended where the run does. */
    private void checkEnd(int at) {
        if (at != start + length) {
            throw damaged(at);
        }
    }

    private IllegalStateException damaged(int at) {
        return new IllegalStateException((what == null ? "a list run" : what.get()) + " of " + count + " elements in "
                + length + " bytes is damaged at offset " + (at - start) + ": the map file is damaged; run 'colossal repair'");
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
        return Arrays.copyOfRange(bytes, at + ListLayout.PACKED_LENGTH_BYTES, next(at));
    }

    /** Hands elements {@code [from, to)} to {@code sink}, in order. */
    void forEach(int from, int to, ElementSink sink) {
        int at = offset(from);
        for (int i = from; i < to; i++) {
            int after = next(at);
            sink.accept(bytes, at + ListLayout.PACKED_LENGTH_BYTES, after - at - ListLayout.PACKED_LENGTH_BYTES);
            at = after;
        }
        if (to == count) {
            checkEnd(at);
        }
    }

    /**
     * Adds copies of elements {@code [from, to)} to {@code out}, in order or last first if
     * {@code reversed}: what a pop hands back, without a sink made per call.
     */
    void copyInto(int from, int to, boolean reversed, List<byte[]> out) {
        int first = out.size();
        int at = offset(from);
        for (int i = from; i < to; i++) {
            int after = next(at);
            out.add(Arrays.copyOfRange(bytes, at + ListLayout.PACKED_LENGTH_BYTES, after));
            at = after;
        }
        if (to == count) {
            checkEnd(at);
        }
        if (reversed && to - from > 1) {
            java.util.Collections.reverse(out.subList(first, out.size()));
        }
    }

    /**
     * Hands the elements to {@code test}, last first if {@code backward}, until it answers true.
     *
     * @return whether it did
     */
    boolean scan(boolean backward, ElementTest test) {
        int[] starts = backward ? new int[count + 1] : null;
        int at = start;
        for (int i = 0; i < count; i++) {
            int after = next(at);
            if (backward) {
                starts[i] = at;
                starts[i + 1] = after;
            } else if (test.test(bytes, at + ListLayout.PACKED_LENGTH_BYTES, after - at - ListLayout.PACKED_LENGTH_BYTES)) {
                return true;
            }
            at = after;
        }
        checkEnd(at);
        for (int i = count - 1; backward && i >= 0; i--) {
            if (test.test(bytes, starts[i] + ListLayout.PACKED_LENGTH_BYTES, starts[i + 1] - starts[i] - ListLayout.PACKED_LENGTH_BYTES)) {
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
        splice(at, next(at), v, 0);
    }

    /**
     * Removes the first {@code k} elements: the run narrows over the same array, which is never
     * written ({@link #splice} makes a new one), where a pop used to copy what was left.
     */
    void removeFirst(int k) {
        int at = offset(k);
        length -= at - start;
        start = at;
        count -= k;
    }

    /** Removes the last {@code k} elements, narrowing the run as {@link #removeFirst} does. */
    void removeLast(int k) {
        length = offset(count - k) - start;
        count -= k;
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

    /**
     * Names a run read from the map for the message of damage a walk finds, put together only
     * then: {@code what} followed by {@code number}, in hex if {@code hex}. A record made with
     * {@code new}, not a capturing lambda: a lambda per read went through a method handle's
     * allocation, about 4% of an LPOP's CPU.
     */
    record Origin(String what, long number, boolean hex) implements Supplier<String> {
        @Override
        public String get() {
            return what + (hex ? Long.toHexString(number) : Long.toString(number));
        }
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
