package dev.colossal.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Redis 7.0 parameters this server has no setting for, each with the value that says what it does
 * instead. CONFIG GET answers them, as test fixtures, dashboards and admin tools read them; CONFIG
 * SET to that value is OK (fixtures set {@code appendfsync} or {@code hz} to what they already are),
 * and to any other value is refused with the reason, but for those Redis sets at start only
 * ({@link RedisConfigNames#immutable}: daemonize, logfile, cluster-enabled, ...), which CONFIG SET
 * refuses with Redis's own error whatever the value. Parameters whose Redis meaning has no
 * counterpart here at all (active defragmentation, lazy freeing, I/O threads, the allocator) are
 * left out: CONFIG GET gives nothing for them, which tells a tool the truth.
 */
final class FixedConfig {

    /** A parameter's value here and why it cannot change. */
    record Fixed(String value, String why) {

        /** @return whether {@code given} is this value, in any case, or the same size in other units (64mb) */
        boolean accepts(String given) {
            if (value.equalsIgnoreCase(given)) {
                return true;
            }
            try {
                return !value.isEmpty() && Character.isDigit(value.charAt(0)) && MemorySize.parse(given) == Long.parseLong(value);
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
    }

    private static final String NO_FILES = "every acknowledged write is in the map files already;"
            + " there is no AOF, and an RDB file is written only on demand (SYNC, redis-cli --rdb)";
    private static final String NO_CLUSTER = "cluster mode is not supported (CLUSTER answers as a standalone Redis)";
    private static final String FOREGROUND = "colossal serve runs in the foreground and logs to its standard output"
            + " and error; a service manager puts it in the background";

    private static final Map<String, Fixed> VALUES = new LinkedHashMap<>();

    static {
        for (String[] p : new String[][] {
            {"appendonly", "no"}, {"appendfsync", "no"}, {"no-appendfsync-on-rewrite", "no"}, {"auto-aof-rewrite-percentage", "100"},
            {"auto-aof-rewrite-min-size", "67108864"}, {"aof-load-truncated", "yes"}, {"aof-use-rdb-preamble", "yes"},
            {"aof-timestamp-enabled", "no"}, {"aof-rewrite-incremental-fsync", "yes"}, {"aof-disable-auto-gc", "no"},
            {"appendfilename", "appendonly.aof"}, {"appenddirname", "appendonlydir"},
            {"rdbcompression", "no"}, {"rdbchecksum", "yes"}, {"rdb-save-incremental-fsync", "yes"},
            {"stop-writes-on-bgsave-error", "yes"}, {"rdb-del-sync-files", "no"}}) {
            VALUES.put(p[0], new Fixed(p[1], NO_FILES));
        }
        for (String[] p : new String[][] {
            {"cluster-enabled", "no"}, {"cluster-config-file", "nodes.conf"}, {"cluster-node-timeout", "15000"},
            {"cluster-port", "0"}, {"cluster-announce-ip", ""}, {"cluster-announce-port", "0"},
            {"cluster-announce-tls-port", "0"}, {"cluster-announce-bus-port", "0"}, {"cluster-announce-hostname", ""},
            {"cluster-require-full-coverage", "yes"}, {"cluster-allow-reads-when-down", "no"},
            {"cluster-allow-pubsubshard-when-down", "yes"}, {"cluster-allow-replica-migration", "yes"},
            {"cluster-migration-barrier", "1"}, {"cluster-replica-no-failover", "no"}, {"cluster-slave-no-failover", "no"},
            {"cluster-replica-validity-factor", "10"}, {"cluster-slave-validity-factor", "10"},
            {"cluster-link-sendbuf-limit", "0"}, {"cluster-preferred-endpoint-type", "ip"}}) {
            VALUES.put(p[0], new Fixed(p[1], NO_CLUSTER));
        }
        for (String[] p : new String[][] {{"daemonize", "no"}, {"supervised", "no"}, {"pidfile", ""}, {"logfile", ""},
            {"syslog-enabled", "no"}, {"syslog-ident", "redis"}, {"syslog-facility", "local0"}, {"always-show-logo", "no"},
            {"set-proc-title", "no"}}) {
            VALUES.put(p[0], new Fixed(p[1], FOREGROUND));
        }
        fixed("loglevel", "notice", "it logs start, stop, damage and failures only");
        fixed("hz", "10", "expiry sweeps run at most ten times a second, further apart when they cost more");
        fixed("dynamic-hz", "no", "expiry sweeps space themselves by their own cost, not by the clients connected");
        fixed("maxmemory-samples", Integer.toString(SampledEviction.SAMPLES), "sampled eviction compares this many keys");
        fixed("maxmemory-clients", "0", "no client is evicted to make room");
        fixed("hll-sparse-max-bytes", Integer.toString(HyperLogLog.SPARSE_MAX_BYTES),
                "a HyperLogLog turns dense past this many bytes");
        String replication = "replicas are fed from memory at once, and a write waits for no replica";
        for (String[] p : new String[][] {{"repl-diskless-sync", "yes"}, {"repl-diskless-sync-delay", "0"},
            {"repl-diskless-sync-max-replicas", "0"}}) {
            VALUES.put(p[0], new Fixed(p[1], replication));
        }
        fixed("repl-timeout", Integer.toString(MasterLink.TIMEOUT_MILLIS / 1000), "a replica drops a master silent this long");
        fixed("enable-module-command", "no", "modules are not supported");
        fixed("enable-protected-configs", "no", "dir and dbfilename are set at start only");
        fixed("repl-disable-tcp-nodelay", "no", "every connection sends at once (TCP_NODELAY)");
        fixed("oom-score-adj", "no", "the server leaves its OOM score as it started");
        fixed("tcp-keepalive", "0", "connections are not kept alive by TCP probes; the timeout setting closes idle ones");
        fixed("socket-mark-id", "0", "sockets are not marked");
        fixed("bind-source-addr", "", "replication connects from the address the system picks");
        for (String cpus : new String[] {"server_cpulist", "bio_cpulist", "aof_rewrite_cpulist", "bgsave_cpulist"}) {
            fixed(cpus, "", "threads are not pinned to CPUs");
        }
        fixed("shutdown-on-sigint", "default", "SIGINT and SIGTERM stop the server as SHUTDOWN does");
        fixed("shutdown-on-sigterm", "default", "SIGINT and SIGTERM stop the server as SHUTDOWN does");
    }

    private FixedConfig() {}

    private static void fixed(String name, String value, String why) {
        VALUES.put(name, new Fixed(value, why));
    }

    /** @return the parameter's fixed value and reason, or null if it is not one of these */
    static Fixed of(String name) {
        return VALUES.get(name);
    }

    /** Adds every fixed parameter that {@code values} does not have, with its value. */
    static void putAbsent(Map<String, String> values) {
        VALUES.forEach((name, f) -> values.putIfAbsent(name, f.value()));
    }

    /** CONFIG SET's error for setting {@code name} to {@code given}, which it does not accept. */
    static String refusal(String name, String given, Fixed f) {
        return "ERR CONFIG SET " + name + " " + given + " " + ServerConfig.FIXED + " " + name
                + " '" + f.value() + "'): " + f.why();
    }
}
