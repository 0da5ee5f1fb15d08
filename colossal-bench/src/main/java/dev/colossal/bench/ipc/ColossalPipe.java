package dev.colossal.bench.ipc;

import dev.colossal.ipc.MessageHandler;
import dev.colossal.ipc.MessageRing;
import dev.colossal.ipc.SharedRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

/** Colossal's ring on a /dev/shm region. */
final class ColossalPipe implements Pipe {

    private final Path path;
    private final MessageRing producer;
    private final MessageRing consumer;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message;
    private final int size;
    private volatile boolean running = true;
    private Thread thread;
    long sum;

    ColossalPipe(boolean many, int capacity, int size) throws Exception {
        this.path = SharedRegion.shm("colossal-bench-ring-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        // Two mappings of one file, as two processes would have.
        this.producer = many ? MessageRing.manyToOne(path, capacity) : MessageRing.oneToOne(path, capacity);
        this.consumer = many ? MessageRing.manyToOne(path, capacity) : MessageRing.oneToOne(path, capacity);
        this.size = size;
        this.message = arena.allocate(size, 8);
        message.fill((byte) 1);
    }

    @Override
    public boolean offer() {
        return producer.write(1, message, 0, size);
    }

    @Override
    public void startConsumer() {
        MessageHandler handler = (type, buffer, offset, length) -> sum += buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        thread = Pipe.pollingThread(() -> running, () -> consumer.read(handler));
    }

    @Override
    public void close() throws Exception {
        running = false;
        thread.join();
        producer.close();
        consumer.close();
        arena.close();
        Files.deleteIfExists(path);
    }
}
