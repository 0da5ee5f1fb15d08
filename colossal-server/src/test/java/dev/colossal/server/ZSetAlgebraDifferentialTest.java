package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD over big and small sorted sets and plain
 * sets together, against redis-server 7, replies compared byte for byte: with {@code
 * zset-max-listpack-entries 4} and {@code set-max-intset-entries 4}, a few members make a sorted set
 * a tree and a set bucketed here, whose members an intersection or a difference looks up in place
 * instead of reading them whole, so these sequences check that the look-ups answer what a whole read
 * did. Sizes are skewed (one set of up to 300 members beside sets of a few) so that a small input
 * meets a big one. Seeded; more seeds: {@code -Dcolossal.zalgebraSeeds=50}.
 */
class ZSetAlgebraDifferentialTest {

    private static final String[] ZSETS = {"z1", "z2", "zbig"};
    private static final String[] SETS = {"s1", "sbig"};
    private static final String[] INPUTS = {"z1", "z2", "zbig", "s1", "sbig", "nosuch", "str"};
    private static final String[] SCORES = {"1", "2", "-1", "0", "2.5", "-inf", "+inf", "7", "-0"};

    @TempDir
    Path dir;

    @Test
    void algebraOverTreesAndBucketedSetsGetsTheSameRepliesAsRedis() throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.run(Long.getLong("colossal.zalgebraSeeds", 4), 1500,
                    List.<String[]>of(new String[] {"CONFIG", "SET", "zset-max-listpack-entries", "4"},
                            new String[] {"CONFIG", "SET", "set-max-intset-entries", "4"},
                            new String[] {"SET", "str", "x"}),
                    ZSetAlgebraDifferentialTest::command);
        }
    }

    private static List<String[]> command(SplittableRandom r) {
        return List.<String[]>of(single(r));
    }

    private static String[] single(SplittableRandom r) {
        return switch (r.nextInt(12)) {
            case 0, 1, 2 -> zadd(r);
            case 3, 4 -> sadd(r);
            case 5 -> new String[] {"ZREM", pick(r, ZSETS), member(r, pick(r, ZSETS))};
            case 6 -> new String[] {"SREM", pick(r, SETS), member(r, pick(r, SETS))};
            case 7 -> algebra(r, pick(r, new String[] {"ZINTER", "ZUNION", "ZDIFF"}), false);
            case 8 -> algebra(r, pick(r, new String[] {"ZINTERSTORE", "ZUNIONSTORE", "ZDIFFSTORE"}), true);
            case 9 -> {
                List<String> all = new ArrayList<>(List.of("ZINTERCARD"));
                inputs(r, all);
                if (r.nextBoolean()) {
                    all.addAll(List.of("LIMIT", pick(r, new String[] {"0", "1", "3"})));
                }
                yield all.toArray(String[]::new);
            }
            case 10 -> new String[] {"ZRANGE", "dest", "0", "-1", "WITHSCORES"};
            default -> new String[] {"ZCARD", pick(r, ZSETS)};
        };
    }

    private static String[] algebra(SplittableRandom r, String command, boolean store) {
        List<String> all = new ArrayList<>(List.of(command));
        if (store) {
            all.add("dest");
        }
        int keys = inputs(r, all);
        if (!command.startsWith("ZDIFF")) {
            if (r.nextInt(3) == 0) {
                all.add("WEIGHTS");
                for (int i = 0; i < keys; i++) {
                    all.add(pick(r, new String[] {"1", "2", "0", "-1.5"}));
                }
            }
            if (r.nextInt(3) == 0) {
                all.addAll(List.of("AGGREGATE", pick(r, new String[] {"SUM", "MIN", "MAX"})));
            }
        }
        if (!store && r.nextBoolean()) {
            all.add("WITHSCORES");
        }
        return all.toArray(String[]::new);
    }

    /** Adds numkeys and 1-3 inputs, the first usually a small one so that it meets a big one; @return how many */
    private static int inputs(SplittableRandom r, List<String> all) {
        int n = 1 + r.nextInt(3);
        all.add(Integer.toString(n));
        for (int i = 0; i < n; i++) {
            all.add(r.nextInt(12) == 0 ? pick(r, INPUTS) : i == 0 ? pick(r, new String[] {"z1", "s1", "z2"})
                    : pick(r, new String[] {"zbig", "sbig", "z2", "s1"}));
        }
        return n;
    }

    private static String[] zadd(SplittableRandom r) {
        String k = pick(r, ZSETS);
        List<String> all = new ArrayList<>(List.of("ZADD", k));
        for (int i = k.equals("zbig") ? 1 + r.nextInt(30) : 1 + r.nextInt(2); i > 0; i--) {
            all.add(pick(r, SCORES));
            all.add(member(r, k));
        }
        return all.toArray(String[]::new);
    }

    private static String[] sadd(SplittableRandom r) {
        String k = pick(r, SETS);
        List<String> all = new ArrayList<>(List.of("SADD", k));
        for (int i = k.equals("sbig") ? 1 + r.nextInt(30) : 1 + r.nextInt(2); i > 0; i--) {
            all.add(member(r, k));
        }
        return all.toArray(String[]::new);
    }

    /** A member: the big inputs draw from 300, the small ones from 20 of the same names. */
    private static String member(SplittableRandom r, String key) {
        return "m" + r.nextInt(key.endsWith("big") ? 300 : 20);
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
