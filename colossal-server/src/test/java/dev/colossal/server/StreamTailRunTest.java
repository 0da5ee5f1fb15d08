package dev.colossal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XTrimParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * The last node's tail run ({@link StreamLayout}): entries an XADD keeps in the header until the
 * node takes them in. XADD writes the header alone while the run has room; every read, XDEL,
 * trim, copy, rename, dump and restart sees the run's entries as the node's; a kill between the
 * node's write that takes the run in and the header's loses nothing.
 */
class StreamTailRunTest {

    @TempDir
    Path dir;

    private static final byte[] KEY = "s".getBytes(US_ASCII);

    @Test
    void anXaddIntoANodeWithRoomWritesTheHeaderAlone() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            KeyValueStore store = s.context().dbs.store(0);
            j.xadd("s", new StreamEntryID(1, 0), Map.of("f", "1"));
            StoredStream st = StoredStream.read(store, KEY);
            byte[] node = st.elements().get(st.id(), st.firstNode());
            assertEquals(StreamLayout.HEADER_LENGTH, store.get(KEY).length(), "a stream of one new node has no run");
            j.xadd("s", new StreamEntryID(2, 0), Map.of("f", "2"));
            j.xadd("s", new StreamEntryID(3, 0), Map.of("f", "3"));
            assertArrayEquals(node, st.elements().get(st.id(), st.firstNode()), "the node was not rewritten");
            assertTrue(store.get(KEY).length() > StreamLayout.RUN_OFFSET, "the entries are in the header's run");
            assertEquals(List.of("1-0 f=1", "2-0 f=2", "3-0 f=3"), show(j.xrange("s", "-", "+")));
            assertEquals(List.of("3-0 f=3", "2-0 f=2"), show(j.xrevrange("s", "+", "-", 2)));
        }
    }

    @Test
    void theRunGoesIntoTheNodeOnceFullAndWhenANewNodeBegins() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir, "stream-node-max-entries", "50");
             Jedis j = StreamsTest.jedis(s.port())) {
            KeyValueStore store = s.context().dbs.store(0);
            String big = "x".repeat(100);
            for (int i = 1; i <= 12; i++) { // 12 entries of ~110 bytes: the run fills after four
                j.xadd("s", new StreamEntryID(i, 0), Map.of("f", big + i));
                assertTrue(store.get(KEY).length() - StreamLayout.RUN_OFFSET <= StreamLayout.MAX_RUN_BYTES);
            }
            StoredStream st = StoredStream.read(store, KEY);
            assertEquals(1, st.nodes());
            assertTrue(StreamNode.count(st.elements().get(st.id(), st.firstNode())) >= 8, "the node took the full runs in");
            for (int i = 13; i <= 60; i++) {
                j.xadd("s", new StreamEntryID(i, 0), Map.of("f", "v" + i));
            }
            st = StoredStream.read(store, KEY);
            assertEquals(2, st.nodes());
            assertEquals(50, StreamNode.count(st.elements().get(st.id(), st.firstNode())),
                    "the first node holds its 50 entries, its run taken in before the second began");
            assertEquals(60, j.xlen("s"));
            List<StreamEntry> all = j.xrange("s", "-", "+");
            for (int i = 1; i <= 60; i++) {
                assertEquals(i + "-0", all.get(i - 1).getID().toString());
            }
        }
    }

    /** Random XADD, XDEL, XTRIM (exact, ~, MINID), COPY, RENAME, DUMP/RESTORE and restarts against a model. */
    @Test
    void randomChangesReadAsAModelAcrossRestarts() throws Exception {
        SplittableRandom r = new SplittableRandom(30);
        List<String> model = new ArrayList<>();
        long ms = 0;
        for (int life = 0; life < 4; life++) {
            String nodeSize = List.of("3", "10", "100", "7").get(life);
            try (ColossalServer s = TestServers.colossal(dir, "stream-node-max-entries", nodeSize);
                 Jedis j = StreamsTest.jedis(s.port())) {
                assertEquals(model, show(j.xrange("s", "-", "+")), "as stored before the restart");
                for (int step = 0; step < 600; step++) {
                    int op = r.nextInt(100);
                    if (op < 70) {
                        ms += 1 + r.nextInt(3);
                        int pairs = 1 + r.nextInt(3);
                        Map<String, String> fields = new LinkedHashMap<>();
                        for (int p = 0; p < pairs; p++) {
                            fields.put("f" + p, "v".repeat(r.nextInt(10) == 0 ? 300 + r.nextInt(400) : r.nextInt(20)));
                        }
                        j.xadd("s", new StreamEntryID(ms, 0), fields);
                        model.add(line(ms + "-0", fields));
                    } else if (op < 82 && !model.isEmpty()) {
                        String victim = model.get(r.nextInt(model.size()));
                        assertEquals(1, j.xdel("s", new StreamEntryID(victim.substring(0, victim.indexOf(' ')))));
                        model.remove(victim);
                    } else if (op < 88) {
                        int keep = r.nextInt(model.size() + 2);
                        j.xtrim("s", XTrimParams.xTrimParams().maxLen(keep));
                        while (model.size() > keep) {
                            model.removeFirst();
                        }
                    } else if (op < 92) {
                        int keep = r.nextInt(model.size() + 2);
                        j.xtrim("s", XTrimParams.xTrimParams().maxLen(keep).approximateTrimming());
                        List<String> now = show(j.xrange("s", "-", "+"));
                        assertTrue(now.size() >= Math.min(keep, model.size()), "a ~ trim keeps at least the bound");
                        assertEquals(model.subList(model.size() - now.size(), model.size()), now, "a ~ trim keeps a suffix");
                        model = new ArrayList<>(now);
                    } else if (op < 94 && !model.isEmpty()) {
                        String floor = model.get(r.nextInt(model.size()));
                        String id = floor.substring(0, floor.indexOf(' '));
                        j.xtrim("s", XTrimParams.xTrimParams().minId(id));
                        model.removeIf(e -> new StreamEntryID(e.substring(0, e.indexOf(' '))).compareTo(new StreamEntryID(id)) < 0);
                    } else if (op < 96) {
                        j.copy("s", "c", true);
                        assertEquals(model, show(j.xrange("c", "-", "+")), "the copy");
                        j.xadd("c", new StreamEntryID(ms + 1000, 0), Map.of("f", "copy's own"));
                        assertEquals(model, show(j.xrange("s", "-", "+")), "the copy's XADD left the source alone");
                        j.del("c");
                    } else if (op < 98) {
                        j.rename("s", "t");
                        j.rename("t", "s");
                    } else {
                        byte[] dump = j.dump("s");
                        if (dump != null) {
                            j.restore("s", 0, dump, redis.clients.jedis.params.RestoreParams.restoreParams().replace());
                        }
                    }
                    assertEquals(model.size(), j.xlen("s"));
                    if (step % 20 == 0) {
                        assertEquals(model, show(j.xrange("s", "-", "+")), "step " + step);
                        List<String> rev = new ArrayList<>(model.subList(Math.max(0, model.size() - 5), model.size()));
                        java.util.Collections.reverse(rev);
                        assertEquals(rev, show(j.xrevrange("s", "+", "-", 5)), "step " + step);
                    }
                }
                assertEquals(model, show(j.xrange("s", "-", "+")));
            }
        }
    }

    /**
     * What a kill between the write that takes the run into the last node and the header leaves:
     * the node with the run's entries and one more that no header counts. The stream reads as
     * before, and the next XADD goes on from the header.
     */
    @Test
    void aKillAfterTheNodeTookTheRunInBeforeItsHeaderLosesNothing() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = StreamsTest.jedis(s.port())) {
            for (int i = 1; i <= 5; i++) {
                j.xadd("torn", new StreamEntryID(i, 0), Map.of("n", Integer.toString(i)));
            }
            KeyValueStore store = s.context().dbs.store(0);
            byte[] key = "torn".getBytes(US_ASCII);
            assertTrue(store.get(key).length() > StreamLayout.HEADER_LENGTH, "entries 2 to 5 are in the run");
            StoredStream st = StoredStream.read(store, key);
            long last = st.firstNode() + st.nodes() - 1;
            byte[] node = st.elements().get(st.id(), last);
            int stored = StreamNode.count(node);
            for (int i = stored + 1; i <= 6; i++) {
                byte[][] pair = {"n".getBytes(US_ASCII), (i == 6 ? "phantom" : Integer.toString(i)).getBytes(US_ASCII)};
                node = StreamNode.append(node, new StreamId(i, 0), pair, 0, 2);
            }
            st.elements().put(st.id(), last, node);
            assertEquals(5, j.xlen("torn"));
            assertEquals(List.of("1-0 n=1", "2-0 n=2", "3-0 n=3", "4-0 n=4", "5-0 n=5"), show(j.xrange("torn", "-", "+")));
            j.xadd("torn", new StreamEntryID(6, 0), Map.of("n", "6"));
            assertEquals(List.of("6-0 n=6", "5-0 n=5"), show(j.xrevrange("torn", "+", "-", 2)), "the phantom is gone");
            assertEquals(1, j.xdel("torn", new StreamEntryID(3, 0)));
            assertEquals(List.of("1-0 n=1", "2-0 n=2", "4-0 n=4", "5-0 n=5", "6-0 n=6"), show(j.xrange("torn", "-", "+")));
        }
    }

    /**
     * An XADD of an entry too long for the run writes the node; a kill before its header leaves
     * that entry in the node past the committed bytes. If the next XADD begins a new node, the old
     * one, now read whole as a middle node, must not bring the entry back.
     */
    @Test
    void anUncountedEntryInTheLastNodeDoesNotComeBackWhenANewNodeBegins() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir, "stream-node-max-entries", "3");
             Jedis j = StreamsTest.jedis(s.port())) {
            String big = "b".repeat(600);
            for (int i = 1; i <= 5; i++) { // nodes [1, 2, 3] and [4, 5]
                j.xadd("torn", new StreamEntryID(i, 0), Map.of("n", i + big));
            }
            KeyValueStore store = s.context().dbs.store(0);
            byte[] key = "torn".getBytes(US_ASCII);
            assertEquals(StreamLayout.HEADER_LENGTH, store.get(key).length(), "entries too long for the run went into the node");
            StoredStream st = StoredStream.read(store, key);
            long last = st.firstNode() + st.nodes() - 1;
            byte[][] pair = {"n".getBytes(US_ASCII), "phantom".getBytes(US_ASCII)};
            st.elements().put(st.id(), last, StreamNode.append(st.elements().get(st.id(), last), new StreamId(6, 0), pair, 0, 2));
            j.configSet("stream-node-max-entries", "2");
            j.xadd("torn", new StreamEntryID(7, 0), Map.of("n", "7"));
            assertEquals(3, StoredStream.read(store, key).nodes(), "the XADD began a node");
            List<String> ids = j.xrange("torn", "-", "+").stream().map(e -> e.getID().toString()).toList();
            assertEquals(List.of("1-0", "2-0", "3-0", "4-0", "5-0", "7-0"), ids);
            assertEquals(6, j.xlen("torn"));
        }
    }

    private static String line(String id, Map<String, String> fields) {
        StringBuilder b = new StringBuilder(id);
        new java.util.TreeMap<>(fields).forEach((f, v) -> b.append(' ').append(f).append('=').append(v)); // Jedis's maps keep no order
        return b.toString();
    }

    private static List<String> show(List<StreamEntry> es) {
        List<String> out = new ArrayList<>();
        for (StreamEntry e : es) {
            out.add(line(e.getID().toString(), e.getFields()));
        }
        return out;
    }
}
