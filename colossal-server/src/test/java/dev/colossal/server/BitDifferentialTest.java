package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random bit commands (SETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD chains) and random uses of the
 * scripts' {@code struct} and {@code cmsgpack} sent to redis-server 7 and to Colossal: every raw
 * reply must be identical, byte for byte. The combinations {@link RedisCompatTest}'s lines do not
 * write down: fields straddling bytes, overflow modes meeting values at their limits, ranges in
 * either unit, numbers at the edges of each encoding. Offsets stay below a few hundred bits, so no
 * command grows a string past a few dozen bytes. More seeds: {@code -Dcolossal.bitSeeds=50}.
 */
class BitDifferentialTest {

    private static final String[] KEYS = {"ba", "bb", "bc", "bh"}; // bh is a hash
    private static final String[] BYTES = {"\u0000", "\u00ff", "\u000f", "\u00f0", "\u0080", "\u0001", "a", "\u00aa"};
    private static final String[] INDEXES = {"0", "1", "2", "-1", "-2", "-3", "5", "10", "100", "-100", "x"};
    private static final String[] LIMITS = {"0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "65535",
        "-32768", "2147483647", "-2147483648", "4294967295", "4294967296", "9223372036854775807",
        "-9223372036854775808", "12345", "-7", "x", "1.5"};
    private static final String[] NUMBERS = {"0", "1", "-1", "0.5", "-0.5", "1.5", "127", "128", "255", "256", "-32",
        "-33", "-128", "-129", "65535", "65536", "-32768", "-32769", "2^31", "-2^31", "2^32", "2^32-1", "-2^31-1",
        "2^53", "2^63", "-2^63", "2^64", "1e15", "-1e15", "0.1", "1/3", "1e300", "-1e-300", "3.25", "1/0", "-1/0",
        "0/0", "'7'", "' 12 '"};
    /**
     * Lua: its arguments as text, a table as T and its count of entries (Lua's order is not
     * LuaJ's), a NaN as NaN (Colossal prints every NaN as x86's 0/0, {@code -nan}; a decoded NaN
     * may have its sign bit clear, which Redis prints {@code nan}).
     */
    private static final String SHOW = "local function show(...) local o = {} for i = 1, select('#', ...) do "
            + "local v = select(i, ...) if type(v) == 'table' then local n = 0 for _ in pairs(v) do n = n + 1 end "
            + "v = 'T' .. n elseif v ~= v then v = 'NaN' end o[i] = tostring(v) end return o end ";
    /** Bytes that are msgpack types, and some that are not. */
    private static final String[] MSGPACK = {"\u0091", "\u0092", "\u0081", "\u00a1", "\u00a2", "\u00c0", "\u00c2",
        "\u00c3", "\u00cc", "\u00cd", "\u00d0", "\u00d3", "\u00d9", "\u0001", "\u007f", "\u00ff", "\u00e0",
        "\u00ca", "\u00cb", "\u0000", "\u00c1", "\u00dc", "\u00de", "a", "\u00c4", "\u00cf"};
    /** Lua values for cmsgpack.pack: strings, booleans, arrays, one-key maps, nested. */
    private static final String[] VALUES = {"'a'", "''", "true", "false", "nil", "{}", "{1, 2}", "{'x', {true}}",
        "{k = 1}", "{[3] = 'z'}", "{1, nil, 3}", "string.rep('s', 40)", "{{{}}}", "1.5", "-7", "300", "2^40"};
    private static final String HEX = "local function hex(s) local h = '' for i = 1, #s do "
            + "h = h .. string.format('%02x', s:byte(i)) end return h end ";

    @TempDir
    Path dir;

