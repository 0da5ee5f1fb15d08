package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;

/**
 * REPLICAOF (and its old name SLAVEOF): {@code host port} makes this server a replica of that
 * master, following it through a {@link MasterLink}; {@code NO ONE} stops the link, keeps the data
 * and makes this server a writable master again. While a replica, clients' writes get Redis's
 * READONLY error (replica-read-only yes, Redis's default).
 */
final class ReplicaCommands {

    /** Redis's refusal of a client's write on a read-only replica, word for word. */
    static final String READONLY = "READONLY You can't write against a read only replica.";
    /** Redis's refusal of a command while it loads a snapshot. */
    static final String LOADING = "LOADING Redis is loading the dataset in memory";

    private final ServerContext ctx;
    private final CommandTable table;

    ReplicaCommands(ServerContext ctx, CommandTable table) {
        this.ctx = ctx;
        this.table = table;
    }

    void register(CommandTable t) {
        List<String> flags = List.of("admin", "noscript", "stale", "no_async_loading");
        t.add("replicaof", 3, flags, 0, 0, 0, this::replicaOf);
        t.add("slaveof", 3, flags, 0, 0, 0, this::replicaOf);
    }

    /**
     * @return whether {@code c} may not run {@code spec} on a replica: a write from anyone but the
     *     master (or a script the master's client runs), or a script or function that declares it
     *     may write, as Redis reads its flags
     */
    static boolean readOnlyRefused(Client c, CommandSpec spec, byte[][] args, CommandTable table) {
        Client who = c.scriptCaller != null ? c.scriptCaller : c;
        return !who.fromMaster && (spec.writes() || table.scripts().declaresWrites(spec.name(), args));
    }

    /** @return whether {@code name} (a command, or {@code container|subcommand}) is one Redis runs while it loads */
    static boolean runsWhileLoading(String name) {
        CommandFacts.Entry e = CommandFacts.REDIS.get(name);
        return e == null || e.has("loading");
    }

    private void replicaOf(Client c, byte[][] a, Reply r) {
        if (Args.is(a[1], "NO") && Args.is(a[2], "ONE")) {
            if (ctx.replica.replace(null) != null) {
                ctx.replicas.promote(c); // its replicas go on, in a stream of its own that goes on from the master's
                System.err.println("colossal: REPLICAOF NO ONE: a master now, with the data as it was");
                ctx.sweeper.wake(); // keys past their deadline go now: the master that would delete them is gone
            }
            r.ok();
            return;
        }
        OptionalLong port = Args.toLong(a[2]);
        if (port.isEmpty() || port.getAsLong() < 0 || port.getAsLong() > 65535) {
            r.error("ERR Invalid master port");
            return;
        }
        String host = Errors.text(a[1]);
        if (follows(host, (int) port.getAsLong())) {
            r.simple("OK Already connected to specified master");
            return;
        }
        follow(host, (int) port.getAsLong());
        r.ok();
    }

    private boolean follows(String host, int port) {
        MasterLink l = ctx.replica.link();
        return l != null && l.host.equalsIgnoreCase(host) && l.port == port;
    }

    /** Follows {@code host:port} from now on, with a full sync. */
    void follow(String host, int port) {
        System.err.println("colossal: REPLICAOF " + host + " " + port + ": following that master");
        follow(ctx, table, host, port, null, true);
    }

    /**
     * Follows {@code host:port}: the link of another master, if any, stops first, and the replicas
     * of this server are dropped, to resync in the master's stream, which this server relays to them.
     *
     * @param from  where the data stands in the master's stream, to resume from; null for a full sync
     * @param start whether the link starts now, else its owner starts it
     */
    static void follow(ServerContext ctx, CommandTable table, String host, int port, ReplicationCheckpoint from,
                       boolean start) {
        ctx.replica.replace(new MasterLink(ctx, table, host, port), from, start);
        ctx.replicas.follow(from);
    }
}
