package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLIENT REPLY OFF, SKIP and ON against redis-server (from the client-trials branch, whose go-redis
 * trial found it missing; a client that sends writes it wants no answer to uses it): each case a
 * pipeline sent in one write and then
 * PING, whose PONG marks where the case's replies end, compared byte for byte with redis-server 7.0.15's.
 */
class ClientReplyAsRedisTest {

    @TempDir
    Path dir;

    private static final String[][][] CASES = {
        {{"CLIENT", "REPLY", "OFF"}, {"SET", "a", "1"}, {"GET", "a"}, {"NOSUCH"}, {"SET", "a"}, {"CLIENT", "REPLY", "ON"},
            {"GET", "a"}},
        {{"CLIENT", "REPLY", "SKIP"}, {"GET", "a"}, {"ECHO", "after"}},
        {{"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "SKIP"}, {"GET", "a"}, {"ECHO", "x"}},
        {{"CLIENT", "REPLY", "SKIP"}, {"CLIENT", "REPLY", "ON"}, {"ECHO", "y"}},
        {{"CLIENT", "REPLY", "OFF"}, {"CLIENT", "REPLY", "SKIP"}, {"ECHO", "z"}, {"CLIENT", "REPLY", "ON"}},
        {{"CLIENT", "REPLY", "OFF"}, {"MULTI"}, {"SET", "b", "1"}, {"EXEC"}, {"CLIENT", "REPLY", "ON"}, {"GET", "b"}},
        {{"CLIENT", "REPLY", "SKIP"}, {"EVAL", "return redis.call('INCR', KEYS[1])", "1", "n"}, {"GET", "n"}},
        {{"CLIENT", "REPLY", "OFF"}, {"SUBSCRIBE", "ch", "ch2"}, {"UNSUBSCRIBE", "ch2", "ch"}, {"CLIENT", "REPLY", "ON"}},
        {{"CLIENT", "REPLY", "SKIP"}, {"PSUBSCRIBE", "p*"}, {"PUNSUBSCRIBE", "p*"}},
        {{"CLIENT", "REPLY", "OFF"}, {"SUBSCRIBE"}, {"CLIENT", "REPLY", "ON"}},
    };

    @Test
    void offAndSkipDropRepliesAsRedisDoesAndOnBringsThemBack() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            List<String> got = replies(s.port());
            assertEquals("+OK\r\n$1\r\n1\r\n+PONG\r\n", got.get(0), "OFF drops replies and errors until ON");
            assertEquals("$5\r\nafter\r\n+PONG\r\n", got.get(1), "SKIP drops the next reply only");
            assertEquals("+OK\r\n$1\r\ny\r\n+PONG\r\n", got.get(3), "ON cancels a SKIP");
            List<String> want = new ArrayList<>();
            TestServers.onRedis(port -> want.addAll(replies(port)));
            for (int i = 0; i < want.size(); i++) {
                assertEquals(want.get(i), got.get(i), "case " + i);
            }
        }
    }

    private static List<String> replies(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (Wire w = new Wire(port)) {
            w.call("FLUSHALL");
            for (String[][] c : CASES) {
                ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
                for (String[] command : c) {
                    pipeline.writeBytes(Wire.encode(command));
                }
                pipeline.writeBytes(Wire.encode("PING"));
                w.send(pipeline.toByteArray());
                StringBuilder replies = new StringBuilder();
                String r;
                do {
                    r = w.reply();
                    replies.append(r);
                } while (!r.equals("+PONG\r\n"));
                out.add(replies.toString());
            }
        }
        return out;
    }
}
