package dev.colossal.swap;

import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Writes and reads one block ({@link BlockLayout}) between memory segments and a file channel.
 *
 * <p>Aligned runs of the payload (segment address and file offset both multiples of the
 * alignment) go straight between the caller's segments and the file through
 * {@link MemorySegment#asByteBuffer()}: no copy, which direct I/O requires and which keeps the CPU
 * cost to the checksum. What is left over (a short last chunk, unaligned memory, the trailing id)
 * goes through one aligned staging segment, flushed in whole alignment units. A write's CRC32C
 * runs on another thread beside the I/O ({@link Checksum}); a read's on the reading thread.
 */
final class BlockIO {

    private static final ValueLayout.OfLong ID = ValueLayout.JAVA_LONG_UNALIGNED;

    private final ReopeningChannel channel;
    private final Path file;
    private final long alignment;
    private final long ioSize;

    BlockIO(ReopeningChannel channel, Path file, long alignment, long ioSize) {
        this.channel = channel;
        this.file = file;
        this.alignment = alignment;
        this.ioSize = ioSize;
    }

    /** Writes the block of object {@code id} at {@code offset}; the payload is the parts in order. */
    void write(long offset, long id, MemorySegment[] parts, long length) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            Staging staging = new Staging(arena, length, offset + BlockLayout.headerSpan(alignment));
            // The payload does not change while it is written: its checksum runs beside the I/O.
            Checksum crc = Checksum.start(parts, length);
            for (MemorySegment part : parts) {
                long at = 0;
                long n = part.byteSize();
                while (at < n) {
                    long rest = n - at;
                    if (staging.isEmpty() && aligned(part, at) && rest >= alignment) {
                        long len = Math.min(rest & -alignment, ioSize);
                        writeFully(part.asSlice(at, len).asByteBuffer(), staging.filePos);
                        staging.filePos += len;
                        at += len;
                    } else {
                        at += staging.put(part, at, rest);
                    }
                }
            }
            MemorySegment trailer = arena.allocate(ID);
            trailer.set(ID, 0, id);
            staging.put(trailer, 0, ID.byteSize());
            staging.flush();
            MemorySegment header = arena.allocate(BlockLayout.headerSpan(alignment), alignment);
            BlockLayout.writeHeader(header, length, id, crc.await());
            writeFully(header.asByteBuffer(), offset);
        }
    }

    /** Reads the block of object {@code id} at {@code offset} into the parts, checking every guard. */
    void read(long offset, long id, MemorySegment[] parts, long length) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            long blockEnd = offset + BlockLayout.blockSize(length, alignment);
            MemorySegment header = arena.allocate(BlockLayout.headerSpan(alignment), alignment);
            readFully(header.asByteBuffer(), offset, id, offset, blockEnd);
            BlockLayout.checkHeader(header, id, length, file, offset);
            Staging staging = new Staging(arena, length, offset + BlockLayout.headerSpan(alignment));
            CRC32C crc = new CRC32C(); // summed here as each piece lands: see Checksum
            for (MemorySegment part : parts) {
                long at = 0;
                long n = part.byteSize();
                while (at < n) {
                    long rest = n - at;
                    long got;
                    if (staging.isEmpty() && aligned(part, at) && rest >= alignment) {
                        got = Math.min(rest & -alignment, ioSize);
                        readFully(part.asSlice(at, got).asByteBuffer(), staging.filePos, id, offset, blockEnd);
                        staging.filePos += got;
                    } else {
                        got = staging.take(part, at, rest, id, offset, blockEnd);
                    }
                    Checksum.update(crc, part, at, got);
                    at += got;
                }
            }
            int computed = (int) crc.getValue();
            int stored = BlockLayout.crc(header);
            if (stored != computed) {
                throw new SwapCorruptedException(id, file, offset, "payload crc32c=0x" + Integer.toHexString(computed)
                        + " but the header records 0x" + Integer.toHexString(stored));
            }
            MemorySegment trailer = arena.allocate(ID);
            for (long got = 0; got < ID.byteSize(); ) {
                got += staging.take(trailer, got, ID.byteSize() - got, id, offset, blockEnd);
            }
            BlockLayout.checkTrailer(trailer.get(ID, 0), id, file, offset);
        }
    }

    private boolean aligned(MemorySegment part, long at) {
        return part.isNative() && ((part.address() + at) & (alignment - 1)) == 0;
    }

    private void writeFully(ByteBuffer b, long position) throws IOException {
        while (b.hasRemaining()) {
            long at = position;
            int from = b.position();   // a write run again (see ReopeningChannel) starts where this one did
            position += channel.call(ch -> ch.write(b.position(from), at));
        }
    }

    private void readFully(ByteBuffer b, long position, long id, long blockOffset, long blockEnd) throws IOException {
        while (b.hasRemaining()) {
            long at = position;
            int from = b.position();
            int n = channel.call(ch -> ch.read(b.position(from), at));
            if (n < 0) {
                throw new SwapCorruptedException(id, file, blockOffset, "the file ends at " + position
                        + " but the block ends at " + blockEnd + ": the swap file was truncated");
            }
            position += n;
        }
    }

    /** The aligned window through which unaligned bytes pass, a whole number of alignment units at a time. */
    private final class Staging {
        final MemorySegment buffer;
        long filePos;
        /** Writing: bytes staged. Reading: bytes in the window. */
        long fill;
        /** Reading: bytes of the window already taken. */
        long taken;

        Staging(Arena arena, long payloadLength, long filePos) {
            long size = Math.min(ioSize, BlockLayout.roundUp(payloadLength + BlockLayout.TRAILER_SIZE, alignment));
            this.buffer = arena.allocate(size, alignment);
            this.filePos = filePos;
        }

        boolean isEmpty() {
            return fill == taken;
        }

        long put(MemorySegment from, long at, long len) throws IOException {
            long n = Math.min(len, buffer.byteSize() - fill);
            MemorySegment.copy(from, at, buffer, fill, n);
            fill += n;
            if (fill == buffer.byteSize()) {
                flush();
            }
            return n;
        }

        void flush() throws IOException {
            if (fill == 0) {
                return;
            }
            long len = BlockLayout.roundUp(fill, alignment);
            buffer.asSlice(fill, len - fill).fill((byte) 0);
            writeFully(buffer.asSlice(0, len).asByteBuffer(), filePos);
            filePos += len;
            fill = 0;
        }

        long take(MemorySegment to, long at, long len, long id, long blockOffset, long blockEnd)
                throws IOException {
            if (fill == taken) {
                long size = Math.min(buffer.byteSize(), blockEnd - filePos);
                readFully(buffer.asSlice(0, size).asByteBuffer(), filePos, id, blockOffset, blockEnd);
                filePos += size;
                fill = size;
                taken = 0;
            }
            long n = Math.min(len, fill - taken);
            MemorySegment.copy(buffer, taken, to, at, n);
            taken += n;
            return n;
        }
    }
}
