package dev.colossal.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A Linux /proc file kept open and read again from its start on each call: the kernel writes it
 * afresh for a read at offset 0, and opening, closing and a new array each time were most of INFO's
 * cost (a monitoring agent may ask every second, redis-benchmark far more often). Not thread-safe:
 * callers hold its lock or keep it to one thread. A {@code /proc/thread-self} file is the thread's
 * that first reads it.
 */
final class ProcFile {

    private final Path path;
    private FileChannel channel;
    private boolean unreadable;
    /** The text of the last {@link #read}, at its start. */
    byte[] bytes = new byte[4096];
    private ByteBuffer buffer = ByteBuffer.wrap(bytes);

    ProcFile(Path path) {
        this.path = path;
    }

    /** @return the file's length now, its text in {@link #bytes}; -1 if it cannot be read (not Linux) */
    int read() {
        if (unreadable) {
            return -1;
        }
        try {
            if (channel == null) {
                channel = FileChannel.open(path);
            }
            while (true) {
                // one read gives all the kernel wrote, as far as the buffer holds
                int length = channel.read(buffer.clear(), 0);
                if (length < bytes.length) {
                    return Math.max(length, 0);
                }
                bytes = new byte[2 * bytes.length]; // it filled the buffer: there may be more
                buffer = ByteBuffer.wrap(bytes);
            }
        } catch (IOException | RuntimeException e) {
            unreadable = true;
            return -1;
        }
    }

    /** Closes the file; a later {@link #read} answers -1. */
    void close() {
        unreadable = true;
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // a /proc file: nothing was written
        }
    }
}
