package dev.colossal.cli;

import dev.colossal.map.BytesMap;
import dev.colossal.map.MapCopier;
import dev.colossal.map.MapCorruptedException;
import dev.colossal.map.MapOptions;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code colossal copy FILE TARGET}: a packed copy of a map, which gives back the space of deleted
 * entries and holes, is a backup of a map in use, or changes a map's layout. Exit code 0 when done,
 * 1 if damage stopped it, 2 if the source is not readable as a map or the target exists.
 */
@Command(name = "copy", mixinStandardHelpOptions = true,
        description = {"Copy a map's live entries into a new, packed map file.",
            "Gives back the disk space of deleted entries and holes (replace the file by its copy once the"
                    + " processes using it are stopped), takes a backup of a map in use, or changes its layout."
                    + " Each segment is copied at one moment; the source may be in use meanwhile."})
public final class CopyCommand implements Callable<Integer> {

    @Mixin
    private MapFileArgs args;

    @Parameters(index = "1", paramLabel = "TARGET", description = "the new map file; must not exist")
    private Path target;

    @Option(names = "--segments", paramLabel = "N",
            description = "segments of the copy, a power of two from 1 to 65536 (default: the source's)")
    private Integer segments;

    @Option(names = "--checksums", negatable = true,
            description = "whether the copy's entries carry checksums (default: as the source's)")
    private Boolean checksums;

    @Option(names = "--max-bytes", paramLabel = "SIZE", converter = ByteSize.class,
            description = "bound on the copy's entry bytes, e.g. 100mb (what serve --maxmemory sets), 0 for none; a"
                    + " bound smaller than the entries need evicts as the copy fills (default: the source's)")
    private Long maxBytes;

    @Option(names = "--max-entries", paramLabel = "N",
            description = "bound on the copy's entries, 0 for none (default: the source's)")
    private Long maxEntries;

    /** Creates the command; picocli calls this. */
    public CopyCommand() {}

    @Override
    public Integer call() {
        try {
            try {
                layout(MapOptions.DEFAULTS);   // refuse a bad count or bound before reading anything
            } catch (IllegalArgumentException e) {
                String given = ((segments != null ? " --segments=" + segments : "")
                        + (maxBytes != null ? " --max-bytes=" + maxBytes : "")
                        + (maxEntries != null ? " --max-entries=" + maxEntries : "")).strip();
                return Failures.report("copy", given + ": " + e.getMessage());
            }
            MapCopier.Result r = args.walk("copy", (file, progress) -> MapCopier.copy(file, target, this::layout, progress));
            // A bound smaller than the entries need evicts as the copy fills: say what is left.
            String kept = "";
            if (maxBytes != null || maxEntries != null) {
                try (BytesMap copy = BytesMap.openReadOnly(target)) {
                    kept = copy.size() < r.entries() ? ", " + copy.size() + " kept within the bound" : "";
                }
            }
            System.out.println(r.source() + " (" + ByteSize.format(r.sourceBytes()) + ") -> " + r.target() + " ("
                    + ByteSize.format(r.targetBytes()) + "): " + r.entries() + " entries" + kept);
            return 0;
        } catch (IllegalArgumentException e) {
            // An entry larger than a segment's share of a smaller --max-bytes: the map says which
            return Failures.report("copy", "no copy written: " + e.getMessage());
        } catch (FileAlreadyExistsException e) {
            return Failures.report("copy", target + " exists; name a new file (copy never overwrites one)");
        } catch (MapCorruptedException e) {
            System.err.println("colossal copy: stopped at damage, no copy written: " + e.getMessage()
                    + "; 'colossal repair " + args.file + "' drops damaged entries, then copy again");
            return 1;
        } catch (FileSystemException e) {
            if (e.getFile() != null && !Path.of(e.getFile()).toAbsolutePath().equals(args.file.toAbsolutePath())) {
                return Failures.report("copy", e.getFile() + ": " + e.getReason() + targetAdvice(e));
            }
            return Failures.unreadable("copy", args.file, e);
        } catch (Exception e) {
            return Failures.unreadable("copy", args.file, e);
        }
    }

    /** What to do about a failure on the target's side, which the library has cleaned up after. */
    private String targetAdvice(FileSystemException e) {
        if (e instanceof NoSuchFileException) {
            return ""; // the library's reason says to create the directory
        }
        if (e instanceof AccessDeniedException) {
            return "; choose a directory you can write";
        }
        // Out of space, or past a quota or file size limit: nothing of the copy is left to remove.
        String source;
        try {
            source = "the source is " + ByteSize.format(Files.size(args.file)) + "; ";
        } catch (IOException sizeUnknown) {
            source = "";
        }
        return "; free space there or copy to another disk (" + source + "nothing was left behind)";
    }

    private MapOptions layout(MapOptions source) {
        MapOptions o = segments != null ? source.withSegments(segments) : source;
        o = maxBytes != null ? o.withMaxBytes(maxBytes) : o;
        o = maxEntries != null ? o.withMaxEntries(maxEntries) : o;
        return checksums != null ? o.withChecksums(checksums) : o;
    }
}
