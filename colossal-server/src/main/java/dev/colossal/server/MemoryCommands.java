package dev.colossal.server;

import java.util.List;
import java.util.Locale;

/**
 * MEMORY HELP, STATS, DOCTOR, MALLOC-STATS and PURGE (MEMORY USAGE is {@link KeyCommands}'). STATS
 * gives Redis 7.0's field names with this server's numbers where it has them: the entry bytes of
 * the maps ({@code used_memory}, what {@code --maxmemory} bounds) as the allocation and dataset,
 * the process's resident set as the allocator's, and 0 for what a server without replicas, cluster
 * or AOF does not have. DOCTOR reports what it sees in words of its own; MALLOC-STATS shows the JVM
 * heap, the allocator this server's own memory comes from.
 */
final class MemoryCommands {

    private static final List<String> HELP = List.of(
            "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "DOCTOR",
            "    Return memory problems reports.",
            "MALLOC-STATS",
            "    Return internal statistics report from the memory allocator.",
            "PURGE",
            "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS",
            "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]",
            "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).",
            "HELP",
            "    Prints this help."
);

    private final ServerContext ctx;
    /** For the scripts' cache, which is made after the key commands. */
    private final CommandTable table;

    MemoryCommands(ServerContext ctx, CommandTable table) {
        this.ctx = ctx;
        this.table = table;
    }

    /** Runs {@code MEMORY <a[1]>} unless it is USAGE. @return whether it did */
    boolean run(byte[][] a, Reply r) {
        String sub = Args.lower(a[1]);
        if (!List.of("help", "stats", "doctor", "malloc-stats", "purge").contains(sub)) {
            return false;
        }
        if (a.length != 2) {
            r.error(Errors.arity("memory|" + sub));
            return true;
        }
        switch (sub) {
            case "help" -> {
                r.array(HELP.size());
                HELP.forEach(r::simple);
            }
            case "purge" -> r.ok();
            case "stats" -> stats(r);
            case "doctor" -> r.verbatim(doctor());
            default -> {
                Runtime rt = Runtime.getRuntime();
                r.verbatim(String.format(Locale.ROOT, "JVM heap: %d bytes used of %d committed, at most %d%n"
                        + "Values live in memory-mapped map files, not on the heap: INFO memory's used_memory counts them.%n",
                        rt.totalMemory() - rt.freeMemory(), rt.totalMemory(), rt.maxMemory()));
            }
        }
        return true;
    }

    private void stats(Reply r) {
        long used = ctx.dbs.usedBytes();
        long keys = ctx.dbs.keys();
        long rss = Math.max(0, ProcessStats.statusBytes("VmRSS"));
        long clients = 0;
        for (Client c : ctx.clients.values()) {
            clients += c.inputCapacity + c.reply.capacity;
        }
        long lua = table.scripts().cachedBytes();
        long functions = ctx.functions.all().stream().mapToLong(l -> l.code.length).sum();
        long overhead = clients + lua + functions;
        r.map(27);
        r.bulk("peak.allocated");
        r.integer(used);
        r.bulk("total.allocated");
        r.integer(used);
        r.bulk("startup.allocated");
        r.integer(0);
        r.bulk("replication.backlog");
        r.integer(0);
        r.bulk("clients.slaves");
        r.integer(0);
        r.bulk("clients.normal");
        r.integer(clients);
        r.bulk("cluster.links");
        r.integer(0);
        r.bulk("aof.buffer");
        r.integer(0);
        r.bulk("lua.caches");
        r.integer(lua);
        r.bulk("functions.caches");
        r.integer(functions);
        r.bulk("overhead.total");
        r.integer(overhead);
        r.bulk("keys.count");
        r.integer(keys);
        r.bulk("keys.bytes-per-key");
        r.integer(keys == 0 ? 0 : used / keys);
        r.bulk("dataset.bytes");
        r.integer(used);
        r.bulk("dataset.percentage");
        ZScore.reply(r, used + overhead == 0 ? 0 : 100.0 * used / (used + overhead));
        r.bulk("peak.percentage");
        ZScore.reply(r, 100);
        r.bulk("allocator.allocated");
        r.integer(used);
        r.bulk("allocator.active");
        r.integer(used);
        r.bulk("allocator.resident");
        r.integer(rss);
        r.bulk("allocator-fragmentation.ratio");
        ZScore.reply(r, 1);
        r.bulk("allocator-fragmentation.bytes");
        r.integer(0);
        r.bulk("allocator-rss.ratio");
        ZScore.reply(r, used == 0 ? 1 : (double) rss / used);
        r.bulk("allocator-rss.bytes");
        r.integer(rss - used);
        r.bulk("rss-overhead.ratio");
        ZScore.reply(r, 1);
        r.bulk("rss-overhead.bytes");
        r.integer(0);
        r.bulk("fragmentation");
        ZScore.reply(r, used == 0 ? 1 : (double) rss / used);
        r.bulk("fragmentation.bytes");
        r.integer(rss - used);
    }

    private String doctor() {
        long used = ctx.dbs.usedBytes();
        long max = ctx.config.maxMemoryBytes();
        StringBuilder s = new StringBuilder();
        long keys = ctx.dbs.keys();
        s.append(String.format(Locale.ROOT, "The maps hold %d key%s in %d bytes of entries", keys, keys == 1 ? "" : "s", used));
        if (max > 0) {
            s.append(String.format(Locale.ROOT, ", %.1f%% of --maxmemory (%d bytes, policy %s)", 100.0 * used / max, max,
                    ctx.config.maxMemoryPolicy()));
        }
        s.append(String.format(Locale.ROOT, "; the map files take %d bytes on disk.%n", ctx.dbs.fileBytes()));
        if (max > 0 && used > max * 9 / 10) {
            s.append("Close to the bound: writes evict (or are refused under noeviction); raise --maxmemory on a new"
                    + " data directory, or store less.\n");
        } else {
            s.append("Nothing to worry about: values live in memory-mapped files, which the kernel pages in and out as"
                    + " they are used.\n");
        }
        return s.toString();
    }
}
