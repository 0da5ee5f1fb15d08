package dev.colossal.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * Writes a suite's rows as {@code bench/results/NAME.md} (a table for people) and
 * {@code bench/results/NAME.json} (one shape for all suites), and prints the table.
 */
final class Report {

    private final Suite suite;
    private final boolean quick;
    private final List<Row> rows;
    private final String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    private final String conditions;

    /** {@code started} and {@code loadAtStart} ({@link #loadAverage()}) are taken as the suite starts. */
    Report(Suite suite, boolean quick, List<Row> rows, Instant started, String loadAtStart) {
        this.suite = suite;
        this.quick = quick;
        this.rows = rows;
        this.conditions = "took " + Duration.between(started, Instant.now()).toMinutes() + " min; load average "
                + loadAtStart + " at start, " + loadAverage() + " at end";
    }

    /**
     * The machine's 1/5/15-minute load averages: on a shared machine they say whether other work
     * competed with the run, which the ratios alone cannot.
     */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    String command() {
        return "./colossal bench " + suite.name() + (quick ? " --quick" : "");
    }

    static String machine() {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse(cpu);
        } catch (IOException | RuntimeException ignored) {
            // Not Linux: the CPU name is only informative.
        }
        long gib = Math.round(((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize()
                / (double) (1L << 30));
        return Runtime.getRuntime().availableProcessors() + " cores, " + cpu + ", " + gib + " GiB";
    }

    String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmark suite `").append(suite.name()).append("`\n\n")
          .append(suite.description()).append("\n\n")
          .append("- command: `").append(command()).append("`\n")
          .append("- date: ").append(date).append('\n')
          .append("- JDK: ").append(System.getProperty("java.version")).append(" (")
          .append(System.getProperty("java.vm.name")).append(")\n")
          .append("- machine: ").append(machine()).append('\n')
          .append("- run: ").append(conditions).append('\n')
          .append("- JVM flags of the forks: ")
          .append(suite.jvmFlags().isEmpty() ? "none" : "`" + String.join(" ", suite.jvmFlags()) + "`")
          .append("\n- ratio: ours/peer when higher is better, peer/ours otherwise; ratio >= target means met\n\n")
          .append("| case | ours | peer | unit | ours value | peer value | ratio | target | met | note |\n")
          .append("|---|---|---|---|---:|---:|---:|---:|---|---|\n");
        for (Row r : rows) {
            md.append("| ").append(r.caseName())
              .append(" | ").append(r.ours())
              .append(" | ").append(r.peer() == null ? "" : r.peer())
              .append(" | ").append(r.unit())
              .append(" | ").append(value(r.oursValue(), r.oursError()))
              .append(" | ").append(r.peerValue() == null ? "" : value(r.peerValue(), r.peerError()))
              .append(" | ").append(r.ratio() == null ? "" : String.format(Locale.ROOT, "%.2fx", r.ratio()))
              .append(" | ").append(r.target() == null ? "" : fmt(r.target()))
              .append(" | ").append(r.met() == null ? "" : r.met() ? "yes" : "**no**")
              .append(" | ").append(r.note() == null ? "" : r.note())
              .append(" |\n");
        }
        return md.toString();
    }

    String json() {
        StringBuilder js = new StringBuilder();
        js.append("{\"suite\": ").append(str(suite.name()))
          .append(", \"date\": ").append(str(date))
          .append(", \"jdk\": ").append(str(System.getProperty("java.version")))
          .append(", \"quick\": ").append(quick)
          .append(", \"command\": ").append(str(command()))
          .append(", \"machine\": ").append(str(machine()))
          .append(", \"run\": ").append(str(conditions))
          .append(", \"jvm_flags\": ").append(str(String.join(" ", suite.jvmFlags())))
          .append(",\n \"rows\": [");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            js.append(i == 0 ? "\n  " : ",\n  ")
              .append("{\"case\": ").append(str(r.caseName()))
              .append(", \"ours\": ").append(str(r.ours()))
              .append(", \"peer\": ").append(str(r.peer()))
              .append(", \"unit\": ").append(str(r.unit()))
              .append(", \"ours_value\": ").append(num(r.oursValue()))
              .append(", \"ours_error\": ").append(num(r.oursError()))
              .append(", \"peer_value\": ").append(num(r.peerValue()))
              .append(", \"peer_error\": ").append(num(r.peerError()))
              .append(", \"higher_is_better\": ").append(r.higherIsBetter())
              .append(", \"ratio\": ").append(num(r.ratio()))
              .append(", \"target\": ").append(num(r.target()))
              .append(", \"note\": ").append(str(r.note()))
              .append('}');
        }
        return js.append("\n]}\n").toString();
    }

    void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(suite.name() + ".md"), markdown());
        Files.writeString(dir.resolve(suite.name() + ".json"), json());
    }

    private static String value(double v, Double err) {
        return err == null || err.isNaN() ? fmt(v) : fmt(v) + " ± " + fmt(err);
    }

    private static String fmt(double v) {
        double a = Math.abs(v);
        if (a != 0 && (a >= 1e6 || a < 1e-2)) {
            return String.format(Locale.ROOT, "%.3e", v);
        }
        return String.format(Locale.ROOT, a >= 100 ? "%.1f" : "%.3f", v);
    }

    private static String num(Double v) {
        return v == null || v.isNaN() || v.isInfinite() ? "null" : Double.toString(v);
    }

    private static String str(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
