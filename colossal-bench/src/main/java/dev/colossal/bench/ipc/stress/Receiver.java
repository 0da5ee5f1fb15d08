package dev.colossal.bench.ipc.stress;

import dev.colossal.ipc.MessageHandler;
import dev.colossal.ipc.MessageRing;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The consumer's side of a ring test: each message must be {@link #LENGTH} bytes, every word
 * equal to the stamp of one of the test's writers, and each writer's message must arrive once.
 */
final class Receiver implements MessageHandler {

    static final int LENGTH = 24;
    static final int TYPE = 7;

    private final long[] stamps;
    private int seen;
    private boolean wrong;

    Receiver(int writers) {
        stamps = new long[writers];
        for (int i = 0; i < writers; i++) {
            stamps[i] = Reused.stamp();
        }
    }

    /** {@return writer {@code i}'s message: its stamp in each of the three words} */
    MemorySegment message(int i) {
        return MemorySegment.ofArray(new long[] {stamps[i], stamps[i], stamps[i]});
    }

    long stamp(int i) {
        return stamps[i];
    }

    /** A writer could not write into a drained ring: counts as a failure. */
    void writeFailed() {
        wrong = true;
    }

    @Override
    public void onMessage(int type, MemorySegment buffer, long offset, int length) {
        long first = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        int writer = -1;
        for (int i = 0; i < stamps.length; i++) {
            if (stamps[i] == first && (seen & (1 << i)) == 0) {
                writer = i;
            }
        }
        if (type != TYPE || length != LENGTH || writer < 0
                || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8) != first
                || buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + 16) != first) {
            wrong = true;
            return;
        }
        seen |= 1 << writer;
    }

    /**
     * Reads what is left (the writers are done: the arbiter runs after every actor) until the
     * ring is empty, and gives the ring back for the next state.
     *
     * @return 1 if every writer's message arrived once and whole, else 0
     */
    int drainAndCheck(MessageRing ring, Reused<MessageRing> pool) {
        long before;
        do {
            before = ring.consumerPosition();
            ring.read(this);
        } while (ring.consumerPosition() != before);
        boolean empty = ring.consumerPosition() == ring.producerPosition();
        if (empty) {
            pool.give(ring);
        }
        return !wrong && empty && seen == (1 << stamps.length) - 1 ? 1 : 0;
    }
}
