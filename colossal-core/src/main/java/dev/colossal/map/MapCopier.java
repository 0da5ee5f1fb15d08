package dev.colossal.map;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;

/**
 * Copies a map's live entries into a new file, packed: what gives disk space back once entries
 * were deleted or value sizes changed (a map file never shrinks in place, as other processes map
 * it), what takes a backup of a map in use, and the way to give a map another layout (more
 * segments, checksums on or off). {@code colossal copy} runs it.
 *
 * <p>The copy is written to a hidden file beside the target and linked into place only when it is
 * complete and synced, so the target either does not exist or holds the whole copy; the hidden
 * file of a copy that was killed is removed by the next copy to that target. The map is walked as
 * {@link BytesMap#forEach} walks it, a step at a time with that step's writers held off (readers
 * go on): an entry present throughout is copied, one added or removed meanwhile may or may not be.
 * Entries keep their expiry times; expired ones are left behind.
 */
public final class MapCopier {

    private MapCopier() {
    }

    /**
     * The outcome of a copy.
     *
     * @param source      the map copied
     * @param target      the new map file
     * @param entries     entries copied
     * @param sourceBytes the source file's size when the copy ended
     * @param targetBytes the new file's size
     */
    public record Result(Path source, Path target, long entries, long sourceBytes, long targetBytes) {
    }

    /**
     * Copies the map in {@code source} to the new file {@code target}, with the source's layout.
     * The source may be in use meanwhile; a file this user may not write is read without locks.
     *
     * @param source   an existing map file
     * @param target   where the copy goes; must not exist
     * @param layout   the copy's layout from the source's (which has a size hint of its entries),
     *                 e.g. {@code o -> o.withSegments(256)}; null keeps the source's
     * @param progress receives the percentage done after each segment (may be null)
     * @return what was copied
     * @throws FileAlreadyExistsException if {@code target} exists
     * @throws MapFormatException         if the source's header is damaged, foreign or newer
     * @throws MapCorruptedException      if an entry of the source is damaged (no target is left
     *                                    behind; {@code colossal repair} the source first)
     * @throws IOException                if a file cannot be read or written (the disk is full)
     */
    public static Result copy(Path source, Path target, UnaryOperator<MapOptions> layout, IntConsumer progress)
            throws IOException {
        Objects.requireNonNull(source, "source");
        try (BytesMap map = BytesMap.openForTools(source)) {
            long entries = copy(map, target, layout, progress);
            return new Result(source, target, entries, map.file.size(), Files.size(target));
        }
    }

    /** Copies {@code map} to {@code target} (see {@link #copy(Path, Path, UnaryOperator, IntConsumer)}); returns the entries copied. */
    static long copy(BytesMap map, Path target, UnaryOperator<MapOptions> layout, IntConsumer progress) throws IOException {
        Path absolute = Objects.requireNonNull(target, "target").toAbsolutePath();
        refuseExisting(absolute);
        MapOptions own = map.file.layout();
        own = own.withExpectedEntries(Math.max(own.expectedEntries(), map.size()));
        MapOptions options = layout == null ? own : Objects.requireNonNull(layout.apply(own), "layout returned null");
        Path dir = absolute.getParent();
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "the copy's directory does not exist; create it first");
        }
        String prefix = "." + absolute.getFileName() + ".copying-";
        StaleTemporaries.removeDead(dir, prefix);
        Path tmp = StaleTemporaries.name(dir, prefix);
        try {
            long entries;
            try (BytesMap copy = openCopy(tmp, absolute, options)) {
                map.file.copyCodecsTo(copy.file);
                entries = copySegments(map, copy, progress);
                copy.sync();
            } catch (UncheckedIOException e) {
                throw cannotWrite(absolute, e.getCause()); // the copy could not grow: the disk is full
            }
            try {
                Files.createLink(absolute, tmp);
            } catch (FileAlreadyExistsException raced) {
                refuseExisting(absolute);
                throw raced;
            }
            syncDirectory(absolute.getParent());
            return entries;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Creates the hidden copy. */
    private static BytesMap openCopy(Path tmp, Path target, MapOptions options) throws IOException {
        try {
            return BytesMap.open(tmp, options);
        } catch (IOException e) {
            throw cannotWrite(target, e);
        }
    }

    /**
     * A failure to write the copy, named for the target the user gave: the hidden file it happened
     * in is deleted by the time anyone reads the message (the trial saw a bare "No space left on
     * device", or the hidden file's name).
     */
    private static FileSystemException cannotWrite(Path target, IOException e) {
        // A FileSystemException's message is the hidden file's name when it has no reason.
        String reason = e instanceof FileSystemException fs
                ? fs.getReason() != null ? fs.getReason() : e instanceof AccessDeniedException ? "permission denied" : "refused"
                : e.getMessage() != null ? e.getMessage() : "input/output error";
        FileSystemException named = e instanceof AccessDeniedException
                ? new AccessDeniedException(target.toString(), null, "cannot write the copy: " + reason)
                : new FileSystemException(target.toString(), null, "cannot write the copy: " + reason);
        named.initCause(e);
        return named;
    }

    private static void refuseExisting(Path target) throws FileAlreadyExistsException {
        if (Files.exists(target)) {
            throw new FileAlreadyExistsException(target.toString(), null,
                    "the copy's target exists; name a new file (a copy never overwrites one)");
        }
    }

    private static long copySegments(BytesMap from, BytesMap to, IntConsumer progress) {
        long[] entries = {0};
        int n = from.segmentCount();
        List<Void> none = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long end = (long) (i + 1) << SlotLayout.TAG_BITS;
            for (long cursor = (long) i << SlotLayout.TAG_BITS; cursor < end; ) {
                // Written into the copy as the walk meets them: nothing is kept on the heap.
                cursor = from.walkStep(cursor, end, (k, v, expiresAt) -> {
                    to.write(k, v, expiresAt, false);
                    entries[0]++;
                    return null;
                }, none);
            }
            if (progress != null) {
                progress.accept((int) ((i + 1) * 100L / n));
            }
        }
        return entries[0];
    }

    /** Makes the new name durable: a link is an entry in the directory, which has its own blocks. */
    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
