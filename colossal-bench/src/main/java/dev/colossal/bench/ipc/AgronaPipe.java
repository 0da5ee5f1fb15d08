package dev.colossal.bench.ipc;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/** Agrona's ring on a mapped /dev/shm file: the same kind of memory as ours. */
final class AgronaPipe implements Pipe {

    private final RingBuffer ring;
    private final UnsafeBuffer message;
    private final int size;
    private java.util.function.LongConsumer sink;
    private final MessageHandler handler = (type, buffer, index, length) -> sink.accept(buffer.getLong(index));

    AgronaPipe(boolean many, int capacity, int size, Path path, boolean create) throws Exception {
        int length = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        MappedByteBuffer mapped;
        try (FileChannel channel = create
                ? FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        this.ring = many ? new ManyToOneRingBuffer(new UnsafeBuffer(mapped)) : new OneToOneRingBuffer(new UnsafeBuffer(mapped));
        this.size = size;
        this.message = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        message.setMemory(0, size, (byte) 1);
    }

    @Override
    public boolean offer() {
        return ring.write(1, message, 0, size);
    }

    @Override
    public boolean offer(long stamp) {
        message.putLong(0, stamp);
        return ring.write(1, message, 0, size);
    }

    @Override
    public int poll(java.util.function.LongConsumer firstLongs) {
        sink = firstLongs;
        return ring.read(handler);
    }

    @Override
    public void close() {
        // A MappedByteBuffer is unmapped by the GC.
    }
}
