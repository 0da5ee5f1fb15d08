package dev.colossal.memory.internal;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * A file channel that one thread's interrupt cannot close for every other thread.
 *
 * <p>The JDK closes a {@link FileChannel} for all its users when a thread is interrupted before or
 * during an operation on it (a pool's {@code shutdownNow}, {@code Future.cancel(true)}), and every
 * later operation fails. Here each operation runs with the caller's interrupt flag cleared, and the
 * flag is set again when it returns, so that the caller still sees it; a channel that an interrupt
 * closed meanwhile (this thread's or another's) is reopened with the same options and the
 * operation runs again. So an operation must be positional (no channel position, which a reopened
 * channel does not keep) and harmless to run twice, as writing the same bytes at the same place is.
 *
 * <p>A file opened with {@link StandardOpenOption#DELETE_ON_CLOSE} is unlinked at once, as the JDK
 * does on Linux, but a second, idle channel keeps it open: no interrupt reaches that one, and a
 * reopen goes through its descriptor in {@code /proc/self/fd}. Where there is no such directory the
 * file stays linked until {@link #close()} deletes it. Not for {@link java.nio.channels.FileLock}s:
 * closing a channel releases the locks held through it, so a reopened channel would have silently
 * lost them.
 */
public final class ReopeningChannel implements AutoCloseable {

    /** One operation on the channel. It may run more than once, on a new channel. */
    @FunctionalInterface
    public interface Op<T> {
        /**
         * @param channel the channel, open
         * @return the operation's result
         * @throws IOException if the operation fails
         */
        T run(FileChannel channel) throws IOException;
    }

    private static final Path OPEN_FILES = Path.of("/proc/self/fd");

    private final Path path;
    private final Set<OpenOption> reopenOptions;
    /** Identifies the file, so that a reopen never writes to another file moved to its path. */
    private final Object fileKey;
    /** Keeps an unlinked file open for reopening; never used for I/O, so no interrupt closes it. Else null. */
    private final FileChannel keeper;
    /** Whether {@link #close()} deletes the file (asked to, where it could not be unlinked at once). */
    private final boolean deleteOnClose;
    /** Replaced when an interrupt closed it; guarded by this object's monitor for replacing. */
    private volatile FileChannel channel;
    private boolean closed;

    private ReopeningChannel(Path path, Set<OpenOption> reopenOptions, FileChannel channel, FileChannel keeper,
                             boolean deleteOnClose, Object fileKey) {
        this.path = path;
        this.reopenOptions = reopenOptions;
        this.channel = channel;
        this.keeper = keeper;
        this.deleteOnClose = deleteOnClose;
        this.fileKey = fileKey;
    }

    /**
     * Opens {@code path} like {@link FileChannel#open(Path, OpenOption...)}. A reopen leaves out the
     * options that create or truncate the file.
     *
     * @param path    the file
     * @param options how to open it; not {@link StandardOpenOption#APPEND}
     * @return the open channel
     * @throws IOException if the file cannot be opened
     */
    public static ReopeningChannel open(Path path, OpenOption... options) throws IOException {
        Set<OpenOption> given = new HashSet<>(Set.of(options));
        if (given.contains(StandardOpenOption.APPEND)) {
            throw new IllegalArgumentException("a channel opened with APPEND cannot be reopened as it was: " + given);
        }
        boolean delete = given.remove(StandardOpenOption.DELETE_ON_CLOSE);
        FileChannel channel = FileChannel.open(path, given);
        FileChannel keeper = null;
        try {
            Object key = fileKey(path);
            boolean unlink = delete && key != null && Files.isDirectory(OPEN_FILES);
            if (unlink) {
                keeper = FileChannel.open(path, StandardOpenOption.READ);
                Files.delete(path);
            }
            Set<OpenOption> reopen = new HashSet<>(given);
            reopen.removeAll(Set.of(StandardOpenOption.CREATE, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.TRUNCATE_EXISTING));
            return new ReopeningChannel(path, Set.copyOf(reopen), channel, keeper, delete && !unlink, key);
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (keeper != null) {
                keeper.close();
            }
            throw e;
        }
    }

    /**
     * Runs {@code op} on the channel, with this thread's interrupt flag cleared and set again after it
     * (an interrupt that came during the operation included); again on a reopened channel if an
     * interrupt closed this one.
     *
     * @param op  the operation
     * @param <T> its result
     * @return what {@code op} returned
     * @throws ClosedChannelException if this channel was {@linkplain #close() closed}
     * @throws IOException            if {@code op} fails, or the file cannot be reopened
     */
    public <T> T call(Op<T> op) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                FileChannel ch = channel;
                try {
                    return op.run(ch);
                } catch (ClosedChannelException closedByAnInterrupt) {
                    interrupted |= Thread.interrupted();
                    reopen(ch, closedByAnInterrupt);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Replaces {@code seen} with a fresh channel, unless another thread did already. */
    private synchronized void reopen(FileChannel seen, ClosedChannelException why) throws IOException {
        if (closed) {
            throw why;
        }
        if (channel != seen) {
            return;
        }
        Path at = keeper != null ? keepersDescriptor(why) : path;
        FileChannel fresh = FileChannel.open(at, reopenOptions);
        if (!Objects.equals(fileKey, fileKey(at))) {
            fresh.close();
            throw new IOException("cannot reopen file=" + path + " after an interrupt closed its channel: another"
                    + " file took its place", why);
        }
        channel = fresh;
    }

    /** The unlinked file's entry in {@code /proc/self/fd}: the keeper's, the one descriptor left. */
    private Path keepersDescriptor(ClosedChannelException why) throws IOException {
        try (DirectoryStream<Path> open = Files.newDirectoryStream(OPEN_FILES)) {
            for (Path fd : open) {
                try {
                    if (fileKey.equals(fileKey(fd))) {
                        return fd;
                    }
                } catch (IOException closedMeanwhile) {
                    // descriptors come and go while we look: not ours
                }
            }
        }
        throw new IOException("cannot reopen unlinked file=" + path + " after an interrupt closed its channel:"
                + " no descriptor of it in " + OPEN_FILES, why);
    }

    private static Object fileKey(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }

    /**
     * Returns what identifies the file whatever its path ({@code (device, inode)} on Unix), or
     * null where the file system has no such key.
     *
     * @return the file key, or null
     */
    public Object fileKey() {
        return fileKey;
    }

    /** @return the file */
    public Path path() {
        return path;
    }

    /**
     * Closes the channel, and deletes the file if it was opened with
     * {@link StandardOpenOption#DELETE_ON_CLOSE}; later operations throw
     * {@link ClosedChannelException}. Idempotent.
     *
     * @throws IOException if closing fails
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            channel.close();
        } finally {
            if (keeper != null) {
                keeper.close();
            }
        }
        if (deleteOnClose) {
            Files.deleteIfExists(path);
        }
    }
}
