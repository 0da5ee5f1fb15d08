package dev.colossal.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * GEOSEARCH, GEOSEARCHSTORE and the older GEORADIUS, GEORADIUSBYMEMBER (and their {@code _RO}
 * forms, STORE and STOREDIST), parsed in Redis 7.0's order of checks (the source key is looked up
 * first; a missing one answers empty once the options parsed). The members are read from the
 * score ranges of {@link GeoArea}'s cells and kept if within the {@link GeoShape}; with COUNT and
 * no order the nearest come first, as Redis forces ASC then.
 */
final class GeoSearch {

    /** What a command's spelling allows. */
    private static final int BY_LONLAT = 1;
    private static final int BY_MEMBER = 2;
    private static final int SEARCH = 4;
    private static final int SEARCH_STORE = 8;
    private static final int NO_STORE = 16;

    private static final int UNSORTED = 0;
    private static final int ASC = 1;
    private static final int DESC = 2;

    private final ServerContext ctx;

    GeoSearch(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> w = List.of("write", "denyoom", "movablekeys");
        List<String> ro = List.of("readonly");
        t.add("georadius", -6, w, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, BY_LONLAT));
        t.add("georadius_ro", -6, ro, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, BY_LONLAT | NO_STORE));
        t.add("georadiusbymember", -5, w, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, BY_MEMBER));
        t.add("georadiusbymember_ro", -5, ro, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, BY_MEMBER | NO_STORE));
        t.add("geosearch", -7, ro, 1, 1, 1, (c, a, r) -> search(c, a, r, 1, SEARCH));
        t.add("geosearchstore", -8, List.of("write", "denyoom"), 1, 2, 1,
                (c, a, r) -> search(c, a, r, 2, SEARCH | SEARCH_STORE));
    }

    /**
     * COMMAND GETKEYS's reading of GEORADIUS's and GEORADIUSBYMEMBER's destinations, by Redis 7.0's
     * key specs: the key after the first STORE, then the one after the first STOREDIST, looked for
     * from the first option on ({@code from}: 6, or 5 BYMEMBER), nothing else checked.
     *
     * @return the destinations, none, one or two
     */
    static List<byte[]> storeKeys(byte[][] a, int from) {
        List<byte[]> keys = new ArrayList<>(2);
        for (String keyword : new String[] {"STORE", "STOREDIST"}) {
            for (int i = from; i + 1 < a.length; i++) {
                if (Args.is(a[i], keyword)) {
                    keys.add(a[i + 1]);
                    break;
                }
            }
        }
        return keys;
    }

    /** A member found: its cell's score, its centre and its distance in metres from the shape's centre. */
    private record Point(byte[] member, double score, double lon, double lat, double meters) {}

    /** The options of one search, as parsed. */
    private static final class Query {
        double lon;
        double lat;
        boolean box;
        double radius;
        double width;
        double height;
        double toMeters;
        boolean from;
        boolean by;
        byte[] store;
        boolean storeDist;
        boolean withDist;
        boolean withHash;
        boolean withCoord;
        boolean any;
        int sort = UNSORTED;
        long count;

        GeoShape shape() {
            return new GeoShape(lon, lat, box, radius, width, height, toMeters);
        }
    }

    private void search(Client c, byte[][] a, Reply r, int keyAt, int kind) {
        if ((kind & SEARCH_STORE) != 0) {
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
        ZSetCursor z = e == null ? null : new ZSetCursor(e);
        Query q = parse(a, keyAt, kind, z);
        if (q == null) {
            r.error(Errors.SYNTAX);
            return;
        }
        String name = Errors.text(a[0]);
        if (q.store != null && (q.withDist || q.withHash || q.withCoord)) {
            r.error("ERR " + ((kind & SEARCH_STORE) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                    + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
            return;
        }
        if ((kind & SEARCH) != 0 && !q.from) {
            r.error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name);
            return;
        }
        if ((kind & SEARCH) != 0 && !q.by) {
            r.error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name);
            return;
        }
        if (q.any && q.count == 0) {
            r.error("ERR the ANY argument requires COUNT argument");
            return;
        }
        if (q.store != null && (kind & SEARCH_STORE) == 0) {
            // GEORADIUS ... STORE names its destination in the options: lock it with the source now
            Lock[] ls = db.locks(a[keyAt], q.store);
            StringCommands.lockAll(ls);
            try {
                KeyValueStore.Entry again = SortedSetCommands.zset(db, a[keyAt]);
                answer(c, q, again == null ? null : new ZSetCursor(again), r, "georadiusstore");
            } finally {
                StringCommands.unlockAll(ls);
            }
            return;
        }
        answer(c, q, z, r, "geosearchstore");
    }

    /**
     * Reads the options after the fixed arguments as Redis's {@code georadiusGeneric} does, in
     * order; an invalid value throws Redis's error at once.
     *
     * @return the options, or null for a syntax error
     */
    private static Query parse(byte[][] a, int keyAt, int kind, ZSetCursor z) {
        Query q = new Query();
        int base;
        if ((kind & BY_LONLAT) != 0) {
            base = 6;
            double[] xy = GeoCommands.lonLat(a, 2);
            q.lon = xy[0];
            q.lat = xy[1];
            radius(q, a, base - 2);
        } else if ((kind & BY_MEMBER) != 0) {
            base = 5;
            if (z != null) { // with no source there is nothing to search: Redis reads no more than the options
                center(q, z, a[2]);
                radius(q, a, base - 2);
            }
        } else {
            base = keyAt + 1;
            if ((kind & SEARCH_STORE) != 0) {
                q.store = a[1];
            }
        }
        boolean byMember = false;
        for (int i = base; i < a.length; i++) {
            byte[] o = a[i];
            int left = a.length - i - 1;
            boolean search = (kind & SEARCH) != 0;
            if (Args.is(o, "WITHDIST")) {
                q.withDist = true;
            } else if (Args.is(o, "WITHHASH")) {
                q.withHash = true;
            } else if (Args.is(o, "WITHCOORD")) {
                q.withCoord = true;
            } else if (Args.is(o, "ANY")) {
                q.any = true;
            } else if (Args.is(o, "ASC")) {
                q.sort = ASC;
            } else if (Args.is(o, "DESC")) {
                q.sort = DESC;
            } else if (Args.is(o, "COUNT") && left >= 1) {
                OptionalLong n = Args.toLong(a[++i]);
                if (n.isEmpty()) {
                    throw new ReplyException(Errors.NOT_INTEGER);
                }
                if (n.getAsLong() <= 0) {
                    throw new ReplyException("ERR COUNT must be > 0");
                }
                q.count = n.getAsLong();
            } else if ((Args.is(o, "STORE") || Args.is(o, "STOREDIST")) && left >= 1 && (kind & (NO_STORE | SEARCH)) == 0) {
                q.storeDist = Args.is(o, "STOREDIST");
                q.store = a[++i];
            } else if (Args.is(o, "STOREDIST") && (kind & SEARCH_STORE) != 0) {
                q.storeDist = true;
            } else if (Args.is(o, "FROMMEMBER") && left >= 1 && search && !(q.from && !byMember)) {
                if (z != null) {
                    center(q, z, a[i + 1]);
                }
                q.from = true;
                byMember = true;
                i++;
            } else if (Args.is(o, "FROMLONLAT") && left >= 2 && search && !byMember) {
                double[] xy = GeoCommands.lonLat(a, i + 1);
                q.lon = xy[0];
                q.lat = xy[1];
                q.from = true;
                i += 2;
            } else if (Args.is(o, "BYRADIUS") && left >= 2 && search && !(q.by && q.box)) {
                radius(q, a, i + 1);
                q.by = true;
                i += 2;
            } else if (Args.is(o, "BYBOX") && left >= 3 && search && !(q.by && !q.box)) {
                double w = number(a[i + 1], "ERR need numeric width");
                double h = number(a[i + 2], "ERR need numeric height");
                if (h < 0 || w < 0) {
                    throw new ReplyException("ERR height or width cannot be negative");
                }
                q.width = w;
                q.height = h;
                q.toMeters = GeoCommands.unit(a[i + 3]);
                q.box = true;
                q.by = true;
                i += 3;
            } else {
                return null;
            }
        }
        return q;
    }

    private static void center(Query q, ZSetCursor z, byte[] member) {
        double[] xy = GeoCommands.positionOf(z, member);
        if (xy == null) {
            throw new ReplyException("ERR could not decode requested zset member");
        }
        q.lon = xy[0];
        q.lat = xy[1];
    }

    private static void radius(Query q, byte[][] a, int at) {
        double d = number(a[at], "ERR need numeric radius");
        if (d < 0) {
            throw new ReplyException("ERR radius cannot be negative");
        }
        q.radius = d;
        q.toMeters = GeoCommands.unit(a[at + 1]);
        q.box = false;
    }

    private static double number(byte[] a, String error) {
        double d = ZScore.parse(a);
        if (Double.isNaN(d)) {
            throw new ReplyException(error);
        }
        return d;
    }

    private void answer(Client c, Query q, ZSetCursor z, Reply r, String storeEvent) {
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
        if (q.count != 0 && q.sort == UNSORTED && !q.any) {
            q.sort = ASC;
        }
        GeoShape shape = q.shape();
        List<Point> found = find(z, shape, q.any ? q.count : 0);
        if (q.sort != UNSORTED) {
            // A stable sort, as glibc's qsort (a merge sort) leaves equal distances in the order found
            Comparator<Point> near = Comparator.comparingDouble(Point::meters);
            found.sort(q.sort == ASC ? near : near.reversed());
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
        SortedSetCommands.save(db, q.store, ZSetValue.built(scores, members, n), StoredValue.NO_EXPIRY);
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

    private static void reply(Query q, GeoShape shape, List<Point> found, int n, Reply r) {
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
