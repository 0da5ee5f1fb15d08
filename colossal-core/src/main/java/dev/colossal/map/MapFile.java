package dev.colossal.map;

import static dev.colossal.map.FileHeaderLayout.ALLOC_END_OFFSET;
import static dev.colossal.map.FileHeaderLayout.FILE_LOCK_OFFSET;

import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The map file: creates and validates its header, maps it, remaps it when it grew (in this or
 * another process), and hands out extents.
 *
 * <p>The file only ever grows by writing zeros through the channel (real blocks, never holes), and
 * it is only ever mapped up to its current size: a full disk is an {@link IOException} from
 * {@link #allocateExtent}, and no access can touch a page past the end of the file.
 *
 * <p>A remap publishes the new mapping and retires the old one, which is closed once no thread of
 * this process can still write through it: a thread that may write (a lock holder, a lock waiter,
 * a reader marking an entry) first {@link #pin pins} a stripe, and a retired batch of mappings is
 * closed once every stripe has been seen unpinned after the batch started, and not before
 * {@link #RETIRE_GRACE_NANOS} after its last mapping was replaced. Optimistic readers do not pin; a
 * read through a closed mapping throws {@link IllegalStateException}, and they retry (see
 * {@link #replaced}), but the grace keeps that for reads slower than it: closing a mapping under a
 * thread that reads it also interrupts that thread (see {@link #RETIRE_GRACE_NANOS}). So the process
 * maps about the file, plus the generations in transit.
 */
final class MapFile implements AutoCloseable {

    private static final long MIN_GROWTH = 256 << 10;
    private static final long GROWTH_ALIGN = 64 << 10;
    /**
     * Zeros are written one page per call: the kernel sizes a page-cache folio by the write that
     * creates it, and a write fault on a clean folio (every page the flusher wrote back) has ext4
     * walk and dirty all of the folio's blocks. With 1 MiB writes an overwrite of a 2 KiB value
     * spent 10 us of system time per put in those faults (and dirtied 1 MiB for writeback per
     * page touched); with one page per write, 2 us.
     */
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(4096);
    private static final int MAX_STRIPES = 64;
    /** Ints per pin counter: one cache line, so that threads on different stripes do not share one. */
    private static final int PIN_STRIDE = 16;
    /**
     * How long a replaced mapping stays open at least. Readers do not pin, and the JDK closes a
     * shared mapping by stopping every thread that is reading through it with an asynchronous
     * exception, which HotSpot installs as it did {@code Thread.stop}'s: it also sets the thread's
     * interrupt flag (to wake it from a wait), and leaves it set even when the read ended before
     * the exception was thrown. Closed at once, a replaced mapping interrupted readers of other
     * threads: an event loop's {@code select} then returned at once for ever, a test's
     * {@code join} threw {@code InterruptedException} (a platform thread reading while 200
     * mappings were closed under it was interrupted 31 times). A read takes microseconds and
     * loads the current mapping again on each attempt, so after a second no reader is left on a
     * replaced mapping but one stalled mid-read that long.
     */
    static final long RETIRE_GRACE_NANOS = 1_000_000_000L;
    /** Runs {@link #reclaimAfterGrace} once a retired batch's grace is over, off the threads that use the map. */
    private static final java.util.concurrent.Executor AFTER_GRACE = java.util.concurrent.CompletableFuture
            .delayedExecutor(RETIRE_GRACE_NANOS + 1_000_000L, java.util.concurrent.TimeUnit.NANOSECONDS,
                    task -> Thread.ofVirtual().name("colossal-map-unmap").start(task));
    /**
     * What to do about a damaged header: nothing in the file says what it held, and {@code verify}
     * stops at the same check, so pointing there would go round in circles.
     */
    private static final String RESTORE = "restore the file from a copy";

    final Path path;
    final int segmentCount;
    final int blockShift;
    final boolean checksums;
    /** Whether lookups in this process check the checksums of the entries they meet. */
    final boolean verifyReads;
    /**
     * Opened for reading only ({@link BytesMap#openReadOnly}, and the tools on a file this user may
     * not write): mapped read-only, so a store anywhere fails at once, no lock is ever taken (see
     * {@link Segment#readConsistently}), and every write is refused first ({@link #checkWritable}).
     */
    final boolean readOnly;
    private final int formatVersion;
    private final long createdMillis;
    /** The bounds as the file's creator gave them, before rounding per segment. */
    private final long maxEntries;
    private final long maxBytes;
    private final long expectedEntries;
    final long maxEntriesPerSegment;
    final long maxBlocksPerSegment;
    /** The size of a segment's first table: one that holds the expected entries without growing. */
    final long initialSlots;
    /** Reopened when a thread's interrupt closed it, which would otherwise break every later growth. */
    private final ReopeningChannel channel;
    /** Pin counts, one per stripe of segments, each on its own cache line. */
    private final AtomicIntegerArray pins;
    private final int stripes;
    private final ReentrantLock retireLock = new ReentrantLock();
    private Arena arena;
    /** Retired mappings waiting for every stripe to be seen unpinned (from stripe {@code quietStripes} on). */
    private final List<Arena> inTransit = new ArrayList<>();
    /** Mappings retired after the in-transit batch started: the next batch. */
    private final List<Arena> nextBatch = new ArrayList<>();
    /** When the in-transit batch's last mapping was replaced ({@link System#nanoTime}). */
    private long inTransitRetired;
    /** When the next batch's last mapping was replaced. */
    private long nextBatchRetired;
    private int quietStripes;
    /** Whether a batch's grace is over and it waits only for the stripes: unpins try to close it. */
    private volatile boolean retiring;
    /** How many times this process remapped the file (tests and probes). */
    volatile int remaps;
    private volatile MemorySegment mem;
    /** The clock expiry is measured against; tests replace it. */
    volatile java.util.function.LongSupplier clock = System::currentTimeMillis;
    /** Told of entries the CLOCK hand removes in this process, or null. */
    volatile EvictionListener evictionListener;
    /** Extents given back by segments, for any segment to take before the file grows. */
    final SpareExtents spares = new SpareExtents(this);
    /** When a segment that cannot grow may scan the others for space (a full disk). */
    final ReclaimPacer reclaims = new ReclaimPacer();
    /** What the segments' free-run indexes may hold of the Java heap together (tests swap in a smaller one). */
    FitBudget fitBudget = FitBudget.forFile(this::allocEnd);
    /** The thread of this process holding each segment's lock, shared with the process's other opens of the file. */
    final LockHolders holders;
    /** Tells a live lock owner from a word that came with a copy of the file (a live process that does not map it). */
    final FileMappers mappers = new FileMappers(this::mem);

    private MapFile(Path path, ReopeningChannel channel, ByteBuffer header, boolean verifyReads, boolean readOnly)
            throws IOException {
        this.path = path;
        this.channel = channel;
        this.readOnly = readOnly;
        this.segmentCount = header.getInt((int) FileHeaderLayout.SEGMENT_COUNT_OFFSET);
        this.blockShift = Integer.numberOfTrailingZeros(
                header.getInt((int) FileHeaderLayout.BLOCK_SIZE_OFFSET));
        this.formatVersion = header.getInt((int) FileHeaderLayout.FORMAT_VERSION_OFFSET);
        this.createdMillis = header.getLong((int) FileHeaderLayout.CREATED_OFFSET);
        this.checksums = (header.getInt((int) FileHeaderLayout.FLAGS_OFFSET)
                & FileHeaderLayout.FLAG_CHECKSUMS) != 0;
        this.verifyReads = checksums && verifyReads;
        // Bounds are kept per segment, rounded up: the map-wide bound holds approximately.
        this.maxEntries = header.getLong((int) FileHeaderLayout.MAX_ENTRIES_OFFSET);
        this.maxBytes = header.getLong((int) FileHeaderLayout.MAX_BYTES_OFFSET);
        this.maxEntriesPerSegment = perSegment(maxEntries);
        this.maxBlocksPerSegment = perSegment(maxBytes >>> blockShift);
        this.expectedEntries = Math.max(0, header.getLong((int) FileHeaderLayout.EXPECTED_ENTRIES_OFFSET));
        long expected = perSegment(expectedEntries);
        this.initialSlots = SlotLayout.slotsFor(Math.min(expected, 1L << 30));
        this.stripes = Math.min(segmentCount, MAX_STRIPES);
        this.pins = new AtomicIntegerArray(stripes * PIN_STRIDE);
        Arena first = Arena.ofShared();
        this.arena = first;
        this.mem = channel.call(ch -> ch.map(mapMode(), 0, ch.size(), first));
        MemorySegment mapped = this.mem;
        this.holders = LockHolders.of(channel.fileKey(), segmentCount, lock -> {
            long word = lock == segmentCount ? FILE_LOCK_OFFSET : FileHeaderLayout.segmentOffset(lock) + SegmentLayout.LOCK_OWNER;
            // A file too short for its segments is refused by the checks that follow.
            return word + Long.BYTES <= mapped.byteSize() ? Mem.getLongAcquire(mapped, word) : 0;
        });
    }

    /**
     * Keeps every mapping this thread reads from now on open until {@link #unpin}; call before any
     * write or lock word CAS through a mapping, and unpin after the last of them, a lock's release
     * included (a closed mapping may fail such a store after it happened, or fail a release and
     * leave a lock word naming this process that no one lets go; so only reads may be retried).
     * The grace before a replaced mapping closes ({@link #RETIRE_GRACE_NANOS}) does not replace
     * the pin: a lock may be held longer.
     */
    void pin(int segment) {
        pins.getAndIncrement((segment & (stripes - 1)) * PIN_STRIDE);
    }

    /** Ends a {@link #pin}; closes retired mappings if that made them unreachable. */
    void unpin(int segment) {
        pins.getAndDecrement((segment & (stripes - 1)) * PIN_STRIDE);
        if (retiring) {
            reclaim();
        }
    }

    /** {@link #reclaimLocked}, unless another thread is at it. */
    private void reclaim() {
        if (!retireLock.tryLock()) {
            return;
        }
        try {
            reclaimLocked();
        } finally {
            retireLock.unlock();
        }
    }

    /** Once a batch's grace is over: closes it now if it can, else lets unpins try. */
    private void reclaimAfterGrace() {
        retireLock.lock();
        try {
            retiring = true;
            reclaimLocked();
        } finally {
            retireLock.unlock();
        }
    }

    /**
     * Closes the batch of retired mappings once its grace is over and every stripe has been seen
     * unpinned since the batch started: a thread that pinned later read a newer mapping. Never
     * waits for a pinned thread. A batch still in its grace is left to the task its last
     * retirement scheduled; until then unpins do not come here.
     */
    private void reclaimLocked() {
        while (!inTransit.isEmpty()) {
            if (System.nanoTime() - inTransitRetired < RETIRE_GRACE_NANOS) {
                retiring = false;
                return;
            }
            while (quietStripes < stripes && pins.get(quietStripes * PIN_STRIDE) == 0) {
                quietStripes++;
            }
            if (quietStripes < stripes) {
                return;
            }
            inTransit.removeIf(MapFile::tryClose);
            if (!inTransit.isEmpty()) {
                return;
            }
            inTransit.addAll(nextBatch);
            nextBatch.clear();
            inTransitRetired = nextBatchRetired;
            quietStripes = 0;
        }
        retiring = false;
    }

    /** Closes a retired mapping; false if the JDK holds it (a channel I/O on it): try again later. */
    private static boolean tryClose(Arena a) {
        try {
            a.close();
            return true;
        } catch (IllegalStateException busy) {
            return false;
        }
    }

    /**
     * Tells whether an {@link IllegalStateException} met while reading through {@code seen} came
     * from a mapping retired since, so that the read may be retried with {@link #mem()}.
     *
     * @throws IllegalStateException if the map is closed
     */
    boolean replaced(MemorySegment seen) {
        return mem() != seen || !seen.scope().isAlive();
    }

    /** A volatile read of the long at {@code offset}, retried if its mapping was retired meanwhile. */
    long readVolatile(long offset) {
        while (true) {
            MemorySegment m = mem();
            try {
                return Mem.getLongVolatile(m, offset);
            } catch (IllegalStateException e) {
                if (!replaced(m)) {
                    throw e;
                }
            }
        }
    }

    /** How many mappings this process holds of the file: the current one and the retired ones. */
    int mappings() {
        retireLock.lock();
        try {
            return 1 + inTransit.size() + nextBatch.size();
        } finally {
            retireLock.unlock();
        }
    }

    private long perSegment(long total) {
        // ceilDiv: total + segmentCount - 1 overflowed for a bound near Long.MAX_VALUE, to one a segment
        return total == 0 ? 0 : Math.max(1, Math.ceilDiv(total, segmentCount));
    }

    boolean bounded() {
        return maxEntriesPerSegment != 0 || maxBlocksPerSegment != 0;
    }

    private FileChannel.MapMode mapMode() {
        return readOnly ? FileChannel.MapMode.READ_ONLY : FileChannel.MapMode.READ_WRITE;
    }

    /** Opens an existing map file for reading only: needs read permission on it, nothing more. */
    static MapFile openReadOnly(Path path) throws IOException {
        try {
            return openReadOnlyAs(path);
        } catch (IOException e) {
            throw outOfDescriptors(path, e);
        }
    }

    private static MapFile openReadOnlyAs(Path path) throws IOException {
        checkByteOrder();
        ReopeningChannel channel = ReopeningChannel.open(path, StandardOpenOption.READ);
        MapFile file;
        try {
            file = new MapFile(path, channel, validate(path, channel), true, true);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        try {
            file.checkExtentsBelowAllocEnd();
            return file;
        } catch (IOException | RuntimeException e) {
            file.close();   // the mapping too: closing the channel alone left the file mapped for good
            throw e;
        }
    }

    /** Opens the map file, creating it with {@code options} if it does not exist (unless options is null). */
    static MapFile open(Path path, MapOptions options) throws IOException {
        try {
            return openWritable(path, options);
        } catch (IOException e) {
            throw outOfDescriptors(path, e);
        }
    }

    /**
     * {@code e}, or if the process ran out of file descriptors (EMFILE) an exception that names the
     * map and the remedy, with {@code e} as its cause: the JDK's names the temporary file a new map
     * is written to, or the directory it lists, and says nothing of what to do. Each open map holds
     * a descriptor, so a process opening many meets {@code ulimit -n} (1024 in many shells). Here,
     * not in a class of its own: out of descriptors, a class not yet loaded may not load.
     */
    private static IOException outOfDescriptors(Path path, IOException e) {
        if (!(e instanceof FileSystemException fs) || !"Too many open files".equals(fs.getReason())) {
            return e;
        }
        FileSystemException named = new FileSystemException(path.toString(), null, "Too many open files: the"
                + " process has as many files open as its limit allows (ulimit -n), and each open map holds one;"
                + " close maps it no longer uses, or raise the limit");
        named.initCause(e);
        return named;
    }

    private static MapFile openWritable(Path path, MapOptions options) throws IOException {
        checkByteOrder();
        if (options != null && !Files.exists(path)) {
            create(path, options);
        }
        ReopeningChannel channel = ReopeningChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        MapFile file;
        try {
            file = new MapFile(path, channel, validate(path, channel), options == null || options.verifyReads(), false);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        try {
            file.checkExtentsBelowAllocEnd();
            if (options != null) {
                file.checkBound("maxEntries", options.maxEntries(), file.maxEntries, "withMaxEntries");
                file.checkBound("maxBytes", options.maxBytes(), file.maxBytes, "withMaxBytes");
            }
            return file;
        } catch (IOException | RuntimeException e) {
            // the mapping too: closing the channel alone left the file mapped until the process
            // ended, one mapping per open refused for its bound
            file.close();
            throw e;
        }
    }

    private static void checkByteOrder() throws MapFormatException {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new MapFormatException("map files are little-endian; this platform is big-endian");
        }
    }

    /**
     * Refuses a write through a read-only open before it takes a lock or changes anything: the
     * JDK would refuse the first store too, but partway into the write and with a message that
     * names neither the file nor the reason.
     *
     * @throws UnsupportedOperationException if the file was opened read-only
     */
    void checkWritable() {
        if (readOnly) {
            throw new UnsupportedOperationException("map file=" + path + " was opened read-only: it cannot be written"
                    + " through this map; open it with open(...) to write (as a user who may write the file)");
        }
    }

    /**
     * A damaged {@code allocEnd} below the extents in use would hand them out again; refuse the
     * file instead. Extents are only appended, so reading {@code allocEnd} after the walk is safe
     * against concurrent writers. A chunk or table said to end past the file is the segment's own
     * damage, not the header's: that segment reports it when scanned (verify, compact), and no
     * allocation can reach past the file's end, so it is left out here.
     */
    private void checkExtentsBelowAllocEnd() throws IOException {
        MemorySegment m = mem();
        long size = m.byteSize();
        long maxEnd = 0;
        String endedBy = "";
        for (int i = 0; i < segmentCount; i++) {
            long base = FileHeaderLayout.segmentOffset(i);
            long table = Mem.getLongAcquire(m, base + SegmentLayout.TABLE);
            long slots = SlotLayout.slots(table);
            long tableEnd = SlotLayout.tablePosition(table) + SlotLayout.tableBytes(Math.max(0, slots));
            if (table != 0 && slots > 0 && tableEnd <= size && tableEnd > maxEnd) {
                maxEnd = tableEnd;
                endedBy = "the table of segment=" + i + " (table word at offset=" + (base + SegmentLayout.TABLE) + ")";
            }
            long chunk = Mem.getLongAcquire(m, base + SegmentLayout.CHUNKS);
            for (int n = 0; chunk > 0 && chunk % FileHeaderLayout.EXTENT_ALIGN == 0 && chunk + 16 <= size
                    && n < 1_000_000; n++) {
                long bytes = m.get(java.lang.foreign.ValueLayout.JAVA_LONG, chunk + HeapLayout.CHUNK_BYTES);
                if (bytes > 0 && bytes <= size - chunk && chunk + bytes > maxEnd) {
                    maxEnd = chunk + bytes;
                    endedBy = "a chunk of segment=" + i + " (size word at offset=" + (chunk + HeapLayout.CHUNK_BYTES) + ")";
                }
                chunk = m.get(java.lang.foreign.ValueLayout.JAVA_LONG, chunk + HeapLayout.NEXT_CHUNK);
            }
        }
        long allocEnd = allocEnd();
        if (maxEnd > allocEnd) {
            throw new MapFormatException(path, "records allocEnd=" + allocEnd + " in its header (offset="
                    + ALLOC_END_OFFSET + "), but " + endedBy + " ends at " + maxEnd
                    + ": the header or that word is damaged", RESTORE);
        }
    }

    /**
     * Refuses a bound that differs from the file's: kept silently, a cache opened with a new bound
     * would go on evicting by the old one. No bound (0) in the options opens the file as it is,
     * like the layout options, which only shape a new file.
     */
    private void checkBound(String name, long asked, long kept, String option) {
        if (asked != 0 && asked != kept) {
            throw new IllegalArgumentException("file=" + path + " was created with " + name + "=" + kept
                    + (kept == 0 ? " (no bound)" : "") + " but the options ask for " + name + "=" + asked
                    + "; a bound cannot change once the file exists: open it with " + option + "(" + kept
                    + ") or without a bound, or create a new file");
        }
    }

    private static ByteBuffer validate(Path path, ReopeningChannel channel) throws IOException {
        long size = channel.call(FileChannel::size);
        if (size == 0) {
            // Never a map of ours, which appears complete or not at all: a file made for a new map
            // (Files.createTempFile), which open would create itself.
            throw new MapFormatException(path, "is empty, not a map", "to create a map there, delete the file"
                    + " first (open creates it, mode 0600; for a temporary map take a fresh name in a temporary directory)");
        }
        if (size < FileHeaderLayout.HEADER_BYTES) {
            throw new MapFormatException(path, "has " + size + " bytes, less than a map header ("
                    + FileHeaderLayout.HEADER_BYTES + "): not a Colossal map, or truncated", "restore it or delete it");
        }
        ByteBuffer h = ByteBuffer.allocate((int) FileHeaderLayout.LAYOUT.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        channel.call(ch -> ch.read(h.clear(), 0));
        long magic = h.getLong((int) FileHeaderLayout.MAGIC_OFFSET);
        if (magic != FileHeaderLayout.MAGIC) {
            throw new MapFormatException(path, "is not a Colossal map (magic=0x"
                    + Long.toHexString(magic) + ", expected 0x" + Long.toHexString(FileHeaderLayout.MAGIC) + ")",
                    "pass the path of a map file");
        }
        int version = h.getInt((int) FileHeaderLayout.FORMAT_VERSION_OFFSET);
        if (version > FileHeaderLayout.FORMAT_VERSION) {
            throw new MapFormatException(path, "has formatVersion=" + version
                    + ", newer than this Colossal reads (" + FileHeaderLayout.FORMAT_VERSION + ")",
                    "open it with a newer Colossal");
        }
        if (version >= 1 && version < FileHeaderLayout.OLDEST_READABLE) {
            throw new MapFormatException(path, "has formatVersion=" + version
                    + ", an older layout this Colossal does not read (" + olderFormat(version)
                    + "; no release wrote it)", "recreate the map from its source data");
        }
        int flags = h.getInt((int) FileHeaderLayout.FLAGS_OFFSET);
        int segments = h.getInt((int) FileHeaderLayout.SEGMENT_COUNT_OFFSET);
        int blockSize = h.getInt((int) FileHeaderLayout.BLOCK_SIZE_OFFSET);
        if (version < 1
                || h.getInt((int) FileHeaderLayout.HEADER_BYTES_OFFSET) != FileHeaderLayout.HEADER_BYTES
                || h.getInt((int) FileHeaderLayout.SEGMENT_BYTES_OFFSET) != SegmentLayout.BYTES
                || !FileHeaderLayout.validSegmentCount(segments)
                || !FileHeaderLayout.validBlockSize(blockSize)
                || (version < 6 && blockSize < 16)
                || (flags & ~FileHeaderLayout.KNOWN_FLAGS) != 0) {
            throw new MapFormatException(path, "has a damaged or unknown header (formatVersion="
                    + version + " segments=" + segments + " blockSize=" + blockSize + " flags=0x"
                    + Integer.toHexString(flags) + ")", RESTORE);
        }
        long maxEntries = h.getLong((int) FileHeaderLayout.MAX_ENTRIES_OFFSET);
        long maxBytes = h.getLong((int) FileHeaderLayout.MAX_BYTES_OFFSET);
        if (maxEntries < 0 || maxBytes < 0) {
            throw new MapFormatException(path, "has a damaged header: negative bound (maxEntries=" + maxEntries
                    + " maxBytes=" + maxBytes + ")", RESTORE);
        }
        long allocEnd = h.getLong((int) ALLOC_END_OFFSET);
        if (allocEnd < FileHeaderLayout.directoryEnd(segments) || allocEnd % FileHeaderLayout.EXTENT_ALIGN != 0) {
            throw new MapFormatException(path, "has a damaged header: allocEnd=" + allocEnd, RESTORE);
        }
        if (allocEnd > size) {
            // a writer beside grows the file before it publishes a new allocEnd: the size read
            // before the header may be older than the header's allocEnd, the size now is not
            size = channel.call(FileChannel::size);
        }
        if (allocEnd > size) {
            throw new MapFormatException(path, "is truncated: size=" + size
                    + " but the map uses " + allocEnd + " bytes", RESTORE);
        }
        return h;
    }

    private static String olderFormat(int version) {
        return switch (version) {
            case 1 -> "its tables place keys differently";
            case 2 -> "its entries have 16-byte headers";
            case 4 -> "its slots have 24-bit tags, so tables past 2^24 slots grew by reading every key,"
                    + " and its segments are chosen by other hash bits";
            default -> "its tables have power-of-two sizes and its entry checksums are XXH64, not CRC32C";
        };
    }

    private static void create(Path path, MapOptions options) throws IOException {
        Path absolute = path.toAbsolutePath();
        String prefix = "." + absolute.getFileName() + ".creating-";
        StaleTemporaries.removeDead(absolute.getParent(), prefix);
        Path tmp = StaleTemporaries.name(absolute.getParent(), prefix);
        List<FileAttribute<?>> attrs = new ArrayList<>();
        // The file system's views, not the file store's: finding the store reads the mount table, an
        // open that fails when the process is out of descriptors with the JDK's bare "Mount point not
        // found" (a user trial opening 505 maps under ulimit -n 512); every Linux store has posix.
        if (absolute.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            attrs.add(PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        FileChannel created;
        try {
            created = FileChannel.open(tmp, java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE), attrs.toArray(FileAttribute[]::new));
        } catch (AccessDeniedException denied) {
            // named after the map, not the temporary file the user never asked for
            throw new AccessDeniedException(absolute.toString(), null,
                    "cannot create the map: no permission to write in " + absolute.getParent());
        }
        try {
            try (FileChannel ch = created) {
                int segments = segmentsFor(options);
                long dirEnd = FileHeaderLayout.directoryEnd(segments);
                writeZeros(ch, 0, roundUp(dirEnd + MIN_GROWTH, GROWTH_ALIGN));
                ByteBuffer h = ByteBuffer.allocate((int) FileHeaderLayout.LAYOUT.byteSize())
                        .order(ByteOrder.LITTLE_ENDIAN);
                h.putInt((int) FileHeaderLayout.FORMAT_VERSION_OFFSET, FileHeaderLayout.FORMAT_VERSION);
                h.putInt((int) FileHeaderLayout.HEADER_BYTES_OFFSET, FileHeaderLayout.HEADER_BYTES);
                h.putInt((int) FileHeaderLayout.SEGMENT_COUNT_OFFSET, segments);
                h.putInt((int) FileHeaderLayout.BLOCK_SIZE_OFFSET, options.blockSize());
                h.putInt((int) FileHeaderLayout.FLAGS_OFFSET, options.checksums() ? FileHeaderLayout.FLAG_CHECKSUMS : 0);
                h.putInt((int) FileHeaderLayout.SEGMENT_BYTES_OFFSET, (int) SegmentLayout.BYTES);
                h.putLong((int) ALLOC_END_OFFSET, dirEnd);
                h.putLong((int) FileHeaderLayout.CREATED_OFFSET, System.currentTimeMillis());
                h.putLong((int) FileHeaderLayout.MAX_ENTRIES_OFFSET, options.maxEntries());
                h.putLong((int) FileHeaderLayout.MAX_BYTES_OFFSET, options.maxBytes());
                h.putLong((int) FileHeaderLayout.EXPECTED_ENTRIES_OFFSET, options.expectedEntries());
                ch.write(h, 0);
                ch.force(true);
                ch.write(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(0, FileHeaderLayout.MAGIC), FileHeaderLayout.MAGIC_OFFSET);
                ch.force(true);
            }
            try {
                Files.createLink(absolute, tmp);
            } catch (FileAlreadyExistsException raced) {
                // Another process created the map first; open theirs.
            } catch (UnsupportedOperationException | IOException noLinks) {
                if (!Files.exists(absolute)) {
                    Files.move(tmp, absolute, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Fewest entries and bytes of a bound a segment gets: below them, the map gets fewer segments. */
    static final long MIN_BOUND_ENTRIES = 64;
    static final long MIN_BOUND_BYTES = 64 << 10;

    /**
     * The segments a new file gets: as asked, but fewer for a small bound, which is kept per
     * segment: with 64 segments a bound of 10 entries kept 64 (one per segment), and a segment of a
     * few entries evicts its one recent entry while others sit idle.
     */
    static int segmentsFor(MapOptions options) {
        long most = options.segments();
        if (options.maxEntries() > 0) {
            most = Math.min(most, options.maxEntries() / MIN_BOUND_ENTRIES);
        }
        if (options.maxBytes() > 0) {
            most = Math.min(most, options.maxBytes() / MIN_BOUND_BYTES);
        }
        return (int) Math.max(1, Long.highestOneBit(most));
    }

    private static long roundUp(long n, long align) {
        return (n + align - 1) / align * align;
    }

    private static Void writeZeros(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer z = ZEROS.duplicate();
        for (long p = from; p < to; ) {
            z.clear().limit((int) Math.min(z.capacity(), to - p));
            p += ch.write(z, p);
        }
        return null;
    }

    /** The newest mapping. */
    MemorySegment mem() {
        MemorySegment m = mem;
        if (m == null) {
            throw new IllegalStateException("map is closed: file=" + path);
        }
        return m;
    }

    /** A mapping that covers {@code [0, end)}, remapping if the file grew past the current one. */
    MemorySegment mem(long end) {
        MemorySegment m = mem();
        return end <= m.byteSize() ? m : remap(end);
    }

    private synchronized MemorySegment remap(long end) {
        MemorySegment m = mem();
        if (end <= m.byteSize()) {
            return m;
        }
        try {
            long size = channel.call(FileChannel::size);
            if (end > size) {
                throw corrupt(end, "position beyond the end of the file (size=" + size + ")");
            }
            Arena fresh = Arena.ofShared();
            m = channel.call(ch -> ch.map(mapMode(), 0, size, fresh));
            Arena old = arena;
            arena = fresh;
            mem = m;
            remaps++;
            retire(old);
            return m;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot map file=" + path + " up to " + end
                    + " bytes; check 'ulimit -v' and vm.max_map_count", e);
        }
    }

    /**
     * Queues a replaced mapping for closing once its grace is over; batches start only after their
     * mappings were replaced.
     */
    private void retire(Arena old) {
        retireLock.lock();
        try {
            long now = System.nanoTime();
            if (inTransit.isEmpty()) {
                inTransit.add(old);
                inTransitRetired = now;
                quietStripes = 0;
            } else {
                nextBatch.add(old);
                nextBatchRetired = now;
            }
        } finally {
            retireLock.unlock();
        }
        AFTER_GRACE.execute(this::reclaimAfterGrace);
    }

    /**
     * Takes an extent of at least {@code bytes} for the segment whose header is at {@code
     * segmentBase}, and records it as that segment's pending extent before the file lock is let go
     * (see {@link SpareExtents}): a spare extent if one is large enough, else {@code bytes}
     * (rounded up to the extent alignment) from the end of the allocated area, growing the file
     * first if needed. The extent is zero and backed by real blocks; its size is then the
     * segment's {@code pendingBytes}. Under the segment's lock.
     *
     * @param minBytes the least the caller can use; {@code bytes} is what it would like
     * @throws IOException if the file cannot grow (disk full, file size limit)
     */
    long allocateExtent(long minBytes, long bytes, long segmentBase) throws IOException {
        long size = FileHeaderLayout.alignExtent(bytes);
        long spare = spares.take(minBytes, size, segmentBase);
        if (spare != 0) {
            return spare;
        }
        long start = underFileLock(m -> {
            long from = Mem.getLongAcquire(m, ALLOC_END_OFFSET);
            long end = from + size;
            if (end > SlotLayout.maxFileBytes(blockShift)) {
                throw new IOException("map file=" + path + " would exceed " + SlotLayout.maxFileBytes(blockShift)
                        + " bytes, the most its blockSize=" + (1 << blockShift) + " can address; copy the map "
                        + "into a file created with a larger blockSize");
            }
            long fileSize = channel.call(FileChannel::size);
            if (end > fileSize) {
                long grown = roundUp(end, GROWTH_ALIGN);
                long have = fileSize;
                channel.call(ch -> writeZeros(ch, have, grown));
                fileSize = grown;
            }
            writeAhead(fileSize, end, size);
            Mem.setLongRelease(m, ALLOC_END_OFFSET, end);
            CrashPoints.reach(CrashPoints.EXTENT_TAKEN);
            Mem.setLong(m, segmentBase + SegmentLayout.PENDING_BYTES, size);
            Mem.setLongRelease(m, segmentBase + SegmentLayout.PENDING_EXTENT, from);
            return from;
        });
        mem(start + size);
        return start;
    }

    /**
     * Checks the schema fingerprints of a typed map's codecs against those the file recorded, and
     * records them if it has none yet (a new file, or one only raw maps used). A fingerprint of 0
     * is not checked: a codec whose bytes carry their own schema ({@code Codecs.evolving}) or a
     * codec of the user's own, whose shape no fingerprint knows.
     *
     * @throws IllegalArgumentException if the file was written with codecs of another schema
     */
    void checkCodecs(long keyFingerprint, long valueFingerprint) {
        checkCodec(FileHeaderLayout.KEY_CODEC_OFFSET, keyFingerprint, "key");
        checkCodec(FileHeaderLayout.VALUE_CODEC_OFFSET, valueFingerprint, "value");
    }

    private void checkCodec(long offset, long fingerprint, String what) {
        if (fingerprint == 0) {
            return;
        }
        long recorded = readVolatile(offset);
        if (recorded == 0 && !readOnly && recordFingerprint(offset, fingerprint)) {
            return;
        }
        recorded = readVolatile(offset);
        if (recorded != 0 && recorded != fingerprint) {
            throw new IllegalArgumentException("map file=" + path + " holds " + what + "s written with another " + what
                    + " type: its codec's schema fingerprint is 0x" + Long.toHexString(fingerprint) + " here and 0x"
                    + Long.toHexString(recorded) + " in the file (a field added, removed, reordered or retyped, or an"
                    + " enum's constants changed, since the file was written). Open it with the type it was written"
                    + " with, or convert it: read it with the old type and put into a new map. Values of"
                    + " Codecs.evolving(...) codecs survive such changes");
        }
    }

    /**
     * Records a codec's fingerprint if the file has none. Pinned as every store through a mapping is,
     * though only an open or a copy runs it, before another thread can grow the file under it.
     */
    private boolean recordFingerprint(long offset, long fingerprint) {
        pin(0);
        try {
            return Mem.compareAndSetLong(mem(), offset, 0, fingerprint);
        } finally {
            unpin(0);
        }
    }

    /** Gives {@code target} (a new copy of this file) the codec fingerprints this file recorded. */
    void copyCodecsTo(MapFile target) {
        target.checkCodecs(readVolatile(FileHeaderLayout.KEY_CODEC_OFFSET), readVolatile(FileHeaderLayout.VALUE_CODEC_OFFSET));
    }

    /** What runs under the file lock; may fail as file growth does. */
    interface FileLocked<T, X extends Exception> {
        /** Runs with {@code m}, a mapping that covers the file up to {@code allocEnd}. */
        T run(MemorySegment m) throws X;
    }

    /**
     * Runs {@code action} holding the file lock, which guards {@code allocEnd}, file growth and
     * the spare extents against this process's other threads and other processes alike.
     */
    <T, X extends Exception> T underFileLock(FileLocked<T, X> action) throws X {
        synchronized (this) {
            // Pinned: the lock word's CAS and release go through a mapping that another thread's
            // remap may retire; closed under them, a CAS that happened could throw, and the retry
            // then waited for this very thread's word for ever (writers hung while verify ran).
            pin(0);
            try {
                MemorySegment header = mem();
                OwnerLock.acquire(header, FILE_LOCK_OFFSET, mappers, holders, holders.fileLock());
                try {
                    return action.run(mem(Mem.getLongAcquire(header, ALLOC_END_OFFSET)));
                } finally {
                    OwnerLock.release(header, FILE_LOCK_OFFSET);
                }
            } finally {
                unpin(0);
            }
        }
    }

    /**
     * Keeps the file about an eighth ahead of what is allocated, writing at most one step per
     * allocation: growing by an eighth at once made one put write tens of MiB of zeros (a 177 ms
     * stall at 180 MB). The step sets how often the file is remapped, and every remap faults each
     * touched page in again: a 32nd saved 13% of a 1M-user file but cost ~30% more CPU filling 20M
     * entries (refaults, mostly system time), so the step stays an eighth. Only an optimisation: a
     * full disk here leaves the file as it is, and the allocation that really needs the space
     * reports it.
     */
    private void writeAhead(long fileSize, long allocEnd, long allocated) {
        long target = roundUp(allocEnd + Math.max(allocEnd / 8, MIN_GROWTH), GROWTH_ALIGN);
        if (fileSize >= target) {
            return;
        }
        try {
            long to = Math.min(target, roundUp(fileSize + Math.max(allocated, MIN_GROWTH), GROWTH_ALIGN));
            channel.call(ch -> writeZeros(ch, fileSize, to));
        } catch (IOException full) {
            // The space is not needed yet; the allocation that needs it will report the full disk.
        }
    }

    /** The options this file was created with, as its header keeps them. */
    MapOptions layout() {
        return new MapOptions(segmentCount, 1 << blockShift, checksums, maxEntries, maxBytes, expectedEntries, verifyReads);
    }

    int formatVersion() {
        return formatVersion;
    }

    long createdMillis() {
        return createdMillis;
    }

    long nowMillis() {
        return clock.getAsLong();
    }

    long allocEnd() {
        return readVolatile(ALLOC_END_OFFSET);
    }

    long size() throws IOException {
        return channel.call(FileChannel::size);
    }

    MapCorruptedException corrupt(long offset, String what) {
        return new MapCorruptedException(path, offset, what);
    }

    /** Forces every change to the storage device; nothing to do for a read-only open, which made none. */
    void sync() {
        if (readOnly) {
            return;
        }
        pin(0);
        try {
            mem().force();
        } finally {
            unpin(0);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (mem == null) {
            return;
        }
        mem = null;
        retireLock.lock();
        try {
            arena.close();
            inTransit.forEach(MapFile::tryClose);
            nextBatch.forEach(MapFile::tryClose);
        } finally {
            inTransit.clear();
            nextBatch.clear();
            retiring = false;
            retireLock.unlock();
            holders.release();
            channel.close();
        }
    }
}
