package dev.colossal.server;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * GEOADD, GEOPOS, GEODIST and GEOHASH with Redis 7.0's replies and errors. A GEO set is a sorted
 * set whose scores are {@link GeoHash} cells: GEOADD is ZADD of those scores (so its keyspace
 * event is {@code zadd}, and ZRANGE, ZREM and the rest work on GEO sets), and every reply gives a
 * member's cell centre, not the point it was added at, as Redis does. Searches are {@link GeoSearch}'s.
 */
final class GeoCommands {

    private static final String UNIT = "ERR unsupported unit provided. please use M, KM, FT, MI";

    private final ServerContext ctx;
    private final SortedSetCommands zsets;

    GeoCommands(ServerContext ctx, SortedSetCommands zsets) {
        this.ctx = ctx;
        this.zsets = zsets;
    }

    void register(CommandTable t) {
        List<String> ro = List.of("readonly");
        t.add("geoadd", -5, List.of("write", "denyoom"), 1, 1, 1, this::geoadd);
        t.add("geopos", -2, ro, 1, 1, 1, this::geopos);
        t.add("geodist", -4, ro, 1, 1, 1, this::geodist);
        t.add("geohash", -2, ro, 1, 1, 1, this::geohash);
        new GeoSearch(ctx).register(t);
    }

    /**
     * Reads a longitude and a latitude from {@code a[at]} and {@code a[at + 1]} as Redis does for
     * GEOADD and FROMLONLAT.
     *
     * @return {lon, lat}
     * @throws ReplyException "not a valid float", or Redis's invalid pair error
     */
    static double[] lonLat(byte[][] a, int at) {
        double lon = ZScore.parse(a[at]);
        double lat = Double.isNaN(lon) ? lon : ZScore.parse(a[at + 1]);
        if (Double.isNaN(lat)) {
            throw new ReplyException(Errors.NOT_FLOAT);
        }
        if (!GeoHash.valid(lon, lat)) {
            throw new ReplyException("ERR invalid longitude,latitude pair " + fixed(lon, 6) + "," + fixed(lat, 6));
        }
        return new double[] {lon, lat};
    }

    /**
     * @return the metres in the unit {@code a} (m, km, ft, mi, any case)
     * @throws ReplyException Redis's unsupported unit error
     */
    static double unit(byte[] a) {
        if (Args.is(a, "M")) {
            return 1;
        } else if (Args.is(a, "KM")) {
            return 1000;
        } else if (Args.is(a, "FT")) {
            return 0.3048;
        } else if (Args.is(a, "MI")) {
            return 1609.34;
        }
        throw new ReplyException(UNIT);
    }

    /** C's {@code %.Nf} of {@code d}: what Redis prints distances (N = 4) and refused coordinates (N = 6) with. */
    static String fixed(double d, int decimals) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        String s = new BigDecimal(d).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        return (d < 0 || (d == 0 && 1 / d < 0)) && !s.startsWith("-") ? "-" + s : s;
    }

    /** Answers a distance as Redis does: a bulk string with four decimals, in RESP3 too. */
    static void distance(Reply r, double d) {
        r.bulk(fixed(d, 4));
    }

    /**
     * Answers a coordinate as Redis's {@code addReplyHumanLongDouble}: {@code %.17Lf} without its
     * trailing zeros (a bulk string in RESP2, a RESP3 double).
     */
    static void coordinate(Reply r, double d) {
        String s = new BigDecimal(d).setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        if (s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') {
                end--;
            }
            if (s.charAt(end - 1) == '.') {
                end--;
            }
            s = s.substring(0, end);
        }
        if (d < 0 && !s.startsWith("-") && !s.equals("0")) {
            s = "-" + s;
        }
        if (r.protocol >= 3) {
            r.append((',' + s + "\r\n").getBytes(StandardCharsets.US_ASCII));
        } else {
            r.bulk(s);
        }
    }

    /** Answers the {lon, lat} pair of a member's cell centre. */
    static void position(Reply r, double[] xy) {
        r.array(2);
        coordinate(r, xy[0]);
        coordinate(r, xy[1]);
    }

    /** GEOADD: its options, then every pair checked, then ZADD of the cells' scores. */
    private void geoadd(Client c, byte[][] a, Reply r) {
        int at = 2;
        boolean nx = false;
        boolean xx = false;
        while (at < a.length) {
            if (Args.is(a[at], "NX")) {
                nx = true;
            } else if (Args.is(a[at], "XX")) {
                xx = true;
            } else if (!Args.is(a[at], "CH")) {
                break;
            }
            at++;
        }
        if ((a.length - at) % 3 != 0 || (xx && nx)) {
            r.error(Errors.SYNTAX);
            return;
        }
        int elements = (a.length - at) / 3;
        byte[][] zadd = new byte[at + 2 * elements][];
        System.arraycopy(a, 0, zadd, 0, at);
        zadd[0] = Args.bytes("zadd");
        for (int i = 0; i < elements; i++) {
            double[] xy = lonLat(a, at + 3 * i);
            zadd[at + 2 * i] = Args.bytes(Long.toString(GeoHash.score(xy[0], xy[1])));
            zadd[at + 2 * i + 1] = a[at + 3 * i + 2];
        }
        zsets.zadd(c, zadd, r);
    }

    /**
     * @return the scores of {@code a[from..]} in the sorted set under {@code key}, null where absent
     *     (all null for a missing key): a big set looks each up in its member tree, O(log n) each,
     *     rather than being read whole for a few members
     */
    private Double[] scores(Client c, byte[] key, byte[][] a, int from) {
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = SortedSetCommands.zset(store, key);
        Double[] out = new Double[a.length - from];
        if (SortedSetCommands.big(store, key, e, z -> {
            for (int i = from; i < a.length; i++) {
                out[i - from] = z.scoreOf(a[i]);
            }
        })) {
            return out;
        }
        ZSetCursor z = SortedSetCommands.cursor(store, key, SortedSetCommands.small(store, key, e));
        for (int i = from; i < a.length; i++) {
            out[i - from] = z != null && z.find(a[i]) ? z.score() : null;
        }
        return out;
    }

    private void geopos(Client c, byte[][] a, Reply r) {
        Double[] scores = scores(c, a[1], a, 2);
        r.array(scores.length);
        for (Double s : scores) {
            if (s == null) {
                r.nullArray();
            } else {
                position(r, GeoHash.decode(s));
            }
        }
    }

    private void geodist(Client c, byte[][] a, Reply r) {
        double toMeters = 1;
        if (a.length == 5) {
            toMeters = unit(a[4]);
        } else if (a.length > 5) {
            r.error(Errors.SYNTAX);
            return;
        }
        Double[] scores = scores(c, a[1], Arrays.copyOf(a, 4), 2);
        if (scores[0] == null || scores[1] == null) {
            r.nullBulk();
            return;
        }
        double[] p1 = GeoHash.decode(scores[0]);
        double[] p2 = GeoHash.decode(scores[1]);
        distance(r, GeoShape.shownDistance(p1[0], p1[1], p2[0], p2[1]) / toMeters);
    }

    private void geohash(Client c, byte[][] a, Reply r) {
        Double[] scores = scores(c, a[1], a, 2);
        r.array(scores.length);
        for (Double s : scores) {
            if (s == null) {
                r.nullBulk();
            } else {
                r.bulk(GeoHash.standard(s));
            }
        }
    }
}
