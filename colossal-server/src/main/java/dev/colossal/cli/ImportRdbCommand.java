package dev.colossal.cli;

import dev.colossal.rdb.RdbFormatException;
import dev.colossal.rdb.RdbReader;
import dev.colossal.server.DataDirInUseException;
import dev.colossal.server.DataDirWriter;
import dev.colossal.server.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code colossal import-rdb DUMP.rdb}: a Redis snapshot's string, hash, set and sorted set keys, with their TTLs, into a
 * data directory that {@code colossal serve} then serves. The dump is read twice: a check pass
 * (structure and CRC-64, and which databases it fills) before anything is written, then the load,
 * so that a damaged file, or a target that is in use or not empty, leaves the directory as it was.
 * Exit code 0 when imported, 1 if the dump is damaged or the load stopped, 2 if it could not start.
 */
@Command(name = "import-rdb", mixinStandardHelpOptions = true,
        description = {"Import a Redis dump's keys into a data directory.",
            "The dump is what redis-cli SAVE writes (dump.rdb); 'colossal serve' then serves the directory. Each key"
                    + " holding a string, a hash, a set, a list or a sorted set is imported with its TTL into its database's"
                    + " map file; other types (streams, modules, hashes in Redis 6's encodings) and keys already expired are counted and"
                    + " left out. The dump is"
                    + " checked whole (structure and CRC-64) before anything is written."})
public final class ImportRdbCommand implements Callable<Integer> {

    private static final String NAME = "import-rdb";

    @Parameters(index = "0", paramLabel = "DUMP", description = "the RDB file, e.g. /var/lib/redis/dump.rdb")
    private Path dump;

    @Option(names = "--data", paramLabel = "DIR", description = "the data directory to import into (default: ./data, as serve's)")
    private Path data = Path.of("data");

    @Option(names = "--replace", description = "import into databases that already hold keys: a key in the dump replaces"
            + " the one there, other keys stay (default: refuse them)")
    private boolean replace;

    @Option(names = "--progress", negatable = true, description = "show a progress bar on stderr (default: when on a terminal)")
    private Boolean progress;

    /** Creates the command; picocli calls this. */
    public ImportRdbCommand() {}

