package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTP endpoints, SCAN's full-iteration guarantee, and the limits: password, max clients, idle timeout. */
class HttpAndLimitsTest {

    @TempDir
    Path dir;

    private static ServerConfig config(Path dir) {
        return ServerConfig.defaults().withDataDir(dir).withPorts(0, 0);
    }

    @Test
    void httpKeysStatsMetricsAndHealth() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir))) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.httpPort();
            byte[] binary = {0, 1, '\r', '\n', (byte) 0xff};
            var put = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/a%0Db?ttl=100"))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(binary)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(204, put.statusCode());
            var get = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/a%0Db")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, get.statusCode());
            assertArrayEquals(binary, get.body());
            assertTrue(Long.parseLong(get.headers().firstValue("X-TTL-Millis").orElseThrow()) > 90_000);
            try (Wire w = new Wire(s.port())) { // the same data over RESP
                assertArrayEquals(new byte[] {'$', '5', '\r', '\n', 0, 1, '\r', '\n', (byte) 0xff, '\r', '\n'},
                        w.call("GET".getBytes(), new byte[] {'a', '\r', 'b'}));
                w.call("SET", "user:1", "x");
                w.call("SET", "user:2", "y");
            }
            String scan = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys?prefix=user:")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(scan.contains("\"user:1\"") && scan.contains("\"user:2\"") && !scan.contains("a\\r"), scan);
            assertEquals(204, http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/user:1")).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(base + "/v1/keys/user:1")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            String stats = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/stats")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(stats.contains("\"keys\":2"), stats);
            String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("# TYPE colossal_keys gauge\ncolossal_keys 2\n"), metrics);
            assertEquals("ok\n", http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        }
    }

    @Test
    void httpListingFillsPagesWithKeysOfTheRarePrefix() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Wire w = new Wire(s.port())) {
            List<String> mset = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < 5000; i++) {
                mset.add(i % 100 == 0 ? "user:" + i : "other:" + i);
                mset.add("v");
            }
            assertEquals("+OK\r\n", w.call(mset.toArray(String[]::new)));
            HttpClient http = HttpClient.newHttpClient();
            Set<String> seen = new HashSet<>();
            String cursor = "0";
            int pages = 0;
            do {
                String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort()
                        + "/v1/keys?prefix=user:&count=10&cursor=" + cursor)).build(), HttpResponse.BodyHandlers.ofString()).body();
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"(user:[0-9]+)\"").matcher(body);
                int onPage = 0;
                while (m.find()) {
                    assertTrue(seen.add(m.group(1)), "listed twice: " + m.group(1));
                    onPage++;
                }
                cursor = body.substring(body.indexOf("\"cursor\":\"") + 10, body.indexOf("\",\"keys\""));
                pages++;
                assertTrue(onPage >= 10 || cursor.equals("0"), "a page short of count before the end: " + body);
                assertTrue(onPage <= 10, "a page longer than count: " + body);
            } while (!cursor.equals("0"));
            assertEquals(50, seen.size());
            assertTrue(pages <= 6, "pages=" + pages);
        }
    }

    /** The trial: count=3 gave 5 keys, count=100 221, count=20000 10010 (a step's keys came whole). */
    @Test
    void httpListingPagesHoldCountKeysAndListEachKeyOnce() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Wire w = new Wire(s.port())) {
            for (int batch = 0; batch < 21; batch++) {
                List<String> mset = new ArrayList<>(List.of("MSET"));
                for (int i = batch * 500; i < (batch + 1) * 500; i++) {
                    mset.add("ack:" + i);
                    mset.add("v");
                }
                assertEquals("+OK\r\n", w.call(mset.toArray(String[]::new)));
            }
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.httpPort() + "/v1/keys?";
            // ack:1 holds 1611 keys of the 10,500, ack:2 1111.
            Object[][] cases = {{"ack:1", 1}, {"ack:2", 3}, {"ack:2", 7}, {"", 100}, {"", 20_000}};
            for (Object[] c : cases) {
                String prefix = (String) c[0];
                int count = (int) c[1];
                int want = Math.min(count, 10_000);
                Set<String> seen = new HashSet<>();
                String cursor = "0";
                do {
                    String body = http.send(HttpRequest.newBuilder(URI.create(base + "prefix=" + prefix + "&count=" + count
                            + "&cursor=" + cursor)).build(), HttpResponse.BodyHandlers.ofString()).body();
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"(ack:[0-9]+)\"").matcher(body);
                    int onPage = 0;
                    while (m.find()) {
                        assertTrue(m.group(1).startsWith(prefix), body);
                        assertTrue(seen.add(m.group(1)), "listed twice: " + m.group(1) + " (count=" + count + ")");
                        onPage++;
                    }
                    cursor = body.substring(body.indexOf("\"cursor\":\"") + 10, body.indexOf("\",\"keys\""));
                    assertTrue(onPage <= want, onPage + " keys on a page of count=" + count);
                    assertTrue(onPage == want || cursor.equals("0"), "a page short of count=" + count + " before the end: " + body);
                } while (!cursor.equals("0"));
                long expected = java.util.stream.IntStream.range(0, 10_500).filter(i -> ("ack:" + i).startsWith(prefix)).count();
                assertEquals(expected, seen.size(), "prefix=" + prefix + " count=" + count);
            }
            for (String bad : new String[] {"abc", "12.%21%21", "-1"}) {
                var r = http.send(HttpRequest.newBuilder(URI.create(base + "cursor=" + bad)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(400, r.statusCode(), bad + ": " + r.body());
            }
        }
    }

    @Test
    void scanVisitsEveryKeyExactlyOnceWhenNothingChanges() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            for (int i = 0; i < 1000; i++) {
                w.call("SET", "s" + i, "v");
            }
            Set<String> seen = new HashSet<>();
            String cursor = "0";
            int calls = 0;
            do {
                String reply = w.call("SCAN", cursor, "COUNT", "37");
                String[] lines = reply.split("\r\n");
                cursor = lines[2];
                for (int i = 5; i < lines.length; i += 2) {
                    assertTrue(seen.add(lines[i]), "returned twice: " + lines[i]);
                }
                calls++;
            } while (!cursor.equals("0"));
            assertEquals(1000, seen.size());
            assertTrue(calls >= 1000 / 37, "calls=" + calls);
            assertTrue(w.call("SCAN", "0", "MATCH", "s99*", "COUNT", "5000").contains("$3\r\ns99\r\n"));
        }
    }

    @Test
    void requirepassGatesEverythingButHelloAuthAndQuit() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir).withRequirePass("sesame").withPorts(0, -1));
             Wire w = new Wire(s.port())) {
            assertEquals("-NOAUTH Authentication required.\r\n", w.call("GET", "k"));
            assertEquals("-ERR wrong number of arguments for 'get' command\r\n", w.call("GET"));
            assertTrue(w.call("HELLO", "3").startsWith("-NOAUTH HELLO must be called"));
            assertEquals("-WRONGPASS invalid username-password pair or user is disabled.\r\n", w.call("AUTH", "nope"));
            assertEquals("+OK\r\n", w.call("AUTH", "sesame"));
            assertEquals("+OK\r\n", w.call("SET", "k", "v"));
            try (Wire w2 = new Wire(s.port())) {
                assertTrue(w2.call("HELLO", "3", "AUTH", "default", "sesame").startsWith("%7"));
                assertEquals("$1\r\nv\r\n", w2.call("GET", "k"));
            }
        }
    }

    /** With a password, ACL LIST and GETUSER show its SHA-256 as redis-server started with the same requirepass does. */
    @Test
    void aclShowsTheDefaultUsersPasswordAsRedisDoes() throws Exception {
        int port = TestServers.freePort();
        Process redis = TestServers.redis(port, "--requirepass", "sesame");
        org.junit.jupiter.api.Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer s = ColossalServer.start(config(dir).withRequirePass("sesame").withPorts(0, -1));
             Wire ours = new Wire(s.port()); Wire theirs = new Wire(port)) {
            for (Wire w : List.of(ours, theirs)) {
                assertEquals("+OK\r\n", w.call("AUTH", "sesame"));
            }
            for (String[] cmd : List.of(new String[] {"ACL", "LIST"}, new String[] {"ACL", "GETUSER", "default"},
                    new String[] {"ACL", "WHOAMI"}, new String[] {"ACL", "DRYRUN", "default", "set", "k", "v"})) {
                assertEquals(theirs.call(cmd), ours.call(cmd), String.join(" ", cmd));
            }
            assertTrue(ours.call("ACL", "LIST").contains("#" + java.util.HexFormat.of().formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest("sesame".getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    @Test
    void maxClientsAndIdleTimeout() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir).withPorts(0, -1).withLimits(2, 1024 * 1024, 1))) {
            try (Wire a = new Wire(s.port()); Wire b = new Wire(s.port())) {
                assertEquals("+PONG\r\n", a.call("PING"));
                assertEquals("+PONG\r\n", b.call("PING"));
                try (Wire c = new Wire(s.port())) {
                    assertEquals("-ERR max number of clients reached\r\n", c.reply());
                }
                long t0 = System.nanoTime();
                assertTrue(a.closedByServer(), "idle connection closed");
                assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
            }
            try (Wire w = new Wire(s.port())) {
                w.send("*2\r\n$3\r\nGET\r\n$2000000\r\n".getBytes());
                assertEquals("-ERR Protocol error: invalid bulk length\r\n", w.reply());
            }
        }
    }

    /** maxclients is set at run time, as in Redis: connections past it are refused from then on, those in stay. */
    @Test
    void maxClientsChangesAtRunTime() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir).withPorts(0, -1).withLimits(2, 1024 * 1024, 0));
             Wire a = new Wire(s.port()); Wire b = new Wire(s.port())) {
            assertEquals("+PONG\r\n", b.call("PING"));
            try (Wire c = new Wire(s.port())) {
                assertEquals("-ERR max number of clients reached\r\n", c.reply());
            }
            assertEquals("+OK\r\n", a.call("CONFIG", "SET", "maxclients", "3"));
            assertEquals("*2\r\n$10\r\nmaxclients\r\n$1\r\n3\r\n", a.call("CONFIG", "GET", "maxclients"));
            assertTrue(a.call("INFO", "clients").contains("\r\nmaxclients:3\r\n"));
            try (Wire c = new Wire(s.port())) {
                assertEquals("+PONG\r\n", c.call("PING"), "a third client now");
                try (Wire d = new Wire(s.port())) {
                    assertEquals("-ERR max number of clients reached\r\n", d.reply());
                }
                assertEquals("-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between"
                        + " 1 and 4294967295 inclusive\r\n", a.call("CONFIG", "SET", "maxclients", "0"));
                assertEquals("+OK\r\n", a.call("CONFIG", "SET", "maxclients", "1"));
                assertEquals("+PONG\r\n", c.call("PING"), "those in stay");
            }
        }
    }

    private static HttpResponse<String> http(ColossalServer s, String method, String path, String token)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void headIsAnsweredLikeGetWithoutABodyOrAWarningInTheLog() throws Exception {
        Logger jdk = Logger.getLogger("com.sun.net.httpserver");
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(r);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        jdk.addHandler(handler);
        try (ColossalServer s = ColossalServer.start(config(dir))) {
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.httpPort() + "/v1/keys/k"))
                    .PUT(HttpRequest.BodyPublishers.ofString("hello")).build(), HttpResponse.BodyHandlers.discarding());
            HttpResponse<String> head = http(s, "HEAD", "/v1/keys/k", null);
            assertEquals(List.of(), warnings.stream().map(LogRecord::getMessage).toList());
            assertEquals(200, head.statusCode());
            assertEquals("5", head.headers().firstValue("Content-Length").orElseThrow());
            assertEquals("", head.body());
            assertEquals(404, http(s, "HEAD", "/v1/keys/absent", null).statusCode());
            assertEquals(200, http(s, "HEAD", "/health", null).statusCode());
            assertEquals(List.of(), warnings.stream().map(LogRecord::getMessage).toList());
        } finally {
            jdk.removeHandler(handler);
        }
    }

    @Test
    void deletingAnAbsentKeyAnswersJsonAsGettingOneDoes() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir))) {
            HttpResponse<String> get = http(s, "GET", "/v1/keys/absent", null);
            HttpResponse<String> delete = http(s, "DELETE", "/v1/keys/absent", null);
            assertEquals(404, delete.statusCode());
            assertEquals("{\"error\":\"no such key\"}", delete.body());
            assertEquals(get.body(), delete.body());
            assertEquals("application/json", delete.headers().firstValue("Content-Type").orElseThrow());
        }
    }

    @Test
    void aWrongBearerTokenIsWrongpassAsOverRespAMissingOneNoauth() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir).withRequirePass("sesame"))) {
            HttpResponse<String> wrong = http(s, "GET", "/v1/keys/k", "nope");
            assertEquals(401, wrong.statusCode());
            assertEquals("{\"error\":\"" + Errors.WRONGPASS + "\"}", wrong.body());
            HttpResponse<String> missing = http(s, "GET", "/v1/keys/k", null);
            assertEquals(401, missing.statusCode());
            assertEquals("{\"error\":\"" + Errors.NOAUTH + "\"}", missing.body());
            assertEquals(404, http(s, "GET", "/v1/keys/k", "sesame").statusCode());
        }
    }

    @Test
    void aPlusInAKeyPathIsAPlusNotASpace() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Wire w = new Wire(s.port())) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.httpPort() + "/v1/keys/";
            assertEquals(204, http.send(HttpRequest.newBuilder(URI.create(base + "a+b")).PUT(HttpRequest.BodyPublishers.ofString("q"))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode());
            assertEquals("$1\r\nq\r\n", w.call("GET", "a+b"));
            assertEquals("$-1\r\n", w.call("GET", "a b"));
            assertEquals("+OK\r\n", w.call("SET", "c+d", "v"));
            assertEquals("+OK\r\n", w.call("SET", "e f", "w"));
            assertEquals("v", http(s, "GET", "/v1/keys/c+d", null).body());
            assertEquals("v", http(s, "GET", "/v1/keys/c%2Bd", null).body());
            assertEquals("w", http(s, "GET", "/v1/keys/e%20f", null).body());
            // In a query string + is a space, as forms encode it.
            assertTrue(http(s, "GET", "/v1/keys?prefix=e+", null).body().contains("\"e f\""));
        }
    }

    /**
     * The empty key, as legal as any in Redis ({@code SET "" v}), is {@code /v1/keys/} with nothing
     * after the slash. The trial: the listing gave it as "", and every way to read, write or
     * delete it answered "no such endpoint".
     */
    @Test
    void theEmptyKeyIsTheKeysPathWithNothingAfterTheSlash() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Wire w = new Wire(s.port())) {
            assertEquals("+OK\r\n", w.call("SET", "", "over resp"));
            assertEquals("over resp", http(s, "GET", "/v1/keys/", null).body());
            assertEquals("9", http(s, "HEAD", "/v1/keys/", null).headers().firstValue("Content-Length").orElseThrow());
            assertEquals("{\"cursor\":\"0\",\"keys\":[\"\"]}", http(s, "GET", "/v1/keys?prefix=", null).body());
            HttpResponse<Void> put = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + s.httpPort() + "/v1/keys/")).PUT(HttpRequest.BodyPublishers.ofString("over http")).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertEquals(204, put.statusCode());
            assertEquals("$9\r\nover http\r\n", w.call("GET", ""));
            assertEquals(204, http(s, "DELETE", "/v1/keys/", null).statusCode());
            assertEquals(":0\r\n", w.call("EXISTS", ""));
            String absent = "{\"error\":\"no such key: /v1/keys/ is the empty key; the listing is /v1/keys\"}";
            for (String method : List.of("GET", "DELETE")) {
                HttpResponse<String> r = http(s, method, "/v1/keys/", null);
                assertEquals(404, r.statusCode(), method);
                assertEquals(absent, r.body(), method);
            }
            assertEquals("{\"cursor\":\"0\",\"keys\":[]}", http(s, "GET", "/v1/keys", null).body());
        }
    }

    @Test
    void aListingCountBelowOneIsRefusedAsOtherBadParametersAre() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir))) {
            for (String count : new String[] {"0", "-1"}) {
                HttpResponse<String> r = http(s, "GET", "/v1/keys?count=" + count, null);
                assertEquals(400, r.statusCode(), count);
                assertEquals("{\"error\":\"count=" + count + " must be a positive number of keys\"}", r.body());
                assertEquals("application/json", r.headers().firstValue("Content-Type").orElseThrow());
            }
            assertEquals(400, http(s, "GET", "/v1/keys?count=x", null).statusCode());
            assertEquals(200, http(s, "GET", "/v1/keys?count=1", null).statusCode());
        }
    }

    @Test
    void errorsQuoteWhatTheyEcho() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir))) {
            HttpResponse<String> r = http(s, "GET", "/v1/nope%22x", null);
            assertEquals(404, r.statusCode());
            assertEquals("{\"error\":\"no such endpoint: GET /v1/nope%22x; there are /v1/keys/KEY, /v1/keys?prefix=P,"
                    + " /v1/stats, /metrics and /health\"}", r.body(), "names the endpoints there are");
            HttpResponse<String> patch = http(s, "PATCH", "/v1/keys/k", null);
            assertEquals(405, patch.statusCode());
            assertEquals("GET, HEAD, PUT, DELETE", patch.headers().firstValue("Allow").orElseThrow());
            assertEquals("{\"error\":\"method PATCH not allowed on /v1/keys/k; use GET, HEAD, PUT or DELETE\"}", patch.body());
        }
    }

    /** The trial: {@code DELETE /v1/keys?prefix=} and {@code PUT /v1/stats} answered 404, as for a path that is not there. */
    @Test
    void aMethodAKnownPathDoesNotTakeIs405WithAllow() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir))) {
            String[][] cases = {{"DELETE", "/v1/keys?prefix=user:"}, {"PUT", "/v1/stats"}, {"POST", "/metrics"},
                {"DELETE", "/health"}, {"POST", "/v1/keys"}};
            for (String[] c : cases) {
                HttpResponse<String> r = http(s, c[0], c[1], null);
                String path = c[1].replaceAll("\\?.*", "");
                assertEquals(405, r.statusCode(), c[0] + " " + c[1]);
                assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElseThrow(), c[0] + " " + c[1]);
                assertEquals("{\"error\":\"method " + c[0] + " not allowed on " + path + "; use GET or HEAD\"}", r.body());
                assertEquals("application/json", r.headers().firstValue("Content-Type").orElseThrow());
            }
            assertEquals(200, http(s, "GET", "/v1/stats", null).statusCode());
            assertEquals(200, http(s, "HEAD", "/metrics", null).statusCode());
            assertEquals(404, http(s, "PUT", "/v1/nothing", null).statusCode());
        }
    }

    /** The trial: count=20000 gave 10,000 keys and no sign that the count was cut. */
    @Test
    void aListingCountAboveTheMaximumIsCutAndTheAnswerSaysSo() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Wire w = new Wire(s.port())) {
            List<String> mset = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < 10_050; i++) {
                mset.add("c" + i);
                mset.add("v");
            }
            assertEquals("+OK\r\n", w.call(mset.toArray(String[]::new)));
            for (String count : new String[] {"10001", "20000", "3000000000"}) {
                HttpResponse<String> r = http(s, "GET", "/v1/keys?count=" + count, null);
                assertEquals(200, r.statusCode(), count);
                assertEquals("10000", r.headers().firstValue("X-Count-Limit").orElseThrow(), count);
                assertEquals(10_000, r.body().split("\"c[0-9]+\"", -1).length - 1, count);
            }
            assertTrue(http(s, "GET", "/v1/keys?count=10000", null).headers().firstValue("X-Count-Limit").isEmpty());
        }
    }

    /**
     * The trial: {@code X-TTL-Millis}, the header a GET answers with, was ignored on PUT, and the key
     * stored without a TTL. It is a TTL in milliseconds; other X-TTL- headers and two TTLs are refused.
     */
    @Test
    void aPutTakesItsTtlInMillisecondsTooAndRefusesTtlHeadersItDoesNotRead() throws Exception {
        try (ColossalServer s = ColossalServer.start(config(dir)); Wire w = new Wire(s.port())) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.httpPort() + "/v1/keys/";
            java.util.function.BiFunction<String, String[], HttpResponse<String>> put = (key, headers) -> {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + key)).PUT(HttpRequest.BodyPublishers.ofString("v"));
                for (int i = 0; i < headers.length; i += 2) {
                    b.header(headers[i], headers[i + 1]);
                }
                try {
                    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            assertEquals(204, put.apply("ms", new String[] {"X-TTL-Millis", "90000"}).statusCode());
            long pttl = Long.parseLong(w.call("PTTL", "ms").substring(1).strip());
            assertTrue(pttl > 80_000 && pttl <= 90_000, "PTTL " + pttl);
            assertEquals(204, put.apply("lower", new String[] {"x-ttl-millis", "90000"}).statusCode());
            long lower = Long.parseLong(w.call("PTTL", "lower").substring(1).strip());
            assertTrue(lower > 80_000 && lower <= 90_000, "header names are case-insensitive: PTTL " + lower);
            assertEquals(204, put.apply("s", new String[] {"X-TTL-Seconds", "90"}).statusCode());
            assertEquals(":90\r\n", w.call("TTL", "s"));

            Object[][] refused = {
                {"m1", new String[] {"X-TTL-Minutes", "5"},
                    "header X-TTL-minutes is not one this API reads; give a TTL as X-TTL-Seconds, X-TTL-Millis or ?ttl=SECONDS"},
                {"m2?ttl=5", new String[] {"X-TTL-Millis", "5000"}, "a TTL is given as ?ttl= and X-TTL-Millis; give it once"},
                {"m3", new String[] {"X-TTL-Millis", "0"}, "X-TTL-Millis: 0 must be a positive number of milliseconds"},
                {"m4", new String[] {"X-TTL-Millis", "9223372036854775807"},
                    "X-TTL-Millis: 9223372036854775807 must be a positive number of milliseconds"},
                {"m5?ttl=x", new String[0], "ttl=x must be a positive number of seconds"},
            };
            for (Object[] c : refused) {
                HttpResponse<String> r = put.apply((String) c[0], (String[]) c[1]);
                assertEquals(400, r.statusCode(), r.body());
                assertEquals("{\"error\":\"" + c[2] + "\"}", r.body());
            }
            assertEquals(":0\r\n", w.call("EXISTS", "m1", "m2", "m3", "m4", "m5"), "nothing stored");
        }
    }
}
