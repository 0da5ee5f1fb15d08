package dev.colossal.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The RESP listeners: one acceptor thread per port (the plain one, the TLS one if there is
 * {@link TlsSetup}, and the {@link UnixSocket} if there is one) handing connections round-robin to
 * the event loops.
 */
final class RespServer implements AutoCloseable {

    private static final byte[] MAX_CLIENTS = ("-" + Errors.MAX_CLIENTS + "\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DENIED = ("-" + ProtectedMode.DENIED + "\r\n").getBytes(StandardCharsets.US_ASCII);

    private final ServerContext ctx;
    private final CommandTable table;
    private final EventLoop[] loops;
    /** The plain port's listener: replaced by {@link #movePort} and {@link #rebind}, so read anew by each check. */
    private volatile ServerSocketChannel listener;
    private volatile Thread acceptor;
    /** The TLS port's settings, or null for none. */
    private final TlsSetup tls;
    /** The TLS port's listener: replaced by {@link #rebind}. */
    private volatile ServerSocketChannel tlsListener;
    private volatile Thread tlsAcceptor;
    /** The Unix socket's settings and listener, or null for none. */
    private UnixSocket unix;
    private ServerSocketChannel unixListener;
    private Thread unixAcceptor;
    private volatile boolean running;
    /** See {@link #spare()}; touched by the acceptor thread only, until {@link #close}. */
    private EventLoop spare;

    RespServer(ServerContext ctx, CommandTable table) throws IOException {
        this(ctx, table, null);
    }

    /** A server with a TLS port too, unless {@code tls} is null. */
    RespServer(ServerContext ctx, CommandTable table, TlsSetup tls) throws IOException {
        this.tls = tls;
        this.ctx = ctx;
        this.table = table;
        this.loops = new EventLoop[ctx.config.ioThreads()];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new EventLoop(ctx, "colossal-io-" + i);
        }
    }

    /**
     * Binds and starts accepting; returns the bound plain port (0 if TLS only).
     *
     * @throws ListenException naming tls-port if the TLS port cannot be bound (other bind failures are the plain port's)
     */
    int start() throws IOException {
        int port = 0;
        if (tls == null || !tls.config().tlsOnly()) {
            listener = listen(ctx.bind, ctx.config.port());
            port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        }
        ctx.respPort = port;
        if (tls != null) {
            try {
                tlsListener = listen(ctx.bind, tls.config().port());
            } catch (java.net.BindException e) {
                throw new ListenException("tls-port", ctx.bind, tls.config().port(), e);
            }
            ctx.tlsPort = ((InetSocketAddress) tlsListener.getLocalAddress()).getPort();
        }
        unix = ctx.unixSocket;
        if (unix != null) {
            unixListener = unix.listen();
        }
        running = true;
        for (EventLoop l : loops) {
            l.start();
        }
        acceptOnTcp();
        if (listener != null) {
            ctx.portMove = this::movePort;
        }
        ctx.rebind = this::rebind;
        if (unixListener != null) {
            unixAcceptor = new Thread(() -> acceptLoop(unixListener, null, true), "colossal-accept-unix");
            unixAcceptor.start();
        }
        return port;
    }

