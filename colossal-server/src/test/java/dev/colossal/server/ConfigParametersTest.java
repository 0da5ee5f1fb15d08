package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONFIG GET's parameters against redis-server 7.0's: tools and test fixtures read them by name
 * ({@code CONFIG GET appendonly}, {@code hz}, {@code cluster-enabled}) and set them to what they
 * already are; a name with no answer or a refused no-op breaks them.
 */
class ConfigParametersTest {

    /**
     * Redis's parameters CONFIG GET leaves out here, because what they set has no counterpart:
     * active defragmentation and lazy freeing (the map reclaims its space online, see the README),
     * I/O threads, the allocator, Redis's RDB file name (there is none to find), and replica
     * settings of Redis's own replication loop.
     */
    private static final Set<String> LEFT_OUT = Set.of("active-defrag-cycle-max", "active-defrag-cycle-min",
            "active-defrag-ignore-bytes", "active-defrag-max-scan-fields", "active-defrag-threshold-lower",
            "active-defrag-threshold-upper", "active-expire-effort", "activedefrag", "activerehashing",
            "client-query-buffer-limit", "crash-log-enabled", "crash-memcheck-enabled", "dbfilename", "disable-thp",
            "ignore-warnings", "io-threads", "io-threads-do-reads", "jemalloc-bg-thread", "lazyfree-lazy-eviction",
            "lazyfree-lazy-expire", "lazyfree-lazy-server-del", "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush",
            "maxmemory-eviction-tenacity", "oom-score-adj-values",
            "proc-title-template", "propagation-error-behavior", "repl-backlog-ttl", "repl-diskless-load",
            "replica-ignore-disk-write-errors", "replica-ignore-maxmemory", "replica-lazy-flush",
            "sanitize-dump-payload", "slave-ignore-maxmemory", "slave-lazy-flush", "tcp-backlog");

    @TempDir
    Path dir;

    @Test
    void everyParameterRedisListsIsAnsweredButTheOnesLeftOut() throws Exception {
        TestServers.onRedis(port -> {
            try (ColossalServer ours = TestServers.colossal(dir); Wire theirs = new Wire(port); Wire w = new Wire(ours.port())) {
                Set<String> want = names(theirs);
                want.removeAll(LEFT_OUT);
                assertEquals(want, names(w));
            }
        });
    }

    /** A parameter with no setting here is refused a new value, with what it is and why, and keeps its value. */
    @Test
    void aNewValueOfAFixedParameterIsRefusedWithTheReasonAndNothingChanges() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire w = new Wire(ours.port())) {
            String refused = w.call("CONFIG", "SET", "slowlog-max-len", "7", "appendonly", "yes");
            assertTrue(refused.startsWith("-ERR CONFIG SET appendonly yes is not supported by this server (it runs with"
                    + " appendonly 'no'): every acknowledged write is in the map files already"), refused);
            assertEquals("*2\r\n$15\r\nslowlog-max-len\r\n$3\r\n128\r\n", w.call("CONFIG", "GET", "slowlog-max-len"));
            assertTrue(w.call("CONFIG", "SET", "hz", "100").contains("it runs with hz '10'"));
            assertEquals("+OK\r\n", w.call("CONFIG", "SET", "hz", "10", "appendfsync", "NO"));
            assertEquals("*2\r\n$11\r\nappendfsync\r\n$2\r\nno\r\n", w.call("CONFIG", "GET", "appendfsync"));
        }
    }

    private static Set<String> names(Wire w) throws IOException {
        String reply = w.call("CONFIG", "GET", "*");
        List<String> lines = new ArrayList<>(reply.lines().toList());
        Set<String> names = new TreeSet<>();
        // a map or array of name, value pairs: every other bulk string is a name
        List<String> bulks = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).startsWith("$")) {
                bulks.add(lines.get(++i));
            }
        }
        for (int i = 0; i < bulks.size(); i += 2) {
            names.add(bulks.get(i));
        }
        return names;
    }
}
