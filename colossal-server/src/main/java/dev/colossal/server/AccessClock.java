package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * When keys were last used, for OBJECT IDLETIME: an approximation kept in the heap, never in the map
 * files (a store to the mapped file on every GET would dirty a page per read, and the file would
 * be written back for reads).
 *
 * <p>Keys share {@link #SLOTS} slots by a hash of their database and bytes; each slot holds the
 * second (since the server started, plus one: 0 is "not used since start") of the last use of any
 * key in it. So a key's idle time is never said to be longer than it is, but with many keys a key
 * may be given the more recent use of another in its slot. A key not used since the server started
 * is idle since the start, as Redis counts keys it loaded at its start. Slots are written by every
 * event loop without a lock: an int store is whole, and a lost race loses one use's second.
 */
final class AccessClock {

    /** 1 MiB of ints: a miss in it costs about what a GET's other cache misses cost. */
    static final int SLOTS = 1 << 18;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** The longest idle time kept: an int of seconds, less room for the uptime (about 34 years). */
    private static final long MAX_IDLE = 1L << 30;

    private final int[] lastUse = new int[SLOTS];
    private final long startNanos = System.nanoTime();

    /** {@code key} of database {@code db} was used at {@code nowNanos} ({@link System#nanoTime}). */
    void touch(int db, byte[] key, long nowNanos) {
        lastUse[slot(hash(db, key))] = second(nowNanos);
    }

    /** The same, for a key in a request's buffer: GET's and SET's, which are never copied out. */
    void touch(int db, MemorySegment buf, long at, int length, long nowNanos) {
        int h = db;
        for (long i = at, end = at + length; i < end; i++) {
            h = 31 * h + buf.get(ValueLayout.JAVA_BYTE, i);
        }
        lastUse[slot(h)] = second(nowNanos);
    }

    /** Touches the keys {@code spec} names in {@code args}, as the command is about to use them. */
    void touchKeys(CommandSpec spec, byte[][] args, int db, long nowNanos) {
        if (spec.firstKey() <= 0) {
            return;
        }
        int last = spec.lastKey() < 0 ? args.length + spec.lastKey() : Math.min(spec.lastKey(), args.length - 1);
        for (int i = spec.firstKey(); i <= last; i += Math.max(1, spec.step())) {
            touch(db, args[i], nowNanos);
        }
    }

    /**
     * RESTORE ... IDLETIME: {@code key} was last used {@code idle} seconds before {@code nowNanos}
     * (before the server started too: a slot holds negative seconds then, never 0, which is "unused").
     */
    void restored(int db, byte[] key, long idle, long nowNanos) {
        long at = second(nowNanos) - Math.min(idle, MAX_IDLE);
        lastUse[slot(hash(db, key))] = at == 0 ? -1 : (int) at;
    }

    /** @return the whole seconds since {@code key} of {@code db} was last used, at {@code nowNanos} */
    long idleSeconds(int db, byte[] key, long nowNanos) {
        int at = lastUse[slot(hash(db, key))];
        return Math.max(0, (long) second(nowNanos) - (at == 0 ? 1 : at));
    }

    private static int hash(int db, byte[] key) {
        int h = db;
        for (byte b : key) {
            h = 31 * h + b;
        }
        return h;
    }

    private static int slot(int h) {
        return (h ^ (h >>> 16)) * 0x9E3779B1 >>> (Integer.SIZE - Integer.numberOfTrailingZeros(SLOTS));
    }

    private int second(long nowNanos) {
        return (int) ((nowNanos - startNanos) / NANOS_PER_SECOND) + 1;
    }
}
