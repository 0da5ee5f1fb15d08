package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** INFO's fixed decimals and {@code _human} sizes, against what C's printf and the former String.format gave. */
class InfoNumbersTest {

    private static String fixed(double v, int places) {
        return InfoNumbers.fixed(new StringBuilder(), v, places).toString();
    }

    /** C's {@code %.Nf}: the exact binary value rounded, half to even. */
    private static String printf(double v, int places) {
        return new BigDecimal(v).setScale(places, RoundingMode.HALF_EVEN).toPlainString();
    }

    @Test
    void fixedDecimalsAsPrintfGivesThem() {
        assertEquals("0.00", fixed(0, 2));
        assertEquals("0.000000", fixed(0, 6));
        assertEquals("12.340000", fixed(12.34, 6));
        assertEquals("100.00", fixed(100, 2));
        assertEquals("0.05", fixed(0.05, 2));
        assertEquals("3.000001", fixed(3.000001, 6));
        assertEquals("10.01", fixed(10.009, 2));
        assertEquals("1.00", fixed(0.999, 2), "a carry into the units");
        assertEquals("-1.50", fixed(-1.5, 2), "negative values as String.format gives them");
        assertEquals("NaN", fixed(Double.NaN, 2));
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            int places = random.nextBoolean() ? 2 : 6;
            double v = switch (i % 3) {
                case 0 -> random.nextLong(10_000_000) / 100.0; // CPU seconds: ticks of 1/100 s
                case 1 -> random.nextDouble() * 100; // percentages, kbps
                default -> random.nextDouble() * 1e9;
            };
            double scaled = v * (places == 2 ? 100 : 1_000_000);
            if (Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-3) {
                continue; // a tie within the binary value's error: either way is printf's to make
            }
            assertEquals(printf(v, places), fixed(v, places), v + " to " + places);
        }
    }

    @Test
    void humanSizesAsRedisWritesThem() {
        assertEquals("0B", InfoNumbers.human(new StringBuilder(), 0).toString());
        assertEquals("1023B", InfoNumbers.human(new StringBuilder(), 1023).toString());
        assertEquals("1.00K", InfoNumbers.human(new StringBuilder(), 1024).toString());
        assertEquals("1.50M", InfoNumbers.human(new StringBuilder(), 3L << 19).toString());
        assertEquals("100.00K", InfoNumbers.human(new StringBuilder(), 102_400).toString());
        assertEquals("23.42G", InfoNumbers.human(new StringBuilder(), 25_147_584_512L).toString());
        assertEquals("2048.00P", InfoNumbers.human(new StringBuilder(), 1L << 61).toString(), "P is the last unit");
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 100_000; i++) {
            long bytes = random.nextLong(1L << random.nextInt(1, 62));
            double v = bytes;
            int u = -1;
            String[] units = {"K", "M", "G", "T", "P"};
            while (v >= 1024 && u < 4) {
                v /= 1024;
                u++;
            }
            String want = bytes < 1024 ? bytes + "B" : String.format(Locale.ROOT, "%.2f%s", v, units[u]);
            double scaled = v * 100;
            if (Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-3) {
                continue;
            }
            assertEquals(want, InfoNumbers.human(new StringBuilder(), bytes).toString(), Long.toString(bytes));
        }
    }
}
