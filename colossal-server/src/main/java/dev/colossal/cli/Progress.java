package dev.colossal.cli;

import java.io.PrintStream;

/** A one-line progress bar on stderr for long CLI work; by default silent when there is no terminal. */
final class Progress {

    private static final int WIDTH = 30;
    private final String label;
    private final long total;
    private final PrintStream out = System.err;
    private final boolean enabled;
    private long done;

    Progress(String label, long total) {
        this(label, total, System.console() != null);
    }

    /** A bar shown only if {@code enabled}: for commands whose --progress flag decides. */
    Progress(String label, long total, boolean enabled) {
        this.label = label;
        this.total = Math.max(1, total);
        this.enabled = enabled;
    }

    /** Moves the bar to {@code count} steps done, e.g. a percentage reported by the library. */
    void at(int count) {
        advance(count - done);
    }

    void step() {
        advance(1);
    }

    void advance(long n) {
        done = Math.min(total, done + n);
        if (enabled) {
            int filled = (int) (WIDTH * done / total);
            out.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] "
                    + (100 * done / total) + "%");
            out.flush();
        }
    }

    void done() {
        if (enabled) {
            out.print("\r" + " ".repeat(label.length() + WIDTH + 10) + "\r");
            out.flush();
        }
    }
}
