package dev.colossal.bench.ipc.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.colossal.ipc.SharedChunkPool;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A one-chunk shared pool: the chunk is never held twice, and whoever takes it after a release
 * sees what the releaser wrote into it. r1 = the chunk the writer got (0, or -1 if taken),
 * r2 = what the other taker saw: -1 did not get the chunk, 1 the writer's stamp, 0 anything else.
 */
@JCStressTest
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "the writer held the chunk; the other found none free")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the other took the chunk after the writer released it, and saw its write")
@Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "the other took the chunk first and kept it")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "taken after the release, but the write is missing")
@Outcome(expect = FORBIDDEN, desc = "held twice, or free and not taken")
@State
public class ChunkHandoverStress {

    private final SharedChunkPool pool = Reused.ONE_CHUNK_POOL.take();
    private final long stamp = Reused.stamp();
    private long taken = -1;

    /** Creates the state; jcstress calls this. */
    public ChunkHandoverStress() {}

    /**
     * Takes the chunk, writes the stamp into it, gives it back.
     *
     * @param r r1: the chunk taken, or -1
     */
    @Actor
    public void writer(II_Result r) {
        long chunk = pool.acquire();
        if (chunk >= 0) {
            pool.chunk(chunk).set(ValueLayout.JAVA_LONG, 0, stamp);
            pool.release(chunk);
        }
        r.r1 = (int) chunk;
    }

    /**
     * Takes the chunk and keeps it.
     *
     * @param r r2: -1 if none was free, else 1 if the chunk holds the writer's stamp, 0 if not
     */
    @Actor
    public void taker(II_Result r) {
        long chunk = pool.acquire();
        taken = chunk;
        r.r2 = chunk < 0 ? -1 : pool.chunk(chunk).get(ValueLayout.JAVA_LONG, 0) == stamp ? 1 : 0;
    }

    /**
     * Gives the kept chunk back, so the next state starts with a free pool (a broken pool may have
     * let both take it, and the writer's release freed it already).
     */
    @Arbiter
    public void reset() {
        if (taken >= 0 && pool.ownerPid(taken) != 0) {
            pool.release(taken);
        }
        Reused.ONE_CHUNK_POOL.give(pool);
    }
}
