package dev.colossal.cli;

import dev.colossal.map.MapCorruptedException;
import dev.colossal.map.MapRepairer;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code colossal repair FILE}: removes a map's damaged entries and keeps the rest, for damage
 * {@code verify} or a read reported in entries. Exit code 0 when done, 1 if damage it cannot
 * remove (a table or chunk list) stopped it, 2 if the file is not readable as a map.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = {"Remove a map file's damaged entries and keep every other one.",
            "Entries with a bad checksum, a malformed header or a place outside the file are removed and their space"
                    + " freed; their keys are lost, so restore those from elsewhere. A damaged table or chunk list"
                    + " needs a copy of the file. The map may be in use meanwhile."})
public final class RepairCommand implements Callable<Integer> {

    /** Offsets listed one by one; beyond, only their count. */
    private static final int LISTED = 20;

    @Mixin
    private MapFileArgs args;

    /** Creates the command; picocli calls this. */
    public RepairCommand() {}

    @Override
    public Integer call() {
        Path file = args.file;
        try {
            MapRepairer.Result r = args.walk("repair", MapRepairer::repair);
            long[] dropped = r.dropped();
            for (int i = 0; i < Math.min(dropped.length, LISTED); i++) {
                System.out.println("removed: damaged entry at offset=" + dropped[i]);
            }
            if (dropped.length > LISTED) {
                System.out.println("removed: " + (dropped.length - LISTED) + " more damaged entries");
            }
            System.out.println(file + ": " + dropped.length + " damaged entries removed, " + r.entries() + " entries kept");
            return 0;
        } catch (MapCorruptedException e) {
            System.err.println("colossal repair: stopped at damage it cannot remove: " + e.getMessage()
                    + "; restore " + file + " from a copy");
            return 1;
        } catch (Exception e) {
            return Failures.unreadable("repair", file, e);
        }
    }
}
