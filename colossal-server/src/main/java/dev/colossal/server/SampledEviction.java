package dev.colossal.server;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Redis's sampling eviction policies, for maps that have no bound of their own ({@link
 * MemoryBudget} calls {@link #evict} when the data is over {@code maxmemory}): each victim is the
 * best of {@link #SAMPLES} keys read from a random point of each database ({@code
 * maxmemory-samples}), the longest idle ({@code volatile-lru}, and {@code allkeys-lru} once CONFIG SET
 * chose it, by {@link AccessClock}), the least
 * used ({@code allkeys-lfu}, {@code volatile-lfu}, by its counts), the first
 * to expire ({@code volatile-ttl}) or any ({@code allkeys-random}, {@code volatile-random}); the
 * {@code volatile-} policies take keys that have a TTL only. What no sample finds is not
 * evicted, and the server refuses writes as under {@code noeviction}, as Redis does when no key
 * can go (a database with no TTLs under {@code volatile-lru}, say).
 *
 * <p>Redis keeps the keys that have a TTL in a table of their own; here they are found by
 * reading the database from a random point, at most {@link #MAX_STEPS} steps of the scan, so
 * where only a few in thousands have one they may not be found, and writes are refused.
 */
final class SampledEviction {

    /** Redis's {@code maxmemory-samples} default. */
    static final int SAMPLES = 5;
    /** Steps a sample reads at most looking for keys with a TTL: of 16 slots, or of the parts marked as holding some ({@link TtlBuckets}). */
    static final int MAX_STEPS = 16;
    /** Redis's {@code EVPOOL_SIZE}: the best candidates kept from one round to the next. */
    private static final int POOL = 16;
    /** Victims looked for in vain before a look gives up (keys in use, or none with a TTL). */
    private static final int MAX_MISSES = 3;

    /**
     * The policies this evicts by. allkeys-lru chosen at start is the maps' own CLOCK, its bound in
     * their files; chosen by CONFIG SET on a server whose maps have no bound, it is sampled here by
     * the last uses {@link AccessClock} has kept all along (a key not used since the start counts
     * as idle since then, the oldest).
     */
    static final java.util.Set<String> POLICIES = java.util.Set.of("allkeys-lru", "allkeys-random", "volatile-lru",
            "volatile-random", "volatile-ttl", "allkeys-lfu", "volatile-lfu");

    private final String policy;
    private final boolean volatileOnly;
    private final Databases dbs;
    private final AccessClock access;

    /**
     * @param policy one of {@link #POLICIES}
     * @param access the keys' last uses or use counts, for {@code volatile-lru} and the LFU policies
     */
    SampledEviction(String policy, Databases dbs, AccessClock access) {
        if (!POLICIES.contains(policy)) {
            throw new IllegalArgumentException(policy + " is not a sampling policy");
        }
        this.policy = policy;
        this.volatileOnly = policy.startsWith("volatile-");
        this.dbs = dbs;
        this.access = access;
    }

    /** @return the policy's name, as CONFIG GET and INFO give it */
    String policy() {
        return policy;
    }

    /**
     * Evicts keys until about {@code bytes} are freed, or no key can go. As Redis's eviction pool,
     * each round adds {@link #SAMPLES} keys of each database to the best {@link #POOL} kept from
     * the rounds before and evicts the best of them (a round costs a scan step per database); under
     * a random policy every key sampled is as good a victim, so a round's keys all go.
     */
    void evict(long bytes) {
        long freed = 0;
        int misses = 0;
        java.util.TreeSet<Victim> pool = new java.util.TreeSet<>(BEST_FIRST);
        // Keys that would not go (in use, or gone): a sample that finds them again does not put them
        // back, else a few keys with a TTL, the best of them locked, would be tried for ever.
        java.util.TreeSet<Victim> refused = new java.util.TreeSet<>(SAME_KEY);
        boolean random = policy.endsWith("-random");
        while (freed < bytes && misses < MAX_MISSES) {
            if (pool.isEmpty() || !random) {
                sample(pool, refused);
                while (pool.size() > POOL) {
                    pool.pollLast();
                }
                if (pool.isEmpty()) {
                    misses++;
                    continue;
                }
            }
            Victim v = pool.pollFirst();
            long f = v.store.evictKey(v.key);
            if (f >= 0) {
                freed += f;
            } else {
                refused.add(v);
                if (pool.isEmpty()) {
                    misses++;   // a round whose every key was in use or gone
                }
            }
        }
    }

    private record Victim(MapStore store, byte[] key, double score) {}

    /** The same key of the same database. */
    private static final java.util.Comparator<Victim> SAME_KEY = (a, b) -> {
        int c = Integer.compare(System.identityHashCode(a.store), System.identityHashCode(b.store));
        return c != 0 ? c : java.util.Arrays.compare(a.key, b.key);
    };

    /** Higher scores first; a key sampled twice is one candidate. */
    private static final java.util.Comparator<Victim> BEST_FIRST = (a, b) -> {
        int c = Double.compare(b.score, a.score);
        if (c != 0) {
            return c;
        }
        return SAME_KEY.compare(a, b);
    };


    /** Adds to {@code pool} the candidates of one round, {@link #SAMPLES} keys of each database, but those {@code refused}. */
    private void sample(java.util.TreeSet<Victim> pool, java.util.TreeSet<Victim> refused) {
        long now = System.nanoTime();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int db = 0; db < dbs.count(); db++) {
            MapStore m = dbs.opened(db);
            if (m == null || m.size() == 0) {
                continue;
            }
            int n = db;
            m.sample(SAMPLES, volatileOnly, MAX_STEPS, (key, deadline) -> {
                double score = switch (policy) {
                    case "allkeys-lru", "volatile-lru" -> access.idleSeconds(n, key, now);
                    case "allkeys-lfu", "volatile-lfu" -> AccessClock.LFU_MAX - access.frequency(n, key, now);
                    case "volatile-ttl" -> -(double) deadline;
                    default -> random.nextDouble();
                };
                Victim v = new Victim(m, key, score);
                if (!refused.contains(v)) {
                    pool.add(v);
                }
            });
        }
    }
}
