package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What a big sorted set's write saves: a node's size known without summing its entries (and
 * stored in exactly that many bytes), and the nodes a header retires removed once, not again by
 * the next write.
 */
class ZSetNodeTest {

    @TempDir
    Path dir;

    @Test
    void aNodeKnowsItsSizeAsEntriesComeAndGo() {
        ZSetTree t = new ZSetTree(false, 4, p -> {
            throw new AssertionError("nothing is stored");
        }, p -> { });
        SplittableRandom random = new SplittableRandom(5);
        List<byte[]> in = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            byte[] m = ("m" + i + "x".repeat(random.nextInt(200))).getBytes(StandardCharsets.UTF_8);
            t.insert(i % 37, m);
            in.add(m);
        }
        for (int i = 0; i < 400; i += 3) {
            assertTrue(t.delete(i % 37, in.get(i)));
        }
        int[] nodes = {0};
        check(t.root(), nodes);
        assertTrue(nodes[0] > 50, nodes[0] + " nodes: splits and merges ran");
    }

    private static void check(ZSetNode node, int[] nodes) {
        nodes[0]++;
        long expected = ZSetTreeLayout.N_OFFSET + HashLayout.varintLength(node.n);
        for (int i = 0; i < node.n; i++) {
            int length = node.members[i].length;
            expected += (node.leaf ? 0 : ZSetTreeLayout.CHILD_LENGTH) + ZSetLayout.SCORE_LENGTH
                    + HashLayout.varintLength(length) + length;
        }
        assertEquals(expected, node.bytes(), "node of " + node.n + " entries");
        for (int i = 0; !node.leaf && i < node.n; i++) {
            check(node.loaded[i], nodes);
        }
    }

    @Test
    void aNodeIsStoredInItsKeptSizeAndReadsBackTheSame() {
        for (boolean leaf : new boolean[] {true, false}) {
            ZSetNode node = new ZSetNode(leaf, 4);
            for (int i = 0; i < 9; i++) {
                node.open(i);
                node.set(i, i * 1.5, ("member" + i).getBytes(StandardCharsets.UTF_8));
                if (!leaf) {
                    node.children[i] = 100 + i;
                    node.counts[i] = 7 + i;
                }
            }
            byte[] raw = node.encode();
            assertEquals(node.bytes(), raw.length);
            ZSetNode back = ZSetNode.decode(raw, 3);
            assertEquals(9, back.n);
            assertEquals(node.bytes(), back.bytes());
            for (int i = 0; i < 9; i++) {
                assertEquals(node.scores[i], back.scores[i]);
                assertArrayEquals(node.members[i], back.members[i]);
                if (!leaf) {
                    assertEquals(node.children[i], back.children[i]);
                    assertEquals(node.counts[i], back.counts[i]);
                }
            }
        }
    }

    @Test
    void aWritePutsItsNodesWhereTheLastOneRetiredItsOwn() throws Exception {
        byte[] key = "z".getBytes(StandardCharsets.UTF_8);
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            for (int i = 0; i < 400; i++) { // past 32 nodes of 8: big enough to keep retired nodes
                j.zadd("z", i * 10, "m" + (1000 + i)); // members in score order: a score change moves no entry
            }
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            AtomicInteger writes = new AtomicInteger();
            e.afterWrite = writes::incrementAndGet;
            for (int round = 1; round <= 5; round++) {
                KeyValueStore.Entry before = db.get(key);
                long[] dead = ZSetTreeLayout.retired(before);
                long next = ZSetTreeLayout.get(before, ZSetTreeLayout.NEXT_OFFSET);
                writes.set(0);
                assertEquals(0, j.zadd("z", 1000 + round, "m1100"));
                KeyValueStore.Entry h = db.get(key);
                long id = ZSetTreeLayout.get(h, ZSetTreeLayout.ID_OFFSET);
                long[] retired = ZSetTreeLayout.retired(h);
                assertTrue(retired.length >= 2, retired.length + " nodes retired: the score tree's leaf and an inner node at least");
                for (long p : retired) {
                    assertTrue(e.get(id, p) != null, "retired node " + p + " left for the next write");
                    for (long q : dead) {
                        assertTrue(p != q, "a node written at " + p + " is retired by the next write alone");
                    }
                }
                if (round > 2) { // the same path as the last round's (the first merged nodes): every node over a dead one, nothing removed
                    assertEquals(dead.length, retired.length);
                    assertEquals(retired.length + 2, writes.get(), "map writes of round " + round
                            + ": the score tree's nodes, the header, the member leaf in place");
                    assertEquals(next + 1, ZSetTreeLayout.get(h, ZSetTreeLayout.NEXT_OFFSET), "next moves on with each write");
                }
                assertEquals(1000 + round, j.zscore("z", "m1100"));
                assertEquals(100L, j.zrank("z", "m1100"));
                assertEquals(400, j.zcard("z"));
            }
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            // A new process reuses them too (those its collector's first walk did not free): they are in the header, not in memory
            for (int i = 0; i < 3; i++) {
                assertEquals(0, j.zadd("z", 5 + i, "m1100"));
            }
            assertEquals(7.0, j.zscore("z", "m1100"));
            assertEquals(List.of("m1000", "m1100", "m1001"), j.zrange("z", 0, 2));
        }
    }

    /**
     * A write of one member's score rewrites its member leaf in place after the header, which names
     * the change: stopped between the two, reads apply the change, and the next write, in a new
     * process that cannot know whether the leaf got it, makes the leaf hold it before its own
     * header replaces that one.
     */
    @Test
    void aMemberChangeNamedByTheHeaderIsReadBeforeItsLeafHasItAndPutThereByTheNextWrite() throws Exception {
        byte[] key = "z".getBytes(StandardCharsets.UTF_8);
        byte[] m1100 = "m1100".getBytes(StandardCharsets.UTF_8);
        long leaf;
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            for (int i = 0; i < 400; i++) {
                j.zadd("z", i * 10, "m" + (1000 + i));
            }
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            assertEquals(0, j.zadd("z", 1000.5, "m1100"));
            ZSetMemberChange named = ZSetTreeLayout.change(db.get(key));
            assertTrue(named != null && named.present() && named.score() == 1000.5, "the header names the change");
            leaf = named.leaf();
            assertEquals(1000.5, scoreIn(e, db, leaf, m1100), "the leaf got it");
            // The same write again, stopped right after the header: the leaf keeps the last score
            e.afterWrite = () -> {
                ZSetMemberChange now = ZSetTreeLayout.change(db.get(key));
                if (now != null && now.score() == 1000.75) {
                    throw new IllegalStateException("stopped for the test");
                }
            };
            assertThrows(JedisDataException.class, () -> j.zadd("z", 1000.75, "m1100"));
            e.afterWrite = () -> { };
            assertEquals(1000.75, ZSetTreeLayout.change(db.get(key)).score());
            assertEquals(1000.5, scoreIn(e, db, leaf, m1100), "stopped before the leaf's rewrite");
            assertEquals(1000.75, j.zscore("z", "m1100"));
            assertEquals(100L, j.zrank("z", "m1100"));
            assertEquals(List.of("m1100"), j.zrangeByScore("z", 1000.6, 1000.8));
            // A copy takes the nodes as stored and the header's change with them; a rename the header
            assertTrue(j.copy("z", "c", false));
            assertEquals("OK", j.rename("c", "r"));
            assertEquals(1000.75, j.zscore("r", "m1100"));
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            assertEquals(1000.75, j.zscore("z", "m1100"));
            assertEquals(1000.5, scoreIn(e, db, leaf, m1100));
            assertEquals(1L, j.zadd("z", 5, "m2000")); // another leaf's change
            assertEquals(1000.75, scoreIn(e, db, leaf, m1100), "the next write put the change in its leaf");
            assertEquals(1000.75, j.zscore("z", "m1100"));
            assertEquals(5.0, j.zscore("z", "m2000"));
            assertEquals(101L, j.zrank("z", "m1100"));
            assertEquals(1L, j.zrem("z", "m1100"));
            assertNull(j.zscore("z", "m1100"));
            assertEquals(400, j.zcard("z"));
            assertEquals(1000.75, j.zscore("r", "m1100"));
            assertEquals(1L, j.zadd("r", 5, "m2000"));
            assertEquals(1000.75, j.zscore("r", "m1100"));
            assertEquals(101L, j.zrank("r", "m1100"));
            assertEquals(401, j.zcard("r"));
        }
    }

    /** @return the score leaf {@code pos} of the set "z" of {@code db} gives {@code member}, or null */
    private static Double scoreIn(ListElements e, KeyValueStore db, long pos, byte[] member) {
        long id = ZSetTreeLayout.get(db.get("z".getBytes(StandardCharsets.UTF_8)), ZSetTreeLayout.ID_OFFSET);
        ZSetNode node = ZSetNode.decode(e.get(id, pos), pos);
        assertTrue(node.leaf);
        for (int i = 0; i < node.n; i++) {
            if (java.util.Arrays.equals(node.members[i], member)) {
                return node.scores[i];
            }
        }
        return null;
    }

    /** Below 32 full nodes' worth of members the dead nodes would be a large part of the set: a write removes them all. */
    @Test
    void aSmallTreeSetKeepsNoRetiredNodes() throws Exception {
        byte[] key = "z".getBytes(StandardCharsets.UTF_8);
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            for (int i = 0; i < 200; i++) {
                j.zadd("z", i * 10, "m" + (1000 + i));
            }
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            for (int round = 1; round <= 3; round++) {
                assertEquals(0, j.zadd("z", 1000 + round, "m1100"));
                KeyValueStore.Entry h = db.get(key);
                long id = ZSetTreeLayout.get(h, ZSetTreeLayout.ID_OFFSET);
                long[] retired = ZSetTreeLayout.retired(h);
                assertTrue(retired.length >= 2, retired.length + " nodes retired");
                for (long p : retired) {
                    assertNull(e.get(id, p), "retired node " + p + " of a set of 200 removed by the write that retired it");
                }
                assertEquals(100L, j.zrank("z", "m1100"));
            }
        }
    }

    @Test
    void aWriteThatRetiresManyNodesKeepsAFewForTheNextAndRanksStayRight() throws Exception {
        byte[] key = "z".getBytes(StandardCharsets.UTF_8);
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.configSet("zset-max-listpack-entries", "8");
            java.util.TreeMap<Double, String> want = new java.util.TreeMap<>();
            for (int i = 0; i < 3000; i++) {
                j.zadd("z", i, "m" + i);
                want.put((double) i, "m" + i);
            }
            KeyValueStore db = s.context().dbs.opened(0);
            ListElements e = db.elements(false);
            // One write that drops hundreds of nodes: it leaves MAX_REUSED of them, removes the rest
            assertEquals(600, j.zremrangeByRank("z", 500, 1099));
            want.subMap(500.0, 1100.0).clear();
            KeyValueStore.Entry h = db.get(key);
            long[] retired = ZSetTreeLayout.retired(h);
            assertTrue(retired.length > ZSetTreeLayout.MAX_REUSED, retired.length + " nodes retired"); // fewer than a rebuild's
            long nodes = StoredZSet.read(db, key, h, 8).nodeCount();
            assertEquals(nodes + 1 + ZSetTreeLayout.MAX_REUSED, e.size(), "the nodes, the root and the retired nodes kept");
            // Writes after it reuse those positions, grow past next when they need more, and keep every rank
            SplittableRandom r = new SplittableRandom(7);
            for (int i = 0; i < 2000; i++) {
                double sc = r.nextInt(100_000) / 10.0;
                String m = "n" + r.nextInt(1500);
                if (r.nextBoolean()) {
                    if (want.containsKey(sc)) {
                        continue; // scores stay unique: the model orders by score alone
                    }
                    want.values().remove(m);
                    j.zadd("z", sc, m);
                    want.put(sc, m);
                } else {
                    j.zrem("z", m);
                    want.values().remove(m);
                }
            }
            List<String> order = new ArrayList<>(want.values());
            assertEquals(order.size(), j.zcard("z"));
            for (int rank = 0; rank < order.size(); rank += 37) {
                assertEquals(rank, j.zrank("z", order.get(rank)), "rank of " + order.get(rank));
            }
            assertEquals(order, j.zrange("z", 0, -1));
            s.context().collector.walk(s.context().dbs.opened(0), e);
            h = db.get(key);
            assertEquals(StoredZSet.read(db, key, h, 8).nodeCount() + 1, e.size(), "the collector frees the retired nodes");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            long n = j.zcard("z");
            List<String> all = j.zrange("z", 0, -1);
            assertEquals(n, all.size());
            for (int i = 0; i < 50; i++) {
                j.zadd("z", 1e6 + i, "last" + i); // over the positions the collector freed: plain puts
            }
            assertEquals(n + 50, j.zcard("z"));
            assertEquals(all, j.zrange("z", 0, n - 1));
            assertEquals(n + 49, j.zrank("z", "last49"));
        }
    }
}
