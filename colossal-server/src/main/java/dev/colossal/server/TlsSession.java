package dev.colossal.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;

/**
 * One connection's TLS over a non-blocking socket: {@link #read} and {@link #write} take and give
 * plain bytes as {@link SocketChannel}'s do, and run the handshake as it comes. Nothing here waits:
 * a step that needs the peer's bytes returns, and the event loop calls again when the socket is
 * ready, so a client that stops mid-handshake holds its own connection only.
 *
 * <p>Three buffers: {@code netIn} holds ciphertext read and not yet unwrapped (kept ready to fill);
 * {@code appIn} plaintext unwrapped and not yet taken, and {@code netOut} ciphertext wrapped and not
 * yet written (both kept ready to drain). A reply is consumed once it is wrapped, so the connection
 * must also ask {@link #flushed} before it counts its output written. All three are heap buffers:
 * the JDK's AES-GCM runs its intrinsic on a record in place in an array, where a direct buffer's
 * record goes through copies into 512-byte arrays (16 KB records cost up to twice the CPU); the socket's
 * copy of a heap buffer into the JDK's cached direct one is a plain memory copy.
 *
 * <p>Renegotiation (a second handshake under TLS 1.2) is refused by closing the connection, as
 * Redis turns it off: it is a known way for a client to make the server work. TLS 1.3's own
 * post-handshake messages (key updates, session tickets) are served.
 */
final class TlsSession {

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private final SocketChannel channel;
    private ByteBuffer netIn;
    private ByteBuffer appIn;
    private ByteBuffer netOut;
    private boolean handshaken;
    /** The largest record: asked of the session once, as each ask takes the engine's lock. */
    private final int packetSize;
    private boolean inputClosed;
    /** {@link #read} stopped as the handshake waited to write: input may wait here unread. */
    private boolean readStalled;

