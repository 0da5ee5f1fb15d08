package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random command sequences sent to redis-server 7 and to Colossal: every raw reply must be
 * identical. Where {@link RedisCompatTest} replays cases written by hand, this explores the
 * combinations nobody wrote down: options in any order, wrong types and arities, numbers at
 * their limits, keys that expire, are renamed or hold counters. Seeded: a failure prints the
 * seed and the commands before the first difference. More seeds:
 * {@code -Dcolossal.redisSeeds=200}. Hash, list and sorted set commands go to the same keys as string
 * commands, so that each kind meets the others' values and answers WRONGTYPE as Redis does.
 */
class RedisDifferentialTest {

    private static final String[] KEYS = {"a", "b", "c", "n", "f", "{x}", ""};
    private static final String[] VALUES = {"", "0", "1", "-1", "42", "007", " 1", "1 ", "3.5", "-0.25", "1e3",
        "inf", "nan", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "abc", "hello world",
        "\u00e9t\u00e9", "x".repeat(100)};
    private static final String[] NUMBERS = {"0", "1", "-1", "2", "100", "-100", "7.5", "abc", "",
        "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e2", "+5", "0x10"};
    /** Hash fields, few so that they repeat. */
    private static final String[] FIELDS = {"f", "g", "", "1", "x y"};
    /**
     * Hash values: {@link #VALUES} but the 100-byte one, which would make Redis hold the hash as a
     * hashtable, whose order of HGETALL is its table's, not insertion order.
     */
    private static final String[] HASH_VALUES = java.util.Arrays.stream(VALUES).filter(v -> v.length() <= 64)
            .toArray(String[]::new);
    /** Invalid or extreme TTLs; valid ones are drawn at random (see {@link #ttl}). */
    private static final String[] TTLS = {"0", "-1", "abc", "9223372036854775807", "-9223372036854775808"};
    /**
     * Unix times for EXAT: future ones and invalid ones, no past one (Redis keeps a key SET with a
     * past EXAT until its expiry cycle meets it, and DBSIZE counts it meanwhile: timing, not behaviour).
     */
    private static final String[] TIMES = {"4102444800", "4102444801", "0", "-1", "abc", "9223372036854775807"};

    @TempDir
    Path dir;

