package dev.colossal.server;

/**
 * Redis's geohash: a point as the index of its cell in a grid of {@code 2^step x 2^step} cells over
 * a longitude range and a latitude range, the two indexes' bits interleaved into one number. At
 * {@link #STEP_MAX} (26 bits an axis) over {@link #LON_MIN}..{@link #LON_MAX} and the Web Mercator
 * latitudes {@link #LAT_MIN}..{@link #LAT_MAX} that number is a GEO member's sorted set score, so
 * members near each other in the grid sit near each other in the set's score order.
 *
 * <pre>
 *  bit  63 .. 53 | 52 | 51   50   49   48  ..  1    0
 *       zero     |    | lon25 lat25 lon24 lat24 .. lon0 lat0      (step 26: 52 bits)
 *  lat index = the even bits, lon index = the odd bits; an index is truncated from
 *  (value - range min) / (range max - range min) * 2^step, so a value at a range's max gives
 *  2^step, a bit past the step's (bit 52 or 53), kept as Redis keeps it.
 * </pre>
 *
 * <p>All arithmetic is done in the order Redis does it, in doubles, so a point decodes to the same
 * cell centre, to the last bit, as in redis-server.
 */
final class GeoHash {

    static final int STEP_MAX = 26;
    static final double LON_MIN = -180;
    static final double LON_MAX = 180;
    static final double LAT_MIN = -85.05112878;
    static final double LAT_MAX = 85.05112878;
    /** The latitude range GEOHASH's strings use: the standard geohash's, not the score's. */
    static final double STANDARD_LAT = 90;

    private static final long EVEN_BITS = 0x5555555555555555L;
    private static final String BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";

    private GeoHash() {}

    /** @return whether Redis accepts ({@code lon}, {@code lat}) as a point (GEOADD, FROMLONLAT) */
    static boolean valid(double lon, double lat) {
        return !(lon < LON_MIN || lon > LON_MAX || lat < LAT_MIN || lat > LAT_MAX);
    }

    /**
     * The cell of ({@code lon}, {@code lat}) at {@code step} over longitudes {@code [LON_MIN,
     * LON_MAX]} and latitudes {@code [-latMax, latMax]}.
     *
     * @return the interleaved indexes, or -1 if the point is outside the ranges
     */
    static long encode(double lon, double lat, int step, double latMax) {
        if (!valid(lon, lat) || lat < -latMax || lat > latMax) {
            return -1;
        }
        double latOffset = (lat - -latMax) / (latMax - -latMax);
        double lonOffset = (lon - LON_MIN) / (LON_MAX - LON_MIN);
        latOffset *= (double) (1L << step);
        lonOffset *= (double) (1L << step);
        return spread((long) latOffset & 0xFFFFFFFFL) | spread((long) lonOffset & 0xFFFFFFFFL) << 1;
    }

    /** @return a GEO member's score for ({@code lon}, {@code lat}), a valid point */
    static long score(double lon, double lat) {
        return encode(lon, lat, STEP_MAX, LAT_MAX);
    }

    /**
     * The bits of a score as C's {@code (uint64_t)} cast of it reads them on x86-64 (a score set by
     * ZADD may be anything): truncated, a negative one in two's complement.
     */
    static long bits(double score) {
        if (score < 0x1p63) {
            return (long) score;
        }
        return (long) (score - 0x1p63) ^ Long.MIN_VALUE;
    }

    /**
     * The cell {@code bits} at {@code step} stands for over longitudes {@code [LON_MIN, LON_MAX]}
     * and latitudes {@code [-latMax, latMax]}.
     *
     * @return {lon min, lon max, lat min, lat max}
     */
    static double[] area(long bits, int step, double latMax) {
        long lat = squeeze(bits);
        long lon = squeeze(bits >>> 1);
        return new double[] {
            edge(lon, step, LON_MIN, LON_MAX), edge(lon + 1, step, LON_MIN, LON_MAX),
            edge(lat, step, -latMax, latMax), edge(lat + 1, step, -latMax, latMax),
        };
    }

    /** @return the lower edge of cell {@code index} (a C {@code uint32_t}: it wraps) of {@code 2^step} over {@code [min, max]} */
    private static double edge(long index, int step, double min, double max) {
        return min + ((index & 0xFFFFFFFFL) * 1.0 / (double) (1L << step)) * (max - min);
    }

    /** @return {lon, lat} of the centre of the cell a GEO member's {@code score} names, clamped to the valid ranges */
    static double[] decode(double score) {
        double[] xy = new double[2];
        decode(score, xy);
        return xy;
    }

    /** {@link #decode(double)} into {@code xy}: a search decodes every candidate, and allocates nothing for it. */
    static void decode(double score, double[] xy) {
        long bits = bits(score);
        long lat = squeeze(bits);
        long lon = squeeze(bits >>> 1);
        double lonCentre = (edge(lon, STEP_MAX, LON_MIN, LON_MAX) + edge(lon + 1, STEP_MAX, LON_MIN, LON_MAX)) / 2;
        double latCentre = (edge(lat, STEP_MAX, LAT_MIN, LAT_MAX) + edge(lat + 1, STEP_MAX, LAT_MIN, LAT_MAX)) / 2;
        xy[0] = Math.max(LON_MIN, Math.min(LON_MAX, lonCentre));
        xy[1] = Math.max(LAT_MIN, Math.min(LAT_MAX, latCentre));
    }

    /**
     * The cell {@code dLon} cells east and {@code dLat} north of {@code bits} at {@code step}: the
     * moved index wraps around the grid and loses any bit past the step; the other index is kept whole.
     */
    static long neighbour(long bits, int step, int dLon, int dLat) {
        long mask = step == 32 ? 0xFFFFFFFFL : (1L << step) - 1;
        long lat = squeeze(bits);
        long lon = squeeze(bits >>> 1);
        if (dLon != 0) {
            lon = (lon + dLon) & mask;
        }
        if (dLat != 0) {
            lat = (lat + dLat) & mask;
        }
        return spread(lat) | spread(lon) << 1;
    }

    /** @return GEOHASH's 11-character standard geohash of a GEO member's {@code score} */
    static String standard(double score) {
        double[] xy = decode(score);
        long bits = encode(xy[0], xy[1], STEP_MAX, STANDARD_LAT);
        char[] out = new char[11];
        for (int i = 0; i < 11; i++) {
            // 52 bits make ten characters and two bits: the eleventh is always the alphabet's first
            int index = i == 10 ? 0 : (int) (bits >>> (52 - (i + 1) * 5)) & 0x1F;
            out[i] = BASE32.charAt(index);
        }
        return new String(out);
    }

    /** @return the low 32 bits of {@code v} moved to the even bits of the result */
    private static long spread(long v) {
        v &= 0xFFFFFFFFL;
        v = (v | v << 16) & 0x0000FFFF0000FFFFL;
        v = (v | v << 8) & 0x00FF00FF00FF00FFL;
        v = (v | v << 4) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | v << 2) & 0x3333333333333333L;
        return (v | v << 1) & EVEN_BITS;
    }

    /** @return the even bits of {@code v} packed into the low 32 bits of the result */
    private static long squeeze(long v) {
        v &= EVEN_BITS;
        v = (v | v >>> 1) & 0x3333333333333333L;
        v = (v | v >>> 2) & 0x0F0F0F0F0F0F0F0FL;
        v = (v | v >>> 4) & 0x00FF00FF00FF00FFL;
        v = (v | v >>> 8) & 0x0000FFFF0000FFFFL;
        return (v | v >>> 16) & 0xFFFFFFFFL;
    }
}
