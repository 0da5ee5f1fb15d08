package dev.colossal.server;

import dev.colossal.rdb.RdbFile;
import java.util.List;

/**
 * SYNC, PSYNC and REPLCONF: the snapshot is one RDB file ({@link RdbFile}) of every database and
 * the function libraries, which redis-server loads and {@code colossal import-rdb} reads. PSYNC, which
 * replicas send, starts a replica on that snapshot (or on what it missed, from the backlog) and the
 * stream of writes after it ({@link Replicas}); SYNC does the same without the {@code +FULLRESYNC}
 * line, but after {@code REPLCONF rdb-only 1} ({@code redis-cli --rdb FILE}) sends the snapshot only
 * (after {@code REPLCONF rdb-filter-only functions}, {@code redis-cli --functions-rdb FILE}, of the
 * function libraries alone).
 *
 * <p>A snapshot is of one moment, built while clients go on writing ({@link SnapshotBuild}): a
 * replica's of the moment its stream starts from, sent with the stream after it; {@code redis-cli
 * --rdb}'s while its connection waits. Either is built off the event loops and in the heap: if what the
 * keys take in the maps (elements too), or the file as it grows, passes a quarter of it, SYNC
 * refuses, pointing at {@code colossal copy}.
 */
final class SyncCommands {

    private final ServerContext ctx;

    SyncCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("sync", 1, List.of("admin", "noscript"), 0, 0, 0, this::sync);
        t.add("psync", -3, List.of("admin", "noscript"), 0, 0, 0, this::psync);
        t.add("replconf", -1, List.of("admin", "noscript"), 0, 0, 0, this::replconf);
    }

    /**
     * REPLCONF: a replica's handshake options (listening-port and ip-address are kept for INFO and ROLE), and its
     * ACK offset, which gets no reply, as in Redis; GETACK, which only a replica answers, none either.
     */
    private void replconf(Client c, byte[][] a, Reply r) {
        if (a.length % 2 == 0) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (a.length == 1) {
            r.ok();
            return;
        }
        if (Args.is(a[1], "ACK")) {
            java.util.OptionalLong offset = Args.toLong(a[2]);
            if (c.replica && offset.isPresent()) {
                ctx.replicas.ack(c, offset.getAsLong());
            }
            return;
        }
        if (Args.is(a[1], "GETACK")) {
            return;
        }
        for (int i = 1; i < a.length; i += 2) {
            if (Args.is(a[i], "LISTENING-PORT")) {
                java.util.OptionalLong port = Args.toLong(a[i + 1]);
                if (port.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                c.listeningPort = (int) port.getAsLong();
            } else if (Args.is(a[i], "RDB-ONLY")) {
                c.rdbOnly = Args.is(a[i + 1], "1");
            } else if (Args.is(a[i], "RDB-FILTER-ONLY")) {
                String refused = filter(c, Errors.text(a[i + 1]));
                if (refused != null) {
                    r.error(refused);
                    return;
                }
            } else if (Args.is(a[i], "IP-ADDRESS")) {
                c.announcedIp = Errors.text(a[i + 1]);
            } else if (!Args.is(a[i], "CAPA")) {
                r.error("ERR Unrecognized REPLCONF option: " + Errors.text(a[i]));
                return;
            }
        }
        r.ok();
    }

    /**
     * REPLCONF rdb-filter-only: the words of {@code filters} (none: the whole snapshot again) say
     * what the snapshot keeps; {@code functions}, the only one there is, keeps the libraries alone.
     *
     * @return the error for a word that is no filter, else null
     */
    private static String filter(Client c, String filters) {
        boolean functionsOnly = false;
        for (String word : filters.trim().split(" +")) {
            if (word.equalsIgnoreCase("functions")) {
                functionsOnly = true;
            } else if (!word.isEmpty()) {
                return "ERR Unsupported rdb-filter-only option: " + word;
            }
        }
        c.rdbFunctionsOnly = functionsOnly;
        return null;
    }

    /**
     * PSYNC replid offset: {@code +CONTINUE} and what the replica missed if the backlog holds it,
     * else {@code +FULLRESYNC}, the snapshot, and the stream from there on. On a replica, the
     * stream is its master's, relayed; while its link is down, Redis's NOMASTERLINK.
     */
    private void psync(Client c, byte[][] a, Reply r) {
        if (!mayStartReplica(c, r)) {
            return;
        }
        java.util.OptionalLong from = Args.toLong(a[2]);
        if (from.isPresent() && ctx.replicas.resume(c, r, Errors.text(a[1]), from.getAsLong(), c.listeningPort)) {
            ctx.stats.syncPartialOk.increment();
            return;
        }
        if (!Args.is(a[1], "?")) {
            ctx.stats.syncPartialErr.increment(); // it asked to go on from an offset
        }
        // called holding the replication order: the link is between two commands of its master's
        if (ctx.replicas.fullSync(c, r, () -> startSnapshot(r, ctx.replica.following(), false), c.listeningPort, true)) {
            ctx.stats.syncFull.increment();
        }
    }

    /**
     * @return whether {@code c} may become a replica now; if not, the reason (or, for a replica's
     *     second SYNC or PSYNC, which Redis ignores, nothing) is written to {@code r}
     */
    private boolean mayStartReplica(Client c, Reply r) {
        if (c.inExec || c.scriptCaller != null) {
            r.error("ERR Replica can't be started from a transaction or a script");
            return false;
        }
        if (c.replica) {
            return false;
        }
        if (ctx.replica.following() && ctx.replica.phase != ReplicaState.Phase.CONNECTED) {
            // its data is not yet (or no longer) where the master's stream says
            r.error("NOMASTERLINK Can't SYNC while not connected with my master");
            return false;
        }
        return true;
    }

    /**
     * SYNC, the replication protocol before PSYNC: the snapshot, then the stream of writes, as
     * {@code redis-cli --replica} and replication tools read it. After {@code REPLCONF rdb-only 1}
     * ({@code redis-cli --rdb}) the snapshot alone, and the connection stays an ordinary one.
     */
    private void sync(Client c, byte[][] a, Reply r) {
        if (c.rdbOnly) {
            SnapshotBuild build = startSnapshot(r, false, c.rdbFunctionsOnly);
            if (build == null) {
                return;
            }
            // The connection waits, reading nothing more, while the snapshot is built off the loops
            KeyWaits.Waiter w = new KeyWaits.Waiter(c, c.db, new byte[0][], key -> null, null);
            ctx.waits.block(w, 0);
            c.snapshot = build;
            // made now, on the loop: a close from here on discards it, so a file offered after the
            // close is let go, where a mailbox first made by the offer would hold it for ever
            Mailbox mailbox = PubSubCommands.subscriber(c).mailbox;
            ctx.replicas.buildAside(build, c, (rdb, failure) -> {
                c.snapshot = null;
                if (rdb == null) {
                    ctx.waits.finish(w, Errors.bytes("-" + (failure != null ? failure
                            : "ERR the snapshot was given up: SWAPDB, DEBUG RELOAD or POPULATE ran while it was built; try again") + "\r\n"));
                    return;
                }
                // Redis's payload: the length and the file, no CRLF after it (which would precede
                // the next reply). The file goes from disk once the connection runs again.
                if (mailbox.offerSnapshot(rdb) && ctx.waits.finish(w, new byte[0])) {
                    ctx.stats.syncFull.increment(); // Redis counts SYNC's snapshots as full syncs too
                }
            });
            return;
        }
        if (mayStartReplica(c, r)
                && ctx.replicas.fullSync(c, r, () -> startSnapshot(r, ctx.replica.following(), false), c.listeningPort, false)) {
            ctx.stats.syncFull.increment();
        }
    }

    /**
     * @return a snapshot of now, holding the replication order, or null after writing to {@code r}
     *     why not (no file could be made in the data directory)
     */
    private SnapshotBuild startSnapshot(Reply r, boolean relayed, boolean functionsOnly) {
        try {
            return new SnapshotBuild(ctx, relayed, functionsOnly);
        } catch (java.io.UncheckedIOException e) {
            r.error("ERR " + e.getMessage());
            return null;
        }
    }
}