    @Test
    void randomSequencesGetTheSameRepliesAsRedis() throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.run(Long.getLong("colossal.redisSeeds", 4), 2500, List.of(), r -> List.<String[]>of(command(r)));
        }
    }

    private static String[] command(SplittableRandom r) {
        String k = pick(r, KEYS);
        String k2 = pick(r, KEYS);
        String v = pick(r, VALUES);
        String n = pick(r, NUMBERS);
        return switch (r.nextInt(49)) {
            case 0, 1 -> with(r, new String[] {"SET", k, v}, "NX", "XX", "GET", "KEEPTTL", "EX " + ttl(r, 1),
                    "PX " + ttl(r, 1000), "EXAT " + pick(r, TIMES), "BOGUS");
            case 2, 3 -> new String[] {"GET", k};
            case 4 -> new String[] {"GETDEL", k};
            case 5 -> with(r, new String[] {"GETEX", k}, "PERSIST", "EX " + ttl(r, 1), "PX " + ttl(r, 1000));
            case 6 -> new String[] {"SETNX", k, v};
            case 7 -> new String[] {"SETEX", k, ttl(r, 1), v};
            case 8 -> new String[] {r.nextBoolean() ? "DEL" : "UNLINK", k, k2};
            case 9 -> new String[] {"EXISTS", k, k2, k};
            case 10 -> new String[] {"MGET", k, k2};
            case 11 -> new String[] {r.nextBoolean() ? "MSET" : "MSETNX", k, v, k2, pick(r, VALUES)};
            case 12, 13 -> new String[] {pick(r, new String[] {"INCR", "DECR"}), k};
            case 14, 15 -> new String[] {pick(r, new String[] {"INCRBY", "DECRBY"}), k, n};
            case 16 -> new String[] {"INCRBYFLOAT", k, pick(r, r.nextBoolean() ? NUMBERS : VALUES)};
            case 17 -> new String[] {"APPEND", k, v};
            case 18 -> new String[] {"STRLEN", k};
            case 19 -> new String[] {"GETRANGE", k, n, pick(r, NUMBERS)};
            case 20 -> new String[] {"SETRANGE", k, pick(r, new String[] {"0", "1", "3", "10", "-1", "abc"}), v};
            case 21 -> with(r, r.nextBoolean() ? new String[] {"EXPIRE", k, ttl(r, 1)} : new String[] {"PEXPIRE", k, ttl(r, 1000)},
                    "NX", "XX", "GT", "LT");
            case 22 -> new String[] {pick(r, new String[] {"EXPIREAT", "PEXPIREAT"}), k,
                pick(r, new String[] {"4102444800", "4102444800000", "1", "0", "abc", "-9223372036854775808", "-5"})};
            case 23 -> new String[] {"TTL", k};
            case 24 -> new String[] {"PERSIST", k};
            case 25 -> new String[] {"TYPE", k};
            case 26 -> new String[] {r.nextBoolean() ? "RENAME" : "RENAMENX", k, k2};
            case 27 -> new String[] {"DBSIZE"};
            case 28 -> switch (r.nextInt(8)) {
                case 0 -> new String[] {"GETSET", k, v};
                case 1 -> r.nextBoolean() ? new String[] {"PING"} : new String[] {"PING", v};
                case 2 -> new String[] {"ECHO", v};
                // 16 databases in both; the later commands go to whichever one was selected
                case 3 -> new String[] {"SELECT", pick(r, new String[] {"0", "1", "15", "-1", "16", "abc", "99999999999", ""})};
                case 4 -> new String[] {"MOVE", k, pick(r, new String[] {"0", "1", "2", "16", "-1", "abc"})};
                case 5 -> new String[] {"SWAPDB", pick(r, new String[] {"0", "1", "2", "x"}), pick(r, new String[] {"0", "1", "16"})};
                case 6 -> switch (r.nextInt(3)) {
                    case 0 -> new String[] {"GETBIT", k, pick(r, new String[] {"0", "7", "9", "40", "-1", "abc"})};
                    case 1 -> new String[] {"SETBIT", k, pick(r, new String[] {"0", "7", "9", "40", "-1"}), pick(r, new String[] {"0", "1", "2"})};
                    default -> with(r, new String[] {"BITCOUNT", k, n, pick(r, NUMBERS)}, "BYTE", "BIT", "BOGUS");
                };
                default -> new String[] {"STRLEN", k, k2};
            };
            case 31, 32 -> hashWrite(r, k);
            case 33, 34, 35 -> hashRead(r, k);
            case 36 -> new String[] {pick(r, new String[] {"HINCRBY", "HINCRBYFLOAT"}), k, pick(r, FIELDS),
                pick(r, r.nextBoolean() ? NUMBERS : HASH_VALUES)};
            case 37 -> switch (r.nextInt(3)) {
                case 0 -> with(r, new String[] {"HRANDFIELD", k, pick(r, new String[] {"0", "100", "abc", "-0", "9223372036854775807"})},
                        "WITHVALUES", "BOGUS");
                case 1 -> with(r, new String[] {"HSCAN", k, pick(r, new String[] {"0", "0", "7", "abc"})},
                        "COUNT " + pick(r, new String[] {"1", "100", "0", "abc"}), "MATCH " + pick(r, new String[] {"*", "f*", "[gx]*", "?"}));
                default -> new String[] {"HSETNX", k, pick(r, FIELDS), pick(r, HASH_VALUES)};
            };
            case 38, 39 -> listWrite(r, k, k2);
            case 40, 41 -> listRead(r, k);
            case 42 -> listMove(r, k, k2);
            case 43 -> listBlocking(r, k, k2);
            case 44, 45 -> zsetWrite(r, k, k2);
            case 46, 47, 48 -> zsetRead(r, k, k2);
            // transactions: the commands drawn between MULTI and EXEC are queued, refused ones abort it
            case 29 -> new String[] {pick(r, new String[] {"MULTI", "MULTI", "EXEC", "EXEC", "DISCARD"})};
            default -> {
                // arity errors and unknown commands, with arguments that must be quoted back
                String[] names = {"GET", "SET", "INCR", "APPEND", "EXPIRE", "GETRANGE", "NOSUCH", "get", "sEt"};
                String[] args = new String[r.nextInt(4)];
                for (int i = 0; i < args.length; i++) {
                    args[i] = pick(r, VALUES);
                }
                String[] all = new String[args.length + 1];
                all[0] = pick(r, names);
                System.arraycopy(args, 0, all, 1, args.length);
                yield all;
            }
        };
    }

    /** List indexes and counts: in range, out of it, negative, extreme, not numbers. */
    private static final String[] INDEXES = {"0", "1", "2", "-1", "-2", "5", "-5", "100", "-100", "abc", "",
        "9223372036854775807", "-9223372036854775808"};

    /** The list writes, on the same keys as strings and hashes. */
    private static String[] listWrite(SplittableRandom r, String k, String k2) {
        String e = pick(r, FIELDS);
        return switch (r.nextInt(10)) {
            case 0, 1 -> new String[] {pick(r, new String[] {"LPUSH", "RPUSH"}), k, e, pick(r, FIELDS), pick(r, VALUES)};
            case 2 -> new String[] {pick(r, new String[] {"LPUSHX", "RPUSHX"}), k, e};
            case 3 -> r.nextBoolean() ? new String[] {pick(r, new String[] {"LPOP", "RPOP"}), k}
                    : new String[] {pick(r, new String[] {"LPOP", "RPOP"}), k, pick(r, new String[] {"0", "1", "2", "10", "-1", "abc"})};
            case 4 -> new String[] {"LSET", k, pick(r, INDEXES), e};
            case 5 -> new String[] {"LTRIM", k, pick(r, INDEXES), pick(r, INDEXES)};
            case 6 -> new String[] {"LINSERT", k, pick(r, new String[] {"BEFORE", "AFTER", "after", "MIDDLE"}), e, pick(r, FIELDS)};
            case 7 -> new String[] {"LREM", k, pick(r, new String[] {"0", "1", "-1", "2", "-2", "abc"}), e};
            case 8 -> with(r, new String[] {"LMPOP", pick(r, new String[] {"1", "2", "0", "x"}), k, k2},
                    "LEFT", "RIGHT", "COUNT " + pick(r, new String[] {"1", "3", "0", "-1"}));
            default -> new String[] {"RPUSH", k2, e};
        };
    }

    /** The list reads. */
    private static String[] listRead(SplittableRandom r, String k) {
        return switch (r.nextInt(4)) {
            case 0 -> new String[] {"LLEN", k};
            case 1 -> new String[] {"LINDEX", k, pick(r, INDEXES)};
            case 2 -> new String[] {"LRANGE", k, pick(r, INDEXES), pick(r, INDEXES)};
            default -> with(r, new String[] {"LPOS", k, pick(r, FIELDS)}, "RANK " + pick(r, new String[] {"1", "-1", "2", "0", "x"}),
                    "COUNT " + pick(r, new String[] {"0", "1", "2", "-1"}), "MAXLEN " + pick(r, new String[] {"0", "1", "3", "-1"}));
        };
    }

    /** RPOPLPUSH and LMOVE, to another key or the same. */
    private static String[] listMove(SplittableRandom r, String k, String k2) {
        String[] sides = {"LEFT", "RIGHT", "left", "UP"};
        return r.nextBoolean() ? new String[] {"RPOPLPUSH", k, k2}
                : new String[] {"LMOVE", k, r.nextInt(4) == 0 ? k : k2, pick(r, sides), pick(r, sides)};
    }

    /** The blocking forms with a short timeout, or inside MULTI: what they answer at once or on timing out. */
    private static String[] listBlocking(SplittableRandom r, String k, String k2) {
        String t = pick(r, new String[] {"0.01", "0.01", "-1", "abc"});
        return switch (r.nextInt(4)) {
            case 0 -> new String[] {pick(r, new String[] {"BLPOP", "BRPOP"}), k, k2, t};
            case 1 -> new String[] {"BLMOVE", k, k2, pick(r, new String[] {"LEFT", "RIGHT"}), pick(r, new String[] {"LEFT", "RIGHT"}), t};
            case 2 -> new String[] {"BRPOPLPUSH", k, k2, t};
            default -> with(r, new String[] {"BLMPOP", t, "2", k, k2, pick(r, new String[] {"LEFT", "RIGHT"})},
                    "COUNT " + pick(r, new String[] {"1", "2", "0"}));
        };
    }

    /** HSET, HMSET, HSETNX or HDEL of a few fields, sometimes with a pair short. */
    private static String[] hashWrite(SplittableRandom r, String k) {
        String name = pick(r, new String[] {"HSET", "HSET", "HMSET", "HSETNX", "HDEL", "HDEL"});
        List<String> all = new ArrayList<>(List.of(name, k));
        int n = name.equals("HDEL") ? 1 + r.nextInt(3) : name.equals("HSETNX") ? 1 : 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            all.add(pick(r, FIELDS));
            if (!name.equals("HDEL")) {
                all.add(pick(r, HASH_VALUES));
            }
        }
        if (r.nextInt(20) == 0) {
            all.removeLast(); // an odd number of arguments: the arity error
        }
        return all.toArray(String[]::new);
    }

    /** The hash reads: whole, by field, or counted. */
    private static String[] hashRead(SplittableRandom r, String k) {
        String f = pick(r, FIELDS);
        return switch (r.nextInt(8)) {
            case 0 -> new String[] {"HGETALL", k};
            case 1 -> new String[] {pick(r, new String[] {"HKEYS", "HVALS", "HLEN"}), k};
            case 2, 3 -> new String[] {"HGET", k, f};
            case 4 -> new String[] {"HMGET", k, f, pick(r, FIELDS)};
            case 5 -> new String[] {"HEXISTS", k, f};
            case 6 -> new String[] {"HSTRLEN", k, f};
            default -> new String[] {"HGET", k};
        };
    }

    /** Sorted set members, few and short so that a set stays a listpack (whose ZSCAN order is Redis's too). */
    private static final String[] MEMBERS = {"a", "b", "c", "", "x y", "1"};
    /** Scores and increments: valid, extreme and invalid ones. */
    private static final String[] SCORES = {"0", "1", "-1", "2.5", "-0", "0.1", "1e3", "inf", "-inf", "abc", "nan", "",
        " 1", "1e400", "0x10", "(1"};
    private static final String[] SCORE_BOUNDS = {"-inf", "+inf", "(1", "0", "1", "2.5", "(2.5", "abc", "", "(-inf", "1e3"};
    private static final String[] LEX_BOUNDS = {"-", "+", "[a", "(a", "[b", "(c", "[", "a", "[x y", "(1"};
    private static final String[] RANKS = {"0", "1", "-1", "2", "-2", "100", "abc"};

    /** ZADD with options, ZINCRBY, ZREM, ZREMRANGEBY*, pops and the STORE forms. */
    private static String[] zsetWrite(SplittableRandom r, String k, String k2) {
        return switch (r.nextInt(9)) {
            case 0, 1, 2 -> {
                List<String> all = new ArrayList<>(List.of("ZADD", k));
                for (int i = r.nextInt(3); i > 0; i--) {
                    all.add(pick(r, new String[] {"NX", "XX", "GT", "LT", "CH", "INCR"}));
                }
                for (int i = 1 + r.nextInt(3); i > 0; i--) {
                    all.add(pick(r, SCORES));
                    all.add(pick(r, MEMBERS));
                }
                if (r.nextInt(20) == 0) {
                    all.removeLast();
                }
                yield all.toArray(String[]::new);
            }
            case 3 -> new String[] {"ZINCRBY", k, pick(r, SCORES), pick(r, MEMBERS)};
            case 4 -> new String[] {"ZREM", k, pick(r, MEMBERS), pick(r, MEMBERS)};
            case 5 -> switch (r.nextInt(3)) {
                case 0 -> new String[] {"ZREMRANGEBYRANK", k, pick(r, RANKS), pick(r, RANKS)};
                case 1 -> new String[] {"ZREMRANGEBYSCORE", k, pick(r, SCORE_BOUNDS), pick(r, SCORE_BOUNDS)};
                default -> new String[] {"ZREMRANGEBYLEX", k, pick(r, LEX_BOUNDS), pick(r, LEX_BOUNDS)};
            };
            case 6 -> r.nextBoolean() ? new String[] {pick(r, new String[] {"ZPOPMIN", "ZPOPMAX"}), k}
                    : new String[] {pick(r, new String[] {"ZPOPMIN", "ZPOPMAX"}), k, pick(r, RANKS)};
            case 7 -> with(r, new String[] {"ZMPOP", pick(r, new String[] {"1", "2", "0"}), k, k2,
                pick(r, new String[] {"MIN", "MAX", "BOGUS"})}, "COUNT " + pick(r, RANKS));
            default -> switch (r.nextInt(3)) {
                case 0 -> with(r, new String[] {"ZRANGESTORE", k2, k, pick(r, SCORE_BOUNDS), pick(r, SCORE_BOUNDS)},
                        "BYSCORE", "REV", "LIMIT 0 1", "BYLEX");
                case 1 -> with(r, new String[] {pick(r, new String[] {"ZUNIONSTORE", "ZINTERSTORE"}), k2, "2", k, k2},
                        "WEIGHTS 2 " + pick(r, SCORES), "AGGREGATE " + pick(r, new String[] {"SUM", "MIN", "MAX", "X"}));
                default -> new String[] {"ZDIFFSTORE", k2, pick(r, new String[] {"1", "2"}), k, k2};
            };
        };
    }

    /** The sorted set reads: by member, by range in every form, counts, the set operations, ZSCAN. */
    private static String[] zsetRead(SplittableRandom r, String k, String k2) {
        return switch (r.nextInt(10)) {
            case 0 -> new String[] {pick(r, new String[] {"ZSCORE", "ZRANK", "ZREVRANK"}), k, pick(r, MEMBERS)};
            case 1 -> new String[] {r.nextBoolean() ? "ZCARD" : "ZMSCORE", k, pick(r, MEMBERS)};
            case 2, 3 -> {
                boolean lex = r.nextInt(3) == 0;
                boolean score = !lex && r.nextBoolean();
                String[] bounds = lex ? LEX_BOUNDS : score ? SCORE_BOUNDS : RANKS;
                yield with(r, new String[] {"ZRANGE", k, pick(r, bounds), pick(r, bounds)}, lex ? "BYLEX" : "BYSCORE",
                        "REV", "WITHSCORES", "LIMIT 0 2", "LIMIT 1 -1", "LIMIT -1 1", "BOGUS");
            }
            case 4 -> with(r, new String[] {pick(r, new String[] {"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}), k,
                pick(r, SCORE_BOUNDS), pick(r, SCORE_BOUNDS)}, "WITHSCORES", "LIMIT 1 2", "LIMIT 0 -1");
            case 5 -> with(r, new String[] {pick(r, new String[] {"ZRANGEBYLEX", "ZREVRANGEBYLEX"}), k,
                pick(r, LEX_BOUNDS), pick(r, LEX_BOUNDS)}, "LIMIT 1 2", "WITHSCORES");
            case 6 -> r.nextBoolean() ? new String[] {"ZCOUNT", k, pick(r, SCORE_BOUNDS), pick(r, SCORE_BOUNDS)}
                    : new String[] {"ZLEXCOUNT", k, pick(r, LEX_BOUNDS), pick(r, LEX_BOUNDS)};
            case 7 -> with(r, new String[] {pick(r, new String[] {"ZUNION", "ZINTER", "ZDIFF"}),
                pick(r, new String[] {"1", "2", "3", "0"}), k, k2}, "WITHSCORES", "WEIGHTS 1 -1", "AGGREGATE MAX");
            case 8 -> with(r, new String[] {"ZINTERCARD", pick(r, new String[] {"1", "2"}), k, k2},
                    "LIMIT " + pick(r, RANKS));
            default -> r.nextBoolean()
                    ? with(r, new String[] {"ZRANDMEMBER", k, pick(r, new String[] {"100", "0", "-0", "abc"})}, "WITHSCORES")
                    : with(r, new String[] {"ZSCAN", k, pick(r, new String[] {"0", "abc"})}, "COUNT 1", "MATCH [ab]*");
        };
    }

    /** The command followed by 0–2 of the options (each may be several words), in random order. */
    private static String[] with(SplittableRandom r, String[] command, String... options) {
        List<String> all = new ArrayList<>(List.of(command));
        for (int i = r.nextInt(3); i > 0; i--) {
            all.addAll(List.of(pick(r, options).split(" ")));
        }
        return all.toArray(String[]::new);
    }

    /**
     * A TTL in seconds ({@code unit} 1) or milliseconds (1000): mostly a random one long enough
     * not to expire during a run and unlikely to equal another (GT and LT compare deadlines, and
     * two equal ones set a millisecond apart would make the servers' clocks decide), sometimes an
     * invalid or extreme one.
     */
    private static String ttl(SplittableRandom r, int unit) {
        return r.nextInt(4) == 0 ? pick(r, TTLS) : Long.toString(unit * r.nextLong(100, 10_000_000));
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
