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
        long[] out = new long[fields.length];
        java.util.Arrays.fill(out, -1);
        synchronized (STATUS) {
            int length = STATUS.read();
            if (length >= 0) {
                kibFields(STATUS.bytes, length, fields, out);
            }
        }
        return out;
    }

    /** {@code Name:   123 kB} lines of {@code text[0, length)} into {@code out}, in bytes; unfound ones are left. */
    private static void kibFields(byte[] text, int length, String[] fields, long[] out) {
        for (int i = 0; i < fields.length; i++) {
            byte[] name = (fields[i] + ":").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            for (int line = 0; line < length; ) {
                int end = line;
                while (end < length && text[end] != '\n') {
                    end++;
                }
                if (end - line > name.length && java.util.Arrays.equals(text, line, line + name.length, name, 0, name.length)) {
                    out[i] = kib(text, line + name.length, end);
                    break;
                }
                line = end + 1;
            }
        }
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
        static final long BYTES = memTotal();

        private static long memTotal() {
            long[] out = {-1};
            try {
                byte[] text = Files.readAllBytes(Path.of("/proc/meminfo"));
                kibFields(text, text.length, new String[] {"MemTotal"}, out);
            } catch (IOException | RuntimeException e) {
                // not Linux: the field is left out
            }
            return out[0];
        }
    }

    /** @return the machine's memory (MemTotal in /proc/meminfo) in bytes, or -1 */
    static long systemMemoryBytes() {
        return SystemMemory.BYTES;
    }

    /** @return seconds of CPU this process spent in user mode and in the kernel, or {-1, -1} */
    static double[] cpuSeconds() {
        synchronized (STAT) {
            int length = STAT.read();
            byte[] text = STAT.bytes;
            // The command name in parentheses may hold spaces: fields count from the state, field
            // 3, just after the last ')'; utime and stime are fields 14 and 15.
            int at = length;
            while (--at >= 0 && text[at] != ')') {
                // back to the name's end
            }
            if (length < 0 || at < 0) {
                return new double[] {-1, -1};
            }
            at += 2;
            for (int field = 3; field < 14 && at < length; at++) {
                if (text[at] == ' ') {
                    field++;
                }
            }
            long user = 0;
            for (; at < length && text[at] != ' '; at++) {
                user = user * 10 + text[at] - '0';
            }
            long system = 0;
            for (at++; at < length && text[at] >= '0' && text[at] <= '9'; at++) {
                system = system * 10 + text[at] - '0';
            }
            return new double[] {user / TICKS_PER_SECOND, system / TICKS_PER_SECOND};
        }
    }

    /** /proc/self/stat, for {@link #cpuSeconds}: callers hold its lock. */
    private static final ProcFile STAT = new ProcFile(Path.of("/proc/self/stat"));
    /** /proc/self/status, for {@link #statusBytes}: callers hold its lock. */
    private static final ProcFile STATUS = new ProcFile(Path.of("/proc/self/status"));
}
