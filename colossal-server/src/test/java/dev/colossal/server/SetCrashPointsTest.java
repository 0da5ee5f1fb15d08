package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Every point a kill could stop a bucketed set's change at ({@link StopPoints}): SADDs of new
 * members (which split buckets, at {@code set-max-intset-entries 4}) and of members already in,
 * SREMs, SMOVEs between two sets and the conversion from one value. After each stop SCARD equals
 * the members SMEMBERS returns, SISMEMBER agrees, every member the change did not name is as it
 * was, the ones it named are as before or as after it, and a member SMOVE moves is in one set or
 * the other, never lost.
 */
class SetCrashPointsTest {

    private static final List<String> KEYS = List.of("s", "t");

    @TempDir
    Path dir;

    @Test
    void aChangeStoppedAfterAnyOfItsWritesLeavesASetThatReadsRight() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("set-max-intset-entries", "4");
            Map<String, Set<String>> model = Map.of("s", Set.of(), "t", Set.of());
            SplittableRandom random = new SplittableRandom(11);
            int stops = 0;
            for (int step = 0; step < 150; step++) {
                String m = random.nextInt(3) == 0 ? Integer.toString(random.nextInt(40)) : "m" + random.nextInt(60);
                String other = "n" + step;
                Map<String, Set<String>> after = Map.of("s", new HashSet<>(model.get("s")), "t", new HashSet<>(model.get("t")));
                Consumer<Jedis> change;
                int kind = random.nextInt(5);
                if (kind == 0 && model.get("s").contains(m)) {
                    change = c -> c.srem("s", m);
                    after.get("s").remove(m);
                } else if (kind == 1 && model.get("s").contains(m)) {
                    change = c -> c.smove("s", "t", m);
                    after.get("s").remove(m);
                    after.get("t").add(m);
                } else if (kind == 2) {
                    change = c -> c.sadd("t", m, other);
                    after.get("t").add(m);
                    after.get("t").add(other);
                } else {
                    change = c -> c.sadd("s", m);
                    after.get("s").add(m);
                }
                Map<String, Set<String>> before = model;
                String where = "step " + step;
                stops += StopPoints.each(StopPoints.hookOf(s), () -> change.accept(j), stopAt -> {
                    check(j, before, after, where + ", stopped after write " + stopAt);
                    change.accept(j); // what the client would do: send it again
                    check(j, after, after, where + ", sent again after a stop at write " + stopAt);
                    restore(j, before); // and back, to stop the next write
                });
                check(j, after, after, where);
                model = after;
            }
            assertTrue(stops > 200, "changes were stopped " + stops + " times");
            assertEquals("hashtable", j.objectEncoding("s"));
        }
    }

    /** Puts both sets back as {@code model} has them, with no stop. */
    private static void restore(Jedis j, Map<String, Set<String>> model) {
        for (String k : KEYS) {
            j.del(k);
            if (!model.get(k).isEmpty()) {
                j.sadd(k, model.get(k).toArray(String[]::new));
            }
        }
    }

    /** Each set is {@code before} or {@code after} member by member and counts what it holds; no member moved is lost. */
    private static void check(Jedis j, Map<String, Set<String>> before, Map<String, Set<String>> after, String where) {
        Set<String> everywhere = new HashSet<>();
        Set<String> kept = new HashSet<>();
        for (String k : KEYS) {
            Set<String> all = j.smembers(k);
            everywhere.addAll(all);
            kept.addAll(after.get(k));
            assertEquals(all.size(), j.scard(k), where + ": SCARD " + k + " agrees with SMEMBERS " + all);
            Set<String> members = new HashSet<>(before.get(k));
            members.addAll(after.get(k));
            members.addAll(all);
            for (String m : members) {
                boolean in = all.contains(m);
                assertTrue(in == before.get(k).contains(m) || in == after.get(k).contains(m),
                        where + ": " + m + (in ? " is" : " is not") + " in " + k + ", was " + before.get(k).contains(m)
                                + ", to be " + after.get(k).contains(m));
                assertEquals(in, j.sismember(k, m), where + ": SISMEMBER " + k + " " + m);
            }
        }
        for (String m : kept) {
            boolean wasIn = before.get("s").contains(m) || before.get("t").contains(m);
            assertTrue(!wasIn || everywhere.contains(m), where + ": " + m + " was lost");
        }
    }
}
