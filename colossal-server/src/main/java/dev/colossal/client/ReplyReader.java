package dev.colossal.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads RESP2 replies from a stream: simple strings as {@link String}, errors as
 * {@link RemoteServerException}, integers as {@link Long}, bulk strings as {@code byte[]}, arrays as
 * {@link List}, and null bulks and arrays as {@code null}.
 */
final class ReplyReader {

    private final InputStream in;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int end;

    ReplyReader(InputStream in) {
        this.in = in;
    }

    /**
     * @return the next reply
     * @throws EOFException if the server closed the connection
     * @throws IOException  if reading fails or the bytes are not RESP2
     */
    Object read() throws IOException {
        int type = readByte();
        return switch (type) {
            case '+' -> readLine();
            case '-' -> new RemoteServerException(readLine(), null);
            case ':' -> readLong();
            case '$' -> {
                long n = readLong();
                if (n < 0) {
                    yield null;
                }
                if (n > Integer.MAX_VALUE - 16) {
                    throw new IOException("bulk reply of " + n + " bytes is too long for a Java array");
                }
                byte[] b = new byte[(int) n];
                readFully(b);
                expectCrlf();
                yield b;
            }
            case '*' -> {
                long n = readLong();
                if (n < 0) {
                    yield null;
                }
                List<Object> items = new ArrayList<>((int) Math.min(n, 1024));
                for (long i = 0; i < n; i++) {
                    items.add(read());
                }
                yield items;
            }
            default -> throw new IOException("not a RESP2 reply: type byte " + type);
        };
    }

    private int readByte() throws IOException {
        if (pos == end) {
            fill();
        }
        return buf[pos++] & 0xff;
    }

    private void fill() throws IOException {
        int n = in.read(buf, 0, buf.length);
        if (n < 0) {
            throw new EOFException("the server closed the connection");
        }
        pos = 0;
        end = n;
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int b; (b = readByte()) != '\r'; ) {
            sb.append((char) b);
        }
        if (readByte() != '\n') {
            throw new IOException("malformed reply line: " + sb);
        }
        return new String(sb.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    private long readLong() throws IOException {
        boolean negative = false;
        long v = 0;
        int b = readByte();
        if (b == '-') {
            negative = true;
            b = readByte();
        }
        for (; b != '\r'; b = readByte()) {
            if (b < '0' || b > '9') {
                throw new IOException("malformed number in reply: byte " + b);
            }
            v = v * 10 + (b - '0');
        }
        if (readByte() != '\n') {
            throw new IOException("malformed number in reply: no LF after CR");
        }
        return negative ? -v : v;
    }

    private void readFully(byte[] b) throws IOException {
        int off = 0;
        while (off < b.length) {
            if (pos == end) {
                if (b.length - off >= buf.length) {
                    int n = in.read(b, off, b.length - off);
                    if (n < 0) {
                        throw new EOFException("the server closed the connection");
                    }
                    off += n;
                    continue;
                }
                fill();
            }
            int n = Math.min(end - pos, b.length - off);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            off += n;
        }
    }

    private void expectCrlf() throws IOException {
        if (readByte() != '\r' || readByte() != '\n') {
            throw new IOException("malformed bulk reply: no CRLF after the data");
        }
    }
}
