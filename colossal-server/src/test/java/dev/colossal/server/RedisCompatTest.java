package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sends the same commands to redis-server 7 and to Colossal: the raw replies must be identical. */
class RedisCompatTest {

    @TempDir
    Path dir;

    @Test
    void repliesAndErrorTextsAreByteIdenticalToRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        List<String> lines = commandLines("/redis-compat.txt");
        List<String> diffs = new ArrayList<>();
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            r.call("FLUSHALL");
            for (String l : lines) {
                byte[] l8 = l.getBytes(StandardCharsets.UTF_8);
                byte[] cmd = Wire.encode(RequestParser.splitArgs(l8, 0, l8.length));
                r.send(cmd);
                o.send(cmd);
                // Bytes, not text: decoding both as UTF-8 would let a U+FFFD stand for any invalid byte
                byte[] want = r.readReply();
                byte[] got = o.readReply();
                if (!Arrays.equals(want, got)) {
                    diffs.add(l + "\n    redis:    " + show(want) + "\n    colossal: " + show(got));
                }
            }
            assertTrue(o.closedByServer(), "QUIT closes the connection");
        } finally {
            redis.destroy();
            redis.waitFor();
        }
        assertEquals("", String.join("\n", diffs), diffs.size() + " of " + lines.size() + " replies differ");
    }

    /** @return the lines of a test resource of commands, one a line, without blank and {@code #} comment lines */
    static List<String> commandLines(String resource) throws IOException {
        List<String> lines = new ArrayList<>();
        try (InputStream in = RedisCompatTest.class.getResourceAsStream(resource)) {
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    lines.add(l);
                }
            }
        }
        return lines;
    }

    private static String show(String reply) {
        return reply.replace("\r\n", "\\r\\n");
    }

    /** A raw reply for a diff: printable ASCII as it is, CR LF as {@code \r\n}, any other byte as {@code \xNN}. */
    private static String show(byte[] reply) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < reply.length; i++) {
            int b = reply[i] & 0xFF;
            if (b == '\r' && i + 1 < reply.length && reply[i + 1] == '\n') {
                s.append("\\r\\n");
                i++;
            } else if (b >= 0x20 && b < 0x7F) {
                s.append((char) b);
            } else {
                s.append(String.format("\\x%02x", b));
            }
        }
        return s.toString();
    }

    @Test
    void inlineCommandsMatchRedisToo() throws IOException, InterruptedException {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        String[] inline = {"PING\r\n", "ECHO \"a\\x41\\n\"\r\n", "SET 'q k' v\n", "GET 'q k'\r\n",
            "ECHO \"unbalanced\r\n"};
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            for (String s : inline) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                r.send(b);
                o.send(b);
                assertEquals(show(r.reply()), show(o.reply()), s);
            }
            assertTrue(o.closedByServer(), "a protocol error closes the connection, as in Redis");
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }
}
