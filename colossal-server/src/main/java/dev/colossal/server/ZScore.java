package dev.colossal.server;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * A sorted set's scores as Redis 7.0 reads and writes them: C's {@code strtod} for input, C's
 * {@code %.17g} for replies, and the shorter integer form a listpack keeps (what ZSCAN and DUMP
 * show of a small set). Scores are doubles; NaN is never a score, so it stands for "not a float".
 */
final class ZScore {

    /** {@code (double) (LLONG_MAX / 2)}, 2^62: Redis's {@code double2ll} prints integers within it as integers. */
    private static final double INTEGER_FORM_LIMIT = 0x1p62;
    private static final MathContext SEVENTEEN = new MathContext(17, RoundingMode.HALF_EVEN);

    private ZScore() {}

    /**
     * A score, increment or weight as Redis's {@code getDoubleFromObject} reads it: the whole text,
     * no leading space, {@code inf} allowed, an overflow or underflow to zero refused.
     *
     * @return the value, or NaN where Redis answers "not a valid float"
     */
    static double parse(byte[] a) {
        if (a.length == 0 || isSpace(a[0])) {
            return Double.NaN;
        }
        long[] end = new long[2];
        double v = strtod(a, 0, end);
        if (end[0] != a.length || (end[1] != 0 && (Double.isInfinite(v) || v == 0))) {
            return Double.NaN;
        }
        return v;
    }

    /**
     * A score range's bound after its optional {@code (} as Redis's {@code zslParseRange} reads it:
     * bare {@code strtod}, so leading spaces pass, "" is 0 and an overflow is infinite.
     *
     * @return the value, or NaN where Redis answers "min or max is not a float"
     */
    static double parseBound(byte[] a, int from) {
        long[] end = new long[2];
        double v = strtod(a, from, end);
        return end[0] != a.length ? Double.NaN : v;
    }

    /**
     * A value SORT sorts by as Redis reads it: C's {@code strtod} of the bytes up to the first NUL
     * (a C string), so leading spaces pass and "" is 0, but not what stops it early, ERANGE or nan.
     *
     * @return the value, or NaN where Redis answers "One or more scores can't be converted into double"
     */
    static double parseSortKey(byte[] a) {
        int n = 0;
        while (n < a.length && a[n] != 0) {
            n++;
        }
        byte[] text = n == a.length ? a : java.util.Arrays.copyOf(a, n);
        long[] end = new long[2];
        double v = strtod(text, 0, end);
        return end[0] != n || end[1] != 0 ? Double.NaN : v;
    }

