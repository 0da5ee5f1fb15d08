package dev.colossal.server;

import java.math.BigDecimal;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.concurrent.locks.Lock;

/**
 * The hash commands, with Redis 7.0's replies and errors. A hash of up to
 * {@code hash-max-listpack-entries} fields is one value ({@link HashLayout}): a write holds the
 * key's lock, reads the value, changes it in its bytes ({@link HashBytes}; a new hash, or many
 * changes, decoded: {@link HashValue}) and stores it whole again with the deadline it had. A larger one is bucketed ({@link StoredHash}): a write reads and
 * rewrites the buckets of the fields it names and the header. HRANDFIELD and HSCAN are
 * {@link HashSampling}'s.
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

    /**
     * Runs {@code action} on the bucketed hash under {@code key}, under the key's lock, if the key
     * holds one: what reads of more than one field do, since they read more than one bucket.
     *
     * @return {@link StoredHash#READ_BUCKETED} if {@code action} ran, else the one-value hash to
     *     read, from the one read that found it so ({@link StoredHash#locked}), or null if absent
     */
    static KeyValueStore.Entry bucketed(KeyValueStore store, byte[] key, KeyValueStore.Entry e, Consumer<StoredHash> action) {
        return e != null && e.isHash() ? StoredHash.locked(store, key, e, action) : e;
    }

    /**
     * What a write does to a hash: changes it (or not) and says what to answer once it is stored,
     * so that a write the store refuses answers only the store's error.
     */
    @FunctionalInterface
    private interface Change {
        Consumer<Reply> apply(HashWrites h);
    }

    /**
     * A hash write: under the key's lock, reads the hash (an empty one if absent), applies
     * {@code change}, stores the result with the deadline the key had if it changed, publishes
     * {@code event} ({@link KeyspaceEvents}; and {@code del} if the hash is gone), then answers.
     *
     * @param edits the fields {@code change} sets or removes at most: a one-value hash is edited in
     *              its bytes for a few ({@link HashBytes#MAX_EDITS}), decoded for more
     */
    private void write(Client c, byte[] key, Reply r, String event, int edits, Change change) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry e = hash(store, key);
            long maxEntries = ctx.hashMaxListpackEntries;
            HashWrites h;
            if (e != null && HashBuckets.isBucketed(e)) {
                h = StoredHash.read(store, key, e);
            } else {
                h = e == null ? HashValue.empty() : edits <= HashBytes.MAX_EDITS ? new HashBytes(e) : HashValue.of(e);
            }
            h.listpackValueLimit(ctx.encodings.hashMaxListpackValue);
            Consumer<Reply> reply = change.apply(h);
            if (h.changed()) {
                if (h instanceof StoredHash big) {
                    big.commit(HashBuckets.fieldsPerBucket(maxEntries));
                } else if (h instanceof HashBytes one) {
                    one.save(store, key, e.expireAtMillis(), maxEntries);
                } else {
                    StoredHash.save(store, key, (HashValue) h, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis(),
                            maxEntries);
                }
                ctx.events.fire(KeyspaceEvents.HASH, event, store, key);
                if (h.count() == 0) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, key);
                }
            }
            reply.accept(r);
        } finally {
            l.unlock();
        }
    }

    private void hset(Client c, byte[][] a, Reply r, String name) {
        if (a.length % 2 != 0) {
            r.error(Errors.arity(name));
            return;
        }
        write(c, a[1], r, "hset", (a.length - 2) / 2, h -> {
            int added = 0;
            for (int i = 2; i < a.length; i += 2) {
                added += h.put(a[i], a[i + 1]) ? 1 : 0;
            }
            long n = added;
            return name.equals("hset") ? rr -> rr.integer(n) : Reply::ok;
        });
    }

    private void hsetnx(Client c, byte[][] a, Reply r) {
        write(c, a[1], r, "hset", 1, h -> {
            if (h.get(a[2]) != null) {
                return rr -> rr.integer(0);
            }
            h.put(a[2], a[3]);
            return rr -> rr.integer(1);
        });
    }

    private void hget(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = hash(store, a[1]);
        value(store, a[1], e, a[2], r);
    }

    private void hmget(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = hash(store, a[1]);
        if (a.length > 3) {
            // Fields in several buckets: read without the lock, a write of them all could be seen half done
            e = bucketed(store, a[1], e, h -> {
                r.array(a.length - 2);
                for (int i = 2; i < a.length; i++) {
                    byte[] v = h.get(a[i]);
                    if (v != null) {
                        r.bulk(v);
                    } else {
                        r.nullBulk();
                    }
                }
            });
            if (e == StoredHash.READ_BUCKETED) {
                return;
            }
        }
        r.array(a.length - 2);
        for (int i = 2; i < a.length; i++) {
            value(store, a[1], e, a[i], r);
        }
    }

    /** Answers the value of {@code field} in the hash {@code e} holds under {@code key} (absent: null). */
    private static void value(KeyValueStore store, byte[] key, KeyValueStore.Entry e, byte[] field, Reply r) {
        if (e != null && HashBuckets.isBucketed(e)) {
            byte[] v = StoredHash.find(store, key, e, field);
            if (v != null) {
                r.bulk(v);
            } else {
                r.nullBulk();
            }
            return;
        }
        HashCursor h = e == null ? null : new HashCursor(e);
        if (h != null && h.find(field)) {
            r.bulk(h.bytes(), h.valueAt(), h.valueLength());
        } else {
            r.nullBulk();
        }
    }

    /** @return the value of {@code field} in the hash {@code e} holds under {@code key}, null if absent */
    static byte[] find(KeyValueStore store, byte[] key, KeyValueStore.Entry e, byte[] field) {
        if (HashBuckets.isBucketed(e)) {
            return StoredHash.find(store, key, e, field);
        }
        HashCursor h = new HashCursor(e);
        return h.find(field) ? h.value() : null;
    }

    private void hdel(Client c, byte[][] a, Reply r) {
        write(c, a[1], r, "hdel", a.length - 2, h -> {
            int removed = 0;
            for (int i = 2; i < a.length; i++) {
                removed += h.remove(a[i]) ? 1 : 0;
            }
            long n = removed;
            return rr -> rr.integer(n);
        });
    }

    private void hexists(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = hash(store, a[1]);
        r.integer(e != null && find(store, a[1], e, a[2]) != null ? 1 : 0);
    }

    private void hlen(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = hash(store, a[1]);
        e = bucketed(store, a[1], e, h -> r.integer(h.count()));
        if (e != StoredHash.READ_BUCKETED) {
            r.integer(e == null ? 0 : new HashCursor(e).count());
        }
    }

    private void hstrlen(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = hash(store, a[1]);
        byte[] v = e == null ? null : find(store, a[1], e, a[2]);
        r.integer(v == null ? 0 : v.length);
    }

    /** HKEYS, HVALS and HGETALL (a map in RESP3), in the hash's order: insertion order, or bucket by bucket. */
    private void all(Client c, byte[][] a, Reply r, boolean fields, boolean values) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry first = hash(store, a[1]);
        KeyValueStore.Entry e = bucketed(store, a[1], first, h -> {
            // Counted as read, not from the header: a reply's length must match what follows it
            List<byte[]> pairs = h.pairs();
            int n = pairs.size() / 2;
            if (fields && values) {
                r.map(n);
            } else {
                r.array(n);
            }
            for (int i = 0; i < pairs.size(); i += 2) {
                if (fields) {
                    r.bulk(pairs.get(i));
                }
                if (values) {
                    r.bulk(pairs.get(i + 1));
                }
            }
        });
        if (e == StoredHash.READ_BUCKETED) {
            return;
        }
        HashCursor h = e == null ? null : new HashCursor(e);
        int n = h == null ? 0 : h.count();
        if (fields && values) {
            r.map(n);
        } else {
            r.array(n);
        }
        try (Reply.Batch b = r.batch()) {
            while (h != null && h.next()) {
                if (fields) {
                    b.accept(h.bytes(), h.fieldAt(), h.fieldLength());
                }
                if (values) {
                    b.accept(h.bytes(), h.valueAt(), h.valueLength());
                }
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
        write(c, a[1], r, "hincrby", 1, h -> {
            byte[] old = h.get(a[2]);
            OptionalLong v = old == null ? OptionalLong.of(0) : Args.toLong(old);
            if (v.isEmpty()) {
                return rr -> rr.error(NOT_INTEGER_VALUE);
            }
            long sum = v.getAsLong() + by;
            if (((v.getAsLong() ^ sum) & (by ^ sum)) < 0) {
                return rr -> rr.error(Errors.OVERFLOW);
            }
            h.put(a[2], Args.bytes(Long.toString(sum)));
            return rr -> rr.integer(sum);
        });
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
        write(c, a[1], r, "hincrbyfloat", 1, h -> {
            byte[] old = h.get(a[2]);
            BigDecimal v = old == null ? BigDecimal.ZERO : LongDouble.parse(old);
            if (v == null) {
                return rr -> rr.error(NOT_FLOAT_VALUE);
            }
            BigDecimal sum = LongDouble.add(v, by);
            if (sum == LongDouble.INFINITE) {
                return rr -> rr.error(Errors.NAN_OR_INF);
            }
            byte[] out = Args.bytes(LongDouble.format(sum));
            h.put(a[2], out);
            return rr -> rr.bulk(out);
        });
    }
}
