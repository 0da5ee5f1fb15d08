package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pops of a big list ({@link ListNodes}): they answer elements of every size byte for byte, from
 * both ends, into the reply or as arrays, through its runs and its nodes, and leave no node or
 * root behind once the list is empty. A list stored one element per entry, as servers before
 * nodes stored it, reads as it is and becomes a big list at its first change.
 */
class BigListTest {

    @TempDir
    Path dir;

    /** Sizes whose bulk headers differ from the last one's and outgrow the reply's and the taker's buffers. */
    private static final int[] SIZES = {0, 1, 9, 10, 99, 100, 300, 70_000, 3, 1 << 20, 5, 0, 12_345, 65};

    @Test
    void popsOfEverySizeFromBothEndsAnswerTheElementsAndLeaveNothingBehind() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            List<byte[]> values = pushed(store, key, SIZES);
            ListElements elements = store.elements(false);
            assertTrue(StoredList.read(store, key).big());
            List<byte[]> left = new ArrayList<>(values);
            for (int i = 0; !left.isEmpty(); i++) {
                boolean head = i % 2 == 0;
                byte[] want = head ? left.removeFirst() : left.removeLast();
                StoredList list = StoredList.read(store, key);
                if (i % 3 == 0) {
                    assertArrayEquals(Reply.capture(2, r -> r.bulk(want)), Reply.capture(2, r -> list.pop(head, r)), "pop " + i);
                } else if (i % 3 == 1) {
                    assertArrayEquals(want, list.pop(head), "pop " + i);
                } else {
                    assertArrayEquals(want, list.pop(head, 1).getFirst(), "pop " + i);
                }
                assertEquals(left.size(), left.isEmpty() ? 0 : StoredList.read(store, key).size(), "after pop " + i);
                assertEquals(left.stream().map(String::new).toList(), left.isEmpty() ? List.of()
                        : StoredList.read(store, key).range(0, left.size()).stream().map(String::new).toList(), "after pop " + i);
            }
            assertNull(StoredList.read(store, key));
            assertEquals(0, elements.size());
        }
    }

    @Test
    void aPopOfManyTakesThemInTheOrderPopped() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            List<byte[]> values = pushed(store, key, SIZES);
            List<byte[]> tail = StoredList.read(store, key).pop(false, 4);
            List<byte[]> head = StoredList.read(store, key).pop(true, 3);
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(values.get(values.size() - 1 - i), tail.get(i));
            }
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(values.get(i), head.get(i));
            }
            assertEquals(values.size() - 7, StoredList.read(store, key).size());
            assertEquals(values.subList(3, values.size() - 4).stream().map(String::new).toList(),
                    StoredList.read(store, key).range(0, values.size() - 7).stream().map(String::new).toList());
        }
    }

    /**
     * A list emptied by its own command frees its elements and root itself: its header's removal
     * queues nothing for the collector, whose look would find them gone and take that for garbage
     * to walk the whole element map for.
     */
    @Test
    void aListEmptiedByPopsTrimsOrRemovalsLeavesTheCollectorNothingToWalkFor() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            MapStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            byte[][] abc = {"a".getBytes(), "b".getBytes(), ElementReadsTest.tooBigToPack()};
            for (int way = 0; way < 4; way++) {
                StoredList.readOrEmpty(store, key).push(false, abc, 0, 3);
                StoredList list = StoredList.read(store, key);
                switch (way) {
                    case 0 -> list.pop(true, 3);
                    case 1 -> {
                        list.pop(false);
                        StoredList.read(store, key).pop(true, 1);
                        Reply.capture(2, r -> StoredList.read(store, key).pop(true, r));
                    }
                    case 2 -> list.trim(2, 1);
                    default -> list.replaceAll(List.of());
                }
                assertNull(StoredList.read(store, key), "way " + way);
                assertEquals(0, store.elements(false).size(), "way " + way);
                store.freeRemoved();
                assertFalse(store.elementsDropped(), "way " + way + ": the collector was told of garbage to walk for");
            }
        }
    }

    /** A node the element map lost fails the pop that needs it as damage, and leaves the list as it was. */
    @Test
    void aMissingNodeFailsThePopAsDamageAndLosesNothingElse() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            byte[] c = ElementReadsTest.tooBigToPack();
            // "a" and "b" go to node 0 when c, too big for a run, becomes node 1
            StoredList.readOrEmpty(store, key).push(false, new byte[][] {"a".getBytes(), "b".getBytes(), c}, 0, 3);
            store.elements(false).remove(ElementReadsTest.idOf(store, key), 0);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Reply.capture(2, r -> StoredList.read(store, key).pop(true, r)));
            assertTrue(e.getMessage().contains("is missing") && e.getMessage().contains("repair"), e.getMessage());
            assertEquals(3, StoredList.read(store, key).size());
            assertArrayEquals(c, StoredList.read(store, key).pop(false));
        }
    }

    @Test
    void aListOfOneEntryPerElementReadsAsItIsAndBecomesBigAtItsFirstChange() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            ListElements elements = store.elements(true);
            List<String> model = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                model.add("v" + i);
            }
            byte[] key = "old".getBytes();
            ElementReadsTest.storeUnnoded(store, key, model.stream().map(String::getBytes).toList());
            StoredList old = StoredList.read(store, key);
            assertFalse(old.big() || old.packed());
            assertEquals(301, old.elementEntries());
            assertEquals(model, strings(old.range(0, 300)));
            assertArrayEquals(Reply.capture(2, r -> model.subList(10, 250).forEach(v -> r.bulk(v.getBytes()))),
                    Reply.capture(2, r -> old.reply(10, 250, r)));
            assertArrayEquals("v299".getBytes(), old.get(299));
            StoredList.read(store, key).set(5, "five".getBytes());
            model.set(5, "five");
            StoredList changed = StoredList.read(store, key);
            assertTrue(changed.big(), "its first change made it a big list");
            assertEquals(model, strings(changed.range(0, 300)));
            assertEquals(changed.elementEntries(), elements.size(), "its old entries are gone: only its nodes and root");
            assertEquals(List.of("v0", "v1"), strings(changed.pop(true, 2)));
            assertEquals(298, StoredList.read(store, key).size());
            // emptied by LTRIM without becoming a big list first: its entries go with it
            byte[] other = "other".getBytes();
            ElementReadsTest.storeUnnoded(store, other, model.stream().map(String::getBytes).toList());
            StoredList.read(store, other).trim(5, 2);
            assertNull(StoredList.read(store, other));
            assertEquals(StoredList.read(store, key).elementEntries(), elements.size(), "nothing of it left");
        }
    }

    /**
     * Past a few nodes, reaching the middle sums the nodes' counts (one entry per 256 nodes) and
     * reads one node; a lost count entry is damage, told as such, and the ends still work.
     */
    @Test
    void theMiddleOfALongListIsFoundByItsCountsAndALostCountEntryIsDamage() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "long".getBytes();
            byte[][] values = new byte[20_000][];
            for (int i = 0; i < values.length; i++) {
                values[i] = Integer.toString(i).getBytes();
            }
            StoredList.readOrEmpty(store, key).push(false, values, 0, values.length);
            StoredList list = StoredList.read(store, key);
            assertTrue(list.elementEntries() > 2 * ListLayout.COUNTS_NODES, "nodes over more than one count entry: " + list.elementEntries());
            for (int i : new int[] {0, 17, 4_999, 10_000, 10_001, 15_432, 19_999}) {
                assertEquals(Integer.toString(i), new String(list.get(i)), "element " + i);
            }
            list.set(12_345, "set".getBytes());
            assertEquals("set", new String(StoredList.read(store, key).get(12_345)));
            assertEquals("12346", new String(StoredList.read(store, key).get(12_346)));
            store.elements(false).remove(ElementReadsTest.idOf(store, key), ListLayout.countsOf(ListLayout.COUNTS_NODES));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> StoredList.read(store, key).get(9_000));
            assertTrue(e.getMessage().contains("count entry") && e.getMessage().contains("missing"), e.getMessage());
            assertEquals("19999", new String(StoredList.read(store, key).pop(false)));
        }
    }

    /**
     * A header keeps its head run's length so that a push does not walk the head's elements to
     * find the tail's; a header without it (one written before it was kept, or whose head run an
     * LSET made longer than its 16 bits hold) is read by walking, and a head count its bytes
     * cannot hold is damage.
     */
    @Test
    void aHeadRunWithoutItsLengthIsWalkedAndACountItsBytesCannotHoldIsDamage() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            List<byte[]> values = new ArrayList<>(pushed(store, key, new int[] {1, 2, 3, 700, 4, 5, 6, 7}));
            StoredList.read(store, key).push(true, new byte[][] {"h1".getBytes(), "h2".getBytes()}, 0, 2);
            values.addFirst("h1".getBytes());
            values.addFirst("h2".getBytes());
            byte[] header = header(store, key);
            assertEquals(2, ListLayout.getShort(header, ListLayout.HEAD_COUNT_OFFSET));
            assertEquals(2 * (ListLayout.PACKED_LENGTH_BYTES + 2), ListLayout.getShort(header, ListLayout.HEAD_BYTES_OFFSET));

            ListLayout.putShort(header, ListLayout.HEAD_BYTES_OFFSET, 0);
            store.set(key, header, 0, header.length, StoredValue.NO_EXPIRY, StoredValue.LIST);
            assertEquals(strings(values), strings(StoredList.read(store, key).range(0, values.size())), "walked");

            byte[] big = new byte[70_000];
            StoredList.read(store, key).set(1, big);
            values.set(1, big);
            assertEquals(0, ListLayout.getShort(header(store, key), ListLayout.HEAD_BYTES_OFFSET), "over 16 bits");
            assertEquals(strings(values), strings(StoredList.read(store, key).range(0, values.size())));
            assertArrayEquals(big, StoredList.read(store, key).get(1));

            byte[] damaged = header(store, key);
            ListLayout.putShort(damaged, ListLayout.HEAD_BYTES_OFFSET, 6);
            store.set(key, damaged, 0, damaged.length, StoredValue.NO_EXPIRY, StoredValue.LIST);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> StoredList.read(store, key));
            assertTrue(e.getMessage().contains("cannot hold 2 elements in 6 bytes") && e.getMessage().contains("repair"), e.getMessage());
        }
    }

    /** @return a copy of the header stored under {@code key} */
    private static byte[] header(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        return java.util.Arrays.copyOfRange(e.array(), e.offset(), e.offset() + e.length());
    }

    private static List<String> strings(List<byte[]> values) {
        return values.stream().map(String::new).toList();
    }

    /** @return elements of each size of {@code sizes}, each of its own letter, pushed to the tail of the list under {@code key} */
    private static List<byte[]> pushed(KeyValueStore store, byte[] key, int[] sizes) {
        List<byte[]> values = ElementReadsTest.lettered(sizes);
        StoredList.readOrEmpty(store, key).push(false, values.toArray(new byte[0][]), 0, values.size());
        return values;
    }
}
