package dev.colossal.server;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A bucketed set as a set command sees it under its key's lock: a {@link StoredHash} whose fields
 * are the members, each with the empty value, so that SADD and SREM rewrite one bucket and the
 * header whatever the set's size, and a kill at any moment leaves a set that reads right with the
 * right SCARD, as a hash does ({@link StoredHash} says why). Changes are kept in memory until
 * {@link #commit}.
 */
final class StoredSet implements SetWrites {

    /**
     * A positive count above the set's size over this ratio reads the whole set and shuffles it; a
     * smaller one picks members until it has enough distinct ones, reading one bucket a pick.
     */
    static final int PICKS_PER_MEMBER = 3;

    private final StoredHash h;
    /** SPOP took every member: {@link #commit} deletes the set rather than emptying each bucket. */
    private boolean cleared;

    StoredSet(StoredHash h) {
        this.h = h;
    }

    /** The bucketed set header {@code e} holds under {@code key}; the caller holds the key's lock. */
    static StoredSet read(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        return new StoredSet(StoredHash.read(store, key, e));
    }

    /**
     * Stores {@code members}, distinct and more than one bucket's worth, bucketed under
     * {@code key} with deadline {@code at}: every bucket first, the header last.
     */
    static void save(KeyValueStore store, byte[] key, List<byte[]> members, long at, long maxIntsetEntries) {
        HashValue pairs = HashValue.empty();
        for (byte[] m : members) {
            pairs.put(m, StoredHash.NO_VALUE);
        }
        StoredHash.saveBucketed(store, key, pairs, at, HashBuckets.fieldsPerBucket(maxIntsetEntries), StoredValue.SET);
    }

    boolean contains(byte[] m) {
        return h.get(m) != null;
    }

    /** A member added again writes nothing. */
    @Override
    public int addAll(byte[][] a, int from, int to) {
        int added = 0;
        for (int i = from; i < to; i++) {
            added += h.add(a[i], StoredHash.NO_VALUE) ? 1 : 0;
        }
        return added;
    }

    @Override
    public int removeAll(byte[][] a, int from, int to) {
        int removed = 0;
        for (int i = from; i < to; i++) {
            removed += h.remove(a[i]) ? 1 : 0;
        }
        return removed;
    }

    @Override
    public long count() {
        return cleared ? 0 : h.count();
    }

    @Override
    public boolean changed() {
        return cleared || h.changed();
    }

    /** Removes members one by one (a bucket each), or all at once when {@code k} covers the set. */
    @Override
    public List<byte[]> pop(long k) {
        List<byte[]> picked = distinct(k);
        if (k >= h.count()) {
            cleared = true;
            return picked;
        }
        for (byte[] m : picked) {
            h.remove(m);
        }
        return picked;
    }

    /** Writes the changes ({@link StoredHash#commit}); a set left empty is deleted, its buckets with it. */
    void commit(long maxIntsetEntries) {
        if (cleared) {
            h.delete();
        } else {
            h.commit(HashBuckets.fieldsPerBucket(maxIntsetEntries));
        }
    }

    /** @return every member, bucket by bucket (counted as read: a reply's length must match what follows it) */
    List<byte[]> members() {
        List<byte[]> out = new ArrayList<>((int) Math.min(h.count(), 1 << 20));
        h.forEach((m, v) -> out.add(m));
        return out;
    }

    /**
     * Calls {@code action} with members bucket by bucket until it answers false.
     *
     * @return false if {@code action} stopped the walk
     */
    boolean forEachWhile(Predicate<byte[]> action) {
        for (long b = 0; b < h.buckets(); b++) {
            HashValue v = h.bucketAt(b);
            for (int i = 0; i < v.size(); i++) {
                if (!action.test(v.field(i))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return a member, near uniformly ({@link HashSampling#randomField}) */
    byte[] random() {
        return HashSampling.randomField(h);
    }

    /** @return {@code k} members each drawn on its own, one bucket read a draw */
    List<byte[]> repeated(int k) {
        List<byte[]> out = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            out.add(random());
        }
        return out;
    }

    /**
     * @return {@code k} distinct members, {@code 0 < k}: all of them if {@code k} covers the set;
     *     drawn one by one (a bucket read each) while {@code k} is small against the set, so that
     *     SRANDMEMBER and SPOP with a small count do not read the whole set
     */
    List<byte[]> distinct(long k) {
        long n = h.count();
        if (k >= n) {
            return members();
        }
        if (k * PICKS_PER_MEMBER > n) {
            List<byte[]> all = members();
            int[] picks = RandomPicks.distinct(all.size(), (int) Math.min(k, all.size()));
            List<byte[]> out = new ArrayList<>(picks.length);
            for (int i : picks) {
                out.add(all.get(i));
            }
            return out;
        }
        Set<ByteBuffer> seen = new LinkedHashSet<>();
        while (seen.size() < k) {
            seen.add(ByteBuffer.wrap(random()));
        }
        List<byte[]> out = new ArrayList<>(seen.size());
        for (ByteBuffer b : seen) {
            out.add(b.array());
        }
        return out;
    }
}
