package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.MemorySegment;
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
}
