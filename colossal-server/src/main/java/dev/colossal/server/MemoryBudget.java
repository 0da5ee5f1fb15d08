package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code --maxmemory} as Redis has it: one bound for the whole server, however many databases
 * hold the keys.
 *
 * <p>Each database's map is created with the whole bound as its own (so one database alone, and
 * every data directory served before there were several, evicts exactly as a lone map does: by
 * its CLOCK, per segment, as it writes). A map's bound is fixed in its file when it is made, so
 * a split decided then (a sixteenth each) would give a cache that uses one database a sixteenth of
 * its memory. Instead, once two or more maps are open, this keeps their total within the bound:
 * writes add up their bytes, and every {@link #slack} bytes written the total is summed, and if it
 * is over {@code bound - slack} each map evicts its share of the excess, in proportion to what it
 * holds, by its own CLOCK ({@code BytesMap.evict}). Between two looks at most {@code slack} more
 * can be written, so the total stays within the bound, give or take an entry per writer racing
 * the look. A server with one database open, and no lists, streams or other collections kept in
 * an element map, pays nothing for this.
 *
 * <p>Element maps count too: a list's header is a few dozen bytes in its database's map and its
 * elements are entries of the database's element map ({@link ListElements}), so a map's share
 * is its keys and its elements, and the writes of elements are added up as the keys' are. A map
 * with an element map is looked after here even when it is the only one. Evicting a key frees its
 * elements at once ({@link MapStore#evict}), so that a look sees them gone, as Redis frees an
 * evicted key's value, and those of values removed otherwise (DEL, expiry) are freed before each
 * look, so that they do not count as what must be evicted.
 *
 * <p>Under {@code noeviction} and the sampling policies ({@link SampledEviction}) the map files
 * have no bound of their own: every write is counted here, each look evicts by the sampling
 * policy if there is one and notes whether the total is still over the bound, and while it is
 * the server refuses the commands Redis refuses then ({@link #full}). That bound and policy live
 * here alone, so CONFIG SET may change them.
 */
final class MemoryBudget {

    /** Whether the bound is kept by the maps' own CLOCK ({@code allkeys-lru}), or here (the other policies). */
    private final boolean evicts;
    /** The bound; 0 for none, which only {@code noeviction} has (CONFIG SET maxmemory may set one). */
    private volatile long bound;
    /** Bytes written between two looks at the total, and the room below the bound each look leaves. */
    private volatile long slack;
    private final AtomicLong written = new AtomicLong();
    private final ReentrantLock trimming = new ReentrantLock();
    /** The open maps, copied on change; at least two once this is shared. */
    private volatile List<MapStore> maps = List.of();
    /** Under {@code noeviction} or a sampling policy: whether the total was over the bound at the last look. */
    private volatile boolean full;
    /** The sampling policy that evicts when the maps have no bound of their own; null under {@code noeviction}. */
    private volatile SampledEviction sampled;
    /** When a look may sample again after one found nothing to evict (System.nanoTime). */
    private long nextSampling = System.nanoTime();
    /** How long refusals go on before a look samples again, after one found nothing to evict. */
    private static final long SAMPLING_BACKOFF_NANOS = 100_000_000L;

    /** @param bound the {@code --maxmemory} bytes, shared by every database, kept by evicting */
    MemoryBudget(long bound) {
        this(bound, true);
    }

    /**
     * @param bound  the {@code --maxmemory} bytes, shared by every database; 0 for none (not if {@code evicts})
     * @param evicts whether the bound is kept by evicting keys ({@code allkeys-lru}) or by refusing
     *               writes past it ({@code noeviction}, {@link #full})
     */
    MemoryBudget(long bound, boolean evicts) {
        this.evicts = evicts;
        this.bound = bound;
        this.slack = Math.max(1, bound / 64);
    }

    /**
     * A map was opened. Evicting, from the second on every open map tells this of its writes, and
     * before, a map with an element map does ({@link MapStore#bound}); refusing, every map does
     * while there is a bound.
     */
    synchronized void add(MapStore map) {
        List<MapStore> more = new ArrayList<>(maps);
        more.add(map);
        maps = List.copyOf(more);
        if (!evicts) {
            if (bound > 0) {
                map.share(this);
            }
        } else if (more.size() == 2) {
            // The first map may be at the bound already: the first write from now on looks.
            written.set(slack);
            more.forEach(m -> m.share(this));
        } else if (more.size() > 2) {
            map.share(this);
        }
        map.bound(this);
    }

    /** {@code map} has an element map now: its writes count from now on, if the map's do or must. */
    void elementsOpened(MapStore map) {
        if (evicts || bound > 0) {
            map.share(this);
        }
    }

    /** A map wrote about {@code bytes} (counted high): looks at the total every {@link #slack} bytes. */
    void wrote(long bytes) {
        if (written.addAndGet(bytes) >= slack) {
            trim();
        }
    }

    /**
     * Under {@code noeviction}, or a sampling policy that found nothing to evict: whether a command
     * that may add data is to be refused with Redis's {@code OOM} now, as the total was over the
     * bound at the last look. While it is, every call looks again (a DEL or FLUSHDB may have made
     * room), so a refusal costs a sum over the maps.
     *
     * @return whether the data is over the bound; false when evicting or without a bound
     */
    boolean full() {
        if (!full) {
            return false;
        }
        trim();
        return full;
    }

    /**
     * Evicts by {@code s} from now on when over the bound (null: refuses writes, {@code noeviction});
     * only for maps without a bound of their own.
     */
    void evictBy(SampledEviction s) {
        if (evicts) {
            throw new IllegalStateException("the bound of an allkeys-lru cache is kept by its map files");
        }
        sampled = s;
        trim();
    }

    /** @return the bound in bytes, 0 for none */
    long bound() {
        return bound;
    }

    /** @return whether the bound is kept by evicting ({@code allkeys-lru}), not by refusing writes */
    boolean evicts() {
        return evicts;
    }

    /**
     * CONFIG SET maxmemory under {@code noeviction}: the bound lives here alone (the map files have
     * none), so it may change at any time; 0 removes it, and with it the counting of writes.
     *
     * @param bytes the new bound, 0 for none
     * @throws IllegalStateException if the bound is kept by evicting (it is in the map files)
     */
    synchronized void setBound(long bytes) {
        if (evicts) {
            throw new IllegalStateException("the bound of an evicting cache is in its map files");
        }
        bound = bytes;
        slack = Math.max(1, bytes / 64);
        for (MapStore m : maps) {
            m.share(bytes > 0 ? this : null);
        }
        if (bytes == 0) {
            full = false;
        } else {
            trim();
        }
    }

    /**
     * Brings the total under the bound, less the slack, if it is over; a look already under way is
     * enough. One map of keys alone keeps the bound itself, to the last byte, as it always did:
     * left alone.
     */
    void trim() {
        List<MapStore> all = maps;
        long max = bound;
        if (all.isEmpty() || max == 0 || evicts && all.size() == 1 && !all.get(0).hasElements() || !trimming.tryLock()) {
            return;
        }
        try {
            written.set(0);
            all.forEach(MapStore::freeRemoved); // what DEL and expiry dropped is not what the bound must evict
            long[] used = new long[all.size()];
            long total = 0;
            for (int i = 0; i < used.length; i++) {
                used[i] = all.get(i).usedBytes();
                total += used[i];
            }
            if (!evicts) {
                SampledEviction s = sampled;
                long now = System.nanoTime();
                if (s != null && total > max - slack && now - nextSampling >= 0) {
                    s.evict(total - (max - slack));
                    total = 0;
                    for (MapStore m : all) {
                        total += m.usedBytes();
                    }
                    if (total > max) {
                        // no key could go (none with a TTL, say): refuse for a while before sampling again
                        nextSampling = now + SAMPLING_BACKOFF_NANOS;
                    }
                }
                full = total > max;
                return;
            }
            long excess = total - (max - slack);
            if (excess <= 0) {
                return;
            }
            for (int i = 0; i < used.length; i++) {
                // ceiling of the share, so that the shares add up to the excess at least
                long share = (long) Math.ceil((double) excess * used[i] / total);
                if (share > 0) {
                    all.get(i).evict(share);
                }
            }
        } finally {
            trimming.unlock();
        }
    }

    /** @return the bytes written between two looks at the total (for tests) */
    long slack() {
        return slack;
    }
}
