package dev.colossal.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
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

    private void acceptUntilClosed() {
        int next = 0;
        while (running) {
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (IOException e) {
                if (running) {
                    continue;
                }
                return;
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
                        ctx.now(), ctx.config.requirePass() == null);
                ctx.clients.put(id, client);
                ctx.stats.connectedClients.increment();
                loops[next].add(new Connection(ch, client, ctx, table));
                next = (next + 1) % loops.length;
            } catch (IOException e) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // the peer went away during accept
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        running = false;
        if (listener != null) {
            listener.close();
        }
        try {
            if (acceptor != null) {
                acceptor.join(5000);
            }
            for (EventLoop l : loops) {
                l.stop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
