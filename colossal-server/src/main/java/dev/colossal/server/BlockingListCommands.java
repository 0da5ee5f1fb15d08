package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * BLPOP, BRPOP, BLMOVE, BRPOPLPUSH and BLMPOP with Redis 7.0's semantics: what is there is taken
 * at once; otherwise the client waits ({@link KeyWaits}) until a push to one of its keys, its
 * timeout (seconds as a double, 0 for ever), or CLIENT UNBLOCK. Inside MULTI and scripts they do
 * not wait, and answer as a timeout would.
 */
final class BlockingListCommands {

    /** What {@link #timeout} returns once it has answered the error. */
    static final long REFUSED = -1;

    private final ServerContext ctx;

    BlockingListCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> flags = List.of("write", "noscript", "blocking");
        t.add("blpop", -3, flags, 1, -2, 1, (c, a, r) -> bpop(c, a, r, true));
        t.add("brpop", -3, flags, 1, -2, 1, (c, a, r) -> bpop(c, a, r, false));
        t.add("brpoplpush", 4, List.of("write", "denyoom", "noscript", "blocking"), 1, 2, 1,
                (c, a, r) -> bmove(c, a, r, false, true, a[3]));
        t.add("blmove", 6, List.of("write", "denyoom", "noscript", "blocking"), 1, 2, 1, this::blmove);
        t.add("blmpop", -5, List.of("write", "blocking", "movablekeys"), 0, 0, 0, this::blmpop);
    }

    /**
     * Reads a timeout in seconds as Redis's {@code getTimeoutFromObjectOrReply}: a long double,
     * in whole milliseconds rounded up, neither negative nor past a long.
     *
     * @return milliseconds (0: for ever), or {@link #REFUSED} once the error is answered
     */
    static long timeout(byte[] a, Reply r) {
        long seconds = wholeSeconds(a);
        if (seconds >= 0) {
            return seconds * 1000;
        }
        BigDecimal v = LongDouble.parse(a);
        if (v == null) {
            r.error("ERR timeout is not a float or out of range");
            return REFUSED;
        }
        // Redis 7.0.15 casts a value past long long's range to LLONG_MIN (x86's answer), so it is "negative"
        BigDecimal ms = v == LongDouble.INFINITE ? null : v.movePointRight(3).setScale(0, RoundingMode.CEILING);
        if (ms == null || ms.signum() < 0 || ms.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            r.error("ERR timeout is negative");
            return REFUSED;
        }
        return ms.longValueExact();
    }

    /**
     * @return the seconds {@code a} spells if it is plain decimal digits, few enough that their
     *         milliseconds fit a long, or -1: a queue worker's "0" or "5" needs no decimal
     *         arithmetic, which cost a blocking pop more than its list's work
     */
    private static long wholeSeconds(byte[] a) {
        if (a.length == 0 || a.length > MAX_WHOLE_DIGITS) {
            return -1;
        }
        long v = 0;
        for (byte b : a) {
            if (b < '0' || b > '9') {
                return -1;
            }
            v = v * 10 + (b - '0');
        }
        return v;
    }

    /** Digits of whole seconds {@link #wholeSeconds} reads: 10^15 s is 10^18 ms, within a long. */
    private static final int MAX_WHOLE_DIGITS = 15;

    /** @return whether {@code c} may wait: not inside MULTI/EXEC or a script */
    static boolean mayBlock(Client c) {
        return !c.inExec && !c.denyBlocking;
    }

    /** The reply a timed-out waiter gets: a null array, in its protocol. */
    static byte[] nullArray(Client c) {
        return (c.reply.protocol >= 3 ? "_\r\n" : "*-1\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private void bpop(Client c, byte[][] a, Reply r, boolean left) {
        long timeout = timeout(a[a.length - 1], r);
        if (timeout == REFUSED) {
            return;
        }
        byte[][] keys = java.util.Arrays.copyOfRange(a, 1, a.length - 1);
        for (byte[] key : keys) {
            if (popInto(c.db, key, left, r)) {
                return;
            }
        }
        if (!mayBlock(c)) {
            r.nullArray();
            return;
        }
        int db = c.db;
        ctx.waits.block(new KeyWaits.Waiter(c, db, keys, key -> {
            if (holdsOtherType(ctx, db, key)) {
                return null;
            }
            byte[] v = popOne(ctx, db, key, left);
            return v == null ? null : resp(key, List.of(v), false);
        }, nullArray(c)), timeout);
    }

    /**
     * Whether {@code key} now holds something else than a list: a waiter's key that a ZADD or SET
     * made another type (a write that wakes waiters) leaves the waiter waiting, as in Redis, which
     * answers WRONGTYPE only to a blocking pop that found the other type when it was sent.
     */
    private static boolean holdsOtherType(ServerContext ctx, int db, byte[] key) {
        KeyValueStore.Entry e = ctx.dbs.store(db).get(key);
        return e != null && e.type() != StoredValue.LIST;
    }

    /**
     * Pops an element of {@code key}, if it has one, into {@code r} as the reply {@code [key, element]}.
     *
     * @return whether it had one
     */
    private boolean popInto(int db, byte[] key, boolean left, Reply r) {
        byte[] v = popOne(ctx, db, key, left);
        if (v == null) {
            return false;
        }
        r.array(2);
        r.bulk(key);
        r.bulk(v);
        return true;
    }

    /**
     * Under {@code key}'s lock, if it holds a list, pops an element from the head ({@code left}) or
     * the tail and publishes the pop's events: in the header's bytes ({@link ListEnds}) when the
     * end's run has it, else through {@link StoredList}.
     *
     * @return the element popped from {@code key}, or null if it has none
     */
    private static byte[] popOne(ServerContext ctx, int db, byte[] key, boolean left) {
        KeyValueStore store = ctx.dbs.store(db);
        Lock l = store.lock(key);
        l.lock();
        try {
            ListEnds ends = ListEnds.mine();
            ends.read(store, key);
            byte[] v = ends.pop(store, left);
            long size;
            if (v != null) {
                size = ends.count();
            } else {
                StoredList list = StoredList.of(store, key, ends.entry());
                if (!list.exists()) {
                    return null;
                }
                v = list.pop(left);
                size = list.size();
            }
            ListCommands.popped(ctx.events, db, key, left, size);
            return v;
        } finally {
            l.unlock();
        }
    }

    private void blmove(Client c, byte[][] a, Reply r) {
        int from = ListCommands.side(a[3], r);
        if (from < 0) {
            return;
        }
        int to = ListCommands.side(a[4], r);
        if (to < 0) {
            return;
        }
        bmove(c, a, r, from == 1, to == 1, a[5]);
    }

    private void bmove(Client c, byte[][] a, Reply r, boolean fromLeft, boolean toLeft, byte[] timeoutArg) {
        long timeout = timeout(timeoutArg, r);
        if (timeout == REFUSED) {
            return;
        }
        KeyValueStore store = ctx.db(c);
        byte[] src = a[1];
        byte[] dst = a[2];
        byte[] v = ListCommands.moveOne(ctx, c.db, src, dst, fromLeft, toLeft);
        if (v != null) {
            ctx.waits.ready(c.db, dst);
            r.bulk(v);
            return;
        }
        if (!mayBlock(c)) {
            r.nullBulk();
            return;
        }
        int db = c.db;
        ctx.waits.block(new KeyWaits.Waiter(c, db, new byte[][] {src}, key -> {
            if (holdsOtherType(ctx, db, src)) {
                return null;
            }
            byte[] moved = ListCommands.moveOne(ctx, db, src, dst, fromLeft, toLeft);
            if (moved == null) {
                return null;
            }
            ctx.waits.ready(db, dst);
            return bulk(moved);
        }, nullArray(c)), timeout);
    }

    private void blmpop(Client c, byte[][] a, Reply r) {
        // Redis reads the keys and options first, the timeout after
        ListCommands.MultiPop m = ListCommands.MultiPop.parse(a, 2, r);
        if (m == null) {
            return;
        }
        long timeout = timeout(a[1], r);
        if (timeout == REFUSED) {
            return;
        }
        if (m.popFirst(ctx, c.db, r)) {
            return;
        }
        if (!mayBlock(c)) {
            r.nullArray();
            return;
        }
        int db = c.db;
        ctx.waits.block(new KeyWaits.Waiter(c, db, m.keys(), key -> {
            KeyValueStore store = ctx.dbs.store(db);
            Lock l = store.lock(key);
            l.lock();
            try {
                StoredList list = holdsOtherType(ctx, db, key) ? null : StoredList.read(store, key);
                if (list == null) {
                    return null;
                }
                byte[] reply = resp(key, list.pop(m.left(), m.count()), true);
                ListCommands.popped(ctx.events, db, key, m.left(), list);
                return reply;
            } finally {
                l.unlock();
            }
        }, nullArray(c)), timeout);
    }

    /** {@code [key, element]}, or {@code [key, [elements]]} when {@code nested}: the same in RESP2 and RESP3. */
    private static byte[] resp(byte[] key, List<byte[]> values, boolean nested) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("*2\r\n".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(bulk(key));
        if (nested) {
            out.writeBytes(("*" + values.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        values.forEach(v -> out.writeBytes(bulk(v)));
        return out.toByteArray();
    }

    /** @return {@code v} as a RESP bulk string */
    static byte[] bulk(byte[] v) {
        byte[] head = ("$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + v.length + 2];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(v, 0, out, head.length, v.length);
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
    }
}
