package dev.colossal.cli;

import dev.colossal.map.MapInspector;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code colossal inspect FILE}: what a map file holds, without changing it. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Show what a map file holds, without changing it.",
            "Prints its header, segments, fill, sizes, free space and a histogram of value sizes."})
public final class InspectCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "the map file")
    private Path file;

    /** Creates the command; picocli calls this. */
    public InspectCommand() {}

    @Override
    public Integer call() {
        try {
            System.out.print(MapInspector.inspect(file));
            return 0;
        } catch (Exception e) {
            return Failures.unreadable("inspect", file, e);
        }
    }
}
