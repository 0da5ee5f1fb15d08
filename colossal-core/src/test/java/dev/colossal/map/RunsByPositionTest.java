package dev.colossal.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RunsByPosition} against a {@link HashMap} under random adds and removes of positions
 * close together (long probe chains, removals from their middle, growth).
 */
class RunsByPositionTest {

    @Test
    void findsWhatAHashMapFindsAfterRandomAddsAndRemoves() {
        RunsByPosition table = new RunsByPosition();
        Map<Long, FreeRunIndex.Run> model = new HashMap<>();
        Random random = new Random(7);
        for (int op = 0; op < 200_000; op++) {
            long pos = 4096 + 8L * random.nextInt(3000);
            if (model.containsKey(pos)) {
                table.remove(pos);
                model.remove(pos);
            } else {
                FreeRunIndex.Run r = new FreeRunIndex.Run();
                r.pos = pos;
                table.put(r);
                model.put(pos, r);
            }
            if (op % 1000 == 0) {
                for (long p = 4096; p < 4096 + 8L * 3000; p += 8) {
                    FreeRunIndex.Run expected = model.get(p);
                    if (expected == null) {
                        assertNull(table.get(p), "pos " + p);
                    } else {
                        assertSame(expected, table.get(p), "pos " + p);
                    }
                }
                assertEquals(model.size(), table.size());
            }
        }
    }
}
