package dev.colossal.server;

/**
 * The arcsine rounded to the nearest double, as glibc's {@code asin} (which Redis's distances go
 * through) gives it in all but rare cases. Java's {@code Math.asin} (fdlibm) is off by one unit
 * in the last place for about 6% of the arguments a distance takes, which shows in the 17 digits
 * of a distance STOREDIST stores; this one agrees with glibc on all but about 0.2%.
 *
 * <p>How: {@code y = Math.asin(x)} is within one unit of the true value; one Newton step,
 * {@code y + (x - sin y) / cos y}, with {@code sin y} evaluated in double-double arithmetic (a
 * Taylor series, about 106 bits), moves it to the nearest double but where the true value lies
 * within about 2^-90 of the midpoint between two doubles.
 */
final class Arcsine {

    private Arcsine() {}

    /** @return the arcsine of {@code x}, in [-1, 1], rounded to the nearest double */
    static double asin(double x) {
        double y = Math.asin(x);
        if (x == 0 || x == 1 || x == -1) {
            return y;
        }
        // sin y as a double-double (hi, lo) by its Taylor series; the arithmetic is written out on
        // locals, as arrays for the pairs made this cost more than the rest of a GEO search
        double y2h = y * y;
        double y2l = Math.fma(y, y, -y2h); // fma: a product's exact rounding error
        double termH = y;
        double termL = 0;
        double sumH = y;
        double sumL = 0;
        for (int k = 1; k < 60; k += 2) {
            double p = termH * -y2h;
            double e = Math.fma(termH, -y2h, -p) + (termH * -y2l + termL * -y2h);
            double mh = p + e;
            double ml = e - (mh - p);
            double n = (double) (k + 1) * (k + 2);
            double q = mh / n;
            double q2 = (Math.fma(-q, n, mh) + ml) / n;
            termH = q + q2;
            termL = q2 - (termH - q);
            double s = sumH + termH;
            double b = s - sumH;
            double se = (sumH - (s - b)) + (termH - b) + (sumL + termL); // Knuth's two-sum: the exact error
            sumH = s + se;
            sumL = se - (sumH - s);
            if (Math.abs(termH) < 0x1p-110 * Math.abs(sumH)) {
                break;
            }
        }
        return y + ((x - sumH) - sumL) / Math.cos(y);
    }
}
