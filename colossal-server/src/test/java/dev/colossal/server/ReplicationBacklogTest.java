package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The backlog against a plain copy of the whole stream: whatever the writes' sizes (smaller than
 * the ring, across its end, longer than it) and after resizing, it holds exactly the last bytes,
 * numbered from 1 as Redis numbers them.
 */
class ReplicationBacklogTest {

    @Test
    void keepsTheLastBytesNumberedFromOne() {
        ReplicationBacklog b = new ReplicationBacklog(100);
        assertEquals(0, b.offset());
        assertTrue(b.holds(1), "the next byte, before any");
        assertArrayEquals(new byte[0], b.since(1));
        byte[] stream = new byte[0];
        int kept = 0; // what the ring should keep: it refills after shrinking
        Random rnd = new Random(3);
        for (int i = 0; i < 500; i++) {
            byte[] w = new byte[rnd.nextInt(i % 50 == 0 ? 250 : 40)];
            rnd.nextBytes(w);
            b.append(w);
            stream = concat(stream, w);
            kept = Math.min(100, kept + w.length);
            assertEquals(stream.length, b.offset());
            long first = stream.length - kept + 1;
            assertEquals(first, b.firstByte());
            assertFalse(first > 1 && b.holds(first - 1), "a byte no longer kept");
            assertFalse(b.holds(stream.length + 2), "a byte not yet written");
            long from = first + rnd.nextInt((int) (stream.length - first + 2));
            assertTrue(b.holds(from));
            assertArrayEquals(Arrays.copyOfRange(stream, (int) from - 1, stream.length), b.since(from));
            if (i % 97 == 0) {
                // CONFIG SET repl-backlog-size smaller keeps the newest bytes that fit, then back
                int size = 10 + rnd.nextInt(80);
                b.resize(size);
                kept = Math.min(kept, size);
                assertEquals(stream.length - kept + 1, b.firstByte());
                assertArrayEquals(Arrays.copyOfRange(stream, stream.length - kept, stream.length), b.since(b.firstByte()));
                b.resize(100);
                assertArrayEquals(Arrays.copyOfRange(stream, stream.length - kept, stream.length), b.since(b.firstByte()));
            }
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
