package dev.colossal.server;

import java.util.Arrays;
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

    /** A consumer and when it was last seen (milliseconds since the epoch). */
    static final class Consumer {
        final byte[] name;
        long seenTime;

        Consumer(byte[] name, long seenTime) {
            this.name = name;
            this.seenTime = seenTime;
        }
    }

    /** A delivered entry not yet acknowledged: who has it, since when, and how often it was delivered. */
    static final class Pending {
        Consumer consumer;
        long deliveryTime;
        long deliveryCount;

        Pending(Consumer consumer, long deliveryTime, long deliveryCount) {
            this.consumer = consumer;
            this.deliveryTime = deliveryTime;
            this.deliveryCount = deliveryCount;
        }
    }

    final byte[] name;
    StreamId lastId;
    long entriesRead;
    final TreeMap<byte[], Consumer> consumers = new TreeMap<>(Arrays::compareUnsigned);
    final TreeMap<StreamId, Pending> pel = new TreeMap<>();

    ConsumerGroup(byte[] name, StreamId lastId, long entriesRead) {
        this.name = name;
        this.lastId = lastId;
        this.entriesRead = entriesRead;
    }

    /** @return the consumer named {@code name}, made (seen {@code now}) if it is new; {@code created[0]} says which */
    Consumer consumer(byte[] consumerName, long now, boolean[] created) {
        Consumer c = consumers.get(consumerName);
        if (c == null) {
            c = new Consumer(consumerName, now);
            consumers.put(consumerName, c);
            created[0] = true;
        }
        return c;
    }

    /** @return each consumer's pending entries, in one pass over the PEL (consumers with none are absent) */
    java.util.Map<Consumer, Long> pendingCounts() {
        java.util.Map<Consumer, Long> n = new java.util.IdentityHashMap<>();
        for (Pending p : pel.values()) {
            n.merge(p.consumer, 1L, Long::sum);
        }
        return n;
    }

    /** @return the entries pending for {@code c} */
    long pendingOf(Consumer c) {
        long n = 0;
        for (Pending p : pel.values()) {
            n += p.consumer == c ? 1 : 0;
        }
        return n;
    }

    /** Deletes consumer {@code c} and its pending entries. @return how many it had */
    long remove(Consumer c) {
        long n = pendingOf(c);
        pel.values().removeIf(p -> p.consumer == c);
        consumers.remove(c.name);
        return n;
    }
}
