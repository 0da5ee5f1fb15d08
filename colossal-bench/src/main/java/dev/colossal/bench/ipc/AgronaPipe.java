package dev.colossal.bench.ipc;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
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

    private final Path path;
    private final RingBuffer producer;
    private final RingBuffer consumer;
    private final UnsafeBuffer message;
    private final int size;
    private volatile boolean running = true;
    private Thread thread;
    long sum;

    AgronaPipe(boolean many, int capacity, int size) throws Exception {
        this.path = Path.of("/dev/shm", "colossal-bench-agrona-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        int length = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        MappedByteBuffer a;
        MappedByteBuffer b;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            a = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            b = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        this.producer = many ? new ManyToOneRingBuffer(new UnsafeBuffer(a)) : new OneToOneRingBuffer(new UnsafeBuffer(a));
        this.consumer = many ? new ManyToOneRingBuffer(new UnsafeBuffer(b)) : new OneToOneRingBuffer(new UnsafeBuffer(b));
        this.size = size;
        this.message = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        message.setMemory(0, size, (byte) 1);
    }

    @Override
    public boolean offer() {
        return producer.write(1, message, 0, size);
    }

    @Override
    public void startConsumer() {
        MessageHandler handler = (type, buffer, index, length) -> sum += buffer.getLong(index);
        thread = Pipe.pollingThread(() -> running, () -> consumer.read(handler));
    }

    @Override
    public void close() throws Exception {
        running = false;
        thread.join();
        Files.deleteIfExists(path);
    }
}
