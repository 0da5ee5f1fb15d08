package dev.colossal.server;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What a master sends its replica, read from the link's socket, and counted byte by byte so that
 * the link knows its replication offset:
 *
 * <pre>
 *  +PONG / +OK ...                        the handshake's reply lines
 *  +FULLRESYNC &lt;replid&gt; &lt;offset&gt;\r\n       or +CONTINUE [&lt;replid&gt;]\r\n and the stream at once
 *  \n \n ...                              keep-alives while the master prepares its snapshot
 *  $&lt;length&gt;\r\n &lt;length bytes&gt;           a snapshot written to disk first
 *  | $EOF:&lt;40 bytes&gt;\r\n &lt;file&gt; &lt;the 40 bytes&gt;   a diskless one: its length is not known ahead
 *  *&lt;n&gt;\r\n ($&lt;len&gt;\r\n &lt;len bytes&gt;\r\n){n}   then the command stream, one array per command,
 *  ...                                      each one's bytes added to the offset
 * </pre>
 *
 * It never reads past what it was asked for: the stream's first command may follow a diskless
 * snapshot in the same packet.
 */
final class MasterInput {

    /** The length of a diskless snapshot's end mark, as the master announces it. */
    static final int EOF_MARK_LENGTH = 40;
    /** Redis's own bound on a request's arguments; a longer line means the stream is out of step. */
    private static final int MAX_LINE = 64 * 1024;

    private final InputStream in;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int limit;
    /** Bytes taken since this input was made. */
    private long consumed;

    MasterInput(InputStream in) {
        this.in = in;
    }

    /** @return bytes taken so far: the difference across a command is its share of the replication offset */
    long consumed() {
        return consumed;
    }

    private void fill() throws IOException {
        if (pos < limit) {
            return;
        }
        int n = in.read(buf);
        if (n < 0) {
            throw new EOFException("the master closed the link");
        }
        pos = 0;
        limit = n;
    }

    private int next() throws IOException {
        fill();
        consumed++;
        return buf[pos++] & 0xff;
    }

    /** @return one line without its CRLF (a bare LF ends one too: the master's keep-alive newlines are empty lines) */
    String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int b = next();
            if (b == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            if (sb.length() > MAX_LINE) {
                throw new IOException("the master sent a line longer than " + MAX_LINE + " bytes: the link is out of step");
            }
            sb.append((char) b);
        }
    }

    /**
     * Copies the snapshot the master sends after {@code +FULLRESYNC} to {@code out}, passing over
     * the newlines the master sends while it prepares it.
     *
     * @return the snapshot's bytes
     */
    long snapshot(OutputStream out) throws IOException {
        String header = line();
        while (header.isEmpty()) {
            header = line();
        }
        if (!header.startsWith("$")) {
            throw new IOException("the master sent '" + header + "' where its snapshot should start");
        }
        if (header.startsWith("$EOF:")) {
            byte[] mark = header.substring(5).getBytes(StandardCharsets.ISO_8859_1);
            if (mark.length != EOF_MARK_LENGTH) {
                throw new IOException("the master's snapshot end mark '" + header.substring(5) + "' is not "
                        + EOF_MARK_LENGTH + " bytes");
            }
            return untilMark(mark, out);
        }
        long length;
        try {
            length = Long.parseLong(header.substring(1));
        } catch (NumberFormatException e) {
            throw new IOException("the master's snapshot length '" + header + "' is not a number");
        }
        long left = length;
        while (left > 0) {
            fill();
            int n = (int) Math.min(left, limit - pos);
            out.write(buf, pos, n);
            pos += n;
            consumed += n;
            left -= n;
        }
        return length;
    }

    /**
     * Copies bytes until {@code mark}: the last 40 bytes seen are held back, as they may be the
     * mark's start, and the bytes after the mark stay unread.
     */
    private long untilMark(byte[] mark, OutputStream out) throws IOException {
        byte[] held = new byte[0];
        long written = 0;
        while (true) {
            fill();
            byte[] seen = new byte[held.length + limit - pos];
            System.arraycopy(held, 0, seen, 0, held.length);
            System.arraycopy(buf, pos, seen, held.length, limit - pos);
            int at = indexOf(seen, mark);
            if (at >= 0) {
                out.write(seen, 0, at);
                int taken = at + mark.length - held.length;
                pos += taken;
                consumed += taken;
                return written + at;
            }
            int keep = Math.min(mark.length, seen.length);
            out.write(seen, 0, seen.length - keep);
            written += seen.length - keep;
            held = Arrays.copyOfRange(seen, seen.length - keep, seen.length);
            consumed += limit - pos;
            pos = limit;
        }
    }

    private static int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * @return the next command of the stream, its arguments; a blank line (the master's newline
     *     keep-alive) gives an empty array
     */
    byte[][] command() throws IOException {
        String header = line();
        if (header.isEmpty()) {
            return new byte[0][];
        }
        if (header.charAt(0) != '*') {
            throw new IOException("the master sent '" + header + "' where a command should start");
        }
        int n = number(header);
        byte[][] args = new byte[n][];
        for (int i = 0; i < n; i++) {
            String len = line();
            if (len.isEmpty() || len.charAt(0) != '$') {
                throw new IOException("the master sent '" + len + "' where an argument's length should be");
            }
            byte[] arg = new byte[number(len)];
            int at = 0;
            while (at < arg.length) {
                fill();
                int k = Math.min(arg.length - at, limit - pos);
                System.arraycopy(buf, pos, arg, at, k);
                pos += k;
                consumed += k;
                at += k;
            }
            if (next() != '\r' || next() != '\n') {
                throw new IOException("the master's argument does not end with CRLF: the link is out of step");
            }
            args[i] = arg;
        }
        return args;
    }

    private static int number(String header) throws IOException {
        try {
            int n = Integer.parseInt(header.substring(1));
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IOException("the master sent '" + header + "': not a length");
        }
    }
}
