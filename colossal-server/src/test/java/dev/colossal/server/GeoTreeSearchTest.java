package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A big sorted set's GEO searches, which read its score tree cell by cell ({@link GeoMembers}),
 * against the same searches of the same points held as one value, which are read from a
 * binary-searched array of every score: thousands of random {@link GeoEdges} searches, each
 * reply compared byte for byte, stored results too. Needs no redis-server.
 */
class GeoTreeSearchTest {

    private static final int POINTS = 6000;

    @TempDir
    Path dir;

    @Test
    void treeSearchesAnswerAsSearchesOfTheWholeSet() throws Exception {
        SplittableRandom r = new SplittableRandom(28);
        List<String[]> fill = GeoEdges.fill(r, "KEY", POINTS);
        try (ColossalServer s = TestServers.colossal(dir); Wire w = new Wire(s.port())) {
            w.call("CONFIG", "SET", "zset-max-listpack-entries", "100000");
            for (String[] cmd : fill) {
                w.call(on(cmd, "whole"));
            }
            w.call("CONFIG", "SET", "zset-max-listpack-entries", "8");
            for (String[] cmd : fill) {
                w.call(on(cmd, "tree"));
            }
            assertEquals("$8\r\nlistpack\r\n", w.call("OBJECT", "ENCODING", "whole"));
            assertEquals("$8\r\nskiplist\r\n", w.call("OBJECT", "ENCODING", "tree"));
            String card = w.call("ZCARD", "whole");
            assertEquals(card, w.call("ZCARD", "tree"));
            for (int i = 0; i < 3000; i++) {
                List<String[]> cmds = search(r);
                for (String[] cmd : cmds) {
                    String whole = w.call(on(cmd, "whole"));
                    String tree = w.call(on(cmd, "tree"));
                    assertEquals(whole, tree, "round " + i + ": " + String.join(" ", cmd));
                }
            }
            assertEquals("$8\r\nlistpack\r\n", w.call("OBJECT", "ENCODING", "whole"));
        }
    }

    /** @return a search of KEY, or a GEOSEARCHSTORE of KEY into KEY:dst and its result read back */
    private static List<String[]> search(SplittableRandom r) {
        List<String> all = new ArrayList<>();
        List<String> shape = GeoEdges.shape(r);
        String unit = shape.getLast();
        boolean store = false;
        switch (r.nextInt(5)) {
            case 0 -> {
                double[] p = GeoEdges.point(r);
                all.addAll(List.of("GEORADIUS_RO", "KEY", GeoEdges.text(p[0]), GeoEdges.text(p[1]), GeoEdges.distance(r, unit), unit));
            }
            case 1 -> all.addAll(List.of("GEORADIUSBYMEMBER_RO", "KEY", "p" + r.nextInt(POINTS), GeoEdges.distance(r, unit), unit));
            case 2 -> {
                store = true;
                all.addAll(List.of("GEOSEARCHSTORE", "KEY:dst", "KEY"));
                all.addAll(GeoEdges.from(r, POINTS));
                all.addAll(shape);
                if (r.nextBoolean()) {
                    all.add("STOREDIST");
                }
            }
            default -> {
                all.addAll(List.of("GEOSEARCH", "KEY"));
                all.addAll(GeoEdges.from(r, POINTS));
                all.addAll(shape);
            }
        }
        if (!store) {
            for (String w : new String[] {"WITHDIST", "WITHHASH", "WITHCOORD"}) {
                if (r.nextInt(3) == 0) {
                    all.add(w);
                }
            }
        }
        int order = r.nextInt(4);
        if (order > 1) {
            all.add(order == 2 ? "ASC" : "DESC");
        }
        if (r.nextInt(3) == 0) {
            all.addAll(List.of("COUNT", Integer.toString(1 + r.nextInt(r.nextBoolean() ? 5 : 500))));
            if (r.nextBoolean()) {
                all.add("ANY");
            }
        }
        if (!store) {
            return List.<String[]>of(all.toArray(String[]::new));
        }
        return List.of(all.toArray(String[]::new), new String[] {"ZRANGE", "KEY:dst", "0", "-1", "WITHSCORES"});
    }

    /** @return {@code cmd} with KEY (alone or before {@code :}) replaced by {@code key} */
    private static String[] on(String[] cmd, String key) {
        String[] out = cmd.clone();
        for (int i = 0; i < out.length; i++) {
            if (out[i].equals("KEY") || out[i].startsWith("KEY:")) {
                out[i] = key + out[i].substring(3);
            }
        }
        return out;
    }
}
