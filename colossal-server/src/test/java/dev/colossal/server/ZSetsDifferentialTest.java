package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of sorted set commands sent to redis-server 7 and to Colossal, both with
 * {@code zset-max-listpack-entries 4}, so that sets turn into skiplists (trees here, of nodes of
 * four entries, which split and merge all the time) after a few members. A skiplist answers in
 * (score, member) order, so replies are compared byte for byte; only ZSCAN's of a skiplist (Redis
 * walks its dict) are compared sorted, and ZRANDMEMBER's by their shape. DUMP is checked by a script
 * that RESTOREs each server's own payload. SORT is left out: Redis turns a listpack set it sorts into a
 * skiplist, which OBJECT ENCODING would show. Lex ranges are asked of a set whose members all score 0. Seeded; more seeds: {@code -Dcolossal.zsetSeeds=100}.
 */
class ZSetsDifferentialTest {

    private static final String[] KEYS = {"a", "b", "c", "a", "b", "a", "str", "nosuch"};
    private static final String[] SCORES = {"1", "2", "3", "-1", "0", "2.5", "-inf", "+inf", "1e10", "7", "-0"};
    private static final String[] BOUNDS = {"-inf", "+inf", "1", "(1", "2", "(3", "0", "2.5", "(2.5", "x", "10"};
    private static final String[] LEX = {"-", "+", "[m1", "(m1", "[m3", "(m5", "[m", "m", "[long", "(z"};
    /**
     * The key of the lex range commands, whose members all score 0: Redis leaves a lex range over
     * members of different scores undefined (its skiplist's answer then depends on its random levels).
     */
    private static final String LEX_KEY = "lex";
    private static final String[] RANKS = {"0", "1", "-1", "2", "-3", "5", "100", "-100", "x"};

    @TempDir
    Path dir;

