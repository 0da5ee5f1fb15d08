package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * The roots a big sorted set's header carries ({@link ZSetTreeLayout}, encoding 3): a write puts
 * only the nodes below them; a header of encoding 2, which names its roots' positions, reads right,
 * and its first write, stopped after any of its map writes, leaves a set that reads right.
 */
class ZSetRootsTest {

    private static final byte[] KEY = "z".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void aWriteToATreeOfTwoLevelsPutsALeafATreeAndTheHeader() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            for (int i = 0; i < 20; i++) {
                j.zadd("z", i * 10, "m" + (1000 + i)); // members in score order: a score change moves no entry
            }
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            StoredZSet z = StoredZSet.read(db, KEY, db.get(KEY), 8);
            assertEquals(e.size() - 1, z.nodeCount(), "the element map holds the nodes below the roots and the id's root");
            AtomicInteger writes = new AtomicInteger();
            e.afterWrite = writes::incrementAndGet;
            assertEquals(0, j.zadd("z", 15, "m1001"));
            // A leaf a tree, the header, the two leaves replaced; with stored roots it was nine
            assertEquals(5, writes.get(), "map writes of a ZADD");
            assertEquals(15.0, j.zscore("z", "m1001"));
            assertEquals(1L, j.zrank("z", "m1001"));
        }
    }

    @Test
    void aHeaderThatNamesItsRootsReadsRightAndItsFirstWriteTakesThemIn() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            Map<String, Double> model = fill(j);
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            long[] roots = toStoredRoots(db);
            assertFalse(ZSetTreeLayout.inlineRoots(db.get(KEY)));
            ZSetCrashPointsTest.check(j, model, model, "roots at positions");
            j.zadd("z", 0.5, "new");
            model.put("new", 0.5);
            ZSetCrashPointsTest.check(j, model, model, "after the first write");
            KeyValueStore.Entry h = db.get(KEY);
            assertTrue(ZSetTreeLayout.inlineRoots(h));
            long id = ZSetTreeLayout.get(h, ZSetTreeLayout.ID_OFFSET);
            for (long p : roots) {
                assertNull(e.get(id, p), "the stored root at " + p + " is removed");
            }
            assertEquals(e.size() - 1, StoredZSet.read(db, KEY, h, 8).nodeCount(), "nothing else is left in the element map");
        }
    }

    @Test
    void theFirstWriteOfAHeaderThatNamesItsRootsStoppedAnywhereLeavesASetThatReadsRight() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            Map<String, Double> before = fill(j);
            KeyValueStore db = s.context().dbs.opened(0);
            toStoredRoots(db);
            Map<String, Double> after = new HashMap<>(before);
            after.put("new", 0.5);
            int stops = StopPoints.each(StopPoints.hookOf(s), () -> j.zadd("z", 0.5, "new"), stopAt -> {
                ZSetCrashPointsTest.check(j, before, after, "stopped after write " + stopAt);
                j.del("z");
                j.zadd("z", before);
                toStoredRoots(db);
            });
            assertTrue(stops >= 5, stops + " stops");
            ZSetCrashPointsTest.check(j, after, after, "run through");
        }
    }

    private static Map<String, Double> fill(Jedis j) {
        SplittableRandom random = new SplittableRandom(3);
        Map<String, Double> model = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            model.put("m" + i, (double) random.nextInt(100));
        }
        j.zadd("z", model);
        return model;
    }

    /**
     * Rewrites the set under {@code z} as a header of encoding 2 stores it: its roots put as nodes
     * at its next two positions, which the header names.
     *
     * @return the roots' positions
     */
    private static long[] toStoredRoots(KeyValueStore db) {
        KeyValueStore.Entry e = db.get(KEY);
        long id = ZSetTreeLayout.get(e, ZSetTreeLayout.ID_OFFSET);
        long next = ZSetTreeLayout.get(e, ZSetTreeLayout.NEXT_OFFSET);
        ListElements elements = db.elements(false);
        elements.put(id, next, ZSetTreeLayout.root(e, false).encode());
        elements.put(id, next + 1, ZSetTreeLayout.root(e, true).encode());
        byte[] h = new byte[ZSetTreeLayout.RETIRED_OFFSET];
        h[ZSetTreeLayout.ENCODING_OFFSET] = ZSetTreeLayout.TREE;
        ListLayout.putLong(h, ZSetTreeLayout.ID_OFFSET, id);
        ListLayout.putLong(h, ZSetTreeLayout.COUNT_OFFSET, ZSetTreeLayout.get(e, ZSetTreeLayout.COUNT_OFFSET));
        ListLayout.putLong(h, ZSetTreeLayout.NEXT_OFFSET, next + 2);
        ListLayout.putLong(h, ZSetTreeLayout.SCORE_ROOT_OFFSET, next);
        ListLayout.putLong(h, ZSetTreeLayout.MEMBER_ROOT_OFFSET, next + 1);
        db.set(KEY, h, 0, h.length, e.expireAtMillis(), StoredValue.ZSET);
        return new long[] {next, next + 1};
    }
}
