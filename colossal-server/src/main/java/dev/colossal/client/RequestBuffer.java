package dev.colossal.client;

import dev.colossal.codec.Codec;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Requests on their way out, as RESP arrays of bulk strings, in one growable array that the writer
 * hands to the socket in one write however many requests it holds.
 */
final class RequestBuffer {

    private static final int INITIAL = 8 * 1024;
    /** A buffer that grew past this for one large value is dropped after its write. */
    private static final int KEEP = 1024 * 1024;

    private byte[] buf = new byte[INITIAL];
    private int len;

    boolean isEmpty() {
        return len == 0;
    }

    byte[] array() {
        return buf;
    }

    int length() {
        return len;
    }

    void reset() {
        len = 0;
        if (buf.length > KEEP) {
            buf = new byte[INITIAL];
        }
    }

    /** Appends {@code *n $len arg ...} for the given arguments. */
    void command(byte[]... args) {
        long need = 16;
        for (byte[] a : args) {
            need += a.length + 16;
        }
        ensure(need);
        header('*', args.length);
        for (byte[] a : args) {
            header('$', a.length);
            System.arraycopy(a, 0, buf, len, a.length);
            len += a.length;
            buf[len++] = '\r';
            buf[len++] = '\n';
        }
    }

    private void header(char type, int n) {
        buf[len++] = (byte) type;
        if (n < 10) {
            buf[len++] = (byte) ('0' + n);
        } else {
            String s = Integer.toString(n);
            for (int i = 0; i < s.length(); i++) {
                buf[len++] = (byte) s.charAt(i);
            }
        }
        buf[len++] = '\r';
        buf[len++] = '\n';
    }

    private void ensure(long need) {
        if (len + need > buf.length) {
            long want = Math.max((long) buf.length * 2, len + need);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("request of " + need + " bytes is larger than 2 GiB; split it");
            }
            buf = Arrays.copyOf(buf, (int) want);
        }
    }

    /** @return the ASCII bytes of a command name or option */
    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Encodes one value with its codec into an array of exactly its size.
     *
     * @throws IllegalArgumentException if the value encodes to more than 2 GiB
     */
    static <T> byte[] encode(Codec<T> codec, T value, String what) {
        long size = codec.encodedSize(value);
        if (size > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException(what + " encodes to " + size + " bytes; RESP bulk strings hold at most 512 MiB by default");
        }
        byte[] out = new byte[(int) size];
        long end = codec.encode(value, MemorySegment.ofArray(out), 0);
        assert end == size : "codec wrote " + end + " bytes, announced " + size;
        return out;
    }
}
