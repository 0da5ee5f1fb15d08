package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MapStoreTest {

    @TempDir
    Path dir;

    /** SET's fast path locks the key as a segment; INCR and the rest lock an array copy. */
    @Test
    void aKeyInABufferHasTheLockOfItsCopy() throws Exception {
        try (MapStore store = MapStore.open(dir, System::currentTimeMillis)) {
            Random random = new Random(3);
            byte[] buf = new byte[512];
            for (int i = 0; i < 10_000; i++) {
                random.nextBytes(buf);
                int at = random.nextInt(256);
                int n = random.nextInt(256);
                assertSame(store.lock(Arrays.copyOfRange(buf, at, at + n)), store.lock(MemorySegment.ofArray(buf).asSlice(at, n)),
                        "at=" + at + " n=" + n);
            }
        }
    }

    /** Keys read from a socket sit in native memory: the same bytes, the same stripe, every length. */
    @Test
    void aKeyInNativeMemoryHasTheStripeOfItsArray() {
        Random random = new Random(5);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nativeBuf = arena.allocate(64);
            for (int i = 0; i < 10_000; i++) {
                byte[] key = new byte[random.nextInt(40)];
                random.nextBytes(key);
                int at = random.nextInt(64 - key.length + 1);
                MemorySegment.copy(MemorySegment.ofArray(key), 0, nativeBuf, at, key.length);
                assertEquals(KeyLocks.stripe(MemorySegment.ofArray(key)), KeyLocks.stripe(nativeBuf.asSlice(at, key.length)),
                        "key length=" + key.length + " at=" + at);
            }
        }
    }

    /** Keys that differ in one digit (redis-benchmark's, counters, ids) spread over the stripes. */
    @Test
    void keysThatDifferInOneDigitSpreadOverTheStripes() {
        for (String format : new String[] {"key:%012d", "%d", "user:%d:profile:settings", "k%06d"}) {
            int[] perStripe = new int[1024];
            for (int i = 0; i < 16_384; i++) {
                perStripe[KeyLocks.stripe(MemorySegment.ofArray(String.format(format, i).getBytes(StandardCharsets.US_ASCII)))]++;
            }
            int used = (int) Arrays.stream(perStripe).filter(c -> c > 0).count();
            int max = Arrays.stream(perStripe).max().orElseThrow();
            // 16 keys a stripe on average: a fair hash uses all of them and none gets more than ~3x
            assertTrue(used >= 1000 && max <= 48, format + ": " + used + " stripes used, at most " + max + " keys in one");
        }
    }
}
