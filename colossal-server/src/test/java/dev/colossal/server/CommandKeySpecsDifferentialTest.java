package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * COMMAND INFO, COMMAND DOCS, COMMAND LIST, COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS against
 * redis-server 7.0.15, byte for byte, in RESP2 and RESP3, for every command and subcommand both
 * servers have: cluster clients and proxies route by INFO's key specs, RedisInsight reads DOCS.
 * GETKEYS is asked of each command with argument lists built from its DOCS arguments (only the
 * required ones, then every option with repeated arguments twice) and with random ones drawn from
 * its tokens, key names and counts good and bad (numkeys 0, -1, 02, 2x, past the arguments).
 *
 * <p>Compared as sets, not in order: Redis lists commands, and a container's subcommands, in its
 * hash tables' order, which changes from one run of redis-server to the next.
 *
 * <p>Left out: {@link #NOT_HERE}, the commands this server does not have (none now; Redis would
 * answer for them what it would run, this server "Invalid command specified").
 */
class CommandKeySpecsDifferentialTest {

    /** Redis's commands this server lacks: none now (kept for the day a Redis has one we do not). */
    static final Set<String> NOT_HERE = Set.of();
    /** Arguments the random lists draw from, besides a command's own tokens: keys and counts good and bad. */
    private static final String[] POOL = {"k1", "k2", "k3", "0", "1", "2", "3", "-1", "02", "2x", "abc", "", "99",
        "4294967297", " 1", "+1"};

    @TempDir
    Path dir;

    @Test
    void commandInfoDocsAndKeysAreRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            List<String> names = names(o, "COMMAND", "LIST");
            Set<String> theirs = new TreeSet<>(names(r, "COMMAND", "LIST"));
            theirs.removeIf(n -> NOT_HERE.contains(n.split("\\|")[0]));
            assertEquals(theirs, new TreeSet<>(names), "COMMAND LIST");
            assertEquals(Long.parseLong(r.call("COMMAND", "COUNT").trim().substring(1)) - NOT_HERE.size(),
                    Long.parseLong(o.call("COMMAND", "COUNT").trim().substring(1)), "COMMAND COUNT");
            int asked = 0;
            for (String protocol : List.of("2", "3")) {
                r.call("HELLO", protocol);
                o.call("HELLO", protocol);
                for (String name : names) {
                    same(r, o, "COMMAND", "INFO", name);
                    same(r, o, "COMMAND", "DOCS", name);
                }
                same(r, o, "COMMAND", "INFO", "get", "nosuch", "CONFIG|GET", "config|nosuch", "get|x");
                same(r, o, "COMMAND", "DOCS", "nosuch", "set", "OBJECT|ENCODING");
                whole(r, o, "COMMAND");
                whole(r, o, "COMMAND", "INFO");
                wholeDocs(r, o);
                for (String[] list : LISTS) {
                    assertEquals(names(r, list).stream().filter(n -> !NOT_HERE.contains(n.split("\\|")[0]))
                            .collect(java.util.stream.Collectors.toCollection(TreeSet::new)),
                            new TreeSet<>(names(o, list)), String.join(" ", list));
                }
                for (String[] c : ERRORS) {
                    sameBytes(r, o, c);
                }
            }
            r.call("HELLO", "3");
            o.call("HELLO", "3");
            SplittableRandom random = new SplittableRandom(7);
            for (String name : names) {
                List<String> words = List.of(name.split("\\|"));
                RespFrame docs = RespFrame.parse(raw(r, "COMMAND", "DOCS", name));
                List<RespFrame> args = field(docs.children().get(1), "arguments");
                Set<String> tokens = new LinkedHashSet<>();
                for (boolean full : new boolean[] {false, true}) {
                    List<String> cmd = new ArrayList<>(words);
                    int[] keys = {0};
                    build(args, full, cmd, keys, tokens);
                    getKeys(r, o, cmd);
                    asked++;
                }
                List<String> draw = new ArrayList<>(tokens);
                draw.addAll(List.of(POOL));
                for (int i = 0; i < 40; i++) {
                    List<String> cmd = new ArrayList<>(words);
                    int n = random.nextInt(7);
                    for (int j = 0; j < n; j++) {
                        cmd.add(draw.get(random.nextInt(draw.size())));
                    }
                    getKeys(r, o, cmd);
                    asked++;
                }
            }
            for (String[] c : KEY_SHAPES) {
                getKeys(r, o, List.of(c));
            }
            assertEquals(true, asked > 1000, "GETKEYS asked " + asked + " times");
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    /** Filters of COMMAND LIST, compared as sets of names. */
    private static final String[][] LISTS = {
        {"COMMAND", "LIST", "FILTERBY", "PATTERN", "x*"}, {"COMMAND", "LIST", "FILTERBY", "pattern", "CONFIG*"},
        {"COMMAND", "LIST", "FILTERBY", "PATTERN", "*|*"}, {"COMMAND", "LIST", "FILTERBY", "ACLCAT", "read"},
        {"COMMAND", "LIST", "FILTERBY", "aclcat", "Dangerous"}, {"COMMAND", "LIST", "FILTERBY", "ACLCAT", "@read"},
        {"COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"}, {"COMMAND", "LIST", "FILTERBY", "MODULE", "x"},
    };

