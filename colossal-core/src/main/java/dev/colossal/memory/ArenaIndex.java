package dev.colossal.memory;

import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The index file of a {@link MappedArena}: where each allocation lives in {@code arena.data}.
 *
 * <pre>
 *  arena.index (little-endian)
 *  0        8        12       16
 *  +--------+--------+--------+
 *  | magic  | version| unused |   header: magic "CLSARENA", version 1
 *  +--------+--------+--------+------------------+
 *  | file offset (8) | byte size (8) | alignment (8) |   one record per allocation, in order
 *  +-----------------+---------------+---------------+
 *  ...
 * </pre>
 *
 * A record is appended when its segment is handed out; a crash between the two leaves at worst an
 * allocation that is not listed (its bytes are unreachable, nothing else is affected). A trailing
 * partial record (a crash mid-append) is ignored on open.
 */
final class ArenaIndex implements AutoCloseable {

    static final String FILE = "arena.index";
    static final long MAGIC = 0x414e455241534c43L; // "CLSARENA" read little-endian
    static final int VERSION = 1;
    static final int HEADER_LENGTH = 16;
    static final int RECORD_LENGTH = 24;
    static final int OFFSET_OFFSET = 0;
    static final int SIZE_OFFSET = 8;
    static final int ALIGNMENT_OFFSET = 16;

    /** Reopened when an allocating thread's interrupt closed it, which would fail every later allocation. */
    private final ReopeningChannel channel;
    private long end;

    private ArenaIndex(ReopeningChannel channel, long end) {
        this.channel = channel;
        this.end = end;
    }

    static ArenaIndex create(Path dir) throws IOException {
        Path path = dir.resolve(FILE);
        ArenaIndex index = new ArenaIndex(ReopeningChannel.open(path, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE), 0);
        try {
            index.write(buffer(HEADER_LENGTH).putLong(MAGIC).putInt(VERSION).putInt(0).flip());
            return index;
        } catch (IOException | RuntimeException e) {
            index.close();
            // Created here, so ours to remove: an index without its header would block the next build.
            try {
                Files.deleteIfExists(path);
            } catch (IOException left) {
                e.addSuppressed(left);
            }
            throw e;
        }
    }

    static ArenaIndex open(Path dir) throws IOException {
        Path path = dir.resolve(FILE);
        ReopeningChannel ch = ReopeningChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        ByteBuffer header = buffer(HEADER_LENGTH);
        ch.call(c -> c.read(header.clear(), 0));
        header.flip();
        if (header.remaining() < HEADER_LENGTH || header.getLong() != MAGIC) {
            ch.close();
            throw new IOException(path + " is not a Colossal arena index (bad magic)");
        }
        int version = header.getInt();
        if (version != VERSION) {
            ch.close();
            throw new IOException(path + " has index version=" + version + "; this library reads version="
                    + VERSION + ": use the Colossal release that wrote it");
        }
        long records = (ch.call(FileChannel::size) - HEADER_LENGTH) / RECORD_LENGTH;
        return new ArenaIndex(ch, HEADER_LENGTH + records * RECORD_LENGTH);
    }

    /** @return every record as {offset, size, alignment}, in allocation order */
    List<long[]> records() throws IOException {
        int count = Math.toIntExact((end - HEADER_LENGTH) / RECORD_LENGTH);
        ByteBuffer all = buffer(Math.multiplyExact(count, RECORD_LENGTH));
        while (all.hasRemaining() && channel.call(c -> c.read(all, HEADER_LENGTH + all.position())) > 0) {
            // read until full: a regular file returns what it has
        }
        all.flip();
        List<long[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int base = i * RECORD_LENGTH;
            out.add(new long[] {all.getLong(base + OFFSET_OFFSET), all.getLong(base + SIZE_OFFSET),
                all.getLong(base + ALIGNMENT_OFFSET)});
        }
        return out;
    }

    void append(long offset, long size, long alignment) throws IOException {
        write(buffer(RECORD_LENGTH).putLong(offset).putLong(size).putLong(alignment).flip());
    }

    /** Appends {@code bytes} at the end; each write goes where the buffer's position says, so may run again. */
    private void write(ByteBuffer bytes) throws IOException {
        int length = bytes.remaining();
        while (bytes.hasRemaining()) {
            channel.call(c -> c.write(bytes, end + bytes.position()));
        }
        end += length;
    }

    /** Little-endian, fixed, so that kept arenas move between machines. */
    private static ByteBuffer buffer(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
