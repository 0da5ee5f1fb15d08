package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;

/**
 * The replication, cluster and append-only-file commands of a server that has none of them:
 * REPLICAOF / SLAVEOF (NO ONE is what it already is; anything else is refused saying so, after
 * Redis's own port check), READONLY and READWRITE (Redis's cluster-disabled error), and
 * BGREWRITEAOF (no AOF: every acknowledged write is in the map files already).
 */
final class NoReplicationCommands {

    static final String NO_REPLICATION = "ERR replication is not supported: this server cannot follow another;"
            + " copy keys from a Redis with MIGRATE, or import its dump with 'colossal import-rdb'";
    static final String NO_AOF = "ERR there is no append-only file to rewrite: every acknowledged write is already"
            + " in the map files; SAVE or BGSAVE forces them to the device";
    private static final String CLUSTER_DISABLED = "ERR This instance has cluster support disabled";

    void register(CommandTable t) {
        List<String> role = List.of("admin", "noscript", "stale", "no_async_loading");
        t.add("replicaof", 3, role, 0, 0, 0, NoReplicationCommands::replicaOf);
        t.add("slaveof", 3, role, 0, 0, 0, NoReplicationCommands::replicaOf);
        List<String> cluster = List.of("loading", "stale", "fast");
        t.add("readonly", 1, cluster, 0, 0, 0, (c, a, r) -> r.error(CLUSTER_DISABLED));
        t.add("readwrite", 1, cluster, 0, 0, 0, (c, a, r) -> r.error(CLUSTER_DISABLED));
        t.add("bgrewriteaof", 1, List.of("admin", "noscript", "no_async_loading"), 0, 0, 0, (c, a, r) -> r.error(NO_AOF));
    }

    /** REPLICAOF host port: Redis checks the port (0 to 65535) before it would connect; we refuse after. */
    private static void replicaOf(Client c, byte[][] a, Reply r) {
        if (Args.is(a[1], "NO") && Args.is(a[2], "ONE")) {
            r.ok(); // a master already
            return;
        }
        OptionalLong port = Args.toLong(a[2]);
        if (port.isEmpty() || port.getAsLong() < 0 || port.getAsLong() > 65535) {
            r.error("ERR Invalid master port");
            return;
        }
        r.error(NO_REPLICATION);
    }
}
