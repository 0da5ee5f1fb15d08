package dev.colossal.cli;

import java.io.PrintStream;

/** A one-line progress bar on stderr for long CLI work; silent when stderr is not a terminal. */
final class Progress {

    private static final int WIDTH = 30;
    private final String label;
    private final long total;
    private final PrintStream out = System.err;
    private final boolean enabled = System.console() != null;
    private long done;

    Progress(String label, long total) {
        this.label = label;
        this.total = Math.max(1, total);
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
