package dev.colossal.map;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * Salvages a whole map file as {@link BytesMap#dropDamaged} does, one segment at a time under its
 * lock: the entries that fail their checks are removed and their space freed, every other entry
 * stays. What {@code colossal repair} runs; the map may be in use meanwhile.
 */
public final class MapRepairer {

    private MapRepairer() {
    }

    /**
     * The outcome of a repair.
     *
     * @param file    the map file
     * @param entries live entries afterwards
     * @param dropped file offsets of the damaged entries removed (their keys are lost)
     */
    public record Result(Path file, long entries, long[] dropped) {

        /**
         * Copies the offsets.
         *
         * @param file    the map file
         * @param entries live entries afterwards
         * @param dropped offsets of the entries removed
         */
        public Result {
            dropped = dropped.clone();
        }

        /**
         * Returns the offsets of the entries removed.
         *
         * @return a copy of the offsets
         */
        @Override
        public long[] dropped() {
            return dropped.clone();
        }
    }

    /**
     * Removes the damaged entries of the map in {@code file}.
     *
     * @param file     the map file; it is not created if absent
     * @param progress receives the percentage done after each segment (may be null)
     * @return what was removed
     * @throws MapFormatException    if the header is damaged, foreign, newer or the file truncated
     * @throws MapCorruptedException if a segment's table or chunks are damaged: the segments before
     *                               it are repaired, it and those after it are left as they were
     * @throws IOException           if the file cannot be read
     */
    public static Result repair(Path file, IntConsumer progress) throws IOException {
        Objects.requireNonNull(file, "file");
        try (BytesMap map = BytesMap.openExisting(file)) {
            long[] dropped = map.dropDamaged(progress);
            return new Result(file, map.size(), dropped);
        }
    }
}
