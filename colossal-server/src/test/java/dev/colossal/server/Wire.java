package dev.colossal.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A bare RESP connection for tests: sends raw bytes, reads whole replies as raw bytes. */
final class Wire implements AutoCloseable {

    /** The TCP socket; null for a connection over a Unix socket. */
    final Socket socket;
    private final java.nio.channels.SocketChannel unix;
    private final InputStream in;
    private final OutputStream out;

    Wire(int port) throws IOException {
        this(new Socket("127.0.0.1", port));
    }

    /** A connection from {@code socket}, e.g. one bound to a chosen local address. */
    Wire(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(30_000);
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        out = socket.getOutputStream();
        unix = null;
    }

    /** A connection over the Unix socket at {@code path} (no read timeout: NIO's channels have none). */
    Wire(java.nio.file.Path path) throws IOException {
        socket = null;
        unix = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(path));
        in = new BufferedInputStream(java.nio.channels.Channels.newInputStream(unix), 1 << 16);
        out = java.nio.channels.Channels.newOutputStream(unix);
    }

    static byte[] encode(byte[]... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(a);
            b.writeBytes(new byte[] {'\r', '\n'});
        }
        return b.toByteArray();
    }

    static byte[] encode(String... args) {
        byte[][] b = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            b[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return encode(b);
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /**
     * Sends {@code args} followed by one more argument of {@code length} bytes {@code fill}, written
     * a piece at a time: a huge value without a huge array in the test.
     */
    void sendWithLongLast(long length, byte fill, String... args) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.writeBytes(("*" + (args.length + 1) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            head.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            head.writeBytes(b);
            head.writeBytes(new byte[] {'\r', '\n'});
        }
        head.writeBytes(("$" + length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(head.toByteArray());
        byte[] piece = new byte[1 << 16];
        java.util.Arrays.fill(piece, fill);
        for (long left = length; left > 0; left -= piece.length) {
            out.write(piece, 0, (int) Math.min(piece.length, left));
        }
        out.write(new byte[] {'\r', '\n'});
        out.flush();
    }

    /** Reads a bulk reply and throws its payload away. @return its length, -1 for a null */
    long skipBulk() throws IOException {
        String l = line(new ByteArrayOutputStream());
        if (l.charAt(0) != '$') {
            throw new IOException("not a bulk reply: " + l);
        }
        long n = Long.parseLong(l.substring(1));
        if (n >= 0) {
            in.skipNBytes(n + 2);
        }
        return n;
    }

    String call(String... args) throws IOException {
        send(encode(args));
        return reply();
    }

    byte[] call(byte[]... args) throws IOException {
        send(encode(args));
        return readReply();
    }

    String reply() throws IOException {
        return new String(readReply(), StandardCharsets.UTF_8);
    }

    /** @return one whole reply, raw, or throws EOFException if the server closed */
    byte[] readReply() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        readInto(b);
        return b.toByteArray();
    }

    private String line(ByteArrayOutputStream b) throws IOException {
        ByteArrayOutputStream l = new ByteArrayOutputStream();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("server closed the connection");
            }
            b.write(c);
            if (prev == '\r' && c == '\n') {
                byte[] t = l.toByteArray();
                return new String(t, 0, t.length - 1, StandardCharsets.UTF_8);
            }
            l.write(c);
            prev = c;
        }
    }

    private void readInto(ByteArrayOutputStream b) throws IOException {
        String l = line(b);
        char type = l.charAt(0);
        switch (type) {
            case '$', '=', '!' -> {
                long n = Long.parseLong(l.substring(1));
                if (n >= 0) {
                    b.writeBytes(in.readNBytes((int) n + 2));
                }
            }
            case '*', '~', '>' -> {
                long n = Long.parseLong(l.substring(1));
                for (long i = 0; i < n; i++) {
                    readInto(b);
                }
            }
            case '%', '|' -> {
                long n = Long.parseLong(l.substring(1));
                for (long i = 0; i < 2 * n; i++) {
                    readInto(b);
                }
                if (type == '|') {
                    readInto(b);
                }
            }
            default -> { }
        }
    }

    /** @return true if the server closed the connection (reads EOF within the socket timeout) */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
        } else {
            unix.close();
        }
    }
}
