package dev.colossal.server;

import dev.colossal.rdb.RdbStreams;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One stream as a command sees it under its key's lock: its header ({@link StreamLayout}) read
 * once, changed in memory, and written back as the commit point of each change. An XADD writes
 * its node (the last one rewritten, or a new one), then the header; a trim writes the header,
 * then removes the nodes it dropped (an XADD's trim writes the one header for both); an exact trim inside the first node moves the header's head
 * skip and rewrites no node. So a kill at any moment leaves every acknowledged XADD in place once
 * and what the kill interrupted either done or garbage {@link ListCollector} frees. An XDEL
 * rewrites the node before the header: a kill between the two may leave the entry deleted with
 * the length not yet lowered.
 */
final class StoredStream {

    /** Redis's bound on a node's bytes when stream-node-max-bytes is 0 or larger. */
    private static final long NODE_MAX_BYTES_CAP = 1L << 30;
    private static final byte[] NO_RUN = {};

    private final KeyValueStore store;
    private final byte[] key;
    private ListElements elements;
    private long id;
    private long first;
    private long count;
    private long length;
    private StreamId last = StreamId.MIN;
    private StreamId maxDeleted = StreamId.MIN;
    private long added;
    private StreamId firstId = StreamId.MIN;
    private long headSkip;
    private long tailBytes;
    private long auxCount;
    private long groupsState;
    private long expireAt = StoredValue.NO_EXPIRY;
    /** The last node's entries past its committed tail bytes, kept in the header ({@link StreamLayout}'s tail run). */
    private byte[] run = NO_RUN;
    private long runEntries;
    /** Whether an {@link #append} changed this since the header was last written. */
    private boolean pending;

    private StoredStream(KeyValueStore store, byte[] key) {
        this.store = store;
        this.key = key;
    }

    /**
     * @return the stream under {@code key}, or null if there is none
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static StoredStream read(KeyValueStore store, byte[] key) {
        HeaderBuffer buf = HeaderBuffer.mine();
        long n = buf.load(store, key);
        if (n < 0) {
            return null;
        }
        byte[] b = buf.loaded();
        if (n > b.length || StoredValue.type(b[StoredValue.FLAGS_OFFSET]) != StoredValue.STREAM) {
            return readWhole(store, key); // a header past what a thread keeps, or another type: WRONGTYPE
        }
        MemorySegment loaded = MemorySegment.ofArray(b);
        int o = StoredValue.payloadOffset(loaded, 0);
        return decode(store, key, b, o, (int) n - o, StoredValue.expireAt(loaded, 0, n));
    }

    /** {@link #read} through an array of the stored value's own. */
    private static StoredStream readWhole(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        if (e == null) {
            return null;
        }
        if (e.type() != StoredValue.STREAM) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return decode(store, key, e.array(), e.offset(), e.length(), e.expireAtMillis());
    }

    /** @return the stream whose header is {@code b[o, o + length)}, with deadline {@code expireAt} */
    private static StoredStream decode(KeyValueStore store, byte[] key, byte[] b, int o, int length, long expireAt) {
        if (length != StreamLayout.HEADER_LENGTH && length < StreamLayout.RUN_OFFSET) {
            throw new IllegalStateException("stream header of key length=" + key.length + " has length=" + length
                    + ", neither " + StreamLayout.HEADER_LENGTH + " nor at least " + StreamLayout.RUN_OFFSET
                    + ": the map file is damaged; run 'colossal repair'");
        }
        StoredStream s = new StoredStream(store, key);
        s.id = StreamLayout.getLong(b, o + StreamLayout.ID_OFFSET);
        s.first = StreamLayout.getLong(b, o + StreamLayout.FIRST_OFFSET);
        s.count = StreamLayout.getLong(b, o + StreamLayout.COUNT_OFFSET);
        s.length = StreamLayout.getLong(b, o + StreamLayout.LENGTH_OFFSET);
        s.last = idAt(b, o + StreamLayout.LAST_MS_OFFSET, o + StreamLayout.LAST_SEQ_OFFSET);
        s.maxDeleted = idAt(b, o + StreamLayout.MAX_DELETED_MS_OFFSET, o + StreamLayout.MAX_DELETED_SEQ_OFFSET);
        s.added = StreamLayout.getLong(b, o + StreamLayout.ENTRIES_ADDED_OFFSET);
        s.firstId = idAt(b, o + StreamLayout.FIRST_MS_OFFSET, o + StreamLayout.FIRST_SEQ_OFFSET);
        s.headSkip = StreamLayout.getLong(b, o + StreamLayout.HEAD_SKIP_OFFSET);
        s.tailBytes = StreamLayout.getLong(b, o + StreamLayout.TAIL_BYTES_OFFSET);
        s.auxCount = StreamLayout.getLong(b, o + StreamLayout.AUX_COUNT_OFFSET);
        s.groupsState = StreamLayout.getLong(b, o + StreamLayout.GROUPS_STATE_OFFSET);
        s.expireAt = expireAt;
        if (length > StreamLayout.HEADER_LENGTH) {
            s.runEntries = StreamLayout.getLong(b, o + StreamLayout.RUN_ENTRIES_OFFSET);
            s.run = Arrays.copyOfRange(b, o + StreamLayout.RUN_OFFSET, o + length);
        }
        s.elements = store.elements(false);
        if (s.elements == null) {
            throw new IllegalStateException("stream under a key of length=" + key.length + " has no element map file "
                    + ListElements.fileFor(store.path()) + ": was it deleted? DEL the key");
        }
        return s;
    }

    /**
     * Runs {@code action} on the stream under {@code key} (null if there is none) holding the
     * key's lock, as every stream command reads and changes one.
     *
     * @return what {@code action} returns
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static <T> T locked(KeyValueStore store, byte[] key, java.util.function.Function<StoredStream, T> action) {
        java.util.concurrent.locks.Lock l = store.lock(key);
        l.lock();
        try {
            return action.apply(read(store, key));
        } finally {
            l.unlock();
        }
    }

    /**
     * @return a new empty stream for {@code key}, stored by its first {@link #commit} (an XADD's)
     */
    static StoredStream create(KeyValueStore store, byte[] key) {
        StoredStream s = new StoredStream(store, key);
        s.elements = store.elements(true);
        s.id = s.elements.newId(key);
        return s;
    }

    private static StreamId idAt(byte[] b, int msAt, int seqAt) {
        return new StreamId(StreamLayout.getLong(b, msAt), StreamLayout.getLong(b, seqAt));
    }

    /** @return the live entries (XLEN) */
    long length() {
        return length;
    }

    /** @return the last ID given or set: XADD's floor */
    StreamId lastId() {
        return last;
    }

    StreamId maxDeletedId() {
        return maxDeleted;
    }

    long entriesAdded() {
        return added;
    }

    /** @return the first live entry's ID as recorded, 0-0 when empty */
    StreamId recordedFirstId() {
        return firstId;
    }

    /** @return the position of the first node in the element map */
    long firstNode() {
        return first;
    }

    /** @return the nodes the entries are packed in (XINFO's radix-tree-keys) */
    long nodes() {
        return count;
    }

    long expireAt() {
        return expireAt;
    }

    /** @return the collection id: its nodes' and auxiliary entries' keys start with it */
    long id() {
        return id;
    }

    ListElements elements() {
        return elements;
    }

    /** @return the auxiliary entries (consumer groups' state) the header keeps */
    long auxCount() {
        return auxCount;
    }

    /** @return the header's field reserved for consumer groups */
    long groupsState() {
        return groupsState;
    }

    /** @return auxiliary entry {@code index} ({@code 0 <= index < auxCount()}), or null if missing */
    byte[] aux(long index) {
        StreamAuxEntries held = elements.streamAux();
        byte[] v = held.get(id, index);
        if (v == null) {
            v = elements.get(id, StreamLayout.AUX_BASE + index);
            if (v != null) {
                held.put(id, index, v);
            }
        }
        return v;
    }

    /**
     * Writes auxiliary entry {@code index} before any header names it: {@link #setAux} then
     * commits. An entry at or past {@link #auxCount()} is garbage until a commit counts it.
     */
    void putAux(long index, byte[] value) {
        elements.put(id, StreamLayout.AUX_BASE + index, value);
        elements.streamAux().put(id, index, value);
    }

    /** Frees auxiliary entry {@code index}, which the committed header no longer names. */
    void removeAux(long index) {
        elements.streamAux().forget(id, index);
        elements.remove(id, StreamLayout.AUX_BASE + index);
    }

    /** Sets the auxiliary count and groups' field; {@link #commit} writes them. Entries past a lowered count are freed by the collector. */
    void setAux(long count, long state) {
        auxCount = count;
        groupsState = state;
    }

    /**
     * Appends an entry with {@code id} (above {@link #lastId()}, the caller checked) and the fields
     * and values {@code a[from, to)}, writing the nodes it changes but not the header: XADD's trim
     * then commits both changes with one header write (the nodes written here go before it, those
     * the trim drops after it), or {@link #commitPending} does if the trim changes nothing.
     *
     * @param nodeMaxEntries stream-node-max-entries (0: no bound)
     * @param nodeMaxBytes   stream-node-max-bytes (0: Redis's 1 GiB cap)
     */
    void append(StreamId entryId, byte[][] a, int from, int to, long nodeMaxEntries, long nodeMaxBytes) {
        long lastNode = first + count - 1;
        StreamEndNodes.Node tail = count == 0 ? null : endNode(lastNode);
        boolean fresh = tail == null;
        if (!fresh) {
            long fieldBytes = 0;
            for (int i = from; i < to; i++) {
                fieldBytes += a[i].length;
            }
            long maxBytes = nodeMaxBytes <= 0 || nodeMaxBytes > NODE_MAX_BYTES_CAP ? NODE_MAX_BYTES_CAP : nodeMaxBytes;
            fresh = tail.bytes().length + run.length + fieldBytes >= maxBytes
                    || (nodeMaxEntries > 0 && (tail = counted(lastNode, tail)).entries() + runEntries >= nodeMaxEntries);
        }
        StreamEndNodes ends = elements.streamEnds();
        if (fresh) {
            if (count == 0) {
                headSkip = 0;
            } else if (run.length > 0 || longerInMap(lastNode)) {
                // the last node takes its run in before it becomes a middle one, which is read whole
                byte[] whole = withRun(tail.bytes(), 0);
                elements.put(id, lastNode, whole);
                ends.put(id, lastNode, StreamEndNodes.Node.of(whole)); // still the first node if it is the only one
                clearRun();
            }
            long position = first + count;
            byte[] node = StreamNode.create(entryId, a, from, to);
            elements.put(id, position, node);
            elements.streamBases().put(id, position, entryId);
            if (count > 1) {
                ends.forget(id, position - 1); // now a middle node
            }
            ends.put(id, position, new StreamEndNodes.Node(node, 1, 0, 1));
            count++;
            tailBytes = node.length;
        } else {
            byte[] stored = tail.bytes();
            int n = StreamNode.entryLength(stored, entryId, a, from, to);
            if (run.length + n <= StreamLayout.MAX_RUN_BYTES) {
                byte[] longer = Arrays.copyOf(run, run.length + n);
                StreamNode.putEntry(longer, run.length, stored, entryId, a, from, to);
                run = longer;
                runEntries++;
            } else {
                byte[] node = withRun(stored, n);
                StreamNode.putEntry(node, node.length - n, stored, entryId, a, from, to);
                elements.put(id, lastNode, node);
                long taken = runEntries + 1;
                ends.put(id, lastNode, new StreamEndNodes.Node(node, tail.entries() < 0 ? -1 : (int) (tail.entries() + taken),
                        tail.skip(), tail.live() < 0 || tail.skip() > 0 ? -1 : (int) (tail.live() + taken)));
                clearRun();
                tailBytes = node.length;
            }
        }
        length++;
        added++;
        last = entryId;
        if (length == 1) {
            firstId = entryId;
        }
        pending = true;
    }

    /** Commits the change an {@link #append} left, unless a commit since has written it. */
    void commitPending() {
        if (pending) {
            commit();
        }
    }

    /** @return the committed last node {@code stored} with the run after it, and {@code room} bytes more at the end */
    private byte[] withRun(byte[] stored, int room) {
        byte[] node = Arrays.copyOf(stored, stored.length + run.length + room);
        System.arraycopy(run, 0, node, stored.length, run.length);
        return node;
    }

    /**
     * @return whether the map holds more of the last node at {@code position} than its committed
     *     tail bytes: an XADD that wrote the node and died before its header left an entry there,
     *     which the node must lose before it becomes a middle node, read whole. One read a new node.
     */
    private boolean longerInMap(long position) {
        byte[] inMap = elements.get(id, position);
        return inMap != null && inMap.length != tailBytes;
    }

    private void clearRun() {
        run = NO_RUN;
        runEntries = 0;
    }

    /** @return the node at {@code position}, cut to the committed length if it is the last */
    private byte[] node(long position) {
        if (position == first + count - 1) {
            byte[] stored = endNode(position).bytes();
            return run.length == 0 ? stored : withRun(stored, 0);
        }
        return position == first ? endNode(position).bytes() : read(position);
    }

    private byte[] read(long position) {
        byte[] v = elements.get(id, position);
        if (v == null) {
            throw new IllegalStateException("stream node position=" + position + " of id=" + Long.toHexString(id)
                    + " is missing from " + ListElements.fileFor(store.path()) + ": the element map is damaged");
        }
        if (position == first + count - 1 && v.length > tailBytes) {
            v = Arrays.copyOf(v, (int) tailBytes);
        }
        return v;
    }

    /**
     * @return the first or last node, from memory if it holds the committed one (a last node whose
     *         XADD failed before its header is longer than the header's tail bytes)
     */
    private StreamEndNodes.Node endNode(long position) {
        StreamEndNodes ends = elements.streamEnds();
        StreamEndNodes.Node c = ends.get(id, position);
        if (c == null || position == first + count - 1 && c.bytes().length != tailBytes) {
            c = StreamEndNodes.Node.of(read(position));
            ends.put(id, position, c);
        }
        return c;
    }

    /** @return {@code c}, the end node at {@code position}, with its committed entries counted (the tail run's not among them) */
    private StreamEndNodes.Node counted(long position, StreamEndNodes.Node c) {
        if (c.entries() < 0) {
            c = new StreamEndNodes.Node(c.bytes(), StreamNode.count(c.bytes()), c.skip(), c.live());
            elements.streamEnds().put(id, position, c);
        }
        return c;
    }

    /** @return the first node's live entries after the head skip, counted once per node and skip */
    private long firstLive() {
        if (count == 1 && run.length > 0) {
            return StreamNode.live(node(first), headSkip); // a stream of one node: its run counts too
        }
        StreamEndNodes.Node c = endNode(first);
        if (c.live() < 0 || c.skip() != headSkip) {
            c = new StreamEndNodes.Node(c.bytes(), c.entries(), headSkip, StreamNode.live(c.bytes(), headSkip));
            elements.streamEnds().put(id, first, c);
        }
        return c.live();
    }

    /** @return the node's entries, deleted ones too, without those the head skip dropped */
    private List<StreamNode.Entry> entriesAt(long position, byte[] node) {
        return skipped(position, StreamNode.entries(node));
    }

    /** @return as {@link #entriesAt}, without the entries' fields ({@link StreamNode#heads}) */
    private List<StreamNode.Entry> headsAt(long position, byte[] node) {
        return skipped(position, StreamNode.heads(node));
    }

    /** @return the entries {@code es} of the node at {@code position}, without those the head skip dropped */
    private List<StreamNode.Entry> skipped(long position, List<StreamNode.Entry> es) {
        if (position == first && headSkip > 0) {
            return es.subList((int) Math.min(headSkip, es.size()), es.size());
        }
        return es;
    }

    /** @return the base of the node at {@code position}, from memory once read ({@link StreamNodeBases}) */
    private StreamId base(long position) {
        StreamNodeBases bases = elements.streamBases();
        StreamId b = bases.get(id, position);
        if (b == null) {
            b = StreamNode.base(node(position));
            bases.put(id, position, b);
        }
        return b;
    }

    /** @return the last position in {@code [first, first + count)} whose node starts at or below {@code target}, or {@code first} */
    private long floor(StreamId target) {
        long lo = first;
        long hi = first + count - 1;
        long found = first;
        while (lo <= hi) {
            long mid = lo + (hi - lo) / 2;
            if (base(mid).compareTo(target) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /**
     * @param limit at most this many (negative: all)
     * @param rev   from {@code end} down to {@code start}
     * @return the live entries in {@code [start, end]}, in ID order or its reverse
     */
    List<StreamNode.Entry> range(StreamId start, StreamId end, long limit, boolean rev) {
        List<StreamNode.Entry> out = new ArrayList<>();
        if (count == 0 || start.compareTo(end) > 0 || limit == 0) {
            return out;
        }
        if (!rev) {
            for (long p = floor(start); p < first + count; p++) {
                if (StreamNode.collect(node(p), p == first ? headSkip : 0, start, end, limit, out)) {
                    return out;
                }
            }
        } else {
            for (long p = floor(end); p >= first; p--) {
                List<StreamNode.Entry> es = entriesAt(p, node(p));
                for (int i = es.size() - 1; i >= 0; i--) {
                    StreamNode.Entry e = es.get(i);
                    if (e.deleted() || e.id().compareTo(end) > 0) {
                        continue;
                    }
                    if (e.id().compareTo(start) < 0) {
                        return out;
                    }
                    out.add(e);
                    if (out.size() == limit) {
                        return out;
                    }
                }
            }
        }
        return out;
    }

    /** @return the first ({@code !rev}) or last live entry, or null when empty */
    StreamNode.Entry edge(boolean rev) {
        List<StreamNode.Entry> es = range(StreamId.MIN, StreamId.MAX, 1, rev);
        return es.isEmpty() ? null : es.getFirst();
    }

    /**
     * XDEL: marks the entries with these IDs deleted, node by node, then commits. A node left with
     * no live entry at either end goes (its successors at the front too, as a trim would).
     *
     * @return the entries deleted
     */
    long delete(List<StreamId> ids) {
        long deleted = 0;
        List<Long> dropped = new ArrayList<>();
        boolean firstGone = false;
        for (StreamId target : ids) {
            if (count == 0) {
                break;
            }
            long p = floor(target);
            byte[] raw = node(p);
            List<StreamNode.Entry> es = headsAt(p, raw);
            for (StreamNode.Entry e : es) {
                if (!e.deleted() && e.id().equals(target)) {
                    byte[] changed = StreamNode.delete(raw, e.flagsAt());
                    elements.put(id, p, changed);
                    elements.streamEnds().forget(id, p);
                    if (p == first + count - 1) {
                        tailBytes = changed.length; // the run, if any, is in the node now
                        clearRun();
                    }
                    deleted++;
                    length--;
                    if (target.compareTo(maxDeleted) > 0) {
                        maxDeleted = target;
                    }
                    firstGone |= target.equals(firstId);
                    dropEmptyEnds(dropped);
                    break;
                }
            }
        }
        if (deleted > 0) {
            if (firstGone || length == 0) {
                StreamNode.Entry e = edge(false);
                firstId = e == null ? StreamId.MIN : e.id();
            }
            commit();
            removeNodes(dropped);
        }
        return deleted;
    }

    /** Takes nodes with no live entry off both ends of {@code [first, first + count)}, noting their positions in {@code dropped}. */
    private void dropEmptyEnds(List<Long> dropped) {
        while (count > 0 && !hasLive(headsAt(first, node(first)))) {
            dropFirst(dropped, 0);
        }
        while (count > 0 && !hasLive(headsAt(first + count - 1, node(first + count - 1)))) {
            dropped.add(first + count - 1);
            count--;
            clearRun(); // the run was the dropped node's (an empty one, with every entry deleted)
            if (count > 0) {
                tailBytes = elements.get(id, first + count - 1).length;
            }
        }
        if (count == 0) {
            headSkip = 0;
            tailBytes = 0;
            clearRun();
        }
    }

    private static boolean hasLive(List<StreamNode.Entry> es) {
        for (StreamNode.Entry e : es) {
            if (!e.deleted()) {
                return true;
            }
        }
        return false;
    }

    /**
     * XTRIM and XADD's trimming, as Redis 7.0's: whole nodes go from the front while the stream
     * stays at or above {@code maxLen} (or their last ID is below {@code minId}); then, unless
     * {@code approx}, the first node's leading entries until the bound holds. {@code limit} (0:
     * none) bounds the entries a trim removes, whole nodes only. Commits if anything went.
     *
     * @param minId the MINID bound, or null for MAXLEN {@code maxLen}
     * @return the entries removed
     */
    long trim(long maxLen, StreamId minId, boolean approx, long limit) {
        long deleted = 0;
        List<Long> dropped = new ArrayList<>();
        boolean changed = false;
        StreamId newFirst = null; // the first live entry once an exact trim stops inside the first node
        while (count > 0) {
            if (minId == null && length <= maxLen) {
                break;
            }
            if (approx && minId == null) {
                // ~ MAXLEN drops whole nodes or nothing: their live counts decide, kept with the cached
                // first node (an XADD MAXLEN ~ on a stream at its bound asks on every call)
                long live = firstLive();
                if (limit > 0 && deleted + live > limit || length - live < maxLen) {
                    break;
                }
                dropFirst(dropped, live);
                deleted += live;
                changed = true;
                continue;
            }
            if (minId == null && !approx && limit == 0) {
                // exact MAXLEN (never with a LIMIT), on every XADD at its bound: one walk, no list
                byte[] raw = node(first);
                long drop = length - maxLen;
                StreamNode.Cut cut = StreamNode.cut(raw, headSkip, drop);
                if (cut == null || cut.nextLive() == null) {
                    // no more live entries than are to go: the whole node goes
                    long live = cut == null ? StreamNode.live(raw, headSkip) : drop;
                    dropFirst(dropped, live);
                    deleted += live;
                    changed = true;
                    continue;
                }
                headSkip += cut.passed();
                length -= drop;
                deleted += drop;
                changed = true;
                newFirst = cut.nextLive();
                break;
            }
            List<StreamNode.Entry> es = headsAt(first, node(first));
            long live = 0;
            for (StreamNode.Entry e : es) {
                live += e.deleted() ? 0 : 1;
            }
            if (limit > 0 && deleted + live > limit) {
                break;
            }
            boolean whole = minId == null ? length - live >= maxLen
                    : es.isEmpty() || es.getLast().id().compareTo(minId) < 0;
            if (whole) {
                dropFirst(dropped, live);
                deleted += live;
                changed = true;
                continue;
            }
            if (approx) {
                break;
            }
            long skip = 0;
            for (StreamNode.Entry e : es) {
                if (minId == null ? length <= maxLen : e.id().compareTo(minId) >= 0) {
                    break;
                }
                skip++;
                if (!e.deleted()) {
                    length--;
                    deleted++;
                }
            }
            if (skip > 0) {
                headSkip += skip;
                changed = true;
            }
            for (int i = (int) skip; i < es.size() && newFirst == null; i++) {
                newFirst = es.get(i).deleted() ? null : es.get(i).id();
            }
            break;
        }
        if (changed) {
            if (count == 0) {
                headSkip = 0;
                tailBytes = 0;
                clearRun();
            }
            if (newFirst != null) {
                firstId = newFirst; // what edge(false) would find, without reading the node again
            } else {
                StreamNode.Entry e = edge(false);
                firstId = e == null ? StreamId.MIN : e.id();
            }
            commit();
            removeNodes(dropped);
        }
        return deleted;
    }

    /** XSETID: the last ID, and optionally entries-added and max-deleted-entry-id (null to keep). Commits. */
    void setId(StreamId lastId, Long entriesAdded, StreamId maxDeletedId) {
        last = lastId;
        if (entriesAdded != null) {
            added = entriesAdded;
        }
        if (maxDeletedId != null) {
            maxDeleted = maxDeletedId;
        }
        commit();
    }

    /** Takes the first node, with its {@code live} entries, off the stream; its position goes in {@code dropped}. */
    private void dropFirst(List<Long> dropped, long live) {
        dropped.add(first);
        first++;
        count--;
        headSkip = 0;
        length -= live;
    }

    private void removeNodes(List<Long> positions) {
        for (long p : positions) {
            elements.remove(id, p);
            elements.streamEnds().forget(id, p);
            elements.streamBases().forget(id, p);
        }
    }

    /**
     * Copies this stream to {@code toKey} in {@code to} (maybe another database) under a new id,
     * with deadline {@code at}: COPY's and MOVE's O(n), as Redis's are. The caller holds both keys' locks.
     */
    void copyTo(KeyValueStore to, byte[] toKey, long at) {
        ListElements dst = to.elements(true);
        long newId = dst.newId(toKey);
        dst.wrote();
        long lastBytes = 0;
        for (long i = 0; i < count; i++) {
            byte[] node = node(first + i);
            dst.put(newId, i, node);
            dst.streamBases().put(newId, i, StreamNode.base(node));
            dst.wrote();
            lastBytes = node.length;
        }
        for (long i = 0; i < auxCount; i++) {
            byte[] v = aux(i);
            if (v != null) {
                dst.put(newId, StreamLayout.AUX_BASE + i, v);
                dst.wrote();
            }
        }
        byte[] h = header(newId, 0, lastBytes, NO_RUN, 0); // the copy's last node holds the run
        to.set(toKey, h, 0, h.length, at, StoredValue.STREAM);
    }

    /** RENAME to {@code toKey}: only the header moves, whole or not at all after a kill ({@link HeaderRename}). */
    void renameTo(byte[] toKey) {
        HeaderRename.run(store, elements, id, key, toKey,
                () -> {
                    byte[] h = header(id, first, tailBytes, run, runEntries);
                    store.set(toKey, h, 0, h.length, expireAt, StoredValue.STREAM);
                });
    }

    /** Removes the stream: its header, then its nodes, auxiliary entries and root. */
    void delete() {
        store.delete(key);
        for (long i = 0; i < auxCount; i++) {
            elements.streamAux().forget(id, i);
            elements.remove(id, StreamLayout.AUX_BASE + i);
        }
        elements.drop(id, first, first + count);
        elements.streamEnds().forget(id, first);
        elements.streamEnds().forget(id, first + count - 1);
    }

    /**
     * Stores {@code dumped} as the stream under {@code key} with deadline {@code at}, replacing
     * what the key held (RESTORE, import-rdb): nodes of up to {@code nodeMaxEntries} under a new
     * id, its consumer groups' entries ({@link StreamGroups#stage}), then the header.
     */
    static void load(KeyValueStore store, byte[] key, RdbStreams.Stream dumped, long at, long nodeMaxEntries) {
        List<StreamNode.Entry> entries = new ArrayList<>(dumped.entries().size());
        for (RdbStreams.Entry e : dumped.entries()) {
            entries.add(new StreamNode.Entry(new StreamId(e.ms(), e.seq()), e.fields(), false, -1));
        }
        StoredStream s = stage(store, key, entries, new StreamId(dumped.lastMs(), dumped.lastSeq()), dumped.entriesAdded(),
                new StreamId(dumped.maxDeletedMs(), dumped.maxDeletedSeq()), at, nodeMaxEntries);
        // Redis's recorded first ID, which may lag behind an XDEL of the first entry
        s.firstId = new StreamId(dumped.firstMs(), dumped.firstSeq());
        StreamGroups.stage(s, GroupsDump.from(dumped.consumerGroups()));
        s.commit();
    }

    /**
     * Writes {@code entries} as the nodes of a new stream for {@code key} with deadline {@code at},
     * nodes of up to {@code nodeMaxEntries} under a new id; the key still holds what it held until
     * the caller's {@link #commit} writes the header.
     *
     * @return the stream staged
     */
    private static StoredStream stage(KeyValueStore store, byte[] key, List<StreamNode.Entry> entries, StreamId lastId,
                             long entriesAdded, StreamId maxDeletedId, long at, long nodeMaxEntries) {
        StoredStream s = create(store, key);
        s.expireAt = at;
        int per = (int) Math.max(1, Math.min(nodeMaxEntries <= 0 ? StreamLayout.DEFAULT_NODE_MAX_ENTRIES : nodeMaxEntries,
                1 << 16));
        for (int i = 0; i < entries.size(); i += per) {
            byte[] node = StreamNode.of(entries.subList(i, Math.min(entries.size(), i + per)));
            s.elements.put(s.id, s.count, node);
            s.elements.streamBases().put(s.id, s.count++, StreamNode.base(node));
            s.tailBytes = node.length;
        }
        s.length = entries.size();
        s.firstId = entries.isEmpty() ? StreamId.MIN : entries.getFirst().id();
        s.last = lastId;
        s.added = entriesAdded;
        s.maxDeleted = maxDeletedId;
        return s;
    }

    /** @return this stream as a dump holds it (DUMP), with its consumer groups */
    RdbStreams.Stream dumped() {
        List<RdbStreams.Entry> entries = new ArrayList<>((int) Math.min(length, 1 << 20));
        for (StreamNode.Entry e : range(StreamId.MIN, StreamId.MAX, -1, false)) {
            entries.add(new RdbStreams.Entry(e.id().ms(), e.id().seq(), e.fields()));
        }
        return new RdbStreams.Stream(entries, last.ms(), last.seq(), firstId.ms(), firstId.seq(), maxDeleted.ms(),
                maxDeleted.seq(), added, StreamGroups.of(this).size(), GroupsDump.of(StreamGroups.of(this).all()));
    }

    /**
     * @return the nodes as stored, for DUMP: each with its entries deleted or not (those a trim
     *     skipped at the head deleted too), as Redis keeps them in its nodes; a node with no live
     *     entry left out, as Redis frees one
     */
    List<RdbStreams.Node> dumpedNodes() {
        List<RdbStreams.Node> out = new ArrayList<>((int) Math.min(count, 1 << 20));
        for (long i = 0; i < count; i++) {
            List<StreamNode.Entry> es = StreamNode.entries(node(first + i));
            List<RdbStreams.Entry> entries = new ArrayList<>(es.size());
            boolean[] deleted = new boolean[es.size()];
            boolean live = false;
            for (int k = 0; k < es.size(); k++) {
                StreamNode.Entry e = es.get(k);
                entries.add(new RdbStreams.Entry(e.id().ms(), e.id().seq(), e.fields()));
                deleted[k] = e.deleted() || i == 0 && k < headSkip;
                live |= !deleted[k];
            }
            if (live) {
                out.add(new RdbStreams.Node(entries, deleted));
            }
        }
        return out;
    }

    /** Writes the header: the commit point of every change. */
    void commit() {
        pending = false;
        HeaderBuffer buf = HeaderBuffer.mine();
        int n = headerLength(run);
        putHeader(buf.room(n), HeaderBuffer.AT, id, first, tailBytes, run, runEntries);
        buf.store(store, key, n, expireAt, StoredValue.STREAM);
    }

    /** @return the bytes of a header with the tail run {@code withRun} */
    private static int headerLength(byte[] withRun) {
        return withRun.length == 0 ? StreamLayout.HEADER_LENGTH : StreamLayout.RUN_OFFSET + withRun.length;
    }

    /** @return the header of this stream under collection {@code withId} from node {@code withFirst}, with the last node's committed bytes and run given */
    private byte[] header(long withId, long withFirst, long withTailBytes, byte[] withRun, long withRunEntries) {
        byte[] h = new byte[headerLength(withRun)];
        putHeader(h, 0, withId, withFirst, withTailBytes, withRun, withRunEntries);
        return h;
    }

    /** Writes {@link #header}'s bytes into {@code h} at {@code o}. */
    private void putHeader(byte[] h, int o, long withId, long withFirst, long withTailBytes, byte[] withRun,
                           long withRunEntries) {
        StreamLayout.putLong(h, o + StreamLayout.ID_OFFSET, withId);
        StreamLayout.putLong(h, o + StreamLayout.FIRST_OFFSET, withFirst);
        StreamLayout.putLong(h, o + StreamLayout.COUNT_OFFSET, count);
        StreamLayout.putLong(h, o + StreamLayout.LENGTH_OFFSET, length);
        StreamLayout.putLong(h, o + StreamLayout.LAST_MS_OFFSET, last.ms());
        StreamLayout.putLong(h, o + StreamLayout.LAST_SEQ_OFFSET, last.seq());
        StreamLayout.putLong(h, o + StreamLayout.MAX_DELETED_MS_OFFSET, maxDeleted.ms());
        StreamLayout.putLong(h, o + StreamLayout.MAX_DELETED_SEQ_OFFSET, maxDeleted.seq());
        StreamLayout.putLong(h, o + StreamLayout.ENTRIES_ADDED_OFFSET, added);
        StreamLayout.putLong(h, o + StreamLayout.FIRST_MS_OFFSET, firstId.ms());
        StreamLayout.putLong(h, o + StreamLayout.FIRST_SEQ_OFFSET, firstId.seq());
        StreamLayout.putLong(h, o + StreamLayout.HEAD_SKIP_OFFSET, headSkip);
        StreamLayout.putLong(h, o + StreamLayout.TAIL_BYTES_OFFSET, withTailBytes);
        StreamLayout.putLong(h, o + StreamLayout.AUX_COUNT_OFFSET, auxCount);
        StreamLayout.putLong(h, o + StreamLayout.GROUPS_STATE_OFFSET, groupsState);
        if (withRun.length > 0) {
            StreamLayout.putLong(h, o + StreamLayout.RUN_ENTRIES_OFFSET, withRunEntries);
            System.arraycopy(withRun, 0, h, o + StreamLayout.RUN_OFFSET, withRun.length);
        }
    }
}
