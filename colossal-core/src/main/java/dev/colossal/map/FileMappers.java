package dev.colossal.map;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Tells whether a live process maps this very file, so that a lock word copied with the file is
 * not taken for a live owner's. A copy made while a writer held a segment's lock ({@code cp} of a
 * file in use, a file system snapshot, a backup tool) carries that writer's token; opened on the
 * same machine while the writer still runs, the copy's lock looked held for ever: every write to
 * the segment waited, and so did {@code verify}, {@code inspect} and a server's stop. The writer
 * holds locks in the file it maps, never in the copy, so a live owner that does not map the
 * copy's inode is as gone as a dead one: the lock is taken over and the segment repaired.
 *
 * <p>Linux only, from {@code /proc}: the device and inode that {@code /proc/self/maps} shows for
 * this process's own mapping of the file are looked for in {@code /proc/PID/maps} of the owner.
 * Both come from the same kernel code for the same inode, so no file system's own notion of a
 * device number (btrfs subvolumes, overlayfs) can make a live owner look absent. Anything not known
 * for sure (no {@code /proc}, another user's process this one may not look into) counts as
 * mapped: a lock is never taken from a process that may hold it. Read only by a waiter that
 * already waited {@link OwnerLock#LIVENESS_CHECK_NANOS}, once per owner.
 */
final class FileMappers {

    private static final String UNKNOWN = "";

    private final Supplier<MemorySegment> mapping;
    /** "dev inode" of this file as the kernel shows our mapping of it; null until first needed. */
    private volatile String identity;
    /** The last owner token seen mapping the file: it maps it for as long as it lives and holds a lock. */
    private volatile long confirmed;

    /** @param mapping this process's current mapping of the file */
    FileMappers(Supplier<MemorySegment> mapping) {
        this.mapping = mapping;
    }

    /**
     * @param token a live process's owner token ({@link OwnerLock})
     * @return false only if that process certainly does not map this file
     */
    boolean mappedBy(long token) {
        if (token == confirmed) {
            return true;
        }
        String id = identity();
        if (id.equals(UNKNOWN)) {
            return true;
        }
        boolean mapped;
        try {
            mapped = maps(Path.of("/proc", Long.toString(OwnerLock.pid(token)), "maps"), id);
        } catch (IOException | UncheckedIOException | SecurityException notReadable) {
            return true;
        }
        if (mapped) {
            confirmed = token;
        }
        return mapped;
    }

    private String identity() {
        String id = identity;
        if (id == null) {
            id = ownIdentity(mapping.get().address());
            identity = id;
        }
        return id;
    }

    /** The "dev inode" of the mapping that holds {@code address} in this process, or {@link #UNKNOWN}. */
    private static String ownIdentity(long address) {
        try (BufferedReader in = Files.newBufferedReader(Path.of("/proc/self/maps"), StandardCharsets.ISO_8859_1)) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split("\\s+", 6);
                int dash = f[0].indexOf('-');
                if (f.length < 5 || dash < 0) {
                    continue;
                }
                long start = Long.parseUnsignedLong(f[0], 0, dash, 16);
                long end = Long.parseUnsignedLong(f[0], dash + 1, f[0].length(), 16);
                if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                    return f[4].equals("0") ? UNKNOWN : f[3] + " " + f[4];
                }
            }
        } catch (IOException | UncheckedIOException | SecurityException | NumberFormatException e) {
            return UNKNOWN;
        }
        return UNKNOWN;
    }

    private static boolean maps(Path maps, String id) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(maps, StandardCharsets.ISO_8859_1)) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split("\\s+", 6);
                if (f.length >= 5 && id.equals(f[3] + " " + f[4])) {
                    return true;
                }
            }
        }
        return false;
    }
}
