package dev.colossal.server;

import java.util.Locale;

/**
 * Sizes as redis.conf writes them, the one meaning of a size in Colossal's flags, its config file
 * and CONFIG SET: a number of bytes, or a number with a unit in either case, where {@code k},
 * {@code m} and {@code g} are powers of 1000 and {@code kb}, {@code mb} and {@code gb} powers of
 * 1024, as in Redis ({@code maxmemory 100m} is 100,000,000 bytes, {@code 100mb} 104,857,600).
 * Beyond Redis: {@code t} and {@code p} (and {@code tb}, {@code pb}) in the same way, and
 * {@code KiB}, {@code MiB}, {@code GiB}, {@code TiB}, {@code PiB}, binary units no one misreads.
 * Like Redis, no sign, fraction or space; unlike it, a unit without a number (Redis takes {@code m}
 * as 0) and a size past a long (Redis wraps it around 2^64) are refused.
 */
public final class MemorySize {

    /** What a size looks like, for error messages. */
    public static final String EXAMPLES = "4096, 100mb or 100MiB (x 1024^2), 100m (x 1000^2)";

    private MemorySize() {}

    /**
     * @param value a size, e.g. {@code 100mb}
     * @return the bytes
     * @throws IllegalArgumentException naming {@code value} if it is not a size or is more bytes than a long holds
     */
    public static long parse(String value) {
        String s = value.toLowerCase(Locale.ROOT);
        int digits = 0;
        while (digits < s.length() && s.charAt(digits) >= '0' && s.charAt(digits) <= '9') {
            digits++;
        }
        String unit = s.substring(digits);
        int power = switch (unit) {
            case "", "b" -> 0;
            case "k", "kb", "kib" -> 1;
            case "m", "mb", "mib" -> 2;
            case "g", "gb", "gib" -> 3;
            case "t", "tb", "tib" -> 4;
            case "p", "pb", "pib" -> 5;
            default -> -1;
        };
        if (digits == 0 || power < 0) {
            throw new IllegalArgumentException("size=" + value + " is not a size; write e.g. " + EXAMPLES);
        }
        long unitBytes = 1;
        for (int i = 0; i < power; i++) {
            unitBytes *= unit.length() > 1 ? 1024 : 1000; // kb, kib; k
        }
        try {
            return Math.multiplyExact(Long.parseLong(s.substring(0, digits)), unitBytes);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("size=" + value + " is more bytes than a long holds");
        }
    }

    /**
     * @param bytes a size
     * @return it as a setting's value the way redis.conf would write it, in the largest unit that
     *     divides it, binary first: {@code 100mb}, {@code 1gb}, {@code 100m}, {@code 1536kb}, or bytes
     */
    static String format(long bytes) {
        if (bytes != 0) {
            String[] units = {"gb", "mb", "kb", "g", "m", "k"};
            long[] sizes = {1L << 30, 1L << 20, 1L << 10, 1_000_000_000L, 1_000_000L, 1000L};
            for (int i = 0; i < units.length; i++) {
                if (bytes % sizes[i] == 0) {
                    return bytes / sizes[i] + units[i];
                }
            }
        }
        return Long.toString(bytes);
    }
}
