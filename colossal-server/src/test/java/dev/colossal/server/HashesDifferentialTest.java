package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of hash commands sent to redis-server 7 and to Colossal, both with
 * {@code hash-max-listpack-entries 4}, so that hashes turn into hashtables (bucketed ones here,
 * whose buckets then split every few fields) all the time. Redis answers a hashtable hash in its
 * table's order, so the replies of whole hashes (HGETALL, HKEYS, HVALS, HSCAN's, HRANDFIELD of a
 * count covering the hash) are compared sorted, by pair where there are values; every other reply
 * byte for byte. DUMP is checked by a script that RESTOREs each server's own payload. Seeded; more seeds:
 * {@code -Dcolossal.hashSeeds=100}.
 */
class HashesDifferentialTest {

    private static final String[] KEYS = {"a", "b", "c", "a", "b", "a", "str", "nosuch"};
    private static final String[] VALUES = {"1", "-5", "1.5", "abc", "", "9223372036854775807",
        "x".repeat(100)};
    /** Whole-hash replies: compared as sorted pairs or sorted elements. */
    private static final Set<String> PAIRS = Set.of("HGETALL");
    private static final Set<String> ELEMENTS = Set.of("HKEYS", "HVALS");

    @TempDir
    Path dir;

    @Test
    void randomHashCommandsOnHashtablesGetTheSameRepliesAsRedis() throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.masking(HashesDifferentialTest::comparable).run(Long.getLong("colossal.hashSeeds", 6), 3000,
                    List.<String[]>of(new String[] {"CONFIG", "SET", "hash-max-listpack-entries", "4"}),
                    HashesDifferentialTest::command);
        }
    }

    /** DUMP of {@code k} RESTOREd by a script under "restored", then what the copy holds. */
    private static List<String[]> dumpAndRestore(String k) {
        String script = "local d = redis.call('DUMP', KEYS[1]); if not d then return 'none' end; "
                + "return redis.call('RESTORE', KEYS[2], 0, d, 'REPLACE')";
        return List.of(new String[] {"EVAL", script, "2", k, "restored"}, new String[] {"HGETALL", "restored"},
                new String[] {"OBJECT", "ENCODING", "restored"}, new String[] {"HLEN", "restored"});
    }

    private static List<String[]> command(SplittableRandom r) {
        String k = pick(r, KEYS);
        if (r.nextInt(30) == 0) {
            return dumpAndRestore(k);
        }
        return List.<String[]>of(single(r, k));
    }

    private static String[] single(SplittableRandom r, String k) {
        String f = field(r);
        return switch (r.nextInt(30)) {
            case 0, 1, 2, 3, 4, 5, 6, 7 -> pairs(r, "HSET", k, 1 + r.nextInt(3));
            case 8 -> pairs(r, "HMSET", k, 1 + r.nextInt(20));
            case 9 -> new String[] {"HSETNX", k, f, pick(r, VALUES)};
            case 10, 11, 12 -> fields(r, "HDEL", k);
            case 13, 14 -> new String[] {"HGET", k, f};
            case 15 -> fields(r, "HMGET", k);
            case 16 -> new String[] {"HEXISTS", k, f};
            case 17 -> new String[] {"HSTRLEN", k, f};
            case 18 -> new String[] {"HLEN", k};
            case 19 -> new String[] {"HGETALL", k};
            case 20 -> new String[] {pick(r, new String[] {"HKEYS", "HVALS"}), k};
            case 21 -> new String[] {"HINCRBY", k, f, pick(r, new String[] {"1", "-3", "x", "9223372036854775807"})};
            case 22 -> new String[] {"HINCRBYFLOAT", k, f, pick(r, new String[] {"1.5", "-2", "x", "1e400"})};
            case 23 -> r.nextBoolean() ? new String[] {"HSCAN", k, "0", "COUNT", "1000"}
                    : new String[] {"HSCAN", k, "0", "COUNT", "1000", "MATCH", pick(r, new String[] {"f1*", "*", "?"})};
            case 24 -> r.nextBoolean() ? new String[] {"HRANDFIELD", k, "1000"} : new String[] {"HRANDFIELD", k, "1000", "WITHVALUES"};
            case 25 -> new String[] {"OBJECT", "ENCODING", k};
            case 26 -> new String[] {pick(r, new String[] {"RENAME", "COPY"}), k, pick(r, KEYS)};
            case 27 -> new String[] {"HSETNX", k, f, "nx"};
            case 28 -> r.nextInt(4) == 0 ? new String[] {"DEL", k} : new String[] {"TYPE", k};
            default -> new String[] {"HRANDFIELD", k};
        };
    }

    /** A field: one of 48, a few of them long enough (over 64 bytes) to make a hash a hashtable alone. */
    private static String field(SplittableRandom r) {
        int i = r.nextInt(48);
        return i == 47 ? "long-" + "y".repeat(70) : "f" + i;
    }

    private static String[] pairs(SplittableRandom r, String name, String k, int n) {
        List<String> all = new ArrayList<>(List.of(name, k));
        for (int i = 0; i < n; i++) {
            all.add(field(r));
            all.add(pick(r, VALUES));
        }
        if (r.nextInt(30) == 0) {
            all.removeLast(); // the arity error
        }
        return all.toArray(String[]::new);
    }

    private static String[] fields(SplittableRandom r, String name, String k) {
        List<String> all = new ArrayList<>(List.of(name, k));
        for (int i = 1 + r.nextInt(4); i > 0; i--) {
            all.add(field(r));
        }
        return all.toArray(String[]::new);
    }

    /** The reply as compared: whole hashes sorted, and the field HRANDFIELD without a count picks as its type only. */
    static String comparable(String[] cmd, String reply) {
        String name = cmd[0];
        if (name.equals("HSCAN") && reply.startsWith("*2\r\n$1\r\n0\r\n")) {
            String head = "*2\r\n$1\r\n0\r\n";
            return head + sortedPairs(reply.substring(head.length()));
        }
        if (PAIRS.contains(name) || name.equals("HRANDFIELD") && cmd.length == 4) {
            return sortedPairs(reply);
        }
        if (ELEMENTS.contains(name) || name.equals("HRANDFIELD") && cmd.length == 3) {
            return sortedPairs(reply, 1);
        }
        if (name.equals("HRANDFIELD") && reply.startsWith("$")) {
            return "a bulk string";
        }
        return reply;
    }

    private static String sortedPairs(String reply) {
        return sortedPairs(reply, 2);
    }

    /**
     * An array or map of bulk strings, or of arrays of bulk strings (RESP3's HRANDFIELD
     * WITHVALUES), with its groups of {@code group} bulk strings (or its arrays) sorted; anything
     * else as it is.
     */
    private static String sortedPairs(String reply, int group) {
        if (reply.isEmpty() || "*%".indexOf(reply.charAt(0)) < 0) {
            return reply;
        }
        int eol = reply.indexOf("\r\n");
        int n = Integer.parseInt(reply.substring(1, eol));
        int items = reply.charAt(0) == '%' ? 2 * n : n;
        List<String> found = new ArrayList<>();
        int at = eol + 2;
        for (int i = 0; i < items; i++) {
            int end = at;
            int strings = 1;
            if (reply.charAt(at) == '*') {
                int headEnd = reply.indexOf("\r\n", at);
                strings = Integer.parseInt(reply.substring(at + 1, headEnd));
                end = headEnd + 2;
            }
            for (int j = 0; j < strings; j++) {
                int lineEnd = reply.indexOf("\r\n", end);
                end = lineEnd + 2 + Integer.parseInt(reply.substring(end + 1, lineEnd)) + 2;
            }
            found.add(reply.substring(at, end));
            at = end;
        }
        int g = !found.isEmpty() && found.getFirst().startsWith("*") ? 1 : group;
        List<String> groups = new ArrayList<>();
        for (int i = 0; i + g <= found.size(); i += g) {
            groups.add(String.join("", found.subList(i, i + g)));
        }
        groups.sort(null);
        return reply.substring(0, eol + 2) + String.join("", groups) + reply.substring(at);
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
