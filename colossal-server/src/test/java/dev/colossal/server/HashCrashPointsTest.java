package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Every point a kill could stop a bucketed hash's change at: a change is stopped after its first
 * map write, then (once the hash is checked and the change made whole) after its second, and so
 * on until it runs through, for HSETs of new fields (which split buckets, at
 * {@code hash-max-listpack-entries 4}), of existing ones, HDELs and the conversion from one value.
 * After each stop HLEN equals the fields HGETALL returns, every other field is as it was, and the
 * fields the change named are as before or as after it, never lost.
 */
class HashCrashPointsTest {

    @TempDir
    Path dir;

    @Test
    void aChangeStoppedAfterAnyOfItsWritesLeavesAHashThatReadsRight() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("hash-max-listpack-entries", "4");
            Map<String, String> model = new HashMap<>();
            SplittableRandom random = new SplittableRandom(7);
            int stops = 0;
            for (int step = 0; step < 120; step++) {
                String f = "f" + random.nextInt(60);
                String v = "v" + step;
                int kind = random.nextInt(4);
                Map<String, String> after = new HashMap<>(model);
                Consumer<Jedis> change;
                if (kind == 0 && model.containsKey(f)) {
                    change = c -> c.hdel("h", f);
                    after.remove(f);
                } else if (kind == 1) {
                    String g = "g" + step;
                    change = c -> c.hset("h", Map.of(f, v, g, v));
                    after.put(f, v);
                    after.put(g, v);
                } else {
                    change = c -> c.hset("h", f, v);
                    after.put(f, v);
                }
                Map<String, String> before = model;
                String where = "step " + step;
                stops += StopPoints.each(StopPoints.hookOf(s), () -> change.accept(j), stopAt -> {
                    check(j, before, after, where + ", stopped after write " + stopAt);
                    change.accept(j); // what the client would do: send it again
                    check(j, after, after, where + ", sent again after a stop at write " + stopAt);
                    restore(j, before); // and back, to stop the next write
                });
                check(j, after, after, "step " + step);
                model = after;
            }
            assertTrue(stops > 200, "changes were stopped " + stops + " times");
            assertEquals("hashtable", j.objectEncoding("h"));
        }
    }

    /** Puts the hash back as {@code model} has it, with no stop. */
    private static void restore(Jedis j, Map<String, String> model) {
        j.del("h");
        if (!model.isEmpty()) {
            j.hset("h", model);
        }
    }

    /** The hash is {@code before} or {@code after} field by field, and counts what it holds. */
    private static void check(Jedis j, Map<String, String> before, Map<String, String> after, String where) {
        Map<String, String> all = j.hgetAll("h");
        assertEquals(all.size(), j.hlen("h"), where + ": HLEN agrees with HGETALL " + all);
        java.util.Set<String> fields = new java.util.HashSet<>(before.keySet());
        fields.addAll(after.keySet());
        fields.addAll(all.keySet());
        for (String f : fields) {
            String got = all.get(f);
            assertTrue(java.util.Objects.equals(got, before.get(f)) || java.util.Objects.equals(got, after.get(f)),
                    where + ": field " + f + " is " + got + ", was " + before.get(f) + ", to be " + after.get(f));
            if (got != null) {
                assertEquals(got, j.hget("h", f), where + ": HGET " + f);
            }
        }
    }
}
