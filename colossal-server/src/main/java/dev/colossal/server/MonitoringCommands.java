package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;

/**
 * What monitoring tools and operators ask a Redis server besides INFO: SLOWLOG, LATENCY, ROLE,
 * MODULE LIST and CLUSTER (there is no cluster mode), answered as redis-server 7.0 answers them with its default
 * settings ({@link DebugCommand} is DEBUG).
 * redis_exporter sends SLOWLOG and LATENCY LATEST on every scrape and redis-commander MODULE LIST
 * on connect; each logged an error per scrape or connection while these were unknown commands.
 */
final class MonitoringCommands {

    /** Redis 7.0's reply to DEBUG with {@code enable-debug-command no}, its default: refused, not unknown. */
    static final String DEBUG_NOT_ALLOWED = "ERR DEBUG command not allowed. If the enable-debug-command option is set"
            + " to \"local\", you can run it from a local connection, otherwise you need to set this option in the"
            + " configuration file, and then restart the server.";
    /** The same for MODULE LOAD, LOADEX and UNLOAD ({@code enable-module-command no}): no module loads here. */
    private static final String MODULE_NOT_ALLOWED = "ERR MODULE command not allowed. If the enable-module-command"
            + " option is set to \"local\", you can run it from a local connection, otherwise you need to set this"
            + " option in the configuration file, and then restart the server.";
    /**
     * LATENCY DOCTOR with latency monitoring off, Redis's default ({@code latency-monitor-threshold
     * 0}), and no samples left from when it was on.
     */
    private static final String LATENCY_DISABLED = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled"
            + " in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order"
            + " to enable it. If we weren't in a deep space mission I'd suggest to take a look at"
            + " https://redis.io/topics/latency-monitor.\n";
    private static final List<String> SLOWLOG_HELP = List.of(
            "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "GET [<count>]",
            "    Return top <count> entries from the slowlog (default: 10, -1 mean all).", "    Entries are made of:",
            "    id, timestamp, time in microseconds, arguments array, client IP and port,", "    client name", "LEN",
            "    Return the length of the slowlog.", "RESET", "    Reset the slowlog.", "HELP", "    Prints this help.");
    private static final List<String> LATENCY_HELP = List.of(
            "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "DOCTOR",
            "    Return a human readable latency analysis report.", "GRAPH <event>",
            "    Return an ASCII latency graph for the <event> class.", "HISTORY <event>",
            "    Return time-latency samples for the <event> class.", "LATEST",
            "    Return the latest latency samples for all events.", "RESET [<event> ...]",
            "    Reset latency data of one or more <event> classes.",
            "    (default: reset all data for all event classes)", "HISTOGRAM [COMMAND ...]",
            "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
            "    If no commands are specified then all histograms are replied.", "HELP", "    Prints this help.");
    private static final List<String> MODULE_HELP = List.of(
            "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "LIST",
            "    Return a list of loaded modules.", "LOAD <path> [<arg> ...]",
            "    Load a module library from <path>, passing to it any optional arguments.",
            "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
            "    Load a module library from <path>, while passing it module configurations and optional arguments.",
            "UNLOAD <name>", "    Unload a module.", "HELP", "    Prints this help.");

    private final SlowLog slowLog;
    /** ROLE asks it whether this server follows a master. */
    private final ReplicaState replica;
    private final Replicas replicas;
    /** LATENCY LATEST, HISTORY, RESET, GRAPH and DOCTOR show its samples. */
    private final LatencyMonitor latencyMonitor;
    /** The commands' counts LATENCY HISTOGRAM shows: the table this registers with. */
    private CommandTable table;

    MonitoringCommands(ServerContext ctx) {
        this.slowLog = ctx.slowLog;
        this.replica = ctx.replica;
        this.replicas = ctx.replicas;
        this.latencyMonitor = ctx.latencyMonitor;
    }

