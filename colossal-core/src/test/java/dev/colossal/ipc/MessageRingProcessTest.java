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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Rings between spawned JVMs: exactly once, in order per producer, across many wraps; kill -9. */
class MessageRingProcessTest {

    private static final int CAPACITY = 4096;

    private final Path path = SharedRegion.shm("colossal-test-ring-" + ProcessHandle.current().pid());

    @AfterEach
    void deleteRegion() throws Exception {
        Files.deleteIfExists(path);
    }

    /** Consumes until every producer has sent {@code count} messages, checking each one. */
    private static void consumeAll(MessageRing ring, int producers, int count) {
        long[] next = new long[producers];
        long[] received = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        IdleStrategy idle = IdleStrategy.backoff();
        while (received[0] < (long) producers * count) {
            idle.idle(ring.read((type, buffer, offset, length) -> {
                int producer = type - 1;
                long seq = Messages.check(buffer, offset, producer, length, ring.maxMessageLength());
                assertEquals(next[producer], seq, "producer " + producer + " out of order or duplicated");
                next[producer]++;
                received[0]++;
            }));
            assertTrue(System.nanoTime() < deadline, "timed out with " + received[0] + " received");
        }
        for (int p = 0; p < producers; p++) {
            assertEquals(count, next[p], "producer " + p);
        }
    }

    @Test
    void oneToOneDeliversEveryMessageOnceInOrderAcrossManyWraps() throws Exception {
        int count = 200_000;
        try (MessageRing ring = MessageRing.oneToOne(path, CAPACITY);
             ChildJvm producer = ChildJvm.start(IpcChild.class, "produce", path, "spsc", CAPACITY, 0, count)) {
            consumeAll(ring, 1, count);
            assertEquals(0, producer.waitExit());
            assertTrue(ring.consumerPosition() > 1000L * CAPACITY, "wrapped " + ring.consumerPosition() / CAPACITY + " times");
            assertEquals(0, ring.read((t, b, o, l) -> { }));
        }
    }

    @Test
    void manyToOneFromThreeProcessesDeliversEachProducersMessagesOnceInOrder() throws Exception {
        int count = 60_000;
        int producers = 3;
        try (MessageRing ring = MessageRing.manyToOne(path, CAPACITY)) {
            List<ChildJvm> children = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                children.add(ChildJvm.start(IpcChild.class, "produce", path, "mpsc", CAPACITY, p, count));
            }
            try {
                consumeAll(ring, producers, count);
                for (ChildJvm child : children) {
                    assertEquals(0, child.waitExit());
                }
            } finally {
                children.forEach(ChildJvm::close);
            }
            assertEquals(ring.producerPosition(), ring.consumerPosition(), "everything claimed was consumed");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"spsc", "mpsc"})
    void afterAProducerIsKilledMidWriteUnblockLetsTheConsumerGoOnLosingNothingPublished(String kind) throws Exception {
        int published = 5_000;
        try (MessageRing ring = IpcChild.ring(path, kind, CAPACITY);
             ChildJvm dying = ChildJvm.start(IpcChild.class, "produce-then-die", path, kind, CAPACITY, 0, published)) {
            long[] next = {0};
            MessageHandler check = (type, buffer, offset, length) -> {
                long seq = Messages.check(buffer, offset, type - 1, length, ring.maxMessageLength());
                assertEquals(next[type - 1]++, seq);
            };
            while (next[0] < published) {
                ring.read(check);
            }
            dying.awaitLine("CLAIMED");
            dying.kill9();
            // A live producer (a replacement, for one-to-one) writes behind the dead one's unfinished record.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment message = arena.allocate(ring.maxMessageLength());
                int length = Messages.length(published, ring.maxMessageLength());
                Messages.fill(message, 0, 0, published, length);
                assertTrue(ring.write(1, message, 0, length));
            }
            assertEquals(0, ring.read(check), "blocked behind the dead producer's record");
            assertTrue(ring.unblock());
            int after = 0;
            for (int i = 0; i < 2 && after == 0; i++) {
                after += ring.read(check);
            }
            assertEquals(1, after);
            assertEquals(published + 1, next[0], "every published message arrived exactly once");
            assertEquals(ring.producerPosition(), ring.consumerPosition());
        }
    }
}
