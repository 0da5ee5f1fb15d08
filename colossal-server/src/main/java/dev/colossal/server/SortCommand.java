package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * SORT and SORT_RO on lists, sets and sorted sets, with Redis 7.0's options, order of checks and
 * replies: BY (a pattern, a hash field {@code ->}, or a constant for no sorting), LIMIT, GET
 * (repeatable, {@code #}, {@code ->}), ASC, DESC, ALPHA and STORE (a list; not for SORT_RO).
 *
 * <p>BY and GET read keys the elements name, unknown until the elements are read. So that the
 * result is one consistent view, as Redis's is, SORT holds the {@linkplain KeyLocks#multiStripe()
 * multi-stripe lock} and its own keys' stripes, and locks each key a pattern names as it reads
 * it, all to its end: what a script does with a key it did not declare.
 */
final class SortCommand {

    private final ServerContext ctx;

    SortCommand(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("sort", -2, List.of("write", "denyoom", "movablekeys"), 1, 1, 1, (c, a, r) -> sort(c, a, r, false));
        t.add("sort_ro", -2, List.of("readonly", "movablekeys"), 1, 1, 1, (c, a, r) -> sort(c, a, r, true));
    }

    /** SORT's options as parsed. */
    private static final class Options {
        boolean desc;
        boolean alpha;
        long limitStart;
        long limitCount = -1;
        byte[] store;
        byte[] by;
        boolean dontSort;
        final List<byte[]> gets = new ArrayList<>();
    }

    /** An element to sort and what it sorts by: a number, or bytes (ALPHA BY; null if the key is missing). */
    private static final class Item {
        final byte[] element;
        double score;
        byte[] by;

        Item(byte[] element) {
            this.element = element;
        }
    }

    private void sort(Client c, byte[][] a, Reply r, boolean readOnly) {
        Options o = parse(a, readOnly);
        if (o == null) {
            r.error(Errors.SYNTAX);
            return;
        }
        KeyValueStore db = ctx.db(c);
        KeyLocks locks = ctx.dbs.locks();
        boolean patterns = o.by != null || !o.gets.isEmpty();
        Lock multi = patterns ? locks.multiStripe() : null;
        if (multi != null) {
            multi.lock();
        }
        Lock[] stripes = o.store == null ? db.locks(a[1]) : db.locks(a[1], o.store);
        StringCommands.lockAll(stripes);
        List<Lock> named = new ArrayList<>();
        try {
            SortPatterns lookup = new SortPatterns(db, key -> {
                Lock l = locks.lockUnlessHeld(key);
                if (l != null) {
                    named.add(l);
                }
            });
            run(c, a[1], o, db, lookup, r);
        } finally {
            StringCommands.unlockAll(named.toArray(Lock[]::new));
            StringCommands.unlockAll(stripes);
            if (multi != null) {
                multi.unlock();
            }
        }
    }

    /** @return the options after the key, or null for a syntax error; a bad LIMIT throws Redis's error */
    private static Options parse(byte[][] a, boolean readOnly) {
        Options o = new Options();
        for (int j = 2; j < a.length; j++) {
            int left = a.length - j - 1;
            if (Args.is(a[j], "ASC")) {
                o.desc = false;
            } else if (Args.is(a[j], "DESC")) {
                o.desc = true;
            } else if (Args.is(a[j], "ALPHA")) {
                o.alpha = true;
            } else if (Args.is(a[j], "LIMIT") && left >= 2) {
                OptionalLong start = Args.toLong(a[j + 1]);
                OptionalLong count = start.isEmpty() ? start : Args.toLong(a[j + 2]);
                if (count.isEmpty()) {
                    throw new ReplyException(Errors.NOT_INTEGER);
                }
                o.limitStart = start.getAsLong();
                o.limitCount = count.getAsLong();
                j += 2;
            } else if (!readOnly && Args.is(a[j], "STORE") && left >= 1) {
                o.store = a[++j];
            } else if (Args.is(a[j], "BY") && left >= 1) {
                o.by = a[++j];
                // once a constant BY asked for no sorting, a later pattern does not undo it, as in Redis
                o.dontSort |= !SortPatterns.hasStar(o.by);
            } else if (Args.is(a[j], "GET") && left >= 1) {
                o.gets.add(a[++j]);
            } else {
                return null;
            }
        }
        return o;
    }

    private void run(Client c, byte[] key, Options o, KeyValueStore db, SortPatterns lookup, Reply r) {
        KeyValueStore.Entry e = db.get(key);
        byte type = e == null ? StoredValue.LIST : e.type();
        if (type != StoredValue.LIST && type != StoredValue.SET && type != StoredValue.ZSET) {
            throw new ReplyException(Errors.WRONGTYPE);
        }
        boolean dontSort = o.dontSort;
        boolean alpha = o.alpha;
        byte[] by = o.by;
        if (dontSort && type == StoredValue.SET && (o.store != null || c.denyBlocking)) {
            // a set has no order of its own: what is stored, or what a script sees, must not depend on its layout
            dontSort = false;
            alpha = true;
            by = null;
        }
        List<byte[]> all = elements(db, key, e, type);
        int n = all.size();
        long start = o.limitStart < 0 ? 0 : o.limitStart;
        long end = o.limitCount < 0 ? n - 1 : start + o.limitCount - 1;
        if (start >= n) {
            start = n - 1;
            end = n - 2;
        }
        if (end >= n) {
            end = n - 1;
        }
        List<Item> items = new ArrayList<>(n);
        if (dontSort && type != StoredValue.SET) {
            // the stored order, LIMIT taken from the end for DESC
            for (long i = start; i <= end; i++) {
                items.add(new Item(all.get((int) (o.desc ? n - 1 - i : i))));
            }
            end -= start;
            start = 0;
        } else {
            for (byte[] element : all) {
                items.add(new Item(element));
            }
        }
        if (!dontSort) {
            boolean failed = false;
            for (Item it : items) {
                byte[] v = by == null ? it.element : lookup.find(by, it.element);
                if (v == null) {
                    continue;
                }
                if (alpha) {
                    it.by = by == null ? null : v;
                } else {
                    it.score = ZScore.parseSortKey(v);
                    failed |= Double.isNaN(it.score);
                }
            }
            if (failed) {
                r.error("ERR One or more scores can't be converted into double");
                return;
            }
            Comparator<Item> order = order(alpha, by != null, o.store != null);
            items.sort(o.desc ? order.reversed() : order);
        }
        int from = (int) start;
        int count = (int) Math.max(0, end - start + 1);
        List<byte[]> result = result(items, from, count, o.gets, lookup);
        if (o.store == null) {
            reply(result, r);
        } else {
            store(db, o.store, result, r);
        }
    }

    /** The elements of the list, set or sorted set {@code e} (none if absent), in their stored order. */
    private static List<byte[]> elements(KeyValueStore db, byte[] key, KeyValueStore.Entry e, byte type) {
        List<byte[]> all = new ArrayList<>();
        if (e == null) {
            return all;
        }
        if (type == StoredValue.LIST) {
            StoredList l = StoredList.read(db, key);
            if (l != null) {
                all.addAll(l.range(0, l.size()));
            }
        } else if (type == StoredValue.SET) {
            all.addAll(SetCommands.members(db, key, e));
        } else {
            ZSetCursor z = SortedSetCommands.cursor(db, key, e);
            while (z.next()) {
                all.add(z.member());
            }
        }
        return all;
    }

    /**
     * Redis's order: by number, equal numbers by their elements' bytes; or ALPHA by the BY values
     * (a missing one first) or by the elements. Text compares as bytes when storing and as C
     * strings (strcoll in the C locale: to the first NUL) when answering, as Redis compares them.
     */
    private static Comparator<Item> order(boolean alpha, boolean byPattern, boolean storing) {
        Comparator<byte[]> text = storing ? Arrays::compareUnsigned : SortCommand::compareCStrings;
        if (!alpha) {
            return (x, y) -> x.score > y.score ? 1 : x.score < y.score ? -1 : Arrays.compareUnsigned(x.element, y.element);
        }
        if (byPattern) {
            return (x, y) -> x.by == null || y.by == null ? (x.by == y.by ? 0 : x.by == null ? -1 : 1) : text.compare(x.by, y.by);
        }
        return (x, y) -> text.compare(x.element, y.element);
    }

    private static int compareCStrings(byte[] x, byte[] y) {
        return Arrays.compareUnsigned(x, 0, SortPatterns.cLength(x), y, 0, SortPatterns.cLength(y));
    }

    /**
     * The result in order: each element, or what each GET gives for it (null where it gives nothing).
     */
    private static List<byte[]> result(List<Item> items, int from, int count, List<byte[]> gets, SortPatterns lookup) {
        List<byte[]> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            byte[] element = items.get(i).element;
            if (gets.isEmpty()) {
                out.add(element);
            }
            for (byte[] get : gets) {
                out.add(lookup.find(get, element));
            }
        }
        return out;
    }

    private static void reply(List<byte[]> result, Reply r) {
        r.array(result.size());
        for (byte[] v : result) {
            if (v == null) {
                r.nullBulk();
            } else {
                r.bulk(v);
            }
        }
    }

    /** STORE: the result as a list under {@code dst} (a missing GET as ""), or {@code dst} deleted if it is empty. */
    private void store(KeyValueStore db, byte[] dst, List<byte[]> result, Reply r) {
        result.replaceAll(v -> v == null ? new byte[0] : v);
        if (!result.isEmpty()) {
            StoredList.load(db, dst, result, StoredValue.NO_EXPIRY);
            ctx.events.fire(KeyspaceEvents.LIST, "sortstore", db, dst);
            ctx.waits.ready(ctx.dbs.indexOf(db), dst); // a client blocked in BLPOP on dst takes from it
        } else if (db.delete(dst)) {
            ctx.events.fire(KeyspaceEvents.GENERIC, "del", db, dst);
        }
        r.integer(result.size());
    }
}
