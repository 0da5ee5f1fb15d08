package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transmitter that laps its receivers all the time: whatever a receiver hands over must be a
 * whole message (every byte checked) and newer than the one before, or the lap detection let a
 * torn or reordered record through.
 */
class BroadcastStressTest {

    @TempDir
    Path dir;

    @Test
    void lappedReceiversNeverDeliverATornOrOlderMessage() throws Exception {
        Path path = dir.resolve("b");
        int capacity = 1024;
        try (BroadcastTransmitter tx = BroadcastTransmitter.open(path, capacity)) {
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong delivered = new AtomicLong();
            AtomicLong laps = new AtomicLong();
            List<Thread> receivers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                BroadcastReceiver rx = BroadcastReceiver.open(path, capacity);
                receivers.add(Thread.ofPlatform().start(() -> {
                    long[] last = {-1};
                    try (rx) {
                        while (!done.get() && failure.get() == null) {
                            rx.receive((type, buffer, offset, length) -> {
                                long seq = Messages.check(buffer, offset, 0, length, tx.maxMessageLength());
                                if (seq <= last[0]) {
                                    throw new AssertionError("reordering detected: seq=" + seq + " after " + last[0]);
                                }
                                last[0] = seq;
                                delivered.incrementAndGet();
                            });
                        }
                        laps.addAndGet(rx.lappedCount());
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment message = arena.allocate(tx.maxMessageLength());
                for (long seq = 0; seq < 1_000_000 && failure.get() == null; seq++) {
                    int length = Messages.length(seq, tx.maxMessageLength());
                    Messages.fill(message, 0, 0, seq, length);
                    tx.transmit(1, message, 0, length);
                }
            }
            done.set(true);
            for (Thread t : receivers) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(delivered.get() > 0, "receivers got messages");
            assertTrue(laps.get() > 0, "the transmitter lapped the receivers: " + laps.get());
        }
    }
}
