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
     * @param fields lines' names in /proc/self/status, e.g. {@code VmRSS} (resident memory) or
     *     {@code RssAnon} (its anonymous part: heap, buffers, code, stacks, not the map file's pages)
     * @return their values in bytes, -1 for one that cannot be read; the file is read once (INFO
     *     read it whole, as lines of text, for each field: two thirds of its time)
     */
    static long[] statusBytes(String... fields) {
        return kibFields(Path.of("/proc/self/status"), fields);
    }

    /** {@code Name:   123 kB} lines of a /proc file, in bytes; -1 for each that cannot be read. */
    private static long[] kibFields(Path file, String... fields) {
        long[] out = new long[fields.length];
        java.util.Arrays.fill(out, -1);
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            return out; // not Linux: the fields are left out
        }
        for (int i = 0; i < fields.length; i++) {
            byte[] name = (fields[i] + ":").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            for (int line = 0; line < text.length; ) {
                int end = line;
                while (end < text.length && text[end] != '\n') {
                    end++;
                }
                if (end - line > name.length && java.util.Arrays.equals(text, line, line + name.length, name, 0, name.length)) {
                    out[i] = kib(text, line + name.length, end);
                    break;
                }
                line = end + 1;
            }
        }
        return out;
    }

    /** The number of {@code   123 kB} in {@code text[from, to)}, in bytes; -1 if there is none. */
    private static long kib(byte[] text, int from, int to) {
        int at = from;
        while (at < to && text[at] == ' ' || at < to && text[at] == '\t') {
            at++;
        }
        long v = 0;
        int digits = 0;
        for (; at < to && text[at] >= '0' && text[at] <= '9' && digits < 18; at++, digits++) {
            v = v * 10 + text[at] - '0';
        }
        return digits == 0 ? -1 : v * 1024;
    }

    /** MemTotal does not change while the process runs: read once. */
    private static final class SystemMemory {
        static final long BYTES = kibFields(Path.of("/proc/meminfo"), "MemTotal")[0];
    }

    /** @return the machine's memory (MemTotal in /proc/meminfo) in bytes, or -1 */
    static long systemMemoryBytes() {
        return SystemMemory.BYTES;
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
