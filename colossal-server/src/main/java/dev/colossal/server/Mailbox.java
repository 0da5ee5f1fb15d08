package dev.colossal.server;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where publishers on any event loop leave the messages of one subscribed connection, for that
 * connection's own loop to write. The connection's reply buffer is confined to its loop's thread
 * (its arena is a confined one), so no other thread may append to it: a publisher offers a
 * {@link Frame} here instead, and wakes the subscriber's loop, which moves the frames into the
 * reply buffer ({@link #drainTo}) between two commands of the connection, never inside a reply.
 *
 * <p>Many producers (publishers, under {@link PubSub}'s lock), one consumer (the owner's loop). The
 * queue is FIFO, and a publisher offers its messages one PUBLISH after the other, so each subscriber
 * receives each publisher's messages in the order they were published. A publisher offers the frame
 * BEFORE it tests {@link #scheduled}; the loop clears {@link #scheduled} BEFORE it polls: a frame
 * offered while the loop drains is either seen by that drain or schedules another.
 *
 * <p>Bounded: past {@link OutputLimit#HARD} bytes waiting here a publisher offers no more and has the
 * connection closed, so a subscriber whose loop is held up cannot make publishers fill the heap.
 */
final class Mailbox {

    /**
     * One message as RESP, less its header: {@code head} is the kind (and a pmessage's pattern),
     * {@code tail} the channel and payload, one array shared by every subscriber of the channel.
     *
     * @param parts the push's number of elements: 3, or 4 for a pmessage; 0 for a reply written
     *              as it is ({@link Monitors}' line, {@code head} alone); {@link #UNBOUNDED} likewise, uncounted
     * @param head  the kind, and a pattern's bulk string for a pmessage
     * @param tail  the channel and the message
     */
    record Frame(int parts, byte[] head, byte[] tail) {

        /**
         * {@code parts} of bytes written as they are and not counted against the bound: a replica's
         * snapshot and the stream held for it while it was made, which its output limit bounds.
         */
        static final int UNBOUNDED = -1;

        /** @return about the bytes the frame takes in a reply buffer, for the output limit */
        long size() {
            return parts == UNBOUNDED ? 0 : 4 + head.length + tail.length;
        }
    }

    private final ConcurrentLinkedQueue<Frame> frames = new ConcurrentLinkedQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** Puts the connection on its loop's list of connections with mail, and wakes the loop. */
    private final Runnable wake;
    /** Closes the connection on its loop (CLIENT KILL's way). */
    private final Runnable kill;
    /** Set once the bound is passed: the connection is being closed, nothing more is offered. */
    private volatile boolean overLimit;

    Mailbox(Runnable wake, Runnable kill) {
        this.wake = wake;
        this.kill = kill;
    }

    /** Called by a publisher, from any loop: queues {@code f} and wakes the owner's loop if it is not yet woken. */
    void offer(Frame f) {
        if (overLimit) {
            return;
        }
        if (queuedBytes.addAndGet(f.size()) > OutputLimit.HARD) {
            overLimit = true;
            kill.run();
            return;
        }
        frames.offer(f);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            wake.run();
        }
    }

    /** On the owner's loop: appends every frame waiting, in order, to {@code r}. */
    void drainTo(Reply r) {
        scheduled.set(false);
        long taken = 0;
        for (Frame f; (f = frames.poll()) != null; ) {
            if (f.parts > 0) {
                r.push(f.parts);
            }
            r.append(f.head);
            r.append(f.tail);
            taken += f.size();
        }
        if (taken != 0) {
            queuedBytes.addAndGet(-taken);
        }
    }

    /** @return the bytes of the frames waiting */
    long queuedBytes() {
        return queuedBytes.get();
    }
}
