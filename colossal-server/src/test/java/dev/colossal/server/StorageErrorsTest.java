package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.map.BytesMap;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Error replies for what goes wrong under a command (a full disk, a value another program wrote, a
 * bug) name a Redis error class first, as clients branch on it, and no Java class (the trial:
 * {@code -ERR UncheckedIOException: ...}, {@code -ERR IllegalStateException: ...}).
 */
class StorageErrorsTest {

    @TempDir
    Path dir;

    /**
     * A map file that cannot grow (a child server under {@code ulimit -f}, which fails writes past
     * the limit as a full disk does): OOM, as Redis answers a write refused at maxmemory, naming
     * the file; HTTP 507; reads go on; INFO shows the file's size and the free space.
     */
    @Test
    void aFullDiskIsOomNamingTheFile() throws Exception {
        int port = TestServers.freePort();
        int httpPort = TestServers.freePort();
        Path data = dir.resolve("data");
        Path log = dir.resolve("server.log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        // 8 MiB in 1 KiB blocks; the JVM ignores SIGXFSZ, so the growing write fails with EFBIG.
        String cmd = "ulimit -f 8192 && exec '" + java + "' -cp '" + System.getProperty("java.class.path")
                + "' dev.colossal.cli.Main serve --port " + port + " --http-port " + httpPort + " --data '" + data + "'";
        Process server = new ProcessBuilder("bash", "-c", cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            TestServers.awaitPong(port, server, log);
            try (Wire w = new Wire(port)) {
                String value = "x".repeat(100_000);
                String reply = "+OK\r\n";
                int stored = 0;
                while (reply.equals("+OK\r\n") && stored < 200) {
                    reply = w.call("SET", "k" + stored, value);
                    stored += reply.equals("+OK\r\n") ? 1 : 0;
                }
                Path file = data.resolve(MapStore.FILE_NAME);
                assertTrue(stored > 10 && stored < 200, "stored=" + stored);
                assertTrue(reply.startsWith("-OOM map file=" + file + " could not grow: ") && reply.contains("free disk space"),
                        reply);
                assertFalse(reply.contains("Exception"), reply);
                System.out.println("full disk: " + reply.strip());
                assertEquals("$100000\r\n", w.call("GET", "k0").substring(0, 9), "reads go on");

                String info = w.call("INFO", "persistence");
                assertTrue(info.contains("\r\ncolossal_map_file:" + file + "\r\n"), info);
                long size = Long.parseLong(field(info, "colossal_map_file_bytes"));
                assertTrue(size > 1_000_000 && size <= 8192 * 1024, info);
                assertTrue(Long.parseLong(field(info, "colossal_disk_free_bytes")) >= 0, info);

                HttpResponse<String> put = HttpClient.newHttpClient().send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/v1/keys/big"))
                                .PUT(HttpRequest.BodyPublishers.ofString(value)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(507, put.statusCode(), put.body());
                assertTrue(put.body().startsWith("{\"error\":\"OOM map file=" + file + " could not grow: "), put.body());

                // The operator reads the log, not the clients' replies: said once, then at most once a minute.
                for (int i = 0; i < 5; i++) {
                    assertTrue(w.call("SET", "more" + i, value).startsWith("-OOM "));
                }
                String said = Files.readString(log);
                String line = "colossal: map file " + file + " could not grow (";
                int at = said.indexOf(line);
                assertTrue(at >= 0 && said.indexOf(line, at + line.length()) < 0, said);
                assertTrue(said.contains("1 write(s) refused with -OOM (HTTP 507) since start"), said);
                assertEquals(7, Long.parseLong(field(w.call("INFO", "persistence"), "colossal_writes_refused_no_room")));
                HttpResponse<String> metrics = HttpClient.newHttpClient().send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertTrue(metrics.body().contains("\ncolossal_writes_refused_no_room_total 7\n")
                        && metrics.body().contains("\ncolossal_map_file_bytes "), metrics.body());
            }
        } finally {
            server.destroy();
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "SIGTERM stops the server");
        }
    }

    /**
     * EXPIRE on a full disk: the key's entry is written anew, 8 bytes longer, so some keys find no
     * room. Redis accepts EXPIRE at maxmemory; here the refusal says why and what frees space, and
     * the key is left as it was (the trial: a bare "could not grow" for about a third of the keys).
     */
    @Test
    void anExpiryOnAFullDiskSaysWhyItNeedsRoom() throws Exception {
        int port = TestServers.freePort();
        Path data = dir.resolve("data");
        Path log = dir.resolve("server.log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        String cmd = "ulimit -f 4096 && exec '" + java + "' -cp '" + System.getProperty("java.class.path")
                + "' dev.colossal.cli.Main serve --port " + port + " --http-port -1 --data '" + data + "'";
        Process server = new ProcessBuilder("bash", "-c", cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            TestServers.awaitPong(port, server, log);
            try (Wire w = new Wire(port)) {
                String value = "x".repeat(3000);
                int stored = 0;
                while (w.call("SET", "k" + stored, value).equals("+OK\r\n")) {
                    stored++;
                }
                Path file = data.resolve(MapStore.FILE_NAME);
                String refusal = null;
                int refused = 0;
                for (int i = 0; i < stored; i++) {
                    String reply = w.call("EXPIRE", "k" + i, "1000");
                    if (!reply.equals(":1\r\n")) {
                        refused++;
                        refusal = reply;
                        assertEquals(":-1\r\n", w.call("TTL", "k" + i), "a refused key keeps no TTL");
                        assertEquals("$3000\r\n", w.call("GET", "k" + i).substring(0, 7), "and its value");
                    }
                }
                assertTrue(refused > 0, "a full disk refuses some of " + stored + " expiries");
                assertEquals("-OOM no room to add the expiry: the key is written anew with it, 8 bytes longer, and map file="
                        + file + " could not grow (File too large); DEL or FLUSHALL free space at once (so does an EXPIRE"
                        + " in the past), or free disk space\r\n", refusal);
                System.out.println("expiry on a full disk: " + refused + " of " + stored + " refused: " + refusal.strip());
                assertEquals(":1\r\n", w.call("EXPIRE", "k0", "-1"), "an EXPIRE in the past deletes, full disk or not");
                assertEquals(":0\r\n", w.call("EXISTS", "k0"));
            }
        } finally {
            server.destroy();
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "SIGTERM stops the server");
        }
    }

    /** A value a program put into the server's map file itself, in no format of the server's. */
    @Test
    void aValueNotInTheServersFormatIsWrongType() throws Exception {
        try (BytesMap map = BytesMap.open(dir.resolve(MapStore.FILE_NAME))) {
            map.put("foreign".getBytes(StandardCharsets.UTF_8), "hello".getBytes(StandardCharsets.UTF_8));
        }
        try (ColossalServer s = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
             Wire w = new Wire(s.port())) {
            String wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value: its stored bytes "
                    + "(length=5 flags=104) are not in this server's format; was the map written by another program?\r\n";
            assertEquals(wrongType, w.call("GET", "foreign"));
            assertEquals(wrongType, w.call("APPEND", "foreign", "x"));
            HttpResponse<String> get = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/foreign")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(500, get.statusCode());
            assertTrue(get.body().startsWith("{\"error\":\"WRONGTYPE "), get.body());
        }
    }

    /** Anything else thrown under a command (a bug) keeps its message; the class only stands in for a missing one. */
    @Test
    void otherFailuresAreErrWithTheirMessage() throws Exception {
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        try (ColossalServer s = ColossalServer.start(config, t -> {
            t.add("boom", 1, List.of(), 0, 0, 0, (c, a, r) -> {
                throw new IllegalStateException("reply length=3000000000 exceeds 2 GiB");
            });
            t.add("npe", 1, List.of(), 0, 0, 0, (c, a, r) -> {
                throw new NullPointerException();
            });
        }); Wire w = new Wire(s.port())) {
            assertEquals("-ERR reply length=3000000000 exceeds 2 GiB\r\n", w.call("BOOM"));
            assertEquals("-ERR internal error (NullPointerException)\r\n", w.call("NPE"));
            assertEquals("+PONG\r\n", w.call("PING"), "the connection goes on");
        }
    }

    private static String field(String info, String name) {
        int at = info.indexOf("\r\n" + name + ":");
        assertTrue(at >= 0, name + " not in " + info);
        int from = at + name.length() + 3;
        return info.substring(from, info.indexOf("\r\n", from));
    }
}
