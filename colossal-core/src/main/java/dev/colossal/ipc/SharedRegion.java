package dev.colossal.ipc;

import dev.colossal.memory.internal.Directories;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A named region of memory shared by every process that maps the same file, with a header that
 * records its {@link RegionKind}, format version and size (layout in {@code RegionHeader}).
 *
 * <p>Use {@link #shm(String)} for a region that lives in memory only ({@code /dev/shm}), any other
 * path when the contents should survive a reboot. Offsets given to the accessors are relative to
 * the payload, which starts 128 bytes into the file and is 128-byte aligned. Accessor names carry
 * the memory order; the rule for pairing them is in the {@linkplain dev.colossal.ipc package
 * documentation}.
 *
 * <pre>{@code
 * try (SharedRegion region = SharedRegion.openOrCreate(SharedRegion.shm("counters"), RegionKind.RAW, 4096)) {
 *     long ticket = region.getAndAddLong(0, 1);      // unique across every process mapping it
 * }
 * }</pre>
 *
 * <p>A region is safe to use from many threads; after {@link #close()} every access throws
 * {@link IllegalStateException}. Closing unmaps this process's view only; the file stays. Closing
 * twice does nothing. After close, {@link #payload()} and {@link #force()} say which region was
 * closed; the accessors ({@code getLong}, {@code compareAndSetInt}, ...), which must cost no more
 * than the memory access they make, throw the JDK's bare {@code IllegalStateException: Already
 * closed}, and so do segments taken from {@link #payload()} before.
 */
public final class SharedRegion implements AutoCloseable {

    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final Path path;
    private final RegionKind kind;
    private final Arena arena;
    private final MemorySegment file;
    private final MemorySegment payload;
    private final long payloadSize;

    private SharedRegion(Path path, RegionKind kind, Arena arena, MemorySegment file) {
        this.path = path;
        this.kind = kind;
        this.arena = arena;
        this.file = file;
        this.payload = file.asSlice(RegionHeader.LENGTH);
        this.payloadSize = payload.byteSize();
    }

    /**
     * Names a region under {@code /dev/shm}.
     *
     * @param name a file name without {@code /}, e.g. {@code "orders-ring"}
     * @return {@code /dev/shm/NAME}: memory shared between processes, not persisted
     * @throws IllegalArgumentException if the name is empty, {@code .} or {@code ..}, or contains {@code /}
     */
    public static Path shm(String name) {
        if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("name='" + name + "' must be a plain file name (no '/')");
        }
        return Path.of("/dev/shm", name);
    }

    /**
     * Creates a new region; fails if the file exists.
     *
     * @param path        the file
     * @param kind        what it will hold
     * @param payloadSize bytes after the header, at least 8
     * @return the mapped region, zero-filled (every block written now, so that a full file system is
     *         this exception rather than a SIGBUS at the first touch of a page)
     * @throws IpcException if the file exists or cannot be created or mapped, or its file system has
     *                      less free space than the region needs (checked before a byte is written)
     */
    public static SharedRegion create(Path path, RegionKind kind, long payloadSize) {
        checkPayloadSize(payloadSize);
        long size = RegionHeader.LENGTH + payloadSize;
        Arena arena = Arena.ofShared();
        try {
            return new SharedRegion(path, kind, arena, RegionFiles.create(path, kind, size, arena));
        } catch (FileAlreadyExistsException e) {
            arena.close();
            throw new IpcException("region " + path + " already exists; open it, or delete it to start afresh", e);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw new IpcException(cannotCreate(path, size, e), e);
        }
    }

    /** Why a region file could not be created, and what to do, in the user's terms. */
    private static String cannotCreate(Path path, long size, Exception e) {
        Path dir = path.toAbsolutePath().getParent();
        String prefix = "cannot create region " + path + " of size=" + size + ": ";
        if (dir != null && !Files.isDirectory(dir)) {
            return prefix + "directory " + dir + " does not exist; create it first, or choose a file in an"
                    + " existing directory";
        }
        if (e instanceof FileSystemException fs) {
            // The JDK's message repeats the path; its reason alone is the news (null: the OS said ENOENT
            // of a directory that exists, as /proc does).
            String reason = fs.getReason() != null ? fs.getReason() : "no new file may be created there";
            return prefix + reason + "; " + Directories.remedy(reason, "choose a directory where you may create files");
        }
        return prefix + e.getMessage() + " (check free space and permissions of directory " + dir + ")";
    }

    /**
     * Opens an existing region, waiting for a concurrent creator to finish it for as long as the file
     * is being written, and up to 5 s after its last write.
     *
     * @param path the file
     * @param kind the kind it must hold
     * @return the mapped region
     * @throws IpcException if the file is missing, not a region, of another kind or version, or
     *                      cannot be mapped
     */
    public static SharedRegion open(Path path, RegionKind kind) {
        Arena arena = Arena.ofShared();
        try {
            return new SharedRegion(path, kind, arena, RegionFiles.open(path, kind, arena));
        } catch (NoSuchFileException e) {
            arena.close();
            throw new IpcException("region " + path + " does not exist; create it first", e);
        } catch (IOException e) {
            arena.close();
            throw new IpcException("cannot open region " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Opens the region if it exists, else creates it. Safe when several processes race to do
     * this: exactly one creates, the others open what it created.
     *
     * @param path        the file
     * @param kind        the kind it holds
     * @param payloadSize bytes after the header; an existing region must have exactly this size
     * @return the mapped region
     * @throws IpcException if an existing file is of another kind, version or size, or the file
     *                      cannot be created or mapped
     */
    public static SharedRegion openOrCreate(Path path, RegionKind kind, long payloadSize) {
        checkPayloadSize(payloadSize);
        SharedRegion region;
        if (Files.exists(path)) {
            region = open(path, kind);
        } else {
            try {
                region = create(path, kind, payloadSize);
            } catch (IpcException e) {
                if (!(e.getCause() instanceof FileAlreadyExistsException)) {
                    throw e;
                }
                region = open(path, kind);
            }
        }
        if (region.payloadSize != payloadSize) {
            long found = region.payloadSize;
            region.close();
            throw new IpcException("region " + path + " has payloadSize=" + found + " but payloadSize="
                    + payloadSize + " was asked for; use the same size everywhere or delete the file");
        }
        return region;
    }

    private static void checkPayloadSize(long payloadSize) {
        if (payloadSize < 8 || payloadSize > Long.MAX_VALUE - RegionHeader.LENGTH) {
            throw new IllegalArgumentException("payloadSize=" + payloadSize + " must be at least 8 and at most "
                    + (Long.MAX_VALUE - RegionHeader.LENGTH));
        }
    }

    /** {@return the file this region maps} */
    public Path path() {
        return path;
    }

    /** {@return what the region holds} */
    public RegionKind kind() {
        return kind;
    }

    /** {@return the payload's size in bytes (the file size less the 128-byte header)} */
    public long payloadSize() {
        return payloadSize;
    }

    /**
     * The payload as a segment, for bulk copies; shared state in it must still be read and
     * written with a named memory order (the accessors of this class, or an acquire that pairs
     * with a release).
     *
     * @return the payload, valid until {@link #close()}
     * @throws IllegalStateException if the region is closed
     */
    public MemorySegment payload() {
        ensureOpen("read its payload");
        return payload;
    }

    /**
     * Writes the region's dirty pages to its file (msync); a no-op in effect under /dev/shm.
     *
     * @throws IllegalStateException if the region is closed
     */
    public void force() {
        ensureOpen("force it to its file");
        file.force();
    }

    /**
     * Unmaps this process's view. The file and the other processes' views are untouched. Closing a
     * closed region does nothing.
     */
    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    /** Whether {@link #close()} has unmapped this view; for the rings and pools built on regions. */
    boolean isClosed() {
        return !arena.scope().isAlive();
    }

    private void ensureOpen(String action) {
        if (isClosed()) {
            throw closed("region", path, action, "SharedRegion.open");
        }
    }

    /**
     * The exception for a use after close, for every object built on a region.
     *
     * @param what   what was closed, e.g. "ring"
     * @param file   its file
     * @param action what could not be done, e.g. "acquire a chunk"
     * @param reopen the call that opens it again
     */
    static IllegalStateException closed(String what, Path file, String action, String reopen) {
        return new IllegalStateException("cannot " + action + ": " + what + " " + file + " was closed in this"
                + " process; open it again with " + reopen + " (closing unmapped only this process's view: the"
                + " file and other processes are untouched)");
    }

    private long intAt(long offset) {
        if ((offset & 3) != 0) {
            throw misaligned(offset, 4, "int");
        }
        return inside(offset, 4);
    }

    private long longAt(long offset) {
        if ((offset & 7) != 0) {
            throw misaligned(offset, 8, "long");
        }
        return inside(offset, 8);
    }

    private long inside(long offset, int size) {
        if (offset < 0 || offset > payloadSize - size) {
            throw new IndexOutOfBoundsException("offset=" + offset + " is outside the payload of region "
                    + path + " (payloadSize=" + payloadSize + ")");
        }
        return offset;
    }

    private static IllegalArgumentException misaligned(long offset, int size, String type) {
        return new IllegalArgumentException("offset=" + offset + " is not a multiple of " + size
                + ": atomic " + type + " access needs a naturally aligned offset (e.g. " + (offset & -size)
                + " or " + ((offset + size) & -size) + ")");
    }

    // ---- int ---------------------------------------------------------------------------------

    /**
     * Plain int read.
     *
     * @param offset payload offset, a multiple of 4
     * @return the int, read with no ordering
     */
    public int getInt(long offset) {
        return (int) INT.get(payload, intAt(offset));
    }

    /**
     * Plain int write.
     *
     * @param offset payload offset, a multiple of 4
     * @param value  the int, written with no ordering
     */
    public void setInt(long offset, int value) {
        INT.set(payload, intAt(offset), value);
    }

    /**
     * Opaque int read.
     *
     * @param offset payload offset, a multiple of 4
     * @return the int, read whole and fresh but ordering nothing else
     */
    public int getIntOpaque(long offset) {
        return (int) INT.getOpaque(payload, intAt(offset));
    }

    /**
     * Opaque int write.
     *
     * @param offset payload offset, a multiple of 4
     * @param value  the int, written whole, eventually visible, ordering nothing else
     */
    public void setIntOpaque(long offset, int value) {
        INT.setOpaque(payload, intAt(offset), value);
    }

    /**
     * Acquire int read; pairs with {@link #setIntRelease}.
     *
     * @param offset payload offset, a multiple of 4
     * @return the int; later reads see every write made before the release store it pairs with
     */
    public int getIntAcquire(long offset) {
        return (int) INT.getAcquire(payload, intAt(offset));
    }

    /**
     * Release int write; pairs with {@link #getIntAcquire}.
     *
     * @param offset payload offset, a multiple of 4
     * @param value  the int, published after every write made before this call
     */
    public void setIntRelease(long offset, int value) {
        INT.setRelease(payload, intAt(offset), value);
    }

    /**
     * Volatile int read.
     *
     * @param offset payload offset, a multiple of 4
     * @return the int, with acquire semantics in one total order of volatile accesses
     */
    public int getIntVolatile(long offset) {
        return (int) INT.getVolatile(payload, intAt(offset));
    }

    /**
     * Volatile int write.
     *
     * @param offset payload offset, a multiple of 4
     * @param value  the int, with release semantics in one total order of volatile accesses
     */
    public void setIntVolatile(long offset, int value) {
        INT.setVolatile(payload, intAt(offset), value);
    }

    /**
     * Atomic int compare-and-set.
     *
     * @param offset   payload offset, a multiple of 4
     * @param expected the value the int must hold
     * @param value    the new value
     * @return whether the int held {@code expected} and now holds {@code value} (volatile semantics)
     */
    public boolean compareAndSetInt(long offset, int expected, int value) {
        return INT.compareAndSet(payload, intAt(offset), expected, value);
    }

    /**
     * Atomic int add.
     *
     * @param offset payload offset, a multiple of 4
     * @param delta  what to add
     * @return the value before the addition, done atomically with volatile semantics
     */
    public int getAndAddInt(long offset, int delta) {
        return (int) INT.getAndAdd(payload, intAt(offset), delta);
    }

    // ---- long --------------------------------------------------------------------------------

    /**
     * Plain long read.
     *
     * @param offset payload offset, a multiple of 8
     * @return the long, read with no ordering
     */
    public long getLong(long offset) {
        return (long) LONG.get(payload, longAt(offset));
    }

    /**
     * Plain long write.
     *
     * @param offset payload offset, a multiple of 8
     * @param value  the long, written with no ordering
     */
    public void setLong(long offset, long value) {
        LONG.set(payload, longAt(offset), value);
    }

    /**
     * Opaque long read.
     *
     * @param offset payload offset, a multiple of 8
     * @return the long, read whole and fresh but ordering nothing else
     */
    public long getLongOpaque(long offset) {
        return (long) LONG.getOpaque(payload, longAt(offset));
    }

    /**
     * Opaque long write.
     *
     * @param offset payload offset, a multiple of 8
     * @param value  the long, written whole, eventually visible, ordering nothing else
     */
    public void setLongOpaque(long offset, long value) {
        LONG.setOpaque(payload, longAt(offset), value);
    }

    /**
     * Acquire long read; pairs with {@link #setLongRelease}.
     *
     * @param offset payload offset, a multiple of 8
     * @return the long; later reads see every write made before the release store it pairs with
     */
    public long getLongAcquire(long offset) {
        return (long) LONG.getAcquire(payload, longAt(offset));
    }

    /**
     * Release long write; pairs with {@link #getLongAcquire}.
     *
     * @param offset payload offset, a multiple of 8
     * @param value  the long, published after every write made before this call
     */
    public void setLongRelease(long offset, long value) {
        LONG.setRelease(payload, longAt(offset), value);
    }

    /**
     * Volatile long read.
     *
     * @param offset payload offset, a multiple of 8
     * @return the long, with acquire semantics in one total order of volatile accesses
     */
    public long getLongVolatile(long offset) {
        return (long) LONG.getVolatile(payload, longAt(offset));
    }

    /**
     * Volatile long write.
     *
     * @param offset payload offset, a multiple of 8
     * @param value  the long, with release semantics in one total order of volatile accesses
     */
    public void setLongVolatile(long offset, long value) {
        LONG.setVolatile(payload, longAt(offset), value);
    }

    /**
     * Atomic long compare-and-set.
     *
     * @param offset   payload offset, a multiple of 8
     * @param expected the value the long must hold
     * @param value    the new value
     * @return whether the long held {@code expected} and now holds {@code value} (volatile semantics)
     */
    public boolean compareAndSetLong(long offset, long expected, long value) {
        return LONG.compareAndSet(payload, longAt(offset), expected, value);
    }

    /**
     * Atomic long add.
     *
     * @param offset payload offset, a multiple of 8
     * @param delta  what to add
     * @return the value before the addition, done atomically with volatile semantics
     */
    public long getAndAddLong(long offset, long delta) {
        return (long) LONG.getAndAdd(payload, longAt(offset), delta);
    }

    @Override
    public String toString() {
        return "SharedRegion[" + path + ", kind=" + kind + ", payloadSize=" + payloadSize + "]";
    }
}
