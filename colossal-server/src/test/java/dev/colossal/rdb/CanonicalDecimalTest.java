package dev.colossal.rdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link CanonicalDecimal} agrees with what {@code Long.parseLong} and {@code Long.toString} say. */
class CanonicalDecimalTest {

    /** The test the byte reader replaced: parses, and prints back to the same text. */
    private static Long byParsing(String s) {
        try {
            long v = Long.parseLong(s);
            return Long.toString(v).equals(s) ? v : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static void agrees(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        Long want = byParsing(s);
        assertEquals(want != null, CanonicalDecimal.is(b), s);
        if (want != null) {
            assertEquals((long) want, CanonicalDecimal.value(b), s);
        }
    }

    @Test
    void shouldTellCanonicalDecimalsAtTheEdges() {
        for (String s : List.of("", "-", "0", "-0", "00", "01", "-01", "7", "-7", "+7", " 7", "7 ", "1a", "12345678901",
                "9223372036854775807", "9223372036854775808", "9223372036854775806", "-9223372036854775808",
                "-9223372036854775809", "-9223372036854775807", "10000000000000000000", "-10000000000000000000",
                "9999999999999999999", "-9999999999999999999", "922337203685477580", "99999999999999999999",
                "--1", "1-", "0x10", "1e3", "4294967296", "-2147483649", "2147483647")) {
            agrees(s);
        }
    }

    @Test
    void shouldAgreeWithParsingOnRandomTexts() {
        SplittableRandom r = new SplittableRandom(32);
        String alphabet = "0123456789-0123456789a ";
        for (int i = 0; i < 200_000; i++) {
            StringBuilder s = new StringBuilder();
            int n = r.nextInt(22);
            for (int j = 0; j < n; j++) {
                s.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            agrees(s.toString());
            agrees(Long.toString(r.nextLong()));
            agrees(Long.toString(r.nextLong() >> r.nextInt(64)));
        }
    }
}
