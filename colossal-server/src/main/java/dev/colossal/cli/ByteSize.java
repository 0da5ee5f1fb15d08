package dev.colossal.cli;

import dev.colossal.server.MemorySize;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads every size flag as redis.conf reads a size ({@link MemorySize}: {@code 100m} is 100,000,000
 * bytes, {@code 100mb} and {@code 100MiB} 104,857,600), so that one CLI has one meaning of a unit,
 * and writes sizes in binary units with their {@code i} ({@code 95.4 MiB}), which no one misreads.
 */
final class ByteSize implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        try {
            return MemorySize.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
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
