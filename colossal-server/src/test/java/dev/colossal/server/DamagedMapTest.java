package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A map file with one damaged entry (the trial: a flipped byte, which the server does not look for
 * at start): reads of that key answer an error that names the file and {@code colossal repair};
 * KEYS, SCAN, the HTTP listing and expiry sweeps go on over every other key instead of failing
 * whole; stderr says so once.
 */
class DamagedMapTest {

    private static final int KEYS = 2000;
    private static final int EXPIRING = 200;

    @TempDir
    Path dir;

    @RegisterExtension
    final CapturedStderr stderr = new CapturedStderr();

    @Test
    void oneDamagedEntryFailsItsOwnReadsOnly() throws Exception {
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, 0);
        try (ColossalServer s = ColossalServer.start(config); Wire w = new Wire(s.port())) {
            List<String> mset = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < KEYS; i++) {
                mset.add("k" + i);
                mset.add("v" + i);
            }
            assertEquals("+OK\r\n", w.call(mset.toArray(String[]::new)));
            assertEquals("+OK\r\n", w.call("SET", "target", "the-damaged-value"));
            for (int i = 0; i < EXPIRING; i++) { // to expire once the damaged file is served again
                assertEquals("+OK\r\n", w.call("SET", "ttl" + i, "v", "PX", "1500"));
            }
        }
        Path file = dir.resolve(MapStore.FILE_NAME);
        byte[] content = Files.readAllBytes(file);
        int at = new String(content, StandardCharsets.ISO_8859_1).indexOf("the-damaged-value");
        assertTrue(at > 0);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~content[at + 3]}), at + 3);
        }

        try (ColossalServer s = ColossalServer.start(config); Wire w = new Wire(s.port())) {
            String repair = "run 'colossal repair " + file + "'";
            String get = w.call("GET", "target");
            assertTrue(get.startsWith("-ERR corrupt map file=" + file + " offset=") && get.contains(repair), get);
            assertFalse(get.contains("Exception"), get);
            assertEquals("$2\r\nv7\r\n", w.call("GET", "k7"));

            // The trial: KEYS and SCAN answered ERR MapCorruptedException for every call.
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < KEYS; i++) {
                expected.add("k" + i);
            }
            Set<String> keys = plain(bulks(w.call("KEYS", "*"), 2));
            assertListed(expected, keys, "KEYS");
            Set<String> scanned = new HashSet<>();
            String cursor = "0";
            do {
                String reply = w.call("SCAN", cursor, "COUNT", "10");
                assertTrue(reply.startsWith("*2\r\n"), reply);
                cursor = reply.split("\r\n")[2];
                for (String k : bulks(reply, 5)) {
                    assertTrue(scanned.add(k), "returned twice: " + k);
                }
            } while (!cursor.equals("0"));
            assertListed(expected, plain(scanned), "SCAN");

            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.httpPort();
            HttpResponse<String> damaged = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/target")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(500, damaged.statusCode());
            assertTrue(damaged.body().contains("colossal repair " + file) && !damaged.body().contains("Exception"),
                    damaged.body());
            Set<String> listed = new HashSet<>();
            cursor = "0";
            do {
                String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys?prefix=k&count=50&cursor=" + cursor))
                        .build(), HttpResponse.BodyHandlers.ofString()).body();
                Matcher m = Pattern.compile("\"(k[0-9]+)\"").matcher(body);
                while (m.find()) {
                    assertTrue(listed.add(m.group(1)), "listed twice: " + m.group(1));
                }
                cursor = body.substring(body.indexOf("\"cursor\":\"") + 10, body.indexOf("\",\"keys\""));
            } while (!cursor.equals("0"));
            assertListed(expected, listed, "the HTTP listing");

            // The trial: every sweep failed at the damage ("expiry sweep failed" every 10 s), so
            // expired keys past it stayed in the map.
            String dbsize = ":" + (KEYS + 1) + "\r\n";
            long deadline = System.nanoTime() + 15_000_000_000L;
            String now = w.call("DBSIZE");
            while (!now.equals(dbsize) && System.nanoTime() < deadline) {
                Thread.sleep(50);
                now = w.call("DBSIZE");
            }
            assertEquals(dbsize, now, "every expired key swept past the damaged entry");
        }
        String log = stderr.text();
        assertEquals(1, log.split("is damaged", -1).length - 1, "said once: " + log);
        assertTrue(log.contains("colossal repair " + file), log);
        assertFalse(log.contains("expiry sweep failed"), log);
    }

    /**
     * The trial: a write that met damage answered {@code -ERR corrupt ...} and stderr said nothing,
     * where the README promises the first damage met is said there once. Here the damage comes
     * after the start's sweep (a map without TTLs is not swept again), so only the command meets it:
     * a RESP write, a RESP read, an HTTP write, each the first in a server of its own.
     */
    @Test
    void aCommandThatMeetsDamageSaysSoOnStderrOnce() throws Exception {
        String[] firsts = {"SET", "GET", "PUT"};
        for (int run = 0; run < firsts.length; run++) {
            Path data = Files.createDirectories(dir.resolve(firsts[run]));
            ServerConfig config = ServerConfig.defaults().withDataDir(data).withPorts(0, 0);
            try (ColossalServer s = ColossalServer.start(config); Wire w = new Wire(s.port())) {
                for (int i = 0; i < 100; i++) {
                    assertEquals("+OK\r\n", w.call("SET", "k" + i, "v" + i));
                }
                assertEquals("+OK\r\n", w.call("SET", "target", "the-damaged-value"));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (s.context().sweeper.sweeps() < 1 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(1, s.context().sweeper.sweeps(), "the start's sweep, before the damage");
                Path file = data.resolve(MapStore.FILE_NAME);
                flipAByteOf("the-damaged-value", file); // under the running server, through the page cache
                String before = stderr.text();

                HttpClient http = HttpClient.newHttpClient();
                URI target = URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/target");
                for (int again = 0; again < 2; again++) {
                    String reply = switch (firsts[run]) {
                        case "SET" -> w.call("SET", "target", "new");
                        case "GET" -> w.call("GET", "target");
                        default -> http.send(HttpRequest.newBuilder(target).PUT(HttpRequest.BodyPublishers.ofString("new"))
                                .build(), HttpResponse.BodyHandlers.ofString()).body();
                    };
                    assertTrue(reply.contains("corrupt map file=" + file), firsts[run] + ": " + reply);
                }
                assertTrue(w.call("GET", "target").startsWith("-ERR corrupt"));
                assertEquals("$2\r\nv7\r\n", w.call("GET", "k7"));
                String said = stderr.text().substring(before.length());
                assertEquals(1, said.split("is damaged", -1).length - 1, firsts[run] + " first, said once: " + said);
                assertTrue(said.contains("colossal: map file " + file + " is damaged (offset=") && said.contains(
                        "run 'colossal repair " + file + "'"), said);
            }
        }
    }

    private static void flipAByteOf(String value, Path file) throws Exception {
        byte[] content = Files.readAllBytes(file);
        int at = new String(content, StandardCharsets.ISO_8859_1).indexOf(value);
        assertTrue(at > 0);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~content[at + 3]}), at + 3);
        }
    }

    /** Every key but the damaged one: the map's scan steps over the damaged entry alone. */
    private static void assertListed(Set<String> expected, Set<String> got, String what) {
        assertFalse(got.contains("target"), what + " listed the damaged key");
        Set<String> missing = new HashSet<>(expected);
        missing.removeAll(got);
        assertEquals(Set.of(), missing, what + " left keys out");
        assertTrue(expected.containsAll(got), what + " listed keys never stored: " + got);
    }

    /** The keys of a reply that lists bulk strings, the first at line {@code first}, every other line on. */
    private static List<String> bulks(String reply, int first) {
        String[] lines = reply.split("\r\n");
        List<String> out = new ArrayList<>();
        for (int i = first; i < lines.length; i += 2) {
            out.add(lines[i]);
        }
        return out;
    }

    /** Without the keys that had a TTL, which expire while the test runs. */
    private static Set<String> plain(java.util.Collection<String> keys) {
        Set<String> out = new HashSet<>(keys);
        out.removeIf(k -> k.startsWith("ttl"));
        return out;
    }
}
