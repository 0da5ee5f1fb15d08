package dev.colossal.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import picocli.CommandLine;

/** Runs the command line in-process for tests, capturing what it prints. */
public final class Cli {

    /** What a run printed and its exit code. */
    public record Run(int exit, String out, String err) {}

    private Cli() {}

    public static synchronized Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, UTF_8));
        System.setErr(new PrintStream(err, true, UTF_8));
        try {
            int exit = new CommandLine(new Main()).execute(args);
            return new Run(exit, out.toString(UTF_8), err.toString(UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
