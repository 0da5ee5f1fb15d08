package dev.colossal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Codecs are shared: made once per type even when threads race, and used by many threads at once. */
class CodecConcurrencyTest {

    /** A type no other test asks for, so that the threads below race to create its codec. */
    public record Fresh(long id, String name, List<Integer> values) {}

    @Test
    void threadsRacingForACodecGetOneAndEncodeAndDecodeConcurrently() throws Exception {
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Codec<Fresh>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    Codec<Fresh> codec = Codecs.of(Fresh.class);
                    MemorySegment buffer = Arena.ofAuto().allocate(1 << 12);
                    for (int i = 0; i < 20_000; i++) {
                        Fresh value = new Fresh(seed * 1_000_000L + i, "n" + i, List.of(i, -i, seed));
                        long end = codec.encode(value, buffer, 0);
                        assertEquals(value, codec.decode(buffer.asSlice(0, end)));
                    }
                    return codec;
                }));
            }
            Codec<Fresh> first = futures.get(0).get(60, TimeUnit.SECONDS);
            for (Future<Codec<Fresh>> f : futures) {
                assertSame(first, f.get(60, TimeUnit.SECONDS), "one codec per type, whoever wins the race");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
