package dev.colossal.server;

import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * PFADD, PFCOUNT, PFMERGE and PFDEBUG on strings in Redis's HyperLogLog format ({@link HyperLogLog}),
 * with Redis 7.0's replies and errors. Every write, PFCOUNT's cached count included, holds the key's
 * lock and stores the value again with the deadline it had.
 */
final class HyperLogLogCommands {

    private final ServerContext ctx;

    HyperLogLogCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("pfadd", -2, List.of("write", "denyoom", "fast"), 1, 1, 1, this::pfadd);
        t.add("pfcount", -2, List.of("readonly"), 1, -1, 1, this::pfcount);
        t.add("pfmerge", -2, List.of("write", "denyoom"), 1, -1, 1, this::pfmerge);
        t.add("pfdebug", 3, List.of("write", "denyoom", "admin"), 2, 2, 1, this::pfdebug);
        // Redis's self-test checks its C encoders on the spot; ours are checked by the build's tests
        t.add("pfselftest", 1, List.of("admin"), 0, 0, 0, (c, a, r) -> r.ok());
    }

    /** @return the HyperLogLog under {@code key}, null if absent; @throws ReplyException for another type or string */
    private static HyperLogLog read(KeyValueStore.Entry e) {
        return e == null ? null : HyperLogLog.of(e.value());
    }

    private static void store(KeyValueStore store, byte[] key, HyperLogLog h, KeyValueStore.Entry old) {
        store.set(key, h.bytes(), old == null ? StoredValue.NO_EXPIRY : old.expireAtMillis());
    }

    private void pfadd(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = StringCommands.string(store, a[1]);
            HyperLogLog h = e == null ? HyperLogLog.empty() : read(e);
            boolean updated = e == null;
            for (int i = 2; i < a.length; i++) {
                updated |= h.add(a[i]);
            }
            if (updated) {
                h.invalidate();
                store(store, a[1], h, e);
                ctx.events.fire(KeyspaceEvents.STRING, "pfadd", store, a[1]);
            }
            r.integer(updated ? 1 : 0);
        } finally {
            l.unlock();
        }
    }

    private void pfcount(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        if (a.length == 2) {
            Lock l = store.lock(a[1]);
            l.lock();
            try {
                KeyValueStore.Entry e = StringCommands.string(store, a[1]);
                HyperLogLog h = read(e);
                if (h == null) {
                    r.integer(0);
                } else if (h.cacheValid()) {
                    r.integer(h.cached());
                } else {
                    long n = h.count();
                    h.cache(n); // Redis keeps the count in the value: GET and DUMP show it
                    store(store, a[1], h, e);
                    r.integer(n);
                }
            } finally {
                l.unlock();
            }
            return;
        }
        // The union's count, from a copy of the registers: no key changes
        byte[] max = new byte[HyperLogLog.REGISTERS];
        for (int i = 1; i < a.length; i++) {
            HyperLogLog h = read(StringCommands.string(store, a[i]));
            if (h != null) {
                h.maxInto(max);
            }
        }
        r.integer(HyperLogLog.count(max));
    }

    /**
     * PFMERGE dest src...: the destination's registers become the maxima over it and the sources, set
     * one by one as PFADD would, so that its encoding (dense if any input was) and bytes are Redis's.
     */
    private void pfmerge(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        byte[][] keys = java.util.Arrays.copyOfRange(a, 1, a.length);
        Lock[] ls = store.locks(keys);
        StringCommands.lockAll(ls);
        try {
            byte[] max = new byte[HyperLogLog.REGISTERS];
            boolean dense = false;
            // The destination is the first source too: read once, its registers taken before it changes
            KeyValueStore.Entry e = StringCommands.string(store, keys[0]);
            HyperLogLog dest = e == null ? HyperLogLog.empty() : read(e);
            for (int i = 0; i < keys.length; i++) {
                HyperLogLog h = i == 0 ? (e == null ? null : dest) : read(StringCommands.string(store, keys[i]));
                if (h != null) {
                    dense |= h.isDense();
                    h.maxInto(max);
                }
            }
            if (dense) {
                dest.toDense();
            }
            for (int i = 0; i < max.length; i++) {
                if (max[i] != 0) {
                    dest.set(i, max[i]);
                }
            }
            dest.invalidate();
            store(store, a[1], dest, e);
            ctx.events.fire(KeyspaceEvents.STRING, "pfadd", store, a[1]);
            r.ok();
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /** PFDEBUG GETREG | DECODE | ENCODING | TODENSE key: Redis's inspection subcommands. */
    private void pfdebug(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[2]);
        l.lock();
        try {
            KeyValueStore.Entry e = store.get(a[2]);
            if (e == null) {
                r.error("ERR The specified key does not exist");
                return;
            }
            if (!e.isString()) {
                r.error(Errors.WRONGTYPE);
                return;
            }
            HyperLogLog h = HyperLogLog.of(e.value());
            if (Args.is(a[1], "GETREG")) {
                if (!h.isDense()) {
                    h.toDense();
                    store(store, a[2], h, e);
                }
                r.array(HyperLogLog.REGISTERS);
                for (int i = 0; i < HyperLogLog.REGISTERS; i++) {
                    r.integer(h.get(i));
                }
            } else if (Args.is(a[1], "DECODE")) {
                if (h.isDense()) {
                    r.error("ERR HLL encoding is not sparse");
                } else {
                    r.bulk(h.decode());
                }
            } else if (Args.is(a[1], "ENCODING")) {
                r.simple(h.isDense() ? "dense" : "sparse");
            } else if (Args.is(a[1], "TODENSE")) {
                boolean was = h.isDense();
                if (!was) {
                    h.toDense();
                    store(store, a[2], h, e);
                }
                r.integer(was ? 0 : 1);
            } else {
                r.error("ERR Unknown PFDEBUG subcommand '" + Errors.text(a[1]) + "'");
            }
        } finally {
            l.unlock();
        }
    }
}
