package dev.colossal.codec;

import dev.colossal.memory.internal.SharedBuffers;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * A read position over one encoded value. The bytes are read through a heap window: up to
 * {@link #WINDOW} bytes are copied from the segment in one bulk copy and decoded from there with
 * plain array reads, which costs the JIT a few nodes each where a segment access costs hundreds (a
 * MediaContent's ~60 segment reads blew C2's inlining budget, leaving calls in the hot path), and a
 * string is built straight from the window, with no copy of its own. Big arrays and strings longer
 * than the window are copied from the segment directly.
 *
 * <p>Reads past the end fail with an {@link IndexOutOfBoundsException}, which {@link WireCodec#decode}
 * turns into a {@link CodecException} at {@link #position()}; lengths are checked against what
 * remains before anything is allocated, so a forged length can never ask for more memory than the
 * input holds.
 */
final class Input {

    /** The largest window: enough for most values in one copy, small enough to keep per thread. */
    static final int WINDOW = 8192;
    /** Each thread's window, lent to one input at a time (a nested decode gets a fresh one). */
    private static final ThreadLocal<byte[][]> WINDOWS = ThreadLocal.withInitial(() -> new byte[1][]);
    /**
     * The windows virtual threads borrow, {@link #WINDOW} bytes each, one input at a time: a thread
     * per request would otherwise make a window per request (see {@link SharedBuffers}).
     */
    private static final SharedBuffers<byte[]> SHARED = new SharedBuffers<>();

    private final MemorySegment segment;
    private final long limit;
    /** The thread's holder of its window, or null for a window borrowed from {@link #SHARED}. */
    private final byte[][] lender;
    private final byte[] window;
    /** The segment offset of {@code window[0]}. */
    private long base;
    /** The read position in the window. */
    private int pos;
    /** How many window bytes hold input. */
    private int end;

    Input(MemorySegment segment) {
        this.segment = segment;
        this.limit = segment.byteSize();
        int wanted = (int) Math.min(limit, WINDOW);
        // A virtual thread's first calls borrow a window from the pool (WINDOW bytes, so never too
        // short); other calls take the thread's own from its holder, null while a decode uses it.
        byte[][] l = SHARED.borrowing() ? null : WINDOWS.get();
        byte[] w = l != null ? l[0] : SHARED.take();
        if (w == null || w.length < wanted) {   // a pooled window is WINDOW bytes: never too short
            w = new byte[l != null ? Math.max(wanted, 256) : WINDOW];
        }
        if (l != null) {
            l[0] = null;
        }
        this.lender = l;
        this.window = w;
        this.end = wanted;
        MemorySegment.copy(segment, WireFormat.BYTE, 0, w, 0, wanted);
    }

    /** Gives the window back to the thread, or the pool, for the next decode. */
    void close() {
        if (lender != null) {
            lender[0] = window;
        } else {
            SHARED.give(window);
        }
    }

    MemorySegment segment() {
        return segment;
    }

    long position() {
        return base + pos;
    }

    long remaining() {
        return limit - position();
    }

    /** Moves by {@code bytes} (back, if negative), e.g. past bytes a bulk copy took from the segment. */
    void skip(long bytes) {
        long p = pos + bytes;
        if (p >= 0 && p <= end) {
            pos = (int) p;
        } else {
            base += p;
            pos = 0;
            end = 0;
        }
    }

    /** Makes {@code n <= WINDOW} bytes readable at {@code pos}, or throws if the input has fewer. */
    private void fill(int n) {
        long at = position();
        long available = limit - at;
        if (available < n || at < 0) {
            throw new IndexOutOfBoundsException("need " + n + " bytes at offset " + at + " of " + limit);
        }
        int k = (int) Math.min(available, window.length);
        MemorySegment.copy(segment, WireFormat.BYTE, at, window, 0, k);
        base = at;
        pos = 0;
        end = k;
    }

    private int take(int n) {
        if (end - pos < n) {
            fill(n);
        }
        int at = pos;
        pos = at + n;
        return at;
    }

    boolean readBoolean(String type) {
        byte b = readByte();
        if ((b & ~1) != 0) {
            pos--;
            throw error(type, "boolean byte=" + b + " is neither 0 nor 1");
        }
        return b != 0;
    }

    /**
     * Reads a presence byte: {@code true} if a value of {@code codec}'s type follows. The codec, not
     * its name, is passed so that the hot path makes no call for a name it only needs on error.
     */
    boolean readPresence(WireCodec<?> codec) {
        byte b = readByte();
        if ((b & ~1) != 0) {
            pos--;
            throw error(codec.typeName(), "presence byte=" + b + " is neither 0 (absent) nor 1 (present)");
        }
        return b != 0;
    }

    byte readByte() {
        if (pos >= end) {
            fill(1);
        }
        return window[pos++];
    }

    short readShort() {
        return (short) WireFormat.ARRAY_SHORT.get(window, take(2));
    }

    char readChar() {
        return (char) WireFormat.ARRAY_CHAR.get(window, take(2));
    }

    int readInt() {
        return (int) WireFormat.ARRAY_INT.get(window, take(4));
    }

    long readLong() {
        return (long) WireFormat.ARRAY_LONG.get(window, take(8));
    }

    float readFloat() {
        return (float) WireFormat.ARRAY_FLOAT.get(window, take(4));
    }

    double readDouble() {
        return (double) WireFormat.ARRAY_DOUBLE.get(window, take(8));
    }

    /** Reads {@code n} bytes of UTF-8, already checked against what remains, as a string. */
    String readUtf8(int n) {
        if (n > window.length) {
            byte[] bytes = new byte[n];
            MemorySegment.copy(segment, WireFormat.BYTE, position(), bytes, 0, n);
            skip(n);
            return new String(bytes, StandardCharsets.UTF_8);
        }
        int at = take(n);
        return new String(window, at, n, StandardCharsets.UTF_8);
    }

    /**
     * Reads one of {@code tokens} if the window holds it at the position, and returns its index; else
     * returns -1 and moves nothing. The tokens must be self-delimiting (length-prefixed), so that at
     * most one can match; {@code heads[i]} holds the first 8 bytes of token i as a little-endian long
     * (zeros past its end) and {@code masks[i]} has ones where token i has bytes. One load of 8 bytes
     * tells most tokens apart; bytes the window holds past the input are masked out by the token's
     * length, which must fit what is left.
     */
    int readToken(byte[][] tokens, long[] heads, long[] masks) {
        int p = pos;
        byte[] w = window;
        if (w.length - p < 8) {
            return -1;
        }
        long word = (long) WireFormat.ARRAY_LONG.get(w, p);
        int left = end - p;
        for (int i = 0; i < tokens.length; i++) {
            if ((word & masks[i]) == heads[i]) {
                byte[] t = tokens[i];
                int n = t.length;
                if (n > left) {
                    return -1;
                }
                int k = 8;
                while (k < n && w[p + k] == t[k]) {
                    k++;
                }
                if (k >= n) {
                    pos = p + n;
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * Reads a nullable string, {@code [0]} or {@code [1][varint n][n bytes of UTF-8]}: in one step
     * when the length takes one byte and the bytes are in the window, else through the checked path.
     */
    String readNullableUtf8() {
        int p = pos;
        byte[] w = window;
        if (end - p >= 2) {
            byte presence = w[p];
            int n = w[p + 1];
            if (presence == WireFormat.PRESENT && n >= 0 && end - p - 2 >= n) {
                pos = p + 2 + n;
                return new String(w, p + 2, n, StandardCharsets.UTF_8);
            }
        }
        return readPresence(StringCodec.INSTANCE) ? readUtf8(readCount("String", 1)) : null;
    }

    /** Reads an unsigned varint that must fit a non-negative int; at most 5 bytes are looked at. */
    int readVarint(String type) {
        long start = position();
        int value = 0;
        for (int shift = 0; shift < 7 * WireFormat.MAX_VARINT_BYTES; shift += 7) {
            byte b = readByte();
            value |= (b & 0x7F) << shift;
            if (b >= 0) {
                if (value < 0 || (shift == 28 && (b & 0x78) != 0)) {
                    break;
                }
                return value;
            }
        }
        skip(start - position());
        throw error(type, "varint does not fit a non-negative int");
    }

    /**
     * Reads a count of elements, each at least {@code minBytesEach} long, and checks that the rest of
     * the input can hold them.
     */
    int readCount(String type, int minBytesEach) {
        long start = position();
        int n = readVarint(type);
        if ((long) n * minBytesEach > remaining()) {
            skip(start - position());
            throw error(type, "length=" + n + " needs " + (long) n * minBytesEach + " bytes but only "
                    + remaining() + " remain (truncated or corrupt)");
        }
        return n;
    }

    CodecException error(String type, String what) {
        return new CodecException("cannot decode type=" + type + " at offset=" + position() + " of "
                + limit + " bytes: " + what);
    }
}
