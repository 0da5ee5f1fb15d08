package dev.colossal.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/** The RESP listener: one acceptor thread handing connections round-robin to the event loops. */
final class RespServer implements AutoCloseable {

    private static final byte[] MAX_CLIENTS = ("-" + Errors.MAX_CLIENTS + "\r\n").getBytes(StandardCharsets.US_ASCII);

    private final ServerContext ctx;
    private final CommandTable table;
    private final EventLoop[] loops;
    private ServerSocketChannel listener;
    private Thread acceptor;
    private volatile boolean running;
    /** See {@link #spare()}; touched by the acceptor thread only, until {@link #close}. */
    private EventLoop spare;

    RespServer(ServerContext ctx, CommandTable table) throws IOException {
        this.ctx = ctx;
        this.table = table;
        this.loops = new EventLoop[ctx.config.ioThreads()];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new EventLoop(ctx, "colossal-io-" + i);
        }
    }

    /** Binds and starts accepting; returns the bound port. */
    int start() throws IOException {
        listener = ServerSocketChannel.open();
        listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        listener.bind(new InetSocketAddress(ctx.config.bind(), ctx.config.port()), 1024);
        int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        ctx.respPort = port;
        running = true;
        for (EventLoop l : loops) {
            l.start();
        }
        acceptor = new Thread(this::acceptLoop, "colossal-accept");
        acceptor.start();
        return port;
    }

    private void acceptLoop() {
        try {
            acceptUntilClosed();
        } catch (Throwable t) {
            if (running) {
                ctx.fail(Thread.currentThread().getName(), t);
            }
        }
    }

    private void acceptUntilClosed() throws IOException, InterruptedException {
        int next = 0;
        int failures = 0;
        while (running) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (ClosedChannelException e) {
                if (running) {
                    throw e; // closed under us: nothing will ever be accepted again
                }
                return;
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
                if (ctx.clients.size() >= ctx.config.maxClients()) {
                    ctx.stats.rejectedConnections.increment();
                    ch.write(ByteBuffer.wrap(MAX_CLIENTS));
                    ch.close();
                    continue;
                }
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.configureBlocking(false);
                long id = ctx.clientIds.incrementAndGet();
                Client client = new Client(id, String.valueOf(ch.getRemoteAddress()).replaceFirst("^/", ""),
                        ctx.now(), ctx.acl.autoAuthenticated());
                client.user = ctx.acl.defaultUser();
                ctx.clients.put(id, client);
                ctx.stats.connectedClients.increment();
                Connection connection = new Connection(ch, client, ctx, table);
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
    private EventLoop spare() throws IOException {
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
        running = false;
        if (listener != null) {
            listener.close();
        }
        // A script that wrote cannot be killed, but the loop running it must stop (Redis's
        // SHUTDOWN NOSAVE ends such a script with the process): its writes so far stay.
        table.scripts().abortRunning();
        try {
            if (acceptor != null) {
                acceptor.join(5000);
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
