package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When keys were last used (OBJECT IDLETIME, the {@code -lru} policies) or, under an LFU policy,
 * how often (OBJECT FREQ, the {@code -lfu} policies): an approximation kept in the heap, never in
 * the map files (a store to the mapped file on every GET would dirty a page per read, and the file
 * would be written back for reads).
 *
 * <p>Keys share {@link #SLOTS} slots by a hash of their database and bytes. In LRU mode each slot
 * holds the second (since the server started, plus one: 0 is "not used since start") of the last
 * use of any key in it. So a key's idle time is never said to be longer than it is, but with many
 * keys a key may be given the more recent use of another in its slot. A key not used since the
 * server started is idle since the start, as Redis counts keys it loaded at its start. Slots are
 * written by every event loop without a lock: an int store is whole, and a lost race loses one use.
 *
 * <p>In LFU mode a second table of slots holds Redis's LFU word: a logarithmic use counter, which a
 * use raises with a chance of 1 in {@code (counter - 5) * }{@link #lfuLogFactor}{@code  + 1} and
 * which loses one every {@link #lfuDecayMinutes} unused, and the minute it was last used:
 *
 * <pre>
 *   bit 31     25 24 23            8 7          0
 *      +--------+--+----------------+------------+
 *      |  zero  |1 | minute (16 bit)|  counter   |
 *      +--------+--+----------------+------------+
 * </pre>
 *
 * The bit above the minute tells a slot in use from 0, a slot no key used yet since the mode
 * began: its first use makes it {@link #LFU_INIT} at that minute, what Redis gives a new key (so a
 * key's first touch here is not counted, as Redis counts none for the SET that made it). Entering
 * LFU mode clears the counters: Redis warns that its counts take time to adjust too. The last uses
 * are kept in both modes (one more int store per use under LFU), so that back under an LRU policy
 * a key's idle time is still right: go-redis's own test sets volatile-lfu for an OBJECT FREQ, sets
 * noeviction back and expects the IDLETIME of a key it has just written to be about 0, not the
 * server's uptime.
 */
final class AccessClock {

    /** 1 MiB of ints: a miss in it costs about what a GET's other cache misses cost. */
    static final int SLOTS = 1 << 18;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** The longest idle time kept: an int of seconds, less room for the uptime (about 34 years). */
    private static final long MAX_IDLE = 1L << 30;

    /** Redis's LFU_INIT_VAL: the counter of a key just made, so it is not evicted before a second use. */
    static final int LFU_INIT = 5;
    /** The highest use counter: Redis's 8 bits. */
    static final int LFU_MAX = 255;
    private static final int IN_USE = 1 << 24;
    private static final long NANOS_PER_MINUTE = 60 * NANOS_PER_SECOND;

    private final int[] lastUse = new int[SLOTS];
    /** The LFU words, written under an LFU policy only. */
    private final int[] counters = new int[SLOTS];
    private final long startNanos = System.nanoTime();
    /** Whether uses are counted too: an LFU policy is in force. */
    private volatile boolean lfu;
    /** Redis's lfu-log-factor: how much harder each step of the counter is to climb. */
    volatile int lfuLogFactor = 10;
    /** Redis's lfu-decay-time: minutes for the counter to lose one; 0 never decays. */
    volatile int lfuDecayMinutes = 1;

    /** {@code key} of database {@code db} was used at {@code nowNanos} ({@link System#nanoTime}). */
    void touch(int db, byte[] key, long nowNanos) {
        use(slot(hash(db, key)), nowNanos);
    }

    /** The same, for a key in a request's buffer: GET's and SET's, which are never copied out. */
    void touch(int db, MemorySegment buf, long at, int length, long nowNanos) {
        int h = db;
        for (long i = at, end = at + length; i < end; i++) {
            h = 31 * h + buf.get(ValueLayout.JAVA_BYTE, i);
        }
        use(slot(h), nowNanos);
    }

    private void use(int slot, long nowNanos) {
        int second = second(nowNanos);
        // Stored only when the second moved: a hot key is used by every event loop, and a store on
        // each use keeps its cache line moving between the cores (JFR put the key's touch at ~9% of
        // a pipelined INCR/HGET/HSET mix on one key each; what this store alone cost was not measured).
        if (lastUse[slot] != second) {
            lastUse[slot] = second;
        }
        if (!lfu) {
            return;
        }
        int word = counters[slot];
        int minute = minute(nowNanos);
        if (word == 0) {
            counters[slot] = lfuWord(minute, LFU_INIT);
            return;
        }
        int counter = decayed(word, minute);
        if (counter < LFU_MAX) {
            double chance = 1.0 / (Math.max(0, counter - LFU_INIT) * (double) lfuLogFactor + 1);
            if (ThreadLocalRandom.current().nextDouble() < chance) {
                counter++;
            }
        }
        counters[slot] = lfuWord(minute, counter);
    }

    /** Counts uses (an LFU policy) besides keeping last uses; counting starts again from none. */
    void countUses(boolean on) {
        if (lfu != on) {
            if (on) {
                java.util.Arrays.fill(counters, 0);
            }
            lfu = on;
        }
    }

    /** @return whether slots count uses: an LFU policy is in force */
    boolean countsUses() {
        return lfu;
    }

    /**
     * @return {@code key}'s use counter at {@code nowNanos}, less the decay since it was last used,
     *     as OBJECT FREQ answers it; {@link #LFU_INIT} for a slot no key has used
     */
    int frequency(int db, byte[] key, long nowNanos) {
        int word = counters[slot(hash(db, key))];
        return word == 0 ? LFU_INIT : decayed(word, minute(nowNanos));
    }

    /** RESTORE ... FREQ under an LFU policy: {@code key}'s counter is {@code freq} (0..255) now. */
    void restoredFrequency(int db, byte[] key, int freq, long nowNanos) {
        counters[slot(hash(db, key))] = lfuWord(minute(nowNanos), freq);
    }

    private int decayed(int word, int minute) {
        int counter = word & LFU_MAX;
        int decay = lfuDecayMinutes;
        if (decay == 0) {
            return counter;
        }
        int elapsed = (minute - (word >>> 8 & 0xFFFF)) & 0xFFFF;   // the minute wraps at 16 bits, as Redis's
        return Math.max(0, counter - elapsed / decay);
    }

    private static int lfuWord(int minute, int counter) {
        return IN_USE | (minute & 0xFFFF) << 8 | counter;
    }

    private int minute(long nowNanos) {
        return (int) ((nowNanos - startNanos) / NANOS_PER_MINUTE);
    }

    /**
     * Commands that look at a key without using it, as Redis looks them up (its LOOKUP_NOTOUCH):
     * asking a key's TTL, type or existence leaves OBJECT IDLETIME, and so LRU eviction, as it was.
     */
    private static final java.util.Set<String> LOOK_ONLY = java.util.Set.of("ttl", "pttl", "expiretime", "pexpiretime",
            "type", "exists");

    /** @return whether command {@code name} looks at its keys without using them ({@link #LOOK_ONLY}) */
    static boolean looksOnly(String name) {
        return LOOK_ONLY.contains(name);
    }

    /** Touches the keys {@code spec} names in {@code args}, as the command is about to use them. */
    void touchKeys(CommandSpec spec, byte[][] args, int db, long nowNanos) {
        if (spec.firstKey() <= 0 || spec.looksOnly()) {
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
        if (lfu) {
            return;   // Redis too takes IDLETIME under an LRU policy only, and FREQ under LFU
        }
        long at = second(nowNanos) - Math.min(idle, MAX_IDLE);
        lastUse[slot(hash(db, key))] = at == 0 ? -1 : (int) at;
    }

    /** @return the whole seconds since {@code key} of {@code db} was last used, at {@code nowNanos} */
    long idleSeconds(int db, byte[] key, long nowNanos) {
        if (lfu) {
            return 0;   // OBJECT IDLETIME is refused under LFU; a slot holds no second then
        }
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
