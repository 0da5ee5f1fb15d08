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
}
