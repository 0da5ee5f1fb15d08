package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * Keyspace commands: DEL, EXISTS, TOUCH, the EXPIRE family, TTL, TYPE, KEYS, SCAN, RENAME, RANDOMKEY,
 * MEMORY USAGE, OBJECT ENCODING/REFCOUNT, on the client's database. The commands across databases are {@link DatabaseCommands}.
 */
final class KeyCommands {

    private final ServerContext ctx;
    private final StringCommands strings;
    private MemoryCommands memoryReports;

    KeyCommands(ServerContext ctx, StringCommands strings) {
        this.ctx = ctx;
        this.strings = strings;
    }

    void register(CommandTable t) {
        memoryReports = new MemoryCommands(ctx, t);
        List<String> wf = List.of("write", "fast");
        List<String> rf = List.of("readonly", "fast");
        t.add("del", -2, List.of("write"), 1, -1, 1, this::del);
        t.add("unlink", -2, wf, 1, -1, 1, this::del);
        t.add("exists", -2, rf, 1, -1, 1, this::exists);
        // No access times are kept (no LRU clock to bump), so TOUCH is EXISTS
        t.add("touch", -2, rf, 1, -1, 1, this::exists);
        t.add("expire", -3, wf, 1, 1, 1, (c, a, r) -> expire(ctx.db(c), a, r, true, true, "expire"));
        t.add("pexpire", -3, wf, 1, 1, 1, (c, a, r) -> expire(ctx.db(c), a, r, false, true, "pexpire"));
        t.add("expireat", -3, wf, 1, 1, 1, (c, a, r) -> expire(ctx.db(c), a, r, true, false, "expireat"));
        t.add("pexpireat", -3, wf, 1, 1, 1, (c, a, r) -> expire(ctx.db(c), a, r, false, false, "pexpireat"));
        t.add("ttl", 2, rf, 1, 1, 1, (c, a, r) -> ttl(ctx.db(c), a, r, true, false));
        t.add("pttl", 2, rf, 1, 1, 1, (c, a, r) -> ttl(ctx.db(c), a, r, false, false));
        t.add("expiretime", 2, rf, 1, 1, 1, (c, a, r) -> ttl(ctx.db(c), a, r, true, true));
        t.add("pexpiretime", 2, rf, 1, 1, 1, (c, a, r) -> ttl(ctx.db(c), a, r, false, true));
        t.add("persist", 2, wf, 1, 1, 1, this::persist);
        t.add("type", 2, rf, 1, 1, 1, this::type);
        t.add("keys", 2, List.of("readonly"), 0, 0, 0, this::keys);
        t.add("scan", -2, List.of("readonly"), 0, 0, 0, this::scan);
        t.add("rename", 3, List.of("write"), 1, 2, 1, (c, a, r) -> rename(c, a, r, false));
        t.add("renamenx", 3, wf, 1, 2, 1, (c, a, r) -> rename(c, a, r, true));
        t.add("randomkey", 1, List.of("readonly"), 0, 0, 0, this::randomkey);
        t.add("memory", -2, List.of(), 0, 0, 0, this::memory);
        t.add("object", -2, List.of(), 0, 0, 0, this::object);
    }