    void register(CommandTable t) {
        table = t;
        t.add("slowlog", -2, List.of("admin", "loading", "stale"), 0, 0, 0, this::slowlog);
        t.add("latency", -2, List.of("admin", "noscript", "loading", "stale"), 0, 0, 0, this::latency);
        t.add("role", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, (c, a, r) -> {
            if (replica.following()) {
                replica.role(r);
            } else {
                replicas.role(r);
            }
        });
        t.add("wait", 3, List.of("noscript"), 0, 0, 0, this::waitForReplicas);
        t.add("module", -2, List.of(), 0, 0, 0, this::module);
        // Clients and tools probe for cluster mode with CLUSTER INFO or NODES and match this text
        // (any of Redis 7.0's subcommands; another is unknown).
        t.add("cluster", -2, List.of(), 0, 0, 0, (c, a, r) -> r.error(LastCommand.isSubcommand("cluster", a[1])
                ? "ERR This instance has cluster support disabled" : Errors.unknownSubcommand(a[1], "CLUSTER")));
    }

    /**
     * WAIT numreplicas timeout: how many replicas have the client's writes, once that many do or
     * the timeout passes (0: no end), as Redis answers ({@link Replicas#await}).
     */
    private void waitForReplicas(Client c, byte[][] a, Reply r) {
        java.util.OptionalLong want = Args.toLong(a[1]);
        if (want.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        java.util.OptionalLong timeout = Args.toLong(a[2]);
        if (timeout.isEmpty()) {
            r.error("ERR timeout is not an integer or out of range");
        } else if (timeout.getAsLong() < 0) {
            r.error("ERR timeout is negative");
        } else {
            replicas.await(c, want.getAsLong(), timeout.getAsLong(), r);
        }
    }

    private void slowlog(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "GET") && a.length <= 3) {
            long count = 10;
            if (a.length == 3) {
                OptionalLong n = Args.toLong(a[2]);
                if (n.isEmpty() || n.getAsLong() < -1) {
                    r.error("ERR count should be greater than or equal to -1");
                    return;
                }
                count = n.getAsLong();
            }
            List<SlowLog.Entry> entries = slowLog.newest(count);
            r.array(entries.size());
            for (SlowLog.Entry e : entries) {
                r.array(6);
                r.integer(e.id());
                r.integer(e.unixSeconds());
                r.integer(e.micros());
                r.array(e.args().length);
                for (byte[] arg : e.args()) {
                    r.bulk(arg);
                }
                r.bulk(e.address());
                r.bulk(e.name());
            }
        } else if (Args.is(sub, "GET")) {
            r.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.text(sub) + "'. Try SLOWLOG HELP.");
        } else if (fixedArity(sub, a, r, "slowlog", "LEN", "RESET", "HELP")) {
            if (Args.is(sub, "LEN")) {
                r.integer(slowLog.size());
            } else if (Args.is(sub, "RESET")) {
                slowLog.reset();
                r.ok();
            } else {
                help(SLOWLOG_HELP, r);
            }
        }
    }

    private void latency(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "RESET")) {
            java.util.List<String> names = new java.util.ArrayList<>();
            for (int i = 2; i < a.length; i++) {
                names.add(Errors.text(a[i]));
            }
            r.integer(names.isEmpty() ? latencyMonitor.reset() : latencyMonitor.reset(names));
        } else if ((Args.is(sub, "GRAPH") || Args.is(sub, "HISTORY")) && a.length != 3) {
            r.error(Errors.arity("latency|" + Args.lower(sub)));
        } else if (Args.is(sub, "GRAPH")) {
            String event = Errors.text(a[2]);
            List<LatencyMonitor.Sample> h = latencyMonitor.history(event);
            if (h.isEmpty()) {
                r.error("ERR No samples available for event '" + event + "'");
            } else {
                r.verbatim(LatencyReport.graph(event, h, latencyMonitor.max(event), System.currentTimeMillis()));
            }
        } else if (Args.is(sub, "HISTORY")) {
            List<LatencyMonitor.Sample> h = latencyMonitor.history(Errors.text(a[2]));
            r.array(h.size());
            for (LatencyMonitor.Sample s : h) {
                r.array(2);
                r.integer(s.second());
                r.integer(s.millis());
            }
        } else if (Args.is(sub, "HISTOGRAM")) {
            histogram(a, r);
        } else if (fixedArity(sub, a, r, "latency", "LATEST", "DOCTOR", "HELP")) {
            if (Args.is(sub, "LATEST")) {
                List<Object[]> rows = latencyMonitor.latest();
                r.array(rows.size());
                for (Object[] row : rows) {
                    r.array(4);
                    r.bulk((String) row[0]);
                    r.integer((Long) row[1]);
                    r.integer((Long) row[2]);
                    r.integer((Long) row[3]);
                }
            } else if (Args.is(sub, "DOCTOR")) {
                r.verbatim(latencyMonitor.threshold() == 0 && latencyMonitor.names().isEmpty() ? LATENCY_DISABLED
                        : LatencyReport.doctor(latencyMonitor, System.currentTimeMillis()));
            } else {
                help(LATENCY_HELP, r);
            }
        }
    }

    /**
     * LATENCY HISTOGRAM [command ...]: each command's calls and their cumulative counts up to each
     * non-empty {@link LatencyBuckets} bucket; a container's name stands for its subcommands, a
     * name no command has is left out, as in Redis.
     */
    private void histogram(byte[][] a, Reply r) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (int i = 2; i < a.length; i++) {
            names.add(Args.lower(a[i]));
        }
        java.util.Map<String, long[]> shown = new java.util.LinkedHashMap<>();
        table.forEachStats((name, stats) -> {
            int bar = name.indexOf('|');
            if (names.isEmpty() || names.contains(name) || (bar > 0 && names.contains(name.substring(0, bar)))) {
                long[] counts = stats.latency.snapshot();
                if (java.util.Arrays.stream(counts).anyMatch(n -> n != 0)) {
                    shown.put(name, counts);
                }
            }
        });
        r.map(shown.size());
        shown.forEach((name, counts) -> {
            r.bulk(name);
            r.map(2);
            r.bulk("calls");
            r.integer(java.util.Arrays.stream(counts).sum());
            r.bulk("histogram_usec");
            int used = 0;
            for (long n : counts) {
                used += n == 0 ? 0 : 1;
            }
            r.map(used);
            long below = 0;
            for (int b = 0; b < counts.length; b++) {
                if (counts[b] != 0) {
                    below += counts[b];
                    r.integer(LatencyBuckets.upperMicros(b));
                    r.integer(below);
                }
            }
        });
    }

    private void module(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "LOAD") || Args.is(sub, "LOADEX")) {
            r.error(a.length < 3 ? Errors.arity("module|" + Args.lower(sub)) : MODULE_NOT_ALLOWED);
        } else if (Args.is(sub, "UNLOAD")) {
            r.error(a.length != 3 ? Errors.arity("module|unload") : MODULE_NOT_ALLOWED);
        } else if (fixedArity(sub, a, r, "module", "LIST", "HELP")) {
            if (Args.is(sub, "LIST")) {
                r.array(0);
            } else {
                help(MODULE_HELP, r);
            }
        }
    }

    /**
     * For subcommands that take no argument: whether {@code sub} is one of {@code names} given
     * alone. If not, answers the arity error (one of them with arguments) or the unknown one.
     */
    private static boolean fixedArity(byte[] sub, byte[][] a, Reply r, String container, String... names) {
        for (String name : names) {
            if (Args.is(sub, name)) {
                if (a.length == 2) {
                    return true;
                }
                r.error(Errors.arity(container + "|" + Args.lower(sub)));
                return false;
            }
        }
        r.error(Errors.unknownSubcommand(sub, container.toUpperCase(java.util.Locale.ROOT)));
        return false;
    }

    private static void help(List<String> lines, Reply r) {
        r.array(lines.size());
        lines.forEach(r::simple);
    }
}
