package dev.colossal.map;

import static dev.colossal.map.SegmentLayout.BUMP_END;
import static dev.colossal.map.SegmentLayout.BUMP_POS;
import static dev.colossal.map.SegmentLayout.CHUNKS;
import static dev.colossal.map.SegmentLayout.LIVE_ENTRIES;
import static dev.colossal.map.SegmentLayout.LOCK_OWNER;
import static dev.colossal.map.SegmentLayout.MAY_EXPIRE;
import static dev.colossal.map.SegmentLayout.PENDING_BYTES;
import static dev.colossal.map.SegmentLayout.PENDING_EXTENT;
import static dev.colossal.map.SegmentLayout.REPAIRS;
import static dev.colossal.map.SegmentLayout.TABLE;
import static dev.colossal.map.SegmentLayout.TOMBSTONES;
import static dev.colossal.map.SegmentLayout.USED_BLOCKS;
import static dev.colossal.map.SegmentLayout.VERSION;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One segment of the map: its lock, its hash table and its heap. Writers hold the segment's
 * {@link OwnerLock} and keep {@code version} odd while they change anything; readers run
 * optimistically and retry when {@code version} moved (a seqlock), so readers never block each
 * other and never write.
 *
 * <p>Crash safety comes from the order of stores: an entry is written (and checksummed) in free
 * blocks, then published by one release store of its slot; the old entry is freed only after.
 * Counters, free lists and the bump pointer may be left stale by a writer that died; the process
 * that takes its lock over calls {@link #rebuild}, which recomputes them from the table and the
 * chunk list and so also reclaims what the crash leaked.
 */
final class Segment {

    private static final int OPTIMISTIC_ATTEMPTS = 96;
    /** Reads of a read-only map's segment that writers spoilt before it gives up on them. */
    private static final int READ_ONLY_ATTEMPTS = 1000;
    static final long KEY_SEED = 0x436F6C6F7373616CL;

    private final MapFile file;
    private final int shift;
    private final long blockBytes;
    private final long base;
    final int index;
    /** Where the first entry of any segment may lie: the end of the header and the directory. */
    private final long firstEntry;
    private final SegmentHeap heap;
    /** The heap's size at this process's last {@link #defragmentBeforeGrowth}; under the lock. */
    private long heapBlocksAtDefragment;
    /** Set while {@link #evacuate} moves entries; under the lock. */
    private boolean evacuating;
    /** The slot a {@link #store} replaces while it takes blocks, else -1: a purge then must leave it. */
    private long replacing = -1;
    /** Blocks this process took for entries of the segment: paces {@link #purgeIfDue}; under the lock. */
    private long allocatedBlocks;
    /** {@link #allocatedBlocks} at this process's last {@link #purgeIfDue} that removed entries, -1 before the first. */
    private long allocatedAtPurge = -1;
    /**
     * The earliest expiry time of the entries this process's last purge left or its stores wrote
     * since (0 before its first purge): before then nothing it knows of can have expired. Other
     * processes' entries may expire sooner; they purge for those. Under the lock.
     */
    private long earliestExpiry;
    /** Entries this process evicted for room: written under the lock, read by {@link BytesMap#evictions} without it. */
    private volatile long evictions;
    /** The map's segments, this one among them: where {@link #reclaimElsewhere} looks. */
    private Segment[] siblings = {this};
    /** Entries this process removed from the segment, under the lock (see {@link #reclaimElsewhere}). */
    private long removals;
    /** Below this much free space a merge is not worth a scan of the segment. */
    private static final long DEFRAGMENT_MIN_FREE_BLOCKS = 1 << 12;
    /** Whether reads mark their entry for the eviction hand: in a bounded map, unless it is read-only. */
    private final boolean marksReads;

    Segment(MapFile file, int index) {
        this.file = file;
        this.index = index;
        this.shift = file.blockShift;
        this.blockBytes = 1L << shift;
        this.base = FileHeaderLayout.segmentOffset(index);
        this.heap = new SegmentHeap(file, index, base, this::defragmentBeforeGrowth, this::takeExtent);
        this.firstEntry = FileHeaderLayout.directoryEnd(file.segmentCount);
        this.marksReads = file.bounded() && !file.readOnly;
    }

    static long hashKey(MemorySegment key, long offset, long length) {
        return XxHash64.hash(key, offset, length, KEY_SEED);
    }

    // ------------------------------------------------------------------ locking

    /** Takes the segment's lock (taking it over from a dead owner, then repairing) and starts a write. */
    void lock() {
        acquire();
        beginWrite();
    }

    /**
     * Takes the lock if it is free right now, as {@link #lock} does; never waits and never takes
     * a dead owner's lock over (that needs the repair {@code lock} runs).
     *
     * @return true if this thread now holds the lock
     */
    private boolean tryLock() {
        if (file.readOnly || file.holders.get(index) == Thread.currentThread()) {
            return false;
        }
        file.pin(index);
        if (!OwnerLock.tryAcquire(file.mem(), base + LOCK_OWNER)) {
            file.unpin(index);
            return false;
        }
        file.holders.set(index, Thread.currentThread());
        beginWrite();
        return true;
    }

    private void beginWrite() {
        MemorySegment m = file.mem();
        long v = Mem.getLong(m, base + VERSION);
        // A dead writer may have left the version odd; moving to another odd value still tells
        // every reader that started before us to retry. A release store, not a volatile one: the
        // store-store fence is what keeps the writes that follow behind the odd version, and
        // nothing here reads shared state that needs a store-load fence (the lock's CAS was one).
        // The volatile store's full fence cost ~20 ns of a 16-byte put's ~170.
        Mem.setLongRelease(m, base + VERSION, (v & 1) == 0 ? v + 1 : v + 2);
        VarHandle.storeStoreFence();
        heap.lockedAt(v);
        CrashPoints.reach(CrashPoints.LOCKED);
    }

    /** Ends the write and releases the lock. */
    void unlock() {
        MemorySegment m = file.mem();
        long v = Mem.getLong(m, base + VERSION) + 1;
        Mem.setLongRelease(m, base + VERSION, v);
        heap.unlockedAt(v);
        release();
    }

    /**
     * Runs {@code read} (a scan of this segment) on a consistent segment: under the lock, or, in a
     * map opened read-only (which cannot take a lock), between two equal even versions, again while
     * writers keep changing it or a remap closed the mapping it read through. While a live writer
     * holds the lock it waits, however long, as a locked read would. A segment a dead writer left
     * half written cannot be repaired without writing: that throws, saying what repairs it.
     *
     * @throws IllegalStateException if the segment is a dead writer's, or writers changed it under
     *                               {@value #READ_ONLY_ATTEMPTS} reads
     */
    <T> T readConsistently(Supplier<T> read) {
        if (!file.readOnly) {
            lockForRead();
            try {
                return read.get();
            } finally {
                unlockForRead();
            }
        }
        int spoilt = 0;
        long checkedOwner = 0;
        long nextCheck = 0;
        boolean interrupted = false;
        try {
            for (int attempt = 0; ; attempt++) {
                MemorySegment seen = file.mem();
                long v = file.readVolatile(base + VERSION);
                if ((v & 1) == 0) {
                    T result = null;
                    RuntimeException failure = null;
                    try {
                        result = read.get();
                    } catch (RuntimeException e) {
                        failure = e;   // bytes a writer was changing, damage, or a retired mapping: told apart below
                    }
                    VarHandle.loadLoadFence();
                    boolean retired = failure instanceof IllegalStateException && file.replaced(seen);
                    if (!retired && file.readVolatile(base + VERSION) == v) {
                        if (failure != null) {
                            throw failure;
                        }
                        return result;
                    }
                    spoilt++;
                } else {
                    if (file.holders.get(index) == Thread.currentThread()) {
                        // through a writable open of the same file, which shares its holders with this one
                        throw new IllegalStateException("segment=" + index + " of file=" + file.path
                                + " is locked by this thread: a compute function must not use the map");
                    }
                    long owner = file.readVolatile(base + LOCK_OWNER);
                    long now = System.nanoTime();
                    // Liveness costs a look into /proc: once per owner seen, then as often as a locker checks.
                    if (owner != checkedOwner || now - nextCheck >= 0) {
                        checkedOwner = owner;
                        nextCheck = now + OwnerLock.LIVENESS_CHECK_NANOS;
                        boolean gone = owner == OwnerLock.SELF ? file.holders.hasCopiedWord(index)
                                : owner != 0 && OwnerLock.isGone(owner, file.mappers);
                        if (gone) {
                            throw new IllegalStateException("segment=" + index + " of file=" + file.path + " was being written"
                                    + " by process " + OwnerLock.pid(owner) + (owner == OwnerLock.SELF
                                            ? " (this one) before it opened the file: the file is a copy made while this"
                                                    + " process held the lock (a copy of a map in use)"
                                            : OwnerLock.isDead(owner)
                                            ? ", which died holding its lock"
                                            : ", which lives but does not map this file: the file is a copy made while that"
                                                    + " process held the lock (cp of a map in use, a snapshot)")
                                    + "; a read-only open"
                                    + " cannot repair it: open the map writable once (any use of the segment then takes the"
                                    + " lock over and repairs it), or run 'colossal compact " + file.path + "' as a user who"
                                    + " may write the file");
                        }
                    }
                    if (owner == 0) {
                        spoilt++;   // the writer let go between the two reads (or damage): counts as a try
                    }
                }
                if (spoilt == READ_ONLY_ATTEMPTS) {
                    throw new IllegalStateException("segment=" + index + " of file=" + file.path + " changed under each of "
                            + READ_ONLY_ATTEMPTS + " reads: writers are busy with it; try again");
                }
                interrupted |= OwnerLock.backoffHoldingInterrupt(attempt);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Takes the lock to keep writers out while reading; optimistic readers go on. */
    void lockForRead() {
        acquire();
    }

    void unlockForRead() {
        release();
    }

    private void acquire() {
        file.checkWritable();
        if (file.holders.get(index) == Thread.currentThread()) {
            throw new IllegalStateException("segment=" + index + " of file=" + file.path
                    + " is already locked by this thread: a compute function must not use the map");
        }
        file.pin(index);
        long dead;
        try {
            dead = OwnerLock.acquireSpinning(file.mem(), base + LOCK_OWNER) ? 0 : waitInLine();
        } catch (RuntimeException | Error e) {
            file.unpin(index);
            throw e;
        }
        file.holders.set(index, Thread.currentThread());
        if (dead != 0) {
            MemorySegment m = file.mem();
            long v = Mem.getLong(m, base + VERSION);
            Mem.setLongVolatile(m, base + VERSION, (v & 1) == 0 ? v + 1 : v + 2);
            VarHandle.storeStoreFence();
            try {
                rebuild();
                Mem.setLong(m, base + REPAIRS, Mem.getLong(m, base + REPAIRS) + 1);
            } catch (RuntimeException | Error e) {
                Mem.setLongRelease(m, base + VERSION, Mem.getLong(m, base + VERSION) + 1);
                release();
                throw e;
            }
            Mem.setLongRelease(m, base + VERSION, Mem.getLong(m, base + VERSION) + 1);
        }
    }

    /** Waits for the lock word behind this process's other waiters (see {@link LockHolders#line}). */
    private long waitInLine() {
        ReentrantLock line = file.holders.line(index);
        line.lock();
        try {
            return OwnerLock.acquire(file.mem(), base + LOCK_OWNER, file.mappers, file.holders, index);
        } finally {
            line.unlock();
        }
    }

    private void release() {
        file.holders.set(index, null);
        try {
            OwnerLock.release(file.mem(), base + LOCK_OWNER);
        } finally {
            file.unpin(index);
        }
    }

    /** Free runs this process's index of the segment's lists holds, or -1 if it has none (see {@link FreeRunIndex}). */
    int indexedRuns() {
        return heap.indexedRuns();
    }

    long evictions() {
        return evictions;
    }

    long liveEntries() {
        return file.readVolatile(base + LIVE_ENTRIES);
    }

    /** The seqlock's version: every write moves it on, and it never goes back. */
    long version() {
        return file.readVolatile(base + VERSION);
    }

    /** Whether an entry of this segment may carry an expiry time; read without the lock, so a hint. */
    boolean mayExpire() {
        return file.readVolatile(base + MAY_EXPIRE) != 0;
    }

    /** The bytes the entries take, counted in whole blocks; read without the lock, so a hint. */
    long usedBytes() {
        return file.readVolatile(base + USED_BLOCKS) << shift;
    }

    // ------------------------------------------------------------------ reads

    /**
     * Looks {@code key} up without locking. If {@code dst} is not null and the value fits into it,
     * the value is copied to its start.
     *
     * @return the value's length, or -1 if the key is absent
     */
    long get(MemorySegment key, long hash, MemorySegment dst) {
        return get(key, hash, dst, 0);
    }

    /** As {@link #get(MemorySegment, long, MemorySegment)}, the value going to {@code dst} at {@code dstOffset}. */
    long get(MemorySegment key, long hash, MemorySegment dst, long dstOffset) {
        for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
            MemorySegment seen = file.mem();
            long result;
            RuntimeException failure = null;
            try {
                long v = Mem.getLongAcquire(seen, base + VERSION);
                if ((v & 1) != 0) {
                    if (file.holders.get(index) == Thread.currentThread()) {
                        throw new IllegalStateException("segment=" + index + " of file=" + file.path
                                + " is locked by this thread: a compute function must not use the map");
                    }
                    OwnerLock.backoff(attempt);
                    continue;
                }
                try {
                    result = getUnlocked(seen, key, hash, dst, dstOffset);
                } catch (IndexOutOfBoundsException | MapCorruptedException | IllegalArgumentException e) {
                    result = -1;
                    failure = e;
                }
                VarHandle.loadLoadFence();
                // Through the mapping the version was read from: every mapping shows the same word.
                if (Mem.getLong(seen, base + VERSION) != v) {
                    continue;
                }
            } catch (IllegalStateException e) {
                // A mapping this read went through was retired and closed: read again.
                if (file.replaced(seen)) {
                    continue;
                }
                throw e;
            }
            if (failure != null) {
                throw corruption(failure);
            }
            if (result >= 0 && marksReads) {
                markReferenced(key, hash);
            }
            return result;
        }
        // Writers kept us out (or one died holding the lock): read under the lock, which waits,
        // or takes a dead owner's lock over and repairs. A read-only map can take no lock: it
        // goes on reading between equal versions, and tells of a dead owner.
        if (file.readOnly) {
            try {
                return readConsistently(() -> getUnlocked(file.mem(), key, hash, dst, dstOffset));
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                throw corruption(e);
            }
        }
        lockForRead();
        try {
            return getUnlocked(file.mem(), key, hash, dst, dstOffset);
        } catch (IndexOutOfBoundsException e) {
            throw corruption(e);
        } finally {
            unlockForRead();
        }
    }

    private MapCorruptedException corruption(RuntimeException e) {
        if (e instanceof MapCorruptedException c) {
            return c;
        }
        MapCorruptedException c = file.corrupt(base, "segment=" + index + " is inconsistent: " + e.getMessage());
        c.initCause(e);
        return c;
    }

    /**
     * Looks {@code key} up and copies its value as {@link #get} says; works under the lock and
     * optimistically (then the caller validates the version). Checks the entry's checksum when
     * the file has them.
     *
     * <p>The same probe as {@link #find(MemorySegment, long, boolean)}, in a method of its own
     * that also copies the value: the JIT profiles per method (a map filled before it is read
     * compiled the shared probe with the key-match branch cold, as inserts probe for absent keys,
     * and called the entry check, the key compare and the checksum out of line on every get), and
     * the mapping, the entry's position and its decoded header stay in registers from the probe
     * to the copy.
     *
     * @param m the current mapping, or one retired since (reading through it then fails)
     * @return the value's length, or -1 if the key is absent or expired
     */
    private long getUnlocked(MemorySegment m, MemorySegment key, long hash, MemorySegment dst, long dstOffset) {
        long table = Mem.getLong(m, base + TABLE);
        if (table == 0) {
            return -1;
        }
        long tpos = SlotLayout.tablePosition(table);
        long slots = checkTable(table);
        long tableEnd = tpos + SlotLayout.tableBytes(slots);
        if (tableEnd > m.byteSize()) {
            m = file.mem(tableEnd);
        }
        long klen = key.byteSize();
        long idx = SlotLayout.bucket(hash, slots);
        Crc32c sums = file.verifyReads ? Crc32c.local() : null;
        for (long probes = 0; probes < slots; probes++, idx = SlotLayout.next(idx, slots)) {
            long s = Mem.getLong(m, SlotLayout.slotOffset(tpos, idx));
            if (s == SlotLayout.EMPTY) {
                return -1;
            }
            if (!SlotLayout.isEntry(s) || !SlotLayout.tagMatches(s, hash)) {
                continue;
            }
            long e = SlotLayout.position(s, shift);
            long header = headerIn(m, e);
            if (header < 0) {
                header = checkEntryRemapping(e);
                m = file.mem();
            }
            if (holds(m, e, header, key, klen, sums)) {
                if (isExpired(m, e, header)) {
                    return -1;
                }
                int vlen = EntryLayout.valueLength(header);
                if (dst != null && vlen <= dst.byteSize() - dstOffset) {
                    MemorySegment.copy(m, EntryLayout.valueOffset(e, header), dst, dstOffset, vlen);
                }
                return vlen;
            }
        }
        return -1;
    }

    /**
     * Finds the slot of {@code key}; works under the lock and optimistically (then the caller
     * validates the version). Checks the entry's checksum when the file has them.
     *
     * @return the slot index, or -1 if absent
     */
    long find(MemorySegment key, long hash) {
        return find(key, hash, file.verifyReads);
    }

    /** Whether the entry at {@code e} holds {@code key}; checks its checksum on the way with {@code sums} unless null. */
    private boolean sameKey(long e, MemorySegment key, long klen, Crc32c sums) {
        long header = checkEntry(e);
        return holds(file.mem(), e, header, key, klen, sums);
    }

    /** As {@link #sameKey}, for the entry at {@code e} in {@code m} with its decoded {@code header}. */
    private boolean holds(MemorySegment m, long e, long header, MemorySegment key, long klen, Crc32c sums) {
        boolean same = EntryLayout.keyLength(header) == klen
                && EntryLayout.sameBytes(m, EntryLayout.keyOffset(e, header), key, klen);
        // On a tag match with another key the checksum is checked too: a damaged slot or key is
        // then reported instead of silently reading as "absent".
        if (sums != null && EntryLayout.storedChecksum(m, e) != EntryLayout.checksum(m, e, header, sums)) {
            throw badChecksum(m, e, header);
        }
        return same;
    }

    /** As {@link #find(MemorySegment, long)}, checking checksums if {@code verify}. */
    private long find(MemorySegment key, long hash, boolean verify) {
        MemorySegment m = file.mem();
        long table = Mem.getLong(m, base + TABLE);
        if (table == 0) {
            return -1;
        }
        long tpos = SlotLayout.tablePosition(table);
        long slots = checkTable(table);
        m = file.mem(tpos + SlotLayout.tableBytes(slots));
        long klen = key.byteSize();
        long idx = SlotLayout.bucket(hash, slots);
        for (long probes = 0; probes < slots; probes++, idx = SlotLayout.next(idx, slots)) {
            long s = Mem.getLong(m, SlotLayout.slotOffset(tpos, idx));
            if (s == SlotLayout.EMPTY) {
                return -1;
            }
            if (!SlotLayout.isEntry(s) || !SlotLayout.tagMatches(s, hash)) {
                continue;
            }
            if (sameKey(SlotLayout.position(s, shift), key, klen, verify ? Crc32c.local() : null)) {
                return idx;
            }
        }
        return -1;
    }

    /** The slots of the table {@code table} names; a malformed word is reported as damage. */
    private long checkTable(long table) {
        long slots = SlotLayout.slots(table);
        if (slots < 0 || SlotLayout.tablePosition(table) < firstEntry) {
            throw file.corrupt(base + TABLE, "segment=" + index + " has a bad table word 0x" + Long.toHexString(table));
        }
        return slots;
    }

    /**
     * Checks that the entry's header is well formed and that the entry lies in the file, mapping
     * it if the file grew; returns the decoded header (see {@link EntryLayout#header}).
     */
    private long checkEntry(long e) {
        // The common case in few bytecodes, so that the JIT inlines it into every lookup: the
        // entry lies in the current mapping and its header is well formed. Remapping and damage
        // take the cold path.
        long header = headerIn(file.mem(), e);
        return header >= 0 ? header : checkEntryRemapping(e);
    }

    /** The decoded header of the entry at {@code e} if it is well formed and lies in {@code m}, or -1. */
    private long headerIn(MemorySegment m, long e) {
        if (e >= firstEntry && e + EntryLayout.MAX_HEADER_BYTES <= m.byteSize()) {
            long header = EntryLayout.header(m, e);
            if (header >= 0 && e + EntryLayout.bytes(header) <= m.byteSize()) {
                return header;
            }
        }
        return -1;
    }

    private long checkEntryRemapping(long e) {
        if (e < firstEntry) {
            throw file.corrupt(e, "segment=" + index + " has a slot pointing into the header");
        }
        long header = EntryLayout.header(file.mem(e + EntryLayout.MAX_HEADER_BYTES), e);
        if (header < 0) {
            throw file.corrupt(e, "entry has a malformed header (unknown meta bits, or a length that is not a "
                    + "shortest varint of at most " + EntryLayout.MAX_LENGTH + ")");
        }
        file.mem(e + EntryLayout.bytes(header));
        return header;
    }

    private void verifyChecksum(MemorySegment m, long e, long header) {
        if (file.verifyReads && EntryLayout.storedChecksum(m, e) != EntryLayout.checksum(m, e, header)) {
            throw badChecksum(m, e, header);
        }
    }

    private MapCorruptedException badChecksum(MemorySegment m, long e, long header) {
        return file.corrupt(e, "entry checksum=0x" + Integer.toHexString(EntryLayout.storedChecksum(m, e))
                + " but its bytes sum to 0x" + Integer.toHexString(EntryLayout.checksum(m, e, header)));
    }

    // ------------------------------------------------------------------ batched reads: touching ahead

    /**
     * Where in {@code m} the home slot of {@code hash} lies, read with no lock, no version and no
     * check but bounds, or -1 if there is no table to read: a batched get reads the home slots of
     * all its keys before it looks any of them up, so that their misses overlap. Whatever it
     * finds is only a hint; the gets that follow read everything again under the seqlock.
     */
    long homeSlotOffset(MemorySegment m, long hash) {
        long table = Mem.getLong(m, base + TABLE);
        long slots = SlotLayout.slots(table);
        if (slots <= 0) {
            return -1;
        }
        long at = SlotLayout.slotOffset(SlotLayout.tablePosition(table), SlotLayout.bucket(hash, slots));
        return at + Long.BYTES <= m.byteSize() ? at : -1;
    }

    /**
     * The position of the first entry on {@code hash}'s probe path whose tag is {@code hash}'s and
     * that lies in {@code m}, looking at a few slots from the home slot on, or -1: the second step
     * of reading ahead (see {@link #homeSlotOffset}). Only the home slot's line was read ahead,
     * but a key lies a slot or two after its home slot about half the time in a table this full.
     */
    long touchedEntry(MemorySegment m, long hash) {
        long at = homeSlotOffset(m, hash);
        // Past the end of the table it reads other bytes of the file as slots: harmless in a hint.
        for (int probe = 0; probe < TOUCH_PROBES && at >= 0 && at + Long.BYTES <= m.byteSize(); probe++, at += Long.BYTES) {
            long s = Mem.getLong(m, at);
            if (s == SlotLayout.EMPTY) {
                return -1;
            }
            if (SlotLayout.isEntry(s) && SlotLayout.tagMatches(s, hash)) {
                long e = SlotLayout.position(s, shift);
                return e >= firstEntry && e + EntryLayout.MAX_HEADER_BYTES <= m.byteSize() ? e : -1;
            }
        }
        return -1;
    }

    /** Slots a batched get looks at when it reads ahead: the probe paths of almost every key. */
    private static final int TOUCH_PROBES = 8;

    /** The entry position in slot {@code idx} of the current table. */
    long entryAt(long idx) {
        MemorySegment m = file.mem();
        long tpos = SlotLayout.tablePosition(Mem.getLong(m, base + TABLE));
        return SlotLayout.position(Mem.getLong(m, SlotLayout.slotOffset(tpos, idx)), shift);
    }

    /** Whether the value in slot {@code idx} is {@code expected}, byte for byte; under the lock, allocating nothing. */
    boolean valueIs(long idx, MemorySegment expected) {
        long e = entryAt(idx);
        long header = checkEntry(e);
        long from = EntryLayout.valueOffset(e, header);
        return MemorySegment.mismatch(file.mem(), from, from + EntryLayout.valueLength(header), expected, 0,
                expected.byteSize()) == -1;
    }

    /**
     * Copies the value in slot {@code idx} to {@code dst} at {@code dstOffset} if it fits; under the lock.
     *
     * @return the value's length
     */
    long copyValue(long idx, MemorySegment dst, long dstOffset) {
        long e = entryAt(idx);
        long header = checkEntry(e);
        int n = EntryLayout.valueLength(header);
        if (n <= dst.byteSize() - dstOffset) {
            MemorySegment.copy(file.mem(), EntryLayout.valueOffset(e, header), dst, dstOffset, n);
        }
        return n;
    }

    /** A read-only view of the value of the entry at {@code e}; valid while the lock is held. */
    MemorySegment value(long e) {
        long header = checkEntry(e);
        return file.mem().asSlice(EntryLayout.valueOffset(e, header), EntryLayout.valueLength(header)).asReadOnly();
    }

    /**
     * Calls {@code action} with read-only views of the key and value (and the expiry time) of every live entry whose
     * tag lies in {@code [fromTag, toTag)}, in file order; under the lock. A tag range is a run of
     * home slots (home slots grow with the tag), and an entry lies at or after its home slot
     * before the next empty slot, so the walk covers the homes of the range and then the rest of
     * the last cluster: its cost follows the range, not the table. A table too large to place by
     * tag (over 2^26 slots) is walked whole, filtered by tag. An entry that fails its checks goes
     * to {@code damaged}, and the walk goes on, if that is not null (else it throws); a damaged
     * table still throws.
     */
    void forEachInTags(long fromTag, long toTag, EntryVisitor action, java.util.function.Consumer<MapCorruptedException> damaged) {
        long table = Mem.getLong(file.mem(), base + TABLE);
        if (table == 0 || fromTag >= toTag) {
            return;
        }
        long tpos = SlotLayout.tablePosition(table);
        long slots = checkTable(table);
        MemorySegment t = file.mem(tpos + SlotLayout.tableBytes(slots));
        long first = 0;
        long homes = slots;
        if (slots <= 1L << SlotLayout.TAG_BITS) {
            first = SlotLayout.bucketOfTag(fromTag, slots);
            homes = SlotLayout.bucketOfTag(toTag - 1, slots) - first + 1;
        }
        long[] entries = new long[16];
        int n = 0;
        long idx = first;
        for (long walked = 0; walked < slots; walked++, idx = SlotLayout.next(idx, slots)) {
            long slot = Mem.getLong(t, SlotLayout.slotOffset(tpos, idx));
            if (walked >= homes && slot == SlotLayout.EMPTY) {
                break;
            }
            long tag = slot >>> SlotLayout.POSITION_BITS;
            if (SlotLayout.isEntry(slot) && tag >= fromTag && tag < toTag) {
                if (n == entries.length) {
                    entries = java.util.Arrays.copyOf(entries, n * 2);
                }
                entries[n++] = SlotLayout.position(slot, shift);
            }
        }
        java.util.Arrays.sort(entries, 0, n);
        if (toTag - fromTag < 1L << SlotLayout.TAG_BITS) {
            touchAhead(entries, n);   // a part of the segment: its entries lie scattered
        }
        // One read-only view of the mapping, sliced per entry: two views of each entry made
        // read-only one by one cost a tenth of a snapshot's scan. Made again only if the file was
        // remapped meanwhile (another segment's writer grew it).
        MemorySegment mapped = null;
        MemorySegment readOnly = null;
        for (int i = 0; i < n; i++) {
            long e = entries[i];
            long header;
            MemorySegment m;
            try {
                header = checkEntry(e);
                m = file.mem();
                verifyChecksum(m, e, header);
            } catch (MapCorruptedException bad) {
                if (damaged == null) {
                    throw bad;
                }
                damaged.accept(bad);
                continue;
            }
            long expiresAt = EntryLayout.expiresAt(m, e, header);
            if (expiresAt == 0 || file.nowMillis() < expiresAt) {
                if (m != mapped) {
                    mapped = m;
                    readOnly = m.asReadOnly();
                }
                action.visit(readOnly.asSlice(EntryLayout.keyOffset(e, header), EntryLayout.keyLength(header)),
                        readOnly.asSlice(EntryLayout.valueOffset(e, header), EntryLayout.valueLength(header)),
                        expiresAt);
            }
        }
    }

    /** What {@link #forEachInTags} shows of an entry. */
    @FunctionalInterface
    interface EntryVisitor {
        /** Read-only views of the key and value, valid under the lock; the expiry time, 0 if none. */
        void visit(MemorySegment key, MemorySegment value, long expiresAt);
    }

    /**
     * Reads the first two cache lines of each entry in a loop that does nothing else, so that the
     * CPU keeps many of their misses in flight at once: a tag range's entries lie scattered over
     * the heap, and read one by one, each waited for its own miss (a walk of 1M entries in steps
     * of 256 took 3x as long as one in heap order; touched ahead, 2.3x). A whole segment's lie
     * in file order, which the CPU reads ahead by itself.
     */
    private void touchAhead(long[] entries, int n) {
        MemorySegment m = file.mem();
        long size = m.byteSize();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            long e = entries[i];
            if (e >= 0 && e + TOUCH_SPAN < size) {
                sum += m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, e) + m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, e + TOUCH_SPAN);
            }
        }
        touched = sum;
    }

    /** The second line {@link #touchAhead} reads: the next cache line. */
    private static final long TOUCH_SPAN = 64;
    /** Keeps {@link #touchAhead}'s loads from being dropped as unused. */
    @SuppressWarnings("unused")
    private long touched;

    /** A step over one slot of the current table. */
    @FunctionalInterface
    private interface SlotVisitor {
        void visit(MemorySegment m, long slotOffset);
    }

    /** Visits every slot of the current table, if any, with a mapping that covers the table. */
    private void forEachSlot(SlotVisitor visitor) {
        long table = Mem.getLong(file.mem(), base + TABLE);
        if (table == 0) {
            return;
        }
        long tpos = SlotLayout.tablePosition(table);
        long slots = checkTable(table);
        MemorySegment m = file.mem(tpos + SlotLayout.tableBytes(slots));
        for (long i = 0; i < slots; i++) {
            visitor.visit(m, SlotLayout.slotOffset(tpos, i));
        }
    }

    // ------------------------------------------------------------------ writes (under the lock)

    /**
     * Writes a new entry for {@code key} with a copy of {@code value} and publishes it in slot
     * {@code found} (replacing the entry there), or in a new slot if {@code found < 0}.
     *
     * @throws IOException if the file cannot grow; the segment is then unchanged
     */
    void store(long found, MemorySegment key, long hash, MemorySegment value, long expiresAt) throws IOException {
        store(found, key, hash, value, 0, value.byteSize(), expiresAt);
    }

    /** {@link #store(long, MemorySegment, long, MemorySegment, long)} of {@code value[valueOffset, +valueLength)}. */
    void store(long found, MemorySegment key, long hash, MemorySegment value, long valueOffset, long valueLength,
               long expiresAt) throws IOException {
        long klen = key.byteSize();
        EntryLayout.checkLength("key", klen);
        EntryLayout.checkLength("value", valueLength);
        int meta = expiresAt != 0 ? EntryLayout.META_HAS_EXPIRY : 0;
        long blocks = EntryLayout.blocks(klen, valueLength, expiresAt != 0 ? EntryLayout.EXPIRY_BYTES : 0, shift);
        if (file.maxBlocksPerSegment != 0 && blocks > file.maxBlocksPerSegment) {
            // Stored anyway, it would evict the whole segment and still leave it over its bound
            throw new IllegalArgumentException("an entry of " + (blocks << shift) + " bytes (key " + klen + ", value "
                    + valueLength + ") is larger than the map's byte bound per segment, "
                    + (file.maxBlocksPerSegment << shift) + " bytes (withMaxBytes over " + file.segmentCount
                    + " segments): raise the bound or use fewer segments");
        }
        if (file.bounded()) {
            long moreEntries = found < 0 ? 1 : 0;
            long moreBlocks = blocks - (found < 0 ? 0 : entryBlocks(entryAt(found)));
            // A write is a use: the entry survives the hand's next pass (CLOCK's second chance).
            // Not an insert while the segment still has room: then the first sweep of a segment
            // just filled would find every entry referenced, clear them all and evict the first it
            // met, an entry read after every put as likely as one never read.
            if (found >= 0 || overBound(moreEntries, moreBlocks)) {
                meta |= EntryLayout.META_REFERENCED;
            }
            evictForRoom(found, moreEntries, moreBlocks);
        }
        if (found < 0) {
            ensureRoomForInsert();
        }
        // An entry replaced by one of as many blocks (a value rewritten at its size) trades runs
        // with the one it replaces once a run of its size heads its class's list: see
        // SegmentHeap#takeReplacing.
        long e = found >= 0 && entryBlocks(entryAt(found)) == blocks ? heap.takeReplacing(blocks) : 0;
        boolean traded = e != 0;
        replacing = found;
        try {
            if (!traded) {
                e = heap.allocate(blocks);
            }
        } finally {
            replacing = -1;
        }
        allocatedBlocks += blocks;
        if (expiresAt != 0) {
            // Before the entry exists, so that a crash can leave it set for nothing but never unset;
            // after the purges that making room runs, which clear it when no other entry expires.
            Mem.setLong(file.mem(), base + MAY_EXPIRE, 1);
            earliestExpiry = Math.min(earliestExpiry, expiresAt);
        }
        CrashPoints.reach(CrashPoints.STORE_ALLOCATED);
        MemorySegment m = file.mem(e + (blocks << shift));
        long header;
        try {
            header = EntryLayout.writeHeader(m, e, meta, klen, valueLength);
            MemorySegment.copy(key, 0, m, EntryLayout.keyOffset(e, header), klen);
            MemorySegment.copy(value, valueOffset, m, EntryLayout.valueOffset(e, header), valueLength);
            if (expiresAt != 0) {
                EntryLayout.setExpiresAt(m, e, header, expiresAt);
            }
        } catch (RuntimeException | Error failure) {
            heap.free(e, blocks);
            throw failure;
        }
        EntryLayout.setChecksum(m, e, file.checksums ? EntryLayout.checksum(m, e, header) : 0);
        CrashPoints.reach(CrashPoints.STORE_WRITTEN);
        long slot = SlotLayout.slot(hash, e, shift);
        long tpos = SlotLayout.tablePosition(Mem.getLong(m, base + TABLE));
        long used = Mem.getLong(m, base + USED_BLOCKS) + blocks;
        if (found >= 0) {
            long old = entryAt(found);
            long oldBlocks = entryBlocks(old);
            Mem.setLongRelease(m, SlotLayout.slotOffset(tpos, found), slot);
            CrashPoints.reach(CrashPoints.STORE_PUBLISHED);
            if (traded) {
                heap.freeReplaced(old, oldBlocks);
            } else {
                heap.free(old, oldBlocks);
            }
            used -= oldBlocks;
        } else {
            long idx = insertionSlot(hash);
            long offset = SlotLayout.slotOffset(tpos, idx);
            boolean wasTombstone = Mem.getLong(m, offset) == SlotLayout.TOMBSTONE;
            Mem.setLongRelease(m, offset, slot);
            CrashPoints.reach(CrashPoints.STORE_PUBLISHED);
            addCounter(LIVE_ENTRIES, 1);
            if (wasTombstone) {
                addCounter(TOMBSTONES, -1);
            }
        }
        Mem.setLong(m, base + USED_BLOCKS, used);
    }

    /** Removes the entry in slot {@code idx}. */
    void delete(long idx) {
        removals++;
        MemorySegment m = file.mem();
        long table = Mem.getLong(m, base + TABLE);
        long tpos = SlotLayout.tablePosition(table);
        long slots = SlotLayout.slots(table);
        long old = entryAt(idx);
        long oldBlocks = entryBlocks(old);
        if (Mem.getLong(m, SlotLayout.slotOffset(tpos, SlotLayout.next(idx, slots))) == SlotLayout.EMPTY) {
            // No probe sequence runs through a slot followed by an empty one: empty it, and the
            // tombstones before it, instead of leaving tombstones.
            Mem.setLongRelease(m, SlotLayout.slotOffset(tpos, idx), SlotLayout.EMPTY);
            long freed = 0;
            for (long i = SlotLayout.previous(idx, slots); i != idx
                    && Mem.getLong(m, SlotLayout.slotOffset(tpos, i)) == SlotLayout.TOMBSTONE;
                    i = SlotLayout.previous(i, slots)) {
                Mem.setLongRelease(m, SlotLayout.slotOffset(tpos, i), SlotLayout.EMPTY);
                freed++;
            }
            addCounter(TOMBSTONES, -freed);
        } else {
            Mem.setLongRelease(m, SlotLayout.slotOffset(tpos, idx), SlotLayout.TOMBSTONE);
            addCounter(TOMBSTONES, 1);
        }
        CrashPoints.reach(CrashPoints.DELETE_UNLINKED);
        addCounter(LIVE_ENTRIES, -1);
        addCounter(USED_BLOCKS, -oldBlocks);
        heap.free(old, oldBlocks);
    }

    // ------------------------------------------------------------------ eviction (bounded maps)

    /**
     * Evicts entries until {@code moreEntries} and {@code moreBlocks} fit the segment's bound,
     * never the entry in slot {@code keep}. CLOCK: the hand sweeps the table, clearing the
     * referenced mark of entries that have one and evicting the first that has none (or has
     * expired).
     */
    private void evictForRoom(long keep, long moreEntries, long moreBlocks) {
        // Expired entries go first: the hand takes one it meets, but only in its turn, so with half
        // of a full cache expired, 5,000 inserts evicted 1,439 live entries and left 1,333 expired.
        if (overBound(moreEntries, moreBlocks)) {
            purgeIfDue(keep);
        }
        while (overBound(moreEntries, moreBlocks)) {
            if (!evictOne(keep, null)) {
                return;
            }
        }
    }

    /**
     * Evicts entries by the CLOCK hand, as making room for a write does, until {@code bytes} are
     * freed or nothing is left: {@link BytesMap#evict}'s share of this segment. Under the lock.
     *
     * @param spare keys the hand passes over this time, or null
     * @return the bytes the evicted entries took
     */
    long evict(long bytes, Predicate<MemorySegment> spare) {
        MemorySegment m = file.mem();
        long before = Mem.getLong(m, base + USED_BLOCKS);
        long want = (bytes + (1L << shift) - 1) >>> shift;
        while (before - Mem.getLong(file.mem(), base + USED_BLOCKS) < want && evictOne(-1, spare)) {
            // evictOne moved the hand and freed an entry
        }
        return (before - Mem.getLong(file.mem(), base + USED_BLOCKS)) << shift;
    }

    /** Whether {@code moreEntries} and {@code moreBlocks} would take the segment past its bound. */
    private boolean overBound(long moreEntries, long moreBlocks) {
        MemorySegment m = file.mem();
        long maxEntries = file.maxEntriesPerSegment;
        long maxBlocks = file.maxBlocksPerSegment;
        return (maxEntries != 0 && Mem.getLong(m, base + LIVE_ENTRIES) + moreEntries > maxEntries)
                || (maxBlocks != 0 && Mem.getLong(m, base + USED_BLOCKS) + moreBlocks > maxBlocks);
    }

    private boolean evictOne(long keep, Predicate<MemorySegment> spare) {
        long table = Mem.getLong(file.mem(), base + TABLE);
        if (table == 0) {
            return false;
        }
        long slots = checkTable(table);
        long tpos = SlotLayout.tablePosition(table);
        long hand = Long.remainderUnsigned(Mem.getLong(file.mem(), base + SegmentLayout.CLOCK_HAND), slots);
        for (long n = 0; n < 2 * slots; n++, hand = SlotLayout.next(hand, slots)) {
            MemorySegment m = file.mem(tpos + SlotLayout.tableBytes(slots));
            long s = Mem.getLong(m, SlotLayout.slotOffset(tpos, hand));
            if (!SlotLayout.isEntry(s) || hand == keep) {
                continue;
            }
            long e = SlotLayout.position(s, shift);
            long header = checkEntry(e);
            m = file.mem();
            int meta = EntryLayout.meta(m, e);
            boolean expired = isExpired(m, e, header);
            if (spare != null && !expired
                    && spare.test(m.asSlice(EntryLayout.keyOffset(e, header), EntryLayout.keyLength(header)).asReadOnly())) {
                continue;
            }
            if ((meta & EntryLayout.META_REFERENCED) != 0 && !expired) {
                EntryLayout.setMeta(m, e, meta & ~EntryLayout.META_REFERENCED);
                continue;
            }
            Mem.setLong(m, base + SegmentLayout.CLOCK_HAND, SlotLayout.next(hand, slots));
            EvictionListener listener = file.evictionListener;
            if (listener != null) {
                listener.evicted(m.asSlice(EntryLayout.keyOffset(e, header), EntryLayout.keyLength(header)).asReadOnly(),
                        m.asSlice(EntryLayout.valueOffset(e, header), EntryLayout.valueLength(header)).asReadOnly(), expired);
            }
            delete(hand);
            if (!expired) {
                evictions++;
            }
            return true;
        }
        return false;
    }

    /**
     * Marks the key's entry referenced, if the segment's lock is free right now: readers never
     * wait for this, and never write without the lock (an entry's blocks may be reused the moment
     * it is replaced, so an unlocked mark could land in someone else's bytes).
     */
    private void markReferenced(MemorySegment key, long hash) {
        if (file.holders.get(index) == Thread.currentThread()) {
            return;
        }
        file.pin(index);
        try {
            markReferencedPinned(key, hash);
        } finally {
            file.unpin(index);
        }
    }

    private void markReferencedPinned(MemorySegment key, long hash) {
        MemorySegment m = file.mem();
        if (!OwnerLock.tryAcquire(m, base + LOCK_OWNER)) {
            return;
        }
        try {
            // The read that called us verified the entry; no second checksum here.
            long idx = find(key, hash, false);
            if (idx >= 0) {
                long e = entryAt(idx);
                checkEntry(e);
                MemorySegment em = file.mem();
                int meta = EntryLayout.meta(em, e);
                if ((meta & EntryLayout.META_REFERENCED) == 0) {
                    EntryLayout.setMeta(em, e, meta | EntryLayout.META_REFERENCED);
                }
            }
        } finally {
            OwnerLock.release(m, base + LOCK_OWNER);
        }
    }

    /** Whether the entry at {@code e} has expired; reads the clock only for entries that expire. */
    private boolean isExpired(MemorySegment m, long e, long header) {
        long at = EntryLayout.expiresAt(m, e, header);
        return at != 0 && file.nowMillis() >= at;
    }

    /** The slot of {@code key} under the lock, or -1; an expired entry met on the way is removed. */
    long liveSlot(MemorySegment key, long hash) {
        long slot = find(key, hash);
        // mayExpire is set before any entry with an expiry time is written: most segments never
        // hold one, and their writes skip reading the entry again.
        if (slot >= 0 && Mem.getLong(file.mem(), base + MAY_EXPIRE) != 0 && isExpiredAt(slot)) {
            delete(slot);
            return -1;
        }
        return slot;
    }

    /** Whether the entry in slot {@code idx} has expired; under the lock. */
    boolean isExpiredAt(long idx) {
        long e = entryAt(idx);
        long header = checkEntry(e);
        return isExpired(file.mem(), e, header);
    }

    /**
     * When {@code key} expires (epoch ms), 0 if never, -1 if absent or expired. Only reads, so a
     * read-only map can ask too; an expired entry stays for a writer to remove.
     */
    long expiresAt(MemorySegment key, long hash) {
        return readConsistently(() -> {
            long slot = find(key, hash);
            return slot < 0 || isExpiredAt(slot) ? -1L : expiresAt(slot);
        });
    }

    /**
     * The expiry time an update of the entry in slot {@code idx} keeps: the entry's own, or 0 if
     * it has none or there is no entry ({@code idx < 0}). Reads no entry in a segment that never
     * held one with an expiry time. Under the lock.
     */
    long expiryToKeep(long idx) {
        return idx < 0 || Mem.getLong(file.mem(), base + MAY_EXPIRE) == 0 ? 0 : expiresAt(idx);
    }

    /** When the entry in slot {@code idx} expires (epoch ms), or 0 if never; under the lock. */
    long expiresAt(long idx) {
        long e = entryAt(idx);
        long header = checkEntry(e);
        return EntryLayout.expiresAt(file.mem(), e, header);
    }

    /**
     * Removes every expired entry; under the lock. Returns how many. Reads no entry in a segment
     * that holds none with an expiry time ({@code mayExpire} is 0).
     */
    long purgeExpired() {
        return purgeExpired(-1);
    }

    /** As {@link #purgeExpired()}, leaving the entry in slot {@code keep} (-1 for none) whether or not it expired. */
    private long purgeExpired(long keep) {
        long table = Mem.getLong(file.mem(), base + TABLE);
        if (table == 0 || Mem.getLong(file.mem(), base + MAY_EXPIRE) == 0) {
            return 0;
        }
        long slots = checkTable(table);
        long tpos = SlotLayout.tablePosition(table);
        long removed = 0;
        long expiring = 0;
        long earliest = Long.MAX_VALUE;
        for (long i = 0; i < slots; i++) {
            long s = Mem.getLong(file.mem(tpos + SlotLayout.tableBytes(slots)), SlotLayout.slotOffset(tpos, i));
            long at = SlotLayout.isEntry(s) ? expiresAt(i) : 0;
            if (at != 0 && file.nowMillis() >= at && i != keep) {
                delete(i);
                removed++;
            } else if (at != 0) {
                expiring++;
                earliest = Math.min(earliest, at);
            }
        }
        earliestExpiry = earliest;
        if (expiring == 0) {
            Mem.setLong(file.mem(), base + MAY_EXPIRE, 0);
        }
        return removed;
    }

    /** Removes every entry, and gives every chunk to the file's spare extents. */
    void clear() {
        forEachSlot((m, offset) -> Mem.setLongRelease(m, offset, SlotLayout.EMPTY));
        rebuild(true, NO_CHUNKS);
    }

    private void addCounter(long field, long delta) {
        MemorySegment m = file.mem();
        Mem.setLong(m, base + field, Mem.getLong(m, base + field) + delta);
    }

    private long entryBlocks(long e) {
        return EntryLayout.blocks(checkEntry(e), shift);
    }

    /** First tombstone or empty slot on the probe path of {@code hash}; the key must be absent. */
    private long insertionSlot(long hash) {
        MemorySegment m = file.mem();
        long table = Mem.getLong(m, base + TABLE);
        long tpos = SlotLayout.tablePosition(table);
        long slots = SlotLayout.slots(table);
        for (long idx = SlotLayout.bucket(hash, slots); ; idx = SlotLayout.next(idx, slots)) {
            if (!SlotLayout.isEntry(Mem.getLong(m, SlotLayout.slotOffset(tpos, idx)))) {
                return idx;
            }
        }
    }

    private void ensureRoomForInsert() throws IOException {
        MemorySegment m = file.mem();
        long table = Mem.getLong(m, base + TABLE);
        if (table == 0) {
            rehash(file.initialSlots);
            return;
        }
        long slots = checkTable(table);
        long live = Mem.getLong(m, base + LIVE_ENTRIES);
        long tombstones = Mem.getLong(m, base + TOMBSTONES);
        if (!SlotLayout.overloaded(live + tombstones + 1, slots)) {
            return;
        }
        // Before growing, drop what has expired: a cache of expiring entries then stays its size.
        if (purgeExpired() > 0) {
            live = Mem.getLong(m, base + LIVE_ENTRIES);
            tombstones = Mem.getLong(m, base + TOMBSTONES);
            if (!SlotLayout.overloaded(live + tombstones + 1, slots)) {
                return;
            }
        }
        // Up when live entries fill the table, the same size when tombstones do. The outgrown
        // table becomes spare space that the next chunks are cut from, so the step is large
        // enough that the entries inserted until the next growth fill it: one size (14-25%) for
        // ~80-byte entries, more for small ones (growing 16-byte entries one size at a time left
        // ever more free space: +25% file).
        long entryBytes = Math.max(1, (Mem.getLong(m, base + USED_BLOCKS) << shift) / Math.max(1, live));
        long grown = SlotLayout.slotsFor(live + 1 + live * SlotLayout.SLOTS_FREED_PER_ENTRY / entryBytes);
        if (grown < 0) {
            throw new IOException("segment=" + index + " of file=" + file.path + " cannot hold more than "
                    + live + " entries; create the map with more segments");
        }
        rehash(Math.max(grown, slots));
    }

    /**
     * Grows the table to {@code slots} slots (a size {@link SlotLayout#slotsFor} returns) now, as
     * inserts would once it is full: the seam that lets tests pass a size without its entries.
     */
    void growTable(long slots) throws IOException {
        lock();
        try {
            long table = Mem.getLong(file.mem(), base + TABLE);
            rehash(table == 0 ? slots : Math.max(slots, checkTable(table)));
        } finally {
            unlock();
        }
    }

    /**
     * Builds a table of {@code slots} slots from the live slots and publishes it; the old one goes
     * to the file's spare extents. A segment whose keys come and go without growing (a sliding
     * window, a TTL cache) rebuilds its table at the same size whenever tombstones fill it: the
     * next rebuild then takes the table this one gave back, where making the old one heap grew the
     * file by a table each time (a 40k-key window: 23 MiB per 1M keys, without end).
     */
    private void rehash(long slots) throws IOException {
        long bytes = SlotLayout.tableBytes(slots);
        long np = takeExtent(bytes, bytes);
        MemorySegment m = file.mem();
        long oldTable = Mem.getLong(m, base + TABLE);
        if (oldTable != 0) {
            long opos = SlotLayout.tablePosition(oldTable);
            long oslots = checkTable(oldTable);
            m = file.mem(Math.max(opos + oslots * Long.BYTES, np + bytes));
            for (long i = 0; i < oslots; i++) {
                if (i == oslots / 2) {
                    CrashPoints.reach(CrashPoints.REHASH_HALF_COPIED);
                }
                long s = Mem.getLong(m, SlotLayout.slotOffset(opos, i));
                if (!SlotLayout.isEntry(s)) {
                    continue;
                }
                long idx = slots <= 1L << SlotLayout.TAG_BITS
                        ? SlotLayout.bucketOfSlot(s, slots) : SlotLayout.bucket(keyHash(s), slots);
                while (Mem.getLong(m, SlotLayout.slotOffset(np, idx)) != SlotLayout.EMPTY) {
                    idx = SlotLayout.next(idx, slots);
                }
                Mem.setLong(m, SlotLayout.slotOffset(np, idx), s);
            }
        }
        m = file.mem();
        // Named before it is replaced, so that a crash from here on cannot leak the old table.
        Mem.setLongRelease(m, base + SegmentLayout.RETIRED_TABLE, oldTable);
        Mem.setLongRelease(m, base + TABLE, SlotLayout.tableWord(np, slots));
        Mem.setLong(m, base + TOMBSTONES, 0);
        Mem.setLongRelease(m, base + PENDING_EXTENT, 0);
        CrashPoints.reach(CrashPoints.REHASH_PUBLISHED);
        if (oldTable != 0) {
            file.spares.giveRetired(base, SlotLayout.tablePosition(oldTable), tableBytes(oldTable));
        } else {
            Mem.setLongRelease(m, base + SegmentLayout.RETIRED_TABLE, 0);
        }
    }

    /** Hashes the key of the entry in {@code slot} again: only for tables too large to place by tag. */
    private long keyHash(long slot) {
        long e = SlotLayout.position(slot, shift);
        long header = checkEntry(e);
        return hashKey(file.mem(), EntryLayout.keyOffset(e, header), EntryLayout.keyLength(header));
    }

    static long tableBytes(long tableWord) {
        return FileHeaderLayout.alignExtent(SlotLayout.tableBytes(SlotLayout.slots(tableWord)));
    }

    // ------------------------------------------------------------------ repair

    /**
     * Called when the heap has no room for an entry: removes expired entries ({@link
     * #purgeIfDue}), and if free runs are most of it, merges them ({@link #rebuild}) so that
     * the heap need not grow; says whether it did either. Free runs join
     * their right neighbour when freed, but not their left one, so entries of many sizes overwritten
     * at random leave holes side by side that no list knows to be one; without this the file grew
     * by ~50 bytes per such overwrite for ever. At most once per growth of the heap in this process:
     * a scan of the segment per new chunk, whose size grows with the segment.
     */
    private boolean defragmentBeforeGrowth() {
        if (evacuating) {
            return false;   // a rebuild would put the chunks being emptied back on the free lists
        }
        boolean purged = purgeIfDue(replacing);
        long heapBlocks = heap.heapBlocks();
        long used = Mem.getLong(file.mem(), base + USED_BLOCKS);
        if (heapBlocks <= heapBlocksAtDefragment || heapBlocks - used < used + DEFRAGMENT_MIN_FREE_BLOCKS) {
            return purged;
        }
        heapBlocksAtDefragment = heapBlocks;
        rebuild();
        return true;
    }

    /**
     * Removes the expired entries before a store makes room by growing the heap or by evicting,
     * leaving the entry in slot {@code keep}, and says whether there were any. The table's growth
     * purges too, but a table sized for many keys, or values large beside their slots, let expired
     * entries hold the file: 1 MB values living 20 ms, ten at a time, grew it past 600 MB. A scan of
     * the segment, so not before something this process knows of may have expired (a map filled
     * with entries living an hour took 4x as long a put with a scan per chunk), and after a purge
     * that removed entries, not before this process took a chunk's worth of blocks: entries
     * expiring one at a time would otherwise cost a scan per store. A purge that found nothing (the
     * first, which learns the earliest expiry) does not hold the next one back.
     */
    private boolean purgeIfDue(long keep) {
        MemorySegment m = file.mem();
        if (Mem.getLong(m, base + MAY_EXPIRE) == 0 || file.nowMillis() < earliestExpiry) {
            return false;
        }
        long chunkBlocks = SegmentLayout.nextChunkBytes(Mem.getLong(m, base + USED_BLOCKS) << shift) >>> shift;
        if (allocatedAtPurge >= 0 && allocatedBlocks - allocatedAtPurge < chunkBlocks) {
            return false;
        }
        if (purgeExpired(keep) == 0) {
            return false;
        }
        allocatedAtPurge = allocatedBlocks;
        return true;
    }

    /**
     * Recomputes counters, free lists and the bump region from the table and the chunk list, links
     * a pending extent, and gives chunks that hold nothing (but the newest, the bump region) to the
     * file's spare extents. Run under the lock after a takeover, and by {@code compact} (it merges
     * neighbouring free runs).
     *
     * @throws MapCorruptedException if the table or the chunks are damaged
     */
    void rebuild() {
        rebuild(false, NO_CHUNKS);
    }

    private static final long[] NO_CHUNKS = new long[0];

    /**
     * As {@link #rebuild()}; {@code giveAll} gives the newest chunk back too if it holds nothing,
     * and the free space of the chunks at {@code withheld} (ascending) stays off the free lists.
     */
    private void rebuild(boolean giveAll, long[] withheld) {
        heap.forget();
        SegmentScan scan = SegmentScan.of(file, index);
        MemorySegment m = file.mem(file.allocEnd());
        if (scan.pendingToAdopt() != 0 || scan.retiredToAdopt() != 0) {
            if (scan.pendingToAdopt() != 0) {
                heap.linkChunk(scan.pendingToAdopt(), Mem.getLong(m, base + PENDING_BYTES));
            }
            if (scan.retiredToAdopt() != 0) {
                heap.linkChunk(scan.retiredToAdopt(), tableBytes(Mem.getLong(m, base + SegmentLayout.RETIRED_TABLE)));
            }
            scan = SegmentScan.of(file, index);
        }
        Mem.setLongRelease(m, base + PENDING_EXTENT, 0);
        Mem.setLongRelease(m, base + SegmentLayout.RETIRED_TABLE, 0);
        for (int c = 0; c < SegmentLayout.FREE_CLASSES; c++) {
            Mem.setLong(m, base + SegmentLayout.freeHead(c), 0);
        }
        Mem.setLong(m, base + BUMP_POS, 0);
        Mem.setLong(m, base + BUMP_END, 0);
        long newest = Mem.getLong(m, base + CHUNKS);
        long[] gaps = scan.gaps();
        long[] empty = new long[gaps.length / 3];
        int emptyChunks = 0;
        for (int i = 0; i < gaps.length; i += 3) {
            long chunk = gaps[i];
            long pos = gaps[i + 1];
            long end = gaps[i + 2];
            boolean toEnd = end == chunk + scan.chunkBytes(chunk);
            if (Arrays.binarySearch(withheld, chunk) >= 0) {
                continue;
            }
            if (chunk == newest && toEnd && !(giveAll && pos == chunk + HeapLayout.chunkHeaderBytes(shift))) {
                Mem.setLong(m, base + BUMP_POS, pos);
                Mem.setLong(m, base + BUMP_END, end);
            } else if (toEnd && pos == chunk + HeapLayout.chunkHeaderBytes(shift)) {
                empty[emptyChunks++] = chunk;
            } else {
                heap.free(pos, (end - pos) >>> shift);
            }
        }
        Mem.setLong(m, base + LIVE_ENTRIES, scan.liveEntries());
        Mem.setLong(m, base + TOMBSTONES, scan.tombstones());
        Mem.setLong(m, base + USED_BLOCKS, scan.usedBlocks());
        Mem.setLong(m, base + MAY_EXPIRE, scan.expiringEntries() > 0 ? 1 : 0);
        // Last: a death while chunks are given back leaves a segment sound without them.
        heap.giveBack(Arrays.copyOf(empty, emptyChunks));
    }

    void siblings(Segment[] all) {
        this.siblings = all;
    }

    /**
     * Takes an extent for a table or a chunk (see {@link MapFile#allocateExtent}), recorded as
     * this segment's pending extent; on a full disk, after asking the other segments for space
     * they freed ({@link #reclaimElsewhere}). Under the lock.
     */
    private long takeExtent(long minBytes, long wantBytes) throws IOException {
        try {
            return file.allocateExtent(minBytes, wantBytes, base);
        } catch (IOException full) {
            if (!reclaimElsewhere()) {
                throw full;
            }
            return file.allocateExtent(minBytes, wantBytes, base);   // from a spare extent now, or the same failure
        }
    }

    /**
     * Called when the file cannot grow (a full disk) for an extent this segment needs: asks the
     * other segments whose locks are free right now to give back every chunk they hold nothing in
     * (removals, expiry and eviction leave them; a segment's newest chunk too), so that space
     * freed anywhere serves this segment. Holding this segment's lock it only tries the others',
     * so two segments doing this at once never wait for each other. A scan of every segment, so
     * one for the whole map at a time, and not again until this process removed something more or
     * a quiet period passed (another process may have): see {@link ReclaimPacer}. What compact's
     * moving of entries does beyond this is left to compact.
     *
     * @return true if it asked (the allocation is worth trying again)
     */
    private boolean reclaimElsewhere() {
        long removed = 0;
        for (Segment s : siblings) {
            removed += s.removals;   // racy reads of others' counters: only a hint
        }
        long start = System.nanoTime();
        if (!file.reclaims.tryStart(removed, start)) {
            return false;
        }
        try {
            for (Segment s : siblings) {
                if (s != this && s.tryLock()) {
                    try {
                        s.rebuild(true, NO_CHUNKS);
                    } finally {
                        s.unlock();
                    }
                }
            }
        } finally {
            file.reclaims.finished(start, System.nanoTime());
        }
        return true;
    }

    /**
     * Moves the live entries out of the chunks that hold least, so that those chunks empty and go
     * to the file's spare extents: space that removals scattered over a segment then serves every
     * segment, and holes too small for any entry are packed away. A chunk is emptied only if it is
     * at least half free and the rest of the heap has twice the room its entries need, so the
     * moves find places without growing the file (if they cannot, the entries not yet moved stay).
     * Each entry is copied whole and its slot republished by one release store, as an update is: a
     * death half way leaves every entry in its old place or its new one, and leaks at most the copy
     * in progress, which the repair takes back. Under the lock, so readers of the segment wait
     * meanwhile; what {@code compact} runs.
     *
     * @return the entries moved
     * @throws MapCorruptedException if the table or the chunks are damaged
     */
    long evacuate() {
        long[] victims = chunksToEmpty(SegmentScan.of(file, index).chunkUse());
        if (victims.length == 0) {
            rebuild();
            return 0;
        }
        long[] victimEnds = new long[victims.length];
        for (int v = 0; v < victims.length; v++) {
            victimEnds[v] = victims[v] + Mem.getLong(file.mem(victims[v] + HeapLayout.CHUNK.byteSize()), victims[v] + HeapLayout.CHUNK_BYTES);
        }
        rebuild(false, victims);
        evacuating = true;
        long moved = 0;
        try {
            long table = Mem.getLong(file.mem(), base + TABLE);
            long tpos = SlotLayout.tablePosition(table);
            long slots = checkTable(table);
            for (long i = 0; i < slots; i++) {
                long at = SlotLayout.slotOffset(tpos, i);
                long s = Mem.getLong(file.mem(at + Long.BYTES), at);
                if (!SlotLayout.isEntry(s)) {
                    continue;
                }
                long e = SlotLayout.position(s, shift);
                int v = Arrays.binarySearch(victims, e);
                v = v >= 0 ? v : -v - 2;
                if (v < 0 || e >= victimEnds[v]) {
                    continue;
                }
                long blocks = entryBlocks(e);
                long to = heap.allocate(blocks);
                MemorySegment m = file.mem(Math.max(e, to) + (blocks << shift));
                MemorySegment.copy(m, e, m, to, blocks << shift);
                CrashPoints.reach(CrashPoints.ENTRY_MOVED);
                Mem.setLongRelease(m, at, s & ~SlotLayout.POSITION_MASK | to >>> shift);
                moved++;
            }
        } catch (IOException full) {
            // No room outside the chunks being emptied and the file cannot grow: the entries not
            // moved yet stay where they are.
        } finally {
            evacuating = false;
            rebuild();   // the emptied chunks go to the spare extents
        }
        return moved;
    }

    /**
     * The chunks (ascending starts) whose entries {@link #evacuate} moves: the emptiest first (by
     * the share of their blocks in use), none but the newest, each at least half free, while the
     * rest of the heap keeps twice the room the moved entries need.
     */
    private long[] chunksToEmpty(long[] use) {
        int chunks = use.length / 3;
        long headerBlocks = HeapLayout.chunkHeaderBytes(shift) >>> shift;
        long newest = Mem.getLong(file.mem(), base + CHUNKS);
        long free = 0;
        Integer[] order = new Integer[chunks];
        for (int c = 0; c < chunks; c++) {
            free += use[3 * c + 2] == 0 && use[3 * c] != newest ? 0 : blocksOf(use, c, headerBlocks) - use[3 * c + 2];
            order[c] = c;
        }
        Arrays.sort(order, java.util.Comparator.comparingDouble(c -> (double) use[3 * c + 2] / blocksOf(use, c, headerBlocks)));
        long[] victims = new long[chunks];
        int n = 0;
        long moving = 0;
        long emptied = 0;
        for (int c : order) {
            long blocks = blocksOf(use, c, headerBlocks);
            long used = use[3 * c + 2];
            if (used * 2 > blocks) {
                break;   // the rest are fuller still
            }
            // Not the bump region, nor an empty chunk (the rebuild gives it back); nor one whose entries the
            // rest of the heap could not take with room to spare (a smaller one may still fit).
            if (use[3 * c] == newest || used == 0 || (moving + used) * 2 > free - emptied - (blocks - used)) {
                continue;
            }
            victims[n++] = use[3 * c];
            moving += used;
            emptied += blocks - used;
        }
        long[] out = Arrays.copyOf(victims, n);
        Arrays.sort(out);
        return out;
    }

    private long blocksOf(long[] use, int c, long headerBlocks) {
        return (use[3 * c + 1] >>> shift) - headerBlocks;
    }

    /**
     * Removes every entry that fails its checks (see {@link SegmentScan#slotsToDrop}: outside the
     * heap or this segment's chunks, a malformed header, a wrong checksum, another tag or segment,
     * overlapping another), then rebuilds the free space, which frees the dropped entries' blocks
     * with every other gap. Under the lock. A damaged table word or chunk list cannot be salvaged
     * this way and is reported as {@link MapCorruptedException}.
     *
     * @return the file offsets of the entries dropped
     */
    long[] dropDamaged() {
        long[] slots = SegmentScan.slotsToDrop(file, index);
        long[] dropped = new long[slots.length];
        for (int i = 0; i < slots.length; i++) {
            MemorySegment m = file.mem(slots[i] + Long.BYTES);
            dropped[i] = SlotLayout.position(Mem.getLong(m, slots[i]), shift);
            // A tombstone, not an empty slot: other keys' probe paths may run through it.
            Mem.setLongRelease(m, slots[i], SlotLayout.TOMBSTONE);
        }
        // Always: free lists, counters or the bump region may be what was damaged.
        rebuild();
        return dropped;
    }

    long repairs() {
        return file.readVolatile(base + REPAIRS);
    }
}
