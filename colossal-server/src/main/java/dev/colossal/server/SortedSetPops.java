package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * ZPOPMIN, ZPOPMAX, ZMPOP and BZMPOP, as Redis's {@code genericZpopCommand}: the lowest or highest
 * members of the first named key that holds a sorted set, taken under the locks of every key named,
 * the set stored again (or deleted when emptied) with its deadline. BZMPOP with no such key waits
 * ({@link KeyWaits}) as BZPOPMIN does ({@link BlockingSortedSetCommands}).
 */
final class SortedSetPops {

    private static final String NOT_POSITIVE = "ERR value is out of range, must be positive";

    private final ServerContext ctx;

    SortedSetPops(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("zpopmin", -2, List.of("write", "fast"), 1, 1, 1, (c, a, r) -> zpop(c, a, r, true));
        t.add("zpopmax", -2, List.of("write", "fast"), 1, 1, 1, (c, a, r) -> zpop(c, a, r, false));
        t.add("zmpop", -4, List.of("write", "movablekeys"), 0, 0, 0, (c, a, r) -> zmpop(c, a, r, false));
        t.add("bzmpop", -5, List.of("write", "blocking", "movablekeys"), 0, 0, 0, (c, a, r) -> zmpop(c, a, r, true));
    }

    private void zpop(Client c, byte[][] a, Reply r, boolean min) {
        if (a.length > 3) {
            r.error(Errors.SYNTAX);
            return;
        }
        long count = -1;
        if (a.length == 3) {
            OptionalLong n = Args.toLong(a[2]);
            if (n.isEmpty() || n.getAsLong() < 0) {
                r.error(NOT_POSITIVE);
                return;
            }
            count = n.getAsLong();
        }
        pop(c, new byte[][] {a[1]}, min, count, r.protocol > 2 && count != -1, false, r);
    }

    /**
     * Redis's {@code genericZpopCommand}: pops from the first of {@code keys} that holds a sorted set.
     *
     * @param count   how many, -1 for one without a count given
     * @param nested  each member and score as a pair (RESP3 with a count, ZMPOP)
     * @param emitKey ZMPOP's reply: the key, then the pairs, and a null if no key holds a set
     */
    private void pop(Client c, byte[][] keys, boolean min, long count, boolean nested, boolean emitKey, Reply r) {
        if (!popFirst(c.db, keys, min, count, nested, emitKey, r)) {
            if (emitKey) {
                r.nullArray();
            } else {
                r.array(0);
            }
        }
    }

    /** As {@link #pop}, but answers nothing and returns false if no key holds a sorted set. */
    private boolean popFirst(int db, byte[][] keys, boolean min, long count, boolean nested, boolean emitKey, Reply r) {
        KeyValueStore store = ctx.dbs.store(db);
        Lock[] ls = store.locks(keys);
        StringCommands.lockAll(ls);
        try {
            byte[] key = null;
            KeyValueStore.Entry e = null;
            for (byte[] k : keys) {
                e = SortedSetCommands.zset(store, k);
                if (e != null) {
                    key = k;
                    break;
                }
            }
            if (e == null) {
                return false;
            }
            if (count == 0) {
                r.array(0);
                return true;
            }
            ZSetWrites z = SortedSetCommands.open(store, key, e, ctx.zsetMaxListpackEntries);
            int n = (int) Math.min(count == -1 ? 1 : count, z.count());
            double[] scores = new double[n];
            byte[][] members = new byte[n][];
            int[] k = {0};
            z.walk(min ? 0 : z.count() - 1, !min, (s, m) -> {
                scores[k[0]] = s;
                members[k[0]++] = m;
                return k[0] < n;
            });
            z.removeRanks(min ? 0 : z.count() - n, min ? n : z.count());
            SortedSetCommands.store(store, key, e, z);
            SortedSetCommands.changed(ctx, store, key, min ? "zpopmin" : "zpopmax", z.count() == 0);
            if (emitKey) {
                r.array(2);
                r.bulk(key);
                r.array(n);
            } else {
                r.array(nested ? n : 2 * n);
            }
            for (int i = 0; i < n; i++) {
                if (nested) {
                    r.array(2);
                }
                r.bulk(members[i]);
                ZScore.reply(r, scores[i]);
            }
            return true;
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /** ZMPOP numkeys key... MIN|MAX [COUNT n], or BZMPOP timeout numkeys key... MIN|MAX [COUNT n]. */
    private void zmpop(Client c, byte[][] a, Reply r, boolean blocking) {
        int numKeysAt = blocking ? 2 : 1;
        OptionalLong parsed = Args.toLong(a[numKeysAt]);
        if (parsed.isEmpty() || parsed.getAsLong() < 1) {
            r.error("ERR numkeys should be greater than 0");
            return;
        }
        long numKeys = parsed.getAsLong();
        if (numKeys >= a.length - numKeysAt - 1) {
            r.error(Errors.SYNTAX);
            return;
        }
        int where = (int) numKeys + numKeysAt + 1;
        boolean min = Args.is(a[where], "MIN");
        if (!min && !Args.is(a[where], "MAX")) {
            r.error(Errors.SYNTAX);
            return;
        }
        long count = -1;
        for (int j = where + 1; j < a.length; j++) {
            if (count == -1 && Args.is(a[j], "COUNT") && j + 1 < a.length) {
                OptionalLong n = Args.toLong(a[++j]);
                if (n.isEmpty() || n.getAsLong() < 1) {
                    r.error("ERR count should be greater than 0");
                    return;
                }
                count = n.getAsLong();
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        long n = count == -1 ? 1 : count;
        byte[][] keys = java.util.Arrays.copyOfRange(a, numKeysAt + 1, where);
        if (!blocking) {
            pop(c, keys, min, n, true, true, r);
            return;
        }
        // Redis reads the keys and options first, the timeout after
        long timeout = BlockingListCommands.timeout(a[1], r);
        if (timeout == BlockingListCommands.REFUSED || popFirst(c.db, keys, min, n, true, true, r)) {
            return;
        }
        if (!BlockingListCommands.mayBlock(c)) {
            r.nullArray();
            return;
        }
        int db = c.db;
        int protocol = r.protocol;
        ctx.waits.block(new KeyWaits.Waiter(c, db, keys, key -> {
            boolean[] popped = new boolean[1];
            try {
                byte[] reply = Reply.capture(protocol, rr -> popped[0] = popFirst(db, new byte[][] {key}, min, n, true, true, rr));
                return popped[0] ? reply : null;
            } catch (ReplyException otherType) {
                return null; // a key that now holds another type serves no one; the wait goes on
            }
        }, BlockingListCommands.nullArray(c)), timeout);
    }
}
