package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * The set commands on one or two keys, with Redis 7.0's replies and errors. A set of up to
 * {@code set-max-intset-entries} members is one value ({@link SetLayout}): a write holds the key's
 * lock, reads the value, changes it in memory ({@link SetValue}) and stores it whole again with the
 * deadline it had. A larger one is bucketed ({@link StoredSet}): a write reads and rewrites the
 * buckets of the members it names and the header; SISMEMBER reads one bucket without the lock. The
 * commands across sets are {@link SetAlgebra}'s; SRANDMEMBER and SSCAN are {@link SetSampling}'s.
 */
final class SetCommands {

    private static final String NOT_POSITIVE = "ERR value is out of range, must be positive";

    private final ServerContext ctx;

    SetCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> rf = List.of("readonly", "fast");
        t.add("sadd", -3, List.of("write", "denyoom", "fast"), 1, 1, 1, this::sadd);
        t.add("srem", -3, List.of("write", "fast"), 1, 1, 1, this::srem);
        t.add("sismember", 3, rf, 1, 1, 1, this::sismember);
        t.add("smismember", -3, rf, 1, 1, 1, this::smismember);
        t.add("scard", 2, rf, 1, 1, 1, this::scard);
        t.add("smembers", 2, List.of("readonly"), 1, 1, 1, this::smembers);
        t.add("spop", -2, List.of("write", "fast"), 1, 1, 1, this::spop);
        t.add("smove", 4, List.of("write", "fast"), 1, 2, 1, this::smove);
        new SetSampling(ctx).register(t);
        new SetAlgebra(ctx).register(t);
    }

    /**
     * The live set under {@code key}, for the set commands.
     *
     * @return the entry, or null if absent or expired
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static KeyValueStore.Entry set(KeyValueStore store, byte[] key) {
        return StoredHash.current(store, key, StoredValue.SET);
    }

    /**
     * The set {@code e} holds under {@code key} (null: none), as a write changes it; the caller
     * holds the key's lock.
     */
    static SetWrites open(KeyValueStore store, byte[] key, KeyValueStore.Entry e, long maxIntsetEntries) {
        if (e == null) {
            return SetValue.empty(maxIntsetEntries);
        }
        return HashBuckets.isBucketed(e) ? StoredSet.read(store, key, e) : SetValue.of(e, maxIntsetEntries);
    }

    /**
     * Stores the changes of {@code s} under {@code key} with {@code deadline}: a bucketed set's
     * buckets and header; a one-value set whole, or bucketed if it has grown past
     * {@code maxIntsetEntries}. An empty set deletes the key, as in Redis.
     */
    static void save(KeyValueStore store, byte[] key, SetWrites s, long deadline, long maxIntsetEntries) {
        if (s instanceof StoredSet big) {
            big.commit(maxIntsetEntries);
            return;
        }
        SetValue v = (SetValue) s;
        if (v.size() == 0) {
            store.delete(key);
        } else if (v.size() > maxIntsetEntries) {
            StoredSet.save(store, key, v.members(), deadline, maxIntsetEntries);
        } else {
            byte[] payload = v.encode();
            store.set(key, payload, 0, payload.length, deadline, StoredValue.SET);
        }
    }

    /** @return whether the set {@code e} holds under {@code key} has {@code m}, read without the key's lock */
    static boolean contains(KeyValueStore store, byte[] key, KeyValueStore.Entry e, byte[] m) {
        if (e == null) {
            return false;
        }
        return HashBuckets.isBucketed(e) ? StoredHash.find(store, key, e, m) != null : new SetView(e).contains(m);
    }

    /**
     * Runs {@code action} on the bucketed set under {@code key}, under the key's lock, if the key
     * holds one.
     *
     * @return {@link StoredHash#READ_BUCKETED} if it did, else the one-value set to read, from the
     *     one read that found it so ({@link StoredHash#locked}), or null if absent
     */
    static KeyValueStore.Entry bucketed(KeyValueStore store, byte[] key, KeyValueStore.Entry e, Consumer<StoredSet> action) {
        return StoredHash.locked(store, key, e, h -> action.accept(new StoredSet(h)));
    }

    /** @return the members of the set {@code e} holds under {@code key} (none if null), whatever its encoding */
    static List<byte[]> members(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        List<List<byte[]>> big = new ArrayList<>(1);
        e = bucketed(store, key, e, s -> big.add(s.members()));
        if (e == StoredHash.READ_BUCKETED) {
            return big.getFirst();
        }
        return e == null ? new ArrayList<>() : SetValue.of(e, SetLayout.MAX_INTSET_ENTRIES).members();
    }

    private static long deadline(KeyValueStore.Entry e) {
        return e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis();
    }

    /**
     * What a write does to a set: changes it (or not) and says what to answer once it is stored,
     * so that a write the store refuses answers only the store's error.
     */
    @FunctionalInterface
    private interface Change {
        Consumer<Reply> apply(SetWrites s);
    }

    /**
     * A set write: under the key's lock, opens the set (an empty one if absent), applies
     * {@code change}, stores the result with the deadline the key had if it changed, publishes
     * {@code event} ({@link KeyspaceEvents}; and {@code del} if the set is gone), then answers.
     */
    private void write(Client c, byte[] key, Reply r, String event, Change change) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry e = set(store, key);
            long limit = ctx.setMaxIntsetEntries;
            SetWrites s = open(store, key, e, limit);
            Consumer<Reply> reply = change.apply(s);
            if (s.changed()) {
                save(store, key, s, deadline(e), limit);
                ctx.events.fire(KeyspaceEvents.SET, event, store, key);
                if (s.count() == 0) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, key);
                }
            }
            reply.accept(r);
        } finally {
            l.unlock();
        }
    }

    private void sadd(Client c, byte[][] a, Reply r) {
        write(c, a[1], r, "sadd", s -> {
            long added = s.addAll(a, 2, a.length);
            return rr -> rr.integer(added);
        });
    }

    private void srem(Client c, byte[][] a, Reply r) {
        write(c, a[1], r, "srem", s -> {
            long removed = s.count() == 0 ? 0 : s.removeAll(a, 2, a.length);
            return rr -> rr.integer(removed);
        });
    }

    private void sismember(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        r.integer(contains(store, a[1], set(store, a[1]), a[2]) ? 1 : 0);
    }

    private void smismember(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = set(store, a[1]);
        if (a.length > 3) {
            // Members in several buckets: read without the lock, an SADD or SREM of them all could be seen half done
            e = bucketed(store, a[1], e, s -> {
                r.array(a.length - 2);
                for (int i = 2; i < a.length; i++) {
                    r.integer(s.contains(a[i]) ? 1 : 0);
                }
            });
            if (e == StoredHash.READ_BUCKETED) {
                return;
            }
        }
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            r.integer(contains(store, a[1], e, a[i]) ? 1 : 0);
        }
    }

    private void scard(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = set(store, a[1]);
        e = bucketed(store, a[1], e, s -> r.integer(s.count()));
        if (e != StoredHash.READ_BUCKETED) {
            r.integer(e == null ? 0 : new SetView(e).count());
        }
    }

    private void smembers(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = set(store, a[1]);
        e = bucketed(store, a[1], e, s -> reply(s.members(), r));
        if (e == StoredHash.READ_BUCKETED) {
            return;
        }
        if (e == null) {
            r.set(0);
            return;
        }
        all(new SetView(e), r);
    }

    /** The whole set, in its order: a RESP3 set. */
    static void all(SetView v, Reply r) {
        int n = v.count();
        r.set(n);
        try (Reply.Batch b = r.batch()) {
            for (int i = 0; i < n; i++) {
                b.accept(v.bytes(), v.start(i), v.length(i));
            }
        }
    }

    /** {@code members} as a RESP3 set. */
    static void reply(List<byte[]> members, Reply r) {
        r.set(members.size());
        try (Reply.Batch b = r.batch()) {
            for (byte[] m : members) {
                b.bulk(m);
            }
        }
    }

    private void spop(Client c, byte[][] a, Reply r) {
        if (a.length > 3) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (a.length == 2) {
            write(c, a[1], r, "spop", s -> {
                if (s.count() == 0) {
                    return Reply::nullBulk;
                }
                byte[] m = s.pop(1).getFirst();
                return rr -> rr.bulk(m);
            });
            return;
        }
        OptionalLong parsed = Args.toLong(a[2]);
        if (parsed.isEmpty() || parsed.getAsLong() < 0) {
            r.error(NOT_POSITIVE);
            return;
        }
        long count = parsed.getAsLong();
        write(c, a[1], r, "spop", s -> {
            if (s.count() == 0 || count == 0) {
                return rr -> rr.set(0);
            }
            List<byte[]> popped = s.pop(count);
            return rr -> reply(popped, rr);
        });
    }

    private void smove(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock[] ls = store.locks(a[1], a[2]);
        StringCommands.lockAll(ls);
        try {
            KeyValueStore.Entry src = store.get(a[1]);
            if (src == null) {
                r.integer(0);
                return;
            }
            KeyValueStore.Entry dst = store.get(a[2]);
            if (src.type() != StoredValue.SET || (dst != null && dst.type() != StoredValue.SET)) {
                r.error(Errors.WRONGTYPE);
                return;
            }
            if (java.util.Arrays.equals(a[1], a[2])) {
                r.integer(contains(store, a[1], src, a[3]) ? 1 : 0);
                return;
            }
            long limit = ctx.setMaxIntsetEntries;
            SetWrites from = open(store, a[1], src, limit);
            if (!from.remove(a[3])) {
                r.integer(0);
                return;
            }
            SetWrites to = open(store, a[2], dst, limit);
            // The growing write first: if the store refuses it, nothing has moved
            boolean added = to.add(a[3]);
            if (added) {
                save(store, a[2], to, deadline(dst), limit);
            }
            save(store, a[1], from, deadline(src), limit);
            // Redis's order: the source's events, then the destination's
            ctx.events.fire(KeyspaceEvents.SET, "srem", store, a[1]);
            if (from.count() == 0) {
                ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[1]);
            }
            if (added) {
                ctx.events.fire(KeyspaceEvents.SET, "sadd", store, a[2]);
            }
            r.integer(1);
        } finally {
            StringCommands.unlockAll(ls);
        }
    }
}
