package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of set commands sent to redis-server 7 and to Colossal, both with
 * {@code set-max-intset-entries 4}, so that sets pass the limit all the time: hashtables in Redis,
 * bucketed sets here ({@link StoredSet}), whose buckets then split every few members. The draws
 * are {@link SetsDifferentialTest}'s (whole sets compared with their members sorted, as Redis
 * answers a hashtable in its table's order), with more of SADD, SREM and SISMEMBER over sixty more
 * members, so that sets grow to dozens of buckets and shrink again. DUMP is checked by a script that
 * RESTOREs each server's own payload. Seeded; more seeds: {@code -Dcolossal.bigSetSeeds=100}.
 */
class BigSetsDifferentialTest {

    @TempDir
    Path dir;

    @Test
    void randomSetCommandsPastTheIntsetLimitGetTheSameRepliesAsRedis() throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.masking((cmd, reply) -> SetsDifferentialTest.comparable(cmd[0], reply))
                    .run(Long.getLong("colossal.bigSetSeeds", 6), 2500,
                            List.<String[]>of(new String[] {"CONFIG", "SET", "set-max-intset-entries", "4"}),
                            BigSetsDifferentialTest::command);
        }
    }

    private static List<String[]> command(SplittableRandom r) {
        String k = r.nextBoolean() ? "a" : "b";
        return switch (r.nextInt(12)) {
            case 0 -> dumpAndRestore(k);
            case 1, 2, 3 -> List.<String[]>of(members(r, "SADD", k));
            case 4, 5 -> List.<String[]>of(members(r, "SREM", k));
            case 6 -> List.<String[]>of(members(r, "SMISMEMBER", k));
            case 7 -> List.<String[]>of(new String[] {"SISMEMBER", k, member(r)}, new String[] {"SCARD", k});
            default -> List.<String[]>of(SetsDifferentialTest.command(r));
        };
    }

    /** DUMP of {@code k} RESTOREd by a script under "restored", then what the copy holds. */
    private static List<String[]> dumpAndRestore(String k) {
        String script = "local d = redis.call('DUMP', KEYS[1]); if not d then return 'none' end; "
                + "return redis.call('RESTORE', KEYS[2], 0, d, 'REPLACE')";
        return List.of(new String[] {"EVAL", script, "2", k, "restored"}, new String[] {"SMEMBERS", "restored"},
                new String[] {"OBJECT", "ENCODING", "restored"}, new String[] {"SCARD", "restored"});
    }

    /** One of sixty text members, or of twenty integers. */
    private static String member(SplittableRandom r) {
        return r.nextInt(4) == 0 ? Integer.toString(r.nextInt(100, 120)) : "m" + r.nextInt(60);
    }

    /** The command with 1–5 members. */
    private static String[] members(SplittableRandom r, String name, String k) {
        List<String> all = new ArrayList<>(List.of(name, k));
        for (int i = 1 + r.nextInt(5); i > 0; i--) {
            all.add(member(r));
        }
        return all.toArray(String[]::new);
    }
}
