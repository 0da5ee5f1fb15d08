package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * A big list in memory: its header's fields and runs ({@link ListLayout}: head run, nodes
 * {@code [headNode, endNode)} in the element map, tail run), changed by a command and then written
 * back by {@link StoredList} as the commit point. Nodes are written before the header that holds
 * them and removed after the header that gave them up, so a kill at any moment leaves the list as
 * before or as after the change, and at worst nodes outside the header's range, which
 * {@link ListCollector} frees.
 *
 * <p>A push adds to its end's run, which the header carries; a run that would pass
 * {@link ListLayout#RUN_BYTES} goes to a node first, and an element of more than
 * {@link ListLayout#OWN_NODE_BYTES} is a node alone. A pop takes from its end's run, or brings the
 * next node into the run when the run is empty. Nodes hold runs of different lengths, so reaching
 * an element in the middle reads the nodes from the nearer end, as Redis's quicklist walks its
 * nodes.
 */
final class ListNodes {

    private final ListElements elements;
    private final long id;
    private long headNode;
    private long endNode;
    private long count;
    private long sets;
    private PackedRun head;
    private PackedRun tail;
    /** The node whose elements are at its moved position ({@link ListLayout#movedPosition}), or {@link ListLayout#NOT_MOVED}. */
    private long moved;
    /** Nodes a take brought into a run: removed once the header without them is written. */
    private final List<Long> taken = new ArrayList<>(); // no array until a take needs one: most commands take no node
    /** Positions of copies of a node that no header will look at once this one is written: removed after it. */
    private final List<Long> retired = new ArrayList<>();

    private ListNodes(ListElements elements, long id, long headNode, long endNode, long count, long sets,
                      PackedRun head, PackedRun tail, long moved) {
        this.elements = elements;
        this.id = id;
        this.headNode = headNode;
        this.endNode = endNode;
        this.count = count;
        this.sets = sets;
        this.head = head;
        this.tail = tail;
        this.moved = moved;
    }

    /**
     * @return the big list whose header is {@code b[at, at + length)}
     * @throws IllegalStateException if the header does not hold together
     */
    static ListNodes read(ListElements elements, byte[] b, int at, int length) {
        long id = ListLayout.getLong(b, at + ListLayout.ID_OFFSET);
        long headNode = ListLayout.getLong(b, at + ListLayout.HEAD_NODE_OFFSET);
        long count = ListLayout.getLong(b, at + ListLayout.COUNT_OFFSET);
        long sets = ListLayout.getLong(b, at + ListLayout.SETS_OFFSET);
        long endNode = ListLayout.getLong(b, at + ListLayout.END_NODE_OFFSET);
        int headBytes = ListLayout.getShort(b, at + ListLayout.HEAD_BYTES_OFFSET);
        int headCount = ListLayout.getShort(b, at + ListLayout.HEAD_COUNT_OFFSET);
        int tailField = ListLayout.getInt(b, at + ListLayout.TAIL_COUNT_OFFSET);
        int tailCount = tailField & ~ListLayout.MOVED_FLAG;
        long moved = ListLayout.movedNode(b, at, length);
        boolean flagged = (tailField & ListLayout.MOVED_FLAG) != 0;
        int runs = at + ListLayout.NODES_HEADER_LENGTH;
        int end = at + length - (flagged ? ListLayout.MOVED_BYTES : 0);
        long middle = count - headCount - tailCount;
        PackedRun.Origin what = new PackedRun.Origin("big list header of id=", id, true);
        if (middle < 0 || endNode < headNode || (middle == 0) != (endNode == headNode) || headBytes > end - runs
                || flagged && (moved < headNode || moved >= endNode)) {
            throw new IllegalStateException(what.get() + " of length=" + length + " does not hold together (count=" + count
                    + ", runs of " + headCount + " and " + tailCount + ", nodes [" + headNode + ", " + endNode
                    + ")): the map file is damaged; run 'colossal repair'");
        }
        // 0 for a head run's length is one an LSET made longer than the field holds, or a header
        // written before the length was kept: walk the run to find its end.
        PackedRun head = headBytes == 0 && headCount > 0 ? PackedRun.read(b, runs, end, headCount, what)
                : PackedRun.of(b, runs, runs + headBytes, headCount, what);
        PackedRun tail = PackedRun.of(b, runs + head.length(), end, tailCount, what);
        return new ListNodes(elements, id, headNode, endNode, count, sets, head, tail, moved);
    }

    /**
     * @return a new big list of {@code all} for {@code owner}, under a new id whose nodes are
     *         written now (uncommitted: garbage until a header holds them), every element in a
     *         node and neither run in the header: a list made big by pushes at its head (LPUSH)
     *         otherwise carried the last node's worth in its tail run in every header it wrote
     *         after, up to {@link ListLayout#RUN_BYTES} more bytes copied and summed per push
     */
    static ListNodes create(ListElements elements, byte[] owner, List<byte[]> all, long sets) {
        long id = elements.newId(owner);
        elements.wrote();
        ListNodes l = new ListNodes(elements, id, 0, 0, 0, sets, PackedRun.empty(), PackedRun.empty(), ListLayout.NOT_MOVED);
        for (byte[] v : all) {
            l.push(false, v);
        }
        if (l.tail.count() > 0) {
            l.writeNode(l.endNode++, l.tail);
            l.tail = PackedRun.empty();
        }
        return l;
    }

    long id() {
        return id;
    }

    long count() {
        return count;
    }

    /** @return the entries it has in the element map but its root: nodes, count entries and a moved node's copy */
    long entries() {
        return endNode - headNode + endCounts() - firstCounts() + (moved == ListLayout.NOT_MOVED ? 0 : 1);
    }

    /** @return LSETs so far (WATCH sees a change by the header's bytes) */
    long sets() {
        return sets;
    }

    /** @return the header's payload */
    byte[] header() {
        return header(id, moved);
    }

    /** @return the header's payload's length */
    int headerLength() {
        return headerLength(moved);
    }

    private int headerLength(long withMoved) {
        return ListLayout.NODES_HEADER_LENGTH + head.length() + tail.length() + (withMoved != ListLayout.NOT_MOVED ? ListLayout.MOVED_BYTES : 0);
    }

    /**
     * Writes the header's payload at {@code at} of {@code b}, which has {@link #headerLength} bytes
     * there: a commit's header goes through a buffer the thread keeps ({@link HeaderBuffer}), not
     * an array made per write.
     *
     * @return its length
     */
    int header(byte[] b, int at) {
        return header(b, at, id, moved);
    }

    private byte[] header(long withId, long withMoved) {
        byte[] b = new byte[headerLength(withMoved)];
        header(b, 0, withId, withMoved);
        return b;
    }

    private int header(byte[] b, int at, long withId, long withMoved) {
        boolean flagged = withMoved != ListLayout.NOT_MOVED;
        int length = headerLength(withMoved);
        ListLayout.putLong(b, at + ListLayout.ID_OFFSET, withId);
        ListLayout.putLong(b, at + ListLayout.HEAD_NODE_OFFSET, headNode);
        ListLayout.putLong(b, at + ListLayout.COUNT_OFFSET, count);
        ListLayout.putLong(b, at + ListLayout.SETS_OFFSET, sets);
        ListLayout.putLong(b, at + ListLayout.END_NODE_OFFSET, endNode);
        ListLayout.putShort(b, at + ListLayout.HEAD_BYTES_OFFSET, head.length() > 0xFFFF ? 0 : head.length());
        ListLayout.putShort(b, at + ListLayout.HEAD_COUNT_OFFSET, head.count());
        ListLayout.putInt(b, at + ListLayout.TAIL_COUNT_OFFSET, tail.count() | (flagged ? ListLayout.MOVED_FLAG : 0));
        tail.copyTo(b, head.copyTo(b, at + ListLayout.NODES_HEADER_LENGTH));
        if (flagged) {
            ListLayout.putLong(b, at + length - ListLayout.MOVED_BYTES, withMoved);
        }
        return length;
    }

    private long middle() {
        return count - head.count() - tail.count();
    }

    /** Adds {@code v} at the head ({@code left}) or the tail. */
    void push(boolean left, byte[] v) {
        int size = PackedRun.sizeOf(v);
        PackedRun run = left ? head : tail;
        if (run.count() > 0 && (size > ListLayout.OWN_NODE_BYTES || run.length() + size > ListLayout.RUN_BYTES)) {
            writeNode(left ? --headNode : endNode++, run);
            run = PackedRun.empty();
        }
        if (size > ListLayout.OWN_NODE_BYTES) {
            PackedRun alone = PackedRun.empty();
            alone.append(v);
            writeNode(left ? --headNode : endNode++, alone);
        } else if (left) {
            run.prepend(v);
        } else {
            run.append(v);
        }
        if (left) {
            head = run;
        } else {
            tail = run;
        }
        count++;
    }

    /**
     * Takes up to {@code k} elements from the head ({@code left}) or the tail, adding them to
     * {@code out} (if not null) in the order taken. The nodes it empties are removed by
     * {@link #removeTaken}, after the header is written.
     */
    void take(boolean left, long k, List<byte[]> out) {
        while (k > 0 && count > 0) {
            PackedRun run = left ? head : tail;
            if (run.count() == 0 && middle() > 0) {
                long n = left ? headNode : endNode - 1;
                PackedRun node = readNode(n);
                if (left) {
                    head = node;
                    headNode++;
                } else {
                    tail = node;
                    endNode--;
                }
                taken.add(n);
                if (n == moved) {
                    retired.add(ListLayout.movedPosition(n));
                    moved = ListLayout.NOT_MOVED;
                }
                continue;
            }
            if (run.count() == 0) {
                run = left ? tail : head; // the other end's run holds what is left
            }
            int t = (int) Math.min(k, run.count());
            if (out != null) {
                int c = run.count();
                run.copyInto(left ? 0 : c - t, left ? t : c, !left, out);
            }
            if (left) {
                run.removeFirst(t);
            } else {
                run.removeLast(t);
            }
            k -= t;
            count -= t;
        }
    }

    /**
     * Removes the nodes {@link #take} emptied, the count entries no node left in the header needs,
     * the copies of a node an LSET replaced, and the collection's root once the list is empty:
     * after the header's write.
     */
    void removeTaken() {
        for (int i = 0; i < retired.size(); i++) { // indexed: no iterator per command
            long p = retired.get(i);
            elements.remove(id, p);
            elements.wrote();
        }
        retired.clear();
        for (int i = 0; i < taken.size(); i++) {
            long n = taken.get(i);
            elements.remove(id, n);
            elements.wrote();
            long counts = ListLayout.countsOf(n);
            if (headNode == endNode || counts < ListLayout.countsOf(headNode) || counts > ListLayout.countsOf(endNode - 1)) {
                elements.remove(id, counts);
                elements.wrote();
            }
        }
        taken.clear();
        if (count == 0) {
            elements.removeRoot(id);
        }
    }

    /** Hands elements {@code [from, to)} to {@code sink}, in order. */
    void forEach(long from, long to, PackedRun.ElementSink sink) {
        int hc = head.count();
        long middle = middle();
        if (from < hc) {
            head.forEach((int) from, (int) Math.min(to, hc), sink);
        }
        long a = Math.max(from, hc) - hc;
        long b = Math.min(to, hc + middle) - hc;
        if (a < b) {
            Place p = locate(a);
            long n = p.node;
            PackedRun node = p.run;
            int at = p.at;
            for (long left = b - a; ; ) {
                int t = (int) Math.min(left, node.count() - at);
                node.forEach(at, at + t, sink);
                left -= t;
                if (left == 0) {
                    break;
                }
                node = readNode(++n);
                at = 0;
            }
        }
        if (to > hc + middle) {
            tail.forEach((int) (Math.max(from, hc + middle) - hc - middle), (int) (to - hc - middle), sink);
        }
    }

    /**
     * Hands every element to {@code test}, in order or last first if {@code backward}, until it
     * answers true: one read per node, where {@link #get} at each index would walk to each.
     */
    void scan(boolean backward, PackedRun.ElementTest test) {
        if ((backward ? tail : head).scan(backward, test)) {
            return;
        }
        for (long i = 0; i < endNode - headNode; i++) {
            if (readNode(backward ? endNode - 1 - i : headNode + i).scan(backward, test)) {
                return;
            }
        }
        (backward ? head : tail).scan(backward, test);
    }

    /** @return element {@code index} */
    byte[] get(long index) {
        byte[][] got = new byte[1][];
        forEach(index, index + 1, (b, o, l) -> got[0] = java.util.Arrays.copyOfRange(b, o, o + l));
        return got[0];
    }

    /**
     * Replaces element {@code index} by {@code v}, counted for WATCH: in its run, or its node written
     * anew where the header does not look yet ({@link ListLayout}'s moved node), which the header's
     * write then makes the node's elements; {@link #removeTaken} then removes the copy it replaced.
     */
    void set(long index, byte[] v) {
        int hc = head.count();
        long middle = middle();
        if (index < hc) {
            head.set((int) index, v);
        } else if (index >= hc + middle) {
            tail.set((int) (index - hc - middle), v);
        } else {
            Place p = locate(index - hc);
            p.run.set(p.at, v);
            if (p.node == moved) {
                // its own position holds what it held before it moved: no header looks there now
                elements.put(id, p.node, p.run.toBytes()); // its count stays
                elements.wrote();
                retired.add(ListLayout.movedPosition(p.node));
                moved = ListLayout.NOT_MOVED;
            } else {
                if (moved != ListLayout.NOT_MOVED) {
                    // one node moved at a time: the one moved before goes back to its own position first
                    elements.put(id, moved, readNode(moved).toBytes());
                    elements.wrote();
                    retired.add(ListLayout.movedPosition(moved));
                }
                elements.put(id, ListLayout.movedPosition(p.node), p.run.toBytes());
                elements.wrote();
                moved = p.node;
            }
        }
        sets++;
    }

    /** Writes this list's nodes under a new collection of {@code dst} for {@code owner}; @return the header that holds them there */
    byte[] copyTo(ListElements dst, byte[] owner) {
        long newId = dst.newId(owner);
        dst.wrote();
        for (long n = headNode; n < endNode; n++) {
            dst.put(newId, n, readNode(n).toBytes());
            dst.wrote();
        }
        for (long b = firstCounts(); b < endCounts(); b++) {
            dst.put(newId, b, readCounts(b));
            dst.wrote();
        }
        return header(newId, ListLayout.NOT_MOVED); // each node read where it is, written at its own position
    }

    /** Removes every node, count entry and the root: after the header is gone. */
    void drop() {
        for (long b = firstCounts(); b < endCounts(); b++) {
            elements.remove(id, b);
        }
        if (moved != ListLayout.NOT_MOVED) {
            elements.remove(id, ListLayout.movedPosition(moved));
        }
        elements.drop(id, headNode, endNode);
    }

    private long firstCounts() {
        return headNode == endNode ? 0 : ListLayout.countsOf(headNode);
    }

    private long endCounts() {
        return headNode == endNode ? 0 : ListLayout.countsOf(endNode - 1) + 1;
    }

    /** The node holding the middle's element {@code index}, read from the nearer end, and where in it. */
    private Place locate(long index) {
        long middle = middle();
        if (endNode - headNode > LOCATE_BY_COUNTS) {
            return locateByCounts(index, middle);
        }
        if (index <= middle - index) {
            long j = index;
            for (long n = headNode; ; n++) {
                PackedRun node = readNode(n);
                if (j < node.count()) {
                    return new Place(n, node, (int) j);
                }
                j -= node.count();
            }
        }
        long k = middle - index; // elements from it to the middle's end
        for (long n = endNode - 1; ; n--) {
            PackedRun node = readNode(n);
            if (k <= node.count()) {
                return new Place(n, node, (int) (node.count() - k));
            }
            k -= node.count();
        }
    }

    /** Past this many nodes, {@link #locate} sums the count entries instead of reading nodes. */
    static final int LOCATE_BY_COUNTS = 8;

    /** As {@link #locate}, summing the nodes' counts from the nearer end, then reading the one node. */
    private Place locateByCounts(long index, long middle) {
        boolean forward = index <= middle - index;
        long k = forward ? index : middle - index; // elements to pass: before it, or from it to the end
        long n = forward ? headNode : endNode - 1;
        byte[] counts = null;
        long block = Long.MIN_VALUE;
        for (; n >= headNode && n < endNode; n += forward ? 1 : -1) {
            if (ListLayout.countsOf(n) != block) {
                block = ListLayout.countsOf(n);
                counts = readCounts(block);
            }
            int c = counts[Math.floorMod(n, ListLayout.COUNTS_NODES)] & 0xFF;
            if (forward ? k < c : k <= c) {
                PackedRun node = readNode(n);
                if (node.count() != c) {
                    throw new IllegalStateException(node(n) + " holds " + node.count() + " elements where its count entry says " + c
                            + ": the element map is damaged; run 'colossal repair'");
                }
                return new Place(n, node, (int) (forward ? k : c - k));
            }
            k -= c;
        }
        throw new IllegalStateException("big list of id=" + Long.toHexString(id) + " in " + elements.path()
                + ": its nodes' counts add up to less than its header's; the element map is damaged; run 'colossal repair'");
    }

    private byte[] readCounts(long block) {
        byte[] counts = elements.get(id, block);
        if (counts == null || counts.length != ListLayout.COUNTS_NODES) {
            throw new IllegalStateException("big list count entry " + block + " of id=" + Long.toHexString(id) + " in "
                    + elements.path() + " is " + (counts == null ? "missing" : "of length " + counts.length)
                    + ": the element map is damaged; run 'colossal repair'");
        }
        return counts;
    }

    private record Place(long node, PackedRun run, int at) {}

    private PackedRun readNode(long n) {
        if (n < headNode || n >= endNode) {
            throw new IllegalStateException(node(n) + " is not among its header's [" + headNode + ", " + endNode
                    + "): the runs' counts do not add up; the map file is damaged; run 'colossal repair'");
        }
        byte[] v = elements.get(id, n == moved ? ListLayout.movedPosition(n) : n);
        if (v == null) {
            throw new IllegalStateException(node(n) + " is missing: the element map is damaged; run 'colossal repair'");
        }
        return PackedRun.read(v, 0, v.length, -1, new NodeName(this, n));
    }

    /** Names node {@code node} for the message of damage a walk of it finds: a record, not a lambda per read ({@link PackedRun.Origin}). */
    private record NodeName(ListNodes list, long node) implements java.util.function.Supplier<String> {
        @Override
        public String get() {
            return list.node(node);
        }
    }

    private String node(long n) {
        return "big list node " + n + " of id=" + Long.toHexString(id) + " in " + elements.path();
    }

    /** Writes node {@code n}, then its count into its count entry: both before the header that holds it. */
    private void writeNode(long n, PackedRun run) {
        taken.remove((Long) n); // a number a take gave up and a push took again is a node again
        elements.put(id, n, run.toBytes());
        elements.wrote();
        if (run.count() > 0xFF) {
            throw new IllegalStateException("a big list's node of " + run.count() + " elements: more than a count entry holds");
        }
        long block = ListLayout.countsOf(n);
        byte[] counts = elements.get(id, block);
        if (counts == null || counts.length != ListLayout.COUNTS_NODES) {
            counts = new byte[ListLayout.COUNTS_NODES];
        }
        counts[Math.floorMod(n, ListLayout.COUNTS_NODES)] = (byte) run.count();
        elements.put(id, block, counts);
        elements.wrote();
    }
}
