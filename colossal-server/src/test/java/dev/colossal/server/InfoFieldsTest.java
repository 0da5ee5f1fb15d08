package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INFO's sections and fields against redis-server 7's: monitoring reads them by name (redis_exporter
 * turns each into a metric, Sidekiq's dashboard shows {@code used_memory_peak_human}, phpredis's
 * tests look for {@code rdb_changes_since_last_save}), and a field that is missing is a blank panel
 * or an alert that never fires.
 */
class InfoFieldsTest {

    /**
     * Redis's fields of the default sections that this server leaves out, because what they measure
     * is not here: Redis's build, its allocator (jemalloc's figures and fragmentation), its Lua VM
     * and function engine's memory, its main thread and I/O threads, active defragmentation,
     * RDB loading and replication traffic counters. (Lazy freeing's two counts are there, both 0: no value is
     * freed in the background here.)
     */
    private static final Set<String> LEFT_OUT = Set.of("redis_git_sha1", "redis_git_dirty", "redis_build_id",
            "atomicvar_api", "gcc_version",
            "used_memory_overhead", "used_memory_startup", "used_memory_dataset", "used_memory_dataset_perc",
            "allocator_allocated", "allocator_active", "allocator_resident", "used_memory_lua", "used_memory_vm_eval",
            "used_memory_lua_human", "used_memory_vm_functions", "used_memory_vm_total", "used_memory_vm_total_human",
            "used_memory_functions", "allocator_frag_ratio", "allocator_frag_bytes", "allocator_rss_ratio",
            "allocator_rss_bytes", "rss_overhead_ratio", "rss_overhead_bytes", "mem_fragmentation_ratio",
            "mem_fragmentation_bytes", "mem_replication_backlog",
            "mem_total_replication_buffers", "mem_clients_slaves", "mem_clients_normal", "mem_cluster_links",
            "mem_aof_buffer", "mem_allocator", "active_defrag_running",
            "rdb_last_load_keys_expired", "rdb_last_load_keys_loaded", "total_net_repl_input_bytes",
            "total_net_repl_output_bytes", "instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps",
            "expired_stale_perc", "expired_time_cap_reached_count", "total_eviction_exceeded_time",
            "current_eviction_exceeded_time", "slave_expires_tracked_keys",
            "active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits", "active_defrag_key_misses",
            "total_active_defrag_time", "current_active_defrag_time", "unexpected_error_replies",
            "dump_payload_sanitizations", "io_threaded_reads_processed", "io_threaded_writes_processed",
            "reply_buffer_shrinks", "reply_buffer_expands", "used_cpu_sys_main_thread", "used_cpu_user_main_thread");

    private static final String[] FIELD_SECTIONS = {"server", "clients", "memory", "persistence", "stats", "cpu"};

    @TempDir
    Path dir;

