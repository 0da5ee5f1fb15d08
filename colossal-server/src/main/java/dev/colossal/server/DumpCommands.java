package dev.colossal.server;

import dev.colossal.rdb.DumpPayload;
import dev.colossal.rdb.DumpPayload.Form;
import dev.colossal.rdb.RdbFile;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * DUMP and RESTORE, by which tools move keys between servers (redis-shake, RIOT, MIGRATE): the
 * payload is {@link DumpPayload}'s, as Redis 7.0 writes it, and RESTORE takes what any Redis up
 * to 7.2 dumps of a string, a hash, a set, a list, a sorted set or a stream (with its consumer
 * groups); a module's value is refused as a Redis without the module refuses it. RESTORE checks its arguments in Redis's order, so each
 * bad request gets the error Redis gives it; IDLETIME sets what OBJECT IDLETIME answers ({@link AccessClock})
 * and FREQ what OBJECT FREQ answers, under an LFU policy (each is taken without effect under the other
 * kind of policy, as Redis takes them).
 */
final class DumpCommands {

    private final ServerContext ctx;

    DumpCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("dump", 2, List.of("readonly"), 1, 1, 1, this::dump);
        t.add("restore", -4, List.of("write", "denyoom"), 1, 1, 1, this::restore);
        // what a cluster's MIGRATE sends to a node that is importing the slot: here, RESTORE itself
        t.add("restore-asking", -4, List.of("write", "denyoom", "asking"), 1, 1, 1, this::restore);
    }

    private void dump(Client c, byte[][] a, Reply r) {
        byte[] payload = payload(ctx.db(c), a[1]);
        if (payload == null) {
            r.nullBulk();
        } else {
            r.bulk(payload);
        }
    }

    /** @return {@code key}'s DUMP payload in {@code store}, or null if it has none (DUMP, SYNC's snapshot) */
    byte[] payload(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        return e == null ? null : encode(store, key, e, Form.DUMP);
    }

    /**
     * A snapshot's key: writes {@code key} into {@code file} from the entry a scan read with it
     * ({@link KeyValueStore#scanEntries}), a string straight from the entry's bytes, any other value
     * as {@link #rdbValue} gives it. The deadline is the entry's.
     *
     * @param e the key's entry, as {@link KeyValueStore#raw} or {@link KeyValueStore#get} gives it
     * @return false if the key went meanwhile (a value read again under its lock), and nothing was written
     */
    static boolean writeKey(RdbFile file, KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        long at = e.expireAtMillis() == StoredValue.NO_EXPIRY ? -1 : e.expireAtMillis();
        if (e.isString() && !e.chunked()) {
            file.stringKey(key, MemorySegment.ofArray(e.array()).asSlice(e.offset(), e.length()), at);
            return true;
        }
        byte[] value = rdbValue(store, key, e);
        if (value == null) {
            return false;
        }
        file.keyValue(key, value, at);
        return true;
    }

    /**
     * {@code key}'s value as an RDB file holds it after the key: its DUMP payload without the
     * version and checksum ({@link Form#RDB}), for {@link RdbFile#keyValue}. Reads {@code e} where it
     * holds the whole value; a list, a stream and a value kept in buckets or chunks are read again
     * under the key's lock.
     *
     * @param e the key's entry, as {@link KeyValueStore#raw} or {@link KeyValueStore#get} gives it
     * @return the type byte and value, or null if the key went meanwhile
     */
    static byte[] rdbValue(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
        if (e.chunked()) {
            e = store.get(key);   // the chunks gathered into the whole string
            if (e == null) {
                return null;
            }
        }
        return encode(store, key, e, Form.RDB);
    }

    /** @return the payload of {@code form} of {@code key}, whose entry is {@code e} (never a chunked one), or null if it went */
    private static byte[] encode(KeyValueStore store, byte[] key, KeyValueStore.Entry e, Form form) {
        if (e.type() == StoredValue.LIST) {
            Lock l = store.lock(key);
            l.lock();
            try {
                StoredList list = StoredList.read(store, key);
                return list == null ? null : DumpPayload.ofList(list.range(0, list.size()), form);
            } finally {
                l.unlock();
            }
        }
        if (e.type() == StoredValue.STREAM) {
            return StoredStream.locked(store, key, s -> s == null ? null : DumpPayload.ofStream(s.dumped(), s.dumpedNodes(), form));
        }
        if (e.type() == StoredValue.ZSET) {
            return dumpZSet(SortedSetCommands.cursor(store, key, e), form);
        }
        byte[][] bucketed = new byte[1][];
        e = HashCommands.bucketed(store, key, e, h -> bucketed[0] = DumpPayload.ofHash(h.pairs(), form));
        if (e == StoredHash.READ_BUCKETED) {
            return bucketed[0];
        }
        if (e == null) {
            return null;
        }
        if (e.isHash()) {
            List<byte[]> pairs = new ArrayList<>();
            HashCursor h = new HashCursor(e);
            while (h.next()) {
                pairs.add(h.field());
                pairs.add(h.value());
            }
            return HashLayout.encoding(e) == HashLayout.LISTPACK ? DumpPayload.ofHashListpack(pairs, form)
                    : DumpPayload.ofHash(pairs, form);
        }
        if (e.type() == StoredValue.SET) {
            return HashBuckets.isBucketed(e) ? DumpPayload.ofSet(SetCommands.members(store, key, e), form) : dumpSet(new SetView(e), form);
        }
        return DumpPayload.of(MemorySegment.ofArray(e.array()).asSlice(e.offset(), e.length()), form);
    }

    /** A set as Redis 7.0 dumps it: an intset as RDB type 11 (its members ascending already), a hashtable as type 2. */
    private static byte[] dumpSet(SetView v, Form form) {
        int n = v.count();
        if (v.encoding() == SetLayout.INTSET) {
            long[] values = new long[n];
            for (int i = 0; i < n; i++) {
                values[i] = SetOrder.integer(v.bytes(), v.start(i), v.length(i));
            }
            return DumpPayload.ofIntset(values, form);
        }
        List<byte[]> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            members.add(v.member(i));
        }
        return DumpPayload.ofSet(members, form);
    }

    /** A sorted set's payload as Redis 7.0 dumps it: a listpack (type 17) if it holds one, else type 5. */
    private static byte[] dumpZSet(ZSetCursor z, Form form) {
        java.util.List<byte[]> members = new java.util.ArrayList<>(z.count());
        double[] scores = new double[z.count()];
        java.util.List<byte[]> listpack = new java.util.ArrayList<>(2 * z.count());
        while (z.next()) {
            scores[members.size()] = z.score();
            members.add(z.member());
            if (z.encoding() == ZSetLayout.LISTPACK) {
                listpack.add(members.getLast());
                listpack.add(Args.bytes(ZScore.listpackForm(z.score())));
            }
        }
        return z.encoding() == ZSetLayout.LISTPACK ? DumpPayload.ofZSetListpack(listpack, form) : DumpPayload.ofZSet(members, scores, form);
    }

    private void restore(Client c, byte[][] a, Reply r) {
        boolean replace = false;
        boolean absolute = false;
        boolean idle = false;
        long idleSeconds = 0;
        boolean freq = false;
        int frequency = 0;
        for (int j = 4; j < a.length; j++) {
            boolean hasValue = j + 1 < a.length;
            if (Args.is(a[j], "REPLACE")) {
                replace = true;
            } else if (Args.is(a[j], "ABSTTL")) {
                absolute = true;
            } else if (Args.is(a[j], "IDLETIME") && hasValue && !freq) {
                if (!inRange(a[++j], Long.MAX_VALUE, "ERR Invalid IDLETIME value, must be >= 0", r)) {
                    return;
                }
                idle = true;
                idleSeconds = Args.toLong(a[j]).getAsLong();
            } else if (Args.is(a[j], "FREQ") && hasValue && !idle) {
                if (!inRange(a[++j], 255, "ERR Invalid FREQ value, must be >= 0 and <= 255", r)) {
                    return;
                }
                freq = true;
                frequency = (int) Args.toLong(a[j]).getAsLong();
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            if (!replace && store.exists(a[1])) {
                r.error("BUSYKEY Target key name already exists.");
                return;
            }
            OptionalLong ttl = Args.toLong(a[2]);
            if (ttl.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            if (ttl.getAsLong() < 0) {
                r.error("ERR Invalid TTL value, must be >= 0");
                return;
            }
            DumpPayload.Value value;
            try {
                value = DumpPayload.valueOf(a[3]);
            } catch (DumpPayload.RefusedException e) {
                // a module's value too: Redis without the module refuses it in these words
                r.error(e.refusal() == DumpPayload.Refusal.VERSION_OR_CHECKSUM ? "ERR DUMP payload version or checksum are wrong"
                        : "ERR Bad data format");
                return;
            }
            long deadline = deadline(ttl.getAsLong(), absolute);
            if (deadline != StoredValue.NO_EXPIRY && deadline <= ctx.now()) {
                // Redis's too: a key restored already expired is not created, and REPLACE deletes the old one.
                if (replace && store.delete(a[1])) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[1]);
                }
            } else {
                KeyLoads loads = KeyLoads.of(ctx);
                if (value.stream() != null) {
                    loads.stream(store, a[1], value.stream(), deadline);
                } else if (value.list() != null) {
                    loads.list(store, a[1], value.list(), deadline);
                } else if (value.string() != null) {
                    loads.string(store, a[1], value.string(), deadline);
                } else if (value.set() != null) {
                    loads.set(store, a[1], value.set(), deadline);
                } else if (value.zset() != null) {
                    loads.zset(store, a[1], value.zset(), deadline);
                } else {
                    loads.hash(store, a[1], value.hash(), deadline);
                }
                if (value.stream() != null || value.list() != null || value.zset() != null) {
                    ctx.waits.ready(c.db, a[1]); // for the waiters of blocking pops and reads
                }
                ctx.events.fire(KeyspaceEvents.GENERIC, "restore", store, a[1]);
            }
            if (idle) {
                ctx.access.restored(c.db, a[1], idleSeconds, System.nanoTime());
            } else if (freq && ctx.access.countsUses()) {
                ctx.access.restoredFrequency(c.db, a[1], frequency, System.nanoTime());
            }
            r.ok();
        } finally {
            l.unlock();
        }
    }

    private long deadline(long ttl, boolean absolute) {
        if (ttl == 0 || absolute) {
            return ttl;
        }
        long now = ctx.now();
        return ttl > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + ttl;
    }

    /** Reads a number {@code 0..max} as Redis's option parsing does, or answers the error. */
    private static boolean inRange(byte[] arg, long max, String outOfRange, Reply r) {
        OptionalLong v = Args.toLong(arg);
        if (v.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return false;
        }
        if (v.getAsLong() < 0 || v.getAsLong() > max) {
            r.error(outOfRange);
            return false;
        }
        return true;
    }
}
