package dev.colossal.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        long rss = Math.max(0, ProcessStats.statusBytes("VmRSS")[0]);
        long clients = 0;
        for (Client c : ctx.clients.values()) {
            clients += c.inputCapacity + c.reply.capacity;
        }
        long lua = table.scripts().cachedBytes();
        long functions = ctx.functions.all().stream().mapToLong(l -> l.code.length).sum();
        long overhead = clients + lua + functions;
        double fragmentation = used == 0 ? 1 : (double) rss / used;
        ctx.stats.usedPeak.accumulate(used);
        long peak = ctx.stats.usedPeak.get();
        Map<String, Number> fields = new LinkedHashMap<>();
        fields.put("peak.allocated", peak);
        fields.put("total.allocated", used);
        fields.put("startup.allocated", 0L);
        fields.put("replication.backlog", 0L);
        fields.put("clients.slaves", 0L);
        fields.put("clients.normal", clients);
        fields.put("cluster.links", 0L);
        fields.put("aof.buffer", 0L);
        fields.put("lua.caches", lua);
        fields.put("functions.caches", functions);
        fields.put("overhead.total", overhead);
        fields.put("keys.count", keys);
        fields.put("keys.bytes-per-key", keys == 0 ? 0L : used / keys);
        fields.put("dataset.bytes", used);
        fields.put("dataset.percentage", used + overhead == 0 ? 0.0 : 100.0 * used / (used + overhead));
        fields.put("peak.percentage", peak == 0 ? 100.0 : 100.0 * used / peak);
        fields.put("allocator.allocated", used);
        fields.put("allocator.active", used);
        fields.put("allocator.resident", rss);
        fields.put("allocator-fragmentation.ratio", 1.0);
        fields.put("allocator-fragmentation.bytes", 0L);
        fields.put("allocator-rss.ratio", fragmentation);
        fields.put("allocator-rss.bytes", rss - used);
        fields.put("rss-overhead.ratio", 1.0);
        fields.put("rss-overhead.bytes", 0L);
        fields.put("fragmentation", fragmentation);
        fields.put("fragmentation.bytes", rss - used);
        r.map(fields.size());
        fields.forEach((name, value) -> {
            r.bulk(name);
            if (value instanceof Double d) {
                ZScore.reply(r, d);
            } else {
                r.integer(value.longValue());
            }
        });
    }

    private String doctor() {
        long used = ctx.dbs.usedBytes();
        long max = ctx.dbs.maxMemory();
        StringBuilder s = new StringBuilder();
        long keys = ctx.dbs.keys();
        s.append(String.format(Locale.ROOT, "The maps hold %d key%s in %d bytes of entries", keys, keys == 1 ? "" : "s", used));
        if (max > 0) {
            s.append(String.format(Locale.ROOT, ", %.1f%% of --maxmemory (%d bytes, policy %s)", 100.0 * used / max, max,
                    ctx.dbs.policy()));
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
