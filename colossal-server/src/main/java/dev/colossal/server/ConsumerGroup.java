package dev.colossal.server;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * One consumer group of a stream as a command changes it under the stream key's lock: its last
 * delivered ID, its entries-read counter, its consumers and its pending entries list (PEL). A
 * consumer's own PEL is the group PEL's entries that name it, so the two never disagree. Names
 * are in Redis's order (bytes compared unsigned, a prefix first), as its radix trees keep them.
 */
final class ConsumerGroup {

    /** Redis's entries-read of a group whose position in the stream is not known. */
    static final long ENTRIES_READ_UNKNOWN = -1;

    /**
     * A consumer, its number in the group (what its pending entries store), when it was last seen
     * (ms since the epoch) and how many entries of the PEL name it: kept as the PEL changes
     * ({@link PendingList}, {@link Pending#moveTo}), so that no summary walks the PEL.
     */
    static final class Consumer {
        final int number;
        final byte[] name;
        long seenTime;
        long pending;

        Consumer(int number, byte[] name, long seenTime) {
            this.number = number;
            this.name = name;
            this.seenTime = seenTime;
        }
    }

    /**
     * A delivered entry not yet acknowledged: who has it (null only until a claim gives it to
     * someone), since when, and how often it was delivered.
     */
    static final class Pending {
        Consumer consumer;
        long deliveryTime;
        long deliveryCount;

        Pending(Consumer consumer, long deliveryTime, long deliveryCount) {
            this.consumer = consumer;
            this.deliveryTime = deliveryTime;
            this.deliveryCount = deliveryCount;
        }

        /** Gives this entry, which is in its group's PEL, to {@code to}, moving it between their counts. */
        void moveTo(Consumer to) {
            counted(-1);
            consumer = to;
            counted(1);
        }

        /** Adds {@code delta} to its consumer's count: the entry joined ({@code 1}) or left ({@code -1}) the PEL. */
        void counted(int delta) {
            if (consumer != null) {
                consumer.pending += delta;
            }
        }
    }

    final byte[] name;
    StreamId lastId;
    long entriesRead;
    final TreeMap<byte[], Consumer> consumers = new TreeMap<>(Arrays::compareUnsigned);
    /** The number the next new consumer gets: numbers are not reused, so a stored pending entry never names the wrong one. */
    int nextNumber;
    PendingList pel = new PendingList();

    ConsumerGroup(byte[] name, StreamId lastId, long entriesRead) {
        this.name = name;
        this.lastId = lastId;
        this.entriesRead = entriesRead;
    }

    /** @return the consumer named {@code name}, made (seen {@code now}) if it is new; {@code created[0]} says which */
    Consumer consumer(byte[] consumerName, long now, boolean[] created) {
        Consumer c = consumers.get(consumerName);
        if (c == null) {
            c = add(new Consumer(nextNumber, consumerName, now));
            created[0] = true;
        }
        return c;
    }

    /** Adds {@code c} (a new name) as it was stored or dumped. @return it */
    Consumer add(Consumer c) {
        consumers.put(c.name, c);
        nextNumber = Math.max(nextNumber, c.number + 1);
        return c;
    }

    /** @return the consumers by number, what a stored pending entry names */
    Map<Integer, Consumer> byNumber() {
        Map<Integer, Consumer> out = new HashMap<>();
        for (Consumer c : consumers.values()) {
            out.put(c.number, c);
        }
        return out;
    }

    /** Deletes consumer {@code c} and its pending entries. @return how many it had */
    long remove(Consumer c) {
        long n = c.pending;
        for (Iterator<Map.Entry<StreamId, Pending>> it = pel.from(StreamId.MIN); c.pending > 0 && it.hasNext(); ) {
            if (it.next().getValue().consumer == c) {
                it.remove();
            }
        }
        consumers.remove(c.name);
        return n;
    }
}
