package dev.colossal.server;

import static dev.colossal.server.ListsTest.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.args.ListPosition;

/**
 * Small lists packed into their header (and lists of one element up to 16 KiB) and big ones in the
 * element map: random changes of every list command, with elements of sizes around the packing
 * limits so that lists cross them both ways,
 * read back as a model says after each, across restarts; every change stopped after each of its
 * element-map writes (a kill's stand-in) leaves the list as before or as after it, and what a stop
 * left behind is freed.
 */
class ListPackTest {

    @TempDir
    Path dir;

    @Test
    void aSmallListIsOneEntryAndReadsAsAnyList() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.rpush("q", "a", "b", "c");
            j.expire("q", 100);
            j.lpush("q", "z");
            assertTrue(j.ttl("q") > 90, "a push keeps the TTL: " + j.ttl("q"));
            assertEquals(List.of("z", "a", "b", "c"), j.lrange("q", 0, -1));
            StoredList l = StoredList.read(s.context().dbs.opened(0), "q".getBytes());
            assertTrue(l.packed(), "four short elements are packed");
            ListElements e = s.context().dbs.opened(0).elements(false);
            assertTrue(e == null || e.size() == 0, "nothing in the element map");
            j.rpush("q", "x".repeat(ListLayout.PACKED_BYTES));
            StoredList big = StoredList.read(s.context().dbs.opened(0), "q".getBytes());
            assertTrue(big.big(), "past the limit: a big list");
            assertEquals(4, big.elementEntries(), "the four short ones in a node, the long one in one of its own, their counts, the root");
            assertEquals(4, s.context().dbs.opened(0).elements(false).size(), "nothing else in the element map");
            assertEquals("z", j.lpop("q"));
            assertEquals(4, j.llen("q"));

