package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The publication protocol under contention, threads in one JVM on one mapped region: the
 * consumer checks every byte of every message, so a length made visible before its payload
 * (a reordering) or a record handed out twice fails with "reordering detected".
 */
class RingOrderingStressTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"spsc, 1, 400000", "mpsc, 3, 150000"})
    void everyMessageIsSeenWholeOnceAndInOrder(String kind, int producers, int count) throws Exception {
        try (MessageRing ring = IpcChild.ring(dir.resolve(kind), kind, 1024)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                threads.add(Thread.ofPlatform().start(() -> {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment message = arena.allocate(ring.maxMessageLength());
                        for (long seq = 0; seq < count && failure.get() == null; seq++) {
                            int length = Messages.length(seq, ring.maxMessageLength());
                            // Claim and write in place for odd producers: both paths get stressed.
                            if ((producer & 1) == 1) {
                                long offset;
                                while ((offset = ring.tryClaim(producer + 1, length)) < 0) {
                                    Thread.onSpinWait();
                                }
                                Messages.fill(ring.buffer(), offset, producer, seq, length);
                                ring.commit(offset);
                            } else {
                                Messages.fill(message, 0, producer, seq, length);
                                while (!ring.write(producer + 1, message, 0, length)) {
                                    Thread.onSpinWait();
                                }
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            long[] next = new long[producers];
            long total = 0;
            while (total < (long) producers * count && failure.get() == null) {
                total += ring.read((type, buffer, offset, length) -> {
                    long seq = Messages.check(buffer, offset, type - 1, length, ring.maxMessageLength());
                    if (seq != next[type - 1]) {
                        throw new AssertionError("reordering detected: producer " + (type - 1) + " seq=" + seq
                                + " expected " + next[type - 1]);
                    }
                    next[type - 1]++;
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            for (int p = 0; p < producers; p++) {
                assertEquals(count, next[p]);
            }
        }
    }
}
