package dev.colossal.bench.ipc.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.colossal.ipc.MessageRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * One-to-one ring: the consumer sees the message whole or not yet, never a header before its
 * payload. States alternate between the two ways to write: {@code write} (copy, publish, then
 * move the tail) and {@code tryClaim}, stores into {@code buffer()}, {@code commit}. r1 =
 * messages the consumer read, r2 = 1 if everything checked.
 */
@JCStressTest
@Outcome(id = {"0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "not yet, or the whole message")
@Outcome(expect = FORBIDDEN, desc = "a torn, stale, lost or repeated message")
@State
public class OneToOneStress {

    private final MessageRing ring = Reused.ONE_TO_ONE.take();
    private final Receiver receiver = new Receiver(1);
    private final MemorySegment message = receiver.message(0);
    private final boolean inPlace = (receiver.stamp(0) & 1) == 0;

    /** Creates the state; jcstress calls this. */
    public OneToOneStress() {}

    /** Writes the message, by copy or in place. */
    @Actor
    public void producer() {
        if (!inPlace) {
            if (!ring.write(Receiver.TYPE, message, 0, Receiver.LENGTH)) {
                receiver.writeFailed();
            }
            return;
        }
        long offset = ring.tryClaim(Receiver.TYPE, Receiver.LENGTH);
        if (offset < 0) {
            receiver.writeFailed();
            return;
        }
        MemorySegment buffer = ring.buffer();
        for (int i = 0; i < Receiver.LENGTH; i += 8) {
            buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + i, receiver.stamp(0));
        }
        ring.commit(offset);
    }

    /**
     * Reads once.
     *
     * @param r r1: messages read
     */
    @Actor
    public void consumer(II_Result r) {
        r.r1 = ring.read(receiver);
    }

    /**
     * Reads the rest and checks.
     *
     * @param r r2: 1 if the message arrived once and whole
     */
    @Arbiter
    public void check(II_Result r) {
        r.r2 = receiver.drainAndCheck(ring, Reused.ONE_TO_ONE);
    }
}
