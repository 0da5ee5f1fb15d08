package dev.colossal.bench.ipc.stress;

import dev.colossal.ipc.MessageRing;
import dev.colossal.ipc.SharedChunkPool;
import dev.colossal.ipc.SharedRegion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Rings and pools handed from one jcstress state to the next. jcstress makes millions of states;
 * mapping a file for each would measure mmap, so a state takes one left empty by an earlier
 * state's arbiter. Reuse also moves the rings' positions on, through every wrap and padding
 * case. Each file is unlinked once mapped: nothing is left in /dev/shm when the JVM exits.
 */
final class Reused<T> {

    /** Ring data bytes: a 24-byte message wraps the ring every few states. */
    static final int RING_CAPACITY = 256;

    static final Reused<MessageRing> ONE_TO_ONE = new Reused<>(path -> MessageRing.oneToOne(path, RING_CAPACITY));
    static final Reused<MessageRing> MANY_TO_ONE = new Reused<>(path -> MessageRing.manyToOne(path, RING_CAPACITY));
    static final Reused<SharedChunkPool> ONE_CHUNK_POOL = new Reused<>(path -> SharedChunkPool.open(path, 64, 1));

    private static final AtomicLong NAMES = new AtomicLong();
    /** Distinct per message, so that a stale record left from an earlier state never passes for a new one. */
    private static final AtomicLong STAMPS = new AtomicLong();

    private final Queue<T> free = new ConcurrentLinkedQueue<>();
    private final Function<Path, T> opener;

    private Reused(Function<Path, T> opener) {
        this.opener = opener;
    }

    /** {@return an idle instance, mapped now if none is free} */
    T take() {
        T t = free.poll();
        if (t != null) {
            return t;
        }
        Path path = SharedRegion.shm("colossal-jcstress-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet());
        t = opener.apply(path);
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return t;
    }

    /** Gives back an instance its state has left idle (ring drained, chunks released). */
    void give(T t) {
        free.add(t);
    }

    /** {@return a value no earlier message carried} */
    static long stamp() {
        return STAMPS.incrementAndGet();
    }
}
