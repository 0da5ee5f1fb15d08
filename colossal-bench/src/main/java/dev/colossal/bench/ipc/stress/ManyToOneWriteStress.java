package dev.colossal.bench.ipc.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.colossal.ipc.MessageRing;
import java.lang.foreign.MemorySegment;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Many-to-one ring, two producers racing on the tail, the second of which then reads once as the
 * consumer (two actors, so the test runs on a 2-CPU machine): each message is seen whole or not
 * yet (the first producer's claim, not yet published, may stop the read before the second's
 * message), and both arrive exactly once. r1 = messages the read returned, r2 = 1 if everything
 * checked.
 */
@JCStressTest
@Outcome(id = {"0, 1", "1, 1", "2, 1"}, expect = ACCEPTABLE, desc = "none, one or both messages, each whole")
@Outcome(expect = FORBIDDEN, desc = "a torn, stale, lost or repeated message")
@State
public class ManyToOneWriteStress {

    private final MessageRing ring = Reused.MANY_TO_ONE.take();
    private final Receiver receiver = new Receiver(2);
    private final MemorySegment first = receiver.message(0);
    private final MemorySegment second = receiver.message(1);

    /** Creates the state; jcstress calls this. */
    public ManyToOneWriteStress() {}

    /** Writes the first producer's message. */
    @Actor
    public void producer1() {
        write(first);
    }

    /**
     * Writes the second producer's message, then reads once.
     *
     * @param r r1: messages read
     */
    @Actor
    public void producer2ThenConsumer(II_Result r) {
        write(second);
        r.r1 = ring.read(receiver);
    }

    private void write(MemorySegment message) {
        if (!ring.write(Receiver.TYPE, message, 0, Receiver.LENGTH)) {
            receiver.writeFailed();
        }
    }

    /**
     * Reads the rest and checks.
     *
     * @param r r2: 1 if both messages arrived once and whole
     */
    @Arbiter
    public void check(II_Result r) {
        r.r2 = receiver.drainAndCheck(ring, Reused.MANY_TO_ONE);
    }
}
