package dev.colossal.server;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One I/O thread with its selector and its share of the connections. Requests run on this thread,
 * so a connection's requests run in order and the loop never hands a request to another thread. What
 * other loops hand it is connections to close ({@link #kill}) and subscribers to write published
 * messages to ({@link #mail}); their buffers are touched on this thread only.
 */
final class EventLoop implements Runnable {

    private final Selector selector;
    private final ConcurrentLinkedQueue<Connection> incoming = new ConcurrentLinkedQueue<>();
    /** Connections CLIENT KILL closes: a connection is closed on its own loop's thread only. */
    private final ConcurrentLinkedQueue<Connection> killed = new ConcurrentLinkedQueue<>();
    /** Blocked clients' replies from other threads ({@link KeyWaits}): written, and their input resumed, on this loop. */
    private final ConcurrentLinkedQueue<Resumed> resumed = new ConcurrentLinkedQueue<>();

    /** A blocked connection's reply. */
    private record Resumed(Connection connection, byte[] reply) {}

    /** Subscribers that publishers on any loop left messages for ({@link Mailbox}): written on this loop. */
    private final ConcurrentLinkedQueue<Connection> mail = new ConcurrentLinkedQueue<>();
    private final ServerContext ctx;
    private final List<Connection> connections = new ArrayList<>();
    private final KeyViews keys = new KeyViews();
    private final ReadAhead readAhead;
    /** Connections that ran requests in this round of the loop: their replies go out after it. */
    private final List<Connection> toFlush = new ArrayList<>();
    /** How long to poll without sleeping after a round that found requests. */
    private final long busyPollNanos;
    /**
     * Whether to poll at all now: not for a while after this loop's thread, polling, spent more than
     * {@link #CONTENDED_SHARE} of its runnable time waiting for a CPU, as it does when other busy
     * work shares the cores (polling then takes CPU from the clients it waits for: GET from 50
     * connections went 51-56k/s polling and 120-140k/s not while other builds kept two cores busy),
     * nor on a single CPU. Judged every {@link #LOOK_NANOS} while polling only: a loop that sleeps
     * between requests also waits for each wake-up, which on a VM's idle cores can be a large share
     * of its little running and says nothing of other work. So a loop that stopped polling tries
     * again after {@link #pollAgainAt}, and stays off twice as long (up to {@link #MAX_OFF_NANOS})
     * each time it finds its cores still shared.
     */
    private boolean polling;
    /** When a loop that stopped polling tries again (System.nanoTime). */
    private long pollAgainAt;
    /** How long the next finding of shared cores stops polling for. */
    private long offNanos = MIN_OFF_NANOS;
    /**
     * The share of its runnable time a polling loop waits for a CPU when its cores are shared with
     * other busy work: 60-80% with other builds on this 2-core machine, up to ~5% beside one busy
     * client thread and the JVM's own compiler and collector threads, which is no reason to stop.
     */
    static final double CONTENDED_SHARE = 0.25;
    private static final long LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Runnable time a look needs to judge by. */
    private static final long EVIDENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long MIN_OFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long MAX_OFF_NANOS = TimeUnit.SECONDS.toNanos(16);
    private volatile boolean running = true;
    private final Thread thread;

    EventLoop(ServerContext ctx, String name) throws IOException {
        this.ctx = ctx;
        this.readAhead = new ReadAhead(ctx.dbs.count(), ctx::maxBulkBytes);
        this.selector = Selector.open();
        this.busyPollNanos = TimeUnit.MICROSECONDS.toNanos(ctx.config.busyPollMicros());
        this.polling = busyPollNanos > 0 && Runtime.getRuntime().availableProcessors() > 1;
        this.thread = new Thread(this, name);
    }

    void start() {
        thread.start();
    }

    /** @return whether {@code t} is this loop's thread */
    boolean runsOn(Thread t) {
        return thread == t;
    }

    void add(Connection c) {
        incoming.add(c);
        selector.wakeup();
    }

    /** Closes {@code c}, one of this loop's connections, on this loop's thread. */
    void kill(Connection c) {
        killed.add(c);
        selector.wakeup();
    }

    /**
     * Has this loop write the messages waiting in {@code c}'s mailbox. A publisher on this loop's own
     * thread need not wake it: the loop looks at {@link #mail} before it next sleeps.
     */
    void mail(Connection c) {
        mail.add(c);
        if (Thread.currentThread() != thread) {
            selector.wakeup();
        }
    }

    /** Has this loop write a blocked connection's reply and go on with its input, from any thread. */
    void resume(Connection c, byte[] reply) {
        resumed.add(new Resumed(c, reply));
        if (Thread.currentThread() != thread) {
            selector.wakeup();
        }
    }

    @Override
    public void run() {
        Consumer<SelectionKey> onReady = this::ready;
        long now = System.nanoTime();
        long lastSweep = now;
        long pollUntil = now;
        CpuWait cpuWait = polling ? new CpuWait() : null; // the loop's own thread's
        long lastLook = now;
        try {
            while (running) {
                for (Connection c; (c = incoming.poll()) != null; ) {
                    try {
                        c.start(c.channel.register(selector, SelectionKey.OP_READ, c), keys, readAhead);
                        connections.add(c);
                    } catch (IOException e) {
                        c.close();
                    }
                }
                for (Connection c; (c = killed.poll()) != null; ) {
                    c.close();
                }
                for (Connection c; (c = mail.poll()) != null; ) {
                    if (!c.isClosed()) {
                        guarded(c, MAIL);
                    }
                }
                for (Resumed x; (x = resumed.poll()) != null; ) {
                    if (!x.connection().isClosed()) {
                        try {
                            x.connection().resume(x.reply());
                        } catch (IOException e) {
                            x.connection().close();
                        }
                    }
                }
                // The action form skips the selected-key HashSet, whose add, iteration and clear
                // (O(table size) per select) took a fifth of the loop's CPU under unpipelined load.
                // A loop that sleeps whenever it is idle for a moment is woken by the client's next
                // write, and the waking (an interrupt to another CPU; on a VM an exit to the
                // hypervisor) is paid by the client's thread: with redis-benchmark -P 16 our loop
                // slept 2-5x as often per request as redis-server's, and the client spent more CPU
                // per request on us. Polling a little longer under load keeps the loop awake.
                // now: the end of the last round, microseconds ago at most while polling
                int ready = now - pollUntil < 0
                        ? selector.selectNow(onReady)
                        : selector.select(onReady, 1000);
                // Replies go out once every ready client has run its requests, as redis-server does
                // before it sleeps: the client finds them together rather than woken by the first.
                for (int i = 0; i < toFlush.size(); i++) {
                    Connection c = toFlush.get(i);
                    if (!c.isClosed()) {
                        guarded(c, FLUSH);
                    }
                }
                toFlush.clear();
                now = System.nanoTime();
                if (ctx.stats.rates.maybeSample(now)) {
                    ctx.stats.usedPeak.accumulate(ctx.dbs.usedBytes());
                }
                if (ready > 0 && polling) {
                    pollUntil = now + busyPollNanos;
                }
                if (cpuWait != null && now - lastLook > LOOK_NANOS) {
                    lastLook = now;
                    cpuWait.look();
                    judgePolling(now, cpuWait);
                    if (!polling) {
                        pollUntil = now; // a poll already begun stops too
                    }
                }
                if (now - lastSweep > TimeUnit.SECONDS.toNanos(1)) {
                    lastSweep = now;
                    sweep(now);
                }
            }
        } catch (Throwable t) {
            // Select failing, or an error no connection can be blamed for: this loop's clients
            // would wait forever (and the acceptor would go on handing it new ones), so stop all.
            if (running) {
                ctx.fail(thread.getName(), t);
            }
        } finally {
            if (cpuWait != null) {
                cpuWait.close();
            }
            connections.forEach(Connection::close);
            for (Connection c; (c = incoming.poll()) != null; ) {
                c.close();
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // nothing to do at shutdown
            }
        }
    }

    /** Stops or resumes polling by what the loop's thread waited for a CPU since the last look (see {@link #polling}). */
    private void judgePolling(long now, CpuWait since) {
        if (!polling) {
            polling = now - pollAgainAt >= 0; // the next look judges the try
            return;
        }
        long runnable = since.ran + since.waited;
        if (since.ran < 0 || runnable <= EVIDENCE_NANOS) {
            return; // hardly ran: nothing to judge by
        }
        if (since.waited > CONTENDED_SHARE * runnable) {
            polling = false;
            pollAgainAt = now + offNanos;
            offNanos = Math.min(2 * offNanos, MAX_OFF_NANOS);
        } else {
            offNanos = MIN_OFF_NANOS;
        }
    }

    private void ready(SelectionKey k) {
        Connection c = (Connection) k.attachment();
        if (!k.isValid()) {
            c.close();
            return;
        }
        if (k.isWritable()) {
            guarded(c, FLUSH);
        }
        // closed first: a write that failed (the peer reset) cancelled the key, whose ready set
        // then throws, which would stop the loop and the server with it
        if (!c.isClosed() && k.isReadable()) {
            // also while replies wait for the socket: a client that writes its whole pipeline before
            // it reads (hiredis, redis-py, Jedis) must get it all in, or both ends wait for ever
            guarded(c, READ);
            if (!c.isClosed()) {
                toFlush.add(c);
            }
        }
    }

    private static final int READ = 0;
    private static final int FLUSH = 1;
    private static final int MAIL = 2;

    /** Reads and runs requests ({@link #READ}), writes replies, or writes messages, closing {@code c} if that fails. */
    private static void guarded(Connection c, int what) {
        try {
            switch (what) {
                case READ -> c.onReadable();
                case FLUSH -> c.flush();
                default -> c.deliverMail();
            }
        } catch (IOException e) {
            c.close(); // the peer went away or reset: routine
        } catch (Throwable t) {
            c.close();
            if (poisonsJvm(t)) {
                throw (Error) t;
            }
            System.err.println("colossal: closed client id=" + c.client.id + " addr=" + c.client.address
                    + " after an unexpected error: " + t);
            t.printStackTrace();
        }
    }

    /**
     * Whether {@code t} says the JVM (or a mapped file under it: a fault on a truncated mapping is
     * an {@link InternalError}) cannot be trusted, so the server must stop rather than fail one
     * connection. Running out of heap or stack is one request's doing and ends with its connection.
     */
    static boolean poisonsJvm(Throwable t) {
        return t instanceof VirtualMachineError && !(t instanceof OutOfMemoryError) && !(t instanceof StackOverflowError);
    }

    private void sweep(long now) {
        long idle = TimeUnit.SECONDS.toNanos(ctx.idleTimeoutSeconds);
        connections.removeIf(c -> {
            // Redis spares subscribers, monitors and replicas the idle timeout: they wait for
            // messages, not to send commands; so is a client being sent a snapshot, for minutes maybe
            boolean listens = c.client.pubsub || c.client.monitor || c.client.replica || c.sendsSnapshot();
            if (!c.isClosed() && idle > 0 && now - c.lastActiveNanos > idle && !listens && c.client.blockedBy == null
                    && !c.client.paused) {
                c.close();
            } else if (!c.isClosed() && now - c.lastActiveNanos > Connection.SHRINK_AFTER_NANOS) {
                c.shrinkIfIdle();
            }
            if (!c.isClosed() && listens) {
                c.closedForOutputLimit(now); // the soft limit's time can pass with no message arriving
            }
            return c.isClosed();
        });
    }

    void stop() throws InterruptedException {
        running = false;
        selector.wakeup();
        thread.join(5000);
    }
}
