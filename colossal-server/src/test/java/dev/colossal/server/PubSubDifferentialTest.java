package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pub/sub across three connections, sent to redis-server 7 and to Colossal: every byte each
 * connection receives must be the same, messages included. {@link RedisCompatTest} reads one reply
 * per command on one connection, which a subscriber's pushes from other connections do not fit.
 *
 * <p>After each step every connection is sent {@code PING sentinel-N}, the step's own connection
 * first: what a connection received before its sentinel's answer is what the step made it receive.
 * A message published by the step reaches its subscribers before they answer their sentinel in both
 * servers (redis-server appends it to their output as it publishes; Colossal writes the waiting
 * messages before it runs a subscriber's command). At the end INFO commandstats' counts must agree.
 */
class PubSubDifferentialTest {

    /** A command sent on connection {@code conn}. */
    private record Step(int conn, String... cmd) {
    }

    private static final List<Step> SCRIPT = List.of(
            new Step(0, "SUBSCRIBE", "news", "sport"),
            new Step(1, "PSUBSCRIBE", "n*"),
            new Step(2, "PUBLISH", "news", "hello"),
            new Step(2, "PUBLISH", "sport", "score"),
            new Step(2, "PUBLISH", "nothing", "x"),
            new Step(2, "PUBLISH", "other", "x"),
            new Step(1, "SUBSCRIBE", "news"),
            new Step(2, "PUBLISH", "news", "twice"),
            new Step(0, "PUBSUB", "NUMSUB", "news"),
            new Step(2, "PUBSUB", "NUMSUB", "news", "sport", "nope"),
            new Step(2, "PUBSUB", "NUMPAT"),
            new Step(2, "PUBSUB", "CHANNELS", "s*"),
            new Step(0, "PUBLISH", "sport", "to myself"),
            new Step(0, "UNSUBSCRIBE", "news"),
            new Step(2, "PUBLISH", "news", "again"),
            new Step(0, "PING"),
            new Step(0, "PING", "hi"),
            new Step(0, "GET", "k"),
            new Step(2, "SSUBSCRIBE", "shard1"),
            new Step(0, "SPUBLISH", "shard1", "m"),
            new Step(1, "SPUBLISH", "shard1", "m2"),
            new Step(2, "PUBSUB", "SHARDNUMSUB", "shard1"),
            new Step(2, "PUBSUB", "SHARDCHANNELS"),
            new Step(0, "SSUBSCRIBE", "shard1"),
            new Step(1, "PUBLISH", "sport", ""),
            new Step(1, "PUBLISH", "sport", "a\r\nb\u0000c"),
            new Step(2, "SUNSUBSCRIBE"),
            new Step(1, "PUNSUBSCRIBE"),
            new Step(1, "UNSUBSCRIBE"),
            new Step(1, "UNSUBSCRIBE"),
            new Step(2, "PUBLISH", "news", "after"),
            new Step(2, "SPUBLISH", "shard1", "after"),
            new Step(0, "RESET"),
            new Step(2, "PUBLISH", "sport", "after reset"),
            new Step(2, "PUBSUB", "NUMSUB", "sport", "news"),
            new Step(2, "PUBSUB", "SHARDNUMSUB", "shard1"),
            new Step(2, "PUBSUB", "NUMPAT"),
            new Step(0, "GET", "k"));

    @TempDir
    Path dir;

    @ParameterizedTest(name = "RESP{0}")
    @ValueSource(ints = {2, 3})
    void everyConnectionReceivesTheBytesRedisSends(int protocol) throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        List<Wire> theirs = new ArrayList<>();
        List<Wire> ours = new ArrayList<>();
        try (ColossalServer server = TestServers.colossal(dir)) {
            for (int i = 0; i < 3; i++) {
                theirs.add(new Wire(redisPort));
                ours.add(new Wire(server.port()));
            }
            // from zero in both: starting redis-server, the test's PING counted
            assertEquals(theirs.get(0).call("CONFIG", "RESETSTAT"), ours.get(0).call("CONFIG", "RESETSTAT"));
            for (int i = 0; i < 3; i++) {
                if (protocol == 3) {
                    // the same but for the connection's id
                    assertEquals(withoutId(theirs.get(i).call("HELLO", "3")), withoutId(ours.get(i).call("HELLO", "3")));
                }
            }
            List<String> done = new ArrayList<>();
            int sentinel = 0;
            for (Step step : SCRIPT) {
                done.add(step.conn + ": " + String.join(" ", step.cmd));
                byte[] frame = Wire.encode(step.cmd);
                theirs.get(step.conn).send(frame);
                ours.get(step.conn).send(frame);
                for (int k = 0; k < 3; k++) {
                    int conn = (step.conn + k) % 3;
                    String mark = "sentinel-" + sentinel++;
                    String want = upToSentinel(theirs.get(conn), mark);
                    String got = upToSentinel(ours.get(conn), mark);
                    assertEquals(show(want), show(got), "connection " + conn + " after:\n  " + String.join("\n  ", done));
                }
            }
            // Calls, rejected calls (subscribed mode's refusals) and failed calls, as Redis counts them
            assertEquals(commandStats(theirs.get(2)), commandStats(ours.get(2)));
        } finally {
            for (Wire w : theirs) {
                w.close();
            }
            for (Wire w : ours) {
                w.close();
            }
            redis.destroy();
            redis.waitFor();
        }
    }

    /** Sends {@code PING mark} and @return everything {@code w} received before its answer */
    static String upToSentinel(Wire w, String mark) throws IOException {
        w.send(Wire.encode("PING", mark));
        StringBuilder before = new StringBuilder();
        for (String frame = w.reply(); !frame.contains(mark); frame = w.reply()) {
            before.append(frame);
        }
        return before.toString();
    }

    /** @return INFO commandstats' lines without their times: {@code cmdstat_publish:calls=5,rejected_calls=2,failed_calls=0} */
    private static List<String> commandStats(Wire w) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line : w.call("INFO", "commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                lines.add(line.replaceAll("usec=[^,]*,usec_per_call=[^,]*,", ""));
            }
        }
        java.util.Collections.sort(lines);
        return lines;
    }

    static String withoutId(String hello) {
        return hello.replaceFirst("\\$2\r\nid\r\n:\\d+\r\n", "\\$2\r\nid\r\n:ID\r\n");
    }

    static String show(String reply) {
        return reply.replace("\r\n", "\\r\\n");
    }
}
