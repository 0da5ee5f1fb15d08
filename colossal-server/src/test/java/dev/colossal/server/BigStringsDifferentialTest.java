package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random string and bit commands over strings that cross the chunking threshold, lowered to 64
 * bytes in chunks of 16 so that every command meets chunk boundaries, sent to redis-server 7 and to
 * Colossal: every reply byte for byte. Keys grow by APPEND, SETRANGE past the end, SETBIT and
 * BITFIELD far out, are read in ranges that start and end anywhere, and are replaced, deleted,
 * renamed, copied and given TTLs in between. Seeded; more seeds: {@code -Dcolossal.bigStringSeeds=40}.
 */
class BigStringsDifferentialTest {

    private static final String[] KEYS = {"s1", "s2", "s3", "h"}; // h is a hash
    private static final String[] INDEXES = {"0", "1", "15", "16", "17", "-1", "-16", "-17", "63", "64", "65", "100",
        "200", "-200", "1000", "x"};

    @TempDir
    Path dir;

    @BeforeAll
    static void smallChunks() {
        BigStringLayout.configure(16, 64);
    }

    @AfterAll
    static void defaultChunks() {
        BigStringLayout.configure(BigStringLayout.DEFAULT_CHUNK, BigStringLayout.DEFAULT_THRESHOLD);
    }

    @Test
    void randomCommandsOnStringsCrossingTheThresholdGetTheSameRepliesAsRedis() throws Exception {
        try (SideBySide s = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            s.run(Long.getLong("colossal.bigStringSeeds", 6), 1500,
                    List.<String[]>of(new String[] {"HSET", "h", "f", "v"}), r -> List.<String[]>of(command(r)));
        }
    }

    @Test
    void aStringGrownPastTheThresholdIsKeptInChunks() throws Exception {
        try (ColossalServer ours = TestServers.colossal(dir); Wire w = new Wire(ours.port())) {
            w.call("APPEND", "k", "x".repeat(100));
            KeyValueStore store = ours.context().dbs.store(0);
            assertTrue(store.raw("k".getBytes()).chunked(), "APPEND past 64 bytes chunks the string");
            assertTrue(w.call("GET", "k").endsWith("x".repeat(100) + "\r\n"));
        }
    }

    private static String[] command(SplittableRandom r) {
        String k = KEYS[r.nextInt(KEYS.length)];
        return switch (r.nextInt(24)) {
            case 0, 1, 2 -> new String[] {"APPEND", k, text(r, r.nextInt(60))};
            case 3, 4 -> new String[] {"SETRANGE", k, String.valueOf(r.nextInt(r.nextBoolean() ? 80 : 400)), text(r, r.nextInt(40))};
            case 5 -> new String[] {"GETRANGE", k, pick(r, INDEXES), pick(r, INDEXES)};
            case 6 -> new String[] {"SUBSTR", k, pick(r, INDEXES), pick(r, INDEXES)};
            case 7 -> new String[] {"STRLEN", k};
            case 8, 9 -> new String[] {"SETBIT", k, String.valueOf(r.nextInt(r.nextBoolean() ? 600 : 3000)), String.valueOf(r.nextInt(2))};
            case 10 -> new String[] {"GETBIT", k, String.valueOf(r.nextInt(3000))};
            case 11 -> r.nextBoolean() ? new String[] {"BITCOUNT", k}
                    : new String[] {"BITCOUNT", k, pick(r, INDEXES), pick(r, INDEXES), r.nextBoolean() ? "BIT" : "BYTE"};
            case 12 -> bitpos(r, k);
            case 13, 14 -> bitfield(r, k);
            case 15, 16 -> new String[] {"GET", k};
            case 17 -> new String[] {"SET", k, text(r, r.nextInt(100))};
            case 18 -> new String[] {"DEL", k};
            case 19 -> new String[] {"RENAME", k, KEYS[r.nextInt(3)]};
            case 20 -> new String[] {"COPY", k, KEYS[r.nextInt(3)], "REPLACE"};
            case 21 -> new String[] {"EXPIRE", k, "1000"};
            case 22 -> new String[] {"TTL", k};
            default -> r.nextBoolean() ? new String[] {"GETSET", k, text(r, r.nextInt(90))} : new String[] {"GETDEL", k};
        };
    }

    private static String[] bitpos(SplittableRandom r, String k) {
        List<String> c = new ArrayList<>(List.of("BITPOS", k, String.valueOf(r.nextInt(2))));
        int args = r.nextInt(4);
        if (args >= 1) {
            c.add(pick(r, INDEXES));
        }
        if (args >= 2) {
            c.add(pick(r, INDEXES));
        }
        if (args == 3) {
            c.add(r.nextBoolean() ? "BIT" : "BYTE");
        }
        return c.toArray(new String[0]);
    }

    private static String[] bitfield(SplittableRandom r, String k) {
        List<String> c = new ArrayList<>(List.of(r.nextInt(5) == 0 ? "BITFIELD_RO" : "BITFIELD", k));
        for (int i = r.nextInt(1, 4); i > 0; i--) {
            String type = (r.nextBoolean() ? "i" : "u") + r.nextInt(1, 32);
            String offset = String.valueOf(r.nextInt(r.nextBoolean() ? 200 : 2000));
            switch (r.nextInt(3)) {
                case 0 -> c.addAll(List.of("GET", type, offset));
                case 1 -> c.addAll(List.of("SET", type, offset, String.valueOf(r.nextInt(-1000, 1000))));
                default -> c.addAll(List.of("INCRBY", type, offset, String.valueOf(r.nextInt(-1000, 1000))));
            }
        }
        return c.toArray(new String[0]);
    }

    private static String text(SplittableRandom r, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + r.nextInt(26)));
        }
        return b.toString();
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
