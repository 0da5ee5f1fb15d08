package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SCAN's steps: a whole iteration in small steps looks at each key once, not the map once a step. */
class ScanStepsTest {

    @TempDir
    Path dir;

    @Test
    void aWholeScanInStepsOfTenShouldLookAtEveryKeyOnce() throws Exception {
        long[] now = {1_000};
        try (MapStore store = MapStore.open(dir, () -> now[0])) {
            int n = 30_000;
            for (int i = 0; i < n; i++) {
                store.set(("k" + i).getBytes(StandardCharsets.US_ASCII), new byte[] {1}, i % 10 == 0 ? 2_000 : StoredValue.NO_EXPIRY);
            }
            now[0] = 3_000; // every tenth key has expired, not yet purged
            Set<String> returned = new HashSet<>();
            long[] looked = {0};
            long cursor = 0;
            int steps = 0;
            do {
                cursor = store.scanKeys(cursor, 10, k -> {
                    looked[0]++;
                    return k.length < 6 || k[5] != '7';
                }, (k, at) -> assertTrue(returned.add(new String(k, StandardCharsets.US_ASCII)), "returned twice"));
                steps++;
            } while (cursor != 0);
            assertEquals(n - n / 10, looked[0], "each live key looked at once in the whole scan");
            long expected = 0;
            for (int i = 0; i < n; i++) {
                String k = "k" + i;
                if (i % 10 != 0 && (k.length() < 6 || k.charAt(5) != '7')) {
                    expected++;
                    assertTrue(returned.contains(k), k);
                }
            }
            assertEquals(expected, returned.size());
            assertTrue(steps > n / 30, "small steps: " + steps);
            assertEquals(0, store.scanKeys(Long.MAX_VALUE, 10, k -> true, (k, at) -> { }), "a cursor never returned ends the scan");
        }
    }
}
