package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts RESP requests (multibulk {@code *N $len ...} and inline lines) out of a connection's input
 * buffer, the native memory the socket reads into, without copying partial frames: {@link #parse}
 * either finds one whole request or asks for more bytes, so a request split at any byte is parsed
 * the same as one read at once. Limits and error texts are Redis 7's.
 */
final class RequestParser {

    /** Longest inline request or header line Redis accepts (PROTO_INLINE_MAX_SIZE). */
    static final int MAX_INLINE = 64 * 1024;
    /** Most arguments in one multibulk request. */
    static final int MAX_MULTIBULK = 1024 * 1024;
    private static final byte[][] EMPTY = new byte[0][];

    /** proto-max-bulk-len, read at each bulk header: CONFIG SET changes it for connections already open, as in Redis. */
    private final java.util.function.LongSupplier maxBulk;

    /**
     * The arguments of an inline request found by the last successful {@link #parse}; null after a
     * multibulk request, whose arguments stay in the buffer (see {@link #args(byte[])}).
     */
    private byte[][] inlineArgs;
    /** Where the next request starts after the last successful {@link #parse}. */
    int next;
    /** How many arguments the last request has. */
    int argc;
    /** Where each argument of the last multibulk request starts in the buffer, and its length. */
    int[] starts = new int[8];
    int[] lengths = new int[8];

    /** @param maxBulk the longest bulk string accepted (proto-max-bulk-len) */
    RequestParser(java.util.function.LongSupplier maxBulk) {
        this.maxBulk = maxBulk;
    }

    /**
     * Parses one request from {@code b[pos, limit)}.
     *
     * @return true if a whole request was found ({@link #args} and {@link #next} set; an empty
     *     {@code args} means a blank request to skip), false if more bytes are needed
     * @throws ProtocolException if the bytes are not RESP
     */
    boolean parse(MemorySegment b, int pos, int limit) throws ProtocolException {
        return at(b, pos) == '*' ? parseMultibulk(b, pos, limit) : parseInline(b, pos, limit);
    }

    /** @return true if the last request was multibulk, so its arguments are at {@link #starts} in the buffer */
    boolean inBuffer() {
        return inlineArgs == null;
    }

    /**
     * Copies out the arguments of the last request.
     *
     * @param b the buffer {@link #parse} read (for a multibulk request)
     * @return the arguments, possibly none
     */
    byte[][] args(MemorySegment b) {
        if (inlineArgs != null) {
            return inlineArgs;
        }
        byte[][] out = new byte[argc][];
        for (int i = 0; i < argc; i++) {
            out[i] = new byte[lengths[i]];
            MemorySegment.copy(b, ValueLayout.JAVA_BYTE, starts[i], out[i], 0, lengths[i]);
        }
        return out;
    }

    private static byte at(MemorySegment b, int i) {
        return b.get(ValueLayout.JAVA_BYTE, i);
    }

    private static int findCr(MemorySegment b, int from, int limit) {
        for (int i = from; i < limit; i++) {
            if (at(b, i) == '\r') {
                return i;
            }
        }
        return -1;
    }

    private boolean parseMultibulk(MemorySegment b, int pos, int limit) throws ProtocolException {
        int cr = findCr(b, pos + 1, limit);
        if (cr < 0) {
            if (limit - pos > MAX_INLINE) {
                throw new ProtocolException("too big mbulk count string");
            }
            return false;
        }
        long n = parseLong(b, pos + 1, cr);
        if (n == Long.MIN_VALUE || n > MAX_MULTIBULK) {
            throw new ProtocolException("invalid multibulk length");
        }
        int p = cr + 2;
        if (p > limit) {
            return false;
        }
        if (n <= 0) {
            inlineArgs = EMPTY;
            argc = 0;
            next = p;
            return true;
        }
        for (int i = 0; i < n; i++) {
            if (p >= limit) {
                return false;
            }
            if (at(b, p) != '$') {
                throw new ProtocolException("expected '$', got '" + (char) (at(b, p) & 0xff) + "'");
            }
            int lcr = findCr(b, p + 1, limit);
            if (lcr < 0) {
                if (limit - p > MAX_INLINE) {
                    throw new ProtocolException("too big bulk count string");
                }
                return false;
            }
            long len = parseLong(b, p + 1, lcr);
            if (len < 0 || len > maxBulk.getAsLong()) {
                throw new ProtocolException("invalid bulk length");
            }
            int start = lcr + 2;
            if ((long) start + len + 2 > limit) {
                return false;
            }
            if (i >= starts.length) {
                // Grown as arguments arrive, not from the count, so a lying count costs no memory.
                int size = (int) Math.min(n, starts.length * 2L);
                starts = java.util.Arrays.copyOf(starts, size);
                lengths = java.util.Arrays.copyOf(lengths, size);
            }
            starts[i] = start;
            lengths[i] = (int) len;
            p = start + (int) len + 2;
        }
        inlineArgs = null;
        argc = (int) n;
        next = p;
        return true;
    }

    /**
     * Parses a decimal as strictly as Redis's string2ll: optional '-', no '+', no leading zeros,
     * no spaces, no overflow.
     *
     * @return the value of {@code b[from, to)}, or Long.MIN_VALUE if it is not one (Long.MIN_VALUE
     *     itself is reported the same way: no length on the wire is negative; {@link Args#toLong}
     *     tells the two apart for arguments)
     */
    static long parseLong(MemorySegment b, int from, int to) {
        int n = to - from;
        if (n <= 0 || n > 20) {
            return Long.MIN_VALUE;
        }
        boolean neg = at(b, from) == '-';
        int i = neg ? from + 1 : from;
        if (i >= to || at(b, i) < '0' || at(b, i) > '9' || (at(b, i) == '0' && (to - i > 1 || neg))) {
            return Long.MIN_VALUE;
        }
        if (to - i <= 18) {
            // 18 digits cannot overflow: skip the per-digit division of the checked loop below.
            long v = 0;
            for (; i < to; i++) {
                int d = at(b, i) - '0';
                if (d < 0 || d > 9) {
                    return Long.MIN_VALUE;
                }
                v = v * 10 + d;
            }
            return neg ? -v : v;
        }
        long v = 0; // accumulated negatively so that Long.MIN_VALUE's magnitude fits
        for (; i < to; i++) {
            int d = at(b, i) - '0';
            if (d < 0 || d > 9 || v < (Long.MIN_VALUE + d) / 10) {
                return Long.MIN_VALUE;
            }
            v = v * 10 - d;
        }
        if (!neg) {
            return v == Long.MIN_VALUE ? Long.MIN_VALUE : -v;
        }
        return v;
    }

    private boolean parseInline(MemorySegment b, int pos, int limit) throws ProtocolException {
        int nl = -1;
        for (int i = pos; i < limit; i++) {
            if (at(b, i) == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            if (limit - pos > MAX_INLINE) {
                throw new ProtocolException("too big inline request");
            }
            return false;
        }
        int end = nl > pos && at(b, nl - 1) == '\r' ? nl - 1 : nl;
        byte[] line = new byte[end - pos];
        MemorySegment.copy(b, ValueLayout.JAVA_BYTE, pos, line, 0, line.length);
        inlineArgs = splitArgs(line, 0, line.length);
        argc = inlineArgs.length;
        next = nl + 1;
        return true;
    }

    /** Splits an inline line like Redis's sdssplitargs: spaces, "double" and 'single' quotes. */
    static byte[][] splitArgs(byte[] b, int from, int to) throws ProtocolException {
        List<byte[]> out = new ArrayList<>();
        int i = from;
        java.io.ByteArrayOutputStream cur = new java.io.ByteArrayOutputStream();
        while (true) {
            while (i < to && isSpace(b[i])) {
                i++;
            }
            if (i >= to) {
                return out.toArray(EMPTY);
            }
            cur.reset();
            boolean inDq = false;
            boolean inSq = false;
            while (true) {
                if (inDq) {
                    if (i >= to) {
                        throw new ProtocolException("unbalanced quotes in request");
                    }
                    if (b[i] == '\\' && i + 3 < to && b[i + 1] == 'x' && isHex(b[i + 2]) && isHex(b[i + 3])) {
                        cur.write(Character.digit(b[i + 2], 16) * 16 + Character.digit(b[i + 3], 16));
                        i += 3;
                    } else if (b[i] == '\\' && i + 1 < to) {
                        i++;
                        cur.write(switch (b[i]) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> 7;
                            default -> b[i];
                        });
                    } else if (b[i] == '"') {
                        if (i + 1 < to && !isSpace(b[i + 1])) {
                            throw new ProtocolException("unbalanced quotes in request");
                        }
                        inDq = false;
                    } else {
                        cur.write(b[i]);
                    }
                } else if (inSq) {
                    if (i >= to) {
                        throw new ProtocolException("unbalanced quotes in request");
                    }
                    if (b[i] == '\\' && i + 1 < to && b[i + 1] == '\'') {
                        i++;
                        cur.write('\'');
                    } else if (b[i] == '\'') {
                        if (i + 1 < to && !isSpace(b[i + 1])) {
                            throw new ProtocolException("unbalanced quotes in request");
                        }
                        inSq = false;
                    } else {
                        cur.write(b[i]);
                    }
                } else {
                    if (i >= to || isSpace(b[i])) {
                        break;
                    }
                    if (b[i] == '"') {
                        inDq = true;
                    } else if (b[i] == '\'') {
                        inSq = true;
                    } else {
                        cur.write(b[i]);
                    }
                }
                if (i < to) {
                    i++;
                } else {
                    break;
                }
            }
            out.add(cur.toByteArray());
        }
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
    }

    private static boolean isHex(byte c) {
        return Character.digit(c, 16) >= 0;
    }
}
