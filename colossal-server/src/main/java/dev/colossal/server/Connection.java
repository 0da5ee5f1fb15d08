package dev.colossal.server;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One client connection on an {@link EventLoop}: unparsed input, pending output, and the
 * read-parse-execute-write cycle. Runs only on its loop's thread.
 *
 * <p>All requests that arrived together run before one write of all their replies, which is what
 * makes pipelining cheap; the loop writes after every ready connection has run its requests.
 * While replies wait for the socket the connection is still read, as a client may write its whole
 * pipeline before it reads (hiredis, redis-py, Jedis): its requests wait, within
 * {@code client-query-buffer-limit}, and run only as the replies before them leave (at most
 * {@link #OUTPUT_HIGH_WATER} waits), so a client that does not read cannot make the server buffer
 * without bound.
 */
final class Connection implements DebugChannel {

    // Small, as most requests and replies are: every connection holds both (zeroed, so resident)
    // from its first moment. With 16 KiB each, 5,000 idle connections took 164 MB where
    // redis-server's took 32 MB. A burst grows them; idle, they shrink back (shrinkIfIdle).
    private static final int INITIAL_INPUT = 4 * 1024;
    /** Bytes read from one socket per turn of its loop at most, unless one request needs more. */
    static final int READ_BUDGET = 64 * 1024;
    private static final int INITIAL_OUTPUT = 4 * 1024;
    /**
     * A grown reply buffer up to this size is kept for the next batch rather than freed at once
     * (an idle connection frees it, {@link #shrinkIfIdle}): 16 pipelined LRANGEs of 500 short
     * elements are 72 KB, and with 64 KiB kept every batch allocated, zeroed and copied its way
     * back up through five buffers.
     */
    private static final int KEEP_OUTPUT = 1024 * 1024;
    /** The bytes of a snapshot read from disk into the reply buffer at a time: within what it keeps. */
    private static final int SNAPSHOT_PART = 256 * 1024;
    /** A connection idle this long gives back what a burst grew, as Redis's clients cron does. */
    static final long SHRINK_AFTER_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
    /** Stop running requests once this much output waits, and write first. */
    private static final int OUTPUT_HIGH_WATER = 4 * 1024 * 1024;

    final SocketChannel channel;
    final Client client;
    private final ServerContext ctx;
    private final CommandTable table;
    private final RequestParser parser;
    /** The connection's TLS, or null on the plain port. */
    private final TlsSession tls;
    private SelectionKey key;
    private KeyViews keys;
    private ReadAhead readAhead;
    /** The keys of the requests before this input position have been read ahead. */
    private int readAheadEnd;
    long lastActiveNanos = System.nanoTime();

    /**
     * Unparsed input, in native memory: the socket reads straight into it and a SET's value goes
     * from it into the map, one copy. Confined to the loop's thread, which allocates it.
     */
    private Arena inArena;
    private MemorySegment in = MemorySegment.NULL;
    private ByteBuffer inBuffer;
    private int inStart;
    private int inEnd;
    private int outPos;
    private boolean closed;
    /** The client shut its side down while replies were waiting: close once they are written. */
    private boolean inputEnded;
    /** Where a Lua debugging session waits on this socket, apart from its loop's selector; null when none. */
    private java.nio.channels.Selector debugSelector;

    Connection(SocketChannel channel, Client client, ServerContext ctx, CommandTable table) {
        this(channel, client, ctx, table, null);
    }

    /** A connection whose bytes go through {@code tls} (null: plain). */
    Connection(SocketChannel channel, Client client, ServerContext ctx, CommandTable table, TlsSession tls) {
        this.tls = tls;
        this.channel = channel;
        this.client = client;
        this.ctx = ctx;
        this.table = table;
        this.parser = new RequestParser(ctx::maxBulkBytes);
    }

    /** The loop takes the connection: called on the loop's thread once the socket is registered. */
    void start(SelectionKey registered, KeyViews loopKeys, ReadAhead loopReadAhead) {
        key = registered;
        keys = loopKeys;
        readAhead = loopReadAhead;
        input(INITIAL_INPUT);
        client.reply.open(INITIAL_OUTPUT);
    }

    /** Moves the unparsed input to the start of a new buffer of {@code size} bytes, freeing the old one. */
    private void input(long size) {
        Arena arena = Arena.ofConfined();
        MemorySegment grown = arena.allocate(size);
        int live = inEnd - inStart;
        MemorySegment.copy(in, inStart, grown, 0, live);
        if (inArena != null) {
            inArena.close();
        }
        inArena = arena;
        in = grown;
        inBuffer = grown.asByteBuffer();
        inStart = 0;
        inEnd = live;
        readAheadEnd = 0;
        client.inputCapacity = (int) size;
    }

    /**
     * Frees the input and reply buffers a burst grew, back to their first size, if nothing waits
     * in them. Called by the loop for a connection idle {@link #SHRINK_AFTER_NANOS}: 5,000
     * connections that each once sent a pipelined burst would otherwise keep ~100 KB each.
     */
    void shrinkIfIdle() {
        if (inStart == inEnd && in.byteSize() > INITIAL_INPUT) {
            input(INITIAL_INPUT);
        }
        if (client.reply.len == 0) {
            client.reply.reset(0);
        }
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * The socket is readable: read what is there and run whole requests. Their replies wait for
     * {@link #flush}, which the loop calls once every ready connection has run its requests.
     */
    void onReadable() {
        try {
            int total = 0;
            ctx.stats.readsProcessed.increment();
            while (true) {
                if (inEnd == in.byteSize()) {
                    makeRoom();
                }
                int room = (int) in.byteSize() - inEnd;
                int want = tls == null ? Math.min(room, READ_BUDGET - total) : room;
                inBuffer.clear().position(inEnd).limit(inEnd + want);
                int n = tls == null ? channel.read(inBuffer) : tls.read(inBuffer);
                if (n < 0) {
                    if (outPos < client.reply.len && client.blockedBy == null && !client.paused) {
                        // read while replies waited for the socket: a client that sent its last
                        // request and shut its side down still gets the replies, as it did when
                        // its end was read only once they were written
                        inputEnded = true;
                        key.interestOps(SelectionKey.OP_WRITE);
                        break;
                    }
                    close();
                    return;
                }
                total += n;
                inEnd += n;
                if (inEnd - inStart > maxQuery()) {
                    // Redis closes clients past client-query-buffer-limit without a reply.
                    close();
                    return;
                }
                if (n < want) {
                    break; // the socket has no more for now
                }
                if (total >= READ_BUDGET && tls == null) {
                    // The rest waits for the loop's next turn (the selector reports the socket again):
                    // a client pipelining megabytes would keep the loop's other clients waiting, and
                    // its own first reply, until all of it had run. (Not over TLS: what the session
                    // has decrypted and not handed over would not wake the selector.)
                    break;
                }
            }
            ctx.stats.bytesIn.add(total);
            runRequests(lastActiveNanos = System.nanoTime());
        } catch (IOException e) {
            close();
        }
    }

    /** @return the most unparsed input a connection may hold: a whole bulk at proto-max-bulk-len, with room for the rest of its request */
    private long maxQuery() {
        return Math.min(Integer.MAX_VALUE - 1024, ctx.maxBulkBytes() + 1024L * 1024);
    }

    /** The buffer is full: slide the unparsed input to its start, or grow it. */
    private void makeRoom() {
        int live = inEnd - inStart;
        if (inStart > 0 && live <= in.byteSize() / 2) {
            MemorySegment.copy(in, inStart, in, 0, live);
            inStart = 0;
            inEnd = live;
            readAheadEnd = 0;
        } else {
            input(Math.min(in.byteSize() * 2, maxQuery() + 1L));
        }
    }

    /** Runs the whole requests read so far; {@code nowNanos} is the clock as they start (the slow log's). */
    private void runRequests(long nowNanos) {
        client.clockNanos = nowNanos;
        client.clockKept = true;
        Reply out = client.reply;
        while (inStart < inEnd && !client.closeAfterReply && out.len < OUTPUT_HIGH_WATER && client.blockedBy == null
                && !client.paused && !sendsSnapshot()) {
            if (inStart >= readAheadEnd) {
                readAheadEnd = readAhead.run(ctx.db(client), client.db, in, inStart, inEnd);
            }
            boolean whole;
            try {
                whole = parser.parse(in, inStart, inEnd);
            } catch (ProtocolException e) {
                ctx.stats.protocolErrors.increment();
                out.error(e.getMessage());
                client.closeAfterReply = true;
                inStart = inEnd;
                break;
            }
            if (!whole) {
                break;
            }
            int request = inStart;
            inStart = parser.next;
            client.queryBytes = inEnd - request;
            if (parser.argc > 0) {
                if (!ctx.pause.isOn()) {
                    run(out);
                } else {
                    byte[][] args = parser.args(in);
                    if (ctx.pause.holds(client, table, args) && ctx.pause.park(client)) {
                        // CLIENT LIST's cmd= names the held command, as Redis's does
                        client.lastCommand = LastCommand.of(table.find(args[0]), args);
                        inStart = request; // read again, and run, when the pause ends
                        break;
                    }
                    if (client.replies == ReplyMode.ON) {
                        table.execute(client, args);
                        repliesSet();
                    } else {
                        quietly(out, subscription(args[0]), () -> table.execute(client, args));
                    }
                }
            }
        }
        table.publish(client);
        client.queryBytes = inEnd - inStart;
        if (inStart == inEnd) {
            inStart = 0;
            inEnd = 0;
            readAheadEnd = 0;
            if (in.byteSize() > 1024 * 1024) {
                input(INITIAL_INPUT);
            }
        }
    }

    /** Runs the request just parsed, in the buffer, and sends its reply unless CLIENT REPLY says not to. */
    private void run(Reply out) {
        if (client.replies == ReplyMode.ON) {
            table.execute(client, parser, in, keys);
            repliesSet();
        } else {
            quietly(out, subscription(parser.args(in)[0]), () -> table.execute(client, parser, in, keys));
        }
    }

    /** @return whether {@code name} is a (P|S)(UN)SUBSCRIBE, whose confirmations Redis sends as pushes */
    private static boolean subscription(byte[] name) {
        return Args.is(name, "SUBSCRIBE") || Args.is(name, "UNSUBSCRIBE") || Args.is(name, "PSUBSCRIBE")
                || Args.is(name, "PUNSUBSCRIBE") || Args.is(name, "SSUBSCRIBE") || Args.is(name, "SUNSUBSCRIBE");
    }

    /** A command run with replies on may have been CLIENT REPLY OFF or SKIP: from the next one on, replies are dropped. */
    private void repliesSet() {
        if (client.replies != ReplyMode.ON) {
            client.replies = client.replies.next();
        }
    }

    /**
     * Runs {@code command} and drops its reply, as CLIENT REPLY OFF or SKIP has it; messages
     * published before it still go out, as in Redis, which sends pushes under REPLY OFF, and so do
     * {@code pushes}: a (un)subscribe's confirmations.
     */
    private void quietly(Reply out, boolean pushes, Runnable command) {
        PubSubCommands.deliverWaiting(client, out);
        int mark = out.len;
        command.run();
        if (client.replies != ReplyMode.ON) { // CLIENT REPLY ON, the command, sends its OK
            // a subscription's confirmations go out, as Redis 7.0 pushes them; its errors do not
            if (!pushes || out.len > mark && out.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, mark) == '-') {
                out.truncate(mark);
            }
            client.dropResumedReply = client.blockedBy != null;
            client.replies = client.replies.next();
        }
    }

    /**
     * Writes pending replies, then the parts of a snapshot being sent, a {@link #SNAPSHOT_PART} at a
     * time; waits for writability if the socket is full.
     */
    void flush() throws IOException {
        Reply out = client.reply;
        do {
            if (outPos < out.len) {
                // The reply buffer is native: the socket takes it as it is, in one write.
                int n = tls == null ? channel.write(out.pending(outPos)) : tls.write(out.pending(outPos));
                ctx.stats.writesProcessed.increment();
                outPos += n;
                ctx.stats.bytesOut.add(n);
                if (outPos < out.len) {
                    waitToWrite();
                    return;
                }
            }
            if (tls != null && !tls.flushed()) { // the last records, or the handshake's, wait for the socket
                waitToWrite();
                return;
            }
            outPos = 0;
            out.reset(KEEP_OUTPUT);
        } while (sendsSnapshot() && client.subscriber.mailbox.nextSnapshotPart(out, SNAPSHOT_PART));
        if (client.closeAfterReply) {
            close();
            return;
        }
        if (inStart < inEnd && client.blockedBy == null && !client.paused && hasWholeRequest()) {
            // stopped at the high-water mark: go on with what is already read
            runRequests(lastActiveNanos = System.nanoTime());
            flush();
            return;
        }
        if (inputEnded) {
            close(); // every whole request it sent before its end is answered
            return;
        }
        if (tls != null && tls.peerClosed()) {
            // close_notify came behind the requests just answered, and the socket will not wake us
            // again unless the client also closes it: answer it now, as the plain port does its end
            close();
            return;
        }
        if (key.interestOps() != SelectionKey.OP_READ) {
            key.interestOps(SelectionKey.OP_READ);
        }
        if (tls != null && tls.readStalled()) {
            // what the handshake left unread while it waited to write will not wake the selector
            onReadable();
            if (!closed) {
                flush();
            }
        }
    }

    /** @return whether a snapshot is being sent, or waits to be: no request runs, lest its reply cut into the file */
    boolean sendsSnapshot() {
        return client.subscriber != null && client.subscriber.mailbox.holdsSnapshot();
    }

    /**
     * Output waits for the socket: wake when it takes more, and on input too, unless the client
     * has ended it or TLS's handshake must write before it can read (the unread bytes would wake
     * the loop again and again).
     */
    private void waitToWrite() {
        boolean read = !inputEnded && (tls == null || !tls.handshakeWaitsToWrite());
        key.interestOps(read ? SelectionKey.OP_WRITE | SelectionKey.OP_READ : SelectionKey.OP_WRITE);
    }

    /**
     * Writes the messages publishers left in this subscriber's {@link Mailbox}, unless they take its
     * unread output past the {@link OutputLimit}, which closes it instead.
     */
    void deliverMail() throws IOException {
        Reply out = client.reply;
        if (outPos > 0 && outPos >= out.len / 2) {
            // a subscriber reading about as fast as it is sent to never empties the buffer
            out.dropWritten(outPos);
            outPos = 0;
        }
        client.subscriber.mailbox.drainTo(out);
        if (!closedForOutputLimit(System.nanoTime())) {
            flush();
        }
    }

    /** Closes a subscriber past its {@link OutputLimit}. @return whether it did */
    boolean closedForOutputLimit(long nowNanos) {
        Subscriber s = client.subscriber;
        long pending = client.reply.len - outPos + s.mailbox.queuedBytes();
        if (s.limit.exceeded(pending, nowNanos)) {
            s.limit.logClose(client, pending);
            close();
            return true;
        }
        return false;
    }

    /**
     * A blocking command this client ran is over ({@link KeyWaits}), or the pause that held its
     * next request ended ({@link ClientPause}, with no reply): writes its reply, then runs the
     * requests that came in behind it.
     */
    void resume(byte[] reply) throws IOException {
        client.blockedBy = null;
        if (client.dropResumedReply) {
            client.dropResumedReply = false;
        } else {
            client.reply.append(reply);
            if (reply.length > 0 && reply[0] == '-') {
                // the blocked command failed after all (its group or key went): counted as Redis counts it
                client.reply.countError(reply);
                table.failedWhileBlocked(client);
            }
        }
        lastActiveNanos = System.nanoTime();
        if (inStart < inEnd) {
            runRequests(lastActiveNanos);
        }
        flush();
    }

    @Override
    public void send(byte[] bytes) throws IOException {
        Reply out = client.reply;
        if (outPos < out.len) { // what came before the session's first words goes before them
            writeAll(out.pending(outPos));
            outPos = out.len;
        }
        writeAll(ByteBuffer.wrap(bytes));
    }

    @Override
    public int read(ByteBuffer into, long waitMillis) throws IOException {
        if (inStart < inEnd) { // sent behind the EVAL, before the server stopped to listen
            int n = Math.min(into.remaining(), inEnd - inStart);
            into.put(in.asSlice(inStart, n).asByteBuffer());
            inStart += n;
            return n;
        }
        int n = channel.read(into);
        if (n == 0) {
            waitFor(SelectionKey.OP_READ, waitMillis);
            n = channel.read(into);
        }
        if (n > 0) {
            ctx.stats.bytesIn.add(n);
        }
        return n;
    }

    @Override
    public void release() {
        if (debugSelector != null) {
            try {
                debugSelector.close();
            } catch (IOException ignored) {
                // nothing was left to wait for
            }
            debugSelector = null;
        }
    }

    /** Writes all of {@code bytes} to the socket, waiting for it as long as it takes. */
    private void writeAll(ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            ctx.stats.bytesOut.add(channel.write(bytes));
            if (bytes.hasRemaining()) {
                waitFor(SelectionKey.OP_WRITE, 1000);
            }
        }
    }

    /** Waits up to {@code millis} for the socket to be ready for {@code ops}, on a selector of the session's own. */
    private void waitFor(int ops, long millis) throws IOException {
        if (debugSelector == null) {
            debugSelector = java.nio.channels.Selector.open();
        }
        SelectionKey k = channel.keyFor(debugSelector);
        if (k == null) {
            channel.register(debugSelector, ops);
        } else {
            k.interestOps(ops);
        }
        debugSelector.select(millis);
        debugSelector.selectedKeys().clear();
    }

    private boolean hasWholeRequest() {
        try {
            return parser.parse(in, inStart, inEnd);
        } catch (ProtocolException e) {
            return true; // runRequests reports it
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        release();
        KeyWaits.Waiter w = client.blockedBy;
        if (w != null) {
            ctx.waits.finish(w, null);
        }
        if (client.paused) {
            ctx.pause.forget(client);
        }
        PubSubCommands.leaveAll(ctx, client);
        ctx.monitors.remove(client);
        ctx.replicas.closed(client);
        if (client.subscriber != null) {
            client.subscriber.mailbox.discard(); // after closed(): no snapshot is offered to it any more
        }
        ctx.tracking.disable(client);
        Transactions.unwatch(ctx, client);
        ctx.clients.remove(client.id);
        ctx.stats.connectedClients.decrement();
        if (key != null) {
            key.cancel();
        }
        if (tls != null) {
            tls.close();
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a broken socket: nothing more to do
        }
        if (inArena != null) {
            inArena.close();
            inArena = null;
        }
        in = MemorySegment.NULL;
        client.reply.close();
    }

    @Override
    public String toString() {
        return "Connection[id=" + client.id + ", addr=" + client.address + ", in=" + (inEnd - inStart)
                + ", out=" + (client.reply.len - outPos) + ", buf=" + in.byteSize() + "]";
    }
}
