package dev.colossal.server;

import java.util.OptionalLong;

/**
 * The options of one GEO search, read as Redis 7.0's {@code georadiusGeneric} reads them: the
 * fixed arguments of the old spellings (GEORADIUS's point, GEORADIUSBYMEMBER's member, their
 * radius), then the options in order, each invalid value answered with Redis's error at once.
 * What a spelling allows is its kind ({@link #BY_LONLAT}, ...).
 */
final class GeoQuery {

    /** What a command's spelling allows. */
    static final int BY_LONLAT = 1;
    static final int BY_MEMBER = 2;
    static final int SEARCH = 4;
    static final int SEARCH_STORE = 8;
    static final int NO_STORE = 16;

    static final int UNSORTED = 0;
    static final int ASC = 1;
    static final int DESC = 2;

    /** The centre, the shape, and the options as given; {@code from} and {@code by} say whether FROM* and BY* were. */
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

    /** @return the shape the query searches */
    GeoShape shape() {
        return new GeoShape(lon, lat, box, radius, width, height, toMeters);
    }

    /**
     * Reads the options after the fixed arguments as Redis's {@code georadiusGeneric} does, in
     * order; an invalid value throws Redis's error at once.
     *
     * @param z the source set, null if there is none
     * @return the options, or null for a syntax error
     */
    static GeoQuery parse(byte[][] a, int keyAt, int kind, GeoMembers z) {
        GeoQuery q = new GeoQuery();
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

    private static void center(GeoQuery q, GeoMembers z, byte[] member) {
        Double score = z.scoreOf(member);
        if (score == null) {
            throw new ReplyException("ERR could not decode requested zset member");
        }
        double[] xy = GeoHash.decode(score);
        q.lon = xy[0];
        q.lat = xy[1];
    }

    private static void radius(GeoQuery q, byte[][] a, int at) {
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
}
