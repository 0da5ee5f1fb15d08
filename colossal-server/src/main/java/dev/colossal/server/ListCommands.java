package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * The non-blocking list commands, with Redis 7.0's replies, errors and order of checks. Each
 * holds its keys' locks around a {@link StoredList}; a command that may give a list elements
 * tells {@link KeyWaits} afterwards, so that clients blocked on the key are served.
 */
final class ListCommands {

    static final String OUT_OF_RANGE = "ERR index out of range";
    private static final String MUST_BE_POSITIVE = "ERR value is out of range, must be positive";

    private final ServerContext ctx;

    ListCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> wf = List.of("write", "denyoom", "fast");
        List<String> rf = List.of("readonly", "fast");
        t.add("lpush", -3, wf, 1, 1, 1, (c, a, r) -> push(c, a, r, true, false));
        t.add("rpush", -3, wf, 1, 1, 1, (c, a, r) -> push(c, a, r, false, false));
        t.add("lpushx", -3, wf, 1, 1, 1, (c, a, r) -> push(c, a, r, true, true));
        t.add("rpushx", -3, wf, 1, 1, 1, (c, a, r) -> push(c, a, r, false, true));
        t.add("lpop", -2, List.of("write", "fast"), 1, 1, 1, (c, a, r) -> pop(c, a, r, true));
        t.add("rpop", -2, List.of("write", "fast"), 1, 1, 1, (c, a, r) -> pop(c, a, r, false));
        t.add("llen", 2, rf, 1, 1, 1, this::llen);
        t.add("lindex", 3, List.of("readonly"), 1, 1, 1, this::lindex);
        t.add("lrange", 4, List.of("readonly"), 1, 1, 1, this::lrange);
        t.add("lset", 4, List.of("write", "denyoom"), 1, 1, 1, this::lset);
        t.add("ltrim", 4, List.of("write"), 1, 1, 1, this::ltrim);
        t.add("linsert", 5, List.of("write", "denyoom"), 1, 1, 1, this::linsert);
        t.add("lrem", 4, List.of("write"), 1, 1, 1, this::lrem);
        t.add("lpos", -3, List.of("readonly"), 1, 1, 1, this::lpos);
        t.add("rpoplpush", 3, List.of("write", "denyoom"), 1, 2, 1, (c, a, r) -> move(c, a[1], a[2], false, true, r));
        t.add("lmove", 5, List.of("write", "denyoom"), 1, 2, 1, this::lmove);
        t.add("lmpop", -4, List.of("write", "movablekeys"), 0, 0, 0, this::lmpop);
    }

    /** @return the number {@code a} spells, or null once Redis's "not an integer" error is answered */
    static Long integer(byte[] a, Reply r) {
        OptionalLong v = Args.toLong(a);
        if (v.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return null;
        }
        return v.getAsLong();
    }

    /** @return 1 for LEFT, 0 for RIGHT, -1 once the syntax error is answered */
    static int side(byte[] a, Reply r) {
        if (Args.is(a, "LEFT")) {
            return 1;
        }
        if (Args.is(a, "RIGHT")) {
            return 0;
        }
        r.error(Errors.SYNTAX);
        return -1;
    }

    private void push(Client c, byte[][] a, Reply r, boolean left, boolean onlyIfExists) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        long n;
        try {
            ListEnds ends = ListEnds.mine();
            if (ends.read(store, a[1]) && ends.push(store, left, a, 2, a.length)) {
                n = ends.count();
            } else {
                StoredList list = StoredList.of(store, a[1], ends.entry());
                if (onlyIfExists && list.size() == 0) {
                    r.integer(0);
                    return;
                }
                list.push(left, a, 2, a.length);
                n = list.size();
            }
        } finally {
            l.unlock();
        }
        ctx.events.fire(KeyspaceEvents.LIST, left ? "lpush" : "rpush", c.db, a[1]);
        ctx.waits.ready(c.db, a[1]);
        r.integer(n);
    }

    private void pop(Client c, byte[][] a, Reply r, boolean left) {
        if (a.length > 3) {
            r.error(Errors.arity(left ? "lpop" : "rpop"));
            return;
        }
        long count = -1;
        if (a.length == 3) {
            OptionalLong v = Args.toLong(a[2]);
            if (v.isEmpty() || v.getAsLong() < 0) {
                r.error(MUST_BE_POSITIVE);
                return;
            }
            count = v.getAsLong();
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            ListEnds ends = ListEnds.mine();
            ends.read(store, a[1]);
            byte[] v = count < 0 ? ends.pop(store, left) : null;
            if (v != null) {
                r.bulk(v);
                popped(ctx.events, c.db, a[1], left, ends.count());
                return;
            }
            StoredList list = StoredList.of(store, a[1], ends.entry());
            if (!list.exists()) {
                if (count >= 0) {
                    r.nullArray();
                } else {
                    r.nullBulk();
                }
                return;
            }
            if (count < 0) {
                list.pop(left, r);
            } else {
                List<byte[]> out = count == 0 ? List.of() : list.pop(left, count);
                r.array(out.size());
                out.forEach(r::bulk);
                if (count == 0) {
                    return; // Redis's fast exit: nothing popped, nothing published
                }
            }
            popped(ctx.events, c.db, a[1], left, list);
        } finally {
            l.unlock();
        }
    }

    /** Publishes a pop's events: {@code lpop} or {@code rpop}, and {@code del} if it emptied the list, as Redis. */
    static void popped(KeyspaceEvents events, int db, byte[] key, boolean left, StoredList list) {
        popped(events, db, key, left, list.size());
    }

    /** Publishes a pop's events for a list left with {@code size} elements. */
    static void popped(KeyspaceEvents events, int db, byte[] key, boolean left, long size) {
        events.fire(KeyspaceEvents.LIST, left ? "lpop" : "rpop", db, key);
        if (size == 0) {
            events.fire(KeyspaceEvents.GENERIC, "del", db, key);
        }
    }

    private void llen(Client c, byte[][] a, Reply r) {
        StoredList list = StoredList.read(ctx.db(c), a[1]);
        r.integer(list == null ? 0 : list.size());
    }

    private void lindex(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list == null) {
                r.nullBulk();
                return;
            }
            Long index = integer(a[2], r);
            if (index == null) {
                return;
            }
            long i = index < 0 ? list.size() + index : index;
            if (i < 0 || i >= list.size()) {
                r.nullBulk();
            } else {
                r.bulk(list.get(i));
            }
        } finally {
            l.unlock();
        }
    }

    private void lrange(Client c, byte[][] a, Reply r) {
        Long start = integer(a[2], r);
        if (start == null) {
            return;
        }
        Long end = integer(a[3], r);
        if (end == null) {
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list == null) {
                r.array(0);
                return;
            }
            long[] span = span(start, end, list.size());
            r.array((int) (span[1] - span[0]));
            list.reply(span[0], span[1], r);
        } finally {
            l.unlock();
        }
    }

    /** @return the elements {@code [from, to)} that Redis's LRANGE and LTRIM take for {@code start} and {@code end} */
    static long[] span(long start, long end, long length) {
        if (start < 0) {
            start = length + start;
        }
        if (end < 0) {
            end = length + end;
        }
        if (start < 0) {
            start = 0;
        }
        if (start > end || start >= length) {
            return new long[] {0, 0};
        }
        if (end >= length) {
            end = length - 1;
        }
        return new long[] {start, end + 1};
    }

    private void lset(Client c, byte[][] a, Reply r) {
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list == null) {
                r.error(Errors.NO_SUCH_KEY);
                return;
            }
            Long index = integer(a[2], r);
            if (index == null) {
                return;
            }
            long i = index < 0 ? list.size() + index : index;
            if (i < 0 || i >= list.size()) {
                r.error(OUT_OF_RANGE);
                return;
            }
            list.set(i, a[3]);
            ctx.events.fire(KeyspaceEvents.LIST, "lset", c.db, a[1]);
            r.ok();
        } finally {
            l.unlock();
        }
    }

    private void ltrim(Client c, byte[][] a, Reply r) {
        Long start = integer(a[2], r);
        if (start == null) {
            return;
        }
        Long end = integer(a[3], r);
        if (end == null) {
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list != null) {
                long[] span = span(start, end, list.size());
                if (span[0] != 0 || span[1] != list.size()) {
                    list.trim(span[0], span[1]);
                }
                ctx.events.fire(KeyspaceEvents.LIST, "ltrim", c.db, a[1]);
                if (list.size() == 0) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", c.db, a[1]);
                }
            }
            r.ok();
        } finally {
            l.unlock();
        }
    }

    private void linsert(Client c, byte[][] a, Reply r) {
        boolean after;
        if (Args.is(a[2], "AFTER")) {
            after = true;
        } else if (Args.is(a[2], "BEFORE")) {
            after = false;
        } else {
            r.error(Errors.SYNTAX);
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list == null) {
                r.integer(0);
                return;
            }
            long[] pivot = {-1};
            long[] index = {0};
            list.scan(false, (b, o, n) -> {
                if (Arrays.equals(b, o, o + n, a[3], 0, a[3].length)) {
                    pivot[0] = index[0];
                    return true;
                }
                index[0]++;
                return false;
            });
            if (pivot[0] < 0) {
                r.integer(-1);
                return;
            }
            insertAt(list, after ? pivot[0] + 1 : pivot[0], a[4]);
            ctx.events.fire(KeyspaceEvents.LIST, "linsert", c.db, a[1]);
            r.integer(list.size());
        } finally {
            l.unlock();
        }
    }

    /** Puts {@code v} before element {@code at}: a push at either end, else a rebuild. */
    private static void insertAt(StoredList list, long at, byte[] v) {
        if (at == 0) {
            list.push(true, v);
        } else if (at == list.size()) {
            list.push(false, v);
        } else {
            List<byte[]> all = list.range(0, list.size());
            all.add((int) at, v);
            list.replaceAll(all);
        }
    }

    private void lrem(Client c, byte[][] a, Reply r) {
        Long count = integer(a[2], r);
        if (count == null) {
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list == null) {
                r.integer(0);
                return;
            }
            List<byte[]> all = list.range(0, list.size());
            long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
            long removed = 0;
            if (count >= 0) {
                for (int i = 0; i < all.size() && removed < limit; ) {
                    if (Arrays.equals(all.get(i), a[3])) {
                        all.remove(i);
                        removed++;
                    } else {
                        i++;
                    }
                }
            } else {
                for (int i = all.size() - 1; i >= 0 && removed < limit; i--) {
                    if (Arrays.equals(all.get(i), a[3])) {
                        all.remove(i);
                        removed++;
                    }
                }
            }
            if (removed > 0) {
                list.replaceAll(all);
                ctx.events.fire(KeyspaceEvents.LIST, "lrem", c.db, a[1]);
                if (all.isEmpty()) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", c.db, a[1]);
                }
            }
            r.integer(removed);
        } finally {
            l.unlock();
        }
    }

    private void lpos(Client c, byte[][] a, Reply r) {
        long rank = 1;
        long count = -1;
        long maxlen = 0;
        for (int j = 3; j < a.length; j++) {
            boolean more = j + 1 < a.length;
            if (Args.is(a[j], "RANK") && more) {
                OptionalLong v = Args.toLong(a[++j]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                rank = v.getAsLong();
                if (rank == 0) {
                    r.error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use"
                            + " negative to start from the end of the list");
                    return;
                }
            } else if (Args.is(a[j], "COUNT") && more) {
                OptionalLong v = Args.toLong(a[++j]);
                if (v.isEmpty() || v.getAsLong() < 0) {
                    r.error("ERR COUNT can't be negative");
                    return;
                }
                count = v.getAsLong();
            } else if (Args.is(a[j], "MAXLEN") && more) {
                OptionalLong v = Args.toLong(a[++j]);
                if (v.isEmpty() || v.getAsLong() < 0) {
                    r.error("ERR MAXLEN can't be negative");
                    return;
                }
                maxlen = v.getAsLong();
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            StoredList list = StoredList.read(store, a[1]);
            if (list == null) {
                if (count != -1) {
                    r.array(0);
                } else {
                    r.nullBulk();
                }
                return;
            }
            boolean fromTail = rank < 0;
            // Redis 7.0 negates a rank of LONG_MIN into itself, which every match count reaches: Math.abs does the same
            long want = Math.abs(rank);
            long n = list.size();
            long limit = maxlen;
            long wanted = count;
            List<Long> found = new ArrayList<>();
            long[] seen = {0, 0}; // elements looked at, matches
            list.scan(fromTail, (b, o, len) -> {
                if (limit != 0 && seen[0] >= limit) {
                    return true;
                }
                long i = fromTail ? n - 1 - seen[0] : seen[0];
                seen[0]++;
                if (Arrays.equals(b, o, o + len, a[2], 0, a[2].length) && ++seen[1] >= want) {
                    found.add(i);
                    return wanted == -1 || (wanted != 0 && seen[1] - want + 1 >= wanted);
                }
                return false;
            });
            if (count != -1) {
                r.array(found.size());
                found.forEach(r::integer);
            } else if (found.isEmpty()) {
                r.nullBulk();
            } else {
                r.integer(found.getFirst());
            }
        } finally {
            l.unlock();
        }
    }

    private void lmove(Client c, byte[][] a, Reply r) {
        int from = side(a[3], r);
        if (from < 0) {
            return;
        }
        int to = side(a[4], r);
        if (to < 0) {
            return;
        }
        move(c, a[1], a[2], from == 1, to == 1, r);
    }

    /**
     * LMOVE and RPOPLPUSH: the element is pushed to the destination before it is popped from the
     * source, so a kill between the two may leave it in both, never in neither.
     */
    private void move(Client c, byte[] src, byte[] dst, boolean fromLeft, boolean toLeft, Reply r) {
        byte[] moved = moveOne(ctx, c.db, src, dst, fromLeft, toLeft);
        if (moved == null) {
            r.nullBulk();
            return;
        }
        ctx.waits.ready(c.db, dst);
        r.bulk(moved);
    }

    /**
     * Moves one element from {@code src} to {@code dst} under both keys' locks.
     *
     * @return the element, or null if {@code src} has none
     * @throws ReplyException WRONGTYPE if either key holds another type (the destination is
     *     looked at only when the source has an element, as in Redis)
     */
    static byte[] moveOne(ServerContext ctx, int db, byte[] src, byte[] dst, boolean fromLeft, boolean toLeft) {
        KeyValueStore store = ctx.dbs.store(db);
        Lock[] ls = store.locks(src, dst);
        StringCommands.lockAll(ls);
        try {
            ListEnds ends = ListEnds.mine();
            if (!ends.read(store, src)) {
                return null;
            }
            byte[] end = Arrays.equals(src, dst) ? null : ends.end(fromLeft);
            if (end != null) {
                // both headers changed in their bytes where they can be: the destination's first, as below
                ListEnds to = ListEnds.second();
                if (!(to.read(store, dst) && to.push(store, toLeft, new byte[][] {end}, 0, 1))) {
                    StoredList.of(store, dst, to.entry()).push(toLeft, end);
                }
                ends.pop(store, fromLeft);
                moved(ctx.events, db, src, dst, fromLeft, toLeft, ends.count());
                return end;
            }
            StoredList from = StoredList.of(store, src, ends.entry());
            if (Arrays.equals(src, dst)) {
                // One list: pushed then popped through the same header (to the same end, the copy
                // just pushed is what goes, and the list reads as before)
                byte[] v = from.get(fromLeft ? 0 : from.size() - 1);
                from.push(toLeft, v);
                from.pop(fromLeft);
                moved(ctx.events, db, src, dst, fromLeft, toLeft, from);
                return v;
            }
            StoredList to = StoredList.readOrEmpty(store, dst);
            byte[] v = from.get(fromLeft ? 0 : from.size() - 1);
            to.push(toLeft, v);
            from.pop(fromLeft);
            moved(ctx.events, db, src, dst, fromLeft, toLeft, from);
            return v;
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /** LMOVE's events in Redis's order: the push to the destination, the pop from the source, its {@code del}. */
    private static void moved(KeyspaceEvents events, int db, byte[] src, byte[] dst, boolean fromLeft, boolean toLeft,
                              StoredList from) {
        moved(events, db, src, dst, fromLeft, toLeft, from.size());
    }

    /** As above, for a source left with {@code size} elements. */
    private static void moved(KeyspaceEvents events, int db, byte[] src, byte[] dst, boolean fromLeft, boolean toLeft,
                              long size) {
        events.fire(KeyspaceEvents.LIST, toLeft ? "lpush" : "rpush", db, dst);
        popped(events, db, src, fromLeft, size);
    }

    private void lmpop(Client c, byte[][] a, Reply r) {
        MultiPop m = MultiPop.parse(a, 1, r);
        if (m == null) {
            return;
        }
        if (!m.popFirst(ctx, c.db, r)) {
            r.nullArray();
        }
    }

    /**
     * LMPOP's and BLMPOP's arguments: {@code numkeys key... LEFT|RIGHT [COUNT count]}.
     *
     * @param keys  the keys, in order
     * @param left  LEFT
     * @param count how many to pop at most
     */
    record MultiPop(byte[][] keys, boolean left, long count) {

        /** @return the arguments from {@code a[at]} (numkeys) on, or null once the error is answered */
        static MultiPop parse(byte[][] a, int at, Reply r) {
            OptionalLong numkeys = Args.toLong(a[at]);
            if (numkeys.isEmpty() || numkeys.getAsLong() < 1) {
                r.error("ERR numkeys should be greater than 0");
                return null;
            }
            long whereAt = at + numkeys.getAsLong() + 1;
            if (whereAt >= a.length || whereAt < 0) {
                r.error(Errors.SYNTAX);
                return null;
            }
            int side = side(a[(int) whereAt], r);
            if (side < 0) {
                return null;
            }
            long count = -1;
            for (int j = (int) whereAt + 1; j < a.length; j++) {
                if (count == -1 && Args.is(a[j], "COUNT") && j + 1 < a.length) {
                    OptionalLong v = Args.toLong(a[++j]);
                    if (v.isEmpty() || v.getAsLong() < 1) {
                        r.error("ERR count should be greater than 0");
                        return null;
                    }
                    count = v.getAsLong();
                } else {
                    r.error(Errors.SYNTAX);
                    return null;
                }
            }
            return new MultiPop(Arrays.copyOfRange(a, at + 1, (int) whereAt), side == 1, count == -1 ? 1 : count);
        }

        /**
         * Pops from the first key with elements and answers {@code [key, [elements]]}.
         *
         * @return false if no key has any (nothing answered)
         * @throws ReplyException WRONGTYPE at the first key, in order, that holds another type
         */
        boolean popFirst(ServerContext ctx, int db, Reply r) {
            KeyValueStore store = ctx.dbs.store(db);
            for (byte[] key : keys) {
                Lock l = store.lock(key);
                l.lock();
                try {
                    StoredList list = StoredList.read(store, key);
                    if (list == null) {
                        continue;
                    }
                    List<byte[]> out = list.pop(left, count);
                    r.array(2);
                    r.bulk(key);
                    r.array(out.size());
                    out.forEach(r::bulk);
                    popped(ctx.events, db, key, left, list);
                    return true;
                } finally {
                    l.unlock();
                }
            }
            return false;
        }
    }
}
