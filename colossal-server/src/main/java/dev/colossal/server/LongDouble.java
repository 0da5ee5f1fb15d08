package dev.colossal.server;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * INCRBYFLOAT's arithmetic as Redis does it on x86-64: C's {@code long double}, the x87 80-bit
 * format with a 64-bit significand, which a Java {@code double} (53 bits) cannot stand in for:
 * {@code 0.1 + 0.2} reads back as {@code 0.3} in Redis, and {@code -9223372036854775808 - 1} is
 * exact. Values are held as exact {@link BigDecimal}s rounded to 64 significant bits after every
 * step; {@link #INFINITE} stands for either infinity.
 */
final class LongDouble {

    /** Either infinity: Redis accepts {@code inf} as an operand and refuses any infinite result. */
    static final BigDecimal INFINITE = new BigDecimal(BigInteger.ONE, -5000);

    private static final int SIGNIFICAND_BITS = 64;
    /** Largest binary exponent of a finite long double, and the smallest of a subnormal one. */
    private static final int MAX_EXPONENT = 16383;
    private static final int MIN_EXPONENT = -16445;
    /** strtold's buffer in Redis ({@code MAX_LONG_DOUBLE_CHARS}): longer input is refused. */
    private static final int MAX_CHARS = 5 * 1024;
    private static final Pattern HEX = Pattern.compile("([+-]?)0x([0-9a-f]*)\\.?([0-9a-f]*)(?:p([+-]?[0-9]+))?");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)(e[+-]?[0-9]+)?");

    private LongDouble() {}

    /**
     * @return what strtold reads from the whole of {@code a}, rounded to a long double;
     *     {@link #INFINITE} for inf/infinity; null where Redis answers "not a valid float"
     *     (empty, leading space, trailing garbage, nan, overflow or underflow to zero)
     */
    static BigDecimal parse(byte[] a) {
        if (a.length == 0 || a.length >= MAX_CHARS) {
            return null;
        }
        String t = new String(a, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
        String unsigned = t.startsWith("+") || t.startsWith("-") ? t.substring(1) : t;
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return INFINITE;
        }
        BigDecimal exact;
        var hex = HEX.matcher(t);
        if (hex.matches() && hex.group(2).length() + hex.group(3).length() > 0) {
            BigInteger digits = new BigInteger(hex.group(2) + hex.group(3), 16);
            long exponent = hex.group(4) == null ? 0 : parseExponent(hex.group(4)) - 4L * hex.group(3).length();
            if (Math.abs(exponent) > 100_000) {
                return digits.signum() == 0 ? BigDecimal.ZERO : null;
            }
            exact = scaleByPowerOfTwo(new BigDecimal(digits), (int) exponent);
            exact = hex.group(1).equals("-") ? exact.negate() : exact;
        } else if (DECIMAL.matcher(t).matches()) {
            try {
                exact = new BigDecimal(t.startsWith("+") ? t.substring(1) : t);
            } catch (NumberFormatException | ArithmeticException e) {
                return null; // an exponent beyond an int: far outside the long double range
            }
        } else {
            return null;
        }
        BigDecimal rounded = round(exact);
        return rounded == INFINITE || (rounded.signum() == 0 && exact.signum() != 0) ? null : rounded;
    }

    /** @return {@code a + b} rounded to a long double, or {@link #INFINITE} if either is or it overflows */
    static BigDecimal add(BigDecimal a, BigDecimal b) {
        return a == INFINITE || b == INFINITE ? INFINITE : round(a.add(b));
    }

    /** As {@code printf("%.17Lf")} then trailing zeros cut, as Redis formats INCRBYFLOAT's result. */
    static String format(BigDecimal v) {
        String s = v.setScale(17, RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString();
        return s.equals("-0") ? "0" : s;
    }

    /** The nearest long double (ties to even); {@link #INFINITE} past the largest; 0 below the smallest. */
    private static BigDecimal round(BigDecimal x) {
        if (x.signum() == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal abs = x.abs();
        // e such that 2^63 <= abs / 2^e < 2^64, found from an estimate and corrected exactly
        long estimate = (long) Math.floor((abs.unscaledValue().bitLength() - 1)
                - abs.scale() * (Math.log(10) / Math.log(2))) - (SIGNIFICAND_BITS - 1);
        if (estimate > MAX_EXPONENT + 2) {
            return INFINITE;
        }
        if (estimate < MIN_EXPONENT - SIGNIFICAND_BITS - 2) {
            return BigDecimal.ZERO;
        }
        int e = (int) estimate;
        BigDecimal low = new BigDecimal(BigInteger.ONE.shiftLeft(SIGNIFICAND_BITS - 1));
        BigDecimal high = low.add(low);
        while (scaleByPowerOfTwo(abs, -e).compareTo(low) < 0) {
            e--;
        }
        while (scaleByPowerOfTwo(abs, -e).compareTo(high) >= 0) {
            e++;
        }
        e = Math.max(e, MIN_EXPONENT); // subnormals keep fewer significant bits
        BigInteger m = scaleByPowerOfTwo(abs, -e).setScale(0, RoundingMode.HALF_EVEN).unscaledValue();
        if (m.bitLength() > SIGNIFICAND_BITS) {
            m = m.shiftRight(1);
            e++;
        }
        if (e + SIGNIFICAND_BITS - 1 > MAX_EXPONENT) {
            return INFINITE;
        }
        BigDecimal r = scaleByPowerOfTwo(new BigDecimal(m), e);
        return x.signum() < 0 ? r.negate() : r;
    }

    private static BigDecimal scaleByPowerOfTwo(BigDecimal v, int e) {
        return e >= 0 ? v.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(e)))
                : v.multiply(BigDecimal.ONE.divide(new BigDecimal(BigInteger.ONE.shiftLeft(-e))));
    }

    private static long parseExponent(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return s.startsWith("-") ? -1_000_000 : 1_000_000;
        }
    }
}
