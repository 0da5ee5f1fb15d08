package dev.colossal.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One pipelined RESP connection: any number of threads send requests without waiting for replies;
 * one reader thread matches replies to requests in order.
 *
 * <p>Sending appends the request to a shared buffer and its future to the pending queue under one
 * lock, so the queue's order is the order of the bytes on the wire. Whoever then wins the write
 * lock writes everything buffered so far in one system call; the others return at once. Under load
 * this batches many requests per write without a writer thread; a lone caller writes its own request
 * with no hand-off. A semaphore bounds the requests in flight so a fast producer cannot grow the
 * buffer without bound.
 */
final class RespConnection implements AutoCloseable {

    /** A request waiting for its reply, with the function that turns the reply into the result. */
    private record Pending<T>(CompletableFuture<T> future, Function<Object, T> mapper) {
        void complete(Object reply) {
            if (reply instanceof RemoteServerException e) {
                future.completeExceptionally(e);
                return;
            }
            try {
                future.complete(mapper.apply(reply));
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
            }
        }
    }

    private final String address;
    private final Socket socket;
    private final OutputStream out;
    private final ReplyReader replies;
    private final Semaphore window;
    private final ReentrantLock queueLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final ArrayDeque<Pending<?>> pending = new ArrayDeque<>(); // guarded by queueLock
    private RequestBuffer filling = new RequestBuffer(); // guarded by queueLock
    private RequestBuffer spare = new RequestBuffer(); // guarded by writeLock
    private volatile RemoteMapException failure;
    private final Thread reader;

    private RespConnection(String address, Socket socket, int maxInFlight) throws IOException {
        this.address = address;
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.replies = new ReplyReader(socket.getInputStream());
        this.window = new Semaphore(maxInFlight);
        this.reader = Thread.ofVirtual().name("colossal-client-" + address).unstarted(this::readLoop);
    }

    /**
     * Connects and starts the reader.
     *
     * @throws RemoteMapException if the server cannot be reached in time
     */
    static RespConnection open(InetSocketAddress address, int connectTimeoutMillis, int maxInFlight) {
        String name = address.getHostString() + ":" + address.getPort();
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            socket.connect(address, connectTimeoutMillis);
            RespConnection c = new RespConnection(name, socket, maxInFlight);
            c.reader.start();
            return c;
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing was connected
            }
            throw new RemoteMapException("cannot connect to " + name + ": " + e.getMessage()
                    + "; is 'colossal serve' running there?", e);
        }
    }

    String address() {
        return address;
    }

    /** @return true once the connection is closed or broken; it never recovers */
    boolean isBroken() {
        return failure != null;
    }

    /** @return true if the calling thread is this connection's reader, which must never wait for a reply */
    boolean isReaderThread() {
        return Thread.currentThread() == reader;
    }

    /**
     * Sends one request; the future completes with {@code mapper} applied to its reply, or
     * exceptionally with the server's error or the connection's failure.
     *
     * @return the future, or null if the connection was already broken, so the request was not
     *         sent and may safely go to a new connection
     */
    <T> CompletableFuture<T> send(Function<Object, T> mapper, byte[]... args) {
        Pending<T> p = new Pending<>(new CompletableFuture<>(), mapper);
        try {
            window.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.future.completeExceptionally(new RemoteMapException("interrupted while waiting to send to " + address, e));
            return p.future;
        }
        queueLock.lock();
        try {
            if (failure != null) {
                window.release();
                return null;
            }
            filling.command(args);
            pending.add(p);
        } catch (RuntimeException e) {
            window.release();
            p.future.completeExceptionally(e);
            return p.future;
        } finally {
            queueLock.unlock();
        }
        drain();
        return p.future;
    }

    /** Writes what is buffered unless another thread is writing (it will write ours too). */
    private void drain() {
        while (writeLock.tryLock()) {
            try {
                while (true) {
                    RequestBuffer batch;
                    queueLock.lock();
                    try {
                        if (filling.isEmpty()) {
                            break;
                        }
                        batch = filling;
                        filling = spare;
                    } finally {
                        queueLock.unlock();
                    }
                    try {
                        out.write(batch.array(), 0, batch.length());
                    } finally {
                        batch.reset();
                        spare = batch;
                    }
                }
            } catch (IOException e) {
                fail(new RemoteMapException("connection to " + address + " broke while sending: " + e.getMessage()
                        + "; calls in flight may or may not have been applied", e));
                return;
            } finally {
                writeLock.unlock();
            }
            // A sender that failed tryLock while we held it relies on us to see its bytes.
            queueLock.lock();
            try {
                if (filling.isEmpty()) {
                    return;
                }
            } finally {
                queueLock.unlock();
            }
        }
    }

    private void readLoop() {
        try {
            while (true) {
                Object reply = replies.read();
                Pending<?> p;
                queueLock.lock();
                try {
                    p = pending.poll();
                } finally {
                    queueLock.unlock();
                }
                if (p == null) {
                    throw new IOException("a reply came that no request asked for");
                }
                window.release();
                p.complete(reply);
            }
        } catch (IOException | RuntimeException e) {
            fail(new RemoteMapException("connection to " + address + " lost: " + e.getMessage()
                    + "; calls in flight may or may not have been applied, the next call reconnects", e));
        }
    }

    /** Marks the connection broken, closes it, and fails every call still waiting. */
    private void fail(RemoteMapException why) {
        ArrayDeque<Pending<?>> orphans;
        queueLock.lock();
        try {
            if (failure == null) {
                failure = why;
            }
            orphans = new ArrayDeque<>(pending);
            pending.clear();
        } finally {
            queueLock.unlock();
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // already broken
        }
        for (Pending<?> p : orphans) {
            window.release();
            p.future.completeExceptionally(failure);
        }
    }

    @Override
    public void close() {
        fail(new RemoteMapException("connection to " + address + " closed by the client", null));
    }
}
