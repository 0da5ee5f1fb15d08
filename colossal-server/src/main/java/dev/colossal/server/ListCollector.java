package dev.colossal.server;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * Frees list elements no header holds any more: one thread that walks each database's element map
 * ({@link ListElements}) and removes an element whose collection's owner key, under that key's
 * lock, has no header with that id, or whose position is outside the header's
 * {@code [first, first + count)} (a big list's nodes: {@code [headNode, endNode)}, their
 * count entries and the copy of the node an LSET moved); an element
 * without a root, and a root no header holds, go too.
 * Stream nodes ({@link StreamLayout}) are freed the same way: a stream header holds its nodes'
 * positions and its auxiliary entries' (consumer groups' state); nothing else of its id is kept.
 * A chunked string's chunks ({@link BigStringLayout}) too: its header holds chunks
 * {@code [0, ceil(length / chunk))}; the header is read as stored ({@link KeyValueStore#raw}).
 * So DEL, UNLINK, SET over a list, expiry, eviction, FLUSHDB, RENAME over a list and what a crash
 * left all free their elements without a read on SET's path or an O(n) step in the command.
 *
 * <p>A removal that has the value in hand (DEL, UNLINK, expiry, eviction) queues its header, and
 * each tick frees those collections alone ({@link #freeNow}, {@link MapStore#freeRemoved}), as an
 * eviction and the bound's look do at once. A walk reads each entry once, so its cost grows with
 * the elements stored, and it runs only when garbage may have appeared: soon after a removal whose
 * elements could not be freed so ({@link MapStore#elementsDropped}: FLUSHDB, a lock in use, a
 * queue full; at most one walk per
 * {@link #DROPPED_COST_SHARE} times the last one's CPU time), and otherwise only if the database
 * changed at all ({@link MapStore#changeStamp}: SET over a list, eviction), after a pause of
 * {@link #QUIET_COST_SHARE} times the last walk's CPU time, between {@link #MIN_QUIET_MILLIS} and
 * {@link #MAX_QUIET_MILLIS}. An idle server walks nothing, a busy one spends a small share of a core.
 * The first look at each database walks it: what a crash left.
 */
final class ListCollector implements AutoCloseable {

    /** How often the collector looks whether a walk is due. */
    static final long TICK_MILLIS = 500;
    /** After a walk of CPU time d, a removal that dropped a list waits d times this for the next one. */
    static final long DROPPED_COST_SHARE = 10;
    /** After a walk of CPU time d, other writes wait d times this (within the bounds below) for the next one. */
    static final long QUIET_COST_SHARE = 50;
    static final long MIN_QUIET_MILLIS = 4_000;
    static final long MAX_QUIET_MILLIS = 60_000;
    /** Entries a step reads before it checks what it found under the owners' locks. */
    private static final int STEP = 4096;
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Databases dbs;
    /** Served after each check: a header a check read past its deadline is removed then, and told as an expiry. */
    private final KeyWaits waits;
    private final Thread thread;
    private volatile boolean running = true;
    /** Elements and roots freed since start. */
    private volatile long freed;
    /** Walks since start. */
    private volatile long walks;

    ListCollector(Databases dbs, KeyWaits waits) {
        this.dbs = dbs;
        this.waits = waits;
        this.thread = new Thread(this::run, "colossal-list-collector");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** @return elements and roots freed since start */
    long freed() {
        return freed;
    }

    /** @return walks of element maps since start */
    long walks() {
        return walks;
    }

    private void run() {
        Map<MapStore, Pace> paces = new java.util.IdentityHashMap<>();
        while (running) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            for (MapStore m : dbs.openMaps()) {
                ListElements e = m.elements(false);
                if (e != null && e.size() > 0 && running) {
                    try {
                        m.freeRemoved();
                        paces.computeIfAbsent(m, x -> new Pace()).walkIfDue(this, m, e);
                    } catch (RuntimeException ex) {
                        if (!running) {
                            return; // the maps closed under the walk at shutdown
                        }
                        System.err.println("colossal: list collector stopped a walk of " + ListElements.fileFor(m.path())
                                + " after an error, and will walk it again: " + ex);
                    }
                }
            }
            paces.keySet().retainAll(dbs.openMaps()); // a database SWAPDB or a close replaced
        }
    }

    /** When one database was last walked, what it cost, and whether anything was written since. */
    private static final class Pace {
        private static final long NEVER = Long.MIN_VALUE;
        private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

        /** @return this thread's CPU time, or -1 where the JVM cannot tell (then a walk's wall time counts) */
        private static long cpuNanos() {
            return CPU.isCurrentThreadCpuTimeSupported() ? CPU.getCurrentThreadCpuTime() : -1;
        }
        /** The change stamp at the start of the last walk that freed nothing. */
        long cleanStamp = NEVER;
        boolean walked;
        long lastEnd;
        long lastNanos;

        void walkIfDue(ListCollector c, MapStore m, ListElements e) {
            long now = System.nanoTime();
            long since = now - lastEnd;
            long stamp = m.changeStamp();
            long quiet = Math.clamp(lastNanos * QUIET_COST_SHARE, MIN_QUIET_MILLIS * 1_000_000, MAX_QUIET_MILLIS * 1_000_000);
            boolean due = !walked
                    || m.elementsDropped() && since >= lastNanos * DROPPED_COST_SHARE
                    || stamp != cleanStamp && since >= quiet;
            if (!due) {
                return;
            }
            m.clearElementsDropped(); // before the walk: a list dropped during it is looked for again
            walked = true;
            long before = c.freed;
            c.walks++;
            long cpu = cpuNanos();
            c.walk(m, e);
            lastEnd = System.nanoTime();
            // What the walk cost is its CPU: on a loaded machine its wall time stretched the pause
            // after it to a minute, and the garbage of a SET over a list waited that long
            lastNanos = cpu < 0 ? lastEnd - now : cpuNanos() - cpu;
            // A walk that freed something changed the stamp itself; one more that frees nothing settles it.
            cleanStamp = c.freed == before ? stamp : NEVER;
        }
    }

    /** One walk over {@code e}, the element map of {@code m}. */
    void walk(MapStore m, ListElements e) {
        // What each id held when last looked at under its owner's lock: {first, end}, or null for
        // garbage. Elements inside a live range need no second look; a range may since have
        // shrunk, and what that left is found by the next walk.
        Map<Long, long[]> live = new HashMap<>();
        long cursor = 0;
        do {
            Map<Long, List<Long>> found = new LinkedHashMap<>();
            cursor = e.scan(cursor, STEP, (k, v) -> {
                if (k.byteSize() == ListLayout.ELEMENT_KEY_LENGTH) {
                    long id = k.get(LONG_BE, ListLayout.ID_OFFSET);
                    long pos = k.get(LONG_BE, ListLayout.POSITION_OFFSET);
                    long[] range = live.get(id);
                    if (range == null || !inside(range, pos)) {
                        found.computeIfAbsent(id, x -> new ArrayList<>()).add(pos);
                    }
                } else if (k.byteSize() == ListLayout.ROOT_KEY_LENGTH) {
                    found.computeIfAbsent(k.get(LONG_BE, ListLayout.ID_OFFSET), x -> new ArrayList<>());
                }
                return false;
            }, m::damaged);
            for (Map.Entry<Long, List<Long>> f : found.entrySet()) {
                check(m, e, f.getKey(), f.getValue(), live);
            }
            waits.serveReady(); // a stream whose header the check found expired (and so removed) ends its blocked XREADGROUPs
        } while (cursor != 0 && running);
    }

    /** Removes those of {@code positions} of collection {@code id} its owner's header does not hold, and its root if no header holds it. */
    private void check(MapStore m, ListElements e, long id, List<Long> positions, Map<Long, long[]> live) {
        byte[][] owners = e.owners(id);
        if (owners == null) {
            // No root: an element is written after its root, so no one is writing this collection.
            remove(e, id, positions);
            return;
        }
        Lock[] ls = m.locks(owners);
        StringCommands.lockAll(ls);
        try {
            byte[][] now = e.owners(id);
            if (now == null || !java.util.Arrays.deepEquals(now, owners)) {
                return; // RENAME moved it meanwhile: the next walk looks again
            }
            long[] range = heldByOwners(m, owners, id);
            if (range == null) {
                remove(e, id, positions);
                e.removeRoot(id);
                freed++;
                live.put(id, new long[] {0, 0});
                return;
            }
            live.put(id, range);
            List<Long> outside = new ArrayList<>();
            for (long p : positions) {
                if (!inside(range, p)) {
                    outside.add(p);
                }
            }
            remove(e, id, outside);
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /**
     * Frees now, on the caller's thread, the elements of a removed or evicted value's collection,
     * so that a bound counting them ({@link MemoryBudget}) sees them go with the key rather than
     * at the next walk, whose cost grows with everything stored. Decided as a walk decides: under
     * the owners' locks, only if no owner's header holds the collection; then freed without them,
     * as no header can come to hold it again (ids are not reused, and only a header hands one
     * on). A lock held by the caller (its own key being written, which may be the victim and is
     * about to get its header back) or by another thread is not waited for: the collection is left
     * to the next walk.
     *
     * @param header the value's header, in {@link #held}'s form
     * @return whether nothing is left for a walk: freed, held by a header, or not a collection of elements
     */
    static boolean freeNow(MapStore m, ListElements e, KeyValueStore.Entry header) {
        long id = idOf(header);
        long[] ranges = held(header, id);
        if (ranges == null) {
            return true;
        }
        byte[][] owners = e.owners(id);
        if (owners == null) {
            return false;   // no root: written before its header, or already freed; a walk decides
        }
        Lock[] ls = m.locks(owners);
        int locked = 0;
        try {
            for (Lock l : ls) {
                if (l instanceof java.util.concurrent.locks.ReentrantLock r && r.isHeldByCurrentThread() || !l.tryLock()) {
                    return false;
                }
                locked++;
            }
            if (!java.util.Arrays.deepEquals(e.owners(id), owners)) {
                return false;
            }
            if (heldByOwners(m, owners, id) != null) {
                return true;   // RENAME moved it under a new name, or a write kept it: held, not garbage
            }
        } finally {
            for (int i = 0; i < locked; i++) {
                ls[i].unlock();
            }
        }
        for (int i = 0; i < ranges.length; i += 2) {
            e.drop(id, ranges[i], ranges[i + 1]);   // each drop removes the root after its elements: a crash leaves a walk's work
        }
        return true;
    }

    /** @return what an owner's header holds of collection {@code id} ({@link #held}), null if none does; under the owners' locks */
    private static long[] heldByOwners(MapStore m, byte[][] owners, long id) {
        long[] range = null;
        for (byte[] owner : owners) {
            KeyValueStore.Entry h = m.raw(owner); // a chunked string's header, not its bytes
            long[] held = h == null ? null : held(h, id);
            if (held != null) {
                range = held;
            }
        }
        return range;
    }

    /**
     * The positions header {@code h} holds of collection {@code id}: {@code {first, end}} for a
     * list's elements or a chunked string's chunks ({@link KeyValueStore#raw}'s header); {@code {first, end, auxFirst, auxEnd}} for a stream's nodes and its
     * auxiliary entries (consumer groups' state, {@link StreamLayout#AUX_BASE}).
     *
     * @return the ranges, or null if {@code h} is no header of {@code id}
     */
    static long[] held(KeyValueStore.Entry h, long id) {
        byte[] b = h.array();
        int o = h.offset();
        if (h.type() == StoredValue.LIST && h.length() == ListLayout.HEADER_LENGTH
                && ListLayout.getLong(b, o + ListLayout.ID_OFFSET) == id) {
            long first = ListLayout.getLong(b, o + ListLayout.FIRST_OFFSET);
            return new long[] {first, first + ListLayout.getLong(b, o + ListLayout.COUNT_OFFSET)};
        }
        if (h.type() == StoredValue.LIST && ListLayout.hasNodes(b, o, h.length())
                && ListLayout.getLong(b, o + ListLayout.ID_OFFSET) == id) {
            long head = ListLayout.getLong(b, o + ListLayout.HEAD_NODE_OFFSET);
            long end = ListLayout.getLong(b, o + ListLayout.END_NODE_OFFSET);
            if (head == end) {
                return new long[] {head, end};
            }
            long moved = ListLayout.movedNode(b, o, h.length());
            long[] nodes = {head, end, ListLayout.countsOf(head), ListLayout.countsOf(end - 1) + 1};
            return moved == ListLayout.NOT_MOVED ? nodes
                    : new long[] {head, end, nodes[2], nodes[3], ListLayout.movedPosition(moved), ListLayout.movedPosition(moved) + 1};
        }
        if (HashBuckets.hasBuckets(h.type())) {
            return HashBuckets.held(h, id);
        }
        if (h.type() == StoredValue.ZSET) {
            return ZSetTreeLayout.held(h, id);
        }
        if (h.chunked()) {
            return BigStringLayout.held(h, id);
        }
        if (h.type() == StoredValue.STREAM && h.length() >= StreamLayout.HEADER_LENGTH
                && StreamLayout.getLong(b, o + StreamLayout.ID_OFFSET) == id) {
            long first = StreamLayout.getLong(b, o + StreamLayout.FIRST_OFFSET);
            return new long[] {first, first + StreamLayout.getLong(b, o + StreamLayout.COUNT_OFFSET),
                    StreamLayout.AUX_BASE, StreamLayout.AUX_BASE + StreamLayout.getLong(b, o + StreamLayout.AUX_COUNT_OFFSET)};
        }
        return null;
    }

    /** @return the collection id header {@code h} names, if it is the header of one (else any long) */
    static long idOf(KeyValueStore.Entry h) {
        int at = HashBuckets.isBucketed(h) ? HashBuckets.ID_OFFSET
                : ZSetTreeLayout.isTree(h) ? ZSetTreeLayout.ID_OFFSET : ListLayout.ID_OFFSET;
        return h.length() >= at + Long.BYTES ? ListLayout.getLong(h.array(), h.offset() + at) : 0;
    }

    /** @return whether {@code position} is in one of {@link #held}'s ranges */
    private static boolean inside(long[] ranges, long position) {
        for (int i = 0; i < ranges.length; i += 2) {
            if (position >= ranges[i] && position < ranges[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private void remove(ListElements e, long id, List<Long> positions) {
        for (long p : positions) {
            e.remove(id, p);
        }
        freed += positions.size();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
