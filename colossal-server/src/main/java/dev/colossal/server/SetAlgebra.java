package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The commands across sets: SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD, with Redis
 * 7.0's errors: every key is checked for its type before any result (a missing key is an empty
 * set), and a STORE replaces its destination whatever it held, deadline included.
 *
 * <p>Each one-value input is read where it lies ({@link SetView}); since every such set is kept in
 * {@link SetOrder}, an intersection (walked in the smallest set's order) and a difference (in the
 * first set's) come out in that order already, and a union is sorted once: the order Redis answers
 * in when the result is an intset. A bucketed input ({@link StoredSet}) is walked bucket by bucket
 * and asked for a member one bucket at a time, under the locks of every key named, as it is read
 * across buckets.
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

    /**
     * A set to compute with, of either encoding; null stands for a missing key.
     *
     * @param walk calls its argument with each member until it answers false
     */
    record Operand(long count, Predicate<byte[]> contains, Consumer<Predicate<byte[]>> walk) {

        static Operand of(SetView v) {
            return new Operand(v.count(), v::contains, action -> {
                for (int i = 0; i < v.count() && action.test(v.member(i)); i++) {
                    // the walk is the test
                }
            });
        }

        static Operand of(StoredSet s) {
            return new Operand(s.count(), s::contains, s::forEachWhile);
        }
    }

    /**
     * Runs {@code compute} on the sets under {@code a[from, to)}: as they lie, unless one is
     * bucketed, when under the locks of them all.
     */
    static <T> T withOperands(KeyValueStore store, byte[][] a, int from, int to, Function<Operand[], T> compute) {
        Operand[] asTheyLie = operands(store, a, from, to, false);
        if (asTheyLie != null) {
            return compute.apply(asTheyLie);
        }
        Lock[] ls = store.locks(Arrays.copyOfRange(a, from, to));
        StringCommands.lockAll(ls);
        try {
            return compute.apply(operands(store, a, from, to, true));
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    private void read(Client c, byte[][] a, Reply r, Op op) {
        List<byte[]> result = withOperands(ctx.db(c), a, 1, a.length, sets -> compute(op, sets, Long.MAX_VALUE));
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
            long limit = ctx.setMaxIntsetEntries;
            SetValue result = SetValue.loaded(compute(op, operands(store, a, 2, a.length, true), Long.MAX_VALUE), limit);
            if (result.size() > 0) {
                SetCommands.save(store, a[1], result, StoredValue.NO_EXPIRY, limit);
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
        long most = limit == 0 ? Long.MAX_VALUE : limit;
        r.integer(withOperands(ctx.db(c), a, 2, end, sets -> compute(Op.INTER, sets, most)).size());
    }

    /**
     * The sets under {@code a[from, to)}, null for a missing key, each from one read of its key.
     *
     * @param locked whether the caller holds the keys' locks: without them a bucketed set makes
     *     this return null, since a writer may split or drop its buckets while they are read (and
     *     a set read one-value a moment before may be bucketed now: only this read counts)
     * @throws ReplyException WRONGTYPE if any key holds another type, whether or not a key before it is missing
     */
    private static Operand[] operands(KeyValueStore store, byte[][] a, int from, int to, boolean locked) {
        Operand[] sets = new Operand[to - from];
        for (int i = from; i < to; i++) {
            KeyValueStore.Entry e = SetCommands.set(store, a[i]);
            if (e != null && HashBuckets.isBucketed(e)) {
                if (!locked) {
                    return null;
                }
                sets[i - from] = Operand.of(StoredSet.read(store, a[i], e));
            } else if (e != null) {
                sets[i - from] = Operand.of(new SetView(e));
            }
        }
        return sets;
    }

    /** @return the result's members, distinct, in {@link SetOrder} but a union's (sorted by {@link SetValue#loaded}) */
    private static List<byte[]> compute(Op op, Operand[] sets, long limit) {
        return switch (op) {
            case INTER -> inter(sets, limit);
            case UNION -> union(sets);
            case DIFF -> diff(sets);
        };
    }

    /** At most {@code limit} members of the smallest set that every other set holds too. */
    private static List<byte[]> inter(Operand[] sets, long limit) {
        Operand smallest = null;
        for (Operand v : sets) {
            if (v == null) {
                return List.of();
            }
            if (smallest == null || v.count() < smallest.count()) {
                smallest = v;
            }
        }
        List<byte[]> out = new ArrayList<>();
        Operand first = smallest;
        first.walk().accept(m -> {
            if (out.size() >= limit) {
                return false;
            }
            for (Operand v : sets) {
                if (v != first && !v.contains().test(m)) {
                    return true;
                }
            }
            out.add(m);
            return true;
        });
        return out;
    }

    private static List<byte[]> union(Operand[] sets) {
        List<byte[]> all = new ArrayList<>();
        for (Operand v : sets) {
            if (v != null) {
                v.walk().accept(all::add);
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
    private static List<byte[]> diff(Operand[] sets) {
        List<byte[]> out = new ArrayList<>();
        if (sets[0] == null) {
            return out;
        }
        sets[0].walk().accept(m -> {
            for (int j = 1; j < sets.length; j++) {
                if (sets[j] != null && sets[j].contains().test(m)) {
                    return true;
                }
            }
            out.add(m);
            return true;
        });
        return out;
    }
}