    /**
     * Moves the plain port to {@code port} (CONFIG SET port). The new listener is bound first, so a
     * port that cannot be had leaves the old one serving; then connections are accepted there and
     * the old listener is closed. Connections already in stay, as in Redis.
     *
     * @throws IOException if {@code port} cannot be bound; nothing changed
     */
    synchronized void movePort(int port) throws IOException {
        if (!running) {
            throw new IOException("the server is stopping");
        }
        ServerSocketChannel moved = listen(ctx.bind, port);
        ServerSocketChannel old = listener;
        Thread oldAcceptor = acceptor;
        listener = moved;
        ctx.respPort = ((InetSocketAddress) moved.getLocalAddress()).getPort();
        acceptor = new Thread(() -> acceptLoop(moved, null, false), "colossal-accept");
        acceptor.start();
        if (old != null) { // none after a rebind that could not take its address back
            old.close(); // its acceptor finds it closed and no longer the listener: it just ends
            // and until it has, the old port still takes connections (a listener closed under
            // accept keeps its address while that thread is in it): CONFIG SET port answers once it is shut
            try {
                oldAcceptor.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Moves the TCP listeners, plain and TLS, to {@code address} (CONFIG SET bind), on the ports they
     * have, as Redis does: the old listeners are closed first (a wildcard address and a specific one
     * cannot both listen on a port), the new ones bound, and if one cannot be, those bound are closed
     * and the old address is listened on again. Connections already in stay.
     *
     * @throws IOException if {@code address} cannot be listened on; the old address serves again
     */
    synchronized void rebind(String address) throws IOException {
        if (!running) {
            throw new IOException("the server is stopping");
        }
        String old = ctx.bind;
        closeTcp();
        try {
            listenTcp(address);
        } catch (IOException | RuntimeException e) {
            closeTcp();
            try {
                listenTcp(old); // the ports were free a moment ago: taken back at once
            } catch (IOException lost) {
                System.err.println("colossal: CONFIG SET bind " + address + " failed, and " + old + " could not be listened"
                        + " on again (" + lost.getMessage() + "): only the connections in and the Unix socket are served;"
                        + " CONFIG SET bind again, or restart");
                throw lost;
            }
            acceptOnTcp();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        ctx.bind = address;
        acceptOnTcp();
    }

    /** Binds the plain and TLS listeners, on the ports they serve, at {@code address}. */
    private void listenTcp(String address) throws IOException {
        if (ctx.respPort > 0) {
            listener = listen(address, ctx.respPort);
        }
        if (tls != null) {
            tlsListener = listen(address, ctx.tlsPort);
        }
    }

    /**
     * Closes the TCP listeners and waits for their acceptors to end (finding them no longer the
     * listeners, they end quietly): a listener closed while its acceptor waits in accept keeps its
     * address until that thread has left, and the address may be bound again at once.
     */
    private void closeTcp() throws IOException {
        ServerSocketChannel plain = listener;
        ServerSocketChannel secure = tlsListener;
        listener = null;
        tlsListener = null;
        if (plain != null) {
            plain.close();
        }
        if (secure != null) {
            secure.close();
        }
        try {
            for (Thread t : new Thread[] {plain == null ? null : acceptor, secure == null ? null : tlsAcceptor}) {
                if (t != null && t != Thread.currentThread()) {
                    t.join(5000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the listeners closed", e);
        }
    }

    /** Starts an acceptor on each TCP listener. */
    private void acceptOnTcp() {
        ServerSocketChannel plain = listener;
        if (plain != null) {
            acceptor = new Thread(() -> acceptLoop(plain, null, false), "colossal-accept");
            acceptor.start();
        }
        ServerSocketChannel secure = tlsListener;
        if (secure != null) {
            tlsAcceptor = new Thread(() -> acceptLoop(secure, tls, false), "colossal-accept-tls");
            tlsAcceptor.start();
        }
    }

    private static ServerSocketChannel listen(String address, int port) throws IOException {
        ServerSocketChannel l = ServerSocketChannel.open();
        try {
            l.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            l.bind(new InetSocketAddress(address, port), 1024);
        } catch (IOException e) {
            l.close();
            throw e;
        }
        return l;
    }

    private void acceptLoop(ServerSocketChannel listener, TlsSetup tls, boolean local) {
        try {
            acceptUntilClosed(listener, tls, local);
        } catch (Throwable t) {
            if (running) {
                ctx.fail(Thread.currentThread().getName(), t);
            }
        }
    }

    /** @param local whether {@code listener} is the Unix socket's: no TCP options, and Redis's path:0 as address */
    private void acceptUntilClosed(ServerSocketChannel listener, TlsSetup tls, boolean local)
            throws IOException, InterruptedException {
        int next = 0;
        int failures = 0;
        while (running) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (ClosedChannelException e) {
                if (running && (local || listener == this.listener || listener == this.tlsListener)) {
                    throw e; // closed under us: nothing will ever be accepted again
                }
                return; // stopping, or a listener movePort or rebind replaced
            } catch (IOException e) {
                if (!running) {
                    return;
                }
                // Out of file descriptors (EMFILE) leaves the connection in the backlog, so the
                // next accept fails at once: retrying at once would spin a core until one closes.
                if (failures == 0) {
                    System.err.println("colossal: accepting a connection failed (" + e.getMessage()
                            + "); retrying with back-off until it works. Too many open files? Raise `ulimit -n`"
                            + " or lower --maxclients");
                }
                Thread.sleep(acceptBackOffMillis(failures++));
                continue;
            }
            if (failures > 0) {
                System.err.println("colossal: accepting connections again after " + failures + " failed attempts");
                failures = 0;
            }
            try {
                ctx.stats.connectionsReceived.increment();
                if (ctx.clients.size() >= ctx.maxClients) {
                    ctx.stats.rejectedConnections.increment();
                    if (tls == null) { // a TLS client could not read it before a handshake
                        ch.write(ByteBuffer.wrap(MAX_CLIENTS));
                    }
                    ch.close();
                    continue;
                }
                if (ProtectedMode.refuses(ctx, ch.getRemoteAddress())) {
                    ctx.stats.rejectedConnections.increment();
                    if (tls == null) { // a TLS client could not read it before a handshake
                        ch.write(ByteBuffer.wrap(DENIED));
                    }
                    ch.close();
                    continue;
                }
                if (!local) {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                ch.configureBlocking(false);
                long id = ctx.clientIds.incrementAndGet();
                Client client = new Client(id, local ? unix.clientAddress()
                        : String.valueOf(ch.getRemoteAddress()).replaceFirst("^/", ""), ctx.now(), ctx.acl.autoAuthenticated());
                client.unixSocket = local;
                client.user = ctx.acl.defaultUser();
                ctx.clients.put(id, client);
                ctx.stats.connectedClients.increment();
                Connection connection = new Connection(ch, client, ctx, table,
                        tls == null ? null : new TlsSession(tls.engine(), ch));
                EventLoop loop = loops[next];
                next = (next + 1) % loops.length;
                if (scriptRunsOn(loop)) {
                    loop = loops.length > 1 ? loops[next] : spare();
                    next = (next + 1) % loops.length;
                }
                EventLoop chosen = loop;
                client.killer = () -> chosen.kill(connection);
                client.mailer = () -> chosen.mail(connection);
                client.resumer = reply -> chosen.resume(connection, reply);
                if (tls == null) { // a debugging session writes the socket itself, which TLS's records would not let it
                    client.debugChannel = connection;
                }
                loop.add(connection);
            } catch (IOException e) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // the peer went away during accept
                }
            }
        }
    }

    /**
     * Whether a script runs on {@code loop} now: a new connection given to it would wait for the
     * script's end, and could not even SCRIPT KILL it. One script runs at a time in the server, so
     * the next loop is free of scripts (if there is one loop, a spare one made for this).
     */
    private boolean scriptRunsOn(EventLoop loop) {
        ScriptRun run = table.scripts().running();
        return run != null && loop.runsOn(run.thread);
    }

    /** The loop for connections that come while a script runs on the only one, started on first use. */
    private synchronized EventLoop spare() throws IOException {
        if (spare == null) {
            spare = new EventLoop(ctx, "colossal-io-spare");
            spare.start();
        }
        return spare;
    }

    /** @return how long to wait after {@code failures} accept failures in a row: 1 ms doubling to 1 s */
    static long acceptBackOffMillis(int failures) {
        return Math.min(1000, 1L << Math.min(failures, 10));
    }

    @Override
    public void close() throws IOException {
        synchronized (this) { // not while a rebind swaps the listeners
            running = false;
            closeTcp();
        }
        if (unixListener != null) {
            unixListener.close();
            unix.remove();
        }
        // A script that wrote cannot be killed, but the loop running it must stop (Redis's
        // SHUTDOWN NOSAVE ends such a script with the process): its writes so far stay.
        table.scripts().abortRunning();
        try {
            if (acceptor != null) {
                acceptor.join(5000);
            }
            if (tlsAcceptor != null) {
                tlsAcceptor.join(5000);
            }
            if (unixAcceptor != null) {
                unixAcceptor.join(5000);
            }
            for (EventLoop l : loops) {
                l.stop();
            }
            if (spare != null) {
                spare.stop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