    /** COMMAND's errors and small replies, byte for byte. */
    private static final String[][] ERRORS = {
        {"COMMAND", "LIST", "FILTERBY"}, {"COMMAND", "LIST", "FILTERBY", "PATTERN"}, {"COMMAND", "LIST", "x", "y", "z"},
        {"COMMAND", "LIST", "FILTERBY", "NOPE", "x"}, {"COMMAND", "LIST", "FILTERBY", "PATTERN", "x", "y"},
        {"COMMAND", "COUNT", "x"}, {"COMMAND", "HELP"}, {"COMMAND", "HELP", "x"}, {"COMMAND", "NOPE"},
        {"COMMAND", "GETKEYS"}, {"COMMAND", "GETKEYS", "get"}, {"COMMAND", "GETKEYSANDFLAGS", "get"},
        {"COMMAND", "GETKEYS", "nosuch", "x"}, {"COMMAND", "GETKEYS", "ping", "x"}, {"COMMAND", "GETKEYS", "get|x", "y"},
        {"COMMAND", "GETKEYS", "object", "nosuch", "x"}, {"COMMAND", "GETKEYS", "config", "get", "x"},
        {"COMMAND", "GETKEYS", "spublish", "c", "m"},
        {"COMMAND", "GETKEYSANDFLAGS", "ssubscribe", "c"}, {"COMMAND", "GETKEYS", "migrate", "h", "1", "k", "0", "5"},
        {"COMMAND", "GETKEYSANDFLAGS", "migrate", "h", "1", "", "0", "5", "KEYS", "a", "b"},
        {"COMMAND", "GETKEYS", "migrate", "h", "1", "k", "0", "5", "KEYS", "a"},
        {"COMMAND", "GETKEYS", "migrate", "h", "1", "k", "0", "5", "COPY", "AUTH", "KEYS", "x"},
        {"COMMAND", "GETKEYS", "migrate", "h", "1", "", "0", "5", "AUTH2", "KEYS", "x", "y", "z"},
    };