    TlsSession(SSLEngine engine, SocketChannel channel) throws SSLException {
        this.engine = engine;
        this.channel = channel;
        int packet = engine.getSession().getPacketBufferSize();
        this.packetSize = packet;
        this.netIn = ByteBuffer.allocate(packet);
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize()).limit(0);
        // room for a few records: a big reply goes out in 64 KiB writes rather than one per record
        this.netOut = ByteBuffer.allocate(4 * packet).limit(0);
        engine.beginHandshake();
    }

    /**
     * Reads and decrypts what the socket has into {@code dst}. Stops when {@code dst} is full (call
     * again after making room: more may be buffered here), or when nothing more can be decrypted
     * without the peer: then, if {@code dst} is not full, everything received has been given.
     *
     * @return plain bytes put into {@code dst}; -1 once the peer has closed and all is given
     * @throws IOException if the socket fails or the peer breaks the protocol (the caller closes)
     */
    int read(ByteBuffer dst) throws IOException {
        int start = dst.position();
        boolean drained = false;
        while (true) {
            take(dst);
            if (!dst.hasRemaining() || inputClosed) {
                break;
            }
            if (!handshake()) {
                readStalled = true;
                break;
            }
            Status status = TlsRecordHeader.partial(netIn, packetSize) ? Status.BUFFER_UNDERFLOW : unwrap();
            switch (status) {
                case OK -> {
                    // a record's data is in appIn for take(); a handshake message went to the engine
                }
                case BUFFER_UNDERFLOW -> {
                    if (drained) {
                        // the last read left room: the socket had no more, as a plain read that does
                        // not fill its buffer says; a read more would cost a system call per request
                        return dst.position() - start;
                    }
                    if (!netIn.hasRemaining()) {
                        netIn = grown(netIn, packetSize);
                    }
                    int n = channel.read(netIn);
                    if (n < 0) {
                        inputClosed = true; // without close_notify: what was decrypted still counts
                    } else if (n == 0) {
                        return dst.position() - start; // all received is given
                    }
                    drained = netIn.hasRemaining();
                }
                case BUFFER_OVERFLOW -> {
                    if (appIn.hasRemaining()) {
                        continue; // take() makes room
                    }
                    // the session's records grew after the handshake: a bigger buffer, empty
                    appIn = ByteBuffer.allocate(Math.max(2 * appIn.capacity(),
                            engine.getSession().getApplicationBufferSize())).limit(0);
                }
                case CLOSED -> {
                    inputClosed = true; // close_notify: answered by close()
                }
            }
        }
        int n = dst.position() - start;
        return n == 0 && inputClosed && !appIn.hasRemaining() ? -1 : n;
    }

    /** Decrypts one record from {@code netIn} into {@code appIn}, refusing renegotiation. */
    private Status unwrap() throws SSLException {
        netIn.flip();
        appIn.compact();
        SSLEngineResult r;
        try {
            r = engine.unwrap(netIn, appIn);
        } finally {
            appIn.flip();
            netIn.compact();
        }
        if (r.getStatus() == Status.OK) {
            checkRenegotiation(r.getHandshakeStatus());
        }
        return r.getStatus();
    }

    /**
     * Encrypts from {@code src} and writes, until it is all wrapped or the socket takes no more.
     *
     * @return plain bytes taken from {@code src}, wrapped; some may wait here ({@link #flushed})
     */
    int write(ByteBuffer src) throws IOException {
        int start = src.position();
        boolean progress = true;
        while (progress && src.hasRemaining() && flushNet() && handshake()) {
            progress = false;
            netOut.compact();
            try {
                // several records per write while there is room for another whole one
                while (src.hasRemaining() && netOut.remaining() >= packetSize) {
                    SSLEngineResult r = engine.wrap(src, netOut);
                    if (r.getStatus() == Status.CLOSED) {
                        throw new SSLException("TLS connection closed");
                    }
                    if (r.getStatus() != Status.OK || r.bytesProduced() == 0) {
                        break; // mid-handshake, the engine takes no data yet
                    }
                    progress = true;
                }
            } finally {
                netOut.flip();
            }
        }
        flushNet();
        return src.position() - start;
    }

    /**
     * Writes what waits here and goes on with a handshake that was waiting to write.
     *
     * @return whether nothing waits to be written
     */
    boolean flushed() throws IOException {
        return handshake() && flushNet();
    }

    /** @return whether a read stopped for the handshake's write and was not asked again since */
    boolean handshakeWaitsToWrite() {
        return readStalled;
    }

    /** @return whether a read stopped for the handshake's write since this was last asked; clears it */
    boolean readStalled() {
        boolean was = readStalled;
        readStalled = false;
        return was;
    }

    /** @return whether the peer has closed (close_notify, or the end of the stream) and all it sent is given */
    boolean peerClosed() {
        return inputClosed && !appIn.hasRemaining();
    }

    /** Sends close_notify if the socket takes it at once; the caller closes the socket after. */
    void close() {
        try {
            engine.closeOutbound();
            if (flushNet()) {
                netOut.clear();
                engine.wrap(EMPTY, netOut);
                netOut.flip();
                flushNet();
            }
        } catch (IOException | RuntimeException ignored) {
            // the peer is gone or broke the protocol: it gets no close_notify
        }
    }

    /**
     * Runs the handshake's steps that need no input: its delegated tasks (certificate checks, run
     * here: they take microseconds) and the messages it sends.
     *
     * @return false if it waits to write (the socket is full); true if it is done or needs input
     */
    private boolean handshake() throws IOException {
        while (true) {
            HandshakeStatus hs = engine.getHandshakeStatus();
            switch (hs) {
                case NEED_TASK -> {
                    for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
                        task.run();
                    }
                }
                case NEED_WRAP -> {
                    // a flight's messages gather here and leave together when the connection
                    // flushes: a write each cost the server ~6 system calls per handshake
                    if (netOut.capacity() - netOut.remaining() < packetSize && !flushNet()) {
                        return false;
                    }
                    netOut.compact();
                    SSLEngineResult r;
                    try {
                        r = engine.wrap(EMPTY, netOut);
                    } finally {
                        netOut.flip();
                    }
                    if (r.getStatus() == Status.CLOSED && r.bytesProduced() == 0) {
                        return true;
                    }
                    checkRenegotiation(r.getHandshakeStatus());
                }
                default -> {
                    return true;
                }
            }
        }
    }

    /** Marks the first handshake's end, and refuses a later one under TLS 1.2 and older. */
    private void checkRenegotiation(HandshakeStatus after) throws SSLException {
        if (after == HandshakeStatus.FINISHED) {
            handshaken = true;
            return;
        }
        if (handshaken && after != HandshakeStatus.NOT_HANDSHAKING
                && !"TLSv1.3".equals(engine.getSession().getProtocol())) {
            throw new SSLException("TLS renegotiation refused");
        }
    }

    private void take(ByteBuffer dst) {
        int n = Math.min(appIn.remaining(), dst.remaining());
        if (n > 0) {
            dst.put(dst.position(), appIn, appIn.position(), n);
            dst.position(dst.position() + n);
            appIn.position(appIn.position() + n);
        }
    }

    private boolean flushNet() throws IOException {
        while (netOut.hasRemaining()) {
            if (channel.write(netOut) == 0) {
                return false;
            }
        }
        return true;
    }

    /** A buffer (ready to fill) with room for {@code more} bytes beyond what it holds. */
    private static ByteBuffer grown(ByteBuffer b, int more) {
        b.flip();
        ByteBuffer g = ByteBuffer.allocate(b.remaining() + more);
        g.put(b);
        return g;
    }
}