    @Override
    public Integer call() {
        if (!Files.isRegularFile(dump)) {
            return Failures.report(NAME, Files.isDirectory(dump) ? dump + " is a directory; name the RDB file (dump.rdb)"
                    : "no such file: " + dump);
        }
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(dump)) {
            MemorySegment bytes = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            return run(bytes);
        } catch (NoSuchFileException e) {
            return Failures.report(NAME, "no such file: " + dump);
        } catch (IOException e) {
            return Failures.report(NAME, dump + ": " + IoMessages.message(e));
        }
    }

    private int run(MemorySegment bytes) {
        long now = System.currentTimeMillis();
        long t0 = System.nanoTime();
        boolean showBar = progress != null ? progress : System.console() != null;
        RdbImporter check = new RdbImporter(now, null, new Progress("checking " + dump, 1000, showBar), bytes.byteSize());
        RdbReader.Result read;
        try {
            read = pass(bytes, RdbReader.Mode.CHECK, check);
        } catch (RdbFormatException e) {
            return refused(e, "nothing was imported");
        }
        if (!check.keys.isEmpty() && check.keys.lastKey() >= ServerConfig.MAX_DATABASES) {
            return Failures.report(NAME, dump + " has keys in database " + check.keys.lastKey() + ", beyond the "
                    + ServerConfig.MAX_DATABASES + " a server can have; nothing was imported");
        }
        String unwritable = IoMessages.unwritableDirectory(data, "--data " + data);
        if (unwritable != null) {
            return Failures.report(NAME, unwritable);
        }
        RdbImporter load;
        Map<Integer, Long> before;
        try (DataDirWriter writer = DataDirWriter.open(data)) {
            before = check.keys.keySet().stream().collect(Collectors.toMap(db -> db, writer::keys));
            List<String> occupied = new ArrayList<>();
            before.forEach((db, keys) -> {
                if (keys > 0) {
                    occupied.add("database " + db + " (" + writer.file(db) + ") holds " + keys + (keys == 1 ? " key" : " keys"));
                }
            });
            if (!occupied.isEmpty() && !replace) {
                return Failures.report(NAME, String.join(", ", occupied) + "; the dump has keys for "
                        + (occupied.size() == 1 ? "it" : "them") + ": import into an empty --data directory, or add"
                        + " --replace (a key in the dump replaces the one there, other keys stay)");
            }
            load = new RdbImporter(now, writer, new Progress("importing " + dump, 1000, showBar), bytes.byteSize());
            try {
                pass(bytes, RdbReader.Mode.LOAD, load);
            } catch (RdbFormatException | IllegalArgumentException | UncheckedIOException e) {
                // The check pass read the same bytes: only a dump changed meanwhile, or a full disk, gets here.
                System.err.println("colossal " + NAME + ": stopped after " + load.imported() + " of " + check.imported()
                        + " keys, which are in " + data + ": " + e.getMessage() + "; fix that and import again with --replace");
                return 1;
            }
            if (writer.evictions() > 0) {
                System.err.println("colossal " + NAME + ": the maps' bound (the --maxmemory " + data + " was created with)"
                        + " evicted " + writer.evictions() + " keys to take the rest");
            }
        } catch (DataDirInUseException e) {
            return Failures.report(NAME, e.getMessage().replace("give this one another --data directory",
                    "import into another --data directory"));
        } catch (IOException | RuntimeException e) {
            return Failures.report(NAME, data + ": " + IoMessages.message(e));
        }
        summary(read, load, before, bytes.byteSize(), System.nanoTime() - t0);
        return 0;
    }

    private static RdbReader.Result pass(MemorySegment bytes, RdbReader.Mode mode, RdbImporter importer)
            throws RdbFormatException {
        try {
            return RdbReader.read(bytes, mode, importer);
        } finally {
            importer.done();
        }
    }

    private int refused(RdbFormatException e, String outcome) {
        if (e.kind() == RdbFormatException.Kind.DAMAGED) {
            System.err.println("colossal " + NAME + ": " + dump + ": " + e.getMessage() + "; " + outcome
                    + " (take a new dump with 'redis-cli SAVE', or 'redis-check-rdb " + dump + "' for Redis's view)");
            return 1;
        }
        return Failures.report(NAME, dump + ": " + e.getMessage() + "; " + outcome);
    }

    private void summary(RdbReader.Result read, RdbImporter load, Map<Integer, Long> before, long fileBytes, long nanos) {
        double seconds = Math.max(nanos, 1) / 1e9;
        long keys = load.imported();
        System.out.println(String.format(Locale.ROOT, "%s (%s, RDB version %d%s, CRC-64 %s) -> %s: %d keys, %s of keys and"
                        + " values, in %.2f s (%.0f keys/s)", dump, ByteSize.format(fileBytes), read.version(),
                load.redisVersion != null ? ", Redis " + load.redisVersion : "", switch (read.checksum()) {
                    case VERIFIED -> "verified";
                    case OFF -> "off (saved with rdbchecksum no)";
                    case NOT_CHECKED -> "none in this version";
                }, data, keys, ByteSize.format(load.bytes), seconds, keys / seconds));
        load.keys.forEach((db, n) -> System.out.println("  db" + db + ": " + n + (n == 1 ? " key" : " keys")
                + " imported" + (before.get(db) > 0 ? ", " + before.get(db) + " there before" : "")));
        if (load.hashes > 0) {
            System.out.println("  hashes among them: " + load.hashes);
        }
        if (load.sets > 0) {
            System.out.println("  sets among them: " + load.sets);
        }
        if (load.lists > 0) {
            System.out.println("  lists among them: " + load.lists);
        }
        if (load.streams > 0) {
            System.out.println("  streams among them: " + load.streams);
        }
        if (load.zsets > 0) {
            System.out.println("  sorted sets among them: " + load.zsets);
        }
        List<String> left = new ArrayList<>();
        load.others.forEach((type, n) -> left.add(n + " " + type + (n == 1 ? "" : type.equals("hash") ? "es" : "s")));
        if (load.expired > 0) {
            left.add(load.expired + " already expired");
        }
        if (load.functions > 0) {
            System.out.println("  function libraries: " + load.functions + " (into functions.rdb)");
        }
        if (!load.refusedFunctions.isEmpty()) {
            left.add(load.refusedFunctions.size() + " function librar" + (load.refusedFunctions.size() == 1 ? "y" : "ies")
                    + " (" + String.join("; ", load.refusedFunctions) + ")");
        }
        System.out.println("  not imported: " + (left.isEmpty() ? "none" : String.join(", ", left)
                + (load.others.isEmpty() ? "" : " (Colossal serves strings, hashes, sets, lists, sorted sets and streams only)")));
        int highest = load.keys.isEmpty() ? 0 : load.keys.lastKey();
        System.out.println("  serve it: ./colossal serve --data " + data + (highest >= ServerConfig.DEFAULT_DATABASES
                ? " --databases " + (highest + 1) : ""));
    }
}
