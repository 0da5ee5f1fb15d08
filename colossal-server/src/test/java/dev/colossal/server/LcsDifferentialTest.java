package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
        ServerConfig config = ServerConfig.defaults().withDataDir(dir).withPorts(0, -1);
        config = config.withLimits(config.maxClients(), BULK_LIMIT, config.idleTimeoutSeconds());
        try (SideBySide both = new SideBySide(config, "--proto-max-bulk-len", Long.toString(BULK_LIMIT))) {
            both.run(Long.getLong("colossal.lcsSeeds", 6), 1000, List.<String[]>of(new String[] {"RPUSH", "list", "x"}),
                    r -> List.<String[]>of(r.nextInt(3) == 0 ? new String[] {"SET", pick(r, new String[] {"a", "b"}), text(r)} : lcs(r)));
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
