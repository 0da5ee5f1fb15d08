package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The striped key locks every writer holds (see {@link KeyValueStore#lock}). One set serves every
 * database: a key's lock is the same in all of them, so MOVE, and a transaction that SELECTs
 * between its commands, lock a key once for whichever databases it touches. Keys of different
 * databases that share a stripe wait for each other, as keys of one database sharing a stripe do.
 */
final class KeyLocks {

    private static final int STRIPE_BITS = 10;
    private static final int STRIPES = 1 << STRIPE_BITS;
    private static final long MIX = 0x9E3779B97F4A7C15L; // 2^64 / golden ratio, odd

    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

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

    /** @return the distinct locks of {@code keys} in the one global order every caller takes them in */
    Lock[] locks(byte[]... keys) {
        return Arrays.stream(keys).mapToInt(k -> stripe(MemorySegment.ofArray(k))).sorted().distinct()
                .mapToObj(i -> locks[i]).toArray(Lock[]::new);
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
