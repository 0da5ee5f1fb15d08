package dev.colossal.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * GEOSEARCH, GEOSEARCHSTORE and the older GEORADIUS, GEORADIUSBYMEMBER (and their {@code _RO}
 * forms, STORE and STOREDIST), checked in Redis 7.0's order (the source key is looked up first,
 * the options read by {@link GeoQuery}, then their conflicts; a missing source answers empty). The members are read from the
 * score ranges of {@link GeoArea}'s cells and kept if within the {@link GeoShape}; with COUNT and
 * no order the nearest come first, as Redis forces ASC then.
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
        KeyValueStore.Entry e = SortedSetCommands.zset(db, a[keyAt]);
        ZSetCursor z = SortedSetCommands.cursor(db, a[keyAt], e);
        GeoQuery q = GeoQuery.parse(a, keyAt, kind, z);
        if (q == null) {
            r.error(Errors.SYNTAX);
            return;
        }
        String name = Errors.text(a[0]);
        if (q.store != null && (q.withDist || q.withHash || q.withCoord)) {
            r.error("ERR " + ((kind & GeoQuery.SEARCH_STORE) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                    + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
            return;
        }
        if ((kind & GeoQuery.SEARCH) != 0 && !q.from) {
            r.error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name);
            return;
        }
        if ((kind & GeoQuery.SEARCH) != 0 && !q.by) {
            r.error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name);
            return;
        }
        if (q.any && q.count == 0) {
            r.error("ERR the ANY argument requires COUNT argument");
            return;
        }
        if (q.store != null && (kind & GeoQuery.SEARCH_STORE) == 0) {
            // GEORADIUS ... STORE names its destination in the options: lock it with the source now
            Lock[] ls = db.locks(a[keyAt], q.store);
            StringCommands.lockAll(ls);
            try {
                KeyValueStore.Entry again = SortedSetCommands.zset(db, a[keyAt]);
                answer(c, q, SortedSetCommands.cursor(db, a[keyAt], again), r, "georadiusstore");
            } finally {
                StringCommands.unlockAll(ls);
            }
            return;
        }
        answer(c, q, z, r, "geosearchstore");
    }

    private void answer(Client c, GeoQuery q, ZSetCursor z, Reply r, String storeEvent) {
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

    /** The members of {@link GeoArea}'s cells within {@code shape}, in Redis's order; at most {@code limit} unless 0. */
    private static List<Point> find(ZSetCursor z, GeoShape shape, long limit) {
        int n = z.count();
        double[] scores = new double[n];
        int[] at = new int[n];
        z.rewind();
        while (z.next()) {
            scores[z.index()] = z.score();
            at[z.index()] = z.entryAt();
        }
        List<Point> found = new ArrayList<>();
        double[] xy = new double[2];
        for (long[] range : new GeoArea(shape).ranges()) {
            if (limit != 0 && found.size() >= limit) {
                break;
            }
            double min = range[0];
            double max = range[1];
            int i = firstAtLeast(scores, n, min);
            for (; i < n && scores[i] < max; i++) {
                GeoHash.decode(scores[i], xy);
                double d = shape.metersIfWithin(xy[0], xy[1]);
                if (Double.isNaN(d)) {
                    continue;
                }
                z.seek(i, at[i]);
                z.next();
                found.add(new Point(z.member(), scores[i], xy[0], xy[1], d));
                if (limit != 0 && found.size() >= limit) {
                    break;
                }
            }
        }
        return found;
    }

    /** @return the metres from the centre to {@code p} as a reply shows them (see {@link GeoShape#shownDistance}) */
    private static double shown(GeoShape shape, Point p) {
        return GeoShape.shownDistance(shape.lon(), shape.lat(), p.lon(), p.lat());
    }

    private static int firstAtLeast(double[] scores, int n, double min) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (scores[mid] < min) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
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
