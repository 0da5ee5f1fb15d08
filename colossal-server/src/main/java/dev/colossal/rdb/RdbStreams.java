package dev.colossal.rdb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads and writes streams in RDB (see {@link RdbValues#skipStream} for the record): types 15
 * (Redis 5 and 6), 19 (7.0, what DUMP writes) and 21 (7.2). The entries are in listpacks, one per
 * node of Redis's radix tree, keyed by the node's master ID:
 *
 * <pre>
 *  master key (a 16-byte string): master ID ms, seq, each a big-endian u64
 *  listpack entries:
 *    count | deleted | master field count n | master field 1 .. n | 0
 *    then per entry:
 *    flags | ms - master ms | seq - master seq | [not SAMEFIELDS: field count m] |
 *      SAMEFIELDS: value 1 .. n           else: field 1, value 1 .. field m, value m   | lp-count
 *    flags: 1 = deleted, 2 = SAMEFIELDS (the master's fields, in order); lp-count = the entry's
 *    other listpack entries (n + 3 with SAMEFIELDS, 2m + 4 without)
 * </pre>
 *
 * <p>Consumer groups follow the counters (drawn in {@link RdbValues#skipStream}): each with its
 * last ID, entries read (type 19 on), pending entries list and consumers, whose own pending
 * lists name entries of the group's.
 */
public final class RdbStreams {

    static final int STREAM = 15;
    static final int STREAM_2 = 19;
    static final int STREAM_3 = 21;
    private static final int DELETED = 1;
    private static final int SAME_FIELDS = 2;
    private static final int MASTER_KEY = 16;

    /**
     * A stream entry.
     *
     * @param ms     its ID's milliseconds (unsigned)
     * @param seq    its ID's sequence (unsigned)
     * @param fields field, value, field, value, ...
     */
    public record Entry(long ms, long seq, byte[][] fields) {}

    /**
     * A stream as a dump holds it; IDs are unsigned pairs of longs.
     *
     * @param entries      the live entries, in ID order
     * @param groups       how many consumer groups it has
     * @param consumerGroups its consumer groups
     */
    public record Stream(List<Entry> entries, long lastMs, long lastSeq, long firstMs, long firstSeq, long maxDeletedMs,
                         long maxDeletedSeq, long entriesAdded, long groups, List<Group> consumerGroups) {}

    /**
     * A delivered entry not yet acknowledged.
     *
     * @param deliveryTime  milliseconds since the epoch
     */
    public record Pending(long ms, long seq, long deliveryTime, long deliveryCount) {}

    /**
     * A consumer of a group.
     *
     * @param seenTime milliseconds since the epoch
     * @param pending  its entries of the group's pending list
     */
    public record Consumer(byte[] name, long seenTime, List<Pending> pending) {}

    /**
     * A consumer group.
     *
     * @param entriesRead -1 when unknown
     * @param pending     its pending entries list, in ID order
     */
    public record Group(byte[] name, long lastMs, long lastSeq, long entriesRead, List<Pending> pending,
                        List<Consumer> consumers) {}

    private RdbStreams() {}

    /** @return whether {@code type} is a stream encoding this reads */
    static boolean isStream(int type) {
        return type == STREAM || type == STREAM_2 || type == STREAM_3;
    }

    /** @return the stream of {@code type} at {@code in}; its consumer groups are passed over and counted */
    static Stream read(RdbInput in, int type) throws RdbFormatException {
        long at = in.offset();
        long nodes = in.length();
        List<Entry> entries = new ArrayList<>();
        for (long i = 0; i < nodes; i++) {
            byte[] key = in.string();
            if (key.length != MASTER_KEY) {
                throw RdbInput.damaged(at, "a stream node's master key of " + key.length + " bytes, not 16");
            }
            java.nio.ByteBuffer k = java.nio.ByteBuffer.wrap(key);
            node(Listpack.entries(in.string()), k.getLong(), k.getLong(), entries, at);
        }
        long length = in.length();
        long lastMs = in.unsignedLength();
        long lastSeq = in.unsignedLength();
        long firstMs = entries.isEmpty() ? 0 : entries.getFirst().ms();
        long firstSeq = entries.isEmpty() ? 0 : entries.getFirst().seq();
        long maxDeletedMs = 0;
        long maxDeletedSeq = 0;
        long added = length;
        if (type >= STREAM_2) {
            firstMs = in.unsignedLength();
            firstSeq = in.unsignedLength();
            maxDeletedMs = in.unsignedLength();
            maxDeletedSeq = in.unsignedLength();
            added = in.length();
        }
        if (length != entries.size()) {
            throw RdbInput.damaged(at, "a stream of length " + length + " holds " + entries.size() + " entries");
        }
        long groups = in.length();
        List<Group> read = new ArrayList<>();
        for (long g = 0; g < groups; g++) {
            Group group = group(in, type, at);
            if (type < STREAM_2) {
                // a stream written before 7.0 keeps no count of what a group read: estimated, as Redis does at load
                // (a later one's -1 is a count known to be unknown, and stays)
                group = new Group(group.name(), group.lastMs(), group.lastSeq(), estimatedEntriesRead(group.lastMs(),
                        group.lastSeq(), length, added, lastMs, lastSeq, firstMs, firstSeq, maxDeletedMs, maxDeletedSeq),
                        group.pending(), group.consumers());
            }
            read.add(group);
        }
        return new Stream(entries, lastMs, lastSeq, firstMs, firstSeq, maxDeletedMs, maxDeletedSeq, added, groups, read);
    }

    /**
     * How many entries were added up to ID {@code ms-seq}, where that can be told from the stream's
     * counters alone (Redis 7.0 gives a group loaded from an older file this count): 0 in a stream
     * never written; the entries added, for the last ID or any ID of an emptied stream up to it;
     * before or at the first entry, when no deletion was made past the first entry, the entries added
     * before the first one (plus the first); else unknown.
     *
     * @return the count, or -1 when unknown (an ID past the last, or among entries a deletion may have thinned)
     */
    static long estimatedEntriesRead(long ms, long seq, long length, long added, long lastMs, long lastSeq, long firstMs,
            long firstSeq, long maxDeletedMs, long maxDeletedSeq) {
        if (added == 0) {
            return 0;
        }
        int toLast = compare(ms, seq, lastMs, lastSeq);
        if (length == 0 && toLast <= 0 || toLast == 0) {
            return added;
        }
        if (toLast > 0) {
            return -1;
        }
        int toFirst = compare(ms, seq, firstMs, firstSeq);
        boolean unthinned = maxDeletedMs == 0 && maxDeletedSeq == 0 || compare(maxDeletedMs, maxDeletedSeq, firstMs, firstSeq) < 0;
        if (unthinned && toFirst < 0) {
            return added - length;
        }
        if (unthinned && toFirst == 0) {
            return added - length + 1;
        }
        return -1;
    }

    /** Stream IDs in order: their milliseconds, then their sequence numbers, each unsigned. */
    private static int compare(long ms, long seq, long otherMs, long otherSeq) {
        int c = Long.compareUnsigned(ms, otherMs);
        return c != 0 ? c : Long.compareUnsigned(seq, otherSeq);
    }

    private static Group group(RdbInput in, int type, long at) throws RdbFormatException {
        byte[] name = in.string();
        long lastMs = in.unsignedLength();
        long lastSeq = in.unsignedLength();
        long entriesRead = type >= STREAM_2 ? in.unsignedLength() : -1;
        long n = in.length();
        java.util.TreeMap<java.nio.ByteBuffer, Pending> byId = new java.util.TreeMap<>();
        List<Pending> pending = new ArrayList<>();
        for (long p = 0; p < n; p++) {
            java.nio.ByteBuffer id = java.nio.ByteBuffer.wrap(in.raw(16, "a pending stream entry's ID"));
            long time = java.nio.ByteBuffer.wrap(in.raw(8, "a delivery time")).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .getLong();
            Pending e = new Pending(id.getLong(0), id.getLong(8), time, in.length());
            pending.add(e);
            byId.put(id, e);
        }
        long consumers = in.length();
        List<Consumer> cs = new ArrayList<>();
        java.util.Set<Pending> owned = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (long c = 0; c < consumers; c++) {
            byte[] cn = in.string();
            long seen = java.nio.ByteBuffer.wrap(in.raw(8, "a consumer's seen time"))
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            if (type >= STREAM_3) {
                in.skip(8, "a consumer's active time");
            }
            long m = in.length();
            List<Pending> mine = new ArrayList<>();
            for (long p = 0; p < m; p++) {
                Pending e = byId.get(java.nio.ByteBuffer.wrap(in.raw(16, "a consumer's pending entry")));
                if (e == null || !owned.add(e)) {
                    throw RdbInput.damaged(at, "a consumer's pending entry that is not its group's, or is another's");
                }
                mine.add(e);
            }
            cs.add(new Consumer(cn, seen, mine));
        }
        if (owned.size() != pending.size()) {
            throw RdbInput.damaged(at, "a group's pending entry that no consumer has");
        }
        return new Group(name, lastMs, lastSeq, entriesRead, pending, cs);
    }

    /** Adds the live entries of one node's listpack {@code lp}, of master ID {@code ms-seq}, to {@code out}. */
    private static void node(List<byte[]> lp, long ms, long seq, List<Entry> out, long at) throws RdbFormatException {
        if (lp.isEmpty()) {
            throw RdbInput.damaged(at, "an empty listpack inside a stream");
        }
        int[] i = {0};
        long count = integer(lp, i, at);
        integer(lp, i, at); // deleted entries: found by their flags below
        int n = count(lp, i, at);
        byte[][] master = new byte[n][];
        for (int f = 0; f < n; f++) {
            master[f] = next(lp, i, at);
        }
        if (integer(lp, i, at) != 0) {
            throw RdbInput.damaged(at, "a stream node's master entry does not end with 0");
        }
        long live = 0;
        while (i[0] < lp.size()) {
            long flags = integer(lp, i, at);
            long msDelta = integer(lp, i, at);
            long seqDelta = integer(lp, i, at);
            byte[][] fields;
            if ((flags & SAME_FIELDS) != 0) {
                fields = new byte[2 * n][];
                for (int f = 0; f < n; f++) {
                    fields[2 * f] = master[f];
                    fields[2 * f + 1] = next(lp, i, at);
                }
            } else {
                int m = count(lp, i, at);
                fields = new byte[2 * m][];
                for (int f = 0; f < 2 * m; f++) {
                    fields[f] = next(lp, i, at);
                }
            }
            integer(lp, i, at); // lp-count: for walking backwards, which this does not
            if ((flags & DELETED) == 0) {
                out.add(new Entry(ms + msDelta, seq + seqDelta, fields));
                live++;
            }
        }
        if (live != count) {
            throw RdbInput.damaged(at, "a stream node says it holds " + count + " entries and holds " + live);
        }
    }

    private static byte[] next(List<byte[]> lp, int[] i, long at) throws RdbFormatException {
        if (i[0] >= lp.size()) {
            throw RdbInput.damaged(at, "a stream node's listpack ends inside an entry");
        }
        return lp.get(i[0]++);
    }

    private static long integer(List<byte[]> lp, int[] i, long at) throws RdbFormatException {
        byte[] b = next(lp, i, at);
        try {
            return Long.parseLong(new String(b, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            throw RdbInput.damaged(at, "a stream node's listpack holds text where a number belongs");
        }
    }

    private static int count(List<byte[]> lp, int[] i, long at) throws RdbFormatException {
        long n = integer(lp, i, at);
        if (n < 0 || n > lp.size()) {
            throw RdbInput.damaged(at, "a stream entry of " + n + " fields");
        }
        return (int) n;
    }

    /** @return the master key of a node whose first entry is {@code first} */
    static byte[] masterKey(Entry first) {
        return java.nio.ByteBuffer.allocate(MASTER_KEY).putLong(first.ms()).putLong(first.seq()).array();
    }

    /**
     * One node of a stream as its server holds it: its entries in ID order, the first the master,
     * and which of them XDEL or a trim marked deleted (Redis keeps those in the node, flagged,
     * until the node is freed whole).
     *
     * @param entries the node's entries, at least one of them live
     * @param deleted for each entry, whether it is deleted
     */
    public record Node(List<Entry> entries, boolean[] deleted) {}

    /**
     * @param node one node
     * @return the node's listpack as Redis builds it: the first entry's fields are the master's,
     *     an entry with the same fields is written SAMEFIELDS, a deleted one DELETED, and the
     *     master entry counts both
     */
    static byte[] listpack(Node node) {
        List<Entry> entries = node.entries();
        int dead = 0;
        for (boolean d : node.deleted()) {
            dead += d ? 1 : 0;
        }
        Entry first = entries.getFirst();
        byte[][] master = new byte[first.fields().length / 2][];
        for (int f = 0; f < master.length; f++) {
            master[f] = first.fields()[2 * f];
        }
        List<byte[]> lp = new ArrayList<>();
        lp.add(decimal(entries.size() - dead));
        lp.add(decimal(dead));
        lp.add(decimal(master.length));
        lp.addAll(Arrays.asList(master));
        lp.add(decimal(0));
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            boolean same = e.fields().length == 2 * master.length;
            for (int f = 0; same && f < master.length; f++) {
                same = Arrays.equals(e.fields()[2 * f], master[f]);
            }
            lp.add(decimal((same ? SAME_FIELDS : 0) | (node.deleted()[i] ? DELETED : 0)));
            lp.add(decimal(e.ms() - first.ms()));
            lp.add(decimal(e.seq() - first.seq()));
            int pairs = e.fields().length / 2;
            if (same) {
                for (int f = 0; f < pairs; f++) {
                    lp.add(e.fields()[2 * f + 1]);
                }
                lp.add(decimal(pairs + 3));
            } else {
                lp.add(decimal(pairs));
                lp.addAll(Arrays.asList(e.fields()));
                lp.add(decimal(2L * pairs + 4));
            }
        }
        return Listpack.write(lp);
    }

    private static byte[] decimal(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }
}
