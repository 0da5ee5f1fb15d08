package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of set commands sent to redis-server 7 and to Colossal. Redis answers a
 * hashtable set in its table's order, so the replies of whole sets (SMEMBERS, SINTER, SUNION,
 * SDIFF, SPOP and SRANDMEMBER of counts covering the set, SSCAN's members) are compared with their
 * members sorted; every other reply byte for byte. Only the draws that do not depend on chance are
 * made: SPOP and SRANDMEMBER take 0, counts past any set's size, or invalid ones. Members mix
 * integers and text, so that sets turn from intsets into hashtables, and a rare SADD of 600
 * integers passes the intset's 512. Seeded; more seeds: {@code -Dcolossal.setSeeds=100}.
 */
class SetsDifferentialTest {

    private static final String[] KEYS = {"a", "b", "c", "a", "b", "str", "h", "nosuch"};
    private static final String[] MEMBERS = {"1", "2", "3", "-1", "10", "0", "007", "-0", "1.5", "a", "b", "",
        "x y", "9223372036854775807", "9223372036854775808", "-9223372036854775808"};
    /** The commands whose reply is a whole set, whose order is Redis's table's. */
    private static final Set<String> UNORDERED = Set.of("SMEMBERS", "SINTER", "SUNION", "SDIFF", "SPOP", "SRANDMEMBER");
    /** SPOP's counts: none that leaves chance to pick. */
    private static final String[] POP_COUNTS = {"0", "1000", "9223372036854775807", "-0", "x", "-1", "1.5"};
    /** SRANDMEMBER's: a negative one but Redis's refused minimum would draw at random. */
    private static final String[] RANDOM_COUNTS = {"0", "1000", "9223372036854775807", "-0", "x", "1.5",
        "-9223372036854775808"};

    @TempDir
    Path dir;

    @Test
    void randomSetCommandsGetTheSameRepliesAsRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            for (long seed = 1; seed <= Long.getLong("colossal.setSeeds", 8); seed++) {
                r.call("FLUSHALL");
                o.call("FLUSHALL");
                String protocol = seed % 2 == 0 ? "3" : "2"; // RESP3 on even seeds: sets are '~' there
                r.call("HELLO", protocol);
                o.call("HELLO", protocol);
                SplittableRandom random = new SplittableRandom(seed);
                List<String> sent = new ArrayList<>();
                for (int i = 0; i < 2000; i++) {
                    String[] cmd = command(random);
                    String line = String.join(" | ", cmd);
                    sent.add(line.length() > 200 ? line.substring(0, 200) + "..." : line);
                    byte[] frame = Wire.encode(cmd);
                    r.send(frame);
                    o.send(frame);
                    String want = comparable(cmd[0], r.reply());
                    String got = comparable(cmd[0], o.reply());
                    if (!want.equals(got)) {
                        List<String> tail = sent.subList(Math.max(0, sent.size() - 12), sent.size());
                        assertEquals(show(want), show(got), "seed " + seed + ", command " + i + "; last commands:\n  "
                                + String.join("\n  ", tail));
                    }
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    static String[] command(SplittableRandom r) {
        String k = pick(r, KEYS);
        String k2 = pick(r, KEYS);
        String m = pick(r, MEMBERS);
        return switch (r.nextInt(29)) {
            case 0, 1, 2, 3 -> members(r, "SADD", k);
            case 4, 5 -> members(r, "SREM", k);
            case 6 -> new String[] {"SISMEMBER", k, m};
            case 7 -> members(r, "SMISMEMBER", k);
            case 8 -> new String[] {"SCARD", k};
            case 9, 10 -> new String[] {"SMEMBERS", k};
            case 11 -> new String[] {"SRANDMEMBER", k, pick(r, RANDOM_COUNTS)};
            case 12 -> new String[] {"SPOP", k, pick(r, POP_COUNTS)};
            case 13, 14 -> new String[] {"SMOVE", k, k2, m};
            case 15 -> keys(r, pick(r, new String[] {"SINTER", "SUNION", "SDIFF"}));
            case 16 -> keys(r, pick(r, new String[] {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}));
            case 17 -> {
                String[] keys = keys(r, "SINTERCARD");
                int n = keys.length - 1;
                List<String> all = new ArrayList<>(List.of("SINTERCARD", Integer.toString(n)));
                all.addAll(List.of(keys).subList(1, keys.length));
                if (r.nextBoolean()) {
                    all.addAll(List.of("LIMIT", pick(r, new String[] {"0", "1", "2", "-1", "x"})));
                }
                yield all.toArray(String[]::new);
            }
            case 18 -> r.nextBoolean() ? new String[] {"SSCAN", k, "0", "COUNT", "1000"}
                    : new String[] {"SSCAN", k, "0", "COUNT", "1000", "MATCH", pick(r, new String[] {"*", "1*", "?", "[ab]*"})};
            case 19 -> new String[] {"OBJECT", "ENCODING", k};
            case 20 -> new String[] {"TYPE", k};
            case 21 -> new String[] {"DEL", k};
            case 22 -> new String[] {"EXPIRE", k, Integer.toString(r.nextInt(1000, 100_000))};
            case 23 -> new String[] {"TTL", k};
            case 24 -> new String[] {"SET", "str", m};
            case 25 -> new String[] {"HSET", "h", m, m};
            case 26 -> new String[] {r.nextBoolean() ? "RENAME" : "COPY", k, k2};
            case 27 -> r.nextInt(10) == 0 ? many(r, k) : new String[] {"EXISTS", k, k2};
            default -> new String[] {"SRANDMEMBER", k};
        };
    }

    /** The command with 1–3 members. */
    private static String[] members(SplittableRandom r, String name, String k) {
        List<String> all = new ArrayList<>(List.of(name, k));
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            all.add(pick(r, MEMBERS));
        }
        return all.toArray(String[]::new);
    }

    private static String[] keys(SplittableRandom r, String name) {
        List<String> all = new ArrayList<>(List.of(name));
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            all.add(pick(r, KEYS));
        }
        return all.toArray(String[]::new);
    }

