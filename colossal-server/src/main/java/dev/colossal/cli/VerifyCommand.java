package dev.colossal.cli;

import dev.colossal.map.MapVerifier;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code colossal verify FILE}: checks every checksum and structure of a map file. Exit code 0
 * means sound, 1 damaged (each problem printed with its offset), 2 not readable as a map.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Check every checksum and structure of a map file.",
            "Prints each problem with the offset of the damaged bytes and what to do, and exits 0 if the file is"
                    + " sound, 1 if damaged, 2 if it is not readable as a map."})
public final class VerifyCommand implements Callable<Integer> {

    @Mixin
    private MapFileArgs args;

    /** Creates the command; picocli calls this. */
    public VerifyCommand() {}

    @Override
    public Integer call() {
        Path file = args.file;
        try {
            MapVerifier.Result r = args.walk("verify", MapVerifier::verify);
            r.notes().forEach(n -> System.out.println("note: " + n));
            r.problems().forEach(p -> System.out.println("damaged: " + p));
            System.out.println(file + ": " + r.entries() + " entries, "
                    + (r.isSound() ? "sound" : r.problems().size() + " problem(s)"));
            if (!r.isSound()) {
                System.out.println("what to do: " + advice(file, r));
            }
            return r.isSound() ? 0 : 1;
        } catch (Exception e) {
            return Failures.unreadable("verify", file, e);
        }
    }

    /** Compaction when it repairs everything; else a copy, or giving up the damaged entries. */
    private static String advice(Path file, MapVerifier.Result r) {
        if (r.isRepairable()) {
            return "run 'colossal compact " + file + "': it rebuilds the free lists and counters from the live"
                    + " entries, which are sound";
        }
        return "restore " + file + " from a copy; or, if the damage is in entries, run 'colossal repair " + file
                + "' to remove them and keep the rest (their keys are lost). Until then the operations that meet it"
                + " fail with an error naming its offset";
    }
}