    @Test
    void eachArgumentGivesTheSectionsRedisGives() throws Exception {
        List<List<String>> args = List.of(List.of(), List.of("default"), List.of("all"), List.of("everything"),
                List.of("commandstats"), List.of("latencystats"), List.of("server", "memory"), List.of("errorstats"));
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir); Wire theirs = new Wire(port); Wire w = new Wire(ours.port())) {
                for (Wire c : new Wire[] {theirs, w}) {
                    c.call("SET", "k", "v"); // so that commandstats and latencystats have a line
                }
                for (List<String> a : args) {
                    assertEquals(headers(info(theirs, a)), headers(info(w, a)), "INFO " + a);
                }
            }
        });
    }

    @Test
    void everyFieldOfRedissDefaultSectionsIsThereInItsOrderButTheOnesLeftOut() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir); Wire theirs = new Wire(port); Wire w = new Wire(ours.port())) {
                List<String> want = new ArrayList<>(fields(info(theirs, List.of(FIELD_SECTIONS))).keySet());
                want.removeAll(LEFT_OUT);
                List<String> got = new ArrayList<>(fields(info(w, List.of(FIELD_SECTIONS))).keySet());
                got.removeIf(f -> f.startsWith("colossal_") || f.equals("used_cpu_total"));
                assertEquals(want, got);
            }
        });
    }

    /**
     * The counters backup checks and replication alerts read, after the same commands on both: writes
     * since the last save, saves, full syncs, and clients blocked with a timeout.
     */
    @Test
    void savesChangesSyncsAndTimedWaitsAreCountedAsRedisCountsThem() throws Exception {
        List<Map<String, String>> seen = new ArrayList<>();
        Path redisDir = java.nio.file.Files.createDirectories(dir.resolve("redis")); // where its SAVE writes
        TestServers.onRedisWith(List.of("--dir", redisDir.toString()), port -> seen.add(counters(port)));
        try (ColossalServer ours = TestServers.colossal(dir.resolve("colossal"))) {
            Map<String, String> got = counters(ours.port());
            if (!seen.isEmpty()) {
                assertEquals(seen.get(0), got);
            }
            // what Redis shows, where it is not installed
            assertEquals("4", got.get("changes before SAVE"));
            assertEquals("0", got.get("changes after SAVE"));
            assertEquals("1", got.get("rdb_saves"));
            assertEquals("1", got.get("sync_full"));
            assertEquals("1", got.get("clients_in_timeout_table"));
        }
    }

    /** Redis's peak of used_memory stays after the keys that made it are gone, in INFO and MEMORY STATS. */
    @Test
    void thePeakOfUsedMemoryOutlivesTheKeysThatMadeIt() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire w = new Wire(ours.port())) {
            for (int i = 0; i < 200; i++) {
                w.call("SET", "k" + i, "v".repeat(1000));
            }
            long full = Long.parseLong(fields(info(w, List.of("memory"))).get("used_memory"));
            w.call("FLUSHALL");
            Map<String, String> memory = fields(info(w, List.of("memory")));
            long used = Long.parseLong(memory.get("used_memory"));
            long peak = Long.parseLong(memory.get("used_memory_peak"));
            assertTrue(full > 200_000 && used < full / 10, full + " then " + used);
            assertEquals(full, peak);
            assertTrue(memory.get("used_memory_peak_perc").endsWith("%"), memory.toString());
            String stats = w.call("MEMORY", "STATS");
            assertTrue(stats.contains("$14\r\npeak.allocated\r\n:" + full + "\r\n"), stats);
        }
    }

    private static Map<String, String> counters(int port) throws IOException {
        Map<String, String> c = new LinkedHashMap<>();
        try (Wire w = new Wire(port); Wire blocked = new Wire(port); Wire forever = new Wire(port);
             java.net.Socket sync = new java.net.Socket("127.0.0.1", port)) {
            w.call("SET", "a", "1");
            w.call("SET", "b", "2");
            w.call("INCR", "c");
            w.call("DEL", "a");
            w.call("GET", "b");
            c.put("changes before SAVE", fields(info(w, List.of("persistence"))).get("rdb_changes_since_last_save"));
            w.call("SAVE");
            Map<String, String> p = fields(info(w, List.of("persistence")));
            c.put("changes after SAVE", p.get("rdb_changes_since_last_save"));
            c.put("rdb_saves", p.get("rdb_saves"));
            c.put("rdb_last_bgsave_status", p.get("rdb_last_bgsave_status"));
            // a SETBIT or BITFIELD SET of bits as they were is no change (a new key is)
            w.call("SETBIT", "bits", "0", "0");
            w.call("SETBIT", "bits", "0", "0");
            w.call("BITFIELD", "field", "SET", "i5", "0", "0");
            w.call("BITFIELD", "field", "SET", "i5", "0", "0");
            w.call("BITFIELD", "field", "SET", "i5", "0", "1");
            c.put("changes after bit writes", fields(info(w, List.of("persistence"))).get("rdb_changes_since_last_save"));
            readSnapshot(sync);
            blocked.send(Wire.encode("BLPOP", "none", "30"));
            forever.send(Wire.encode("BLPOP", "none", "0"));
            long deadline = System.nanoTime() + 5_000_000_000L;
            Map<String, String> clients;
            do {
                clients = fields(info(w, List.of("clients")));
            } while (!clients.get("blocked_clients").equals("2") && System.nanoTime() < deadline);
            c.put("blocked_clients", clients.get("blocked_clients"));
            c.put("clients_in_timeout_table", clients.get("clients_in_timeout_table"));
            Map<String, String> stats = fields(info(w, List.of("stats")));
            for (String f : new String[] {"sync_full", "sync_partial_ok", "sync_partial_err", "evicted_clients"}) {
                c.put(f, stats.get(f));
            }
        }
        return c;
    }

    /**
     * SYNC, as {@code redis-cli --rdb} sends it, and its snapshot read: Redis may send newlines
     * while it makes the snapshot, then {@code $length} and the file (no CRLF after it).
     */
    private static void readSnapshot(java.net.Socket s) throws IOException {
        s.setSoTimeout(30_000);
        s.getOutputStream().write(Wire.encode("SYNC"));
        java.io.InputStream in = s.getInputStream();
        int b;
        while ((b = in.read()) != '$') {
            if (b != '\n') {
                throw new IOException("not a snapshot: " + (char) b);
            }
        }
        StringBuilder length = new StringBuilder();
        while ((b = in.read()) != '\r') {
            length.append((char) b);
        }
        in.skipNBytes(1 + Long.parseLong(length.toString()));
    }

    private static String info(Wire w, List<String> sections) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("INFO"));
        cmd.addAll(sections);
        String reply = w.call(cmd.toArray(String[]::new));
        return reply.substring(reply.indexOf("\r\n") + 2);
    }

    private static List<String> headers(String info) {
        return info.lines().filter(l -> l.startsWith("# ")).toList();
    }

    private static Map<String, String> fields(String info) {
        Map<String, String> f = new LinkedHashMap<>();
        info.lines().filter(l -> l.contains(":") && !l.startsWith("#"))
                .forEach(l -> f.put(l.substring(0, l.indexOf(':')), l.substring(l.indexOf(':') + 1)));
        return f;
    }
}