    /** The variadic key shapes, each with its good and bad counts. */
    private static final String[][] KEY_SHAPES = {
        {"zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"}, {"zunionstore", "d", "0", "a"},
        {"zunionstore", "d", "3", "a", "b"}, {"zunionstore", "d", "2x", "a", "b"}, {"zunionstore", "d", "02", "a", "b"},
        {"zinterstore", "d", "-1", "a"}, {"zdiff", "2", "a", "b", "WITHSCORES"}, {"zintercard", "1", "a", "LIMIT", "1"},
        {"eval", "s", "0"}, {"eval", "s", "2", "a", "b", "c"}, {"eval", "s", "3", "a"}, {"eval", "s", "x", "a"},
        {"evalsha", "s", "1", "a"}, {"eval_ro", "s", "1", "a"}, {"fcall", "f", "1", "a", "b"}, {"fcall_ro", "f", "2x", "a", "b"},
        {"xread", "STREAMS", "a", "b", "0", "0"}, {"xread", "COUNT", "1", "STREAMS", "a", "0"}, {"xread", "STREAMS", "a"},
        {"xread", "STREAMS", "a", "b", "0"}, {"xread", "COUNT", "1", "x", "STREAMS"},
        {"xreadgroup", "GROUP", "g", "c", "STREAMS", "a", "0"}, {"xreadgroup", "GROUP", "g", "c", "STREAMS", "a"},
        {"xreadgroup", "GROUP", "g", "STREAMS", "c", "STREAMS", "a", ">"},
        {"sort", "a", "BY", "w*", "GET", "o*", "STORE", "d"}, {"sort", "a", "STORE", "d1", "STORE", "d2"},
        {"sort", "a", "LIMIT", "0", "1", "STORE"}, {"sort", "a", "GET", "STORE", "x"}, {"sort_ro", "a", "BY", "w*"},
        {"lmpop", "2", "a", "b", "LEFT"}, {"lmpop", "0", "a", "LEFT"}, {"lmpop", "3", "a", "LEFT"},
        {"blmpop", "0", "2", "a", "b", "LEFT"}, {"zmpop", "1", "a", "MIN"}, {"bzmpop", "0", "1", "a", "MAX", "COUNT", "2"},
        {"sintercard", "2", "a", "b", "LIMIT", "1"}, {"sintercard", "2x", "a", "b"},
        {"georadius", "a", "0", "0", "1", "km", "STORE", "d"}, {"georadius", "a", "0", "0", "1", "km", "STOREDIST", "d"},
        {"georadius", "a", "0", "0", "1", "km", "STORE", "d", "STOREDIST", "e"}, {"georadius", "a", "0", "0", "1", "km", "STORE"},
        {"georadiusbymember", "a", "m", "1", "km", "STORE", "d"}, {"georadius_ro", "a", "0", "0", "1", "km"},
        {"geosearchstore", "d", "s", "FROMMEMBER", "m", "BYRADIUS", "1", "km"},
        {"set", "k", "v", "GET"}, {"set", "k", "v", "EX", "1"}, {"set", "k", "v", "get"},
        {"bitfield", "k", "GET", "u8", "0"}, {"bitfield", "k", "SET", "u8", "0", "1"}, {"bitfield", "k", "OVERFLOW", "SAT"},
        {"bitfield", "k", "GET", "u8"}, {"bitfield", "k", "INCRBY", "u8", "0", "1"}, {"bitfield", "k", "nope"},
        {"bitfield_ro", "k", "GET", "u8", "0"}, {"mset", "a", "1", "b", "2"}, {"mset", "a", "1", "b"},
        {"msetnx", "a", "1"}, {"del", "a", "b", "c"}, {"blpop", "a", "b", "0"}, {"bitop", "AND", "d", "a", "b"},
        {"object", "encoding", "k"}, {"memory", "usage", "k", "SAMPLES", "1"}, {"xinfo", "stream", "k", "FULL"},
        {"xgroup", "create", "k", "g", "$", "MKSTREAM"}, {"lcs", "a", "b"}, {"rename", "a", "b"}, {"copy", "a", "b", "DB", "1"},
        {"pfcount", "a", "b"}, {"pfmerge", "d", "a"}, {"getex", "k", "PERSIST"}, {"xadd", "k", "*", "f", "v"},
        {"smove", "a", "b", "m"}, {"lmove", "a", "b", "LEFT", "RIGHT"}, {"watch", "a", "b"},
    };

    /** Builds an argument list from DOCS arguments: the required ones, or all with repeats twice. */
    private static void build(List<RespFrame> args, boolean full, List<String> out, int[] keys, Set<String> tokens) {
        for (RespFrame a : args) {
            Set<String> flags = new TreeSet<>();
            List<RespFrame> f = field(a, "flags");
            f.forEach(x -> flags.add(scalar(x)));
            if (flags.contains("optional") && !full) {
                continue;
            }
            String token = text(a, "token");
            if (token != null) {
                tokens.add(token);
            }
            int reps = flags.contains("multiple") && full ? 2 : 1;
            for (int i = 0; i < reps; i++) {
                if (token != null && (i == 0 || flags.contains("multiple_token"))) {
                    out.add(token);
                }
                String type = text(a, "type");
                List<RespFrame> inner = field(a, "arguments");
                switch (type) {
                    case "key" -> out.add("key" + ++keys[0]);
                    case "integer" -> out.add(text(a, "name").equals("numkeys") ? full ? "2" : "1" : "1");
                    case "double" -> out.add("1.5");
                    case "pattern" -> out.add("p*");
                    case "unix-time" -> out.add("100");
                    case "pure-token" -> { }
                    case "oneof" -> build(List.of(inner.get(full ? inner.size() - 1 : 0)), full, out, keys, tokens);
                    case "block" -> build(inner, full, out, keys, tokens);
                    default -> out.add("s");
                }
            }
        }
    }

