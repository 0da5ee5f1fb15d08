package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Layout of a stream's consumer groups in its auxiliary entries ({@link StreamLayout}: element-map
 * positions {@code AUX_BASE + slot}, {@code slot} in {@code [0, aux count)}). One entry holds a
 * directory of the groups; each group has an entry of its own. The header's {@code groups state}
 * is the directory's slot plus one (0: no groups). A change to one group writes that group's entry
 * and a new directory into free slots, then the header that names the new directory (the commit
 * point), then frees the old two: its cost grows with that group's pending entries and the number
 * of groups, never with the stream or the other groups' PELs. A crash before the header leaves the
 * old directory in force; what it wrote is garbage a later change overwrites or the collector frees.
 *
 * <pre>
 *  Directory entry (big-endian)
 *  +------------+-----------+-------------+------------+----
 *  | groups (4) | slot (8)  | name len (4)| name bytes | ...   one slot, name per group, names in order
 *  +------------+-----------+-------------+------------+----
 *
 *  Group entry (big-endian)
 *  0        8        16          24              28             32
 *  +--------+--------+-----------+---------------+--------------+----------+---------+
 *  | lastMs | lastSeq| entries   | consumers (4) | pending (4)  | consumer | pending |
 *  |        |        | read      |               |              | ...      | ...     |
 *  +--------+--------+-----------+---------------+--------------+----------+---------+
 *  consumer: | name len (4) | name bytes | seen time (8) |                  names in order
 *  pending:  | ms (8) | seq (8) | consumer index (4) | delivery time (8) | delivery count (8) |   IDs in order
 *  entries read = -1 when unknown; times are milliseconds since the epoch
 * </pre>
 */
final class GroupsLayout {

    static final int PENDING_BYTES = 8 + 8 + 4 + 8 + 8;
    private static final int GROUP_FIXED = 8 + 8 + 8 + 4 + 4;

    private GroupsLayout() {}

    /** A directory line: a group's name and the slot of its entry. */
    record Slot(byte[] name, long slot) {}

    static byte[] directory(List<Slot> slots) {
        int n = 4;
        for (Slot s : slots) {
            n += 8 + 4 + s.name().length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        b.putInt(slots.size());
        for (Slot s : slots) {
            b.putLong(s.slot()).putInt(s.name().length).put(s.name());
        }
        return b.array();
    }

    static List<Slot> directory(byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        int n = b.getInt();
        List<Slot> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long slot = b.getLong();
            byte[] name = new byte[b.getInt()];
            b.get(name);
            out.add(new Slot(name, slot));
        }
        return out;
    }

    static byte[] group(ConsumerGroup g) {
        int n = GROUP_FIXED + g.pel.size() * PENDING_BYTES;
        for (ConsumerGroup.Consumer c : g.consumers.values()) {
            n += 4 + c.name.length + 8;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        b.putLong(g.lastId.ms()).putLong(g.lastId.seq()).putLong(g.entriesRead);
        b.putInt(g.consumers.size()).putInt(g.pel.size());
        java.util.IdentityHashMap<ConsumerGroup.Consumer, Integer> index = new java.util.IdentityHashMap<>();
        for (ConsumerGroup.Consumer c : g.consumers.values()) {
            index.put(c, index.size());
            b.putInt(c.name.length).put(c.name).putLong(c.seenTime);
        }
        for (var e : g.pel.entrySet()) {
            ConsumerGroup.Pending p = e.getValue();
            b.putLong(e.getKey().ms()).putLong(e.getKey().seq()).putInt(index.get(p.consumer))
                    .putLong(p.deliveryTime).putLong(p.deliveryCount);
        }
        return b.array();
    }

    static ConsumerGroup group(byte[] name, byte[] v) {
        ByteBuffer b = ByteBuffer.wrap(v);
        ConsumerGroup g = new ConsumerGroup(name, new StreamId(b.getLong(), b.getLong()), b.getLong());
        int consumers = b.getInt();
        int pending = b.getInt();
        ConsumerGroup.Consumer[] byIndex = new ConsumerGroup.Consumer[consumers];
        for (int i = 0; i < consumers; i++) {
            byte[] cn = new byte[b.getInt()];
            b.get(cn);
            byIndex[i] = new ConsumerGroup.Consumer(cn, b.getLong());
            g.consumers.put(cn, byIndex[i]);
        }
        for (int i = 0; i < pending; i++) {
            StreamId id = new StreamId(b.getLong(), b.getLong());
            g.pel.put(id, new ConsumerGroup.Pending(byIndex[b.getInt()], b.getLong(), b.getLong()));
        }
        return g;
    }
}
