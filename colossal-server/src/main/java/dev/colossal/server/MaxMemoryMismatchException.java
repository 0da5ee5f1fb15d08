package dev.colossal.server;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The data directory's map was created with another bound than this start asks for. The map
 * keeps its bound in its file and cannot change it, and served with the old one it would go on
 * evicting by it (or not at all) whatever {@code --maxmemory} says. The message names the bound
 * the file holds, the one asked for, and what to do: start with the file's flags, or copy the map
 * into a new directory with the new bound.
 */
public final class MaxMemoryMismatchException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Whether the file keeps no bound at all (it was made under noeviction or another sampled policy). */
    private final boolean keptNone;

    MaxMemoryMismatchException(Path dir, Path file, long keptBytes, long keptEntries, long askedBytes) {
        super(message(dir, file, keptBytes, keptEntries, askedBytes));
        this.keptNone = keptBytes == 0 && keptEntries == 0;
    }

    /** @return whether the map file keeps no bound, so that the one asked for can be the server's instead */
    boolean keptNone() {
        return keptNone;
    }

    private static String message(Path dir, Path file, long keptBytes, long keptEntries, long askedBytes) {
        String kept = keptEntries != 0 ? "a bound of " + keptEntries + " entries (set by a program or 'colossal copy'; serve"
                + " bounds bytes only)" : keptBytes != 0 ? flags(keptBytes) : "no bound (noeviction)";
        String asked = askedBytes != 0 ? flags(askedBytes)
                : "no bound in the map file (no --maxmemory, or --maxmemory-policy noeviction, whose bound is the server's)";
        String same = keptEntries != 0 ? "" : "start with " + (keptBytes != 0 ? flags(keptBytes) : "no --maxmemory") + ", or ";
        boolean evicts = askedBytes != 0 && (keptBytes == 0 || askedBytes < keptBytes);
        return "data directory " + dir.toAbsolutePath() + " holds a map created with " + kept + " (" + file
                + " keeps its bound), but this start asks for " + asked + "; a map's bound cannot change: " + same
                + "copy the map into a new data directory with the bound you want ('colossal copy " + file
                + " NEW_DIR/" + file.getFileName() + " --max-bytes " + MemorySize.format(askedBytes)
                + (keptEntries != 0 ? " --max-entries 0" : "") + "'" + (evicts ? ", which evicts what does not fit" : "")
                + ") and serve that (--data NEW_DIR), or move the directory away to start empty";
    }

    private static String flags(long bytes) {
        return "--maxmemory " + MemorySize.format(bytes) + " --maxmemory-policy " + ServerConfig.ALLKEYS_LRU;
    }
}
