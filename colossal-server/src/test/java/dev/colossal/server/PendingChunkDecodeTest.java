package dev.colossal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A pending-list chunk decoded in one pass ({@link GroupsLayout}, {@link SortedRun}): the same
 * entries, consumers and counts as were encoded, in a tree that takes later changes as any other;
 * bytes out of ID order or naming a consumer the group lacks are told as a damaged map.
 */
class PendingChunkDecodeTest {

    private final ConsumerGroup group = new ConsumerGroup("g".getBytes(US_ASCII), StreamId.MIN, 0);
    private final List<ConsumerGroup.Consumer> consumers = new ArrayList<>();

    PendingChunkDecodeTest() {
        for (int i = 0; i < 3; i++) {
            consumers.add(group.add(new ConsumerGroup.Consumer(i, ("c" + i).getBytes(US_ASCII), 0)));
        }
    }

    private TreeMap<StreamId, ConsumerGroup.Pending> randomEntries(int n) {
        SplittableRandom rnd = new SplittableRandom(7);
        TreeMap<StreamId, ConsumerGroup.Pending> es = new TreeMap<>();
        long ms = 1_700_000_000_000L;
        while (es.size() < n) {
            ms += rnd.nextInt(3);
            // runs of one consumer and switches between them, as several readers leave them
            ConsumerGroup.Consumer c = consumers.get(rnd.nextInt(10) < 7 && !es.isEmpty()
                    ? es.lastEntry().getValue().consumer.number : rnd.nextInt(consumers.size()));
            es.put(new StreamId(ms, rnd.nextInt(4)), new ConsumerGroup.Pending(c, ms + rnd.nextInt(1000), 1 + rnd.nextInt(5)));
        }
        return es;
    }

    @Test
    void aChunkDecodesToItsEntriesWithTheirConsumersAndTakesChangesAfter() {
        TreeMap<StreamId, ConsumerGroup.Pending> want = randomEntries(PendingList.MAX_CHUNK);
        TreeMap<StreamId, ConsumerGroup.Pending> got = GroupsLayout.chunk(GroupsLayout.chunk(want), group.byNumber());
        assertEquals(List.copyOf(want.keySet()), List.copyOf(got.keySet()));
        for (Map.Entry<StreamId, ConsumerGroup.Pending> e : want.entrySet()) {
            ConsumerGroup.Pending p = got.get(e.getKey());
            assertSame(consumers.get(e.getValue().consumer.number), p.consumer, "entry " + e.getKey());
            assertEquals(e.getValue().deliveryTime, p.deliveryTime);
            assertEquals(e.getValue().deliveryCount, p.deliveryCount);
        }
        // a tree built from a sorted run is a whole tree: lookups, inserts and removals anywhere in it
        StreamId middle = List.copyOf(want.keySet()).get(want.size() / 2);
        StreamId added = new StreamId(middle.ms(), middle.seq() + 100);
        got.put(added, new ConsumerGroup.Pending(consumers.getFirst(), 1, 1));
        got.remove(want.firstKey());
        assertEquals(want.size(), got.size());
        assertTrue(got.containsKey(added));
        assertEquals(want.higherKey(want.firstKey()), got.firstKey());
        assertEquals(want.tailMap(middle, true).size() + 1, got.tailMap(middle, true).size());
    }

    @Test
    void anEmptyChunkDecodesEmpty() {
        assertTrue(GroupsLayout.chunk(new byte[0], group.byNumber()).isEmpty());
    }

    @Test
    void entriesOutOfOrderOrOfAnUnknownConsumerAreADamagedMap() {
        byte[] bytes = GroupsLayout.chunk(randomEntries(5));
        int n = GroupsLayout.PENDING_BYTES;
        byte[] swapped = bytes.clone();
        System.arraycopy(bytes, n, swapped, 2 * n, n);
        System.arraycopy(bytes, 2 * n, swapped, n, n);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> GroupsLayout.chunk(swapped, group.byNumber()));
        assertTrue(e.getMessage().contains("the element map is damaged"), e.getMessage());
        byte[] stranger = bytes.clone();
        StreamLayout.putLong(stranger, 3 * n + 16, 99L << 32); // consumer number 99, the int after the ID
        e = assertThrows(IllegalStateException.class, () -> GroupsLayout.chunk(stranger, group.byNumber()));
        assertTrue(e.getMessage().contains("consumer number 99"), e.getMessage());
    }
}
