package dev.colossal.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's resident memory and CPU time as Linux's /proc reports them, for INFO's Redis
 * fields that the JVM's own beans do not give: resident memory, and CPU split into user and system.
 * Elsewhere, or if /proc cannot be read, every value is -1 and INFO leaves the field out.
 */
final class ProcessStats {

    /**
     * /proc counts CPU time in USER_HZ ticks, which Linux fixes at 100 a second for user space on
     * every architecture the JDK runs on (only the kernel's own HZ varies); reading sysconf would
     * need native code.
     */
    private static final double TICKS_PER_SECOND = 100;

    private ProcessStats() {}

    /**
     * @param field a line's name in /proc/self/status, e.g. {@code VmRSS} (resident memory) or
     *     {@code RssAnon} (its anonymous part: heap, buffers, code, stacks, not the map file's pages)
     * @return its value in bytes, or -1
     */
    static long statusBytes(String field) {
        return kibField(Path.of("/proc/self/status"), field);
    }

    /** A {@code Name:   123 kB} line of a /proc file, in bytes; -1 if it cannot be read. */
    private static long kibField(Path file, String field) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(field + ":")) {
                    String kib = line.substring(field.length() + 1).trim();
                    return Long.parseLong(kib.substring(0, kib.indexOf(' '))) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a format this does not know: the field is left out
        }
        return -1;
    }

    /** @return the machine's memory (MemTotal in /proc/meminfo) in bytes, or -1 */
    static long systemMemoryBytes() {
        return kibField(Path.of("/proc/meminfo"), "MemTotal");
    }

    /** @return seconds of CPU this process spent in user mode and in the kernel, or {-1, -1} */
    static double[] cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // The command name in parentheses may hold spaces; fields 14 and 15 (utime, stime)
            // count from the state, field 3, just after it.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new double[] {Long.parseLong(f[11]) / TICKS_PER_SECOND, Long.parseLong(f[12]) / TICKS_PER_SECOND};
        } catch (IOException | RuntimeException e) {
            return new double[] {-1, -1};
        }
    }
}
