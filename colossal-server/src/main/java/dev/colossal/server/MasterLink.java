package dev.colossal.server;

import dev.colossal.rdb.RdbFormatException;
import dev.colossal.rdb.RdbReader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The replica's side of a link to a Redis master (REPLICAOF host port), on a thread of its own:
 * connects, shakes hands (PING, AUTH if masterauth is set, REPLCONF listening-port and capa eof
 * psync2, PSYNC), loads the snapshot of a full sync ({@link SyncLoad}) or goes on from its offset
 * after {@code +CONTINUE}, then applies the master's commands through the command table as the
 * master's client, replies dropped. It acknowledges its offset every second and when asked
 * (REPLCONF GETACK); a link that drops is made again a second later, trying a partial resync first.
 *
 * <p>The offset counts the bytes of each command applied, as the master counts what it sent; a
 * transaction's commands count at its EXEC, so that a link dropped inside one resumes from its
 * MULTI, which the master sends again, and the half-received transaction is dropped. What counts
 * is relayed at once to this server's own replicas ({@link Replicas#relay}), so their stream is the
 * master's; the database the stream is in goes with the offset ({@link ReplicaState#streamDb}), as
 * a resumed stream or a replica's snapshot goes on with no SELECT first.
 */
final class MasterLink {

    /** The replica's wait for a silent master before it drops the link: Redis's repl-timeout. */
    static final int TIMEOUT_MILLIS = 60_000;
    private static final long RETRY_MILLIS = 1000;
    private static final long ACK_MILLIS = 1000;

    final String host;
    final int port;
    private final ServerContext ctx;
    private final CommandTable table;
    private final ReplicaState state;
    private volatile boolean stopped;
    private volatile Socket socket;
    private Thread thread;
    /** The commands' bytes since the current transaction's MULTI: counted in the offset at its EXEC. */
    private long pending;

    MasterLink(ServerContext ctx, CommandTable table, String host, int port) {
        this.ctx = ctx;
        this.table = table;
        this.state = ctx.replica;
        this.host = host;
        this.port = port;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("colossal-replica-of-" + host + ":" + port).start(this::run);
    }

