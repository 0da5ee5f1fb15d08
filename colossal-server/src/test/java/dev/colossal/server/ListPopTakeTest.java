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
 * A pop reads each element as it removes it, one lookup of the element map ({@link ListElements#take}),
 * after the header's commit: it answers every size byte for byte, from both ends, straight into the
 * reply or as arrays, and leaves no element or root behind once the list is empty.
 */
class ListPopTakeTest {

    @TempDir
    Path dir;

    /** Sizes whose bulk headers differ from the last one's and outgrow the reply's and the taker's buffers. */
    private static final int[] SIZES = {0, 1, 9, 10, 99, 100, 300, 70_000, 3, 1 << 20, 5, 0, 12_345, 65};

    @Test
    void popsOfEverySizeFromBothEndsAnswerTheElementsAndLeaveNothingBehind() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            List<byte[]> values = ElementReadsTest.pushed(store, key, SIZES);
            ListElements elements = store.elements(false);
            assertEquals(values.size() + 1, elements.size(), "the elements and the root");
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
                assertEquals(left.size() + (left.isEmpty() ? 0 : 1), elements.size(), "after pop " + i);
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
            List<byte[]> values = ElementReadsTest.pushed(store, key, SIZES);
            List<byte[]> tail = StoredList.read(store, key).pop(false, 4);
            List<byte[]> head = StoredList.read(store, key).pop(true, 3);
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(values.get(values.size() - 1 - i), tail.get(i));
            }
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(values.get(i), head.get(i));
            }
            assertEquals(values.size() - 7, StoredList.read(store, key).size());
            assertEquals(values.size() - 7 + 1, store.elements(false).size());
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

    @Test
    void aMissingElementFailsThePopAsDamageAndTheNextPopGoesOn() throws Exception {
        try (Databases dbs = Databases.open(dir, 1, 0, System::currentTimeMillis)) {
            KeyValueStore store = dbs.opened(0);
            byte[] key = "l".getBytes();
            byte[] c = ElementReadsTest.tooBigToPack();
            StoredList.readOrEmpty(store, key).push(false, new byte[][] {"a".getBytes(), "b".getBytes(), c}, 0, 3);
            StoredList list = StoredList.read(store, key);
            store.elements(false).remove(list.id(), list.first());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Reply.capture(2, r -> list.pop(true, r)));
            assertTrue(e.getMessage().contains("is missing"), e.getMessage());
            // the header was the commit point: the hole is behind it, and the list reads whole
            assertArrayEquals("b".getBytes(), StoredList.read(store, key).pop(true));
            assertArrayEquals(c, StoredList.read(store, key).pop(true));
            assertNull(StoredList.read(store, key));
        }
    }
}