            String job = "j".repeat(ListLayout.PACKED_ONE_BYTES - ListLayout.PACKED_LENGTH_BYTES);
            j.lpush("one", job);
            assertTrue(StoredList.read(s.context().dbs.opened(0), "one".getBytes()).packed(), "one element of 16 KiB is packed");
            j.lpush("one", "next");
            assertTrue(!StoredList.read(s.context().dbs.opened(0), "one".getBytes()).packed(), "with another, unpacked");
            assertEquals(List.of("next", job), j.lrange("one", 0, -1));
            j.lpush("big", job + "!");
            assertTrue(!StoredList.read(s.context().dbs.opened(0), "big".getBytes()).packed(), "one element over 16 KiB is not");
        }
    }

    /**
     * A list grown by LPUSH past the packing limit keeps only its head run in its header: the
     * elements it had when it became big went to nodes whole, none left in a tail run that every
     * later push would rewrite.
     */
    @Test
    void aListMadeBigByPushesAtItsHeadCarriesNoTailRun() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            List<String> model = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                String v = "e" + i;
                j.lpush("q", v);
                model.addFirst(v);
                KeyValueStore.Entry h = s.context().dbs.opened(0).get("q".getBytes());
                if (StoredList.read(s.context().dbs.opened(0), "q".getBytes()).big()) {
                    assertTrue(h.length() <= ListLayout.NODES_HEADER_LENGTH + ListLayout.RUN_BYTES,
                            "after " + (i + 1) + " pushes the header holds " + h.length() + " bytes: more than a head run");
                }
            }
            assertTrue(StoredList.read(s.context().dbs.opened(0), "q".getBytes()).big(), "1000 elements make a big list");
            assertEquals(model, j.lrange("q", 0, -1));
            assertEquals("e0", j.rpop("q"));
            assertEquals("e999", j.lpop("q"));
            assertEquals(998, j.llen("q"));
        }
    }

    @Test
    void randomChangesAcrossThePackingLimitReadAsTheModelAcrossRestarts() throws Exception {
        int[] seen = randomChanges(new SplittableRandom(11), 20, 3, 1500);
        assertTrue(seen[0] > 1000 && seen[1] > 1000, "packed " + seen[0] + " times, big " + seen[1]);
    }

    /** Lists of up to a few hundred elements: many nodes, so ranges, LINDEX and LSET reach into the middle from both ends. */
    @Test
    void randomChangesOfBigListsReadAsTheModelAcrossRestarts() throws Exception {
        int[] seen = randomChanges(new SplittableRandom(12), 300, 2, 1500);
        assertTrue(seen[2] > 1000, "lists of more than 8 nodes " + seen[2] + " times");
    }

    /**
     * Random changes of list "l" ({@link #change}) growing it to about {@code grows} elements, in
     * {@code lives} server lives, checked against a model at every step.
     *
     * @return the steps that saw it packed, big, and big with more than 8 nodes
     */
    private int[] randomChanges(SplittableRandom random, int grows, int lives, int steps) throws Exception {
        List<String> model = new ArrayList<>();
        int[] seen = new int[3];
        for (int life = 0; life < lives; life++) {
            try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals(model, j.lrange("l", 0, -1), "after restart " + life);
                for (int step = 0; step < steps; step++) {
                    change(random, model, grows).accept(j);
                    String where = "life " + life + " step " + step;
                    assertEquals(model.size(), j.llen("l"), where);
                    if (step % 10 == 0 || model.size() < 3) {
                        assertEquals(model, j.lrange("l", 0, -1), where);
                    }
                    if (!model.isEmpty()) {
                        int i = random.nextInt(model.size());
                        assertEquals(model.get(i), j.lindex("l", i), where + " LINDEX " + i);
                        int from = random.nextInt(model.size());
                        int to = from + random.nextInt(40);
                        assertEquals(model.subList(from, Math.min(to + 1, model.size())), j.lrange("l", from, to), where + " LRANGE");
                        assertEquals(model.subList(Math.max(0, model.size() - 1 - to), model.size() - from),
                                j.lrange("l", -1 - to, -1 - from), where + " LRANGE from the end");
                    }
                    StoredList l = StoredList.read(s.context().dbs.opened(0), "l".getBytes());
                    if (l != null) {
                        seen[0] += l.packed() ? 1 : 0;
                        seen[1] += l.big() ? 1 : 0;
                        // more than 8 nodes (with a count entry and the root): LINDEX sums their counts
                        seen[2] += l.big() && l.elementEntries() > ListNodes.LOCATE_BY_COUNTS + 2 ? 1 : 0;
                    }
                }
            }
        }
        return seen;
    }

    @Test
    void aChangeStoppedAfterAnyOfItsWritesLeavesTheListAsBeforeOrAfter() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            SplittableRandom random = new SplittableRandom(5);
            List<String> model = new ArrayList<>();
            int stops = 0;
            for (int step = 0; step < 300; step++) {
                List<String> before = new ArrayList<>(model);
                Consumer<Jedis> change = change(random, model);
                List<String> after = new ArrayList<>(model);
                String where = "step " + step;
                stops += StopPoints.eachUntilDone(StopPoints.hookOf(s), () -> change.accept(j), stopAt -> {
                    // as before, or as after once the header is written (a big list's pop removes
                    // the nodes it emptied after that, an LSET the node copy it replaced)
                    List<String> got = j.lrange("l", 0, -1);
                    assertTrue(got.equals(before) || got.equals(after),
                            where + ", stopped after write " + stopAt + ": as before or after, got " + got);
                    assertEquals(got.size(), j.llen("l"), where);
                    return !got.equals(before);
                });
                assertEquals(after, j.lrange("l", 0, -1), where + ": run through");
            }
            assertTrue(stops > 100, "changes were stopped " + stops + " times");
            StoredList l = StoredList.read(s.context().dbs.opened(0), "l".getBytes());
            long needed = l == null ? 0 : l.elementEntries();
            ListElements e = s.context().dbs.opened(0).elements(false);
            eventually(() -> e.size() == needed, "the collector frees what the stops left: " + e.size() + " entries, " + needed + " needed");
        }
    }

    /**
     * An LSET in the middle of a big list stopped after any of its writes shows its new element
     * only once the header changed (its LSET count, which WATCH sees): a node the header holds is
     * never written in place. LSETs hit one node again and again, then others, so that a node
     * written to its moved position goes back to its own.
     */
    @Test
    void anLsetInTheMiddleStoppedAfterAnyWriteShowsOnlyWithItsHeader() throws Exception {
        List<String> model = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            model.add("element-" + i);
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.rpush("l", model.toArray(String[]::new));
            KeyValueStore db = s.context().dbs.opened(0);
            assertTrue(StoredList.read(db, "l".getBytes()).elementEntries() > ListNodes.LOCATE_BY_COUNTS + 2, "many nodes");
            SplittableRandom random = new SplittableRandom(3);
            int stops = 0;
            for (int step = 0; step < 60; step++) {
                int index = step < 10 ? 300 + step : 100 + random.nextInt(400);
                String value = "set-" + step + "-" + "v".repeat(random.nextInt(30));
                List<String> before = new ArrayList<>(model);
                byte[] headerBefore = header(db);
                model.set(index, value);
                String where = "step " + step + ", LSET " + index;
                stops += StopPoints.eachUntilDone(StopPoints.hookOf(s), () -> j.lset("l", index, value), stopAt -> {
                    List<String> got = j.lrange("l", 0, -1);
                    boolean committed = !java.util.Arrays.equals(headerBefore, header(db));
                    String at = where + ", stopped after write " + stopAt + (committed ? ", header written" : ", header as before");
                    assertEquals((committed ? model : before).get(index), got.get(index), at);
                    assertTrue(got.equals(committed ? model : before), at + ": every other element as it was");
                    return committed;
                });
                assertEquals(model, j.lrange("l", 0, -1), where + ": run through");
                assertEquals(value, j.lindex("l", index), where);
            }
            assertTrue(stops >= 60, "every LSET was stopped at least once: " + stops);
            long needed = StoredList.read(db, "l".getBytes()).elementEntries();
            ListElements e = db.elements(false);
            eventually(() -> e.size() == needed, "the collector frees what the stops left: " + e.size() + " entries, " + needed + " needed");
            assertEquals(model, j.lrange("l", 0, -1), "after the collector's walk");
        }
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(model, j.lrange("l", 0, -1), "after a restart");
        }
    }

    private static byte[] header(KeyValueStore db) {
        KeyValueStore.Entry e = db.get("l".getBytes());
        return java.util.Arrays.copyOfRange(e.array(), e.offset(), e.offset() + e.length());
    }

    /**
     * A packed list's elements are not walked when it is read (a push or a pop touches one end),
     * so a count its bytes disagree with is found by the walks that reach the end: damage, told as
     * such, where a range over every element would have answered short or read past the list.
     */
    @Test
    void aPackedListWhoseCountItsBytesDisagreeWithIsDamageToEveryWalkToItsEnd() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "q".getBytes();
            StoredList.readOrEmpty(store, key).push(false, new byte[][] {"a".getBytes(), "bb".getBytes(), "c".getBytes()}, 0, 3);
            KeyValueStore.Entry e = store.get(key);
            byte[] header = java.util.Arrays.copyOfRange(e.array(), e.offset(), e.offset() + e.length());
            for (long count : new long[] {2, 4}) {
                ListLayout.putLong(header, ListLayout.COUNT_OFFSET, count);
                store.set(key, header, 0, header.length, StoredValue.NO_EXPIRY, StoredValue.LIST);
                StoredList list = StoredList.read(store, key);
                assertEquals("a", new String(list.get(0)), "one end still reads");
                for (Runnable walk : new Runnable[] {() -> list.range(0, count), () -> list.scan(true, (b, at, n) -> false),
                        () -> list.scan(false, (b, at, n) -> false)}) {
                    IllegalStateException x = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, walk::run);
                    assertTrue(x.getMessage().contains("damaged at offset") && x.getMessage().contains("repair"), x.getMessage());
                }
            }
        }
    }

    @Test
    void aListPoppedEmptyIsGone() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir); Jedis j = new Jedis("127.0.0.1", s.port())) {
            j.rpush("q", "a", "b");
            assertEquals(List.of("a", "b"), j.lpop("q", 5));
            assertFalse(j.exists("q"));
            assertNull(j.lpop("q"));
            j.rpush("q", "a");
            assertEquals("a", j.rpop("q"));
            assertFalse(j.exists("q"));
        }
    }

    /**
     * Picks a random change of list "l", applies it to {@code model}, and returns it as a client
     * sends it. Elements of 0-79 bytes: a few dozen fill the packed form, so lists cross it often.
     */
    private static Consumer<Jedis> change(SplittableRandom random, List<String> model) {
        return change(random, model, 20);
    }

    /** As {@link #change(SplittableRandom, List)}, growing the list to about {@code grows} elements before it shrinks. */
    private static Consumer<Jedis> change(SplittableRandom random, List<String> model, int grows) {
        // now and then one too big to pack with others (packed alone, a big list with the next
        // push), or one about the size that makes a big list's node of its own
        int size = switch (random.nextInt(20)) {
            case 0 -> ListLayout.PACKED_BYTES + random.nextInt(2000);
            case 1 -> ListLayout.OWN_NODE_BYTES - 20 + random.nextInt(40);
            default -> random.nextInt(80);
        };
        String v = "e".repeat(size) + random.nextInt(1000);
        int n = model.size();
        // pushes while short, else changes and trims, one trim in three to empty: lists cross the
        // limit up and (emptied, then refilled) down again
        int kind = n > grows ? 3 + random.nextInt(8) : random.nextInt(9);
        switch (kind) {
            case 0, 1 -> {
                model.addLast(v);
                return j -> j.rpush("l", v);
            }
            case 2 -> {
                String w = v + "w";
                model.addFirst(v);
                model.addFirst(w);
                return j -> j.lpush("l", v, w);
            }
            case 3 -> {
                if (n > 0) {
                    model.removeFirst();
                }
                return j -> j.lpop("l");
            }
            case 4 -> {
                int k = Math.min(n, 2);
                for (int i = 0; i < k; i++) {
                    model.removeLast();
                }
                return j -> j.rpop("l", 2);
            }
            case 5 -> {
                if (n == 0) {
                    return j -> j.llen("l");
                }
                int i = random.nextInt(n);
                model.set(i, v);
                return j -> j.lset("l", i, v);
            }
            case 6 -> {
                if (n == 0) {
                    return j -> j.llen("l");
                }
                String pivot = model.get(random.nextInt(n));
                model.add(model.indexOf(pivot), v);
                return j -> j.linsert("l", ListPosition.BEFORE, pivot, v);
            }
            case 7 -> {
                if (n == 0) {
                    return j -> j.llen("l");
                }
                String gone = model.get(random.nextInt(n));
                model.remove(gone);
                return j -> j.lrem("l", 1, gone);
            }
            case 8 -> {
                if (n > 0) {
                    model.addLast(model.removeFirst());
                }
                return j -> j.lmove("l", "l", ListDirection.LEFT, ListDirection.RIGHT);
            }
            default -> {
                if (random.nextInt(3) == 0) {
                    model.clear();
                    return j -> j.ltrim("l", 1, 0);
                }
                int from = random.nextInt(Math.max(1, n / 4));
                int to = n - 1 - random.nextInt(Math.max(1, n / 4));
                List<String> kept = new ArrayList<>(model.subList(from, to + 1));
                model.clear();
                model.addAll(kept);
                return j -> j.ltrim("l", from, to);
            }
        }
    }
}
