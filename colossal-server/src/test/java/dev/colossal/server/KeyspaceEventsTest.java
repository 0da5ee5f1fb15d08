package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keyspace notifications against redis-server 7: each command of {@code keyspace-events.txt} is
 * sent to both servers, and what a subscriber to {@code __key*__:*} receives for it must be the
 * same bytes. A subscriber's messages for a step are those before the answer to its
 * {@code PING sentinel-N} sent after the step's reply: both servers publish an event before they
 * answer the command that made it, and deliver a subscriber's waiting messages before its next reply.
 */
class KeyspaceEventsTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "notify-keyspace-events {0}")
    @ValueSource(strings = {"KEA", "Kg$h", "Ex", "E$", "gE", "En", "KEAn"})
    void everyCommandPublishesTheEventsRedisPublishes(String classes) throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer server = TestServers.colossal(dir);
                Wire theirCmd = new Wire(redisPort);
                Wire ourCmd = new Wire(server.port());
                Wire theirSub = new Wire(redisPort);
                Wire ourSub = new Wire(server.port())) {
            assertEquals(theirCmd.call("CONFIG", "SET", "notify-keyspace-events", classes),
                    ourCmd.call("CONFIG", "SET", "notify-keyspace-events", classes));
            assertEquals(theirCmd.call("CONFIG", "GET", "notify-keyspace-events"),
                    ourCmd.call("CONFIG", "GET", "notify-keyspace-events"));
            assertEquals(theirSub.call("PSUBSCRIBE", "__key*__:*"), ourSub.call("PSUBSCRIBE", "__key*__:*"));
            List<String> done = new ArrayList<>();
            int sentinel = 0;
            for (String line : commands()) {
                byte[] l8 = line.getBytes(StandardCharsets.UTF_8);
                byte[] frame = Wire.encode(RequestParser.splitArgs(l8, 0, l8.length));
                done.add(line);
                theirCmd.send(frame);
                ourCmd.send(frame);
                assertEquals(theirCmd.reply(), ourCmd.reply(), line);
                String mark = "sentinel-" + sentinel++;
                assertEquals(show(events(theirSub, mark)), show(events(ourSub, mark)),
                        "events after:\n  " + String.join("\n  ", done.subList(Math.max(0, done.size() - 5), done.size())));
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    @Test
    void aKeyThatExpiresPublishesExpiredOnce() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir);
                Wire cmd = new Wire(server.port());
                Wire sub = new Wire(server.port())) {
            assertEquals("+OK\r\n", cmd.call("CONFIG", "SET", "notify-keyspace-events", "Ex"));
            sub.call("SUBSCRIBE", "__keyevent@0__:expired");
            cmd.call("SET", "swept", "v", "PX", "50");
            cmd.call("SET", "read", "v", "PX", "50");
            cmd.call("SET", "kept", "v", "EX", "100");
            Thread.sleep(80);
            assertEquals("$-1\r\n", cmd.call("GET", "read")); // removed by this read, or by the sweeper before it
            List<String> got = new ArrayList<>();
            got.add(sub.reply());
            got.add(sub.reply());
            got.sort(null);
            assertEquals(List.of(message("__keyevent@0__:expired", "read"), message("__keyevent@0__:expired", "swept")), got);
            assertEquals("", events(sub, "after"), "each expiry is published once");
        }
    }

    @Test
    void offUntilSetAndOffAgainAfterClearing() throws Exception {
        try (ColossalServer server = TestServers.colossal(dir);
                Wire cmd = new Wire(server.port());
                Wire sub = new Wire(server.port())) {
            sub.call("PSUBSCRIBE", "__key*__:*");
            cmd.call("SET", "a", "1");
            assertEquals("", events(sub, "default"));
            assertEquals("+OK\r\n", cmd.call("CONFIG", "SET", "notify-keyspace-events", "K$"));
            cmd.call("SET", "a", "2");
            cmd.call("DEL", "a"); // generic: not asked for
            assertEquals("*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$16\r\n__keyspace@0__:a\r\n$3\r\nset\r\n",
                    events(sub, "on"));
            assertEquals("+OK\r\n", cmd.call("CONFIG", "SET", "notify-keyspace-events", ""));
            cmd.call("SET", "a", "3");
            assertEquals("", events(sub, "off"));
            assertTrue(cmd.call("CONFIG", "SET", "notify-keyspace-events", "KEm").startsWith("-ERR CONFIG SET"
                    + " notify-keyspace-events: this server does not publish key-miss (m) events"));
            assertEquals("*2\r\n$22\r\nnotify-keyspace-events\r\n$0\r\n\r\n",
                    cmd.call("CONFIG", "GET", "notify-keyspace-events"), "a refused value sets nothing");
        }
    }

    @Test
    void writesOverHttpPublishWhatSetAndDelPublish() throws Exception {
        try (ColossalServer server = ColossalServer.start(ServerConfig.defaults().withDataDir(dir).withPorts(0, 0));
                Wire cmd = new Wire(server.port());
                Wire sub = new Wire(server.port())) {
            cmd.call("CONFIG", "SET", "notify-keyspace-events", "KA");
            sub.call("PSUBSCRIBE", "__keyspace@0__:*");
            HttpClient http = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/keys/web?ttl=100");
            assertEquals(204, http.send(HttpRequest.newBuilder(uri).PUT(HttpRequest.BodyPublishers.ofString("v")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            assertEquals(204, http.send(HttpRequest.newBuilder(uri).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            String channel = "__keyspace@0__:web";
            assertEquals(pmessage("__keyspace@0__:*", channel, "set") + pmessage("__keyspace@0__:*", channel, "expire")
                    + pmessage("__keyspace@0__:*", channel, "del"), events(sub, "http"));
        }
    }

    private static List<String> commands() throws IOException {
        try (InputStream in = KeyspaceEventsTest.class.getResourceAsStream("/keyspace-events.txt")) {
            List<String> out = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    out.add(l);
                }
            }
            return out;
        }
    }

    /** @return the messages {@code sub} received before the answer to {@code PING mark}, expired ones left out */
    private static String events(Wire sub, String mark) throws IOException {
        sub.send(Wire.encode("PING", mark));
        StringBuilder before = new StringBuilder();
        for (String frame = sub.reply(); !frame.contains(mark); frame = sub.reply()) {
            if (!frame.contains("expired")) {
                before.append(frame);
            }
        }
        return before.toString();
    }

    private static String message(String channel, String payload) {
        return "*3\r\n$7\r\nmessage\r\n$" + channel.length() + "\r\n" + channel + "\r\n$" + payload.length() + "\r\n"
                + payload + "\r\n";
    }

    private static String pmessage(String pattern, String channel, String payload) {
        return "*4\r\n$8\r\npmessage\r\n$" + pattern.length() + "\r\n" + pattern + "\r\n$" + channel.length() + "\r\n"
                + channel + "\r\n$" + payload.length() + "\r\n" + payload + "\r\n";
    }

    private static String show(String resp) {
        return resp.replace("\r\n", " ");
    }
}
