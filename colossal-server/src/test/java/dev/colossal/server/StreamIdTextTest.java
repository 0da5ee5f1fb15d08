package dev.colossal.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * An ID's text written digit by digit ({@link StreamId#bytes}) and plain digits read in place
 * ({@link StreamId#unsigned}): the same as the unsigned text of the JDK at every digit count, and
 * past 2^63, where the longs are negative.
 */
class StreamIdTextTest {

    @Test
    void theTextIsTheUnsignedDecimalAtEveryLength() {
        SplittableRandom r = new SplittableRandom(1);
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10 * 10; p *= 10) {
            for (long v : new long[] {p - 1, p, p + 1, p * 3 + 7}) {
                check(v, r.nextLong());
                check(r.nextLong() >>> r.nextInt(64), v);
            }
        }
        for (long v : new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, -1L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L}) {
            check(v, 0);
            check(0, v);
            check(v, v);
        }
        for (int i = 0; i < 10_000; i++) {
            check(r.nextLong() >>> r.nextInt(64), r.nextLong() >>> r.nextInt(64));
        }
    }

    @Test
    void plainDigitsReadAsTheSlowPathReadsThem() {
        for (String s : new String[] {"1", "9", "10", "123456789012345678", "999999999999999999", "1000000000000000000",
                "18446744073709551615", "0", "00", "007", "0123456789012345678"}) {
            byte[] b = s.getBytes(US_ASCII);
            assertEquals(Long.parseUnsignedLong(s), StreamId.unsigned(b, 0, b.length), s);
        }
        for (String s : new String[] {"18446744073709551616", "12a", "1-2", "", "9x99999999999999999"}) {
            byte[] b = s.getBytes(US_ASCII);
            assertNull(StreamId.unsigned(b, 0, b.length), s);
        }
        byte[] id = "1700000000000-42".getBytes(US_ASCII);
        assertEquals(1700000000000L, StreamId.unsigned(id, 0, 13));
        assertEquals(42L, StreamId.unsigned(id, 14, id.length));
    }

    private static void check(long ms, long seq) {
        String want = Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
        assertEquals(want, new String(new StreamId(ms, seq).bytes(), US_ASCII));
    }
}
