package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The debugger's commands as they come off the socket: RESP arrays of bulk strings, as redis-cli
 * sends them ({@code *2\r\n$1\r\nb\r\n$1\r\n6\r\n}), or inline lines split at spaces
 * ({@code b 6\r\n}) as typed over telnet. Bytes are added as they come; {@link #next} gives each
 * whole command once.
 */
final class DebugRequests {

    private byte[] buf = new byte[256];
    private int start;
    private int end;

    /** Adds {@code n} bytes from {@code bytes}. */
    void add(byte[] bytes, int n) {
        if (end + n > buf.length) {
            int live = end - start;
            byte[] grown = live + n > buf.length ? new byte[Math.max(buf.length * 2, live + n)] : buf;
            System.arraycopy(buf, start, grown, 0, live);
            buf = grown;
            end = live;
            start = 0;
        }
        System.arraycopy(bytes, 0, buf, end, n);
        end += n;
    }

    /**
     * @return the next whole command's words, or null until more bytes come
     * @throws ProtocolException the bytes are no request
     */
    String[] next() throws ProtocolException {
        if (start == end) {
            return null;
        }
        int[] at = {start};
        String[] words = buf[start] == '*' ? array(at) : inline(at);
        if (words != null) {
            start = at[0];
        }
        return words;
    }

    private String[] inline(int[] at) {
        int eol = line(at[0]);
        if (eol < 0) {
            return null;
        }
        String text = new String(buf, at[0], eol - at[0], StandardCharsets.UTF_8).strip();
        at[0] = eol + 2;
        return text.isEmpty() ? new String[0] : text.split(" +");
    }

    private String[] array(int[] at) throws ProtocolException {
        long n = header(at, '*');
        if (n < 0) {
            return null;
        }
        List<String> words = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            if (at[0] >= end) {
                return null;
            }
            if (buf[at[0]] != '$') {
                throw new ProtocolException("expected '$', got '" + (char) buf[at[0]] + "'");
            }
            long len = header(at, '$');
            if (len < 0) {
                return null;
            }
            if (at[0] + len + 2 > end) {
                return null;
            }
            words.add(new String(Arrays.copyOfRange(buf, at[0], at[0] + (int) len), StandardCharsets.UTF_8));
            at[0] += (int) len + 2;
        }
        return words.toArray(String[]::new);
    }

    /** Reads {@code <type><number>\r\n} at {@code at}; @return the number, or -1 if the line is not all here */
    private long header(int[] at, char type) throws ProtocolException {
        int eol = line(at[0]);
        if (eol < 0) {
            return -1;
        }
        String digits = new String(buf, at[0] + 1, eol - at[0] - 1, StandardCharsets.US_ASCII);
        long n;
        try {
            n = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 0 || n > 1024 * 1024) {
            throw new ProtocolException("invalid " + (type == '*' ? "multibulk" : "bulk") + " length");
        }
        at[0] = eol + 2;
        return n;
    }

    /** @return where the {@code \r\n} ending the line at {@code from} is, or -1 if it has not come */
    private int line(int from) {
        for (int i = from; i + 1 < end; i++) {
            if (buf[i] == '\r' && buf[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
