package dev.colossal.bench.arrays;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;

/**
 * The seed's "traditional" segmented storage, the peer we must beat: an array of mapped
 * {@link ByteBuffer} chunks, each element found by chunk lookup and read with a bounds-checked
 * {@code getDouble(int)}. Chunks come from a recycling free list, as in the seed.
 */
final class ByteBufferChunks implements AutoCloseable {

    private final int chunkBytes;
    private final int shift;
    private final FileChannel file;
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private long mapped;

    ByteBufferChunks(Path dir, int chunkBytes) {
        this.chunkBytes = chunkBytes;
        this.shift = Integer.numberOfTrailingZeros(chunkBytes);
        try {
            Path path = Files.createTempFile(dir, "bytebuffers", ".data");
            this.file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ByteBuffer[] allocate(long bytes) {
        int n = (int) ((bytes + chunkBytes - 1) / chunkBytes);
        ByteBuffer[] chunks = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            ByteBuffer b = free.poll();
            if (b == null) {
                try {
                    b = file.map(FileChannel.MapMode.READ_WRITE, mapped, chunkBytes).order(ByteOrder.nativeOrder());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                mapped += chunkBytes;
            }
            chunks[i] = b;
        }
        return chunks;
    }

    void release(ByteBuffer[] chunks) {
        for (ByteBuffer b : chunks) {
            free.push(b);
        }
    }

    int shift() {
        return shift;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