    /** SADD of 600 integers from a random start: past the intset's 512 entries. */
    private static String[] many(SplittableRandom r, String k) {
        List<String> all = new ArrayList<>(List.of("SADD", k));
        int from = r.nextInt(-100, 100);
        for (int i = 0; i < 600; i++) {
            all.add(Integer.toString(from + i));
        }
        return all.toArray(String[]::new);
    }

    /**
     * The reply as compared: a whole set's (or SSCAN's) members sorted, and the one member
     * SRANDMEMBER without a count picks by chance as its type only.
     */
    static String comparable(String command, String reply) {
        if (command.equals("SSCAN") && reply.startsWith("*2\r\n$1\r\n0\r\n")) {
            String head = "*2\r\n$1\r\n0\r\n";
            return head + sorted(reply.substring(head.length()));
        }
        if (UNORDERED.contains(command) && (reply.startsWith("*") || reply.startsWith("~"))) {
            return sorted(reply);
        }
        if (command.equals("SRANDMEMBER") && reply.startsWith("$")) {
            return "a bulk string";
        }
        return reply;
    }

    /** A flat array or set of bulk strings with its elements sorted. */
    private static String sorted(String reply) {
        int eol = reply.indexOf("\r\n");
        int n = Integer.parseInt(reply.substring(1, eol));
        List<String> elements = new ArrayList<>();
        int at = eol + 2;
        for (int i = 0; i < n; i++) {
            int lineEnd = reply.indexOf("\r\n", at);
            int len = Integer.parseInt(reply.substring(at + 1, lineEnd));
            int end = lineEnd + 2 + utf8Chars(reply, lineEnd + 2, len) + 2;
            elements.add(reply.substring(at, end));
            at = end;
        }
        elements.sort(null);
        return reply.substring(0, eol + 2) + String.join("", elements) + reply.substring(at);
    }

    /** How many chars of {@code s} from {@code from} make {@code bytes} UTF-8 bytes (the members here are ASCII). */
    private static int utf8Chars(String s, int from, int bytes) {
        int chars = 0;
        for (int b = 0; b < bytes; chars++) {
            b += String.valueOf(s.charAt(from + chars)).getBytes(StandardCharsets.UTF_8).length;
        }
        return chars;
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }

    private static String show(String reply) {
        return reply.replace("\r\n", "\\r\\n");
    }
}
