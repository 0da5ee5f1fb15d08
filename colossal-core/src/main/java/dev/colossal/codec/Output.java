package dev.colossal.codec;

import dev.colossal.memory.internal.SharedBuffers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A write position over a target segment, through a heap window: values are written into a
 * per-thread (a virtual thread: pooled) {@code byte[]} with plain array stores, and the window goes into the segment in one bulk
 * copy when it is full and when the value is done. The mirror of {@link Input}: a segment store costs
 * C2 hundreds of nodes (layout, alignment, bounds, read-only and liveness checks), an array store a
 * few, so a whole record's writes stay inside the inlining budget. Byte runs longer than the room
 * left (big arrays and strings) are copied into the segment directly.
 *
 * <p>A target too small for the value fails with an {@link IndexOutOfBoundsException} from the copy;
 * a value that fits the window writes nothing into a too-small target.
 */
final class Output {

    /** The window: enough for most values in one copy, small enough to keep per thread. */
    static final int WINDOW = 8192;
    /** Each thread's output, lent to one encode at a time (a nested encode makes a fresh one). */
    private static final ThreadLocal<Output[]> OUTPUTS = ThreadLocal.withInitial(() -> new Output[1]);
    /**
     * The outputs virtual threads borrow, one encode at a time: a thread per request would otherwise
     * make an output, and its window, per request (see {@link SharedBuffers}).
     */
    private static final SharedBuffers<Output> SHARED = new SharedBuffers<>();

    private final byte[] window = new byte[WINDOW];
    private final MemorySegment windowSegment = MemorySegment.ofArray(window);
    /** The thread's holder of this output, or null for one borrowed from {@link #SHARED}. */
    private final Output[] lender;
    private MemorySegment target;
    /** The target offset of {@code window[0]}. */
    private long base;
    /** The write position in the window. */
    private int pos;
    /**
     * Whether sets and maps are written in the order of their encoded elements (entries) rather than
     * in iteration order, so that equal values have equal bytes: set by {@link CanonicalCodec}.
     */
    boolean canonical;

    private Output(Output[] lender) {
        this.lender = lender;
    }

    /** Borrows this thread's output (a virtual thread: a pooled one), positioned at {@code offset} of {@code target}. */
    static Output open(MemorySegment target, long offset) {
        Output[] l = SHARED.borrowing() ? null : OUTPUTS.get();
        Output out = l != null ? l[0] : SHARED.take();
        if (out == null) {
            out = new Output(l);
        } else if (l != null) {
            l[0] = null;
        }
        out.target = target;
        out.base = offset;
        out.pos = 0;
        out.canonical = false;
        return out;
    }

    /** Copies what the window holds into the target and returns the offset after the last byte. */
    long finish() {
        flush();
        return base;
    }

    /** Gives the output back to the thread, or the pool, for the next encode. */
    void close() {
        target = null;
        if (lender != null) {
            lender[0] = this;
        } else {
            SHARED.give(this);
        }
    }

    /** The target offset of the next byte. */
    long position() {
        return base + pos;
    }

    /**
     * Empties the window into the target and returns the target, so that a foreign codec can write
     * there from {@link #position()}; {@link #skipTo} then moves past what it wrote.
     */
    MemorySegment flushed() {
        flush();
        return target;
    }

    /** Moves to a target offset after bytes written into the {@link #flushed} target directly. */
    void skipTo(long offset) {
        base = offset;
    }

