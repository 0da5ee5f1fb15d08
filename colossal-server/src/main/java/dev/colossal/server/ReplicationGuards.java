package dev.colossal.server;

import java.util.List;

/**
 * The two refusals a server's replication settings add to every command: a master with
 * {@code min-replicas-to-write} set refuses writes while fewer replicas than that have answered
 * within {@code min-replicas-max-lag} seconds (NOREPLICAS: a write then may be lost with the
 * master), and a replica with {@code replica-serve-stale-data no} refuses all but the commands Redis
 * flags {@code stale} (COMMAND INFO's flags, {@link CommandFacts}) while its link to the master is down (MASTERDOWN: its data may be old).
 * EXEC is judged by the commands it queued, as Redis judges it: a transaction with a write is a
 * write, one with a command not flagged {@code stale} is refused on a stale replica.
 */
final class ReplicationGuards {

    static final String NOREPLICAS = "NOREPLICAS Not enough good replicas to write.";
    static final String MASTERDOWN = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";

    /** min-replicas-to-write: 0 takes writes with no replica at all (Redis's default). */
    volatile int minReplicas;
    /** min-replicas-max-lag: seconds since a replica's last ACK within which it is a good one; 0 turns the check off. */
    volatile int maxLagSeconds = 10;
    /** replica-serve-stale-data: whether a replica whose link is down answers from the data it has. */
    volatile boolean serveStale = true;

    /** @return whether neither setting can refuse anything now (the defaults) */
    boolean idle() {
        return minReplicas == 0 && serveStale;
    }

    /**
     * @param queued EXEC's commands, or null for any other command
     * @return NOREPLICAS if {@code spec} writes on a master short of good replicas, else null
     */
    String noReplicas(ServerContext ctx, CommandSpec spec, byte[][] args, List<byte[][]> queued, CommandTable table) {
        return minReplicas > 0 && maxLagSeconds > 0 && !ctx.replica.following() && writes(spec, args, queued, table)
                && ctx.replicas.good(maxLagSeconds) < minReplicas ? NOREPLICAS : null;
    }

    /**
     * @param queued EXEC's commands, or null for any other command
     * @return MASTERDOWN if this is a replica serving no stale data, its link is down and {@code spec}
     *     is not flagged to run then, else null
     */
    String masterDown(ServerContext ctx, CommandSpec spec, byte[][] args, List<byte[][]> queued, CommandTable table) {
        return !serveStale && ctx.replica.following() && ctx.replica.phase != ReplicaState.Phase.CONNECTED
                && !servesStale(spec, args, queued, table) ? MASTERDOWN : null;
    }

    private static boolean writes(CommandSpec spec, byte[][] args, List<byte[][]> queued, CommandTable table) {
        if (queued == null) {
            return spec.writes() || table.scripts().declaresWrites(spec.name(), args);
        }
        for (byte[][] q : queued) {
            CommandSpec s = table.find(q[0]);
            if (s != null && writes(s, q, null, table)) {
                return true;
            }
        }
        return false;
    }

    private static boolean servesStale(CommandSpec spec, byte[][] args, List<byte[][]> queued, CommandTable table) {
        if (queued == null) {
            return staleFlagged(spec, args);
        }
        for (byte[][] q : queued) {
            CommandSpec s = table.find(q[0]);
            if (s != null && !staleFlagged(s, q)) {
                return false;
            }
        }
        return true;
    }

    /** @return whether Redis flags the command (or its subcommand) {@code stale}; true for a command Redis has not */
    private static boolean staleFlagged(CommandSpec spec, byte[][] args) {
        CommandFacts.Entry e = CommandFacts.REDIS.get(spec.name());
        if (e != null && !e.subcommands().isEmpty() && args.length > 1) {
            CommandFacts.Entry sub = CommandFacts.REDIS.get(spec.name() + "|" + Args.lower(args[1]));
            e = sub != null ? sub : e;
        }
        return e == null || e.has("stale");
    }
}
