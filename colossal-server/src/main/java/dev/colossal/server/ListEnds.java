package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The common push and pop of a list (a job queue's LPUSH, RPOP, BRPOP, LMOVE), done on its header's
 * bytes where the map's read put them: when the change stays inside the header (a big list's end
 * run that takes the push within {@link ListLayout#RUN_BYTES} or has the element to pop, a packed
 * list that stays packed) and leaves the list an element, the new header is the old one with the
 * elements' bytes put in or cut out and its counts changed, written back from the same buffer.
 * The same change through {@link StoredList} parses the header into runs and nodes, copies a run
 * per push and builds the header anew: the bytes it writes are the same ({@code ListEndsTest}),
 * and anything else (a run that must go to a node, a pop that needs one or empties the list, a
 * header that does not hold together) goes that way, from a copy of the bytes read here
 * ({@link #entry}), so that no key is read twice.
 *
 * <p>Each thread has one, used by one command at a time between {@link #read} and the write; the
 * buffer holds the stored form ({@link StoredValue}) at {@link #READ_AT}, far enough in that a push
 * at the head can move the fixed fields back by the most it adds ({@link #MOST_ADDED}) and still
 * leave room for the stored form's flags and deadline in front of them.
 */
final class ListEnds {

    /** The most bytes a push here adds: a big list's run, or a packed list's elements (not one alone: it pushes onto one). */
    private static final int MOST_ADDED = Math.max(ListLayout.RUN_BYTES, ListLayout.PACKED_BYTES);
    /** Where a read puts the stored form: room before it for a head push and a stored form's header. */
    private static final int READ_AT = StoredValue.EXPIRING_HEADER + MOST_ADDED;
    /** The most bytes a thread keeps: a longer value read (an LSET's big element, a string's WRONGTYPE) gets an array of its own. */
    private static final int MOST_KEPT = 64 << 10;

    private static final ThreadLocal<ListEnds> MINE = ThreadLocal.withInitial(ListEnds::new);
    private static final ThreadLocal<ListEnds> SECOND = ThreadLocal.withInitial(ListEnds::new);

    private byte[] kept = new byte[2048];
    private MemorySegment keptSegment = MemorySegment.ofArray(kept);
    /** The buffer of this read: {@link #kept}, or an array of its own for a value too long to keep. */
    private byte[] buf;
    private MemorySegment seg;
    private MemorySegment keySegment;
    /** The stored form's length at {@link #READ_AT}, or -1 if the key holds no live value (or the buffer was written). */
    private int stored;
    /** Where the payload (the list's header) starts, and how long it is. */
    private int payload;
    private int length;
    private long expireAt;
    /** Whether the payload is a big list's header, or a packed list's, that this class can change (checked as {@link StoredList} checks it). */
    private boolean big;
    private boolean packed;
    /** The header's fixed fields' length: {@link ListLayout#NODES_HEADER_LENGTH} or {@link ListLayout#HEADER_LENGTH}. */
    private int fixed;
    private long count;
    /** A big list's runs; a packed list's elements are one run, head and tail alike. */
    private int headBytes;
    private int headCount;
    private int tailField;
    /** Where the runs end: before a big list's moved node's number, if its header has one. */
    private int runsEnd;

    private ListEnds() {
    }

    /** @return this thread's: one list at a time, from {@link #read} to the write */
    static ListEnds mine() {
        return MINE.get();
    }

    /** @return this thread's other one, for a command's second list while {@link #mine} holds its first (LMOVE's destination) */
    static ListEnds second() {
        return SECOND.get();
    }

    /**
     * Copies the stored form of {@code key}'s value into the buffer (the one map read of the command).
     *
     * @return whether the key holds a live value
     */
    boolean read(KeyValueStore store, byte[] key) {
        keySegment = MemorySegment.ofArray(key);
        big = false;
        packed = false;
        buf = kept;
        seg = keptSegment;
        long n;
        while ((n = store.copyStored(keySegment, seg, READ_AT)) > buf.length - READ_AT - MOST_ADDED) {
            // room behind it too: a tail push adds up to MOST_ADDED
            buf = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(2L * buf.length, READ_AT + n + MOST_ADDED))];
            seg = MemorySegment.ofArray(buf);
            if (buf.length <= MOST_KEPT) {
                kept = buf;
                keptSegment = seg;
            }
        }
        stored = (int) n;
        if (n < 0) {
            return false;
        }
        expireAt = StoredValue.expireAt(seg, READ_AT, n);
        byte flags = buf[READ_AT + StoredValue.FLAGS_OFFSET];
        payload = READ_AT + StoredValue.payloadOffset(flags);
        length = (int) n - (payload - READ_AT);
        if (StoredValue.type(flags) == StoredValue.LIST && !StoredValue.isChunked(flags) && length > ListLayout.HEADER_LENGTH) {
            count = ListLayout.getLong(buf, payload + ListLayout.COUNT_OFFSET);
            if (ListLayout.hasNodes(buf, payload, length)) {
                big = bigHoldsTogether(store);
            } else {
                packed = packedHoldsTogether();
            }
        }
        return true;
    }

    /**
     * Reads a big list's fields and checks them as {@link ListNodes#read} does; a header that
     * fails is left to it, which says what is wrong.
     */
    private boolean bigHoldsTogether(KeyValueStore store) {
        if (store.elements(false) == null) {
            return false;
        }
        fixed = ListLayout.NODES_HEADER_LENGTH;
        long headNode = ListLayout.getLong(buf, payload + ListLayout.HEAD_NODE_OFFSET);
        long endNode = ListLayout.getLong(buf, payload + ListLayout.END_NODE_OFFSET);
        headBytes = ListLayout.getShort(buf, payload + ListLayout.HEAD_BYTES_OFFSET);
        headCount = ListLayout.getShort(buf, payload + ListLayout.HEAD_COUNT_OFFSET);
        tailField = ListLayout.getInt(buf, payload + ListLayout.TAIL_COUNT_OFFSET);
        boolean flagged = (tailField & ListLayout.MOVED_FLAG) != 0;
        long moved = ListLayout.movedNode(buf, payload, length);
        int runs = payload + fixed;
        runsEnd = payload + length - (flagged ? ListLayout.MOVED_BYTES : 0);
        int tailCount = tailField & ~ListLayout.MOVED_FLAG;
        long middle = count - headCount - tailCount;
        int tailBytes = runsEnd - runs - headBytes;
        return middle >= 0 && endNode >= headNode && (middle == 0) == (endNode == headNode) && tailBytes >= 0
                && !(flagged && (moved < headNode || moved >= endNode))
                && !(headBytes == 0 && headCount > 0) // a head run whose length the header does not keep is walked
                && (headCount == 0) == (headBytes == 0) && (tailCount == 0) == (tailBytes == 0)
                && headCount <= headBytes / ListLayout.PACKED_LENGTH_BYTES && tailCount <= tailBytes / ListLayout.PACKED_LENGTH_BYTES;
    }

    /**
     * Checks a packed list's fields as {@link StoredList} and {@link PackedRun#of} check them, and
     * that its id and first position are the 0 that StoredList writes back.
     */
    private boolean packedHoldsTogether() {
        fixed = ListLayout.HEADER_LENGTH;
        runsEnd = payload + length;
        int bytes = length - fixed;
        return ListLayout.getLong(buf, payload + ListLayout.ID_OFFSET) == 0
                && ListLayout.getLong(buf, payload + ListLayout.FIRST_OFFSET) == 0
                && count > 0 && count <= bytes / ListLayout.PACKED_LENGTH_BYTES;
    }

    /** @return the value read, as {@link KeyValueStore#get} gives it, for the way through {@link StoredList}; null if none */
    KeyValueStore.Entry entry() {
        if (stored < 0) {
            return null;
        }
        byte[] b = Arrays.copyOfRange(buf, READ_AT, READ_AT + stored);
        byte flags = b[StoredValue.FLAGS_OFFSET];
        return new KeyValueStore.Entry(b, StoredValue.payloadOffset(flags), expireAt, StoredValue.type(flags),
                StoredValue.isChunked(flags));
    }

    /** @return the list's length after the last change */
    long count() {
        return count;
    }

    /** @return where the head ({@code left}) or the tail run starts */
    private int runStart(boolean left) {
        return payload + fixed + (left || packed ? 0 : headBytes);
    }

    /** @return the elements of the head ({@code left}) or the tail run */
    private int runCount(boolean left) {
        return packed ? (int) count : left ? headCount : tailField & ~ListLayout.MOVED_FLAG;
    }

    /**
     * Pushes {@code values[from, to)} one after another to the head ({@code left}) or the tail and
     * writes the header, if the list read is big and its end run takes them all with no node
     * written, or packed and stays packed.
     *
     * @return whether it did (if not, nothing changed)
     */
    boolean push(KeyValueStore store, boolean left, byte[][] values, int from, int to) {
        if (!big && !packed) {
            return false;
        }
        int runBytes = left && big ? headBytes : runsEnd - runStart(left);
        int runCount = runCount(left);
        int add = 0;
        for (int i = from; i < to; i++) {
            int size = PackedRun.sizeOf(values[i]);
            // ListNodes.push's test for a run that goes to a node first, or an element that is a node alone
            if (big && (size > ListLayout.OWN_NODE_BYTES || runCount + i - from > 0 && runBytes + add + size > ListLayout.RUN_BYTES)) {
                return false;
            }
            add += size;
            if (add > MOST_ADDED) {
                return false;
            }
        }
        if (packed && !StoredList.fitsPacked(count + to - from, runBytes + add)) {
            return false;
        }
        if (left) {
            // the fixed fields move back by what is added; the elements go between them and the head run, last pushed first
            int was = payload;
            payload -= add;
            System.arraycopy(buf, was, buf, payload, fixed);
            int at = payload + fixed + add;
            for (int i = from; i < to; i++) {
                at -= PackedRun.sizeOf(values[i]);
                ListLayout.putPacked(buf, at, values[i], 0, values[i].length);
            }
            if (big) {
                headBytes += add;
                headCount += to - from;
                ListLayout.putShort(buf, payload + ListLayout.HEAD_BYTES_OFFSET, headBytes);
                ListLayout.putShort(buf, payload + ListLayout.HEAD_COUNT_OFFSET, headCount);
            }
        } else {
            // a moved node's number, if any, moves behind them
            System.arraycopy(buf, runsEnd, buf, runsEnd + add, payload + length - runsEnd);
            int at = runsEnd;
            for (int i = from; i < to; i++) {
                at = ListLayout.putPacked(buf, at, values[i], 0, values[i].length);
            }
            runsEnd += add;
            if (big) {
                tailField += to - from;
                ListLayout.putInt(buf, payload + ListLayout.TAIL_COUNT_OFFSET, tailField);
            }
        }
        length += add;
        count += to - from;
        write(store);
        return true;
    }

    /**
     * @return a copy of the element at the head ({@code left}) or the tail that {@link #pop} would
     *         take, or null if it would not take it (nothing changes either way): LMOVE pushes it to
     *         its destination before it pops it
     */
    byte[] end(boolean left) {
        int at = endAt(left);
        return at < 0 ? null : Arrays.copyOfRange(buf, at + ListLayout.PACKED_LENGTH_BYTES, at + ListLayout.packedSize(buf, at));
    }

    /**
     * Pops one element from the head ({@code left}) or the tail and writes the header, if the list
     * read keeps an element after it and has this one in the header (a big list's end run).
     *
     * @return the element, or null if it did not (nothing changed)
     */
    byte[] pop(KeyValueStore store, boolean left) {
        int at = endAt(left);
        if (at < 0) {
            return null;
        }
        int size = ListLayout.packedSize(buf, at);
        byte[] v = Arrays.copyOfRange(buf, at + ListLayout.PACKED_LENGTH_BYTES, at + size);
        if (left) {
            System.arraycopy(buf, payload, buf, payload + size, fixed);
            payload += size;
            if (big) {
                headBytes -= size;
                headCount--;
                ListLayout.putShort(buf, payload + ListLayout.HEAD_BYTES_OFFSET, headBytes);
                ListLayout.putShort(buf, payload + ListLayout.HEAD_COUNT_OFFSET, headCount);
            }
        } else {
            System.arraycopy(buf, runsEnd, buf, at, payload + length - runsEnd);
            runsEnd = at;
            if (big) {
                tailField--;
                ListLayout.putInt(buf, payload + ListLayout.TAIL_COUNT_OFFSET, tailField);
            }
        }
        length -= size;
        count--;
        write(store);
        return v;
    }

    /**
     * @return where the packed element a pop from the head ({@code left}) or the tail takes starts,
     *         or -1 if the list read is neither big nor packed, would be emptied, or has no element
     *         in that end's run (or one that does not fit it: damage, which {@link StoredList}'s
     *         walk reports)
     */
    private int endAt(boolean left) {
        int runCount = runCount(left);
        if (!big && !packed || count < 2 || runCount == 0) {
            return -1;
        }
        int at = runStart(left);
        int runEnd = left && big ? at + headBytes : runsEnd;
        int size = ListLayout.packedSize(buf, at);
        if (!left) {
            // the run's last element: walked from the run's start, as StoredList's pop walks it
            for (int i = 1; i < runCount && size >= ListLayout.PACKED_LENGTH_BYTES && size <= runEnd - at; i++) {
                at += size;
                size = ListLayout.packedSize(buf, at);
            }
        }
        return size < ListLayout.PACKED_LENGTH_BYTES || (left ? size > runEnd - at : size != runEnd - at) ? -1 : at;
    }

    /** Writes the changed header as the key's value, with its deadline: the commit point, as {@link StoredList}'s. */
    private void write(KeyValueStore store) {
        ListLayout.putLong(buf, payload + ListLayout.COUNT_OFFSET, count);
        stored = -1; // the buffer no longer holds what was read
        store.setInPlace(keySegment, seg, payload, length, expireAt, StoredValue.LIST);
    }
}
