package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random LCS commands on random strings sent to redis-server 7 and to Colossal, replies compared
 * byte for byte, RESP3 (IDX's map) on even seeds. Strings are drawn from a few letters, so that
 * they share long and many runs and ties in the walk back are common; now and then one is 480 to
 * 560 bytes long, so that two such meet the table's size limit (proto-max-bulk-len, 1 MiB here).
 * Seeded; more seeds: {@code -Dcolossal.lcsSeeds=100}.
 */
class LcsDifferentialTest {

    private static final long BULK_LIMIT = 1024 * 1024; // Redis's least

    @TempDir
    Path dir;

    @Test
    void randomLcsGetTheSameRepliesAsRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort, "--proto-max-bulk-len", Long.toString(BULK_LIMIT));
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        config = config.withLimits(config.maxClients(), BULK_LIMIT, config.idleTimeoutSeconds());
        try (ColossalServer ours = ColossalServer.start(config);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            for (long seed = 1; seed <= Long.getLong("colossal.lcsSeeds", 6); seed++) {
                SplittableRandom random = new SplittableRandom(seed);
                for (String[] setup : List.of(new String[] {"FLUSHALL"}, new String[] {"HELLO", seed % 2 == 0 ? "3" : "2"},
                        new String[] {"RPUSH", "list", "x"})) {
                    r.call(setup); // HELLO's replies differ in the client id
                    o.call(setup);
                }
                List<String> sent = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    String[] cmd = random.nextInt(3) == 0
                            ? new String[] {"SET", pick(random, new String[] {"a", "b"}), text(random)} : lcs(random);
                    sent.add(String.join(" | ", cmd));
                    byte[] frame = Wire.encode(cmd);
                    r.send(frame);
                    o.send(frame);
                    String want = r.reply();
                    String got = o.reply();
                    if (!want.equals(got)) {
                        List<String> tail = sent.subList(Math.max(0, sent.size() - 8), sent.size());
                        assertEquals(want.replace("\r\n", "\\r\\n"), got.replace("\r\n", "\\r\\n"),
                                "seed " + seed + "; last commands:\n  " + String.join("\n  ", tail));
                    }
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    private static String[] lcs(SplittableRandom r) {
        List<String> cmd = new ArrayList<>(List.of("LCS", pick(r, new String[] {"a", "b", "a", "b", "nosuch", "list"}),
                pick(r, new String[] {"a", "b", "b", "nosuch"})));
        int kind = r.nextInt(10);
        if (kind < 4) {
            cmd.add("IDX");
        } else if (kind < 6) {
            cmd.add("LEN");
        } else if (kind == 6) {
            cmd.addAll(List.of("IDX", "LEN"));
        }
        if (r.nextInt(3) == 0) {
            cmd.addAll(List.of("MINMATCHLEN", pick(r, new String[] {"0", "1", "2", "3", "5", "-1", "x"})));
        }
        if (r.nextInt(3) == 0) {
            cmd.add("WITHMATCHLEN");
        }
        return cmd.toArray(String[]::new);
    }

    /** 0 to 40 bytes (now and then 480 to 560) of three letters, or of three with one twice as likely. */
    private static String text(SplittableRandom r) {
        StringBuilder s = new StringBuilder();
        String letters = r.nextBoolean() ? "abc" : "xyzxyx";
        for (int n = r.nextInt(8) == 0 ? r.nextInt(480, 561) : r.nextInt(41); n > 0; n--) {
            s.append(letters.charAt(r.nextInt(letters.length())));
        }
        return s.toString();
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
