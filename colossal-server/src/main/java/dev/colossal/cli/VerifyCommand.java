package dev.colossal.cli;

import dev.colossal.map.MapVerifier;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code colossal verify FILE}: checks every checksum and structure of a map file. Exit code 0
 * means sound, 1 damaged (each problem printed with its offset), 2 not readable as a map.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Check every checksum and structure of a map file; exit 0 if sound, 1 if damaged, 2 if unreadable.")
public final class VerifyCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "the map file")
    private Path file;

    @Option(names = "--progress", negatable = true, description = "show a progress bar on stderr (default: when on a terminal)")
    private Boolean progress;

    /** Creates the command; picocli calls this. */
    public VerifyCommand() {}

    @Override
    public Integer call() {
        boolean show = progress != null ? progress : System.console() != null;
        try {
            MapVerifier.Result r = MapVerifier.verify(file, show ? VerifyCommand::bar : null);
            if (show) {
                System.err.println();
            }
            r.notes().forEach(n -> System.out.println("note: " + n));
            r.problems().forEach(p -> System.out.println("damaged: " + p));
            System.out.println(file + ": " + r.entries() + " entries, "
                    + (r.isSound() ? "sound" : r.problems().size() + " problem(s)"));
            if (!r.isSound()) {
                System.out.println("what to do: " + advice(r));
            }
            return r.isSound() ? 0 : 1;
        } catch (Exception e) {
            return Failures.unreadable("verify", file, e);
        }
    }

    /** Restoring a copy unless compaction repairs everything: the map offers no other repair. */
    private String advice(MapVerifier.Result r) {
        if (r.isRepairable()) {
            return "compact the map (BytesMap.compact()): it rebuilds the free lists and counters from the live"
                    + " entries, which are sound";
        }
        return "restore " + file + " from a copy: this damage cannot be repaired in place, and until then the"
                + " operations that meet it fail with an error naming its offset";
    }

    private static void bar(int percent) {
        int filled = percent / 5;
        System.err.print("\r[" + "#".repeat(filled) + " ".repeat(20 - filled) + "] " + percent + "%");
        System.err.flush();
    }
}