    /** Drops the link and waits for its thread: no command of the master runs after this returns. */
    void stop() {
        stopped = true;
        closeSocket();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void closeSocket() {
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing only to end the session's reads
            }
        }
    }

    private void run() {
        Client master = new Client(ctx.clientIds.incrementAndGet(), host + ":" + port, ctx.now(), true);
        master.fromMaster = true;
        master.killer = this::closeSocket; // CLIENT KILL TYPE master: the link is made again, resuming
        master.reply.open(4096);
        master.db = state.streamDb; // a resumed stream goes on in its database
        try {
            while (!stopped) {
                try {
                    session(master);
                } catch (IOException | RdbFormatException | RuntimeException e) {
                    if (!stopped) {
                        System.err.println("colossal: replication link to " + host + ":" + port + " lost: " + e.getMessage()
                                + "; trying again in a second");
                    }
                } finally {
                    closeSocket();
                    // what a transaction had queued is dropped: the master sends it again from its MULTI
                    master.queued = null;
                    master.queueRefused = false;
                    pending = 0;
                    state.phase = ReplicaState.Phase.CONNECT;
                    if (state.downSinceMillis == 0) {
                        state.downSinceMillis = ctx.now();
                    }
                }
                if (!stopped) {
                    try {
                        Thread.sleep(RETRY_MILLIS);
                    } catch (InterruptedException e) {
                        return; // stopped
                    }
                }
            }
        } finally {
            master.reply.close();
        }
    }

    private void session(Client master) throws IOException, RdbFormatException {
        state.phase = ReplicaState.Phase.CONNECTING;
        Socket s = new Socket();
        socket = s;
        if (stopped) {
            return;
        }
        s.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
        s.setSoTimeout(TIMEOUT_MILLIS);
        s.setTcpNoDelay(true);
        state.phase = ReplicaState.Phase.HANDSHAKE;
        MasterInput in = new MasterInput(s.getInputStream());
        OutputStream out = s.getOutputStream();
        handshake(in, out);
        long before = state.offset;
        boolean partial = !state.replid.equals("?") && before >= 0;
        send(out, "PSYNC", partial ? state.replid : "?", partial ? Long.toString(before + 1) : "-1");
        String answer = in.line();
        while (answer.isEmpty()) {
            answer = in.line();
        }
        String[] words = answer.split(" ");
        if (words[0].equals("+FULLRESYNC") && words.length == 3) {
            state.phase = ReplicaState.Phase.SYNC;
            // a sync that fails halfway leaves data of no offset: the next link must sync in full again
            state.replid = "?";
            state.offset = -1;
            ctx.replicas.forgetRelay(); // the replicas' data is about to be replaced under them
            fullSync(in, master);
            long offset = Long.parseLong(words[2]);
            ctx.replicas.restartRelay(words[1], offset);
            state.replid = words[1];
            state.offset = offset;
        } else if (words[0].equals("+CONTINUE")) {
            if (words.length > 1 && !words[1].equals(state.replid)) {
                // the master's id changed (it was promoted): psync2 goes on, and so do our replicas'
                ctx.replicas.shiftTo(words[1], true);
                state.replid = words[1];
            }
        } else {
            throw new IOException("the master answered PSYNC with '" + answer + "'");
        }
        state.phase = ReplicaState.Phase.CONNECTED;
        state.downSinceMillis = 0;
        state.lastIoMillis = ctx.now();
        Thread acks = Thread.ofPlatform().daemon().name("colossal-replica-acks").start(() -> acks(out));
        ctx.clients.put(master.id, master); // CLIENT LIST shows the link while it follows, flags=M
        try {
            follow(in, out, master);
        } finally {
            ctx.clients.remove(master.id);
            acks.interrupt();
        }
    }

    /** PING, AUTH, and the REPLCONFs a Redis master wants before PSYNC. */
    private void handshake(MasterInput in, OutputStream out) throws IOException {
        send(out, "PING");
        String pong = in.line();
        // a master with requirepass answers PING with NOAUTH (or NOPERM for a user): AUTH comes next
        if (!pong.equals("+PONG") && !pong.startsWith("-NOAUTH") && !pong.startsWith("-NOPERM")
                && !pong.startsWith("-ERR operation not permitted")) {
            throw new IOException("the master answered PING with '" + pong + "'");
        }
        String password = state.masterAuth;
        if (password != null) {
            String user = state.masterUser;
            if (user == null) {
                send(out, "AUTH", password);
            } else {
                send(out, "AUTH", user, password);
            }
            String ok = in.line();
            if (!ok.equals("+OK")) {
                throw new IOException("the master refused AUTH (masteruser/masterauth): '" + ok + "'");
            }
        }
        int port = state.announcePort;
        send(out, "REPLCONF", "listening-port", Integer.toString(port == 0 ? ctx.respPort : port));
        in.line(); // an old master refuses it; it only names our port in its INFO
        String ip = state.announceIp;
        if (!ip.isEmpty()) {
            send(out, "REPLCONF", "ip-address", ip);
            in.line();
        }
        send(out, "REPLCONF", "capa", "eof", "capa", "psync2");
        in.line();
    }

    /**
     * Receives the snapshot into a file of the data directory (unlinked at once, so nothing is left
     * behind whatever happens; not the temporary directory, often memory, which a big snapshot
     * would fill), checks it whole (its CRC-64 included), then empties every database and the
     * function libraries and loads it: a snapshot cut short or damaged leaves the data as it was.
     */
    private void fullSync(MasterInput in, Client master) throws IOException, RdbFormatException {
        FileChannel ch;
        try {
            ch = SnapshotFile.create(ctx.config.dataDir());
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        try (ch) {
            // not closed: that would close the channel, which is the file's only name
            OutputStream o = new BufferedOutputStream(java.nio.channels.Channels.newOutputStream(ch), 1 << 16);
            in.snapshot(o);
            o.flush();
            state.lastIoMillis = ctx.now();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment rdb = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
                int[] streamDb = {0};
                RdbReader.read(rdb, RdbReader.Mode.CHECK, new RdbReader.Visitor() {
                    @Override
                    public void aux(String name, String value) {
                        // a replica's snapshot: its master's stream goes on in that database, with no SELECT first
                        if (name.equals("repl-stream-db") && value.matches("[0-9]{1,5}")) {
                            streamDb[0] = Integer.parseInt(value);
                        }
                    }

                    @Override
                    public void string(int db, byte[] key, byte[] value, long expireAtMillis, long offset) {}

                    @Override
                    public void other(int db, byte[] key, String type, long expireAtMillis, long offset) {}
                });
                master.db = 0;
                SyncLoad load = new SyncLoad(ctx);
                state.loading = true;
                try {
                    apply(master, List.of("FLUSHALL"));
                    apply(master, List.of("FUNCTION", "FLUSH"));
                    RdbReader.read(rdb, RdbReader.Mode.LOAD, load);
                } finally {
                    state.loading = false;
                }
                master.db = streamDb[0];
                state.streamDb = streamDb[0];
                System.err.println("colossal: full sync from " + host + ":" + port + ": " + load.keys + " keys loaded"
                        + (load.skipped == 0 ? "" : ", " + load.skipped + " of other types passed over"));
            }
        }
    }

    /**
     * Applies the master's commands until the link drops or is stopped, and relays each to this
     * server's own replicas once it counts in the offset, so their stream is the master's byte for
     * byte. Each holds the replication order while it applies: a replica's snapshot falls between two.
     */
    private void follow(MasterInput in, OutputStream out, Client master) throws IOException {
        Replicas relay = ctx.replicas;
        java.io.ByteArrayOutputStream relayed = new java.io.ByteArrayOutputStream();
        while (!stopped) {
            long before = in.consumed();
            byte[][] args = in.command();
            state.lastIoMillis = ctx.now();
            long size = in.consumed() - before;
            if (args.length == 0) {
                continue; // a keep-alive newline: not part of the stream the offset counts
            }
            try {
                ctx.pause.awaitUnheld(false); // DEBUG SLEEP: Redis's one thread applies nothing either
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            relay.lockOrder();
            try {
                if (args.length == 3 && Args.is(args[0], "REPLCONF") && Args.is(args[1], "GETACK")) {
                    ack(out); // the offset before this command, as Redis's replicas answer
                } else if (!Args.is(args[0], "PING")) {
                    ScopedValue.where(ReplicaState.OBEYED, Boolean.TRUE).run(() -> table.execute(master, args));
                    master.reply.len = 0;
                    table.publish(master);
                }
                pending += size;
                byte[] encoded = Replicas.encode(args);
                if (master.queued == null) {
                    state.offset += pending;
                    state.streamDb = master.db;
                    if (relayed.size() == 0) {
                        relay.relay(encoded, pending, state.offset); // one command, not a transaction's end
                    } else {
                        relayed.writeBytes(encoded);
                        relay.relay(relayed.toByteArray(), pending, state.offset);
                        relayed.reset();
                    }
                    pending = 0;
                } else {
                    relayed.writeBytes(encoded);
                }
            } finally {
                relay.unlockOrder();
            }
        }
    }

    /** Runs a command of the link's own as the master's client, its reply dropped. */
    private void apply(Client master, List<String> command) {
        table.execute(master, command.stream().map(Args::bytes).toArray(byte[][]::new));
        master.reply.len = 0;
    }

    private void acks(OutputStream out) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(ACK_MILLIS);
                ack(out);
            }
        } catch (InterruptedException | IOException e) {
            // the session ended; its socket is closed, or about to be
        }
    }

    private void ack(OutputStream out) throws IOException {
        send(out, "REPLCONF", "ACK", Long.toString(state.offset));
    }

    /** Writes one command whole: the ack thread and the link's thread share the socket. */
    private static void send(OutputStream out, String... args) throws IOException {
        StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            out.write(bytes);
            out.flush();
        }
    }
}
