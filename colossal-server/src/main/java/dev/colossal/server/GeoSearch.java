package dev.colossal.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.concurrent.locks.Lock;

/**
 * GEOSEARCH, GEOSEARCHSTORE and the older GEORADIUS, GEORADIUSBYMEMBER (and their {@code _RO}
 * forms, STORE and STOREDIST), checked in Redis 7.0's order (the source key is looked up first,
 * the options read by {@link GeoQuery}, then their conflicts; a missing source answers empty). The members are read from the
 * score ranges of {@link GeoArea}'s cells ({@link GeoMembers}: a big set's score tree from each
 * range's first rank, O(log n) a cell plus its members) and kept if within the {@link GeoShape};
 * with COUNT and no order the nearest come first, as Redis forces ASC then.
 */
final class GeoSearch {

    private final ServerContext ctx;

    GeoSearch(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> w = List.of("write", "denyoom", "movablekeys");
        List<String> ro = List.of("readonly");
        t.add("georadius", -6, w, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, GeoQuery.BY_LONLAT));
        t.add("georadius_ro", -6, ro, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, GeoQuery.BY_LONLAT | GeoQuery.NO_STORE));
        t.add("georadiusbymember", -5, w, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, GeoQuery.BY_MEMBER));
        t.add("georadiusbymember_ro", -5, ro, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, GeoQuery.BY_MEMBER | GeoQuery.NO_STORE));
        t.add("geosearch", -7, ro, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, GeoQuery.SEARCH));
        t.add("geosearchstore", -8, List.of("write", "denyoom"), 1, 2, 1,
                (c, a, r) -> search(c, a, r, 2, GeoQuery.SEARCH | GeoQuery.SEARCH_STORE));
    }

    /** A member found: its cell's score, its centre and its distance in metres from the shape's centre. */
    private record Point(byte[] member, double score, double lon, double lat, double meters) {}

    private void search(Client c, byte[][] a, Reply r, int keyAt, int kind) {
        if ((kind & GeoQuery.SEARCH_STORE) != 0) {
            KeyValueStore db = ctx.db(c);
            Lock[] ls = db.locks(a[1], a[2]);
            StringCommands.lockAll(ls);
            try {
                run(c, a, r, keyAt, kind);
            } finally {
                StringCommands.unlockAll(ls);
            }
        } else {
            run(c, a, r, keyAt, kind);
        }
    }

    private void run(Client c, byte[][] a, Reply r, int keyAt, int kind) {
        KeyValueStore db = ctx.db(c);
        GeoQuery[] storing = new GeoQuery[1];
        withMembers(db, a[keyAt], z -> {
            GeoQuery q = checked(a, keyAt, kind, z, r);
            if (q == null) {
                return;
            }
            if (q.store != null && (kind & GeoQuery.SEARCH_STORE) == 0) {
                storing[0] = q; // the destination is locked before the source: see below
                return;
            }
            answer(c, q, z, r, "geosearchstore");
        });
        if (storing[0] == null) {
            return;
        }
        // GEORADIUS ... STORE names its destination in the options: lock it with the source (in the
        // locks' order, so not while a big source's lock is held), then read the source again
        Lock[] ls = db.locks(a[keyAt], storing[0].store);
        StringCommands.lockAll(ls);
        try {
            withMembers(db, a[keyAt], z -> answer(c, storing[0], z, r, "georadiusstore"));
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /**
     * Runs {@code action} on the sorted set under {@code key}, or on null if there is none: a big
     * set under its key's lock, as its reads need.
     */
    private static void withMembers(KeyValueStore db, byte[] key, Consumer<GeoMembers> action) {
        KeyValueStore.Entry e = SortedSetCommands.zset(db, key);
        if (SortedSetCommands.big(db, key, e, z -> action.accept(GeoMembers.of(z)))) {
            return;
        }
        e = SortedSetCommands.small(db, key, e);
        action.accept(e == null ? null : GeoMembers.of(new ZSetCursor(e)));
    }

    /**
     * Reads the options ({@link GeoQuery}) and checks their conflicts, in Redis's order.
     *
     * @param z the source set, null if there is none
     * @return the query, or null once an error is answered
     */
    private static GeoQuery checked(byte[][] a, int keyAt, int kind, GeoMembers z, Reply r) {
        GeoQuery q = GeoQuery.parse(a, keyAt, kind, z);
        if (q == null) {
            r.error(Errors.SYNTAX);
            return null;
        }
        String name = Errors.text(a[0]);
        if (q.store != null && (q.withDist || q.withHash || q.withCoord)) {
            r.error("ERR " + ((kind & GeoQuery.SEARCH_STORE) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                    + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
            return null;
        }
        if ((kind & GeoQuery.SEARCH) != 0 && !q.from) {
            r.error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name);
            return null;
        }
        if ((kind & GeoQuery.SEARCH) != 0 && !q.by) {
            r.error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name);
            return null;
        }
        if (q.any && q.count == 0) {
            r.error("ERR the ANY argument requires COUNT argument");
            return null;
        }
        return q;
    }

    private void answer(Client c, GeoQuery q, GeoMembers z, Reply r, String storeEvent) {
        KeyValueStore db = ctx.db(c);
        if (z == null) {
            if (q.store == null) {
                r.array(0);
            } else {
                deleted(db, q.store);
                r.integer(0);
            }
            return;
        }
        if (q.count != 0 && q.sort == GeoQuery.UNSORTED && !q.any) {
            q.sort = GeoQuery.ASC;
        }
        GeoShape shape = q.shape();
        List<Point> found = find(z, shape, q.any ? q.count : 0);
        if (q.sort != GeoQuery.UNSORTED) {
            // A stable sort, as glibc's qsort (a merge sort) leaves equal distances in the order found
            Comparator<Point> near = Comparator.comparingDouble(Point::meters);
            found.sort(q.sort == GeoQuery.ASC ? near : near.reversed());
        }
        int n = (int) (q.count == 0 ? found.size() : Math.min(found.size(), q.count));
        if (q.store == null) {
            reply(q, shape, found, n, r);
            return;
        }
        if (n == 0) {
            deleted(db, q.store);
            r.integer(0);
            return;
        }
        double[] scores = new double[n];
        byte[][] members = new byte[n][];
        for (int i = 0; i < n; i++) {
            Point p = found.get(i);
            scores[i] = q.storeDist ? shown(shape, p) / shape.toMeters() : p.score();
            members[i] = p.member();
        }
        SortedSetCommands.save(db, q.store, ZSetValue.builtUnder(scores, members, n, ctx.zsetMaxListpackEntries),
                StoredValue.NO_EXPIRY);
        ctx.events.fire(KeyspaceEvents.ZSET, storeEvent, db, q.store);
        SortedSetCommands.ready(ctx, db, q.store);
        r.integer(n);
    }

    private void deleted(KeyValueStore db, byte[] key) {
        if (db.delete(key)) {
            ctx.events.fire(KeyspaceEvents.GENERIC, "del", db, key);
        }
    }

    /**
     * The members of {@link GeoArea}'s cells within {@code shape}, in Redis's order (cell by cell,
     * each in score order); at most {@code limit} unless 0.
     */
    private static List<Point> find(GeoMembers z, GeoShape shape, long limit) {
        List<Point> found = new ArrayList<>();
        double[] xy = new double[2];
        for (long[] range : new GeoArea(shape).ranges()) {
            if (limit != 0 && found.size() >= limit) {
                break;
            }
            z.range(range[0], range[1], (score, member) -> {
                GeoHash.decode(score, xy);
                double d = shape.metersIfWithin(xy[0], xy[1]);
                if (!Double.isNaN(d)) {
                    found.add(new Point(member, score, xy[0], xy[1], d));
                }
                return limit == 0 || found.size() < limit;
            });
        }
        return found;
    }

    /** @return the metres from the centre to {@code p} as a reply shows them (see {@link GeoShape#shownDistance}) */
    private static double shown(GeoShape shape, Point p) {
        return GeoShape.shownDistance(shape.lon(), shape.lat(), p.lon(), p.lat());
    }

    private static void reply(GeoQuery q, GeoShape shape, List<Point> found, int n, Reply r) {
        int options = (q.withDist ? 1 : 0) + (q.withHash ? 1 : 0) + (q.withCoord ? 1 : 0);
        r.array(n);
        for (int i = 0; i < n; i++) {
            Point p = found.get(i);
            if (options > 0) {
                r.array(options + 1);
            }
            r.bulk(p.member());
            if (q.withDist) {
                GeoCommands.distance(r, shown(shape, p) / shape.toMeters());
            }
            if (q.withHash) {
                r.integer((long) p.score());
            }
            if (q.withCoord) {
                GeoCommands.position(r, new double[] {p.lon(), p.lat()});
            }
        }
    }
}