    private void del(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            Lock l = store.lock(a[i]);
            l.lock();
            try {
                if (store.delete(a[i])) {
                    n++;
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[i]);
                    ctx.waits.ready(c.db, a[i]);   // XREADGROUP's waiters end with an error once their stream goes
                }
            } finally {
                l.unlock();
            }
        }
        r.integer(n);
    }

    private void exists(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            n += store.exists(a[i]) ? 1 : 0;
        }
        r.integer(n);
    }

    private void expire(KeyValueStore store, byte[][] a, Reply r, boolean seconds, boolean relative, String cmd) {
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "NX")) {
                nx = true;
            } else if (Args.is(a[j], "XX")) {
                xx = true;
            } else if (Args.is(a[j], "GT")) {
                gt = true;
            } else if (Args.is(a[j], "LT")) {
                lt = true;
            } else {
                r.error("ERR Unsupported option " + Errors.text(a[j]));
                return;
            }
        }
        if (nx && (xx || gt || lt)) {
            r.error("ERR NX and XX, GT or LT options at the same time are not compatible");
            return;
        }
        if (gt && lt) {
            r.error("ERR GT and LT options at the same time are not compatible");
            return;
        }
        long at = strings.deadline(a[2], seconds, relative, false, cmd, r);
        if (at == StringCommands.FAILED) {
            return;
        }
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = store.raw(a[1]);
            if (e == null) {
                r.integer(0);
                return;
            }
            long cur = e.expireAtMillis();
            boolean persistent = cur == StoredValue.NO_EXPIRY;
            if ((nx && !persistent) || (xx && persistent) || (gt && (persistent || at <= cur))
                    || (lt && !persistent && at >= cur)) {
                r.integer(0);
                return;
            }
            if (at <= ctx.now()) {
                store.delete(a[1]);
                ctx.stats.expiredKeys.increment();
                ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[1]);
            } else {
                StringCommands.setExpiry(store, a[1], e, at);
                ctx.events.fire(KeyspaceEvents.GENERIC, "expire", store, a[1]);
            }
            r.integer(1);
        } finally {
            l.unlock();
        }
    }

    private void ttl(KeyValueStore store, byte[][] a, Reply r, boolean seconds, boolean absolute) {
        KeyValueStore.Entry e = store.raw(a[1]);
        if (e == null) {
            r.integer(-2);
        } else if (e.expireAtMillis() == StoredValue.NO_EXPIRY) {
            r.integer(-1);
        } else if (absolute) {
            r.integer(seconds ? e.expireAtMillis() / 1000 : e.expireAtMillis());
        } else {
            long left = Math.max(0, e.expireAtMillis() - ctx.now());
            r.integer(seconds ? (left + 500) / 1000 : left);
        }
    }

    private void persist(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = store.raw(a[1]);
            if (e == null || e.expireAtMillis() == StoredValue.NO_EXPIRY) {
                r.integer(0);
            } else {
                StringCommands.setExpiry(store, a[1], e, StoredValue.NO_EXPIRY);
                ctx.events.fire(KeyspaceEvents.GENERIC, "persist", store, a[1]);
                r.integer(1);
            }
        } finally {
            l.unlock();
        }
    }

    private void type(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = store.raw(a[1]);
        r.simple(e == null ? "none" : StoredValue.typeName(e.type()));
    }

    private void keys(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        byte[] pattern = a[1];
        boolean all = pattern.length == 1 && pattern[0] == '*';
        List<byte[]> out = new ArrayList<>();
        store.scanKeys(k -> all || Glob.matches(pattern, k), (k, at) -> out.add(k));
        r.array(out.size());
        try (Reply.Batch b = r.batch()) {
            out.forEach(b::bulk);
        }
    }

    /**
     * SCAN: each call visits about COUNT keys from the cursor on, in the map's hash order (see
     * {@code BytesMap.scan}), so a whole iteration costs one pass over the map however small the
     * steps, and a key present for the whole iteration is returned exactly once.
     */
    private void scan(Client c, byte[][] a, Reply r) {
        OptionalLong parsedCursor = Args.toCursor(a[1]);
        if (parsedCursor.isEmpty()) {
            r.error(Errors.INVALID_CURSOR);
            return;
        }
        long cursor = parsedCursor.getAsLong();
        ScanOptions o = ScanOptions.read(a, 2, true, r);
        if (o == null) {
            return;
        }
        // The type wanted: its type field, or NO_TYPE for a name of none
        int type = o.type() == null ? ANY_TYPE : StoredValue.typeNamed(o.type());
        long count = o.count();
        byte[] pattern = o.pattern();
        KeyValueStore store = ctx.db(c);
        ScanPage page = type == NO_TYPE ? new ScanPage(0, List.of()) : page(store, cursor, count, pattern);
        List<byte[]> keys = page.keys();
        if (type != ANY_TYPE && !keys.isEmpty()) {
            // The scan sees keys, not types: each key found is looked up once more, only when TYPE asks
            keys = new ArrayList<>(keys.size());
            for (byte[] k : page.keys()) {
                KeyValueStore.Entry e = store.raw(k);
                if (e != null && e.type() == type) {
                    keys.add(k);
                }
            }
        }
        r.array(2);
        r.bulk(Long.toUnsignedString(page.next()));
        r.array(keys.size());
        try (Reply.Batch b = r.batch()) {
            keys.forEach(b::bulk);
        }
    }

    /** SCAN without TYPE. */
    private static final int ANY_TYPE = -2;
    /** SCAN TYPE of a type no key here has (list, set, ...): Redis 7.0 answers nothing for an unknown name too. */
    private static final int NO_TYPE = -1;

    /**
     * One SCAN step.
     *
     * @param next the cursor of the next step, 0 at the end
     * @param keys the keys of this step that matched
     */
    record ScanPage(long next, List<byte[]> keys) {}

    /** One SCAN step of {@code store}: about {@code count} keys from {@code cursor} on, those matching {@code pattern} returned. */
    static ScanPage page(KeyValueStore store, long cursor, long count, byte[] pattern) {
        List<byte[]> keys = new ArrayList<>();
        long next = store.scanKeys(cursor, count, k -> pattern == null || Glob.matches(pattern, k), (k, at) -> keys.add(k));
        return new ScanPage(next, keys);
    }

    private void rename(Client c, byte[][] a, Reply r, boolean nx) {
        KeyValueStore store = ctx.db(c);
        Lock[] ls = store.locks(a[1], a[2]);
        StringCommands.lockAll(ls);
        try {
            KeyValueStore.Entry e = store.raw(a[1]); // a chunked string's header: RENAME moves only that
            if (e == null) {
                r.error(Errors.NO_SUCH_KEY);
                return;
            }
            if (java.util.Arrays.equals(a[1], a[2])) {
                if (nx) {
                    r.integer(0);
                } else {
                    r.ok();
                }
                return;
            }
            if (nx && store.exists(a[2])) {
                r.integer(0);
                return;
            }
            if (e.type() == StoredValue.LIST) {
                StoredList.read(store, a[1]).renameTo(a[2]);
                ctx.waits.ready(c.db, a[2]);
            } else if (e.type() == StoredValue.STREAM) {
                StoredStream.read(store, a[1]).renameTo(a[2]);
                ctx.waits.ready(c.db, a[2]);
            } else if (HashBuckets.isBucketed(e)) {
                StoredHash.read(store, a[1], e).renameTo(a[2]);
            } else if (ZSetTreeLayout.isTree(e)) {
                StoredZSet.read(store, a[1], e, ctx.zsetMaxListpackEntries).renameTo(a[2], e);
            } else if (e.chunked()) {
                BigString.of(store, a[1], e).renameTo(a[2]);
            } else {
                store.set(a[2], e, e.expireAtMillis());
                store.delete(a[1]);
            }
            ctx.events.fire(KeyspaceEvents.GENERIC, "rename_from", store, a[1]);
            ctx.events.fire(KeyspaceEvents.GENERIC, "rename_to", store, a[2]);
            if (nx) {
                r.integer(1);
            } else {
                r.ok();
            }
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    private void randomkey(Client c, byte[][] a, Reply r) {
        byte[] k = ctx.db(c).randomKey();
        if (k == null) {
            r.nullBulk();
        } else {
            r.bulk(k);
        }
    }

    /** Per-entry bytes of the map besides key and stored value: its entry header, about. */
    private static final long ENTRY_OVERHEAD = 16;
    /** The entry's slot in its segment's table. */
    private static final long SLOT = 8;

    /**
     * MEMORY USAGE key [SAMPLES n]: an estimate, not a count, of what the key takes in the map
     * (its key, its stored value with the expiry header, the entry's own header, rounded to the
     * map's 8-byte blocks, and its table slot), plus the element entries of a list, stream or
     * bucketed hash ({@link ElementUsage}, SAMPLES of them read), so that tools sizing keys
     * ({@code redis-cli --memkeys}) see the same order of size as from Redis.
     */
    private void memory(Client c, byte[][] a, Reply r) {
        if (memoryReports.run(a, r)) {
            return;
        }
        if (!Args.is(a[1], "USAGE")) {
            r.error(Errors.unknownSubcommand(a[1], "MEMORY"));
            return;
        }
        if (a.length < 3) {
            r.error(Errors.arity("memory|usage"));
            return;
        }
        long samples = ElementUsage.DEFAULT_SAMPLES;
        for (int j = 3; j < a.length; j++) {
            if (Args.is(a[j], "SAMPLES") && j + 1 < a.length) {
                OptionalLong n = Args.toLong(a[++j]);
                if (n.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                if (n.getAsLong() < 0) {
                    r.error(Errors.SYNTAX);
                    return;
                }
                samples = n.getAsLong();
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        KeyValueStore.Entry e = ctx.db(c).raw(a[2]);
        if (e == null) {
            r.nullBulk();
            return;
        }
        long[] nodes = {-1};
        // A big sorted set's tree nodes are counted whole (O(n / node size), as Redis's is O(samples));
        // the other element-map collections' entries are sampled
        SortedSetCommands.big(ctx.db(c), a[2], e, z -> nodes[0] = z.storedBytes());
        long elements = nodes[0] >= 0 ? nodes[0] : ElementUsage.estimate(ctx.db(c), e, samples);
        r.integer(entryBytes(a[2].length, e.offset() + e.length()) + elements);
    }

    /** @return about what a map entry of a {@code key}-byte key and a {@code stored}-byte value takes */
    static long entryBytes(long key, long stored) {
        return ((key + stored + ENTRY_OVERHEAD + 7) & ~7L) + SLOT;
    }

    /**
     * OBJECT FREQ without an LFU policy: Redis counts uses under one only, so an existing key gets
     * its refusal. {@code redis-cli --hotkeys} stops on this error, as it does against redis-server.
     */
    private static final String NO_LFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked."
            + " Please note that when switching between policies at runtime LRU and LFU data will take some time to"
            + " adjust.";
    /** OBJECT IDLETIME under an LFU policy: Redis keeps no last use then. */
    private static final String NO_LRU = "ERR An LFU maxmemory policy is selected, idle time not tracked."
            + " Please note that when switching between policies at runtime LRU and LFU data will take some time to"
            + " adjust.";

    /**
     * OBJECT FREQ or IDLETIME of key {@code a[2]}: nil if it is missing, else what the {@link
     * AccessClock}'s approximation says, the use counter under an LFU policy and the seconds since
     * the last use under any other; the other one is refused, as Redis refuses it.
     */
    private void usage(Client c, byte[][] a, Reply r, boolean freq) {
        if (a.length != 3) {
            r.error(Errors.arity(freq ? "object|freq" : "object|idletime"));
        } else if (ctx.db(c).raw(a[2]) == null) {
            r.nullBulk();
        } else if (freq != ctx.access.countsUses()) {
            r.error(freq ? NO_LFU : NO_LRU);
        } else if (freq) {
            r.integer(ctx.access.frequency(c.db, a[2], System.nanoTime()));
        } else {
            r.integer(ctx.access.idleSeconds(c.db, a[2], System.nanoTime()));
        }
    }

    /** Redis's OBJ_SHARED_INTEGERS: 0 to 9999 are one shared object each, unless an LRU bound needs them apart. */
    private static final long SHARED_INTEGERS = 10_000;

    /**
     * OBJECT ENCODING and REFCOUNT answer what redis-server would hold for the value: a string's encoding follows from the bytes as Redis's {@code tryObjectEncoding}
     * decides it on SET (a value APPEND or SETRANGE made is "raw" there whatever its length; here
     * it is judged by its bytes like any other), a hash's as its {@link HashLayout} encoding byte keeps it,
     * a set's as its {@link SetLayout} one does, a sorted set's as its {@link ZSetLayout}'s.
     */
    private void object(Client c, byte[][] a, Reply r) {
        if (Args.is(a[1], "HELP")) {
            if (a.length != 2) {
                r.error(Errors.arity("object|help"));
                return;
            }
            List<String> lines = List.of("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "ENCODING <key>", "    Return the kind of internal representation used in order to store the value",
                    "    associated with a <key>.", "FREQ <key>",
                    "    Return the access frequency index of the <key>. The returned integer is",
                    "    proportional to the logarithm of the recent access frequency of the key.", "IDLETIME <key>",
                    "    Return the idle time of the <key>, that is the approximated number of",
                    "    seconds elapsed since the last access to the key.", "REFCOUNT <key>",
                    "    Return the number of references of the value associated with the specified",
                    "    <key>.", "HELP", "    Prints this help.");
            r.array(lines.size());
            lines.forEach(r::simple);
            return;
        }
        if (Args.is(a[1], "FREQ") || Args.is(a[1], "IDLETIME")) {
            usage(c, a, r, Args.is(a[1], "FREQ"));
            return;
        }
        boolean encoding = Args.is(a[1], "ENCODING");
        if (!encoding && !Args.is(a[1], "REFCOUNT")) {
            r.error(Errors.unknownSubcommand(a[1], "OBJECT"));
            return;
        }
        if (a.length != 3) {
            r.error(Errors.arity(encoding ? "object|encoding" : "object|refcount"));
            return;
        }
        KeyValueStore.Entry e = ctx.db(c).raw(a[2]);
        if (e == null) {
            r.nullBulk();
        } else if (encoding) {
            r.bulk(encoding(e));
        } else {
            r.integer(refcount(ctx, e));
        }
    }

    /** @return OBJECT ENCODING's answer for the stored {@code e} (DEBUG OBJECT's {@code encoding:}) */
    static String encoding(KeyValueStore.Entry e) {
        if (e.type() == StoredValue.LIST) {
            return "quicklist"; // Redis 7.0 holds every list as a quicklist (7.2 brought plain listpacks for small ones)
        }
        if (e.type() == StoredValue.STREAM) {
            return "stream";
        }
        if (e.type() == StoredValue.ZSET) {
            return !ZSetTreeLayout.isTree(e) && new ZSetCursor(e).encoding() == ZSetLayout.LISTPACK ? "listpack" : "skiplist";
        }
        if (e.isHash()) {
            return HashLayout.encoding(e) == HashLayout.LISTPACK ? "listpack" : "hashtable";
        }
        if (e.type() == StoredValue.SET) {
            return !HashBuckets.isBucketed(e) && new SetView(e).encoding() == SetLayout.INTSET ? "intset" : "hashtable";
        }
        return canonicalLong(e).isPresent() ? "int" : e.length() <= 44 && !e.chunked() ? "embstr" : "raw";
    }

    /** @return OBJECT REFCOUNT's answer for the stored {@code e}: 1, or Redis's count of a shared integer */
    static long refcount(ServerContext ctx, KeyValueStore.Entry e) {
        if (e.type() != StoredValue.STRING) {
            return 1;
        }
        OptionalLong n = canonicalLong(e);
        boolean shared = n.isPresent() && n.getAsLong() >= 0 && n.getAsLong() < SHARED_INTEGERS
                && !ctx.dbs.evictsByUse();   // Redis shares integers unless it evicts by LRU or LFU
        return shared ? Integer.MAX_VALUE : 1;
    }

    /** The value as Redis's {@code string2l} takes it (at most 20 bytes, and printed back the same), or empty. */
    private static OptionalLong canonicalLong(KeyValueStore.Entry e) {
        if (e.length() > 20 || e.length() == 0) {
            return OptionalLong.empty();
        }
        byte[] v = e.value();
        OptionalLong n = Args.toLong(v);
        return n.isPresent() && java.util.Arrays.equals(Long.toString(n.getAsLong()).getBytes(java.nio.charset.StandardCharsets.US_ASCII), v)
                ? n : OptionalLong.empty();
    }
}