    @Test
    void randomSortedSetCommandsOnSkiplistsGetTheSameRepliesAsRedis() throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.masking(ZSetsDifferentialTest::comparable).run(Long.getLong("colossal.zsetSeeds", 6), 3000,
                    List.<String[]>of(new String[] {"CONFIG", "SET", "zset-max-listpack-entries", "4"}),
                    ZSetsDifferentialTest::command);
        }
    }

    /** DUMP of {@code k} RESTOREd by a script under "restored", then what the copy holds. */
    private static List<String[]> dumpAndRestore(String k) {
        String script = "local d = redis.call('DUMP', KEYS[1]); if not d then return 'none' end; "
                + "return redis.call('RESTORE', KEYS[2], 0, d, 'REPLACE')";
        return List.of(new String[] {"EVAL", script, "2", k, "restored"},
                new String[] {"ZRANGE", "restored", "0", "-1", "WITHSCORES"},
                new String[] {"OBJECT", "ENCODING", "restored"}, new String[] {"ZCARD", "restored"});
    }

    private static List<String[]> command(SplittableRandom r) {
        String k = pick(r, KEYS);
        if (r.nextInt(40) == 0) {
            return dumpAndRestore(k);
        }
        return List.<String[]>of(single(r, k));
    }

    private static String[] single(SplittableRandom r, String k) {
        String m = member(r);
        return switch (r.nextInt(45)) {
            case 0, 1, 2, 3, 4, 5, 6, 7 -> zadd(r, k);
            case 8 -> new String[] {"ZINCRBY", k, pick(r, new String[] {"1", "-2.5", "+inf", "-inf", "x"}), m};
            case 9, 10, 11 -> members(r, "ZREM", k);
            case 12, 13 -> new String[] {"ZSCORE", k, m};
            case 14 -> members(r, "ZMSCORE", k);
            case 15 -> new String[] {"ZCARD", k};
            case 16, 17 -> new String[] {r.nextBoolean() ? "ZRANK" : "ZREVRANK", k, m};
            case 18 -> new String[] {"ZCOUNT", k, pick(r, BOUNDS), pick(r, BOUNDS)};
            case 19 -> new String[] {"ZLEXCOUNT", LEX_KEY, pick(r, LEX), pick(r, LEX)};
            case 20, 21 -> zrange(r, k);
            case 22 -> new String[] {r.nextBoolean() ? "ZRANGE" : "ZREVRANGE", k, pick(r, RANKS), pick(r, RANKS), "WITHSCORES"};
            case 23 -> limited(r, new String[] {pick(r, new String[] {"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}), k,
                pick(r, BOUNDS), pick(r, BOUNDS)}, true);
            case 24 -> limited(r, new String[] {pick(r, new String[] {"ZRANGEBYLEX", "ZREVRANGEBYLEX"}), LEX_KEY,
                pick(r, LEX), pick(r, LEX)}, false);
            case 25 -> r.nextBoolean() ? new String[] {pick(r, new String[] {"ZPOPMIN", "ZPOPMAX"}), k}
                    : new String[] {pick(r, new String[] {"ZPOPMIN", "ZPOPMAX"}), k, pick(r, new String[] {"0", "1", "3", "-1"})};
            case 26 -> new String[] {"ZMPOP", "2", k, pick(r, KEYS), pick(r, new String[] {"MIN", "MAX"}), "COUNT",
                pick(r, new String[] {"1", "2", "5"})};
            case 27 -> new String[] {"ZREMRANGEBYRANK", k, pick(r, RANKS), pick(r, RANKS)};
            case 28 -> new String[] {"ZREMRANGEBYSCORE", k, pick(r, BOUNDS), pick(r, BOUNDS)};
            case 29 -> new String[] {"ZREMRANGEBYLEX", LEX_KEY, pick(r, LEX), pick(r, LEX)};
            case 30 -> new String[] {"ZRANGESTORE", pick(r, KEYS), k, pick(r, RANKS), pick(r, RANKS)};
            case 31 -> new String[] {pick(r, new String[] {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}), pick(r, KEYS), "2", k,
                pick(r, KEYS)};
            case 32 -> new String[] {pick(r, new String[] {"ZUNION", "ZINTER", "ZDIFF"}), "2", k, pick(r, KEYS), "WITHSCORES"};
            case 33 -> new String[] {"ZSCAN", k, "0", "COUNT", "1000"};
            case 34 -> new String[] {"ZRANDMEMBER", k, pick(r, new String[] {"1000", "-3", "2"})};
            case 35 -> new String[] {"OBJECT", "ENCODING", k};
            case 36 -> new String[] {pick(r, new String[] {"RENAME", "COPY"}), k, pick(r, KEYS)};
            case 37 -> new String[] {"ZRANDMEMBER", k};
            case 38 -> r.nextInt(4) == 0 ? new String[] {"DEL", k} : new String[] {"TYPE", k};
            case 39 -> new String[] {"ZRANGE", k, "(1", "+inf", "BYSCORE", "REV", "LIMIT", "1", "3", "WITHSCORES"};
            case 40 -> new String[] {"ZADD", k, "INCR", pick(r, SCORES), m};
            case 41 -> new String[] {"ZINTERCARD", "2", k, pick(r, KEYS)};
            case 42 -> new String[] {"ZADD", LEX_KEY, "0", m, "0", member(r), "0", member(r)};
            case 43 -> r.nextInt(8) == 0 ? new String[] {"MOVE", k, "1"}
                    : new String[] {r.nextBoolean() ? "BZPOPMIN" : "BZPOPMAX", k, pick(r, KEYS), "0.01"};
            default -> new String[] {"ZRANGE", k, "0", "-1", "WITHSCORES"};
        };
    }

    /** A member: one of 40, one long enough (over 64 bytes) to make a set a skiplist alone. */
    private static String member(SplittableRandom r) {
        int i = r.nextInt(41);
        return i == 40 ? "long-" + "y".repeat(70) : "m" + i;
    }

    private static String[] zadd(SplittableRandom r, String k) {
        List<String> all = new ArrayList<>(List.of("ZADD", k));
        for (String flag : new String[] {"NX", "XX", "GT", "LT", "CH"}) {
            if (r.nextInt(8) == 0) {
                all.add(flag);
            }
        }
        for (int i = 1 + r.nextInt(r.nextInt(5) == 0 ? 20 : 3); i > 0; i--) {
            all.add(pick(r, SCORES));
            all.add(member(r));
        }
        if (r.nextInt(30) == 0) {
            all.removeLast(); // the syntax error
        }
        return all.toArray(String[]::new);
    }

    private static String[] zrange(SplittableRandom r, String k) {
        int kind = r.nextInt(3);
        List<String> all = new ArrayList<>(List.of("ZRANGE", kind == 2 ? LEX_KEY : k));
        boolean rev = r.nextBoolean();
        if (kind == 0) {
            all.add(pick(r, RANKS));
            all.add(pick(r, RANKS));
        } else {
            String[] from = kind == 1 ? BOUNDS : LEX;
            all.add(pick(r, from));
            all.add(pick(r, from));
            all.add(kind == 1 ? "BYSCORE" : "BYLEX");
            if (r.nextBoolean()) {
                all.addAll(List.of("LIMIT", pick(r, new String[] {"0", "1", "3", "-1"}), pick(r, new String[] {"1", "2", "-1", "0"})));
            }
        }
        if (rev) {
            all.add("REV");
        }
        if (kind != 2 && r.nextBoolean()) {
            all.add("WITHSCORES");
        }
        return all.toArray(String[]::new);
    }

    private static String[] limited(SplittableRandom r, String[] cmd, boolean scores) {
        List<String> all = new ArrayList<>(List.of(cmd));
        if (scores && r.nextBoolean()) {
            all.add("WITHSCORES");
        }
        if (r.nextBoolean()) {
            all.addAll(List.of("LIMIT", pick(r, new String[] {"0", "1", "2", "-1"}), pick(r, new String[] {"1", "3", "-1"})));
        }
        return all.toArray(String[]::new);
    }

    private static String[] members(SplittableRandom r, String name, String k) {
        List<String> all = new ArrayList<>(List.of(name, k));
        for (int i = 1 + r.nextInt(4); i > 0; i--) {
            all.add(member(r));
        }
        return all.toArray(String[]::new);
    }

    /** The reply as compared: ZSCAN's pairs sorted, ZRANDMEMBER's members sorted and one member by its type only. */
    static String comparable(String[] cmd, String reply) {
        String name = cmd[0];
        if (name.equals("ZSCAN")) {
            return HashesDifferentialTest.comparable(new String[] {"HSCAN"}, reply);
        }
        if (name.equals("ZRANDMEMBER") && cmd.length == 3) {
            return !cmd[2].equals("1000") ? "an array of " + reply.substring(0, reply.indexOf("\r\n"))
                    : HashesDifferentialTest.comparable(new String[] {"HKEYS"}, reply);
        }
        if (name.equals("ZRANDMEMBER") && reply.startsWith("$")) {
            return "a bulk string";
        }
        return reply;
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
