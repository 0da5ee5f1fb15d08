package dev.colossal.server;


import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of consumer-group commands with explicit IDs sent to redis-server 7 and to
 * Colossal, RESP2 on odd seeds and RESP3 on even ones: XADD, XDEL, XTRIM, XGROUP's subcommands,
 * XREADGROUP ({@code >}, history, COUNT, NOACK, two streams), XACK, XCLAIM and XAUTOCLAIM (min-idle-time 0),
 * XPENDING (summary, and the extended form with its idle times masked), XINFO GROUPS and XINFO
 * STREAM; replies byte for byte. Seeded; more seeds: {@code -Dcolossal.groupSeeds=100}.
 */
class StreamGroupsDifferentialTest {

    private static final String[] KEYS = {"s", "s", "t", "str"};
    private static final String[] GROUPS = {"g1", "g1", "g2", "g3"};
    private static final String[] CONSUMERS = {"alice", "bob", "carol"};
    /** An extended XPENDING entry's idle time: the one part of these replies that is a clock's. */
    private static final Pattern IDLE = Pattern.compile("(\\*4\\r\\n\\$\\d+\\r\\n[^\\r]*\\r\\n\\$\\d+\\r\\n[^\\r]*\\r\\n):\\d+\\r\\n");

    @TempDir
    Path dir;

    @Test
    void randomGroupCommandsGetTheSameRepliesAsRedis() throws Exception {
        compare(false);
    }

    /**
     * As above with PELs cut in chunks of 4 entries and streams that are seldom trimmed, so that
     * PELs grow to dozens of entries and commands split, merge and drop chunks all the time.
     */
    @Test
    void pendingListsInTinyChunksGetTheSameReplies() throws Exception {
        PendingList.chunkBoundForTests(4);
        try {
            compare(true);
        } finally {
            PendingList.chunkBoundForTests(PendingList.MAX_CHUNK);
        }
    }

    private void compare(boolean longPels) throws Exception {
        try (SideBySide both = new SideBySide(ServerConfig.defaults().withDataDir(dir).withPorts(0, -1))) {
            both.masking(reply -> IDLE.matcher(reply).replaceAll("$1:IDLE\r\n"))
                    .run(Long.getLong("colossal.groupSeeds", 8), 1500, List.<String[]>of(new String[] {"SET", "str", "x"}),
                            r -> List.<String[]>of(command(r, longPels)));
        }
    }

    private static String id(SplittableRandom r, boolean longPels) {
        // long PELs' streams also get 30-0, 30-1, ... from "XADD k 30-* ..."
        return longPels && r.nextBoolean() ? "30-" + r.nextInt(0, 120) : r.nextInt(1, 30) + "-" + r.nextInt(0, 3);
    }

    /** @param longPels whether to let PELs grow: no trims or DELs, bigger COUNTs */
    private static String[] command(SplittableRandom r, boolean longPels) {
        String k = pick(r, KEYS);
        String g = pick(r, GROUPS);
        String c = pick(r, CONSUMERS);
        List<String> a = new ArrayList<>();
        switch (r.nextInt(24)) {
            case 0, 1, 2, 3 -> a.addAll(List.of("XADD", k, id(r, longPels), "f", "v" + r.nextInt(100)));
            case 4 -> {
                a.addAll(List.of("XGROUP", "CREATE", k, g, pick(r, new String[] {"0", "$", id(r, longPels), "x"})));
                if (r.nextBoolean()) {
                    a.add("MKSTREAM");
                }
                if (r.nextInt(3) == 0) {
                    a.addAll(List.of("ENTRIESREAD", pick(r, new String[] {"0", "2", "5", "-1", "-2"})));
                }
            }
            case 5 -> {
                a.addAll(List.of("XGROUP", "SETID", k, g, pick(r, new String[] {"0", "$", id(r, longPels)})));
                if (r.nextInt(3) == 0) {
                    a.addAll(List.of("ENTRIESREAD", pick(r, new String[] {"0", "3", "-1"})));
                }
            }
            case 6 -> a.addAll(List.of("XGROUP", r.nextInt(4) == 0 ? "DESTROY" : "CREATECONSUMER", k, g));
            case 7 -> a.addAll(List.of("XGROUP", "DELCONSUMER", k, g, c));
            case 8, 9, 10, 11 -> {
                a.addAll(List.of("XREADGROUP", "GROUP", g, c));
                if (r.nextBoolean()) {
                    a.addAll(List.of("COUNT", Integer.toString(r.nextInt(0, longPels ? 12 : 4))));
                }
                if (r.nextInt(5) == 0) {
                    a.add("NOACK");
                }
                String at = r.nextInt(3) == 0 ? pick(r, new String[] {"0", id(r, longPels)}) : ">";
                a.addAll(r.nextInt(4) == 0 ? List.of("STREAMS", k, pick(r, KEYS), at, ">") : List.of("STREAMS", k, at));
            }
            case 12, 13, 14 -> {
                a.addAll(List.of("XACK", k, g));
                for (int n = r.nextInt(1, 4); n > 0; n--) {
                    a.add(id(r, longPels));
                }
            }
            case 15, 16 -> {
                a.addAll(List.of("XCLAIM", k, g, c, "0"));
                for (int n = r.nextInt(1, 3); n > 0; n--) {
                    a.add(id(r, longPels));
                }
                if (r.nextBoolean()) {
                    a.add("JUSTID");
                }
                if (r.nextInt(4) == 0) {
                    a.add("FORCE");
                }
                if (r.nextInt(4) == 0) {
                    a.addAll(List.of("RETRYCOUNT", Integer.toString(r.nextInt(5))));
                }
                if (r.nextInt(6) == 0) {
                    a.addAll(List.of("LASTID", id(r, longPels)));
                }
            }
            case 17 -> {
                a.addAll(List.of("XAUTOCLAIM", k, g, c, "0", pick(r, new String[] {"0", "-", id(r, longPels)}), "COUNT",
                        Integer.toString(r.nextInt(1, 4))));
                if (r.nextBoolean()) {
                    a.add("JUSTID");
                }
            }
            case 18, 19 -> {
                a.addAll(List.of("XPENDING", k, g));
                if (r.nextBoolean()) {
                    // from the start, or from an ID inside the list (a search within a chunk)
                    a.addAll(List.of(r.nextBoolean() ? "-" : id(r, longPels), "+", Integer.toString(r.nextInt(0, longPels ? 40 : 5))));
                    if (r.nextBoolean()) {
                        a.add(c);
                    }
                }
            }
            case 20 -> a.addAll(List.of("XINFO", "GROUPS", k));
            case 21 -> a.addAll(r.nextBoolean() ? List.of("XDEL", k, id(r, longPels)) : List.of("XINFO", "STREAM", k));
            case 22 -> a.addAll(longPels ? List.of("XADD", k, "30-*", "f", "v")
                    : r.nextInt(3) == 0 ? List.of("DEL", k) : List.of("XTRIM", k, "MAXLEN", Integer.toString(r.nextInt(0, 6))));
            default -> a.addAll(List.of("XINFO", "CONSUMERS", k, "nosuch"));
        }
        return a.toArray(String[]::new);
    }

    private static String pick(SplittableRandom r, String[] from) {
        return from[r.nextInt(from.length)];
    }
}
