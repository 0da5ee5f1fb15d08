package dev.colossal.ipc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Random writes, claims, aborts and reads of random sizes against a queue as the model, down to
 * the smallest ring, so that every wrap, padding and full-ring boundary is met many times.
 */
class MessageRingModelTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"spsc, 64", "mpsc, 64", "spsc, 128", "mpsc, 256", "spsc, 1024", "mpsc, 1024"})
    void behavesLikeABoundedQueueOfMessages(String kind, int capacity) {
        Random random = new Random(capacity * 31L + kind.hashCode());
        try (MessageRing ring = IpcChild.ring(dir.resolve(kind), kind, capacity); Arena arena = Arena.ofConfined()) {
            ArrayDeque<byte[]> model = new ArrayDeque<>();
            MemorySegment source = arena.allocate(ring.maxMessageLength() + 1);
            long bytesInRing = 0;
            // One producer keeps the header after its newest record zeroed: 8 bytes it never fills.
            int reserve = kind.equals("spsc") ? 8 : 0;
            for (int step = 0; step < 200_000; step++) {
                int action = random.nextInt(10);
                if (action < 6) {
                    int length = random.nextInt(ring.maxMessageLength() + 1);
                    byte[] message = new byte[length];
                    random.nextBytes(message);
                    boolean abort = action == 5;
                    boolean written;
                    if (action >= 4) {
                        long offset = ring.tryClaim(1 + random.nextInt(5), length);
                        written = offset >= 0;
                        if (written) {
                            MemorySegment.copy(message, 0, ring.buffer(), ValueLayout.JAVA_BYTE, offset, length);
                            if (abort) {
                                ring.abort(offset);
                            } else {
                                ring.commit(offset);
                            }
                        }
                    } else {
                        MemorySegment.copy(message, 0, source, ValueLayout.JAVA_BYTE, 0, length);
                        written = ring.write(1 + random.nextInt(5), source, 0, length);
                    }
                    long recordBytes = (length + 8 + 7) & -8;
                    if (!written) {
                        // Full is only allowed when the record could not fit even with padding.
                        assertTrue(bytesInRing + recordBytes + reserve > capacity - recordBytes,
                                "refused a write with " + bytesInRing + " of " + capacity + " bytes used");
                    } else if (!abort) {
                        model.add(message);
                    }
                } else {
                    int limit = 1 + random.nextInt(4);
                    int[] read = {0};
                    ring.read((type, buffer, offset, length) -> {
                        byte[] expected = model.poll();
                        assertArrayEquals(expected, buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE),
                                "message content or order");
                        read[0]++;
                    }, limit);
                    assertTrue(read[0] <= limit);
                }
                bytesInRing = ring.producerPosition() - ring.consumerPosition();
                assertTrue(bytesInRing >= 0 && bytesInRing <= capacity, "used=" + bytesInRing);
            }
            while (ring.read((type, buffer, offset, length) ->
                    assertArrayEquals(model.poll(), buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE))) > 0
                    || ring.consumerPosition() != ring.producerPosition()) {
                // drain, padding records included
            }
            assertEquals(0, model.size(), "every message written was read");
        }
    }
}
