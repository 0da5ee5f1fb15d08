package dev.colossal.memory.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * An exclusive hold on a lock file, across processes (an OS file lock) and across the owners of one
 * JVM: files that one owner at a time may use declare it through this. The OS releases the lock when
 * the process dies, {@code kill -9} included, so a crash never leaves a file locked.
 *
 * <p>The lock file is created if missing and never deleted: deleting it would let one process lock
 * the old file while another creates and locks a new one under the same name. Two traps of POSIX
 * locks are avoided here: they belong to the process, not to a channel, and closing <em>any</em>
 * descriptor of the file drops them all. So this JVM keeps its own set of held lock files and
 * refuses a second hold without opening the file again, and the lock's channel is used for nothing
 * else (an interrupt in an operation on it would close it, and release the lock with it).
 */
public final class LockFile implements AutoCloseable {

    /** The lock files this JVM holds, by file key (device and inode), else by real path. Guarded by itself. */
    private static final Set<Object> HELD = new HashSet<>();

    private final Path path;
    private final Object key;
    private final FileChannel channel;

    private LockFile(Path path, Object key, FileChannel channel) {
        this.path = path;
        this.key = key;
        this.channel = channel;
    }

    /**
     * Takes the lock file at {@code path}, creating it if missing, without waiting.
     *
     * @param path the lock file
     * @return the hold, or null if another owner (in this process or another) holds it
     * @throws IOException if the file cannot be created, opened or locked (a file system without locks)
     */
    public static LockFile tryAcquire(Path path) throws IOException {
        // an interrupted thread locks like any other and keeps its flag (tryLock would close the channel)
        return InterruptFlag.setAside(() -> takeLock(path));
    }

    private static LockFile takeLock(Path path) throws IOException {
        synchronized (HELD) {
            try {
                Files.createFile(path);
            } catch (FileAlreadyExistsException exists) {
                // an earlier owner's: lock files stay
            }
            Object key = keyOf(path);
            if (HELD.contains(key)) {
                return null; // held here: opening and closing the file again would release that hold
            }
            FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
            FileLock lock = null;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldOutsideThisClass) {
                // a channel of this JVM holds it without going through here: not ours to take
            } finally {
                if (lock == null) {
                    channel.close(); // this JVM holds no lock through HELD on it, so none is dropped
                }
            }
            if (lock == null) {
                return null;
            }
            HELD.add(key);
            return new LockFile(path, key, channel);
        }
    }

    private static Object keyOf(Path path) throws IOException {
        Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        return Objects.requireNonNullElse(key, path.toRealPath());
    }

    /** @return the lock file */
    public Path path() {
        return path;
    }

    /** Releases the lock; the file stays. Idempotent. */
    @Override
    public void close() {
        synchronized (HELD) {
            if (!channel.isOpen()) {
                return;
            }
            try {
                channel.close(); // releases the lock
            } catch (IOException ignored) {
                // the descriptor is gone either way, and the lock with it
            }
            HELD.remove(key);
        }
    }
}
