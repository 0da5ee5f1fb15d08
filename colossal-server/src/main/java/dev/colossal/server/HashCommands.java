package dev.colossal.server;

import java.math.BigDecimal;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * The hash commands, with Redis 7.0's replies and errors. A hash is one value ({@link HashLayout});
 * a write holds the key's lock, reads the value, changes it in memory ({@link HashValue}) and
 * stores it whole again with the deadline it had. HRANDFIELD and HSCAN are {@link HashSampling}'s.
 */
final class HashCommands {

    private static final String NOT_INTEGER_VALUE = "ERR hash value is not an integer";
    private static final String NOT_FLOAT_VALUE = "ERR hash value is not a float";
    private static final String NAN_OR_INFINITY = "ERR value is NaN or Infinity";

    private final ServerContext ctx;

    HashCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> wf = List.of("write", "denyoom", "fast");
        List<String> rf = List.of("readonly", "fast");
        t.add("hset", -4, wf, 1, 1, 1, (c, a, r) -> hset(c, a, r, "hset"));
        t.add("hmset", -4, wf, 1, 1, 1, (c, a, r) -> hset(c, a, r, "hmset"));
        t.add("hsetnx", 4, wf, 1, 1, 1, this::hsetnx);
        t.add("hget", 3, rf, 1, 1, 1, this::hget);
        t.add("hmget", -3, rf, 1, 1, 1, this::hmget);
        t.add("hdel", -3, List.of("write", "fast"), 1, 1, 1, this::hdel);
        t.add("hexists", 3, rf, 1, 1, 1, this::hexists);
        t.add("hlen", 2, rf, 1, 1, 1, this::hlen);
        t.add("hstrlen", 3, rf, 1, 1, 1, this::hstrlen);
        t.add("hkeys", 2, List.of("readonly"), 1, 1, 1, (c, a, r) -> all(c, a, r, true, false));
        t.add("hvals", 2, List.of("readonly"), 1, 1, 1, (c, a, r) -> all(c, a, r, false, true));
        t.add("hgetall", 2, List.of("readonly"), 1, 1, 1, (c, a, r) -> all(c, a, r, true, true));
        t.add("hincrby", 4, wf, 1, 1, 1, this::hincrby);
        t.add("hincrbyfloat", 4, wf, 1, 1, 1, this::hincrbyfloat);
        HashSampling sampling = new HashSampling(ctx);
        t.add("hrandfield", -2, List.of("readonly"), 1, 1, 1, sampling::hrandfield);
        t.add("hscan", -3, List.of("readonly"), 1, 1, 1, sampling::hscan);
    }

    /**
     * The live hash under {@code key}, for the hash commands.
     *
     * @return the entry, or null if absent or expired
     * @throws ReplyException WRONGTYPE if the key holds a string
     */
    static KeyValueStore.Entry hash(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        if (e != null && !e.isHash()) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return e;
    }

    /** Stores {@code h} under {@code key} with the deadline {@code old} had; an empty hash deletes the key, as in Redis. */
    private static void save(KeyValueStore store, byte[] key, HashValue h, KeyValueStore.Entry old) {
        if (h.size() == 0) {
            store.delete(key);
            return;
        }
        byte[] payload = h.encode();
        store.set(key, payload, 0, payload.length, old == null ? StoredValue.NO_EXPIRY : old.expireAtMillis(),
                StoredValue.HASH);
    }

    private void hset(Client c, byte[][] a, Reply r, String name) {
        if (a.length % 2 != 0) {
            r.error(Errors.arity(name));
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = hash(store, a[1]);
            HashValue h = e == null ? HashValue.empty() : HashValue.of(e);
            int added = 0;
            for (int i = 2; i < a.length; i += 2) {
                added += h.put(a[i], a[i + 1]) ? 1 : 0;
            }
            save(store, a[1], h, e);
            if (name.equals("hset")) {
                r.integer(added);
            } else {
                r.ok();
            }
        } finally {
            l.unlock();
        }
    }

    private void hsetnx(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = hash(store, a[1]);
            HashValue h = e == null ? HashValue.empty() : HashValue.of(e);
            if (h.indexOf(a[2]) >= 0) {
                r.integer(0);
                return;
            }
            h.put(a[2], a[3]);
            save(store, a[1], h, e);
            r.integer(1);
        } finally {
            l.unlock();
        }
    }

    private void hget(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = hash(ctx.db(c), a[1]);
        HashCursor h = e == null ? null : new HashCursor(e);
        if (h != null && h.find(a[2])) {
            r.bulk(h.bytes(), h.valueAt(), h.valueLength());
        } else {
            r.nullBulk();
        }
    }

    private void hmget(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = hash(ctx.db(c), a[1]);
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            HashCursor h = e == null ? null : new HashCursor(e);
            if (h != null && h.find(a[i])) {
                r.bulk(h.bytes(), h.valueAt(), h.valueLength());
            } else {
                r.nullBulk();
            }
        }
    }

    private void hdel(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = hash(store, a[1]);
            if (e == null) {
                r.integer(0);
                return;
            }
            HashValue h = HashValue.of(e);
            int removed = 0;
            for (int i = 2; i < a.length; i++) {
                removed += h.remove(a[i]) ? 1 : 0;
            }
            if (removed > 0) {
                save(store, a[1], h, e);
            }
            r.integer(removed);
        } finally {
            l.unlock();
        }
    }

    private void hexists(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = hash(ctx.db(c), a[1]);
        r.integer(e != null && new HashCursor(e).find(a[2]) ? 1 : 0);
    }

    private void hlen(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = hash(ctx.db(c), a[1]);
        r.integer(e == null ? 0 : new HashCursor(e).count());
    }

    private void hstrlen(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = hash(ctx.db(c), a[1]);
        HashCursor h = e == null ? null : new HashCursor(e);
        r.integer(h != null && h.find(a[2]) ? h.valueLength() : 0);
    }

    /** HKEYS, HVALS and HGETALL (a map in RESP3), in the hash's order. */
    private void all(Client c, byte[][] a, Reply r, boolean fields, boolean values) {
        KeyValueStore.Entry e = hash(ctx.db(c), a[1]);
        HashCursor h = e == null ? null : new HashCursor(e);
        int n = h == null ? 0 : h.count();
        if (fields && values) {
            r.map(n);
        } else {
            r.array(n);
        }
        while (h != null && h.next()) {
            if (fields) {
                r.bulk(h.bytes(), h.fieldAt(), h.fieldLength());
            }
            if (values) {
                r.bulk(h.bytes(), h.valueAt(), h.valueLength());
            }
        }
    }

    private void hincrby(Client c, byte[][] a, Reply r) {
        OptionalLong parsed = Args.toLong(a[3]);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long by = parsed.getAsLong();
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = hash(store, a[1]);
            HashValue h = e == null ? HashValue.empty() : HashValue.of(e);
            byte[] old = h.get(a[2]);
            long v = 0;
            if (old != null) {
                OptionalLong stored = Args.toLong(old);
                if (stored.isEmpty()) {
                    r.error(NOT_INTEGER_VALUE);
                    return;
                }
                v = stored.getAsLong();
            }
            long sum = v + by;
            if (((v ^ sum) & (by ^ sum)) < 0) {
                r.error(Errors.OVERFLOW);
                return;
            }
            h.put(a[2], Args.bytes(Long.toString(sum)));
            save(store, a[1], h, e);
            r.integer(sum);
        } finally {
            l.unlock();
        }
    }

    private void hincrbyfloat(Client c, byte[][] a, Reply r) {
        BigDecimal by = LongDouble.parse(a[3]);
        if (by == null) {
            r.error(Errors.NOT_FLOAT);
            return;
        }
        if (by == LongDouble.INFINITE) {
            r.error(NAN_OR_INFINITY);
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = hash(store, a[1]);
            HashValue h = e == null ? HashValue.empty() : HashValue.of(e);
            byte[] old = h.get(a[2]);
            BigDecimal v = BigDecimal.ZERO;
            if (old != null) {
                v = LongDouble.parse(old);
                if (v == null) {
                    r.error(NOT_FLOAT_VALUE);
                    return;
                }
            }
            BigDecimal sum = LongDouble.add(v, by);
            if (sum == LongDouble.INFINITE) {
                r.error(Errors.NAN_OR_INF);
                return;
            }
            byte[] out = Args.bytes(LongDouble.format(sum));
            h.put(a[2], out);
            save(store, a[1], h, e);
            r.bulk(out);
        } finally {
            l.unlock();
        }
    }
}
