package dev.colossal.server;

import java.util.Map;
import java.util.Set;

/**
 * The name CLIENT LIST and CLIENT INFO show as a connection's {@code cmd=}, as Redis 7.0 names it:
 * a container command with its subcommand ({@code client|list}, {@code config|get}), and
 * {@code NULL} for a command or subcommand Redis does not know. Redis sets it when it looks the
 * command up, before checking arity, authentication or a MULTI queue, so a refused or queued
 * command shows too.
 */
final class LastCommand {

    /** Redis 7.0.15's subcommands of the containers this server has (from its COMMAND INFO), Redis knowing them whether we do or not; CLUSTER refuses each of its own alike. */
    private static final Map<String, Set<String>> SUBCOMMANDS = Map.ofEntries(
            Map.entry("client", Set.of("caching", "getname", "getredir", "help", "id", "info", "kill", "list", "no-evict",
                    "pause", "reply", "setname", "tracking", "trackinginfo", "unblock", "unpause")),
            Map.entry("config", Set.of("get", "help", "resetstat", "rewrite", "set")),
            Map.entry("command", Set.of("count", "docs", "getkeys", "getkeysandflags", "help", "info", "list")),
            Map.entry("memory", Set.of("doctor", "help", "malloc-stats", "purge", "stats", "usage")),
            Map.entry("object", Set.of("encoding", "freq", "help", "idletime", "refcount")),
            Map.entry("slowlog", Set.of("get", "help", "len", "reset")),
            Map.entry("pubsub", Set.of("channels", "help", "numpat", "numsub", "shardchannels", "shardnumsub")),
            Map.entry("script", Set.of("debug", "exists", "flush", "help", "kill", "load")),
            Map.entry("acl", Set.of("cat", "deluser", "dryrun", "genpass", "getuser", "help", "list", "load", "log", "save",
                    "setuser", "users", "whoami")),
            Map.entry("function", Set.of("delete", "dump", "flush", "help", "kill", "list", "load", "restore", "stats")),
            Map.entry("xgroup", Set.of("create", "createconsumer", "delconsumer", "destroy", "help", "setid")),
            Map.entry("xinfo", Set.of("consumers", "groups", "help", "stream")),
            Map.entry("latency", Set.of("doctor", "graph", "help", "histogram", "history", "latest", "reset")),
            Map.entry("module", Set.of("help", "list", "load", "loadex", "unload")),
            Map.entry("cluster", Set.of("addslots", "addslotsrange", "bumpepoch", "count-failure-reports",
                    "countkeysinslot", "delslots", "delslotsrange", "failover", "flushslots", "forget",
                    "getkeysinslot", "help", "info", "keyslot", "links", "meet", "myid", "nodes", "replicas",
                    "replicate", "reset", "saveconfig", "set-config-epoch", "setslot", "shards", "slaves", "slots")));

    static final String NONE = "NULL";

    /** @return Redis 7.0's subcommands of {@code container}, none for a command that is not one */
    static Set<String> subcommands(String container) {
        return SUBCOMMANDS.getOrDefault(container, Set.of());
    }

    private LastCommand() {
    }

    /** @return whether {@code sub} is one of Redis 7.0's subcommands of {@code container} (any case) */
    static boolean isSubcommand(String container, byte[] sub) {
        Set<String> subs = SUBCOMMANDS.get(container);
        return subs != null && subs.contains(Args.lower(sub));
    }

    /**
     * @param spec the command found for {@code args[0]}, null if none
     * @param args the request, name first
     * @return what {@code cmd=} shows for it
     */
    static String of(CommandSpec spec, byte[][] args) {
        if (spec == null) {
            return NONE;
        }
        Set<String> subs = SUBCOMMANDS.get(spec.name());
        if (subs == null || args.length < 2) {
            return spec.name();
        }
        String sub = Args.lower(args[1]);
        return subs.contains(sub) ? spec.name() + "|" + sub : NONE;
    }
}
