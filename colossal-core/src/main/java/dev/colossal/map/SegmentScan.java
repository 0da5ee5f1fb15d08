package dev.colossal.map;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A read-only walk over one segment: its chunk list, its table and every live entry, checking
 * that the structure holds together. The repair rebuilds free space from it; {@code verify}
 * ({@link #deep}) also checks every checksum and slot tag.
 *
 * <p>Run it under the segment's lock, or on a file nobody writes.
 */
final class SegmentScan {

    private final MapFile file;
    private final int index;
    private final int shift;
    private final long base;
    private final MemorySegment m;
    private final long allocEnd;
    private final long directoryEnd;

    private long[] chunkStarts = new long[0];
    private long[] chunkSizes = new long[0];
    private long[] entries = new long[0];
    private long liveEntries;
    private long tombstones;
    private long usedBlocks;
    private long tableSlots;
    private long pendingToAdopt;
    private long retiredToAdopt;
    /** Bytes of the extents at {@link #pendingToAdopt} and {@link #retiredToAdopt}. */
    private long adoptableBytes;
    private final List<String> problems = new ArrayList<>();
    private int repairableProblems;
    private final long[] valueSizeHistogram = new long[33];
    private long keyBytes;
    private long valueBytes;
    private long entryBytes;
    private long expiringEntries;

    private SegmentScan(MapFile file, int index) {
        this.file = file;
        this.index = index;
        this.shift = file.blockShift;
        this.base = FileHeaderLayout.segmentOffset(index);
        this.allocEnd = file.allocEnd();
        this.m = file.mem(allocEnd);
        this.directoryEnd = FileHeaderLayout.directoryEnd(file.segmentCount);
    }

    /** Scans the structure; throws {@link MapCorruptedException} if it does not hold together. */
    static SegmentScan of(MapFile file, int index) {
        SegmentScan s = new SegmentScan(file, index);
        s.scan(false);
        return s;
    }

    /** Scans and also checks every entry's checksum and slot tag, collecting {@link #problems}. */
    static SegmentScan deep(MapFile file, int index) {
        SegmentScan s = new SegmentScan(file, index);
        s.scan(true);
        return s;
    }

    /**
     * Every extent segment {@code index} owns or is about to own, as pairs (start, bytes), read
     * without its lock for {@link SpareExtents#rebuild}, which holds the file lock so that no
     * extent is taken or given back meanwhile. An extent still moves from one word to another
     * (pending to table or chunk list, table to retired to chunk list), so the words are read in
     * that order, each an acquire: one that moves while they are read is seen at least once. An
     * extent counted twice (a pending one already linked) is harmless here; one missed is not.
     *
     * @throws MapCorruptedException if the table word or the chunk list is damaged
     */
    static long[] extentsOf(MapFile file, int index) {
        SegmentScan s = new SegmentScan(file, index);
        long pending = Mem.getLongAcquire(s.m, s.base + SegmentLayout.PENDING_EXTENT);
        long pendingBytes = Mem.getLong(s.m, s.base + SegmentLayout.PENDING_BYTES);
        long table = Mem.getLongAcquire(s.m, s.base + SegmentLayout.TABLE);
        long retired = Mem.getLongAcquire(s.m, s.base + SegmentLayout.RETIRED_TABLE);
        s.readChunks();
        long[] out = new long[2 * s.chunkStarts.length + 6];
        int n = 0;
        for (int i = 0; i < s.chunkStarts.length; i++) {
            out[n++] = s.chunkStarts[i];
            out[n++] = s.chunkSizes[i];
        }
        for (long word : new long[] {table, retired}) {
            if (word != 0) {
                long p = SlotLayout.tablePosition(word);
                if (SlotLayout.slots(word) < 0 || p < s.directoryEnd || p + Segment.tableBytes(word) > s.allocEnd) {
                    throw file.corrupt(s.base + (word == table ? SegmentLayout.TABLE : SegmentLayout.RETIRED_TABLE),
                            "segment=" + index + " has a bad table word 0x" + Long.toHexString(word));
                }
                out[n++] = p;
                out[n++] = Segment.tableBytes(word);
            }
        }
        if (pending != 0 && pending >= s.directoryEnd && pendingBytes > 0 && pending + pendingBytes <= s.allocEnd) {
            out[n++] = pending;
            out[n++] = pendingBytes;
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * The offsets of the table slots whose entries a repair must drop, so that what stays passes
     * {@link #of} and holds each key once: a slot that points outside the heap or outside this
     * segment's chunks, at a malformed header, at an entry that fails its checksum or belongs to
     * another tag or segment, at an entry a get of its key would not reach (an empty slot or
     * another slot of the same key comes first on its probe path), or at an entry overlapping one
     * at a lower offset. Slots and entries from different moments come from a copy of a file
     * being written ({@code cp} of a map in use) or a stray write.
     *
     * @throws MapCorruptedException if the table word or the chunk list is damaged: no slot can
     *                               be judged then
     */
    static long[] slotsToDrop(MapFile file, int index) {
        SegmentScan s = new SegmentScan(file, index);
        s.readChunks();
        long table = Mem.getLong(s.m, s.base + SegmentLayout.TABLE);
        if (table == 0) {
            return new long[0];
        }
        long tpos = SlotLayout.tablePosition(table);
        long slots = SlotLayout.slots(table);
        if (slots < 0 || tpos < s.directoryEnd || tpos + SlotLayout.tableBytes(slots) > s.allocEnd) {
            throw file.corrupt(s.base + SegmentLayout.TABLE, "segment=" + index + " has a bad table word 0x"
                    + Long.toHexString(table));
        }
        long[] drop = new long[16];
        int dropped = 0;
        long[] kept = new long[(int) ((slots + 63) >>> 6)];
        long[] positions = new long[16];
        int n = 0;
        for (long i = 0; i < slots; i++) {
            long at = SlotLayout.slotOffset(tpos, i);
            long slot = Mem.getLong(s.m, at);
            if (!SlotLayout.isEntry(slot)) {
                continue;
            }
            long e = SlotLayout.position(slot, s.shift);
            if (s.soundEntryEnd(slot, e) < 0 || !s.reachedByItsKey(tpos, slots, i, e)) {
                drop = add(drop, dropped++, at);
            } else {
                kept[(int) (i >>> 6)] |= 1L << i;
                positions = add(positions, n++, e);
            }
        }
        // Of two entries that overlap, the one at the lower offset stays.
        Arrays.sort(positions, 0, n);
        long[] overlapping = new long[16];
        int o = 0;
        long prevEnd = 0;
        for (int j = 0; j < n; j++) {
            if (positions[j] < prevEnd) {
                overlapping = add(overlapping, o++, positions[j]);
            } else {
                prevEnd = positions[j] + (s.entryBlocks(positions[j]) << s.shift);
            }
        }
        for (long i = 0; o > 0 && i < slots; i++) {
            long at = SlotLayout.slotOffset(tpos, i);
            if ((kept[(int) (i >>> 6)] & 1L << i) != 0
                    && Arrays.binarySearch(overlapping, 0, o, SlotLayout.position(Mem.getLong(s.m, at), s.shift)) >= 0) {
                drop = add(drop, dropped++, at);
            }
        }
        return Arrays.copyOf(drop, dropped);
    }

    private static long[] add(long[] to, int at, long value) {
        long[] out = at == to.length ? Arrays.copyOf(to, at * 2) : to;
        out[at] = value;
        return out;
    }

    /** Where the entry {@code slot} names ends if it is one that {@link #of} and a read accept, else -1. */
    private long soundEntryEnd(long slot, long e) {
        if (e < directoryEnd || e + EntryLayout.MAX_HEADER_BYTES > allocEnd) {
            return -1;
        }
        long header = EntryLayout.header(m, e);
        if (header < 0 || e + EntryLayout.bytes(header) > allocEnd) {
            return -1;
        }
        long end = e + (EntryLayout.blocks(header, shift) << shift);
        return insideAChunk(e, end) && contentProblem(slot, e, header) == null ? end : -1;
    }

    /**
     * Whether a get of the key of sound entry {@code e}, in slot {@code i}, reaches that slot:
     * no empty slot and no other sound slot of the same key lies before it on the key's probe path.
     */
    private boolean reachedByItsKey(long tpos, long slots, long i, long e) {
        long header = EntryLayout.header(m, e);
        long keyAt = EntryLayout.keyOffset(e, header);
        long klen = EntryLayout.keyLength(header);
        long h = Segment.hashKey(m, keyAt, klen);
        long idx = SlotLayout.bucket(h, slots);
        for (long probes = 0; probes < slots && idx != i; probes++, idx = SlotLayout.next(idx, slots)) {
            long other = Mem.getLong(m, SlotLayout.slotOffset(tpos, idx));
            if (other == SlotLayout.EMPTY) {
                return false;
            }
            if (SlotLayout.isEntry(other) && SlotLayout.tagMatches(other, h)) {
                long oe = SlotLayout.position(other, shift);
                if (soundEntryEnd(other, oe) >= 0) {
                    long oh = EntryLayout.header(m, oe);
                    if (EntryLayout.keyLength(oh) == klen
                            && MemorySegment.mismatch(m, EntryLayout.keyOffset(oe, oh), EntryLayout.keyOffset(oe, oh) + klen,
                                    m, keyAt, keyAt + klen) == -1) {
                        return false;
                    }
                }
            }
        }
        return idx == i;
    }

    private void scan(boolean deep) {
        readChunks();
        long table = Mem.getLong(m, base + SegmentLayout.TABLE);
        long tpos = SlotLayout.tablePosition(table);
        readPending(table == 0 ? -1 : tpos);
        readRetired(table == 0 ? -1 : tpos);
        if (table != 0) {
            readTable(table, deep);
        }
        checkEntriesInsideChunks();
        if (deep && expiringEntries > 0 && Mem.getLong(m, base + SegmentLayout.MAY_EXPIRE) == 0) {
            repairable("offset=" + (base + SegmentLayout.MAY_EXPIRE) + ": segment=" + index + " holds "
                    + expiringEntries + " entries with an expiry time but its mayExpire word is 0, so growing it "
                    + "would keep expired entries (compact recounts it)");
        }
    }

    private void readChunks() {
        List<long[]> list = new ArrayList<>();
        // Damage is reported where the bad word lies: the value read is no place in the file.
        long linkAt = base + SegmentLayout.CHUNKS;
        long c = Mem.getLong(m, linkAt);
        long limit = allocEnd / FileHeaderLayout.EXTENT_ALIGN;
        while (c != 0) {
            if (c < directoryEnd || c % FileHeaderLayout.EXTENT_ALIGN != 0 || c >= allocEnd) {
                throw file.corrupt(linkAt, "segment=" + index + " has a chunk link to 0x" + Long.toHexString(c)
                        + ", outside the heap (" + directoryEnd + ".." + allocEnd + ")");
            }
            if (list.size() > limit) {
                throw file.corrupt(linkAt, "segment=" + index + " has a cycle in its chunk list");
            }
            long bytes = m.get(JAVA_LONG, c + HeapLayout.CHUNK_BYTES);
            if (bytes <= HeapLayout.chunkHeaderBytes(shift) || bytes % (1L << shift) != 0 || c + bytes > allocEnd) {
                throw file.corrupt(c + HeapLayout.CHUNK_BYTES, "segment=" + index + " has a chunk at offset=" + c
                        + " whose size word is damaged (chunkBytes=" + bytes + ")");
            }
            list.add(new long[] {c, bytes});
            linkAt = c + HeapLayout.NEXT_CHUNK;
            c = m.get(JAVA_LONG, linkAt);
        }
        list.sort((a, b) -> Long.compare(a[0], b[0]));
        chunkStarts = new long[list.size()];
        chunkSizes = new long[list.size()];
        for (int i = 0; i < list.size(); i++) {
            chunkStarts[i] = list.get(i)[0];
            chunkSizes[i] = list.get(i)[1];
            if (i > 0 && chunkStarts[i - 1] + chunkSizes[i - 1] > chunkStarts[i]) {
                throw file.corrupt(chunkStarts[i], "segment=" + index + " has overlapping chunks");
            }
        }
    }

    private void readPending(long tablePosition) {
        long p = Mem.getLong(m, base + SegmentLayout.PENDING_EXTENT);
        long bytes = Mem.getLong(m, base + SegmentLayout.PENDING_BYTES);
        if (p == 0 || p == tablePosition || Arrays.binarySearch(chunkStarts, p) >= 0) {
            return;
        }
        // An extent a dead writer took but never linked: adopt it if it is plausible, else leak it.
        if (p >= directoryEnd && p % FileHeaderLayout.EXTENT_ALIGN == 0 && bytes > HeapLayout.chunkHeaderBytes(shift)
                && bytes % FileHeaderLayout.EXTENT_ALIGN == 0 && p + bytes <= allocEnd) {
            pendingToAdopt = p;
            adoptableBytes += bytes;
        }
    }

    /** A table a dead writer had replaced but not yet turned into heap: adopt it if plausible. */
    private void readRetired(long tablePosition) {
        long word = Mem.getLong(m, base + SegmentLayout.RETIRED_TABLE);
        long p = SlotLayout.tablePosition(word);
        if (word == 0 || p == tablePosition || p == pendingToAdopt || Arrays.binarySearch(chunkStarts, p) >= 0
                || SlotLayout.slots(word) < 0) {
            return;
        }
        if (p >= directoryEnd && p + Segment.tableBytes(word) <= allocEnd) {
            retiredToAdopt = p;
            adoptableBytes += Segment.tableBytes(word);
        }
    }

    private void readTable(long table, boolean deep) {
        long tpos = SlotLayout.tablePosition(table);
        tableSlots = SlotLayout.slots(table);
        if (tableSlots < 0 || tpos < directoryEnd || tpos + SlotLayout.tableBytes(tableSlots) > allocEnd) {
            throw file.corrupt(base + SegmentLayout.TABLE, "segment=" + index + " has a bad table word 0x"
                    + Long.toHexString(table));
        }
        long[] found = new long[16];
        int n = 0;
        for (long i = 0; i < tableSlots; i++) {
            long s = Mem.getLong(m, SlotLayout.slotOffset(tpos, i));
            if (s == SlotLayout.TOMBSTONE) {
                tombstones++;
            } else if (s != SlotLayout.EMPTY) {
                long e = SlotLayout.position(s, shift);
                long header = checkEntryBounds(e, SlotLayout.slotOffset(tpos, i));
                if (deep) {
                    checkEntryContent(s, e, header);
                }
                if (n == found.length) {
                    found = Arrays.copyOf(found, n * 2);
                }
                found[n++] = e;
            }
        }
        entries = Arrays.copyOf(found, n);
        Arrays.sort(entries);
        liveEntries = n;
    }

    /** Checks that the entry's header is well formed and the entry inside the file; returns its header. */
    private long checkEntryBounds(long e, long slotOffset) {
        if (e < directoryEnd || e + EntryLayout.MAX_HEADER_BYTES > allocEnd) {
            throw file.corrupt(slotOffset, "segment=" + index + " has a table slot pointing outside the heap (to "
                    + e + ")");
        }
        long header = EntryLayout.header(m, e);
        if (header < 0 || e + EntryLayout.bytes(header) > allocEnd) {
            throw file.corrupt(e, "segment=" + index + " has an entry with a malformed header, or one that lies past"
                    + " the allocated end" + (header < 0 ? "" : " (keyLength=" + EntryLayout.keyLength(header) + " valueLength="
                    + EntryLayout.valueLength(header) + ")"));
        }
        int vlen = EntryLayout.valueLength(header);
        keyBytes += EntryLayout.keyLength(header);
        valueBytes += vlen;
        entryBytes += EntryLayout.bytes(header);
        if (EntryLayout.tailBytes(header) != 0) {
            expiringEntries++;
        }
        valueSizeHistogram[32 - Integer.numberOfLeadingZeros(vlen)]++;
        return header;
    }

    private void checkEntryContent(long slot, long e, long header) {
        String problem = contentProblem(slot, e, header);
        if (problem != null) {
            problems.add("offset=" + e + ": " + problem + " (segment=" + index + ")");
        }
    }

    /** What is wrong with the bytes of the entry {@code slot} names at {@code e}: its checksum, its slot's tag, its segment; null if nothing. */
    private String contentProblem(long slot, long e, long header) {
        if (file.checksums && EntryLayout.storedChecksum(m, e) != EntryLayout.checksum(m, e, header)) {
            return "entry checksum mismatch";
        }
        long h = Segment.hashKey(m, EntryLayout.keyOffset(e, header), EntryLayout.keyLength(header));
        if (!SlotLayout.tagMatches(slot, h)) {
            return "slot tag does not match the key's hash";
        }
        return SlotLayout.segmentOf(h, file.segmentCount - 1) != index ? "key belongs to another segment" : null;
    }

    /** Whether the entry from {@code e} to {@code end} lies in one of this segment's chunks, after its header. */
    private boolean insideAChunk(long e, long end) {
        int c = chunkOf(e);
        return c >= 0 && e >= chunkStarts[c] + HeapLayout.chunkHeaderBytes(shift) && end <= chunkStarts[c] + chunkSizes[c];
    }

    private void checkEntriesInsideChunks() {
        long prevEnd = 0;
        for (long e : entries) {
            long end = e + (entryBlocks(e) << shift);
            if (!insideAChunk(e, end)) {
                throw file.corrupt(e, "segment=" + index + " has an entry outside its heap chunks");
            }
            if (e < prevEnd) {
                throw file.corrupt(e, "segment=" + index + " has overlapping entries");
            }
            prevEnd = end;
            usedBlocks += entryBlocks(e);
        }
    }

    private int chunkOf(long pos) {
        int i = Arrays.binarySearch(chunkStarts, pos);
        return i >= 0 ? i : -i - 2;
    }

    private long entryBlocks(long e) {
        return EntryLayout.blocks(EntryLayout.header(m, e), shift);
    }

    /** The chunks as triples (start, bytes, blocks used by live entries), in file order. */
    long[] chunkUse() {
        long[] out = new long[3 * chunkStarts.length];
        for (int c = 0; c < chunkStarts.length; c++) {
            out[3 * c] = chunkStarts[c];
            out[3 * c + 1] = chunkSizes[c];
        }
        for (long e : entries) {
            out[3 * chunkOf(e) + 2] += entryBlocks(e);
        }
        return out;
    }

    /** Free gaps as triples (chunk, from, to), in file order. */
    long[] gaps() {
        long[] out = new long[16];
        int n = 0;
        int next = 0;
        for (int c = 0; c < chunkStarts.length; c++) {
            long cursor = chunkStarts[c] + HeapLayout.chunkHeaderBytes(shift);
            long end = chunkStarts[c] + chunkSizes[c];
            while (next <= entries.length) {
                long to = next < entries.length && entries[next] < end ? entries[next] : end;
                if (to > cursor) {
                    if (n + 3 > out.length) {
                        out = Arrays.copyOf(out, out.length * 2);
                    }
                    out[n++] = chunkStarts[c];
                    out[n++] = cursor;
                    out[n++] = to;
                }
                if (to == end) {
                    break;
                }
                cursor = entries[next] + (entryBlocks(entries[next]) << shift);
                next++;
            }
        }
        return Arrays.copyOf(out, n);
    }

    long chunkBytes(long chunk) {
        return chunkSizes[Arrays.binarySearch(chunkStarts, chunk)];
    }

    long pendingToAdopt() {
        return pendingToAdopt;
    }

    long retiredToAdopt() {
        return retiredToAdopt;
    }

    /**
     * Bytes a dead writer took for this segment but never linked into its heap (a new chunk, or a
     * table it replaced), which a rebuild adopts as heap.
     */
    long adoptableBytes() {
        return adoptableBytes;
    }

    long liveEntries() {
        return liveEntries;
    }

    /** Live entries that carry an expiry time. */
    long expiringEntries() {
        return expiringEntries;
    }

    long tombstones() {
        return tombstones;
    }

    long usedBlocks() {
        return usedBlocks;
    }

    long tableSlots() {
        return tableSlots;
    }

    int chunkCount() {
        return chunkStarts.length;
    }

    long heapBytes() {
        long sum = 0;
        for (long s : chunkSizes) {
            sum += s;
        }
        return sum;
    }

    /**
     * Walks every free list and the bump region: blocks they offer. With {@link #usedBlocks} this
     * adds up to {@link #heapBlocks} unless space leaked (a crash before the last repair) or the
     * lists are damaged (then a problem is recorded).
     */
    long freeBlocks() {
        long total = 0;
        long limit = heapBlocks();
        for (int c = 0; c < SegmentLayout.FREE_CLASSES; c++) {
            long linkAt = base + SegmentLayout.freeHead(c);
            long run = Mem.getLong(m, linkAt);
            while (run != 0) {
                int ci = chunkOf(run);
                // A link off the block grid or outside the heap is damage: not read through.
                boolean plausible = (run & ((1L << shift) - 1)) == 0 && run >= directoryEnd
                        && run + HeapLayout.RUN.byteSize() <= allocEnd;
                int blocks = plausible ? m.get(JAVA_INT, run + HeapLayout.RUN_BLOCKS) : -1;
                if (ci < 0 || run < chunkStarts[ci] + HeapLayout.chunkHeaderBytes(shift) || blocks <= 0
                        || run + ((long) blocks << shift) > chunkStarts[ci] + chunkSizes[ci]
                        || m.get(JAVA_INT, run + HeapLayout.RUN_MAGIC) != HeapLayout.FREE_MAGIC
                        || SegmentLayout.freeClassOf(blocks) != c) {
                    repairable("offset=" + linkAt + ": segment=" + index + " has a free-list link (class " + c
                            + ") to 0x" + Long.toHexString(run) + ", where no free run lies (compact rebuilds the free lists)");
                    break;
                }
                int e = Arrays.binarySearch(entries, run);
                int after = e >= 0 ? e : -e - 1;
                if (e >= 0 || (after < entries.length && entries[after] < run + ((long) blocks << shift))
                        || (after > 0 && entries[after - 1] + (entryBlocks(entries[after - 1]) << shift) > run)) {
                    repairable("offset=" + run + ": segment=" + index + " has a free run that overlaps a live entry"
                            + " (compact rebuilds the free lists)");
                    break;
                }
                total += blocks;
                if (total > limit) {
                    repairable("offset=" + run + ": segment=" + index + " has free lists that hold more than its heap,"
                            + " a cycle? (compact rebuilds the free lists)");
                    return total;
                }
                linkAt = run + HeapLayout.RUN_NEXT;
                run = m.get(JAVA_LONG, linkAt);
            }
        }
        long bump = Mem.getLong(m, base + SegmentLayout.BUMP_POS);
        long bumpEnd = Mem.getLong(m, base + SegmentLayout.BUMP_END);
        if (bump == 0 && bumpEnd == 0) {
            return total;
        }
        if (!bumpRegionSound(bump, bumpEnd)) {
            repairable("offset=" + (base + SegmentLayout.BUMP_POS) + ": segment=" + index + " has a damaged bump region"
                    + " (bumpPos=" + bump + ", bumpEnd=" + bumpEnd + "): puts would write over other data"
                    + " (compact rebuilds it)");
            return total;
        }
        return total + ((bumpEnd - bump) >>> shift);
    }

    /**
     * Whether the bump region is the tail of one of the segment's chunks, on the block grid, with
     * no live entry in it: where a rebuild or a new chunk puts it.
     */
    private boolean bumpRegionSound(long bump, long bumpEnd) {
        int c = chunkOf(bumpEnd - 1);
        if (c < 0 || bumpEnd != chunkStarts[c] + chunkSizes[c] || bump < chunkStarts[c] + HeapLayout.chunkHeaderBytes(shift)
                || bump > bumpEnd || (bump & ((1L << shift) - 1)) != 0) {
            return false;
        }
        int after = Arrays.binarySearch(entries, bump);
        after = after >= 0 ? after : -after - 1;
        return after == entries.length || entries[after] >= bumpEnd;
    }

    /** Blocks of all chunks, less their header blocks. */
    long heapBlocks() {
        return (heapBytes() >>> shift) - chunkStarts.length * (HeapLayout.chunkHeaderBytes(shift) >>> shift);
    }

    List<String> problems() {
        return problems;
    }

    /** Records a problem that {@link Segment#rebuild} (what compact runs) repairs: it rewrites only derived state. */
    private void repairable(String problem) {
        problems.add(problem);
        repairableProblems++;
    }

    /** How many of the {@link #problems} {@link Segment#rebuild} repairs; the rest is damaged data. */
    int repairableProblems() {
        return repairableProblems;
    }

    /** Entries by value length: bucket b holds lengths of bit length b (0, 1, 2-3, 4-7, ...). */
    long[] valueSizeHistogram() {
        return valueSizeHistogram;
    }

    long keyBytes() {
        return keyBytes;
    }

    long valueBytes() {
        return valueBytes;
    }

    /** Bytes of the live entries from header to expiry time, without padding to whole blocks. */
    long entryBytes() {
        return entryBytes;
    }
}
