package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A connection's outgoing bytes: RESP replies appended in order, in RESP2 or RESP3 framing as the
 * client chose with HELLO. Grows as needed; the connection drains and resets it.
 */
final class Reply {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL2 = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY2 = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] SMALL_INTS = new byte[1024][];

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) {
            SMALL_INTS[i] = (":" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    byte[] buf;
    int len;
    /** 2 or 3: the protocol the client chose. */
    int protocol = 2;

    Reply(int initial) {
        buf = new byte[initial];
    }

    void reset(int keepCapacity) {
        len = 0;
        if (buf.length > keepCapacity) {
            buf = new byte[keepCapacity];
        }
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            long want = Math.max((long) buf.length * 2, (long) len + extra);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("reply length=" + want + " exceeds 2 GiB");
            }
            buf = Arrays.copyOf(buf, (int) want);
        }
    }

    private void raw(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    private void raw(byte c) {
        ensure(1);
        buf[len++] = c;
    }

    private void decimal(long v) {
        ensure(21);
        if (v == Long.MIN_VALUE) {
            raw("-9223372036854775808".getBytes(StandardCharsets.US_ASCII));
            return;
        }
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = len + digits - 1; i >= len; i--) {
            buf[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        len += digits;
    }

    private void header(byte type, long n) {
        raw(type);
        decimal(n);
        raw(CRLF);
    }

    void ok() {
        raw(OK);
    }

    void simple(String s) {
        raw((byte) '+');
        raw(s.getBytes(StandardCharsets.UTF_8));
        raw(CRLF);
    }

    /** @param text the whole error line, e.g. {@code ERR syntax error}; CR/LF become spaces */
    void error(String text) {
        raw((byte) '-');
        raw(text.replace('\r', ' ').replace('\n', ' ').getBytes(StandardCharsets.UTF_8));
        raw(CRLF);
    }

    void integer(long v) {
        if (v >= 0 && v < SMALL_INTS.length) {
            raw(SMALL_INTS[(int) v]);
        } else {
            header((byte) ':', v);
        }
    }

    void bulk(byte[] b) {
        bulk(b, 0, b.length);
    }

    void bulk(byte[] b, int off, int n) {
        header((byte) '$', n);
        ensure(n + 2);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        buf[len++] = '\r';
        buf[len++] = '\n';
    }

    void bulk(String s) {
        bulk(s.getBytes(StandardCharsets.UTF_8));
    }

    void bulk(long v) {
        bulk(Long.toString(v));
    }

    /** RESP3 verbatim text ({@code =}), a bulk string in RESP2. */
    void verbatim(String s) {
        if (protocol < 3) {
            bulk(s);
            return;
        }
        byte[] b = ("txt:" + s).getBytes(StandardCharsets.UTF_8);
        header((byte) '=', b.length);
        raw(b);
        raw(CRLF);
    }

    void nullBulk() {
        raw(protocol >= 3 ? NULL3 : NULL2);
    }

    void nullArray() {
        raw(protocol >= 3 ? NULL3 : NULL_ARRAY2);
    }

    void array(int n) {
        header((byte) '*', n);
    }

    /** A map of {@code n} pairs: RESP3 {@code %}, a flat array of 2n in RESP2. */
    void map(int n) {
        if (protocol >= 3) {
            header((byte) '%', n);
        } else {
            header((byte) '*', 2L * n);
        }
    }

    /** A set: RESP3 {@code ~}, an array in RESP2. */
    void set(int n) {
        header(protocol >= 3 ? (byte) '~' : (byte) '*', n);
    }
}
