package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Every point a kill could stop a big sorted set's change at: a change is stopped after its first
 * map write, then (once the set is checked and put back) after its second, and so on until it runs
 * through, for ZADDs of new members (which split nodes, at {@code zset-max-listpack-entries 4}), of
 * new scores, ZREMs and ZPOPMINs (which merge them), ZREMRANGEBYRANK and the conversion from one
 * value. After each stop ZCARD equals the entries ZRANGE returns, each member's ZRANK is its place
 * there and its ZSCORE its score, and the members the change named are as before or as after it.
 */
class ZSetCrashPointsTest {

    @TempDir
    Path dir;

    @Test
    void aChangeStoppedAfterAnyOfItsWritesLeavesASortedSetThatReadsRight() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "4");
            Map<String, Double> model = new HashMap<>();
            SplittableRandom random = new SplittableRandom(11);
            int stops = 0;
            for (int step = 0; step < 150; step++) {
                String m = "m" + random.nextInt(60);
                double score = random.nextInt(20);
                int kind = random.nextInt(6);
                Map<String, Double> after = new HashMap<>(model);
                Consumer<Jedis> change;
                if (kind == 0 && model.containsKey(m)) {
                    change = c -> c.zrem("z", m);
                    after.remove(m);
                } else if (kind == 1) {
                    String g = "g" + step;
                    change = c -> c.zadd("z", Map.of(m, score, g, score + 0.5));
                    after.put(m, score);
                    after.put(g, score + 0.5);
                } else if (kind == 2 && model.size() > 6) {
                    List<String> lowest = sorted(model).subList(0, 2);
                    change = c -> c.zpopmin("z", 2);
                    lowest.forEach(after::remove);
                } else if (kind == 3 && model.size() > 8) {
                    List<String> ranks = sorted(model).subList(1, 4);
                    change = c -> c.zremrangeByRank("z", 1, 3);
                    ranks.forEach(after::remove);
                } else {
                    change = c -> c.zadd("z", score, m);
                    after.put(m, score);
                }
                Map<String, Double> before = model;
                int s0 = step;
                stops += StopPoints.each(StopPoints.hookOf(s), () -> change.accept(j), stopAt -> {
                    check(j, before, after, "step " + s0 + ", stopped after write " + stopAt);
                    restore(j, before); // back, to stop the next write
                });
                check(j, after, after, "step " + step);
                model = after;
            }
            assertTrue(stops > 300, "changes were stopped " + stops + " times");
            assertEquals("skiplist", j.objectEncoding("z"));
        }
    }

    private static List<String> sorted(Map<String, Double> model) {
        return model.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey).toList();
    }

    /** Puts the set back as {@code model} has it, with no stop: DEL, then one ZADD (a conversion when it is big). */
    private static void restore(Jedis j, Map<String, Double> model) {
        j.del("z");
        if (!model.isEmpty()) {
            j.zadd("z", model);
        }
    }

    /** The set is {@code before} or {@code after} member by member, counts what it holds, and ranks it in order. */
    private static void check(Jedis j, Map<String, Double> before, Map<String, Double> after, String where) {
        List<Tuple> all = j.zrangeWithScores("z", 0, -1);
        assertEquals(all.size(), j.zcard("z"), where + ": ZCARD agrees with ZRANGE " + all);
        Map<String, Double> got = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            Tuple t = all.get(i);
            got.put(t.getElement(), t.getScore());
            assertEquals(i, j.zrank("z", t.getElement()), where + ": ZRANK of " + t.getElement());
            assertEquals(t.getScore(), j.zscore("z", t.getElement()), where + ": ZSCORE of " + t.getElement());
            if (i > 0) {
                Tuple p = all.get(i - 1);
                assertTrue(p.getScore() < t.getScore() || p.getScore() == t.getScore()
                        && p.getElement().compareTo(t.getElement()) < 0, where + ": order at rank " + i);
            }
        }
        java.util.Set<String> members = new java.util.HashSet<>(before.keySet());
        members.addAll(after.keySet());
        members.addAll(got.keySet());
        for (String m : members) {
            Double s = got.get(m);
            assertTrue(Objects.equals(s, before.get(m)) || Objects.equals(s, after.get(m)),
                    where + ": member " + m + " scores " + s + ", was " + before.get(m) + ", to be " + after.get(m));
        }
    }
}
