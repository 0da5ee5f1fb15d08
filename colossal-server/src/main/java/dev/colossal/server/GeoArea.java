package dev.colossal.server;

/**
 * The grid cells a GEO search reads, as Redis picks them: the cell of the centre at a step coarse
 * enough that a cell is about as large as the shape, and its eight neighbours, minus those that
 * lie wholly outside the shape's bounding box. Each cell is a range of scores; the search then
 * keeps the members of those ranges within the shape. The choice, the order (centre, N, S, E, W,
 * NE, NW, SE, SW) and the skipping of a cell equal to the one read before it decide which members
 * a search returns and, without ASC or DESC, in what order, so they follow Redis exactly.
 */
final class GeoArea {

    /** Web Mercator's half width in metres: Redis's bound for doubling a radius into a step. */
    private static final double MERCATOR_MAX = 20037726.37;
    /** The offsets (east, north) of the cells, in the order Redis reads them. */
    private static final int[][] ORDER = {{0, 0}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};

    private final int step;
    private final long[] cells = new long[ORDER.length];
    private final boolean[] used = new boolean[ORDER.length];

    /** The cells for {@code shape}. */
    GeoArea(GeoShape shape) {
        double[] b = shape.bounds();
        int s = steps(shape.reachMeters(), shape.lat());
        double[][] around = cellsAt(shape, s);
        // The neighbours may not reach the bounding box when the centre is near its cell's edge
        boolean tooSmall = around[1][3] < b[3] || around[2][2] > b[1] || around[3][1] < b[2] || around[4][0] > b[0];
        if (s > 1 && tooSmall) {
            s--;
            around = cellsAt(shape, s);
        }
        this.step = s;
        java.util.Arrays.fill(used, true);
        if (s >= 2) {
            double[] centre = around[0];
            if (centre[2] < b[1]) {
                drop(2, 7, 8);
            }
            if (centre[3] > b[3]) {
                drop(1, 5, 6);
            }
            if (centre[0] < b[0]) {
                drop(4, 8, 6);
            }
            if (centre[1] > b[2]) {
                drop(3, 7, 5);
            }
        }
    }

    private double[][] cellsAt(GeoShape shape, int s) {
        long centre = GeoHash.encode(shape.lon(), shape.lat(), s, GeoHash.LAT_MAX);
        double[][] areas = new double[ORDER.length][];
        for (int i = 0; i < ORDER.length; i++) {
            cells[i] = GeoHash.neighbour(centre, s, ORDER[i][0], ORDER[i][1]);
            areas[i] = GeoHash.area(cells[i], s, GeoHash.LAT_MAX);
        }
        cells[0] = centre;
        areas[0] = GeoHash.area(centre, s, GeoHash.LAT_MAX);
        return areas;
    }

    private void drop(int... which) {
        for (int i : which) {
            used[i] = false;
        }
    }

    /** Redis's step for a shape reaching {@code meters} from a centre at latitude {@code lat}: coarser near the poles. */
    static int steps(double meters, double lat) {
        if (meters == 0) {
            return GeoHash.STEP_MAX;
        }
        int step = 1;
        while (meters < MERCATOR_MAX) {
            meters *= 2;
            step++;
        }
        step -= 2;
        if (lat > 66 || lat < -66) {
            step--;
            if (lat > 80 || lat < -80) {
                step--;
            }
        }
        return Math.max(1, Math.min(GeoHash.STEP_MAX, step));
    }

    /**
     * @return the score ranges {@code {min, max}} (min included, max not) to read, in Redis's
     *     order, a cell equal to the one read just before it left out
     */
    long[][] ranges() {
        long[][] out = new long[ORDER.length][];
        int n = 0;
        int last = 0;
        for (int i = 0; i < ORDER.length; i++) {
            // Redis compares with the last cell read only once that is not the centre (index 0)
            if (!used[i] || (last != 0 && cells[i] == cells[last])) {
                continue;
            }
            int shift = 52 - 2 * step;
            out[n++] = new long[] {cells[i] << shift, (cells[i] + 1) << shift};
            last = i;
        }
        return java.util.Arrays.copyOf(out, n);
    }
}
