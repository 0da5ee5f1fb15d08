package dev.colossal.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random SORT and SORT_RO commands on lists, sets and sorted sets sent to redis-server 7 and to
 * Colossal, every reply compared byte for byte, a STORE's list read back. Weights ({@code w_*},
 * some missing, some not numbers) and hash fields ({@code h_*->f}) change between sorts. Only what
 * Redis orders the same every time is drawn: no unsorted set read back without STORE (its order
 * is Redis's hash table's), and ALPHA BY only by {@code u_*}, distinct for every element (equal BY
 * values keep the order the elements were loaded in, a set's or a sorted set's table order in
 * Redis). Seeded; more seeds: {@code -Dcolossal.sortSeeds=100}.
 */
class SortDifferentialTest {

    private static final String[] ELEMENTS = {"1", "2", "3", "10", "-1", "1.5", "007", "1e3", "a", "b", "ab", "", "x y"};
    private static final String[] NUMBERS = {"1", "2", "3", "10", "-1", "1.5", "007", "1e3"};
    private static final String[] WEIGHTS = {"1", "2", "0", "-3", "2.5", "inf", "-inf", "", " 4", "x", "0x10"};
    private static final String[] KEYS = {"l", "l", "s", "z", "nums", "str", "nosuch"};

    @TempDir
    Path dir;

    @Test
    void randomSortsGetTheSameRepliesAsRedis() throws Exception {
        List<String[]> setup = new ArrayList<>();
        setup.add(new String[] {"SET", "str", "x"});
        for (int i = 0; i < ELEMENTS.length; i++) {
            setup.add(new String[] {"SET", "u_" + ELEMENTS[i], Character.toString('a' + (i * 7) % ELEMENTS.length)});
        }
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.run(Long.getLong("colossal.sortSeeds", 6), 1500, setup, SortDifferentialTest::command);
        }
    }

    private static List<String[]> command(SplittableRandom r) {
        String e = pick(r, ELEMENTS);
        return switch (r.nextInt(10)) {
            case 0 -> List.<String[]>of(new String[] {r.nextBoolean() ? "RPUSH" : "LPUSH", "l", e, pick(r, ELEMENTS)});
            case 1 -> List.<String[]>of(new String[] {"RPUSH", "nums", pick(r, NUMBERS)}, new String[] {"SADD", "s", e});
            case 2 -> List.<String[]>of(new String[] {"ZADD", "z", Integer.toString(r.nextInt(-3, 4)), e});
            case 3 -> List.<String[]>of(r.nextInt(4) == 0 ? new String[] {"DEL", "w_" + e}
                    : new String[] {"SET", "w_" + e, pick(r, WEIGHTS)});
            case 4 -> List.<String[]>of(new String[] {"HSET", "h_" + e, "f", pick(r, WEIGHTS)});
            case 5 -> List.<String[]>of(new String[] {pick(r, new String[] {"LPOP", "SREM", "ZREM"}),
                pick(r, new String[] {"l", "s", "z"}), e});
            default -> sort(r);
        };
    }

    private static List<String[]> sort(SplittableRandom r) {
        String key = pick(r, KEYS);
        boolean ro = r.nextInt(4) == 0;
        List<String> cmd = new ArrayList<>(List.of(ro ? "SORT_RO" : "SORT", key));
        boolean alpha = r.nextInt(3) == 0;
        boolean store = !ro && r.nextInt(4) == 0;
        String by = switch (r.nextInt(6)) {
            case 0 -> key.equals("s") && !store ? null : "nosort";
            case 1 -> alpha ? "u_*" : "w_*";
            case 2 -> alpha ? "u_*" : "h_*->f";
            case 3 -> alpha ? null : "nope_*";
            default -> null;
        };
        List<List<String>> options = new ArrayList<>();
        if (by != null) {
            options.add(List.of("BY", by));
        }
        if (alpha) {
            options.add(List.of("ALPHA"));
        }
        if (r.nextBoolean()) {
            options.add(List.of(r.nextBoolean() ? "ASC" : "DESC"));
        }
        if (r.nextInt(3) == 0) {
            options.add(List.of("LIMIT", Integer.toString(r.nextInt(-2, 6)), Integer.toString(r.nextInt(-2, 6))));
        }
        for (int i = r.nextInt(3); i > 0; i--) {
            options.add(List.of("GET", pick(r, new String[] {"#", "w_*", "h_*->f", "nope_*", "u_*", "h_*->g"})));
        }
        if (store) {
            options.add(List.of("STORE", "dst"));
        }
        for (int i = options.size() - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            List<String> t = options.get(i);
            options.set(i, options.get(j));
            options.set(j, t);
        }
        options.forEach(cmd::addAll);
        return store ? List.of(cmd.toArray(String[]::new), new String[] {"LRANGE", "dst", "0", "-1"})
                : List.<String[]>of(cmd.toArray(String[]::new));
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }

}
