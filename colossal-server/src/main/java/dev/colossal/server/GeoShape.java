package dev.colossal.server;

/**
 * What a GEO search looks for: a circle ({@code BYRADIUS}) or a box ({@code BYBOX}, its sides
 * along the meridian and the parallel) around a centre, in a unit of {@code toMeters} metres each,
 * and the distances on the sphere Redis measures them with (haversine, Redis's Earth radius).
 *
 * @param lon      the centre's longitude
 * @param lat      the centre's latitude
 * @param box      a box, else a circle
 * @param radius   the circle's radius, in the unit
 * @param width    the box's width, in the unit
 * @param height   the box's height, in the unit
 * @param toMeters metres in the unit
 */
record GeoShape(double lon, double lat, boolean box, double radius, double width, double height, double toMeters) {

    static final double EARTH_RADIUS = 6372797.560856;
    private static final double DEG_TO_RAD = Math.PI / 180.0;

    /**
     * @return the metres between two points along the sphere, with glibc's rounding of the arcsine
     *     ({@link Arcsine}, some hundred nanoseconds more): for the distances a reply shows or
     *     STOREDIST stores, while a search's filter and order use {@link #distance}
     */
    static double shownDistance(double lon1, double lat1, double lon2, double lat2) {
        return distance(lon1, lat1, lon2, lat2, true);
    }

    /** @return the metres between two points along the sphere, the last bit as Java's {@code asin} rounds it */
    static double distance(double lon1, double lat1, double lon2, double lat2) {
        return distance(lon1, lat1, lon2, lat2, false);
    }

    private static double distance(double lon1, double lat1, double lon2, double lat2, boolean shown) {
        double lon1r = lon1 * DEG_TO_RAD;
        double lon2r = lon2 * DEG_TO_RAD;
        double v = Math.sin((lon2r - lon1r) / 2);
        if (v == 0.0) { // the same meridian: Redis measures along it, which may differ in the last bit
            return latDistance(lat1, lat2);
        }
        double lat1r = lat1 * DEG_TO_RAD;
        double lat2r = lat2 * DEG_TO_RAD;
        double u = Math.sin((lat2r - lat1r) / 2);
        double a = u * u + Math.cos(lat1r) * Math.cos(lat2r) * v * v;
        return 2.0 * EARTH_RADIUS * (shown ? Arcsine.asin(Math.sqrt(a)) : Math.asin(Math.sqrt(a)));
    }

    private static double latDistance(double lat1, double lat2) {
        return EARTH_RADIUS * Math.abs(lat2 * DEG_TO_RAD - lat1 * DEG_TO_RAD);
    }

    /** @return the metres from the centre to the shape's farthest point: the radius, or half the box's diagonal */
    double reachMeters() {
        double r = box ? Math.sqrt((width / 2) * (width / 2) + (height / 2) * (height / 2)) : radius;
        return r * toMeters;
    }

    /** @return {min lon, min lat, max lon, max lat} of a box around the shape, as Redis bounds it */
    double[] bounds() {
        double h = toMeters * (box ? height / 2 : radius);
        double w = toMeters * (box ? width / 2 : radius);
        double latDelta = h / EARTH_RADIUS / DEG_TO_RAD;
        double lonDeltaTop = w / EARTH_RADIUS / Math.cos((lat + latDelta) * DEG_TO_RAD) / DEG_TO_RAD;
        double lonDeltaBottom = w / EARTH_RADIUS / Math.cos((lat - latDelta) * DEG_TO_RAD) / DEG_TO_RAD;
        // a parallel is longer toward the equator: the box's wider edge is its southern one in the north
        double lonDelta = lat < 0 ? lonDeltaBottom : lonDeltaTop;
        return new double[] {lon - lonDelta, lat - latDelta, lon + lonDelta, lat + latDelta};
    }

    /** @return the metres from the centre to ({@code x}, {@code y}) if that point is in the shape, else NaN */
    double metersIfWithin(double x, double y) {
        if (!box) {
            double d = distance(lon, lat, x, y);
            return d > radius * toMeters ? Double.NaN : d;
        }
        if (latDistance(y, lat) > height * toMeters / 2) {
            return Double.NaN;
        }
        if (distance(x, y, lon, y) > width * toMeters / 2) {
            return Double.NaN;
        }
        return distance(lon, lat, x, y);
    }
}
