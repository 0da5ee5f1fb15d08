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

    @Test
    void aValueReplacedIsOneWriteOfItsBucketThatLeavesAnUnlandedIntentUnlanded() throws Exception {
        Map<String, String> model = new HashMap<>();
        try (ColossalServer s = TestServers.colossal(dir, "hash-max-listpack-entries", "4");
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < 20; i++) {
                model.put("f" + i, "v" + i);
            }
            j.hset("h", model);
            assertEquals("hashtable", j.objectEncoding("h"));
            Consumer<Runnable> hook = StopPoints.hookOf(s);
            int[] writes = {0};
            hook.accept(() -> writes[0]++);
            j.hset("h", "f3", "new");
            hook.accept(() -> { });
            model.put("f3", "new");
            assertEquals(1, writes[0], "map writes of an HSET that replaces a value");

            // A new field stopped after its first write, the header with its intent for the field's
            // bucket; then a value of that bucket replaced: the intent must still read as not landed.
            MapStore store = s.context().dbs.opened(0);
            long buckets = HashBuckets.get(store.get("h".getBytes()), HashBuckets.BUCKETS_OFFSET);
            String added = "n0";
            for (int i = 1; !sameBucket(added, model, buckets); i++) {
                added = "n" + i;
            }
            String neighbour = neighbourOf(added, model, buckets);
            String field = added;
            int stops = StopPoints.eachUntilDone(hook, () -> j.hset("h", field, "x"), stopAt -> true);
            assertEquals(1, stops);
            check(j, model, model, "after the stopped HSET of a new field");
            j.hset("h", neighbour, "replaced");
            model.put(neighbour, "replaced");
            check(j, model, model, "after a value of its bucket was replaced");
        }
        try (ColossalServer s = TestServers.colossal(dir, "hash-max-listpack-entries", "4");
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            check(j, model, model, "reopened, the count derived from the header again");
            assertEquals(model.size(), j.hlen("h"));
        }
    }

    private static boolean sameBucket(String field, Map<String, String> model, long buckets) {
        return !model.containsKey(field) && neighbourOf(field, model, buckets) != null;
    }

    /** A field of {@code model} in the bucket {@code field} maps to, or null. */
    private static String neighbourOf(String field, Map<String, String> model, long buckets) {
        long b = HashBuckets.index(HashBuckets.hash(field.getBytes()), buckets);
        for (String f : model.keySet()) {
            if (HashBuckets.index(HashBuckets.hash(f.getBytes()), buckets) == b) {
                return f;
            }
        }
        return null;
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
