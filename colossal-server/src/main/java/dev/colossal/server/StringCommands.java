package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/** The string commands: GET/SET and their family, counters, ranges. Replies follow Redis 7.0. */
final class StringCommands {

    /** {@link #deadline} wrote an error instead of returning a deadline. */
    static final long FAILED = Long.MIN_VALUE;

    private final ServerContext ctx;

    StringCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> w = List.of("write", "denyoom");
        List<String> r = List.of("readonly", "fast");
        t.add("get", 2, r, 1, 1, 1, this::get);
        t.add("set", -3, w, 1, 1, 1, this::set);
        t.add("setnx", 3, List.of("write", "denyoom", "fast"), 1, 1, 1, this::setnx);
        t.add("setex", 4, w, 1, 1, 1, (c, a, rr) -> setex(c, a, rr, true, "setex"));
        t.add("psetex", 4, w, 1, 1, 1, (c, a, rr) -> setex(c, a, rr, false, "psetex"));
        t.add("getdel", 2, List.of("write", "fast"), 1, 1, 1, this::getdel);
        t.add("getex", -2, List.of("write", "fast"), 1, 1, 1, this::getex);
        t.add("getset", 3, List.of("write", "denyoom", "fast"), 1, 1, 1, this::getset);
        t.add("mget", -2, List.of("readonly", "fast"), 1, -1, 1, this::mget);
        t.add("mset", -3, w, 1, -1, 2, this::mset);
        t.add("msetnx", -3, w, 1, -1, 2, this::msetnx);
        List<String> wf = List.of("write", "denyoom", "fast");
        t.add("incr", 2, wf, 1, 1, 1, (c, a, rr) -> incrBy(ctx.db(c), a[1], 1, rr));
        t.add("decr", 2, wf, 1, 1, 1, (c, a, rr) -> incrBy(ctx.db(c), a[1], -1, rr));
        t.add("incrby", 3, wf, 1, 1, 1, (c, a, rr) -> incrByArg(ctx.db(c), a, rr, false));
        t.add("decrby", 3, wf, 1, 1, 1, (c, a, rr) -> incrByArg(ctx.db(c), a, rr, true));
        t.add("incrbyfloat", 3, wf, 1, 1, 1, this::incrbyfloat);
        t.add("append", 3, wf, 1, 1, 1, this::append);
        t.add("strlen", 2, r, 1, 1, 1, this::strlen);
        t.add("getrange", 4, List.of("readonly"), 1, 1, 1, this::getrange);
        t.add("substr", 4, List.of("readonly"), 1, 1, 1, this::getrange);
        t.add("setrange", 4, w, 1, 1, 1, this::setrange);
    }

    private void get(Client c, byte[][] a, Reply r) {
        get(c, MemorySegment.ofArray(a[1]));
    }

    /** GET: the value goes from the map straight into the reply buffer, with no copy between. */
    void get(Client c, MemorySegment key) {
        get(c, ctx.db(c), key, false);
    }

    /**
     * GET's and MGET's reply for one key. The type is told by the flags byte the payload's offset
     * is read from anyway: a string costs one branch more, and only a hash is told apart.
     *
     * @param nilForOtherTypes MGET's rule: a key of another type is nil, where GET answers WRONGTYPE
     */
    private void get(Client c, KeyValueStore store, MemorySegment key, boolean nilForOtherTypes) {
        Reply r = c.reply;
        long at = r.valueSlot(StoredValue.PLAIN_HEADER);
        long n;
        while ((n = store.copyStored(key, r.segment(), at)) > r.room(at)) {
            r.ensureSlot(at, n);
        }
        if (n < 0) {
            c.misses++;
            r.nullBulk();
            return;
        }
        c.hits++;
        byte flags = StoredValue.flags(r.segment(), at);
        if (!StoredValue.isString(flags)) {
            if (nilForOtherTypes) {
                r.nullBulk();
            } else {
                r.error(Errors.WRONGTYPE);
            }
            return;
        }
        int payload = StoredValue.payloadOffset(flags);
        r.bulkAt(at + payload, (int) (n - payload));
    }

    /**
     * The live string under {@code key}, for the commands that read a string.
     *
     * @return the entry, or null if absent or expired
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static KeyValueStore.Entry string(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.get(key);
        if (e != null && !e.isString()) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return e;
    }

    /**
     * The live string under {@code key} as stored: a chunked one ({@link BigStringLayout}) as its
     * header, for the commands that touch only the chunks they need.
     *
     * @return the entry ({@link KeyValueStore.Entry#chunked()} for a chunked string), or null if absent or expired
     * @throws ReplyException WRONGTYPE if the key holds another type
     */
    static KeyValueStore.Entry rawString(KeyValueStore store, byte[] key) {
        KeyValueStore.Entry e = store.raw(key);
        if (e != null && !e.isString()) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        return e;
    }

    /**
     * Reads an expiry argument and turns it into an absolute deadline, or replies the error.
     *
     * @param seconds  the unit is seconds (else milliseconds)
     * @param relative the value counts from now (else it is a Unix time)
     * @param positive values <= 0 are invalid (SET, SETEX, GETEX); EXPIRE accepts them
     */
    long deadline(byte[] arg, boolean seconds, boolean relative, boolean positive, String cmd, Reply r) {
        OptionalLong parsed = Args.toLong(arg);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return FAILED;
        }
        long v = parsed.getAsLong();
        if ((positive && v <= 0) || (seconds && (v > Long.MAX_VALUE / 1000 || v < Long.MIN_VALUE / 1000))) {
            r.error(Errors.invalidExpire(cmd));
            return FAILED;
        }
        if (seconds) {
            v *= 1000;
        }
        if (relative) {
            long now = ctx.now();
            if (v > Long.MAX_VALUE - now) { // Redis checks this side only: now + v < 0 is simply past
                r.error(Errors.invalidExpire(cmd));
                return FAILED;
            }
            v += now;
        }
        return Math.max(v, 1); // any deadline <= 0 is as past as 1, and must not read as NO_EXPIRY or FAILED
    }

    /** A deadline in the past deletes; the store never sees a deadline <= 0 (0 means none). */
    boolean expired(long deadline) {
        return deadline != StoredValue.NO_EXPIRY && deadline <= ctx.now();
    }

    /**
     * {@code SET key value} with no options, the value still in the request buffer (see
     * {@link CommandTable#execute(Client, RequestParser, MemorySegment, KeyViews)}); the key reaches the map
     * through {@code keys}.
     */
    void setFromBuffer(Client c, RequestParser p, MemorySegment buf, KeyViews keys) {
        KeyValueStore store = ctx.db(c);
        Reply r = c.reply;
        MemorySegment key = keys.of(buf, p.starts[1], p.lengths[1]);
        Lock l = store.lock(key);
        l.lock();
        try {
            store.setInPlace(key, buf, p.starts[2], p.lengths[2], StoredValue.NO_EXPIRY);
            if (ctx.events.wanted(KeyspaceEvents.STRING)) {
                ctx.events.fire(KeyspaceEvents.STRING, "set", store, key.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
        } finally {
            l.unlock();
        }
        r.ok();
    }

    private void set(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        boolean keepTtl = false;
        int expiryArg = -1;
        int kind = 0;
        for (int j = 3; j < a.length; j++) {
            byte[] o = a[j];
            boolean hasNext = j + 1 < a.length;
            if (Args.is(o, "NX") && !xx) {
                nx = true;
            } else if (Args.is(o, "XX") && !nx) {
                xx = true;
            } else if (Args.is(o, "GET")) {
                get = true;
            } else if (Args.is(o, "KEEPTTL") && expiryArg < 0) {
                keepTtl = true;
            } else if (hasNext && !keepTtl && expiryKind(o) != 0 && (kind == 0 || kind == expiryKind(o))) {
                kind = expiryKind(o);
                expiryArg = ++j;
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        long at = StoredValue.NO_EXPIRY;
        if (expiryArg > 0) {
            at = deadline(a[expiryArg], kind == EX || kind == EXAT, kind == EX || kind == PX, true, "set", r);
            if (at == FAILED) {
                return;
            }
        }
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            // SET overwrites a key of any type, but SET ... GET reads the old value as GET does
            KeyValueStore.Entry old = get ? string(store, a[1]) : nx || xx || keepTtl ? store.get(a[1]) : null;
            if ((nx && old != null) || (xx && old == null)) {
                if (get) {
                    bulkOrNull(old, r);
                } else {
                    r.nullBulk();
                }
                return;
            }
            if (keepTtl && old != null) {
                at = old.expireAtMillis();
            }
            if (expired(at)) {
                store.delete(a[1]);
            } else {
                store.set(a[1], a[2], at);
            }
            setEvents(store, a[1], expiryArg > 0 ? at : StoredValue.NO_EXPIRY);
            if (get) {
                bulkOrNull(old, r);
            } else {
                r.ok();
            }
        } finally {
            l.unlock();
        }
    }

    /**
     * The events of a SET: {@code set}, and {@code expire} if it gave a deadline; Redis 7.0 stores
     * a value with a past deadline and expires it on its next lookup, this server removes it at
     * once, so the {@code expired} Redis publishes then comes now.
     */
    private void setEvents(KeyValueStore store, byte[] key, long deadline) {
        ctx.events.fire(KeyspaceEvents.STRING, "set", store, key);
        if (deadline != StoredValue.NO_EXPIRY) {
            ctx.events.fire(KeyspaceEvents.GENERIC, "expire", store, key);
            if (expired(deadline)) {
                ctx.events.fire(KeyspaceEvents.EXPIRED, "expired", store, key);
            }
        }
    }

    private static final int EX = 1;
    private static final int PX = 2;
    private static final int EXAT = 3;
    private static final int PXAT = 4;

    /**
     * Which expiry option {@code o} is, 0 if none. Redis's SET and GETEX let the same option
     * repeat (the last value wins) but refuse two different ones with a syntax error.
     */
    private static int expiryKind(byte[] o) {
        return Args.is(o, "EX") ? EX : Args.is(o, "PX") ? PX : Args.is(o, "EXAT") ? EXAT : Args.is(o, "PXAT") ? PXAT : 0;
    }

    private static void bulkOrNull(KeyValueStore.Entry e, Reply r) {
        if (e == null) {
            r.nullBulk();
        } else {
            r.bulk(e.array(), e.offset(), e.length());
        }
    }

    private void setnx(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            if (store.exists(a[1])) {
                r.integer(0);
            } else {
                store.set(a[1], a[2], StoredValue.NO_EXPIRY);
                ctx.events.fire(KeyspaceEvents.STRING, "set", store, a[1]);
                r.integer(1);
            }
        } finally {
            l.unlock();
        }
    }

    private void setex(Client c, byte[][] a, Reply r, boolean seconds, String cmd) {
        KeyValueStore store = ctx.db(c);
        long at = deadline(a[2], seconds, true, true, cmd, r);
        if (at == FAILED) {
            return;
        }
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            store.set(a[1], a[3], at);
            setEvents(store, a[1], at);
            r.ok();
        } finally {
            l.unlock();
        }
    }

    private void getdel(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = string(store, a[1]);
            if (e != null) {
                store.delete(a[1]);
                ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[1]);
            }
            bulkOrNull(e, r);
        } finally {
            l.unlock();
        }
    }

    /**
     * Stores {@code e}'s value again with deadline {@code at}: what EXPIRE, PERSIST and GETEX write.
     * The entry is written anew, so on a full disk this may find no room, and for a key that had no
     * TTL the new entry is 8 bytes longer; the error says so, as Redis takes an EXPIRE at maxmemory.
     */
    static void setExpiry(KeyValueStore store, byte[] key, KeyValueStore.Entry e, long at) {
        try {
            store.set(key, e, at);
        } catch (java.io.UncheckedIOException full) {
            store.noRoom(full);
            boolean longer = e.expireAtMillis() == StoredValue.NO_EXPIRY && at != StoredValue.NO_EXPIRY;
            throw new ReplyException(Errors.noRoomForExpiry(store.path(), full, longer));
        }
    }

    private void getex(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        int expiryArg = -1;
        boolean persist = false;
        int kind = 0;
        for (int j = 2; j < a.length; j++) {
            byte[] o = a[j];
            if (Args.is(o, "PERSIST") && kind == 0) {
                persist = true;
            } else if (j + 1 < a.length && !persist && expiryKind(o) != 0 && (kind == 0 || kind == expiryKind(o))) {
                kind = expiryKind(o);
                expiryArg = ++j;
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = string(store, a[1]);
            if (e == null) {
                r.nullBulk(); // before the expiry is checked, as in Redis
                return;
            }
            long at = StoredValue.NO_EXPIRY;
            if (expiryArg > 0) {
                at = deadline(a[expiryArg], kind == EX || kind == EXAT, kind == EX || kind == PX, true, "getex", r);
                if (at == FAILED) {
                    return;
                }
            }
            if (expiryArg > 0 && expired(at)) {
                store.delete(a[1]);
                ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[1]);
            } else if (expiryArg > 0 || (persist && e.expireAtMillis() != StoredValue.NO_EXPIRY)) {
                setExpiry(store, a[1], e, at);
                ctx.events.fire(KeyspaceEvents.GENERIC, persist ? "persist" : "expire", store, a[1]);
            }
            r.bulk(e.value());
        } finally {
            l.unlock();
        }
    }

    private void getset(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = string(store, a[1]);
            store.set(a[1], a[2], StoredValue.NO_EXPIRY);
            ctx.events.fire(KeyspaceEvents.STRING, "set", store, a[1]);
            bulkOrNull(e, r);
        } finally {
            l.unlock();
        }
    }

    private void mget(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        r.array(a.length - 1);
        MemorySegment[] keys = new MemorySegment[a.length - 1];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = MemorySegment.ofArray(a[i + 1]);
        }
        // A batch's lookups read ahead together: on a map larger than the caches each key is a
        // few misses, and one after the other they would wait for each in turn.
        for (int i = 0; i < keys.length; ) {
            for (int end = store.prefetch(keys, i); i < end; i++) {
                get(c, store, keys[i], true);
            }
        }
    }

    private void mset(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        if (a.length % 2 == 0) {
            r.error(Errors.arity("mset"));
            return;
        }
        byte[][] keys = keysOfPairs(a);
        checkValueLengths(store, a);
        Lock[] ls = store.locks(keys);
        lockAll(ls);
        try {
            MemorySegment[] segments = new MemorySegment[keys.length];
            for (int i = 0; i < keys.length; i++) {
                segments[i] = MemorySegment.ofArray(keys[i]);
            }
            boolean[] overwritten = overwrittenLater(keys);
            // Each set reads the key's slot and old entry first: read a batch's ahead together, as MGET does.
            for (int i = 0; i < keys.length; ) {
                for (int end = store.prefetch(segments, i); i < end; i++) {
                    if (overwritten == null || !overwritten[i]) {
                        store.set(keys[i], a[2 * i + 2], StoredValue.NO_EXPIRY);
                    }
                }
            }
            if (ctx.events.wanted(KeyspaceEvents.STRING)) {
                for (byte[] k : keys) {
                    ctx.events.fire(KeyspaceEvents.STRING, "set", store, k);
                }
            }
            r.ok();
        } finally {
            unlockAll(ls);
        }
    }

    private static final int DEDUPLICATED_PAIRS = 16;

    /**
     * The keys of an MSET that a later pair of the same MSET sets again, or null if none: their
     * values are replaced before anyone can read them (every key is locked), so they are not written
     * at all. redis-benchmark's MSET names one key ten times, which cost ten map writes. Looked for
     * in MSETs of up to {@link #DEDUPLICATED_PAIRS} pairs only: the pairwise look is cheap there, and
     * a longer MSET with repeats is rare enough not to pay for a map of its keys.
     */
    private static boolean[] overwrittenLater(byte[][] keys) {
        if (keys.length > DEDUPLICATED_PAIRS) {
            return null;
        }
        int[] hashes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            hashes[i] = Arrays.hashCode(keys[i]);
        }
        boolean[] overwritten = null;
        for (int i = 0; i < keys.length - 1; i++) {
            for (int j = i + 1; j < keys.length; j++) {
                if (hashes[i] == hashes[j] && Arrays.equals(keys[i], keys[j])) {
                    if (overwritten == null) {
                        overwritten = new boolean[keys.length];
                    }
                    overwritten[i] = true;
                    break;
                }
            }
        }
        return overwritten;
    }

    private void msetnx(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        if (a.length % 2 == 0) {
            r.error(Errors.arity("msetnx"));
            return;
        }
        checkValueLengths(store, a);
        Lock[] ls = store.locks(keysOfPairs(a));
        lockAll(ls);
        try {
            for (int i = 1; i < a.length; i += 2) {
                if (store.exists(a[i])) {
                    r.integer(0);
                    return;
                }
            }
            for (int i = 1; i < a.length; i += 2) {
                store.set(a[i], a[i + 1], StoredValue.NO_EXPIRY);
            }
            for (int i = 1; i < a.length; i += 2) {
                ctx.events.fire(KeyspaceEvents.STRING, "set", store, a[i]);
            }
            r.integer(1);
        } finally {
            unlockAll(ls);
        }
    }

    /** MSET stores all of its values or none: one too long for the store fails it before the first. */
    private static void checkValueLengths(KeyValueStore store, byte[][] a) {
        for (int i = 2; i < a.length; i += 2) {
            store.checkFits(a[i - 1].length, a[i].length, StoredValue.NO_EXPIRY);
        }
    }

    private static byte[][] keysOfPairs(byte[][] a) {
        byte[][] keys = new byte[a.length / 2][];
        for (int i = 1, k = 0; i < a.length; i += 2) {
            keys[k++] = a[i];
        }
        return keys;
    }

    static void lockAll(Lock[] ls) {
        for (Lock l : ls) {
            l.lock();
        }
    }

    static void unlockAll(Lock[] ls) {
        for (int i = ls.length - 1; i >= 0; i--) {
            ls[i].unlock();
        }
    }

    private void incrByArg(KeyValueStore store, byte[][] a, Reply r, boolean negate) {
        OptionalLong parsed = Args.toLong(a[2]);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long by = parsed.getAsLong();
        if (negate) {
            if (by == Long.MIN_VALUE) {
                r.error("ERR decrement would overflow");
                return;
            }
            by = -by;
        }
        incrBy(store, a[1], by, r);
    }

    private void incrBy(KeyValueStore store, byte[] key, long by, Reply r) {
        Lock l = store.lock(key);
        l.lock();
        try {
            KeyValueStore.Entry e = string(store, key);
            long v = 0;
            if (e != null) {
                OptionalLong stored = Args.toLong(e.value());
                if (stored.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                v = stored.getAsLong();
            }
            long sum = v + by;
            if (((v ^ sum) & (by ^ sum)) < 0) {
                r.error(Errors.OVERFLOW);
                return;
            }
            store.set(key, Args.bytes(Long.toString(sum)), e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
            ctx.events.fire(KeyspaceEvents.STRING, "incrby", store, key);
            r.integer(sum);
        } finally {
            l.unlock();
        }
    }

    private void incrbyfloat(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            // Redis checks the key's type before it reads the increment (INCRBY reads it first)
            KeyValueStore.Entry e = string(store, a[1]);
            BigDecimal v = BigDecimal.ZERO;
            if (e != null) {
                BigDecimal old = LongDouble.parse(e.value());
                if (old == null) {
                    r.error(Errors.NOT_FLOAT);
                    return;
                }
                v = old;
            }
            BigDecimal by = LongDouble.parse(a[2]);
            if (by == null) {
                r.error(Errors.NOT_FLOAT);
                return;
            }
            BigDecimal sum = LongDouble.add(v, by);
            if (sum == LongDouble.INFINITE) {
                r.error(Errors.NAN_OR_INF);
                return;
            }
            byte[] out = Args.bytes(LongDouble.format(sum));
            store.set(a[1], out, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
            ctx.events.fire(KeyspaceEvents.STRING, "incrbyfloat", store, a[1]);
            r.bulk(out);
        } finally {
            l.unlock();
        }
    }

    private void append(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = rawString(store, a[1]);
            if (e == null) {
                BigString.set(store, a[1], a[2], StoredValue.NO_EXPIRY);
                ctx.events.fire(KeyspaceEvents.STRING, "append", store, a[1]);
                r.integer(a[2].length);
                return;
            }
            BigString big = e.chunked() ? BigString.of(store, a[1], e) : null;
            long had = big != null ? big.length() : e.length();
            long n = had + a[2].length;
            if (n > ctx.maxStringBytes()) {
                r.error(Errors.TOO_BIG);
                return;
            }
            if (big != null) {
                big.write(had, a[2], 0, a[2].length);
            } else {
                byte[] v = Arrays.copyOfRange(e.array(), e.offset(), e.offset() + (int) n);
                System.arraycopy(a[2], 0, v, e.length(), a[2].length);
                BigString.set(store, a[1], v, e.expireAtMillis());
            }
            ctx.events.fire(KeyspaceEvents.STRING, "append", store, a[1]);
            r.integer(n);
        } finally {
            l.unlock();
        }
    }

    private void strlen(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = rawString(store, a[1]);
        r.integer(e == null ? 0 : e.chunked() ? BigString.of(store, a[1], e).length() : e.length());
    }

    private void getrange(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        OptionalLong from = Args.toLong(a[2]);
        OptionalLong to = Args.toLong(a[3]);
        if (from.isEmpty() || to.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long start = from.getAsLong();
        long end = to.getAsLong();
        KeyValueStore.Entry e = rawString(store, a[1]);
        BigString big = e != null && e.chunked() ? BigString.of(store, a[1], e) : null;
        byte[] v = e == null || big != null ? new byte[0] : e.value();
        long n = big != null ? big.length() : v.length;
        if (start < 0 && end < 0 && start > end) {
            r.bulk(v, 0, 0);
            return;
        }
        if (start < 0) {
            start = n + start;
        }
        if (end < 0) {
            end = n + end;
        }
        start = Math.max(0, start);
        end = Math.max(0, end);
        if (end >= n) {
            end = n - 1;
        }
        if (start > end || n == 0) {
            r.bulk(v, 0, 0);
            return;
        }
        if (big != null) {
            r.bulk(big.read(start, (int) (end - start + 1))); // only the chunks of the range are read
            return;
        }
        r.bulk(v, (int) start, (int) (end - start + 1));
    }

    private void setrange(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        OptionalLong parsed = Args.toLong(a[2]);
        if (parsed.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        long offset = parsed.getAsLong();
        if (offset < 0) {
            r.error(Errors.OFFSET_RANGE);
            return;
        }
        byte[] piece = a[3];
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = rawString(store, a[1]);
            BigString big = e != null && e.chunked() ? BigString.of(store, a[1], e) : null;
            byte[] v = e == null || big != null ? new byte[0] : e.value();
            long had = big != null ? big.length() : v.length;
            if (piece.length == 0) {
                r.integer(had);
                return;
            }
            if (offset > ctx.maxStringBytes() - piece.length) { // as offset + length, which could overflow
                r.error(Errors.TOO_BIG);
                return;
            }
            long n = Math.max(had, offset + piece.length);
            if (big != null) {
                big.write(offset, piece, 0, piece.length);
            } else {
                byte[] out = Arrays.copyOf(v, (int) n);
                System.arraycopy(piece, 0, out, (int) offset, piece.length);
                BigString.set(store, a[1], out, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
            }
            ctx.events.fire(KeyspaceEvents.STRING, "setrange", store, a[1]);
            r.integer(n);
        } finally {
            l.unlock();
        }
    }
}
