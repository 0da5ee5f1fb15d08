package dev.colossal.server;


import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of stream commands sent to redis-server 7 and to Colossal, every reply compared
 * byte for byte. IDs are given (explicitly, or as {@code ms-*}) from a clock of the test's own,
 * since the servers' clocks differ; some are below the top item, to be refused. Each seed sets
 * stream-node-max-entries (3, 10 or 100) on both, so that approximate trims, which take whole
 * nodes, drop the same entries. XINFO STREAM FULL is compared without radix-tree-keys and
 * radix-tree-nodes (XDEL leaves an emptied node in the middle here, where Redis's tree drops it).
 * RESP3 on even seeds. More seeds: {@code -Dcolossal.streamSeeds=100}.
 */
class StreamsDifferentialTest {

    private static final String[] KEYS = {"s", "t", "s", "t", "u", "str", "nosuch"};
    private static final String[] FIELDS = {"f", "g", "name", "1", ""};
    private static final String[] VALUES = {"v", "1", "-5", "hello world", "", "12345678901"};
    private static final String[] NODE_SIZES = {"3", "10", "100"};

    @TempDir
    Path dir;

    /** The test's clock: the milliseconds IDs are made of. */
    private long clock = 1;

    @Test
    void randomStreamCommandsGetTheSameRepliesAsRedis() throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.masking(StreamsDifferentialTest::comparable).run(Long.getLong("colossal.streamSeeds", 8), 3000, seed -> {
                clock = 1;
                return List.<String[]>of(new String[] {"CONFIG", "SET", "stream-node-max-entries",
                        NODE_SIZES[(int) (seed % NODE_SIZES.length)]});
            }, r -> List.<String[]>of(command(r)));
        }
    }

    /** XINFO's radix tree counts are this server's own. */
    private static String comparable(String reply) {
        return reply.replaceAll("radix-tree-keys\r\n:\\d+\r\n\\$16\r\nradix-tree-nodes\r\n:\\d+", "radix-tree");
    }

    private String id(SplittableRandom r) {
        clock += r.nextInt(3);
        long ms = Math.max(0, clock - (r.nextInt(10) == 0 ? 2 : 0));
        return r.nextInt(4) == 0 ? ms + "-*" : r.nextInt(5) == 0 ? Long.toString(ms) : ms + "-" + r.nextInt(4);
    }

    /** An ID somewhere in what was added: for ranges, deletes and trims. */
    private String near(SplittableRandom r) {
        long ms = r.nextLong(Math.max(1, clock + 2));
        return switch (r.nextInt(6)) {
            case 0 -> Long.toString(ms);
            case 1 -> "(" + ms + "-" + r.nextInt(3);
            default -> ms + "-" + r.nextInt(4);
        };
    }

    private String[] command(SplittableRandom r) {
        String k = pick(r, KEYS);
        return switch (r.nextInt(24)) {
            case 0, 1, 2, 3, 4, 5, 6 -> xadd(r, k, List.of());
            case 7, 8 -> xadd(r, k, trim(r));
            case 9 -> {
                List<String> a = new ArrayList<>(List.of("XDEL", k));
                for (int n = r.nextInt(1, 4); n > 0; n--) {
                    a.add(near(r).replace("(", ""));
                }
                yield a.toArray(String[]::new);
            }
            case 10 -> {
                List<String> a = new ArrayList<>(List.of("XTRIM", k));
                a.addAll(trim(r));
                yield a.toArray(String[]::new);
            }
            case 11, 12, 13 -> range(r, "XRANGE", k, r.nextBoolean() ? "-" : near(r), r.nextBoolean() ? "+" : near(r));
            case 14, 15 -> range(r, "XREVRANGE", k, r.nextBoolean() ? "+" : near(r), r.nextBoolean() ? "-" : near(r));
            case 16 -> new String[] {"XLEN", k};
            case 17 -> {
                String k2 = pick(r, KEYS);
                List<String> a = new ArrayList<>(List.of("XREAD"));
                if (r.nextBoolean()) {
                    a.addAll(List.of("COUNT", Integer.toString(r.nextInt(-1, 5))));
                }
                a.addAll(List.of("STREAMS", k, k2, r.nextInt(4) == 0 ? "$" : near(r).replace("(", ""),
                        near(r).replace("(", "")));
                yield a.toArray(String[]::new);
            }
            case 18 -> r.nextInt(3) == 0 ? new String[] {"XSETID", k, near(r).replace("(", "")}
                    : new String[] {"XSETID", k, Long.toString(clock + 5), "ENTRIESADDED", Integer.toString(r.nextInt(-1, 200)),
                    "MAXDELETEDID", near(r).replace("(", "")};
            case 19 -> new String[] {"XINFO", "STREAM", k, "FULL", "COUNT", Integer.toString(r.nextInt(0, 20))};
            case 20 -> new String[] {r.nextBoolean() ? "RENAME" : "COPY", k, pick(r, KEYS)};
            case 21 -> new String[] {"DEL", k};
            case 22 -> new String[] {"TYPE", k};
            default -> new String[] {"SET", "str", "v"};
        };
    }

    private String[] xadd(SplittableRandom r, String k, List<String> trim) {
        List<String> a = new ArrayList<>(List.of("XADD", k));
        if (r.nextInt(10) == 0) {
            a.add("NOMKSTREAM");
        }
        a.addAll(trim);
        a.add(id(r));
        for (int n = r.nextInt(1, 4); n > 0; n--) {
            a.add(pick(r, FIELDS));
            a.add(pick(r, VALUES));
        }
        return a.toArray(String[]::new);
    }

    private List<String> trim(SplittableRandom r) {
        List<String> a = new ArrayList<>();
        boolean approx = r.nextInt(3) == 0;
        if (r.nextBoolean()) {
            a.add("MAXLEN");
            if (approx || r.nextBoolean()) {
                a.add(approx ? "~" : "=");
            }
            a.add(Integer.toString(r.nextInt(0, 40)));
        } else {
            a.add("MINID");
            if (approx || r.nextBoolean()) {
                a.add(approx ? "~" : "=");
            }
            a.add(near(r).replace("(", ""));
        }
        if (approx && r.nextBoolean()) {
            a.addAll(List.of("LIMIT", Integer.toString(r.nextInt(0, 30))));
        }
        return a;
    }

    private static String[] range(SplittableRandom r, String name, String k, String from, String to) {
        if (r.nextBoolean()) {
            return new String[] {name, k, from, to, "COUNT", Integer.toString(r.nextInt(-1, 6))};
        }
        return new String[] {name, k, from, to};
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
