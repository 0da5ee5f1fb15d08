package dev.colossal.cli;

import dev.colossal.map.MapCompactor;
import dev.colossal.map.MapCorruptedException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code colossal compact FILE}: rebuilds a map file's free space from its live entries and empties
 * mostly-free chunks into spare extents (see {@code BytesMap#compact}), what
 * {@code verify} recommends for leaked space and damaged free lists. Exit code 0 when done, 1 if a
 * damaged segment stopped it, 2 if the file is not readable as a map.
 */
@Command(name = "compact", mixinStandardHelpOptions = true,
        description = {"Rebuild a map file's free space from its live entries.",
            "Merges free runs, takes back space leaked by crashes and repairs damaged free lists and counters;"
                    + " moves entries out of mostly-free chunks, which then serve every segment. The map may be in"
                    + " use meanwhile (readers of a segment wait while it is compacted); the file does not shrink:"
                    + " 'copy' packs the entries into a new file."})
public final class CompactCommand implements Callable<Integer> {

    /** Below this much free heap a copy is not worth stopping a map's users for (a new map's chunks are free too). */
    private static final long WORTH_A_COPY = 8L << 20;

    @Mixin
    private MapFileArgs args;

    /** Creates the command; picocli calls this. */
    public CompactCommand() {}

    /**
     * What the free space gained, in words that do not cry crash when none happened: on a sound
     * map it is only the headers of chunks emptied into spare extents, which count whole there.
     */
    private static String gained(MapCompactor.Result r) {
        if (r.leakedBytes() > 0) {
            return " (" + ByteSize.format(r.takenBack()) + " more than before, " + ByteSize.format(r.leakedBytes())
                    + " of it leaked by a process that died while writing, or lost to damaged free lists)";
        }
        String more = r.takenBack() > 0
                ? " (" + ByteSize.format(r.takenBack()) + " more than before: the headers of chunks emptied into spare extents)"
                : "";
        return more + "; no leaked space found";
    }

    @Override
    public Integer call() {
        Path file = args.file;
        try {
            MapCompactor.Result r = args.walk("compact", MapCompactor::compact);
            System.out.println(file + ": " + r.entries() + " entries; " + ByteSize.format(r.freeBytes()) + " free"
                    + gained(r));
            long fileBytes = java.nio.file.Files.size(file);
            if (r.freeBytes() > Math.max(fileBytes / 4, WORTH_A_COPY)) {
                // Free heap stays in the file for the map's next entries; only a copy gives it to the disk.
                System.out.println("to give the free space back to the disk: 'colossal copy " + file + " NEW_FILE',"
                        + " then move NEW_FILE over " + file + " while no process uses the map");
            }
            return 0;
        } catch (MapCorruptedException e) {
            // The segments before the damaged one are compacted; it and the rest are as they were.
            System.err.println("colossal compact: stopped at damage: " + e.getMessage());
            return 1;
        } catch (Exception e) {
            return Failures.unreadable("compact", file, e);
        }
    }
}
