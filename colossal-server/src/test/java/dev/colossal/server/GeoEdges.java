package dev.colossal.server;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Points and searches where a GEO search's cells are easy to get wrong: on the edges of the
 * geohash grid's cells (a score that is exactly a cell's first, or its last), at longitude ±180,
 * at the poles' latitude limits and past ±66 and ±80 (where Redis coarsens its step), in one
 * dense city, and repeated (equal scores, ordered by member); searches from such places with
 * radii and boxes from nothing to more than the Earth. Coordinates are written in full, so a
 * point lands exactly on an edge.
 */
final class GeoEdges {

    private static final String[] UNITS = {"m", "km", "mi", "ft"};
    private static final double LAT_LIMIT = 85.05112878;

    private GeoEdges() {}

    /** @return GEOADD commands for {@code n} points named {@code p0}, {@code p1}, ... into {@code key}, 100 to a command */
    static List<String[]> fill(SplittableRandom r, String key, int n) {
        List<String[]> out = new ArrayList<>();
        List<String> cmd = null;
        for (int i = 0; i < n; i++) {
            if (i % 100 == 0) {
                if (cmd != null) {
                    out.add(cmd.toArray(String[]::new));
                }
                cmd = new ArrayList<>(List.of("GEOADD", key));
            }
            double[] p = point(r);
            cmd.addAll(List.of(text(p[0]), text(p[1]), "p" + (r.nextInt(8) == 0 ? r.nextInt(i + 1) : i)));
        }
        out.add(cmd.toArray(String[]::new));
        return out;
    }

    /** @return a point: in the city, on a cell edge, at an extreme, or anywhere */
    static double[] point(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0, 1 -> new double[] {r.nextDouble(11.2, 11.4), r.nextDouble(44.4, 44.6)};
            case 2 -> new double[] {lonEdge(r), latEdge(r)};
            case 3 -> new double[] {r.nextBoolean() ? lonEdge(r) : r.nextDouble(-180, 180), extremeLat(r)};
            case 4 -> new double[] {extremeLon(r), r.nextBoolean() ? latEdge(r) : r.nextDouble(-LAT_LIMIT, LAT_LIMIT)};
            default -> new double[] {r.nextDouble(-180, 180), r.nextDouble(-LAT_LIMIT, LAT_LIMIT)};
        };
    }

    /** @return the lower edge of a cell at a random step, or the last double before it */
    private static double lonEdge(SplittableRandom r) {
        return edge(r, -180, 180);
    }

    private static double latEdge(SplittableRandom r) {
        return edge(r, -LAT_LIMIT, LAT_LIMIT);
    }

    private static double edge(SplittableRandom r, double min, double max) {
        int step = 1 + r.nextInt(26);
        long k = r.nextLong((1L << step) + 1);
        double e = min + (k * 1.0 / (double) (1L << step)) * (max - min);
        e = r.nextInt(3) == 0 ? Math.nextDown(e) : e;
        return Math.max(min, Math.min(max, e));
    }

    private static double extremeLon(SplittableRandom r) {
        double[] at = {-180, 180, Math.nextUp(-180.0), Math.nextDown(180.0), r.nextDouble(179.9, 180), r.nextDouble(-180, -179.9)};
        return at[r.nextInt(at.length)];
    }

    private static double extremeLat(SplittableRandom r) {
        double[] at = {LAT_LIMIT, -LAT_LIMIT, r.nextDouble(80, LAT_LIMIT), -r.nextDouble(80, LAT_LIMIT), 66, -66, 80, -80,
            r.nextDouble(65.9, 66.1), -r.nextDouble(79.9, 80.1)};
        return at[r.nextInt(at.length)];
    }

    /** @return a search's centre, as FROMMEMBER of one of {@code members} points, or FROMLONLAT */
    static List<String> from(SplittableRandom r, int members) {
        if (r.nextInt(4) == 0) {
            return List.of("FROMMEMBER", "p" + r.nextInt(members + 2)); // now and then one that is absent
        }
        double[] p = point(r);
        return List.of("FROMLONLAT", text(p[0]), text(p[1]));
    }

    /** @return BYRADIUS or BYBOX, from nothing to more than the Earth */
    static List<String> shape(SplittableRandom r) {
        String unit = UNITS[r.nextInt(UNITS.length)];
        return r.nextBoolean() ? List.of("BYRADIUS", distance(r, unit), unit) : List.of("BYBOX", distance(r, unit), distance(r, unit), unit);
    }

    /** @return a radius or side in {@code unit}: 0, under a metre, city sizes, continents, or more than the Earth */
    static String distance(SplittableRandom r, String unit) {
        double meters = switch (r.nextInt(6)) {
            case 0 -> r.nextInt(3) == 0 ? 0 : r.nextDouble(0, 1);
            case 1 -> r.nextDouble(1, 1000);
            case 2 -> r.nextDouble(1000, 20_000);
            case 3 -> r.nextDouble(20_000, 3_000_000);
            case 4 -> r.nextDouble(3_000_000, 21_000_000);
            default -> r.nextDouble(21_000_000, 100_000_000);
        };
        double perUnit = switch (unit) {
            case "km" -> 1000;
            case "mi" -> 1609.34;
            case "ft" -> 0.3048;
            default -> 1;
        };
        return String.format(java.util.Locale.ROOT, "%.4f", meters / perUnit);
    }

    /** @return {@code d} written so that parsing it gives {@code d} exactly */
    static String text(double d) {
        return BigDecimal.valueOf(d).toPlainString();
    }
}
