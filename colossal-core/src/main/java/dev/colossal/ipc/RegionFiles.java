package dev.colossal.ipc;

import dev.colossal.memory.internal.Directories;
import dev.colossal.memory.internal.InterruptFlag;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Creating and mapping region files; {@link SharedRegion} turns what fails here into IpcExceptions. */
final class RegionFiles {

    /** How long an opener waits on a file without a header that nobody writes to. */
    private static final long CREATOR_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private RegionFiles() {}

    /**
     * Creates the file (failing if it exists), reserves its blocks, maps it and writes the header.
     * The caller's interrupt flag is set aside meanwhile (an interrupted thread creates like any
     * other, and keeps its flag); a creation that fails, an interrupt that came during it included,
     * deletes its file, which would otherwise keep every opener waiting for a header that never comes.
     */
    static MemorySegment create(Path path, RegionKind kind, long size, Arena arena) throws IOException {
        return InterruptFlag.setAside(() -> {
            FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            try (channel) {
                // After CREATE_NEW, so that a racing creator is told the file exists; before any byte:
                // zeroing a region larger than a tmpfs (or than RAM, when the tmpfs is as large) fills
                // it, and may get the process killed by the OOM killer with the file left behind.
                Directories.checkFreeSpace(path.toAbsolutePath().getParent(), size, "a shared region of "
                        + size + " bytes");
                reserve(channel, size);
                MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                RegionHeader.write(file, kind, size);
                return file;
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(path);
                throw e;
            }
        });
    }

    /**
     * Maps an existing file once its header is complete, and checks the header. A creator writes
     * zeros to the whole file before the header, and no opener can tell how long that takes (a
     * region of many GiB on a slow disk), so an opener waits while the file is being written and
     * gives up once it has not been for {@link #CREATOR_WAIT_NANOS}: at once for a file nobody has
     * written for that long, or one shorter than a header whose bytes are not the zeros a creator
     * writes first.
     */
    static MemorySegment open(Path path, RegionKind kind, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            long modified = Files.getLastModifiedTime(path).toMillis();
            long unchangedSince = System.nanoTime()
                    - TimeUnit.MILLISECONDS.toNanos(Math.max(0, System.currentTimeMillis() - modified));
            while (size < RegionHeader.LENGTH || !headerPublished(channel)) {
                // Past the header's length a creator may be writing its fields, the magic last.
                if (size < RegionHeader.LENGTH && !zeros(channel, size)
                        || System.nanoTime() - unchangedSince > CREATOR_WAIT_NANOS) {
                    throw new IpcException("file " + path + " has no complete region header (size=" + size
                            + ", last written " + (System.currentTimeMillis() - modified) + " ms ago): it is not a"
                            + " Colossal region, or its creator died while creating it; delete it and retry");
                }
                // A creator may zero a big file for minutes: each look maps the header and reads the
                // file's size and time, so look every 0.1 ms rather than spin on system calls.
                LockSupport.parkNanos(100_000);
                long nowSize = channel.size();
                long nowModified = Files.getLastModifiedTime(path).toMillis();
                if (nowSize != size || nowModified != modified) {
                    size = nowSize;
                    modified = nowModified;
                    unchangedSince = System.nanoTime();
                }
            }
            MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            RegionHeader.validate(path, file, kind);
            return file;
        }
    }

    private static boolean zeros(FileChannel channel, long length) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate((int) length);
        while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) >= 0) {
            // a short read of a file being written: read on until its end
        }
        for (int i = 0; i < bytes.position(); i++) {
            if (bytes.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes every block of the new file, so that a full disk or a full /dev/shm is an
     * IOException now rather than a SIGBUS (an InternalError) at the first touch of a page.
     */
    private static void reserve(FileChannel channel, long size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(size, 1 << 20));
        for (long position = 0; position < size; ) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - position));
            position += channel.write(zeros, position);
        }
    }

    private static boolean headerPublished(FileChannel channel) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = channel.map(FileChannel.MapMode.READ_ONLY, 0, RegionHeader.LENGTH, arena);
            return (long) SharedRegion.LONG.getAcquire(header, RegionHeader.MAGIC_OFFSET) != 0;
        }
    }
}
