package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.colossal.ChildJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BroadcastTest {

    @TempDir
    Path dir;

    @Test
    void closingTwiceDoesNothing() {
        Path path = dir.resolve("twice");
        BroadcastTransmitter tx = BroadcastTransmitter.open(path, 1024);
        BroadcastReceiver rx = BroadcastReceiver.open(path, 1024);
        rx.close();
        rx.close();
        tx.close();
        tx.close();
    }

    @Test
    void everyReceiverGetsEveryMessageInOrderWhenKeepingUp() {
        Path path = dir.resolve("b");
        try (BroadcastTransmitter tx = BroadcastTransmitter.open(path, 1024);
             BroadcastReceiver a = BroadcastReceiver.open(path, 1024);
             BroadcastReceiver b = BroadcastReceiver.open(path, 1024);
             Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(tx.maxMessageLength());
            List<Long> gotA = new ArrayList<>();
            List<Long> gotB = new ArrayList<>();
            for (long seq = 0; seq < 5_000; seq++) {
                int length = Messages.length(seq, tx.maxMessageLength());
                Messages.fill(message, 0, 0, seq, length);
                tx.transmit(1, message, 0, length);
                while (a.receive((t, buf, off, len) -> gotA.add(Messages.check(buf, off, 0, len, tx.maxMessageLength()))) > 0) {
                    // drain
                }
                if (seq % 3 == 0) {
                    while (b.receive((t, buf, off, len) -> gotB.add(Messages.check(buf, off, 0, len, tx.maxMessageLength()))) > 0) {
                        // a slower receiver, still within one lap
                    }
                }
            }
            while (b.receive((t, buf, off, len) -> gotB.add(Messages.check(buf, off, 0, len, tx.maxMessageLength()))) > 0) {
                // rest
            }
            assertEquals(5_000, gotA.size());
            assertEquals(gotA, gotB);
            assertEquals(0, a.lappedCount() + b.lappedCount());
            for (int i = 0; i < gotA.size(); i++) {
                assertEquals(i, gotA.get(i));
            }
        }
    }

    @Test
    void aReceiverLappedByATransmitterInAnotherProcessDetectsItAndResumesInOrder() throws Exception {
        Path path = SharedRegion.shm("colossal-test-bcast-" + ProcessHandle.current().pid());
        Files.deleteIfExists(path);
        int count = 200_000;
        try (BroadcastReceiver rx = BroadcastReceiver.open(path, 1024)) {
            List<Long> got = new ArrayList<>();
            try (ChildJvm tx = ChildJvm.start(IpcChild.class, "transmit", path, 1024, count)) {
                long polls = 0;
                boolean done = false;
                while (!done) {
                    // A slow receiver: it polls now and then, so the transmitter laps it.
                    for (int i = 0; i < 3; i++) {
                        rx.receive((t, buf, off, len) -> got.add(Messages.check(buf, off, 0, len, 128)));
                    }
                    Thread.sleep(0, 200_000);
                    done = ++polls > 50 && !tx.isAlive();
                }
                assertEquals(0, tx.waitExit());
            }
            while (rx.receive((t, buf, off, len) -> got.add(Messages.check(buf, off, 0, len, 128))) > 0) {
                // what is left in the last lap
            }
            assertTrue(rx.lappedCount() > 0, "the slow receiver was told it was lapped");
            assertEquals(count - 1, got.get(got.size() - 1), "it ends on the last message");
            for (int i = 1; i < got.size(); i++) {
                assertTrue(got.get(i) > got.get(i - 1), "in order after every lap: " + got.get(i - 1) + " then " + got.get(i));
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
