package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;

/**
 * The cluster, failover and append-only-file commands of a server that has none of them: READONLY,
 * READWRITE and ASKING (Redis's cluster-disabled error), FAILOVER (a master without replicas) and
 * BGREWRITEAOF (no AOF: every acknowledged write is in the map files already). REPLICAOF is
 * {@link ReplicaCommands}'.
 */
final class NoReplicationCommands {

    static final String NO_AOF = "ERR there is no append-only file to rewrite: every acknowledged write is already"
            + " in the map files; SAVE or BGSAVE forces them to the device";
    private static final String CLUSTER_DISABLED = "ERR This instance has cluster support disabled";

    void register(CommandTable t) {
        List<String> cluster = List.of("loading", "stale", "fast");
        t.add("readonly", 1, cluster, 0, 0, 0, (c, a, r) -> r.error(CLUSTER_DISABLED));
        t.add("readwrite", 1, cluster, 0, 0, 0, (c, a, r) -> r.error(CLUSTER_DISABLED));
        t.add("bgrewriteaof", 1, List.of("admin", "noscript", "no_async_loading"), 0, 0, 0, (c, a, r) -> r.error(NO_AOF));
        t.add("asking", 1, List.of("fast"), 0, 0, 0, (c, a, r) -> r.error(CLUSTER_DISABLED));
        t.add("failover", -1, List.of("admin", "noscript", "stale"), 0, 0, 0, NoReplicationCommands::failover);
    }

    /**
     * FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | ABORT: its arguments checked as Redis checks
     * them, then Redis's answer for a master without replicas, which this server always is.
     */
    private static void failover(Client c, byte[][] a, Reply r) {
        if (a.length == 2 && Args.is(a[1], "ABORT")) {
            r.error("ERR No failover in progress.");
            return;
        }
        boolean timeout = false;
        boolean to = false;
        boolean force = false;
        for (int j = 1; j < a.length; j++) {
            if (Args.is(a[j], "TIMEOUT") && j + 1 < a.length && !timeout) {
                OptionalLong ms = Args.toLong(a[j + 1]);
                if (ms.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                if (ms.getAsLong() <= 0) {
                    r.error("ERR FAILOVER timeout must be greater than 0");
                    return;
                }
                timeout = true;
                j++;
            } else if (Args.is(a[j], "TO") && j + 2 < a.length && !to) {
                if (Args.toLong(a[j + 2]).isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                to = true;
                j += 2;
            } else if (Args.is(a[j], "FORCE") && !force) {
                force = true;
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        r.error("ERR FAILOVER requires connected replicas.");
    }
}
