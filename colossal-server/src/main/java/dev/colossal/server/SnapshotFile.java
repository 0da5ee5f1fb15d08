package dev.colossal.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A snapshot's RDB file on disk, in the data directory, where replicas and {@code redis-cli --rdb}
 * read it from, each at its own pace: the heap holds none of it, so a dataset larger than the heap
 * (or the machine's memory) still makes a snapshot, as Redis's RDB file on disk does.
 *
 * <p>The file is removed from the directory the moment it is made, and only its open channel
 * reaches it: a server that stops or dies in the middle leaves nothing behind, and the disk space
 * returns when the last holder {@linkplain #release lets go}. Read at positions ({@link
 * FileChannel#read(ByteBuffer, long)}), so any number of holders on any threads share one channel.
 */
final class SnapshotFile {

    private final FileChannel channel;
    private final long length;
    /** The builder's hold, and one per connection it was given to; the channel closes at zero. */
    private final AtomicInteger holders = new AtomicInteger(1);

    private SnapshotFile(FileChannel channel, long length) {
        this.channel = channel;
        this.length = length;
    }

    /**
     * @return a new empty file in {@code dir}, already unlinked, open to write and read
     * @throws UncheckedIOException if it cannot be made there
     */
    static FileChannel create(Path dir) {
        try {
            Path file = Files.createTempFile(dir, ".snapshot-", ".rdb");
            try {
                return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } finally {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not make a snapshot file in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** @return the finished file written to {@code channel}, {@code length} bytes, held once (by its builder) */
    static SnapshotFile of(FileChannel channel, long length) {
        return new SnapshotFile(channel, length);
    }

    long length() {
        return length;
    }

    /**
     * Reads from {@code position} until {@code dst} is full or the file ends.
     *
     * @return the bytes read
     */
    int read(ByteBuffer dst, long position) throws IOException {
        int n = 0;
        while (dst.hasRemaining() && position + n < length) {
            int got = channel.read(dst, position + n);
            if (got < 0) {
                throw new IOException("the snapshot file ended at " + (position + n) + " of " + length + " bytes");
            }
            n += got;
        }
        return n;
    }

    /** One more holder: a connection it is handed to. */
    void retain() {
        holders.incrementAndGet();
    }

    /** A holder lets go; the last one closes the file, and its space returns to the disk. */
    void release() {
        if (holders.decrementAndGet() == 0) {
            close(channel);
        }
    }

    /** Closes a snapshot file's channel whatever state it is in (a build that failed or was given up). */
    static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // an unlinked file's space returns on close whatever the error says
        }
    }
}
