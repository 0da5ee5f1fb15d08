package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** INFO's counters against redis-server's after the same commands. */
class InfoCountersTest {

    @TempDir
    Path dir;

    /** Every kind of error reply: a command's, a queued one's, one inside EXEC's array, a protocol error. */
    private static final String[][] COMMANDS = {
        {"SET", "s", "text"},
        {"INCR", "s"},
        {"GET"},
        {"NOSUCH", "x"},
        {"SET", "k", "v", "BOGUS"},
        {"EXPIRE", "k", "abc"},
        {"AUTH", "x"},
        {"GET", "s"},
        {"MULTI"},
        {"INCR", "s"},
        {"SET", "k", "v"},
        {"EXEC"},
        {"MULTI"},
        {"NOSUCH"},
        {"EXEC"},
        {"EXEC"},
        {"SETRANGE", "k", "-1", "x"},
    };

    @Test
    void totalErrorRepliesCountsEveryErrorReplyAsRedisDoes() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir)) {
            for (int port : new int[] {redisPort, ours.port()}) {
                try (Wire w = new Wire(port)) {
                    for (String[] c : COMMANDS) {
                        w.call(c);
                    }
                }
                try (Wire w = new Wire(port)) { // a protocol error: answered, then the connection closes
                    w.send("*1\r\n$-5\r\n".getBytes(StandardCharsets.US_ASCII));
                    w.reply();
                }
            }
            assertEquals(errorReplies(redisPort), errorReplies(ours.port()));
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    private static long errorReplies(int port) throws Exception {
        try (Wire w = new Wire(port)) {
            Matcher m = Pattern.compile("total_error_replies:(\\d+)").matcher(w.call("INFO", "stats"));
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }
    }
}