    @Test
    void randomBitCommandsAndLuaPackingGetTheSameRepliesAsRedis() throws Exception {
        int redisPort = TestServers.freePort();
        Process redis = TestServers.redis(redisPort);
        Assumptions.assumeTrue(redis != null, "redis-server not installed");
        try (ColossalServer ours = TestServers.colossal(dir);
             Wire r = new Wire(redisPort);
             Wire o = new Wire(ours.port())) {
            for (long seed = 1; seed <= Long.getLong("colossal.bitSeeds", 4); seed++) {
                r.call("FLUSHALL");
                o.call("FLUSHALL");
                String protocol = seed % 2 == 0 ? "3" : "2"; // RESP3's null for OVERFLOW FAIL
                r.call("HELLO", protocol);
                o.call("HELLO", protocol);
                r.call("HSET", "bh", "f", "v");
                o.call("HSET", "bh", "f", "v");
                SplittableRandom random = new SplittableRandom(seed);
                List<String> sent = new ArrayList<>();
                for (int i = 0; i < 1500; i++) {
                    String[] cmd = command(random);
                    sent.add(String.join(" | ", cmd));
                    byte[] frame = Wire.encode(Arrays.stream(cmd).map(a -> a.getBytes(StandardCharsets.ISO_8859_1))
                            .toArray(byte[][]::new));
                    r.send(frame);
                    o.send(frame);
                    String want = show(r.readReply());
                    String got = show(o.readReply());
                    if (!want.equals(got)) {
                        List<String> tail = sent.subList(Math.max(0, sent.size() - 8), sent.size());
                        assertEquals(want, got, "seed " + seed + ", command " + i + "; last commands:\n  "
                                + String.join("\n  ", tail));
                    }
                }
            }
        } finally {
            redis.destroy();
            redis.waitFor();
        }
    }

    private static String[] command(SplittableRandom r) {
        String k = pick(r, KEYS);
        return switch (r.nextInt(20)) {
            case 0 -> new String[] {"SET", k, bytes(r)};
            case 1 -> new String[] {"SETBIT", k, String.valueOf(r.nextInt(80)), String.valueOf(r.nextInt(2))};
            case 2 -> new String[] {"GET", k};
            case 3 -> with(new String[] {"BITCOUNT", k, pick(r, INDEXES), pick(r, INDEXES)}, r, "BYTE", "BIT", "NO");
            case 4, 5 -> bitpos(r, k);
            case 6, 7 -> bitop(r);
            case 8, 9, 10, 11 -> bitfield(r, k, r.nextInt(6) == 0 ? "BITFIELD_RO" : "BITFIELD");
            case 12 -> new String[] {"EVAL", HEX + "return hex(cmsgpack.pack(" + numbers(r) + "))", "0"};
            case 13 -> new String[] {"EVAL", HEX + "return hex(struct.pack('" + format(r) + "', " + numbers(r) + "))", "0"};
            case 14 -> new String[] {"EVAL", "local t = {struct.unpack(ARGV[1], ARGV[2])} for i = 1, #t do "
                    + "t[i] = tostring(t[i]) end return t", "0", format(r), bytes(r) + bytes(r) + bytes(r)};
            case 15 -> new String[] {"EVAL", "local t = {cmsgpack.unpack(cmsgpack.pack(" + numbers(r) + "))} "
                    + "for i = 1, #t do t[i] = tostring(t[i]) end return t", "0"};
            case 16 -> new String[] {"EVAL", SHOW + "return show(cmsgpack.unpack(ARGV[1]))", "0", msgpack(r)};
            case 17 -> new String[] {"EVAL", SHOW + HEX + "local s = cmsgpack.pack(" + values(r) + ") "
                    + "return {hex(s), show(cmsgpack." + pick(r, new String[] {"unpack_one(s, ", "unpack_limit(s, 2, ",
                        "unpack_limit(s, 0, ", "unpack_one(s, ARGV[1] + "}) + r.nextInt(-1, 12) + "))}", "0",
                String.valueOf(r.nextInt(3))};
            case 18 -> {
                List<String> c = new ArrayList<>(List.of("EVAL", HEX + "return hex(struct.pack(unpack(ARGV)))", "0",
                        stringFormat(r)));
                for (int i = r.nextInt(5); i > 0; i--) {
                    c.add(r.nextBoolean() ? bytes(r) : pick(r, LIMITS));
                }
                yield c.toArray(String[]::new);
            }
            default -> new String[] {"EVAL", SHOW + "return show(struct.unpack(ARGV[1], ARGV[2], tonumber(ARGV[3])))",
                "0", stringFormat(r), bytes(r) + "\u0000" + bytes(r) + bytes(r), pick(r, new String[] {"1", "2", "0", "x"})};
        };
    }

    private static String[] bitpos(SplittableRandom r, String k) {
        List<String> c = new ArrayList<>(List.of("BITPOS", k, pick(r, new String[] {"0", "1", "0", "1", "2"})));
        int args = r.nextInt(4);
        for (int i = 0; i < args; i++) {
            c.add(pick(r, INDEXES));
        }
        if (args == 2 && r.nextBoolean()) {
            c.add(pick(r, new String[] {"BIT", "BYTE", "bit", "NO"}));
        }
        return c.toArray(String[]::new);
    }

