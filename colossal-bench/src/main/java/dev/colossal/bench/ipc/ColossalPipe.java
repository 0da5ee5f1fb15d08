package dev.colossal.bench.ipc;

import dev.colossal.ipc.MessageHandler;
import dev.colossal.ipc.MessageRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/** Colossal's ring on a /dev/shm region. */
final class ColossalPipe implements Pipe {

    private final MessageRing ring;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message;
    private final int size;
    private java.util.function.LongConsumer sink;
    private final MessageHandler handler = (type, buffer, offset, length) ->
            sink.accept(buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));

    ColossalPipe(boolean many, int capacity, int size, Path path) {
        this.ring = many ? MessageRing.manyToOne(path, capacity) : MessageRing.oneToOne(path, capacity);
        this.size = size;
        this.message = arena.allocate(size, 8);
        message.fill((byte) 1);
    }

    @Override
    public boolean offer() {
        return ring.write(1, message, 0, size);
    }

    @Override
    public boolean offer(long stamp) {
        message.set(ValueLayout.JAVA_LONG, 0, stamp);
        return ring.write(1, message, 0, size);
    }

    @Override
    public int poll(java.util.function.LongConsumer firstLongs) {
        sink = firstLongs;
        return ring.read(handler);
    }

    @Override
    public void close() {
        ring.close();
        arena.close();
    }
}
