package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;

/**
 * The set commands on one or two keys, with Redis 7.0's replies and errors. A set is one value
 * ({@link SetLayout}); a write holds the key's lock, reads the value, changes it in memory
 * ({@link SetValue}) and stores it whole again with the deadline it had. The commands across sets
 * are {@link SetAlgebra}'s; SRANDMEMBER and SSCAN are {@link SetSampling}'s.
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
        KeyValueStore.Entry e = store.get(key);
        if (e != null && e.type() != StoredValue.SET) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return e;
    }

    /** Stores {@code s} under {@code key} with {@code deadline}; an empty set deletes the key, as in Redis. */
    static void save(KeyValueStore store, byte[] key, SetValue s, long deadline) {
        if (s.size() == 0) {
            store.delete(key);
            return;
        }
        byte[] payload = s.encode();
        store.set(key, payload, 0, payload.length, deadline, StoredValue.SET);
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
        Consumer<Reply> apply(SetValue s);
    }

    /**
     * A set write: under the key's lock, decodes the set (an empty one if absent), applies
     * {@code change}, stores the result with the deadline the key had if it changed, publishes
     * {@code event} ({@link KeyspaceEvents}; and {@code del} if the set is gone), then answers.
     */
    private void write(Client c, byte[] key, Reply r, String event, Change change) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry e = set(store, key);
            SetValue s = e == null ? SetValue.empty() : SetValue.of(e);
            Consumer<Reply> reply = change.apply(s);
            if (s.changed()) {
                save(store, key, s, deadline(e));
                ctx.events.fire(KeyspaceEvents.SET, event, store, key);
                if (s.size() == 0) {
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
            long removed = s.size() == 0 ? 0 : s.removeAll(a, 2, a.length);
            return rr -> rr.integer(removed);
        });
    }

    private void sismember(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = set(ctx.db(c), a[1]);
        r.integer(e != null && new SetView(e).contains(a[2]) ? 1 : 0);
    }

    private void smismember(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = set(ctx.db(c), a[1]);
        SetView v = e == null ? null : new SetView(e);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            r.integer(v != null && v.contains(a[i]) ? 1 : 0);
        }
    }

    private void scard(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = set(ctx.db(c), a[1]);
        r.integer(e == null ? 0 : new SetView(e).count());
    }

    private void smembers(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = set(ctx.db(c), a[1]);
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
        for (int i = 0; i < n; i++) {
            r.bulk(v.bytes(), v.start(i), v.length(i));
        }
    }

    private void spop(Client c, byte[][] a, Reply r) {
        if (a.length > 3) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (a.length == 2) {
            write(c, a[1], r, "spop", s -> {
                if (s.size() == 0) {
                    return Reply::nullBulk;
                }
                int i = ThreadLocalRandom.current().nextInt(s.size());
                byte[] m = s.member(i);
                boolean[] gone = new boolean[s.size()];
                gone[i] = true;
                s.removeMarked(gone);
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
            int n = s.size();
            if (n == 0 || count == 0) {
                return rr -> rr.set(0);
            }
            int k = (int) Math.min(count, n);
            int[] picks = RandomPicks.distinct(n, k);
            byte[][] popped = new byte[k][];
            boolean[] gone = new boolean[n];
            for (int j = 0; j < k; j++) {
                popped[j] = s.member(picks[j]);
                gone[picks[j]] = true;
            }
            s.removeMarked(gone);
            return rr -> {
                rr.set(popped.length);
                for (byte[] m : popped) {
                    rr.bulk(m);
                }
            };
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
                r.integer(new SetView(src).contains(a[3]) ? 1 : 0);
                return;
            }
            SetValue from = SetValue.of(src);
            if (!from.remove(a[3])) {
                r.integer(0);
                return;
            }
            SetValue to = dst == null ? SetValue.empty() : SetValue.of(dst);
            // The growing write first: if the store refuses it, nothing has moved
            boolean added = to.add(a[3]);
            if (added) {
                save(store, a[2], to, deadline(dst));
            }
            save(store, a[1], from, deadline(src));
            // Redis's order: the source's events, then the destination's
            ctx.events.fire(KeyspaceEvents.SET, "srem", store, a[1]);
            if (from.size() == 0) {
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