    private static void getKeys(Wire r, Wire o, List<String> cmd) throws IOException {
        for (String sub : List.of("GETKEYS", "GETKEYSANDFLAGS")) {
            List<String> c = new ArrayList<>(List.of("COMMAND", sub));
            c.addAll(cmd);
            sameBytes(r, o, c.toArray(String[]::new));
        }
    }

    private static void sameBytes(Wire r, Wire o, String... c) throws IOException {
        assertEquals(r.call(c), o.call(c), String.join(" ", c));
    }

    /** Compares one reply of INFO or DOCS entries, each with its subcommands in one order. */
    private static void same(Wire r, Wire o, String... c) throws IOException {
        assertEquals(canonical(c[1], raw(r, c)).text(), canonical(c[1], raw(o, c)).text(),
                String.join(" ", c));
    }

    private static RespFrame canonical(String what, byte[] reply) {
        RespFrame f = RespFrame.parse(reply);
        if (f.type() == '-') {
            return f;
        }
        List<RespFrame> c = new ArrayList<>(f.children());
        if (what.equalsIgnoreCase("DOCS")) {
            for (int i = 1; i < c.size(); i += 2) {
                c.set(i, docs(c.get(i)));
            }
        } else {
            c.replaceAll(CommandKeySpecsDifferentialTest::info);
        }
        return new RespFrame(f.type(), f.header(), c);
    }

    private static RespFrame info(RespFrame e) {
        return e.children().size() == 10 ? e.with(9, e.children().get(9).sorted()) : e;
    }

    private static RespFrame docs(RespFrame d) {
        for (int i = 0; i < d.children().size(); i += 2) {
            if (scalar(d.children().get(i)).equals("subcommands")) {
                return d.with(i + 1, d.children().get(i + 1).sortedPairs());
            }
        }
        return d;
    }

    /** Compares a reply of every command's INFO, as a set of entries (Redis's without those this server lacks). */
    private static void whole(Wire r, Wire o, String... c) throws IOException {
        assertEquals(entries(raw(r, c), true), entries(raw(o, c), false), String.join(" ", c));
    }

    private static Set<String> entries(byte[] reply, boolean theirs) {
        Set<String> out = new TreeSet<>();
        for (RespFrame e : RespFrame.parse(reply).children()) {
            if (!theirs || !NOT_HERE.contains(scalar(e.children().get(0)))) {
                out.add(info(e).text());
            }
        }
        return out;
    }

    private static void wholeDocs(Wire r, Wire o) throws IOException {
        List<Set<String>> both = new ArrayList<>();
        for (Wire w : List.of(r, o)) {
            List<RespFrame> c = RespFrame.parse(raw(w, "COMMAND", "DOCS")).children();
            Set<String> s = new TreeSet<>();
            for (int i = 0; i < c.size(); i += 2) {
                if (!NOT_HERE.contains(scalar(c.get(i)))) {
                    s.add(scalar(c.get(i)) + " " + docs(c.get(i + 1)).text());
                }
            }
            both.add(s);
        }
        assertEquals(both.get(0), both.get(1), "COMMAND DOCS");
    }

    private static List<String> names(Wire w, String... c) throws IOException {
        List<String> out = new ArrayList<>();
        RespFrame.parse(raw(w, c)).children().forEach(x -> out.add(scalar(x)));
        return out;
    }

    /** @return a map's (RESP3) field as a list of elements, empty if it has none */
    private static List<RespFrame> field(RespFrame map, String name) {
        for (int i = 0; i < map.children().size(); i += 2) {
            if (scalar(map.children().get(i)).equals(name)) {
                return map.children().get(i + 1).children();
            }
        }
        return List.of();
    }

    private static String text(RespFrame map, String name) {
        for (int i = 0; i < map.children().size(); i += 2) {
            if (scalar(map.children().get(i)).equals(name)) {
                return scalar(map.children().get(i + 1));
            }
        }
        return null;
    }

    private static byte[] raw(Wire w, String... c) throws IOException {
        byte[][] b = new byte[c.length][];
        for (int i = 0; i < c.length; i++) {
            b[i] = c[i].getBytes(StandardCharsets.UTF_8);
        }
        return w.call(b);
    }

    /** @return a bulk's or status's text */
    private static String scalar(RespFrame f) {
        String s = new String(f.header(), StandardCharsets.UTF_8);
        return f.type() == '$' ? s.substring(s.indexOf('\n') + 1, s.length() - 2) : s.substring(1, s.length() - 2);
    }
}
