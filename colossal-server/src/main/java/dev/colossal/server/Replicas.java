package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This server as a replication master: the stream of writes it sends its replicas (Redis's
 * protocol: RESP arrays, a SELECT when the database changes, MULTI/EXEC around a transaction's or
 * a script's effects), the backlog a reconnecting replica resumes from, and the replicas, which
 * INFO replication, ROLE and WAIT ask about.
 *
 * <p>Commands run on several event loops at once, and a stream must give every replica the writes
 * in the order they were applied. Until the first replica comes nothing is ordered and nothing is
 * sent (a write pays two volatile accesses). From then on every command that may write runs
 * holding {@link #order}, and puts what it did in the stream before it lets go: writes are then
 * serialized, as in Redis. A key removed for its TTL or evicted goes in as DEL, under the key's
 * lock, so no later write to the key goes before it.
 *
 * <p>While this server follows a master it writes no stream of its own: its replicas are sent the
 * master's, as the link ({@link MasterLink}) applies it, byte for byte, under the master's id and
 * offsets; the link holds {@link #order} around each command, so a replica's snapshot falls between
 * two. A full sync from above gives that stream up and drops the replicas; a change of the master's
 * id, or REPLICAOF NO ONE, moves it to the second id, so they go on.
 *
 * <p>The first replica turns ordering on while writes may be running unordered on other loops: it
 * waits for those ({@link Client#unordered}) before it takes its snapshot, so each write is either
 * in the snapshot or in the stream after it, never in both or neither.
 */
final class Replicas {

    static final int DEFAULT_BACKLOG_BYTES = 1 << 20;
    private static final String NO_ID = "0".repeat(40);
    /** What {@link #enter} did: nothing to undo. */
    static final int NOTHING = 0;
    /** {@link #enter} took {@link #order}. */
    static final int ORDERED = 1;
    /** {@link #enter} marked the client as writing unordered. */
    static final int UNORDERED = 2;

    /** One replica: a connection that sent PSYNC and is sent the stream since. */
    static final class Replica {
        final Client client;
        final Mailbox mailbox;
        final String ip;
        final int port;
        /** Waiting for the snapshot being built: the stream is held for it meanwhile. Guarded by {@link Replicas}. */
        volatile boolean loading;
        /** The offset the replica said it has (REPLCONF ACK), and when it said so (epoch ms). */
        volatile long ack;
        volatile long ackMillis;

        Replica(Client client, Mailbox mailbox, String ip, int port, long now) {
            this.client = client;
            this.mailbox = mailbox;
            this.ip = ip;
            this.port = port;
            this.ackMillis = now;
        }
    }

    /** A client waiting in WAIT for replicas to have its writes. */
    private record Waiting(KeyWaits.Waiter waiter, long offset, int replicas) {}

    /**
     * Redis's replication ID: 40 random hex digits, new at every start; while this server follows a
     * master, that master's (the stream is the master's, relayed). Changed only holding {@link #order}.
     */
    private volatile String replid;
    /**
     * This server follows a master: the stream is the master's, each command as it came, relayed by
     * the link ({@link #relay}); the writes it applies put nothing of their own in the stream.
     */
    private volatile boolean relaying;
    /** The relayed stream has a start: the backlog numbers its bytes as the master does. */
    private boolean relayStarted;
    /**
     * The stream this one goes on from (Redis's {@code master_replid2}): the id the last clean stop
     * left, whose replicas may resume up to {@link #secondOffset}; 40 zeros if none.
     */
    private String replid2 = NO_ID;
    /** The first byte of this stream that {@link #replid2}'s did not have; -1 if none. */
    private long secondOffset = -1;
    private final ServerContext ctx;
    private final ReentrantLock order = new ReentrantLock();
    private volatile boolean active;
    /** Keyspace changes made by the thread holding {@link #order}: a write that made none is not sent. */
    private long changes;
    /** What the command holding {@link #order} did so far, sent when it lets go. */
    private final List<byte[][]> pending = new ArrayList<>();
    private final List<Integer> pendingDbs = new ArrayList<>();
    /**
     * The unit each pending op belongs to: the command's ops are one, and each blocked client it
     * served is one of its own after them ({@link #served}), as Redis 7.0 propagates a served
     * client's command after the one that served it, not in one MULTI with it.
     */
    private final List<Integer> pendingUnits = new ArrayList<>();
    /** The unit ops added now belong to ({@link #pendingUnits}). */
    private int unit;
    /** Guarded by this: the stream's last bytes, and the database its last command ran in. */
    private final ReplicationBacklog backlog = new ReplicationBacklog(DEFAULT_BACKLOG_BYTES);
    private int streamDb = -1;
    private final CopyOnWriteArrayList<Replica> replicas = new CopyOnWriteArrayList<>();

    /** {@code client-output-buffer-limit replica}: bytes (0: none) and seconds; Redis's defaults until CONFIG SET. */
    record Limit(long hard, long soft, long softSeconds) {}

    /** Applies to replicas that attach from now on, and to the writes held for a snapshot being built. */
    volatile Limit replicaLimit = new Limit(OutputLimit.REPLICA_HARD, OutputLimit.REPLICA_SOFT, OutputLimit.SOFT_SECONDS);
    /** The snapshot being built for replicas {@linkplain Replica#loading waiting} for it; null if none. Started holding this and {@link #order}, ended holding this. */
    private volatile SnapshotBuild building;
    /** Every snapshot being built, {@link #building} and {@code redis-cli --rdb}'s ({@link #buildAside}): writes keep keys for each. */
    private final CopyOnWriteArrayList<SnapshotBuild> builds = new CopyOnWriteArrayList<>();
    /**
     * Set while a snapshot of unordered writes starts ({@link #buildAside}): a write that has not
     * begun waits, so that every write either ends before the snapshot's moment (and is in it) or
     * begins after it, keeping its keys from its first command on.
     */
    private volatile boolean gate;
    /** Guarded by this: where {@link #building}'s snapshot stands in the stream. */
    private long buildOffset;
    /** Guarded by this: the stream since {@link #buildOffset}, for the replicas waiting for the snapshot. */
    private final java.io.ByteArrayOutputStream held = new java.io.ByteArrayOutputStream();
    private final CopyOnWriteArrayList<Waiting> waiting = new CopyOnWriteArrayList<>();
    /**
     * Redis's testing setting {@code rdb-key-save-delay}: microseconds a snapshot for a replica waits
     * after each key, so that tests can write while one is being built. 0: none.
     */
    volatile long keySaveDelayMicros;
    /** repl-ping-replica-period, in seconds. */
    volatile long pingSeconds = 10;
    private boolean pinging;

    Replicas(ServerContext ctx) {
        this.ctx = ctx;
        this.replid = ServerContext.randomId();
    }

    /**
     * Before a command: while replicas are on, one that may write takes {@link #order} (again, in a
     * transaction or script); before, the client is marked as writing unordered.
     *
     * @return what to hand {@link #exit}
     */
    int enter(Client c, CommandTable table, CommandSpec spec, byte[][] args) {
        if (c.unordered) {
            return NOTHING; // the transaction or script around this runs unordered
        }
        if (!active) {
            c.unordered = true;
            // a snapshot is starting: its moment comes once the writes under way end (a script's
            // own commands are part of one under way: its caller is unordered, and waited for)
            while (gate && (c.scriptCaller == null || !c.scriptCaller.unordered)) {
                c.unordered = false;
                while (gate) {
                    // not a spin: the start may wait for a long script, or a debugging session
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                }
                c.unordered = true;
            }
            if (!active) {
                return UNORDERED;
            }
            c.unordered = false;
        }
        if (order.isHeldByCurrentThread() || ClientPause.writes(table, spec, args) || spec.name().equals("exec")) {
            order.lock();
            return ORDERED;
        }
        return NOTHING;
    }

    /** @return the count of changes so far, to tell afterwards whether a command made any */
    long changes() {
        return changes;
    }

    /** A key changed: counted if the change is the ordered command's. */
    void changed() {
        if (active && order.isHeldByCurrentThread()) {
            changes++;
        }
    }

    /** @return whether writes are put in a stream: a replica came since start */
    boolean active() {
        return active;
    }

    /** @return the id of the stream replicas are sent */
    String replid() {
        return replid;
    }

    /**
     * This server starts to follow a master: from now on the stream is the master's, relayed, and
     * the replicas it had are dropped (they reconnect and resync, as Redis makes them).
     *
     * @param from where the data stands in the master's stream (a clean stop's checkpoint), so that
     *             replicas of this server may resume in it; null if nowhere yet (a full sync comes)
     */
    void follow(ReplicationCheckpoint from) {
        order.lock();
        try {
            synchronized (this) {
                relaying = true;
                if (from != null) {
                    startRelay(from.replid(), from.offset());
                }
            }
        } finally {
            order.unlock();
        }
        dropAll();
    }

    /**
     * The link made a full sync: the stream is now the master's {@code id} from {@code offset} on,
     * what was kept of the one before is of no use, and the replicas, whose data the sync replaced
     * under this server, are dropped to sync again.
     */
    void restartRelay(String id, long offset) {
        order.lock();
        try {
            synchronized (this) {
                startRelay(id, offset);
            }
        } finally {
            order.unlock();
        }
        dropAll();
    }

    /**
     * The link starts a full sync: the data is about to be emptied and loaded, so the stream it was
     * at is given up (a new id no one has, nothing to resume from), and the replicas are dropped.
     * Even if the sync fails halfway, or REPLICAOF NO ONE comes before it ends, no replica resumes
     * into half a snapshot.
     */
    void forgetRelay() {
        order.lock();
        try {
            synchronized (this) {
                takeNewId();
                backlog.startAt(backlog.offset());
                relayStarted = false;
            }
        } finally {
            order.unlock();
        }
        dropAll();
    }

    /**
     * DEBUG CHANGE-REPL-ID: the stream goes on under a new id, with no second one (Redis's
     * {@code master_replid2} all zeros), as if this server had never been another's replica.
     * Replicas stay connected; one that reconnects must sync in full.
     */
    void changeId() {
        order.lock();
        try {
            synchronized (this) {
                takeNewId();
            }
        } finally {
            order.unlock();
        }
    }

    /** A new id no one has, and no second one to resume from; holding this and {@link #order}. */
    private void takeNewId() {
        replid = ServerContext.randomId();
        replid2 = NO_ID;
        secondOffset = -1;
    }

    /** Holding this and {@link #order}. */
    private void startRelay(String id, long offset) {
        replid = id;
        replid2 = NO_ID;
        secondOffset = -1;
        backlog.startAt(offset);
        relayStarted = true;
    }

    /**
     * The master's stream goes on under a new id (it was promoted: psync2's {@code +CONTINUE id}), or
     * this server becomes a master (REPLICAOF NO ONE: {@code id} is a new one of its own): the old id
     * becomes the second, so replicas that had the old stream up to here resume in the new one.
     * They are dropped, to learn the new id, as Redis drops them.
     */
    void shiftTo(String id, boolean stillRelaying) {
        order.lock();
        try {
            synchronized (this) {
                replid2 = replid;
                secondOffset = backlog.offset() + 1;
                replid = id;
                relaying = stillRelaying;
                streamDb = -1; // our own stream starts with a SELECT: the replica's database is the master's last
            }
        } finally {
            order.unlock();
        }
        dropAll();
    }

    /**
     * REPLICAOF NO ONE, run by {@code self}: the stream becomes this server's own, a new id going on
     * from the master's. If the backlog holds the master's stream, ordering is turned on at once, so
     * that every write from here on follows it there: the replicas that had the same master (which
     * Sentinel points at this server after promoting it) then resume with {@code +CONTINUE}, as
     * from a promoted Redis, instead of each loading a full snapshot of this one.
     */
    void promote(Client self) {
        if (!relaying) {
            return;
        }
        boolean streamKept;
        synchronized (this) {
            streamKept = relayStarted;
        }
        shiftTo(ServerContext.randomId(), false);
        if (streamKept) {
            activate(self);
        }
    }

    /** Closes every replica's connection; a snapshot being built for some is given up. */
    void dropAll() {
        synchronized (this) {
            cancelBuild();
        }
        for (Replica x : replicas) {
            kill(x);
        }
    }

    private static void kill(Replica x) {
        Runnable kill = x.client.killer;
        if (kill != null) {
            kill.run();
        }
    }

    /** Taken by the link around each command it applies, so a replica's snapshot falls between two. */
    void lockOrder() {
        order.lock();
    }

    void unlockOrder() {
        order.unlock();
    }

    /**
     * The link applied the master's commands whose bytes were {@code counted} long: they go on to
     * this server's replicas as they came ({@code bytes}, the commands encoded again). A master that
     * encoded them otherwise cannot be relayed byte for byte: the relayed stream starts again at
     * {@code offset}, the replicas resyncing. Holding {@link #order} ({@link #lockOrder}).
     */
    synchronized void relay(byte[] bytes, long counted, long offset) {
        if (!relaying || !relayStarted) {
            return;
        }
        if (bytes.length == counted) {
            send(bytes);
            return;
        }
        startRelay(replid, offset);
        dropAll();
    }

    /**
     * After a command that {@link #enter} ordered: what it did goes in the pending ops (rewritten
     * where Redis rewrites it), if it changed something or is one that is sent whenever it succeeds.
     */
    void record(Client c, CommandSpec spec, byte[][] args, Reply r, int replyStart, long changesBefore) {
        String name = spec.name();
        boolean always = Propagation.sentWhenDone(name, args);
        if (!always && !spec.writes()) {
            return; // a script or EXEC: the writes it ran went in one by one
        }
        boolean changed = changes != changesBefore;
        if (!changed && !always) {
            return;
        }
        byte[] reply = r.segment().asSlice(replyStart, r.len - replyStart).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        if (reply.length == 0 || !changed && reply[0] == '-') {
            return; // no reply: a blocking command served at once, which served() sent
        }
        add(c.db, rewritten(c.db, name, args, reply));
    }

    /**
     * @return what {@code name args} sends; as it came if its rewrite failed (a reply of a shape it
     *     did not expect), which is said on stderr: the command's client is not the one to tell
     */
    private List<byte[][]> rewritten(int db, String name, byte[][] args, byte[] reply) {
        try {
            return propagation(db).rewrite(name, args, reply);
        } catch (RuntimeException e) {
            System.err.println("colossal: replication sends " + name + " as it came, its rewrite failed: " + e);
            return java.util.Collections.singletonList(args);
        }
    }

    /** A blocked client took what it waited for: its command, rewritten as it ran, goes in the stream. */
    void served(Client c, int db, byte[] reply) {
        byte[][] args = c.args;
        if (!active || args == null || reply.length == 0 || reply[0] == '-') {
            return;
        }
        if (order.isHeldByCurrentThread()) { // else it was served before the first replica came
            unit++;
            add(db, rewritten(db, Args.lower(args[0]), args, reply));
            unit++;   // what follows (a key found expired, another client served) is not this client's
        }
    }

    /**
     * Takes {@link #order} for serving blocked clients from a thread that ran no command (a
     * timer), before any waiter's monitor, as a command's thread takes them.
     *
     * @return whether it took it: then {@link #release} after
     */
    boolean orderFromOutside() {
        if (!active || order.isHeldByCurrentThread()) {
            return false;
        }
        order.lock();
        return true;
    }

    /** Sends what is pending and lets {@link #order} go, after {@link #orderFromOutside}. */
    void release() {
        try {
            flush(null);
        } finally {
            order.unlock();
        }
    }

    /** The table commands run from: set by the table once it is built, for the rewrites' read-backs. */
    volatile CommandTable table;

    private Propagation propagation(int db) {
        return new Propagation(table, db, ctx.now());
    }

    private void add(int db, List<byte[][]> ops) {
        if (relaying) {
            return; // the master's own commands are relayed as they came
        }
        for (byte[][] op : ops) {
            pending.add(op);
            pendingDbs.add(db);
            pendingUnits.add(unit);
        }
    }

    /** A write from outside the command table (the HTTP API), holding {@link #order}: it goes in the stream as {@code op}. */
    void written(KeyValueStore store, byte[][] op) {
        int db = ctx.dbs.indexOf(store);
        if (db >= 0 && order.isHeldByCurrentThread() && !relaying) {
            pending.add(op);
            pendingDbs.add(db);
            pendingUnits.add(unit);
        }
    }

    /** After a command, undoes what {@link #enter} did; the outermost ordered one sends what is pending. */
    void exit(Client c, int entered) {
        if (entered == UNORDERED) {
            c.unordered = false;
        } else if (entered == ORDERED) {
            try {
                if (order.getHoldCount() == 1) {
                    flush(c);
                }
            } finally {
                order.unlock();
            }
        }
    }

    /**
     * Sends the pending ops, each unit ({@link #pendingUnits}) in MULTI/EXEC if it has more than one,
     * as Redis 7.0 sends them.
     */
    private void flush(Client c) {
        if (pending.isEmpty()) {
            return;
        }
        long end;
        synchronized (this) {
            for (int from = 0, to; from < pending.size(); from = to) {
                to = from + 1;
                while (to < pending.size() && pendingUnits.get(to).equals(pendingUnits.get(from))) {
                    to++;
                }
                boolean multi = to - from > 1;
                if (multi) {
                    selectFor(pendingDbs.get(from));
                    send(encode(new byte[][] {Args.bytes("MULTI")}));
                }
                for (int i = from; i < to; i++) {
                    selectFor(pendingDbs.get(i));
                    send(encode(pending.get(i)));
                }
                if (multi) {
                    send(encode(new byte[][] {Args.bytes("EXEC")}));
                }
            }
            end = backlog.offset();
        }
        pending.clear();
        pendingDbs.clear();
        pendingUnits.clear();
        unit = 0;
        if (c != null) {
            c.replOffset = end;
        }
    }

    /** A key went for its TTL or was evicted: DEL in the stream, as Redis sends it. Called under the key's lock. */
    void removed(KeyValueStore store, byte[] key) {
        if (!active || relaying) {
            return;
        }
        int db = ctx.dbs.indexOf(store);
        if (db < 0) {
            return;
        }
        byte[][] del = {Args.bytes("DEL"), key};
        if (order.isHeldByCurrentThread()) {
            // the command running found it expired: it goes before the command's own op, as in Redis
            pending.add(del);
            pendingDbs.add(db);
            pendingUnits.add(unit);
            return;
        }
        synchronized (this) {
            selectFor(db);
            send(encode(del));
        }
    }

    /** Sends a command of its own (PING, REPLCONF GETACK), outside any database. */
    private synchronized void sendOwn(String... words) {
        if (relaying) {
            return; // the master's PINGs and GETACKs are relayed: one of ours would shift every offset below
        }
        byte[][] a = new byte[words.length][];
        for (int i = 0; i < words.length; i++) {
            a[i] = Args.bytes(words[i]);
        }
        send(encode(a));
    }

    private void selectFor(int db) {
        if (db != streamDb) {
            send(encode(new byte[][] {Args.bytes("SELECT"), Args.bytes(Integer.toString(db))}));
            streamDb = db;
        }
    }

    /** Appends {@code resp} to the backlog and every replica's mailbox; holding this. */
    private void send(byte[] resp) {
        backlog.append(resp);
        if (replicas.isEmpty()) {
            return; // a replica with none of its own keeps its backlog only (for a resume after a promotion)
        }
        if (building != null) {
            held.writeBytes(resp);
            long hard = replicaLimit.hard();
            if (hard > 0 && held.size() > hard) {
                // as Redis drops a replica whose output passed client-output-buffer-limit while its snapshot was made
                System.err.println("colossal: replicas waiting for a snapshot are dropped: the writes held for them passed "
                        + hard + " bytes (client-output-buffer-limit replica; CONFIG SET raises it)");
                for (Replica x : replicas) {
                    if (x.loading) {
                        kill(x);
                    }
                }
                cancelBuild();
            }
        }
        Mailbox.Frame f = new Mailbox.Frame(0, resp, EMPTY);
        for (Replica x : replicas) {
            if (!x.loading) {
                x.mailbox.offer(f);
            }
        }
    }

    private static final byte[] EMPTY = {};

    /**
     * @return {@code args} as a RESP array of bulk strings, sized once and written in place: every
     *     command a master sends and a replica relays passes through here
     */
    static byte[] encode(byte[][] args) {
        int size = 1 + digits(args.length) + 2;
        for (byte[] a : args) {
            size += 1 + digits(a.length) + 2 + a.length + 2;
        }
        byte[] out = new byte[size];
        int at = header(out, 0, (byte) '*', args.length);
        for (byte[] a : args) {
            at = header(out, at, (byte) '$', a.length);
            System.arraycopy(a, 0, out, at, a.length);
            at += a.length;
            out[at++] = '\r';
            out[at++] = '\n';
        }
        return out;
    }

    /** Writes {@code mark}, {@code n} in decimal and CRLF at {@code at}; @return where the next byte goes */
    private static int header(byte[] out, int at, byte mark, int n) {
        out[at] = mark;
        int end = at + 1 + digits(n);
        for (int i = end - 1, v = n; i > at; i--, v /= 10) {
            out[i] = (byte) ('0' + v % 10);
        }
        out[end] = '\r';
        out[end + 1] = '\n';
        return end + 2;
    }

    /** @return the decimal digits of {@code n >= 0} */
    private static int digits(int n) {
        if (n < 10) {
            return 1; // most argument counts and many lengths
        }
        int d = 2;
        for (int v = n / 100; v > 0; v /= 10) {
            d++;
        }
        return d;
    }

    /**
     * Turns ordering on, if it is not yet, and waits for the writes that ran unordered to end.
     * Called by PSYNC's client, which is itself marked unordered.
     */
    void activate(Client self) {
        synchronized (order) {
            if (active) {
                return;
            }
            active = true;
            for (Client x : ctx.clients.values()) {
                while (x != self && x.unordered) {
                    Thread.yield();
                }
            }
        }
    }

    /**
     * A full resynchronization: the replica is sent {@code +FULLRESYNC replid offset} now (unless
     * {@code announce} is false: SYNC's replica gets none), and, once it is built off the loops, a
     * snapshot of that moment as Redis's {@code $len} payload, then the stream from there on, which
     * is held for it meanwhile. A replica that comes while a snapshot is being built waits for the
     * same one, as Redis's share a BGSAVE.
     *
     * @param newBuild starts a snapshot of now, holding {@link #order}; null after writing why not to {@code r}
     * @return whether it did
     */
    boolean fullSync(Client c, Reply r, java.util.function.Supplier<SnapshotBuild> newBuild, int port, boolean announce) {
        activate(c);
        order.lock();
        try {
            SnapshotBuild started = null;
            long offset;
            synchronized (this) {
                if (building == null) {
                    started = newBuild.get();
                    if (started == null) {
                        return false;
                    }
                    building = started;
                    builds.add(started);
                    buildOffset = backlog.offset();
                    streamDb = -1; // the replica's stream starts with SELECT: it knows no database yet
                }
                offset = buildOffset;
                Replica x = attach(c, port);
                x.loading = true;
                x.ack = offset;
            }
            if (announce) {
                r.append(("+FULLRESYNC " + replid + " " + offset + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            if (started != null) {
                SnapshotBuild b = started;
                Thread.ofPlatform().name("colossal-snapshot").daemon().start(() -> build(b));
            }
            return true;
        } finally {
            order.unlock();
        }
    }

    /** On the snapshot's own thread: builds it and sends it to the replicas waiting for it, or drops them if it failed. */
    private void build(SnapshotBuild b) {
        SnapshotFile rdb = null;
        String failure = null;
        long[] lastWord = {System.nanoTime()};
        try {
            rdb = b.build(() -> {
                if (System.nanoTime() - lastWord[0] > TimeUnit.SECONDS.toNanos(1)) {
                    lastWord[0] = System.nanoTime();
                    keepWaitingAlive();
                }
            });
        } catch (RuntimeException e) { // a full disk, or a damaged file met on the way
            failure = e.getMessage() != null ? e.getMessage() : e.toString();
        }
        try {
            synchronized (this) {
                if (building != b) {
                    return; // cancelled: the replicas it was for are gone
                }
                building = null;
                builds.remove(b);
                byte[] stream = held.toByteArray();
                held.reset();
                for (Replica x : replicas) {
                    if (!x.loading) {
                        continue;
                    }
                    x.loading = false;
                    if (rdb == null) {
                        kill(x);
                        continue;
                    }
                    // Sent from disk as the socket takes it; the stream held meanwhile waits behind it,
                    // past the mailbox's bound: what a replica has not read is bounded by its output limit
                    rdb.retain();
                    if (x.mailbox.offerSnapshot(rdb)) {
                        x.mailbox.offer(new Mailbox.Frame(Mailbox.Frame.UNBOUNDED, stream, EMPTY));
                    }
                }
            }
        } finally {
            if (rdb != null) {
                rdb.release(); // the builder's hold: the replicas' keep the file until each has it all
            }
        }
        if (failure != null) {
            System.err.println("colossal: a full sync's snapshot failed, its replicas are dropped (they will try again): " + failure);
        }
    }

    /**
     * A newline to each replica waiting for its snapshot, as Redis sends them while a BGSAVE runs: a
     * replica that heard nothing for its repl-timeout (60 s) would give up, and replicas read past them.
     */
    private synchronized void keepWaitingAlive() {
        Mailbox.Frame newline = new Mailbox.Frame(Mailbox.Frame.UNBOUNDED, NEWLINE, EMPTY);
        for (Replica x : replicas) {
            if (x.loading) {
                x.mailbox.offer(newline);
            }
        }
    }

    private static final byte[] NEWLINE = {'\n'};

    /** Holding this: the snapshot being built is for no one any more. */
    private void cancelBuild() {
        if (building != null) {
            building.cancel();
            builds.remove(building);
            building = null;
            held.reset();
        }
    }

    /**
     * {@code redis-cli --rdb}'s snapshot, of one moment although writes are not ordered: built on a
     * thread of its own while writes go on, each keeping what it is about to change first. Writes
     * under way when it starts are waited for, as {@link #activate} waits for them, and writes not
     * yet begun wait meanwhile ({@link #gate}).
     *
     * @param done receives the file (and the builder's hold on it), or null and why not: an error
     *             reply's text (a full disk), or null if it was given up (SWAPDB ran meanwhile)
     */
    void buildAside(SnapshotBuild b, Client self, java.util.function.BiConsumer<SnapshotFile, String> done) {
        order.lock(); // no ordered write is under way once this is held
        try {
            // a transaction half done when the keeping began would be kept half done: the writes under
            // way end first, unkept, and those after begin once every key is kept
            gate = true;
            for (Client x : ctx.clients.values()) {
                while (x != self && x.unordered) {
                    Thread.yield();
                }
            }
            builds.add(b);
        } finally {
            gate = false;
            order.unlock();
        }
        Thread.ofPlatform().name("colossal-snapshot").daemon().start(() -> {
            SnapshotFile rdb = null;
            String failure = null;
            try {
                rdb = b.build(() -> { });
            } catch (RuntimeException e) { // a full disk, or a damaged file met on the way
                failure = "ERR " + (e.getMessage() != null ? e.getMessage() : e.toString());
            } finally {
                builds.remove(b);
            }
            done.accept(rdb, failure);
        });
    }

    /** @return whether a snapshot is being built, or starting: writes must go through {@link #enter} and {@link #beforeWrite} */
    boolean building() {
        return gate || !builds.isEmpty();
    }

    /**
     * Before a command runs, while a snapshot is being built: the keys it may change are kept as
     * they stand, for each snapshot that has not taken them yet.
     */
    void beforeWrite(Client c, CommandSpec spec, byte[][] args) {
        if (!builds.isEmpty() && ClientPause.writes(table, spec, args)) {
            for (SnapshotBuild b : builds) {
                keep(b, c.db, spec, args);
            }
        }
    }

    /** Before a blocked client is served (its command runs now, outside the table), as {@link #beforeWrite}. */
    void beforeServing(Client waiter, int db) {
        CommandTable t = table;
        if (!builds.isEmpty() && t != null && waiter.args != null) {
            CommandSpec spec = t.find(waiter.args[0]);
            if (spec != null) {
                for (SnapshotBuild b : builds) {
                    keep(b, db, spec, waiter.args);
                }
            }
        }
    }

    /** Before a write from outside the command table (the HTTP API) to {@code key}. */
    void beforeWrite(KeyValueStore store, byte[] key) {
        int db;
        if (!builds.isEmpty() && (db = ctx.dbs.indexOf(store)) >= 0) {
            for (SnapshotBuild b : builds) {
                b.beforeWrite(db, key);
            }
        }
    }

    private void keep(SnapshotBuild b, int db, CommandSpec spec, byte[][] args) {
        if (b.beforeCommand(db, spec, args)) {
            return;
        }
        synchronized (this) {
            if (building == b) {
                System.err.println("colossal: " + spec.name().toUpperCase(java.util.Locale.ROOT)
                        + " ran while a snapshot for replicas was built: they are dropped, and sync again");
                for (Replica x : replicas) {
                    if (x.loading) {
                        kill(x);
                    }
                }
                cancelBuild();
            } else {
                b.cancel(); // redis-cli --rdb's: it answers an error
            }
        }
    }

    /**
     * At start, before any client: the stream goes on from where the last clean stop left it
     * ({@code from}), as Redis 7.0's does after a restart from its RDB file. This stream gets a new
     * id and keeps the old one as its second, its offset goes on from the old one's, and ordering
     * is on from now, so every write after the restart is in the backlog: a replica that had the
     * whole old stream resumes with {@code +CONTINUE} and is sent them.
     */
    synchronized void resumeFrom(ReplicationCheckpoint from) {
        replid2 = from.replid();
        secondOffset = from.offset() + 1;
        backlog.startAt(from.offset());
        active = true;
    }

    /**
     * A partial resynchronization, if {@code id} is this stream's (or the one it went on from, up to
     * where it left it) and the backlog holds {@code from}:
     * writes {@code +CONTINUE replid} and the bytes from {@code from} on.
     *
     * @return whether it could
     */
    boolean resume(Client c, Reply r, String id, long from, int port) {
        if (!active && !relaying) {
            return false; // writes ran unordered, outside any backlog
        }
        synchronized (this) {
            if (relaying && !relayStarted) {
                return false;
            }
            boolean ours = id.equals(replid) || id.equals(replid2) && !replid2.equals(NO_ID) && from <= secondOffset;
            if (!ours || !backlog.holds(from)) {
                return false;
            }
            r.append(("+CONTINUE " + replid + "\r\n").getBytes(StandardCharsets.US_ASCII));
            r.append(backlog.since(from));
            attach(c, port);
        }
        return true;
    }

    /** Holding this: from now on {@code c} is sent the stream. */
    private Replica attach(Client c, int port) {
        Subscriber s = PubSubCommands.subscriber(c);
        Limit l = replicaLimit;
        s.limit = OutputLimit.replica(l.hard(), l.soft(), l.softSeconds()); // on the replica's own loop, which alone reads it
        Mailbox box = s.mailbox;
        box.bound(s.limit.hard());
        String addr = c.address;
        int colon = addr.lastIndexOf(':');
        String ip = c.announcedIp != null ? c.announcedIp : colon > 0 ? addr.substring(0, colon) : addr;
        Replica x = new Replica(c, box, ip, port, ctx.now());
        x.ack = backlog.offset();
        c.replica = true;
        replicas.add(x);
        if (!pinging) {
            pinging = true;
            schedulePing();
        }
        return x;
    }

    private void schedulePing() {
        CompletableFuture.delayedExecutor(pingSeconds, TimeUnit.SECONDS).execute(() -> {
            synchronized (this) {
                if (replicas.isEmpty()) {
                    pinging = false;
                    return;
                }
            }
            if (!order.tryLock()) {
                schedulePing(); // a write is under way: the replica hears from us anyway
                return;
            }
            try {
                sendOwn("PING");
            } finally {
                order.unlock();
            }
            schedulePing();
        });
    }

    /** The connection of {@code c} closed: it is no longer a replica, and a snapshot built for it alone is given up. */
    void closed(Client c) {
        SnapshotBuild aside = c.snapshot;
        if (aside != null) {
            aside.cancel(); // its thread stops at its next key, and builds forget it
        }
        if (c.replica) {
            synchronized (this) {
                replicas.removeIf(x -> x.client == c);
                if (building != null && replicas.stream().noneMatch(x -> x.loading)) {
                    cancelBuild();
                }
            }
        }
        if (!waiting.isEmpty()) {
            waiting.removeIf(w -> w.waiter.client == c);
        }
    }

    /** REPLCONF ACK offset from a replica. */
    void ack(Client c, long offset) {
        for (Replica x : replicas) {
            if (x.client == c) {
                x.ack = Math.max(x.ack, offset);
                x.ackMillis = ctx.now();
            }
        }
        for (Waiting w : waiting) {
            if (count(w.offset) >= w.replicas) {
                finishWait(w);
            }
        }
    }

    /** @return the replicas that said they have every byte up to {@code offset} */
    int count(long offset) {
        int n = 0;
        for (Replica x : replicas) {
            if (x.ack >= offset && !x.loading) { // one waiting for its snapshot has none of it yet
                n++;
            }
        }
        return n;
    }

    /** @return the replicas whose last ACK came at most {@code maxLagSeconds} ago, in whole seconds as Redis counts the lag */
    int good(int maxLagSeconds) {
        long at = ctx.now();
        int n = 0;
        for (Replica x : replicas) {
            if ((at - x.ackMillis) / 1000 <= maxLagSeconds && !x.loading) {
                n++;
            }
        }
        return n;
    }

    /**
     * WAIT numreplicas timeout: at once if enough replicas have the client's last write, else
     * blocks it until they do (asking them with REPLCONF GETACK) or the timeout passes.
     */
    void await(Client c, long want, long timeoutMillis, Reply r) {
        long offset = c.replOffset;
        int now = count(offset);
        if (now >= want || c.inExec || c.scriptCaller != null) {
            r.integer(now);
            return;
        }
        KeyWaits.Waiter w = new KeyWaits.Waiter(c, c.db, new byte[0][], key -> null, Errors.bytes(":0\r\n"));
        Waiting x = new Waiting(w, offset, (int) Math.min(want, Integer.MAX_VALUE));
        waiting.add(x);
        ctx.waits.block(w, 0);
        if (!replicas.isEmpty()) {
            order.lock();
            try {
                sendOwn("REPLCONF", "GETACK", "*");
            } finally {
                order.unlock();
            }
        }
        if (timeoutMillis > 0) {
            CompletableFuture.delayedExecutor(timeoutMillis, TimeUnit.MILLISECONDS).execute(() -> finishWait(x));
        }
    }

    private void finishWait(Waiting w) {
        if (waiting.remove(w)) {
            ctx.waits.finish(w.waiter, Errors.bytes(":" + count(w.offset) + "\r\n"));
        }
    }

    /**
     * Before a master stops: waits up to {@code timeoutMillis} for every replica to say it has the
     * whole stream, asking with REPLCONF GETACK every 100 ms, as Redis 7.0 waits
     * {@code shutdown-timeout} for lagging replicas, so that a replica promoted after a planned stop
     * has the last writes. The caller holds clients' writes back meanwhile.
     *
     * @param pause waits between two GETACKs; false if the stop was called off (SHUTDOWN ABORT)
     * @return the replicas still behind when it gave up (0: all caught up), or -1 if called off
     */
    int awaitCaughtUp(long timeoutMillis, Pause pause) throws InterruptedException {
        if (relaying || replicas.isEmpty()) {
            return 0;
        }
        long target = offset(); // acks count what came before each GETACK, so ours do not move it
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            int behind = online() - count(target);
            if (behind <= 0 || System.nanoTime() - deadline >= 0) {
                return Math.max(0, behind);
            }
            order.lock();
            try {
                sendOwn("REPLCONF", "GETACK", "*");
            } finally {
                order.unlock();
            }
            if (!pause.sleep(Math.min(100, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))))) {
                return -1;
            }
        }
    }

    /** A pause within {@link #awaitCaughtUp}, which may end it. */
    @FunctionalInterface
    interface Pause {
        /** @return false if the wait is called off */
        boolean sleep(long millis) throws InterruptedException;
    }

    /**
     * @return the replicas past their full sync: the ones a stop waits for (one still waiting for
     *     its snapshot would have to start again anyway, as Redis waits for online replicas only)
     */
    int online() {
        int n = 0;
        for (Replica x : replicas) {
            if (!x.loading) {
                n++;
            }
        }
        return n;
    }

    /** @return the replicas now */
    List<Replica> list() {
        return List.copyOf(replicas);
    }

    synchronized long offset() {
        return backlog.offset();
    }

    /** CONFIG SET repl-backlog-size. */
    synchronized void backlogSize(int bytes) {
        backlog.resize(Math.max(bytes, 16 * 1024)); // Redis's floor, 16kb
    }

    synchronized int backlogSize() {
        return backlog.capacity();
    }

    /** INFO replication, as a master writes it. */
    String info() {
        return "# Replication\r\nrole:master\r\n" + connectedLines() + tail();
    }

    /** INFO replication's lines after the replicas', of the stream: a master's own, or the master's a replica relays. */
    String tail() {
        boolean backlogOn = active || relaying && relayStarted;
        StringBuilder sb = new StringBuilder();
        synchronized (this) {
            sb.append("master_failover_state:no-failover\r\nmaster_replid:").append(replid)
                    .append("\r\nmaster_replid2:").append(replid2).append("\r\nmaster_repl_offset:")
                    .append(backlog.offset()).append("\r\nsecond_repl_offset:").append(secondOffset)
                    .append("\r\nrepl_backlog_active:")
                    .append(backlogOn ? 1 : 0).append("\r\nrepl_backlog_size:").append(backlog.capacity())
                    .append("\r\nrepl_backlog_first_byte_offset:").append(backlogOn ? backlog.firstByte() : 0)
                    .append("\r\nrepl_backlog_histlen:").append(backlog.kept()).append("\r\n");
        }
        return sb.toString();
    }

    /** INFO replication's {@code connected_slaves} and a {@code slaveN} line for each replica. */
    String connectedLines() {
        List<Replica> now = list();
        StringBuilder sb = new StringBuilder("connected_slaves:").append(now.size()).append("\r\n");
        long at = ctx.now();
        for (int i = 0; i < now.size(); i++) {
            Replica x = now.get(i);
            sb.append("slave").append(i).append(":ip=").append(x.ip).append(",port=").append(x.port)
                    .append(",state=").append(x.loading ? "wait_bgsave" : "online").append(",offset=").append(x.ack).append(",lag=")
                    .append(Math.max(0, (at - x.ackMillis) / 1000)).append("\r\n");
        }
        return sb.toString();
    }

    /** ROLE: {@code master offset [[ip port offset] ...]}. */
    void role(Reply r) {
        List<Replica> now = list();
        r.array(3);
        r.bulk("master");
        r.integer(offset());
        r.array(now.size());
        for (Replica x : now) {
            r.array(3);
            r.bulk(x.ip);
            r.bulk(Integer.toString(x.port));
            r.bulk(Long.toString(x.ack));
        }
    }
}
