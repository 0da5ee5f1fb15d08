package dev.colossal.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * One server's exclusive claim on its data directory, held from open to close. The map file could
 * be shared by processes, but a server's read-modify-write commands (INCR, APPEND, GETSET, ...)
 * lock keys inside its own process only, so a second server on the same directory would lose
 * updates: it is refused at start instead. An OS file lock, so a server killed with -9 leaves
 * nothing to clean up.
 */
final class DataDirLock implements AutoCloseable {

    static final String FILE_NAME = "serve.lock";

    private final FileChannel channel;
    private final FileLock lock;
    private final String previousPid;

    private DataDirLock(FileChannel channel, FileLock lock, String previousPid) {
        this.channel = channel;
        this.lock = lock;
        this.previousPid = previousPid;
    }

    /**
     * The pid of the server before this one if it did not stop cleanly (killed, crashed, or the
     * machine went down): it wrote its pid here at start, and a clean stop empties the file.
     *
     * @return that pid, or null if the last server stopped cleanly or none ran here
     */
    String previousPid() {
        return previousPid;
    }

    /**
     * Claims {@code dir} for this process.
     *
     * @param dir an existing data directory
     * @return the claim, released by {@link #close}
     * @throws DataDirInUseException if another server (or this process) holds it
     * @throws IOException            if the lock file cannot be written
     */
    static DataDirLock acquire(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        FileAttribute<?>[] ownerOnly = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        FileChannel channel = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE), ownerOnly);
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            String pid = holder(channel);
            if (lock == null) {
                throw new DataDirInUseException("data directory " + dir.toAbsolutePath() + " is in use by another colossal serve"
                        + (pid.isEmpty() ? "" : " (pid " + pid + ")") + ": stop it, or give this one another --data directory");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            return new DataDirLock(channel, lock, pid.isEmpty() ? null : pid);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static String holder(FileChannel channel) throws IOException {
        ByteBuffer holder = ByteBuffer.allocate(32);
        channel.read(holder, 0);
        return new String(holder.array(), 0, holder.position(), StandardCharsets.US_ASCII).trim();
    }

    /**
     * Puts back what the file said before this claim: for a start refused before it served (a
     * bound or a database count that does not fit the directory), so that the next start reports
     * the unclean stop of the server before, if there was one, and not this one's.
     */
    void unclaim() throws IOException {
        channel.truncate(0);
        if (previousPid != null) {
            channel.write(ByteBuffer.wrap((previousPid + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        }
    }

    /** Empties the file, telling the next server that this one stopped cleanly: call once the map is closed. */
    void stoppedCleanly() throws IOException {
        channel.truncate(0);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
