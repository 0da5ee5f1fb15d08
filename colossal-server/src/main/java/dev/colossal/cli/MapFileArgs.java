package dev.colossal.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.IntConsumer;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The FILE parameter and the --progress flag of the commands that walk a whole map file. */
final class MapFileArgs {

    /** A library walk over a map file that reports its percentage done, e.g. {@code MapVerifier::verify}. */
    interface Walk<T> {
        T run(Path file, IntConsumer percentDone) throws IOException;
    }

    @Parameters(index = "0", paramLabel = "FILE", description = "the map file")
    Path file;

    @Option(names = "--progress", negatable = true, description = "show a progress bar on stderr (default: when on a terminal)")
    private Boolean progress;

    /** Runs {@code walk} over the file with a progress bar as --progress says, cleared whatever happens. */
    <T> T walk(String label, Walk<T> walk) throws IOException {
        Progress bar = new Progress(label, 100, progress != null ? progress : System.console() != null);
        try {
            return walk.run(file, bar::at);
        } finally {
            bar.done();
        }
    }
}
