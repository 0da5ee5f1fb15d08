package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link Arcsine} rounds as glibc's {@code asin} (what Redis's GEO distances go through): the
 * expected values are glibc 2.36's, for arguments where Java's {@code Math.asin} is one unit off.
 */
class ArcsineTest {

    /** {argument, glibc's asin of it}, as hexadecimal doubles. */
    private static final String[][] GLIBC = {
        {"0x1.a81f124d8078p-2", "0x1.b54ab802a8104p-2"},
        {"0x1.326458df1e6cp-1", "0x1.48769a236bf69p-1"},
        {"0x1.7b63951cf2e8p-1", "0x1.ab4a1558cc3f9p-1"},
        {"0x1.a06a4c04fb94p-1", "0x1.e64ed9b76eca5p-1"},
        {"0x1.3180c8b3b344p-1", "0x1.475acbfb1447bp-1"},
        {"0x1.f1a05421b7b8p-1", "0x1.55521c884358bp0"},
    };

    @Test
    void roundsAsGlibcWhereJavasAsinIsOneUnitOff() {
        for (String[] c : GLIBC) {
            double x = Double.parseDouble(c[0]);
            double want = Double.parseDouble(c[1]);
            assertNotEquals(want, Math.asin(x), "Java's asin of " + c[0]);
            assertEquals(want, Arcsine.asin(x), "asin of " + c[0]);
        }
    }

    @Test
    void staysWithinOneUnitOfJavasAsinAndKeepsTheEnds() {
        assertEquals(0.0, Arcsine.asin(0.0));
        assertEquals(Math.PI / 2, Arcsine.asin(1.0));
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 100_000; i++) {
            double x = r.nextDouble();
            double a = Arcsine.asin(x);
            assertTrue(Math.abs(a - Math.asin(x)) <= Math.ulp(a), "asin of " + x);
        }
    }
}
