package dev.colossal.server;

import java.util.Set;

/**
 * What Redis refuses while the data is over {@code maxmemory} under {@code noeviction}
 * ({@link Databases#memoryFull}): the commands that may add data ({@code denyoom}), every command
 * but EXEC, DISCARD, QUIT and RESET inside MULTI (queueing takes memory too), an EXEC whose queue
 * holds one that may add data, a script or function that declares flags but not {@code allow-oom}
 * (or {@code no-writes}), and a flagless script's first write. Reads, deletes and the
 * rest go on, so that a full server can be emptied.
 */
final class OomRefusal {

    /** Redis's reply, after the {@code -}. */
    static final String ERROR = "OOM command not allowed when used memory > 'maxmemory'.";
    /** What MULTI still takes when full. */
    private static final Set<String> IN_MULTI = Set.of("exec", "discard", "quit", "reset");

    private OomRefusal() {}

    /**
     * @return whether {@code args}, run by {@code spec}, may add data: {@code denyoom}, or a
     *     subcommand Redis marks so (FUNCTION LOAD, XGROUP CREATE, ...) whose container is not
     */
    static boolean addsData(CommandSpec spec, byte[][] args) {
        if (spec.flags().contains("denyoom")) {
            return true;
        }
        CommandFacts.Entry sub = args.length > 1 ? CommandFacts.REDIS.get(spec.name() + "|" + Args.lower(args[1])) : null;
        return sub != null && sub.has("denyoom");
    }

    /**
     * @param queueing whether the client is queueing a transaction (EXEC's own case is {@link #execRefused})
     * @return whether a full server refuses {@code args} with {@link #ERROR} before it runs or is queued
     */
    static boolean refused(CommandSpec spec, byte[][] args, boolean queueing) {
        return queueing ? !IN_MULTI.contains(spec.name()) : addsData(spec, args);
    }

    /** @return whether a full server aborts an EXEC of {@code queued}: one of them may add data */
    static boolean execRefused(java.util.List<byte[][]> queued, CommandTable table) {
        for (byte[][] q : queued) {
            CommandSpec spec = table.find(q[0]);
            if (spec != null && addsData(spec, q)) {
                return true;
            }
        }
        return false;
    }
}
