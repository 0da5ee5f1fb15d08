package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INFO commandstats counts calls, rejected and failed calls as Redis does, and errorstats errors by kind, across GET and SET
 * (run in place, counted per client), MULTI/EXEC (a failure inside EXEC is the command's, EXEC's
 * own error is EXEC's) and CONFIG RESETSTAT, also as /metrics series. Where redis-server is
 * installed, its counts are the reference.
 */
class CommandStatsTest {

    /** Each command sent on its own; a wrong arity is rejected, a WRONGTYPE-like failure failed. */
    private static final List<List<String>> SCRIPT = List.of(List.of("SET", "a", "x"), List.of("MULTI"),
            List.of("INCR", "a"), List.of("EXEC"), List.of("MULTI"), List.of("GETT"), List.of("EXEC"), List.of("EXEC"),
            List.of("MULTI"), List.of("GET"), List.of("EXEC"), List.of("AUTH", "x"), List.of("GET", "a"),
            List.of("GET", "b"), List.of("GET"), List.of("INCR", "n"), List.of("CONFIG", "GET", "maxmemory"),
            List.of("CLIENT", "SETNAME", "x"), List.of("CLIENT", "SETNAME", "y"));

    @Test
    void countsAsRedis(@TempDir Path dir) throws Exception {
        Map<String, String> want = Map.of("set", "calls=1,rejected_calls=0,failed_calls=0",
                "multi", "calls=3,rejected_calls=0,failed_calls=0", "exec", "calls=4,rejected_calls=0,failed_calls=3",
                "get", "calls=2,rejected_calls=2,failed_calls=0", "auth", "calls=1,rejected_calls=0,failed_calls=1",
                "incr", "calls=2,rejected_calls=0,failed_calls=1", "config|get", "calls=1,rejected_calls=0,failed_calls=0",
                "client|setname", "calls=2,rejected_calls=0,failed_calls=0", "errorstat_ERR", "count=6", "errorstat_EXECABORT", "count=2");
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir.resolve("data"))
                .withPorts(0, 0))) {
            assertEquals(want, counts(server.port()));
            String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            for (String series : List.of("colossal_command_calls_total{command=\"get\"} 2\n",
                    "colossal_command_rejected_calls_total{command=\"get\"} 2\n",
                    "colossal_command_failed_calls_total{command=\"exec\"} 3\n",
                    "colossal_error_replies_by_kind_total{kind=\"EXECABORT\"} 2\n",
                    "# TYPE colossal_command_seconds_total counter\n")) {
                assertTrue(metrics.contains(series), series + " in\n" + metrics);
            }
            assertFalse(metrics.contains("{command=\"hello\"}"), "a command never sent has no series");
            try (Wire w = new Wire(server.port())) {
                assertFalse(w.call("INFO").contains("cmdstat_"), "not among the default sections, as in Redis");
                assertEquals("+OK\r\n", w.call("CONFIG", "RESETSTAT"));
                String after = w.call("INFO", "commandstats");
                assertFalse(after.contains("cmdstat_get"), after);
                assertTrue(after.contains("cmdstat_config|resetstat:calls=1,"), after);
            }
        }
        TestServers.onRedis(port -> assertEquals(want, counts(port), "redis-server's"));
    }

    /**
     * Runs {@link #SCRIPT} on a new server; @return its commandstats, without the times, INFO and PING
     * (the start-up check), and its errorstats
     */
    private static Map<String, String> counts(int port) throws Exception {
        try (Wire w = new Wire(port)) {
            for (List<String> command : SCRIPT) {
                w.call(command.toArray(String[]::new));
            }
            Map<String, String> counts = new TreeMap<>();
            for (String line : w.call("INFO", "commandstats", "errorstats").split("\r\n")) {
                if (line.startsWith("errorstat_")) {
                    counts.put(line.substring(0, line.indexOf(':')), line.substring(line.indexOf(':') + 1));
                } else if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:") && !line.startsWith("cmdstat_ping:")) {
                    String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                    counts.put(name, line.substring(line.indexOf(':') + 1).replaceAll("usec=\\d+,usec_per_call=[\\d.]+,", ""));
                }
            }
            return counts;
        }
    }
}
