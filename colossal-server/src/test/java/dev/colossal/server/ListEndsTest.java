package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;

/**
 * {@link ListEnds} writes the very header {@link StoredList} writes: the same random pushes, pops
 * and LSETs (which move a node, so that headers end with a moved node's number) on two lists, packed
 * while short and big after, one changed by {@link ListEnds} wherever it takes the change and the
 * other by {@link StoredList} alone, leave headers equal byte for byte but their ids after every
 * step, and the elements a model holds; through the server, pushes, pops and moves keep a TTL.
 */
class ListEndsTest {

    @TempDir
    Path dir;

    @Test
    void anEditInPlaceWritesTheHeaderStoredListWrites() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            KeyValueStore store = s.context().dbs.opened(0);
            byte[] edited = "edited".getBytes();
            byte[] built = "built".getBytes();
            SplittableRandom random = new SplittableRandom(34);
            Deque<byte[]> model = new ArrayDeque<>();
            int inPlace = 0;
            int steps = 20_000;
            for (int step = 0; step < steps; step++) {
                String where = "step " + step;
                // under both keys' locks, as commands change lists: the collector frees a node no header holds yet otherwise
                Lock[] locks = store.locks(edited, built);
                StringCommands.lockAll(locks);
                try {
                    inPlace += change(store, edited, built, random, model, where) ? 1 : 0;
                } finally {
                    StringCommands.unlockAll(locks);
                }
                KeyValueStore.Entry e = store.get(edited);
                KeyValueStore.Entry b = store.get(built);
                if (model.isEmpty()) {
                    assertNull(e, where);
                    assertNull(b, where);
                    continue;
                }
                assertEquals(b.length(), e.length(), where);
                byte[] eh = Arrays.copyOfRange(e.array(), e.offset() + Long.BYTES, e.offset() + e.length());
                byte[] bh = Arrays.copyOfRange(b.array(), b.offset() + Long.BYTES, b.offset() + b.length());
                assertArrayEquals(bh, eh, where + ": the header but its id");
                if (step % 500 == 0) {
                    List<byte[]> got = StoredList.read(store, edited).range(0, model.size());
                    assertEquals(model.size(), got.size(), where);
                    int i = 0;
                    for (byte[] m : model) {
                        assertArrayEquals(m, got.get(i++), where + " element " + (i - 1));
                    }
                }
            }
            assertTrue(inPlace > steps / 2, "changed in place " + inPlace + " times in " + steps + " steps");
        }
    }

    /**
     * One random change of both lists and the model: a push of one to three elements (now and
     * then one that is a node alone), a pop, or an LSET, pushes more often while the list is short
     * and pops while it is long; {@code edited} through {@link ListEnds} where it takes it.
     *
     * @return whether {@link ListEnds} took it
     */
    private static boolean change(KeyValueStore store, byte[] edited, byte[] built, SplittableRandom random,
                                  Deque<byte[]> model, String where) {
        int op = model.size() < 100 ? random.nextInt(3) : model.size() > 1500 ? 3 + random.nextInt(7) : random.nextInt(10);
        boolean left = random.nextBoolean();
        boolean inPlace = false;
        if (op < 5) {
            byte[][] values = new byte[1 + random.nextInt(3)][];
            for (int i = 0; i < values.length; i++) {
                values[i] = new byte[random.nextInt(10) == 0 ? 100 + random.nextInt(60) : random.nextInt(30)];
                random.nextBytes(values[i]);
                if (left) {
                    model.addFirst(values[i]);
                } else {
                    model.addLast(values[i]);
                }
            }
            ListEnds ends = ListEnds.mine();
            if (ends.read(store, edited) && ends.push(store, left, values, 0, values.length)) {
                inPlace = true;
                assertEquals(model.size(), ends.count(), where);
            } else {
                StoredList.of(store, edited, ends.entry()).push(left, values, 0, values.length);
            }
            StoredList.readOrEmpty(store, built).push(left, values, 0, values.length);
        } else if (op < 9) {
            byte[] expected = left ? model.pollFirst() : model.pollLast();
            ListEnds ends = ListEnds.mine();
            ends.read(store, edited);
            byte[] v = ends.pop(store, left);
            if (v != null) {
                inPlace = true;
            } else {
                StoredList l = StoredList.of(store, edited, ends.entry());
                v = l.exists() ? l.pop(left) : null;
            }
            assertArrayEquals(expected, v, where);
            StoredList b = StoredList.read(store, built);
            assertArrayEquals(expected, b == null ? null : b.pop(left), where);
        } else if (!model.isEmpty()) {
            byte[] v = new byte[random.nextInt(20)];
            random.nextBytes(v);
            int index = random.nextInt(model.size());
            List<byte[]> all = new ArrayList<>(model);
            all.set(index, v);
            model.clear();
            model.addAll(all);
            StoredList.read(store, edited).set(index, v);
            StoredList.read(store, built).set(index, v);
        }
        return inPlace;
    }

    /** Pushes, pops and moves in place keep a list's TTL and move the elements a model says, between two big lists. */
    @Test
    void pushesPopsAndMovesInPlaceKeepTheDeadlineAndTheElements() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            Deque<String> a = new ArrayDeque<>();
            Deque<String> b = new ArrayDeque<>();
            for (int i = 0; i < 300; i++) {
                j.rpush("a", "a" + i);
                a.addLast("a" + i);
                j.lpush("b", "b" + i);
                b.addFirst("b" + i);
            }
            j.expire("a", 1000);
            for (int i = 0; i < 250; i++) { // "a" loses one a step, 300 down to 50
                assertEquals(a.size() + 1, j.lpush("a", "x" + i));
                a.addFirst("x" + i);
                assertEquals(b.size() + 1, j.rpush("b", "y" + i));
                b.addLast("y" + i);
                assertEquals(a.pollLast(), j.rpop("a"));
                assertEquals(b.pollFirst(), j.lpop("b"));
                boolean fromLeft = i % 3 == 0;
                boolean toLeft = i % 2 == 0;
                String moved = fromLeft ? a.pollFirst() : a.pollLast();
                if (toLeft) {
                    b.addFirst(moved);
                } else {
                    b.addLast(moved);
                }
                assertEquals(moved, j.lmove("a", "b", fromLeft ? ListDirection.LEFT : ListDirection.RIGHT,
                        toLeft ? ListDirection.LEFT : ListDirection.RIGHT), "move " + i);
            }
            assertTrue(j.ttl("a") > 900, "the deadline stays: " + j.ttl("a"));
            assertEquals(-1, j.ttl("b"));
            assertEquals(List.copyOf(a), j.lrange("a", 0, -1));
            assertEquals(List.copyOf(b), j.lrange("b", 0, -1));
        }
    }
}