    /**
     * Puts the {@code n} runs of bytes written since {@code starts[0]} (run {@code i} from
     * {@code starts[i]} to {@code starts[i + 1]}, the last one to the current position) in the
     * order of their unsigned bytes. The runs are a set's elements or a map's entries: one codec's
     * encodings, none a prefix of another, so the order is the order of the elements (keys).
     */
    void sortRuns(long[] starts, int n) {
        if (n < 2) {
            return;
        }
        flush();
        long from = starts[0];
        long total = base - from;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a set or map of " + total + " bytes is too big to write in "
                    + "canonical order (as a key); the limit is 2 GiB");
        }
        byte[] runs = new byte[(int) total];
        MemorySegment.copy(target, WireFormat.BYTE, from, runs, 0, runs.length);
        int[] bounds = new int[n + 1];
        for (int i = 0; i < n; i++) {
            bounds[i] = (int) (starts[i] - from);
        }
        bounds[n] = runs.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> java.util.Arrays.compareUnsigned(
                runs, bounds[a], bounds[a + 1], runs, bounds[b], bounds[b + 1]));
        byte[] sorted = new byte[runs.length];
        int at = 0;
        for (int i : order) {
            int length = bounds[i + 1] - bounds[i];
            System.arraycopy(runs, bounds[i], sorted, at, length);
            at += length;
        }
        MemorySegment.copy(sorted, 0, target, WireFormat.BYTE, from, sorted.length);
    }

    private int flush() {
        MemorySegment.copy(window, 0, target, WireFormat.BYTE, base, pos);
        base += pos;
        pos = 0;
        return 0;
    }

    /** Returns the position of {@code n <= WINDOW} free bytes, emptying the window if it has fewer. */
    private int room(int n) {
        int p = pos;
        return window.length - p >= n ? p : flush();
    }

    void writeByte(byte v) {
        int p = room(1);
        window[p] = v;
        pos = p + 1;
    }

    void writeBoolean(boolean v) {
        writeByte(v ? (byte) 1 : (byte) 0);
    }

    void writeShort(short v) {
        int p = room(2);
        WireFormat.ARRAY_SHORT.set(window, p, v);
        pos = p + 2;
    }

    void writeChar(char v) {
        int p = room(2);
        WireFormat.ARRAY_CHAR.set(window, p, v);
        pos = p + 2;
    }

    void writeInt(int v) {
        int p = room(4);
        WireFormat.ARRAY_INT.set(window, p, v);
        pos = p + 4;
    }

    void writeLong(long v) {
        int p = room(8);
        WireFormat.ARRAY_LONG.set(window, p, v);
        pos = p + 8;
    }

    // Every NaN is written as the canonical NaN (floatToIntBits, doubleToLongBits), as Float.equals
    // and Double.equals see them: equal values then have equal bytes, which map keys rely on. -0.0
    // keeps its own bits, as equals keeps it apart from 0.0. The cost is one compare of the value
    // with itself.

    void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    void writeVarint(int v) {
        int p = room(WireFormat.MAX_VARINT_BYTES);
        byte[] w = window;
        while ((v & ~0x7F) != 0) {
            w[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        w[p++] = (byte) v;
        pos = p;
    }

    void writeBytes(byte[] bytes, int offset, int n) {
        int p = pos;
        if (window.length - p >= n) {
            System.arraycopy(bytes, offset, window, p, n);
            pos = p + n;
        } else {
            flush();
            MemorySegment.copy(bytes, offset, target, WireFormat.BYTE, base, n);
            base += n;
        }
    }

    /** Writes a present byte run: {@code [1][varint n][n bytes]}. */
    void writePresentBytes(byte[] bytes) {
        int n = bytes.length;
        int p = pos;
        byte[] w = window;
        if (n < 0x80 && w.length - p >= n + 2) {
            w[p] = WireFormat.PRESENT;
            w[p + 1] = (byte) n;
            System.arraycopy(bytes, 0, w, p + 2, n);
            pos = p + 2 + n;
        } else {
            writeByte(WireFormat.PRESENT);
            writeVarint(n);
            writeBytes(bytes, 0, n);
        }
    }

    /** Writes {@code n} elements of a primitive array, little-endian, in one bulk copy. */
    void writeArray(Object array, ValueLayout element, int n) {
        long bytes = n * element.byteSize();
        int p = pos;
        if (window.length - p >= bytes) {
            MemorySegment.copy(array, 0, windowSegment, element, p, n);
            pos = p + (int) bytes;
        } else {
            flush();
            MemorySegment.copy(array, 0, target, element, base, n);
            base += bytes;
        }
    }
}
