package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;

/**
 * A TLS client that decides where records and TCP writes end, which {@code SSLSocket} does not let a
 * test do: its own {@link SSLEngine} over a blocking socket, plaintext cut into records of a chosen
 * size, and the ciphertext written in chunks of a chosen size (one byte: every record header and
 * body arrives in pieces).
 */
final class RawTlsClient implements AutoCloseable {

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final Socket socket;
    private final SSLEngine engine;
    private final InputStream in;
    private final OutputStream out;
    /** Ciphertext bytes per socket write. */
    private final int chunk;
    /** Ciphertext read and not yet unwrapped: ready to drain. */
    private ByteBuffer netIn = ByteBuffer.allocate(1 << 16).limit(0);
    /** Plaintext unwrapped and not yet asked for: ready to drain. */
    private ByteBuffer appIn = ByteBuffer.allocate(1 << 16).limit(0);
    private boolean closeNotified;
    /** Reads at most 4 KiB at a time with a pause after each: the server's socket fills and it must wait to write. */
    private boolean slow;

    RawTlsClient(SSLContext ctx, int port, int chunk) throws IOException {
        this.socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(20_000);
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.chunk = chunk;
        this.engine = ctx.createSSLEngine("localhost", port);
        engine.setUseClientMode(true);
        handshake();
    }

    private void handshake() throws IOException {
        engine.beginHandshake();
        while (true) {
            HandshakeStatus hs = engine.getHandshakeStatus();
            switch (hs) {
                case NEED_WRAP -> {
                    ByteBuffer records = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
                    engine.wrap(EMPTY, records);
                    write(records.flip());
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapOne();
                case NEED_TASK -> {
                    for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
                        task.run();
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    /** Sends {@code plain} in records of {@code recordSize} plaintext bytes, all in one go of chunked writes. */
    void send(String plain, int recordSize) throws IOException {
        send(plain.getBytes(StandardCharsets.UTF_8), recordSize);
    }

    void send(byte[] plain, int recordSize) throws IOException {
        write(records(plain, recordSize, false));
    }

    /** Sends {@code plain} as {@link #send} does with close_notify right behind it, in the same writes. */
    void sendThenCloseNotify(String plain, int recordSize) throws IOException {
        write(records(plain.getBytes(StandardCharsets.UTF_8), recordSize, true));
    }

    private ByteBuffer records(byte[] plain, int recordSize, boolean thenClose) throws IOException {
        // the engine wraps only into room for a whole packet
        int count = plain.length / recordSize + 1;
        ByteBuffer records = ByteBuffer.allocate(plain.length + count * 64 + 2 * engine.getSession().getPacketBufferSize());
        for (int at = 0; at < plain.length; at += recordSize) {
            ByteBuffer slice = ByteBuffer.wrap(plain, at, Math.min(recordSize, plain.length - at));
            while (slice.hasRemaining()) {
                SSLEngineResult r = engine.wrap(slice, records);
                if (r.getStatus() != Status.OK) {
                    throw new IOException("wrap: " + r);
                }
            }
        }
        if (thenClose) {
            engine.closeOutbound();
            engine.wrap(EMPTY, records);
        }
        return records.flip();
    }

    /** From now on reads as a slow client does. */
    void readSlowly() {
        slow = true;
    }

    /** @return the next {@code n} plaintext bytes from the server */
    byte[] receive(int n) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream(n);
        while (got.size() < n) {
            if (!appIn.hasRemaining()) {
                if (!unwrapOne()) {
                    throw new IOException("the server closed after " + got.size() + " of " + n + " bytes");
                }
                continue;
            }
            int take = Math.min(n - got.size(), appIn.remaining());
            got.write(appIn.array(), appIn.position(), take);
            appIn.position(appIn.position() + take);
        }
        return got.toByteArray();
    }

    String receive(String expected) throws IOException {
        return new String(receive(expected.getBytes(StandardCharsets.UTF_8).length), StandardCharsets.UTF_8);
    }

    /** @return whether the server's close_notify came, and after it the end of the stream, with no data before them */
    boolean closedCleanly() throws IOException {
        while (unwrapOne()) {
            if (appIn.hasRemaining()) {
                return false;
            }
        }
        return closeNotified && in.read() < 0;
    }

    /**
     * Unwraps one record, reading from the socket as needed.
     *
     * @return false at the end of the stream or after the server's close_notify
     */
    private boolean unwrapOne() throws IOException {
        while (true) {
            appIn.compact();
            SSLEngineResult r;
            try {
                r = engine.unwrap(netIn, appIn);
            } finally {
                appIn.flip();
            }
            switch (r.getStatus()) {
                case OK -> {
                    return true;
                }
                case CLOSED -> {
                    closeNotified = true;
                    return false;
                }
                case BUFFER_OVERFLOW -> appIn = ByteBuffer.allocate(2 * appIn.capacity()).put(appIn).flip();
                case BUFFER_UNDERFLOW -> {
                    netIn.compact();
                    if (!netIn.hasRemaining()) {
                        netIn = ByteBuffer.allocate(2 * netIn.capacity()).put(netIn.flip());
                    }
                    int n = in.read(netIn.array(), netIn.position(), 
                            slow ? Math.min(4096, netIn.remaining()) : netIn.remaining());
                    if (slow) {
                        pause();
                    }
                    if (n < 0) {
                        netIn.flip();
                        return false;
                    }
                    netIn.position(netIn.position() + n).flip();
                }
            }
        }
    }

    private static void pause() throws IOException {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException();
        }
    }

    private void write(ByteBuffer records) throws IOException {
        while (records.hasRemaining()) {
            int n = Math.min(chunk, records.remaining());
            out.write(records.array(), records.position(), n);
            out.flush();
            records.position(records.position() + n);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
