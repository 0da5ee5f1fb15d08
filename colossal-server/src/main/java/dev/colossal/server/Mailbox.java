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
 * <p>Bounded: past {@link #bound} bytes waiting here (the connection's hard output limit) a
 * publisher offers no more and has the connection closed, so a subscriber whose loop is held up
 * cannot make publishers fill the heap.
 *
 * <p>A snapshot ({@link #offerSnapshot}: a replica's, or {@code redis-cli --rdb}'s) is a frame that
 * holds a file, not bytes: the loop writes it from disk a part at a time as the socket takes it
 * ({@link #nextSnapshotPart}), and the frames offered behind it (the stream of writes that follows
 * a replica's snapshot) wait here until it is all written.
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
     * @param file  a snapshot to write after {@code head}, from disk; null for a frame of bytes
     */
    record Frame(int parts, byte[] head, byte[] tail, SnapshotFile file) {

        Frame(int parts, byte[] head, byte[] tail) {
            this(parts, head, tail, null);
        }

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
    /** The bytes that may wait here: the hard output limit of the connection (pub/sub's, or a replica's). */
    private volatile long bound = OutputLimit.HARD;
    /**
     * Snapshot frames offered and not yet all written; once {@link #discard}ed, -1, and no more are
     * taken in. Changed holding this, read without (every request of the connection asks).
     */
    private volatile int snapshotsWaiting;
    /** On the owner's loop: the snapshot being written, and how many of its bytes are in the reply buffer. */
    private SnapshotFile sending;
    private long sent;
    private static final byte[] NONE = {};

    Mailbox(Runnable wake, Runnable kill) {
        this.wake = wake;
        this.kill = kill;
    }

    /** A replica's output limit, past which it is dropped, rather than pub/sub's. */
    void bound(long bytes) {
        bound = bytes;
    }

    /**
     * Called by a publisher, from any loop: queues {@code f} and wakes the owner's loop if it is not yet woken.
     *
     * @return false if the frame was not queued: the connection is over its limit, and being closed
     */
    boolean offer(Frame f) {
        if (overLimit) {
            return false;
        }
        if (queuedBytes.addAndGet(f.size()) > bound) {
            overLimit = true;
            kill.run();
            return false;
        }
        frames.offer(f);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            wake.run();
        }
        return true;
    }

    /**
     * From any thread: queues a snapshot as Redis's {@code $length} payload, which takes over the
     * caller's hold on {@code file}.
     *
     * @return false if the connection is gone (its mailbox {@linkplain #discard discarded}): the file was let go
     */
    boolean offerSnapshot(SnapshotFile file) {
        byte[] head = ("$" + file.length() + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        synchronized (this) { // against discard: a file queued after it ran would be held for ever
            if (snapshotsWaiting >= 0) {
                snapshotsWaiting++; // before the frame wakes the loop, which must then see it held
                if (offer(new Frame(Frame.UNBOUNDED, head, NONE, file))) {
                    return true;
                }
                snapshotsWaiting--;
            }
        }
        file.release();
        return false;
    }

    /**
     * On the owner's loop: appends the frames waiting, in order, to {@code r}, up to a snapshot's:
     * that one, and those behind it, wait for {@link #nextSnapshotPart}.
     */
    void drainTo(Reply r) {
        scheduled.set(false);
        if (sending != null) {
            return;
        }
        long taken = 0;
        for (Frame f; (f = frames.peek()) != null && f.file == null; ) {
            frames.poll();
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

    /** @return whether a snapshot is being written or waits: the connection runs no request meanwhile, so no reply cuts into it */
    boolean holdsSnapshot() {
        return snapshotsWaiting > 0;
    }

    /**
     * On the owner's loop, once the reply buffer is all written: appends what comes next to it,
     * the frames before a snapshot and its head, then its bytes up to {@code max} at a time, then,
     * when it is all written, the frames that waited behind it.
     *
     * @return whether anything was appended
     */
    boolean nextSnapshotPart(Reply r, int max) throws java.io.IOException {
        int before = r.len;
        if (sending == null) {
            drainTo(r);
            Frame f = frames.peek();
            if (f == null || f.file == null) {
                return r.len > before;
            }
            frames.poll();
            r.append(f.head);
            sending = f.file;
            sent = 0;
        }
        if (sent < sending.length()) {
            sent += r.read(sending, sent, (int) Math.min(max, sending.length() - sent));
            return true;
        }
        sending.release();
        sending = null;
        synchronized (this) {
            snapshotsWaiting--;
        }
        drainTo(r);
        return r.len > before || holdsSnapshot();
    }

    /**
     * The connection closed (after it stopped being a replica, so no snapshot is offered any
     * more): lets go of the snapshots it holds, and refuses any offered later.
     */
    void discard() {
        synchronized (this) {
            snapshotsWaiting = -1;
        }
        if (sending != null) {
            sending.release();
            sending = null;
        }
        for (Frame f; (f = frames.poll()) != null; ) {
            if (f.file != null) {
                f.file.release();
            }
        }
    }

    /** @return the bytes of the frames waiting */
    long queuedBytes() {
        return queuedBytes.get();
    }
}