    /**
     * C's {@code strtod} from {@code a[from]}: {@code end[0]} is set to where it stopped ({@code from}
     * if it read nothing), {@code end[1]} to 1 where C sets ERANGE (overflow, or underflow to zero).
     */
    private static double strtod(byte[] a, int from, long[] end) {
        int i = from;
        int n = a.length;
        while (i < n && isSpace(a[i])) {
            i++;
        }
        boolean negative = false;
        if (i < n && (a[i] == '+' || a[i] == '-')) {
            negative = a[i] == '-';
            i++;
        }
        end[0] = from;
        if (word(a, i, "infinity") || word(a, i, "inf")) {
            end[0] = i + (word(a, i, "infinity") ? 8 : 3);
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (word(a, i, "nan")) {
            int j = i + 3;
            if (j < n && a[j] == '(') {
                int k = j + 1;
                while (k < n && (Character.isLetterOrDigit(a[k]) || a[k] == '_')) {
                    k++;
                }
                if (k < n && a[k] == ')') {
                    j = k + 1;
                }
            }
            end[0] = j;
            return Double.NaN;
        }
        boolean hex = i + 1 < n && a[i] == '0' && (a[i + 1] | 0x20) == 'x';
        int digitsFrom = hex ? i + 2 : i;
        int j = digitsFrom;
        int digits = 0;
        boolean nonZero = false;
        while (j < n && isDigit(a[j], hex)) {
            nonZero |= a[j] != '0';
            j++;
            digits++;
        }
        if (j < n && a[j] == '.') {
            int k = j + 1;
            while (k < n && isDigit(a[k], hex)) {
                nonZero |= a[k] != '0';
                k++;
                digits++;
            }
            j = k;
        }
        if (digits == 0) {
            if (hex) { // "0x" with no hex digit: strtod reads the 0 alone
                end[0] = i + 1;
                return negative ? -0.0 : 0.0;
            }
            return 0;
        }
        int mantissaEnd = j;
        if (j < n && (a[j] | 0x20) == (hex ? 'p' : 'e')) {
            int k = j + 1;
            if (k < n && (a[k] == '+' || a[k] == '-')) {
                k++;
            }
            int expFrom = k;
            while (k < n && a[k] >= '0' && a[k] <= '9') {
                k++;
            }
            if (k > expFrom) {
                j = k;
            }
        }
        String text = new String(a, i, j - i, StandardCharsets.ISO_8859_1);
        if (hex && j == mantissaEnd) {
            text += "p0"; // Java's hex floats need the exponent C makes optional
        }
        double v = Double.parseDouble(text);
        end[0] = j;
        end[1] = Double.isInfinite(v) || (v == 0 && nonZero) ? 1 : 0;
        return negative ? -v : v;
    }

    private static boolean isDigit(byte b, boolean hex) {
        return (b >= '0' && b <= '9') || (hex && ((b | 0x20) >= 'a' && (b | 0x20) <= 'f'));
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || (b >= '\t' && b <= '\r');
    }

    private static boolean word(byte[] a, int at, String lower) {
        if (at + lower.length() > a.length) {
            return false;
        }
        for (int k = 0; k < lower.length(); k++) {
            if ((a[at + k] | 0x20) != lower.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** Integers below this in magnitude are doubles exactly, and {@code %.17g} writes them whole (no exponent below 1e17). */
    private static final double EXACT_INTEGER = 0x1p53;

    /** @return C's {@code %.17g} of {@code d}, Redis's {@code inf} and {@code -inf}: how every reply shows a score */
    static String format(double d) {
        // most scores are whole numbers: their digits without the exact decimal expansion, a tenth of a ZSCORE
        if (d == Math.rint(d) && Math.abs(d) < EXACT_INTEGER && d != 0) {
            return Long.toString((long) d);
        }
        return formatted(d);
    }

    /** @return {@link #format} of {@code d}: any double */
    static String formatted(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        double a = Math.abs(d);
        if (a < FAST_BOUND && a == Math.rint(a)) {
            String digits = Long.toString((long) a); // 17 digits at most: all of them
            return layout(d < 0, digits, digits.length() - 1);
        }
        if (a >= FAST_LEAST && a < 0x1p52) {
            long q = seventeenDigits(a);
            return layout(d < 0, Long.toString(q % TEN_TO_THE_17), (int) (q / TEN_TO_THE_17) - FAST_EXPONENT_BIAS);
        }
        return formattedExactly(d);
    }

    /** @return {@link #formatted} of a finite nonzero {@code d} from its exact decimal expansion (a BigDecimal) */
    static String formattedExactly(double d) {
        BigDecimal r = new BigDecimal(d).round(SEVENTEEN);
        String digits = r.unscaledValue().abs().toString();
        return layout(d < 0, digits, digits.length() - 1 - r.scale());
    }

    /** The least magnitude {@link #seventeenDigits} takes: its scaling by 10^k then fits 64-bit powers. */
    private static final double FAST_LEAST = 0.01;
    /** From here {@code %.17g} writes an exponent: the exact way serves. */
    private static final double FAST_BOUND = 1e17;
    private static final long TEN_TO_THE_16 = 10_000_000_000_000_000L;
    private static final long TEN_TO_THE_17 = 100_000_000_000_000_000L;
    /** {@link #seventeenDigits} returns {@code (exponent + bias) * 10^17 + digits}. */
    private static final int FAST_EXPONENT_BIAS = 10;
    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    /**
     * {@code a}'s 17 significant digits, rounded half to even from its exact binary value as {@link
     * #formattedExactly}'s BigDecimal rounds them, without a BigDecimal (which took most of a
     * ZRANGE WITHSCORES of fractional scores): {@code a} is m * 2^e with m below 2^53 and e below
     * 0, so {@code a * 10^k} is {@code m * 10^k} (below 2^113) shifted right by {@code -e}, in two longs.
     *
     * @param a {@code FAST_LEAST <= a < 2^52}
     * @return {@code (exponent + FAST_EXPONENT_BIAS) * 10^17 + q}: q the digits, {@code 10^16 <= q < 10^17},
     *     exponent the power of ten of the first one
     */
    static long seventeenDigits(double a) {
        long bits = Double.doubleToRawLongBits(a);
        long m = bits & ((1L << 52) - 1) | 1L << 52;
        int e = (int) (bits >>> 52) - 1075;
        // off by one at worst near a power of ten, which the loop mends
        int k = Math.min(16 - (int) Math.floor(Math.log10(a)), POWERS_OF_TEN.length - 1);
        int s = -e; // 1 to 59 for 0.01 <= a < 2^52
        while (true) {
            long p = POWERS_OF_TEN[k];
            long lo = m * p;
            long hi = Math.multiplyHigh(m, p);
            long q = hi << (64 - s) | lo >>> s;
            // half to even, as C's printf and the exact way round: a tie is common where few bits
            // are fractional (27626325761130.3125 is 27626325761130.312)
            int half = Long.compareUnsigned(lo & ((1L << s) - 1), 1L << (s - 1));
            boolean up = half > 0 || half == 0 && (q & 1) != 0;
            if (q < TEN_TO_THE_16 && k < POWERS_OF_TEN.length - 1) {
                k++;
            } else if (q >= TEN_TO_THE_17) {
                k--;
            } else {
                int exponent = 16 - k;
                if (up && ++q == TEN_TO_THE_17) {
                    q = TEN_TO_THE_16;
                    exponent++;
                }
                return (exponent + FAST_EXPONENT_BIAS) * TEN_TO_THE_17 + q;
            }
        }
    }

    /** {@code %.17g}'s layout of a value's digits (trailing zeros dropped here) and its power of ten. */
    private static String layout(boolean negative, String digits, int exponent) {
        int last = digits.length();
        while (last > 1 && digits.charAt(last - 1) == '0') {
            last--;
        }
        digits = digits.substring(0, last);
        StringBuilder s = new StringBuilder(26);
        if (negative) {
            s.append('-');
        }
        if (exponent < -4 || exponent >= 17) {
            s.append(digits.charAt(0));
            if (digits.length() > 1) {
                s.append('.').append(digits, 1, digits.length());
            }
            s.append('e').append(exponent < 0 ? '-' : '+');
            int e = Math.abs(exponent);
            if (e < 10) {
                s.append('0');
            }
            s.append(e);
        } else if (exponent >= 0) {
            if (digits.length() <= exponent + 1) {
                s.append(digits).append("0".repeat(exponent + 1 - digits.length()));
            } else {
                s.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, digits.length());
            }
        } else {
            s.append("0.").append("0".repeat(-exponent - 1)).append(digits);
        }
        return s.toString();
    }

    /**
     * @return the text a Redis 7.0 listpack holds for {@code d} ({@code d2string}): an integer
     *     within 2^62 as one, else {@link #format}. What ZSCAN answers of a small set and DUMP writes.
     */
    static String listpackForm(double d) {
        if (d >= -INTEGER_FORM_LIMIT && d <= INTEGER_FORM_LIMIT && d == (long) d) {
            return Long.toString((long) d);
        }
        return format(d);
    }

    /** Answers a score: a bulk string in RESP2, a RESP3 double, as Redis's {@code addReplyDouble}. */
    static void reply(Reply r, double d) {
        if (r.protocol >= 3) {
            r.append((',' + format(d) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        } else {
            r.bulk(format(d));
        }
    }
}
