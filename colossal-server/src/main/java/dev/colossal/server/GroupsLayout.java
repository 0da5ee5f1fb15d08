package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * Layout of a stream's consumer groups in its auxiliary entries ({@link StreamLayout}: element-map
 * positions {@code AUX_BASE + slot}, {@code slot} in {@code [0, aux count)}). One entry holds a
 * directory of the groups; each group has an entry of its own, and its pending entries list (PEL)
 * is cut in chunks of entries of their own ({@link PendingList}). The header's {@code groups state}
 * is the directory's slot plus one (0: no groups). A change to one group writes the chunks it
 * changed, that group's entry and a new directory into free slots, then the header that names the
 * new directory (the commit point), then frees what they replaced: its cost grows with the chunks
 * changed, the group's chunk count and the number of groups, not with the PEL nor the stream. A
 * crash before the header leaves the old directory in force; what it wrote is garbage a later
 * change overwrites or the collector frees.
 *
 * <pre>
 *  Directory entry (big-endian)
 *  +---------+------------+-----------+-------------+------------+----
 *  | -3 (4)  | groups (4) | slot (8)  | name len (4)| name bytes | ...   one slot, name per group, names in order
 *  +---------+------------+-----------+-------------+------------+----
 *
 *  Group entry (big-endian)
 *  0        8        16          24            28              32           36
 *  +--------+--------+-----------+-------------+---------------+------------+----------+-------+
 *  | lastMs | lastSeq| entries   | next number | consumers (4) | chunks (4) | consumer | chunk |
 *  |        |        | read      | (4)         |               |            | ...      | ...   |
 *  +--------+--------+-----------+-------------+---------------+------------+----------+-------+
 *  consumer: | number (4) | name len (4) | name bytes | seen time (8) | pending (8) |    names in order
 *  chunk:    | low ms (8) | low seq (8) | entries (4) | slot (8) |              IDs in order
 *
 *  Chunk entry: its pending entries, IDs in order
 *  +--------+---------+---------------------+-------------------+--------------------+---
 *  | ms (8) | seq (8) | consumer number (4) | delivery time (8) | delivery count (8) | ...
 *  +--------+---------+---------------------+-------------------+--------------------+---
 *  entries read = -1 when unknown; times are milliseconds since the epoch; a consumer's number is
 *  its group's next number when it was made, never reused; pending = its entries in the PEL, so that
 *  XPENDING's summary and XINFO CONSUMERS read no chunk
 * </pre>
 *
 * <p>Older layouts are read, and the first change to a stream's groups rewrites them all in this
 * one: a directory that starts with -2 is of the second (until 2026-11-27), whose consumers had no
 * pending count (counted from the chunks when read); one that starts with neither is of the first
 * (until 2026-11-26), whose group entries held consumers by index and the whole PEL
 * ({@link #legacyGroup}).
 */
final class GroupsLayout {

    static final int PENDING_BYTES = 8 + 8 + 4 + 8 + 8;
    /** The layouts, oldest first: whole PELs in group entries; chunks; chunks and consumers' pending counts. */
    static final int FIRST = 1;
    static final int CHUNKED = 2;
    static final int COUNTED = 3;
    /** What a directory of each layout from {@link #CHUNKED} on starts with, by layout. */
    private static final int[] MARKS = {0, 0, -2, -3};
    private static final int GROUP_FIXED = 8 + 8 + 8 + 4 + 4 + 4;
    private static final int CHUNK_REF_BYTES = 8 + 8 + 4 + 8;
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private GroupsLayout() {}

    /** A directory line: a group's name and the slot of its entry. */
    record Slot(byte[] name, long slot) {}

    /**
     * A directory as read.
     *
     * @param slots  its lines, names in order
     * @param layout the layout of it and its groups: {@link #FIRST}, {@link #CHUNKED} or {@link #COUNTED}
     */
    record Directory(List<Slot> slots, int layout) {}

    static byte[] directory(List<Slot> slots, int layout) {
        int n = layout == FIRST ? 4 : 8;
        for (Slot s : slots) {
            n += 8 + 4 + s.name().length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        if (layout != FIRST) {
            b.putInt(MARKS[layout]);
        }
        b.putInt(slots.size());
        for (Slot s : slots) {
            b.putLong(s.slot()).putInt(s.name().length).put(s.name());
        }
        return b.array();
    }

    static Directory directory(byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        int n = b.getInt();
        int layout = n == MARKS[COUNTED] ? COUNTED : n == MARKS[CHUNKED] ? CHUNKED : FIRST;
        if (layout != FIRST) {
            n = b.getInt();
        }
        List<Slot> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long slot = b.getLong();
            byte[] name = new byte[b.getInt()];
            b.get(name);
            out.add(new Slot(name, slot));
        }
        return new Directory(out, layout);
    }

    /** @return group {@code g}'s entry; every chunk of its PEL has its slot */
    static byte[] group(ConsumerGroup g) {
        List<PendingList.Chunk> chunks = g.pel.chunks();
        int n = GROUP_FIXED + chunks.size() * CHUNK_REF_BYTES;
        for (ConsumerGroup.Consumer c : g.consumers.values()) {
            n += 4 + 4 + c.name.length + 8 + 8;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        b.putLong(g.lastId.ms()).putLong(g.lastId.seq()).putLong(g.entriesRead);
        b.putInt(g.nextNumber).putInt(g.consumers.size()).putInt(chunks.size());
        for (ConsumerGroup.Consumer c : g.consumers.values()) {
            b.putInt(c.number).putInt(c.name.length).put(c.name).putLong(c.seenTime).putLong(c.pending);
        }
        for (PendingList.Chunk c : chunks) {
            b.putLong(c.low.ms()).putLong(c.low.seq()).putInt(c.count).putLong(c.slot);
        }
        return b.array();
    }

    /**
     * @return group {@code name} from its entry {@code v} of {@code layout} ({@link #CHUNKED} or
     *     {@link #COUNTED}), its PEL's chunks read through {@code aux} when a command needs them
     *     (all of them now if the layout has no pending counts)
     */
    static ConsumerGroup group(byte[] name, byte[] v, int layout, LongFunction<byte[]> aux) {
        ByteBuffer b = ByteBuffer.wrap(v);
        ConsumerGroup g = new ConsumerGroup(name, new StreamId(b.getLong(), b.getLong()), b.getLong());
        int next = b.getInt();
        int consumers = b.getInt();
        int chunks = b.getInt();
        for (int i = 0; i < consumers; i++) {
            int number = b.getInt();
            byte[] cn = new byte[b.getInt()];
            b.get(cn);
            ConsumerGroup.Consumer c = g.add(new ConsumerGroup.Consumer(number, cn, b.getLong()));
            c.pending = layout == COUNTED ? b.getLong() : 0;
        }
        g.nextNumber = Math.max(g.nextNumber, next);
        List<PendingList.Chunk> table = new ArrayList<>(chunks);
        for (int i = 0; i < chunks; i++) {
            table.add(new PendingList.Chunk(new StreamId(b.getLong(), b.getLong()), b.getInt(), b.getLong()));
        }
        Map<Integer, ConsumerGroup.Consumer> byNumber = g.byNumber();
        g.pel = new PendingList(table, aux, bytes -> chunk(bytes, byNumber), byNumber);
        if (layout != COUNTED) {
            for (Map.Entry<StreamId, ConsumerGroup.Pending> e : g.pel.entries()) {
                e.getValue().consumer.pending++;
            }
        }
        return g;
    }

    /** @return the slots of the chunks a group entry {@code v} of {@code layout} names */
    static List<Long> chunkSlots(byte[] v, int layout) {
        ByteBuffer b = ByteBuffer.wrap(v);
        b.position(8 + 8 + 8 + 4);
        int consumers = b.getInt();
        int chunks = b.getInt();
        for (int i = 0; i < consumers; i++) {
            b.getInt();
            int nameLength = b.getInt();
            b.position(b.position() + nameLength + (layout == COUNTED ? 16 : 8));
        }
        List<Long> out = new ArrayList<>(chunks);
        for (int i = 0; i < chunks; i++) {
            b.position(b.position() + 8 + 8 + 4);
            out.add(b.getLong());
        }
        return out;
    }

    /**
     * @return entry {@code index} of chunk bytes {@code v} but its ID, its consumer found in {@code byNumber}
     * @throws IllegalStateException if the group has no such consumer (a damaged map)
     */
    static ConsumerGroup.Pending pending(byte[] v, int index, Map<Integer, ConsumerGroup.Consumer> byNumber) {
        int at = index * PENDING_BYTES + 16;
        return new ConsumerGroup.Pending(consumer(byNumber, number(v, at), v, index), StreamLayout.getLong(v, at + 4),
                StreamLayout.getLong(v, at + 12));
    }

    /** @return the consumer number at {@code at} of chunk bytes {@code v} */
    private static int number(byte[] v, int at) {
        return (int) INT_BE.get(v, at);
    }

    private static ConsumerGroup.Consumer consumer(Map<Integer, ConsumerGroup.Consumer> byNumber, int number, byte[] v, int index) {
        ConsumerGroup.Consumer c = byNumber.get(number);
        if (c == null) {
            throw new IllegalStateException("pending entry " + pendingId(v, index) + " names consumer number " + number
                    + ", which its group does not have: the element map is damaged");
        }
        return c;
    }

    /** @return the ID of entry {@code index} of chunk bytes {@code v} */
    static StreamId pendingId(byte[] v, int index) {
        int at = index * PENDING_BYTES;
        return new StreamId(StreamLayout.getLong(v, at), StreamLayout.getLong(v, at + 8));
    }

    static byte[] chunk(TreeMap<StreamId, ConsumerGroup.Pending> entries) {
        ByteBuffer b = ByteBuffer.allocate(entries.size() * PENDING_BYTES);
        for (Map.Entry<StreamId, ConsumerGroup.Pending> e : entries.entrySet()) {
            ConsumerGroup.Pending p = e.getValue();
            b.putLong(e.getKey().ms()).putLong(e.getKey().seq()).putInt(p.consumer.number)
                    .putLong(p.deliveryTime).putLong(p.deliveryCount);
        }
        return b.array();
    }

    /**
     * @return the entries of chunk bytes {@code v}, its consumers found by number in {@code byNumber};
     *     built in one linear pass ({@link SortedRun}): a chunk is stored in ID order, and a command
     *     decodes one on each read and acknowledgement
     */
    static TreeMap<StreamId, ConsumerGroup.Pending> chunk(byte[] v, Map<Integer, ConsumerGroup.Consumer> byNumber) {
        if (v.length % PENDING_BYTES != 0) {
            throw new IllegalStateException("pending entries chunk of length=" + v.length + " is not a whole number of "
                    + PENDING_BYTES + "-byte entries: the element map is damaged");
        }
        int n = v.length / PENDING_BYTES;
        StreamId[] ids = new StreamId[n];
        ConsumerGroup.Pending[] pending = new ConsumerGroup.Pending[n];
        ConsumerGroup.Consumer c = null;
        for (int i = 0, at = 0; i < n; i++, at += PENDING_BYTES) {
            StreamId id = new StreamId(StreamLayout.getLong(v, at), StreamLayout.getLong(v, at + 8));
            int number = number(v, at + 16);
            if (c == null || c.number != number) {
                // runs of one consumer's entries are the common case: one map lookup per run
                c = consumer(byNumber, number, v, i);
            }
            if (i > 0 && ids[i - 1].compareTo(id) >= 0) {
                throw new IllegalStateException("pending entries chunk of length=" + v.length + " has " + id + " after "
                        + ids[i - 1] + ": the element map is damaged");
            }
            ids[i] = id;
            pending[i] = new ConsumerGroup.Pending(c, StreamLayout.getLong(v, at + 20), StreamLayout.getLong(v, at + 28));
        }
        return new TreeMap<>(new SortedRun<>(ids, pending));
    }

    /** @return group {@code name} from an entry of the first layout: consumers by index, the whole PEL in it */
    static ConsumerGroup legacyGroup(byte[] name, byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        ConsumerGroup g = new ConsumerGroup(name, new StreamId(b.getLong(), b.getLong()), b.getLong());
        int consumers = b.getInt();
        int pending = b.getInt();
        ConsumerGroup.Consumer[] byIndex = new ConsumerGroup.Consumer[consumers];
        for (int i = 0; i < consumers; i++) {
            byte[] cn = new byte[b.getInt()];
            b.get(cn);
            byIndex[i] = g.add(new ConsumerGroup.Consumer(i, cn, b.getLong()));
        }
        for (int i = 0; i < pending; i++) {
            StreamId id = new StreamId(b.getLong(), b.getLong());
            g.pel.put(id, new ConsumerGroup.Pending(byIndex[b.getInt()], b.getLong(), b.getLong()));
        }
        return g;
    }
}
