package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads and writes one stream node ({@link StreamLayout}'s node layout): nodes are immutable byte
 * arrays, and each change makes a new one that the caller writes to the element map.
 */
final class StreamNode {

    /**
     * One entry of a node.
     *
     * @param id      its ID
     * @param fields  field, value, field, value, ...
     * @param deleted whether XDEL or a trim marked it deleted
     * @param flagsAt where its flags byte is in the node
     */
    record Entry(StreamId id, byte[][] fields, boolean deleted, int flagsAt) {}

    private StreamNode() {}

    /** @return a node holding one entry: {@code id} with the fields and values {@code a[from, to)} */
    static byte[] create(StreamId id, byte[][] a, int from, int to) {
        byte[] node = new byte[StreamLayout.NODE_HEADER_LENGTH];
        StreamLayout.putLong(node, StreamLayout.NODE_BASE_MS_OFFSET, id.ms());
        StreamLayout.putLong(node, StreamLayout.NODE_BASE_SEQ_OFFSET, id.seq());
        return append(node, id, a, from, to);
    }

    /** @return {@code node} with the entry {@code id}, fields and values {@code a[from, to)}, after its last */
    static byte[] append(byte[] node, StreamId id, byte[][] a, int from, int to) {
        int n = entryLength(node, id, a, from, to);
        byte[] out = Arrays.copyOf(node, node.length + n);
        putEntry(out, node.length, node, id, a, from, to);
        return out;
    }

    /** @return the bytes of the entry {@code id}, fields and values {@code a[from, to)}, in the node whose base {@code node} holds */
    static int entryLength(byte[] node, StreamId id, byte[][] a, int from, int to) {
        long msDelta = id.ms() - StreamLayout.getLong(node, StreamLayout.NODE_BASE_MS_OFFSET);
        long seqPart = msDelta == 0 ? id.seq() - StreamLayout.getLong(node, StreamLayout.NODE_BASE_SEQ_OFFSET) : id.seq();
        int n = 1 + StreamLayout.varLength(msDelta) + StreamLayout.varLength(seqPart)
                + StreamLayout.varLength((to - from) / 2);
        for (int i = from; i < to; i++) {
            n += StreamLayout.varLength(a[i].length) + a[i].length;
        }
        return n;
    }

    /**
     * Writes the entry {@code id}, fields and values {@code a[from, to)}, encoded against the base
     * {@code node} holds, into {@code out} at {@code at} ({@link #entryLength} bytes).
     */
    static void putEntry(byte[] out, int at, byte[] node, StreamId id, byte[][] a, int from, int to) {
        long msDelta = id.ms() - StreamLayout.getLong(node, StreamLayout.NODE_BASE_MS_OFFSET);
        long seqPart = msDelta == 0 ? id.seq() - StreamLayout.getLong(node, StreamLayout.NODE_BASE_SEQ_OFFSET) : id.seq();
        out[at++] = 0;
        at = StreamLayout.putVar(out, at, msDelta);
        at = StreamLayout.putVar(out, at, seqPart);
        at = StreamLayout.putVar(out, at, (to - from) / 2);
        for (int i = from; i < to; i++) {
            at = StreamLayout.putVar(out, at, a[i].length);
            System.arraycopy(a[i], 0, out, at, a[i].length);
            at += a[i].length;
        }
    }

    /** @return a node of the live {@code entries} (at least one), in order */
    static byte[] of(List<Entry> entries) {
        Entry e0 = entries.getFirst();
        byte[] node = create(e0.id(), e0.fields(), 0, e0.fields().length);
        for (int i = 1; i < entries.size(); i++) {
            Entry e = entries.get(i);
            node = append(node, e.id(), e.fields(), 0, e.fields().length);
        }
        return node;
    }

    /** @return the node's first entry's ID, deleted or not: what a binary search over nodes compares */
    static StreamId base(byte[] node) {
        return new StreamId(StreamLayout.getLong(node, StreamLayout.NODE_BASE_MS_OFFSET),
                StreamLayout.getLong(node, StreamLayout.NODE_BASE_SEQ_OFFSET));
    }

    /** @return the entries written in {@code node}, deleted ones too, read without copying their fields */
    static int count(byte[] node) {
        return tally(node, 0, true);
    }

    /** @return the entries after the first {@code skip} that are not deleted, read without decoding them */
    static int live(byte[] node, long skip) {
        return tally(node, skip, false);
    }

    /** @return the entries after the first {@code skip}, deleted ones only if {@code deletedToo}, walked over without decoding */
    private static int tally(byte[] node, long skip, boolean deletedToo) {
        int n = 0;
        long seen = 0;
        int[] pos = {StreamLayout.NODE_HEADER_LENGTH};
        while (pos[0] < node.length) {
            boolean deleted = (node[pos[0]] & StreamLayout.DELETED) != 0;
            pos[0]++;
            StreamLayout.getVar(node, pos);
            StreamLayout.getVar(node, pos);
            long fields = 2 * StreamLayout.getVar(node, pos);
            for (long i = 0; i < fields; i++) {
                long length = StreamLayout.getVar(node, pos); // moves pos[0] past the length first
                pos[0] += (int) length;
            }
            if (seen++ >= skip && (deletedToo || !deleted)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Where an exact MAXLEN trim stops in a node: past {@code passed} entries (deleted ones among
     * them), before the live entry {@code nextLive}.
     *
     * @param passed   entries passed over after the head skip, the last of them live
     * @param nextLive the first live entry after them, or null if the node has none
     */
    record Cut(long passed, StreamId nextLive) {}

    /**
     * Walks the entries after the first {@code skip} until {@code drop} (at least one) live ones
     * are passed, then on to the next live one, reading IDs and flags only: an XADD MAXLEN n at
     * its bound drops one entry per call, and decoding the node's entries for it cost a whole
     * node's allocations each time.
     *
     * @return where the walk stopped, or null if the node has fewer than {@code drop} live entries
     */
    static Cut cut(byte[] node, long skip, long drop) {
        long baseMs = StreamLayout.getLong(node, StreamLayout.NODE_BASE_MS_OFFSET);
        long baseSeq = StreamLayout.getLong(node, StreamLayout.NODE_BASE_SEQ_OFFSET);
        int[] pos = {StreamLayout.NODE_HEADER_LENGTH};
        long passed = -1;
        long dropped = 0;
        for (long index = 0; pos[0] < node.length; index++) {
            boolean live = (node[pos[0]] & StreamLayout.DELETED) == 0 && index >= skip;
            pos[0]++;
            long msDelta = StreamLayout.getVar(node, pos);
            long seqPart = StreamLayout.getVar(node, pos);
            long fields = 2 * StreamLayout.getVar(node, pos);
            for (long i = 0; i < fields; i++) {
                long length = StreamLayout.getVar(node, pos); // moves pos[0] past the length first
                pos[0] += (int) length;
            }
            if (!live) {
                continue;
            }
            if (passed >= 0) {
                return new Cut(passed, msDelta == 0 ? new StreamId(baseMs, baseSeq + seqPart)
                        : new StreamId(baseMs + msDelta, seqPart));
            }
            if (++dropped == drop) {
                passed = index + 1 - skip;
            }
        }
        return passed >= 0 ? new Cut(passed, null) : null;
    }

    /** @return every entry, deleted ones too, in ID order */
    static List<Entry> entries(byte[] node) {
        return entries(node, true);
    }

    /**
     * @return every entry, deleted ones too, in ID order, with its ID and flag but no fields (its
     *     {@code fields()} null): what a trim weighs, for which copying each entry's fields out
     *     cost an exact MAXLEN's XADD a whole node's allocations on every call
     */
    static List<Entry> heads(byte[] node) {
        return entries(node, false);
    }

    private static List<Entry> entries(byte[] node, boolean withFields) {
        StreamId base = base(node);
        List<Entry> out = new ArrayList<>();
        int[] pos = {StreamLayout.NODE_HEADER_LENGTH};
        while (pos[0] < node.length) {
            int flagsAt = pos[0];
            pos[0]++;
            long msDelta = StreamLayout.getVar(node, pos);
            long seqPart = StreamLayout.getVar(node, pos);
            long pairs = StreamLayout.getVar(node, pos);
            if (pairs < 0 || pairs > node.length) {
                throw new IllegalStateException("stream node of length=" + node.length + " has an entry of pairs=" + pairs
                        + ": the element map is damaged");
            }
            byte[][] fields = withFields ? new byte[(int) pairs * 2][] : null;
            for (int i = 0; i < pairs * 2; i++) {
                long len = StreamLayout.getVar(node, pos);
                if (len < 0 || len > node.length - pos[0]) {
                    throw new IllegalStateException("stream node of length=" + node.length + " has a field of length=" + len
                            + " at offset=" + pos[0] + ": the element map is damaged");
                }
                if (withFields) {
                    fields[i] = Arrays.copyOfRange(node, pos[0], pos[0] + (int) len);
                }
                pos[0] += (int) len;
            }
            StreamId id = msDelta == 0 ? new StreamId(base.ms(), base.seq() + seqPart)
                    : new StreamId(base.ms() + msDelta, seqPart);
            out.add(new Entry(id, fields, (node[flagsAt] & StreamLayout.DELETED) != 0, flagsAt));
        }
        return out;
    }

    /**
     * Appends to {@code out} the live entries of {@code node} in {@code [start, end]}, after its
     * first {@code skip} (a head skip), until {@code out} holds {@code limit}: XRANGE's and
     * XREADGROUP's walk, which copies the fields of those entries only, where {@link #entries}
     * copies every entry's.
     *
     * @param limit stop at this many in {@code out} (negative: no bound)
     * @return whether the walk is over: an entry past {@code end} met, or {@code limit} reached
     */
    static boolean collect(byte[] node, long skip, StreamId start, StreamId end, long limit, List<Entry> out) {
        long baseMs = StreamLayout.getLong(node, StreamLayout.NODE_BASE_MS_OFFSET);
        long baseSeq = StreamLayout.getLong(node, StreamLayout.NODE_BASE_SEQ_OFFSET);
        int[] pos = {StreamLayout.NODE_HEADER_LENGTH};
        for (long index = 0; pos[0] < node.length; index++) {
            int flagsAt = pos[0];
            pos[0]++;
            long msDelta = StreamLayout.getVar(node, pos);
            long seqPart = StreamLayout.getVar(node, pos);
            long pairs = StreamLayout.getVar(node, pos);
            if (pairs < 0 || pairs > node.length) {
                throw new IllegalStateException("stream node of length=" + node.length + " has an entry of pairs=" + pairs
                        + ": the element map is damaged");
            }
            StreamId id = msDelta == 0 ? new StreamId(baseMs, baseSeq + seqPart) : new StreamId(baseMs + msDelta, seqPart);
            boolean wanted = index >= skip && (node[flagsAt] & StreamLayout.DELETED) == 0 && id.compareTo(start) >= 0;
            if (wanted && id.compareTo(end) > 0) {
                return true;
            }
            byte[][] fields = wanted ? new byte[(int) pairs * 2][] : null;
            for (int i = 0; i < pairs * 2; i++) {
                long len = StreamLayout.getVar(node, pos);
                if (len < 0 || len > node.length - pos[0]) {
                    throw new IllegalStateException("stream node of length=" + node.length + " has a field of length=" + len
                            + " at offset=" + pos[0] + ": the element map is damaged");
                }
                if (wanted) {
                    fields[i] = Arrays.copyOfRange(node, pos[0], pos[0] + (int) len);
                }
                pos[0] += (int) len;
            }
            if (wanted) {
                out.add(new Entry(id, fields, false, flagsAt));
                if (out.size() == limit) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return {@code node} with the entry whose flags are at {@code flagsAt} marked deleted */
    static byte[] delete(byte[] node, int flagsAt) {
        byte[] out = node.clone();
        out[flagsAt] |= StreamLayout.DELETED;
        return out;
    }
}
