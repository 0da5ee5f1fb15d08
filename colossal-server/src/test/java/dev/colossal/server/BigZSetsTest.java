package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.resps.Tuple;

/**
 * Big sorted sets ({@link StoredZSet}) at the default {@code zset-max-listpack-entries}: 200,000
 * members of random scores added a pipelined ZADD at a time, then ranks, scores, rank and score
 * ranges read against a model, before and after a restart; the element map holds the trees' nodes
 * and a root, the collector keeps them, and what a removed set held is freed.
 */
class BigZSetsTest {

    private static final int MEMBERS = 200_000;

    @TempDir
    Path dir;

    @Test
    void twoHundredThousandMembersRankAndRangeRightAcrossARestart() throws Exception {
        SplittableRandom random = new SplittableRandom(5);
        int[] scores = new int[MEMBERS];
        Integer[] order = new Integer[MEMBERS];
        for (int i = 0; i < MEMBERS; i++) {
            scores[i] = random.nextInt(1_000_000);
            order[i] = i;
        }
        // Redis's order: by score, then by member bytes
        Arrays.sort(order, Comparator.<Integer>comparingInt(i -> scores[i]).thenComparing(i -> "m" + i));
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port(), 60_000)) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < MEMBERS; i++) {
                p.zadd("big", scores[i], "m" + i);
                if (i % 1000 == 999) {
                    p.sync();
                }
            }
            p.sync();
            check(j, scores, order);
            ListElements e = s.context().dbs.opened(0).elements(false);
            long nodes = nodes(s, "big");
            int dead = ZSetTreeLayout.retired(s.context().dbs.opened(0).get("big".getBytes(StandardCharsets.UTF_8))).length;
            assertTrue(dead > 0, "the last write retired nodes");
            // The background collector may already have freed some of the retired nodes (it did in a CI run)
            long held = e.size();
            assertTrue(held >= nodes + 1 && held <= nodes + 1 + dead,
                    held + " entries: the trees' " + nodes + " nodes, the root and at most the last write's " + dead + " retired nodes, nothing else");
            assertTrue(nodes < 2L * MEMBERS / 32, nodes + " nodes for " + MEMBERS + " members");
            s.context().collector.walk(s.context().dbs.opened(0), e);
            assertEquals(nodes + 1, e.size(), "the collector keeps what the header holds and frees the retired nodes");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port(), 60_000)) {
            check(j, scores, order);
            // Removals from the middle and both ends merge nodes and keep the ranks
            assertEquals(1000, j.zremrangeByRank("big", 5000, 5999));
            assertEquals(10, j.zpopmin("big", 10).size());
            assertEquals(10, j.zpopmax("big", 10).size());
            assertEquals(MEMBERS - 1020, j.zcard("big"));
            assertEquals("m" + order[10], j.zrange("big", 0, 0).getFirst());
            // rank r now was rank r + 10 below 5000, else r + 1010
            assertEquals("m" + order[4999], j.zrange("big", 4989, 4989).getFirst());
            assertEquals("m" + order[6000], j.zrange("big", 4990, 4990).getFirst());
            assertEquals(5010, j.zrank("big", "m" + order[6020]));
            assertNull(j.zrank("big", "m" + order[5500]));
            assertEquals("skiplist", j.objectEncoding("big"));
            assertEquals("OK", j.rename("big", "moved"));
            assertTrue(j.copy("moved", "copy", false));
            assertEquals(j.zrange("moved", 100, 120), j.zrange("copy", 100, 120));
            assertEquals(MEMBERS - 1020, j.zcard("copy"));
            ListElements e = s.context().dbs.opened(0).elements(false);
            s.context().collector.walk(s.context().dbs.opened(0), e); // the nodes the last ZPOPMAX retired
            assertEquals(nodes(s, "moved") + nodes(s, "copy") + 2, e.size());
            j.del("moved", "copy");
            eventually(() -> e.size() == 0, "the collector to free what the sets held: " + e.size() + " entries left");
            assertNull(j.zscore("moved", "m1"));
        }
    }

    private static void check(Jedis j, int[] scores, Integer[] order) {
        assertEquals(MEMBERS, j.zcard("big"));
        for (int r = 0; r < MEMBERS; r += 997) {
            int i = order[r];
            assertEquals(r, j.zrank("big", "m" + i), "ZRANK of m" + i);
            assertEquals(MEMBERS - 1 - r, j.zrevrank("big", "m" + i));
            assertEquals((double) scores[i], j.zscore("big", "m" + i));
        }
        List<Tuple> page = j.zrangeWithScores("big", 123_456, 123_465);
        for (int k = 0; k < 10; k++) {
            assertEquals("m" + order[123_456 + k], page.get(k).getElement());
            assertEquals(scores[order[123_456 + k]], page.get(k).getScore());
        }
        assertEquals("m" + order[MEMBERS - 1], j.zrevrange("big", 0, 0).getFirst());
        long below = Arrays.stream(scores).filter(sc -> sc >= 1000 && sc <= 300_000).count();
        assertEquals(below, j.zcount("big", 1000, 300_000));
        List<String> byScore = j.zrangeByScore("big", "(500000", "+inf", 7, 3);
        int first = 0;
        while (scores[order[first]] <= 500_000) {
            first++;
        }
        assertEquals(List.of("m" + order[first + 7], "m" + order[first + 8], "m" + order[first + 9]), byScore);
    }

    private static long nodes(ColossalServer s, String key) {
        KeyValueStore db = s.context().dbs.opened(0);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return StoredZSet.read(db, k, db.get(k), ZSetLayout.MAX_LISTPACK_ENTRIES).nodeCount();
    }
}
