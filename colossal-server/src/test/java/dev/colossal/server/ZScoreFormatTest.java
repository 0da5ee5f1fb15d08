package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ZScore#format}'s way for whole numbers against {@link ZScore#formatted}, the exact
 * decimal expansion every double can take: the same text on both sides of 2^53 and of 1e17 (where
 * {@code %.17g} turns to an exponent), for negatives, and for -0, 0.5 and the like that it leaves to the other way.
 */
class ZScoreFormatTest {

    @Test
    void wholeNumbersReadAsTheExactExpansionWritesThem() {
        double two53 = 0x1p53;
        double[] edges = {1, -1, 9, 10, 99, 100, 1e15, 1e16 - 1, 1e16, 1e17, 1e17 + 16, 1e20, -1e17, two53, two53 - 1,
            two53 + 2, -two53, -(two53 - 1), 0.0, -0.0, 0.5, -0.5, 2.5, 1e-300, Double.MAX_VALUE, -Double.MAX_VALUE,
            Long.MAX_VALUE, Long.MIN_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        for (double d : edges) {
            assertEquals(ZScore.formatted(d), ZScore.format(d), "of " + d);
        }
        assertEquals("9007199254740991", ZScore.format(two53 - 1));
        assertEquals("9007199254740992", ZScore.format(two53));
        assertEquals("1e+17", ZScore.format(1e17));
        assertEquals("-0", ZScore.format(-0.0));
        SplittableRandom r = new SplittableRandom(27);
        for (int i = 0; i < 100_000; i++) {
            double d = (double) (r.nextLong() >> r.nextInt(64));
            assertEquals(ZScore.formatted(d), ZScore.format(d), "of " + d);
        }
    }

    /**
     * {@link ZScore#formatted}'s long arithmetic against the exact BigDecimal rounding, for scores
     * of every magnitude it takes and beyond: random bits, decimal fractions as users type them,
     * and the neighbours of powers of ten and of values whose 18th digit is a 5 or a run of 9s.
     */
    @Test
    void fractionsReadAsTheExactExpansionWritesThem() {
        SplittableRandom r = new SplittableRandom(29);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 4) {
                case 0 -> Double.longBitsToDouble(r.nextLong()); // any double, NaN aside
                case 1 -> r.nextLong(1, 1_000_000_000_000L) / Math.pow(10, r.nextInt(0, 12));
                case 2 -> Math.pow(10, r.nextInt(-6, 18)) * (1 + (r.nextInt(3) - 1) * Math.ulp(1.0) * r.nextInt(4));
                default -> (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-4, 18));
            };
            if (Double.isNaN(d) || Double.isInfinite(d) || d == 0) {
                continue;
            }
            assertEquals(ZScore.formattedExactly(d), ZScore.formatted(d), "of " + d + " (bits " + Double.doubleToRawLongBits(d) + ")");
            double next = Math.nextUp(d);
            assertEquals(ZScore.formattedExactly(next), ZScore.formatted(next), "of " + next);
        }
        for (String s : new String[] {"0.1", "0.3", "1.37", "2.74", "0.01", "0.009999999999999998", "99999999999999.99",
            "4503599627370495.5", "1234.5678", "27626325761130.3125", "27626325761130.3135", "0.99999999999999994", "9.9999999999999995"}) {
            double d = Double.parseDouble(s);
            assertEquals(ZScore.formattedExactly(d), ZScore.formatted(d), "of " + s);
        }
        assertEquals("0.10000000000000001", ZScore.format(0.1));
        assertEquals("27626325761130.312", ZScore.format(27626325761130.3125), "a tie, to even as printf");
        assertEquals("1.3700000000000001", ZScore.format(1.37));
    }
}
