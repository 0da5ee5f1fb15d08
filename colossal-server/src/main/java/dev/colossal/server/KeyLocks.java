package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The striped key locks every writer holds (see {@link KeyValueStore#lock}). One set serves every
 * database: a key's lock is the same in all of them, so MOVE, and a transaction that SELECTs
 * between its commands, lock a key once for whichever databases it touches. Keys of different
 * databases that share a stripe wait for each other, as keys of one database sharing a stripe do.
 *
 * <p>Whoever holds more than one stripe at a time (MSET, RENAME, EXEC, a script) first takes the
 * one {@linkplain #multiStripe() multi-stripe lock}. That is what keeps a script deadlock-free when
 * it touches a key it did not declare, locking that key's stripe while it holds others, out of
 * the sorted order: every other holder of a stripe is then a one-stripe command (the multi-stripe
 * lock is the script's), which waits for nothing while it holds its stripe, so it finishes and
 * lets go. Holders of several stripes taking them in sorted order under that lock cannot wait on
 * each other in a cycle either. One-stripe commands (GET, SET, INCR) never touch it.
 */
final class KeyLocks {

    private static final int STRIPE_BITS = 10;
    private static final int STRIPES = 1 << STRIPE_BITS;
    private static final long MIX = 0x9E3779B97F4A7C15L; // 2^64 / golden ratio, odd

    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];
    private final MultiStripeLock multiStripe = new MultiStripeLock();

    KeyLocks() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    Lock lock(byte[] key) {
        return locks[stripe(MemorySegment.ofArray(key))];
    }

    Lock lock(MemorySegment key) {
        return locks[stripe(key)];
    }

    /** @return whether some thread holds {@code key}'s lock now (a command writing it, or a key of its stripe) */
    boolean held(MemorySegment key) {
        return locks[stripe(key)].isLocked();
    }

    /**
     * @return the distinct locks of {@code keys} in the one global order every caller takes them
     *         in, led by the {@linkplain #multiStripe() multi-stripe lock} when there is more than one
     */
    Lock[] locks(byte[]... keys) {
        // a loop, not a stream: a script's EVAL takes its keys' locks here, and the stream's
        // pipeline was a twelfth of a short script's CPU
        int[] stripes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            stripes[i] = stripe(MemorySegment.ofArray(keys[i]));
        }
        Arrays.sort(stripes);
        int distinct = 0;
        for (int i = 0; i < stripes.length; i++) {
            if (i == 0 || stripes[i] != stripes[i - 1]) {
                stripes[distinct++] = stripes[i];
            }
        }
        if (distinct < stripes.length) {
            stripes = Arrays.copyOf(stripes, distinct);
        }
        if (stripes.length < 2) {
            return stripes.length == 0 ? new Lock[0] : new Lock[] {locks[stripes[0]]};
        }
        Lock[] all = new Lock[stripes.length + 1];
        all[0] = multiStripe;
        for (int i = 0; i < stripes.length; i++) {
            all[i + 1] = locks[stripes[i]];
        }
        return all;
    }

    /**
     * Locks {@code key}'s stripe for a script that names a key it did not declare, unless this
     * thread holds it already (a declared key's, or one named before): a script keeps each stripe
     * it touched to its end, so no other client's write lands between its commands.
     *
     * @return the lock taken, for the caller to unlock, or null if it was held already
     */
    Lock lockUnlessHeld(byte[] key) {
        ReentrantLock l = locks[stripe(MemorySegment.ofArray(key))];
        if (l.isHeldByCurrentThread()) {
            return null;
        }
        l.lock();
        return l;
    }

    /**
     * The lock taken before a second stripe (see the class comment): a script holds it for its
     * whole run, as it may lock stripes it did not declare. Reentrant, as {@link #locks} hands it
     * again to a command a script or EXEC runs.
     */
    MultiStripeLock multiStripe() {
        return multiStripe;
    }

    /**
     * The multi-stripe lock: a command waiting for it while a script has held it past Redis's
     * busy threshold is answered BUSY instead of waiting on (its event loop would serve no one
     * until the script ended or was killed), as Redis answers every command then.
     */
    static final class MultiStripeLock extends ReentrantLock {

        private static final long serialVersionUID = 1L;
        private static final long POLL_MILLIS = 10;

        private transient volatile BooleanSupplier busy = () -> false;

        /** @param busy whether a script has run past the busy threshold (see {@link ScriptCommands}) */
        void busyWhen(BooleanSupplier busy) {
            this.busy = busy;
        }

        /** @throws ReplyException BUSY, see the class comment */
        @Override
        public void lock() {
            if (tryLock()) {
                return;
            }
            try {
                while (!tryLock(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    if (busy.getAsBoolean()) {
                        throw new ReplyException(Errors.BUSY);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ReplyException("ERR interrupted while waiting for a script");
            }
        }
    }

    /**
     * The stripe of {@code key}, the same for its bytes in any segment. Eight bytes a step: a
     * byte-wise hash cost 3-4% of pipelined SET, and a stripe needs spread, not a good hash.
     */
    static int stripe(MemorySegment key) {
        long n = key.byteSize();
        long h = n;
        long i = 0;
        for (; i + Long.BYTES <= n; i += Long.BYTES) {
            h = (h ^ key.get(ValueLayout.JAVA_LONG_UNALIGNED, i)) * MIX;
        }
        if (i < n) { // the last 1-7 bytes: the last eight, overlapping, when the key is that long
            long tail = 0;
            if (n >= Long.BYTES) {
                tail = key.get(ValueLayout.JAVA_LONG_UNALIGNED, n - Long.BYTES);
            } else {
                for (; i < n; i++) {
                    tail = tail << 8 | (key.get(ValueLayout.JAVA_BYTE, i) & 0xFF);
                }
            }
            h = (h ^ tail) * MIX;
        }
        return (int) (h >>> (Long.SIZE - STRIPE_BITS)); // a product's top bits mix all of its input
    }
}
