package dev.colossal.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses sizes such as {@code 64T}, {@code 1g}, {@code 4096} (binary units: K = 1024). */
final class ByteSize implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    static long parse(String value) {
        String v = value.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        if (v.isEmpty()) {
            throw new TypeConversionException("empty size; write a number with an optional K, M, G, T or P");
        }
        int shift = switch (v.charAt(v.length() - 1)) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            case 'T' -> 40;
            case 'P' -> 50;
            default -> 0;
        };
        String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 0 || (shift > 0 && n > (Long.MAX_VALUE >> shift))) {
                throw new TypeConversionException("size=" + value + " is negative or too large");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("size=" + value + " is not a size; write e.g. 4096, 64M, 1G or 64T");
        }
    }

    static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int u = 0;
        double v = bytes;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v == Math.rint(v) ? "%.0f %s" : "%.1f %s", v, units[u]);
    }
}
