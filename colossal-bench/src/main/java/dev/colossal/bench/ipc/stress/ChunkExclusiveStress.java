package dev.colossal.bench.ipc.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.colossal.ipc.SharedChunkPool;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A one-chunk shared pool and two takers at once: exactly one gets the chunk. r1, r2 = the chunk
 * each got, -1 for none.
 */
@JCStressTest
@Outcome(id = {"0, -1", "-1, 0"}, expect = ACCEPTABLE, desc = "one took the chunk")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "held twice")
@Outcome(expect = FORBIDDEN, desc = "free, yet neither took it")
@State
public class ChunkExclusiveStress {

    private final SharedChunkPool pool = Reused.ONE_CHUNK_POOL.take();

    /** Creates the state; jcstress calls this. */
    public ChunkExclusiveStress() {}

    /**
     * Takes a chunk.
     *
     * @param r r1: the chunk, or -1
     */
    @Actor
    public void first(II_Result r) {
        r.r1 = (int) pool.acquire();
    }

    /**
     * Takes a chunk.
     *
     * @param r r2: the chunk, or -1
     */
    @Actor
    public void second(II_Result r) {
        r.r2 = (int) pool.acquire();
    }

    /**
     * Gives back what was taken.
     *
     * @param r both results
     */
    @Arbiter
    public void reset(II_Result r) {
        for (int chunk : new int[] {r.r1, r.r2}) {
            if (chunk >= 0 && pool.ownerPid(chunk) != 0) {
                pool.release(chunk);
            }
        }
        Reused.ONE_CHUNK_POOL.give(pool);
    }
}