    private static String[] bitop(SplittableRandom r) {
        String op = pick(r, new String[] {"AND", "OR", "XOR", "NOT", "and", "NAND"});
        List<String> c = new ArrayList<>(List.of("BITOP", op, pick(r, KEYS)));
        int n = op.equalsIgnoreCase("NOT") && r.nextInt(5) > 0 ? 1 : 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            c.add(pick(r, new String[] {"ba", "bb", "bc", "bnone", "bh", "ba"}));
        }
        return c.toArray(String[]::new);
    }

    private static String[] bitfield(SplittableRandom r, String k, String name) {
        List<String> c = new ArrayList<>(List.of(name, k));
        for (int ops = 1 + r.nextInt(4); ops > 0; ops--) {
            int what = r.nextInt(10);
            if (what == 0) {
                c.add("OVERFLOW");
                c.add(pick(r, new String[] {"WRAP", "SAT", "FAIL", "sat", "BOGUS"}));
                continue;
            }
            String kind = what < 4 ? "GET" : what < 7 ? "SET" : "INCRBY";
            c.add(kind);
            boolean signed = r.nextBoolean();
            int bits = 1 + r.nextInt(signed ? 64 : 63);
            c.add(r.nextInt(40) == 0 ? pick(r, new String[] {"u64", "i0", "i65", "x8", "U8"}) : (signed ? "i" : "u") + bits);
            int offset = r.nextInt(70);
            c.add(r.nextInt(40) == 0 ? pick(r, new String[] {"-1", "x", "#-1", "4294967296"})
                    : r.nextInt(4) == 0 ? "#" + offset / 16 : String.valueOf(offset));
            if (!kind.equals("GET")) {
                c.add(r.nextBoolean() ? pick(r, LIMITS) : String.valueOf(r.nextLong() >> r.nextInt(64)));
            }
        }
        return c.toArray(String[]::new);
    }

    /** A struct format of integer and float options, sometimes with byte order, alignment and sizes. */
    private static String format(SplittableRandom r) {
        StringBuilder f = new StringBuilder();
        for (int n = 1 + r.nextInt(3); n > 0; n--) {
            if (r.nextInt(4) == 0) {
                f.append(pick(r, new String[] {">", "<", "!", "!4", "!2", "x"}));
            }
            String opt = pick(r, new String[] {"b", "B", "h", "H", "l", "L", "T", "i", "I", "f", "d", "i", "I"});
            f.append(opt);
            if ((opt.equals("i") || opt.equals("I")) && r.nextBoolean()) {
                f.append(1 + r.nextInt(12));
            }
        }
        return f.toString();
    }

    /** A struct format with strings in it too: fixed, counted ({@code Bc0}) and zero-terminated. */
    private static String stringFormat(SplittableRandom r) {
        StringBuilder f = new StringBuilder();
        for (int n = 1 + r.nextInt(3); n > 0; n--) {
            f.append(pick(r, new String[] {"c1", "c3", "c0", "Bc0", "s", "b", ">h", "<I3", "!4i", "x", "c", "d", "z", "!"}));
        }
        return f.toString();
    }

    private static String values(SplittableRandom r) {
        List<String> v = new ArrayList<>();
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            v.add(r.nextBoolean() ? pick(r, VALUES) : pick(r, NUMBERS));
        }
        return String.join(", ", v);
    }

    private static String msgpack(SplittableRandom r) {
        StringBuilder b = new StringBuilder();
        for (int n = r.nextInt(9); n > 0; n--) {
            b.append(pick(r, MSGPACK));
        }
        return b.toString();
    }

    private static String numbers(SplittableRandom r) {
        List<String> n = new ArrayList<>();
        for (int i = 1 + r.nextInt(4); i > 0; i--) {
            n.add(pick(r, NUMBERS));
        }
        return String.join(", ", n);
    }

    private static String bytes(SplittableRandom r) {
        StringBuilder b = new StringBuilder();
        for (int n = r.nextInt(7); n > 0; n--) {
            b.append(pick(r, BYTES));
        }
        return b.toString();
    }

    private static String[] with(String[] command, SplittableRandom r, String... option) {
        return r.nextBoolean() ? command : concat(command, pick(r, option));
    }

    private static String[] concat(String[] a, String b) {
        String[] all = Arrays.copyOf(a, a.length + 1);
        all[a.length] = b;
        return all;
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }

    /** A raw reply for a diff: printable ASCII as it is, any other byte as {@code \xNN}. */
    private static String show(byte[] reply) {
        StringBuilder s = new StringBuilder();
        for (byte x : reply) {
            int b = x & 0xFF;
            s.append(b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02x", b));
        }
        return s.toString();
    }
}
