package dev.colossal.client;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * A few pipelined connections, each shared by every thread. A request goes to the connection its
 * key hashes to, so requests on one key keep their order even when sent asynchronously. A broken
 * connection is replaced by the next call that needs it (after a server restart, say). Each new
 * connection authenticates and selects the pool's database before any request goes on it.
 */
final class ConnectionPool implements AutoCloseable {

    private static final byte[] AUTH = RequestBuffer.ascii("AUTH");
    private static final byte[] SELECT = RequestBuffer.ascii("SELECT");

    private final InetSocketAddress address;
    private final byte[] password;
    /** The database SELECT chooses on each connection, or null for the server's default (0). */
    private final byte[] database;
    private final int connectTimeoutMillis;
    private final long replyTimeoutMillis;
    private final int maxInFlight;
    private final AtomicReferenceArray<RespConnection> slots;
    private final Object[] slotLocks;
    private volatile boolean closed;

    ConnectionPool(InetSocketAddress address, byte[] password, int database, int size, int connectTimeoutMillis,
                   long replyTimeoutMillis, int maxInFlight) {
        this.address = address;
        this.password = password;
        this.database = database == 0 ? null : RequestBuffer.ascii(Integer.toString(database));
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.replyTimeoutMillis = replyTimeoutMillis;
        this.maxInFlight = maxInFlight;
        this.slots = new AtomicReferenceArray<>(size);
        this.slotLocks = new Object[size];
        for (int i = 0; i < size; i++) {
            slotLocks[i] = new Object();
        }
    }

    /** Connects every slot now, so that a wrong address or password fails at once. */
    void connectAll() {
        for (int i = 0; i < slots.length(); i++) {
            connection(i);
        }
    }

    /** A request on its connection. */
    record Sent<T>(RespConnection connection, CompletableFuture<T> future) {}

    /**
     * Sends a request on the connection for a key's hash, reconnecting the slot if it broke. A
     * request that found its connection already broken was never written, so it goes to the new one.
     *
     * @throws RemoteMapException if no connection can be made
     */
    <T> Sent<T> send(int hash, Function<Object, T> mapper, byte[]... args) {
        int slot = Math.floorMod(hash, slots.length());
        for (int attempt = 0; ; attempt++) {
            RespConnection c = connection(slot);
            CompletableFuture<T> f = c.send(mapper, args);
            if (f != null) {
                return new Sent<>(c, f);
            }
            if (attempt == 3) {
                throw new RemoteMapException("connection to " + c.address() + " keeps breaking; giving up", null);
            }
        }
    }

    private RespConnection connection(int slot) {
        RespConnection c = slots.get(slot);
        if (c != null && !c.isBroken()) {
            return c;
        }
        synchronized (slotLocks[slot]) {
            if (closed) {
                throw new RemoteMapException("the RemoteMap for " + address.getHostString() + ":" + address.getPort()
                        + " is closed", null);
            }
            c = slots.get(slot);
            if (c == null || c.isBroken()) {
                c = RespConnection.open(address, connectTimeoutMillis, maxInFlight);
                if (password != null) {
                    handshake(c, "AUTH", AUTH, password);
                }
                if (database != null) {
                    handshake(c, "SELECT", SELECT, database);
                }
                slots.set(slot, c);
            }
            return c;
        }
    }

    /** Sends a command a new connection needs before any request, and waits for its OK. */
    private void handshake(RespConnection c, String name, byte[]... command) {
        try {
            CompletableFuture<Object> f = c.send(reply -> reply, command);
            if (f == null) {
                throw new RemoteMapException("connection to " + c.address() + " broke before " + name, null);
            }
            await(new Sent<>(c, f));
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * Waits for a reply within the reply timeout; rethrows failures on the calling thread.
     *
     * @throws RemoteServerException if the server replied with an error
     * @throws RemoteMapException    if the connection failed or no reply came in time
     */
    <T> T await(Sent<T> sent) {
        RespConnection c = sent.connection();
        CompletableFuture<T> f = sent.future();
        if (c.isReaderThread() && !f.isDone()) {
            throw new IllegalStateException("a blocking RemoteMap call from a callback of an async call on the same "
                    + "connection would wait forever; use the async method, or thenApplyAsync/thenComposeAsync");
        }
        try {
            return f.get(replyTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            // Rethrown as new exceptions so the stack trace shows the caller, not the reader thread.
            if (cause instanceof RemoteServerException s) {
                throw new RemoteServerException(s.getMessage(), s);
            }
            if (cause instanceof RemoteMapException m) {
                throw new RemoteMapException(m.getMessage(), m);
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new RemoteMapException("call to " + c.address() + " failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new RemoteMapException("no reply from " + c.address() + " within " + replyTimeoutMillis
                    + " ms; the server may be stuck or overloaded (raise RemoteMap.Builder.replyTimeout?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemoteMapException("interrupted while waiting for " + c.address(), e);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (int i = 0; i < slots.length(); i++) {
            synchronized (slotLocks[i]) {
                RespConnection c = slots.getAndSet(i, null);
                if (c != null) {
                    c.close();
                }
            }
        }
    }
}
