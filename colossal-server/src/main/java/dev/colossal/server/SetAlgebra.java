package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * The commands across sets: SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD, with Redis
 * 7.0's errors: every key is checked for its type before any result (a missing key is an empty
 * set), and a STORE replaces its destination whatever it held, deadline included.
 *
 * <p>Each input is read where it lies ({@link SetView}); since every set is kept in
 * {@link SetOrder}, an intersection (walked in the smallest set's order) and a difference (in the
 * first set's) come out in that order already, and a union is sorted once: the order Redis answers
 * in when the result is an intset.
 */
final class SetAlgebra {

    /** Which result of the sets, and the event its STORE publishes ({@link KeyspaceEvents}). */
    private enum Op {
        INTER("sinterstore"), UNION("sunionstore"), DIFF("sdiffstore");

        final String storeEvent;

        Op(String storeEvent) {
            this.storeEvent = storeEvent;
        }
    }

    private final ServerContext ctx;

    SetAlgebra(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> ro = List.of("readonly");
        List<String> wf = List.of("write", "denyoom");
        t.add("sinter", -2, ro, 1, -1, 1, (c, a, r) -> read(c, a, r, Op.INTER));
        t.add("sunion", -2, ro, 1, -1, 1, (c, a, r) -> read(c, a, r, Op.UNION));
        t.add("sdiff", -2, ro, 1, -1, 1, (c, a, r) -> read(c, a, r, Op.DIFF));
        t.add("sinterstore", -3, wf, 1, -1, 1, (c, a, r) -> store(c, a, r, Op.INTER));
        t.add("sunionstore", -3, wf, 1, -1, 1, (c, a, r) -> store(c, a, r, Op.UNION));
        t.add("sdiffstore", -3, wf, 1, -1, 1, (c, a, r) -> store(c, a, r, Op.DIFF));
        t.add("sintercard", -3, List.of("readonly", "movablekeys"), 0, 0, 0, this::sintercard);
    }

    private void read(Client c, byte[][] a, Reply r, Op op) {
        List<byte[]> result = compute(op, views(ctx.db(c), a, 1, a.length), Long.MAX_VALUE);
        r.set(result.size());
        for (byte[] m : result) {
            r.bulk(m);
        }
    }

    private void store(Client c, byte[][] a, Reply r, Op op) {
        KeyValueStore store = ctx.db(c);
        Lock[] ls = store.locks(Arrays.copyOfRange(a, 1, a.length));
        StringCommands.lockAll(ls);
        try {
            SetValue result = SetValue.loaded(compute(op, views(store, a, 2, a.length), Long.MAX_VALUE));
            if (result.size() > 0) {
                SetCommands.save(store, a[1], result, StoredValue.NO_EXPIRY);
                ctx.events.fire(KeyspaceEvents.SET, op.storeEvent, store, a[1]);
            } else if (store.delete(a[1])) {
                ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[1]);
            }
            r.integer(result.size());
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    private void sintercard(Client c, byte[][] a, Reply r) {
        OptionalLong numkeys = Args.toLong(a[1]);
        if (numkeys.isEmpty() || numkeys.getAsLong() < 1) {
            r.error("ERR numkeys should be greater than 0");
            return;
        }
        if (numkeys.getAsLong() > a.length - 2) {
            r.error("ERR Number of keys can't be greater than number of args");
            return;
        }
        int end = 2 + (int) numkeys.getAsLong();
        long limit = 0;
        for (int j = end; j < a.length; j++) {
            if (Args.is(a[j], "LIMIT") && j + 1 < a.length) {
                OptionalLong parsed = Args.toLong(a[++j]);
                if (parsed.isEmpty() || parsed.getAsLong() < 0) {
                    r.error("ERR LIMIT can't be negative");
                    return;
                }
                limit = parsed.getAsLong();
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        r.integer(compute(Op.INTER, views(ctx.db(c), a, 2, end), limit == 0 ? Long.MAX_VALUE : limit).size());
    }

    /**
     * The sets under {@code a[from, to)}, null for a missing key.
     *
     * @throws ReplyException WRONGTYPE if any key holds another type, whether or not a key before it is missing
     */
    private static SetView[] views(KeyValueStore store, byte[][] a, int from, int to) {
        SetView[] views = new SetView[to - from];
        for (int i = from; i < to; i++) {
            KeyValueStore.Entry e = SetCommands.set(store, a[i]);
            views[i - from] = e == null ? null : new SetView(e);
        }
        return views;
    }

    /** @return the result's members, distinct, in {@link SetOrder} but a union's (sorted by {@link SetValue#loaded}) */
    private static List<byte[]> compute(Op op, SetView[] sets, long limit) {
        return switch (op) {
            case INTER -> inter(sets, limit);
            case UNION -> union(sets);
            case DIFF -> diff(sets);
        };
    }

    /** At most {@code limit} members of the smallest set that every other set holds too. */
    private static List<byte[]> inter(SetView[] sets, long limit) {
        SetView smallest = null;
        for (SetView v : sets) {
            if (v == null) {
                return List.of();
            }
            if (smallest == null || v.count() < smallest.count()) {
                smallest = v;
            }
        }
        List<byte[]> out = new ArrayList<>();
        byte[] b = smallest.bytes();
        for (int i = 0; i < smallest.count() && out.size() < limit; i++) {
            int s = smallest.start(i);
            int n = smallest.length(i);
            boolean everywhere = true;
            for (SetView v : sets) {
                if (v != smallest && v.indexOf(b, s, n) < 0) {
                    everywhere = false;
                    break;
                }
            }
            if (everywhere) {
                out.add(Arrays.copyOfRange(b, s, s + n));
            }
        }
        return out;
    }

    private static List<byte[]> union(SetView[] sets) {
        List<byte[]> all = new ArrayList<>();
        for (SetView v : sets) {
            for (int i = 0; v != null && i < v.count(); i++) {
                all.add(v.member(i));
            }
        }
        all.sort(SetOrder.MEMBERS);
        List<byte[]> out = new ArrayList<>(all.size());
        for (byte[] m : all) {
            if (out.isEmpty() || !Arrays.equals(out.getLast(), m)) {
                out.add(m);
            }
        }
        return out;
    }

    /** The first set's members that no other set holds. */
    private static List<byte[]> diff(SetView[] sets) {
        SetView first = sets[0];
        List<byte[]> out = new ArrayList<>();
        byte[] b = first == null ? null : first.bytes();
        for (int i = 0; first != null && i < first.count(); i++) {
            int s = first.start(i);
            int n = first.length(i);
            boolean elsewhere = false;
            for (int j = 1; j < sets.length && !elsewhere; j++) {
                elsewhere = sets[j] != null && sets[j].indexOf(b, s, n) >= 0;
            }
            if (!elsewhere) {
                out.add(Arrays.copyOfRange(b, s, s + n));
            }
        }
        return out;
    }
}
